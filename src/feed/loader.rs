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

mod span;

use std::collections::VecDeque;

use crate::api::scan::{UpdateItem, UpdatesAfter, UpdatesPage, UpdatesRequest};
use crate::model::history::{History, Placement};
use crate::model::network::{FAR_FUTURE, HEAD_WINDOWS};
use crate::model::summary::{format_time_micros, parse_time_micros};
use crate::msg::{Fetched, Request, RequestId, RequestIds, Response, UpdatesPurpose};

pub use span::{span_estimate, span_limit};

/// Items per `/v2/updates` request (the largest page real servers accept).
pub const PAGE_SIZE: i32 = 1000;
/// [`PAGE_SIZE`] as a length.
pub const PAGE: usize = PAGE_SIZE as usize;
/// The "far future" record time used to probe whether a migration is the newest (the same
/// probe the network's head search and sweep send).
pub const DISCOVER_TIME: &str = FAR_FUTURE;
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
    /// Consecutive failed requests (0 when the last one worked).
    pub failures: u32,
    /// The memory budget of the loaded history (bytes).
    pub memory_budget: usize,
    /// The running span load (or the last one, until another starts), as readers see it.
    pub span: Option<SpanProgress>,
    /// Decode errors of the most recent malformed items, by position.
    malformed: VecDeque<(Pos, String)>,
}

impl Feed {
    /// The decode error recorded for a malformed item at `(migration, record time)`.
    pub fn malformed_error(&self, pos: Pos) -> Option<&str> {
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

/// What one step of the loader produced.
#[derive(Debug, Default)]
pub struct LoaderOut {
    /// Requests to send, with their ids.
    pub fetches: Vec<(RequestId, Request)>,
    /// Requests to abort.
    pub cancels: Vec<RequestId>,
    /// Messages for the status line (errors also for the error log).
    pub notes: Vec<(Note, String)>,
    /// How the history changed.
    pub change: HistoryChange,
}

/// What a step works on: the clock, the history and its feed, the id source and the output.
pub struct Ctx<'a> {
    pub now: i64,
    pub history: &'a mut History,
    pub feed: &'a mut Feed,
    pub ids: &'a mut RequestIds,
    pub out: &'a mut LoaderOut,
}

impl Ctx<'_> {
    fn note(&mut self, level: Note, text: impl Into<String>) {
        self.out.notes.push((level, text.into()));
    }

    fn fetch(&mut self, req: UpdatesRequest, purpose: UpdatesPurpose) -> RequestId {
        let id = self.ids.next(crate::msg::PaneId::History);
        self.out
            .fetches
            .push((id, Request::Updates { req, purpose }));
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

/// Position of an update in ledger order: `(migration id, record time µs)`.
pub type Pos = (i64, i64);

/// The loader's machinery (what readers see is in [`Feed`]).
#[derive(Debug)]
pub struct Loader {
    origin: StartFrom,
    stage: Stage,
    discover_steps: u32,
    /// Reference time of the start (µs): `now` for Recent/Now, the time for Time.
    start_time: i64,
    /// Look-back windows (s) for Recent: the configured window, then the larger steps.
    windows: Vec<i64>,
    /// The `after` cursor of the next forward request (`None`: from ledger begin).
    cursor: Option<UpdatesAfter>,
    in_flight: Option<RequestId>,
    /// Earliest time at which the main line may send (polling interval, back-off).
    due: i64,
    /// Load forward only on demand (Begin / Time: far from the head).
    lazy: bool,
    /// The user moved to the end of a lazily loaded list: load one more page.
    more_requested: bool,
    earlier: Option<EarlierJob>,
    span: Option<SpanJob>,
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
}

/// What tells two pages apart: length, first and last item.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PageMark {
    len: usize,
    first: (Option<Pos>, Option<String>),
    last: (Option<Pos>, Option<String>),
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
            start_time: 0,
            windows: Vec::new(),
            cursor: None,
            in_flight: None,
            due: i64::MIN,
            lazy: false,
            more_requested: false,
            earlier: None,
            span: None,
            backoff_ms: 0,
            refresh_ms: refresh_ms.max(100),
            last_page: None,
            pace: Pace::default(),
            oversize_warned: false,
            budget: mib_bytes(DEFAULT_MEMORY_MIB),
            budget_noted: false,
        }
    }

    /// Sets the memory budget of the loaded history (MiB, at least 1).
    pub fn set_memory_budget_mib(&mut self, mib: u32) {
        self.budget = mib_bytes(mib.max(1));
    }

    /// Drops the oldest updates while the history is over its budget (down to 7/8 of it, an
    /// eighth at a time, so a full history is trimmed once in a while, not on every page).
    fn enforce_budget(&mut self, cx: &mut Ctx) {
        if cx.history.memory_bytes() <= self.budget {
            return;
        }
        let target = self.budget / 8 * 7;
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
        } else {
            None
        }
    }

    /// Handles a request of the History pane.
    pub fn intent(&mut self, intent: LoaderIntent, cx: &mut Ctx) {
        match intent {
            LoaderIntent::Start(origin) => {
                cx.feed.migration = None;
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
            }
            LoaderIntent::LoadSpan { since } => self.start_span(since, cx),
            LoaderIntent::CancelSpan => self.end_span(SpanEnd::Cancelled, cx),
        }
    }

    /// Sends what is due: the next main-line request and the next "earlier" request.
    pub fn pump(&mut self, demand: Demand, cx: &mut Ctx) {
        self.pump_main(demand, cx);
        self.pump_earlier(cx);
        self.pump_span(cx);
        self.publish(cx);
    }

    /// A reply to one of the loader's requests (replies to others, or to requests no longer
    /// current, are dropped).
    pub fn on_reply(&mut self, reply: &Fetched, cx: &mut Ctx) {
        let id = reply.id;
        let Request::Updates { req, .. } = &reply.request else {
            return;
        };
        let result = &reply.result;
        let Some(line) = self.line_of(id) else {
            return;
        };
        let page = match result {
            Ok(Response::Updates(page)) => Ok(page),
            Ok(_) => Err("unexpected response to /v2/updates".to_owned()),
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
            (Line::Main, Ok(page)) => self.on_main_page(page, req, cx),
            (Line::Span, Ok(page)) => self.on_span_page(page, cx),
            (Line::Earlier, Ok(page)) => self.on_earlier_page(page, cx),
            (Line::Main, Err(msg)) => self.due = self.on_failure(msg, cx),
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

    // -----------------------------------------------------------------------------------------
    // Starting
    // -----------------------------------------------------------------------------------------

    fn restart(&mut self, origin: StartFrom, cx: &mut Ctx) {
        if self.span.is_some() {
            self.end_span(SpanEnd::Reloaded, cx);
        }
        for id in [self.in_flight.take(), self.earlier.and_then(|j| j.id)]
            .into_iter()
            .flatten()
        {
            cx.out.cancels.push(id);
        }
        cx.history.clear();
        cx.out.change.merge(HistoryChange {
            reset: true,
            ..HistoryChange::default()
        });
        self.origin = origin;
        self.cursor = None;
        self.due = i64::MIN;
        cx.feed.at_head = false;
        self.more_requested = false;
        self.earlier = None;
        cx.feed.reached_begin = false;
        cx.feed.failures = 0;
        self.backoff_ms = 0;
        self.discover_steps = 0;
        cx.feed.malformed.clear();
        self.windows.clear();
        self.last_page = None;
        match origin {
            StartFrom::Begin => {
                self.lazy = true;
                cx.feed.reached_begin = true;
                self.stage = Stage::Forward;
            }
            StartFrom::Recent { window_secs } => {
                self.lazy = false;
                self.start_time = cx.now;
                let first = window_secs.max(1);
                self.windows.push(first);
                self.windows
                    .extend(SEEK_STEPS.iter().copied().filter(|&s| s > first));
                self.stage = match cx.feed.migration {
                    Some(_) => Stage::Seek { window: 0 },
                    None => Stage::Discover { migration: 0 },
                };
            }
            StartFrom::Now | StartFrom::Time(_) => {
                let (t, lazy) = match origin {
                    StartFrom::Time(t) => (t, true),
                    _ => (cx.now, false),
                };
                self.lazy = lazy;
                self.start_time = t;
                self.stage = match cx.feed.migration {
                    Some(m) => {
                        self.cursor = Some(after_at(m, t));
                        Stage::Forward
                    }
                    None => Stage::Discover { migration: 0 },
                };
            }
        }
        self.publish(cx);
    }

    /// After the current migration is known: where the forward loading starts.
    fn after_discovery(&mut self, m: i64, cx: &mut Ctx) {
        cx.feed.migration = Some(m);
        match self.origin {
            StartFrom::Recent { .. } => self.stage = Stage::Seek { window: 0 },
            StartFrom::Now | StartFrom::Time(_) => {
                self.cursor = Some(after_at(m, self.start_time));
                self.stage = Stage::Forward;
            }
            StartFrom::Begin => self.stage = Stage::Forward,
        }
    }

    // -----------------------------------------------------------------------------------------
    // Main line
    // -----------------------------------------------------------------------------------------

    fn forward_request(&self) -> UpdatesRequest {
        match &self.cursor {
            None => UpdatesRequest::from_begin(PAGE_SIZE),
            Some(c) => {
                UpdatesRequest::after(PAGE_SIZE, c.after_migration_id, c.after_record_time.clone())
            }
        }
    }

    /// Whether a lazily loading list needs the next page now.
    fn wants_more(&self, demand: Demand) -> bool {
        !self.lazy || demand.following || self.more_requested || demand.near_end
    }

    fn pump_main(&mut self, demand: Demand, cx: &mut Ctx) {
        if self.in_flight.is_some() || cx.now < self.due || !self.pace.ready(cx.now) {
            return;
        }
        let (req, purpose) = match self.stage {
            Stage::Idle | Stage::Stopped => return,
            Stage::Discover { migration } => (
                UpdatesRequest::after(1, migration, DISCOVER_TIME),
                UpdatesPurpose::Discover { migration },
            ),
            Stage::Seek { window } => {
                let secs = self
                    .windows
                    .get(window)
                    .copied()
                    .unwrap_or(SEEK_STEPS[SEEK_STEPS.len() - 1]);
                let t = self.start_time.saturating_sub(secs.saturating_mul(MICROS));
                let m = cx.feed.migration.unwrap_or(0);
                (
                    UpdatesRequest::after(PAGE_SIZE, m, format_time_micros(t.max(0))),
                    UpdatesPurpose::Seek { window },
                )
            }
            Stage::Forward => {
                if !cx.feed.at_head && !self.wants_more(demand) {
                    return;
                }
                (self.forward_request(), UpdatesPurpose::Forward)
            }
        };
        self.pace.spend(cx.now);
        self.in_flight = Some(cx.fetch(req, purpose));
    }

    fn on_failure(&mut self, message: String, cx: &mut Ctx) -> i64 {
        cx.note(Note::Error, message);
        cx.feed.failures = cx.feed.failures.saturating_add(1);
        let base = self.refresh_ms;
        self.backoff_ms = if self.backoff_ms == 0 {
            base
        } else {
            self.backoff_ms
                .saturating_mul(2)
                .min(MAX_BACKOFF_MS.max(base))
        };
        cx.now
            .saturating_add(i64::try_from(self.backoff_ms).unwrap_or(i64::MAX / 1000) * 1000)
    }

    fn on_success(&mut self, cx: &mut Ctx) {
        cx.feed.failures = 0;
        self.backoff_ms = 0;
    }

    fn on_main_page(&mut self, page: &UpdatesPage, req: &UpdatesRequest, cx: &mut Ctx) {
        self.on_success(cx);
        let now = cx.now;
        if let Some(mark) = PageMark::of(page) {
            if self.last_page.as_ref() == Some(&mark) {
                // Two different cursors, one answer: paging on would never end.
                self.stage = Stage::Stopped;
                cx.note(
                    Note::Error,
                    format!(
                        "{SAME_PAGE_TWICE} (it ignores `after`): loading stopped; refresh (r) starts again"
                    ),
                );
                return;
            }
            self.last_page = Some(mark);
        }
        let after = req.after.as_ref().and_then(cursor_position);
        match self.stage {
            Stage::Idle | Stage::Stopped => {}
            Stage::Discover { migration } => {
                let known = migration.max(cx.feed.migration.unwrap_or(0));
                let next = page.transactions.first().map(|item| {
                    item_position(item)
                        .map(|(m, _)| m)
                        .filter(|&m| m > migration)
                        .unwrap_or(migration.saturating_add(1))
                });
                let next = match next {
                    Some(m) if m > known.saturating_add(MAX_MIGRATION_JUMP) => {
                        let ids = page.transactions.first().map(ids_of).unwrap_or_default();
                        cx.note(
                            Note::Error,
                            format!(
                                "1 update out of order or impossible was skipped (migration {m}): {ids}"
                            ),
                        );
                        None
                    }
                    other => other,
                };
                self.discover_steps += 1;
                match next {
                    Some(next) if self.discover_steps < MAX_DISCOVER_STEPS => {
                        self.stage = Stage::Discover { migration: next };
                    }
                    Some(next) => {
                        cx.note(
                            Note::Warn,
                            "migration discovery did not end; using the last one seen",
                        );
                        self.after_discovery(next, cx);
                    }
                    None => self.after_discovery(migration, cx),
                }
                self.due = now;
            }
            Stage::Seek { window } => {
                if page.transactions.is_empty() {
                    if window + 1 < self.windows.len() {
                        self.stage = Stage::Seek { window: window + 1 };
                        self.due = now;
                    } else {
                        // Nothing in a year: wait for new updates after the widest window.
                        let secs = self.windows.last().copied().unwrap_or(0);
                        let t = self.start_time.saturating_sub(secs.saturating_mul(MICROS));
                        self.cursor = Some(after_at(cx.feed.migration.unwrap_or(0), t.max(0)));
                        self.stage = Stage::Forward;
                        self.enter_head(cx);
                    }
                } else {
                    self.stage = Stage::Forward;
                    self.forward_page(page, after, cx);
                }
            }
            Stage::Forward => self.forward_page(page, after, cx),
        }
    }

    fn enter_head(&mut self, cx: &mut Ctx) {
        cx.feed.at_head = true;
        let ms = i64::try_from(self.refresh_ms).unwrap_or(i64::MAX / 1000);
        self.due = cx.now.saturating_add(ms * 1000);
    }

    fn forward_page(&mut self, page: &UpdatesPage, after: Option<Pos>, cx: &mut Ctx) {
        self.more_requested = false;
        let before = self.cursor.clone();
        self.append(page, after, cx);
        if page.transactions.len() < PAGE {
            self.enter_head(cx);
        } else if self.cursor == before {
            // A full page that did not move the cursor would be asked for for ever.
            cx.note(
                Note::Warn,
                "the update history did not advance; polling instead",
            );
            self.enter_head(cx);
        } else {
            // More is waiting: fetch again at once.
            self.due = cx.now;
        }
    }

    /// Appends a page and moves the cursor. Items out of order (not after the cursor asked, the
    /// newest loaded update and the item before) or impossible (far in the future, an absurd
    /// migration id) are skipped and reported: they never move the cursor.
    fn append(&mut self, page: &UpdatesPage, after: Option<Pos>, cx: &mut Ctx) {
        let items = positioned(&page.transactions, cx);
        let items = self.screened(items, after, cx);
        let added = cx.history.add_page(&items, Placement::Append);
        cx.out.change.merge(HistoryChange {
            appended: added,
            at_head: cx.feed.at_head,
            forward_page: true,
            ..HistoryChange::default()
        });
        if let Some(last) = cx.history.last() {
            let m = last.migration_id;
            cx.feed.migration = Some(cx.feed.migration.map_or(m, |k| k.max(m)));
        }
        self.advance_cursor(page, cx);
        self.enforce_budget(cx);
    }

    fn screened<'a>(
        &self,
        items: std::borrow::Cow<'a, [UpdateItem]>,
        after: Option<Pos>,
        cx: &mut Ctx,
    ) -> std::borrow::Cow<'a, [UpdateItem]> {
        let newest_loaded = cx.history.last().map(|s| (s.migration_id, s.record_time));
        let mut floor = after.max(newest_loaded);
        let max_time = cx.now.saturating_add(MAX_FUTURE);
        let max_migration = cx
            .feed
            .migration
            .unwrap_or(0)
            .max(after.map_or(0, |(m, _)| m))
            .saturating_add(MAX_MIGRATION_JUMP);
        let mut keep = Vec::with_capacity(items.len());
        let mut skipped = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let Some(pos) = item_position(item) else {
                continue;
            };
            let ok = floor.is_none_or(|f| pos > f) && pos.1 <= max_time && pos.0 <= max_migration;
            if ok {
                floor = Some(pos);
                keep.push(i);
            } else {
                skipped.push(i);
            }
        }
        if skipped.is_empty() {
            return items;
        }
        let ids: Vec<String> = skipped
            .iter()
            .take(IDS_NAMED)
            .filter_map(|&i| items.get(i).map(ids_of))
            .collect();
        let more = skipped.len().saturating_sub(IDS_NAMED);
        cx.note(
            Note::Error,
            format!(
                "{} update(s) out of order or impossible were skipped: {}{}",
                skipped.len(),
                ids.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ),
        );
        std::borrow::Cow::Owned(
            keep.into_iter()
                .filter_map(|i| items.get(i).cloned())
                .collect(),
        )
    }

    /// Moves the forward cursor to the newest loaded update (never backwards). The server's own
    /// text is used when it names exactly that update.
    fn advance_cursor(&mut self, page: &UpdatesPage, cx: &Ctx) {
        let Some(last) = cx.history.last() else {
            return;
        };
        let last_pos = (last.migration_id, last.record_time);
        if self
            .cursor
            .as_ref()
            .and_then(cursor_position)
            .is_some_and(|c| c >= last_pos)
        {
            return;
        }
        if let Some(next) = page.next_after()
            && cursor_position(&next) == Some(last_pos)
        {
            self.cursor = Some(next);
            return;
        }
        self.cursor = Some(after_at(last.migration_id, last.record_time));
    }

    // -----------------------------------------------------------------------------------------
    // Earlier updates
    // -----------------------------------------------------------------------------------------

    /// The oldest known position: the first loaded update, or the forward cursor when nothing
    /// is loaded (then updates at the cursor itself count as earlier).
    fn earlier_bound(&self, history: &History) -> Option<(Pos, bool)> {
        if let Some(first) = history.first() {
            return Some(((first.migration_id, first.record_time), false));
        }
        if self.stage != Stage::Forward {
            return None;
        }
        self.cursor
            .as_ref()
            .and_then(cursor_position)
            .map(|p| (p, true))
    }

    fn start_earlier(&mut self, cx: &mut Ctx) {
        if self.earlier.is_some() || self.span.is_some() {
            return;
        }
        if cx.feed.reached_begin {
            cx.note(Note::Info, "reached ledger begin");
            return;
        }
        let Some(((migration, _), _)) = self.earlier_bound(cx.history) else {
            return;
        };
        self.earlier = Some(EarlierJob {
            migration,
            step: EARLIER_FIRST_STEP,
            gathered: 0,
            id: None,
            sent_after: 0,
            due: i64::MIN,
        });
        self.publish(cx);
    }

    fn pump_earlier(&mut self, cx: &mut Ctx) {
        let Some(((_, anchor), _)) = self.earlier_bound(cx.history) else {
            return;
        };
        let Some(job) = &mut self.earlier else {
            return;
        };
        if job.id.is_some() || cx.now < job.due || !self.pace.ready(cx.now) {
            return;
        }
        self.pace.spend(cx.now);
        let after = anchor.saturating_sub(job.step).max(0);
        job.sent_after = after;
        let req = UpdatesRequest::after(PAGE_SIZE, job.migration, format_time_micros(after));
        let id = cx.fetch(req, UpdatesPurpose::Earlier);
        if let Some(job) = &mut self.earlier {
            job.id = Some(id);
        }
    }

    fn on_earlier_page(&mut self, page: &UpdatesPage, cx: &mut Ctx) {
        self.on_success(cx);
        let Some((bound, inclusive)) = self.earlier_bound(cx.history) else {
            self.earlier = None;
            return;
        };
        let Some(mut job) = self.earlier else {
            return;
        };
        job.id = None;
        let (cut, full) = earlier_cut(page, bound, inclusive);
        if full && cut.is_none() && job.step > EARLIER_MIN_STEP {
            // A gap between this page and the oldest loaded update: look back less far.
            job.step /= 2;
            job.due = cx.now;
            self.earlier = Some(job);
            return;
        }
        let added = prepend_earlier(page, cut, full, cx);
        job.gathered += added;
        job.due = cx.now;
        if job.gathered >= EARLIER_ENOUGH {
            self.earlier = None;
            return;
        }
        if job.sent_after > 0 {
            let anchor = self.earlier_bound(cx.history).map_or(0, |((_, t), _)| t);
            job.step = if job.step >= EARLIER_MAX_STEP {
                // Ask for the whole migration.
                anchor.max(job.step)
            } else {
                job.step.saturating_mul(2).min(EARLIER_MAX_STEP)
            };
            self.earlier = Some(job);
        } else if job.migration > 0 {
            // This migration is exhausted: continue in the previous one.
            job.migration -= 1;
            job.step = EARLIER_FIRST_STEP;
            self.earlier = Some(job);
        } else {
            self.earlier = None;
            cx.feed.reached_begin = true;
            cx.note(Note::Info, "reached ledger begin");
        }
    }
}

/// Where a page asked for before the oldest loaded update meets the history: the index of its
/// first item not before `bound` (`inclusive`: `bound` itself counts as before), and whether the
/// page was full. Items come in ledger order: the earlier ones are a prefix of the page.
fn earlier_cut(page: &UpdatesPage, bound: Pos, inclusive: bool) -> (Option<usize>, bool) {
    let before = |p: Pos| if inclusive { p <= bound } else { p < bound };
    let cut = page
        .transactions
        .iter()
        .position(|i| item_position(i).is_some_and(|p| !before(p)));
    (cut, page.transactions.len() >= PAGE)
}

/// Puts the items of `page` before `cut` (all of them when `None`) in front of the history and
/// returns how many were added. A full page that never reaches the history means some updates
/// of its last millisecond could not be asked for: the user is told.
fn prepend_earlier(page: &UpdatesPage, cut: Option<usize>, full: bool, cx: &mut Ctx) -> usize {
    if full && cut.is_none() {
        cx.note(
            Note::Warn,
            "more than 1,000 updates within a millisecond: some were skipped",
        );
    }
    let slice = &page.transactions[..cut.unwrap_or(page.transactions.len())];
    let items = positioned(slice, cx);
    let added = cx.history.add_page(&items, Placement::Prepend);
    cx.out.change.merge(HistoryChange {
        prepended: added,
        ..HistoryChange::default()
    });
    added
}

/// Items with a readable position (malformed items without one cannot be placed); records
/// the decode errors of malformed items in the feed.
fn positioned<'a>(items: &'a [UpdateItem], cx: &mut Ctx) -> std::borrow::Cow<'a, [UpdateItem]> {
    let mut all = true;
    for item in items {
        let pos = item_position(item);
        if let UpdateItem::Malformed { error, .. } = item
            && let Some(p) = pos
        {
            let kept = &mut cx.feed.malformed;
            if kept.len() >= MALFORMED_KEPT {
                kept.pop_front();
            }
            kept.push_back((p, error.to_string()));
        }
        all &= pos.is_some();
    }
    if all {
        return std::borrow::Cow::Borrowed(items);
    }
    let kept: Vec<UpdateItem> = items
        .iter()
        .filter(|i| item_position(i).is_some())
        .cloned()
        .collect();
    cx.note(
        Note::Warn,
        format!(
            "skipped {} update(s) without a readable record time",
            items.len() - kept.len()
        ),
    );
    std::borrow::Cow::Owned(kept)
}

fn mib_bytes(mib: u32) -> usize {
    usize::try_from(mib)
        .unwrap_or(usize::MAX)
        .saturating_mul(1 << 20)
}

/// How an item is named in messages: its id (shortened, as the server sent it) and position.
fn ids_of(item: &UpdateItem) -> String {
    let id: String = item.update_id().unwrap_or("?").chars().take(24).collect();
    match item_position(item) {
        Some((m, t)) => format!("{id} (migration {m}, {})", format_time_micros(t)),
        None => id,
    }
}

/// `after` at `(migration, micros)`.
fn after_at(migration: i64, micros: i64) -> UpdatesAfter {
    UpdatesAfter {
        after_migration_id: migration,
        after_record_time: format_time_micros(micros),
    }
}

fn cursor_position(c: &UpdatesAfter) -> Option<Pos> {
    parse_time_micros(&c.after_record_time).map(|t| (c.after_migration_id, t))
}

/// `(migration id, record time)` of an item; for malformed items read from their raw JSON.
pub fn item_position(item: &UpdateItem) -> Option<Pos> {
    match item {
        UpdateItem::Malformed { raw, .. } => {
            let v = raw.to_value().ok()?;
            let m = v.get("migration_id").and_then(serde_json::Value::as_i64)?;
            let t = v
                .get("record_time")
                .and_then(serde_json::Value::as_str)
                .and_then(parse_time_micros)?;
            Some((m, t))
        }
        _ => Some((
            item.migration_id()?,
            parse_time_micros(item.record_time()?)?,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ApiError;
    use serde_json::json;

    const SEC: i64 = MICROS;
    /// 2026-11-22T10:00:00Z
    const T0: i64 = 1_795_341_600 * SEC;

    /// The loader with everything it writes, driven step by step as the app drives it.
    struct Rig {
        loader: Loader,
        history: History,
        feed: Feed,
        ids: RequestIds,
        now: i64,
        /// Requests sent and not answered, oldest first.
        pending: Vec<(RequestId, Request)>,
        demand: Demand,
    }

    impl Rig {
        fn new(now: i64) -> Rig {
            Rig {
                loader: Loader::new(2000),
                history: History::default(),
                feed: Feed::default(),
                ids: RequestIds::default(),
                now,
                pending: Vec::new(),
                demand: Demand {
                    following: true,
                    near_end: true,
                },
            }
        }

        /// Runs `f` and then the pump, as one app step.
        fn step(&mut self, f: impl FnOnce(&mut Loader, &mut Ctx)) -> LoaderOut {
            let mut out = LoaderOut::default();
            let mut cx = Ctx {
                now: self.now,
                history: &mut self.history,
                feed: &mut self.feed,
                ids: &mut self.ids,
                out: &mut out,
            };
            f(&mut self.loader, &mut cx);
            self.loader.pump(self.demand, &mut cx);
            self.pending.extend(out.fetches.iter().cloned());
            self.pending.retain(|(id, _)| !out.cancels.contains(id));
            out
        }

        fn intent(&mut self, i: LoaderIntent) -> LoaderOut {
            self.step(|l, cx| l.intent(i, cx))
        }

        fn tick(&mut self, now: i64) -> LoaderOut {
            self.now = now;
            self.step(|_, _| {})
        }

        fn answer(&mut self, result: Result<Response, ApiError>) -> (Request, LoaderOut) {
            assert!(!self.pending.is_empty(), "no request to answer");
            let (id, request) = self.pending.remove(0);
            let reply = Fetched {
                id,
                request: request.clone(),
                result,
                elapsed_ms: 0,
            };
            let out = self.step(|l, cx| l.on_reply(&reply, cx));
            (request, out)
        }
    }

    fn tx(n: u64, migration: i64, t: i64) -> serde_json::Value {
        let mut v = crate::model::fixtures::transaction(&format!("1220{n:064x}"), 0, vec![]);
        v["migration_id"] = json!(migration);
        v["record_time"] = json!(format_time_micros(t));
        v
    }

    fn page(items: Vec<serde_json::Value>) -> Result<Response, ApiError> {
        let page: UpdatesPage =
            serde_json::from_value(json!({ "transactions": items })).expect("page decodes");
        Ok(Response::Updates(page))
    }

    fn purpose(r: &Request) -> UpdatesPurpose {
        match r {
            Request::Updates { purpose, .. } => *purpose,
            other => panic!("not an updates request: {other:?}"),
        }
    }

    fn after(r: &Request) -> Option<Pos> {
        match r {
            Request::Updates { req, .. } => req.after.as_ref().and_then(cursor_position),
            _ => None,
        }
    }

    /// Recent start on migration 0, answered up to the head with `n` updates.
    fn at_head(n: u64) -> Rig {
        let mut rig = Rig::new(T0 + 60 * SEC);
        rig.intent(LoaderIntent::Start(StartFrom::Recent { window_secs: 600 }));
        rig.answer(page(vec![]));
        let items = (0..n).map(|i| tx(i, 0, T0 + i as i64 * SEC)).collect();
        rig.answer(page(items));
        assert!(rig.feed.at_head);
        rig
    }

    #[test]
    fn a_recent_start_probes_the_migration_then_seeks_and_reaches_the_head() {
        let mut rig = Rig::new(T0 + 60 * SEC);
        let out = rig.intent(LoaderIntent::Start(StartFrom::Recent { window_secs: 600 }));
        assert!(out.change.reset, "the history is replaced");
        assert_eq!(rig.feed.phase, Phase::Discover);
        let (id, r) = rig.pending[0].clone();
        assert!(rig.loader.owns(id));
        assert_eq!(purpose(&r), UpdatesPurpose::Discover { migration: 0 });
        // Migration 3 exists: probed next; it has nothing after the far future: the newest.
        rig.answer(page(vec![tx(1, 3, T0)]));
        assert_eq!(
            purpose(&rig.pending[0].1),
            UpdatesPurpose::Discover { migration: 3 }
        );
        rig.answer(page(vec![]));
        assert_eq!(rig.feed.migration, Some(3));
        assert_eq!(rig.feed.phase, Phase::Seek { secs: 600 });
        assert_eq!(after(&rig.pending[0].1), Some((3, T0 - 540 * SEC)));
        let (_, out) = rig.answer(page(vec![tx(2, 3, T0), tx(3, 3, T0 + SEC)]));
        assert_eq!(out.change.appended, 2);
        assert!(out.change.forward_page);
        assert!(
            !out.change.at_head,
            "not yet at the head when the page arrived"
        );
        assert!(rig.feed.at_head, "a short page is the head");
        assert_eq!(rig.history.len(), 2);
        assert!(rig.pending.is_empty(), "polling waits for the interval");
        assert!(rig.tick(T0 + 61 * SEC).fetches.is_empty());
        let out = rig.tick(T0 + 62 * SEC);
        assert_eq!(out.fetches.len(), 1);
        assert_eq!(after(&out.fetches[0].1), Some((3, T0 + SEC)));
        let (_, out) = rig.answer(page(vec![tx(4, 3, T0 + 2 * SEC)]));
        assert!(out.change.at_head, "new at the head");
    }

    #[test]
    fn failures_back_off_doubling_and_success_resets() {
        let mut rig = at_head(2);
        rig.tick(rig.now + 2 * SEC);
        let t = rig.now;
        let (_, out) = rig.answer(Err(ApiError::Connect {
            endpoint: "scan POST /v2/updates",
            detail: "refused".into(),
        }));
        assert_eq!(out.notes.len(), 1);
        assert_eq!(out.notes[0].0, Note::Error);
        assert_eq!(rig.feed.failures, 1);
        assert!(rig.tick(t + 2 * SEC - 1).fetches.is_empty());
        assert_eq!(rig.tick(t + 2 * SEC).fetches.len(), 1);
        rig.answer(Err(ApiError::Connect {
            endpoint: "scan POST /v2/updates",
            detail: "refused".into(),
        }));
        let t = rig.now;
        assert!(rig.tick(t + 4 * SEC - 1).fetches.is_empty(), "doubled");
        assert_eq!(rig.tick(t + 4 * SEC).fetches.len(), 1);
        rig.answer(page(vec![]));
        assert_eq!(rig.feed.failures, 0);
    }

    #[test]
    fn replies_it_did_not_send_are_dropped() {
        let mut rig = at_head(2);
        let stranger = Fetched {
            id: RequestId::new(crate::msg::PaneId::History, 9_999),
            request: Request::Updates {
                req: UpdatesRequest::from_begin(PAGE_SIZE),
                purpose: UpdatesPurpose::Forward,
            },
            result: page(vec![tx(50, 0, T0 + 50 * SEC)]),
            elapsed_ms: 0,
        };
        assert!(!rig.loader.owns(stranger.id));
        let out = rig.step(|l, cx| l.on_reply(&stranger, cx));
        assert_eq!(out.change, HistoryChange::default());
        assert_eq!(rig.history.len(), 2);
    }

    #[test]
    fn a_restart_cancels_what_is_in_flight_and_replaces_the_history() {
        let mut rig = at_head(3);
        rig.tick(rig.now + 2 * SEC);
        let (poll, _) = rig.pending[0].clone();
        let epoch = rig.history.epoch();
        let out = rig.intent(LoaderIntent::Restart(StartFrom::Time(T0 - 86_400 * SEC)));
        assert_eq!(out.cancels, vec![poll]);
        assert!(out.change.reset);
        assert_ne!(rig.history.epoch(), epoch);
        assert!(rig.history.is_empty());
        assert_eq!(rig.feed.migration, Some(0), "the known migration is kept");
        assert_eq!(out.fetches.len(), 1);
        assert_eq!(after(&out.fetches[0].1), Some((0, T0 - 86_400 * SEC)));
        // The stale poll's answer changes nothing.
        let stale = Fetched {
            id: poll,
            request: Request::Updates {
                req: UpdatesRequest::from_begin(PAGE_SIZE),
                purpose: UpdatesPurpose::Forward,
            },
            result: page(vec![tx(9, 0, T0 + 9 * SEC)]),
            elapsed_ms: 0,
        };
        let out = rig.step(|l, cx| l.on_reply(&stale, cx));
        assert_eq!(out.change.appended, 0);
    }

    #[test]
    fn a_lazy_list_loads_the_next_page_only_on_demand() {
        let mut rig = Rig::new(T0);
        rig.demand = Demand {
            following: false,
            near_end: true,
        };
        rig.intent(LoaderIntent::Start(StartFrom::Begin));
        let full = (0..1000).map(|i| tx(i, 0, T0 + i as i64 * SEC)).collect();
        rig.demand.near_end = false;
        rig.answer(page(full));
        assert!(rig.pending.is_empty(), "far from the end: wait");
        assert!(rig.tick(T0 + 3_600 * SEC).fetches.is_empty());
        assert_eq!(rig.intent(LoaderIntent::More).fetches.len(), 1);
        rig.answer(page(vec![tx(2000, 0, T0 + 2000 * SEC)]));
        assert!(rig.feed.at_head);
        assert!(rig.feed.reached_begin);
    }

    #[test]
    fn earlier_updates_are_prepended_and_counted_in_the_change() {
        let mut rig = at_head(2);
        let out = rig.intent(LoaderIntent::Earlier);
        assert!(rig.feed.loading_earlier);
        assert_eq!(purpose(&out.fetches[0].1), UpdatesPurpose::Earlier);
        assert_eq!(after(&out.fetches[0].1), Some((0, T0 - EARLIER_FIRST_STEP)));
        let base = rig.history.base();
        let (_, out) = rig.answer(page(vec![tx(100, 0, T0 - 10 * SEC), tx(0, 0, T0)]));
        assert_eq!(out.change.prepended, 1);
        assert_eq!(rig.history.base(), base - 1);
        assert_eq!(rig.history.len(), 3);
    }

    // -----------------------------------------------------------------------------------------
    // Hostile servers (issue 9): progress or a stop with a message, bounded rates, bad items
    // -----------------------------------------------------------------------------------------

    fn errors(out: &LoaderOut) -> Vec<&str> {
        out.notes
            .iter()
            .filter(|(l, _)| *l == Note::Error)
            .map(|(_, t)| t.as_str())
            .collect()
    }

    #[test]
    fn a_server_that_ignores_after_in_discovery_stops_it_with_a_message() {
        let mut rig = Rig::new(T0 + 60 * SEC);
        rig.intent(LoaderIntent::Start(StartFrom::Recent { window_secs: 600 }));
        // Every probe answers with the first update of the ledger, whatever was asked.
        let first = || page(vec![tx(1, 0, T0)]);
        rig.answer(first());
        let (_, out) = rig.answer(first());
        assert!(
            errors(&out).iter().any(|e| e.contains(SAME_PAGE_TWICE)),
            "{:?}",
            out.notes
        );
        assert_eq!(rig.feed.phase, Phase::Stopped);
        assert!(rig.pending.is_empty(), "nothing more is asked");
        assert!(rig.tick(T0 + 3_600 * SEC).fetches.is_empty());
        // A refresh starts again.
        assert_eq!(rig.intent(LoaderIntent::Refresh).fetches.len(), 1);
    }

    #[test]
    fn a_server_that_ignores_after_while_paging_stops_with_a_message() {
        let mut rig = Rig::new(T0);
        rig.intent(LoaderIntent::Start(StartFrom::Begin));
        let full = || page((0..1000).map(|i| tx(i, 0, T0 + i as i64 * SEC)).collect());
        rig.answer(full());
        let (_, out) = rig.answer(full());
        assert!(errors(&out).iter().any(|e| e.contains(SAME_PAGE_TWICE)));
        assert_eq!(rig.history.len(), 1000);
        assert!(rig.pending.is_empty());
        // At the head too: a poll answered with the last page again.
        let mut rig = at_head(3);
        rig.tick(rig.now + 2 * SEC);
        let (_, out) = rig.answer(page(
            (0..3).map(|i| tx(i, 0, T0 + i as i64 * SEC)).collect(),
        ));
        assert!(errors(&out).iter().any(|e| e.contains(SAME_PAGE_TWICE)));
        assert!(rig.tick(rig.now + 60 * SEC).fetches.is_empty());
    }

    #[test]
    fn discovery_never_bursts_beyond_a_few_requests_a_second() {
        // A server with ever newer migrations (each probe answers with migration k + 1).
        let mut rig = Rig::new(T0);
        rig.intent(LoaderIntent::Start(StartFrom::Recent { window_secs: 600 }));
        let mut sent = 1;
        let mut at_once = 1;
        for ms in 0..10_000 {
            rig.now = T0 + ms * 1_000;
            while let Some((_, r)) = rig.pending.first().cloned() {
                let Request::Updates {
                    purpose: UpdatesPurpose::Discover { migration },
                    ..
                } = r
                else {
                    panic!("still discovering: {r:?}");
                };
                let (_, out) = rig.answer(page(vec![tx(
                    migration as u64,
                    migration + 1,
                    T0 + migration * SEC,
                )]));
                sent += out.fetches.len();
                if ms == 0 {
                    at_once += out.fetches.len();
                }
            }
            sent += rig.tick(rig.now).fetches.len();
        }
        let allowed = usize::try_from(PACE_BURST + 10 * PACE_PER_SEC).expect("small");
        assert!(sent <= allowed + 1, "{sent} requests in 10 s");
        assert!(
            at_once <= usize::try_from(PACE_BURST).expect("small"),
            "{at_once} at once"
        );
        assert!(sent >= 40, "it keeps going at the pace: {sent}");
    }

    #[test]
    fn seek_steps_start_at_ten_minutes_and_end_at_a_year() {
        // Taken from the head search's windows: the history seek must not start at 30 s.
        assert_eq!(
            SEEK_STEPS,
            [600, 3_600, 21_600, 86_400, 604_800, 2_592_000, 31_536_000]
        );
    }

    #[test]
    fn an_item_in_year_9999_is_reported_and_never_moves_the_cursor() {
        let mut rig = at_head(2);
        rig.tick(rig.now + 2 * SEC);
        let far = parse_time_micros(DISCOVER_TIME).expect("time");
        let (_, out) = rig.answer(page(vec![
            tx(10, 0, T0 + 10 * SEC),
            tx(11, 0, far),
            tx(12, 0, T0 + 12 * SEC),
        ]));
        let errs = errors(&out);
        assert_eq!(errs.len(), 1, "{:?}", out.notes);
        assert!(
            errs[0].starts_with("1 update(s) out of order or impossible"),
            "{}",
            errs[0]
        );
        assert!(
            errs[0].contains(&format!("1220{:064x}", 11)[..24]),
            "{}",
            errs[0]
        );
        assert_eq!(rig.history.len(), 4, "the later item is kept");
        let out = rig.tick(rig.now + 2 * SEC);
        assert_eq!(after(&out.fetches[0].1), Some((0, T0 + 12 * SEC)));
    }

    #[test]
    fn a_migration_id_of_i64_max_is_reported_and_never_moves_the_cursor() {
        // While paging …
        let mut rig = at_head(2);
        rig.tick(rig.now + 2 * SEC);
        let (_, out) = rig.answer(page(vec![tx(20, i64::MAX, T0 + 20 * SEC)]));
        assert_eq!(errors(&out).len(), 1, "{:?}", out.notes);
        assert_eq!(rig.feed.migration, Some(0));
        let out = rig.tick(rig.now + 2 * SEC);
        assert_eq!(after(&out.fetches[0].1), Some((0, T0 + SEC)));
        // … and while discovering.
        let mut rig = Rig::new(T0 + 60 * SEC);
        rig.intent(LoaderIntent::Start(StartFrom::Recent { window_secs: 600 }));
        let (_, out) = rig.answer(page(vec![tx(1, i64::MAX, T0)]));
        assert_eq!(errors(&out).len(), 1, "{:?}", out.notes);
        assert_eq!(rig.feed.migration, Some(0));
        assert_eq!(after(&rig.pending[0].1), Some((0, T0 - 540 * SEC)));
    }

    #[test]
    fn items_out_of_order_are_counted_and_named() {
        let mut rig = at_head(5);
        rig.tick(rig.now + 2 * SEC);
        let (_, out) = rig.answer(page(vec![
            tx(1, 0, T0 + SEC),
            tx(30, 0, T0 + 30 * SEC),
            tx(29, 0, T0 + 29 * SEC),
        ]));
        let errs = errors(&out);
        assert_eq!(errs.len(), 1);
        assert!(
            errs[0].starts_with("2 update(s) out of order"),
            "{}",
            errs[0]
        );
        assert_eq!(rig.history.len(), 6);
    }

    #[test]
    fn a_page_larger_than_asked_is_kept_with_one_warning() {
        let mut rig = at_head(1);
        let mut warnings = 0;
        for round in 0..3i64 {
            rig.tick(rig.now + 2 * SEC);
            let start = 10_000 * (round + 1);
            let items = (0..1500)
                .map(|i| tx((start + i) as u64, 0, T0 + (start + i) * SEC))
                .collect();
            let (_, out) = rig.answer(page(items));
            warnings += out.notes.iter().filter(|(l, _)| *l == Note::Warn).count();
            while !rig.pending.is_empty() {
                rig.answer(page(vec![]));
            }
        }
        assert_eq!(warnings, 1);
        assert_eq!(rig.history.len(), 1 + 3 * 1500);
    }

    #[test]
    fn the_history_stays_within_its_memory_budget_and_scrolling_back_fetches_again() {
        let mut rig = at_head(1);
        rig.loader.set_memory_budget_mib(1);
        let budget = 1 << 20;
        let mut dropped = 0;
        let mut notes = 0;
        let mut n = 100;
        for _ in 0..20 {
            rig.tick(rig.now + 2 * SEC);
            let items = (n..n + 999)
                .map(|i| tx(i, 0, T0 + i64::try_from(i).expect("small") * SEC))
                .collect();
            n += 999;
            let (_, out) = rig.answer(page(items));
            dropped += out.change.dropped;
            notes += out.notes.len();
            assert!(
                rig.history.memory_bytes() <= budget,
                "{} bytes",
                rig.history.memory_bytes()
            );
        }
        assert!(dropped > 5_000, "dropped {dropped}");
        assert_eq!(notes, 1, "said once");
        assert_eq!(rig.history.dropped(), dropped as u64);
        assert!(!rig.feed.reached_begin);
        assert_eq!(rig.feed.memory_budget, budget);
        // Bytes per summary, as accounted: a few hundred, not kilobytes.
        let per = rig.history.memory_bytes() / rig.history.len();
        assert!((100..1_000).contains(&per), "{per} bytes per summary");
        // Scrolling back past the oldest loaded fetches the dropped ones again.
        let oldest = rig.history.first().expect("loaded").record_time;
        let out = rig.intent(LoaderIntent::Earlier);
        assert_eq!(purpose(&out.fetches[0].1), UpdatesPurpose::Earlier);
        assert_eq!(
            after(&out.fetches[0].1),
            Some((0, oldest - EARLIER_FIRST_STEP))
        );
    }

    // -----------------------------------------------------------------------------------------
    // Span loads
    // -----------------------------------------------------------------------------------------

    /// A scan over a ledger of one migration with updates at `times` (µs, ascending): answers a
    /// `/v2/updates` request as a server does (after the cursor, at most `page_size`).
    fn serve(times: &[i64], r: &Request) -> Result<Response, ApiError> {
        let Request::Updates { req, .. } = r else {
            panic!("not an updates request: {r:?}");
        };
        let from = req.after.as_ref().and_then(cursor_position);
        let n = usize::try_from(req.page_size).expect("page size");
        let items = times
            .iter()
            .enumerate()
            .filter(|(_, t)| from.is_none_or(|f| (0, **t) > f))
            .take(n)
            .map(|(i, t)| tx(i as u64, 0, *t))
            .collect();
        page(items)
    }

    /// Answers every pending request from `times`, moving the clock a second a round, until
    /// `done` holds (at most `rounds` rounds).
    fn run_until(
        rig: &mut Rig,
        times: &[i64],
        rounds: usize,
        done: impl Fn(&Rig) -> bool,
    ) -> Vec<String> {
        let mut notes = Vec::new();
        for _ in 0..rounds {
            if done(rig) {
                break;
            }
            let out = rig.tick(rig.now + SEC);
            notes.extend(out.notes.into_iter().map(|(_, t)| t));
            while let Some((_, r)) = rig.pending.first().cloned() {
                let (_, out) = rig.answer(serve(times, &r));
                notes.extend(out.notes.into_iter().map(|(_, t)| t));
            }
        }
        notes
    }

    /// One update every 2 s for the 10 hours before `T0`, loaded for the last 10 minutes.
    fn ten_hours() -> (Rig, Vec<i64>) {
        let times: Vec<i64> = (0..18_000)
            .map(|i| T0 - 36_000 * SEC + i * 2 * SEC)
            .collect();
        let mut rig = Rig::new(T0);
        rig.intent(LoaderIntent::Start(StartFrom::Recent { window_secs: 600 }));
        run_until(&mut rig, &times, 20, |r| r.feed.at_head);
        assert!(rig.feed.at_head);
        assert_eq!(rig.history.len(), 299, "the last 10 minutes");
        (rig, times)
    }

    fn loaded_times(rig: &Rig) -> Vec<i64> {
        rig.history.iter().map(|s| s.record_time).collect()
    }

    #[test]
    fn a_span_load_fetches_exactly_the_span_in_well_filled_pages() {
        let (mut rig, times) = ten_hours();
        let since = T0 - 6 * 3_600 * SEC;
        rig.intent(LoaderIntent::LoadSpan { since });
        assert!(rig.feed.span.is_some_and(|p| p.running()));
        let notes = run_until(&mut rig, &times, 200, |r| {
            r.feed.span.is_some_and(|p| !p.running())
        });
        let p = rig.feed.span.expect("progress");
        assert_eq!(p.end, Some(SpanEnd::Done), "{notes:?}");
        assert_eq!(p.percent(), 100);
        // Every update of the span, once, in order, and nothing before it.
        let want: Vec<i64> = times.iter().copied().filter(|t| *t >= since).collect();
        assert_eq!(loaded_times(&rig), want);
        assert_eq!(p.updates, want.len() - 299);
        // 10,500 updates in 15 pages (700 a page), measured: the step fits the rate.
        assert!(p.pages <= 16, "{} pages", p.pages);
        assert!(
            notes.iter().any(|n| n.starts_with("span loaded back to")),
            "{notes:?}"
        );
        // Paced with the rest: never more than the burst plus 4 a second.
        assert!(rig.feed.failures == 0);
    }

    #[test]
    fn a_span_load_stops_at_the_memory_budget_keeping_the_history_whole() {
        let (mut rig, times) = ten_hours();
        rig.loader.set_memory_budget_mib(1);
        rig.intent(LoaderIntent::LoadSpan {
            since: T0 - 10 * 3_600 * SEC,
        });
        let notes = run_until(&mut rig, &times, 200, |r| {
            r.feed.span.is_some_and(|p| !p.running())
        });
        let p = rig.feed.span.expect("progress");
        assert_eq!(p.end, Some(SpanEnd::Budget), "{notes:?}");
        assert!(rig.history.memory_bytes() <= 1 << 20);
        assert!(p.percent() < 100);
        // What is loaded is a contiguous stretch ending at the head.
        let loaded = loaded_times(&rig);
        let start = times.iter().position(|t| *t == loaded[0]).expect("known");
        assert_eq!(loaded, times[start..].to_vec());
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("memory budget full (1 MiB)")),
            "{notes:?}"
        );
        // The live tail does not drop what the span loaded at once.
        let dropped = rig.history.dropped();
        rig.tick(rig.now + 3 * SEC);
        assert_eq!(rig.history.dropped(), dropped);
    }

    #[test]
    fn a_span_load_can_be_cancelled_and_what_it_loaded_stays() {
        let (mut rig, times) = ten_hours();
        rig.intent(LoaderIntent::LoadSpan {
            since: T0 - 6 * 3_600 * SEC,
        });
        // One page arrives, the next is in flight.
        let (_, r) = rig
            .pending
            .first()
            .cloned()
            .expect("the span's first request");
        assert_eq!(purpose(&r), UpdatesPurpose::Earlier);
        let (_, out) = rig.answer(serve(&times, &r));
        assert!(
            out.fetches.is_empty(),
            "no burst: the next page waits its turn"
        );
        let loaded = rig.history.len();
        assert!(loaded > 299 + 500, "{loaded}");
        let out = rig.tick(rig.now + SEC / 4);
        let in_flight: Vec<RequestId> = out.fetches.iter().map(|(id, _)| *id).collect();
        assert_eq!(in_flight.len(), 1);
        let out = rig.intent(LoaderIntent::CancelSpan);
        assert_eq!(out.cancels, in_flight);
        assert_eq!(rig.feed.span.and_then(|p| p.end), Some(SpanEnd::Cancelled));
        assert_eq!(rig.history.len(), loaded);
        assert!(out.notes.iter().any(|(_, n)| n.contains("cancelled")));
    }

    #[test]
    fn a_span_already_loaded_or_over_a_full_budget_is_not_started() {
        let (mut rig, _) = ten_hours();
        let out = rig.intent(LoaderIntent::LoadSpan {
            since: T0 - 60 * SEC,
        });
        assert!(
            out.notes
                .iter()
                .any(|(_, n)| n.starts_with("already loaded"))
        );
        assert!(rig.feed.span.is_none());
        assert!(span_estimate(&rig.history, T0 - 6 * 3_600 * SEC).is_some_and(|b| b > 1 << 20));
    }
}
