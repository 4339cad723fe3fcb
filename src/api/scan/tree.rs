//! A scan transaction's events (`events_by_id`) and its tree: created and exercised events,
//! the event-id helpers and the depth-first [`TreeWalk`].

use crate::api::json::{RawJson, nd};
use serde::de::Deserializer;
use serde::{Deserialize, Serialize, Serializer};
use std::collections::{BTreeMap, HashSet};

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
    /// foldhash (seeded per process, as the interner's): SipHash was 3–4% of a History page's
    /// ingest, which walks every transaction's tree for its summary.
    seen: HashSet<&'a str, foldhash::fast::RandomState>,
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
            seen: HashSet::with_capacity_and_hasher(
                self.events_by_id.len(),
                foldhash::fast::RandomState::default(),
            ),
        }
    }
}

impl Serialize for Transaction {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(s)
    }
}
