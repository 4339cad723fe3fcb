//! The rule table (each signal: its metric, its default threshold and where that default comes
//! from) and [`evaluate`], which judges one moment's scrapes against it.

use serde::{Deserialize, Serialize};

use super::{RuleState, SampleSet, Scrape};

mod ctx;
mod signals;

use ctx::Ctx;
pub use ctx::span;

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

#[cfg(test)]
mod tests;
