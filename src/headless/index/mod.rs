//! `cantonscope index …`: the local history index from the shell.
//!
//! - `sync`: fills the index with the engine of [`crate::indexer`] (chunks, the quorum, resume),
//!   its progress on stderr, its outcome as JSON; exit 5 at a divergence, 6 when the scans
//!   needed cannot be had.
//! - `verify`: the stored digests against the scans now, with the same engine.
//! - `status`: the index's bookkeeping as JSON.
//! - `search`: fielded terms over the key tables, newest first, as JSON Lines.
//! - `show`: one kept update, its events parts and the scans that confirmed each.
//! - `prune`: drops the updates recorded before a time.
//! - `compact`: gives back the room prunes and page splits left (SQLite: VACUUM; PostgreSQL:
//!   REINDEX, VACUUM).
//! - `stats`: totals and a daily series computed from the index (its per-day summary).
//! - `rounds`: per mining round, the index's figures beside what each scan serves.
//! - `validators`: every validator ever licensed, the kept history's and the scan's.
//!
//! The store is only reached through [`IndexReader`] and [`IndexWriter`] calls run on a
//! blocking thread ([`Shared`]).
//!
//! ```text
//! mod.rs       dispatch; opening the index; messages and exit codes
//! sync.rs      index sync: the engine driven, its outcome
//! verify.rs    index verify: the engine driven, its report
//! progress.rs  the engine's observer: warnings and progress lines on stderr
//! rounds.rs   index rounds: the per-round summary and each scan's answers
//! validators.rs  index validators: the validators' table and the scan's licences
//! status.rs, search.rs, show.rs, prune.rs (and compact), stats.rs   the other commands
//! ```

mod progress;
mod prune;
mod rounds;
mod search;
mod show;
mod stats;
mod status;
mod sync;
mod validators;
mod verify;

use progress::{ProgressMode, Stderr};
use prune::{compact, prune};
use search::search;
pub use show::SHOW_VIEW;
use show::show;
use stats::stats;
use status::status;
use sync::sync;
pub use validators::INDEX_VALIDATORS;
use verify::verify;

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use super::network::{EXIT_DEGRADED, EXIT_INTERRUPTED, EXIT_NO_QUORUM};
use super::{
    EXIT_CONNECT, EXIT_DECODE, EXIT_OK, EXIT_SERVER, EXIT_USAGE, api_config, error_line, write_text,
};
use crate::cli::{IndexArgs, IndexCommand, ProgressArg, VerifyArg};
use crate::config::Settings;
use crate::every_scan::Cancel;
use crate::indexer::{Failure, Halt, Plan, Shared, Verify, blocking, now_micros};
use crate::model::findings::FindingOp;
use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::index::query::Query;
use crate::model::json_text;
use crate::store::lock::{WriterLock, host_name};
use crate::store::{IndexReader, IndexWriter, Location, StoreError};

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
        StoreError::Interrupted { .. } => EXIT_INTERRUPTED,
        _ => EXIT_USAGE,
    }
}

/// The exit code and message of what stopped the engine.
fn halt_code(halt: &Halt) -> (i32, String) {
    match halt {
        Halt::Failed(failure) => match failure {
            Failure::Usage(m) => (EXIT_USAGE, m.clone()),
            Failure::Server(m) => (EXIT_SERVER, m.clone()),
            Failure::Connect(m) => (EXIT_CONNECT, m.clone()),
            Failure::Decode(m) => (EXIT_DECODE, m.clone()),
            Failure::NoQuorum(m) => (EXIT_NO_QUORUM, m.clone()),
            Failure::Api(e) => (e.exit_code(), error_line(e)),
            Failure::Store(e) => (store_code(e), e.to_string()),
        },
        Halt::Interrupted => (EXIT_INTERRUPTED, "interrupted".to_owned()),
        Halt::Diverged(_, message) => (EXIT_DEGRADED, message.clone()),
    }
}

/// Says on stderr what opening the index did (an older schema migrated).
fn tell_notices(store: &mut dyn IndexReader, err: &mut dyn Write) {
    for notice in store.notices() {
        say(err, &notice);
    }
}

/// Opens an existing index for reading on a blocking thread; what opening it did is said on
/// stderr.
async fn open_reader(
    location: Location,
    err: &mut dyn Write,
) -> Result<Shared<dyn IndexReader>, StoreError> {
    let mut store = blocking(move || crate::store::open_reader(&location)).await?;
    tell_notices(store.as_mut(), err);
    Ok(Shared::new(store))
}

/// Opens the index for writing (without the writer lock) on a blocking thread; what opening it
/// did is said on stderr.
async fn open_writer(
    location: Location,
    err: &mut dyn Write,
) -> Result<Shared<dyn IndexWriter>, StoreError> {
    let mut store = blocking(move || crate::store::open_writer(&location)).await?;
    tell_notices(store.as_mut(), err);
    Ok(Shared::new(store))
}

/// Takes the writer lock and opens the index for writing (see [`crate::store::open_locked`]):
/// the store, and the file lock to keep while writing (PostgreSQL's goes with the store's
/// connection). What opening it did is said on stderr.
async fn open_locked(
    location: Location,
    command: &str,
    since: i64,
    must_exist: bool,
    err: &mut dyn Write,
) -> Result<(Shared<dyn IndexWriter>, Option<WriterLock>), StoreError> {
    let holder = format!(
        "pid {} on {} since {} (cantonscope {command})",
        std::process::id(),
        host_name(),
        format_time_micros(since)
    );
    let mut writer =
        blocking(move || crate::store::open_locked(&location, &holder, must_exist)).await?;
    tell_notices(writer.store.as_mut(), err);
    Ok((Shared::new(writer.store), writer.lock))
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
        IndexCommand::Status { .. } => answer(status(location, err).await, out, err),
        IndexCommand::Show { id } => show(location, id, out, err).await,
        IndexCommand::Stats { daily, from, until } => {
            answer(stats(location, *daily, *from, *until, err).await, out, err)
        }
        IndexCommand::Prune { before } => {
            let Some(micros) = parse_time_micros(before) else {
                say(err, &format!("--before is not a time: {before}"));
                return EXIT_USAGE;
            };
            answer(prune(location, micros, err).await, out, err)
        }
        IndexCommand::Compact => answer(compact(location, cancel, err).await, out, err),
        IndexCommand::Rounds {
            from,
            until,
            party,
            no_scans,
            tree,
            request_rate,
            timeout,
        } => {
            let ask = rounds::RoundsAsk {
                from: *from,
                until: *until,
                party: party.as_deref(),
                no_scans: *no_scans,
                tree: *tree,
                rate: request_rate.unwrap_or(settings.network.request_rate),
                timeout: *timeout,
            };
            rounds::rounds(location, settings, &ask, out, err).await
        }
        IndexCommand::Validators {
            sort,
            no_scan,
            timeout,
        } => {
            validators::validators(location, settings, (*sort, *no_scan, *timeout), out, err).await
        }
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
            let plan = Plan {
                from: from.clone(),
                until: until.as_deref().and_then(parse_time_micros),
                follow: false,
                verify: verify_of(*scans),
                bodies: false,
                events: crate::indexer::EventsMode::Skip,
                page_size: i32::from(walk.page_size),
                chunks: 1,
                rate: walk.request_rate.unwrap_or(settings.network.request_rate),
                timeout: walk.timeout,
            };
            let from = from.as_deref().and_then(parse_time_micros);
            let progress = progress_mode(walk.progress);
            verify(location, settings, &plan, progress, from, out, err, cancel).await
        }
        IndexCommand::Sync {
            from,
            until,
            follow,
            verify,
            no_bodies,
            no_events,
            events,
            walk,
            chunks,
        } => {
            let plan = Plan {
                from: from.clone(),
                until: until.as_deref().and_then(parse_time_micros),
                follow: *follow,
                verify: verify_of(*verify),
                bodies: !*no_bodies,
                events: if *events {
                    crate::indexer::EventsMode::Only
                } else if *no_events {
                    crate::indexer::EventsMode::Skip
                } else {
                    crate::indexer::EventsMode::Keep
                },
                page_size: i32::from(walk.page_size),
                chunks: usize::from(*chunks),
                rate: walk.request_rate.unwrap_or(settings.network.request_rate),
                timeout: walk.timeout,
            };
            let progress = progress_mode(walk.progress);
            let stopped = || terminated.load(Ordering::SeqCst);
            sync(
                location, settings, &plan, progress, out, err, cancel, &stopped,
            )
            .await
        }
    }
}

/// Keeps the diverged histories a sync or verify found with the network's findings (a warning
/// when they cannot be).
fn keep_findings(settings: &Settings, ops: &[FindingOp], err: &mut dyn Write) {
    if ops.is_empty() {
        return;
    }
    let path =
        crate::every_scan::findings::settings_path(settings, settings.data_path().as_deref());
    if let Some(path) = path {
        super::keep_findings(&path, ops, now_micros(), err);
    }
}

/// `--verify` as the engine takes it.
fn verify_of(arg: VerifyArg) -> Verify {
    match arg {
        VerifyArg::Scans(n) => Verify::Scans(n),
        VerifyArg::Quorum => Verify::Quorum,
    }
}

/// Writes a command's answer as JSON, or says why there is none; the exit code.
fn answer(result: Result<Value, StoreError>, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    match result {
        Ok(value) => written(write_pretty(out, &value), err),
        Err(e) => {
            say(err, &e.to_string());
            store_code(&e)
        }
    }
}

/// The exit code of a command whose answer was written (`Err`: why not, said).
fn written(result: Result<(), String>, err: &mut dyn Write) -> i32 {
    match result {
        Ok(()) => EXIT_OK,
        Err(e) => {
            say(err, &e);
            EXIT_USAGE
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
