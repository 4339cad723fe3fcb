//! Search and count over the key tables: a query's terms resolved to term ids (prefixes
//! matched in Rust), the rarest term driving, time bounds as per-migration ranges, the other
//! terms probed in the keys or, when they are hubs, tested in their bitmaps.

use crate::model::index::query::{EventsValue, party_hinted, template_named};
use crate::store::newest::Head;

use super::{
    KeyKind, OptionalExtension, Query, SearchRow, SqliteIndex, StoreError, Term, engine_error,
    format_time_micros, params,
};

mod plan;
mod walk;

use plan::{Plan, Resolved, Select};

/// Most keys a prefix term may stand for (a shorter prefix is asked for beyond it).
const MAX_PREFIX_MATCHES: usize = 100_000;
/// Updates a walk of two hubs reads (the last not yet tested) without finding a row before it
/// asks whether any update has both (the count kept for the pair).
const APART_AFTER: usize = 100;

/// The updates whose id, kept as text, is at or after `?2` in the order of the heads' index
/// ([`super::update_ids::HEAD`]), in that order (`?1`: no kind, as [`SqliteIndex::scan_prefix`]
/// binds it).
pub(super) const UPDATE_PREFIX_TEXT: &str =
    "SELECT seq, update_id, 1, NULL, NULL, NULL FROM updates
     WHERE substr(update_id, 1, 6) >= substr(?2, 1, 6) AND substr(update_id, 1, 6) < X''
       AND ?1 IS NULL
     ORDER BY substr(update_id, 1, 6)";

/// [`UPDATE_PREFIX_TEXT`] of the ids kept as bytes (after every text).
pub(super) const UPDATE_PREFIX_BYTES: &str =
    "SELECT seq, update_id, 1, NULL, NULL, NULL FROM updates
     WHERE substr(update_id, 1, 6) >= substr(?2, 1, 6) AND ?1 IS NULL
     ORDER BY substr(update_id, 1, 6)";

/// A term's row as a [`Head`]: its id first, its count at `n`, its newest key (migration,
/// time, seq; unknown when any is NULL) in the three columns after.
fn head_of(row: &rusqlite::Row<'_>, n: usize) -> rusqlite::Result<Head> {
    let last: (Option<i64>, Option<i64>, Option<i64>) =
        (row.get(n + 1)?, row.get(n + 2)?, row.get(n + 3)?);
    Ok(Head {
        id: row.get(0)?,
        n: row.get(n)?,
        last: match last {
            (Some(m), Some(t), Some(s)) => Some((m, t, s)),
            _ => None,
        },
    })
}

impl SqliteIndex {
    /// What `term` stands for in the index.
    fn resolve(&self, term: &Term) -> Result<Resolved, StoreError> {
        match term {
            Term::Exact(kind, value) => {
                let found: Option<Head> = self
                    .conn
                    .prepare_cached(
                        "SELECT id, n, last_migration, last_time, last_seq FROM terms
                         WHERE kind = ?1 AND value = ?2",
                    )
                    .and_then(|mut stmt| {
                        let stored = super::term_values::stored(kind.code(), value);
                        stmt.query_row(params![kind.code(), stored], |r| head_of(r, 1))
                            .optional()
                    })
                    .map_err(|e| self.engine(&e))?;
                Ok(Resolved::of_keys(found.into_iter().collect()))
            }
            Term::ContractPrefix(prefix) => {
                let mut heads = Vec::new();
                for head in &prefix.heads {
                    let tail = |id: &str| prefix.tail_matches(head, id);
                    self.term_heads(KeyKind::Contract, head, &tail, &mut heads)?;
                }
                heads.sort_unstable_by_key(|h| h.id);
                heads.dedup_by_key(|h| h.id);
                Ok(Resolved::of_heads(heads))
            }
            Term::TemplateName(name) => {
                // Every template id (a few hundred on a network, one per template and package
                // version), its name matched here.
                let mut heads = Vec::new();
                self.term_heads(
                    KeyKind::Template,
                    "",
                    &|id| template_named(id, name),
                    &mut heads,
                )?;
                Ok(Resolved::of_heads(heads))
            }
            Term::PartyHint(hint) => {
                // The parties whose ids start with the hint, their hint matched here.
                let mut heads = Vec::new();
                self.term_heads(
                    KeyKind::Party,
                    hint,
                    &|id| party_hinted(id, hint),
                    &mut heads,
                )?;
                // One party (the usual case): the plans of its whole id.
                Ok(Resolved::of_keys(heads))
            }
            Term::Choices(choices) => {
                // Each choice by its whole name; one found (the usual case) is one key.
                let mut heads = Vec::new();
                for choice in choices {
                    self.term_heads(KeyKind::Choice, choice, &|c| c == choice, &mut heads)?;
                }
                Ok(Resolved::of_keys(heads))
            }
            Term::Events(term) => {
                // The updates whose kept events have the column's value (by the events'
                // indexes on the verdicts other than accepted, and on the round).
                let sql = crate::store::events_term_sql(term, '?');
                let (_, value) = term.column();
                let mut stmt = self
                    .conn
                    .prepare_cached(&sql)
                    .map_err(|e| self.engine(&e))?;
                let value: rusqlite::types::Value = match value {
                    EventsValue::Text(v) => v.to_owned().into(),
                    EventsValue::Number(n) => n.into(),
                };
                let seqs = stmt
                    .query_map([value], |r| r.get(0))
                    .and_then(|rows| rows.collect::<rusqlite::Result<Vec<i64>>>())
                    .map_err(|e| self.engine(&e))?;
                Ok(Resolved::Seqs(seqs))
            }
            Term::UpdatePrefix(prefix) => {
                // The ids kept as text, then those kept as bytes ([`super::update_ids`]), each
                // run in the order of the heads' index: as far as the first 6 characters of
                // a text, the first 6 bytes (12 hex digits) of bytes.
                let mut seqs = Vec::new();
                for head in &prefix.heads {
                    let (text_from, bytes_from) = super::update_ids::prefix_bounds(head);
                    let runs = [
                        (UPDATE_PREFIX_TEXT, Some(text_from), 6),
                        (UPDATE_PREFIX_BYTES, bytes_from, 12),
                    ];
                    for (sql, from, ordered) in runs {
                        if let Some(from) = from {
                            let ordered = head
                                .char_indices()
                                .nth(ordered)
                                .map_or(head.as_str(), |(at, _)| &head[..at]);
                            self.scan_prefix(
                                sql,
                                None,
                                &from,
                                (head, ordered),
                                &mut |found| seqs.push(found.id),
                                &|id| prefix.tail_matches(head, id),
                            )?;
                        }
                    }
                }
                seqs.sort_unstable();
                seqs.dedup();
                Ok(Resolved::Seqs(seqs))
            }
        }
    }

    /// The terms of `kind` whose text starts with `prefix` and passes `keep`, onto `heads`:
    /// those kept as text, then the contract ids kept as bytes ([`super::term_values`]).
    fn term_heads(
        &self,
        kind: KeyKind,
        prefix: &str,
        keep: &dyn Fn(&str) -> bool,
        heads: &mut Vec<Head>,
    ) -> Result<(), StoreError> {
        let (text_from, bytes_from) = super::term_values::prefix_bounds(kind.code(), prefix);
        self.scan_prefix(
            "SELECT id, value, n, last_migration, last_time, last_seq FROM terms
             WHERE kind = ?1 AND value >= ?2 AND value < X'' ORDER BY kind, value",
            Some(kind.code()),
            &text_from,
            (prefix, prefix),
            &mut |head| heads.push(head),
            keep,
        )?;
        match bytes_from {
            Some(from) => self.scan_prefix(
                "SELECT id, value, n, last_migration, last_time, last_seq FROM terms
                 WHERE kind = ?1 AND value >= ?2 ORDER BY kind, value",
                Some(kind.code()),
                &from,
                (prefix, prefix),
                &mut |head| heads.push(head),
                keep,
            ),
            None => Ok(()),
        }
    }

    /// Walks `sql`'s rows (id, text, count, newest key) in text order from `from` (the stored
    /// form of `prefix`) while the text starts with `ordered`, the part of `prefix` the rows'
    /// order follows (all of it but for an update id's head), keeping those that start with
    /// `prefix` (matched here, in Rust, not by the engine).
    fn scan_prefix(
        &self,
        sql: &str,
        kind: Option<i64>,
        from: &rusqlite::types::Value,
        (prefix, ordered): (&str, &str),
        out: &mut dyn FnMut(Head),
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<(), StoreError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.engine(&e))?;
        let mut rows = stmt
            .query(params![kind, from])
            .map_err(|e| self.engine(&e))?;
        let mut matched = 0;
        while let Some(row) = rows.next().map_err(|e| self.engine(&e))? {
            let text = row
                .get_ref(1)
                .and_then(|v| super::term_values::text(v).map_err(Into::into))
                .map_err(|e| self.engine(&e))?;
            if !text.starts_with(prefix) {
                // Past the prefix in the scan's order, or beside it where the order stops
                // following the text (an update id's head).
                if text.starts_with(ordered) {
                    continue;
                }
                break;
            }
            if !keep(&text) {
                continue;
            }
            let head = head_of(row, 2).map_err(|e| self.engine(&e))?;
            out(head);
            matched += 1;
            if matched > MAX_PREFIX_MATCHES {
                return Err(StoreError::Engine {
                    path: self.path.display().to_string(),
                    detail: format!(
                        "the prefix {prefix:?} matches more than {MAX_PREFIX_MATCHES} ids: give a longer one"
                    ),
                });
            }
        }
        Ok(())
    }

    /// How a query is answered (`None`: nothing can match): the rarest term drives (an
    /// update-id prefix, when there is one: it stands for a few updates), the others are
    /// probed by primary key for each of its updates.
    fn plan(&self, query: &Query) -> Result<Option<Plan>, StoreError> {
        let mut resolved = Vec::with_capacity(query.terms.len());
        for term in &query.terms {
            let r = self.resolve(term)?;
            if r.is_empty() {
                return Ok(None);
            }
            resolved.push(r);
        }
        let driver = resolved
            .iter()
            .enumerate()
            .min_by_key(|(_, r)| (matches!(r, Resolved::Terms { .. }), r.size()))
            .map(|(i, _)| i);
        let driver = match driver {
            Some(i) => resolved.swap_remove(i),
            None => Resolved::All,
        };
        Ok(Some(Plan {
            driver,
            others: resolved,
        }))
    }

    /// The parts of the history a time-bounded query reads, newest migration first: one
    /// (migration, from, until) per migration whose updates reach into the bounds, so each
    /// part is one range of the keys' (term, migration, record time) order. `None`: no bounds,
    /// the whole history is one part.
    fn segments(
        &self,
        from: Option<i64>,
        until: Option<i64>,
    ) -> Result<Option<Vec<[i64; 3]>>, StoreError> {
        if from.is_none() && until.is_none() {
            return Ok(None);
        }
        // The bounds as the keys and rows keep their times: every time of a search from here
        // on (the parts, the keys' and the terms' positions) is a kept one.
        let kept = super::record_times::stored;
        let (from, until) = (from.map_or(i64::MIN, kept), until.map_or(i64::MAX, kept));
        let e = |e: rusqlite::Error| engine_error(&self.path, &e);
        let mut below = self
            .conn
            .prepare_cached("SELECT max(migration_id) FROM updates WHERE migration_id < ?1")
            .map_err(e)?;
        let mut first = self
            .conn
            .prepare_cached("SELECT min(record_time) FROM updates WHERE migration_id = ?1")
            .map_err(e)?;
        let mut last = self
            .conn
            .prepare_cached("SELECT max(record_time) FROM updates WHERE migration_id = ?1")
            .map_err(e)?;
        let mut out = Vec::new();
        let mut next: Option<i64> = below.query_row([i64::MAX], |r| r.get(0)).map_err(e)?;
        while let Some(migration) = next {
            let lo: Option<i64> = first.query_row([migration], |r| r.get(0)).map_err(e)?;
            let hi: Option<i64> = last.query_row([migration], |r| r.get(0)).map_err(e)?;
            if let (Some(lo), Some(hi)) = (lo, hi)
                && lo <= until
                && hi >= from
            {
                out.push([migration, from, until]);
            }
            next = below.query_row([migration], |r| r.get(0)).map_err(e)?;
        }
        Ok(Some(out))
    }

    pub(super) fn search_rows(
        &mut self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
        limit: usize,
    ) -> Result<Vec<SearchRow>, StoreError> {
        // One short read transaction: the term look-ups and the rows see the same index.
        let e = |e: rusqlite::Error| engine_error(&self.path, &e);
        let tx = self.conn.unchecked_transaction().map_err(e)?;
        let Some(mut plan) = self.plan(query)? else {
            return Ok(Vec::new());
        };
        if limit == 0 {
            return Ok(Vec::new());
        }
        let segments = self.segments(from, until)?;
        // Two terms: when both are hubs, the count kept for their pair says whether any update
        // has both (asked of a walk that found no row in its first updates).
        let pair = plan.two_terms();
        // Hubs among the other terms: the driver's updates walked newest first and tested in
        // the hubs' bitmaps (a block read when first needed) until the page is full.
        let mut bitmaps = plan.take_hubs(&tx, false).map_err(e)?;
        let (hubs, _) = super::pairs::load(&tx).map_err(e)?;
        let in_blocks = plan.in_blocks(&hubs, super::hub_keys::from(&tx).map_err(e)?);
        let mut seqs: Vec<i64> = Vec::new();
        let merge = matches!(&plan.driver, Resolved::Terms { merge: true, .. });
        if merge || plan.touches(&in_blocks) {
            // A contract-id prefix: its terms' keys merged from each term's newest one, a
            // term's run read only when the page reaches into it. A term's keys in blocks
            // walked the same way, and a term of several ids with blocks tested for each.
            if let Some((x, y)) = pair
                && super::pairs::count(&tx, x, y).map_err(e)? == Some(0)
            {
                return Ok(Vec::new());
            }
            let mut tests = walk::Tests::new(
                &tx,
                std::mem::take(&mut bitmaps),
                &plan.others,
                (&hubs, &in_blocks),
                false,
            )
            .map_err(e)?;
            let mut runs = walk::Runs::new(&tx, &in_blocks).map_err(e)?;
            let parts = segments.as_deref();
            seqs = match &plan.driver {
                Resolved::Terms { heads, .. } => {
                    walk::merged(&tx, &mut runs, heads, parts, &mut tests, limit)
                }
                Resolved::Seqs(driver) => walk::seqs_page(&tx, driver, parts, &mut tests, limit),
                Resolved::All => Ok(Vec::new()),
            }
            .map_err(e)?;
        } else if bitmaps.is_empty() {
            let mut stmt = self
                .conn
                .prepare(&plan.sql(segments.is_some(), Select::Page))
                .map_err(e)?;
            let mut take = |params: &[i64], seqs: &mut Vec<i64>| -> rusqlite::Result<()> {
                let mut rows = stmt.query(rusqlite::params_from_iter(params))?;
                while let Some(row) = rows.next()? {
                    seqs.push(row.get(2)?);
                }
                Ok(())
            };
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            match segments {
                None => take(&[limit], &mut seqs).map_err(e)?,
                Some(parts) => {
                    for [migration, from, until] in parts {
                        let left = limit - i64::try_from(seqs.len()).unwrap_or(i64::MAX);
                        if left <= 0 {
                            break;
                        }
                        take(&[migration, from, until, left], &mut seqs).map_err(e)?;
                    }
                }
            }
        } else {
            let mut stmt = self
                .conn
                .prepare(&plan.sql(segments.is_some(), Select::Walk))
                .map_err(e)?;
            let mut walked = 0;
            // Whether the walk goes on (`false`: two hubs no update has together, the count
            // kept for their pair over the whole history being 0, so no row in any range,
            // where the walk would read every update of the rarer one to find none).
            let mut walk = |params: &[i64], seqs: &mut Vec<i64>| -> rusqlite::Result<bool> {
                let mut rows = stmt.query(rusqlite::params_from_iter(params))?;
                while seqs.len() < limit
                    && let Some(row) = rows.next()?
                {
                    walked += 1;
                    if walked == APART_AFTER
                        && seqs.is_empty()
                        && let Some((x, y)) = pair
                        && super::pairs::count(&tx, x, y)? == Some(0)
                    {
                        return Ok(false);
                    }
                    let seq: i64 = row.get(2)?;
                    let mut all = true;
                    for (term, bits) in &mut bitmaps {
                        super::pairs::read_block(&tx, *term, bits, seq)?;
                        all &= bits.has(seq);
                    }
                    if all {
                        seqs.push(seq);
                    }
                }
                Ok(true)
            };
            match &segments {
                None => {
                    walk(&[], &mut seqs).map_err(e)?;
                }
                Some(parts) => {
                    for part in parts {
                        if !walk(part, &mut seqs).map_err(e)? {
                            break;
                        }
                    }
                }
            }
        }
        // Each row's sets by their ids, from the reader's copy ([`super::row_cache`]).
        let mut row_of = self
            .conn
            .prepare_cached(
                "SELECT update_id, migration_id, record_time, action, party_set
                 FROM updates WHERE seq = ?1",
            )
            .map_err(e)?;
        let mut rows = Vec::with_capacity(seqs.len());
        for seq in seqs {
            let (update_id, migration_id, record_time, action, party_set) = row_of
                .query_row([seq], |r| {
                    Ok((
                        super::update_ids::read(r, 0)?,
                        r.get(1)?,
                        super::record_times::read(r, 2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, i64>(4)?,
                    ))
                })
                .map_err(e)?;
            let (kind, root_action) = self
                .row_cache
                .action(&self.conn, action)
                .map_err(e)?
                .clone();
            let parties = self
                .row_cache
                .parties(&self.conn, party_set)
                .map_err(e)?
                .to_vec();
            rows.push(SearchRow {
                update_id,
                migration_id,
                record_time: format_time_micros(record_time),
                kind,
                root_action,
                parties,
            });
        }
        drop(row_of);
        tx.commit().map_err(e)?;
        Ok(rows)
    }

    pub(super) fn count_rows(
        &mut self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
    ) -> Result<u64, StoreError> {
        let e = |e: rusqlite::Error| engine_error(&self.path, &e);
        let tx = self.conn.unchecked_transaction().map_err(e)?;
        let Some(mut plan) = self.plan(query)? else {
            return Ok(0);
        };
        let segments = self.segments(from, until)?;
        // One key over the whole history: the count kept with its term.
        if let (None, Resolved::Terms { ids, n, .. }, true) =
            (&segments, &plan.driver, plan.others.is_empty())
            && ids.len() == 1
        {
            return Ok(u64::try_from(*n).unwrap_or(0));
        }
        // Two frequent terms: the count kept for the pair over the whole history; when no
        // update has both, none in any range either.
        if let Some((x, y)) = plan.two_terms()
            && let Some(n) = super::pairs::count(&tx, x, y).map_err(e)?
            && (segments.is_none() || n == 0)
        {
            return Ok(u64::try_from(n).unwrap_or(0));
        }
        // A contract-id prefix alone over the whole history: a term of one update is its newest
        // key, kept with the term, so only the others' keys are read (one cold read a term).
        if let (
            None,
            Resolved::Terms {
                heads, merge: true, ..
            },
            true,
        ) = (&segments, &plan.driver, plan.others.is_empty())
            && heads.iter().any(|h| h.n == 1 && h.last.is_some())
        {
            let (hubs, _) = super::pairs::load(&tx).map_err(e)?;
            let in_blocks = plan.in_blocks(&hubs, super::hub_keys::from(&tx).map_err(e)?);
            let total = self.distinct_updates(heads, &in_blocks).map_err(e)?;
            tx.commit().map_err(e)?;
            return Ok(total);
        }
        // Hubs among the other terms: the driver's updates tested in their bitmaps, not probed.
        let bitmaps = plan.take_hubs(&tx, true).map_err(e)?;
        let (hubs, _) = super::pairs::load(&tx).map_err(e)?;
        let in_blocks = plan.in_blocks(&hubs, super::hub_keys::from(&tx).map_err(e)?);
        if plan.touches(&in_blocks) {
            // Keys in blocks: the driver's keys read in Rust, each update tested.
            let blocks = (&hubs, &in_blocks);
            let mut tests =
                walk::Tests::new(&tx, bitmaps, &plan.others, blocks, true).map_err(e)?;
            let mut runs = walk::Runs::new(&tx, &in_blocks).map_err(e)?;
            let total = walk::count(
                &tx,
                &mut runs,
                &plan.driver,
                segments.as_deref(),
                &mut tests,
            )
            .map_err(e)?;
            drop((tests, runs));
            tx.commit().map_err(e)?;
            return Ok(total);
        }
        if !bitmaps.is_empty() {
            let mut stmt = self
                .conn
                .prepare(&plan.sql(segments.is_some(), Select::Seqs))
                .map_err(e)?;
            let mut total: u64 = 0;
            let mut tally = |params: &[i64]| -> rusqlite::Result<()> {
                let mut rows = stmt.query(rusqlite::params_from_iter(params))?;
                while let Some(row) = rows.next()? {
                    let seq: i64 = row.get(0)?;
                    total += u64::from(bitmaps.iter().all(|(_, b)| b.has(seq)));
                }
                Ok(())
            };
            match segments {
                None => tally(&[]).map_err(e)?,
                Some(parts) => {
                    for part in parts {
                        tally(&part).map_err(e)?;
                    }
                }
            }
            drop(stmt);
            tx.commit().map_err(e)?;
            return Ok(total);
        }
        let mut stmt = self
            .conn
            .prepare(&plan.sql(segments.is_some(), Select::Count))
            .map_err(e)?;
        let mut total: i64 = 0;
        match segments {
            None => total = stmt.query_row([], |r| r.get(0)).map_err(e)?,
            Some(parts) => {
                for [migration, from, until] in parts {
                    let n: i64 = stmt
                        .query_row(params![migration, from, until], |r| r.get(0))
                        .map_err(e)?;
                    total += n;
                }
            }
        }
        drop(stmt);
        tx.commit().map_err(e)?;
        Ok(u64::try_from(total).unwrap_or(0))
    }

    /// How many updates have any of `heads`' terms, each once: a term of one update with its
    /// newest key known is that key; the others' keys are read (from blocks for those
    /// `in_blocks`).
    fn distinct_updates(
        &self,
        heads: &[Head],
        in_blocks: &std::collections::HashSet<i64>,
    ) -> rusqlite::Result<u64> {
        let mut keys = self
            .conn
            .prepare_cached("SELECT seq FROM keys WHERE term = ?1")?;
        let mut seqs = Vec::with_capacity(heads.len());
        for head in heads {
            match head.last {
                Some((_, _, seq)) if head.n == 1 => seqs.push(seq),
                _ if in_blocks.contains(&head.id) => {
                    let all = super::hub_keys::all(&self.conn, head.id, None)?;
                    seqs.extend(all.into_iter().map(|k| k.2));
                }
                _ => {
                    for seq in keys.query_map([head.id], |r| r.get(0))? {
                        seqs.push(seq?);
                    }
                }
            }
        }
        seqs.sort_unstable();
        seqs.dedup();
        Ok(u64::try_from(seqs.len()).unwrap_or(u64::MAX))
    }
}
