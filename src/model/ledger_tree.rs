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
    roots: Vec<NodeId>,
    children: Vec<Vec<NodeId>>,
    parents: Vec<Option<NodeId>>,
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
        let mut children: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        let mut parents: Vec<Option<NodeId>> = vec![None; n];
        let mut roots = Vec::new();
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
                roots.push(node);
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
            match parent {
                Some((p, _)) => {
                    children[p].push(node);
                    parents[node] = Some(p);
                    for &(ancestor, _) in &stack {
                        present[ancestor] += 1;
                    }
                }
                None => roots.push(node),
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
            roots,
            children,
            parents,
        }
    }

    /// The transaction tree.
    pub fn tree(&self) -> &JsTransactionTree {
        &self.tree
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the tree has no nodes.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
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

impl LedgerTree {
    /// The top-level nodes, in order.
    pub fn roots(&self) -> &[NodeId] {
        &self.roots
    }

    /// The children of `id`, in order (empty for leaves and unknown ids).
    pub fn children(&self, id: NodeId) -> &[NodeId] {
        self.children.get(id).map_or(&[], |c| c.as_slice())
    }

    /// The parent of `id` (`None` for roots).
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.parents.get(id).copied().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::theme::Theme;
    use crate::ui::tree::{TreeSource, TreeState};
    use serde_json::{Value, json};

    fn exercised(node: i64, last: i64, choice: &str) -> Value {
        json!({"ExercisedTreeEvent": {"value": {
            "offset": 7, "nodeId": node, "contractId": format!("00c{node}"),
            "templateId": "pkg:Mod:T", "choice": choice, "choiceArgument": {},
            "actingParties": ["alice::1220"], "consuming": false, "witnessParties": [],
            "lastDescendantNodeId": last, "exerciseResult": null, "packageName": "p",
            "implementedInterfaces": []
        }}})
    }

    fn created(node: i64) -> Value {
        json!({"CreatedTreeEvent": {"value": {
            "offset": 7, "nodeId": node, "contractId": format!("00c{node}"),
            "templateId": "pkg:Mod:T", "createArgument": {}, "witnessParties": [],
            "signatories": [], "observers": [], "createdAt": "2024-01-01T00:00:00Z",
            "packageName": "p"
        }}})
    }

    fn tree(events: Vec<(&str, Value)>) -> LedgerTree {
        let by_id: serde_json::Map<String, Value> = events
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let t: JsTransactionTree = serde_json::from_value(json!({
            "updateId": "u1", "effectiveAt": "2024-01-01T00:00:00Z", "offset": 7,
            "eventsById": by_id, "synchronizerId": "s::1", "recordTime": "2024-01-01T00:00:00Z"
        }))
        .expect("tree decodes");
        LedgerTree::new(Arc::new(t))
    }

    /// The visible rows as (node id, depth) after expanding everything.
    fn shape(t: &LedgerTree) -> Vec<(i64, usize)> {
        let mut s = TreeState::new(t);
        s.expand_all(t);
        let ids: Vec<NodeId> = s.visible_ids().collect();
        ids.iter()
            .enumerate()
            .map(|(row, &n)| {
                (
                    t.node_id(n).expect("numeric"),
                    s.depth_of_row(row).expect("row"),
                )
            })
            .collect()
    }

    #[test]
    fn nesting_comes_from_ranges_in_numeric_order() {
        // Keys sort as text "0" < "10" < "2": the tree must follow numbers, not text.
        // 0 covers 1..=3; 1 covers 2..=2; 4 covers 5..=10; 10 is a leaf.
        let t = tree(vec![
            ("0", exercised(0, 3, "Outer")),
            ("1", exercised(1, 2, "Inner")),
            ("2", created(2)),
            ("3", created(3)),
            ("4", exercised(4, 10, "Second")),
            ("10", created(10)),
            ("5", created(5)),
        ]);
        assert_eq!(
            shape(&t),
            [(0, 0), (1, 1), (2, 2), (3, 1), (4, 0), (5, 1), (10, 1)]
        );
        let root = t.node_of(0).expect("node 0");
        assert_eq!(t.parent(t.node_of(2).expect("node 2")), t.node_of(1));
        assert_eq!(t.parent(root), None);
        assert_eq!(t.nodes_on_contract("00c3"), vec![t.node_of(3).expect("3")]);
    }

    #[test]
    fn gaps_are_counted_and_labelled() {
        // 0 covers 1..=6 but the reader sees only 2 and 5 (1, 3, 4, 6 are hidden).
        let t = tree(vec![
            ("0", exercised(0, 6, "Transfer")),
            ("2", created(2)),
            ("5", exercised(5, 5, "Leaf")),
            ("9", created(9)),
        ]);
        assert_eq!(shape(&t), [(0, 0), (2, 1), (5, 1), (9, 0)]);
        let root = t.node_of(0).expect("node 0");
        assert_eq!(t.hidden_descendants(root), 4);
        assert_eq!(t.hidden_descendants(t.node_of(5).expect("5")), 0);
        let label: String = t
            .label(root, &Theme::default())
            .spans
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(label, "#0 exercised Transfer  00c0  Mod:T  (+4 hidden)");
    }

    #[test]
    fn hostile_ranges_are_clipped() {
        // 1's range (to 50) exceeds its parent's (to 3): 4 must not nest under 1.
        // 7 claims a last descendant below itself: no children. "x" is not a number.
        let t = tree(vec![
            ("0", exercised(0, 3, "A")),
            ("1", exercised(1, 50, "B")),
            ("4", created(4)),
            ("7", exercised(7, 2, "C")),
            ("8", created(8)),
            ("x", created(99)),
        ]);
        assert_eq!(shape(&t), [(0, 0), (1, 1), (4, 0), (7, 0), (8, 0), (99, 0)]);
        // 1 was clipped to 2..=3: both hidden.
        assert_eq!(t.hidden_descendants(t.node_of(1).expect("1")), 2);
        assert_eq!(t.len(), 6);
    }
}
