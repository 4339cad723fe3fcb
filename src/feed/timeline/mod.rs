//! History's timeline: the one list of History rows over `[since, now]` (reth's
//! `ConsistentProvider` is the model: one view over disk and memory, below its readers). The
//! local index's rows from a time on that are older than the loaded window (`L` back to the
//! span's start, `:time` and scrolling above the loaded window over the whole index), the rows
//! the scan sent for the parts the index lacks ([`ScanFill`], `gaps`), then the loaded rows (the
//! live tail, in memory, the loader's): one scroll over all three. The index's rows stop where the
//! loaded ones start (its count is asked up to the loaded window's first record time), so an
//! update held by both is listed once, as the loaded row. They are read a page of [`RANGE_PAGE`]
//! summary rows at a time around the rows on screen (latest request wins) and kept in a bounded
//! cache of [`KEPT_PAGES`] pages ([`PagedList`]), so memory stays bounded whatever the span: no
//! update body is held. The list's length is the index's count plus the scan's rows plus the
//! loaded rows (so the title and the position are right before any row is read). `:time` in a
//! part the index lacks lands once the scan sent it ([`Timeline::aiming`]); a sync writing the
//! index while the list is open (its reach's count moved, or a page holds an update the scan
//! sent too) counts it again and asks its gaps again, so each update is listed once, the
//! index's row preferred.
//!
//! A pure state machine owned by the app (in `Shared::timeline`, driven by `app/timeline.rs` as
//! `app/loader.rs` drives the loader): the History pane sends it intents ([`TimelineIntent`]:
//! open, move, read again, close) and reads it; it emits requests as data
//! ([`TimelineOut::fetches`], owned by [`Owner::Timeline`]) and does no I/O.
//!
//! ```text
//! ┌History · 11-26 14:00–11-27 14:00 UTC · 1,234,567 updates (local index) · 43 loaded · paused┐
//! │Time (UTC)              Kind        Update     Summary                    Events│
//! │2026-11-26 14:00:01.123 transaction d17b…9f1e  transfer alice → bob 25.00       │
//! │…                                                                              │
//! │the local index, then the loaded rows · ↵ open · Esc loaded rows only · f follow │
//! └───────────────────────────────────────────────────────────────────────────────┘
//! ```

mod gaps;
mod paged;
mod row;
#[cfg(test)]
mod tests;

use crate::model::history::History;
use crate::model::index::read::{IndexRead, RANGE_PAGE, RangeFrom};
use crate::model::scroll::ScrollState;
use crate::msg::{Command, Fetched, Owner, Request, RequestId, RequestIds};

use super::loader::{Feed, LoaderIntent, Note, RangeEvent};
pub use gaps::{FillEnd, FillReply, Gap, ScanFill};
pub use paged::{PageReply, PagedList};
pub use row::{IndexedRow, row_bytes};

/// What the timeline emits in one step.
#[derive(Debug, Default)]
pub struct TimelineOut {
    /// Requests to send.
    pub fetches: Vec<(RequestId, Request)>,
    /// Messages for the user.
    pub notes: Vec<(Note, String)>,
    /// What the loader is asked (the gaps' reads).
    pub loader: Vec<LoaderIntent>,
}

/// What the timeline reads of the app's state, and where it writes what it emits.
pub struct Ctx<'a> {
    pub now: i64,
    pub history: &'a History,
    pub feed: &'a Feed,
    pub ids: &'a mut RequestIds,
    pub out: &'a mut TimelineOut,
}

impl Ctx<'_> {
    /// Sends `request` (owned by the timeline); its id.
    pub fn fetch(&mut self, request: Request) -> RequestId {
        let id = self.ids.next(Owner::Timeline);
        self.out.fetches.push((id, request));
        id
    }

    fn note(&mut self, level: Note, text: impl Into<String>) {
        self.out.notes.push((level, text.into()));
    }

    /// Asks the loader for `intent` (it reads the gaps from the scan).
    pub fn loader(&mut self, intent: LoaderIntent) {
        self.out.loader.push(intent);
    }

    pub fn info(&mut self, text: impl Into<String>) {
        self.note(Note::Info, text);
    }

    pub fn warn(&mut self, text: impl Into<String>) {
        self.note(Note::Warn, text);
    }

    pub fn error(&mut self, text: impl Into<String>) {
        self.note(Note::Error, text);
    }
}

/// What the History pane asks of the timeline (through the app).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimelineIntent {
    /// Show History over the index from `since` on, up to the loaded rows, landing the selection
    /// as `land` (the parts the index lacks are read from the scan, unless the app is offline).
    Open { since: i64, land: Land },
    /// A movement command over the one scroll.
    Move(Command),
    /// Read the selected page of the index again.
    Reread,
    /// Back to the loaded rows alone.
    Close,
}

/// Pages of rows kept at most (the ones farthest from the selection leave first).
pub const KEPT_PAGES: usize = 8;

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

/// Where the selection goes once the scan has sent the part of the list the index lacks there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aim {
    /// `:time`: the update at or right after this time (µs).
    At(i64),
    /// Scrolling up from the loaded rows: the update right above them, the last before this
    /// time (µs, the first loaded row's).
    Above(i64),
}

impl Aim {
    /// The time of the list where the selection goes (µs): the part of the list it waits for.
    fn time(self) -> i64 {
        match self {
            Aim::At(t) => t,
            Aim::Above(t) => t - 1,
        }
    }
}

/// Where the selection is in the one list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// On a row from the index (the paged list's cursor).
    Index,
    /// On row `k` the scan sent for gap `g`.
    Scan(usize, usize),
    /// On a loaded row (the pane's own cursor).
    Loaded,
}

/// A row of the one list by its part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
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
pub struct Timeline {
    pub since: i64,
    /// The loaded window's first record time: the index's rows are the ones before it
    /// (`None`: nothing loaded, every row from `since`).
    pub before: Option<i64>,
    pub list: PagedList<IndexedRow>,
    /// The parts of the list the index lacks, read from the scan (`None`: `--offline`).
    pub fill: Option<ScanFill>,
    /// Where to select once counted.
    pub land: Option<Land>,
    /// Where the selection is.
    pub at: At,
    /// The one scroll: the index's rows (with the scan's in the gaps), then the loaded rows.
    pub joint: ScrollState,
    /// Loaded rows below the index's, as last brought in step.
    pub loaded: usize,
    /// The loaded window's first row moved: the index's rows are counted again.
    pub recount: bool,
    /// Where the selection goes when it falls in a part the index lacks (`:time`, or the row
    /// right above the loaded ones), once the scan has sent that part of the gap.
    pub aim: Option<Aim>,
    /// The updates the index kept when last looked at (a sync that writes more may write
    /// into the list: it is counted again, and its gaps asked again).
    pub kept: Option<u64>,
    /// The index is counted again because it changed: the pages read go if the count moved.
    pub checking: bool,
    /// How many of the index's rows are events with a verdict and no update, once counted.
    pub verdict_only: Option<u64>,
    /// Where the rows counted end (µs): `before` when they were counted, else just after the
    /// newest of them then. A read counted from the list's end starts there, so it stays on
    /// the rows counted while `before` moves or a sync writes, until they are counted again.
    pub counted_end: Option<i64>,
}

impl Timeline {
    pub fn new(since: i64, before: Option<i64>, land: Land) -> Self {
        Timeline {
            since,
            before,
            list: PagedList::new(RANGE_PAGE, KEPT_PAGES),
            fill: None,
            land: Some(land),
            at: At::Loaded,
            joint: ScrollState::new(0),
            loaded: 0,
            recount: false,
            aim: match land {
                Land::At(t) => Some(Aim::At(t)),
                Land::Before(t) => Some(Aim::Above(t)),
                _ => None,
            },
            kept: None,
            checking: false,
            verdict_only: None,
            counted_end: None,
        }
    }

    /// Where the selection goes while it waits for the scan's rows of the part of the list
    /// the index lacks there (the list says it is reading them).
    pub fn aiming(&self) -> Option<Aim> {
        let aim = self.aim?;
        self.fill
            .as_ref()
            .is_some_and(|f| f.gap_at(aim.time()).is_some())
            .then_some(aim)
    }

    /// Lands the selection where it aims when that falls in a gap of the index, once the scan
    /// sent it: on the update at or right after the time `:time` asked for (until then it stays
    /// on the index's first row after the gap), or on the last update of the gap right above
    /// the loaded rows (until then on the index's last row, above the gap).
    fn aim_at(&mut self) {
        let Some(aim) = self.aim else { return };
        let t = aim.time();
        if self.land.is_some() {
            // Not counted yet.
            return;
        }
        let Some(fill) = &self.fill else {
            self.aim = None;
            return;
        };
        if !fill.known() {
            if fill.end().is_some() {
                self.aim = None;
            }
            return;
        }
        let Some(g) = fill.gap_at(t) else {
            // The index holds that time: its row is selected.
            self.aim = None;
            return;
        };
        let gap = &fill.gaps()[g];
        if let Aim::Above(_) = aim {
            // The gap ends at the loaded rows: its last row, once the scan sent all of it.
            if gap.done || fill.end().is_some() {
                self.aim = None;
                if let Some(k) = gap.rows.len().checked_sub(1) {
                    self.at = At::Scan(g, k);
                    self.joint.select(self.joint_of(Place::Scan(g, k)));
                }
            }
            return;
        }
        // The scan sends a gap in ledger order: its first row at or after `t` is the one.
        if let Some(k) = gap
            .rows
            .iter()
            .position(|r| r.record_time.is_some_and(|r| r >= t))
        {
            self.aim = None;
            self.at = At::Scan(g, k);
            self.joint.select(self.joint_of(Place::Scan(g, k)));
        } else if gap.done || fill.end().is_some() {
            // None at or after it in the gap: the index's row after the gap stays selected.
            self.aim = None;
        }
    }

    /// The index changed under the list (a sync wrote into it): it is counted again and asked
    /// again which parts it lacks.
    pub fn index_changed(&mut self, cx: &mut Ctx) {
        self.recount = true;
        self.checking = true;
        if let Some(fill) = &mut self.fill {
            fill.refresh(self.before, cx);
        }
    }

    /// The scan's rows of the updates page `page` of the index holds go (each update once, the
    /// index's row preferred): the index changed under the list, read again.
    fn drop_twins(&mut self, page: usize, cx: &mut Ctx) {
        let (Some(fill), Some(rows)) = (&mut self.fill, self.list.page(page)) else {
            return;
        };
        let ids: std::collections::HashSet<&str> =
            rows.iter().map(|r| r.update_id.as_str()).collect();
        if fill.forget(&ids) {
            self.list.forget_pages();
            self.index_changed(cx);
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

    /// Memory the scan's rows take (bytes, reckoned): they count in the loader's budget.
    pub fn scan_bytes(&self) -> usize {
        self.fill.as_ref().map_or(0, ScanFill::bytes)
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

    pub fn scan_row(&self, g: usize, k: usize) -> Option<&IndexedRow> {
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
    pub fn index_len(&self) -> usize {
        self.list.scroll.len()
    }

    /// The gaps with their place among the index's rows (the row before which each goes,
    /// within the rows counted), in the list's order.
    pub fn gaps(&self) -> impl Iterator<Item = (usize, &Gap)> {
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
    pub fn above(&self) -> usize {
        self.index_len() + self.scan_rows()
    }

    /// Which part row `j` of the one list is in.
    pub fn place(&self, j: usize) -> Place {
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
    pub fn joint_of(&self, place: Place) -> usize {
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
    pub fn settle(&mut self) {
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
    pub fn sync(&mut self, loaded: usize, loaded_cursor: usize) {
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

    pub fn read(&mut self, page: usize, count: bool, locate: Option<i64>, cx: &mut Ctx) {
        let (from, limit) = self.bound(page);
        let id = cx.fetch(Request::Index(IndexRead::Range {
            since: self.since,
            before: self.before,
            offset: page * RANGE_PAGE,
            from,
            limit,
            count,
            locate,
        }));
        self.list.sent(id, page);
    }

    /// Where a read of `page` starts and how many rows it reads: from a neighbouring page's
    /// row, else by row number, counted from the end of the rows counted when the page is
    /// nearer it ([`Timeline::counted_end`]), so the last page of a long list costs what the
    /// first does.
    fn bound(&self, page: usize) -> (RangeFrom, usize) {
        let from = self.list.bound(page, IndexedRow::key);
        let (RangeFrom::Offset(start), Some(before), Some(total)) =
            (&from, self.counted_end, self.list.total())
        else {
            return (from, RANGE_PAGE);
        };
        let total = usize::try_from(total).unwrap_or(usize::MAX);
        let end = start.saturating_add(RANGE_PAGE).min(total);
        if *start < end && total - end < *start {
            let skip = total - end;
            return (RangeFrom::FromEnd { before, skip }, end - start);
        }
        (from, RANGE_PAGE)
    }

    /// Reads the first page of the index's rows on screen that is not kept (one read at a
    /// time), or counts them again; asks the scan for the next page of the index's gaps when
    /// one is due.
    pub fn pump(&mut self, cx: &mut Ctx) {
        if self.list.total().is_none() {
            return;
        }
        if let Some(fill) = &mut self.fill {
            fill.pump(cx);
        }
        if self.list.is_loading() {
            return;
        }
        if self.recount {
            self.recount = false;
            // The selected update found again by its time: a sync may have written rows
            // before it, and the selection stays on the update, not on its row number.
            let locate = match self.at {
                At::Index if self.land.is_none() => {
                    self.list.selected().and_then(|r| r.record_time)
                }
                _ => None,
            };
            if let Some(t) = locate {
                self.land = Some(Land::At(t));
            }
            let page = self.list.cursor() / RANGE_PAGE;
            self.read(page, true, locate, cx);
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
            self.read(page, false, None, cx);
        }
    }

    /// What the loader read of the gaps for this list ([`ScanFill::on_range`]); whether the
    /// list changed.
    pub fn on_range(
        &mut self,
        events: Vec<RangeEvent>,
        loaded: (usize, usize),
        cx: &mut Ctx,
    ) -> bool {
        let Some(fill) = &mut self.fill else {
            return false;
        };
        for event in events {
            fill.on_range(event, cx);
        }
        self.sync(loaded.0, loaded.1);
        self.aim_at();
        self.pump(cx);
        true
    }

    /// The reply to a read; whether it was this list's.
    pub fn on_reply(&mut self, reply: &Fetched, loaded: (usize, usize), cx: &mut Ctx) -> bool {
        // The scan's row selected, to keep the selection on it when the gaps are merged anew.
        let on_scan = match self.at {
            At::Scan(..) => self.selected().map(|r| r.update_id.clone()),
            _ => None,
        };
        if let Some(fill) = &mut self.fill
            && let Some(got) = fill.on_reply(reply, cx)
        {
            if got == FillReply::Merged
                && let Some(id) = on_scan
                && let Some(at) = fill.gaps().iter().enumerate().find_map(|(g, gap)| {
                    let k = gap.rows.iter().position(|r| r.update_id == id)?;
                    Some(At::Scan(g, k))
                })
            {
                self.at = at;
            }
            if got == FillReply::Gaps
                && let Some(said) = fill.describe()
            {
                cx.info(said);
            }
            self.sync(loaded.0, loaded.1);
            self.aim_at();
            self.pump(cx);
            return true;
        }
        let counted = self.list.total();
        match self.list.accept(reply, IndexedRow::of) {
            None => false,
            Some(Ok(p)) => {
                if let Some(total) = p.total {
                    let total = usize::try_from(total).unwrap_or(usize::MAX);
                    self.list.drop_short_pages(total);
                    self.list.scroll.set_len(total);
                    self.verdict_only = p.verdict_only;
                    self.counted_end = p.end;
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
                if self.checking && p.total.is_some() {
                    self.checking = false;
                    if p.total != counted {
                        // Rows were written in the list: the pages read moved.
                        self.list.forget_pages();
                    }
                }
                self.drop_twins(p.page, cx);
                self.sync(loaded.0, loaded.1);
                self.aim_at();
                self.pump(cx);
                true
            }
            Some(Err(e)) => {
                cx.error(format!("History from the local index: {e}"));
                true
            }
        }
    }
}

/// How far the local index reaches `(first, last)` record times (µs), when History can read
/// through it now (`None`: no index, not usable, or empty).
pub fn index_reach(index: &super::index::IndexFeed) -> Option<(i64, i64)> {
    if !index.usable() {
        return None;
    }
    let reach = index.reach.as_ref()?;
    Some((reach.first?, reach.last?))
}

/// What a movement over the timeline asks of the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Moved {
    /// The selection is on this loaded row: the pane selects it.
    pub loaded: Option<usize>,
    /// The selection went down to the last row: more loaded rows are wanted.
    pub at_end: bool,
}

impl Timeline {
    /// The timeline from `since` on up to the loaded rows (`loaded`: their count and the loaded
    /// selection), landing the selection as `land`, `viewport` rows on screen; `kept`: the
    /// updates the index keeps now; with `scan`, the parts the index lacks are read from the
    /// scan.
    pub fn open(
        since: i64,
        land: Land,
        scan: bool,
        viewport: usize,
        loaded: (usize, usize),
        kept: Option<u64>,
        cx: &mut Ctx,
    ) -> Timeline {
        let before = cx
            .history
            .first()
            .map(crate::model::summary::UpdateSummary::record_time);
        let mut t = Timeline::new(since, before, land);
        let locate = match land {
            Land::At(t) | Land::Before(t) => Some(t),
            Land::Last | Land::Loaded => None,
        };
        t.joint.set_viewport(viewport);
        t.sync(loaded.0, loaded.1);
        t.kept = kept;
        t.read(0, true, locate, cx);
        if scan {
            // What the index lacks of the list comes from the scan (none is asked offline).
            t.fill = Some(ScanFill::ask(since, before, cx));
        }
        t
    }

    /// Keeps the page size in step with the rows on screen.
    pub fn set_viewport(&mut self, rows: usize) {
        self.joint.set_viewport(rows);
    }

    /// A movement command over the one scroll (the timeline brought in step with `loaded` rows
    /// first).
    pub fn navigate(&mut self, cmd: Command, loaded: (usize, usize), cx: &mut Ctx) -> Moved {
        self.sync(loaded.0, loaded.1);
        self.aim = None;
        self.joint.navigate(cmd);
        let c = self.joint.cursor();
        self.settle();
        let loaded = match self.place(c) {
            Place::Loaded(l) => Some(l),
            _ => None,
        };
        let at_end = c + 1 >= self.joint.len();
        self.pump(cx);
        Moved { loaded, at_end }
    }

    /// Reads the selected page of the index again (when no read is in flight).
    pub fn reread(&mut self, cx: &mut Ctx) {
        if self.at == At::Index && !self.is_loading() {
            let page = self.list.cursor() / RANGE_PAGE;
            self.read(page, false, None, cx);
        }
    }

    /// Whether the selection is on a row read from the index (not the scan's, not loaded).
    pub fn on_index_row(&self) -> bool {
        self.at == At::Index
    }

    /// The loaded window moved under the index's rows (its oldest rows dropped for the memory
    /// budget, or earlier ones loaded): they are counted again up to its new first row; a sync
    /// wrote into the index (it keeps `kept` updates now): what it wrote may be in the list. The
    /// one scroll is brought in step with `loaded` rows below.
    pub fn follow_loaded(&mut self, loaded: (usize, usize), kept: Option<u64>, cx: &mut Ctx) {
        let first = cx
            .history
            .first()
            .map(crate::model::summary::UpdateSummary::record_time);
        if let Some(t) = first
            && first != self.before
        {
            // Later: the memory budget dropped loaded rows; the stretch up to the new first
            // loaded row is the list's now (from the index where it has it, else the scan).
            let later = self.before.is_some_and(|b| t > b);
            self.before = first;
            self.recount = true;
            if let Some(fill) = &mut self.fill {
                if later {
                    fill.refresh(first, cx);
                } else {
                    fill.trim(t);
                }
            }
        }
        if kept.is_some() && kept != self.kept {
            if self.kept.is_some() {
                self.index_changed(cx);
            }
            self.kept = kept;
        }
        self.sync(loaded.0, loaded.1);
        self.pump(cx);
    }
}
