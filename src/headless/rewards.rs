//! `cantonscope scan reward-round N`: a round's CIP-0104 reward accounting as the scan states
//! it (activity totals, root hash, each a state: ok, undetermined, cannot provide, not found,
//! not implemented), and the reward tree walked from the root with every batch's hash
//! recomputed from its served contents ([`crate::model::reward_hash`]): verified when each
//! matches the hash it was asked by, differs when one does not (exit 1).

use std::collections::{BTreeSet, VecDeque};

use serde_json::{Value, json};

use crate::api::scan::{self, RewardBatch, RoundAnswer, rewards::settle};
use crate::api::{ApiClient, ApiError};
use crate::model::reward_hash;

/// At most this many batches are walked (a tree that does not end is the server's fault).
const MAX_BATCHES: usize = 100_000;

/// The report of one round, and whether its tree verified (`None`: there was no tree to walk).
pub async fn reward_round(
    client: &ApiClient,
    round: i64,
) -> Result<(Value, Option<bool>), ApiError> {
    let earliest = settle(client.send(&scan::reward_earliest_round()).await)?;
    let totals = settle(client.send(&scan::reward_activity_totals(round)).await)?;
    let root = settle(client.send(&scan::reward_root_hash(round)).await)?;
    let mut report = json!({
        "round": round,
        "earliest_available_round": earliest.ok().map(|e| e.earliest_round),
        "activity_totals": state_json(&totals),
        "root_hash": state_json(&root),
    });
    let Some(root) = root.ok() else {
        report["verdict"] = json!(root.state());
        return Ok((report, None));
    };
    let (batches, verified) = walk(client, round, &root.root_hash).await?;
    report["verdict"] = json!(if verified { "verified" } else { "differs" });
    report["batches"] = Value::Array(batches);
    Ok((report, Some(verified)))
}

fn state_json<T: serde::Serialize>(answer: &RoundAnswer<T>) -> Value {
    let mut v = json!({ "state": answer.state() });
    if let RoundAnswer::Ok(t) = answer
        && let Ok(Value::Object(fields)) = serde_json::to_value(t)
        && let Some(m) = v.as_object_mut()
    {
        m.extend(fields);
    }
    if let RoundAnswer::UnknownStatus(s) = answer {
        v["status"] = json!(s);
    }
    v
}

/// Walks the tree breadth first from `root`: one row per batch, and whether all verified.
async fn walk(client: &ApiClient, round: i64, root: &str) -> Result<(Vec<Value>, bool), ApiError> {
    let mut queue = VecDeque::from([(root.to_ascii_lowercase(), 0usize)]);
    let mut seen = BTreeSet::new();
    let mut rows = Vec::new();
    let mut all_ok = true;
    while let Some((hash, depth)) = queue.pop_front() {
        if !seen.insert(hash.clone()) || rows.len() >= MAX_BATCHES {
            continue;
        }
        let answer = settle(client.send(&scan::reward_batch(round, &hash)).await)?;
        let (kind, entries, recomputed) = match &answer {
            RoundAnswer::Ok(RewardBatch::BatchOfBatches { child_hashes }) => {
                for child in child_hashes {
                    queue.push_back((child.to_ascii_lowercase(), depth + 1));
                }
                (
                    "BatchOfBatches",
                    child_hashes.len(),
                    Some(reward_hash::hash_batch_of_batches(child_hashes)),
                )
            }
            RoundAnswer::Ok(RewardBatch::BatchOfMintingAllowances { minting_allowances }) => {
                let hashes: Option<Vec<String>> = minting_allowances
                    .iter()
                    .map(|a| reward_hash::hash_minting_allowance(&a.provider, &a.amount))
                    .collect();
                (
                    "BatchOfMintingAllowances",
                    minting_allowances.len(),
                    hashes.map(|h| reward_hash::hash_batch_of_minting_allowances(&h)),
                )
            }
            RoundAnswer::Ok(RewardBatch::Unknown { .. }) => ("unknown", 0, None),
            other => (other.state(), 0, None),
        };
        let result = match &recomputed {
            Some(r) if r.eq_ignore_ascii_case(&hash) => "verified",
            Some(_) => "differs",
            None => "unverifiable",
        };
        all_ok &= result == "verified";
        rows.push(json!({
            "depth": depth,
            "hash": hash,
            "type": kind,
            "entries": entries,
            "recomputed": recomputed,
            "result": result,
        }));
    }
    Ok((rows, all_ok))
}
