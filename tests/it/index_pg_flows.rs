//! The PostgreSQL index (issue 39's write path: a page's updates and keys sent by binary COPY,
//! their seqs taken first, the terms added and read back in one statement) against the SQLite
//! index of the same demo: a range pruned and synced again (its terms removed by the prune
//! added again with new ids, the counts of the terms kept raised again, its updates given seqs
//! after every kept one) answers as SQLite does; and the explorer's whole-index search (`F`)
//! over a PostgreSQL index counts, pages and opens an update the loaded history does not hold;
//! and `--offline` over a PostgreSQL index lists its updates in ledger order, each page
//! sought in the index of positions.
//!
//! Skipped without a server, as [`crate::index_pg`] says.

use std::path::Path;

use cantonscope::panes::history::IndexSearch;
use cantonscope::store::Location;
use crossterm::event::KeyCode;

use crate::common::{Harness, Options};
use crate::index::{four, from, history, index_args, run, status, sync, text};
use crate::index_pairs::lowered;
use crate::index_pg::{comparable, database, hub_pairs, kept, same_hubs, search};

/// Searches over both indexes: the same answers (whole rows of the range, the first rows, the
/// counts over the range and over the whole index).
fn same_answers(dir: &Path, sqlite_at: &str, pg_at: &str, queries: &[Vec<String>]) {
    for query in queries {
        let terms: Vec<&str> = query.iter().map(String::as_str).collect();
        for extra in [
            vec!["--limit", "1000000", "--from", from()],
            vec!["--limit", "7"],
            vec!["--count"],
            vec!["--count", "--from", from()],
        ] {
            assert_eq!(
                search(dir, pg_at, &terms, &extra),
                search(dir, sqlite_at, &terms, &extra),
                "{query:?} {extra:?}"
            );
        }
    }
}

#[test]
fn a_range_pruned_and_synced_again_into_postgres_answers_as_the_sqlite_index() {
    let Some((db, _server)) = database("resynced") else {
        return;
    };
    let demo = four();
    let url = &demo.handle.scan_url;
    let dir = tempfile::tempdir().expect("tempdir");
    let sqlite = dir.path().join("index.sqlite");
    let sqlite_at = sqlite.to_str().expect("utf-8");
    let pg_at = db.url.as_str();
    // Hubs at 100 updates: their pairs and bits are written, pruned and written again.
    lowered(sqlite_at);
    lowered(pg_at);
    for at in [sqlite_at, pg_at] {
        let (code, _, err) = sync(dir.path(), url, at, &["--from", from()]);
        assert_eq!(code, 0, "{err}");
    }
    let lines = history(dir.path(), url);
    assert!(lines.len() > 400, "{}", lines.len());
    // The older half removed from both, then synced again.
    let cut_at = lines.len() / 2;
    let cut = lines[cut_at]["record_time"]
        .as_str()
        .expect("time")
        .to_owned();
    for at in [sqlite_at, pg_at] {
        let mut args = index_args(at, "prune");
        args.extend_from_slice(&["--before", &cut]);
        let output = run(dir.path(), url, &args);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    }
    let pruned = kept(&db.location()).len();
    assert!(pruned < lines.len(), "{pruned} of {}", lines.len());
    for at in [sqlite_at, pg_at] {
        let (code, out, err) = sync(dir.path(), url, at, &["--from", from()]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            out["counters"]["updates_written"].as_u64(),
            Some((lines.len() - pruned) as u64),
            "{out}"
        );
    }
    // The same updates with the same digests, in ledger order; the same status.
    let in_pg = kept(&db.location());
    assert_eq!(in_pg.len(), lines.len());
    assert_eq!(in_pg, kept(&Location::Sqlite(sqlite.clone())));
    assert_eq!(
        comparable(status(dir.path(), pg_at)),
        comparable(status(dir.path(), sqlite_at))
    );
    // The same answers: a party of an update synced again, the DSO party, a template, a
    // choice, contracts by prefix, kinds, two terms, every update.
    let (early, event) = lines[cut_at / 2..cut_at]
        .iter()
        .find_map(|l| {
            let e = l["events_by_id"]
                .as_object()?
                .values()
                .find(|e| e["event_type"] == "created_event")?;
            Some((l, e))
        })
        .expect("a contract created before the cut");
    let party = event["signatories"][0].as_str().expect("a signatory");
    let template = event["template_id"].as_str().expect("a template");
    let contract = event["contract_id"].as_str().expect("a contract");
    let queries: Vec<Vec<String>> = vec![
        vec![format!("party:{party}")],
        vec!["party:DSO".to_owned()],
        vec![format!("template:{template}")],
        vec!["choice:AmuletRules_Transfer".to_owned()],
        vec![format!("contract:{}", &contract[..24])],
        vec![format!("contract:{contract}")],
        vec!["is:transfer".to_owned()],
        vec!["is:reward".to_owned(), "party:DSO".to_owned()],
        vec![format!("party:{party}"), format!("template:{template}")],
        vec!["id:1220".to_owned()],
    ];
    same_answers(dir.path(), sqlite_at, pg_at, &queries);
    let found = search(dir.path(), pg_at, &[&format!("contract:{contract}")], &[]);
    let id = early["update_id"].as_str().expect("an id");
    assert!(found.iter().any(|l| l.contains(id)), "{id} in {found:?}");
    same_answers(
        dir.path(),
        sqlite_at,
        pg_at,
        &hub_pairs(&same_hubs(&db, &sqlite)),
    );
}

/// The explorer on the demo with the PostgreSQL index at `url` synced from it (the tests'
/// span, `--verify 1`, `work` the sync's directory), its settings then changed by `tweak`.
fn explorer_over(
    url: &str,
    work: &Path,
    tweak: impl Fn(&mut cantonscope::config::Settings) + 'static,
) -> Harness {
    let (url, work) = (url.to_owned(), work.to_owned());
    Harness::start_with(Options {
        prepare: Box::new(move |demo, now, settings| {
            let from = cantonscope::model::format::format_time_micros(
                now - crate::index_explorer::SYNCED_SECS * 1_000_000,
            );
            let (code, _, err) = sync(
                &work,
                &demo.scan_url,
                &url,
                &["--from", &from, "--verify", "1"],
            );
            assert_eq!(code, 0, "{err}");
            settings.index = Some(url.clone());
            tweak(settings);
        }),
        ..Options::default()
    })
}

#[test]
fn the_whole_index_search_over_postgres_counts_pages_and_opens_an_update_not_loaded() {
    let Some((db, _server)) = database("explorer_f") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = explorer_over(&db.url, dir.path(), |_| {});
    let loaded: std::collections::HashSet<String> = h
        .app
        .sh
        .history
        .iter()
        .map(|s| s.update_id().to_string())
        .collect();
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
    h.type_text(choice);
    h.key(KeyCode::Enter);
    let search_shown = h.app.history.index_search().expect("search shown");
    assert!(!search_shown.is_typing());
    let total = search_shown.total().expect("counted");
    assert!(
        total as usize > in_loaded,
        "{total} in the index, {in_loaded} loaded"
    );
    assert_eq!(search_shown.rows().len(), (total as usize).min(200));
    // The count is the index's own (`index search --count` over the same database).
    let counted = search(dir.path(), &db.url, &[choice], &["--count"]);
    assert_eq!(counted, vec![total.to_string()]);
    let s = crate::index_explorer::screen(&mut h, 120, 40);
    assert!(
        s.contains("Whole index · choice:AmuletRules_Transfer"),
        "{s}"
    );
    assert!(!s.contains(&db.url), "the URL is shown redacted: {s}");
    // Paging: the end of the list reads the next page.
    h.key(KeyCode::End);
    let rows = h.app.history.index_search().expect("search").rows().len();
    assert_eq!(rows, (total as usize).min(400), "the second page was read");
    // Enter on a row the loaded history does not hold opens it from the index.
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
    h.key(KeyCode::Esc);
    assert!(h.app.history.index_search().is_some());
    h.key(KeyCode::Esc);
    assert!(h.app.history.index_search().is_none());
    drop(h);
    drop(db);
}

#[test]
fn offline_the_explorer_lists_a_postgres_index_each_page_sought_by_its_position() {
    let Some((db, _server)) = database("offline") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let h = explorer_over(&db.url, dir.path(), |settings| {
        settings.offline = true;
        settings.from = cantonscope::config::HistoryStart::Begin;
    });
    // From the beginning: History holds the index's updates, in its order, page after page.
    let listed: Vec<String> = h
        .app
        .sh
        .history
        .iter()
        .map(|s| s.update_id().to_string())
        .collect();
    let kept: Vec<String> = kept(&db.location()).into_iter().map(|(id, _)| id).collect();
    assert!(listed.len() > 300, "pages of 100: {} listed", listed.len());
    assert_eq!(listed, kept, "every update, in order");
    drop(h);
    // Each read from a position seeks it in the index of positions (no filter over the
    // updates before it), the sequential scan ruled out so the small table shows it.
    let mut pg = postgres::Client::connect(&db.url, postgres::NoTls).expect("connects");
    pg.batch_execute("SET enable_seqscan = off").expect("set");
    let (m, t) = (1_i64, 1_800_000_000_000_000_i64);
    for (sql, params) in [
        (
            cantonscope::store::POSTGRES_PAGE_AFTER_SQL,
            vec![&m as &(dyn postgres::types::ToSql + Sync), &t, &100_i64],
        ),
        (
            cantonscope::store::POSTGRES_KEPT_DIGESTS_SQL,
            vec![&m as &(dyn postgres::types::ToSql + Sync), &t, &m, &(t + 1)],
        ),
    ] {
        let plan = crate::index_pg::explain(&mut pg, &format!("EXPLAIN {sql}"), &params);
        let sought = plan.lines().any(|l| {
            l.contains("Index Cond: ") && l.contains("ROW(migration_id, record_time) > ROW(")
        });
        assert!(sought, "{sql}\n{plan}");
        assert!(!plan.contains("Filter:"), "{sql}\n{plan}");
    }
    drop(db);
}
