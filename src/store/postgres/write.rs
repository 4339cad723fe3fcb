//! The sync's writes: a page in one transaction with its chunk's cursor, and prune.

use super::pairs;
use super::{Chunk, Fail, PageWrite, PageWritten, PgIndex, StoreError, chunk_rows, closed};
use crate::store::At;
use crate::store::write::{self, Pruned};

/// Writes one page in `tx` (see [`IndexWriter::write_page`]): its rows
/// ([`super::page::write_rows`]) and its chunk's cursor.
///
/// [`IndexWriter::write_page`]: crate::store::IndexWriter::write_page
fn write_rows(
    tx: &mut postgres::Transaction<'_>,
    chunk: &Chunk,
    page: &PageWrite,
) -> Result<PageWritten, Fail> {
    let written = super::page::write_rows(tx, chunk, page)?;
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
                 UPDATE terms t SET updates = t.updates - n.n FROM n WHERE t.id = n.term",
                &[&before],
            )?;
            // A term that keeps updates keeps its newest key, read again when it was removed.
            tx.execute(
                "UPDATE terms t SET (last_migration, last_time, last_seq) = (
                     SELECT k.migration_id, k.record_time, k.seq FROM keys k WHERE k.term = t.id
                     ORDER BY k.migration_id DESC, k.record_time DESC, k.seq DESC LIMIT 1)
                 WHERE t.updates > 0 AND (t.last_time < $1 OR t.last_seq IS NULL)",
                &[&before],
            )?;
            tx.execute(
                "DELETE FROM events WHERE seq IN (SELECT seq FROM updates WHERE record_time < $1)",
                &[&before],
            )?;
            let removed = tx.execute("DELETE FROM updates WHERE record_time < $1", &[&before])?;
            // A term's count is its keys' (lowered above), so a term left without keys is one
            // whose count reached 0: read from the terms alone, not by an anti-join of the keys.
            tx.execute("DELETE FROM terms WHERE updates <= 0", &[])?;
            // The blocks' keys before the pruned time are no longer read.
            super::key_blocks::prune(&mut tx, before)?;
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
