//! One list read from the local index a page at a time, shared by History's timeline (its rows
//! older than the loaded window, [`super::Timeline`]) and History's whole-history search (`F`): the pages read (at most a given number kept, the ones farthest
//! from the selection leave first), the one read in flight (latest request wins), the rows the
//! screen needs and does not have, the list's length (the index's count, or the rows read so
//! far) and the cursor over it. What a page's read asks is the owner's (a keyset bound from a
//! neighbouring page, a time to locate); the answer is the same for both.

use std::ops::Range;

use crate::model::index::SearchRow;
use crate::model::index::read::{IndexAnswer, RangeFrom, RangeKey, RowDetail};
use crate::model::scroll::ScrollState;
use crate::msg::{Fetched, RequestId, UNEXPECTED_INDEX_ANSWER};

/// A list of rows read from the index in pages of `page_size`.
#[derive(Debug, Clone)]
pub struct PagedList<R> {
    page_size: usize,
    /// Pages kept at most.
    kept_pages: usize,
    /// The list's length once counted.
    total: Option<u64>,
    /// Pages read (page number, rows).
    pages: Vec<(usize, Vec<R>)>,
    /// The read in flight and its page.
    pending: Option<(RequestId, usize)>,
    /// Why the last read failed.
    error: Option<String>,
    pub scroll: ScrollState,
}

/// What a page's answer brought besides its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageReply {
    pub page: usize,
    /// Rows in the page.
    pub rows: usize,
    /// The list's length, when counted.
    pub total: Option<u64>,
    /// How many of its rows are events with a verdict and no update, when counted.
    pub verdict_only: Option<u64>,
    /// The row number of the time asked to locate.
    pub located: Option<u64>,
    /// Where the rows counted end, when counted.
    pub end: Option<i64>,
}

impl<R> PagedList<R> {
    pub fn new(page_size: usize, kept_pages: usize) -> Self {
        PagedList {
            page_size: page_size.max(1),
            kept_pages: kept_pages.max(1),
            total: None,
            pages: Vec::new(),
            pending: None,
            error: None,
            scroll: ScrollState::new(0),
        }
    }

    /// The list's length, once counted.
    pub fn total(&self) -> Option<u64> {
        self.total
    }

    /// The selected row number.
    pub fn cursor(&self) -> usize {
        self.scroll.cursor()
    }

    /// Rows held in memory now.
    pub fn rows_held(&self) -> usize {
        self.pages.iter().map(|(_, rows)| rows.len()).sum()
    }

    /// The rows of `page`, when kept.
    pub fn page(&self, page: usize) -> Option<&[R]> {
        self.pages
            .iter()
            .find(|(p, _)| *p == page)
            .map(|(_, rows)| rows.as_slice())
    }

    /// Row `i`, when its page is kept.
    pub fn row(&self, i: usize) -> Option<&R> {
        self.page(i / self.page_size)
            .and_then(|rows| rows.get(i % self.page_size))
    }

    /// The selected row, when read.
    pub fn selected(&self) -> Option<&R> {
        self.row(self.scroll.cursor())
    }

    /// Whether a page is being read.
    pub fn is_loading(&self) -> bool {
        self.pending.is_some()
    }

    /// Why the last read failed.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The first page of `rows` not kept (none while a read is in flight).
    pub fn missing_in(&self, rows: Range<usize>) -> Option<usize> {
        if self.pending.is_some() || rows.is_empty() {
            return None;
        }
        let first = rows.start / self.page_size;
        let last = (rows.end - 1) / self.page_size;
        (first..=last).find(|p| self.page(*p).is_none())
    }

    /// Where a read of `page` starts: right after the last row of the page before it when
    /// that page is kept and full, else right before the first row of the page after it when
    /// kept, else (no neighbouring page to take a bound from: the first page, a jump) by row
    /// number. `key` gives a row's place (`None`: a row that cannot bound a read).
    pub fn bound(&self, page: usize, key: impl Fn(&R) -> Option<RangeKey>) -> RangeFrom {
        let after = page
            .checked_sub(1)
            .and_then(|p| self.page(p))
            .filter(|rows| rows.len() == self.page_size)
            .and_then(|rows| rows.last())
            .and_then(&key);
        if let Some(k) = after {
            return RangeFrom::After(k);
        }
        let before = self
            .page(page + 1)
            .and_then(|rows| rows.first())
            .and_then(&key);
        match before {
            Some(k) => RangeFrom::Before(k),
            None => RangeFrom::Offset(page * self.page_size),
        }
    }

    /// Drops the pages read (the list changed under them: rows were written among them, so a
    /// page read after a kept one may stand at the wrong row numbers); they are read again, by
    /// row number, as the screen needs them.
    pub fn forget_pages(&mut self) {
        self.pages.clear();
    }

    /// Drops the pages cut short by the end of the rows counted before (the last page, read
    /// up to that end) that do not end the list of `total` rows now: the list grew past them.
    pub fn drop_short_pages(&mut self, total: usize) {
        let size = self.page_size;
        self.pages
            .retain(|(p, rows)| rows.len() == size || p * size + rows.len() == total);
    }

    /// A read of `page` was sent as `id` (the one before it no longer counts).
    pub fn sent(&mut self, id: RequestId, page: usize) {
        self.pending = Some((id, page));
    }

    fn keep(&mut self, page: usize, rows: Vec<R>) {
        self.pages.retain(|(p, _)| *p != page);
        self.pages.push((page, rows));
        let here = self.scroll.cursor() / self.page_size;
        while self.pages.len() > self.kept_pages {
            let far = self
                .pages
                .iter()
                .enumerate()
                .max_by_key(|(_, (p, _))| p.abs_diff(here))
                .map(|(i, _)| i);
            match far {
                Some(i) => {
                    self.pages.swap_remove(i);
                }
                None => break,
            }
        }
    }

    /// The answer to a read: `None` when it is not this list's read in flight; else the page
    /// is kept (its rows made with `row` from the summary row and its detail) and what it brought is returned, or why it failed.
    pub fn accept(
        &mut self,
        reply: &Fetched,
        row: impl Fn(SearchRow, Option<RowDetail>) -> R,
    ) -> Option<Result<PageReply, String>> {
        let (id, page) = self.pending?;
        if id != reply.id {
            return None;
        }
        self.pending = None;
        let answer = reply.index_answer();
        let (rows, details, (total, verdict_only), (located, end)) = match answer {
            Ok(IndexAnswer::Range(p)) => (
                p.rows,
                p.details,
                (p.total, p.verdict_only),
                (p.located, p.end),
            ),
            Ok(IndexAnswer::Search(p)) => (p.rows, Vec::new(), (p.total, None), (None, None)),
            Ok(_) => {
                let e = UNEXPECTED_INDEX_ANSWER.to_owned();
                self.error = Some(e.clone());
                return Some(Err(e));
            }
            Err(e) => {
                self.error = Some(e.clone());
                return Some(Err(e));
            }
        };
        self.error = None;
        if total.is_some() {
            self.total = total;
        }
        let n = rows.len();
        let mut details = details.into_iter();
        let made = rows
            .into_iter()
            .map(|r| row(r, details.next().flatten()))
            .collect();
        self.keep(page, made);
        Some(Ok(PageReply {
            page,
            rows: n,
            total,
            verdict_only,
            located,
            end,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::index::read::{IndexRead, RangePage};
    use crate::msg::{Owner, Request, Response};

    fn id(seq: u64) -> RequestId {
        RequestId::new(Owner::Timeline, seq)
    }

    fn row(n: usize) -> SearchRow {
        SearchRow {
            record_time: "2026-11-27T10:00:00Z".into(),
            update_id: format!("u{n}"),
            migration_id: 0,
            kind: "transaction".into(),
            root_action: String::new(),
            parties: Vec::new(),
        }
    }

    fn reply(seq: u64, page: usize, total: u64) -> Fetched {
        let rows = (page * 10..page * 10 + 10).map(row).collect();
        Fetched {
            id: id(seq),
            request: Request::Index(IndexRead::Reach { now: 0 }),
            result: Ok(Response::Index(Box::new(Ok(IndexAnswer::Range(
                RangePage {
                    offset: page * 10,
                    rows,
                    total: Some(total),
                    verdict_only: None,
                    located: None,
                    end: None,
                    details: vec![
                        Some(RowDetail {
                            events: 3,
                            synchronizer: "global".into(),
                        });
                        10
                    ],
                },
            ))))),
            elapsed_ms: 0,
        }
    }

    #[test]
    fn only_the_read_in_flight_is_kept_and_the_farthest_pages_leave_first() {
        let mut list: PagedList<(String, Option<u32>)> = PagedList::new(10, 3);
        let make = |r: SearchRow, d: Option<RowDetail>| (r.update_id, d.map(|d| d.events));
        list.sent(id(1), 0);
        // A reply to another read is not this list's.
        assert!(list.accept(&reply(7, 0, 100), make).is_none());
        let got = list
            .accept(&reply(1, 0, 100), make)
            .expect("ours")
            .expect("ok");
        assert_eq!((got.page, got.rows, got.total), (0, 10, Some(100)));
        assert_eq!(list.row(3), Some(&("u3".to_owned(), Some(3))));
        list.scroll.set_len(100);
        for page in 1..6 {
            assert_eq!(list.missing_in(page * 10..(page + 1) * 10), Some(page));
            list.sent(id(10 + page as u64), page);
            assert_eq!(list.missing_in(0..100), None, "one read at a time");
            list.scroll.select(page * 10);
            list.accept(&reply(10 + page as u64, page, 100), make);
        }
        // Three pages kept: the ones around the selection (page 5).
        assert_eq!(list.rows_held(), 30);
        assert!(list.row(0).is_none(), "the farthest page left");
        assert_eq!(list.row(55).map(|r| r.0.as_str()), Some("u55"));
        assert_eq!(list.missing_in(0..10), Some(0));
    }

    #[test]
    fn a_page_is_read_after_or_before_a_kept_neighbour_else_by_row_number() {
        let mut list: PagedList<SearchRow> = PagedList::new(10, 8);
        let key = |r: &SearchRow| {
            Some(RangeKey {
                migration_id: r.migration_id,
                record_time: crate::model::format::parse_time_micros(&r.record_time)?,
                update_id: r.update_id.clone(),
            })
        };
        let at = |id: &str| RangeKey {
            migration_id: 0,
            record_time: crate::model::format::parse_time_micros("2026-11-27T10:00:00Z")
                .expect("t"),
            update_id: id.into(),
        };
        // Nothing kept: by row number (the first page, a jump).
        assert_eq!(list.bound(0, key), RangeFrom::Offset(0));
        assert_eq!(list.bound(40, key), RangeFrom::Offset(400));
        list.scroll.set_len(1000);
        list.scroll.select(400);
        list.sent(id(1), 40);
        list.accept(&reply(1, 40, 1000), |r, _| r)
            .expect("ours")
            .expect("ok");
        // After the kept page's last row, before its first row.
        assert_eq!(list.bound(41, key), RangeFrom::After(at("u409")));
        assert_eq!(list.bound(39, key), RangeFrom::Before(at("u400")));
        assert_eq!(list.bound(42, key), RangeFrom::Offset(420));
    }
}
