//! Participant ledger group (JSON Ledger API v2, `{ledger_url}/v2`): the models and the
//! [`Call`] constructors. Every call carries the bearer token.
//!
//! Here: the `JsCantonError` error body, parties, users, packages, ledger end, participant id;
//! what the node sends about updates (events, transactions, trees, reassignments, the items of
//! the update stream); interactive-submission execution. In `updates`: the update stream
//! requests (`/v2/updates/trees`, `/v2/updates`), their filters, and trees from the flat
//! ledger-effects shape.

mod updates;

pub use updates::*;

use super::call::{Call, Group, Method, ResponseParts, encode_segment};
use super::error::ApiError;
pub use super::error::JsCantonError;
use super::json::{RawJson, int, nd, one_key_enum, opt_int, raw_backed};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

// ---------------------------------------------------------------------------------------------
// Errors, parties, users, packages, ledger end
// ---------------------------------------------------------------------------------------------

/// Participant-local metadata of a resource.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
    #[serde(default, deserialize_with = "nd")]
    pub annotations: BTreeMap<String, String>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Details of a party.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PartyDetails {
    #[serde(default, deserialize_with = "nd")]
    pub party: String,
    #[serde(default, deserialize_with = "nd")]
    pub is_local: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_metadata: Option<ObjectMeta>,
    /// Unset: default identity provider, or not hosted / outside the user's provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity_provider_id: Option<String>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v2/parties/{party}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PartiesResponse {
    #[serde(default, deserialize_with = "nd")]
    pub party_details: Vec<PartyDetails>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// An empty JSON object answer (e.g. `DELETE /v2/users/{user-id}`); keeps anything sent.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EmptyResponse {
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v2/packages/{package-id}`: the package bytes and its hash header.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Package {
    pub bytes: Vec<u8>,
    /// The `Canton-Package-Hash` header.
    pub package_hash: Option<String>,
    pub content_type: Option<String>,
}

/// Response of `GET /v2/state/ledger-end`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LedgerEnd {
    /// 0 (or absent): the participant's view of the ledger is empty.
    #[serde(
        default,
        deserialize_with = "opt_int",
        skip_serializing_if = "Option::is_none"
    )]
    pub offset: Option<i64>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v2/parties/participant-id`: the id of the participant serving this Ledger
/// API (usually `name::fingerprint`, without the `PAR::` prefix a sequencer member id has).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParticipantIdResponse {
    #[serde(default, deserialize_with = "nd")]
    pub participant_id: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

// A decoder: its signature is the one every call's decoder has, even when it cannot fail.
#[allow(clippy::unnecessary_wraps)]
fn decode_package(parts: &ResponseParts<'_>) -> Result<Package, ApiError> {
    Ok(Package {
        bytes: parts.body.to_vec(),
        package_hash: parts.header("canton-package-hash").map(str::to_owned),
        content_type: parts.header("content-type").map(str::to_owned),
    })
}

/// `GET /v2/parties/{party}` (plus `parties` and `identity-provider-id` query parameters).
pub fn parties(
    party: &str,
    more_parties: &[String],
    identity_provider_id: Option<&str>,
) -> Call<PartiesResponse> {
    let mut call = Group::Ledger.get(
        "ledger GET /v2/parties/{party}",
        format!("/v2/parties/{}", encode_segment(party)),
    );
    if let Some(idp) = identity_provider_id {
        call = call.query("identity-provider-id", idp);
    }
    for p in more_parties {
        call = call.query("parties", p.as_str());
    }
    call.named("ledger parties")
}

/// `GET /v2/parties/participant-id`.
pub fn participant_id() -> Call<ParticipantIdResponse> {
    Group::Ledger
        .get(
            "ledger GET /v2/parties/participant-id",
            "/v2/parties/participant-id",
        )
        .named("ledger participant id")
}

/// `DELETE /v2/users/{user-id}`.
pub fn delete_user(user_id: &str) -> Call<EmptyResponse> {
    Group::Ledger
        .call(
            Method::Delete,
            "ledger DELETE /v2/users/{user-id}",
            format!("/v2/users/{}", encode_segment(user_id)),
        )
        .named("ledger delete user")
}

/// `GET /v2/packages/{package-id}`: raw package bytes and the `Canton-Package-Hash` header.
pub fn package(package_id: &str) -> Call<Package> {
    Call::new(
        "ledger GET /v2/packages/{package-id}",
        Group::Ledger,
        Method::Get,
        format!("/v2/packages/{}", encode_segment(package_id)),
        decode_package,
    )
    .named("ledger package")
}

/// `GET /v2/state/ledger-end`.
pub fn ledger_end() -> Call<LedgerEnd> {
    Group::Ledger
        .get("ledger GET /v2/state/ledger-end", "/v2/state/ledger-end")
        .named("ledger end")
}

// ---------------------------------------------------------------------------------------------
// Events, transactions and the items of the update stream
// ---------------------------------------------------------------------------------------------

/// W3C trace context.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TraceContext {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traceparent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracestate: Option<String>,
}

/// A gRPC-style status.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JsStatus {
    #[serde(default, deserialize_with = "int")]
    pub code: i32,
    #[serde(default, deserialize_with = "nd")]
    pub message: String,
    #[serde(default, deserialize_with = "nd")]
    pub details: Vec<RawJson>,
}

/// An interface view of a created contract.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JsInterfaceView {
    #[serde(default, deserialize_with = "nd")]
    pub interface_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub view_status: JsStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view_value: Option<RawJson>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementation_package_id: Option<String>,
}

/// A ledger created event.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatedEvent {
    #[serde(default, deserialize_with = "int")]
    pub offset: i64,
    #[serde(default, deserialize_with = "int")]
    pub node_id: i32,
    #[serde(default, deserialize_with = "nd")]
    pub contract_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub template_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract_key: Option<RawJson>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract_key_hash: Option<String>,
    #[serde(default)]
    pub create_argument: RawJson,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_event_blob: Option<String>,
    #[serde(default, deserialize_with = "nd")]
    pub interface_views: Vec<JsInterfaceView>,
    #[serde(default, deserialize_with = "nd")]
    pub witness_parties: Vec<String>,
    #[serde(default, deserialize_with = "nd")]
    pub signatories: Vec<String>,
    #[serde(default, deserialize_with = "nd")]
    pub observers: Vec<String>,
    #[serde(default, deserialize_with = "nd")]
    pub created_at: String,
    #[serde(default, deserialize_with = "nd")]
    pub package_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub representative_package_id: Option<String>,
    /// Required from 3.4 on; absent in 3.3-era data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acs_delta: Option<bool>,
}

/// A ledger exercised event. Its subtree is the node ids `node_id + 1 ..= last_descendant_node_id`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExercisedEvent {
    #[serde(default, deserialize_with = "int")]
    pub offset: i64,
    #[serde(default, deserialize_with = "int")]
    pub node_id: i32,
    #[serde(default, deserialize_with = "nd")]
    pub contract_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub template_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface_id: Option<String>,
    #[serde(default, deserialize_with = "nd")]
    pub choice: String,
    #[serde(default)]
    pub choice_argument: RawJson,
    #[serde(default, deserialize_with = "nd")]
    pub acting_parties: Vec<String>,
    #[serde(default, deserialize_with = "nd")]
    pub consuming: bool,
    #[serde(default, deserialize_with = "nd")]
    pub witness_parties: Vec<String>,
    #[serde(default, deserialize_with = "int")]
    pub last_descendant_node_id: i32,
    #[serde(default)]
    pub exercise_result: RawJson,
    #[serde(default, deserialize_with = "nd")]
    pub package_name: String,
    #[serde(default, deserialize_with = "nd")]
    pub implemented_interfaces: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acs_delta: Option<bool>,
}

/// A ledger archived event.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArchivedEvent {
    #[serde(default, deserialize_with = "int")]
    pub offset: i64,
    #[serde(default, deserialize_with = "int")]
    pub node_id: i32,
    #[serde(default, deserialize_with = "nd")]
    pub contract_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub template_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub witness_parties: Vec<String>,
    #[serde(default, deserialize_with = "nd")]
    pub package_name: String,
    #[serde(default, deserialize_with = "nd")]
    pub implemented_interfaces: Vec<String>,
}

/// A node of `JsTransactionTree.eventsById`: `{"CreatedTreeEvent": {"value": …}}` or
/// `{"ExercisedTreeEvent": {"value": …}}`.
#[derive(Debug, Clone, PartialEq)]
pub enum TreeEvent {
    CreatedTreeEvent(CreatedEvent),
    ExercisedTreeEvent(ExercisedEvent),
    Unknown { kind: String, raw: RawJson },
}

one_key_enum!(TreeEvent, "one of CreatedTreeEvent, ExercisedTreeEvent", {
    "CreatedTreeEvent" => CreatedTreeEvent: valued CreatedEvent,
    "ExercisedTreeEvent" => ExercisedTreeEvent: valued ExercisedEvent,
});

impl TreeEvent {
    /// The node id (None for unknown kinds).
    pub fn node_id(&self) -> Option<i32> {
        match self {
            TreeEvent::CreatedTreeEvent(c) => Some(c.node_id),
            TreeEvent::ExercisedTreeEvent(e) => Some(e.node_id),
            TreeEvent::Unknown { .. } => None,
        }
    }

    /// The last node id of this node's subtree (itself for leaves).
    pub fn last_descendant_node_id(&self) -> Option<i32> {
        match self {
            TreeEvent::CreatedTreeEvent(c) => Some(c.node_id),
            TreeEvent::ExercisedTreeEvent(e) => Some(e.last_descendant_node_id.max(e.node_id)),
            TreeEvent::Unknown { .. } => None,
        }
    }
}

/// An event of a flat `JsTransaction`: `{"CreatedEvent": …}`, `{"ArchivedEvent": …}` or
/// `{"ExercisedEvent": …}`.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    CreatedEvent(CreatedEvent),
    ArchivedEvent(ArchivedEvent),
    ExercisedEvent(ExercisedEvent),
    Unknown { kind: String, raw: RawJson },
}

one_key_enum!(Event, "one of CreatedEvent, ArchivedEvent, ExercisedEvent", {
    "CreatedEvent" => CreatedEvent: direct CreatedEvent,
    "ArchivedEvent" => ArchivedEvent: direct ArchivedEvent,
    "ExercisedEvent" => ExercisedEvent: direct ExercisedEvent,
});

raw_backed! {
    /// A transaction tree (`JsTransactionTree`, deprecated). `eventsById` is keyed by node id
    /// as text; nesting comes from node-id ranges (`lastDescendantNodeId`), with gaps.
    pub struct JsTransactionTree via JsTransactionTreeRepr {
        #[serde(default, deserialize_with = "nd", rename = "updateId")]
        pub update_id: String,
        #[serde(default, rename = "commandId")]
        pub command_id: Option<String>,
        #[serde(default, rename = "workflowId")]
        pub workflow_id: Option<String>,
        #[serde(default, deserialize_with = "nd", rename = "effectiveAt")]
        pub effective_at: String,
        #[serde(default, deserialize_with = "int")]
        pub offset: i64,
        #[serde(default, deserialize_with = "nd", rename = "eventsById")]
        pub events_by_id: BTreeMap<String, TreeEvent>,
        #[serde(default, deserialize_with = "nd", rename = "synchronizerId")]
        pub synchronizer_id: String,
        #[serde(default, rename = "traceContext")]
        pub trace_context: Option<TraceContext>,
        #[serde(default, deserialize_with = "nd", rename = "recordTime")]
        pub record_time: String,
    }
}

impl JsTransactionTree {
    /// The nodes sorted by numeric node id (keys that are not integers come last, by text).
    pub fn nodes_in_order(&self) -> Vec<(i64, &TreeEvent)> {
        let mut nodes: Vec<(i64, &str, &TreeEvent)> = self
            .events_by_id
            .iter()
            .map(|(k, v)| (k.trim().parse::<i64>().unwrap_or(i64::MAX), k.as_str(), v))
            .collect();
        nodes.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
        nodes.into_iter().map(|(n, _, e)| (n, e)).collect()
    }

    /// The event with node id `node_id`.
    pub fn node(&self, node_id: i32) -> Option<&TreeEvent> {
        self.events_by_id.get(&node_id.to_string())
    }
}

raw_backed! {
    /// A flat transaction (`JsTransaction`), as returned by executeAndWaitForTransaction.
    pub struct JsTransaction via JsTransactionRepr {
        #[serde(default, deserialize_with = "nd", rename = "updateId")]
        pub update_id: String,
        #[serde(default, rename = "commandId")]
        pub command_id: Option<String>,
        #[serde(default, rename = "workflowId")]
        pub workflow_id: Option<String>,
        #[serde(default, deserialize_with = "nd", rename = "effectiveAt")]
        pub effective_at: String,
        #[serde(default, deserialize_with = "nd")]
        pub events: Vec<Event>,
        #[serde(default, deserialize_with = "int")]
        pub offset: i64,
        #[serde(default, deserialize_with = "nd", rename = "synchronizerId")]
        pub synchronizer_id: String,
        #[serde(default, rename = "traceContext")]
        pub trace_context: Option<TraceContext>,
        #[serde(default, deserialize_with = "nd", rename = "recordTime")]
        pub record_time: String,
        #[serde(default, rename = "externalTransactionHash")]
        pub external_transaction_hash: Option<String>,
        #[serde(default, deserialize_with = "opt_int", rename = "paidTrafficCost")]
        pub paid_traffic_cost: Option<i64>,
    }
}

/// An assignment event of a ledger reassignment.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JsAssignmentEvent {
    #[serde(default, deserialize_with = "nd")]
    pub source: String,
    #[serde(default, deserialize_with = "nd")]
    pub target: String,
    #[serde(default, deserialize_with = "nd")]
    pub reassignment_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub submitter: String,
    #[serde(default, deserialize_with = "int")]
    pub reassignment_counter: i64,
    #[serde(default)]
    pub created_event: CreatedEvent,
}

/// An unassignment event of a ledger reassignment.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnassignedEvent {
    #[serde(default, deserialize_with = "nd")]
    pub reassignment_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub contract_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub template_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub source: String,
    #[serde(default, deserialize_with = "nd")]
    pub target: String,
    /// Empty if unassigned offline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submitter: Option<String>,
    #[serde(default, deserialize_with = "int")]
    pub reassignment_counter: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignment_exclusivity: Option<String>,
    #[serde(default, deserialize_with = "nd")]
    pub witness_parties: Vec<String>,
    #[serde(default, deserialize_with = "nd")]
    pub package_name: String,
    #[serde(default, deserialize_with = "int")]
    pub offset: i64,
    #[serde(default, deserialize_with = "int")]
    pub node_id: i32,
}

/// An event of a `JsReassignment`.
#[derive(Debug, Clone, PartialEq)]
pub enum JsReassignmentEvent {
    JsAssignmentEvent(JsAssignmentEvent),
    JsUnassignedEvent(UnassignedEvent),
    Unknown { kind: String, raw: RawJson },
}

one_key_enum!(JsReassignmentEvent, "one of JsAssignmentEvent, JsUnassignedEvent", {
    "JsAssignmentEvent" => JsAssignmentEvent: direct JsAssignmentEvent,
    "JsUnassignedEvent" => JsUnassignedEvent: valued UnassignedEvent,
});

raw_backed! {
    /// A ledger reassignment (`JsReassignment`).
    pub struct JsReassignment via JsReassignmentRepr {
        #[serde(default, deserialize_with = "nd", rename = "updateId")]
        pub update_id: String,
        #[serde(default, rename = "commandId")]
        pub command_id: Option<String>,
        #[serde(default, rename = "workflowId")]
        pub workflow_id: Option<String>,
        #[serde(default, deserialize_with = "int")]
        pub offset: i64,
        #[serde(default, deserialize_with = "nd")]
        pub events: Vec<JsReassignmentEvent>,
        #[serde(default, rename = "traceContext")]
        pub trace_context: Option<TraceContext>,
        #[serde(default, deserialize_with = "nd", rename = "recordTime")]
        pub record_time: String,
        #[serde(default, deserialize_with = "nd", rename = "synchronizerId")]
        pub synchronizer_id: String,
        #[serde(default, deserialize_with = "opt_int", rename = "paidTrafficCost")]
        pub paid_traffic_cost: Option<i64>,
    }
}

/// A synchronizer's record time in an offset checkpoint.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SynchronizerTime {
    #[serde(default, deserialize_with = "nd")]
    pub synchronizer_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub record_time: String,
}

/// An offset checkpoint.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OffsetCheckpoint {
    #[serde(default, deserialize_with = "int")]
    pub offset: i64,
    #[serde(default, deserialize_with = "nd")]
    pub synchronizer_times: Vec<SynchronizerTime>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// The `update` of an item of `/v2/updates/trees` (and of the flat `/v2/updates`):
/// `{"TransactionTree": {"value": …}}`, `{"OffsetCheckpoint": {"value": …}}`,
/// `{"Reassignment": {"value": …}}`, `{"Transaction": {"value": …}}`; other kinds (e.g. topology
/// transactions) are kept raw.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    TransactionTree(Box<JsTransactionTree>),
    Transaction(Box<JsTransaction>),
    Reassignment(Box<JsReassignment>),
    OffsetCheckpoint(OffsetCheckpoint),
    Unknown { kind: String, raw: RawJson },
}

one_key_enum!(Update, "one of TransactionTree, Transaction, Reassignment, OffsetCheckpoint", {
    "TransactionTree" => TransactionTree: valued Box<JsTransactionTree>,
    "Transaction" => Transaction: valued Box<JsTransaction>,
    "Reassignment" => Reassignment: valued Box<JsReassignment>,
    "OffsetCheckpoint" => OffsetCheckpoint: valued OffsetCheckpoint,
});

raw_backed! {
    /// One item of the `POST /v2/updates/trees` answer (`JsGetUpdateTreesResponse`).
    pub struct JsGetUpdateTreesResponse via JsGetUpdateTreesResponseRepr {
        pub update: Update,
    }
}

// ---------------------------------------------------------------------------------------------
// Interactive submission: executeAndWaitForTransaction
// ---------------------------------------------------------------------------------------------

/// One signature.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Signature {
    pub format: String,
    pub signature: String,
    pub signed_by: String,
    pub signing_algorithm_spec: String,
}

/// The signatures of one party.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SinglePartySignatures {
    pub party: String,
    pub signatures: Vec<Signature>,
}

/// `PartySignatures`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PartySignatures {
    pub signatures: Vec<SinglePartySignatures>,
}

/// A protobuf duration.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Duration {
    pub seconds: i64,
    #[serde(default)]
    pub nanos: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown_fields: Option<Value>,
}

/// `DeduplicationPeriod` (a one-key object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum DeduplicationPeriod {
    DeduplicationDuration { value: Duration },
    DeduplicationOffset { value: i64 },
    Empty(Map<String, Value>),
}

/// `MinLedgerTime.time` (a one-key object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum MinLedgerTimeVariant {
    Empty(Map<String, Value>),
    MinLedgerTimeAbs { value: String },
    MinLedgerTimeRel { value: Duration },
}

/// `MinLedgerTime`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MinLedgerTime {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<MinLedgerTimeVariant>,
}

/// Body of `POST /v2/interactive-submission/executeAndWaitForTransaction`
/// (`JsExecuteSubmissionAndWaitForTransactionRequest`). Decoding checks the required fields;
/// unknown fields are kept and sent back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecuteRequest {
    /// Base64 prepared transaction.
    pub prepared_transaction: String,
    pub party_signatures: PartySignatures,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deduplication_period: Option<DeduplicationPeriod>,
    pub submission_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    /// e.g. `HASHING_SCHEME_VERSION_V2`.
    pub hashing_scheme_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ledger_time: Option<MinLedgerTime>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_format: Option<TransactionFormat>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

raw_backed! {
    /// Response of executeAndWaitForTransaction.
    pub struct ExecuteResponse via ExecuteResponseRepr {
        pub transaction: JsTransaction,
    }
}

/// `POST /v2/interactive-submission/executeAndWaitForTransaction`. Not retried.
pub fn execute_and_wait(req: &ExecuteRequest) -> Call<ExecuteResponse> {
    Group::Ledger
        .post(
            "ledger POST /v2/interactive-submission/executeAndWaitForTransaction",
            "/v2/interactive-submission/executeAndWaitForTransaction",
            req,
        )
        .named("ledger execute")
}
