//! The pane kit's data table (the idea of bottom's `DataTable`): a [`TableRow`] gives cells,
//! sort keys and filter text; the table does the rest. Columns have a header, an alignment
//! (numbers right), a width (fixed, wide/narrow, or a share of what is left) and a priority:
//! when the width does not fit, the lowest-priority columns are dropped first. The sorted column
//! carries a mark (`o` cycles the column, `O` reverses), `/` filters live over each row's filter
//! text with the History filter's `[re:]text` syntax, and drawing is virtualised over a
//! [`ScrollState`](crate::ui::scroll::ScrollState): only the rows on screen are formatted, so a
//! frame costs the same for ten rows and for a million.
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
//! Cell and header text goes through [`safe_line`](crate::ui::safe::safe_line): server strings
//! reach the terminal sanitised and cut to their column.

use std::borrow::Cow;
use std::cmp::Ordering;

use ratatui::style::Style;
use ratatui::text::Span;

use crate::model::amount::Amount;
use crate::ui::theme::Theme;

mod columns;
mod data_table;
mod filter;

pub use columns::{Align, Column, Columns, Placed, Width, put, sort_mark};
pub use data_table::{DataTable, TableInput};
pub use filter::{FilterEvent, FilterInput};

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

    /// What a folded column says of the value every row in view has there
    /// ([`Columns::folded`]): by default its title, lower case, and the value (`mig 3`).
    fn fold_note(_col: Self::Col, title: &str, value: &str, _ctx: &Self::Ctx) -> String {
        format!("{} {value}", title.to_lowercase())
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

#[cfg(test)]
mod tests;
