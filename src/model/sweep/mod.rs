//! The history sweep, pure: compare a range of `/v2/updates` across every scan, page by page
//! (the same `after` cursor to each), until the quorum reaches the head, the page limit or the
//! difference limit. The runtime sends the requests and feeds the answers to [`Sweep::on_page`];
//! [`report::SweepReport`] is what it found, as the explorer saves it and `network sweep` prints
//! it.
//!
//! Each page is reduced to one canonical hash per item ([`super::consensus::digest`]); items are
//! compared position by position, so a lagging scan's shorter page at the head is not a
//! difference. A position is compared when at least a quorum of counted scans have an item
//! there: it is attested when they all agree, and a differing update when they do not. A
//! differing update is recorded (its id, record time, the scans on each side) and the sweep goes
//! on; consecutive differing updates with the same sides make one [`DiffRange`] (an agreeing
//! reassignment between them does not end it, an agreeing transaction does). The next page
//! starts after the last compared item. Scans that fail a page (an error, a timeout, still
//! backfilling) are left out of it. Pages are numbered from 1: after page N, [`Sweep::counts`]
//! says N pages.

mod compare;
mod item;
pub mod report;

use std::time::Duration;

use super::consensus::digest::PageDigest;
use super::consensus::{Difference, quorum};
use super::format::parse_time_micros;
use compare::{Grouped, describe, group_by_hash, item_of};

pub use item::{ItemInfo, item_info};
pub use report::{SWEEP_SCHEMA, SweepReport};

/// The differing updates a sweep records before it stops (`--max-differences`).
pub const DEFAULT_MAX_DIFFERENCES: u64 = 1000;

/// Where a page starts: after this migration id and record time (the record time exactly as the
/// server wrote it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    pub migration_id: i64,
    pub record_time: String,
}

/// What to sweep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepPlan {
    /// Start after this cursor; `None`: from the beginning of the history.
    pub from: Option<Cursor>,
    /// Items per page (servers accept 1..=1000).
    pub page_size: usize,
    /// Stop after this many pages.
    pub max_pages: Option<u64>,
    /// Stop once this many differing updates are recorded (at least 1).
    pub max_differences: u64,
}

impl SweepPlan {
    /// A plan from `from`, `page_size` items a page, no page limit and
    /// [`DEFAULT_MAX_DIFFERENCES`].
    pub fn new(from: Option<Cursor>, page_size: usize) -> SweepPlan {
        SweepPlan {
            from,
            page_size,
            max_pages: None,
            max_differences: DEFAULT_MAX_DIFFERENCES,
        }
    }
}

/// One scan's answer to one page.
#[derive(Debug, Clone)]
pub enum PageAnswer {
    /// A 2xx page: the item hashes and the body they index.
    Page { digest: PageDigest, body: Vec<u8> },
    /// No page: an error answer, a body that is not a page, a transport failure or a timeout.
    Failed {
        status: Option<u16>,
        message: String,
    },
}

/// Every scan's answer to one page, as the runtime hands it to the explorer.
#[derive(Debug, Clone)]
pub struct SweepPageReply {
    /// Whether each scan counts in `n` (the sweep stops if the scans changed under it).
    pub counted: Vec<bool>,
    /// Per scan, in scan order.
    pub answers: Vec<PageAnswer>,
}

/// One side of a differing update: the scans whose item at that position hashes the same.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemGroup {
    /// The scans (indexes, ascending). For a range's reference side: every scan that was on it
    /// at some update of the range.
    pub members: Vec<usize>,
    /// Counted members reach a quorum.
    pub is_quorum: bool,
    /// The update id and record time of this side's item (at the range's first update).
    pub update_id: Option<String>,
    pub record_time: Option<String>,
    /// Where this side's item differs from the reference side's, at the range's first update
    /// (empty for the reference).
    pub differences: Vec<Difference>,
    pub truncated: bool,
}

/// One differing update's place in the history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffPoint {
    /// As the reference side has it (empty when its item has none).
    pub update_id: String,
    pub record_time: String,
    pub migration_id: i64,
    /// The page it was in (1 = the first page of the sweep).
    pub page: u64,
}

/// Consecutive differing updates with the same sides: no agreeing transaction between them (an
/// agreeing reassignment does not split a range).
#[derive(Debug, Clone, PartialEq)]
pub struct DiffRange {
    pub first: DiffPoint,
    pub last: DiffPoint,
    /// Differing updates in the range.
    pub count: u64,
    /// The reference side first (the quorum's, else the largest), then the others, as at the
    /// first update of the range.
    pub sides: Vec<ItemGroup>,
}

impl DiffRange {
    /// The first JSON path where a non-reference side differs at the range's first update.
    pub fn example_path(&self) -> Option<&str> {
        self.sides
            .iter()
            .skip(1)
            .find_map(|s| s.differences.first())
            .map(|d| d.path.as_str())
    }

    /// Whether the range's sides are these (the reference side's membership aside: a scan of
    /// it that sits a page out does not split a range).
    fn same_sides(&self, grouped: &[Grouped]) -> bool {
        self.sides.len() == grouped.len()
            && self
                .sides
                .iter()
                .zip(grouped)
                .skip(1)
                .all(|(side, g)| side.members == g.members)
    }
}

/// Why the sweep ended.
#[derive(Debug, Clone, PartialEq)]
pub enum SweepEnd {
    /// A quorum of scans has nothing more: the head of the history.
    ReachedHead,
    /// The page limit was reached.
    PageLimit,
    /// `max_differences` differing updates were recorded: there may be more.
    DifferenceLimit,
    /// Fewer than a quorum of scans answered a page.
    NoQuorum {
        /// The page (1 = the first of the sweep).
        page: u64,
        answered: usize,
        /// Why each failing scan failed.
        failures: Vec<(usize, String)>,
    },
    /// Stopped on request.
    Cancelled,
}

/// How far the sweep got.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepProgress {
    /// Pages compared (the last one is page `pages`).
    pub pages: u64,
    /// Updates compared (attested and differing).
    pub updates: u64,
    /// Differing updates recorded, and the ranges they make.
    pub differing_updates: u64,
    pub ranges: usize,
    pub elapsed: Duration,
    pub updates_per_s: f64,
    pub pages_per_s: f64,
    /// Record time of the last compared update.
    pub record_time: Option<String>,
    /// Estimated time left: from the page limit, else from how fast record time advances
    /// towards `now`.
    pub eta: Option<Duration>,
}

/// A scan that was on a minority side of a range (a side that is not a quorum, against a
/// reference side that is): its history differs from the network's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MinorityScan {
    /// The scan (index in scan order).
    pub scan: usize,
    /// The first differing update of the first such range.
    pub first_update_id: String,
    /// Where its item differed there (a JSON path), when known.
    pub example_path: Option<String>,
}

/// The scans on a minority side of any range (see [`MinorityScan`]), by scan index, each
/// with its first range.
pub fn minority_scans(ranges: &[DiffRange]) -> Vec<MinorityScan> {
    let mut out: Vec<MinorityScan> = Vec::new();
    for range in ranges {
        if !range.sides.first().is_some_and(|s| s.is_quorum) {
            continue;
        }
        for side in range.sides.iter().skip(1).filter(|s| !s.is_quorum) {
            for &scan in &side.members {
                if out.iter().all(|m| m.scan != scan) {
                    out.push(MinorityScan {
                        scan,
                        first_update_id: range.first.update_id.clone(),
                        example_path: side.differences.first().map(|d| d.path.clone()),
                    });
                }
            }
        }
    }
    out.sort_by_key(|m| m.scan);
    out
}

/// The sweep's state.
#[derive(Debug, Clone)]
pub struct Sweep {
    plan: SweepPlan,
    counted: Vec<bool>,
    quorum: usize,
    cursor: Option<Cursor>,
    pages: u64,
    updates: u64,
    first_time: Option<i64>,
    last_time: Option<i64>,
    failed_pages: Vec<u64>,
    ranges: Vec<DiffRange>,
    differing: u64,
    /// The last range goes on at the next differing update with its sides.
    open: bool,
    end: Option<SweepEnd>,
}

impl Sweep {
    /// A sweep over scans of which `counted[i]` count in `n`.
    pub fn new(plan: SweepPlan, counted: Vec<bool>) -> Sweep {
        let n = counted.iter().filter(|c| **c).count();
        let scans = counted.len();
        Sweep {
            cursor: plan.from.clone(),
            plan,
            counted,
            quorum: quorum(n),
            pages: 0,
            updates: 0,
            first_time: None,
            last_time: None,
            failed_pages: vec![0; scans],
            ranges: Vec::new(),
            differing: 0,
            open: false,
            end: None,
        }
    }

    /// The cursor of the next page (`None`: from the beginning), or nothing once ended.
    pub fn next_page(&self) -> Option<Option<&Cursor>> {
        if self.end.is_some() {
            return None;
        }
        Some(self.cursor.as_ref())
    }

    /// What it sweeps.
    pub fn plan(&self) -> &SweepPlan {
        &self.plan
    }

    /// Items per page.
    pub fn page_size(&self) -> usize {
        self.plan.page_size
    }

    /// Why it ended, once it has.
    pub fn end(&self) -> Option<&SweepEnd> {
        self.end.as_ref()
    }

    /// Pages compared (the last one compared is page N) and updates compared so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.pages, self.updates)
    }

    /// Differing updates recorded so far (the sum of the ranges' counts).
    pub fn differing_updates(&self) -> u64 {
        self.differing
    }

    /// The ranges of consecutive differing updates, in history order.
    pub fn ranges(&self) -> &[DiffRange] {
        &self.ranges
    }

    /// Whether it stopped at `max_differences`: there may be more.
    pub fn truncated(&self) -> bool {
        matches!(self.end, Some(SweepEnd::DifferenceLimit))
    }

    /// Whether each scan counts in `n`, and the quorum.
    pub fn counted(&self) -> (&[bool], usize) {
        (&self.counted, self.quorum)
    }

    /// The scans whose history differs from a quorum's (see [`minority_scans`]).
    pub fn minority_scans(&self) -> Vec<MinorityScan> {
        minority_scans(&self.ranges)
    }

    /// Pages each scan failed to answer.
    pub fn failed_pages(&self) -> &[u64] {
        &self.failed_pages
    }

    /// The cursor after the last compared update.
    pub fn cursor(&self) -> Option<&Cursor> {
        self.cursor.as_ref()
    }

    /// Stops the sweep.
    pub fn cancel(&mut self) {
        if self.end.is_none() {
            self.end = Some(SweepEnd::Cancelled);
        }
    }

    /// The answers of every scan (index = scan) to the page after [`Sweep::next_page`].
    pub fn on_page(&mut self, answers: &[PageAnswer]) {
        if self.end.is_some() {
            return;
        }
        let page = self.pages + 1;
        let mut failures = Vec::new();
        for (scan, answer) in answers.iter().enumerate() {
            if let PageAnswer::Failed { message, .. } = answer {
                failures.push((scan, message.clone()));
                if let Some(count) = self.failed_pages.get_mut(scan) {
                    *count += 1;
                }
            }
        }
        let is_counted = |i: usize| self.counted.get(i).copied().unwrap_or(false);
        let hashes: Vec<Option<Vec<u64>>> = answers
            .iter()
            .map(|a| match a {
                PageAnswer::Page { digest, .. } => Some(digest.hashes().collect()),
                PageAnswer::Failed { .. } => None,
            })
            .collect();
        let answered = (0..answers.len())
            .filter(|i| is_counted(*i) && hashes[*i].is_some())
            .count();
        if answered < self.quorum {
            self.end = Some(SweepEnd::NoQuorum {
                page,
                answered,
                failures,
            });
            return;
        }
        let max_differences = self.plan.max_differences.max(1);
        let mut compared = 0;
        // The last compared position: a scan of its reference side, the index.
        let mut last: Option<usize> = None;
        let mut limit = false;
        loop {
            let i = compared;
            let at: Vec<(usize, u64)> = hashes
                .iter()
                .enumerate()
                .filter_map(|(scan, h)| h.as_ref().and_then(|h| h.get(i)).map(|x| (scan, *x)))
                .collect();
            let counted_holders = at.iter().filter(|(scan, _)| is_counted(*scan)).count();
            if counted_holders < self.quorum {
                break;
            }
            compared += 1;
            let first = at[0].1;
            if at.iter().all(|(_, h)| *h == first) {
                // An agreeing transaction ends the open range; a reassignment does not.
                if self.open
                    && !item_of(answers, at[0].0, i)
                        .and_then(item_info)
                        .is_some_and(|info| info.reassignment)
                {
                    self.open = false;
                }
                last = Some(at[0].0);
                continue;
            }
            let grouped = group_by_hash(&at, &self.counted, self.quorum);
            let reference = grouped[0].members[0];
            last = Some(reference);
            let info = item_of(answers, reference, i).and_then(item_info);
            let point = DiffPoint {
                update_id: info
                    .as_ref()
                    .map(|i| i.update_id.clone())
                    .unwrap_or_default(),
                record_time: info
                    .as_ref()
                    .map(|i| i.record_time.clone())
                    .unwrap_or_default(),
                migration_id: info.as_ref().map_or(0, |i| i.migration_id),
                page,
            };
            self.differing += 1;
            match self.ranges.last_mut() {
                Some(range) if self.open && range.same_sides(&grouped) => {
                    range.count += 1;
                    range.last = point;
                    let reference = &mut range.sides[0];
                    reference.is_quorum |= grouped[0].is_quorum;
                    for scan in &grouped[0].members {
                        if let Err(at) = reference.members.binary_search(scan) {
                            reference.members.insert(at, *scan);
                        }
                    }
                }
                _ => self.ranges.push(DiffRange {
                    first: point.clone(),
                    last: point,
                    count: 1,
                    sides: describe(answers, i, &grouped),
                }),
            }
            self.open = true;
            if self.differing >= max_differences {
                limit = true;
                break;
            }
        }
        self.pages = page;
        self.updates += compared as u64;
        if let (Some(scan), Some(index)) = (last, compared.checked_sub(1))
            && let Some(info) = item_of(answers, scan, index).and_then(item_info)
        {
            let time = parse_time_micros(&info.record_time);
            if self.first_time.is_none() {
                self.first_time = time;
            }
            self.last_time = time.or(self.last_time);
            self.cursor = Some(Cursor {
                migration_id: info.migration_id,
                record_time: info.record_time,
            });
        } else if compared > 0 {
            self.end = Some(SweepEnd::NoQuorum {
                page,
                answered,
                failures: vec![(
                    last.unwrap_or_default(),
                    "the last item has no position".into(),
                )],
            });
            return;
        }
        if limit {
            self.end = Some(SweepEnd::DifferenceLimit);
        } else if compared < self.plan.page_size {
            self.end = Some(SweepEnd::ReachedHead);
        } else if self.plan.max_pages.is_some_and(|max| self.pages >= max) {
            self.end = Some(SweepEnd::PageLimit);
        }
    }

    /// Progress after `elapsed`, at `now` (µs, for the estimate).
    pub fn progress(&self, elapsed: Duration, now: i64) -> SweepProgress {
        let secs = elapsed.as_secs_f64().max(1e-6);
        let pages_per_s = self.pages as f64 / secs;
        let eta = match self.plan.max_pages {
            Some(max) if pages_per_s > 0.0 => {
                Some(max.saturating_sub(self.pages) as f64 / pages_per_s)
            }
            _ => match (self.first_time, self.last_time) {
                (Some(first), Some(last)) if last > first => {
                    let advance_per_s = (last - first) as f64 / secs;
                    Some((now - last).max(0) as f64 / advance_per_s)
                }
                _ => None,
            },
        };
        SweepProgress {
            pages: self.pages,
            updates: self.updates,
            differing_updates: self.differing,
            ranges: self.ranges.len(),
            elapsed,
            updates_per_s: self.updates as f64 / secs,
            pages_per_s,
            record_time: self.cursor.as_ref().map(|c| c.record_time.clone()),
            eta: eta
                .filter(|s| s.is_finite())
                .map(|s| Duration::from_secs_f64(s.min(1e9))),
        }
    }
}

#[cfg(test)]
mod tests;
