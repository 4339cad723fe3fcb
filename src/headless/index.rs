//! `cantonscope index …`: the local history index from the shell.
//!
//! - `sync`: walks `POST /v2/updates` ([`PageWalk`], as `scan updates --all` does) into the
//!   index. The bodies come from the profile's own scan; each page is asked of other scans too
//!   (the verifiers rotate among them) and written only when `--verify N` scans have every
//!   update with the same digest ([`judge`]). A disagreement is put to every scan: a version
//!   held by f + 1 (and at least N) scans is written and the odd scans recorded; otherwise the
//!   sync stops at that update (exit 5) without writing it. A scan that fails (403, down,
//!   backfilling) is skipped for another; exit 6 when N scans cannot be had. Each page is one
//!   transaction with its chunk's cursor; a sync resumes each unfinished chunk by re-reading
//!   its last committed page (which also detects history rewritten under the index).
//! - `status`: the index's bookkeeping as JSON.
//! - `search`: fielded terms over the key tables, newest first, as JSON Lines.
//!
//! The store is only reached through [`IndexStore`] calls run on a blocking thread.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::future::join_all;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::network::{EXIT_DEGRADED, EXIT_INTERRUPTED, EXIT_NO_QUORUM};
use super::{EXIT_CONNECT, EXIT_DECODE, EXIT_OK, EXIT_SERVER, EXIT_USAGE, api_config, write_text};
use crate::api::scan::{self, UpdateItem, UpdatesAfter, UpdatesPage};
use crate::api::{ApiClient, ApiConfig, Call, Exchange};
use crate::cli::{IndexArgs, IndexCommand, ProgressArg, VerifyArg};
use crate::config::Settings;
use crate::model::consensus::{MAX_DIFFERENCES, json_diff, quorum};
use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::index::query::Query;
use crate::model::index::verify::{Answered, Stop, judge};
use crate::model::index::{Digest, digest_hex, digests_of, rows_of};
use crate::model::json_text;
use crate::model::page_walk::{PageWalk, cursor_at};
use crate::network::discovery::{ListSource, discover};
use crate::network::{Cancel, Network, Reply, ScanBudget, Transport};
use crate::store::lock::{WriterLock, host_name};
use crate::store::{
    Chunk, DivergenceRecord, Heartbeat, IndexStore, Location, NetworkId, PageWrite, Position,
    StoreError,
};

/// How often the heartbeat is written while a sync runs.
const BEAT_EVERY: Duration = Duration::from_secs(5);
/// How long `--follow` waits at the head before asking again.
const FOLLOW_POLL: Duration = Duration::from_secs(2);

fn now_micros() -> i64 {
    chrono::Utc::now().timestamp_micros()
}

fn say(err: &mut dyn Write, line: &str) {
    let _ = writeln!(err, "cantonscope: {line}");
    let _ = err.flush();
}

/// The exit code of a store error: every one is about the index named (usage/configuration),
/// except history rewritten under it, which is a divergence, and a database server that cannot
/// be reached, which is a connection error.
fn store_code(error: &StoreError) -> i32 {
    match error {
        StoreError::Rewritten { .. } => EXIT_DEGRADED,
        StoreError::Unreachable { .. } => EXIT_CONNECT,
        _ => EXIT_USAGE,
    }
}

/// The store, shared with the blocking threads that run its calls.
#[derive(Clone)]
struct Store(Arc<Mutex<Box<dyn IndexStore>>>);

impl Store {
    async fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut dyn IndexStore) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let store = Arc::clone(&self.0);
        tokio::task::spawn_blocking(move || {
            let mut guard = store.lock().unwrap_or_else(PoisonError::into_inner);
            f(guard.as_mut())
        })
        .await
        .unwrap_or_else(|e| {
            Err(StoreError::Engine {
                path: String::new(),
                detail: format!("the index thread failed: {e}"),
            })
        })
    }
}

/// Opens the index on a blocking thread; what opening it did (a schema migrated) is said on
/// stderr.
async fn open(location: Location, write: bool, err: &mut dyn Write) -> Result<Store, StoreError> {
    let opened = blocking(move || {
        if write {
            crate::store::open_writer(&location)
        } else {
            crate::store::open_reader(&location)
        }
    })
    .await;
    opened.map(|mut store| {
        tell_notices(store.as_mut(), err);
        Store(Arc::new(Mutex::new(store)))
    })
}

/// Says on stderr what opening the index did (an older schema migrated).
fn tell_notices(store: &mut dyn IndexStore, err: &mut dyn Write) {
    for notice in store.notices() {
        say(err, &notice);
    }
}

/// Takes the writer lock and opens the index for writing (see [`crate::store::open_locked`]):
/// the store, and the file lock to keep while writing (PostgreSQL's goes with the store's
/// connection). What opening it did is said on stderr.
async fn open_locked(
    location: Location,
    holder: String,
    must_exist: bool,
    err: &mut dyn Write,
) -> Result<(Store, Option<WriterLock>), StoreError> {
    blocking(move || crate::store::open_locked(&location, &holder, must_exist))
        .await
        .map(|mut w| {
            tell_notices(w.store.as_mut(), err);
            (Store(Arc::new(Mutex::new(w.store))), w.lock)
        })
}

/// Runs `f` on a blocking thread (the store's engines block; PostgreSQL's client runs its own
/// runtime, which may not be entered from an async task).
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| {
        Err(StoreError::Engine {
            path: String::new(),
            detail: format!("the index thread failed: {e}"),
        })
    })
}

/// Runs one `index` command; returns the exit code.
pub async fn run(
    args: &IndexArgs,
    settings: &Settings,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let cancel = Arc::new(Cancel::new());
    let terminated = Arc::new(AtomicBool::new(false));
    let watcher = {
        let cancel = Arc::clone(&cancel);
        let terminated = Arc::clone(&terminated);
        tokio::spawn(async move {
            let term = async {
                match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                    Ok(mut s) => {
                        s.recv().await;
                    }
                    Err(_) => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                () = term => terminated.store(true, Ordering::SeqCst),
            }
            cancel.cancel();
        })
    };
    let code = run_with(args, settings, out, err, &cancel, &terminated).await;
    watcher.abort();
    code
}

/// [`run`] with explicit signals (tests).
pub async fn run_with(
    args: &IndexArgs,
    settings: &Settings,
    out: &mut dyn Write,
    err: &mut dyn Write,
    cancel: &Cancel,
    terminated: &AtomicBool,
) -> i32 {
    let Some(location) = settings.index_location(args.index.as_deref()) else {
        say(
            err,
            "no place for the index: give --index PATH (or $CANTONSCOPE_INDEX, or index in the profile)",
        );
        return EXIT_USAGE;
    };
    let location = Location::parse(&location);
    match &args.command {
        IndexCommand::Status => status(location, out, err).await,
        IndexCommand::Prune { before } => prune(location, before, out, err).await,
        IndexCommand::Search {
            query,
            from,
            until,
            limit,
            count,
        } => {
            search(
                location,
                query,
                from.as_deref(),
                until.as_deref(),
                *limit,
                *count,
                out,
                err,
            )
            .await
        }
        IndexCommand::Sync {
            from,
            until,
            follow,
            verify,
            no_bodies,
            progress,
            page_size,
            request_rate,
            timeout,
            chunks,
        } => {
            let plan = SyncPlan {
                from: from.clone(),
                until: until.as_deref().and_then(parse_time_micros),
                follow: *follow,
                verify: *verify,
                bodies: !*no_bodies,
                progress: match progress {
                    Some(ProgressArg::Json) => ProgressMode::Json,
                    None if std::io::stderr().is_terminal() => ProgressMode::Line,
                    None => ProgressMode::Quiet,
                },
                page_size: i32::from(*page_size),
                chunks: usize::from(*chunks),
                rate: request_rate.unwrap_or(settings.network.request_rate),
                timeout: *timeout,
            };
            sync(location, settings, &plan, out, err, cancel, terminated).await
        }
    }
}

async fn status(location: Location, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let result = async {
        let store = open(location, false, err).await?;
        store.call(|s| s.status(now_micros())).await
    }
    .await;
    match result {
        Ok(status) => {
            let value = serde_json::to_value(&status).unwrap_or(Value::Null);
            match write_pretty(out, &value) {
                Ok(()) => EXIT_OK,
                Err(e) => {
                    say(err, &e);
                    EXIT_USAGE
                }
            }
        }
        Err(e) => {
            say(err, &e.to_string());
            store_code(&e)
        }
    }
}

async fn prune(location: Location, before: &str, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let Some(micros) = parse_time_micros(before) else {
        say(err, &format!("--before is not a time: {before}"));
        return EXIT_USAGE;
    };
    let holder = format!(
        "pid {} on {} since {} (cantonscope index prune)",
        std::process::id(),
        host_name(),
        format_time_micros(now_micros())
    );
    let result = async {
        let (store, _lock) = open_locked(location, holder, true, err).await?;
        store.call(move |s| s.prune(micros)).await
    }
    .await;
    match result {
        Ok(removed) => {
            let value = json!({ "removed": removed, "before": format_time_micros(micros) });
            match write_pretty(out, &value) {
                Ok(()) => EXIT_OK,
                Err(e) => {
                    say(err, &e);
                    EXIT_USAGE
                }
            }
        }
        Err(e) => {
            say(err, &e.to_string());
            store_code(&e)
        }
    }
}

fn write_pretty(out: &mut dyn Write, value: &Value) -> Result<(), String> {
    let compact = serde_json::to_vec(value).map_err(|e| e.to_string())?;
    let pretty = json_text::pretty_bytes(&compact).map_err(|e| e.to_string())?;
    write_text(out, &pretty)
}

#[allow(clippy::too_many_arguments)]
async fn search(
    location: Location,
    words: &[String],
    from: Option<&str>,
    until: Option<&str>,
    limit: usize,
    count: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let query = match Query::parse(words) {
        Ok(q) => q,
        Err(message) => {
            say(err, &message);
            return EXIT_USAGE;
        }
    };
    let from = from.and_then(parse_time_micros);
    let until = until.and_then(parse_time_micros);
    let store = match open(location, false, err).await {
        Ok(store) => store,
        Err(e) => {
            say(err, &e.to_string());
            return store_code(&e);
        }
    };
    let written = if count {
        match store.call(move |s| s.count(&query, from, until)).await {
            Ok(n) => write_text(out, &n.to_string()),
            Err(e) => {
                say(err, &e.to_string());
                return store_code(&e);
            }
        }
    } else {
        match store
            .call(move |s| s.search(&query, from, until, limit))
            .await
        {
            Ok(rows) => rows.iter().try_for_each(|row| {
                let line = serde_json::to_string(row).map_err(|e| e.to_string())?;
                write_text(out, &json_text::escape_unsafe(&line))
            }),
            Err(e) => {
                say(err, &e.to_string());
                return store_code(&e);
            }
        }
    };
    match written {
        Ok(()) => EXIT_OK,
        Err(e) => {
            say(err, &e);
            EXIT_USAGE
        }
    }
}

// ---------------------------------------------------------------------------------------------
// sync
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProgressMode {
    Quiet,
    Line,
    Json,
}

/// What `index sync` was asked.
#[derive(Debug, Clone)]
struct SyncPlan {
    /// `begin` or an RFC 3339 time.
    from: Option<String>,
    /// Inclusive, µs.
    until: Option<i64>,
    follow: bool,
    verify: VerifyArg,
    bodies: bool,
    progress: ProgressMode,
    page_size: i32,
    rate: f64,
    timeout: Duration,
    /// Time chunks a `--from TIME` range is walked in, side by side.
    chunks: usize,
}

/// Why a sync stopped before its end.
#[derive(Debug)]
enum Halt {
    /// Exit code and message.
    Failed(i32, String),
    /// Scans disagree: the record (written) and the message.
    Diverged(Box<DivergenceRecord>, String),
    Interrupted,
}

impl From<StoreError> for Halt {
    fn from(e: StoreError) -> Self {
        Halt::Failed(store_code(&e), e.to_string())
    }
}

/// The running sync's counters.
#[derive(Debug, Default)]
struct Counters {
    pages: u64,
    inserted: u64,
    known: u64,
    odd: u64,
    /// Updates the profile's scan had that no other scan could confirm yet (at the head).
    unconfirmed: u64,
}

/// Everything one sync works with.
struct Syncer<'a> {
    net: Network,
    primary: usize,
    store: Store,
    plan: &'a SyncPlan,
    needed: usize,
    threshold: usize,
    /// Where the verifiers of the next page start.
    rotation: Cell<usize>,
    counters: RefCell<Counters>,
    started: Instant,
    /// Per chunk walked: the record times (µs) it started at and has reached, for the share
    /// of the range done.
    reach: RefCell<BTreeMap<i64, (i64, i64)>>,
    /// The end of the range (µs), for the share.
    end: Cell<Option<i64>>,
    /// Chunks walk concurrently on this one task: every borrow of these cells is short and
    /// never held across an `.await`.
    err: RefCell<&'a mut dyn Write>,
    cancel: &'a Cancel,
}

fn describe(net: &Network, scan: usize) -> String {
    net.entry(scan)
        .map_or_else(|| format!("scan {scan}"), |e| e.sv_name.clone())
}

#[allow(clippy::too_many_arguments)]
async fn sync(
    location: Location,
    settings: &Settings,
    plan: &SyncPlan,
    out: &mut dyn Write,
    err: &mut dyn Write,
    cancel: &Cancel,
    terminated: &AtomicBool,
) -> i32 {
    if settings.scan_url.is_none() {
        say(
            err,
            "no scan configured: give --scan-url (or $CANTONSCOPE_SCAN_URL, or scan_url in the \
             profile); the index takes its bodies from it and its /v0/scans lists the verifiers",
        );
        return EXIT_USAGE;
    }
    let started_at = now_micros();
    let holder = format!(
        "pid {} on {} since {} (cantonscope index sync)",
        std::process::id(),
        host_name(),
        format_time_micros(started_at)
    );
    let (store, _lock) = match open_locked(location, holder, false, err).await {
        Ok(opened) => opened,
        Err(e) => {
            say(err, &e.to_string());
            return store_code(&e);
        }
    };
    let heartbeat = Heartbeat {
        pid: i64::from(std::process::id()),
        host: host_name(),
        started_at,
        beat_at: started_at,
        command: "index sync".to_owned(),
    };
    if let Err(e) = store
        .call({
            let h = heartbeat.clone();
            move |s| s.beat(&h)
        })
        .await
    {
        say(err, &e.to_string());
        return store_code(&e);
    }
    let beating = {
        let store = store.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(BEAT_EVERY).await;
                let pid = heartbeat.pid;
                let _ = store.call(move |s| s.refresh_beat(pid, now_micros())).await;
            }
        })
    };
    let result = sync_inner(store.clone(), settings, plan, err, cancel).await;
    beating.abort();
    let (code, outcome, extra) = match &result {
        Ok(counters) => (
            EXIT_OK,
            "done",
            json!({ "counters": counters_json(counters) }),
        ),
        Err((Halt::Interrupted, counters)) => {
            // SIGTERM ends a --follow sync (a service, a tmux pane closing) as planned.
            let (code, outcome) = if terminated.load(Ordering::SeqCst) && plan.follow {
                (EXIT_OK, "stopped")
            } else {
                (EXIT_INTERRUPTED, "interrupted")
            };
            (
                code,
                outcome,
                json!({ "counters": counters_json(counters) }),
            )
        }
        Err((Halt::Diverged(record, message), counters)) => {
            say(err, message);
            (
                EXIT_DEGRADED,
                "diverged",
                json!({
                    "counters": counters_json(counters),
                    "divergence": serde_json::to_value(record.as_ref()).unwrap_or(Value::Null),
                }),
            )
        }
        Err((Halt::Failed(code, message), counters)) => {
            say(err, message);
            (
                *code,
                "failed",
                json!({ "counters": counters_json(counters), "error": message }),
            )
        }
    };
    let ended = now_micros();
    if let Err(e) = store
        .call(move |s| s.end_sync(started_at, ended, outcome))
        .await
    {
        say(err, &format!("warning: {e}"));
    }
    let mut result = json!({ "outcome": outcome, "exit_code": code });
    if let (Some(map), Value::Object(more)) = (result.as_object_mut(), extra) {
        map.extend(more);
    }
    if let Err(e) = write_pretty(out, &result) {
        say(err, &e);
    }
    code
}

fn counters_json(c: &Counters) -> Value {
    json!({
        "pages": c.pages,
        "updates_written": c.inserted,
        "updates_known": c.known,
        "odd_scan_updates": c.odd,
        "unconfirmed_at_head": c.unconfirmed,
    })
}

async fn sync_inner(
    store: Store,
    settings: &Settings,
    plan: &SyncPlan,
    err: &mut dyn Write,
    cancel: &Cancel,
) -> Result<Counters, (Halt, Counters)> {
    let fail = |halt: Halt| (halt, Counters::default());
    let config = ApiConfig {
        request_timeout: plan.timeout,
        connect_timeout: plan.timeout.min(ApiConfig::default().connect_timeout),
        retries: 0,
        ..api_config(settings)
    };
    let client = ApiClient::new(config)
        .map_err(|e| fail(Halt::Failed(e.exit_code(), e.to_string())))?
        .with_max_response_mib(settings.max_response_mib);
    let discovered = discover(
        &client,
        settings,
        settings.data_path().as_deref(),
        now_micros(),
    )
    .await;
    for warning in &discovered.warnings {
        say(err, &format!("warning: {warning}"));
    }
    if let ListSource::Unavailable { errors } = &discovered.source {
        for error in errors {
            say(err, &format!("cannot read the scan list: {error}"));
        }
    }
    let synchronizer = discovered
        .list
        .as_ref()
        .map(|l| l.domain_id.clone())
        .unwrap_or_default();
    let budget = ScanBudget {
        rate: plan.rate,
        timeout: plan.timeout,
        ..ScanBudget::default()
    };
    let net = Network::new(&client, discovered.entries.clone(), budget);
    let Some(primary) = net.entries().position(|e| e.own) else {
        return Err(fail(Halt::Failed(
            EXIT_USAGE,
            "the profile's scan is not among the scans to ask".to_owned(),
        )));
    };
    // The network the index belongs to.
    let dso = client
        .send(&scan::dso())
        .await
        .map_err(|e| fail(Halt::Failed(e.exit_code(), super::error_line(&e))))?;
    let network = NetworkId {
        dso_party: dso.dso_party_id.clone(),
        synchronizer,
    };
    store
        .call(move |s| s.claim_network(&network))
        .await
        .map_err(|e| fail(e.into()))?;
    let counted = net.counted().iter().filter(|c| **c).count();
    let needed = match plan.verify {
        VerifyArg::Scans(n) => n,
        VerifyArg::Quorum => quorum(counted),
    };
    if needed > net.len() {
        return Err(fail(Halt::Failed(
            EXIT_NO_QUORUM,
            format!(
                "not enough scans to verify with: --verify needs {needed} scans to agree and the network has {} ({})",
                net.len(),
                net.entries()
                    .map(|e| e.sv_name.clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )));
    }
    let syncer = Syncer {
        net,
        primary,
        store,
        plan,
        needed,
        threshold: quorum(counted).max(needed),
        rotation: Cell::new(0),
        counters: RefCell::new(Counters::default()),
        started: Instant::now(),
        reach: RefCell::new(BTreeMap::new()),
        end: Cell::new(plan.until),
        err: RefCell::new(err),
        cancel,
    };
    let result = syncer.run().await;
    let counters = syncer.counters.into_inner();
    match result {
        Ok(()) => Ok(counters),
        Err(halt) => Err((halt, counters)),
    }
}

fn position_order(p: &Position) -> (i64, i64) {
    (
        p.migration_id,
        parse_time_micros(&p.record_time).unwrap_or(i64::MIN),
    )
}

fn to_after(p: &Position) -> UpdatesAfter {
    UpdatesAfter {
        after_migration_id: p.migration_id,
        after_record_time: p.record_time.clone(),
    }
}

fn to_position(a: &UpdatesAfter) -> Position {
    Position {
        migration_id: a.after_migration_id,
        record_time: a.after_record_time.clone(),
    }
}

/// One scan's answer to a page.
struct PageOf {
    scan: usize,
    page: UpdatesPage,
    digests: Vec<Digest>,
}

impl Syncer<'_> {
    async fn run(&self) -> Result<(), Halt> {
        let chunks = self.store.call(|s| s.chunks()).await?;
        // First the chunks an earlier sync left unfinished, side by side.
        let open: Vec<Chunk> = chunks.into_iter().filter(|c| c.state == "open").collect();
        self.walk_chunks(open).await?;
        // Then the range asked for.
        let start: Option<Position> = match self.plan.from.as_deref() {
            Some("begin") => None,
            Some(time) => {
                let micros = parse_time_micros(time).ok_or_else(|| {
                    Halt::Failed(EXIT_USAGE, format!("--from is not a time: {time}"))
                })?;
                return self.walk_range(micros).await;
            }
            None => {
                let chunks = self.store.call(|s| s.chunks()).await?;
                let newest = chunks
                    .into_iter()
                    .filter(|c| c.cursor.is_some())
                    .max_by_key(|c| c.cursor.as_ref().map(position_order));
                match newest {
                    // The chunk that reached the head goes on from its last committed page,
                    // read again (a history rewritten under the index is seen there).
                    Some(chunk) if chunk.end_before.is_none() => {
                        let id = chunk.id;
                        self.store
                            .call(move |s| s.set_chunk_state(id, "open", now_micros()))
                            .await?;
                        return self.walk_chunk(chunk).await;
                    }
                    Some(chunk) => chunk.cursor,
                    None => None,
                }
            }
        };
        let end_before = self.plan.until.map(|u| u.saturating_add(1));
        let verify = self.needed as i64;
        let chunk = self
            .store
            .call(move |s| s.start_chunk(start, end_before, verify, now_micros()))
            .await?;
        self.walk_chunk(chunk).await
    }

    /// Walks the range from `from` (µs) to `--until` (or the head) in `--chunks` time chunks
    /// side by side, each from the cursor at its start time.
    async fn walk_range(&self, from: i64) -> Result<(), Halt> {
        let end = self.plan.until.unwrap_or_else(now_micros);
        self.end.set(Some(end));
        let parts = i64::try_from(self.plan.chunks.max(1)).unwrap_or(1);
        // Ranges shorter than an hour are one chunk.
        let parts = if end - from < 3_600_000_000 { 1 } else { parts };
        let step = (end - from) / parts;
        let verify = self.needed as i64;
        let mut chunks = Vec::new();
        for i in 0..parts {
            let start_time = from + i * step;
            // The migration whose first update is the newest at or before the start time.
            let at = crate::network::sweep::start_at(&self.net, self.primary, start_time)
                .await
                .map_err(|e| {
                    Halt::Failed(EXIT_SERVER, format!("cannot find where --from is: {e}"))
                })?;
            let start = Some(to_position(&cursor_at(at.migration_id, start_time)));
            let end_before = if i + 1 < parts {
                Some(from + (i + 1) * step)
            } else {
                self.plan.until.map(|u| u.saturating_add(1))
            };
            let chunk = self
                .store
                .call(move |s| s.start_chunk(start, end_before, verify, now_micros()))
                .await?;
            chunks.push(chunk);
        }
        self.walk_chunks(chunks).await
    }

    /// Walks `chunks` side by side, each to its end or to what stops it (a divergence stops
    /// only its own chunk: the others go on, so everything the scans agree on before it is
    /// kept); the sync then ends with the earliest chunk's stop. What each committed stays, and
    /// an unfinished chunk is resumed by the next sync.
    async fn walk_chunks(&self, chunks: Vec<Chunk>) -> Result<(), Halt> {
        join_all(chunks.into_iter().map(|c| self.walk_chunk(c)))
            .await
            .into_iter()
            .collect::<Result<Vec<()>, Halt>>()
            .map(|_| ())
    }

    /// The primary scan's answer, or why the sync cannot go on.
    async fn primary_page(&self, call: &Call<UpdatesPage>) -> Result<PageOf, Halt> {
        let reply = self.net.ask(self.primary, call).await;
        let name = describe(&self.net, self.primary);
        if reply.success().is_some()
            && let Ok(exchange) = reply.result
        {
            return decoded(self.primary, call, exchange)
                .await
                .map_err(|e| Halt::Failed(EXIT_DECODE, format!("{name}: {e}")));
        }
        match &reply.result {
            Ok(_) => Err(Halt::Failed(
                EXIT_SERVER,
                format!(
                    "the profile's scan ({name}) answered {}",
                    reply.problem().unwrap_or_default()
                ),
            )),
            Err(Transport::Timeout) => Err(Halt::Failed(
                EXIT_CONNECT,
                format!("the profile's scan ({name}) timed out"),
            )),
            Err(Transport::Unreachable(detail)) => Err(Halt::Failed(
                EXIT_CONNECT,
                format!("the profile's scan ({name}): {detail}"),
            )),
        }
    }

    /// A verifier's answer: its page, or why it cannot verify.
    async fn verifier_page(&self, scan: usize, call: &Call<UpdatesPage>) -> Result<PageOf, String> {
        let reply: Reply = self.net.ask(scan, call).await;
        if reply.success().is_none() {
            return Err(reply.problem().unwrap_or_else(|| "no answer".to_owned()));
        }
        match reply.result {
            Ok(exchange) => decoded(scan, call, exchange).await,
            Err(_) => Err("no answer".to_owned()),
        }
    }

    async fn walk_chunk(&self, chunk: Chunk) -> Result<(), Halt> {
        // Resume by re-reading the last committed page; a new chunk starts at its start.
        let from_time = if chunk.page_start.is_none() {
            chunk
                .start
                .as_ref()
                .and_then(|p| parse_time_micros(&p.record_time))
                .map(|t| t + 1)
        } else {
            None
        };
        let begin = chunk
            .page_start
            .as_ref()
            .or(chunk.start.as_ref())
            .map(to_after);
        let until = chunk.end_before.map(|e| e - 1);
        let mut walk = PageWalk::new(begin, until, self.plan.page_size);
        if let Some(t) = from_time {
            walk = walk.from_time(t);
        }
        let follow = self.plan.follow && chunk.end_before.is_none();
        loop {
            if self.cancel.is_cancelled() {
                return Err(Halt::Interrupted);
            }
            if walk.is_done() {
                if !follow {
                    break;
                }
                tokio::select! {
                    () = tokio::time::sleep(FOLLOW_POLL) => {}
                    () = self.cancel.cancelled() => return Err(Halt::Interrupted),
                }
                walk = PageWalk::new(walk.cursor().cloned(), None, self.plan.page_size);
                continue;
            }
            let page_start = walk.cursor().map(to_position);
            let call = scan::updates(&walk.request());
            let primary = self.primary_page(&call).await?;
            let take = walk
                .clone()
                .on_page(&primary.page)
                .map_err(|e| Halt::Failed(EXIT_SERVER, e))?;
            if primary.page.transactions.is_empty() {
                walk.on_page(&primary.page)
                    .map_err(|e| Halt::Failed(EXIT_SERVER, e))?;
                continue;
            }
            let verified = self.verify_page(primary, &call, take.keep).await;
            let confirmed = verified.confirmed;
            if confirmed > 0 {
                let mut page = verified.body.page;
                page.transactions.truncate(confirmed);
                let keep = take.skip.min(confirmed)..confirmed;
                let digests = &verified.body.digests;
                self.write(
                    &chunk,
                    &page,
                    digests,
                    keep,
                    page_start,
                    &verified.confirmers,
                    &verified.odd,
                )
                .await?;
                walk.on_page(&page)
                    .map_err(|e| Halt::Failed(EXIT_SERVER, e))?;
            }
            if let Some(halt) = verified.halt {
                if let Halt::Diverged(record, _) = &halt {
                    let kept = (**record).clone();
                    self.store.call(move |s| s.record_divergence(&kept)).await?;
                }
                return Err(halt);
            }
            if confirmed == 0 {
                // Nothing the other scans can confirm yet: the verified head (an empty page
                // ends the walk where it is).
                let _ = walk.on_page(&UpdatesPage {
                    transactions: Vec::new(),
                });
            }
        }
        let id = chunk.id;
        self.store
            .call(move |s| s.set_chunk_state(id, "done", now_micros()))
            .await?;
        Ok(())
    }

    /// Asks verifiers until the page's items are confirmed as far as they can be: returns the
    /// page whose items are kept, how many of its first items are confirmed, the scans that
    /// confirmed them and the odd (position, scan) pairs.
    async fn verify_page(
        &self,
        primary: PageOf,
        call: &Call<UpdatesPage>,
        limit: usize,
    ) -> Verified {
        let n = self.net.len();
        let others: Vec<usize> = (0..n)
            .map(|i| (i + self.rotation.get()) % n)
            .filter(|i| *i != self.primary)
            .collect();
        self.rotation.set(self.rotation.get() + 1);
        let mut pending = others.into_iter();
        let mut pages: Vec<PageOf> = vec![primary];
        let mut failures: Vec<String> = Vec::new();
        let mut body_scan = self.primary;
        loop {
            let answers: Vec<Answered<'_>> = pages
                .iter()
                .map(|p| Answered {
                    scan: p.scan,
                    digests: &p.digests,
                })
                .collect();
            let judged = judge(&answers, body_scan, self.needed, self.threshold, limit);
            let ask_one = match &judged.stop {
                Stop::End => None,
                Stop::Unknown { .. } => Some(false),
                Stop::Disputed { .. } => Some(true),
                Stop::OtherVersion { scan } if judged.confirmed == 0 => {
                    body_scan = *scan;
                    continue;
                }
                Stop::OtherVersion { .. } => None,
            };
            let exhausted = pending.len() == 0;
            if let Some(all) = ask_one
                && !exhausted
            {
                let asking: Vec<usize> = if all {
                    pending.by_ref().collect()
                } else {
                    pending.by_ref().take(1).collect()
                };
                for scan in asking {
                    match self.verifier_page(scan, call).await {
                        Ok(page) => pages.push(page),
                        Err(problem) => {
                            failures.push(format!("{} ({problem})", describe(&self.net, scan)));
                        }
                    }
                }
                continue;
            }
            // As far as it goes.
            let mut halt = None;
            if let Stop::Disputed { groups } = &judged.stop {
                let record = self.divergence(&pages, judged.confirmed, groups);
                halt = Some(self.diverged(record));
            } else if judged.confirmed == 0 && ask_one == Some(false) && pages.len() == 1 {
                halt = Some(Halt::Failed(
                    EXIT_NO_QUORUM,
                    format!(
                        "not enough scans to verify with: --verify needs {} scans to agree; {}",
                        self.needed,
                        if failures.is_empty() {
                            "no other scan to ask".to_owned()
                        } else {
                            format!("failed: {}", failures.join(", "))
                        }
                    ),
                ));
            }
            if let Some(body) = pages.iter().find(|p| p.scan == body_scan) {
                let have = body.page.transactions.len().min(limit);
                self.counters.borrow_mut().unconfirmed = (have - judged.confirmed) as u64;
            }
            let index = pages.iter().position(|p| p.scan == body_scan).unwrap_or(0);
            return Verified {
                body: pages.swap_remove(index),
                confirmed: judged.confirmed,
                confirmers: judged.confirmers,
                odd: judged.odd,
                halt,
            };
        }
    }

    /// The record of a disputed item at `position`.
    fn divergence(
        &self,
        pages: &[PageOf],
        position: usize,
        groups: &[(Digest, Vec<usize>)],
    ) -> DivergenceRecord {
        let item_of = |scan: usize| {
            pages
                .iter()
                .find(|p| p.scan == scan)
                .and_then(|p| p.page.transactions.get(position))
        };
        let value_of = |scan: usize| -> Option<Value> {
            let mut v: Value = serde_json::from_str(item_of(scan)?.raw().get()).ok()?;
            crate::model::consensus::LocalFields::UPDATE.strip(&mut v);
            Some(v)
        };
        let reference = groups.first().and_then(|(_, m)| m.first().copied());
        let item = reference.and_then(item_of);
        let (differences, truncated) = match (
            reference.and_then(value_of),
            groups
                .get(1)
                .and_then(|(_, m)| m.first().copied())
                .and_then(value_of),
        ) {
            (Some(a), Some(b)) => json_diff(&a, &b, MAX_DIFFERENCES),
            _ => (Vec::new(), false),
        };
        let versions: Vec<Value> = groups
            .iter()
            .map(|(digest, members)| {
                json!({
                    "digest": digest_hex(digest),
                    "scans": members.iter().map(|s| describe(&self.net, *s)).collect::<Vec<_>>(),
                })
            })
            .collect();
        DivergenceRecord {
            update_id: item
                .and_then(UpdateItem::update_id)
                .unwrap_or_default()
                .to_owned(),
            migration_id: item.and_then(UpdateItem::migration_id).unwrap_or_default(),
            record_time: item
                .and_then(UpdateItem::record_time)
                .unwrap_or_default()
                .to_owned(),
            found_at: now_micros(),
            resolved: false,
            detail: json!({
                "versions": versions,
                "differences": differences.iter().map(|d| json!({
                    "path": d.path, "first": d.quorum, "second": d.this,
                })).collect::<Vec<_>>(),
                "more_differences": truncated,
                "needed": self.threshold,
            }),
        }
    }

    /// The halt at a divergence, with its message.
    fn diverged(&self, record: DivergenceRecord) -> Halt {
        let versions = record.detail["versions"]
            .as_array()
            .map(|v| {
                v.iter()
                    .map(|g| {
                        let scans: Vec<&str> = g["scans"]
                            .as_array()
                            .map(|s| s.iter().filter_map(Value::as_str).collect())
                            .unwrap_or_default();
                        scans.join(" + ")
                    })
                    .collect::<Vec<_>>()
                    .join(" vs ")
            })
            .unwrap_or_default();
        let fields = record.detail["differences"]
            .as_array()
            .map(|d| {
                d.iter()
                    .filter_map(|x| x["path"].as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        let message = format!(
            "stopped at a divergence: update {} (migration {}, {}): the scans disagree ({versions}), fields {}; no version has the {} scans needed; the index stops before it (`cantonscope network check-update {}` shows each scan's answer)",
            record.update_id,
            record.migration_id,
            record.record_time,
            if fields.is_empty() {
                "unknown".to_owned()
            } else {
                fields
            },
            self.threshold,
            record.update_id,
        );
        Halt::Diverged(Box::new(record), message)
    }

    /// Writes the confirmed items `keep` of `page` as one transaction with the chunk's cursor.
    #[allow(clippy::too_many_arguments)]
    async fn write(
        &self,
        chunk: &Chunk,
        page: &UpdatesPage,
        digests: &[Digest],
        keep: std::ops::Range<usize>,
        page_start: Option<Position>,
        confirmers: &[usize],
        odd: &[(usize, usize)],
    ) -> Result<(), Halt> {
        let Some(last) = page.transactions.last() else {
            return Ok(());
        };
        let cursor = Position {
            migration_id: last.migration_id().unwrap_or_default(),
            record_time: last.record_time().unwrap_or_default().to_owned(),
        };
        // On every core (scoped threads): summaries, keys and compact bodies.
        let rows = rows_of(&page.transactions[keep.clone()], &digests[keep.clone()])
            .map_err(|e| Halt::Failed(EXIT_DECODE, e))?;
        if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
            let start = chunk
                .start
                .as_ref()
                .and_then(|p| parse_time_micros(&p.record_time))
                .unwrap_or(first.record_time);
            let mut reach = self.reach.borrow_mut();
            let entry = reach.entry(chunk.id).or_insert((start, start));
            entry.1 = last.record_time;
        }
        let mut scans: Vec<String> = confirmers.iter().map(|s| describe(&self.net, *s)).collect();
        if self.needed == 1 {
            scans = vec![describe(&self.net, self.primary)];
        }
        let write = PageWrite {
            rows,
            page_start,
            cursor,
            scans: scans.clone(),
            bodies: self.plan.bodies,
        };
        let id = chunk.id;
        let written = self.store.call(move |s| s.write_page(id, &write)).await?;
        {
            let mut counters = self.counters.borrow_mut();
            counters.pages += 1;
            counters.inserted += written.inserted;
            counters.known += written.known;
        }
        // Odd scans: a quorum kept another version than theirs.
        for (position, scan) in odd.iter().filter(|(p, _)| keep.contains(p)) {
            let Some(item) = page.transactions.get(*position) else {
                continue;
            };
            self.counters.borrow_mut().odd += 1;
            let name = describe(&self.net, *scan);
            let update_id = item.update_id().unwrap_or_default().to_owned();
            say(
                &mut **self.err.borrow_mut(),
                &format!(
                    "warning: {name} has another version of update {update_id}; {} scans agree on the one kept",
                    scans.len()
                ),
            );
            let record = DivergenceRecord {
                update_id,
                migration_id: item.migration_id().unwrap_or_default(),
                record_time: item.record_time().unwrap_or_default().to_owned(),
                found_at: now_micros(),
                resolved: true,
                detail: json!({ "odd_scans": [name], "kept_by": scans }),
            };
            self.store
                .call(move |s| s.record_divergence(&record))
                .await?;
        }
        // An update the scans disagreed on before and agree on now.
        for item in &page.transactions[keep] {
            let id = item.update_id().unwrap_or_default().to_owned();
            self.store.call(move |s| s.resolve_divergence(&id)).await?;
        }
        self.progress();
        Ok(())
    }

    fn progress(&self) {
        if self.plan.progress == ProgressMode::Quiet {
            return;
        }
        let counters = self.counters.borrow();
        let elapsed = self.started.elapsed().as_secs_f64().max(1e-6);
        let updates = counters.inserted + counters.known;
        let rate = updates as f64 / elapsed;
        let reach = self.reach.borrow();
        let first = reach.values().map(|r| r.0).min();
        let last = reach.values().map(|r| r.1).max();
        let end = self.end.get().unwrap_or_else(now_micros);
        let share = match first {
            Some(first) if end > first => {
                let done: i64 = reach.values().map(|r| r.1 - r.0).sum();
                (done as f64 / (end - first) as f64).clamp(0.0, 1.0)
            }
            _ => 0.0,
        };
        let eta = (share > 0.0).then(|| elapsed * (1.0 - share) / share);
        let at = last.map(format_time_micros).unwrap_or_default();
        let mut err = self.err.borrow_mut();
        match self.plan.progress {
            ProgressMode::Json => {
                let line = json!({
                    "pages": counters.pages,
                    "updates": updates,
                    "written": counters.inserted,
                    "updates_per_s": (rate * 10.0).round() / 10.0,
                    "share": (share * 1000.0).round() / 1000.0,
                    "eta_s": eta.map(f64::round),
                    "record_time": at,
                    "chunks": reach.len(),
                    "scans": self.net.len(),
                    "verify": self.needed,
                });
                let _ = writeln!(err, "{}", json_text::escape_unsafe(&line.to_string()));
            }
            ProgressMode::Line => {
                let _ = write!(
                    err,
                    "\r{:5.1} % · {} pages · {} updates · {:.0} updates/s · ETA {} · at {} · {} chunks · {} scans, verify {}   ",
                    share * 100.0,
                    counters.pages,
                    updates,
                    rate,
                    eta.map_or_else(|| "?".to_owned(), |e| format!("{e:.0} s")),
                    crate::api::sanitize_line(&at, 40),
                    reach.len(),
                    self.net.len(),
                    self.needed
                );
            }
            ProgressMode::Quiet => {}
        }
        let _ = err.flush();
    }
}

/// What verifying a page found.
struct Verified {
    /// The page whose items are kept.
    body: PageOf,
    /// How many of its first items are confirmed.
    confirmed: usize,
    /// The scans that confirmed them.
    confirmers: Vec<usize>,
    /// (position, scan) of confirmed items a scan has in another version.
    odd: Vec<(usize, usize)>,
    /// Why the sync cannot go past the confirmed items.
    halt: Option<Halt>,
}

/// A page decoded with the digests of its items, on a blocking thread (the digests on every
/// core), so the walk's task only waits.
async fn decoded(
    scan: usize,
    call: &Call<UpdatesPage>,
    exchange: Exchange,
) -> Result<PageOf, String> {
    let call = call.clone();
    tokio::task::spawn_blocking(move || {
        let page = call
            .decode_response(exchange.status, &exchange.headers, &exchange.body)
            .map_err(|e| e.to_string())?;
        let digests = digests_of(&page.transactions)?;
        Ok(PageOf {
            scan,
            page,
            digests,
        })
    })
    .await
    .unwrap_or_else(|e| Err(format!("the decoding thread failed: {e}")))
}
