//! The SVs section: every SV of `/v0/dso` with its reward weight in basis points (my SV ★),
//! and the selected SV's weight history rebuilt from the accepted `SRARC_UpdateSvRewardWeight`
//! results (every page, read when the section is first shown) as a step chart with dates,
//! checked against the scan's `previous-sv-reward-weight`. Before the first accepted change
//! the weight is unknown: the chart starts there and says so, it never guesses.
//!
//! ```text
//! SV               Weight  Changes  Known since          Party
//! ★ Aurora-Node-1   10000        0  unknown             Aurora-Node-1::1220…
//!   Delta-Node-4     9000        2  2026-01-20 10:00    Delta-Node-4::1220…
//! Delta-Node-4 · 2 accepted changes · unknown before 2026-01-20 10:00
//!  9000┤      ┌────────
//!  8000┤──────┘
//! scan's previous-sv-reward-weight: 9000 · agrees with the last change
//! ```

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Widget};

use crate::api::scan::{
    self, RewardWeightRequest, RewardWeightResponse, VoteResult, VoteResultsFilter,
    VoteResultsPage, VoteResultsRequest,
};
use crate::model::format::parse_time_micros;
use crate::model::governance::{NextPage, PageGuard, WeightStep, weight_history};
use crate::msg::{Fetched, Request, RequestId, Response};
use crate::panes::{Out, RenderCtx, Shared};
use crate::ui::explain::explain;
use crate::ui::form::paragraph;
use crate::ui::load::Load;
use crate::ui::safe::safe_line;
use crate::ui::table::{
    Cell, Column, Columns, DataTable, Draw, SortKey, TableInput, TableRow, Width,
};
use crate::ui::theme::Theme;

/// What SVs says before the DSO is read.
pub const NO_DSO_TEXT: &str = "reading the DSO (/v0/dso)…";

/// One SV of the DSO with its weight history.
#[derive(Debug, Clone, PartialEq)]
pub struct SvRow {
    pub name: String,
    pub party: String,
    /// `svRewardWeight` of `/v0/dso` (basis points).
    pub weight: Option<i64>,
    pub mine: bool,
    /// Its accepted weight changes, oldest first.
    pub steps: Vec<WeightStep>,
}

/// A column of SVs (also the sort key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SvCol {
    #[default]
    Name,
    Weight,
    Changes,
    Since,
    Party,
}

impl SvCol {
    fn columns() -> Columns<SvCol> {
        Columns::new(vec![
            Column::new(SvCol::Name, "SV", Width::Fixed(20)),
            Column::new(SvCol::Weight, "Weight", Width::Fixed(8)).right(),
            Column::new(SvCol::Changes, "Changes", Width::Fixed(8))
                .right()
                .priority(6),
            Column::new(SvCol::Since, "Known since", Width::Fixed(23)).priority(5),
            Column::new(SvCol::Party, "Party", Width::fill(12)).priority(3),
        ])
        .sorted_by(SvCol::Name, false)
    }
}

impl TableRow for SvRow {
    type Col = SvCol;
    type Ctx = Shared;

    fn cell(&self, col: SvCol, _width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        match col {
            SvCol::Name => Cell::new(
                format!(
                    "{}{}",
                    if self.mine { "★ " } else { "  " },
                    safe_line(&self.name, 60)
                ),
                theme.party,
            ),
            SvCol::Weight => match self.weight {
                Some(w) => Cell::new(w.to_string(), Style::default()),
                None => Cell::new("?", theme.muted),
            },
            SvCol::Changes => Cell::new(self.steps.len().to_string(), Style::default()),
            SvCol::Since => match self
                .steps
                .first()
                .and_then(|s| parse_time_micros(&s.effective_at))
            {
                Some(t) => Cell::new(sh.format_time(t), theme.time),
                None => Cell::new("unknown", theme.muted),
            },
            SvCol::Party => Cell::new(safe_line(&self.party, 200), theme.id),
        }
    }

    fn sort_key(&self, col: SvCol) -> SortKey<'_> {
        match col {
            SvCol::Name => SortKey::Text(Cow::Borrowed(&self.name)),
            SvCol::Weight => self
                .weight
                .map_or(SortKey::Missing, |w| SortKey::Int(w.into())),
            SvCol::Changes => SortKey::Int(self.steps.len() as i128),
            SvCol::Since => self
                .steps
                .first()
                .and_then(|s| parse_time_micros(&s.effective_at))
                .map_or(SortKey::Missing, |t| SortKey::Int(t.into())),
            SvCol::Party => SortKey::Text(Cow::Borrowed(&self.party)),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Owned(format!("{} {}", self.name, self.party))
    }
}

/// The SVs section's state.
#[derive(Debug)]
pub struct SvsView {
    pub rows: Vec<SvRow>,
    pub table: DataTable<SvCol>,
    /// The accepted weight changes read so far (every page).
    pub changes: Vec<VoteResult>,
    page: Option<RequestId>,
    next: Option<i64>,
    guard: PageGuard,
    /// Whether every page was read.
    pub done: bool,
    pub error: Option<String>,
    /// `previous-sv-reward-weight` of the selected SV: its party and the answer.
    pub check: Load<(String, Option<String>)>,
    check_party: Option<String>,
}

impl Default for SvsView {
    fn default() -> Self {
        SvsView {
            rows: Vec::new(),
            table: DataTable::new(SvCol::columns()),
            changes: Vec::new(),
            page: None,
            next: None,
            guard: PageGuard::default(),
            done: false,
            error: None,
            check: Load::Idle,
            check_party: None,
        }
    }
}

impl SvsView {
    /// The selected SV.
    pub fn selected(&self) -> Option<&SvRow> {
        self.table.selected_row(&self.rows)
    }

    /// The SVs in display order.
    pub fn ordered(&self) -> Vec<&SvRow> {
        self.table.ordered(&self.rows).collect()
    }

    /// Starts reading the weight changes, once.
    pub fn start(&mut self, sh: &mut Shared, out: &mut Out) {
        if self.page.is_none() && !self.done && self.error.is_none() && self.changes.is_empty() {
            self.ask_page(sh, out);
        }
    }

    fn ask_page(&mut self, sh: &mut Shared, out: &mut Out) {
        if sh.ctx.scan_urls.is_empty() {
            return;
        }
        let req = VoteResultsRequest {
            filter: VoteResultsFilter {
                action_name: Some("SRARC_UpdateSvRewardWeight".to_owned()),
                accepted: Some(true),
                ..VoteResultsFilter::default()
            },
            limit: 100,
            page_token: self.next,
        };
        self.page = Some(out.fetch(sh, Request::api(scan::vote_results(&req))));
    }

    /// Reads `r` again: the changes from the first page.
    pub fn refresh(&mut self, sh: &mut Shared, out: &mut Out) {
        if self.page.is_some() {
            return;
        }
        self.changes.clear();
        self.next = None;
        self.guard = PageGuard::default();
        self.done = false;
        self.error = None;
        self.check = Load::Idle;
        self.check_party = None;
        self.ask_page(sh, out);
    }

    /// Rebuilds the rows from the DSO and the changes; asks the selected SV's
    /// `previous-sv-reward-weight` when the selection moved. Returns whether anything changed.
    pub fn sync(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        let rows: Vec<SvRow> = match sh.health.dso.info.as_deref() {
            Some(dso) => dso
                .svs
                .iter()
                .map(|sv| SvRow {
                    name: sv.name.clone(),
                    party: sv.party.clone(),
                    weight: sv.reward_weight,
                    mine: sh.health.dso.is_mine(&sv.name),
                    steps: weight_history(&self.changes, &sv.party),
                })
                .collect(),
            None => Vec::new(),
        };
        let mut changed = false;
        if rows != self.rows {
            self.rows = rows;
            self.table.set_rows(&self.rows);
            changed = true;
        }
        changed | self.check_selected(sh, out)
    }

    /// Asks `previous-sv-reward-weight` of the selected SV when it is not the one checked.
    fn check_selected(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        let Some(party) = self.selected().map(|r| r.party.clone()) else {
            return false;
        };
        if self.check_party.as_deref() == Some(party.as_str()) || sh.ctx.scan_urls.is_empty() {
            return false;
        }
        let id = out.fetch(
            sh,
            Request::api(scan::previous_sv_reward_weight(&RewardWeightRequest {
                sv_party: party.clone(),
                effective_before: None,
            })),
        );
        if let Some(old) = self.check.start(id) {
            out.effects.push(crate::msg::Effect::Cancel(old));
        }
        self.check_party = Some(party);
        true
    }

    /// A table command or key; asks the new selection's check.
    pub fn input(&mut self, input: TableInput<'_>, sh: &mut Shared, out: &mut Out) -> bool {
        let used = self.table.input(input, &self.rows);
        used | self.check_selected(sh, out)
    }

    /// Takes a reply to the page or the check in flight; returns whether it was one.
    pub fn on_fetched(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) -> bool {
        if let Some(answer) = self.check.accept(
            reply,
            "previous-sv-reward-weight",
            Response::answer::<RewardWeightResponse>,
        ) {
            let party = self.check_party.clone().unwrap_or_default();
            self.check = match answer {
                Ok(w) => Load::Done((party, w.reward_weight.clone())),
                Err(f) => Load::Failed(
                    f.text(|e| explain(e, "this scan does not serve previous-sv-reward-weight")),
                ),
            };
            return true;
        }
        let Some(answer) = crate::ui::load::accept(
            &mut self.page,
            reply,
            "the weight changes",
            Response::answer::<VoteResultsPage>,
        ) else {
            return false;
        };
        match answer {
            Ok(page) => {
                let (keep, next) = self.guard.next(&page.results, page.next_page_token);
                if keep {
                    self.changes.extend(page.results.iter().cloned());
                }
                match next {
                    NextPage::After(t) => {
                        self.next = Some(t);
                        self.ask_page(sh, out);
                    }
                    NextPage::End => self.done = true,
                    NextPage::Repeated(why) => {
                        self.done = true;
                        self.error = Some(why);
                    }
                }
            }
            Err(f) => {
                self.error = Some(f.text(|e| explain(e, "this scan does not serve vote results")));
            }
        }
        self.sync(sh, out);
        true
    }

    /// Draws the section: the table, then the selected SV's history.
    pub fn render(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let theme = cx.theme;
        if self.rows.is_empty() {
            let text = cx.sh.health.dso.error.as_deref().unwrap_or(NO_DSO_TEXT);
            paragraph(area, buf, text, theme.muted);
            return;
        }
        let want = u16::try_from(self.rows.len() + 1).unwrap_or(u16::MAX);
        let table_h = want.min(area.height.saturating_sub(6).max(area.height / 2));
        let draw = Draw::new(cx.sh, theme, cx.focused);
        self.table.render(
            Rect::new(area.x, area.y, area.width, table_h),
            buf,
            &self.rows,
            &draw,
        );
        let rest = Rect::new(
            area.x,
            area.y + table_h,
            area.width,
            area.height.saturating_sub(table_h),
        );
        if let Some(sv) = self.selected() {
            self.render_history(sv, rest, buf, cx);
        }
    }

    fn render_history(&self, sv: &SvRow, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let (sh, theme) = (cx.sh, cx.theme);
        if area.height < 2 {
            return;
        }
        let when = |s: &WeightStep| {
            parse_time_micros(&s.effective_at).map_or_else(
                || safe_line(&s.effective_at, 30).into_owned(),
                |t| sh.format_time(t),
            )
        };
        let mut head = vec![Span::styled(
            safe_line(&sv.name, 40).into_owned(),
            theme.title,
        )];
        let reading = if self.page.is_some() {
            " · reading the weight changes…"
        } else {
            ""
        };
        match sv.steps.first() {
            Some(first) => head.push(Span::styled(
                format!(
                    " · {} accepted change{} · unknown before {}{reading}",
                    sv.steps.len(),
                    if sv.steps.len() == 1 { "" } else { "s" },
                    when(first)
                ),
                theme.muted,
            )),
            None => head.push(Span::styled(
                format!(
                    " · no accepted weight change in the results: its history is unknown (now {}){reading}",
                    sv.weight.map_or_else(|| "?".to_owned(), |w| w.to_string())
                ),
                theme.muted,
            )),
        }
        buf.set_line(area.x, area.y, &Line::from(head), area.width);
        let mut bottom = area.bottom();
        // The scan's own answer for the selected SV, on the last line.
        let check = match &self.check {
            Load::Done((party, weight)) if *party == sv.party => {
                let w = weight.as_deref().map_or("none", |w| w);
                let last = sv.steps.last().map(|s| s.weight.to_string());
                let (verdict, style) = match (&last, weight) {
                    (Some(l), Some(w)) if l == w => {
                        ("agrees with the last change", theme.status_ok)
                    }
                    (Some(_), _) => ("differs from the last change", theme.status_err),
                    (None, None) => ("no change known on either side", theme.muted),
                    (None, Some(_)) => ("the results read show no change", theme.status_warn),
                };
                Some(Line::from(vec![
                    Span::styled("scan's previous-sv-reward-weight: ", theme.muted),
                    Span::raw(safe_line(w, 30).into_owned()),
                    Span::styled(" · ", theme.muted),
                    Span::styled(verdict, style),
                ]))
            }
            Load::Failed(e) => Some(Line::styled(
                format!("previous-sv-reward-weight: {}", safe_line(e, 200)),
                theme.status_err,
            )),
            Load::Loading(_) => Some(Line::styled(
                "asking previous-sv-reward-weight…",
                theme.muted,
            )),
            _ => None,
        };
        if let Some(line) = check
            && area.height >= 3
        {
            bottom -= 1;
            buf.set_line(area.x, bottom, &line, area.width);
        }
        if let Some(e) = &self.error
            && bottom > area.y + 2
        {
            bottom -= 1;
            buf.set_line(
                area.x,
                bottom,
                &Line::styled(safe_line(e, 300).into_owned(), theme.status_err),
                area.width,
            );
        }
        let chart_area = Rect::new(
            area.x,
            area.y + 1,
            area.width,
            bottom.saturating_sub(area.y + 1),
        );
        if sv.steps.is_empty() || chart_area.height < 3 {
            return;
        }
        self.render_chart(sv, chart_area, buf, cx);
    }

    /// The step chart: each change holds until the next, the last until now.
    fn render_chart(&self, sv: &SvRow, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let (sh, theme) = (cx.sh, cx.theme);
        let times: Vec<(f64, f64)> = sv
            .steps
            .iter()
            .filter_map(|s| {
                parse_time_micros(&s.effective_at).map(|t| (t as f64 / 1e6, s.weight as f64))
            })
            .collect();
        let Some(&(t0, _)) = times.first() else {
            return;
        };
        let now = (sh.now as f64 / 1e6).max(times.last().map_or(t0, |l| l.0) + 1.0);
        let mut points = Vec::with_capacity(times.len() * 2 + 1);
        for (i, &(t, w)) in times.iter().enumerate() {
            if i > 0 {
                points.push((t, times[i - 1].1));
            }
            points.push((t, w));
        }
        if let Some(&(_, w)) = times.last() {
            points.push((now, w));
        }
        let lo = times.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let hi = times.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
        // A flat history still gets a band to draw in.
        let (lo, hi) = if hi > lo {
            (lo, hi)
        } else {
            (lo - 1.0, hi + 1.0)
        };
        // Dates only (the steps' times are in the table and the results).
        let date = |secs: f64| {
            let t = sh.format_time((secs * 1e6) as i64);
            t.chars().take(10).collect::<String>()
        };
        let dataset = Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.accent)
            .data(&points);
        let chart = Chart::new(vec![dataset])
            .x_axis(
                Axis::default()
                    .style(theme.muted)
                    .bounds([t0, now])
                    .labels(vec![Span::raw(date(t0)), Span::raw(date(now))]),
            )
            .y_axis(
                Axis::default()
                    .style(theme.muted)
                    .bounds([lo, hi])
                    .labels(vec![
                        Span::raw(format!("{lo:.0}")),
                        Span::raw(format!("{hi:.0}")),
                    ]),
            );
        chart.render(area, buf);
    }
}
