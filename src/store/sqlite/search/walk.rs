//! The searches walked in Rust over a term's keys, wherever they are kept: a term's run in
//! `keys`, or its blocks ([`hub_keys`]: a hub's from schema 20, any term's of at least
//! [`hub_keys::FROM`] updates from 21). A page merges its driving terms' keys from each one's
//! newest ([`newest::merge`]: a prefix's many terms, or one term whose keys are in blocks); a
//! count reads them whole. Each update found is tested for the other terms ([`Tests`]): a hub
//! in its bitmap, a term with blocks in the block its key falls in, any other term by the
//! primary key of `keys`.

use std::collections::HashSet;

use rusqlite::{CachedStatement, Statement, Transaction, params};

use super::super::hub_keys::{self, Bounds};
use super::super::pairs;
use super::plan::Resolved;
use crate::store::hubs::{HubBits, id_list};
use crate::store::newest::{self, Head, Pos};

const TOP: Pos = (i64::MAX, i64::MAX, i64::MAX);

/// How an update is tested for one other term of a query.
enum Test<'c> {
    /// Any of its terms: a hub's in its bitmap, one with blocks in them (`blocked`), the
    /// others' (`probe`) by primary key.
    Terms {
        probe: Option<Statement<'c>>,
        hubs: Vec<(i64, HubBits)>,
        blocked: Vec<(i64, hub_keys::Seen)>,
    },
    /// One of these seqs (sorted).
    Seqs(Vec<i64>),
    All,
}

/// The other terms of a query, as each update of its driver is tested for them.
pub(super) struct Tests<'c> {
    /// Hubs every update must have (the others of one term that are hubs: their bitmaps).
    every: Vec<(i64, HubBits)>,
    others: Vec<Test<'c>>,
}

impl<'c> Tests<'c> {
    /// `every` the bitmaps taken from the plan ([`super::plan::Plan::take_hubs`]); `others` the
    /// rest of its other terms, their hubs read `whole` or a block at a time, the terms
    /// `in_blocks` looked for in their blocks.
    pub(super) fn new(
        tx: &'c Transaction<'_>,
        every: Vec<(i64, HubBits)>,
        others: &[Resolved],
        (hubs, in_blocks): (&HashSet<i64>, &HashSet<i64>),
        whole: bool,
    ) -> rusqlite::Result<Tests<'c>> {
        let mut tests = Vec::with_capacity(others.len());
        for other in others {
            tests.push(match other {
                Resolved::Terms { ids, .. } => {
                    let (hub_ids, rest): (Vec<i64>, Vec<i64>) =
                        ids.iter().partition(|id| hubs.contains(id));
                    let (blocked, rest): (Vec<i64>, Vec<i64>) =
                        rest.into_iter().partition(|id| in_blocks.contains(id));
                    let blocked = blocked
                        .into_iter()
                        .map(|id| (id, hub_keys::Seen::default()))
                        .collect();
                    let mut bitmaps = Vec::with_capacity(hub_ids.len());
                    for id in hub_ids {
                        if let Some(bits) = pairs::bits(tx, id, whole)? {
                            bitmaps.push((id, bits));
                        }
                    }
                    let probe = if rest.is_empty() {
                        None
                    } else {
                        Some(tx.prepare(&format!(
                            "SELECT 1 FROM keys WHERE term IN ({}) AND migration_id = ?1 AND record_time = ?2 AND seq = ?3",
                            id_list(&rest)
                        ))?)
                    };
                    Test::Terms {
                        probe,
                        hubs: bitmaps,
                        blocked,
                    }
                }
                Resolved::Seqs(seqs) => {
                    let mut seqs = seqs.clone();
                    seqs.sort_unstable();
                    Test::Seqs(seqs)
                }
                Resolved::All => Test::All,
            });
        }
        Ok(Tests {
            every,
            others: tests,
        })
    }

    /// Whether the update at `pos` has every other term.
    pub(super) fn pass(&mut self, tx: &Transaction<'_>, pos: Pos) -> rusqlite::Result<bool> {
        for (term, bits) in &mut self.every {
            pairs::read_block(tx, *term, bits, pos.2)?;
            if !bits.has(pos.2) {
                return Ok(false);
            }
        }
        for test in &mut self.others {
            let has = match test {
                Test::Terms {
                    probe,
                    hubs,
                    blocked,
                } => {
                    let mut any = false;
                    for (term, bits) in hubs.iter_mut() {
                        pairs::read_block(tx, *term, bits, pos.2)?;
                        if bits.has(pos.2) {
                            any = true;
                            break;
                        }
                    }
                    for (term, seen) in blocked.iter_mut() {
                        if any {
                            break;
                        }
                        any = hub_keys::has(tx, *term, pos, seen)?;
                    }
                    match probe {
                        Some(probe) if !any => probe.exists(params![pos.0, pos.1, pos.2])?,
                        _ => any,
                    }
                }
                Test::Seqs(seqs) => seqs.binary_search(&pos.2).is_ok(),
                Test::All => true,
            };
            if !has {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Reads a term's keys below a position, newest first, from `keys` or from its blocks.
pub(super) struct Runs<'c> {
    /// The terms whose keys are in blocks.
    in_blocks: &'c HashSet<i64>,
    run: CachedStatement<'c>,
    bounded: CachedStatement<'c>,
}

impl<'c> Runs<'c> {
    pub(super) fn new(
        tx: &'c Transaction<'_>,
        in_blocks: &'c HashSet<i64>,
    ) -> rusqlite::Result<Self> {
        Ok(Runs {
            in_blocks,
            run: tx.prepare_cached(
                "SELECT migration_id, record_time, seq FROM keys
                 WHERE term = ?1 AND (migration_id, record_time, seq) < (?2, ?3, ?4)
                 ORDER BY migration_id DESC, record_time DESC, seq DESC LIMIT ?5",
            )?,
            bounded: tx.prepare_cached(
                "SELECT migration_id, record_time, seq FROM keys
                 WHERE term = ?1 AND (migration_id, record_time, seq) < (?2, ?3, ?4)
                   AND (migration_id, record_time, seq) >= (?5, ?6, ?7)
                   AND record_time >= ?6 AND record_time <= ?8
                 ORDER BY migration_id DESC, record_time DESC, seq DESC LIMIT ?9",
            )?,
        })
    }

    /// `term`'s keys below `below` within `bounds`, newest first: `most` of them (whole
    /// blocks: more).
    pub(super) fn read(
        &mut self,
        tx: &Transaction<'_>,
        term: i64,
        below: Pos,
        most: usize,
        bounds: Bounds,
    ) -> rusqlite::Result<Vec<Pos>> {
        if self.in_blocks.contains(&term) {
            return hub_keys::below(tx, term, below, most, bounds);
        }
        let most = i64::try_from(most).unwrap_or(i64::MAX);
        let row = |r: &rusqlite::Row<'_>| Ok((r.get(0)?, r.get(1)?, r.get(2)?));
        match bounds.times {
            None => self
                .run
                .query_map(params![term, below.0, below.1, below.2, most], row)?
                .collect(),
            Some((from, until)) => {
                let lo = bounds.lo;
                self.bounded
                    .query_map(
                        params![
                            term, below.0, below.1, below.2, lo.0, from, lo.2, until, most
                        ],
                        row,
                    )?
                    .collect()
            }
        }
    }
}

/// The seqs of the `limit` newest updates of `heads`' terms that pass `tests`
/// ([`newest::merge`]), within `segments` when bounded.
pub(super) fn merged(
    tx: &Transaction<'_>,
    runs: &mut Runs<'_>,
    heads: &[Head],
    segments: Option<&[[i64; 3]]>,
    tests: &mut Tests<'_>,
    limit: usize,
) -> rusqlite::Result<Vec<i64>> {
    let mut keep = |pos: Pos| tests.pass(tx, pos);
    let Some(parts) = segments else {
        return newest::merge(
            heads,
            limit,
            &mut |term, below: Pos, most| runs.read(tx, term, below, most, Bounds::NONE),
            &mut keep,
        );
    };
    // Within bounds: one merge over the migrations the bounds reach (newest first in
    // `parts`, each with the same times), from `hi` down to `lo`; a term enters at its
    // newest key when that is within them, else is read from `hi` down (one read).
    let (Some(newest), Some(oldest)) = (parts.first(), parts.last()) else {
        return Ok(Vec::new());
    };
    let (from, until) = (newest[1], newest[2]);
    let hi: Pos = (newest[0], until, i64::MAX);
    let bounds = Bounds {
        lo: (oldest[0], from, i64::MIN),
        times: Some((from, until)),
    };
    let within: Vec<Head> = heads
        .iter()
        .filter_map(|h| match h.last {
            Some(last) if last < bounds.lo => None,
            Some(last) if last <= hi && (from..=until).contains(&last.1) => Some(*h),
            _ => Some(Head { last: None, ..*h }),
        })
        .collect();
    newest::merge(
        &within,
        limit,
        &mut |term, below: Pos, most| runs.read(tx, term, below.min(hi), most, bounds),
        &mut keep,
    )
}

/// Whether `pos` is within one of `parts` (every position is, without parts).
fn within(parts: Option<&[[i64; 3]]>, pos: Pos) -> bool {
    parts.is_none_or(|parts| {
        parts
            .iter()
            .any(|[m, from, until]| pos.0 == *m && (*from..=*until).contains(&pos.1))
    })
}

/// The positions of the updates `seqs` within `parts`, newest first.
fn positions_of(
    tx: &Transaction<'_>,
    seqs: &[i64],
    parts: Option<&[[i64; 3]]>,
) -> rusqlite::Result<Vec<Pos>> {
    let mut stmt =
        tx.prepare_cached("SELECT migration_id, record_time, seq FROM updates WHERE seq = ?1")?;
    let mut out = Vec::with_capacity(seqs.len());
    for seq in seqs {
        let mut rows = stmt.query([seq])?;
        if let Some(r) = rows.next()? {
            let pos = (r.get(0)?, r.get(1)?, r.get(2)?);
            if within(parts, pos) {
                out.push(pos);
            }
        }
    }
    out.sort_unstable_by(|a, b| b.cmp(a));
    Ok(out)
}

/// A page of the updates `seqs` that pass `tests`, newest first.
pub(super) fn seqs_page(
    tx: &Transaction<'_>,
    seqs: &[i64],
    segments: Option<&[[i64; 3]]>,
    tests: &mut Tests<'_>,
    limit: usize,
) -> rusqlite::Result<Vec<i64>> {
    let mut out = Vec::new();
    for pos in positions_of(tx, seqs, segments)? {
        if out.len() >= limit {
            break;
        }
        if tests.pass(tx, pos)? {
            out.push(pos.2);
        }
    }
    Ok(out)
}

/// How many updates of `driver` within `segments` pass `tests`, each once.
pub(super) fn count(
    tx: &Transaction<'_>,
    runs: &mut Runs<'_>,
    driver: &Resolved,
    segments: Option<&[[i64; 3]]>,
    tests: &mut Tests<'_>,
) -> rusqlite::Result<u64> {
    let mut found: Vec<Pos> = match driver {
        Resolved::Terms { ids, .. } => {
            let mut found = Vec::new();
            for id in ids {
                match segments {
                    None => found.extend(runs.read(tx, *id, TOP, usize::MAX, Bounds::NONE)?),
                    Some(parts) => {
                        for [migration, from, until] in parts {
                            let bounds = Bounds {
                                lo: (*migration, *from, i64::MIN),
                                times: Some((*from, *until)),
                            };
                            let top = (*migration, *until, i64::MAX);
                            found.extend(runs.read(tx, *id, top, usize::MAX, bounds)?);
                        }
                    }
                }
            }
            found
        }
        Resolved::Seqs(seqs) => positions_of(tx, seqs, segments)?,
        Resolved::All => {
            let mut stmt =
                tx.prepare_cached("SELECT migration_id, record_time, seq FROM updates")?;
            let all = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<Vec<Pos>>>()?;
            all.into_iter().filter(|p| within(segments, *p)).collect()
        }
    };
    found.sort_unstable_by_key(|p| p.2);
    found.dedup_by_key(|p| p.2);
    let mut n = 0;
    for pos in found {
        n += u64::from(tests.pass(tx, pos)?);
    }
    Ok(n)
}
