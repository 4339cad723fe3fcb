//! A round's CIP-0104 reward tree as walked from its root (issue 37 §2), pure parts: one
//! batch checked ([`check_batch`]: its hash recomputed from its served contents with
//! [`super::reward_hash`] and compared with the hash it was asked by), a walk's outcome on one
//! scan ([`ScanTree`]: verified, differs at a batch, unverifiable, not served) and its leaves
//! judged against the index's kept app activity ([`judge_leaves`]).
//!
//! The leaves' check is what a client can fairly ask without the scan's reward parameters
//! (the round's issuance, the reward per unit of weight, the threshold under which an
//! allowance is burned): every provider of a minting allowance has app activity kept in the
//! round (a provider without any was rewarded for activity the index never saw), no provider
//! is rewarded twice, no more providers are rewarded than the index saw active, and the
//! allowances sum to the `total_app_reward_minting_allowance` the same scan serves for the
//! round (with `rewarded_app_provider_parties_count` allowances). A provider with kept
//! activity but no allowance is not a fault: its allowance may have fallen under the
//! threshold (burned) or have been cut by the cap; it is counted, not judged. An amount is
//! never compared with the index's weight: the rate is the scan's to compute.
//!
//! The walk itself (asking each batch) is the runtime's: `every_scan::reward_tree`.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::amount::Amount;
use super::reward_hash;
use crate::api::scan::{MintingAllowance, RewardBatch, RoundAnswer};

/// At most this many batches are walked (a tree that does not end is the server's fault).
pub const MAX_BATCHES: usize = 100_000;

/// One batch as walked: its depth from the root, the hash it was asked by, its type, how many
/// entries it holds, its hash recomputed from its contents and whether the two match
/// (`verified`, `differs`, `unverifiable`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BatchRow {
    pub depth: usize,
    pub hash: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub entries: usize,
    pub recomputed: Option<String>,
    pub result: &'static str,
}

/// What one batch answer tells: its row, its children to walk next, its allowances.
pub struct Checked {
    pub row: BatchRow,
    pub children: Vec<String>,
    pub allowances: Vec<MintingAllowance>,
}

/// The batch asked by `hash` at `depth`, as the scan answered it, checked.
pub fn check_batch(hash: &str, depth: usize, answer: &RoundAnswer<RewardBatch>) -> Checked {
    let mut children = Vec::new();
    let mut allowances = Vec::new();
    let (kind, entries, recomputed) = match answer {
        RoundAnswer::Ok(RewardBatch::BatchOfBatches { child_hashes }) => {
            children = child_hashes
                .iter()
                .map(|c| c.to_ascii_lowercase())
                .collect();
            (
                "BatchOfBatches".to_owned(),
                child_hashes.len(),
                Some(reward_hash::hash_batch_of_batches(child_hashes)),
            )
        }
        RoundAnswer::Ok(RewardBatch::BatchOfMintingAllowances { minting_allowances }) => {
            allowances.clone_from(minting_allowances);
            let hashes: Option<Vec<String>> = minting_allowances
                .iter()
                .map(|a| reward_hash::hash_minting_allowance(&a.provider, &a.amount))
                .collect();
            (
                "BatchOfMintingAllowances".to_owned(),
                minting_allowances.len(),
                hashes.map(|h| reward_hash::hash_batch_of_minting_allowances(&h)),
            )
        }
        RoundAnswer::Ok(RewardBatch::Unknown { .. }) => ("unknown".to_owned(), 0, None),
        other => (other.state().to_owned(), 0, None),
    };
    let result = match &recomputed {
        Some(r) if r.eq_ignore_ascii_case(hash) => "verified",
        Some(_) => "differs",
        None => "unverifiable",
    };
    Checked {
        row: BatchRow {
            depth,
            hash: hash.to_owned(),
            kind,
            entries,
            recomputed,
            result,
        },
        children,
        allowances,
    }
}

/// A whole walk: every batch reached (breadth first), the allowances of its leaves, and
/// whether it stopped at [`MAX_BATCHES`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Walk {
    pub rows: Vec<BatchRow>,
    pub allowances: Vec<MintingAllowance>,
    pub cut: bool,
}

impl Walk {
    /// Whether every batch verified (and the walk was not cut).
    pub fn verified(&self) -> bool {
        !self.cut && self.rows.iter().all(|r| r.result == "verified")
    }
}

/// A tree walk's outcome on one scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TreeOutcome {
    /// Every batch's hash recomputed equals the hash it was asked by.
    Verified,
    /// A batch's recomputed hash is another: the scan's tree is not the one its root commits to.
    Differs,
    /// A batch could not be read or recomputed (an unknown type, an amount that is no
    /// decimal, a batch not served, no answer).
    Unverifiable,
    /// The scan serves no root hash for the round (its state says why).
    NotServed,
}

impl TreeOutcome {
    pub fn word(self) -> &'static str {
        match self {
            TreeOutcome::Verified => "verified",
            TreeOutcome::Differs => "differs",
            TreeOutcome::Unverifiable => "unverifiable",
            TreeOutcome::NotServed => "not served",
        }
    }
}

/// One scan's reward tree for a round: the walk's outcome, and its leaves judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScanTree {
    pub scan: String,
    pub outcome: TreeOutcome,
    /// The root hash's state (`ok`, `undetermined`, …, or the transport problem).
    pub root_state: String,
    pub root_hash: Option<String>,
    /// Batches walked.
    pub batches: usize,
    /// The first batch whose recomputed hash differs.
    pub differs_at: Option<String>,
    /// Why the tree is unverifiable (or not served).
    pub why: Option<String>,
    /// The scan's own `total_app_reward_minting_allowance` and
    /// `rewarded_app_provider_parties_count` for the round, when it serves them.
    pub served_total: Option<String>,
    pub served_rewarded: Option<i64>,
    /// The leaves' allowances (provider, amount as served), in tree order.
    #[serde(skip)]
    pub allowances: Vec<(String, String)>,
    /// The leaves judged against the index ([`judge_leaves`]; `None`: no walk reached them).
    pub leaves: Option<Leaves>,
}

impl ScanTree {
    /// A scan serving no root hash for the round: `state` says why.
    pub fn not_served(scan: String, state: String) -> ScanTree {
        ScanTree {
            scan,
            outcome: TreeOutcome::NotServed,
            why: Some(state.clone()),
            root_state: state,
            root_hash: None,
            batches: 0,
            differs_at: None,
            served_total: None,
            served_rewarded: None,
            allowances: Vec::new(),
            leaves: None,
        }
    }

    /// The outcome of `walk` from `root` (`Err`: the walk stopped at a batch it could not ask).
    pub fn walked(
        scan: String,
        root: String,
        walk: Result<Walk, String>,
        served: Option<(String, i64)>,
    ) -> ScanTree {
        let mut t = ScanTree::not_served(scan, "ok".to_owned());
        t.root_hash = Some(root);
        t.served_total = served.as_ref().map(|s| s.0.clone());
        t.served_rewarded = served.map(|s| s.1);
        let walk = match walk {
            Ok(w) => w,
            Err(why) => {
                t.outcome = TreeOutcome::Unverifiable;
                t.why = Some(why);
                return t;
            }
        };
        t.batches = walk.rows.len();
        t.allowances = walk
            .allowances
            .iter()
            .map(|a| (a.provider.clone(), a.amount.clone()))
            .collect();
        t.differs_at = walk
            .rows
            .iter()
            .find(|r| r.result == "differs")
            .map(|r| r.hash.clone());
        let unreadable = walk.rows.iter().find(|r| r.result == "unverifiable");
        (t.outcome, t.why) = if t.differs_at.is_some() {
            (TreeOutcome::Differs, None)
        } else if let Some(r) = unreadable {
            (
                TreeOutcome::Unverifiable,
                Some(format!("batch {}: {}", r.hash, r.kind)),
            )
        } else if walk.cut {
            (
                TreeOutcome::Unverifiable,
                Some(format!("more than {MAX_BATCHES} batches")),
            )
        } else {
            (TreeOutcome::Verified, None)
        };
        t
    }

    /// How the outcome reads: `verified (7 batches)`, `differs at batch 1a2b…`,
    /// `unverifiable: why`, `not served: undetermined`.
    pub fn said(&self, hash: &dyn Fn(&str) -> String) -> String {
        match self.outcome {
            TreeOutcome::Verified => format!(
                "verified ({} batch{})",
                self.batches,
                if self.batches == 1 { "" } else { "es" }
            ),
            TreeOutcome::Differs => format!(
                "differs at batch {}",
                hash(self.differs_at.as_deref().unwrap_or_default())
            ),
            TreeOutcome::Unverifiable => format!(
                "unverifiable: {}",
                self.why.as_deref().unwrap_or("no reason given")
            ),
            TreeOutcome::NotServed => format!(
                "not served: {}",
                self.why.as_deref().unwrap_or(&self.root_state)
            ),
        }
    }

    /// Whether this scan's tree is a divergence: it differs, or its leaves do not fit.
    pub fn diverges(&self) -> bool {
        self.outcome == TreeOutcome::Differs
            || self.leaves.as_ref().is_some_and(|l| l.result == "differ")
    }
}

/// A hash shortened for a line (the whole of it in the JSON).
pub fn short(h: &str) -> String {
    if h.chars().count() > 16 {
        format!("{}…", h.chars().take(16).collect::<String>())
    } else {
        h.to_owned()
    }
}

/// The leaves of one scan's tree against the index's kept app activity of the round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Leaves {
    /// Allowances in the tree.
    pub allowances: usize,
    /// Their sum (Daml-shown: `12.5`), `None` when an amount is no decimal.
    pub sum: Option<String>,
    /// The sum equals the scan's served total (`None`: no total served, or no sum).
    pub sum_fits: Option<bool>,
    /// The number of allowances equals the scan's served count of rewarded providers.
    pub count_fits: Option<bool>,
    /// Providers in the tree with no app activity kept in the round.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub without_activity: Vec<String>,
    /// Providers with more than one allowance.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub twice: Vec<String>,
    /// Providers with kept activity and no allowance (under the threshold, or capped).
    pub not_rewarded: Option<i64>,
    /// `agree`, `differ`, or `not compared` (the index lacks part of the round: only the
    /// scan's own sums are checked).
    pub result: &'static str,
}

/// `allowances` (provider, amount) of one scan's tree judged: against the scan's own served
/// total and count, and, when `kept` is given (the index holds the whole round), against the
/// providers with kept app activity in the round (`kept`: provider → records, for the
/// providers of the tree the index has; `active`: how many providers the index saw active).
pub fn judge_leaves(
    allowances: &[(String, String)],
    served_total: Option<&str>,
    served_rewarded: Option<i64>,
    kept: Option<(&BTreeMap<String, i64>, i64)>,
) -> Leaves {
    let sum = allowances.iter().try_fold(Amount::ZERO, |acc, (_, a)| {
        acc.checked_add(Amount::parse(a)?)
    });
    let sum_fits = match (sum, served_total.and_then(Amount::parse)) {
        // Compared as numbers (`3.5` and `3.5000000000` are one amount).
        (Some(s), Some(t)) => Some(s.cmp(&t).is_eq()),
        _ => None,
    };
    let n = i64::try_from(allowances.len()).unwrap_or(i64::MAX);
    let count_fits = served_rewarded.map(|c| c == n);
    let mut seen = BTreeSet::new();
    let mut twice = Vec::new();
    for (p, _) in allowances {
        if !seen.insert(p.as_str()) && !twice.contains(p) {
            twice.push(p.clone());
        }
    }
    let (without_activity, not_rewarded) = match kept {
        Some((kept, active)) => (
            seen.iter()
                .filter(|p| kept.get(**p).is_none_or(|r| *r == 0))
                .map(|p| (*p).to_owned())
                .collect(),
            Some(active - i64::try_from(seen.len()).unwrap_or(i64::MAX)).filter(|n| *n >= 0),
        ),
        None => (Vec::new(), None),
    };
    let too_many =
        kept.is_some_and(|(_, active)| i64::try_from(seen.len()).unwrap_or(i64::MAX) > active);
    let bad = sum_fits == Some(false)
        || count_fits == Some(false)
        || !twice.is_empty()
        || !without_activity.is_empty()
        || too_many;
    Leaves {
        allowances: allowances.len(),
        sum: sum.and_then(|s| reward_hash::daml_decimal_show(&s.plain())),
        sum_fits,
        count_fits,
        without_activity,
        twice,
        not_rewarded,
        result: if bad {
            "differ"
        } else if kept.is_some() {
            "agree"
        } else {
            "not compared"
        },
    }
}

impl Leaves {
    /// How the check reads: `2 allowances · each provider with kept activity · 3 active not
    /// rewarded · sum 3.5 = served total`, what does not fit first.
    pub fn said(&self) -> String {
        // What does not fit first (a line cut at the screen's edge keeps it).
        let mut bad = Vec::new();
        let sum = self.sum.as_deref().unwrap_or("not a decimal");
        if self.sum_fits == Some(false) {
            bad.push(format!("sum {sum} ≠ served total"));
        }
        if !self.without_activity.is_empty() {
            bad.push(format!(
                "{} without kept activity ({})",
                self.without_activity.len(),
                self.without_activity.join(", ")
            ));
        }
        if !self.twice.is_empty() {
            bad.push(format!("rewarded twice: {}", self.twice.join(", ")));
        }
        if self.count_fits == Some(false) {
            bad.push("count ≠ served rewarded providers".into());
        }
        let mut parts = bad;
        parts.push(format!(
            "{} allowance{}",
            self.allowances,
            if self.allowances == 1 { "" } else { "s" }
        ));
        match self.result {
            "not compared" => {
                parts.push("providers not compared (the index lacks part of the round)".into());
            }
            _ if self.without_activity.is_empty() && self.twice.is_empty() => {
                parts.push("each provider with kept activity".into());
            }
            _ => {}
        }
        if let Some(n) = self.not_rewarded.filter(|n| *n > 0) {
            parts.push(format!("{n} active not rewarded"));
        }
        match self.sum_fits {
            Some(true) => parts.push(format!("sum {sum} = served total")),
            None => parts.push(format!("sum {sum}")),
            Some(false) => {}
        }
        parts.join(" · ")
    }
}

/// What every scan's tree of one round tells (the explorer's `Request::RoundTree`): each
/// scan's walk, in scan order, and the index's kept records of the tree's providers
/// (provider → records; `Err`: why the index could not be read, `None`: no index).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundTrees {
    pub round: i64,
    pub scans: Vec<ScanTree>,
    pub kept: Option<Result<BTreeMap<String, i64>, String>>,
}

impl RoundTrees {
    /// Why the index could not be read for the providers (`None`: it was, or there is none).
    pub fn kept_failed(&self) -> Option<&str> {
        match &self.kept {
            Some(Err(e)) => Some(e),
            _ => None,
        }
    }

    /// Every provider of every scan's tree, once.
    pub fn providers(&self) -> Vec<String> {
        let set: BTreeSet<&str> = self
            .scans
            .iter()
            .flat_map(|s| s.allowances.iter().map(|(p, _)| p.as_str()))
            .collect();
        set.into_iter().map(str::to_owned).collect()
    }

    /// Each scan's leaves judged; `compare`: the index holds the whole round, with `active`
    /// providers (else only each scan's own sums are checked).
    pub fn judge(&mut self, compare: Option<i64>) {
        let kept = match (&self.kept, compare) {
            (Some(Ok(k)), Some(active)) => Some((k, active)),
            _ => None,
        };
        for s in &mut self.scans {
            if s.outcome == TreeOutcome::NotServed || s.batches == 0 {
                continue;
            }
            s.leaves = Some(judge_leaves(
                &s.allowances,
                s.served_total.as_deref(),
                s.served_rewarded,
                kept,
            ));
        }
    }

    /// Each scan's outcome, as one line: `sv-1 verified (3 batches) · sv-2 differs at batch
    /// 1a2b3c4d5e6f7a8b… · sv-3 not served: not implemented (501)`, a scan whose leaves do not
    /// fit with `, leaves differ`.
    pub fn per_scan(&self) -> String {
        self.scans
            .iter()
            .map(|s| {
                let leaves = if s.leaves.as_ref().is_some_and(|l| l.result == "differ") {
                    ", leaves differ"
                } else {
                    ""
                };
                format!("{} {}{leaves}", s.scan, s.said(&short))
            })
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// The round's verdict over the scans: `verified on 2 · 1 not served`, `differs on
    /// sv-2 · verified on 1`, and whether some scan's tree diverges.
    pub fn verdict(&self) -> (String, bool) {
        let mut parts = Vec::new();
        let diverging: Vec<&str> = self
            .scans
            .iter()
            .filter(|s| s.diverges())
            .map(|s| s.scan.as_str())
            .collect();
        if !diverging.is_empty() {
            parts.push(format!("differs on {}", diverging.join(", ")));
        }
        for outcome in [
            TreeOutcome::Verified,
            TreeOutcome::Unverifiable,
            TreeOutcome::NotServed,
        ] {
            let n = self
                .scans
                .iter()
                .filter(|s| s.outcome == outcome && !s.diverges())
                .count();
            if n > 0 {
                parts.push(format!("{} on {n}", outcome.word()));
            }
        }
        if parts.is_empty() {
            parts.push("no scan".into());
        }
        (parts.join(" · "), !diverging.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowance(p: &str, a: &str) -> MintingAllowance {
        MintingAllowance {
            provider: p.to_owned(),
            amount: a.to_owned(),
        }
    }

    #[test]
    fn a_batch_served_as_hashed_verifies_and_one_changed_differs() {
        let list = vec![allowance("alice::1", "10.0000000000")];
        let hash =
            reward_hash::hash_batch_of_minting_allowances(&[reward_hash::hash_minting_allowance(
                "alice::1", "10.0",
            )
            .expect("a decimal")]);
        let ok = check_batch(
            &hash,
            1,
            &RoundAnswer::Ok(RewardBatch::BatchOfMintingAllowances {
                minting_allowances: list,
            }),
        );
        assert_eq!(ok.row.result, "verified");
        assert_eq!(ok.allowances.len(), 1);
        let changed = check_batch(
            &hash,
            1,
            &RoundAnswer::Ok(RewardBatch::BatchOfMintingAllowances {
                minting_allowances: vec![allowance("alice::1", "10.0000000001")],
            }),
        );
        assert_eq!(changed.row.result, "differs");
        let missing = check_batch(&hash, 1, &RoundAnswer::NotFound);
        assert_eq!(missing.row.result, "unverifiable");
        assert_eq!(missing.row.kind, "not found (404)");
        let walked = ScanTree::walked(
            "sv".into(),
            hash.clone(),
            Ok(Walk {
                rows: vec![changed.row],
                ..Walk::default()
            }),
            None,
        );
        assert_eq!(walked.outcome, TreeOutcome::Differs);
        assert_eq!(walked.differs_at.as_deref(), Some(hash.as_str()));
        assert!(walked.diverges());
    }

    #[test]
    fn leaves_fit_when_each_provider_has_kept_activity_and_the_sum_is_the_served_total() {
        let list = vec![
            ("a::1".to_owned(), "1.5000000000".to_owned()),
            ("b::1".to_owned(), "2.0000000000".to_owned()),
        ];
        let kept: BTreeMap<String, i64> = [("a::1".to_owned(), 2), ("b::1".to_owned(), 1)].into();
        let ok = judge_leaves(&list, Some("3.5000000000"), Some(2), Some((&kept, 5)));
        assert_eq!(ok.result, "agree", "{ok:?}");
        assert_eq!(ok.sum.as_deref(), Some("3.5"));
        assert_eq!(ok.not_rewarded, Some(3));
        assert_eq!(
            ok.said(),
            "2 allowances · each provider with kept activity · 3 active not rewarded · sum 3.5 = served total"
        );
        // A provider the index never saw active, and a sum that is not the served total.
        let only_a: BTreeMap<String, i64> = [("a::1".to_owned(), 2)].into();
        let bad = judge_leaves(&list, Some("3.4"), Some(2), Some((&only_a, 5)));
        assert_eq!(bad.result, "differ");
        assert_eq!(bad.without_activity, vec!["b::1".to_owned()]);
        assert_eq!(bad.sum_fits, Some(false));
        assert_eq!(
            bad.said(),
            "sum 3.5 ≠ served total · 1 without kept activity (b::1) · 2 allowances · 3 active not rewarded"
        );
        // More providers rewarded than the index saw active.
        assert_eq!(
            judge_leaves(&list, None, None, Some((&kept, 1))).result,
            "differ"
        );
        // A partial round: the scan's own sums only.
        let partial = judge_leaves(&list, Some("3.5"), Some(2), None);
        assert_eq!(partial.result, "not compared");
        let twice = vec![list[0].clone(), list[0].clone()];
        assert_eq!(judge_leaves(&twice, None, None, None).twice, vec!["a::1"]);
    }
}
