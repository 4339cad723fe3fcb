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
//! On first show the pane queries at once every validator seen in the loaded history (observers
//! of `ValidatorLicense` contracts; the scan API offers no list of licences). `i` opens the id
//! form: a list of ids shown as a count and the ids in columns (never one line thousands of
//! characters long), pre-filled with the validators of the last query or, when empty, of the
//! history. Tab completes from the same list.
//!
//! With a local index the pane lists every validator ever licensed instead
//! ([`kept`]: the index's kept history and the scan's current licences, read
//! by the runtime), with its first licence, whether the licence is current, its last activity,
//! that activity's round and the rounds since, then queries the faucets of all of them as
//! above.

pub mod kept;
mod rows;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;

use crate::api::scan::ValidatorFaucets;
use crate::api::{ApiCall, ApiError, scan};
use crate::msg::{Effect, Fetched, Request, RequestId, Response};
use crate::panes::form::{
    Parts, QueryPane, QueryState, Unanswered, queries_on_show, render_error, render_unanswered,
};
use crate::panes::{Out, PaneId, RenderCtx, Shared};
use crate::ui::explain::explain_scan;
use crate::ui::form::{Dialog, Field, Form, looks_like_party};
use crate::ui::load::accept;
use crate::ui::safe::safe_line;
use crate::ui::table::{DataTable, Draw};
use crate::ui::theme::Theme;
use kept::{KeptList, NO_KEPT_VALIDATORS};
pub use rows::{
    LIVENESS_WARN, NOT_ONBOARDED, PaneRow, ValCol, ValidatorRow, liveness, liveness_bar,
};

/// The endpoint, as named in messages.
pub const FAUCETS_ENDPOINT: &str = "/v0/validators/validator-faucets";

/// The empty state.
pub const EMPTY_TEXT: &str = "No validators queried yet. Press i (edit): the form comes filled \
     with every validator seen in the loaded history (from ValidatorLicense contracts), so Enter \
     shows them all; edit the list to pick some. Tab completes.";

/// What the pane says on first show when the loaded history has no validator yet.
pub const NO_VALIDATORS_TEXT: &str = "No ValidatorLicense seen in the loaded history yet, so \
     there is nothing to query: press i to enter validator party ids, or come back once more \
     history is loaded.";

/// Rows the form shows the ids in (a count line and columns).
const LIST_ROWS: u16 = 6;

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
    /// The id form: one list of validator party ids, kept between openings.
    pub form: Dialog,
    /// Whether the pane was shown once (the first show queries the history's validators).
    shown: bool,
    /// Why the first show did not query.
    pub start_note: Option<String>,
    pending: Option<RequestId>,
    /// The ids of the last query (Refresh sends them again).
    pub query: Option<Vec<String>>,
    pub rows: Vec<PaneRow>,
    /// Whether an answer arrived (the table, possibly empty, is shown).
    pub loaded: bool,
    /// Over an index: every validator ever licensed, as the index and the scan tell
    /// (`None`: no index configured, the pane as without one).
    pub kept: Option<KeptList>,
    /// Why the index is configured and not read: the loaded history's validators are listed.
    pub index_note: Option<String>,
    pub error: Option<String>,
    /// The column the table is sorted by.
    pub sort_col: ValCol,
    table: DataTable<ValCol>,
}

impl ValidatorsPane {
    /// A new pane.
    pub fn new(_sh: &Shared) -> Self {
        ValidatorsPane {
            form: Dialog::new(Form::new(vec![Field::list(
                "Ids",
                &[],
                "validator party ids, separated by spaces (Tab completes)",
                ("validator", "validators"),
                LIST_ROWS,
            )])),
            shown: false,
            start_note: None,
            pending: None,
            query: None,
            rows: Vec::new(),
            loaded: false,
            error: None,
            sort_col: ValCol::default(),
            kept: None,
            index_note: None,
            table: DataTable::new(ValCol::columns(false)),
        }
    }

    /// Whether the form is open (raw keys go to it).
    pub fn form_open(&self) -> bool {
        self.form.is_open()
    }

    /// Whether a query is in flight.
    pub fn is_loading(&self) -> bool {
        self.pending.is_some()
    }

    /// The validator ids in display order (the ones the `/` filter lets through).
    pub fn ordered_ids(&self) -> Vec<&str> {
        self.table.ordered(&self.rows).map(PaneRow::id).collect()
    }

    /// The selected row's validator id.
    pub fn selected_id(&self) -> Option<&str> {
        self.table.selected_row(&self.rows).map(PaneRow::id)
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
            .filter(|r| matches!(r.faucets, Some(ValidatorRow::Stats(_))))
            .count()
    }

    /// The ids in the form, separated by spaces.
    pub fn ids_text(&self) -> String {
        self.form.form.value(0)
    }

    /// The validators of the loaded history, sorted (over an index: those the index lists).
    fn known(&self, sh: &Shared) -> Vec<String> {
        if let Some(kept) = self.kept.as_ref().filter(|k| !k.rows.is_empty()) {
            let mut known = kept.parties();
            known.sort_unstable();
            return known;
        }
        let mut known: Vec<String> = sh
            .history
            .validators()
            .into_iter()
            .map(str::to_string)
            .collect();
        known.sort_unstable();
        known
    }

    /// First show: every validator of the loaded history, queried at once; over an index,
    /// first every validator ever licensed, read by the runtime.
    fn start(&mut self, sh: &mut Shared, out: &mut Out) {
        self.index_note = kept::not_used_because(&sh.index);
        if sh.index.usable() {
            let id = out.fetch(
                sh,
                Request::Index(crate::model::index::read::IndexRead::Validators),
            );
            self.kept = Some(KeptList {
                pending: Some(id),
                ..KeptList::default()
            });
            self.table = DataTable::new(ValCol::columns(true));
            self.start_note = None;
            return;
        }
        self.start_history(sh, out);
    }

    /// The index's answer: its validators listed, then their faucets queried.
    fn on_kept(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) {
        let Some(kept) = self.kept.as_mut() else {
            return;
        };
        kept.pending = None;
        kept.take(reply.index_answer());
        if let Some(e) = &kept.error {
            let why = format!("the local index cannot be read now: {e}");
            self.fall_back(why, sh, out);
            return;
        }
        let parties = kept.parties();
        self.rows = kept
            .rows
            .iter()
            .map(|k| PaneRow {
                id: k.party.clone(),
                faucets: None,
                kept: Some(k.clone()),
            })
            .collect();
        self.loaded = true;
        self.table.set_rows(&self.rows);
        if parties.is_empty() {
            self.start_note = Some(NO_KEPT_VALIDATORS.to_string());
            return;
        }
        self.form.form.set_text(0, &parties.join(" "));
        out.info(format!(
            "{} validators ever licensed (the local index); their faucets asked of the scan",
            parties.len()
        ));
        self.run(parties, sh, out);
    }

    fn start_history(&mut self, sh: &mut Shared, out: &mut Out) {
        let known = self.known(sh);
        if known.is_empty() {
            self.start_note = Some(NO_VALIDATORS_TEXT.to_string());
            return;
        }
        self.start_note = None;
        self.form.form.set_text(0, &known.join(" "));
        out.info(format!(
            "validator faucets of the {} validators seen in the loaded history (i edits the list)",
            known.len()
        ));
        self.run(known, sh, out);
    }

    fn apply(&mut self, asked: &[String], answer: &ValidatorFaucets) {
        let mut rows: Vec<PaneRow> = answer
            .validators_received_faucets
            .iter()
            .cloned()
            .map(|s| PaneRow::of(ValidatorRow::Stats(s)))
            .collect();
        for id in asked {
            if !rows.iter().any(|r| r.id() == id) {
                rows.push(PaneRow::of(ValidatorRow::NotOnboarded(id.clone())));
            }
        }
        if let Some(kept) = &self.kept {
            for row in &mut rows {
                row.kept = kept.of(&row.id).cloned();
            }
            // The index's validators not asked this time stay listed.
            for k in &kept.rows {
                if !rows.iter().any(|r| r.id == k.party) {
                    rows.push(PaneRow {
                        id: k.party.clone(),
                        faucets: None,
                        kept: Some(k.clone()),
                    });
                }
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
}

impl QueryPane for ValidatorsPane {
    type Row = PaneRow;
    /// The validator ids asked for.
    type Query = Vec<String>;
    const ID: PaneId = PaneId::Validators;
    const COPIED: &'static str = "validator party id";
    const NOTHING_SELECTED: &'static str = "nothing to copy: no validator selected";
    const NO_QUERY: &'static str = "no validator query yet: press i to enter one";
    /// Borders, the explanation line and the header.
    const CHROME_ROWS: u16 = 4;

    /// Opens the form; an empty list is pre-filled with the validators of the loaded history.
    fn open_form(&mut self, sh: &Shared) {
        let known = self.known(sh);
        self.form
            .form
            .set_candidates(0, known.iter().map(String::as_str));
        let note = if !self.form.form.ids(0).is_empty() {
            None
        } else if known.is_empty() {
            Some("no ValidatorLicense seen in the loaded history: enter validator party ids".into())
        } else {
            self.form.form.set_text(0, &known.join(" "));
            Some(format!(
                "pre-filled with the {} validators seen in the loaded history",
                known.len()
            ))
        };
        self.form.form.clear_errors();
        self.form.form.set_note(note);
        self.form.open();
    }

    fn query(&self) -> Option<&Vec<String>> {
        self.query.as_ref()
    }

    /// Queries these ids (replacing any query in flight).
    fn run(&mut self, ids: Vec<String>, sh: &mut Shared, out: &mut Out) {
        if let Some(old) = self.pending.take() {
            out.effects.push(Effect::Cancel(old));
        }
        self.pending = Some(out.fetch(sh, Request::api(scan::validator_faucets(&ids))));
        self.query = Some(ids);
        self.error = None;
    }

    fn submit(&mut self, sh: &mut Shared, out: &mut Out) {
        let ids = self.form.form.ids(0);
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
        if let Some(e) = err {
            self.form.form.set_error(0, e);
            out.warn("the query is not complete: see the form");
        } else {
            self.form.close();
            self.run(ids, sh, out);
        }
    }

    fn selected(&self) -> Option<&str> {
        self.selected_id()
    }

    fn parts(&mut self) -> Parts<'_, ValCol, PaneRow> {
        (
            &mut self.form,
            &mut self.table,
            &self.rows,
            &mut self.sort_col,
        )
    }

    fn view(&self) -> (&Dialog, &DataTable<ValCol>, &[PaneRow]) {
        (&self.form, &self.table, &self.rows)
    }

    fn state(&self) -> QueryState {
        let kept_pending = self.kept.as_ref().is_some_and(|k| k.pending.is_some());
        QueryState {
            pending: self.pending.is_some() || kept_pending,
            error: self.error.is_some(),
            answered: self.loaded,
            queried: self.query.is_some(),
        }
    }

    /// The title's counts, once answered.
    fn title_counts(&self, theme: &Theme) -> Vec<Span<'static>> {
        let mut spans = Vec::new();
        if let Some(kept) = self.kept.as_ref().filter(|k| k.loaded && k.error.is_none()) {
            let n = kept.rows.len();
            spans.push(Span::styled(
                format!(" · {n} ever licensed (index)"),
                theme.muted,
            ));
        }
        if self.loaded && self.query.is_some() {
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
        spans
    }

    fn render_body(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { sh, theme, focused } = cx;
        let width = usize::from(area.width);
        let bottom = area.bottom();
        let Some(mut y) = render_error(self.error.as_deref(), area, buf, theme) else {
            return;
        };
        if !self.loaded {
            let n = sh.history.validators().len();
            let texts = Unanswered {
                endpoint: FAUCETS_ENDPOINT,
                retry: "Press i (edit) to change the ids, r (refresh) to run the query again.",
                idle: self.start_note.as_deref().unwrap_or(EMPTY_TEXT),
                seen: &format!("{n} validators seen in the loaded history"),
            };
            render_unanswered(area, y, buf, (self.state(), theme), &texts);
            return;
        }
        if y < bottom {
            let line = match &self.kept {
                Some(k) => match &k.scan_note {
                    Some(why) => format!(
                        "from the local index · licence currency unknown ({}) · liveness = collected / (last − first + 1)",
                        safe_line(why, 80)
                    ),
                    None => "from the local index and the scan's licences · liveness = collected / (last − first + 1)".to_owned(),
                },
                None => match &self.index_note {
                    Some(why) => format!("the loaded history's validators · {}", safe_line(why, 160)),
                    None => "liveness = collected / (last − first + 1) · on-ledger state at request time".to_owned(),
                },
            };
            buf.set_stringn(area.x, y, line, width, theme.muted);
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
        let help = format!(
            "Tab completes from the {} validators of the loaded history",
            sh.history.validators().len()
        );
        self.form
            .form
            .render_dialog(area, buf, theme, "Validator faucets", &help);
    }

    /// The first show, and every show after one that found nothing to query (until the user
    /// enters ids), queries the validators of the loaded history.
    fn on_show(&mut self, sh: &mut Shared, out: &mut Out) {
        if self.kept.is_some()
            && let Some(why) = kept::not_used_because(&sh.index)
        {
            // The index became unusable since it was read: its list is not this history's.
            return self.fall_back(why, sh, out);
        }
        let waiting = self.start_note.is_some() && self.form.form.ids(0).is_empty();
        let kept_pending = self.kept.as_ref().is_some_and(|k| k.pending.is_some());
        let idle = self.query.is_none() && self.pending.is_none() && !kept_pending;
        if queries_on_show(&mut self.shown, waiting, idle) {
            self.start(sh, out);
        }
    }

    fn on_answer(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) {
        if self
            .kept
            .as_ref()
            .is_some_and(|k| k.pending == Some(reply.id))
        {
            self.on_kept(reply, sh, out);
            return;
        }
        let answer = accept(
            &mut self.pending,
            reply,
            "the faucet query",
            Response::answer::<scan::ValidatorFaucets>,
        );
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

    fn query_request(&self, _sh: &Shared) -> Option<(ApiCall, String)> {
        let ids = self.query.clone()?;
        let label = format!("validator faucets of {} validators", ids.len());
        Some((scan::validator_faucets(&ids).into_answer(), label))
    }
}
