//! How event-tree nodes read on screen: the one-line labels of scan trees ([`ScanTree`], from
//! `child_event_ids`) and ledger trees ([`LedgerTree`], from node-id ranges). The shapes live in
//! `model/`; this is the only place they meet the theme.

use ratatui::text::{Line, Span};

use crate::api::ledger::TreeEvent as LedgerEvent;
use crate::api::scan::TreeEvent;
use crate::model::event_tree::ScanTree;
use crate::model::ledger_tree::LedgerTree;
use crate::model::summary::{short_id, short_template};
use crate::ui::theme::Theme;
use crate::ui::tree::{NodeId, TreeSource};

impl TreeSource for ScanTree {
    fn roots(&self) -> &[NodeId] {
        self.roots()
    }

    fn children(&self, id: NodeId) -> &[NodeId] {
        self.children(id)
    }

    fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.parent(id)
    }

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

impl TreeSource for LedgerTree {
    fn roots(&self) -> &[NodeId] {
        self.roots()
    }

    fn children(&self, id: NodeId) -> &[NodeId] {
        self.children(id)
    }

    fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.parent(id)
    }

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
