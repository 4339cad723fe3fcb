//! The pane kit's data table (the idea of bottom's `DataTable`): a [`TableRow`] gives cells,
//! sort keys and filter text; the table does the rest. Columns have a header, an alignment
//! (numbers right), a width (fixed, wide/narrow, or a share of what is left) and a priority:
//! when the width does not fit, the lowest-priority columns are dropped first. The sorted column
//! carries a mark (`o` cycles the column, `O` reverses), `/` filters live over each row's filter
//! text with the History filter's `[re:]text` syntax, and drawing is virtualised over a
//! [`ScrollState`]: only the rows on screen are formatted, so a frame costs the same for ten
//! rows and for a million.
//!
//! ```text
//! Validator                 Collected   Missed Liveness ▲          ← header, sort mark
//! harbor-validator-1::12…         229      131 ██████░░░░  63.6%
//! lumen-validator-1::122…         283       77 ████████░░  78.6%   ← selection (theme)
//! / re:^(harbor|lumen)                                 2 of 22 match ← filter bar
//! ```
//!
//! Three layers, each usable on its own:
//! - [`Columns`]: layout, header and rows over any row source (History draws its million
//!   summaries through it, with its own scroll state and its own filter);
//! - [`FilterInput`]: the `/` input and the filter bar;
//! - [`DataTable`]: both, plus the order (filtered and sorted indices into the pane's rows), the
//!   scroll state and the keys, for panes that keep their rows in a slice.
//!
//! Cell and header text goes through [`safe_line`]: server strings reach the terminal sanitised
//! and cut to their column.

use std::borrow::Cow;
use std::cmp::{Ordering, Reverse};

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::model::amount::Amount;
use crate::model::history::Matcher;
use crate::msg::Command;
use crate::ui::format::group_thousands;
use crate::ui::safe::safe_line;
use crate::ui::scroll::ScrollState;
use crate::ui::text_input::{InputOutcome, TextInput};
use crate::ui::theme::Theme;

/// The priority of a column that is never dropped.
pub const KEEP: u8 = u8::MAX;

/// The placeholder of the filter input of a [`DataTable`].
pub const FILTER_HINT: &str = "text | re:<regex> (e.g. re:^(acme|zeph))";

// ---------------------------------------------------------------------------------------------
// Rows
// ---------------------------------------------------------------------------------------------

/// What a table shows of one row.
pub trait TableRow {
    /// The column ids of the table (usually a small enum of the pane).
    type Col: Copy + PartialEq;
    /// What cells need besides the row (`Shared` for times in the user's zone; `()` if nothing).
    type Ctx: ?Sized;

    /// The cell of `col`, `width` columns wide (the table sanitises and cuts what it gets).
    fn cell(&self, col: Self::Col, width: u16, ctx: &Self::Ctx, theme: &Theme) -> Cell<'_>;

    /// What the rows are ordered by when the table is sorted by `col`.
    fn sort_key(&self, _col: Self::Col) -> SortKey<'_> {
        SortKey::Missing
    }

    /// Rows of a lower group always come first, whatever the sort (e.g. ids the server ignored
    /// go last).
    fn sort_group(&self) -> u8 {
        0
    }

    /// The text the `/` filter matches.
    fn filter_text(&self) -> Cow<'_, str>;

    /// A header title that depends on the context (e.g. the time zone); `None`: the column's.
    fn title(_col: Self::Col, _ctx: &Self::Ctx) -> Option<Cow<'static, str>> {
        None
    }
}

/// One cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell<'a> {
    /// Text in one style, aligned as its column.
    Text(Cow<'a, str>, Style),
    /// Styled pieces drawn one after the other (a bar and a percentage).
    Spans(Vec<Span<'a>>),
    /// Text drawn from this column to the end of the row, over the columns after it.
    Rest(Cow<'a, str>, Style),
}

impl<'a> Cell<'a> {
    /// Text in one style.
    pub fn new(text: impl Into<Cow<'a, str>>, style: Style) -> Self {
        Cell::Text(text.into(), style)
    }

    /// Nothing.
    pub fn empty() -> Self {
        Cell::Text(Cow::Borrowed(""), Style::default())
    }
}

/// The columns of a plain list of strings (the [`TableRow`] of `String`, drawn in the style
/// given as context): the row number and the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListCol {
    Number,
    Text,
}

impl TableRow for String {
    type Col = ListCol;
    type Ctx = Style;

    fn cell(&self, col: ListCol, _width: u16, style: &Style, _: &Theme) -> Cell<'_> {
        match col {
            ListCol::Number => Cell::empty(),
            ListCol::Text => Cell::new(self.as_str(), *style),
        }
    }

    fn sort_key(&self, col: ListCol) -> SortKey<'_> {
        match col {
            ListCol::Number => SortKey::Missing,
            ListCol::Text => SortKey::Text(Cow::Borrowed(self)),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
}

/// What rows are drawn with: the context of the cells, the theme and whether the table has the
/// focus (the selection style depends on it).
#[derive(Debug)]
pub struct Draw<'a, X: ?Sized> {
    pub ctx: &'a X,
    pub theme: &'a Theme,
    pub focused: bool,
}

impl<'a, X: ?Sized> Draw<'a, X> {
    /// Cells with `ctx`, in `theme`.
    pub fn new(ctx: &'a X, theme: &'a Theme, focused: bool) -> Self {
        Draw {
            ctx,
            theme,
            focused,
        }
    }
}

/// What rows are sorted by. Missing values sort first (last when descending).
#[derive(Debug, Clone, PartialEq)]
pub enum SortKey<'a> {
    Missing,
    Int(i128),
    Float(f64),
    /// An exact decimal `units / 10^scale`.
    Decimal {
        units: i128,
        scale: u32,
    },
    Text(Cow<'a, str>),
}

impl SortKey<'_> {
    fn rank(&self) -> u8 {
        match self {
            SortKey::Missing => 0,
            SortKey::Int(_) | SortKey::Float(_) | SortKey::Decimal { .. } => 1,
            SortKey::Text(_) => 2,
        }
    }

    /// The order of two keys.
    pub fn cmp_key(&self, other: &SortKey<'_>) -> Ordering {
        use SortKey::{Decimal, Float, Int, Text};
        let decimal = |k: &SortKey<'_>| match k {
            Int(i) => Some((*i, 0)),
            Decimal { units, scale } => Some((*units, *scale)),
            _ => None,
        };
        let float = |k: &SortKey<'_>| match k {
            Int(i) => *i as f64,
            Float(f) => *f,
            Decimal { units, scale } => *units as f64 / 10f64.powi(*scale as i32),
            _ => 0.0,
        };
        match (self, other) {
            (Text(a), Text(b)) => a.cmp(b),
            (Float(_), _) | (_, Float(_)) if self.rank() == 1 && other.rank() == 1 => {
                float(self).total_cmp(&float(other))
            }
            _ => match (decimal(self), decimal(other)) {
                (Some(a), Some(b)) => cmp_decimal(a, b),
                _ => self.rank().cmp(&other.rank()),
            },
        }
    }
}

pub use crate::model::amount::cmp_decimal;

impl From<Amount> for SortKey<'static> {
    /// An exact amount sorts as its decimal value.
    fn from(a: Amount) -> Self {
        SortKey::Decimal {
            units: a.units(),
            scale: a.scale(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Columns
// ---------------------------------------------------------------------------------------------

/// How wide a column is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// Always this wide.
    Fixed(u16),
    /// `wide` in a table at least `from` columns wide, `narrow` below (0: hidden below).
    Wide { narrow: u16, wide: u16, from: u16 },
    /// A share (by weight) of what the other columns leave; the table drops columns (by
    /// priority) before this gets less than `min`.
    Fill { min: u16, weight: u16 },
}

impl Width {
    /// A column that takes what is left (weight 1), at least `min`.
    pub const fn fill(min: u16) -> Width {
        Width::Fill { min, weight: 1 }
    }

    /// The width in a table `table` wide (the minimum for a fill).
    fn base(self, table: u16) -> u16 {
        match self {
            Width::Fixed(w) => w,
            Width::Wide { narrow, wide, from } => {
                if table >= from {
                    wide
                } else {
                    narrow
                }
            }
            Width::Fill { min, .. } => min,
        }
    }

    fn weight(self) -> Option<u16> {
        match self {
            Width::Fill { weight, .. } => Some(weight.max(1)),
            _ => None,
        }
    }
}

/// Where text sits in its cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Align {
    #[default]
    Left,
    /// Numbers.
    Right,
}

/// One column.
#[derive(Debug, Clone, PartialEq)]
pub struct Column<C> {
    pub id: C,
    pub title: &'static str,
    pub width: Width,
    /// Lower priorities are dropped first when the width does not fit ([`KEEP`]: never).
    pub priority: u8,
    pub align: Align,
    /// The first direction when sorting by this column (`o`) is descending.
    pub descending_first: bool,
    pub sortable: bool,
    /// The table writes the row number (1-based display position) here, muted.
    pub row_number: bool,
}

impl<C> Column<C> {
    /// A left-aligned, sortable column that is never dropped.
    pub fn new(id: C, title: &'static str, width: Width) -> Self {
        Column {
            id,
            title,
            width,
            priority: KEEP,
            align: Align::Left,
            descending_first: false,
            sortable: true,
            row_number: false,
        }
    }

    /// Sets the priority (lower is dropped first).
    pub fn priority(mut self, priority: u8) -> Self {
        self.priority = priority;
        self
    }

    /// Right-aligned (numbers).
    pub fn right(mut self) -> Self {
        self.align = Align::Right;
        self
    }

    /// Sorted descending first (most missed, largest amount first).
    pub fn descending_first(mut self) -> Self {
        self.descending_first = true;
        self
    }

    /// Not offered by `o`.
    pub fn unsortable(mut self) -> Self {
        self.sortable = false;
        self
    }

    /// Shows the row number (the table writes it; not sortable).
    pub fn row_number(mut self) -> Self {
        self.row_number = true;
        self.sortable = false;
        self
    }
}

/// A column placed by [`Columns::layout`]: its offset from the table's left edge and its width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed<C> {
    pub id: C,
    pub x: u16,
    pub width: u16,
    index: usize,
}

/// The columns of a table with the sort: layout, header and rows over any row source.
#[derive(Debug, Clone)]
pub struct Columns<C> {
    cols: Vec<Column<C>>,
    /// The sorted column (index) and whether descending.
    sort: Option<(usize, bool)>,
    header: bool,
}

/// The sort mark after a header title.
pub fn sort_mark(desc: bool) -> &'static str {
    if desc { " ▼" } else { " ▲" }
}

/// Draws `text` sanitised and cut to `width` columns, aligned.
pub fn put(buf: &mut Buffer, x: u16, y: u16, text: &str, width: u16, align: Align, style: Style) {
    if width == 0 {
        return;
    }
    let w = usize::from(width);
    let s = safe_line(text, w);
    let x = match align {
        Align::Left => x,
        Align::Right => {
            let used = u16::try_from(s.width()).unwrap_or(width).min(width);
            x + (width - used)
        }
    };
    buf.set_stringn(x, y, &s, w, style);
}

impl<C: Copy + PartialEq> Columns<C> {
    /// Columns with a header row, not sorted.
    pub fn new(cols: Vec<Column<C>>) -> Self {
        Columns {
            cols,
            sort: None,
            header: true,
        }
    }

    /// No header row (a plain list).
    pub fn without_header(mut self) -> Self {
        self.header = false;
        self
    }

    /// Sorted by `id` from the start.
    pub fn sorted_by(mut self, id: C, desc: bool) -> Self {
        self.sort = self.index(id).map(|i| (i, desc));
        self
    }

    fn index(&self, id: C) -> Option<usize> {
        self.cols.iter().position(|c| c.id == id)
    }

    /// Whether a header row is drawn.
    pub fn has_header(&self) -> bool {
        self.header
    }

    /// The sorted column and whether descending.
    pub fn sort(&self) -> Option<(C, bool)> {
        self.sort
            .and_then(|(i, desc)| self.cols.get(i).map(|c| (c.id, desc)))
    }

    /// Sorts by the next sortable column, in its first direction. Returns whether any column is
    /// sortable.
    pub fn cycle_sort(&mut self) -> bool {
        let n = self.cols.len();
        let start = self.sort.map_or(n.saturating_sub(1), |(i, _)| i);
        for step in 1..=n {
            let i = (start + step) % n;
            if self.cols[i].sortable {
                self.sort = Some((i, self.cols[i].descending_first));
                return true;
            }
        }
        false
    }

    /// Reverses the sort (sorting by the first sortable column if unsorted). Returns whether
    /// any column is sortable.
    pub fn reverse_sort(&mut self) -> bool {
        match &mut self.sort {
            Some((_, desc)) => {
                *desc = !*desc;
                true
            }
            None => self.cycle_sort(),
        }
    }

    /// Changes the width of a column (e.g. to fit the values that arrived).
    pub fn set_width(&mut self, id: C, width: Width) {
        if let Some(i) = self.index(id) {
            self.cols[i].width = width;
        }
    }

    /// Makes a column exactly as wide as the widest of `texts` (the values that arrived), at
    /// least its title and a sort mark, at most `max` (longer text is cut with a marker).
    pub fn fit_width(&mut self, id: C, texts: &[String], max: u16) {
        let Some(i) = self.index(id) else {
            return;
        };
        let w = texts
            .iter()
            .map(|t| t.width())
            .max()
            .unwrap_or(0)
            .max(self.cols[i].title.width() + 2)
            .min(usize::from(max));
        self.cols[i].width = Width::Fixed(u16::try_from(w).unwrap_or(max));
    }

    /// The columns shown in a table `width` wide, left to right. Columns are dropped, lowest
    /// priority first (the rightmost of equals first), until the rest fits with every fill at
    /// its minimum; fills then share what is left by weight. A table that still does not fit
    /// is cut at its right edge.
    pub fn layout(&self, width: u16) -> Vec<Placed<C>> {
        let base = |i: usize| u32::from(self.cols[i].width.base(width));
        let mut shown: Vec<usize> = (0..self.cols.len())
            .filter(|&i| self.cols[i].width.weight().is_some() || base(i) > 0)
            .collect();
        let need = |shown: &[usize]| -> u32 {
            shown.iter().map(|&i| base(i)).sum::<u32>() + shown.len().saturating_sub(1) as u32
        };
        while need(&shown) > u32::from(width) && shown.len() > 1 {
            let drop = shown
                .iter()
                .enumerate()
                .filter(|&(_, &i)| self.cols[i].priority != KEEP)
                .min_by_key(|&(pos, &i)| (self.cols[i].priority, Reverse(pos)))
                .map(|(pos, _)| pos);
            match drop {
                Some(pos) => {
                    shown.remove(pos);
                }
                None => break,
            }
        }
        let fixed: u32 = shown
            .iter()
            .filter(|&&i| self.cols[i].width.weight().is_none())
            .map(|&i| base(i))
            .sum::<u32>()
            + shown.len().saturating_sub(1) as u32;
        let rest = u32::from(width).saturating_sub(fixed);
        let weights: u32 = shown
            .iter()
            .filter_map(|&i| self.cols[i].width.weight())
            .map(u32::from)
            .sum();
        let last_fill = shown
            .iter()
            .rposition(|&i| self.cols[i].width.weight().is_some());
        let mut given = 0u32;
        let mut x = 0u32;
        let mut placed = Vec::with_capacity(shown.len());
        for (pos, &i) in shown.iter().enumerate() {
            let w = match self.cols[i].width.weight() {
                Some(_) if Some(pos) == last_fill => rest - given,
                Some(weight) => {
                    let share = rest * u32::from(weight) / weights.max(1);
                    given += share;
                    share
                }
                None => base(i),
            };
            if x > u32::from(width) || (x == u32::from(width) && w > 0) {
                break;
            }
            let w = w.min(u32::from(width).saturating_sub(x));
            placed.push(Placed {
                id: self.cols[i].id,
                x: x as u16,
                width: w as u16,
                index: i,
            });
            x += w + 1;
        }
        placed
    }

    /// Draws the header row (titles with the sort mark) in the first row of `area`.
    pub fn render_header<R: TableRow<Col = C> + ?Sized>(
        &self,
        area: Rect,
        buf: &mut Buffer,
        draw: &Draw<'_, R::Ctx>,
    ) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        for p in self.layout(area.width) {
            let col = &self.cols[p.index];
            let mut title = R::title(col.id, draw.ctx).unwrap_or(Cow::Borrowed(col.title));
            if let Some((i, desc)) = self.sort
                && i == p.index
            {
                title.to_mut().push_str(sort_mark(desc));
            }
            put(
                buf,
                area.x + p.x,
                area.y,
                &title,
                p.width,
                col.align,
                draw.theme.table_header,
            );
        }
    }

    /// Draws the rows `scroll` shows in `area` (no header): `row_at(position)` gives the row at
    /// a display position and is called for the visible positions only. The cursor row gets
    /// the theme's selection style (focused or not).
    pub fn render_rows<'r, R: TableRow<Col = C> + ?Sized + 'r>(
        &self,
        area: Rect,
        buf: &mut Buffer,
        scroll: &ScrollState,
        row_at: impl Fn(usize) -> Option<&'r R>,
        draw: &Draw<'_, R::Ctx>,
    ) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let layout = self.layout(area.width);
        let selection = draw.theme.selection_style(draw.focused);
        for (line, pos) in scroll.visible_range(usize::from(area.height)).enumerate() {
            let Some(row) = row_at(pos) else {
                continue;
            };
            let y = area.y + line as u16;
            for p in &layout {
                if p.width == 0 {
                    continue;
                }
                let x = area.x + p.x;
                let col = &self.cols[p.index];
                if col.row_number {
                    let n = (pos + 1).to_string();
                    put(buf, x, y, &n, p.width, col.align, draw.theme.muted);
                    continue;
                }
                match row.cell(p.id, p.width, draw.ctx, draw.theme) {
                    Cell::Text(text, style) => put(buf, x, y, &text, p.width, col.align, style),
                    Cell::Spans(spans) => put_spans(buf, x, y, &spans, p.width),
                    Cell::Rest(text, style) => {
                        put(buf, x, y, &text, area.right() - x, Align::Left, style);
                        break;
                    }
                }
            }
            if pos == scroll.cursor() {
                buf.set_style(Rect::new(area.x, y, area.width, 1), selection);
            }
        }
    }

    /// The order of two rows under the current sort: group, then the sorted column, then the
    /// first column ascending.
    pub fn compare<R: TableRow<Col = C> + ?Sized>(&self, a: &R, b: &R) -> Ordering {
        let Some((i, desc)) = self.sort else {
            return Ordering::Equal;
        };
        let id = self.cols[i].id;
        let by_key = a.sort_key(id).cmp_key(&b.sort_key(id));
        let by_key = if desc { by_key.reverse() } else { by_key };
        let first = self.cols[0].id;
        a.sort_group()
            .cmp(&b.sort_group())
            .then(by_key)
            .then_with(|| a.sort_key(first).cmp_key(&b.sort_key(first)))
    }
}

/// Draws styled pieces one after the other within `width` columns.
fn put_spans(buf: &mut Buffer, x: u16, y: u16, spans: &[Span<'_>], width: u16) {
    let mut used = 0u16;
    for span in spans {
        let room = width - used;
        if room == 0 {
            break;
        }
        let s = safe_line(&span.content, usize::from(room));
        buf.set_stringn(x + used, y, &s, usize::from(room), span.style);
        used += u16::try_from(s.width()).unwrap_or(room).min(room);
    }
}

// ---------------------------------------------------------------------------------------------
// The filter input
// ---------------------------------------------------------------------------------------------

/// What a key did to the filter input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterEvent {
    /// The text changed: apply it, or say why it does not parse ([`FilterInput::set_error`]).
    Changed(String),
    /// Enter: close the input and keep the filter (unless it does not parse).
    Submitted,
    /// Esc: close the input and clear the filter.
    Cancelled,
    /// ↑ ↓ PgUp PgDn while typing: move the selection.
    Move(Command),
    /// Tab while typing: complete the word at the cursor ([`FilterInput::complete`]).
    Complete,
    /// Nothing to do (cursor movement, a key the input ignores).
    Nothing,
}

/// The `/` filter input and the filter bar under a table. While it is open every key goes to
/// it (the pane reports `wants_raw_keys`), so typing `r` or `:` never refreshes or opens the
/// palette.
#[derive(Debug, Clone, Default)]
pub struct FilterInput {
    input: Option<TextInput>,
}

impl FilterInput {
    /// Opens the input with `text`, cursor at the end.
    pub fn open(&mut self, text: &str, placeholder: &str) {
        let mut input = TextInput::single_line()
            .with_placeholder(placeholder)
            .with_text(text);
        input.move_to_end();
        self.input = Some(input);
    }

    /// Closes the input.
    pub fn close(&mut self) {
        self.input = None;
    }

    /// Whether the input is open.
    pub fn is_open(&self) -> bool {
        self.input.is_some()
    }

    /// The text typed (while open).
    pub fn text(&self) -> Option<String> {
        self.input.as_ref().map(TextInput::text)
    }

    /// Replaces the text (while open) and clears the error.
    pub fn set_text(&mut self, text: &str) {
        if let Some(input) = &mut self.input {
            input.set_text(text);
            input.set_validation(None);
        }
    }

    /// Sets (or clears) why the text does not parse.
    pub fn set_error(&mut self, error: Option<String>) {
        if let Some(input) = &mut self.input {
            input.set_validation(error);
        }
    }

    /// Why the text does not parse.
    pub fn error(&self) -> Option<&str> {
        self.input.as_ref().and_then(TextInput::validation)
    }

    /// Handles a key while open.
    pub fn on_key(&mut self, key: &KeyEvent) -> FilterEvent {
        let Some(input) = &mut self.input else {
            return FilterEvent::Nothing;
        };
        match input.handle_key(key) {
            InputOutcome::Submitted(_) => FilterEvent::Submitted,
            InputOutcome::Cancelled => FilterEvent::Cancelled,
            InputOutcome::Changed => FilterEvent::Changed(input.text()),
            InputOutcome::Consumed => FilterEvent::Nothing,
            InputOutcome::Ignored => match key.code {
                KeyCode::Up => FilterEvent::Move(Command::Up),
                KeyCode::Down => FilterEvent::Move(Command::Down),
                KeyCode::PageUp => FilterEvent::Move(Command::PageUp),
                KeyCode::PageDown => FilterEvent::Move(Command::PageDown),
                KeyCode::Tab => FilterEvent::Complete,
                _ => FilterEvent::Nothing,
            },
        }
    }

    /// Completes the last word of the text when it is `field:` + the start of a value
    /// (`party:ju` → `party:julia::1220…`), from `candidates` in the forms' order (prefix
    /// matches first, then substring). Returns the number of matches (0: nothing changed) and
    /// the new text.
    pub fn complete(&mut self, field: &str, candidates: &[&str]) -> (usize, Option<String>) {
        let Some(input) = &mut self.input else {
            return (0, None);
        };
        let text = input.text();
        let start = text.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let word = &text[start..];
        let Some(partial) = word
            .strip_prefix(field)
            .and_then(|w| w.strip_prefix(':'))
            .filter(|w| !w.is_empty() && !w.starts_with("re:"))
        else {
            return (0, None);
        };
        let found = crate::ui::form::matching(candidates, partial);
        let Some(first) = found.first() else {
            return (0, None);
        };
        let completed = format!("{}{field}:{first}", &text[..start]);
        input.set_text(&completed);
        input.move_to_end();
        (found.len(), Some(completed))
    }

    /// Pasted text while open.
    pub fn on_paste(&mut self, text: &str) -> FilterEvent {
        match &mut self.input {
            Some(input) => {
                if input.insert_str(text) {
                    FilterEvent::Changed(input.text())
                } else {
                    FilterEvent::Nothing
                }
            }
            None => FilterEvent::Nothing,
        }
    }

    /// Rows of the bar: the input (and its error) while open, one line while a filter is
    /// `applied`, none otherwise.
    pub fn height(&self, applied: bool) -> u16 {
        match &self.input {
            Some(input) => input.desired_height().clamp(1, 2),
            None => u16::from(applied),
        }
    }

    /// Draws the bar: `/ text … N of M match` while open, `filter text · N of M match · / edit
    /// · Esc clear` while a filter is `applied`.
    pub fn render(
        &self,
        area: Rect,
        buf: &mut Buffer,
        theme: &Theme,
        applied: Option<&str>,
        (shown, total): (usize, usize),
    ) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let count = if applied.is_some() {
            format!(
                "{} of {} match",
                group_thousands(shown),
                group_thousands(total)
            )
        } else {
            String::new()
        };
        let width = usize::from(area.width);
        match &self.input {
            Some(input) => {
                let count_w = if width >= count.width() + 20 {
                    count.width()
                } else {
                    0
                };
                buf.set_stringn(area.x, area.y, "/ ", width, theme.accent);
                let input_x = area.x + 2.min(area.width);
                let reserve = if count_w > 0 { count_w + 1 } else { 0 };
                let input_w = area
                    .width
                    .saturating_sub(2)
                    .saturating_sub(u16::try_from(reserve).unwrap_or(u16::MAX));
                input.render(
                    Rect::new(input_x, area.y, input_w, area.height),
                    buf,
                    theme,
                    true,
                );
                if count_w > 0 {
                    let x = area.x + area.width - u16::try_from(count_w).unwrap_or(0);
                    buf.set_stringn(x, area.y, &count, count_w, theme.muted);
                }
            }
            None => {
                let line = Line::from(vec![
                    Span::styled("filter ", theme.muted),
                    Span::styled(
                        safe_line(applied.unwrap_or(""), width / 2).into_owned(),
                        theme.accent,
                    ),
                    Span::styled(format!(" · {count} · / edit · Esc clear"), theme.muted),
                ]);
                buf.set_line(area.x, area.y, &line, area.width);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The table over a slice of rows
// ---------------------------------------------------------------------------------------------

/// Something for a table: a command, or a raw key or pasted text while its filter is open.
#[derive(Debug, Clone, Copy)]
pub enum TableInput<'a> {
    Command(Command),
    Key(&'a KeyEvent),
    Paste(&'a str),
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
            FilterEvent::Submitted | FilterEvent::Nothing | FilterEvent::Complete => {}
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
        }
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

#[cfg(test)]
mod tests {
    use std::cell::Cell as Counter;

    use crossterm::event::KeyModifiers;

    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Col {
        Name,
        Count,
        Note,
        Extra,
    }

    #[derive(Debug)]
    struct Row {
        name: &'static str,
        count: i64,
        group: u8,
    }

    impl TableRow for Row {
        type Col = Col;
        /// Counts the cells formatted.
        type Ctx = Counter<usize>;

        fn cell(&self, col: Col, _width: u16, calls: &Counter<usize>, _: &Theme) -> Cell<'_> {
            calls.set(calls.get() + 1);
            match col {
                Col::Name => Cell::new(self.name, Style::default()),
                Col::Count => Cell::new(self.count.to_string(), Style::default()),
                Col::Note => Cell::new("note", Style::default()),
                Col::Extra => Cell::new("extra", Style::default()),
            }
        }

        fn sort_key(&self, col: Col) -> SortKey<'_> {
            match col {
                Col::Name => SortKey::Text(Cow::Borrowed(self.name)),
                Col::Count => SortKey::Int(i128::from(self.count)),
                _ => SortKey::Missing,
            }
        }

        fn sort_group(&self) -> u8 {
            self.group
        }

        fn filter_text(&self) -> Cow<'_, str> {
            Cow::Borrowed(self.name)
        }
    }

    fn columns() -> Columns<Col> {
        Columns::new(vec![
            Column::new(Col::Name, "Name", Width::fill(10)),
            Column::new(Col::Count, "Count", Width::Fixed(6))
                .right()
                .descending_first()
                .priority(5),
            Column::new(Col::Note, "Note", Width::Fixed(8)).priority(2),
            Column::new(
                Col::Extra,
                "Extra",
                Width::Wide {
                    narrow: 0,
                    wide: 7,
                    from: 60,
                },
            )
            .priority(1),
        ])
    }

    fn rows() -> Vec<Row> {
        [
            ("acme", 3, 0),
            ("zephyr", 7, 0),
            ("bogus", 100, 1),
            ("beta", 7, 0),
            ("Zed", 1, 0),
        ]
        .into_iter()
        .map(|(name, count, group)| Row { name, count, group })
        .collect()
    }

    fn ids(layout: &[Placed<Col>]) -> Vec<(Col, u16, u16)> {
        layout.iter().map(|p| (p.id, p.x, p.width)).collect()
    }

    fn names(t: &DataTable<Col>, rows: &[Row]) -> Vec<&'static str> {
        t.ordered(rows).map(|r| r.name).collect()
    }

    fn key(t: &mut DataTable<Col>, rows: &[Row], code: KeyCode) {
        t.on_key(&KeyEvent::new(code, KeyModifiers::NONE), rows);
    }

    #[test]
    fn the_lowest_priority_columns_are_dropped_first_as_the_width_shrinks() {
        let c = columns();
        // Wide enough for everything: the fill takes the rest.
        assert_eq!(
            ids(&c.layout(80)),
            vec![
                (Col::Name, 0, 56),
                (Col::Count, 57, 6),
                (Col::Note, 64, 8),
                (Col::Extra, 73, 7),
            ]
        );
        // Below 60 the wide-only column is hidden; the note goes when the name would get
        // less than its minimum, then the count. The name is never dropped.
        assert_eq!(
            ids(&c.layout(40)),
            vec![(Col::Name, 0, 24), (Col::Count, 25, 6), (Col::Note, 32, 8)]
        );
        assert_eq!(
            ids(&c.layout(25)),
            vec![(Col::Name, 0, 18), (Col::Count, 19, 6)]
        );
        assert_eq!(ids(&c.layout(12)), vec![(Col::Name, 0, 12)]);
        assert_eq!(ids(&c.layout(0)), vec![(Col::Name, 0, 0)]);
        // Fills share by weight, the last one taking the remainder.
        let shared = Columns::new(vec![
            Column::new(Col::Count, "#", Width::Fixed(6)),
            Column::new(Col::Name, "Id", Width::Fill { min: 1, weight: 2 }),
            Column::new(Col::Note, "URL", Width::Fill { min: 1, weight: 3 }),
        ]);
        assert_eq!(
            ids(&shared.layout(78)),
            vec![(Col::Count, 0, 6), (Col::Name, 7, 28), (Col::Note, 36, 42)]
        );
        // Fixed columns that do not fit are cut at the edge.
        let fixed = Columns::new(vec![
            Column::new(Col::Name, "a", Width::Fixed(10)),
            Column::new(Col::Count, "b", Width::Fixed(10)),
            Column::new(Col::Note, "c", Width::Fixed(10)),
        ]);
        assert_eq!(
            ids(&fixed.layout(15)),
            vec![(Col::Name, 0, 10), (Col::Count, 11, 4)]
        );
    }

    #[test]
    fn sort_cycles_columns_reverses_and_keeps_groups_and_the_selection() {
        let rows = rows();
        let mut t = DataTable::new(columns());
        t.set_rows(&rows);
        assert_eq!(
            names(&t, &rows),
            vec!["acme", "zephyr", "bogus", "beta", "Zed"],
            "unsorted: as given"
        );
        assert!(t.on_command(Command::Sort, &rows));
        assert_eq!(t.sort(), Some((Col::Name, false)));
        // Byte order; the group-1 row last whatever the direction.
        assert_eq!(
            names(&t, &rows),
            vec!["Zed", "acme", "beta", "zephyr", "bogus"]
        );
        assert_eq!(
            t.selected_row(&rows).map(|r| r.name),
            Some("acme"),
            "the selection follows its row"
        );
        t.on_command(Command::Down, &rows);
        assert_eq!(t.selected_row(&rows).map(|r| r.name), Some("beta"));
        t.on_command(Command::SortReverse, &rows);
        assert_eq!(
            names(&t, &rows),
            vec!["zephyr", "beta", "acme", "Zed", "bogus"]
        );
        assert_eq!(t.selected_row(&rows).map(|r| r.name), Some("beta"));
        // Count sorts descending first; ties by the first column, ascending.
        t.on_command(Command::Sort, &rows);
        assert_eq!(t.sort(), Some((Col::Count, true)));
        assert_eq!(
            names(&t, &rows),
            vec!["beta", "zephyr", "acme", "Zed", "bogus"]
        );
        t.on_command(Command::SortReverse, &rows);
        assert_eq!(
            names(&t, &rows),
            vec!["Zed", "acme", "beta", "zephyr", "bogus"]
        );
        // Every column is sortable here: Note, Extra, then Name again.
        for want in [Col::Note, Col::Extra, Col::Name] {
            t.on_command(Command::Sort, &rows);
            assert_eq!(t.sort().map(|s| s.0), Some(want));
        }
        let mut header = Buffer::empty(Rect::new(0, 0, 80, 1));
        let (calls, theme) = (Counter::new(0), Theme::default());
        t.columns().render_header::<Row>(
            header.area,
            &mut header,
            &Draw::new(&calls, &theme, true),
        );
        let text: String = header.content().iter().map(|c| c.symbol()).collect();
        assert!(text.starts_with("Name ▲ "), "{text}");
    }

    #[test]
    fn decimals_and_numbers_compare_exactly() {
        let d = |units, scale| SortKey::Decimal { units, scale };
        assert_eq!(d(15, 1).cmp_key(&d(150, 2)), Ordering::Equal);
        assert_eq!(
            d(12_345_670_000_000_001, 10).cmp_key(&d(12_345_670_000_000_002, 10)),
            Ordering::Less
        );
        assert_eq!(SortKey::Int(2).cmp_key(&d(19, 1)), Ordering::Greater);
        assert_eq!(SortKey::Missing.cmp_key(&d(-5, 0)), Ordering::Less);
        assert_eq!(
            SortKey::Float(0.5).cmp_key(&SortKey::Int(1)),
            Ordering::Less
        );
        assert_eq!(
            cmp_decimal((i128::MAX, 0), (1, 30)),
            Ordering::Greater,
            "out of range when rescaled: the integer parts decide"
        );
    }

    #[test]
    fn the_filter_matches_live_keeps_keys_and_esc_clears_it() {
        let rows = rows();
        let mut t = DataTable::new(columns());
        t.set_viewport(10);
        assert!(
            !t.on_command(Command::Filter, &rows[..0]),
            "no rows: no input to type into unseen"
        );
        assert!(!t.is_filtering());
        t.set_rows(&rows);
        assert!(t.on_command(Command::Filter, &rows));
        assert!(t.is_filtering());
        assert_eq!(t.scroll().viewport(), 9, "the bar takes a row");
        for c in "re:^(acme|zeph)".chars() {
            key(&mut t, &rows, KeyCode::Char(c));
        }
        assert_eq!(names(&t, &rows), vec!["acme", "zephyr"]);
        // A bad regular expression keeps the last good filter and says why; Enter keeps it open.
        key(&mut t, &rows, KeyCode::Char('['));
        assert!(t.filter_error().is_some_and(|e| e.contains("regular")));
        assert_eq!(names(&t, &rows), vec!["acme", "zephyr"]);
        key(&mut t, &rows, KeyCode::Enter);
        assert!(t.is_filtering());
        key(&mut t, &rows, KeyCode::Backspace);
        key(&mut t, &rows, KeyCode::Down);
        assert_eq!(t.selected_row(&rows).map(|r| r.name), Some("zephyr"));
        key(&mut t, &rows, KeyCode::Enter);
        assert!(!t.is_filtering());
        assert_eq!(t.filter_text(), Some("re:^(acme|zeph)"));
        // Substrings are case-insensitive unless they have capitals.
        t.on_command(Command::Filter, &rows);
        for _ in 0..20 {
            key(&mut t, &rows, KeyCode::Backspace);
        }
        key(&mut t, &rows, KeyCode::Char('z'));
        assert_eq!(names(&t, &rows), vec!["zephyr", "Zed"]);
        key(&mut t, &rows, KeyCode::Backspace);
        key(&mut t, &rows, KeyCode::Char('Z'));
        assert_eq!(names(&t, &rows), vec!["Zed"]);
        t.on_paste("edx", &rows);
        assert_eq!(t.filter_text(), Some("Zedx"));
        assert!(names(&t, &rows).is_empty());
        key(&mut t, &rows, KeyCode::Enter);
        // Drawn: a message instead of rows, and the bar.
        let mut buf = Buffer::empty(Rect::new(0, 0, 60, 5));
        let (calls, theme) = (Counter::new(0), Theme::default());
        t.render(buf.area, &mut buf, &rows, &Draw::new(&calls, &theme, true));
        let text: String = buf.content().iter().map(|c| c.symbol()).collect();
        assert!(text.contains("no row matches the filter"), "{text}");
        assert!(text.contains("filter Zedx · 0 of 5 match"), "{text}");
        // Esc clears the applied filter.
        assert!(t.on_command(Command::Back, &rows));
        assert_eq!(t.order().len(), 5);
        assert!(!t.on_command(Command::Back, &rows), "nothing left to clear");
        // Esc while typing clears too.
        t.on_command(Command::Filter, &rows);
        key(&mut t, &rows, KeyCode::Char('b'));
        assert_eq!(t.order().len(), 2);
        key(&mut t, &rows, KeyCode::Esc);
        assert!(!t.is_filtering() && t.filter_text().is_none());
        assert_eq!(t.order().len(), 5);
    }

    #[test]
    fn only_the_visible_rows_are_formatted() {
        let rows: Vec<Row> = (0..100_000)
            .map(|i| Row {
                name: "row",
                count: i,
                group: 0,
            })
            .collect();
        let mut t = DataTable::new(columns());
        t.set_rows(&rows);
        t.on_command(Command::Bottom, &rows);
        let calls = Counter::new(0);
        let area = Rect::new(0, 0, 80, 11);
        let mut buf = Buffer::empty(area);
        let theme = Theme::default();
        t.render(area, &mut buf, &rows, &Draw::new(&calls, &theme, true));
        // A header and ten rows of four columns.
        assert_eq!(calls.get(), 10 * 4);
        let last: String = (0..80).map(|x| buf[(x, 10)].symbol()).collect();
        assert!(last.contains("99999"), "{last}");
        assert_eq!(
            buf[(0, 10)].bg,
            Theme::default().selection.bg.unwrap_or_default()
        );
    }

    #[test]
    fn cells_are_sanitised_aligned_and_rest_cells_span_the_row() {
        struct Evil;
        impl TableRow for Evil {
            type Col = Col;
            type Ctx = ();
            fn cell(&self, col: Col, _: u16, _: &(), _: &Theme) -> Cell<'_> {
                match col {
                    Col::Name => Cell::new("a\u{1b}[2Jb", Style::default()),
                    Col::Count => Cell::new("42", Style::default()),
                    _ => Cell::Rest("spans the rest".into(), Style::default()),
                }
            }
            fn filter_text(&self) -> Cow<'_, str> {
                Cow::Borrowed("")
            }
        }
        let mut t = DataTable::new(columns());
        let rows = [Evil];
        t.set_rows(&rows);
        let mut buf = Buffer::empty(Rect::new(0, 0, 40, 2));
        let theme = Theme::default();
        t.render(buf.area, &mut buf, &rows, &Draw::new(&(), &theme, false));
        let line: String = (0..40).map(|x| buf[(x, 1)].symbol()).collect();
        assert_eq!(line, format!("a␛b{}42 spans t…", " ".repeat(26)));
    }
}
