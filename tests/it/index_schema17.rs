//! SQLite's schema 17 (issue 39's disk figure): an update id is found by an index of its first
//! 6 and last 2 bytes, the whole id compared on the rows found, not by the unique index of the whole id
//! that schema 13 to 16 kept (its table's constraint). An index of schema 16 is refused by
//! readers and migrated in place by the next sync, which rebuilds the updates table without
//! the constraint: every row and body the same, the searches (an id's prefix among them) and
//! each update's events answering the same, and a sync of updates it keeps adding none twice.
//! Run as the real binary over real HTTP against the demo.

use std::path::Path;

use cantonscope::store::Location;

use crate::common::migrated::{answers, count, sqlite_migrates, sqlite_synced, synced_again};
use crate::index::status;
use crate::index_schema14::opened;
use crate::index_schema15::{bodies, opened_and_searched};

/// The SQLite index at `index` as schema 16 kept its updates: the table with its id unique
/// (and SQLite's index for it), no index of the ids' heads.
fn sqlite_to_schema_16(index: &Path) {
    let conn = rusqlite::Connection::open(index).expect("opens");
    crate::common::migrated::times_from_1970(&conn);
    conn.execute_batch(
        "BEGIN;
         CREATE TABLE updates_v16 (
             seq INTEGER PRIMARY KEY,
             update_id TEXT NOT NULL UNIQUE,
             migration_id INTEGER NOT NULL,
             record_time INTEGER NOT NULL,
             action INTEGER NOT NULL,
             party_set INTEGER NOT NULL,
             digest BLOB NOT NULL,
             body BLOB,
             chunk INTEGER NOT NULL
         );
         INSERT INTO updates_v16 SELECT * FROM updates ORDER BY seq;
         DROP TABLE updates;
         ALTER TABLE updates_v16 RENAME TO updates;
         CREATE INDEX updates_position ON updates (migration_id, record_time);
         CREATE INDEX updates_time ON updates (record_time);
         UPDATE meta SET value = '16' WHERE key = 'schema_version';
         COMMIT;",
    )
    .expect("schema 16");
}

/// The updates table's indexes, by name.
fn indexes(index: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(index).expect("opens");
    conn.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'updates' ORDER BY name")
        .expect("indexes")
        .query_map([], |r| r.get(0))
        .expect("indexes")
        .collect::<Result<_, _>>()
        .expect("indexes")
}

/// How many updates the index keeps, and how many distinct ids.
fn updates_and_ids(index: &Path) -> (i64, i64) {
    let conn = rusqlite::Connection::open(index).expect("opens");
    conn.query_row(
        "SELECT count(*), count(DISTINCT update_id) FROM updates",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .expect("counted")
}

/// An update id the index keeps (the one of the lowest seq).
fn an_update_id(index: &Path) -> String {
    let conn = rusqlite::Connection::open(index).expect("opens");
    conn.query_row(
        "SELECT lower(hex(update_id)) FROM updates WHERE typeof(update_id) = 'blob' ORDER BY seq LIMIT 1",
        [],
        |r| r.get(0),
    )
    .expect("an id")
}

#[test]
fn an_index_of_schema_16_loses_the_ids_unique_index_and_finds_each_id_by_its_head() {
    let (url, dir, index, shown) = sqlite_synced();
    let location = Location::Sqlite(index.clone());
    let fresh = bodies(&index);
    let (bodies_before, mut words, _) = opened_and_searched(url, dir.path(), &index);
    // An id's prefix past its head (10 bytes), one within it (6 bytes), and the whole id.
    let id = an_update_id(&index);
    words.extend([
        format!("id:{}", &id[..20]),
        format!("id:{}", &id[..12]),
        format!("id:{id}"),
    ]);
    let before = answers(dir.path(), &shown, &words);
    assert_eq!(count(&before, &format!("id:{id}")), 1);
    let kept_before = updates_and_ids(&index);
    assert_eq!(kept_before.0, kept_before.1);
    assert!(indexes(&index).contains(&"updates_id_head".to_owned()));

    sqlite_to_schema_16(&index);
    assert!(indexes(&index).contains(&"sqlite_autoindex_updates_1".to_owned()));
    assert!(!indexes(&index).contains(&"updates_id_head".to_owned()));

    sqlite_migrates(
        dir.path(),
        url,
        &shown,
        16,
        (
            &words[0],
            "1",
            "the update ids found by an index of their first 6 and last 2 bytes, not a unique index of the whole id: the updates table rebuilt without it",
        ),
    );
    assert_eq!(
        indexes(&index),
        ["updates_id_head", "updates_position", "updates_time"]
    );
    assert_eq!(bodies(&index), fresh);
    assert_eq!(opened(&location), bodies_before);
    assert_eq!(answers(dir.path(), &shown, &words), before);
    // The hour again: every update known (looked up by its head), none added twice.
    synced_again(dir.path(), url, &shown);
    assert_eq!(updates_and_ids(&index), kept_before);
    assert_eq!(status(dir.path(), &shown)["updates"], kept_before.0);
}
