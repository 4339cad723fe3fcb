//! What the ledger sends about updates: created, exercised and archived events, transaction
//! trees and flat transactions, reassignments, offset checkpoints, and the `update` wrapper of
//! the update stream items.

use crate::api::json::{RawJson, int, nd, one_key_enum, opt_int, raw_backed};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

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
