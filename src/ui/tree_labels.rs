//! How event-tree nodes read on screen: the one-line labels of scan trees ([`ScanTree`], from
//! `child_event_ids`) and ledger trees ([`LedgerTree`], from node-id ranges). The shapes live in
//! `model/`; this is the only place they meet the theme.

use ratatui::text::{Line, Span};

use crate::api::ledger::TreeEvent as LedgerEvent;
use crate::api::scan::TreeEvent;
use crate::model::event_tree::ScanTree;
use crate::model::format::{short_id, short_template};
use crate::model::ledger_tree::LedgerTree;
use crate::ui::theme::Theme;
use crate::ui::tree::{ForestLabels, NodeId};

impl ForestLabels for ScanTree {
    fn label(&self, id: NodeId, theme: &Theme) -> Line<'_> {
        let Some(event_id) = self.event_id(id) else {
            return Line::default();
        };
        match self.event(id) {
            // Choice, consuming and contract first: in a narrow column the template (the
            // longest part) is what gets cut.
            Some(TreeEvent::Exercised(e)) => Line::from(vec![
                Span::styled("exercised ", theme.exercised),
                Span::styled(e.choice.as_str(), theme.accent),
                Span::styled(if e.consuming { "  consuming" } else { "" }, theme.archived),
                Span::raw("  "),
                Span::styled(short_id(&e.contract_id, 12), theme.id),
                Span::raw("  "),
                Span::styled(short_template(&e.template_id), theme.muted),
            ]),
            Some(TreeEvent::Created(c)) => Line::from(vec![
                Span::styled("created ", theme.created),
                Span::styled(short_template(&c.template_id), theme.accent),
                Span::raw("  "),
                Span::styled(short_id(&c.contract_id, 12), theme.id),
            ]),
            Some(TreeEvent::Unknown { event_type, .. }) => Line::from(vec![
                Span::styled(event_type.as_str(), theme.status_warn),
                Span::raw("  "),
                Span::styled(event_id, theme.id),
            ]),
            None => Line::from(vec![
                Span::styled("missing ", theme.status_err),
                Span::styled(event_id, theme.id),
            ]),
        }
    }
}

impl ForestLabels for LedgerTree {
    fn label(&self, id: NodeId, theme: &Theme) -> Line<'_> {
        let Some(key) = self.key(id) else {
            return Line::default();
        };
        let mut spans = vec![Span::styled(
            match self.node_id(id) {
                Some(n) => format!("#{n} "),
                None => format!("#{key} "),
            },
            theme.muted,
        )];
        match self.event(id) {
            Some(LedgerEvent::ExercisedTreeEvent(e)) => {
                spans.push(Span::styled("exercised ", theme.exercised));
                spans.push(Span::styled(e.choice.as_str(), theme.accent));
                if e.consuming {
                    spans.push(Span::styled("  consuming", theme.archived));
                }
                spans.push(Span::raw("  "));
                spans.push(Span::styled(short_id(&e.contract_id, 12), theme.id));
                spans.push(Span::raw("  "));
                spans.push(Span::styled(short_template(&e.template_id), theme.muted));
            }
            Some(LedgerEvent::CreatedTreeEvent(c)) => {
                spans.push(Span::styled("created ", theme.created));
                spans.push(Span::styled(short_template(&c.template_id), theme.accent));
                spans.push(Span::raw("  "));
                spans.push(Span::styled(short_id(&c.contract_id, 12), theme.id));
            }
            Some(LedgerEvent::Unknown { kind, .. }) => {
                spans.push(Span::styled(kind.as_str(), theme.status_warn));
            }
            None => spans.push(Span::styled("missing", theme.status_err)),
        }
        let hidden = self.hidden_descendants(id);
        if hidden > 0 {
            spans.push(Span::styled(format!("  (+{hidden} hidden)"), theme.muted));
        }
        Line::from(spans)
    }
}

#[cfg(test)]
/// The ledger tree (model) as the tree view walks it: nesting from node-id ranges, labels.
mod ledger_tree_tests {
    use crate::api::ledger::JsTransactionTree;
    use crate::model::NodeId;
    use crate::model::ledger_tree::*;
    use crate::ui::theme::Theme;
    use crate::ui::tree::{TreeSource, TreeState};
    use serde_json::{Value, json};
    use std::sync::Arc;

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
