//! `cantonscope scan reward-round N`: a round's CIP-0104 reward accounting as the scan states
//! it (activity totals, root hash, each a state: ok, undetermined, cannot provide, not found,
//! not implemented), and the reward tree walked from the root with every batch's hash
//! recomputed from its served contents ([`crate::model::reward_tree`]): verified when each
//! matches the hash it was asked by, differs when one does not (exit 1).

use serde_json::{Value, json};

use crate::api::scan::{self, RoundAnswer, rewards::settle};
use crate::api::{ApiClient, ApiError};
use crate::every_scan::reward_tree;

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

/// Walks the tree from `root` ([`crate::every_scan::reward_tree::walk`]): one row per batch,
/// and whether all verified.
async fn walk(client: &ApiClient, round: i64, root: &str) -> Result<(Vec<Value>, bool), ApiError> {
    let done = reward_tree::walk(root, |hash| {
        let call = scan::reward_batch(round, &hash);
        async move { settle(client.send(&call).await) }
    })
    .await?;
    let verified = done.verified();
    let rows = done
        .rows
        .iter()
        .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
        .collect();
    Ok((rows, verified))
}
