//! The History pane's loader: migration discovery, the look-back seek, forward paging to the
//! head and polling it, and loading earlier updates, with a doubling back-off after failures.

use crate::api::scan::{UpdateItem, UpdatesAfter, UpdatesPage, UpdatesRequest};
use crate::model::summary::{format_time_micros, parse_time_micros};
use crate::msg::{Request, UpdatesPurpose};

use super::super::{Out, Shared};
use super::{EarlierJob, HistoryPane, Pos, Stage};

/// Items per `/v2/updates` request (the largest page real servers accept).
pub const PAGE_SIZE: i32 = 1000;
pub(super) const PAGE: usize = PAGE_SIZE as usize;
/// The "far future" record time used to probe whether a migration is the newest.
pub const DISCOVER_TIME: &str = "9999-12-31T23:59:59Z";
/// Look-back windows (seconds) tried in turn when the recent window is empty.
pub const SEEK_STEPS: [i64; 7] = [
    600,
    3_600,
    6 * 3_600,
    86_400,
    7 * 86_400,
    30 * 86_400,
    365 * 86_400,
];
pub(super) const MICROS: i64 = 1_000_000;
/// First look-back step when loading earlier updates (µs).
pub const EARLIER_FIRST_STEP: i64 = 3_600 * MICROS;
/// Largest doubling step when loading earlier updates (~1 year, µs); after it the whole
/// migration (from the epoch) is asked for.
pub const EARLIER_MAX_STEP: i64 = 365 * 86_400 * MICROS;
pub(super) const EARLIER_MIN_STEP: i64 = 1_000;
/// Loading earlier updates stops once this many arrived for one request of the user.
pub const EARLIER_ENOUGH: usize = 100;
/// Longest retry interval after failures (ms).
pub const MAX_BACKOFF_MS: u64 = 30_000;
pub(super) const MALFORMED_KEPT: usize = 64;
pub(super) const MAX_DISCOVER_STEPS: u32 = 10_000;

impl HistoryPane {
    // ---------------------------------------------------------------------------------------
    // Main-line loader
    // ---------------------------------------------------------------------------------------

    pub(super) fn refresh_ms(sh: &Shared) -> u64 {
        sh.ctx.refresh_ms.max(100)
    }

    pub(super) fn forward_request(&self) -> UpdatesRequest {
        match &self.cursor {
            None => UpdatesRequest::from_begin(PAGE_SIZE),
            Some(c) => {
                UpdatesRequest::after(PAGE_SIZE, c.after_migration_id, c.after_record_time.clone())
            }
        }
    }

    /// Whether a lazily loading list needs the next page now.
    pub(super) fn wants_more(&self, sh: &Shared) -> bool {
        if !self.lazy || self.following || self.more_requested {
            return true;
        }
        let len = sh.history.len();
        if len == 0 {
            return true;
        }
        if self.view.is_empty(&sh.history) {
            return false;
        }
        let index = self.view.index(self.scroll.cursor()).unwrap_or(0);
        len.saturating_sub(index) <= PAGE
    }

    /// Sends the next main-line request if one is due.
    pub(super) fn pump(&mut self, sh: &mut Shared, out: &mut Out) {
        if self.in_flight.is_some() || sh.now < self.due {
            return;
        }
        let (req, purpose) = match self.stage {
            Stage::Idle => return,
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
                let m = self.migration.unwrap_or(0);
                (
                    UpdatesRequest::after(PAGE_SIZE, m, format_time_micros(t.max(0))),
                    UpdatesPurpose::Seek { window },
                )
            }
            Stage::Forward => {
                if !self.at_head && !self.wants_more(sh) {
                    return;
                }
                (self.forward_request(), UpdatesPurpose::Forward)
            }
        };
        self.in_flight = Some(out.fetch(sh, Request::Updates { req, purpose }));
    }

    pub(super) fn on_failure(&mut self, message: String, sh: &Shared, out: &mut Out) -> i64 {
        out.error(message);
        self.failures = self.failures.saturating_add(1);
        let base = Self::refresh_ms(sh);
        self.backoff_ms = if self.backoff_ms == 0 {
            base
        } else {
            self.backoff_ms
                .saturating_mul(2)
                .min(MAX_BACKOFF_MS.max(base))
        };
        sh.now
            .saturating_add(i64::try_from(self.backoff_ms).unwrap_or(i64::MAX / 1000) * 1000)
    }

    pub(super) fn on_success(&mut self) {
        self.failures = 0;
        self.backoff_ms = 0;
    }

    pub(super) fn on_main_page(&mut self, page: &UpdatesPage, sh: &mut Shared, out: &mut Out) {
        self.on_success();
        let now = sh.now;
        match self.stage {
            Stage::Idle => {}
            Stage::Discover { migration } => {
                let next = page.transactions.first().map(|item| {
                    item_position(item)
                        .map(|(m, _)| m)
                        .filter(|&m| m > migration)
                        .unwrap_or(migration.saturating_add(1))
                });
                self.discover_steps += 1;
                match next {
                    Some(next) if self.discover_steps < MAX_DISCOVER_STEPS => {
                        self.stage = Stage::Discover { migration: next }
                    }
                    Some(next) => {
                        out.warn("migration discovery did not end; using the last one seen");
                        self.after_discovery(next);
                    }
                    None => self.after_discovery(migration),
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
                        self.cursor = Some(after_at(self.migration.unwrap_or(0), t.max(0)));
                        self.stage = Stage::Forward;
                        self.enter_head(now, sh);
                    }
                } else {
                    self.stage = Stage::Forward;
                    self.forward_page(page, sh, out);
                }
            }
            Stage::Forward => self.forward_page(page, sh, out),
        }
    }

    pub(super) fn enter_head(&mut self, now: i64, sh: &Shared) {
        self.at_head = true;
        let ms = i64::try_from(Self::refresh_ms(sh)).unwrap_or(i64::MAX / 1000);
        self.due = now.saturating_add(ms * 1000);
    }

    pub(super) fn forward_page(&mut self, page: &UpdatesPage, sh: &mut Shared, out: &mut Out) {
        self.more_requested = false;
        let before = self.cursor.clone();
        self.append(page, sh, out);
        if page.transactions.len() < PAGE {
            self.enter_head(sh.now, sh);
        } else if self.cursor == before {
            // A full page that did not move the cursor would be asked for for ever.
            out.warn("the update history did not advance; polling instead");
            self.enter_head(sh.now, sh);
        } else {
            // More is waiting: fetch again at once.
            self.due = sh.now;
        }
    }

    // ---------------------------------------------------------------------------------------
    // Earlier updates
    // ---------------------------------------------------------------------------------------

    /// The oldest known position: the first loaded update, or the forward cursor when nothing
    /// is loaded (then updates at the cursor itself count as earlier).
    pub(super) fn earlier_bound(&self, sh: &Shared) -> Option<(Pos, bool)> {
        if let Some(first) = sh.history.first() {
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

    pub(super) fn start_earlier(&mut self, sh: &mut Shared, out: &mut Out) {
        if self.earlier.is_some() {
            return;
        }
        if self.reached_begin {
            out.info("reached ledger begin");
            return;
        }
        let Some(((migration, _), _)) = self.earlier_bound(sh) else {
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
        self.scroll.set_viewport(self.list_viewport());
        self.pump_earlier(sh, out);
    }

    pub(super) fn pump_earlier(&mut self, sh: &mut Shared, out: &mut Out) {
        let Some(((_, anchor), _)) = self.earlier_bound(sh) else {
            return;
        };
        let Some(job) = &mut self.earlier else {
            return;
        };
        if job.id.is_some() || sh.now < job.due {
            return;
        }
        let after = anchor.saturating_sub(job.step).max(0);
        job.sent_after = after;
        let req = UpdatesRequest::after(PAGE_SIZE, job.migration, format_time_micros(after));
        let id = out.fetch(
            sh,
            Request::Updates {
                req,
                purpose: UpdatesPurpose::Earlier,
            },
        );
        if let Some(job) = &mut self.earlier {
            job.id = Some(id);
        }
    }

    pub(super) fn on_earlier_page(&mut self, page: &UpdatesPage, sh: &mut Shared, out: &mut Out) {
        self.on_success();
        let Some((bound, inclusive)) = self.earlier_bound(sh) else {
            self.finish_earlier();
            return;
        };
        let Some(mut job) = self.earlier else {
            return;
        };
        job.id = None;
        let before = |p: Pos| if inclusive { p <= bound } else { p < bound };
        // Items come in ledger order: the earlier ones are a prefix of the page.
        let cut = page
            .transactions
            .iter()
            .position(|i| item_position(i).is_some_and(|p| !before(p)));
        let reached = cut.is_some();
        let full = page.transactions.len() >= PAGE;
        if full && !reached && job.step > EARLIER_MIN_STEP {
            // A gap between this page and the oldest loaded update: look back less far.
            job.step /= 2;
            job.due = sh.now;
            self.earlier = Some(job);
            return;
        }
        if full && !reached {
            out.warn("more than 1,000 updates within a millisecond: some were skipped");
        }
        let slice = &page.transactions[..cut.unwrap_or(page.transactions.len())];
        let items = self.positioned(slice, out);
        let added = self.prepend(&items, sh);
        job.gathered += added;
        job.due = sh.now;
        if job.gathered >= EARLIER_ENOUGH {
            self.finish_earlier();
            return;
        }
        if job.sent_after > 0 {
            let anchor = self.earlier_bound(sh).map_or(0, |((_, t), _)| t);
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
            self.finish_earlier();
            self.reached_begin = true;
            out.info("reached ledger begin");
        }
    }

    pub(super) fn finish_earlier(&mut self) {
        self.earlier = None;
        self.scroll.set_viewport(self.list_viewport());
    }
}

/// `after` at `(migration, micros)`.
pub(super) fn after_at(migration: i64, micros: i64) -> UpdatesAfter {
    UpdatesAfter {
        after_migration_id: migration,
        after_record_time: format_time_micros(micros),
    }
}

pub(super) fn cursor_position(c: &UpdatesAfter) -> Option<Pos> {
    parse_time_micros(&c.after_record_time).map(|t| (c.after_migration_id, t))
}

/// `(migration id, record time)` of an item; for malformed items read from their raw JSON.
pub(super) fn item_position(item: &UpdateItem) -> Option<Pos> {
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
