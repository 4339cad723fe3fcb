//! The rule table (each signal: its metric, its default threshold and where that default comes
//! from) and [`evaluate`], which judges one moment's scrapes against it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{AlertState, Level, RuleState, Sample, SampleSet, Scrape, Severity, series_key};
use crate::model::format::human_age;

const SECOND: i64 = 1_000_000;
const MINUTE: i64 = 60 * SECOND;

/// The signals, in the order the card lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleId {
    /// The sequencer client's last sequencing time is old.
    SequencerClientDelay,
    /// The mediator's last block acknowledgement is old.
    MediatorAckLag,
    /// No new open or issuing mining round.
    RoundsNotAdvancing,
    /// An SV status report is old.
    StatusReportAge,
    /// A scan connection disagrees with the BFT majority.
    ScanDisagreement,
    /// The mediator timed out waiting for the DSO's confirmations.
    MissedConfirmations,
    /// A store's ingestion is behind.
    IngestionLag,
    /// Automation triggers failed.
    AutomationFailures,
    /// ACS commitments are not being checkpointed.
    AcsCommitments,
    /// Extra traffic running out.
    Traffic,
    /// The ordering layer (CometBFT or CantonBFT) makes no new block.
    OrderingLayer,
    /// Votes waiting for this SV.
    VotesNeedingAction,
}

/// Where a rule's default threshold comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    /// Digital Asset's alert rules for SV clusters (Splice's Grafana alerting).
    #[serde(rename = "DA rule")]
    DaRule,
    /// The Splice validator documentation.
    #[serde(rename = "validator docs")]
    ValidatorDocs,
    /// This profile's own keys (`traffic_warn_percent`, `traffic_error_percent`).
    #[serde(rename = "the profile")]
    Profile,
    /// No threshold (shown for information).
    #[serde(rename = "-")]
    Nothing,
}

impl Source {
    /// The words the card and the tables show.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::DaRule => "DA rule",
            Source::ValidatorDocs => "validator docs",
            Source::Profile => "the profile",
            Source::Nothing => "-",
        }
    }
}

/// Metric names.
pub mod names {
    /// µs of the sequencer client's last sequenced event.
    pub const SEQUENCING_TIME: &str = "daml_sequencer_client_handler_last_sequencing_time_micros";
    /// µs of each member's last block acknowledgement (label `member`).
    pub const ACKNOWLEDGMENTS: &str = "daml_sequencer_block_acknowledgments_micros";
    /// The newest open mining round the SV app's DSO store saw.
    pub const OPEN_ROUND: &str = "splice_sv_dso_store_latest_open_mining_round";
    /// The newest issuing mining round.
    pub const ISSUING_ROUND: &str = "splice_sv_dso_store_latest_issuing_mining_round";
    /// µs of each SV's newest status report (label `report_publisher`).
    pub const STATUS_REPORT: &str = "splice_sv_status_report_creation_time_us";
    /// BFT scan reads per connection and outcome.
    pub const BFT_CONSENSUS: &str = "splice_validator_scan_bft_per_connection_consensus_total";
    /// Confirmation requests that timed out, per non-responsive party.
    pub const NON_RESPONSIVE: &str = "daml_mediator_timeout_non_responsive_participants_total";
    /// ms of a store's newest ingested record.
    pub const INGESTED: &str = "splice_store_last_ingested_record_time_ms";
    /// Completed automation tasks by outcome.
    pub const TRIGGERS: &str = "splice_trigger_completed_total";
    /// When ACS commitments were last checkpointed locally.
    pub const COMMITMENTS: &str = "daml_participant_sync_commitments_last_locally_checkpointed";
    /// Extra traffic bought.
    pub const TRAFFIC_PURCHASED: &str =
        "daml_sequencer_client_traffic_control_extra_traffic_purchased";
    /// Extra traffic used.
    pub const TRAFFIC_CONSUMED: &str =
        "daml_sequencer_client_traffic_control_extra_traffic_consumed";
    /// Block heights of the ordering layer, CometBFT's and CantonBFT's, whichever is exported.
    pub const ORDERING_HEIGHTS: [&str; 3] = [
        "cometbft_consensus_height",
        "tendermint_consensus_height",
        "daml_sequencer_bftordering_consensus_block_height",
    ];
    /// Open vote requests by state.
    pub const VOTES: &str = "splice_sv_vote_requests_active";

    /// Every metric name the rules read (what a Prometheus query asks for).
    pub fn all() -> Vec<&'static str> {
        let mut all = vec![
            SEQUENCING_TIME,
            ACKNOWLEDGMENTS,
            OPEN_ROUND,
            ISSUING_ROUND,
            STATUS_REPORT,
            BFT_CONSENSUS,
            NON_RESPONSIVE,
            INGESTED,
            TRIGGERS,
            COMMITMENTS,
            TRAFFIC_PURCHASED,
            TRAFFIC_CONSUMED,
            VOTES,
        ];
        all.extend(ORDERING_HEIGHTS);
        all
    }
}

impl RuleId {
    /// Every rule, in the card's order.
    pub const ALL: [RuleId; 12] = [
        RuleId::SequencerClientDelay,
        RuleId::MediatorAckLag,
        RuleId::RoundsNotAdvancing,
        RuleId::StatusReportAge,
        RuleId::ScanDisagreement,
        RuleId::MissedConfirmations,
        RuleId::IngestionLag,
        RuleId::AutomationFailures,
        RuleId::AcsCommitments,
        RuleId::Traffic,
        RuleId::OrderingLayer,
        RuleId::VotesNeedingAction,
    ];

    /// The rule's title.
    pub fn title(self) -> &'static str {
        match self {
            RuleId::SequencerClientDelay => "sequencer client delay",
            RuleId::MediatorAckLag => "mediator acknowledgement lag",
            RuleId::RoundsNotAdvancing => "rounds not advancing",
            RuleId::StatusReportAge => "SV status report age",
            RuleId::ScanDisagreement => "BFT scan disagreement",
            RuleId::MissedConfirmations => "DSO missed confirmations",
            RuleId::IngestionLag => "store ingestion lag",
            RuleId::AutomationFailures => "automation failures",
            RuleId::AcsCommitments => "ACS commitments",
            RuleId::Traffic => "traffic",
            RuleId::OrderingLayer => "ordering layer",
            RuleId::VotesNeedingAction => "votes needing action",
        }
    }

    /// What the rule reads, PromQL-like.
    pub fn expression(self) -> &'static str {
        match self {
            RuleId::SequencerClientDelay => {
                "time() - daml_sequencer_client_handler_last_sequencing_time_micros/1e6"
            }
            RuleId::MediatorAckLag => {
                "time() - max(daml_sequencer_block_acknowledgments_micros{member=~\"MED::.*\"})/1e6"
            }
            RuleId::RoundsNotAdvancing => {
                "changes(splice_sv_dso_store_latest_open_mining_round) (and _issuing_)"
            }
            RuleId::StatusReportAge => {
                "time() - splice_sv_status_report_creation_time_us{report_publisher}/1e6"
            }
            RuleId::ScanDisagreement => {
                "increase(splice_validator_scan_bft_per_connection_consensus_total{consensus=\"disagree\"}) / all, per connection and success (404s, getOpenAndIssuingMiningRounds excluded)"
            }
            RuleId::MissedConfirmations => {
                "increase(daml_mediator_timeout_non_responsive_participants_total{party=~\"DSO::.*\"})"
            }
            RuleId::IngestionLag => "time() - splice_store_last_ingested_record_time_ms/1e3",
            RuleId::AutomationFailures => {
                "increase(splice_trigger_completed_total{outcome=\"failure\"})"
            }
            RuleId::AcsCommitments => {
                "time() - daml_participant_sync_commitments_last_locally_checkpointed"
            }
            RuleId::Traffic => {
                "daml_sequencer_client_traffic_control_extra_traffic_purchased - …_consumed"
            }
            RuleId::OrderingLayer => {
                "changes(cometbft_consensus_height) (or the CantonBFT block height)"
            }
            RuleId::VotesNeedingAction => "splice_sv_vote_requests_active{state=\"action_needed\"}",
        }
    }

    /// Where the default threshold comes from.
    pub fn source(self) -> Source {
        match self {
            RuleId::IngestionLag => Source::ValidatorDocs,
            RuleId::Traffic => Source::Profile,
            RuleId::VotesNeedingAction => Source::Nothing,
            _ => Source::DaRule,
        }
    }

    /// The id as written in JSON and in `[alerts]` keys' documentation.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleId::SequencerClientDelay => "sequencer_client_delay",
            RuleId::MediatorAckLag => "mediator_ack_lag",
            RuleId::RoundsNotAdvancing => "rounds_not_advancing",
            RuleId::StatusReportAge => "status_report_age",
            RuleId::ScanDisagreement => "scan_disagreement",
            RuleId::MissedConfirmations => "missed_confirmations",
            RuleId::IngestionLag => "ingestion_lag",
            RuleId::AutomationFailures => "automation_failures",
            RuleId::AcsCommitments => "acs_commitments",
            RuleId::Traffic => "traffic",
            RuleId::OrderingLayer => "ordering_layer",
            RuleId::VotesNeedingAction => "votes_needing_action",
        }
    }
}

/// The thresholds, windows and `for`s of the rules (µs), each overridable per profile
/// (`[profiles.X.alerts]`).
#[derive(Clone, Debug, PartialEq)]
pub struct AlertRules {
    /// Sequencer client delay threshold (DA: 90 s) …
    pub sequencer_delay_us: i64,
    /// … held for (DA: 5 min).
    pub sequencer_delay_for_us: i64,
    /// Mediator acknowledgement lag threshold (DA: 900 s) …
    pub mediator_lag_us: i64,
    /// … held for (DA: 5 min).
    pub mediator_lag_for_us: i64,
    /// No new round for this long (DA: 30 min).
    pub rounds_window_us: i64,
    /// SV status report age (DA: 300 s).
    pub status_report_age_us: i64,
    /// Share of disagreeing BFT reads, in percent (DA: 10) …
    pub disagreement_percent: f64,
    /// … over this window (DA: 30 min).
    pub disagreement_window_us: i64,
    /// Missed DSO confirmations counted over (DA: 10 min).
    pub missed_confirmations_window_us: i64,
    /// Store ingestion lag (validator docs: 20 min).
    pub ingestion_lag_us: i64,
    /// Automation failures counted over (DA: 10 min).
    pub automation_failures_window_us: i64,
    /// ACS commitment checkpoint age (DA: 2400 s).
    pub acs_commitment_age_us: i64,
    /// No new ordering block for this long (DA: 5 min).
    pub ordering_window_us: i64,
    /// Traffic amber under this share of the purchased extra traffic left (the profile's
    /// `traffic_warn_percent`).
    pub traffic_warn_percent: u32,
    /// … and red under this one (`traffic_error_percent`).
    pub traffic_error_percent: u32,
}

impl Default for AlertRules {
    fn default() -> Self {
        AlertRules {
            sequencer_delay_us: 90 * SECOND,
            sequencer_delay_for_us: 5 * MINUTE,
            mediator_lag_us: 900 * SECOND,
            mediator_lag_for_us: 5 * MINUTE,
            rounds_window_us: 30 * MINUTE,
            status_report_age_us: 300 * SECOND,
            disagreement_percent: 10.0,
            disagreement_window_us: 30 * MINUTE,
            missed_confirmations_window_us: 10 * MINUTE,
            ingestion_lag_us: 20 * MINUTE,
            automation_failures_window_us: 10 * MINUTE,
            acs_commitment_age_us: 2400 * SECOND,
            ordering_window_us: 5 * MINUTE,
            traffic_warn_percent: 20,
            traffic_error_percent: 5,
        }
    }
}

impl AlertRules {
    /// The longest window a counter point is kept for.
    fn longest_window(&self) -> i64 {
        self.disagreement_window_us
            .max(self.missed_confirmations_window_us)
            .max(self.automation_failures_window_us)
    }
}

/// Counter points are kept at most this often (but the newest).
const POINT_SPACING: i64 = MINUTE;
/// Most points kept per counter series.
const MAX_POINTS: usize = 128;

/// Judges the scrapes of one moment (`now_us`) against `rules`, with what was kept from before
/// (`previous`). Returns a row per rule and subject, and the [`SampleSet`] to keep for the next
/// run or scrape.
pub fn evaluate(
    rules: &AlertRules,
    scrapes: &[Scrape],
    previous: Option<&SampleSet>,
    now_us: i64,
) -> (Vec<RuleState>, SampleSet) {
    let mut ctx = Ctx {
        rules,
        scrapes,
        prev: previous,
        now: now_us,
        next: SampleSet {
            at_us: now_us,
            ..SampleSet::default()
        },
        rows: Vec::new(),
    };
    ctx.sequencer_delay();
    ctx.mediator_lag();
    ctx.rounds();
    ctx.status_reports();
    ctx.disagreement();
    ctx.missed_confirmations();
    ctx.ingestion_lag();
    ctx.automation_failures();
    ctx.acs_commitments();
    ctx.traffic();
    ctx.ordering();
    ctx.votes();
    // Since when each firing row fires: the earlier of the rule's own time and the previous
    // run's, else now.
    let mut rows = std::mem::take(&mut ctx.rows);
    for row in &mut rows {
        let key = format!(
            "{}|{}",
            row.id.as_str(),
            row.subject.as_deref().unwrap_or("")
        );
        if row.state.is_firing() {
            // Firing before too: since then (an age that keeps its distance from the clock
            // fires since it first did, not since its sliding time + threshold).
            let before = previous.and_then(|p| p.firing.get(&key).copied());
            let since = match (row.since_us, before) {
                (Some(own), Some(before)) => own.min(before),
                (own, before) => own.or(before).unwrap_or(now_us),
            };
            row.since_us = Some(since);
            ctx.next.firing.insert(key, since);
        } else {
            row.since_us = None;
        }
    }
    (rows, ctx.next)
}

struct Ctx<'a> {
    rules: &'a AlertRules,
    scrapes: &'a [Scrape],
    prev: Option<&'a SampleSet>,
    now: i64,
    next: SampleSet,
    rows: Vec<RuleState>,
}

/// A sample and the endpoint that exported it.
type Found<'a> = (&'a str, &'a Sample);

fn row(
    id: RuleId,
    subject: Option<String>,
    state: AlertState,
    value: Option<String>,
    threshold: String,
) -> RuleState {
    RuleState {
        id,
        title: id.title().to_owned(),
        subject,
        state,
        value,
        threshold,
        since_us: None,
        source: id.source(),
        expression: id.expression().to_owned(),
    }
}

fn not_determined(why: impl Into<String>) -> AlertState {
    AlertState::NotDetermined { why: why.into() }
}

fn firing(severity: Severity) -> AlertState {
    AlertState::Firing { severity }
}

/// A threshold or window as the rules write it: `90s`, `5m`, `2h`, `2400s`.
pub fn span(us: i64) -> String {
    let s = us / SECOND;
    if s >= 3600 && s % 3600 == 0 {
        format!("{}h", s / 3600)
    } else if s >= 60 && s % 60 == 0 && s < 2400 {
        format!("{}m", s / 60)
    } else {
        format!("{s}s")
    }
}

/// A threshold with its `for`: `> 90s for 5m`.
fn above_for(threshold: i64, for_us: i64) -> String {
    if for_us > 0 {
        format!("> {} for {}", span(threshold), span(for_us))
    } else {
        format!("> {}", span(threshold))
    }
}

/// A µs timestamp from a value in µs, ms or s, by its size; `None` for CantonTimestamp's minimum
/// and anything before 2000 (no value yet).
fn epoch_micros_any(value: f64) -> Option<i64> {
    const Y2000_S: f64 = 946_684_800.0;
    if !value.is_finite() {
        return None;
    }
    let micros = if value >= Y2000_S * 1e5 {
        value
    } else if value >= Y2000_S * 1e2 {
        value * 1e3
    } else {
        value * 1e6
    };
    (Y2000_S * 1e6..1e17)
        .contains(&micros)
        .then_some(micros as i64)
}

/// A µs timestamp of a value known to be µs; `None` when it is not a time yet (0, negative, the
/// minimum, NaN).
fn micros_of(value: f64, scale_to_micros: f64) -> Option<i64> {
    let micros = value * scale_to_micros;
    (micros.is_finite() && micros > 946_684_800e6 && micros < 1e17).then_some(micros as i64)
}

fn percent(value: f64) -> String {
    if value >= 10.0 || value == 0.0 {
        format!("{value:.0} %")
    } else {
        format!("{value:.1} %")
    }
}

fn count(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value:.2}")
    }
}

/// The labels of a sample as `k=v, …` without `skip`.
fn labels_text(sample: &Sample, skip: &[&str]) -> String {
    sample
        .labels
        .iter()
        .filter(|(name, _)| !skip.contains(&name.as_str()))
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first label of `names` the sample has.
fn label_any<'s>(sample: &'s Sample, names: &[&str]) -> Option<&'s str> {
    names.iter().find_map(|name| sample.label(name))
}

const CONNECTION_LABELS: [&str; 4] = ["scan_connection", "connection", "scan", "url"];
const REQUEST_LABELS: [&str; 4] = ["request", "request_name", "method", "endpoint"];
const STATUS_LABELS: [&str; 3] = ["status_code", "status", "code"];

impl<'a> Ctx<'a> {
    /// Every sample named `name` of the endpoints that answered.
    fn find(&self, name: &str) -> Vec<Found<'a>> {
        let mut out = Vec::new();
        for scrape in self.scrapes {
            if let Ok(samples) = &scrape.result {
                out.extend(
                    samples
                        .iter()
                        .filter(|s| s.name == name)
                        .map(|s| (scrape.endpoint.as_str(), s)),
                );
            }
        }
        out
    }

    /// The row of a rule whose metric no endpoint that answered exports.
    fn missing(&mut self, id: RuleId, threshold: String) {
        let down: Vec<&str> = self
            .scrapes
            .iter()
            .filter(|s| s.result.is_err())
            .map(|s| s.endpoint.as_str())
            .collect();
        let state = if self.scrapes.is_empty() {
            not_determined("no metrics endpoint configured")
        } else if down.is_empty() {
            AlertState::NotExported
        } else {
            not_determined(format!(
                "not exported by those that answered; unreachable: {}",
                down.join(", ")
            ))
        };
        self.rows.push(row(id, None, state, None, threshold));
    }

    /// An age rule's row: fires when `now - time > threshold + for`, since `time + threshold +
    /// for`.
    fn age_row(
        &mut self,
        id: RuleId,
        subject: Option<String>,
        time_us: i64,
        threshold: i64,
        for_us: i64,
        severity: Severity,
    ) {
        let age = self.now - time_us;
        let fires = age > threshold + for_us;
        let mut r = row(
            id,
            subject,
            if fires {
                firing(severity)
            } else {
                AlertState::Ok
            },
            Some(human_age(age)),
            above_for(threshold, for_us),
        );
        if fires {
            r.since_us = Some(time_us + threshold + for_us);
        }
        self.rows.push(r);
    }

    /// How much a counter series grew within `window` before now, and records its point for the
    /// next run. `Err`: why it cannot say.
    fn increase(&mut self, endpoint: &str, sample: &Sample, window: i64) -> Result<f64, String> {
        let key = series_key(endpoint, sample);
        let before: Vec<(i64, f64)> = self
            .prev
            .and_then(|p| p.counters.get(&key))
            .map(|points| {
                points
                    .iter()
                    .copied()
                    .filter(|(at, _)| *at < self.now)
                    .collect()
            })
            .unwrap_or_default();
        self.record(&key, &before, sample.value);
        if !sample.value.is_finite() {
            return Err(format!("{} is {}", sample.name, sample.value));
        }
        let start = self.now - window;
        let inside: Vec<(i64, f64)> = before
            .iter()
            .copied()
            .filter(|(at, _)| *at >= start)
            .collect();
        let mut points = if inside.is_empty() {
            // A series first seen after a run inside the window started from zero since.
            match self.prev {
                Some(prev) if before.is_empty() && prev.at_us >= start && prev.at_us < self.now => {
                    vec![(prev.at_us, 0.0)]
                }
                _ => {
                    return Err(match (before.last(), self.prev) {
                        (Some((at, _)), _) => format!(
                            "the earlier sample is {} old, older than the {} window",
                            human_age(self.now - at),
                            human_age(window)
                        ),
                        (None, Some(prev)) if prev.at_us < start => format!(
                            "the previous run is {} old, older than the {} window",
                            human_age(self.now - prev.at_us),
                            human_age(window)
                        ),
                        _ => format!("no earlier sample within {}", human_age(window)),
                    });
                }
            }
        } else {
            inside
        };
        points.push((self.now, sample.value));
        let mut total = 0.0;
        for pair in points.windows(2) {
            let (a, b) = (pair[0].1, pair[1].1);
            if !a.is_finite() {
                continue;
            }
            // A counter that went down was reset: it counted `b` since.
            total += if b >= a { b - a } else { b };
        }
        Ok(total)
    }

    /// Keeps a counter point: the earlier points within the longest window (one a minute), and
    /// this one.
    fn record(&mut self, key: &str, before: &[(i64, f64)], value: f64) {
        if self.next.counters.contains_key(key) {
            return;
        }
        let keep_from = self.now - self.rules.longest_window() - 5 * MINUTE;
        let mut points: Vec<(i64, f64)> = before
            .iter()
            .copied()
            .filter(|(at, _)| *at >= keep_from)
            .collect();
        // The newest kept point stands for its minute only when a minute has passed since the
        // one before it.
        if points.len() >= 2 {
            let n = points.len();
            if points[n - 1].0 - points[n - 2].0 < POINT_SPACING {
                points.pop();
            }
        }
        points.push((self.now, value));
        if points.len() > MAX_POINTS {
            let drop = points.len() - MAX_POINTS;
            points.drain(..drop);
        }
        self.next.counters.insert(key.to_owned(), points);
    }

    /// A level series (a round number, a block height): when it last changed.
    fn level(&mut self, key: &str, value: f64) -> Level {
        let prev = self.prev.and_then(|p| p.levels.get(key)).copied();
        let level = match prev {
            Some(p) if p.value.to_bits() == value.to_bits() => p,
            Some(_) => Level {
                value,
                since_us: self.now,
                changed: true,
            },
            None => Level {
                value,
                since_us: self.now,
                changed: false,
            },
        };
        self.next.levels.insert(key.to_owned(), level);
        level
    }

    /// A level's row: fires when unchanged for longer than `window`.
    fn level_row(
        &mut self,
        id: RuleId,
        subject: Option<String>,
        key: &str,
        value: f64,
        what: &str,
        window: i64,
    ) {
        let level = self.level(key, value);
        let age = self.now - level.since_us;
        let threshold = format!("no new {what} in {}", span(window));
        let value_text = format!("{what} {}", count(value));
        let mut r = if age > window {
            let mut r = row(
                id,
                subject,
                firing(Severity::Critical),
                Some(format!("{value_text}, unchanged {}", human_age(age))),
                threshold,
            );
            r.since_us = Some(level.since_us + window);
            r
        } else if level.changed {
            row(
                id,
                subject,
                AlertState::Ok,
                Some(format!("{value_text}, new {} ago", human_age(age))),
                threshold,
            )
        } else {
            row(
                id,
                subject,
                not_determined(format!(
                    "{value_text} seen for {}; no change seen yet",
                    human_age(age)
                )),
                Some(value_text),
                threshold,
            )
        };
        if !value.is_finite() {
            r.state = not_determined(format!("{what} is {value}"));
        }
        self.rows.push(r);
    }

    fn sequencer_delay(&mut self) {
        let id = RuleId::SequencerClientDelay;
        let (threshold, for_us) = (
            self.rules.sequencer_delay_us,
            self.rules.sequencer_delay_for_us,
        );
        let found = self.find(names::SEQUENCING_TIME);
        if found.is_empty() {
            return self.missing(id, above_for(threshold, for_us));
        }
        let per_endpoint = count_by_endpoint(&found);
        for (endpoint, sample) in found {
            let subject = subject_of(endpoint, sample, per_endpoint[endpoint], &[]);
            match micros_of(sample.value, 1.0) {
                Some(time) => self.age_row(
                    id,
                    Some(subject),
                    time,
                    threshold,
                    for_us,
                    Severity::Critical,
                ),
                None => self.rows.push(row(
                    id,
                    Some(subject),
                    not_determined("nothing sequenced yet"),
                    None,
                    above_for(threshold, for_us),
                )),
            }
        }
    }

    fn mediator_lag(&mut self) {
        let id = RuleId::MediatorAckLag;
        let (threshold, for_us) = (self.rules.mediator_lag_us, self.rules.mediator_lag_for_us);
        let found = self.find(names::ACKNOWLEDGMENTS);
        if found.is_empty() {
            return self.missing(id, above_for(threshold, for_us));
        }
        let newest = found
            .iter()
            .filter(|(_, s)| s.label("member").is_some_and(|m| m.starts_with("MED::")))
            .filter_map(|(_, s)| micros_of(s.value, 1.0))
            .max();
        match newest {
            Some(time) => self.age_row(id, None, time, threshold, for_us, Severity::Critical),
            None => self.rows.push(row(
                id,
                None,
                not_determined("no acknowledgement of a mediator (member MED::…) yet"),
                None,
                above_for(threshold, for_us),
            )),
        }
    }

    fn rounds(&mut self) {
        let id = RuleId::RoundsNotAdvancing;
        let window = self.rules.rounds_window_us;
        let open = self.find(names::OPEN_ROUND);
        let issuing = self.find(names::ISSUING_ROUND);
        if open.is_empty() && issuing.is_empty() {
            return self.missing(id, format!("no new round in {}", span(window)));
        }
        for (what, found) in [("open round", open), ("issuing round", issuing)] {
            let Some(newest) = found
                .iter()
                .map(|(_, s)| s.value)
                .filter(|v| v.is_finite())
                .reduce(f64::max)
            else {
                continue;
            };
            let subject = what.split(' ').next().map(str::to_owned);
            self.level_row(id, subject, &format!("rounds|{what}"), newest, what, window);
        }
    }

    fn status_reports(&mut self) {
        let id = RuleId::StatusReportAge;
        let threshold = self.rules.status_report_age_us;
        let found = self.find(names::STATUS_REPORT);
        if found.is_empty() {
            return self.missing(id, above_for(threshold, 0));
        }
        let oldest = found
            .iter()
            .filter_map(|(endpoint, s)| {
                let who = s.label("report_publisher").unwrap_or(endpoint).to_owned();
                micros_of(s.value, 1.0).map(|t| (t, who))
            })
            .min();
        match oldest {
            Some((time, who)) => {
                self.age_row(id, None, time, threshold, 0, Severity::Warning);
                if let Some(last) = self.rows.last_mut()
                    && last.state.is_firing()
                {
                    last.value = last.value.take().map(|v| format!("{v} ({who})"));
                }
            }
            None => self.rows.push(row(
                id,
                None,
                not_determined("no status report yet"),
                None,
                above_for(threshold, 0),
            )),
        }
    }

    fn disagreement(&mut self) {
        let id = RuleId::ScanDisagreement;
        let (limit, window) = (
            self.rules.disagreement_percent,
            self.rules.disagreement_window_us,
        );
        let threshold = format!("> {} over {}", percent(limit), span(window));
        let found = self.find(names::BFT_CONSENSUS);
        if found.is_empty() {
            return self.missing(id, threshold);
        }
        // connection → success → (disagreeing, all) increases, or why not.
        type Tally = BTreeMap<bool, Result<(f64, f64), String>>;
        let mut per_connection: BTreeMap<String, Tally> = BTreeMap::new();
        for (endpoint, sample) in found {
            let increase = self.increase(endpoint, sample, window);
            let excluded = label_any(sample, &REQUEST_LABELS)
                == Some("getOpenAndIssuingMiningRounds")
                || label_any(sample, &STATUS_LABELS) == Some("404");
            if excluded {
                continue;
            }
            let connection = label_any(sample, &CONNECTION_LABELS)
                .unwrap_or(endpoint)
                .to_owned();
            let success = sample.label("success") == Some("true");
            let disagrees = sample.label("consensus") == Some("disagree");
            let slot = per_connection
                .entry(connection)
                .or_default()
                .entry(success)
                .or_insert(Ok((0.0, 0.0)));
            match (slot.as_mut(), increase) {
                (Ok((bad, all)), Ok(by)) => {
                    *all += by;
                    if disagrees {
                        *bad += by;
                    }
                }
                (Ok(_), Err(why)) => *slot = Err(why),
                (Err(_), _) => {}
            }
        }
        for (connection, tally) in per_connection {
            let mut worst: Option<Severity> = None;
            let mut parts = Vec::new();
            let mut why = None;
            for (success, result) in tally.iter().rev() {
                let label = if *success { "successful" } else { "failed" };
                match result {
                    Ok((bad, all)) => {
                        let share = if *all > 0.0 { bad / all * 100.0 } else { 0.0 };
                        parts.push(format!("{} of {label}", percent(share)));
                        if share > limit {
                            let severity = if *success {
                                Severity::Critical
                            } else {
                                Severity::Warning
                            };
                            worst = worst.max(Some(severity));
                        }
                    }
                    Err(reason) => why = Some(reason.clone()),
                }
            }
            let state = match (worst, why) {
                (Some(severity), _) => firing(severity),
                (None, Some(why)) => not_determined(why),
                (None, None) => AlertState::Ok,
            };
            let value = (!parts.is_empty()).then(|| parts.join(", "));
            self.rows
                .push(row(id, Some(connection), state, value, threshold.clone()));
        }
    }

    /// The summed increase of `found` series within `window`, or why not.
    fn summed_increase(&mut self, found: &[Found<'_>], window: i64) -> Result<f64, String> {
        let mut total = Ok(0.0);
        for (endpoint, sample) in found {
            let by = self.increase(endpoint, sample, window);
            total = match (total, by) {
                (Ok(sum), Ok(by)) => Ok(sum + by),
                (Err(why), _) | (Ok(_), Err(why)) => Err(why),
            };
        }
        total
    }

    fn missed_confirmations(&mut self) {
        let id = RuleId::MissedConfirmations;
        let window = self.rules.missed_confirmations_window_us;
        let threshold = format!("> 0 in {}", span(window));
        let found = self.find(names::NON_RESPONSIVE);
        if found.is_empty() {
            return self.missing(id, threshold);
        }
        let dso: Vec<Found<'_>> = found
            .into_iter()
            .filter(|(_, s)| s.label("party").is_some_and(|p| p.starts_with("DSO::")))
            .collect();
        let state_value = match self.summed_increase(&dso, window) {
            Ok(by) if by > 0.0 => (
                firing(Severity::Warning),
                Some(format!("{} in {}", count(by), span(window))),
            ),
            Ok(by) => (AlertState::Ok, Some(count(by))),
            Err(why) => (not_determined(why), None),
        };
        self.rows
            .push(row(id, None, state_value.0, state_value.1, threshold));
    }

    fn ingestion_lag(&mut self) {
        let id = RuleId::IngestionLag;
        let threshold = self.rules.ingestion_lag_us;
        let found = self.find(names::INGESTED);
        if found.is_empty() {
            return self.missing(id, above_for(threshold, 0));
        }
        // The oldest store of each endpoint.
        let mut oldest: BTreeMap<&str, (i64, String)> = BTreeMap::new();
        let mut unset: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
        for (endpoint, sample) in &found {
            match micros_of(sample.value, 1e3) {
                Some(time) => {
                    let store = labels_text(sample, &[]);
                    let entry = oldest.entry(endpoint).or_insert((time, store.clone()));
                    if time < entry.0 {
                        *entry = (time, store);
                    }
                }
                None => {
                    unset.insert(endpoint);
                }
            }
        }
        for endpoint in &unset {
            if !oldest.contains_key(endpoint) {
                self.rows.push(row(
                    id,
                    Some((*endpoint).to_owned()),
                    not_determined("nothing ingested yet"),
                    None,
                    above_for(threshold, 0),
                ));
            }
        }
        for (endpoint, (time, store)) in oldest {
            let subject = if store.is_empty() {
                endpoint.to_owned()
            } else {
                format!("{endpoint} ({store})")
            };
            self.age_row(id, Some(subject), time, threshold, 0, Severity::Warning);
        }
    }

    fn automation_failures(&mut self) {
        let id = RuleId::AutomationFailures;
        let window = self.rules.automation_failures_window_us;
        let threshold = format!("> 0 in {}", span(window));
        let found = self.find(names::TRIGGERS);
        if found.is_empty() {
            return self.missing(id, threshold);
        }
        let mut per_endpoint: BTreeMap<&str, Vec<Found<'_>>> = BTreeMap::new();
        for (endpoint, sample) in found {
            let entry = per_endpoint.entry(endpoint).or_default();
            if sample.label("outcome") == Some("failure") {
                entry.push((endpoint, sample));
            }
        }
        for (endpoint, failures) in per_endpoint {
            let (state, value) = match self.summed_increase(&failures, window) {
                Ok(by) if by > 0.0 => (
                    firing(Severity::Warning),
                    Some(format!("{} in {}", count(by), span(window))),
                ),
                Ok(by) => (AlertState::Ok, Some(count(by))),
                Err(why) => (not_determined(why), None),
            };
            self.rows.push(row(
                id,
                Some(endpoint.to_owned()),
                state,
                value,
                threshold.clone(),
            ));
        }
    }

    fn acs_commitments(&mut self) {
        let id = RuleId::AcsCommitments;
        let threshold = self.rules.acs_commitment_age_us;
        let found = self.find(names::COMMITMENTS);
        if found.is_empty() {
            return self.missing(id, above_for(threshold, 0));
        }
        let per_endpoint = count_by_endpoint(&found);
        for (endpoint, sample) in found {
            let subject = subject_of(endpoint, sample, per_endpoint[endpoint], &[]);
            match epoch_micros_any(sample.value) {
                Some(time) => {
                    self.age_row(id, Some(subject), time, threshold, 0, Severity::Critical);
                }
                None => self.rows.push(row(
                    id,
                    Some(subject),
                    not_determined("no commitment checkpointed yet"),
                    None,
                    above_for(threshold, 0),
                )),
            }
        }
    }

    fn traffic(&mut self) {
        let id = RuleId::Traffic;
        let (warn, error) = (
            self.rules.traffic_warn_percent,
            self.rules.traffic_error_percent,
        );
        let threshold = format!("< {warn} % left (red < {error} %)");
        let purchased = self.find(names::TRAFFIC_PURCHASED);
        let consumed = self.find(names::TRAFFIC_CONSUMED);
        if purchased.is_empty() {
            return self.missing(id, threshold);
        }
        let per_endpoint = count_by_endpoint(&purchased);
        for (endpoint, bought) in purchased {
            let used = consumed
                .iter()
                .find(|(e, s)| *e == endpoint && s.labels == bought.labels)
                .map(|(_, s)| s.value);
            let subject = subject_of(endpoint, bought, per_endpoint[endpoint], &[]);
            let (state, value) = match used {
                None => (not_determined("no extra_traffic_consumed beside it"), None),
                Some(_) if bought.value <= 0.0 || !bought.value.is_finite() => {
                    (not_determined("no extra traffic purchased"), None)
                }
                Some(used) => {
                    let left = (bought.value - used) / bought.value * 100.0;
                    let state = if left < f64::from(error) {
                        firing(Severity::Critical)
                    } else if left < f64::from(warn) {
                        firing(Severity::Warning)
                    } else {
                        AlertState::Ok
                    };
                    (
                        state,
                        Some(format!(
                            "{} left of {}",
                            percent(left.max(0.0)),
                            count(bought.value)
                        )),
                    )
                }
            };
            self.rows
                .push(row(id, Some(subject), state, value, threshold.clone()));
        }
    }

    fn ordering(&mut self) {
        let id = RuleId::OrderingLayer;
        let window = self.rules.ordering_window_us;
        let found: Vec<Found<'a>> = names::ORDERING_HEIGHTS
            .iter()
            .flat_map(|name| self.find(name))
            .collect();
        if found.is_empty() {
            return self.missing(id, format!("no new height in {}", span(window)));
        }
        let per_endpoint = count_by_endpoint(&found);
        for (endpoint, sample) in found {
            let subject = subject_of(endpoint, sample, per_endpoint[endpoint], &[]);
            let key = series_key(endpoint, sample);
            self.level_row(id, Some(subject), &key, sample.value, "height", window);
        }
    }

    fn votes(&mut self) {
        let id = RuleId::VotesNeedingAction;
        let found = self.find(names::VOTES);
        if found.is_empty() {
            return self.missing(id, "-".to_owned());
        }
        let waiting: f64 = found
            .iter()
            .filter(|(_, s)| s.label("state") == Some("action_needed"))
            .map(|(_, s)| s.value)
            .filter(|v| v.is_finite())
            .sum();
        self.rows.push(row(
            id,
            None,
            AlertState::Info,
            Some(count(waiting)),
            "-".to_owned(),
        ));
    }
}

/// How many of `found` each endpoint exported.
fn count_by_endpoint<'a>(found: &[Found<'a>]) -> BTreeMap<&'a str, usize> {
    let mut counts = BTreeMap::new();
    for (endpoint, _) in found {
        *counts.entry(*endpoint).or_insert(0) += 1;
    }
    counts
}

/// A row's subject: the endpoint, with the series' labels when it exports several.
fn subject_of(endpoint: &str, sample: &Sample, in_endpoint: usize, skip: &[&str]) -> String {
    let labels = labels_text(sample, skip);
    if in_endpoint > 1 && !labels.is_empty() {
        format!("{endpoint} ({labels})")
    } else {
        endpoint.to_owned()
    }
}

#[cfg(test)]
mod tests;
