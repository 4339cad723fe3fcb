//! Schema 11 (issue 39's disk figure): SQLite keeps the contract ids among the search terms as
//! the bytes their hex spells (half the text's size). An index of schema 10 (contract ids as
//! text) is refused by readers and migrated in place by the next sync, on SQLite and on
//! PostgreSQL (whose layout is unchanged), and answers the same after: whole contract ids,
//! their prefixes (of an even and an odd length), parties and templates. Run as the real
//! binary over real HTTP against the demo.

use cantonscope::store;
use std::path::Path;

use crate::common::migrated::{
    answers, count, postgres_migrates, postgres_synced, sqlite_migrates, sqlite_synced,
};

/// A term's text whether kept as text or (a schema-11 contract id) as bytes.
const TEXT: &str = "CASE WHEN typeof(value) = 'blob' THEN lower(hex(value)) ELSE value END";

/// The terms table as schema 10 kept it: every value as text.
fn to_schema_10(index: &Path) {
    let conn = rusqlite::Connection::open(index).expect("opens");
    crate::common::migrated::times_from_1970(&conn);
    conn.execute_batch(&format!(
        "BEGIN;
         CREATE TABLE terms_v10 (kind INTEGER NOT NULL, value TEXT NOT NULL, id INTEGER NOT NULL,
             n INTEGER NOT NULL, last_migration INTEGER, last_time INTEGER, last_seq INTEGER,
             PRIMARY KEY (kind, value)) WITHOUT ROWID;
         INSERT INTO terms_v10 SELECT kind, {TEXT}, id, n, last_migration, last_time, last_seq
             FROM terms;
         DROP TABLE terms;
         ALTER TABLE terms_v10 RENAME TO terms;
         UPDATE meta SET value = '10' WHERE key = 'schema_version';
         COMMIT;"
    ))
    .expect("schema 10");
}

/// How many contract-id terms the SQLite index keeps as bytes, and how many in all.
fn packed(index: &Path) -> (i64, i64) {
    let conn = rusqlite::Connection::open(index).expect("opens");
    conn.query_row(
        "SELECT count(*) FILTER (WHERE typeof(value) = 'blob'), count(*) FROM terms WHERE kind = 4",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .expect("counts")
}

/// The search words asked of both layouts: the busiest contract's whole id, prefixes of it of
/// 8, 5 and 4 characters, a prefix that is not hex, the busiest party and template.
fn words(conn: &rusqlite::Connection) -> Vec<String> {
    let top = |kind: i64| -> String {
        conn.query_row(
            &format!("SELECT {TEXT} FROM terms WHERE kind = ?1 ORDER BY n DESC, id LIMIT 1"),
            [kind],
            |r| r.get(0),
        )
        .expect("a term")
    };
    let contract = top(4);
    let party = top(1);
    let template = top(2);
    vec![
        format!("contract:{contract}"),
        format!("contract:{}", &contract[..8]),
        format!("contract:{}", &contract[..5]),
        format!("contract:{}", &contract[..4]),
        "contract:zzzz".to_owned(),
        format!("party:{party}"),
        format!("template:{template}"),
        format!("contract:{} party:{party}", &contract[..6]),
    ]
}

#[test]
fn an_index_of_schema_10_is_migrated_in_place_and_answers_the_same() {
    let (url, dir, index, shown) = sqlite_synced();
    let (bytes, all) = packed(&index);
    assert!(all > 10, "{all} contract ids");
    assert_eq!(bytes, all, "every demo contract id is hex, kept as bytes");
    let words = words(&rusqlite::Connection::open(&index).expect("opens"));
    let before = answers(dir.path(), &shown, &words);
    assert!(count(&before, &words[0]) >= 1, "{before:?}");
    assert!(
        count(&before, &words[3]) >= count(&before, &words[1]),
        "{before:?}"
    );
    assert_eq!(count(&before, "contract:zzzz"), 0);
    to_schema_10(&index);
    assert_eq!(packed(&index), (0, all));
    // Readers refuse it; the next writer migrates it.
    sqlite_migrates(
        dir.path(),
        url,
        &shown,
        10,
        (
            &words[0],
            "1",
            "contract ids of the search terms kept as bytes",
        ),
    );
    assert_eq!(packed(&index), (all, all));
    assert_eq!(answers(dir.path(), &shown, &words), before);
}

#[test]
fn a_postgres_index_of_schema_10_is_migrated_and_answers_the_same() {
    let Some((db, _server, url, dir)) = postgres_synced("schema10", "1") else {
        return;
    };
    let mut pg = postgres::Client::connect(&db.url, postgres::NoTls).expect("connects");
    let top = |pg: &mut postgres::Client, kind: i64| -> String {
        pg.query_one(
            &format!(
                "SELECT {} FROM terms WHERE kind = $1 ORDER BY id LIMIT 1",
                store::postgres_term_text_sql("")
            ),
            &[&kind],
        )
        .expect("a term")
        .get(0)
    };
    let (contract, party) = (top(&mut pg, 4), top(&mut pg, 1));
    let words = vec![
        format!("contract:{contract}"),
        format!("contract:{}", &contract[..5]),
        format!("party:{party}"),
    ];
    let before = answers(dir.path(), &db.url, &words);
    assert!(count(&before, &words[0]) >= 1, "{before:?}");
    pg.batch_execute("UPDATE meta SET value = '10' WHERE key = 'schema_version'")
        .expect("schema 10");
    postgres_migrates(dir.path(), url, &db, 10);
    assert_eq!(answers(dir.path(), &db.url, &words), before);
}
