//! What a sweep found, as one JSON document: the explorer's saved file (`s`, `:sweep save`) and
//! `network sweep`'s output are both a [`SweepReport`], schema [`SWEEP_SCHEMA`]. Scans are named
//! by their SV name and listed once in `scans` (in scan order); a side's `indexes` are
//! positions in that list. Pages are numbered from 1, as the explorer's status line numbers
//! them: `pages` is the number of the last page compared.

use serde::{Deserialize, Serialize};

use super::{Cursor, DiffRange, MinorityScan, Sweep, SweepEnd};
use crate::api::redact_userinfo;
use crate::model::consensus::fault_tolerance;

/// The schema (and its version) of a [`SweepReport`].
pub const SWEEP_SCHEMA: &str = "cantonscope.sweep/1";

/// One scan of the sweep, as the report names it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScanRef {
    pub name: String,
    pub url: String,
}

/// Why the sweep ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndKind {
    /// Not yet ended (a file saved while it runs).
    Running,
    /// A quorum of scans has nothing more.
    ReachedHead,
    /// `--pages` pages were compared.
    PageLimit,
    /// `--max-differences` differing updates were recorded (`truncated`).
    MaxDifferences,
    /// Fewer than a quorum of scans answered a page (`no_quorum` says which).
    NoQuorum,
    /// Stopped by the user.
    Cancelled,
}

/// What the sweep says of the history it compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// No differing update, up to the head or the page limit.
    Agree,
    /// Some update differs between scans (`differing_updates` > 0).
    Differ,
    /// No difference found, but it did not get to the end (cancelled, no quorum, running).
    Unknown,
}

/// A cursor: after this migration and record time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CursorReport {
    pub migration_id: i64,
    pub record_time: String,
}

impl From<&Cursor> for CursorReport {
    fn from(c: &Cursor) -> CursorReport {
        CursorReport {
            migration_id: c.migration_id,
            record_time: c.record_time.clone(),
        }
    }
}

/// One scan: its name, URL (user info as `***`), whether it counts in `n`, and the pages it
/// failed to answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanReport {
    pub name: String,
    pub url: String,
    pub counted: bool,
    pub failed_pages: u64,
}

/// A scan that failed the page that had no quorum.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureReport {
    pub scan: String,
    pub index: usize,
    pub error: String,
}

/// The page that had no quorum.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoQuorumReport {
    pub page: u64,
    pub answered: usize,
    pub failures: Vec<FailureReport>,
}

/// One side of a range: the scans whose items agree with each other there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideReport {
    /// SV names.
    pub scans: Vec<String>,
    /// Their positions in the report's `scans`.
    pub indexes: Vec<usize>,
    /// How many scans.
    pub count: usize,
    /// Its counted scans reach the quorum (f + 1).
    pub quorum: bool,
    /// The reference side (the first: the quorum's, else the largest).
    pub reference: bool,
    /// Where this side's item differs from the reference side's at the range's first update.
    pub example_path: Option<String>,
}

/// Consecutive differing updates with the same sides (an agreeing reassignment between them
/// does not split a range; an agreeing transaction does).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RangeReport {
    pub first_update_id: String,
    pub last_update_id: String,
    pub first_record_time: String,
    pub last_record_time: String,
    pub first_migration_id: i64,
    pub last_migration_id: i64,
    /// The pages its first and last updates were in (from 1).
    pub first_page: u64,
    pub last_page: u64,
    /// Differing updates in the range.
    pub count: u64,
    /// One JSON path where a side differs from the reference at the first update.
    pub example_path: Option<String>,
    pub sides: Vec<SideReport>,
}

/// What a sweep found: the explorer's saved file and `network sweep`'s JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepReport {
    /// [`SWEEP_SCHEMA`].
    pub schema: String,
    /// Where it started, in words.
    pub from: String,
    /// The cursor of its first page (`null`: the beginning of the history).
    pub start_after: Option<CursorReport>,
    pub page_size: usize,
    pub max_pages: Option<u64>,
    pub max_differences: u64,
    pub end: EndKind,
    pub outcome: Outcome,
    /// Pages compared: the last one compared is page `pages`.
    pub pages: u64,
    /// Updates compared (agreeing and differing).
    pub updates: u64,
    /// Differing updates: the sum of the ranges' counts.
    pub differing_updates: u64,
    /// It stopped at `max_differences`: there may be more.
    pub truncated: bool,
    /// After the last compared update (where a next sweep would go on).
    pub cursor: Option<CursorReport>,
    pub n: usize,
    pub f: usize,
    pub quorum: usize,
    pub scans: Vec<ScanReport>,
    /// For `end` = `no_quorum`.
    pub no_quorum: Option<NoQuorumReport>,
    pub ranges: Vec<RangeReport>,
}

impl SweepReport {
    /// The report of `sweep` (running or ended) over `scans` (in scan order), started from
    /// `from` (in words).
    pub fn of(sweep: &Sweep, scans: &[ScanRef], from: &str) -> SweepReport {
        let name = |i: usize| {
            scans
                .get(i)
                .map_or_else(|| format!("scan {}", i + 1), |s| s.name.clone())
        };
        let (counted, quorum) = sweep.counted();
        let n = counted.iter().filter(|c| **c).count();
        let (pages, updates) = sweep.counts();
        let differing_updates = sweep.differing_updates();
        let end = match sweep.end() {
            None => EndKind::Running,
            Some(SweepEnd::ReachedHead) => EndKind::ReachedHead,
            Some(SweepEnd::PageLimit) => EndKind::PageLimit,
            Some(SweepEnd::DifferenceLimit) => EndKind::MaxDifferences,
            Some(SweepEnd::NoQuorum { .. }) => EndKind::NoQuorum,
            Some(SweepEnd::Cancelled) => EndKind::Cancelled,
        };
        let outcome = match end {
            _ if differing_updates > 0 => Outcome::Differ,
            EndKind::ReachedHead | EndKind::PageLimit => Outcome::Agree,
            _ => Outcome::Unknown,
        };
        let no_quorum = match sweep.end() {
            Some(SweepEnd::NoQuorum {
                page,
                answered,
                failures,
            }) => Some(NoQuorumReport {
                page: *page,
                answered: *answered,
                failures: failures
                    .iter()
                    .map(|(i, error)| FailureReport {
                        scan: name(*i),
                        index: *i,
                        error: error.clone(),
                    })
                    .collect(),
            }),
            _ => None,
        };
        let plan = sweep.plan();
        SweepReport {
            schema: SWEEP_SCHEMA.to_owned(),
            from: from.to_owned(),
            start_after: plan.from.as_ref().map(CursorReport::from),
            page_size: plan.page_size,
            max_pages: plan.max_pages,
            max_differences: plan.max_differences,
            end,
            outcome,
            pages,
            updates,
            differing_updates,
            truncated: sweep.truncated(),
            cursor: sweep.cursor().map(CursorReport::from),
            n,
            f: fault_tolerance(n),
            quorum,
            scans: sweep
                .failed_pages()
                .iter()
                .enumerate()
                .map(|(i, failed)| ScanReport {
                    name: name(i),
                    // Never a password: the file and the output are shared.
                    url: scans
                        .get(i)
                        .map(|s| redact_userinfo(&s.url))
                        .unwrap_or_default(),
                    counted: counted.get(i).copied().unwrap_or(false),
                    failed_pages: *failed,
                })
                .collect(),
            no_quorum,
            ranges: sweep
                .ranges()
                .iter()
                .map(|r| range_report(r, &name))
                .collect(),
        }
    }

    /// The findings this sweep makes: each scan on a minority side of a range has a diverged
    /// history at the range's first update (one JSON path); a diverged history kept in `book`
    /// whose update lies inside the span swept is cleared for a scan that answered every page
    /// and is on no minority side (the range was checked again and agrees).
    pub fn findings(
        &self,
        book: &crate::model::findings::FindingsBook,
    ) -> Vec<crate::model::findings::FindingOp> {
        use crate::model::findings::{FindingKind, FindingOp, FoundBy};
        use crate::model::format::parse_time_micros;
        let minority = self.minority_scans();
        let mut ops = Vec::new();
        for m in &minority {
            let Some(scan) = self.scans.get(m.scan) else {
                continue;
            };
            let range = self
                .ranges
                .iter()
                .find(|r| r.first_update_id == m.first_update_id);
            let record_time = range.and_then(|r| parse_time_micros(&r.first_record_time));
            let differing: u64 = self
                .ranges
                .iter()
                .filter(|r| {
                    r.sides
                        .iter()
                        .skip(1)
                        .any(|side| !side.quorum && side.indexes.contains(&m.scan))
                })
                .map(|r| r.count)
                .sum();
            ops.push(FindingOp::open_at(
                FindingKind::DivergedHistory,
                (&scan.url, &scan.name),
                FoundBy::Sweep,
                format!(
                    "the sweep found {differing} updates it serves differently from the others, from {}",
                    range.map_or("?", |r| r.first_record_time.as_str())
                ),
                (&m.first_update_id, record_time, m.example_path.as_deref()),
            ));
        }
        // What the sweep compared: after its start up to where it reached.
        let start = self
            .start_after
            .as_ref()
            .and_then(|c| parse_time_micros(&c.record_time));
        let end = self
            .cursor
            .as_ref()
            .and_then(|c| parse_time_micros(&c.record_time));
        let Some(end) = end else {
            return ops;
        };
        for f in book
            .open()
            .filter(|f| f.kind == FindingKind::DivergedHistory)
        {
            let Some(t) = f.record_time else { continue };
            if t > end || start.is_some_and(|s| t <= s) {
                continue;
            }
            let scan = self
                .scans
                .iter()
                .position(|s| crate::model::network::same_url(&s.url, &f.subject));
            let Some(index) = scan else { continue };
            let agreed =
                self.scans[index].failed_pages == 0 && minority.iter().all(|m| m.scan != index);
            if agreed {
                ops.push(FindingOp::Clear {
                    kind: FindingKind::DivergedHistory,
                    subject: f.subject.clone(),
                    update_id: f.update_id.clone(),
                    detail: "a sweep over it agreed".to_owned(),
                });
            }
        }
        ops
    }

    /// The scans on a minority side of any range (a side that is not a quorum, against a
    /// reference side that is), by position in `scans`, each with the first differing update
    /// of its first such range and where it differed there. The same as
    /// [`Sweep::minority_scans`] of the sweep it reports.
    pub fn minority_scans(&self) -> Vec<MinorityScan> {
        let mut out: Vec<MinorityScan> = Vec::new();
        for range in &self.ranges {
            if !range.sides.first().is_some_and(|s| s.quorum) {
                continue;
            }
            for side in range.sides.iter().skip(1).filter(|s| !s.quorum) {
                for &scan in &side.indexes {
                    if out.iter().all(|m| m.scan != scan) {
                        out.push(MinorityScan {
                            scan,
                            first_update_id: range.first_update_id.clone(),
                            example_path: side.example_path.clone(),
                        });
                    }
                }
            }
        }
        out.sort_by_key(|m| m.scan);
        out
    }
}

fn range_report(range: &DiffRange, name: &impl Fn(usize) -> String) -> RangeReport {
    RangeReport {
        first_update_id: range.first.update_id.clone(),
        last_update_id: range.last.update_id.clone(),
        first_record_time: range.first.record_time.clone(),
        last_record_time: range.last.record_time.clone(),
        first_migration_id: range.first.migration_id,
        last_migration_id: range.last.migration_id,
        first_page: range.first.page,
        last_page: range.last.page,
        count: range.count,
        example_path: range.example_path().map(str::to_owned),
        sides: range
            .sides
            .iter()
            .enumerate()
            .map(|(rank, side)| SideReport {
                scans: side.members.iter().map(|i| name(*i)).collect(),
                indexes: side.members.clone(),
                count: side.members.len(),
                quorum: side.is_quorum,
                reference: rank == 0,
                example_path: side.differences.first().map(|d| d.path.clone()),
            })
            .collect(),
    }
}
