//! Sequencer traffic: what members consumed and purchased, and their traffic status.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::{IntoResponse as _, Response};
use serde_json::json;

use super::request::{ScanCtx, bad, not_found};
use crate::demo::ledger::Update;
use crate::demo::reply::json_ok;
use crate::demo::topology::Network;
use crate::demo::util::now_micros;

/// Bytes of extra traffic one transaction costs its submitting participant: a fixed envelope
/// plus a share per node.
pub(super) const TRAFFIC_PER_TX: i64 = 6_000;
pub(super) const TRAFFIC_PER_NODE: i64 = 1_500;
/// The smallest purchase; each later top-up doubles the total.
const TRAFFIC_FIRST_PURCHASE: i64 = 2_000_000;
/// A top-up is bought once consumption passes this share (per mille) of the purchased total.
const TRAFFIC_TOP_UP_AT: i64 = 900;
/// How long the sequencer takes to apply a purchase to the member's limit (µs).
const TRAFFIC_APPLY_DELAY: i64 = 30_000_000;

/// The purchased total that covers `consumed` under the demo validator's top-up schedule: the
/// first purchase doubled until consumption is under 90 % of it.
fn traffic_purchased(consumed: i64) -> i64 {
    let mut total = TRAFFIC_FIRST_PURCHASE;
    while consumed * 1000 >= total * TRAFFIC_TOP_UP_AT {
        total *= 2;
    }
    total
}

/// A participant's extra traffic on the global synchronizer at `now`: (consumed, limit,
/// purchased). Consumed grows with every transaction on it whose first submitter the
/// participant hosts; the limit follows the purchases after [`TRAFFIC_APPLY_DELAY`].
pub(crate) fn participant_traffic(
    net: &Network,
    updates: &[Arc<Update>],
    participant: usize,
    now: i64,
) -> (i64, i64, i64) {
    let host = &net.participants[participant].id;
    let mut consumed = 0i64;
    let mut consumed_before = 0i64;
    for u in updates {
        if u.record_time > now {
            break;
        }
        let Some(tx) = u.tx() else { continue };
        if tx.sync != crate::demo::topology::GLOBAL {
            continue;
        }
        let Some(&submitter) = tx.submitters.first() else {
            continue;
        };
        if &net.host(submitter).id != host {
            continue;
        }
        let cost = TRAFFIC_PER_TX + TRAFFIC_PER_NODE * tx.nodes.len() as i64;
        consumed += cost;
        if u.record_time <= now - TRAFFIC_APPLY_DELAY {
            consumed_before += cost;
        }
    }
    let purchased = traffic_purchased(consumed);
    let limit = traffic_purchased(consumed_before);
    (consumed, limit, purchased)
}

/// Whether `member` reads as `CODE::id::fingerprint`.
fn member_id_ok(member: &str) -> bool {
    let mut parts = member.splitn(3, "::");
    let code = parts.next().unwrap_or_default();
    let id = parts.next().unwrap_or_default();
    let fingerprint = parts.next().unwrap_or_default();
    code.len() == 3
        && code.bytes().all(|b| b.is_ascii_uppercase())
        && !id.is_empty()
        && !fingerprint.is_empty()
        && !fingerprint.contains("::")
}

pub(super) async fn member_traffic_status(
    State(c): State<ScanCtx>,
    Path((domain_id, member_id)): Path<(String, String)>,
) -> Response {
    let net = &c.app.net;
    if !member_id_ok(&member_id) {
        return bad(format!(
            "Invalid member ID {member_id}: expected code::id::fingerprint"
        ))
        .into_response();
    }
    if !net.synchronizers.contains(&domain_id) {
        return not_found(format!("Synchronizer {domain_id} not found")).into_response();
    }
    let participant = net.participants.iter().position(|p| p.id == member_id);
    let (Some(participant), true) = (
        participant,
        domain_id == net.sync_id(crate::demo::topology::GLOBAL),
    ) else {
        return not_found(format!(
            "No traffic state found for member {member_id} on synchronizer {domain_id}"
        ))
        .into_response();
    };
    let w = c.app.read();
    let (consumed, limit, purchased) =
        participant_traffic(net, w.ledger.updates(), participant, now_micros());
    json_ok(&json!({
        "traffic_status": {
            "actual": { "total_consumed": consumed, "total_limit": limit },
            "target": { "total_purchased": purchased },
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::generate::generate_history;

    const SEC: i64 = 1_000_000;

    #[test]
    fn traffic_follows_the_validators_submissions_and_the_top_up_schedule() {
        let now = 1_800_000_000 * SEC;
        let (l, _) = generate_history(42, now, crate::demo::topology::NUM_SVS);
        let net = l.network();
        let me = net.ledger_participant;
        let ups = l.updates();
        let first = ups.first().expect("updates").record_time;
        assert_eq!(participant_traffic(net, ups, me, first - 1).0, 0);
        // A transaction the validator's participant submitted costs it; others do not.
        let mine = ups
            .iter()
            .find(|u| {
                u.tx().is_some_and(|t| {
                    t.sync == crate::demo::topology::GLOBAL
                        && t.submitters
                            .first()
                            .is_some_and(|&p| net.host(p).id == net.participants[me].id)
                })
            })
            .expect("the validator submits");
        let tx = mine.tx().expect("tx");
        let before = participant_traffic(net, ups, me, mine.record_time - 1).0;
        let after = participant_traffic(net, ups, me, mine.record_time).0;
        assert_eq!(
            after - before,
            TRAFFIC_PER_TX + TRAFFIC_PER_NODE * tx.nodes.len() as i64
        );
        // Over the whole history: consumed only grows, purchased >= limit always, and the
        // limit covers what was consumed nearly always.
        let (mut last, mut covered, mut samples) = (0, 0, 0);
        let end = ups.last().expect("updates").record_time;
        let step = ((end - first) / 400).max(1);
        let mut t = first;
        while t <= end {
            let (consumed, limit, purchased) = participant_traffic(net, ups, me, t);
            assert!(consumed >= last);
            assert!(purchased >= limit, "{purchased} < {limit}");
            last = consumed;
            covered += usize::from(limit >= consumed);
            samples += 1;
            t += step;
        }
        assert!(last > 0);
        assert!(covered * 100 >= samples * 95, "{covered} of {samples}");
    }
}
