// Fixture builders take the JSON they are handed by value.
#![allow(clippy::needless_pass_by_value)]

use serde_json::json;

use super::*;
use crate::api::ApiError;
use crate::msg::{Request, Response};

pub(super) const SEC: i64 = MICROS;
/// 2026-11-22T10:00:00Z
pub(super) const T0: i64 = 1_795_341_600 * SEC;

/// The loader with everything it writes, driven step by step as the app drives it.
pub(super) struct Rig {
    pub(super) loader: Loader,
    history: History,
    pub(super) feed: Feed,
    ids: RequestIds,
    pub(super) now: i64,
    /// Requests sent and not answered, oldest first.
    pub(super) pending: Vec<(RequestId, PageFetch)>,
    demand: Demand,
}

impl Rig {
    pub(super) fn new(now: i64) -> Rig {
        Rig {
            loader: Loader::new(2000),
            history: History::default(),
            feed: Feed::default(),
            ids: RequestIds::default(),
            now,
            pending: Vec::new(),
            demand: Demand {
                following: true,
                near_end: true,
            },
        }
    }

    /// Runs `f` and then the pump, as one app step.
    fn step(&mut self, f: impl FnOnce(&mut Loader, &mut Ctx)) -> LoaderOut {
        let mut out = LoaderOut::default();
        let mut cx = Ctx {
            now: self.now,
            history: &mut self.history,
            feed: &mut self.feed,
            ids: &mut self.ids,
            held: 0,
            out: &mut out,
        };
        f(&mut self.loader, &mut cx);
        self.loader.pump(self.demand, &mut cx);
        self.pending.extend(out.fetches.iter().cloned());
        self.pending.retain(|(id, _)| !out.cancels.contains(id));
        out
    }

    pub(super) fn intent(&mut self, i: LoaderIntent) -> LoaderOut {
        self.step(|l, cx| l.intent(i, cx))
    }

    pub(super) fn tick(&mut self, now: i64) -> LoaderOut {
        self.now = now;
        self.step(|_, _| {})
    }

    pub(super) fn answer(&mut self, result: Result<Response, ApiError>) -> (PageFetch, LoaderOut) {
        assert!(!self.pending.is_empty(), "no request to answer");
        let (id, asked) = self.pending.remove(0);
        let reply = Fetched {
            id,
            request: asked.request(),
            result,
            elapsed_ms: 0,
        };
        let out = self.step(|l, cx| l.on_reply(&reply, cx));
        (asked, out)
    }
}

pub(super) fn tx(n: u64, migration: i64, t: i64) -> serde_json::Value {
    let mut v = crate::model::fixtures::transaction(&format!("1220{n:064x}"), 0, vec![]);
    v["migration_id"] = json!(migration);
    v["record_time"] = json!(format_time_micros(t));
    v
}

/// A canned answer: `Ok` by design, as `Rig::answer` takes it.
#[allow(clippy::unnecessary_wraps)]
pub(super) fn page(items: Vec<serde_json::Value>) -> Result<Response, ApiError> {
    let page: UpdatesPage =
        serde_json::from_value(json!({ "transactions": items })).expect("page decodes");
    Ok(Response::from(page))
}

fn purpose(r: &PageFetch) -> UpdatesPurpose {
    r.purpose
}

/// Where a request starts, as `(migration, µs)`.
fn after(r: &PageFetch) -> Option<(i64, i64)> {
    r.req.after.as_ref().and_then(cursor_position).map(At::pair)
}

/// Recent start on migration 0, answered up to the head with `n` updates.
fn at_head(n: u64) -> Rig {
    let mut rig = Rig::new(T0 + 60 * SEC);
    rig.intent(LoaderIntent::Start(StartFrom::Recent { window_secs: 600 }));
    rig.answer(page(vec![]));
    let items = (0..n).map(|i| tx(i, 0, T0 + i as i64 * SEC)).collect();
    rig.answer(page(items));
    assert!(rig.feed.at_head);
    rig
}

#[test]
fn a_recent_start_probes_the_migration_then_seeks_and_reaches_the_head() {
    let mut rig = Rig::new(T0 + 60 * SEC);
    let out = rig.intent(LoaderIntent::Start(StartFrom::Recent { window_secs: 600 }));
    assert!(out.change.reset, "the history is replaced");
    assert_eq!(rig.feed.phase, Phase::Discover);
    let (id, r) = rig.pending[0].clone();
    assert!(rig.loader.owns(id));
    assert_eq!(purpose(&r), UpdatesPurpose::Discover { migration: 0 });
    // Migration 3 exists: probed next; it has nothing after the far future: the newest.
    rig.answer(page(vec![tx(1, 3, T0)]));
    assert_eq!(
        purpose(&rig.pending[0].1),
        UpdatesPurpose::Discover { migration: 3 }
    );
    rig.answer(page(vec![]));
    assert_eq!(rig.feed.migration, Some(3));
    assert_eq!(rig.feed.phase, Phase::Seek { secs: 600 });
    assert_eq!(after(&rig.pending[0].1), Some((3, T0 - 540 * SEC)));
    let (_, out) = rig.answer(page(vec![tx(2, 3, T0), tx(3, 3, T0 + SEC)]));
    assert_eq!(out.change.appended, 2);
    assert!(out.change.forward_page);
    assert!(
        !out.change.at_head,
        "not yet at the head when the page arrived"
    );
    assert!(rig.feed.at_head, "a short page is the head");
    assert_eq!(rig.history.len(), 2);
    assert!(rig.pending.is_empty(), "polling waits for the interval");
    assert!(rig.tick(T0 + 61 * SEC).fetches.is_empty());
    let out = rig.tick(T0 + 62 * SEC);
    assert_eq!(out.fetches.len(), 1);
    assert_eq!(after(&out.fetches[0].1), Some((3, T0 + SEC)));
    let (_, out) = rig.answer(page(vec![tx(4, 3, T0 + 2 * SEC)]));
    assert!(out.change.at_head, "new at the head");
}

#[test]
fn failures_back_off_doubling_and_success_resets() {
    let mut rig = at_head(2);
    rig.tick(rig.now + 2 * SEC);
    let t = rig.now;
    let (_, out) = rig.answer(Err(ApiError::Connect {
        endpoint: "scan POST /v2/updates",
        detail: "refused".into(),
    }));
    assert_eq!(out.notes.len(), 1);
    assert_eq!(out.notes[0].0, Note::Error);
    assert_eq!(rig.feed.failures, 1);
    assert!(rig.tick(t + 2 * SEC - 1).fetches.is_empty());
    assert_eq!(rig.tick(t + 2 * SEC).fetches.len(), 1);
    rig.answer(Err(ApiError::Connect {
        endpoint: "scan POST /v2/updates",
        detail: "refused".into(),
    }));
    let t = rig.now;
    assert!(rig.tick(t + 4 * SEC - 1).fetches.is_empty(), "doubled");
    assert_eq!(rig.tick(t + 4 * SEC).fetches.len(), 1);
    rig.answer(page(vec![]));
    assert_eq!(rig.feed.failures, 0);
}

#[test]
fn replies_it_did_not_send_are_dropped() {
    let mut rig = at_head(2);
    let stranger = Fetched {
        id: RequestId::new(crate::msg::PaneId::History, 9_999),
        request: Request::api(crate::api::scan::updates(&UpdatesRequest::from_begin(
            PAGE_SIZE,
        ))),
        result: page(vec![tx(50, 0, T0 + 50 * SEC)]),
        elapsed_ms: 0,
    };
    assert!(!rig.loader.owns(stranger.id));
    let out = rig.step(|l, cx| l.on_reply(&stranger, cx));
    assert_eq!(out.change, HistoryChange::default());
    assert_eq!(rig.history.len(), 2);
}

#[test]
fn a_restart_cancels_what_is_in_flight_and_replaces_the_history() {
    let mut rig = at_head(3);
    rig.tick(rig.now + 2 * SEC);
    let (poll, _) = rig.pending[0].clone();
    let epoch = rig.history.epoch();
    let out = rig.intent(LoaderIntent::Restart(StartFrom::Time(T0 - 86_400 * SEC)));
    assert_eq!(out.cancels, vec![poll]);
    assert!(out.change.reset);
    assert_ne!(rig.history.epoch(), epoch);
    assert!(rig.history.is_empty());
    assert_eq!(rig.feed.migration, Some(0), "the known migration is kept");
    assert_eq!(out.fetches.len(), 1);
    assert_eq!(after(&out.fetches[0].1), Some((0, T0 - 86_400 * SEC)));
    // The stale poll's answer changes nothing.
    let stale = Fetched {
        id: poll,
        request: Request::api(crate::api::scan::updates(&UpdatesRequest::from_begin(
            PAGE_SIZE,
        ))),
        result: page(vec![tx(9, 0, T0 + 9 * SEC)]),
        elapsed_ms: 0,
    };
    let out = rig.step(|l, cx| l.on_reply(&stale, cx));
    assert_eq!(out.change.appended, 0);
}

#[test]
fn a_lazy_list_loads_the_next_page_only_on_demand() {
    let mut rig = Rig::new(T0);
    rig.demand = Demand {
        following: false,
        near_end: true,
    };
    rig.intent(LoaderIntent::Start(StartFrom::Begin));
    let full = (0..1000).map(|i| tx(i, 0, T0 + i as i64 * SEC)).collect();
    rig.demand.near_end = false;
    rig.answer(page(full));
    assert!(rig.pending.is_empty(), "far from the end: wait");
    assert!(rig.tick(T0 + 3_600 * SEC).fetches.is_empty());
    assert_eq!(rig.intent(LoaderIntent::More).fetches.len(), 1);
    rig.answer(page(vec![tx(2000, 0, T0 + 2000 * SEC)]));
    assert!(rig.feed.at_head);
    assert!(rig.feed.reached_begin);
}

#[test]
fn earlier_updates_are_prepended_and_counted_in_the_change() {
    let mut rig = at_head(2);
    let out = rig.intent(LoaderIntent::Earlier);
    assert!(rig.feed.loading_earlier);
    assert_eq!(purpose(&out.fetches[0].1), UpdatesPurpose::Earlier);
    assert_eq!(after(&out.fetches[0].1), Some((0, T0 - EARLIER_FIRST_STEP)));
    let base = rig.history.base();
    let (_, out) = rig.answer(page(vec![tx(100, 0, T0 - 10 * SEC), tx(0, 0, T0)]));
    assert_eq!(out.change.prepended, 1);
    assert_eq!(rig.history.base(), base - 1);
    assert_eq!(rig.history.len(), 3);
}

// -----------------------------------------------------------------------------------------
// Hostile servers (issue 9): progress or a stop with a message, bounded rates, bad items
// -----------------------------------------------------------------------------------------

fn errors(out: &LoaderOut) -> Vec<&str> {
    out.notes
        .iter()
        .filter(|(l, _)| *l == Note::Error)
        .map(|(_, t)| t.as_str())
        .collect()
}

#[test]
fn a_server_that_ignores_after_in_discovery_stops_it_with_a_message() {
    let mut rig = Rig::new(T0 + 60 * SEC);
    rig.intent(LoaderIntent::Start(StartFrom::Recent { window_secs: 600 }));
    // Every probe answers with the first update of the ledger, whatever was asked.
    let first = || page(vec![tx(1, 0, T0)]);
    rig.answer(first());
    let (_, out) = rig.answer(first());
    assert!(
        errors(&out).iter().any(|e| e.contains(SAME_PAGE_TWICE)),
        "{:?}",
        out.notes
    );
    assert_eq!(rig.feed.phase, Phase::Stopped);
    assert!(rig.pending.is_empty(), "nothing more is asked");
    assert!(rig.tick(T0 + 3_600 * SEC).fetches.is_empty());
    // A refresh starts again.
    assert_eq!(rig.intent(LoaderIntent::Refresh).fetches.len(), 1);
}

#[test]
fn a_server_that_ignores_after_while_paging_stops_with_a_message() {
    let mut rig = Rig::new(T0);
    rig.intent(LoaderIntent::Start(StartFrom::Begin));
    let full = || page((0..1000).map(|i| tx(i, 0, T0 + i as i64 * SEC)).collect());
    rig.answer(full());
    let (_, out) = rig.answer(full());
    assert!(errors(&out).iter().any(|e| e.contains(SAME_PAGE_TWICE)));
    assert_eq!(rig.history.len(), 1000);
    assert!(rig.pending.is_empty());
    // At the head too: a poll answered with the last page again.
    let mut rig = at_head(3);
    rig.tick(rig.now + 2 * SEC);
    let (_, out) = rig.answer(page(
        (0..3).map(|i| tx(i, 0, T0 + i as i64 * SEC)).collect(),
    ));
    assert!(errors(&out).iter().any(|e| e.contains(SAME_PAGE_TWICE)));
    assert!(rig.tick(rig.now + 60 * SEC).fetches.is_empty());
}

#[test]
fn seek_steps_start_at_ten_minutes_and_end_at_a_year() {
    // Taken from the head search's windows: the history seek must not start at 30 s.
    assert_eq!(
        SEEK_STEPS,
        [600, 3_600, 21_600, 86_400, 604_800, 2_592_000, 31_536_000]
    );
}

#[test]
fn an_item_in_year_9999_is_reported_and_never_moves_the_cursor() {
    let mut rig = at_head(2);
    rig.tick(rig.now + 2 * SEC);
    let far = parse_time_micros(DISCOVER_TIME).expect("time");
    let (_, out) = rig.answer(page(vec![
        tx(10, 0, T0 + 10 * SEC),
        tx(11, 0, far),
        tx(12, 0, T0 + 12 * SEC),
    ]));
    let errs = errors(&out);
    assert_eq!(errs.len(), 1, "{:?}", out.notes);
    assert!(
        errs[0].starts_with("1 update(s) out of order or impossible"),
        "{}",
        errs[0]
    );
    assert!(
        errs[0].contains(&format!("1220{:064x}", 11)[..24]),
        "{}",
        errs[0]
    );
    assert_eq!(rig.history.len(), 4, "the later item is kept");
    let out = rig.tick(rig.now + 2 * SEC);
    assert_eq!(after(&out.fetches[0].1), Some((0, T0 + 12 * SEC)));
}

#[test]
fn a_migration_id_of_i64_max_is_reported_and_never_moves_the_cursor() {
    // While paging …
    let mut rig = at_head(2);
    rig.tick(rig.now + 2 * SEC);
    let (_, out) = rig.answer(page(vec![tx(20, i64::MAX, T0 + 20 * SEC)]));
    assert_eq!(errors(&out).len(), 1, "{:?}", out.notes);
    assert_eq!(rig.feed.migration, Some(0));
    let out = rig.tick(rig.now + 2 * SEC);
    assert_eq!(after(&out.fetches[0].1), Some((0, T0 + SEC)));
    // … and while discovering.
    let mut rig = Rig::new(T0 + 60 * SEC);
    rig.intent(LoaderIntent::Start(StartFrom::Recent { window_secs: 600 }));
    let (_, out) = rig.answer(page(vec![tx(1, i64::MAX, T0)]));
    assert_eq!(errors(&out).len(), 1, "{:?}", out.notes);
    assert_eq!(rig.feed.migration, Some(0));
    assert_eq!(after(&rig.pending[0].1), Some((0, T0 - 540 * SEC)));
}

#[test]
fn items_out_of_order_are_counted_and_named() {
    let mut rig = at_head(5);
    rig.tick(rig.now + 2 * SEC);
    let (_, out) = rig.answer(page(vec![
        tx(1, 0, T0 + SEC),
        tx(30, 0, T0 + 30 * SEC),
        tx(29, 0, T0 + 29 * SEC),
    ]));
    let errs = errors(&out);
    assert_eq!(errs.len(), 1);
    assert!(
        errs[0].starts_with("2 update(s) out of order"),
        "{}",
        errs[0]
    );
    assert_eq!(rig.history.len(), 6);
}

#[test]
fn a_page_larger_than_asked_is_kept_with_one_warning() {
    let mut rig = at_head(1);
    // The rig answers new updates whatever is asked: no checks of the history.
    rig.loader.set_head_check_every(u32::MAX);
    let mut warnings = 0;
    for round in 0..3i64 {
        rig.tick(rig.now + 2 * SEC);
        let start = 10_000 * (round + 1);
        let items = (0..1500)
            .map(|i| tx((start + i) as u64, 0, T0 + (start + i) * SEC))
            .collect();
        let (_, out) = rig.answer(page(items));
        warnings += out.notes.iter().filter(|(l, _)| *l == Note::Warn).count();
        while !rig.pending.is_empty() {
            rig.answer(page(vec![]));
        }
    }
    assert_eq!(warnings, 1);
    assert_eq!(rig.history.len(), 1 + 3 * 1500);
}

#[test]
fn the_history_stays_within_its_memory_budget_and_scrolling_back_fetches_again() {
    let mut rig = at_head(1);
    rig.loader.set_head_check_every(u32::MAX);
    rig.loader.set_memory_budget_mib(1);
    let budget = 1 << 20;
    let mut dropped = 0;
    let mut notes = 0;
    let mut n = 100;
    for _ in 0..20 {
        rig.tick(rig.now + 2 * SEC);
        let items = (n..n + 999)
            .map(|i| tx(i, 0, T0 + i64::try_from(i).expect("small") * SEC))
            .collect();
        n += 999;
        let (_, out) = rig.answer(page(items));
        dropped += out.change.dropped;
        notes += out.notes.len();
        assert!(
            rig.history.memory_bytes() <= budget,
            "{} bytes",
            rig.history.memory_bytes()
        );
    }
    assert!(dropped > 5_000, "dropped {dropped}");
    assert_eq!(notes, 1, "said once");
    assert_eq!(rig.history.dropped(), dropped as u64);
    assert!(!rig.feed.reached_begin);
    assert_eq!(rig.feed.memory_budget, budget);
    // Bytes per summary, as accounted: about a hundred (at least its 32-byte slot), not
    // kilobytes.
    let per = rig.history.memory_bytes() / rig.history.len();
    assert!((32..1_000).contains(&per), "{per} bytes per summary");
    // Scrolling back past the oldest loaded fetches the dropped ones again.
    let oldest = rig.history.first().expect("loaded").record_time();
    let out = rig.intent(LoaderIntent::Earlier);
    assert_eq!(purpose(&out.fetches[0].1), UpdatesPurpose::Earlier);
    assert_eq!(
        after(&out.fetches[0].1),
        Some((0, oldest - EARLIER_FIRST_STEP))
    );
}

// -----------------------------------------------------------------------------------------
// Span loads
// -----------------------------------------------------------------------------------------

/// A scan over a ledger of one migration with updates at `times` (µs, ascending): answers a
/// `/v2/updates` request as a server does (after the cursor, at most `page_size`).
fn serve(times: &[i64], r: &PageFetch) -> Result<Response, ApiError> {
    let req = &r.req;
    let from = req.after.as_ref().and_then(cursor_position);
    let n = usize::try_from(req.page_size).expect("page size");
    let items = times
        .iter()
        .enumerate()
        .filter(|(_, t)| from.is_none_or(|f| At::new(0, **t) > f))
        .take(n)
        .map(|(i, t)| tx(i as u64, 0, *t))
        .collect();
    page(items)
}

/// Answers every pending request from `times`, moving the clock a second a round, until
/// `done` holds (at most `rounds` rounds).
fn run_until(
    rig: &mut Rig,
    times: &[i64],
    rounds: usize,
    done: impl Fn(&Rig) -> bool,
) -> Vec<String> {
    let mut notes = Vec::new();
    for _ in 0..rounds {
        if done(rig) {
            break;
        }
        let out = rig.tick(rig.now + SEC);
        notes.extend(out.notes.into_iter().map(|(_, t)| t));
        while let Some((_, r)) = rig.pending.first().cloned() {
            let (_, out) = rig.answer(serve(times, &r));
            notes.extend(out.notes.into_iter().map(|(_, t)| t));
        }
    }
    notes
}

/// One update every 2 s for the 10 hours before `T0`, loaded for the last 10 minutes.
fn ten_hours() -> (Rig, Vec<i64>) {
    let times: Vec<i64> = (0..18_000)
        .map(|i| T0 - 36_000 * SEC + i * 2 * SEC)
        .collect();
    let mut rig = Rig::new(T0);
    rig.intent(LoaderIntent::Start(StartFrom::Recent { window_secs: 600 }));
    run_until(&mut rig, &times, 20, |r| r.feed.at_head);
    assert!(rig.feed.at_head);
    assert_eq!(rig.history.len(), 299, "the last 10 minutes");
    (rig, times)
}

fn loaded_times(rig: &Rig) -> Vec<i64> {
    rig.history
        .iter()
        .map(crate::model::summary::UpdateSummary::record_time)
        .collect()
}

#[test]
fn a_span_load_fetches_exactly_the_span_in_well_filled_pages() {
    let (mut rig, times) = ten_hours();
    let since = T0 - 6 * 3_600 * SEC;
    rig.intent(LoaderIntent::LoadSpan { since });
    assert!(rig.feed.span.is_some_and(|p| p.running()));
    let notes = run_until(&mut rig, &times, 200, |r| {
        r.feed.span.is_some_and(|p| !p.running())
    });
    let p = rig.feed.span.expect("progress");
    assert_eq!(p.end, Some(SpanEnd::Done), "{notes:?}");
    assert_eq!(p.percent(), 100);
    // Every update of the span, once, in order, and nothing before it.
    let want: Vec<i64> = times.iter().copied().filter(|t| *t >= since).collect();
    assert_eq!(loaded_times(&rig), want);
    assert_eq!(p.updates, want.len() - 299);
    // 10,500 updates in 15 pages (700 a page), measured: the step fits the rate.
    assert!(p.pages <= 16, "{} pages", p.pages);
    assert!(
        notes.iter().any(|n| n.starts_with("span loaded back to")),
        "{notes:?}"
    );
    // Paced with the rest: never more than the burst plus 4 a second.
    assert!(rig.feed.failures == 0);
}

#[test]
fn a_span_load_stops_at_the_memory_budget_keeping_the_history_whole() {
    let (mut rig, times) = ten_hours();
    rig.loader.set_memory_budget_mib(1);
    rig.intent(LoaderIntent::LoadSpan {
        since: T0 - 10 * 3_600 * SEC,
    });
    let notes = run_until(&mut rig, &times, 200, |r| {
        r.feed.span.is_some_and(|p| !p.running())
    });
    let p = rig.feed.span.expect("progress");
    assert_eq!(p.end, Some(SpanEnd::Budget), "{notes:?}");
    assert!(rig.history.memory_bytes() <= 1 << 20);
    assert!(p.percent() < 100);
    // What is loaded is a contiguous stretch ending at the head.
    let loaded = loaded_times(&rig);
    let start = times.iter().position(|t| *t == loaded[0]).expect("known");
    assert_eq!(loaded, times[start..].to_vec());
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("memory budget full (1 MiB)")),
        "{notes:?}"
    );
    // The live tail does not drop what the span loaded at once.
    let dropped = rig.history.dropped();
    rig.tick(rig.now + 3 * SEC);
    assert_eq!(rig.history.dropped(), dropped);
}

#[test]
fn a_span_load_can_be_cancelled_and_what_it_loaded_stays() {
    let (mut rig, times) = ten_hours();
    rig.intent(LoaderIntent::LoadSpan {
        since: T0 - 6 * 3_600 * SEC,
    });
    // One page arrives, the next is in flight.
    let (_, r) = rig
        .pending
        .first()
        .cloned()
        .expect("the span's first request");
    assert_eq!(purpose(&r), UpdatesPurpose::Earlier);
    let (_, out) = rig.answer(serve(&times, &r));
    assert!(
        out.fetches.is_empty(),
        "no burst: the next page waits its turn"
    );
    let loaded = rig.history.len();
    assert!(loaded > 299 + 500, "{loaded}");
    let out = rig.tick(rig.now + SEC / 4);
    let in_flight: Vec<RequestId> = out.fetches.iter().map(|(id, _)| *id).collect();
    assert_eq!(in_flight.len(), 1);
    let out = rig.intent(LoaderIntent::CancelSpan);
    assert_eq!(out.cancels, in_flight);
    assert_eq!(rig.feed.span.and_then(|p| p.end), Some(SpanEnd::Cancelled));
    assert_eq!(rig.history.len(), loaded);
    assert!(out.notes.iter().any(|(_, n)| n.contains("cancelled")));
}

#[test]
fn a_span_already_loaded_or_over_a_full_budget_is_not_started() {
    let (mut rig, _) = ten_hours();
    let out = rig.intent(LoaderIntent::LoadSpan {
        since: T0 - 60 * SEC,
    });
    assert!(
        out.notes
            .iter()
            .any(|(_, n)| n.starts_with("already loaded"))
    );
    assert!(rig.feed.span.is_none());
    assert!(span_estimate(&rig.history, T0 - 6 * 3_600 * SEC).is_some_and(|b| b > 1 << 20));
}

// ---------------------------------------------------------------------------------------------
// The range job (History's timeline reads the index's gaps through the loader)
// ---------------------------------------------------------------------------------------------

/// A rig reading `start..=until` for the timeline (nothing loaded: the main line is idle).
fn reading_range(start: i64, until: i64) -> Rig {
    let mut rig = Rig::new(T0 + 3_600 * SEC);
    rig.intent(LoaderIntent::ReadRange(RangeAsk {
        start: crate::model::position::At::new(0, start),
        skip_before: start,
        until,
    }));
    rig
}

fn range_pages(out: &LoaderOut) -> Vec<(usize, bool, Option<i64>)> {
    out.range
        .iter()
        .filter_map(|e| match e {
            RangeEvent::Page { items, done, upto } => Some((items.len(), *done, *upto)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_range_is_read_page_by_page_at_its_pace_and_handed_over_in_order() {
    let mut rig = reading_range(T0, T0 + 10 * SEC);
    assert_eq!(rig.pending.len(), 1, "the first page at once");
    let (_, first) = rig.pending[0].clone();
    assert_eq!(purpose(&first), UpdatesPurpose::Range);
    assert_eq!(
        after(&first),
        Some((0, T0 - 1)),
        "from its start, inclusive"
    );
    assert!(
        first
            .request()
            .describe()
            .starts_with("updates IndexGap after ")
    );
    // A full page inside the range: handed over, the walk goes on after its last item.
    let items: Vec<_> = (0..PAGE as u64)
        .map(|i| tx(i, 0, T0 + i as i64 * 1_000))
        .collect();
    let (_, out) = rig.answer(page(items));
    let last = T0 + (PAGE as i64 - 1) * 1_000;
    assert_eq!(range_pages(&out), vec![(PAGE, false, Some(last))]);
    // The next page waits for the range's pace (a quarter of a second), not for a poll.
    assert!(rig.tick(rig.now + SEC / 8).fetches.is_empty());
    let out = rig.tick(rig.now + SEC / 8);
    assert_eq!(out.fetches.len(), 1);
    assert_eq!(after(&out.fetches[0].1), Some((0, last)));
    // The last page reaches past the range's end: only what is inside is handed over.
    let (_, out) = rig.answer(page(vec![
        tx(5_000, 0, T0 + 5 * SEC),
        tx(5_001, 0, T0 + 11 * SEC),
    ]));
    assert_eq!(range_pages(&out), vec![(1, true, None)]);
    assert!(rig.tick(rig.now + 10 * SEC).fetches.is_empty(), "done");
}

#[test]
fn a_failed_page_of_a_range_is_asked_again_after_the_back_off() {
    let mut rig = reading_range(T0, T0 + 10 * SEC);
    let t = rig.now;
    let (asked, out) = rig.answer(Err(ApiError::Connect {
        endpoint: "scan POST /v2/updates",
        detail: "refused".into(),
    }));
    assert!(out.range.is_empty(), "the range goes on");
    assert_eq!(errors(&out).len(), 1, "{:?}", out.notes);
    assert!(errors(&out)[0].contains("what the local index lacks"));
    assert!(rig.tick(t + 2 * SEC - 1).fetches.is_empty(), "backs off");
    let out = rig.tick(t + 2 * SEC);
    assert_eq!(out.fetches.len(), 1);
    assert_eq!(out.fetches[0].1.req, asked.req, "the same page again");
    let (_, out) = rig.answer(page(vec![tx(1, 0, T0 + SEC)]));
    assert_eq!(range_pages(&out), vec![(1, false, Some(T0 + SEC))]);
    assert_eq!(rig.feed.failures, 0, "a success resets the back-off");
}

#[test]
fn a_range_stops_at_the_memory_budget_counting_what_its_reader_holds() {
    let mut rig = Rig::new(T0 + 3_600 * SEC);
    rig.loader.set_memory_budget_bytes(1 << 20);
    let mut out = LoaderOut::default();
    let mut cx = Ctx {
        now: rig.now,
        history: &mut rig.history,
        feed: &mut rig.feed,
        ids: &mut rig.ids,
        // The timeline holds the whole budget in rows the scan sent.
        held: 1 << 20,
        out: &mut out,
    };
    let ask = RangeAsk {
        start: crate::model::position::At::new(0, T0),
        skip_before: T0,
        until: T0 + 10 * SEC,
    };
    rig.loader.intent(LoaderIntent::ReadRange(ask), &mut cx);
    rig.loader.pump(Demand::default(), &mut cx);
    assert!(out.fetches.is_empty(), "nothing asked of the scan");
    assert!(matches!(
        out.range.as_slice(),
        [RangeEvent::Budget { reached: Some(_) }]
    ));
}

#[test]
fn a_range_stopped_or_replaced_cancels_its_page_in_flight() {
    let mut rig = reading_range(T0, T0 + 10 * SEC);
    let (id, _) = rig.pending[0].clone();
    let out = rig.intent(LoaderIntent::ReadRange(RangeAsk {
        start: crate::model::position::At::new(0, T0 + 20 * SEC),
        skip_before: T0 + 20 * SEC,
        until: T0 + 30 * SEC,
    }));
    assert_eq!(out.cancels, vec![id]);
    assert!(rig.pending.is_empty(), "the next range keeps the pace");
    rig.tick(rig.now + SEC / 4);
    assert_eq!(rig.pending.len(), 1);
    assert_eq!(after(&rig.pending[0].1), Some((0, T0 + 20 * SEC - 1)));
    let (id, _) = rig.pending[0].clone();
    let out = rig.intent(LoaderIntent::StopRange);
    assert_eq!(out.cancels, vec![id]);
    assert!(rig.pending.is_empty());
    assert!(rig.tick(rig.now + 10 * SEC).fetches.is_empty());
}
