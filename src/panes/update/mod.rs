//! The Update pane: one update (`GET /v0/events/{update_id}`) drilled down.
//!
//! It owns the open update's id, its latest fetch (replies to older requests are dropped), the
//! event tree of a transaction ([`ScanTree`] + [`TreeState`], in `root_event_ids` /
//! `child_event_ids` order), the details panel of the selected event (fields plus folded
//! [`JsonView`](crate::ui::json::JsonView)s of `create_arguments` / `choice_argument` /
//! `exercise_result`), the view of a reassignment (with the link to its matching assign /
//! unassign), the contract lifecycle list, the save prompt and the back stack of updates reached
//! by following links.
//!
//! This module holds the pane's state and `render`; the parts live beside it: `load` (fetching
//! and showing an update, following links and back), `commands` (the keymap's commands),
//! `details` (the details panel), `tree` (tree keys and selection), `reassign`, `lifecycle`
//! (the list; the lifecycle itself is [`crate::model::lifecycle`]), `save` (the save prompt)
//! and `layout` (the split of the pane, header, titles and messages).
//!
//! ```text
//! update 1220c7…  transaction  events 5  migration 4  record 2026-11-22 09:59:30.123 UTC
//! effective 2026-11-22 09:59:30.123 UTC  synchronizer global-domain
//! ─ Event tree: 5 events ───────────────────│─ Details: exercised AmuletRules_Transfer ─ → details
//! ▾ exercised AmuletRules_Transfer  00f1f1…  │event        1220c7d293ea2327…:0
//! ├─  exercised Archive  consuming  00a1a1…  │contract     00f1f1f1f1f1f1f1f1ca101220aa
//! ├─  created Splice.Amulet:Amulet  00b2b2…  │── choice_argument ──────────────
//! └─  created Splice.Amulet:Amulet  00c3c3…  │▾ {
//!   exercised Amulet_Fetch  00b2b2…          │▾   "transfer": {
//! ```
//!
//! Below [`WIDE_MIN_WIDTH`] columns the details panel sits under the tree.
//!
//! Focus moves between the tree and the details with → (on a leaf or an open node) and ← (on a
//! details row that is not inside a JSON value), and Enter on a leaf; the panel titles say so.
//! Every server string is sanitized when drawn (tree labels by the tree widget, the rest here).

use std::sync::Arc;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use unicode_width::UnicodeWidthStr;

use crate::api::scan::{EventHistoryItem, Reassignment};
use crate::config::keymap::KeyContext;
use crate::model::event_tree::ScanTree;
use crate::model::summary::short_id;
use crate::msg::Command;
use crate::msg::{Fetched, Request, RequestId, Response};
use crate::ui::load::accept;
use crate::ui::safe::sanitize;
use crate::ui::scroll::Scrolled;
use crate::ui::text_input::{InputOutcome, TextInput};
use crate::ui::tree::{TreeSplit, TreeState};
use crate::ui::whole_value::ValueView;

use super::{Out, Pane, PaneId, RenderCtx, Shared};

mod commands;
mod details;
mod layout;
mod lifecycle;
mod load;
mod reassign;
mod save;
mod tree;

use details::Details;
use layout::{Areas, render_title, split};
use lifecycle::LifecycleList;
use reassign::ReassignView;

/// Trees with at most this many events start fully expanded.
pub const EXPAND_ALL_MAX_EVENTS: usize = 300;
/// Larger trees start expanded this many levels below the roots.
pub const INITIAL_DEPTH: usize = 2;
/// Pane width from which the details panel sits right of the tree (below it otherwise).
pub const WIDE_MIN_WIDTH: u16 = 100;

/// Which part of the pane has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The event tree.
    Tree,
    /// The details panel.
    Details,
}

/// What to select once the update is shown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum Want {
    #[default]
    Nothing,
    /// The node of this event id.
    Event(String),
    /// The first node on this contract (its creation first when `prefer_create`).
    Contract { id: String, prefer_create: bool },
}

/// A transaction on screen.
#[derive(Debug, Clone)]
struct TxView {
    tree: ScanTree,
    state: TreeState,
    details: Details,
}

/// What the pane shows for a loaded body.
#[derive(Debug, Clone)]
enum Content {
    Tx(Box<TxView>),
    Reassign(Box<ReassignView>),
    /// The body has no update (e.g. a verdict only).
    NoUpdate,
}

/// The Update pane.
#[derive(Debug)]
pub struct UpdatePane {
    update_id: Option<String>,
    /// The request whose reply is awaited (latest request wins).
    pending: Option<RequestId>,
    /// What to select when the pending body arrives.
    want: Want,
    /// The last load error (shown instead of the content when nothing is loaded).
    error: Option<String>,
    body: Option<Arc<EventHistoryItem>>,
    content: Option<Content>,
    focus: Focus,
    lifecycle: Option<LifecycleList>,
    save: Option<TextInput>,
    /// The save's write in flight and the path the user was told exists.
    saving: save::Saving,
    /// Updates left by following links: (update id, selected event id).
    back: Vec<(String, Option<String>)>,
    /// Where the user put the split between tree and details (`<` / `>`), kept while the app
    /// runs.
    split: TreeSplit,
    /// The full value of a field (`v`), over the pane.
    whole_value: Option<ValueView>,
    /// What is shown is the local index's copy (no verdict with it).
    from_index: bool,
    area: Rect,
}

impl Default for UpdatePane {
    fn default() -> Self {
        Self::new()
    }
}

impl UpdatePane {
    /// An empty pane (no update open).
    pub fn new() -> Self {
        UpdatePane {
            update_id: None,
            pending: None,
            want: Want::Nothing,
            error: None,
            body: None,
            content: None,
            focus: Focus::Tree,
            lifecycle: None,
            save: None,
            saving: save::Saving::default(),
            back: Vec::new(),
            split: TreeSplit::default(),
            whole_value: None,
            from_index: false,
            area: Rect::default(),
        }
    }

    /// Opens `update_id` (from the History pane, the palette or another pane), selecting
    /// `event_id` when given. Uses the cached body or fetches it. Clears the back stack.
    pub fn open(
        &mut self,
        update_id: &str,
        event_id: Option<&str>,
        sh: &mut Shared,
        out: &mut Out,
    ) {
        self.back.clear();
        let want = event_id.map_or(Want::Nothing, |e| Want::Event(e.to_string()));
        self.load(update_id, want, sh, out);
    }

    /// The open update's id.
    pub fn update_id(&self) -> Option<&str> {
        self.update_id.as_deref()
    }

    /// Whether a fetch is awaited.
    pub fn is_loading(&self) -> bool {
        self.pending.is_some()
    }

    /// The id of the request whose reply is awaited.
    pub fn pending_request(&self) -> Option<RequestId> {
        self.pending
    }

    /// The last load error.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Which part has the keyboard.
    pub fn focus(&self) -> Focus {
        self.focus
    }

    /// The event ids of the visible tree rows, in order (empty unless a transaction is shown).
    pub fn visible_event_ids(&self) -> Vec<String> {
        match &self.content {
            Some(Content::Tx(v)) => v
                .state
                .visible_ids()
                .filter_map(|n| v.tree.event_id(n).map(str::to_string))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The event id of the selected tree node.
    pub fn selected_event_id(&self) -> Option<&str> {
        match &self.content {
            Some(Content::Tx(v)) => v.state.selected().and_then(|n| v.tree.event_id(n)),
            _ => None,
        }
    }

    /// Whether the contract lifecycle list is open.
    pub fn lifecycle_open(&self) -> bool {
        self.lifecycle.is_some()
    }

    /// The update ids listed in the lifecycle list (the "jump to creation" row included).
    pub fn lifecycle_update_ids(&self) -> Vec<String> {
        self.lifecycle
            .as_ref()
            .map(LifecycleList::update_ids)
            .unwrap_or_default()
    }

    /// The update a reassignment links to, once found among loaded updates.
    pub fn reassignment_link(&self) -> Option<&str> {
        match &self.content {
            Some(Content::Reassign(r)) => r.link.as_ref().map(|l| l.update_id.as_str()),
            _ => None,
        }
    }

    /// Whether the save prompt is open.
    pub fn save_prompt_open(&self) -> bool {
        self.save.is_some()
    }

    /// The full value shown by `v`, when its box is open.
    pub fn shown_value(&self) -> Option<&str> {
        self.whole_value.as_ref().map(ValueView::value)
    }

    /// How far the details panel is scrolled sideways, in columns.
    pub fn details_hscroll(&self) -> usize {
        self.details().map_or(0, |d| d.hscroll)
    }

    /// The tree's share of the pane in percent once the user moved the split (`<` / `>`).
    pub fn split_percent(&self) -> Option<u16> {
        self.split.is_set().then(|| self.split.percent(50))
    }

    fn areas(&self, area: Rect) -> Areas {
        match &self.content {
            Some(Content::Tx(v)) => split(
                area,
                true,
                v.state.visible_len(),
                self.prompt_rows(),
                self.split,
            ),
            _ => split(area, false, 0, self.prompt_rows(), self.split),
        }
    }

    fn area_details_height(&self) -> Option<usize> {
        (self.area.height > 0).then(|| usize::from(self.areas(self.area).details.height))
    }

    fn apply_viewports(&mut self) {
        let a = self.areas(self.area);
        match &mut self.content {
            Some(Content::Tx(v)) => {
                v.state.set_viewport(usize::from(a.tree.height));
                v.details.scroll.set_viewport(usize::from(a.details.height));
            }
            Some(Content::Reassign(r)) => {
                r.details.scroll.set_viewport(usize::from(a.details.height));
            }
            _ => {}
        }
        if let Some(l) = &mut self.lifecycle {
            l.scroll
                .set_viewport(usize::from(self.area.height.saturating_sub(4)).max(1));
        }
        if let Some(v) = &mut self.whole_value {
            v.set_area(self.area);
        }
    }

    fn details_mut(&mut self) -> Option<&mut Details> {
        match &mut self.content {
            Some(Content::Tx(v)) => Some(&mut v.details),
            Some(Content::Reassign(r)) => Some(&mut r.details),
            _ => None,
        }
    }

    fn reassignment(&self) -> Option<&Reassignment> {
        self.body.as_ref()?.update.as_ref()?.as_reassignment()
    }

    fn details(&self) -> Option<&Details> {
        match &self.content {
            Some(Content::Tx(v)) => Some(&v.details),
            Some(Content::Reassign(r)) => Some(&r.details),
            _ => None,
        }
    }
}

impl Pane for UpdatePane {
    fn current_update_id(&self, sh: &Shared) -> Option<String> {
        sh.current_update.clone()
    }

    fn id(&self) -> PaneId {
        PaneId::Update
    }

    fn key_context(&self) -> KeyContext {
        if self.save.is_some() {
            KeyContext::TextInput
        } else if self.lifecycle.is_some() || self.whole_value.is_some() {
            KeyContext::Overlay
        } else {
            KeyContext::Tree
        }
    }

    fn wants_raw_keys(&self) -> bool {
        self.save.is_some()
    }

    fn on_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        let Some(input) = &mut self.save else { return };
        match input.handle_key(key) {
            InputOutcome::Submitted(path) => self.submit_save(&path, sh, out),
            InputOutcome::Cancelled => self.close_save_prompt(),
            // An edit clears a message under the path: the prompt may be a row shorter.
            _ => self.apply_viewports(),
        }
    }

    fn on_paste(&mut self, text: &str, _sh: &mut Shared, _out: &mut Out) {
        if let Some(input) = &mut self.save {
            input.insert_str(text);
        }
    }

    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        let used = self.command(cmd, sh, out);
        if used {
            // Tree rows or the prompt may have changed the layout.
            self.apply_viewports();
        }
        used
    }

    fn on_tick(&mut self, sh: &mut Shared, _out: &mut Out) -> bool {
        self.refresh_link(sh)
    }

    fn on_fetched(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) {
        if let Request::Index(crate::model::index::read::IndexRead::Lifecycle { .. }) =
            &reply.request
        {
            self.on_index_lifecycle(reply, sh, out);
            return;
        }
        let Some(update_id) = reply.request.body_subject() else {
            return;
        };
        if let Ok(Response::Kept(kept)) = &reply.result {
            self.on_kept_body(reply.id, update_id, kept, sh, out);
            return;
        }
        if self.update_id.as_deref() != Some(update_id) {
            return;
        }
        let answer = accept(
            &mut self.pending,
            reply,
            "GET /v0/events",
            Response::shared::<EventHistoryItem>,
        );
        match answer {
            None => {}
            Some(Ok(body)) => {
                let want = std::mem::take(&mut self.want);
                self.error = None;
                self.show(body.clone(), &want, sh);
            }
            Some(Err(failure)) => {
                self.error = Some(failure.to_string());
                if failure.api().is_some() {
                    let short = short_id(&sanitize(update_id), 16);
                    out.error(format!("update {short}: {failure}"));
                }
            }
        }
    }

    fn on_written(&mut self, id: RequestId, result: &Result<usize, String>, out: &mut Out) -> bool {
        self.on_save_written(id, result, out)
    }

    fn set_area(&mut self, area: Rect) {
        self.area = area;
        self.apply_viewports();
    }

    fn render(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { sh, theme, focused } = cx;
        if area.width == 0 || area.height == 0 {
            return;
        }
        let a = self.areas(area);
        match &self.content {
            None | Some(Content::NoUpdate) => {
                let body = if self.update_id.is_some() && self.content.is_some() {
                    self.render_header(a.header, buf, sh, theme);
                    Rect::new(
                        area.x,
                        a.header.y + a.header.height,
                        area.width,
                        area.height.saturating_sub(a.header.height),
                    )
                } else {
                    area
                };
                self.render_message(body, buf, theme);
            }
            Some(Content::Tx(v)) => {
                self.render_header(a.header, buf, sh, theme);
                let tree_active = focused && self.focus == Focus::Tree;
                let count = match v.tree.len() {
                    1 => "1 event".to_string(),
                    n => format!("{n} events"),
                };
                render_title(
                    a.tree_title,
                    buf,
                    theme,
                    tree_active,
                    "Event tree",
                    &count,
                    "",
                );
                v.state.render(&v.tree, a.tree, buf, theme, tree_active);
                for y in a.separator.y..a.separator.y + a.separator.height {
                    buf.set_string(a.separator.x, y, "│", theme.border_style(false));
                }
                self.render_details(&v.details, &a, buf, sh, theme, focused);
            }
            Some(Content::Reassign(r)) => {
                self.render_header(a.header, buf, sh, theme);
                self.render_details(&r.details, &a, buf, sh, theme, focused);
            }
        }
        if let Some(input) = &self.save
            && a.prompt.height > 0
        {
            let label = "save to: ";
            let lw = (label.width() as u16).min(a.prompt.width);
            buf.set_string(a.prompt.x, a.prompt.y, label, theme.accent);
            let rest = Rect::new(
                a.prompt.x + lw,
                a.prompt.y,
                a.prompt.width - lw,
                a.prompt.height,
            );
            input.render(rest, buf, theme, focused);
        }
        if let Some(l) = &self.lifecycle {
            self.render_lifecycle(l, area, buf, sh, theme);
        }
        if let Some(v) = &self.whole_value {
            v.render(area, buf, theme);
        }
    }

    fn hints(&self) -> Vec<Command> {
        if self.save.is_some() {
            return vec![Command::Confirm, Command::Cancel];
        }
        if self.whole_value.is_some() {
            return vec![Command::Down, Command::Copy, Command::Cancel];
        }
        if self.lifecycle.is_some() {
            return vec![Command::Confirm, Command::Copy, Command::Cancel];
        }
        let mut hints = match (&self.content, self.focus) {
            (None, _) if self.error.is_some() => return vec![Command::Refresh],
            (None, _) => return Vec::new(),
            (Some(Content::Tx(_)), Focus::Tree) => vec![
                Command::Toggle,
                Command::Expand,
                Command::Parent,
                Command::FollowContract,
                Command::Copy,
                Command::Save,
                Command::SwitchFocus,
                Command::ExpandAll,
                Command::CollapseAll,
            ],
            (Some(Content::NoUpdate), _) => vec![Command::Save, Command::Refresh],
            _ => vec![
                Command::Toggle,
                Command::Collapse,
                Command::Copy,
                Command::FollowContract,
                Command::Save,
            ],
        };
        if !self.back.is_empty() || self.focus == Focus::Details {
            hints.push(Command::Back);
        }
        if self.focus == Focus::Details {
            hints.push(Command::ShowValue);
        }
        // The open update's id, its check on every scan and its locator (Y, b, W): beside `y`
        // in the tree (what fits of the footer comes first), after Esc and `v` in the details.
        let ids = [
            Command::CopyUpdateId,
            Command::Consensus,
            Command::CopyLocator,
        ];
        match hints.iter().position(|c| *c == Command::Copy) {
            Some(copy) if self.focus == Focus::Tree => {
                let after = copy + 1;
                hints.splice(after..after, ids);
            }
            _ => hints.extend(ids),
        }
        hints.push(Command::Refresh);
        hints
    }

    fn tab_count(&self, _sh: &Shared) -> Option<usize> {
        // The event tree's nodes; a reassignment is one event.
        match self.content.as_ref()? {
            Content::Tx(view) => Some(view.tree.len()),
            Content::Reassign(_) => Some(1),
            Content::NoUpdate => Some(0),
        }
    }
}
