//! Measures every scan for the health view: `/status`, `/version`, the newest open mining round
//! (`POST /v0/open-and-issuing-mining-rounds`), the head of its verdict ingestion
//! (`/v0/events/latest-record-time`, absent on scans older than Splice 0.8) and the newest update
//! of its history (the
//! [`HeadSearch`] of `model::network`), all scans at once, each within its budget. The verdict
//! is `model::network::assess`.

use futures_util::future::join_all;

use super::{Network, Reply};
use crate::api::scan::{self, NodeStatus, UpdatesRequest};
use crate::model::format::parse_time_micros;
use crate::model::network::{
    HeadItem, HeadSearch, HistoryHead, NodeState, RoundSeen, ScanObservation,
};

/// Measures every scan at `now` (µs since the epoch); observations in scan order.
pub async fn observe_all(net: &Network, now: i64) -> Vec<ScanObservation> {
    join_all((0..net.len()).map(|scan| observe(net, scan, now))).await
}

/// [`observe_all`], where `known[i]` is scan `i`'s head found by an earlier measurement: its
/// history is paged forward from there instead of searched again (one request per endpoint per
/// scan, usually).
pub async fn observe_all_from(
    net: &Network,
    now: i64,
    known: &[Option<HistoryHead>],
) -> Vec<ScanObservation> {
    join_all((0..net.len()).map(|scan| {
        let search = match known.get(scan) {
            Some(Some(head)) => HeadSearch::after(now, head),
            _ => HeadSearch::new(now, None),
        };
        observe_with(net, scan, search)
    }))
    .await
}

/// Measures one scan.
pub async fn observe(net: &Network, scan: usize, now: i64) -> ScanObservation {
    observe_with(net, scan, HeadSearch::new(now, None)).await
}

/// Measures one scan, finding its head with `search`.
async fn observe_with(net: &Network, scan: usize, search: HeadSearch) -> ScanObservation {
    let rounds_call = scan::open_and_issuing_mining_rounds(&scan::MiningRoundsRequest::default());
    let (status_call, version_call) = (scan::status(), scan::version());
    let backfill_call = scan::backfilling_status();
    let events_call = scan::latest_event_record_time();
    let (status, version, rounds, backfill, events, head) = tokio::join!(
        net.ask(scan, &status_call),
        net.ask(scan, &version_call),
        net.ask(scan, &rounds_call),
        net.ask(scan, &backfill_call),
        net.ask(scan, &events_call),
        find_head(net, scan, search),
    );
    let rate_limited = [&status, &version, &rounds, &backfill, &events]
        .iter()
        .any(|r| r.throttled > 0 || matches!(&r.result, Ok(e) if e.status == 429));
    // An old scan without the endpoint (404) is taken as complete.
    let backfilling = decode(&backfill, &backfill_call).is_ok_and(|b| !b.complete);
    let replies = [&status, &version, &rounds];
    let reachable = replies.iter().any(|r| !r.is_down()) || head.1;
    let down_reason = (!reachable)
        .then(|| replies.iter().find_map(|r| r.problem()))
        .flatten();
    let node_state = match decode(&status, &status_call) {
        Ok(NodeStatus::Success(s)) if s.active => NodeState::Active,
        Ok(NodeStatus::Success(_)) => NodeState::Inactive,
        Ok(NodeStatus::NotInitialized(_)) => NodeState::NotInitialized,
        Ok(NodeStatus::Failed(f)) => NodeState::Failed(crate::api::sanitize_line(&f.error, 200)),
        Ok(NodeStatus::Unknown { kind, .. }) => NodeState::Unknown(format!(
            "unknown status {}",
            crate::api::sanitize_line(&kind, 40)
        )),
        Err(problem) => NodeState::Unknown(problem),
    };
    let version = decode(&version, &version_call)
        .ok()
        .map(|v| crate::api::sanitize_line(&v.version, 60))
        .filter(|v| !v.is_empty());
    let newest_round = decode(&rounds, &rounds_call).and_then(|r| match r.newest_open_round() {
        None => Ok(None),
        Some(round) => parse_time_micros(&round.created_at)
            .map(|created_at| {
                Some(RoundSeen {
                    number: round.number,
                    created_at,
                })
            })
            .ok_or_else(|| format!("round {} has no creation time", round.number)),
    });
    let verdict_head = verdict_head(&events, &events_call);
    ScanObservation {
        reachable,
        down_reason,
        status: Some(node_state),
        version,
        latency: status.success().map(|_| status.latency),
        head: Some(head.0),
        newest_round: Some(newest_round),
        backfilling,
        rate_limited,
        verdict_head: Some(verdict_head),
    }
}

/// The head of a scan's verdict ingestion from its reply to
/// `/v0/events/latest-record-time` (µs); `Ok(None)`: the scan does not serve it.
fn verdict_head(
    events: &Reply,
    events_call: &crate::api::Call<scan::LatestEventRecordTime>,
) -> Result<Option<i64>, String> {
    // An older scan reads the path as `/v0/events/{update_id}`: 404 or 400 means absent.
    match &events.result {
        Ok(e) if matches!(e.status, 400 | 404) => Ok(None),
        _ => decode(events, events_call).and_then(|t| {
            parse_time_micros(&t.record_time).map(Some).ok_or_else(|| {
                format!(
                    "latest record time of events unreadable: {}",
                    crate::api::sanitize_line(&t.record_time, 60)
                )
            })
        }),
    }
}

/// The heads of one scan's verdict ingestion and of its history, as the health view measures
/// them (`scan status` adds them to its table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerdictHeads {
    /// The latest record time `/v0/events` answers for (µs); `Ok(None)`: the scan does not
    /// serve `/v0/events/latest-record-time` (older than Splice 0.8).
    pub verdict_head: Result<Option<i64>, String>,
    /// The newest update of its history; `Ok(None)`: an empty history.
    pub head: Result<Option<HistoryHead>, String>,
}

impl VerdictHeads {
    /// The verdict ingestion lag (µs), with both heads known.
    pub fn lag(&self) -> Option<i64> {
        match (&self.head, &self.verdict_head) {
            (Ok(Some(h)), Ok(Some(v))) => {
                Some(crate::model::network::verdict_lag(h.record_time, *v))
            }
            _ => None,
        }
    }
}

/// Measures the heads of scan `scan`'s verdict ingestion and of its history at `now` (µs).
pub async fn verdict_heads(net: &Network, scan: usize, now: i64) -> VerdictHeads {
    let events_call = scan::latest_event_record_time();
    let (events, head) = tokio::join!(
        net.ask(scan, &events_call),
        find_head(net, scan, HeadSearch::new(now, None)),
    );
    VerdictHeads {
        verdict_head: verdict_head(&events, &events_call),
        head: head.0,
    }
}

/// The typed decode of a 2xx reply, or one line saying why there is none.
fn decode<T>(reply: &Reply, call: &crate::api::Call<T>) -> Result<T, String> {
    let exchange = match &reply.result {
        Ok(e) if e.is_success() => e,
        _ => return Err(reply.problem().unwrap_or_default()),
    };
    call.decode_response(exchange.status, &exchange.headers, &exchange.body)
        .map_err(|e| crate::api::sanitize_line(&e.to_string(), 200))
}

/// Runs the head search on one scan: the result, and whether the scan answered at all.
async fn find_head(
    net: &Network,
    scan: usize,
    mut search: HeadSearch,
) -> (
    Result<Option<crate::model::network::HistoryHead>, String>,
    bool,
) {
    let mut answered = false;
    while let Some(probe) = search.probe() {
        let request = UpdatesRequest::after(
            i32::try_from(probe.page_size).unwrap_or(1000),
            probe.migration_id,
            probe.record_time.clone(),
        );
        let call = scan::updates(&request);
        let reply = net.ask(scan, &call).await;
        answered |= !reply.is_down();
        match decode(&reply, &call) {
            Ok(page) => {
                let items: Vec<HeadItem> = page
                    .transactions
                    .iter()
                    .filter_map(|item| {
                        let text = item.record_time()?;
                        Some(HeadItem {
                            migration_id: item.migration_id()?,
                            record_time: parse_time_micros(text)?,
                            record_time_text: text.to_owned(),
                            update_id: item.update_id()?.to_owned(),
                        })
                    })
                    .collect();
                search.on_page(&items);
            }
            Err(problem) => search.on_error(problem),
        }
    }
    let result = search
        .result()
        .cloned()
        .unwrap_or_else(|| Err("the search for the newest update stopped".to_owned()));
    (result, answered)
}

/// The head check (`model::network::fork`): pages of `/v2/updates` from the same cursor, a
/// little before the oldest head of the newest migration, asked of every scan and compared
/// update by update; while the pages are full and end before that oldest head, the next page
/// is asked (at most [`HEAD_CHECK_MAX_PAGES`]), so a busy network is compared up to its head.
/// `None` when no head is known.
pub async fn head_check(
    net: &Network,
    observations: &[ScanObservation],
) -> Option<crate::model::network::fork::HeadCheck> {
    use crate::model::consensus::digest::{ItemDigest, PageDigest};
    use crate::model::network::fork::{
        HEAD_CHECK_MAX_PAGES, HEAD_CHECK_PAGE, head_check_cursor, judge_head_check,
    };
    use crate::model::sweep::{PageAnswer, item_info};
    let heads: Vec<Option<&HistoryHead>> = observations
        .iter()
        .map(|o| match &o.head {
            Some(Ok(Some(head))) => Some(head),
            _ => None,
        })
        .collect();
    let after = head_check_cursor(&heads)?;
    let oldest_head = heads
        .iter()
        .flatten()
        .filter(|h| h.migration_id == after.migration_id)
        .map(|h| h.record_time)
        .min()?;
    let digester = crate::model::consensus::digest::Digester::new();
    // Per scan: the items read so far (spans into `bodies`), or why the scan stopped.
    let mut items: Vec<Vec<ItemDigest>> = vec![Vec::new(); net.len()];
    let mut bodies: Vec<Vec<u8>> = vec![Vec::new(); net.len()];
    let mut failed: Vec<Option<(Option<u16>, String)>> = observations
        .iter()
        .map(|o| (!o.reachable).then(|| (None, "down".to_owned())))
        .collect();
    let mut cursor = after.clone();
    for _ in 0..HEAD_CHECK_MAX_PAGES {
        let request = UpdatesRequest::after(
            i32::try_from(HEAD_CHECK_PAGE).unwrap_or(100),
            cursor.migration_id,
            cursor.record_time.clone(),
        );
        let call = scan::updates(&request);
        let answers = join_all((0..net.len()).map(|i| {
            let (call, digester, skip) = (&call, &digester, failed[i].is_some());
            async move {
                if skip {
                    return None;
                }
                Some(super::sweep::page_answer(net.ask(i, call).await, digester))
            }
        }))
        .await;
        let mut next: Option<(i64, crate::model::sweep::Cursor)> = None;
        for (i, answer) in answers.into_iter().enumerate() {
            match answer {
                None => {}
                Some(PageAnswer::Failed { status, message }) => {
                    if items[i].is_empty() {
                        failed[i] = Some((status, message));
                    } else {
                        // What it said before stands; it is compared that far.
                        failed[i] = Some((status, String::new()));
                    }
                }
                Some(PageAnswer::Page { digest, body }) => {
                    let offset = bodies[i].len();
                    let full = digest.items.len() >= HEAD_CHECK_PAGE;
                    let last = digest
                        .items
                        .last()
                        .and_then(|item| body.get(item.span.clone()))
                        .and_then(item_info);
                    for item in digest.items {
                        items[i].push(ItemDigest {
                            hash: item.hash,
                            span: item.span.start + offset..item.span.end + offset,
                        });
                    }
                    bodies[i].extend_from_slice(&body);
                    if !full {
                        // Its head is in this page: nothing more to ask of it.
                        failed[i] = Some((None, String::new()));
                    } else if let Some(last) = last
                        && let Some(t) = crate::model::format::parse_time_micros(&last.record_time)
                        && next.as_ref().is_none_or(|(n, _)| t < *n)
                    {
                        next = Some((
                            t,
                            crate::model::sweep::Cursor {
                                migration_id: last.migration_id,
                                record_time: last.record_time,
                            },
                        ));
                    }
                }
            }
        }
        match next {
            Some((t, c)) if t < oldest_head => cursor = c,
            _ => break,
        }
    }
    let answers: Vec<PageAnswer> = (0..net.len())
        .map(|i| match &failed[i] {
            Some((status, message)) if items[i].is_empty() && !message.is_empty() => {
                PageAnswer::Failed {
                    status: *status,
                    message: message.clone(),
                }
            }
            _ => PageAnswer::Page {
                digest: PageDigest {
                    items: std::mem::take(&mut items[i]),
                },
                body: std::mem::take(&mut bodies[i]),
            },
        })
        .collect();
    Some(judge_head_check(after, &answers, &net.counted()))
}

/// One measurement of every scan with the head check, judged by the network's kept findings:
/// what `network health` and `check` run once (the explorer runs the same parts over time).
#[derive(Debug, Clone)]
pub struct Measured {
    pub observations: Vec<ScanObservation>,
    pub head_check: Option<crate::model::network::fork::HeadCheck>,
    /// The findings after this measurement's were kept.
    pub findings: crate::model::findings::FindingsBook,
    /// Why the findings could not be kept (they are judged all the same).
    pub findings_error: Option<String>,
    pub health: crate::model::network::NetworkHealth,
}

/// Measures every scan at `now`, runs the head check, keeps what it finds (and the scans
/// down) in `findings_path` (nowhere when `None`), and judges the network by them.
pub async fn measure_with_findings(
    net: &Network,
    now: i64,
    thresholds: &crate::model::network::HealthThresholds,
    findings_path: Option<&std::path::Path>,
) -> Measured {
    use crate::model::network::{assess_with, down_ops, fork_marks};
    let observations = observe_all(net, now).await;
    let head_check = head_check(net, &observations).await;
    let entries: Vec<crate::model::network::ScanEntry> = net
        .entries()
        .map(|e| crate::model::network::ScanEntry {
            url: crate::api::redact_userinfo(&e.url),
            ..e.clone()
        })
        .collect();
    let counted = net.counted();
    let mut ops = head_check
        .as_ref()
        .map(|c| c.ops(&entries))
        .unwrap_or_default();
    let kept = findings_path.map(super::findings::read).unwrap_or_default();
    let mut preview = kept.clone();
    preview.apply(&ops, now);
    let first = assess_with(
        &observations,
        &counted,
        now,
        thresholds,
        &fork_marks(&entries, &preview),
    );
    ops.extend(down_ops(&entries, &first, &preview));
    let kept_in = findings_path.map(|path| (path, super::findings::update(path, &ops, now)));
    let (findings, findings_error) = if let Some((_, Ok((book, _)))) = kept_in {
        (book, None)
    } else {
        // Not kept (no data directory, or the file could not be written): judged all the same.
        let mut book = kept;
        book.apply(&ops, now);
        let problem = kept_in.and_then(|(path, result)| {
            result
                .err()
                .map(|e| format!("the findings could not be kept in {}: {e}", path.display()))
        });
        (book, problem)
    };
    let health = assess_with(
        &observations,
        &counted,
        now,
        thresholds,
        &fork_marks(&entries, &findings),
    );
    Measured {
        observations,
        head_check,
        findings,
        findings_error,
        health,
    }
}
