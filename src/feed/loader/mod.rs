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
mod interface;
mod main_line;
mod range;
mod span;

use crate::api::scan::{UpdateItem, UpdatesAfter, UpdatesPage, UpdatesRequest};
use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::history::History;
use crate::model::network::{FAR_FUTURE, HEAD_WINDOWS};
use crate::model::position::At;
use crate::msg::{Fetched, RequestId, RequestIds};

pub use interface::{
    Demand, Feed, HistoryChange, LoaderIntent, LoaderOut, Note, PageFetch, Phase, SpanEnd,
    SpanProgress, StartFrom, UpdatesPurpose,
};
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
    /// No pace: the pages come from the local index (`--offline`), which no one shares.
    off: bool,
}

impl Pace {
    const INTERVAL: i64 = MICROS / PACE_PER_SEC;
    const TOLERANCE: i64 = (PACE_BURST - 1) * Self::INTERVAL;

    fn ready(self, now: i64) -> bool {
        self.off || now >= self.tat.saturating_sub(Self::TOLERANCE)
    }

    fn spend(&mut self, now: i64) {
        if self.off {
            return;
        }
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

    /// Asks for pages without the pace a scan is owed: with `--offline` every page comes from
    /// the local index (a bench index of 200 migrations found them one a quarter second).
    pub fn set_unpaced(&mut self, unpaced: bool) {
        self.pace.off = unpaced;
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
mod pace_tests;
#[cfg(test)]
mod tests;
