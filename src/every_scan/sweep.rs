//! Runs a history sweep: the same `POST /v2/updates` page to every scan (each within its
//! budget), each body reduced to its canonical item hashes as it arrives, fed to the pure
//! [`Sweep`]; progress after each page; stops when the sweep ends or on cancel. Also finds the
//! migration a start time belongs to.

use std::time::Duration;

use futures_util::future::join_all;
use tokio::time::Instant;

use super::{Cancel, Network, Transport};
use crate::api::scan::{self, UpdatesRequest};
use crate::model::consensus::LocalFields;
use crate::model::consensus::digest::Digester;
use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::network::{FAR_FUTURE, migration_at};
use crate::model::sweep::{Cursor, ItemInfo, PageAnswer, Sweep, SweepProgress};

/// Runs `sweep` to its end (or until `cancel` fires), calling `progress` after every page.
/// `now` gives the current time (µs) for the estimate.
pub async fn run(
    net: &Network,
    sweep: &mut Sweep,
    cancel: &Cancel,
    now: impl Fn() -> i64,
    mut progress: impl FnMut(&SweepProgress),
) {
    let digester = Digester::new();
    let started = Instant::now();
    while let Some(cursor) = sweep.next_page() {
        let page_size = i32::try_from(sweep.page_size()).unwrap_or(1000);
        let request = match cursor {
            Some(c) => UpdatesRequest::after(page_size, c.migration_id, c.record_time.clone()),
            None => UpdatesRequest::from_begin(page_size),
        };
        let call = scan::updates(&request);
        let asked = join_all((0..net.len()).map(|i| {
            let call = &call;
            async move { page_answer(net.ask(i, call).await, &digester) }
        }));
        let answers = tokio::select! {
            answers = asked => answers,
            () = cancel.cancelled() => {
                sweep.cancel();
                break;
            }
        };
        sweep.on_page(&answers);
        progress(&sweep.progress(started.elapsed(), now()));
    }
}

/// One scan's reply to a page, reduced to its item hashes.
pub fn page_answer(reply: super::Reply, digester: &Digester) -> PageAnswer {
    match reply.result {
        Ok(exchange) if exchange.is_success() => {
            match digester.page(&exchange.body, LocalFields::UPDATE) {
                Ok(digest) => PageAnswer::Page {
                    digest,
                    body: exchange.body,
                },
                Err(error) => PageAnswer::Failed {
                    status: Some(exchange.status),
                    message: format!("the page is {error}"),
                },
            }
        }
        Ok(exchange) => {
            let status = exchange.status;
            let reply = super::Reply {
                result: Ok(exchange),
                latency: Duration::ZERO,
                throttled: 0,
            };
            PageAnswer::Failed {
                status: Some(status),
                message: reply.problem().unwrap_or_default(),
            }
        }
        Err(Transport::Timeout) => PageAnswer::Failed {
            status: None,
            message: "timed out".to_owned(),
        },
        Err(Transport::Unreachable(detail)) => PageAnswer::Failed {
            status: None,
            message: detail,
        },
    }
}

/// The cursor to start a sweep at `time` (µs): after (the migration whose first update is the
/// newest at or before `time`, `time`). The migrations and their first updates are read from
/// scan `scan` (a page of one from the beginning, then after (k, far future) for each k).
pub async fn start_at(net: &Network, scan: usize, time: i64) -> Result<Cursor, String> {
    let mut starts: Vec<(i64, i64)> = Vec::new();
    let mut request = UpdatesRequest::from_begin(1);
    for _ in 0..1000 {
        let call = scan::updates(&request);
        let reply = net.ask(scan, &call).await;
        let Some(exchange) = reply.success() else {
            return Err(reply.problem().unwrap_or_else(|| "no answer".to_owned()));
        };
        let page = call
            .decode_response(exchange.status, &exchange.headers, &exchange.body)
            .map_err(|e| e.to_string())?;
        let first = page.transactions.first().and_then(|item| {
            Some(ItemInfo {
                update_id: item.update_id()?.to_owned(),
                migration_id: item.migration_id()?,
                record_time: item.record_time()?.to_owned(),
                reassignment: false,
            })
        });
        let Some(info) = first else { break };
        let Some(t) = parse_time_micros(&info.record_time) else {
            return Err(format!("unreadable record time {:?}", info.record_time));
        };
        if starts.last().is_some_and(|(m, _)| *m >= info.migration_id) {
            return Err("the scan ignored the cursor of /v2/updates".to_owned());
        }
        starts.push((info.migration_id, t));
        request = UpdatesRequest::after(1, info.migration_id, FAR_FUTURE);
    }
    Ok(Cursor {
        migration_id: migration_at(&starts, time),
        record_time: format_time_micros(time),
    })
}
