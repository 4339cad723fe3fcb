//! The parts of History's list read from the index that the index lacks, read from the scan
//! instead: the ranges no chunk the index walked covers (before its oldest update, a gap
//! between chunks, the stretch between its newest update and the loaded rows), found by one
//! index read ([`IndexRead::Holes`]), then read by the loader, a range at a time
//! ([`LoaderIntent::ReadRange`]: it walks `/v2/updates` page by page with its pace, back-off and
//! memory budget, [`crate::feed::loader::RANGE_PAGES_PER_SEC`] pages a second) and kept here as
//! summary rows; the loader stops a range when these rows and the loaded ones fill the budget.
//! The newest gap is read first (the one next to the loaded rows). Nothing here is asked of
//! the scan for a range the index covers, and nothing at all with `--offline`. When the list
//! changes under the gaps (the memory budget drops loaded rows: the list reaches further; a
//! sync writes the index) the index is asked again and its answer merged with the rows read
//! ([`ScanFill::refresh`]): rows stay in the gap that holds their time, go where the index
//! covers them now, and a gap is read only from where the scan has not sent it yet.

use crate::api::scan::UpdateItem;
use crate::feed::loader::{LoaderIntent, RangeAsk, RangeEvent};
use crate::model::format::{format_time_micros, group_thousands};
use crate::model::index::read::{Hole, IndexAnswer, IndexRead, RowDetail, summary_row};
use crate::model::position::At;
use crate::model::summary::Summarizer;
use crate::msg::{Fetched, Request, RequestId, UNEXPECTED_INDEX_ANSWER};

use super::Ctx;
use super::row::{IndexedRow, row_bytes};

/// One part of the list the index lacks, and what the scan sent of it so far (in the list's
/// order).
#[derive(Debug, Clone)]
pub struct Gap {
    pub hole: Hole,
    pub rows: Vec<IndexedRow>,
    /// The scan sent all of it.
    pub done: bool,
    /// The scan sent all of it from its start through this record time (µs): its walk goes on
    /// after it (`None`: nothing yet).
    pub upto: Option<i64>,
}

impl Gap {
    fn new(hole: Hole) -> Gap {
        Gap {
            hole,
            rows: Vec::new(),
            done: false,
            upto: None,
        }
    }
}

/// Why reading the gaps from the scan stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FillEnd {
    /// Every gap was read.
    Done,
    /// The memory budget is full: the gaps are read in part.
    Budget,
    /// The gaps could not be found, or the scan's pages do not move forward (the message was
    /// said).
    Failed,
}

/// The gaps of one list and the walk over them.
#[derive(Debug, Clone)]
pub struct ScanFill {
    since: i64,
    before: Option<i64>,
    /// The read of the gaps, while in flight, and the end of the list it asks up to (a read
    /// again, when the list changed under the gaps already read, merges its answer with them).
    asking: Option<(RequestId, Option<i64>)>,
    /// The gaps, in the list's order (`None`: not known yet).
    gaps: Option<Vec<Gap>>,
    /// The gap the loader reads now.
    reading: Option<usize>,
    /// Memory the rows take (reckoned).
    bytes: usize,
    /// Pages the scan sent.
    pages: u32,
    end: Option<FillEnd>,
    /// The full memory budget was said (once).
    budget_said: bool,
}

/// What a reply brought.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FillReply {
    /// The gaps are known.
    Gaps,
    /// Rows came for a gap.
    Rows,
    /// The gaps were asked again and merged with the rows read.
    Merged,
    /// Nothing changed (a failure, said).
    Nothing,
}

impl ScanFill {
    /// Asks the index for the gaps of the list from `since` up to `before`.
    pub fn ask(since: i64, before: Option<i64>, cx: &mut Ctx) -> ScanFill {
        let id = cx.fetch(Request::Index(IndexRead::Holes { since, before }));
        ScanFill {
            since,
            before,
            asking: Some((id, before)),
            gaps: None,
            reading: None,
            bytes: 0,
            pages: 0,
            end: None,
            budget_said: false,
        }
    }

    /// The gaps, once known (in the list's order).
    pub fn gaps(&self) -> &[Gap] {
        self.gaps.as_deref().unwrap_or_default()
    }

    /// Rows the scan sent, in every gap.
    pub fn rows(&self) -> usize {
        self.gaps().iter().map(|g| g.rows.len()).sum()
    }

    /// Pages the scan sent so far.
    pub fn pages(&self) -> u32 {
        self.pages
    }

    /// Whether gaps are still being read.
    pub fn running(&self) -> bool {
        self.end.is_none()
    }

    /// How reading the gaps ended (`None`: it runs).
    pub fn end(&self) -> Option<&FillEnd> {
        self.end.as_ref()
    }

    /// Memory the rows take (bytes, reckoned).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The loaded rows start earlier now (`before`): rows from the scan at or after it go (the
    /// loaded rows list them).
    pub fn trim(&mut self, before: i64) {
        if self.before.is_some_and(|b| b <= before) {
            return;
        }
        self.before = Some(before);
        if let Some(gaps) = &mut self.gaps {
            for g in gaps.iter_mut() {
                g.rows.retain(|r| r.record_time.is_some_and(|t| t < before));
            }
        }
        self.recount_bytes();
    }

    /// The record times (µs, inclusive) gap `g` spans: from its start (after the covered range
    /// before it, or the list's start) through its end (the covered range after it starts, or
    /// the loaded rows: `before`).
    fn span_of(&self, hole: &Hole, before: Option<i64>) -> (i64, i64) {
        let first = hole
            .after
            .map_or(self.since, |a| a.record_time.saturating_add(1));
        let last = match (hole.through, before) {
            (Some(through), _) => through.record_time,
            (None, Some(b)) => b.saturating_sub(1),
            (None, None) => i64::MAX,
        };
        (first, last)
    }

    /// The gap a record time (µs) falls in, once the gaps are known.
    pub fn gap_at(&self, t: i64) -> Option<usize> {
        self.gaps().iter().position(|g| {
            let (first, last) = self.span_of(&g.hole, self.before);
            first <= t && t <= last
        })
    }

    /// Whether the gaps are known.
    pub fn known(&self) -> bool {
        self.gaps.is_some()
    }

    /// The list changed under the gaps read (it now ends at `before`: the memory budget dropped
    /// loaded rows; or a sync wrote into the index): the index is asked again which parts it
    /// lacks, and the answer is merged with what the scan sent ([`ScanFill::merge`]).
    pub fn refresh(&mut self, before: Option<i64>, cx: &mut Ctx) {
        let id = cx.fetch(Request::Index(IndexRead::Holes {
            since: self.since,
            before,
        }));
        self.asking = Some((id, before));
    }

    /// Takes the gaps the index lacks now (the list up to `before`) in place of the ones read:
    /// the scan's rows stay in the gap that holds their time and go where the index covers
    /// them now (it lists them); a gap is read only where the scan has not sent it yet (a gap
    /// that grew goes on after its end, a new one is read from its start).
    fn merge(&mut self, holes: Vec<Hole>, before: Option<i64>) {
        let old_before = self.before;
        // What was known of each old gap: its span and the time its rows are complete through.
        let known: Vec<(i64, i64, Option<i64>)> = self
            .gaps()
            .iter()
            .map(|g| {
                let (first, last) = self.span_of(&g.hole, old_before);
                (first, last, if g.done { Some(last) } else { g.upto })
            })
            .collect();
        let mut rows: Vec<IndexedRow> = self
            .gaps
            .take()
            .unwrap_or_default()
            .into_iter()
            .flat_map(|g| g.rows)
            .collect();
        self.before = before;
        let mut gaps = Vec::with_capacity(holes.len());
        for hole in holes {
            let (first, last) = self.span_of(&hole, before);
            let mut gap = Gap::new(hole);
            let (mine, rest): (Vec<_>, Vec<_>) = rows
                .into_iter()
                .partition(|r| r.record_time.is_some_and(|t| first <= t && t <= last));
            rows = rest;
            gap.rows = mine;
            let through = known
                .iter()
                .find(|(f, l, _)| *f <= first && first <= *l)
                .and_then(|(_, _, k)| *k)
                .filter(|k| *k >= first);
            match through {
                Some(k) if k >= last => gap.done = true,
                Some(k) => gap.upto = Some(k),
                None => gap.rows.clear(),
            }
            gaps.push(gap);
        }
        self.gaps = Some(gaps);
        // The reading starts again from what each gap lacks (the loader's range was stopped).
        self.reading = None;
        self.recount_bytes();
        self.end = if self.gaps().iter().all(|g| g.done) {
            Some(FillEnd::Done)
        } else {
            None
        };
    }

    /// Drops the scan's rows of these updates (the index lists them now); whether any was.
    pub fn forget(&mut self, ids: &std::collections::HashSet<&str>) -> bool {
        let mut gone = false;
        if let Some(gaps) = &mut self.gaps {
            for g in gaps.iter_mut() {
                let n = g.rows.len();
                g.rows.retain(|r| !ids.contains(r.update_id.as_str()));
                gone |= g.rows.len() != n;
            }
        }
        if gone {
            self.recount_bytes();
        }
        gone
    }

    /// Accounts again the bytes of every gap's rows (after rows were dropped or replaced).
    fn recount_bytes(&mut self) {
        self.bytes = self
            .gaps()
            .iter()
            .flat_map(|g| &g.rows)
            .map(row_bytes)
            .sum();
    }

    /// The next gap to read: the newest not read yet.
    fn next_gap(&self) -> Option<usize> {
        self.gaps().iter().rposition(|g| !g.done)
    }

    /// The walk over gap `g`: from its start (after the covered range before it, or from the
    /// list's start in the migration in force then) through its end (the covered range after
    /// it starts, or the loaded rows).
    fn ask_of(&self, g: &Gap, cx: &Ctx) -> Option<RangeAsk> {
        let (start, skip_before) = if let Some(t) = g.upto {
            let migration = cx
                .feed
                .migration_at(t)
                .or(g.hole.after.map(|a| a.migration_id))
                .or(cx.feed.migration)
                .unwrap_or(0);
            (At::new(migration, t.saturating_add(1)), t)
        } else if let Some(after) = g.hole.after {
            (
                At::new(after.migration_id, after.record_time.saturating_add(1)),
                after.record_time,
            )
        } else {
            let migration = cx
                .feed
                .migration_at(self.since)
                .or(cx.feed.migration)
                .unwrap_or(0);
            (At::new(migration, self.since), self.since)
        };
        let until = match (g.hole.through, self.before) {
            (Some(through), _) => through.record_time,
            (None, Some(b)) => b.saturating_sub(1),
            (None, None) => return None,
        };
        Some(RangeAsk {
            start,
            skip_before,
            until,
        })
    }

    /// Asks the loader for the next gap not read yet (newest first) when none is being read.
    pub fn pump(&mut self, cx: &mut Ctx) {
        if self.end.is_some() || self.gaps.is_none() || self.reading.is_some() {
            return;
        }
        loop {
            let Some(g) = self.next_gap() else {
                self.finish(cx);
                return;
            };
            if let Some(ask) = self.ask_of(&self.gaps()[g], cx) {
                self.reading = Some(g);
                cx.loader(LoaderIntent::ReadRange(ask));
                return;
            }
            // A gap with no end (the list reaches the head): nothing to read.
            if let Some(gaps) = &mut self.gaps {
                gaps[g].done = true;
            }
        }
    }

    fn finish(&mut self, cx: &mut Ctx) {
        self.end = Some(FillEnd::Done);
        self.reading = None;
        let rows = self.rows();
        if !self.gaps().is_empty() {
            cx.info(format!(
                "the local index's gaps read from the scan: {} update{} in {} page{}",
                group_thousands(rows),
                if rows == 1 { "" } else { "s" },
                self.pages,
                if self.pages == 1 { "" } else { "s" }
            ));
        }
    }

    /// The reply to one of this fill's requests (`None`: not one of them).
    pub fn on_reply(&mut self, reply: &Fetched, cx: &mut Ctx) -> Option<FillReply> {
        if let Some((id, before)) = self.asking
            && id == reply.id
        {
            self.asking = None;
            let answer = match reply.index_answer() {
                Ok(IndexAnswer::Holes(h)) => Ok(h),
                Ok(_) => Err(UNEXPECTED_INDEX_ANSWER.to_owned()),
                Err(e) => Err(e),
            };
            return Some(match answer {
                Ok(holes) if self.gaps.is_some() => {
                    if self.reading.is_some() {
                        cx.loader(LoaderIntent::StopRange);
                    }
                    self.merge(holes, before);
                    self.pump(cx);
                    FillReply::Merged
                }
                Ok(holes) => {
                    self.before = before;
                    self.gaps = Some(holes.into_iter().map(Gap::new).collect());
                    if self.gaps().is_empty() {
                        self.end = Some(FillEnd::Done);
                    }
                    FillReply::Gaps
                }
                Err(e) => {
                    self.end = Some(FillEnd::Failed);
                    cx.error(format!(
                        "History: what the local index lacks could not be read: {e}"
                    ));
                    FillReply::Nothing
                }
            });
        }
        None
    }

    /// What the loader's read of a gap brought ([`LoaderIntent::ReadRange`]).
    pub fn on_range(&mut self, event: RangeEvent, cx: &mut Ctx) -> FillReply {
        let Some(g) = self.reading else {
            return FillReply::Nothing;
        };
        match event {
            RangeEvent::Page { items, done, upto } => {
                self.pages = self.pages.saturating_add(1);
                self.take_rows(g, &items, done, upto);
                if done {
                    self.reading = None;
                }
                self.pump(cx);
                FillReply::Rows
            }
            RangeEvent::Budget { reached } => {
                self.reading = None;
                self.end = Some(FillEnd::Budget);
                if !std::mem::replace(&mut self.budget_said, true) {
                    cx.warn(format!(
                        "memory budget full ({} MiB): the index's gaps are read from the scan in part{} (history_memory_mib)",
                        cx.feed.memory_budget >> 20,
                        reached.map(|t| format!(", up to {t}")).unwrap_or_default()
                    ));
                }
                FillReply::Nothing
            }
            RangeEvent::Stuck(e) => {
                self.reading = None;
                self.end = Some(FillEnd::Failed);
                cx.error(format!(
                    "History: reading what the local index lacks from the scan failed: {e}"
                ));
                FillReply::Nothing
            }
        }
    }

    /// Keeps a page's updates in gap `g` (in the list's order, each once).
    fn take_rows(&mut self, g: usize, items: &[UpdateItem], done: bool, upto: Option<i64>) {
        let mut summarizer = Summarizer::default();
        let rows: Vec<IndexedRow> = items
            .iter()
            .filter_map(|item| {
                let row = summary_row(item, &mut summarizer)?;
                Some(IndexedRow::from_scan(row, RowDetail::of(item)))
            })
            .collect();
        let Some(gap) = self.gaps.as_mut().and_then(|gaps| gaps.get_mut(g)) else {
            return;
        };
        self.bytes += rows.iter().map(row_bytes).sum::<usize>();
        gap.rows.extend(rows);
        gap.rows.sort_by(|a, b| {
            (a.record_time, a.migration_id, &a.update_id).cmp(&(
                b.record_time,
                b.migration_id,
                &b.update_id,
            ))
        });
        gap.rows.dedup_by(|a, b| a.update_id == b.update_id);
        if done {
            gap.done = true;
        } else if let Some(t) = upto {
            gap.upto = Some(t);
        }
    }

    /// Says what the index lacks of a span, in words (for the status line), once known.
    pub fn describe(&self) -> Option<String> {
        let gaps = self.gaps.as_ref()?;
        if gaps.is_empty() {
            return None;
        }
        let first = gaps.first().map(|g| g.hole.after.map(|a| a.record_time));
        Some(format!(
            "the local index lacks {} range{} of the list{}: read from the scan",
            gaps.len(),
            if gaps.len() == 1 { "" } else { "s" },
            match first.flatten() {
                Some(t) => format!(" (the first after {})", format_time_micros(t)),
                None => String::new(),
            }
        ))
    }
}

#[cfg(test)]
impl ScanFill {
    /// A fill whose gaps are known, each with `rows` rows from the scan (tests).
    pub(crate) fn with_gaps(gaps: Vec<(Hole, usize)>) -> ScanFill {
        let row = |i: usize| super::row::scan_row(i64::try_from(i).unwrap_or(0), format!("s{i}"));
        ScanFill {
            since: 0,
            before: None,
            asking: None,
            gaps: Some(
                gaps.into_iter()
                    .map(|(hole, n)| Gap {
                        hole,
                        rows: (0..n).map(row).collect(),
                        done: true,
                        upto: None,
                    })
                    .collect(),
            ),
            reading: None,
            bytes: 0,
            pages: 0,
            end: Some(FillEnd::Done),
            budget_said: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(t: i64) -> IndexedRow {
        super::super::row::scan_row(t, format!("u{t}"))
    }

    fn hole(after: Option<i64>, through: Option<i64>) -> Hole {
        Hole {
            after: after.map(|t| At::new(0, t)),
            through: through.map(|t| At::new(0, t)),
            offset: 0,
        }
    }

    fn times(g: &Gap) -> Vec<i64> {
        g.rows.iter().filter_map(|r| r.record_time).collect()
    }

    #[test]
    fn asked_again_the_gaps_keep_what_the_scan_sent_and_read_on_only_where_it_did_not() {
        // The list up to 100 lacks 10..=20 and 51..100, both read.
        let mut f = ScanFill::with_gaps(Vec::new());
        f.before = Some(100);
        f.gaps = Some(vec![
            Gap {
                rows: (10..=20).map(row).collect(),
                done: true,
                ..Gap::new(hole(Some(9), Some(20)))
            },
            Gap {
                rows: (51..100).map(row).collect(),
                done: true,
                ..Gap::new(hole(Some(50), None))
            },
        ]);
        // A sync wrote 14..=16; the loaded rows start at 200 now.
        f.merge(
            vec![
                hole(Some(9), Some(13)),
                hole(Some(16), Some(20)),
                hole(Some(50), None),
            ],
            Some(200),
        );
        let g = f.gaps();
        assert_eq!(g.len(), 3);
        assert_eq!(times(&g[0]), (10..=13).collect::<Vec<_>>());
        assert_eq!(times(&g[1]), (17..=20).collect::<Vec<_>>());
        assert!(g[0].done && g[1].done, "read before: not read again");
        // The last grew: read on after what the scan sent.
        assert_eq!(times(&g[2]), (51..100).collect::<Vec<_>>());
        assert!(!g[2].done);
        assert_eq!(g[2].upto, Some(99));
        assert!(f.running());
        assert_eq!(f.rows(), 4 + 4 + 49);
        assert_eq!(f.gap_at(150), Some(2));
        assert_eq!(f.gap_at(15), None, "the index holds it now");
    }
}
