//! Schema 20: a hub's keys as posting blocks; schema 21: the keys of every term with at least
//! [`FROM`] updates. The keys of a frequent term were a row each of `keys` (22 bytes: its term,
//! migration, record time and seq, with the row's header), more than a third of the keys' bytes
//! at 1 M updates for the hubs alone ([`crate::store::hubs`]). Such a term keeps them in
//! `hub_keys` instead (the table's name from schema 20, when only hubs had blocks): a row holds
//! up to [`MOST`] keys of one term and one migration, the first whole in the row's key (by
//! which the rows are ordered, as `keys` is), each next one as its steps from the one before
//! (the record time's, which is never negative in a migration's ledger order, and the seq's,
//! zigzagged), each a varint: 2 to 4 bytes a key.
//!
//! The rule ([`in_blocks`]): a term's keys are in `hub_keys` when it is a hub or has at least
//! the index's [`FROM`] updates (its count, kept with it), else in `keys`. A page adds the keys
//! of such a term to its blocks ([`add`]); a term that reaches the count (or becomes a hub) has
//! its keys moved there in that page's transaction ([`take_in`]); prune cuts the blocks
//! ([`prune`]) and gives the keys of a term that falls below the count back to `keys`
//! ([`give_back`]). The reads walk a term's blocks newest first ([`below`]), read them whole,
//! or look for one key in its block ([`has`]); whether an update has a hub is asked of its
//! bitmap, never of its keys.

use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::store::newest::Pos;
use crate::store::varint::{decode_steps, encode_steps};

/// Most keys a block holds.
pub(super) const MOST: usize = 128;

/// How many updates a term has when its keys move into blocks (by default: an index keeps its
/// own in `meta`, [`FROM_KEY`], set when it is made and never changed after, as the keys'
/// places follow it).
pub(super) const FROM: i64 = 100;

/// The `meta` key of an index's [`FROM`].
pub(super) const FROM_KEY: &str = "blocks_from";

/// The count from which the index keeps a term's keys in blocks ([`FROM`] when it names none).
pub(super) fn from(conn: &Connection) -> rusqlite::Result<i64> {
    let kept: Option<String> = conn
        .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
        .query_row([FROM_KEY], |r| r.get(0))
        .optional()?;
    Ok(kept.and_then(|v| v.parse().ok()).unwrap_or(FROM))
}

/// Whether a term of `n` updates (a hub or not) keeps its keys in blocks, the index's count
/// being `from`.
pub(super) fn in_blocks(n: i64, hub: bool, from: i64) -> bool {
    hub || n >= from
}

/// The table (schema 20).
pub(super) const CREATE: &str = "
CREATE TABLE IF NOT EXISTS hub_keys (
    term INTEGER NOT NULL,
    migration_id INTEGER NOT NULL,
    record_time INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    rest BLOB NOT NULL,
    PRIMARY KEY (term, migration_id, record_time, seq)
) WITHOUT ROWID;
";

const COLUMNS: &str = "migration_id, record_time, seq, rest";

/// The bytes of the keys after the first of `keys` (sorted, one migration).
fn encode(keys: &[Pos]) -> Vec<u8> {
    encode_steps(keys, false)
}

/// The keys of a block whose first key is `first` and whose next are `rest`, oldest first
/// (`None`: bytes no writer of this build wrote).
fn decode(first: Pos, rest: &[u8]) -> Option<Vec<Pos>> {
    decode_steps(first, rest, false)
}

/// A block's keys from a row of [`COLUMNS`] (at `from`).
fn block(r: &Row<'_>, from: usize) -> rusqlite::Result<Vec<Pos>> {
    let first = (r.get(from)?, r.get(from + 1)?, r.get(from + 2)?);
    let rest = r.get_ref(from + 3)?.as_blob()?;
    decode(first, rest).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            from + 3,
            rusqlite::types::Type::Blob,
            "a block of keys that does not decode".into(),
        )
    })
}

/// Writes `keys` (sorted, distinct, of one migration) as `term`'s blocks of [`MOST`].
fn insert(conn: &Connection, term: i64, keys: &[Pos]) -> rusqlite::Result<()> {
    let mut insert = conn.prepare_cached(
        "INSERT INTO hub_keys (term, migration_id, record_time, seq, rest)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for chunk in keys.chunks(MOST) {
        let first = chunk[0];
        insert.execute(params![term, first.0, first.1, first.2, encode(chunk)])?;
    }
    Ok(())
}

/// Adds `keys` (sorted, distinct; none the term has) to `term`'s blocks: each into the block
/// whose place it falls in (a sync that fills a gap or walks chunks writes between the keys a
/// hub has), that block written again, split into blocks of [`MOST`] when it grows past it.
/// A page at the head (the usual case) reads and writes the term's newest block: one read, as
/// the newest block's first key is at or before the page's, and no block follows it.
pub(super) fn add(conn: &Connection, term: i64, keys: &[Pos]) -> rusqlite::Result<()> {
    let mut newest = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM hub_keys WHERE term = ?1 AND migration_id = ?2
         ORDER BY record_time DESC, seq DESC LIMIT 1"
    ))?;
    let mut at_or_before = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM hub_keys WHERE term = ?1 AND migration_id = ?2
           AND (record_time, seq) <= (?3, ?4)
         ORDER BY record_time DESC, seq DESC LIMIT 1"
    ))?;
    let mut first_of = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM hub_keys WHERE term = ?1 AND migration_id = ?2
         ORDER BY record_time, seq LIMIT 1"
    ))?;
    let mut next_after = conn.prepare_cached(
        "SELECT record_time, seq FROM hub_keys WHERE term = ?1 AND migration_id = ?2
           AND (record_time, seq) > (?3, ?4)
         ORDER BY record_time, seq LIMIT 1",
    )?;
    let mut rewrite = conn.prepare_cached(
        "UPDATE hub_keys SET rest = ?5
         WHERE term = ?1 AND migration_id = ?2 AND record_time = ?3 AND seq = ?4",
    )?;
    let mut delete = conn.prepare_cached(
        "DELETE FROM hub_keys WHERE term = ?1 AND migration_id = ?2 AND record_time = ?3 AND seq = ?4",
    )?;
    let mut i = 0;
    while i < keys.len() {
        let k = keys[i];
        let last = newest
            .query_row(params![term, k.0], |r| block(r, 0))
            .optional()?;
        // At the head: the newest block, no block after it.
        let (found, next) = match last {
            None => (None, None),
            Some(b) if b[0] <= k => (Some(b), None),
            Some(_) => {
                let found = match at_or_before
                    .query_row(params![term, k.0, k.1, k.2], |r| block(r, 0))
                    .optional()?
                {
                    Some(b) => Some(b),
                    None => first_of
                        .query_row(params![term, k.0], |r| block(r, 0))
                        .optional()?,
                };
                // The keys of this migration that fall before the next block's first.
                let next: Option<(i64, i64)> = match &found {
                    Some(b) => next_after
                        .query_row(params![term, k.0, b[0].1, b[0].2], |r| {
                            Ok((r.get(0)?, r.get(1)?))
                        })
                        .optional()?,
                    None => None,
                };
                (found, next)
            }
        };
        let mut j = i;
        while j < keys.len()
            && keys[j].0 == k.0
            && next.is_none_or(|(t, s)| (keys[j].1, keys[j].2) < (t, s))
        {
            j += 1;
        }
        let new = &keys[i..j];
        i = j;
        let Some(old) = found else {
            insert(conn, term, new)?;
            continue;
        };
        let mut merged = Vec::with_capacity(old.len() + new.len());
        merged.extend_from_slice(&old);
        merged.extend_from_slice(new);
        merged.sort_unstable();
        merged.dedup();
        let first = old[0];
        if merged[0] == first {
            // The block keeps its first key: its bytes rewritten, what is past MOST in new
            // blocks.
            let (own, more) = merged.split_at(merged.len().min(MOST));
            rewrite.execute(params![term, first.0, first.1, first.2, encode(own)])?;
            insert(conn, term, more)?;
        } else {
            delete.execute(params![term, first.0, first.1, first.2])?;
            insert(conn, term, &merged)?;
        }
    }
    Ok(())
}

/// Moves `term`'s keys from `keys` into its blocks (it has just become a hub or reached
/// [`FROM`]: its keys are in `keys`; any block it has already keeps its own). Returns how many
/// moved.
pub(super) fn take_in(conn: &Connection, term: i64) -> rusqlite::Result<usize> {
    let mut read = conn.prepare_cached(
        "SELECT migration_id, record_time, seq FROM keys WHERE term = ?1
         ORDER BY migration_id, record_time, seq",
    )?;
    let keys = read
        .query_map([term], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<Vec<Pos>>>()?;
    for run in keys.chunk_by(|a, b| a.0 == b.0) {
        add(conn, term, run)?;
    }
    conn.prepare_cached("DELETE FROM keys WHERE term = ?1")?
        .execute([term])?;
    Ok(keys.len())
}

/// Moves `term`'s keys from its blocks back to `keys` (prune left it under [`FROM`], and it is
/// not a hub).
pub(super) fn give_back(conn: &Connection, term: i64) -> rusqlite::Result<()> {
    let keys = all(conn, term, None)?;
    let mut insert = conn.prepare_cached(
        "INSERT OR IGNORE INTO keys (term, migration_id, record_time, seq) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (migration, time, seq) in keys {
        insert.execute(params![term, migration, time, seq])?;
    }
    forget(conn, term)
}

/// The block [`has`] read last for a term, kept for the keys looked for after it: each key from
/// the block's first up to the key it was read for (or its last, if later) falls in that block,
/// as a term's blocks of a migration do not overlap; with no block, no key of that migration
/// up to the one looked for is there. A walk tests its updates newest first, so the next is
/// mostly in the block kept: read once, not once an update.
#[derive(Default)]
pub(super) struct Seen(Option<(Pos, Pos, Vec<Pos>)>);

/// Whether `term`'s blocks hold `key`: from the block `seen` keeps when the key falls in it,
/// else from the one block whose place it falls in, read and kept.
pub(super) fn has(
    conn: &Connection,
    term: i64,
    key: Pos,
    seen: &mut Seen,
) -> rusqlite::Result<bool> {
    if let Some((lo, hi, keys)) = &seen.0
        && (*lo..=*hi).contains(&key)
    {
        return Ok(keys.binary_search(&key).is_ok());
    }
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM hub_keys WHERE term = ?1 AND migration_id = ?2
           AND (record_time, seq) <= (?3, ?4)
         ORDER BY record_time DESC, seq DESC LIMIT 1"
    ))?;
    let found = stmt
        .query_row(params![term, key.0, key.1, key.2], |r| block(r, 0))
        .optional()?;
    let (lo, hi, keys) = match found {
        Some(keys) => {
            let last = keys.last().copied().unwrap_or(key);
            (keys.first().copied().unwrap_or(key), key.max(last), keys)
        }
        None => ((key.0, i64::MIN, i64::MIN), key, Vec::new()),
    };
    let hit = keys.binary_search(&key).is_ok();
    seen.0 = Some((lo, hi, keys));
    Ok(hit)
}

/// An index of schema `found` brought to 21 (19 → 20, 20 → 21), what each step did said in
/// `done`.
pub(super) fn migrate(
    conn: &Connection,
    found: i64,
    done: &mut Vec<String>,
) -> rusqlite::Result<()> {
    const REUSED: &str = "the space freed is reused by the next syncs; `VACUUM` gives it back now";
    if found < 20 {
        let moved = migrate_19_to_20(conn)?;
        done.push(format!(
            "the {moved} keys of the frequent terms (the hubs) kept as blocks of up to {MOST} keys, each next key as its steps from the one before ({REUSED})"
        ));
    }
    if found < 21 {
        let (terms, moved, from) = migrate_20_to_21(conn)?;
        if terms > 0 {
            done.push(format!(
                "the {moved} keys of the {terms} other terms with at least {from} updates kept as blocks too ({REUSED})"
            ));
        }
    }
    Ok(())
}

/// Schema 19 → 20: every hub's keys moved into its blocks. Returns how many keys moved.
fn migrate_19_to_20(conn: &Connection) -> rusqlite::Result<usize> {
    conn.execute_batch(CREATE)?;
    let hubs: Vec<i64> = conn
        .prepare("SELECT term FROM hubs ORDER BY term")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut moved = 0;
    for term in hubs {
        moved += take_in(conn, term)?;
    }
    Ok(moved)
}

/// Schema 20 → 21: the keys of every term with at least the index's [`FROM`] updates that is
/// not a hub moved into its blocks. Returns how many terms and keys moved, and that count.
fn migrate_20_to_21(conn: &Connection) -> rusqlite::Result<(usize, usize, i64)> {
    let from = from(conn)?;
    let terms: Vec<i64> = conn
        .prepare(
            "SELECT id FROM terms WHERE n >= ?1 AND id NOT IN (SELECT term FROM hubs) ORDER BY id",
        )?
        .query_map([from], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut moved = 0;
    for term in &terms {
        moved += take_in(conn, *term)?;
    }
    conn.execute(
        "INSERT OR IGNORE INTO meta (key, value) VALUES (?1, ?2)",
        params![FROM_KEY, from.to_string()],
    )?;
    Ok((terms.len(), moved, from))
}

/// Where a walk of a term's blocks stops: below `lo`, and (within bounds) outside the record
/// times `times` of each migration.
#[derive(Clone, Copy)]
pub(super) struct Bounds {
    pub(super) lo: Pos,
    pub(super) times: Option<(i64, i64)>,
}

impl Bounds {
    pub(super) const NONE: Bounds = Bounds {
        lo: crate::store::newest::BOTTOM,
        times: None,
    };
}

/// `term`'s keys below `below` within `bounds`, newest first: at least `most` when it has them
/// (whole blocks are read, and all of a block's keys returned).
pub(super) fn below(
    conn: &Connection,
    term: i64,
    mut below: Pos,
    most: usize,
    bounds: Bounds,
) -> rusqlite::Result<Vec<Pos>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM hub_keys
         WHERE term = ?1 AND (migration_id, record_time, seq) < (?2, ?3, ?4)
         ORDER BY migration_id DESC, record_time DESC, seq DESC LIMIT 1"
    ))?;
    let mut out = Vec::new();
    'blocks: while out.len() < most && below > bounds.lo {
        let Some(keys) = stmt
            .query_row(params![term, below.0, below.1, below.2], |r| block(r, 0))
            .optional()?
        else {
            break;
        };
        let first = keys[0];
        if let Some((_, until)) = bounds.times {
            // A block of an earlier migration: its keys from the bounds' newest time down.
            let cap = (first.0, until, i64::MAX);
            if first.0 < below.0 && below > cap {
                below = cap;
                continue;
            }
        }
        let under = below;
        for key in keys.iter().rev().filter(|k| **k < under) {
            if *key < bounds.lo {
                break 'blocks;
            }
            if let Some((from, until)) = bounds.times {
                if key.1 > until {
                    continue;
                }
                if key.1 < from {
                    // The rest of this migration is before the bounds: on to the one before.
                    below = (key.0, i64::MIN, i64::MIN);
                    continue 'blocks;
                }
            }
            out.push(*key);
        }
        below = first;
    }
    Ok(out)
}

/// Every key of `term`'s blocks within one part of the history (a migration and its record
/// times), or all of them, newest first.
pub(super) fn all(
    conn: &Connection,
    term: i64,
    part: Option<[i64; 3]>,
) -> rusqlite::Result<Vec<Pos>> {
    match part {
        None => below(
            conn,
            term,
            (i64::MAX, i64::MAX, i64::MAX),
            usize::MAX,
            Bounds::NONE,
        ),
        Some([migration, from, until]) => below(
            conn,
            term,
            (migration, until, i64::MAX),
            usize::MAX,
            Bounds {
                lo: (migration, from, i64::MIN),
                times: Some((from, until)),
            },
        ),
    }
}

/// Prune's share: `term`'s keys of a record time (as kept) before `before` removed from its
/// blocks. Returns their seqs.
pub(super) fn prune(conn: &Connection, term: i64, before: i64) -> rusqlite::Result<Vec<i64>> {
    let mut read = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM hub_keys WHERE term = ?1 AND record_time < ?2"
    ))?;
    let blocks = read
        .query_map(params![term, before], |r| block(r, 0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut delete = conn.prepare_cached(
        "DELETE FROM hub_keys WHERE term = ?1 AND migration_id = ?2 AND record_time = ?3 AND seq = ?4",
    )?;
    let mut removed = Vec::new();
    for keys in blocks {
        let first = keys[0];
        delete.execute(params![term, first.0, first.1, first.2])?;
        let (gone, kept): (Vec<Pos>, Vec<Pos>) = keys.into_iter().partition(|k| k.1 < before);
        removed.extend(gone.iter().map(|k| k.2));
        if !kept.is_empty() {
            insert(conn, term, &kept)?;
        }
    }
    removed.sort_unstable();
    Ok(removed)
}

/// After prune removed a term no update has: its blocks go (none are left; said again).
pub(super) fn forget(conn: &Connection, term: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM hub_keys WHERE term = ?1")?
        .execute([term])?;
    Ok(())
}

/// How many terms' newest keys (kept with them) are not their last: in `keys`, or in the
/// blocks of a term that has them.
#[cfg(test)]
pub(super) fn stale_terms(conn: &Connection) -> usize {
    let in_keys: i64 = conn
        .query_row(
            "SELECT count(*) FROM terms t WHERE (t.last_migration, t.last_time, t.last_seq) IS NOT (
                SELECT k.migration_id, k.record_time, k.seq FROM keys k WHERE k.term = t.id
                ORDER BY k.migration_id DESC, k.record_time DESC, k.seq DESC LIMIT 1)
              AND t.id NOT IN (SELECT term FROM hub_keys)",
            [],
            |r| r.get(0),
        )
        .expect("stale");
    type Newest = (i64, Option<i64>, Option<i64>, Option<i64>);
    let blocked: Vec<Newest> = conn
        .prepare(
            "SELECT id, last_migration, last_time, last_seq FROM terms
             WHERE id IN (SELECT term FROM hub_keys)",
        )
        .and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                .collect()
        })
        .expect("terms with blocks");
    let top = (i64::MAX, i64::MAX, i64::MAX);
    let none = Bounds::NONE;
    blocked
        .into_iter()
        .filter(|(term, m, t, s)| {
            let newest = below(conn, *term, top, 1, none).expect("newest");
            newest.first().copied() != m.zip(*t).zip(*s).map(|((m, t), s)| (m, t, s))
        })
        .count()
        + usize::try_from(in_keys).unwrap_or(usize::MAX)
}

/// The terms whose keys are not where the rule puts them ([`in_blocks`]): in `keys` though
/// kept in blocks, or in blocks though not.
#[cfg(test)]
pub(super) fn misplaced_terms(conn: &Connection) -> Vec<i64> {
    let from = from(conn).expect("from");
    let mut stmt = conn
        .prepare(
            "SELECT t.id, t.n, t.id IN (SELECT term FROM hubs),
                    EXISTS (SELECT 1 FROM keys k WHERE k.term = t.id),
                    EXISTS (SELECT 1 FROM hub_keys b WHERE b.term = t.id)
             FROM terms t ORDER BY t.id",
        )
        .expect("terms");
    stmt.query_map([], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
    })
    .expect("rows")
    .map(|r| r.expect("row"))
    .filter(|(_, n, hub, rows, blocks): &(i64, i64, bool, bool, bool)| {
        let blocked = in_blocks(*n, *hub, from);
        (blocked && *rows) || (!blocked && *blocks)
    })
    .map(|(id, ..)| id)
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(CREATE).unwrap();
        conn
    }

    /// A table with `keys` (sorted) added as `term`'s, a migration's run at a time.
    fn written(term: i64, keys: &[Pos]) -> Connection {
        let conn = index();
        for run in keys.chunk_by(|a, b| a.0 == b.0) {
            add(&conn, term, run).unwrap();
        }
        conn
    }

    fn stored(conn: &Connection, term: i64) -> Vec<Pos> {
        let mut keys = all(conn, term, None).unwrap();
        keys.reverse();
        keys
    }

    fn blocks(conn: &Connection) -> i64 {
        conn.query_row("SELECT count(*) FROM hub_keys", [], |r| r.get(0))
            .unwrap()
    }

    /// A xorshift generator from `seed` (not 0).
    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// Keys of two migrations, times with gaps large and small, seqs up and down.
    fn keys(n: i64, seed: u64) -> Vec<Pos> {
        let mut next = rng(seed);
        let mut out: Vec<Pos> = (0..n)
            .map(|i| {
                let migration = i64::from(i >= n / 2);
                let time = -5_000_000_000 + (next() % 10_000_000_000) as i64;
                (migration, time, (next() % 1_000_000) as i64)
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    #[test]
    fn keys_added_in_any_order_read_back_as_given() {
        let all_keys = keys(2_000, 7);
        // Pages at the head, then pages between the keys there are (a gap filled, chunks).
        let conn = index();
        let even: Vec<Pos> = all_keys.iter().copied().step_by(2).collect();
        let odd: Vec<Pos> = all_keys.iter().copied().skip(1).step_by(2).collect();
        for page in even.chunks(100) {
            for run in page.chunk_by(|a, b| a.0 == b.0) {
                add(&conn, 3, run).unwrap();
            }
        }
        for page in odd.chunks(37).rev() {
            add(&conn, 3, page).unwrap();
        }
        // Another term's keys are its own.
        add(&conn, 4, &all_keys[..5]).unwrap();
        assert_eq!(stored(&conn, 3), all_keys);
        assert_eq!(stored(&conn, 4), all_keys[..5]);
        let most = i64::try_from(MOST).unwrap();
        assert!(blocks(&conn) >= 2_005 / most, "{} blocks", blocks(&conn));
        // A key's place among the blocks found: each block at most MOST keys.
        let mut stmt = conn
            .prepare("SELECT migration_id, record_time, seq, rest FROM hub_keys")
            .unwrap();
        let sizes: Vec<usize> = stmt
            .query_map([], |r| block(r, 0))
            .unwrap()
            .map(|b| b.unwrap().len())
            .collect();
        assert!(sizes.iter().all(|n| (1..=MOST).contains(n)), "{sizes:?}");
    }

    #[test]
    fn a_walk_down_within_bounds_reads_what_a_filter_of_every_key_gives() {
        let all_keys = keys(3_000, 11);
        let conn = written(9, &all_keys);
        let (from, until) = (-1_000_000_000, 2_000_000_000);
        for migration in [0, 1] {
            let mut want: Vec<Pos> = all_keys
                .iter()
                .copied()
                .filter(|k| k.0 == migration && (from..=until).contains(&k.1))
                .collect();
            want.reverse();
            assert!(want.len() > 100);
            assert_eq!(all(&conn, 9, Some([migration, from, until])).unwrap(), want);
        }
        // Across both migrations from the middle of the newer one, a few at a time.
        let bounds = Bounds {
            lo: (0, from, i64::MIN),
            times: Some((from, until)),
        };
        let mut want: Vec<Pos> = all_keys
            .iter()
            .copied()
            .filter(|k| (from..=until).contains(&k.1) && *k < (1, 0, 0))
            .collect();
        want.reverse();
        let mut got = Vec::new();
        let mut at = (1, 0, 0);
        loop {
            let read = below(&conn, 9, at, 10, bounds).unwrap();
            let Some(last) = read.last() else { break };
            assert!(read.len() >= 10 || got.len() + read.len() == want.len());
            at = *last;
            got.extend(read);
        }
        assert_eq!(got, want);
    }

    #[test]
    fn a_key_is_found_in_the_block_it_falls_in_and_no_other_is() {
        // Many blocks in two migrations, written a page at a time out of order.
        let all_keys = keys(3_000, 17);
        let conn = index();
        let even: Vec<Pos> = all_keys.iter().copied().step_by(2).collect();
        let odd: Vec<Pos> = all_keys.iter().copied().skip(1).step_by(2).collect();
        for page in even.chunks(90).chain(odd.chunks(41).rev()) {
            for run in page.chunk_by(|a, b| a.0 == b.0) {
                add(&conn, 6, run).unwrap();
            }
        }
        add(&conn, 7, &all_keys[..3]).unwrap();
        assert!(blocks(&conn) > 20, "{} blocks", blocks(&conn));
        for key in &all_keys {
            assert!(
                has(&conn, 6, *key, &mut Seen::default()).unwrap(),
                "{key:?}"
            );
        }
        // Beside each key (another seq, the other migration) or of another term: not there.
        let set: std::collections::HashSet<Pos> = all_keys.iter().copied().collect();
        for key in all_keys.iter().step_by(7) {
            for other in [(key.0, key.1, key.2 + 1), (1 - key.0, key.1, key.2)] {
                assert_eq!(
                    has(&conn, 6, other, &mut Seen::default()).unwrap(),
                    set.contains(&other),
                    "{other:?}"
                );
            }
            assert_eq!(
                has(&conn, 7, *key, &mut Seen::default()).unwrap(),
                all_keys[..3].contains(key)
            );
        }
        assert!(!has(&conn, 6, (0, i64::MIN, 0), &mut Seen::default()).unwrap());
        assert!(!has(&conn, 6, (2, 0, 0), &mut Seen::default()).unwrap());
        // One block kept from key to key: newest first as a walk tests them, then in any
        // order, the keys and those beside them answered as each alone is.
        let mut asked: Vec<Pos> = all_keys
            .iter()
            .flat_map(|k| [*k, (k.0, k.1, k.2 + 1), (k.0, k.1 - 1, k.2)])
            .chain([(0, i64::MIN, 0), (1, i64::MIN, 0), (2, 0, 0)])
            .collect();
        asked.sort_unstable();
        asked.dedup();
        let mut next = rng(5);
        let mut shuffled = asked.clone();
        for i in (1..shuffled.len()).rev() {
            shuffled.swap(i, (next() % (i as u64 + 1)) as usize);
        }
        for order in [asked.iter().rev().copied().collect::<Vec<_>>(), shuffled] {
            let mut seen = Seen::default();
            for key in order {
                assert_eq!(
                    has(&conn, 6, key, &mut seen).unwrap(),
                    set.contains(&key),
                    "{key:?}"
                );
            }
        }
    }

    #[test]
    fn prune_cuts_the_old_keys_and_keeps_the_rest() {
        let all_keys = keys(1_000, 5);
        let conn = written(2, &all_keys);
        let before = 0;
        let mut gone: Vec<i64> = all_keys
            .iter()
            .filter(|k| k.1 < before)
            .map(|k| k.2)
            .collect();
        gone.sort_unstable();
        assert!(!gone.is_empty());
        assert_eq!(prune(&conn, 2, before).unwrap(), gone);
        let kept: Vec<Pos> = all_keys.iter().copied().filter(|k| k.1 >= before).collect();
        assert_eq!(stored(&conn, 2), kept);
        forget(&conn, 2).unwrap();
        assert_eq!(blocks(&conn), 0);
    }

    #[test]
    fn steps_of_any_size_and_sign_decode_as_written() {
        let keys = [
            (5, i64::MIN / 2, i64::MAX),
            (5, i64::MIN / 2, 0),
            (5, 0, -3),
            (5, i64::MAX / 2, 1 << 40),
        ];
        assert_eq!(decode(keys[0], &encode(&keys)).unwrap(), keys);
        assert_eq!(decode(keys[0], &[0x80]), None);
    }
}
