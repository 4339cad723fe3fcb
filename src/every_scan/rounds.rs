//! One mining round asked of every scan on the CIP-0104 reward accounting endpoints
//! (`…/rounds/{n}/activity-totals` and `…/root-hash`), each scan within its request budget:
//! what `index rounds` and the explorer's Rounds view compare with the index's figures
//! ([`crate::model::index::rounds::judge`]). A 404, a 501, `Undetermined` and `CannotProvide`
//! are states, not errors; a scan that does not answer says why.

use futures_util::future::join_all;

use super::Network;
use crate::api::Call;
use crate::api::scan::{self, RoundAnswer};
use crate::model::index::rounds::ScanRound;

/// One endpoint's answer of one scan, as its state and value.
pub(super) async fn answer<T>(
    net: &Network,
    scan: usize,
    call: &Call<RoundAnswer<T>>,
) -> (String, Option<T>) {
    let reply = net.ask(scan, call).await;
    match &reply.result {
        Ok(exchange) if exchange.status == 404 => {
            (RoundAnswer::<T>::NotFound.state().to_owned(), None)
        }
        Ok(exchange) if exchange.status == 501 => {
            (RoundAnswer::<T>::NotImplemented.state().to_owned(), None)
        }
        Ok(exchange) if exchange.is_success() => {
            match call.decode_response(exchange.status, &exchange.headers, &exchange.body) {
                Ok(RoundAnswer::Ok(t)) => ("ok".to_owned(), Some(t)),
                Ok(RoundAnswer::UnknownStatus(s)) => (
                    format!("unknown status {}", crate::api::sanitize_line(&s, 40)),
                    None,
                ),
                Ok(other) => (other.state().to_owned(), None),
                Err(e) => (format!("undecodable: {e}"), None),
            }
        }
        _ => (
            reply.problem().unwrap_or_else(|| "no answer".to_owned()),
            None,
        ),
    }
}

/// Every scan's answers for `round`, in scan order (both endpoints of all scans at once).
pub async fn ask_round(net: &Network, round: i64) -> Vec<ScanRound> {
    let totals_call = scan::reward_activity_totals(round);
    let root_call = scan::reward_root_hash(round);
    let per_scan = (0..net.len()).map(|i| {
        let (totals_call, root_call) = (&totals_call, &root_call);
        async move {
            let ((totals_state, totals), (root_state, root)) =
                tokio::join!(answer(net, i, totals_call), answer(net, i, root_call));
            ScanRound {
                scan: net.entry(i).map(|e| e.sv_name.clone()).unwrap_or_default(),
                totals_state,
                totals: totals.map(|t| {
                    (
                        t.total_app_activity_weight,
                        t.active_parties_count,
                        t.activity_records_count,
                    )
                }),
                root_state,
                root_hash: root.map(|r| r.root_hash),
            }
        }
    });
    join_all(per_scan).await
}
