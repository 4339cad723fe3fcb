//! Schema 12 (issue 39's disk figure): SQLite keeps each update's party set and its kind and
//! root action once (`party_sets`, `actions`), the updates pointing at them by number. An index
//! of schema 11 (the texts in every update's row) is refused by readers and migrated in place
//! by the next sync, on SQLite and on PostgreSQL (whose layout is unchanged), and answers the
//! same as the fresh schema-12 index it was made from: the searches' rows (kind, root action,
//! parties), History's pages read from the index, the kept digests. Run as the real binary
//! over real HTTP against the demo.

use std::path::Path;

use cantonscope::model::format::parse_time_micros;
use cantonscope::model::index::SearchRow;
use cantonscope::model::index::read::{RangeFrom, RangeKey};
use cantonscope::store::{self, Location};

use crate::common::migrated::{
    answers, count, postgres_migrates, postgres_synced, sqlite_migrates, sqlite_synced,
};

/// The updates table as schema 11 kept it: each update's kind, root action and parties as
/// text in its row, its id as text (schema 13 keeps most as bytes).
const TO_SCHEMA_11: &str = "BEGIN;
    CREATE TABLE updates_v11 (seq INTEGER PRIMARY KEY, update_id TEXT NOT NULL UNIQUE,
        migration_id INTEGER NOT NULL, record_time INTEGER NOT NULL, kind TEXT NOT NULL,
        root_action TEXT NOT NULL, parties TEXT NOT NULL, digest BLOB NOT NULL, body BLOB,
        chunk INTEGER NOT NULL);
    INSERT INTO updates_v11 SELECT u.seq,
        CASE WHEN typeof(u.update_id) = 'blob' THEN lower(hex(u.update_id)) ELSE u.update_id END,
        u.migration_id, u.record_time, a.kind,
        a.root_action, p.parties, u.digest, u.body, u.chunk
        FROM updates u JOIN actions a ON a.id = u.action JOIN party_sets p ON p.id = u.party_set;
    DROP TABLE updates;
    ALTER TABLE updates_v11 RENAME TO updates;
    CREATE INDEX updates_position ON updates (migration_id, record_time);
    CREATE INDEX updates_time ON updates (record_time);
    DROP TABLE party_sets;
    DROP TABLE actions;
    UPDATE meta SET value = '11' WHERE key = 'schema_version';
    COMMIT;";

/// The updates, their distinct party sets and distinct (kind, root action) of the SQLite index.
fn sets(index: &Path) -> (i64, i64, i64) {
    let conn = rusqlite::Connection::open(index).expect("opens");
    conn.query_row(
        "SELECT (SELECT count(*) FROM updates), (SELECT count(*) FROM party_sets),
                (SELECT count(*) FROM actions)",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .expect("counts")
}

/// The searches asked of both layouts: the busiest party and template, an update-id prefix,
/// a kind, and a party with a kind.
fn words(conn: &rusqlite::Connection) -> Vec<String> {
    let top = |kind: i64| -> String {
        conn.query_row(
            "SELECT value FROM terms WHERE kind = ?1 ORDER BY n DESC, id LIMIT 1",
            [kind],
            |r| r.get(0),
        )
        .expect("a term")
    };
    let id: String = conn
        .query_row(
            "SELECT CASE WHEN typeof(update_id) = 'blob' THEN lower(hex(update_id))
                    ELSE update_id END FROM updates ORDER BY seq LIMIT 1",
            [],
            |r| r.get(0),
        )
        .expect("an update");
    let (party, template) = (top(1), top(2));
    vec![
        format!("party:{party}"),
        format!("template:{template}"),
        format!("id:{}", &id[..10]),
        "is:transfer".to_owned(),
        format!("party:{party} is:transfer"),
    ]
}

/// Where a page after (or before) `row` starts.
fn key_of(row: &SearchRow) -> RangeKey {
    RangeKey {
        migration_id: row.migration_id,
        record_time: parse_time_micros(&row.record_time).expect("a time"),
        update_id: row.update_id.clone(),
    }
}

/// What the store's reads give of the index at `location`: History's whole list (every
/// update and verdict-only event as its summary row), read in pages of 50 after the first
/// and read backwards from the last, and the kept digests.
fn reads(location: &Location) -> (Vec<SearchRow>, Vec<SearchRow>, Vec<(String, String)>) {
    let mut store = store::open_reader(location).expect("index opens");
    let all = store
        .range_rows(0, &RangeFrom::Offset(0), 1_000_000)
        .expect("the whole list");
    let mut paged = store
        .range_rows(0, &RangeFrom::Offset(0), 50)
        .expect("a first page");
    while paged.len() < all.len()
        && let Some(last) = paged.last()
    {
        let next = store
            .range_rows(0, &RangeFrom::After(key_of(last)), 50)
            .expect("the next page");
        if next.is_empty() {
            break;
        }
        paged.extend(next);
    }
    assert_eq!(paged, all, "the pages after each other make the whole list");
    let before_last = all.last().map(|last| {
        store
            .range_rows(0, &RangeFrom::Before(key_of(last)), 50)
            .expect("the page before the last row")
    });
    if let Some(page) = &before_last {
        assert_eq!(page[..], all[all.len() - 1 - page.len()..all.len() - 1]);
    }
    (
        all,
        before_last.unwrap_or_default(),
        store.digests().expect("digests"),
    )
}

#[test]
fn an_index_of_schema_11_is_migrated_in_place_and_answers_the_same() {
    let (url, dir, index, shown) = sqlite_synced();
    let location = Location::Sqlite(index.clone());
    let (updates, party_sets, actions) = sets(&index);
    assert!(updates > 100, "{updates} updates");
    assert!(
        party_sets * 2 < updates && actions * 2 < updates && party_sets > 1 && actions > 1,
        "each set kept once: {party_sets} party sets and {actions} actions of {updates} updates"
    );
    let words = words(&rusqlite::Connection::open(&index).expect("opens"));
    let before = answers(dir.path(), &shown, &words);
    for word in &words[..4] {
        assert!(count(&before, word) >= 1, "{word}: {before:?}");
    }
    let read = reads(&location);
    assert!(read.0.len() as i64 >= updates, "{} rows", read.0.len());
    let conn = rusqlite::Connection::open(&index).expect("opens");
    crate::common::migrated::times_from_1970(&conn);
    conn.execute_batch(TO_SCHEMA_11).expect("schema 11");
    drop(conn);
    // Readers refuse it; the next writer migrates it.
    sqlite_migrates(
        dir.path(),
        url,
        &shown,
        11,
        (
            &words[0],
            "1",
            "party set and its kind and root action kept once",
        ),
    );
    assert_eq!(sets(&index), (updates, party_sets, actions));
    assert_eq!(answers(dir.path(), &shown, &words), before);
    assert_eq!(reads(&location), read);
}

#[test]
fn a_postgres_index_of_schema_11_is_migrated_and_answers_the_same() {
    let Some((db, _server, url, dir)) = postgres_synced("schema11", "1") else {
        return;
    };
    let mut pg = postgres::Client::connect(&db.url, postgres::NoTls).expect("connects");
    let party: String = pg
        .query_one(
            &format!(
                "SELECT {} FROM terms WHERE kind = 1 ORDER BY id LIMIT 1",
                store::postgres_term_text_sql("")
            ),
            &[],
        )
        .expect("a party")
        .get(0);
    let words = vec![format!("party:{party}"), "is:transfer".to_owned()];
    let location = Location::Postgres(db.url.clone());
    let before = answers(dir.path(), &db.url, &words);
    assert!(count(&before, &words[0]) >= 1, "{before:?}");
    let read = reads(&location);
    pg.batch_execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")
        .expect("schema 11");
    postgres_migrates(dir.path(), url, &db, 11);
    assert_eq!(answers(dir.path(), &db.url, &words), before);
    assert_eq!(reads(&location), read);
}
