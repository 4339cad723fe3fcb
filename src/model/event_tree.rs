//! The event tree of a scan transaction (its shape; `ui::tree_labels` draws its labels): nodes in the order given by
//! `root_event_ids` and each exercised event's `child_event_ids` (never the key order of
//! `events_by_id`). Unresolvable ids become "missing" nodes instead of disappearing.
//!
//! A key that `events_by_id` lists more than once decodes to its last copy (JSON object
//! semantics); the tree records every such key and how often it came ([`ScanTree::duplicates`])
//! so the details can say which copy is shown instead of hiding the others silently.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, LazyLock};

use super::NodeId;
use super::forest::Forest;
use crate::api::json::RawJson;
use crate::api::scan::{EventHistoryItem, Transaction, TreeEvent, UpdateItem};

/// What a tree borrows its transaction from: the transaction itself, or a whole
/// `/v0/events/{id}` body (so the Update pane shares the cached body instead of cloning it).
#[derive(Debug, Clone)]
enum Owner {
    Tx(Arc<Transaction>),
    Body(Arc<EventHistoryItem>),
}

/// Stands in for a body whose update is not a transaction (never built: see
/// [`ScanTree::from_body`]); keeps [`ScanTree::transaction`] infallible.
static EMPTY_TX: LazyLock<Transaction> = LazyLock::new(|| Transaction {
    update_id: String::new(),
    migration_id: 0,
    workflow_id: String::new(),
    record_time: String::new(),
    synchronizer_id: String::new(),
    effective_at: String::new(),
    root_event_ids: Vec::new(),
    events_by_id: BTreeMap::new(),
    external_transaction_hash: None,
    raw: RawJson::null(),
});

impl Owner {
    fn tx(&self) -> &Transaction {
        match self {
            Owner::Tx(t) => t,
            Owner::Body(b) => match &b.update {
                Some(UpdateItem::Transaction(t)) => t,
                _ => &EMPTY_TX,
            },
        }
    }
}

/// The event tree of one transaction.
#[derive(Debug, Clone)]
pub struct ScanTree {
    tx: Owner,
    /// Event id of each node, in pre-order.
    ids: Vec<Box<str>>,
    forest: Forest,
    /// Keys `events_by_id` repeats in the server's JSON, each with how many times it came.
    duplicates: Vec<(Box<str>, u32)>,
}

impl ScanTree {
    /// Builds the tree of `tx` (cycles and repeated ids in untrusted data are cut).
    pub fn new(tx: Arc<Transaction>) -> Self {
        Self::build(Owner::Tx(tx))
    }

    /// Builds the tree of a `/v0/events/{id}` body whose update is a transaction (None for
    /// reassignments and bodies without an update). Shares the body: nothing is cloned.
    pub fn from_body(body: Arc<EventHistoryItem>) -> Option<Self> {
        match &body.update {
            Some(UpdateItem::Transaction(_)) => Some(Self::build(Owner::Body(body))),
            _ => None,
        }
    }

    fn build(tx: Owner) -> Self {
        let mut ids: Vec<Box<str>> = Vec::new();
        let mut forest = Forest::default();
        // Stack of (parent node at each depth).
        let mut path: Vec<NodeId> = Vec::new();
        for item in tx.tx().walk() {
            ids.push(item.id.into());
            path.truncate(item.depth);
            let id = forest.push(path.last().copied());
            path.push(id);
        }
        let duplicates = duplicate_event_keys(tx.tx().raw.get());
        ScanTree {
            tx,
            ids,
            forest,
            duplicates,
        }
    }

    /// Keys `events_by_id` lists more than once in the server's JSON, with how many times each
    /// came (only the last copy of each is in the decoded transaction).
    pub fn duplicates(&self) -> &[(Box<str>, u32)] {
        &self.duplicates
    }

    /// How many times `events_by_id` lists the event of `id` (1 when it is not repeated).
    pub fn copies_of(&self, id: NodeId) -> u32 {
        let Some(event_id) = self.event_id(id) else {
            return 1;
        };
        self.duplicates
            .iter()
            .find(|(k, _)| {
                crate::api::scan::strip_hash(k) == crate::api::scan::strip_hash(event_id)
            })
            .map_or(1, |&(_, n)| n)
    }

    /// The transaction.
    pub fn transaction(&self) -> &Transaction {
        self.tx.tx()
    }

    /// The event id of a node.
    pub fn event_id(&self, id: NodeId) -> Option<&str> {
        self.ids.get(id).map(|s| &**s)
    }

    /// The event of a node (None for ids that do not resolve).
    pub fn event(&self, id: NodeId) -> Option<&TreeEvent> {
        self.event_id(id).and_then(|e| self.tx.tx().event(e))
    }

    /// The node showing `event_id`.
    pub fn node_of(&self, event_id: &str) -> Option<NodeId> {
        let bare = crate::api::scan::strip_hash(event_id);
        self.ids
            .iter()
            .position(|i| crate::api::scan::strip_hash(i) == bare)
    }

    /// Nodes whose event is on `contract_id`, in tree order.
    pub fn nodes_on_contract(&self, contract_id: &str) -> Vec<NodeId> {
        (0..self.ids.len())
            .filter(|&n| {
                self.event(n)
                    .is_some_and(|e| e.contract_id() == contract_id)
            })
            .collect()
    }

    /// Index from event id to node (for callers doing many lookups).
    pub fn index(&self) -> HashMap<&str, NodeId> {
        self.ids
            .iter()
            .enumerate()
            .map(|(n, id)| (&**id, n))
            .collect()
    }
}

/// The tree's shape (roots, children, parents, number of nodes).
impl std::ops::Deref for ScanTree {
    type Target = Forest;
    fn deref(&self) -> &Forest {
        &self.forest
    }
}

/// Keys repeated in the `events_by_id` object of a transaction's JSON, in first-seen order,
/// each with its count. One pass over the text; values are skipped, not decoded. Anything that
/// is not such an object gives an empty list.
pub fn duplicate_event_keys(raw: &str) -> Vec<(Box<str>, u32)> {
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
    use std::fmt;

    struct Keys;
    impl<'de> DeserializeSeed<'de> for Keys {
        type Value = Vec<(Box<str>, u32)>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for Keys {
        type Value = Vec<(Box<str>, u32)>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("events_by_id")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut counts: HashMap<String, u32> = HashMap::new();
            let mut order: Vec<String> = Vec::new();
            while let Some(key) = map.next_key::<String>()? {
                map.next_value::<IgnoredAny>()?;
                let n = counts.entry(key.clone()).or_insert(0);
                *n += 1;
                if *n == 2 {
                    order.push(key);
                }
            }
            Ok(order
                .into_iter()
                .map(|k| {
                    let n = counts.get(&k).copied().unwrap_or(2);
                    (k.into_boxed_str(), n)
                })
                .collect())
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
    }

    struct Top;
    impl<'de> Visitor<'de> for Top {
        type Value = Vec<(Box<str>, u32)>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a transaction")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = Vec::new();
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "events_by_id" {
                    // A repeated `events_by_id` key: the last one is the one decoded.
                    found = map.next_value_seed(Keys)?;
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }

    let mut de = serde_json::Deserializer::from_str(raw);
    de.deserialize_map(Top).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_event_keys_are_found_with_their_count() {
        let raw = r#"{"update_id":"u","events_by_id":{"u:0":{"a":1},"u:1":{},"u:0":{"b":[1,{"u:1":2}]},"u:0":null,"u:1":3},"root_event_ids":["u:0"]}"#;
        assert_eq!(
            duplicate_event_keys(raw),
            vec![("u:0".into(), 3), ("u:1".into(), 2)]
        );
        assert!(duplicate_event_keys(r#"{"events_by_id":{"a":1,"b":2}}"#).is_empty());
        assert!(duplicate_event_keys("null").is_empty());
        assert!(duplicate_event_keys(r#"{"events_by_id":[1,2]}"#).is_empty());
        assert!(duplicate_event_keys("{\"events_by_id\":{\"a\":1,\"a\"").is_empty());
    }
}
