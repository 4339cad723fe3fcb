//! The Rounds view's comparison with the scans, pure parts: what each scan serves for a round
//! (asked by the runtime, `Request::RoundOnScans`), judged against the index's figures
//! ([`judge`]), said per scan (agree / differs in what / served, not compared / undetermined /
//! cannot provide / not served / unreachable) and per round (`4/4 agree`,
//! `3 agree · 1 differs (sv-2)`, `no scan serves it`, a root hash without f + 1 first).

use crate::model::index::rounds::{RoundCheck, RoundOnScans, RoundSummary, ScanVerdict, judge};
use crate::msg::RequestId;

/// What the view knows of one round on the scans.
#[derive(Debug, Clone, PartialEq)]
pub enum OnScans {
    /// Asked with this request.
    Asked(RequestId),
    /// What they serve, and how it compares with the index's figures.
    Answered(Box<(RoundOnScans, RoundCheck)>),
    /// The request failed (no network, …).
    Failed(String),
}

impl OnScans {
    /// `answer` judged against `local`; `whole`: the index holds the whole round (else the
    /// scans' totals are shown, not compared).
    pub fn answered(local: &RoundSummary, whole: bool, answer: RoundOnScans) -> OnScans {
        let check = judge(local, whole, &answer.scans, answer.threshold);
        OnScans::Answered(Box::new((answer, check)))
    }
}

/// How the comparison of a round reads: good, doubtful, a divergence, or nothing to say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Agree,
    Doubt,
    Diverges,
    Quiet,
}

/// One scan's part, as the round's verdict counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Agree,
    Differs,
    /// Served, not compared (a round the index does not hold whole).
    Served,
    Undetermined,
    CannotProvide,
    /// 404 or 501.
    NotServed,
    /// No answer, an error, an answer that could not be read.
    Unreachable,
}

const KINDS: [(Kind, &str); 7] = [
    (Kind::Agree, "agree"),
    (Kind::Differs, "differs"),
    (Kind::Served, "served, not compared"),
    (Kind::Undetermined, "undetermined"),
    (Kind::CannotProvide, "cannot provide"),
    (Kind::NotServed, "not served"),
    (Kind::Unreachable, "unreachable"),
];

fn state_kind(state: &str) -> Kind {
    match state {
        "ok" => Kind::Served,
        "undetermined" => Kind::Undetermined,
        "cannot provide" => Kind::CannotProvide,
        "not found (404)" | "not implemented (501)" => Kind::NotServed,
        _ => Kind::Unreachable,
    }
}

fn kind(v: &ScanVerdict) -> Kind {
    if v.totals == "differ" || v.root_hash == "differ" {
        return Kind::Differs;
    }
    match v.totals {
        "agree" => Kind::Agree,
        "not compared" => Kind::Served,
        _ if v.root_hash == "agree" => Kind::Agree,
        _ => state_kind(&v.totals_state),
    }
}

/// The round's verdict over every scan, and its tone: `4/4 agree`, `3 agree · 1 differs
/// (sv-2)`, `no scan serves it`; a root hash that f + 1 scans do not hold comes first.
pub fn verdict(check: &RoundCheck) -> (String, Tone) {
    let kinds: Vec<Kind> = check.scans.iter().map(kind).collect();
    let n = kinds.len();
    let count = |k: Kind| kinds.iter().filter(|x| **x == k).count();
    let mut parts = Vec::new();
    if check.root_divergence {
        parts.push("root hash diverges".to_owned());
    }
    if n == 0 {
        parts.push("no scan".to_owned());
    } else if count(Kind::Agree) == n {
        parts.push(format!("{n}/{n} agree"));
    } else if count(Kind::NotServed) == n {
        parts.push("no scan serves it".to_owned());
    } else {
        for (k, word) in KINDS {
            let c = count(k);
            if c == 0 {
                continue;
            }
            if matches!(k, Kind::Differs | Kind::Unreachable) {
                let names: Vec<&str> = check
                    .scans
                    .iter()
                    .zip(&kinds)
                    .filter(|(_, x)| **x == k)
                    .map(|(v, _)| v.scan.as_str())
                    .collect();
                parts.push(format!("{c} {word} ({})", names.join(", ")));
            } else {
                parts.push(format!("{c} {word}"));
            }
        }
    }
    let tone = if check.root_divergence || count(Kind::Differs) > 0 {
        Tone::Diverges
    } else if count(Kind::Unreachable) > 0 {
        Tone::Doubt
    } else if count(Kind::Agree) > 0 {
        Tone::Agree
    } else {
        Tone::Quiet
    };
    (parts.join(" · "), tone)
}

fn field(name: &str) -> &str {
    match name {
        "total_app_activity_weight" => "weight",
        "active_parties_count" => "parties",
        "activity_records_count" => "records",
        other => other,
    }
}

/// A hash shortened for a line (the whole of it in `index rounds`).
pub fn short_hash(h: &str) -> String {
    if h.chars().count() > 16 {
        format!("{}…", h.chars().take(16).collect::<String>())
    } else {
        h.to_owned()
    }
}

/// One scan's line (after its name): its totals and its root hash, each compared or its state.
pub fn scan_line(v: &ScanVerdict) -> (String, Tone) {
    let totals = match v.totals {
        "agree" => "totals agree".to_owned(),
        "differ" => format!(
            "totals differ in {}",
            v.differs_in
                .iter()
                .map(|f| field(f))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        "not compared" => "totals served, not compared (the index lacks part of the round)".into(),
        _ => format!("totals {}", v.totals_state),
    };
    let hash = v.served_root_hash.as_deref().map(short_hash);
    let root = match (v.root_hash, hash) {
        ("agree", Some(h)) => format!("root hash {h} agrees"),
        ("differ", Some(h)) => format!("root hash {h} differs"),
        (_, Some(h)) => format!("root hash {h}, no f + 1 agree"),
        (_, None) => format!("root hash {}", v.root_state),
    };
    let tone = match kind(v) {
        Kind::Agree => Tone::Agree,
        Kind::Differs => Tone::Diverges,
        Kind::Unreachable => Tone::Doubt,
        _ => Tone::Quiet,
    };
    (format!("{totals} · {root}"), tone)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::index::rounds::{RoundSums, ScanRound};

    fn local() -> RoundSummary {
        RoundSummary {
            round: 9,
            sums: RoundSums {
                weight: 10,
                records: 2,
                ..RoundSums::default()
            },
            active_parties: 1,
            top_providers: Vec::new(),
            records_pruned: false,
        }
    }

    fn scan(name: &str, state: &str, weight: i64, hash: Option<&str>) -> ScanRound {
        ScanRound {
            scan: name.to_owned(),
            totals_state: state.to_owned(),
            totals: (state == "ok").then_some((weight, 1, 2)),
            root_state: if hash.is_some() { "ok" } else { state }.to_owned(),
            root_hash: hash.map(str::to_owned),
        }
    }

    fn judged(scans: &[ScanRound], threshold: usize, whole: bool) -> RoundCheck {
        judge(&local(), whole, scans, threshold)
    }

    #[test]
    fn every_scan_agreeing_and_none_serving_read_in_a_few_words() {
        let all = judged(
            &[
                scan("sv-1", "ok", 10, Some("aa")),
                scan("sv-2", "ok", 10, Some("AA")),
            ],
            2,
            true,
        );
        assert_eq!(verdict(&all), ("2/2 agree".to_owned(), Tone::Agree));
        let none = judged(
            &[
                scan("sv-1", "not found (404)", 0, None),
                scan("sv-2", "not implemented (501)", 0, None),
            ],
            2,
            true,
        );
        assert_eq!(
            verdict(&none),
            ("no scan serves it".to_owned(), Tone::Quiet)
        );
    }

    #[test]
    fn a_differing_scan_is_named_with_what_differs_and_the_other_states_counted() {
        let check = judged(
            &[
                scan("sv-1", "ok", 10, Some("aa")),
                scan("sv-2", "ok", 11, Some("aa")),
                scan("sv-3", "undetermined", 0, None),
                scan("sv-4", "not implemented (501)", 0, None),
                scan("sv-5", "timed out", 0, None),
            ],
            2,
            true,
        );
        assert_eq!(
            verdict(&check),
            (
                "1 agree · 1 differs (sv-2) · 1 undetermined · 1 not served · 1 unreachable (sv-5)"
                    .to_owned(),
                Tone::Diverges
            )
        );
        let (line, tone) = scan_line(&check.scans[1]);
        assert_eq!(line, "totals differ in weight · root hash aa agrees");
        assert_eq!(tone, Tone::Diverges);
        assert_eq!(
            scan_line(&check.scans[3]).0,
            "totals not implemented (501) · root hash not implemented (501)"
        );
    }

    #[test]
    fn a_root_hash_without_f_plus_one_is_a_divergence_and_a_partial_round_is_not_compared() {
        let check = judged(
            &[
                scan("sv-1", "ok", 10, Some("aa")),
                scan("sv-2", "ok", 10, Some("bb")),
                scan("sv-3", "cannot provide", 0, None),
            ],
            2,
            false,
        );
        assert!(check.root_divergence);
        assert_eq!(
            verdict(&check),
            (
                "root hash diverges · 2 served, not compared · 1 cannot provide".to_owned(),
                Tone::Diverges
            )
        );
        assert_eq!(
            scan_line(&check.scans[0]).0,
            "totals served, not compared (the index lacks part of the round) · root hash aa, no f + 1 agree"
        );
    }
}
