//! The Holdings pane (5): amulet holdings per owner party from `POST /v1/holdings/summary`.
//!
//! ```text
//! ┌Holdings · 3 parties─────────────────────────────────────────────┐
//! │migration 1 · at_or_before 2026-01-05T10:00:00Z (asked: now)     │  query line
//! │Party                      Unlocked       Locked        Total ▼  │  header (sort mark)
//! │alice::1220…                1,200.50        10.00     1,210.50  │  rows (right-aligned,
//! │…                                                                │  same decimals, exact)
//! │─────────────────────────────────────────────────────────────────│
//! │Total (3 parties)        …                                       │  exact sums
//! │no holdings reported for: bob::1220…                             │  owners not returned
//! └─────────────────────────────────────────────────────────────────┘
//!        ┌ Holdings query ───────────────────┐   `i` opens the form (a dialog over the
//!        │Owners    █                        │   table): owners (a list: Tab completes from
//!        │Migration 1                        │   the parties of the loaded history),
//!        │Time      now                      │   migration (default: the newest loaded
//!        │Match     (•) at_or_before ( ) exact│   update's), record time (default now) and
//!        │3 owners: alice, bob, carol        │   match mode.
//!        └───────────────────────────────────┘
//! ```
//!
//! On first show the pane queries at once the parties of the update selected in History; with
//! nothing selected it explains how to start.
//!
//! Amounts are exact ([`Amount`]) and every amount column shows the same number of decimals,
//! right-aligned, so the decimal points line up over the rows and the total.

mod query;
mod render;
mod result;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;

use crate::api::{ApiCall, scan};
use crate::msg::{Effect, Fetched, Request, RequestId, Response};
use crate::panes::form::{Dialog, Parts, QueryPane, QueryState, queries_on_show};
use crate::panes::{Out, PaneId, RenderCtx, Shared};
use crate::ui::form::looks_like_party;
use crate::ui::load::accept;
use crate::ui::safe::safe_line;
use crate::ui::table::DataTable;
use crate::ui::theme::Theme;

pub use query::{Field, HoldingsForm, HoldingsQuery, TimeSpec, parse_time_spec};
pub use result::{HoldCol, HoldingRow, HoldingsResult, NO_HOLDINGS, explain_error};

use result::{HoldingLine, amount_index, formatted};

/// The endpoint, as named in messages.
pub const HOLDINGS_ENDPOINT: &str = "/v1/holdings/summary";

/// What the pane says when a scan does not know the endpoint (a 404 for the whole route).
pub const NOT_SERVED_TEXT: &str = "this scan does not serve /v1/holdings/summary (needs a Splice \
     version with the v1 holdings API: 0.6.3 or later)";

/// The empty state.
pub const EMPTY_TEXT: &str = "No holdings query yet. Press i (edit) to enter one or more owner \
     parties (Tab completes from the parties of the loaded history), a migration id (default: \
     the current one), a record time (default: now) and the match mode; Enter runs the query.";

/// What the pane says on first show when History has no update selected.
pub const NO_SELECTION_TEXT: &str = "No update is selected in History, so there are no parties \
     to query yet: select an update there and come back, or press i to enter owners.";

/// Widest an amount column gets (Daml numerics have at most 28 integer + 10 fraction digits).
const MAX_AMOUNT_COL: u16 = 48;

// ---------------------------------------------------------------------------------------------
// The pane
// ---------------------------------------------------------------------------------------------

/// The Holdings pane.
#[derive(Debug)]
pub struct HoldingsPane {
    pub form: HoldingsForm,
    pending: Option<RequestId>,
    /// The last query sent (Refresh runs it again).
    pub query: Option<HoldingsQuery>,
    pub result: Option<HoldingsResult>,
    /// Why the last query failed.
    pub error: Option<String>,
    /// The column the table is sorted by.
    pub sort_col: HoldCol,
    /// Whether the pane was shown once (the first show queries the selected update's parties).
    shown: bool,
    /// Why the first show did not query (nothing selected in History).
    pub start_note: Option<String>,
    /// The update whose parties the shown query asks for, while the query is the one the pane
    /// made from it (not one the user entered): showing the pane with another update in view
    /// queries that one's parties.
    pub from_update: Option<String>,
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
            pending: None,
            query: None,
            result: None,
            error: None,
            sort_col: HoldCol::Total,
            shown: false,
            start_note: None,
            from_update: None,
            lines: Vec::new(),
            totals: Default::default(),
            table: DataTable::new(HoldCol::columns()),
        }
    }

    /// Whether the form dialog is open (raw keys go to it).
    pub fn form_open(&self) -> bool {
        self.form.dialog.is_open()
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

    /// Queries the holdings of `party` now (a view locator names it); the first show then
    /// keeps this query.
    pub fn query_party(&mut self, party: &str, sh: &mut Shared, out: &mut Out) {
        self.shown = true;
        self.start_note = None;
        self.from_update = None;
        self.form.prefill(sh);
        self.form.set_owners(&[party.to_owned()]);
        if let Some(q) = self.form.validate(sh) {
            self.run(q, sh, out);
        }
    }

    /// First show: the parties of the update in view (open in Update when coming from there,
    /// else selected in History), queried at once (the form keeps them for editing); nothing
    /// selected: a note says how to start.
    fn start(&mut self, sh: &mut Shared, out: &mut Out) {
        let parties: Vec<String> = sh
            .selected_update
            .as_deref()
            .map(|u| sh.history.parties_of_update(u))
            .unwrap_or_default()
            .into_iter()
            .filter(|p| looks_like_party(p))
            .map(str::to_string)
            .collect();
        if parties.is_empty() {
            self.start_note = Some(NO_SELECTION_TEXT.to_string());
            return;
        }
        self.start_note = None;
        self.form.prefill(sh);
        self.form.set_owners(&parties);
        if let Some(q) = self.form.validate(sh) {
            let update = sh.selected_update.as_deref().unwrap_or("");
            self.from_update = Some(update.to_string());
            out.info(format!(
                "holdings of the {} parties of update {} (i edits the query)",
                parties.len(),
                safe_line(update, 16)
            ));
            self.run(q, sh, out);
        }
    }

    /// Rebuilds the table from the result: formats the amounts once (decimal points aligned
    /// over each column and its total), sizes the amount columns to them, and sorts, keeping
    /// the selected party selected.
    fn resort(&mut self) {
        let selected = self.selected_party().map(str::to_string);
        let (lines, totals) = match &self.result {
            Some(r) => {
                let [u, l, t] = formatted(r);
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
                        no_holdings: false,
                        filter: format!(
                            "{} {} {} {}",
                            row.party, row.unlocked.raw, row.locked.raw, row.total.raw
                        ),
                    })
                    .chain(r.missing.iter().map(|party| HoldingLine {
                        party: party.clone(),
                        amounts: Default::default(),
                        consistent: true,
                        no_holdings: true,
                        filter: format!("{party} {NO_HOLDINGS}"),
                    }))
                    .collect();
                let n = r.rows.len();
                let mut t_fit = t.clone();
                if !r.missing.is_empty() {
                    t_fit.push(NO_HOLDINGS.to_string());
                }
                for (col, texts) in [
                    (HoldCol::Unlocked, &u),
                    (HoldCol::Locked, &l),
                    (HoldCol::Total, &t_fit),
                ] {
                    self.table
                        .columns_mut()
                        .fit_width(col, texts, MAX_AMOUNT_COL);
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
}

impl QueryPane for HoldingsPane {
    type Row = HoldingLine;
    type Query = HoldingsQuery;
    const ID: PaneId = PaneId::Holdings;
    const COPIED: &'static str = "party id";
    const NOTHING_SELECTED: &'static str = "nothing to copy: no holdings row selected";
    const NO_QUERY: &'static str = "no holdings query yet: press i to enter one";
    /// Borders, the query line, the header and the totals footer.
    const CHROME_ROWS: u16 = 6;

    /// Opens the query form with its defaults.
    fn open_form(&mut self, sh: &Shared) {
        self.form.prefill(sh);
        self.form.dialog.form.set_note(None);
        self.form.dialog.open();
    }

    fn query(&self) -> Option<&HoldingsQuery> {
        self.query.as_ref()
    }

    /// Runs a query (replacing any in flight).
    fn run(&mut self, query: HoldingsQuery, sh: &mut Shared, out: &mut Out) {
        if let Some(old) = self.pending.take() {
            out.effects.push(Effect::Cancel(old));
        }
        let req = query.request(sh.now);
        self.pending = Some(out.fetch(sh, Request::api(scan::holdings_summary(&req))));
        self.query = Some(query);
        self.error = None;
    }

    fn submit(&mut self, sh: &mut Shared, out: &mut Out) {
        match self.form.validate(sh) {
            Some(q) => {
                self.form.dialog.close();
                self.from_update = None;
                self.run(q, sh, out);
            }
            None => out.warn("the query is not complete: see the highlighted field"),
        }
    }

    fn selected(&self) -> Option<&str> {
        self.selected_party()
    }

    fn parts(&mut self) -> Parts<'_, HoldCol, HoldingLine> {
        (
            &mut self.form.dialog,
            &mut self.table,
            &self.lines,
            &mut self.sort_col,
        )
    }

    fn view(&self) -> (&Dialog, &DataTable<HoldCol>, &[HoldingLine]) {
        (&self.form.dialog, &self.table, &self.lines)
    }

    fn state(&self) -> QueryState {
        QueryState {
            pending: self.pending.is_some(),
            error: self.error.is_some(),
            answered: self.result.is_some(),
            queried: self.query.is_some(),
        }
    }

    fn title_counts(&self, theme: &Theme) -> Vec<Span<'static>> {
        self.title_counts(theme)
    }

    fn render_body(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        HoldingsPane::render_body(self, area, buf, cx);
    }

    fn render_form(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme) {
        HoldingsPane::render_form(self, area, buf, sh, theme);
    }

    /// The first show, and every show after one that found nothing selected (until the user
    /// enters owners), queries the parties of the update in view; a later show with another
    /// update in view queries its parties, unless the user entered the query.
    fn on_show(&mut self, sh: &mut Shared, out: &mut Out) {
        let waiting = self.start_note.is_some() && self.form.owners().is_empty();
        let idle = self.query.is_none() && self.pending.is_none();
        let moved = self.from_update.is_some()
            && sh.selected_update.is_some()
            && sh.selected_update != self.from_update;
        if queries_on_show(&mut self.shown, waiting, idle) || moved {
            self.start(sh, out);
        }
    }

    fn on_answer(&mut self, reply: &Fetched, _sh: &mut Shared, out: &mut Out) {
        let exact = self.query.as_ref().is_some_and(|q| q.exact);
        let answer = accept(
            &mut self.pending,
            reply,
            "the holdings query",
            Response::answer::<scan::HoldingsSummaryResponse>,
        );
        match answer {
            None => {}
            Some(Ok(r)) => {
                let Some(q) = &self.query else {
                    return;
                };
                self.result = Some(HoldingsResult::new(q, r));
                self.error = None;
                self.resort();
            }
            Some(Err(failure)) => {
                let msg = failure.text(|e| explain_error(e, exact));
                out.error(format!("holdings: {msg}"));
                self.error = Some(msg);
            }
        }
    }

    fn query_request(&self, sh: &Shared) -> Option<(ApiCall, String)> {
        let q = self.query.as_ref()?;
        let label = format!("holdings summary of {} parties", q.owners.len());
        Some((
            scan::holdings_summary(&q.request(sh.now)).into_answer(),
            label,
        ))
    }
}
