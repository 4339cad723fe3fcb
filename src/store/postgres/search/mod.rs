//! Search and count: a query's plan ([`plan`]), the rarest single-id term walking `keys`
//! newest first.

mod plan;

use crate::store::hubs::id_list;
use crate::store::newest::{self, Head, Pos};

use super::{
    Client, Fail, GenericClient, HashMap, PgIndex, Query, SearchRow, StoreError, closed,
    format_time_micros,
};
use plan::{For, Plan, ids};

/// Keys read by the first step of a walk tested in hubs' bitmaps (each step's blocks of the
/// bitmaps read in one statement); each next step as many as the rows found say the page
/// needs ([`next_batch`]), up to [`MAX_WALK_BATCH`], so a walk that finds few rows takes a
/// few round trips, not one a batch of 500.
const WALK_BATCH: i32 = 100;
/// Most keys a step of a walk reads.
const MAX_WALK_BATCH: i32 = 32_000;
/// Most keys (the driving term's count) a count tested in hubs' bitmaps reads as one array
/// (8 MB); a driver of more is read a row at a time.
const MAX_COUNT_ARRAY: i64 = 1_000_000;

pub(super) fn search_row(r: &postgres::Row) -> SearchRow {
    let parties: String = r.get(5);
    SearchRow {
        update_id: r.get(0),
        migration_id: r.get(1),
        record_time: format_time_micros(r.get(2)),
        kind: r.get(3),
        root_action: r.get(4),
        parties: serde_json::from_str(&parties).unwrap_or_default(),
    }
}

/// How many updates have any of `heads`' terms, each once: a term of one update with its
/// newest key known is that key; the others' keys are read, in one statement.
fn distinct_updates(c: &mut impl GenericClient, heads: &[Head]) -> Result<i64, postgres::Error> {
    let mut seqs = Vec::with_capacity(heads.len());
    let mut read = Vec::new();
    for head in heads {
        match head.last {
            Some((_, _, seq)) if head.n == 1 => seqs.push(seq),
            _ => read.push(head.id),
        }
    }
    if !read.is_empty() {
        for r in c.query("SELECT seq FROM keys WHERE term = ANY($1)", &[&read])? {
            seqs.push(r.get(0));
        }
    }
    seqs.sort_unstable();
    seqs.dedup();
    Ok(i64::try_from(seqs.len()).unwrap_or(i64::MAX))
}

/// The size of a walk's next batch, `wanted` rows still to find after `found` in the `read`
/// keys so far: as many keys as the rows found so far say hold the rows wanted, and half as
/// many again, at least [`WALK_BATCH`] and at most [`MAX_WALK_BATCH`] (a walk that found no
/// row reads the most: a template's 20,921 keys at 10 M updates took five batches growing
/// fourfold, a round trip and a read of the hubs' blocks each, 26 ms cold; two take 15).
fn next_batch(wanted: usize, found: usize, read: usize) -> i32 {
    let keys = match found {
        0 => usize::MAX,
        _ => (wanted.saturating_mul(read) / found).saturating_mul(3) / 2,
    };
    i32::try_from(keys)
        .unwrap_or(i32::MAX)
        .clamp(WALK_BATCH, MAX_WALK_BATCH)
}

/// The rows of the updates `seqs`, in that order (none: no statement, whose first plan of
/// `updates` reads its key's pages cold).
fn rows_of(c: &mut impl GenericClient, seqs: &[i64]) -> Result<Vec<SearchRow>, postgres::Error> {
    if seqs.is_empty() {
        return Ok(Vec::new());
    }
    let mut found: HashMap<i64, SearchRow> = c
        .query_typed(
            "SELECT u.update_id, u.migration_id, u.record_time, u.kind, u.root_action, u.parties,
                    u.seq
             FROM updates u WHERE u.seq = ANY($1)",
            &[(&seqs, postgres::types::Type::INT8_ARRAY)],
        )?
        .iter()
        .map(|r| (r.get(6), search_row(r)))
        .collect();
    Ok(seqs.iter().filter_map(|s| found.remove(s)).collect())
}

impl PgIndex {
    pub(super) fn search_rows(
        &mut self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
        limit: usize,
    ) -> Result<Vec<SearchRow>, StoreError> {
        let shown = self.target.shown.clone();
        let target = &self.target;
        let client = self.client.as_mut().ok_or_else(|| closed(target))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // One short read-only snapshot: the term look-ups and the rows see the same index.
        let run = |c: &mut Client| -> Result<Vec<SearchRow>, Fail> {
            let mut tx = super::snapshot(c)?;
            let purpose = if limit == 0 { For::NoRows } else { For::Rows };
            let Some(mut plan) = Plan::of(&mut tx, &shown, query, (from, until), purpose)? else {
                return Ok(Vec::new());
            };
            if limit == 0 {
                return Ok(Vec::new());
            }
            let columns =
                "u.update_id, u.migration_id, u.record_time, u.kind, u.root_action, u.parties";
            // A prefix of several contracts over the whole index: their keys merged newest
            // first from each term's newest key, a term's keys read only when the page reaches
            // into them.
            if let Some(heads) = &plan.merge {
                let run = tx.prepare(
                    "SELECT migration_id, record_time, seq FROM keys
                     WHERE term = $1 AND (migration_id, record_time, seq) < ($2, $3, $4)
                     ORDER BY migration_id DESC, record_time DESC, seq DESC LIMIT $5",
                )?;
                let seqs = newest::merge(
                    heads,
                    usize::try_from(limit).unwrap_or(usize::MAX),
                    &mut |term, below: Pos, most| {
                        let most = i64::try_from(most).unwrap_or(i64::MAX);
                        Ok(tx
                            .query(&run, &[&term, &below.0, &below.1, &below.2, &most])?
                            .iter()
                            .map(|r| (r.get(0), r.get(1), r.get(2)))
                            .collect())
                    },
                    &mut |_| Ok::<bool, postgres::Error>(true),
                )?;
                let rows = rows_of(&mut tx, &seqs)?;
                tx.commit()?;
                return Ok(rows);
            }
            // Hubs among the other terms: the driving term's keys walked newest first, a batch
            // at a time, and tested in the hubs' bitmaps (the blocks a batch needs read with
            // it, in one statement) until the page is full.
            let mut bitmaps = plan.take_hubs(&mut tx, false)?;
            if let (Some(term), false) = (plan.drive, bitmaps.is_empty()) {
                // The walk portals, each batch the next rows of them: the term's keys after
                // its mark (none read when its newest key is not after it), then its posting
                // blocks (no other term to test row by row).
                let mark = plan.mark(&mut tx)?;
                let keys_after = mark.as_ref().is_none_or(|m| plan.keys_after(m));
                let mut walk = super::key_blocks::Walk::new(
                    &mut tx,
                    term,
                    (&plan.walk(term), keys_after),
                    mark,
                    (from, until),
                )?;
                let limit = usize::try_from(limit).unwrap_or(usize::MAX);
                let mut seqs: Vec<i64> = Vec::new();
                let (mut size, mut read) = (WALK_BATCH, 0usize);
                'walk: loop {
                    let batch = walk.next(&mut tx, size)?;
                    read += batch.len();
                    for (hub, bits) in &mut bitmaps {
                        super::pairs::read_blocks(&mut tx, *hub, bits, &batch)?;
                    }
                    for seq in &batch {
                        if bitmaps.iter().all(|(_, bits)| bits.has(*seq)) {
                            seqs.push(*seq);
                            if seqs.len() >= limit {
                                break 'walk;
                            }
                        }
                    }
                    if batch.len() < size as usize {
                        break;
                    }
                    // Two frequent terms of which a first batch found no row: when no update
                    // has both (the count kept for the pair, over the whole index, is 0),
                    // none in any range, where the walk would read every update of the rarer
                    // one to find none.
                    if size == WALK_BATCH && seqs.is_empty() && plan.pair_count() == Some(0) {
                        break;
                    }
                    size = next_batch(limit - seqs.len(), seqs.len(), read);
                }
                let rows = rows_of(&mut tx, &seqs)?;
                tx.commit()?;
                return Ok(rows);
            }
            let sql = match plan.drive {
                Some(term) => format!(
                    "SELECT {columns} FROM keys k JOIN updates u ON u.seq = k.seq
                     WHERE k.term = {term} AND {}
                     ORDER BY k.migration_id DESC, k.record_time DESC, k.seq DESC LIMIT {limit}",
                    plan.conditions()
                ),
                None => format!(
                    "SELECT {columns} FROM updates u WHERE {}
                     ORDER BY u.migration_id DESC, u.record_time DESC, u.seq DESC LIMIT {limit}",
                    plan.conditions()
                ),
            };
            let rows = tx.query(&sql, &[])?.iter().map(search_row).collect();
            tx.commit()?;
            Ok(rows)
        };
        run(client).map_err(|f| target.fail(f))
    }

    pub(super) fn count_rows(
        &mut self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
    ) -> Result<u64, StoreError> {
        let shown = self.target.shown.clone();
        let target = &self.target;
        let client = self.client.as_mut().ok_or_else(|| closed(target))?;
        let run = |c: &mut Client| -> Result<i64, Fail> {
            let mut tx = super::snapshot(c)?;
            let Some(mut plan) = Plan::of(&mut tx, &shown, query, (from, until), For::Count)?
            else {
                return Ok(0);
            };
            // Two frequent terms: the count kept for the pair over the whole index; when no
            // update has both, none in any range either.
            if let Some(n) = plan.pair_count()
                && (plan.range.is_empty() || n == 0)
            {
                tx.commit()?;
                return Ok(n);
            }
            // One term over the whole index: its count kept at write time, read with it.
            if let (None, Some(n), true) = (
                &plan.merge,
                plan.drive_n,
                plan.range.is_empty() && plan.others.is_empty(),
            ) {
                tx.commit()?;
                return Ok(n);
            }
            // A prefix of several contracts over the whole index: a term of one update is its
            // newest key, read with the term, so only the others' keys are read (one cold
            // read a term; a contract on a network is mostly in one or two updates).
            if let Some(heads) = &plan.merge
                && heads.iter().any(|h| h.n == 1 && h.last.is_some())
            {
                let n = distinct_updates(&mut tx, heads)?;
                tx.commit()?;
                return Ok(n);
            }
            // Hubs among the other terms: the driver's updates tested in their bitmaps, not
            // probed.
            let bitmaps = plan.take_hubs(&mut tx, true)?;
            if let (Some(term), false) = (plan.drive, bitmaps.is_empty()) {
                let has = |seq: i64| bitmaps.iter().all(|(_, b)| b.has(seq));
                let mut n: i64 = 0;
                if let Some(mark) = plan.mark(&mut tx)? {
                    // The keys after the term's mark, then its posting blocks.
                    n = super::key_blocks::count(
                        &mut tx,
                        term,
                        (&plan.walk(term), plan.keys_after(&mark)),
                        &mark,
                        (from, until),
                        &has,
                    )?;
                } else if plan.drive_n.is_some_and(|n| n <= MAX_COUNT_ARRAY) {
                    // The driver's seqs in one array: a row each cost the client more than
                    // the server's scan of them.
                    let sql = format!("SELECT array_agg(k.seq) FROM {}", plan.walk(term));
                    let seqs: Option<Vec<i64>> = tx.query_one(&sql, &[])?.get(0);
                    n = seqs
                        .unwrap_or_default()
                        .into_iter()
                        .map(|s| i64::from(has(s)))
                        .sum();
                } else {
                    // More than an array should hold (the server's arrays end at 1 GB): a row
                    // at a time.
                    use postgres::fallible_iterator::FallibleIterator;
                    let sql = format!("SELECT k.seq FROM {}", plan.walk(term));
                    let mut rows = tx.query_raw(&sql, std::iter::empty::<i64>())?;
                    while let Some(row) = rows.next()? {
                        n += i64::from(has(row.get(0)));
                    }
                }
                tx.commit()?;
                return Ok(n);
            }
            let sql = match (&plan.merge, plan.drive) {
                // A prefix of several contracts over the whole index: the distinct updates of
                // their keys, each term's read by the keys' key (testing every update
                // against them took 3-14 s at 10 M updates for 698 contracts: 0.1 s cold).
                (Some(heads), _) => format!(
                    "SELECT count(DISTINCT k.seq) FROM keys k WHERE k.term IN ({})",
                    id_list(&ids(heads))
                ),
                (None, Some(term)) if plan.others.is_empty() => format!(
                    "SELECT count(*) FROM keys k WHERE k.term = {term} AND {}",
                    plan.conditions()
                ),
                (None, Some(term)) => format!(
                    "SELECT count(*) FROM keys k JOIN updates u ON u.seq = k.seq
                     WHERE k.term = {term} AND {}",
                    plan.conditions()
                ),
                (None, None) => {
                    format!("SELECT count(*) FROM updates u WHERE {}", plan.conditions())
                }
            };
            let n: i64 = tx.query_one(&sql, &[])?.get(0);
            tx.commit()?;
            Ok(n)
        };
        run(client)
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(|f| target.fail(f))
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_WALK_BATCH, WALK_BATCH, next_batch};

    #[test]
    fn a_walk_reads_next_the_keys_its_rows_so_far_say_the_page_needs() {
        // No row in the first batch: the most a batch reads, not four times as many.
        assert_eq!(next_batch(100, 0, 100), MAX_WALK_BATCH);
        // One row in 100 and 99 wanted: about 9,900 keys, and half as many again.
        assert_eq!(next_batch(99, 1, 100), 14_850);
        // Dense rows: never fewer than the first batch.
        assert_eq!(next_batch(40, 60, 100), WALK_BATCH);
        assert_eq!(next_batch(1, 99, 100), WALK_BATCH);
        // Sparse over many keys read: at most the most.
        assert_eq!(next_batch(99, 1, 1_000_000), MAX_WALK_BATCH);
        // The most a page may ask for (`--limit`), one row found: no overflow.
        assert_eq!(next_batch(usize::MAX, 1, 100), MAX_WALK_BATCH);
    }
}
