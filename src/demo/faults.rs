//! The demo network as a whole network of scans: up to [`MAX_SCANS`] scan instances (one per SV
//! of the generated network: scan k is SV k), their listing
//! in `/v0/scans`, and the faults a demo scan can be given: lagging, down (connection refused or
//! 503), diverging, still backfilling, rate-limited (429), ignoring `pageToken` on the vote
//! results (as an older scan may); and the faults of the first SV's nodes ([`NodeFaults`]) that
//! their metrics show (`super::node_metrics`). Also the per-client request counter tests read
//! through [`super::DemoHandle::requests`].

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::extract::{ConnectInfo, Request};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::ledger::{Body, Ledger, Update};
use super::reply::scan_error;
use super::util::now_micros;

/// Most scan instances a demo network serves (13, as MainNet lists): one per SV.
pub const MAX_SCANS: usize = super::topology::MAX_SVS;

/// The node faults, switchable while the demo runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeFaults {
    /// The newest round opened this long ago and no round opens any more.
    pub stalled_rounds: Option<Duration>,
    /// The sequencer client's last sequencing time trails the clock by this much.
    pub sequencer_delay: Option<Duration>,
    /// SV app automation keeps failing.
    pub automation_failures: bool,
}

/// The SV name of scan instance `scan`: the network has one SV per scan (scan k is SV k).
pub(crate) fn sv_name(net: &super::topology::Network, scan: usize) -> String {
    match net.svs.get(scan) {
        Some(sv) => sv.name.clone(),
        None => format!("Extra-SV-{}", scan + 1),
    }
}

/// A point of the demo history: a record time, or a time before the newest update at start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DemoTime {
    /// µs since the epoch.
    At(i64),
    /// This long before the newest update of the history when the demo starts.
    BeforeHead(Duration),
}

impl DemoTime {
    fn resolve(self, ledger: &Ledger) -> i64 {
        match self {
            DemoTime::At(t) => t,
            DemoTime::BeforeHead(d) => {
                let head = ledger.updates().last().map_or(0, |u| u.record_time);
                head - i64::try_from(d.as_micros()).unwrap_or(i64::MAX / 2)
            }
        }
    }
}

/// How a down scan is down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DownMode {
    /// Its listed URL points to a closed port: connection refused.
    Refused,
    /// Every request answers 503 (a proxy in front of a stopped scan).
    Unavailable,
}

/// Faults of the demo scans (scan indexes from 0 = the first scan, served at the base URL).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DemoFaults {
    /// A scan whose history lags the newest update by this long (its head, and its open rounds,
    /// are this far behind).
    pub lagging: Option<(usize, Duration)>,
    /// A scan that is down.
    pub down: Option<(usize, DownMode)>,
    /// A scan that returns a different `workflow_id` (suffix `diverged`) for every transaction
    /// at or after this time.
    pub diverging: Option<(usize, DemoTime)>,
    /// A scan whose reward accounting differs: another total weight, and a leaf batch whose
    /// first minting allowance is not what its hash says.
    pub diverging_rewards: Option<usize>,
    /// A scan whose mediator verdicts differ for some updates (about one in three, by update
    /// id): another `mediator_group` on `/v0/events` and `/v0/events/{id}`.
    pub diverging_verdicts: Option<usize>,
    /// A scan that has not backfilled its history before this time: 404 for those updates,
    /// 503 for pages that start before it, and `/v0/backfilling/status` says incomplete.
    pub backfilling: Option<(usize, DemoTime)>,
    /// A scan that answers 429 (with `Retry-After`) above this many requests per second per
    /// client.
    pub rate_limit: Option<(usize, u32)>,
    /// The participant answers 404 for `POST /v2/updates/trees`, as Canton 3.5+ nodes that
    /// removed it (`POST /v2/updates` still answers).
    pub update_trees_removed: bool,
    /// A scan that ignores `pageToken` on `POST /v0/admin/sv/voteresults`: every page it
    /// answers is the first one, with the same `next_page_token` (as an older scan may).
    pub page_token_ignored: Option<usize>,
    /// Faults of the first SV's nodes as their metrics show them (switchable while the demo
    /// runs with `POST /demo/faults`).
    pub node: NodeFaults,
}

impl DemoFaults {
    /// Checks the scan indexes against the number of scans.
    pub fn validate(&self, scans: usize) -> Result<(), String> {
        let check = |what: &str, scan: usize| {
            if scan < scans {
                Ok(())
            } else {
                Err(format!(
                    "the {what} scan must be one of the {scans} scans (1..={scans}), got {}",
                    scan + 1
                ))
            }
        };
        if let Some((scan, _)) = self.lagging {
            check("lagging", scan)?;
        }
        if let Some((scan, mode)) = self.down {
            check("down", scan)?;
            if scan == 0 && mode == DownMode::Refused {
                return Err(
                    "the first scan shares its port with the validator and the ledger: \
                            it can be down with 503, not with refused connections"
                        .to_owned(),
                );
            }
        }
        if let Some((scan, _)) = self.diverging {
            check("diverging", scan)?;
        }
        if let Some(scan) = self.diverging_rewards {
            check("diverging-rewards", scan)?;
        }
        if let Some(scan) = self.diverging_verdicts {
            check("diverging-verdicts", scan)?;
        }
        if let Some((scan, _)) = self.backfilling {
            check("backfilling", scan)?;
        }
        if let Some(scan) = self.page_token_ignored {
            check("page-token-ignoring", scan)?;
        }
        if let Some((scan, rate)) = self.rate_limit {
            check("rate-limited", scan)?;
            if rate == 0 {
                return Err("the rate limit must be at least 1 request per second".to_owned());
            }
        }
        Ok(())
    }
}

/// The faults with their times resolved against the ledger at start.
#[derive(Clone, Debug, Default)]
pub(crate) struct Faults {
    pub lagging: Option<(usize, i64)>,
    pub down: Option<(usize, DownMode)>,
    pub diverging: Option<(usize, i64)>,
    pub diverging_rewards: Option<usize>,
    pub diverging_verdicts: Option<usize>,
    pub backfilling: Option<(usize, i64)>,
    pub rate_limit: Option<(usize, u32)>,
    pub update_trees_removed: bool,
    pub page_token_ignored: Option<usize>,
}

impl Faults {
    pub fn resolve(faults: &DemoFaults, ledger: &Ledger) -> Faults {
        let micros = |d: Duration| i64::try_from(d.as_micros()).unwrap_or(i64::MAX / 2);
        Faults {
            lagging: faults.lagging.map(|(s, d)| (s, micros(d))),
            down: faults.down,
            diverging: faults.diverging.map(|(s, t)| (s, t.resolve(ledger))),
            diverging_rewards: faults.diverging_rewards,
            diverging_verdicts: faults.diverging_verdicts,
            backfilling: faults.backfilling.map(|(s, t)| (s, t.resolve(ledger))),
            rate_limit: faults.rate_limit,
            update_trees_removed: faults.update_trees_removed,
            page_token_ignored: faults.page_token_ignored,
        }
    }

    /// Whether scan `scan` ignores `pageToken` on the vote results.
    pub fn ignores_page_token(&self, scan: usize) -> bool {
        self.page_token_ignored == Some(scan)
    }

    /// How far scan `scan`'s history lags the newest update (µs).
    pub fn lag_of(&self, scan: usize) -> Option<i64> {
        self.lagging.filter(|(s, _)| *s == scan).map(|(_, lag)| lag)
    }

    /// Whether scan `scan` renders `u` diverged.
    pub fn diverges(&self, scan: usize, u: &Update) -> bool {
        matches!(u.body, Body::Tx(_))
            && self
                .diverging
                .is_some_and(|(s, from)| s == scan && u.record_time >= from)
    }

    /// Whether scan `scan` serves the verdict of update `update_id` diverged (about one update
    /// in three, chosen by its id).
    pub fn verdict_diverges(&self, scan: usize, update_id: &str) -> bool {
        self.diverging_verdicts == Some(scan)
            && update_id
                .bytes()
                .fold(0u32, |a, b| a.wrapping_mul(31).wrapping_add(u32::from(b)))
                % 3
                == 0
    }

    /// Where scan `scan`'s backfilled history starts, if it is still backfilling.
    pub fn backfilled_from(&self, scan: usize) -> Option<i64> {
        self.backfilling.filter(|(s, _)| *s == scan).map(|(_, t)| t)
    }
}

/// Marks an update (or an event's `update`) as the diverging scan renders it.
pub(crate) fn mark_diverged(value: &mut serde_json::Value) {
    let target = if value
        .get("update")
        .is_some_and(serde_json::Value::is_object)
    {
        value.get_mut("update")
    } else {
        Some(value)
    };
    if let Some(serde_json::Value::Object(item)) = target
        && let Some(serde_json::Value::String(wf)) = item.get_mut("workflow_id")
    {
        *wf = diverged_workflow(wf);
    }
}

/// Marks an event's verdict as a scan with diverging verdicts serves it: another mediator
/// group.
pub(crate) fn mark_verdict_diverged(value: &mut serde_json::Value) {
    if let Some(serde_json::Value::Object(verdict)) = value.get_mut("verdict") {
        let group = verdict
            .get("mediator_group")
            .and_then(serde_json::Value::as_i64)
            .unwrap_or(0);
        verdict.insert("mediator_group".to_owned(), serde_json::json!(group + 1));
    }
}

/// The `workflow_id` a diverging scan renders.
pub(crate) fn diverged_workflow(workflow_id: &str) -> String {
    if workflow_id.is_empty() {
        "diverged".to_owned()
    } else {
        format!("{workflow_id}-diverged")
    }
}

// ---------------------------------------------------------------------------------------------
// Request counting and the gate in front of each scan

/// Requests one client made to one scan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequestStats {
    /// Every request, answered or refused with 429.
    pub total: u64,
    /// Requests answered 429.
    pub rejected: u64,
    /// Most requests in one wall-clock second (all requests, rejected ones included).
    pub max_per_second: u64,
}

#[derive(Default)]
struct Window {
    second: i64,
    count: u64,
    accepted: u64,
    stats: RequestStats,
}

/// Requests per scan and client IP, counted per wall-clock second.
#[derive(Default)]
pub(crate) struct RequestCounters {
    windows: Mutex<HashMap<(usize, IpAddr), Window>>,
}

impl RequestCounters {
    /// Counts a request; with a `limit`, says whether it is over the limit (429).
    fn count(&self, scan: usize, client: IpAddr, limit: Option<u32>) -> bool {
        let second = now_micros().div_euclid(1_000_000);
        let mut windows = self.windows.lock().unwrap_or_else(PoisonError::into_inner);
        let w = windows.entry((scan, client)).or_default();
        if w.second != second {
            w.second = second;
            w.count = 0;
            w.accepted = 0;
        }
        w.count += 1;
        w.stats.total += 1;
        w.stats.max_per_second = w.stats.max_per_second.max(w.count);
        let over = limit.is_some_and(|l| w.accepted >= u64::from(l));
        if over {
            w.stats.rejected += 1;
        } else {
            w.accepted += 1;
        }
        over
    }

    /// The requests to scan `scan`, per client.
    pub fn stats(&self, scan: usize) -> Vec<(IpAddr, RequestStats)> {
        let windows = self.windows.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out: Vec<(IpAddr, RequestStats)> = windows
            .iter()
            .filter(|((s, _), _)| *s == scan)
            .map(|((_, ip), w)| (*ip, w.stats))
            .collect();
        out.sort_by_key(|(ip, _)| *ip);
        out
    }
}

/// What the gate in front of scan `scan` needs.
#[derive(Clone)]
pub(crate) struct Gate {
    pub scan: usize,
    pub counters: Arc<RequestCounters>,
    pub unavailable: bool,
    /// The scans down for now, a bit each (switched while the demo runs).
    pub down_now: Arc<std::sync::atomic::AtomicU32>,
    pub limit: Option<u32>,
}

/// Counts the request, then answers 503 for a scan that is down, 429 above the rate limit, or
/// passes the request on.
pub(crate) async fn gate(gate: Gate, req: Request, next: Next) -> Response {
    let client = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::from([127, 0, 0, 1]), |c| c.0.ip());
    let over = gate.counters.count(gate.scan, client, gate.limit);
    let down_now = gate.down_now.load(std::sync::atomic::Ordering::Relaxed);
    if gate.unavailable
        || down_now
            .checked_shr(gate.scan as u32)
            .is_some_and(|m| m & 1 == 1)
    {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::CONTENT_TYPE, "text/plain; charset=UTF-8")],
            "no healthy upstream",
        )
            .into_response();
    }
    if over {
        let mut resp = scan_error(
            StatusCode::TOO_MANY_REQUESTS,
            "Too many requests: the rate limit of this scan was exceeded",
        );
        // The window is one wall-clock second: the next one starts within a second.
        resp.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return resp;
    }
    next.run(req).await
}
