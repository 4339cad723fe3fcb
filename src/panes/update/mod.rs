//! The Update pane: one update (`GET /v0/events/{update_id}`) drilled down.
//!
//! It owns the open update's id, its latest fetch (replies to older requests are dropped), the
//! event tree of a transaction ([`ScanTree`] + [`TreeState`], in `root_event_ids` /
//! `child_event_ids` order), the details panel of the selected event (fields plus folded
//! [`JsonView`]s of `create_arguments` / `choice_argument` / `exercise_result`), the view of a
//! reassignment (with the link to its matching assign / unassign), the contract lifecycle list,
//! the save prompt and the back stack of updates reached by following links.
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

use std::path::PathBuf;
use std::sync::Arc;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};
use serde_json::Value;
use unicode_width::UnicodeWidthStr;

use crate::api::json::RawJson;
use crate::api::scan::{
    CreatedEvent, EventHistoryItem, ExercisedEvent, Reassignment, ReassignmentEvent, TreeEvent,
    UpdateItem,
};
use crate::config::keymap::KeyContext;
use crate::model::event_tree::ScanTree;
use crate::model::lifecycle::{LifeEntry, Lifecycle, Step};
use crate::model::reassign::{LinkTarget, resolve_link};
use crate::model::summary::{short_id, short_party, short_template};
use crate::msg::Command;
use crate::msg::{Effect, Fetched, Request, RequestId, Response};
use crate::ui::format::{server_time, short_event_id};
use crate::ui::json::JsonView;
use crate::ui::layout::wrap_text;
use crate::ui::safe::{safe_line, sanitize};
use crate::ui::scroll::ScrollState;
use crate::ui::text_input::{InputOutcome, TextInput};
use crate::ui::theme::Theme;
use crate::ui::tree::{NodeId, TreeState};

use super::{Out, Pane, PaneId, Shared};

/// Trees with at most this many events start fully expanded.
pub const EXPAND_ALL_MAX_EVENTS: usize = 300;
/// Larger trees start expanded this many levels below the roots.
pub const INITIAL_DEPTH: usize = 2;
/// Pane width from which the details panel sits right of the tree (below it otherwise).
pub const WIDE_MIN_WIDTH: u16 = 100;
/// Width of the label column of the details panel.
const LABEL_WIDTH: usize = 13;

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

/// How a details value is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FieldStyle {
    Id,
    /// An event id `<update id>:<n>`: drawn with the update id shortened so the node number
    /// stays visible.
    EventId,
    Party,
    /// A server time, formatted when drawn (UTC / local follows the toggle).
    Time,
    Text,
    Accent,
    Muted,
    Created,
    Exercised,
    Archived,
    /// An update this row opens with Enter.
    Link,
}

/// One row of the details panel outside the JSON sections.
#[derive(Debug, Clone)]
struct Field {
    /// The label, also used in "copied …" messages.
    name: &'static str,
    /// Whether the label is drawn (continuation rows of a list leave it blank).
    first: bool,
    /// The raw server value (sanitized when drawn and copied).
    value: String,
    style: FieldStyle,
    /// Enter opens this update.
    open: Option<String>,
}

/// A JSON value under a heading.
#[derive(Debug, Clone)]
struct Section {
    name: &'static str,
    json: JsonView,
}

/// Where a details row points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spot {
    Field(usize),
    Header(usize),
    Json(usize, usize),
    Nowhere,
}

/// The details panel of one event (or of a reassignment): fields, then JSON sections, as one
/// scrollable list of rows.
#[derive(Debug, Clone)]
struct Details {
    /// The panel title (raw server text, sanitized when drawn).
    title: String,
    fields: Vec<Field>,
    sections: Vec<Section>,
    scroll: ScrollState,
    /// The tree node shown (None for reassignments and empty trees).
    node: Option<NodeId>,
}

impl Details {
    fn new(
        title: String,
        fields: Vec<Field>,
        sections: Vec<Section>,
        node: Option<NodeId>,
    ) -> Self {
        let mut d = Details {
            title,
            fields,
            sections,
            scroll: ScrollState::default(),
            node,
        };
        d.scroll.set_len(d.len());
        d
    }

    fn len(&self) -> usize {
        self.fields.len()
            + self
                .sections
                .iter()
                .map(|s| 1 + s.json.visible_len())
                .sum::<usize>()
    }

    /// First row of section `s` (its heading).
    fn section_start(&self, s: usize) -> usize {
        self.fields.len()
            + self.sections[..s.min(self.sections.len())]
                .iter()
                .map(|s| 1 + s.json.visible_len())
                .sum::<usize>()
    }

    fn spot(&self, row: usize) -> Spot {
        if row < self.fields.len() {
            return Spot::Field(row);
        }
        let mut start = self.fields.len();
        for (i, s) in self.sections.iter().enumerate() {
            if row == start {
                return Spot::Header(i);
            }
            let len = s.json.visible_len();
            if row <= start + len {
                return Spot::Json(i, row - start - 1);
            }
            start += 1 + len;
        }
        Spot::Nowhere
    }

    fn cursor_spot(&self) -> Spot {
        self.spot(self.scroll.cursor())
    }

    /// Runs `f` on the JSON view under the cursor (its own cursor put on the row first), then
    /// puts the panel cursor where the view's cursor ended. False when the cursor is not in JSON.
    fn with_json(&mut self, f: impl FnOnce(&mut JsonView)) -> bool {
        let Spot::Json(s, local) = self.cursor_spot() else {
            return false;
        };
        let json = &mut self.sections[s].json;
        json.top();
        json.down(local);
        f(json);
        let local = json.scroll().cursor();
        let start = self.section_start(s);
        self.scroll.set_len(self.len());
        self.scroll.select(start + 1 + local);
        true
    }

    /// Folds or unfolds a whole section's value (from its heading).
    fn toggle_section(&mut self, s: usize) {
        if let Some(section) = self.sections.get_mut(s) {
            section.json.top();
            section.json.toggle();
        }
        self.scroll.set_len(self.len());
    }

    fn for_each_json(&mut self, f: impl Fn(&mut JsonView)) {
        for s in &mut self.sections {
            f(&mut s.json);
        }
        self.scroll.set_len(self.len());
    }
}

/// A transaction on screen.
#[derive(Debug, Clone)]
struct TxView {
    tree: ScanTree,
    state: TreeState,
    details: Details,
}

/// A reassignment on screen.
#[derive(Debug, Clone)]
struct ReassignView {
    link: Option<LinkTarget>,
    /// History length when the link was last looked for.
    link_checked: usize,
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

/// One selectable row of the lifecycle list.
#[derive(Debug, Clone)]
struct LifeRow {
    entry: LifeEntry,
    /// The "jump to creation" row.
    jump: bool,
    /// The update open now.
    current: bool,
}

/// The lifecycle list of a contract: a [`Lifecycle`] from the loaded history as rows, the
/// creation first again as a "jump to creation" row when it is loaded.
#[derive(Debug, Clone)]
struct LifecycleList {
    contract_id: String,
    rows: Vec<LifeRow>,
    /// Shown above the rows (e.g. "created before the loaded history").
    note: Option<String>,
    scroll: ScrollState,
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
    /// Updates left by following links: (update id, selected event id).
    back: Vec<(String, Option<String>)>,
    area: Rect,
}

impl Default for UpdatePane {
    fn default() -> Self {
        Self::new()
    }
}

/// The pane's regions.
#[derive(Debug, Clone, Copy, Default)]
struct Areas {
    header: Rect,
    tree_title: Rect,
    tree: Rect,
    /// The column between tree and details on wide layouts.
    separator: Rect,
    details_title: Rect,
    details: Rect,
    prompt: Rect,
}

/// Splits the pane. `tree_rows` (visible tree rows) lets a short tree leave room to the details
/// on narrow layouts.
fn split(area: Rect, has_tree: bool, tree_rows: usize, prompt: bool) -> Areas {
    let mut rest = area;
    let mut a = Areas::default();
    if prompt && rest.height >= 2 {
        a.prompt = Rect::new(rest.x, rest.y + rest.height - 1, rest.width, 1);
        rest.height -= 1;
    }
    let header_h = match rest.height {
        0 => 0,
        1..=6 => 1,
        _ => 2,
    };
    a.header = Rect::new(rest.x, rest.y, rest.width, header_h);
    rest.y += header_h;
    rest.height -= header_h;
    let title_and_body = |r: Rect| -> (Rect, Rect) {
        let t = r.height.min(1);
        (
            Rect::new(r.x, r.y, r.width, t),
            Rect::new(r.x, r.y + t, r.width, r.height - t),
        )
    };
    if !has_tree {
        (a.details_title, a.details) = title_and_body(rest);
        return a;
    }
    if rest.width >= WIDE_MIN_WIDTH {
        let left = rest.width / 2;
        let left_rect = Rect::new(rest.x, rest.y, left, rest.height);
        a.separator = Rect::new(rest.x + left, rest.y, 1, rest.height);
        let right_rect = Rect::new(
            rest.x + left + 1,
            rest.y,
            rest.width - left - 1,
            rest.height,
        );
        (a.tree_title, a.tree) = title_and_body(left_rect);
        (a.details_title, a.details) = title_and_body(right_rect);
    } else {
        let usable = rest.height.saturating_sub(2);
        let most = (usable / 2).max(usable.min(3));
        let rows = u16::try_from(tree_rows).unwrap_or(u16::MAX);
        let tree_h = rows.clamp(usable.min(3), most);
        let top = Rect::new(rest.x, rest.y, rest.width, (tree_h + 1).min(rest.height));
        let bottom = Rect::new(
            rest.x,
            rest.y + top.height,
            rest.width,
            rest.height - top.height,
        );
        (a.tree_title, a.tree) = title_and_body(top);
        (a.details_title, a.details) = title_and_body(bottom);
    }
    a
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
            back: Vec::new(),
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
            .map(|l| l.rows.iter().map(|r| r.entry.update_id.clone()).collect())
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

    /// Follows a link to another update, remembering where we were (Esc comes back).
    fn navigate(&mut self, update_id: &str, want: Want, sh: &mut Shared, out: &mut Out) {
        if let Some(current) = &self.update_id
            && current != update_id
        {
            let event = self.selected_event_id().map(str::to_string);
            self.back.push((current.clone(), event));
        }
        self.load(update_id, want, sh, out);
    }

    fn load(&mut self, update_id: &str, want: Want, sh: &mut Shared, out: &mut Out) {
        self.lifecycle = None;
        self.save = None;
        sh.current_update = Some(update_id.to_string());
        let same = self.update_id.as_deref() == Some(update_id);
        if same && self.content.is_some() && self.pending.is_none() {
            self.apply_want(want);
            return;
        }
        if same && self.content.is_none() && self.pending.is_some() {
            // Already on its way: only the selection changes.
            self.want = want;
            return;
        }
        self.update_id = Some(update_id.to_string());
        self.error = None;
        self.body = None;
        self.content = None;
        self.focus = Focus::Tree;
        if let Some(old) = self.pending.take() {
            out.effects.push(Effect::Cancel(old));
        }
        match sh.bodies.get(update_id) {
            Some(body) => self.show(body, want, sh),
            None => {
                self.want = want;
                self.pending = Some(out.fetch(
                    sh,
                    Request::Event {
                        update_id: update_id.to_string(),
                    },
                ));
            }
        }
    }

    /// Refetches the open update, keeping what is shown until the reply arrives.
    fn refresh(&mut self, sh: &mut Shared, out: &mut Out) {
        let Some(id) = self.update_id.clone() else {
            return;
        };
        if let Some(old) = self.pending.take() {
            out.effects.push(Effect::Cancel(old));
        }
        self.want = match self.selected_event_id() {
            Some(e) => Want::Event(e.to_string()),
            None => std::mem::take(&mut self.want),
        };
        self.error = None;
        self.pending = Some(out.fetch(sh, Request::Event { update_id: id }));
    }

    /// Shows a loaded body.
    fn show(&mut self, body: Arc<EventHistoryItem>, want: Want, sh: &Shared) {
        let content = match &body.update {
            Some(UpdateItem::Transaction(_)) => match ScanTree::from_body(body.clone()) {
                Some(tree) => {
                    let state = if tree.len() <= EXPAND_ALL_MAX_EVENTS {
                        let mut s = TreeState::new(&tree);
                        s.expand_all(&tree);
                        s
                    } else {
                        TreeState::with_expanded_depth(&tree, INITIAL_DEPTH)
                    };
                    let details = tx_details(&tree, state.selected());
                    Content::Tx(Box::new(TxView {
                        tree,
                        state,
                        details,
                    }))
                }
                None => Content::NoUpdate,
            },
            Some(UpdateItem::Reassignment(r)) => {
                let link = resolve_link(&sh.history, r);
                Content::Reassign(Box::new(ReassignView {
                    details: reassign_details(r, link.as_ref()),
                    link,
                    link_checked: sh.history.len(),
                }))
            }
            _ => Content::NoUpdate,
        };
        self.focus = match content {
            Content::Tx(_) => Focus::Tree,
            _ => Focus::Details,
        };
        self.body = Some(body);
        self.content = Some(content);
        self.apply_want(want);
        self.apply_viewports();
    }

    fn apply_want(&mut self, want: Want) {
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
    fn sync_details(&mut self) {
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

    fn areas(&self, area: Rect) -> Areas {
        match &self.content {
            Some(Content::Tx(v)) => split(area, true, v.state.visible_len(), self.save.is_some()),
            _ => split(area, false, 0, self.save.is_some()),
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
    }

    fn details_mut(&mut self) -> Option<&mut Details> {
        match &mut self.content {
            Some(Content::Tx(v)) => Some(&mut v.details),
            Some(Content::Reassign(r)) => Some(&mut r.details),
            _ => None,
        }
    }

    fn details(&self) -> Option<&Details> {
        match &self.content {
            Some(Content::Tx(v)) => Some(&v.details),
            Some(Content::Reassign(r)) => Some(&r.details),
            _ => None,
        }
    }

    /// Moves focus to the tree (when there is one).
    fn focus_tree(&mut self) -> bool {
        if matches!(self.content, Some(Content::Tx(_))) && self.focus != Focus::Tree {
            self.focus = Focus::Tree;
            return true;
        }
        false
    }

    /// A tree command. Returns whether it was used.
    fn tree_command(&mut self, cmd: Command) -> bool {
        let Some(Content::Tx(v)) = &mut self.content else {
            return false;
        };
        let (tree, state) = (&v.tree, &mut v.state);
        let selected = state.selected();
        let has_children = selected.is_some_and(|n| !tree.children(n).is_empty());
        match cmd {
            Command::Up => state.up(1),
            Command::Down => state.down(1),
            Command::PageUp => state.page_up(),
            Command::PageDown => state.page_down(),
            Command::Top => state.top(),
            Command::Bottom => state.bottom(),
            Command::Toggle | Command::Select => {
                if has_children {
                    state.toggle(tree);
                } else if selected.is_some() {
                    self.focus = Focus::Details;
                }
            }
            // Expand a closed node; on an open node or a leaf, move right into the details
            // (↓ walks the children).
            Command::Expand | Command::Right => {
                let open = selected.is_some_and(|n| state.is_expanded(n));
                if has_children && !open {
                    state.expand(tree);
                } else if selected.is_some() {
                    self.focus = Focus::Details;
                }
            }
            Command::Collapse | Command::Left => state.collapse(),
            Command::ExpandAll => state.expand_all(tree),
            Command::CollapseAll => state.collapse_all(tree),
            Command::Parent => state.parent(),
            _ => return false,
        }
        self.sync_details();
        self.apply_viewports();
        true
    }

    /// A details command. Returns whether it was used.
    fn details_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        let has_tree = matches!(self.content, Some(Content::Tx(_)));
        let Some(d) = self.details_mut() else {
            return false;
        };
        let spot = d.cursor_spot();
        match cmd {
            Command::Up => d.scroll.up(1),
            Command::Down => d.scroll.down(1),
            Command::PageUp => d.scroll.page_up(),
            Command::PageDown => d.scroll.page_down(),
            Command::Top => d.scroll.top(),
            Command::Bottom => d.scroll.bottom(),
            Command::Toggle | Command::Select => match spot {
                Spot::Json(..) => {
                    d.with_json(JsonView::toggle);
                }
                Spot::Header(s) => d.toggle_section(s),
                Spot::Field(i) => {
                    if let Some(target) = d.fields[i].open.clone() {
                        self.navigate(&target, Want::Nothing, sh, out);
                    }
                }
                Spot::Nowhere => {}
            },
            Command::Expand | Command::Right => match spot {
                Spot::Json(..) => {
                    d.with_json(JsonView::expand);
                }
                Spot::Header(s) => {
                    if d.sections.get(s).is_some_and(|x| x.json.visible_len() <= 1) {
                        d.toggle_section(s);
                    }
                    d.scroll.down(1);
                }
                _ => d.scroll.down(1),
            },
            Command::Collapse | Command::Left => match spot {
                Spot::Json(_, local) if local > 0 => {
                    d.with_json(JsonView::collapse);
                }
                _ => {
                    if has_tree {
                        self.focus = Focus::Tree;
                    }
                }
            },
            Command::Parent => match spot {
                Spot::Json(_, local) if local > 0 => {
                    d.with_json(JsonView::parent);
                }
                Spot::Json(s, _) => d.scroll.select(d.section_start(s)),
                _ => {
                    if has_tree {
                        self.focus = Focus::Tree;
                        self.tree_command(Command::Parent);
                    }
                }
            },
            Command::ExpandAll => d.for_each_json(JsonView::expand_all),
            Command::CollapseAll => d.for_each_json(JsonView::collapse_all),
            _ => return false,
        }
        true
    }

    /// The contract of the selected event (or of the reassignment).
    fn selected_contract(&self) -> Option<String> {
        let cid = match &self.content {
            Some(Content::Tx(v)) => v
                .state
                .selected()
                .and_then(|n| v.tree.event(n))
                .map(|e| e.contract_id().to_string()),
            Some(Content::Reassign(_)) => self
                .reassignment()
                .map(|r| r.event.contract_id().to_string()),
            _ => None,
        }?;
        (!cid.is_empty()).then_some(cid)
    }

    fn reassignment(&self) -> Option<&Reassignment> {
        self.body.as_ref()?.update.as_ref()?.as_reassignment()
    }

    /// `c`: the creating event when it is in this transaction, else the lifecycle list.
    fn follow_contract(&mut self, sh: &Shared, out: &mut Out) {
        let Some(cid) = self.selected_contract() else {
            out.warn("the selected event is on no contract");
            return;
        };
        if let Some(Content::Tx(v)) = &mut self.content {
            let creation = v
                .tree
                .nodes_on_contract(&cid)
                .into_iter()
                .find(|&n| matches!(v.tree.event(n), Some(TreeEvent::Created(_))));
            if let Some(n) = creation
                && v.state.selected() != Some(n)
            {
                v.state.select_node(&v.tree, n);
                self.focus = Focus::Tree;
                self.sync_details();
                out.info("selected the event creating this contract (c again: its lifecycle)");
                return;
            }
        }
        self.lifecycle = Some(build_lifecycle(&cid, self.update_id.as_deref(), sh));
        self.apply_viewports();
    }

    fn lifecycle_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        let Some(l) = &mut self.lifecycle else {
            return false;
        };
        match cmd {
            Command::Up => l.scroll.up(1),
            Command::Down => l.scroll.down(1),
            Command::PageUp => l.scroll.page_up(),
            Command::PageDown => l.scroll.page_down(),
            Command::Top => l.scroll.top(),
            Command::Bottom => l.scroll.bottom(),
            Command::Back | Command::Cancel | Command::FollowContract => self.lifecycle = None,
            Command::Select | Command::Confirm | Command::Toggle | Command::Expand => {
                let Some(row) = l.rows.get(l.scroll.cursor()).cloned() else {
                    return true;
                };
                let want = Want::Contract {
                    id: l.contract_id.clone(),
                    prefer_create: row.jump,
                };
                self.lifecycle = None;
                self.navigate(&row.entry.update_id, want, sh, out);
            }
            Command::Copy => {
                if let Some(r) = l.rows.get(l.scroll.cursor()) {
                    out.copy("update id", sanitize(&r.entry.update_id).into_owned());
                }
            }
            // Everything else is swallowed while the list is open (it is modal).
            _ => {}
        }
        true
    }

    /// `y`: the selected id, or the JSON under the cursor.
    fn copy(&self, out: &mut Out) {
        if self.focus == Focus::Details
            && let Some(d) = self.details()
        {
            match d.cursor_spot() {
                Spot::Field(i) => {
                    let f = &d.fields[i];
                    out.copy(f.name, sanitize(&f.value).into_owned());
                }
                Spot::Header(s) => {
                    let sec = &d.sections[s];
                    out.copy(sec.name, sec.json.to_json());
                }
                Spot::Json(s, local) => {
                    let mut json = d.sections[s].json.clone();
                    json.top();
                    json.down(local);
                    if let Some(text) = json.selected_json() {
                        out.copy(&format!("JSON {}", json.selected_path()), text);
                    }
                }
                Spot::Nowhere => {}
            }
            return;
        }
        if let Some(e) = self.selected_event_id() {
            out.copy("event id", sanitize(e).into_owned());
        } else if let Some(u) = &self.update_id {
            out.copy("update id", sanitize(u).into_owned());
        }
    }

    fn open_save_prompt(&mut self, out: &mut Out) {
        let (Some(id), Some(_)) = (&self.update_id, &self.body) else {
            out.warn("nothing to save: no update loaded");
            return;
        };
        let name: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(128)
            .collect();
        self.save = Some(TextInput::single_line().with_text(&format!("./{name}.json")));
        self.apply_viewports();
    }

    fn submit_save(&mut self, path: String, sh: &mut Shared, out: &mut Out) {
        let path = path.trim().to_string();
        if path.is_empty() {
            if let Some(input) = &mut self.save {
                input.set_validation(Some("enter a file name".into()));
            }
            return;
        }
        let Some(body) = &self.body else {
            self.save = None;
            return;
        };
        let mut contents = match crate::model::json_text::pretty(body.raw.get()) {
            Ok(contents) => contents,
            Err(e) => {
                out.error(format!("cannot save this update: {e}"));
                self.save = None;
                self.apply_viewports();
                return;
            }
        };
        contents.push('\n');
        let id = out.next_id(sh);
        out.effects.push(Effect::WriteFile {
            id,
            path: PathBuf::from(path),
            contents: contents.into_bytes(),
        });
        self.save = None;
        self.apply_viewports();
    }

    /// Back: closes the innermost thing, or returns to the previous update.
    fn back(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        if self.focus == Focus::Details && self.focus_tree() {
            return true;
        }
        if let Some((id, event)) = self.back.pop() {
            let want = event.map_or(Want::Nothing, Want::Event);
            self.load(&id, want, sh, out);
            return true;
        }
        false
    }

    fn render_header(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme) {
        let Some(id) = &self.update_id else { return };
        let mut pieces: Vec<(&str, String, Style)> = vec![("update", id.clone(), theme.id)];
        let time = |s: &str| fmt_time(s, sh);
        match self.body.as_ref().and_then(|b| b.update.as_ref()) {
            Some(UpdateItem::Transaction(tx)) => {
                pieces.push(("", "transaction".into(), theme.accent));
                pieces.push(("events", tx.events_by_id.len().to_string(), theme.accent));
                pieces.push(("migration", tx.migration_id.to_string(), Style::default()));
                pieces.push(("record", time(&tx.record_time), theme.time));
                pieces.push(("effective", time(&tx.effective_at), theme.time));
                pieces.push((
                    "synchronizer",
                    short_party(&tx.synchronizer_id).to_string(),
                    theme.party,
                ));
                if !tx.workflow_id.is_empty() {
                    pieces.push(("workflow", tx.workflow_id.clone(), Style::default()));
                }
                if let Some(h) = tx
                    .external_transaction_hash
                    .as_deref()
                    .filter(|h| !h.is_empty())
                {
                    pieces.push(("external hash", h.to_string(), theme.id));
                }
            }
            Some(UpdateItem::Reassignment(r)) => {
                let (kind, style) = match r.event {
                    ReassignmentEvent::Assign(_) => ("assign", theme.assign),
                    ReassignmentEvent::Unassign(_) => ("unassign", theme.unassign),
                };
                pieces.push(("", kind.into(), style));
                pieces.push((
                    "migration",
                    r.event.migration_id().to_string(),
                    Style::default(),
                ));
                pieces.push(("record", time(&r.record_time), theme.time));
                pieces.push(("offset", r.offset.clone(), Style::default()));
            }
            _ => {}
        }
        if self.pending.is_some() && self.content.is_some() {
            pieces.push(("", "refreshing…".into(), theme.status_warn));
        }
        if self.error.is_some() && self.content.is_some() {
            pieces.push(("", "refresh failed (r retries)".into(), theme.status_err));
        }
        render_flow(&pieces, area, buf, theme);
    }

    fn render_message(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let width = usize::from(area.width);
        let mut lines: Vec<Line<'_>> = Vec::new();
        match &self.update_id {
            None => {
                lines.push(Line::styled("No update open.", theme.accent));
                lines.push(Line::raw(""));
                for text in wrap_text(
                    "Press Enter on an update in the History pane, or type :event <update id> \
                     in the command palette (:).",
                    width,
                ) {
                    lines.push(Line::styled(text, theme.muted));
                }
            }
            Some(id) => {
                if let Some(err) = &self.error {
                    lines.push(Line::styled(
                        format!(
                            "could not load update {}",
                            safe_line(id, width.saturating_sub(24))
                        ),
                        theme.status_err,
                    ));
                    for text in wrap_text(&sanitize(err), width) {
                        lines.push(Line::raw(text));
                    }
                    lines.push(Line::raw(""));
                    lines.push(Line::styled("press r to retry", theme.muted));
                } else if self.pending.is_some() {
                    lines.push(Line::from(vec![
                        Span::styled("loading ", theme.muted),
                        Span::styled(short_id(&sanitize(id), 16), theme.id),
                    ]));
                } else {
                    lines.push(Line::styled(
                        "The server sent no update in this body (nothing to show but its verdict: \
                         see the Verdict pane).",
                        theme.muted,
                    ));
                }
            }
        }
        for (i, line) in lines.iter().take(usize::from(area.height)).enumerate() {
            buf.set_line(area.x, area.y + i as u16, line, area.width);
        }
    }

    fn render_details(
        &self,
        d: &Details,
        areas: &Areas,
        buf: &mut Buffer,
        sh: &Shared,
        theme: &Theme,
        focused: bool,
    ) {
        let active = focused && self.focus == Focus::Details;
        let hint = match (&self.content, active) {
            (Some(Content::Tx(_)), true) => "  ← tree",
            (Some(Content::Tx(_)), false) => "  → details",
            _ => "",
        };
        render_title(
            areas.details_title,
            buf,
            theme,
            active,
            "Details",
            &d.title,
            hint,
        );
        let area = areas.details;
        if area.width == 0 || area.height == 0 {
            return;
        }
        let width = usize::from(area.width);
        let range = d.scroll.visible_range(usize::from(area.height));
        let cursor = d.scroll.cursor();
        // Rows of JSON sections are built per section, only for the visible part.
        let mut row = range.start;
        while row < range.end {
            let y = area.y + (row - range.start) as u16;
            match d.spot(row) {
                Spot::Field(i) => {
                    let line = field_line(&d.fields[i], width, sh, theme);
                    buf.set_line(area.x, y, &line, area.width);
                    row += 1;
                }
                Spot::Header(s) => {
                    let sec = &d.sections[s];
                    let mut text = format!("── {} ", sec.name);
                    let used = text.width();
                    text.push_str(&"─".repeat(width.saturating_sub(used)));
                    let line = Line::styled(safe_line(&text, width).into_owned(), theme.title);
                    buf.set_line(area.x, y, &line, area.width);
                    row += 1;
                }
                Spot::Json(s, local) => {
                    let json = &d.sections[s].json;
                    let take = (json.visible_len() - local).min(range.end - row);
                    for (k, line) in json
                        .lines_visible(local..local + take, theme, area.width)
                        .iter()
                        .enumerate()
                    {
                        buf.set_line(area.x, y + k as u16, line, area.width);
                    }
                    row += take.max(1);
                }
                Spot::Nowhere => break,
            }
        }
        if range.contains(&cursor) {
            let y = area.y + (cursor - range.start) as u16;
            buf.set_style(
                Rect::new(area.x, y, area.width, 1),
                theme.selection_style(active),
            );
        }
    }

    /// A command from the keymap (see [`Pane::on_command`]).
    fn command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        if self.save.is_some() {
            return match cmd {
                Command::Cancel | Command::Back => {
                    self.save = None;
                    self.apply_viewports();
                    true
                }
                Command::Confirm => {
                    let text = self.save.as_ref().map(TextInput::text).unwrap_or_default();
                    self.submit_save(text, sh, out);
                    true
                }
                _ => false,
            };
        }
        if self.lifecycle.is_some() {
            return self.lifecycle_command(cmd, sh, out);
        }
        match cmd {
            Command::Refresh => {
                self.refresh(sh, out);
                true
            }
            Command::Copy => {
                self.copy(out);
                true
            }
            Command::Save => {
                self.open_save_prompt(out);
                true
            }
            Command::FollowContract => {
                self.follow_contract(sh, out);
                true
            }
            Command::Back => self.back(sh, out),
            _ if self.content.is_none() => false,
            _ => match self.focus {
                Focus::Tree if matches!(self.content, Some(Content::Tx(_))) => {
                    self.tree_command(cmd)
                }
                _ => self.details_command(cmd, sh, out),
            },
        }
    }

    fn render_lifecycle(
        &self,
        l: &LifecycleList,
        area: Rect,
        buf: &mut Buffer,
        sh: &Shared,
        theme: &Theme,
    ) {
        if area.width < 4 || area.height < 3 {
            return;
        }
        let rows = l.rows.len() + usize::from(l.note.is_some()) + 1;
        let w = area
            .width
            .saturating_sub(2)
            .min(110)
            .max(area.width.min(20));
        let h = (rows as u16 + 2).min(area.height);
        let rect = crate::ui::layout::centered(area, w, h);
        Clear.render(rect, buf);
        let title = format!(
            " contract {} · lifecycle in loaded history ",
            short_id(&sanitize(&l.contract_id), 16)
        );
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border_style(true))
            .title(Line::styled(
                safe_line(&title, usize::from(rect.width.saturating_sub(2))).into_owned(),
                theme.title,
            ))
            .style(theme.overlay);
        let inner = block.inner(rect);
        block.render(rect, buf);
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let width = usize::from(inner.width);
        let mut y = inner.y;
        let bottom = inner.y + inner.height;
        if let Some(note) = &l.note {
            buf.set_line(
                inner.x,
                y,
                &Line::styled(safe_line(note, width).into_owned(), theme.status_warn),
                inner.width,
            );
            y += 1;
        }
        // Last row: the keys.
        let list_h = bottom.saturating_sub(y).saturating_sub(1);
        let range = l.scroll.visible_range(usize::from(list_h));
        let cursor = l.scroll.cursor();
        for (k, i) in range.enumerate() {
            let r = &l.rows[i];
            let e = &r.entry;
            let ry = y + k as u16;
            let marker_style = match e.step {
                Step::Created | Step::Assigned => theme.created,
                Step::Archived | Step::Unassigned | Step::CreatedArchived => theme.archived,
                Step::Exercised => theme.exercised,
            };
            let lead = if r.jump {
                "⤒ "
            } else if r.current {
                "● "
            } else {
                "  "
            };
            let label = if r.jump {
                format!("jump to creation ({})", e.label)
            } else {
                e.label.clone()
            };
            let spans = vec![
                Span::styled(lead, theme.accent),
                Span::styled(sh.format_time(e.record_time), theme.time),
                Span::raw("  "),
                Span::styled(short_id(&sanitize(&e.update_id), 14), theme.id),
                Span::raw("  "),
                Span::styled(format!("{:<10}", e.step.as_str()), marker_style),
                Span::raw(" "),
                Span::raw(sanitize(&label).into_owned()),
            ];
            buf.set_line(inner.x, ry, &Line::from(spans), inner.width);
            if i == cursor {
                buf.set_style(
                    Rect::new(inner.x, ry, inner.width, 1),
                    theme.selection_style(true),
                );
            }
        }
        if l.rows.is_empty() && list_h > 0 {
            buf.set_line(
                inner.x,
                y,
                &Line::styled("no loaded update touches this contract", theme.muted),
                inner.width,
            );
        }
        let keys = format!(
            "times {} · ● this update · Enter open · y copy id · Esc close",
            sh.zone_label()
        );
        buf.set_line(
            inner.x,
            bottom - 1,
            &Line::styled(safe_line(&keys, width).into_owned(), theme.muted),
            inner.width,
        );
    }
}

/// A server time in the pane's zone, with the zone named (`-` when empty).
fn fmt_time(s: &str, sh: &Shared) -> String {
    server_time(s, "-", |us| {
        format!("{} {}", sh.format_time(us), sh.zone_label())
    })
}

/// Draws `label value` pieces flowing over the rows of `area`, each piece cut to fit.
fn render_flow(pieces: &[(&str, String, Style)], area: Rect, buf: &mut Buffer, theme: &Theme) {
    let width = usize::from(area.width);
    if width == 0 || area.height == 0 {
        return;
    }
    let mut row = 0u16;
    let mut spans: Vec<Span<'_>> = Vec::new();
    let mut used = 0usize;
    let mut flush = |spans: &mut Vec<Span<'_>>, row: u16| {
        if row < area.height {
            buf.set_line(
                area.x,
                area.y + row,
                &Line::from(std::mem::take(spans)),
                area.width,
            );
        }
        spans.clear();
    };
    for (label, value, style) in pieces {
        let label_w = if label.is_empty() {
            0
        } else {
            label.width() + 1
        };
        let value = sanitize(value);
        let need = label_w + value.width() + if used > 0 { 2 } else { 0 };
        if used > 0 && used + need > width {
            flush(&mut spans, row);
            row += 1;
            used = 0;
        }
        if row >= area.height {
            break;
        }
        if used > 0 {
            spans.push(Span::raw("  "));
            used += 2;
        }
        if !label.is_empty() {
            spans.push(Span::styled(format!("{label} "), theme.muted));
            used += label_w;
        }
        let left = width.saturating_sub(used);
        let shown = safe_line(&value, left).into_owned();
        used += shown.width();
        spans.push(Span::styled(shown, *style));
    }
    flush(&mut spans, row);
}

/// A panel title: `name: subject` then a rule, with a focus hint at the end.
fn render_title(
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
    active: bool,
    name: &str,
    subject: &str,
    hint: &str,
) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let head = if subject.is_empty() {
        format!("─ {name} ")
    } else {
        format!("─ {name}: ")
    };
    let hint_w = hint.width();
    let subject_room = width.saturating_sub(head.width() + hint_w + 2);
    let subject = if subject.is_empty() {
        String::new()
    } else {
        format!("{} ", safe_line(subject, subject_room))
    };
    let used = head.width() + subject.width();
    let fill = width.saturating_sub(used + hint_w);
    let border = theme.border_style(active);
    let title = if active { theme.title } else { theme.muted };
    let line = Line::from(vec![
        Span::styled(head, border),
        Span::styled(subject, title),
        Span::styled("─".repeat(fill), border),
        Span::styled(hint.to_string(), theme.muted),
    ]);
    buf.set_line(area.x, area.y, &line, area.width);
}

fn field_line<'a>(f: &'a Field, width: usize, sh: &Shared, theme: &Theme) -> Line<'a> {
    let label = if f.first { f.name } else { "" };
    let label = format!("{label:<LABEL_WIDTH$}");
    let label = safe_line(&label, width).into_owned();
    let left = width.saturating_sub(label.width());
    let (value, style) = match f.style {
        FieldStyle::Time => (fmt_time(&f.value, sh), theme.time),
        FieldStyle::Id => (f.value.clone(), theme.id),
        FieldStyle::EventId => (short_event_id(&f.value), theme.id),
        FieldStyle::Party => (f.value.clone(), theme.party),
        FieldStyle::Text => (f.value.clone(), Style::default()),
        FieldStyle::Accent => (f.value.clone(), theme.accent),
        FieldStyle::Muted => (f.value.clone(), theme.muted),
        FieldStyle::Created => (f.value.clone(), theme.created),
        FieldStyle::Exercised => (f.value.clone(), theme.exercised),
        FieldStyle::Archived => (f.value.clone(), theme.archived),
        FieldStyle::Link => (f.value.clone(), theme.id),
    };
    let suffix = if f.open.is_some() {
        "  Enter: open"
    } else {
        ""
    };
    let room = left.saturating_sub(if left > suffix.width() + 8 {
        suffix.width()
    } else {
        0
    });
    let shown = safe_line(&value, room).into_owned();
    let mut spans = vec![Span::styled(label, theme.muted), Span::styled(shown, style)];
    if !suffix.is_empty() && room < left {
        spans.push(Span::styled(suffix, theme.muted));
    }
    Line::from(spans)
}

fn field(name: &'static str, value: impl Into<String>, style: FieldStyle) -> Field {
    Field {
        name,
        first: true,
        value: value.into(),
        style,
        open: None,
    }
}

/// One row per item (label on the first only); `-` when empty.
fn list_fields(out: &mut Vec<Field>, name: &'static str, items: &[String], style: FieldStyle) {
    if items.is_empty() {
        out.push(field(name, "-", FieldStyle::Muted));
        return;
    }
    for (i, item) in items.iter().enumerate() {
        out.push(Field {
            first: i == 0,
            ..field(name, item.clone(), style)
        });
    }
}

fn json_section(name: &'static str, raw: &RawJson) -> Section {
    let value = raw
        .to_value()
        .unwrap_or_else(|e| Value::String(format!("(cannot show this value: {e})")));
    Section {
        name,
        json: JsonView::new(&value),
    }
}

/// The package id of a template id (`pkg:Module:Entity`).
fn package_id(template_id: &str) -> &str {
    match template_id.split_once(':') {
        Some((pkg, rest)) if rest.contains(':') => pkg,
        _ => "",
    }
}

fn package_value(package_name: &str, template_id: &str) -> String {
    let pkg = package_id(template_id);
    match (package_name.is_empty(), pkg.is_empty()) {
        (false, false) => format!("{package_name}  {}", short_id(pkg, 12)),
        (false, true) => package_name.to_string(),
        (true, false) => short_id(pkg, 12),
        (true, true) => "-".into(),
    }
}

fn created_fields(c: &CreatedEvent, fields: &mut Vec<Field>) {
    fields.push(field("event", c.event_id.clone(), FieldStyle::EventId));
    fields.push(field("contract", c.contract_id.clone(), FieldStyle::Id));
    fields.push(field(
        "template",
        short_template(&c.template_id),
        FieldStyle::Accent,
    ));
    fields.push(field(
        "package",
        package_value(&c.package_name, &c.template_id),
        FieldStyle::Text,
    ));
    if !c.created_at.is_empty() {
        fields.push(field("created at", c.created_at.clone(), FieldStyle::Time));
    }
    list_fields(fields, "signatories", &c.signatories, FieldStyle::Party);
    list_fields(fields, "observers", &c.observers, FieldStyle::Party);
}

fn exercised_fields(e: &ExercisedEvent, fields: &mut Vec<Field>) {
    fields.push(field("event", e.event_id.clone(), FieldStyle::EventId));
    fields.push(field("contract", e.contract_id.clone(), FieldStyle::Id));
    fields.push(field("choice", e.choice.clone(), FieldStyle::Exercised));
    fields.push(field(
        "template",
        short_template(&e.template_id),
        FieldStyle::Accent,
    ));
    fields.push(field(
        "package",
        package_value(&e.package_name, &e.template_id),
        FieldStyle::Text,
    ));
    fields.push(if e.consuming {
        field(
            "consuming",
            "yes (archives the contract)",
            FieldStyle::Archived,
        )
    } else {
        field("consuming", "no", FieldStyle::Muted)
    });
    list_fields(fields, "acting", &e.acting_parties, FieldStyle::Party);
    match e.interface_id.as_deref().filter(|i| !i.is_empty()) {
        Some(i) => fields.push(field("interface", short_template(i), FieldStyle::Accent)),
        None => fields.push(field("interface", "-", FieldStyle::Muted)),
    }
    fields.push(field(
        "children",
        e.child_event_ids.len().to_string(),
        FieldStyle::Text,
    ));
}

/// The details of tree node `node`.
fn tx_details(tree: &ScanTree, node: Option<NodeId>) -> Details {
    let Some(node) = node else {
        return Details::new(
            String::new(),
            vec![field("events", "none", FieldStyle::Muted)],
            Vec::new(),
            None,
        );
    };
    let mut fields = Vec::new();
    let mut sections = Vec::new();
    let title = match tree.event(node) {
        Some(TreeEvent::Created(c)) => {
            created_fields(c, &mut fields);
            sections.push(json_section("create_arguments", &c.create_arguments));
            format!("created {}", short_template(&c.template_id))
        }
        Some(TreeEvent::Exercised(e)) => {
            exercised_fields(e, &mut fields);
            sections.push(json_section("choice_argument", &e.choice_argument));
            sections.push(json_section("exercise_result", &e.exercise_result));
            format!("exercised {}", e.choice)
        }
        Some(TreeEvent::Unknown {
            event_type,
            event_id,
            raw,
        }) => {
            fields.push(field("event", event_id.clone(), FieldStyle::EventId));
            fields.push(field("event type", event_type.clone(), FieldStyle::Accent));
            fields.push(field(
                "note",
                "an event kind this version does not know",
                FieldStyle::Muted,
            ));
            sections.push(json_section("event", raw));
            event_type.clone()
        }
        None => {
            let id = tree.event_id(node).unwrap_or_default();
            fields.push(field("event", id, FieldStyle::EventId));
            fields.push(field(
                "note",
                "listed as a child but missing from events_by_id",
                FieldStyle::Archived,
            ));
            "missing event".into()
        }
    };
    Details::new(title, fields, sections, Some(node))
}

/// The details of a reassignment.
fn reassign_details(r: &Reassignment, link: Option<&LinkTarget>) -> Details {
    let mut fields = Vec::new();
    let mut sections = Vec::new();
    let ev = &r.event;
    let (kind, other, style) = match ev {
        ReassignmentEvent::Assign(_) => ("assign", "unassign", FieldStyle::Created),
        ReassignmentEvent::Unassign(_) => ("unassign", "assign", FieldStyle::Archived),
    };
    let (source, target, submitter, counter) = match ev {
        ReassignmentEvent::Assign(a) => (
            &a.source_synchronizer,
            &a.target_synchronizer,
            &a.submitter,
            a.reassignment_counter,
        ),
        ReassignmentEvent::Unassign(u) => (
            &u.source_synchronizer,
            &u.target_synchronizer,
            &u.submitter,
            u.reassignment_counter,
        ),
    };
    fields.push(field("kind", kind, style));
    fields.push(field("source", source.clone(), FieldStyle::Party));
    fields.push(field("target", target.clone(), FieldStyle::Party));
    fields.push(field("counter", counter.to_string(), FieldStyle::Text));
    fields.push(field("submitter", submitter.clone(), FieldStyle::Party));
    fields.push(field(
        "unassign id",
        ev.unassign_id().to_string(),
        FieldStyle::Id,
    ));
    let link_name: &'static str = if other == "assign" {
        "→ assign"
    } else {
        "← unassign"
    };
    fields.push(match link {
        Some(l) => Field {
            open: Some(l.update_id.clone()),
            ..field(link_name, l.update_id.clone(), FieldStyle::Link)
        },
        None => field(
            link_name,
            format!("the matching {other} is not in the loaded history"),
            FieldStyle::Muted,
        ),
    });
    let title = match ev {
        ReassignmentEvent::Assign(a) => {
            let c = &a.created_event;
            created_fields(c, &mut fields);
            sections.push(json_section("create_arguments", &c.create_arguments));
            format!("assign {} → {}", short_party(source), short_party(target))
        }
        ReassignmentEvent::Unassign(u) => {
            fields.push(field("contract", u.contract_id.clone(), FieldStyle::Id));
            format!("unassign {} → {}", short_party(source), short_party(target))
        }
    };
    Details::new(title, fields, sections, None)
}

/// The lifecycle list of `contract_id` (`current`: the update open now).
fn build_lifecycle(contract_id: &str, current: Option<&str>, sh: &Shared) -> LifecycleList {
    let life = Lifecycle::build(&sh.history, contract_id);
    let note = match life.creation() {
        Some(_) => None,
        None => Some(match sh.history.first() {
            Some(first) => format!(
                "created before the loaded history (oldest loaded update: {} {})",
                sh.format_time(first.record_time),
                sh.zone_label()
            ),
            None => "created before the loaded history (no history loaded)".to_string(),
        }),
    };
    let row = |entry: &LifeEntry, jump: bool| LifeRow {
        current: current == Some(entry.update_id.as_str()),
        entry: entry.clone(),
        jump,
    };
    let mut rows: Vec<LifeRow> = life.creation().map(|c| row(c, true)).into_iter().collect();
    rows.extend(life.entries.iter().map(|e| row(e, false)));
    let mut scroll = ScrollState::new(rows.len());
    if let Some(i) = rows.iter().position(|r| r.current && !r.jump) {
        scroll.select(i);
    }
    LifecycleList {
        contract_id: life.contract_id,
        rows,
        note,
        scroll,
    }
}

impl Pane for UpdatePane {
    fn id(&self) -> PaneId {
        PaneId::Update
    }

    fn key_context(&self) -> KeyContext {
        if self.save.is_some() {
            KeyContext::TextInput
        } else if self.lifecycle.is_some() {
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
            InputOutcome::Submitted(path) => self.submit_save(path, sh, out),
            InputOutcome::Cancelled => {
                self.save = None;
                self.apply_viewports();
            }
            _ => {}
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
        // A reassignment whose other half was not loaded yet: look again when the history grew.
        let Some(Content::Reassign(view)) = &self.content else {
            return false;
        };
        if view.link.is_some() || view.link_checked == sh.history.len() {
            return false;
        }
        let Some(r) = self.reassignment() else {
            return false;
        };
        let link = resolve_link(&sh.history, r);
        let details = link.as_ref().map(|l| reassign_details(r, Some(l)));
        let Some(Content::Reassign(view)) = &mut self.content else {
            return false;
        };
        view.link_checked = sh.history.len();
        match (link, details) {
            (Some(link), Some(mut details)) => {
                details.scroll = view.details.scroll;
                view.link = Some(link);
                view.details = details;
                true
            }
            _ => false,
        }
    }

    fn on_fetched(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) {
        let (id, request, result) = (reply.id, &reply.request, &reply.result);
        if self.pending != Some(id) {
            return;
        }
        let Request::Event { update_id } = request else {
            return;
        };
        if self.update_id.as_deref() != Some(update_id.as_str()) {
            return;
        }
        self.pending = None;
        match result {
            Ok(Response::Event(body)) => {
                let want = std::mem::take(&mut self.want);
                self.error = None;
                self.show(body.clone(), want, sh);
            }
            Ok(_) => {
                self.error = Some("unexpected response to GET /v0/events".into());
            }
            Err(e) => {
                let short = short_id(&sanitize(update_id), 16);
                self.error = Some(e.to_string());
                out.error(format!("update {short}: {e}"));
            }
        }
    }

    fn set_area(&mut self, area: Rect) {
        self.area = area;
        self.apply_viewports();
    }

    fn render(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, focused: bool) {
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
            let rest = Rect::new(a.prompt.x + lw, a.prompt.y, a.prompt.width - lw, 1);
            input.render(rest, buf, theme, focused);
        }
        if let Some(l) = &self.lifecycle {
            self.render_lifecycle(l, area, buf, sh, theme);
        }
    }

    fn hints(&self) -> Vec<Command> {
        if self.save.is_some() {
            return vec![Command::Confirm, Command::Cancel];
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
        hints.push(Command::Refresh);
        hints
    }

    fn badge(&self, _sh: &Shared) -> Option<String> {
        let id = self.update_id.as_deref()?;
        Some(short_id(&sanitize(id), 8))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_never_exceeds_the_area() {
        for w in 0..130u16 {
            for h in 0..30u16 {
                let area = Rect::new(1, 2, w, h);
                for (tree, rows, prompt) in [
                    (true, 0, false),
                    (true, 1000, true),
                    (true, 4, false),
                    (false, 0, false),
                    (false, 0, true),
                ] {
                    let a = split(area, tree, rows, prompt);
                    for r in [
                        a.header,
                        a.tree_title,
                        a.tree,
                        a.separator,
                        a.details_title,
                        a.details,
                        a.prompt,
                    ] {
                        if r.width > 0 && r.height > 0 {
                            assert!(area.contains(r.as_position()), "{w}x{h} {r:?}");
                            assert!(r.right() <= area.right() && r.bottom() <= area.bottom());
                        }
                    }
                }
            }
        }
    }
}
