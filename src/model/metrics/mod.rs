//! My node: the operator's own Prometheus metrics judged by Digital Asset's alert rules for SV
//! clusters (and the validator docs' ingestion lag, and the profile's traffic thresholds).
//!
//! Pure: the exposition reader (`parse`), the rule table (`rules`), and [`evaluate`], which takes
//! the scrapes of one moment, the [`SampleSet`] kept from before (the previous run's, under the
//! data directory, or the explorer's previous scrape) and the time, and says per rule and subject
//! whether it fires, since when, on which value against which threshold, or why it cannot say.
//!
//! ```text
//! scrapes (endpoint, at, samples | error) ─┐
//! previous SampleSet (counters' points,    ├─► evaluate ─► Vec<RuleState> + next SampleSet
//!   levels' changes, firing since) ────────┘
//! ```
//!
//! One run judges what one run can see: an age fires when age > threshold + the rule's `for`
//! (the condition has then held for `for`, and it fires since `time + threshold + for`); a level
//! (round number, block height) fires when unchanged for longer than its window, counted from
//! the change a previous sample saw; a counter rule compares with the oldest kept point inside
//! its window. Without such a point the rule is `not determined`, named, never a finding. A
//! metric no endpoint exports is `not exported`, never a zero.

pub mod rules;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The text exposition reader (a wire format: it lives with the client, in `api`).
pub use crate::api::metrics::exposition as parse;
pub use crate::api::metrics::{Exposition, Limits, Sample, Scrape};
pub use rules::{AlertRules, RuleId, Source, evaluate};

/// How bad a firing rule is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth a look.
    Warning,
    /// Page someone.
    Critical,
}

/// What a rule says about one subject.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum AlertState {
    /// Past its threshold.
    Firing {
        /// How bad.
        severity: Severity,
    },
    /// Within its threshold.
    Ok,
    /// Shown for information (votes needing action): never fires.
    Info,
    /// No configured endpoint exports the metric.
    NotExported,
    /// The metric is there but one run cannot judge it (no earlier sample in the window, no
    /// value yet).
    NotDetermined {
        /// Why, in words.
        why: String,
    },
}

impl AlertState {
    /// Whether the rule fires.
    pub fn is_firing(&self) -> bool {
        matches!(self, AlertState::Firing { .. })
    }

    /// A short word for tables: `CRITICAL`, `WARNING`, `ok`, `info`, `not exported`,
    /// `not determined`.
    pub fn word(&self) -> &'static str {
        match self {
            AlertState::Firing {
                severity: Severity::Critical,
            } => "CRITICAL",
            AlertState::Firing {
                severity: Severity::Warning,
            } => "WARNING",
            AlertState::Ok => "ok",
            AlertState::Info => "info",
            AlertState::NotExported => "not exported",
            AlertState::NotDetermined { .. } => "not determined",
        }
    }
}

/// One rule's verdict on one subject (a scan connection, an endpoint, a store), as the card,
/// the view and `check` show it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuleState {
    /// Which rule.
    pub id: RuleId,
    /// The rule's title (`sequencer client delay`).
    pub title: String,
    /// What it is about, when a rule has several rows (`scan connection https://…`,
    /// `participant`); `None` for the node as a whole.
    pub subject: Option<String>,
    /// The verdict.
    #[serde(flatten)]
    pub state: AlertState,
    /// The value judged, in words (`42s`, `12.5 %`, `round 1234`); `None` when there is none.
    pub value: Option<String>,
    /// The threshold in words (`> 90s for 5m`).
    pub threshold: String,
    /// Since when it fires, µs since the epoch (only when firing and known).
    pub since_us: Option<i64>,
    /// Where the default threshold comes from.
    pub source: Source,
    /// The expression the rule reads (PromQL-like text, for the on-call reader).
    pub expression: String,
}

/// `(endpoint, error)` of each scrape of `scrapes` that failed.
pub fn unreachable(scrapes: &[Scrape]) -> Vec<(String, String)> {
    scrapes
        .iter()
        .filter_map(|s| {
            s.result
                .as_ref()
                .err()
                .map(|e| (s.endpoint.clone(), e.clone()))
        })
        .collect()
}

/// The worst severity among the firing rules of `rules` (`None` when none fires): what the
/// explorer's card and `check` headline.
pub fn worst_firing(rules: &[RuleState]) -> Option<Severity> {
    rules
        .iter()
        .filter_map(|r| match r.state {
            AlertState::Firing { severity } => Some(severity),
            _ => None,
        })
        .max()
}

/// What is kept between runs (and between the explorer's scrapes): the counters' recent points,
/// when each level (round, height) last changed, and since when each rule fires. Serialized as
/// JSON under the data directory by `check` ([`SampleSet::FILE_NAME`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SampleSet {
    /// When the newest scrape was read, µs since the epoch.
    pub at_us: i64,
    /// Counter series (`endpoint|name|labels`) → points `(at µs, value)`, oldest first, at
    /// most one a minute but the newest, none older than the longest window.
    pub counters: BTreeMap<String, Vec<(i64, f64)>>,
    /// Level series → the level, when it was seen to change (or first seen), and whether a
    /// change was seen (else the time is only when it was first seen).
    pub levels: BTreeMap<String, Level>,
    /// Rule row key (`rule|subject`) → since when it fires (µs).
    pub firing: BTreeMap<String, i64>,
}

/// A level series' memory.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Level {
    /// The value.
    pub value: f64,
    /// When it changed to this value (or was first seen at it).
    pub since_us: i64,
    /// Whether the change itself was seen (`since_us` is then when the value changed, within a
    /// scrape interval).
    pub changed: bool,
}

impl SampleSet {
    /// The file `check` keeps it in, under `<data dir>/node-alerts/<profile>.json`.
    pub const FILE_NAME: &'static str = "node-alerts";

    /// Reads a kept sample set; `None` when the text is not one (an old or damaged file counts
    /// as no previous run).
    pub fn from_json(text: &str) -> Option<SampleSet> {
        serde_json::from_str(text).ok()
    }

    /// The JSON kept on disk.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_owned())
    }
}

/// The identity of a series within one endpoint: `endpoint|name|k="v",…`.
pub(crate) fn series_key(endpoint: &str, sample: &Sample) -> String {
    let mut key = format!("{endpoint}|{}|", sample.name);
    for (index, (name, value)) in sample.labels.iter().enumerate() {
        if index > 0 {
            key.push(',');
        }
        key.push_str(name);
        key.push_str("=\"");
        key.push_str(&value.escape_default().to_string());
        key.push('"');
    }
    key
}

/// Reads one endpoint's exposition into a [`Scrape`].
pub fn scrape_of(endpoint: &str, at_us: i64, body: &str) -> Scrape {
    Scrape {
        endpoint: endpoint.to_owned(),
        at_us,
        result: Ok(parse::parse(body).samples),
    }
}

/// The findings my node's rules make: a firing rule (per subject) opens a `node alert`
/// finding, a rule judged within its threshold clears its own (a rule not exported or not
/// determined leaves it as it is). The finding's subject is `rule:<title>[ · subject]`.
pub fn alert_ops(
    rows: &[RuleState],
    book: &crate::model::findings::FindingsBook,
) -> Vec<crate::model::findings::FindingOp> {
    use crate::model::findings::{FindingKind, FindingOp, FoundBy};
    let mut ops = Vec::new();
    for row in rows {
        let key = match &row.subject {
            Some(subject) => format!("rule:{} · {subject}", row.title),
            None => format!("rule:{}", row.title),
        };
        let open = book
            .open()
            .any(|f| f.kind == FindingKind::NodeAlert && f.subject == key);
        match &row.state {
            AlertState::Firing { .. } => {
                let name = key.trim_start_matches("rule:").to_owned();
                ops.push(FindingOp::open(
                    FindingKind::NodeAlert,
                    (&key, &name),
                    FoundBy::Rules,
                    format!(
                        "{}{} ({}; {})",
                        row.value
                            .as_deref()
                            .map(|v| format!("{v} "))
                            .unwrap_or_default(),
                        row.threshold,
                        row.source.as_str(),
                        row.expression
                    ),
                ));
            }
            AlertState::Ok if open => ops.push(FindingOp::clear(
                FindingKind::NodeAlert,
                &key,
                "within its threshold again",
            )),
            _ => {}
        }
    }
    ops
}
