//! The event tree of a JSON Ledger API `JsTransactionTree` (its shape; `ui::tree_labels` draws its labels).
//!
//! The ledger sends no child lists: `eventsById` is keyed by node id (an integer as text) and an
//! exercised node covers the node ids `nodeId + 1 ..= lastDescendantNodeId`. Nesting is rebuilt
//! from those ranges in node-id order with a stack of open ranges. Node ids may have gaps (nodes
//! the reading party does not see): each node records how many ids of its range are hidden, and
//! the label says so. Untrusted ranges are clipped: a child's range never extends past its
//! parent's, a `lastDescendantNodeId` below the node's own id means "no descendants", and keys
//! that are not integers become trailing roots.
//!
//! ```text
//! ▾ #0 exercised AmuletRules_Transfer  00ab…  Splice.AmuletRules:AmuletRules  (+2 hidden)
//! ├─  #1 created Splice.Amulet:Amulet  00cd…
//! └─  #4 exercised Amulet_Archive  consuming  00ef…  Splice.Amulet:Amulet
//! ```

use std::sync::Arc;

use super::NodeId;
use super::forest::Forest;
use crate::api::ledger::{JsTransactionTree, TreeEvent};

/// The event tree of one ledger transaction tree.
#[derive(Debug, Clone)]
pub struct LedgerTree {
    tree: Arc<JsTransactionTree>,
    /// `eventsById` key of each node, in node-id order.
    keys: Vec<Box<str>>,
    /// Numeric node id of each node (`None` when neither the key nor the event gives one).
    node_ids: Vec<Option<i64>>,
    /// Node ids inside each node's (clipped) range that are not in the tree.
    hidden: Vec<u32>,
    forest: Forest,
}

impl LedgerTree {
    /// Builds the tree of `tree` from its node-id ranges.
    pub fn new(tree: Arc<JsTransactionTree>) -> Self {
        // (numeric id, key) sorted by id then key; non-integers last.
        let mut order: Vec<(Option<i64>, Box<str>)> = tree
            .events_by_id
            .iter()
            .map(|(k, ev)| {
                let id = k
                    .trim()
                    .parse::<i64>()
                    .ok()
                    .or_else(|| ev.node_id().map(i64::from));
                (id, k.as_str().into())
            })
            .collect();
        order.sort_by(|a, b| match (a.0, b.0) {
            (Some(x), Some(y)) => x.cmp(&y).then_with(|| a.1.cmp(&b.1)),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => a.1.cmp(&b.1),
        });
        let n = order.len();
        let mut keys = Vec::with_capacity(n);
        let mut node_ids = Vec::with_capacity(n);
        let mut forest = Forest::with_capacity(n);
        // Effective last descendant id and count of present descendants per node.
        let mut last: Vec<i64> = vec![0; n];
        let mut present: Vec<u64> = vec![0; n];
        // Open ranges: (node, effective last id).
        let mut stack: Vec<(NodeId, i64)> = Vec::new();
        for (node, (id, key)) in order.into_iter().enumerate() {
            let event = tree.events_by_id.get(&*key);
            keys.push(key);
            node_ids.push(id);
            let Some(id) = id else {
                // No position in the id space: a trailing root without children.
                stack.clear();
                forest.push(None);
                last[node] = i64::MIN;
                continue;
            };
            while stack.last().is_some_and(|&(_, end)| id > end) {
                stack.pop();
            }
            let parent = stack.last().copied();
            let own_last = match event {
                Some(TreeEvent::ExercisedTreeEvent(e)) => i64::from(e.last_descendant_node_id),
                _ => id,
            }
            .max(id);
            let eff_last = parent.map_or(own_last, |(_, end)| own_last.min(end));
            last[node] = eff_last;
            forest.push(parent.map(|(p, _)| p));
            for &(ancestor, _) in &stack {
                present[ancestor] += 1;
            }
            if eff_last > id {
                stack.push((node, eff_last));
            }
        }
        let hidden = (0..n)
            .map(|i| match node_ids[i] {
                Some(id) if last[i] > id => {
                    let range = u64::try_from(last[i] - id).unwrap_or(0);
                    u32::try_from(range.saturating_sub(present[i])).unwrap_or(u32::MAX)
                }
                _ => 0,
            })
            .collect();
        LedgerTree {
            tree,
            keys,
            node_ids,
            hidden,
            forest,
        }
    }

    /// The transaction tree.
    pub fn tree(&self) -> &JsTransactionTree {
        &self.tree
    }

    /// The event of a node.
    pub fn event(&self, node: NodeId) -> Option<&TreeEvent> {
        self.keys
            .get(node)
            .and_then(|k| self.tree.events_by_id.get(&**k))
    }

    /// The `eventsById` key of a node.
    pub fn key(&self, node: NodeId) -> Option<&str> {
        self.keys.get(node).map(|k| &**k)
    }

    /// The ledger node id of a node.
    pub fn node_id(&self, node: NodeId) -> Option<i64> {
        self.node_ids.get(node).copied().flatten()
    }

    /// How many node ids inside a node's range are not visible to the reader (gaps).
    pub fn hidden_descendants(&self, node: NodeId) -> u32 {
        self.hidden.get(node).copied().unwrap_or(0)
    }

    /// The node showing ledger node id `node_id`.
    pub fn node_of(&self, node_id: i64) -> Option<NodeId> {
        self.node_ids.iter().position(|n| *n == Some(node_id))
    }

    /// Nodes whose event is on `contract_id`, in tree order.
    pub fn nodes_on_contract(&self, contract_id: &str) -> Vec<NodeId> {
        (0..self.keys.len())
            .filter(|&n| match self.event(n) {
                Some(TreeEvent::CreatedTreeEvent(c)) => c.contract_id == contract_id,
                Some(TreeEvent::ExercisedTreeEvent(e)) => e.contract_id == contract_id,
                _ => false,
            })
            .collect()
    }
}

/// The tree's shape (roots, children, parents, number of nodes).
impl std::ops::Deref for LedgerTree {
    type Target = Forest;
    fn deref(&self) -> &Forest {
        &self.forest
    }
}
