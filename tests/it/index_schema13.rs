//! Schema 13 (issue 39's disk figure): SQLite keeps an update's id as the bytes its hex spells
//! (any other id as text) and finds the party sets and actions by a hash of their text, not by
//! a unique index over it. An index of schema 12 (the ids as text, the sets' unique indexes) is
//! refused by readers and migrated in place by the next sync (PostgreSQL only moves its
//! number: `index_schema12`'s test of it covers every older version), and answers the same as
//! the fresh schema-13 index it was made from: search by a whole id, id prefixes of an odd and
//! an even length, ids that are not lowercase hex, party, template and mixed queries, their
//! counts, History's pages, `index show` and bodies by id; later syncs find the sets it kept. Run as the real
//! binary over real HTTP against the demo.

use std::path::Path;

use cantonscope::model::format::parse_time_micros;
use cantonscope::model::index::SearchRow;
use cantonscope::model::index::read::{RangeFrom, RangeKey};
use cantonscope::store::{self, Location};

use crate::common::migrated::{answers, count, sqlite_migrates, sqlite_synced};
use crate::index::{index_args, run, sync, text};

/// An update id as its text, whether kept as bytes or as text.
const ID_TEXT: &str =
    "CASE WHEN typeof(update_id) = 'blob' THEN lower(hex(update_id)) ELSE update_id END";

/// The index as schema 12 kept it: every update id as text, the sets' tables with their unique
/// indexes and without hashes.
fn to_schema_12(index: &Path) {
    let conn = rusqlite::Connection::open(index).expect("opens");
    crate::common::migrated::times_from_1970(&conn);
    conn.execute_batch(&format!(
        "BEGIN;
         CREATE TABLE updates_v12 (seq INTEGER PRIMARY KEY, update_id TEXT NOT NULL UNIQUE,
             migration_id INTEGER NOT NULL, record_time INTEGER NOT NULL,
             action INTEGER NOT NULL, party_set INTEGER NOT NULL, digest BLOB NOT NULL,
             body BLOB, chunk INTEGER NOT NULL);
         INSERT INTO updates_v12 SELECT seq, {ID_TEXT}, migration_id, record_time, action,
             party_set, digest, body, chunk FROM updates;
         DROP TABLE updates;
         ALTER TABLE updates_v12 RENAME TO updates;
         CREATE INDEX updates_position ON updates (migration_id, record_time);
         CREATE INDEX updates_time ON updates (record_time);
         CREATE TABLE party_sets_v12 (id INTEGER PRIMARY KEY, parties TEXT NOT NULL UNIQUE);
         INSERT INTO party_sets_v12 SELECT id, parties FROM party_sets;
         DROP TABLE party_sets;
         ALTER TABLE party_sets_v12 RENAME TO party_sets;
         CREATE TABLE actions_v12 (id INTEGER PRIMARY KEY, kind TEXT NOT NULL,
             root_action TEXT NOT NULL, UNIQUE (kind, root_action));
         INSERT INTO actions_v12 SELECT id, kind, root_action FROM actions;
         DROP TABLE actions;
         ALTER TABLE actions_v12 RENAME TO actions;
         UPDATE meta SET value = '12' WHERE key = 'schema_version';
         COMMIT;"
    ))
    .expect("schema 12");
}

/// How the index keeps its update ids: (as bytes, as text).
fn kept_as(index: &Path) -> (i64, i64) {
    let conn = rusqlite::Connection::open(index).expect("opens");
    conn.query_row(
        "SELECT count(*) FILTER (WHERE typeof(update_id) = 'blob'),
                count(*) FILTER (WHERE typeof(update_id) = 'text') FROM updates",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .expect("counts")
}

/// The party sets and actions of the index, and how many distinct texts they have.
fn sets(index: &Path) -> [i64; 4] {
    let conn = rusqlite::Connection::open(index).expect("opens");
    conn.query_row(
        "SELECT (SELECT count(*) FROM party_sets), (SELECT count(DISTINCT parties) FROM party_sets),
                (SELECT count(*) FROM actions),
                (SELECT count(*) FROM (SELECT DISTINCT kind, root_action FROM actions))",
        [],
        |r| Ok([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?]),
    )
    .expect("counts")
}

/// Gives the two oldest updates ids that are not lowercase hex (ids of another form, as a
/// network may have): the first `X` and its hex, the second its hex in capitals. Their ids.
fn rename_two(index: &Path) -> (String, String) {
    let conn = rusqlite::Connection::open(index).expect("opens");
    conn.execute_batch(&format!(
        "UPDATE updates SET update_id = 'X' || {ID_TEXT} WHERE seq = (SELECT min(seq) FROM updates);
         UPDATE updates SET update_id = upper({ID_TEXT})
             WHERE seq = (SELECT min(seq) FROM updates WHERE typeof(update_id) = 'blob');"
    ))
    .expect("renamed");
    let id = |n: i64| -> String {
        conn.query_row(
            &format!("SELECT {ID_TEXT} FROM updates ORDER BY seq LIMIT 1 OFFSET ?1"),
            [n],
            |r| r.get(0),
        )
        .expect("an id")
    };
    (id(0), id(1))
}

/// The searches asked of both layouts: a whole id, id prefixes of 9 and 10 characters and of
/// the ids that are not lowercase hex, the busiest party and template, both, a party with a
/// kind. And the ids `index show` is asked for.
fn words(conn: &rusqlite::Connection, odd: &[&str]) -> (Vec<String>, Vec<String>) {
    let top = |kind: i64| -> String {
        conn.query_row(
            "SELECT value FROM terms WHERE kind = ?1 ORDER BY n DESC, id LIMIT 1",
            [kind],
            |r| r.get(0),
        )
        .expect("a term")
    };
    let hex: String = conn
        .query_row(
            &format!(
                "SELECT {ID_TEXT} FROM updates WHERE typeof(update_id) = 'blob'
                 ORDER BY seq DESC LIMIT 1"
            ),
            [],
            |r| r.get(0),
        )
        .expect("an update");
    let (party, template) = (top(1), top(2));
    let words = vec![
        format!("id:{hex}"),
        format!("id:{}", &hex[..9]),
        format!("id:{}", &hex[..10]),
        format!("id:{}", &odd[0][..9]),
        format!("id:{}", &odd[1][..10]),
        format!("party:{party}"),
        format!("template:{template}"),
        format!("party:{party} template:{template}"),
        format!("party:{party} is:transfer"),
        "id:zzzzzzzz".to_owned(),
    ];
    (words, vec![hex, odd[0].to_owned(), odd[1].to_owned()])
}

/// What `index show` prints of the first of `ids` (it takes ids of the hex form only), and the
/// store's body of each.
fn shown(dir: &Path, index: &str, ids: &[String]) -> (String, Vec<Option<String>>) {
    let output = run(
        dir,
        "http://127.0.0.1:9",
        &[&index_args(index, "show")[..], &[ids[0].as_str()]].concat(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let mut store = store::open_reader(&Location::Sqlite(index.into())).expect("index opens");
    let bodies = ids
        .iter()
        .map(|id| store.body(id).expect("a body read"))
        .collect();
    (text(&output.stdout), bodies)
}

/// Where a page after (or before) `row` starts.
fn key_of(row: &SearchRow) -> RangeKey {
    RangeKey {
        migration_id: row.migration_id,
        record_time: parse_time_micros(&row.record_time).expect("a time"),
        update_id: row.update_id.clone(),
    }
}

/// History's whole list read from the index, and read in pages of 40 after each other, and
/// the kept digests.
fn reads(location: &Location) -> (Vec<SearchRow>, Vec<(String, String)>) {
    let mut store = store::open_reader(location).expect("index opens");
    let all = store
        .range_rows(0, &RangeFrom::Offset(0), 1_000_000)
        .expect("the whole list");
    let mut paged = store
        .range_rows(0, &RangeFrom::Offset(0), 40)
        .expect("a first page");
    while paged.len() < all.len()
        && let Some(last) = paged.last()
    {
        let next = store
            .range_rows(0, &RangeFrom::After(key_of(last)), 40)
            .expect("the next page");
        if next.is_empty() {
            break;
        }
        paged.extend(next);
    }
    assert_eq!(paged, all, "the pages after each other make the whole list");
    (all, store.digests().expect("digests"))
}

#[test]
fn an_index_of_schema_12_is_migrated_in_place_and_answers_the_same() {
    let (url, dir, index, shown_path) = sqlite_synced();
    let location = Location::Sqlite(index.clone());
    let (bytes, texts) = kept_as(&index);
    assert!(
        bytes > 100 && texts == 0,
        "every demo id is hex: {bytes} {texts}"
    );
    let odd = rename_two(&index);
    assert!(odd.0.starts_with('X') && odd.1.chars().any(|c| c.is_ascii_uppercase()));
    let (words, ids) = words(
        &rusqlite::Connection::open(&index).expect("opens"),
        &[&odd.0, &odd.1],
    );
    let before = answers(dir.path(), &shown_path, &words);
    for word in &words[..9] {
        assert!(count(&before, word) >= 1, "{word}: {before:?}");
    }
    assert_eq!(count(&before, &words[0]), 1, "a whole id is one update");
    assert_eq!(count(&before, &words[3]), 1, "the X id");
    assert_eq!(count(&before, &words[4]), 1, "the id in capitals");
    assert_eq!(count(&before, &words[9]), 0);
    let show = shown(dir.path(), &shown_path, &ids);
    assert!(
        show.1.iter().all(Option::is_some),
        "each body found by its id"
    );
    let read = reads(&location);
    let kept_sets = sets(&index);
    to_schema_12(&index);
    assert_eq!(kept_as(&index), (0, bytes));
    sqlite_migrates(
        dir.path(),
        url,
        &shown_path,
        12,
        (&words[5], "1", "the update ids kept as bytes"),
    );
    assert_eq!(kept_as(&index), (bytes - 2, 2));
    assert_eq!(sets(&index), kept_sets);
    let conn = rusqlite::Connection::open(&index).expect("opens");
    let unique: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index'
             AND tbl_name IN ('party_sets', 'actions') AND name LIKE 'sqlite_autoindex%'",
            [],
            |r| r.get(0),
        )
        .expect("indexes");
    assert_eq!(unique, 0, "the sets' texts are not kept twice");
    assert_eq!(answers(dir.path(), &shown_path, &words), before);
    assert_eq!(shown(dir.path(), &shown_path, &ids), show);
    assert_eq!(reads(&location), read);
    // A later sync (past the hour) finds the sets the migrated index keeps: each set once.
    let (code, _, err) = sync(dir.path(), url, &shown_path, &["--verify", "1"]);
    assert_eq!(code, 0, "{err}");
    let [party_sets, distinct_parties, actions, distinct_actions] = sets(&index);
    assert!(party_sets >= kept_sets[0] && actions >= kept_sets[2]);
    assert_eq!(
        (party_sets, actions),
        (distinct_parties, distinct_actions),
        "each set kept once"
    );
    assert!(
        kept_as(&index).0 > bytes,
        "the later sync's ids kept as bytes"
    );
}
