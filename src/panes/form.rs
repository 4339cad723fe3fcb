//! The form kit lives in [`crate::ui::form`] (re-exported here); this module adds what the query
//! panes with a form dialog over a table (Holdings, Validators) share beyond it: their keys and
//! commands ([`QueryPane`]), when the first show queries, the state part of the title and badge,
//! copying the selected row, and table commands. A [`QueryPane`] is a [`Pane`]: the keys, the
//! frame with its title, the footer hints and the tab count are written once, here.

pub use crate::ui::form::*;

use crossterm::event::{KeyEvent, KeyEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::api::ApiCall;
use crate::msg::{Command, Fetched, Tabs};
use crate::panes::{Out, Pane, PaneId, RenderCtx, Shared};
use crate::ui::layout::{framed, wrap_text};
use crate::ui::safe::sanitize;
use crate::ui::table::{DataTable, TableRow};
use crate::ui::theme::Theme;

/// Whether a pane queries by itself when shown: on its first show, and on later shows while it
/// is `waiting` (the first found nothing to query and the user entered nothing), when `idle`
/// (no query yet, none in flight).
pub fn queries_on_show(shown: &mut bool, waiting: bool, idle: bool) -> bool {
    let first = !std::mem::replace(shown, true);
    (first || waiting) && idle
}

/// The state part of a query pane's title: ` · querying…` or ` · error`.
pub fn state_span(pending: bool, error: bool, theme: &Theme) -> Option<Span<'static>> {
    if pending {
        Some(Span::styled(" · querying…", theme.status_warn))
    } else if error {
        Some(Span::styled(" · error", theme.status_err))
    } else {
        None
    }
}

/// Copies the selected row's id (sanitised) as `what`, or says `none`.
pub fn copy_selected(out: &mut Out, what: &str, selected: Option<&str>, none: &str) {
    match selected.map(|s| sanitize(s).into_owned()) {
        Some(s) => out.copy(what, s),
        None => out.info(none),
    }
}

/// A command for the table (moves, sort, filter); keeps `sort_col` in step. Returns whether the
/// table used it.
pub fn table_command<C, R>(
    table: &mut DataTable<C>,
    rows: &[R],
    cmd: Command,
    sort_col: &mut C,
) -> bool
where
    C: Copy + PartialEq,
    R: TableRow<Col = C>,
{
    let used = table.on_command(cmd, rows);
    if let Some((col, _)) = table.sort() {
        *sort_col = col;
    }
    used
}

/// What the footer shows in a query pane: the dialog's keys while it is open, the filter's while
/// filtering, else edit, and sort / copy once there is an answer and refresh once there is a
/// query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HintState {
    pub open: bool,
    pub filtering: bool,
    pub answered: bool,
    pub queried: bool,
}

/// The footer hints of a query pane.
pub fn dialog_hints(s: HintState) -> Vec<Command> {
    if s.open {
        return vec![Command::Confirm, Command::Cancel, Command::Complete];
    }
    if s.filtering {
        return vec![Command::Confirm, Command::Cancel];
    }
    let mut v = vec![Command::Edit];
    if s.answered {
        v.extend([Command::Sort, Command::SortReverse, Command::Copy]);
    }
    if s.queried {
        v.push(Command::Refresh);
    }
    v
}

/// The form, the table, its rows and the sort column of a [`QueryPane`].
pub type Parts<'a, C, R> = (&'a mut Dialog, &'a mut DataTable<C>, &'a [R], &'a mut C);

/// The column ids of a query pane's table.
pub type Col<P> = <<P as QueryPane>::Row as TableRow>::Col;

/// Where a query pane stands: a query in flight, an error shown, an answer arrived, a query sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryState {
    pub pending: bool,
    pub error: bool,
    pub answered: bool,
    pub queried: bool,
}

/// A pane with a query form dialog over a table. What differs between such panes is here; the
/// rest of the [`Pane`] (keys, paste, commands, frame and title, hints, tab count) is the same
/// for all of them.
pub trait QueryPane {
    /// A row of the table.
    type Row: TableRow<Ctx = ()>;
    /// Which pane this is (its title heads the frame).
    const ID: PaneId;
    /// What `y` copies (`party id`), what it says with no row selected, and what `r` says
    /// before the first query.
    const COPIED: &'static str;
    const NOTHING_SELECTED: &'static str;
    const NO_QUERY: &'static str;
    /// Rows of the pane that are not table rows (borders, header, the pane's own lines).
    const CHROME_ROWS: u16;

    /// What the pane asks the scan (the last one is kept, for `r`).
    type Query: Clone;

    /// Opens the form (`i`).
    fn open_form(&mut self, sh: &Shared);
    /// The last query, if any.
    fn query(&self) -> Option<&Self::Query>;
    /// Runs a query (replacing any in flight).
    fn run(&mut self, query: Self::Query, sh: &mut Shared, out: &mut Out);
    /// Enter in the form: validate and run.
    fn submit(&mut self, sh: &mut Shared, out: &mut Out);

    /// Runs the last query again (`r`); false when there is none.
    fn rerun(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        let Some(query) = self.query().cloned() else {
            return false;
        };
        self.run(query, sh, out);
        true
    }
    /// The selected row's id.
    fn selected(&self) -> Option<&str>;
    /// The form, the table, its rows and the sort column.
    fn parts(&mut self) -> Parts<'_, Col<Self>, Self::Row>;
    /// The form, the table and its rows, to read.
    fn view(&self) -> (&Dialog, &DataTable<Col<Self>>, &[Self::Row]);
    /// Where the pane stands.
    fn state(&self) -> QueryState;
    /// The title after the pane's name (counts), before the state.
    fn title_counts(&self, theme: &Theme) -> Vec<Span<'static>>;
    /// Draws inside the frame.
    fn render_body(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>);
    /// Draws the open form dialog over `area`.
    fn render_form(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme);
    /// The pane got the focus (the first show may query by itself).
    fn on_show(&mut self, sh: &mut Shared, out: &mut Out);
    /// A reply to the pane's query.
    fn on_answer(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out);
    /// The scan query shown (for `b`), and its label.
    fn query_request(&self, sh: &Shared) -> Option<(ApiCall, String)>;
}

impl<P: QueryPane> Pane for P {
    fn id(&self) -> PaneId {
        P::ID
    }

    fn wants_raw_keys(&self) -> bool {
        let (dialog, table, _) = self.view();
        dialog.is_open() || table.is_filtering()
    }

    fn on_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        let (dialog, table, rows, _) = self.parts();
        if form_or_table_key(dialog, table, rows, key) {
            self.submit(sh, out);
        }
    }

    fn on_paste(&mut self, text: &str, _sh: &mut Shared, _out: &mut Out) {
        let (dialog, table, rows, _) = self.parts();
        form_or_table_paste(dialog, table, rows, text);
    }

    /// `i` opens the form, `r` runs the query again, `y` copies the selected row's id, the
    /// rest goes to the table.
    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        match cmd {
            Command::Edit => self.open_form(sh),
            Command::Refresh => {
                if !self.rerun(sh, out) {
                    out.info(P::NO_QUERY);
                }
            }
            Command::Copy => {
                copy_selected(out, P::COPIED, self.selected(), P::NOTHING_SELECTED);
            }
            _ => {
                let (_, table, rows, col) = self.parts();
                return table_command(table, rows, cmd, col);
            }
        }
        true
    }

    fn sort_by_letter(&mut self, letter: char) -> bool {
        let (_, table, rows, col) = self.parts();
        let used = table.sort_by_letter(letter, rows);
        if let Some((c, _)) = table.sort() {
            *col = c;
        }
        used
    }

    fn sort_letters(&self) -> Option<String> {
        let (_, table, rows) = self.view();
        Some(table.columns().letter_hint()).filter(|h| !h.is_empty() && !rows.is_empty())
    }

    fn on_focus(&mut self, sh: &mut Shared, out: &mut Out) {
        self.on_show(sh, out);
    }

    fn on_fetched(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) {
        self.on_answer(reply, sh, out);
    }

    fn set_area(&mut self, area: Rect) {
        let page = usize::from(area.height.saturating_sub(P::CHROME_ROWS)).max(1);
        self.parts().1.set_viewport(page);
    }

    fn render(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { sh, theme, focused } = cx;
        let state = self.state();
        let mut spans = vec![Span::styled(P::ID.title(), theme.title)];
        spans.extend(self.title_counts(theme));
        spans.extend(state_span(state.pending, state.error, theme));
        if let Some(inner) = framed(area, buf, Line::from(spans), theme.border_style(focused)) {
            self.render_body(inner, buf, cx);
        }
        if self.view().0.is_open() && area.width > 0 && area.height > 0 {
            self.render_form(area, buf, sh, theme);
        }
    }

    fn hints(&self) -> Vec<Command> {
        let (dialog, table, _) = self.view();
        let state = self.state();
        dialog_hints(HintState {
            open: dialog.is_open(),
            filtering: table.is_filtering(),
            answered: state.answered,
            queried: state.queried,
        })
    }

    fn scan_request(&self, sh: &Shared) -> Option<(ApiCall, String)> {
        self.query_request(sh)
    }

    /// The selected row's columns, whole.
    fn fields(&self, _sh: &Shared) -> Option<(String, Vec<crate::ui::fields::Field>)> {
        let (_, table, rows) = self.view();
        let fields = table.selected_fields(rows, &())?;
        Some((format!("{} row", P::ID.title()), fields))
    }

    /// The rows of the answer, once there is one.
    fn tab_count(&self, _sh: &Shared) -> Option<usize> {
        self.state().answered.then_some(self.view().2.len())
    }
}

/// Draws a query pane's error (at most three wrapped lines) from the top of `area`; returns the
/// row below it, or `None` when the area is full.
pub fn render_error(
    error: Option<&str>,
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
) -> Option<u16> {
    let width = usize::from(area.width);
    let mut y = area.y;
    if let Some(err) = error {
        for line in wrap_text(&sanitize(err), width).into_iter().take(3) {
            if y >= area.bottom() {
                return None;
            }
            buf.set_stringn(area.x, y, &line, width, theme.status_err);
            y += 1;
        }
    }
    Some(y)
}

/// What a query pane says before its first answer: while querying, which endpoint it asks;
/// after a failure, how to retry; else what it waits for (`idle`). Not while querying, `seen`
/// (what the loaded history offers to complete from) one row below.
pub struct Unanswered<'a> {
    pub endpoint: &'a str,
    pub retry: &'a str,
    pub idle: &'a str,
    pub seen: &'a str,
}

/// Draws [`Unanswered`] for a pane in `state` from row `y`.
pub fn render_unanswered(
    area: Rect,
    y: u16,
    buf: &mut Buffer,
    (state, theme): (QueryState, &Theme),
    texts: &Unanswered<'_>,
) {
    let width = usize::from(area.width);
    let text = if state.pending {
        format!("querying {} on the scan…", texts.endpoint)
    } else if state.error {
        texts.retry.to_string()
    } else {
        texts.idle.to_string()
    };
    let mut y = y;
    for line in wrap_text(&text, width) {
        if y >= area.bottom() {
            return;
        }
        buf.set_stringn(area.x, y, &line, width, theme.muted);
        y += 1;
    }
    if !state.pending && y + 1 < area.bottom() {
        buf.set_stringn(area.x, y + 1, texts.seen, width, theme.muted);
    }
}
