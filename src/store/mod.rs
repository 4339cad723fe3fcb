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
//! hubs      the terms with many updates (100,000: [`hubs::DEFAULT_THRESHOLD`])
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
pub mod hubs;
pub mod lock;
pub mod newest;
mod postgres;
mod reads;
pub mod rounds;
pub mod search_all;
mod sqlite;
pub mod stats;
pub mod validators;
mod write;

pub use postgres::TABLES as POSTGRES_TABLES;
pub use postgres::redact_url;

use std::path::PathBuf;

use serde::Serialize;

use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::index::query::Query;
use crate::model::index::read::{IndexReach, RangeFrom};
use crate::model::index::terms::PageTerms;
use crate::model::index::{IndexRow, SearchRow};
pub use crate::model::position::At;
use reads::{BodyDictionaries, dictionary_id_of};

/// The schema this build writes and reads.
pub const SCHEMA_VERSION: i64 = 11;

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
        "{path} was written by a newer cantonscope (schema {found}; this one reads schema {SCHEMA_VERSION}): use that version, or another --index"
    )]
    NewerSchema { path: String, found: i64 },
    #[error(
        "{path} was written by an older cantonscope (schema {found}): `cantonscope index sync` (or `index prune`) migrates it to schema {SCHEMA_VERSION} once, then it reads as before"
    )]
    OlderSchema { path: String, found: i64 },
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

/// The typed reads of an index, on every engine. An index opened for reading
/// ([`open_reader`]) is only this: it cannot write.
pub trait IndexReader: Send {
    /// How messages name the index (a path; a URL without its password).
    fn shown(&self) -> String;

    /// A value of the index's meta table (`None`: not set).
    fn meta_get(&mut self, key: &str) -> Result<Option<String>, StoreError>;

    /// The network the index belongs to (`None`: a new index).
    fn network(&mut self) -> Result<Option<NetworkId>, StoreError> {
        let Some(dso_party) = self.meta_get("dso_party")? else {
            return Ok(None);
        };
        Ok(Some(NetworkId {
            dso_party,
            synchronizer: self.meta_get("synchronizer")?.unwrap_or_default(),
        }))
    }

    /// The last `index verify` of each range (see [`IndexWriter::record_verification`]).
    fn verifications(&mut self) -> Result<Vec<serde_json::Value>, StoreError> {
        Ok(self
            .meta_get("verifications")?
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default())
    }

    /// The chunks, oldest first.
    fn chunks(&mut self) -> Result<Vec<Chunk>, StoreError>;

    /// What `index status` shows.
    fn status(&mut self, now: i64) -> Result<IndexStatus, StoreError>;

    /// The updates matching `query` with a record time in `from..=until`, newest first, at
    /// most `limit`.
    fn search(
        &mut self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
        limit: usize,
    ) -> Result<Vec<SearchRow>, StoreError>;

    /// How many updates match.
    fn count(
        &mut self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
    ) -> Result<u64, StoreError>;

    /// An update's body as kept (`None`: not in the index, or kept without bodies).
    fn body(&mut self, update_id: &str) -> Result<Option<String>, StoreError>;

    /// An update's events as kept (`None`: the update is not in the index, or its events are
    /// not synced yet; [`KeptEvents::verdict`] `None`: the scans served none).
    fn kept_events(&mut self, update_id: &str) -> Result<Option<KeptEvents>, StoreError>;

    /// The kept events with a verdict and no update from `from` until `until` (record times,
    /// µs, inclusive; `None`: no bound), newest first.
    fn verdict_events(
        &mut self,
        from: Option<i64>,
        until: Option<i64>,
    ) -> Result<Vec<KeptVerdictEvent>, StoreError>;

    /// The kept events with a verdict and no update that `query` finds
    /// ([`Query::matches_verdict_only`]), newest first, at most `limit`, as search rows: kind
    /// `verdict only`, the verdict's result as the action, the submitting parties.
    fn search_verdict_events(
        &mut self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
        limit: usize,
    ) -> Result<Vec<SearchRow>, StoreError> {
        Ok(self
            .verdict_events(from, until)?
            .iter()
            .filter_map(|event| {
                let row = event.search_row();
                query
                    .matches_verdict_only(&crate::model::index::query::VerdictFacts {
                        update_id: &event.update_id,
                        result: event.verdict_result.as_deref(),
                        round: event.round_number,
                        mediator: event.mediator_group,
                        submitters: &row.parties,
                    })
                    .then_some(row)
            })
            .take(limit)
            .collect())
    }

    /// The dictionary new bodies are packed with: the newest the index keeps (`None`: it has
    /// none yet; a sync trains one from the first page it writes).
    fn body_dictionary(&mut self) -> Result<Option<Vec<u8>>, StoreError>;

    /// Every update id with its digest, in ledger order (tests, `index verify`).
    fn digests(&mut self) -> Result<Vec<(String, String)>, StoreError>;

    /// The updates kept after `after` (exclusive; `None`: from the beginning) up to `through`
    /// (inclusive), as (migration, record time µs), in ledger order with their digests: what
    /// `index verify` compares with the scans' pages.
    fn kept_digests(
        &mut self,
        after: Option<At>,
        through: At,
    ) -> Result<Vec<KeptDigest>, StoreError>;

    /// How far the index reaches (update count, oldest and newest record time) and the sync
    /// whose heartbeat is fresh at `now`: one short read transaction, cheap enough for a timer.
    fn reach(&mut self, now: i64) -> Result<IndexReach, StoreError>;

    /// At most `limit` updates after `after` (migration, record time µs; `None`: from the
    /// beginning) in ledger order, each with its body (`None` when kept without bodies): what
    /// `/v2/updates` answers, read from the index.
    fn page_after(
        &mut self,
        after: Option<At>,
        limit: usize,
    ) -> Result<Vec<KeptUpdate>, StoreError>;

    /// How many rows History's list read from the index holds from `since` up to `before`
    /// (µs; `None`: up to the newest): the updates and the events with a verdict and no update
    /// recorded in that time.
    fn range_count(&mut self, since: i64, before: Option<i64>) -> Result<u64, StoreError>;

    /// How many updates were recorded at or after `since` and before `before` (µs; `None`: up
    /// to the newest): [`Self::range_count`] without the events with a verdict and no update.
    fn update_count(&mut self, since: i64, before: Option<i64>) -> Result<u64, StoreError>;

    /// The updates (and the events with a verdict and no update, as
    /// [`KeptVerdictEvent::history_row`] makes their rows) recorded at or after `since` in the list's order
    /// ([`RangeKey`](crate::model::index::read::RangeKey): record time, migration, update id), from where `from` says, at most `limit`, as summary rows
    /// in that order: one page of History's list read from the index.
    fn range_rows(
        &mut self,
        since: i64,
        from: &RangeFrom,
        limit: usize,
    ) -> Result<Vec<SearchRow>, StoreError>;

    /// The stamp of what the index keeps (the updates and events: how many, the newest seq):
    /// unchanged, nothing was written since ([`stats::refresh`]).
    fn stats_stamp(&mut self) -> Result<String, StoreError>;

    /// The updates kept per UTC day and those of them with their events, oldest day first.
    fn day_counts(&mut self) -> Result<Vec<stats::DayCount>, StoreError>;

    /// At most `limit` updates of UTC `day` after `after` (record time µs, seq), in that
    /// order, each with its seq and body: what a day's figures are counted from.
    fn stats_page(
        &mut self,
        day: i64,
        after: Option<(i64, i64)>,
        limit: usize,
    ) -> Result<Vec<(i64, KeptUpdate)>, StoreError>;

    /// The summary rows of the days `from..=until` (days since 1970-01-01, UTC), oldest first.
    fn stats_days(
        &mut self,
        from: i64,
        until: i64,
    ) -> Result<Vec<(i64, crate::model::index::stats::StatsRow)>, StoreError>;

    /// The distinct active parties and validators of the days `from..=until`.
    fn stats_distinct(&mut self, from: i64, until: i64) -> Result<(i64, i64), StoreError>;
    /// The rounds numbered `from..=until` (`None`: unbounded) as the per-round summary keeps
    /// them, in order, each with its heaviest providers; with `party`, only the rounds that
    /// provider has app activity in, and only its part ([`rounds`]).
    fn rounds(
        &mut self,
        from: Option<i64>,
        until: Option<i64>,
        party: Option<&str>,
    ) -> Result<Vec<crate::model::index::rounds::RoundSummary>, StoreError>;

    /// At most `limit` updates after seq `after`, in seq order, as (seq, record time µs, body;
    /// `None`: kept without): what [`validators`] counts.
    fn bodies_after(
        &mut self,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(i64, i64, Option<String>)>, StoreError>;

    /// The validators' table as kept, the seq it counts through and the newest round of the
    /// per-round summary ([`validators::read`] adds what was written since).
    fn kept_validators(&mut self) -> Result<validators::KeptValidators, StoreError>;

    /// Whether the per-round summary covers every kept event (an index migrated with events
    /// gets it at its next events walk: [`IndexWriter::build_rounds`]).
    fn rounds_built(&mut self) -> Result<bool, StoreError> {
        Ok(self.meta_get(rounds::BUILT_KEY)?.as_deref() == Some("1"))
    }

    /// What opening the index did that the user should hear of (an older schema migrated),
    /// each once.
    fn notices(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// The typed writes of an index, on every engine (one writer at a time: [`open_locked`]). The
/// provided methods are the same on every engine, over each engine's few primitives
/// (`meta_set`, `clear_beat`).
/// One update's events parts as the scans agreed on them, to keep
/// ([`IndexWriter::write_events`]; made by [`EventsRow::of`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventsRow {
    pub update_id: String,
    /// A bit per part served: 1 verdict, 2 traffic summary, 4 app activity records.
    pub served: i64,
    pub verdict: Option<String>,
    pub traffic_summary: Option<String>,
    pub app_activity_records: Option<String>,
    pub round_number: Option<i64>,
    /// `accepted`, `rejected` or `unspecified`; `None` without a verdict.
    pub verdict_result: Option<String>,
    pub mediator_group: Option<i64>,
    pub digest: Vec<u8>,
    /// The confirming scans, comma-separated.
    pub scans: String,
}

/// An event with a verdict and no update (`update: null` on `/v0/events`: a confirmation
/// request the mediator rejected, which commits no transaction, or a wholly private
/// transaction), kept as a record of its own at its verdict's place
/// ([`IndexWriter::write_verdict_events`]): its parts as an update's events are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerdictEvent {
    pub at: At,
    pub row: EventsRow,
}

/// A kept event with a verdict and no update, as searches and History list it
/// ([`IndexReader::verdict_events`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptVerdictEvent {
    pub update_id: String,
    pub at: At,
    /// `accepted`, `rejected` or `unspecified`.
    pub verdict_result: Option<String>,
    pub round_number: Option<i64>,
    pub mediator_group: Option<i64>,
    /// The verdict as kept (JSON text).
    pub verdict: Option<String>,
}

/// The meta key an index migrated from schema 7 gets (value [`VERDICT_EVENTS_PENDING`]): its
/// updates have their events, but the events with a verdict and no update between them were
/// not kept; the next events walk goes over the whole index once for them.
pub const VERDICT_EVENTS_BACKFILL: &str = "verdict_events_backfill";
/// The value of [`VERDICT_EVENTS_BACKFILL`] until that walk ends.
pub const VERDICT_EVENTS_PENDING: &str = "pending";

pub use crate::model::index::VERDICT_ONLY_KIND;

impl KeptVerdictEvent {
    /// As a search (and History) lists it: kind [`VERDICT_ONLY_KIND`], the verdict's result
    /// as its action, the parties that submitted it.
    pub fn search_row(&self) -> SearchRow {
        let verdict: Option<serde_json::Value> = self
            .verdict
            .as_deref()
            .and_then(|v| serde_json::from_str(v).ok());
        let parties = verdict
            .as_ref()
            .and_then(|v| v["submitting_parties"].as_array())
            .map(|ps| {
                ps.iter()
                    .filter_map(|p| p.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        SearchRow {
            record_time: format_time_micros(self.at.record_time),
            update_id: self.update_id.clone(),
            migration_id: self.at.migration_id,
            kind: VERDICT_ONLY_KIND.to_owned(),
            root_action: self
                .verdict_result
                .clone()
                .unwrap_or_else(|| "none served".to_owned()),
            parties,
        }
    }
}

impl KeptVerdictEvent {
    /// As History lists it among the updates: its [`Self::search_row`], the summary the
    /// verdict's result marked `(verdict only)` with its round and mediator group.
    pub fn history_row(&self) -> SearchRow {
        SearchRow {
            root_action: crate::model::index::verdict_only_summary(
                self.verdict_result.as_deref(),
                self.round_number,
                self.mediator_group,
            ),
            ..self.search_row()
        }
    }
}

/// The columns [`KeptVerdictEvent`] is read from (both engines), by position.
pub(super) const VERDICT_EVENT_COLUMNS: &str =
    "update_id, migration_id, record_time, verdict_result, round_number, mediator_group, verdict";

/// The columns [`KeptEvents`] is read from for an event with a verdict and no update.
pub(super) const KEPT_VERDICT_EVENT_COLUMNS: &str = "update_id, served, verdict, traffic_summary, app_activity_records, round_number, verdict_result, mediator_group, digest, scans";

/// One update's events as the index keeps them ([`IndexReader::kept_events`]): each part as
/// the confirming scans served it (JSON text), `None` when not served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeptEvents {
    pub update_id: String,
    /// A bit per part served: 1 verdict, 2 traffic summary, 4 app activity records.
    pub served: i64,
    pub verdict: Option<String>,
    pub traffic_summary: Option<String>,
    pub app_activity_records: Option<String>,
    pub round_number: Option<i64>,
    pub verdict_result: Option<String>,
    pub mediator_group: Option<i64>,
    /// The parts' digest (hex), as [`EventsRow::digest`].
    pub digest: String,
    /// The scans that confirmed the parts.
    pub scans: Vec<String>,
    /// An event with a verdict and no update (`verdict_events`): no body to look for.
    #[serde(skip)]
    pub verdict_only: bool,
}

/// The columns [`KeptEvents`] is read from (both engines): the update id, the `served` bits,
/// the packed parts ([`events_pack`]), the search columns and the digest.
pub(super) const KEPT_EVENTS_COLUMNS: &str =
    "u.update_id, e.served, e.parts, e.round_number, e.verdict_result, e.mediator_group, e.digest";

impl KeptEvents {
    /// Made from a row of [`KEPT_VERDICT_EVENT_COLUMNS`] (an event with a verdict and no
    /// update, kept unpacked: the digest as bytes, the scans comma-separated).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn from_columns(
        update_id: String,
        served: i64,
        verdict: Option<String>,
        traffic_summary: Option<String>,
        app_activity_records: Option<String>,
        (round_number, verdict_result, mediator_group): (Option<i64>, Option<String>, Option<i64>),
        digest: &[u8],
        scans: &str,
    ) -> Self {
        KeptEvents {
            update_id,
            served,
            verdict,
            traffic_summary,
            app_activity_records,
            round_number,
            verdict_result,
            mediator_group,
            digest: hex::encode(digest),
            scans: scans
                .split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
            verdict_only: false,
        }
    }

    /// As read from `verdict_events`: an event with a verdict and no update.
    pub(super) fn of_verdict_only(self) -> Self {
        KeptEvents {
            verdict_only: true,
            ..self
        }
    }
}

/// Where the events of the index's updates are to be synced: the first update (ledger order)
/// without them and the index's last update, each as (migration, record time µs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventsTodo {
    pub first_lacking: Option<At>,
    pub last: Option<At>,
}

pub trait IndexWriter: IndexReader {
    /// Where the events of the index's updates are to be synced ([`EventsTodo`]).
    fn events_todo(&mut self) -> Result<EventsTodo, StoreError>;

    /// Keeps `rows` (each update's events, replacing what was kept) in one transaction; a row
    /// whose update the index does not keep is left out. Returns how many were kept.
    fn write_events(&mut self, rows: &[EventsRow]) -> Result<u64, StoreError>;

    /// Keeps events with a verdict and no update (replacing an earlier row of the same id), in
    /// one transaction: how many.
    fn write_verdict_events(&mut self, rows: &[VerdictEvent]) -> Result<u64, StoreError>;
    /// Replaces the summary of `figures.day` with `figures` (no row when it counted no
    /// update), in one transaction ([`stats::refresh`]).
    fn write_stats_day(
        &mut self,
        figures: &crate::model::index::stats::DayFigures,
    ) -> Result<(), StoreError>;
    /// Adds what `rows` (updates kept, by id, with their events' contributions) bring to the
    /// per-round summary, in one transaction: an update already counted, or one the index does
    /// not keep, adds nothing. Returns how many were counted now.
    fn count_rounds(
        &mut self,
        rows: &[(String, crate::model::index::rounds::Contribution)],
    ) -> Result<u64, StoreError>;

    /// At most `limit` updates (seq, id) after seq `after` whose events are kept but not
    /// counted in the per-round summary, in seq order.
    fn uncounted_events(
        &mut self,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(i64, String)>, StoreError>;

    /// Adds a page of events rows to the per-round summary (called before
    /// [`IndexWriter::write_events`] keeps them: see [`rounds`]).
    fn add_rounds(&mut self, rows: &[EventsRow]) -> Result<u64, StoreError> {
        let contributions: Vec<_> = rows
            .iter()
            .map(|r| {
                (
                    r.update_id.clone(),
                    crate::model::index::rounds::Contribution::of(
                        r.round_number,
                        r.traffic_summary.as_deref(),
                        r.app_activity_records.as_deref(),
                    ),
                )
            })
            .collect();
        self.count_rounds(&contributions)
    }

    /// Builds the per-round summary from the events kept before it existed (an index migrated
    /// to schema 8), once: `None` when it was built already, else how many updates were
    /// counted.
    fn build_rounds(&mut self) -> Result<Option<u64>, StoreError> {
        if self.rounds_built()? {
            return Ok(None);
        }
        let (mut after, mut counted) = (0, 0);
        loop {
            let batch = self.uncounted_events(after, 1000)?;
            let Some(last) = batch.last() else { break };
            after = last.0;
            let mut rows = Vec::with_capacity(batch.len());
            for (_, id) in batch {
                let kept = self.kept_events(&id)?;
                let c = kept.map_or_else(Default::default, |k| {
                    crate::model::index::rounds::Contribution::of(
                        k.round_number,
                        k.traffic_summary.as_deref(),
                        k.app_activity_records.as_deref(),
                    )
                });
                rows.push((id, c));
            }
            counted += self.count_rounds(&rows)?;
        }
        self.meta_set(rounds::BUILT_KEY, "1")?;
        Ok(Some(counted))
    }

    /// Adds `delta` to the validators' table and marks the updates through seq `through`
    /// counted, in one transaction ([`validators::build`]).
    fn add_validators(
        &mut self,
        delta: &crate::model::index::validators::ValidatorsDelta,
        through: i64,
    ) -> Result<(), StoreError>;

    /// At most `limit` updates after seq `after`, in seq order, as [`validators::Written`]
    /// (no body read): what [`validators::build_page`] counts a page just written by. `None`:
    /// the engine does not list them (the bodies are read back instead).
    fn written_after(
        &mut self,
        _after: i64,
        _limit: usize,
    ) -> Result<Option<Vec<validators::Written>>, StoreError> {
        Ok(None)
    }

    /// Sets a value of the meta table.
    fn meta_set(&mut self, key: &str, value: &str) -> Result<(), StoreError>;

    /// Removes the heartbeat of the running sync.
    fn clear_beat(&mut self) -> Result<(), StoreError>;

    /// Brings the engine's planner statistics up to date after a sync wrote (PostgreSQL:
    /// `ANALYZE`; SQLite's queries are written to their plan and need none).
    fn refresh_statistics(&mut self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Records the network of a new index, or refuses another network's scans. A synchronizer
    /// unknown on either side is no difference (and a known one is kept when it was not).
    fn claim_network(&mut self, network: &NetworkId) -> Result<(), StoreError> {
        let Some(kept) = self.network()? else {
            self.meta_set("dso_party", &network.dso_party)?;
            return self.meta_set("synchronizer", &network.synchronizer);
        };
        let same_sync = kept.synchronizer.is_empty()
            || network.synchronizer.is_empty()
            || kept.synchronizer == network.synchronizer;
        if kept.dso_party == network.dso_party && same_sync {
            if kept.synchronizer.is_empty() && !network.synchronizer.is_empty() {
                self.meta_set("synchronizer", &network.synchronizer)?;
            }
            return Ok(());
        }
        Err(StoreError::WrongNetwork {
            path: self.shown(),
            index_dso: kept.dso_party,
            index_sync: kept.synchronizer,
            scan_dso: network.dso_party.clone(),
            scan_sync: network.synchronizer.clone(),
        })
    }

    /// Removes the heartbeat and records how the sync ended.
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
        self.meta_set("last_sync", &last.to_string())?;
        self.clear_beat()?;
        self.refresh_statistics()
    }

    /// Records what `index verify` found for the ranges it checked: each replaces the earlier
    /// record of the same range (`"after"` and `"through"`), the newest last, at most
    /// [`MAX_VERIFICATIONS`] kept. The updates themselves are never touched.
    fn record_verification(&mut self, ranges: &[serde_json::Value]) -> Result<(), StoreError> {
        let same = |a: &serde_json::Value, b: &serde_json::Value| {
            a["after"] == b["after"] && a["through"] == b["through"]
        };
        let mut kept = self.verifications()?;
        kept.retain(|old| !ranges.iter().any(|new| same(old, new)));
        kept.extend(ranges.iter().cloned());
        let excess = kept.len().saturating_sub(MAX_VERIFICATIONS);
        kept.drain(..excess);
        self.meta_set("verifications", &serde_json::Value::Array(kept).to_string())
    }

    /// A new open chunk.
    fn start_chunk(
        &mut self,
        start: Option<Position>,
        end_before: Option<i64>,
        verify: i64,
        now: i64,
    ) -> Result<Chunk, StoreError> {
        let mut chunk = Chunk::opened(0, start, end_before, verify);
        chunk.id = self.insert_chunk(&chunk, now)?;
        Ok(chunk)
    }

    /// Adds `chunk` (new, open) started at `now`; its id.
    fn insert_chunk(&mut self, chunk: &Chunk, now: i64) -> Result<i64, StoreError>;

    /// Writes one page and moves the chunk's cursor, in one transaction. An update the index
    /// has with another digest, or an update the chunk already walked past that the index does
    /// not have, is history rewritten: nothing is written.
    fn write_page(&mut self, chunk: i64, page: &PageWrite) -> Result<PageWritten, StoreError>;

    /// Sets a chunk's state (`done`, `diverged`, `open`).
    fn set_chunk_state(&mut self, chunk: i64, state: &str, now: i64) -> Result<(), StoreError>;

    /// Records a divergence (an unresolved one replaces an earlier record of the same update).
    fn record_divergence(&mut self, divergence: &DivergenceRecord) -> Result<(), StoreError>;

    /// Marks the unresolved divergences of `update_ids` resolved (the scans agree on them now),
    /// in one transaction (a page's updates at once: one call per page, not per update).
    fn resolve_divergences(&mut self, update_ids: &[String]) -> Result<(), StoreError>;

    /// Writes the heartbeat of a sync that starts.
    fn beat(&mut self, heartbeat: &Heartbeat) -> Result<(), StoreError>;

    /// Moves the heartbeat of the running sync `pid` on (nothing once [`IndexWriter::end_sync`]
    /// removed it, so a late beat never brings back a sync that ended).
    fn refresh_beat(&mut self, pid: i64, beat_at: i64) -> Result<(), StoreError>;

    /// Keeps `dictionary` (a zstd dictionary, by its own id) as the one new bodies are packed
    /// with; the bodies packed with earlier ones stay readable.
    fn add_body_dictionary(&mut self, dictionary: &[u8], now: i64) -> Result<(), StoreError>;

    /// Removes every update recorded before `before` (µs) with its keys; chunks that end
    /// before it go, the others start after the newest update removed. Returns how many
    /// updates were removed.
    fn prune(&mut self, before: i64) -> Result<u64, StoreError>;
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
                // Refuses an empty database as a reader does.
                drop(postgres::PgIndex::open(url, false, None)?);
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
