//! The whole-index search as the user sees it, on every engine: the updates that match and the
//! events with a verdict and no update that do (a rejected request, a wholly private
//! transaction: records of their own, [`super::IndexReader::search_verdict_events`]), merged
//! newest first. What `index search` prints and the explorer's `F` lists.

use super::{IndexReader, SearchRow, StoreError};
use crate::model::format::parse_time_micros;
use crate::model::index::query::Query;

/// The rows `query` finds recorded in `from..=until` (µs, inclusive; `None`: no bound), both
/// kinds merged newest first (migration, then record time; an update before a verdict-only
/// event of the same time), at most `limit`.
pub fn search<S: IndexReader + ?Sized>(
    store: &mut S,
    query: &Query,
    from: Option<i64>,
    until: Option<i64>,
    limit: usize,
) -> Result<Vec<SearchRow>, StoreError> {
    let mut rows = store.search(query, from, until, limit)?;
    rows.extend(store.search_verdict_events(query, from, until, limit)?);
    newest_first(&mut rows);
    rows.truncate(limit);
    Ok(rows)
}

/// How many rows `query` finds recorded in `from..=until`: the updates and the events with a
/// verdict and no update.
pub fn count<S: IndexReader + ?Sized>(
    store: &mut S,
    query: &Query,
    from: Option<i64>,
    until: Option<i64>,
) -> Result<u64, StoreError> {
    let verdict_only = store
        .search_verdict_events(query, from, until, usize::MAX)?
        .len();
    Ok(store.count(query, from, until)? + verdict_only as u64)
}

/// Sorts `rows` newest first (a stable sort: rows of one time keep their order).
pub fn newest_first(rows: &mut [SearchRow]) {
    rows.sort_by_key(|r| std::cmp::Reverse((r.migration_id, parse_time_micros(&r.record_time))));
}
