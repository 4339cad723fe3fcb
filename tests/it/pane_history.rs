//! The History pane and the history loader: snapshots at 80x24 and 120x40, and headless flows
//! driven through the pane's methods and the app's loader step (`app::loader::drive`) with canned
//! `/v2/updates` pages (discovery → seek → forward → head, the live tail,
//! pausing and resuming, loading earlier updates, the filter, opening and copying, errors and
//! retries, lazy loading from ledger begin, `:time`).

use cantonscope::api::ApiError;
use cantonscope::api::scan::{UpdatesPage, UpdatesRequest};
use cantonscope::app::loader::drive;
use cantonscope::config::keymap::KeyContext;
use cantonscope::feed::loader::{Loader, PageFetch, UpdatesPurpose};
use cantonscope::model::summary::{format_time_micros, parse_time_micros};
use cantonscope::msg::Command;
use cantonscope::msg::Fetched;
use cantonscope::msg::PaneId;
use cantonscope::msg::{Effect, Request, RequestId, Response};
use cantonscope::panes::history::{DISCOVER_TIME, EARLIER_FIRST_STEP, HistoryPane, PAGE_SIZE};
use cantonscope::panes::{AppContext, AppEvent, Out, Pane, RenderCtx, Shared, StartFrom};
use cantonscope::ui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use serde_json::{Map, Value, json};

use crate::common::pane::fetched;
use crate::common::{assert_snapshot, pane, untrimmed_text};

// ---------------------------------------------------------------------------------------------
// Canned data
// ---------------------------------------------------------------------------------------------

/// 2026-11-22T10:00:00Z
fn t0() -> i64 {
    parse_time_micros("2026-11-22T10:00:00Z").expect("time")
}

const SEC: i64 = 1_000_000;

/// A 68-character update id, distinct in its first 8 characters.
fn uid(n: u64) -> String {
    let h = n.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    format!("1220{h:016x}{h:016x}{h:016x}{h:016x}")
}

fn tx_with(n: u64, migration: i64, t: i64, template: &str, choice: &str, party: &str) -> Value {
    let id = uid(n);
    let mut events = Map::new();
    events.insert(
        format!("{id}:0"),
        json!({
            "event_type": "exercised_event",
            "event_id": format!("{id}:0"),
            "contract_id": format!("00{:016x}ca10", n + 7),
            "template_id": format!("a1b2:{template}"),
            "package_name": "splice-amulet",
            "choice": choice,
            "choice_argument": {"amount": "10.0"},
            "child_event_ids": [format!("{id}:1")],
            "exercise_result": {},
            "consuming": true,
            "acting_parties": [party],
            "interface_id": null
        }),
    );
    events.insert(
        format!("{id}:1"),
        json!({
            "event_type": "created_event",
            "event_id": format!("{id}:1"),
            "contract_id": format!("00{:016x}cb20", n + 11),
            "template_id": "a1b2:Splice.Amulet:Amulet",
            "package_name": "splice-amulet",
            "create_arguments": {"owner": party},
            "created_at": format_time_micros(t),
            "signatories": ["DSO::1220dso"],
            "observers": [party]
        }),
    );
    json!({
        "update_id": id,
        "migration_id": migration,
        "workflow_id": "",
        "record_time": format_time_micros(t),
        "synchronizer_id": "global-domain::1220b1431ef2",
        "effective_at": format_time_micros(t),
        "root_event_ids": [format!("{id}:0")],
        "events_by_id": Value::Object(events)
    })
}

fn tx(n: u64, migration: i64, t: i64) -> Value {
    tx_with(
        n,
        migration,
        t,
        "Splice.AmuletRules:AmuletRules",
        "AmuletRules_Transfer",
        "alice::1220aa",
    )
}

fn assign(n: u64, migration: i64, t: i64) -> Value {
    json!({
        "update_id": uid(n),
        "offset": "000000000000000042",
        "record_time": format_time_micros(t),
        "event": {
            "submitter": "bob::1220bb",
            "source_synchronizer": "global-domain::1220b1431ef2",
            "target_synchronizer": "other-domain::1220cc",
            "migration_id": migration,
            "unassign_id": "unassign-1",
            "created_event": {
                "event_type": "created_event",
                "event_id": format!("{}:0", uid(n)),
                "contract_id": "00ffeeddccbbaa998877",
                "template_id": "a1b2:Splice.Amulet:Amulet",
                "package_name": "splice-amulet",
                "create_arguments": {},
                "created_at": format_time_micros(t),
                "signatories": ["bob::1220bb"],
                "observers": []
            },
            "reassignment_counter": 3
        }
    })
}

fn unassign(n: u64, migration: i64, t: i64) -> Value {
    json!({
        "update_id": uid(n),
        "offset": "000000000000000043",
        "record_time": format_time_micros(t),
        "event": {
            "submitter": "bob::1220bb",
            "source_synchronizer": "global-domain::1220b1431ef2",
            "target_synchronizer": "other-domain::1220cc",
            "migration_id": migration,
            "unassign_id": "unassign-2",
            "reassignment_counter": 4,
            "contract_id": "00aabbccddeeff001122"
        }
    })
}

/// An item whose `events_by_id` is not an object: decodes as malformed.
fn malformed(n: u64, migration: i64, t: i64) -> Value {
    json!({
        "update_id": uid(n),
        "migration_id": migration,
        "record_time": format_time_micros(t),
        "root_event_ids": [],
        "events_by_id": "oops"
    })
}

fn page(items: Vec<Value>) -> Response {
    let page: UpdatesPage =
        serde_json::from_value(json!({ "transactions": items })).expect("page decodes");
    Response::from(page)
}

/// `count` transactions in migration `m`, one second apart from `start`, numbered from `first`.
fn txs(first: u64, count: u64, m: i64, start: i64) -> Vec<Value> {
    (0..count)
        .map(|i| tx(first + i, m, start + i as i64 * SEC))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Driving the pane
// ---------------------------------------------------------------------------------------------

struct Harness {
    sh: Shared,
    pane: HistoryPane,
    /// The history loader, driven as the app drives it.
    loader: Loader,
    /// Fetches not answered yet.
    pending: Vec<(RequestId, PageFetch)>,
    /// Everything the pane emitted since the last `take_out`.
    out: Out,
}

impl Harness {
    fn new(start: StartFrom, now: i64) -> Self {
        let ctx = AppContext {
            start,
            refresh_ms: 2000,
            scan_urls: vec!["http://scan.example".into()],
            ..AppContext::default()
        };
        let sh = Shared::new(ctx, now);
        let mut pane = HistoryPane::new(&sh);
        pane.set_area(Rect::new(0, 0, 120, 40));
        Harness {
            sh,
            pane,
            loader: Loader::new(2000),
            pending: Vec::new(),
            out: Out::default(),
        }
    }

    /// One loader step (its intents queued in `out`, a reply, what is due), as the app runs it.
    fn drive(&mut self, out: &mut Out, reply: Option<&Fetched>) {
        drive(&mut self.loader, &mut self.pane, &mut self.sh, out, reply);
    }

    fn collect(&mut self, mut out: Out) {
        self.drive(&mut out, None);
        self.collect_effects(out);
    }

    fn collect_effects(&mut self, mut out: Out) {
        for e in &out.effects {
            if let Effect::Fetch { id, .. } = e {
                let page = self.loader.asked(*id).expect("the loader's request");
                self.pending.push((*id, page.clone()));
            }
        }
        self.out.effects.append(&mut out.effects);
        self.out.events.append(&mut out.events);
    }

    fn start(&mut self) {
        let mut out = Out::default();
        self.pane.start(&self.sh, &mut out);
        self.collect(out);
    }

    fn cmd(&mut self, cmd: Command) -> bool {
        let mut out = Out::default();
        let used = self.pane.on_command(cmd, &mut self.sh, &mut out);
        self.collect(out);
        used
    }

    fn key(&mut self, code: KeyCode) {
        let mut out = Out::default();
        self.pane.on_key(
            &KeyEvent::new(code, KeyModifiers::NONE),
            &mut self.sh,
            &mut out,
        );
        self.collect(out);
    }

    fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.key(KeyCode::Char(c));
        }
    }

    fn tick_at(&mut self, now: i64) {
        self.sh.now = now;
        let mut out = Out::default();
        self.pane.on_tick(&mut self.sh, &mut out);
        self.collect(out);
    }

    /// The only pending request (asserts there is exactly one).
    fn one_pending(&self) -> (RequestId, PageFetch) {
        assert_eq!(
            self.pending.len(),
            1,
            "expected one request in flight: {:?}",
            self.pending
        );
        self.pending[0].clone()
    }

    /// The only pending request, after letting the clock run (250 ms a tick, up to 10 s) for
    /// the loader's pace of requests.
    fn next_pending(&mut self) -> (RequestId, PageFetch) {
        self.settle();
        self.one_pending()
    }

    /// Lets the clock run until a request is pending (at most 10 s).
    fn settle(&mut self) {
        for _ in 0..40 {
            if !self.pending.is_empty() {
                break;
            }
            let now = self.sh.now + SEC / 4;
            self.tick_at(now);
        }
    }

    /// Answers the oldest pending request.
    fn answer(&mut self, result: Result<Response, ApiError>) -> PageFetch {
        assert!(!self.pending.is_empty(), "no request to answer");
        let (id, page) = self.pending.remove(0);
        let mut out = Out::default();
        self.drive(&mut out, Some(&fetched(id, &page.request(), &result)));
        self.collect_effects(out);
        page
    }

    fn take_out(&mut self) -> Out {
        std::mem::take(&mut self.out)
    }

    fn selected_id(&self) -> Option<String> {
        self.pane.selected_update_id(&self.sh)
    }

    fn render(&self, w: u16, h: u16) -> Buffer {
        pane::render(&self.pane, &self.sh, w, h)
    }

    fn screen_text(&self, w: u16, h: u16) -> String {
        untrimmed_text(&self.render(w, h))
    }

    /// Runs a Recent start to the head with `items` in the 10-minute window of migration `m`
    /// (discovery answers: one probe for 0..m, then empty for m).
    fn run_to_head(&mut self, m: i64, items: Vec<Value>) {
        self.start();
        for k in 0..m {
            let req = self.answer(Ok(page(vec![tx(9000 + k as u64, k + 1, t0())])));
            assert_discover(&req, k);
        }
        let req = self.answer(Ok(page(vec![])));
        assert_discover(&req, m);
        let req = self.answer(Ok(page(items)));
        assert_eq!(req.purpose, UpdatesPurpose::Seek { window: 0 });
        assert!(self.sh.feed.at_head);
        assert!(self.pending.is_empty());
    }
}

fn updates_req(request: &PageFetch) -> (&UpdatesRequest, UpdatesPurpose) {
    (&request.req, request.purpose)
}

fn after_of(request: &PageFetch) -> (i64, i64) {
    let (req, _) = updates_req(request);
    let after = req.after.as_ref().expect("an after cursor");
    (
        after.after_migration_id,
        parse_time_micros(&after.after_record_time).expect("cursor time"),
    )
}

fn assert_discover(request: &PageFetch, k: i64) {
    let (req, purpose) = updates_req(request);
    assert_eq!(purpose, UpdatesPurpose::Discover { migration: k });
    assert_eq!(req.page_size, 1);
    let after = req.after.as_ref().expect("after");
    assert_eq!(after.after_migration_id, k);
    assert_eq!(after.after_record_time, DISCOVER_TIME);
}

fn errors(out: &Out) -> Vec<String> {
    out.events
        .iter()
        .filter_map(|e| match e {
            AppEvent::Error(_, m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

fn messages(out: &Out) -> Vec<String> {
    out.events
        .iter()
        .filter_map(|e| match e {
            AppEvent::Message(_, m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

fn connect_error() -> ApiError {
    ApiError::Connect {
        endpoint: "scan POST /v2/updates",
        detail: "connection refused".into(),
    }
}

// ---------------------------------------------------------------------------------------------
// Flows
// ---------------------------------------------------------------------------------------------

#[test]
fn recent_start_discovers_the_migration_seeks_back_and_reaches_the_head() {
    let now = t0() + 3 * 3600 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    h.start();

    // Migration 0 is not the newest: the probe returns an item of migration 2, so 2 is probed next.
    let (_, r) = h.one_pending();
    assert_discover(&r, 0);
    h.answer(Ok(page(vec![tx(1, 2, t0())])));
    let (_, r) = h.one_pending();
    assert_discover(&r, 2);
    h.answer(Ok(page(vec![])));
    assert_eq!(h.sh.feed.migration, Some(2));

    // Seek: 10 minutes, then 1 hour back are empty; 6 hours back finds activity.
    for (window, secs) in [(0usize, 600i64), (1, 3600), (2, 6 * 3600)] {
        let (_, r) = h.one_pending();
        let (req, purpose) = updates_req(&r);
        assert_eq!(purpose, UpdatesPurpose::Seek { window });
        assert_eq!(req.page_size, PAGE_SIZE);
        assert_eq!(after_of(&r), (2, now - secs * SEC));
        if window < 2 {
            h.answer(Ok(page(vec![])));
            assert!(h.pane.status_text(&h.sh).contains("looking back"));
        }
    }
    h.answer(Ok(page(txs(10, 3, 2, t0() + SEC))));
    assert!(h.sh.feed.at_head, "a short page is the head");
    assert!(h.pane.is_following());
    assert_eq!(h.pane.row_count(&h.sh), 3);
    assert_eq!(h.selected_id(), Some(uid(12)), "following: the newest row");
    assert!(h.pending.is_empty());

    // Polling: nothing before the refresh interval, then one request after the newest update.
    h.tick_at(now + SEC);
    assert!(h.pending.is_empty());
    h.tick_at(now + 2 * SEC);
    let (_, r) = h.one_pending();
    assert_eq!(updates_req(&r).1, UpdatesPurpose::Forward);
    assert_eq!(after_of(&r), (2, t0() + 3 * SEC));
    // One request in flight at most.
    h.tick_at(now + 10 * SEC);
    assert_eq!(h.pending.len(), 1);
    assert!(h.pane.status_text(&h.sh).contains("live"));
}

#[test]
fn tail_polling_appends_follows_and_fetches_again_after_a_full_page() {
    let now = t0() + 60 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    h.run_to_head(1, txs(0, 3, 1, t0()));
    assert_eq!(h.pane.tab_count(&h.sh), Some(3));

    h.tick_at(now + 2 * SEC);
    h.answer(Ok(page(txs(3, 2, 1, t0() + 3 * SEC))));
    assert_eq!(h.pane.row_count(&h.sh), 5);
    assert_eq!(h.selected_id(), Some(uid(4)));
    assert!(h.pane.is_following());
    assert!(
        h.pending.is_empty(),
        "a short page waits for the next interval"
    );

    // A full page means more is waiting: fetch again at once.
    h.tick_at(now + 4 * SEC);
    h.answer(Ok(page(txs(5, 1000, 1, t0() + 10 * SEC))));
    let (_, r) = h.one_pending();
    assert_eq!(after_of(&r), (1, t0() + 1009 * SEC));
    assert_eq!(h.selected_id(), Some(uid(1004)));
}

#[test]
fn moving_pauses_counts_new_rows_and_follow_resumes() {
    let now = t0() + 60 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    h.run_to_head(0, txs(0, 5, 0, t0()));
    assert!(h.cmd(Command::Up));
    assert!(!h.pane.is_following());
    assert_eq!(h.selected_id(), Some(uid(3)));

    h.tick_at(now + 2 * SEC);
    h.answer(Ok(page(txs(5, 3, 0, t0() + 5 * SEC))));
    assert_eq!(h.pane.row_count(&h.sh), 8);
    assert_eq!(h.selected_id(), Some(uid(3)), "the selection never jumps");
    assert_eq!(h.pane.new_count(), 3);
    assert_eq!(
        h.pane.tab_count(&h.sh),
        Some(8),
        "the tab counts rows; the title says paused"
    );
    assert!(h.pane.status_text(&h.sh).contains("paused · 3 new"));
    assert!(h.screen_text(120, 40).contains("paused · 3 new"));
    // A filter counts the new rows it shows; clearing it counts them all again.
    assert!(h.cmd(Command::Filter));
    h.type_text(&format!("id:{}", uid(6)));
    h.key(KeyCode::Enter);
    assert_eq!(h.pane.new_count(), 1, "one of the new rows matches");
    assert!(h.cmd(Command::Back));
    assert_eq!(h.pane.row_count(&h.sh), 8, "the filter is cleared");
    assert_eq!(h.pane.new_count(), 3);

    assert!(h.cmd(Command::FollowTail));
    assert!(h.pane.is_following());
    assert_eq!(h.selected_id(), Some(uid(7)), "f jumps to the newest");
    assert_eq!(h.pane.new_count(), 0);
    assert_eq!(h.pane.tab_count(&h.sh), Some(8));

    // Any movement pauses, including Down and Bottom.
    h.cmd(Command::Bottom);
    assert!(!h.pane.is_following());
}

#[test]
fn earlier_updates_are_prepended_keeping_the_cursor_and_walk_back_to_ledger_begin() {
    let now = t0() + 60 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    h.run_to_head(1, txs(100, 5, 1, t0()));
    h.cmd(Command::Top);
    assert_eq!(h.pane.cursor_row(), 0);
    assert!(h.pending.is_empty(), "Top from below only moves");
    let selected = h.selected_id();

    // Top at row 0: load earlier, one hour back from the oldest loaded update.
    h.cmd(Command::Top);
    assert!(h.sh.feed.loading_earlier);
    assert!(h.screen_text(120, 40).contains("loading earlier"));
    let (_, r) = h.next_pending();
    assert_eq!(updates_req(&r).1, UpdatesPurpose::Earlier);
    assert_eq!(updates_req(&r).0.page_size, PAGE_SIZE);
    assert_eq!(after_of(&r), (1, t0() - EARLIER_FIRST_STEP));

    // A full page that does not reach the oldest loaded update: a gap, so half the step.
    h.answer(Ok(page(txs(1000, 1000, 1, t0() - 3500 * SEC))));
    assert_eq!(h.pane.row_count(&h.sh), 5, "nothing prepended across a gap");
    let (_, r) = h.next_pending();
    assert_eq!(after_of(&r), (1, t0() - EARLIER_FIRST_STEP / 2));

    // 40 earlier updates, then the oldest loaded one: prepended, the cursor stays put.
    let mut items = txs(200, 40, 1, t0() - 1000 * SEC);
    items.extend(txs(100, 5, 1, t0()));
    h.answer(Ok(page(items)));
    assert_eq!(h.pane.row_count(&h.sh), 45);
    assert_eq!(
        h.selected_id(),
        selected,
        "the cursor stays on the same update"
    );
    assert_eq!(h.pane.cursor_row(), 40);

    // Fewer than 100 so far: keep going with a doubled step from the new oldest update.
    let first = t0() - 1000 * SEC;
    let (_, r) = h.next_pending();
    assert_eq!(after_of(&r), (1, first - EARLIER_FIRST_STEP));
    // Nothing more in migration 1: the step doubles until the whole migration was asked for.
    let mut steps = 0;
    loop {
        let (_, r) = h.next_pending();
        let (m, after) = after_of(&r);
        if m == 0 {
            assert_eq!(after, first - EARLIER_FIRST_STEP, "previous migration");
            break;
        }
        h.answer(Ok(page(vec![tx(7, 1, first)])));
        steps += 1;
        assert!(steps < 30, "the search must end");
    }
    assert!(
        steps >= 10,
        "steps double up to a year, then the whole migration"
    );

    // Migration 0 has 60 more: with 100 gathered the job stops.
    let mut items = txs(300, 60, 0, first - 1800 * SEC);
    items.push(tx(7, 1, first));
    h.answer(Ok(page(items)));
    assert_eq!(h.pane.row_count(&h.sh), 105);
    assert!(!h.sh.feed.loading_earlier);
    assert!(h.pending.is_empty());
    assert_eq!(h.selected_id(), selected);
    assert_eq!(h.pane.cursor_row(), 100);

    // Again from the top: migration 0 runs out and the ledger begin is reached.
    h.cmd(Command::Top);
    h.cmd(Command::Top);
    let mut guard = 0;
    while h.sh.feed.loading_earlier {
        h.settle();
        let (_, r) = h.pending.first().cloned().expect("a request");
        if updates_req(&r).1 == UpdatesPurpose::Earlier {
            assert_eq!(after_of(&r).0, 0, "never below migration 0");
        }
        h.answer(Ok(page(vec![])));
        guard += 1;
        assert!(guard < 60);
    }
    assert!(h.sh.feed.reached_begin);
    assert!(
        messages(&h.take_out())
            .iter()
            .any(|m| m.contains("reached ledger begin"))
    );
    h.cmd(Command::Up);
    assert!(
        h.pending.is_empty(),
        "nothing is asked for before ledger begin"
    );
}

#[test]
fn filter_narrows_rows_reports_errors_and_stays_in_step_with_new_pages() {
    let now = t0() + 60 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    let mut items = txs(0, 4, 0, t0());
    items.push(tx_with(
        50,
        0,
        t0() + 10 * SEC,
        "Splice.ValidatorLicense:ValidatorLicense",
        "ValidatorLicense_RecordValidatorLivenessActivity",
        "carol::1220cc",
    ));
    h.run_to_head(0, items);
    assert_eq!(h.pane.row_count(&h.sh), 5);

    assert!(h.cmd(Command::Filter));
    assert!(h.pane.wants_raw_keys());
    assert_eq!(h.pane.key_context(), KeyContext::TextInput);
    assert!(
        h.screen_text(120, 40).contains("party:"),
        "the syntax is the placeholder"
    );
    h.type_text("party:carol");
    assert_eq!(h.pane.row_count(&h.sh), 1);
    assert_eq!(h.selected_id(), Some(uid(50)));
    assert!(h.screen_text(120, 40).contains("1 of 5 match"));

    // New pages keep the view in step.
    h.tick_at(now + 2 * SEC);
    h.answer(Ok(page(vec![
        tx(60, 0, t0() + 20 * SEC),
        tx_with(61, 0, t0() + 21 * SEC, "X:Y", "Z", "carol::1220cc"),
    ])));
    assert_eq!(h.pane.row_count(&h.sh), 2);

    // A bad regular expression: shown inline, the last good filter stays.
    for _ in 0.."party:carol".len() {
        h.key(KeyCode::Backspace);
    }
    h.type_text("choice:re:(");
    assert!(
        h.pane
            .filter_error()
            .is_some_and(|e| e.contains("regular expression"))
    );
    assert_eq!(h.pane.filter_text(), Some("choice:re:"));
    h.key(KeyCode::Backspace);
    assert_eq!(h.pane.filter_error(), None);
    h.type_text("Liveness");
    assert_eq!(h.pane.row_count(&h.sh), 1);

    // Enter keeps the filter and returns to the list.
    h.key(KeyCode::Enter);
    assert!(!h.pane.wants_raw_keys());
    assert_eq!(h.pane.key_context(), KeyContext::List);
    assert_eq!(h.pane.filter_text(), Some("choice:re:Liveness"));
    assert!(h.screen_text(120, 40).contains("choice:re:Liveness"));

    // Esc in the input clears it.
    h.cmd(Command::Filter);
    h.key(KeyCode::Esc);
    assert_eq!(h.pane.filter_text(), None);
    assert_eq!(h.pane.row_count(&h.sh), 7);

    // The palette's entry point.
    let mut out = Out::default();
    h.pane
        .set_filter("template:ValidatorLicense", &h.sh, &mut out);
    assert_eq!(h.pane.row_count(&h.sh), 1);
    h.pane.set_filter("re:[", &h.sh, &mut out);
    assert_eq!(errors(&out).len(), 1);
    assert_eq!(h.pane.filter_text(), Some("template:ValidatorLicense"));
    assert!(h.cmd(Command::Back), "Esc clears an active filter");
    assert_eq!(h.pane.row_count(&h.sh), 7);
}

#[test]
fn enter_opens_the_update_and_y_copies_its_id() {
    let now = t0() + 60 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    h.run_to_head(0, txs(0, 3, 0, t0()));
    h.take_out();
    h.cmd(Command::Up);
    assert!(h.cmd(Command::Select));
    let out = h.take_out();
    assert!(out.events.contains(&AppEvent::OpenUpdate {
        update_id: uid(1),
        event_id: None
    }));
    assert!(h.cmd(Command::Copy));
    let out = h.take_out();
    assert!(out.effects.contains(&Effect::Copy(uid(1))));
}

#[test]
fn malformed_rows_say_so_and_enter_names_the_decode_problem() {
    let now = t0() + 60 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    h.run_to_head(0, vec![tx(0, 0, t0()), malformed(1, 0, t0() + SEC)]);
    assert_eq!(h.pane.row_count(&h.sh), 2);
    assert!(h.screen_text(120, 40).contains("malformed"));
    h.take_out();
    h.cmd(Command::Select);
    let out = h.take_out();
    let errs = errors(&out);
    assert_eq!(errs.len(), 1, "{:?}", out.events);
    assert!(errs[0].contains("could not be decoded"), "{}", errs[0]);
    assert!(errs[0].contains("events_by_id"), "{}", errs[0]);
    assert!(
        !out.events
            .iter()
            .any(|e| matches!(e, AppEvent::OpenUpdate { .. }))
    );
}

#[test]
fn errors_are_reported_and_retried_with_backoff() {
    let now = t0() + 60 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    h.run_to_head(0, txs(0, 2, 0, t0()));
    h.take_out();

    h.tick_at(now + 2 * SEC);
    h.answer(Err(connect_error()));
    let out = h.take_out();
    assert!(errors(&out)[0].contains("connection refused"));
    assert_eq!(h.sh.feed.failures, 1);
    assert_eq!(h.pane.tab_count(&h.sh), Some(2), "the title says retrying");
    assert!(h.pane.status_text(&h.sh).contains("retrying"));
    assert_eq!(h.pane.row_count(&h.sh), 2, "state is kept");

    // Retry after the refresh interval (2 s), then after 4 s, 8 s, …
    h.tick_at(now + 3 * SEC);
    assert!(h.pending.is_empty());
    h.tick_at(now + 4 * SEC);
    assert_eq!(h.pending.len(), 1);
    // A scan that is still backfilling is just another error.
    h.answer(Err(ApiError::Scan {
        endpoint: "scan POST /v2/updates",
        status: 503,
        message: "backfilling: unavailable, try later".into(),
    }));
    assert_eq!(h.sh.feed.failures, 2);
    h.tick_at(now + 7 * SEC);
    assert!(h.pending.is_empty(), "back-off doubled to 4 s");
    h.tick_at(now + 8 * SEC);
    // Once the scan answers again, the newest loaded update is read again first (is the
    // history under the explorer still the one loaded?), then the same cursor is retried.
    let (_, r) = h.one_pending();
    assert_eq!(updates_req(&r).1, UpdatesPurpose::Verify);
    assert_eq!(updates_req(&r).0.page_size, 1);
    assert_eq!(after_of(&r), (0, t0() + SEC - 1), "from just before it");
    h.answer(Ok(page(txs(1, 1, 0, t0() + SEC))));
    assert_eq!(h.pane.row_count(&h.sh), 2, "it stands: nothing reloads");
    let (_, r) = h.one_pending();
    assert_eq!(after_of(&r), (0, t0() + SEC), "the same cursor is retried");
    h.answer(Ok(page(txs(2, 1, 0, t0() + 2 * SEC))));
    assert_eq!(h.sh.feed.failures, 0);
    assert_eq!(h.pane.row_count(&h.sh), 3);
    assert_eq!(h.pane.tab_count(&h.sh), Some(3));
    h.tick_at(now + 9 * SEC);
    assert!(h.pending.is_empty(), "back to the normal interval");
    h.tick_at(now + 10 * SEC);
    assert_eq!(h.pending.len(), 1);

    // Errors while loading earlier updates are retried too.
    h.answer(Ok(page(vec![])));
    h.cmd(Command::Top);
    h.cmd(Command::Top);
    assert!(h.sh.feed.loading_earlier);
    h.answer(Err(connect_error()));
    assert!(h.sh.feed.loading_earlier);
    assert!(h.pending.is_empty());
    h.tick_at(now + 13 * SEC);
    assert_eq!(
        h.pending.len(),
        2,
        "the earlier load and the poll are both due"
    );
}

#[test]
fn begin_mode_pages_lazily_from_ledger_begin() {
    let now = t0() + 3600 * SEC;
    let mut h = Harness::new(StartFrom::Begin, now);
    h.start();
    let (_, r) = h.one_pending();
    let (req, purpose) = updates_req(&r);
    assert_eq!(purpose, UpdatesPurpose::Forward);
    assert_eq!(*req, UpdatesRequest::from_begin(PAGE_SIZE));

    h.answer(Ok(page(txs(0, 1000, 0, t0()))));
    assert!(!h.pane.is_following(), "starts at the first update");
    assert_eq!(h.pane.cursor_row(), 0);
    // Within one page of the end: the next page is loaded.
    let (_, r) = h.one_pending();
    assert_eq!(after_of(&r), (0, t0() + 999 * SEC));
    h.answer(Ok(page(txs(1000, 1000, 0, t0() + 1000 * SEC))));
    assert!(h.pending.is_empty(), "far from the end: wait");
    h.tick_at(now + 60 * SEC);
    assert!(h.pending.is_empty());

    h.cmd(Command::Bottom);
    assert_eq!(h.pending.len(), 1, "the end of the list loads more");
    h.answer(Ok(page(txs(2000, 10, 0, t0() + 2000 * SEC))));
    assert!(h.sh.feed.at_head);
    assert_eq!(h.pane.row_count(&h.sh), 2010);
    assert!(h.sh.feed.reached_begin);
    h.cmd(Command::Top);
    h.cmd(Command::Top);
    assert!(h.pending.is_empty(), "nothing before ledger begin");
}

#[test]
fn goto_time_selects_within_the_loaded_range_and_restarts_outside_it() {
    let now = t0() + 60 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    h.run_to_head(3, txs(0, 5, 3, t0()));
    let mut out = Out::default();
    h.pane
        .goto_time(t0() + 2 * SEC + SEC / 2, &mut h.sh, &mut out);
    h.collect(out);
    assert_eq!(
        h.selected_id(),
        Some(uid(3)),
        "first update at or after the time"
    );
    assert!(!h.pane.is_following());

    h.tick_at(now + 2 * SEC);
    assert_eq!(h.pending.len(), 1);
    let target = t0() - 86_400 * SEC;
    let mut out = Out::default();
    h.pane.goto_time(target, &mut h.sh, &mut out);
    h.drive(&mut out, None);
    let cancelled = out.effects.iter().any(|e| matches!(e, Effect::Cancel(_)));
    assert!(cancelled, "the poll in flight is cancelled");
    h.pending.clear();
    h.collect_effects(out);
    assert_eq!(h.sh.history.len(), 0, "the history restarts");
    let (_, r) = h.one_pending();
    assert_eq!(updates_req(&r).1, UpdatesPurpose::Forward);
    // Discovery saw migrations 1 to 3 start at t0: a day earlier is migration 0 (the cursor
    // used to be the newest migration's, which skipped the older history).
    assert_eq!(
        after_of(&r),
        (0, target),
        "the migration in force at the time"
    );
    h.answer(Ok(page(txs(500, 4, 0, target + SEC))));
    assert_eq!(h.pane.cursor_row(), 0);
    assert_eq!(h.selected_id(), Some(uid(500)));
}

/// `:time` (and `--from`) read from the migration in force at the time, as discovery found the
/// migrations to start, not from the newest migration (which skipped everything older: a time in
/// migration 0 of a network now in migration 1 loaded migration 1 from its first update).
#[test]
fn a_time_reads_from_the_migration_in_force_then() {
    let now = t0() + 60 * SEC;
    let day = 86_400 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    h.start();
    // Migration 1 starts two days before t0, migration 2 an hour before it.
    let req = h.answer(Ok(page(vec![tx(9000, 1, t0() - 2 * day)])));
    assert_discover(&req, 0);
    let req = h.answer(Ok(page(vec![tx(9001, 2, t0() - 3_600 * SEC)])));
    assert_discover(&req, 1);
    let req = h.answer(Ok(page(vec![])));
    assert_discover(&req, 2);
    h.answer(Ok(page(txs(0, 3, 2, t0()))));
    assert!(h.sh.feed.at_head);
    for (target, migration) in [
        (t0() - day, 1),
        (t0() - 3 * day, 0),
        (t0() - 2 * day, 1),
        (t0() - 1_800 * SEC, 2),
    ] {
        h.pending.clear();
        let mut out = Out::default();
        h.pane.goto_time(target, &mut h.sh, &mut out);
        h.drive(&mut out, None);
        h.pending.clear();
        h.collect_effects(out);
        let (_, r) = h.one_pending();
        assert_eq!(
            after_of(&r),
            (migration, target),
            "{} is in migration {migration}",
            format_time_micros(target)
        );
    }

    // `--from` a time: discovery first, then the migration in force at that time.
    let mut h = Harness::new(StartFrom::Time(t0() - day), now);
    h.start();
    h.answer(Ok(page(vec![tx(9000, 1, t0() - 2 * day)])));
    h.answer(Ok(page(vec![tx(9001, 2, t0() - 3_600 * SEC)])));
    h.answer(Ok(page(vec![])));
    let (_, r) = h.one_pending();
    assert_eq!(updates_req(&r).1, UpdatesPurpose::Forward);
    assert_eq!(after_of(&r), (1, t0() - day), "--from reads migration 1");
}

#[test]
fn now_mode_shows_only_new_updates() {
    let now = t0();
    let mut h = Harness::new(StartFrom::Now, now);
    h.start();
    h.answer(Ok(page(vec![])));
    let (_, r) = h.one_pending();
    assert_eq!(updates_req(&r).1, UpdatesPurpose::Forward);
    assert_eq!(after_of(&r), (0, now));
    h.answer(Ok(page(vec![])));
    assert!(h.sh.feed.at_head);
    assert!(h.screen_text(80, 24).contains("waiting for new ones"));
    h.tick_at(now + 2 * SEC);
    h.answer(Ok(page(txs(0, 2, 0, now + SEC))));
    assert_eq!(h.selected_id(), Some(uid(1)));
}

#[test]
fn replies_to_other_requests_are_ignored() {
    let now = t0() + 60 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    h.run_to_head(0, txs(0, 2, 0, t0()));
    let mut out = Out::default();
    let req = Request::api(cantonscope::api::scan::updates(
        &UpdatesRequest::from_begin(PAGE_SIZE),
    ));
    h.drive(
        &mut out,
        Some(&fetched(
            RequestId::new(PaneId::History, 9999),
            &req,
            &Ok(page(txs(100, 5, 0, t0() + 100 * SEC))),
        )),
    );
    assert_eq!(h.pane.row_count(&h.sh), 2);
    assert!(out.effects.is_empty());
}

#[test]
fn server_strings_cannot_reach_the_terminal_raw() {
    let now = t0() + 60 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    let mut evil = tx_with(
        0,
        0,
        t0(),
        "Evil:\u{1b}]52;c;aGk=\u{7}T",
        "\u{1b}[2J\u{202e}Choice\u{9b}31m",
        "x::1",
    );
    evil["update_id"] = json!("\u{1b}[31mRED\u{1b}[0m");
    evil["synchronizer_id"] = json!("\u{1b}]0;title\u{7}dom::1");
    h.run_to_head(0, vec![evil]);
    for (w, hgt) in [(80, 24), (120, 40)] {
        let buf = h.render(w, hgt);
        for cell in buf.content() {
            assert!(
                !cell
                    .symbol()
                    .chars()
                    .any(|c| c.is_control() || c == '\u{202e}'),
                "raw control in {:?}",
                cell.symbol()
            );
        }
    }
    assert!(h.screen_text(120, 40).contains("␛"));
}

#[test]
fn tiny_sizes_never_panic() {
    let now = t0() + 60 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    h.run_to_head(0, txs(0, 20, 0, t0()));
    h.cmd(Command::Top);
    h.cmd(Command::Top);
    h.cmd(Command::Filter);
    h.type_text("re:(");
    for (w, hgt) in [(1, 1), (0, 5), (5, 0), (3, 3), (20, 4), (40, 10), (2, 30)] {
        let mut buf = Buffer::empty(Rect::new(0, 0, w, hgt));
        h.pane.render(
            buf.area,
            &mut buf,
            RenderCtx::new(&h.sh, &Theme::default(), false),
        );
        h.pane.set_area(Rect::new(0, 0, w, hgt));
        h.cmd(Command::PageDown);
    }
}

// ---------------------------------------------------------------------------------------------
// Snapshots
// ---------------------------------------------------------------------------------------------

fn snapshot_harness() -> Harness {
    let now = t0() + 3600 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    let base = now - 300 * SEC;
    let mut items = Vec::new();
    for i in 0..40u64 {
        let t = base + i as i64 * 7 * SEC + (i as i64 * 123_457) % SEC;
        items.push(match i % 10 {
            3 => assign(i, 1, t),
            6 => unassign(i, 1, t),
            8 => tx_with(
                i,
                1,
                t,
                "Splice.ValidatorLicense:ValidatorLicense",
                "ValidatorLicense_RecordValidatorLivenessActivity",
                "validator-1::1220aa",
            ),
            9 if i == 19 => malformed(i, 1, t),
            _ => tx(i, 1, t),
        });
    }
    h.run_to_head(1, items);
    // Read a little above the head; two new updates arrive meanwhile.
    for _ in 0..6 {
        h.cmd(Command::Up);
    }
    h.tick_at(now + 2 * SEC);
    h.answer(Ok(page(txs(100, 2, 1, base + 300 * SEC))));
    h
}

fn snapshot(h: &Harness, w: u16, hgt: u16) -> TestBackend {
    let mut terminal = Terminal::new(TestBackend::new(w, hgt)).expect("terminal");
    terminal
        .draw(|f| {
            h.pane.render(
                f.area(),
                f.buffer_mut(),
                RenderCtx::new(&h.sh, &Theme::default(), true),
            );
        })
        .expect("draw");
    terminal.backend().clone()
}

#[test]
fn snapshot_80x24() {
    let mut h = snapshot_harness();
    h.pane.set_area(Rect::new(0, 0, 80, 24));
    assert_snapshot!("snapshot_80x24", snapshot(&h, 80, 24));
}

#[test]
fn snapshot_120x40() {
    let mut h = snapshot_harness();
    h.pane.set_area(Rect::new(0, 0, 120, 40));
    assert_snapshot!("snapshot_120x40", snapshot(&h, 120, 40));
}

#[test]
fn snapshot_80x24_filtering() {
    let mut h = snapshot_harness();
    h.pane.set_area(Rect::new(0, 0, 80, 24));
    h.cmd(Command::Filter);
    h.type_text("choice:Liveness");
    assert_snapshot!("snapshot_80x24_filtering", snapshot(&h, 80, 24));
}

// ---------------------------------------------------------------------------------------------
// A hostile scan over real HTTP (127.0.0.1)
// ---------------------------------------------------------------------------------------------

/// A scan that answers every request with the same one-update page (it ignores `after`): the
/// whole explorer, over HTTP, asks a few times, stops loading and says why — where it used to
/// send 10,000 discovery probes at once.
#[test]
fn a_scan_that_ignores_after_is_asked_a_few_times_and_the_loading_stops_with_a_message() {
    use cantonscope::msg::Action;
    use cantonscope::runtime::fetch::execute;

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let body = serde_json::to_vec(&json!({ "transactions": [tx(1, 0, t0())] })).expect("json");
    let server = rt.block_on(crate::safety::hostile(crate::safety::json_reply(200, body)));
    let settings = cantonscope::config::Settings {
        scan_url: Some(server.url.parse().expect("url")),
        ..Default::default()
    };
    let start = t0() + 60 * SEC;
    let (mut app, clients) = {
        let _guard = rt.enter();
        cantonscope::runtime::build(&settings, start).expect("app builds")
    };
    let mut queue: std::collections::VecDeque<Effect> = app.start().into();
    // Ten seconds of the app's clock, a tick every 100 ms, every fetch run to its end.
    for step in 1..=100 {
        while let Some(effect) = queue.pop_front() {
            if let Effect::Fetch { id, request } = effect {
                let result = rt.block_on(execute(&clients, &request));
                queue.extend(app.update(Action::Fetched(Box::new(Fetched {
                    id,
                    request,
                    result,
                    elapsed_ms: 1,
                }))));
            }
            assert!(server.requests() < 1_000, "a burst of requests");
        }
        queue.extend(app.update(Action::Tick(start + step * SEC / 10)));
    }
    // Two history pages, the polls of /status (every 2 s) and one measurement of the network
    // (its scan's /status, /version, mining rounds and head: every 30 s).
    assert!(server.requests() <= 17, "{} requests", server.requests());
    assert!(
        app.errors
            .entries()
            .any(|e| e.message.contains("the scan returned the same page twice")),
        "{:?}",
        app.errors.entries().map(|e| &e.message).collect::<Vec<_>>()
    );
    assert!(
        app.history.status_text(&app.sh).contains("stopped"),
        "{}",
        app.history.status_text(&app.sh)
    );
}

// ---------------------------------------------------------------------------------------------
// Memory budget
// ---------------------------------------------------------------------------------------------

#[test]
fn over_the_memory_budget_the_oldest_leave_and_the_paused_selection_stays_put() {
    let now = t0() + 60 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    h.loader.set_memory_budget_mib(1);
    // The rig answers new updates whatever is asked: no checks of the history at the head.
    h.loader.set_head_check_every(u32::MAX);
    h.run_to_head(0, txs(0, 900, 0, t0()));
    let mut selected = None;
    let mut next = 1000;
    let mut clock = now;
    while h.sh.history.dropped() == 0 {
        if selected.is_none() && h.sh.history.memory_bytes() > 600 << 10 {
            // Close to the budget: pause on one of the newest updates.
            for _ in 0..3 {
                h.cmd(Command::Up);
            }
            selected = h.selected_id();
        }
        clock += 2 * SEC;
        h.tick_at(clock);
        h.answer(Ok(page(txs(next, 500, 0, t0() + next as i64 * SEC))));
        next += 500;
        assert!(next < 40_000, "the budget is never reached");
        assert!(h.sh.history.memory_bytes() <= 1 << 20);
    }
    assert!(selected.is_some());
    assert_eq!(
        h.selected_id(),
        selected,
        "the selection stays on its update"
    );
    assert!(!h.pane.is_following());
    let title = h.screen_text(120, 40);
    assert!(
        title.contains("memory cap 1 MiB: older dropped"),
        "{}",
        title.lines().next().unwrap_or_default()
    );
}

// ---------------------------------------------------------------------------------------------
// History you can reach (issue 10): the loaded range, `:time`, the Update column
// ---------------------------------------------------------------------------------------------

/// The whole explorer on the static demo: the History title names the loaded range, `:time -2h`
/// browses (the header says BROWSING, not PAUSED), `f` follows again; the Update column shows
/// the distinguishing part of the id and widens with the terminal.
#[test]
fn time_jumps_browse_and_the_title_names_the_loaded_range() {
    use crate::common::{Harness as AppHarness, stable};
    let mut h = AppHarness::start();
    let first = h.app.sh.history.first().expect("loaded").record_time();
    let last = h.app.sh.history.last().expect("loaded").record_time();
    let hm = |t: i64| h.app.sh.format_time(t)[11..16].to_string();
    let range = format!("{}–{} UTC", hm(first), hm(last));
    let screen = h.screen(200, 60);
    let title = screen
        .lines()
        .find(|l| l.contains("History ·"))
        .expect("title");
    assert!(
        title.contains(&format!("{range} · ")),
        "{range} not in {title}"
    );

    // The Update column: no constant `1220` prefix, wider at 200 columns than at 80.
    let id = h.app.history.selected_update_id(&h.app.sh).expect("a row");
    let distinct = &id[4..];
    let shown = |screen: &str| {
        (4..=distinct.len())
            .rev()
            .find(|&n| screen.contains(&distinct[..n]))
            .unwrap_or(0)
    };
    let wide = shown(&screen);
    let narrow = shown(&h.screen(80, 24));
    assert!(wide >= 16, "{wide} characters at 200 columns");
    assert!(
        narrow >= 6 && narrow < wide,
        "{narrow} at 80, {wide} at 200"
    );
    assert!(!screen.contains(&id[..12]), "the 1220 prefix is not shown");

    h.palette("time -2h");
    assert!(h.app.history.is_browsing());
    let filler = regex::Regex::new("browsing─+").unwrap();
    let counts = regex::Regex::new(r"History (\d+)|(\d[\d,]*) updates").unwrap();
    for (w, hgt) in [(80, 24), (200, 60)] {
        let screen = h.screen(w, hgt);
        let header = screen.lines().next().unwrap_or_default();
        assert!(header.contains("BROWSING"), "{header}");
        assert!(!header.contains("PAUSED"), "{header}");
        // The range's width depends on the time of day (a date is added when it crosses
        // midnight): the title's filler is cut to a fixed width.
        let screen = filler
            .replace_all(&stable(&screen), "browsing──")
            .into_owned();
        // Run in the two hours after midnight (UTC), the jump loads rows of two days, and the
        // Time column then shows dates: that layout has snapshots of its own.
        let days = h.days_suffix();
        // After midnight how many updates the jump loads depends on the minute it runs: the
        // counts of that layout are not part of its snapshot.
        let screen = if days.is_empty() {
            screen
        } else {
            counts
                .replace_all(&screen, |c: &regex::Captures<'_>| {
                    if c.get(1).is_some() {
                        "History <n>".to_owned()
                    } else {
                        "<n> updates".to_owned()
                    }
                })
                .into_owned()
        };
        assert_snapshot!(format!("time_browsing_{w}x{hgt}{days}"), screen);
    }
    // Moving keeps browsing; following the tail ends it.
    h.key(crossterm::event::KeyCode::Char('k'));
    assert!(
        h.screen(120, 40)
            .lines()
            .next()
            .unwrap_or_default()
            .contains("BROWSING")
    );
    h.key(crossterm::event::KeyCode::Char('f'));
    assert!(!h.app.history.is_browsing());
    assert!(
        h.screen(120, 40)
            .lines()
            .next()
            .unwrap_or_default()
            .contains("LIVE")
    );

    // A time the palette cannot read says how to write one.
    h.palette("time next tuesday");
    assert!(crate::common::toast(&h).contains("-2h or yesterday 14:00"));
}

#[test]
fn tab_completes_party_ids_in_the_filter() {
    let now = t0() + 60 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    let mut items = txs(0, 3, 0, t0());
    for (n, party) in [
        (50, "julia-2::1220bb"),
        (51, "julia::1220aa"),
        (52, "ajuna::1220cc"),
    ] {
        items.push(tx_with(
            n,
            0,
            t0() + (n as i64) * SEC,
            "Splice.Amulet:Amulet",
            "Transfer",
            party,
        ));
    }
    h.run_to_head(0, items);
    let _ = h.take_out();
    assert!(h.cmd(Command::Filter));
    h.type_text("party:ju");
    h.key(KeyCode::Tab);
    // Prefix matches first, the party name before its fingerprint: julia:: before julia-2::.
    assert_eq!(h.pane.filter_text(), Some("party:julia::1220aa"));
    assert_eq!(h.pane.row_count(&h.sh), 1);
    assert_eq!(h.selected_id(), Some(uid(51)));
    let said = messages(&h.take_out());
    assert!(
        said.iter().any(|m| m.contains("3 parties match")),
        "{said:?}"
    );
    // Tab again goes on to the next match, Shift-Tab back; the filter follows.
    h.key(KeyCode::Tab);
    let second = h.pane.filter_text().map(str::to_owned);
    assert_ne!(second.as_deref(), Some("party:julia::1220aa"), "{second:?}");
    assert!(second.as_deref().is_some_and(|t| t.starts_with("party:ju")));
    h.key(KeyCode::BackTab);
    assert_eq!(h.pane.filter_text(), Some("party:julia::1220aa"));
    assert_eq!(h.selected_id(), Some(uid(51)));
    // Without `party:` Tab says what it completes, and changes nothing.
    h.key(KeyCode::Esc);
    assert!(h.cmd(Command::Filter));
    h.type_text("ju");
    h.key(KeyCode::Tab);
    assert_eq!(h.pane.filter_text(), Some("ju"));
    let said = messages(&h.take_out());
    assert!(said.iter().any(|m| m.contains("after party:")), "{said:?}");
}

/// The whole explorer on the demo (whose history has migration 0, then migration 1): `:time`
/// to a time in migration 0 loads migration 0 from that time. Before, the cursor took the
/// newest migration and the list began at migration 1's first update, hours later.
#[test]
fn time_in_an_earlier_migration_loads_that_migration() {
    use crate::common::Harness as AppHarness;
    let ledger = cantonscope::demo::generate(42);
    let old: Vec<_> = ledger
        .updates()
        .iter()
        .filter(|u| u.migration_id == 0)
        .collect();
    assert!(old.len() > 10, "the demo has a migration 0");
    let target = old[old.len() / 2].record_time - 1;
    let expected = old
        .iter()
        .find(|u| u.record_time >= target)
        .expect("an update after the target");

    let mut h = AppHarness::start();
    assert_eq!(
        h.app.sh.feed.migration,
        Some(1),
        "the network is in migration 1"
    );
    h.palette(&format!("time {}", format_time_micros(target)));
    let first = h.app.sh.history.first().expect("loaded from the time");
    assert_eq!(
        (first.migration_id(), first.record_time()),
        (0, expected.record_time),
        "the first update at or after the time, in migration 0"
    );
}

/// Issue 21: at 80x24 the Time column spends no room on a date the rows share (the Summary gets
/// it); when the loaded rows span midnight, each row carries its date.
#[test]
fn the_time_column_shows_dates_only_when_the_rows_span_days() {
    let rows = |screen: &str| -> Vec<String> {
        screen
            .lines()
            .filter(|l| l.contains("AmuletRules_Transfer"))
            .map(str::to_string)
            .collect()
    };
    // One day: times of day only, and the Summary is wider than with dates.
    let now = t0() + 3600 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    h.run_to_head(1, txs(0, 10, 1, now - 300 * SEC));
    h.pane.set_area(Rect::new(0, 0, 80, 24));
    let screen = h.screen_text(80, 24);
    assert!(screen.contains("Time (UTC)   "), "{screen}");
    let one_day = rows(&screen);
    assert!(!one_day.is_empty(), "{screen}");
    for row in &one_day {
        assert!(row.starts_with("│10:55:"), "{row}");
        assert!(!row.contains("2026-"), "{row}");
    }
    // Across midnight: the date on every row.
    let midnight = parse_time_micros("2026-11-23T00:00:00Z").expect("time");
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, midnight + 300 * SEC);
    h.run_to_head(1, txs(0, 10, 1, midnight - 5 * SEC));
    h.pane.set_area(Rect::new(0, 0, 80, 24));
    let screen = h.screen_text(80, 24);
    let rows = rows(&screen);
    assert!(
        rows.iter().any(|r| r.starts_with("│2026-11-22 23:59:5")),
        "{screen}"
    );
    assert!(
        rows.iter().any(|r| r.starts_with("│2026-11-23 00:00:0")),
        "{screen}"
    );
}

/// Issue 21 (k9s habit): `R` flips the list newest first / oldest first; the title says so,
/// the selection stays on the same update, the movement keys move on screen, and rows that
/// arrive at the head come in at the top.
#[test]
fn r_flips_the_list_newest_first_and_keeps_the_selection() {
    let km = cantonscope::config::keymap::KeyMap::defaults();
    let r = KeyEvent::new(KeyCode::Char('R'), KeyModifiers::SHIFT);
    assert_eq!(
        km.lookup(KeyContext::Global, &r),
        Some(Command::FlipOrder),
        "R is the key"
    );
    let now = t0() + 60 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    h.run_to_head(0, txs(0, 8, 0, t0()));
    h.cmd(Command::Up);
    assert_eq!(h.selected_id(), Some(uid(6)));
    let line_of = |screen: &str, n: u64| {
        let frag = &uid(n)[4..14];
        screen
            .lines()
            .position(|l| l.contains(frag))
            .unwrap_or_else(|| panic!("uid {n} on screen:\n{screen}"))
    };
    let screen = h.screen_text(120, 40);
    assert!(!screen.contains("newest first"), "{screen}");
    assert!(line_of(&screen, 0) < line_of(&screen, 7), "oldest first");

    assert!(h.cmd(Command::FlipOrder));
    assert!(h.pane.is_newest_first());
    assert_eq!(
        h.selected_id(),
        Some(uid(6)),
        "the same update stays selected"
    );
    let screen = h.screen_text(120, 40);
    assert!(screen.contains("History · newest first"), "{screen}");
    assert!(line_of(&screen, 7) < line_of(&screen, 6), "newest first");
    assert!(line_of(&screen, 1) < line_of(&screen, 0));
    assert_snapshot!("history_newest_first_120x40", screen);
    // The keys move on screen: Down goes to the older update, Up to the newer.
    h.cmd(Command::Down);
    assert_eq!(h.selected_id(), Some(uid(5)));
    h.cmd(Command::Up);
    h.cmd(Command::Up);
    assert_eq!(h.selected_id(), Some(uid(7)));
    h.cmd(Command::Down);
    // New rows at the head come in at the top; the selection stays.
    h.tick_at(now + 2 * SEC);
    h.answer(Ok(page(txs(8, 3, 0, t0() + 8 * SEC))));
    assert_eq!(h.selected_id(), Some(uid(6)));
    let screen = h.screen_text(120, 40);
    assert!(line_of(&screen, 10) < line_of(&screen, 7), "{screen}");
    // Back to ledger order: the same update still selected.
    h.cmd(Command::FlipOrder);
    assert!(!h.pane.is_newest_first());
    assert_eq!(h.selected_id(), Some(uid(6)));
    let screen = h.screen_text(120, 40);
    assert!(!screen.contains("newest first"), "{screen}");
    assert!(line_of(&screen, 0) < line_of(&screen, 10));
}

/// Issue 38: below 100 columns, a column that reads the same on every row in view (the
/// migration, the kind) gives its room to the Summary and its value is said once on the border;
/// a row of another kind brings the Kind column back, and wider screens keep every column.
#[test]
fn narrow_history_says_a_constant_migration_and_kind_once_and_gives_the_summary_their_room() {
    let now = t0() + 3600 * SEC;
    let mut h = Harness::new(StartFrom::Recent { window_secs: 600 }, now);
    let base = now - 300 * SEC;
    let mut items = vec![assign(0, 1, base), unassign(1, 1, base + SEC)];
    for i in 2..40u64 {
        items.push(tx_with(
            i,
            1,
            base + i as i64 * 7 * SEC,
            "Splice.ValidatorLicense:ValidatorLicense",
            "ValidatorLicense_RecordValidatorLivenessActivity",
            "validator-1::1220aa",
        ));
    }
    h.run_to_head(1, items);
    h.pane.set_area(Rect::new(0, 0, 80, 24));
    let text = |h: &Harness, w, hgt| untrimmed_text(snapshot(h, w, hgt).buffer());
    // At the tail, every row in view is a transaction of migration 1.
    let tail = text(&h, 80, 24);
    let lines: Vec<&str> = tail.lines().collect();
    assert!(lines[0].contains("mig 1 · transactions"), "{tail}");
    assert!(
        !lines[1].contains("Mig") && !lines[1].contains("Kind"),
        "{tail}"
    );
    assert!(lines[1].contains("Summary"), "{tail}");
    // The Summary gets the room (32 columns with them, 45 without).
    let room = lines[1].find("Events").unwrap_or(0) - lines[1].find("Summary").unwrap_or(0);
    assert!(room >= 44, "{room}: {tail}");
    assert!(!tail.contains(" transaction "), "{tail}");
    assert_snapshot!("narrow_folds_constant_columns_80x24", snapshot(&h, 80, 24));
    // At the top an assign and an unassign are in view: Kind is a column again, the migration
    // is still said once.
    h.cmd(Command::Top);
    let top = text(&h, 80, 24);
    let lines: Vec<&str> = top.lines().collect();
    assert!(
        lines[1].contains("Kind") && !lines[1].contains("Mig"),
        "{top}"
    );
    assert!(
        lines[0].contains("mig 1") && !lines[0].contains("transactions"),
        "{top}"
    );
    assert!(
        top.contains(" assign ") && top.contains(" transaction "),
        "{top}"
    );
    // Wider, nothing is folded.
    h.cmd(Command::Bottom);
    h.pane.set_area(Rect::new(0, 0, 120, 40));
    let wide = text(&h, 120, 40);
    let lines: Vec<&str> = wide.lines().collect();
    assert!(
        lines[1].contains("Mig") && lines[1].contains("Kind"),
        "{wide}"
    );
    assert!(!lines[0].contains("transactions"), "{wide}");
}
