//! PostgreSQL's posting blocks (schema 18): a walk of a frequent term's keys tested in a hub's
//! bitmap reads the keys a sync added after the term's mark from `keys`, then its blocks. The
//! answers stay SQLite's through everything that moves the mark or the blocks: `index compact`
//! (blocks made), a sync at the head (keys after the marks), a sync that fills the history
//! before them (marks moved back), a prune (the keys before its time no longer read), the
//! pruned range synced again, a compaction after (made again), and the migration of a database
//! of schema 17 by `index prune`. Blocks cut short change the answer, so the walk reads them.
//!
//! Skipped without a server, as [`crate::index_pg`] says.

use std::path::Path;

use cantonscope::model::index::KeyKind;

use crate::index::{four, from, history, index_args, run, sync, text};
use crate::index_pairs::lowered;
use crate::index_pg::{database, search};

fn pg(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).expect("connects")
}

/// Query terms of the PostgreSQL index: every two of its four least frequent hubs with blocks
/// (a party, template or choice; the rarer one's keys walked and tested in the other's
/// bitmap).
fn pairs(url: &str) -> Vec<Vec<String>> {
    let hubs: Vec<String> = pg(url)
        .query(
            "SELECT t.kind, convert_from(t.value, 'UTF8') FROM hubs h JOIN terms t ON t.id = h.term
             JOIN key_marks m ON m.term = h.term
             WHERE t.kind IN (1, 2, 3) ORDER BY t.updates, t.id LIMIT 4",
            &[],
        )
        .expect("hubs")
        .iter()
        .map(|r| {
            let field = KeyKind::from_code(r.get(0)).expect("a key kind").field();
            format!("{field}:{}", r.get::<_, String>(1))
        })
        .collect();
    assert!(hubs.len() >= 3, "{hubs:?}");
    let mut pairs = Vec::new();
    for (i, x) in hubs.iter().enumerate() {
        for y in &hubs[i + 1..] {
            pairs.push(vec![x.clone(), y.clone()]);
            // The other term given twice (its bitmap tested once, whole for a count).
            pairs.push(vec![x.clone(), y.clone(), y.clone()]);
        }
    }
    // A term given twice alone (no pair's count to read).
    pairs.push(vec![hubs[0].clone(), hubs[0].clone()]);
    pairs
}

/// The same answers on both: rows, the first rows, counts, over the index and from `since`.
fn same(dir: &Path, sqlite_at: &str, pg_at: &str, since: &str, when: &str) {
    for query in pairs(pg_at) {
        let terms: Vec<&str> = query.iter().map(String::as_str).collect();
        for extra in [
            vec!["--limit", "1000000"],
            vec!["--limit", "7"],
            vec!["--limit", "1000000", "--from", since],
            vec!["--limit", "1000000", "--until", since],
            vec!["--count"],
            vec!["--count", "--from", since],
            // From before every kept update: a count that walks (two hubs' count over the
            // whole index is kept), past a prune's time too.
            vec!["--count", "--from", from()],
        ] {
            assert_eq!(
                search(dir, pg_at, &terms, &extra),
                search(dir, sqlite_at, &terms, &extra),
                "{when}: {query:?} {extra:?}"
            );
        }
    }
}

/// Each term's mark.
fn marks(url: &str) -> Vec<(i64, i64, i64, i64)> {
    pg(url)
        .query(
            "SELECT term, migration_id, record_time, seq FROM key_marks ORDER BY term",
            &[],
        )
        .expect("marks")
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect()
}

/// Runs the binary with `args` (exit 0 asserted): what it said on stderr.
fn ok(dir: &Path, url: &str, args: &[&str]) -> String {
    let output = run(dir, url, args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    text(&output.stderr)
}

/// `index prune --before` of `at`.
fn prune(dir: &Path, url: &str, at: &str, before: &str) -> String {
    let mut args = index_args(at, "prune");
    args.extend_from_slice(&["--before", before]);
    ok(dir, url, &args)
}

#[test]
fn walks_over_postgres_posting_blocks_answer_as_sqlite_through_compaction_syncs_and_prune() {
    let Some((db, _server)) = database("blocks") else {
        return;
    };
    let demo = four();
    let url = &demo.handle.scan_url;
    let dir = tempfile::tempdir().expect("tempdir");
    let sqlite = dir.path().join("index.sqlite");
    let (sqlite_at, pg_at) = (sqlite.to_str().expect("utf-8"), db.url.as_str());
    // Hubs from 100 updates, as the terms with blocks: every hub has them.
    lowered(sqlite_at);
    lowered(pg_at);
    let lines = history(dir.path(), url);
    assert!(lines.len() > 400, "{}", lines.len());
    let time = |i: usize| lines[i]["record_time"].as_str().expect("time").to_owned();
    let (third, two_thirds, half) = (lines.len() / 3, lines.len() * 2 / 3, lines.len() / 2);
    let compact = |dir: &Path| {
        ok(dir, "http://127.0.0.1:9", &index_args(pg_at, "compact"));
    };
    let sync_both = |from_at: &str, until: Option<&str>| {
        for at in [sqlite_at, pg_at] {
            let mut extra = vec!["--from", from_at];
            if let Some(until) = until {
                extra.extend_from_slice(&["--until", until]);
            }
            let (code, _, err) = sync(dir.path(), url, at, &extra);
            assert_eq!(code, 0, "{err}");
        }
    };

    // The middle third, compacted: blocks for every term of at least 100 updates.
    sync_both(&time(third), Some(&time(two_thirds)));
    assert!(marks(pg_at).is_empty(), "a sync makes no blocks");
    compact(dir.path());
    let built = marks(pg_at);
    assert!(!built.is_empty(), "blocks made by the compaction");
    let inside = time(half);
    same(dir.path(), sqlite_at, pg_at, &inside, "compacted");

    // The walk reads the blocks: a driver's blocks taken away, its pair finds no row.
    let query = pairs(pg_at)
        .into_iter()
        .find(|q| {
            q.len() == 2 && search(dir.path(), sqlite_at, &[&q[0], &q[1]], &["--count"]) != ["0"]
        })
        .expect("a pair with updates");
    let terms = [query[0].as_str(), query[1].as_str()];
    let all = ["--limit", "1000000"];
    let before = search(dir.path(), pg_at, &terms, &all);
    pg(pg_at)
        .batch_execute("UPDATE key_blocks SET rest = ''::bytea")
        .expect("blocks cut to their newest key");
    let cut = search(dir.path(), pg_at, &terms, &all);
    assert!(
        cut.len() < before.len(),
        "{query:?}: the rows read from the blocks, {} of {}",
        cut.len(),
        before.len()
    );
    compact(dir.path());
    assert_eq!(search(dir.path(), pg_at, &terms, &all), before);

    // A sync at the head: the keys after the marks, the marks as they were.
    sync_both(&time(two_thirds), None);
    assert_eq!(marks(pg_at), built, "a sync at the head moves no mark");
    same(
        dir.path(),
        sqlite_at,
        pg_at,
        &inside,
        "after a sync at the head",
    );

    // A sync of the history before the blocks: the marks of its terms moved back.
    sync_both(from(), Some(&time(third)));
    let moved = marks(pg_at);
    assert!(
        moved
            .iter()
            .zip(&built)
            .any(|(now, was)| now.0 == was.0 && (now.1, now.2, now.3) < (was.1, was.2, was.3)),
        "a mark moved back"
    );
    same(
        dir.path(),
        sqlite_at,
        pg_at,
        &time(third / 2),
        "after a sync before the blocks",
    );

    // A prune inside the blocks: their keys before it no longer read.
    for at in [sqlite_at, pg_at] {
        prune(dir.path(), url, at, &inside);
    }
    same(
        dir.path(),
        sqlite_at,
        pg_at,
        &time(two_thirds),
        "after a prune",
    );

    // The pruned range synced again: its keys before the marks and before the pruned time.
    sync_both(from(), Some(&inside));
    same(
        dir.path(),
        sqlite_at,
        pg_at,
        &time(third),
        "the pruned range synced again",
    );

    // Compacted again: the blocks made again from the keys kept.
    compact(dir.path());
    assert!(!marks(pg_at).is_empty());
    same(
        dir.path(),
        sqlite_at,
        pg_at,
        &time(two_thirds),
        "compacted after the prune",
    );

    // A database of schema 17: `index prune` (of nothing) migrates it (a reader refuses it),
    // its blocks made.
    pg(pg_at)
        .batch_execute(
            "DROP TABLE key_blocks, key_marks;
             UPDATE meta SET value = '17' WHERE key = 'schema_version';",
        )
        .expect("schema 17");
    let said = prune(dir.path(), url, pg_at, "2000-01-01T00:00:00Z");
    assert!(said.contains("as posting blocks (schema 18)"), "{said}");
    assert!(!marks(pg_at).is_empty());
    same(
        dir.path(),
        sqlite_at,
        pg_at,
        &time(two_thirds),
        "migrated from schema 17",
    );
}
