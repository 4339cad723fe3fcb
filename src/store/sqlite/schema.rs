//! The SQLite index's tables, how a file is opened (created, checked, migrated from schema 1)
//! and its meta key/values.

use super::pairs;
use super::{
    Connection, OpenFlags, OptionalExtension, Path, SCHEMA_VERSION, SUMMARY_VERSION, SqliteIndex,
    StoreError, engine_error, params,
};

const SCHEMA: &str = concat!(
    "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS updates ",
    super::row_sets::updates_columns!(),
    "CREATE INDEX IF NOT EXISTS updates_position ON updates (migration_id, record_time);
CREATE INDEX IF NOT EXISTS updates_time ON updates (record_time);
",
    super::update_ids::head_index!(),
    "CREATE TABLE IF NOT EXISTS terms ",
    super::term_values::terms_columns!(),
    "CREATE TABLE IF NOT EXISTS keys ",
    super::row_sets::keys_columns!(),
    "CREATE TABLE IF NOT EXISTS chunks (
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
"
);

/// Schema 4: the dictionaries the bodies are packed with (`crate::model::index::pack`), by
/// zstd's dictionary id; the newest packs new bodies.
const DICTIONARIES: &str = "
CREATE TABLE IF NOT EXISTS dictionaries (
    id INTEGER PRIMARY KEY,
    added_at INTEGER NOT NULL,
    dictionary BLOB NOT NULL
);
";

/// Schema 7: each update's events parts as the scans serve them beside it on `/v0/events`
/// (the mediator's verdict, the traffic summary, the CIP-104 app activity records), by the
/// update's `seq` (a row per update whose events were synced; none: not synced yet). Schema 8
/// packs them ([`crate::store::events_pack`]): `parts` is one zstd blob of the parts and the
/// scans that confirmed them, with a dictionary of `event_dictionaries` (trained on the first
/// page of events written; the newest packs new rows); `served` has a bit per part served (1
/// verdict, 2 traffic summary, 4 app activity records: a part no scan serves is told apart
/// from a served `null`; 8: the verdict's update id is the update's). The verdict's round,
/// result (`accepted`, `rejected`, `unspecified`) and mediator group are columns for search;
/// `digest` is the SHA-256 of the parts' canonical JSON without the scan-local
/// `verdict.finalization_time`. Made by the 6 → 7 migration as well, empty (an index of schema
/// 6 gets its updates' events with `index sync --events`), and by the 7 → 8 one
/// ([`repack_events_7_to_8`]). Schema 10 indexes the verdict's result (and mediator group)
/// only of the verdicts other than `accepted` (`events_verdict_other`; schema 8 and 9 indexed
/// every verdict in `events_verdict`, 20 bytes an update on the 1 M bench index): nearly every
/// verdict is accepted, so a search of them reads the table in `seq` order anyway
/// ([`crate::store::VERDICT_INDEXED`]).
pub(super) const EVENTS: &str = "
CREATE TABLE IF NOT EXISTS event_dictionaries (
    id INTEGER PRIMARY KEY,
    added_at INTEGER NOT NULL,
    dictionary BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    served INTEGER NOT NULL,
    parts BLOB NOT NULL,
    round_number INTEGER,
    verdict_result TEXT,
    mediator_group INTEGER,
    digest BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS events_round ON events (round_number) WHERE round_number IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_verdict_other ON events (verdict_result, mediator_group)
    WHERE verdict_result <> 'accepted';
";

/// Schema 7 → 8: the events kept as schema 7 did (three JSON text columns and the scans'
/// names) repacked into schema 8's blobs ([`EVENTS`]), a thousand at a time, the dictionary
/// trained on the first thousand; an index already of the new layout (or without events) is
/// left as it is. How many rows were repacked.
pub(super) fn repack_events_7_to_8(tx: &rusqlite::Transaction<'_>) -> Result<u64, String> {
    let e = |e: rusqlite::Error| e.to_string();
    let old: i64 = tx
        .query_row(
            "SELECT count(*) FROM pragma_table_info('events') WHERE name = 'verdict'",
            [],
            |r| r.get(0),
        )
        .map_err(e)?;
    if old == 0 {
        return tx.execute_batch(EVENTS).map(|()| 0).map_err(e);
    }
    let [aside, read, write] = crate::store::events_pack::repack_statements('?');
    tx.execute_batch(&aside)
        .and_then(|()| tx.execute_batch(EVENTS))
        .map_err(e)?;
    let mut read = tx.prepare(&read).map_err(e)?;
    let mut write = tx.prepare(&write).map_err(e)?;
    let mut repacker = crate::store::events_pack::Repacker::default();
    let (mut after, mut repacked) = (i64::MIN, 0);
    loop {
        let rows: Vec<(i64, crate::store::EventsRow)> = read
            .query_map([after], |r| {
                Ok((
                    r.get(0)?,
                    crate::store::EventsRow {
                        update_id: super::update_ids::read(r, 1)?,
                        served: r.get(2)?,
                        verdict: r.get(3)?,
                        traffic_summary: r.get(4)?,
                        app_activity_records: r.get(5)?,
                        round_number: r.get(6)?,
                        verdict_result: r.get(7)?,
                        mediator_group: r.get(8)?,
                        digest: r.get(9)?,
                        scans: r.get(10)?,
                    },
                ))
            })
            .and_then(Iterator::collect)
            .map_err(e)?;
        let Some(batch) = repacker.batch(rows)? else {
            break;
        };
        after = batch.last;
        if let Some(dictionary) = &batch.trained {
            add_event_dictionary(tx, dictionary)?;
        }
        for (seq, served, blob, row) in &batch.rows {
            write
                .execute(rusqlite::params![
                    seq,
                    served,
                    blob,
                    row.round_number,
                    row.verdict_result,
                    row.mediator_group,
                    row.digest
                ])
                .map_err(e)?;
            repacked += 1;
        }
    }
    drop((read, write));
    tx.execute_batch("DROP TABLE events_v7").map_err(e)?;
    Ok(repacked)
}

/// Keeps `dictionary` (as [`crate::store::events_pack::EventsPacker::new`] trained it) as the
/// one new events are packed with.
pub(super) fn add_event_dictionary(
    tx: &rusqlite::Transaction<'_>,
    dictionary: &[u8],
) -> Result<(), String> {
    let id = crate::model::index::pack::dictionary_id(dictionary)
        .ok_or("the trained events dictionary is not a zstd dictionary")?;
    tx.execute(
        "INSERT OR IGNORE INTO event_dictionaries (id, added_at, dictionary) VALUES (?1, ?2, ?3)",
        params![
            i64::from(id),
            chrono::Utc::now().timestamp_micros(),
            dictionary
        ],
    )
    .map(|_| ())
    .map_err(|e| e.to_string())
}
/// Schema 8: the events with a verdict and no update (`update: null` on `/v0/events`: a
/// confirmation request the mediator rejected, a wholly private transaction), each a record of
/// its own by its verdict's update id, at its verdict's place; its parts kept as an update's
/// are in `events` (the same columns). Made by the 7 → 8 migration as well, empty: the next
/// `index sync --events` fills it as it walks. Its time index (History's list reads them in
/// record-time order among the updates) is made by any writer's open of an index without it.
pub(super) const VERDICT_EVENTS: &str = "
CREATE TABLE IF NOT EXISTS verdict_events (
    update_id TEXT PRIMARY KEY,
    migration_id INTEGER NOT NULL,
    record_time INTEGER NOT NULL,
    served INTEGER NOT NULL,
    verdict TEXT,
    traffic_summary TEXT,
    app_activity_records TEXT,
    round_number INTEGER,
    verdict_result TEXT,
    mediator_group INTEGER,
    digest BLOB NOT NULL,
    scans TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS verdict_events_position ON verdict_events (migration_id, record_time);
CREATE INDEX IF NOT EXISTS verdict_events_time ON verdict_events (record_time);
";

/// Schema 5 → 6: each term keeps its newest key (migration, record time, seq), read in one
/// walk of the keys in their order (a term's newest is the last of its run), not a look-up per
/// term: 22 million terms at 10 M updates. A term without keys keeps none (read when needed).
/// Schema 15 → 16: each body that names its contracts by their terms' ids alone
/// ([`pack::CONTRACT_TERMS`]) given their keys too ([`pack::CONTRACT_KEYS`]; the frame is
/// not touched), found through the terms' index by id, which is then dropped. Returns how
/// many bodies were.
fn rewrite_named_bodies_15_to_16(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<i64> {
    use crate::model::index::pack;
    const BATCH: i64 = 2_000;
    let mut rewritten = 0;
    let mut after = i64::MIN;
    let mut read = tx.prepare(
        "SELECT seq, body FROM updates WHERE seq > ?1 AND substr(body, 1, 1) = x'c5'
         ORDER BY seq LIMIT ?2",
    )?;
    let mut value = tx.prepare("SELECT value FROM terms WHERE id = ?1")?;
    let mut write = tx.prepare("UPDATE updates SET body = ?2 WHERE seq = ?1")?;
    loop {
        let batch: Vec<(i64, Vec<u8>)> = read
            .query_map(params![after, BATCH], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let Some((last, _)) = batch.last() else {
            break;
        };
        after = *last;
        for (seq, kept) in &batch {
            let damaged = |detail: String| {
                rusqlite::Error::ToSqlConversionFailure(
                    format!("the body of the update numbered {seq}: {detail}").into(),
                )
            };
            let (terms, frame) = pack::contract_terms(kept).map_err(damaged)?;
            let contracts = terms
                .iter()
                .map(|term| {
                    let text: String = value.query_row([term], |r| {
                        super::term_values::text(r.get_ref(0)?)
                            .map(std::borrow::Cow::into_owned)
                            .map_err(Into::into)
                    })?;
                    Ok((*term, super::term_values::contract_key(&text)))
                })
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let mut pending = Vec::with_capacity(frame.len() + 1);
            pending.push(pack::CONTRACTS_PENDING);
            pending.extend_from_slice(frame);
            write.execute(params![seq, pack::with_contract_keys(&pending, &contracts)])?;
            rewritten += 1;
        }
    }
    tx.execute_batch("DROP INDEX IF EXISTS terms_id")?;
    Ok(rewritten)
}

fn migrate_5_to_6(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch(
        "ALTER TABLE terms ADD COLUMN last_migration INTEGER;
         ALTER TABLE terms ADD COLUMN last_time INTEGER;
         ALTER TABLE terms ADD COLUMN last_seq INTEGER;
         CREATE TEMP TABLE term_last (term INTEGER PRIMARY KEY, m INTEGER, t INTEGER, s INTEGER);",
    )?;
    {
        let mut keys = tx.prepare(
            "SELECT term, migration_id, record_time, seq FROM keys
             ORDER BY term, migration_id, record_time, seq",
        )?;
        let mut keep = tx.prepare("INSERT INTO temp.term_last VALUES (?1, ?2, ?3, ?4)")?;
        let mut rows = keys.query([])?;
        let mut run: Option<[i64; 4]> = None;
        while let Some(r) = rows.next()? {
            let key = [r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?];
            if let Some(last) = run
                && last[0] != key[0]
            {
                keep.execute(last)?;
            }
            run = Some(key);
        }
        if let Some(last) = run {
            keep.execute(last)?;
        }
    }
    tx.execute_batch(
        "UPDATE terms SET (last_migration, last_time, last_seq) =
             (SELECT m, t, s FROM temp.term_last WHERE term = terms.id);
         DROP TABLE temp.term_last;",
    )
}

/// Schema 1 → 2: the keys carry (migration, record time) so a key's updates are in ledger order,
/// and each term its count. Rebuilt from the schema-1 tables in the transaction that runs it.
const MIGRATE_1_TO_2: &str = concat!(
    "
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
CREATE TABLE keys_v2 ",
    super::row_sets::keys_columns!(),
    "INSERT INTO keys_v2 (term, migration_id, record_time, seq)
    SELECT k.term, u.migration_id, u.record_time, k.seq
    FROM keys k JOIN updates u ON u.seq = k.seq ORDER BY 1, 2, 3, 4;
DROP TABLE keys;
DROP TABLE terms;
ALTER TABLE keys_v2 RENAME TO keys;
ALTER TABLE terms_v2 RENAME TO terms;
INSERT OR REPLACE INTO meta (key, value)
    VALUES ('next_term', (SELECT CAST(coalesce(max(id), 0) + 1 AS TEXT) FROM terms));
UPDATE meta SET value = '2' WHERE key = 'schema_version';
"
);

impl SqliteIndex {
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
        let conn = Connection::open_with_flags(path, flags).map_err(|e| engine_error(path, &e))?;
        let mut index = SqliteIndex {
            conn,
            path: path.to_owned(),
            notices: Vec::new(),
            dictionaries: crate::store::BodyDictionaries::default(),
            event_dictionaries: crate::store::BodyDictionaries::default(),
            checkpointer: None,
            row_cache: super::row_cache::RowCache::default(),
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
            .map_err(|e| engine_error(path, &e))?;
        let has_meta = index
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map_err(|e| engine_error(path, &e))?
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
                    return Err(StoreError::OlderSchema {
                        path: shown,
                        found,
                        reads: SCHEMA_VERSION,
                    });
                }
                index.migrate(found)?;
            }
        } else if !write {
            return Err(StoreError::Missing(shown));
        }
        if write {
            // A page's write keeps its statements (the multi-row inserts among them) prepared
            // from page to page; rusqlite's default of 16 would evict them.
            index.conn.set_prepared_statement_cache_capacity(64);
            index
                .conn
                .pragma_update(None, "journal_mode", "WAL")
                .map_err(|e| engine_error(path, &e))?;
            // WAL with synchronous=NORMAL: a commit is not synced to disk, the WAL is at each
            // checkpoint. A killed process loses nothing committed; a power loss may lose the
            // last pages (never the file's consistency): each page is one transaction with its
            // chunk's cursor, so the next sync walks them again. One fsync per page cost more
            // than the page's CPU work.
            index
                .conn
                .pragma_update(None, "synchronous", "NORMAL")
                .map_err(|e| index.engine(&e))?;
            // The WAL checkpointed into the file every 64 MiB (16,384 pages of 4 KiB), not every
            // 4 MiB (SQLite's default): a sync page is about that size, so the writer copied
            // and synced the file after nearly every page; now the pages a sync rewrites
            // (the indexes' inner pages) are copied once per checkpoint.
            index
                .conn
                .pragma_update(None, "wal_autocheckpoint", 16_384)
                .map_err(|e| index.engine(&e))?;
            // After a checkpoint that starts the log over, its file is cut to 64 MiB: a
            // migration or a compaction writes the whole index through it once, and without a
            // limit the file would keep that size (SQLite's default) until the last connection
            // closes.
            index
                .conn
                .pragma_update(None, "journal_size_limit", 67_108_864)
                .map_err(|e| index.engine(&e))?;
            // 64 MiB of page cache for the writer (SQLite's default is 2 MiB): a page's
            // inserts land all over the update-id, time and key indexes, and each page not in
            // the cache is a read from the file (a system call). Memory only: the file is the
            // same.
            index
                .conn
                .pragma_update(None, "cache_size", -65_536)
                .map_err(|e| index.engine(&e))?;
            // A multi-row INSERT keeps a statement journal (to undo just that statement); in
            // memory, not in a temporary file written page by page (a sync's hundreds of
            // thousands of small writes).
            index
                .conn
                .pragma_update(None, "temp_store", "MEMORY")
                .map_err(|e| index.engine(&e))?;
            // The schema and its versions in one transaction: a process killed while creating
            // the index leaves no tables or all of them, never a part that a reader would take
            // for an index.
            let tx = index
                .conn
                .unchecked_transaction()
                .map_err(|e| index.engine(&e))?;
            tx.execute_batch(SCHEMA)
                .and_then(|()| tx.execute_batch(super::row_sets::SETS))
                .and_then(|()| tx.execute_batch(super::party_names::TABLE))
                .and_then(|()| tx.execute_batch(pairs::CREATE))
                .and_then(|()| tx.execute_batch(super::hub_keys::CREATE))
                .and_then(|()| tx.execute_batch(DICTIONARIES))
                .and_then(|()| tx.execute_batch(EVENTS))
                .and_then(|()| tx.execute_batch(VERDICT_EVENTS))
                .and_then(|()| tx.execute_batch(super::stats::DAILY_STATS))
                .and_then(|()| super::rounds::rounds_step(&tx))
                .and_then(|()| super::validators::validators_step(&tx))
                .map_err(|e| engine_error(path, &e))?;
            tx.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?1), ('summary_version', ?2), ('next_term', '1'), (?3, ?4)",
                params![
                    SCHEMA_VERSION.to_string(),
                    SUMMARY_VERSION.to_string(),
                    super::hub_keys::FROM_KEY,
                    super::hub_keys::FROM.to_string()
                ],
            )
            .map_err(|e| index.engine(&e))?;
            tx.commit().map_err(|e| index.engine(&e))?;
            // The terms between a higher threshold the hubs were made at and this one made
            // hubs (an index of a build whose default was 100,000), once.
            let started = std::time::Instant::now();
            let made = pairs::complete(&index.conn).map_err(|e| index.engine(&e))?;
            if let Some((threshold, n @ 1..)) = made {
                index.notices.push(crate::store::hubs::made_notice(
                    &path.display().to_string(),
                    threshold,
                    n,
                    started.elapsed(),
                ));
            }
            index.checkpointer = super::checkpoint::Checkpointer::start(&index.conn, path);
            // The validators' table up to the newest kept update (an index migrated from
            // schema 8: counted from its kept bodies, once).
            crate::store::validators::build(&mut index)?;
        }
        Ok(index)
    }

    pub(super) fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
            .map_err(|e| engine_error(&self.path, &e))
    }

    /// Migrates an index of schema `found` to this build's, in one transaction (a process
    /// killed meanwhile leaves the old schema, migrated again next time).
    fn migrate(&mut self, found: i64) -> Result<(), StoreError> {
        if !(1..SCHEMA_VERSION).contains(&found) {
            return Err(StoreError::Corrupt {
                path: self.path.display().to_string(),
                detail: format!("unknown schema version {found}"),
            });
        }
        let started = std::time::Instant::now();
        let path = self.path.clone();
        // Room for the write-ahead log the migration writes, asked of the disk first.
        let in_use =
            super::migration_room::in_use(&self.conn).map_err(|e| engine_error(&path, &e))?;
        if let Some(free) = super::migration_room::free_beside(&path)
            && let Some(detail) = super::migration_room::refusal(found, in_use, free)
        {
            return Err(StoreError::Engine {
                path: path.display().to_string(),
                detail,
            });
        }
        let tx = self
            .conn
            .transaction()
            .map_err(|e| engine_error(&path, &e))?;
        let updates: i64 = tx
            .query_row("SELECT count(*) FROM updates", [], |r| r.get(0))
            .map_err(|e| engine_error(&path, &e))?;
        // The blocks' table first: the hubs made by the migrations below read a term's keys
        // wherever they are (`pairs`).
        tx.execute_batch(super::hub_keys::CREATE)
            .map_err(|e| engine_error(&path, &e))?;
        let mut done = Vec::new();
        if found == 1 {
            tx.execute_batch(MIGRATE_1_TO_2)
                .map_err(|e| engine_error(&path, &e))?;
            done.push("keys in ledger order with per-key counts".to_owned());
        }
        if found < 3 {
            let hubs = pairs::migrate_2_to_3(&tx).map_err(|e| engine_error(&path, &e))?;
            done.push(format!(
                "the counts of two frequent terms together and their bitmaps, for fast search ({hubs} frequent terms)"
            ));
        } else if found < 5 {
            let hubs = pairs::migrate_4_to_5(&tx).map_err(|e| engine_error(&path, &e))?;
            done.push(format!(
                "the bitmaps of the frequent terms, for fast counts ({hubs} frequent terms)"
            ));
        }
        tx.execute_batch(DICTIONARIES)
            .and_then(|()| {
                tx.execute(
                    "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
                    [SCHEMA_VERSION.to_string()],
                )
                .map(|_| ())
            })
            .map_err(|e| engine_error(&path, &e))?;
        if found < 6 {
            migrate_5_to_6(&tx).map_err(|e| engine_error(&path, &e))?;
            done.push(
                "each term's newest update, for fast pages of a contract-id prefix".to_owned(),
            );
        }
        if found < 7 {
            tx.execute_batch(EVENTS)
                .map_err(|e| engine_error(&path, &e))?;
            done.push(
                "a table for each update's events (verdict, traffic summary, app activity), filled by `index sync --events` without fetching the bodies again".to_owned(),
            );
        }
        if found < 8 {
            let repacked = repack_events_7_to_8(&tx).map_err(|detail| StoreError::Engine {
                path: path.display().to_string(),
                detail: format!("cannot repack its events: {detail}"),
            })?;
            if found == 7 {
                done.push(format!(
                    "the events of {repacked} updates packed with zstd and a dictionary"
                ));
            }
            tx.execute_batch(VERDICT_EVENTS)
                .map_err(|e| engine_error(&path, &e))?;
            if found == 7 {
                // Its updates have their events: the verdict-only ones between them come
                // with one walk over the whole index.
                tx.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                    params![
                        crate::store::VERDICT_EVENTS_BACKFILL,
                        crate::store::VERDICT_EVENTS_PENDING
                    ],
                )
                .map_err(|e| engine_error(&path, &e))?;
            }
            done.push(
                "a table for the events with a verdict and no update (rejected requests, wholly private transactions), filled by the next `index sync --events`".to_owned(),
            );
            tx.execute_batch(super::stats::DAILY_STATS)
                .map_err(|e| engine_error(&path, &e))?;
            done.push("a per-day summary for `index stats`, filled by its first run".to_owned());
            super::rounds::rounds_step(&tx).map_err(|e| engine_error(&path, &e))?;
            done.push(
                "the per-round summary of the kept events (app activity, traffic cost), built from them by the next `index sync`".to_owned(),
            );
        }
        if found < 9 {
            super::validators::validators_step(&tx).map_err(|e| engine_error(&path, &e))?;
            done.push(
                "a table of every validator the kept bodies tell of (first licence, newest activity), counted from them once when a writer opens the index".to_owned(),
            );
        }
        if found < 10 {
            // After the steps that make the events table (with schema 10's index): the
            // schema-8 index over every verdict dropped, the other verdicts' index made.
            tx.execute_batch("DROP INDEX IF EXISTS events_verdict;")
                .and_then(|()| tx.execute_batch(EVENTS))
                .map_err(|e| engine_error(&path, &e))?;
            if found >= 7 {
                done.push(
                    "the verdict-result index over the verdicts other than accepted only (nearly all are accepted)".to_owned(),
                );
            }
        }
        if found < 11 {
            tx.execute_batch(super::term_values::MIGRATE_10_TO_11)
                .map_err(|e| engine_error(&path, &e))?;
            done.push(
                "the contract ids of the search terms kept as bytes, half their text's size (the space freed is reused by the next syncs; `VACUUM` gives it back now)".to_owned(),
            );
        }
        let mut rebuilt = false;
        if found < 12 {
            rebuilt =
                super::row_sets::migrate_11_to_12(&tx).map_err(|e| engine_error(&path, &e))?;
            done.push(
                "each update's party set and its kind and root action kept once, the updates pointing at them by number (the space freed is reused by the next syncs; `VACUUM` gives it back now)".to_owned(),
            );
        }
        if found < 13 {
            if !rebuilt {
                tx.execute_batch(super::update_ids::MIGRATE_12_TO_13)
                    .map_err(|e| engine_error(&path, &e))?;
            }
            super::row_sets::migrate_12_to_13(&tx).map_err(|e| engine_error(&path, &e))?;
            done.push(
                "the update ids kept as bytes, half their text's size, and the party sets and actions found by a hash, not by a second copy of their text (the space freed is reused by the next syncs; `VACUUM` gives it back now)".to_owned(),
            );
        }
        if found < 14 {
            done.push(
                "the bodies of the updates written from now on name their own update id by one byte, about a tenth smaller once the next sync has trained a dictionary on them (the bodies kept read back as they are; an older cantonscope refuses the index)".to_owned(),
            );
        }
        if found == 15 {
            let rewritten =
                rewrite_named_bodies_15_to_16(&tx).map_err(|e| engine_error(&path, &e))?;
            done.push(format!(
                "the {rewritten} bodies that name their contracts by their terms' numbers name them by their keys too, found in the terms' own order: the terms' index by number dropped (the space freed is reused by the next syncs; `VACUUM` gives it back now)"
            ));
        } else if found < 16 {
            done.push(
                "the bodies of the updates written from now on name their contracts by their search terms, about half their size (the bodies kept read back as they are; an older cantonscope refuses the index)".to_owned(),
            );
        }
        if found < 17 {
            let rebuilt =
                super::update_ids::migrate_16_to_17(&tx).map_err(|e| engine_error(&path, &e))?;
            done.push(if rebuilt {
                "the update ids found by an index of their first 6 and last 2 bytes, not a unique index of the whole id: the updates table rebuilt without it, about 28 bytes an update less (the space freed is reused by the next syncs; `VACUUM` gives it back now)"
            } else {
                "the update ids found by an index of their first 6 and last 2 bytes"
            }.to_owned());
        }
        if found < 18 {
            tx.execute_batch(&super::record_times::migrate_17_to_18_sql())
                .map_err(|e| engine_error(&path, &e))?;
            done.push(
                "the record times counted from 2027-01-01, not from 1970: 6 bytes each where they took 8, in every update's row, its two time indexes, its keys and its terms, about 34 bytes an update less (the space freed is reused by the next syncs; `VACUUM` gives it back now)".to_owned(),
            );
        }
        if found == 18 {
            let terms =
                super::record_times::newest_keys_18(&tx).map_err(|e| engine_error(&path, &e))?;
            if terms > 0 {
                done.push(format!(
                    "the newest update of {terms} search terms read again from their keys (the writer of schema 18 had given those whose newest update was of migration 0 before 2027 an update that does not exist, failing a contract-id prefix search over them)"
                ));
            }
        }
        if found < 19 {
            let sets =
                super::party_names::migrate_18_to_19(&tx).map_err(|e| engine_error(&path, &e))?;
            done.push(format!(
                "the {sets} party sets kept as their parties' numbers, each party's name once, not as their JSON (the space freed is reused by the next syncs; `VACUUM` gives it back now)"
            ));
        }
        super::hub_keys::migrate(&tx, found, &mut done).map_err(|e| engine_error(&path, &e))?;
        if found < 4 {
            done.push(
                "a table for the bodies' dictionary, trained by the next page written".to_owned(),
            );
        }
        tx.commit().map_err(|e| engine_error(&path, &e))?;
        self.notices.push(format!(
            "{}: migrated the index from schema {found} to schema {SCHEMA_VERSION} ({updates} updates; {}) in {:.1} s",
            path.display(),
            done.join("; "),
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
                reads: SCHEMA_VERSION,
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

    pub(super) fn set_meta(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![key, value],
            )
            .map(|_| ())
            .map_err(|e| self.engine(&e))
    }
}
