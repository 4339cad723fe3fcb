//! The sync's writes: a page in one transaction with its chunk's cursor, and prune.

use super::by_first_two;
use super::pairs;
use super::{
    Chunk, Fail, HashMap, HashSet, PageWrite, PageWritten, PgIndex, StoreError, chunk_rows, closed,
};
use crate::store::At;
use crate::store::newest::Pos;
use crate::store::write::{self, Pruned};

/// Writes one page in `tx` (see [`IndexWriter::write_page`]).
fn write_rows(
    tx: &mut postgres::Transaction<'_>,
    chunk: &Chunk,
    page: &PageWrite,
) -> Result<PageWritten, Fail> {
    let in_chunk = write::in_chunk(chunk, page);
    let ids: Vec<&str> = in_chunk.iter().map(|(_, r)| r.update_id.as_str()).collect();
    let mut stored: HashMap<String, Vec<u8>> = tx
        .query(
            "SELECT update_id, digest FROM updates WHERE update_id = ANY($1)",
            &[&ids],
        )?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let decided =
        write::decide(chunk, &in_chunk, &mut stored).map_err(|r| Fail::Store(r.into()))?;
    let mut written = PageWritten {
        inserted: 0,
        known: decided.known,
    };
    let new: Vec<_> = decided.fresh.iter().map(|at| &page.rows[*at]).collect();
    if !new.is_empty() {
        let bodies: Vec<Option<&[u8]>> = new.iter().map(|r| r.body.as_deref()).collect();
        let update_ids: Vec<&str> = new.iter().map(|r| r.update_id.as_str()).collect();
        let migrations: Vec<i64> = new.iter().map(|r| r.migration_id).collect();
        let times: Vec<i64> = new.iter().map(|r| r.record_time).collect();
        let kinds: Vec<&str> = new.iter().map(|r| r.kind.as_str()).collect();
        let actions: Vec<&str> = new.iter().map(|r| r.root_action.as_str()).collect();
        let parties: Vec<String> = new
            .iter()
            .map(|r| serde_json::to_string(&r.parties).unwrap_or_else(|_| "[]".to_owned()))
            .collect();
        let digests: Vec<Vec<u8>> = new.iter().map(|r| r.digest.to_vec()).collect();
        let seqs: HashMap<String, i64> = tx
            .query(
                "INSERT INTO updates (update_id, migration_id, record_time, kind, root_action, parties, digest, body, chunk)
                 SELECT x.*, $9::bigint FROM UNNEST($1::text[], $2::int8[], $3::int8[], $4::text[],
                                                    $5::text[], $6::text[], $7::bytea[], $8::bytea[]) AS x
                 RETURNING update_id, seq",
                &[
                    &update_ids,
                    &migrations,
                    &times,
                    &kinds,
                    &actions,
                    &parties,
                    &digests,
                    &bodies,
                    &chunk.id,
                ],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        // The terms: the new ones added, every one's id read back.
        let mut distinct: HashSet<(i64, &str)> = HashSet::new();
        for row in &new {
            for (kind, value) in &row.keys {
                distinct.insert((kind.code(), value.as_str()));
            }
        }
        let term_kinds: Vec<i64> = distinct.iter().map(|t| t.0).collect();
        let term_values: Vec<&str> = distinct.iter().map(|t| t.1).collect();
        tx.execute(
            "INSERT INTO terms (kind, value) SELECT * FROM UNNEST($1::int8[], $2::text[])
             ON CONFLICT (kind, value) DO NOTHING",
            &[&term_kinds, &term_values],
        )?;
        let term_ids: HashMap<(i64, String), i64> = by_first_two(
            tx,
            "SELECT t.kind, t.value, t.id FROM terms t
             JOIN UNNEST($1::int8[], $2::text[]) AS x(kind, value)
               ON t.kind = x.kind AND t.value = x.value",
            &[&term_kinds, &term_values],
        )?;
        let mut keys: HashSet<(i64, i64, i64, i64)> = HashSet::new();
        // Per term: how many of the page's updates have it, and the newest of them.
        let mut counts: HashMap<i64, (i64, Pos)> = HashMap::new();
        let mut row_terms: Vec<(i64, Vec<i64>)> = Vec::with_capacity(new.len());
        for row in &new {
            let Some(seq) = seqs.get(&row.update_id) else {
                continue;
            };
            let mut terms = Vec::with_capacity(row.keys.len());
            for (kind, value) in &row.keys {
                let Some(term) = term_ids.get(&(kind.code(), value.clone())) else {
                    continue;
                };
                terms.push(*term);
                if keys.insert((*term, row.migration_id, row.record_time, *seq)) {
                    let entry = counts.entry(*term).or_default();
                    entry.0 += 1;
                    entry.1 = entry.1.max((row.migration_id, row.record_time, *seq));
                }
            }
            row_terms.push((*seq, terms));
        }
        let (k_terms, k_migrations, k_times, k_seqs): (Vec<i64>, Vec<i64>, Vec<i64>, Vec<i64>) =
            keys.iter().fold(
                (Vec::new(), Vec::new(), Vec::new(), Vec::new()),
                |mut acc, k| {
                    acc.0.push(k.0);
                    acc.1.push(k.1);
                    acc.2.push(k.2);
                    acc.3.push(k.3);
                    acc
                },
            );
        tx.execute(
            "INSERT INTO keys (term, migration_id, record_time, seq)
             SELECT * FROM UNNEST($1::int8[], $2::int8[], $3::int8[], $4::int8[])
             ON CONFLICT DO NOTHING",
            &[&k_terms, &k_migrations, &k_times, &k_seqs],
        )?;
        let c_terms: Vec<i64> = counts.keys().copied().collect();
        let c_counts: Vec<i64> = c_terms.iter().map(|t| counts[t].0).collect();
        let c_last: [Vec<i64>; 3] = [
            c_terms.iter().map(|t| counts[t].1.0).collect(),
            c_terms.iter().map(|t| counts[t].1.1).collect(),
            c_terms.iter().map(|t| counts[t].1.2).collect(),
        ];
        // A known term: its count raised, its newest key the later of its own and the page's
        // (kept unknown when unknown: its older keys may be later than the page's).
        let raised: Vec<(i64, i64)> = tx
            .query(
                "INSERT INTO term_counts (term, updates, last_migration, last_time, last_seq)
                 SELECT * FROM UNNEST($1::int8[], $2::int8[], $3::int8[], $4::int8[], $5::int8[])
                 ON CONFLICT (term) DO UPDATE SET updates = term_counts.updates + excluded.updates,
                   last_migration = CASE WHEN newer THEN excluded.last_migration ELSE term_counts.last_migration END,
                   last_time = CASE WHEN newer THEN excluded.last_time ELSE term_counts.last_time END,
                   last_seq = CASE WHEN newer THEN excluded.last_seq ELSE term_counts.last_seq END
                 RETURNING term, updates"
                    .replace(
                        "newer",
                        "(term_counts.last_seq IS NOT NULL AND (excluded.last_migration, excluded.last_time, excluded.last_seq)
                           > (term_counts.last_migration, term_counts.last_time, term_counts.last_seq))",
                    )
                    .as_str(),
                &[&c_terms, &c_counts, &c_last[0], &c_last[1], &c_last[2]],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        // The pairs and bits of the hubs the page's updates have; then the terms that reached
        // the threshold become hubs, their pairs and bits read from the keys (this page's
        // included).
        let (mut hubs, threshold) = pairs::load(tx)?;
        pairs::add_page(tx, &row_terms, &hubs)?;
        let mut new_hubs: Vec<i64> = raised
            .iter()
            .filter(|(term, n)| *n >= threshold && !hubs.contains(term))
            .map(|(term, _)| *term)
            .collect();
        new_hubs.sort_unstable();
        for term in new_hubs {
            pairs::promote(tx, term, &mut hubs)?;
        }
        written.inserted = new.len() as u64;
    }
    tx.execute(
        "UPDATE chunks SET cursor_migration = $2, cursor_time = $3, page_start_migration = $4,
                page_start_time = $5, scans = $6, updates = updates + $7 WHERE id = $1",
        &[
            &chunk.id,
            &page.cursor.migration_id,
            &page.cursor.record_time,
            &page.page_start.as_ref().map(|p| p.migration_id),
            &page.page_start.as_ref().map(|p| p.record_time.clone()),
            &write::merged_scans(chunk, page),
            &(written.inserted as i64),
        ],
    )?;
    Ok(written)
}

impl PgIndex {
    pub(super) fn write_page_tx(
        &mut self,
        chunk: i64,
        page: &PageWrite,
    ) -> Result<PageWritten, StoreError> {
        let shown = self.target.shown.clone();
        let target = &self.target;
        let client = self.client.as_mut().ok_or_else(|| closed(target))?;
        let mut tx = client.transaction().map_err(|e| target.error(&e))?;
        // The page's commit does not wait for the server's WAL on disk: a crash of the server
        // loses at most its last pages (never a part of one), which the next sync fetches
        // again from the chunk's cursor as kept.
        tx.batch_execute("SET LOCAL synchronous_commit TO OFF")
            .map_err(|e| target.error(&e))?;
        let current = chunk_rows(&mut tx)
            .map_err(|e| target.error(&e))?
            .into_iter()
            .find(|c| c.id == chunk)
            .ok_or_else(|| StoreError::Engine {
                path: shown.clone(),
                detail: format!("no chunk {chunk}"),
            })?;
        // An error drops the transaction, which rolls it back: nothing of the page is kept.
        let written = write_rows(&mut tx, &current, page).map_err(|f| target.fail(f))?;
        tx.commit().map_err(|e| target.error(&e))?;
        Ok(written)
    }

    pub(super) fn prune_before(&mut self, before: i64) -> Result<u64, StoreError> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            // Nothing older: nothing to walk (the key tables are read whole below).
            let any: bool = tx
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM updates WHERE record_time < $1)",
                    &[&before],
                )?
                .get(0);
            if !any {
                tx.commit()?;
                return Ok(0);
            }
            let chunks = chunk_rows(&mut tx)?;
            // Per chunk, the newest update removed: the chunk now starts after it.
            for chunk in &chunks {
                let newest: Option<(i64, i64)> = tx
                    .query_opt(
                        "SELECT migration_id, record_time FROM updates
                         WHERE chunk = $1 AND record_time < $2
                         ORDER BY migration_id DESC, record_time DESC LIMIT 1",
                        &[&chunk.id, &before],
                    )?
                    .map(|r| (r.get(0), r.get(1)));
                let Some((migration, time)) = newest else {
                    continue;
                };
                match write::pruned_chunk(chunk, At::new(migration, time)) {
                    Pruned::Gone => {
                        tx.execute("DELETE FROM chunks WHERE id = $1", &[&chunk.id])?;
                    }
                    Pruned::StartsAfter(migration, time) => {
                        tx.execute(
                            "UPDATE chunks SET start_migration = $2, start_time = $3 WHERE id = $1",
                            &[&chunk.id, &migration, &time],
                        )?;
                    }
                }
            }
            // The round summary keeps its sums; the removed updates' marks go.
            super::rounds::prune(&mut tx, before)?;
            // The validators' table keeps its sums; the range is not counted again.
            super::validators::prune(&mut tx, before)?;
            // The pairs of hubs lowered by the removed updates (read before their keys go).
            pairs::prune(&mut tx, before)?;
            // The keys go with their updates, and the terms' counts down with them.
            tx.execute(
                "WITH gone AS (DELETE FROM keys WHERE record_time < $1 RETURNING term),
                      n AS (SELECT term, count(*) AS n FROM gone GROUP BY term)
                 UPDATE term_counts t SET updates = t.updates - n.n FROM n WHERE t.term = n.term",
                &[&before],
            )?;
            // A term that keeps updates keeps its newest key, read again when it was removed.
            tx.execute(
                "UPDATE term_counts t SET (last_migration, last_time, last_seq) = (
                     SELECT k.migration_id, k.record_time, k.seq FROM keys k WHERE k.term = t.term
                     ORDER BY k.migration_id DESC, k.record_time DESC, k.seq DESC LIMIT 1)
                 WHERE t.updates > 0 AND (t.last_time < $1 OR t.last_seq IS NULL)",
                &[&before],
            )?;
            tx.execute(
                "DELETE FROM events WHERE seq IN (SELECT seq FROM updates WHERE record_time < $1)",
                &[&before],
            )?;
            let removed = tx.execute("DELETE FROM updates WHERE record_time < $1", &[&before])?;
            tx.execute(
                "DELETE FROM terms WHERE NOT EXISTS (SELECT 1 FROM keys WHERE keys.term = terms.id)",
                &[],
            )?;
            tx.execute(
                "DELETE FROM term_counts
                 WHERE updates <= 0 OR NOT EXISTS (SELECT 1 FROM terms WHERE terms.id = term_counts.term)",
                &[],
            )?;
            tx.execute(
                "DELETE FROM hubs WHERE NOT EXISTS (SELECT 1 FROM terms WHERE terms.id = hubs.term)",
                &[],
            )?;
            tx.execute(
                "DELETE FROM hub_bits WHERE NOT EXISTS (SELECT 1 FROM hubs WHERE hubs.term = hub_bits.term)",
                &[],
            )?;
            tx.commit()?;
            Ok(removed)
        })
    }
}
