//! `index compact`: an index pruned of most of its updates keeps its size until compacted; then
//! it is smaller on disk and answers every search, count and status as before, and a later sync
//! writes into it. SQLite's compaction is refused while a sync holds the writer lock;
//! PostgreSQL's builds the indexes again and leaves no invalid copy (skipped without a server,
//! as [`crate::index_pg`] says).

use std::path::Path;

use serde_json::Value;

use crate::index::{four, from, history, index_args, kept, run, status, sync, temp, text};
use crate::index_pg::{comparable, database, search};

/// The searches whose answers a compaction must keep: rows, first rows and counts of a party,
/// the DSO party, a template, a choice, a contract's prefix, a kind, two terms.
fn answers(dir: &Path, at: &str, lines: &[Value]) -> Vec<Vec<String>> {
    let event = lines
        .iter()
        .rev()
        .find_map(|l| {
            l["events_by_id"]
                .as_object()?
                .values()
                .find(|e| e["event_type"] == "created_event")
                .cloned()
        })
        .expect("a contract created");
    let party = event["signatories"][0].as_str().expect("a signatory");
    let template = event["template_id"].as_str().expect("a template");
    let contract = event["contract_id"].as_str().expect("a contract");
    let queries = [
        vec![format!("party:{party}")],
        vec!["party:DSO".to_owned()],
        vec![format!("template:{template}")],
        vec!["choice:AmuletRules_Transfer".to_owned()],
        vec![format!("contract:{}", &contract[..24])],
        vec!["is:transfer".to_owned()],
        vec![format!("party:{party}"), format!("template:{template}")],
    ];
    let mut all = Vec::new();
    for query in &queries {
        let terms: Vec<&str> = query.iter().map(String::as_str).collect();
        for extra in [
            vec!["--limit", "1000000", "--from", from()],
            vec!["--limit", "7"],
            vec!["--count"],
        ] {
            let found = search(dir, at, &terms, &extra);
            assert!(!found.is_empty(), "{query:?} {extra:?}");
            all.push(found);
        }
    }
    all
}

/// `index compact` of `at`: its JSON (exit 0 asserted).
fn compact(dir: &Path, at: &str) -> Value {
    let output = run(dir, "http://127.0.0.1:9", &index_args(at, "compact"));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("compacting the index"),
        "{}",
        text(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON")
}

/// `index prune --before` the time of `lines[at]` (exit 0 asserted).
fn prune_before(dir: &Path, url: &str, index: &str, lines: &[Value], at: usize) {
    let before = lines[at]["record_time"].as_str().expect("time");
    let mut args = index_args(index, "prune");
    args.extend_from_slice(&["--before", before]);
    let output = run(dir, url, &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
}

/// The tests' range synced from the shared demo into `at`: the range's updates as `scan
/// updates --all` prints them.
fn synced_into(dir: &Path, at: &str) -> Vec<Value> {
    let url = &four().handle.scan_url;
    let (code, _, err) = sync(dir, url, at, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    history(dir, url)
}

#[test]
fn a_pruned_sqlite_index_compacted_is_smaller_and_answers_as_before() {
    let url = &four().handle.scan_url;
    let (dir, index) = temp();
    let at = index.to_str().expect("utf-8");
    let lines = synced_into(dir.path(), at);
    assert!(lines.len() > 400, "{}", lines.len());
    let full = std::fs::metadata(&index).expect("the file").len();
    // The oldest three quarters pruned: the file keeps its size (SQLite reuses freed pages).
    prune_before(dir.path(), url, at, &lines, lines.len() * 3 / 4);
    let pruned = std::fs::metadata(&index).expect("the file").len();
    assert!(
        pruned >= full,
        "a prune alone gives nothing back: {pruned} of {full}"
    );
    let free = {
        let conn = rusqlite::Connection::open(&index).expect("opens");
        let pragma = |name: &str| -> u64 {
            let n: i64 = conn
                .query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
                .expect("pragma");
            u64::try_from(n).expect("not negative")
        };
        pragma("freelist_count") * pragma("page_size")
    };
    assert!(
        free * 2 > pruned,
        "{free} of {pruned} bytes free after the prune"
    );
    let before = (kept(&index), answers(dir.path(), at, &lines));
    let status_before = comparable(status(dir.path(), at));

    let done = compact(dir.path(), at);
    let (was, is) = (
        done["bytes_before"].as_u64().expect("bytes_before"),
        done["bytes_after"].as_u64().expect("bytes_after"),
    );
    assert!(was >= pruned, "{done}");
    assert!(is < was, "{done}");
    assert!(done["seconds"].as_f64().is_some(), "{done}");
    // Every free page given back (and the pages in use packed fuller).
    let now = std::fs::metadata(&index).expect("the file").len();
    assert!(
        now <= pruned - free,
        "{now} bytes after, {pruned} before, {free} free"
    );
    // The same updates, digests, answers and status.
    assert_eq!((kept(&index), answers(dir.path(), at, &lines)), before);
    assert_eq!(comparable(status(dir.path(), at)), status_before);
    let conn = rusqlite::Connection::open(&index).expect("opens");
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("checked");
    assert_eq!(check, "ok");
    drop(conn);
    // A later sync writes into it: the pruned range again, every update once.
    let (code, out, err) = sync(dir.path(), url, &index, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out["counters"]["updates_written"].as_u64() >= Some((lines.len() * 3 / 4) as u64),
        "{out}"
    );
    let ids: Vec<String> = kept(&index).into_iter().map(|(id, _)| id).collect();
    let mut distinct = ids.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), ids.len());
    assert!(ids.len() >= lines.len(), "{} of {}", ids.len(), lines.len());
}

#[test]
fn a_compaction_is_refused_while_a_sync_writes() {
    let (dir, index, _, _) = crate::index::synced();
    let size = std::fs::metadata(&index).expect("the file").len();
    let _held =
        cantonscope::store::lock::WriterLock::acquire(&index, "pid 4242 on elsewhere since noon")
            .expect("the lock");
    let output = run(
        dir.path(),
        "http://127.0.0.1:9",
        &index_args(&index, "compact"),
    );
    let err = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("another sync is writing"), "{err}");
    assert!(err.contains("pid 4242 on elsewhere since noon"), "{err}");
    assert!(output.stdout.is_empty());
    assert_eq!(std::fs::metadata(&index).expect("the file").len(), size);
}

#[test]
fn a_pruned_postgres_index_compacted_answers_as_before_and_leaves_no_invalid_index() {
    let Some((db, _server)) = database("compacted") else {
        return;
    };
    let url = &four().handle.scan_url;
    let dir = tempfile::tempdir().expect("tempdir");
    let at = db.url.as_str();
    let lines = synced_into(dir.path(), at);
    prune_before(dir.path(), url, at, &lines, lines.len() / 2);
    let before = (
        crate::index_pg::kept(&db.location()),
        answers(dir.path(), at, &lines),
    );
    let status_before = comparable(status(dir.path(), at));
    let mut admin = postgres::Client::connect(at, postgres::NoTls).expect("connects");
    let indexes = |c: &mut postgres::Client| -> Vec<(String, bool)> {
        c.query(
            "SELECT x.relname::text, i.indisvalid FROM pg_index i
             JOIN pg_class x ON x.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
             WHERE t.relname = ANY($1) AND pg_table_is_visible(t.oid) ORDER BY 1",
            &[&cantonscope::store::POSTGRES_TABLES.to_vec()],
        )
        .expect("the indexes")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
    };
    let named = indexes(&mut admin);
    assert!(named.iter().any(|(n, _)| n == "keys_newest"), "{named:?}");

    let done = compact(dir.path(), at);
    let (was, is) = (
        done["bytes_before"].as_u64().expect("bytes_before"),
        done["bytes_after"].as_u64().expect("bytes_after"),
    );
    assert!(is < was, "{done}: the half pruned is given back");
    // The same indexes, each valid (no copy of a rebuild left), the same answers and status.
    assert_eq!(indexes(&mut admin), named);
    assert!(named.iter().all(|(_, valid)| *valid), "{named:?}");
    // The keys' key rebuilt is still the table's replica identity.
    let identity: bool = admin
        .query_one(
            "SELECT indisreplident FROM pg_index WHERE indexrelid = 'keys_newest'::regclass",
            &[],
        )
        .expect("the keys' key")
        .get(0);
    assert!(
        identity,
        "keys_newest is the replica identity after the compaction"
    );
    assert_eq!(
        (
            crate::index_pg::kept(&db.location()),
            answers(dir.path(), at, &lines)
        ),
        before
    );
    assert_eq!(comparable(status(dir.path(), at)), status_before);
    // A later sync writes into it.
    let (code, _, err) = sync(dir.path(), url, at, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    assert!(crate::index_pg::kept(&db.location()).len() >= lines.len());
}

/// How a rebuild is stopped while it waits.
#[derive(Clone, Copy, PartialEq)]
enum Stop {
    /// `pg_cancel_backend` from another session, as a DBA would.
    ByTheServer,
    /// SIGINT to the command, as Ctrl-C.
    CtrlC,
}

/// A PostgreSQL compaction stopped while the rebuild of `keys`' key (`keys_newest`) waits for another
/// session writing `keys` (a transaction open with its lock), its new copy made but not yet
/// valid: the command fails saying so, no copy of the rebuild is left, the index answers as
/// before, and run again it compacts.
fn stopped_midway(name: &str, how: Stop) {
    let Some((db, _server)) = database(name) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let at = db.url.as_str();
    let lines = synced_into(dir.path(), at);
    let before = answers(dir.path(), at, &lines);
    let mut writer = postgres::Client::connect(at, postgres::NoTls).expect("connects");
    let mut open = writer.transaction().expect("a transaction");
    open.batch_execute("LOCK TABLE keys IN ROW EXCLUSIVE MODE")
        .expect("locked");
    let compacting = crate::common::bin::bin(dir.path())
        .args(index_args(at, "compact"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let mut admin = postgres::Client::connect(at, postgres::NoTls).expect("connects");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        // Waiting, its copy already made (an autovacuum's lock could make it wait before).
        let waiting = admin
            .query_opt(
                "SELECT pid FROM pg_stat_activity
                 WHERE query LIKE 'REINDEX TABLE CONCURRENTLY keys%' AND wait_event_type = 'Lock'
                   AND EXISTS (SELECT 1 FROM pg_class WHERE relname LIKE 'keys\\_newest\\_ccnew%')",
                &[],
            )
            .expect("asked");
        if let Some(row) = waiting {
            match how {
                Stop::ByTheServer => {
                    let pid: i32 = row.get(0);
                    admin
                        .execute("SELECT pg_cancel_backend($1)", &[&pid])
                        .expect("cancelled");
                }
                Stop::CtrlC => {
                    let sent = std::process::Command::new("kill")
                        .args(["-INT", &compacting.id().to_string()])
                        .status()
                        .expect("kill runs");
                    assert!(sent.success());
                }
            }
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the rebuild of keys never waited"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // The rebuild ends cancelled; then the other session's transaction ends, so that the drop
    // of the copy (which waits for it too) can run.
    while admin
        .query_opt(
            "SELECT 1 FROM pg_stat_activity WHERE query LIKE 'REINDEX TABLE CONCURRENTLY keys%' AND state = 'active'",
            &[],
        )
        .expect("asked")
        .is_some()
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the rebuild of keys was never cancelled"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    open.rollback().expect("rolled back");
    let output = compacting.wait_with_output().expect("ends");
    let err = text(&output.stderr);
    match how {
        Stop::ByTheServer => {
            assert_eq!(output.status.code(), Some(2), "{err}");
            assert!(err.contains("cancel"), "{err}");
        }
        Stop::CtrlC => {
            assert_eq!(output.status.code(), Some(130), "{err}");
            assert!(err.contains("interrupted"), "{err}");
        }
    }
    assert!(output.stdout.is_empty());
    let leftovers: Vec<String> = admin
        .query(
            "SELECT x.relname::text FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid
             WHERE NOT i.indisvalid OR x.relname LIKE '%\\_cc%'",
            &[],
        )
        .expect("the indexes")
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(leftovers, Vec::<String>::new());
    assert_eq!(answers(dir.path(), at, &lines), before);
    compact(dir.path(), at);
}

#[test]
fn a_postgres_rebuild_cancelled_by_the_server_leaves_no_copy_and_the_index_answers() {
    stopped_midway("compact_cancelled", Stop::ByTheServer);
}

#[test]
fn ctrl_c_stops_a_postgres_compaction_midway_and_leaves_no_copy() {
    stopped_midway("compact_ctrl_c", Stop::CtrlC);
}
