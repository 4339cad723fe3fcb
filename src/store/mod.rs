//! The local history index's storage: the only code that knows SQLite and PostgreSQL,
//! as `api/` is the only code that knows HTTP. Its reads and writes are typed calls on
//! [`IndexReader`] and [`IndexWriter`] (an index opened for reading is only a reader); the
//! engine behind them is chosen by the index's location ([`Location`]). The schema and the
//! answers are the same on every engine: text matching (a contract-id prefix,
//! for one) is done in Rust over the key tables, never with `LIKE`, whose case rules differ
//! between engines.
//!
//! ```text
//! updates   one row per update: update id (the key), migration, record time, kind, the
//!           History row (root action, parties), SHA-256 digest, zstd body (optional)
//! terms     every distinct party / template / choice / contract id, numbered, with how many
//!           updates have it (kept at write time and on prune: a one-term count reads one row)
//!           and its newest key (migration, record time, seq: a contract-id prefix's page
//!           merges its terms' keys from there, [`newest`])
//! keys      (term, migration, record time, update) rows: every event's keys, nested events
//!           too, in ledger order per term, so the newest updates of a key are the last rows
//!           of its range and a first page reads only what it shows
//! hubs      the terms with many updates (25,000: [`hubs::DEFAULT_THRESHOLD`])
//! pairs     (hub, hub, n): how many updates have both, kept per page and on prune, so a
//!           count of two frequent terms reads one row ([`hubs`])
//! hub_bits  (hub, block, bits): which updates (by seq) have each hub, so a count of a hub
//!           and a rarer term tests the rarer term's updates in it ([`hubs`])
//! chunks    ranges of the history a sync walked: exclusive start cursor, exclusive end,
//!           the cursor after the last committed page and the one that page was asked after,
//!           state, --verify N, the scans that confirmed it
//! divergences  updates the scans disagreed on (unresolved: the sync stopped there; resolved:
//!           a quorum kept one version and the odd scans are named)
//! events    (update, parts): each update's verdict, traffic summary and app activity
//!           records as the scans agree on them (`/v0/events`) and the scans that confirmed
//!           them, packed in one zstd blob ([`events_pack`]), with its round, verdict result
//!           and mediator group for search (the result indexed only when not `accepted`:
//!           [`VERDICT_INDEXED`]); no row: the update's events are not synced yet
//! event_dictionaries  the dictionaries the events blobs are packed with
//! daily_stats  one row per UTC day: the updates, transfers and volume, vote requests and
//!           results, traffic cost, distinct active parties and validators that day, and how
//!           many updates (with bodies, with events) it counted (`index stats`: [`stats`])
//! daily_actors (day, kind, name): the day's distinct active parties and validators, for the
//!           distinct counts of a range
//! rounds, round_parties, rounds_counted  the per-round sums of the kept events (app
//!           activity weight per provider, traffic cost, time span), added as events are
//!           written ([`rounds`]): what `index rounds` reads
//! validators  every validator the kept bodies tell of: its first licence, its newest
//!           activity (time, round), its licences and activities ([`validators`])
//! sync_heartbeat  the running sync (pid, host, start, last beat), for other processes
//! meta      schema and summary versions, the network (DSO party, synchronizer), the last sync
//! ```
//!
//! On PostgreSQL (a team's index) `keys` also carries each update's (migration, record time), its
//! primary key ordered (term, migration, record time, seq) so a term's newest-first page walks
//! it with a LIMIT, and `term_counts` keeps the updates per term and its newest key at write
//! and prune time.
//!
//! Every page a sync writes is one transaction with its chunk's cursor, so a sync killed at any
//! moment leaves whole pages. One writer at a time ([`open_locked`]): on SQLite
//! [`lock::WriterLock`] (`flock` on a file next to the index), on PostgreSQL
//! `pg_try_advisory_lock` in the writer's connection; both die with their process.

mod events_pack;
mod events_rows;
pub mod hubs;
pub mod lock;
pub mod newest;
mod postgres;
mod reader;
mod reads;
pub mod rounds;
pub mod search_all;
mod sqlite;
pub mod stats;
pub mod validators;
mod varint;
mod write;
mod writer;

pub use events_rows::{
    EventsRow, KeptEvents, KeptVerdictEvent, VERDICT_EVENTS_BACKFILL, VERDICT_EVENTS_PENDING,
    VERDICT_ONLY_KIND, VerdictEvent, VerdictHaving,
};
pub(crate) use events_rows::{
    KEPT_EVENTS_COLUMNS, KEPT_VERDICT_EVENT_COLUMNS, VERDICT_EVENT_COLUMNS,
};
pub use postgres::TABLES as POSTGRES_TABLES;
pub use postgres::redact_url;
pub use postgres::term_values::text_sql as postgres_term_text_sql;
pub use postgres::{
    KEPT_DIGESTS_SQL as POSTGRES_KEPT_DIGESTS_SQL, PAGE_AFTER_SQL as POSTGRES_PAGE_AFTER_SQL,
    range_sql as postgres_range_sql,
};
pub use reader::IndexReader;
pub use writer::{Compacted, EventsTodo, IndexWriter};

use std::path::PathBuf;

use serde::Serialize;

use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::index::read::IndexReach;
use crate::model::index::terms::PageTerms;
use crate::model::index::{IndexRow, SearchRow};
pub use crate::model::position::At;
use reads::{BodyDictionaries, dictionary_id_of};

/// The schema this build writes and reads (SQLite's; PostgreSQL's is [`POSTGRES_SCHEMA_VERSION`]).
/// 14: a body names its update's own id by a byte (`crate::model::index::pack::OWN_ID`), which
/// an older build would show as is; the bodies kept before read back as they were.
/// 15: a body names its contracts by their search terms' ids
/// (`crate::model::index::pack::pack_body_naming_contracts`), read through the terms' index
/// by id.
/// 16: it names each also by its key, the start of its id (`pack::CONTRACT_KEYS`), read
/// through the terms' own order: no index by id (the migration from 15 rewrites the bodies'
/// headers and drops it).
/// 17: an update id is found by an index of its first 6 and last 2 bytes, the whole id compared
/// (`sqlite::update_ids`), not by a unique index of the whole id (the migration from 16
/// rebuilds the updates table without the constraint).
/// 18: the record times of the updates, their keys, their terms' newest keys and the
/// verdict-only events are counted from 2027-01-01 (`sqlite::record_times`), 6 bytes each, not 8.
/// 19: a party set is kept as its parties' numbers, each party's name once in `party_names`
/// (`sqlite::party_names`), not as its JSON.
/// 20: a hub's keys (a term of at least the hubs' threshold of updates) are kept as blocks of up
/// to 128 keys (`sqlite::hub_keys`), not a row each of `keys`.
/// 21: so are the keys of every other term of at least 100 updates (the index's `blocks_from`).
pub const SCHEMA_VERSION: i64 = 21;

/// The schema this build writes and reads on PostgreSQL: its own number from 14.
pub use postgres::SCHEMA_VERSION as POSTGRES_SCHEMA_VERSION;

/// The verdicts whose result the events' index `events_verdict_other` covers (schema 10, both
/// engines): those other than `accepted`, nearly all of them being accepted (an index of every
/// verdict cost 20 bytes an update on the 1 M bench index).
pub const VERDICT_INDEXED: &str = "verdict_result <> 'accepted'";

/// The statement of the updates (`seq`, ascending) whose kept events match `term`, its value
/// the parameter `{mark}1`. A verdict result other than `accepted` also names
/// [`VERDICT_INDEXED`] (true of its rows), so both engines read them by the partial index;
/// `accepted` (nearly every row) is read from the table in `seq` order.
pub fn events_term_sql(term: &crate::model::index::query::EventsTerm, mark: char) -> String {
    use crate::model::index::query::{EventsTerm, EventsValue};
    let (column, value) = term.column();
    let indexed = match (term, value) {
        (EventsTerm::Verdict(_), EventsValue::Text(v)) if v != "accepted" => {
            format!(" AND {VERDICT_INDEXED}")
        }
        _ => String::new(),
    };
    format!("SELECT seq FROM events WHERE {column} = {mark}1{indexed} ORDER BY seq")
}

/// A heartbeat older than this says the sync that wrote it is gone.
pub const HEARTBEAT_STALE_MICROS: i64 = 30_000_000;

/// Where an index is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// An SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL URL (`postgres://user:password@host:port/database?sslmode=require`).
    Postgres(String),
}

impl Location {
    /// Reads a location: a `postgres://` or `postgresql://` URL, else a file path.
    pub fn parse(text: &str) -> Location {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            Location::Postgres(text.to_owned())
        } else {
            Location::Sqlite(PathBuf::from(text))
        }
    }

    /// How messages name it (a URL without its password).
    pub fn describe(&self) -> String {
        match self {
            Location::Sqlite(path) => path.display().to_string(),
            Location::Postgres(url) => redact_url(url),
        }
    }
}

/// Why the index could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no index at {0}: start one with `cantonscope index sync`")]
    Missing(String),
    #[error(
        "{path} is not a cantonscope index or is damaged ({detail}); move it away and sync again"
    )]
    Corrupt { path: String, detail: String },
    #[error(
        "{path} was written by a newer cantonscope (schema {found}; this one reads schema {reads}): use that version, or another --index"
    )]
    NewerSchema {
        path: String,
        found: i64,
        /// The schema this build reads (its engine's: PostgreSQL's number is its own from 14).
        reads: i64,
    },
    #[error(
        "{path} was written by an older cantonscope (schema {found}): `cantonscope index sync` (or `index prune`) migrates it to schema {reads} once, then it reads as before"
    )]
    OlderSchema {
        path: String,
        found: i64,
        reads: i64,
    },
    #[error(
        "{path} keeps summaries of version {found} and this cantonscope makes version {expected}: move it away and sync again"
    )]
    SummaryVersion {
        path: String,
        found: i64,
        expected: i64,
    },
    #[error(
        "{path} is the index of another network (DSO party {index_dso}, synchronizer {index_sync}); the scans serve DSO party {scan_dso} (synchronizer {scan_sync}): use another --index or profile"
    )]
    WrongNetwork {
        path: String,
        index_dso: String,
        index_sync: String,
        scan_dso: String,
        scan_sync: String,
    },
    #[error("another sync is writing {path}: {holder}")]
    Busy { path: String, holder: String },
    #[error(
        "the history was rewritten under the index: update {update_id} ({at}) {what}; the index keeps what the scans confirmed before and is not changed"
    )]
    Rewritten {
        update_id: String,
        at: String,
        what: String,
    },
    #[error(
        "cannot reach the index {path}: {detail} (what a sync committed is kept: run the command again once the server answers)"
    )]
    Unreachable { path: String, detail: String },
    #[error(
        "the index {path} cannot grow: the disk is full or the file may not be larger ({detail}); what was committed is kept: free space (or lift the limit) and run the command again"
    )]
    Full { path: String, detail: String },
    #[error("index {path}: {detail}")]
    Engine { path: String, detail: String },
    /// Stopped by the user (Ctrl-C, SIGTERM) before it was done: `detail` says what is kept.
    #[error("index {path}: interrupted; {detail}")]
    Interrupted { path: String, detail: String },
}

/// The network an index belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NetworkId {
    pub dso_party: String,
    /// The global synchronizer (empty when unknown).
    pub synchronizer: String,
}

/// Unix µs as RFC 3339, as every time of the index's JSON is written (serde hands a field by
/// reference).
#[allow(clippy::trivially_copy_pass_by_ref)]
fn rfc3339<S: serde::Serializer>(micros: &i64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format_time_micros(*micros))
}

/// [`rfc3339`], or null.
#[allow(clippy::ref_option)]
fn rfc3339_or_null<S: serde::Serializer>(micros: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
    match micros {
        Some(m) => rfc3339(m, s),
        None => s.serialize_none(),
    }
}

/// A position in the history: after this migration and record time (as the server wrote it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Position {
    pub migration_id: i64,
    pub record_time: String,
}

impl Position {
    /// Where it is (its record time in µs), for ordering.
    pub fn order(&self) -> At {
        At::new(
            self.migration_id,
            parse_time_micros(&self.record_time).unwrap_or(i64::MIN),
        )
    }
}

/// A chunk: one range of the history a sync walks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Chunk {
    pub id: i64,
    /// Exclusive start (`None`: the ledger begin).
    pub start: Option<Position>,
    /// Exclusive end, µs of record time (`None`: the head); RFC 3339 in JSON.
    #[serde(serialize_with = "rfc3339_or_null")]
    pub end_before: Option<i64>,
    /// After the last committed update (`None`: nothing yet).
    pub cursor: Option<Position>,
    /// What the last committed page was asked after (re-read on resume).
    pub page_start: Option<Position>,
    /// `open`, `done` or `diverged`.
    pub state: String,
    /// `--verify N` of the sync that wrote it (1: unverified).
    pub verify: i64,
    /// Scans that confirmed its pages.
    pub scans: Vec<String>,
    pub updates: i64,
    /// How many of its kept updates have their events kept, and what share of them in
    /// whole percent (rounded down): read by [`IndexReader::status`] only (`None` elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<EventsCoverage>,
}

/// How many of a range's kept updates have their events kept (`index status`, per
/// migration and per chunk).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EventsCoverage {
    /// The range's updates in the index.
    pub updates: i64,
    /// Those of them with their events (verdict, traffic summary, app activity) kept.
    pub events: i64,
    /// `events` of `updates` in whole percent, rounded down (100 only when all are kept;
    /// `None`: a range without updates).
    pub percent: Option<i64>,
}

impl EventsCoverage {
    pub fn of(updates: i64, events: i64) -> EventsCoverage {
        EventsCoverage {
            updates,
            events,
            percent: (updates > 0).then(|| events.clamp(0, updates) * 100 / updates),
        }
    }
}

/// The SQL of one chunk's events coverage on both engines: its updates (after `$1, $2`, up to
/// and including `$3, $4`: migration, record time µs) and those with their events kept, read
/// from the updates' position index.
pub(crate) const CHUNK_EVENTS_SQL: &str = "SELECT count(*), count(e.seq)
     FROM updates u LEFT JOIN events e ON e.seq = u.seq
     WHERE (u.migration_id, u.record_time) > ($1, $2)
       AND (u.migration_id, u.record_time) <= ($3, $4)";

/// Fills each chunk's [`Chunk::events`] with what `count` says of its range (after its start,
/// up to and including its cursor: (updates, with events)); a chunk not walked yet holds no
/// update.
pub fn with_events_coverage<E>(
    chunks: &mut [Chunk],
    mut count: impl FnMut(At, At) -> Result<(i64, i64), E>,
) -> Result<(), E> {
    for chunk in chunks {
        let (updates, events) = match &chunk.cursor {
            None => (0, 0),
            Some(cursor) => count(
                chunk.start.as_ref().map_or(At::BEGIN, Position::order),
                cursor.order(),
            )?,
        };
        chunk.events = Some(EventsCoverage::of(updates, events));
    }
    Ok(())
}

impl Chunk {
    /// A new open chunk, nothing walked yet.
    pub fn opened(id: i64, start: Option<Position>, end_before: Option<i64>, verify: i64) -> Chunk {
        Chunk {
            id,
            start,
            end_before,
            cursor: None,
            page_start: None,
            state: "open".to_owned(),
            verify,
            scans: Vec::new(),
            updates: 0,
            events: None,
        }
    }
}

/// What a sync writes for one page.
#[derive(Debug, Clone)]
pub struct PageWrite {
    rows: Vec<IndexRow>,
    /// The rows' search terms, grouped before the writer.
    terms: PageTerms,
    /// The cursor the page was asked after.
    pub page_start: Option<Position>,
    /// After the page's last update.
    pub cursor: Position,
    /// The scans that confirmed every row.
    pub scans: Vec<String>,
    /// Scans found serving another version of an update of the chunk: none of its confirming
    /// scans ([`PageWrite::without`]).
    pub odd: Vec<String>,
}

impl PageWrite {
    /// The page of `rows`, their terms grouped here (on the thread making the page, not in
    /// the writer).
    pub fn new(
        rows: Vec<IndexRow>,
        page_start: Option<Position>,
        cursor: Position,
        scans: Vec<String>,
    ) -> PageWrite {
        PageWrite {
            terms: PageTerms::of(&rows),
            rows,
            page_start,
            cursor,
            scans,
            odd: Vec::new(),
        }
    }

    /// The page, with `odd` (scans that served another version of an update of its chunk)
    /// taken out of the chunk's confirming scans.
    pub fn without(mut self, odd: Vec<String>) -> PageWrite {
        self.odd = odd;
        self
    }

    pub fn rows(&self) -> &[IndexRow] {
        &self.rows
    }
}

/// What writing a page did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PageWritten {
    /// New updates.
    pub inserted: u64,
    /// Updates the index had already, with the same digest.
    pub known: u64,
}

/// An update the scans disagreed on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DivergenceRecord {
    pub update_id: String,
    pub migration_id: i64,
    pub record_time: String,
    /// Unix µs when found; RFC 3339 in JSON.
    #[serde(serialize_with = "rfc3339")]
    pub found_at: i64,
    /// A quorum kept one version (the odd scans are named); `false`: the sync stopped there.
    pub resolved: bool,
    /// The scans per version and the fields that differ, as JSON.
    pub detail: serde_json::Value,
}

/// The running sync, from its heartbeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Heartbeat {
    pub pid: i64,
    pub host: String,
    /// Unix µs; RFC 3339 in JSON (as every time the index shows).
    #[serde(serialize_with = "rfc3339")]
    pub started_at: i64,
    #[serde(serialize_with = "rfc3339")]
    pub beat_at: i64,
    pub command: String,
}

/// A range of the history no chunk covers: after `after` up to and including `before`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Gap {
    pub after: Position,
    pub before: Position,
}

/// One migration's part of the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MigrationRange {
    pub migration_id: i64,
    pub updates: i64,
    pub first_record_time: String,
    pub last_record_time: String,
    /// How many of its updates have their events kept (`events.percent`: `events: 62 %`).
    pub events: EventsCoverage,
}

/// What `index status` shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexStatus {
    pub location: String,
    pub schema_version: i64,
    pub summary_version: i64,
    pub network: Option<NetworkId>,
    pub updates: i64,
    pub bodies: i64,
    /// The updates whose events (verdict, traffic summary, app activity) are kept.
    pub events: i64,
    /// The events with a verdict and no update kept (rejected requests, wholly private
    /// transactions: [`VerdictEvent`]).
    pub verdict_events: i64,
    pub size_bytes: u64,
    pub migrations: Vec<MigrationRange>,
    pub chunks: Vec<Chunk>,
    /// Ranges between chunks that no chunk covers.
    pub gaps: Vec<Gap>,
    pub divergences: Vec<DivergenceRecord>,
    /// The last sync: when it started and ended (Unix µs), how it ended.
    pub last_sync: Option<serde_json::Value>,
    /// A sync whose heartbeat is fresh.
    pub sync_running: Option<Heartbeat>,
    /// The last `index verify` of each range: when, by which scans, what it found.
    pub verifications: Vec<serde_json::Value>,
}

/// Most verification records an index keeps (the oldest go first).
pub const MAX_VERIFICATIONS: usize = 200;

/// One update as [`IndexReader::kept_digests`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptDigest {
    pub update_id: String,
    pub migration_id: i64,
    /// µs.
    pub record_time: i64,
    /// SHA-256, hex.
    pub digest: String,
}

/// One update as [`IndexReader::page_after`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptUpdate {
    pub update_id: String,
    pub migration_id: i64,
    /// µs.
    pub record_time: i64,
    /// The item's JSON as kept.
    pub body: Option<String>,
}

/// Opens the index at `location` for writing (created when missing), without the writer lock
/// (tests, benchmarks: a sync takes [`open_locked`]).
pub fn open_writer(location: &Location) -> Result<Box<dyn IndexWriter>, StoreError> {
    match location {
        Location::Sqlite(path) => Ok(Box::new(sqlite::SqliteIndex::open(path, true)?)),
        Location::Postgres(url) => Ok(Box::new(postgres::PgIndex::open(url, true, None)?)),
    }
}

/// Opens an existing index for reading.
pub fn open_reader(location: &Location) -> Result<Box<dyn IndexReader>, StoreError> {
    match location {
        Location::Sqlite(path) => Ok(Box::new(sqlite::SqliteIndex::open(path, false)?)),
        Location::Postgres(url) => Ok(Box::new(postgres::PgIndex::open(url, false, None)?)),
    }
}

/// The one writer of an index: its store and the lock that makes it the only one.
pub struct Writer {
    pub store: Box<dyn IndexWriter>,
    /// The file lock of an SQLite index (PostgreSQL's advisory lock lives in the store's own
    /// connection and goes with it).
    pub lock: Option<lock::WriterLock>,
}

/// Takes the writer lock of the index at `location` (refusing, naming the holder, when another
/// process has it), then opens it for writing (created when missing). `holder` names this
/// process to a second writer. `must_exist`: refuse a missing index instead of creating it.
/// The lock goes when the [`Writer`] is dropped or the process ends.
pub fn open_locked(
    location: &Location,
    holder: &str,
    must_exist: bool,
) -> Result<Writer, StoreError> {
    match location {
        Location::Sqlite(path) => {
            if must_exist && !path.exists() {
                return Err(StoreError::Missing(path.display().to_string()));
            }
            let lock = lock::WriterLock::acquire(path, holder)?;
            let store = sqlite::SqliteIndex::open(path, true)?;
            Ok(Writer {
                store: Box::new(store),
                lock: Some(lock),
            })
        }
        Location::Postgres(url) => {
            if must_exist {
                // Refuses an empty database as a reader does; one of an older schema is
                // migrated by the writer's open below (a reader refuses it).
                match postgres::PgIndex::open(url, false, None) {
                    Ok(_) | Err(StoreError::OlderSchema { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
            let store = postgres::PgIndex::open(url, true, Some(holder))?;
            Ok(Writer {
                store: Box::new(store),
                lock: None,
            })
        }
    }
}

/// The ranges of the history the chunks cover, merged and in ledger order: each after its
/// start (exclusive; `None`: the ledger begin) up to its reach (inclusive). A chunk covers
/// (start, cursor], and a finished chunk with an end up to that end (in its cursor's migration).
pub fn covered(chunks: &[Chunk]) -> Vec<(Option<Position>, Position)> {
    let mut spans: Vec<(Option<Position>, Position)> = chunks
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
            Some((c.start.clone(), reach))
        })
        .collect();
    spans.sort_by_key(|(start, _)| start.as_ref().map(Position::order));
    let mut out: Vec<(Option<Position>, Position)> = Vec::new();
    for (start, reach) in spans {
        if let Some(last) = out.last_mut()
            && start.as_ref().is_none_or(|s| s.order() <= last.1.order())
        {
            if reach.order() > last.1.order() {
                last.1 = reach;
            }
            continue;
        }
        out.push((start, reach));
    }
    out
}

/// Ranges no chunk covers between the first chunk's start and the last chunk's reach.
fn gaps(chunks: &[Chunk]) -> Vec<Gap> {
    covered(chunks)
        .windows(2)
        .filter_map(|pair| {
            Some(Gap {
                after: pair[0].1.clone(),
                before: pair[1].0.clone()?,
            })
        })
        .collect()
}

/// What the index keeps under an update id read again (its digest `stored`, if any), for
/// [`crate::model::reread::reread`].
pub(crate) fn kept(stored: Option<&[u8]>, digest: &[u8]) -> crate::model::reread::Kept {
    use crate::model::reread::Kept;
    match stored {
        None => Kept::Absent,
        Some(d) if d == digest => Kept::Same,
        Some(d) => Kept::Other(format!(
            "has digest {} where the index keeps {}",
            hex::encode(digest),
            hex::encode(d)
        )),
    }
}

impl From<crate::model::reread::Rewrite> for StoreError {
    fn from(r: crate::model::reread::Rewrite) -> Self {
        StoreError::Rewritten {
            at: r.at(),
            update_id: r.update_id,
            what: r.what,
        }
    }
}
