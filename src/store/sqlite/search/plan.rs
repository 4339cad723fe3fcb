//! A query's plan over the key tables: what each term stands for ([`Resolved`]), the term
//! whose updates are walked and the others they are tested for ([`Plan`]), and its SQL.

use std::collections::HashSet;

use crate::store::hubs::{HubBits, id_list};
use crate::store::newest::Head;

/// What one term of a query stands for.
pub(super) enum Resolved {
    /// Term ids and how many updates have them (summed: an estimate for a prefix), with the
    /// newest key of each; `merge`: a prefix's terms, whose page merges their keys from each
    /// one's newest ([`crate::store::newest::merge`]).
    Terms {
        ids: Vec<i64>,
        n: i64,
        heads: Vec<Head>,
        merge: bool,
    },
    /// The seqs of the updates (an update-id prefix).
    Seqs(Vec<i64>),
    /// Every update (a query without terms).
    All,
}

impl Resolved {
    /// Terms found with their newest keys.
    pub(super) fn of_heads(heads: Vec<Head>) -> Resolved {
        Resolved::Terms {
            ids: heads.iter().map(|h| h.id).collect(),
            n: heads.iter().map(|h| h.n).sum(),
            heads,
            merge: true,
        }
    }

    /// Whole keys found: one is planned as an exact term (its count, its pairs, its hub), more
    /// as a prefix's terms.
    pub(super) fn of_keys(heads: Vec<Head>) -> Resolved {
        match heads[..] {
            [one] => Resolved::Terms {
                ids: vec![one.id],
                n: one.n,
                heads: vec![one],
                merge: false,
            },
            _ => Resolved::of_heads(heads),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        match self {
            Resolved::Terms { ids, .. } => ids.is_empty(),
            Resolved::Seqs(seqs) => seqs.is_empty(),
            Resolved::All => false,
        }
    }

    pub(super) fn size(&self) -> i64 {
        match self {
            Resolved::Terms { n, .. } => *n,
            Resolved::Seqs(seqs) => i64::try_from(seqs.len()).unwrap_or(i64::MAX),
            Resolved::All => i64::MAX,
        }
    }
}

/// A query's plan: the term whose updates are walked, and the terms each of them is probed for.
pub(super) struct Plan {
    pub(super) driver: Resolved,
    pub(super) others: Vec<Resolved>,
}

/// What the SQL of a plan selects.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Select {
    /// (migration, record time, seq) newest first, `LIMIT ?4`.
    Page,
    Count,
    /// The seqs of the matching updates, each once.
    Seqs,
    /// (migration, record time, seq) newest first, every one.
    Walk,
}

impl Plan {
    /// The two term ids of a query of two whole keys (the pair two hubs' count is kept for).
    pub(super) fn two_terms(&self) -> Option<(i64, i64)> {
        match (&self.driver, self.others.as_slice()) {
            (Resolved::Terms { ids: x, .. }, [Resolved::Terms { ids: y, .. }]) => {
                match (x.as_slice(), y.as_slice()) {
                    ([x], [y]) => Some((*x, *y)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Takes the other terms that are hubs out of the plan, with their bitmaps (read `whole`,
    /// or a block at a time): the caller tests the driver's updates in them.
    pub(super) fn take_hubs(
        &mut self,
        tx: &rusqlite::Transaction<'_>,
        whole: bool,
    ) -> rusqlite::Result<Vec<(i64, HubBits)>> {
        let mut hubs = Vec::new();
        let mut others = Vec::with_capacity(self.others.len());
        for other in std::mem::take(&mut self.others) {
            if let Resolved::Terms { ids, .. } = &other
                && let [id] = ids.as_slice()
                && let Some(bits) = super::super::pairs::bits(tx, *id, whole)?
            {
                hubs.push((*id, bits));
            } else {
                others.push(other);
            }
        }
        self.others = others;
        Ok(hubs)
    }

    /// The ids of the plan's terms whose keys are in blocks ([`super::super::hub_keys`]):
    /// `hubs`, and each term of at least `from` updates.
    pub(super) fn in_blocks(&self, hubs: &HashSet<i64>, from: i64) -> HashSet<i64> {
        let mut out = hubs.clone();
        for r in std::iter::once(&self.driver).chain(&self.others) {
            if let Resolved::Terms { heads, .. } = r {
                out.extend(heads.iter().filter(|h| h.n >= from).map(|h| h.id));
            }
        }
        out
    }

    /// Whether a term of the plan (after [`Self::take_hubs`]) has one of `in_blocks` among its
    /// ids: its keys are in blocks, which the SQL of [`Self::sql`] does not read, so the query
    /// is walked in Rust ([`super::walk`]).
    pub(super) fn touches(&self, in_blocks: &HashSet<i64>) -> bool {
        let has_blocks = |r: &Resolved| match r {
            Resolved::Terms { ids, .. } => ids.iter().any(|id| in_blocks.contains(id)),
            Resolved::Seqs(_) | Resolved::All => false,
        };
        !matches!(self.driver, Resolved::All)
            && (has_blocks(&self.driver) || self.others.iter().any(has_blocks))
    }

    /// The SQL over one part of the history: with `segmented`, `?1` is the migration and
    /// `?2..=?3` the record times. The term ids and seqs are integers read from the index
    /// itself, written into the SQL as numbers.
    pub(super) fn sql(&self, segmented: bool, select: Select) -> String {
        let (from, distinct) = match &self.driver {
            Resolved::Terms { ids, .. } => (
                format!("keys a WHERE a.term IN ({})", id_list(ids)),
                ids.len() > 1,
            ),
            Resolved::Seqs(seqs) => (
                format!("updates a WHERE a.seq IN ({})", id_list(seqs)),
                false,
            ),
            Resolved::All => ("updates a WHERE 1".to_owned(), false),
        };
        let mut clause = from;
        if segmented {
            clause.push_str(
                " AND a.migration_id = ?1 AND a.record_time >= ?2 AND a.record_time <= ?3",
            );
        }
        for other in &self.others {
            match other {
                Resolved::Terms { ids, .. } => clause.push_str(&format!(
                    " AND EXISTS (SELECT 1 FROM keys b WHERE b.term IN ({}) AND b.migration_id = a.migration_id AND b.record_time = a.record_time AND b.seq = a.seq)",
                    id_list(ids)
                )),
                Resolved::Seqs(seqs) => {
                    clause.push_str(&format!(" AND a.seq IN ({})", id_list(seqs)));
                }
                Resolved::All => {}
            }
        }
        let limit = if segmented { "?4" } else { "?1" };
        let distinct = if distinct { "DISTINCT " } else { "" };
        match select {
            Select::Page => format!(
                "SELECT {distinct}a.migration_id, a.record_time, a.seq FROM {clause}
                 ORDER BY a.migration_id DESC, a.record_time DESC, a.seq DESC LIMIT {limit}"
            ),
            Select::Count => format!("SELECT count(*) FROM (SELECT {distinct}a.seq FROM {clause})"),
            Select::Seqs => format!("SELECT {distinct}a.seq FROM {clause}"),
            Select::Walk => format!(
                "SELECT {distinct}a.migration_id, a.record_time, a.seq FROM {clause}
                 ORDER BY a.migration_id DESC, a.record_time DESC, a.seq DESC"
            ),
        }
    }
}
