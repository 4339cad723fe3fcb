//! The Open section: every active vote request, soonest deadline first, as a table (deadline
//! countdown, and the deadline itself where the width allows; action, requester, votes against
//! the threshold, my SV's vote). The votes read in words as wide as the column allows
//! (`3 of 4 needed · 1 accept · 1 reject · 2 not yet`, `1 yes 1 no 2 open`); where only the
//! compact `1/3 1✓ 1✗ 2?` fits, a legend line under the table says what it means.

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
use crate::ui::table::{Align, Cell, Column, Columns, Draw, SortKey, TableRow, Width, put};
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
    /// The deadline itself, in the session's zone (where the width allows).
    Closes,
    Action,
    Requester,
    Votes,
    MyVote,
}

impl OpenCol {
    pub(super) fn columns() -> Columns<OpenCol> {
        Columns::new(vec![
            Column::new(OpenCol::Deadline, "Deadline", Width::Fixed(16)),
            Column::new(OpenCol::Closes, "Closes", Width::Fixed(16))
                .unsortable()
                .priority(3),
            Column::new(OpenCol::Action, "Action", Width::fill(20)),
            Column::new(OpenCol::Requester, "Requester", requester_width(12)).priority(4),
            Column::new(
                OpenCol::Votes,
                "Votes",
                Width::Wide {
                    narrow: VOTES_NARROW,
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

/// The Votes column below 110 columns: room for the short words with a two-digit count
/// (`2 yes 0 no 11 open`).
const VOTES_NARROW: u16 = 18;

/// What the compact votes mean, under the table when a row shows them.
pub const VOTES_LEGEND: &str =
    "votes 1/3 1✓ 0✗ 2?: 1 accept of 3 needed · ✓ accept · ✗ reject · ? not voted yet";

/// The votes in short words: `1 yes 0 no 2 open` (accept, reject, not yet).
pub fn short_votes(r: &OpenRequest) -> String {
    let t = &r.tally;
    format!("{} yes {} no {} open", t.accept, t.reject, t.not_yet)
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
    /// The time now (for the countdowns) and the session's zone.
    type Ctx = Shared;

    fn cell(&self, col: OpenCol, width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        let now = sh.now;
        match col {
            OpenCol::Deadline => match self.deadline() {
                Some(at) => Cell::new(deadline_words(at - now), urgency_style(at - now, theme)),
                None => Cell::new(safe_line(&self.vote_before, 16).into_owned(), theme.muted),
            },
            // To the minute: `2026-11-28 07:04`.
            OpenCol::Closes => match self.deadline() {
                Some(at) => {
                    let t = sh.format_time(at);
                    Cell::new(t.get(..16).unwrap_or(&t).to_owned(), theme.time)
                }
                None => Cell::empty(),
            },
            OpenCol::Action => Cell::new(safe_line(&self.action, 400), Style::default()),
            OpenCol::Requester => Cell::new(safe_line(&self.requester, 60), theme.party),
            OpenCol::Votes => {
                let style = if self.tally.passes() {
                    theme.status_ok
                } else {
                    Style::default()
                };
                let short = short_votes(self);
                if usize::from(width) >= self.votes_words.chars().count() {
                    Cell::new(self.votes_words.as_str(), style)
                } else if usize::from(width) >= short.chars().count() {
                    Cell::new(short, style)
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
            OpenCol::Deadline | OpenCol::Closes => self
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

    fn title(col: OpenCol, sh: &Shared) -> Option<Cow<'static, str>> {
        (col == OpenCol::Closes).then(|| Cow::Owned(format!("Closes ({})", sh.zone_label())))
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
        let area = votes_legend(self.table.columns(), &self.rows, area, buf, theme);
        let draw = Draw::new(cx.sh, theme, cx.focused);
        self.table.render(area, buf, &self.rows, &draw);
    }
}

/// Where a row's votes only fit compact (`1/3 1✓ 1✗ 2?`), the last line of `area` says what
/// they mean; returns the area left for the table.
fn votes_legend(
    cols: &Columns<OpenCol>,
    rows: &[OpenRequest],
    mut area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
) -> Rect {
    let votes = cols
        .layout(area.width)
        .into_iter()
        .find(|p| p.id == OpenCol::Votes)
        .map(|p| usize::from(p.width));
    let compact = votes.is_some_and(|w| rows.iter().any(|r| short_votes(r).chars().count() > w));
    if compact && area.height >= 3 {
        area.height -= 1;
        put(
            buf,
            area.x,
            area.bottom(),
            VOTES_LEGEND,
            area.width,
            Align::Left,
            theme.muted,
        );
    }
    area
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::governance::Tally;

    fn request(accept: usize, reject: usize, not_yet: usize) -> OpenRequest {
        let tally = Tally {
            threshold: Some(9),
            svs: accept + reject + not_yet,
            accept,
            reject,
            not_yet,
        };
        OpenRequest {
            key: "k".into(),
            contract_id: "c".into(),
            tracking_cid: None,
            action_name: "SRARC_X".into(),
            action: "set DsoRules config".into(),
            requester: "Aurora-Node-1".into(),
            reason_url: String::new(),
            reason: String::new(),
            vote_before: String::new(),
            target_effective_at: None,
            votes_words: tally.words(),
            tally,
            my_vote: None,
            action_json: serde_json::Value::Null,
        }
    }

    /// The legend line shows only when a row's votes do not fit in words.
    #[test]
    fn a_legend_says_what_compact_votes_mean_only_when_a_row_needs_them() {
        let cols = OpenCol::columns();
        let theme = Theme::default();
        let area = Rect::new(0, 0, 80, 10);
        let last_line = |buf: &Buffer| {
            (0..80)
                .map(|x| buf[(x, 9)].symbol().to_string())
                .collect::<String>()
        };
        // `2 yes 0 no 11 open` fits the 18 columns of the Votes at 80: no legend.
        let mut buf = Buffer::empty(area);
        let left = votes_legend(&cols, &[request(2, 0, 11)], area, &mut buf, &theme);
        assert_eq!(left, area);
        assert!(last_line(&buf).trim().is_empty());
        // `10 yes 11 no 12 open` does not: the compact votes and the legend under them.
        let wide = request(10, 11, 12);
        assert!(short_votes(&wide).chars().count() > usize::from(VOTES_NARROW));
        let mut buf = Buffer::empty(area);
        let left = votes_legend(&cols, &[request(1, 0, 2), wide], area, &mut buf, &theme);
        assert_eq!(left.height, 9);
        assert!(
            last_line(&buf).starts_with("votes 1/3 1✓ 0✗ 2?: 1 accept of 3 needed"),
            "{}",
            last_line(&buf)
        );
        // Wide enough for the words: no legend.
        let area = Rect::new(0, 0, 160, 10);
        let mut buf = Buffer::empty(area);
        assert_eq!(
            votes_legend(&cols, &[request(10, 11, 12)], area, &mut buf, &theme),
            area
        );
    }
}
