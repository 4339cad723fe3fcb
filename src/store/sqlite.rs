//! The index in one SQLite file (WAL mode, so readers in other processes read while a sync
//! writes; reads are short transactions so checkpoints are not starved).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, params};

use super::{
    Chunk, DivergenceRecord, Gap, Heartbeat, IndexStatus, IndexStore, KeptUpdate, MigrationRange,
    NetworkId, PageWrite, PageWritten, Position, SCHEMA_VERSION, StoreError,
};
use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::index::query::{Query, Term};
use crate::model::index::read::{IndexReach, SyncRunning};
use crate::model::index::{KeyKind, SUMMARY_VERSION, SearchRow, digest_hex};

/// Most keys a prefix term may stand for (a shorter prefix is asked for beyond it).
const MAX_PREFIX_MATCHES: usize = 100_000;
/// zstd level of the bodies.
const ZSTD_LEVEL: i32 = 3;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS updates (
    seq INTEGER PRIMARY KEY,
    update_id TEXT NOT NULL UNIQUE,
    migration_id INTEGER NOT NULL,
    record_time INTEGER NOT NULL,
    kind TEXT NOT NULL,
    root_action TEXT NOT NULL,
    parties TEXT NOT NULL,
    digest BLOB NOT NULL,
    body BLOB,
    chunk INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS updates_position ON updates (migration_id, record_time);
CREATE INDEX IF NOT EXISTS updates_time ON updates (record_time);
CREATE TABLE IF NOT EXISTS terms (
    id INTEGER PRIMARY KEY,
    kind INTEGER NOT NULL,
    value TEXT NOT NULL,
    UNIQUE (kind, value)
);
CREATE TABLE IF NOT EXISTS keys (
    term INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (term, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    start_migration INTEGER,
    start_time TEXT,
    end_before INTEGER,
    cursor_migration INTEGER,
    cursor_time TEXT,
    page_start_migration INTEGER,
    page_start_time TEXT,
    state TEXT NOT NULL,
    verify INTEGER NOT NULL,
    scans TEXT NOT NULL,
    updates INTEGER NOT NULL DEFAULT 0,
    started_at INTEGER NOT NULL,
    finished_at INTEGER
);
CREATE TABLE IF NOT EXISTS divergences (
    id INTEGER PRIMARY KEY,
    update_id TEXT NOT NULL,
    migration_id INTEGER NOT NULL,
    record_time TEXT NOT NULL,
    found_at INTEGER NOT NULL,
    resolved INTEGER NOT NULL,
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sync_heartbeat (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    beat_at INTEGER NOT NULL,
    command TEXT NOT NULL
);
";

/// An index in an SQLite file.
pub struct SqliteIndex {
    conn: Connection,
    path: PathBuf,
}

impl SqliteIndex {
    fn engine(&self, e: &rusqlite::Error) -> StoreError {
        engine_error(&self.path, e)
    }

    /// Opens (with `write`: creates when missing, sets up the schema) the index at `path`,
    /// checking that it is an index of a schema and summary version this build reads.
    pub fn open(path: &Path, write: bool) -> Result<SqliteIndex, StoreError> {
        let shown = path.display().to_string();
        if !write && !path.exists() {
            return Err(StoreError::Missing(shown));
        }
        if write
            && let Some(dir) = path.parent()
            && !dir.as_os_str().is_empty()
        {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::Engine {
                path: shown.clone(),
                detail: format!("cannot create {}: {e}", dir.display()),
            })?;
        }
        if write && !path.exists() {
            // Readable by its owner only, as the data kept between runs is (SQLite gives its
            // WAL and shared-memory files the same mode).
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(path)
                .map_err(|e| StoreError::Engine {
                    path: shown.clone(),
                    detail: format!("cannot create it: {e}"),
                })?;
        }
        let flags = if write {
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE
        } else {
            OpenFlags::SQLITE_OPEN_READ_ONLY
        } | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| corrupt(path, &e))?;
        let index = SqliteIndex {
            conn,
            path: path.to_owned(),
        };
        index
            .conn
            .busy_timeout(std::time::Duration::from_secs(10))
            .map_err(|e| index.engine(&e))?;
        // The first read of the file tells whether it is a database at all.
        let tables: i64 = index
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )
            .map_err(|e| corrupt(path, &e))?;
        let has_meta = index
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map_err(|e| corrupt(path, &e))?
            > 0;
        if tables > 0 && !has_meta {
            return Err(StoreError::Corrupt {
                path: shown,
                detail: "an SQLite database without the index's tables".to_owned(),
            });
        }
        if has_meta {
            index.check_versions()?;
        } else if !write {
            return Err(StoreError::Missing(shown));
        }
        if write {
            index
                .conn
                .pragma_update(None, "journal_mode", "WAL")
                .map_err(|e| corrupt(path, &e))?;
            index
                .conn
                .pragma_update(None, "synchronous", "FULL")
                .map_err(|e| index.engine(&e))?;
            // The schema and its versions in one transaction: a process killed while creating
            // the index leaves no tables or all of them, never a part that a reader would take
            // for an index.
            let tx = index
                .conn
                .unchecked_transaction()
                .map_err(|e| index.engine(&e))?;
            tx.execute_batch(SCHEMA).map_err(|e| corrupt(path, &e))?;
            tx.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?1), ('summary_version', ?2)",
                params![SCHEMA_VERSION.to_string(), SUMMARY_VERSION.to_string()],
            )
            .map_err(|e| index.engine(&e))?;
            tx.commit().map_err(|e| index.engine(&e))?;
        }
        Ok(index)
    }

    fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
            .map_err(|e| corrupt(&self.path, &e))
    }

    fn check_versions(&self) -> Result<(), StoreError> {
        let path = self.path.display().to_string();
        let number = |key: &str| -> Result<Option<i64>, StoreError> {
            match self.meta(key)? {
                None => Ok(None),
                Some(text) => text.parse().map(Some).map_err(|_| StoreError::Corrupt {
                    path: path.clone(),
                    detail: format!("its {key} is {text:?}"),
                }),
            }
        };
        if let Some(found) = number("schema_version")?
            && found != SCHEMA_VERSION
        {
            if found > SCHEMA_VERSION {
                return Err(StoreError::NewerSchema { path, found });
            }
            return Err(StoreError::Corrupt {
                path,
                detail: format!("unknown schema version {found}"),
            });
        }
        if let Some(found) = number("summary_version")?
            && found != SUMMARY_VERSION
        {
            return Err(StoreError::SummaryVersion {
                path,
                found,
                expected: SUMMARY_VERSION,
            });
        }
        Ok(())
    }

    fn set_meta(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![key, value],
            )
            .map(|_| ())
            .map_err(|e| self.engine(&e))
    }

    /// The term ids standing for `term`, or, for an update-id prefix, the updates' seqs.
    fn term_ids(&self, term: &Term) -> Result<TermSet, StoreError> {
        match term {
            Term::Exact(kind, value) => {
                let id: Option<i64> = self
                    .conn
                    .query_row(
                        "SELECT id FROM terms WHERE kind = ?1 AND value = ?2",
                        params![kind.code(), value],
                        |r| r.get(0),
                    )
                    .optional()
                    .map_err(|e| self.engine(&e))?;
                Ok(TermSet::Terms(id.into_iter().collect()))
            }
            Term::ContractPrefix(prefixes) => {
                let mut ids = Vec::new();
                for prefix in prefixes {
                    self.scan_prefix(
                        "SELECT id, value FROM terms WHERE kind = ?1 AND value >= ?2 ORDER BY value",
                        Some(KeyKind::Contract.code()),
                        prefix,
                        &mut ids,
                    )?;
                }
                Ok(TermSet::Terms(ids))
            }
            Term::UpdatePrefix(prefixes) => {
                let mut seqs = Vec::new();
                for prefix in prefixes {
                    self.scan_prefix(
                        "SELECT seq, update_id FROM updates WHERE update_id >= ?2 AND ?1 IS NULL ORDER BY update_id",
                        None,
                        prefix,
                        &mut seqs,
                    )?;
                }
                Ok(TermSet::Seqs(seqs))
            }
        }
    }

    /// Walks `sql`'s rows (id, text) in text order from `prefix` while the text starts with it
    /// (the prefix is matched here, in Rust, not by the engine).
    fn scan_prefix(
        &self,
        sql: &str,
        kind: Option<i64>,
        prefix: &str,
        out: &mut Vec<i64>,
    ) -> Result<(), StoreError> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| self.engine(&e))?;
        let mut rows = stmt
            .query(params![kind, prefix])
            .map_err(|e| self.engine(&e))?;
        while let Some(row) = rows.next().map_err(|e| self.engine(&e))? {
            let text: String = row.get(1).map_err(|e| self.engine(&e))?;
            if !text.starts_with(prefix) {
                break;
            }
            out.push(row.get(0).map_err(|e| self.engine(&e))?);
            if out.len() > MAX_PREFIX_MATCHES {
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

    /// The WHERE clause of a query (`None`: nothing can match).
    fn where_clause(
        &self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
    ) -> Result<Option<String>, StoreError> {
        let mut parts: Vec<String> = Vec::new();
        if let Some(from) = from {
            parts.push(format!("u.record_time >= {from}"));
        }
        if let Some(until) = until {
            parts.push(format!("u.record_time <= {until}"));
        }
        for term in &query.terms {
            // The ids are integers read from the index itself, written into the SQL as numbers.
            match self.term_ids(term)? {
                TermSet::Terms(ids) if ids.is_empty() => return Ok(None),
                TermSet::Seqs(seqs) if seqs.is_empty() => return Ok(None),
                TermSet::Terms(ids) => parts.push(format!(
                    "u.seq IN (SELECT seq FROM keys WHERE term IN ({}))",
                    join(&ids)
                )),
                TermSet::Seqs(seqs) => parts.push(format!("u.seq IN ({})", join(&seqs))),
            }
        }
        if parts.is_empty() {
            parts.push("1".to_owned());
        }
        Ok(Some(parts.join(" AND ")))
    }

    fn chunk_rows(&self) -> Result<Vec<Chunk>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, start_migration, start_time, end_before, cursor_migration, cursor_time,
                        page_start_migration, page_start_time, state, verify, scans, updates
                 FROM chunks ORDER BY id",
            )
            .map_err(|e| self.engine(&e))?;
        let rows = stmt
            .query_map([], |r| {
                let position = |m: Option<i64>, t: Option<String>| match (m, t) {
                    (Some(migration_id), Some(record_time)) => Some(Position {
                        migration_id,
                        record_time,
                    }),
                    _ => None,
                };
                let scans: String = r.get(10)?;
                Ok(Chunk {
                    id: r.get(0)?,
                    start: position(r.get(1)?, r.get(2)?),
                    end_before: r.get(3)?,
                    cursor: position(r.get(4)?, r.get(5)?),
                    page_start: position(r.get(6)?, r.get(7)?),
                    state: r.get(8)?,
                    verify: r.get(9)?,
                    scans: serde_json::from_str(&scans).unwrap_or_default(),
                    updates: r.get(11)?,
                })
            })
            .map_err(|e| self.engine(&e))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.engine(&e))
    }
}

enum TermSet {
    Terms(Vec<i64>),
    Seqs(Vec<i64>),
}

fn join(ids: &[i64]) -> String {
    ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
}

fn engine_error(path: &Path, e: &rusqlite::Error) -> StoreError {
    if is_corruption(e) {
        return corrupt(path, e);
    }
    StoreError::Engine {
        path: path.display().to_string(),
        detail: e.to_string(),
    }
}

fn is_corruption(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt)
    )
}

fn corrupt(path: &Path, e: &rusqlite::Error) -> StoreError {
    if is_corruption(e) {
        StoreError::Corrupt {
            path: path.display().to_string(),
            detail: e.to_string(),
        }
    } else {
        StoreError::Engine {
            path: path.display().to_string(),
            detail: e.to_string(),
        }
    }
}

/// (migration, µs) of a position, for ordering.
fn order(p: &Position) -> (i64, i64) {
    (
        p.migration_id,
        parse_time_micros(&p.record_time).unwrap_or(i64::MIN),
    )
}

/// Writes one page in `tx` (see [`IndexStore::write_page`]).
fn write_rows(
    tx: &Transaction<'_>,
    chunk: &Chunk,
    page: &PageWrite,
    rewritten: &mut Option<StoreError>,
) -> rusqlite::Result<PageWritten> {
    let mut written = PageWritten::default();
    let walked_to = chunk.cursor.as_ref().map(order);
    let start = chunk.start.as_ref().map(order);
    let mut terms: HashMap<(i64, &str), i64> = HashMap::new();
    let mut known = tx.prepare("SELECT digest FROM updates WHERE update_id = ?1")?;
    let mut insert = tx.prepare(
        "INSERT INTO updates (update_id, migration_id, record_time, kind, root_action, parties, digest, body, chunk)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    let mut find_term = tx.prepare("SELECT id FROM terms WHERE kind = ?1 AND value = ?2")?;
    let mut add_term = tx.prepare("INSERT INTO terms (kind, value) VALUES (?1, ?2)")?;
    let mut add_key = tx.prepare("INSERT OR IGNORE INTO keys (term, seq) VALUES (?1, ?2)")?;
    for row in &page.rows {
        let at = format_time_micros(row.record_time);
        let position = (row.migration_id, row.record_time);
        if start.is_some_and(|s| position <= s) {
            // Before the chunk (a page read again after a prune): not the chunk's to write.
            continue;
        }
        let stored: Option<Vec<u8>> = known.query_row([&row.update_id], |r| r.get(0)).optional()?;
        match stored {
            Some(digest) if digest == row.digest => {
                written.known += 1;
                continue;
            }
            Some(digest) => {
                *rewritten = Some(StoreError::Rewritten {
                    update_id: row.update_id.clone(),
                    at: format!("migration {}, {at}", row.migration_id),
                    what: format!(
                        "has digest {} where the index keeps {}",
                        digest_hex(&row.digest),
                        hex::encode(digest)
                    ),
                });
                return Ok(written);
            }
            None if walked_to.is_some_and(|w| position <= w)
                && start.is_none_or(|s| position > s) =>
            {
                *rewritten = Some(StoreError::Rewritten {
                    update_id: row.update_id.clone(),
                    at: format!("migration {}, {at}", row.migration_id),
                    what: "is new at a position the index already walked past".to_owned(),
                });
                return Ok(written);
            }
            None => {}
        }
        let body = if page.bodies {
            Some(
                zstd::bulk::compress(row.body.as_bytes(), ZSTD_LEVEL)
                    .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?,
            )
        } else {
            None
        };
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
        let seq = tx.last_insert_rowid();
        for (kind, value) in &row.keys {
            let key = (kind.code(), value.as_str());
            let id = if let Some(id) = terms.get(&key) {
                *id
            } else {
                let id = if let Some(id) = find_term
                    .query_row(params![key.0, key.1], |r| r.get::<_, i64>(0))
                    .optional()?
                {
                    id
                } else {
                    add_term.execute(params![key.0, key.1])?;
                    tx.last_insert_rowid()
                };
                terms.insert(key, id);
                id
            };
            add_key.execute(params![id, seq])?;
        }
        written.inserted += 1;
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

impl IndexStore for SqliteIndex {
    fn network(&mut self) -> Result<Option<NetworkId>, StoreError> {
        Ok(self.meta("dso_party")?.map(|dso_party| NetworkId {
            dso_party,
            synchronizer: self.meta("synchronizer").ok().flatten().unwrap_or_default(),
        }))
    }

    fn claim_network(&mut self, network: &NetworkId) -> Result<(), StoreError> {
        match self.network()? {
            None => {
                self.set_meta("dso_party", &network.dso_party)?;
                self.set_meta("synchronizer", &network.synchronizer)
            }
            Some(kept) => {
                let same_sync = kept.synchronizer.is_empty()
                    || network.synchronizer.is_empty()
                    || kept.synchronizer == network.synchronizer;
                if kept.dso_party == network.dso_party && same_sync {
                    if kept.synchronizer.is_empty() && !network.synchronizer.is_empty() {
                        self.set_meta("synchronizer", &network.synchronizer)?;
                    }
                    return Ok(());
                }
                Err(StoreError::WrongNetwork {
                    path: self.path.display().to_string(),
                    index_dso: kept.dso_party,
                    index_sync: kept.synchronizer,
                    scan_dso: network.dso_party.clone(),
                    scan_sync: network.synchronizer.clone(),
                })
            }
        }
    }

    fn chunks(&mut self) -> Result<Vec<Chunk>, StoreError> {
        self.chunk_rows()
    }

    fn start_chunk(
        &mut self,
        start: Option<Position>,
        end_before: Option<i64>,
        verify: i64,
        now: i64,
    ) -> Result<Chunk, StoreError> {
        self.conn
            .execute(
                "INSERT INTO chunks (start_migration, start_time, end_before, state, verify, scans, started_at)
                 VALUES (?1, ?2, ?3, 'open', ?4, '[]', ?5)",
                params![
                    start.as_ref().map(|p| p.migration_id),
                    start.as_ref().map(|p| p.record_time.clone()),
                    end_before,
                    verify,
                    now
                ],
            )
            .map_err(|e| self.engine(&e))?;
        let id = self.conn.last_insert_rowid();
        Ok(Chunk {
            id,
            start,
            end_before,
            cursor: None,
            page_start: None,
            state: "open".to_owned(),
            verify,
            scans: Vec::new(),
            updates: 0,
        })
    }

    fn write_page(&mut self, chunk: i64, page: &PageWrite) -> Result<PageWritten, StoreError> {
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

    fn resolve_divergence(&mut self, update_id: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE divergences SET resolved = 1 WHERE update_id = ?1 AND resolved = 0",
                [update_id],
            )
            .map(|_| ())
            .map_err(|e| self.engine(&e))
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

    fn end_sync(
        &mut self,
        started_at: i64,
        ended_at: i64,
        outcome: &str,
    ) -> Result<(), StoreError> {
        let last = serde_json::json!({
            "started_at": format_time_micros(started_at),
            "ended_at": format_time_micros(ended_at),
            "outcome": outcome,
        });
        self.set_meta("last_sync", &last.to_string())?;
        self.conn
            .execute("DELETE FROM sync_heartbeat", [])
            .map(|_| ())
            .map_err(|e| self.engine(&e))
    }

    fn status(&mut self, now: i64) -> Result<IndexStatus, StoreError> {
        let path = self.path.clone();
        let size_bytes = ["", "-wal", "-shm"]
            .iter()
            .filter_map(|suffix| {
                let mut name = path.as_os_str().to_owned();
                name.push(suffix);
                std::fs::metadata(PathBuf::from(name)).ok()
            })
            .map(|m| m.len())
            .sum();
        // One short read transaction for a consistent picture.
        let tx = self
            .conn
            .transaction()
            .map_err(|e| engine_error(&path, &e))?;
        let e = |e: rusqlite::Error| engine_error(&path, &e);
        let (updates, bodies): (i64, i64) = tx
            .query_row("SELECT count(*), count(body) FROM updates", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .map_err(e)?;
        let migrations = {
            let mut stmt = tx
                .prepare(
                    "SELECT migration_id, count(*), min(record_time), max(record_time)
                     FROM updates GROUP BY migration_id ORDER BY migration_id",
                )
                .map_err(e)?;
            stmt.query_map([], |r| {
                Ok(MigrationRange {
                    migration_id: r.get(0)?,
                    updates: r.get(1)?,
                    first_record_time: format_time_micros(r.get(2)?),
                    last_record_time: format_time_micros(r.get(3)?),
                })
            })
            .map_err(e)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(e)?
        };
        let divergences = {
            let mut stmt = tx
                .prepare(
                    "SELECT update_id, migration_id, record_time, found_at, resolved, detail
                     FROM divergences ORDER BY migration_id, record_time, id",
                )
                .map_err(e)?;
            stmt.query_map([], |r| {
                let detail: String = r.get(5)?;
                Ok(DivergenceRecord {
                    update_id: r.get(0)?,
                    migration_id: r.get(1)?,
                    record_time: r.get(2)?,
                    found_at: r.get(3)?,
                    resolved: r.get(4)?,
                    detail: serde_json::from_str(&detail).unwrap_or_default(),
                })
            })
            .map_err(e)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(e)?
        };
        let heartbeat: Option<Heartbeat> = tx
            .query_row(
                "SELECT pid, host, started_at, beat_at, command FROM sync_heartbeat WHERE id = 1",
                [],
                |r| {
                    Ok(Heartbeat {
                        pid: r.get(0)?,
                        host: r.get(1)?,
                        started_at: r.get(2)?,
                        beat_at: r.get(3)?,
                        command: r.get(4)?,
                    })
                },
            )
            .optional()
            .map_err(e)?;
        let last_sync: Option<String> = tx
            .query_row("SELECT value FROM meta WHERE key = 'last_sync'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(e)?;
        tx.commit().map_err(e)?;
        let chunks = self.chunk_rows()?;
        Ok(IndexStatus {
            location: path.display().to_string(),
            schema_version: SCHEMA_VERSION,
            summary_version: SUMMARY_VERSION,
            network: self.network()?,
            updates,
            bodies,
            size_bytes,
            migrations,
            gaps: gaps(&chunks),
            chunks,
            divergences,
            last_sync: last_sync.and_then(|t| serde_json::from_str(&t).ok()),
            sync_running: heartbeat
                .filter(|h| now.saturating_sub(h.beat_at) < super::HEARTBEAT_STALE_MICROS),
        })
    }

    fn search(
        &mut self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
        limit: usize,
    ) -> Result<Vec<SearchRow>, StoreError> {
        // One short read transaction: the term look-ups and the rows see the same index.
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(|e| engine_error(&self.path, &e))?;
        let Some(clause) = self.where_clause(query, from, until)? else {
            return Ok(Vec::new());
        };
        let sql = format!(
            "SELECT u.update_id, u.migration_id, u.record_time, u.kind, u.root_action, u.parties
             FROM updates u WHERE {clause}
             ORDER BY u.migration_id DESC, u.record_time DESC LIMIT {limit}"
        );
        let rows = {
            let mut stmt = tx.prepare(&sql).map_err(|e| engine_error(&self.path, &e))?;
            stmt.query_map([], |r| {
                let parties: String = r.get(5)?;
                Ok(SearchRow {
                    update_id: r.get(0)?,
                    migration_id: r.get(1)?,
                    record_time: format_time_micros(r.get(2)?),
                    kind: r.get(3)?,
                    root_action: r.get(4)?,
                    parties: serde_json::from_str(&parties).unwrap_or_default(),
                })
            })
            .map_err(|e| engine_error(&self.path, &e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| engine_error(&self.path, &e))?
        };
        tx.commit().map_err(|e| engine_error(&self.path, &e))?;
        Ok(rows)
    }

    fn count(
        &mut self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
    ) -> Result<u64, StoreError> {
        let Some(clause) = self.where_clause(query, from, until)? else {
            return Ok(0);
        };
        let n: i64 = self
            .conn
            .query_row(
                &format!("SELECT count(*) FROM updates u WHERE {clause}"),
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.engine(&e))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    fn body(&mut self, update_id: &str) -> Result<Option<String>, StoreError> {
        let body: Option<Option<Vec<u8>>> = self
            .conn
            .query_row(
                "SELECT body FROM updates WHERE update_id = ?1",
                [update_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.engine(&e))?;
        let Some(Some(compressed)) = body else {
            return Ok(None);
        };
        let bytes =
            zstd::stream::decode_all(compressed.as_slice()).map_err(|e| StoreError::Corrupt {
                path: self.path.display().to_string(),
                detail: format!("the body of {update_id} does not decompress: {e}"),
            })?;
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|e| StoreError::Corrupt {
                path: self.path.display().to_string(),
                detail: format!("the body of {update_id} is not UTF-8: {e}"),
            })
    }

    fn prune(&mut self, before: i64) -> Result<u64, StoreError> {
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
                    .is_some_and(|c| order(c) <= (migration, time));
                if emptied {
                    tx.execute("DELETE FROM chunks WHERE id = ?1", [chunk.id])?;
                } else {
                    tx.execute(
                        "UPDATE chunks SET start_migration = ?2, start_time = ?3 WHERE id = ?1",
                        params![chunk.id, migration, format_time_micros(time)],
                    )?;
                }
            }
            tx.execute(
                "DELETE FROM keys WHERE seq IN (SELECT seq FROM updates WHERE record_time < ?1)",
                [before],
            )?;
            let removed = tx.execute("DELETE FROM updates WHERE record_time < ?1", [before])?;
            tx.execute(
                "DELETE FROM terms WHERE NOT EXISTS (SELECT 1 FROM keys WHERE keys.term = terms.id)",
                [],
            )?;
            Ok(removed as u64)
        };
        let removed = run().map_err(|e| engine_error(&path, &e))?;
        tx.commit().map_err(|e| engine_error(&path, &e))?;
        Ok(removed)
    }

    fn digests(&mut self) -> Result<Vec<(String, String)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT update_id, digest FROM updates ORDER BY migration_id, record_time")
            .map_err(|e| self.engine(&e))?;
        stmt.query_map([], |r| {
            let digest: Vec<u8> = r.get(1)?;
            Ok((r.get(0)?, hex::encode(digest)))
        })
        .map_err(|e| self.engine(&e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| self.engine(&e))
    }

    // The explorer's reads: see the block "The explorer's reads" at the end of this file.
    fn reach(&mut self, now: i64) -> Result<IndexReach, StoreError> {
        self.explorer_reach(now)
    }

    fn page_after(
        &mut self,
        after: Option<(i64, i64)>,
        limit: usize,
    ) -> Result<Vec<KeptUpdate>, StoreError> {
        self.explorer_page_after(after, limit)
    }
}

/// Ranges no chunk covers between the first chunk's start and the last chunk's reach: a chunk
/// covers (start, cursor], and a finished chunk with an end up to that end (in its cursor's
/// migration).
pub(super) fn gaps(chunks: &[Chunk]) -> Vec<Gap> {
    let mut covered: Vec<(Option<&Position>, Position)> = chunks
        .iter()
        .filter_map(|c| {
            let cursor = c.cursor.as_ref()?;
            let reach = match c.end_before {
                Some(end) if c.state == "done" => Position {
                    migration_id: cursor.migration_id,
                    record_time: format_time_micros(end - 1),
                },
                _ => cursor.clone(),
            };
            Some((c.start.as_ref(), reach))
        })
        .collect();
    covered.sort_by_key(|(start, _)| start.map(order));
    let mut out = Vec::new();
    let mut reach: Option<Position> = None;
    for (start, end) in covered {
        if let (Some(r), Some(s)) = (&reach, start)
            && order(s) > order(r)
        {
            out.push(Gap {
                after: r.clone(),
                before: s.clone(),
            });
        }
        if reach.as_ref().is_none_or(|r| order(&end) > order(r)) {
            reach = Some(end);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The explorer's reads (issue 19 step 3): the header's reach and History's pages from the
// index. Kept apart from the sync's code above; short read transactions only.
// ---------------------------------------------------------------------------------------------

impl SqliteIndex {
    fn explorer_reach(&mut self, now: i64) -> Result<IndexReach, StoreError> {
        let path = self.path.clone();
        let e = |e: rusqlite::Error| engine_error(&path, &e);
        let tx = self.conn.unchecked_transaction().map_err(e)?;
        let (updates, first, last): (i64, Option<i64>, Option<i64>) = tx
            .query_row(
                "SELECT count(*), min(record_time), max(record_time) FROM updates",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map_err(e)?;
        let beat: Option<(i64, String, i64)> = tx
            .query_row(
                "SELECT pid, host, beat_at FROM sync_heartbeat WHERE id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(e)?;
        tx.commit().map_err(e)?;
        Ok(IndexReach {
            updates: u64::try_from(updates).unwrap_or(0),
            first,
            last,
            sync_running: beat
                .filter(|(_, _, at)| now.saturating_sub(*at) < super::HEARTBEAT_STALE_MICROS)
                .map(|(pid, host, beat_at)| SyncRunning { pid, host, beat_at }),
        })
    }

    fn explorer_page_after(
        &mut self,
        after: Option<(i64, i64)>,
        limit: usize,
    ) -> Result<Vec<KeptUpdate>, StoreError> {
        let path = self.path.clone();
        let e = |e: rusqlite::Error| engine_error(&path, &e);
        let (migration, time) = after.unwrap_or((i64::MIN, i64::MIN));
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut stmt = self
            .conn
            .prepare(
                "SELECT update_id, migration_id, record_time, body FROM updates
                 WHERE migration_id > ?1 OR (migration_id = ?1 AND record_time > ?2)
                 ORDER BY migration_id, record_time LIMIT ?3",
            )
            .map_err(e)?;
        let rows = stmt
            .query_map(params![migration, time, limit], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, Option<Vec<u8>>>(3)?,
                ))
            })
            .map_err(e)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(e)?;
        rows.into_iter()
            .map(|(update_id, migration_id, record_time, body)| {
                let body = match body {
                    None => None,
                    Some(compressed) => Some(
                        zstd::stream::decode_all(compressed.as_slice())
                            .ok()
                            .and_then(|b| String::from_utf8(b).ok())
                            .ok_or_else(|| StoreError::Corrupt {
                                path: path.display().to_string(),
                                detail: format!("the body of {update_id} does not decompress"),
                            })?,
                    ),
                };
                Ok(KeptUpdate {
                    update_id,
                    migration_id,
                    record_time,
                    body,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::index::query::Query;
    use crate::model::index::{IndexRow, KeyKind};

    fn row(id: &str, second: i64, party: &str) -> IndexRow {
        IndexRow {
            update_id: id.to_owned(),
            migration_id: 1,
            record_time: 1_800_000_000_000_000 + second * 1_000_000,
            kind: "transaction".to_owned(),
            root_action: "Choice".to_owned(),
            parties: vec![party.to_owned()],
            keys: vec![
                (KeyKind::Party, party.to_owned()),
                (KeyKind::Contract, format!("00{id}")),
            ],
            digest: [second as u8; 32],
            body: format!("{{\"update_id\":\"{id}\"}}"),
        }
    }

    fn page(rows: Vec<IndexRow>) -> PageWrite {
        let last = rows.last().expect("rows");
        PageWrite {
            cursor: Position {
                migration_id: last.migration_id,
                record_time: format_time_micros(last.record_time),
            },
            page_start: None,
            rows,
            scans: vec!["sv1".to_owned()],
            bodies: true,
        }
    }

    #[test]
    fn gaps_are_the_ranges_between_chunks_no_chunk_covers() {
        let at = |m: i64, s: i64| Position {
            migration_id: m,
            record_time: format_time_micros(1_800_000_000_000_000 + s * 1_000_000),
        };
        let chunk = |id: i64, start: Option<Position>, cursor: Option<Position>| Chunk {
            id,
            start,
            end_before: None,
            cursor,
            page_start: None,
            state: "done".to_owned(),
            verify: 2,
            scans: Vec::new(),
            updates: 1,
        };
        // A finished chunk that ends where the next starts leaves no gap.
        let mut ended = chunk(5, Some(at(3, 0)), Some(at(3, 4)));
        ended.end_before = Some(1_800_000_000_000_000 + 10 * 1_000_000);
        // The next chunk starts after one microsecond before the end (its first update may
        // be at the end time itself).
        let just_before = Position {
            migration_id: 3,
            record_time: format_time_micros(1_800_000_000_000_000 + 10 * 1_000_000 - 1),
        };
        let next = chunk(6, Some(just_before), Some(at(3, 12)));
        let mut unfinished = ended.clone();
        unfinished.state = "open".to_owned();
        assert_eq!(gaps(&[ended, next.clone()]), Vec::new());
        assert_eq!(gaps(&[unfinished, next]).len(), 1);
        let chunks = [
            chunk(1, None, Some(at(1, 10))),
            chunk(2, Some(at(1, 5)), Some(at(1, 12))),
            chunk(3, Some(at(1, 20)), Some(at(2, 3))),
            chunk(4, Some(at(2, 9)), None),
        ];
        assert_eq!(
            gaps(&chunks),
            vec![Gap {
                after: at(1, 12),
                before: at(1, 20)
            }]
        );
    }

    #[test]
    fn pages_search_bodies_and_a_rewritten_update() {
        let dir = std::env::temp_dir().join(format!("cantonscope-sqlite-{}", std::process::id()));
        let path = dir.join("i.sqlite");
        let _ = std::fs::remove_dir_all(&dir);
        let mut index = SqliteIndex::open(&path, true).expect("open");
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("file").permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "owner only");
        }
        let chunk = index.start_chunk(None, None, 2, 0).expect("chunk");
        let w = index
            .write_page(
                chunk.id,
                &page(vec![row("aa01", 1, "alice"), row("aa02", 2, "bob")]),
            )
            .expect("page");
        assert_eq!(w.inserted, 2);
        // The same page again: known, nothing twice.
        let w = index
            .write_page(chunk.id, &page(vec![row("aa02", 2, "bob")]))
            .expect("again");
        assert_eq!((w.inserted, w.known), (0, 1));
        let q = Query::parse(&["party:alice"]).expect("q");
        let found = index.search(&q, None, None, 10).expect("search");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].update_id, "aa01");
        let q = Query::parse(&["contract:00aa"]).expect("q");
        assert_eq!(index.count(&q, None, None).expect("count"), 2);
        let newest = index.search(&q, None, None, 10).expect("search");
        assert_eq!(newest[0].update_id, "aa02", "newest first");
        assert_eq!(
            index.body("aa01").expect("body").as_deref(),
            Some("{\"update_id\":\"aa01\"}")
        );
        // Another digest for a kept update: refused, nothing written.
        let mut changed = row("aa03", 3, "carol");
        let mut other = row("aa02", 2, "bob");
        other.digest = [9; 32];
        changed.update_id = "aa03".to_owned();
        let e = index
            .write_page(chunk.id, &page(vec![changed, other]))
            .expect_err("rewritten");
        assert!(e.to_string().contains("aa02"), "{e}");
        assert_eq!(
            index.digests().expect("digests").len(),
            2,
            "aa03 rolled back"
        );
        // A new update at a position already walked past.
        let e = index
            .write_page(chunk.id, &page(vec![row("bb01", 1, "x")]))
            .expect_err("new in the past");
        assert!(e.to_string().contains("walked past"), "{e}");
        drop(index);
        // Read-only; a file that is no database.
        let mut reader = SqliteIndex::open(&path, false).expect("reader");
        assert_eq!(reader.status(0).expect("status").updates, 2);
        let junk = dir.join("junk.sqlite");
        std::fs::write(&junk, vec![7u8; 4096]).expect("junk");
        let e = SqliteIndex::open(&junk, false).err().expect("corrupt");
        assert!(matches!(e, StoreError::Corrupt { .. }), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
