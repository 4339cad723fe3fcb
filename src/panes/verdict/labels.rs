//! How the rows of the verdict's view tree read: `view 0  3 informees  2 quorums`, missing
//! views and views no root reaches marked. The tree's shape is [`ViewTree`] in the model.

use ratatui::text::{Line, Span};

use crate::model::verdict::ViewTree;
use crate::ui::theme::Theme;
use crate::ui::tree::{ForestLabels, NodeId};

use super::plural;

/// The view tree's shape comes from the model; its labels are drawn here.
impl ForestLabels for ViewTree {
    fn label(&self, id: NodeId, theme: &Theme) -> Line<'_> {
        let Some(view_id) = self.view_id(id) else {
            return Line::default();
        };
        let Some(view) = self.view(id) else {
            return Line::from(vec![
                Span::styled(format!("view {view_id}"), theme.accent),
                Span::styled("  missing", theme.status_err),
            ]);
        };
        let mut spans = vec![
            Span::styled(format!("view {view_id}"), theme.accent),
            Span::styled(
                format!(
                    "  {} informee{}  {} quorum{}",
                    view.informees.len(),
                    plural(view.informees.len()),
                    view.confirming_parties.len(),
                    plural(view.confirming_parties.len())
                ),
                theme.muted,
            ),
        ];
        if self.is_orphan(id) {
            spans.push(Span::styled("  (no parent)", theme.status_warn));
        }
        Line::from(spans)
    }
}
