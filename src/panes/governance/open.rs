//! The Open section: every active vote request, soonest deadline first, as a table (action,
//! requester, deadline countdown, votes against the threshold, my SV's vote).

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;

use super::GovernancePane;
use crate::model::format::human_duration;
use crate::model::governance::{MyVote, OpenRequest, Urgency};
use crate::panes::{RenderCtx, Shared};
use crate::ui::form::paragraph;
use crate::ui::safe::safe_line;
use crate::ui::table::{Cell, Column, Columns, Draw, SortKey, TableRow, Width};
use crate::ui::theme::Theme;

/// What Open says before the first answer.
pub const LOADING_TEXT: &str = "reading the open vote requests…";

/// What Open says when nothing is open.
pub const NONE_OPEN_TEXT: &str = "No vote request is open.";

/// `in 19h 59m`, or `passed 5m ago`.
pub fn deadline_words(left: i64) -> String {
    if left >= 0 {
        format!("in {}", human_duration(left))
    } else {
        format!("passed {} ago", human_duration(-left))
    }
}

/// The style of a deadline `left` µs away: red under two hours, amber under a day.
pub fn urgency_style(left: i64, theme: &Theme) -> Style {
    match Urgency::of(left) {
        Urgency::Urgent => theme.status_err,
        Urgency::Soon => theme.status_warn,
        Urgency::Calm => Style::default(),
    }
}

/// The style of my SV's vote.
pub fn my_vote_style(vote: MyVote, theme: &Theme) -> Style {
    match vote {
        MyVote::Needed => theme.status_warn,
        MyVote::Accepted => theme.status_ok,
        MyVote::Rejected => theme.status_err,
    }
}

/// A column of Open (also the sort key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OpenCol {
    #[default]
    Deadline,
    Action,
    Requester,
    Votes,
    MyVote,
}

impl OpenCol {
    pub(super) fn columns() -> Columns<OpenCol> {
        Columns::new(vec![
            Column::new(OpenCol::Deadline, "Deadline", Width::Fixed(16)),
            Column::new(OpenCol::Action, "Action", Width::fill(20)),
            Column::new(OpenCol::Requester, "Requester", requester_width(12)).priority(4),
            Column::new(
                OpenCol::Votes,
                "Votes",
                Width::Wide {
                    narrow: 17,
                    wide: 48,
                    from: 110,
                },
            )
            .priority(8),
            Column::new(OpenCol::MyVote, "My vote", Width::Fixed(8)).priority(9),
        ])
        .sorted_by(OpenCol::Deadline, false)
    }
}

/// The Requester column: 12 wide below 150 columns, else as wide as the longest name (up to
/// 40).
pub(super) fn requester_width(longest: usize) -> Width {
    Width::Wide {
        narrow: 12,
        wide: u16::try_from(longest.clamp(12, 40)).unwrap_or(40),
        from: 150,
    }
}

/// The compact votes: `4/5 2✓ 0✗ 3?` (needed of threshold, accept, reject, not yet).
pub fn compact_votes(r: &OpenRequest) -> String {
    let t = &r.tally;
    let needed = t
        .threshold
        .map_or_else(|| "?".to_string(), |n| n.to_string());
    format!(
        "{}/{needed} {}✓ {}✗ {}?",
        t.accept, t.accept, t.reject, t.not_yet
    )
}

impl TableRow for OpenRequest {
    type Col = OpenCol;
    /// The time now (µs), for the countdowns.
    type Ctx = i64;

    fn cell(&self, col: OpenCol, width: u16, now: &i64, theme: &Theme) -> Cell<'_> {
        match col {
            OpenCol::Deadline => match self.deadline() {
                Some(at) => Cell::new(deadline_words(at - now), urgency_style(at - now, theme)),
                None => Cell::new(safe_line(&self.vote_before, 16).into_owned(), theme.muted),
            },
            OpenCol::Action => Cell::new(safe_line(&self.action, 400), Style::default()),
            OpenCol::Requester => Cell::new(safe_line(&self.requester, 60), theme.party),
            OpenCol::Votes => {
                let style = if self.tally.passes() {
                    theme.status_ok
                } else {
                    Style::default()
                };
                if usize::from(width) >= self.votes_words.chars().count() {
                    Cell::new(self.votes_words.as_str(), style)
                } else {
                    Cell::new(compact_votes(self), style)
                }
            }
            OpenCol::MyVote => match self.my_vote {
                Some(v) => Cell::new(v.word(), my_vote_style(v, theme)),
                None => Cell::new("unknown", theme.muted),
            },
        }
    }

    fn sort_key(&self, col: OpenCol) -> SortKey<'_> {
        match col {
            OpenCol::Deadline => self
                .deadline()
                .map_or(SortKey::Missing, |d| SortKey::Int(d.into())),
            OpenCol::Action => SortKey::Text(Cow::Borrowed(&self.action)),
            OpenCol::Requester => SortKey::Text(Cow::Borrowed(&self.requester)),
            OpenCol::Votes => SortKey::Int(self.tally.accept as i128),
            OpenCol::MyVote => {
                SortKey::Text(Cow::Borrowed(self.my_vote.map_or("unknown", MyVote::word)))
            }
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Owned(format!(
            "{} {} {} {}",
            self.action, self.requester, self.action_name, self.key
        ))
    }
}

impl GovernancePane {
    /// Rebuilds the rows from the last answer and the DSO; returns whether they changed.
    pub(super) fn sync_rows(&mut self, sh: &Shared) -> bool {
        let rows = self
            .watch
            .rows(sh.health.dso.info.as_deref(), sh.health.dso.my_sv())
            .unwrap_or_default();
        if rows == self.rows {
            return false;
        }
        self.rows = rows;
        let longest = self
            .rows
            .iter()
            .map(|r| safe_line(&r.requester, 60).chars().count())
            .max()
            .unwrap_or(0);
        self.table
            .columns_mut()
            .set_width(OpenCol::Requester, requester_width(longest));
        self.table.set_rows(&self.rows);
        true
    }

    pub(super) fn render_open(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let theme = cx.theme;
        let mut area = area;
        if let Some(e) = &self.watch.error {
            let used = paragraph(
                Rect::new(area.x, area.y, area.width, 1),
                buf,
                &format!("error: {e}"),
                theme.status_err,
            );
            area.y += used;
            area.height -= used;
        }
        if self.watch.requests.is_none() {
            if self.watch.error.is_none() {
                paragraph(area, buf, LOADING_TEXT, theme.muted);
            }
            return;
        }
        if self.rows.is_empty() {
            paragraph(area, buf, NONE_OPEN_TEXT, theme.muted);
            return;
        }
        let draw = Draw::new(&cx.sh.now, theme, cx.focused);
        self.table.render(area, buf, &self.rows, &draw);
    }
}
