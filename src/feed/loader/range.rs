//! The range job: a stretch of `/v2/updates` read for another reader. History's timeline asks
//! the loader for the parts the local index lacks (its gaps, [`crate::feed::timeline`]); the
//! loader walks each one page by page ([`PageWalk`]) with what it uses for its own lines — the
//! one request pace, the back-off after a failure (the page is asked again), and the memory
//! budget (the timeline's rows count in it, [`Ctx::held`]) — and hands each page's updates in
//! range to the asker ([`LoaderOut::range`]). At most [`RANGE_PAGES_PER_SEC`] pages a second,
//! one range at a time: asking another replaces the one running.

use super::{Ctx, Loader, LoaderOut, PAGE_SIZE, UpdatesPurpose};
use crate::api::scan::{UpdateItem, UpdatesPage};
use crate::model::page_walk::{PageWalk, cursor_at, cursor_position};
use crate::model::position::At;
use crate::msg::RequestId;

/// Pages a second a range is read at (History's gaps; the export from the server too).
pub const RANGE_PAGES_PER_SEC: i64 = 4;

/// A stretch of the history to read: from `start` (inclusive) up to `until` (inclusive, µs),
/// skipping what is recorded before `skip_before` (µs; the cursor may be in an older migration,
/// after whose last update the scan goes on with the next migration from its first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RangeAsk {
    pub start: At,
    pub skip_before: i64,
    pub until: i64,
}

/// What the range job hands its asker.
#[derive(Debug, Clone, PartialEq)]
pub enum RangeEvent {
    /// The updates of a page inside the range (in ledger order); whether the range is read to
    /// its end, else up to which record time (µs) everything was sent.
    Page {
        items: Vec<UpdateItem>,
        done: bool,
        upto: Option<i64>,
    },
    /// The memory budget is full: the range stops, read up to `reached` (the cursor's record
    /// time, as the scan wrote it).
    Budget { reached: Option<String> },
    /// The scan's answer cannot move the walk forward (it ignores `after`): the range stops.
    Stuck(String),
}

/// The range being read.
#[derive(Debug, Clone)]
pub(super) struct RangeJob {
    walk: PageWalk,
    id: Option<RequestId>,
    due: i64,
}

impl Loader {
    /// Reads `ask` (replacing a range being read; its request in flight is cancelled).
    pub(super) fn start_range(&mut self, ask: RangeAsk, cx: &mut Ctx) {
        self.stop_range(cx);
        let walk = PageWalk::new(
            Some(cursor_at(ask.start.migration_id, ask.start.record_time)),
            Some(ask.until),
            PAGE_SIZE,
        )
        .from_time(ask.skip_before);
        // Paced across ranges too: the next gap waits as the next page would.
        self.range = Some(RangeJob {
            walk,
            id: None,
            due: self.range_paced,
        });
    }

    /// Stops the range being read.
    pub(super) fn stop_range(&mut self, cx: &mut Ctx) {
        if let Some(id) = self.range.take().and_then(|j| j.id) {
            cx.out.cancels.push(id);
        }
    }

    /// Sends the range's next page without waiting for the back-off.
    pub(super) fn refresh_range(&mut self) {
        self.range_paced = i64::MIN;
        if let Some(job) = &mut self.range {
            job.due = i64::MIN;
        }
    }

    /// The range's request id in flight.
    pub(super) fn range_in_flight(&self) -> Option<RequestId> {
        self.range.as_ref().and_then(|j| j.id)
    }

    /// Asks for the range's next page when it is due, within the pace and the budget.
    pub(super) fn pump_range(&mut self, cx: &mut Ctx) {
        let Some(job) = &self.range else {
            return;
        };
        if job.id.is_some() || cx.now < job.due || !self.pace.ready(cx.now) {
            return;
        }
        if cx.history.memory_bytes().saturating_add(cx.held) >= self.budget {
            let reached = job.walk.cursor().map(|c| c.after_record_time.clone());
            self.range = None;
            cx.out.range.push(RangeEvent::Budget { reached });
            return;
        }
        let req = job.walk.request();
        self.pace.spend(cx.now);
        let id = self.send(req, UpdatesPurpose::Range, cx);
        self.range_paced = cx.now.saturating_add(1_000_000 / RANGE_PAGES_PER_SEC);
        if let Some(job) = &mut self.range {
            job.id = Some(id);
            job.due = self.range_paced;
        }
    }

    /// A page of the range.
    pub(super) fn on_range_page(&mut self, page: &UpdatesPage, cx: &mut Ctx) {
        self.on_success(cx);
        let Some(job) = &mut self.range else {
            return;
        };
        job.id = None;
        let event = match job.walk.on_page(page) {
            Ok(take) => RangeEvent::Page {
                items: page.transactions[take.range()].to_vec(),
                done: take.done,
                // The next page starts after this time: everything up to it was sent.
                upto: job
                    .walk
                    .cursor()
                    .filter(|_| !take.done)
                    .map(cursor_position)
                    .and_then(|(_, t)| t),
            },
            Err(e) => RangeEvent::Stuck(e),
        };
        if !matches!(event, RangeEvent::Page { done: false, .. }) {
            self.range = None;
        }
        cx.out.range.push(event);
    }

    /// A failed page of the range: asked again after the back-off.
    pub(super) fn on_range_failure(&mut self, message: &str, cx: &mut Ctx) {
        let due = self.on_failure(
            format!("History: reading what the local index lacks from the scan: {message}"),
            cx,
        );
        if let Some(job) = &mut self.range {
            (job.id, job.due) = (None, due);
        }
    }
}

impl LoaderOut {
    /// Whether the step produced anything for the range's asker.
    pub fn has_range(&self) -> bool {
        !self.range.is_empty()
    }
}
