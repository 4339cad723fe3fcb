//! Schema 13: an update's id in the SQLite `updates` table kept as the bytes its hex spells
//! when it is lowercase hex of an even length (every id a participant makes: 34 bytes, not 68
//! characters, in the row and again in the id's unique index), any other id as its text, the
//! encoding of the contract ids among the terms ([`super::term_values`]). Every statement that
//! binds an id binds [`stored`], every read of the column reads it with [`read`] (the id handed
//! on is the text it was), and a prefix is found in both runs of the column's order
//! ([`prefix_bounds`]). History's list, which merges the updates with the verdict-only events
//! (their ids text) in one order, compares the updates' ids as text ([`TEXT`]).

use rusqlite::Row;
use rusqlite::types::{FromSql, FromSqlResult, ToSqlOutput, Value, ValueRef};

/// The stored form of the update id `id`.
pub(super) fn stored(id: &str) -> ToSqlOutput<'_> {
    super::term_values::packed(id)
}

/// The update id of column `i` of `row`, as its text.
pub(super) fn read(row: &Row<'_>, i: usize) -> rusqlite::Result<String> {
    row.get::<_, UpdateId>(i).map(|id| id.0)
}

/// An update id read back from its stored form.
pub(super) struct UpdateId(pub String);

impl FromSql for UpdateId {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        super::term_values::text(value).map(|text| UpdateId(text.into_owned()))
    }
}

/// The updates' id as its text, in SQL: where the list's order compares it with the
/// verdict-only events' ids (text) and with a bound given as text.
pub(super) const TEXT: &str =
    "CASE WHEN typeof(update_id) = 'blob' THEN lower(hex(update_id)) ELSE update_id END";

/// Where the update ids that start with `prefix` begin in each run of the column's order: the
/// text run from `prefix`, the bytes run (none when the prefix is not lowercase hex) from its
/// bytes ([`super::term_values::hex_prefix_bounds`]).
pub(super) fn prefix_bounds(prefix: &str) -> (Value, Option<Value>) {
    super::term_values::hex_prefix_bounds(prefix)
}

/// Schema 12 → 13: the updates table rebuilt with each id in its stored form (in `seq` order,
/// its indexes made again), in the migration's transaction. An index migrated from schema 11
/// has its ids packed by the 11 → 12 rebuild ([`super::row_sets::MIGRATE_11_TO_12`]) and skips
/// this one.
pub(super) const MIGRATE_12_TO_13: &str = concat!(
    "CREATE TABLE updates_v13 ",
    super::row_sets::updates_columns!(),
    "INSERT INTO updates_v13
        (seq, update_id, migration_id, record_time, action, party_set, digest, body, chunk)
    SELECT seq, ",
    super::term_values::packed_sql!("update_id"),
    ", migration_id, record_time, action, party_set, digest, body, chunk
    FROM updates ORDER BY seq;
DROP TABLE updates;
ALTER TABLE updates_v13 RENAME TO updates;
CREATE INDEX updates_position ON updates (migration_id, record_time);
CREATE INDEX updates_time ON updates (record_time);
"
);

#[cfg(test)]
mod tests {
    use super::*;

    /// The ids the tests store: hex of even length (packed), and others kept as text.
    const IDS: [&str; 6] = ["1220ab", "1220ab01", "1220AB", "1220a", "#1:0", "1220abff"];

    fn table() -> rusqlite::Connection {
        let conn = rusqlite::Connection::open_in_memory().expect("opens");
        conn.execute_batch(
            "CREATE TABLE updates (seq INTEGER PRIMARY KEY, update_id TEXT NOT NULL UNIQUE)",
        )
        .expect("table");
        for (seq, id) in (0_i64..).zip(IDS) {
            conn.execute(
                "INSERT INTO updates VALUES (?1, ?2)",
                rusqlite::params![seq, stored(id)],
            )
            .expect("inserts");
        }
        conn
    }

    #[test]
    fn every_id_reads_back_as_its_text_and_is_found_by_it() {
        let conn = table();
        let kinds: Vec<String> = conn
            .prepare("SELECT typeof(update_id) FROM updates ORDER BY seq")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .expect("types");
        assert_eq!(kinds, ["blob", "blob", "text", "text", "text", "blob"]);
        for (seq, id) in (0_i64..).zip(IDS) {
            let (found, back, text): (i64, String, String) = conn
                .query_row(
                    &format!("SELECT seq, update_id, {TEXT} FROM updates WHERE update_id = ?1"),
                    [stored(id)],
                    |r| Ok((r.get(0)?, read(r, 1)?, r.get(2)?)),
                )
                .expect("found by its stored form");
            assert_eq!((found, back.as_str(), text.as_str()), (seq, id, id));
        }
    }

    #[test]
    fn the_migration_packs_as_the_writer_does() {
        let conn = rusqlite::Connection::open_in_memory().expect("opens");
        conn.execute_batch(concat!(
            "CREATE TABLE updates ",
            super::super::row_sets::updates_columns!()
        ))
        .expect("schema 12 updates");
        for (seq, id) in (0_i64..).zip(IDS) {
            conn.execute(
                "INSERT INTO updates VALUES (?1, ?2, 0, ?1, 1, 1, x'00', NULL, 1)",
                rusqlite::params![seq, id],
            )
            .expect("a schema-12 row");
        }
        conn.execute_batch(MIGRATE_12_TO_13).expect("migrates");
        for (seq, id) in (0_i64..).zip(IDS) {
            let found: i64 = conn
                .query_row(
                    "SELECT seq FROM updates WHERE update_id = ?1",
                    [stored(id)],
                    |r| r.get(0),
                )
                .expect("found by its stored form");
            assert_eq!(found, seq, "{id}");
        }
    }
}
