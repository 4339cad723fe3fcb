//! The index in one SQLite file (WAL mode, so readers in other processes read while a sync
//! writes; reads are short transactions so checkpoints are not starved).
//!
//! ```text
//! mod.rs     the connection, its errors, the IndexReader and IndexWriter calls
//! schema.rs  tables, open (create, check versions, migrate schema 1), meta
//! write.rs   a page in one transaction with its chunk's cursor; prune
//! compact.rs the file written again with its pages full (`index compact`)
//! search.rs  search and count over the key tables
//! pairs.rs   the counts of two frequent terms together (hubs): kept per page, on prune
//! row_sets.rs the party sets and actions the updates share, kept once (schema 12)
//! party_names.rs a party set as its parties' numbers, each name once (schema 19)
//! set_hash.rs the hash a kept set or name is found by
//! update_ids.rs the update ids kept as bytes (schema 13)
//! read.rs    chunks, status and gaps, bodies, digests, the explorer's reads
//! ```

mod checkpoint;
mod compact;
mod events_write;
mod hub_keys;
#[cfg(test)]
mod hub_keys_tests;
mod migration_room;
mod pairs;
mod party_names;
#[cfg(test)]
mod range_tests;
mod read;
#[cfg(test)]
mod read_tests;
mod record_times;
mod rounds;
mod row_cache;
mod row_sets;
mod schema;
mod search;
mod set_hash;
mod stats;
mod term_values;
#[cfg(test)]
mod tests;
mod update_ids;
#[cfg(test)]
mod update_ids_tests;
mod validators;
#[cfg(test)]
mod verdict_index_tests;
mod write;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, params};

use super::{
    At, BodyDictionaries, Chunk, DivergenceRecord, EventsRow, EventsTodo, Heartbeat, IndexReader,
    IndexStatus, IndexWriter, KeptUpdate, MigrationRange, PageWrite, PageWritten, Position,
    SCHEMA_VERSION, StoreError, VerdictEvent, gaps,
};
use crate::model::format::format_time_micros;
use crate::model::index::query::{Query, Term};
use crate::model::index::read::{IndexReach, SyncRunning};
use crate::model::index::{IndexRow, KeyKind, SUMMARY_VERSION, SearchRow};

/// An index in an SQLite file.
pub struct SqliteIndex {
    conn: Connection,
    path: PathBuf,
    /// What opening it did that the user should hear of.
    notices: Vec<String>,
    /// Its body dictionaries, as reads need them.
    dictionaries: BodyDictionaries,
    /// Its events dictionaries, as reads need them.
    event_dictionaries: BodyDictionaries,
    /// A writer's WAL copier ([`checkpoint`]); none for a reader.
    checkpointer: Option<checkpoint::Checkpointer>,
    /// The sets its search rows named, by id.
    row_cache: row_cache::RowCache,
}

impl SqliteIndex {
    fn engine(&self, e: &rusqlite::Error) -> StoreError {
        engine_error(&self.path, e)
    }
}

fn engine_error(path: &Path, e: &rusqlite::Error) -> StoreError {
    if is_corruption(e) {
        return StoreError::Corrupt {
            path: path.display().to_string(),
            detail: e.to_string(),
        };
    }
    if is_full(e) {
        return StoreError::Full {
            path: path.display().to_string(),
            detail: e.to_string(),
        };
    }
    StoreError::Engine {
        path: path.display().to_string(),
        detail: e.to_string(),
    }
}

/// The disk full (`SQLITE_FULL`), or a write the file system refused (`SQLITE_IOERR_WRITE`:
/// a file size limit, a quota, no space left).
fn is_full(e: &rusqlite::Error) -> bool {
    /// `SQLITE_IOERR_WRITE`.
    const IOERR_WRITE: std::ffi::c_int = 0x0a | (3 << 8);
    match e.sqlite_error() {
        Some(error) => {
            error.code == rusqlite::ErrorCode::DiskFull || error.extended_code == IOERR_WRITE
        }
        None => false,
    }
}

fn is_corruption(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt)
    )
}

impl IndexReader for SqliteIndex {
    fn shown(&self) -> String {
        self.path.display().to_string()
    }

    fn meta_get(&mut self, key: &str) -> Result<Option<String>, StoreError> {
        self.meta(key)
    }

    fn chunks(&mut self) -> Result<Vec<Chunk>, StoreError> {
        self.chunk_rows()
    }

    fn body_dictionary(&mut self) -> Result<Option<Vec<u8>>, StoreError> {
        self.conn
            .query_row(
                "SELECT dictionary FROM dictionaries ORDER BY added_at DESC, id DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.engine(&e))
    }

    fn body_dictionary_of(&mut self, id: u32) -> Result<Option<Vec<u8>>, StoreError> {
        self.conn
            .query_row(
                "SELECT dictionary FROM dictionaries WHERE id = ?1",
                [i64::from(id)],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.engine(&e))
    }

    fn notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    super::reads::engine_reads!(
        mark: '?',
        bytewise: "",
        updates_id: update_ids::TEXT,
        updates_parties: "party_set"
    );
    super::stats::stats_reads!();

    super::rounds::engine_round_reads!();
}

impl IndexWriter for SqliteIndex {
    fn events_todo(&mut self) -> Result<EventsTodo, StoreError> {
        let at = |r: &rusqlite::Row<'_>| Ok(At::new(r.get(0)?, record_times::read(r, 1)?));
        let first_lacking = self
            .conn
            .query_row(
                "SELECT u.migration_id, u.record_time FROM updates u
                 WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.seq = u.seq)
                 ORDER BY u.migration_id, u.record_time LIMIT 1",
                [],
                at,
            )
            .optional()
            .map_err(|e| self.engine(&e))?;
        let last = self
            .conn
            .query_row(
                "SELECT migration_id, record_time FROM updates
                 ORDER BY migration_id DESC, record_time DESC LIMIT 1",
                [],
                at,
            )
            .optional()
            .map_err(|e| self.engine(&e))?;
        Ok(EventsTodo {
            first_lacking,
            last,
        })
    }

    fn write_events(&mut self, rows: &[EventsRow]) -> Result<u64, StoreError> {
        let path = self.path.clone();
        let packing = |detail: String| StoreError::Engine {
            path: path.display().to_string(),
            detail,
        };
        let tx = self
            .conn
            .transaction()
            .map_err(|e| engine_error(&path, &e))?;
        let kept: Option<Vec<u8>> = tx
            .query_row(
                "SELECT dictionary FROM event_dictionaries ORDER BY added_at DESC, id DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| engine_error(&path, &e))?;
        let (packer, trained) =
            super::events_pack::EventsPacker::new(kept, rows).map_err(packing)?;
        if let Some(dictionary) = trained {
            schema::add_event_dictionary(&tx, &dictionary).map_err(packing)?;
        }
        let packed = packer.pack_all(rows).map_err(packing)?;
        let kept = events_write::upsert(&tx, rows, &packed).map_err(|e| engine_error(&path, &e))?;
        tx.commit().map_err(|e| engine_error(&path, &e))?;
        self.after_commit()?;
        Ok(kept)
    }

    fn write_verdict_events(&mut self, rows: &[VerdictEvent]) -> Result<u64, StoreError> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction()
            .map_err(|e| engine_error(&path, &e))?;
        let mut kept = 0;
        {
            let mut stmt = tx
                .prepare_cached(&crate::store::write::verdict_events_upsert('?'))
                .map_err(|e| engine_error(&path, &e))?;
            for VerdictEvent { at, row: r } in rows {
                kept += stmt
                    .execute(params![
                        r.update_id,
                        at.migration_id,
                        record_times::stored(at.record_time),
                        r.served,
                        r.verdict,
                        r.traffic_summary,
                        r.app_activity_records,
                        r.round_number,
                        r.verdict_result,
                        r.mediator_group,
                        r.digest,
                        r.scans
                    ])
                    .map_err(|e| engine_error(&path, &e))? as u64;
            }
        }
        tx.commit().map_err(|e| engine_error(&path, &e))?;
        self.after_commit()?;
        Ok(kept)
    }

    fn write_stats_day(
        &mut self,
        figures: &crate::model::index::stats::DayFigures,
    ) -> Result<(), StoreError> {
        self.write_day(figures)
    }
    super::rounds::engine_round_writes!();

    fn add_validators(
        &mut self,
        delta: &crate::model::index::validators::ValidatorsDelta,
        through: i64,
    ) -> Result<(), StoreError> {
        self.write_validators(delta, through)
    }

    fn written_after(
        &mut self,
        after: i64,
        limit: usize,
    ) -> Result<Option<Vec<crate::store::validators::Written>>, StoreError> {
        self.read_written_after(after, limit).map(Some)
    }

    fn meta_set(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.set_meta(key, value)
    }

    fn clear_beat(&mut self) -> Result<(), StoreError> {
        self.conn
            .execute("DELETE FROM sync_heartbeat", [])
            .map(|_| ())
            .map_err(|e| self.engine(&e))
    }

    fn insert_chunk(&mut self, chunk: &Chunk, now: i64) -> Result<i64, StoreError> {
        let start = chunk.start.as_ref();
        self.conn
            .execute(
                "INSERT INTO chunks (start_migration, start_time, end_before, state, verify, scans, started_at)
                 VALUES (?1, ?2, ?3, 'open', ?4, '[]', ?5)",
                params![
                    start.map(|p| p.migration_id),
                    start.map(|p| p.record_time.clone()),
                    chunk.end_before,
                    chunk.verify,
                    now
                ],
            )
            .map_err(|e| self.engine(&e))?;
        Ok(self.conn.last_insert_rowid())
    }

    fn write_page(&mut self, chunk: i64, page: &PageWrite) -> Result<PageWritten, StoreError> {
        self.write_page_tx(chunk, page)
    }

    fn set_chunk_state(&mut self, chunk: i64, state: &str, now: i64) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE chunks SET state = ?2, finished_at = ?3 WHERE id = ?1",
                params![chunk, state, now],
            )
            .map(|_| ())
            .map_err(|e| self.engine(&e))
    }

    fn record_divergence(&mut self, d: &DivergenceRecord) -> Result<(), StoreError> {
        let tx = self
            .conn
            .transaction()
            .map_err(|e| engine_error(&self.path, &e))?;
        let run = || -> rusqlite::Result<()> {
            if !d.resolved {
                tx.execute(
                    "DELETE FROM divergences WHERE update_id = ?1 AND resolved = 0",
                    [&d.update_id],
                )?;
            }
            tx.execute(
                "INSERT INTO divergences (update_id, migration_id, record_time, found_at, resolved, detail)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    d.update_id,
                    d.migration_id,
                    d.record_time,
                    d.found_at,
                    d.resolved,
                    d.detail.to_string()
                ],
            )?;
            Ok(())
        };
        run().map_err(|e| engine_error(&self.path, &e))?;
        tx.commit().map_err(|e| engine_error(&self.path, &e))
    }

    fn resolve_divergences(&mut self, update_ids: &[String]) -> Result<(), StoreError> {
        // Almost always none is unresolved: one read, no write transaction.
        let open: Vec<String> = self
            .conn
            .prepare_cached("SELECT DISTINCT update_id FROM divergences WHERE resolved = 0")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .map_err(|e| self.engine(&e))?;
        if open.is_empty() || !update_ids.iter().any(|id| open.contains(id)) {
            return Ok(());
        }
        let tx = self
            .conn
            .transaction()
            .map_err(|e| engine_error(&self.path, &e))?;
        let run = || -> rusqlite::Result<()> {
            let mut resolve = tx.prepare_cached(
                "UPDATE divergences SET resolved = 1 WHERE update_id = ?1 AND resolved = 0",
            )?;
            for id in update_ids.iter().filter(|id| open.contains(id)) {
                resolve.execute([id])?;
            }
            Ok(())
        };
        run().map_err(|e| engine_error(&self.path, &e))?;
        tx.commit().map_err(|e| engine_error(&self.path, &e))
    }

    fn beat(&mut self, h: &Heartbeat) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO sync_heartbeat (id, pid, host, started_at, beat_at, command)
                 VALUES (1, ?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, host = excluded.host,
                   started_at = excluded.started_at, beat_at = excluded.beat_at,
                   command = excluded.command",
                params![h.pid, h.host, h.started_at, h.beat_at, h.command],
            )
            .map(|_| ())
            .map_err(|e| self.engine(&e))
    }

    fn refresh_beat(&mut self, pid: i64, beat_at: i64) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE sync_heartbeat SET beat_at = ?2 WHERE id = 1 AND pid = ?1",
                params![pid, beat_at],
            )
            .map(|_| ())
            .map_err(|e| self.engine(&e))
    }

    fn names_contracts(&self) -> bool {
        true
    }

    fn add_body_dictionary(&mut self, dictionary: &[u8], now: i64) -> Result<(), StoreError> {
        let id = super::dictionary_id_of(self.shown(), dictionary)?;
        self.conn
            .execute(
                "INSERT OR IGNORE INTO dictionaries (id, added_at, dictionary) VALUES (?1, ?2, ?3)",
                params![id, now, dictionary],
            )
            .map(|_| ())
            .map_err(|e| self.engine(&e))
    }

    fn prune(&mut self, before: i64) -> Result<u64, StoreError> {
        self.prune_before(before)
    }

    fn compact(
        &mut self,
        stop: &std::sync::Arc<std::sync::atomic::AtomicBool>,
    ) -> Result<super::Compacted, StoreError> {
        self.compact_file(stop)
    }
}
