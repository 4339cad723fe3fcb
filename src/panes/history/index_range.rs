//! History reaching back through the local index: the list of every update the index keeps
//! from a time on (`L` back to the span's start, `:time` and scrolling above the loaded window
//! over the whole index), read a page of [`RANGE_PAGE`] summary rows at a time around the
//! rows on screen (an effect each, latest request wins) and kept in a bounded cache of
//! [`KEPT_PAGES`] pages, so memory stays bounded whatever the span: no update body is held.
//! The list's length is the index's count for the range (so the title and the position are
//! right before any row is read); the selection keeps its row while pages arrive. The loaded
//! history (the live tail, in memory) goes on below it; Esc or `f` goes back to it.
//!
//! ```text
//! ┌History · 11-26 14:00–11-27 14:00 UTC · 1,234,567 updates (local index)───────┐
//! │Time (UTC)              Kind        Update     Summary                    Events│
//! │2026-11-26 14:00:01.123 transaction d17b…9f1e  transfer alice → bob 25.00       │
//! │…                                                                              │
//! │the local index · ↵ open · Esc loaded rows · f follow · / F search the index     │
//! └───────────────────────────────────────────────────────────────────────────────┘
//! ```

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Widget};

use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::index::SearchRow;
use crate::model::index::read::{IndexAnswer, IndexRead, RANGE_PAGE};
use crate::msg::{Command, Fetched, Request, RequestId};
use crate::ui::format::group_thousands;
use crate::ui::safe::safe_line;
use crate::ui::scroll::ScrollState;
use crate::ui::table::{Cell, Draw, TableRow};
use crate::ui::theme::Theme;

use super::super::{AppEvent, Out, RenderCtx, Shared};
use super::HistoryPane;
use super::table::{DATED_RANGE_WIDTH, HistoryCol, distinct_id, loaded_range};

/// Pages of rows kept at most (the ones farthest from the selection leave first).
pub const KEPT_PAGES: usize = 8;

/// One row of History read from the index: the summary row fields the index keeps (no body,
/// no event count, no synchronizer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedRow {
    /// µs (`None`: a row not read yet).
    pub record_time: Option<i64>,
    pub migration_id: i64,
    pub update_id: String,
    pub kind: String,
    pub summary: String,
}

/// What a row not read yet shows.
static READING: IndexedRow = IndexedRow {
    record_time: None,
    migration_id: 0,
    update_id: String::new(),
    kind: String::new(),
    summary: String::new(),
};

impl IndexedRow {
    fn of(r: SearchRow) -> Self {
        IndexedRow {
            record_time: parse_time_micros(&r.record_time),
            migration_id: r.migration_id,
            update_id: r.update_id,
            kind: r.kind,
            summary: r.root_action,
        }
    }
}

impl TableRow for IndexedRow {
    type Col = HistoryCol;
    type Ctx = Shared;

    fn cell(&self, col: HistoryCol, width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        let Some(time) = self.record_time else {
            return match col {
                HistoryCol::Time => Cell::new("…", theme.muted),
                _ => Cell::new("", theme.muted),
            };
        };
        match col {
            HistoryCol::Time => {
                let t = sh.format_time(time);
                let t = if width < 23 {
                    t.get(11..).map(str::to_string).unwrap_or(t)
                } else {
                    t
                };
                Cell::new(t, theme.time)
            }
            HistoryCol::Migration => Cell::new(self.migration_id.to_string(), Style::default()),
            HistoryCol::Kind => {
                let style = match self.kind.as_str() {
                    "transaction" => theme.exercised,
                    "assign" => theme.assign,
                    "unassign" => theme.unassign,
                    _ => theme.status_err,
                };
                Cell::new(self.kind.clone(), style)
            }
            HistoryCol::Id => Cell::new(distinct_id(&self.update_id, width), theme.id),
            HistoryCol::Summary => Cell::new(self.summary.clone(), Style::default()),
            // The index keeps neither: shown empty rather than guessed.
            HistoryCol::Events | HistoryCol::Synchronizer | HistoryCol::Parties => {
                Cell::new("", theme.muted)
            }
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.update_id)
    }

    fn title(col: HistoryCol, sh: &Shared) -> Option<Cow<'static, str>> {
        (col == HistoryCol::Time).then(|| Cow::Owned(format!("Time ({})", sh.zone_label())))
    }
}

/// Where the selection goes once the list's length is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Land {
    /// The first row at or after this time (µs).
    At(i64),
    /// The row just before this time (µs): scrolling up from the loaded rows.
    Before(i64),
    /// The newest row.
    Last,
}

/// History's list read from the index, from `since` on.
#[derive(Debug, Clone)]
pub struct IndexRange {
    since: i64,
    /// Every row of the range, once counted.
    total: Option<u64>,
    /// Pages read (page number, rows), at most [`KEPT_PAGES`].
    pages: Vec<(usize, Vec<IndexedRow>)>,
    /// The read in flight (latest request wins) and its page.
    pending: Option<(RequestId, usize)>,
    /// Where to select once counted.
    land: Option<Land>,
    error: Option<String>,
    scroll: ScrollState,
}

impl IndexRange {
    fn new(since: i64, land: Land) -> Self {
        IndexRange {
            since,
            total: None,
            pages: Vec::new(),
            pending: None,
            land: Some(land),
            error: None,
            scroll: ScrollState::new(0),
        }
    }

    /// Where the list starts (µs).
    pub fn since(&self) -> i64 {
        self.since
    }

    /// How many rows the list has, once counted.
    pub fn total(&self) -> Option<u64> {
        self.total
    }

    /// The selected row number.
    pub fn cursor(&self) -> usize {
        self.scroll.cursor()
    }

    /// Rows held in memory now (the pages read and kept).
    pub fn rows_held(&self) -> usize {
        self.pages.iter().map(|(_, rows)| rows.len()).sum()
    }

    /// Row `i`, when its page is kept.
    pub fn row(&self, i: usize) -> Option<&IndexedRow> {
        let page = i / RANGE_PAGE;
        self.pages
            .iter()
            .find(|(p, _)| *p == page)
            .and_then(|(_, rows)| rows.get(i % RANGE_PAGE))
    }

    /// The selected row, when read.
    pub fn selected(&self) -> Option<&IndexedRow> {
        self.row(self.scroll.cursor())
    }

    /// Whether a page is being read.
    pub fn is_loading(&self) -> bool {
        self.pending.is_some()
    }

    /// The pages the rows on screen (and the selection) are on.
    fn wanted(&self) -> Vec<usize> {
        if self.scroll.is_empty() {
            return Vec::new();
        }
        let range = self.scroll.visible_range(self.scroll.viewport());
        let first = range.start.min(self.scroll.cursor()) / RANGE_PAGE;
        let last = range
            .end
            .saturating_sub(1)
            .max(self.scroll.cursor())
            .min(self.scroll.len() - 1)
            / RANGE_PAGE;
        (first..=last).collect()
    }

    fn read(&mut self, page: usize, first: bool, sh: &mut Shared, out: &mut Out) {
        let offset = page * RANGE_PAGE;
        // The last page counts again: the index may have grown at its head.
        let count = first
            || self
                .total
                .is_some_and(|t| (offset + RANGE_PAGE) as u64 >= t);
        let locate = match self.land {
            Some(Land::At(t) | Land::Before(t)) if first => Some(t),
            _ => None,
        };
        let id = out.fetch(
            sh,
            Request::Index(IndexRead::Range {
                since: self.since,
                offset,
                limit: RANGE_PAGE,
                count,
                locate,
            }),
        );
        self.pending = Some((id, page));
    }

    /// Reads the first page the screen needs and does not have (one read at a time).
    pub(super) fn pump(&mut self, sh: &mut Shared, out: &mut Out) {
        if self.pending.is_some() || self.total.is_none() {
            return;
        }
        let missing = self
            .wanted()
            .into_iter()
            .find(|p| !self.pages.iter().any(|(k, _)| k == p));
        if let Some(page) = missing {
            self.read(page, false, sh, out);
        }
    }

    fn keep(&mut self, page: usize, rows: Vec<IndexedRow>) {
        self.pages.retain(|(p, _)| *p != page);
        self.pages.push((page, rows));
        let here = self.scroll.cursor() / RANGE_PAGE;
        while self.pages.len() > KEPT_PAGES {
            let far = self
                .pages
                .iter()
                .enumerate()
                .max_by_key(|(_, (p, _))| p.abs_diff(here))
                .map(|(i, _)| i);
            match far {
                Some(i) => {
                    self.pages.swap_remove(i);
                }
                None => break,
            }
        }
    }

    /// The reply to a read; whether it was this list's.
    fn on_reply(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) -> bool {
        let Some((id, page)) = self.pending else {
            return false;
        };
        if id != reply.id {
            return false;
        }
        self.pending = None;
        let answer = match &reply.result {
            Ok(r) => match r.index() {
                Some(a) => a.clone().map_err(|f| f.message),
                None => Err("unexpected answer to an index read".to_owned()),
            },
            Err(e) => Err(e.to_string()),
        };
        match answer {
            Ok(IndexAnswer::Range(p)) => {
                self.error = None;
                if let Some(total) = p.total {
                    self.total = Some(total);
                    self.scroll
                        .set_len(usize::try_from(total).unwrap_or(usize::MAX));
                }
                if let Some(land) = self.land.take() {
                    let len = self.scroll.len();
                    let row = match (land, p.located) {
                        (Land::At(_), Some(n)) => usize::try_from(n).unwrap_or(usize::MAX),
                        (Land::Before(_), Some(n)) => {
                            usize::try_from(n).unwrap_or(usize::MAX).saturating_sub(1)
                        }
                        _ => len.saturating_sub(1),
                    };
                    self.scroll.select(row.min(len.saturating_sub(1)));
                }
                self.keep(page, p.rows.into_iter().map(IndexedRow::of).collect());
                self.pump(sh, out);
            }
            Ok(_) => self.error = Some("unexpected answer to an index read".into()),
            Err(e) => {
                out.error(format!("History from the local index: {e}"));
                self.error = Some(e);
            }
        }
        true
    }
}

/// Why History cannot reach back through the index now (`None`: it can).
fn index_reach(sh: &Shared) -> Option<(i64, i64)> {
    if !sh.index.usable() {
        return None;
    }
    let reach = sh.index.reach.as_ref()?;
    Some((reach.first?, reach.last?))
}

impl HistoryPane {
    /// Opens History over the index from `since` on, landing the selection as `land`.
    fn open_index_range(&mut self, since: i64, land: Land, sh: &mut Shared, out: &mut Out) {
        self.pause(sh);
        let mut range = IndexRange::new(since, land);
        range.scroll.set_viewport(self.index_range_viewport());
        range.read(0, true, sh, out);
        self.index_range = Some(range);
    }

    /// `L` with an index that holds updates older than the loaded ones: the span is read from
    /// the index as the list scrolls, not loaded into memory. Returns whether it was.
    pub(super) fn span_from_index(&mut self, since: i64, sh: &mut Shared, out: &mut Out) -> bool {
        let Some((first, last)) = index_reach(sh) else {
            return false;
        };
        let loaded_first = sh.history.first().map(|s| s.record_time);
        if loaded_first.is_some_and(|t| first >= t) || last < since {
            // The index holds nothing older than the loaded rows (or nothing of the span).
            return false;
        }
        let land = match self.selected(sh) {
            Some(s) if !self.following => Land::At(s.record_time),
            _ => Land::Last,
        };
        let mut said = format!(
            "the last {} from the local index, read as you scroll (not loaded into memory)",
            self.span_label
        );
        if first > since {
            said.push_str(&format!(
                "; the index reaches back to {} only: `cantonscope index sync --from {}` adds the rest",
                format_time_micros(first),
                format_time_micros(since)
            ));
        }
        if loaded_first.is_some_and(|t| last < t) {
            said.push_str(&format!(
                "; the index ends at {}, before the loaded rows",
                format_time_micros(last)
            ));
        }
        out.info(said);
        self.open_index_range(since, land, sh, out);
        true
    }

    /// `:time` outside the loaded rows within the index's reach: the whole index, at that
    /// time. Returns whether it was.
    pub(super) fn time_from_index(&mut self, micros: i64, sh: &mut Shared, out: &mut Out) -> bool {
        let Some((first, last)) = index_reach(sh) else {
            return false;
        };
        if micros < first || micros > last {
            return false;
        }
        out.info(format!(
            "{} {} from the local index",
            sh.format_time(micros),
            sh.zone_label()
        ));
        self.open_index_range(first, Land::At(micros), sh, out);
        true
    }

    /// Scrolling above the first loaded row when the index holds older updates: the whole
    /// index, on the row just above. Returns whether it was.
    pub(super) fn earlier_from_index(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        let Some((first, _)) = index_reach(sh) else {
            return false;
        };
        let Some(loaded_first) = sh.history.first().map(|s| s.record_time) else {
            return false;
        };
        if first >= loaded_first {
            return false;
        }
        self.open_index_range(first, Land::Before(loaded_first), sh, out);
        true
    }

    /// History read from the index, while shown.
    pub fn index_range(&self) -> Option<&IndexRange> {
        self.index_range.as_ref()
    }

    /// Back to the loaded rows, on the first one after `after` (µs) when given.
    fn close_index_range(&mut self, after: Option<i64>, sh: &Shared) {
        self.index_range = None;
        if let Some(t) = after {
            self.resync(sh);
            let rows = self.view.len(&sh.history);
            if rows > 0 {
                let index = sh.history.index_at_time(t.saturating_add(1));
                self.scroll.select(
                    self.view
                        .row_of(index.min(sh.history.len() - 1))
                        .min(rows - 1),
                );
            }
        }
    }

    /// A command while History reads from the index; `None` when it is not the list's.
    pub(super) fn index_range_command(
        &mut self,
        cmd: Command,
        sh: &mut Shared,
        out: &mut Out,
    ) -> Option<bool> {
        let r = self.index_range.as_mut()?;
        match cmd {
            Command::Down | Command::PageDown | Command::Bottom
                if r.total.is_some() && r.scroll.cursor() + 1 >= r.scroll.len() =>
            {
                // Below the index's newest row: the loaded rows (the live tail) go on.
                let after = r
                    .row(r.scroll.len().saturating_sub(1))
                    .and_then(|row| row.record_time);
                let newer = match (after, sh.history.last()) {
                    (Some(t), Some(last)) => last.record_time > t,
                    _ => false,
                };
                if newer {
                    self.close_index_range(after, sh);
                }
            }
            Command::Up
            | Command::Down
            | Command::PageUp
            | Command::PageDown
            | Command::Top
            | Command::Bottom => {
                r.scroll.navigate(cmd);
                r.pump(sh, out);
            }
            Command::Select => match r.selected() {
                Some(row) if !row.update_id.is_empty() => {
                    out.events.push(AppEvent::OpenUpdate {
                        update_id: row.update_id.clone(),
                        event_id: None,
                    });
                }
                _ => out.info("this row is being read from the local index"),
            },
            Command::Copy | Command::CopyUpdateId => {
                if let Some(row) = r.selected().filter(|r| !r.update_id.is_empty()) {
                    out.copy("update id", row.update_id.clone());
                }
            }
            Command::Refresh => {
                if r.pending.is_none() {
                    let page = r.scroll.cursor() / RANGE_PAGE;
                    r.read(page, false, sh, out);
                }
            }
            // The `/` filter works on loaded rows: over the index it is the whole-history
            // search, which says so.
            Command::Filter | Command::SearchIndex => {
                self.open_index_search(sh, out);
                self.index_search_set_viewport();
            }
            Command::FollowTail => {
                self.index_range = None;
                self.follow(sh);
            }
            Command::Back | Command::Cancel => self.close_index_range(None, sh),
            Command::Export => out.info(
                "e exports the loaded rows (Esc goes back to them); X exports a range from the server",
            ),
            Command::Sort | Command::SortReverse => {
                out.info("the History list is in ledger order: it does not sort");
            }
            _ => return None,
        }
        Some(true)
    }

    /// The reply to a read of the list; whether it was one.
    pub(super) fn on_index_range_reply(
        &mut self,
        reply: &Fetched,
        sh: &mut Shared,
        out: &mut Out,
    ) -> bool {
        self.index_range
            .as_mut()
            .is_some_and(|r| r.on_reply(reply, sh, out))
    }

    /// Keeps the list's page size in step with the area.
    pub(super) fn index_range_set_viewport(&mut self) {
        let rows = self.index_range_viewport();
        if let Some(r) = &mut self.index_range {
            r.scroll.set_viewport(rows);
        }
    }

    /// Rows of the list in the pane's area (the border, the header and the last line).
    fn index_range_viewport(&self) -> usize {
        usize::from(self.area.height.saturating_sub(4).max(1))
    }

    /// Draws the list over the whole pane.
    pub(super) fn render_index_range(
        &self,
        r: &IndexRange,
        area: Rect,
        buf: &mut Buffer,
        cx: RenderCtx<'_>,
    ) {
        let RenderCtx { sh, theme, focused } = cx;
        let mut title = vec![Span::styled("History", theme.title)];
        let newest = sh.index.reach.as_ref().and_then(|reach| reach.last);
        let oldest = r.row(0).and_then(|row| row.record_time).unwrap_or(r.since);
        if let Some(last) = newest {
            title.push(Span::styled(
                format!(
                    " · {}",
                    loaded_range(sh, oldest, last, area.width >= DATED_RANGE_WIDTH)
                ),
                theme.muted,
            ));
        }
        let count = match r.total {
            Some(1) => " · 1 update (local index)".to_owned(),
            Some(n) => format!(" · {} updates (local index)", group_thousands(n)),
            None => " · counting (local index)…".to_owned(),
        };
        title.push(Span::styled(count, theme.muted));
        title.push(Span::styled(" · ", theme.muted));
        let state = if self.is_browsing() {
            "browsing"
        } else {
            "paused"
        };
        title.push(Span::styled(state, theme.status_warn));
        let mut block = Block::bordered()
            .border_style(theme.border_style(focused))
            .title(Line::from(title));
        if let Some(m) = r.selected().filter(|row| row.record_time.is_some())
            && area.width >= 100
        {
            block = block.title_top(
                Line::styled(format!("migration {}", m.migration_id), theme.muted).right_aligned(),
            );
        }
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.height < 3 || inner.width < 10 {
            return;
        }
        let bottom = inner.y + inner.height - 1;
        let keys = "the local index · ↵ open · Esc loaded rows · f follow · / F search the index";
        buf.set_line(
            inner.x,
            bottom,
            &Line::styled(
                safe_line(keys, usize::from(inner.width)).into_owned(),
                theme.muted,
            ),
            inner.width,
        );
        let mut list = Rect::new(inner.x, inner.y, inner.width, inner.height - 1);
        let draw = Draw::new(sh, theme, focused);
        self.columns.render_header::<IndexedRow>(
            Rect::new(list.x, list.y, list.width, 1),
            buf,
            &draw,
        );
        list.y += 1;
        list.height = list.height.saturating_sub(1);
        if list.height == 0 {
            return;
        }
        if r.scroll.is_empty() {
            let text = if let Some(e) = &r.error {
                e.clone()
            } else if r.total.is_none() {
                "reading the local index…".to_owned()
            } else {
                "the local index holds no update from here on".to_owned()
            };
            buf.set_line(
                list.x,
                list.y,
                &Line::styled(
                    safe_line(&text, usize::from(list.width)).into_owned(),
                    theme.muted.add_modifier(Modifier::ITALIC),
                ),
                list.width,
            );
            return;
        }
        let at = |i: usize| Some(r.row(i).unwrap_or(&READING));
        self.columns.render_rows(list, buf, &r.scroll, at, &draw);
    }
}
