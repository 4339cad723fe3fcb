//! The "earlier" job: with the user at the top of the history, look back before the oldest
//! loaded update (1 h, doubling; halving across a gap; then the previous migration).

use super::UpdatesPurpose;
use super::main_line::positioned;
use super::{
    At, Ctx, EARLIER_ENOUGH, EARLIER_FIRST_STEP, EARLIER_MAX_STEP, EARLIER_MIN_STEP, EarlierJob,
    HistoryChange, Loader, Note, PAGE, PAGE_SIZE, Stage, cursor_position, item_position,
};
use crate::api::scan::{UpdatesPage, UpdatesRequest};
use crate::model::format::format_time_micros;
use crate::model::history::{History, Placement};
use crate::msg::RequestId;

impl Loader {
    // -----------------------------------------------------------------------------------------
    // Earlier updates
    // -----------------------------------------------------------------------------------------

    /// The oldest known position: the first loaded update, or the forward cursor when nothing
    /// is loaded (then updates at the cursor itself count as earlier).
    pub(super) fn earlier_bound(&self, history: &History) -> Option<(At, bool)> {
        if let Some(first) = history.first() {
            return Some((first.at(), false));
        }
        if self.stage != Stage::Forward {
            return None;
        }
        self.cursor
            .as_ref()
            .and_then(cursor_position)
            .map(|p| (p, true))
    }

    pub(super) fn start_earlier(&mut self, cx: &mut Ctx) {
        if self.earlier.is_some() || self.span.is_some() {
            return;
        }
        if cx.feed.reached_begin {
            cx.note(Note::Info, "reached ledger begin");
            return;
        }
        let Some((bound, _)) = self.earlier_bound(cx.history) else {
            return;
        };
        self.earlier = Some(EarlierJob {
            migration: bound.migration_id,
            step: EARLIER_FIRST_STEP,
            gathered: 0,
            id: None,
            sent_after: 0,
            due: i64::MIN,
        });
        self.publish(cx);
    }

    pub(super) fn pump_earlier(&mut self, cx: &mut Ctx) {
        let Some((
            At {
                record_time: anchor,
                ..
            },
            _,
        )) = self.earlier_bound(cx.history)
        else {
            return;
        };
        let Some(job) = &mut self.earlier else {
            return;
        };
        if job.id.is_some() || cx.now < job.due || !self.pace.ready(cx.now) {
            return;
        }
        let after = anchor.saturating_sub(job.step).max(0);
        job.sent_after = after;
        let migration = job.migration;
        let id = self.send_look_back(migration, after, cx);
        if let Some(job) = &mut self.earlier {
            job.id = Some(id);
        }
    }

    /// Sends a look-back request (of the earlier job or the span load): a page of `migration`
    /// after `after` (µs).
    pub(super) fn send_look_back(&mut self, migration: i64, after: i64, cx: &mut Ctx) -> RequestId {
        self.pace.spend(cx.now);
        let req = UpdatesRequest::after(PAGE_SIZE, migration, format_time_micros(after));
        self.send(req, UpdatesPurpose::Earlier, cx)
    }

    pub(super) fn on_earlier_page(&mut self, page: &UpdatesPage, cx: &mut Ctx) {
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
            let anchor = self
                .earlier_bound(cx.history)
                .map_or(0, |(b, _)| b.record_time);
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
pub(super) fn earlier_cut(page: &UpdatesPage, bound: At, inclusive: bool) -> (Option<usize>, bool) {
    let before = |p: At| if inclusive { p <= bound } else { p < bound };
    let cut = page
        .transactions
        .iter()
        .position(|i| item_position(i).is_some_and(|p| !before(p)));
    (cut, page.transactions.len() >= PAGE)
}

/// Puts the items of `page` before `cut` (all of them when `None`) in front of the history and
/// returns how many were added. A full page that never reaches the history means some updates
/// of its last millisecond could not be asked for: the user is told.
pub(super) fn prepend_earlier(
    page: &UpdatesPage,
    cut: Option<usize>,
    full: bool,
    cx: &mut Ctx,
) -> usize {
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
