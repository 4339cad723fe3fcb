//! The timeline's pure tests: the index's rows, the scan's rows of its gaps and the loaded
//! rows as one list.
use super::*;
use crate::model::index::read::Hole;

#[test]
fn the_scans_rows_take_their_places_among_the_index_rows_in_one_scroll() {
    let hole = |after: Option<(i64, i64)>, offset: u64| Hole {
        after: after.map(crate::model::position::At::from),
        through: None,
        offset,
    };
    let mut r = Timeline::new(0, Some(1_000), Land::Loaded);
    r.list.scroll.set_len(10);
    r.fill = Some(ScanFill::with_gaps(vec![
        (hole(None, 0), 2),
        (hole(Some((0, 50)), 4), 3),
        (hole(Some((0, 90)), 10), 1),
    ]));
    r.sync(2, 1);
    // The scan's 2, index 0–3, the scan's 3, index 4–9, the scan's 1, the loaded 2.
    let want = [
        Place::Scan(0, 0),
        Place::Scan(0, 1),
        Place::Index(0),
        Place::Index(1),
        Place::Index(2),
        Place::Index(3),
        Place::Scan(1, 0),
        Place::Scan(1, 1),
        Place::Scan(1, 2),
        Place::Index(4),
        Place::Index(5),
        Place::Index(6),
        Place::Index(7),
        Place::Index(8),
        Place::Index(9),
        Place::Scan(2, 0),
        Place::Loaded(0),
        Place::Loaded(1),
    ];
    for (j, place) in want.iter().enumerate() {
        assert_eq!(r.place(j), *place, "row {j}");
        assert_eq!(r.joint_of(*place), j, "{place:?}");
    }
    assert_eq!(r.above(), 16);
    // The selection stayed on the loaded row selected; on a scan row it stays there as
    // the list is brought in step again.
    assert_eq!(r.cursor(), 17);
    assert!(!r.in_index());
    r.joint.select(7);
    r.settle();
    assert!(r.in_index());
    r.sync(2, 1);
    assert_eq!(r.cursor(), 7);
    assert_eq!(r.selected().map(|row| row.update_id.as_str()), Some("s1"));
    assert!(r.selected().is_some_and(|row| row.from_scan));
}

// ---------------------------------------------------------------------------------------------
// The timeline driven as the app drives it, against an index and a scan held here
// ---------------------------------------------------------------------------------------------

use serde_json::json;

use crate::api::ApiError;
use crate::feed::loader::{Ctx as LoaderCtx, Loader, LoaderOut};
use crate::model::format::format_time_micros;
use crate::model::history::Placement;
use crate::model::index::SearchRow;
use crate::model::index::read::{IndexAnswer, RangeFrom, RangePage};
use crate::msg::Response;

const SEC: i64 = 1_000_000;
/// 2026-11-22T10:00:00Z
const T0: i64 = 1_795_341_600 * SEC;

fn time(i: i64) -> i64 {
    T0 + i * SEC
}

fn update_id(i: i64) -> String {
    format!("1220{i:064x}")
}

fn item(i: i64) -> serde_json::Value {
    let mut v = crate::model::fixtures::transaction(&update_id(i), 0, vec![]);
    v["migration_id"] = json!(0);
    v["record_time"] = json!(format_time_micros(time(i)));
    v
}

/// The timeline with what it reads, a local index that keeps updates `0..kept` (in one chunk
/// from the ledger's begin) and a scan that serves every update `0..all`, of which
/// `loaded..all` are the loaded window; the loader reads the gaps (its range job) as the app
/// runs it.
struct Rig {
    timeline: Timeline,
    loader: Loader,
    /// What the timeline asked the loader and it has not run yet.
    intents: Vec<LoaderIntent>,
    history: History,
    feed: Feed,
    ids: RequestIds,
    now: i64,
    pending: Vec<(RequestId, Request)>,
    notes: Vec<(Note, String)>,
    kept: i64,
    all: i64,
    /// Every request answered, in order.
    asked: Vec<Request>,
}

impl Rig {
    fn new(kept: i64, loaded: i64, all: i64) -> Rig {
        let mut history = History::default();
        let items: Vec<_> = (loaded..all)
            .map(|i| crate::model::fixtures::item(&item(i)))
            .collect();
        history.add_page(&items, Placement::Append);
        let mut feed = Feed::default();
        feed.memory_budget = 64 << 20;
        let mut loader = Loader::new(1_000);
        loader.set_memory_budget_bytes(feed.memory_budget);
        let mut rig = Rig {
            timeline: Timeline::new(0, None, Land::Last),
            loader,
            intents: Vec::new(),
            history,
            feed,
            ids: RequestIds::default(),
            now: time(all),
            pending: Vec::new(),
            notes: Vec::new(),
            kept,
            all,
            asked: Vec::new(),
        };
        let loaded_rows = (rig.history.len(), rig.history.len().saturating_sub(1));
        rig.timeline = rig.step(|_, cx| {
            Timeline::open(
                time(0),
                Land::Last,
                true,
                30,
                loaded_rows,
                Some(u64::try_from(kept).unwrap_or(0)),
                cx,
            )
        });
        rig
    }

    fn step<T>(&mut self, f: impl FnOnce(&mut Timeline, &mut Ctx) -> T) -> T {
        let mut out = TimelineOut::default();
        let mut cx = Ctx {
            now: self.now,
            history: &self.history,
            feed: &self.feed,
            ids: &mut self.ids,
            out: &mut out,
        };
        let got = f(&mut self.timeline, &mut cx);
        self.pending.extend(out.fetches);
        self.notes.extend(out.notes);
        self.intents.extend(out.loader);
        got
    }

    /// Runs the loader as the app does: the intents the timeline queued, a reply, what is due;
    /// hands what the range read brought to the timeline.
    fn run_loader(&mut self, reply: Option<&Fetched>) {
        let mut lo = LoaderOut::default();
        {
            let mut cx = LoaderCtx {
                now: self.now,
                history: &mut self.history,
                feed: &mut self.feed,
                ids: &mut self.ids,
                held: self.timeline.scan_bytes(),
                out: &mut lo,
            };
            for intent in std::mem::take(&mut self.intents) {
                self.loader.intent(intent, &mut cx);
            }
            if let Some(reply) = reply {
                self.loader.on_reply(reply, &mut cx);
            }
            self.loader
                .pump(crate::feed::loader::Demand::default(), &mut cx);
        }
        self.pending.extend(
            lo.fetches
                .into_iter()
                .map(|(id, page)| (id, page.request())),
        );
        self.notes.extend(lo.notes);
        if !lo.range.is_empty() {
            let loaded = self.loaded();
            self.step(|t, cx| t.on_range(lo.range, loaded, cx));
        }
    }

    fn loaded(&self) -> (usize, usize) {
        (self.history.len(), 0)
    }

    fn index_row(&self, i: i64) -> SearchRow {
        SearchRow {
            record_time: format_time_micros(time(i)),
            update_id: update_id(i),
            migration_id: 0,
            kind: "transaction".into(),
            root_action: String::new(),
            parties: Vec::new(),
        }
    }

    /// What the index or the scan answers to `request`.
    fn answer_of(&self, request: &Request) -> Result<Response, ApiError> {
        let index = |a: IndexAnswer| Ok(Response::Index(Box::new(Ok(a))));
        match request {
            Request::Index(IndexRead::Holes { since, before }) => {
                let last = time(self.kept - 1);
                let holes = if before.is_none_or(|b| b > last + 1) {
                    vec![crate::model::index::read::Hole {
                        after: Some(crate::model::position::At::new(0, last)),
                        through: None,
                        offset: u64::try_from(self.kept).unwrap_or(0),
                    }]
                } else {
                    Vec::new()
                };
                assert!(*since <= time(0));
                index(IndexAnswer::Holes(holes))
            }
            Request::Index(IndexRead::Range {
                since,
                before,
                from,
                limit,
                count,
                locate,
                ..
            }) => {
                let mut list: Vec<i64> = (0..self.kept)
                    .filter(|i| time(*i) >= *since && before.is_none_or(|b| time(*i) < b))
                    .collect();
                let end =
                    count.then(|| before.unwrap_or(list.last().map_or(*since, |i| time(*i) + 1)));
                let at = |key: &crate::model::index::read::RangeKey| {
                    list.iter()
                        .position(|i| time(*i) == key.record_time)
                        .expect("a key of the list")
                };
                let start = match from {
                    RangeFrom::Offset(n) => *n,
                    RangeFrom::After(key) => at(key) + 1,
                    RangeFrom::Before(key) => at(key).saturating_sub(*limit),
                    RangeFrom::FromEnd { before: b, skip } => {
                        list.retain(|i| time(*i) < *b);
                        list.len().saturating_sub(skip + limit)
                    }
                };
                let rows: Vec<SearchRow> = list
                    .iter()
                    .skip(start)
                    .take(*limit)
                    .map(|i| self.index_row(*i))
                    .collect();
                let n = rows.len();
                index(IndexAnswer::Range(RangePage {
                    offset: start,
                    rows,
                    total: count.then(|| list.len() as u64),
                    verdict_only: count.then_some(0),
                    located: locate.map(|t| list.iter().filter(|i| time(**i) < t).count() as u64),
                    end,
                    details: vec![None; n],
                }))
            }
            // A page of `/v2/updates` from after the index's newest update: the scan sends
            // everything it has after it, the loaded window too.
            Request::History { .. } => {
                let items: Vec<_> = (self.kept..self.all).map(item).collect();
                let page: crate::api::scan::UpdatesPage =
                    serde_json::from_value(json!({ "transactions": items })).expect("a page");
                Ok(Response::from(page))
            }
            other => panic!("the timeline asked {other:?}"),
        }
    }

    /// Answers every request until none is left, the clock moving on while the loader paces
    /// its pages.
    fn settle(&mut self) {
        let mut guard = 0;
        loop {
            guard += 1;
            assert!(guard < 100, "the timeline keeps asking");
            self.run_loader(None);
            if self.pending.is_empty() {
                self.now += SEC;
                self.run_loader(None);
                if self.pending.is_empty() {
                    return;
                }
            }
            let (id, request) = self.pending.remove(0);
            self.asked.push(request.clone());
            let reply = Fetched {
                id,
                result: self.answer_of(&request),
                request,
                elapsed_ms: 0,
            };
            if id.owner == Owner::Loader {
                self.run_loader(Some(&reply));
            } else {
                let loaded = self.loaded();
                self.step(|t, cx| t.on_reply(&reply, loaded, cx));
            }
        }
    }

    /// The update ids of the one list, row by row (the loaded rows from the history).
    fn listed(&self) -> Vec<String> {
        let t = &self.timeline;
        let total = usize::try_from(t.total().expect("counted")).expect("a length");
        (0..total)
            .map(|j| match t.place(j) {
                Place::Loaded(l) => self.history.get(l).expect("loaded").update_id().to_string(),
                _ => t.row(j).expect("read").update_id.clone(),
            })
            .collect()
    }
}

#[test]
fn the_index_the_scans_gap_and_the_loaded_window_list_every_update_exactly_once() {
    // The index keeps 0..10, the scan fills 10..15, 15..20 are loaded.
    let mut rig = Rig::new(10, 15, 20);
    rig.settle();
    // The next pace step finds no gap left to read.
    rig.now += SEC;
    rig.step(Timeline::pump);
    let want: Vec<String> = (0..20).map(update_id).collect();
    assert_eq!(rig.listed(), want);
    let t = &rig.timeline;
    assert_eq!(t.index_rows(), Some(10));
    assert_eq!(
        t.scan_rows(),
        5,
        "the scan's rows stop where the loaded ones start"
    );
    assert_eq!(t.fill().and_then(ScanFill::end), Some(&FillEnd::Done));
    assert!((0..10).all(|j| matches!(t.place(j), Place::Index(_))));
    assert!((10..15).all(|j| matches!(t.place(j), Place::Scan(0, _))));
    assert!((15..20).all(|j| matches!(t.place(j), Place::Loaded(_))));
    assert!(
        rig.notes.iter().any(|(_, n)| n.contains("lacks 1 range")),
        "says what the index lacks: {:?}",
        rig.notes
    );
}

#[test]
fn a_sync_writing_into_the_gap_keeps_every_row_number_and_each_update_once() {
    let mut rig = Rig::new(10, 15, 20);
    rig.settle();
    // The user is on update 13, a row the scan sent.
    rig.timeline.joint.select(13);
    rig.timeline.settle();
    assert_eq!(
        rig.timeline.selected().map(|r| r.update_id.clone()),
        Some(update_id(13))
    );
    let before = rig.listed();
    // A sync writes 10..13 into the index: the timeline sees its count move.
    rig.kept = 13;
    let loaded = rig.loaded();
    rig.step(|t, cx| t.follow_loaded(loaded, Some(13), cx));
    rig.settle();
    assert_eq!(
        rig.listed(),
        before,
        "every update at the same row number, once"
    );
    let t = &rig.timeline;
    assert_eq!(t.index_rows(), Some(13));
    assert_eq!(
        t.scan_rows(),
        2,
        "the scan's rows of what the index holds now went"
    );
    assert_eq!(t.cursor(), 13, "the selection stayed on its row");
    assert_eq!(
        t.selected().map(|r| r.update_id.clone()),
        Some(update_id(13))
    );
}

#[test]
fn the_scans_rows_wait_for_room_in_the_memory_budget_and_the_list_still_counts_right() {
    let mut rig = Rig::new(10, 15, 20);
    // The loaded rows already fill the budget: nothing is asked of the scan.
    let full = rig.history.memory_bytes();
    rig.loader.set_memory_budget_bytes(full);
    rig.feed.memory_budget = full;
    rig.settle();
    let t = &rig.timeline;
    assert_eq!(t.fill().and_then(ScanFill::end), Some(&FillEnd::Budget));
    assert_eq!(t.scan_rows(), 0);
    assert_eq!(t.fill().map(ScanFill::pages), Some(0));
    assert_eq!(t.total(), Some(15), "the index's 10 and the loaded 5");
    let warned: Vec<_> = rig
        .notes
        .iter()
        .filter(|(level, n)| *level == Note::Warn && n.contains("memory budget full"))
        .collect();
    assert_eq!(warned.len(), 1, "said once: {:?}", rig.notes);
    // The index's rows are held a page cache at a time, whatever the span.
    assert!(t.rows_held() <= KEPT_PAGES * RANGE_PAGE);
}

#[test]
fn the_last_rows_of_a_long_list_are_read_from_its_end_and_the_first_from_its_start() {
    // 1,000 updates in the index (five pages) above 10 loaded: landing on the newest reads
    // the last page counted from the list's end (not OFFSET 800 from its start).
    let mut rig = Rig::new(1_000, 1_000, 1_010);
    rig.settle();
    let ranges = |asked: &[Request]| -> Vec<(RangeFrom, usize)> {
        asked
            .iter()
            .filter_map(|r| match r {
                Request::Index(IndexRead::Range { from, limit, .. }) => {
                    Some((from.clone(), *limit))
                }
                _ => None,
            })
            .collect()
    };
    let before = Some(time(1_000));
    assert_eq!(rig.timeline.before, before);
    assert!(
        ranges(&rig.asked).contains(&(
            RangeFrom::FromEnd {
                before: time(1_000),
                skip: 0
            },
            RANGE_PAGE
        )),
        "{:?}",
        ranges(&rig.asked)
    );
    let last = rig.timeline.row(999).expect("the newest row read");
    assert_eq!(last.update_id, update_id(999));
    assert_eq!(
        rig.timeline.row(800).map(|r| r.update_id.clone()),
        Some(update_id(800))
    );
    // A jump to the middle's near side (page 3 of 5) reads from the end too, skipping the
    // last page: rows 600..800; the first page from the start.
    rig.asked.clear();
    rig.timeline.list.forget_pages();
    rig.step(|t, cx| t.read(3, false, None, cx));
    rig.settle();
    assert_eq!(
        ranges(&rig.asked)[0],
        (
            RangeFrom::FromEnd {
                before: time(1_000),
                skip: 200
            },
            RANGE_PAGE
        )
    );
    assert_eq!(
        rig.timeline.row(600).map(|r| r.update_id.clone()),
        Some(update_id(600))
    );
    assert_eq!(
        rig.timeline.row(799).map(|r| r.update_id.clone()),
        Some(update_id(799))
    );
    rig.asked.clear();
    rig.timeline.list.forget_pages();
    rig.step(|t, cx| t.read(1, false, None, cx));
    rig.settle();
    assert_eq!(ranges(&rig.asked)[0], (RangeFrom::Offset(200), RANGE_PAGE));
    assert_eq!(
        rig.timeline.row(200).map(|r| r.update_id.clone()),
        Some(update_id(200))
    );
}

#[test]
fn a_list_with_nothing_loaded_is_read_from_the_end_of_the_rows_counted() {
    // 1,000 updates in the index and none loaded (offline over an index without bodies): the
    // list ends where the rows counted end, and its last page is read from there.
    let mut rig = Rig::new(1_000, 1_000, 1_000);
    rig.settle();
    assert_eq!(rig.timeline.before, None);
    assert_eq!(rig.timeline.counted_end, Some(time(999) + 1));
    let ends: Vec<RangeFrom> = rig
        .asked
        .iter()
        .filter_map(|r| match r {
            Request::Index(IndexRead::Range { from, .. }) => Some(from.clone()),
            _ => None,
        })
        .collect();
    assert!(
        ends.contains(&RangeFrom::FromEnd {
            before: time(999) + 1,
            skip: 0
        }),
        "{ends:?}"
    );
    assert_eq!(
        rig.timeline.row(999).map(|r| r.update_id.clone()),
        Some(update_id(999))
    );
}
