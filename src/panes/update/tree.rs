//! The event tree of a transaction in the Update pane: its keys, the selection wanted when an
//! update opens, and the details panel following the selection.

use crate::api::scan::TreeEvent;
use crate::msg::Command;
use crate::ui::tree::TreeCommand;

use super::details::tx_details;
use super::{Content, Focus, UpdatePane, Want};

impl UpdatePane {
    /// Moves focus to the tree (when there is one).
    pub(super) fn focus_tree(&mut self) -> bool {
        if matches!(self.content, Some(Content::Tx(_))) && self.focus != Focus::Tree {
            self.focus = Focus::Tree;
            return true;
        }
        false
    }

    /// Whether the selected tree node has a parent (Backspace goes there; on a root it goes
    /// back).
    pub(super) fn tree_has_parent(&self) -> bool {
        match &self.content {
            Some(Content::Tx(v)) => v
                .state
                .selected()
                .is_some_and(|n| v.tree.parent(n).is_some()),
            _ => false,
        }
    }

    /// A tree command. Returns whether it was used.
    pub(super) fn tree_command(&mut self, cmd: Command) -> bool {
        let Some(Content::Tx(v)) = &mut self.content else {
            return false;
        };
        match v.state.command(&v.tree, cmd) {
            TreeCommand::Unused => return false,
            // Into the details only from a node (with nothing selected there is nothing to show).
            TreeCommand::Details if v.state.selected().is_some() => self.focus = Focus::Details,
            TreeCommand::Details | TreeCommand::Done => {}
        }
        self.sync_details();
        self.apply_viewports();
        true
    }

    pub(super) fn apply_want(&mut self, want: &Want) {
        let Some(Content::Tx(v)) = &mut self.content else {
            return;
        };
        let node = match &want {
            Want::Nothing => None,
            Want::Event(e) => v.tree.node_of(e),
            Want::Contract { id, prefer_create } => {
                let nodes = v.tree.nodes_on_contract(id);
                let created = nodes
                    .iter()
                    .copied()
                    .find(|&n| matches!(v.tree.event(n), Some(TreeEvent::Created(_))));
                match (prefer_create, created) {
                    (true, Some(n)) => Some(n),
                    _ => nodes.first().copied(),
                }
            }
        };
        if let Some(n) = node {
            v.state.select_node(&v.tree, n);
            self.focus = Focus::Tree;
        }
        self.sync_details();
    }

    /// Rebuilds the details panel when the tree selection moved.
    pub(super) fn sync_details(&mut self) {
        let height = self.area_details_height();
        if let Some(Content::Tx(v)) = &mut self.content {
            let selected = v.state.selected();
            if v.details.node != selected || selected.is_none() {
                v.details = tx_details(&v.tree, selected);
                if let Some(h) = height {
                    v.details.scroll.set_viewport(h);
                }
            }
        }
    }
}
