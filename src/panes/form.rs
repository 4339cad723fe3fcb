//! The form kit lives in [`crate::ui::form`] (re-exported here); this module adds what the query
//! panes with a form dialog over a table (Holdings, Validators) share beyond it: their keys and
//! commands ([`QueryPane`]), when the first show queries, the state part of the title and badge,
//! copying the selected row, and table commands.

pub use crate::ui::form::*;

use ratatui::text::Span;

use crossterm::event::{KeyEvent, KeyEventKind};

use crate::msg::Command;
use crate::panes::{Out, Shared};
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

/// A pane with a query form dialog over a table: what [`query_key`], [`query_paste`] and
/// [`query_command`] need to handle its keys and commands the same way everywhere.
pub trait QueryPane {
    type Col: Copy + PartialEq;
    type Row: TableRow<Col = Self::Col>;
    /// What `y` copies (`party id`), what it says with no row selected, and what `r` says
    /// before the first query.
    const COPIED: &'static str;
    const NOTHING_SELECTED: &'static str;
    const NO_QUERY: &'static str;

    /// Opens the form (`i`).
    fn open_form(&mut self, sh: &Shared);
    /// Runs the last query again (`r`); false when there is none.
    fn rerun(&mut self, sh: &mut Shared, out: &mut Out) -> bool;
    /// Enter in the form: validate and run.
    fn submit(&mut self, sh: &mut Shared, out: &mut Out);
    /// The selected row's id.
    fn selected(&self) -> Option<&str>;
    /// The form, the table, its rows and the sort column.
    fn parts(&mut self) -> Parts<'_, Self::Col, Self::Row>;
}

/// A raw key of a query pane: the open form's, else the table's.
pub fn query_key<P: QueryPane>(p: &mut P, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
    if key.kind == KeyEventKind::Release {
        return;
    }
    let (dialog, table, rows, _) = p.parts();
    if form_or_table_key(dialog, table, rows, key) {
        p.submit(sh, out);
    }
}

/// Pasted text in a query pane: the open form's, else the table filter's.
pub fn query_paste<P: QueryPane>(p: &mut P, text: &str) {
    let (dialog, table, rows, _) = p.parts();
    form_or_table_paste(dialog, table, rows, text);
}

/// A command in a query pane: `i` opens the form, `r` runs the query again, `y` copies the
/// selected row's id, the rest goes to the table.
pub fn query_command<P: QueryPane>(
    p: &mut P,
    cmd: Command,
    sh: &mut Shared,
    out: &mut Out,
) -> bool {
    match cmd {
        Command::Edit => p.open_form(sh),
        Command::Refresh => {
            if !p.rerun(sh, out) {
                out.info(P::NO_QUERY);
            }
        }
        Command::Copy => copy_selected(out, P::COPIED, p.selected(), P::NOTHING_SELECTED),
        _ => {
            let (_, table, rows, col) = p.parts();
            return table_command(table, rows, cmd, col);
        }
    }
    true
}
