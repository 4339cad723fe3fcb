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

pub mod report;

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::consensus::digest::PageDigest;
use super::consensus::{Difference, LocalFields, MAX_DIFFERENCES, json_diff, quorum};
use super::format::parse_time_micros;

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

/// The scans with one item at a position, the reference first.
struct Grouped {
    members: Vec<usize>,
    is_quorum: bool,
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

/// The text of scan `scan`'s item at `index`.
fn item_of(answers: &[PageAnswer], scan: usize, index: usize) -> Option<&[u8]> {
    match answers.get(scan)? {
        PageAnswer::Page { digest, body } => body.get(digest.items.get(index)?.span.clone()),
        PageAnswer::Failed { .. } => None,
    }
}

/// The scans of `at` grouped by item hash, the reference first: the most counted members, then
/// the most members, then the lowest scan.
fn group_by_hash(at: &[(usize, u64)], counted: &[bool], quorum: usize) -> Vec<Grouped> {
    let mut by_hash: Vec<(u64, Vec<usize>)> = Vec::new();
    for (scan, hash) in at {
        match by_hash.iter_mut().find(|(h, _)| h == hash) {
            Some((_, members)) => members.push(*scan),
            None => by_hash.push((*hash, vec![*scan])),
        }
    }
    let counted_in = |members: &[usize]| {
        members
            .iter()
            .filter(|m| counted.get(**m).copied().unwrap_or(false))
            .count()
    };
    by_hash.sort_by(|a, b| {
        counted_in(&b.1)
            .cmp(&counted_in(&a.1))
            .then(b.1.len().cmp(&a.1.len()))
            .then(a.1[0].cmp(&b.1[0]))
    });
    by_hash
        .into_iter()
        .map(|(_, members)| Grouped {
            is_quorum: counted_in(&members) >= quorum,
            members,
        })
        .collect()
}

/// The sides of the differing update at `index`, with where each differs from the reference.
fn describe(answers: &[PageAnswer], index: usize, grouped: &[Grouped]) -> Vec<ItemGroup> {
    let value_of = |scan: usize| -> Option<Value> {
        let mut value: Value = serde_json::from_slice(item_of(answers, scan, index)?).ok()?;
        LocalFields::UPDATE.strip(&mut value);
        Some(value)
    };
    let reference = grouped.first().and_then(|g| value_of(g.members[0]));
    grouped
        .iter()
        .enumerate()
        .map(|(rank, g)| {
            let info = item_of(answers, g.members[0], index).and_then(item_info);
            let (differences, truncated) = match (&reference, rank) {
                (Some(reference), r) if r > 0 => value_of(g.members[0])
                    .map(|v| json_diff(reference, &v, MAX_DIFFERENCES))
                    .unwrap_or_default(),
                _ => (Vec::new(), false),
            };
            ItemGroup {
                members: g.members.clone(),
                is_quorum: g.is_quorum,
                update_id: info.as_ref().map(|i| i.update_id.clone()),
                record_time: info.map(|i| i.record_time),
                differences,
                truncated,
            }
        })
        .collect()
}

/// The position fields of one update item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemInfo {
    pub update_id: String,
    /// For a reassignment, the one inside `event`.
    pub migration_id: i64,
    /// As the server wrote it.
    pub record_time: String,
    /// A reassignment (an `event`), not a transaction.
    pub reassignment: bool,
}

#[derive(Deserialize)]
struct ItemHead {
    #[serde(default)]
    update_id: Option<String>,
    #[serde(default)]
    migration_id: Option<Value>,
    #[serde(default)]
    record_time: Option<String>,
    #[serde(default)]
    event: Option<EventHead>,
}

#[derive(Deserialize)]
struct EventHead {
    #[serde(default)]
    migration_id: Option<Value>,
}

/// Reads the update id, migration id and record time of one item's JSON.
pub fn item_info(item: &[u8]) -> Option<ItemInfo> {
    let head: ItemHead = serde_json::from_slice(item).ok()?;
    let reassignment = head.event.is_some();
    let migration = head
        .migration_id
        .or_else(|| head.event.and_then(|e| e.migration_id))?;
    let migration_id = match migration {
        Value::Number(n) => n.as_i64()?,
        Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    Some(ItemInfo {
        update_id: head.update_id.unwrap_or_default(),
        migration_id,
        record_time: head.record_time?,
        reassignment,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::consensus::digest::Digester;

    fn item(k: usize, workflow: &str) -> String {
        format!(
            r#"{{"update_id":"u{k}","migration_id":1,"record_time":"2026-01-01T00:00:{:02}.000000Z","workflow_id":"{workflow}","events_by_id":{{}}}}"#,
            k % 60
        )
    }

    fn reassignment(k: usize, submitter: &str) -> String {
        format!(
            r#"{{"update_id":"u{k}","offset":"{k}","record_time":"2026-01-01T00:00:{:02}.000000Z","event":{{"migration_id":1,"submitter":"{submitter}"}}}}"#,
            k % 60
        )
    }

    fn page(items: &[String]) -> PageAnswer {
        let body = format!("{{\"transactions\":[{}]}}", items.join(",")).into_bytes();
        let digest = Digester::with_key(3)
            .page(&body, LocalFields::UPDATE)
            .expect("page");
        PageAnswer::Page { digest, body }
    }

    fn items(range: std::ops::Range<usize>) -> Vec<String> {
        range.map(|k| item(k, "")).collect()
    }

    /// Items `range` as a scan that renders the transactions in `differ` differently has them.
    fn items_differing(range: std::ops::Range<usize>, differ: &[usize]) -> Vec<String> {
        range
            .map(|k| item(k, if differ.contains(&k) { "diverged" } else { "" }))
            .collect()
    }

    fn plan(page_size: usize) -> SweepPlan {
        SweepPlan::new(None, page_size)
    }

    fn failed() -> PageAnswer {
        PageAnswer::Failed {
            status: Some(503),
            message: "unavailable".into(),
        }
    }

    fn ids(range: &DiffRange) -> (&str, &str, u64) {
        (
            range.first.update_id.as_str(),
            range.last.update_id.as_str(),
            range.count,
        )
    }

    fn members(range: &DiffRange) -> Vec<Vec<usize>> {
        range.sides.iter().map(|s| s.members.clone()).collect()
    }

    #[test]
    fn agreeing_pages_advance_and_a_lagging_scan_is_not_a_difference() {
        let mut sweep = Sweep::new(plan(5), vec![true; 4]);
        let full = page(&items(0..5));
        sweep.on_page(&[full.clone(), full.clone(), full.clone(), full]);
        assert_eq!(sweep.counts(), (1, 5));
        assert_eq!(
            sweep.next_page().flatten().map(|c| c.record_time.as_str()),
            Some("2026-01-01T00:00:04.000000Z")
        );
        // At the head: one scan lags by two updates, one is down.
        let head = page(&items(5..8));
        let lagging = page(&items(5..6));
        sweep.on_page(&[
            head.clone(),
            head.clone(),
            lagging,
            PageAnswer::Failed {
                status: None,
                message: "connection refused".into(),
            },
        ]);
        assert_eq!(sweep.end(), Some(&SweepEnd::ReachedHead));
        assert_eq!(sweep.counts(), (2, 8));
        assert_eq!(sweep.failed_pages(), &[0, 0, 0, 1]);
        assert_eq!(sweep.differing_updates(), 0);
        assert!(sweep.ranges().is_empty() && !sweep.truncated());
    }

    #[test]
    fn every_differing_update_is_kept_in_ranges_and_the_sweep_goes_on() {
        let mut sweep = Sweep::new(plan(5), vec![true; 4]);
        // Page 1: scan 1 differs at u3 and u4.
        let good = page(&items(0..5));
        sweep.on_page(&[
            good.clone(),
            page(&items_differing(0..5, &[3, 4])),
            good.clone(),
            good,
        ]);
        assert_eq!(sweep.end(), None, "it goes on past a difference");
        assert_eq!(sweep.counts(), (1, 5));
        assert_eq!(sweep.differing_updates(), 2);
        assert_eq!(
            sweep.cursor().map(|c| c.record_time.as_str()),
            Some("2026-01-01T00:00:04.000000Z"),
            "the next page starts after the last differing update"
        );
        // Page 2: scan 1 still differs at u5 (the range goes on across the page, scan 3 sitting
        // the page out does not split it); u6 agrees (a transaction: the range ends); scan 2
        // differs at u7 (other sides: a new range), scan 1 at u8 and u9.
        let good = page(&items(5..10));
        sweep.on_page(&[
            good.clone(),
            page(&items_differing(5..10, &[5, 8, 9])),
            page(&items_differing(5..10, &[7])),
            failed(),
        ]);
        // Page 3: the head, u10 agreeing.
        let head = page(&items(10..11));
        sweep.on_page(&[head.clone(), head.clone(), head.clone(), head]);
        assert_eq!(sweep.end(), Some(&SweepEnd::ReachedHead));
        assert_eq!(sweep.counts(), (3, 11));
        assert_eq!(sweep.differing_updates(), 6);
        let ranges = sweep.ranges();
        assert_eq!(ranges.len(), 3, "{ranges:#?}");
        assert_eq!(ids(&ranges[0]), ("u3", "u5", 3));
        assert_eq!((ranges[0].first.page, ranges[0].last.page), (1, 2));
        assert_eq!(members(&ranges[0]), [vec![0, 2, 3], vec![1]]);
        assert!(ranges[0].sides[0].is_quorum);
        assert_eq!(ranges[0].example_path(), Some("$.workflow_id"));
        assert_eq!(
            ranges[0].first.record_time,
            "2026-01-01T00:00:03.000000Z".to_owned()
        );
        assert_eq!(ranges[0].last.record_time, "2026-01-01T00:00:05.000000Z");
        assert_eq!(ids(&ranges[1]), ("u7", "u7", 1));
        assert_eq!(members(&ranges[1]), [vec![0, 1], vec![2]]);
        assert_eq!(ids(&ranges[2]), ("u8", "u9", 2));
        assert_eq!(members(&ranges[2]), [vec![0, 2], vec![1]]);
        let total: u64 = ranges.iter().map(|r| r.count).sum();
        assert_eq!(total, sweep.differing_updates());
        assert!(!sweep.truncated());
        // Scan 1 first differed at u3, scan 2 at u7.
        assert_eq!(
            sweep.minority_scans(),
            [
                MinorityScan {
                    scan: 1,
                    first_update_id: "u3".into(),
                    example_path: Some("$.workflow_id".into()),
                },
                MinorityScan {
                    scan: 2,
                    first_update_id: "u7".into(),
                    example_path: Some("$.workflow_id".into()),
                },
            ]
        );

        // The report says the same, pages numbered as here.
        let scans: Vec<report::ScanRef> = (0..4)
            .map(|i| report::ScanRef {
                name: format!("SV-{i}"),
                url: format!("http://alice:pw{i}@scan{i}.example"),
            })
            .collect();
        let report = SweepReport::of(&sweep, &scans, "the beginning of the history");
        assert_eq!(report.minority_scans(), sweep.minority_scans());
        let json = serde_json::to_value(&report).expect("json");
        assert_eq!(json["schema"], "cantonscope.sweep/1");
        assert_eq!(json["end"], "reached_head");
        assert_eq!(json["outcome"], "differ");
        assert_eq!(json["pages"], 3);
        assert_eq!(json["differing_updates"], 6);
        assert_eq!(json["truncated"], false);
        assert_eq!(json["n"], 4);
        assert_eq!(json["quorum"], 2);
        assert_eq!(json["scans"][3]["failed_pages"], 1);
        assert_eq!(json["scans"][3]["url"], "http://***@scan3.example");
        let first = &json["ranges"][0];
        assert_eq!(
            (&first["first_update_id"], &first["last_update_id"]),
            (&"u3".into(), &"u5".into())
        );
        assert_eq!(
            (&first["first_page"], &first["last_page"]),
            (&1.into(), &2.into())
        );
        assert_eq!(first["count"], 3);
        assert_eq!(first["example_path"], "$.workflow_id");
        assert_eq!(
            first["sides"][0]["scans"],
            serde_json::json!(["SV-0", "SV-2", "SV-3"])
        );
        assert_eq!(first["sides"][1]["scans"], serde_json::json!(["SV-1"]));
        assert_eq!(first["sides"][1]["count"], 1);
        let back: SweepReport = serde_json::from_value(json).expect("reads back");
        assert_eq!(back, report);
    }

    #[test]
    fn an_agreeing_reassignment_does_not_split_a_range_but_a_transaction_does() {
        let mut sweep = Sweep::new(plan(10), vec![true; 4]);
        let honest = vec![
            item(0, ""),
            reassignment(1, "a"),
            item(2, ""),
            reassignment(3, "a"),
            reassignment(4, "a"),
            item(5, ""),
            item(6, ""),
            item(7, ""),
            reassignment(8, "a"),
        ];
        let mut other = honest.clone();
        // u0 and u2 differ around an agreeing reassignment; u5 after two; u7 after an agreeing
        // transaction; the reassignment u8 itself differs.
        for k in [0, 2, 5, 7] {
            other[k] = item(k, "diverged");
        }
        other[8] = reassignment(8, "b");
        let good = page(&honest);
        sweep.on_page(&[good.clone(), good.clone(), page(&other), good]);
        assert_eq!(sweep.end(), Some(&SweepEnd::ReachedHead));
        let ranges = sweep.ranges();
        assert_eq!(ranges.len(), 2, "{ranges:#?}");
        assert_eq!(ids(&ranges[0]), ("u0", "u5", 3));
        assert_eq!(ids(&ranges[1]), ("u7", "u8", 2));
        assert_eq!(sweep.differing_updates(), 5);
        assert_eq!(sweep.counts(), (1, 9));
    }

    #[test]
    fn max_differences_stops_early_and_says_truncated() {
        let mut sweep = Sweep::new(
            SweepPlan {
                max_differences: 2,
                ..plan(10)
            },
            vec![true; 4],
        );
        let good = page(&items(0..10));
        let bad = page(&items_differing(0..10, &[2, 3, 4, 8]));
        sweep.on_page(&[good.clone(), bad, good.clone(), good]);
        assert_eq!(sweep.end(), Some(&SweepEnd::DifferenceLimit));
        assert!(sweep.truncated());
        assert_eq!(sweep.differing_updates(), 2);
        assert_eq!(ids(&sweep.ranges()[0]), ("u2", "u3", 2));
        assert_eq!(
            sweep.counts(),
            (1, 4),
            "the page counts, up to where it stopped"
        );
        assert_eq!(
            sweep.cursor().map(|c| c.record_time.as_str()),
            Some("2026-01-01T00:00:03.000000Z")
        );
        assert_eq!(sweep.next_page(), None);
    }

    #[test]
    fn a_side_is_a_minority_only_against_a_quorum_it_is_not() {
        // Two scans of four against the other two: each side is f + 1 = 2 (the reference is the
        // side of the lowest scan); neither is a minority.
        let mut sweep = Sweep::new(plan(3), vec![true; 4]);
        let good = page(&items(0..3));
        let bad = page(&items_differing(0..3, &[1]));
        sweep.on_page(&[bad.clone(), good.clone(), good, bad]);
        let ranges = sweep.ranges();
        assert_eq!(members(&ranges[0]), [vec![0, 3], vec![1, 2]]);
        assert!(ranges[0].sides.iter().all(|s| s.is_quorum));
        assert!(sweep.minority_scans().is_empty());
        // Of 7 scans (quorum 3), 2 against 2 with 3 sitting out: no quorum side, no minority.
        let mut sweep = Sweep::new(plan(3), vec![true; 7]);
        let good = page(&items(0..3));
        let bad = page(&items_differing(0..3, &[1]));
        sweep.on_page(&[
            good.clone(),
            good,
            bad.clone(),
            bad,
            failed(),
            failed(),
            failed(),
        ]);
        assert_eq!(sweep.differing_updates(), 1);
        assert!(!sweep.ranges()[0].sides[0].is_quorum);
        assert!(sweep.minority_scans().is_empty());
    }

    #[test]
    fn too_few_answers_is_no_quorum_and_limits_stop() {
        let mut sweep = Sweep::new(plan(5), vec![true; 4]);
        sweep.on_page(&[page(&items(0..5)), failed(), failed(), failed()]);
        assert!(matches!(
            sweep.end(),
            Some(SweepEnd::NoQuorum {
                page: 1,
                answered: 1,
                ..
            })
        ));

        let mut limited = Sweep::new(
            SweepPlan {
                max_pages: Some(1),
                ..plan(2)
            },
            vec![true; 1],
        );
        limited.on_page(&[page(&items(0..2))]);
        assert_eq!(limited.end(), Some(&SweepEnd::PageLimit));
        let progress = limited.progress(Duration::from_secs(2), 0);
        assert_eq!((progress.pages, progress.updates), (1, 2));
        assert!((progress.updates_per_s - 1.0).abs() < 1e-9);
    }

    #[test]
    fn item_positions_of_both_shapes() {
        let tx = item(7, "");
        assert_eq!(
            item_info(tx.as_bytes()),
            Some(ItemInfo {
                update_id: "u7".into(),
                migration_id: 1,
                record_time: "2026-01-01T00:00:07.000000Z".into(),
                reassignment: false,
            })
        );
        let reassign =
            br#"{"update_id":"r","offset":"9","record_time":"t","event":{"migration_id":"3"}}"#;
        let info = item_info(reassign).expect("a position");
        assert_eq!((info.migration_id, info.reassignment), (3, true));
        assert_eq!(item_info(b"{}"), None);
    }
}
