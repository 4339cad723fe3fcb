//! The history loader: the one writer of the loaded history ([`History`]) and of what panes read
//! about it ([`Feed`]). A pure state machine owned by the app: it emits requests as data
//! ([`LoaderOut::fetches`]), takes the replies ([`Loader::on_reply`]) and the clock, and does no
//! I/O.
//!
//! ```text
//!  start ─► Discover(k) ──(empty page)──► Seek(window) ──(activity)──► Forward ──(short page)──► head
//!              │ item of migration > k          │ empty: next window          ▲   (poll every
//!              └─► Discover(next)               └─ nothing in a year ──────────┘    refresh_ms)
//!  Earlier (user at the top): look back 1 h, doubling (halving across a gap), previous migration…
//!  Span (`L`, `:load 6h`): look back in steps fitted to the update rate, down to a time (span.rs)
//! ```
//!
//! One main-line request (discover / seek / forward / poll) and one "earlier" request at most are
//! in flight; failed requests are retried with a doubling back-off.

mod earlier;
mod main_line;
mod range;
mod span;

use std::collections::VecDeque;

use crate::api::scan::{UpdateItem, UpdatesAfter, UpdatesPage, UpdatesRequest};
use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::history::History;
use crate::model::network::{FAR_FUTURE, HEAD_WINDOWS};
use crate::model::position::At;
use crate::msg::{Fetched, Request, RequestId, RequestIds};

pub use range::{RANGE_PAGES_PER_SEC, RangeAsk, RangeEvent};
pub use span::{span_estimate, span_limit};

/// Items per `/v2/updates` request (the largest page real servers accept).
pub const PAGE_SIZE: i32 = 1000;
/// [`PAGE_SIZE`] as a length.
pub const PAGE: usize = PAGE_SIZE as usize;
/// The "far future" record time used to probe whether a migration is the newest (the same
/// probe the network's head search and sweep send).
pub const DISCOVER_TIME: &str = FAR_FUTURE;
/// Every this many polls at the head, one starts from just before the update that was the newest
/// at the last check, to see that the history under the explorer still stands
/// ([`UpdatesPurpose::HeadCheck`]).
pub const HEAD_CHECK_EVERY: u32 = 5;

/// Look-back windows (seconds) tried in turn when the recent window is empty: the network head
/// search's windows from ten minutes on (10 min, 1 h, 6 h, 1 d, 7 d, 30 d, 365 d).
pub const SEEK_STEPS: &[i64] = HEAD_WINDOWS.split_at(2).1;
const MICROS: i64 = 1_000_000;
/// First look-back step when loading earlier updates (µs).
pub const EARLIER_FIRST_STEP: i64 = 3_600 * MICROS;
/// Largest doubling step when loading earlier updates (~1 year, µs); after it the whole
/// migration (from the epoch) is asked for.
pub const EARLIER_MAX_STEP: i64 = 365 * 86_400 * MICROS;
const EARLIER_MIN_STEP: i64 = 1_000;
/// Loading earlier updates stops once this many arrived for one request of the user.
pub const EARLIER_ENOUGH: usize = 100;
/// Longest retry interval after failures (ms).
pub const MAX_BACKOFF_MS: u64 = 30_000;
const MALFORMED_KEPT: usize = 64;
const MAX_DISCOVER_STEPS: u32 = 10_000;
/// Requests to `/v2/updates` sent without waiting, before the pace applies.
pub const PACE_BURST: i64 = 16;
/// Requests per second to `/v2/updates` once the burst is spent.
pub const PACE_PER_SEC: i64 = 4;
/// A record time this far ahead of the local clock is impossible (µs).
pub const MAX_FUTURE: i64 = 86_400 * MICROS;
/// A migration id this far above the newest known one is impossible.
pub const MAX_MIGRATION_JUMP: i64 = 100;
/// How many ids of skipped items the error message names.
const IDS_NAMED: usize = 5;
/// Default memory budget of the loaded history (MiB; profile key `history_memory_mib`).
pub const DEFAULT_MEMORY_MIB: u32 = 256;
/// The part of the memory budget (bytes) the loaded rows keep to: 7/8 of it. The loader drops
/// the oldest rows down to it, a span load fills up to it, and History's timeline
/// ([`crate::feed::timeline`]) keeps the rows it reads from the scan in the rest. The budget
/// itself is one number, [`Feed::memory_budget`].
pub fn loaded_share(budget: usize) -> usize {
    budget / 8 * 7
}

/// The message when a server ignores `after`.
pub const SAME_PAGE_TWICE: &str = "the scan returned the same page twice";

/// Where the history starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartFrom {
    /// Ledger begin.
    Begin,
    /// Only updates from now on.
    Now,
    /// A window before the newest update (the default: 10 minutes).
    Recent { window_secs: i64 },
    /// A given time (microseconds since the epoch).
    Time(i64),
}

impl StartFrom {
    /// Whether the list starts by following the newest update (else it starts at the oldest
    /// loaded one and loads forward on demand).
    pub fn follows(self) -> bool {
        matches!(self, StartFrom::Recent { .. } | StartFrom::Now)
    }
}

/// What the History pane asks of the loader (through the app).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoaderIntent {
    /// Start afresh (the current migration is found again).
    Start(StartFrom),
    /// Reload from another origin, keeping the known migration (`:time` outside the loaded range).
    Restart(StartFrom),
    /// Load updates older than the oldest loaded one.
    Earlier,
    /// The user reached the end of a lazily loaded list: load the next page.
    More,
    /// Send what is waiting now (no back-off, no polling interval).
    Refresh,
    /// Load the span back to this time (µs) before the oldest loaded update, in the background
    /// ([`SpanProgress`] in the feed), within the memory budget.
    LoadSpan { since: i64 },
    /// Stop the span load (what it loaded stays).
    CancelSpan,
    /// Read a stretch of the history for History's timeline (the parts the local index lacks):
    /// its pages come back in [`LoaderOut::range`] (replaces a range being read).
    ReadRange(RangeAsk),
    /// Stop reading the range.
    StopRange,
}

/// What the reader of the list needs now (computed by the History pane).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Demand {
    /// The selection follows the newest update.
    pub following: bool,
    /// The selection is within a page of the newest loaded update (or nothing is loaded).
    pub near_end: bool,
}

/// Where the main-line loader is, as readers see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Phase {
    /// Not started.
    #[default]
    Idle,
    /// Finding the current migration.
    Discover,
    /// Looking back this many seconds for recent activity.
    Seek { secs: i64 },
    /// Paging forward, then polling the head.
    Forward,
    /// Stopped: the server does not page (see the error log); a refresh starts again.
    Stopped,
}

/// What panes read about the loaded history; written by the [`Loader`] only.
#[derive(Debug, Clone, Default)]
pub struct Feed {
    pub phase: Phase,
    /// The loader reached the head (a short page) and polls it.
    pub at_head: bool,
    /// A main-line request is in flight.
    pub loading: bool,
    /// Earlier updates are being loaded.
    pub loading_earlier: bool,
    /// The oldest loaded update is the first of the ledger.
    pub reached_begin: bool,
    /// The current (newest) migration id, once discovered (or seen in a loaded update).
    pub migration: Option<i64>,
    /// Once the loader's discovery ran: `(migration, record time µs of its first update)` of
    /// every migration after the first, in order (see [`Feed::migration_at`]).
    pub migration_starts: Option<Vec<(i64, i64)>>,
    /// Consecutive failed requests (0 when the last one worked).
    pub failures: u32,
    /// The memory budget of the loaded history (bytes).
    pub memory_budget: usize,
    /// The running span load (or the last one, until another starts), as readers see it.
    pub span: Option<SpanProgress>,
    /// Decode errors of the most recent malformed items, by position.
    malformed: VecDeque<(At, String)>,
}

impl Feed {
    /// The migration in force at `time` (µs), once discovery found where each migration starts:
    /// the newest one whose first update is at or before `time`, else the first (0). A cursor
    /// `(that migration, time)` then reads from `time` on, across the later migrations.
    pub fn migration_at(&self, time: i64) -> Option<i64> {
        let starts = self.migration_starts.as_ref()?;
        Some(
            starts
                .iter()
                .rev()
                .find(|(_, first)| *first <= time)
                .map_or(0, |(m, _)| *m),
        )
    }

    /// The decode error recorded for a malformed item at `(migration, record time)`.
    pub fn malformed_error(&self, pos: At) -> Option<&str> {
        self.malformed
            .iter()
            .rev()
            .find(|(p, _)| *p == pos)
            .map(|(_, e)| e.as_str())
    }
}

/// How loud a loader message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Note {
    Info,
    Warn,
    /// Shown and kept in the error log.
    Error,
}

/// A span load ([`LoaderIntent::LoadSpan`]) as readers see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpanProgress {
    /// The span reaches back to this record time (µs).
    pub since: i64,
    /// The oldest loaded record time when the load started (µs): the span's other end.
    pub from: i64,
    /// The oldest loaded record time now (µs).
    pub reached: i64,
    /// When the load started (the clock, µs).
    pub started: i64,
    /// When it ended (the clock, µs), or the latest step while it runs.
    pub last: i64,
    pub pages: u32,
    pub updates: usize,
    /// How it ended; `None` while it runs.
    pub end: Option<SpanEnd>,
}

/// Why a span load ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanEnd {
    /// The whole span is loaded.
    Done,
    /// The memory budget is full.
    Budget,
    /// The user cancelled it.
    Cancelled,
    /// The history was reloaded (a restart).
    Reloaded,
}

impl SpanProgress {
    /// Whether the load is running.
    pub fn running(&self) -> bool {
        self.end.is_none()
    }

    /// Share of the span loaded (0–100).
    pub fn percent(&self) -> u8 {
        let whole = self.from.saturating_sub(self.since);
        if whole <= 0 || self.end == Some(SpanEnd::Done) {
            return 100;
        }
        let done = self.from.saturating_sub(self.reached).clamp(0, whole);
        u8::try_from(i128::from(done) * 100 / i128::from(whole)).unwrap_or(100)
    }

    /// Updates a second since the start.
    pub fn rate(&self) -> f64 {
        let secs = self.last.saturating_sub(self.started) as f64 / MICROS as f64;
        if secs <= 0.0 {
            0.0
        } else {
            self.updates as f64 / secs
        }
    }
}

/// How the history changed in one step (readers keep their views in step with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HistoryChange {
    /// The history was replaced (a restart).
    pub reset: bool,
    /// Items added at the end.
    pub appended: usize,
    /// The appended items arrived while polling the head (new since the user paused).
    pub at_head: bool,
    /// Items added at the front (earlier updates).
    pub prepended: usize,
    /// A main-line page arrived.
    pub forward_page: bool,
    /// The oldest items dropped to stay within the memory budget.
    pub dropped: usize,
}

impl HistoryChange {
    fn merge(&mut self, other: HistoryChange) {
        self.reset |= other.reset;
        self.appended += other.appended;
        self.at_head |= other.at_head;
        self.prepended += other.prepended;
        self.forward_page |= other.forward_page;
        self.dropped += other.dropped;
    }
}

/// Why the history asked for a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdatesPurpose {
    /// Probing whether migration `k` is the newest (page of 1 after (k, far future)).
    Discover { migration: i64 },
    /// Looking for recent activity: window index into the look-back steps.
    Seek { window: usize },
    /// Loading forward towards the head, or polling the head.
    Forward,
    /// Loading updates older than the oldest loaded one.
    Earlier,
    /// Reading the newest loaded update again (page of 1 from just before it), once the scan
    /// answers after failing: is the history under the explorer still the one loaded?
    Verify,
    /// Polling the head from just before the newest loaded update: the page starts with it
    /// again (the history under the explorer still stands: not rewritten, its end not gone
    /// back), then the new updates.
    HeadCheck,
    /// A page of a range read for History's timeline ([`LoaderIntent::ReadRange`]).
    Range,
}

/// A page of `/v2/updates` the loader asks for, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct PageFetch {
    pub req: UpdatesRequest,
    pub purpose: UpdatesPurpose,
}

impl PageFetch {
    /// The request the runtime sends for it.
    pub fn request(&self) -> Request {
        let name = match (self.purpose, &self.req.after) {
            (UpdatesPurpose::Range, Some(after)) => {
                format!("updates IndexGap after {}", after.after_record_time)
            }
            (purpose, _) => format!("updates {purpose:?}"),
        };
        Request::History {
            req: self.req.clone(),
            name,
        }
    }
}

/// What one step of the loader produced.
#[derive(Debug, Default)]
pub struct LoaderOut {
    /// Pages to ask for, with their request ids.
    pub fetches: Vec<(RequestId, PageFetch)>,
    /// Requests to abort.
    pub cancels: Vec<RequestId>,
    /// Messages for the status line (errors also for the error log).
    pub notes: Vec<(Note, String)>,
    /// How the history changed.
    pub change: HistoryChange,
    /// What the range read for History's timeline brought ([`LoaderIntent::ReadRange`]).
    pub range: Vec<RangeEvent>,
}

/// What a step works on: the clock, the history and its feed, the id source and the output.
pub struct Ctx<'a> {
    pub now: i64,
    pub history: &'a mut History,
    pub feed: &'a mut Feed,
    pub ids: &'a mut RequestIds,
    /// Memory History's timeline holds of the scan's rows (bytes): it counts in the budget of
    /// the range read for it.
    pub held: usize,
    pub out: &'a mut LoaderOut,
}

impl Ctx<'_> {
    fn note(&mut self, level: Note, text: impl Into<String>) {
        self.out.notes.push((level, text.into()));
    }

    fn fetch(&mut self, page: PageFetch) -> RequestId {
        let id = self.ids.next(crate::msg::Owner::Loader);
        self.out.fetches.push((id, page));
        id
    }
}

/// Where the main line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Idle,
    /// Probing whether `migration` is the newest.
    Discover {
        migration: i64,
    },
    /// Looking for recent activity in `windows[window]`.
    Seek {
        window: usize,
    },
    Forward,
    /// The server answered in a way that cannot make progress.
    Stopped,
}

/// The loader's request lines: the main line and the two look-back jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    Main,
    Span,
    Earlier,
    Range,
}

/// A running "load earlier updates" job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct EarlierJob {
    /// Migration being searched.
    migration: i64,
    /// Look-back from the oldest loaded update (µs).
    step: i64,
    /// Updates prepended so far.
    gathered: usize,
    /// The request in flight.
    id: Option<RequestId>,
    /// The `after` time of the request in flight (µs).
    sent_after: i64,
    /// Earliest time to send (after an error).
    due: i64,
}

/// A running span load: [`EarlierJob`]'s look-back, with the step fitted to the update rate
/// so that each page is mostly used, stopping at the span's start or the memory budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SpanJob {
    migration: i64,
    /// Look-back from the oldest loaded update (µs).
    step: i64,
    id: Option<RequestId>,
    sent_after: i64,
    due: i64,
    progress: SpanProgress,
}

/// The loader's machinery (what readers see is in [`Feed`]).
#[derive(Debug)]
pub struct Loader {
    origin: StartFrom,
    stage: Stage,
    discover_steps: u32,
    /// Where the migrations after the first start, as the running discovery finds them.
    found_starts: Vec<(i64, i64)>,
    /// Reference time of the start (µs): `now` for Recent/Now, the time for Time.
    start_time: i64,
    /// Look-back windows (s) for Recent: the configured window, then the larger steps.
    windows: Vec<i64>,
    /// The `after` cursor of the next forward request (`None`: from ledger begin).
    cursor: Option<UpdatesAfter>,
    in_flight: Option<RequestId>,
    /// What each request still in flight asked (the page size and cursor of its reply).
    asked: Vec<(RequestId, PageFetch)>,
    /// Earliest time at which the main line may send (polling interval, back-off).
    due: i64,
    /// Load forward only on demand (Begin / Time: far from the head).
    lazy: bool,
    /// The user moved to the end of a lazily loaded list: load one more page.
    more_requested: bool,
    earlier: Option<EarlierJob>,
    span: Option<SpanJob>,
    /// The range read for History's timeline.
    range: Option<range::RangeJob>,
    /// When the next page of a range may be sent, whichever range it is (µs).
    range_paced: i64,
    backoff_ms: u64,
    /// Polling interval (ms).
    refresh_ms: u64,
    /// The last non-empty main-line page (to notice a server that ignores `after`).
    last_page: Option<PageMark>,
    pace: Pace,
    /// A page larger than asked was reported once.
    oversize_warned: bool,
    /// Memory budget of the loaded history (bytes).
    budget: usize,
    /// Dropping for the budget was reported once.
    budget_noted: bool,
    /// A request failed: before polling on, read the newest loaded update again.
    verify: bool,
    /// Polls at the head since the last check of the history under the explorer.
    head_polls: u32,
    /// Every this many polls at the head, a check ([`HEAD_CHECK_EVERY`]).
    head_check_every: u32,
    /// The update that was the newest loaded at the last check (or when the head was reached):
    /// the next check reads from just before it.
    checkpoint: Option<(String, At)>,
}

/// What tells two pages apart: length, first and last item.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PageMark {
    len: usize,
    first: (Option<At>, Option<String>),
    last: (Option<At>, Option<String>),
}

impl PageMark {
    fn of(page: &UpdatesPage) -> Option<PageMark> {
        let key = |i: &UpdateItem| (item_position(i), i.update_id().map(str::to_owned));
        Some(PageMark {
            len: page.transactions.len(),
            first: key(page.transactions.first()?),
            last: key(page.transactions.last()?),
        })
    }
}

/// Request pacing (a generic cell rate: [`PACE_BURST`] at once, then [`PACE_PER_SEC`] a second).
#[derive(Debug, Clone, Copy, Default)]
struct Pace {
    /// When the bucket is empty again (µs).
    tat: i64,
}

impl Pace {
    const INTERVAL: i64 = MICROS / PACE_PER_SEC;
    const TOLERANCE: i64 = (PACE_BURST - 1) * Self::INTERVAL;

    fn ready(self, now: i64) -> bool {
        now >= self.tat.saturating_sub(Self::TOLERANCE)
    }

    fn spend(&mut self, now: i64) {
        self.tat = self.tat.max(now).saturating_add(Self::INTERVAL);
    }
}

impl Loader {
    /// A loader polling every `refresh_ms` (at least 100 ms); idle until started.
    pub fn new(refresh_ms: u64) -> Self {
        Loader {
            origin: StartFrom::Now,
            stage: Stage::Idle,
            discover_steps: 0,
            found_starts: Vec::new(),
            start_time: 0,
            windows: Vec::new(),
            cursor: None,
            in_flight: None,
            asked: Vec::new(),
            due: i64::MIN,
            lazy: false,
            more_requested: false,
            earlier: None,
            span: None,
            range: None,
            range_paced: i64::MIN,
            backoff_ms: 0,
            refresh_ms: refresh_ms.max(100),
            last_page: None,
            pace: Pace::default(),
            oversize_warned: false,
            budget: mib_bytes(DEFAULT_MEMORY_MIB),
            budget_noted: false,
            verify: false,
            head_polls: 0,
            head_check_every: HEAD_CHECK_EVERY,
            checkpoint: None,
        }
    }

    /// Checks the history under the explorer every `n` polls at the head (`u32::MAX`: never;
    /// tests of paging against a server that answers the same whatever is asked).
    pub fn set_head_check_every(&mut self, n: u32) {
        self.head_check_every = n.max(1);
    }

    /// Sets the memory budget of the loaded history (MiB, at least 1).
    pub fn set_memory_budget_mib(&mut self, mib: u32) {
        self.budget = mib_bytes(mib.max(1));
    }

    /// Sets the memory budget in bytes (tests of what fills it: a budget under 1 MiB).
    pub fn set_memory_budget_bytes(&mut self, bytes: usize) {
        self.budget = bytes.max(1);
    }

    /// Drops the oldest updates while the history is over its budget (down to 7/8 of it, an
    /// eighth at a time, so a full history is trimmed once in a while, not on every page).
    fn enforce_budget(&mut self, cx: &mut Ctx) {
        if cx.history.memory_bytes() <= self.budget {
            return;
        }
        let target = loaded_share(self.budget);
        let mut dropped = 0;
        while cx.history.memory_bytes() > target && cx.history.len() > 1 {
            let n = (cx.history.len() / 8).max(1).min(cx.history.len() - 1);
            dropped += cx.history.drop_oldest(n);
        }
        if dropped == 0 {
            return;
        }
        cx.out.change.merge(HistoryChange {
            dropped,
            ..HistoryChange::default()
        });
        cx.feed.reached_begin = false;
        if !self.budget_noted {
            self.budget_noted = true;
            cx.note(
                Note::Info,
                format!(
                    "memory cap {} MiB reached: the oldest updates leave memory (↑ at the top loads them again)",
                    self.budget >> 20
                ),
            );
        }
    }

    /// Asks for a page: remembers what was asked (for its reply) and forgets what requests no
    /// longer waited for asked.
    fn send(&mut self, req: UpdatesRequest, purpose: UpdatesPurpose, cx: &mut Ctx) -> RequestId {
        let asked = std::mem::take(&mut self.asked);
        self.asked = asked
            .into_iter()
            .filter(|(id, _)| self.line_of(*id).is_some())
            .collect();
        let page = PageFetch { req, purpose };
        let id = cx.fetch(page.clone());
        self.asked.push((id, page));
        id
    }

    /// What request `id` of this loader asked, while it is in flight.
    pub fn asked(&self, id: RequestId) -> Option<&PageFetch> {
        self.asked
            .iter()
            .find(|(a, _)| *a == id)
            .map(|(_, page)| page)
    }

    /// Whether `id` is a request this loader sent (and may still be waiting for).
    pub fn owns(&self, id: RequestId) -> bool {
        self.line_of(id).is_some()
    }

    /// Which of the loader's lines sent request `id`.
    fn line_of(&self, id: RequestId) -> Option<Line> {
        if self.in_flight == Some(id) {
            Some(Line::Main)
        } else if self.span.is_some_and(|j| j.id == Some(id)) {
            Some(Line::Span)
        } else if self.earlier.is_some_and(|j| j.id == Some(id)) {
            Some(Line::Earlier)
        } else if self.range_in_flight() == Some(id) {
            Some(Line::Range)
        } else {
            None
        }
    }

    /// Handles a request of the History pane.
    pub fn intent(&mut self, intent: LoaderIntent, cx: &mut Ctx) {
        match intent {
            LoaderIntent::Start(origin) => {
                cx.feed.migration = None;
                cx.feed.migration_starts = None;
                self.restart(origin, cx);
            }
            LoaderIntent::Restart(origin) => self.restart(origin, cx),
            LoaderIntent::Earlier => self.start_earlier(cx),
            LoaderIntent::More => {
                if self.lazy && !cx.feed.at_head {
                    self.more_requested = true;
                }
            }
            LoaderIntent::Refresh if self.stage == Stage::Stopped => {
                self.restart(self.origin, cx);
            }
            LoaderIntent::Refresh => {
                self.due = i64::MIN;
                if let Some(job) = &mut self.earlier {
                    job.due = i64::MIN;
                }
                if let Some(job) = &mut self.span {
                    job.due = i64::MIN;
                }
                self.refresh_range();
            }
            LoaderIntent::LoadSpan { since } => self.start_span(since, cx),
            LoaderIntent::CancelSpan => self.end_span(SpanEnd::Cancelled, cx),
            LoaderIntent::ReadRange(ask) => self.start_range(ask, cx),
            LoaderIntent::StopRange => self.stop_range(cx),
        }
    }

    /// Sends what is due: the next main-line request and the next "earlier" request.
    pub fn pump(&mut self, demand: Demand, cx: &mut Ctx) {
        self.pump_main(demand, cx);
        self.pump_earlier(cx);
        self.pump_span(cx);
        self.pump_range(cx);
        self.publish(cx);
    }

    /// A reply to one of the loader's requests (replies to others, or to requests no longer
    /// current, are dropped).
    pub fn on_reply(&mut self, reply: &Fetched, cx: &mut Ctx) {
        let id = reply.id;
        let Some(line) = self.line_of(id) else {
            return;
        };
        let Some(at) = self.asked.iter().position(|(asked, _)| *asked == id) else {
            return;
        };
        let (_, PageFetch { req, purpose }) = self.asked.swap_remove(at);
        let req = &req;
        let page = match &reply.result {
            Ok(r) => r
                .answer::<UpdatesPage>()
                .ok_or_else(|| "unexpected response to /v2/updates".to_owned()),
            Err(e) => Err(e.to_string()),
        };
        if let Ok(page) = page {
            let asked = usize::try_from(req.page_size).unwrap_or(0);
            if page.transactions.len() > asked && !self.oversize_warned {
                self.oversize_warned = true;
                cx.note(
                    Note::Warn,
                    format!(
                        "the scan returned {} updates for a page of {asked}: all were kept",
                        page.transactions.len()
                    ),
                );
            }
        }
        if line == Line::Main {
            self.in_flight = None;
        }
        match (line, page) {
            (Line::Main, Ok(page)) if purpose == UpdatesPurpose::Verify => {
                self.on_verify_page(page, cx);
            }
            (Line::Main, Ok(page)) if purpose == UpdatesPurpose::HeadCheck => {
                self.on_head_check(page, cx);
            }
            (Line::Main, Ok(page)) => self.on_main_page(page, req, cx),
            (Line::Span, Ok(page)) => self.on_span_page(page, cx),
            (Line::Earlier, Ok(page)) => self.on_earlier_page(page, cx),
            (Line::Range, Ok(page)) => self.on_range_page(page, cx),
            (Line::Main, Err(msg)) => self.due = self.on_failure(msg, cx),
            (Line::Range, Err(msg)) => self.on_range_failure(&msg, cx),
            (Line::Span | Line::Earlier, Err(msg)) => {
                // The job retries after the back-off.
                let due = self.on_failure(msg, cx);
                let job = if line == Line::Span {
                    self.span.as_mut().map(|j| (&mut j.id, &mut j.due))
                } else {
                    self.earlier.as_mut().map(|j| (&mut j.id, &mut j.due))
                };
                if let Some((job_id, job_due)) = job {
                    (*job_id, *job_due) = (None, due);
                }
            }
        }
        self.publish(cx);
    }

    fn publish(&self, cx: &mut Ctx) {
        cx.feed.phase = match self.stage {
            Stage::Idle => Phase::Idle,
            Stage::Discover { .. } => Phase::Discover,
            Stage::Seek { window } => Phase::Seek {
                secs: self.windows.get(window).copied().unwrap_or(0),
            },
            Stage::Forward => Phase::Forward,
            Stage::Stopped => Phase::Stopped,
        };
        cx.feed.loading = self.in_flight.is_some();
        cx.feed.loading_earlier = self.earlier.is_some();
        cx.feed.memory_budget = self.budget;
        if let Some(job) = &self.span {
            cx.feed.span = Some(job.progress);
        }
    }
}

fn mib_bytes(mib: u32) -> usize {
    usize::try_from(mib)
        .unwrap_or(usize::MAX)
        .saturating_mul(1 << 20)
}

/// `after` at `(migration, micros)`.
fn after_at(migration: i64, micros: i64) -> UpdatesAfter {
    UpdatesAfter {
        after_migration_id: migration,
        after_record_time: format_time_micros(micros),
    }
}

fn cursor_position(c: &UpdatesAfter) -> Option<At> {
    parse_time_micros(&c.after_record_time).map(|t| At::new(c.after_migration_id, t))
}

/// `(migration id, record time)` of an item; for malformed items read from their raw JSON.
pub fn item_position(item: &UpdateItem) -> Option<At> {
    match item {
        UpdateItem::Malformed { raw, .. } => {
            let v = raw.to_value().ok()?;
            let m = v.get("migration_id").and_then(serde_json::Value::as_i64)?;
            let t = v
                .get("record_time")
                .and_then(serde_json::Value::as_str)
                .and_then(parse_time_micros)?;
            Some(At::new(m, t))
        }
        _ => Some(At::new(
            item.migration_id()?,
            parse_time_micros(item.record_time()?)?,
        )),
    }
}

#[cfg(test)]
mod tests;
