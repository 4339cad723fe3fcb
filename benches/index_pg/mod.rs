//! The index bench on PostgreSQL (`INDEX_BENCH_PG_URL`): the same generated updates in a
//! database of their own, built once and kept; the searches warm (criterion) and cold
//! (`INDEX_BENCH_PG_RESTART`), the two-term searches that are not both hubs cold too, and the
//! size. `INDEX_BENCH_PG_ONLY=1` measures PostgreSQL alone, without building the SQLite index of
//! the same size first: at 10 M updates this disk holds one of the two at a time.
//! `INDEX_BENCH_PG_NO_BODIES=1` builds (and reads) a database without the updates' bodies, in a
//! database of its own (`…_nobodies`): the searches read no body, and at 10 M a database with
//! them (42.6 GB at PostgreSQL's schema 14) does not fit beside the rest on this disk.

use std::time::Instant;

use cantonscope::model::index::KeyKind;
use cantonscope::model::index::query::Query;
use cantonscope::store::{self, IndexReader, Location};
use criterion::Criterion;

use super::{
    Copier, SEED, SUMMARY_VERSION, Term, build_at, drop_caches, search_group, two_term_figures,
};

/// Whether PostgreSQL alone is measured (`INDEX_BENCH_PG_ONLY` set).
pub fn only() -> bool {
    std::env::var_os("INDEX_BENCH_PG_ONLY").is_some()
}

/// Every PostgreSQL figure of `n` updates: the database built when missing, the searches cold
/// (when the server can be restarted) and warm, the two-term searches of a hub and a term below
/// the hub threshold cold, the size on disk.
pub fn figures(
    c: &mut Criterion,
    admin_url: &str,
    template: &[String],
    copier: &Copier,
    n: usize,
    parsed: &[(&'static str, Query)],
) {
    let location = cached(admin_url, template, copier, n);
    cold(&location, parsed);
    non_hub_counts(&location, &copier.dso);
    let mut pg = store::open_reader(&location).expect("PostgreSQL reader");
    let status = pg.status(0).expect("status");
    eprintln!(
        "index bench: PostgreSQL, {n} updates, {:.1} MiB ({:.0} bytes/update)",
        status.size_bytes as f64 / 1_048_576.0,
        status.size_bytes as f64 / n as f64
    );
    search_group(c, &format!("index_search_pg_{n}"), pg.as_mut(), parsed);
}

/// A fresh reader of a server just restarted, the page cache dropped after the restart
/// (`INDEX_BENCH_PG_RESTART`; `None` when it is not set). With `catalogs_warm`, another
/// connection first plans a query of each of the index's tables (reading the catalogs, no row),
/// as on a server that has been running.
fn restarted(location: &Location, catalogs_warm: bool) -> Option<Box<dyn IndexReader>> {
    let restart = std::env::var("INDEX_BENCH_PG_RESTART").ok()?;
    let Location::Postgres(url) = location else {
        return None;
    };
    let status = std::process::Command::new("sh")
        .args(["-c", &restart])
        .stdout(std::process::Stdio::null())
        .status()
        .expect("INDEX_BENCH_PG_RESTART runs");
    assert!(status.success(), "INDEX_BENCH_PG_RESTART failed: {status}");
    assert!(
        drop_caches(),
        "a cold PostgreSQL needs the page cache dropped (root)"
    );
    if catalogs_warm {
        let mut other = postgres::Client::connect(url, postgres::NoTls).expect("connects");
        for table in store::POSTGRES_TABLES {
            other
                .batch_execute(&format!("EXPLAIN SELECT * FROM {table}"))
                .expect("planned");
        }
    }
    Some(store::open_reader(location).expect("PostgreSQL reader"))
}

/// PostgreSQL with a cold cache: the server restarted and the page cache dropped before each
/// first page and each count, each measured on its own by a fresh reader. Twice: with the
/// catalogs cold too (a server just started), and with them warm.
fn cold(location: &Location, parsed: &[(&'static str, Query)]) {
    if std::env::var_os("INDEX_BENCH_PG_RESTART").is_none() {
        eprintln!(
            "index bench: PostgreSQL cold cache skipped (INDEX_BENCH_PG_RESTART, a command restarting the server, is not set)"
        );
        return;
    }
    for catalogs_warm in [false, true] {
        for (name, query) in parsed {
            let mut index = restarted(location, catalogs_warm).expect("restarted");
            let t = Instant::now();
            let rows = index.search(query, None, None, 100).expect("search");
            let first = t.elapsed();
            let mut index = restarted(location, catalogs_warm).expect("restarted");
            let t = Instant::now();
            let count = index.count(query, None, None).expect("count");
            eprintln!(
                "index bench: PostgreSQL cold ({}), {name}: first page ({} rows) {:.1} ms; count {count} in {:.1} ms",
                if catalogs_warm {
                    "catalogs warm"
                } else {
                    "just started"
                },
                rows.len(),
                first.as_secs_f64() * 1e3,
                t.elapsed().as_secs_f64() * 1e3
            );
        }
    }
}

/// The two-term searches of SQLite's `non_hub_counts` on PostgreSQL: the DSO party (a hub), then
/// the least frequent hub, each with the most frequent party, template or choice below the hub
/// threshold and with one below a tenth of it. Each first page and count from a server just
/// restarted with its catalogs warm, then again warm; warm only when the server cannot be
/// restarted.
fn non_hub_counts(location: &Location, dso: &str) {
    let Location::Postgres(url) = location else {
        return;
    };
    let mut conn = postgres::Client::connect(url, postgres::NoTls).expect("connects");
    let least_hub: Option<i64> = conn
        .query_opt(
            "SELECT h.term FROM hubs h JOIN terms t ON t.id = h.term ORDER BY t.updates LIMIT 1",
            &[],
        )
        .expect("hubs read")
        .map(|r| r.get(0));
    let threshold = store::hubs::DEFAULT_THRESHOLD;
    let mut term = |id: Option<i64>, below: i64| -> Option<Term> {
        conn.query_opt(
            &format!(
                "SELECT kind, {}, updates FROM terms t
              WHERE ($1::BIGINT IS NULL AND updates < $2 AND kind IN (1, 2, 3)) OR id = $1
              ORDER BY updates DESC LIMIT 1",
                store::postgres_term_text_sql("t.")
            ),
            &[&id, &below],
        )
        .expect("terms read")
        .map(|r| {
            let field = KeyKind::from_code(r.get(0)).expect("a key kind").field();
            (field.to_owned(), r.get(1), r.get(2))
        })
    };
    let hub = least_hub.and_then(|id| term(Some(id), 0));
    let below: Vec<Term> = [threshold, threshold / 10]
        .into_iter()
        .filter_map(|b| term(None, b))
        .collect();
    let restartable = std::env::var_os("INDEX_BENCH_PG_RESTART").is_some();
    let fresh = || {
        restarted(location, true)
            .unwrap_or_else(|| store::open_reader(location).expect("PostgreSQL reader"))
    };
    two_term_figures(
        "PostgreSQL, ",
        dso,
        hub.as_ref(),
        &below,
        &fresh,
        if restartable {
            "each first from a server just restarted, catalogs warm"
        } else {
            "warm: INDEX_BENCH_PG_RESTART is not set"
        },
    );
}

/// Whether the database is built without bodies (`INDEX_BENCH_PG_NO_BODIES` set).
fn without_bodies() -> bool {
    std::env::var_os("INDEX_BENCH_PG_NO_BODIES").is_some()
}

/// The name of the cached PostgreSQL database of `n` updates.
pub fn name(n: usize) -> String {
    format!(
        "cantonscope_bench_{n}_{SEED}_s{}_v{SUMMARY_VERSION}{}",
        store::SCHEMA_VERSION,
        if without_bodies() { "_nobodies" } else { "" }
    )
}

/// The PostgreSQL index of `n` updates in its own database (built when missing or unfinished).
pub fn cached(admin_url: &str, template: &[String], copier: &Copier, n: usize) -> Location {
    let name = name(n);
    let mut url = reqwest::Url::parse(admin_url).expect("INDEX_BENCH_PG_URL is a URL");
    url.set_path(&format!("/{name}"));
    let location = Location::Postgres(url.to_string());
    // A database of an older schema (readers refuse it) is migrated in place, as the next sync
    // would, and the migration timed: not dropped and built again.
    if let Err(store::StoreError::OlderSchema { found, .. }) = store::open_reader(&location) {
        let started = Instant::now();
        let notices = store::open_writer(&location)
            .expect("the cached database of an older schema migrates")
            .notices();
        eprintln!(
            "index bench: PostgreSQL database {name} of schema {found} migrated in {:.1} s {notices:?}",
            started.elapsed().as_secs_f64()
        );
    }
    let done = store::open_reader(&location)
        .ok()
        .and_then(|mut i| i.chunks().ok())
        .is_some_and(|chunks| chunks.iter().any(|c| c.state == "done"));
    if done {
        // Brought to this build's layout and vacuumed as its next sync would: opened for
        // writing, its statistics refreshed.
        let started = Instant::now();
        let mut index =
            store::open_writer(&location).expect("the cached database opens for writing");
        let opened = started.elapsed().as_secs_f64();
        let notices = index.notices();
        index
            .refresh_statistics()
            .expect("its statistics refreshed");
        eprintln!(
            "index bench: PostgreSQL database {name} reused, opened for writing in {opened:.1} s {notices:?} and vacuumed in {:.1} s",
            started.elapsed().as_secs_f64() - opened
        );
    } else {
        let mut admin = postgres::Client::connect(admin_url, postgres::NoTls)
            .expect("INDEX_BENCH_PG_URL answers");
        admin
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
            .expect("drop");
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create");
        let bodies = !without_bodies();
        eprintln!(
            "index bench: building PostgreSQL database {name} ({n} updates{})…",
            if bodies { "" } else { ", without bodies" }
        );
        let rate = build_at(&location, template, copier, n, bodies, None);
        eprintln!("index bench: built at {rate:.0} updates/s");
    }
    location
}
