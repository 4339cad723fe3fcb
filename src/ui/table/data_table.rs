//! [`DataTable`]: columns and filter over a slice of rows, with the order (filtered and sorted
//! indices into the pane's rows), the scroll state and the keys.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::columns::{Align, Columns, put};
use super::filter::{FilterEvent, FilterInput};
use super::{Draw, FILTER_HINT, TableRow};
use crate::model::history::Matcher;
use crate::msg::Command;
use crate::ui::scroll::ScrollState;

/// Something for a table: a command, or a raw key or pasted text while its filter is open.
#[derive(Debug, Clone, Copy)]
pub enum TableInput<'a> {
    Command(Command),
    Key(&'a KeyEvent),
    Paste(&'a str),
    /// `o` then a column's letter: sort by that column.
    SortLetter(char),
}

/// A table over rows the pane keeps in a slice: [`Columns`], [`FilterInput`], the display
/// order (indices into the rows: the ones the filter lets through, sorted) and the scroll
/// state. The pane passes its rows to every call that needs them.
#[derive(Debug, Clone)]
pub struct DataTable<C> {
    columns: Columns<C>,
    filter: FilterInput,
    /// The applied filter: its text and matcher.
    applied: Option<(String, Matcher)>,
    order: Vec<usize>,
    /// Rows in the pane's slice at the last [`DataTable::set_rows`].
    total: usize,
    scroll: ScrollState,
    /// Data rows on screen without the filter bar (0: not known yet).
    viewport: usize,
}

impl<C: Copy + PartialEq> DataTable<C> {
    /// An empty table.
    pub fn new(columns: Columns<C>) -> Self {
        DataTable {
            columns,
            filter: FilterInput::default(),
            applied: None,
            order: Vec::new(),
            total: 0,
            scroll: ScrollState::new(0),
            viewport: 0,
        }
    }

    /// The columns.
    pub fn columns(&self) -> &Columns<C> {
        &self.columns
    }

    /// The columns, to change widths.
    pub fn columns_mut(&mut self) -> &mut Columns<C> {
        &mut self.columns
    }

    /// The sorted column and whether descending.
    pub fn sort(&self) -> Option<(C, bool)> {
        self.columns.sort()
    }

    /// The display order: indices into the rows.
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// The rows in display order.
    pub fn ordered<'r, R>(&self, rows: &'r [R]) -> impl Iterator<Item = &'r R> {
        self.order.iter().filter_map(|&i| rows.get(i))
    }

    /// The index (into the rows) of the selected row.
    pub fn selected(&self) -> Option<usize> {
        self.order.get(self.scroll.cursor()).copied()
    }

    /// The selected row.
    pub fn selected_row<'r, R>(&self, rows: &'r [R]) -> Option<&'r R> {
        self.selected().and_then(|i| rows.get(i))
    }

    /// The cursor and scroll position.
    pub fn scroll(&self) -> &ScrollState {
        &self.scroll
    }

    /// The applied filter's text.
    pub fn filter_text(&self) -> Option<&str> {
        self.applied.as_ref().map(|(t, _)| t.as_str())
    }

    /// Whether the filter input is open (every key goes to it).
    pub fn is_filtering(&self) -> bool {
        self.filter.is_open()
    }

    /// The filter input's error (a bad regular expression).
    pub fn filter_error(&self) -> Option<&str> {
        self.filter.error()
    }

    /// Sets the number of data rows on screen (without the filter bar), for paging.
    pub fn set_viewport(&mut self, rows: usize) {
        self.viewport = rows;
        self.sync_viewport();
    }

    fn sync_viewport(&mut self) {
        if self.viewport > 0 {
            let bar = usize::from(self.filter.height(self.applied.is_some()));
            self.scroll
                .set_viewport(self.viewport.saturating_sub(bar).max(1));
        }
    }

    /// New rows: filtered and sorted as before; the cursor stays at its position (clamped).
    pub fn set_rows<R: TableRow<Col = C>>(&mut self, rows: &[R]) {
        self.total = rows.len();
        self.order = self.compute_order(rows);
        self.scroll.set_len(self.order.len());
    }

    /// New rows with the cursor on the first.
    pub fn reset_rows<R: TableRow<Col = C>>(&mut self, rows: &[R]) {
        self.set_rows(rows);
        self.scroll.top();
    }

    /// Puts the cursor on the first row shown that satisfies `pred`; returns whether one does.
    pub fn select_where<R>(&mut self, rows: &[R], pred: impl Fn(&R) -> bool) -> bool {
        let pos = self
            .order
            .iter()
            .position(|&i| rows.get(i).is_some_and(&pred));
        if let Some(pos) = pos {
            self.scroll.select(pos);
        }
        pos.is_some()
    }

    /// Recomputes the order after the sort or filter changed (same rows), keeping the selected
    /// row selected when it is still shown.
    fn reorder<R: TableRow<Col = C>>(&mut self, rows: &[R]) {
        let selected = self.selected();
        self.set_rows(rows);
        if let Some(pos) = selected.and_then(|s| self.order.iter().position(|&i| i == s)) {
            self.scroll.select(pos);
        }
    }

    fn compute_order<R: TableRow<Col = C>>(&self, rows: &[R]) -> Vec<usize> {
        let mut order: Vec<usize> = match &self.applied {
            Some((_, m)) => (0..rows.len())
                .filter(|&i| m.is_match(&rows[i].filter_text()))
                .collect(),
            None => (0..rows.len()).collect(),
        };
        if self.columns.sort.is_some() {
            order.sort_by(|&a, &b| self.columns.compare(&rows[a], &rows[b]));
        }
        order
    }

    /// Applies filter text (empty: no filter). A text that does not parse keeps the last
    /// filter and is reported in the input.
    fn apply_filter<R: TableRow<Col = C>>(&mut self, text: &str, rows: &[R]) {
        let text = text.trim();
        if text.is_empty() {
            self.applied = None;
        } else {
            match Matcher::parse(text) {
                Ok(m) => self.applied = Some((text.to_string(), m)),
                Err(e) => {
                    self.filter.set_error(Some(e));
                    return;
                }
            }
        }
        self.filter.set_error(None);
        self.reorder(rows);
    }

    /// Clears the filter (and closes its input).
    pub fn clear_filter<R: TableRow<Col = C>>(&mut self, rows: &[R]) {
        self.filter.close();
        self.applied = None;
        self.reorder(rows);
        self.sync_viewport();
    }

    /// A command: movement, `o` / `O` sorting, `/` opening the filter (when there are rows),
    /// Esc clearing an applied filter. Returns whether the table used it.
    pub fn on_command<R: TableRow<Col = C>>(&mut self, cmd: Command, rows: &[R]) -> bool {
        match cmd {
            Command::Sort | Command::SortReverse => {
                let used = if cmd == Command::Sort {
                    self.columns.cycle_sort()
                } else {
                    self.columns.reverse_sort()
                };
                if used {
                    self.reorder(rows);
                }
                used
            }
            // Nothing to filter: the pane shows no table (not loaded yet) or an empty one.
            Command::Filter if rows.is_empty() => false,
            Command::Filter => {
                let text = self.filter_text().unwrap_or("").to_string();
                self.filter.open(&text, FILTER_HINT);
                self.sync_viewport();
                true
            }
            Command::Back | Command::Cancel if self.applied.is_some() => {
                self.clear_filter(rows);
                true
            }
            _ => self.scroll.navigate(cmd),
        }
    }

    /// `o` then a column's letter: sorts by that column (the other way on a repeat). Returns
    /// whether a column has that letter.
    pub fn sort_by_letter<R: TableRow<Col = C>>(&mut self, letter: char, rows: &[R]) -> bool {
        let used = self.columns.sort_by_letter(letter);
        if used {
            self.reorder(rows);
        }
        used
    }

    /// A raw key while the filter input is open. Returns whether the input had it (always,
    /// while open).
    pub fn on_key<R: TableRow<Col = C>>(&mut self, key: &KeyEvent, rows: &[R]) -> bool {
        if !self.filter.is_open() {
            return false;
        }
        match self.filter.on_key(key) {
            FilterEvent::Changed(text) => self.apply_filter(&text, rows),
            // A text that does not parse stays open with its message.
            FilterEvent::Submitted if self.filter.error().is_none() => self.filter.close(),
            FilterEvent::Submitted | FilterEvent::Nothing | FilterEvent::Complete { .. } => {}
            FilterEvent::Cancelled => self.clear_filter(rows),
            FilterEvent::Move(cmd) => {
                self.scroll.navigate(cmd);
            }
        }
        self.sync_viewport();
        true
    }

    /// Pasted text while the filter input is open.
    pub fn on_paste<R: TableRow<Col = C>>(&mut self, text: &str, rows: &[R]) {
        if let FilterEvent::Changed(text) = self.filter.on_paste(text) {
            self.apply_filter(&text, rows);
            self.sync_viewport();
        }
    }

    /// [`DataTable::on_command`], [`DataTable::on_key`] or [`DataTable::on_paste`]: for panes
    /// that route input to one of several tables. Returns whether the table used it.
    pub fn input<R: TableRow<Col = C>>(&mut self, input: TableInput<'_>, rows: &[R]) -> bool {
        match input {
            TableInput::Command(cmd) => self.on_command(cmd, rows),
            TableInput::Key(key) => self.on_key(key, rows),
            TableInput::Paste(text) => {
                self.on_paste(text, rows);
                self.filter.is_open()
            }
            TableInput::SortLetter(letter) => self.sort_by_letter(letter, rows),
        }
    }

    /// The fields of the selected row, whole (`v`): see [`Columns::fields`].
    pub fn selected_fields<R: TableRow<Col = C>>(
        &self,
        rows: &[R],
        ctx: &R::Ctx,
    ) -> Option<Vec<crate::ui::fields::Field>> {
        self.selected_row(rows)
            .map(|row| self.columns.fields(row, ctx))
    }

    /// Draws the table in `area`: the header, the rows, and the filter bar at the bottom.
    pub fn render<R: TableRow<Col = C>>(
        &self,
        area: Rect,
        buf: &mut Buffer,
        rows: &[R],
        draw: &Draw<'_, R::Ctx>,
    ) {
        let theme = draw.theme;
        if area.width == 0 || area.height == 0 {
            return;
        }
        let mut body = area;
        let bar_h = self
            .filter
            .height(self.applied.is_some())
            .min(body.height.saturating_sub(1));
        if bar_h > 0 {
            body.height -= bar_h;
            let bar = Rect::new(body.x, body.bottom(), body.width, bar_h);
            let counts = (self.order.len(), self.total);
            self.filter
                .render(bar, buf, theme, self.filter_text(), counts);
        }
        if self.columns.has_header() && body.height > 0 {
            self.columns.render_header::<R>(body, buf, draw);
            body.y += 1;
            body.height -= 1;
        }
        if self.order.is_empty() && self.total > 0 && body.height > 0 {
            let text = "no row matches the filter (Esc clears it)";
            put(
                buf,
                body.x,
                body.y,
                text,
                body.width,
                Align::Left,
                theme.muted,
            );
            return;
        }
        let order = &self.order;
        self.columns.render_rows(
            body,
            buf,
            &self.scroll,
            |pos| order.get(pos).and_then(|&i| rows.get(i)),
            draw,
        );
    }
}
