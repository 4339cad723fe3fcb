//! Mining rounds computed from the index's kept events (issue 37 §2), pure parts: what one
//! update's kept events add to its round ([`Contribution`]: the CIP-104 app activity records'
//! weight per provider, the verdict's traffic cost), their sums per round ([`RoundSums`], as
//! the store's per-round summary keeps them), a round as `index rounds` shows it
//! ([`RoundSummary`]) and how it is judged against what each scan serves for it on the reward
//! accounting endpoints ([`judge`]: agree / differ / not served per scan, and whether f + 1
//! scans hold one root hash).
//!
//! Decoding is tolerant: a weight sent as a number or as decimal text, a record without a
//! party or a weight left out, a part not served read as nothing.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// What one update's kept events add to the rounds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Contribution {
    /// The round of its verdict (`None`: no verdict, or one without a round).
    pub round: Option<i64>,
    /// `traffic_summary.total_traffic_cost` (0 when not served).
    pub traffic_cost: i64,
    /// The round its app activity records count in (`app_activity_records.round_number`, else
    /// the verdict's).
    pub activity_round: Option<i64>,
    /// `(provider party, weight)` per record.
    pub records: Vec<(String, i64)>,
}

fn int(v: &Value) -> Option<i64> {
    v.as_i64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
}

impl Contribution {
    /// From the kept parts: the verdict's round (a column of the events table), the traffic
    /// summary and the app activity records as JSON text.
    pub fn of(
        round: Option<i64>,
        traffic_summary: Option<&str>,
        app_activity_records: Option<&str>,
    ) -> Contribution {
        let parse = |t: Option<&str>| t.and_then(|t| serde_json::from_str::<Value>(t).ok());
        let traffic_cost = parse(traffic_summary)
            .and_then(|t| int(&t["total_traffic_cost"]))
            .unwrap_or(0);
        let activity = parse(app_activity_records).unwrap_or(Value::Null);
        let records: Vec<(String, i64)> = activity["records"]
            .as_array()
            .map(|list| {
                list.iter()
                    .filter_map(|r| Some((r["party"].as_str()?.to_owned(), int(&r["weight"])?)))
                    .collect()
            })
            .unwrap_or_default();
        Contribution {
            round,
            traffic_cost,
            activity_round: int(&activity["round_number"]).or(round),
            records,
        }
    }
}

/// One round's sums, as the store keeps them (and adds to, page by page).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RoundSums {
    /// Updates whose verdict is of this round.
    pub updates: i64,
    /// Total traffic cost of those verdicts.
    pub traffic_cost: i64,
    /// App activity records counted in this round.
    pub records: i64,
    /// Their total weight.
    pub weight: i64,
    /// Record time (µs) of the first and last update of the round (`None`: none yet).
    pub first_time: Option<i64>,
    pub last_time: Option<i64>,
}

impl RoundSums {
    /// `other` added.
    pub fn add(&mut self, other: &RoundSums) {
        self.updates += other.updates;
        self.traffic_cost += other.traffic_cost;
        self.records += other.records;
        self.weight += other.weight;
        self.first_time = min_some(self.first_time, other.first_time);
        self.last_time = max_some(self.last_time, other.last_time);
    }
}

fn min_some(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn max_some(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// The sums of many updates' contributions: per round, and per (round, provider) weight and
/// records (what one page adds to the store's summary).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoundsDelta {
    pub rounds: BTreeMap<i64, RoundSums>,
    pub parties: BTreeMap<(i64, String), (i64, i64)>,
}

impl RoundsDelta {
    /// Adds one update's contribution, recorded at `record_time` (µs).
    pub fn add(&mut self, c: &Contribution, record_time: i64) {
        if let Some(round) = c.round {
            let r = self.rounds.entry(round).or_default();
            r.add(&RoundSums {
                updates: 1,
                traffic_cost: c.traffic_cost,
                first_time: Some(record_time),
                last_time: Some(record_time),
                ..RoundSums::default()
            });
        }
        if let Some(round) = c.activity_round.filter(|_| !c.records.is_empty()) {
            let r = self.rounds.entry(round).or_default();
            for (party, weight) in &c.records {
                r.records += 1;
                r.weight += weight;
                let p = self.parties.entry((round, party.clone())).or_default();
                p.0 += weight;
                p.1 += 1;
            }
            if c.round.is_none() {
                r.first_time = min_some(r.first_time, Some(record_time));
                r.last_time = max_some(r.last_time, Some(record_time));
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.rounds.is_empty()
    }
}

/// A provider's part of a round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Provider {
    pub party: String,
    pub weight: i64,
    pub records: i64,
}

/// How many providers a round shows (by weight).
pub const TOP_PROVIDERS: usize = 5;

/// One round as the index computes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoundSummary {
    pub round: i64,
    #[serde(flatten)]
    pub sums: RoundSums,
    /// Providers with records in the round.
    pub active_parties: i64,
    /// The heaviest providers, at most [`TOP_PROVIDERS`] (all of one with `--party`).
    pub top_providers: Vec<Provider>,
    /// Some of the updates counted in the round were pruned from the index (`index prune`):
    /// its figures are kept as they were counted, but can no longer be re-checked from the
    /// index's own records.
    pub records_pruned: bool,
}

/// The providers' parts of each round as an engine reads them (any order): how many each
/// round has and its heaviest [`TOP_PROVIDERS`] (by weight, then party), kept as they come, so
/// that a party's name is copied only while it is among them (a million updates have about
/// 333,000 parts, 25,000 rounds of five shown).
#[derive(Debug, Default)]
pub struct RoundProviders {
    by_round: BTreeMap<i64, (i64, Vec<Provider>)>,
}

impl RoundProviders {
    /// Adds `party`'s part of `round`.
    pub fn add(&mut self, round: i64, party: &str, weight: i64, records: i64) {
        let (active, top) = self.by_round.entry(round).or_default();
        *active += 1;
        let heavier = |p: &Provider| (p.weight, party) > (weight, p.party.as_str());
        let at = top.partition_point(heavier);
        if at < TOP_PROVIDERS {
            // Room for it (the lightest of five goes): `at` stays within the list.
            top.truncate(TOP_PROVIDERS - 1);
            top.insert(
                at,
                Provider {
                    party: party.to_owned(),
                    weight,
                    records,
                },
            );
        }
    }

    /// Whether `round` has a part.
    pub fn has(&self, round: i64) -> bool {
        self.by_round.contains_key(&round)
    }
}

impl RoundSummary {
    /// The rounds of `sums` with their providers, the heaviest first.
    pub fn assemble(
        sums: Vec<(i64, RoundSums)>,
        mut providers: RoundProviders,
    ) -> Vec<RoundSummary> {
        sums.into_iter()
            .map(|(round, sums)| {
                let (active_parties, top_providers) =
                    providers.by_round.remove(&round).unwrap_or_default();
                RoundSummary {
                    round,
                    sums,
                    active_parties,
                    top_providers,
                    records_pruned: false,
                }
            })
            .collect()
    }
}

/// Whether a round the index holds is closed (two rounds before the newest it holds: the newest
/// two are still counting) and whole (closed, and not the index's first round unless the index
/// starts at the ledger's beginning: that round may have begun before the index did). `first`
/// and `newest`: the oldest and newest round the index holds.
pub fn closed_and_whole(
    round: i64,
    first: Option<i64>,
    newest: Option<i64>,
    from_begin: bool,
) -> (bool, bool) {
    let closed = round.saturating_add(2) <= newest.unwrap_or(i64::MIN);
    (closed, closed && (from_begin || Some(round) != first))
}

/// What one scan serves for a round, as `index rounds` compares it: each endpoint's state
/// (`ok`, `undetermined`, `cannot provide`, `not found (404)`, `not implemented (501)`, or
/// the transport problem) and, when `ok`, its figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScanRound {
    pub scan: String,
    pub totals_state: String,
    /// (total weight, active parties, records) when `ok`.
    pub totals: Option<(i64, i64, i64)>,
    pub root_state: String,
    pub root_hash: Option<String>,
}

/// What every scan of the network serves for one round (the explorer's
/// `Request::RoundOnScans`): each scan's answers, in scan order, and f + 1 of the scans that
/// count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundOnScans {
    pub round: i64,
    pub scans: Vec<ScanRound>,
    pub threshold: usize,
}

/// A scan's verdict on one round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScanVerdict {
    pub scan: String,
    /// `agree`, `differ`, or `not served` (the state says why).
    pub totals: &'static str,
    pub totals_state: String,
    /// The fields that differ from the index's figures.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub differs_in: Vec<&'static str>,
    /// `agree` (with the hash f + 1 scans hold), `differ`, or `not served`.
    pub root_hash: &'static str,
    pub root_state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub served_root_hash: Option<String>,
}

/// A round judged: per scan, and whether the scans' root hashes have f + 1 agreeing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoundCheck {
    pub scans: Vec<ScanVerdict>,
    /// The root hash `threshold` (f + 1) scans serve, if any.
    pub root_hash: Option<String>,
    /// Some scan serves a root hash and none is held by `threshold` scans.
    pub root_divergence: bool,
    /// The scans whose totals differ from the index's figures.
    pub differing: Vec<String>,
}

/// `local` (the index's figures of a complete round) against each scan's answer for it.
/// `compare_totals`: the index holds the whole round (else a scan's totals are shown, never
/// called different). `threshold`: f + 1.
pub fn judge(
    local: &RoundSummary,
    compare_totals: bool,
    answers: &[ScanRound],
    threshold: usize,
) -> RoundCheck {
    let mut hashes: BTreeMap<String, usize> = BTreeMap::new();
    for a in answers {
        if let Some(h) = &a.root_hash {
            *hashes.entry(h.to_ascii_lowercase()).or_default() += 1;
        }
    }
    let agreed = hashes
        .iter()
        .filter(|(_, n)| **n >= threshold.max(1))
        .max_by_key(|(_, n)| **n)
        .map(|(h, _)| h.clone());
    let mut differing = Vec::new();
    let scans = answers
        .iter()
        .map(|a| {
            let mut differs_in = Vec::new();
            let totals = match a.totals {
                None => "not served",
                Some(_) if !compare_totals => "not compared",
                Some((weight, parties, records)) => {
                    if weight != local.sums.weight {
                        differs_in.push("total_app_activity_weight");
                    }
                    if parties != local.active_parties {
                        differs_in.push("active_parties_count");
                    }
                    if records != local.sums.records {
                        differs_in.push("activity_records_count");
                    }
                    if differs_in.is_empty() {
                        "agree"
                    } else {
                        differing.push(a.scan.clone());
                        "differ"
                    }
                }
            };
            let root_hash = match (&a.root_hash, &agreed) {
                (None, _) => "not served",
                (Some(h), Some(agreed)) if h.eq_ignore_ascii_case(agreed) => "agree",
                (Some(_), Some(_)) => "differ",
                (Some(_), None) => "no quorum",
            };
            ScanVerdict {
                scan: a.scan.clone(),
                totals,
                totals_state: a.totals_state.clone(),
                differs_in,
                root_hash,
                root_state: a.root_state.clone(),
                served_root_hash: a.root_hash.clone(),
            }
        })
        .collect();
    RoundCheck {
        scans,
        root_divergence: !hashes.is_empty() && agreed.is_none(),
        root_hash: agreed,
        differing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_newest_rounds_are_open_and_the_first_is_whole_only_from_the_beginning() {
        let (first, newest) = (Some(10), Some(20));
        assert_eq!(closed_and_whole(20, first, newest, false), (false, false));
        assert_eq!(closed_and_whole(19, first, newest, false), (false, false));
        assert_eq!(closed_and_whole(18, first, newest, false), (true, true));
        assert_eq!(closed_and_whole(10, first, newest, false), (true, false));
        assert_eq!(closed_and_whole(10, first, newest, true), (true, true));
        assert_eq!(closed_and_whole(5, None, None, true), (false, false));
    }

    #[test]
    fn a_contribution_reads_numbers_and_text_and_skips_what_it_cannot_read() {
        let c = Contribution::of(
            Some(7),
            Some(r#"{"total_traffic_cost":"1200","envelope_traffic_summaries":[]}"#),
            Some(
                r#"{"round_number":6,"records":[{"party":"a::1","weight":5},{"party":"b::1","weight":"7"},{"weight":3}]}"#,
            ),
        );
        assert_eq!(c.round, Some(7));
        assert_eq!(c.traffic_cost, 1200);
        assert_eq!(c.activity_round, Some(6));
        assert_eq!(c.records, vec![("a::1".into(), 5), ("b::1".into(), 7)]);
        let none = Contribution::of(None, None, Some("null"));
        assert_eq!(none, Contribution::default());
    }

    #[test]
    fn deltas_sum_per_round_and_provider_and_the_heaviest_come_first() {
        let mut d = RoundsDelta::default();
        let c = |w: i64, p: &str| Contribution {
            round: Some(3),
            traffic_cost: w,
            activity_round: Some(3),
            records: vec![(p.to_owned(), w)],
        };
        d.add(&c(5, "a"), 100);
        d.add(&c(9, "b"), 50);
        d.add(&c(1, "a"), 200);
        let sums = d.rounds[&3].clone();
        assert_eq!(
            (sums.updates, sums.records, sums.weight, sums.traffic_cost),
            (3, 3, 15, 15)
        );
        assert_eq!((sums.first_time, sums.last_time), (Some(50), Some(200)));
        let mut parties = RoundProviders::default();
        for ((r, p), (w, n)) in &d.parties {
            parties.add(*r, p, *w, *n);
        }
        let s = RoundSummary::assemble(vec![(3, sums)], parties);
        assert_eq!(s[0].active_parties, 2);
        assert_eq!(s[0].top_providers[0].party, "b");
        assert_eq!(s[0].top_providers[1].weight, 6);
    }

    #[test]
    fn each_round_keeps_its_heaviest_providers_as_sorting_all_of_them_would() {
        // Parts in a scrambled order, many of equal weight (ties go by party).
        let mut parts = Vec::new();
        let mut x: u64 = 7;
        for i in 0..600_u64 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let round = i64::try_from(x >> 60).expect("fits");
            let weight = i64::try_from((x >> 40) % 4).expect("fits");
            parts.push((
                round,
                format!("p{i:03}"),
                weight,
                i64::try_from(i).expect("fits"),
            ));
        }
        let mut kept = RoundProviders::default();
        for (round, party, weight, records) in &parts {
            kept.add(*round, party, *weight, *records);
        }
        let rounds: Vec<i64> = (0..16).collect();
        let sums = rounds.iter().map(|r| (*r, RoundSums::default())).collect();
        let summaries = RoundSummary::assemble(sums, kept);
        for s in &summaries {
            let mut all: Vec<&(i64, String, i64, i64)> =
                parts.iter().filter(|p| p.0 == s.round).collect();
            all.sort_by(|a, b| b.2.cmp(&a.2).then(a.1.cmp(&b.1)));
            assert_eq!(s.active_parties, i64::try_from(all.len()).expect("fits"));
            let top: Vec<(&str, i64, i64)> = all
                .iter()
                .take(TOP_PROVIDERS)
                .map(|p| (p.1.as_str(), p.2, p.3))
                .collect();
            let got: Vec<(&str, i64, i64)> = s
                .top_providers
                .iter()
                .map(|p| (p.party.as_str(), p.weight, p.records))
                .collect();
            assert_eq!(got, top, "round {}", s.round);
        }
        assert!(
            summaries
                .iter()
                .all(|s| s.active_parties > TOP_PROVIDERS as i64)
        );
    }

    #[test]
    fn a_scan_that_differs_is_named_and_a_root_hash_without_f_plus_one_is_a_divergence() {
        let local = RoundSummary {
            round: 4,
            sums: RoundSums {
                weight: 10,
                records: 2,
                ..RoundSums::default()
            },
            active_parties: 1,
            top_providers: Vec::new(),
            records_pruned: false,
        };
        let scan = |name: &str, weight: i64, hash: Option<&str>| ScanRound {
            scan: name.to_owned(),
            totals_state: "ok".into(),
            totals: Some((weight, 1, 2)),
            root_state: if hash.is_some() {
                "ok"
            } else {
                "not found (404)"
            }
            .into(),
            root_hash: hash.map(str::to_owned),
        };
        let check = judge(
            &local,
            true,
            &[
                scan("A", 10, Some("AB")),
                scan("B", 11, Some("ab")),
                scan("C", 10, None),
            ],
            2,
        );
        assert_eq!(check.differing, vec!["B".to_owned()]);
        assert_eq!(check.scans[1].differs_in, vec!["total_app_activity_weight"]);
        assert_eq!(check.root_hash.as_deref(), Some("ab"));
        assert!(!check.root_divergence);
        assert_eq!(check.scans[2].root_hash, "not served");
        let split = judge(
            &local,
            false,
            &[scan("A", 10, Some("aa")), scan("B", 11, Some("bb"))],
            2,
        );
        assert!(split.root_divergence);
        assert!(split.differing.is_empty(), "not compared: a partial round");
        assert_eq!(split.scans[0].root_hash, "no quorum");
    }
}
