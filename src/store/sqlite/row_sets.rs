//! Schema 12: what many updates share, kept once. An update's parties (the sorted, distinct
//! set as JSON) are a row of `party_sets` and its kind and root action a row of `actions`;
//! the update keeps their ids (a byte or two each, where the text had been 190 and 45 bytes an
//! update on the 1 M bench index: the demo's updates have a few hundred distinct sets). The
//! reads join them back by primary key ([`ROWS_FROM`]); the writer finds or adds a page's sets
//! once each ([`RowSets`]); the 11 → 12 migration rebuilds the updates table
//! ([`MIGRATE_11_TO_12`]). A set no update has any more (after `index prune`) is kept: a few
//! rows.
//!
//! Schema 13 finds a set by a hash of its text ([`set_hash`], in a column with an index of its
//! own that allows duplicates), its text compared too, instead of a UNIQUE index over the text
//! (which kept every text a second time: 59 and 16 MB at 1 M updates of the bench index). Two
//! sets of the same hash are two rows, each found by its text ([`MIGRATE_12_TO_13`] hashes the
//! sets of an index of schema 12).
//!
//! Schema 19 keeps a party set as its parties' numbers, not its JSON ([`super::party_names`]):
//! the writer numbers a new set's parties as it adds the set, and the reads name them.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Transaction};

use super::set_hash::{bytes_hash, set_hash};
use crate::model::index::IndexRow;

/// The updates table's columns, as schema 12 made them (`action` and `party_set` the ids of
/// their [`SETS`] rows); schema 13 keeps most update ids as bytes in the same column (its TEXT
/// affinity leaves a BLOB as it is: [`super::update_ids`]); schema 17 drops the id's unique
/// constraint (the id found by an index of its head: [`super::update_ids::HEAD`]).
macro_rules! updates_columns {
    () => {
        "(
    seq INTEGER PRIMARY KEY,
    update_id TEXT NOT NULL,
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

/// The keys table's columns and key, as schema 2 made them and the 1 → 2 and 17 → 18
/// migrations build them (a schema that changes them gives those migrations their own copy).
macro_rules! keys_columns {
    () => {
        "(
    term INTEGER NOT NULL,
    migration_id INTEGER NOT NULL,
    record_time INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (term, migration_id, record_time, seq)
) WITHOUT ROWID;
"
    };
}
pub(super) use keys_columns;

/// The tables of the sets the updates share as schema 12 made them (the 11 → 12 migration
/// makes them so, the 12 → 13 one hashes them).
macro_rules! sets_tables_12 {
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

/// The tables of the sets the updates share, as schema 13 keeps them: each set found by the
/// [`set_hash`] of its text (not unique), for a writer's open.
pub(super) const SETS: &str = "
CREATE TABLE IF NOT EXISTS party_sets (
    id INTEGER PRIMARY KEY,
    hash INTEGER NOT NULL,
    parties TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS party_sets_hash ON party_sets (hash);
CREATE TABLE IF NOT EXISTS actions (
    id INTEGER PRIMARY KEY,
    hash INTEGER NOT NULL,
    kind TEXT NOT NULL,
    root_action TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS actions_hash ON actions (hash);
";

/// The updates with their kind and root action (the columns of the same names), for a read's
/// `FROM`: the updates drive (a `CROSS JOIN` keeps SQLite from reordering), each row's action
/// found by primary key. Its party set (`party_set`) is named by the reader's copy of the sets
/// ([`super::row_cache`]), as schema 19 keeps a set as its parties' numbers.
pub(super) const ROWS_FROM: &str = "updates
    CROSS JOIN actions ON actions.id = updates.action";

/// Schema 11 → 12: the sets of the kept updates made (in the order they are first met), the
/// updates table rebuilt with their ids in place of the texts (in `seq` order, its indexes
/// made again), in the migration's transaction; the update ids packed as schema 13 keeps them
/// ([`super::update_ids`]: the migration goes on to 13 in the same transaction, and this
/// rebuild spares it the 12 → 13 one).
pub(super) const MIGRATE_11_TO_12: &str = concat!(
    sets_tables_12!(),
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
    names: super::party_names::Names<'a>,
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
            let id = action_id(tx, set_hash(&[action_key.0, action_key.1]), action_key)?;
            self.actions.insert(action_key, id);
            id
        };
        let party_set = if let Some(id) = self.parties.get(row.parties.as_slice()) {
            *id
        } else {
            let set = self.names.set_of(tx, &row.parties)?;
            let id = party_set_id(tx, bytes_hash(&set), set.as_slice())?;
            self.parties.insert(row.parties.as_slice(), id);
            id
        };
        Ok((action, party_set))
    }
}

/// The id of the party set `parties` (its kept form: its JSON before schema 19, its parties'
/// numbers since) of hash `hash` ([`set_hash`], [`bytes_hash`]), added when new.
fn party_set_id<T: rusqlite::ToSql + ?Sized>(
    tx: &Transaction<'_>,
    hash: i64,
    parties: &T,
) -> rusqlite::Result<i64> {
    find_or_add(
        tx,
        "SELECT id FROM party_sets WHERE hash = ?1 AND parties = ?2",
        "INSERT INTO party_sets (hash, parties) VALUES (?1, ?2)",
        rusqlite::params![hash, parties],
    )
}

/// The id of the (kind, root action) `action` of hash `hash` ([`set_hash`]), added when new.
fn action_id(tx: &Transaction<'_>, hash: i64, action: (&str, &str)) -> rusqlite::Result<i64> {
    find_or_add(
        tx,
        "SELECT id FROM actions WHERE hash = ?1 AND kind = ?2 AND root_action = ?3",
        "INSERT INTO actions (hash, kind, root_action) VALUES (?1, ?2, ?3)",
        rusqlite::params![hash, action.0, action.1],
    )
}

/// Schema 12 → 13: the sets' tables made again without their UNIQUE indexes, each row (its
/// id kept) with its [`set_hash`]; tables already of the new layout (as the tests' older
/// schemas keep them) are left as they are.
pub(super) fn migrate_12_to_13(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    let hashed: i64 = tx.query_row(
        "SELECT count(*) FROM pragma_table_info('party_sets') WHERE name = 'hash'",
        [],
        |r| r.get(0),
    )?;
    if hashed > 0 {
        return Ok(());
    }
    tx.execute_batch(
        "ALTER TABLE party_sets RENAME TO party_sets_v12;
         ALTER TABLE actions RENAME TO actions_v12;",
    )?;
    tx.execute_batch(SETS)?;
    {
        let mut read = tx.prepare("SELECT id, parties FROM party_sets_v12 ORDER BY id")?;
        let mut write =
            tx.prepare("INSERT INTO party_sets (id, hash, parties) VALUES (?1, ?2, ?3)")?;
        let mut rows = read.query([])?;
        while let Some(r) = rows.next()? {
            let (id, parties): (i64, String) = (r.get(0)?, r.get(1)?);
            write.execute(rusqlite::params![id, set_hash(&[&parties]), parties])?;
        }
        let mut read = tx.prepare("SELECT id, kind, root_action FROM actions_v12 ORDER BY id")?;
        let mut write = tx
            .prepare("INSERT INTO actions (id, hash, kind, root_action) VALUES (?1, ?2, ?3, ?4)")?;
        let mut rows = read.query([])?;
        while let Some(r) = rows.next()? {
            let (id, kind, root): (i64, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
            write.execute(rusqlite::params![id, set_hash(&[&kind, &root]), kind, root])?;
        }
    }
    tx.execute_batch("DROP TABLE party_sets_v12; DROP TABLE actions_v12;")
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
        // Both sets joined back (schema 19's reads name a party set's parties in the reader).
        let joined =
            format!("{ROWS_FROM} CROSS JOIN party_sets ON party_sets.id = updates.party_set");
        assert_eq!(rows(&conn, &joined), before);
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
        // The id's index (schema 17's, of its head) is made by the 16 → 17 step.
        assert_eq!(indexes, 2, "the position's and the time's");
    }

    #[test]
    fn sets_of_the_same_hash_are_each_found_by_their_text() {
        let mut conn = rusqlite::Connection::open_in_memory().expect("opens");
        conn.execute_batch(SETS).expect("tables");
        let tx = conn.transaction().expect("tx");
        // Forced collisions: every set given the hash 7.
        let alice = party_set_id(&tx, 7, "[\"alice\"]").expect("adds");
        let bob = party_set_id(&tx, 7, "[\"bob\"]").expect("adds");
        assert_ne!(alice, bob);
        assert_eq!(party_set_id(&tx, 7, "[\"bob\"]").expect("finds"), bob);
        assert_eq!(party_set_id(&tx, 7, "[\"alice\"]").expect("finds"), alice);
        let transfer = action_id(&tx, 7, ("transaction", "Transfer")).expect("adds");
        let other = action_id(&tx, 7, ("reassignment", "Transfer")).expect("adds");
        assert_ne!(transfer, other);
        assert_eq!(
            action_id(&tx, 7, ("transaction", "Transfer")).expect("finds"),
            transfer
        );
        assert_eq!(
            action_id(&tx, 7, ("reassignment", "Transfer")).expect("finds"),
            other
        );
        let count = |table: &str| -> i64 {
            tx.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
                .expect("counts")
        };
        assert_eq!((count("party_sets"), count("actions")), (2, 2));
    }

    #[test]
    fn the_12_to_13_migration_hashes_every_set_keeping_its_id() {
        let mut conn = rusqlite::Connection::open_in_memory().expect("opens");
        conn.execute_batch(concat!(
            sets_tables_12!(),
            "INSERT INTO party_sets (id, parties) VALUES (3, '[\"alice\"]'), (9, '[\"bob\"]');
             INSERT INTO actions (id, kind, root_action) VALUES (2, 'transaction', 'Transfer');"
        ))
        .expect("schema 12 sets");
        let tx = conn.transaction().expect("tx");
        migrate_12_to_13(&tx).expect("migrates");
        assert_eq!(
            party_set_id(&tx, set_hash(&["[\"bob\"]"]), "[\"bob\"]").expect("finds"),
            9
        );
        assert_eq!(
            party_set_id(&tx, set_hash(&["[\"alice\"]"]), "[\"alice\"]").expect("finds"),
            3
        );
        assert_eq!(
            action_id(
                &tx,
                set_hash(&["transaction", "Transfer"]),
                ("transaction", "Transfer")
            )
            .expect("finds"),
            2
        );
        let unique: i64 = tx
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'index'
                 AND tbl_name IN ('party_sets', 'actions') AND name LIKE 'sqlite_autoindex%'",
                [],
                |r| r.get(0),
            )
            .expect("indexes");
        assert_eq!(unique, 0, "no index keeps the texts a second time");
        // Run again (an index already of the new layout): nothing changes.
        migrate_12_to_13(&tx).expect("again");
        let n: i64 = tx
            .query_row("SELECT count(*) FROM party_sets", [], |r| r.get(0))
            .expect("counts");
        assert_eq!(n, 2);
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
