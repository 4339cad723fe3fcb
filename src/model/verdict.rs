//! The transaction views of a mediator verdict as a tree (its shape; the Verdict pane draws
//! its labels): roots in `root_views` order, children in each view's `sub_views` order, and for
//! every view the traffic envelopes that carry it.

use std::collections::HashMap;
use std::sync::Arc;

use super::NodeId;
use super::forest::Forest;
use crate::api::scan::{EventHistoryItem, TrafficSummary, TransactionView, Verdict};

/// One node of the view tree.
#[derive(Debug, Clone)]
struct ViewNode {
    /// Index into `transaction_views.views` (None: the id does not resolve).
    view: Option<usize>,
    view_id: i32,
    /// A view no root view reaches (shown as an extra root so nothing disappears).
    orphan: bool,
}

/// The transaction views of a verdict as a tree: roots in `root_views` order, children in each
/// view's `sub_views` order. Views no root reaches become extra roots; ids that do not resolve
/// become "missing" nodes; a view referenced twice (or in a cycle) is shown once.
#[derive(Debug, Clone)]
pub struct ViewTree {
    body: Arc<EventHistoryItem>,
    nodes: Vec<ViewNode>,
    forest: Forest,
    /// Per view index: indices of the traffic envelopes whose `view_ids` include it.
    envelopes_of_view: Vec<Vec<usize>>,
}

impl ViewTree {
    /// The tree of `body`'s verdict (None when the body has no verdict).
    pub fn new(body: Arc<EventHistoryItem>) -> Option<Self> {
        let verdict = body.verdict.as_ref()?;
        let views = &verdict.transaction_views.views;
        let mut by_id: HashMap<i32, usize> = HashMap::with_capacity(views.len());
        for (i, v) in views.iter().enumerate() {
            by_id.entry(v.view_id).or_insert(i);
        }
        let mut visited = vec![false; views.len()];
        let mut nodes: Vec<ViewNode> = Vec::with_capacity(views.len());
        let mut forest = Forest::with_capacity(views.len());
        // Stack of (resolved view index, referenced id, parent node, orphan root).
        let mut stack: Vec<(Option<usize>, i32, Option<NodeId>, bool)> = Vec::new();
        let walk = |stack: &mut Vec<(Option<usize>, i32, Option<NodeId>, bool)>,
                    nodes: &mut Vec<ViewNode>,
                    forest: &mut Forest,
                    visited: &mut Vec<bool>| {
            while let Some((view, view_id, parent, orphan)) = stack.pop() {
                if let Some(i) = view {
                    if visited[i] {
                        continue; // shown already (repeated reference or a cycle)
                    }
                    visited[i] = true;
                }
                let id = forest.push(parent);
                nodes.push(ViewNode {
                    view,
                    view_id,
                    orphan,
                });
                if let Some(i) = view {
                    for &sub in views[i].sub_views.iter().rev() {
                        stack.push((by_id.get(&sub).copied(), sub, Some(id), false));
                    }
                }
            }
        };
        for &root in verdict.transaction_views.root_views.iter().rev() {
            stack.push((by_id.get(&root).copied(), root, None, false));
        }
        walk(&mut stack, &mut nodes, &mut forest, &mut visited);
        for i in 0..views.len() {
            if !visited[i] {
                stack.push((Some(i), views[i].view_id, None, true));
                walk(&mut stack, &mut nodes, &mut forest, &mut visited);
            }
        }
        let mut envelopes_of_view = vec![Vec::new(); views.len()];
        if let Some(traffic) = &body.traffic_summary {
            for (e, env) in traffic.envelope_traffic_summaries.iter().enumerate() {
                for vid in &env.view_ids {
                    if let Some(&i) = by_id.get(vid)
                        && envelopes_of_view[i].last() != Some(&e)
                    {
                        envelopes_of_view[i].push(e);
                    }
                }
            }
        }
        Some(ViewTree {
            body,
            nodes,
            forest,
            envelopes_of_view,
        })
    }

    fn verdict(&self) -> Option<&Verdict> {
        self.body.verdict.as_ref()
    }

    /// The traffic summary of the update (None for older data).
    pub fn traffic_summary(&self) -> Option<&TrafficSummary> {
        self.body.traffic_summary.as_ref()
    }

    /// The view id a node shows.
    pub fn view_id(&self, node: NodeId) -> Option<i32> {
        self.nodes.get(node).map(|n| n.view_id)
    }

    /// The view of a node (None for missing views).
    pub fn view(&self, node: NodeId) -> Option<&TransactionView> {
        let i = self.nodes.get(node)?.view?;
        self.verdict()?.transaction_views.views.get(i)
    }

    /// Indices of the traffic envelopes that include the view of `node`.
    pub fn envelopes(&self, node: NodeId) -> &[usize] {
        self.nodes
            .get(node)
            .and_then(|n| n.view)
            .and_then(|i| self.envelopes_of_view.get(i))
            .map_or(&[], Vec::as_slice)
    }

    /// View ids of every node in pre-order (tree order).
    pub fn preorder_view_ids(&self) -> Vec<i32> {
        self.forest
            .preorder()
            .filter_map(|n| self.view_id(n))
            .collect()
    }

    /// Whether `id` is a view no root view reaches (shown as an extra root).
    pub fn is_orphan(&self, id: NodeId) -> bool {
        self.nodes.get(id).is_some_and(|n| n.orphan)
    }
}

/// The tree's shape: roots in `root_views` order, then views no root reaches; children in
/// `sub_views` order.
impl std::ops::Deref for ViewTree {
    type Target = Forest;
    fn deref(&self) -> &Forest {
        &self.forest
    }
}

/// Why an event with a verdict has no transaction in the update history (`update: null` on
/// `/v0/events`), by its verdict's result: a rejected confirmation request commits nothing; an
/// accepted one the scan shows no update of is a wholly private transaction.
pub fn no_update_why(result: &crate::api::scan::VerdictResult) -> &'static str {
    use crate::api::scan::VerdictResult;
    match result {
        VerdictResult::Rejected => {
            "No transaction in the update history: the mediator rejected the request, so nothing was committed."
        }
        VerdictResult::Accepted => {
            "No transaction in the update history: a wholly private transaction (the scan's parties see only its verdict)."
        }
        _ => "No transaction in the update history: only this verdict is recorded.",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tree(verdict: &serde_json::Value, traffic: &serde_json::Value) -> ViewTree {
        let body = json!({"update": null, "verdict": verdict, "traffic_summary": traffic});
        let body: EventHistoryItem = serde_json::from_str(&body.to_string()).expect("body decodes");
        ViewTree::new(Arc::new(body)).expect("a verdict")
    }

    fn view(id: i32, sub_views: &[i32]) -> serde_json::Value {
        json!({"view_id": id, "informees": [], "confirming_parties": [], "sub_views": sub_views})
    }

    #[test]
    fn shape_follows_root_views_and_sub_views() {
        let verdict = json!({
            "verdict_result": "VERDICT_RESULT_ACCEPTED",
            "transaction_views": {
                "views": [view(0, &[2, 1]), view(1, &[]), view(2, &[]), view(3, &[]), view(7, &[0])],
                "root_views": [0, 3, 9]
            }
        });
        let traffic = json!({
            "total_traffic_cost": 10,
            "envelope_traffic_summaries": [
                {"traffic_cost": 6, "view_ids": [0, 2, 2]},
                {"traffic_cost": 4, "view_ids": [3]}
            ]
        });
        let t = tree(&verdict, &traffic);
        assert_eq!(t.preorder_view_ids(), [0, 2, 1, 3, 9, 7]);
        assert_eq!(t.len(), 6);
        let ids = |nodes: &[NodeId]| -> Vec<Option<i32>> {
            nodes.iter().map(|&n| t.view_id(n)).collect()
        };
        assert_eq!(ids(t.roots()), [Some(0), Some(3), Some(9), Some(7)]);
        let root = t.roots()[0];
        assert_eq!(ids(t.children(root)), [Some(2), Some(1)]);
        assert!(t.children(root).iter().all(|&c| t.parent(c) == Some(root)));
        assert_eq!(t.parent(root), None);
        let missing = t.roots()[2];
        assert!(
            t.view(missing).is_none(),
            "view 9 is referenced, not listed"
        );
        let orphan = t.roots()[3];
        assert!(t.is_orphan(orphan) && !t.is_orphan(root));
        assert!(
            t.children(orphan).is_empty(),
            "view 0 is shown once, under its root"
        );
        assert_eq!(t.envelopes(root), [0]);
        assert_eq!(
            t.envelopes(t.children(root)[0]),
            [0],
            "listed twice, counted once"
        );
        assert_eq!(t.envelopes(t.roots()[1]), [1]);
        assert_eq!(t.traffic_summary().map(|s| s.total_traffic_cost), Some(10));
        assert!(t.children(99).is_empty() && t.parent(99).is_none() && !t.is_orphan(99));
    }
}
