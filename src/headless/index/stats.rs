//! `index stats`: the per-day summary brought up to date (written beside a running sync: it
//! touches only its own tables), then read for the range.

use super::{Location, Value, Write, blocking, open_writer, say};
use crate::store::StoreError;

pub(super) async fn stats(
    location: Location,
    daily: bool,
    from: Option<i64>,
    until: Option<i64>,
    err: &mut dyn Write,
) -> Result<Value, StoreError> {
    must_exist(&location).await?;
    let store = open_writer(location, err).await?;
    let started = std::time::Instant::now();
    let counted = store
        .call(|s| crate::store::stats::refresh(&mut *s))
        .await?;
    if counted > 0 {
        say(
            err,
            &format!(
                "counted {counted} days from the kept updates in {:.1} s (kept in the index: later runs count only the days written since)",
                started.elapsed().as_secs_f64()
            ),
        );
    }
    let mut answer = store
        .call(move |s| crate::store::stats::read(s, from, until, daily))
        .await?;
    answer.days_counted = counted;
    Ok(serde_json::to_value(&answer).unwrap_or(Value::Null))
}

/// Refuses an index that does not exist (opening it for writing would create it); one of an
/// older schema is migrated by the writer.
async fn must_exist(location: &Location) -> Result<(), StoreError> {
    match location {
        Location::Sqlite(path) if !path.exists() => Err(StoreError::Missing(location.describe())),
        Location::Sqlite(_) => Ok(()),
        Location::Postgres(_) => {
            let location = location.clone();
            match blocking(move || crate::store::open_reader(&location).map(drop)).await {
                Err(StoreError::OlderSchema { .. }) | Ok(()) => Ok(()),
                Err(e) => Err(e),
            }
        }
    }
}
