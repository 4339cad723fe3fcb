//! The Verdict pane: the mediator verdict of the update open in the Update pane, read from its
//! cached `/v0/events/{update_id}` body. It owns the view tree (a [`ViewTree`] from the model:
//! transaction views nested by `root_views` → `sub_views`), the details of the selected view
//! (informees, confirming-party quorums, view hash, the traffic envelopes that carry it), the
//! traffic summary and the app activity records. This module holds the state, keys and
//! `render`; `header` draws the summary, `details` the selected view and the activity records,
//! `labels` the rows of the view tree.
//!
//! ```text
//! ACCEPTED  update 1220c7d293ea2327…  migration 3  mediator group 0  domain global-domain::1220…
//! record 2026-01-01 10:00:00.123 UTC  finalized 10:00:00.535  gap 412 ms
//! submitted by alice::1220aaaa…  participant PAR::alice-node::1220eeee…
//! traffic total 12,345 in 2 envelopes: #0 9,000 · #1 3,345
//! ┌ views (4) ───────────────────────┐┌ view 0 ──────────────────────────────────┐
//! │▾ view 0  3 informees  2 quorums  ││hash 0000aaaa                             │
//! │├─  view 2  1 informee  0 quorums ││informees (3)                             │
//! │└─  view 1  1 informee  1 quorum  ││  alice::1220aaaa111122223333444455556666…│
//! │  view 3  1 informee  1 quorum    ││confirming parties (2 quorums)            │
//! └──────────────────────────────────┘│  1 of 2: alice::1220aaaa…, bob::1220bbbb…│
//! ┌ app activity · round 42 ─────────┐│traffic                                   │
//! │party                       weight││  envelope #0 9,000  carries views 0, 1, 2│
//! │alice::1220aaaa11112…       12,345││                                          │
//! └──────────────────────────────────┘└──────────────────────────────────────────┘
//! ```

use std::sync::Arc;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Widget};

use crate::api::scan::{EventHistoryItem, Verdict};
use crate::config::keymap::KeyContext;
use crate::model::summary::short_id;
use crate::model::verdict::ViewTree;
use crate::msg::Command;
use crate::ui::fields::Field;
use crate::ui::layout::fit_line;
use crate::ui::safe::{safe_line, sanitize};
use crate::ui::scroll::Scrolled;
use crate::ui::tree::TreeState;

use super::{Out, Pane, PaneId, RenderCtx, Shared};

mod details;
mod header;
mod labels;

/// Lines of the summary above the view tree.
const HEADER_LINES: u16 = 4;
/// From this width on the view tree and the view details sit side by side.
const SIDE_BY_SIDE_MIN_WIDTH: u16 = 60;

/// The plural ending for `n` things (`s` unless one).
fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `alice::1220abcdef…` → `alice::1220abcd…`, `PAR::node::1220ef…` → `PAR::node::1220ef…`
/// (everything before the fingerprint and its first 8 characters).
fn compact_party(id: &str) -> String {
    match id.rsplit_once("::") {
        Some((name, fp)) => format!("{name}::{}", short_id(fp, 8)),
        None => short_id(id, 24),
    }
}

/// Where the parts of the pane go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Areas {
    header: Rect,
    tree: Rect,
    details: Rect,
    activity: Option<Rect>,
}

/// The Verdict pane.
#[derive(Debug, Default)]
pub struct VerdictPane {
    /// The update this state was built for.
    update_id: Option<String>,
    /// Its body, once it arrived (kept even if the cache evicts it).
    body: Option<Arc<EventHistoryItem>>,
    /// Where the body came from when the local index answered for the scan.
    origin: Option<crate::model::index::read::KeptOrigin>,
    tree: Option<ViewTree>,
    tree_state: TreeState,
    area: Rect,
}

impl VerdictPane {
    /// An empty pane (no update open).
    pub fn new() -> Self {
        Self::default()
    }

    /// Follows `sh.current_update`: rebuilds the state when the open update changed or its body
    /// arrived; a cheap comparison otherwise. Call after every update step.
    pub fn sync(&mut self, sh: &Shared) {
        let wanted = sh.current_update.as_deref();
        let cached = wanted.and_then(|id| sh.bodies.peek(id));
        if wanted == self.update_id.as_deref() {
            match (cached, &self.body) {
                (Some(new), Some(mine)) if Arc::ptr_eq(new, mine) => return,
                // Evicted from the cache: keep what we show.
                (None, _) => return,
                _ => {}
            }
        }
        let same_update = wanted == self.update_id.as_deref();
        let keep_view = if same_update {
            self.selected_view_id()
        } else {
            None
        };
        self.update_id = wanted.map(str::to_owned);
        self.body = cached.cloned();
        self.origin = wanted
            .and_then(|id| sh.kept_origins.peek(id))
            .filter(|o| self.body.as_ref().is_some_and(|b| Arc::ptr_eq(b, &o.body)))
            .map(|o| (**o).clone());
        self.tree = self.body.clone().and_then(ViewTree::new);
        self.tree_state = match &self.tree {
            Some(tree) => {
                let mut state = TreeState::new(tree);
                state.expand_all(tree);
                if let Some(vid) = keep_view
                    && let Some(node) = (0..tree.len()).find(|&n| tree.view_id(n) == Some(vid))
                {
                    state.select_node(tree, node);
                }
                state
            }
            None => TreeState::default(),
        };
        self.apply_viewport();
    }

    /// The update whose verdict is shown (or loading).
    pub fn update_id(&self) -> Option<&str> {
        self.update_id.as_deref()
    }

    /// Whether the body of the open update has not arrived yet.
    pub fn is_loading(&self) -> bool {
        self.update_id.is_some() && self.body.is_none()
    }

    /// Where the body shown came from when the local index answered for the scan (`None`:
    /// the scan's answer).
    pub fn kept_origin(&self) -> Option<&crate::model::index::read::KeptOrigin> {
        self.origin.as_ref()
    }

    /// The verdict shown, if any.
    pub fn verdict(&self) -> Option<&Verdict> {
        self.body.as_ref().and_then(|b| b.verdict.as_ref())
    }

    /// The view tree (None without a verdict).
    pub fn view_tree(&self) -> Option<&ViewTree> {
        self.tree.as_ref()
    }

    /// Expansion and cursor of the view tree.
    pub fn tree_state(&self) -> &TreeState {
        &self.tree_state
    }

    /// The view id under the cursor.
    pub fn selected_view_id(&self) -> Option<i32> {
        let tree = self.tree.as_ref()?;
        tree.view_id(self.tree_state.selected()?)
    }

    /// View ids of the visible rows, top to bottom.
    pub fn visible_view_ids(&self) -> Vec<i32> {
        match &self.tree {
            Some(tree) => self
                .tree_state
                .visible_ids()
                .filter_map(|n| tree.view_id(n))
                .collect(),
            None => Vec::new(),
        }
    }

    fn apply_viewport(&mut self) {
        let areas = self.areas(self.area);
        self.tree_state
            .set_viewport(usize::from(areas.tree.height.saturating_sub(2)).max(1));
    }

    /// Whether the open item is an event with a verdict and no update (a rejected request, a
    /// wholly private transaction): the header says why there is no transaction.
    fn verdict_only(&self) -> bool {
        self.body
            .as_ref()
            .is_some_and(|b| b.update.is_none() && b.verdict.is_some())
    }

    fn areas(&self, area: Rect) -> Areas {
        let lines = HEADER_LINES + u16::from(self.verdict_only());
        let header_h = lines.min(area.height);
        let header = Rect::new(area.x, area.y, area.width, header_h);
        let rest = Rect::new(
            area.x,
            area.y + header_h,
            area.width,
            area.height - header_h,
        );
        let activity_rows = self
            .body
            .as_ref()
            .and_then(|b| b.app_activity_records.as_ref())
            .map(|a| a.records.len().clamp(1, 200) as u16 + 3);
        if area.width >= SIDE_BY_SIDE_MIN_WIDTH {
            let left_w = (rest.width * 2 / 5)
                .max(36)
                .min(rest.width / 2)
                .max(26)
                .min(rest.width);
            let left = Rect::new(rest.x, rest.y, left_w, rest.height);
            let details = Rect::new(rest.x + left_w, rest.y, rest.width - left_w, rest.height);
            let (tree, activity) = split_activity(left, activity_rows);
            Areas {
                header,
                tree,
                details,
                activity,
            }
        } else {
            let (top, activity) = split_activity(rest, activity_rows);
            let tree_h = (top.height / 2).max(3).min(top.height);
            let tree = Rect::new(top.x, top.y, top.width, tree_h);
            let details = Rect::new(top.x, top.y + tree_h, top.width, top.height - tree_h);
            Areas {
                header,
                tree,
                details,
                activity,
            }
        }
    }

    fn render_message(area: Rect, buf: &mut Buffer, lines: &[(&str, Style)]) {
        for (i, (text, style)) in lines.iter().enumerate() {
            if i as u16 >= area.height {
                break;
            }
            let text = safe_line(text, usize::from(area.width));
            buf.set_line(
                area.x,
                area.y + i as u16,
                &Line::styled(text, *style),
                area.width,
            );
        }
    }
}

/// Splits `area` into the part above and an app-activity box of `rows` rows at the bottom (at
/// most half of the area).
fn split_activity(area: Rect, rows: Option<u16>) -> (Rect, Option<Rect>) {
    match rows {
        Some(rows) if area.height >= 6 => {
            let h = rows.min(area.height / 2).max(3);
            let top = Rect::new(area.x, area.y, area.width, area.height - h);
            let bottom = Rect::new(area.x, area.y + area.height - h, area.width, h);
            (top, Some(bottom))
        }
        _ => (area, None),
    }
}

/// Draws lines into `area`, sanitizing every span and cutting to the width.
fn draw_lines(area: Rect, buf: &mut Buffer, lines: Vec<Line<'_>>) {
    for (i, line) in lines.into_iter().enumerate() {
        if i as u16 >= area.height {
            break;
        }
        let line = fit_line(line, usize::from(area.width));
        buf.set_line(area.x, area.y + i as u16, &line, area.width);
    }
}

impl Pane for VerdictPane {
    fn current_update_id(&self, sh: &Shared) -> Option<String> {
        sh.current_update.clone()
    }

    fn id(&self) -> PaneId {
        PaneId::Verdict
    }

    fn key_context(&self) -> KeyContext {
        KeyContext::Tree
    }

    fn on_command(&mut self, cmd: Command, _sh: &mut Shared, out: &mut Out) -> bool {
        if cmd == Command::Copy {
            if let (Some(tree), Some(node)) = (&self.tree, self.tree_state.selected())
                && let Some(view) = tree.view(node)
                && !view.informees.is_empty()
            {
                let text: Vec<String> = view
                    .informees
                    .iter()
                    .map(|p| sanitize(p).into_owned())
                    .collect();
                out.copy(
                    &format!("informees of view {}", view.view_id),
                    text.join("\n"),
                );
                return true;
            }
            if let Some(id) = &self.update_id {
                out.copy("update id", sanitize(id).into_owned());
                return true;
            }
            return false;
        }
        let Some(tree) = &self.tree else {
            return false;
        };
        let st = &mut self.tree_state;
        if st.scroll_mut().navigate(cmd) {
            return true;
        }
        match cmd {
            Command::Expand | Command::Right => st.expand(tree),
            Command::Collapse | Command::Left => st.collapse(),
            Command::Toggle | Command::Select => st.toggle(tree),
            Command::ExpandAll => st.expand_all(tree),
            Command::CollapseAll => st.collapse_all(tree),
            Command::Parent => st.parent(),
            _ => return false,
        }
        true
    }

    fn set_area(&mut self, area: Rect) {
        self.area = area;
        self.apply_viewport();
    }

    fn render(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { sh, theme, focused } = cx;
        if area.width == 0 || area.height == 0 {
            return;
        }
        let Some(id) = self.update_id.as_deref() else {
            Self::render_message(
                area,
                buf,
                &[
                    ("No update open.", theme.accent),
                    ("", theme.muted),
                    (
                        "Open one in the History pane (select it, press Enter) or with",
                        theme.muted,
                    ),
                    (
                        ":event <update_id>; its mediator verdict shows here.",
                        theme.muted,
                    ),
                ],
            );
            return;
        };
        if self.body.is_none() {
            let text = format!("Loading update {} …", short_id(id, 24));
            Self::render_message(
                area,
                buf,
                &[
                    (text.as_str(), theme.accent),
                    ("fetching /v0/events/{update_id}", theme.muted),
                ],
            );
            return;
        }
        let areas = self.areas(area);
        self.render_header(areas.header, buf, sh, theme);
        if let Some(tree) = &self.tree {
            let block = Block::bordered()
                .border_style(theme.border_style(focused))
                .title(Span::styled(
                    format!(" views ({}) ", tree.len()),
                    theme.title,
                ));
            let inner = block.inner(areas.tree);
            block.render(areas.tree, buf);
            if tree.is_empty() {
                Self::render_message(inner, buf, &[("no views", theme.muted)]);
            } else {
                self.tree_state.render(tree, inner, buf, theme, focused);
            }
            self.render_details(areas.details, buf, theme, tree, self.tree_state.selected());
        }
        if let Some(a) = areas.activity {
            self.render_activity(a, buf, theme);
        }
    }

    fn hints(&self) -> Vec<Command> {
        // Nothing to move in before a verdict is shown.
        if self.verdict().is_none() {
            return Vec::new();
        }
        vec![
            Command::Up,
            Command::Down,
            Command::Toggle,
            Command::ExpandAll,
            Command::CollapseAll,
            Command::Copy,
            Command::ShowValue,
        ]
    }

    /// The verdict's fields and the selected view's, each party list whole.
    fn fields(&self, _sh: &Shared) -> Option<(String, Vec<Field>)> {
        let v = self.verdict()?;
        let mut fields = vec![
            Field::new("update", v.update_id.clone()),
            Field::new("synchronizer", v.domain_id.clone()),
            Field::new("submitting parties", v.submitting_parties.join(", ")),
            Field::new("participant", v.submitting_participant_uid.clone()),
        ];
        let mut title = "verdict".to_string();
        if let (Some(tree), Some(node)) = (&self.tree, self.tree_state.selected())
            && let Some(view) = tree.view(node)
        {
            title = format!("view {}", view.view_id);
            fields.push(Field::new("view hash", view.view_hash.clone()));
            for q in &view.confirming_parties {
                fields.push(Field::new(
                    format!("confirming {} of {}", q.threshold, q.parties.len()),
                    q.parties.join(", "),
                ));
            }
            fields.extend(
                view.informees
                    .iter()
                    .map(|p| Field::new("informee", p.clone())),
            );
        }
        Some((title, fields))
    }

    fn tab_count(&self, _sh: &Shared) -> Option<usize> {
        self.tree.as_ref().map(|t| t.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_parties() {
        assert_eq!(compact_party("alice::1220abcdef0123"), "alice::1220abcd…");
        assert_eq!(compact_party("bob::12"), "bob::12");
        assert_eq!(
            compact_party("PAR::node-1::1220eeee1111"),
            "PAR::node-1::1220eeee…"
        );
    }
}
