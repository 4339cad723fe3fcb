//! A holdings answer: one row per owner with exact amounts, the exact column totals, the
//! table's columns and rows, and how a failed query reads.

use std::borrow::Cow;

use ratatui::style::Style;

use crate::api::ApiError;
use crate::api::scan::HoldingsSummaryResponse;
use crate::model::amount::{Amount, AmountCell, sum_amounts};
use crate::ui::explain::explain_scan;
use crate::ui::format::amount_table;
use crate::ui::table::{Cell, Column, Columns, KEEP, SortKey, TableRow, Width};
use crate::ui::theme::Theme;

use super::{HoldingsQuery, NOT_SERVED_TEXT, TimeSpec};

// ---------------------------------------------------------------------------------------------
// The result
// ---------------------------------------------------------------------------------------------

/// One owner's row.
#[derive(Debug, Clone, PartialEq)]
pub struct HoldingRow {
    pub party: String,
    pub unlocked: AmountCell,
    pub locked: AmountCell,
    pub total: AmountCell,
}

impl HoldingRow {
    /// Whether the total equals unlocked + locked (false when it cannot be checked).
    pub fn consistent(&self) -> bool {
        match (self.unlocked.value, self.locked.value, self.total.value) {
            (Some(u), Some(l), Some(t)) => u.checked_add(l) == Some(t),
            _ => false,
        }
    }
}

/// A row as the table draws it: the amounts formatted once when the answer arrives (decimal
/// points aligned over the column and its total).
#[derive(Debug, Clone, PartialEq)]
pub struct HoldingLine {
    pub(super) party: String,
    /// Unlocked, locked, total: the text drawn and the exact value.
    pub(super) amounts: [(String, Option<Amount>); 3],
    pub(super) consistent: bool,
    /// An owner asked for that the answer does not list: it has no holdings at the snapshot
    /// (its row says so instead of amounts).
    pub(super) no_holdings: bool,
    /// The party and the amounts as the server sent them.
    pub(super) filter: String,
}

/// What the Total cell of an owner without holdings says.
pub const NO_HOLDINGS: &str = "no holdings";

impl TableRow for HoldingLine {
    type Col = HoldCol;
    type Ctx = ();

    fn cell(&self, col: HoldCol, _width: u16, (): &(), theme: &Theme) -> Cell<'_> {
        if col == HoldCol::Party {
            return Cell::new(self.party.as_str(), theme.party);
        }
        if self.no_holdings {
            let text = if col == HoldCol::Total {
                NO_HOLDINGS
            } else {
                ""
            };
            return Cell::new(text, theme.muted);
        }
        let (text, value) = &self.amounts[amount_index(col)];
        let style = if value.is_none() || (col == HoldCol::Total && !self.consistent) {
            theme.status_warn
        } else if value.is_some_and(Amount::is_negative) {
            theme.status_err
        } else {
            Style::default()
        };
        Cell::new(text.as_str(), style)
    }

    fn sort_key(&self, col: HoldCol) -> SortKey<'_> {
        match col {
            HoldCol::Party => SortKey::Text(Cow::Borrowed(&self.party)),
            _ => self.amounts[amount_index(col)]
                .1
                .map_or(SortKey::Missing, SortKey::from),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.filter)
    }
}

/// A query's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct HoldingsResult {
    /// The record time the server echoed.
    pub record_time: String,
    pub migration_id: i64,
    pub exact: bool,
    /// What the user asked for (`now` or a time).
    pub asked: TimeSpec,
    pub rows: Vec<HoldingRow>,
    /// Owners asked for that the answer does not list (no active amulets); each gets a row
    /// saying so.
    pub missing: Vec<String>,
    /// Exact column sums (unlocked, locked, total); `None` when a value did not parse.
    pub totals: [Option<Amount>; 3],
}

impl HoldingsResult {
    /// How many owners the table lists: the ones with holdings and the ones without.
    pub fn parties(&self) -> usize {
        self.rows.len() + self.missing.len()
    }

    /// Builds the rows and exact totals of a response.
    pub fn new(query: &HoldingsQuery, r: &HoldingsSummaryResponse) -> Self {
        let rows: Vec<HoldingRow> = r
            .summaries
            .iter()
            .map(|s| HoldingRow {
                party: s.party_id.clone(),
                unlocked: AmountCell::new(&s.total_unlocked_coin),
                locked: AmountCell::new(&s.total_locked_coin),
                total: AmountCell::new(&s.total_coin_holdings),
            })
            .collect();
        let missing = query
            .owners
            .iter()
            .filter(|o| !rows.iter().any(|r| &r.party == *o))
            .cloned()
            .collect();
        let totals = [
            sum_amounts(rows.iter().map(|r| r.unlocked.value.as_ref())),
            sum_amounts(rows.iter().map(|r| r.locked.value.as_ref())),
            sum_amounts(rows.iter().map(|r| r.total.value.as_ref())),
        ];
        HoldingsResult {
            record_time: r.record_time.clone(),
            migration_id: r.migration_id,
            exact: query.exact,
            asked: query.time.clone(),
            rows,
            missing,
            totals,
        }
    }
}

/// A table column (also the sort key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HoldCol {
    Party,
    Unlocked,
    Locked,
    #[default]
    Total,
}

impl HoldCol {
    /// The header title.
    pub fn title(self) -> &'static str {
        match self {
            HoldCol::Party => "Party",
            HoldCol::Unlocked => "Unlocked",
            HoldCol::Locked => "Locked",
            HoldCol::Total => "Total",
        }
    }

    /// The table's columns: Party and Total always, Unlocked and Locked when they fit (amount
    /// widths follow the values: see [`HoldingsPane::resort`]). Amounts sort largest first.
    pub(super) fn columns() -> Columns<HoldCol> {
        let amount = |id: HoldCol, priority| {
            Column::new(id, id.title(), Width::Fixed(0))
                .right()
                .descending_first()
                .priority(priority)
        };
        Columns::new(vec![
            Column::new(HoldCol::Party, "Party", Width::fill(MIN_PARTY)),
            amount(HoldCol::Unlocked, 5),
            amount(HoldCol::Locked, 4),
            amount(HoldCol::Total, KEEP),
        ])
        .sorted_by(HoldCol::Total, true)
    }
}

/// The party column gets at least this much before amount columns are dropped.
const MIN_PARTY: u16 = 16;

/// Explains a failed holdings query in one line (server text sanitised).
pub fn explain_error(e: &ApiError, exact: bool) -> String {
    let not_served = |version: Option<&str>| match version {
        Some(v) => format!("{NOT_SERVED_TEXT}; this node runs {v}"),
        None => NOT_SERVED_TEXT.to_string(),
    };
    let not_found = |message: &str| {
        let hint = if exact {
            "exact needs a snapshot time: try at_or_before"
        } else {
            "try a later record time or another migration id"
        };
        format!("no holdings snapshot (HTTP 404): {message} ({hint})")
    };
    explain_scan(e, not_served, not_found)
}

/// Amount strings per amount column (unlocked, locked, total): one per row (in `r.rows`
/// order) then the total, with the table's one number of decimals.
pub(super) fn formatted(r: &HoldingsResult) -> [Vec<String>; 3] {
    let col = |k: usize| {
        fn pick(row: &HoldingRow, k: usize) -> &crate::model::amount::AmountCell {
            match k {
                0 => &row.unlocked,
                1 => &row.locked,
                _ => &row.total,
            }
        }
        let mut values: Vec<Option<Amount>> = r.rows.iter().map(|row| pick(row, k).value).collect();
        values.push(r.totals[k]);
        let mut raws: Vec<&str> = r.rows.iter().map(|row| pick(row, k).raw.as_str()).collect();
        raws.push("?");
        (values, raws)
    };
    let mut texts = amount_table(&[col(0), col(1), col(2)]).into_iter();
    let mut next = || texts.next().unwrap_or_default();
    [next(), next(), next()]
}

pub(super) fn amount_index(col: HoldCol) -> usize {
    match col {
        HoldCol::Unlocked => 0,
        HoldCol::Locked => 1,
        HoldCol::Party | HoldCol::Total => 2,
    }
}
