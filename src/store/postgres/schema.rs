//! The PostgreSQL index's tables, how a database is opened (created, its versions checked)
//! and its meta key/values.

use super::pairs;
use super::{PgIndex, SCHEMA_VERSION, SUMMARY_VERSION, StoreError, Target, closed, truncate};

/// Schema 5 → 6: each term keeps its newest key (migration, record time, seq), read from its
/// keys.
const MIGRATE_5_TO_6: &str = "
ALTER TABLE term_counts ADD COLUMN last_migration BIGINT, ADD COLUMN last_time BIGINT,
    ADD COLUMN last_seq BIGINT;
UPDATE term_counts t SET (last_migration, last_time, last_seq) = (
    SELECT k.migration_id, k.record_time, k.seq FROM keys k WHERE k.term = t.term
    ORDER BY k.migration_id DESC, k.record_time DESC, k.seq DESC LIMIT 1);
";

/// Schema 17: the keys' key (term, migration, record time, seq) with the key's last three
/// columns newest first, in place of the primary key in ascending order. A search walks a
/// term's keys newest first: backwards in that primary key, which reads its pages one at a
/// time against the file's order, where the system's read-ahead does not help (a template's
/// 20,921 keys at 10 M updates: 157 pages, 11.9-13.3 ms cold backwards, 3.3-3.6 forwards).
/// A unique index, not a primary key, which PostgreSQL keeps in ascending order only; it is
/// the table's replica identity, as the key was. Built in one pass (here, or by `index
/// compact`), a term's keys lie in the file's order; the keys a sync adds after go to pages
/// split off at the file's end, read against its order as before. Returns whether it was made
/// (a new database's, on an empty table, or an older one's: its keys' key built again in the
/// schema's transaction, the table locked until it commits; readers of this build refuse the
/// database until then).
fn keys_newest_first(c: &mut impl postgres::GenericClient) -> Result<bool, postgres::Error> {
    let made: bool = c
        .query_one("SELECT to_regclass('keys_newest') IS NOT NULL", &[])?
        .get(0);
    if made {
        return Ok(false);
    }
    // Its own statement first: before server 13 a string of several is timed as a whole, with
    // the timeout it started with (the build takes 66.7 s at 10 M updates).
    c.batch_execute("SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0")?;
    c.batch_execute(
        "SET LOCAL maintenance_work_mem = '256MB';
         CREATE UNIQUE INDEX keys_newest
             ON keys (term, migration_id DESC, record_time DESC, seq DESC);
         ALTER TABLE keys DROP CONSTRAINT IF EXISTS keys_pkey;
         ALTER TABLE keys REPLICA IDENTITY USING INDEX keys_newest;",
    )?;
    Ok(true)
}

/// Schema 13 → 14: `term_counts` folded into `terms`, whose `(kind, value)` key includes the
/// counts. A new table filled in one pass (no dead row versions: updating every term in place
/// rewrote the table and both its keys, about twice the disk), its keys made after it.
const MIGRATE_13_TO_14: &str = r#"
SET LOCAL maintenance_work_mem = '256MB';
CREATE TABLE terms_14 (
    id BIGINT GENERATED ALWAYS AS IDENTITY,
    kind BIGINT NOT NULL,
    value TEXT COLLATE "C" NOT NULL,
    updates BIGINT NOT NULL,
    last_migration BIGINT,
    last_time BIGINT,
    last_seq BIGINT
);
INSERT INTO terms_14 OVERRIDING SYSTEM VALUE
    SELECT t.id, t.kind, t.value, coalesce(c.updates, 0), c.last_migration, c.last_time, c.last_seq
    FROM terms t LEFT JOIN term_counts c ON c.term = t.id;
SELECT setval(pg_get_serial_sequence('terms_14', 'id'),
    nextval(pg_get_serial_sequence('terms', 'id')));
DROP TABLE term_counts;
DROP TABLE terms;
ALTER TABLE terms_14 RENAME TO terms;
ALTER SEQUENCE terms_14_id_seq RENAME TO terms_id_seq;
ALTER TABLE terms ADD PRIMARY KEY (id), ADD CONSTRAINT terms_kind_value_key
    UNIQUE (kind, value) INCLUDE (id, updates, last_migration, last_time, last_seq);
"#;

/// The tables: those of the SQLite file (see [`super`]), with `keys` carrying the update's
/// position and `terms` each term's updates and newest key (schema 14), its value as bytes
/// (schema 16: [`super::term_values`]).
const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS updates (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    update_id TEXT COLLATE "C" NOT NULL UNIQUE,
    migration_id BIGINT NOT NULL,
    record_time BIGINT NOT NULL,
    kind TEXT NOT NULL,
    root_action TEXT NOT NULL,
    parties TEXT NOT NULL,
    digest BYTEA NOT NULL,
    body BYTEA,
    chunk BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS updates_position ON updates (migration_id, record_time, seq);
CREATE INDEX IF NOT EXISTS updates_time ON updates (record_time);
CREATE TABLE IF NOT EXISTS terms (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind BIGINT NOT NULL,
    value BYTEA NOT NULL,
    updates BIGINT NOT NULL,
    last_migration BIGINT,
    last_time BIGINT,
    last_seq BIGINT,
    CONSTRAINT terms_kind_value_key
        UNIQUE (kind, value) INCLUDE (id, updates, last_migration, last_time, last_seq)
);
CREATE TABLE IF NOT EXISTS keys (
    term BIGINT NOT NULL,
    migration_id BIGINT NOT NULL,
    record_time BIGINT NOT NULL,
    seq BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS hubs (term BIGINT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS pairs (
    a BIGINT NOT NULL,
    b BIGINT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (a, b)
);
CREATE TABLE IF NOT EXISTS hub_bits (
    term BIGINT NOT NULL,
    block BIGINT NOT NULL,
    bits BYTEA NOT NULL,
    PRIMARY KEY (term, block) INCLUDE (bits)
);
CREATE TABLE IF NOT EXISTS chunks (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    start_migration BIGINT,
    start_time TEXT,
    end_before BIGINT,
    cursor_migration BIGINT,
    cursor_time TEXT,
    page_start_migration BIGINT,
    page_start_time TEXT,
    state TEXT NOT NULL,
    verify BIGINT NOT NULL,
    scans TEXT NOT NULL,
    updates BIGINT NOT NULL DEFAULT 0,
    started_at BIGINT NOT NULL,
    finished_at BIGINT
);
CREATE TABLE IF NOT EXISTS divergences (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    update_id TEXT NOT NULL,
    migration_id BIGINT NOT NULL,
    record_time TEXT NOT NULL,
    found_at BIGINT NOT NULL,
    resolved BOOLEAN NOT NULL,
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS dictionaries (
    id BIGINT PRIMARY KEY,
    added_at BIGINT NOT NULL,
    dictionary BYTEA NOT NULL
);
CREATE TABLE IF NOT EXISTS sync_heartbeat (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    pid BIGINT NOT NULL,
    host TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    beat_at BIGINT NOT NULL,
    command TEXT NOT NULL
);
"#;

/// Schema 8: each update's events parts packed ([`crate::store::events_pack`]), as on SQLite
/// (see its `EVENTS`): one zstd blob of the parts and their scans by the update's `seq`, a
/// dictionary of `event_dictionaries`, the search columns and the digest. Run when a database
/// is opened for writing (idempotent), after [`repack_events_7_to_8`] moved a schema-7 table
/// aside. Schema 10: the verdict's result indexed only of the verdicts other than `accepted`
/// (as on SQLite; schema 8 and 9's `events_verdict`, over every verdict, is dropped by the
/// first writer's open).
const EVENTS: &str = "
CREATE TABLE IF NOT EXISTS event_dictionaries (
    id BIGINT PRIMARY KEY,
    added_at BIGINT NOT NULL,
    dictionary BYTEA NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    seq BIGINT PRIMARY KEY,
    served BIGINT NOT NULL,
    parts BYTEA NOT NULL,
    round_number BIGINT,
    verdict_result TEXT,
    mediator_group BIGINT,
    digest BYTEA NOT NULL
);
CREATE INDEX IF NOT EXISTS events_round ON events (round_number) WHERE round_number IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_verdict_other ON events (verdict_result, mediator_group)
    WHERE verdict_result <> 'accepted';
";

/// Schema 7 → 8: the events kept as schema 7 did (three JSON text columns and the scans'
/// names) repacked into schema 8's blobs ([`EVENTS`]), a thousand at a time, the dictionary
/// trained on the first thousand; a table already of the new layout (or none) is left as it
/// is. How many rows were repacked.
fn repack_events_7_to_8(tx: &mut postgres::Transaction<'_>) -> Result<u64, String> {
    let e = |e: postgres::Error| e.to_string();
    let old: bool = tx
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM information_schema.columns
                 WHERE table_schema = current_schema() AND table_name = 'events'
                   AND column_name = 'verdict')",
            &[],
        )
        .map_err(e)?
        .get(0);
    if !old {
        return tx.batch_execute(EVENTS).map(|()| 0).map_err(e);
    }
    let [aside, read, write] = crate::store::events_pack::repack_statements('$');
    tx.batch_execute(&aside)
        .and_then(|()| tx.batch_execute(EVENTS))
        .map_err(e)?;
    let read = tx.prepare(&read).map_err(e)?;
    let write = tx.prepare(&write).map_err(e)?;
    let mut repacker = crate::store::events_pack::Repacker::default();
    let (mut after, mut repacked) = (i64::MIN, 0);
    loop {
        let rows: Vec<(i64, crate::store::EventsRow)> = tx
            .query(&read, &[&after])
            .map_err(e)?
            .iter()
            .map(|r| {
                (
                    r.get(0),
                    crate::store::EventsRow {
                        update_id: r.get(1),
                        served: r.get(2),
                        verdict: r.get(3),
                        traffic_summary: r.get(4),
                        app_activity_records: r.get(5),
                        round_number: r.get(6),
                        verdict_result: r.get(7),
                        mediator_group: r.get(8),
                        digest: r.get(9),
                        scans: r.get(10),
                    },
                )
            })
            .collect();
        let Some(batch) = repacker.batch(rows)? else {
            break;
        };
        after = batch.last;
        if let Some(dictionary) = &batch.trained {
            add_event_dictionary(tx, dictionary)?;
        }
        for (seq, served, blob, row) in &batch.rows {
            tx.execute(
                &write,
                &[
                    seq,
                    &served,
                    &blob,
                    &row.round_number,
                    &row.verdict_result,
                    &row.mediator_group,
                    &row.digest,
                ],
            )
            .map_err(e)?;
            repacked += 1;
        }
    }
    tx.batch_execute("DROP TABLE events_v7").map_err(e)?;
    Ok(repacked)
}

/// Keeps `dictionary` (as [`crate::store::events_pack::EventsPacker::new`] trained it) as the
/// one new events are packed with.
pub(super) fn add_event_dictionary(
    tx: &mut postgres::Transaction<'_>,
    dictionary: &[u8],
) -> Result<(), String> {
    let id = crate::model::index::pack::dictionary_id(dictionary)
        .ok_or("the trained events dictionary is not a zstd dictionary")?;
    tx.execute(
        "INSERT INTO event_dictionaries (id, added_at, dictionary) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO NOTHING",
        &[
            &i64::from(id),
            &chrono::Utc::now().timestamp_micros(),
            &dictionary,
        ],
    )
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// Schema 8: the events with a verdict and no update (see the SQLite schema's
/// `VERDICT_EVENTS`), made with the schema and by the 7 → 8 migration, empty.
const VERDICT_EVENTS: &str = "
CREATE TABLE IF NOT EXISTS verdict_events (
    update_id TEXT PRIMARY KEY,
    migration_id BIGINT NOT NULL,
    record_time BIGINT NOT NULL,
    served BIGINT NOT NULL,
    verdict TEXT,
    traffic_summary TEXT,
    app_activity_records TEXT,
    round_number BIGINT,
    verdict_result TEXT,
    mediator_group BIGINT,
    digest BYTEA NOT NULL,
    scans TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS verdict_events_position ON verdict_events (migration_id, record_time);
CREATE INDEX IF NOT EXISTS verdict_events_time ON verdict_events (record_time);
";

/// The index's tables (for its size).
pub const TABLES: [&str; 22] = [
    "meta",
    "updates",
    "terms",
    "keys",
    "hubs",
    "pairs",
    "chunks",
    "divergences",
    "dictionaries",
    "hub_bits",
    "events",
    "event_dictionaries",
    "verdict_events",
    "daily_stats",
    "daily_actors",
    "rounds",
    "round_parties",
    "rounds_counted",
    "validators",
    "sync_heartbeat",
    "key_blocks",
    "key_marks",
];

/// The bytes the index's tables take with their indexes (`index status`' size).
pub(super) fn size_sql() -> String {
    format!(
        "SELECT ({})::bigint",
        TABLES
            .iter()
            .map(|t| format!("pg_total_relation_size('{t}')"))
            .collect::<Vec<_>>()
            .join(" + ")
    )
}

impl PgIndex {
    /// Opens the index at `url` (with `write`: creates the tables when missing). With
    /// `holder`, takes the writer lock first, refusing when another session holds it.
    pub fn open(url: &str, write: bool, holder: Option<&str>) -> Result<PgIndex, StoreError> {
        let target = Target::parse(url)?;
        let name = holder.map_or_else(
            || "cantonscope".to_owned(),
            |h| truncate(&format!("cantonscope {h}"), 63),
        );
        let client = target.connect(&name)?;
        let mut index = PgIndex {
            client: Some(client),
            target,
            dictionaries: crate::store::BodyDictionaries::default(),
            event_dictionaries: crate::store::BodyDictionaries::default(),
            notices: Vec::new(),
        };
        if holder.is_some() {
            index.lock()?;
        }
        let has_meta = index.table_exists("meta")?;
        let mut older = None;
        if has_meta {
            let found = index.check_versions()?;
            if found < SCHEMA_VERSION {
                if !write {
                    return Err(StoreError::OlderSchema {
                        path: index.target.shown.clone(),
                        found,
                        reads: SCHEMA_VERSION,
                    });
                }
                older = Some(found);
            }
        } else if !write {
            return Err(StoreError::Missing(index.target.shown.clone()));
        } else if index.table_exists("updates")? {
            return Err(StoreError::Corrupt {
                path: index.target.shown.clone(),
                detail: "a database with an updates table but not the index's meta".to_owned(),
            });
        }
        if write {
            // The schema and its versions in one transaction: all of it or none.
            let target = &index.target;
            let client = index.client.as_mut().ok_or_else(|| closed(target))?;
            let mut tx = client.transaction().map_err(|e| target.error(&e))?;
            // Schema 7 → 8 as well: the verdict-only events' table and the per-day summary
            // (empty).
            tx.batch_execute(SCHEMA)
                .and_then(|()| tx.batch_execute(VERDICT_EVENTS))
                .and_then(|()| tx.batch_execute(super::stats::DAILY_STATS))
                .and_then(|()| tx.batch_execute(super::key_blocks::CREATE))
                .map_err(|e| target.error(&e))?;
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ('schema_version', $1), ('summary_version', $2)
                 ON CONFLICT (key) DO NOTHING",
                &[&SCHEMA_VERSION.to_string(), &SUMMARY_VERSION.to_string()],
            )
            .map_err(|e| target.error(&e))?;
            // Schema 5 → 6: each term's newest key (in `term_counts`, which 13 → 14 folds
            // into `terms` next).
            if older.is_some_and(|v| v < 6) {
                tx.batch_execute(MIGRATE_5_TO_6)
                    .map_err(|e| target.error(&e))?;
            }
            // 13 → 14: each term's count and newest key in its row.
            let counts_apart: bool = tx
                .query_one("SELECT to_regclass('term_counts') IS NOT NULL", &[])
                .map_err(|e| target.error(&e))?
                .get(0);
            if older.is_some_and(|v| v < 14) && counts_apart {
                let started = std::time::Instant::now();
                tx.batch_execute(MIGRATE_13_TO_14)
                    .map_err(|e| target.error(&e))?;
                index.notices.push(format!(
                    "{}: moved each term's count and newest key into the terms' table (schema 14) in {:.1} s",
                    target.shown,
                    started.elapsed().as_secs_f64()
                ));
            }
            // 15 → 16: the terms' values as bytes (after 13 → 14, which makes them text).
            let values_text: bool = tx
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM information_schema.columns
                       WHERE table_schema = current_schema() AND table_name = 'terms'
                         AND column_name = 'value' AND data_type = 'text')",
                    &[],
                )
                .map_err(|e| target.error(&e))?
                .get(0);
            if older.is_some_and(|v| v < 16) && values_text {
                let started = std::time::Instant::now();
                tx.batch_execute(&super::term_values::migrate_15_to_16())
                    .map_err(|e| target.error(&e))?;
                index.notices.push(format!(
                    "{}: kept each term's value as bytes, a contract id as the bytes it spells (schema 16) in {:.1} s",
                    target.shown,
                    started.elapsed().as_secs_f64()
                ));
            }
            // 16 → 17 (and a new database): the keys' key newest first.
            let started = std::time::Instant::now();
            if keys_newest_first(&mut tx).map_err(|e| target.error(&e))? && older.is_some() {
                index.notices.push(format!(
                    "{}: made the keys' key newest first (schema 17) in {:.1} s",
                    target.shown,
                    started.elapsed().as_secs_f64()
                ));
            }
            // 17 → 18: every frequent term's keys as posting blocks, beside `keys`.
            if older.is_some_and(|v| v < 18) {
                let started = std::time::Instant::now();
                let (terms, keys) = super::key_blocks::build(&mut tx, &|| false)
                    .map_err(|f| target.fail(f))?
                    .unwrap_or_default();
                index.notices.push(format!(
                    "{}: kept the {keys} keys of the {terms} terms of at least {} updates a second time as posting blocks (schema 18) in {:.1} s",
                    target.shown,
                    super::key_blocks::FROM,
                    started.elapsed().as_secs_f64()
                ));
            }
            // Schema 2 (the first on PostgreSQL) → 3: the pairs of the frequent terms (and
            // their bitmaps); 3 → 4: the bodies' dictionaries (the table made above); 4 → 5:
            // the bitmaps of the frequent terms; 6 → 7: the events table (made below, empty:
            // `index sync --events` fills it).
            match older {
                Some(2) => {
                    pairs::migrate_2_to_3(&mut tx).map_err(|e| target.error(&e))?;
                }
                Some(3 | 4) => {
                    pairs::migrate_4_to_5(&mut tx).map_err(|e| target.error(&e))?;
                }
                _ => {}
            }
            if older == Some(7) {
                // Its updates have their events: the verdict-only ones between them come
                // with one walk over the whole index.
                tx.execute(
                    "INSERT INTO meta (key, value) VALUES ($1, $2)
                     ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    &[
                        &crate::store::VERDICT_EVENTS_BACKFILL,
                        &crate::store::VERDICT_EVENTS_PENDING,
                    ],
                )
                .map_err(|e| target.error(&e))?;
            }
            // 7 → 8 (and a new database): the events table of schema 8, a schema-7 one
            // repacked.
            repack_events_7_to_8(&mut tx).map_err(|detail| StoreError::Engine {
                path: target.shown.clone(),
                detail: format!("cannot make or repack its events table: {detail}"),
            })?;
            // Schema 8: the per-round summary (built from the kept events by the next events
            // walk when there are some; after the events table, which a new database has only
            // now).
            super::rounds::rounds_step(&mut tx).map_err(|e| target.error(&e))?;
            // Schema 9: the validators' table (counted from the kept bodies just below).
            super::validators::validators_step(&mut tx).map_err(|e| target.error(&e))?;
            // The hubs' bitmaps in their primary key (a database made before it: the key
            // made again, 0.35 s at 10 M updates; as the schema's other statements, by the
            // tables' owner).
            pairs::cover_bits(&mut tx).map_err(|e| target.error(&e))?;
            // The terms between a higher threshold the hubs were made at and this one made
            // hubs (an index of a build whose default was 100,000), once. In the schema's
            // transaction: its `CREATE INDEX IF NOT EXISTS … ON updates` holds a lock that a
            // page's insert of updates waits for (and it for a page begun), so no page writes
            // keys or bits between what this reads and what it writes; a sync beside waits
            // (86 s at 10 M updates, once) and goes on.
            let started = std::time::Instant::now();
            let made = pairs::complete(&mut tx).map_err(|e| target.error(&e))?;
            if let Some((threshold, n @ 1..)) = made {
                index.notices.push(crate::store::hubs::made_notice(
                    &target.shown,
                    threshold,
                    n,
                    started.elapsed(),
                ));
            }
            // Schema 10: the index over every verdict's result dropped (`EVENTS`, run above,
            // made the one over the verdicts other than accepted).
            tx.batch_execute("DROP INDEX IF EXISTS events_verdict")
                .map_err(|e| target.error(&e))?;
            // Schema 11 packs SQLite's contract-id terms as bytes, schema 12 keeps SQLite's
            // party sets and actions once; PostgreSQL's layout up to 13 is the same as schema
            // 10's (its version followed the shared number), 14 its own (above); 15 names a
            // new body's own update id by a byte (the bodies kept read back as they are; the next sync
            // trains new dictionaries on named bodies: `crate::indexer`'s `packing`); 16 keeps
            // the terms' values as bytes (above).
            if older.is_some() {
                tx.execute(
                    "UPDATE meta SET value = $1 WHERE key = 'schema_version'",
                    &[&SCHEMA_VERSION.to_string()],
                )
                .map_err(|e| target.error(&e))?;
            }
            tx.commit().map_err(|e| target.error(&e))?;
            // The validators' table up to the newest kept update (an index migrated from
            // schema 8: counted from its kept bodies, once).
            crate::store::validators::build(&mut index)?;
        }
        Ok(index)
    }

    pub(super) fn table_exists(&mut self, table: &str) -> Result<bool, StoreError> {
        self.with(|c| {
            c.query_one("SELECT to_regclass($1) IS NOT NULL", &[&table])
                .map(|r| r.get(0))
        })
    }

    pub(super) fn meta(&mut self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .with(|c| c.query_opt("SELECT value FROM meta WHERE key = $1", &[&key]))?
            .map(|r| r.get(0)))
    }

    pub(super) fn set_meta(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute(
                "INSERT INTO meta (key, value) VALUES ($1, $2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[&key, &value],
            )
        })
        .map(|_| ())
    }

    /// The schema version of the index, checked: a newer or unknown one, or summaries of
    /// another version, are refused (an older one from schema 2, the first on PostgreSQL, is
    /// for the caller to migrate or refuse).
    pub(super) fn check_versions(&mut self) -> Result<i64, StoreError> {
        let path = self.target.shown.clone();
        let mut number = |key: &str| -> Result<Option<i64>, StoreError> {
            match self.meta(key)? {
                None => Ok(None),
                Some(text) => text.parse().map(Some).map_err(|_| StoreError::Corrupt {
                    path: path.clone(),
                    detail: format!("its {key} is {text:?}"),
                }),
            }
        };
        let schema = number("schema_version")?;
        let summary = number("summary_version")?;
        if let Some(found) = schema
            && !(2..=SCHEMA_VERSION).contains(&found)
        {
            if found > SCHEMA_VERSION {
                return Err(StoreError::NewerSchema {
                    path,
                    found,
                    reads: SCHEMA_VERSION,
                });
            }
            return Err(StoreError::Corrupt {
                path,
                detail: format!("unknown schema version {found}"),
            });
        }
        if let Some(found) = summary
            && found != SUMMARY_VERSION
        {
            return Err(StoreError::SummaryVersion {
                path,
                found,
                expected: SUMMARY_VERSION,
            });
        }
        Ok(schema.unwrap_or(SCHEMA_VERSION))
    }
}
