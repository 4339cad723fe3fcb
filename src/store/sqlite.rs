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
use crate::model::index::{IndexRow, KeyKind, SUMMARY_VERSION, SearchRow};

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
    kind INTEGER NOT NULL,
    value TEXT NOT NULL,
    id INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (kind, value)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS keys (
    term INTEGER NOT NULL,
    migration_id INTEGER NOT NULL,
    record_time INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (term, migration_id, record_time, seq)
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

/// Schema 1 → 2: the keys carry (migration, record time) so a key's updates are in ledger order,
/// and each term its count. Rebuilt from the schema-1 tables in the transaction that runs it.
const MIGRATE_1_TO_2: &str = "
CREATE TABLE terms_v2 (
    kind INTEGER NOT NULL,
    value TEXT NOT NULL,
    id INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (kind, value)
) WITHOUT ROWID;
INSERT INTO terms_v2 (kind, value, id, n)
    SELECT t.kind, t.value, t.id, c.n
    FROM terms t JOIN (SELECT term, count(*) AS n FROM keys GROUP BY term) c ON c.term = t.id;
CREATE TABLE keys_v2 (
    term INTEGER NOT NULL,
    migration_id INTEGER NOT NULL,
    record_time INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (term, migration_id, record_time, seq)
) WITHOUT ROWID;
INSERT INTO keys_v2 (term, migration_id, record_time, seq)
    SELECT k.term, u.migration_id, u.record_time, k.seq
    FROM keys k JOIN updates u ON u.seq = k.seq ORDER BY 1, 2, 3, 4;
DROP TABLE keys;
DROP TABLE terms;
ALTER TABLE keys_v2 RENAME TO keys;
ALTER TABLE terms_v2 RENAME TO terms;
INSERT OR REPLACE INTO meta (key, value)
    VALUES ('next_term', (SELECT CAST(coalesce(max(id), 0) + 1 AS TEXT) FROM terms));
UPDATE meta SET value = '2' WHERE key = 'schema_version';
";

/// An index in an SQLite file.
pub struct SqliteIndex {
    conn: Connection,
    path: PathBuf,
    /// What opening it did that the user should hear of.
    notices: Vec<String>,
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
        let mut index = SqliteIndex {
            conn,
            path: path.to_owned(),
            notices: Vec::new(),
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
            let found = index.check_versions()?;
            if found < SCHEMA_VERSION {
                if !write {
                    return Err(StoreError::OlderSchema { path: shown, found });
                }
                index.migrate(found)?;
            }
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
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?1), ('summary_version', ?2), ('next_term', '1')",
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

    /// Migrates an index of schema `found` to this build's, in one transaction (a process
    /// killed meanwhile leaves the old schema, migrated again next time).
    fn migrate(&mut self, found: i64) -> Result<(), StoreError> {
        if found != 1 {
            return Err(StoreError::Corrupt {
                path: self.path.display().to_string(),
                detail: format!("unknown schema version {found}"),
            });
        }
        let started = std::time::Instant::now();
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction()
            .map_err(|e| engine_error(&path, &e))?;
        let updates: i64 = tx
            .query_row("SELECT count(*) FROM updates", [], |r| r.get(0))
            .map_err(|e| engine_error(&path, &e))?;
        tx.execute_batch(MIGRATE_1_TO_2)
            .map_err(|e| engine_error(&path, &e))?;
        tx.commit().map_err(|e| engine_error(&path, &e))?;
        self.notices.push(format!(
            "{}: migrated the index from schema 1 to schema {SCHEMA_VERSION} ({updates} updates; keys in ledger order with per-key counts, for fast search) in {:.1} s",
            path.display(),
            started.elapsed().as_secs_f64()
        ));
        Ok(())
    }

    /// The schema version of an index, checked: a newer one, an unknown one or summaries of
    /// another version are refused (an older schema is for the caller to migrate or refuse).
    fn check_versions(&self) -> Result<i64, StoreError> {
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
        let schema = number("schema_version")?.unwrap_or(SCHEMA_VERSION);
        if schema > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                path,
                found: schema,
            });
        }
        if schema < 1 {
            return Err(StoreError::Corrupt {
                path,
                detail: format!("unknown schema version {schema}"),
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
        Ok(schema)
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

    /// What `term` stands for in the index.
    fn resolve(&self, term: &Term) -> Result<Resolved, StoreError> {
        match term {
            Term::Exact(kind, value) => {
                let found: Option<(i64, i64)> = self
                    .conn
                    .prepare_cached("SELECT id, n FROM terms WHERE kind = ?1 AND value = ?2")
                    .and_then(|mut stmt| {
                        stmt.query_row(params![kind.code(), value], |r| Ok((r.get(0)?, r.get(1)?)))
                            .optional()
                    })
                    .map_err(|e| self.engine(&e))?;
                Ok(match found {
                    Some((id, n)) => Resolved::Terms { ids: vec![id], n },
                    None => Resolved::Terms {
                        ids: Vec::new(),
                        n: 0,
                    },
                })
            }
            Term::ContractPrefix(prefixes) => {
                let mut ids = Vec::new();
                let mut n = 0;
                for prefix in prefixes {
                    self.scan_prefix(
                        "SELECT id, value, n FROM terms WHERE kind = ?1 AND value >= ?2 ORDER BY kind, value",
                        Some(KeyKind::Contract.code()),
                        prefix,
                        &mut |id, count| {
                            ids.push(id);
                            n += count;
                        },
                    )?;
                }
                ids.sort_unstable();
                ids.dedup();
                Ok(Resolved::Terms { ids, n })
            }
            Term::UpdatePrefix(prefixes) => {
                let mut seqs = Vec::new();
                for prefix in prefixes {
                    self.scan_prefix(
                        "SELECT seq, update_id, 1 FROM updates WHERE update_id >= ?2 AND ?1 IS NULL ORDER BY update_id",
                        None,
                        prefix,
                        &mut |seq, _| seqs.push(seq),
                    )?;
                }
                seqs.sort_unstable();
                seqs.dedup();
                Ok(Resolved::Seqs(seqs))
            }
        }
    }

    /// Walks `sql`'s rows (id, text, count) in text order from `prefix` while the text starts
    /// with it (the prefix is matched here, in Rust, not by the engine).
    fn scan_prefix(
        &self,
        sql: &str,
        kind: Option<i64>,
        prefix: &str,
        out: &mut dyn FnMut(i64, i64),
    ) -> Result<(), StoreError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.engine(&e))?;
        let mut rows = stmt
            .query(params![kind, prefix])
            .map_err(|e| self.engine(&e))?;
        let mut matched = 0;
        while let Some(row) = rows.next().map_err(|e| self.engine(&e))? {
            let text: String = row.get(1).map_err(|e| self.engine(&e))?;
            if !text.starts_with(prefix) {
                break;
            }
            out(
                row.get(0).map_err(|e| self.engine(&e))?,
                row.get(2).map_err(|e| self.engine(&e))?,
            );
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
        let (from, until) = (from.unwrap_or(i64::MIN), until.unwrap_or(i64::MAX));
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

/// What one term of a query stands for.
enum Resolved {
    /// Term ids and how many updates have them (summed: an estimate for a prefix).
    Terms { ids: Vec<i64>, n: i64 },
    /// The seqs of the updates (an update-id prefix).
    Seqs(Vec<i64>),
    /// Every update (a query without terms).
    All,
}

impl Resolved {
    fn is_empty(&self) -> bool {
        match self {
            Resolved::Terms { ids, .. } => ids.is_empty(),
            Resolved::Seqs(seqs) => seqs.is_empty(),
            Resolved::All => false,
        }
    }

    fn size(&self) -> i64 {
        match self {
            Resolved::Terms { n, .. } => *n,
            Resolved::Seqs(seqs) => i64::try_from(seqs.len()).unwrap_or(i64::MAX),
            Resolved::All => i64::MAX,
        }
    }
}

/// A query's plan: the term whose updates are walked, and the terms each of them is probed for.
struct Plan {
    driver: Resolved,
    others: Vec<Resolved>,
}

/// What the SQL of a plan selects.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Select {
    /// (migration, record time, seq) newest first, `LIMIT ?4`.
    Page,
    Count,
}

impl Plan {
    /// The SQL over one part of the history: with `segmented`, `?1` is the migration and
    /// `?2..=?3` the record times. The term ids and seqs are integers read from the index
    /// itself, written into the SQL as numbers.
    fn sql(&self, segmented: bool, select: Select) -> String {
        let (from, distinct) = match &self.driver {
            Resolved::Terms { ids, .. } => (
                format!("keys a WHERE a.term IN ({})", join(ids)),
                ids.len() > 1,
            ),
            Resolved::Seqs(seqs) => (format!("updates a WHERE a.seq IN ({})", join(seqs)), false),
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
                    join(ids)
                )),
                Resolved::Seqs(seqs) => {
                    clause.push_str(&format!(" AND a.seq IN ({})", join(seqs)));
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
        }
    }
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

/// Writes one page in `tx` (see [`IndexStore::write_page`]): its new updates, the count of
/// each of their keys' terms (one statement per distinct key of the page), then their keys.
fn write_rows(
    tx: &Transaction<'_>,
    chunk: &Chunk,
    page: &PageWrite,
    rewritten: &mut Option<StoreError>,
) -> rusqlite::Result<PageWritten> {
    let mut written = PageWritten::default();
    let walked_to = chunk.cursor.as_ref().map(order);
    let start = chunk.start.as_ref().map(order);
    let mut known = tx.prepare_cached("SELECT digest FROM updates WHERE update_id = ?1")?;
    let mut insert = tx.prepare_cached(
        "INSERT INTO updates (update_id, migration_id, record_time, kind, root_action, parties, digest, body, chunk)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    let mut new_rows: Vec<(&IndexRow, i64)> = Vec::with_capacity(page.rows.len());
    for row in &page.rows {
        let position = (row.migration_id, row.record_time);
        if start.is_some_and(|s| position <= s) {
            // Before the chunk (a page read again after a prune): not the chunk's to write.
            continue;
        }
        let stored: Option<Vec<u8>> = known.query_row([&row.update_id], |r| r.get(0)).optional()?;
        let kept = super::kept(stored.as_deref(), &row.digest);
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
        let e = |e: rusqlite::Error| engine_error(&self.path, &e);
        let tx = self.conn.unchecked_transaction().map_err(e)?;
        let Some(plan) = self.plan(query)? else {
            return Ok(Vec::new());
        };
        if limit == 0 {
            return Ok(Vec::new());
        }
        let segments = self.segments(from, until)?;
        let mut seqs: Vec<i64> = Vec::new();
        {
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
        }
        let mut row_of = self
            .conn
            .prepare_cached(
                "SELECT update_id, migration_id, record_time, kind, root_action, parties
                 FROM updates WHERE seq = ?1",
            )
            .map_err(e)?;
        let mut rows = Vec::with_capacity(seqs.len());
        for seq in seqs {
            let row = row_of
                .query_row([seq], |r| {
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
                .map_err(e)?;
            rows.push(row);
        }
        drop(row_of);
        tx.commit().map_err(e)?;
        Ok(rows)
    }

    fn count(
        &mut self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
    ) -> Result<u64, StoreError> {
        let e = |e: rusqlite::Error| engine_error(&self.path, &e);
        let tx = self.conn.unchecked_transaction().map_err(e)?;
        let Some(plan) = self.plan(query)? else {
            return Ok(0);
        };
        let segments = self.segments(from, until)?;
        // One key over the whole history: the count kept with its term.
        if let (None, Resolved::Terms { ids, n }, true) =
            (&segments, &plan.driver, plan.others.is_empty())
            && ids.len() == 1
        {
            return Ok(u64::try_from(*n).unwrap_or(0));
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

    fn notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
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

    fn range_count(&mut self, since: i64, before: Option<i64>) -> Result<u64, StoreError> {
        self.explorer_range_count(since, before)
    }

    fn range_rows(
        &mut self,
        since: i64,
        offset: usize,
        limit: usize,
    ) -> Result<Vec<SearchRow>, StoreError> {
        self.explorer_range_rows(since, offset, limit)
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

    fn explorer_range_count(&mut self, since: i64, before: Option<i64>) -> Result<u64, StoreError> {
        let path = self.path.clone();
        let n: i64 = self
            .conn
            .query_row(
                "SELECT count(*) FROM updates WHERE record_time >= ?1 AND record_time < ?2",
                params![since, before.unwrap_or(i64::MAX)],
                |r| r.get(0),
            )
            .map_err(|e| engine_error(&path, &e))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    fn explorer_range_rows(
        &mut self,
        since: i64,
        offset: usize,
        limit: usize,
    ) -> Result<Vec<SearchRow>, StoreError> {
        let path = self.path.clone();
        let e = |e: rusqlite::Error| engine_error(&path, &e);
        let offset = i64::try_from(offset).unwrap_or(i64::MAX);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // The time index holds the rowid (seq): the order and the offset walk it alone.
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT update_id, migration_id, record_time, kind, root_action, parties
                 FROM updates WHERE record_time >= ?1
                 ORDER BY record_time, seq LIMIT ?2 OFFSET ?3",
            )
            .map_err(e)?;
        stmt.query_map(params![since, limit, offset], |r| {
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
        .map_err(e)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(e)
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
    fn history_rows_from_a_time_in_record_time_order_by_offset_with_their_count() {
        let dir =
            std::env::temp_dir().join(format!("cantonscope-sqlite-range-{}", std::process::id()));
        let path = dir.join("i.sqlite");
        let _ = std::fs::remove_dir_all(&dir);
        let mut index = SqliteIndex::open(&path, true).expect("open");
        let chunk = index.start_chunk(None, None, 1, 0).expect("chunk");
        // Written out of order (chunks are walked in parallel), two in one microsecond.
        let mut rows: Vec<IndexRow> = [5, 1, 3, 2, 4, 3]
            .iter()
            .enumerate()
            .map(|(i, s)| row(&format!("r{i}s{s}"), *s, "alice"))
            .collect();
        rows.sort_by_key(|r| r.record_time);
        index.write_page(chunk.id, &page(rows)).expect("page");
        let t = |s: i64| 1_800_000_000_000_000 + s * 1_000_000;
        assert_eq!(index.range_count(t(0), None).expect("count"), 6);
        assert_eq!(index.range_count(t(3), None).expect("count"), 4);
        assert_eq!(index.range_count(t(2), Some(t(4))).expect("count"), 3);
        let ids = |rows: Vec<SearchRow>| rows.into_iter().map(|r| r.update_id).collect::<Vec<_>>();
        let all = ids(index.range_rows(t(0), 0, 10).expect("rows"));
        assert_eq!(all.len(), 6);
        assert_eq!(all[0], "r1s1");
        assert_eq!(all[5], "r0s5");
        // Pages by offset put together are the whole list, once each.
        let mut paged = Vec::new();
        for offset in (0..6).step_by(4) {
            paged.extend(ids(index.range_rows(t(0), offset, 4).expect("rows")));
        }
        assert_eq!(paged, all);
        assert_eq!(
            ids(index.range_rows(t(3), 1, 2).expect("rows")),
            all[3..5].to_vec()
        );
        let _ = std::fs::remove_dir_all(&dir);
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
