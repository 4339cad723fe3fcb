//! Schema 12: what many updates share, kept once. An update's parties (the sorted, distinct
//! set as JSON) are a row of `party_sets` and its kind and root action a row of `actions`;
//! the update keeps their ids (a byte or two each, where the text had been 190 and 45 bytes an
//! update on the 1 M bench index: the demo's updates have a few hundred distinct sets). The
//! reads join them back by primary key ([`ROWS_FROM`]); the writer finds or adds a page's sets
//! once each ([`RowSets`]); the 11 → 12 migration rebuilds the updates table
//! ([`MIGRATE_11_TO_12`]). A set no update has any more (after `index prune`) is kept: a few
//! rows.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Transaction};

use crate::model::index::IndexRow;

/// The updates table's columns, as schema 12 made them (`action` and `party_set` the ids of
/// their [`SETS`] rows).
macro_rules! updates_columns {
    () => {
        "(
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
"
    };
}
pub(super) use updates_columns;

/// The tables of the sets the updates share (made by a writer's open and the 11 → 12
/// migration).
macro_rules! sets_tables {
    () => {
        "
CREATE TABLE IF NOT EXISTS party_sets (id INTEGER PRIMARY KEY, parties TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS actions (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    root_action TEXT NOT NULL,
    UNIQUE (kind, root_action)
);
"
    };
}

/// The same tables, for a writer's open.
pub(super) const SETS: &str = sets_tables!();

/// The updates with their kind, root action and parties (the columns of the same names), for
/// a read's `FROM`: the updates drive (a `CROSS JOIN` keeps SQLite from reordering), each
/// row's sets found by primary key.
pub(super) const ROWS_FROM: &str = "updates
    CROSS JOIN actions ON actions.id = updates.action
    CROSS JOIN party_sets ON party_sets.id = updates.party_set";

/// Schema 11 → 12: the sets of the kept updates made (in the order they are first met), the
/// updates table rebuilt with their ids in place of the texts (in `seq` order, its indexes
/// made again), in the migration's transaction; the update ids packed as schema 13 keeps them
/// ([`super::update_ids`]: the migration goes on to 13 in the same transaction, and this
/// rebuild spares it the 12 → 13 one).
pub(super) const MIGRATE_11_TO_12: &str = concat!(
    sets_tables!(),
    "INSERT OR IGNORE INTO party_sets (parties) SELECT parties FROM updates ORDER BY seq;
INSERT OR IGNORE INTO actions (kind, root_action) SELECT kind, root_action FROM updates ORDER BY seq;
CREATE TABLE updates_v12 ",
    updates_columns!(),
    "INSERT INTO updates_v12
        (seq, update_id, migration_id, record_time, action, party_set, digest, body, chunk)
    SELECT u.seq, ",
    super::term_values::packed_sql!("u.update_id"),
    ", u.migration_id, u.record_time, a.id, p.id, u.digest, u.body, u.chunk
    FROM updates u
        CROSS JOIN actions a ON a.kind = u.kind AND a.root_action = u.root_action
        CROSS JOIN party_sets p ON p.parties = u.parties
    ORDER BY u.seq;
DROP TABLE updates;
ALTER TABLE updates_v12 RENAME TO updates;
CREATE INDEX updates_position ON updates (migration_id, record_time);
CREATE INDEX updates_time ON updates (record_time);
"
);

/// Runs [`MIGRATE_11_TO_12`] on an updates table of the older layout (one with a `parties`
/// column); one already of the new layout (as the tests' older schemas keep it) is left as it
/// is, its sets' tables made when missing. Whether the updates table was rebuilt.
pub(super) fn migrate_11_to_12(tx: &Transaction<'_>) -> rusqlite::Result<bool> {
    let older: i64 = tx.query_row(
        "SELECT count(*) FROM pragma_table_info('updates') WHERE name = 'parties'",
        [],
        |r| r.get(0),
    )?;
    tx.execute_batch(if older > 0 { MIGRATE_11_TO_12 } else { SETS })?;
    Ok(older > 0)
}

/// The ids of a page's sets, each found (or added) once.
#[derive(Default)]
pub(super) struct RowSets<'a> {
    parties: HashMap<&'a [String], i64, foldhash::fast::RandomState>,
    actions: HashMap<(&'a str, &'a str), i64, foldhash::fast::RandomState>,
}

impl<'a> RowSets<'a> {
    /// The ids of `row`'s action and party set (added when new).
    pub(super) fn ids(
        &mut self,
        tx: &Transaction<'_>,
        row: &'a IndexRow,
    ) -> rusqlite::Result<(i64, i64)> {
        let action_key = (row.kind.as_str(), row.root_action.as_str());
        let action = if let Some(id) = self.actions.get(&action_key) {
            *id
        } else {
            let id = find_or_add(
                tx,
                "SELECT id FROM actions WHERE kind = ?1 AND root_action = ?2",
                "INSERT INTO actions (kind, root_action) VALUES (?1, ?2)",
                [action_key.0, action_key.1],
            )?;
            self.actions.insert(action_key, id);
            id
        };
        let party_set = if let Some(id) = self.parties.get(row.parties.as_slice()) {
            *id
        } else {
            let json = serde_json::to_string(&row.parties).unwrap_or_else(|_| "[]".to_owned());
            let id = find_or_add(
                tx,
                "SELECT id FROM party_sets WHERE parties = ?1",
                "INSERT INTO party_sets (parties) VALUES (?1)",
                [json.as_str()],
            )?;
            self.parties.insert(row.parties.as_slice(), id);
            id
        };
        Ok((action, party_set))
    }
}

/// The id `find` gives of `values`, or of the row `add` makes of them.
fn find_or_add<P: rusqlite::Params + Copy>(
    tx: &Transaction<'_>,
    find: &str,
    add: &str,
    values: P,
) -> rusqlite::Result<i64> {
    if let Some(id) = tx
        .prepare_cached(find)?
        .query_row(values, |r| r.get(0))
        .optional()?
    {
        return Ok(id);
    }
    tx.prepare_cached(add)?.execute(values)?;
    Ok(tx.last_insert_rowid())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_migration_keeps_each_set_once_and_every_row_reads_back_the_same() {
        let conn = rusqlite::Connection::open_in_memory().expect("opens");
        conn.execute_batch(
            "CREATE TABLE updates (seq INTEGER PRIMARY KEY, update_id TEXT NOT NULL UNIQUE,
                 migration_id INTEGER NOT NULL, record_time INTEGER NOT NULL, kind TEXT NOT NULL,
                 root_action TEXT NOT NULL, parties TEXT NOT NULL, digest BLOB NOT NULL,
                 body BLOB, chunk INTEGER NOT NULL);
             CREATE INDEX updates_position ON updates (migration_id, record_time);
             CREATE INDEX updates_time ON updates (record_time);
             INSERT INTO updates VALUES
                 (1, 'a', 0, 10, 'transaction', 'Transfer', '[\"alice\",\"bob\"]', x'01', x'ff', 1),
                 (2, 'b', 0, 20, 'transaction', 'Transfer', '[\"alice\"]', x'02', NULL, 1),
                 (5, 'c', 1, 30, 'reassignment', 'Transfer', '[\"alice\",\"bob\"]', x'03', x'ee', 2);",
        )
        .expect("schema 11 updates");
        let before = rows(&conn, "updates");
        conn.execute_batch(MIGRATE_11_TO_12).expect("migrates");
        assert_eq!(rows(&conn, ROWS_FROM), before);
        let count = |table: &str| -> i64 {
            conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
                .expect("counts")
        };
        assert_eq!((count("party_sets"), count("actions")), (2, 2));
        let indexes: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'updates'",
                [],
                |r| r.get(0),
            )
            .expect("indexes");
        assert_eq!(indexes, 3, "the update id's, the position's and the time's");
    }

    /// Every row of `from` as the reads see it.
    fn rows(conn: &rusqlite::Connection, from: &str) -> Vec<Vec<rusqlite::types::Value>> {
        let mut stmt = conn
            .prepare(&format!(
                "SELECT seq, update_id, migration_id, record_time, kind, root_action, parties,
                        digest, body, chunk FROM {from} ORDER BY seq"
            ))
            .expect("prepares");
        stmt.query_map([], |r| (0..10).map(|i| r.get(i)).collect())
            .and_then(Iterator::collect)
            .expect("rows")
    }
}
