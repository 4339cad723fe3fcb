//! Schema 19: a party set kept as its parties' numbers. Each party's id (`name::fingerprint`,
//! 70 to 100 bytes) is a row of `party_names`, found by the [`super::set_hash::bytes_hash`] of
//! its text as the sets are; a set in `party_sets` is the LEB128 numbers of its parties, in
//! the set's order (its texts sorted), a few bytes where its JSON had been 300 on average (the
//! demo's sets; 138,536 sets of 1 M updates on the bench index, 53 bytes an update with their
//! index). The set's hash is of those bytes. `party_sets.parties` keeps its declared TEXT
//! (its affinity leaves a BLOB as it is, as [`super::update_ids`] does).
//!
//! The writer numbers a new set's parties as it adds the set ([`Names::set_of`]); a reader
//! names them back through its copy of the names ([`super::row_cache`]); the 18 → 19
//! migration rewrites every set ([`migrate_18_to_19`]). A party's number names the same text
//! for the life of the index (names are only added), so no copy goes stale.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, Transaction};

use crate::model::index::pack::{leb128, read_leb128};

/// The table of the parties' names, for a new index and the 18 → 19 migration.
pub(super) const TABLE: &str = "
CREATE TABLE IF NOT EXISTS party_names (
    id INTEGER PRIMARY KEY,
    hash INTEGER NOT NULL,
    party TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS party_names_hash ON party_names (hash);
";

/// A writer's numbers of the parties it met, each found (or added) once.
#[derive(Default)]
pub(super) struct Names<'a> {
    ids: HashMap<&'a str, i64, foldhash::fast::RandomState>,
}

impl<'a> Names<'a> {
    /// The kept form of the set `parties`: its parties' numbers (each added when new).
    pub(super) fn set_of(
        &mut self,
        tx: &Transaction<'_>,
        parties: &'a [String],
    ) -> rusqlite::Result<Vec<u8>> {
        set_bytes(parties, |party| {
            if let Some(id) = self.ids.get(party.as_str()) {
                return Ok(*id);
            }
            let id = name_id(tx, party)?;
            self.ids.insert(party, id);
            Ok(id)
        })
    }
}

/// The kept form of a set: each of `parties`' numbers (given by `number`) as LEB128, in order.
fn set_bytes<'p>(
    parties: &'p [String],
    mut number: impl FnMut(&'p String) -> rusqlite::Result<i64>,
) -> rusqlite::Result<Vec<u8>> {
    let mut set = Vec::with_capacity(parties.len() * 2);
    for party in parties {
        leb128(&mut set, number(party)?.cast_unsigned());
    }
    Ok(set)
}

/// The number of the party `party`, added when new.
fn name_id(tx: &Transaction<'_>, party: &str) -> rusqlite::Result<i64> {
    let hash = super::set_hash::bytes_hash(party.as_bytes());
    if let Some(id) = tx
        .prepare_cached("SELECT id FROM party_names WHERE hash = ?1 AND party = ?2")?
        .query_row(rusqlite::params![hash, party], |r| r.get(0))
        .optional()?
    {
        return Ok(id);
    }
    tx.prepare_cached("INSERT INTO party_names (hash, party) VALUES (?1, ?2)")?
        .execute(rusqlite::params![hash, party])?;
    Ok(tx.last_insert_rowid())
}

/// The numbers of the kept set `set`; `None` when its bytes are not a list of numbers.
pub(super) fn numbers(set: &[u8]) -> Option<Vec<i64>> {
    let mut at = 0;
    let mut out = Vec::new();
    while at < set.len() {
        out.push(read_leb128(set, &mut at)?.cast_signed());
    }
    Some(out)
}

/// The name of the party numbered `id` (an error when there is none).
pub(super) fn name(conn: &Connection, id: i64) -> rusqlite::Result<String> {
    conn.prepare_cached("SELECT party FROM party_names WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
}

/// Schema 18 → 19: the names' table made, and the sets' table made again with every set's
/// JSON as its parties' numbers and the hash of those bytes (its id kept), in the migration's
/// transaction; the old table's pages go to the file's free list, which the next syncs reuse
/// (rewritten in place, each page would keep the room its sets left, never used again). A
/// set whose text is not a JSON list of strings becomes the empty set, as the reads had it.
/// The number of sets rewritten.
pub(super) fn migrate_18_to_19(tx: &Transaction<'_>) -> rusqlite::Result<u64> {
    // Read a set at a time from the old table (an index of 10⁸ updates has millions of sets),
    // each party numbered once.
    tx.execute_batch(
        "ALTER TABLE party_sets RENAME TO party_sets_v18;
         CREATE TABLE party_sets (id INTEGER PRIMARY KEY, hash INTEGER NOT NULL,
             parties TEXT NOT NULL);",
    )?;
    tx.execute_batch(TABLE)?;
    let mut read =
        tx.prepare("SELECT id, CAST(parties AS TEXT) FROM party_sets_v18 ORDER BY id")?;
    let mut write = tx.prepare("INSERT INTO party_sets (id, hash, parties) VALUES (?1, ?2, ?3)")?;
    let mut numbered: HashMap<String, i64, foldhash::fast::RandomState> = HashMap::default();
    let mut rows = read.query([])?;
    let mut sets = 0;
    while let Some(r) = rows.next()? {
        let (id, json): (i64, String) = (r.get(0)?, r.get(1)?);
        let parties: Vec<String> = serde_json::from_str(&json).unwrap_or_default();
        let set = set_bytes(&parties, |party| {
            if let Some(number) = numbered.get(party) {
                return Ok(*number);
            }
            let number = name_id(tx, party)?;
            numbered.insert(party.clone(), number);
            Ok(number)
        })?;
        write.execute(rusqlite::params![
            id,
            super::set_hash::bytes_hash(&set),
            set
        ])?;
        sets += 1;
    }
    drop(rows);
    drop((read, write));
    tx.execute_batch(
        "DROP TABLE party_sets_v18;
         CREATE INDEX party_sets_hash ON party_sets (hash);",
    )?;
    Ok(sets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables() -> Connection {
        let conn = Connection::open_in_memory().expect("opens");
        conn.execute_batch(
            "CREATE TABLE party_sets (id INTEGER PRIMARY KEY, hash INTEGER NOT NULL,
                 parties TEXT NOT NULL);",
        )
        .expect("sets");
        conn.execute_batch(TABLE).expect("names");
        conn
    }

    #[test]
    fn a_set_is_its_parties_numbers_each_party_numbered_once() {
        let mut conn = tables();
        let tx = conn.transaction().expect("tx");
        let parties = ["alice::1220aa".to_owned(), "bob::1220bb".to_owned()];
        let mut names = Names::default();
        let set = names.set_of(&tx, &parties).expect("numbers");
        // A second writer (a fresh copy) finds the same numbers in the table.
        let again = Names::default()
            .set_of(&tx, &parties[1..])
            .expect("numbers");
        let numbers_of = numbers(&set).expect("decodes");
        assert_eq!(numbers_of.len(), 2);
        assert_eq!(numbers(&again).expect("decodes"), numbers_of[1..]);
        let named: Vec<String> = numbers_of
            .iter()
            .map(|n| name(&tx, *n).expect("named"))
            .collect();
        assert_eq!(named, parties);
        let rows: i64 = tx
            .query_row("SELECT count(*) FROM party_names", [], |r| r.get(0))
            .expect("counts");
        assert_eq!(rows, 2);
        assert_eq!(numbers(&[]).expect("the empty set"), Vec::<i64>::new());
        // A number's last byte missing: not a set.
        assert_eq!(numbers(&[0x80]), None);
        assert!(name(&tx, 99).is_err());
    }

    #[test]
    fn the_migration_rewrites_each_set_keeping_its_id_and_its_parties() {
        let mut conn = tables();
        conn.execute_batch(
            "INSERT INTO party_sets (id, hash, parties) VALUES
                 (3, 1, '[\"alice::1220aa\",\"bob::1220bb\"]'),
                 (9, 2, '[\"bob::1220bb\"]'),
                 (11, 3, 'not json');",
        )
        .expect("schema 18 sets");
        let tx = conn.transaction().expect("tx");
        assert_eq!(migrate_18_to_19(&tx).expect("migrates"), 3);
        let read = |id: i64| -> Vec<String> {
            let set: Vec<u8> = tx
                .query_row("SELECT parties FROM party_sets WHERE id = ?1", [id], |r| {
                    r.get(0)
                })
                .expect("set");
            numbers(&set)
                .expect("decodes")
                .into_iter()
                .map(|n| name(&tx, n).expect("named"))
                .collect()
        };
        assert_eq!(read(3), ["alice::1220aa", "bob::1220bb"]);
        assert_eq!(read(9), ["bob::1220bb"]);
        assert!(read(11).is_empty());
        // Each set is found by the hash of its new bytes, as the writer looks it up.
        let (hash, set): (i64, Vec<u8>) = tx
            .query_row(
                "SELECT hash, parties FROM party_sets WHERE id = 9",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .expect("set");
        assert_eq!(hash, super::super::set_hash::bytes_hash(&set));
        let index: i64 = tx
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'party_sets_hash'",
                [],
                |r| r.get(0),
            )
            .expect("the hash's index");
        assert_eq!(index, 1);
        let names: i64 = tx
            .query_row("SELECT count(*) FROM party_names", [], |r| r.get(0))
            .expect("counts");
        assert_eq!(names, 2);
    }
}
