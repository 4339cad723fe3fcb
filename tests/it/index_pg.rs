//! The local history index in PostgreSQL (issue 19, step 4), run as the real binary over real
//! HTTP against the demo, into a real server: a verified sync equals the SQLite sync of the same
//! demo (the same update ids and digests, the same search answers and counts, before and after
//! a prune), a sync killed with SIGKILL resumes to the same index, a second sync is refused
//! naming the first (the advisory lock), the server restarted in the middle of a sync stops it
//! with a message and resuming gives the same index, and a wrong password is a clear error that
//! never shows the password.
//!
//! The server: `CANTONSCOPE_TEST_PG_URL` (a role that may create databases; each test makes its
//! own database, dropped at its end), `CANTONSCOPE_TEST_PG_DATA` (its data directory, for the
//! restart test; `CANTONSCOPE_TEST_PG_BIN`: where `pg_ctl` is). `.ci/run` starts a throwaway
//! cluster and sets them; without them these tests are skipped (and say so once), unless
//! `CANTONSCOPE_REQUIRE_PG=1`, which makes a missing server a failure.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Once, PoisonError, RwLock, RwLockReadGuard};
use std::time::Duration;

use cantonscope::model::index::KeyKind;
use cantonscope::model::index::read::{RangeFrom, RangeKey};
use cantonscope::store::{self, Location};
use serde_json::Value;

use crate::common::bin::bin;
use crate::index::{
    four, from, history, ids, index_args, kill_syncs_at_random_moments, run, status, sync, text,
};
use crate::index_pairs::lowered;
use crate::index_verify::verify;

/// The tests of this file, for the message that says they were skipped.
const TESTS: &[&str] = &[
    "a_verified_sync_into_postgres_equals_the_sqlite_sync",
    "a_sync_killed_at_random_moments_resumes_to_the_same_postgres_index",
    "a_second_sync_on_postgres_is_refused_naming_the_first",
    "postgres_restarted_in_the_middle_of_a_sync_stops_it_and_resuming_gives_the_same_index",
    "a_wrong_password_is_a_clear_error_without_the_password",
    "verify_on_postgres_agrees_and_a_changed_digest_is_exit_5",
    "deep_pages_read_by_keyset_equal_the_offset_answers_on_both_engines",
    "a_postgres_index_of_schema_2_is_refused_by_readers_and_migrated_by_the_next_sync",
    "events_kept_on_postgres_equal_the_sqlite_events_and_backfill_after_no_events",
    "a_postgres_index_of_schema_7_is_migrated_its_events_repacked_and_read_back_as_kept",
    "index_show_on_postgres_prints_the_kept_events_as_the_scans_served_them",
    "index_stats_on_postgres_equal_what_the_demos_own_pages_count",
    "rounds_on_postgres_equal_the_sqlite_rounds_and_name_the_same_diverging_scan",
    "validators_on_postgres_equal_the_sqlite_validators",
];

/// The restart test restarts the one server: the others hold this for reading while they run.
static SERVER: RwLock<()> = RwLock::new(());

struct Server {
    admin_url: String,
    data: Option<PathBuf>,
}

fn server() -> Option<Server> {
    let admin_url = std::env::var("CANTONSCOPE_TEST_PG_URL")
        .ok()
        .filter(|u| !u.is_empty());
    let required = std::env::var("CANTONSCOPE_REQUIRE_PG").is_ok_and(|v| v == "1");
    let Some(admin_url) = admin_url else {
        assert!(
            !required,
            "CANTONSCOPE_REQUIRE_PG=1 and no CANTONSCOPE_TEST_PG_URL: the PostgreSQL tests need a server (.ci/run starts one)"
        );
        static SKIPPED: Once = Once::new();
        SKIPPED.call_once(|| {
            // Past the harness's capture, once per run.
            let _ = writeln!(
                std::io::stderr().lock(),
                "\nskipped (no PostgreSQL): index_pg::{{{}}}\n  to run them: CANTONSCOPE_TEST_PG_URL=postgres://USER:PASSWORD@127.0.0.1:PORT/postgres \
                 (a role with CREATEDB) CANTONSCOPE_TEST_PG_DATA=DATADIR cargo test --test it index_pg, or bash .ci/run\n",
                TESTS.join(", ")
            );
        });
        return None;
    };
    Some(Server {
        admin_url,
        data: std::env::var_os("CANTONSCOPE_TEST_PG_DATA").map(PathBuf::from),
    })
}

/// A database of its own for one test, dropped at its end.
pub(crate) struct Database {
    pub(crate) url: String,
    name: String,
    admin_url: String,
}

impl Database {
    pub(crate) fn location(&self) -> Location {
        Location::Postgres(self.url.clone())
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if let Ok(mut admin) = postgres::Client::connect(&self.admin_url, postgres::NoTls) {
            let _ = admin.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

fn create_database(server: &Server, test: &str) -> Database {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let name = format!(
        "cs_{}_{}_{}",
        &test[..test.len().min(30)],
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    );
    let mut admin = postgres::Client::connect(&server.admin_url, postgres::NoTls)
        .expect("the test server answers at CANTONSCOPE_TEST_PG_URL");
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .expect("create the test's database");
    let mut url = reqwest::Url::parse(&server.admin_url).expect("CANTONSCOPE_TEST_PG_URL is a URL");
    url.set_path(&format!("/{name}"));
    Database {
        url: url.to_string(),
        name,
        admin_url: server.admin_url.clone(),
    }
}

/// The server (`None`: skipped) and this test's database, with the server held against a
/// restart.
pub(crate) fn database(test: &str) -> Option<(Database, RwLockReadGuard<'static, ()>)> {
    let server = server()?;
    let guard = SERVER.read().unwrap_or_else(PoisonError::into_inner);
    Some((create_database(&server, test), guard))
}

/// `index search` of `terms` with `extra` flags: the output lines.
pub(crate) fn search(dir: &Path, location: &str, terms: &[&str], extra: &[&str]) -> Vec<String> {
    let mut args = index_args(location, "search");
    args.extend_from_slice(terms);
    args.extend_from_slice(extra);
    let output = run(dir, "http://127.0.0.1:9", &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    text(&output.stdout).lines().map(str::to_owned).collect()
}

/// The update ids and digests an index keeps, in ledger order.
pub(crate) fn kept(location: &Location) -> Vec<(String, String)> {
    store::open_reader(location)
        .expect("index opens")
        .digests()
        .expect("digests")
}

/// Status without what differs between engines by nature (where it is, its size).
pub(crate) fn comparable(mut status: Value) -> Value {
    if let Some(map) = status.as_object_mut() {
        // PostgreSQL's schema number is its own from 14.
        for field in [
            "location",
            "size_bytes",
            "last_sync",
            "chunks",
            "schema_version",
        ] {
            map.remove(field);
        }
    }
    status
}

/// How many terms both engines keep (the same number on each), every PostgreSQL term's count
/// that of its keys and above 0.
fn terms_kept(db: &Database, sqlite: &Path) -> i64 {
    let conn = rusqlite::Connection::open(sqlite).expect("opens");
    let in_sqlite: i64 = conn
        .query_row("SELECT count(*) FROM terms", [], |r| r.get(0))
        .expect("terms");
    let mut pg = postgres::Client::connect(&db.url, postgres::NoTls).expect("connects");
    let row = pg
        .query_one(
            "SELECT count(*), count(*) FILTER (WHERE t.updates <= 0 OR t.updates <>
                 (SELECT count(*) FROM keys k WHERE k.term = t.id)) FROM terms t",
            &[],
        )
        .expect("terms");
    let (in_pg, miscounted): (i64, i64) = (row.get(0), row.get(1));
    assert_eq!(miscounted, 0, "terms whose count is not their keys'");
    assert_eq!(in_pg, in_sqlite, "terms kept");
    in_pg
}

/// The hubs of both indexes, the same (kind, value) terms with the same pairs, as query
/// terms; at least six, with pairs kept.
pub(crate) fn same_hubs(db: &Database, sqlite: &Path) -> Vec<String> {
    const HUBS: &str = "SELECT t.kind, t.value FROM hubs h JOIN terms t ON t.id = h.term";
    const PAIRS: &str = "SELECT ta.kind, ta.value, tb.kind, tb.value, p.n FROM pairs p
        JOIN terms ta ON ta.id = p.a JOIN terms tb ON tb.id = p.b";
    // SQLite keeps a hex contract id as the bytes it spells (schema 11): spelled back here.
    let spelled = |sql: &str| {
        sql.replace(
            "ta.value",
            "CASE WHEN typeof(ta.value) = 'blob' THEN lower(hex(ta.value)) ELSE ta.value END",
        )
        .replace(
            "tb.value",
            "CASE WHEN typeof(tb.value) = 'blob' THEN lower(hex(tb.value)) ELSE tb.value END",
        )
        .replace(
            "t.kind, t.value",
            "t.kind, CASE WHEN typeof(t.value) = 'blob' THEN lower(hex(t.value)) ELSE t.value END",
        )
    };
    let conn = rusqlite::Connection::open(sqlite).expect("opens");
    let mut in_sqlite: Vec<(i64, String)> = conn
        .prepare(&spelled(HUBS))
        .expect("hubs")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("rows")
        .map(|r| r.expect("a row"))
        .collect();
    let mut sqlite_pairs: Vec<(i64, String, i64, String, i64)> = conn
        .prepare(&spelled(PAIRS))
        .expect("pairs")
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .expect("rows")
        .map(|r| r.expect("a row"))
        .collect();
    // PostgreSQL keeps each term's value as bytes (its schema 16): spelled back too.
    let pg_spelled = |sql: &str| {
        sql.replace("ta.value", &store::postgres_term_text_sql("ta."))
            .replace("tb.value", &store::postgres_term_text_sql("tb."))
            .replace(
                "t.kind, t.value",
                &format!("t.kind, {}", store::postgres_term_text_sql("t.")),
            )
    };
    let mut pg = postgres::Client::connect(&db.url, postgres::NoTls).expect("connects");
    let mut in_pg: Vec<(i64, String)> = pg
        .query(&pg_spelled(HUBS), &[])
        .expect("hubs")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let mut pg_pairs: Vec<(i64, String, i64, String, i64)> = pg
        .query(&pg_spelled(PAIRS), &[])
        .expect("pairs")
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect();
    in_sqlite.sort();
    in_pg.sort();
    // A pair is (a, b) by id, and the ids differ between engines: compare them as sets.
    let unordered = |pairs: &mut Vec<(i64, String, i64, String, i64)>| {
        for p in pairs.iter_mut() {
            if (p.2, &p.3) < (p.0, &p.1) {
                *p = (p.2, p.3.clone(), p.0, p.1.clone(), p.4);
            }
        }
        pairs.sort();
    };
    unordered(&mut sqlite_pairs);
    unordered(&mut pg_pairs);
    assert_eq!(in_pg, in_sqlite);
    assert_eq!(pg_pairs, sqlite_pairs);
    assert!(in_pg.len() >= 6 && pg_pairs.len() >= 10, "{in_pg:?}");
    in_pg
        .into_iter()
        .map(|(kind, value)| {
            let field = KeyKind::from_code(kind).expect("a key kind").field();
            format!("{field}:{value}")
        })
        .collect()
}

/// Queries of every two of the first four hubs.
pub(crate) fn hub_pairs(hubs: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (i, x) in hubs.iter().take(4).enumerate() {
        for y in hubs.iter().take(4).skip(i + 1) {
            out.push(vec![x.clone(), y.clone()]);
        }
    }
    out
}

#[test]
fn a_verified_sync_into_postgres_equals_the_sqlite_sync() {
    let Some((db, _server)) = database("equal") else {
        return;
    };
    let demo = four();
    let url = &demo.handle.scan_url;
    let dir = tempfile::tempdir().expect("tempdir");
    let sqlite = dir.path().join("index.sqlite");
    let sqlite_at = sqlite.to_str().expect("utf-8");
    let pg_at = db.url.as_str();
    // Terms become hubs at 100 updates (100,000 on a real index), so the counts kept for
    // two frequent terms together are written, read and pruned on both engines.
    lowered(sqlite_at);
    lowered(pg_at);
    let (code, _, err) = sync(dir.path(), url, sqlite_at, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = sync(dir.path(), url, pg_at, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    let lines = history(dir.path(), url);
    assert_eq!(
        out["counters"]["updates_written"].as_u64(),
        Some(lines.len() as u64),
        "{out}"
    );
    // The same updates, once each, with the same digests, in ledger order.
    let in_pg = kept(&db.location());
    assert_eq!(in_pg, kept(&Location::Sqlite(sqlite.clone())));
    assert_eq!(
        in_pg.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>(),
        ids(&lines)
    );
    // Bodies open as the scan sent them, every one (most packed with the dictionary the sync
    // trained and kept in the database).
    let mut reader = store::open_reader(&db.location()).expect("opens");
    for ((id, _), line) in in_pg.iter().zip(&lines) {
        let body = reader.body(id).expect("read").expect("a body");
        assert_eq!(serde_json::from_str::<Value>(&body).expect("json"), *line);
    }
    assert!(reader.body_dictionary().expect("read").is_some());
    drop(reader);

    // History's rows from a time (the explorer's list over the index): the same on both.
    {
        let mut on_pg = store::open_reader(&db.location()).expect("opens");
        let mut on_sqlite = store::open_reader(&Location::Sqlite(sqlite.clone())).expect("opens");
        let mid = on_sqlite.page_after(None, 10).expect("page")[5].record_time;
        for since in [0, mid] {
            assert_eq!(
                on_pg.range_count(since, None).expect("count"),
                on_sqlite.range_count(since, None).expect("count")
            );
            assert_eq!(
                on_pg.range_count(since, Some(mid + 1)).expect("count"),
                on_sqlite.range_count(since, Some(mid + 1)).expect("count")
            );
            for offset in [0, 3, 7] {
                assert_eq!(
                    on_pg
                        .range_rows(since, &RangeFrom::Offset(offset), 5)
                        .expect("rows"),
                    on_sqlite
                        .range_rows(since, &RangeFrom::Offset(offset), 5)
                        .expect("rows"),
                    "since {since}, offset {offset}"
                );
            }
        }
    }

    // Status: the same range, four verified chunks, its size on the server, nothing running.
    let st = status(dir.path(), pg_at);
    assert_eq!(st["schema_version"], store::POSTGRES_SCHEMA_VERSION);
    assert_eq!(
        comparable(st.clone()),
        comparable(status(dir.path(), sqlite_at))
    );
    assert!(!st["location"].as_str().unwrap_or("").contains("testpw"));
    assert!(st["size_bytes"].as_u64().unwrap_or(0) > 0, "{st}");
    assert!(st["sync_running"].is_null());
    assert_eq!(st["gaps"], Value::Array(Vec::new()));
    assert_eq!(st["last_sync"]["outcome"], "done");
    // The sync leaves the planner's statistics of its tables fresh (a first page of two terms
    // took 100 times longer before autovacuum's first ANALYZE).
    let mut pg = postgres::Client::connect(&db.url, postgres::NoTls).expect("connects");
    let analyzed: i64 = pg
        .query_one(
            "SELECT count(*) FROM pg_stat_user_tables
             WHERE relname IN ('updates', 'keys', 'terms', 'hub_bits')
               AND last_analyze IS NOT NULL",
            &[],
        )
        .expect("statistics")
        .get(0);
    assert_eq!(analyzed, 4);
    let chunks = st["chunks"].as_array().expect("chunks");
    assert_eq!(chunks.len(), 4, "{st}");
    for chunk in chunks {
        assert_eq!(chunk["state"], "done");
        assert_eq!(chunk["verify"], 2);
    }

    // The same answers to the same searches: a party, the DSO party (in nearly every update),
    // a template, a choice, two terms, a contract prefix, an update-id prefix with and without
    // its 1220; whole rows, newest first; counts over the range and over the whole index.
    let signatories: Vec<String> = lines
        .iter()
        .rev()
        .flat_map(|l| {
            l["events_by_id"]
                .as_object()
                .into_iter()
                .flat_map(|m| m.values())
                .filter_map(|e| e["signatories"].as_array()?.first()?.as_str())
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    let party = signatories
        .iter()
        .find(|p| !p.starts_with("DSO::"))
        .expect("a party")
        .clone();
    let dso = signatories
        .iter()
        .find(|p| p.starts_with("DSO::"))
        .expect("the DSO party")
        .clone();
    let (creator, contract, template) = lines
        .iter()
        .find_map(|l| {
            let e = l["events_by_id"]
                .as_object()?
                .values()
                .find(|e| e["event_type"] == "created_event")?;
            Some((
                l["update_id"].as_str()?.to_owned(),
                e["contract_id"].as_str()?.to_owned(),
                e["template_id"].as_str()?.to_owned(),
            ))
        })
        .expect("a created contract");
    let id = &in_pg[5].0;
    let queries: Vec<Vec<String>> = vec![
        vec![format!("party:{party}")],
        vec![format!("party:{dso}")],
        vec![format!("template:{template}")],
        vec!["choice:AmuletRules_Transfer".to_owned()],
        vec![
            "choice:AmuletRules_Transfer".to_owned(),
            format!("party:{party}"),
        ],
        vec![format!("party:{dso}"), format!("template:{template}")],
        // The template by its name, whichever package.
        vec![format!(
            "template:{}",
            template.split_once(':').expect("package:Module:Entity").1
        )],
        vec![format!("contract:{}", &contract[..24])],
        vec![format!("id:{}", &id[..20])],
        vec![format!("id:{}", &id[4..24])],
        // As the screen draws ids: head and tail (the tail checked on both engines).
        vec![format!("id:{}…{}", &id[..8], &id[60..])],
        vec![format!("id:{}…{}", &id[..6], &id[66..])],
        vec![format!(
            "contract:{}…{}",
            &contract[..6],
            &contract[contract.len() - 3..]
        )],
        vec!["party:nobody::1220".to_owned()],
        // Parties by their hint alone: one party's, and the DSO's (a hub).
        vec![format!(
            "party:{}",
            party.split_once("::").expect("hint::fingerprint").0
        )],
        vec!["party:DSO".to_owned()],
        vec![
            "party:DSO".to_owned(),
            "choice:AmuletRules_Transfer".to_owned(),
        ],
        vec!["party:nobody".to_owned()],
        // Kinds of update by the choices they stand for: one choice, two, four (issue 38).
        vec!["is:transfer".to_owned()],
        vec!["is:vote".to_owned()],
        vec!["is:reward".to_owned()],
        vec!["is:reward".to_owned(), "party:DSO".to_owned()],
        vec!["is:transfer".to_owned(), format!("party:{party}")],
        // Every update: more than one batch of the prefix walk.
        vec!["id:1220".to_owned()],
    ];
    let compare = |queries: &[Vec<String>]| {
        for query in queries {
            let terms: Vec<&str> = query.iter().map(String::as_str).collect();
            for extra in [
                vec!["--limit", "1000000", "--from", from()],
                vec!["--limit", "7"],
                vec!["--count"],
                vec!["--count", "--from", from()],
            ] {
                let in_sqlite = search(dir.path(), sqlite_at, &terms, &extra);
                assert_eq!(
                    search(dir.path(), pg_at, &terms, &extra),
                    in_sqlite,
                    "{query:?} {extra:?}"
                );
            }
        }
    };
    compare(&queries);
    assert!(
        lines.len() > 500,
        "id:1220 walks more than one batch of 500: {}",
        lines.len()
    );
    let hubs = same_hubs(&db, &sqlite);
    compare(&hub_pairs(&hubs));
    let found = search(
        dir.path(),
        pg_at,
        &[&format!("contract:{}", &contract[..24])],
        &[],
    );
    assert!(found.iter().any(|l| l.contains(&creator)), "{found:?}");
    assert_eq!(
        search(dir.path(), pg_at, &[&format!("id:{}", &id[4..24])], &[]).len(),
        1
    );
    let everyone = search(dir.path(), pg_at, &[&format!("party:{dso}")], &["--count"]);
    assert!(everyone[0].parse::<usize>().expect("a count") > lines.len() / 2);

    // Syncing again writes nothing twice. Its index's hubs made at a higher threshold (by a
    // build whose default was higher: 200 updates here, 100 now), the sync makes hubs of the
    // terms in between first, their pairs and bitmaps those the pages made.
    let kept_hubs = crate::index_pairs::hub_tables(None, Some(pg_at));
    let demoted = crate::index_pairs::made_at(pg_at, 200);
    assert!(demoted >= 2 && demoted < hubs.len(), "{demoted}");
    let (code, out, err) = sync(dir.path(), url, pg_at, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out["counters"]["updates_written"], 0, "{out}");
    assert!(
        err.contains(&crate::index_pairs::made_notice(demoted)),
        "{err}"
    );
    assert_eq!(crate::index_pairs::hub_tables(None, Some(pg_at)), kept_hubs);
    assert_eq!(same_hubs(&db, &sqlite), hubs);

    // Pruning both at the same time: the same updates go, the counts kept per term follow.
    let cut = lines[lines.len() - 200]["record_time"]
        .as_str()
        .expect("time")
        .to_owned();
    let terms_before = terms_kept(&db, &sqlite);
    for at in [sqlite_at, pg_at] {
        let mut args = index_args(at, "prune");
        args.extend_from_slice(&["--before", &cut]);
        let output = run(dir.path(), url, &args);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let result: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        assert_eq!(result["removed"].as_u64(), Some(lines.len() as u64 - 200));
    }
    assert_eq!(
        kept(&db.location()),
        kept(&Location::Sqlite(sqlite.clone()))
    );
    // The terms only the removed updates had are gone on both, each kept count its keys'.
    let terms_after = terms_kept(&db, &sqlite);
    assert!(
        terms_after < terms_before,
        "{terms_after} of {terms_before}"
    );
    compare(&queries);
    compare(&hub_pairs(&same_hubs(&db, &sqlite)));
    assert_eq!(
        comparable(status(dir.path(), pg_at)),
        comparable(status(dir.path(), sqlite_at))
    );
}

#[test]
fn a_sync_killed_at_random_moments_resumes_to_the_same_postgres_index() {
    let Some((db, _server)) = database("killed") else {
        return;
    };
    let demo = four();
    let url = &demo.handle.scan_url;
    let dir = tempfile::tempdir().expect("tempdir");
    let straight = dir.path().join("straight.sqlite");
    let (code, _, err) = sync(
        dir.path(),
        url,
        straight.to_str().expect("utf-8"),
        &["--from", from()],
    );
    assert_eq!(code, 0, "{err}");
    let kills = kill_syncs_at_random_moments(dir.path(), url, &db.url, 8, 0x2545_f491_4f6c_dd1d);
    assert!(kills > 0);
    // The advisory lock went with the killed process's connection.
    let (code, out, err) = sync(dir.path(), url, &db.url, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out["counters"]["updates_known"].as_u64().unwrap_or(0) > 0,
        "the last committed page is read again: {out}"
    );
    let resumed = kept(&db.location());
    let unique: BTreeSet<&String> = resumed.iter().map(|(id, _)| id).collect();
    assert_eq!(unique.len(), resumed.len(), "no update twice");
    assert_eq!(resumed, kept(&Location::Sqlite(straight)), "none missing");
}

#[test]
fn a_second_sync_on_postgres_is_refused_naming_the_first() {
    let Some((db, _server)) = database("second") else {
        return;
    };
    let demo = four();
    let url = &demo.handle.scan_url;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut args = index_args(&db.url, "sync");
    args.extend_from_slice(&[
        "--request-rate",
        "1000",
        "--from",
        from(),
        "--follow",
        "--progress",
        "json",
    ]);
    let mut first = bin(dir.path())
        .arg("--scan-url")
        .arg(url)
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut lines = BufReader::new(first.stderr.take().expect("stderr")).lines();
    let line = lines.next().expect("a progress line").expect("text");
    assert!(line.starts_with('{'), "{line}");
    let (code, _, err) = sync(dir.path(), url, &db.url, &["--from", from()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("another sync is writing"), "{err}");
    assert!(err.contains(&format!("pid {} on ", first.id())), "{err}");
    assert!(err.contains("(cantonscope index sync)"), "{err}");
    // Prune writes too: refused the same way.
    let mut args = index_args(&db.url, "prune");
    args.extend_from_slice(&["--before", from()]);
    let output = run(dir.path(), url, &args);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains(&format!("pid {} on ", first.id())),
        "{}",
        text(&output.stderr)
    );
    // Readers read meanwhile.
    assert_eq!(
        status(dir.path(), &db.url)["sync_running"]["pid"].as_u64(),
        Some(u64::from(first.id()))
    );
    let stopped = Command::new("kill")
        .args(["-TERM", &first.id().to_string()])
        .status()
        .expect("kill");
    assert!(stopped.success());
    std::thread::spawn(move || lines.count());
    assert_eq!(first.wait().expect("wait").code(), Some(0));
    // Its lock went with it.
    let (code, _, err) = sync(dir.path(), url, &db.url, &[]);
    assert_eq!(code, 0, "{err}");
}

/// Runs `pg_ctl` on the test server's data directory, as the directory's owner when root
/// (`pg_ctl` refuses root).
fn pg_ctl(data: &Path, args: &[&str]) {
    use std::os::unix::fs::MetadataExt;
    let bin_dir = std::env::var_os("CANTONSCOPE_TEST_PG_BIN")
        .map(PathBuf::from)
        .or_else(|| {
            let out = Command::new("pg_config").arg("--bindir").output().ok()?;
            Some(PathBuf::from(text(&out.stdout).trim()))
        })
        .expect("CANTONSCOPE_TEST_PG_BIN or pg_config");
    let pg_ctl = bin_dir.join("pg_ctl");
    let me = text(&Command::new("id").arg("-u").output().expect("id").stdout);
    let owner = std::fs::metadata(data).expect("the data directory").uid();
    let mut command = if me.trim() == "0" && owner != 0 {
        let name = text(
            &Command::new("id")
                .args(["-nu", &owner.to_string()])
                .output()
                .expect("id")
                .stdout,
        );
        let mut c = Command::new("runuser");
        c.args(["-u", name.trim(), "--"]).arg(&pg_ctl);
        c
    } else {
        Command::new(&pg_ctl)
    };
    let output = command
        .arg("-D")
        .arg(data)
        .args(args)
        .output()
        .expect("pg_ctl runs");
    assert!(
        output.status.success(),
        "pg_ctl {args:?}: {} {}",
        text(&output.stdout),
        text(&output.stderr)
    );
}

#[test]
fn postgres_restarted_in_the_middle_of_a_sync_stops_it_and_resuming_gives_the_same_index() {
    let Some(server) = server() else {
        return;
    };
    let Some(data) = server.data.clone() else {
        assert!(
            std::env::var("CANTONSCOPE_REQUIRE_PG").as_deref() != Ok("1"),
            "the restart test needs CANTONSCOPE_TEST_PG_DATA"
        );
        return;
    };
    let demo = four();
    let url = &demo.handle.scan_url;
    let dir = tempfile::tempdir().expect("tempdir");
    let straight = dir.path().join("straight.sqlite");
    let (code, _, err) = sync(
        dir.path(),
        url,
        straight.to_str().expect("utf-8"),
        &["--from", from()],
    );
    assert_eq!(code, 0, "{err}");
    // The server is this test's alone while it restarts it.
    let _alone = SERVER.write().unwrap_or_else(PoisonError::into_inner);
    let db = create_database(&server, "restart");
    // Slowly (10 requests a second per scan), so the restart falls in the middle.
    let mut args = index_args(&db.url, "sync");
    args.extend_from_slice(&[
        "--request-rate",
        "10",
        "--page-size",
        "31",
        "--from",
        from(),
        "--progress",
        "json",
    ]);
    let mut child = crate::index::spawn(dir.path(), url, &args, Stdio::piped());
    // Every stderr line is read to the end (the last one is the message); the restart comes
    // after three progress lines.
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            seen.push(line);
            if seen.len() == 3 {
                let _ = tx.send(());
            }
        }
        seen.join("\n")
    });
    rx.recv_timeout(Duration::from_secs(120))
        .expect("three progress lines");
    // (A log file of its own: the restarted server must not keep this test's pipes open.)
    let log = data.join("cantonscope-restart.log");
    let log = log.to_str().expect("utf-8");
    pg_ctl(&data, &["-w", "-m", "fast", "-l", log, "restart"]);
    let status = child.wait().expect("wait");
    let err = reader.join().expect("reader");
    // It stops with a message naming the index (without its password) and how to go on.
    assert_eq!(status.code(), Some(3), "{err}");
    assert!(
        err.contains("cannot reach the index postgres://***@"),
        "{err}"
    );
    assert!(err.contains("run the command again"), "{err}");
    let password = reqwest::Url::parse(&db.url)
        .expect("url")
        .password()
        .unwrap_or("")
        .to_owned();
    if !password.is_empty() {
        assert!(!err.contains(&password), "{err}");
    }
    // Resuming gives the index of a straight sync.
    let (code, _, err) = sync(dir.path(), url, &db.url, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(kept(&db.location()), kept(&Location::Sqlite(straight)));
}

#[test]
fn a_wrong_password_is_a_clear_error_without_the_password() {
    let Some((db, _server)) = database("password") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut url = reqwest::Url::parse(&db.url).expect("url");
    let secret = "Wr0ng-s3cret-Pw";
    url.set_password(Some(secret)).expect("password");
    let wrong = url.to_string();
    let demo = four();
    for args in [
        index_args(&wrong, "status"),
        vec!["index", "--index", &wrong, "search", "party:x"],
        vec!["index", "--index", &wrong, "sync", "--from", from()],
    ] {
        let output = run(dir.path(), &demo.handle.scan_url, &args);
        let err = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("password authentication failed"), "{err}");
        assert!(err.contains("postgres://***@"), "{err}");
        assert!(!err.contains(secret), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let log = std::fs::read_to_string(dir.path().join("cantonscope.log")).unwrap_or_default();
    assert!(!log.contains(secret), "the log file: {log}");
    // The right password on an empty database: no index there yet.
    let output = run(
        dir.path(),
        "http://127.0.0.1:9",
        &index_args(&db.url, "status"),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("start one with `cantonscope index sync`"));
    // TLS asked of a server that has none: said, not silently dropped.
    let required = format!("{}?sslmode=require", db.url);
    let output = run(
        dir.path(),
        "http://127.0.0.1:9",
        &index_args(&required, "status"),
    );
    assert_ne!(output.status.code(), Some(0));
    assert!(
        text(&output.stderr).contains("TLS"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn verify_on_postgres_agrees_and_a_changed_digest_is_exit_5() {
    let Some((db, _server)) = database("verify") else {
        return;
    };
    let demo = four();
    let url = &demo.handle.scan_url;
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, _, err) = sync(dir.path(), url, &db.url, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    let stored = kept(&db.location());
    let (code, out, err) = verify(dir.path(), url, &db.url, &[]);
    assert_eq!(code, 0, "{out} {err}");
    assert_eq!(out["updates_checked"].as_u64(), Some(stored.len() as u64));
    let (tampered, digest) = stored[stored.len() / 3].clone();
    {
        let mut client = postgres::Client::connect(&db.url, postgres::NoTls).expect("connect");
        client
            .execute(
                "UPDATE updates SET digest = decode(repeat('00', 32), 'hex') WHERE update_id = $1",
                &[&tampered],
            )
            .expect("tamper");
    }
    let (code, out, err) = verify(dir.path(), url, &db.url, &[]);
    assert_eq!(code, 5, "{out} {err}");
    assert!(err.contains(&tampered), "{err}");
    assert_eq!(out["mismatches"][0]["update_id"], tampered.as_str());
    assert_eq!(out["mismatches"][0]["agreed_digest"], digest.as_str());
    let st = status(dir.path(), &db.url);
    assert!(
        !st["verifications"]
            .as_array()
            .expect("verifications")
            .is_empty()
    );
}

/// A row's place in History's list over the index, to bound the next or previous page.
fn key_of(row: &cantonscope::model::index::SearchRow) -> RangeKey {
    RangeKey {
        migration_id: row.migration_id,
        record_time: cantonscope::model::format::parse_time_micros(&row.record_time)
            .expect("a time"),
        update_id: row.update_id.clone(),
    }
}

/// The plan `explain` (an `EXPLAIN` of a statement) gives for `params`, a line a node.
pub(crate) fn explain(
    pg: &mut postgres::Client,
    explain: &str,
    params: &[&(dyn postgres::types::ToSql + Sync)],
) -> String {
    let plan: Vec<String> = pg
        .query(explain, params)
        .expect("explained")
        .iter()
        .map(|r| r.get(0))
        .collect();
    plan.join("\n")
}

/// A page of 10 of History's list over PostgreSQL reads about 10 updates, not every one after
/// `since` (the merged order alone was planned as a sort of them all: 2.2 s at 10 M): the
/// first page, the last counted from the end, the page after `last`'s key (a row near the
/// end) and before it.
fn updates_read_for_a_page(url: &str, last: Option<&cantonscope::model::index::SearchRow>) {
    use postgres::types::ToSql;
    let key = key_of(last.expect("a last row"));
    let mut pg = postgres::Client::connect(url, postgres::NoTls).expect("connects");
    let (since, limit, zero, end) = (0_i64, 10_i64, 0_i64, i64::MAX);
    let by_key: Vec<&(dyn ToSql + Sync)> = vec![
        &since,
        &limit,
        &key.record_time,
        &key.migration_id,
        &key.update_id,
    ];
    let reads: [(RangeFrom, Vec<&(dyn ToSql + Sync)>); 4] = [
        (RangeFrom::Offset(0), vec![&since, &limit, &zero]),
        (
            RangeFrom::FromEnd {
                before: end,
                skip: 0,
            },
            vec![&since, &limit, &end, &zero],
        ),
        (RangeFrom::After(key.clone()), by_key.clone()),
        (RangeFrom::Before(key.clone()), by_key),
    ];
    let read_rows = regex::Regex::new(r" on updates\b.*actual rows=(\d+)").expect("regex");
    for (from, params) in reads {
        let sql = store::postgres_range_sql(&from);
        let plan = explain(
            &mut pg,
            &format!("EXPLAIN (ANALYZE, TIMING OFF) {sql}"),
            &params,
        );
        // Every node of the plan reading `updates`, with the rows it read.
        let rows: Vec<f64> = read_rows
            .captures_iter(&plan)
            .map(|c| c[1].parse().expect("a number"))
            .collect();
        assert_eq!(rows.len(), 1, "{from:?}: {plan}");
        // Each side of the merge under a limit of its own, so the planner costs it for a page
        // whatever the table's size (at 1 M and 10 M it chose a scan and a sort of every row
        // for the merged order alone; a table this small shows no difference).
        assert_eq!(plan.matches("Limit ").count(), 3, "{from:?}:\n{plan}");
        assert!(
            rows[0] <= 50.0,
            "{from:?} read {} updates:\n{plan}",
            rows[0]
        );
    }
}

/// The `n` rows of History's list from `since` recorded before `before`, read a page of `size`
/// at a time by OFFSET from their end, in the list's order.
fn from_end(
    index: &mut dyn store::IndexReader,
    since: i64,
    size: usize,
    before: i64,
    n: usize,
) -> Vec<cantonscope::model::index::SearchRow> {
    (0..n.div_ceil(size))
        .flat_map(|p| {
            let end = ((p + 1) * size).min(n);
            let from = RangeFrom::FromEnd {
                before,
                skip: n - end,
            };
            index
                .range_rows(since, &from, end - p * size)
                .expect("rows")
        })
        .collect()
}

/// History's list over the index from `since`, read four ways a page of `size` at a time:
/// by OFFSET, forwards after each page's last row, backwards before each page's first row
/// (from the last page read by OFFSET), and by OFFSET from the end of the rows before a time
/// after the last; the four must be the same pages. And the rows before a time within the
/// list, counted from their end, are the first ones of the list.
fn pages_four_ways(
    index: &mut dyn store::IndexReader,
    since: i64,
    size: usize,
) -> Vec<Vec<cantonscope::model::index::SearchRow>> {
    let total = usize::try_from(index.range_count(since, None).expect("count")).expect("fits");
    let pages = total.div_ceil(size);
    let by_offset: Vec<_> = (0..pages)
        .map(|p| {
            index
                .range_rows(since, &RangeFrom::Offset(p * size), size)
                .expect("rows")
        })
        .collect();
    assert_eq!(by_offset.iter().map(Vec::len).sum::<usize>(), total);
    let mut forwards = vec![by_offset[0].clone()];
    while forwards.len() < pages {
        let last = forwards.last().and_then(|p| p.last()).expect("a row");
        let next = index
            .range_rows(since, &RangeFrom::After(key_of(last)), size)
            .expect("rows");
        forwards.push(next);
    }
    assert_eq!(forwards, by_offset, "forwards by keyset");
    let mut backwards = vec![by_offset[pages - 1].clone()];
    while backwards.len() < pages {
        let first = backwards.last().and_then(|p| p.first()).expect("a row");
        let previous = index
            .range_rows(since, &RangeFrom::Before(key_of(first)), size)
            .expect("rows");
        backwards.push(previous);
    }
    backwards.reverse();
    assert_eq!(backwards, by_offset, "backwards by keyset");
    let last_time = |rows: &[cantonscope::model::index::SearchRow]| {
        key_of(rows.last().expect("a row")).record_time
    };
    let all: Vec<_> = by_offset.concat();
    assert_eq!(
        from_end(index, since, size, last_time(&all) + 1, total),
        all,
        "by OFFSET from the end"
    );
    let within = last_time(&by_offset[pages / 2]);
    let n = usize::try_from(index.range_count(since, Some(within)).expect("count")).expect("fits");
    assert!(n > 0 && n < total, "{n} of {total}");
    assert_eq!(
        from_end(index, since, size, within, n),
        all[..n],
        "from the end of a part"
    );
    // Past either end: nothing.
    let last = by_offset[pages - 1].last().expect("a row");
    assert!(
        index
            .range_rows(since, &RangeFrom::After(key_of(last)), size)
            .expect("rows")
            .is_empty()
    );
    let first = by_offset[0].first().expect("a row");
    assert!(
        index
            .range_rows(since, &RangeFrom::Before(key_of(first)), size)
            .expect("rows")
            .is_empty()
    );
    by_offset
}

#[test]
fn deep_pages_read_by_keyset_equal_the_offset_answers_on_both_engines() {
    let demo = four();
    let url = &demo.handle.scan_url;
    let dir = tempfile::tempdir().expect("tempdir");
    let sqlite = dir.path().join("index.sqlite");
    let sqlite_at = sqlite.to_str().expect("utf-8");
    let (code, _, err) = sync(dir.path(), url, sqlite_at, &["--from", deep_from()]);
    assert_eq!(code, 0, "{err}");
    let mut on_sqlite = store::open_reader(&Location::Sqlite(sqlite.clone())).expect("opens");
    let total = on_sqlite.update_count(0, None).expect("count");
    assert!(total >= 2_000, "a few thousand updates: {total}");
    // History's list holds the events with a verdict and no update too (the demo's rejected
    // requests among them), paged alike below.
    assert!(on_sqlite.range_count(0, None).expect("count") > total);
    let sqlite_pages = pages_four_ways(on_sqlite.as_mut(), 0, 200);
    let mid = cantonscope::model::format::parse_time_micros(&sqlite_pages[3][17].record_time)
        .expect("a time");
    let sqlite_from_mid = pages_four_ways(on_sqlite.as_mut(), mid, 97);
    // Ties within one record time come out in update-id order.
    for page in &sqlite_pages {
        for pair in page.windows(2) {
            if pair[0].record_time == pair[1].record_time
                && pair[0].migration_id == pair[1].migration_id
            {
                assert!(pair[0].update_id < pair[1].update_id, "{pair:?}");
            }
        }
    }
    drop(on_sqlite);

    let Some((db, _server)) = database("keyset") else {
        return;
    };
    let (code, _, err) = sync(dir.path(), url, db.url.as_str(), &["--from", deep_from()]);
    assert_eq!(code, 0, "{err}");
    let mut on_pg = store::open_reader(&db.location()).expect("opens");
    assert_eq!(pages_four_ways(on_pg.as_mut(), 0, 200), sqlite_pages);
    assert_eq!(pages_four_ways(on_pg.as_mut(), mid, 97), sqlite_from_mid);
    drop(on_pg);
    updates_read_for_a_page(&db.url, sqlite_pages.last().and_then(|p| p.last()));

    // The explorer's reads: a PostgreSQL index keeps its reader (one connection, its schema
    // checked once) from read to read; an SQLite index is opened for each read.
    use cantonscope::model::index::read::{IndexAnswer, IndexRead};
    use cantonscope::runtime::index::IndexSource;
    let now = chrono::Utc::now().timestamp_micros();
    let reach = IndexRead::Reach { now };
    let pg = IndexSource::new(db.location(), false);
    assert!(!pg.holds_reader());
    let first = pg.read_here(&reach).expect("the reach");
    assert!(pg.holds_reader(), "the reader is kept after a read");
    let again = pg.read_here(&reach).expect("the reach again");
    assert!(matches!(
        (&first, &again),
        (IndexAnswer::Reach(a), IndexAnswer::Reach(b)) if a.updates == b.updates && a.updates == total
    ));
    let lite = IndexSource::new(Location::Sqlite(sqlite), false);
    lite.read_here(&reach).expect("the reach");
    assert!(!lite.holds_reader(), "SQLite is opened for each read");
}

/// A schema-16 database's terms put back as schema 13 kept them: their values as text (`TEXT_SQL`
/// standing for the SQL of the text of a kept value), the counts and newest keys in
/// `term_counts`, the terms' key without them (what the older schemas' steps start from).
fn schema_13_terms() -> String {
    SCHEMA_13_TERMS.replace("TEXT_SQL", &store::postgres_term_text_sql(""))
}

const SCHEMA_13_TERMS: &str = "
    ALTER TABLE terms ALTER COLUMN value TYPE TEXT COLLATE \"C\" USING (TEXT_SQL);
    CREATE TABLE term_counts (term BIGINT PRIMARY KEY, updates BIGINT NOT NULL,
        last_migration BIGINT, last_time BIGINT, last_seq BIGINT);
    INSERT INTO term_counts SELECT id, updates, last_migration, last_time, last_seq FROM terms;
    ALTER TABLE terms DROP CONSTRAINT terms_kind_value_key, DROP COLUMN updates,
        DROP COLUMN last_migration, DROP COLUMN last_time, DROP COLUMN last_seq;
    ALTER TABLE terms ADD CONSTRAINT terms_kind_value_key UNIQUE (kind, value);";

/// The start of the deep test's range: long enough before now for a few thousand updates.
fn deep_from() -> &'static str {
    static FROM: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    FROM.get_or_init(|| {
        cantonscope::model::format::format_time_micros(
            chrono::Utc::now().timestamp_micros() - 24 * 3_600_000_000,
        )
    })
}

#[test]
fn a_postgres_index_of_schema_2_is_refused_by_readers_and_migrated_by_the_next_sync() {
    let Some((db, _server)) = database("schema2") else {
        return;
    };
    let demo = four();
    let url = &demo.handle.scan_url;
    let dir = tempfile::tempdir().expect("tempdir");
    let sqlite = dir.path().join("index.sqlite");
    let sqlite_at = sqlite.to_str().expect("utf-8");
    for at in [sqlite_at, db.url.as_str()] {
        lowered(at);
        let (code, _, err) = sync(dir.path(), url, at, &["--from", from(), "--verify", "1"]);
        assert_eq!(code, 0, "{err}");
    }
    // A reader refuses the database of schema `version`, naming this build's.
    let refused = |version: i64| {
        let output = run(
            dir.path(),
            url,
            &[&index_args(&db.url, "search")[..], &["party:x", "--count"]].concat(),
        );
        assert_eq!(output.status.code(), Some(2));
        let err = text(&output.stderr);
        assert!(
            err.contains(&format!("older cantonscope (schema {version})"))
                && err.contains(&format!("to schema {}", store::POSTGRES_SCHEMA_VERSION)),
            "{err}"
        );
    };
    // Schema 2, as the cantonscope before kept it: no hubs, no pairs.
    let mut pg = postgres::Client::connect(&db.url, postgres::NoTls).expect("connects");
    pg.batch_execute(&format!(
        "{terms_13} DROP TABLE hubs; DROP TABLE pairs; DROP TABLE hub_bits;
         ALTER TABLE term_counts DROP COLUMN last_migration, DROP COLUMN last_time, DROP COLUMN last_seq;
         UPDATE meta SET value = '2' WHERE key = 'schema_version';",
        terms_13 = schema_13_terms()
    ))
    .expect("schema 2");
    refused(2);
    // The next sync migrates it: the same hubs and pairs as the SQLite index of the same sync.
    // The next sync migrates it; the same sync of the SQLite index keeps the same updates.
    let migrate = || {
        let (code, _, err) = sync(dir.path(), url, &db.url, &["--verify", "1"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            status(dir.path(), &db.url)["schema_version"],
            store::POSTGRES_SCHEMA_VERSION
        );
        let (code, _, err) = sync(dir.path(), url, sqlite_at, &["--verify", "1"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            kept(&db.location()),
            kept(&Location::Sqlite(sqlite.clone()))
        );
    };
    migrate();
    let hubs = same_hubs(&db, &sqlite);
    // Over the whole index (the pairs) and from a time (the hubs' bitmaps).
    let compare = |at: &str| {
        for query in hub_pairs(&hubs) {
            let terms: Vec<&str> = query.iter().map(String::as_str).collect();
            for extra in [vec!["--count"], vec!["--count", "--from", from()]] {
                assert_eq!(
                    search(dir.path(), &db.url, &terms, &extra),
                    search(dir.path(), sqlite_at, &terms, &extra),
                    "{query:?} {extra:?} {at}"
                );
            }
        }
    };
    compare("after the migration from schema 2");
    // Schema 4 (pairs, no bitmaps): the next sync makes the bitmaps from the keys.
    pg.batch_execute(&format!(
        "{terms_13} DROP TABLE hub_bits;
         ALTER TABLE term_counts DROP COLUMN last_migration, DROP COLUMN last_time, DROP COLUMN last_seq;
         UPDATE meta SET value = '4' WHERE key = 'schema_version';",
        terms_13 = schema_13_terms()
    ))
    .expect("schema 4");
    let (code, _, err) = sync(dir.path(), url, &db.url, &["--verify", "1"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        status(dir.path(), &db.url)["schema_version"],
        store::POSTGRES_SCHEMA_VERSION
    );
    let bits: i64 = pg
        .query_one("SELECT count(*) FROM hub_bits", &[])
        .expect("bits")
        .get(0);
    assert!(bits > 0, "the hubs' bitmaps are made");
    compare("after the migration from schema 4");
    // Schema 5 (no newest key per term): the next sync reads each term's from its keys, and
    // the pages of a contract-id prefix over the whole index (merged from each contract's
    // newest key) are SQLite's.
    pg.batch_execute(&format!(
        "{terms_13}
         ALTER TABLE term_counts DROP COLUMN last_migration, DROP COLUMN last_time, DROP COLUMN last_seq;
         UPDATE meta SET value = '5' WHERE key = 'schema_version';",
        terms_13 = schema_13_terms()
    ))
    .expect("schema 5");
    migrate();
    compare("after the migration from schema 5");
    // Schema 6 (no events table): the next sync makes it, empty, keeping every update.
    pg.batch_execute(
        "DROP TABLE events; UPDATE meta SET value = '6' WHERE key = 'schema_version';",
    )
    .expect("schema 6");
    migrate();
    let events: bool = pg
        .query_one("SELECT to_regclass('events') IS NOT NULL", &[])
        .expect("the table")
        .get(0);
    assert!(events, "the events table is made");
    compare("after the migration from schema 6");
    // The hubs' bitmaps keyed by (term, block) alone, as a database made before they were kept
    // in their key: the next sync makes the key again, keeping every bitmap, and the pages and
    // counts of the hubs with each other and with a rarer term (walked, tested in the bitmaps
    // a batch at a time) stay SQLite's.
    let bitmaps = |pg: &mut postgres::Client| -> (i64, bool) {
        let row = pg
            .query_one(
                "SELECT (SELECT count(*) FROM hub_bits), i.indnatts > i.indnkeyatts
                 FROM pg_index i WHERE i.indrelid = 'hub_bits'::regclass AND i.indisprimary",
                &[],
            )
            .expect("the bitmaps' key");
        (row.get(0), row.get(1))
    };
    let (rows, covered) = bitmaps(&mut pg);
    assert!(covered, "a new database keeps the bits in the key");
    pg.batch_execute(
        "ALTER TABLE hub_bits DROP CONSTRAINT hub_bits_pkey, ADD PRIMARY KEY (term, block)",
    )
    .expect("the key of before");
    assert_eq!(bitmaps(&mut pg), (rows, false));
    migrate();
    let (after, covered) = bitmaps(&mut pg);
    assert!(covered, "the next sync keeps the bits in the key");
    assert!(after >= rows, "{after} rows of bits, {rows} before");
    compare("after the bitmaps' key was made again");
    // Schema 13 (each term's count and newest key in `term_counts`): readers refuse it, the
    // next sync folds them into `terms` (every term kept with its id, count and newest key),
    // and the searches below (hubs with rarer terms, contract-id prefixes and their counts)
    // are SQLite's on it.
    let heads = |pg: &mut postgres::Client| -> Vec<(i64, i64, String, i64, Option<i64>)> {
        pg.query(
            &format!(
                "SELECT id, kind, {}, updates, last_seq FROM terms ORDER BY id",
                store::postgres_term_text_sql("")
            ),
            &[],
        )
        .expect("the terms")
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect()
    };
    // Every term of before kept with its id, kind and text, its count and newest key those of
    // the updates a sync added since raised.
    type TermHead = (i64, i64, String, i64, Option<i64>);
    let kept_as_before = |before: &[TermHead], after: &[TermHead]| {
        for term in before {
            let now = after
                .iter()
                .find(|t| t.0 == term.0)
                .unwrap_or_else(|| panic!("{term:?} kept"));
            assert_eq!((now.1, &now.2), (term.1, &term.2), "{term:?}");
            assert!(now.3 >= term.3 && now.4 >= term.4, "{now:?} from {term:?}");
        }
    };
    let before = heads(&mut pg);
    assert!(before.iter().all(|h| h.3 > 0), "every term has a count");
    pg.batch_execute(&format!(
        "{terms_13} UPDATE meta SET value = '13' WHERE key = 'schema_version';",
        terms_13 = schema_13_terms()
    ))
    .expect("schema 13");
    refused(13);
    let next: i64 = pg
        .query_one("SELECT nextval(pg_get_serial_sequence('terms', 'id'))", &[])
        .expect("the terms' identity")
        .get(0);
    let (code, _, err) = sync(dir.path(), url, &db.url, &["--verify", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("moved each term's count and newest key into the terms' table (schema 14)"),
        "{err}"
    );
    assert_eq!(
        status(dir.path(), &db.url)["schema_version"],
        store::POSTGRES_SCHEMA_VERSION
    );
    let gone: bool = pg
        .query_one("SELECT to_regclass('term_counts') IS NULL", &[])
        .expect("term_counts")
        .get(0);
    assert!(gone, "term_counts is folded into terms");
    // Every term kept with its id, count and newest key (those of the updates the sync added
    // since raised); a new term takes an id after every one of before.
    let after = heads(&mut pg);
    kept_as_before(&before, &after);
    let added: i64 = pg
        .query_one(
            "INSERT INTO terms (kind, value, updates) VALUES (99, 'new', 1) RETURNING id",
            &[],
        )
        .expect("a new term")
        .get(0);
    assert!(added > next, "{added} after {next}");
    pg.batch_execute("DELETE FROM terms WHERE kind = 99")
        .expect("the new term removed");
    compare("after the migration from schema 13");
    // Schema 15 (each term's value its text; a contract id of another form among them):
    // readers refuse it, the next sync keeps the values as bytes (every term with its id,
    // count, newest key and text, a lowercase hex contract id as the bytes it spells), and
    // the searches below (hubs with rarer terms, contract-id prefixes and their counts) are
    // SQLite's on it.
    let before = heads(&mut pg);
    pg.batch_execute(&format!(
        "ALTER TABLE terms ALTER COLUMN value TYPE TEXT COLLATE \"C\" USING ({});
         INSERT INTO terms (kind, value, updates) VALUES (4, 'NotHex-1', 1), (4, 'abc', 1);
         UPDATE meta SET value = '15' WHERE key = 'schema_version';",
        store::postgres_term_text_sql("")
    ))
    .expect("schema 15");
    refused(15);
    let (code, _, err) = sync(dir.path(), url, &db.url, &["--verify", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("kept each term's value as bytes"), "{err}");
    let after = heads(&mut pg);
    kept_as_before(&before, &after);
    // Every contract id but the two as the bytes it spells; the two as their text.
    let text_form: Vec<(i32, i32)> = pg
        .query(
            "SELECT get_byte(value, 0), octet_length(value) FROM terms
             WHERE kind = 4 AND get_byte(value, 0) <> 1 ORDER BY octet_length(value)",
            &[],
        )
        .expect("the terms' forms")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(text_form, [(0, 4), (0, 9)]);
    for odd in ["NotHex-1", "abc"] {
        assert!(
            after.iter().any(|t| t.1 == 4 && t.2 == odd),
            "{odd} read back"
        );
    }
    pg.batch_execute("DELETE FROM terms WHERE kind = 4 AND get_byte(value, 0) = 0")
        .expect("the two removed");
    compare("after the migration from schema 15");
    // Schema 16 (the keys' primary key in ascending order, which a search's newest-first walk
    // read backwards): readers refuse it, the next sync makes the key newest first (a unique
    // index, the table's replica identity) with every key kept, and the pages below (walks of
    // a rarer term tested in the hubs' bitmaps, newest first, in batches) are SQLite's.
    // The keys (their number and sums, over the seqs up to the newest before) and the keys'
    // indexes.
    let newest: i64 = pg
        .query_one("SELECT max(seq) FROM keys", &[])
        .expect("the newest key")
        .get(0);
    let keys_layout = |pg: &mut postgres::Client| -> ((i64, String), Vec<String>) {
        let row = pg
            .query_one(
                "SELECT count(*), (sum(term) + sum(migration_id) + sum(record_time) + sum(seq))::text
                 FROM keys WHERE seq <= $1",
                &[&newest],
            )
            .expect("the keys");
        let n = (row.get(0), row.get(1));
        let indexes = pg
            .query(
                "SELECT pg_get_indexdef(i.indexrelid)
                        || CASE WHEN i.indisreplident THEN ' (replica identity)' ELSE '' END
                 FROM pg_index i WHERE i.indrelid = 'keys'::regclass ORDER BY 1",
                &[],
            )
            .expect("the keys' indexes")
            .iter()
            .map(|r| r.get(0))
            .collect();
        (n, indexes)
    };
    let (keys, made) = keys_layout(&mut pg);
    assert_eq!(
        made,
        [
            "CREATE UNIQUE INDEX keys_newest ON public.keys USING btree \
          (term, migration_id DESC, record_time DESC, seq DESC) (replica identity)"
        ],
        "a new database's keys' key"
    );
    pg.batch_execute(
        "DROP INDEX keys_newest;
         ALTER TABLE keys ADD PRIMARY KEY (term, migration_id, record_time, seq);
         UPDATE meta SET value = '16' WHERE key = 'schema_version';",
    )
    .expect("schema 16");
    refused(16);
    let (code, _, err) = sync(dir.path(), url, &db.url, &["--verify", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("made the keys' key newest first (schema 17)"),
        "{err}"
    );
    let (after, remade) = keys_layout(&mut pg);
    assert_eq!(remade, made, "the next sync's keys' key");
    assert_eq!(after, keys, "every key kept");
    compare("after the migration from schema 16");
    let (rarer, _) = crate::index_pairs::rare(&sqlite);
    assert!(!rarer.is_empty(), "terms below the threshold");
    // Every two of the first eight hubs, each of the first four with the rarer terms.
    let first = &hubs[..hubs.len().min(8)];
    let mut queries = Vec::new();
    for (i, x) in first.iter().enumerate() {
        queries.extend(first[i + 1..].iter().map(|y| vec![x.clone(), y.clone()]));
    }
    for hub in hubs.iter().take(4) {
        queries.extend(rarer.iter().map(|term| vec![hub.clone(), term.clone()]));
    }
    for query in queries {
        let terms: Vec<&str> = query.iter().map(String::as_str).collect();
        for extra in [
            vec!["--limit", "1000000", "--from", from()],
            vec!["--limit", "7"],
            vec!["--limit", "1000000"],
        ] {
            assert_eq!(
                search(dir.path(), &db.url, &terms, &extra),
                search(dir.path(), sqlite_at, &terms, &extra),
                "{query:?} {extra:?}"
            );
        }
    }
    // Two hubs no update has together (checked on the SQLite index's keys), the rarer with
    // more updates than a walk's first batch (100), after which it asks their pair's count:
    // no row, and a count of 0 from a time.
    let (pair, n) = crate::index_pairs::apart(&sqlite);
    assert!(n > 100, "{pair:?} {n}");
    let terms: Vec<&str> = pair.iter().map(String::as_str).collect();
    for extra in [vec!["--limit", "1000"], vec!["--count", "--from", from()]] {
        let rows = search(dir.path(), &db.url, &terms, &extra);
        assert_eq!(
            rows,
            search(dir.path(), sqlite_at, &terms, &extra),
            "{pair:?} {extra:?}"
        );
        assert!(
            rows.is_empty() || rows == ["0"],
            "{pair:?} {extra:?}: {rows:?}"
        );
    }
    for prefix in crate::index_prefix::prefixes(&sqlite) {
        let term = format!("contract:{prefix}");
        for limit in ["1", "3", "100", "100000"] {
            let on_pg = search(dir.path(), &db.url, &[&term], &["--limit", limit]);
            assert!(limit == "1" || on_pg.len() > 1, "{term}: {on_pg:?}");
            assert_eq!(
                on_pg,
                search(dir.path(), sqlite_at, &[&term], &["--limit", limit]),
                "{term}, {limit} rows"
            );
        }
        // Its count: the distinct updates of the contracts' keys on PostgreSQL.
        let count = search(dir.path(), &db.url, &[&term], &["--count"]);
        assert_eq!(
            count,
            search(dir.path(), sqlite_at, &[&term], &["--count"]),
            "{term}, its count"
        );
        assert_ne!(count, vec!["0".to_owned()], "{term}: {count:?}");
    }
}

/// The events coverage `index status` shows (issue 37 §1): the updates and those with their
/// events kept, summed over the migrations and checked to be the same sums over the chunks,
/// and the distinct percentages of the migrations and chunks.
fn coverage(status: &Value) -> (i64, i64, Vec<i64>) {
    let sums = |list: &str| {
        let rows = status[list].as_array().expect("a list");
        let n = |row: &Value, p: &str| row.pointer(p).and_then(Value::as_i64).expect(p);
        let sum = |p: &str| rows.iter().map(|row| n(row, p)).sum::<i64>();
        let mut percents: Vec<i64> = rows
            .iter()
            .filter_map(|row| row.pointer("/events/percent").and_then(Value::as_i64))
            .collect();
        percents.dedup();
        (sum("/events/updates"), sum("/events/events"), percents)
    };
    let by_migration = sums("migrations");
    assert_eq!(by_migration, sums("chunks"), "{status}");
    by_migration
}

/// The events rows of a PostgreSQL index: update id, verdict, round, result, mediator group.
type EventRows = Vec<(
    String,
    Option<String>,
    Option<i64>,
    Option<String>,
    Option<i64>,
)>;

/// The events the index at `location` keeps (read through the store's API), by update id,
/// without the scans that confirmed them (two syncs may ask different scans).
fn events_of(location: &Location) -> EventRows {
    crate::index_events::events_rows(location)
        .into_iter()
        .map(|r| (r.0, r.1, r.2, r.3, r.4))
        .collect()
}

fn pg_events(url: &str) -> EventRows {
    events_of(&Location::Postgres(url.to_owned()))
}

fn sqlite_events(index: &Path) -> EventRows {
    events_of(&Location::Sqlite(index.to_owned()))
}

#[test]
fn events_kept_on_postgres_equal_the_sqlite_events_and_backfill_after_no_events() {
    let Some((db, _server)) = database("events") else {
        return;
    };
    let demo = four();
    let url = &demo.handle.scan_url;
    let dir = tempfile::tempdir().expect("tempdir");
    let sqlite = dir.path().join("index.sqlite");
    let sqlite_at = sqlite.to_str().expect("utf-8");
    let until = cantonscope::model::format::format_time_micros(
        cantonscope::model::format::parse_time_micros(from()).expect("a time") + 3_600_000_000,
    );
    // PostgreSQL without events first: the updates alone.
    let (code, _, err) = sync(
        dir.path(),
        url,
        &db.url,
        &[
            "--from",
            from(),
            "--until",
            &until,
            "--verify",
            "2",
            "--no-events",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(pg_events(&db.url).is_empty());
    let st = status(dir.path(), &db.url);
    assert_eq!(st["events"], 0);
    assert_eq!(
        coverage(&st),
        (st["updates"].as_i64().unwrap(), 0, vec![0]),
        "{st}"
    );
    // SQLite with them; then --events backfills PostgreSQL to the same rows.
    let (code, _, err) = sync(
        dir.path(),
        url,
        sqlite_at,
        &["--from", from(), "--until", &until, "--verify", "2"],
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = sync(dir.path(), url, &db.url, &["--events", "--verify", "2"]);
    assert_eq!(code, 0, "{err}");
    let on_pg = pg_events(&db.url);
    assert!(!on_pg.is_empty());
    assert_eq!(on_pg, sqlite_events(&sqlite));
    let st = status(dir.path(), &db.url);
    assert_eq!(st["events"], st["updates"], "{st}");
    // Every migration and chunk at 100 %, the migrations as on SQLite.
    let updates = st["updates"].as_i64().unwrap();
    assert_eq!(coverage(&st), (updates, updates, vec![100]), "{st}");
    assert_eq!(
        st["migrations"],
        status(dir.path(), sqlite_at)["migrations"],
        "{st}"
    );
    for terms in [["verdict:accepted"], ["verdict:rejected"]] {
        assert_eq!(
            search(dir.path(), &db.url, &terms, &["--count"]),
            search(dir.path(), sqlite_at, &terms, &["--count"]),
            "{terms:?}"
        );
    }
    // The events with a verdict and no update (the demo's rejected requests, its wholly
    // private transactions): the same records on both engines, listed alike.
    let verdict_only = status(dir.path(), sqlite_at)["verdict_events"].clone();
    assert!(
        verdict_only.as_u64().is_some_and(|n| n > 0),
        "{verdict_only}"
    );
    assert_eq!(st["verdict_events"], verdict_only, "{st}");
    let rejected = search(dir.path(), &db.url, &["verdict:rejected"], &[]);
    assert!(
        rejected
            .iter()
            .any(|l| l.contains("\"kind\":\"verdict only\"")),
        "{rejected:?}"
    );
    assert_eq!(
        rejected,
        search(dir.path(), sqlite_at, &["verdict:rejected"], &[])
    );
    // By the party that submitted one (the verdicts that name it read, then tested): found
    // alike on both engines.
    let row: serde_json::Value = rejected
        .iter()
        .find(|l| l.contains("\"kind\":\"verdict only\""))
        .and_then(|l| serde_json::from_str(l).ok())
        .expect("a verdict-only row");
    let party = row["parties"][0].as_str().expect("its submitter");
    let by_party = format!("party:{party}");
    let by_party = [by_party.as_str()];
    let found = search(dir.path(), &db.url, &by_party, &["--limit", "100000"]);
    assert!(
        found
            .iter()
            .any(|l| l.contains(row["update_id"].as_str().expect("an id"))),
        "{found:?}"
    );
    assert_eq!(
        found,
        search(dir.path(), sqlite_at, &by_party, &["--limit", "100000"])
    );
    let id = rejected[0]
        .split("\"update_id\":\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("an id");
    let kept = |location: &Location| {
        store::open_reader(location)
            .expect("index opens")
            .kept_events(id)
            .expect("reads")
            .expect("kept")
    };
    assert_eq!(
        kept(&db.location()),
        kept(&Location::Sqlite(sqlite.clone()))
    );
}

#[test]
fn a_postgres_index_of_schema_7_is_migrated_its_events_repacked_and_read_back_as_kept() {
    let Some((db, _server)) = database("events7") else {
        return;
    };
    let demo = four();
    let url = &demo.handle.scan_url;
    let dir = tempfile::tempdir().expect("tempdir");
    let until = cantonscope::model::format::format_time_micros(
        cantonscope::model::format::parse_time_micros(from()).expect("a time") + 3_600_000_000,
    );
    let (code, _, err) = sync(
        dir.path(),
        url,
        &db.url,
        &["--from", from(), "--until", &until, "--verify", "2"],
    );
    assert_eq!(code, 0, "{err}");
    let location = Location::Postgres(db.url.clone());
    let before = crate::index_events::events_kept_at(&location);
    assert!(before.len() > 10, "{} updates' events", before.len());
    let accepted = search(dir.path(), &db.url, &["verdict:accepted"], &["--count"]);
    // The database as schema 7 kept it: the same events as text columns.
    {
        let mut pg = postgres::Client::connect(&db.url, postgres::NoTls).expect("connects");
        let mut tx = pg.transaction().expect("a transaction");
        tx.batch_execute(&schema_13_terms())
            .expect("schema 7's terms");
        tx.batch_execute(crate::index_events::EVENTS_7)
            .expect("schema 7");
        for e in &before {
            tx.execute(
                crate::index_events::EVENTS_7_INSERT,
                &[
                    &e.update_id,
                    &e.served,
                    &e.verdict,
                    &e.traffic_summary,
                    &e.app_activity_records,
                    &e.round_number,
                    &e.verdict_result,
                    &e.mediator_group,
                    &hex::decode(&e.digest).expect("hex"),
                    &e.scans.join(","),
                ],
            )
            .expect("a row");
        }
        tx.commit().expect("commits");
    }
    assert!(
        store::open_reader(&location).is_err(),
        "a reader refuses schema 7"
    );
    let (code, _, err) = sync(
        dir.path(),
        url,
        &db.url,
        &["--until", &until, "--verify", "1", "--no-events"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        status(dir.path(), &db.url)["schema_version"],
        store::POSTGRES_SCHEMA_VERSION
    );
    assert_eq!(crate::index_events::events_kept_at(&location), before);
    assert_eq!(
        search(dir.path(), &db.url, &["verdict:accepted"], &["--count"]),
        accepted
    );
}

#[test]
fn index_show_on_postgres_prints_the_kept_events_as_the_scans_served_them() {
    let Some((db, _server)) = database("show") else {
        return;
    };
    let (dir, url) = (
        tempfile::tempdir().expect("tempdir"),
        &four().handle.scan_url,
    );
    let until = crate::index_show::until();
    let (code, _, err) = sync(dir.path(), url, &db.url, &crate::index_show::hour(&until));
    assert_eq!(code, 0, "{err}");
    let ids = kept(&Location::parse(&db.url));
    assert!(ids.len() > 10, "{} updates", ids.len());
    let mut verdicts = 0;
    for (id, _) in ids.iter().step_by(ids.len() / 6) {
        let shown = crate::index_show::shown(dir.path(), db.url.as_str(), id);
        assert_eq!(shown["update_id"], id.as_str());
        assert_eq!(shown["update"]["verify"], 2, "{shown}");
        crate::index_show::assert_parts_as_served(dir.path(), url, &shown);
        if shown["events"]["verdict"]["state"] == "kept" {
            verdicts += 1;
        }
    }
    assert!(verdicts > 0, "some verdicts shown");
    // Abbreviated as the screen shows it: the same; an unknown id: exit 2.
    let id = &ids[ids.len() / 2].0;
    let as_shown = format!("{}…{}", &id[..12], &id[id.len() - 4..]);
    assert_eq!(
        crate::index_show::shown(dir.path(), db.url.as_str(), &as_shown),
        crate::index_show::shown(dir.path(), db.url.as_str(), id)
    );
    let (code, _, err) = crate::index_show::show(
        dir.path(),
        db.url.as_str(),
        &format!("1220{}", "0".repeat(64)),
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no update of the index matches"), "{err}");
    // An event with a verdict and no update: by a prefix or as shown too; ambiguity with an
    // update lists both.
    crate::index_verdicts::shown_by_prefix(dir.path(), &db.url);
}

#[test]
fn index_stats_on_postgres_equal_what_the_demos_own_pages_count() {
    let Some((db, _server)) = database("stats") else {
        return;
    };
    let url = &four().handle.scan_url;
    let dir = tempfile::tempdir().expect("tempdir");
    let until = crate::index_stats::until();
    let (code, _, err) = sync(
        dir.path(),
        url,
        &db.url,
        &["--from", from(), "--until", &until, "--verify", "2"],
    );
    assert_eq!(code, 0, "{err}");
    let days = crate::index_stats::expected(url, &db.url, from(), &until);
    let doc = crate::index_stats::assert_stats(dir.path(), &db.url, &days);
    // Kept in the database: a second run counts nothing anew and answers the same.
    let (again, _) =
        crate::index_stats::stats(dir.path(), &db.url, &["--daily", "--output", "json"]);
    let again: Value = serde_json::from_str(&again).expect("JSON");
    assert_eq!(again["days_counted"].as_u64(), Some(0), "{again}");
    assert_eq!(again["totals"], doc["totals"]);
}

#[test]
fn rounds_on_postgres_equal_the_sqlite_rounds_and_name_the_same_diverging_scan() {
    let Some((db, _server)) = database("rounds") else {
        return;
    };
    let url = crate::index_rounds::demo_url();
    let dir = tempfile::tempdir().expect("tempdir");
    let sqlite = dir.path().join("index.sqlite");
    let sqlite_at = sqlite.to_str().expect("utf-8");
    for at in [db.url.as_str(), sqlite_at] {
        let (code, _, err) = sync(dir.path(), &url, at, &["--from", "begin", "--verify", "2"]);
        assert_eq!(code, 0, "{err}");
    }
    let of = |at: &str, extra: &[&str]| {
        let (code, out, err) = crate::index_rounds::rounds(dir.path(), &url, at, extra);
        let mut doc: Value = serde_json::from_str(&out).expect("JSON");
        doc["index"] = Value::Null;
        (code, doc, err)
    };
    // The figures alone: the same on both engines (the rounds both hold whole: the demo keeps
    // making updates).
    let whole = |doc: &Value| -> Vec<Value> {
        doc["rounds"]
            .as_array()
            .expect("rounds")
            .iter()
            .filter(|r| r["whole"] == true)
            .cloned()
            .collect()
    };
    let (code, on_pg, err) = of(&db.url, &["--no-scans"]);
    assert_eq!(code, 0, "{err}");
    let (_, on_sqlite, _) = of(sqlite_at, &["--no-scans"]);
    let n = whole(&on_pg).len().min(whole(&on_sqlite).len());
    assert!(n > 100, "{n} whole rounds");
    assert_eq!(whole(&on_pg)[..n], whole(&on_sqlite)[..n]);
    // Asked of the scans around the first round with app activity: the same diverging scan
    // named, exit 5, on both.
    let first = whole(&on_pg)
        .iter()
        .find(|r| r["records"] != 0)
        .and_then(|r| r["round"].as_i64())
        .expect("a round with records");
    let (from, until) = ((first - 1).to_string(), (first + 4).to_string());
    let range = ["--from", from.as_str(), "--until", until.as_str()];
    let (pg_code, on_pg, err) = of(&db.url, &range);
    let (sqlite_code, on_sqlite, _) = of(sqlite_at, &range);
    assert_eq!(pg_code, 5, "{err}");
    assert_eq!(sqlite_code, 5);
    assert_eq!(on_pg["rounds"], on_sqlite["rounds"]);
    assert_eq!(on_pg["differing_scans"].as_array().map(Vec::len), Some(1));
    assert_eq!(on_pg["differing_scans"], on_sqlite["differing_scans"]);
    // A prune keeps the figures and says which rounds' records are gone; the pruned range
    // synced again counts nothing twice.
    crate::index_rounds::prune_keeps_the_round_figures(dir.path(), &db.url);
}

/// An index at `location` of five updates (two in second 3) and four events with a verdict
/// and no update, one in second 3 whose id sorts between the two updates' only bytewise
/// (`C3` before `a3`): History's list is the nine in record-time, migration, update-id order.
fn updates_and_verdict_only_events(location: &Location) {
    let t = |second: i64| 1_800_000_000_000_000 + second * 1_000_000;
    let update = |id: &str, second: i64| cantonscope::model::index::IndexRow {
        update_id: id.to_owned(),
        migration_id: 1,
        record_time: t(second),
        kind: "transaction".to_owned(),
        root_action: "Choice".to_owned(),
        parties: vec!["alice::1220aa".to_owned()],
        keys: vec![(KeyKind::Party, "alice::1220aa".to_owned())],
        digest: [second as u8; 32],
        body: None,
    };
    let verdict_only = |id: &str, second: i64, result: &str| store::VerdictEvent {
        at: store::At::new(1, t(second)),
        row: store::EventsRow {
            update_id: id.to_owned(),
            served: 1,
            verdict: Some(
                serde_json::json!({"update_id": id, "submitting_parties": ["carol::1220cc"]})
                    .to_string(),
            ),
            traffic_summary: None,
            app_activity_records: None,
            round_number: Some(second),
            verdict_result: Some(result.to_owned()),
            mediator_group: Some(0),
            digest: vec![second as u8; 32],
            scans: "sv1".to_owned(),
        },
    };
    let mut index = store::open_writer(location).expect("a writer");
    let chunk = index.start_chunk(None, None, 1, 0).expect("a chunk");
    let rows = vec![
        update("u1", 1),
        update("u2", 2),
        update("a3", 3),
        update("d3", 3),
        update("u5", 5),
    ];
    let cursor = store::Position {
        migration_id: 1,
        record_time: cantonscope::model::format::format_time_micros(t(5)),
    };
    index
        .write_page(
            chunk.id,
            &store::PageWrite::new(rows, None, cursor, vec!["sv1".to_owned()]),
        )
        .expect("the updates");
    index
        .write_verdict_events(&[
            verdict_only("v0", 0, "rejected"),
            verdict_only("C3", 3, "rejected"),
            verdict_only("v4", 4, "accepted"),
            verdict_only("v6", 6, "rejected"),
        ])
        .expect("the verdict-only events");
}

#[test]
fn history_lists_the_verdict_only_events_among_the_updates_alike_on_both_engines() {
    const ALL: [&str; 9] = ["v0", "u1", "u2", "C3", "a3", "d3", "v4", "u5", "v6"];
    let dir = tempfile::tempdir().expect("tempdir");
    let sqlite = Location::Sqlite(dir.path().join("index.sqlite"));
    updates_and_verdict_only_events(&sqlite);
    let mut on_sqlite = store::open_reader(&sqlite).expect("opens");
    let ids = |pages: &[Vec<cantonscope::model::index::SearchRow>]| -> Vec<String> {
        pages
            .iter()
            .flatten()
            .map(|r| r.update_id.clone())
            .collect()
    };
    let sqlite_pages: Vec<_> = (1..=4)
        .map(|size| pages_four_ways(on_sqlite.as_mut(), 0, size))
        .collect();
    for pages in &sqlite_pages {
        assert_eq!(ids(pages), ALL);
    }
    let c3 = &sqlite_pages[0][3][0];
    assert_eq!(
        (c3.kind.as_str(), c3.root_action.as_str()),
        (
            "verdict only",
            "rejected (verdict only) · round 3 · mediator group 0"
        )
    );
    assert_eq!(c3.parties, ["carol::1220cc"]);
    drop(on_sqlite);

    let Some((db, _server)) = database("verdict_only_range") else {
        return;
    };
    updates_and_verdict_only_events(&db.location());
    let mut on_pg = store::open_reader(&db.location()).expect("opens");
    let t = |second: i64| 1_800_000_000_000_000 + second * 1_000_000;
    assert_eq!(on_pg.range_count(t(0), None).expect("count"), 9);
    assert_eq!(on_pg.range_count(t(3), Some(t(5))).expect("count"), 4);
    assert_eq!(on_pg.verdict_only_count(t(0), None).expect("count"), 4);
    assert_eq!(
        on_pg.verdict_only_count(t(3), Some(t(5))).expect("count"),
        2
    );
    // Every page size, by OFFSET and by keyset both ways: the same pages as on SQLite (the
    // tie in second 3 in bytewise update-id order whatever the database's collation).
    for (size, pages) in (1..=4).zip(&sqlite_pages) {
        assert_eq!(
            &pages_four_ways(on_pg.as_mut(), 0, size),
            pages,
            "pages of {size}"
        );
    }
    assert_eq!(
        ids(&[on_pg
            .range_rows(t(3), &RangeFrom::Offset(0), 9)
            .expect("rows")]),
        ALL[3..]
    );
}

#[test]
fn validators_on_postgres_equal_the_sqlite_validators() {
    let Some((db, _server)) = database("validators") else {
        return;
    };
    let url = crate::index_validators::demo_url();
    let until = crate::index_validators::until();
    let dir = tempfile::tempdir().expect("tempdir");
    let sqlite = dir.path().join("index.sqlite");
    let sqlite_at = sqlite.to_str().expect("utf-8");
    for at in [db.url.as_str(), sqlite_at] {
        let (code, _, err) = sync(
            dir.path(),
            &url,
            at,
            &["--from", "begin", "--until", until, "--verify", "2"],
        );
        assert_eq!(code, 0, "{err}");
    }
    let of = |at: &str| {
        let (code, out, err) =
            crate::index_validators::validators(dir.path(), &url, at, &["--no-scan"]);
        assert_eq!(code, 0, "{err}");
        crate::index_validators::rows(&out)
    };
    let on_pg = of(&db.url);
    assert!(on_pg.len() >= 5, "{on_pg:?}");
    assert!(on_pg.values().any(|r| r["last_activity_round"].is_i64()));
    assert_eq!(on_pg, of(sqlite_at));
}

#[test]
fn validators_on_postgres_survive_a_prune_and_a_range_synced_again_counted_once() {
    use cantonscope::model::format::{format_time_micros, parse_time_micros};
    let Some((db, _server)) = database("validators_prune") else {
        return;
    };
    let url = crate::index_validators::demo_url();
    let until = crate::index_validators::until();
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, _, err) = sync(
        dir.path(),
        &url,
        &db.url,
        &["--from", "begin", "--until", until, "--verify", "2"],
    );
    assert_eq!(code, 0, "{err}");
    let of = || {
        let (code, out, err) =
            crate::index_validators::validators(dir.path(), &url, &db.url, &["--no-scan"]);
        assert_eq!(code, 0, "{err}");
        crate::index_validators::rows(&out)
    };
    let before = of();
    assert!(before.len() >= 5, "{before:?}");
    // Cut in the middle of the history: some licences and activities before it.
    let first = before
        .values()
        .filter_map(|r| r["first_licensed"].as_str().and_then(parse_time_micros))
        .min()
        .expect("a licence");
    let last = before
        .values()
        .filter_map(|r| r["last_activity"].as_str().and_then(parse_time_micros))
        .max()
        .expect("an activity");
    let cut = format_time_micros(first + (last - first) / 2);
    let mut args = index_args(&db.url, "prune");
    args.extend_from_slice(&["--before", &cut]);
    let output = run(dir.path(), &url, &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    // What the pruned updates told stays; the range synced again is counted once.
    assert_eq!(of(), before);
    let (code, _, err) = sync(
        dir.path(),
        &url,
        &db.url,
        &["--from", "begin", "--until", &cut, "--verify", "2"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(of(), before);
}
