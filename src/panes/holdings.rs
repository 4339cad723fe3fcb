//! The Holdings pane (5): amulet holdings per owner party from `POST /v1/holdings/summary`.
//!
//! ```text
//! ┌Holdings · 3 parties─────────────────────────────────────────────┐
//! │migration 1 · at_or_before 2026-01-05T10:00:00Z (asked: now)     │  query line
//! │Party                      Unlocked       Locked        Total ▼  │  header (sort mark)
//! │alice::1220…             1,200.5            10      1,210.5      │  rows (decimal points
//! │…                                                                │  aligned, exact)
//! │─────────────────────────────────────────────────────────────────│
//! │Total (3 parties)        …                                       │  exact sums
//! │no holdings reported for: bob::1220…                             │  owners not returned
//! └─────────────────────────────────────────────────────────────────┘
//!        ┌ Holdings query ───────────────────┐   `i` opens the form (a dialog over the
//!        │Owners    alice::… bob::…          │   table): owners (Tab completes from the
//!        │Migration 1                        │   parties of the loaded history), migration
//!        │Time      now                      │   (default: the newest loaded update's),
//!        │Match     (•) at_or_before ( ) exact│  record time (default now) and match mode.
//!        └───────────────────────────────────┘
//! ```
//!
//! Also home of the small pieces the Validators pane shares: [`Amount`] (exact Daml decimals),
//! [`Completer`] (Tab completion of the last id in a list) and [`split_ids`].

use std::borrow::Cow;
use std::cmp::Ordering;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Widget};

use crate::api::ApiError;
use crate::api::scan::{HoldingsSummaryRequest, HoldingsSummaryResponse, RecordTimeMatch};
use crate::config::keymap::KeyContext;
use crate::model::summary::{format_time_micros, parse_time_micros};
use crate::msg::Command;
use crate::msg::{Effect, Fetched, Request, RequestId, Response};
use crate::panes::{Out, Pane, PaneId, Shared};
use crate::ui::layout::{centered, framed, wrap_text};
use crate::ui::safe::{safe_line, sanitize};
use crate::ui::table::{
    Align, Cell, Column, Columns, DataTable, Draw, KEEP, SortKey, TableRow, Width, cmp_decimal, put,
};
use crate::ui::text_input::{InputOutcome, TextInput};
use crate::ui::theme::Theme;

/// The endpoint, as named in messages.
pub const HOLDINGS_ENDPOINT: &str = "/v1/holdings/summary";

/// What the pane says when a scan does not know the endpoint (a 404 for the whole route).
pub const NOT_SERVED_TEXT: &str = "this scan does not serve /v1/holdings/summary (needs a Splice \
     version with the v1 holdings API: 0.6.3 or later)";

/// The empty state.
pub const EMPTY_TEXT: &str = "No holdings query yet. Press i (edit) to enter one or more owner \
     parties (Tab completes from the parties of the loaded history), a migration id (default: \
     the current one), a record time (default: now) and the match mode; Enter runs the query.";

// ---------------------------------------------------------------------------------------------
// Exact decimals
// ---------------------------------------------------------------------------------------------

/// Widest an amount column gets (Daml numerics have at most 28 integer + 10 fraction digits).
const MAX_AMOUNT_COL: usize = 48;

/// Most fraction digits kept (Daml `Numeric 10` uses 10; some headroom for other servers).
const MAX_SCALE: u32 = 18;

/// An exact decimal number (`units / 10^scale`), for Daml decimals sent as text. Sums never
/// round: an addition that would not fit fails instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Amount {
    units: i128,
    scale: u32,
}

impl Amount {
    /// Zero.
    pub const ZERO: Amount = Amount { units: 0, scale: 0 };

    /// Parses `[-+]digits[.digits]` (surrounding spaces allowed). `None` for anything else,
    /// including exponents and more than 18 fraction digits.
    pub fn parse(s: &str) -> Option<Amount> {
        let s = s.trim();
        let (neg, body) = match s.as_bytes().first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        let (int, frac) = body.split_once('.').unwrap_or((body, ""));
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let scale = u32::try_from(frac.len()).ok().filter(|s| *s <= MAX_SCALE)?;
        let mut units: i128 = 0;
        for b in int.bytes().chain(frac.bytes()) {
            units = units.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
        }
        Some(Amount {
            units: if neg { -units } else { units },
            scale,
        })
    }

    fn rescaled(self, scale: u32) -> Option<i128> {
        let factor = 10i128.checked_pow(scale.checked_sub(self.scale)?)?;
        self.units.checked_mul(factor)
    }

    /// The exact sum, or `None` when it does not fit.
    pub fn checked_add(self, other: Amount) -> Option<Amount> {
        let scale = self.scale.max(other.scale);
        let units = self.rescaled(scale)?.checked_add(other.rescaled(scale)?)?;
        Some(Amount { units, scale })
    }

    /// Whether the number is below zero.
    pub fn is_negative(self) -> bool {
        self.units < 0
    }

    /// The integer part (digits grouped by thousands, with sign) and the fraction digits without
    /// trailing zeros.
    pub fn parts(self) -> (String, String) {
        let digits = self.units.unsigned_abs().to_string();
        let scale = self.scale as usize;
        let padded = if digits.len() <= scale {
            format!("{}{digits}", "0".repeat(scale + 1 - digits.len()))
        } else {
            digits
        };
        let (int, frac) = padded.split_at(padded.len() - scale);
        let frac = frac.trim_end_matches('0').to_string();
        let mut grouped = String::new();
        for (i, c) in int.chars().enumerate() {
            if i > 0 && (int.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(c);
        }
        if self.units < 0 {
            grouped.insert(0, '-');
        }
        (grouped, frac)
    }

    /// The key a table sorts the value by.
    pub fn sort_key(self) -> SortKey<'static> {
        SortKey::Decimal {
            units: self.units,
            scale: self.scale,
        }
    }

    /// The exact value as plain text (`-1234.5`): no grouping, no trailing zeros.
    pub fn plain(self) -> String {
        let (int, frac) = self.parts();
        let int = int.replace(',', "");
        if frac.is_empty() {
            int
        } else {
            format!("{int}.{frac}")
        }
    }
}

impl PartialOrd for Amount {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Amount {
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_decimal((self.units, self.scale), (other.units, other.scale))
    }
}

/// Sums amounts exactly; `None` when one is missing or the sum does not fit.
pub fn sum_amounts<'a>(items: impl IntoIterator<Item = Option<&'a Amount>>) -> Option<Amount> {
    items
        .into_iter()
        .try_fold(Amount::ZERO, |acc, a| acc.checked_add(*a?))
}

/// One amount cell: the server's text and its exact value when it parses.
#[derive(Debug, Clone, PartialEq)]
pub struct AmountCell {
    pub raw: String,
    pub value: Option<Amount>,
}

impl AmountCell {
    /// A cell from the server's text.
    pub fn new(raw: &str) -> Self {
        AmountCell {
            raw: raw.to_string(),
            value: Amount::parse(raw),
        }
    }
}

/// Formats amounts of one column so their decimal points line up: each string has the same
/// number of characters after its integer part.
pub fn aligned_amounts(values: &[Option<Amount>], raws: &[&str]) -> Vec<String> {
    let parts: Vec<Option<(String, String)>> =
        values.iter().map(|v| v.map(Amount::parts)).collect();
    let frac_w = parts
        .iter()
        .flatten()
        .map(|(_, f)| f.len())
        .max()
        .unwrap_or(0);
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| match p {
            Some((int, frac)) if frac.is_empty() && frac_w > 0 => {
                format!("{int}{}", " ".repeat(frac_w + 1))
            }
            Some((int, frac)) if frac_w > 0 => {
                format!("{int}.{frac}{}", " ".repeat(frac_w - frac.len()))
            }
            Some((int, _)) => int.clone(),
            None => sanitize(raws.get(i).copied().unwrap_or("?")).into_owned(),
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Id lists and completion
// ---------------------------------------------------------------------------------------------

fn is_separator(c: char) -> bool {
    c.is_whitespace() || c == ',' || c == ';'
}

/// The ids of a list typed by the user (separated by spaces, commas or semicolons), without
/// duplicates, in order.
pub fn split_ids(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for id in text.split(is_separator).filter(|s| !s.is_empty()) {
        if !out.iter().any(|o| o == id) {
            out.push(id.to_string());
        }
    }
    out
}

/// Whether `id` looks like a Canton party id (`hint::fingerprint`).
pub fn looks_like_party(id: &str) -> bool {
    matches!(id.split_once("::"), Some((hint, fp)) if !hint.is_empty() && !fp.is_empty())
}

#[derive(Debug, Clone, PartialEq)]
struct CompletionState {
    /// The input text before the word being completed.
    base: String,
    candidates: Vec<String>,
    index: usize,
    /// The text the input had after the last completion (a change ends the cycle).
    applied: String,
}

/// Tab completion of the last id of a list input: the first Tab replaces the last word with the
/// first known id that starts with it (or contains it), further Tabs cycle, Shift-Tab cycles
/// back. Ids already in the list are not offered again.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Completer {
    state: Option<CompletionState>,
}

impl Completer {
    /// Completes (or cycles) in `input` from `pool`. `Err` says why nothing was completed.
    pub fn complete(
        &mut self,
        input: &mut TextInput,
        pool: &[&str],
        forward: bool,
    ) -> Result<(), String> {
        let text = input.text();
        if let Some(st) = &mut self.state
            && st.applied == text
            && !st.candidates.is_empty()
        {
            let n = st.candidates.len();
            st.index = if forward {
                (st.index + 1) % n
            } else {
                (st.index + n - 1) % n
            };
            st.applied = format!("{}{}", st.base, st.candidates[st.index]);
            input.set_text(&st.applied);
            return Ok(());
        }
        self.state = None;
        let cut = text.rfind(is_separator).map_or(0, |i| {
            i + text[i..].chars().next().map_or(1, char::len_utf8)
        });
        let (base, word) = text.split_at(cut);
        let present = split_ids(base);
        let word_l = word.to_lowercase();
        let fresh = |p: &&&str| !p.is_empty() && !present.iter().any(|x| x == **p);
        let mut candidates: Vec<String> = pool
            .iter()
            .filter(fresh)
            .filter(|p| p.to_lowercase().starts_with(&word_l))
            .map(|p| (*p).to_string())
            .collect();
        if candidates.is_empty() && !word.is_empty() {
            candidates = pool
                .iter()
                .filter(fresh)
                .filter(|p| p.to_lowercase().contains(&word_l))
                .map(|p| (*p).to_string())
                .collect();
        }
        candidates.sort();
        candidates.dedup();
        if candidates.is_empty() {
            return Err(if pool.is_empty() {
                "nothing to complete from: no such ids in the loaded history yet".to_string()
            } else if word.is_empty() {
                "every known id is already in the list".to_string()
            } else {
                format!("no known id matches {:?}", safe_line(word, 40).into_owned())
            });
        }
        let index = if forward { 0 } else { candidates.len() - 1 };
        let applied = format!("{base}{}", candidates[index]);
        input.set_text(&applied);
        self.state = Some(CompletionState {
            base: base.to_string(),
            candidates,
            index,
            applied,
        });
        Ok(())
    }

    /// Ends a completion cycle (the user typed something).
    pub fn reset(&mut self) {
        self.state = None;
    }

    /// The candidates of the current cycle and the index of the one in the input.
    pub fn candidates(&self) -> Option<(&[String], usize)> {
        self.state
            .as_ref()
            .map(|s| (s.candidates.as_slice(), s.index))
    }
}

/// Draws the candidates of a completion cycle on one line, the current one highlighted.
pub fn render_candidates(completer: &Completer, area: Rect, buf: &mut Buffer, theme: &Theme) {
    let Some((cands, index)) = completer.candidates() else {
        return;
    };
    if area.width == 0 || area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let mut spans = vec![Span::styled(
        format!("{}/{} ", index + 1, cands.len()),
        theme.muted,
    )];
    let mut used = spans[0].content.len();
    // Start a little before the current candidate so it is always visible.
    let start = index.saturating_sub(1);
    for (i, c) in cands.iter().enumerate().skip(start) {
        if used >= width {
            break;
        }
        let text = safe_line(c, width.saturating_sub(used).min(48)).into_owned();
        used += unicode_width::UnicodeWidthStr::width(text.as_str()) + 2;
        let style = if i == index {
            theme.selection
        } else {
            theme.party
        };
        spans.push(Span::styled(text, style));
        spans.push(Span::raw("  "));
    }
    buf.set_line(area.x, area.y, &Line::from(spans), area.width);
}

// ---------------------------------------------------------------------------------------------
// The query
// ---------------------------------------------------------------------------------------------

/// The record time of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeSpec {
    /// The time the query is sent (re-read on refresh).
    Now,
    /// A fixed RFC 3339 time.
    At(String),
}

/// A holdings query as the form produced it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldingsQuery {
    pub owners: Vec<String>,
    pub migration_id: i64,
    pub time: TimeSpec,
    pub exact: bool,
}

impl HoldingsQuery {
    /// The request body, with `now` read from the clock.
    pub fn request(&self, now: i64) -> HoldingsSummaryRequest {
        let record_time = match &self.time {
            TimeSpec::Now => format_time_micros(now),
            TimeSpec::At(t) => t.clone(),
        };
        HoldingsSummaryRequest {
            migration_id: self.migration_id,
            record_time,
            record_time_match: Some(if self.exact {
                RecordTimeMatch::Exact
            } else {
                RecordTimeMatch::AtOrBefore
            }),
            owner_party_ids: self.owners.clone(),
        }
    }
}

/// Reads a record time as typed: `now` (or nothing) or an RFC 3339 time, normalised to UTC.
pub fn parse_time_spec(text: &str) -> Result<TimeSpec, String> {
    let t = text.trim();
    if t.is_empty() || t.eq_ignore_ascii_case("now") {
        return Ok(TimeSpec::Now);
    }
    parse_time_micros(t)
        .map(|us| TimeSpec::At(format_time_micros(us)))
        .ok_or_else(|| {
            format!(
                "not an RFC 3339 time: {} (e.g. 2026-01-05T10:00:00Z, or now)",
                safe_line(t, 40)
            )
        })
}

/// The form's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Owners,
    Migration,
    Time,
    Match,
}

impl Field {
    const ALL: [Field; 4] = [Field::Owners, Field::Migration, Field::Time, Field::Match];

    fn label(self) -> &'static str {
        match self {
            Field::Owners => "Owners",
            Field::Migration => "Migration",
            Field::Time => "Time",
            Field::Match => "Match",
        }
    }

    fn step(self, forward: bool) -> Field {
        let i = Field::ALL.iter().position(|f| *f == self).unwrap_or(0);
        let n = Field::ALL.len();
        Field::ALL[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }

    /// The field above or below, stopping at the first and last (↑/↓ do not wrap).
    fn step_clamped(self, forward: bool) -> Field {
        let i = Field::ALL.iter().position(|f| *f == self).unwrap_or(0);
        let j = if forward {
            (i + 1).min(Field::ALL.len() - 1)
        } else {
            i.saturating_sub(1)
        };
        Field::ALL[j]
    }
}

/// The query form (kept between openings).
#[derive(Debug, Clone)]
pub struct HoldingsForm {
    pub owners: TextInput,
    pub migration: TextInput,
    pub time: TextInput,
    /// `record_time_match`: exact when true, at_or_before otherwise (the default).
    pub exact: bool,
    pub field: Field,
    pub completer: Completer,
    /// A note for the focused field (completion feedback).
    pub note: Option<String>,
    /// The migration text last filled in automatically (refreshed while unchanged).
    auto_migration: Option<String>,
}

impl Default for HoldingsForm {
    fn default() -> Self {
        HoldingsForm {
            owners: TextInput::single_line()
                .with_placeholder("owner party ids, separated by spaces (Tab completes)"),
            migration: TextInput::single_line().with_placeholder("migration id"),
            time: TextInput::single_line().with_text("now"),
            exact: false,
            field: Field::Owners,
            completer: Completer::default(),
            note: None,
            auto_migration: None,
        }
    }
}

impl HoldingsForm {
    fn input_mut(&mut self, field: Field) -> Option<&mut TextInput> {
        match field {
            Field::Owners => Some(&mut self.owners),
            Field::Migration => Some(&mut self.migration),
            Field::Time => Some(&mut self.time),
            Field::Match => None,
        }
    }

    fn input(&self, field: Field) -> Option<&TextInput> {
        match field {
            Field::Owners => Some(&self.owners),
            Field::Migration => Some(&self.migration),
            Field::Time => Some(&self.time),
            Field::Match => None,
        }
    }

    /// Fills the defaults that depend on the loaded history (the current migration).
    fn prefill(&mut self, sh: &Shared) {
        let text = self.migration.text();
        let untouched = text.is_empty() || self.auto_migration.as_deref() == Some(text.as_str());
        if untouched {
            match sh.history.last() {
                Some(newest) => {
                    let m = newest.migration_id.to_string();
                    self.migration.set_text(&m);
                    self.auto_migration = Some(m);
                }
                None => self
                    .migration
                    .set_placeholder("migration id (no history loaded yet)"),
            }
        }
        if self.time.text().trim().is_empty() {
            self.time.set_text("now");
        }
    }

    /// Checks every field; on failure the first bad field gets focus and a message.
    fn validate(&mut self) -> Option<HoldingsQuery> {
        let owners = split_ids(&self.owners.text());
        let owners_err = if owners.is_empty() {
            Some(
                "enter at least one owner party id (the scan needs at least one; Tab completes)"
                    .to_string(),
            )
        } else {
            owners.iter().find(|o| !looks_like_party(o)).map(|bad| {
                format!(
                    "not a party id: {} (expected hint::fingerprint)",
                    safe_line(bad, 40)
                )
            })
        };
        let mig_text = self.migration.text();
        let migration = mig_text.trim().parse::<i64>().ok().filter(|m| *m >= 0);
        let mig_err = migration
            .is_none()
            .then(|| "the migration id is a whole number ≥ 0".to_string());
        let time = parse_time_spec(&self.time.text());
        let mut first_bad = None;
        for (field, err) in [
            (Field::Owners, owners_err),
            (Field::Migration, mig_err),
            (Field::Time, time.as_ref().err().cloned()),
        ] {
            let bad = err.is_some();
            if let Some(input) = self.input_mut(field) {
                input.set_validation(err);
            }
            if bad && first_bad.is_none() {
                first_bad = Some(field);
            }
        }
        if let Some(f) = first_bad {
            self.field = f;
            return None;
        }
        Some(HoldingsQuery {
            owners,
            migration_id: migration?,
            time: time.ok()?,
            exact: self.exact,
        })
    }
}

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
struct HoldingLine {
    party: String,
    /// Unlocked, locked, total: the text drawn and the exact value.
    amounts: [(String, Option<Amount>); 3],
    consistent: bool,
    /// The party and the amounts as the server sent them.
    filter: String,
}

impl TableRow for HoldingLine {
    type Col = HoldCol;
    type Ctx = ();

    fn cell(&self, col: HoldCol, _width: u16, _: &(), theme: &Theme) -> Cell<'_> {
        if col == HoldCol::Party {
            return Cell::new(self.party.as_str(), theme.party);
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
                .map_or(SortKey::Missing, Amount::sort_key),
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
    /// Owners asked for that the answer does not list (no active amulets).
    pub missing: Vec<String>,
    /// Exact column sums (unlocked, locked, total); `None` when a value did not parse.
    pub totals: [Option<Amount>; 3],
}

impl HoldingsResult {
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
    fn columns() -> Columns<HoldCol> {
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
    match e {
        ApiError::EndpointNotServed { version, .. } => match version {
            Some(v) => format!("{NOT_SERVED_TEXT}; this node runs {}", safe_line(v, 40)),
            None => NOT_SERVED_TEXT.to_string(),
        },
        ApiError::NotFound { message, .. } => {
            let hint = if exact {
                "exact needs a snapshot time: try at_or_before"
            } else {
                "try a later record time or another migration id"
            };
            format!(
                "no holdings snapshot (HTTP 404): {} ({hint})",
                safe_line(message, 200)
            )
        }
        ApiError::Scan {
            status: 400,
            message,
            ..
        } => format!(
            "the scan rejected the query (HTTP 400): {}",
            safe_line(message, 200)
        ),
        other => sanitize(&other.to_string()).into_owned(),
    }
}

// ---------------------------------------------------------------------------------------------
// The pane
// ---------------------------------------------------------------------------------------------

/// The Holdings pane.
#[derive(Debug)]
pub struct HoldingsPane {
    pub form: HoldingsForm,
    /// Whether the form dialog is open (raw keys go to it).
    pub form_open: bool,
    pending: Option<RequestId>,
    /// The last query sent (Refresh runs it again).
    pub query: Option<HoldingsQuery>,
    pub result: Option<HoldingsResult>,
    /// Why the last query failed.
    pub error: Option<String>,
    /// The column the table is sorted by.
    pub sort_col: HoldCol,
    /// The result's rows as drawn, and the totals line (unlocked, locked, total).
    lines: Vec<HoldingLine>,
    totals: [String; 3],
    table: DataTable<HoldCol>,
}

impl HoldingsPane {
    /// A new pane.
    pub fn new(_sh: &Shared) -> Self {
        HoldingsPane {
            form: HoldingsForm::default(),
            form_open: false,
            pending: None,
            query: None,
            result: None,
            error: None,
            sort_col: HoldCol::Total,
            lines: Vec::new(),
            totals: Default::default(),
            table: DataTable::new(HoldCol::columns()),
        }
    }

    /// Whether a query is in flight.
    pub fn is_loading(&self) -> bool {
        self.pending.is_some()
    }

    /// The party ids in display order (the ones the `/` filter lets through).
    pub fn ordered_parties(&self) -> Vec<&str> {
        self.table
            .ordered(&self.lines)
            .map(|l| l.party.as_str())
            .collect()
    }

    /// The selected row's party id.
    pub fn selected_party(&self) -> Option<&str> {
        self.table
            .selected_row(&self.lines)
            .map(|l| l.party.as_str())
    }

    /// The applied `/` filter.
    pub fn filter_text(&self) -> Option<&str> {
        self.table.filter_text()
    }

    /// Whether the `/` filter input is open (it has every key).
    pub fn is_filtering(&self) -> bool {
        self.table.is_filtering()
    }

    /// Opens the query form with its defaults.
    pub fn open_form(&mut self, sh: &Shared) {
        self.form.prefill(sh);
        self.form.note = None;
        self.form.completer.reset();
        self.form_open = true;
    }

    /// Runs a query (replacing any in flight).
    pub fn run(&mut self, query: HoldingsQuery, sh: &mut Shared, out: &mut Out) {
        if let Some(old) = self.pending.take() {
            out.effects.push(Effect::Cancel(old));
        }
        let req = query.request(sh.now);
        self.pending = Some(out.fetch(sh, Request::Holdings(req)));
        self.query = Some(query);
        self.error = None;
    }

    fn submit(&mut self, sh: &mut Shared, out: &mut Out) {
        match self.form.validate() {
            Some(q) => {
                self.form_open = false;
                self.run(q, sh, out);
            }
            None => out.warn("the query is not complete: see the highlighted field"),
        }
    }

    /// Rebuilds the table from the result: formats the amounts once (decimal points aligned
    /// over each column and its total), sizes the amount columns to them, and sorts, keeping
    /// the selected party selected.
    fn resort(&mut self) {
        let selected = self.selected_party().map(str::to_string);
        let (lines, totals) = match &self.result {
            Some(r) => {
                let [u, l, t] = self.formatted(r);
                let lines = r
                    .rows
                    .iter()
                    .enumerate()
                    .map(|(i, row)| HoldingLine {
                        party: row.party.clone(),
                        amounts: [
                            (u[i].clone(), row.unlocked.value),
                            (l[i].clone(), row.locked.value),
                            (t[i].clone(), row.total.value),
                        ],
                        consistent: row.consistent(),
                        filter: format!(
                            "{} {} {} {}",
                            row.party, row.unlocked.raw, row.locked.raw, row.total.raw
                        ),
                    })
                    .collect();
                let n = r.rows.len();
                for (col, texts) in [
                    (HoldCol::Unlocked, &u),
                    (HoldCol::Locked, &l),
                    (HoldCol::Total, &t),
                ] {
                    let w = texts
                        .iter()
                        .map(|s| unicode_width::UnicodeWidthStr::width(s.as_str()))
                        .max()
                        .unwrap_or(0)
                        .max(col.title().len() + 2)
                        // An amount column never needs more (longer text is cut with a marker).
                        .min(MAX_AMOUNT_COL);
                    let w = u16::try_from(w).unwrap_or(u16::MAX);
                    self.table.columns_mut().set_width(col, Width::Fixed(w));
                }
                (lines, [u[n].clone(), l[n].clone(), t[n].clone()])
            }
            None => (Vec::new(), Default::default()),
        };
        self.lines = lines;
        self.totals = totals;
        self.table.set_rows(&self.lines);
        if let Some(p) = selected {
            self.table.select_where(&self.lines, |l| l.party == p);
        }
    }

    fn form_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        let f = &mut self.form;
        if key.code != KeyCode::Tab && key.code != KeyCode::BackTab {
            f.completer.reset();
        }
        match key.code {
            KeyCode::Esc => {
                self.form_open = false;
                return;
            }
            KeyCode::Enter => {
                self.submit(sh, out);
                return;
            }
            KeyCode::Up => {
                f.field = f.field.step_clamped(false);
                f.note = None;
                return;
            }
            KeyCode::Down => {
                f.field = f.field.step_clamped(true);
                f.note = None;
                return;
            }
            KeyCode::Tab | KeyCode::BackTab if f.field == Field::Owners => {
                let forward = key.code == KeyCode::Tab;
                let parties = sh.history.parties();
                f.note = f.completer.complete(&mut f.owners, &parties, forward).err();
                return;
            }
            KeyCode::Tab => {
                f.field = f.field.step(true);
                f.note = None;
                return;
            }
            KeyCode::BackTab => {
                f.field = f.field.step(false);
                f.note = None;
                return;
            }
            _ => {}
        }
        if f.field == Field::Match {
            if matches!(
                key.code,
                KeyCode::Left | KeyCode::Right | KeyCode::Char(' ' | 'h' | 'l' | 'e' | 'a')
            ) {
                f.exact = match key.code {
                    KeyCode::Char('e') => true,
                    KeyCode::Char('a') => false,
                    _ => !f.exact,
                };
            }
            return;
        }
        let field = f.field;
        if let Some(input) = f.input_mut(field) {
            match input.handle_key(key) {
                InputOutcome::Submitted(_) => self.submit(sh, out),
                InputOutcome::Cancelled => self.form_open = false,
                InputOutcome::Changed => self.form.note = None,
                InputOutcome::Consumed | InputOutcome::Ignored => {}
            }
        }
    }

    // --- drawing ---------------------------------------------------------------------------

    fn title_line(&self, theme: &Theme) -> Line<'static> {
        let mut spans = vec![Span::styled("Holdings", theme.title)];
        if let Some(r) = &self.result {
            let n = r.rows.len();
            spans.push(Span::styled(
                format!(" · {n} {}", if n == 1 { "party" } else { "parties" }),
                theme.muted,
            ));
        }
        if self.pending.is_some() {
            spans.push(Span::styled(" · querying…", theme.status_warn));
        } else if self.error.is_some() {
            spans.push(Span::styled(" · error", theme.status_err));
        }
        Line::from(spans)
    }

    fn render_body(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, focused: bool) {
        let width = usize::from(area.width);
        let mut y = area.y;
        let bottom = area.bottom();
        if let Some(err) = &self.error {
            for line in wrap_text(&sanitize(err), width).into_iter().take(3) {
                if y >= bottom {
                    return;
                }
                buf.set_stringn(area.x, y, &line, width, theme.status_err);
                y += 1;
            }
        }
        let Some(r) = &self.result else {
            if y >= bottom {
                return;
            }
            let (text, style) = if self.pending.is_some() {
                (
                    format!("querying {HOLDINGS_ENDPOINT} on the scan…"),
                    theme.muted,
                )
            } else if self.error.is_some() {
                (
                    "Press i (edit) to change the query, r (refresh) to run it again.".to_string(),
                    theme.muted,
                )
            } else {
                (EMPTY_TEXT.to_string(), theme.muted)
            };
            for line in wrap_text(&text, width) {
                if y >= bottom {
                    break;
                }
                buf.set_stringn(area.x, y, &line, width, style);
                y += 1;
            }
            let parties = sh.history.parties().len();
            if y + 1 < bottom && self.pending.is_none() {
                let note = format!("{parties} parties seen in the loaded history to complete from");
                buf.set_stringn(area.x, y + 1, &note, width, theme.muted);
            }
            return;
        };
        // Query line.
        if y < bottom {
            let asked = match &r.asked {
                TimeSpec::Now => " (asked: now)",
                TimeSpec::At(_) => "",
            };
            let line = Line::from(vec![
                Span::styled("migration ", theme.muted),
                Span::styled(r.migration_id.to_string(), theme.accent),
                Span::styled(
                    if r.exact {
                        " · exact "
                    } else {
                        " · at or before "
                    },
                    theme.muted,
                ),
                Span::styled(safe_line(&r.record_time, 40).into_owned(), theme.time),
                Span::styled(asked, theme.muted),
            ]);
            buf.set_line(area.x, y, &line, area.width);
            y += 1;
        }
        let footer_h: u16 = 2 + u16::from(!r.missing.is_empty());
        let table_h = bottom.saturating_sub(y);
        if table_h < 2 {
            return;
        }
        let draw = Draw::new(&(), theme, focused);
        if r.rows.is_empty() {
            let header = Rect::new(area.x, y, area.width, 1);
            self.table
                .columns()
                .render_header::<HoldingLine>(header, buf, &draw);
            y += 1;
            if y < bottom {
                buf.set_stringn(
                    area.x,
                    y,
                    "no holdings: none of the owners has active amulets at this snapshot",
                    width,
                    theme.muted,
                );
            }
            y += 1;
            self.render_missing(
                r,
                Rect::new(area.x, y, area.width, bottom.saturating_sub(y)),
                buf,
                theme,
            );
            return;
        }
        // Below the header: the rows, then the totals when there is room.
        let room = bottom.saturating_sub(y + 1);
        let (rows_h, show_footer) = if room > footer_h + 1 {
            (room - footer_h, true)
        } else {
            (room, false)
        };
        let table = Rect::new(area.x, y, area.width, rows_h + 1);
        self.table.render(table, buf, &self.lines, &draw);
        if !show_footer {
            return;
        }
        let fy = y + 1 + rows_h;
        buf.set_stringn(area.x, fy, "─".repeat(width), width, theme.border);
        let ty = fy + 1;
        let bold = theme.accent.add_modifier(Modifier::BOLD);
        for p in self.table.columns().layout(area.width) {
            let x = area.x + p.x;
            match p.id {
                HoldCol::Party => {
                    let n = r.rows.len();
                    let label = format!("Total ({n} {})", if n == 1 { "party" } else { "parties" });
                    put(buf, x, ty, &label, p.width, Align::Left, bold);
                }
                col => {
                    let k = amount_index(col);
                    let style = if r.totals[k].is_some() {
                        bold
                    } else {
                        theme.status_warn
                    };
                    put(buf, x, ty, &self.totals[k], p.width, Align::Right, style);
                }
            }
        }
        self.render_missing(
            r,
            Rect::new(area.x, ty + 1, area.width, bottom.saturating_sub(ty + 1)),
            buf,
            theme,
        );
    }

    fn render_missing(&self, r: &HoldingsResult, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if r.missing.is_empty() || area.height == 0 || area.width == 0 {
            return;
        }
        let list = r
            .missing
            .iter()
            .map(|m| sanitize(m).into_owned())
            .collect::<Vec<_>>()
            .join(", ");
        let text = format!("no holdings reported for: {list}");
        buf.set_stringn(
            area.x,
            area.y,
            safe_line(&text, usize::from(area.width)),
            usize::from(area.width),
            theme.muted,
        );
    }

    /// Amount strings per amount column (unlocked, locked, total): one per row (in
    /// `result.rows` order) then the total.
    fn formatted(&self, r: &HoldingsResult) -> [Vec<String>; 3] {
        let col = |k: usize| {
            let mut values: Vec<Option<Amount>> = r
                .rows
                .iter()
                .map(|row| match k {
                    0 => row.unlocked.value,
                    1 => row.locked.value,
                    _ => row.total.value,
                })
                .collect();
            values.push(r.totals[k]);
            let mut raws: Vec<&str> = r
                .rows
                .iter()
                .map(|row| match k {
                    0 => row.unlocked.raw.as_str(),
                    1 => row.locked.raw.as_str(),
                    _ => row.total.raw.as_str(),
                })
                .collect();
            raws.push("?");
            aligned_amounts(&values, &raws)
        };
        [col(0), col(1), col(2)]
    }

    fn render_form(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme) {
        let f = &self.form;
        let completing = f.completer.candidates().is_some();
        let height = 2 + 4 + 1 + 1 + u16::from(completing) + 1;
        let rect = centered(area, area.width.min(100), height);
        if rect.width < 3 || rect.height < 3 {
            return;
        }
        Clear.render(rect, buf);
        let block = Block::bordered()
            .border_style(theme.border_focused)
            .style(theme.overlay)
            .title(Span::styled(" Holdings query ", theme.title));
        let inner = block.inner(rect);
        block.render(rect, buf);
        let label_w: u16 = 10;
        let bottom = inner.bottom();
        let mut y = inner.y;
        for field in Field::ALL {
            if y >= bottom {
                return;
            }
            let focused = field == f.field;
            let label_style = if focused { theme.accent } else { theme.muted };
            buf.set_stringn(
                inner.x,
                y,
                field.label(),
                usize::from(label_w.min(inner.width)),
                label_style,
            );
            let vx = inner.x + label_w.min(inner.width);
            let vw = inner.width.saturating_sub(label_w);
            match f.input(field) {
                Some(input) => input.render(Rect::new(vx, y, vw, 1), buf, theme, focused),
                None => {
                    let opt = |on: bool, name: &str| {
                        Span::styled(
                            format!("({}) {name}  ", if on { "•" } else { " " }),
                            if on { theme.accent } else { theme.muted },
                        )
                    };
                    let line =
                        Line::from(vec![opt(!f.exact, "at_or_before"), opt(f.exact, "exact")]);
                    buf.set_line(vx, y, &line, vw);
                    if focused {
                        buf.set_style(Rect::new(vx, y, vw.min(34), 1), theme.selection);
                    }
                }
            }
            y += 1;
        }
        y += 1;
        // Help, note or validation for the focused field.
        if y < bottom {
            let validation = f.input(f.field).and_then(TextInput::validation);
            let (text, style) = if let Some(v) = validation {
                (v.to_string(), theme.status_err)
            } else if let Some(n) = &f.note {
                (n.clone(), theme.status_warn)
            } else {
                let help = match f.field {
                    Field::Owners => format!(
                        "Tab completes from the {} parties of the loaded history",
                        sh.history.parties().len()
                    ),
                    Field::Migration => match sh.history.last() {
                        Some(s) => format!(
                            "the current migration (newest loaded update) is {}",
                            s.migration_id
                        ),
                        None => "no history loaded: enter the migration id".to_string(),
                    },
                    Field::Time => {
                        "RFC 3339 (e.g. 2026-01-05T10:00:00Z) or now (read when the query runs)"
                            .to_string()
                    }
                    Field::Match => {
                        "at_or_before: newest snapshot at or before the time; exact: a snapshot time (space toggles)"
                            .to_string()
                    }
                };
                (help, theme.muted)
            };
            buf.set_stringn(
                inner.x,
                y,
                safe_line(&text, usize::from(inner.width)),
                usize::from(inner.width),
                style,
            );
            y += 1;
        }
        if completing && y < bottom {
            render_candidates(
                &f.completer,
                Rect::new(inner.x, y, inner.width, 1),
                buf,
                theme,
            );
            y += 1;
        }
        if y < bottom {
            buf.set_stringn(
                inner.x,
                y,
                "Enter run · Esc close · ↑/↓ field · Tab complete",
                usize::from(inner.width),
                theme.muted,
            );
        }
    }
}

fn amount_index(col: HoldCol) -> usize {
    match col {
        HoldCol::Unlocked => 0,
        HoldCol::Locked => 1,
        HoldCol::Party | HoldCol::Total => 2,
    }
}

impl Pane for HoldingsPane {
    fn scan_request(&self, sh: &Shared) -> Option<(Request, String)> {
        let q = self.query.as_ref()?;
        let label = format!("holdings summary of {} parties", q.owners.len());
        Some((Request::Holdings(q.request(sh.now)), label))
    }

    fn id(&self) -> PaneId {
        PaneId::Holdings
    }

    fn key_context(&self) -> KeyContext {
        if self.wants_raw_keys() {
            KeyContext::TextInput
        } else {
            KeyContext::List
        }
    }

    fn wants_raw_keys(&self) -> bool {
        self.form_open || self.table.is_filtering()
    }

    fn on_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        if self.form_open {
            self.form_key(key, sh, out);
        } else {
            self.table.on_key(key, &self.lines);
        }
    }

    fn on_paste(&mut self, text: &str, _sh: &mut Shared, _out: &mut Out) {
        if !self.form_open {
            self.table.on_paste(text, &self.lines);
            return;
        }
        let f = &mut self.form;
        let field = f.field;
        if let Some(input) = f.input_mut(field)
            && input.insert_str(text)
        {
            f.completer.reset();
            f.note = None;
        }
    }

    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        match cmd {
            Command::Edit => {
                self.open_form(sh);
                true
            }
            Command::Refresh => {
                match self.query.clone() {
                    Some(q) => self.run(q, sh, out),
                    None => out.info("no holdings query yet: press i to enter one"),
                }
                true
            }
            Command::Copy => {
                match self.selected_party().map(|p| sanitize(p).into_owned()) {
                    Some(p) => out.copy("party id", p),
                    None => out.info("nothing to copy: no holdings row selected"),
                }
                true
            }
            _ => {
                let used = self.table.on_command(cmd, &self.lines);
                if let Some((col, _)) = self.table.sort() {
                    self.sort_col = col;
                }
                used
            }
        }
    }

    fn on_fetched(&mut self, reply: &Fetched, _sh: &mut Shared, out: &mut Out) {
        let (id, result) = (reply.id, &reply.result);
        if self.pending != Some(id) {
            return;
        }
        self.pending = None;
        let exact = self.query.as_ref().is_some_and(|q| q.exact);
        match result {
            Ok(Response::Holdings(r)) => {
                let Some(q) = &self.query else {
                    return;
                };
                self.result = Some(HoldingsResult::new(q, r));
                self.error = None;
                self.resort();
            }
            Ok(_) => {
                self.error = Some("unexpected answer to the holdings query".into());
            }
            Err(e) => {
                let msg = explain_error(e, exact);
                out.error(format!("holdings: {msg}"));
                self.error = Some(msg);
            }
        }
    }

    fn set_area(&mut self, area: Rect) {
        // Borders, the query line, the header and the totals footer.
        self.table
            .set_viewport(usize::from(area.height.saturating_sub(6)).max(1));
    }

    fn render(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, focused: bool) {
        let title = self.title_line(theme);
        if let Some(inner) = framed(area, buf, title, theme.border_style(focused)) {
            self.render_body(inner, buf, sh, theme, focused);
        }
        if self.form_open && area.width > 0 && area.height > 0 {
            self.render_form(area, buf, sh, theme);
        }
    }

    fn hints(&self) -> Vec<Command> {
        if self.form_open {
            return vec![Command::Confirm, Command::Cancel, Command::Complete];
        }
        if self.table.is_filtering() {
            return vec![Command::Confirm, Command::Cancel];
        }
        let mut v = vec![Command::Edit];
        if self.result.is_some() {
            v.extend([Command::Sort, Command::SortReverse, Command::Copy]);
        }
        if self.query.is_some() {
            v.push(Command::Refresh);
        }
        v
    }

    fn badge(&self, _sh: &Shared) -> Option<String> {
        if self.pending.is_some() {
            Some("…".into())
        } else if self.error.is_some() {
            Some("!".into())
        } else {
            self.result.as_ref().map(|r| r.rows.len().to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_parse_sum_and_format_exactly() {
        let a = Amount::parse("1234567.1234567891").expect("a");
        let b = Amount::parse("0.0000000009").expect("b");
        let s = a.checked_add(b).expect("sum");
        assert_eq!(s.plain(), "1234567.12345679");
        assert_eq!(s.parts(), ("1,234,567".into(), "12345679".into()));
        assert_eq!(
            Amount::parse("-0.5").expect("neg").parts(),
            ("-0".into(), "5".into())
        );
        assert_eq!(Amount::parse("10").expect("int").plain(), "10");
        assert_eq!(Amount::parse(".5").expect("frac").plain(), "0.5");
        for bad in ["", "1e5", "abc", "1.2.3", "-", "NaN", "1,000"] {
            assert_eq!(Amount::parse(bad), None, "{bad:?}");
        }
        // 0.1 + 0.2 is 0.3 exactly (no floats).
        let x = Amount::parse("0.1")
            .and_then(|x| x.checked_add(Amount::parse("0.2")?))
            .expect("sum");
        assert_eq!(x.plain(), "0.3");
        assert!(Amount::parse("2").expect("2") > Amount::parse("1.9999999999").expect("1.99"));
        let big = Amount::parse(&"9".repeat(38)).expect("big");
        assert_eq!(big.checked_add(big), None);
    }

    #[test]
    fn aligned_amounts_line_up_decimal_points() {
        let vals: Vec<Option<Amount>> = ["1.5", "100", "2.25"]
            .iter()
            .map(|s| Amount::parse(s))
            .collect();
        let out = aligned_amounts(&vals, &["1.5", "100", "2.25"]);
        assert_eq!(out, vec!["1.5 ", "100   ", "2.25"]);
        let out = aligned_amounts(&[None], &["x\u{1b}[31m"]);
        assert!(!out[0].contains('\u{1b}'));
    }

    #[test]
    fn ids_split_and_complete() {
        assert_eq!(
            split_ids(" a::1, b::2;a::1\tc::3 "),
            vec!["a::1", "b::2", "c::3"]
        );
        let mut input = TextInput::single_line().with_text("alice::1 b");
        let mut c = Completer::default();
        let pool = ["bob::2", "alice::1", "bert::3", "carol::4"];
        c.complete(&mut input, &pool, true).expect("completes");
        assert_eq!(input.text(), "alice::1 bert::3");
        c.complete(&mut input, &pool, true).expect("cycles");
        assert_eq!(input.text(), "alice::1 bob::2");
        c.complete(&mut input, &pool, false).expect("cycles back");
        assert_eq!(input.text(), "alice::1 bert::3");
        // Substring fallback, and already-listed ids are not offered.
        let mut input = TextInput::single_line().with_text("alice::1 ::4");
        let mut c = Completer::default();
        c.complete(&mut input, &pool, true).expect("substring");
        assert_eq!(input.text(), "alice::1 carol::4");
        let mut input = TextInput::single_line().with_text("zz");
        assert!(c.complete(&mut input, &pool, true).is_err());
    }
}
