//! The loader's main line: discover the newest migration, seek recent activity, page forward,
//! then poll at the head; a failure backs off. Items are screened (malformed, out of order, in
//! the far future) before they reach the history.

use super::UpdatesPurpose;
use super::{
    At, Ctx, DISCOVER_TIME, Demand, HistoryChange, IDS_NAMED, Loader, MALFORMED_KEPT,
    MAX_BACKOFF_MS, MAX_DISCOVER_STEPS, MAX_FUTURE, MAX_MIGRATION_JUMP, MICROS, Note, PAGE,
    PAGE_SIZE, PageMark, SAME_PAGE_TWICE, SEEK_STEPS, SpanEnd, Stage, StartFrom, after_at,
    cursor_position, item_position,
};
use crate::api::scan::{UpdateItem, UpdatesPage, UpdatesRequest};
use crate::model::format::format_time_micros;
use crate::model::history::Placement;
use crate::model::reread::{Kept, newest_reread};
use crate::model::summary::UpdateSummary;

impl Loader {
    // -----------------------------------------------------------------------------------------
    // Starting
    // -----------------------------------------------------------------------------------------

    pub(super) fn restart(&mut self, origin: StartFrom, cx: &mut Ctx) {
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
        self.verify = false;
        self.checkpoint = None;
        self.head_polls = 0;
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
        self.found_starts.clear();
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
                // Now reads the newest migration; a time, the migration in force then (known
                // once discovery ran: before that, discovery runs first).
                let (t, lazy, migration) = match origin {
                    StartFrom::Time(t) => (t, true, cx.feed.migration_at(t)),
                    _ => (cx.now, false, cx.feed.migration),
                };
                self.lazy = lazy;
                self.start_time = t;
                self.stage = match migration {
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
        cx.feed.migration_starts = Some(std::mem::take(&mut self.found_starts));
        match self.origin {
            StartFrom::Recent { .. } => self.stage = Stage::Seek { window: 0 },
            StartFrom::Now => {
                self.cursor = Some(after_at(m, self.start_time));
                self.stage = Stage::Forward;
            }
            StartFrom::Time(t) => {
                let at = cx.feed.migration_at(t).unwrap_or(m);
                self.cursor = Some(after_at(at, t));
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

    pub(super) fn pump_main(&mut self, demand: Demand, cx: &mut Ctx) {
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
            Stage::Forward => match cx.history.last() {
                Some(newest) if self.verify => (
                    UpdatesRequest::after(
                        1,
                        newest.migration_id(),
                        format_time_micros(newest.record_time().saturating_sub(1)),
                    ),
                    UpdatesPurpose::Verify,
                ),
                // At the head, every few polls start from just before the update that was the
                // newest at the last check: its answer says whether the history under the
                // explorer still stands (what was appended since included).
                Some(newest)
                    if cx.feed.at_head
                        && self.cursor_at(newest)
                        && self.head_polls >= self.head_check_every =>
                {
                    let At {
                        migration_id: m,
                        record_time: t,
                    } = self.checkpoint.as_ref().map_or(newest.at(), |c| c.1);
                    (
                        UpdatesRequest::after(
                            PAGE_SIZE,
                            m,
                            format_time_micros(t.saturating_sub(1)),
                        ),
                        UpdatesPurpose::HeadCheck,
                    )
                }
                _ => {
                    if !cx.feed.at_head && !self.wants_more(demand) {
                        return;
                    }
                    if cx.feed.at_head {
                        self.head_polls = self.head_polls.saturating_add(1);
                    }
                    (self.forward_request(), UpdatesPurpose::Forward)
                }
            },
        };
        self.pace.spend(cx.now);
        self.in_flight = Some(self.send(req, purpose, cx));
    }

    pub(super) fn on_failure(&mut self, message: String, cx: &mut Ctx) -> i64 {
        cx.note(Note::Error, message);
        self.verify = true;
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

    pub(super) fn on_success(&mut self, cx: &mut Ctx) {
        cx.feed.failures = 0;
        self.backoff_ms = 0;
    }

    pub(super) fn on_main_page(&mut self, page: &UpdatesPage, req: &UpdatesRequest, cx: &mut Ctx) {
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
                        .map(|p| p.migration_id)
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
                // The first update of a later migration: where that migration starts.
                if let (Some(n), Some(first)) =
                    (next, page.transactions.first().and_then(item_position))
                    && first.migration_id == n
                {
                    self.found_starts.push((n, first.record_time));
                }
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

    /// Whether the forward cursor stands at `newest` (the newest loaded update): the head poll
    /// may then start from just before it.
    fn cursor_at(&self, newest: &crate::model::summary::UpdateSummary) -> bool {
        self.cursor
            .as_ref()
            .and_then(cursor_position)
            .is_some_and(|pos| pos == newest.at())
    }

    /// The newest loaded update read again ([`UpdatesPurpose::Verify`]): when it is gone or
    /// another update stands at its position, the history under the explorer changed (a scan
    /// restarted with another ledger): say so and load it afresh.
    pub(super) fn on_verify_page(&mut self, page: &UpdatesPage, cx: &mut Ctx) {
        self.on_success(cx);
        self.verify = false;
        self.due = cx.now;
        let Some(newest) = cx
            .history
            .last()
            .map(|s| (s.update_id().to_string(), s.at()))
        else {
            return;
        };
        self.history_stands(page, (&newest.0, newest.1), cx);
    }

    /// A poll of the head from just before the newest loaded update
    /// ([`UpdatesPurpose::HeadCheck`]): when the history still stands, what follows the newest
    /// loaded update is appended as a forward page would be.
    pub(super) fn on_head_check(&mut self, page: &UpdatesPage, cx: &mut Ctx) {
        self.on_success(cx);
        self.head_polls = 0;
        let Some(newest) = cx.history.last().map(UpdateSummary::at) else {
            return;
        };
        let checked = self.checkpoint.take().unwrap_or_else(|| {
            let s = cx.history.last().map(|s| s.update_id().to_string());
            (s.unwrap_or_default(), newest)
        });
        if !self.history_stands(page, (&checked.0, checked.1), cx) {
            return;
        }
        let rest = UpdatesPage {
            transactions: page
                .transactions
                .iter()
                .skip_while(|i| item_position(i).is_some_and(|p| p <= newest))
                .cloned()
                .collect(),
        };
        // Never compared with the next forward page: head polls answer the same page often.
        self.last_page = None;
        self.forward_page(&rest, Some(newest), cx);
        self.checkpoint = cx
            .history
            .last()
            .map(|s| (s.update_id().to_string(), s.at()));
        if page.transactions.len() >= PAGE && !self.cursor_at_pos(newest) {
            // A full page (the updates checked, then new ones): more is waiting.
            self.due = cx.now;
        }
    }

    fn cursor_at_pos(&self, pos: At) -> bool {
        self.cursor.as_ref().and_then(cursor_position) == Some(pos)
    }

    /// Whether the newest loaded update still stands at its position in `page` (read from just
    /// before it); when it is gone or another update stands there, the history under the
    /// explorer changed (a scan restarted with another ledger, its end gone back): say so and
    /// load it afresh.
    fn history_stands(&mut self, page: &UpdatesPage, newest: (&str, At), cx: &mut Ctx) -> bool {
        let newest = (newest.0.to_owned(), newest.1);
        let first = page
            .transactions
            .first()
            .and_then(|i| Some((i.update_id()?, item_position(i)?)));
        let history = &*cx.history;
        let kept = |id: &str, pos: At| match history.find_update(id).and_then(|i| history.get(i)) {
            None => Kept::Absent,
            Some(s) if s.at() == pos => Kept::Same,
            Some(s) => Kept::Other(format!(
                "was loaded at migration {}, {}",
                s.migration_id(),
                format_time_micros(s.record_time())
            )),
        };
        if let Err(rewrite) = newest_reread((&newest.0, newest.1), first, kept) {
            cx.note(
                Note::Error,
                format!(
                    "the history changed under the explorer: {rewrite}; History reloads the new history"
                ),
            );
            cx.feed.migration = None;
            cx.feed.migration_starts = None;
            self.restart(self.origin, cx);
            return false;
        }
        true
    }

    fn enter_head(&mut self, cx: &mut Ctx) {
        cx.feed.at_head = true;
        if self.checkpoint.is_none() {
            // What the first check at the head reads again.
            self.checkpoint = cx
                .history
                .last()
                .map(|s| (s.update_id().to_string(), s.at()));
        }
        let ms = i64::try_from(self.refresh_ms).unwrap_or(i64::MAX / 1000);
        self.due = cx.now.saturating_add(ms * 1000);
    }

    fn forward_page(&mut self, page: &UpdatesPage, after: Option<At>, cx: &mut Ctx) {
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
    fn append(&mut self, page: &UpdatesPage, after: Option<At>, cx: &mut Ctx) {
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
            let m = last.migration_id();
            cx.feed.migration = Some(cx.feed.migration.map_or(m, |k| k.max(m)));
        }
        self.advance_cursor(page, cx);
        self.enforce_budget(cx);
    }

    fn screened<'a>(
        &self,
        items: std::borrow::Cow<'a, [UpdateItem]>,
        after: Option<At>,
        cx: &mut Ctx,
    ) -> std::borrow::Cow<'a, [UpdateItem]> {
        let newest_loaded = cx.history.last().map(UpdateSummary::at);
        let mut floor = after.max(newest_loaded);
        let max_time = cx.now.saturating_add(MAX_FUTURE);
        let max_migration = cx
            .feed
            .migration
            .unwrap_or(0)
            .max(after.map_or(0, |p| p.migration_id))
            .saturating_add(MAX_MIGRATION_JUMP);
        let mut keep = Vec::with_capacity(items.len());
        let mut skipped = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let Some(pos) = item_position(item) else {
                continue;
            };
            let ok = floor.is_none_or(|f| pos > f)
                && pos.record_time <= max_time
                && pos.migration_id <= max_migration;
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
        let last_pos = last.at();
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
        self.cursor = Some(after_at(last.migration_id(), last.record_time()));
    }
}

/// Items with a readable position (malformed items without one cannot be placed); records
/// the decode errors of malformed items in the feed.
pub(super) fn positioned<'a>(
    items: &'a [UpdateItem],
    cx: &mut Ctx,
) -> std::borrow::Cow<'a, [UpdateItem]> {
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

/// How an item is named in messages: its id (shortened, as the server sent it) and position.
fn ids_of(item: &UpdateItem) -> String {
    let id: String = item.update_id().unwrap_or("?").chars().take(24).collect();
    match item_position(item) {
        Some(p) => format!(
            "{id} (migration {}, {})",
            p.migration_id,
            format_time_micros(p.record_time)
        ),
        None => id,
    }
}
