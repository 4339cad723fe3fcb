//! [`Columns`]: how wide each column is (dropping the lowest priorities first), the header with
//! its sort mark, and one row drawn into the buffer.

use std::borrow::Cow;
use std::cmp::{Ordering, Reverse};

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;
use unicode_width::UnicodeWidthStr;

use super::{Cell, Draw, KEEP, TableRow};
use crate::ui::safe::{is_one_cell, is_printable_ascii, safe_line};
use crate::ui::scroll::ScrollState;

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
    /// Left out of a narrow table when it reads the same on every row in view
    /// ([`Columns::folded`]).
    pub folds: bool,
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
            folds: false,
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

    /// Left out of a table narrower than its fold width when every row in view reads the same
    /// here; the value is said once instead ([`Columns::folded`]).
    pub fn folds(mut self) -> Self {
        self.folds = true;
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
    pub(super) sort: Option<(usize, bool)>,
    /// The sort before the last `o` ([`Columns::cycle_sort`]): a column letter right after it
    /// ([`Columns::sort_by_letter`]) starts from there.
    before_cycle: Option<(usize, bool)>,
    /// An `o` came last (so `before_cycle` holds).
    cycled: bool,
    header: bool,
    /// Below this table width, the columns that fold and read the same on every row in view
    /// are left out ([`Columns::folded`]); 0: never.
    fold_below: u16,
}

/// Keys a column letter never takes (movement, copy, `o` itself), so `o` then one of them still
/// does what it does.
const NOT_LETTERS: &str = "ghjklyqo";

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
    set_text(buf, x, y, &s, w, style);
}

/// [`Buffer::set_stringn`] of text that [`safe_line`] made safe, at most `max_width` columns:
/// printable ASCII (most cells) is written a byte a cell, and text of printable ASCII and the
/// app's own one-cell symbols (the Summary's `→`, a cut id's `…`, `·`, dashes; see
/// [`is_one_cell`]) a character a cell, both without ratatui's grapheme segmentation (the
/// largest part of a History frame's time, see the book's performance chapter); anything else
/// (wide or combining characters, other scripts) goes through `set_stringn`. The cells written
/// are the same.
pub fn set_text(buf: &mut Buffer, x: u16, y: u16, text: &str, max_width: usize, style: Style) {
    let area = buf.area;
    if !area.contains(ratatui::layout::Position { x, y }) {
        buf.set_stringn(x, y, text, max_width, style);
        return;
    }
    let room = max_width.min(usize::from(area.right() - x));
    if is_printable_ascii(text) {
        let n = text.len().min(room);
        let start = buf.index_of(x, y);
        for (cell, b) in buf.content[start..start + n].iter_mut().zip(text.bytes()) {
            cell.set_char(char::from(b)).set_style(style);
        }
    } else if text.chars().all(is_one_cell) {
        let start = buf.index_of(x, y);
        for (cell, c) in buf.content[start..start + room]
            .iter_mut()
            .zip(text.chars())
        {
            cell.set_char(c).set_style(style);
        }
    } else {
        buf.set_stringn(x, y, text, max_width, style);
    }
}

impl<C: Copy + PartialEq> Columns<C> {
    /// Columns with a header row, not sorted.
    pub fn new(cols: Vec<Column<C>>) -> Self {
        Columns {
            cols,
            sort: None,
            before_cycle: None,
            cycled: false,
            header: true,
            fold_below: 0,
        }
    }

    /// Columns marked [`Column::folds`] are left out of a table narrower than `width` when
    /// every row in view reads the same in them ([`Columns::folded`]).
    pub fn fold_below(mut self, width: u16) -> Self {
        self.fold_below = width;
        self
    }

    /// The columns as drawn in a table `width` wide over `rows` (the rows in view), and what
    /// they leave out: below the fold width, a column marked [`Column::folds`] that reads the
    /// same on at least two rows and on every row that shows something there is hidden (its
    /// room goes to the fills: no column this width drops comes back) and its value said once, as [`TableRow::fold_note`] words it
    /// (`mig 3`, `transactions`) with its column, left to right. Wider, or with nothing constant, the
    /// columns as they are and no note.
    pub fn folded<'r, R: TableRow<Col = C> + ?Sized + 'r>(
        &self,
        width: u16,
        rows: &[&'r R],
        ctx: &R::Ctx,
    ) -> (Columns<C>, Vec<(C, String)>) {
        let mut cols = self.clone();
        let mut notes = Vec::new();
        if width >= self.fold_below {
            return (cols, notes);
        }
        let theme = crate::ui::theme::Theme::default();
        let before = self.layout(width);
        for c in self.cols.iter().filter(|c| c.folds) {
            let values: Vec<String> = rows
                .iter()
                .map(|r| cell_text(r.cell(c.id, u16::MAX, ctx, &theme)))
                .filter(|t| !t.trim().is_empty())
                .collect();
            if let [first, rest @ ..] = values.as_slice()
                && !rest.is_empty()
                && rest.iter().all(|t| t == first)
            {
                cols.set_width(c.id, Width::Fixed(0));
                notes.push((c.id, R::fold_note(c.id, c.title, first, ctx)));
            }
        }
        if !notes.is_empty() {
            // The room goes to the fills: a column this width dropped stays out.
            for c in &self.cols {
                if !before.iter().any(|p| p.id == c.id) {
                    cols.set_width(c.id, Width::Fixed(0));
                }
            }
        }
        (cols, notes)
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

    /// The letter of each column (`o` then the letter sorts by it): for the sortable columns,
    /// the first letter of the title that no column before took (not one of the movement keys),
    /// lower case; `None` for the others.
    pub fn letters(&self) -> Vec<Option<char>> {
        let mut taken = String::new();
        self.cols
            .iter()
            .map(|c| {
                if !c.sortable {
                    return None;
                }
                let letter = c
                    .title
                    .chars()
                    .map(|ch| ch.to_ascii_lowercase())
                    .find(|ch| {
                        ch.is_ascii_lowercase()
                            && !taken.contains(*ch)
                            && !NOT_LETTERS.contains(*ch)
                    })?;
                taken.push(letter);
                Some(letter)
            })
            .collect()
    }

    /// The sortable columns with their letters, in order: `[t]ime [k]ind …` for hints.
    pub fn letter_hint(&self) -> String {
        self.cols
            .iter()
            .zip(self.letters())
            .filter_map(|(c, l)| {
                let l = l?;
                let at = c.title.to_ascii_lowercase().find(l)?;
                let (head, tail) = c.title.split_at(at);
                let mut rest = tail.chars();
                let first = rest.next()?;
                Some(format!("{head}[{first}]{}", rest.as_str()))
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Sorts by the column of `letter` (see [`Columns::letters`]): in its first direction, or
    /// the other way when the table was sorted by it before the `o` that came just before.
    /// Returns whether a column has that letter.
    pub fn sort_by_letter(&mut self, letter: char) -> bool {
        let Some(i) = self.letters().iter().position(|l| *l == Some(letter)) else {
            return false;
        };
        let before = if std::mem::take(&mut self.cycled) {
            self.before_cycle
        } else {
            self.sort
        };
        self.sort = Some(match before {
            Some((j, desc)) if j == i => (i, !desc),
            _ => (i, self.cols[i].descending_first),
        });
        true
    }

    /// Whether a header row is drawn.
    pub fn has_header(&self) -> bool {
        self.header
    }

    /// Every column of `row`, whole (as wide as the cell wants), named by its title: what `v`
    /// lists for a selected row ([`crate::ui::fields`]). Row numbers and empty cells are left
    /// out.
    pub fn fields<R: TableRow<Col = C> + ?Sized>(
        &self,
        row: &R,
        ctx: &R::Ctx,
    ) -> Vec<crate::ui::fields::Field> {
        let theme = crate::ui::theme::Theme::default();
        self.cols
            .iter()
            .filter(|c| !c.row_number)
            .filter_map(|c| {
                let text = cell_text(row.cell(c.id, u16::MAX, ctx, &theme));
                let title = R::title(c.id, ctx).unwrap_or(Cow::Borrowed(c.title));
                let title = if title.trim().is_empty() {
                    "·".into()
                } else {
                    title
                };
                (!text.trim().is_empty())
                    .then(|| crate::ui::fields::Field::new(title.into_owned(), text))
            })
            .collect()
    }

    /// The sorted column and whether descending.
    pub fn sort(&self) -> Option<(C, bool)> {
        self.sort
            .and_then(|(i, desc)| self.cols.get(i).map(|c| (c.id, desc)))
    }

    /// Sorts by the next sortable column, in its first direction. Returns whether any column is
    /// sortable.
    pub fn cycle_sort(&mut self) -> bool {
        self.before_cycle = self.sort;
        self.cycled = true;
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
        let letters = self.letters();
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
            // The column's letter (`o` then the letter sorts by it), underlined.
            if let Some(Some(letter)) = letters.get(p.index)
                && let Some(at) = title.to_ascii_lowercase().find(*letter)
                && title[..at].is_ascii()
            {
                let used = title.width().min(usize::from(p.width));
                let start = match col.align {
                    Align::Left => 0,
                    Align::Right => usize::from(p.width) - used,
                };
                if at < used {
                    let x = area.x + p.x + u16::try_from(start + at).unwrap_or(0);
                    if let Some(cell) = buf.cell_mut((x, area.y)) {
                        cell.modifier.insert(ratatui::style::Modifier::UNDERLINED);
                    }
                }
            }
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

/// The text of a cell, without its styles.
fn cell_text(cell: Cell<'_>) -> String {
    match cell {
        Cell::Text(t, _) | Cell::Rest(t, _) => t.into_owned(),
        Cell::Spans(spans) => spans.iter().map(|s| s.content.as_ref()).collect(),
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
        set_text(buf, x + used, y, &s, usize::from(room), span.style);
        used += u16::try_from(s.width()).unwrap_or(room).min(room);
    }
}
