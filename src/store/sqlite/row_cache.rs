//! A reader's copy of the sets its search rows named ([`super::row_sets`]): an action's kind
//! and root action and a party set's parties, by id. A search's page reads each row's ids and
//! finds their texts here (read from the tables the first time an id is met), instead of two
//! joins and a parse of the parties' JSON a row: the rows of a page share a few sets, and the
//! same sets come back page after page.
//!
//! A set's id names the same text for the life of the index: the writer only adds sets, `index
//! prune` keeps the ones no update has any more, and a migration keeps the ids the updates
//! hold. So nothing here goes stale; the copy is only bounded in size.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension};

/// Most sets of each kind kept before the copy starts again (a few MB at most).
const MOST_KEPT: usize = 1 << 16;

/// The sets met so far, by id.
#[derive(Default)]
pub(super) struct RowCache {
    actions: HashMap<i64, (String, String), foldhash::fast::RandomState>,
    parties: HashMap<i64, Vec<String>, foldhash::fast::RandomState>,
    /// The parties' names by number (schema 19 keeps a set as its parties' numbers:
    /// [`super::party_names`]).
    names: HashMap<i64, String, foldhash::fast::RandomState>,
}

impl RowCache {
    /// The kind and root action of the action `id`.
    pub(super) fn action(
        &mut self,
        conn: &Connection,
        id: i64,
    ) -> rusqlite::Result<&(String, String)> {
        if !self.actions.contains_key(&id) {
            let found = conn
                .prepare_cached("SELECT kind, root_action FROM actions WHERE id = ?1")?
                .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?
                .ok_or(rusqlite::Error::QueryReturnedNoRows)?;
            if self.actions.len() >= MOST_KEPT {
                self.actions.clear();
            }
            self.actions.insert(id, found);
        }
        Ok(&self.actions[&id])
    }

    /// The parties of the party set `id` (none when its bytes are not a list of numbers, as
    /// a set whose JSON did not parse had none).
    pub(super) fn parties(&mut self, conn: &Connection, id: i64) -> rusqlite::Result<&[String]> {
        if !self.parties.contains_key(&id) {
            let set: Vec<u8> = conn
                .prepare_cached("SELECT parties FROM party_sets WHERE id = ?1")?
                .query_row([id], |r| r.get(0))
                .optional()?
                .ok_or(rusqlite::Error::QueryReturnedNoRows)?;
            let mut parties = Vec::new();
            for number in super::party_names::numbers(&set).unwrap_or_default() {
                if !self.names.contains_key(&number) {
                    if self.names.len() >= MOST_KEPT {
                        self.names.clear();
                    }
                    self.names
                        .insert(number, super::party_names::name(conn, number)?);
                }
                parties.push(self.names[&number].clone());
            }
            if self.parties.len() >= MOST_KEPT {
                self.parties.clear();
            }
            self.parties.insert(id, parties);
        }
        Ok(&self.parties[&id])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE actions (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, root_action TEXT NOT NULL);
             CREATE TABLE party_sets (id INTEGER PRIMARY KEY, parties TEXT NOT NULL);
             CREATE TABLE party_names (id INTEGER PRIMARY KEY, hash INTEGER NOT NULL, party TEXT NOT NULL);
             INSERT INTO actions VALUES (1, 'transaction', 'AmuletRules_Transfer'), (2, 'reassignment', 'assign');
             INSERT INTO party_names VALUES (5, 0, 'alice::1220aa'), (300, 0, 'bob::1220bb');
             INSERT INTO party_sets VALUES (1, x'05ac02'), (2, x'80');",
        )
        .unwrap();
        conn
    }

    #[test]
    fn each_id_reads_back_the_text_its_row_holds() {
        let conn = conn();
        let mut cache = RowCache::default();
        assert_eq!(
            cache.action(&conn, 2).unwrap(),
            &("reassignment".to_owned(), "assign".to_owned())
        );
        assert_eq!(
            cache.action(&conn, 1).unwrap(),
            &("transaction".to_owned(), "AmuletRules_Transfer".to_owned())
        );
        assert_eq!(
            cache.parties(&conn, 1).unwrap(),
            ["alice::1220aa".to_owned(), "bob::1220bb".to_owned()]
        );
        // A set whose bytes are not numbers reads as no parties, as one whose JSON did not
        // parse did.
        assert!(cache.parties(&conn, 2).unwrap().is_empty());
        // An id no row has is an error, not an empty set.
        assert!(cache.parties(&conn, 3).is_err());
        assert!(cache.action(&conn, 3).is_err());
    }

    #[test]
    fn a_set_met_again_is_not_read_again() {
        let conn = conn();
        let mut cache = RowCache::default();
        cache.parties(&conn, 1).unwrap();
        cache.action(&conn, 1).unwrap();
        // The tables emptied under it: the copy answers (ids never change their text).
        conn.execute_batch("DELETE FROM party_sets; DELETE FROM actions; DELETE FROM party_names;")
            .unwrap();
        assert_eq!(cache.parties(&conn, 1).unwrap().len(), 2);
        assert_eq!(cache.action(&conn, 1).unwrap().1, "AmuletRules_Transfer");
        assert!(cache.parties(&conn, 2).is_err());
    }

    #[test]
    fn the_copy_stays_bounded() {
        let conn = conn();
        let mut cache = RowCache::default();
        for id in 0..MOST_KEPT as i64 {
            cache.parties.insert(id + 10, Vec::new());
        }
        cache.parties(&conn, 1).unwrap();
        assert_eq!(cache.parties.len(), 1);
    }
}
