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
//!
//! ```text
//! mod.rs       dispatch; the store on blocking threads; messages and exit codes
//! sync.rs      index sync: chunks, the walk, writing verified pages
//! scans.rs     a page from the scans, verified (shared by sync and verify)
//! progress.rs  a sync's counters and progress lines
//! verify.rs    index verify: the stored digests against the scans now
//! status.rs, search.rs, prune.rs   the other commands
//! ```

mod progress;
mod prune;
mod scans;
mod search;
mod status;
mod sync;
mod verify;

use progress::counters_json;
use prune::prune;
use scans::describe;
use search::search;
use status::status;
use sync::{Counters, Halt, ProgressMode, SyncPlan, Syncer, sync};
use verify::verify;

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
use crate::model::index::{Digest, digest_hex, digests_of, drop_aside, items_and_digests, rows_of};
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
        IndexCommand::Verify {
            from,
            until,
            verify: scans,
            walk,
        } => {
            let plan = SyncPlan {
                from: from.clone(),
                until: until.as_deref().and_then(parse_time_micros),
                follow: false,
                verify: *scans,
                bodies: false,
                progress: progress_mode(walk.progress),
                page_size: i32::from(walk.page_size),
                chunks: 1,
                rate: walk.request_rate.unwrap_or(settings.network.request_rate),
                timeout: walk.timeout,
            };
            let from = from.as_deref().and_then(parse_time_micros);
            verify(location, settings, &plan, from, out, err, cancel).await
        }
        IndexCommand::Sync {
            from,
            until,
            follow,
            verify,
            no_bodies,
            walk,
            chunks,
        } => {
            let plan = SyncPlan {
                from: from.clone(),
                until: until.as_deref().and_then(parse_time_micros),
                follow: *follow,
                verify: *verify,
                bodies: !*no_bodies,
                progress: progress_mode(walk.progress),
                page_size: i32::from(walk.page_size),
                chunks: usize::from(*chunks),
                rate: walk.request_rate.unwrap_or(settings.network.request_rate),
                timeout: walk.timeout,
            };
            sync(location, settings, &plan, out, err, cancel, terminated).await
        }
    }
}

fn write_pretty(out: &mut dyn Write, value: &Value) -> Result<(), String> {
    let compact = serde_json::to_vec(value).map_err(|e| e.to_string())?;
    let pretty = json_text::pretty_bytes(&compact).map_err(|e| e.to_string())?;
    write_text(out, &pretty)
}

/// `--progress` as given, else a line on a terminal.
fn progress_mode(progress: Option<ProgressArg>) -> ProgressMode {
    match progress {
        Some(ProgressArg::Json) => ProgressMode::Json,
        None if std::io::stderr().is_terminal() => ProgressMode::Line,
        None => ProgressMode::Quiet,
    }
}
