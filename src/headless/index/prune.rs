//! `index prune --before TIME`: drops the updates recorded before a time; `index compact`:
//! gives back the room prunes and page splits left.

use super::{Location, Value, Write, format_time_micros, json, now_micros, open_locked, say};
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
/// minutes).
pub(super) async fn compact(location: Location, err: &mut dyn Write) -> Result<Value, StoreError> {
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
    let done = store.call(crate::store::IndexWriter::compact).await?;
    Ok(json!({
        "bytes_before": done.bytes_before,
        "bytes_after": done.bytes_after,
        "seconds": (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
    }))
}
