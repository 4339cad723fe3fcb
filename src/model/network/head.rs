//! The search for the newest update of one scan's history ([`HeadSearch`], driven by page
//! results).

use super::MICROS;
use super::health::HistoryHead;
use crate::model::format::{format_time_micros, parse_time_micros};

/// The record time used to probe whether a migration is the newest: a page after
/// (k, this time) holds only items of later migrations.
pub const FAR_FUTURE: &str = "9999-12-31T23:59:59Z";
/// The migration in force at `time`: of the `(migration, first record time)` starts, in
/// migration order, the one whose first update is the newest at or before `time`; the first
/// migration when `time` is before all of them, 0 when none is known.
pub fn migration_at(starts: &[(i64, i64)], time: i64) -> i64 {
    starts
        .iter()
        .rev()
        .find(|(_, first)| *first <= time)
        .or(starts.first())
        .map_or(0, |(m, _)| *m)
}

/// Look-back windows tried in turn (seconds); after the last, the whole migration. The history
/// loader's seek steps are the same windows from ten minutes on (`feed::loader::SEEK_STEPS`).
pub const HEAD_WINDOWS: [i64; 9] = [
    30,
    120,
    600,
    3_600,
    6 * 3_600,
    86_400,
    7 * 86_400,
    30 * 86_400,
    365 * 86_400,
];
/// Page size of the search probes.
pub const HEAD_PROBE: usize = 100;
/// Page size when paging forward at the end of the search.
pub const HEAD_PAGE: usize = 1000;
const MAX_HEAD_STEPS: u32 = 200;

/// One item of a page, as the head search needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadItem {
    pub migration_id: i64,
    /// µs since the epoch.
    pub record_time: i64,
    /// The record time as the server wrote it (cursors are sent back verbatim).
    pub record_time_text: String,
    pub update_id: String,
}

/// The next request of a head search: a page of `page_size` after (`migration_id`,
/// `record_time`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadProbe {
    pub migration_id: i64,
    pub record_time: String,
    pub page_size: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum HeadStage {
    /// Is `migration` the newest? (page of 1 after (migration, far future))
    Discover {
        migration: i64,
    },
    /// Anything in the last `HEAD_WINDOWS[window]` seconds (or the whole migration)?
    Window {
        migration: i64,
        window: usize,
    },
    /// The head is after `lo` (the last item seen) and at or before `hi` (µs).
    Bisect {
        migration: i64,
        lo: HeadItem,
        hi: i64,
        probe: i64,
    },
    /// Paging forward after `last` until a short page.
    Forward {
        migration: i64,
        last: HeadItem,
    },
    Done(Result<Option<HistoryHead>, String>),
}

/// The search for a scan's newest update. The history has no "newest" endpoint: first find the
/// newest migration (a page after (k, far future) is empty only when k is the newest), then
/// look back in growing windows, then bisect on record time with small pages until a page is
/// short: its last item is the head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadSearch {
    now: i64,
    hint: Option<i64>,
    stage: HeadStage,
    steps: u32,
}

impl HeadSearch {
    /// A search at `now` (µs); `hint` is a migration id to try first (e.g. another scan's).
    pub fn new(now: i64, hint: Option<i64>) -> HeadSearch {
        HeadSearch {
            now,
            hint,
            stage: HeadStage::Discover {
                migration: hint.unwrap_or(0).max(0),
            },
            steps: 0,
        }
    }

    /// A search that continues from a head found before: it pages forward after it, which is
    /// one request when fewer than a page of updates came since (a later migration is found by
    /// the next full search).
    pub fn after(now: i64, head: &HistoryHead) -> HeadSearch {
        HeadSearch {
            now,
            hint: Some(head.migration_id),
            stage: HeadStage::Forward {
                migration: head.migration_id,
                last: HeadItem {
                    migration_id: head.migration_id,
                    record_time: head.record_time,
                    record_time_text: format_time_micros(head.record_time),
                    update_id: head.update_id.clone(),
                },
            },
            steps: 0,
        }
    }

    /// The request to send next, or `None` when the search is over.
    pub fn probe(&self) -> Option<HeadProbe> {
        let (migration_id, at, page_size) = match &self.stage {
            HeadStage::Discover { migration } => {
                return Some(HeadProbe {
                    migration_id: *migration,
                    record_time: FAR_FUTURE.to_owned(),
                    page_size: 1,
                });
            }
            HeadStage::Window { migration, window } => {
                let at = HEAD_WINDOWS
                    .get(*window)
                    .map_or(0, |w| self.now - w * MICROS);
                (*migration, at, HEAD_PROBE)
            }
            HeadStage::Bisect {
                migration, probe, ..
            } => (*migration, *probe, HEAD_PROBE),
            HeadStage::Forward { migration, last } => {
                return Some(HeadProbe {
                    migration_id: *migration,
                    record_time: last.record_time_text.clone(),
                    page_size: HEAD_PAGE,
                });
            }
            HeadStage::Done(_) => return None,
        };
        Some(HeadProbe {
            migration_id,
            record_time: format_time_micros(at.max(0)),
            page_size,
        })
    }

    /// The result, once the search is over.
    pub fn result(&self) -> Option<&Result<Option<HistoryHead>, String>> {
        match &self.stage {
            HeadStage::Done(result) => Some(result),
            _ => None,
        }
    }

    /// The probe failed: the search ends with this error.
    pub fn on_error(&mut self, error: String) {
        self.stage = HeadStage::Done(Err(error));
    }

    /// The page answering the last [`HeadSearch::probe`].
    pub fn on_page(&mut self, items: &[HeadItem]) {
        self.steps += 1;
        if self.steps > MAX_HEAD_STEPS {
            self.stage =
                HeadStage::Done(Err("the search for the newest update did not end".into()));
            return;
        }
        let Some(probe) = self.probe() else { return };
        let full = items.len() >= probe.page_size;
        let last = items.last().cloned();
        let done = |item: HeadItem| {
            HeadStage::Done(Ok(Some(HistoryHead {
                migration_id: item.migration_id,
                record_time: item.record_time,
                update_id: item.update_id,
            })))
        };
        self.stage = match std::mem::replace(&mut self.stage, HeadStage::Done(Ok(None))) {
            HeadStage::Discover { migration } => match last {
                Some(item) if item.migration_id > migration => HeadStage::Discover {
                    migration: item.migration_id,
                },
                Some(_) => HeadStage::Done(Err(
                    "the scan ignored the cursor of /v2/updates (an item of an earlier migration)"
                        .into(),
                )),
                None => HeadStage::Window {
                    migration,
                    window: 0,
                },
            },
            HeadStage::Window { migration, window } => match last {
                Some(item) if !full => done(item),
                Some(item) => {
                    let hi = match window.checked_sub(1) {
                        Some(previous) => self.now - HEAD_WINDOWS[previous] * MICROS,
                        // Nothing was known empty yet: allow for clocks ahead of ours.
                        None => self.now + 3_600 * MICROS,
                    };
                    bisect(migration, item, hi)
                }
                None if window < HEAD_WINDOWS.len() => HeadStage::Window {
                    migration,
                    window: window + 1,
                },
                None => match self.hint.take() {
                    // The hinted migration is empty here: discover from the start.
                    Some(h) if h > 0 => HeadStage::Discover { migration: 0 },
                    _ => HeadStage::Done(Ok(None)),
                },
            },
            HeadStage::Bisect {
                migration,
                lo,
                hi,
                probe,
            } => match last {
                Some(item) if !full => done(item),
                Some(item) => bisect(migration, item, hi),
                None => bisect(migration, lo, probe),
            },
            HeadStage::Forward {
                migration,
                last: previous,
            } => match last {
                Some(item) if full => HeadStage::Forward {
                    migration,
                    last: item,
                },
                Some(item) => done(item),
                None => done(previous),
            },
            HeadStage::Done(result) => HeadStage::Done(result),
        };
    }
}

/// The next bisection step: probe halfway between `lo` and `hi`, or page forward from `lo` when
/// the interval is closed.
fn bisect(migration: i64, lo: HeadItem, hi: i64) -> HeadStage {
    if hi - lo.record_time <= 1 {
        return HeadStage::Forward {
            migration,
            last: lo,
        };
    }
    let probe = lo.record_time + (hi - lo.record_time) / 2;
    HeadStage::Bisect {
        migration,
        lo,
        hi,
        probe,
    }
}

/// Parses a record time as servers write it (µs since the epoch).
pub fn record_time_micros(text: &str) -> Option<i64> {
    parse_time_micros(text)
}
