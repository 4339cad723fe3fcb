//! The CIP-0104 reward accounting (`/v0/internal/reward-accounting-process/rounds/…`): per
//! round, the activity totals summed from the app activity records the scan serves with its
//! events (`render::event_item`: one record per accepted transaction with an app provider, its
//! weight the transaction's traffic cost), each rewarded provider's minting allowance (its
//! weight × 0.0001, served with ten decimals as a scan's `numeric(38,10)` is), and the reward
//! tree: leaves of two allowances, inner batches of up to three children, hashed with Splice's
//! CryptoHash (written here again, independently of the client's `model::reward_hash`).
//!
//! States: the two newest rounds are `Undetermined`; the first two rounds with records are
//! `CannotProvide` (the scan started mid-way), older ones 404 (a batch of a round that is not
//! `Ok` too); `earliest-available` is the round after them. The highest-numbered scan of
//! several is older: 404 for `earliest-available`, 501 for the rest. The scan given by `--diverging-rewards` serves a
//! different total weight and a different first allowance under the honest batch hash.

use std::collections::BTreeMap;
use std::sync::PoisonError;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use super::request::{ScanCtx, not_found};
use crate::demo::reply::{Fail, done, json_ok, scan_error};
use crate::demo::reward_rounds::{RoundActivity, Rounds};
use crate::demo::util::sha256_hex;

/// Allowance per unit of weight, in units of 1e-10.
const UNITS_PER_WEIGHT: i64 = 1_000_000;
/// Allowances below this (units of 1e-10: 1.0) are burned (thresholded).
const THRESHOLD_UNITS: i64 = 10_000_000_000;
const LEAF_SIZE: usize = 2;
const FAN_OUT: usize = 3;

impl Rounds {
    fn first(&self) -> i64 {
        self.activity.keys().next().copied().unwrap_or(self.newest)
    }

    fn earliest_available(&self) -> i64 {
        self.first() + 2
    }

    /// `Err(reply)` for a round that is not `Ok`.
    fn settled(&self, round: i64) -> Result<(), Fail> {
        if round < self.first() {
            return Err(not_found(format!(
                "Round {round} is not known to this scan"
            )));
        }
        let status = if round > self.newest - 2 {
            "Undetermined"
        } else if round < self.earliest_available() {
            "CannotProvide"
        } else {
            return Ok(());
        };
        Err(json_ok(&json!({ "status": status })).into())
    }
}

fn fmt_units(units: i64) -> String {
    format!("{}.{:010}", units / 10_000_000_000, units % 10_000_000_000)
}

/// Daml's `show` of a ten-decimal amount: trailing zeros stripped, one fraction digit kept.
fn daml_show(units: i64) -> String {
    let s = fmt_units(units);
    let t = s.trim_end_matches('0');
    if t.ends_with('.') {
        format!("{t}0")
    } else {
        t.to_owned()
    }
}

fn h(text: &str) -> String {
    sha256_hex(text.as_bytes())
}

fn h_parts(head: &[&str], hashes: &[String]) -> String {
    let mut parts: Vec<&str> = head.to_vec();
    let n = hashes.len().to_string();
    parts.push(&n);
    parts.extend(hashes.iter().map(String::as_str));
    h(&parts.join("|"))
}

/// A round's reward tree: the root hash and every batch by its hash, as JSON to serve.
struct Tree {
    root: String,
    batches: BTreeMap<String, Value>,
}

fn tree(allowances: &[(String, i64)]) -> Tree {
    let mut batches = BTreeMap::new();
    let mut level: Vec<String> = Vec::new();
    let chunks: Vec<&[(String, i64)]> = if allowances.is_empty() {
        vec![&[]]
    } else {
        allowances.chunks(LEAF_SIZE).collect()
    };
    for leaf in chunks {
        let hashes: Vec<String> = leaf
            .iter()
            .map(|(p, units)| h_parts(&[], &[h(p), h(&daml_show(*units))]))
            .collect();
        let hash = h_parts(&["BatchOfMintingAllowances"], &[h_parts(&[], &hashes)]);
        let served: Vec<Value> = leaf
            .iter()
            .map(|(p, units)| json!({"provider": p, "amount": fmt_units(*units)}))
            .collect();
        batches.insert(
            hash.clone(),
            json!({"batch_type": "BatchOfMintingAllowances", "minting_allowances": served}),
        );
        level.push(hash);
    }
    while level.len() > 1 {
        level = level
            .chunks(FAN_OUT)
            .map(|children| {
                let hash = h_parts(&["BatchOfBatches"], &[h_parts(&[], children)]);
                batches.insert(
                    hash.clone(),
                    json!({"batch_type": "BatchOfBatches", "child_hashes": children}),
                );
                hash
            })
            .collect();
    }
    Tree {
        root: level.pop().unwrap_or_default(),
        batches,
    }
}

/// The round's allowances (rewarded providers, by party id) and its thresholded total.
fn allowances(a: &RoundActivity) -> (Vec<(String, i64)>, i64) {
    let mut rewarded = Vec::new();
    let mut thresholded = 0;
    for (p, w) in &a.weights {
        let units = w.saturating_mul(UNITS_PER_WEIGHT);
        if units < THRESHOLD_UNITS {
            thresholded += units;
        } else {
            rewarded.push((p.clone(), units));
        }
    }
    (rewarded, thresholded)
}

/// Whether this scan is the older one of several (no reward accounting).
fn is_older(c: &ScanCtx) -> bool {
    c.app.scans > 1 && c.scan + 1 == c.app.scans
}

fn not_implemented() -> Fail {
    scan_error(
        StatusCode::NOT_IMPLEMENTED,
        "Reward accounting is not implemented by this scan",
    )
    .into()
}

/// Answers with `f` on this scan's rounds (read from the ledger as it is now); the older scan of
/// several, which has no reward accounting, answers `older` instead.
fn with_rounds(
    c: &ScanCtx,
    older: impl FnOnce() -> Fail,
    f: impl FnOnce(&Rounds) -> Result<Response, Fail>,
) -> Response {
    done((|| {
        if is_older(c) {
            return Err(older());
        }
        let w = c.app.read();
        let mut cache = c
            .app
            .reward_rounds
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        f(cache.current(&c.app.net, &w.ledger))
    })())
}

/// Reads the round's activity (`Ok` rounds only) and answers with `f`.
fn with_round(
    c: &ScanCtx,
    round: i64,
    batch: bool,
    f: impl FnOnce(&RoundActivity, bool) -> Result<Response, Fail>,
) -> Response {
    with_rounds(c, not_implemented, |rounds| {
        if rounds.settled(round).is_err() && batch {
            // The batches of a round that is not settled are not found (as the spec says).
            return Err(not_found(format!("No batches for round {round}")));
        }
        rounds.settled(round)?;
        let empty = RoundActivity::default();
        let a = rounds.activity.get(&round).unwrap_or(&empty);
        f(a, c.app.faults.diverging_rewards == Some(c.scan))
    })
}

pub(super) async fn earliest_available(State(c): State<ScanCtx>) -> Response {
    with_rounds(
        &c,
        || not_found("Not found"),
        |rounds| {
            Ok(json_ok(
                &json!({ "earliest_round": rounds.earliest_available() }),
            ))
        },
    )
}

pub(super) async fn activity_totals(State(c): State<ScanCtx>, Path(round): Path<i64>) -> Response {
    with_round(&c, round, false, |a, diverging| {
        let (rewarded, thresholded) = allowances(a);
        let minted: i64 = rewarded.iter().map(|(_, u)| u).sum();
        let weight: i64 = a.weights.values().sum::<i64>() + i64::from(diverging);
        Ok(json_ok(&json!({
            "status": "Ok",
            "round_number": round,
            "total_app_activity_weight": weight,
            "active_parties_count": a.weights.len(),
            "activity_records_count": a.records,
            "total_app_reward_minting_allowance": fmt_units(minted),
            "total_app_reward_thresholded": fmt_units(thresholded),
            "total_app_reward_unclaimed": fmt_units(0),
            "rewarded_app_provider_parties_count": rewarded.len(),
        })))
    })
}

pub(super) async fn root_hash(State(c): State<ScanCtx>, Path(round): Path<i64>) -> Response {
    with_round(&c, round, false, |a, _| {
        let t = tree(&allowances(a).0);
        Ok(json_ok(&json!({
            "status": "Ok",
            "round_number": round,
            "root_hash": t.root,
        })))
    })
}

pub(super) async fn batch(
    State(c): State<ScanCtx>,
    Path((round, hash)): Path<(i64, String)>,
) -> Response {
    with_round(&c, round, true, |a, diverging| {
        let (rewarded, _) = allowances(a);
        let t = tree(&rewarded);
        let mut served = t
            .batches
            .get(&hash.to_ascii_lowercase())
            .cloned()
            .ok_or_else(|| not_found(format!("No batch {hash} in round {round}")))?;
        // The diverging scan serves its first leaf's first allowance one unit higher, under
        // the honest hash.
        if diverging
            && let Some(first) = rewarded.first()
            && let Some(Value::Array(list)) = served.get_mut("minting_allowances")
            && let Some(entry) = list.first_mut()
            && entry["provider"] == json!(first.0)
        {
            entry["amount"] = json!(fmt_units(first.1 + 1));
        }
        Ok(json_ok(&served))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_served_with_ten_decimals_and_hashed_as_daml_shows_them() {
        assert_eq!(fmt_units(123_000_000_000), "12.3000000000");
        assert_eq!(daml_show(123_000_000_000), "12.3");
        assert_eq!(daml_show(100_000_000_000), "10.0");
        assert_eq!(daml_show(0), "0.0");
    }

    #[test]
    fn every_batch_of_the_tree_is_reached_from_the_root() {
        let list: Vec<(String, i64)> = (0..7)
            .map(|i| (format!("p{i}::1"), 4_000_000_000 + i))
            .collect();
        let t = tree(&list);
        // 4 leaves, 2 inner, 1 root.
        assert_eq!(t.batches.len(), 7);
        assert_eq!(
            t.batches[&t.root]["batch_type"],
            json!("BatchOfBatches"),
            "{:?}",
            t.batches[&t.root]
        );
    }
}
