//! The history sweep, pure: compare a range of `/v2/updates` across every scan, page by page
//! (the same `after` cursor to each), until the scans differ, the quorum reaches the head, or
//! the page limit. The runtime sends the requests and feeds the answers to [`Sweep::on_page`].
//!
//! Each page is reduced to one canonical hash per item ([`super::consensus::digest`]); items are
//! compared position by position, so a lagging scan's shorter page at the head is not a
//! difference, and the first position where two answering scans differ names the first
//! differing update at once. A position counts as attested when at least a quorum of counted
//! scans have an item there and they all agree; the next page starts after the last attested
//! item. Scans that fail a page (an error, a timeout, still backfilling) are left out of it.

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::consensus::digest::PageDigest;
use super::consensus::{Difference, LocalFields, MAX_DIFFERENCES, json_diff, quorum};
use super::format::parse_time_micros;

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

/// One update as a group of scans has it.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemGroup {
    /// The scans (indexes) whose item at this position hashes the same.
    pub members: Vec<usize>,
    /// Counted members reach a quorum.
    pub is_quorum: bool,
    pub update_id: Option<String>,
    pub record_time: Option<String>,
    /// Where this group's item differs from the reference group's (empty for the reference).
    pub differences: Vec<Difference>,
    pub truncated: bool,
}

/// The first place where scans differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Divergence {
    /// The page (0 = the first of the sweep) and the cursor it was asked after.
    pub page: u64,
    pub after: Option<Cursor>,
    /// Position in the page.
    pub index: usize,
    /// Every distinct item at that position, the reference group (the quorum's, else the
    /// largest) first.
    pub groups: Vec<ItemGroup>,
}

impl Divergence {
    /// The first differing update: the reference group's update id.
    pub fn update_id(&self) -> Option<&str> {
        self.groups.first().and_then(|g| g.update_id.as_deref())
    }
}

/// Why the sweep ended.
#[derive(Debug, Clone, PartialEq)]
pub enum SweepEnd {
    /// A quorum of scans has nothing more: the head of the history.
    ReachedHead,
    /// The page limit was reached.
    PageLimit,
    /// Scans differ: the first differing update.
    Diverged(Box<Divergence>),
    /// Fewer than a quorum of scans answered a page.
    NoQuorum {
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
    pub pages: u64,
    pub updates: u64,
    pub elapsed: Duration,
    pub updates_per_s: f64,
    pub pages_per_s: f64,
    /// Record time of the last attested update.
    pub record_time: Option<String>,
    /// Estimated time left: from the page limit, else from how fast record time advances
    /// towards `now`.
    pub eta: Option<Duration>,
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

    /// Items per page.
    pub fn page_size(&self) -> usize {
        self.plan.page_size
    }

    /// Why it ended, once it has.
    pub fn end(&self) -> Option<&SweepEnd> {
        self.end.as_ref()
    }

    /// Pages compared and updates attested so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.pages, self.updates)
    }

    /// Pages each scan failed to answer.
    pub fn failed_pages(&self) -> &[u64] {
        &self.failed_pages
    }

    /// The cursor after the last attested update.
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
                page: self.pages,
                answered,
                failures,
            });
            return;
        }
        let mut attested = 0;
        let mut holder = None;
        loop {
            let i = attested;
            let at: Vec<(usize, u64)> = hashes
                .iter()
                .enumerate()
                .filter_map(|(scan, h)| h.as_ref().and_then(|h| h.get(i)).map(|x| (scan, *x)))
                .collect();
            let counted_holders = at.iter().filter(|(scan, _)| is_counted(*scan)).count();
            if counted_holders < self.quorum {
                break;
            }
            let first = at[0].1;
            if at.iter().any(|(_, h)| *h != first) {
                // The items before it agreed.
                self.updates += i as u64;
                let groups = item_groups(answers, &at, i, &self.counted, self.quorum);
                self.end = Some(SweepEnd::Diverged(Box::new(Divergence {
                    page: self.pages,
                    after: self.cursor.clone(),
                    index: i,
                    groups,
                })));
                return;
            }
            holder = Some(at[0].0);
            attested += 1;
        }
        self.pages += 1;
        self.updates += attested as u64;
        if let (Some(scan), Some(last)) = (holder, attested.checked_sub(1))
            && let Some(PageAnswer::Page { digest, body }) = answers.get(scan)
            && let Some(info) = digest
                .items
                .get(last)
                .and_then(|item| body.get(item.span.clone()))
                .and_then(item_info)
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
        } else if attested > 0 {
            self.end = Some(SweepEnd::NoQuorum {
                page: self.pages,
                answered,
                failures: vec![(
                    holder.unwrap_or_default(),
                    "the last item has no position".into(),
                )],
            });
            return;
        }
        if attested < self.plan.page_size {
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

/// The distinct items at position `index`, the reference first, with their differences.
fn item_groups(
    answers: &[PageAnswer],
    at: &[(usize, u64)],
    index: usize,
    counted: &[bool],
    quorum: usize,
) -> Vec<ItemGroup> {
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
    let item_of = |scan: usize| -> Option<&[u8]> {
        match answers.get(scan)? {
            PageAnswer::Page { digest, body } => body.get(digest.items.get(index)?.span.clone()),
            PageAnswer::Failed { .. } => None,
        }
    };
    let value_of = |scan: usize| -> Option<Value> {
        let mut value: Value = serde_json::from_slice(item_of(scan)?).ok()?;
        LocalFields::UPDATE.strip(&mut value);
        Some(value)
    };
    let reference = by_hash.first().and_then(|(_, m)| value_of(m[0]));
    by_hash
        .iter()
        .enumerate()
        .map(|(rank, (_, members))| {
            let info = item_of(members[0]).and_then(item_info);
            let (differences, truncated) = match (&reference, rank) {
                (Some(reference), r) if r > 0 => value_of(members[0])
                    .map(|v| json_diff(reference, &v, MAX_DIFFERENCES))
                    .unwrap_or_default(),
                _ => (Vec::new(), false),
            };
            ItemGroup {
                members: members.clone(),
                is_quorum: counted_in(members) >= quorum,
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

    fn plan(page_size: usize) -> SweepPlan {
        SweepPlan {
            from: None,
            page_size,
            max_pages: None,
        }
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
    }

    #[test]
    fn the_first_differing_update_is_named_with_its_paths() {
        let mut sweep = Sweep::new(plan(5), vec![true; 4]);
        let good = page(&items(0..5));
        let mut bad_items = items(0..5);
        bad_items[3] = item(3, "diverged");
        bad_items[4] = item(4, "diverged");
        sweep.on_page(&[good.clone(), page(&bad_items), good.clone(), good]);
        let Some(SweepEnd::Diverged(d)) = sweep.end() else {
            panic!("{:?}", sweep.end());
        };
        assert_eq!((d.page, d.index), (0, 3));
        assert_eq!(sweep.counts(), (0, 3), "the items before it agreed");
        assert_eq!(d.update_id(), Some("u3"));
        assert_eq!(d.groups.len(), 2);
        assert_eq!(d.groups[0].members, [0, 2, 3]);
        assert!(d.groups[0].is_quorum);
        assert_eq!(d.groups[1].members, [1]);
        assert_eq!(d.groups[1].differences.len(), 1);
        assert_eq!(d.groups[1].differences[0].path, "$.workflow_id");
    }

    #[test]
    fn too_few_answers_is_no_quorum_and_limits_stop() {
        let mut sweep = Sweep::new(plan(5), vec![true; 4]);
        let failed = PageAnswer::Failed {
            status: Some(503),
            message: "unavailable".into(),
        };
        sweep.on_page(&[page(&items(0..5)), failed.clone(), failed.clone(), failed]);
        assert!(matches!(
            sweep.end(),
            Some(SweepEnd::NoQuorum { answered: 1, .. })
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
                record_time: "2026-01-01T00:00:07.000000Z".into()
            })
        );
        let reassign =
            br#"{"update_id":"r","offset":"9","record_time":"t","event":{"migration_id":"3"}}"#;
        assert_eq!(item_info(reassign).map(|i| i.migration_id), Some(3));
        assert_eq!(item_info(b"{}"), None);
    }
}
