//! History reaching back through the local index: one list of the updates the index keeps
//! from a time on that are older than the loaded window (`L` back to the span's start,
//! `:time` and scrolling above the loaded window over the whole index), then the loaded rows
//! (the live tail, in memory), one scroll over both: ↑ ↓ PgUp PgDn g G move from the loaded
//! rows into the index's and back. The index's rows stop where the loaded ones start (its
//! count is asked up to the loaded window's first record time), so an update held by both is
//! listed once, as the loaded row. They are read a page of [`RANGE_PAGE`] summary rows at a
//! time around the rows on screen (an effect each, latest request wins) and kept in a bounded
//! cache of [`KEPT_PAGES`] pages ([`PagedList`]), so memory stays bounded whatever the span: no
//! update body is held. The list's length is the index's count plus the loaded rows (so the
//! title and the position are right before any row is read). Esc drops the index's rows (the
//! loaded rows alone again), `f` follows the live tail.
//!
//! ```text
//! ┌History · 11-26 14:00–11-27 14:00 UTC · 1,234,567 updates (local index) · 43 loaded · paused┐
//! │Time (UTC)              Kind        Update     Summary                    Events│
//! │2026-11-26 14:00:01.123 transaction d17b…9f1e  transfer alice → bob 25.00       │
//! │…                                                                              │
//! │the local index, then the loaded rows · ↵ open · Esc loaded rows only · f follow │
//! └───────────────────────────────────────────────────────────────────────────────┘
//! ```

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Widget};

use crate::feed::loader::LoaderIntent;
use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::index::SearchRow;
use crate::model::index::read::{IndexRead, RANGE_PAGE, RangeKey, RowDetail};
use crate::model::summary::{UpdateSummary, short_party};
use crate::msg::{Command, Fetched, Request};
use crate::ui::format::group_thousands;
use crate::ui::safe::safe_line;
use crate::ui::scroll::ScrollState;
use crate::ui::table::{Cell, Draw, TableRow};
use crate::ui::theme::Theme;

use super::super::{AppEvent, Out, RenderCtx, Shared};
use super::HistoryPane;
use super::index_fill::{FillEnd, FillReply, Gap, ScanFill};
use super::paged::PagedList;
use super::table::{DATED_RANGE_WIDTH, HistoryCol, distinct_id, loaded_range};

/// Pages of rows kept at most (the ones farthest from the selection leave first).
pub const KEPT_PAGES: usize = 8;

/// One row of History read from the index: the summary row fields the index keeps, and the
/// event count and synchronizer read from the update's kept body (none when the index keeps no
/// bodies: `index sync --no-bodies`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedRow {
    /// µs (`None`: a row not read yet).
    pub record_time: Option<i64>,
    pub migration_id: i64,
    pub update_id: String,
    pub kind: String,
    pub summary: String,
    pub events: Option<u32>,
    pub synchronizer: Option<String>,
    /// The update's parties as the index keeps them with its summary row (sorted, distinct):
    /// the Parties column, without reading the body.
    pub parties: Vec<String>,
    /// Sent by the scan for a part of the list the index lacks (not read from the index).
    pub from_scan: bool,
}

/// What a row not read yet shows.
static READING: IndexedRow = IndexedRow {
    record_time: None,
    migration_id: 0,
    update_id: String::new(),
    kind: String::new(),
    summary: String::new(),
    events: None,
    synchronizer: None,
    parties: Vec::new(),
    from_scan: false,
};

impl IndexedRow {
    fn of(r: SearchRow, detail: Option<RowDetail>) -> Self {
        let (events, synchronizer) = match detail {
            Some(d) => (Some(d.events), Some(d.synchronizer)),
            None => (None, None),
        };
        IndexedRow {
            record_time: parse_time_micros(&r.record_time),
            migration_id: r.migration_id,
            update_id: r.update_id,
            kind: r.kind,
            summary: r.root_action,
            events,
            synchronizer,
            parties: r.parties,
            from_scan: false,
        }
    }

    /// A row the scan sent for a part of the list the index lacks.
    pub(super) fn from_scan(r: SearchRow, detail: Option<RowDetail>) -> Self {
        IndexedRow {
            from_scan: true,
            ..IndexedRow::of(r, detail)
        }
    }

    /// Its place in the list, for a keyset read of the page after or before it.
    fn key(&self) -> Option<RangeKey> {
        Some(RangeKey {
            migration_id: self.migration_id,
            record_time: self.record_time?,
            update_id: self.update_id.clone(),
        })
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
            // From the kept body; empty (not guessed) when the index keeps no bodies.
            HistoryCol::Events => Cell::new(
                self.events.map(|n| n.to_string()).unwrap_or_default(),
                theme.muted,
            ),
            HistoryCol::Synchronizer => Cell::new(
                self.synchronizer
                    .as_deref()
                    .map(|s| short_party(s).to_owned())
                    .unwrap_or_default(),
                theme.party,
            ),
            // From the summary row the index keeps (no body read), names as the loaded rows
            // show them.
            HistoryCol::Parties => Cell::new(party_names(&self.parties), theme.muted),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.update_id)
    }

    fn title(col: HistoryCol, sh: &Shared) -> Option<Cow<'static, str>> {
        (col == HistoryCol::Time).then(|| Cow::Owned(format!("Time ({})", sh.zone_label())))
    }
}

/// Parties as the Parties column names them: each party's name (before `::`), comma-separated.
fn party_names(parties: &[String]) -> String {
    parties
        .iter()
        .map(|p| p.split_once("::").map_or(p.as_str(), |(name, _)| name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A row of the one list: from the index, or loaded.
enum JointRow<'a> {
    Index(&'a IndexedRow),
    Loaded(&'a UpdateSummary),
}

impl TableRow for JointRow<'_> {
    type Col = HistoryCol;
    type Ctx = Shared;

    fn cell(&self, col: HistoryCol, width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        match self {
            JointRow::Index(r) => r.cell(col, width, sh, theme),
            JointRow::Loaded(s) => s.cell(col, width, sh, theme),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        match self {
            JointRow::Index(r) => r.filter_text(),
            JointRow::Loaded(s) => s.filter_text(),
        }
    }

    fn title(col: HistoryCol, sh: &Shared) -> Option<Cow<'static, str>> {
        IndexedRow::title(col, sh)
    }
}

/// Where the selection goes once the list's length is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Land {
    /// The first row at or after this time (µs).
    At(i64),
    /// The row just before this time (µs): scrolling up from the loaded rows.
    Before(i64),
    /// The newest row of the index.
    Last,
    /// It stays on the loaded row selected.
    Loaded,
}

/// Where the selection is in the one list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// On a row from the index (the paged list's cursor).
    Index,
    /// On row `k` the scan sent for gap `g`.
    Scan(usize, usize),
    /// On a loaded row (the pane's own cursor).
    Loaded,
}

/// A row of the one list by its part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Row `i` of the index's rows.
    Index(usize),
    /// Row `k` the scan sent for gap `g`.
    Scan(usize, usize),
    /// Loaded row `l`.
    Loaded(usize),
}

/// History's rows read from the index, from `since` up to the loaded rows: a [`PagedList`]
/// as long as the index's count, read around the rows on screen, the rows the scan sent for
/// the parts the index lacks ([`ScanFill`]) in their places among them, and the one scroll
/// over them and the loaded rows below.
#[derive(Debug, Clone)]
pub struct IndexRange {
    since: i64,
    /// The loaded window's first record time: the index's rows are the ones before it
    /// (`None`: nothing loaded, every row from `since`).
    before: Option<i64>,
    list: PagedList<IndexedRow>,
    /// The parts of the list the index lacks, read from the scan (`None`: `--offline`).
    fill: Option<ScanFill>,
    /// Where to select once counted.
    land: Option<Land>,
    /// Where the selection is.
    at: At,
    /// The one scroll: the index's rows (with the scan's in the gaps), then the loaded rows.
    joint: ScrollState,
    /// Loaded rows below the index's, as last brought in step.
    loaded: usize,
    /// The loaded window's first row moved: the index's rows are counted again.
    recount: bool,
}

impl IndexRange {
    fn new(since: i64, before: Option<i64>, land: Land) -> Self {
        IndexRange {
            since,
            before,
            list: PagedList::new(RANGE_PAGE, KEPT_PAGES),
            fill: None,
            land: Some(land),
            at: At::Loaded,
            joint: ScrollState::new(0),
            loaded: 0,
            recount: false,
        }
    }

    /// Where the list starts (µs).
    pub fn since(&self) -> i64 {
        self.since
    }

    /// How many rows the one list has (the index's, once counted, the scan's in the index's
    /// gaps, and the loaded ones).
    pub fn total(&self) -> Option<u64> {
        self.list
            .total()
            .map(|n| n + self.scan_rows() as u64 + self.loaded as u64)
    }

    /// Rows from the index (before the loaded ones), once counted.
    pub fn index_rows(&self) -> Option<u64> {
        self.list.total()
    }

    /// Rows the scan sent for the parts of the list the index lacks.
    pub fn scan_rows(&self) -> usize {
        self.fill.as_ref().map_or(0, ScanFill::rows)
    }

    /// The parts of the list the index lacks, read from the scan (`None`: not asked, offline).
    pub fn fill(&self) -> Option<&ScanFill> {
        self.fill.as_ref()
    }

    /// The selected row number in the one list.
    pub fn cursor(&self) -> usize {
        self.joint.cursor()
    }

    /// Whether the selection is on a row above the loaded ones (from the index, or sent by the
    /// scan for a part the index lacks).
    pub fn in_index(&self) -> bool {
        self.at != At::Loaded
    }

    /// Rows from the index held in memory now (the pages read and kept).
    pub fn rows_held(&self) -> usize {
        self.list.rows_held()
    }

    /// Row `i` of the one list above the loaded rows, when read (from the index or the scan).
    pub fn row(&self, i: usize) -> Option<&IndexedRow> {
        match self.place(i) {
            Place::Index(i) => self.list.row(i),
            Place::Scan(g, k) => self.scan_row(g, k),
            Place::Loaded(_) => None,
        }
    }

    fn scan_row(&self, g: usize, k: usize) -> Option<&IndexedRow> {
        self.fill.as_ref()?.gaps().get(g)?.rows.get(k)
    }

    /// The selected row above the loaded ones, when the selection is there and it was read.
    pub fn selected(&self) -> Option<&IndexedRow> {
        match self.at {
            At::Index => self.list.selected(),
            At::Scan(g, k) => self.scan_row(g, k),
            At::Loaded => None,
        }
    }

    /// Whether a page is being read.
    pub fn is_loading(&self) -> bool {
        self.list.is_loading()
    }

    /// Rows from the index (0 until counted).
    fn index_len(&self) -> usize {
        self.list.scroll.len()
    }

    /// The gaps with their place among the index's rows (the row before which each goes,
    /// within the rows counted), in the list's order.
    fn gaps(&self) -> impl Iterator<Item = (usize, &Gap)> {
        let n = self.index_len();
        let mut floor = 0;
        self.fill
            .as_ref()
            .map(ScanFill::gaps)
            .unwrap_or_default()
            .iter()
            .map(move |g| {
                let at = usize::try_from(g.hole.offset).unwrap_or(usize::MAX).min(n);
                floor = floor.max(at);
                (floor, g)
            })
    }

    /// Rows above the loaded ones: the index's and the scan's.
    fn above(&self) -> usize {
        self.index_len() + self.scan_rows()
    }

    /// Which part row `j` of the one list is in.
    fn place(&self, j: usize) -> Place {
        let n = self.index_len();
        let (mut index, mut joint) = (0usize, 0usize);
        for (g, (at, gap)) in self.gaps().enumerate() {
            let run = at - index;
            if j < joint + run {
                return Place::Index(index + j - joint);
            }
            joint += run;
            index = at;
            if j < joint + gap.rows.len() {
                return Place::Scan(g, j - joint);
            }
            joint += gap.rows.len();
        }
        let run = n - index;
        if j < joint + run {
            return Place::Index(index + j - joint);
        }
        Place::Loaded(j - joint - run)
    }

    /// The row number in the one list of a row by its part.
    fn joint_of(&self, place: Place) -> usize {
        match place {
            Place::Index(i) => {
                i + self
                    .gaps()
                    .filter(|(at, _)| *at <= i)
                    .map(|(_, g)| g.rows.len())
                    .sum::<usize>()
            }
            Place::Scan(g, k) => {
                let mut before = 0;
                for (h, (at, gap)) in self.gaps().enumerate() {
                    if h == g {
                        return at + before + k;
                    }
                    before += gap.rows.len();
                }
                self.above()
            }
            Place::Loaded(l) => self.above() + l,
        }
    }

    /// The selection follows the one scroll's cursor.
    fn settle(&mut self) {
        match self.place(self.joint.cursor()) {
            Place::Index(i) => {
                self.at = At::Index;
                self.list.scroll.select(i);
            }
            Place::Scan(g, k) => self.at = At::Scan(g, k),
            Place::Loaded(_) => self.at = At::Loaded,
        }
    }

    /// Brings the one scroll in step with `loaded` rows below, the loaded selection on
    /// `loaded_cursor`.
    fn sync(&mut self, loaded: usize, loaded_cursor: usize) {
        self.loaded = loaded;
        let n = self.index_len();
        let above = self.above();
        self.joint.set_len(above + loaded);
        let j = match self.at {
            At::Index if n > 0 => self.joint_of(Place::Index(self.list.cursor().min(n - 1))),
            At::Scan(g, k) if self.scan_row(g, k).is_some() => self.joint_of(Place::Scan(g, k)),
            _ => above + loaded_cursor,
        };
        self.joint.select(j);
        self.settle();
    }

    fn read(
        &mut self,
        page: usize,
        count: bool,
        locate: Option<i64>,
        sh: &mut Shared,
        out: &mut Out,
    ) {
        let from = self.list.bound(page, IndexedRow::key);
        let id = out.fetch(
            sh,
            Request::Index(IndexRead::Range {
                since: self.since,
                before: self.before,
                offset: page * RANGE_PAGE,
                from,
                limit: RANGE_PAGE,
                count,
                locate,
            }),
        );
        self.list.sent(id, page);
    }

    /// Reads the first page of the index's rows on screen that is not kept (one read at a
    /// time), or counts them again; asks the scan for the next page of the index's gaps when
    /// one is due.
    pub(super) fn pump(&mut self, sh: &mut Shared, out: &mut Out) {
        if self.list.total().is_none() {
            return;
        }
        if let Some(fill) = &mut self.fill {
            fill.pump(sh, out);
        }
        if self.list.is_loading() {
            return;
        }
        if self.recount {
            self.recount = false;
            let page = self.list.cursor() / RANGE_PAGE;
            self.read(page, true, None, sh, out);
            return;
        }
        let shown = self.joint.visible_range(self.joint.viewport());
        let (mut lo, mut hi) = (usize::MAX, 0);
        for j in shown {
            if let Place::Index(i) = self.place(j) {
                lo = lo.min(i);
                hi = hi.max(i + 1);
            }
        }
        if self.at == At::Index {
            lo = lo.min(self.list.cursor());
            hi = hi.max(self.list.cursor() + 1).min(self.index_len());
        }
        if lo < hi
            && let Some(page) = self.list.missing_in(lo..hi)
        {
            self.read(page, false, None, sh, out);
        }
    }

    /// The reply to a read; whether it was this list's.
    fn on_reply(
        &mut self,
        reply: &Fetched,
        loaded: (usize, usize),
        sh: &mut Shared,
        out: &mut Out,
    ) -> bool {
        if let Some(fill) = &mut self.fill
            && let Some(got) = fill.on_reply(reply, sh, out)
        {
            if got == FillReply::Gaps
                && let Some(said) = fill.describe()
            {
                out.info(said);
            }
            self.sync(loaded.0, loaded.1);
            self.pump(sh, out);
            return true;
        }
        match self.list.accept(reply, IndexedRow::of) {
            None => false,
            Some(Ok(p)) => {
                if let Some(total) = p.total {
                    self.list
                        .scroll
                        .set_len(usize::try_from(total).unwrap_or(usize::MAX));
                }
                if let Some(land) = self.land.take() {
                    let len = self.index_len();
                    let row = match (land, p.located) {
                        (Land::At(_), Some(n)) => Some(usize::try_from(n).unwrap_or(usize::MAX)),
                        (Land::Before(_), Some(n)) => {
                            Some(usize::try_from(n).unwrap_or(usize::MAX).saturating_sub(1))
                        }
                        (Land::Loaded, _) => None,
                        _ => Some(len.saturating_sub(1)),
                    };
                    if let (Some(row), true) = (row, len > 0) {
                        self.at = At::Index;
                        self.list.scroll.select(row.min(len - 1));
                    }
                }
                self.sync(loaded.0, loaded.1);
                self.pump(sh, out);
                true
            }
            Some(Err(e)) => {
                out.error(format!("History from the local index: {e}"));
                true
            }
        }
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
    /// The loaded rows and the loaded selection, for the one scroll.
    fn loaded_rows(&self, sh: &Shared) -> (usize, usize) {
        (self.view.len(&sh.history), self.scroll.cursor())
    }

    /// Opens History over the index from `since` on, up to the loaded rows, landing the
    /// selection as `land`.
    fn open_index_range(&mut self, since: i64, land: Land, sh: &mut Shared, out: &mut Out) {
        self.pause(sh);
        self.resync(sh);
        let before = sh.history.first().map(|s| s.record_time);
        let mut range = IndexRange::new(since, before, land);
        let locate = match land {
            Land::At(t) | Land::Before(t) => Some(t),
            Land::Last | Land::Loaded => None,
        };
        range.joint.set_viewport(self.index_range_viewport());
        let (loaded, cursor) = self.loaded_rows(sh);
        range.sync(loaded, cursor);
        range.read(0, true, locate, sh, out);
        if !sh.ctx.offline {
            // What the index lacks of the list comes from the scan (none is asked offline).
            range.fill = Some(ScanFill::ask(since, before, sh, out));
        }
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
        let land = if self.view.is_empty(&sh.history) {
            Land::Last
        } else {
            Land::Loaded
        };
        let mut said = format!(
            "the last {} from the local index, read as you scroll (not loaded into memory)",
            self.span_label
        );
        let offline = sh.ctx.offline;
        if first > since {
            said.push_str(&format!(
                "; the index reaches back to {} only: {}`cantonscope index sync --from {}` keeps it",
                format_time_micros(first),
                if offline { "" } else { "the rest is read from the scan; " },
                format_time_micros(since)
            ));
        }
        if loaded_first.is_some_and(|t| last < t) {
            said.push_str(&format!(
                "; the index ends at {}, before the loaded rows{}",
                format_time_micros(last),
                if offline {
                    ""
                } else {
                    ": the updates between are read from the scan"
                }
            ));
        }
        out.info(said);
        self.open_index_range(since, land, sh, out);
        true
    }

    /// `:time` before the loaded rows within the index's reach: the whole index up to the
    /// loaded rows, at that time. Returns whether it was.
    pub(super) fn time_from_index(&mut self, micros: i64, sh: &mut Shared, out: &mut Out) -> bool {
        let Some((first, last)) = index_reach(sh) else {
            return false;
        };
        if micros < first || micros > last {
            return false;
        }
        if sh.history.first().is_some_and(|s| micros >= s.record_time) {
            // After the loaded rows (they do not reach the head): the loader goes there.
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
    /// index above the loaded rows, on the row just above. Returns whether it was.
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

    /// The selected row from the index, when the selection is on one.
    pub(super) fn index_range_selected(&self) -> Option<&IndexedRow> {
        self.index_range.as_ref().and_then(IndexRange::selected)
    }

    /// The loaded window moved under the index's rows (its oldest rows dropped for the memory
    /// budget, or earlier ones loaded): they are counted again up to its new first row, and the
    /// one scroll is brought in step.
    pub(super) fn index_range_follow_loaded(&mut self, sh: &mut Shared, out: &mut Out) {
        let loaded = self.loaded_rows(sh);
        let Some(r) = &mut self.index_range else {
            return;
        };
        let first = sh.history.first().map(|s| s.record_time);
        if let Some(t) = first
            && first != r.before
        {
            r.before = first;
            r.recount = true;
            if let Some(fill) = &mut r.fill {
                fill.trim(t);
            }
        }
        r.sync(loaded.0, loaded.1);
        r.pump(sh, out);
    }

    /// A command while History lists rows from the index; `None` when it is not the list's.
    pub(super) fn index_range_command(
        &mut self,
        cmd: Command,
        sh: &mut Shared,
        out: &mut Out,
    ) -> Option<bool> {
        self.index_range.as_ref()?;
        self.resync(sh);
        let loaded = self.loaded_rows(sh);
        let r = self.index_range.as_mut()?;
        r.sync(loaded.0, loaded.1);
        let in_index = r.in_index();
        match cmd {
            Command::Up
            | Command::Down
            | Command::PageUp
            | Command::PageDown
            | Command::Top
            | Command::Bottom => {
                r.joint.navigate(cmd);
                let c = r.joint.cursor();
                r.settle();
                if let Place::Loaded(l) = r.place(c) {
                    self.scroll.select(l);
                }
                let at_end = c + 1 >= r.joint.len();
                r.pump(sh, out);
                if matches!(cmd, Command::Down | Command::PageDown | Command::Bottom)
                    && at_end
                    && !sh.feed.at_head
                {
                    out.events.push(AppEvent::Loader(LoaderIntent::More));
                }
            }
            Command::Select if in_index => match r.selected() {
                Some(row) if !row.update_id.is_empty() => {
                    out.events.push(AppEvent::OpenUpdate {
                        update_id: row.update_id.clone(),
                        event_id: None,
                    });
                }
                _ => out.info("this row is being read from the local index"),
            },
            Command::Select => self.open_selected(sh, out),
            Command::Copy | Command::CopyUpdateId if in_index => {
                if let Some(row) = r.selected().filter(|r| !r.update_id.is_empty()) {
                    out.copy("update id", row.update_id.clone());
                }
            }
            Command::Copy => self.copy_selected(sh, out),
            Command::Refresh if r.at == At::Index => {
                if !r.is_loading() {
                    let page = r.list.cursor() / RANGE_PAGE;
                    r.read(page, false, None, sh, out);
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
            Command::Back | Command::Cancel => self.index_range = None,
            Command::Export => out.info(
                "e exports the loaded rows (Esc drops the index's rows); X exports a range from the server",
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
        let loaded = self.loaded_rows(sh);
        self.index_range
            .as_mut()
            .is_some_and(|r| r.on_reply(reply, loaded, sh, out))
    }

    /// Keeps the list's page size in step with the area.
    pub(super) fn index_range_set_viewport(&mut self) {
        let rows = self.index_range_viewport();
        if let Some(r) = &mut self.index_range {
            r.joint.set_viewport(rows);
        }
    }

    /// Rows of the list in the pane's area (the border, the header and the last line).
    fn index_range_viewport(&self) -> usize {
        usize::from(self.area.height.saturating_sub(4).max(1))
    }

    /// Draws the one list (the index's rows, then the loaded rows) over the whole pane.
    pub(super) fn render_index_range(
        &self,
        r: &IndexRange,
        area: Rect,
        buf: &mut Buffer,
        cx: RenderCtx<'_>,
    ) {
        let RenderCtx { sh, theme, focused } = cx;
        let above = r.above();
        let (loaded, loaded_cursor) = self.loaded_rows(sh);
        let mut joint = r.joint;
        joint.set_len(above + loaded);
        joint.select(match r.at {
            At::Index => r.joint_of(Place::Index(r.list.cursor())),
            At::Scan(g, k) => r.joint_of(Place::Scan(g, k)),
            At::Loaded => above + loaded_cursor,
        });
        // Whether the index lacks parts of the list (read from the scan).
        let gaps = r.fill.as_ref().is_some_and(|f| !f.gaps().is_empty());
        let mut title = vec![Span::styled("History", theme.title)];
        let newest = sh
            .history
            .last()
            .map(|s| s.record_time)
            .or_else(|| sh.index.reach.as_ref().and_then(|reach| reach.last));
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
        let count = match r.list.total() {
            Some(i) => {
                let scan = r.scan_rows();
                let all = i + scan as u64 + loaded as u64;
                let noun = if all == 1 { "update" } else { "updates" };
                let source = if gaps {
                    format!("local index, {} from the scan", group_thousands(scan))
                } else {
                    "local index".to_owned()
                };
                format!(
                    " · {} {noun} ({source}) · {} loaded",
                    group_thousands(all),
                    group_thousands(loaded)
                )
            }
            None => " · counting (local index)…".to_owned(),
        };
        title.push(Span::styled(count, theme.muted));
        if let Some(fill) = r.fill.as_ref().filter(|_| gaps) {
            let state = match fill.end() {
                None => Some(("reading the index's gaps from the scan…", theme.muted)),
                Some(FillEnd::Budget) => {
                    Some(("memory budget full: gaps read in part", theme.status_warn))
                }
                Some(FillEnd::Failed) => Some(("gaps: the scan failed", theme.status_err)),
                Some(FillEnd::Done) => None,
            };
            if let Some((text, style)) = state {
                title.push(Span::styled(" · ", theme.muted));
                title.push(Span::styled(text, style));
            }
        }
        for (text, tone) in self.status_parts(sh) {
            let style = match tone {
                super::table::StatusTone::Ok => theme.status_ok,
                super::table::StatusTone::Warn => theme.status_warn,
                super::table::StatusTone::Err => theme.status_err,
                super::table::StatusTone::Muted => theme.muted,
            };
            title.push(Span::styled(" · ", theme.muted));
            title.push(Span::styled(text, style));
        }
        let mut block = Block::bordered()
            .border_style(theme.border_style(focused))
            .title(Line::from(title));
        let migration = match r.selected() {
            Some(row) if row.record_time.is_some() => Some(row.migration_id),
            Some(_) => None,
            None if !r.in_index() => self.selected(sh).map(|s| s.migration_id),
            None => None,
        };
        if let Some(m) = migration
            && area.width >= 100
        {
            block = block
                .title_top(Line::styled(format!("migration {m}"), theme.muted).right_aligned());
        }
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.height < 3 || inner.width < 10 {
            return;
        }
        let bottom = inner.y + inner.height - 1;
        let keys = if gaps {
            "the local index (its gaps from the scan), then the loaded rows · ↵ open · Esc loaded rows only · f follow · F search the index"
        } else {
            "the local index, then the loaded rows · ↵ open · Esc loaded rows only · f follow · F search the index"
        };
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
        if joint.is_empty() {
            let text = if let Some(e) = r.list.error() {
                e.to_owned()
            } else if r.list.total().is_none() {
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
        let shown = joint.visible_range(usize::from(list.height));
        let start = shown.start;
        let rows: Vec<JointRow<'_>> = shown
            .map(|i| {
                if i < above {
                    return JointRow::Index(r.row(i).unwrap_or(&READING));
                }
                self.view
                    .index(i - above)
                    .and_then(|k| sh.history.get(k))
                    .map_or(JointRow::Index(&READING), JointRow::Loaded)
            })
            .collect();
        let at = |i: usize| i.checked_sub(start).and_then(|k| rows.get(k));
        self.columns.render_rows(list, buf, &joint, at, &draw);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::index::read::Hole;

    #[test]
    fn the_scans_rows_take_their_places_among_the_index_rows_in_one_scroll() {
        let hole = |after: Option<(i64, i64)>, offset: u64| Hole {
            after,
            through: None,
            offset,
        };
        let mut r = IndexRange::new(0, Some(1_000), Land::Loaded);
        r.list.scroll.set_len(10);
        r.fill = Some(ScanFill::with_gaps(vec![
            (hole(None, 0), 2),
            (hole(Some((0, 50)), 4), 3),
            (hole(Some((0, 90)), 10), 1),
        ]));
        r.sync(2, 1);
        // The scan's 2, index 0–3, the scan's 3, index 4–9, the scan's 1, the loaded 2.
        let want = [
            Place::Scan(0, 0),
            Place::Scan(0, 1),
            Place::Index(0),
            Place::Index(1),
            Place::Index(2),
            Place::Index(3),
            Place::Scan(1, 0),
            Place::Scan(1, 1),
            Place::Scan(1, 2),
            Place::Index(4),
            Place::Index(5),
            Place::Index(6),
            Place::Index(7),
            Place::Index(8),
            Place::Index(9),
            Place::Scan(2, 0),
            Place::Loaded(0),
            Place::Loaded(1),
        ];
        for (j, place) in want.iter().enumerate() {
            assert_eq!(r.place(j), *place, "row {j}");
            assert_eq!(r.joint_of(*place), j, "{place:?}");
        }
        assert_eq!(r.above(), 16);
        // The selection stayed on the loaded row selected; on a scan row it stays there as
        // the list is brought in step again.
        assert_eq!(r.cursor(), 17);
        assert!(!r.in_index());
        r.joint.select(7);
        r.settle();
        assert!(r.in_index());
        r.sync(2, 1);
        assert_eq!(r.cursor(), 7);
        assert_eq!(r.selected().map(|row| row.update_id.as_str()), Some("s1"));
        assert!(r.selected().is_some_and(|row| row.from_scan));
    }
}
