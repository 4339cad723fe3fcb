//! My node, as the app owns it: the operator's own metrics scraped every `metrics_refresh`
//! (`Request::NodeMetrics`), each scrape judged by the rules of `model::metrics` against the
//! samples kept from the scrapes before. A pure state machine like the network watch: it takes
//! the clock and replies, and returns requests as data; the Status card only reads it.

use crate::model::metrics::{AlertRules, RuleState, SampleSet, Scrape, Severity, evaluate};
use crate::msg::{Fetched, Owner, Request, RequestId, RequestIds};

/// The operator's own node, as last scraped and judged.
#[derive(Debug, Clone, Default)]
pub struct NodeWatch {
    /// The rules' thresholds (the profile's).
    pub rules: AlertRules,
    /// Every rule's row, as last judged.
    pub rows: Vec<RuleState>,
    /// `(endpoint, error)` of the endpoints that did not answer the last scrape.
    pub unreachable: Vec<(String, String)>,
    /// When the last scrape was judged (µs).
    pub at: Option<i64>,
    /// Why the last scrape failed as a whole, while it did.
    pub error: Option<String>,
    /// Bumped by every judged scrape.
    pub epoch: u64,
    kept: Option<SampleSet>,
    pending: Option<RequestId>,
    started_at: Option<i64>,
    interval_us: i64,
    enabled: bool,
}

impl NodeWatch {
    /// A watch scraping every `interval_us` when `enabled` (metrics or a Prometheus are
    /// configured).
    pub fn new(rules: AlertRules, interval_us: i64, enabled: bool) -> Self {
        NodeWatch {
            rules,
            interval_us: interval_us.max(1_000_000),
            enabled,
            ..NodeWatch::default()
        }
    }

    /// Whether the node's metrics are read at all.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Whether a scrape is running.
    pub fn is_scraping(&self) -> bool {
        self.pending.is_some()
    }

    /// The worst firing severity of the last judgement.
    pub fn worst(&self) -> Option<Severity> {
        crate::model::metrics::worst_firing(&self.rows)
    }

    /// The scrape due at `now`, if one is (its id from `ids`).
    pub fn tick(&mut self, now: i64, ids: &mut RequestIds) -> Option<(RequestId, Request)> {
        let due = self.started_at.is_none_or(|t| now - t >= self.interval_us);
        if !self.enabled || self.pending.is_some() || !due {
            return None;
        }
        let id = ids.next(Owner::Health);
        self.pending = Some(id);
        self.started_at = Some(now);
        Some((id, Request::NodeMetrics { now }))
    }

    /// Whether `id` is the scrape in flight.
    pub fn owns(&self, id: RequestId) -> bool {
        self.pending == Some(id)
    }

    /// The scrape's reply: judged against the samples kept before. Returns whether it was
    /// this watch's.
    pub fn on_reply(&mut self, reply: &Fetched, now: i64) -> bool {
        if self.pending != Some(reply.id) {
            return false;
        }
        self.pending = None;
        match reply.result.as_ref().map(|r| r.node_metrics()) {
            Ok(Some(scrapes)) => {
                let at = match &reply.request {
                    Request::NodeMetrics { now } => *now,
                    _ => now,
                };
                self.judge(scrapes, at);
            }
            Ok(None) => self.error = Some("unexpected answer to the metrics scrape".into()),
            Err(e) => self.error = Some(e.to_string()),
        }
        true
    }

    /// Judges `scrapes` read at `at` (µs) against what was kept; keeps their samples.
    pub fn judge(&mut self, scrapes: &[Scrape], at: i64) {
        let (rows, kept) = evaluate(&self.rules, scrapes, self.kept.as_ref(), at);
        self.rows = rows;
        self.kept = Some(kept);
        self.unreachable = crate::model::metrics::unreachable(scrapes);
        self.at = Some(at);
        self.error = None;
        self.epoch += 1;
    }
}
