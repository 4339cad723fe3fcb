//! Counts of two frequent terms (issue 19): the index keeps, for every two terms with many
//! updates ("hubs"), how many updates have both, so such a count reads one row instead of
//! probing millions of keys. Run as the real binary over real HTTP against the demo, with the
//! index's hub threshold lowered (100,000 updates on a real index) so the demo's frequent
//! parties, templates, choices and contracts are hubs: every count of two of them equals the
//! number of updates a search of the two lists, after a sync, a prune, and the migration of
//! an index of schema 2 (which had no such counts) and of schema 4 (which had no bitmaps of
//! the hubs' updates). So do the counts the bitmaps answer: a hub with a rarer term, two hubs
//! from a time.

use std::path::Path;

use cantonscope::store::{self, Location};

use cantonscope::model::index::KeyKind;

use crate::index::{count_all, four, from, index_args, run, status, sync, temp, text};

/// The lowered threshold (the demo range synced here has a few thousand updates).
const THRESHOLD: &str = "100";

/// A new index at `location` (a path or a PostgreSQL URL) that makes terms hubs at
/// [`THRESHOLD`] updates.
pub(crate) fn lowered(location: &str) {
    store::open_writer(&Location::parse(location))
        .expect("creates")
        .meta_set(store::hubs::THRESHOLD_KEY, THRESHOLD)
        .expect("threshold");
}

/// The hubs' rows as kept (hubs, pairs and bitmaps by term id), in key order: SQLite's
/// `index`, or PostgreSQL's at `url`.
pub(crate) fn hub_tables(index: Option<&Path>, url: Option<&str>) -> Vec<String> {
    const TABLES: [&str; 3] = [
        "SELECT term, 0, 0, '' FROM hubs ORDER BY term",
        "SELECT a, b, n, '' FROM pairs ORDER BY a, b",
        "SELECT term, block, 0, bits FROM hub_bits ORDER BY term, block",
    ];
    let mut rows = Vec::new();
    for sql in TABLES {
        if let Some(index) = index {
            let conn = rusqlite::Connection::open(index).expect("opens");
            let mut stmt = conn.prepare(sql).expect("rows");
            let read = stmt
                .query_map([], |r| {
                    let bits = match r.get_ref(3)? {
                        rusqlite::types::ValueRef::Blob(b) => b.to_vec(),
                        _ => Vec::new(),
                    };
                    Ok(format!(
                        "{} {} {} {bits:?}",
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, i64>(2)?
                    ))
                })
                .expect("rows");
            rows.extend(read.map(|r| r.expect("a row")));
        }
        if let Some(url) = url {
            let mut pg = postgres::Client::connect(url, postgres::NoTls).expect("connects");
            let sql = sql.replace("0, 0, ''", "0::int8, 0::int8, ''::bytea");
            let sql = sql
                .replace("n, ''", "n, ''::bytea")
                .replace("0, bits", "0::int8, bits");
            for r in pg.query(&sql, &[]).expect("rows") {
                let (a, b, n, bits): (i64, i64, i64, Vec<u8>) =
                    (r.get(0), r.get(1), r.get(2), r.get(3));
                rows.push(format!("{a} {b} {n} {bits:?}"));
            }
        }
    }
    rows
}

/// Makes the index at `location` one whose hubs were made at `made_at` updates (as a build
/// with that default made them): the hubs with fewer go, with their pairs and bitmaps.
/// Returns how many went.
pub(crate) fn made_at(location: &str, made_at: i64) -> usize {
    let sql = |counts: &str| {
        format!(
            "CREATE TEMP TABLE low AS SELECT h.term FROM hubs h JOIN {counts} WHERE c.n < {made_at};
             DELETE FROM pairs WHERE a IN (SELECT term FROM low) OR b IN (SELECT term FROM low);
             DELETE FROM hub_bits WHERE term IN (SELECT term FROM low);
             DELETE FROM hubs WHERE term IN (SELECT term FROM low);
             DELETE FROM meta WHERE key = '{key}';
             INSERT INTO meta (key, value) VALUES ('{key}', '{made_at}');",
            key = store::hubs::MADE_AT_KEY
        )
    };
    if location.starts_with("postgres") {
        let mut pg = postgres::Client::connect(location, postgres::NoTls).expect("connects");
        pg.batch_execute(&sql(
            "(SELECT id, updates AS n FROM terms) c ON c.id = h.term",
        ))
        .expect("made at a higher threshold");
        let n: i64 = pg
            .query_one("SELECT count(*) FROM low", &[])
            .expect("low")
            .get(0);
        n as usize
    } else {
        let conn = rusqlite::Connection::open(location).expect("opens");
        conn.execute_batch(&sql("terms c ON c.id = h.term"))
            .expect("made at a higher threshold");
        // Terms that are not hubs keep their keys as rows, but for those of at least the
        // index's count of updates (schema 21: in blocks too).
        crate::common::migrated::hub_keys_as_rows(
            &conn,
            "term IN (SELECT term FROM low) AND term IN (SELECT id FROM terms
               WHERE n < CAST((SELECT value FROM meta WHERE key = 'blocks_from') AS INTEGER))",
        );
        conn.query_row("SELECT count(*) FROM low", [], |r| r.get::<_, i64>(0))
            .expect("low") as usize
    }
}

/// The notice a writer's open gives when it made `n` terms hubs at [`THRESHOLD`].
pub(crate) fn made_notice(n: usize) -> String {
    format!("{n} terms with {THRESHOLD} updates or more made frequent terms")
}

/// The terms `sql` selects (kind, value) as query terms (`party:…`), and the count `count`
/// selects.
fn terms_and(index: &Path, sql: &str, count: &str) -> (Vec<String>, i64) {
    let conn = rusqlite::Connection::open(index).expect("opens");
    let mut stmt = conn.prepare(sql).expect("terms");
    let terms = stmt
        .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
        .expect("rows")
        .map(|r| {
            let (kind, value) = r.expect("a row");
            let field = KeyKind::from_code(kind).expect("a key kind").field();
            format!("{field}:{value}")
        })
        .collect();
    let n = conn.query_row(count, [], |r| r.get(0)).expect("a count");
    (terms, n)
}

/// The hubs as query terms, most frequent first, and how many pairs are kept.
fn hubs(index: &Path) -> (Vec<String>, i64) {
    terms_and(
        index,
        "SELECT t.kind, CASE WHEN typeof(t.value) = 'blob' THEN lower(hex(t.value)) ELSE t.value END
         FROM hubs h JOIN terms t ON t.id = h.term ORDER BY t.n DESC",
        "SELECT count(*) FROM pairs",
    )
}

/// The most frequent terms that are not hubs, and how many bitmap rows are kept.
pub(crate) fn rare(index: &Path) -> (Vec<String>, i64) {
    terms_and(
        index,
        "SELECT kind, value FROM terms WHERE kind IN (1, 2, 3)
           AND id NOT IN (SELECT term FROM hubs) ORDER BY n DESC LIMIT 3",
        "SELECT count(*) FROM hub_bits",
    )
}

/// The two hubs no update has together whose rarer has the most updates (a walk of the two
/// that finds no row asks the pair's count after 100 updates), as query terms, and how many
/// updates the rarer has. Picked by their pair's count (none kept), and checked against the
/// updates of each alone (each hub's keys walked, no pair read): no update has both.
pub(crate) fn apart(index: &Path) -> (Vec<String>, i64) {
    let conn = rusqlite::Connection::open(index).expect("opens");
    let spelled = |t: &str| {
        format!(
            "{t}.kind, CASE WHEN typeof({t}.value) = 'blob' THEN lower(hex({t}.value)) ELSE {t}.value END"
        )
    };
    let sql = format!(
        "SELECT {}, {}, min(a.n, b.n), max(a.n, b.n)
         FROM hubs ha JOIN terms a ON a.id = ha.term
           JOIN hubs hb ON hb.term > ha.term JOIN terms b ON b.id = hb.term
         WHERE NOT EXISTS (SELECT 1 FROM pairs p WHERE p.a = ha.term AND p.b = hb.term)
         ORDER BY 5 DESC LIMIT 1",
        spelled("a"),
        spelled("b")
    );
    let term = |kind: i64, value: String| {
        let field = KeyKind::from_code(kind).expect("a key kind").field();
        format!("{field}:{value}")
    };
    let (pair, n, most): (Vec<String>, i64, i64) = conn
        .query_row(&sql, [], |r| {
            Ok((
                vec![term(r.get(0)?, r.get(1)?), term(r.get(2)?, r.get(3)?)],
                r.get(4)?,
                r.get(5)?,
            ))
        })
        .expect("two hubs no update has together");
    let mut reader = store::open_reader(&Location::Sqlite(index.to_owned())).expect("reader");
    let mut updates = |term: &str| -> std::collections::HashSet<String> {
        let q = cantonscope::model::index::query::Query::parse(&[term.to_owned()]).expect("q");
        let rows = reader
            .search(&q, None, None, usize::try_from(most).expect("n"))
            .expect("search");
        rows.into_iter().map(|r| r.update_id).collect()
    };
    let (a, b) = (updates(&pair[0]), updates(&pair[1]));
    assert!(
        a.len().min(b.len()) as i64 == n,
        "{pair:?}: {} and {} updates",
        a.len(),
        b.len()
    );
    let together = a.intersection(&b).count();
    assert_eq!(
        together, 0,
        "{pair:?}: keys of the same update, no pair kept"
    );
    (pair, n)
}

/// `index search TERMS --count` and the number of rows `index search TERMS` lists.
fn count_and_rows(dir: &Path, index: &Path, terms: &[&str]) -> (u64, u64) {
    let count = count_all(dir, index, terms);
    let mut args = index_args(index, "search");
    args.extend_from_slice(terms);
    args.extend_from_slice(&["--limit", "1000000"]);
    let output = run(dir, "http://127.0.0.1:9", &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    (count, text(&output.stdout).lines().count() as u64)
}

/// Every two of the first `n` hubs, over the whole index and from `since`, and each of them
/// with the most frequent terms that are not hubs: the count equals the rows (and some share
/// updates).
fn counts_equal_rows(dir: &Path, index: &Path, hubs: &[String], n: usize, since: &str, at: &str) {
    let mut shared = 0;
    let (rare, bits) = rare(index);
    assert!(rare.len() == 3 && bits > 0, "{rare:?} {bits} {at}");
    for (i, x) in hubs.iter().take(n).enumerate() {
        for y in hubs.iter().take(n).skip(i + 1) {
            let (count, rows) = count_and_rows(dir, index, &[x, y]);
            assert_eq!(count, rows, "{x} {y} {at}");
            shared += usize::from(count > 0);
            let (count, rows) = count_and_rows(dir, index, &[x, y, "--from", since]);
            assert_eq!(count, rows, "{x} {y} from {since} {at}");
            shared += usize::from(count > 0);
        }
        for y in &rare {
            let (count, rows) = count_and_rows(dir, index, &[x, y]);
            assert_eq!(count, rows, "{x} {y} {at}");
            shared += usize::from(count > 0);
        }
    }
    assert!(
        shared >= 3 * n,
        "frequent terms share updates: {shared} {at}"
    );
    // Two hubs no update has together, the rarer with more updates than a walk reads before
    // it asks their pair's count: no row and a count of 0, over the whole index and from a
    // time.
    let (pair, n) = apart(index);
    assert!(pair.len() == 2 && n > 100, "{pair:?} {n} {at}");
    let terms: Vec<&str> = pair.iter().map(String::as_str).collect();
    assert_eq!(count_and_rows(dir, index, &terms), (0, 0), "{pair:?} {at}");
    let mut from = terms.clone();
    from.extend_from_slice(&["--from", since]);
    assert_eq!(count_and_rows(dir, index, &from), (0, 0), "{pair:?} {at}");
}

#[test]
fn counts_of_two_frequent_terms_equal_the_searches_after_sync_prune_and_migration() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    lowered(index.to_str().expect("utf-8"));
    let (code, _, err) = sync(
        dir.path(),
        url,
        &index,
        &["--from", from(), "--verify", "1"],
    );
    assert_eq!(code, 0, "{err}");
    let (terms, pairs) = hubs(&index);
    assert!(
        terms.len() >= 6,
        "the demo's frequent terms are hubs: {terms:?}"
    );
    assert!(
        terms.iter().any(|t| t.starts_with("party:DSO::")),
        "{terms:?}"
    );
    assert!(pairs >= 10, "{pairs}");
    let kept = crate::index::kept(&index);
    let history = crate::index::history(dir.path(), url);
    let time_of = |at: usize| {
        history
            .iter()
            .find(|l| l["update_id"] == kept[at].0.as_str())
            .and_then(|l| l["record_time"].as_str().map(str::to_owned))
            .expect("a time")
    };
    let (cut, since) = (time_of(kept.len() / 2), time_of(kept.len() * 3 / 4));
    counts_equal_rows(dir.path(), &index, &terms, 6, &since, "after the sync");

    // An index whose hubs were made at a higher threshold (by a build whose default was
    // higher: 200 updates here, 100 now). Its writer's open makes hubs of the terms in
    // between, their pairs and bitmaps those the pages made; once.
    let kept_hubs = hub_tables(Some(&index), None);
    let demoted = made_at(index.to_str().expect("utf-8"), 200);
    assert!(
        demoted >= 2 && demoted < terms.len(),
        "{demoted} of {}",
        terms.len()
    );
    assert!(hub_tables(Some(&index), None).len() < kept_hubs.len());
    for notices in [vec![made_notice(demoted)], Vec::new()] {
        let mut writer = store::open_writer(&Location::Sqlite(index.clone())).expect("opens");
        let got = writer.notices();
        assert_eq!(got.len(), notices.len(), "{got:?}");
        for (got, want) in got.iter().zip(&notices) {
            assert!(got.contains(want), "{got}");
        }
        drop(writer);
        assert_eq!(hub_tables(Some(&index), None), kept_hubs);
    }

    // Prune the older half: the pairs and bitmaps lose its updates.
    let mut args = index_args(&index, "prune");
    args.extend_from_slice(&["--before", &cut]);
    let output = run(dir.path(), url, &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    counts_equal_rows(dir.path(), &index, &terms, 6, &since, "after prune");

    // An index of schema 2 (no hubs, no pairs): refused by readers, migrated by the next
    // sync, which counts the pairs from the keys.
    {
        let conn = rusqlite::Connection::open(&index).expect("opens");
        crate::common::migrated::times_from_1970(&conn);
        conn.execute_batch(
            "DROP TABLE hubs; DROP TABLE pairs; DROP TABLE hub_bits;
             ALTER TABLE terms DROP COLUMN last_migration; ALTER TABLE terms DROP COLUMN last_time; ALTER TABLE terms DROP COLUMN last_seq;
             UPDATE meta SET value = '2' WHERE key = 'schema_version';",
        )
        .expect("schema 2");
    }
    let mut args = index_args(&index, "search");
    args.extend_from_slice(&[&terms[0], "--count"]);
    let output = run(dir.path(), url, &args);
    assert_eq!(output.status.code(), Some(2));
    let err = text(&output.stderr);
    assert!(err.contains("older cantonscope (schema 2)"), "{err}");
    let (code, _, err) = sync(dir.path(), url, &index, &["--verify", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("migrated the index from schema 2 to schema 21"),
        "{err}"
    );
    assert_eq!(status(dir.path(), &index)["schema_version"], 21);
    let (again, pairs) = hubs(&index);
    assert!(again.len() >= 6 && pairs >= 10, "{again:?} {pairs}");
    counts_equal_rows(dir.path(), &index, &again, 6, &since, "after the migration");

    // An index of schema 4 (pairs, no bitmaps): refused by readers, migrated by the next sync,
    // which makes the hubs' bitmaps from the keys.
    {
        let conn = rusqlite::Connection::open(&index).expect("opens");
        crate::common::migrated::times_from_1970(&conn);
        conn.execute_batch(
            "DROP TABLE hub_bits; ALTER TABLE terms DROP COLUMN last_migration; ALTER TABLE terms DROP COLUMN last_time; ALTER TABLE terms DROP COLUMN last_seq;
             UPDATE meta SET value = '4' WHERE key = 'schema_version';",
        )
        .expect("schema 4");
    }
    let mut args = index_args(&index, "search");
    args.extend_from_slice(&[&again[0], "--count"]);
    let output = run(dir.path(), url, &args);
    assert_eq!(output.status.code(), Some(2));
    let err = text(&output.stderr);
    assert!(err.contains("older cantonscope (schema 4)"), "{err}");
    let (code, _, err) = sync(dir.path(), url, &index, &["--verify", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("migrated the index from schema 4 to schema 21")
            && err.contains("the bitmaps of the frequent terms"),
        "{err}"
    );
    assert_eq!(status(dir.path(), &index)["schema_version"], 21);
    counts_equal_rows(
        dir.path(),
        &index,
        &again,
        6,
        &since,
        "after the migration from 4",
    );
}
