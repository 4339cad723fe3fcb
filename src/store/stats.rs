//! `index stats` over the store: the per-day summary (schema 8's `daily_stats` and
//! `daily_actors`, the same on both engines), brought up to date from the kept bodies and
//! events ([`refresh`]) and read for a range ([`read`]).
//!
//! A day is counted anew when the updates (or the updates with events) the index keeps for it
//! are not the ones its summary row counted: new pages, an events backfill, a prune all show
//! there, whichever process wrote them. Each day is written in its own transaction, so a
//! refresh killed half-way keeps the days it finished and the next one counts the rest. A
//! stamp in meta (updates and events: how many, the newest seq) skips the per-day comparison
//! when nothing was written since. The figures themselves are
//! [`crate::model::index::stats`]'s.

use std::collections::HashMap;

use serde::Serialize;

use super::{IndexReader, IndexWriter, KeptUpdate, StoreError};
use crate::model::index::stats::{DayFigures, StatsRow, day_text};

/// The meta key of the stamp the summary was last brought up to date at.
const STAMP_KEY: &str = "stats_stamp";

/// Updates read at once when a day is counted.
const PAGE: usize = 500;

/// The updates of one day the index keeps and how many of them have their events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DayCount {
    pub day: i64,
    pub updates: i64,
    pub events: i64,
}

/// What `index stats` answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexStats {
    /// The first and last day of the range (`YYYY-MM-DD`, UTC); `null` for an empty index.
    pub from: Option<String>,
    pub until: Option<String>,
    /// The whole range: sums, and the distinct active parties and validators of the range.
    pub totals: StatsRow,
    /// Each day of the range that has updates (with `--daily`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days: Option<Vec<StatsRow>>,
    /// The days this call counted anew from the kept bodies (the others were read from the
    /// summary).
    pub days_counted: u64,
}

/// The reads behind `index stats` that every engine answers with its own functions of the
/// same names (`read_stats_stamp`, `read_day_counts`, `read_stats_page`, `read_stats_days`,
/// `read_stats_distinct`), written once for both engines' `impl IndexReader`.
macro_rules! stats_reads {
    () => {
        fn stats_stamp(&mut self) -> Result<String, StoreError> {
            self.read_stats_stamp()
        }

        fn day_counts(&mut self) -> Result<Vec<$crate::store::stats::DayCount>, StoreError> {
            self.read_day_counts()
        }

        fn stats_page(
            &mut self,
            day: i64,
            after: Option<(i64, i64)>,
            limit: usize,
        ) -> Result<Vec<(i64, $crate::store::KeptUpdate)>, StoreError> {
            self.read_stats_page(day, after, limit)
        }

        fn stats_days(
            &mut self,
            from: i64,
            until: i64,
        ) -> Result<Vec<(i64, $crate::model::index::stats::StatsRow)>, StoreError> {
            self.read_stats_days(from, until)
        }

        fn stats_distinct(&mut self, from: i64, until: i64) -> Result<(i64, i64), StoreError> {
            self.read_stats_distinct(from, until)
        }
    };
}
pub(super) use stats_reads;

/// The SQL both engines read the summary with, but for the parameter mark (`?` or `$`).
pub(super) fn days_sql(mark: char) -> String {
    format!(
        "SELECT day, updates, bodies, events, transfers, volume, traffic_cost, vote_requests,
                vote_results, parties, validators
         FROM daily_stats WHERE day >= {mark}1 AND day <= {mark}2 ORDER BY day"
    )
}

/// A summary row of [`days_sql`]'s columns.
#[allow(clippy::too_many_arguments)]
pub(super) fn stored_row(
    day: i64,
    [updates, bodies, events, transfers]: [i64; 4],
    volume: String,
    [
        traffic_cost,
        vote_requests,
        vote_results,
        parties,
        validators,
    ]: [i64; 5],
) -> (i64, StatsRow) {
    (
        day,
        StatsRow {
            day: Some(day_text(day)),
            updates,
            transfers,
            volume,
            active_parties: parties,
            validators,
            vote_requests,
            vote_results,
            traffic_cost,
            updates_with_bodies: bodies,
            updates_with_events: events,
        },
    )
}

/// The SQL of the updates of a day in (record time, seq) order after a key, but for the
/// parameter mark: 1 the day's start, 2 its end (exclusive), 3 and 4 the key, 5 the limit.
pub(super) fn page_sql(mark: char) -> String {
    format!(
        "SELECT seq, update_id, migration_id, record_time, body FROM updates
         WHERE record_time >= {mark}1 AND record_time < {mark}2
           AND (record_time > {mark}3 OR (record_time = {mark}3 AND seq > {mark}4))
         ORDER BY record_time, seq LIMIT {mark}5"
    )
}

/// A row of [`page_sql`]: seq, update id, migration, record time, packed body.
pub(super) type PageRow = (i64, String, i64, i64, Option<Vec<u8>>);

/// The rows of [`page_sql`] with their bodies made text again by `unpack`.
pub(super) fn page_updates(
    rows: Vec<PageRow>,
    mut unpack: impl FnMut(&str, &[u8]) -> Result<String, StoreError>,
) -> Result<Vec<(i64, KeptUpdate)>, StoreError> {
    rows.into_iter()
        .map(|(seq, update_id, migration_id, record_time, body)| {
            let body = body.map(|p| unpack(&update_id, &p)).transpose()?;
            Ok((
                seq,
                KeptUpdate {
                    update_id,
                    migration_id,
                    record_time,
                    body,
                },
            ))
        })
        .collect()
}

/// The SQL of the updates per day and those with events (a day is the record time in µs since
/// 1970 / µs a day: record times are after 1970), `micros` the record time in µs since 1970
/// in SQL (SQLite counts its kept times from an epoch of its own) and `updates` the updates'
/// table as named (SQLite names the index it reads).
pub(super) fn day_counts_sql(micros: &str, updates: &str) -> String {
    format!(
        "SELECT {micros} / 86400000000 AS day, count(*), count(e.seq)
         FROM {updates} LEFT JOIN events e ON e.seq = u.seq GROUP BY 1 ORDER BY 1"
    )
}

/// The SQL of the stamp: the updates and the events kept, how many and the newest seq.
pub(super) const STAMP_SQL: &str =
    "SELECT (SELECT count(*) FROM updates), (SELECT coalesce(max(seq), 0) FROM updates),
            (SELECT count(*) FROM events), (SELECT coalesce(max(seq), 0) FROM events)";

/// The stamp of [`STAMP_SQL`]'s four numbers.
pub(super) fn stamp(numbers: [i64; 4]) -> String {
    format!(
        "{}:{}:{}:{}",
        numbers[0], numbers[1], numbers[2], numbers[3]
    )
}

/// Counts `day` from the kept bodies and events.
fn count_day(store: &mut dyn IndexReader, day: i64) -> Result<DayFigures, StoreError> {
    let mut figures = DayFigures::new(day);
    let mut after = None;
    loop {
        let page: Vec<(i64, KeptUpdate)> = store.stats_page(day, after, PAGE)?;
        for (_, update) in &page {
            let events = store.kept_events(&update.update_id)?;
            figures.count(
                update.body.as_deref(),
                events.as_ref().map(|e| e.traffic_summary.as_deref()),
            );
        }
        match page.last() {
            Some((seq, last)) if page.len() == PAGE => after = Some((last.record_time, *seq)),
            _ => return Ok(figures),
        }
    }
}

/// Brings the summary up to date: every day whose kept updates are not those its row counted
/// is counted anew (one transaction a day). Returns how many days were.
pub fn refresh(store: &mut dyn IndexWriter) -> Result<u64, StoreError> {
    let stamp = store.stats_stamp()?;
    if store.meta_get(STAMP_KEY)?.as_deref() == Some(stamp.as_str()) {
        return Ok(0);
    }
    let kept: HashMap<i64, (i64, i64)> = store
        .stats_days(i64::MIN, i64::MAX)?
        .into_iter()
        .map(|(day, row)| (day, (row.updates, row.updates_with_events)))
        .collect();
    let now = store.day_counts()?;
    let mut dirty: Vec<i64> = now
        .iter()
        .filter(|c| kept.get(&c.day) != Some(&(c.updates, c.events)))
        .map(|c| c.day)
        .collect();
    dirty.extend(
        kept.keys()
            .filter(|day| !now.iter().any(|c| c.day == **day)),
    );
    dirty.sort_unstable();
    for day in &dirty {
        let figures = count_day(store, *day)?;
        store.write_stats_day(&figures)?;
    }
    // Kept only when nothing was written meanwhile (else the next call compares the days).
    if store.stats_stamp()? == stamp {
        store.meta_set(STAMP_KEY, &stamp)?;
    }
    Ok(dirty.len() as u64)
}

/// The summary of the days `from..=until` (`None`: from the first, to the last day kept).
pub fn read(
    store: &mut dyn IndexReader,
    from: Option<i64>,
    until: Option<i64>,
    daily: bool,
) -> Result<IndexStats, StoreError> {
    let rows = store.stats_days(from.unwrap_or(i64::MIN), until.unwrap_or(i64::MAX))?;
    let first = from.or_else(|| rows.first().map(|r| r.0));
    let last = until.or_else(|| rows.last().map(|r| r.0));
    let (parties, validators) = match (first, last) {
        (Some(a), Some(b)) => store.stats_distinct(a, b)?,
        _ => (0, 0),
    };
    let days: Vec<StatsRow> = rows.into_iter().map(|(_, row)| row).collect();
    Ok(IndexStats {
        from: first.map(day_text),
        until: last.map(day_text),
        totals: StatsRow::totals(&days, parties, validators),
        days: daily.then_some(days),
        days_counted: 0,
    })
}

/// The updates per day over the last `days` days up to `today` (oldest first, a day without
/// updates 0): the explorer's sparkline, read from the updates themselves (never stale).
pub fn updates_per_day(
    store: &mut dyn IndexReader,
    today: i64,
    days: usize,
) -> Result<Vec<u64>, StoreError> {
    let counts = store.day_counts()?;
    let start = today - i64::try_from(days).unwrap_or(0) + 1;
    Ok((start..=today)
        .map(|day| {
            counts
                .iter()
                .find(|c| c.day == day)
                .map_or(0, |c| u64::try_from(c.updates).unwrap_or(0))
        })
        .collect())
}
