//! The demo's node metrics: `/metrics/{node}` for the first SV's six nodes (SV app, scan,
//! validator, participant, sequencer, mediator) in the Prometheus text format, with the names
//! and labels the My node rules read, every value a function of the clock (an idle network's
//! metrics advance too: sequencing times, acknowledgements, rounds, heights). Only the fault
//! flags raise alerts: rounds stalled for a while, the sequencer client delayed, automation
//! failing. `POST /demo/faults` switches them while the demo runs (and moves the metrics' clock
//! forward, so a test sees a window pass without waiting for it); `GET /demo/faults` reads them
//! (both served by `super::metrics_api`).

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::faults::NodeFaults;
use super::util::{MINUTE, SECOND, now_micros};

/// The nodes that serve metrics, as `/metrics/{node}` names them.
pub const NODES: [&str; 6] = [
    "sv-app",
    "scan",
    "validator",
    "participant",
    "sequencer",
    "mediator",
];

/// A new mining round every this long (as Splice's tick).
const ROUND_PERIOD: i64 = 10 * MINUTE;
/// A failed automation task this often while `automation_failures` is on.
const FAILURE_PERIOD: i64 = 10 * SECOND;

/// The metrics' mutable state.
#[derive(Debug)]
pub(crate) struct NodeMetrics {
    pub(super) faults: NodeFaults,
    /// The round the rounds stalled at, while they are stalled.
    stalled_at_round: Option<i64>,
    /// Failures counted before the current failing spell.
    failures_before: i64,
    /// When the current failing spell began (metrics clock).
    failing_since: Option<i64>,
    /// Added to the wall clock (moved forward by the control request).
    pub(super) offset: i64,
    /// When the demo started (wall clock).
    started: i64,
}

pub(crate) type SharedMetrics = Arc<Mutex<NodeMetrics>>;

pub(super) fn micros(d: Duration) -> i64 {
    i64::try_from(d.as_micros()).unwrap_or(i64::MAX / 4)
}

fn round_at(t: i64) -> i64 {
    (t - 1_700_000_000 * SECOND).div_euclid(ROUND_PERIOD).max(1)
}

impl NodeMetrics {
    pub fn new(faults: &NodeFaults) -> NodeMetrics {
        let mut metrics = NodeMetrics {
            faults: NodeFaults::default(),
            stalled_at_round: None,
            failures_before: 0,
            failing_since: None,
            offset: 0,
            started: now_micros(),
        };
        metrics.set(faults.clone());
        metrics
    }

    /// The metrics' clock: the wall clock moved forward by the control requests.
    fn now(&self) -> i64 {
        now_micros() + self.offset
    }

    fn failures(&self, now: i64) -> i64 {
        self.failures_before
            + self
                .failing_since
                .map_or(0, |since| (now - since).max(0) / FAILURE_PERIOD + 1)
    }

    /// Switches the faults to `faults`.
    pub(super) fn set(&mut self, faults: NodeFaults) {
        let now = self.now();
        self.stalled_at_round = faults.stalled_rounds.map(|ago| {
            self.stalled_at_round
                .filter(|_| self.faults.stalled_rounds == Some(ago))
                .unwrap_or_else(|| round_at(now - micros(ago)))
        });
        match (self.failing_since, faults.automation_failures) {
            (None, true) => self.failing_since = Some(now),
            (Some(_), false) => {
                self.failures_before = self.failures(now);
                self.failing_since = None;
            }
            _ => {}
        }
        self.faults = faults;
    }

    /// The exposition of `node` at the metrics clock's now; `None` for an unknown node.
    pub fn exposition(
        &self,
        node: &str,
        net: &super::topology::Network,
        scan_urls: &[String],
    ) -> Option<String> {
        let now = self.now();
        let up = (now - self.started).max(0);
        let mut out = String::new();
        let dso = &net.parties[usize::from(net.dso)].id;
        let sv = net.svs.first()?;
        let participant = &net.participants[sv.participant].id;
        let mediator = format!(
            "MED::{}",
            participant.strip_prefix("PAR::").unwrap_or(participant)
        );
        let sequencing = now - SECOND - self.faults.sequencer_delay.map_or(0, micros);
        let w = &mut out;
        match node {
            "sv-app" => {
                let open = self.stalled_at_round.unwrap_or_else(|| round_at(now));
                help(
                    w,
                    "splice_sv_dso_store_latest_open_mining_round",
                    "gauge",
                    "The newest open mining round.",
                );
                line(w, "splice_sv_dso_store_latest_open_mining_round", &[], open);
                help(
                    w,
                    "splice_sv_dso_store_latest_issuing_mining_round",
                    "gauge",
                    "The newest issuing mining round.",
                );
                line(
                    w,
                    "splice_sv_dso_store_latest_issuing_mining_round",
                    &[],
                    open - 1,
                );
                help(
                    w,
                    "splice_sv_status_report_creation_time_us",
                    "gauge",
                    "When each SV's newest status report was created.",
                );
                for (k, other) in net.svs.iter().enumerate() {
                    let at = now - 20 * SECOND - (k as i64) * 7 * SECOND;
                    line(
                        w,
                        "splice_sv_status_report_creation_time_us",
                        &[("report_publisher", &other.name)],
                        at,
                    );
                }
                help(
                    w,
                    "splice_sv_vote_requests_active",
                    "gauge",
                    "Open vote requests by state.",
                );
                line(
                    w,
                    "splice_sv_vote_requests_active",
                    &[("state", "action_needed")],
                    1,
                );
                line(
                    w,
                    "splice_sv_vote_requests_active",
                    &[("state", "voted")],
                    2,
                );
                self.triggers(w, now, up, true);
                ingested(w, "dso", now);
            }
            "scan" => {
                self.triggers(w, now, up, false);
                ingested(w, "scan", now);
                // A histogram and a NaN, as real endpoints export them.
                help(
                    w,
                    "splice_scan_request_duration_seconds",
                    "histogram",
                    "Request durations.",
                );
                for (le, n) in [
                    ("0.05", up / SECOND),
                    ("1", up / SECOND + 3),
                    ("+Inf", up / SECOND + 4),
                ] {
                    line(
                        w,
                        "splice_scan_request_duration_seconds_bucket",
                        &[("le", le)],
                        n,
                    );
                }
                line(
                    w,
                    "splice_scan_request_duration_seconds_sum",
                    &[],
                    up / SECOND / 20,
                );
                line(
                    w,
                    "splice_scan_request_duration_seconds_count",
                    &[],
                    up / SECOND + 4,
                );
                let _ = writeln!(w, "splice_scan_cache_hit_ratio NaN");
            }
            "validator" => {
                help(
                    w,
                    "splice_validator_scan_bft_per_connection_consensus_total",
                    "counter",
                    "BFT scan reads per connection.",
                );
                for url in scan_urls {
                    for (consensus, success, per) in [
                        ("agree", "true", 2),
                        ("disagree", "true", 0),
                        ("agree", "false", 0),
                    ] {
                        let n = if per == 0 { 0 } else { up / (per * SECOND) };
                        line(
                            w,
                            "splice_validator_scan_bft_per_connection_consensus_total",
                            &[
                                ("scan_connection", url),
                                ("request", "listDsoScans"),
                                ("consensus", consensus),
                                ("success", success),
                            ],
                            n,
                        );
                    }
                    line(
                        w,
                        "splice_validator_scan_bft_per_connection_consensus_total",
                        &[
                            ("scan_connection", url),
                            ("request", "getOpenAndIssuingMiningRounds"),
                            ("consensus", "disagree"),
                            ("success", "true"),
                        ],
                        up / (30 * SECOND),
                    );
                }
                self.triggers(w, now, up, false);
                ingested(w, "validator", now);
            }
            "participant" => {
                sequencing_time(w, sequencing, "participant");
                help(
                    w,
                    "daml_participant_sync_commitments_last_locally_checkpointed",
                    "gauge",
                    "When ACS commitments were last checkpointed (µs).",
                );
                line(
                    w,
                    "daml_participant_sync_commitments_last_locally_checkpointed",
                    &[],
                    now - MINUTE,
                );
                help(
                    w,
                    "daml_sequencer_client_traffic_control_extra_traffic_purchased",
                    "gauge",
                    "Extra traffic bought.",
                );
                line(
                    w,
                    "daml_sequencer_client_traffic_control_extra_traffic_purchased",
                    &[("member", participant)],
                    10_000_000_000,
                );
                help(
                    w,
                    "daml_sequencer_client_traffic_control_extra_traffic_consumed",
                    "gauge",
                    "Extra traffic used.",
                );
                line(
                    w,
                    "daml_sequencer_client_traffic_control_extra_traffic_consumed",
                    &[("member", participant)],
                    2_000_000_000 + up / SECOND * 100,
                );
            }
            "sequencer" => {
                help(
                    w,
                    "daml_sequencer_block_acknowledgments_micros",
                    "gauge",
                    "Each member's last acknowledgement.",
                );
                line(
                    w,
                    "daml_sequencer_block_acknowledgments_micros",
                    &[("member", &mediator)],
                    now - 2 * SECOND,
                );
                line(
                    w,
                    "daml_sequencer_block_acknowledgments_micros",
                    &[("member", participant)],
                    now - 3 * SECOND,
                );
                help(
                    w,
                    "cometbft_consensus_height",
                    "gauge",
                    "CometBFT block height.",
                );
                line(
                    w,
                    "cometbft_consensus_height",
                    &[],
                    (now - 1_700_000_000 * SECOND) / SECOND,
                );
            }
            "mediator" => {
                sequencing_time(w, sequencing, "mediator");
                help(
                    w,
                    "daml_mediator_timeout_non_responsive_participants_total",
                    "counter",
                    "Confirmation requests that timed out, by party.",
                );
                line(
                    w,
                    "daml_mediator_timeout_non_responsive_participants_total",
                    &[("party", dso)],
                    0,
                );
            }
            _ => return None,
        }
        Some(out)
    }

    fn triggers(&self, w: &mut String, now: i64, up: i64, with_failures: bool) {
        help(
            w,
            "splice_trigger_completed_total",
            "counter",
            "Completed automation tasks by outcome.",
        );
        line(
            w,
            "splice_trigger_completed_total",
            &[("trigger", "Reconcile"), ("outcome", "success")],
            up / (5 * SECOND),
        );
        let failures = if with_failures { self.failures(now) } else { 0 };
        line(
            w,
            "splice_trigger_completed_total",
            &[("trigger", "Reconcile"), ("outcome", "failure")],
            failures,
        );
    }
}

fn help(w: &mut String, name: &str, kind: &str, text: &str) {
    let _ = writeln!(w, "# HELP {name} {text}\n# TYPE {name} {kind}");
}

fn line(w: &mut String, name: &str, labels: &[(&str, &str)], value: i64) {
    w.push_str(name);
    if !labels.is_empty() {
        w.push('{');
        for (index, (key, text)) in labels.iter().enumerate() {
            if index > 0 {
                w.push(',');
            }
            let escaped = text
                .replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n");
            let _ = write!(w, "{key}=\"{escaped}\"");
        }
        w.push('}');
    }
    let _ = writeln!(w, " {value}");
}

fn sequencing_time(w: &mut String, at: i64, node: &str) {
    help(
        w,
        "daml_sequencer_client_handler_last_sequencing_time_micros",
        "gauge",
        "The last sequenced event's time.",
    );
    line(
        w,
        "daml_sequencer_client_handler_last_sequencing_time_micros",
        &[("node", node)],
        at,
    );
}

fn ingested(w: &mut String, store: &str, now: i64) {
    help(
        w,
        "splice_store_last_ingested_record_time_ms",
        "gauge",
        "A store's newest ingested record time (ms).",
    );
    line(
        w,
        "splice_store_last_ingested_record_time_ms",
        &[("store", store)],
        now / 1000 - 2000,
    );
}
