//! Participant ledger group (JSON Ledger API v2, `{ledger_url}/v2`): the models of parties, users,
//! packages, ledger end, transaction trees and interactive-submission execution, the
//! `JsCantonError` error body, and the [`Call`] constructors. Every call carries the bearer token.

use super::call::{Call, Group, Method, ResponseParts, decode_json, encode_segment};
use super::error::ApiError;
use super::json::{RawJson, int, nd, one_key_enum, opt_int, raw_backed};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

// ---------------------------------------------------------------------------------------------
// Errors, parties, users, packages, ledger end
// ---------------------------------------------------------------------------------------------

/// The ledger's error body (`JsCantonError`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JsCantonError {
    pub code: String,
    #[serde(default, deserialize_with = "nd")]
    pub cause: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<String>,
    #[serde(default, deserialize_with = "nd")]
    pub context: BTreeMap<String, String>,
    /// Pairs of (resource kind, value).
    #[serde(default, deserialize_with = "nd")]
    pub resources: Vec<(String, String)>,
    #[serde(default, deserialize_with = "int")]
    pub error_category: i32,
    #[serde(
        default,
        deserialize_with = "opt_int",
        skip_serializing_if = "Option::is_none"
    )]
    pub grpc_code_value: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_info: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definite_answer: Option<bool>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

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

// ---------------------------------------------------------------------------------------------
// Events and transactions
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

raw_backed! {
    /// Response of executeAndWaitForTransaction.
    pub struct ExecuteResponse via ExecuteResponseRepr {
        pub transaction: JsTransaction,
    }
}

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

/// Filter of one template / interface / wildcard (`IdentifierFilter`, a one-key object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum IdentifierFilter {
    Empty(Map<String, Value>),
    InterfaceFilter { value: InterfaceFilter },
    TemplateFilter { value: TemplateFilter },
    WildcardFilter { value: WildcardFilter },
}

/// Interface filter value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InterfaceFilter {
    pub interface_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_interface_view: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_created_event_blob: Option<bool>,
}

/// Template filter value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TemplateFilter {
    pub template_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_created_event_blob: Option<bool>,
}

/// Wildcard filter value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WildcardFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_created_event_blob: Option<bool>,
}

/// One cumulative filter.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CumulativeFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identifier_filter: Option<IdentifierFilter>,
}

/// `Filters`: cumulative filters (none = one wildcard).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Filters {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cumulative: Vec<CumulativeFilter>,
}

/// Deprecated `TransactionFilter`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TransactionFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters_by_party: Option<BTreeMap<String, Filters>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters_for_any_party: Option<Filters>,
}

/// `EventFormat`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventFormat {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters_by_party: Option<BTreeMap<String, Filters>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters_for_any_party: Option<Filters>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verbose: Option<bool>,
}

/// `TransactionFormat`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TransactionFormat {
    pub event_format: EventFormat,
    /// `TRANSACTION_SHAPE_ACS_DELTA`, `TRANSACTION_SHAPE_LEDGER_EFFECTS` or unspecified.
    pub transaction_shape: String,
}

/// Parties whose participant authorization topology events to include.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ParticipantAuthorizationTopologyFormat {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parties: Vec<String>,
}

/// `TopologyFormat`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TopologyFormat {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_participant_authorization_events: Option<ParticipantAuthorizationTopologyFormat>,
}

/// `UpdateFormat`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateFormat {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_transactions: Option<TransactionFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_reassignments: Option<EventFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_topology_events: Option<TopologyFormat>,
}

/// Body of `POST /v2/updates/trees` (`GetUpdatesRequest`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetUpdatesRequest {
    /// Exclusive lower bound; 0 = ledger begin.
    pub begin_exclusive: i64,
    /// Inclusive upper bound; without it the server streams until idle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_inclusive: Option<i64>,
    /// Deprecated party filter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<TransactionFilter>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verbose: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update_format: Option<UpdateFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub descending_order: Option<bool>,
}

impl GetUpdatesRequest {
    /// A request over `(begin_exclusive, end_inclusive]` with wildcard filters for `parties`
    /// (any party when empty).
    pub fn for_parties(
        begin_exclusive: i64,
        end_inclusive: Option<i64>,
        parties: &[String],
    ) -> Self {
        let filter = if parties.is_empty() {
            TransactionFilter {
                filters_by_party: None,
                filters_for_any_party: Some(Filters::default()),
            }
        } else {
            TransactionFilter {
                filters_by_party: Some(
                    parties
                        .iter()
                        .map(|p| (p.clone(), Filters::default()))
                        .collect(),
                ),
                filters_for_any_party: None,
            }
        };
        GetUpdatesRequest {
            begin_exclusive,
            end_inclusive,
            filter: Some(filter),
            verbose: Some(true),
            update_format: None,
            descending_order: None,
        }
    }
}

impl GetUpdatesRequest {
    /// A request over `(begin_exclusive, end_inclusive]` for `parties` (any party when empty),
    /// keeping only the templates named in `templates` (package-name references
    /// `#package-name:Module:Entity`, see [`template_filter_ref`]; every template when empty).
    pub fn for_parties_and_templates(
        begin_exclusive: i64,
        end_inclusive: Option<i64>,
        parties: &[String],
        templates: &[String],
    ) -> Self {
        let mut req = Self::for_parties(begin_exclusive, end_inclusive, parties);
        if templates.is_empty() {
            return req;
        }
        let filters = Filters {
            cumulative: templates
                .iter()
                .map(|t| CumulativeFilter {
                    identifier_filter: Some(IdentifierFilter::TemplateFilter {
                        value: TemplateFilter {
                            template_id: t.clone(),
                            include_created_event_blob: None,
                        },
                    }),
                })
                .collect(),
        };
        if let Some(f) = &mut req.filter {
            if let Some(by_party) = &mut f.filters_by_party {
                for v in by_party.values_mut() {
                    *v = filters.clone();
                }
            } else {
                f.filters_for_any_party = Some(filters);
            }
        }
        req
    }
}

/// Whether `s` is a package id (a 64-digit hex hash) rather than a package name.
pub fn is_package_id(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A template as ledger filters take it from Canton 3.5.1 on: a package-name reference
/// `#package-name:Module.Path:Entity` (the leading `#` may be left out when typing). A
/// package-id reference (`<64 hex>:Module:Entity`) is refused with what to write instead, as
/// the node would refuse it.
pub fn template_filter_ref(typed: &str) -> Result<String, String> {
    let t = typed.trim();
    let body = t.strip_prefix('#').unwrap_or(t);
    let parts: Vec<&str> = body.split(':').collect();
    let [package, module, entity] = parts[..] else {
        return Err(format!(
            "not a template reference: {t} (expected #package-name:Module:Entity)"
        ));
    };
    if package.is_empty() || module.is_empty() || entity.is_empty() {
        return Err(format!(
            "not a template reference: {t} (expected #package-name:Module:Entity)"
        ));
    }
    if is_package_id(package) {
        return Err(format!(
            "{}… is a package id: write #package-name:{module}:{entity} (Canton 3.5.1 \
             takes package names only)",
            &package[..8]
        ));
    }
    Ok(format!("#{package}:{module}:{entity}"))
}

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

// ---------------------------------------------------------------------------------------------
// Calls
// ---------------------------------------------------------------------------------------------

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
    let mut call = Call::new(
        "ledger GET /v2/parties/{party}",
        Group::Ledger,
        Method::Get,
        format!("/v2/parties/{}", encode_segment(party)),
        decode_json::<PartiesResponse>,
    );
    if let Some(idp) = identity_provider_id {
        call = call.query("identity-provider-id", idp);
    }
    for p in more_parties {
        call = call.query("parties", p.as_str());
    }
    call
}

/// `DELETE /v2/users/{user-id}`.
pub fn delete_user(user_id: &str) -> Call<EmptyResponse> {
    Call::new(
        "ledger DELETE /v2/users/{user-id}",
        Group::Ledger,
        Method::Delete,
        format!("/v2/users/{}", encode_segment(user_id)),
        decode_json::<EmptyResponse>,
    )
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
}

/// `GET /v2/state/ledger-end`.
pub fn ledger_end() -> Call<LedgerEnd> {
    Call::new(
        "ledger GET /v2/state/ledger-end",
        Group::Ledger,
        Method::Get,
        "/v2/state/ledger-end".into(),
        decode_json::<LedgerEnd>,
    )
}

/// `POST /v2/updates/trees` (deprecated; 413 over the node's list limit, 404 once removed).
pub fn update_trees(
    req: &GetUpdatesRequest,
    limit: Option<i64>,
    stream_idle_timeout_ms: Option<i64>,
) -> Call<Vec<JsGetUpdateTreesResponse>> {
    update_list(
        "ledger POST /v2/updates/trees",
        "/v2/updates/trees",
        req,
        limit,
        stream_idle_timeout_ms,
    )
}

/// `POST /v2/updates` (`JsGetUpdatesResponse` items: the same `update` wrapper as the trees,
/// with flat `Transaction`s); the replacement of `/v2/updates/trees` from Canton 3.5 on.
pub fn updates(
    req: &GetUpdatesRequest,
    limit: Option<i64>,
    stream_idle_timeout_ms: Option<i64>,
) -> Call<Vec<JsGetUpdateTreesResponse>> {
    update_list(
        "ledger POST /v2/updates",
        "/v2/updates",
        req,
        limit,
        stream_idle_timeout_ms,
    )
}

/// The list form of an update stream endpoint: the request as the body, `limit` and
/// `stream_idle_timeout_ms` as query parameters when given.
fn update_list(
    endpoint: &'static str,
    path: &str,
    req: &GetUpdatesRequest,
    limit: Option<i64>,
    stream_idle_timeout_ms: Option<i64>,
) -> Call<Vec<JsGetUpdateTreesResponse>> {
    let mut call = Call::new(
        endpoint,
        Group::Ledger,
        Method::Post,
        path.into(),
        decode_json::<Vec<JsGetUpdateTreesResponse>>,
    )
    .json_body(req);
    if let Some(l) = limit {
        call = call.query("limit", l.to_string());
    }
    if let Some(t) = stream_idle_timeout_ms {
        call = call.query("stream_idle_timeout_ms", t.to_string());
    }
    call
}

/// The `/v2/updates` request for the same range and parties as a trees request: the party
/// filter moves into `updateFormat` (transactions in the ledger-effects shape, which has every
/// exercised node with its `lastDescendantNodeId`, and reassignments).
pub fn ledger_effects_request(req: &GetUpdatesRequest) -> GetUpdatesRequest {
    let (filters_by_party, filters_for_any_party) = match (&req.update_format, &req.filter) {
        (
            Some(UpdateFormat {
                include_transactions: Some(t),
                ..
            }),
            _,
        ) => (
            t.event_format.filters_by_party.clone(),
            t.event_format.filters_for_any_party.clone(),
        ),
        (_, Some(f)) => (f.filters_by_party.clone(), f.filters_for_any_party.clone()),
        _ => (None, Some(Filters::default())),
    };
    let event_format = EventFormat {
        filters_by_party,
        filters_for_any_party,
        verbose: req.verbose,
    };
    GetUpdatesRequest {
        begin_exclusive: req.begin_exclusive,
        end_inclusive: req.end_inclusive,
        filter: None,
        verbose: None,
        update_format: Some(UpdateFormat {
            include_transactions: Some(TransactionFormat {
                event_format: event_format.clone(),
                transaction_shape: "TRANSACTION_SHAPE_LEDGER_EFFECTS".to_owned(),
            }),
            include_reassignments: Some(event_format),
            include_topology_events: None,
        }),
        descending_order: req.descending_order,
    }
}

/// The transaction tree of a ledger-effects `JsTransaction`: its events keyed by node id (as
/// `eventsById` is), nesting left to the node-id ranges as in a tree from `/v2/updates/trees`.
/// Events of unknown kinds keep their JSON under a key that is not a node id.
pub fn tree_of_transaction(tx: &JsTransaction) -> JsTransactionTree {
    let mut events_by_id = BTreeMap::new();
    for (i, event) in tx.events.iter().enumerate() {
        match event {
            Event::CreatedEvent(c) => {
                events_by_id.insert(
                    c.node_id.to_string(),
                    TreeEvent::CreatedTreeEvent(c.clone()),
                );
            }
            Event::ExercisedEvent(e) => {
                events_by_id.insert(
                    e.node_id.to_string(),
                    TreeEvent::ExercisedTreeEvent(e.clone()),
                );
            }
            // Not part of the ledger-effects shape: an archive is its consuming exercise.
            Event::ArchivedEvent(_) => {}
            Event::Unknown { kind, raw } => {
                events_by_id.insert(
                    format!("{kind}#{i}"),
                    TreeEvent::Unknown {
                        kind: kind.clone(),
                        raw: raw.clone(),
                    },
                );
            }
        }
    }
    let mut tree = JsTransactionTree {
        update_id: tx.update_id.clone(),
        command_id: tx.command_id.clone(),
        workflow_id: tx.workflow_id.clone(),
        effective_at: tx.effective_at.clone(),
        offset: tx.offset,
        events_by_id,
        synchronizer_id: tx.synchronizer_id.clone(),
        trace_context: tx.trace_context.clone(),
        record_time: tx.record_time.clone(),
        raw: RawJson::null(),
    };
    // The JSON a trees answer would have carried (what the pane saves and shows).
    let value = serde_json::json!({
        "updateId": tree.update_id,
        "commandId": tree.command_id,
        "workflowId": tree.workflow_id,
        "effectiveAt": tree.effective_at,
        "offset": tree.offset,
        "eventsById": tree.events_by_id,
        "synchronizerId": tree.synchronizer_id,
        "traceContext": tree.trace_context,
        "recordTime": tree.record_time,
    });
    tree.raw = RawJson::from_value(&value).unwrap_or_default();
    tree
}

/// The items of a `/v2/updates` answer as a trees answer: transactions become transaction
/// trees; reassignments, checkpoints and unknown kinds pass through.
pub fn as_tree_items(items: Vec<JsGetUpdateTreesResponse>) -> Vec<JsGetUpdateTreesResponse> {
    items
        .into_iter()
        .map(|item| match &item.update {
            Update::Transaction(tx) => {
                let tree = tree_of_transaction(tx);
                let raw = RawJson::from_value(
                    &serde_json::json!({"update": {"TransactionTree": {"value": tree.raw}}}),
                )
                .unwrap_or_default();
                JsGetUpdateTreesResponse {
                    update: Update::TransactionTree(Box::new(tree)),
                    raw,
                }
            }
            _ => item,
        })
        .collect()
}

/// Transaction trees of a range: `POST /v2/updates/trees`, and when the node answers 404 for
/// it (Canton 3.5+ removed it) `POST /v2/updates` in the ledger-effects shape for the same range,
/// turned into the same trees. When both are missing, the error is the trees' one.
pub async fn fetch_trees(
    client: &super::ApiClient,
    req: &GetUpdatesRequest,
    limit: Option<i64>,
) -> Result<Vec<JsGetUpdateTreesResponse>, ApiError> {
    match client.send(&update_trees(req, limit, None)).await {
        Err(removed @ ApiError::EndpointNotServed { .. }) => {
            match client
                .send(&updates(&ledger_effects_request(req), limit, None))
                .await
            {
                Ok(items) => Ok(as_tree_items(items)),
                Err(ApiError::EndpointNotServed { .. }) => Err(removed),
                Err(e) => Err(e),
            }
        }
        other => other,
    }
}

/// `POST /v2/interactive-submission/executeAndWaitForTransaction`. Not retried.
pub fn execute_and_wait(req: &ExecuteRequest) -> Call<ExecuteResponse> {
    Call::new(
        "ledger POST /v2/interactive-submission/executeAndWaitForTransaction",
        Group::Ledger,
        Method::Post,
        "/v2/interactive-submission/executeAndWaitForTransaction".into(),
        decode_json::<ExecuteResponse>,
    )
    .json_body(req)
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

/// `GET /v2/parties/participant-id`.
pub fn participant_id() -> Call<ParticipantIdResponse> {
    Call::new(
        "ledger GET /v2/parties/participant-id",
        Group::Ledger,
        Method::Get,
        "/v2/parties/participant-id".into(),
        decode_json::<ParticipantIdResponse>,
    )
}
