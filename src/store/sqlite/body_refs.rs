//! Schema 14: each kept body names its update id and its contract ids by reference
//! ([`crate::model::index::refs`]), resolved with one look-up each. The `body` column holds
//! the term ids of the update's contracts (a LEB128 count, then each id as LEB128: the list a
//! body's tokens name by place) followed by the zstd frame of the text with references. A
//! contract's term is found by its id through the partial index [`CONTRACT_INDEX`] over the
//! contract terms (`(id, kind, value)`: a second copy of each contract id, what a look-up by
//! id costs when the terms stay ordered by their text for the prefix search and the writer's
//! upsert); the update id is the row's own.
//!
//! A body names only its own update's contracts (its keys' terms), whose counts its update
//! keeps above zero: `index prune` removes a term only when no kept update has it, so never
//! one a kept body names. The references of a term id never change (ids are never reused), so
//! a reader keeps those it resolved ([`Contracts`]).

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Transaction};

use crate::model::index::refs::{self, leb128, read_leb128};
use crate::model::index::{IndexRow, KeyKind};

/// Schema 14: the contract terms found by id.
pub(super) const CONTRACT_INDEX: &str =
    "CREATE INDEX IF NOT EXISTS terms_contract ON terms (id) WHERE kind = 4;";

/// How a zstd frame starts (every body of schema 13 and before).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// The statement a contract's value is read by, by term id (through [`CONTRACT_INDEX`]).
const CONTRACT_SQL: &str = "SELECT value FROM terms WHERE kind = 4 AND id = ?1";

/// The term ids of `row`'s contracts that its body names by place
/// ([`crate::model::index::body_contracts`]: the referable contract ids of its keys, in the
/// keys' order), from `ids` (the page's terms' ids, by page term) and `of_row` (the row's page
/// terms, in its keys' order). A term without an id (none for a key the page wrote) is 0,
/// which names no term.
pub(super) fn row_refs(row: &IndexRow, of_row: &[u32], ids: &[Option<i64>]) -> Vec<i64> {
    row.keys
        .iter()
        .zip(of_row)
        .filter(|((kind, value), _)| *kind == KeyKind::Contract && refs::referable(value))
        .map(|(_, t)| ids.get(*t as usize).copied().flatten().unwrap_or(0))
        .collect()
}

/// A body as the `body` column keeps it: the term ids `refs`, then the zstd frame `packed`.
pub(super) fn stored(refs: &[i64], packed: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(packed.len() + 1 + refs.len() * 4);
    leb128(refs.len() as u64, &mut out);
    for id in refs {
        leb128(id.cast_unsigned(), &mut out);
    }
    out.extend_from_slice(packed);
    out
}

/// A kept body's term ids (into `refs`, cleared first) and its zstd frame; `None` when the
/// list is cut short.
pub(super) fn split<'a>(kept: &'a [u8], refs: &mut Vec<i64>) -> Option<&'a [u8]> {
    refs.clear();
    let (n, mut at) = read_leb128(kept)?;
    for _ in 0..n {
        let (id, len) = read_leb128(kept.get(at..)?)?;
        refs.push(id.cast_signed());
        at += len;
    }
    kept.get(at..)
}

/// The contract ids a reader resolved, by term id (at most [`Contracts::KEPT`], then
/// forgotten all at once: a bulk read of every body walks the history forward, and a contract
/// is named mostly by updates near each other).
#[derive(Default)]
pub(super) struct Contracts {
    values: HashMap<i64, Box<[u8]>, foldhash::fast::RandomState>,
    /// The term ids of the body being read (reused from body to body).
    pub(super) refs: Vec<i64>,
}

impl Contracts {
    const KEPT: usize = 1 << 18;

    /// Appends the contract id of term `id` to `out`, read from `conn` when not kept.
    pub(super) fn resolve(
        &mut self,
        conn: &rusqlite::Connection,
        id: i64,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        if let Some(value) = self.values.get(&id) {
            out.extend_from_slice(value);
            return Ok(());
        }
        let value: Option<String> = conn
            .prepare_cached(CONTRACT_SQL)
            .and_then(|mut s| {
                s.query_row([id], |r| {
                    super::term_values::text(r.get_ref(0)?)
                        .map(std::borrow::Cow::into_owned)
                        .map_err(Into::into)
                })
                .optional()
            })
            .map_err(|e| e.to_string())?;
        let value = value.ok_or_else(|| {
            format!("a body names contract term {id}, which the index does not have")
        })?;
        out.extend_from_slice(value.as_bytes());
        if self.values.len() >= Self::KEPT {
            self.values.clear();
        }
        self.values
            .insert(id, value.into_bytes().into_boxed_slice());
        Ok(())
    }
}

/// Schema 13 → 14, in the migration's transaction: the contract terms' index made, and every
/// kept body rewritten with references (its update's contracts found from the keys, one walk
/// of the contract terms' keys in `seq` order; its text packed again with the dictionary it
/// was packed with, at the bodies' level). How many bodies were rewritten.
pub(super) fn migrate_13_to_14(tx: &Transaction<'_>) -> Result<u64, String> {
    let e = |e: rusqlite::Error| e.to_string();
    tx.execute_batch(CONTRACT_INDEX).map_err(e)?;
    // Each update's referable contracts (their text and term id), in seq order.
    tx.execute_batch(
        "CREATE TEMP TABLE body_contracts (seq INTEGER NOT NULL, term INTEGER NOT NULL,
             PRIMARY KEY (seq, term)) WITHOUT ROWID;
         INSERT INTO temp.body_contracts (seq, term)
             SELECT k.seq, t.id FROM terms t JOIN keys k ON k.term = t.id
             WHERE t.kind = 4 AND typeof(t.value) = 'blob' AND length(t.value) >= 8;",
    )
    .map_err(e)?;
    let dictionaries: HashMap<u32, Vec<u8>> = tx
        .prepare("SELECT id, dictionary FROM dictionaries")
        .and_then(|mut s| {
            s.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(e)?
        .into_iter()
        .filter_map(|(id, d)| u32::try_from(id).ok().map(|id| (id, d)))
        .collect();
    let mut packers: HashMap<Option<u32>, zstd::bulk::Compressor<'static>> = HashMap::new();
    let mut decoder = crate::store::BodyDictionaries::default();
    decoder.load(
        dictionaries
            .iter()
            .map(|(id, d)| (i64::from(*id), d.clone()))
            .collect(),
    );
    let mut read = tx
        .prepare(
            "SELECT seq, update_id, body FROM updates WHERE seq > ?1 AND body IS NOT NULL
             ORDER BY seq LIMIT 1000",
        )
        .map_err(e)?;
    let mut contracts = tx
        .prepare(
            "SELECT b.seq, b.term, t.value FROM temp.body_contracts b
                 JOIN terms t ON t.kind = 4 AND t.id = b.term
             WHERE b.seq > ?1 AND b.seq <= ?2 ORDER BY b.seq",
        )
        .map_err(e)?;
    let mut write = tx
        .prepare("UPDATE updates SET body = ?2 WHERE seq = ?1")
        .map_err(e)?;
    let (mut after, mut rewritten) = (i64::MIN, 0_u64);
    let mut text = Vec::new();
    loop {
        let rows: Vec<(i64, String, Vec<u8>)> = read
            .query_map([after], |r| {
                Ok((r.get(0)?, super::update_ids::read(r, 1)?, r.get(2)?))
            })
            .and_then(Iterator::collect)
            .map_err(e)?;
        let Some(last) = rows.last().map(|r| r.0) else {
            break;
        };
        // The contracts of these updates: (seq, term id, text), in seq order, the terms of
        // one update in their text's order (the keys' order).
        let mut of_rows: Vec<(i64, i64, String)> = contracts
            .query_map([after, last], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    super::term_values::text(r.get_ref(2)?)?.into_owned(),
                ))
            })
            .and_then(Iterator::collect)
            .map_err(e)?;
        of_rows.sort_unstable_by(|a, b| (a.0, &a.2).cmp(&(b.0, &b.2)));
        let mut at = 0;
        for (seq, update_id, packed) in rows {
            while at < of_rows.len() && of_rows[at].0 < seq {
                at += 1;
            }
            let from = at;
            while at < of_rows.len() && of_rows[at].0 == seq {
                at += 1;
            }
            let own = &of_rows[from..at];
            if !packed.starts_with(&ZSTD_MAGIC) {
                // Not a zstd frame: a body with references already (an index whose version
                // the tests set back), left as it is.
                continue;
            }
            // A body that does not unpack (damaged, or of a dictionary the index lacks) is
            // kept as it was, without references: read, it fails as it did.
            let Ok(plain) = decoder.unpack_bytes("the index", &update_id, &packed) else {
                write
                    .execute(rusqlite::params![seq, stored(&[], &packed)])
                    .map_err(e)?;
                continue;
            };
            let names: Vec<&str> = own.iter().map(|c| c.2.as_str()).collect();
            refs::tokenize(&plain, &update_id, &names, &mut text);
            let dictionary = crate::model::index::pack::body_dictionary_id(&packed);
            let packer = match packers.entry(dictionary) {
                std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
                std::collections::hash_map::Entry::Vacant(v) => {
                    let packer = match dictionary {
                        None => zstd::bulk::Compressor::new(crate::model::index::pack::ZSTD_LEVEL),
                        Some(id) => zstd::bulk::Compressor::with_dictionary(
                            crate::model::index::pack::ZSTD_LEVEL,
                            dictionaries.get(&id).map_or(&[][..], Vec::as_slice),
                        ),
                    }
                    .map_err(|e| format!("cannot start zstd: {e}"))?;
                    v.insert(packer)
                }
            };
            let repacked = packer
                .compress(&text)
                .map_err(|e| format!("cannot compress a body: {e}"))?;
            let ids: Vec<i64> = own.iter().map(|c| c.1).collect();
            write
                .execute(rusqlite::params![seq, stored(&ids, &repacked)])
                .map_err(e)?;
            rewritten += 1;
        }
        after = last;
    }
    drop((read, contracts, write));
    tx.execute_batch("DROP TABLE temp.body_contracts")
        .map_err(e)?;
    Ok(rewritten)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_term_ids_come_before_the_frame_and_back() {
        let mut refs = Vec::new();
        for ids in [vec![], vec![1], vec![5, 300, 1 << 40]] {
            let kept = stored(&ids, b"\x28\xb5\x2f\xfdframe");
            assert_eq!(split(&kept, &mut refs), Some(&b"\x28\xb5\x2f\xfdframe"[..]));
            assert_eq!(refs, ids);
        }
        assert_eq!(split(&[3, 1], &mut refs), None, "cut short");
        assert_eq!(split(&[], &mut refs), None);
    }
}
