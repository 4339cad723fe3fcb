//! The explorer on the local history index (issue 19, step 3), driven through the real app
//! against an index synced from the demo network by the real binary (`index sync --verify 1`):
//! the header's reach and a running sync (from the heartbeat), the whole-history search from
//! History (`F`: its total, paged rows, Enter opening an update the loaded history does not
//! hold), `c`'s lifecycle from the index, `--offline` (History from the index, no node asked;
//! without an index, exit 2), a damaged index file (one message, the explorer goes on), and
//! History reaching back through the index (`L 2d`, `:time`, Up above the loaded rows: the
//! list read from the index a page at a time, every update of the span, the memory budget of
//! 1 MiB untouched).

use std::path::{Path, PathBuf};

use cantonscope::model::format::format_time_micros;
use cantonscope::panes::history::IndexSearch;
use crossterm::event::KeyCode;

use crate::common::bin::{bin, runtime};
use crate::common::{Harness, Options, count, stable, toast};

/// How far back from the explorer's clock the tests' index reaches.
pub(crate) const SYNCED_SECS: i64 = 2 * 3600;

/// Syncs the demo at `scan_url` into `dir/index.sqlite` from `secs` before `now`.
pub(crate) fn sync_index(dir: &Path, scan_url: &str, now: i64, secs: i64) -> PathBuf {
    sync_index_from(dir, scan_url, &format_time_micros(now - secs * 1_000_000))
}

/// Syncs the demo at `scan_url` into `dir/index.sqlite` from `from` (`begin` or a time).
pub(crate) fn sync_index_from(dir: &Path, scan_url: &str, from: &str) -> PathBuf {
    sync_index_with(dir, scan_url, from, &[])
}

/// [`sync_index_from`] with `extra` arguments to `index sync`.
fn sync_index_with(dir: &Path, scan_url: &str, from: &str, extra: &[&str]) -> PathBuf {
    let path = dir.join("index.sqlite");
    let output = bin(dir)
        .arg("--scan-url")
        .arg(scan_url)
        .args(["index", "--index"])
        .arg(&path)
        .args([
            "sync",
            "--verify",
            "1",
            "--request-rate",
            "1000",
            "--timeout",
            "60s",
            "--from",
            from,
        ])
        .args(extra)
        .output()
        .expect("binary runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "sync: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    path
}

/// The explorer on the demo with an index synced from it (`offline`: `--offline`).
pub(crate) fn with_index(dir: &Path, offline: bool) -> Harness {
    with_index_reaching(dir, offline, SYNCED_SECS)
}

/// [`with_index`], the index reaching `secs` back.
fn with_index_reaching(dir: &Path, offline: bool, secs: i64) -> Harness {
    let dir = dir.to_owned();
    Harness::start_with(Options {
        prepare: Box::new(move |demo, now, settings| {
            let path = sync_index(&dir, &demo.scan_url, now, secs);
            settings.index = Some(path.display().to_string());
            settings.offline = offline;
        }),
        ..Options::default()
    })
}

/// The screen with the index's dates masked too.
pub(crate) fn screen(h: &mut Harness, w: u16, height: u16) -> String {
    let s = stable(&h.screen(w, height));
    let s = regex::Regex::new(r"(→ |idx )\d{2}-\d{2}")
        .expect("regex")
        .replace_all(&s, "$1<mm-dd>")
        .into_owned();
    regex::Regex::new(r"up to \d{2}-\d{2} \d{2}:\d{2}")
        .expect("regex")
        .replace_all(&s, "up to <mm-dd hh:mm>")
        .into_owned()
}

#[test]
fn the_header_says_how_far_the_index_reaches_and_whether_a_sync_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index(dir.path(), false);
    let reach = h
        .app
        .sh
        .index
        .reach
        .clone()
        .expect("the reach was read at start");
    assert!(reach.updates > 0, "{reach:?}");
    assert!(reach.sync_running.is_none(), "the sync ended: {reach:?}");
    let wide = screen(&mut h, 120, 40);
    let header = wide.lines().next().unwrap_or_default().to_owned();
    assert!(header.contains("index <date> → "), "{header}");
    assert!(!header.contains("syncing"), "{header}");
    let narrow = h.screen(80, 24);
    let header = narrow.lines().next().unwrap_or_default();
    assert!(header.contains("idx "), "80 columns: {header}");
    assert!(header.chars().count() <= 80, "{header}");

    // A sync in another process: its heartbeat, fresh, shows at the next reading; a stale one
    // (the sync died) does not.
    let location =
        cantonscope::store::Location::parse(h.app.sh.ctx.index.as_deref().expect("index"));
    let mut writer = cantonscope::store::open_writer(&location).expect("writer");
    let beat = |at: i64| cantonscope::store::Heartbeat {
        pid: 4242,
        host: "elsewhere".into(),
        started_at: at,
        beat_at: at,
        command: "index sync --follow".into(),
    };
    writer.beat(&beat(h.now)).expect("beat");
    h.tick(5.0);
    let running = h.app.sh.index.reach.clone().expect("reach").sync_running;
    assert_eq!(running.map(|r| r.pid), Some(4242));
    // (At 200 columns the header says it in words; narrower, `⟳` beside the index's reach.)
    let header = h
        .screen(200, 60)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(header.contains("syncing"), "{header}");
    let narrow = h
        .screen(120, 40)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(narrow.contains('⟳'), "{narrow}");
    writer.beat(&beat(h.now - 600_000_000)).expect("stale beat");
    h.tick(5.0);
    let header = h
        .screen(200, 60)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(
        !header.contains("syncing") && !header.contains('⟳'),
        "a stale heartbeat is no running sync: {header}"
    );
}

#[test]
fn without_an_index_the_header_says_nothing_of_one() {
    let mut h = Harness::start();
    assert!(!h.app.sh.index.configured());
    let s = h.screen(120, 40);
    assert!(
        !s.lines().next().unwrap_or_default().contains("index"),
        "{s}"
    );
}

#[test]
fn a_damaged_index_is_said_once_and_the_explorer_goes_on_without_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("damaged.sqlite");
    std::fs::write(
        &path,
        b"this is not an SQLite database, not at all: 0123456789abcdef",
    )
    .expect("write");
    let shown = path.display().to_string();
    let mut h = Harness::start_with(Options {
        tweak: Box::new(move |s| s.index = Some(shown)),
        ..Options::default()
    });
    assert!(!h.app.sh.index.usable());
    let text = toast(&h);
    assert!(text.contains("damaged"), "{text}");
    assert!(text.contains("goes on without the local index"), "{text}");
    assert_eq!(h.app.errors.len(), 1, "said once");
    // The explorer runs: the history loads from the scan, time passes, no second message.
    assert!(!h.app.sh.history.is_empty());
    for _ in 0..30 {
        h.tick(5.0);
    }
    assert_eq!(h.app.errors.len(), 1, "said once, not on every reading");
    // The Validators pane lists the loaded history's validators and says why not the index's.
    validators_without_the_index(&mut h, "the local index cannot be read now");
    let s = h.screen(120, 40);
    assert!(
        s.lines()
            .next()
            .unwrap_or_default()
            .contains("index unusable"),
        "{s}"
    );
    h.key(KeyCode::Char('q'));
}

/// The update ids of the loaded history.
fn loaded(h: &Harness) -> std::collections::HashSet<String> {
    h.app
        .sh
        .history
        .iter()
        .map(|s| s.update_id().to_string())
        .collect()
}

#[test]
fn the_whole_history_search_counts_pages_and_opens_an_update_not_loaded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index(dir.path(), false);
    let loaded = loaded(&h);
    // A choice every few updates make, in the index far beyond the loaded window.
    let choice = "choice:AmuletRules_Transfer";
    h.palette(&format!("filter {choice}"));
    let in_loaded = h.app.history.row_count(&h.app.sh);
    h.key(KeyCode::Char('F'));
    assert!(
        h.app
            .history
            .index_search()
            .is_some_and(IndexSearch::is_typing)
    );
    crate::common::clear_input(&mut h);
    // A bare word over the whole index is refused, naming the fielded terms.
    h.type_text("alice");
    h.key(KeyCode::Enter);
    assert!(toast(&h).contains("party:P"), "{}", toast(&h));
    assert!(
        h.app
            .history
            .index_search()
            .is_some_and(IndexSearch::is_typing)
    );
    crate::common::clear_input(&mut h);
    h.type_text(choice);
    h.key(KeyCode::Enter);
    let search = h.app.history.index_search().expect("search shown");
    assert!(!search.is_typing());
    let total = search.total().expect("counted");
    assert!(
        total as usize > in_loaded,
        "{total} in the index, {in_loaded} loaded"
    );
    assert_eq!(
        search.rows().len(),
        (total as usize).min(200),
        "the first page"
    );
    let s = screen(&mut h, 120, 40);
    assert!(
        s.contains("Whole index · choice:AmuletRules_Transfer"),
        "{s}"
    );
    assert!(s.contains("not the loaded rows"), "{s}");
    // Paging: the end of the list reads the next page.
    h.key(KeyCode::End);
    let rows = h.app.history.index_search().expect("search").rows().len();
    assert_eq!(rows, (total as usize).min(400), "the second page was read");
    // Enter on a row the loaded history does not hold opens it in the Update pane.
    h.key(KeyCode::Home);
    let target = loop {
        let s = h.app.history.index_search().expect("search");
        let row = s.selected().expect("a row").update_id.clone();
        if !loaded.contains(&row) {
            break row;
        }
        h.key(KeyCode::Down);
    };
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, cantonscope::panes::PaneId::Update);
    assert_eq!(h.app.update_pane.update_id(), Some(target.as_str()));
    assert!(
        h.app.update_pane.error().is_none(),
        "{:?}",
        h.app.update_pane.error()
    );
    assert!(!h.app.update_pane.visible_event_ids().is_empty());
    // Esc goes back to the results, Esc again to the loaded rows.
    h.key(KeyCode::Esc);
    assert_eq!(h.app.focus, cantonscope::panes::PaneId::History);
    assert!(h.app.history.index_search().is_some());
    h.key(KeyCode::Esc);
    assert!(h.app.history.index_search().is_none());
}

#[test]
fn c_shows_a_contracts_whole_lifecycle_from_the_index() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index(dir.path(), false);
    let loaded = loaded(&h);
    // The newest transfer: under its root, AmuletRules_Transfer exercises the long-lived
    // AmuletRules contract, created long before the loaded window.
    h.palette("filter choice:AmuletRules_Transfer");
    h.key(KeyCode::End);
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, cantonscope::panes::PaneId::Update);
    h.key(KeyCode::Home);
    h.key(KeyCode::Down);
    h.key(KeyCode::Char('c'));
    assert!(h.app.update_pane.lifecycle_open());
    let ids = h.app.update_pane.lifecycle_update_ids();
    let beyond: Vec<&String> = ids.iter().filter(|id| !loaded.contains(*id)).collect();
    assert!(
        !beyond.is_empty(),
        "the index's lifecycle holds updates the loaded history does not ({} rows)",
        ids.len()
    );
    let s = screen(&mut h, 120, 40);
    assert!(s.contains("lifecycle in the local index"), "{s}");
    // Enter on a row the loaded history does not hold opens that update.
    let target = beyond[0].clone();
    let row = ids.iter().position(|id| *id == target).expect("row");
    h.key(KeyCode::Home);
    for _ in 0..row {
        h.key(KeyCode::Down);
    }
    h.key(KeyCode::Enter);
    assert!(!h.app.update_pane.lifecycle_open());
    assert_eq!(h.app.update_pane.update_id(), Some(target.as_str()));
    assert!(h.app.update_pane.error().is_none());
}

#[test]
fn offline_the_explorer_reads_the_index_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index(dir.path(), true);
    assert!(!h.app.sh.history.is_empty(), "History lists from the index");
    let asked: Vec<&String> = h
        .requests
        .iter()
        .filter(|r| !r.starts_with("updates ") && !r.starts_with("index "))
        .collect();
    assert!(asked.is_empty(), "no node asked: {asked:?}");
    let s = screen(&mut h, 120, 40);
    let header = s.lines().next().unwrap_or_default();
    assert!(header.contains("offline"), "{header}");
    assert!(header.contains("INDEX"), "{header}");
    assert!(!header.contains("OFFLINE"), "{header}");
    // Enter opens the update from the index's body.
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, cantonscope::panes::PaneId::Update);
    assert!(
        h.app.update_pane.error().is_none(),
        "{:?}",
        h.app.update_pane.error()
    );
    assert!(!h.app.update_pane.visible_event_ids().is_empty());
    assert!(h.screen(120, 40).contains("from the local index"));
    // A pane that needs a node says so, once.
    let errors = h.app.errors.len();
    h.key(KeyCode::Char('5'));
    for _ in 0..20 {
        h.tick(5.0);
    }
    let s = h.screen(120, 40);
    assert!(s.contains("--offline"), "{s}");
    h.key(KeyCode::Char('4'));
    let s = h.screen(120, 40);
    assert!(s.contains("--offline: no node is asked"), "Status: {s}");
    assert!(!s.contains("HEALTHY"), "Status: {s}");
    assert!(
        h.app.errors.len() <= errors + 1,
        "one line, not a storm: {}",
        h.app.errors.len()
    );
}

#[test]
fn offline_an_index_without_bodies_says_so_and_l_lists_its_rows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let work = dir.path().to_owned();
    let mut h = Harness::start_with(Options {
        prepare: Box::new(move |demo, now, settings| {
            let from = format_time_micros(now - SYNCED_SECS * 1_000_000);
            let path = sync_index_with(&work, &demo.scan_url, &from, &["--no-bodies"]);
            settings.index = Some(path.display().to_string());
            settings.offline = true;
        }),
        ..Options::default()
    });
    // The loaded rows are read from bodies: none, and it says why, not "no updates yet".
    assert!(h.app.sh.history.is_empty());
    let said: Vec<String> = h.app.errors.entries().map(|e| e.message.clone()).collect();
    assert!(
        said.iter().any(|e| e.contains("the index keeps no bodies")),
        "{said:?}"
    );
    let s = screen(&mut h, 120, 40);
    assert!(!s.contains("no updates yet"), "{s}");
    assert!(s.contains("`L` lists its rows"), "{s}");
    // L lists the index's own rows.
    h.key(KeyCode::Char('L'));
    h.key(KeyCode::Enter);
    let mut listed = Vec::new();
    for _ in 0..40 {
        h.tick(0.25);
        let s = h.screen(120, 40);
        listed = s
            .lines()
            .filter(|l| l.contains(" transaction "))
            .map(str::to_owned)
            .collect();
        if !listed.is_empty() {
            break;
        }
    }
    assert!(!listed.is_empty(), "{}", h.screen(120, 40));
}

#[test]
fn offline_an_index_with_bodies_for_its_older_part_lists_that_part_and_no_error() {
    // Synced with bodies from 2 h back to 1 h back, then without from there on.
    let dir = tempfile::tempdir().expect("tempdir");
    let work = dir.path().to_owned();
    let mut h = Harness::start_with(Options {
        prepare: Box::new(move |demo, now, settings| {
            let at = |secs: i64| format_time_micros(now - secs * 1_000_000);
            sync_index_with(
                &work,
                &demo.scan_url,
                &at(SYNCED_SECS),
                &["--until", &at(3600)],
            );
            let path = sync_index_with(&work, &demo.scan_url, &at(3600), &["--no-bodies"]);
            settings.index = Some(path.display().to_string());
            settings.offline = true;
            settings.from = cantonscope::config::HistoryStart::Begin;
        }),
        ..Options::default()
    });
    assert!(
        !h.app.sh.history.is_empty(),
        "the part with bodies is listed"
    );
    // Down to the list's end: the loader reads on into the part without bodies.
    for _ in 0..40 {
        h.key(KeyCode::End);
        h.tick(0.5);
    }
    let said: Vec<String> = h.app.errors.entries().map(|e| e.message.clone()).collect();
    assert!(
        !said.iter().any(|e| e.contains("keeps no bodies")),
        "{said:?}"
    );
    let s = screen(&mut h, 120, 40);
    assert!(!s.contains("keeps no bodies"), "{s}");
}

#[test]
fn offline_without_an_index_is_a_usage_error_saying_how_to_start_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = bin(dir.path())
        .arg("--offline")
        .output()
        .expect("binary runs");
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("--offline reads the local history index"),
        "{err}"
    );
    assert!(err.contains("index sync --from -30d --follow"), "{err}");
}

#[test]
fn snapshots_of_the_index_views() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index(dir.path(), false);
    // The whole-history search, typing, then its results.
    h.key(KeyCode::Char('F'));
    h.type_text("choice:AmuletRules_Transfer");
    crate::common::assert_snapshot!("search_typing_80x24", screen(&mut h, 80, 24));
    h.key(KeyCode::Enter);
    crate::common::assert_snapshot!("search_80x24", screen(&mut h, 80, 24));
    crate::common::assert_snapshot!("search_120x40", screen(&mut h, 120, 40));
    // The lifecycle of the AmuletRules contract from the index.
    h.key(KeyCode::Enter);
    h.key(KeyCode::Home);
    h.key(KeyCode::Down);
    h.key(KeyCode::Char('c'));
    crate::common::assert_snapshot!("lifecycle_80x24", screen(&mut h, 80, 24));
    crate::common::assert_snapshot!("lifecycle_120x40", screen(&mut h, 120, 40));
}

/// Issue 38: at 200 columns the whole-index search gives its spare width to the Action and the
/// Parties (laid out as History's table is): whole actions, and every party's name where they
/// fit rather than `DSO +3`.
#[test]
fn a_wide_search_list_gives_its_room_to_the_action_and_the_parties() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index(dir.path(), false);
    h.key(KeyCode::Char('F'));
    h.type_text("choice:AmuletRules_Transfer");
    h.key(KeyCode::Enter);
    let s = screen(&mut h, 200, 60);
    let rows = h.app.history.index_search().expect("search").rows();
    let first = rows[0].clone();
    let line = s
        .lines()
        .find(|l| l.contains(&first.update_id[4..14]))
        .unwrap_or_else(|| panic!("{} in\n{s}", first.update_id));
    assert!(line.contains(&first.root_action), "{line}");
    let names: Vec<&str> = first
        .parties
        .iter()
        .map(|p| p.split_once("::").map_or(p.as_str(), |(n, _)| n))
        .collect();
    assert!(names.len() > 1, "{names:?}");
    assert!(line.contains(&names.join(", ")), "{names:?} in {line}");
    assert!(!line.contains(" +"), "{line}");
    crate::common::assert_snapshot!("search_200x60", s);
}

#[test]
fn snapshots_offline() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index(dir.path(), true);
    crate::common::assert_snapshot!("offline_80x24", screen(&mut h, 80, 24));
    crate::common::assert_snapshot!("offline_120x40", screen(&mut h, 120, 40));
    h.key(KeyCode::Char('5'));
    crate::common::assert_snapshot!("offline_holdings_80x24", screen(&mut h, 80, 24));
}

#[test]
fn history_pages_come_from_the_index_where_it_covers_them_and_from_the_scan_where_it_lacks() {
    use cantonscope::api::scan::{UpdatesPage, UpdatesRequest};
    use cantonscope::runtime::index::{IndexSource, history_page};

    let dir = tempfile::tempdir().expect("tempdir");
    let h = with_index(dir.path(), false);
    let location =
        cantonscope::store::Location::parse(h.app.sh.ctx.index.as_deref().expect("index"));
    let source = IndexSource::new(location.clone(), false);
    let live = h.clients.main.clone();
    // A scan that is not there: a page it would have to answer fails.
    let dead = cantonscope::api::ApiClient::new(cantonscope::api::ApiConfig {
        scan_url: Some("http://127.0.0.1:9".into()),
        ..cantonscope::api::ApiConfig::default()
    })
    .expect("client");
    let mut reader = cantonscope::store::open_reader(&location).expect("reader");
    let kept = reader.page_after(None, 2).expect("page");
    let first = &kept[0];
    let after = UpdatesRequest::after(
        50,
        first.migration_id,
        format_time_micros(first.record_time),
    );
    let ids = |page: &UpdatesPage| -> Vec<String> {
        page.transactions
            .iter()
            .filter_map(|i| i.update_id().map(str::to_owned))
            .collect()
    };
    let page = |client: &cantonscope::api::ApiClient, index: Option<&IndexSource>, req| {
        h.rt.block_on(history_page(index, client, req))
            .map(|r| r.answer::<UpdatesPage>().cloned().expect("a page"))
    };
    // Inside the synced range: the index answers alone, the same page the scan serves.
    let local = page(&dead, Some(&source), &after).expect("the index answers");
    let scan = page(&live, None, &after).expect("the scan answers");
    assert_eq!(local.transactions.len(), 50);
    assert_eq!(ids(&local), ids(&scan));
    // Before the synced range (from the beginning): the index lacks it, the scan is asked.
    let from_begin = UpdatesRequest::from_begin(50);
    assert!(
        page(&dead, Some(&source), &from_begin).is_err(),
        "the scan was asked"
    );
    assert_eq!(
        page(&live, Some(&source), &from_begin)
            .expect("scan")
            .transactions
            .len(),
        50
    );
    // Offline, whatever the index holds answers, and nothing is asked of the scan.
    let offline = IndexSource::new(location, true);
    let local = page(&dead, Some(&offline), &from_begin).expect("the index answers");
    assert_eq!(ids(&local)[0], first.update_id);
}

/// The explorer on the demo with the whole demo history in an index (`--from begin`) and a
/// history memory budget of 1 MiB.
fn with_whole_index_and_a_tiny_budget(dir: &Path) -> Harness {
    let dir = dir.to_owned();
    Harness::start_with(Options {
        tweak: Box::new(|s| s.history_memory_mib = 1),
        prepare: Box::new(move |demo, _now, settings| {
            let path = sync_index_from(&dir, &demo.scan_url, "begin");
            settings.index = Some(path.display().to_string());
        }),
        ..Options::default()
    })
}

/// Every row of History's one list over the index, `(record time µs, update id)`, in its
/// order (record time, then update id): the updates the index keeps, read with the sync's own
/// page reads, not with the explorer's, and the events with a verdict and no update it keeps
/// before the loaded rows (the loaded rows list updates only).
pub(crate) fn kept_in_time_order(h: &Harness) -> Vec<(i64, String)> {
    let location =
        cantonscope::store::Location::parse(h.app.sh.ctx.index.as_deref().expect("index"));
    let mut reader = cantonscope::store::open_reader(&location).expect("reader");
    let mut all = Vec::new();
    let mut after = None;
    loop {
        let page = reader.page_after(after, 1000).expect("page");
        let Some(last) = page.last() else { break };
        after = Some(cantonscope::store::At::new(
            last.migration_id,
            last.record_time,
        ));
        all.extend(page.into_iter().map(|k| (k.record_time, k.update_id)));
    }
    let loaded_first = h
        .app
        .sh
        .history
        .first()
        .map(cantonscope::model::summary::UpdateSummary::record_time);
    let verdict_only = reader
        .verdict_events(None, None)
        .expect("verdict-only events");
    all.extend(
        verdict_only
            .into_iter()
            .filter(|e| loaded_first.is_none_or(|t| e.at.record_time < t))
            .map(|e| (e.at.record_time, e.update_id)),
    );
    all.sort();
    all
}

/// The History list read from the index.
pub(crate) fn range(h: &Harness) -> &cantonscope::panes::history::Timeline {
    h.app
        .sh
        .timeline
        .as_ref()
        .expect("History reads from the index")
}

/// The update selected in History (a row from the index or a loaded one).
fn selected(h: &Harness) -> Option<String> {
    h.app.history.selected_update_id(&h.app.sh)
}

#[test]
fn l_over_the_index_shows_the_whole_span_paged_without_filling_the_memory_budget() {
    use cantonscope::panes::history::INDEX_RANGE_KEPT_PAGES;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_whole_index_and_a_tiny_budget(dir.path());
    let kept = kept_in_time_order(&h);
    let budget = 1usize << 20;
    assert!(h.app.sh.history.memory_bytes() <= budget);
    let loaded = h.app.sh.history.len();
    let history_requests = count(&h, "updates ");
    // Two days: longer than the loaded window, across the migration, far over 1 MiB of bodies.
    let since = h.now - 2 * 86_400_000_000;
    let span: Vec<&(i64, String)> = kept.iter().filter(|(t, _)| *t >= since).collect();
    assert!(
        span.len() > loaded * 10,
        "{} in the span, {loaded} loaded",
        span.len()
    );
    h.palette("load 2d");
    // No span load runs: the span is read from the index as the list scrolls.
    assert!(h.app.sh.feed.span.is_none(), "{:?}", h.app.sh.feed.span);
    assert!(toast(&h).contains("from the local index"), "{}", toast(&h));
    let r = range(&h);
    assert_eq!(r.since(), since);
    assert_eq!(
        r.total(),
        Some(span.len() as u64),
        "every update of the span"
    );
    let s = screen(&mut h, 80, 24);
    let title = s.lines().nth(2).unwrap_or_default().to_owned();
    // The updates, the events with a verdict and no update counted apart.
    let location =
        cantonscope::store::Location::parse(h.app.sh.ctx.index.as_deref().expect("index"));
    let verdict_only: std::collections::HashSet<String> =
        cantonscope::store::open_reader(&location)
            .expect("reader")
            .verdict_events(None, None)
            .expect("verdict-only events")
            .into_iter()
            .map(|e| e.update_id)
            .collect();
    let apart = span
        .iter()
        .filter(|(_, id)| verdict_only.contains(id))
        .count();
    assert!(apart > 0, "the demo keeps verdict-only events");
    assert!(
        title.contains(&format!(
            "{} updates · {} verdict only",
            cantonscope::ui::format::group_thousands(span.len() - apart),
            cantonscope::ui::format::group_thousands(apart)
        )),
        "{s}"
    );
    // The selection lands on the update selected in the loaded rows (the newest, following).
    let r = range(&h);
    assert_eq!(r.cursor(), span.len() - 1);
    assert_eq!(
        selected(&h).as_deref(),
        Some(span[span.len() - 1].1.as_str())
    );
    // The oldest row is the first update of the span; paging through the middle reads pages
    // there; memory holds a few pages, never the span.
    h.key(KeyCode::Home);
    let r = range(&h);
    assert_eq!(r.cursor(), 0);
    assert_eq!(
        selected(&h).as_deref(),
        Some(span[0].1.as_str()),
        "the first update of the span"
    );
    let screen_top = screen(&mut h, 80, 24);
    assert!(
        !screen_top.lines().any(|l| l.starts_with("│…")),
        "every row on screen was read: {screen_top}"
    );
    for _ in 0..60 {
        h.key(KeyCode::PageDown);
    }
    let r = range(&h);
    let at = r.cursor();
    assert_eq!(
        selected(&h).as_deref(),
        Some(span[at].1.as_str()),
        "row {at} is the span's update {at}"
    );
    assert!(
        r.rows_held() <= INDEX_RANGE_KEPT_PAGES * 200,
        "{} rows held",
        r.rows_held()
    );
    h.key(KeyCode::End);
    assert_eq!(
        selected(&h).as_deref(),
        Some(span[span.len() - 1].1.as_str())
    );
    assert!(h.app.sh.history.memory_bytes() <= budget);
    assert_eq!(
        h.app.sh.history.len(),
        loaded,
        "nothing more was loaded into memory"
    );
    assert_eq!(
        count(&h, "updates "),
        history_requests,
        "no page of bodies was asked for"
    );
    // Enter opens the oldest update of the span.
    h.key(KeyCode::Home);
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, cantonscope::panes::PaneId::Update);
    assert_eq!(h.app.update_pane.update_id(), Some(span[0].1.as_str()));
    assert!(h.app.update_pane.error().is_none());
    // Esc: back to the one list, Esc again: the loaded rows alone.
    h.key(KeyCode::Esc);
    assert!(h.app.sh.timeline.is_some());
    h.key(KeyCode::Esc);
    assert!(h.app.sh.timeline.is_none());
    assert_eq!(h.app.history.row_count(&h.app.sh), loaded);
}

#[test]
fn one_scroll_runs_from_the_loaded_rows_into_the_index_rows_and_back_listing_each_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_whole_index_and_a_tiny_budget(dir.path());
    let kept = kept_in_time_order(&h);
    let loaded = h.app.sh.history.len();
    let since = h.now - 2 * 86_400_000_000;
    let span: Vec<&(i64, String)> = kept.iter().filter(|(t, _)| *t >= since).collect();
    h.palette("load 2d");
    let s = screen(&mut h, 200, 40);
    assert!(
        s.contains(&format!("{loaded} loaded")),
        "the title says which part is loaded: {s}"
    );
    // From the newest loaded row, k walks up over the loaded rows and on into the index's
    // rows, no key in between: every update of the span once, in order.
    h.key(KeyCode::End);
    let steps = loaded + 250;
    let mut seen = vec![selected(&h).expect("a row")];
    for _ in 0..steps {
        h.key(KeyCode::Char('k'));
        seen.push(selected(&h).expect("a row"));
    }
    seen.reverse();
    let expected: Vec<String> = span[span.len() - steps - 1..]
        .iter()
        .map(|(_, id)| id.clone())
        .collect();
    assert_eq!(
        seen, expected,
        "the index's rows, then the loaded ones, none twice"
    );
    let r = range(&h);
    assert!(r.in_index());
    assert_eq!(r.cursor(), span.len() - 1 - steps);
    // j goes back down into the loaded rows (251 rows down: the first loaded one); PgUp from
    // there goes into the index's rows, PgDn back, G to the newest loaded row, g to the span's
    // first update.
    for _ in 0..251 {
        h.key(KeyCode::Char('j'));
    }
    assert!(!range(&h).in_index());
    let first_loaded = h
        .app
        .sh
        .history
        .first()
        .expect("loaded")
        .update_id()
        .to_string();
    assert_eq!(selected(&h), Some(first_loaded.clone()));
    h.key(KeyCode::PageUp);
    assert!(range(&h).in_index());
    h.key(KeyCode::PageDown);
    assert_eq!(selected(&h), Some(first_loaded));
    h.key(KeyCode::Char('G'));
    assert_eq!(
        selected(&h).as_deref(),
        Some(span[span.len() - 1].1.as_str())
    );
    h.key(KeyCode::Char('g'));
    assert_eq!(selected(&h).as_deref(), Some(span[0].1.as_str()));
    assert_eq!(h.app.sh.history.len(), loaded, "nothing more was loaded");
}

#[test]
fn time_and_scrolling_above_the_loaded_rows_read_on_from_the_index() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_whole_index_and_a_tiny_budget(dir.path());
    let kept = kept_in_time_order(&h);
    let loaded_first = h.app.sh.history.first().expect("loaded").clone();
    // Scrolling above the first loaded row: the row just above it, from the index.
    h.key(KeyCode::Home);
    assert!(h.app.sh.timeline.is_none());
    h.key(KeyCode::Up);
    let r = range(&h);
    assert_eq!(r.total(), Some(kept.len() as u64), "the whole index");
    let row = r.cursor();
    assert!(row > 0);
    assert!(kept[row].0 < loaded_first.record_time(), "{row}");
    assert_eq!(kept[row + 1].1, loaded_first.update_id().to_string());
    assert_eq!(
        r.selected().map(|row| row.update_id.as_str()),
        Some(kept[row].1.as_str())
    );
    // Up goes on through the index.
    h.key(KeyCode::Up);
    assert_eq!(range(&h).cursor(), row - 1);
    assert_eq!(
        range(&h).selected().map(|r| r.update_id.as_str()),
        Some(kept[row - 1].1.as_str())
    );
    // `f` follows the live tail again, in the loaded rows.
    h.key(KeyCode::Char('f'));
    assert!(h.app.sh.timeline.is_none());
    assert!(h.app.history.is_following());
    // `:time` a day back, outside the loaded rows: the index at that time; no reload.
    let t = h.now - 86_400_000_000;
    let requests = count(&h, "updates ");
    h.palette(&format!("time {}", format_time_micros(t)));
    let r = range(&h);
    let row = r.cursor();
    assert!(
        kept[row].0 >= t && kept[row - 1].0 < t,
        "the first update at {t}"
    );
    assert_eq!(
        r.selected().map(|row| row.update_id.as_str()),
        Some(kept[row].1.as_str())
    );
    assert_eq!(
        count(&h, "updates "),
        requests,
        "the loaded history was not reloaded"
    );
    let s = screen(&mut h, 120, 40);
    assert!(s.contains("BROWSING") || s.contains("browsing"), "{s}");
    assert!(h.app.sh.history.memory_bytes() <= 1 << 20);
}

#[test]
fn snapshot_of_history_from_the_index() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_whole_index_and_a_tiny_budget(dir.path());
    h.palette("load 2d");
    h.key(KeyCode::Home);
    crate::common::assert_snapshot!("history_from_index_80x24", screen(&mut h, 80, 24));
}

#[test]
fn index_rows_name_their_parties_at_200_columns() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_whole_index_and_a_tiny_budget(dir.path());
    h.palette("load 2d");
    h.key(KeyCode::Home);
    // Columns are found on the screen as drawn (the masked one has shorter times).
    let s = h.screen(200, 60);
    let header = s
        .lines()
        .find(|l| l.contains("Summary"))
        .expect("the header");
    let at = header
        .find("Parties")
        .expect("a Parties column at 200 columns");
    // Columns, not bytes (the rows hold `→` and `…`).
    let at = header[..at].chars().count();
    let column = |line: &str| line.chars().skip(at).collect::<String>();
    // Every row on screen is the index's (the span's first rows): each names its parties, as
    // the index keeps them with its summary row.
    let r = range(&h);
    assert!(r.in_index());
    let rows: Vec<&str> = s
        .lines()
        .filter(|l| l.contains(" transaction ") || l.contains(" assign "))
        .collect();
    assert!(rows.len() > 40, "{s}");
    for line in &rows {
        let parties = column(line);
        let parties = parties.trim_end_matches('│').trim();
        assert!(!parties.is_empty(), "a row without parties: {line}\n{s}");
    }
    // The first row's: the names of the parties the index keeps for that update.
    let first = r.selected().expect("the first row was read");
    assert!(!first.parties.is_empty());
    let names: Vec<&str> = first
        .parties
        .iter()
        .map(|p| p.split_once("::").map_or(p.as_str(), |(n, _)| n))
        .collect();
    let shown = column(rows[0]);
    let want = names.join(", ");
    let cut = want.chars().take(20).collect::<String>();
    assert!(shown.contains(&cut), "{shown} / {want}");
    crate::common::assert_snapshot!("history_from_index_200x60", screen(&mut h, 200, 60));
}

/// Syncs the demo at `scan_url` into `dir/index.sqlite` from `from` through `until` (µs).
fn sync_index_between(dir: &Path, scan_url: &str, from: i64, until: i64) -> PathBuf {
    let path = dir.join("index.sqlite");
    let output = bin(dir)
        .arg("--scan-url")
        .arg(scan_url)
        .args(["index", "--index"])
        .arg(&path)
        .args([
            "sync",
            "--verify",
            "1",
            "--request-rate",
            "1000",
            "--timeout",
            "60s",
            "--from",
            &format_time_micros(from),
            "--until",
            &format_time_micros(until),
        ])
        .output()
        .expect("binary runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "sync: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    path
}

const HOUR: i64 = 3_600_000_000;

#[test]
fn l_over_an_index_with_gaps_reads_only_the_gaps_from_the_scan_and_lists_the_span_once() {
    // The index holds 8 h to 6 h back and 5 h to 4 h back; `L 12h` asks for 12 h: the scan
    // is asked for 12 h to 8 h back (before the index), 6 h to 5 h (between its chunks) and
    // 4 h back up to the loaded rows (after its end), and for nothing the index holds.
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path().to_owned();
    let mut h = Harness::start_with(Options {
        prepare: Box::new(move |demo, now, settings| {
            sync_index_between(&d, &demo.scan_url, now - 8 * HOUR, now - 6 * HOUR);
            let path = sync_index_between(&d, &demo.scan_url, now - 5 * HOUR, now - 4 * HOUR);
            settings.index = Some(path.display().to_string());
        }),
        ..Options::default()
    });
    let covered = [
        (h.now - 8 * HOUR, h.now - 6 * HOUR),
        (h.now - 5 * HOUR, h.now - 4 * HOUR),
    ];
    let kept: std::collections::HashSet<String> = kept_in_time_order(&h)
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    let since = h.now - 12 * HOUR;
    let loaded_first = h.app.sh.history.first().expect("loaded").record_time();
    // Every update of the demo ledger from 12 h back up to the loaded rows, in the list's order.
    let mut expected: Vec<(i64, i64, String)> = cantonscope::demo::generate(42)
        .updates()
        .iter()
        .filter(|u| u.record_time >= since && u.record_time < loaded_first)
        .map(|u| (u.record_time, u.migration_id, u.update_id.clone()))
        .collect();
    // And the events with a verdict and no update the index keeps (in its ranges).
    let location =
        cantonscope::store::Location::parse(h.app.sh.ctx.index.as_deref().expect("index"));
    expected.extend(
        cantonscope::store::open_reader(&location)
            .expect("reader")
            .verdict_events(Some(since), Some(loaded_first - 1))
            .expect("verdict-only events")
            .into_iter()
            .map(|e| (e.at.record_time, e.at.migration_id, e.update_id)),
    );
    expected.sort();
    let missing = expected
        .iter()
        .filter(|(_, _, id)| !kept.contains(id))
        .count();
    assert!(
        missing > 500 && kept.len() > 500,
        "{missing} missing, {} kept",
        kept.len()
    );
    let gap_requests = count(&h, "IndexGap");
    assert_eq!(gap_requests, 0);

    h.palette("load 12h");
    assert!(h.app.sh.feed.span.is_none(), "no span load into memory");
    assert!(toast(&h).contains("read from the scan"), "{}", toast(&h));
    for _ in 0..200 {
        if range(&h).fill().is_some_and(|f| !f.running()) {
            break;
        }
        h.tick(0.25);
    }
    let r = range(&h);
    let fill = r.fill().expect("the gaps are read from the scan");
    assert_eq!(
        fill.end(),
        Some(&cantonscope::panes::history::FillEnd::Done)
    );
    assert_eq!(
        fill.gaps().len(),
        3,
        "{:?}",
        fill.gaps().iter().map(|g| g.hole).collect::<Vec<_>>()
    );
    assert_eq!(
        r.scan_rows(),
        missing,
        "the scan sent exactly what the index lacks"
    );
    // The scan was asked only inside the gaps: no page starts inside a range the index holds.
    let asked: Vec<i64> = h
        .requests
        .iter()
        .filter_map(|r| r.strip_prefix("updates IndexGap after "))
        .map(|t| cantonscope::model::format::parse_time_micros(t).expect("a time"))
        .collect();
    assert!(asked.len() >= 3, "{asked:?}");
    for t in &asked {
        assert!(*t >= since - 1, "before the span: {t}");
        for (from, until) in covered {
            assert!(
                !(*t >= from && *t < until),
                "a page asked inside a range the index holds ({from}..={until}): {t}"
            );
        }
    }
    // The title says which part came from the scan.
    let s = screen(&mut h, 120, 40);
    let title = s.lines().nth(2).unwrap_or_default().to_owned();
    assert!(
        title.contains(&format!(
            "from the scan) · {} loaded",
            h.app.sh.history.len()
        )),
        "{s}"
    );
    assert!(s.contains("its gaps from the scan"), "{s}");
    // One list in ledger order, each update once: from the span's first update down to the
    // newest loaded one, the index's rows and the scan's in their places.
    h.key(KeyCode::Home);
    let total = range(&h).total().expect("counted") as usize;
    assert_eq!(total, expected.len() + h.app.sh.history.len());
    let mut seen = Vec::with_capacity(total);
    let mut from_scan = 0;
    for i in 0..total {
        let r = range(&h);
        assert_eq!(r.cursor(), i);
        if r.in_index() {
            let row = r.selected().expect("read");
            assert_eq!(
                row.from_scan,
                !kept.contains(&row.update_id),
                "{}",
                row.update_id
            );
            from_scan += usize::from(row.from_scan);
        }
        seen.push(selected(&h).expect("a row"));
        h.key(KeyCode::Char('j'));
    }
    assert_eq!(from_scan, missing);
    let mut want: Vec<String> = expected.into_iter().map(|(_, _, id)| id).collect();
    want.extend(h.app.sh.history.iter().map(|s| s.update_id().to_string()));
    let distinct: std::collections::HashSet<&String> = seen.iter().collect();
    assert_eq!(distinct.len(), seen.len(), "no update twice");
    assert_eq!(seen, want, "the whole span, in ledger order");
}

/// The Governance pane's section `section`, moving with `]`.
fn governance_section(h: &mut Harness, section: cantonscope::panes::governance::GovSection) {
    h.key(KeyCode::Char('0'));
    h.tick(0.1);
    for _ in 0..8 {
        if h.app.governance.section() == section {
            return;
        }
        h.key(KeyCode::Char(']'));
    }
    panic!("no section {section:?}");
}

/// Opens row `i` of the Governance section shown in Detail (Enter).
fn open_row(h: &mut Harness, i: usize) {
    use cantonscope::msg::Command;
    h.cmd(Command::Top);
    for _ in 0..i {
        h.cmd(Command::Down);
    }
    h.key(KeyCode::Enter);
    assert_eq!(
        h.app.governance.section(),
        cantonscope::panes::governance::GovSection::Detail
    );
}

/// Opens every past result in Detail in turn (Enter, Esc), with where its closing update and
/// its creation were found.
fn results_lookups(
    h: &mut Harness,
) -> Vec<(
    String,
    cantonscope::panes::governance::Where,
    cantonscope::panes::governance::Where,
)> {
    use cantonscope::msg::Command;
    use cantonscope::panes::governance::GovSection;
    governance_section(h, GovSection::Results);
    h.cmd(Command::Bottom);
    h.cmd(Command::Top);
    let n = h.app.governance.results().rows.len();
    assert!(n > 3, "{n} results");
    let mut out = Vec::new();
    for i in 0..n {
        open_row(h, i);
        let g = &h.app.governance;
        assert!(!g.lookup().is_searching(), "the index answered");
        let key = g
            .chosen_result()
            .expect("a result")
            .request
            .key()
            .to_owned();
        out.push((
            key,
            g.lookup().close(&h.app.sh),
            g.lookup().creation(&h.app.sh),
        ));
        h.key(KeyCode::Esc);
    }
    out
}

/// The lines of a screen that contain `what`.
fn lines_with(s: &str, what: &str) -> Vec<String> {
    s.lines()
        .filter(|l| l.contains(what))
        .map(str::to_owned)
        .collect()
}

#[test]
fn governance_opens_a_votes_updates_from_the_index_and_says_when_neither_has_them() {
    use cantonscope::panes::PaneId;
    use cantonscope::panes::governance::{GovSection, Where};
    let dir = tempfile::tempdir().expect("tempdir");
    // The index reaches a day back: the loaded window (the newest 43 updates) holds no vote.
    let mut h = with_index_reaching(dir.path(), false, 24 * 3600);
    let loaded = loaded(&h);
    let found = results_lookups(&mut h);
    // A result closed within the index's reach: the update that closed it comes from the index
    // (followed from the request's tracking id through the votes that re-created it).
    let at = found
        .iter()
        .position(|(_, close, _)| matches!(close, Where::Index(id) if !loaded.contains(id)))
        .unwrap_or_else(|| panic!("a result closed in an update only the index has: {found:?}"));
    let Where::Index(close) = found[at].1.clone() else {
        unreachable!()
    };
    // One closed before the index reaches: neither source has its updates, and Detail says
    // which were asked.
    let gone = found
        .iter()
        .position(|(_, close, creation)| {
            matches!((close, creation), (Where::Missing(_), Where::Missing(_)))
        })
        .unwrap_or_else(|| panic!("a result older than the index: {found:?}"));
    open_row(&mut h, gone);
    let s = screen(&mut h, 120, 40);
    let why = format!(
        "not among the {} loaded updates nor in the local index",
        loaded.len()
    );
    assert!(s.contains(&format!("Update       {why}")), "{s}");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Governance, "nothing to open");
    assert!(toast(&h).contains(&why), "{}", toast(&h));
    h.key(KeyCode::Esc);

    open_row(&mut h, at);
    let s = screen(&mut h, 200, 40);
    assert!(
        s.contains(&format!(
            "closed in {close} (from the local index; Enter opens it)"
        )),
        "{s}"
    );
    // Enter opens the update that closed it, not the request's creation.
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Update);
    assert_eq!(h.app.update_pane.update_id(), Some(close.as_str()));
    assert!(
        h.app.update_pane.error().is_none(),
        "{:?}",
        h.app.update_pane.error()
    );
    let s = h.screen(160, 40);
    assert!(
        !lines_with(&s, "DsoRules_CloseVoteRequest").is_empty(),
        "{s}"
    );

    // An open request made within the index's reach: its creation from the index.
    h.key(KeyCode::Char('0'));
    h.key(KeyCode::Esc);
    governance_section(&mut h, GovSection::Open);
    let n = h.app.governance.ordered().len();
    let mut requested = None;
    for i in 0..n {
        open_row(&mut h, i);
        if let Where::Index(id) = h.app.governance.lookup().creation(&h.app.sh) {
            requested = Some(id);
            break;
        }
        h.key(KeyCode::Esc);
    }
    let requested = requested.expect("an open request made within the index's reach");
    assert!(!loaded.contains(&requested));
    let s = screen(&mut h, 200, 40);
    assert!(
        s.contains(&format!(
            "requested in {requested} (from the local index; Enter opens it)"
        )),
        "{s}"
    );
    h.key(KeyCode::Enter);
    assert_eq!(h.app.update_pane.update_id(), Some(requested.as_str()));
    let s = h.screen(160, 40);
    assert!(!lines_with(&s, "VoteRequest").is_empty(), "{s}");
}

/// The explorer on the static demo with an index synced in the ranges `ranges` (hours back from
/// the explorer's clock, `(from, until)`: the gaps between them are ranges the index lacks),
/// the history loaded from `from_hours` back (`None`: the recent updates).
fn with_index_ranges(
    dir: &Path,
    ranges: &'static [(i64, i64)],
    from_hours: Option<i64>,
) -> Harness {
    let d = dir.to_owned();
    Harness::start_with(Options {
        prepare: Box::new(move |demo, now, settings| {
            let mut path = None;
            for (from, until) in ranges {
                path = Some(sync_index_between(
                    &d,
                    &demo.scan_url,
                    now - from * HOUR,
                    now - until * HOUR,
                ));
            }
            settings.index = path.map(|p| p.display().to_string());
            if let Some(hours) = from_hours {
                let at =
                    chrono::DateTime::from_timestamp_micros(now - hours * HOUR).expect("a time");
                settings.from = cantonscope::config::HistoryStart::At(at);
            }
        }),
        ..Options::default()
    })
}

/// Every update of the demo ledger recorded from `since` until before `before`, in the list's
/// order (record time, migration, update id).
fn demo_updates(since: i64, before: i64) -> Vec<String> {
    let mut all: Vec<(i64, i64, String)> = cantonscope::demo::generate(42)
        .updates()
        .iter()
        .filter(|u| u.record_time >= since && u.record_time < before)
        .map(|u| (u.record_time, u.migration_id, u.update_id.clone()))
        .collect();
    all.sort();
    all.into_iter().map(|(_, _, id)| id).collect()
}

/// Ticks until the scan has sent every gap of the History list read from the index.
fn until_gaps_read(h: &mut Harness) {
    for _ in 0..400 {
        if range(h).fill().is_some_and(|f| !f.running()) {
            return;
        }
        h.tick(0.25);
    }
    panic!("the gaps were never read");
}

/// The rows History's one list holds from `since` up to `before` (the loaded rows' first
/// record time), in its order (record time, migration, update id): the demo's updates (from
/// the index or the scan) and the events with a verdict and no update the index keeps (the
/// scan's pages of its gaps have none).
fn listed(h: &Harness, since: i64, before: i64) -> Vec<String> {
    let mut all: Vec<(i64, i64, String)> = cantonscope::demo::generate(42)
        .updates()
        .iter()
        .filter(|u| u.record_time >= since && u.record_time < before)
        .map(|u| (u.record_time, u.migration_id, u.update_id.clone()))
        .collect();
    let location =
        cantonscope::store::Location::parse(h.app.sh.ctx.index.as_deref().expect("index"));
    let mut reader = cantonscope::store::open_reader(&location).expect("reader");
    all.extend(
        reader
            .verdict_events(Some(since), Some(before - 1))
            .expect("verdict-only events")
            .into_iter()
            .map(|e| (e.at.record_time, e.at.migration_id, e.update_id)),
    );
    all.sort();
    all.into_iter().map(|(_, _, id)| id).collect()
}

/// From the list's first row down to its last, every update selected (`g`, then `j`).
fn walk_the_list(h: &mut Harness) -> Vec<String> {
    h.key(KeyCode::Home);
    let total = range(h).total().expect("counted") as usize;
    let mut seen = Vec::with_capacity(total);
    for i in 0..total {
        assert_eq!(range(h).cursor(), i);
        seen.push(selected(h).expect("a row"));
        h.key(KeyCode::Char('j'));
    }
    seen
}

/// The updates twice in `seen`.
fn twice(seen: &[String]) -> Vec<&String> {
    let mut once = std::collections::HashSet::new();
    seen.iter().filter(|id| !once.insert(*id)).collect()
}

#[test]
fn time_in_a_gap_of_the_index_lands_on_the_update_at_that_time_once_the_scan_sent_it() {
    // The index holds 8 h to 6 h back and 5 h to 4 h back; `:time` 5 h 30 m back is in the gap
    // between them: the updates there come from the scan.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index_ranges(dir.path(), &[(8, 6), (5, 4)], None);
    let t = h.now - 5 * HOUR - HOUR / 2;
    let around = demo_updates(t - HOUR / 4, t + HOUR / 4);
    let at = demo_updates(t, t + HOUR / 4);
    let want = at.first().expect("an update after T").clone();
    let before = around[around.len() - at.len() - 1].clone();
    let kept: std::collections::HashSet<String> = kept_in_time_order(&h)
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    assert!(!kept.contains(&want), "the index lacks the update at T");
    h.palette(&format!("time {}", format_time_micros(t)));
    let r = range(&h);
    assert!(
        r.fill()
            .is_some_and(cantonscope::panes::history::ScanFill::running),
        "the gaps are being read"
    );
    // Until the scan sent the stretch at T, the list says it reads it.
    let s = screen(&mut h, 200, 40);
    let title = s.lines().nth(2).unwrap_or_default().to_owned();
    assert!(title.contains("reading the updates at"), "{s}");
    until_gaps_read(&mut h);
    let r = range(&h);
    assert_eq!(
        r.selected()
            .map(|row| (row.update_id.as_str(), row.from_scan)),
        Some((want.as_str(), true)),
        "the first update at T, from the scan"
    );
    let s = screen(&mut h, 200, 40);
    assert!(!s.contains("reading the updates at"), "{s}");
    // The one before it is right above.
    h.key(KeyCode::Char('k'));
    assert_eq!(selected(&h), Some(before));
}

#[test]
fn the_memory_budget_dropping_loaded_rows_leaves_no_update_out_of_the_one_scroll() {
    // The index holds 20 h to 14 h back and 13 h to 9 h back; the history is loaded from 14 h
    // back (not up to the head: more is loaded as the list reaches its end). `L 20h`: the
    // index's rows, then the loaded rows.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index_ranges(dir.path(), &[(20, 14), (13, 9)], Some(14));
    let since = h.now - 20 * HOUR;
    let loaded_first = h.app.sh.history.first().expect("loaded").record_time();
    assert!(loaded_first < h.now - 13 * HOUR);
    assert!(!h.app.sh.feed.at_head);
    h.palette("load 20h");
    until_gaps_read(&mut h);
    // The loader's budget goes down to 448 KiB (the scan's rows of the list keep the
    // profile's): loading on at the list's end drops the oldest loaded rows. (1 MiB held as many
    // rows before the summaries were packed to under half their size.)
    h.app.loader.set_memory_budget_bytes(448 * 1024);
    for _ in 0..100 {
        if h.app.sh.history.dropped() > 0 {
            break;
        }
        h.key(KeyCode::End);
        h.tick(0.5);
    }
    assert!(
        h.app.sh.history.dropped() > 0,
        "the budget dropped loaded rows"
    );
    let first = h.app.sh.history.first().expect("loaded").record_time();
    assert!(
        first > h.now - 12 * HOUR,
        "the loaded rows start in the index's second range now"
    );
    until_gaps_read(&mut h);
    assert_eq!(
        range(&h).fill().and_then(|f| f.end()),
        Some(&cantonscope::panes::history::FillEnd::Done),
        "{} loaded ({} bytes) from {}, scan rows {} ({} bytes), gaps {:?}",
        h.app.sh.history.len(),
        h.app.sh.history.memory_bytes(),
        (h.now - first) as f64 / HOUR as f64,
        range(&h).scan_rows(),
        range(&h)
            .fill()
            .map_or(0, cantonscope::panes::history::ScanFill::bytes),
        range(&h).fill().map(|f| f
            .gaps()
            .iter()
            .map(|g| (g.hole, g.rows.len(), g.done))
            .collect::<Vec<_>>())
    );
    // Every update from 20 h back: the stretch the loaded rows left is listed again, from the
    // scan where the index lacks it (14 h to 13 h back) and from the index.
    let first = h.app.sh.history.first().expect("loaded").record_time();
    let mut want = listed(&h, since, first);
    want.extend(h.app.sh.history.iter().map(|s| s.update_id().to_string()));
    let seen = walk_the_list(&mut h);
    assert_eq!(twice(&seen), Vec::<&String>::new(), "no update twice");
    assert_eq!(seen.len(), want.len(), "no update missing");
    assert_eq!(seen, want, "the whole span, in ledger order");
}

#[test]
fn a_sync_writing_into_a_gap_while_the_list_is_open_lists_each_update_once() {
    // The index holds 8 h to 6 h back and 5 h to 4 h back; `L 12h` reads the gap between them
    // from the scan; then a sync writes that gap into the index.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index_ranges(dir.path(), &[(8, 6), (5, 4)], None);
    let start = h.now;
    let since = start - 12 * HOUR;
    h.palette("load 12h");
    until_gaps_read(&mut h);
    assert_eq!(range(&h).fill().map(|f| f.gaps().len()), Some(3));
    let scan_url = h.demo.as_ref().expect("demo").scan_url.clone();
    sync_index_between(dir.path(), &scan_url, start - 6 * HOUR, start - 5 * HOUR);
    // The index's reach is read again every 5 s: the list sees the sync's updates.
    for _ in 0..12 {
        h.tick(0.5);
    }
    until_gaps_read(&mut h);
    let loaded_first = h.app.sh.history.first().expect("loaded").record_time();
    let mut want = listed(&h, since, loaded_first);
    want.extend(h.app.sh.history.iter().map(|s| s.update_id().to_string()));
    let seen = walk_the_list(&mut h);
    assert_eq!(twice(&seen), Vec::<&String>::new(), "no update twice");
    assert_eq!(seen, want, "the whole span, in ledger order");
    // The stretch the sync wrote is listed from the index: the scan sent the rest.
    let r = range(&h);
    assert_eq!(
        r.fill().map(|f| f.gaps().len()),
        Some(2),
        "the index lacks the stretch between its ranges no longer"
    );
    let kept = kept_in_time_order(&h).len();
    assert_eq!(
        r.index_rows(),
        Some(kept as u64),
        "every update the index keeps now"
    );
    assert_eq!(r.scan_rows() + kept + h.app.sh.history.len(), want.len());
}

#[test]
fn scrolling_up_from_the_loaded_rows_over_a_gap_lands_on_the_update_right_above_them() {
    // The index holds 30 h to 24 h back; History is loaded from 12 h back: the twelve hours
    // between are a gap of the index, right above the loaded rows, read from the scan page by
    // page.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index_ranges(dir.path(), &[(30, 24)], Some(12));
    let loaded_first = h.app.sh.history.first().expect("loaded").clone();
    let above = demo_updates(h.now - 30 * HOUR, loaded_first.record_time());
    let want = above.last().expect("updates above the loaded rows").clone();
    let kept: std::collections::HashSet<String> = kept_in_time_order(&h)
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    assert!(
        !kept.contains(&want),
        "the index lacks the update right above"
    );
    // Browsing from a time, History starts on the first loaded row: ↑ goes above it.
    assert!(h.app.sh.timeline.is_none());
    h.key(KeyCode::Up);
    assert!(h.app.sh.timeline.is_some(), "the index's list opened");
    until_gaps_read(&mut h);
    assert_eq!(
        range(&h)
            .selected()
            .map(|row| (row.update_id.as_str(), row.from_scan)),
        Some((want.as_str(), true)),
        "the update right above the loaded rows, from the scan"
    );
    let s = screen(&mut h, 200, 40);
    assert!(!s.contains("reading the updates before"), "{s}");
    // Down: the first loaded row.
    h.key(KeyCode::Char('j'));
    assert_eq!(selected(&h), Some(loaded_first.update_id().to_string()));
}

#[test]
fn the_selection_stays_on_its_update_when_a_sync_writes_rows_before_it() {
    // The index holds 8 h to 6 h back and 5 h to 4 h back; `:time` 4 h 30 m back selects an
    // index row after the gap; then a sync writes the gap into the index, before that row.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index_ranges(dir.path(), &[(8, 6), (5, 4)], None);
    let start = h.now;
    let t = start - 4 * HOUR - HOUR / 2;
    h.palette(&format!("time {}", format_time_micros(t)));
    until_gaps_read(&mut h);
    let chosen = selected(&h).expect("a row");
    let row = range(&h).cursor();
    assert!(
        !range(&h).selected().expect("read").from_scan,
        "an index row"
    );
    let kept_before = kept_in_time_order(&h).len();
    let gap_events = |h: &Harness| {
        let location =
            cantonscope::store::Location::parse(h.app.sh.ctx.index.as_deref().expect("index"));
        cantonscope::store::open_reader(&location)
            .expect("reader")
            .verdict_events(Some(start - 6 * HOUR), Some(start - 5 * HOUR - 1))
            .expect("verdict-only events")
            .len()
    };
    assert_eq!(gap_events(&h), 0);
    let scan_url = h.demo.as_ref().expect("demo").scan_url.clone();
    sync_index_between(dir.path(), &scan_url, start - 6 * HOUR, start - 5 * HOUR);
    // The index's reach is read again every 5 s: the list sees the sync's updates.
    for _ in 0..12 {
        h.tick(0.5);
    }
    until_gaps_read(&mut h);
    assert!(kept_in_time_order(&h).len() > kept_before, "the sync wrote");
    assert_eq!(
        range(&h).index_rows(),
        Some(kept_in_time_order(&h).len() as u64)
    );
    assert_eq!(selected(&h), Some(chosen), "the same update");
    // The gap's updates were listed from the scan already; the events with a verdict and no
    // update the sync kept there are new rows above it (the scan's pages have none).
    assert_eq!(
        range(&h).cursor(),
        row + gap_events(&h),
        "the same place in the one list"
    );
}

/// Issue 37 §3: the explorer started with `--index` naming a file no sync has created yet runs
/// without it, says so once, and picks the index up within one reading (5 s) when a sync in
/// another process creates it, saying so once; an index of another network moved over that
/// file later is refused, saying why, and the explorer goes on without it.
#[test]
fn an_index_created_or_replaced_while_the_explorer_runs_is_picked_up_and_said_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("index.sqlite");
    let named = path.display().to_string();
    let mut h = Harness::start_with(Options {
        tweak: Box::new(move |s| s.index = Some(named)),
        ..Options::default()
    });
    assert!(h.app.sh.index.configured() && !h.app.sh.index.usable());
    let text = toast(&h);
    assert!(text.contains("no index at"), "{text}");
    assert!(
        text.contains("picks it up once a sync creates it"),
        "{text}"
    );
    let header = h
        .screen(120, 40)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(header.contains("no index yet"), "{header}");
    let errors = h.app.errors.len();
    h.tick(5.0);
    assert_eq!(
        h.app.errors.len(),
        errors,
        "said once, not at every reading"
    );

    // A sync in another process creates the file: the next reading picks it up.
    let scan_url = h.demo.as_ref().expect("demo").scan_url.clone();
    let synced = sync_index(dir.path(), &scan_url, h.now, SYNCED_SECS);
    assert_eq!(synced, path);
    h.tick(5.0);
    assert!(h.app.sh.index.usable(), "{:?}", h.app.sh.index.failure);
    let reach = h.app.sh.index.reach.clone().expect("reach read");
    assert!(reach.updates > 0, "{reach:?}");
    let text = toast(&h);
    assert!(
        text.contains(&format!(
            "the local index appeared: {} updates",
            cantonscope::model::format::group_thousands(reach.updates as i64)
        )),
        "{text}"
    );
    let header = screen(&mut h, 120, 40)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(header.contains("index <date> → "), "{header}");
    let infos = h.app.errors.len();
    h.tick(5.0);
    assert_eq!(h.app.errors.len(), infos, "the appearance is said once");
    // Whole-history search reads it now.
    assert!(h.app.sh.index.usable());

    // Another network's index (a demo of another seed) moved over the file: refused.
    let other =
        h.rt.block_on(cantonscope::demo::start(cantonscope::demo::DemoConfig {
            seed: 7,
            ..cantonscope::demo::DemoConfig::default()
        }))
        .expect("second demo");
    let other_dir = tempfile::tempdir().expect("tempdir");
    let other_path = sync_index_from(other_dir.path(), &other.scan_url, "begin");
    std::fs::rename(&other_path, &path).expect("replace the index");
    h.tick(5.0);
    assert!(
        !h.app.sh.index.usable(),
        "another network's index is refused"
    );
    assert!(h.app.sh.index.reach.is_none());
    let text = toast(&h);
    assert!(
        text.contains("is now the index of another network"),
        "{text}"
    );
    assert!(text.contains("goes on without the local index"), "{text}");
    let errors = h.app.errors.len();
    h.tick(5.0);
    assert_eq!(h.app.errors.len(), errors, "the refusal is said once");
    let header = h
        .screen(120, 40)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(header.contains("index unusable"), "{header}");

    // The right network's index back in place: picked up again, said once.
    let again = tempfile::tempdir().expect("tempdir");
    let fresh = sync_index(again.path(), &scan_url, h.now, SYNCED_SECS);
    std::fs::rename(&fresh, &path).expect("replace the index");
    h.tick(5.0);
    assert!(h.app.sh.index.usable(), "{:?}", h.app.sh.index.failure);
    let text = toast(&h);
    assert!(
        text.contains("the local index is readable again") || text.contains("replaced"),
        "{text}"
    );
}

/// The explorer's settings on a `serve-demo` child process (its JSON line of URLs), dark theme.
pub(crate) fn served_settings(demo: &crate::soak::ServedDemo) -> cantonscope::config::Settings {
    let text = |k: &str| demo.info[k].as_str().expect(k).to_owned();
    let scans: Vec<String> = demo.info["scan_urls"]
        .as_array()
        .expect("scan urls")
        .iter()
        .filter_map(|u| u.as_str().map(str::to_owned))
        .collect();
    demo_settings(
        &scans,
        &text("validator_url"),
        &text("ledger_url"),
        &text("token"),
    )
}

/// The explorer's settings on the demo nodes at these URLs, with the demo's token, dark theme.
fn demo_settings(
    scans: &[String],
    validator: &str,
    ledger: &str,
    token: &str,
) -> cantonscope::config::Settings {
    let mut settings = cantonscope::config::Settings::default();
    settings
        .use_demo(scans, validator, ledger, token)
        .expect("demo settings");
    settings.theme = "dark".into();
    settings
}

/// The seed of the network the test below restarts. No other test starts a demo of this seed
/// whose history ends when it starts ([`cantonscope::demo::DemoConfig::end_now`]), so this
/// process generates that history when the restarted demo starts.
const RESTARTED_SEED: u64 = 39;

/// Issue 37 §3: an index synced from one run of the time-relative demo, read by the explorer on
/// the demo started again (a new history, the same network): the explorer names the rewrite in
/// the sync's words, says what to do, and History lists none of the index's rows (the loaded
/// pages come from the scan, `L` and Up above the loaded rows open no index part).
#[test]
fn a_history_rewritten_under_the_index_is_named_and_its_rows_are_not_mixed_into_history() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = crate::soak::serve_demo_of(RESTARTED_SEED, 0.0);
    let first_scan = first.info["scan_urls"][0]
        .as_str()
        .expect("scan url")
        .to_owned();
    let now = chrono::Utc::now().timestamp_micros();
    let path = sync_index(dir.path(), &first_scan, now, SYNCED_SECS);
    drop(first);
    // The demo started again: its history is generated anew, ending when it starts. The first
    // one's ended by its start (in a UTC day's first quarter hour, a second before midnight,
    // where a restart without `end_now` would end too and serve the same history), so the
    // second ends later at any time of day.
    let rt = runtime();
    let second = rt
        .block_on(cantonscope::demo::start(cantonscope::demo::DemoConfig {
            seed: RESTARTED_SEED,
            end_now: true,
            ..cantonscope::demo::DemoConfig::default()
        }))
        .expect("the demo starts again");
    let mut settings = demo_settings(
        &second.scan_urls,
        &second.validator_url,
        &second.ledger_url,
        &second.token,
    );
    settings.index = Some(path.display().to_string());
    let mut h = Harness::connect(&settings, chrono::Utc::now().timestamp_micros());
    assert!(!h.app.sh.history.is_empty());
    for _ in 0..3 {
        if h.app.sh.index.rewritten.is_some() {
            break;
        }
        h.tick(5.0);
    }
    let said = h
        .app
        .sh
        .index
        .rewritten
        .clone()
        .expect("the rewrite is named");
    // The sync's words, then what to do.
    assert!(
        said.starts_with("the history was rewritten under the index: update "),
        "{said}"
    );
    // The index's newest update is not at its place on the scan any more.
    assert!(
        said.contains("is gone from the scan's history")
            || said.contains("is new at a position already walked past"),
        "{said}"
    );
    assert!(
        said.contains("cantonscope index sync --index NEW"),
        "{said}"
    );
    assert!(said.contains("`--index` another file"), "{said}");
    let text = toast(&h);
    assert!(text.starts_with("the history was rewritten"), "{text}");
    assert!(!h.app.sh.index.usable());
    let errors = h.app.errors.len();
    for _ in 0..3 {
        h.tick(5.0);
    }
    assert_eq!(h.app.errors.len(), errors, "said once");
    let header = h
        .screen(120, 40)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(header.contains("history rewritten"), "{header}");
    // History lists the scan's updates only: `L` and Up above the loaded rows open no index
    // part (no row of the index's old history is mixed in).
    h.palette("load 2h");
    assert!(
        h.app.sh.timeline.is_none(),
        "no list read from the index: {}",
        toast(&h)
    );
    for _ in 0..5 {
        h.key(KeyCode::Home);
        h.key(KeyCode::Up);
    }
    assert!(h.app.sh.timeline.is_none());
    let location = cantonscope::store::Location::parse(&path.display().to_string());
    let mut reader = cantonscope::store::open_reader(&location).expect("reader");
    // (The demo's update ids do not depend on its clock: an update of the index's history is
    // its id at the position the index keeps it.)
    let kept: std::collections::HashSet<(String, i64)> = reader
        .page_after(None, 1_000_000)
        .expect("kept")
        .into_iter()
        .map(|k| (k.update_id, k.record_time))
        .collect();
    let mixed = h
        .app
        .sh
        .history
        .iter()
        .filter(|s| kept.contains(&(s.update_id().to_string(), s.record_time())))
        .count();
    assert_eq!(mixed, 0, "no update of the index's history in History");
    // The Validators pane lists the loaded history's validators and says why not the index's.
    validators_without_the_index(&mut h, "the history was rewritten under the local index");
    h.cmd(cantonscope::msg::Command::Pane1);
    // The Rounds view says why it shows none of the index's rounds (not "no local index").
    h.key(KeyCode::Char('M'));
    let rounds = h.screen(80, 24);
    assert!(
        rounds.contains(cantonscope::ui::rounds::REWRITTEN_TEXT),
        "{rounds}"
    );
    assert!(
        !rounds.contains(cantonscope::ui::rounds::NO_INDEX_TEXT),
        "{rounds}"
    );
}

#[test]
fn the_app_reads_the_indexs_updates_per_day_and_the_status_card_draws_them() {
    use cantonscope::feed::index::PER_DAY_DAYS;
    use cantonscope::model::index::stats::{DAY_MICROS, day_of};
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index(dir.path(), false);
    // The reach first, then (on a later tick) the updates per day, through the runtime.
    for _ in 0..4 {
        h.tick(1.0);
    }
    let per_day = h.app.sh.index.per_day.clone();
    assert_eq!(per_day.len(), PER_DAY_DAYS, "{per_day:?}");
    // What the index itself holds for each of those days.
    let path = h.app.sh.ctx.index.clone().expect("index");
    let mut store = cantonscope::store::open_reader(&cantonscope::store::Location::parse(&path))
        .expect("opens");
    let reach = store.reach(0).expect("reach");
    let newest = day_of(reach.last.expect("updates"));
    let expected: Vec<u64> = (newest - PER_DAY_DAYS as i64 + 1..=newest)
        .map(|d| {
            store
                .update_count(d * DAY_MICROS, Some((d + 1) * DAY_MICROS))
                .expect("count")
        })
        .collect();
    assert_eq!(per_day, expected);
    assert_eq!(
        per_day.iter().sum::<u64>(),
        reach.updates,
        "the index spans two hours"
    );
    h.key(KeyCode::Char('4'));
    let s = h.screen(120, 40);
    let newest_count = cantonscope::model::format::group_thousands(*per_day.last().unwrap() as i64);
    assert!(
        s.contains(&format!("index/day {newest_count} · 14 d")),
        "{s}"
    );
}

/// Pane 6 over an index that is configured and cannot be used: the validators of the loaded
/// history, queried as without an index, and a line saying `why` the index is not read.
fn validators_without_the_index(h: &mut Harness, why: &str) {
    h.cmd(cantonscope::msg::Command::Pane6);
    let p = &h.app.validators;
    assert!(p.kept.is_none(), "the index's list is not read");
    assert!(
        p.index_note.as_deref().is_some_and(|n| n.starts_with(why)),
        "{:?}",
        p.index_note
    );
    let mut asked = p
        .query
        .clone()
        .expect("the loaded history's validators asked");
    asked.sort();
    let mut seen: Vec<String> = h
        .app
        .sh
        .history
        .validators()
        .into_iter()
        .map(str::to_owned)
        .collect();
    seen.sort();
    assert!(!seen.is_empty());
    assert_eq!(asked, seen);
    let s = h.screen(160, 30);
    assert!(s.contains(why), "{s}");
    assert!(s.contains("the loaded history's validators"), "{s}");
    assert!(!s.contains("ever licensed (index)"), "{s}");
}
