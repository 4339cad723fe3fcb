//! A round's reward tree walked from its root (issue 37 §2): [`walk`] asks each batch through
//! whatever asks it (one scan's client for `scan reward-round`, a scan of the network within
//! its budget for `index rounds --tree` and the Rounds view), breadth first, every batch's
//! hash recomputed ([`crate::model::reward_tree::check_batch`]). [`tree_on_scan`] and
//! [`trees_of_round`] walk one round's tree on one scan, and on every scan of the network at
//! once (each scan's batches one after another, within its request budget).

use std::collections::BTreeSet;
use std::future::Future;

use futures_util::future::join_all;

use super::Network;
use super::rounds::answer;
use crate::api::scan::{self, RewardBatch, RoundAnswer};
use crate::model::reward_tree::{MAX_BATCHES, ScanTree, Walk, check_batch};

/// Walks the tree breadth first from `root`, asking each batch with `fetch` (its hash, lower
/// case); an error of `fetch` ends the walk with it.
pub async fn walk<E, F, Fut>(root: &str, mut fetch: F) -> Result<Walk, E>
where
    F: FnMut(String) -> Fut,
    Fut: Future<Output = Result<RoundAnswer<RewardBatch>, E>>,
{
    let mut queue = std::collections::VecDeque::from([(root.to_ascii_lowercase(), 0usize)]);
    let mut seen = BTreeSet::new();
    let mut done = Walk::default();
    while let Some((hash, depth)) = queue.pop_front() {
        if !seen.insert(hash.clone()) {
            continue;
        }
        if done.rows.len() >= MAX_BATCHES {
            done.cut = true;
            break;
        }
        let answer = fetch(hash.clone()).await?;
        let checked = check_batch(&hash, depth, &answer);
        queue.extend(checked.children.into_iter().map(|c| (c, depth + 1)));
        done.allowances.extend(checked.allowances);
        done.rows.push(checked.row);
    }
    Ok(done)
}

/// Round `round`'s tree on scan `scan` of `net`: its root hash and activity totals asked at
/// once, then (with a root hash) every batch from the root. A batch the scan does not serve,
/// or does not answer, ends the walk: unverifiable, saying which and why.
pub async fn tree_on_scan(net: &Network, scan: usize, round: i64) -> ScanTree {
    let name = net
        .entry(scan)
        .map(|e| e.sv_name.clone())
        .unwrap_or_default();
    let (root_call, totals_call) = (
        scan::reward_root_hash(round),
        scan::reward_activity_totals(round),
    );
    let ((root_state, root), (_, totals)) = tokio::join!(
        answer(net, scan, &root_call),
        answer(net, scan, &totals_call)
    );
    let Some(root) = root.map(|r| r.root_hash) else {
        return ScanTree::not_served(name, root_state);
    };
    let served = totals.map(|t| {
        (
            t.total_app_reward_minting_allowance,
            t.rewarded_app_provider_parties_count,
        )
    });
    let walked = walk(&root, |hash| async move {
        let call = scan::reward_batch(round, &hash);
        match answer(net, scan, &call).await {
            (_, Some(batch)) => Ok(RoundAnswer::Ok(batch)),
            (state, None) => Err(format!("batch {hash}: {state}")),
        }
    })
    .await;
    ScanTree::walked(name, root, walked, served)
}

/// Round `round`'s tree on every scan of `net`, in scan order (the scans at once).
pub async fn trees_of_round(net: &Network, round: i64) -> Vec<ScanTree> {
    join_all((0..net.len()).map(|i| tree_on_scan(net, i, round))).await
}
