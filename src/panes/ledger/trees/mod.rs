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

mod drill;
mod list;

use std::sync::Arc;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::api::ledger::{GetUpdatesRequest, JsGetUpdateTreesResponse, template_filter_ref};
use crate::config::keymap::KeyContext;
use crate::model::ledger_tree::LedgerTree;
use crate::msg::Command;
use crate::msg::{Fetched, Request, RequestId, Response};
use crate::panes::{Out, Shared};
use crate::ui::format::group_thousands;
use crate::ui::json::JsonView;
use crate::ui::layout::below_heading;
use crate::ui::safe::safe_line;
use crate::ui::table::{DataTable, Draw};
use crate::ui::theme::Theme;
use crate::ui::tree::{TreeSplit, TreeState};
use crate::ui::whole_value::ValueView;

use super::SectionView;
use super::common::{FORM_HINTS, LIST_HINTS, SectionState, put_styled, split_list};
use crate::ui::explain::{Note, Tone, explain_failure};
use crate::ui::form::{Field, Form, form_or_table_key, form_or_table_paste};
use crate::ui::load::accept;

use drill::{apply_rows, render_drill};
pub use list::TreeCol;
use list::describe;

/// The footer hints of a drilled-in update (its tree, or its raw JSON); the tree with a details
/// half adds the focus switch.
const DRILL_HINTS: [Command; 5] = [
    Command::Toggle,
    Command::Expand,
    Command::Collapse,
    Command::Copy,
    Command::Back,
];

/// What a 404 of this endpoint means.
pub const REMOVED_HINT: &str = "/v2/updates/trees was deprecated in Canton 3.4 and is removed from \
     3.5 on: this node has removed it. Read updates with /v2/updates (the History pane) instead.";

/// The tree's share of the width (wide) or height (stacked) until the user moves the split.
const SPLIT_DEFAULT: u16 = 55;
/// The tree's share of the height, stacked, until the user moves the split.
const SPLIT_DEFAULT_STACKED: u16 = 40;

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

/// An open transaction: its tree beside the details of the selected node.
#[derive(Debug)]
struct TreeDrill {
    index: usize,
    tree: LedgerTree,
    state: TreeState,
    focus: DrillFocus,
    details: JsonView,
    /// Columns the details are scrolled sideways (`H` / `L`); values in full while scrolled.
    hscroll: usize,
}

/// One item opened with Enter.
#[derive(Debug)]
enum Drill {
    Tree(Box<TreeDrill>),
    /// Any other item: its JSON.
    Raw {
        index: usize,
        json: JsonView,
    },
}

/// The form's text, kept between openings.
#[derive(Debug, Clone, Default)]
struct Query {
    begin: String,
    end: String,
    parties: String,
    templates: String,
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
    /// Package-name template references seen in ledger answers, for completion.
    pub template_refs: Vec<String>,
    pending: Option<RequestId>,
    /// What the current answer asked for, for the summary line: the range, then the rest.
    asked: String,
    asked_rest: String,
    /// The last request sent (and its limit): asked again when the ledger is replaced.
    last: Option<(GetUpdatesRequest, Option<i64>)>,
    items: Arc<Vec<JsGetUpdateTreesResponse>>,
    error: Option<Vec<Note>>,
    answered: bool,
    table: DataTable<TreeCol>,
    drill: Option<Drill>,
    rows: usize,
    /// The section's width (for the split and the sideways scroll).
    width: u16,
    /// Where the user put the split between tree and details (`<` / `>`), kept while the app
    /// runs (over every tree opened).
    split: TreeSplit,
    /// The full value of a field (`v`), over the section.
    whole_value: Option<ValueView>,
}

impl Default for Trees {
    fn default() -> Self {
        Trees {
            form: None,
            query: Query::default(),
            ledger_end: None,
            template_refs: Vec::new(),
            pending: None,
            asked: String::new(),
            asked_rest: String::new(),
            last: None,
            items: Arc::default(),
            error: None,
            answered: false,
            table: DataTable::new(TreeCol::columns()),
            drill: None,
            rows: 0,
            width: 0,
            split: TreeSplit::default(),
            whole_value: None,
        }
    }
}

fn parse_flag(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "" | "n" | "no" | "false" | "0" => Some(false),
        "y" | "yes" | "true" | "1" => Some(true),
        _ => None,
    }
}

impl Trees {
    /// The items of the current answer.
    pub fn items(&self) -> &[JsGetUpdateTreesResponse] {
        &self.items
    }

    /// Whether an answer arrived (the table, possibly empty, is shown).
    pub fn answered(&self) -> bool {
        self.answered
    }

    /// Whether an item is open, and where the keyboard is in it.
    pub fn drill_focus(&self) -> Option<DrillFocus> {
        match &self.drill {
            Some(Drill::Tree(d)) => Some(d.focus),
            Some(Drill::Raw { .. }) => Some(DrillFocus::Details),
            None => None,
        }
    }

    /// The section's width (call on resize, with [`SectionView::set_rows`]).
    pub fn set_width(&mut self, width: u16) {
        self.width = width;
        let area = self.value_area();
        if let Some(v) = &mut self.whole_value {
            v.set_area(area);
        }
    }

    /// The area the `v` box is drawn over (the section below its header rows).
    fn value_area(&self) -> Rect {
        Rect::new(
            0,
            0,
            self.width,
            u16::try_from(self.rows).unwrap_or(u16::MAX),
        )
    }

    /// The full value shown by `v`, when its box is open.
    pub fn shown_value(&self) -> Option<&str> {
        self.whole_value.as_ref().map(ValueView::value)
    }

    /// How far the details of the open tree are scrolled sideways, in columns.
    pub fn details_hscroll(&self) -> usize {
        match &self.drill {
            Some(Drill::Tree(d)) => d.hscroll,
            _ => 0,
        }
    }

    /// The tree's share in percent once the user moved the split (`<` / `>`).
    pub fn split_percent(&self) -> Option<u16> {
        self.split
            .is_set()
            .then(|| self.split.percent(SPLIT_DEFAULT))
    }

    /// The labels of the visible rows of the open tree (node ids), for tests.
    pub fn visible_node_ids(&self) -> Vec<i64> {
        match &self.drill {
            Some(Drill::Tree(d)) => d
                .state
                .visible_ids()
                .filter_map(|n| d.tree.node_id(n))
                .collect(),
            _ => Vec::new(),
        }
    }

    fn open_form(&mut self, sh: &Shared) {
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
        let descending = if q.descending.is_empty() {
            "no"
        } else {
            &q.descending
        };
        self.form = Some(Form::new(vec![
            Field::text("begin exclusive", &begin, "offset, 0 = ledger begin"),
            Field::text(
                "end inclusive",
                &end,
                "offset (empty: up to the ledger end)",
            ),
            Field::list(
                "parties",
                &split_list(&q.parties),
                "empty: every party hosted here",
                ("party", "parties"),
                0,
            )
            .candidates(sh.history.parties()),
            Field::text("limit", &q.limit, "optional maximum of items"),
            Field::text("descending", descending, "yes / no"),
            Field::list(
                "templates",
                &split_list(&q.templates),
                "empty: every template; #package-name:Module:Entity",
                ("template", "templates"),
                0,
            )
            .candidates(self.template_refs.iter().map(String::as_str)),
        ]));
    }

    fn submit(&mut self, sh: &mut Shared, out: &mut Out) {
        let Some(form) = &mut self.form else { return };
        let begin = match form.value(0).parse::<i64>() {
            Ok(b) if b >= 0 => b,
            _ => return form.set_error(0, "a non-negative offset"),
        };
        let end_text = form.value(1);
        let end = if end_text.is_empty() {
            None
        } else {
            match end_text.parse::<i64>() {
                Ok(e) if e >= begin => Some(e),
                Ok(_) => return form.set_error(1, "the end must not be below the begin"),
                Err(_) => return form.set_error(1, "an offset, or empty"),
            }
        };
        let mut templates = Vec::new();
        for t in form.ids(5) {
            match template_filter_ref(&t) {
                Ok(r) => templates.push(r),
                Err(e) => return form.set_error(5, e),
            }
        }
        let limit_text = form.value(3);
        let limit = if limit_text.is_empty() {
            None
        } else {
            match limit_text.parse::<i64>() {
                Ok(l) if l > 0 => Some(l),
                _ => return form.set_error(3, "a positive number, or empty"),
            }
        };
        let Some(descending) = parse_flag(&form.value(4)) else {
            return form.set_error(4, "yes or no");
        };
        if descending && end.is_none() {
            return form.set_error(1, "descending order needs an end offset");
        }
        let parties = form.ids(2);
        self.query = Query {
            begin: form.value(0),
            end: end_text,
            parties: form.value(2),
            templates: templates.join(" "),
            limit: limit_text,
            descending: form.value(4),
        };
        self.form = None;
        let mut req =
            GetUpdatesRequest::for_parties_and_templates(begin, end, &parties, &templates);
        if descending {
            req.descending_order = Some(true);
        }
        self.asked_rest = format!(
            "{}{}{}{}",
            if parties.is_empty() {
                " · any party".to_string()
            } else {
                format!(
                    " · {} part{}",
                    parties.len(),
                    if parties.len() == 1 { "y" } else { "ies" }
                )
            },
            match templates.len() {
                0 => String::new(),
                1 => format!(" · {}", templates[0]),
                n => format!(" · {n} templates"),
            },
            limit.map(|l| format!(" · limit {l}")).unwrap_or_default(),
            if descending { " · descending" } else { "" },
        );
        self.drill = None;
        self.send(req, limit, sh, out);
    }

    fn send(&mut self, req: GetUpdatesRequest, limit: Option<i64>, sh: &mut Shared, out: &mut Out) {
        self.asked = format!(
            "({}, {}]{}",
            req.begin_exclusive,
            req.end_inclusive
                .map_or_else(|| "ledger end".to_string(), |e| e.to_string()),
            self.asked_rest
        );
        self.pending = Some(out.fetch(sh, Request::api(crate::api::ledger::trees(&req, limit))));
        self.last = Some((req, limit));
    }

    /// The ledger under the section was replaced (its end went back to `end`): the answer and
    /// the open item were read from the old ledger. The last query is asked again, its range
    /// cut at the new end; a range wholly past the new end has nothing left to ask: the answer
    /// is dropped and the section says why.
    pub fn ledger_replaced(&mut self, end: Option<i64>, sh: &mut Shared, out: &mut Out) {
        self.ledger_end = end;
        let Some((mut req, limit)) = self.last.take() else {
            return;
        };
        self.drill = None;
        self.whole_value = None;
        let end = end.unwrap_or(0);
        if req.begin_exclusive >= end {
            self.pending = None;
            self.answered = true;
            self.items = Arc::new(Vec::new());
            self.table.reset_rows(&self.items);
            self.error = Some(vec![
                Note::new(
                    Tone::Warn,
                    format!(
                        "The ledger end went back to {}: the range asked, after offset {}, is not in this ledger.",
                        group_thousands(end),
                        group_thousands(req.begin_exclusive)
                    ),
                ),
                Note::new(Tone::Muted, "Press i to ask for another range."),
            ]);
            return;
        }
        if req.end_inclusive.is_some_and(|e| e > end) {
            req.end_inclusive = Some(end);
            self.query.end = end.to_string();
        }
        self.send(req, limit, sh, out);
    }
}

impl SectionView for Trees {
    fn wants_raw_keys(&self) -> bool {
        self.form.is_some() || (self.drill.is_none() && self.table.is_filtering())
    }

    fn key_context(&self) -> KeyContext {
        if self.wants_raw_keys() {
            KeyContext::TextInput
        } else if self.whole_value.is_some() {
            KeyContext::Overlay
        } else if self.drill.is_some() {
            KeyContext::Tree
        } else {
            KeyContext::List
        }
    }

    fn on_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        if form_or_table_key(&mut self.form, &mut self.table, &self.items, key) {
            self.submit(sh, out);
        }
    }

    fn on_paste(&mut self, text: &str) {
        form_or_table_paste(&mut self.form, &mut self.table, &self.items, text);
    }

    fn sort_by_letter(&mut self, letter: char) -> bool {
        self.form.is_none()
            && self.drill.is_none()
            && self.whole_value.is_none()
            && self.table.sort_by_letter(letter, &self.items)
    }

    fn sort_letters(&self) -> Option<String> {
        let hint = self.table.columns().letter_hint();
        let shown = self.form.is_none() && self.drill.is_none() && self.whole_value.is_none();
        (shown && !self.items.is_empty() && !hint.is_empty()).then_some(hint)
    }

    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        if out.whole_value(&mut self.whole_value, cmd) {
            return true;
        }
        if self.drill.is_some() && cmd != Command::Edit {
            return self.drill_command(cmd, out);
        }
        match cmd {
            Command::Edit => {
                self.drill = None;
                self.open_form(sh);
            }
            Command::Select => self.open_selected(),
            Command::Copy => {
                if let Some(item) = self.table.selected_row(&self.items) {
                    let update_id = describe(item).update_id;
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

    fn on_fetched(&mut self, reply: &Fetched, _sh: &mut Shared, out: &mut Out) {
        let Some(answer) = accept(
            &mut self.pending,
            reply,
            "/v2/updates/trees",
            Response::shared::<Vec<crate::api::ledger::JsGetUpdateTreesResponse>>,
        ) else {
            return;
        };
        self.answered = true;
        match answer {
            Ok(items) => {
                self.items = Arc::clone(items);
                self.error = None;
                self.table.reset_rows(&self.items);
                self.table.set_viewport(self.rows.saturating_sub(2).max(1));
            }
            Err(failure) => {
                self.items = Arc::new(Vec::new());
                self.table.reset_rows(&self.items);
                self.error = Some(explain_failure(&failure, Some(REMOVED_HINT)));
                out.error(format!("update trees: {failure}"));
            }
        }
    }

    fn set_rows(&mut self, rows: usize) {
        self.rows = rows;
        let area = self.value_area();
        if let Some(v) = &mut self.whole_value {
            v.set_area(area);
        }
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
            if let Some(v) = &self.whole_value {
                v.render(area, buf, theme);
            }
            return;
        }
        let intro = [
            Note::new(
                Tone::Plain,
                "POST /v2/updates/trees (deprecated): transaction trees over an offset range.",
            ),
            Note::new(
                Tone::Muted,
                "Press i to set the range (begin exclusive, end inclusive), a party filter, a limit, the order and template filters (#package-name:Module:Entity); Enter on an item opens its tree.",
            ),
        ];
        let state = SectionState {
            form: self.form.as_ref(),
            submit: "query",
            pending: self
                .pending
                .is_some()
                .then_some("querying /v2/updates/trees…"),
            error: self.error.as_deref(),
            answered: self.answered,
            intro: &intro,
        };
        let Some(rest) = state.render(area, buf, theme) else {
            return;
        };
        render_list(self, rest, buf, sh, theme, focused);
    }

    fn hints(&self) -> Vec<Command> {
        if self.form.is_some() {
            FORM_HINTS.to_vec()
        } else if self.wants_raw_keys() {
            vec![Command::Confirm, Command::Cancel]
        } else if self.whole_value.is_some() {
            vec![Command::Down, Command::Copy, Command::Cancel]
        } else if let Some(Drill::Tree(d)) = &self.drill {
            if d.focus == DrillFocus::Tree {
                [DRILL_HINTS.as_slice(), &[Command::SwitchFocus]].concat()
            } else {
                vec![
                    Command::Toggle,
                    Command::Collapse,
                    Command::Copy,
                    Command::Back,
                    Command::ShowValue,
                    Command::SwitchFocus,
                ]
            }
        } else if self.drill.is_some() {
            DRILL_HINTS.to_vec()
        } else if self.items.is_empty() {
            vec![Command::Edit, Command::NextSection]
        } else {
            LIST_HINTS.to_vec()
        }
    }
}

fn render_list(t: &Trees, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, focused: bool) {
    let width = usize::from(area.width);
    let summary = format!("{} items · {}", group_thousands(t.items.len()), t.asked);
    put_styled(area, 0, buf, &safe_line(&summary, width), theme.accent);
    if t.items.is_empty() {
        let empty = "no updates in this range for these parties";
        put_styled(area, 1, buf, empty, theme.muted);
        return;
    }
    let table = below_heading(area);
    let draw = Draw::new(sh, theme, focused);
    t.table.render(table, buf, &t.items, &draw);
}
