//! The counts of two hubs together and the hubs' bitmaps (see [`crate::store::hubs`]) in
//! SQLite: a page's share, a term becoming a hub, prune, schema 2 → 3 and 4 → 5, and the
//! counts that read them.

use std::collections::{BTreeMap, HashSet};

use super::{Connection, OptionalExtension, Transaction, params};
use crate::store::hubs::{self, Block, HubBits, MADE_AT_KEY, THRESHOLD_KEY};
use rusqlite::TransactionBehavior;

/// The hubs, and the threshold a term becomes one at.
pub(super) fn load(tx: &Connection) -> rusqlite::Result<(HashSet<i64>, i64)> {
    let mut stmt = tx.prepare_cached("SELECT term FROM hubs")?;
    let hubs = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<HashSet<i64>>>()?;
    // Cached: every search and every page written reads it (prepared each time before: a
    // prefix's warm count at 1 M 37-41 us against 35-36 us cached).
    let threshold: Option<String> = tx
        .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
        .query_row([THRESHOLD_KEY], |r| r.get(0))
        .optional()?;
    Ok((hubs, hubs::threshold(threshold.as_deref())))
}

/// A page's updates (their seq and term ids) raise the pairs of the hubs they have and set
/// their bits.
pub(super) fn add_page(
    tx: &Transaction<'_>,
    updates: &[(i64, Vec<i64>)],
    hubs: &HashSet<i64>,
) -> rusqlite::Result<()> {
    let hubs::PageChanges { bits, pairs } = hubs::page_changes(updates, hubs);
    put_bits(tx, bits, true)?;
    if pairs.is_empty() {
        return Ok(());
    }
    let mut upsert = tx.prepare_cached(
        "INSERT INTO pairs (a, b, n) VALUES (?1, ?2, ?3)
         ON CONFLICT (a, b) DO UPDATE SET n = n + excluded.n",
    )?;
    for ((a, b), n) in pairs {
        upsert.execute(params![a, b, n])?;
    }
    Ok(())
}

/// `terms` become hubs (those not one yet): their bitmaps made from their keys, their pairs
/// counted with each other and with every hub, whose bitmap is read once
/// ([`hubs::Promotion`]).
pub(super) fn promote(
    tx: &Transaction<'_>,
    terms: &[i64],
    hubs: &mut HashSet<i64>,
) -> rusqlite::Result<()> {
    let mut earlier: Vec<i64> = hubs.iter().copied().collect();
    earlier.sort_unstable();
    let mut new = Vec::new();
    for term in terms {
        if hubs.insert(*term) {
            new.push((*term, seqs_of(tx, *term)?));
        }
    }
    if new.is_empty() {
        return Ok(());
    }
    let mut promotion = hubs::Promotion::new(new);
    for hub in earlier {
        if let Some(bits) = bits(tx, hub, true)? {
            promotion.with_hub(hub, &bits);
        }
    }
    let mut insert = tx.prepare_cached(
        "INSERT INTO pairs (a, b, n) VALUES (?1, ?2, ?3)
         ON CONFLICT (a, b) DO UPDATE SET n = excluded.n",
    )?;
    for ((a, b), n) in promotion.pairs() {
        insert.execute(params![a, b, n])?;
    }
    for term in promotion.terms() {
        tx.execute("INSERT OR IGNORE INTO hubs (term) VALUES (?1)", [term])?;
        tx.execute("DELETE FROM hub_bits WHERE term = ?1", [term])?;
    }
    put_bits(tx, promotion.bits(), true)
}

/// The seqs of a term's updates (its keys: rows of `keys`, or in its blocks from schema 21 when
/// it has at least [`super::hub_keys::FROM`] updates).
fn seqs_of(tx: &Transaction<'_>, term: i64) -> rusqlite::Result<Vec<i64>> {
    let mut stmt = tx.prepare_cached("SELECT seq FROM keys WHERE term = ?1")?;
    let mut seqs: Vec<i64> = stmt
        .query_map([term], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let blocks = super::hub_keys::all(tx, term, None)?;
    seqs.extend(blocks.into_iter().map(|k| k.2));
    Ok(seqs)
}

/// At a writer's open, after its schema's transaction: every term with at least the
/// threshold's updates a hub, when the index's hubs were made at a higher one
/// ([`hubs::to_complete`]: an index of a build whose default was 100,000). Each term in a
/// transaction of its own (taking the write lock first, so what it reads no other writer
/// changes before it writes): a sync writing beside the process that opens it (`index stats`
/// opens a writer) waits for one term at most, never for all (8.6 s at 1 M updates), past its
/// busy timeout. Returns the threshold and how many terms became hubs (`None`: nothing to do).
pub(super) fn complete(conn: &Connection) -> rusqlite::Result<Option<(i64, usize)>> {
    let meta = |key: &str| -> rusqlite::Result<Option<String>> {
        conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
    };
    let Some(threshold) = hubs::to_complete(
        meta(THRESHOLD_KEY)?.as_deref(),
        meta(MADE_AT_KEY)?.as_deref(),
    ) else {
        return Ok(None);
    };
    let (hubs, _) = load(conn)?;
    let mut made = 0;
    for term in frequent(conn, threshold, &hubs)? {
        let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
        let (mut hubs, _) = load(&tx)?;
        if !hubs.contains(&term) {
            promote(&tx, &[term], &mut hubs)?;
            super::hub_keys::take_in(&tx, term)?;
            made += 1;
        }
        tx.commit()?;
    }
    conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
        params![MADE_AT_KEY, threshold.to_string()],
    )?;
    Ok(Some((threshold, made)))
}

/// The terms with at least `threshold` updates that are not `hubs`, the most frequent first.
fn frequent(tx: &Connection, threshold: i64, hubs: &HashSet<i64>) -> rusqlite::Result<Vec<i64>> {
    let mut stmt = tx.prepare("SELECT id FROM terms WHERE n >= ?1 ORDER BY n DESC, id")?;
    let ids = stmt
        .query_map([threshold], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids.into_iter().filter(|t| !hubs.contains(t)).collect())
}

/// Sets (`on`) or clears the bits of the seqs given by (hub, block); a block left empty goes.
fn put_bits(
    tx: &Transaction<'_>,
    changes: BTreeMap<(i64, i64), Vec<i64>>,
    on: bool,
) -> rusqlite::Result<()> {
    let mut read = tx.prepare_cached("SELECT bits FROM hub_bits WHERE term = ?1 AND block = ?2")?;
    let mut write = tx.prepare_cached(
        "INSERT INTO hub_bits (term, block, bits) VALUES (?1, ?2, ?3)
         ON CONFLICT (term, block) DO UPDATE SET bits = excluded.bits",
    )?;
    let mut delete = tx.prepare_cached("DELETE FROM hub_bits WHERE term = ?1 AND block = ?2")?;
    for ((term, block), seqs) in changes {
        let stored: Option<Vec<u8>> = read
            .query_row(params![term, block], |r| r.get(0))
            .optional()?;
        let mut bits = stored.as_deref().map(Block::decode).unwrap_or_default();
        for seq in seqs {
            bits.put(seq, on);
        }
        match bits.encode() {
            Some(bytes) => write.execute(params![term, block, bytes])?,
            None => delete.execute(params![term, block])?,
        };
    }
    Ok(())
}

/// A hub's bitmap made from its keys (any earlier one replaced).
fn build_bits(tx: &Transaction<'_>, term: i64) -> rusqlite::Result<()> {
    tx.execute("DELETE FROM hub_bits WHERE term = ?1", [term])?;
    let seqs = seqs_of(tx, term)?;
    put_bits(tx, hubs::term_blocks(term, seqs), true)
}

/// Schema 4 → 5: every hub's bitmap made from its keys. Returns how many hubs there are.
pub(super) fn migrate_4_to_5(tx: &Transaction<'_>) -> rusqlite::Result<usize> {
    tx.execute_batch(CREATE)?;
    let (hubs, _) = load(tx)?;
    hubs::build_every(hubs, |term| build_bits(tx, term))
}

/// The bitmap of `term` when it is a hub (`None`: it is not one): read `whole`, or to be read a
/// block at a time ([`read_block`]).
pub(super) fn bits(
    tx: &Transaction<'_>,
    term: i64,
    whole: bool,
) -> rusqlite::Result<Option<HubBits>> {
    let mut is_hub = tx.prepare_cached("SELECT 1 FROM hubs WHERE term = ?1")?;
    if !is_hub.exists([term])? {
        return Ok(None);
    }
    if !whole {
        return Ok(Some(HubBits::by_block()));
    }
    let mut stmt = tx.prepare_cached("SELECT block, bits FROM hub_bits WHERE term = ?1")?;
    let mut rows = stmt.query([term])?;
    let mut bits = HubBits::whole();
    while let Some(row) = rows.next()? {
        bits.insert(row.get(0)?, row.get_ref(1)?.as_blob()?);
    }
    Ok(Some(bits))
}

/// Reads the block of `term`'s bitmap that `seq` needs, when not read yet.
pub(super) fn read_block(
    tx: &Transaction<'_>,
    term: i64,
    bits: &mut HubBits,
    seq: i64,
) -> rusqlite::Result<()> {
    let Some(block) = bits.unread(seq) else {
        return Ok(());
    };
    let mut stmt = tx.prepare_cached("SELECT bits FROM hub_bits WHERE term = ?1 AND block = ?2")?;
    let stored: Option<Vec<u8>> = stmt
        .query_row(params![term, block], |r| r.get(0))
        .optional()?;
    match stored {
        Some(bytes) => bits.insert(block, &bytes),
        None => bits.none_in(block),
    }
    Ok(())
}

/// Prune's share: the keys older than `before` cut from every term's blocks
/// ([`super::hub_keys::prune`]: the hubs' and those of the terms of at least
/// [`super::hub_keys::FROM`] updates), the hubs' bits cleared (their seqs may be used again),
/// and each pair lowered by the removed updates that have both (an update removed is removed
/// from every hub it has), a pair no update has any more removed. Returns how many keys each
/// term with blocks lost.
pub(super) fn prune(tx: &Transaction<'_>, before: i64) -> rusqlite::Result<Vec<(i64, i64)>> {
    let (hubs, _) = load(tx)?;
    let terms: Vec<i64> = tx
        .prepare("SELECT DISTINCT term FROM hub_keys ORDER BY term")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let before = super::record_times::stored(before);
    let mut removed: Vec<(i64, i64)> = Vec::new();
    let mut lost = Vec::with_capacity(terms.len());
    for term in &terms {
        let seqs = super::hub_keys::prune(tx, *term, before)?;
        lost.push((*term, i64::try_from(seqs.len()).unwrap_or(i64::MAX)));
        if hubs.contains(term) {
            removed.extend(seqs.into_iter().map(|seq| (seq, *term)));
        }
    }
    removed.sort_unstable();
    let updates: Vec<(i64, Vec<i64>)> = removed
        .chunk_by(|a, b| a.0 == b.0)
        .map(|run| (run[0].0, run.iter().map(|(_, term)| *term).collect()))
        .collect();
    drop(removed);
    let hubs::PageChanges { bits, pairs } = hubs::page_changes(&updates, &hubs);
    put_bits(tx, bits, false)?;
    let mut lower = tx.prepare_cached("UPDATE pairs SET n = n - ?3 WHERE a = ?1 AND b = ?2")?;
    for ((a, b), n) in pairs {
        lower.execute(params![a, b, n])?;
    }
    tx.execute("DELETE FROM pairs WHERE n <= 0", [])?;
    Ok(lost)
}

/// After prune removed the terms no update has: their hub rows go too.
pub(super) fn forget_gone(tx: &Transaction<'_>, gone: &[i64]) -> rusqlite::Result<()> {
    let mut stmt = tx.prepare_cached("DELETE FROM hubs WHERE term = ?1")?;
    let mut bits = tx.prepare_cached("DELETE FROM hub_bits WHERE term = ?1")?;
    for term in gone {
        stmt.execute([term])?;
        bits.execute([term])?;
        super::hub_keys::forget(tx, *term)?;
    }
    Ok(())
}

/// The hubs, their pairs and their bitmaps (schema 3, the bitmaps schema 5).
pub(super) const CREATE: &str = "
CREATE TABLE IF NOT EXISTS hubs (term INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS pairs (
    a INTEGER NOT NULL,
    b INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (a, b)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS hub_bits (
    term INTEGER NOT NULL,
    block INTEGER NOT NULL,
    bits BLOB NOT NULL,
    PRIMARY KEY (term, block)
) WITHOUT ROWID;
";

/// Schema 2 → 3: the hubs, their bitmaps made from their keys and their pairs counted from
/// the bitmaps ([`promote`]).
pub(super) fn migrate_2_to_3(tx: &Transaction<'_>) -> rusqlite::Result<usize> {
    tx.execute_batch(CREATE)?;
    let (mut hubs, threshold) = load(tx)?;
    let frequent = frequent(tx, threshold, &hubs)?;
    // One term at a time: the seqs of one term in memory, not of every hub.
    for term in &frequent {
        promote(tx, &[*term], &mut hubs)?;
    }
    tx.execute(
        "UPDATE meta SET value = '3' WHERE key = 'schema_version'",
        [],
    )?;
    Ok(frequent.len())
}

/// The count of two distinct terms over the whole index when both are hubs (`None`: not both).
pub(super) fn count(tx: &Transaction<'_>, x: i64, y: i64) -> rusqlite::Result<Option<i64>> {
    let Some((a, b)) = hubs::pair_of(x, y) else {
        return Ok(None);
    };
    let mut is_hub = tx.prepare_cached("SELECT 1 FROM hubs WHERE term = ?1")?;
    if !is_hub.exists([a])? || !is_hub.exists([b])? {
        return Ok(None);
    }
    let n: Option<i64> = tx
        .prepare_cached("SELECT n FROM pairs WHERE a = ?1 AND b = ?2")?
        .query_row([a, b], |r| r.get(0))
        .optional()?;
    Ok(Some(n.unwrap_or(0)))
}
