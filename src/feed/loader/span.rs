//! The span load (`L` in History, `:load 6h`): the updates back to a chosen time before the
//! oldest loaded one, in the background. It walks back like the "earlier" job, with the
//! look-back step fitted to the update rate so each page is mostly used (halved across a gap,
//! grown over quiet stretches), paced with the other `/v2/updates` requests and never faster than
//! [`PACE_PER_SEC`] pages a second (no burst), and stops at the
//! span's start, on the user's cancel, or when the history reaches its memory budget (at 7/8 of
//! it, the level trimming returns to, so the live tail does not drop what was just loaded).
//! It crosses migrations: each look-back reads from the migration in force at its time (where the
//! loader's discovery found each to start), on across the later ones.

use super::earlier::{earlier_cut, prepend_earlier};
use super::{
    Ctx, EARLIER_FIRST_STEP, EARLIER_MAX_STEP, EARLIER_MIN_STEP, HistoryChange, Loader, MICROS,
    Note, PACE_PER_SEC, PAGE, SpanEnd, SpanJob, SpanProgress,
};
use crate::api::scan::UpdatesPage;
use crate::model::format::format_time_micros;
use crate::model::history::History;
use crate::model::position::At;

/// Updates a page should bring (three quarters of a page: a denser stretch still fits).
const AIM: i64 = (PAGE as i64) * 3 / 4;
/// Bytes an update is reckoned to take before any is loaded.
const BYTES_PER_UPDATE: usize = 300;

/// The memory a span load fills at most (bytes), for a budget.
pub fn span_limit(budget: usize) -> usize {
    super::loaded_share(budget)
}

/// What loading back to `since` would add to the history's memory (bytes), reckoned from the
/// loaded updates (their rate by record time and their size); `None` when too little is loaded
/// to tell.
pub fn span_estimate(history: &History, since: i64) -> Option<usize> {
    let (first, last) = (history.first()?, history.last()?);
    let n = history.len();
    let loaded = last.record_time().saturating_sub(first.record_time());
    if n < 2 || loaded <= 0 {
        return None;
    }
    let missing = first.record_time().saturating_sub(since).max(0);
    let per_update = history.memory_bytes() / n.max(1);
    let updates = i128::from(missing) * n as i128 / i128::from(loaded);
    let bytes = updates.saturating_mul(per_update.max(BYTES_PER_UPDATE / 2) as i128);
    Some(usize::try_from(bytes).unwrap_or(usize::MAX))
}

/// The first look-back step: what holds [`AIM`] updates at the loaded rate.
fn initial_step(history: &History, span: i64) -> i64 {
    let step = match (history.first(), history.last()) {
        (Some(f), Some(l)) if history.len() >= 2 && l.record_time() > f.record_time() => {
            let loaded = i128::from(l.record_time() - f.record_time());
            i64::try_from(loaded * i128::from(AIM) / history.len() as i128).unwrap_or(i64::MAX)
        }
        _ => EARLIER_FIRST_STEP,
    };
    step.clamp(EARLIER_MIN_STEP, span.max(EARLIER_MIN_STEP))
}

/// The next step after a page brought `added` updates over `window` µs.
fn next_step(added: usize, window: i64, step: i64) -> i64 {
    let next = if added == 0 || window <= 0 {
        step.saturating_mul(4)
    } else {
        let fitted = i128::from(window) * i128::from(AIM) / added as i128;
        i64::try_from(fitted).unwrap_or(i64::MAX)
    };
    next.clamp(EARLIER_MIN_STEP, EARLIER_MAX_STEP)
}

impl Loader {
    pub(super) fn start_span(&mut self, since: i64, cx: &mut Ctx) {
        if self.span.is_some() {
            cx.note(Note::Warn, "a span load is running: Esc cancels it");
            return;
        }
        let Some((
            At {
                migration_id: migration,
                record_time: oldest,
            },
            _,
        )) = self.earlier_bound(cx.history)
        else {
            cx.note(
                Note::Warn,
                "nothing loaded yet: try again once the history has loaded",
            );
            return;
        };
        if oldest <= since {
            cx.note(
                Note::Info,
                format!(
                    "already loaded: the oldest loaded update ({}) is at or before {}",
                    format_time_micros(oldest),
                    format_time_micros(since)
                ),
            );
            return;
        }
        if cx.history.memory_bytes() >= span_limit(self.budget) {
            cx.note(
                Note::Warn,
                format!(
                    "the history memory budget ({} MiB) is full: nothing more can be loaded (history_memory_mib)",
                    self.budget >> 20
                ),
            );
            return;
        }
        if let Some(id) = self.earlier.take().and_then(|j| j.id) {
            cx.out.cancels.push(id);
        }
        self.span = Some(SpanJob {
            migration,
            step: initial_step(cx.history, oldest - since),
            id: None,
            sent_after: 0,
            due: i64::MIN,
            progress: SpanProgress {
                since,
                from: oldest,
                reached: oldest,
                started: cx.now,
                last: cx.now,
                pages: 0,
                updates: 0,
                end: None,
            },
        });
        cx.feed.span = self.span.map(|j| j.progress);
    }

    /// Ends the span load (if one runs) and says how.
    pub(super) fn end_span(&mut self, end: SpanEnd, cx: &mut Ctx) {
        let Some(job) = self.span.take() else {
            return;
        };
        if let Some(id) = job.id {
            cx.out.cancels.push(id);
        }
        let mut p = job.progress;
        p.end = Some(end);
        p.last = cx.now;
        cx.feed.span = Some(p);
        let loaded = format!(
            "{} update{} in {} page{}",
            crate::model::format::group_thousands(p.updates),
            if p.updates == 1 { "" } else { "s" },
            p.pages,
            if p.pages == 1 { "" } else { "s" }
        );
        match end {
            SpanEnd::Done => cx.note(
                Note::Info,
                format!("span loaded back to {}: {loaded}", format_time_micros(p.since)),
            ),
            SpanEnd::Budget => cx.note(
                Note::Warn,
                format!(
                    "memory budget full ({} MiB): loaded back to {} ({}% of the span, {loaded}); raise history_memory_mib to load more",
                    self.budget >> 20,
                    format_time_micros(p.reached),
                    p.percent()
                ),
            ),
            SpanEnd::Cancelled => cx.note(
                Note::Info,
                format!(
                    "span load cancelled at {}%: {loaded} stay loaded",
                    p.percent()
                ),
            ),
            SpanEnd::Reloaded => cx.note(Note::Info, "span load stopped: the history was reloaded"),
        }
    }

    pub(super) fn pump_span(&mut self, cx: &mut Ctx) {
        let Some(anchor) = self.earlier_anchor(cx.history) else {
            return;
        };
        let Some(job) = &mut self.span else {
            return;
        };
        if job.id.is_some() || cx.now < job.due {
            return;
        }
        if anchor <= job.progress.since {
            self.end_span(SpanEnd::Done, cx);
            return;
        }
        if cx.history.memory_bytes() >= span_limit(self.budget) {
            self.end_span(SpanEnd::Budget, cx);
            return;
        }
        if !self.pace.ready(cx.now) {
            return;
        }
        let floor = job.progress.since.saturating_sub(1);
        let after = anchor.saturating_sub(job.step).max(floor).max(0);
        job.sent_after = after;
        // The migration in force at `after` (where the loader's discovery found each to start):
        // the page reads on from there across the later migrations, so a span crosses them.
        let migration = cx
            .feed
            .migration_at(after)
            .map_or(job.migration, |m| m.min(job.migration));
        let id = self.send_look_back(migration, after, cx);
        if let Some(job) = &mut self.span {
            job.id = Some(id);
        }
    }

    pub(super) fn on_span_page(&mut self, page: &UpdatesPage, cx: &mut Ctx) {
        self.on_success(cx);
        let Some(mut job) = self.span else {
            return;
        };
        job.id = None;
        // At most PACE_PER_SEC pages a second, burst or not: a long load never crowds the scan.
        job.due = cx.now.saturating_add(MICROS / PACE_PER_SEC);
        job.progress.pages = job.progress.pages.saturating_add(1);
        job.progress.last = cx.now;
        let Some((bound, inclusive)) = self.earlier_bound(cx.history) else {
            self.span = Some(job);
            return;
        };
        let (cut, full) = earlier_cut(page, bound, inclusive);
        let window = bound.record_time.saturating_sub(job.sent_after);
        if full && cut.is_none() && job.step > EARLIER_MIN_STEP {
            // A gap between this page and the oldest loaded update: look back less far.
            job.step = job.step.min(window).max(2) / 2;
            self.span = Some(job);
            return;
        }
        let added = prepend_earlier(page, cut, full, cx);
        job.progress.updates += added;
        if let Some(first) = cx.history.first() {
            job.progress.reached = first.record_time();
        }
        job.step = next_step(added, window, job.step);
        let reached_start = job.sent_after <= job.progress.since.saturating_sub(1);
        let limit = span_limit(self.budget);
        let over = cx.history.memory_bytes() >= limit;
        if over {
            // The page (and the deque growing for it) went past the limit: the oldest of what
            // the span loaded leave again, so the history stays whole and within its budget.
            let mut dropped = 0;
            while cx.history.memory_bytes() > limit && cx.history.len() > 1 {
                let n = (cx.history.len() / 16).max(1).min(cx.history.len() - 1);
                dropped += cx.history.drop_oldest(n);
            }
            job.progress.updates = job.progress.updates.saturating_sub(dropped);
            if let Some(first) = cx.history.first() {
                job.progress.reached = first.record_time();
            }
            cx.out.change.merge(HistoryChange {
                dropped,
                ..HistoryChange::default()
            });
        }
        self.span = Some(job);
        if reached_start && !over {
            self.end_span(SpanEnd::Done, cx);
        } else if over {
            self.end_span(SpanEnd::Budget, cx);
        } else {
            cx.feed.span = Some(job.progress);
        }
    }
}
