//! Schema 13: an update's id in the SQLite `updates` table kept as the bytes its hex spells
//! when it is lowercase hex of an even length (every id a participant makes: 34 bytes, not 68
//! characters, in the row and again in the id's unique index), any other id as its text, the
//! encoding of the contract ids among the terms ([`super::term_values`]). Every statement that
//! binds an id binds [`stored`], every read of the column reads it with [`read`] (the id handed
//! on is the text it was), and a prefix is found in both runs of the column's order
//! ([`prefix_bounds`]). History's list, which merges the updates with the verdict-only events
//! (their ids text) in one order, compares the updates' ids as text ([`TEXT`]).
//!
//! Schema 17 finds an id by an index of its first 6 bytes ([`HEAD`]) and its last 2
//! ([`TAIL`]), `updates_id_head`, the whole id compared on the rows it finds ([`is`]), where
//! schema 13 to 16 kept a unique index of the whole id (34 bytes an id, and its table's key).
//! Six bytes of hash (four after the `1220`, two at the end) tell apart all but one pair of ids
//! in 2⁴⁸: a look-up reads one row.
//! The writer looks up each page's ids before it inserts them (the sync is the one writer), so
//! the constraint went with the index; [`MIGRATE_16_TO_17`] rebuilds the table without it. The
//! index keeps the ids' order as far as their 6 bytes: a prefix is read in that order, the
//! rows of an equal head checked one by one.

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

/// The head of an update id an index of the `updates` table keeps (`updates_id_head`): its
/// first 6 bytes when kept as bytes (the `1220` of a multihash and 4 bytes of the hash), its
/// first 6 characters when kept as text. `{}` is the column or parameter.
pub(super) const HEAD: &str = "substr({}, 1, 6)";

/// The tail of an update id the same index keeps after its head: its last 2 bytes (or
/// characters). Ids that share their head (as the bench's copies of one id do: their first
/// 26 bytes) are told apart by it, so a look-up reads one row, not every id of the head.
pub(super) const TAIL: &str = "substr({}, -2)";

/// The condition that `column` is the update id bound at `param` (its stored form), in a form
/// SQLite finds through the heads' index: the heads equal and the whole ids. The whole ids
/// are compared as `+column`: SQLite 3.40 (the `sqlite3` shell of Debian 12) would otherwise
/// put `param` for `column` in the heads' term (its propagation of constants) and scan the
/// table; the bundled SQLite does not, and the `+` changes nothing for it.
pub(super) fn is(column: &str, param: &str) -> String {
    format!(
        "{} = {} AND {} = {} AND +{column} = {param}",
        HEAD.replace("{}", column),
        HEAD.replace("{}", param),
        TAIL.replace("{}", column),
        TAIL.replace("{}", param)
    )
}

/// The heads' index, as schema 17 makes it (and every rebuild of the table after it).
macro_rules! head_index {
    () => {
        "CREATE INDEX IF NOT EXISTS updates_id_head
    ON updates (substr(update_id, 1, 6), substr(update_id, -2));
"
    };
}
pub(super) use head_index;

/// Schema 16 → 17: the updates table rebuilt without the unique constraint on its id (and the
/// index SQLite kept for it), in `seq` order, its indexes made again with the heads' index.
pub(super) const MIGRATE_16_TO_17: &str = concat!(
    "CREATE TABLE updates_v17 ",
    super::row_sets::updates_columns!(),
    "INSERT INTO updates_v17
        (seq, update_id, migration_id, record_time, action, party_set, digest, body, chunk)
    SELECT seq, update_id, migration_id, record_time, action, party_set, digest, body, chunk
    FROM updates ORDER BY seq;
DROP TABLE updates;
ALTER TABLE updates_v17 RENAME TO updates;
CREATE INDEX updates_position ON updates (migration_id, record_time);
CREATE INDEX updates_time ON updates (record_time);
",
    head_index!()
);

/// Runs [`MIGRATE_16_TO_17`] on an updates table with the unique constraint (schema 16 and
/// before); a table an earlier step of the same migration rebuilt already (11 → 12, 12 → 13,
/// whose tables have no such constraint since) only gets the heads' index. Whether the table was rebuilt here.
pub(super) fn migrate_16_to_17(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<bool> {
    let unique: i64 = tx.query_row(
        "SELECT count(*) FROM sqlite_master
         WHERE type = 'index' AND tbl_name = 'updates' AND name LIKE 'sqlite_autoindex%'",
        [],
        |r| r.get(0),
    )?;
    tx.execute_batch(if unique > 0 {
        MIGRATE_16_TO_17
    } else {
        head_index!()
    })?;
    Ok(unique > 0)
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
",
    head_index!()
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

    #[test]
    fn an_id_is_found_among_ids_of_the_same_head_and_not_by_its_head_alone() {
        let conn = rusqlite::Connection::open_in_memory().expect("opens");
        conn.execute_batch(concat!(
            "CREATE TABLE updates ",
            super::super::row_sets::updates_columns!(),
            head_index!()
        ))
        .expect("schema 17 updates");
        // Eight bytes alike (the head is 6), then apart; two of the same head and tail; text
        // ids of the same head.
        let ids = [
            "1220aabbccdd77ff01",
            "1220aabbccddeeff01",
            "1220aabbccddeeff02",
            "1220aabbccddeeff",
            "1220aabbccddeeff0102",
            "#1:aabbccdd",
            "#1:aabbccxx",
        ];
        for (seq, id) in (0_i64..).zip(ids) {
            conn.execute(
                "INSERT INTO updates VALUES (?1, ?2, 0, ?1, 1, 1, x'00', NULL, 1)",
                rusqlite::params![seq, stored(id)],
            )
            .expect("a row");
        }
        for (seq, id) in (0_i64..).zip(ids) {
            let found: Vec<i64> = conn
                .prepare(&format!(
                    "SELECT seq FROM updates WHERE {}",
                    is("update_id", "?1")
                ))
                .and_then(|mut s| {
                    s.query_map([stored(id)], |r| r.get(0))?
                        .collect::<rusqlite::Result<_>>()
                })
                .expect("found");
            assert_eq!(found, [seq], "{id}");
        }
        let none: i64 = conn
            .query_row(
                &format!(
                    "SELECT count(*) FROM updates WHERE {}",
                    is("update_id", "?1")
                ),
                [stored("1220aabbccddeeff03")],
                |r| r.get(0),
            )
            .expect("counted");
        assert_eq!(none, 0);
    }
}
