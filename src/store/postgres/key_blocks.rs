//! Schema 18: the keys of every frequent term kept a second time, as posting blocks. A walk of a
//! term's keys (a search that tests a term's updates in the hubs' bitmaps) read each key as an
//! entry of `keys_newest`, about 40 bytes: the 20,921 keys of a template at 10 M updates are
//! 157 pages, most of a cold first page's time. `key_blocks` holds a term's keys up to its
//! mark (`key_marks`) in rows of up to [`MOST`] keys of one migration, newest first: the row's
//! key is its newest key, whole; each older one is its steps from the one before (the record
//! time's, never negative going back in a migration's ledger order, and the seq's, zigzagged),
//! each a varint: 2 to 4 bytes a key, the template's keys in about a dozen pages.
//!
//! `keys` stays whole: the blocks are a copy of its keys up to the mark, for the walks alone.
//! What holds, for a term with a mark `M`: its keys in `keys` at or before `M` are the keys
//! of its blocks at or before `M` whose record time is not before the index's pruned time
//! ([`PRUNED_KEY`]). So a walk reads the keys after `M` from `keys` (the ones a sync added
//! since) and then the blocks. Kept so:
//! - [`build`] (schema 17 → 18, `index compact`) makes the blocks of every term that has at
//!   least [`FROM`] updates then, its mark its newest key (a term that reaches [`FROM`] after
//!   has none until the next compaction: its walks read `keys`, as before);
//! - a page that writes a key at or before a term's mark moves the mark to just before that
//!   key ([`lower`]): the keys from there on are read from `keys` (a sync at the head never
//!   does; one that fills a gap in the history does, until the next compaction);
//! - prune removes keys by their record time: the pruned time is kept, and a block's keys
//!   before it are not read (the hubs' bitmaps lose the removed updates as well, and a seq
//!   is never given again); a term left under [`FROM`] loses its blocks.
//!
//! A page at the head writes nothing more but one statement that moves no mark.

use postgres::GenericClient;

use crate::store::newest::Pos;
use crate::store::varint::{decode_steps, encode_steps};

use super::Fail;
use super::copy::CopyRows;

/// Most keys a block holds.
pub(super) const MOST: usize = 128;

/// How many updates a term has when its keys get blocks (as SQLite's schema 21 keeps them).
pub(super) const FROM: i64 = 100;

/// The `meta` key of the newest time a prune removed keys before (none: no prune since the
/// blocks were built).
pub(super) const PRUNED_KEY: &str = "key_blocks_pruned_before";

/// The tables (schema 18).
pub(super) const CREATE: &str = "
CREATE TABLE IF NOT EXISTS key_blocks (
    term BIGINT NOT NULL,
    migration_id BIGINT NOT NULL,
    record_time BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    rest BYTEA NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS key_blocks_newest
    ON key_blocks (term, migration_id DESC, record_time DESC, seq DESC);
CREATE TABLE IF NOT EXISTS key_marks (
    term BIGINT PRIMARY KEY,
    migration_id BIGINT NOT NULL,
    record_time BIGINT NOT NULL,
    seq BIGINT NOT NULL
);
";

/// The bytes of the keys after the first of `keys` (newest first, one migration).
fn encode(keys: &[Pos]) -> Vec<u8> {
    encode_steps(keys, true)
}

/// The keys of a block whose newest key is `first` and whose older ones are `rest`, newest
/// first (`None`: bytes no writer of this build wrote).
fn decode(first: Pos, rest: &[u8]) -> Option<Vec<Pos>> {
    decode_steps(first, rest, true)
}

/// A block's keys from a row of `migration_id, record_time, seq, rest` (bytes this build did
/// not write: an error, not an answer without them).
fn block_of(r: &postgres::Row) -> Result<Vec<Pos>, Fail> {
    let first: Pos = (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?);
    let rest: &[u8] = r.try_get(3)?;
    decode(first, rest).ok_or_else(|| {
        Fail::Send(format!(
            "a block of keys that does not decode (key_blocks at {first:?}): `cantonscope index compact` makes the blocks again"
        ))
    })
}

/// Writes a term's blocks to `copy` from its keys given one at a time, newest first: a block
/// of up to [`MOST`] keys of one migration held at a time.
struct BlockWriter {
    term: i64,
    block: Vec<Pos>,
}

impl BlockWriter {
    fn new(term: i64) -> BlockWriter {
        BlockWriter {
            term,
            block: Vec::with_capacity(MOST),
        }
    }

    fn push(&mut self, copy: &mut CopyRows, key: Pos) {
        if self.block.len() == MOST || self.block.first().is_some_and(|f| f.0 != key.0) {
            self.flush(copy);
        }
        self.block.push(key);
    }

    fn flush(&mut self, copy: &mut CopyRows) {
        let Some(first) = self.block.first() else {
            return;
        };
        copy.row();
        for v in [self.term, first.0, first.1, first.2] {
            copy.int8(v);
        }
        copy.bytes(&encode(&self.block));
        self.block.clear();
    }
}

/// Bytes of blocks sent in one COPY while they are built.
const SEND_AT: usize = 16 << 20;

/// Makes every term's blocks of at least [`FROM`] updates from its keys, its mark its newest
/// key, in place of any kept (in `tx`, of the default isolation: each read sees what
/// committed before it). The marks are locked first: a page that moves marks back
/// ([`lower`]) and has not committed is waited for, and one that reaches its move after waits
/// and then moves the new marks. A term's keys are read newest first, in the order of
/// `keys_newest`, one statement a term. `stop` set: it ends before the next term, with
/// nothing done (the caller rolls the transaction back). Returns the terms and their keys.
pub(super) fn build(
    tx: &mut postgres::Transaction<'_>,
    stop: &dyn Fn() -> bool,
) -> Result<Option<(usize, u64)>, Fail> {
    use postgres::fallible_iterator::FallibleIterator;
    tx.batch_execute(
        "LOCK TABLE key_marks IN EXCLUSIVE MODE;
         DELETE FROM key_blocks; DELETE FROM key_marks;",
    )?;
    tx.execute("DELETE FROM meta WHERE key = $1", &[&PRUNED_KEY])?;
    let terms: Vec<i64> = tx
        .query(
            "SELECT id FROM terms WHERE updates >= $1 ORDER BY id",
            &[&FROM],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let read = tx.prepare(
        "SELECT migration_id, record_time, seq FROM keys WHERE term = $1
         ORDER BY migration_id DESC, record_time DESC, seq DESC",
    )?;
    let mut read_keys = 0u64;
    let mut marks = CopyRows::new(4, terms.len() * 60);
    let mut blocks = CopyRows::new(5, SEND_AT + (1 << 16));
    for term in &terms {
        if stop() {
            return Ok(None);
        }
        let mut writer = BlockWriter::new(*term);
        let mut newest = None;
        let mut rows = tx.query_raw(&read, [term])?;
        while let Some(r) = rows.next()? {
            let key: Pos = (r.get(0), r.get(1), r.get(2));
            newest.get_or_insert(key);
            writer.push(&mut blocks, key);
            read_keys += 1;
        }
        drop(rows);
        writer.flush(&mut blocks);
        if let Some(newest) = newest {
            marks.row();
            for v in [*term, newest.0, newest.1, newest.2] {
                marks.int8(v);
            }
        }
        if blocks.bytes_so_far() >= SEND_AT {
            let full = std::mem::replace(&mut blocks, CopyRows::new(5, SEND_AT + (1 << 16)));
            full.send(tx, COPY_BLOCKS)?;
        }
    }
    blocks.send(tx, COPY_BLOCKS)?;
    marks.send(
        tx,
        "COPY key_marks (term, migration_id, record_time, seq) FROM STDIN (FORMAT binary)",
    )?;
    Ok(Some((terms.len(), read_keys)))
}

const COPY_BLOCKS: &str =
    "COPY key_blocks (term, migration_id, record_time, seq, rest) FROM STDIN (FORMAT binary)";

/// A page's keys at or before their terms' marks (each term's oldest key of the page, `terms`
/// and `oldest` alike ordered): each such mark moved to just before the key, so the keys from
/// there on are read from `keys`.
pub(super) fn lower(
    tx: &mut impl GenericClient,
    terms: &[i64],
    oldest: &[Pos],
) -> Result<u64, postgres::Error> {
    if terms.is_empty() {
        return Ok(0);
    }
    let [m, t, s]: [Vec<i64>; 3] = [
        oldest.iter().map(|k| k.0).collect(),
        oldest.iter().map(|k| k.1).collect(),
        oldest.iter().map(|k| k.2).collect(),
    ];
    tx.execute(
        "UPDATE key_marks k SET migration_id = p.m, record_time = p.t, seq = p.s - 1
         FROM UNNEST($1::int8[], $2::int8[], $3::int8[], $4::int8[]) AS p (term, m, t, s)
         WHERE k.term = p.term AND (p.m, p.t, p.s) <= (k.migration_id, k.record_time, k.seq)",
        &[&terms, &m, &t, &s],
    )
}

/// After a prune of the keys before `before`: the pruned time kept (the later of it and the
/// one kept), and the blocks of the terms left under [`FROM`] (or gone) dropped with their
/// marks.
pub(super) fn prune(tx: &mut impl GenericClient, before: i64) -> Result<(), postgres::Error> {
    tx.execute(
        "INSERT INTO meta (key, value) VALUES ($1, $2::int8::text)
         ON CONFLICT (key) DO UPDATE
         SET value = greatest(meta.value::int8, excluded.value::int8)::text",
        &[&PRUNED_KEY, &before],
    )?;
    tx.execute(
        "DELETE FROM key_marks m WHERE NOT EXISTS (
             SELECT 1 FROM terms t WHERE t.id = m.term AND t.updates >= $1)",
        &[&FROM],
    )?;
    tx.execute(
        "DELETE FROM key_blocks b WHERE NOT EXISTS (SELECT 1 FROM key_marks m WHERE m.term = b.term)",
        &[],
    )?;
    Ok(())
}

/// A term's mark, read for a walk: the keys after `at` are in `keys`, the ones up to it in
/// the blocks up to `bound` (the first block after the mark, when a page lowered it into a
/// block, else the mark), those before `pruned` gone.
#[derive(Debug, Clone, Copy)]
pub(super) struct Mark {
    pub(super) at: Pos,
    bound: Pos,
    pruned: Option<i64>,
}

/// The columns of a term's mark that [`mark_of`] reads: its key, and the first block after it
/// (when a page lowered it into a block), of `key_marks m` joined by [`MARK_JOIN`].
pub(super) const MARK_COLUMNS: &str =
    "m.migration_id, m.record_time, m.seq, s.migration_id, s.record_time, s.seq";

/// The join after `key_marks m` that [`MARK_COLUMNS`] reads the first block after the mark
/// from.
pub(super) const MARK_JOIN: &str = "LEFT JOIN LATERAL (
         SELECT b.migration_id, b.record_time, b.seq FROM key_blocks b
         WHERE b.term = m.term
           AND (b.migration_id, b.record_time, b.seq) > (m.migration_id, m.record_time, m.seq)
         ORDER BY b.migration_id, b.record_time, b.seq LIMIT 1) s ON TRUE";

/// A term's mark from [`MARK_COLUMNS`] at `at` in `r`, the index's pruned time `pruned`
/// ([`PRUNED_KEY`]) (`None`: the term has no blocks; its keys are all in `keys`).
pub(super) fn mark_of(r: &postgres::Row, col: usize, pruned: Option<i64>) -> Option<Mark> {
    let m: Option<i64> = r.get(col);
    let after: Option<i64> = r.get(col + 3);
    m.map(|m| {
        let at: Pos = (m, r.get(col + 1), r.get(col + 2));
        Mark {
            at,
            bound: after.map_or(at, |a| (a, r.get(col + 4), r.get(col + 5))),
            pruned,
        }
    })
}

/// `term`'s mark (`None`: no blocks; its keys are all in `keys`).
pub(super) fn mark(
    tx: &mut impl GenericClient,
    term: i64,
) -> Result<Option<Mark>, postgres::Error> {
    let row = tx.query_typed_one(
        &format!(
            "SELECT (SELECT value FROM meta WHERE key = $2)::int8, {MARK_COLUMNS}
             FROM (VALUES (0)) AS one (x) LEFT JOIN key_marks m ON m.term = $1 {MARK_JOIN}"
        ),
        &[
            (&term, postgres::types::Type::INT8),
            (&PRUNED_KEY, postgres::types::Type::TEXT),
        ],
    )?;
    Ok(mark_of(&row, 1, row.get(0)))
}

/// The statement reading a term's blocks newest first from a mark's bound.
/// A block whose newest key is before `$5` (the range's start, or the pruned time) has none
/// to read: its keys are of one migration, older than its first.
const READ: &str = "SELECT migration_id, record_time, seq, rest FROM key_blocks
     WHERE term = $1 AND (migration_id, record_time, seq) <= ($2, $3, $4) AND record_time >= $5
     ORDER BY migration_id DESC, record_time DESC, seq DESC";

impl Mark {
    /// The keys of a block read by [`READ`] that a walk reads: at or before the mark, not
    /// pruned, and in the record-time range `from..=until`.
    fn keys_of(
        &self,
        r: &postgres::Row,
        from: Option<i64>,
        until: Option<i64>,
    ) -> Result<Vec<Pos>, Fail> {
        let lo = self.lowest(from);
        Ok(block_of(r)?
            .into_iter()
            .filter(|k| *k <= self.at && k.1 >= lo && until.is_none_or(|u| k.1 <= u))
            .collect())
    }

    /// The oldest record time a walk from `from` reads (the later of it and the pruned time).
    fn lowest(&self, from: Option<i64>) -> i64 {
        from.max(self.pruned).unwrap_or(i64::MIN)
    }

    /// The portal of [`READ`] over `term`'s blocks for a walk from `from`.
    fn blocks(
        &self,
        tx: &mut postgres::Transaction<'_>,
        term: i64,
        from: Option<i64>,
    ) -> Result<postgres::Portal, postgres::Error> {
        let (a, b, c) = self.bound;
        let read = tx.prepare(READ)?;
        tx.bind(&read, &[&term, &a, &b, &c, &self.lowest(from)])
    }
}

/// A walk of a driving term's keys newest first, its seqs a batch at a time: the keys of
/// `keys` (after the term's mark, when it has one), then the blocks'.
pub(super) struct Walk {
    /// The portal of the keys in `keys` (`None`: the term has none after its mark).
    keys: Option<postgres::Portal>,
    keys_done: bool,
    blocks: Option<(Mark, postgres::Portal)>,
    blocks_done: bool,
    range: (Option<i64>, Option<i64>),
    read: std::collections::VecDeque<i64>,
}

/// Most blocks a fetch of a walk asks for.
const MOST_ASKED: usize = 4096;

/// The condition on `keys k` of the keys after a mark.
fn after(mark: &Mark) -> String {
    format!(
        " AND (k.migration_id, k.record_time, k.seq) > ({}, {}, {})",
        mark.at.0, mark.at.1, mark.at.2
    )
}

impl Walk {
    /// The walk of `term` whose keys `keys.0` (`FROM keys k WHERE …`, the term's and the
    /// range's conditions in it) selects, `mark` its blocks' (`None`: its keys all in `keys`),
    /// in the record-time range `range`. `keys.1` false: the term has no key after its mark
    /// (its newest key, read with the term, is not after it), so `keys` is not read.
    pub(super) fn new(
        tx: &mut postgres::Transaction<'_>,
        term: i64,
        (keys, keys_after): (&str, bool),
        mark: Option<Mark>,
        range: (Option<i64>, Option<i64>),
    ) -> Result<Walk, postgres::Error> {
        let keys = if keys_after || mark.is_none() {
            let walk = tx.prepare(&format!(
                "SELECT k.seq FROM {keys}{}
                 ORDER BY k.migration_id DESC, k.record_time DESC, k.seq DESC",
                mark.as_ref().map_or(String::new(), after)
            ))?;
            Some(tx.bind(&walk, &[])?)
        } else {
            None
        };
        let blocks = match mark {
            Some(m) => Some((m, m.blocks(tx, term, range.0)?)),
            None => None,
        };
        Ok(Walk {
            keys_done: keys.is_none(),
            keys,
            blocks,
            blocks_done: false,
            range,
            read: std::collections::VecDeque::new(),
        })
    }

    /// The next `size` seqs of the walk (fewer: its end).
    pub(super) fn next(
        &mut self,
        tx: &mut postgres::Transaction<'_>,
        size: i32,
    ) -> Result<Vec<i64>, Fail> {
        let want = usize::try_from(size).unwrap_or(0);
        let mut out = Vec::with_capacity(want);
        if let Some(keys) = &self.keys {
            while !self.keys_done && out.len() < want {
                let ask = want - out.len();
                let rows = tx.query_portal(keys, i32::try_from(ask).unwrap_or(i32::MAX))?;
                self.keys_done = rows.len() < ask;
                out.extend(rows.iter().map(|r| r.get::<_, i64>(0)));
            }
        }
        let Some((mark, portal)) = &self.blocks else {
            return Ok(out);
        };
        let mut asked = 0;
        while out.len() < want {
            if let Some(seq) = self.read.pop_front() {
                out.push(seq);
                continue;
            }
            if self.blocks_done {
                break;
            }
            // As many blocks as full ones would need, or four times the ask before that fell
            // short: a term whose keys spread over many migrations has blocks of a few keys
            // (a block is one migration's).
            let ask = ((want - out.len()).div_ceil(MOST) + 1)
                .max(asked * 4)
                .min(MOST_ASKED);
            let rows = tx.query_portal(portal, i32::try_from(ask).unwrap_or(i32::MAX))?;
            self.blocks_done = rows.len() < ask;
            asked = ask;
            for r in &rows {
                let keys = mark.keys_of(r, self.range.0, self.range.1)?;
                self.read.extend(keys.into_iter().map(|k| k.2));
            }
        }
        Ok(out)
    }
}

/// How many of `term`'s walk's seqs (as [`Walk`] reads them) `has`, for a count: the keys of
/// `keys.0` after the mark (when `keys.1`: the term may have some), then every block, each
/// read a row at a time.
pub(super) fn count(
    tx: &mut postgres::Transaction<'_>,
    term: i64,
    (keys, keys_after): (&str, bool),
    mark: &Mark,
    range: (Option<i64>, Option<i64>),
    has: &dyn Fn(i64) -> bool,
) -> Result<i64, Fail> {
    use postgres::fallible_iterator::FallibleIterator;
    let mut n = 0;
    if keys_after {
        let sql = format!("SELECT k.seq FROM {keys}{}", after(mark));
        let mut rows = tx.query_raw(&sql, std::iter::empty::<i64>())?;
        while let Some(r) = rows.next()? {
            n += i64::from(has(r.get(0)));
        }
    }
    // Every block, streamed: its parameters' types sent with it (one round trip).
    use postgres::types::Type;
    let (a, b, c) = mark.bound;
    let lowest = mark.lowest(range.0);
    let params: [(&(dyn postgres::types::ToSql + Sync), Type); 5] = [
        (&term, Type::INT8),
        (&a, Type::INT8),
        (&b, Type::INT8),
        (&c, Type::INT8),
        (&lowest, Type::INT8),
    ];
    let mut rows = tx.query_typed_raw(READ, params)?;
    while let Some(r) = rows.next()? {
        for k in mark.keys_of(&r, range.0, range.1)? {
            n += i64::from(has(k.2));
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_decodes_to_the_keys_it_was_made_of_newest_first() {
        let keys: Vec<Pos> = vec![
            (3, 9_000_000, 17),
            (3, 9_000_000, 12),
            (3, 8_999_000, 40),
            (3, 1_000, 2),
            (3, 1_000, 900_000),
        ];
        let rest = encode(&keys);
        assert_eq!(decode(keys[0], &rest), Some(keys.clone()));
        // About two to four bytes a key after the first.
        assert!(rest.len() <= 4 * (keys.len() - 1) + 6, "{}", rest.len());
        assert_eq!(decode(keys[0], &[0x80]), None);
    }
}
