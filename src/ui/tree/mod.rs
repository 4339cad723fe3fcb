//! A generic tree view: [`TreeSource`] (implemented by the model's event trees, view trees and
//! ledger trees) and [`TreeState`], the expansion set, the cursor and the flattened list of
//! visible rows.
//!
//! The flattened list is updated incrementally: expanding a node splices in the rows of its
//! visible descendants, collapsing one removes them, so a key press costs at most the size of the
//! change. Drawing builds labels only for the rows on screen: O(visible rows) whatever the size
//! of the tree. Sources built from server data may be malformed (a child listed under two
//! parents, or a cycle): a node is never shown inside its own subtree and nesting stops at
//! [`MAX_DEPTH`], so a hostile tree cannot hang the UI; a node cut there says so on its row
//! (`⋯ 3 children not shown: depth limit 256`). Indentation stops growing at [`MAX_INDENT`]
//! levels: deeper rows show their depth as a number (`⋯37 └─`) so they stay on screen. A row
//! wider than the column ends in `…` ([`fit_line`]).
//!
//! Beside the tree view, what the panes with a tree and a details panel share: [`TreeSplit`]
//! (where `<` / `>` put the split) and sideways scrolling of the details ([`skip_columns`] for a
//! line, [`render_shifted`] for any widget).
//!
//! ```text
//! ▾ exercised AmuletRules_Transfer  #1220…:0
//! ├─▾ exercised Amulet_Archive      #1220…:1
//! │ └─  created Amulet              #1220…:3
//! └─  created Amulet                #1220…:4
//! ▸ created ValidatorLicense        #1220…:5
//! ```

use std::collections::HashSet;
use std::ops::Deref;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::model::forest::Forest;
use crate::msg::Command;
use crate::ui::safe::sanitize;
use crate::ui::scroll::{ScrollState, Scrolled};
use crate::ui::theme::Theme;

mod lines;

/// A node's id within its source (an index into the source's own arena).
pub use crate::model::NodeId;
pub use lines::{
    HSCROLL_STEP, SPLIT_RANGE, SPLIT_STEP, TreeSplit, fit_line, render_shifted, skip_columns,
};

/// Deepest nesting shown; deeper nodes are not expanded.
pub const MAX_DEPTH: usize = 256;

/// Deepest level drawn with indentation guides; deeper rows show their depth as a number.
pub const MAX_INDENT: usize = 12;

/// The data behind a tree view. Ids are chosen by the source; children come in display order.
pub trait TreeSource {
    /// The top-level nodes, in order.
    fn roots(&self) -> &[NodeId];
    /// The children of `id`, in order (empty for leaves and unknown ids).
    fn children(&self, id: NodeId) -> &[NodeId];
    /// The parent of `id` (`None` for roots). Used to reveal a node and to jump to the parent.
    fn parent(&self, id: NodeId) -> Option<NodeId>;
    /// The one-line label of `id`. Server strings in it are sanitized again when drawn.
    fn label(&self, id: NodeId, theme: &Theme) -> Line<'_>;
}

/// A tree whose shape is a [`Forest`] (the scan, ledger and verdict view trees of `model/`):
/// only its labels are its own; the walk over roots, children and parents is the forest's.
pub trait ForestLabels: Deref<Target = Forest> {
    /// The one-line label of `id`. Server strings in it are sanitized again when drawn.
    fn label(&self, id: NodeId, theme: &Theme) -> Line<'_>;
}

impl<T: ForestLabels> TreeSource for T {
    fn roots(&self) -> &[NodeId] {
        Forest::roots(self)
    }

    fn children(&self, id: NodeId) -> &[NodeId] {
        Forest::children(self, id)
    }

    fn parent(&self, id: NodeId) -> Option<NodeId> {
        Forest::parent(self, id)
    }

    fn label(&self, id: NodeId, theme: &Theme) -> Line<'_> {
        ForestLabels::label(self, id, theme)
    }
}

/// What a tree command leaves to the pane around the tree ([`TreeState::command`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeCommand {
    /// The tree moved or folded.
    Done,
    /// Enter on a leaf, or → / l on an open node or a leaf: move into the details.
    Details,
    /// Not a tree command.
    Unused,
}

impl TreeState {
    /// The commands every tree view shares (the Update and Ledger trees alike): ↑/↓, PgUp/PgDn,
    /// Home/End move; Enter folds a node; → / l expand a closed node; ← collapses; Backspace
    /// goes to the parent; expand and collapse all. Enter on a leaf and → on an open node or a
    /// leaf ask for the details (↓ walks the children).
    pub fn command<S: TreeSource + ?Sized>(&mut self, src: &S, cmd: Command) -> TreeCommand {
        if self.scroll.navigate(cmd) {
            return TreeCommand::Done;
        }
        let selected = self.selected();
        let has_children = selected.is_some_and(|n| !src.children(n).is_empty());
        match cmd {
            Command::Toggle | Command::Select if has_children => self.toggle(src),
            Command::Expand | Command::Right
                if has_children && !selected.is_some_and(|n| self.is_expanded(n)) =>
            {
                self.expand(src);
            }
            Command::Toggle | Command::Select | Command::Expand | Command::Right => {
                return TreeCommand::Details;
            }
            Command::Collapse | Command::Left => self.collapse(),
            Command::Parent => self.parent(),
            Command::ExpandAll => self.expand_all(src),
            Command::CollapseAll => self.collapse_all(src),
            _ => return TreeCommand::Unused,
        }
        TreeCommand::Done
    }
}

/// One visible row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Row {
    id: NodeId,
    depth: u16,
    /// Whether this node is the last of its siblings.
    last: bool,
    /// Bit `d` set: the ancestor at depth `d` has siblings after it (draw `│`).
    guides: u64,
}

/// Expansion, cursor and visible rows of a tree view. Holds no reference to the source: pass it
/// to every call that needs the tree's shape.
#[derive(Debug, Clone, Default)]
pub struct TreeState {
    rows: Vec<Row>,
    expanded: HashSet<NodeId>,
    scroll: ScrollState,
}

impl TreeState {
    /// A view of `src` with every node collapsed.
    pub fn new<S: TreeSource + ?Sized>(src: &S) -> Self {
        let mut state = TreeState::default();
        state.rebuild(src);
        state
    }

    /// A view of `src` with nodes expanded down to `depth` levels (0: roots only).
    pub fn with_expanded_depth<S: TreeSource + ?Sized>(src: &S, depth: usize) -> Self {
        let mut state = TreeState::default();
        state.expand_above(src, depth);
        state.rebuild(src);
        state
    }

    /// Marks expanded every node with children above `depth` (each once, cycles ignored).
    fn expand_above<S: TreeSource + ?Sized>(&mut self, src: &S, depth: usize) {
        let mut stack: Vec<(NodeId, usize)> = src.roots().iter().map(|&r| (r, 0)).collect();
        let mut seen = HashSet::new();
        while let Some((id, d)) = stack.pop() {
            if d >= depth || !seen.insert(id) {
                continue;
            }
            let children = src.children(id);
            if !children.is_empty() {
                self.expanded.insert(id);
                stack.extend(children.iter().map(|&c| (c, d + 1)));
            }
        }
    }

    /// Recomputes the rows after the source changed, keeping expansion and the selected node.
    pub fn rebuild<S: TreeSource + ?Sized>(&mut self, src: &S) {
        let selected = self.selected();
        self.rows.clear();
        let roots = src.roots();
        for (i, &root) in roots.iter().enumerate() {
            let row = Row {
                id: root,
                depth: 0,
                last: i + 1 == roots.len(),
                guides: 0,
            };
            self.rows.push(row);
            if self.expanded.contains(&root) {
                let mut below = Vec::new();
                self.collect_descendants(src, row, &[root], &mut below);
                self.rows.extend(below);
            }
        }
        self.scroll.set_len(self.rows.len());
        if let Some(id) = selected
            && let Some(i) = self.rows.iter().position(|r| r.id == id)
        {
            self.scroll.select(i);
        }
    }

    /// Visible rows of the subtree under `parent` (not including it), given its ancestors.
    fn collect_descendants<S: TreeSource + ?Sized>(
        &self,
        src: &S,
        parent: Row,
        ancestors: &[NodeId],
        out: &mut Vec<Row>,
    ) {
        // Explicit stack of (row, ancestor path length) to avoid recursion on deep trees.
        let mut path: Vec<NodeId> = ancestors.to_vec();
        // Each frame: the parent row, its children and the next child index.
        let mut frames: Vec<(Row, &[NodeId], usize)> = vec![(parent, src.children(parent.id), 0)];
        while let Some(frame) = frames.last_mut() {
            let (prow, children, next) = (frame.0, frame.1, frame.2);
            if next >= children.len() || usize::from(prow.depth) + 1 >= MAX_DEPTH {
                frames.pop();
                path.pop();
                continue;
            }
            frame.2 += 1;
            let id = children[next];
            if path.contains(&id) {
                continue; // a cycle: never show a node inside itself
            }
            let depth = prow.depth + 1;
            // Column c of a row shows `│` when its ancestor at depth c + 1 has later siblings.
            let mut guides = prow.guides;
            if prow.depth >= 1 && !prow.last && usize::from(prow.depth) <= 64 {
                guides |= 1 << (prow.depth - 1);
            }
            let row = Row {
                id,
                depth,
                last: next + 1 == children.len(),
                guides,
            };
            out.push(row);
            if self.expanded.contains(&id) {
                path.push(id);
                frames.push((row, src.children(id), 0));
            }
        }
    }

    /// Number of visible rows.
    pub fn visible_len(&self) -> usize {
        self.rows.len()
    }

    /// The node under the cursor.
    pub fn selected(&self) -> Option<NodeId> {
        self.rows.get(self.scroll.cursor()).map(|r| r.id)
    }

    /// The cursor's row index.
    pub fn cursor(&self) -> usize {
        self.scroll.cursor()
    }

    /// The node ids of visible rows, in order (for tests and search).
    pub fn visible_ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.rows.iter().map(|r| r.id)
    }

    /// The depth of the visible row `index`.
    pub fn depth_of_row(&self, index: usize) -> Option<usize> {
        self.rows.get(index).map(|r| usize::from(r.depth))
    }

    /// Whether `id` is expanded.
    pub fn is_expanded(&self, id: NodeId) -> bool {
        self.expanded.contains(&id)
    }

    fn expand_row<S: TreeSource + ?Sized>(&mut self, src: &S, index: usize) -> bool {
        let Some(&row) = self.rows.get(index) else {
            return false;
        };
        if src.children(row.id).is_empty()
            || usize::from(row.depth) + 1 >= MAX_DEPTH
            || !self.expanded.insert(row.id)
        {
            return false;
        }
        let ancestors = self.ancestors_of_row(index);
        let mut below = Vec::new();
        self.collect_descendants(src, row, &ancestors, &mut below);
        let at = index + 1;
        self.rows.splice(at..at, below);
        self.scroll.set_len(self.rows.len());
        true
    }

    fn collapse_row(&mut self, index: usize) -> bool {
        let Some(&row) = self.rows.get(index) else {
            return false;
        };
        if !self.expanded.remove(&row.id) {
            return false;
        }
        let end = self.subtree_end(index);
        self.rows.drain(index + 1..end);
        self.scroll.set_len(self.rows.len());
        true
    }

    /// Index one past the last visible descendant of row `index`.
    fn subtree_end(&self, index: usize) -> usize {
        let depth = self.rows[index].depth;
        self.rows[index + 1..]
            .iter()
            .position(|r| r.depth <= depth)
            .map_or(self.rows.len(), |p| index + 1 + p)
    }

    /// Row index of the parent of row `index` (the nearest row above with smaller depth).
    fn parent_row(&self, index: usize) -> Option<usize> {
        let depth = self.rows.get(index)?.depth;
        self.rows[..index].iter().rposition(|r| r.depth < depth)
    }

    /// Ids on the path from the root to row `index`, inclusive.
    fn ancestors_of_row(&self, index: usize) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut i = Some(index);
        while let Some(ix) = i {
            out.push(self.rows[ix].id);
            i = self.parent_row(ix);
        }
        out.reverse();
        out
    }

    /// Expands the selected node; if it is already expanded, moves to its first child.
    pub fn expand<S: TreeSource + ?Sized>(&mut self, src: &S) {
        let i = self.scroll.cursor();
        if !self.expand_row(src, i)
            && self
                .rows
                .get(i)
                .is_some_and(|r| self.expanded.contains(&r.id))
            && self
                .rows
                .get(i + 1)
                .is_some_and(|next| next.depth > self.rows[i].depth)
        {
            self.scroll.select(i + 1);
        }
    }

    /// Collapses the selected node; if it is a leaf or collapsed, moves to its parent.
    pub fn collapse(&mut self) {
        let i = self.scroll.cursor();
        if !self.collapse_row(i)
            && let Some(p) = self.parent_row(i)
        {
            self.scroll.select(p);
        }
    }

    /// Expands or collapses the selected node.
    pub fn toggle<S: TreeSource + ?Sized>(&mut self, src: &S) {
        let i = self.scroll.cursor();
        if !self.collapse_row(i) {
            self.expand_row(src, i);
        }
    }

    /// Moves the cursor to the parent of the selected node.
    pub fn parent(&mut self) {
        self.to_parent();
    }

    /// Moves the cursor to the parent of the selected node; false (nothing moves) on a root.
    pub fn to_parent(&mut self) -> bool {
        match self.parent_row(self.scroll.cursor()) {
            Some(p) => {
                self.scroll.select(p);
                true
            }
            None => false,
        }
    }

    /// Expands every node (each once, cycles ignored) and keeps the selection.
    pub fn expand_all<S: TreeSource + ?Sized>(&mut self, src: &S) {
        self.expand_above(src, MAX_DEPTH.saturating_sub(1));
        self.rebuild(src);
    }

    /// Collapses every node; the cursor goes to the root of the selected node.
    pub fn collapse_all<S: TreeSource + ?Sized>(&mut self, src: &S) {
        let root = self.ancestors_of_selected().first().copied();
        self.expanded.clear();
        self.rebuild(src);
        if let Some(root) = root
            && let Some(i) = self.rows.iter().position(|r| r.id == root)
        {
            self.scroll.select(i);
        }
    }

    fn ancestors_of_selected(&self) -> Vec<NodeId> {
        if self.rows.is_empty() {
            Vec::new()
        } else {
            self.ancestors_of_row(self.scroll.cursor())
        }
    }

    /// Selects `id`, expanding its ancestors so it is visible. False when `id` is not in the
    /// tree (its parent chain does not reach a root).
    pub fn select_node<S: TreeSource + ?Sized>(&mut self, src: &S, id: NodeId) -> bool {
        let mut chain = vec![id];
        let mut cur = id;
        while let Some(p) = src.parent(cur) {
            if chain.contains(&p) || chain.len() > MAX_DEPTH {
                return false;
            }
            chain.push(p);
            cur = p;
        }
        if !src.roots().contains(&cur) {
            return false;
        }
        let mut changed = false;
        for &ancestor in chain.iter().skip(1) {
            changed |= self.expanded.insert(ancestor);
        }
        if changed {
            self.rebuild(src);
        }
        match self.rows.iter().position(|r| r.id == id) {
            Some(i) => {
                self.scroll.select(i);
                true
            }
            None => false,
        }
    }

    /// Draws the visible window of the tree. Builds labels only for rows on screen.
    pub fn render<S: TreeSource + ?Sized>(
        &self,
        src: &S,
        area: Rect,
        buf: &mut Buffer,
        theme: &Theme,
        focused: bool,
    ) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let range = self.scroll.visible_range(usize::from(area.height));
        let cursor = self.scroll.cursor();
        for (offset, index) in range.enumerate() {
            let row = self.rows[index];
            let y = area.y + offset as u16;
            let line_area = Rect::new(area.x, y, area.width, 1);
            let depth = usize::from(row.depth);
            let mut prefix = String::with_capacity(depth.min(MAX_INDENT) * 3 + 8);
            if depth > MAX_INDENT {
                // Past MAX_INDENT levels the depth is a number: deep rows stay on screen.
                prefix.push_str(&format!("⋯{depth} "));
            } else {
                for d in 0..row.depth.saturating_sub(1) {
                    let continues = d < 64 && row.guides & (1 << d) != 0;
                    prefix.push_str(if continues { "│ " } else { "  " });
                }
            }
            if row.depth > 0 {
                prefix.push_str(if row.last { "└─" } else { "├─" });
            }
            let children = src.children(row.id).len();
            let cut = children > 0 && depth + 1 >= MAX_DEPTH;
            let marker = if children == 0 {
                "  "
            } else if cut {
                "⋯ "
            } else if self.expanded.contains(&row.id) {
                "▾ "
            } else {
                "▸ "
            };
            let mut spans = vec![
                Span::styled(prefix, theme.tree_guide),
                Span::styled(marker, theme.json_punct),
            ];
            let label = src.label(row.id, theme);
            let label_style = label.style;
            let mut label_spans: Vec<Span<'_>> = label
                .spans
                .into_iter()
                .map(|s| {
                    let content = match sanitize(&s.content) {
                        std::borrow::Cow::Borrowed(_) => s.content,
                        std::borrow::Cow::Owned(o) => o.into(),
                    };
                    Span::styled(content, label_style.patch(s.style))
                })
                .collect();
            if cut {
                // Where the tree was cut, first: a long label would push it off screen.
                let note = format!(
                    "{children} {} not shown: depth limit {MAX_DEPTH}  ",
                    if children == 1 { "child" } else { "children" }
                );
                label_spans.insert(0, Span::styled(note, theme.status_warn));
            }
            spans.extend(label_spans);
            buf.set_line(area.x, y, &fit_line(spans, area.width), area.width);
            if index == cursor {
                buf.set_style(line_area, theme.selection_style(focused));
            }
        }
    }
}

impl Scrolled for TreeState {
    fn scroll(&self) -> &ScrollState {
        &self.scroll
    }

    fn scroll_mut(&mut self) -> &mut ScrollState {
        &mut self.scroll
    }
}

#[cfg(test)]
mod tests;
