//! Walking `/v2/updates` page by page between two points, as a pure state machine shared by
//! `scan updates --all` (headless, async) and the History pane's export from the server (driven
//! by fetch effects): the request for the next page, what of a page is inside the range, where
//! the next page starts, and when the walk is over. It makes progress or stops: a page whose
//! cursor does not move forward is an error ("the scan returned the same page twice").

use crate::api::scan::{UpdateItem, UpdatesAfter, UpdatesPage, UpdatesRequest, ValueEncoding};

use super::format::{format_time_micros, parse_time_micros};

/// The message when a page does not move the cursor.
pub const SAME_PAGE: &str =
    "the scan returned the same page twice (its cursor did not move forward)";

/// A walk over the history from a cursor (`None`: ledger begin) up to an inclusive time.
#[derive(Debug, Clone, PartialEq)]
pub struct PageWalk {
    cursor: Option<UpdatesAfter>,
    /// Inclusive upper bound of record times (µs).
    until: Option<i64>,
    /// Inclusive lower bound of record times (µs): items before it are skipped.
    from: Option<i64>,
    page_size: i32,
    encoding: ValueEncoding,
    done: bool,
}

/// What to do with a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageTake {
    /// The items `skip..keep` are inside the range (in order).
    pub skip: usize,
    pub keep: usize,
    /// The walk is over (an empty or short-of-range page, or past `until`).
    pub done: bool,
}

/// The cursor that starts a walk at `micros` in `migration` (inclusive: `after` is exclusive,
/// so one microsecond earlier).
pub fn cursor_at(migration: i64, micros: i64) -> UpdatesAfter {
    UpdatesAfter {
        after_migration_id: migration,
        after_record_time: format_time_micros(micros.saturating_sub(1)),
    }
}

/// `(migration, µs)` of a cursor.
pub fn cursor_position(c: &UpdatesAfter) -> (i64, Option<i64>) {
    (
        c.after_migration_id,
        parse_time_micros(&c.after_record_time),
    )
}

impl PageTake {
    /// The items of the page inside the range.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.skip..self.keep
    }
}

impl PageWalk {
    /// A walk from `cursor` (exclusive) up to `until` (inclusive, µs).
    pub fn new(cursor: Option<UpdatesAfter>, until: Option<i64>, page_size: i32) -> PageWalk {
        PageWalk {
            cursor,
            until,
            from: None,
            page_size,
            encoding: ValueEncoding::CompactJson,
            done: false,
        }
    }

    /// The same walk asking for another value encoding.
    #[must_use]
    pub fn with_encoding(mut self, encoding: ValueEncoding) -> PageWalk {
        self.encoding = encoding;
        self
    }

    /// The same walk skipping items recorded before `micros`: for a cursor that may be in an
    /// older migration than `micros` (after its last update the scan goes on with the next
    /// migration from its first update, which can be earlier than `micros`).
    #[must_use]
    pub fn from_time(mut self, micros: i64) -> PageWalk {
        self.from = Some(micros);
        self
    }

    /// Where the next page starts (`None`: ledger begin).
    pub fn cursor(&self) -> Option<&UpdatesAfter> {
        self.cursor.as_ref()
    }

    /// Whether the walk is over.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The request for the next page.
    pub fn request(&self) -> UpdatesRequest {
        let mut request = match &self.cursor {
            Some(c) => {
                UpdatesRequest::after(self.page_size, c.after_migration_id, &c.after_record_time)
            }
            None => UpdatesRequest::from_begin(self.page_size),
        };
        request.encoding = self.encoding.clone();
        request
    }

    /// Takes the answer to [`PageWalk::request`]: which items are in range, and whether the walk
    /// goes on (the cursor moves to the last item of the page). An error when the page cannot
    /// move the cursor forward.
    pub fn on_page(&mut self, page: &UpdatesPage) -> Result<PageTake, String> {
        self.on_items(&page.transactions, page.next_after())
    }

    fn on_items(
        &mut self,
        items: &[UpdateItem],
        next: Option<UpdatesAfter>,
    ) -> Result<PageTake, String> {
        if items.is_empty() {
            self.done = true;
            return Ok(PageTake {
                skip: 0,
                keep: 0,
                done: true,
            });
        }
        let time = |i: &UpdateItem| i.record_time().and_then(parse_time_micros);
        // Items are in ledger order; those before `from` come first.
        let skip = self.from.map_or(0, |from| {
            items
                .iter()
                .take_while(|i| time(i).is_some_and(|t| t < from))
                .count()
        });
        if let Some(until) = self.until
            && let Some(cut) = items
                .iter()
                .position(|i| time(i).is_some_and(|t| t > until))
        {
            self.done = true;
            return Ok(PageTake {
                skip: skip.min(cut),
                keep: cut,
                done: true,
            });
        }
        let Some(next) = next else {
            return Err(
                "no update of the page has a migration id and record time to continue from"
                    .to_owned(),
            );
        };
        let moved = match &self.cursor {
            None => true,
            Some(c) => cursor_position(&next) > cursor_position(c),
        };
        if !moved {
            return Err(SAME_PAGE.to_owned());
        }
        self.cursor = Some(next);
        Ok(PageTake {
            skip,
            keep: items.len(),
            done: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn page(times: &[&str]) -> UpdatesPage {
        let items: Vec<serde_json::Value> = times
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut v =
                    crate::model::fixtures::transaction(&format!("1220{i:064x}"), 0, vec![]);
                v["migration_id"] = json!(1);
                v["record_time"] = json!(t);
                v
            })
            .collect();
        serde_json::from_value(json!({ "transactions": items })).expect("page")
    }

    #[test]
    fn a_walk_moves_page_by_page_and_stops_past_until() {
        let until = parse_time_micros("2026-11-22T10:00:03Z");
        let mut w = PageWalk::new(
            Some(cursor_at(
                1,
                parse_time_micros("2026-11-22T10:00:00Z").unwrap_or(0),
            )),
            until,
            2,
        );
        assert_eq!(
            w.request().after.map(|a| a.after_record_time),
            Some("2026-11-22T09:59:59.999999Z".to_owned())
        );
        let take = |w: &mut PageWalk, times: &[&str], keep, done| {
            let t = w.on_page(&page(times)).expect("moves");
            assert_eq!(
                t,
                PageTake {
                    skip: 0,
                    keep,
                    done
                },
                "{times:?}"
            );
        };
        take(
            &mut w,
            &["2026-11-22T10:00:01Z", "2026-11-22T10:00:02Z"],
            2,
            false,
        );
        assert_eq!(
            w.cursor().map(|c| c.after_record_time.as_str()),
            Some("2026-11-22T10:00:02Z")
        );
        take(
            &mut w,
            &["2026-11-22T10:00:03Z", "2026-11-22T10:00:04Z"],
            1,
            true,
        );
        assert!(w.is_done());
    }

    #[test]
    fn a_page_that_does_not_move_is_an_error_and_an_empty_one_ends() {
        let mut w = PageWalk::new(None, None, 2);
        w.on_page(&page(&["2026-11-22T10:00:01Z"])).expect("first");
        assert_eq!(
            w.on_page(&page(&["2026-11-22T10:00:01Z"])),
            Err(SAME_PAGE.to_owned())
        );
        assert_eq!(
            w.on_page(&page(&[])),
            Ok(PageTake {
                skip: 0,
                keep: 0,
                done: true
            })
        );
    }

    /// A cursor in an older migration than `from`: the scan goes on with the next migration
    /// from its first update; what it holds before `from` is skipped, the rest kept.
    #[test]
    fn items_before_from_are_skipped() {
        let from = parse_time_micros("2026-11-22T10:00:02Z").unwrap_or(0);
        let mut w = PageWalk::new(Some(cursor_at(0, from)), None, 4).from_time(from);
        let t = w
            .on_page(&page(&[
                "2026-11-22T10:00:00Z",
                "2026-11-22T10:00:01Z",
                "2026-11-22T10:00:02Z",
                "2026-11-22T10:00:03Z",
            ]))
            .expect("moves");
        assert_eq!(t.range(), 2..4);
        assert!(!t.done);
        let t = w.on_page(&page(&["2026-11-22T10:00:04Z"])).expect("moves");
        assert_eq!(t.range(), 0..1);
    }
}
