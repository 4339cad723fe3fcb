//! `index prune --before TIME`: drops the updates recorded before a time; `index compact`:
//! gives back the room prunes and page splits left.

use super::{Location, Value, Write, format_time_micros, json, now_micros, open_locked, say};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::every_scan::Cancel;
use crate::store::StoreError;

/// Prunes the index before `before` (µs): what was removed, as JSON.
pub(super) async fn prune(
    location: Location,
    before: i64,
    err: &mut dyn Write,
) -> Result<Value, StoreError> {
    let (store, _lock) = open_locked(location, "index prune", now_micros(), true, err).await?;
    let removed = store.call(move |s| s.prune(before)).await?;
    Ok(json!({ "removed": removed, "before": format_time_micros(before) }))
}

/// Compacts the index ([`crate::store::IndexWriter::compact`]): its size before and after and
/// the time it took, as JSON; what it does said on stderr first (at 10 M updates it runs for
/// minutes). Ctrl-C (or SIGTERM) stops it as soon as the engine can, the index as it was.
pub(super) async fn compact(
    location: Location,
    cancel: &Cancel,
    err: &mut dyn Write,
) -> Result<Value, StoreError> {
    let what = match &location {
        Location::Sqlite(_) => {
            "compacting the index: its file written again with its pages full (SQLite's VACUUM); other processes read it meanwhile"
        }
        Location::Postgres(_) => {
            "compacting the index: its tables' indexes built again beside the old ones (REINDEX CONCURRENTLY), then the tables vacuumed; searches go on meanwhile"
        }
    };
    let (store, _lock) = open_locked(location, "index compact", now_micros(), true, err).await?;
    say(err, what);
    let started = std::time::Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let done = {
        let stop_call = Arc::clone(&stop);
        let call = store.call(move |s| s.compact(&stop_call));
        tokio::pin!(call);
        tokio::select! {
            done = &mut call => done,
            () = cancel.cancelled() => {
                stop.store(true, Ordering::SeqCst);
                call.await
            }
        }
    }?;
    if done.log_kept {
        say(
            err,
            "a reader in an older snapshot of the index kept its write-ahead log whole (counted in bytes_after); the next sync's checkpoint after that reader ends cuts it",
        );
    }
    Ok(json!({
        "bytes_before": done.bytes_before,
        "bytes_after": done.bytes_after,
        "log_kept": done.log_kept,
        "seconds": (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
    }))
}
