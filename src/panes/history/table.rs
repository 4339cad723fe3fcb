//! Drawing the History pane: its title and status, the empty states, and the table's columns
//! and cells (through the kit's `Columns` and `TableRow`).

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;

use crate::model::summary::{SummaryKind, UpdateSummary, short_id, short_party};
use crate::ui::format::{group_thousands, human_span};
use crate::ui::table::{Cell, Column, Columns, Draw, TableRow, Width};
use crate::ui::theme::Theme;

use super::super::{RenderCtx, Shared};
use crate::feed::loader::Phase;

use super::HistoryPane;

impl HistoryPane {
    // ---------------------------------------------------------------------------------------
    // Drawing
    // ---------------------------------------------------------------------------------------

    /// Rows of the filter bar at the bottom.
    pub(super) fn filter_bar_height(&self) -> u16 {
        self.filter.height(self.view.filter.is_some())
    }

    /// List rows available in the last known area.
    pub(super) fn list_viewport(&self) -> usize {
        let inner = self.area.height.saturating_sub(2);
        let used = 1
            + self.filter_bar_height()
            + u16::from(self.earlier_row)
            + u16::from(self.exports.job.is_some())
            + u16::from(self.span.line);
        usize::from(inner.saturating_sub(used).max(1))
    }

    pub(super) fn status_parts(&self, sh: &Shared) -> Vec<(String, StatusTone)> {
        let feed = &sh.feed;
        let mut parts = Vec::new();
        if self.tail.following && sh.ctx.offline {
            // No node is asked: the tail is the index's (it grows while a sync writes it).
            parts.push(("the local index".to_string(), StatusTone::Muted));
        } else if self.tail.following {
            if feed.at_head {
                parts.push(("live".to_string(), StatusTone::Ok));
            } else {
                parts.push(("following".to_string(), StatusTone::Ok));
            }
        } else if feed.phase != Phase::Idle {
            let paused = if self.tail.browsing {
                "browsing"
            } else {
                "paused"
            };
            if self.tail.new_rows > 0 {
                parts.push((
                    format!("{paused} · {} new", group_thousands(self.tail.new_rows)),
                    StatusTone::Warn,
                ));
            } else {
                parts.push((paused.to_string(), StatusTone::Warn));
            }
        }
        match feed.phase {
            Phase::Idle => parts.push(("not started".to_string(), StatusTone::Muted)),
            Phase::Discover => parts.push((
                "finding the current migration…".to_string(),
                StatusTone::Muted,
            )),
            Phase::Seek { secs } => {
                parts.push((
                    format!("looking back {}…", human_span(secs)),
                    StatusTone::Muted,
                ));
            }
            Phase::Forward if !feed.at_head => {
                let text = if feed.loading {
                    "loading…"
                } else {
                    "more below"
                };
                parts.push((text.to_string(), StatusTone::Muted));
            }
            Phase::Forward => {}
            Phase::Stopped => parts.push((
                "stopped: the scan does not page (r retries)".to_string(),
                StatusTone::Err,
            )),
        }
        if feed.failures > 0 {
            parts.push((
                format!("error, retrying ({}×)", feed.failures),
                StatusTone::Err,
            ));
        }
        if let Some(job) = &self.exports.job {
            parts.push((format!("export {}%", job.percent()), StatusTone::Ok));
        }
        if let Some(export) = self.range_badge() {
            parts.push((export, StatusTone::Ok));
        }
        parts
    }

    pub(super) fn title_line(&self, sh: &Shared, theme: &Theme) -> Line<'static> {
        let mut spans = vec![Span::styled("History", theme.title)];
        if self.newest_first {
            spans.push(Span::styled(" · newest first", theme.accent));
        }
        let rows = self.view.len(&sh.history);
        let count = if self.view.filter.is_some() {
            format!(
                "{} of {} updates",
                group_thousands(rows),
                group_thousands(sh.history.len())
            )
        } else {
            format!("{} updates", group_thousands(sh.history.len()))
        };
        if let (Some(first), Some(last)) = (sh.history.first(), sh.history.last()) {
            spans.push(Span::styled(
                format!(
                    " · {}",
                    loaded_range(
                        sh,
                        first.record_time(),
                        last.record_time(),
                        self.area.width >= DATED_RANGE_WIDTH
                    )
                ),
                theme.muted,
            ));
        }
        spans.push(Span::styled(format!(" · {count}"), theme.muted));
        if sh.history.dropped() > 0 {
            spans.push(Span::styled(
                format!(
                    " · memory cap {} MiB: older dropped",
                    sh.feed.memory_budget >> 20
                ),
                theme.status_warn,
            ));
        }
        for (text, tone) in self.status_parts(sh) {
            let style = match tone {
                StatusTone::Ok => theme.status_ok,
                StatusTone::Warn => theme.status_warn,
                StatusTone::Err => theme.status_err,
                StatusTone::Muted => theme.muted,
            };
            spans.push(Span::styled(" · ", theme.muted));
            spans.push(Span::styled(text, style));
        }
        Line::from(spans)
    }

    /// The columns over the rows in `list` (the rows' area) as [`HistoryPane::shown_columns`]
    /// gives them, with the Mig and Kind columns left out of a narrow table when every row in
    /// view reads the same there, and what they would say ([`Columns::folded`]).
    pub(super) fn folded_columns(
        &self,
        sh: &Shared,
        list: Rect,
    ) -> (Columns<HistoryCol>, Vec<(HistoryCol, String)>) {
        let mut scroll = self.scroll;
        let rows = self.view.len(&sh.history);
        if scroll.len() != rows {
            scroll.set_len(rows);
        }
        // Drawn newest first, the same rows are on screen (upside down).
        let in_view: Vec<&UpdateSummary> = scroll
            .visible_range(usize::from(list.height))
            .filter_map(|row| self.view.index(row).and_then(|i| sh.history.get(i)))
            .collect();
        self.shown_columns(sh).folded(list.width, &in_view, sh)
    }

    pub(super) fn render_rows(
        &self,
        cols: &Columns<HistoryCol>,
        area: Rect,
        buf: &mut Buffer,
        cx: RenderCtx<'_>,
    ) {
        let RenderCtx { sh, theme, focused } = cx;
        let rows = self.view.len(&sh.history);
        let width = usize::from(area.width);
        if rows == 0 {
            let text = if sh.history.is_empty() {
                match sh.feed.phase {
                    Phase::Idle => "not started",
                    Phase::Discover | Phase::Seek { .. } => "loading…",
                    Phase::Forward if sh.feed.at_head => "no updates yet: waiting for new ones",
                    Phase::Forward => "loading…",
                    Phase::Stopped => "loading stopped: see the error log (!)",
                }
            } else {
                "no loaded update matches the filter"
            };
            buf.set_stringn(area.x, area.y, text, width, theme.muted);
            return;
        }
        let mut scroll = self.scroll;
        if scroll.len() != rows {
            scroll.set_len(rows);
        }
        let draw = Draw::new(sh, theme, focused);
        let at = |row: usize| self.view.index(row).and_then(|i| sh.history.get(i));
        if self.newest_first {
            // Drawn upside down: screen row r is ledger row rows - 1 - r.
            let mirrored = scroll.mirrored(usize::from(area.height));
            let at = |row: usize| rows.checked_sub(row + 1).and_then(at);
            cols.render_rows(area, buf, &mirrored, at, &draw);
            return;
        }
        cols.render_rows(area, buf, &scroll, at, &draw);
    }

    /// The columns as drawn now: the Time column carries the date only when the loaded rows
    /// span days (in the session's zone); otherwise it is the time of day and the Summary gets
    /// the room.
    pub(super) fn shown_columns(&self, sh: &Shared) -> Columns<HistoryCol> {
        let mut cols = self.columns.clone();
        if !spans_days(sh) {
            cols.set_width(HistoryCol::Time, Width::Fixed(TIME_OF_DAY));
        }
        cols
    }
}

/// Below this table width, a Mig or Kind column that reads the same on every row in view is
/// left out (its value said on the border: [`with_notes`]), and Summary gets its room.
pub(super) const FOLD_BELOW: u16 = 100;

/// The pane's border with what is said on the right of its title (`migration 1`) and the
/// values of the folded columns (`mig 1 · transactions`): on the right of the title where they
/// do not cut it (the folded columns' alone if both do not fit), else those on the bottom
/// border.
pub(super) fn with_notes<'a>(
    block: Block<'a>,
    right: Option<&str>,
    notes: &[(HistoryCol, String)],
    title_width: usize,
    width: u16,
    theme: &Theme,
) -> Block<'a> {
    let notes: Vec<&str> = notes.iter().map(|(_, n)| n.as_str()).collect();
    let both: Vec<&str> = right.into_iter().chain(notes.clone()).collect();
    let fits =
        |text: &str| width >= 60 && title_width + text.chars().count() + 3 <= usize::from(width);
    for text in [both.join(" · "), notes.join(" · ")] {
        if !text.is_empty() && fits(&text) {
            return block.title_top(Line::styled(text, theme.muted).right_aligned());
        }
    }
    if notes.is_empty() {
        return block;
    }
    block.title_bottom(Line::styled(notes.join(" · "), theme.muted).right_aligned())
}

/// What a folded column of History says (`mig 1`, `transactions`).
pub(super) fn fold_note(col: HistoryCol, title: &str, value: &str) -> String {
    match col {
        HistoryCol::Kind if value == "malformed" => value.to_owned(),
        HistoryCol::Kind => format!("{value}s"),
        _ => format!("{} {value}", title.to_lowercase()),
    }
}

/// The width of a dated time (`2026-11-27 09:04:51.604`).
const DATED_TIME: u16 = 23;

/// The width of a time of day (`09:04:51.604`).
const TIME_OF_DAY: u16 = 12;

/// Whether the loaded updates span more than one day in the session's zone.
pub(super) fn spans_days(sh: &Shared) -> bool {
    match (sh.history.first(), sh.history.last()) {
        (Some(first), Some(last)) => {
            let (a, b) = (
                sh.format_time(first.record_time()),
                sh.format_time(last.record_time()),
            );
            a.get(..10) != b.get(..10)
        }
        _ => false,
    }
}

/// The part of an update id that tells updates apart, as much as fits in `width`: without the
/// `1220` multihash prefix every scan update id starts with.
pub(super) fn distinct_id(id: &str, width: u16) -> String {
    let rest = id
        .strip_prefix("1220")
        .filter(|r| !r.is_empty())
        .unwrap_or(id);
    short_id(rest, usize::from(width.saturating_sub(1)).max(4))
}

/// The pane width from which the title's range shows dates when it spans days (narrower, the
/// title keeps its room for the count and the state).
pub(super) const DATED_RANGE_WIDTH: u16 = 100;

/// The loaded range for the title: `14:02–14:12 UTC`, with dates when it spans days and
/// `dated` (`11-21 23:50–11-22 00:10 UTC`).
pub(super) fn loaded_range(sh: &Shared, first: i64, last: i64, dated: bool) -> String {
    let (a, b) = (sh.format_time(first), sh.format_time(last));
    let same_day = !dated || a.get(..10) == b.get(..10);
    let cut = |t: &str| -> String {
        let range = if same_day { 11..16 } else { 5..16 };
        t.get(range).unwrap_or(t).to_string()
    };
    format!("{}–{} {}", cut(&a), cut(&b), sh.zone_label())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StatusTone {
    Ok,
    Warn,
    Err,
    Muted,
}

/// A column of the History table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryCol {
    Time,
    Migration,
    Kind,
    Id,
    Summary,
    Events,
    Synchronizer,
    /// The parties of the update (their names, before `::`), from 190 columns on.
    Parties,
}

/// The table's columns: low-value ones go first as it narrows (the synchronizer, the migration,
/// the event count…), the time keeps only the time of day below 72 columns (and always when
/// the loaded rows are all of one day: [`HistoryPane::shown_columns`]). Ledger order: the
/// table is not sorted.
pub(super) fn columns() -> Columns<HistoryCol> {
    let col = |id, title, width| Column::new(id, title, Width::Fixed(width)).unsortable();
    Columns::new(vec![
        Column::new(
            HistoryCol::Time,
            "Time",
            Width::Wide {
                narrow: 12,
                wide: DATED_TIME,
                from: 72,
            },
        )
        .unsortable()
        .priority(8),
        col(HistoryCol::Migration, "Mig", 3)
            .right()
            .priority(2)
            .folds(),
        col(HistoryCol::Kind, "Kind", 11).priority(6).folds(),
        Column::new(HistoryCol::Id, "Update", Width::Fill { min: 10, weight: 1 })
            .unsortable()
            .priority(5),
        Column::new(
            HistoryCol::Summary,
            "Summary",
            Width::Fill { min: 24, weight: 3 },
        )
        .unsortable(),
        col(HistoryCol::Events, "Events", 6).right().priority(3),
        col(HistoryCol::Synchronizer, "Synchronizer", 16).priority(1),
        // A wide screen shows who took part rather than a still wider Summary.
        Column::new(
            HistoryCol::Parties,
            "Parties",
            Width::Wide {
                narrow: 0,
                wide: 40,
                from: 190,
            },
        )
        .unsortable()
        .priority(4),
    ])
    .fold_below(FOLD_BELOW)
}

impl TableRow for UpdateSummary {
    type Col = HistoryCol;
    /// Times in the session's zone, labels from the history's interner.
    type Ctx = Shared;

    fn cell(&self, col: HistoryCol, width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        let interner = &sh.history.summarizer.interner;
        match col {
            HistoryCol::Time => {
                let mut t = sh.format_time(self.record_time());
                if width < DATED_TIME && t.get(11..).is_some() {
                    t.drain(..11);
                }
                Cell::new(t, theme.time)
            }
            HistoryCol::Migration => Cell::new(self.migration_id().to_string(), Style::default()),
            HistoryCol::Kind => {
                let style = match self.kind() {
                    SummaryKind::Transaction => theme.exercised,
                    SummaryKind::Assign => theme.assign,
                    SummaryKind::Unassign => theme.unassign,
                    SummaryKind::Malformed => theme.status_err,
                };
                Cell::new(self.kind().label(), style)
            }
            HistoryCol::Id => Cell::new(distinct_id(&self.update_id(), width), theme.id),
            HistoryCol::Summary => {
                let style = if self.kind() == SummaryKind::Malformed {
                    theme.status_err
                } else {
                    Style::default()
                };
                Cell::new(self.root_label_within(interner, usize::from(width)), style)
            }
            HistoryCol::Events => Cell::new(self.event_count().to_string(), theme.muted),
            HistoryCol::Parties => {
                let mut names = String::new();
                for p in sh.history.parties_of(self) {
                    if !names.is_empty() {
                        names.push_str(", ");
                    }
                    names.push_str(p.split_once("::").map_or(p, |(name, _)| name));
                }
                Cell::new(names, theme.muted)
            }
            HistoryCol::Synchronizer => Cell::new(
                short_party(interner.resolve(self.synchronizer())).to_owned(),
                theme.party,
            ),
        }
    }

    /// Unused: the History filter matches summaries by field (`model::history::Filter`).
    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Owned(self.update_id().to_string())
    }

    fn title(col: HistoryCol, sh: &Shared) -> Option<Cow<'static, str>> {
        (col == HistoryCol::Time).then(|| Cow::Owned(format!("Time ({})", sh.zone_label())))
    }

    fn fold_note(col: HistoryCol, title: &str, value: &str, _: &Shared) -> String {
        fold_note(col, title, value)
    }
}

/// Writes `text` on row `y` from `x`, at most `width` columns, neutralised and cut to fit.
pub(super) fn put_line(
    buf: &mut ratatui::buffer::Buffer,
    x: u16,
    y: u16,
    width: u16,
    text: &str,
    style: ratatui::style::Style,
) {
    let line = ratatui::text::Line::styled(
        crate::ui::safe::safe_line(text, usize::from(width)).into_owned(),
        style,
    );
    buf.set_line(x, y, &line, width);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_fill_the_width_and_drop_low_value_ones() {
        let cols = columns();
        for w in [0u16, 10, 40, 51, 52, 78, 80, 100, 118, 200] {
            let layout = cols.layout(w);
            let last = layout.last().expect("a column");
            assert_eq!(last.x + last.width, w, "width {w}");
            assert!(layout.iter().any(|c| c.id == HistoryCol::Summary));
        }
        let ids = |w| cols.layout(w).iter().map(|c| c.id).collect::<Vec<_>>();
        assert_eq!(
            ids(78),
            vec![
                HistoryCol::Time,
                HistoryCol::Kind,
                HistoryCol::Id,
                HistoryCol::Summary,
                HistoryCol::Events
            ]
        );
        assert!(ids(118).contains(&HistoryCol::Synchronizer));
    }
}
