//! The Validators pane (6): faucet liveness of validators from
//! `GET /v0/validators/validator-faucets`.
//!
//! ```text
//! ┌Validators · 12 validators · 1 not onboarded──────────────────────────────┐
//! │liveness = collected / (last − first + 1) · from on-ledger state at request│
//! │Validator              Collected Missed  First   Last Liveness ▲           │
//! │val-3::1220…                  40      8     10     57 ████████░░  83.3%    │  missed rounds
//! │val-1::1220…                  48      0     10     57 ██████████ 100.0%    │  in warn / err
//! │bogus::1220…           not an onboarded validator (the scan ignored it)    │
//! └───────────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! `i` opens the id form; opened with an empty list it is pre-filled with every validator seen
//! in the loaded history (observers of `ValidatorLicense` contracts), so one Enter shows them
//! all. Tab completes from the same list.

use std::borrow::Cow;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Widget};
use unicode_width::UnicodeWidthStr;

use crate::api::ApiError;
use crate::api::scan::{ValidatorFaucets, ValidatorReceivedFaucets};
use crate::config::keymap::KeyContext;
use crate::msg::Command;
use crate::msg::{Effect, Fetched, Request, RequestId, Response};
use crate::panes::{Out, Pane, PaneId, Shared};
use crate::ui::form::{
    Completer, explain_scan, looks_like_party, render_candidates, render_id_list, split_ids,
};
use crate::ui::layout::{centered, framed, wrap_text};
use crate::ui::load::accept;
use crate::ui::safe::{safe_line, sanitize};
use crate::ui::table::{Cell, Column, Columns, DataTable, Draw, SortKey, TableRow, Width};
use crate::ui::text_input::{InputOutcome, TextInput};
use crate::ui::theme::Theme;

/// The endpoint, as named in messages.
pub const FAUCETS_ENDPOINT: &str = "/v0/validators/validator-faucets";

/// What an id the scan ignored is labelled.
pub const NOT_ONBOARDED: &str = "not an onboarded validator (ignored by the scan)";

/// The empty state.
pub const EMPTY_TEXT: &str = "No validators queried yet. Press i (edit): the form comes filled \
     with every validator seen in the loaded history (from ValidatorLicense contracts), so Enter \
     shows them all; edit the list to pick some. Tab completes.";

/// Liveness at or above this share (with some missed rounds) is a warning, below it an error.
pub const LIVENESS_WARN: f64 = 0.9;

/// One row: statistics, or an id the scan ignored.
#[derive(Debug, Clone, PartialEq)]
pub enum ValidatorRow {
    Stats(ValidatorReceivedFaucets),
    NotOnboarded(String),
}

impl ValidatorRow {
    /// The validator party id.
    pub fn id(&self) -> &str {
        match self {
            ValidatorRow::Stats(s) => &s.validator,
            ValidatorRow::NotOnboarded(id) => id,
        }
    }
}

/// `collected / (last − first + 1)`, in 0..=1; `None` when the round range is empty.
pub fn liveness(s: &ValidatorReceivedFaucets) -> Option<f64> {
    let span = s
        .last_collected_in_round
        .checked_sub(s.first_collected_in_round)?
        .checked_add(1)?;
    if span <= 0 {
        return None;
    }
    Some((s.num_rounds_collected as f64 / span as f64).clamp(0.0, 1.0))
}

/// A bar of `width` cells for a share in 0..=1 (`█` filled, `░` empty).
pub fn liveness_bar(share: f64, width: usize) -> String {
    let filled = ((share.clamp(0.0, 1.0) * width as f64).round() as usize).min(width);
    format!("{}{}", "█".repeat(filled), "░".repeat(width - filled))
}

/// A table column (also the sort key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValCol {
    Validator,
    Collected,
    Missed,
    First,
    Last,
    #[default]
    Liveness,
}

impl ValCol {
    /// The header title.
    pub fn title(self) -> &'static str {
        match self {
            ValCol::Validator => "Validator",
            ValCol::Collected => "Collected",
            ValCol::Missed => "Missed",
            ValCol::First => "First",
            ValCol::Last => "Last",
            ValCol::Liveness => "Liveness",
        }
    }

    /// The table's columns: the first round goes first when space is short, then the
    /// collected and last rounds, while the bar narrows below 71 columns. Sorting starts worst
    /// first (fewest collected, most missed, lowest liveness), names ascending.
    fn columns() -> Columns<ValCol> {
        let col = |id: ValCol, width| Column::new(id, id.title(), Width::Fixed(width)).right();
        Columns::new(vec![
            Column::new(ValCol::Validator, "Validator", Width::fill(16)),
            col(ValCol::Collected, 11).priority(5),
            col(ValCol::Missed, 8).priority(8).descending_first(),
            col(ValCol::First, 7).priority(4),
            col(ValCol::Last, 7).priority(6).descending_first(),
            Column::new(
                ValCol::Liveness,
                "Liveness",
                Width::Wide {
                    narrow: 10,
                    wide: 17,
                    from: 71,
                },
            )
            .priority(9),
        ])
        .sorted_by(ValCol::Liveness, false)
    }
}

impl TableRow for ValidatorRow {
    type Col = ValCol;
    type Ctx = ();

    fn cell(&self, col: ValCol, width: u16, _: &(), theme: &Theme) -> Cell<'_> {
        let s = match (self, col) {
            (_, ValCol::Validator) => {
                let style = if matches!(self, ValidatorRow::Stats(_)) {
                    theme.party
                } else {
                    theme.muted
                };
                return Cell::new(self.id(), style);
            }
            (ValidatorRow::NotOnboarded(_), _) => {
                return Cell::Rest(NOT_ONBOARDED.into(), theme.status_warn);
            }
            (ValidatorRow::Stats(s), _) => s,
        };
        let share = liveness(s);
        let bad = match share {
            _ if s.num_rounds_missed <= 0 => Style::default(),
            Some(v) if v >= LIVENESS_WARN => theme.status_warn,
            _ => theme.status_err,
        };
        match col {
            ValCol::Collected => Cell::new(s.num_rounds_collected.to_string(), Style::default()),
            ValCol::Missed => Cell::new(s.num_rounds_missed.to_string(), bad),
            ValCol::First => Cell::new(s.first_collected_in_round.to_string(), theme.muted),
            ValCol::Last => Cell::new(s.last_collected_in_round.to_string(), theme.muted),
            ValCol::Liveness | ValCol::Validator => {
                // A bar, then the percentage right-aligned in what is left.
                let pct = share.map_or_else(|| "-".to_string(), |v| format!("{:.1}%", v * 100.0));
                let (pct_style, bar_style) = if bad == Style::default() {
                    (theme.muted, theme.gauge)
                } else {
                    (bad, bad)
                };
                let w = usize::from(width);
                let bar_w = w.saturating_sub(7);
                let mut spans = Vec::with_capacity(3);
                let mut rest = w;
                if bar_w >= 4 {
                    spans.push(Span::styled(
                        liveness_bar(share.unwrap_or(0.0), bar_w),
                        bar_style,
                    ));
                    rest -= bar_w;
                }
                spans.push(Span::raw(" ".repeat(rest.saturating_sub(pct.width()))));
                spans.push(Span::styled(pct, pct_style));
                Cell::Spans(spans)
            }
        }
    }

    fn sort_key(&self, col: ValCol) -> SortKey<'_> {
        let ValidatorRow::Stats(s) = self else {
            return match col {
                ValCol::Validator => SortKey::Text(Cow::Borrowed(self.id())),
                _ => SortKey::Missing,
            };
        };
        match col {
            ValCol::Validator => SortKey::Text(Cow::Borrowed(&s.validator)),
            ValCol::Collected => SortKey::Int(s.num_rounds_collected.into()),
            ValCol::Missed => SortKey::Int(s.num_rounds_missed.into()),
            ValCol::First => SortKey::Int(s.first_collected_in_round.into()),
            ValCol::Last => SortKey::Int(s.last_collected_in_round.into()),
            ValCol::Liveness => SortKey::Float(liveness(s).unwrap_or(0.0)),
        }
    }

    /// Ids the scan ignored always come last.
    fn sort_group(&self) -> u8 {
        u8::from(matches!(self, ValidatorRow::NotOnboarded(_)))
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.id())
    }
}

/// Explains a failed faucet query in one line (server text sanitised).
pub fn explain_error(e: &ApiError) -> String {
    let not_served = |version: Option<&str>| {
        let base = format!("this scan does not serve {FAUCETS_ENDPOINT}");
        match version {
            Some(v) => format!("{base} (it runs {v})"),
            None => base,
        }
    };
    explain_scan(e, not_served, |m| format!("not found (HTTP 404): {m}"))
}

/// The Validators pane.
#[derive(Debug)]
pub struct ValidatorsPane {
    pub input: TextInput,
    pub completer: Completer,
    /// Completion feedback.
    pub note: Option<String>,
    pub form_open: bool,
    pending: Option<RequestId>,
    /// The ids of the last query (Refresh sends them again).
    pub query: Option<Vec<String>>,
    pub rows: Vec<ValidatorRow>,
    /// Whether an answer arrived (the table, possibly empty, is shown).
    pub loaded: bool,
    pub error: Option<String>,
    /// The column the table is sorted by.
    pub sort_col: ValCol,
    table: DataTable<ValCol>,
}

impl ValidatorsPane {
    /// A new pane.
    pub fn new(_sh: &Shared) -> Self {
        ValidatorsPane {
            input: TextInput::single_line()
                .with_placeholder("validator party ids, separated by spaces (Tab completes)"),
            completer: Completer::default(),
            note: None,
            form_open: false,
            pending: None,
            query: None,
            rows: Vec::new(),
            loaded: false,
            error: None,
            sort_col: ValCol::default(),
            table: DataTable::new(ValCol::columns()),
        }
    }

    /// Whether a query is in flight.
    pub fn is_loading(&self) -> bool {
        self.pending.is_some()
    }

    /// The validator ids in display order (the ones the `/` filter lets through).
    pub fn ordered_ids(&self) -> Vec<&str> {
        self.table
            .ordered(&self.rows)
            .map(ValidatorRow::id)
            .collect()
    }

    /// The selected row's validator id.
    pub fn selected_id(&self) -> Option<&str> {
        self.table.selected_row(&self.rows).map(ValidatorRow::id)
    }

    /// The applied `/` filter.
    pub fn filter_text(&self) -> Option<&str> {
        self.table.filter_text()
    }

    /// Whether the `/` filter input is open (it has every key).
    pub fn is_filtering(&self) -> bool {
        self.table.is_filtering()
    }

    /// Onboarded validators in the answer.
    pub fn onboarded(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| matches!(r, ValidatorRow::Stats(_)))
            .count()
    }

    /// Opens the form; an empty list is pre-filled with the validators of the loaded history.
    pub fn open_form(&mut self, sh: &Shared) {
        if split_ids(&self.input.text()).is_empty() {
            let mut known: Vec<&str> = sh.history.validators();
            known.sort_unstable();
            if known.is_empty() {
                self.input.clear();
                self.note = Some(
                    "no ValidatorLicense seen in the loaded history: enter validator party ids"
                        .into(),
                );
            } else {
                self.input.set_text(&known.join(" "));
                self.note = Some(format!(
                    "pre-filled with the {} validators seen in the loaded history",
                    known.len()
                ));
            }
        } else {
            self.note = None;
        }
        self.input.set_validation(None);
        self.completer.reset();
        self.form_open = true;
    }

    /// Queries these ids (replacing any query in flight).
    pub fn run(&mut self, ids: Vec<String>, sh: &mut Shared, out: &mut Out) {
        if let Some(old) = self.pending.take() {
            out.effects.push(Effect::Cancel(old));
        }
        self.pending = Some(out.fetch(
            sh,
            Request::ValidatorFaucets {
                validator_ids: ids.clone(),
            },
        ));
        self.query = Some(ids);
        self.error = None;
    }

    fn submit(&mut self, sh: &mut Shared, out: &mut Out) {
        let ids = split_ids(&self.input.text());
        let err = if ids.is_empty() {
            Some("enter at least one validator party id (the scan needs at least one)".to_string())
        } else {
            ids.iter().find(|i| !looks_like_party(i)).map(|bad| {
                format!(
                    "not a party id: {} (expected hint::fingerprint)",
                    safe_line(bad, 40)
                )
            })
        };
        match err {
            Some(e) => {
                self.input.set_validation(Some(e));
                out.warn("the query is not complete: see the form");
            }
            None => {
                self.form_open = false;
                self.run(ids, sh, out);
            }
        }
    }

    fn apply(&mut self, asked: &[String], answer: &ValidatorFaucets) {
        let mut rows: Vec<ValidatorRow> = answer
            .validators_received_faucets
            .iter()
            .cloned()
            .map(ValidatorRow::Stats)
            .collect();
        for id in asked {
            if !rows.iter().any(|r| r.id() == id) {
                rows.push(ValidatorRow::NotOnboarded(id.clone()));
            }
        }
        // The selection stays on its validator.
        let selected = self.selected_id().map(str::to_string);
        self.rows = rows;
        self.loaded = true;
        self.table.set_rows(&self.rows);
        if let Some(s) = selected {
            self.table.select_where(&self.rows, |r| r.id() == s);
        }
    }

    fn form_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        if key.code != KeyCode::Tab && key.code != KeyCode::BackTab {
            self.completer.reset();
        }
        match key.code {
            KeyCode::Esc => self.form_open = false,
            KeyCode::Enter => self.submit(sh, out),
            KeyCode::Tab | KeyCode::BackTab => {
                let known = sh.history.validators();
                self.note = self
                    .completer
                    .complete(&mut self.input, &known, key.code == KeyCode::Tab)
                    .err();
            }
            _ => match self.input.handle_key(key) {
                InputOutcome::Submitted(_) => self.submit(sh, out),
                InputOutcome::Cancelled => self.form_open = false,
                InputOutcome::Changed => self.note = None,
                InputOutcome::Consumed | InputOutcome::Ignored => {}
            },
        }
    }

    // --- drawing ---------------------------------------------------------------------------

    fn title_line(&self, theme: &Theme) -> Line<'static> {
        let mut spans = vec![Span::styled("Validators", theme.title)];
        if self.loaded {
            let n = self.onboarded();
            spans.push(Span::styled(
                format!(" · {n} {}", if n == 1 { "validator" } else { "validators" }),
                theme.muted,
            ));
            let ignored = self.rows.len() - n;
            if ignored > 0 {
                spans.push(Span::styled(
                    format!(" · {ignored} not onboarded"),
                    theme.status_warn,
                ));
            }
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
        let bottom = area.bottom();
        let mut y = area.y;
        if let Some(err) = &self.error {
            for line in wrap_text(&sanitize(err), width).into_iter().take(3) {
                if y >= bottom {
                    return;
                }
                buf.set_stringn(area.x, y, &line, width, theme.status_err);
                y += 1;
            }
        }
        if !self.loaded {
            let text = if self.pending.is_some() {
                format!("querying {FAUCETS_ENDPOINT} on the scan…")
            } else if self.error.is_some() {
                "Press i (edit) to change the ids, r (refresh) to run the query again.".into()
            } else {
                EMPTY_TEXT.to_string()
            };
            for line in wrap_text(&text, width) {
                if y >= bottom {
                    return;
                }
                buf.set_stringn(area.x, y, &line, width, theme.muted);
                y += 1;
            }
            if y + 1 < bottom && self.pending.is_none() {
                let n = sh.history.validators().len();
                let note = format!("{n} validators seen in the loaded history");
                buf.set_stringn(area.x, y + 1, &note, width, theme.muted);
            }
            return;
        }
        if y < bottom {
            buf.set_stringn(
                area.x,
                y,
                "liveness = collected / (last − first + 1) · on-ledger state at request time",
                width,
                theme.muted,
            );
            y += 1;
        }
        if y >= bottom {
            return;
        }
        let table = Rect::new(area.x, y, area.width, bottom - y);
        let draw = Draw::new(&(), theme, focused);
        self.table.render(table, buf, &self.rows, &draw);
        if self.rows.is_empty() && y + 1 < bottom {
            let text = "no validators in the answer";
            buf.set_stringn(area.x, y + 1, text, width, theme.muted);
        }
    }

    fn render_form(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme) {
        let completing = self.completer.candidates().is_some();
        // A list of ids shows as a count and the ids in columns (up to 6 rows), not as one
        // line thousands of characters long.
        let ids = split_ids(&self.input.text());
        let list_h: u16 = if ids.len() > 1 {
            7.min(area.height / 3)
        } else {
            0
        };
        let height = 2 + 1 + list_h + 1 + u16::from(completing) + 1;
        let rect = centered(area, area.width.min(100), height);
        if rect.width < 3 || rect.height < 3 {
            return;
        }
        Clear.render(rect, buf);
        let block = Block::bordered()
            .border_style(theme.border_focused)
            .style(theme.overlay)
            .title(Span::styled(" Validator faucets ", theme.title));
        let inner = block.inner(rect);
        block.render(rect, buf);
        let bottom = inner.bottom();
        let mut y = inner.y;
        if y >= bottom {
            return;
        }
        let label_w: u16 = 4.min(inner.width);
        buf.set_stringn(inner.x, y, "Ids", usize::from(label_w), theme.accent);
        self.input.render(
            Rect::new(inner.x + label_w, y, inner.width - label_w, 1),
            buf,
            theme,
            true,
        );
        y += 1;
        if list_h > 0 && y < bottom {
            let rect = Rect::new(inner.x, y, inner.width, list_h.min(bottom - y));
            y += render_id_list(&ids, ("validator", "validators"), rect, buf, theme);
        }
        if y < bottom {
            let (text, style) = if let Some(v) = self.input.validation() {
                (v.to_string(), theme.status_err)
            } else if let Some(n) = &self.note {
                (n.clone(), theme.muted)
            } else {
                (
                    format!(
                        "Tab completes from the {} validators of the loaded history",
                        sh.history.validators().len()
                    ),
                    theme.muted,
                )
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
                &self.completer,
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
                "Enter run · Esc close · Tab complete",
                usize::from(inner.width),
                theme.muted,
            );
        }
    }
}

impl Pane for ValidatorsPane {
    fn scan_request(&self, _sh: &Shared) -> Option<(Request, String)> {
        let ids = self.query.clone()?;
        let label = format!("validator faucets of {} validators", ids.len());
        Some((Request::ValidatorFaucets { validator_ids: ids }, label))
    }

    fn id(&self) -> PaneId {
        PaneId::Validators
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
            self.table.on_key(key, &self.rows);
        }
    }

    fn on_paste(&mut self, text: &str, _sh: &mut Shared, _out: &mut Out) {
        if self.form_open {
            if self.input.insert_str(text) {
                self.completer.reset();
                self.note = None;
            }
        } else {
            self.table.on_paste(text, &self.rows);
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
                    Some(ids) => self.run(ids, sh, out),
                    None => out.info("no validator query yet: press i to enter one"),
                }
                true
            }
            Command::Copy => {
                match self.selected_id().map(|p| sanitize(p).into_owned()) {
                    Some(p) => out.copy("validator party id", p),
                    None => out.info("nothing to copy: no validator selected"),
                }
                true
            }
            _ => {
                let used = self.table.on_command(cmd, &self.rows);
                if let Some((col, _)) = self.table.sort() {
                    self.sort_col = col;
                }
                used
            }
        }
    }

    fn on_fetched(&mut self, reply: &Fetched, _sh: &mut Shared, out: &mut Out) {
        let answer = accept(&mut self.pending, reply, "the faucet query", |r| match r {
            Response::ValidatorFaucets(r) => Some(r),
            _ => None,
        });
        match answer {
            None => {}
            Some(Ok(r)) => {
                let asked = self.query.clone().unwrap_or_default();
                self.apply(&asked, r);
                self.error = None;
            }
            Some(Err(failure)) => {
                let msg = failure.text(explain_error);
                out.error(format!("validators: {msg}"));
                self.error = Some(msg);
            }
        }
    }

    fn set_area(&mut self, area: Rect) {
        // Borders, the explanation line and the header.
        self.table
            .set_viewport(usize::from(area.height.saturating_sub(4)).max(1));
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
        if self.loaded {
            v.extend([Command::Sort, Command::SortReverse, Command::Copy]);
        }
        if self.query.is_some() {
            v.push(Command::Refresh);
        }
        v
    }

    fn tab_count(&self, _sh: &Shared) -> Option<usize> {
        self.loaded.then_some(self.rows.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(first: i64, last: i64, collected: i64, missed: i64) -> ValidatorReceivedFaucets {
        ValidatorReceivedFaucets {
            validator: "v::1".into(),
            num_rounds_collected: collected,
            num_rounds_missed: missed,
            first_collected_in_round: first,
            last_collected_in_round: last,
            ..ValidatorReceivedFaucets::default()
        }
    }

    #[test]
    fn liveness_is_collected_over_the_round_range() {
        assert_eq!(liveness(&stats(10, 19, 10, 0)), Some(1.0));
        assert_eq!(liveness(&stats(10, 19, 5, 5)), Some(0.5));
        assert_eq!(liveness(&stats(7, 7, 1, 0)), Some(1.0));
        assert_eq!(liveness(&stats(9, 7, 1, 0)), None);
        assert_eq!(liveness(&stats(i64::MIN, i64::MAX, 1, 0)), None);
        assert_eq!(liveness_bar(0.5, 10), "█████░░░░░");
        assert_eq!(liveness_bar(2.0, 4), "████");
    }
}
