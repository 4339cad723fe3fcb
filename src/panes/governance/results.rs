//! The Results section: closed requests (accepted, rejected, expired, accepted but the action
//! failed), newest first, paged from scan 0 (`POST /v0/admin/sv/voteresults`, its own page
//! tokens; a page sent twice stops the paging), with the total from `/voteresults/count`.
//! `i` opens the filters (action, outcome, requester, from, until): action, requester and dates
//! go to the server, the outcome as `accepted: true|false`; the exact outcome and requester are
//! told apart here. The list is virtualised; the next page is asked when the cursor nears the
//! end. Enter opens a result in Detail.
//!
//! ```text
//! 14 of 14 results (count 14) · no filter · all pages read
//! Effective          Outcome    Action                              Requester      Votes
//! 2026-01-28 10:00   accepted   update reward weight of Delta to 9… Aurora-Node-1  4✓ 0✗
//! ```

use std::borrow::Cow;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::api::scan::{self, VoteResult, VoteResultsCount, VoteResultsPage, VoteResultsRequest};
use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::governance::{
    ClosedRequest, NextPage, Outcome, PageGuard, ResultsQuery, filter_time,
};
use crate::model::when::parse_when;
use crate::msg::{Effect, Fetched, Request, RequestId, Response};
use crate::panes::{Out, RenderCtx, Shared};
use crate::ui::explain::explain;
use crate::ui::form::{Dialog, Field, Form, FormOutcome, form_key, form_paste, paragraph};
use crate::ui::safe::safe_line;
use crate::ui::table::{
    Cell, Column, Columns, DataTable, Draw, SortKey, TableInput, TableRow, Width,
};
use crate::ui::theme::Theme;

/// Results asked per page.
pub const PAGE_SIZE: i64 = 50;

/// What Results says before the first page.
pub const RESULTS_LOADING_TEXT: &str = "reading the vote results…";

/// The outcome choices of the filter form (the first: any).
const OUTCOMES: &[&str] = &["any", "accepted", "rejected", "expired", "failed"];

/// The action names the filter completes from (Splice's, as the Scan UI knows them).
const ACTION_NAMES: &[&str] = &[
    "SRARC_OffboardSv",
    "SRARC_GrantFeaturedAppRight",
    "SRARC_RevokeFeaturedAppRight",
    "SRARC_SetConfig",
    "SRARC_UpdateSvRewardWeight",
    "SRARC_CreateUnallocatedUnclaimedActivityRecord",
    "CRARC_AddFutureAmuletConfigSchedule",
    "CRARC_RemoveFutureAmuletConfigSchedule",
    "CRARC_UpdateFutureAmuletConfigSchedule",
    "CRARC_SetConfig",
];

/// A column of Results (also the sort key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResultCol {
    #[default]
    Effective,
    Outcome,
    Action,
    Requester,
    Votes,
}

impl ResultCol {
    fn columns() -> Columns<ResultCol> {
        Columns::new(vec![
            Column::new(ResultCol::Effective, "Effective", Width::Fixed(23)).descending_first(),
            Column::new(ResultCol::Outcome, "Outcome", Width::Fixed(19)).priority(8),
            Column::new(ResultCol::Action, "Action", Width::fill(20)),
            Column::new(
                ResultCol::Requester,
                "Requester",
                Width::Wide {
                    narrow: 12,
                    wide: 24,
                    from: 150,
                },
            )
            .priority(4),
            Column::new(ResultCol::Votes, "Votes", Width::Fixed(7)).priority(6),
        ])
        .sorted_by(ResultCol::Effective, true)
    }
}

/// The style of an outcome.
pub fn outcome_style(o: Outcome, theme: &Theme) -> Style {
    match o {
        Outcome::Accepted => theme.status_ok,
        Outcome::Rejected => theme.status_err,
        Outcome::Expired | Outcome::Other => theme.muted,
        Outcome::AcceptedButFailed => theme.status_warn,
    }
}

impl TableRow for ClosedRequest {
    type Col = ResultCol;
    type Ctx = Shared;

    fn cell(&self, col: ResultCol, _width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        match col {
            ResultCol::Effective => match parse_time_micros(&self.effective_at) {
                Some(t) => Cell::new(sh.format_time(t), theme.time),
                None => Cell::new(safe_line(&self.effective_at, 19).into_owned(), theme.muted),
            },
            ResultCol::Outcome => {
                Cell::new(self.outcome.word(), outcome_style(self.outcome, theme))
            }
            ResultCol::Action => Cell::new(safe_line(&self.action, 400), Style::default()),
            ResultCol::Requester => Cell::new(safe_line(&self.requester, 60), theme.party),
            ResultCol::Votes => Cell::new(
                format!("{}✓ {}✗", self.accept, self.reject),
                Style::default(),
            ),
        }
    }

    fn sort_key(&self, col: ResultCol) -> SortKey<'_> {
        match col {
            ResultCol::Effective => parse_time_micros(&self.effective_at)
                .map_or(SortKey::Missing, |t| SortKey::Int(t.into())),
            ResultCol::Outcome => SortKey::Text(Cow::Borrowed(self.outcome.word())),
            ResultCol::Action => SortKey::Text(Cow::Borrowed(&self.action)),
            ResultCol::Requester => SortKey::Text(Cow::Borrowed(&self.requester)),
            ResultCol::Votes => SortKey::Int(self.accept as i128),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Owned(format!(
            "{} {} {} {} {}",
            self.action,
            self.requester,
            self.action_name,
            self.outcome.word(),
            self.key
        ))
    }
}

/// The filter form: action, outcome, requester, from, until.
fn filter_form() -> Form {
    Form::new(vec![
        Form::with_candidates(
            Form::field("Action", "", "a part of the action's name (SetConfig)"),
            ACTION_NAMES.iter().copied(),
        ),
        Field::choice("Outcome", OUTCOMES, 0),
        Form::field("Requester", "", "the requesting SV's exact name"),
        Form::field(
            "From",
            "",
            "effective at or after (RFC 3339, -7d, yesterday 14:00)",
        ),
        Form::field("Until", "", "effective at or before"),
    ])
}

/// The Results section's state.
#[derive(Debug)]
pub struct ResultsView {
    /// The filters in force.
    pub query: ResultsQuery,
    pub dialog: Dialog,
    /// The results kept (after the filters told apart here), as the scan sent them.
    pub raw: Vec<VoteResult>,
    /// `raw` summarised, in the same order.
    pub rows: Vec<ClosedRequest>,
    pub table: DataTable<ResultCol>,
    /// The page in flight.
    page: Option<RequestId>,
    /// The count in flight.
    count_req: Option<RequestId>,
    /// `/voteresults/count` for the filters.
    pub count: Option<i64>,
    /// The token of the next page.
    next: Option<i64>,
    guard: PageGuard,
    /// Whether the last page was read.
    pub done: bool,
    /// Pages read.
    pub pages: usize,
    /// Results the server sent (before the filters told apart here).
    pub received: usize,
    pub error: Option<String>,
    /// Why paging stopped early (a page sent twice).
    pub note: Option<String>,
    /// Whether the first page was asked.
    pub started: bool,
    /// Results asked per page ([`PAGE_SIZE`]).
    pub page_size: i64,
}

impl Default for ResultsView {
    fn default() -> Self {
        ResultsView {
            query: ResultsQuery::default(),
            dialog: Dialog::new(filter_form()),
            raw: Vec::new(),
            rows: Vec::new(),
            table: DataTable::new(ResultCol::columns()),
            page: None,
            count_req: None,
            count: None,
            next: None,
            guard: PageGuard::default(),
            done: false,
            pages: 0,
            received: 0,
            error: None,
            note: None,
            started: false,
            page_size: PAGE_SIZE,
        }
    }
}

impl ResultsView {
    /// Whether a page is in flight.
    pub fn is_loading(&self) -> bool {
        self.page.is_some()
    }

    /// The result selected, as the scan sent it.
    pub fn selected_raw(&self) -> Option<usize> {
        self.table.selected()
    }

    /// Starts over with `query`: the count and the first page.
    pub fn run(&mut self, query: ResultsQuery, sh: &mut Shared, out: &mut Out) {
        for old in [self.page.take(), self.count_req.take()]
            .into_iter()
            .flatten()
        {
            out.effects.push(Effect::Cancel(old));
        }
        let dialog = std::mem::replace(&mut self.dialog, Dialog::new(filter_form()));
        let sort = self.table.sort();
        let page_size = self.page_size;
        *self = ResultsView {
            query,
            dialog,
            started: true,
            page_size,
            ..ResultsView::default()
        };
        if let Some((col, desc)) = sort {
            // Keep the user's sort.
            for _ in 0..8 {
                if self.table.sort().map(|(c, _)| c) == Some(col)
                    || !self.table.on_command(crate::msg::Command::Sort, &self.rows)
                {
                    break;
                }
            }
            if self.table.sort().map(|(_, d)| d) != Some(desc) {
                self.table
                    .on_command(crate::msg::Command::SortReverse, &self.rows);
            }
        }
        if sh.ctx.scan_urls.is_empty() {
            self.error = Some("no scan configured".to_owned());
            return;
        }
        let filter = self.query.server_filter();
        self.count_req = Some(out.fetch(sh, Request::api(scan::vote_results_count(&filter))));
        self.ask_page(sh, out);
    }

    /// Asks the next page (the first when none was read).
    fn ask_page(&mut self, sh: &mut Shared, out: &mut Out) {
        let req = VoteResultsRequest {
            filter: self.query.server_filter(),
            limit: self.page_size,
            page_token: self.next,
        };
        self.page = Some(out.fetch(sh, Request::api(scan::vote_results(&req))));
    }

    /// Asks the next page when the cursor is within two screens of the end, the last page is
    /// not read yet and none is in flight; returns whether it asked.
    pub fn more_if_near_end(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        if !self.started || self.done || self.page.is_some() || self.error.is_some() {
            return false;
        }
        let cursor = self.table.scroll().cursor();
        let screen = self.table.scroll().viewport().max(1);
        if cursor + 2 * screen < self.rows.len() {
            return false;
        }
        self.ask_page(sh, out);
        true
    }

    /// Takes a reply to the page or count in flight; returns whether it was one.
    pub fn on_fetched(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) -> bool {
        if let Some(answer) = crate::ui::load::accept(
            &mut self.count_req,
            reply,
            "the vote results count",
            Response::answer::<VoteResultsCount>,
        ) {
            match answer {
                Ok(c) => self.count = Some(c.count),
                Err(f) => {
                    self.error =
                        Some(f.text(|e| explain(e, "this scan does not count vote results")));
                }
            }
            return true;
        }
        let Some(answer) = crate::ui::load::accept(
            &mut self.page,
            reply,
            "the vote results",
            Response::answer::<VoteResultsPage>,
        ) else {
            return false;
        };
        let page = match answer {
            Ok(p) => p,
            Err(f) => {
                self.error = Some(f.text(|e| explain(e, "this scan does not serve vote results")));
                return true;
            }
        };
        let (keep, next) = self.guard.next(&page.results, page.next_page_token);
        if keep {
            self.pages += 1;
            self.received += page.results.len();
            let svs = sh
                .health
                .dso
                .info
                .as_deref()
                .map_or(&[][..], |d| d.svs.as_slice());
            for r in &page.results {
                let row = ClosedRequest::of(r, svs);
                if self.query.keeps(&row) {
                    self.rows.push(row);
                    self.raw.push(r.clone());
                }
            }
            self.table.set_rows(&self.rows);
        }
        match next {
            NextPage::After(t) => self.next = Some(t),
            NextPage::End => self.done = true,
            NextPage::Repeated(why) => {
                self.done = true;
                self.note = Some(why);
            }
        }
        // Fill the screen (the filters told apart here may have kept few of the page).
        self.more_if_near_end(sh, out);
        true
    }

    /// Opens the filter form with the filters in force.
    pub fn open_form(&mut self, sh: &Shared) {
        let q = self.query.clone();
        let form = &mut self.dialog.form;
        form.set_text(0, q.action.as_deref().unwrap_or(""));
        let outcome = match q.outcome {
            None | Some(Outcome::Other) => 0,
            Some(Outcome::Accepted) => 1,
            Some(Outcome::Rejected) => 2,
            Some(Outcome::Expired) => 3,
            Some(Outcome::AcceptedButFailed) => 4,
        };
        form.set_choice(1, outcome);
        form.set_text(2, q.requester.as_deref().unwrap_or(""));
        let names: Vec<&str> = sh
            .health
            .dso
            .info
            .as_deref()
            .map(|d| d.svs.iter().map(|s| s.name.as_str()).collect())
            .unwrap_or_default();
        form.set_candidates(2, names);
        form.set_text(3, q.from.as_deref().unwrap_or(""));
        form.set_text(4, q.until.as_deref().unwrap_or(""));
        form.clear_errors();
        form.set_active(0);
        self.dialog.open();
    }

    /// Enter in the form: the filters, validated; `None` (the form keeps the message) when a
    /// date is not a time.
    fn submitted(&mut self, sh: &Shared) -> Option<ResultsQuery> {
        let form = &mut self.dialog.form;
        let text =
            |form: &Form, i: usize| Some(form.value(i).trim().to_owned()).filter(|s| !s.is_empty());
        let mut dates = [None, None];
        for (k, i) in [3usize, 4].into_iter().enumerate() {
            if let Some(t) = text(form, i) {
                let Some(at) = parse_when(&t, sh.now, sh.local_time) else {
                    form.set_error(
                        i,
                        "not a time: RFC 3339 (2026-01-30T08:00:00Z), -7d, yesterday 14:00",
                    );
                    return None;
                };
                dates[k] = filter_time(&format_time_micros(at));
            }
        }
        let outcome = match form.choice(1) {
            1 => Some(Outcome::Accepted),
            2 => Some(Outcome::Rejected),
            3 => Some(Outcome::Expired),
            4 => Some(Outcome::AcceptedButFailed),
            _ => None,
        };
        let [from, until] = dates;
        Some(ResultsQuery {
            action: text(form, 0),
            outcome,
            requester: text(form, 2),
            from,
            until,
        })
    }

    /// A raw key (the form's while it is open, else the table's); returns whether it changed
    /// anything worth drawing.
    pub fn on_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) -> bool {
        match form_key(&mut self.dialog, key) {
            Some(FormOutcome::Submitted) => {
                if let Some(q) = self.submitted(sh) {
                    self.dialog.close();
                    self.run(q, sh, out);
                }
                true
            }
            Some(_) => true,
            None => {
                let used = self.table.input(TableInput::Key(key), &self.rows);
                self.more_if_near_end(sh, out);
                used
            }
        }
    }

    /// Pasted text (the form's, else the table filter's).
    pub fn on_paste(&mut self, text: &str) {
        if !form_paste(&mut self.dialog, text) {
            self.table.input(TableInput::Paste(text), &self.rows);
        }
    }

    /// The first line: how many are listed, the count, the filters and how far the paging got.
    fn status_line(&self, theme: &Theme) -> Line<'static> {
        let mut spans = vec![Span::styled(
            format!("{} listed", self.rows.len()),
            theme.title,
        )];
        match self.count {
            Some(c) if self.query.count_is_exact() => {
                spans.push(Span::styled(format!(" of {c} (count)"), theme.muted));
            }
            Some(c) => {
                // The server counts only what it can filter: the rest is told apart here.
                let what = match self.query.server_filter().accepted {
                    Some(false) => " not accepted",
                    _ => " by the server's filters",
                };
                spans.push(Span::styled(format!(" · count {c}{what}"), theme.muted));
            }
            None => {}
        }
        spans.push(Span::styled(
            format!(" · {}", safe_line(&self.query.words(), 200)),
            theme.accent,
        ));
        let paging = if self.page.is_some() {
            " · reading…".to_owned()
        } else if self.done {
            format!(" · all read ({})", pages(self.pages))
        } else {
            format!(" · {} read, more below", pages(self.pages))
        };
        spans.push(Span::styled(paging, theme.muted));
        Line::from(spans)
    }

    /// Draws the section.
    pub fn render(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let theme = cx.theme;
        if area.height == 0 {
            return;
        }
        let mut area = area;
        buf.set_line(area.x, area.y, &self.status_line(theme), area.width);
        area.y += 1;
        area.height -= 1;
        for text in [self.error.as_deref(), self.note.as_deref()]
            .into_iter()
            .flatten()
        {
            let used = paragraph(
                Rect::new(area.x, area.y, area.width, 1.min(area.height)),
                buf,
                text,
                theme.status_err,
            );
            area.y += used;
            area.height -= used;
        }
        if self.rows.is_empty() {
            let text = if !self.started || self.page.is_some() {
                RESULTS_LOADING_TEXT
            } else if self.error.is_some() {
                ""
            } else {
                "No result matches the filters (i changes them)."
            };
            paragraph(area, buf, text, theme.muted);
        } else {
            let draw = Draw::new(cx.sh, theme, cx.focused);
            self.table.render(area, buf, &self.rows, &draw);
        }
        if self.dialog.is_open() {
            self.dialog.form.render_dialog(
                area,
                buf,
                theme,
                "Filter the results",
                "↵ apply · Tab complete · ↑↓ field · Esc cancel",
            );
        }
    }
}

/// `1 page`, `3 pages`.
fn pages(n: usize) -> String {
    format!("{n} page{}", if n == 1 { "" } else { "s" })
}
