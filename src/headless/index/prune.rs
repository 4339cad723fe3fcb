//! `index prune --before TIME`: drops the updates recorded before a time.

use super::{Location, Value, Write, format_time_micros, json, now_micros, open_locked};
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
