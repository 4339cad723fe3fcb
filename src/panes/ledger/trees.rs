//! Transaction-trees section: `POST /v2/updates/trees` (deprecated since Canton 3.4, removed in
//! 3.5). A form (begin exclusive, end inclusive, party filter, limit, descending order), a list
//! of the answer (transaction trees, offset checkpoints, reassignments) and, on Enter, the tree
//! of one transaction in the generic tree widget ([`LedgerTree`], rebuilt from node-id ranges)
//! with a details panel (fields plus the folded JSON of the arguments). A 413 asks to narrow
//! the range; a 404 says the node has removed the endpoint.
//!
//! ```text
//! 23 items · (0, 60] · any party
//! kind        offset  update          events  record time
//! tree            41  1220ab12cd…          4  2026-01-01 10:00:00.000  exercised AmuletRules_Transfer
//! checkpoint      60                          2 synchronizers
//! ```

use std::borrow::Cow;
use std::sync::Arc;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::{Map, Value};
use unicode_width::UnicodeWidthStr;

use crate::api::ApiError;
use crate::api::ledger::{
    GetUpdatesRequest, JsGetUpdateTreesResponse, JsReassignmentEvent, JsTransactionTree, TreeEvent,
    Update,
};
use crate::config::keymap::KeyContext;
use crate::model::ledger_tree::LedgerTree;
use crate::model::summary::{short_id, short_template};
use crate::msg::Command;
use crate::msg::{Request, RequestId, Response};
use crate::panes::{Out, Shared};
use crate::ui::format::{group_thousands, server_time};
use crate::ui::json::JsonView;
use crate::ui::safe::safe_line;
use crate::ui::table::{Cell, Column, Columns, DataTable, Draw, SortKey, TableRow, Width};
use crate::ui::theme::Theme;
use crate::ui::tree::TreeState;

use super::SectionView;
use super::common::{Note, Tone, explain, kv_line, put, render_notes, split_list};
use super::form::{Complete, Form, FormOutcome};
use super::parties::{candidates, suggestions};

/// What a 404 of this endpoint means.
pub const REMOVED_HINT: &str = "/v2/updates/trees was deprecated in Canton 3.4 and is removed from \
     3.5 on: this node has removed it. Read updates with /v2/updates (the History pane) instead.";

/// Trees with at most this many nodes open fully expanded.
const EXPAND_ALL_MAX: usize = 300;
/// How many offsets the query form covers by default (ending at the ledger end).
const DEFAULT_RANGE: i64 = 50;

/// Which part of the drill-down has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrillFocus {
    Tree,
    Details,
}

/// One item opened with Enter.
#[derive(Debug)]
enum Drill {
    Tree {
        index: usize,
        tree: Box<LedgerTree>,
        state: TreeState,
        focus: DrillFocus,
        details: JsonView,
    },
    /// Any other item: its JSON.
    Raw { index: usize, json: JsonView },
}

/// The form's text, kept between openings.
#[derive(Debug, Clone, Default)]
struct Query {
    begin: String,
    end: String,
    parties: String,
    limit: String,
    descending: String,
}

/// The Trees section.
#[derive(Debug)]
pub struct Trees {
    form: Option<Form>,
    query: Query,
    /// The ledger end, to prefill the end of the range.
    pub ledger_end: Option<i64>,
    pending: Option<RequestId>,
    /// What the current answer asked for, for the summary line.
    asked: String,
    items: Arc<Vec<JsGetUpdateTreesResponse>>,
    error: Option<Vec<Note>>,
    answered: bool,
    table: DataTable<TreeCol>,
    drill: Option<Drill>,
    rows: usize,
}

impl Default for Trees {
    fn default() -> Self {
        Trees {
            form: None,
            query: Query::default(),
            ledger_end: None,
            pending: None,
            asked: String::new(),
            items: Arc::default(),
            error: None,
            answered: false,
            table: DataTable::new(TreeCol::columns()),
            drill: None,
            rows: 0,
        }
    }
}

/// The columns of the list of the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeCol {
    Kind,
    Offset,
    Update,
    Events,
    Time,
    What,
}

impl TreeCol {
    /// From 110 columns on: longer update ids and the record time.
    fn columns() -> Columns<TreeCol> {
        Columns::new(vec![
            Column::new(TreeCol::Kind, "kind", Width::Fixed(12)),
            Column::new(TreeCol::Offset, "offset", Width::Fixed(8)).right(),
            Column::new(
                TreeCol::Update,
                "update",
                Width::Wide {
                    narrow: 12,
                    wide: 20,
                    from: 110,
                },
            )
            .priority(3),
            Column::new(TreeCol::Events, "events", Width::Fixed(6))
                .right()
                .descending_first()
                .priority(2),
            Column::new(
                TreeCol::Time,
                "record time",
                Width::Wide {
                    narrow: 0,
                    wide: 23,
                    from: 110,
                },
            )
            .priority(1),
            Column::new(TreeCol::What, "root / what", Width::fill(0)),
        ])
    }
}

impl TableRow for JsGetUpdateTreesResponse {
    type Col = TreeCol;
    /// Times in the session's zone.
    type Ctx = Shared;

    fn cell(&self, col: TreeCol, width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        let (kind, offset, update_id, events, time, what) = describe(self);
        match col {
            TreeCol::Kind => {
                let style = match kind {
                    "tree" | "transaction" => theme.exercised,
                    "reassignment" => theme.assign,
                    "checkpoint" => theme.muted,
                    _ => theme.status_warn,
                };
                Cell::new(kind, style)
            }
            TreeCol::Offset => Cell::new(
                offset.map(|o| o.to_string()).unwrap_or_default(),
                theme.accent,
            ),
            TreeCol::Update => Cell::new(
                short_id(&update_id, usize::from(width).saturating_sub(1)),
                theme.id,
            ),
            TreeCol::Events => Cell::new(
                events.map(|e| e.to_string()).unwrap_or_default(),
                Style::default(),
            ),
            TreeCol::Time => Cell::new(server_time(&time, "", |us| sh.format_time(us)), theme.time),
            TreeCol::What => Cell::new(what, theme.muted),
        }
    }

    fn sort_key(&self, col: TreeCol) -> SortKey<'_> {
        let (kind, offset, update_id, events, time, what) = describe(self);
        let int = |v: Option<i128>| v.map_or(SortKey::Missing, SortKey::Int);
        match col {
            TreeCol::Kind => SortKey::Text(Cow::Borrowed(kind)),
            TreeCol::Offset => int(offset.map(i128::from)),
            TreeCol::Update => SortKey::Text(Cow::Owned(update_id)),
            TreeCol::Events => int(events.map(|e| e as i128)),
            TreeCol::Time => SortKey::Text(Cow::Owned(time)),
            TreeCol::What => SortKey::Text(Cow::Owned(what)),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        let (kind, offset, update_id, _, _, what) = describe(self);
        let offset = offset.map(|o| o.to_string()).unwrap_or_default();
        Cow::Owned(format!("{kind} {offset} {update_id} {what}"))
    }
}

fn parse_flag(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "" | "n" | "no" | "false" | "0" => Some(false),
        "y" | "yes" | "true" | "1" => Some(true),
        _ => None,
    }
}

/// The details JSON of a tree node: its arguments.
fn node_json(ev: Option<&TreeEvent>) -> Value {
    let mut m = Map::new();
    match ev {
        Some(TreeEvent::CreatedTreeEvent(c)) => {
            m.insert(
                "createArgument".into(),
                c.create_argument.to_value().unwrap_or(Value::Null),
            );
        }
        Some(TreeEvent::ExercisedTreeEvent(e)) => {
            m.insert(
                "choiceArgument".into(),
                e.choice_argument.to_value().unwrap_or(Value::Null),
            );
            m.insert(
                "exerciseResult".into(),
                e.exercise_result.to_value().unwrap_or(Value::Null),
            );
        }
        Some(TreeEvent::Unknown { kind, raw }) => {
            m.insert(kind.clone(), raw.to_value().unwrap_or(Value::Null));
        }
        None => {}
    }
    Value::Object(m)
}

/// (kind, offset, update id, events, record time, description) of a list item.
fn describe(
    item: &JsGetUpdateTreesResponse,
) -> (
    &'static str,
    Option<i64>,
    String,
    Option<usize>,
    String,
    String,
) {
    match &item.update {
        Update::TransactionTree(t) => {
            let root = t
                .nodes_in_order()
                .first()
                .map(|(_, e)| match e {
                    TreeEvent::ExercisedTreeEvent(x) => {
                        format!("exercised {} {}", x.choice, short_template(&x.template_id))
                    }
                    TreeEvent::CreatedTreeEvent(c) => {
                        format!("created {}", short_template(&c.template_id))
                    }
                    TreeEvent::Unknown { kind, .. } => kind.clone(),
                })
                .unwrap_or_default();
            (
                "tree",
                Some(t.offset),
                t.update_id.clone(),
                Some(t.events_by_id.len()),
                t.record_time.clone(),
                root,
            )
        }
        Update::Transaction(t) => (
            "transaction",
            Some(t.offset),
            t.update_id.clone(),
            Some(t.events.len()),
            t.record_time.clone(),
            String::new(),
        ),
        Update::Reassignment(r) => {
            let what = r
                .events
                .first()
                .map(|e| match e {
                    JsReassignmentEvent::JsAssignmentEvent(a) => format!(
                        "assigned {} {}",
                        short_template(&a.created_event.template_id),
                        short_id(&a.created_event.contract_id, 12)
                    ),
                    JsReassignmentEvent::JsUnassignedEvent(u) => format!(
                        "unassigned {} {}",
                        short_template(&u.template_id),
                        short_id(&u.contract_id, 12)
                    ),
                    JsReassignmentEvent::Unknown { kind, .. } => kind.clone(),
                })
                .unwrap_or_default();
            (
                "reassignment",
                Some(r.offset),
                r.update_id.clone(),
                Some(r.events.len()),
                r.record_time.clone(),
                what,
            )
        }
        Update::OffsetCheckpoint(c) => (
            "checkpoint",
            Some(c.offset),
            String::new(),
            None,
            c.synchronizer_times
                .first()
                .map(|s| s.record_time.clone())
                .unwrap_or_default(),
            format!("{} synchronizer(s)", c.synchronizer_times.len()),
        ),
        Update::Unknown { kind, .. } => (
            "other",
            None,
            String::new(),
            None,
            String::new(),
            kind.clone(),
        ),
    }
}

impl Trees {
    /// The items of the current answer.
    pub fn items(&self) -> &[JsGetUpdateTreesResponse] {
        &self.items
    }

    /// Whether an item is open, and where the keyboard is in it.
    pub fn drill_focus(&self) -> Option<DrillFocus> {
        match &self.drill {
            Some(Drill::Tree { focus, .. }) => Some(*focus),
            Some(Drill::Raw { .. }) => Some(DrillFocus::Details),
            None => None,
        }
    }

    /// The labels of the visible rows of the open tree (node ids), for tests.
    pub fn visible_node_ids(&self) -> Vec<i64> {
        match &self.drill {
            Some(Drill::Tree { tree, state, .. }) => state
                .visible_ids()
                .filter_map(|n| tree.node_id(n))
                .collect(),
            _ => Vec::new(),
        }
    }

    fn open_form(&mut self) {
        let q = &self.query;
        let end = if q.end.is_empty() {
            self.ledger_end.map(|e| e.to_string()).unwrap_or_default()
        } else {
            q.end.clone()
        };
        // By default the last 50 offsets: recent trees, well under the nodes' list limits.
        let begin = if q.begin.is_empty() {
            self.ledger_end.map_or_else(
                || "0".to_string(),
                |e| e.saturating_sub(DEFAULT_RANGE).max(0).to_string(),
            )
        } else {
            q.begin.clone()
        };
        self.form = Some(Form::new(
            "query",
            vec![
                (
                    "begin exclusive",
                    &begin,
                    "offset, 0 = ledger begin",
                    Complete::None,
                ),
                (
                    "end inclusive",
                    &end,
                    "offset (empty: up to the ledger end)",
                    Complete::None,
                ),
                (
                    "parties",
                    &q.parties,
                    "empty: every party hosted here",
                    Complete::Party,
                ),
                (
                    "limit",
                    &q.limit,
                    "optional maximum of items",
                    Complete::None,
                ),
                (
                    "descending",
                    if q.descending.is_empty() {
                        "no"
                    } else {
                        &q.descending
                    },
                    "yes / no",
                    Complete::None,
                ),
            ],
        ));
    }

    fn submit(&mut self, sh: &mut Shared, out: &mut Out) {
        let Some(form) = &mut self.form else { return };
        let begin = match form.value(0).parse::<i64>() {
            Ok(b) if b >= 0 => b,
            _ => return form.fail(0, "a non-negative offset"),
        };
        let end_text = form.value(1);
        let end = if end_text.is_empty() {
            None
        } else {
            match end_text.parse::<i64>() {
                Ok(e) if e >= begin => Some(e),
                Ok(_) => return form.fail(1, "the end must not be below the begin"),
                Err(_) => return form.fail(1, "an offset, or empty"),
            }
        };
        let limit_text = form.value(3);
        let limit = if limit_text.is_empty() {
            None
        } else {
            match limit_text.parse::<i64>() {
                Ok(l) if l > 0 => Some(l),
                _ => return form.fail(3, "a positive number, or empty"),
            }
        };
        let Some(descending) = parse_flag(&form.value(4)) else {
            return form.fail(4, "yes or no");
        };
        if descending && end.is_none() {
            return form.fail(1, "descending order needs an end offset");
        }
        let parties = split_list(&form.value(2));
        self.query = Query {
            begin: form.value(0),
            end: end_text,
            parties: form.value(2),
            limit: limit_text,
            descending: form.value(4),
        };
        self.form = None;
        let mut req = GetUpdatesRequest::for_parties(begin, end, &parties);
        if descending {
            req.descending_order = Some(true);
        }
        self.asked = format!(
            "({begin}, {}]{}{}{}",
            end.map_or_else(|| "ledger end".to_string(), |e| e.to_string()),
            if parties.is_empty() {
                " · any party".to_string()
            } else {
                format!(
                    " · {} part{}",
                    parties.len(),
                    if parties.len() == 1 { "y" } else { "ies" }
                )
            },
            limit.map(|l| format!(" · limit {l}")).unwrap_or_default(),
            if descending { " · descending" } else { "" },
        );
        self.drill = None;
        self.pending = Some(out.fetch(
            sh,
            Request::Trees {
                req: Box::new(req),
                limit,
            },
        ));
    }

    fn open_selected(&mut self) {
        let Some(index) = self.table.selected() else {
            return;
        };
        let Some(item) = self.items.get(index) else {
            return;
        };
        self.drill = Some(match &item.update {
            Update::TransactionTree(t) => {
                let tree = LedgerTree::new(Arc::new(JsTransactionTree::clone(t)));
                let state = if tree.len() <= EXPAND_ALL_MAX {
                    let mut s = TreeState::new(&tree);
                    s.expand_all(&tree);
                    s
                } else {
                    TreeState::with_expanded_depth(&tree, 2)
                };
                let details =
                    JsonView::new(&node_json(state.selected().and_then(|n| tree.event(n))));
                let mut d = Drill::Tree {
                    index,
                    tree: Box::new(tree),
                    state,
                    focus: DrillFocus::Tree,
                    details,
                };
                apply_rows(&mut d, self.rows);
                d
            }
            _ => Drill::Raw {
                index,
                json: JsonView::new(&item.raw.to_value().unwrap_or(Value::Null)),
            },
        });
    }

    fn drill_command(&mut self, cmd: Command, out: &mut Out) -> bool {
        let Some(drill) = &mut self.drill else {
            return false;
        };
        if matches!(cmd, Command::Back | Command::Cancel) {
            match drill {
                Drill::Tree { focus, .. } if *focus == DrillFocus::Details => {
                    *focus = DrillFocus::Tree
                }
                _ => self.drill = None,
            }
            return true;
        }
        match drill {
            Drill::Raw { json, .. } => json_command(json, cmd),
            Drill::Tree {
                tree,
                state,
                focus,
                details,
                ..
            } => {
                if *focus == DrillFocus::Details {
                    if cmd == Command::Collapse && details.scroll().cursor() == 0 {
                        *focus = DrillFocus::Tree;
                        return true;
                    }
                    if cmd == Command::Copy {
                        if let Some(j) = details.selected_json() {
                            out.copy("JSON", j);
                        }
                        return true;
                    }
                    return json_command(details, cmd);
                }
                let before = state.selected();
                match cmd {
                    Command::Up => state.up(1),
                    Command::Down => state.down(1),
                    Command::PageUp => state.page_up(),
                    Command::PageDown => state.page_down(),
                    Command::Top => state.top(),
                    Command::Bottom => state.bottom(),
                    Command::Toggle | Command::Select => state.toggle(&**tree),
                    Command::Expand | Command::Right => {
                        let leaf = state.selected().is_none_or(|n| tree.children(n).is_empty());
                        if leaf {
                            *focus = DrillFocus::Details;
                        } else {
                            state.expand(&**tree);
                        }
                    }
                    Command::Collapse | Command::Left => state.collapse(),
                    Command::Parent => state.parent(),
                    Command::ExpandAll => state.expand_all(&**tree),
                    Command::CollapseAll => state.collapse_all(&**tree),
                    Command::Copy => {
                        if let Some(ev) = state.selected().and_then(|n| tree.event(n)) {
                            let cid = match ev {
                                TreeEvent::CreatedTreeEvent(c) => c.contract_id.clone(),
                                TreeEvent::ExercisedTreeEvent(e) => e.contract_id.clone(),
                                TreeEvent::Unknown { .. } => String::new(),
                            };
                            if !cid.is_empty() {
                                out.copy("contract id", cid);
                            }
                        }
                    }
                    _ => return false,
                }
                if state.selected() != before {
                    let mut d =
                        JsonView::new(&node_json(state.selected().and_then(|n| tree.event(n))));
                    d.set_viewport(details.scroll().viewport());
                    *details = d;
                }
                true
            }
        }
    }
}

fn json_command(json: &mut JsonView, cmd: Command) -> bool {
    match cmd {
        Command::Up => json.up(1),
        Command::Down => json.down(1),
        Command::PageUp => json.page_up(),
        Command::PageDown => json.page_down(),
        Command::Top => json.top(),
        Command::Bottom => json.bottom(),
        Command::Toggle | Command::Select => json.toggle(),
        Command::Expand | Command::Right => json.expand(),
        Command::Collapse | Command::Left => json.collapse(),
        Command::Parent => json.parent(),
        Command::ExpandAll => json.expand_all(),
        Command::CollapseAll => json.collapse_all(),
        _ => return false,
    }
    true
}

fn apply_rows(d: &mut Drill, rows: usize) {
    match d {
        Drill::Tree { state, details, .. } => {
            state.set_viewport((rows / 2).max(1));
            details.set_viewport((rows / 2).max(1));
        }
        Drill::Raw { json, .. } => json.set_viewport(rows.max(1)),
    }
}

impl SectionView for Trees {
    fn wants_raw_keys(&self) -> bool {
        self.form.is_some() || (self.drill.is_none() && self.table.is_filtering())
    }

    fn key_context(&self) -> KeyContext {
        if self.wants_raw_keys() {
            KeyContext::TextInput
        } else if self.drill.is_some() {
            KeyContext::Tree
        } else {
            KeyContext::List
        }
    }

    fn on_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        let Some(form) = &mut self.form else {
            self.table.on_key(key, &self.items);
            return;
        };
        let cands = form
            .completing()
            .map(|(k, _)| candidates(k, sh, &[]))
            .unwrap_or_default();
        match form.handle_key(key, &cands) {
            FormOutcome::Submitted => self.submit(sh, out),
            FormOutcome::Cancelled => self.form = None,
            FormOutcome::Changed => {}
        }
    }

    fn on_paste(&mut self, text: &str) {
        if let Some(f) = &mut self.form {
            f.paste(text);
        } else {
            self.table.on_paste(text, &self.items);
        }
    }

    fn on_command(&mut self, cmd: Command, _sh: &mut Shared, out: &mut Out) -> bool {
        if self.drill.is_some() && cmd != Command::Edit {
            return self.drill_command(cmd, out);
        }
        match cmd {
            Command::Edit => {
                self.drill = None;
                self.open_form();
            }
            Command::Select => self.open_selected(),
            Command::Copy => {
                if let Some(item) = self.table.selected_row(&self.items) {
                    let (_, _, update_id, ..) = describe(item);
                    if update_id.is_empty() {
                        out.copy("item JSON", item.raw.get().to_string());
                    } else {
                        out.copy("update id", update_id);
                    }
                }
            }
            _ => return self.table.on_command(cmd, &self.items),
        }
        true
    }

    fn on_fetched(
        &mut self,
        id: RequestId,
        result: &Result<Response, ApiError>,
        _sh: &mut Shared,
        out: &mut Out,
    ) {
        if self.pending != Some(id) {
            return;
        }
        self.pending = None;
        self.answered = true;
        match result {
            Ok(Response::Trees(items)) => {
                self.items = Arc::clone(items);
                self.error = None;
                self.table.reset_rows(&self.items);
                self.table.set_viewport(self.rows.saturating_sub(2).max(1));
            }
            Ok(_) => {}
            Err(e) => {
                self.items = Arc::new(Vec::new());
                self.table.reset_rows(&self.items);
                self.error = Some(explain(e, Some(REMOVED_HINT)));
                out.error(format!("update trees: {e}"));
            }
        }
    }

    fn set_rows(&mut self, rows: usize) {
        self.rows = rows;
        self.table.set_viewport(rows.saturating_sub(2).max(1));
        if let Some(d) = &mut self.drill {
            apply_rows(d, rows);
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, focused: bool) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        if let Some(d) = &self.drill {
            render_drill(self, d, area, buf, sh, theme, focused);
            return;
        }
        let mut y = 0u16;
        if let Some(form) = &self.form {
            let sugg = suggestions(form, sh, &[]);
            let h = form.height(sugg.len()).min(area.height);
            y += form.render(Rect::new(area.x, area.y, area.width, h), buf, theme, &sugg) + 1;
        }
        let y = y.min(area.height);
        let rest = Rect::new(area.x, area.y + y, area.width, area.height - y);
        if self.pending.is_some() {
            put(
                rest,
                0,
                buf,
                &Line::styled("querying /v2/updates/trees…", theme.muted),
            );
            return;
        }
        if let Some(err) = &self.error {
            render_notes(err, rest, buf, theme);
            return;
        }
        if !self.answered {
            if self.form.is_none() {
                let notes = [
                    Note::new(
                        Tone::Plain,
                        "POST /v2/updates/trees (deprecated): transaction trees over an offset range.",
                    ),
                    Note::new(
                        Tone::Muted,
                        "Press i to set the range (begin exclusive, end inclusive), a party filter, a limit and the order; Enter on an item opens its tree.",
                    ),
                ];
                render_notes(&notes, rest, buf, theme);
            }
            return;
        }
        render_list(self, rest, buf, sh, theme, focused);
    }

    fn hints(&self) -> Vec<Command> {
        if self.form.is_some() {
            vec![Command::Confirm, Command::Complete, Command::Cancel]
        } else if self.wants_raw_keys() {
            vec![Command::Confirm, Command::Cancel]
        } else if self.drill.is_some() {
            vec![
                Command::Toggle,
                Command::Expand,
                Command::Collapse,
                Command::Copy,
                Command::Back,
            ]
        } else if self.items.is_empty() {
            vec![Command::Edit, Command::NextSection]
        } else {
            vec![
                Command::Edit,
                Command::Select,
                Command::Copy,
                Command::NextSection,
            ]
        }
    }
}

fn render_list(t: &Trees, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, focused: bool) {
    let width = usize::from(area.width);
    let summary = format!("{} items · {}", group_thousands(t.items.len()), t.asked);
    put(
        area,
        0,
        buf,
        &Line::styled(safe_line(&summary, width).into_owned(), theme.accent),
    );
    if t.items.is_empty() {
        put(
            area,
            1,
            buf,
            &Line::styled("no updates in this range for these parties", theme.muted),
        );
        return;
    }
    let table = Rect::new(
        area.x,
        area.y + 1,
        area.width,
        area.height.saturating_sub(1),
    );
    let draw = Draw::new(sh, theme, focused);
    t.table.render(table, buf, &t.items, &draw);
}

fn node_fields(
    ev: Option<&TreeEvent>,
    node: Option<i64>,
    hidden: u32,
    theme: &Theme,
    sh: &Shared,
) -> Vec<(&'static str, String, Style)> {
    let mut f: Vec<(&'static str, String, Style)> = Vec::new();
    let n = node.map_or_else(|| "-".to_string(), |n| format!("#{n}"));
    match ev {
        Some(TreeEvent::ExercisedTreeEvent(e)) => {
            f.push((
                "node",
                format!(
                    "{n} (descendants to #{}{})",
                    e.last_descendant_node_id,
                    if hidden > 0 {
                        format!(", {hidden} hidden")
                    } else {
                        String::new()
                    }
                ),
                theme.muted,
            ));
            f.push((
                "choice",
                format!(
                    "{}{}",
                    e.choice,
                    if e.consuming { "  consuming" } else { "" }
                ),
                theme.exercised,
            ));
            f.push(("template", e.template_id.clone(), theme.accent));
            if let Some(i) = &e.interface_id {
                f.push(("interface", i.clone(), theme.accent));
            }
            f.push(("contract", e.contract_id.clone(), theme.id));
            f.push(("acting", e.acting_parties.join(", "), theme.party));
            f.push(("witnesses", e.witness_parties.join(", "), theme.party));
            f.push(("package", e.package_name.clone(), Style::default()));
        }
        Some(TreeEvent::CreatedTreeEvent(c)) => {
            f.push(("node", n, theme.muted));
            f.push(("created", c.template_id.clone(), theme.created));
            f.push(("contract", c.contract_id.clone(), theme.id));
            f.push(("signatories", c.signatories.join(", "), theme.party));
            f.push(("observers", c.observers.join(", "), theme.party));
            f.push(("witnesses", c.witness_parties.join(", "), theme.party));
            f.push((
                "created at",
                server_time(&c.created_at, "", |us| sh.format_time(us)),
                theme.time,
            ));
            f.push(("package", c.package_name.clone(), Style::default()));
        }
        Some(TreeEvent::Unknown { kind, .. }) => f.push(("kind", kind.clone(), theme.status_warn)),
        None => f.push(("node", "nothing selected".into(), theme.muted)),
    }
    f
}

fn render_drill(
    t: &Trees,
    d: &Drill,
    area: Rect,
    buf: &mut Buffer,
    sh: &Shared,
    theme: &Theme,
    focused: bool,
) {
    let width = area.width;
    match d {
        Drill::Raw { index, json } => {
            let head = t.items.get(*index).map(describe);
            let title = head
                .map(|(k, o, u, ..)| {
                    format!(
                        "{k} at offset {} {}  (Esc: back to the list)",
                        o.unwrap_or_default(),
                        u
                    )
                })
                .unwrap_or_default();
            put(
                area,
                0,
                buf,
                &Line::styled(
                    safe_line(&title, usize::from(width)).into_owned(),
                    theme.title,
                ),
            );
            if area.height > 1 {
                json.render(
                    Rect::new(area.x, area.y + 1, width, area.height - 1),
                    buf,
                    theme,
                    focused,
                );
            }
        }
        Drill::Tree {
            index,
            tree,
            state,
            focus,
            details,
        } => {
            let tx = tree.tree();
            let head = format!(
                "item {}/{} · offset {} · {} nodes · {} · {} · update {}",
                index + 1,
                t.items.len(),
                tx.offset,
                tree.len(),
                server_time(&tx.record_time, "", |us| sh.format_time(us)),
                tx.synchronizer_id.split("::").next().unwrap_or_default(),
                tx.update_id,
            );
            put(
                area,
                0,
                buf,
                &Line::styled(
                    safe_line(&head, usize::from(width)).into_owned(),
                    theme.title,
                ),
            );
            if area.height < 3 {
                return;
            }
            let body = Rect::new(area.x, area.y + 1, width, area.height - 1);
            let wide = width >= 100;
            let (tree_area, det_area) = if wide {
                let tw = width * 11 / 20;
                (
                    Rect::new(body.x, body.y, tw, body.height),
                    Rect::new(body.x + tw + 1, body.y, width - tw - 1, body.height),
                )
            } else {
                let th = (body.height * 2 / 5).max(1);
                (
                    Rect::new(body.x, body.y, width, th),
                    Rect::new(body.x, body.y + th, width, body.height - th),
                )
            };
            let tree_focus = *focus == DrillFocus::Tree;
            title_rule(tree_area, buf, theme, tree_focus, "Event tree", "Esc back");
            if tree_area.height > 1 {
                state.render(
                    &**tree,
                    Rect::new(
                        tree_area.x,
                        tree_area.y + 1,
                        tree_area.width,
                        tree_area.height - 1,
                    ),
                    buf,
                    theme,
                    focused && tree_focus,
                );
            }
            if wide {
                for yy in 0..body.height {
                    buf.set_string(body.x + tree_area.width, body.y + yy, "│", theme.border);
                }
            }
            let sel = state.selected();
            let ev = sel.and_then(|n| tree.event(n));
            let hidden = sel.map_or(0, |n| tree.hidden_descendants(n));
            let fields = node_fields(ev, sel.and_then(|n| tree.node_id(n)), hidden, theme, sh);
            title_rule(
                det_area,
                buf,
                theme,
                !tree_focus,
                "Details",
                if tree_focus {
                    "→ details"
                } else {
                    "← tree"
                },
            );
            // Narrow and short: fewer fields so the arguments stay visible.
            let max_fields = if wide || det_area.height >= 16 {
                usize::MAX
            } else {
                usize::from(det_area.height).saturating_sub(5).max(2)
            };
            let mut y = 1u16;
            for (label, value, style) in fields.iter().take(max_fields) {
                if y + 1 >= det_area.height {
                    break;
                }
                put(
                    det_area,
                    y,
                    buf,
                    &kv_line(
                        label,
                        if value.is_empty() { "-" } else { value },
                        *style,
                        11,
                        det_area.width,
                        theme,
                    ),
                );
                y += 1;
            }
            if y < det_area.height {
                details.render(
                    Rect::new(
                        det_area.x,
                        det_area.y + y,
                        det_area.width,
                        det_area.height - y,
                    ),
                    buf,
                    theme,
                    focused && !tree_focus,
                );
            }
        }
    }
}

fn title_rule(area: Rect, buf: &mut Buffer, theme: &Theme, active: bool, name: &str, hint: &str) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let head = format!("─ {name} ");
    let fill = width.saturating_sub(head.width() + hint.width() + 1);
    let border = theme.border_style(active);
    let line = Line::from(vec![
        Span::styled(head, if active { theme.title } else { theme.muted }),
        Span::styled("─".repeat(fill), border),
        Span::styled(format!(" {hint}"), theme.muted),
    ]);
    buf.set_line(area.x, area.y, &line, area.width);
}
