//! The update history: `POST /v2/updates` pages, `GET /v2/updates/{update_id}` and
//! `GET /v2/updates/hash/{hash}`. Each item keeps its raw JSON and decodes on its own, so one
//! odd item becomes [`UpdateItem::Malformed`] instead of failing the page.

use super::tree::{CreatedEvent, Transaction, TreeEvent};
use super::{ValueEncoding, with_encoding};
use crate::api::call::{Call, Group, Method, ResponseParts, encode_segment};
use crate::api::error::ApiError;
use crate::api::json::{
    RawJson, decode_with_path, int, join_path, lenient_string, nd, opt_int, split_error,
};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::fmt;

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

impl ItemError {
    /// This error as the decode error of `endpoint`'s answer (a single update, not a page).
    pub(super) fn decode_error(&self, endpoint: &'static str) -> ApiError {
        ApiError::Decode {
            endpoint,
            path: self.path.clone(),
            detail: self.detail.clone(),
        }
    }
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
        Self::from_raw_with(raw, &|| prefix.to_owned())
    }

    /// [`UpdateItem::from_raw`] for item `index` of a page's `transactions`, its path written
    /// only for an error (written for each item, it was 1–2% of a page's decode).
    pub fn from_raw_in_page(raw: RawJson, index: usize) -> UpdateItem {
        Self::from_raw_with(raw, &|| format!("transactions[{index}]"))
    }

    fn from_raw_with(raw: RawJson, prefix: &dyn Fn() -> String) -> UpdateItem {
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
                        path: join_path(&prefix(), &path),
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
pub(super) struct ItemRepr {
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
    pub(super) fn into_item(self, raw: RawJson, prefix: &dyn Fn() -> String) -> UpdateItem {
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
                    path: join_path(&prefix(), "."),
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
            out.push(UpdateItem::from_raw_in_page(raw, out.len()));
        }
        Ok(out)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
}

/// The items of a `POST /v2/updates` answer's body, each item's text borrowed from `body`,
/// nothing of them decoded yet: the page split once, so that its items can be decoded apart
/// (on several threads) with [`UpdateItem::from_raw`] and the path `transactions[i]` — the
/// same items [`UpdatesPage`]'s own decoding makes. `None` when the body is not such a page
/// (its own decoding then says why).
pub fn page_item_texts(body: &[u8]) -> Option<Vec<&RawValue>> {
    #[derive(Deserialize)]
    struct Texts<'a> {
        #[serde(borrow, default)]
        transactions: Option<Vec<&'a RawValue>>,
    }
    serde_json::from_slice::<Texts<'_>>(body)
        .ok()
        .map(|t| t.transactions.unwrap_or_default())
}

fn page_items<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<UpdateItem>, D::Error> {
    d.deserialize_any(PageItems)
}

pub(super) fn opt_update_item<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<UpdateItem>, D::Error> {
    let raw = Option::<RawJson>::deserialize(d)?;
    Ok(raw
        .filter(|r| !r.is_null())
        .map(|r| UpdateItem::from_raw(r, "update")))
}

/// Decodes a single update; a malformed update is a decode error here (not a page).
fn decode_single_update(parts: &ResponseParts<'_>) -> Result<UpdateItem, ApiError> {
    let raw: RawJson = decode_with_path(parts.body).map_err(|(path, detail)| ApiError::Decode {
        endpoint: parts.endpoint,
        path,
        detail,
    })?;
    match UpdateItem::from_raw(raw, ".") {
        UpdateItem::Malformed { error, .. } => Err(error.decode_error(parts.endpoint)),
        item => Ok(item),
    }
}

/// `GET /v2/updates/hash/{hash}`: the update of a prepared transaction's hash (404 when this
/// scan did not index it; try other scans).
pub fn update_by_hash(hash: &str, encoding: &ValueEncoding) -> Call<UpdateItem> {
    single_update(
        "scan GET /v2/updates/hash/{hash}",
        format!("/v2/updates/hash/{}", encode_segment(hash)),
        encoding,
    )
    .named("update-by-hash")
}

/// `GET /v2/updates/{update_id}`: one update of the history (BFT-safe: every scan that has it
/// returns the same body).
pub fn update_by_id(update_id: &str, encoding: &ValueEncoding) -> Call<UpdateItem> {
    single_update(
        "scan GET /v2/updates/{update_id}",
        format!("/v2/updates/{}", encode_segment(update_id)),
        encoding,
    )
}

fn single_update(
    endpoint: &'static str,
    path: String,
    encoding: &ValueEncoding,
) -> Call<UpdateItem> {
    with_encoding(
        Call::new(
            endpoint,
            Group::Scan,
            Method::Get,
            path,
            decode_single_update,
        ),
        encoding,
    )
}
