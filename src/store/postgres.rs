//! The index in a PostgreSQL database, for a team: one `index sync --follow` writes it, several
//! explorers read it. The same tables, versions and answers as the SQLite file
//! ([`super::sqlite`]); text is matched in Rust (prefixes walk a `COLLATE "C"` column in byte
//! order, as SQLite compares), never with `LIKE`.
//!
//! - One writer: `pg_try_advisory_lock` on the writer's own connection, a session lock the
//!   server drops with the connection (a killed sync, a restarted server); a second writer is
//!   refused naming the first from its heartbeat row.
//! - `keys` is ordered by (term, migration, record time, seq), so the newest-first first page of
//!   a term walks the primary key backwards with a LIMIT; `term_counts` keeps each term's count
//!   at write and prune time.
//! - The client is `postgres` (synchronous, over tokio-postgres with its own small runtime): the
//!   store's calls run on blocking threads, never inside an async task, and a client is closed
//!   on a thread of its own (closing blocks on its runtime).
//! - TLS: rustls on ring with the system's roots (and `sslrootcert=FILE` when given); a local
//!   server (a Unix socket, localhost) is reached without TLS unless `sslmode=require`. The URL's
//!   password never reaches a message: errors are scrubbed of it and name the URL redacted.

use std::collections::{HashMap, HashSet};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use postgres::config::{Host, SslMode};
use postgres::error::SqlState;
use postgres::{Client, GenericClient, IsolationLevel, NoTls};

use super::{
    Chunk, DivergenceRecord, HEARTBEAT_STALE_MICROS, Heartbeat, IndexReach, IndexStatus,
    IndexStore, KeptUpdate, MigrationRange, NetworkId, PageWrite, PageWritten, Position,
    SCHEMA_VERSION, StoreError,
};
use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::index::query::{Query, Term};
use crate::model::index::read::SyncRunning;
use crate::model::index::{KeyKind, SUMMARY_VERSION, SearchRow};

/// Most keys a prefix term may stand for (as on SQLite).
const MAX_PREFIX_MATCHES: usize = 100_000;
/// Rows read per step of a prefix walk.
const PREFIX_BATCH: i64 = 1_000;
/// zstd level of the bodies (as on SQLite).
const ZSTD_LEVEL: i32 = 3;
/// The advisory lock of the one writer ("cantonsc"), per database.
const WRITER_LOCK: i64 = 0x6361_6e74_6f6e_7363;
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The tables: those of the SQLite file (see [`super`]), with `keys` carrying the update's
/// position and `term_counts` the updates per term.
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
    value TEXT COLLATE "C" NOT NULL,
    UNIQUE (kind, value)
);
CREATE TABLE IF NOT EXISTS keys (
    term BIGINT NOT NULL,
    migration_id BIGINT NOT NULL,
    record_time BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    PRIMARY KEY (term, migration_id, record_time, seq)
);
CREATE TABLE IF NOT EXISTS term_counts (
    term BIGINT PRIMARY KEY,
    updates BIGINT NOT NULL
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
CREATE TABLE IF NOT EXISTS sync_heartbeat (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    pid BIGINT NOT NULL,
    host TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    beat_at BIGINT NOT NULL,
    command TEXT NOT NULL
);
"#;

/// The index's tables, for its size.
const TABLES: [&str; 8] = [
    "meta",
    "updates",
    "terms",
    "keys",
    "term_counts",
    "chunks",
    "divergences",
    "sync_heartbeat",
];

/// A PostgreSQL URL with its password replaced (in the user info and in a `password=`
/// parameter), for every message.
pub fn redact_url(url: &str) -> String {
    let redacted = crate::api::redact_userinfo(url);
    let Some((base, query)) = redacted.split_once('?') else {
        return redacted;
    };
    let params: Vec<String> = query
        .split('&')
        .map(|p| match p.split_once('=') {
            Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
            _ => p.to_owned(),
        })
        .collect();
    format!("{base}?{}", params.join("&"))
}

/// How to connect: the driver's configuration, the TLS decision and what to scrub.
struct Target {
    config: postgres::Config,
    /// Reach the server with rustls (`false`: plain, a local server).
    tls: bool,
    /// Extra roots (`sslrootcert`).
    root_cert: Option<String>,
    /// The password as written and as decoded, scrubbed from every message.
    secrets: Vec<String>,
    /// The URL as messages name it.
    shown: String,
}

impl Target {
    fn parse(url: &str) -> Result<Target, StoreError> {
        let shown = redact_url(url);
        let mut secrets = Vec::new();
        // The password as it is written in the URL (user info, or a parameter).
        if let Some(rest) = url.split_once("://").map(|(_, r)| r) {
            let authority = rest.split(['/', '?']).next().unwrap_or_default();
            if let Some((userinfo, _)) = authority.rsplit_once('@')
                && let Some((_, password)) = userinfo.split_once(':')
                && !password.is_empty()
            {
                secrets.push(password.to_owned());
            }
        }
        // `sslrootcert` (libpq's) is read here; `verify-ca` / `verify-full` are what rustls
        // always does, so they read as `require`.
        let mut root_cert = None;
        let mut kept = Vec::new();
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        for param in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = param.split_once('=').unwrap_or((param, ""));
            match key {
                "sslrootcert" => root_cert = Some(percent_decode(value)),
                "sslmode" if matches!(value, "verify-ca" | "verify-full") => {
                    kept.push("sslmode=require".to_owned());
                }
                "password" => {
                    secrets.push(value.to_owned());
                    kept.push(param.to_owned());
                }
                _ => kept.push(param.to_owned()),
            }
        }
        let cleaned = if kept.is_empty() {
            base.to_owned()
        } else {
            format!("{base}?{}", kept.join("&"))
        };
        let mut config = postgres::Config::from_str(&cleaned).map_err(|e| StoreError::Engine {
            path: shown.clone(),
            detail: format!(
                "not a PostgreSQL URL I can read: {}",
                scrub(&e.to_string(), &secrets)
            ),
        })?;
        if let Some(password) = config.get_password() {
            let decoded = String::from_utf8_lossy(password).into_owned();
            if !decoded.is_empty() {
                secrets.push(decoded);
            }
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        config.notice_callback(|_| {});
        let local = config.get_hosts().iter().all(|h| match h {
            Host::Unix(_) => true,
            Host::Tcp(name) => matches!(name.as_str(), "localhost" | "127.0.0.1" | "::1"),
        });
        let tls = match config.get_ssl_mode() {
            SslMode::Disable => false,
            SslMode::Require => true,
            _ => !local,
        };
        Ok(Target {
            config,
            tls,
            root_cert,
            secrets,
            shown,
        })
    }

    fn connect(&self, application_name: &str) -> Result<Client, StoreError> {
        let mut config = self.config.clone();
        config.application_name(application_name);
        let connected = if self.tls {
            let tls = tokio_postgres_rustls::MakeRustlsConnect::new(self.tls_config()?);
            config.connect(tls)
        } else {
            config.connect(NoTls)
        };
        connected.map_err(|e| self.error(&e))
    }

    fn tls_config(&self) -> Result<rustls::ClientConfig, StoreError> {
        let mut roots = rustls::RootCertStore::empty();
        for cert in rustls_native_certs::load_native_certs().certs {
            let _ = roots.add(cert);
        }
        if let Some(path) = &self.root_cert {
            use rustls::pki_types::CertificateDer;
            use rustls::pki_types::pem::PemObject;
            let certs = CertificateDer::pem_file_iter(path).map_err(|e| StoreError::Engine {
                path: self.shown.clone(),
                detail: format!("cannot read sslrootcert {path}: {e}"),
            })?;
            for cert in certs {
                let cert = cert.map_err(|e| StoreError::Engine {
                    path: self.shown.clone(),
                    detail: format!("sslrootcert {path}: {e}"),
                })?;
                roots.add(cert).map_err(|e| StoreError::Engine {
                    path: self.shown.clone(),
                    detail: format!("sslrootcert {path}: {e}"),
                })?;
            }
        }
        rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map(|b| b.with_root_certificates(roots).with_no_client_auth())
        .map_err(|e| StoreError::Engine {
            path: self.shown.clone(),
            detail: format!("TLS: {e}"),
        })
    }

    /// A driver error as a store error: the server gone is [`StoreError::Unreachable`].
    fn error(&self, e: &postgres::Error) -> StoreError {
        let detail = scrub(&describe(e), &self.secrets);
        if is_connection(e) {
            StoreError::Unreachable {
                path: self.shown.clone(),
                detail,
            }
        } else {
            StoreError::Engine {
                path: self.shown.clone(),
                detail,
            }
        }
    }
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `text` with every secret replaced.
fn scrub(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_owned();
    for secret in secrets.iter().filter(|s| !s.is_empty()) {
        out = out.replace(secret.as_str(), "***");
    }
    out
}

/// The server's own words for a database error; the driver's (with its causes) otherwise.
fn describe(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        let mut text = format!("{}: {}", db.severity(), db.message());
        if let Some(detail) = db.detail() {
            text.push_str(&format!(" ({detail})"));
        }
        return text;
    }
    // The driver's words, then its causes ("error connecting to server: Connection refused").
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    text
}

/// Whether the error is the connection lost or refused (the server down or restarting).
fn is_connection(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    if let Some(code) = e.code() {
        return code.code().starts_with("08")
            || *code == SqlState::ADMIN_SHUTDOWN
            || *code == SqlState::CRASH_SHUTDOWN
            || *code == SqlState::CANNOT_CONNECT_NOW;
    }
    if e.as_db_error().is_some() {
        return false;
    }
    let text = e.to_string();
    [
        "error connecting",
        "error communicating",
        "connection closed",
        "timeout",
        "unexpected EOF",
    ]
    .iter()
    .any(|p| text.contains(p))
}

/// An index in a PostgreSQL database.
pub struct PgIndex {
    /// Always `Some` until dropped (taken to close it on a thread of its own).
    client: Option<Client>,
    target: Target,
}

impl Drop for PgIndex {
    fn drop(&mut self) {
        // Closing blocks on the client's runtime, which may not happen inside an async task.
        if let Some(client) = self.client.take() {
            let _ = std::thread::spawn(move || drop(client)).join();
        }
    }
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
        };
        if holder.is_some() {
            index.lock()?;
        }
        let has_meta = index.table_exists("meta")?;
        if has_meta {
            index.check_versions()?;
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
            tx.batch_execute(SCHEMA).map_err(|e| target.error(&e))?;
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ('schema_version', $1), ('summary_version', $2)
                 ON CONFLICT (key) DO NOTHING",
                &[&SCHEMA_VERSION.to_string(), &SUMMARY_VERSION.to_string()],
            )
            .map_err(|e| target.error(&e))?;
            tx.commit().map_err(|e| target.error(&e))?;
        }
        Ok(index)
    }

    /// Runs `f` with the client and turns its driver error into a store error.
    fn with<T>(
        &mut self,
        f: impl FnOnce(&mut Client) -> Result<T, postgres::Error>,
    ) -> Result<T, StoreError> {
        let target = &self.target;
        let client = self.client.as_mut().ok_or_else(|| closed(target))?;
        f(client).map_err(|e| target.error(&e))
    }

    fn table_exists(&mut self, table: &str) -> Result<bool, StoreError> {
        self.with(|c| {
            c.query_one("SELECT to_regclass($1) IS NOT NULL", &[&table])
                .map(|r| r.get(0))
        })
    }

    /// Takes the writer lock, or names who holds it.
    fn lock(&mut self) -> Result<(), StoreError> {
        let got: bool = self.with(|c| {
            c.query_one("SELECT pg_try_advisory_lock($1)", &[&WRITER_LOCK])
                .map(|r| r.get(0))
        })?;
        if got {
            return Ok(());
        }
        let now = chrono::Utc::now().timestamp_micros();
        let mut holder = None;
        if self.table_exists("sync_heartbeat")? {
            let beat = self.heartbeat()?;
            holder = beat
                .filter(|h| now.saturating_sub(h.beat_at) < super::HEARTBEAT_STALE_MICROS)
                .map(|h| {
                    format!(
                        "pid {} on {} since {} (cantonscope {})",
                        h.pid,
                        h.host,
                        format_time_micros(h.started_at),
                        h.command
                    )
                });
        }
        if holder.is_none() {
            // The session holding the lock, as it named itself.
            holder = self
                .with(|c| {
                    c.query_opt(
                        "SELECT a.application_name, coalesce(host(a.client_addr), 'a local socket'),
                                a.backend_start::text
                         FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                         WHERE l.locktype = 'advisory' AND l.granted
                           AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                           AND l.objid = ($1::bigint & 4294967295)::oid
                         LIMIT 1",
                        &[&WRITER_LOCK],
                    )
                })?
                .map(|r| {
                    let name: String = r.get(0);
                    let from: String = r.get(1);
                    let since: String = r.get(2);
                    format!("{name} (a session from {from} since {since})")
                });
        }
        Err(StoreError::Busy {
            path: self.target.shown.clone(),
            holder: holder.unwrap_or_else(|| "a session holds its writer lock".to_owned()),
        })
    }

    fn heartbeat(&mut self) -> Result<Option<Heartbeat>, StoreError> {
        Ok(self
            .with(|c| {
                c.query_opt(
                    "SELECT pid, host, started_at, beat_at, command FROM sync_heartbeat WHERE id = 1",
                    &[],
                )
            })?
            .map(|r| Heartbeat {
                pid: r.get(0),
                host: r.get(1),
                started_at: r.get(2),
                beat_at: r.get(3),
                command: r.get(4),
            }))
    }

    fn meta(&mut self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .with(|c| c.query_opt("SELECT value FROM meta WHERE key = $1", &[&key]))?
            .map(|r| r.get(0)))
    }

    fn set_meta(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute(
                "INSERT INTO meta (key, value) VALUES ($1, $2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[&key, &value],
            )
        })
        .map(|_| ())
    }

    fn check_versions(&mut self) -> Result<(), StoreError> {
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
        if let Some(found) = summary
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
}

fn closed(target: &Target) -> StoreError {
    StoreError::Unreachable {
        path: target.shown.clone(),
        detail: "the connection is closed".to_owned(),
    }
}

fn truncate(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// (migration, µs) of a position, for ordering.
fn order(p: &Position) -> (i64, i64) {
    (
        p.migration_id,
        parse_time_micros(&p.record_time).unwrap_or(i64::MIN),
    )
}

fn chunk_rows(c: &mut impl GenericClient) -> Result<Vec<Chunk>, postgres::Error> {
    let rows = c.query(
        "SELECT id, start_migration, start_time, end_before, cursor_migration, cursor_time,
                page_start_migration, page_start_time, state, verify, scans, updates
         FROM chunks ORDER BY id",
        &[],
    )?;
    let position = |m: Option<i64>, t: Option<String>| match (m, t) {
        (Some(migration_id), Some(record_time)) => Some(Position {
            migration_id,
            record_time,
        }),
        _ => None,
    };
    Ok(rows
        .iter()
        .map(|r| {
            let scans: String = r.get(10);
            Chunk {
                id: r.get(0),
                start: position(r.get(1), r.get(2)),
                end_before: r.get(3),
                cursor: position(r.get(4), r.get(5)),
                page_start: position(r.get(6), r.get(7)),
                state: r.get(8),
                verify: r.get(9),
                scans: serde_json::from_str(&scans).unwrap_or_default(),
                updates: r.get(11),
            }
        })
        .collect())
}

/// Why a step failed: the driver, or the store's own verdict (a prefix too short, history
/// rewritten).
enum Fail {
    Pg(postgres::Error),
    Store(StoreError),
}

impl From<postgres::Error> for Fail {
    fn from(e: postgres::Error) -> Self {
        Fail::Pg(e)
    }
}

impl Target {
    fn fail(&self, f: Fail) -> StoreError {
        match f {
            Fail::Pg(e) => self.error(&e),
            Fail::Store(e) => e,
        }
    }
}

/// What a query term stands for: term ids, or (an update-id prefix) the updates' seqs.
enum TermSet {
    Terms(Vec<i64>),
    Seqs(Vec<i64>),
}

fn join(ids: &[i64]) -> String {
    ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
}

/// The term ids standing for `term`, or an update-id prefix's seqs.
fn term_set(c: &mut impl GenericClient, shown: &str, term: &Term) -> Result<TermSet, Fail> {
    match term {
        Term::Exact(kind, value) => {
            let id: Option<i64> = c
                .query_opt(
                    "SELECT id FROM terms WHERE kind = $1 AND value = $2",
                    &[&kind.code(), value],
                )?
                .map(|r| r.get(0));
            Ok(TermSet::Terms(id.into_iter().collect()))
        }
        Term::ContractPrefix(prefixes) => {
            let mut ids = Vec::new();
            for prefix in prefixes {
                walk_prefix(
                    c,
                    shown,
                    "SELECT id, value FROM terms WHERE kind = $1 AND value >= $2 ORDER BY value LIMIT $3",
                    "SELECT id, value FROM terms WHERE kind = $1 AND value > $2 ORDER BY value LIMIT $3",
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
                walk_prefix(
                    c,
                    shown,
                    "SELECT seq, update_id FROM updates WHERE $1::bigint IS NULL AND update_id >= $2 ORDER BY update_id LIMIT $3",
                    "SELECT seq, update_id FROM updates WHERE $1::bigint IS NULL AND update_id > $2 ORDER BY update_id LIMIT $3",
                    None,
                    prefix,
                    &mut seqs,
                )?;
            }
            Ok(TermSet::Seqs(seqs))
        }
    }
}

/// Walks rows (id, text) in byte order from `prefix` while the text starts with it (matched
/// here, in Rust, not by the engine), a batch at a time.
fn walk_prefix(
    c: &mut impl GenericClient,
    shown: &str,
    first: &str,
    next: &str,
    kind: Option<i64>,
    prefix: &str,
    out: &mut Vec<i64>,
) -> Result<(), Fail> {
    let mut after: Option<String> = None;
    loop {
        let rows = match &after {
            None => c.query(first, &[&kind, &prefix, &PREFIX_BATCH])?,
            Some(last) => c.query(next, &[&kind, last, &PREFIX_BATCH])?,
        };
        for row in &rows {
            let text: String = row.get(1);
            if !text.starts_with(prefix) {
                return Ok(());
            }
            out.push(row.get(0));
            if out.len() > MAX_PREFIX_MATCHES {
                return Err(Fail::Store(StoreError::Engine {
                    path: shown.to_owned(),
                    detail: format!(
                        "the prefix {prefix:?} matches more than {MAX_PREFIX_MATCHES} ids: give a longer one"
                    ),
                }));
            }
            after = Some(text);
        }
        if (rows.len() as i64) < PREFIX_BATCH {
            return Ok(());
        }
    }
}

/// How a query runs. With a single-id term, the rarest such term drives it: its keys are
/// walked newest first through the primary key of `keys` (`k`), the other terms are probes of
/// the same key order. Otherwise the updates (`u`) are filtered.
struct Plan {
    drive: Option<i64>,
    /// The record-time range, over `k` when driven, else `u`.
    range: Vec<String>,
    /// The other terms, over `u`.
    others: Vec<String>,
}

impl Plan {
    /// The plan of a query (`None`: nothing can match).
    fn of(
        c: &mut impl GenericClient,
        shown: &str,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
    ) -> Result<Option<Plan>, Fail> {
        let mut sets = Vec::new();
        for term in &query.terms {
            let set = term_set(c, shown, term)?;
            match &set {
                TermSet::Terms(v) | TermSet::Seqs(v) if v.is_empty() => return Ok(None),
                _ => sets.push(set),
            }
        }
        let singles: Vec<i64> = sets
            .iter()
            .filter_map(|s| match s {
                TermSet::Terms(ids) if ids.len() == 1 => Some(ids[0]),
                _ => None,
            })
            .collect();
        let mut drive = None;
        if !singles.is_empty() {
            let counts: HashMap<i64, i64> = c
                .query(
                    &format!(
                        "SELECT term, updates FROM term_counts WHERE term IN ({})",
                        join(&singles)
                    ),
                    &[],
                )?
                .iter()
                .map(|r| (r.get(0), r.get(1)))
                .collect();
            drive = singles
                .iter()
                .min_by_key(|t| counts.get(t).copied().unwrap_or(0))
                .copied();
        }
        let at = if drive.is_some() { "k" } else { "u" };
        let mut range = Vec::new();
        if let Some(from) = from {
            range.push(format!("{at}.record_time >= {from}"));
        }
        if let Some(until) = until {
            range.push(format!("{at}.record_time <= {until}"));
        }
        // The ids are integers read from the index itself, written into the SQL as numbers.
        let mut others = Vec::new();
        let mut driven = false;
        for set in &sets {
            match set {
                TermSet::Terms(ids) if !driven && ids.len() == 1 && Some(ids[0]) == drive => {
                    driven = true;
                }
                // Probed by the driving key's own columns (`k`), so the probe is one primary-key
                // look-up: by `u`'s, the planner hashes every key of the term instead.
                TermSet::Terms(ids) if ids.len() == 1 => others.push(format!(
                    "EXISTS (SELECT 1 FROM keys o WHERE o.term = {} AND o.migration_id = {at}.migration_id
                       AND o.record_time = {at}.record_time AND o.seq = {at}.seq)",
                    ids[0]
                )),
                TermSet::Terms(ids) => others.push(format!(
                    "u.seq IN (SELECT o.seq FROM keys o WHERE o.term IN ({}))",
                    join(ids)
                )),
                TermSet::Seqs(seqs) => others.push(format!("u.seq IN ({})", join(seqs))),
            }
        }
        Ok(Some(Plan {
            drive,
            range,
            others,
        }))
    }

    fn conditions(&self) -> String {
        let all: Vec<&String> = self.range.iter().chain(&self.others).collect();
        if all.is_empty() {
            "TRUE".to_owned()
        } else {
            all.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" AND ")
        }
    }
}

/// Writes one page in `tx` (see [`IndexStore::write_page`]).
fn write_rows(
    tx: &mut postgres::Transaction<'_>,
    shown: &str,
    chunk: &Chunk,
    page: &PageWrite,
) -> Result<PageWritten, Fail> {
    let mut written = PageWritten::default();
    let walked_to = chunk.cursor.as_ref().map(order);
    let start = chunk.start.as_ref().map(order);
    let rows: Vec<_> = page
        .rows
        .iter()
        // Before the chunk (a page read again after a prune): not the chunk's to write.
        .filter(|row| start.is_none_or(|s| (row.migration_id, row.record_time) > s))
        .collect();
    let ids: Vec<&str> = rows.iter().map(|r| r.update_id.as_str()).collect();
    let mut stored: HashMap<String, Vec<u8>> = tx
        .query(
            "SELECT update_id, digest FROM updates WHERE update_id = ANY($1)",
            &[&ids],
        )?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let mut new = Vec::new();
    for row in rows {
        let position = (row.migration_id, row.record_time);
        let kept = super::kept(stored.get(&row.update_id).map(Vec::as_slice), &row.digest);
        match crate::model::reread::reread(&row.update_id, position, kept, walked_to) {
            Ok(crate::model::reread::Reread::Known) => {
                written.known += 1;
                continue;
            }
            Ok(crate::model::reread::Reread::New) => {}
            Err(r) => return Err(Fail::Store(r.into())),
        }
        // The same update twice in a page is written once.
        stored.insert(row.update_id.clone(), row.digest.to_vec());
        new.push(row);
    }
    if !new.is_empty() {
        let mut bodies: Vec<Option<Vec<u8>>> = Vec::with_capacity(new.len());
        for row in &new {
            bodies.push(if page.bodies {
                Some(
                    zstd::bulk::compress(row.body.as_bytes(), ZSTD_LEVEL).map_err(|e| {
                        Fail::Store(StoreError::Engine {
                            path: shown.to_owned(),
                            detail: format!("cannot compress the body of {}: {e}", row.update_id),
                        })
                    })?,
                )
            } else {
                None
            });
        }
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
        let term_ids: HashMap<(i64, String), i64> = tx
            .query(
                "SELECT t.kind, t.value, t.id FROM terms t
                 JOIN UNNEST($1::int8[], $2::text[]) AS x(kind, value)
                   ON t.kind = x.kind AND t.value = x.value",
                &[&term_kinds, &term_values],
            )?
            .iter()
            .map(|r| ((r.get(0), r.get(1)), r.get(2)))
            .collect();
        let mut keys: HashSet<(i64, i64, i64, i64)> = HashSet::new();
        let mut counts: HashMap<i64, i64> = HashMap::new();
        for row in &new {
            let Some(seq) = seqs.get(&row.update_id) else {
                continue;
            };
            for (kind, value) in &row.keys {
                let Some(term) = term_ids.get(&(kind.code(), value.clone())) else {
                    continue;
                };
                if keys.insert((*term, row.migration_id, row.record_time, *seq)) {
                    *counts.entry(*term).or_default() += 1;
                }
            }
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
        let c_counts: Vec<i64> = c_terms.iter().map(|t| counts[t]).collect();
        tx.execute(
            "INSERT INTO term_counts (term, updates) SELECT * FROM UNNEST($1::int8[], $2::int8[])
             ON CONFLICT (term) DO UPDATE SET updates = term_counts.updates + excluded.updates",
            &[&c_terms, &c_counts],
        )?;
        written.inserted = new.len() as u64;
    }
    let mut scans = chunk.scans.clone();
    for scan in &page.scans {
        if !scans.contains(scan) {
            scans.push(scan.clone());
        }
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
            &serde_json::to_string(&scans).unwrap_or_else(|_| "[]".to_owned()),
            &(written.inserted as i64),
        ],
    )?;
    Ok(written)
}

fn search_row(r: &postgres::Row) -> SearchRow {
    let parties: String = r.get(5);
    SearchRow {
        update_id: r.get(0),
        migration_id: r.get(1),
        record_time: format_time_micros(r.get(2)),
        kind: r.get(3),
        root_action: r.get(4),
        parties: serde_json::from_str(&parties).unwrap_or_default(),
    }
}

impl IndexStore for PgIndex {
    fn network(&mut self) -> Result<Option<NetworkId>, StoreError> {
        let Some(dso_party) = self.meta("dso_party")? else {
            return Ok(None);
        };
        Ok(Some(NetworkId {
            dso_party,
            synchronizer: self.meta("synchronizer")?.unwrap_or_default(),
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
                    path: self.target.shown.clone(),
                    index_dso: kept.dso_party,
                    index_sync: kept.synchronizer,
                    scan_dso: network.dso_party.clone(),
                    scan_sync: network.synchronizer.clone(),
                })
            }
        }
    }

    fn chunks(&mut self) -> Result<Vec<Chunk>, StoreError> {
        self.with(chunk_rows)
    }

    fn start_chunk(
        &mut self,
        start: Option<Position>,
        end_before: Option<i64>,
        verify: i64,
        now: i64,
    ) -> Result<Chunk, StoreError> {
        let id: i64 = self.with(|c| {
            c.query_one(
                "INSERT INTO chunks (start_migration, start_time, end_before, state, verify, scans, started_at)
                 VALUES ($1, $2, $3, 'open', $4, '[]', $5) RETURNING id",
                &[
                    &start.as_ref().map(|p| p.migration_id),
                    &start.as_ref().map(|p| p.record_time.clone()),
                    &end_before,
                    &verify,
                    &now,
                ],
            )
            .map(|r| r.get(0))
        })?;
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
        let shown = self.target.shown.clone();
        let target = &self.target;
        let client = self.client.as_mut().ok_or_else(|| closed(target))?;
        let mut tx = client.transaction().map_err(|e| target.error(&e))?;
        let current = chunk_rows(&mut tx)
            .map_err(|e| target.error(&e))?
            .into_iter()
            .find(|c| c.id == chunk)
            .ok_or_else(|| StoreError::Engine {
                path: shown.clone(),
                detail: format!("no chunk {chunk}"),
            })?;
        // An error drops the transaction, which rolls it back: nothing of the page is kept.
        let written = write_rows(&mut tx, &shown, &current, page).map_err(|f| target.fail(f))?;
        tx.commit().map_err(|e| target.error(&e))?;
        Ok(written)
    }

    fn set_chunk_state(&mut self, chunk: i64, state: &str, now: i64) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute(
                "UPDATE chunks SET state = $2, finished_at = $3 WHERE id = $1",
                &[&chunk, &state, &now],
            )
        })
        .map(|_| ())
    }

    fn record_divergence(&mut self, d: &DivergenceRecord) -> Result<(), StoreError> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            if !d.resolved {
                tx.execute(
                    "DELETE FROM divergences WHERE update_id = $1 AND NOT resolved",
                    &[&d.update_id],
                )?;
            }
            tx.execute(
                "INSERT INTO divergences (update_id, migration_id, record_time, found_at, resolved, detail)
                 VALUES ($1, $2, $3, $4, $5, $6)",
                &[
                    &d.update_id,
                    &d.migration_id,
                    &d.record_time,
                    &d.found_at,
                    &d.resolved,
                    &d.detail.to_string(),
                ],
            )?;
            tx.commit()
        })
    }

    fn resolve_divergence(&mut self, update_id: &str) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute(
                "UPDATE divergences SET resolved = TRUE WHERE update_id = $1 AND NOT resolved",
                &[&update_id],
            )
        })
        .map(|_| ())
    }

    fn beat(&mut self, h: &Heartbeat) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute(
                "INSERT INTO sync_heartbeat (id, pid, host, started_at, beat_at, command)
                 VALUES (1, $1, $2, $3, $4, $5)
                 ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, host = excluded.host,
                   started_at = excluded.started_at, beat_at = excluded.beat_at,
                   command = excluded.command",
                &[&h.pid, &h.host, &h.started_at, &h.beat_at, &h.command],
            )
        })
        .map(|_| ())
    }

    fn refresh_beat(&mut self, pid: i64, beat_at: i64) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute(
                "UPDATE sync_heartbeat SET beat_at = $2 WHERE id = 1 AND pid = $1",
                &[&pid, &beat_at],
            )
        })
        .map(|_| ())
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
        self.with(|c| c.execute("DELETE FROM sync_heartbeat", &[]))
            .map(|_| ())
    }

    fn status(&mut self, now: i64) -> Result<IndexStatus, StoreError> {
        let network = self.network()?;
        let shown = self.target.shown.clone();
        let target = &self.target;
        let client = self.client.as_mut().ok_or_else(|| closed(target))?;
        // One read-only snapshot for a consistent picture.
        let run = |c: &mut Client| -> Result<_, postgres::Error> {
            let mut tx = c
                .build_transaction()
                .isolation_level(IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()?;
            let size_sql = format!(
                "SELECT ({})::bigint",
                TABLES
                    .iter()
                    .map(|t| format!("pg_total_relation_size('{t}')"))
                    .collect::<Vec<_>>()
                    .join(" + ")
            );
            let size: i64 = tx.query_one(&size_sql, &[])?.get(0);
            let counts = tx.query_one("SELECT count(*), count(body) FROM updates", &[])?;
            let (updates, bodies): (i64, i64) = (counts.get(0), counts.get(1));
            let migrations = tx
                .query(
                    "SELECT migration_id, count(*), min(record_time), max(record_time)
                     FROM updates GROUP BY migration_id ORDER BY migration_id",
                    &[],
                )?
                .iter()
                .map(|r| MigrationRange {
                    migration_id: r.get(0),
                    updates: r.get(1),
                    first_record_time: format_time_micros(r.get(2)),
                    last_record_time: format_time_micros(r.get(3)),
                })
                .collect::<Vec<_>>();
            let divergences = tx
                .query(
                    "SELECT update_id, migration_id, record_time, found_at, resolved, detail
                     FROM divergences ORDER BY migration_id, record_time, id",
                    &[],
                )?
                .iter()
                .map(|r| {
                    let detail: String = r.get(5);
                    DivergenceRecord {
                        update_id: r.get(0),
                        migration_id: r.get(1),
                        record_time: r.get(2),
                        found_at: r.get(3),
                        resolved: r.get(4),
                        detail: serde_json::from_str(&detail).unwrap_or_default(),
                    }
                })
                .collect::<Vec<_>>();
            let heartbeat = tx
                .query_opt(
                    "SELECT pid, host, started_at, beat_at, command FROM sync_heartbeat WHERE id = 1",
                    &[],
                )?
                .map(|r| Heartbeat {
                    pid: r.get(0),
                    host: r.get(1),
                    started_at: r.get(2),
                    beat_at: r.get(3),
                    command: r.get(4),
                });
            let last_sync: Option<String> = tx
                .query_opt("SELECT value FROM meta WHERE key = 'last_sync'", &[])?
                .map(|r| r.get(0));
            let chunks = chunk_rows(&mut tx)?;
            tx.commit()?;
            Ok((
                size,
                updates,
                bodies,
                migrations,
                divergences,
                heartbeat,
                last_sync,
                chunks,
            ))
        };
        let (size, updates, bodies, migrations, divergences, heartbeat, last_sync, chunks) =
            run(client).map_err(|e| target.error(&e))?;
        Ok(IndexStatus {
            location: shown,
            schema_version: SCHEMA_VERSION,
            summary_version: SUMMARY_VERSION,
            network,
            updates,
            bodies,
            size_bytes: u64::try_from(size).unwrap_or(0),
            migrations,
            gaps: super::sqlite::gaps(&chunks),
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
        let shown = self.target.shown.clone();
        let target = &self.target;
        let client = self.client.as_mut().ok_or_else(|| closed(target))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // One short read-only snapshot: the term look-ups and the rows see the same index.
        let run = |c: &mut Client| -> Result<Vec<SearchRow>, Fail> {
            let mut tx = c
                .build_transaction()
                .isolation_level(IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()?;
            let Some(plan) = Plan::of(&mut tx, &shown, query, from, until)? else {
                return Ok(Vec::new());
            };
            let columns =
                "u.update_id, u.migration_id, u.record_time, u.kind, u.root_action, u.parties";
            let sql = match plan.drive {
                Some(term) => format!(
                    "SELECT {columns} FROM keys k JOIN updates u ON u.seq = k.seq
                     WHERE k.term = {term} AND {}
                     ORDER BY k.migration_id DESC, k.record_time DESC, k.seq DESC LIMIT {limit}",
                    plan.conditions()
                ),
                None => format!(
                    "SELECT {columns} FROM updates u WHERE {}
                     ORDER BY u.migration_id DESC, u.record_time DESC, u.seq DESC LIMIT {limit}",
                    plan.conditions()
                ),
            };
            let rows = tx.query(&sql, &[])?.iter().map(search_row).collect();
            tx.commit()?;
            Ok(rows)
        };
        run(client).map_err(|f| target.fail(f))
    }

    fn count(
        &mut self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
    ) -> Result<u64, StoreError> {
        let shown = self.target.shown.clone();
        let target = &self.target;
        let client = self.client.as_mut().ok_or_else(|| closed(target))?;
        let run = |c: &mut Client| -> Result<i64, Fail> {
            let mut tx = c
                .build_transaction()
                .isolation_level(IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()?;
            let Some(plan) = Plan::of(&mut tx, &shown, query, from, until)? else {
                return Ok(0);
            };
            let sql = match plan.drive {
                // One term over the whole index: its count kept at write time.
                Some(term) if plan.range.is_empty() && plan.others.is_empty() => format!(
                    "SELECT coalesce((SELECT updates FROM term_counts WHERE term = {term}), 0)"
                ),
                Some(term) if plan.others.is_empty() => format!(
                    "SELECT count(*) FROM keys k WHERE k.term = {term} AND {}",
                    plan.conditions()
                ),
                Some(term) => format!(
                    "SELECT count(*) FROM keys k JOIN updates u ON u.seq = k.seq
                     WHERE k.term = {term} AND {}",
                    plan.conditions()
                ),
                None => format!("SELECT count(*) FROM updates u WHERE {}", plan.conditions()),
            };
            let n: i64 = tx.query_one(&sql, &[])?.get(0);
            tx.commit()?;
            Ok(n)
        };
        run(client)
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(|f| target.fail(f))
    }

    fn reach(&mut self, now: i64) -> Result<IndexReach, StoreError> {
        let (updates, first, last, beat) = self.with(|c| {
            // One short read transaction: the count and the heartbeat as of one moment.
            let mut tx = c.transaction()?;
            let r = tx.query_one(
                "SELECT count(*), min(record_time), max(record_time) FROM updates",
                &[],
            )?;
            let beat: Option<(i64, String, i64)> = tx
                .query_opt(
                    "SELECT pid, host, beat_at FROM sync_heartbeat WHERE id = 1",
                    &[],
                )?
                .map(|b| (b.get(0), b.get(1), b.get(2)));
            tx.commit()?;
            Ok((
                r.get::<_, i64>(0),
                r.get::<_, Option<i64>>(1),
                r.get::<_, Option<i64>>(2),
                beat,
            ))
        })?;
        Ok(IndexReach {
            updates: u64::try_from(updates).unwrap_or(0),
            first,
            last,
            sync_running: beat
                .filter(|(_, _, at)| now.saturating_sub(*at) < HEARTBEAT_STALE_MICROS)
                .map(|(pid, host, beat_at)| SyncRunning { pid, host, beat_at }),
        })
    }

    fn range_count(&mut self, since: i64, before: Option<i64>) -> Result<u64, StoreError> {
        let before = before.unwrap_or(i64::MAX);
        let n: i64 = self.with(|c| {
            Ok(c.query_one(
                "SELECT count(*) FROM updates WHERE record_time >= $1 AND record_time < $2",
                &[&since, &before],
            )?
            .get(0))
        })?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    fn range_rows(
        &mut self,
        since: i64,
        offset: usize,
        limit: usize,
    ) -> Result<Vec<SearchRow>, StoreError> {
        let offset = i64::try_from(offset).unwrap_or(i64::MAX);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with(|c| {
            Ok(c.query(
                "SELECT update_id, migration_id, record_time, kind, root_action, parties
                 FROM updates WHERE record_time >= $1
                 ORDER BY record_time, seq LIMIT $2 OFFSET $3",
                &[&since, &limit, &offset],
            )?
            .iter()
            .map(|r| {
                let parties: String = r.get(5);
                SearchRow {
                    update_id: r.get(0),
                    migration_id: r.get(1),
                    record_time: format_time_micros(r.get(2)),
                    kind: r.get(3),
                    root_action: r.get(4),
                    parties: serde_json::from_str(&parties).unwrap_or_default(),
                }
            })
            .collect())
        })
    }

    fn page_after(
        &mut self,
        after: Option<(i64, i64)>,
        limit: usize,
    ) -> Result<Vec<KeptUpdate>, StoreError> {
        let (migration, time) = after.unwrap_or((i64::MIN, i64::MIN));
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows: Vec<(String, i64, i64, Option<Vec<u8>>)> = self.with(|c| {
            Ok(c.query(
                "SELECT update_id, migration_id, record_time, body FROM updates
                 WHERE migration_id > $1 OR (migration_id = $1 AND record_time > $2)
                 ORDER BY migration_id, record_time LIMIT $3",
                &[&migration, &time, &limit],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect())
        })?;
        let shown = &self.target.shown;
        rows.into_iter()
            .map(|(update_id, migration_id, record_time, body)| {
                let body = match body {
                    None => None,
                    Some(compressed) => Some(
                        zstd::stream::decode_all(compressed.as_slice())
                            .ok()
                            .and_then(|b| String::from_utf8(b).ok())
                            .ok_or_else(|| StoreError::Corrupt {
                                path: shown.clone(),
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

    fn body(&mut self, update_id: &str) -> Result<Option<String>, StoreError> {
        let body: Option<Option<Vec<u8>>> = self.with(|c| {
            c.query_opt(
                "SELECT body FROM updates WHERE update_id = $1",
                &[&update_id],
            )
            .map(|r| r.map(|r| r.get(0)))
        })?;
        let Some(Some(compressed)) = body else {
            return Ok(None);
        };
        let shown = &self.target.shown;
        let bytes =
            zstd::stream::decode_all(compressed.as_slice()).map_err(|e| StoreError::Corrupt {
                path: shown.clone(),
                detail: format!("the body of {update_id} does not decompress: {e}"),
            })?;
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|e| StoreError::Corrupt {
                path: shown.clone(),
                detail: format!("the body of {update_id} is not UTF-8: {e}"),
            })
    }

    fn prune(&mut self, before: i64) -> Result<u64, StoreError> {
        self.with(|c| {
            let mut tx = c.transaction()?;
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
                let emptied = chunk
                    .cursor
                    .as_ref()
                    .is_some_and(|c| order(c) <= (migration, time));
                if emptied {
                    tx.execute("DELETE FROM chunks WHERE id = $1", &[&chunk.id])?;
                } else {
                    tx.execute(
                        "UPDATE chunks SET start_migration = $2, start_time = $3 WHERE id = $1",
                        &[&chunk.id, &migration, &format_time_micros(time)],
                    )?;
                }
            }
            // The keys go with their updates, and the terms' counts down with them.
            tx.execute(
                "WITH gone AS (DELETE FROM keys WHERE record_time < $1 RETURNING term),
                      n AS (SELECT term, count(*) AS n FROM gone GROUP BY term)
                 UPDATE term_counts t SET updates = t.updates - n.n FROM n WHERE t.term = n.term",
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
            tx.commit()?;
            Ok(removed)
        })
    }

    fn digests(&mut self) -> Result<Vec<(String, String)>, StoreError> {
        self.with(|c| {
            c.query(
                "SELECT update_id, digest FROM updates ORDER BY migration_id, record_time, seq",
                &[],
            )
        })
        .map(|rows| {
            rows.iter()
                .map(|r| {
                    let digest: Vec<u8> = r.get(1);
                    (r.get(0), hex::encode(digest))
                })
                .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_named_without_its_password() {
        for (url, shown) in [
            (
                "postgres://cs:s3cret@db.example:5432/index",
                "postgres://***@db.example:5432/index",
            ),
            (
                "postgresql://db.example/index?user=cs&password=s3cret&sslmode=require",
                "postgresql://db.example/index?user=cs&password=***&sslmode=require",
            ),
        ] {
            assert_eq!(redact_url(url), shown);
            let target = Target::parse(url).expect("parses");
            assert_eq!(target.shown, shown);
            assert!(target.tls, "a remote server is reached over TLS");
            assert_eq!(
                scrub("auth s3cret failed", &target.secrets),
                "auth *** failed"
            );
        }
        let local = Target::parse("postgres://cs:pw@localhost:5432/i").expect("parses");
        assert!(!local.tls, "localhost without TLS");
        let socket = Target::parse("postgres://cs@%2Ftmp%2Fpg/i").expect("parses");
        assert!(!socket.tls, "a Unix socket without TLS");
        let required =
            Target::parse("postgres://cs@localhost/i?sslmode=verify-full").expect("parses");
        assert!(required.tls, "verify-full is TLS (rustls always verifies)");
        let e = Target::parse("postgres://cs:s3cret@h/i?sslmode=sometimes")
            .err()
            .expect("refused");
        assert!(!e.to_string().contains("s3cret"), "{e}");
    }
}
