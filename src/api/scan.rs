//! Scan group (`{scan_url}/api/scan`): the typed models of every scan endpoint we use and the
//! [`Call`] constructors for them.
//!
//! The update history types are the hot path: items keep their raw JSON (lossless, unknown
//! fields included), payloads stay [`RawJson`], and a page decodes item by item so one odd item
//! becomes [`UpdateItem::Malformed`] instead of failing the page.

use super::call::{Call, Group, Method, ResponseParts, decode_json, encode_segment};
use super::error::ApiError;
use super::json::{
    RawJson, decode_with_path, int, join_path, lenient_string, nd, one_key_enum, opt_int,
    raw_backed, split_error, string_enum,
};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashSet};
use std::fmt;

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

string_enum! {
    /// How Daml values are encoded in responses (`contract_value_encoding` / `daml_value_encoding`).
    #[derive(Default)]
    pub enum ValueEncoding {
        /// Compact human-readable JSON (the default).
        #[default]
        CompactJson = "compact_json",
        /// Verbose JSON with type information.
        ProtobufJson = "protobuf_json",
    }
}

/// Cursor of `POST /v2/updates`: items after this migration id and record time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdatesAfter {
    pub after_migration_id: i64,
    pub after_record_time: String,
}

/// Body of `POST /v2/updates`. Serialises the encoding under both names
/// (`contract_value_encoding` and `daml_value_encoding`); accepts either when decoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdatesRequest {
    pub page_size: i32,
    pub after: Option<UpdatesAfter>,
    pub encoding: ValueEncoding,
}

impl UpdatesRequest {
    /// A request for `page_size` items from ledger begin.
    pub fn from_begin(page_size: i32) -> Self {
        UpdatesRequest {
            page_size,
            after: None,
            encoding: ValueEncoding::CompactJson,
        }
    }

    /// A request for `page_size` items after `(migration_id, record_time)`.
    pub fn after(page_size: i32, migration_id: i64, record_time: impl Into<String>) -> Self {
        UpdatesRequest {
            page_size,
            after: Some(UpdatesAfter {
                after_migration_id: migration_id,
                after_record_time: record_time.into(),
            }),
            encoding: ValueEncoding::CompactJson,
        }
    }
}

#[derive(Serialize, Deserialize)]
struct UpdatesRequestWire {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    after: Option<UpdatesAfter>,
    page_size: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    contract_value_encoding: Option<ValueEncoding>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    daml_value_encoding: Option<ValueEncoding>,
}

impl Serialize for UpdatesRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        UpdatesRequestWire {
            after: self.after.clone(),
            page_size: self.page_size,
            contract_value_encoding: Some(self.encoding.clone()),
            daml_value_encoding: Some(self.encoding.clone()),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for UpdatesRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = UpdatesRequestWire::deserialize(d)?;
        Ok(UpdatesRequest {
            page_size: w.page_size,
            after: w.after,
            encoding: w
                .contract_value_encoding
                .or(w.daml_value_encoding)
                .unwrap_or_default(),
        })
    }
}

string_enum! {
    /// `record_time_match` of the holdings summary.
    #[derive(Default)]
    pub enum RecordTimeMatch {
        /// The record time must be a snapshot timestamp (server default).
        #[default]
        Exact = "exact",
        /// The most recent snapshot at or before the record time.
        AtOrBefore = "at_or_before",
    }
}

/// Body of `POST /v1/holdings/summary`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HoldingsSummaryRequest {
    pub migration_id: i64,
    pub record_time: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_time_match: Option<RecordTimeMatch>,
    pub owner_party_ids: Vec<String>,
}

/// Body of `POST /v0/admin/sv/previous-sv-reward-weight`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RewardWeightRequest {
    pub sv_party: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_before: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Update history (hot path)
// ---------------------------------------------------------------------------------------------

/// A scan created event (`event_type: "created_event"`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CreatedEvent {
    #[serde(default, deserialize_with = "nd")]
    pub event_type: String,
    #[serde(default, deserialize_with = "nd")]
    pub event_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub contract_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub template_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub package_name: String,
    #[serde(default)]
    pub create_arguments: RawJson,
    #[serde(default, deserialize_with = "nd")]
    pub created_at: String,
    #[serde(default, deserialize_with = "nd")]
    pub signatories: Vec<String>,
    #[serde(default, deserialize_with = "nd")]
    pub observers: Vec<String>,
}

/// A scan exercised event (`event_type: "exercised_event"`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ExercisedEvent {
    #[serde(default, deserialize_with = "nd")]
    pub event_type: String,
    #[serde(default, deserialize_with = "nd")]
    pub event_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub contract_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub template_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub package_name: String,
    #[serde(default, deserialize_with = "nd")]
    pub choice: String,
    #[serde(default)]
    pub choice_argument: RawJson,
    /// Immediate children in transaction order.
    #[serde(default, deserialize_with = "nd")]
    pub child_event_ids: Vec<String>,
    /// Any JSON: an object, or e.g. a plain string for enum-like results.
    #[serde(default)]
    pub exercise_result: RawJson,
    #[serde(default, deserialize_with = "nd")]
    pub consuming: bool,
    #[serde(default, deserialize_with = "nd")]
    pub acting_parties: Vec<String>,
    #[serde(default)]
    pub interface_id: Option<String>,
}

/// A node of `events_by_id`.
#[derive(Debug, Clone, PartialEq)]
pub enum TreeEvent {
    Created(CreatedEvent),
    Exercised(ExercisedEvent),
    /// An event kind this client does not know; `raw` is its JSON.
    Unknown {
        event_type: String,
        event_id: String,
        raw: RawJson,
    },
}

impl TreeEvent {
    /// The event id.
    pub fn event_id(&self) -> &str {
        match self {
            TreeEvent::Created(c) => &c.event_id,
            TreeEvent::Exercised(e) => &e.event_id,
            TreeEvent::Unknown { event_id, .. } => event_id,
        }
    }

    /// The contract the event is on ("" for unknown events).
    pub fn contract_id(&self) -> &str {
        match self {
            TreeEvent::Created(c) => &c.contract_id,
            TreeEvent::Exercised(e) => &e.contract_id,
            TreeEvent::Unknown { .. } => "",
        }
    }

    /// The template id ("" for unknown events).
    pub fn template_id(&self) -> &str {
        match self {
            TreeEvent::Created(c) => &c.template_id,
            TreeEvent::Exercised(e) => &e.template_id,
            TreeEvent::Unknown { .. } => "",
        }
    }

    /// Child event ids (only exercised events have children).
    pub fn child_event_ids(&self) -> &[String] {
        match self {
            TreeEvent::Exercised(e) => &e.child_event_ids,
            _ => &[],
        }
    }
}

/// Every field of both event kinds: one streaming pass, then split by `event_type`.
#[derive(Deserialize)]
struct TreeEventRepr {
    #[serde(default, deserialize_with = "nd")]
    event_type: String,
    #[serde(default, deserialize_with = "nd")]
    event_id: String,
    #[serde(default, deserialize_with = "nd")]
    contract_id: String,
    #[serde(default, deserialize_with = "nd")]
    template_id: String,
    #[serde(default, deserialize_with = "nd")]
    package_name: String,
    #[serde(default)]
    create_arguments: Option<RawJson>,
    #[serde(default, deserialize_with = "nd")]
    created_at: String,
    #[serde(default, deserialize_with = "nd")]
    signatories: Vec<String>,
    #[serde(default, deserialize_with = "nd")]
    observers: Vec<String>,
    #[serde(default)]
    choice: Option<String>,
    #[serde(default)]
    choice_argument: Option<RawJson>,
    #[serde(default, deserialize_with = "nd")]
    child_event_ids: Vec<String>,
    #[serde(default)]
    exercise_result: Option<RawJson>,
    #[serde(default, deserialize_with = "nd")]
    consuming: bool,
    #[serde(default, deserialize_with = "nd")]
    acting_parties: Vec<String>,
    #[serde(default)]
    interface_id: Option<String>,
}

impl From<TreeEventRepr> for TreeEvent {
    fn from(r: TreeEventRepr) -> Self {
        let kind = match r.event_type.as_str() {
            "created_event" => Some(true),
            "exercised_event" => Some(false),
            "" if r.choice.is_some() => Some(false),
            "" if r.create_arguments.is_some() => Some(true),
            _ => None,
        };
        match kind {
            Some(true) => TreeEvent::Created(CreatedEvent {
                event_type: r.event_type,
                event_id: r.event_id,
                contract_id: r.contract_id,
                template_id: r.template_id,
                package_name: r.package_name,
                create_arguments: r.create_arguments.unwrap_or_default(),
                created_at: r.created_at,
                signatories: r.signatories,
                observers: r.observers,
            }),
            Some(false) => TreeEvent::Exercised(ExercisedEvent {
                event_type: r.event_type,
                event_id: r.event_id,
                contract_id: r.contract_id,
                template_id: r.template_id,
                package_name: r.package_name,
                choice: r.choice.unwrap_or_default(),
                choice_argument: r.choice_argument.unwrap_or_default(),
                child_event_ids: r.child_event_ids,
                exercise_result: r.exercise_result.unwrap_or_default(),
                consuming: r.consuming,
                acting_parties: r.acting_parties,
                interface_id: r.interface_id,
            }),
            // Filled in from the item's raw JSON after the item decodes.
            None => TreeEvent::Unknown {
                event_type: r.event_type,
                event_id: r.event_id,
                raw: RawJson::null(),
            },
        }
    }
}

impl<'de> Deserialize<'de> for TreeEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        TreeEventRepr::deserialize(d).map(TreeEvent::from)
    }
}

impl Serialize for TreeEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            TreeEvent::Created(c) => c.serialize(s),
            TreeEvent::Exercised(e) => e.serialize(s),
            TreeEvent::Unknown { raw, .. } => raw.serialize(s),
        }
    }
}

/// Removes the `#` that v0 / ACS event ids carry (`#<update_id>:<n>` → `<update_id>:<n>`).
pub fn strip_hash(id: &str) -> &str {
    id.strip_prefix('#').unwrap_or(id)
}

/// The node index of an event id `<update_id>:<n>` (with or without `#`).
pub fn event_index(id: &str) -> Option<u32> {
    strip_hash(id).rsplit_once(':')?.1.parse().ok()
}

/// A scan transaction (`UpdateHistoryTransactionV2`). `raw` is the item's JSON, unknown fields
/// included; `Serialize` writes it back verbatim.
#[derive(Debug, Clone, PartialEq)]
pub struct Transaction {
    pub update_id: String,
    pub migration_id: i64,
    pub workflow_id: String,
    pub record_time: String,
    pub synchronizer_id: String,
    pub effective_at: String,
    /// Roots of the tree, in order.
    pub root_event_ids: Vec<String>,
    /// Events keyed by event id (text order, not tree order).
    pub events_by_id: BTreeMap<String, TreeEvent>,
    pub external_transaction_hash: Option<String>,
    pub raw: RawJson,
}

/// One node of a tree walk: depth (roots are 0), the id as referenced, and the event if the id
/// resolves.
#[derive(Debug, Clone, Copy)]
pub struct WalkItem<'a> {
    pub depth: usize,
    pub id: &'a str,
    pub event: Option<&'a TreeEvent>,
}

/// Depth-first walk of a transaction tree in tree order (see [`Transaction::walk`]).
pub struct TreeWalk<'a> {
    tx: &'a Transaction,
    stack: Vec<(usize, &'a str)>,
    seen: HashSet<&'a str>,
}

impl<'a> Iterator for TreeWalk<'a> {
    type Item = WalkItem<'a>;

    fn next(&mut self) -> Option<WalkItem<'a>> {
        loop {
            let (depth, id) = self.stack.pop()?;
            // Untrusted data: a cycle or a repeated id must not loop for ever.
            if !self.seen.insert(id) {
                continue;
            }
            let event = self.tx.event(id);
            if let Some(ev) = event {
                for child in ev.child_event_ids().iter().rev() {
                    self.stack.push((depth + 1, child.as_str()));
                }
            }
            return Some(WalkItem { depth, id, event });
        }
    }
}

impl Transaction {
    /// The event with this id; accepts ids with or without the `#` prefix.
    pub fn event(&self, id: &str) -> Option<&TreeEvent> {
        if let Some(ev) = self.events_by_id.get(id) {
            return Some(ev);
        }
        let bare = strip_hash(id);
        if bare.len() != id.len() {
            return self.events_by_id.get(bare);
        }
        self.events_by_id.get(&format!("#{id}"))
    }

    /// The root events in `root_event_ids` order (ids that do not resolve are skipped).
    pub fn root_events(&self) -> impl Iterator<Item = &TreeEvent> + '_ {
        self.root_event_ids.iter().filter_map(|id| self.event(id))
    }

    /// Every node in tree order (pre-order over `root_event_ids` and `child_event_ids`), each
    /// once; unresolved ids are yielded with `event: None`.
    pub fn walk(&self) -> TreeWalk<'_> {
        TreeWalk {
            tx: self,
            stack: self
                .root_event_ids
                .iter()
                .rev()
                .map(|id| (0, id.as_str()))
                .collect(),
            seen: HashSet::new(),
        }
    }
}

impl Serialize for Transaction {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(s)
    }
}

/// An assignment (`UpdateHistoryAssignment`).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct AssignEvent {
    pub submitter: String,
    pub source_synchronizer: String,
    pub target_synchronizer: String,
    /// Migration id of the target synchronizer.
    pub migration_id: i64,
    pub unassign_id: String,
    pub created_event: CreatedEvent,
    pub reassignment_counter: i64,
}

/// An unassignment (`UpdateHistoryUnassignment`).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct UnassignEvent {
    pub submitter: String,
    pub source_synchronizer: String,
    /// Migration id of the source synchronizer.
    pub migration_id: i64,
    pub target_synchronizer: String,
    pub unassign_id: String,
    pub reassignment_counter: i64,
    pub contract_id: String,
}

/// The `event` of a reassignment: assign (has `created_event`) or unassign.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ReassignmentEvent {
    Assign(AssignEvent),
    Unassign(UnassignEvent),
}

impl ReassignmentEvent {
    /// Migration id (target for assign, source for unassign).
    pub fn migration_id(&self) -> i64 {
        match self {
            ReassignmentEvent::Assign(a) => a.migration_id,
            ReassignmentEvent::Unassign(u) => u.migration_id,
        }
    }

    /// The reassignment counter.
    pub fn reassignment_counter(&self) -> i64 {
        match self {
            ReassignmentEvent::Assign(a) => a.reassignment_counter,
            ReassignmentEvent::Unassign(u) => u.reassignment_counter,
        }
    }

    /// The unassign id linking an unassign and its assign.
    pub fn unassign_id(&self) -> &str {
        match self {
            ReassignmentEvent::Assign(a) => &a.unassign_id,
            ReassignmentEvent::Unassign(u) => &u.unassign_id,
        }
    }

    /// The contract moved.
    pub fn contract_id(&self) -> &str {
        match self {
            ReassignmentEvent::Assign(a) => &a.created_event.contract_id,
            ReassignmentEvent::Unassign(u) => &u.contract_id,
        }
    }
}

#[derive(Deserialize)]
struct ReassignmentEventRepr {
    #[serde(default, deserialize_with = "nd")]
    submitter: String,
    #[serde(default, deserialize_with = "nd")]
    source_synchronizer: String,
    #[serde(default, deserialize_with = "nd")]
    target_synchronizer: String,
    #[serde(default, deserialize_with = "int")]
    migration_id: i64,
    #[serde(default, deserialize_with = "nd")]
    unassign_id: String,
    #[serde(default)]
    created_event: Option<CreatedEvent>,
    #[serde(default, deserialize_with = "int")]
    reassignment_counter: i64,
    #[serde(default)]
    contract_id: Option<String>,
}

impl<'de> Deserialize<'de> for ReassignmentEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let r = ReassignmentEventRepr::deserialize(d)?;
        Ok(match r.created_event {
            Some(created_event) => ReassignmentEvent::Assign(AssignEvent {
                submitter: r.submitter,
                source_synchronizer: r.source_synchronizer,
                target_synchronizer: r.target_synchronizer,
                migration_id: r.migration_id,
                unassign_id: r.unassign_id,
                created_event,
                reassignment_counter: r.reassignment_counter,
            }),
            None => ReassignmentEvent::Unassign(UnassignEvent {
                submitter: r.submitter,
                source_synchronizer: r.source_synchronizer,
                migration_id: r.migration_id,
                target_synchronizer: r.target_synchronizer,
                unassign_id: r.unassign_id,
                reassignment_counter: r.reassignment_counter,
                contract_id: r.contract_id.unwrap_or_default(),
            }),
        })
    }
}

/// A scan reassignment (`UpdateHistoryReassignment`). `raw` is the item's JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Reassignment {
    pub update_id: String,
    /// Absolute offset as text; differs between nodes.
    pub offset: String,
    pub record_time: String,
    pub event: ReassignmentEvent,
    pub raw: RawJson,
}

impl Serialize for Reassignment {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(s)
    }
}

/// Why an item could not be decoded: JSON path (from the page root when inside a page) and
/// what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemError {
    pub path: String,
    pub detail: String,
}

impl fmt::Display for ItemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", self.path, self.detail)
    }
}

/// Kind of an update item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UpdateKind {
    Transaction,
    Assign,
    Unassign,
    Malformed,
}

/// One item of the update history: a transaction, a reassignment, or an item that could not be
/// decoded (kept raw, with the error).
#[derive(Debug, Clone, PartialEq)]
pub enum UpdateItem {
    Transaction(Box<Transaction>),
    Reassignment(Box<Reassignment>),
    Malformed { raw: RawJson, error: ItemError },
}

impl UpdateItem {
    /// The item's JSON as the server sent it.
    pub fn raw(&self) -> &RawJson {
        match self {
            UpdateItem::Transaction(t) => &t.raw,
            UpdateItem::Reassignment(r) => &r.raw,
            UpdateItem::Malformed { raw, .. } => raw,
        }
    }

    /// The kind of item.
    pub fn kind(&self) -> UpdateKind {
        match self {
            UpdateItem::Transaction(_) => UpdateKind::Transaction,
            UpdateItem::Reassignment(r) => match r.event {
                ReassignmentEvent::Assign(_) => UpdateKind::Assign,
                ReassignmentEvent::Unassign(_) => UpdateKind::Unassign,
            },
            UpdateItem::Malformed { .. } => UpdateKind::Malformed,
        }
    }

    /// The update id (None for malformed items).
    pub fn update_id(&self) -> Option<&str> {
        match self {
            UpdateItem::Transaction(t) => Some(&t.update_id),
            UpdateItem::Reassignment(r) => Some(&r.update_id),
            UpdateItem::Malformed { .. } => None,
        }
    }

    /// The record time (None for malformed items).
    pub fn record_time(&self) -> Option<&str> {
        match self {
            UpdateItem::Transaction(t) => Some(&t.record_time),
            UpdateItem::Reassignment(r) => Some(&r.record_time),
            UpdateItem::Malformed { .. } => None,
        }
    }

    /// The migration id (for reassignments the one inside `event`; None for malformed items).
    pub fn migration_id(&self) -> Option<i64> {
        match self {
            UpdateItem::Transaction(t) => Some(t.migration_id),
            UpdateItem::Reassignment(r) => Some(r.event.migration_id()),
            UpdateItem::Malformed { .. } => None,
        }
    }

    /// The transaction, if this is one.
    pub fn as_transaction(&self) -> Option<&Transaction> {
        match self {
            UpdateItem::Transaction(t) => Some(t),
            _ => None,
        }
    }

    /// The reassignment, if this is one.
    pub fn as_reassignment(&self) -> Option<&Reassignment> {
        match self {
            UpdateItem::Reassignment(r) => Some(r),
            _ => None,
        }
    }

    /// Decodes one item from its raw JSON; never fails (odd items become `Malformed`).
    /// `prefix` is the JSON path of the item (e.g. `transactions[3]`), used in the error.
    pub fn from_raw(raw: RawJson, prefix: &str) -> UpdateItem {
        // Fast path without path tracking; a failure is decoded again to name the path.
        if let Ok(repr) = serde_json::from_str::<ItemRepr>(raw.get()) {
            return repr.into_item(raw, prefix);
        }
        let mut de = serde_json::Deserializer::from_str(raw.get());
        let repr = match serde_path_to_error::deserialize::<_, ItemRepr>(&mut de) {
            Ok(r) => r,
            Err(e) => {
                let (path, detail) = split_error(&e);
                return UpdateItem::Malformed {
                    error: ItemError {
                        path: join_path(prefix, &path),
                        detail,
                    },
                    raw,
                };
            }
        };
        repr.into_item(raw, prefix)
    }
}

impl Serialize for UpdateItem {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.raw().serialize(s)
    }
}

impl<'de> Deserialize<'de> for UpdateItem {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawJson::deserialize(d)?;
        Ok(UpdateItem::from_raw(raw, "."))
    }
}

/// Every field of both item shapes, decoded in one pass; classified afterwards.
#[derive(Deserialize)]
struct ItemRepr {
    #[serde(default, deserialize_with = "nd")]
    update_id: String,
    #[serde(default, deserialize_with = "opt_int")]
    migration_id: Option<i64>,
    #[serde(default, deserialize_with = "nd")]
    workflow_id: String,
    #[serde(default, deserialize_with = "nd")]
    record_time: String,
    #[serde(default, deserialize_with = "nd")]
    synchronizer_id: String,
    #[serde(default, deserialize_with = "nd")]
    effective_at: String,
    #[serde(default)]
    root_event_ids: Option<Vec<String>>,
    #[serde(default)]
    events_by_id: Option<BTreeMap<String, TreeEvent>>,
    #[serde(default)]
    external_transaction_hash: Option<String>,
    #[serde(default, deserialize_with = "lenient_string")]
    offset: String,
    #[serde(default)]
    event: Option<ReassignmentEvent>,
}

#[derive(Deserialize)]
struct RawEvents {
    #[serde(default)]
    events_by_id: BTreeMap<String, RawJson>,
}

impl ItemRepr {
    fn into_item(self, raw: RawJson, prefix: &str) -> UpdateItem {
        if self.events_by_id.is_some() || self.root_event_ids.is_some() {
            let mut events_by_id = self.events_by_id.unwrap_or_default();
            if events_by_id
                .values()
                .any(|e| matches!(e, TreeEvent::Unknown { .. }))
            {
                // Rare path: keep the raw JSON of events of unknown kinds.
                if let Ok(raws) = serde_json::from_str::<RawEvents>(raw.get()) {
                    for (id, ev) in &mut events_by_id {
                        if let TreeEvent::Unknown { raw: slot, .. } = ev
                            && let Some(r) = raws.events_by_id.get(id)
                        {
                            *slot = r.clone();
                        }
                    }
                }
            }
            UpdateItem::Transaction(Box::new(Transaction {
                update_id: self.update_id,
                migration_id: self.migration_id.unwrap_or_default(),
                workflow_id: self.workflow_id,
                record_time: self.record_time,
                synchronizer_id: self.synchronizer_id,
                effective_at: self.effective_at,
                root_event_ids: self.root_event_ids.unwrap_or_default(),
                events_by_id,
                external_transaction_hash: self.external_transaction_hash,
                raw,
            }))
        } else if let Some(event) = self.event {
            UpdateItem::Reassignment(Box::new(Reassignment {
                update_id: self.update_id,
                offset: self.offset,
                record_time: self.record_time,
                event,
                raw,
            }))
        } else {
            UpdateItem::Malformed {
                error: ItemError {
                    path: join_path(prefix, "."),
                    detail: "neither a transaction (events_by_id, root_event_ids) nor a \
                             reassignment (event, offset)"
                        .into(),
                },
                raw,
            }
        }
    }
}

/// Response of `POST /v2/updates`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UpdatesPage {
    #[serde(default, deserialize_with = "page_items")]
    pub transactions: Vec<UpdateItem>,
}

impl UpdatesPage {
    /// Number of items that could not be decoded.
    pub fn malformed_count(&self) -> usize {
        self.transactions
            .iter()
            .filter(|i| matches!(i, UpdateItem::Malformed { .. }))
            .count()
    }

    /// The cursor after the last decodable item (for the next page).
    pub fn next_after(&self) -> Option<UpdatesAfter> {
        self.transactions.iter().rev().find_map(|i| {
            Some(UpdatesAfter {
                after_migration_id: i.migration_id()?,
                after_record_time: i.record_time()?.to_owned(),
            })
        })
    }
}

struct PageItems;

impl<'de> Visitor<'de> for PageItems {
    type Value = Vec<UpdateItem>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of update items")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(raw) = seq.next_element::<RawJson>()? {
            let prefix = format!("transactions[{}]", out.len());
            out.push(UpdateItem::from_raw(raw, &prefix));
        }
        Ok(out)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
}

fn page_items<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<UpdateItem>, D::Error> {
    d.deserialize_any(PageItems)
}

fn opt_update_item<'de, D: Deserializer<'de>>(d: D) -> Result<Option<UpdateItem>, D::Error> {
    let raw = Option::<RawJson>::deserialize(d)?;
    Ok(raw
        .filter(|r| !r.is_null())
        .map(|r| UpdateItem::from_raw(r, "update")))
}

// ---------------------------------------------------------------------------------------------
// Event history item (/v0/events/{update_id})
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Other scan responses
// ---------------------------------------------------------------------------------------------

/// One owner's holdings (`HoldingsSummaryV1`). Amounts are Daml decimals as text.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HoldingsSummary {
    #[serde(default, deserialize_with = "nd")]
    pub party_id: String,
    #[serde(default, deserialize_with = "lenient_string")]
    pub total_unlocked_coin: String,
    #[serde(default, deserialize_with = "lenient_string")]
    pub total_locked_coin: String,
    #[serde(default, deserialize_with = "lenient_string")]
    pub total_coin_holdings: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `POST /v1/holdings/summary`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HoldingsSummaryResponse {
    #[serde(default, deserialize_with = "nd")]
    pub record_time: String,
    #[serde(default, deserialize_with = "int")]
    pub migration_id: i64,
    #[serde(default, deserialize_with = "nd")]
    pub summaries: Vec<HoldingsSummary>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Liveness statistics of one validator (`ValidatorReceivedFaucets`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidatorReceivedFaucets {
    #[serde(default, deserialize_with = "nd")]
    pub validator: String,
    #[serde(default, deserialize_with = "int")]
    pub num_rounds_collected: i64,
    #[serde(default, deserialize_with = "int")]
    pub num_rounds_missed: i64,
    #[serde(default, deserialize_with = "int")]
    pub first_collected_in_round: i64,
    #[serde(default, deserialize_with = "int")]
    pub last_collected_in_round: i64,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v0/validators/validator-faucets`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidatorFaucets {
    #[serde(default, deserialize_with = "nd")]
    pub validators_received_faucets: Vec<ValidatorReceivedFaucets>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// One BFT sequencer (`SynchronizerBftSequencer`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SynchronizerBftSequencer {
    #[serde(default, deserialize_with = "int")]
    pub serial_id: i64,
    #[serde(default, deserialize_with = "nd")]
    pub id: String,
    #[serde(default, deserialize_with = "nd")]
    pub p2p_url: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v0/sv-bft-sequencers`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BftSequencers {
    #[serde(default, deserialize_with = "nd")]
    pub bft_sequencers: Vec<SynchronizerBftSequencer>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `POST /v0/admin/sv/previous-sv-reward-weight`; `reward_weight` is absent when no
/// accepted weight change took effect before the given time.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RewardWeightResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward_weight: Option<String>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v0/synchronizer-bootstrapping-transactions/{domain_id_prefix}` (each a
/// base64 topology transaction bundle).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BootstrappingTransactions {
    #[serde(default, deserialize_with = "nd")]
    pub domain_parameters: String,
    #[serde(default, deserialize_with = "nd")]
    pub sequencer_domain_state: String,
    #[serde(default, deserialize_with = "nd")]
    pub mediator_domain_state: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v1/domains/{domain_id}/parties/{party_id}/participant-id`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ParticipantIds {
    #[serde(default, deserialize_with = "nd")]
    pub participant_ids: Vec<String>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// The `success` status of a node.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Status {
    #[serde(default, deserialize_with = "nd")]
    pub id: String,
    /// ISO 8601 duration, e.g. `PT85H26M0.595279S`.
    #[serde(default, deserialize_with = "nd")]
    pub uptime: String,
    #[serde(default, deserialize_with = "nd")]
    pub ports: BTreeMap<String, i64>,
    /// Opaque extra data; often `null`.
    #[serde(default)]
    pub extra: Option<String>,
    #[serde(default, deserialize_with = "nd")]
    pub active: bool,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// The `not_initialized` status.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NotInitialized {
    #[serde(default, deserialize_with = "nd")]
    pub active: bool,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// The `failed` status.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StatusFailure {
    #[serde(default, deserialize_with = "nd")]
    pub error: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /status`.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeStatus {
    Success(Status),
    NotInitialized(NotInitialized),
    Failed(StatusFailure),
    /// A status shape this client does not know.
    Unknown {
        kind: String,
        raw: RawJson,
    },
}

one_key_enum!(NodeStatus, "one of success, not_initialized, failed", {
    "success" => Success: direct Status,
    "not_initialized" => NotInitialized: direct NotInitialized,
    "failed" => Failed: direct StatusFailure,
});

/// Response of `GET /version`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Version {
    #[serde(default, deserialize_with = "nd")]
    pub version: String,
    #[serde(default, deserialize_with = "nd")]
    pub commit_ts: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

// ---------------------------------------------------------------------------------------------
// The network: every SV's scan, mining rounds, backfilling
// ---------------------------------------------------------------------------------------------

/// One SV's scan (`ScanInfo` of `GET /v0/scans`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ScanInfo {
    /// The publicly reachable base URL of the scan (without `/api/scan`).
    #[serde(rename = "publicUrl", default, deserialize_with = "nd")]
    pub public_url: String,
    /// The name of the SV operating the scan.
    #[serde(rename = "svName", default, deserialize_with = "nd")]
    pub sv_name: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// The scans of one synchronizer (`DomainScans`): at most one per SV.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DomainScans {
    #[serde(rename = "domainId", default, deserialize_with = "nd")]
    pub domain_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub scans: Vec<ScanInfo>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v0/scans` (`ListDsoScansResponse`): every SV's scan, per synchronizer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DsoScans {
    #[serde(default, deserialize_with = "nd")]
    pub scans: Vec<DomainScans>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Body of `POST /v0/open-and-issuing-mining-rounds`: the contract ids the caller already has
/// (their contracts come back without the `contract` field). Empty lists ask for everything.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MiningRoundsRequest {
    #[serde(default)]
    pub cached_open_mining_round_contract_ids: Vec<String>,
    #[serde(default)]
    pub cached_issuing_round_contract_ids: Vec<String>,
}

raw_backed! {
    /// A round contract the caller may already have cached (`MaybeCachedContractWithState`):
    /// `contract` is absent when its id was in the request; `domain_id` is absent while the
    /// contract is in flight between synchronizers.
    pub struct MaybeCachedContract via MaybeCachedContractRepr {
        #[serde(default)]
        pub contract: Option<super::validator::Contract>,
        #[serde(default)]
        pub domain_id: Option<String>,
    }
}

/// One mining round, read from its contract: the round number, when the contract was created
/// and when the round opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MiningRound {
    pub number: i64,
    pub contract_id: String,
    /// `created_at` of the contract, as sent.
    pub created_at: String,
    /// `payload.opensAt`, as sent (empty when absent).
    pub opens_at: String,
}

impl MaybeCachedContract {
    /// The round this contract is (`payload.round.number`, a number or a decimal string);
    /// `None` when the contract is absent (cached) or has no round number.
    pub fn round(&self) -> Option<MiningRound> {
        let contract = self.contract.as_ref()?;
        let payload = contract.payload.to_value().ok()?;
        let number = match payload.get("round")?.get("number")? {
            Value::Number(n) => n.as_i64()?,
            Value::String(s) => s.trim().parse().ok()?,
            _ => return None,
        };
        let opens_at = payload
            .get("opensAt")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        Some(MiningRound {
            number,
            contract_id: contract.contract_id.clone(),
            created_at: contract.created_at.clone(),
            opens_at,
        })
    }
}

/// Response of `POST /v0/open-and-issuing-mining-rounds`: the open and the issuing rounds, each
/// an object keyed by contract id, and a suggested cache time to live.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OpenAndIssuingMiningRounds {
    #[serde(default, deserialize_with = "opt_int")]
    pub time_to_live_in_microseconds: Option<i64>,
    #[serde(default, deserialize_with = "nd")]
    pub open_mining_rounds: BTreeMap<String, MaybeCachedContract>,
    #[serde(default, deserialize_with = "nd")]
    pub issuing_mining_rounds: BTreeMap<String, MaybeCachedContract>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

impl OpenAndIssuingMiningRounds {
    /// The open round with the highest number (the newest), if any contract carries one.
    pub fn newest_open_round(&self) -> Option<MiningRound> {
        self.open_mining_rounds
            .values()
            .filter_map(MaybeCachedContract::round)
            .max_by_key(|r| r.number)
    }
}

/// Response of `GET /v0/backfilling/status`: whether the scan has ingested all of its history.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BackfillingStatus {
    #[serde(default, deserialize_with = "nd")]
    pub complete: bool,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

// ---------------------------------------------------------------------------------------------
// Calls
// ---------------------------------------------------------------------------------------------

/// Decodes a single update; a malformed update is a decode error here (not a page).
fn decode_single_update(parts: &ResponseParts<'_>) -> Result<UpdateItem, ApiError> {
    let raw: RawJson = decode_with_path(parts.body).map_err(|(path, detail)| ApiError::Decode {
        endpoint: parts.endpoint,
        path,
        detail,
    })?;
    match UpdateItem::from_raw(raw, ".") {
        UpdateItem::Malformed { error, .. } => Err(ApiError::Decode {
            endpoint: parts.endpoint,
            path: error.path,
            detail: error.detail,
        }),
        item => Ok(item),
    }
}

fn decode_event(parts: &ResponseParts<'_>) -> Result<EventHistoryItem, ApiError> {
    let item: EventHistoryItem = decode_json(parts)?;
    if let Some(UpdateItem::Malformed { error, .. }) = &item.update {
        return Err(ApiError::Decode {
            endpoint: parts.endpoint,
            path: error.path.clone(),
            detail: error.detail.clone(),
        });
    }
    Ok(item)
}

fn with_encoding<T>(call: Call<T>, encoding: &ValueEncoding) -> Call<T> {
    call.query("contract_value_encoding", encoding.as_str())
        .query("daml_value_encoding", encoding.as_str())
}

/// `POST /v2/updates`: a page of the update history.
pub fn updates(req: &UpdatesRequest) -> Call<UpdatesPage> {
    Call::new(
        "scan POST /v2/updates",
        Group::Scan,
        Method::Post,
        "/v2/updates".into(),
        decode_json::<UpdatesPage>,
    )
    .json_body(req)
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
}

/// `GET /v2/updates/hash/{hash}`: the update of a prepared transaction's hash (404 when this
/// scan did not index it; try other scans).
pub fn update_by_hash(hash: &str, encoding: &ValueEncoding) -> Call<UpdateItem> {
    with_encoding(
        Call::new(
            "scan GET /v2/updates/hash/{hash}",
            Group::Scan,
            Method::Get,
            format!("/v2/updates/hash/{}", encode_segment(hash)),
            decode_single_update,
        ),
        encoding,
    )
}

/// `POST /v1/holdings/summary`.
pub fn holdings_summary(req: &HoldingsSummaryRequest) -> Call<HoldingsSummaryResponse> {
    Call::new(
        "scan POST /v1/holdings/summary",
        Group::Scan,
        Method::Post,
        "/v1/holdings/summary".into(),
        decode_json::<HoldingsSummaryResponse>,
    )
    .json_body(req)
}

/// `GET /v0/validators/validator-faucets?validator_ids=…` (one parameter per id).
pub fn validator_faucets(validator_ids: &[String]) -> Call<ValidatorFaucets> {
    let mut call = Call::new(
        "scan GET /v0/validators/validator-faucets",
        Group::Scan,
        Method::Get,
        "/v0/validators/validator-faucets".into(),
        decode_json::<ValidatorFaucets>,
    );
    for id in validator_ids {
        call = call.query("validator_ids", id.as_str());
    }
    call
}

/// `GET /v0/sv-bft-sequencers`.
pub fn bft_sequencers() -> Call<BftSequencers> {
    Call::new(
        "scan GET /v0/sv-bft-sequencers",
        Group::Scan,
        Method::Get,
        "/v0/sv-bft-sequencers".into(),
        decode_json::<BftSequencers>,
    )
}

/// `POST /v0/admin/sv/previous-sv-reward-weight`.
pub fn previous_sv_reward_weight(req: &RewardWeightRequest) -> Call<RewardWeightResponse> {
    Call::new(
        "scan POST /v0/admin/sv/previous-sv-reward-weight",
        Group::Scan,
        Method::Post,
        "/v0/admin/sv/previous-sv-reward-weight".into(),
        decode_json::<RewardWeightResponse>,
    )
    .json_body(req)
}

/// Response of the scan's own `POST /v0/amulet-rules`: the `AmuletRules` contract and its
/// synchronizer (`contract` absent when its id is the cached one the request named).
#[derive(Debug, Clone, Deserialize)]
pub struct ScanAmuletRules {
    pub amulet_rules_update: MaybeCachedContract,
}

/// `POST /v0/amulet-rules` with an empty body (nothing cached). Splice's scan spec tags it
/// internal; it is what a validator's scan connection reads the amulet rules from, on several
/// scans at once, so every scan must give the same answer.
pub fn amulet_rules() -> Call<ScanAmuletRules> {
    Call::new(
        "scan POST /v0/amulet-rules",
        Group::Scan,
        Method::Post,
        "/v0/amulet-rules".into(),
        decode_json::<ScanAmuletRules>,
    )
    .json_body(&Map::new())
}

/// `GET /v0/synchronizer-bootstrapping-transactions/{domain_id_prefix}`.
pub fn bootstrapping_transactions(domain_id_prefix: &str) -> Call<BootstrappingTransactions> {
    Call::new(
        "scan GET /v0/synchronizer-bootstrapping-transactions/{domain_id_prefix}",
        Group::Scan,
        Method::Get,
        format!(
            "/v0/synchronizer-bootstrapping-transactions/{}",
            encode_segment(domain_id_prefix)
        ),
        decode_json::<BootstrappingTransactions>,
    )
}

/// `GET /v1/domains/{domain_id}/parties/{party_id}/participant-id`.
pub fn participant_ids(domain_id: &str, party_id: &str) -> Call<ParticipantIds> {
    Call::new(
        "scan GET /v1/domains/{domain_id}/parties/{party_id}/participant-id",
        Group::Scan,
        Method::Get,
        format!(
            "/v1/domains/{}/parties/{}/participant-id",
            encode_segment(domain_id),
            encode_segment(party_id)
        ),
        decode_json::<ParticipantIds>,
    )
}

/// `GET /status`.
pub fn status() -> Call<NodeStatus> {
    Call::new(
        "scan GET /status",
        Group::Scan,
        Method::Get,
        "/status".into(),
        decode_json::<NodeStatus>,
    )
}

/// `GET /version`.
pub fn version() -> Call<Version> {
    Call::new(
        "scan GET /version",
        Group::Scan,
        Method::Get,
        "/version".into(),
        decode_json::<Version>,
    )
}

/// `GET /v0/scans`: every SV's scan, grouped by synchronizer.
pub fn scans() -> Call<DsoScans> {
    Call::new(
        "scan GET /v0/scans",
        Group::Scan,
        Method::Get,
        "/v0/scans".into(),
        decode_json::<DsoScans>,
    )
}

/// `POST /v0/open-and-issuing-mining-rounds`.
pub fn open_and_issuing_mining_rounds(
    req: &MiningRoundsRequest,
) -> Call<OpenAndIssuingMiningRounds> {
    Call::new(
        "scan POST /v0/open-and-issuing-mining-rounds",
        Group::Scan,
        Method::Post,
        "/v0/open-and-issuing-mining-rounds".into(),
        decode_json::<OpenAndIssuingMiningRounds>,
    )
    .json_body(req)
}

/// `GET /v2/updates/{update_id}`: one update of the history (BFT-safe: every scan that has it
/// returns the same body).
pub fn update_by_id(update_id: &str, encoding: &ValueEncoding) -> Call<UpdateItem> {
    with_encoding(
        Call::new(
            "scan GET /v2/updates/{update_id}",
            Group::Scan,
            Method::Get,
            format!("/v2/updates/{}", encode_segment(update_id)),
            decode_single_update,
        ),
        encoding,
    )
}

/// `GET /v0/backfilling/status` (internal endpoint; local to one SV).
pub fn backfilling_status() -> Call<BackfillingStatus> {
    Call::new(
        "scan GET /v0/backfilling/status",
        Group::Scan,
        Method::Get,
        "/v0/backfilling/status".into(),
        decode_json::<BackfillingStatus>,
    )
}

/// Response of `GET /v0/domains/{domain_id}/members/{member_id}/traffic-status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MemberTrafficStatusResponse {
    #[serde(default, deserialize_with = "nd")]
    pub traffic_status: MemberTrafficStatus,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// A member's traffic on a synchronizer: what the sequencer enforces (`actual`) and what was
/// bought (`target`; ahead of `actual.total_limit` while a top-up is being applied).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MemberTrafficStatus {
    #[serde(default, deserialize_with = "nd")]
    pub actual: ActualMemberTraffic,
    #[serde(default, deserialize_with = "nd")]
    pub target: TargetMemberTraffic,
}

/// Extra traffic consumed and the limit the sequencer enforces, in bytes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ActualMemberTraffic {
    #[serde(default, deserialize_with = "int")]
    pub total_consumed: i64,
    #[serde(default, deserialize_with = "int")]
    pub total_limit: i64,
}

/// Extra traffic purchased in total, in bytes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TargetMemberTraffic {
    #[serde(default, deserialize_with = "int")]
    pub total_purchased: i64,
}

/// The sequencer member id of a participant: `PAR::` prefixed when it is a bare
/// `id::fingerprint` (the Ledger API names its participant without the prefix); a member id
/// that already has a code (`PAR::…`, `MED::…`) is kept.
pub fn participant_member_id(participant_id: &str) -> String {
    let id = participant_id.trim();
    if id.matches("::").count() >= 2 {
        id.to_string()
    } else {
        format!("PAR::{id}")
    }
}

/// `GET /v0/domains/{domain_id}/members/{member_id}/traffic-status` (`member_id`:
/// `PAR::id::fingerprint` or `MED::id::fingerprint`).
pub fn member_traffic_status(
    domain_id: &str,
    member_id: &str,
) -> Call<MemberTrafficStatusResponse> {
    Call::new(
        "scan GET /v0/domains/{domain_id}/members/{member_id}/traffic-status",
        Group::Scan,
        Method::Get,
        format!(
            "/v0/domains/{}/members/{}/traffic-status",
            encode_segment(domain_id),
            encode_segment(member_id)
        ),
        decode_json::<MemberTrafficStatusResponse>,
    )
}
