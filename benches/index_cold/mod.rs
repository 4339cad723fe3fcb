//! The cold-cache figures of the index bench: each search's first page and count with the page
//! cache dropped first (root only), and opening an update's body the same way; and
//! `INDEX_BENCH_SEARCH_ONLY`, which leaves out the figures that make other indexes (the twins
//! without bodies and with events, the copy `index stats` runs on): at 10 M the disk of the
//! bench machine holds one index of that size, not three.

use std::path::Path;
use std::time::Instant;

use cantonscope::model::index::query::Query;
use cantonscope::store::{self, Location};

/// Whether only the search figures are wanted (`INDEX_BENCH_SEARCH_ONLY` set).
pub fn search_only() -> bool {
    std::env::var_os("INDEX_BENCH_SEARCH_ONLY").is_some()
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Once per query: the first page of 100 after dropping the page cache (a fresh reader), the
/// count after it (what `index search` does), then the count alone after dropping the cache
/// again; then an update's body opened cold, and its id searched by prefixes of it. `drop_caches`
/// says whether it could drop them.
pub fn figures(path: &Path, parsed: &[(&str, Query)], drop_caches: &dyn Fn() -> bool) {
    let open = || store::open_reader(&Location::Sqlite(path.to_owned())).expect("reader");
    let mut some_id = None;
    for (name, query) in parsed {
        if !drop_caches() {
            eprintln!("index bench: cold cache skipped (dropping the page cache needs root)");
            return;
        }
        let mut cold = open();
        let t = Instant::now();
        let rows = cold.search(query, None, None, 100).expect("search");
        let first = ms(t);
        let t = Instant::now();
        let count = cold.count(query, None, None).expect("count");
        let after = ms(t);
        drop(cold);
        drop_caches();
        let mut cold = open();
        let t = Instant::now();
        let again = cold.count(query, None, None).expect("count");
        let alone = ms(t);
        assert_eq!(again, count, "{name}: the same count");
        eprintln!(
            "index bench: cold cache, {name}: first page ({} rows) {first:.1} ms; count {count} in {after:.1} ms after it, {alone:.1} ms alone",
            rows.len(),
        );
        if some_id.is_none() {
            some_id = rows.first().map(|r| r.update_id.clone());
        }
    }
    if let Some(id) = some_id
        && drop_caches()
    {
        let mut cold = open();
        let t = Instant::now();
        let body = cold.body(&id).expect("body");
        eprintln!(
            "index bench: cold cache, open an update (its body, {} bytes): {:.1} ms",
            body.map_or(0, |b| b.len()),
            ms(t)
        );
        // The same id searched by its prefixes: 12 hex digits (the 6 bytes SQLite's schema 17
        // indexes), 20 (past them), and whole.
        for digits in [12, 20, id.len()] {
            let Some(prefix) = id.get(..digits) else {
                continue;
            };
            let query = Query::parse(&[format!("id:{prefix}").as_str()]).expect("an id prefix");
            if !drop_caches() {
                return;
            }
            let mut cold = open();
            let t = Instant::now();
            let rows = cold.search(&query, None, None, 100).expect("search");
            eprintln!(
                "index bench: cold cache, an update id's first {digits} digits: first page ({} rows) {:.1} ms",
                rows.len(),
                ms(t)
            );
        }
    }
}
