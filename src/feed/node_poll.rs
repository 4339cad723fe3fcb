//! The node poller of the Status dashboard, pure: which configured node (each scan's `/status`,
//! the ledger end, the validator proxy's reachability) is due for a request, one request in
//! flight per node, exponential back-off for failing nodes (at most 30 s between attempts,
//! reset on success), requests without an answer given up, per-node latency and error history
//! and the ledger's offset rate. The caller sends the requests it is told to and hands the
//! answers back; time is passed in (µs since the epoch).

use std::collections::VecDeque;

use crate::api::ledger::LedgerEnd;
use crate::api::scan::NodeStatus;
use crate::msg::{Request, RequestId, Response};

/// Longest wait between attempts for a failing node (ms), unless the refresh interval is longer.
pub const MAX_BACKOFF_MS: u64 = 30_000;
/// Shortest polling interval honoured (ms).
pub const MIN_REFRESH_MS: u64 = 250;
/// Latency samples kept per node.
pub const LATENCY_SAMPLES: usize = 60;
/// Ledger rate samples kept.
const RATE_SAMPLES: usize = 60;
/// The ledger rate is averaged over this window (µs).
const RATE_WINDOW_US: i64 = 60_000_000;
/// A request without an answer after this long is given up (µs).
pub const STALE_REQUEST_US: i64 = 90_000_000;

/// Health of a node, as the header shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeHealth {
    /// The node answered and reports itself healthy.
    Ok,
    /// The node answered but is not initialized, reports a failure, or is inactive.
    Degraded,
    /// The last request failed.
    Down,
    /// No answer yet (or nothing configured).
    Unknown,
}

impl NodeHealth {
    /// A short upper-case label.
    pub fn label(self) -> &'static str {
        match self {
            NodeHealth::Ok => "OK",
            NodeHealth::Degraded => "DEGRADED",
            NodeHealth::Down => "DOWN",
            NodeHealth::Unknown => "…",
        }
    }
}

/// What a node card polls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// Scan number `n` of the configured scan URLs (`GET /status`).
    Scan(usize),
    /// The participant ledger (`GET /v2/state/ledger-end`).
    Ledger,
    /// The validator scan-proxy (reachability probe).
    Validator,
}

impl NodeKind {
    /// The request that polls this node.
    pub fn request(self) -> Request {
        match self {
            NodeKind::Scan(scan) => Request::on_scan(scan, crate::api::scan::status()),
            NodeKind::Ledger => Request::api(crate::api::ledger::ledger_end()),
            NodeKind::Validator => {
                Request::api(crate::api::validator::amulet_rules().named("validator amulet-rules"))
            }
        }
    }

    /// The node's name as cards and messages show it (`scan 1`, `ledger`, `validator proxy`).
    pub fn name(self) -> String {
        match self {
            NodeKind::Scan(n) => format!("scan {}", n + 1),
            NodeKind::Ledger => "ledger".into(),
            NodeKind::Validator => "validator proxy".into(),
        }
    }
}

/// Polling state and recent results of one node.
#[derive(Debug, Clone)]
pub struct NodeState {
    pub kind: NodeKind,
    pub url: String,
    /// Whether the node is polled at all (a ledger without a token is not).
    pub polled: bool,
    in_flight: Option<(RequestId, i64)>,
    next_due: i64,
    /// Consecutive failed requests.
    pub failures: u32,
    /// Whether the last request succeeded (None before the first answer).
    pub last_ok: Option<bool>,
    /// When the last successful answer arrived (µs).
    pub last_ok_at: Option<i64>,
    /// The last error (when, Display text); kept after recovery.
    pub last_error: Option<(i64, String)>,
    /// Latency of recent requests in ms (None: the request failed).
    latencies: VecDeque<Option<u64>>,
    /// The last `/status` answer (scans).
    pub status: Option<NodeStatus>,
    /// The last ledger end (ledger; inner None: empty ledger).
    pub ledger_end: Option<Option<i64>>,
    /// Ledger offsets per second over the last minute (or the time sampled so far).
    pub rate: Option<f64>,
    /// Offsets per second between consecutive polls, in milli-offsets (oldest first).
    rates: VecDeque<u64>,
    /// (time µs, ledger end) samples of the last [`RATE_WINDOW_US`] (plus one older as base).
    offset_samples: VecDeque<(i64, i64)>,
}

impl NodeState {
    /// A node not asked yet.
    pub fn new(kind: NodeKind, url: String, polled: bool) -> Self {
        NodeState {
            kind,
            url,
            polled,
            in_flight: None,
            next_due: i64::MIN,
            failures: 0,
            last_ok: None,
            last_ok_at: None,
            last_error: None,
            latencies: VecDeque::with_capacity(LATENCY_SAMPLES),
            status: None,
            ledger_end: None,
            rate: None,
            rates: VecDeque::new(),
            offset_samples: VecDeque::new(),
        }
    }

    /// Records a ledger end seen at `now`: the rate over the last minute (a rate between two
    /// polls a few seconds apart would mostly read 0 on a ledger that moves a few offsets per
    /// minute) and, for the sparkline, the rate of this interval alone.
    pub fn add_offset_sample(&mut self, now: i64, off: i64) {
        if let Some(&(t, o)) = self.offset_samples.back() {
            if off < o {
                // Another ledger under the same URL: its rate starts over (no rate until a
                // second sample of it, never one across the two ledgers, which would be
                // negative), and so does the sparkline.
                self.offset_samples.clear();
                self.rates.clear();
                self.rate = None;
            } else if now <= t {
                // The clock went back.
                return;
            } else {
                let interval = (off - o) as f64 / ((now - t) as f64 / 1e6);
                if self.rates.len() == RATE_SAMPLES {
                    self.rates.pop_front();
                }
                self.rates.push_back((interval * 1000.0).round() as u64);
            }
        }
        self.offset_samples.push_back((now, off));
        // Keep one sample at or before the window start as the base.
        while self.offset_samples.len() > 2 && self.offset_samples[1].0 <= now - RATE_WINDOW_US {
            self.offset_samples.pop_front();
        }
        if let (Some(&(t0, o0)), true) =
            (self.offset_samples.front(), self.offset_samples.len() > 1)
        {
            self.rate = Some((off - o0) as f64 / ((now - t0) as f64 / 1e6));
        }
    }

    /// Offsets per second of each interval between polls, in milli-offsets, oldest first.
    pub fn interval_rates(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.rates.iter().copied()
    }

    /// The node's health from its last answer.
    pub fn health(&self) -> NodeHealth {
        match self.last_ok {
            None => NodeHealth::Unknown,
            Some(false) => NodeHealth::Down,
            Some(true) => match &self.status {
                Some(NodeStatus::Success(s)) if s.active => NodeHealth::Ok,
                Some(_) => NodeHealth::Degraded,
                None => NodeHealth::Ok,
            },
        }
    }

    /// The request in flight, if any.
    pub fn in_flight(&self) -> Option<RequestId> {
        self.in_flight.map(|(id, _)| id)
    }

    /// When the next request is due (µs since the epoch).
    pub fn next_due(&self) -> i64 {
        self.next_due
    }

    /// Recent latencies in ms, oldest first (None: that request failed).
    pub fn latencies(&self) -> impl ExactSizeIterator<Item = Option<u64>> + '_ {
        self.latencies.iter().copied()
    }

    /// The latency of the last successful request.
    pub fn last_latency(&self) -> Option<u64> {
        self.latencies.back().copied().flatten()
    }

    fn push_latency(&mut self, v: Option<u64>) {
        if self.latencies.len() == LATENCY_SAMPLES {
            self.latencies.pop_front();
        }
        self.latencies.push_back(v);
    }
}

/// Wait before the next attempt after `failures` consecutive failures: the refresh interval
/// when healthy, doubling per failure, capped at [`MAX_BACKOFF_MS`] (or the refresh interval
/// when that is longer).
pub fn retry_delay_ms(refresh_ms: u64, failures: u32) -> u64 {
    let refresh = refresh_ms.max(MIN_REFRESH_MS);
    if failures == 0 {
        return refresh;
    }
    let cap = MAX_BACKOFF_MS.max(refresh);
    refresh.saturating_mul(1u64 << failures.min(20)).min(cap)
}

/// What an answer changed about a node, worth telling the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transition {
    /// The node failed after answering (or before any answer): the error text.
    WentDown(String),
    /// The node answers again after failing.
    Recovered,
}

/// What the poller wants done on a tick.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct TickWork {
    /// Requests to give up: (node, request, how long it has been waiting in µs). Cancel each
    /// and record the failure with [`NodePoller::on_result`].
    pub stale: Vec<(usize, RequestId, i64)>,
    /// Nodes due for a request (send it, then call [`NodePoller::sent`]).
    pub due: Vec<usize>,
}

/// Every configured node and its polling state.
#[derive(Debug, Clone)]
pub struct NodePoller {
    nodes: Vec<NodeState>,
    refresh_ms: u64,
}

impl NodePoller {
    /// One node per scan URL, then the ledger (polled only with a token), then the validator.
    pub fn new(
        scan_urls: &[String],
        ledger: Option<(&str, bool)>,
        validator: Option<&str>,
        refresh_ms: u64,
    ) -> Self {
        let mut nodes: Vec<NodeState> = scan_urls
            .iter()
            .enumerate()
            .map(|(i, url)| NodeState::new(NodeKind::Scan(i), url.clone(), true))
            .collect();
        if let Some((url, polled)) = ledger {
            nodes.push(NodeState::new(NodeKind::Ledger, url.into(), polled));
        }
        if let Some(url) = validator {
            nodes.push(NodeState::new(NodeKind::Validator, url.into(), true));
        }
        NodePoller {
            nodes,
            refresh_ms: refresh_ms.max(MIN_REFRESH_MS),
        }
    }

    /// The polling interval in ms (at least [`MIN_REFRESH_MS`]).
    pub fn refresh_ms(&self) -> u64 {
        self.refresh_ms
    }

    /// Every node, scans first.
    pub fn nodes(&self) -> &[NodeState] {
        &self.nodes
    }

    /// The node of a kind.
    pub fn node(&self, kind: NodeKind) -> Option<&NodeState> {
        self.nodes.iter().find(|n| n.kind == kind)
    }

    /// Nodes that are polled and have nothing in flight (for "poll now").
    pub fn idle(&self) -> Vec<usize> {
        (0..self.nodes.len())
            .filter(|&i| self.nodes[i].polled && self.nodes[i].in_flight.is_none())
            .collect()
    }

    /// Records that request `id` went out to node `i` at `now`.
    pub fn sent(&mut self, i: usize, id: RequestId, now: i64) {
        if let Some(n) = self.nodes.get_mut(i) {
            n.in_flight = Some((id, now));
        }
    }

    /// What is to be done at `now`: requests to give up, nodes due.
    pub fn tick(&self, now: i64) -> TickWork {
        let mut work = TickWork::default();
        for (i, node) in self.nodes.iter().enumerate() {
            if !node.polled {
                continue;
            }
            match node.in_flight {
                Some((id, started)) if now - started > STALE_REQUEST_US => {
                    work.stale.push((i, id, now - started));
                }
                Some(_) => {}
                None if now >= node.next_due => work.due.push(i),
                None => {}
            }
        }
        work
    }

    /// The node waiting for request `id` (of this kind), if any.
    pub fn waiting_for(&self, id: RequestId, request: &Request) -> Option<usize> {
        self.nodes
            .iter()
            .position(|n| n.in_flight.is_some_and(|(f, _)| f == id))
            .filter(|&i| *request == self.nodes[i].kind.request())
    }

    /// Records the answer of node `i` at `now` (`elapsed_ms`: how long the request took).
    pub fn on_result(
        &mut self,
        i: usize,
        result: Result<&Response, String>,
        elapsed_ms: u32,
        now: i64,
    ) -> Option<Transition> {
        let refresh = self.refresh_ms;
        let node = self.nodes.get_mut(i)?;
        node.in_flight = None;
        let was = node.last_ok;
        let mut transition = None;
        match result {
            Ok(resp) => {
                node.failures = 0;
                node.last_ok = Some(true);
                node.last_ok_at = Some(now);
                node.push_latency(Some(u64::from(elapsed_ms)));
                if let Some(s) = resp.answer::<NodeStatus>() {
                    node.status = Some(s.clone());
                }
                if let Some(end) = resp.answer::<LedgerEnd>() {
                    node.ledger_end = Some(end.offset);
                    if let Some(off) = end.offset {
                        node.add_offset_sample(now, off);
                    }
                }
                if was == Some(false) {
                    transition = Some(Transition::Recovered);
                }
            }
            Err(text) => {
                node.failures = node.failures.saturating_add(1);
                node.last_ok = Some(false);
                node.push_latency(None);
                if was != Some(false) {
                    transition = Some(Transition::WentDown(text.clone()));
                }
                node.last_error = Some((now, text));
            }
        }
        node.next_due = now.saturating_add(
            i64::try_from(retry_delay_ms(refresh, node.failures))
                .unwrap_or(i64::MAX / 1000)
                .saturating_mul(1000),
        );
        transition
    }

    /// Records that node `i` answered 429 (too many requests) at `now`: the node is up and says
    /// so, it only asks us to wait, so its health stays as it was (no "down"), the text is kept
    /// as its last error and the next request waits as after one failure.
    pub fn throttled(&mut self, i: usize, text: String, now: i64) {
        let refresh = self.refresh_ms;
        let Some(node) = self.nodes.get_mut(i) else {
            return;
        };
        node.in_flight = None;
        node.last_error = Some((now, text));
        node.next_due = now.saturating_add(
            i64::try_from(retry_delay_ms(refresh, 1))
                .unwrap_or(i64::MAX / 1000)
                .saturating_mul(1000),
        );
    }

    /// Health of scan 0 (the one the history is read from).
    pub fn scan0_health(&self) -> NodeHealth {
        self.node(NodeKind::Scan(0))
            .map_or(NodeHealth::Unknown, NodeState::health)
    }

    /// How many polled nodes are down and degraded.
    pub fn counts(&self) -> (usize, usize) {
        let count = |h| self.nodes.iter().filter(|n| n.health() == h).count();
        (count(NodeHealth::Down), count(NodeHealth::Degraded))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::PaneId;

    #[test]
    fn ledger_rate_is_averaged_over_the_last_minute() {
        let mut n = NodeState::new(NodeKind::Ledger, "http://l".into(), true);
        let s = 1_000_000;
        // One offset every 10 s, polled every 2 s: most polls see no change.
        for k in 0..60 {
            n.add_offset_sample(k * 2 * s, 1000 + k * 2 / 10);
        }
        let r = n.rate.expect("a rate");
        assert!((r - 0.1).abs() < 0.02, "{r}");
        // A ledger reset (smaller end) starts over instead of a negative rate.
        n.add_offset_sample(200 * s, 5);
        assert_eq!(n.rate, None, "no rate across two ledgers");
        assert_eq!(n.interval_rates().len(), 0);
        n.add_offset_sample(202 * s, 6);
        let r = n.rate.expect("a rate");
        assert!((r - 0.5).abs() < 1e-9, "{r}");
    }

    #[test]
    fn the_rate_sparkline_is_per_interval_not_a_running_total() {
        let mut n = NodeState::new(NodeKind::Ledger, "http://l".into(), true);
        let s = 1_000_000;
        // 10 offsets/s for 5 polls, then idle for 5 polls.
        let mut off = 0;
        for k in 0..11 {
            n.add_offset_sample(k * s, off);
            off += if k < 5 { 10 } else { 0 };
        }
        let r: Vec<u64> = n.interval_rates().collect();
        assert_eq!(r, [10_000, 10_000, 10_000, 10_000, 10_000, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn backoff_doubles_and_caps() {
        assert_eq!(retry_delay_ms(2000, 0), 2000);
        assert_eq!(retry_delay_ms(2000, 1), 4000);
        assert_eq!(retry_delay_ms(2000, 2), 8000);
        assert_eq!(retry_delay_ms(2000, 3), 16000);
        assert_eq!(retry_delay_ms(2000, 4), 30000);
        assert_eq!(retry_delay_ms(2000, 40), 30000);
        assert_eq!(retry_delay_ms(60_000, 3), 60_000);
        assert_eq!(retry_delay_ms(0, 0), MIN_REFRESH_MS);
    }

    #[test]
    fn one_request_per_node_and_transitions_once() {
        let urls = vec!["http://s".to_string()];
        let mut p = NodePoller::new(&urls, Some(("http://l", false)), None, 2000);
        let s = 1_000_000;
        let work = p.tick(0);
        assert_eq!(work.due, [0], "the ledger without a token is not polled");
        let id = RequestId::new(PaneId::Status, 1);
        p.sent(0, id, 0);
        assert!(p.tick(s).due.is_empty(), "in flight");
        assert_eq!(
            p.waiting_for(id, &Request::api(crate::api::ledger::ledger_end())),
            None
        );
        assert_eq!(
            p.waiting_for(id, &Request::on_scan(0, crate::api::scan::status())),
            Some(0)
        );
        let t = p.on_result(0, Err("refused".into()), 0, s);
        assert_eq!(t, Some(Transition::WentDown("refused".into())));
        assert_eq!(p.scan0_health(), NodeHealth::Down);
        assert_eq!(p.counts(), (1, 0));
        assert!(p.tick(2 * s).due.is_empty(), "backing off 4 s");
        assert_eq!(p.tick(5 * s).due, [0]);
        p.sent(0, id, 5 * s);
        assert_eq!(p.on_result(0, Err("again".into()), 0, 5 * s), None);
        p.sent(0, id, 13 * s);
        assert_eq!(
            p.on_result(
                0,
                Ok(&Response::from(crate::api::ledger::EmptyResponse::default())),
                3,
                13 * s
            ),
            Some(Transition::Recovered)
        );
        assert_eq!(p.nodes()[0].next_due(), 15 * s);
    }

    #[test]
    fn a_request_without_answer_is_given_up() {
        let urls = vec!["http://s".to_string()];
        let mut p = NodePoller::new(&urls, None, None, 2000);
        let id = RequestId::new(PaneId::Status, 7);
        p.sent(0, id, 0);
        let work = p.tick(STALE_REQUEST_US + 1);
        assert_eq!(work.stale, [(0, id, STALE_REQUEST_US + 1)]);
        assert!(work.due.is_empty());
        p.on_result(0, Err("no answer".into()), 0, STALE_REQUEST_US + 1);
        assert_eq!(p.scan0_health(), NodeHealth::Down);
        assert!(
            p.tick(STALE_REQUEST_US + 2).due.is_empty(),
            "waits for its back-off"
        );
    }
}
