//! Health, as the app owns it: the profile's own nodes (polled by [`NodePoller`]) and, once a
//! scan is configured, every scan of the network (measured every `network_health_interval`).
//! One source for the header, the Status dashboard and the Network pane: they only read it;
//! none of them polls on its own. A pure state machine like the history loader: it takes the
//! clock and replies and returns requests as data ([`HealthOut`]); the app's `app::health`
//! runs it.

use std::collections::BTreeSet;

use super::loader::Note;
use super::node_poll::{NodePoller, Transition};
use crate::api::scan::{self, DsoInfo};
use crate::model::findings::{FLAP_WINDOW_US, FindingOp, FindingsBook};
use crate::model::network::{HealthState, MySv, NetworkHealth, NetworkSnapshot, resolve_my_sv};
use crate::msg::{Fetched, Owner, Request, RequestId, RequestIds};

/// The default interval between two measurements of every scan (µs).
pub const NETWORK_INTERVAL_US: i64 = 30_000_000;

/// What a pane can ask of the health.
#[derive(Debug, Clone, PartialEq)]
pub enum HealthIntent {
    /// Poll every node of the profile now (`r` in Status).
    PollNodesNow,
    /// Measure every scan of the network now (`r` in Network).
    MeasureNetworkNow,
    /// Keep these changes to the network's findings (a fork found by `b` or a sweep, an
    /// acknowledgement, …).
    Record(Vec<FindingOp>),
}

/// What one step of the health produced.
#[derive(Debug, Default)]
pub struct HealthOut {
    /// Requests to send, with their ids.
    pub fetches: Vec<(RequestId, Request)>,
    /// Requests to abort.
    pub cancels: Vec<RequestId>,
    /// Messages for the status line (errors also for the error log).
    pub notes: Vec<(Note, String)>,
    /// Whether anything a reader shows changed.
    pub changed: bool,
    /// New findings to announce (the bell, a desktop notification), one line each.
    pub announce: Vec<String>,
}

impl HealthOut {
    fn fetch(&mut self, ids: &mut RequestIds, request: Request) -> RequestId {
        let id = ids.next(Owner::Health);
        self.fetches.push((id, request));
        id
    }
}

/// Every scan of the network, as last measured (`Request::NetworkHealth`).
#[derive(Debug, Clone, Default)]
pub struct NetworkWatch {
    /// The last measurement.
    pub snapshot: Option<NetworkSnapshot>,
    /// Its verdict (derived from `snapshot` when it arrived).
    pub health: Option<NetworkHealth>,
    /// Why the last measurement failed, while it did.
    pub error: Option<String>,
    /// Bumped by every new measurement (readers keep their own tables in step with it).
    pub epoch: u64,
    /// The Status verdict's part of the last measurement.
    part: Option<NetworkPart>,
    /// The header's part of the last measurement.
    header: Option<HeaderPart>,
    /// The measurement in flight.
    pending: Option<RequestId>,
    /// When the last measurement started (µs); `None` before the first.
    started_at: Option<i64>,
    /// Between two measurements (µs).
    interval_us: i64,
    /// Whether the network is measured at all (a scan is configured).
    enabled: bool,
    /// The network's findings as last kept (from a measurement or a change).
    pub findings: FindingsBook,
    /// Between two head checks (µs; 0: never).
    fork_check_us: i64,
    /// When the last head check was asked (µs).
    last_head_check: Option<i64>,
    /// A change of the findings in flight, and the changes waiting for it.
    findings_pending: Option<RequestId>,
    queued: Vec<FindingOp>,
    /// The findings already announced, or there at the first measurement (never announced).
    announced: BTreeSet<String>,
    /// Whether a measurement has arrived.
    measured_once: bool,
}

impl NetworkWatch {
    /// Whether a measurement is running.
    pub fn is_measuring(&self) -> bool {
        self.pending.is_some()
    }

    /// Whether the network is measured (a scan is configured).
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// The interval between two measurements (µs).
    pub fn interval_us(&self) -> i64 {
        self.interval_us
    }

    /// The last measurement of the scan at `url` (its observation and health), if the
    /// network's list has it.
    pub fn scan_at(
        &self,
        url: &str,
    ) -> Option<(
        &crate::model::network::ScanObservation,
        &crate::model::network::ScanHealth,
    )> {
        let snapshot = self.snapshot.as_ref()?;
        let health = self.health.as_ref()?;
        let i = snapshot
            .entries
            .iter()
            .position(|e| crate::model::network::same_url(&e.url, url))?;
        Some((snapshot.observations.get(i)?, health.scans.get(i)?))
    }

    /// Whether the head check runs (`fork_check` is not 0).
    pub fn head_check_enabled(&self) -> bool {
        self.fork_check_us > 0
    }

    /// Takes a measurement in: its findings, and the scans down opened or cleared as findings
    /// (queued, sent by the next tick).
    fn accept(&mut self, snapshot: NetworkSnapshot, now: i64, out: &mut HealthOut) {
        let health = snapshot.assess();
        let down = crate::model::network::down_ops(&snapshot.entries, &health, &snapshot.findings);
        if !self.measured_once {
            // Found by the first measurement: known, not announced.
            for op in &down {
                if let FindingOp::Open(f) = op {
                    self.announced.insert(f.id());
                }
            }
        }
        self.queued.extend(down);
        self.findings = snapshot.findings.clone();
        self.health = Some(health);
        self.snapshot = Some(snapshot);
        self.part = self.judge_part();
        self.header = self.judge_header();
        self.error = None;
        self.epoch += 1;
        self.announce(now, out);
        self.measured_once = true;
    }

    /// Takes the findings after a change in, re-judging the last measurement by them.
    fn accept_findings(&mut self, book: FindingsBook, now: i64, out: &mut HealthOut) {
        self.findings = book;
        if let Some(snapshot) = &mut self.snapshot {
            snapshot.findings = self.findings.clone();
            self.health = Some(snapshot.assess());
            self.part = self.judge_part();
            self.header = self.judge_header();
            self.epoch += 1;
        }
        self.announce(now, out);
    }

    /// Announces the findings that need attention and were not announced yet; those present
    /// at the first measurement are taken as known. A finding that comes back within the flap
    /// window keeps its id and is not announced again.
    fn announce(&mut self, now: i64, out: &mut HealthOut) {
        let book = &self.findings;
        // A finding cleared longer than the flap window ago rings again when it comes back.
        self.announced.retain(|id| {
            book.by_id(id)
                .is_none_or(|f| f.cleared_at.is_none_or(|c| now - c < FLAP_WINDOW_US))
        });
        for f in book.needing_attention(now) {
            let id = f.id();
            if self.announced.insert(id) && self.measured_once {
                out.announce.push(format!("{}: {}", f.name, f.kind.words()));
            }
        }
    }
}

/// How often the DSO (its SVs, "my SV") is read again (µs): it changes with governance only.
const DSO_EVERY_US: i64 = 600_000_000;
/// After a failed read of the DSO, the next one (µs).
const DSO_RETRY_US: i64 = 30_000_000;

/// The DSO as the profile's own scan answers `/v0/dso`, and "my SV" from it and the profile.
#[derive(Debug, Clone, Default)]
pub struct DsoWatch {
    /// The last answer.
    pub info: Option<std::sync::Arc<DsoInfo>>,
    /// Why the last read failed, while it did.
    pub error: Option<String>,
    /// The profile's `sv` key.
    configured: Option<String>,
    /// "My SV", from `configured` and `info` (see [`resolve_my_sv`]).
    my_sv: Option<MySv>,
    pending: Option<RequestId>,
    next_due: i64,
}

impl DsoWatch {
    /// "My SV": the profile's `sv` key, else the SV that operates the profile's scan.
    pub fn my_sv(&self) -> Option<&MySv> {
        self.my_sv.as_ref()
    }

    /// Whether `sv_name` (a `/v0/scans` name) is my SV.
    pub fn is_mine(&self, sv_name: &str) -> bool {
        self.my_sv.as_ref().is_some_and(|m| m.is_named(sv_name))
    }
}

/// The network's part of the Status verdict: how many scans are healthy, whether a quorum is,
/// and every scan that is not (by name), so none is hidden and one always-lagging SV does not
/// turn the headline amber.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkPart {
    /// `network 11 of 13 healthy, quorum ✓`
    pub summary: String,
    /// `Echo-SV down`, `Delta-SV 63 s behind`, … (down, then unhealthy, then lagging).
    pub named: Vec<String>,
    /// The scans named, by their index in the measurement (the first is the one Enter opens).
    pub named_scans: Vec<usize>,
    /// A quorum (f + 1) of the network is healthy.
    pub quorum_ok: bool,
    /// Every counted scan is healthy and none lags.
    pub all_well: bool,
}

impl NetworkWatch {
    /// The network's part of the verdict, once measured and when more than one scan is known
    /// (judged once per measurement, not on every draw).
    pub fn verdict_part(&self) -> Option<&NetworkPart> {
        self.part.as_ref()
    }

    /// The header's part (`net 4/7 · 1 down · 1 lag 48s · 1 forked`), once measured.
    pub fn header_part(&self) -> Option<&HeaderPart> {
        self.header.as_ref()
    }

    fn judge_header(&self) -> Option<HeaderPart> {
        let health = self.health.as_ref()?;
        let counted: Vec<bool> = self
            .snapshot
            .as_ref()
            .map(NetworkSnapshot::counted)
            .unwrap_or_default();
        let is_counted = |i: usize| counted.get(i).copied().unwrap_or(true);
        let well = health
            .scans
            .iter()
            .enumerate()
            .filter(|(i, s)| is_counted(*i) && s.is_well())
            .count();
        let mut text = format!("net {well}/{}", health.n);
        let mut add = |count: usize, what: String| {
            if count > 0 {
                text.push_str(&format!(" · {count} {what}"));
            }
        };
        add(health.down, "down".into());
        add(health.unhealthy, "unhealthy".into());
        let max_lag = health
            .scans
            .iter()
            .enumerate()
            .filter(|(i, s)| is_counted(*i) && s.state == HealthState::Healthy && s.lagging)
            .filter_map(|(_, s)| s.lag_behind_newest)
            .max();
        add(
            health.lagging,
            format!(
                "lag {}",
                crate::model::format::human_age(max_lag.unwrap_or(0))
            ),
        );
        add(health.forked, "forked".into());
        add(health.diverged, "diverged".into());
        add(health.backfilling, "backfill".into());
        add(health.rate_limited, "429".into());
        Some(HeaderPart {
            text,
            quorum_ok: health.healthy >= health.quorum && health.n > 0,
            all_well: well == health.n,
        })
    }

    fn judge_part(&self) -> Option<NetworkPart> {
        let (snapshot, health) = (self.snapshot.as_ref()?, self.health.as_ref()?);
        if health.n < 2 {
            return None;
        }
        let name = |i: usize| {
            snapshot
                .entries
                .get(i)
                .map_or_else(|| format!("scan {}", i + 1), |e| e.sv_name.clone())
        };
        let mut named = Vec::new();
        let mut named_scans = Vec::new();
        let states = [
            crate::model::network::HealthState::Forked,
            crate::model::network::HealthState::Down,
            crate::model::network::HealthState::DivergedHistory,
            crate::model::network::HealthState::Unhealthy,
            crate::model::network::HealthState::Backfilling,
            crate::model::network::HealthState::RateLimited,
        ];
        for state in states {
            for (i, scan) in health.scans.iter().enumerate() {
                if scan.state == state {
                    let what = match state {
                        crate::model::network::HealthState::Down => "down",
                        crate::model::network::HealthState::Forked => "forked",
                        crate::model::network::HealthState::DivergedHistory => "diverged history",
                        crate::model::network::HealthState::Backfilling => "backfilling",
                        crate::model::network::HealthState::RateLimited => "rate-limited",
                        _ => "unhealthy",
                    };
                    named.push(format!("{} {what}", name(i)));
                    named_scans.push(i);
                }
            }
        }
        for (i, scan) in health.scans.iter().enumerate() {
            if scan.state == crate::model::network::HealthState::Healthy && scan.lagging {
                let behind = scan.lag_behind_newest.unwrap_or(0).max(0) / 1_000_000;
                named.push(format!("{} {behind} s behind", name(i)));
                named_scans.push(i);
            }
        }
        let well = health.healthy.saturating_sub(health.lagging);
        let quorum_ok = health.healthy >= health.quorum;
        let mark = if quorum_ok { "✓" } else { "✗" };
        Some(NetworkPart {
            summary: format!("network {well} of {} healthy, quorum {mark}", health.n),
            all_well: named.is_empty(),
            named,
            named_scans,
            quorum_ok,
        })
    }
}

/// The network's part of the header: how many scans are healthy of all (lagging, down,
/// forked scans never count as healthy), then only the non-zero counts of the others, e.g.
/// `net 4/7 · 1 down · 1 lag 48s · 1 forked`, or `net 7/7` when all is well.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderPart {
    pub text: String,
    /// A quorum of the network is healthy.
    pub quorum_ok: bool,
    /// Every counted scan is healthy and none lags.
    pub all_well: bool,
}

/// The health the app owns.
#[derive(Debug, Clone)]
pub struct Health {
    /// The profile's own nodes: its scans, ledger and validator proxy.
    pub nodes: NodePoller,
    /// Every scan of the network.
    pub network: NetworkWatch,
    /// The DSO and "my SV".
    pub dso: DsoWatch,
    /// My node: the operator's own metrics, judged by the alert rules.
    pub node: super::node_metrics::NodeWatch,
}

impl Health {
    /// The head check every `every_us` µs (0: never).
    pub fn with_fork_check(mut self, every_us: i64) -> Self {
        self.network.fork_check_us = every_us.max(0);
        self
    }

    /// Queues changes to the network's findings (sent at once when none is in flight).
    pub fn record(
        &mut self,
        ops: Vec<FindingOp>,
        now: i64,
        ids: &mut RequestIds,
        out: &mut HealthOut,
    ) {
        self.network.queued.extend(ops);
        self.send_findings(now, ids, out);
    }

    /// Sends the queued changes to the findings, when none is in flight.
    pub fn send_findings(&mut self, now: i64, ids: &mut RequestIds, out: &mut HealthOut) {
        let net = &mut self.network;
        if net.findings_pending.is_some() || net.queued.is_empty() || !net.enabled {
            return;
        }
        let ops = std::mem::take(&mut net.queued);
        net.findings_pending = Some(out.fetch(ids, Request::Findings { ops, now }));
    }

    /// The health of these nodes; the network is measured every `network_interval_us` when
    /// `measure_network` (a scan is configured).
    /// `configured_sv` is the profile's `sv` key.
    pub fn new(
        nodes: NodePoller,
        measure_network: bool,
        network_interval_us: i64,
        configured_sv: Option<String>,
    ) -> Self {
        let my_sv = resolve_my_sv(configured_sv.as_deref(), None);
        Health {
            nodes,
            network: NetworkWatch {
                enabled: measure_network,
                interval_us: network_interval_us.max(1_000_000),
                ..NetworkWatch::default()
            },
            dso: DsoWatch {
                configured: configured_sv,
                my_sv,
                next_due: if measure_network { i64::MIN } else { i64::MAX },
                ..DsoWatch::default()
            },
            node: super::node_metrics::NodeWatch::default(),
        }
    }

    /// The same health with `node` watching the operator's own metrics.
    #[must_use]
    pub fn with_node(mut self, node: super::node_metrics::NodeWatch) -> Self {
        self.node = node;
        self
    }

    /// What is due at `now`: nodes due polled, the network measured when its interval
    /// passed. Requests without an answer for too long are cancelled and returned as (node,
    /// how long it waited in µs): the caller gives each up with [`Health::node_failed`].
    pub fn tick(
        &mut self,
        now: i64,
        ids: &mut RequestIds,
        out: &mut HealthOut,
    ) -> Vec<(usize, i64)> {
        let work = self.nodes.tick(now);
        let mut stale = Vec::new();
        for &(i, id, waited) in &work.stale {
            out.cancels.push(id);
            stale.push((i, waited));
        }
        for &i in &work.due {
            self.poll_node(i, now, ids, out);
        }
        if self.dso.pending.is_none() && now >= self.dso.next_due {
            self.dso.pending = Some(out.fetch(ids, Request::api(scan::dso())));
        }
        if let Some((id, request)) = self.node.tick(now, ids) {
            out.fetches.push((id, request));
            out.changed = true;
        }
        let net = &self.network;
        let due = net.started_at.is_none_or(|t| now - t >= net.interval_us);
        if net.enabled && net.pending.is_none() && due {
            self.measure_network(now, ids, out);
        }
        self.send_findings(now, ids, out);
        stale
    }

    /// Node `i` failed at `now` with `text` (a request given up).
    pub fn node_failed(&mut self, i: usize, text: String, now: i64, out: &mut HealthOut) {
        self.on_node_result(i, Err(text), 0, now, out);
    }

    /// Polls every node with nothing in flight now (`r` in Status); how many.
    pub fn poll_nodes_now(&mut self, now: i64, ids: &mut RequestIds, out: &mut HealthOut) -> usize {
        let idle = self.nodes.idle();
        for &i in &idle {
            self.poll_node(i, now, ids, out);
        }
        idle.len()
    }

    /// Measures every scan now, unless a measurement is running (`r` in Network).
    pub fn measure_network(&mut self, now: i64, ids: &mut RequestIds, out: &mut HealthOut) {
        let net = &mut self.network;
        if !net.enabled || net.pending.is_some() {
            return;
        }
        let heads = net
            .snapshot
            .as_ref()
            .map(NetworkSnapshot::heads)
            .unwrap_or_default();
        let head_check = net.fork_check_us > 0
            && net
                .last_head_check
                .is_none_or(|t| now - t >= net.fork_check_us);
        if head_check {
            net.last_head_check = Some(now);
        }
        net.pending = Some(out.fetch(
            ids,
            Request::NetworkHealth {
                now,
                heads,
                head_check,
            },
        ));
        net.started_at = Some(now);
        out.changed = true;
    }

    /// Whether `id` is a request of the health's.
    pub fn owns(&self, id: RequestId) -> bool {
        self.network.pending == Some(id)
            || self.network.findings_pending == Some(id)
            || self.node.owns(id)
            || self.dso.pending == Some(id)
            || self.nodes.nodes().iter().any(|n| n.in_flight() == Some(id))
    }

    /// A reply to one of the health's requests (others are ignored).
    pub fn on_reply(&mut self, reply: &Fetched, now: i64, out: &mut HealthOut) {
        if self.node.on_reply(reply, now) {
            // A rule that fires is a finding (kept, announced); one back within its threshold
            // clears it.
            let ops = crate::model::metrics::alert_ops(&self.node.rows, &self.network.findings);
            // What the first scrape finds is known, not announced.
            if self.node.epoch <= 1 {
                for op in &ops {
                    if let FindingOp::Open(f) = op {
                        self.network.announced.insert(f.id());
                    }
                }
            }
            self.network.queued.extend(ops);
            out.changed = true;
            return;
        }
        if self.dso.pending == Some(reply.id) {
            let dso = &mut self.dso;
            dso.pending = None;
            match reply.result.as_ref().map(|r| r.shared::<DsoInfo>()) {
                Ok(Some(info)) => {
                    dso.info = Some(std::sync::Arc::clone(info));
                    dso.error = None;
                    dso.next_due = now.saturating_add(DSO_EVERY_US);
                }
                Ok(None) => {
                    dso.error = Some("unexpected response to /v0/dso".into());
                    dso.next_due = now.saturating_add(DSO_RETRY_US);
                }
                Err(e) => {
                    dso.error = Some(e.to_string());
                    dso.next_due = now.saturating_add(DSO_RETRY_US);
                }
            }
            dso.my_sv = resolve_my_sv(dso.configured.as_deref(), dso.info.as_deref());
            out.changed = true;
            return;
        }
        if self.network.findings_pending == Some(reply.id) {
            self.network.findings_pending = None;
            match reply.result.as_ref().map(|r| r.findings()) {
                Ok(Some(book)) => self.network.accept_findings(book.clone(), now, out),
                Ok(None) => {}
                Err(e) => out
                    .notes
                    .push((Note::Warn, format!("the findings could not be kept: {e}"))),
            }
            out.changed = true;
            return;
        }
        if self.network.pending == Some(reply.id) {
            self.network.pending = None;
            match &reply.result {
                Ok(r) => match r.network_health() {
                    Some(snapshot) => self.network.accept(snapshot.clone(), now, out),
                    None => {
                        self.network.error =
                            Some("unexpected response to the network health".into());
                    }
                },
                Err(e) => self.network.error = Some(e.to_string()),
            }
            out.changed = true;
            return;
        }
        let Some(i) = self.nodes.waiting_for(reply.id, &reply.request) else {
            return;
        };
        out.changed = true;
        if let Err(e) = &reply.result
            && e.status() == Some(429)
        {
            // Rate limited: the node answers; ask again later, without calling it down.
            self.nodes.throttled(i, e.to_string(), now);
            return;
        }
        let result = match &reply.result {
            Ok(resp) => Ok(resp),
            Err(e) => Err(e.to_string()),
        };
        self.on_node_result(i, result, reply.elapsed_ms, now, out);
    }

    fn poll_node(&mut self, i: usize, now: i64, ids: &mut RequestIds, out: &mut HealthOut) {
        let Some(node) = self.nodes.nodes().get(i) else {
            return;
        };
        let id = out.fetch(ids, node.kind.request());
        self.nodes.sent(i, id, now);
        out.changed = true;
    }

    fn on_node_result(
        &mut self,
        i: usize,
        result: Result<&crate::msg::Response, String>,
        elapsed_ms: u32,
        now: i64,
        out: &mut HealthOut,
    ) {
        let Some(kind) = self.nodes.nodes().get(i).map(|n| n.kind) else {
            return;
        };
        out.changed = true;
        match self.nodes.on_result(i, result, elapsed_ms, now) {
            Some(Transition::Recovered) => out
                .notes
                .push((Note::Info, format!("{} is reachable again", kind.name()))),
            Some(Transition::WentDown(text)) => out
                .notes
                .push((Note::Error, format!("{} is down: {text}", kind.name()))),
            None => {}
        }
    }
}
