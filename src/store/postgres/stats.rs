//! The PostgreSQL side of `index stats` ([`crate::store::stats`]): the summary's reads and a
//! day's write.

use super::{PgIndex, StoreError};
use crate::model::index::stats::{ACTOR_PARTY, ACTOR_VALIDATOR, DAY_MICROS, DayFigures, StatsRow};
use crate::store::KeptUpdate;
use crate::store::stats::{
    DayCount, STAMP_SQL, day_counts_sql, days_sql, page_sql, stamp, stored_row,
};
use crate::store::stats::{PageRow, page_updates};

/// Schema 8: the per-day summary of `index stats` and each day's distinct names (see
/// [`crate::store`]). Made with the other tables when a database is opened for writing (an
/// index of schema 7 gets it empty: the first `index stats` fills it).
pub(super) const DAILY_STATS: &str = r#"
CREATE TABLE IF NOT EXISTS daily_stats (
    day BIGINT PRIMARY KEY,
    updates BIGINT NOT NULL,
    bodies BIGINT NOT NULL,
    events BIGINT NOT NULL,
    transfers BIGINT NOT NULL,
    volume TEXT NOT NULL,
    traffic_cost BIGINT NOT NULL,
    vote_requests BIGINT NOT NULL,
    vote_results BIGINT NOT NULL,
    parties BIGINT NOT NULL,
    validators BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS daily_actors (
    day BIGINT NOT NULL,
    kind BIGINT NOT NULL,
    name TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (day, kind, name)
);
"#;

impl PgIndex {
    pub(super) fn read_stats_stamp(&mut self) -> Result<String, StoreError> {
        let r = self.with(|c| c.query_one(STAMP_SQL, &[]))?;
        Ok(stamp([r.get(0), r.get(1), r.get(2), r.get(3)]))
    }

    pub(super) fn read_day_counts(&mut self) -> Result<Vec<DayCount>, StoreError> {
        let rows = self.with(|c| c.query(&day_counts_sql("u.record_time", "updates u"), &[]))?;
        Ok(rows
            .iter()
            .map(|r| DayCount {
                day: r.get(0),
                updates: r.get(1),
                events: r.get(2),
            })
            .collect())
    }

    pub(super) fn read_stats_page(
        &mut self,
        day: i64,
        after: Option<(i64, i64)>,
        limit: usize,
    ) -> Result<Vec<(i64, KeptUpdate)>, StoreError> {
        let start = day.saturating_mul(DAY_MICROS);
        let end = start.saturating_add(DAY_MICROS);
        let (time, seq) = after.unwrap_or((i64::MIN, i64::MIN));
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows: Vec<PageRow> = self.with(|c| {
            Ok(
                c.query(&page_sql('$'), &[&start, &end, &time, &seq, &limit])?
                    .iter()
                    .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
                    .collect(),
            )
        })?;
        page_updates(rows, |id, packed| self.unpack(id, packed))
    }

    pub(super) fn read_stats_days(
        &mut self,
        from: i64,
        until: i64,
    ) -> Result<Vec<(i64, StatsRow)>, StoreError> {
        let rows = self.with(|c| c.query(&days_sql('$'), &[&from, &until]))?;
        Ok(rows
            .iter()
            .map(|r| {
                stored_row(
                    r.get(0),
                    [r.get(1), r.get(2), r.get(3), r.get(4)],
                    r.get(5),
                    [r.get(6), r.get(7), r.get(8), r.get(9), r.get(10)],
                )
            })
            .collect())
    }

    pub(super) fn read_stats_distinct(
        &mut self,
        from: i64,
        until: i64,
    ) -> Result<(i64, i64), StoreError> {
        let mut count = |kind: i64| -> Result<i64, StoreError> {
            self.with(|c| {
                c.query_one(
                    "SELECT count(DISTINCT name) FROM daily_actors
                     WHERE kind = $1 AND day >= $2 AND day <= $3",
                    &[&kind, &from, &until],
                )
                .map(|r| r.get(0))
            })
        };
        Ok((count(ACTOR_PARTY)?, count(ACTOR_VALIDATOR)?))
    }

    pub(super) fn write_day(&mut self, f: &DayFigures) -> Result<(), StoreError> {
        let row = f.row();
        self.with(|c| {
            let mut tx = c.transaction()?;
            tx.execute("DELETE FROM daily_stats WHERE day = $1", &[&f.day])?;
            tx.execute("DELETE FROM daily_actors WHERE day = $1", &[&f.day])?;
            if f.updates > 0 {
                tx.execute(
                    "INSERT INTO daily_stats VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                    &[
                        &f.day,
                        &row.updates,
                        &row.updates_with_bodies,
                        &row.updates_with_events,
                        &row.transfers,
                        &row.volume,
                        &row.traffic_cost,
                        &row.vote_requests,
                        &row.vote_results,
                        &row.active_parties,
                        &row.validators,
                    ],
                )?;
                let add = tx.prepare("INSERT INTO daily_actors VALUES ($1, $2, $3)")?;
                for (kind, names) in [(ACTOR_PARTY, &f.parties), (ACTOR_VALIDATOR, &f.validators)] {
                    for name in names {
                        tx.execute(&add, &[&f.day, &kind, name])?;
                    }
                }
            }
            tx.commit()
        })
    }
}
