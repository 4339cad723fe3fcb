//! The event history item (`GET /v0/events/{update_id}`): an update with its mediator verdict,
//! traffic summary and app activity records.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::api::call::{Call, Group, Method, ResponseParts, decode_json, encode_segment};
use crate::api::error::ApiError;
use crate::api::json::{int, nd, opt_int, raw_backed, string_enum};

use super::updates::opt_update_item;
use super::{UpdateItem, ValueEncoding, with_encoding};

string_enum! {
    /// `verdict_result`.
    #[derive(Default)]
    pub enum VerdictResult {
        #[default]
        Unspecified = "VERDICT_RESULT_UNSPECIFIED",
        Accepted = "VERDICT_RESULT_ACCEPTED",
        Rejected = "VERDICT_RESULT_REJECTED",
    }
}

/// A confirming-party quorum.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Quorum {
    #[serde(default, deserialize_with = "nd")]
    pub parties: Vec<String>,
    #[serde(default, deserialize_with = "int")]
    pub threshold: i32,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// A transaction view of a verdict.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TransactionView {
    #[serde(default, deserialize_with = "int")]
    pub view_id: i32,
    #[serde(default, deserialize_with = "nd")]
    pub informees: Vec<String>,
    #[serde(default, deserialize_with = "nd")]
    pub confirming_parties: Vec<Quorum>,
    #[serde(default, deserialize_with = "nd")]
    pub sub_views: Vec<i32>,
    /// Empty for older data.
    #[serde(default, deserialize_with = "nd")]
    pub view_hash: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// The views of a verdict and the ids of the root views.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TransactionViews {
    #[serde(default, deserialize_with = "nd")]
    pub views: Vec<TransactionView>,
    #[serde(default, deserialize_with = "nd")]
    pub root_views: Vec<i32>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// A mediator verdict (`EventHistoryVerdict`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Verdict {
    #[serde(default, deserialize_with = "nd")]
    pub update_id: String,
    #[serde(default, deserialize_with = "int")]
    pub migration_id: i64,
    #[serde(default, deserialize_with = "nd")]
    pub domain_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub record_time: String,
    #[serde(default, deserialize_with = "nd")]
    pub finalization_time: String,
    #[serde(default, deserialize_with = "nd")]
    pub submitting_parties: Vec<String>,
    #[serde(default, deserialize_with = "nd")]
    pub submitting_participant_uid: String,
    #[serde(default)]
    pub verdict_result: VerdictResult,
    #[serde(default, deserialize_with = "int")]
    pub mediator_group: i32,
    #[serde(default, deserialize_with = "nd")]
    pub transaction_views: TransactionViews,
    /// The mining round the verdict falls in (Splice 0.8 and later; absent before).
    #[serde(
        default,
        deserialize_with = "opt_int",
        skip_serializing_if = "Option::is_none"
    )]
    pub round_number: Option<i64>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Traffic cost of one envelope, mapped to views.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EnvelopeTrafficSummary {
    #[serde(default, deserialize_with = "int")]
    pub traffic_cost: i64,
    #[serde(default, deserialize_with = "nd")]
    pub view_ids: Vec<i32>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// `traffic_summary` of an event.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TrafficSummary {
    #[serde(default, deserialize_with = "int")]
    pub total_traffic_cost: i64,
    #[serde(default, deserialize_with = "nd")]
    pub envelope_traffic_summaries: Vec<EnvelopeTrafficSummary>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// One party's activity weight.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AppActivityRecord {
    #[serde(default, deserialize_with = "nd")]
    pub party: String,
    #[serde(default, deserialize_with = "int")]
    pub weight: i64,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// `app_activity_records` of an event.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AppActivityRecords {
    #[serde(default, deserialize_with = "int")]
    pub round_number: i64,
    #[serde(default, deserialize_with = "nd")]
    pub records: Vec<AppActivityRecord>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

raw_backed! {
    /// Response of `GET /v0/events/{update_id}`: any combination of update, verdict, traffic
    /// summary and app activity records (each may be absent or null).
    pub struct EventHistoryItem via EventHistoryItemRepr {
        #[serde(default, deserialize_with = "opt_update_item")]
        pub update: Option<UpdateItem>,
        #[serde(default)]
        pub verdict: Option<Verdict>,
        #[serde(default)]
        pub traffic_summary: Option<TrafficSummary>,
        #[serde(default)]
        pub app_activity_records: Option<AppActivityRecords>,
    }
}

fn decode_event(parts: &ResponseParts<'_>) -> Result<EventHistoryItem, ApiError> {
    let item: EventHistoryItem = decode_json(parts)?;
    if let Some(UpdateItem::Malformed { error, .. }) = &item.update {
        return Err(error.decode_error(parts.endpoint));
    }
    Ok(item)
}

/// `GET /v0/events/{update_id}`: update, verdict, traffic summary and app activity of one update.
pub fn event(update_id: &str, encoding: &ValueEncoding) -> Call<EventHistoryItem> {
    with_encoding(
        Call::new(
            "scan GET /v0/events/{update_id}",
            Group::Scan,
            Method::Get,
            format!("/v0/events/{}", encode_segment(update_id)),
            decode_event,
        ),
        encoding,
    )
    .about(update_id)
    .named("event")
}

/// Response of `POST /v0/events`: a page of the event history, in ledger order.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EventsPage {
    #[serde(default)]
    pub events: Vec<EventHistoryItem>,
}

impl EventHistoryItem {
    /// The update id it is about: the update's, else the verdict's.
    pub fn update_id(&self) -> Option<&str> {
        self.update
            .as_ref()
            .and_then(UpdateItem::update_id)
            .or_else(|| self.verdict.as_ref().map(|v| v.update_id.as_str()))
    }
}

/// `POST /v0/events` (Splice 0.8 and later): a page of the event history, each update with its
/// mediator verdict, traffic summary and app activity records, paged as `/v2/updates` is (the
/// same request body), up to the scan's verdict ingestion head
/// (`/v0/events/latest-record-time`). An older scan answers 404.
pub fn events(req: &super::UpdatesRequest) -> Call<EventsPage> {
    Group::Scan
        .post("scan POST /v0/events", "/v0/events", req)
        .named("events")
}
