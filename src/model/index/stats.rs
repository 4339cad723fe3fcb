//! `index stats`, pure parts: what one kept update counts for in a day's figures
//! ([`DayFigures`]), and the figures of a range ([`StatsRow`]: a day's, or the totals).
//!
//! Read from the kept bodies (`/v2/updates` items) and the kept events' traffic summaries:
//! - **updates**: every update recorded that day (UTC);
//! - **transfers**: every `AmuletRules_Transfer` exercised (nested ones too, as the History
//!   summary finds them: [`TRANSFER_CHOICE`]); **volume** the exact sum of their outputs'
//!   amounts (Amulet);
//! - **active parties**: the distinct acting parties of the exercised events;
//! - **validators**: the distinct validators that recorded activity: the `validator` of a
//!   `ValidatorLicense`, `ValidatorFaucetCoupon` or `ValidatorLivenessActivityRecord` created
//!   (a license is created anew when its validator collects a faucet coupon or records its
//!   liveness; onboarding creates the first);
//! - **vote requests**: `DsoRules_RequestVote` exercised; **vote results**:
//!   `DsoRules_CloseVoteRequest` exercised;
//! - **traffic cost**: the sum of the kept events' `traffic_summary.total_traffic_cost`.
//!
//! Untrusted input: a body or a part that does not have the expected shape counts as an update
//! and nothing more.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::api::RawJson;
use crate::api::scan::{TreeEvent, UpdateItem};

use crate::model::amount::Amount;
use crate::model::summary_telling::TRANSFER_CHOICE;

/// A day in µs.
pub const DAY_MICROS: i64 = 86_400_000_000;

/// The choice that asks the SVs to vote.
pub const VOTE_REQUEST_CHOICE: &str = "DsoRules_RequestVote";
/// The choice that closes a vote request with its outcome.
pub const VOTE_RESULT_CHOICE: &str = "DsoRules_CloseVoteRequest";
/// The templates (`Module:Entity`) whose creation names a validator that recorded activity.
pub const VALIDATOR_TEMPLATES: [&str; 3] = [
    "Splice.ValidatorLicense:ValidatorLicense",
    "Splice.ValidatorLicense:ValidatorFaucetCoupon",
    "Splice.ValidatorLicense:ValidatorLivenessActivityRecord",
];

/// The kind of a distinct name a day keeps (the store's code).
pub const ACTOR_PARTY: i64 = 1;
pub const ACTOR_VALIDATOR: i64 = 2;

/// The UTC day (days since 1970-01-01) of a record time in µs.
pub fn day_of(micros: i64) -> i64 {
    micros.div_euclid(DAY_MICROS)
}

/// A day as `YYYY-MM-DD`.
pub fn day_text(day: i64) -> String {
    chrono::DateTime::<chrono::Utc>::from_timestamp_micros(day.saturating_mul(DAY_MICROS))
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_default()
}

/// A day from `YYYY-MM-DD`, or from an RFC 3339 time (the day it falls on, UTC).
pub fn parse_day(text: &str) -> Option<i64> {
    let text = text.trim();
    if let Ok(date) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return Some(day_of(
            date.and_hms_opt(0, 0, 0)?.and_utc().timestamp_micros(),
        ));
    }
    super::super::format::parse_time_micros(text).map(day_of)
}

/// One day's figures, counted from its updates (the names kept whole, for the distinct counts
/// of a range).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayFigures {
    pub day: i64,
    /// The updates counted.
    pub updates: i64,
    /// Those of them kept with their body (the figures below but traffic come from bodies).
    pub bodies: i64,
    /// Those of them kept with their events (traffic comes from those).
    pub events: i64,
    pub transfers: i64,
    pub volume: Amount,
    pub traffic_cost: i64,
    pub vote_requests: i64,
    pub vote_results: i64,
    pub parties: BTreeSet<String>,
    pub validators: BTreeSet<String>,
}

/// The parts of a transfer's argument the volume reads.
#[derive(serde::Deserialize)]
struct TransferArg {
    transfer: TransferBody,
}

#[derive(serde::Deserialize)]
struct TransferBody {
    #[serde(default)]
    outputs: Vec<TransferOutput>,
}

#[derive(serde::Deserialize)]
struct TransferOutput {
    amount: String,
}

#[derive(serde::Deserialize)]
struct ValidatorArg {
    validator: String,
}

#[derive(serde::Deserialize)]
struct TrafficSummary {
    total_traffic_cost: i64,
}

/// Whether `template_id` (`package:Module:Entity`) is `module_entity` in any package.
fn is_template(template_id: &str, module_entity: &str) -> bool {
    template_id
        .strip_suffix(module_entity)
        .is_some_and(|head| head.is_empty() || head.ends_with(':'))
}

impl DayFigures {
    /// An empty day.
    pub fn new(day: i64) -> DayFigures {
        DayFigures {
            day,
            updates: 0,
            bodies: 0,
            events: 0,
            transfers: 0,
            volume: Amount::ZERO,
            traffic_cost: 0,
            vote_requests: 0,
            vote_results: 0,
            parties: BTreeSet::new(),
            validators: BTreeSet::new(),
        }
    }

    /// Counts one update: its body (the `/v2/updates` item as kept; `None`: kept without) and
    /// its kept traffic summary (`Some(None)`: events kept, no traffic summary served; `None`:
    /// events not synced yet).
    pub fn count(&mut self, body: Option<&str>, traffic_summary: Option<Option<&str>>) {
        self.updates += 1;
        if let Some(traffic) = traffic_summary {
            self.events += 1;
            if let Some(cost) = traffic
                .and_then(|t| serde_json::from_str::<TrafficSummary>(t).ok())
                .map(|t| t.total_traffic_cost)
            {
                self.traffic_cost = self.traffic_cost.saturating_add(cost);
            }
        }
        let Some(body) = body else {
            return;
        };
        self.bodies += 1;
        let Ok(raw) = RawJson::from_string(body.to_owned()) else {
            return;
        };
        let item = UpdateItem::from_raw(raw, ".");
        let Some(tx) = item.as_transaction() else {
            return;
        };
        for node in tx.walk() {
            match node.event {
                Some(TreeEvent::Exercised(e)) => {
                    self.parties.extend(e.acting_parties.iter().cloned());
                    if e.choice == TRANSFER_CHOICE {
                        self.transfer(e.choice_argument.get());
                    } else if e.choice == VOTE_REQUEST_CHOICE {
                        self.vote_requests += 1;
                    } else if e.choice == VOTE_RESULT_CHOICE {
                        self.vote_results += 1;
                    }
                }
                Some(TreeEvent::Created(c))
                    if VALIDATOR_TEMPLATES
                        .iter()
                        .any(|t| is_template(&c.template_id, t)) =>
                {
                    if let Ok(arg) = serde_json::from_str::<ValidatorArg>(c.create_arguments.get())
                    {
                        self.validators.insert(arg.validator);
                    }
                }
                _ => {}
            }
        }
    }

    /// A transfer and its outputs' amounts (an output whose amount does not read, or a sum
    /// that does not fit, adds nothing to the volume).
    fn transfer(&mut self, argument: &str) {
        self.transfers += 1;
        let Ok(arg) = serde_json::from_str::<TransferArg>(argument) else {
            return;
        };
        for output in arg.transfer.outputs {
            if let Some(sum) =
                Amount::parse(&output.amount).and_then(|a| self.volume.checked_add(a))
            {
                self.volume = sum;
            }
        }
    }

    /// The day's row (its distinct counts).
    pub fn row(&self) -> StatsRow {
        StatsRow {
            day: Some(day_text(self.day)),
            updates: self.updates,
            updates_with_bodies: self.bodies,
            updates_with_events: self.events,
            transfers: self.transfers,
            volume: self.volume.plain(),
            active_parties: self.parties.len() as i64,
            validators: self.validators.len() as i64,
            vote_requests: self.vote_requests,
            vote_results: self.vote_results,
            traffic_cost: self.traffic_cost,
        }
    }
}

/// The figures of a day (`day` set) or of a range (the totals: the distinct counts over the
/// whole range, not the days' sum), as `index stats` writes them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StatsRow {
    /// `YYYY-MM-DD` (UTC); absent in the totals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub day: Option<String>,
    pub updates: i64,
    pub transfers: i64,
    /// Amulet, exact (plain decimal text).
    pub volume: String,
    pub active_parties: i64,
    pub validators: i64,
    pub vote_requests: i64,
    pub vote_results: i64,
    pub traffic_cost: i64,
    /// The updates kept with their body: the figures above but traffic cost count those.
    pub updates_with_bodies: i64,
    /// The updates kept with their events: the traffic cost counts those.
    pub updates_with_events: i64,
}

impl StatsRow {
    /// The sums of `days` with the distinct counts given (`parties`, `validators` over the
    /// range).
    pub fn totals(days: &[StatsRow], parties: i64, validators: i64) -> StatsRow {
        let mut volume = Amount::ZERO;
        let mut total = StatsRow {
            active_parties: parties,
            validators,
            ..StatsRow::default()
        };
        for d in days {
            total.updates += d.updates;
            total.transfers += d.transfers;
            if let Some(sum) = Amount::parse(&d.volume).and_then(|v| volume.checked_add(v)) {
                volume = sum;
            }
            total.vote_requests += d.vote_requests;
            total.vote_results += d.vote_results;
            total.traffic_cost = total.traffic_cost.saturating_add(d.traffic_cost);
            total.updates_with_bodies += d.updates_with_bodies;
            total.updates_with_events += d.updates_with_events;
        }
        total.volume = volume.plain();
        total
    }
}

/// The CSV header of [`StatsRow`]s ([`StatsRow::csv`]).
pub const CSV_HEADER: &str = "day,updates,transfers,volume,active_parties,validators,vote_requests,vote_results,traffic_cost,updates_with_bodies,updates_with_events";

impl StatsRow {
    /// The row as a CSV line (no field needs quoting: a date and numbers); the totals' day
    /// reads `total`.
    pub fn csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{},{}",
            self.day.as_deref().unwrap_or("total"),
            self.updates,
            self.transfers,
            self.volume,
            self.active_parties,
            self.validators,
            self.vote_requests,
            self.vote_results,
            self.traffic_cost,
            self.updates_with_bodies,
            self.updates_with_events
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_read_and_write_in_utc() {
        let day = parse_day("2026-12-02").unwrap();
        assert_eq!(day_text(day), "2026-12-02");
        assert_eq!(parse_day("2026-12-02T23:59:59Z"), Some(day));
        assert_eq!(parse_day("2026-12-03T00:00:00+01:00"), Some(day));
        assert_eq!(parse_day("soon"), None);
        assert_eq!(day_of(-1), -1);
    }

    #[test]
    fn an_update_counts_its_transfers_votes_validators_and_traffic() {
        let body = serde_json::json!({
            "update_id": "u1", "migration_id": 1, "record_time": "2026-12-02T10:00:00Z",
            "synchronizer_id": "s", "effective_at": "2026-12-02T10:00:00Z", "workflow_id": "",
            "root_event_ids": ["#u1:0"],
            "events_by_id": {
                "#u1:0": {"event_type": "exercised_event", "event_id": "#u1:0", "contract_id": "c0",
                    "template_id": "p:Splice.AmuletRules:AmuletRules", "package_name": "splice-amulet",
                    "choice": "AmuletRules_Transfer", "consuming": false, "acting_parties": ["alice"],
                    "choice_argument": {"transfer": {"sender": "alice", "outputs": [
                        {"receiver": "bob", "amount": "10.5000000000"},
                        {"receiver": "carol", "amount": "0.25"}]}},
                    "child_event_ids": ["#u1:1", "#u1:2"], "exercise_result": {}},
                "#u1:1": {"event_type": "created_event", "event_id": "#u1:1", "contract_id": "c1",
                    "template_id": "p:Splice.ValidatorLicense:ValidatorLicense", "package_name": "splice-amulet",
                    "create_arguments": {"validator": "val-1"}, "created_at": "2026-12-02T10:00:00Z",
                    "signatories": [], "observers": []},
                "#u1:2": {"event_type": "exercised_event", "event_id": "#u1:2", "contract_id": "c2",
                    "template_id": "p:Splice.DsoRules:DsoRules", "package_name": "splice-dso-governance",
                    "choice": "DsoRules_CloseVoteRequest", "consuming": false, "acting_parties": ["dso"],
                    "choice_argument": {}, "child_event_ids": [], "exercise_result": {}}
            }
        })
        .to_string();
        let mut day = DayFigures::new(7);
        day.count(Some(&body), Some(Some(r#"{"total_traffic_cost": 1200}"#)));
        day.count(None, Some(None));
        day.count(Some("not json"), None);
        let row = day.row();
        assert_eq!(
            (
                row.updates,
                row.updates_with_bodies,
                row.updates_with_events
            ),
            (3, 2, 2)
        );
        assert_eq!((row.transfers, row.volume.as_str()), (1, "10.75"));
        assert_eq!((row.vote_requests, row.vote_results), (0, 1));
        assert_eq!((row.active_parties, row.validators), (2, 1));
        assert_eq!(row.traffic_cost, 1200);
        let totals = StatsRow::totals(&[row.clone(), row], 2, 1);
        assert_eq!((totals.updates, totals.volume.as_str()), (6, "21.5"));
        assert_eq!(totals.csv(), "total,6,2,21.5,2,1,0,2,2400,4,4");
    }
}
