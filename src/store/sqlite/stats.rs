//! The SQLite side of `index stats` ([`crate::store::stats`]): the summary's reads and a day's
//! write.

use super::{OptionalExtension as _, SqliteIndex, StoreError, engine_error, params};
use crate::model::index::stats::{ACTOR_PARTY, ACTOR_VALIDATOR, DAY_MICROS, DayFigures, StatsRow};
use crate::store::KeptUpdate;
use crate::store::stats::{
    DayCount, STAMP_SQL, day_counts_sql, days_sql, page_sql, stamp, stored_row,
};
use crate::store::stats::{PageRow, page_updates};

/// Schema 8: the per-day summary of `index stats` and each day's distinct names (see
/// [`crate::store`]). Made when a file is created and by the 7 → 8 migration, empty: the first
/// `index stats` fills it.
pub(super) const DAILY_STATS: &str = "
CREATE TABLE IF NOT EXISTS daily_stats (
    day INTEGER PRIMARY KEY,
    updates INTEGER NOT NULL,
    bodies INTEGER NOT NULL,
    events INTEGER NOT NULL,
    transfers INTEGER NOT NULL,
    volume TEXT NOT NULL,
    traffic_cost INTEGER NOT NULL,
    vote_requests INTEGER NOT NULL,
    vote_results INTEGER NOT NULL,
    parties INTEGER NOT NULL,
    validators INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS daily_actors (
    day INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (day, kind, name)
) WITHOUT ROWID;
";

impl SqliteIndex {
    pub(super) fn read_stats_stamp(&mut self) -> Result<String, StoreError> {
        self.conn
            .query_row(STAMP_SQL, [], |r| {
                Ok(stamp([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?]))
            })
            .map_err(|e| self.engine(&e))
    }

    pub(super) fn read_day_counts(&mut self) -> Result<Vec<DayCount>, StoreError> {
        // The time index alone (it holds each update's seq): not the rows with their bodies.
        // The kept time from its epoch: the days follow the index's order.
        let sql = day_counts_sql(
            &format!("(u.record_time + {})", super::record_times::EPOCH),
            "updates u INDEXED BY updates_time",
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.engine(&e))?;
        stmt.query_map([], |r| {
            Ok(DayCount {
                day: r.get(0)?,
                updates: r.get(1)?,
                events: r.get(2)?,
            })
        })
        .and_then(Iterator::collect::<Result<Vec<_>, _>>)
        .map_err(|e| engine_error(&self.path, &e))
    }

    pub(super) fn read_stats_page(
        &mut self,
        day: i64,
        after: Option<(i64, i64)>,
        limit: usize,
    ) -> Result<Vec<(i64, KeptUpdate)>, StoreError> {
        self.in_one_read(|me| me.stats_page(day, after, limit))
    }

    fn stats_page(
        &mut self,
        day: i64,
        after: Option<(i64, i64)>,
        limit: usize,
    ) -> Result<Vec<(i64, KeptUpdate)>, StoreError> {
        let start = day.saturating_mul(DAY_MICROS);
        let (time, seq) = after.unwrap_or((i64::MIN, i64::MIN));
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows: Vec<PageRow> = {
            let mut stmt = self
                .conn
                .prepare_cached(&page_sql('?'))
                .map_err(|e| engine_error(&self.path, &e))?;
            let kept = super::record_times::stored;
            stmt.query_map(
                params![
                    kept(start),
                    kept(start.saturating_add(DAY_MICROS)),
                    kept(time),
                    seq,
                    limit
                ],
                |r| {
                    Ok((
                        r.get(0)?,
                        super::update_ids::read(r, 1)?,
                        r.get(2)?,
                        super::record_times::read(r, 3)?,
                        r.get(4)?,
                    ))
                },
            )
            .and_then(Iterator::collect::<Result<Vec<_>, _>>)
            .map_err(|e| engine_error(&self.path, &e))?
        };
        page_updates(rows, |id, packed| {
            self.unpack(id, packed, super::read::Contracts::Unread)
        })
    }

    pub(super) fn read_stats_days(
        &mut self,
        from: i64,
        until: i64,
    ) -> Result<Vec<(i64, StatsRow)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&days_sql('?'))
            .map_err(|e| engine_error(&self.path, &e))?;
        stmt.query_map(params![from, until], |r| {
            Ok(stored_row(
                r.get(0)?,
                [r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?],
                r.get(5)?,
                [r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?, r.get(10)?],
            ))
        })
        .and_then(Iterator::collect::<Result<Vec<_>, _>>)
        .map_err(|e| engine_error(&self.path, &e))
    }

    pub(super) fn read_stats_distinct(
        &mut self,
        from: i64,
        until: i64,
    ) -> Result<(i64, i64), StoreError> {
        let count = |kind: i64| {
            self.conn
                .query_row(
                    "SELECT count(DISTINCT name) FROM daily_actors
                     WHERE kind = ?1 AND day >= ?2 AND day <= ?3",
                    params![kind, from, until],
                    |r| r.get::<_, i64>(0),
                )
                .optional()
                .map(Option::unwrap_or_default)
                .map_err(|e| self.engine(&e))
        };
        Ok((count(ACTOR_PARTY)?, count(ACTOR_VALIDATOR)?))
    }

    pub(super) fn write_day(&mut self, f: &DayFigures) -> Result<(), StoreError> {
        let path = self.path.clone();
        let e = |e: rusqlite::Error| engine_error(&path, &e);
        let tx = self.conn.transaction().map_err(e)?;
        tx.execute("DELETE FROM daily_stats WHERE day = ?1", [f.day])
            .and_then(|_| tx.execute("DELETE FROM daily_actors WHERE day = ?1", [f.day]))
            .map_err(e)?;
        if f.updates > 0 {
            let row = f.row();
            tx.execute(
                "INSERT INTO daily_stats VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    f.day,
                    row.updates,
                    row.updates_with_bodies,
                    row.updates_with_events,
                    row.transfers,
                    row.volume,
                    row.traffic_cost,
                    row.vote_requests,
                    row.vote_results,
                    row.active_parties,
                    row.validators
                ],
            )
            .map_err(e)?;
            let mut add = tx
                .prepare("INSERT INTO daily_actors VALUES (?1, ?2, ?3)")
                .map_err(e)?;
            for (kind, names) in [(ACTOR_PARTY, &f.parties), (ACTOR_VALIDATOR, &f.validators)] {
                for name in names {
                    add.execute(params![f.day, kind, name]).map_err(e)?;
                }
            }
        }
        tx.commit().map_err(e)?;
        self.after_commit()
    }
}
