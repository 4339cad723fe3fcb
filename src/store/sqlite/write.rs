//! The sync's writes: a page in one transaction with its chunk's cursor, and prune.

use super::{
    Chunk, HashMap, IndexRow, OptionalExtension, PageWrite, PageWritten, Position, SqliteIndex,
    StoreError, Transaction, engine_error, format_time_micros, par_chunks, params,
};

/// zstd level of the bodies.
const ZSTD_LEVEL: i32 = 3;

/// Writes one page in `tx` (see [`IndexStore::write_page`]): its new updates, the count of
/// each of their keys' terms (one statement per distinct key of the page), then their keys.
fn write_rows(
    tx: &Transaction<'_>,
    chunk: &Chunk,
    page: &PageWrite,
    rewritten: &mut Option<StoreError>,
) -> rusqlite::Result<PageWritten> {
    let mut written = PageWritten::default();
    let walked_to = chunk.cursor.as_ref().map(Position::order);
    let start = chunk.start.as_ref().map(Position::order);
    let mut known = tx.prepare_cached("SELECT digest FROM updates WHERE update_id = ?1")?;
    let mut insert = tx.prepare_cached(
        "INSERT INTO updates (update_id, migration_id, record_time, kind, root_action, parties, digest, body, chunk)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    let mut fresh: Vec<&IndexRow> = Vec::with_capacity(page.rows.len());
    for row in &page.rows {
        let position = (row.migration_id, row.record_time);
        if start.is_some_and(|s| position <= s) {
            // Before the chunk (a page read again after a prune): not the chunk's to write.
            continue;
        }
        let stored: Option<Vec<u8>> = known.query_row([&row.update_id], |r| r.get(0)).optional()?;
        let kept = super::super::kept(stored.as_deref(), &row.digest);
        match crate::model::reread::reread(&row.update_id, position, kept, walked_to) {
            Ok(crate::model::reread::Reread::Known) => {
                written.known += 1;
                continue;
            }
            Ok(crate::model::reread::Reread::New) => {}
            Err(r) => {
                *rewritten = Some(r.into());
                return Ok(written);
            }
        }
        fresh.push(row);
    }
    // The bodies compressed on every core; then the rows in page order.
    let bodies: Vec<Option<Vec<u8>>> = if page.bodies {
        par_chunks(&fresh, |part| {
            // One context per part, reused body after body (a new one per body cost an
            // allocation of its tables each time); the same frames as `bulk::compress`.
            // Measured: no CPU difference on mainnet-sized bodies (33 µs either way).
            let mut compressor = match zstd::bulk::Compressor::new(ZSTD_LEVEL) {
                Ok(compressor) => compressor,
                Err(e) => return vec![Err(e)],
            };
            part.iter()
                .map(|row| compressor.compress(row.body.as_bytes()).map(Some))
                .collect()
        })
        .into_iter()
        .collect::<Result<_, _>>()
        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?
    } else {
        vec![None; fresh.len()]
    };
    let mut new_rows: Vec<(&IndexRow, i64)> = Vec::with_capacity(fresh.len());
    for (row, body) in fresh.into_iter().zip(bodies) {
        let parties = serde_json::to_string(&row.parties).unwrap_or_else(|_| "[]".to_owned());
        insert.execute(params![
            row.update_id,
            row.migration_id,
            row.record_time,
            row.kind,
            row.root_action,
            parties,
            row.digest.as_slice(),
            body,
            chunk.id
        ])?;
        new_rows.push((row, tx.last_insert_rowid()));
        written.inserted += 1;
    }
    // The page's distinct keys, each with how many of its new updates have it.
    let mut counts: HashMap<(i64, &str), (i64, i64)> = HashMap::new();
    for (row, _) in &new_rows {
        for (kind, value) in &row.keys {
            counts.entry((kind.code(), value.as_str())).or_default().1 += 1;
        }
    }
    if !counts.is_empty() {
        let mut next: i64 = tx
            .query_row("SELECT value FROM meta WHERE key = 'next_term'", [], |r| {
                r.get::<_, String>(0)
            })
            .optional()?
            .and_then(|t| t.parse().ok())
            .unwrap_or(1);
        let first_new = next;
        let mut bump = tx.prepare_cached(
            "UPDATE terms SET n = n + ?3 WHERE kind = ?1 AND value = ?2 RETURNING id",
        )?;
        let mut add =
            tx.prepare_cached("INSERT INTO terms (kind, value, id, n) VALUES (?1, ?2, ?3, ?4)")?;
        for ((kind, value), (id, n)) in &mut counts {
            let found = bump
                .query_row(params![kind, value, *n], |r| r.get::<_, i64>(0))
                .optional()?;
            *id = if let Some(id) = found {
                id
            } else {
                add.execute(params![kind, value, next, *n])?;
                next += 1;
                next - 1
            };
        }
        if next != first_new {
            tx.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('next_term', ?1)",
                [next.to_string()],
            )?;
        }
        let mut add_key = tx.prepare_cached(
            "INSERT INTO keys (term, migration_id, record_time, seq) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for (row, seq) in &new_rows {
            for (kind, value) in &row.keys {
                let id = counts[&(kind.code(), value.as_str())].0;
                add_key.execute(params![id, row.migration_id, row.record_time, seq])?;
            }
        }
    }
    let mut scans = chunk.scans.clone();
    for scan in &page.scans {
        if !scans.contains(scan) {
            scans.push(scan.clone());
        }
    }
    tx.execute(
        "UPDATE chunks SET cursor_migration = ?2, cursor_time = ?3, page_start_migration = ?4,
                page_start_time = ?5, scans = ?6, updates = updates + ?7 WHERE id = ?1",
        params![
            chunk.id,
            page.cursor.migration_id,
            page.cursor.record_time,
            page.page_start.as_ref().map(|p| p.migration_id),
            page.page_start.as_ref().map(|p| p.record_time.clone()),
            serde_json::to_string(&scans).unwrap_or_else(|_| "[]".to_owned()),
            written.inserted as i64,
        ],
    )?;
    Ok(written)
}

impl SqliteIndex {
    pub(super) fn write_page_tx(
        &mut self,
        chunk: i64,
        page: &PageWrite,
    ) -> Result<PageWritten, StoreError> {
        let path = self.path.clone();
        let current = self
            .chunk_rows()?
            .into_iter()
            .find(|c| c.id == chunk)
            .ok_or_else(|| StoreError::Engine {
                path: path.display().to_string(),
                detail: format!("no chunk {chunk}"),
            })?;
        let tx = self
            .conn
            .transaction()
            .map_err(|e| engine_error(&path, &e))?;
        let mut rewritten = None;
        let written =
            write_rows(&tx, &current, page, &mut rewritten).map_err(|e| engine_error(&path, &e))?;
        if let Some(error) = rewritten {
            // Dropping the transaction rolls it back: nothing of the page is kept.
            drop(tx);
            return Err(error);
        }
        tx.commit().map_err(|e| engine_error(&path, &e))?;
        Ok(written)
    }

    pub(super) fn prune_before(&mut self, before: i64) -> Result<u64, StoreError> {
        let path = self.path.clone();
        let chunks = self.chunk_rows()?;
        let tx = self
            .conn
            .transaction()
            .map_err(|e| engine_error(&path, &e))?;
        let run = || -> rusqlite::Result<u64> {
            // Per chunk, the newest update removed: the chunk now starts after it.
            for chunk in &chunks {
                let newest: Option<(i64, i64)> = tx
                    .query_row(
                        "SELECT migration_id, record_time FROM updates
                         WHERE chunk = ?1 AND record_time < ?2
                         ORDER BY migration_id DESC, record_time DESC LIMIT 1",
                        params![chunk.id, before],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .optional()?;
                let Some((migration, time)) = newest else {
                    continue;
                };
                let emptied = chunk
                    .cursor
                    .as_ref()
                    .is_some_and(|c| Position::order(c) <= (migration, time));
                if emptied {
                    tx.execute("DELETE FROM chunks WHERE id = ?1", [chunk.id])?;
                } else {
                    tx.execute(
                        "UPDATE chunks SET start_migration = ?2, start_time = ?3 WHERE id = ?1",
                        params![chunk.id, migration, format_time_micros(time)],
                    )?;
                }
            }
            // Each term loses the keys of the updates removed; a term no update has goes.
            tx.execute_batch(
                "CREATE TEMP TABLE IF NOT EXISTS pruned (term INTEGER PRIMARY KEY, n INTEGER NOT NULL);
                 DELETE FROM pruned;",
            )?;
            tx.execute(
                "INSERT INTO pruned (term, n) SELECT term, count(*) FROM keys WHERE record_time < ?1 GROUP BY term",
                [before],
            )?;
            tx.execute_batch(
                "UPDATE terms SET n = n - (SELECT p.n FROM pruned p WHERE p.term = terms.id)
                   WHERE id IN (SELECT term FROM pruned);
                 DELETE FROM terms WHERE n <= 0;
                 DELETE FROM pruned;",
            )?;
            tx.execute("DELETE FROM keys WHERE record_time < ?1", [before])?;
            let removed = tx.execute("DELETE FROM updates WHERE record_time < ?1", [before])?;
            Ok(removed as u64)
        };
        let removed = run().map_err(|e| engine_error(&path, &e))?;
        tx.commit().map_err(|e| engine_error(&path, &e))?;
        Ok(removed)
    }
}
