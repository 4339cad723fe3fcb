//! The Across scans section (`b` in the pane): the results count and the active requests of
//! every scan of the network side by side, each question grouped with the consensus rules of
//! the Network pane (`Request::OnEveryScan`; the requests' list sorted first, so its order
//! never matters). A scan whose answer differs is named with both values; a vote cast in the
//! last seconds may not have reached every scan yet, so the section says to check again (`b`)
//! before calling a difference in the active requests a disagreement.
//!
//! ```text
//! results count   consensus: 3 of 4 agree on one answer (quorum 2) ✓ · 1 disagrees
//! active requests consensus: 4 of 4 agree on one answer (quorum 2) ✓
//! SV               Results count                  Active requests
//! Lagging-Node-4   differs: 11 here, 14 there     3 open · 7 votes
//! ```

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::api::scan::{self, VoteResultsFilter};
use crate::model::governance::AcrossCell;
use crate::model::governance::{AcrossScans, ScanRow, VOTE_REQUESTS_UNORDERED, across_scans};
use crate::model::network::NetworkCheck;
use crate::msg::{Effect, Fetched, Request, Response};
use crate::panes::{Out, RenderCtx, Shared};
use crate::ui::explain::explain;
use crate::ui::form::paragraph;
use crate::ui::load::Load;
use crate::ui::safe::safe_line;
use crate::ui::table::{
    Cell, Column, Columns, DataTable, Draw, SortKey, TableInput, TableRow, Width,
};
use crate::ui::theme::Theme;

/// What the section says before `b`.
pub const ACROSS_IDLE_TEXT: &str =
    "b asks every scan for its results count and its active requests and compares them.";

/// What the section says while the scans are asked.
pub const ACROSS_LOADING_TEXT: &str = "asking every scan…";

/// The note under a difference in the active requests.
pub const RECENT_VOTE_NOTE: &str = "a vote cast in the last seconds may not have reached every \
     scan yet: press b to check again before calling it a disagreement";

/// The note under a difference in the results count.
pub const MISSING_HISTORY_NOTE: &str = "a lower count: that scan misses vote results (older \
     scans lack vote history before Nov 2024 while reporting their backfill complete)";

/// A column of the section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AcrossCol {
    #[default]
    Sv,
    Count,
    Requests,
}

fn cell_style(c: &AcrossCell, theme: &Theme) -> Style {
    match c {
        AcrossCell::Agree(_) => theme.status_ok,
        AcrossCell::Differs { .. } => theme.status_err,
        AcrossCell::Unconfirmed(_) | AcrossCell::Missing => theme.muted,
        AcrossCell::Failed(_) => theme.status_warn,
    }
}

impl TableRow for ScanRow {
    type Col = AcrossCol;
    type Ctx = Shared;

    fn cell(&self, col: AcrossCol, _width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        match col {
            AcrossCol::Sv => Cell::new(
                format!(
                    "{}{}",
                    if sh.health.dso.is_mine(&self.sv_name) {
                        "★ "
                    } else {
                        ""
                    },
                    safe_line(&self.sv_name, 60)
                ),
                theme.accent,
            ),
            AcrossCol::Count => Cell::new(
                safe_line(&self.count.words(), 200).into_owned(),
                cell_style(&self.count, theme),
            ),
            AcrossCol::Requests => Cell::new(
                safe_line(&self.requests.words(), 200).into_owned(),
                cell_style(&self.requests, theme),
            ),
        }
    }

    fn sort_key(&self, col: AcrossCol) -> SortKey<'_> {
        match col {
            AcrossCol::Sv => SortKey::Int(self.index as i128),
            AcrossCol::Count => SortKey::Text(Cow::Owned(self.count.words())),
            AcrossCol::Requests => SortKey::Text(Cow::Owned(self.requests.words())),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Owned(format!(
            "{} {} {}",
            self.sv_name,
            self.count.words(),
            self.requests.words()
        ))
    }
}

fn columns() -> Columns<AcrossCol> {
    Columns::new(vec![
        Column::new(AcrossCol::Sv, "SV", Width::Fixed(20)),
        Column::new(AcrossCol::Count, "Results count", Width::fill(16)),
        Column::new(AcrossCol::Requests, "Active requests", Width::fill(16)).priority(5),
    ])
    .sorted_by(AcrossCol::Sv, false)
}

/// The section's state.
#[derive(Debug)]
pub struct AcrossView {
    count: Load<NetworkCheck>,
    requests: Load<NetworkCheck>,
    /// Both answers side by side, once both arrived.
    pub scans: Option<AcrossScans>,
    pub table: DataTable<AcrossCol>,
}

impl Default for AcrossView {
    fn default() -> Self {
        AcrossView {
            count: Load::Idle,
            requests: Load::Idle,
            scans: None,
            table: DataTable::new(columns()),
        }
    }
}

impl AcrossView {
    /// Asks every scan (again).
    pub fn ask(&mut self, sh: &mut Shared, out: &mut Out) {
        let count = Request::on_every_scan(
            scan::vote_results_count(&VoteResultsFilter::default()),
            "vote results count",
            sh.now,
        );
        let requests = Request::on_every_scan_sorted(
            scan::vote_requests(),
            "active vote requests",
            sh.now,
            VOTE_REQUESTS_UNORDERED,
        );
        let id = out.fetch(sh, count);
        if let Some(old) = self.count.start(id) {
            out.effects.push(Effect::Cancel(old));
        }
        let id = out.fetch(sh, requests);
        if let Some(old) = self.requests.start(id) {
            out.effects.push(Effect::Cancel(old));
        }
    }

    /// Whether the scans are being asked.
    pub fn is_loading(&self) -> bool {
        self.count.is_loading() || self.requests.is_loading()
    }

    /// Takes a reply to one of the two questions; returns whether it was one.
    pub fn on_fetched(&mut self, reply: &Fetched) -> bool {
        let pick = |r: &Response| match r {
            Response::NetworkCheck(c) => Some(c.as_ref().clone()),
            _ => None,
        };
        let explain_it = |f: crate::ui::load::Failure<'_>| {
            f.text(|e| explain(e, "the network's scans could not be asked"))
        };
        if let Some(answer) = self.count.accept(reply, "the results count", pick) {
            self.count = answer.map_or_else(|f| Load::Failed(explain_it(f)), Load::Done);
        } else if let Some(answer) = self.requests.accept(reply, "the active requests", pick) {
            self.requests = answer.map_or_else(|f| Load::Failed(explain_it(f)), Load::Done);
        } else {
            return false;
        }
        if let (Some(c), Some(r)) = (self.count.done(), self.requests.done()) {
            let scans = across_scans(c, r);
            self.table.set_rows(&scans.rows);
            self.scans = Some(scans);
        }
        true
    }

    /// A table command or key.
    pub fn input(&mut self, input: TableInput<'_>) -> bool {
        match &self.scans {
            Some(s) => self.table.input(input, &s.rows),
            None => false,
        }
    }

    /// Draws the section.
    pub fn render(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let theme = cx.theme;
        let failure = self.count.failure().or(self.requests.failure());
        let Some(scans) = &self.scans else {
            let (text, style) = match failure {
                Some(e) => (e, theme.status_err),
                None if self.is_loading() => (ACROSS_LOADING_TEXT, theme.muted),
                None => (ACROSS_IDLE_TEXT, theme.muted),
            };
            paragraph(area, buf, text, style);
            return;
        };
        let mut lines = vec![
            Line::from(vec![
                Span::styled(format!("{:<16}", "results count"), theme.muted),
                Span::raw(scans.count_verdict.clone()),
            ]),
            Line::from(vec![
                Span::styled(format!("{:<16}", "active requests"), theme.muted),
                Span::raw(scans.requests_verdict.clone()),
            ]),
        ];
        let mut checked = format!(
            "checked {} {}",
            cx.sh.format_time(scans.checked_at),
            cx.sh.zone_label()
        );
        if self.is_loading() {
            checked.push_str(" · asking again…");
        }
        lines.push(Line::styled(checked, theme.muted));
        let mut notes: Vec<(String, Style)> = Vec::new();
        for r in scans.count_differs() {
            notes.push((
                format!(
                    "{} {}",
                    safe_line(&r.sv_name, 60),
                    safe_line(&r.count.words(), 100)
                ),
                theme.status_err,
            ));
        }
        if !scans.count_differs().is_empty() {
            notes.push((MISSING_HISTORY_NOTE.to_owned(), theme.muted));
        }
        if !scans.requests_differ().is_empty() {
            notes.push((RECENT_VOTE_NOTE.to_owned(), theme.status_warn));
        }
        let mut y = area.y;
        for line in &lines {
            if y >= area.bottom() {
                return;
            }
            buf.set_line(area.x, y, line, area.width);
            y += 1;
        }
        let width = usize::from(area.width.max(1));
        let notes_h: u16 = notes
            .iter()
            .map(|(t, _)| u16::try_from(t.chars().count().div_ceil(width)).unwrap_or(1))
            .sum();
        let want = u16::try_from(scans.rows.len() + 1).unwrap_or(u16::MAX);
        let table_h = area
            .bottom()
            .saturating_sub(y)
            .saturating_sub(notes_h)
            .min(want);
        let draw = Draw::new(cx.sh, theme, cx.focused);
        self.table.render(
            Rect::new(area.x, y, area.width, table_h),
            buf,
            &scans.rows,
            &draw,
        );
        y += table_h;
        for (text, style) in &notes {
            if y >= area.bottom() {
                return;
            }
            y += paragraph(
                Rect::new(area.x, y, area.width, area.bottom() - y),
                buf,
                text,
                *style,
            );
        }
    }
}
