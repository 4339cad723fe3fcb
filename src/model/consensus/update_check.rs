//! One update across every scan: where it sits in each scan's history and the per-scan verdict
//! on it ([`classify_update`]).

use serde_json::Value;

use super::diff::{Difference, json_diff};
use super::{Answer, Body, Consensus, Grouping, group_among, group_answers};

/// Where an update (or a scan's history head) sits in the history: migration id, then record
/// time (µs since the epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    pub migration_id: i64,
    pub record_time: i64,
}

/// What is known about one scan's history, to tell "don't know" from "disagree" when it
/// answered 404.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScanHistory {
    /// The newest update of its history, when it is known.
    pub head: Option<Position>,
    /// `Some(false)` when its history is known not to reach the update (without knowing where
    /// it ends), `Some(true)` when it is known to reach it.
    pub reaches: Option<bool>,
    /// `Some(true)` when the scan reports it is still backfilling its history.
    pub backfilling: Option<bool>,
}

/// Why a scan's 404 does not count as an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnknownReason {
    /// The endpoint answers 404 for what this scan has not indexed (`/v2/updates/hash`).
    NotIndexed,
    /// The scan's history ends before the update: at `head`, its newest update, when that is
    /// known (the check only learns that nothing at or after the update is there).
    Behind { head: Option<Position> },
    /// The scan is still backfilling its history.
    Backfilling,
}

/// The verdict on one scan's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ScanClass {
    /// In the consensus group.
    Agree,
    /// A different answer than the consensus.
    Disagree {
        /// The status it answered (200, or e.g. 404 while its history reaches past the update).
        status: u16,
        /// The paths where its body differs (empty when it answered an error).
        differences: Vec<Difference>,
        /// More differences were left out.
        truncated: bool,
    },
    /// Its answer does not count: it cannot know.
    DontKnow(UnknownReason),
    /// It answered, but there is no consensus to compare with.
    Unconfirmed,
    /// It answered an error that is not the consensus (and not a "don't know").
    Error { status: u16, message: String },
    /// No answer.
    Unreachable { detail: String },
    /// No answer in time.
    Timeout,
}

impl ScanClass {
    /// The short name used in JSON output: agree, disagree, dont_know, unconfirmed, error,
    /// unreachable, timeout.
    pub fn name(&self) -> &'static str {
        match self {
            ScanClass::Agree => "agree",
            ScanClass::Disagree { .. } => "disagree",
            ScanClass::DontKnow(_) => "dont_know",
            ScanClass::Unconfirmed => "unconfirmed",
            ScanClass::Error { .. } => "error",
            ScanClass::Unreachable { .. } => "unreachable",
            ScanClass::Timeout => "timeout",
        }
    }

    /// Why the answer says what it says, in one line (empty for agree and unconfirmed): the
    /// differing paths, the reason for "don't know", the error. The UI's Detail column and the
    /// headless `detail` field.
    pub fn detail(&self) -> String {
        match self {
            ScanClass::Agree | ScanClass::Unconfirmed => String::new(),
            ScanClass::Disagree {
                status: 200,
                differences,
                truncated,
            } => {
                let paths: Vec<&str> = differences.iter().map(|d| d.path.as_str()).collect();
                let more = if *truncated { " …" } else { "" };
                if paths.is_empty() {
                    "a different body".to_owned()
                } else {
                    format!("{}{more}", paths.join(" "))
                }
            }
            ScanClass::Disagree { status, .. } => {
                format!("HTTP {status} although its history reaches the update")
            }
            ScanClass::DontKnow(reason) => reason.describe(),
            ScanClass::Error { message, .. } => message.clone(),
            ScanClass::Unreachable { detail } => detail.clone(),
            ScanClass::Timeout => "no answer in time".into(),
        }
    }
}

impl UnknownReason {
    /// In words: `its history does not reach this update yet`, or with the scan's newest
    /// update when known, `its history ends before it, at 2026-…Z`.
    pub fn describe(&self) -> String {
        match self {
            UnknownReason::NotIndexed => "not indexed here".into(),
            UnknownReason::Backfilling => "still backfilling its history".into(),
            UnknownReason::Behind { head: None } => {
                "its history does not reach this update yet".into()
            }
            UnknownReason::Behind { head: Some(head) } => format!(
                "its history ends before it, at {}",
                crate::model::format::format_time_micros(head.record_time)
            ),
        }
    }
}

/// Most differences listed per disagreeing scan.
pub const MAX_DIFFERENCES: usize = 50;

/// One update as every scan answered it.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateCheck {
    /// Where the update sits (from the 2xx answers), when any scan returned it.
    pub position: Option<Position>,
    pub grouping: Grouping,
    /// Per scan, in scan order.
    pub classes: Vec<ScanClass>,
}

impl UpdateCheck {
    /// True when some scan disagrees with the consensus.
    pub fn any_disagree(&self) -> bool {
        self.classes
            .iter()
            .any(|c| matches!(c, ScanClass::Disagree { .. }))
    }

    /// How many scans are in each class: (agree, disagree, don't know, no answer or error).
    pub fn tally(&self) -> (usize, usize, usize, usize) {
        let count = |f: fn(&ScanClass) -> bool| self.classes.iter().filter(|c| f(c)).count();
        (
            count(|c| matches!(c, ScanClass::Agree)),
            count(|c| matches!(c, ScanClass::Disagree { .. })),
            count(|c| matches!(c, ScanClass::DontKnow(_))),
            count(|c| {
                matches!(
                    c,
                    ScanClass::Error { .. } | ScanClass::Unreachable { .. } | ScanClass::Timeout
                )
            }),
        )
    }

    /// Whether a quorum exists and what it is, in one line: `consensus: 11 of 13 agree on the
    /// update (quorum 5) ✓ · 1 disagrees · 1 unreachable`, `no consensus: …  ✗`.
    pub fn verdict(&self) -> String {
        let g = &self.grouping;
        let (agree, disagree, dont_know, failed) = self.tally();
        let mut parts = vec![match &g.consensus {
            // Agreeing that there is no such update verifies nothing: no tick (a mistyped id
            // must not look like a good result).
            Consensus::Reached { group } if g.groups.get(*group).map(|x| x.status) == Some(404) => {
                format!(
                    "not found: {agree} of {} answer 404 (quorum {}), no such update",
                    g.n, g.quorum
                )
            }
            Consensus::Reached { group } => {
                let what = match g.groups.get(*group).map(|x| x.status) {
                    Some(200) | None => "one answer".to_owned(),
                    Some(status) => format!("HTTP {status}"),
                };
                format!(
                    "consensus: {agree} of {} agree on {what} (quorum {}) ✓",
                    g.n, g.quorum
                )
            }
            Consensus::None => format!(
                "no consensus: the largest group has {} of {} (quorum {}) ✗",
                g.groups.first().map_or(0, |x| x.members.len()),
                g.n,
                g.quorum
            ),
            Consensus::Conflicting { groups } => format!(
                "conflicting: {} groups reach the quorum of {} ✗",
                groups.len(),
                g.quorum
            ),
        }];
        if disagree > 0 {
            parts.push(format!(
                "{disagree} disagree{}",
                if disagree == 1 { "s" } else { "" }
            ));
        }
        if dont_know > 0 {
            parts.push(format!("{dont_know} don't know"));
        }
        if failed > 0 {
            parts.push(format!("{failed} without an answer"));
        }
        parts.join(" · ")
    }
}

/// The position of an update answer (`/v2/updates/{id}` item, or an event with `update`):
/// its migration id (for a reassignment the one inside `event`) and record time.
pub fn update_position(value: &Value) -> Option<Position> {
    let item = match value.get("update") {
        Some(update) if update.is_object() => update,
        _ => value,
    };
    let record_time = item
        .get("record_time")
        .and_then(Value::as_str)
        .and_then(crate::model::format::parse_time_micros)?;
    let migration_id = item
        .get("migration_id")
        .or_else(|| item.get("event").and_then(|e| e.get("migration_id")))
        .and_then(json_int)?;
    Some(Position {
        migration_id,
        record_time,
    })
}

fn json_int(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Classifies every scan's answer about one update.
///
/// `counted[i]` says whether scan `i` counts in `n` and votes (a scan that does not is only
/// compared against the consensus). `history[i]` is what is known about scan `i`'s history
/// (only needed for scans that answered 404). With `not_found_is_unknown` (the hash lookup)
/// every 404 is "don't know". Otherwise a 404 is "don't know" when the scan is still
/// backfilling or its head is before the update's position; such answers are left out of the
/// groups (they still count in `n`).
pub fn classify_update(
    answers: &[Answer],
    counted: &[bool],
    history: &[ScanHistory],
    not_found_is_unknown: bool,
) -> UpdateCheck {
    let is_counted = |i: usize| counted.get(i).copied().unwrap_or(true);
    let n = (0..answers.len()).filter(|i| is_counted(*i)).count();
    // The update's position, from the largest group of 2xx answers.
    let first = group_answers(answers);
    let position = first
        .groups
        .iter()
        .filter(|g| g.status == 200)
        .find_map(|g| match answers.get(g.members[0]) {
            Some(Answer::Ok(Body::Json(value))) => update_position(value),
            _ => None,
        });
    let unknown: Vec<Option<UnknownReason>> = answers
        .iter()
        .enumerate()
        .map(|(i, answer)| {
            if !matches!(answer, Answer::Error { status: 404, .. }) {
                return None;
            }
            if not_found_is_unknown {
                return Some(UnknownReason::NotIndexed);
            }
            let known = history.get(i).copied().unwrap_or_default();
            if known.backfilling == Some(true) {
                return Some(UnknownReason::Backfilling);
            }
            match (known.reaches, known.head, position) {
                (Some(false), head, _) => Some(UnknownReason::Behind { head }),
                (_, Some(head), Some(update)) if head < update => {
                    Some(UnknownReason::Behind { head: Some(head) })
                }
                _ => None,
            }
        })
        .collect();
    let grouping = group_among(answers, n, |i| unknown[i].is_some() || !is_counted(i));
    let reference = grouping.consensus_group().map(|g| (g.members[0], g.status));
    let reference_key = reference.and_then(|(scan, _)| answers[scan].group_key());
    let classes = answers
        .iter()
        .enumerate()
        .map(|(i, answer)| {
            if let Some(reason) = &unknown[i] {
                return ScanClass::DontKnow(reason.clone());
            }
            match answer {
                Answer::Unreachable { detail } => {
                    return ScanClass::Unreachable {
                        detail: detail.clone(),
                    };
                }
                Answer::Timeout => return ScanClass::Timeout,
                _ => {}
            }
            let Some((ref_scan, ref_status)) = reference else {
                return match answer {
                    Answer::Error { status, body } => ScanClass::Error {
                        status: *status,
                        message: body.message(),
                    },
                    _ => ScanClass::Unconfirmed,
                };
            };
            if answer.group_key() == reference_key {
                return ScanClass::Agree;
            }
            match (answer, &answers[ref_scan]) {
                (Answer::Ok(body), Answer::Ok(reference_body)) => {
                    let (differences, truncated) = match (reference_body.json(), body.json()) {
                        (Some(a), Some(b)) => json_diff(a, b, MAX_DIFFERENCES),
                        _ => (Vec::new(), false),
                    };
                    ScanClass::Disagree {
                        status: 200,
                        differences,
                        truncated,
                    }
                }
                // The consensus is an answer, this scan says the update is not there although
                // its history reaches past it (or its history is unknown).
                (Answer::Error { status: 404, .. }, Answer::Ok(_)) => ScanClass::Disagree {
                    status: 404,
                    differences: Vec::new(),
                    truncated: false,
                },
                // The consensus is an error (e.g. not found) and this scan returned a body.
                (Answer::Ok(_), _) if ref_status != 200 => ScanClass::Disagree {
                    status: 200,
                    differences: Vec::new(),
                    truncated: false,
                },
                (Answer::Error { status, body }, _) => ScanClass::Error {
                    status: *status,
                    message: body.message(),
                },
                _ => ScanClass::Unconfirmed,
            }
        })
        .collect();
    UpdateCheck {
        position,
        grouping,
        classes,
    }
}
