//! What the history loader is asked and what it gives: where the history starts, the History
//! pane's intents and demand; the feed readers see (its phase, a span load's progress, the
//! decode errors of malformed items); one step's output (the pages to ask for and why, notes,
//! how the history changed).

use std::collections::VecDeque;

use crate::api::scan::UpdatesRequest;
use crate::model::position::At;
use crate::msg::{Request, RequestId};

use super::MICROS;
use super::range::{RangeAsk, RangeEvent};

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

/// What panes read about the loaded history; written by the [`Loader`](super::Loader) only.
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
    pub(super) malformed: VecDeque<(At, String)>,
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
    pub(super) fn merge(&mut self, other: HistoryChange) {
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
