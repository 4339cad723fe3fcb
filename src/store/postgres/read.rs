//! Reads: `index status`, bodies, digests, and the explorer's reads (the header's reach and
//! History's pages).

use super::{
    Client, DivergenceRecord, HEARTBEAT_STALE_MICROS, IndexReach, IndexReader, IndexStatus,
    KeptUpdate, MigrationRange, PgIndex, SCHEMA_VERSION, SUMMARY_VERSION, SearchRow, StoreError,
    SyncRunning, chunk_rows, closed, format_time_micros,
};
use crate::store::reads::{DigestRow, RangeBound, RangeRead};
use crate::store::{At, CHUNK_EVENTS_SQL, EventsCoverage, with_events_coverage};

/// The updates after a position (`$1` migration, `$2` µs), the first `$3` in ledger order.
/// The position is one row value, so the index of positions seeks it: the same test written
/// `migration_id > $1 OR (migration_id = $1 AND record_time > $2)` made both engines read
/// every update of the migration before it (a page deep in 1 M updates: PostgreSQL 607 ms
/// where this takes 0.2; SQLite 58 ms where this takes 0.03).
pub const PAGE_AFTER_SQL: &str = "SELECT update_id, migration_id, record_time, body FROM updates
     WHERE (migration_id, record_time) > ($1, $2)
     ORDER BY migration_id, record_time LIMIT $3";

/// The updates after (`$1`, `$2`) up to (`$3`, `$4`), in ledger order: both bounds row values
/// for the index of positions, as in [`PAGE_AFTER_SQL`].
pub const KEPT_DIGESTS_SQL: &str =
    "SELECT update_id, migration_id, record_time, digest FROM updates
     WHERE (migration_id, record_time) > ($1, $2) AND (migration_id, record_time) <= ($3, $4)
     ORDER BY migration_id, record_time, seq";

/// The SQL of a page of History's list read `from` as PostgreSQL runs it
/// ([`crate::store::IndexReader::range_rows`]); its parameters: `since` (µs), the page's length,
/// then `from`'s (as [`RangeRead`] says).
pub fn range_sql(from: &crate::model::index::read::RangeFrom) -> String {
    RangeRead::new(
        0,
        from,
        0,
        '$',
        " COLLATE \"C\"",
        ("update_id", "parties"),
        true,
    )
    .sql
}

impl PgIndex {
    pub(super) fn read_update_count(&mut self, since: i64, before: i64) -> Result<i64, StoreError> {
        self.count_between(&crate::store::reads::update_count_sql('$'), since, before)
    }

    pub(super) fn read_verdict_only_count(
        &mut self,
        since: i64,
        before: i64,
    ) -> Result<i64, StoreError> {
        let sql = crate::store::reads::verdict_only_count_sql('$');
        self.count_between(&sql, since, before)
    }

    pub(super) fn read_range_count(&mut self, since: i64, before: i64) -> Result<i64, StoreError> {
        self.count_between(&crate::store::reads::range_count_sql('$'), since, before)
    }

    /// The one count `sql` answers for its parameters `since` and `before`.
    fn count_between(&mut self, sql: &str, since: i64, before: i64) -> Result<i64, StoreError> {
        self.with(|c| Ok(c.query_one(sql, &[&since, &before])?.get(0)))
    }

    /// The rows of `read`, in the order its SQL reads them.
    pub(super) fn read_range_rows(
        &mut self,
        read: &RangeRead<'_>,
    ) -> Result<Vec<SearchRow>, StoreError> {
        self.with(|c| {
            let found = match read.bound {
                RangeBound::Key(record_time, migration_id, update_id) => c.query(
                    &read.sql,
                    &[
                        &read.since,
                        &read.limit,
                        &record_time,
                        &migration_id,
                        &update_id,
                    ],
                )?,
                RangeBound::Offset(offset) => {
                    c.query(&read.sql, &[&read.since, &read.limit, &offset])?
                }
                RangeBound::FromEnd(before, skip) => {
                    c.query(&read.sql, &[&read.since, &read.limit, &before, &skip])?
                }
            };
            Ok(found
                .iter()
                .map(|r| {
                    crate::store::reads::range_row((
                        r.get(0),
                        r.get(1),
                        r.get(2),
                        r.get(3),
                        r.get(4),
                        r.get(5),
                        r.get(6),
                        r.get(7),
                    ))
                })
                .collect())
        })
    }

    pub(super) fn read_status(&mut self, now: i64) -> Result<IndexStatus, StoreError> {
        let network = self.network()?;
        let verifications = self.verifications()?;
        let shown = self.target.shown.clone();
        let target = &self.target;
        let client = self.client.as_mut().ok_or_else(|| closed(target))?;
        // One read-only snapshot for a consistent picture.
        let run = |c: &mut Client| -> Result<_, postgres::Error> {
            let mut tx = super::snapshot(c)?;
            let size: i64 = tx.query_one(&super::schema::size_sql(), &[])?.get(0);
            let counts = tx.query_one(
                "SELECT count(*), count(body), (SELECT count(*) FROM events) FROM updates",
                &[],
            )?;
            let (updates, bodies, events): (i64, i64, i64) =
                (counts.get(0), counts.get(1), counts.get(2));
            let verdict_events: i64 = tx
                .query_one("SELECT count(*) FROM verdict_events", &[])?
                .get(0);
            let migrations = tx
                .query(
                    "SELECT u.migration_id, count(*), min(u.record_time), max(u.record_time),
                            count(e.seq)
                     FROM updates u LEFT JOIN events e ON e.seq = u.seq
                     GROUP BY u.migration_id ORDER BY u.migration_id",
                    &[],
                )?
                .iter()
                .map(|r| MigrationRange {
                    migration_id: r.get(0),
                    updates: r.get(1),
                    first_record_time: format_time_micros(r.get(2)),
                    last_record_time: format_time_micros(r.get(3)),
                    events: EventsCoverage::of(r.get(1), r.get(4)),
                })
                .collect::<Vec<_>>();
            let divergences = tx
                .query(
                    "SELECT update_id, migration_id, record_time, found_at, resolved, detail
                     FROM divergences ORDER BY migration_id, record_time, id",
                    &[],
                )?
                .iter()
                .map(|r| {
                    let detail: String = r.get(5);
                    DivergenceRecord {
                        update_id: r.get(0),
                        migration_id: r.get(1),
                        record_time: r.get(2),
                        found_at: r.get(3),
                        resolved: r.get(4),
                        detail: serde_json::from_str(&detail).unwrap_or_default(),
                    }
                })
                .collect::<Vec<_>>();
            let heartbeat = tx
                .query_opt(super::HEARTBEAT_SQL, &[])?
                .map(|r| super::heartbeat_of(&r));
            let last_sync: Option<String> = tx
                .query_opt("SELECT value FROM meta WHERE key = 'last_sync'", &[])?
                .map(|r| r.get(0));
            let mut chunks = chunk_rows(&mut tx)?;
            let chunk_events = tx.prepare(CHUNK_EVENTS_SQL)?;
            with_events_coverage(&mut chunks, |after, through| {
                tx.query_one(
                    &chunk_events,
                    &[
                        &after.migration_id,
                        &after.record_time,
                        &through.migration_id,
                        &through.record_time,
                    ],
                )
                .map(|r| (r.get(0), r.get(1)))
            })?;
            tx.commit()?;
            Ok(IndexStatus {
                location: shown,
                schema_version: SCHEMA_VERSION,
                summary_version: SUMMARY_VERSION,
                network,
                verifications,
                updates,
                bodies,
                events,
                verdict_events,
                size_bytes: u64::try_from(size).unwrap_or(0),
                migrations,
                gaps: crate::store::gaps(&chunks),
                chunks,
                divergences,
                last_sync: last_sync.and_then(|t| serde_json::from_str(&t).ok()),
                sync_running: heartbeat
                    .filter(|h| now.saturating_sub(h.beat_at) < super::HEARTBEAT_STALE_MICROS),
            })
        };
        run(client).map_err(|e| target.error(&e))
    }

    pub(super) fn read_reach(&mut self, now: i64) -> Result<IndexReach, StoreError> {
        let (updates, first, last, beat) = self.with(|c| {
            // One short read transaction: the count and the heartbeat as of one moment.
            let mut tx = c.transaction()?;
            let r = tx.query_one(
                "SELECT count(*), min(record_time), max(record_time) FROM updates",
                &[],
            )?;
            let beat: Option<(i64, String, i64)> = tx
                .query_opt(
                    "SELECT pid, host, beat_at FROM sync_heartbeat WHERE id = 1",
                    &[],
                )?
                .map(|b| (b.get(0), b.get(1), b.get(2)));
            tx.commit()?;
            Ok((
                r.get::<_, i64>(0),
                r.get::<_, Option<i64>>(1),
                r.get::<_, Option<i64>>(2),
                beat,
            ))
        })?;
        Ok(IndexReach {
            updates: u64::try_from(updates).unwrap_or(0),
            first,
            last,
            sync_running: beat
                .filter(|(_, _, at)| now.saturating_sub(*at) < HEARTBEAT_STALE_MICROS)
                .map(|(pid, host, beat_at)| SyncRunning { pid, host, beat_at }),
            network: None,
            rewritten: None,
            read_ms: 0,
        })
    }

    pub(super) fn read_page_after(
        &mut self,
        after: Option<At>,
        limit: usize,
    ) -> Result<Vec<KeptUpdate>, StoreError> {
        let (migration, time) = after.unwrap_or(At::BEGIN).pair();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows: Vec<(String, i64, i64, Option<Vec<u8>>)> = self.with(|c| {
            Ok(c.query(PAGE_AFTER_SQL, &[&migration, &time, &limit])?
                .iter()
                .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
                .collect())
        })?;
        super::super::reads::kept_updates(rows, |id, packed| self.unpack(id, packed))
    }

    pub(super) fn read_body(&mut self, update_id: &str) -> Result<Option<String>, StoreError> {
        let body: Option<Option<Vec<u8>>> = self.with(|c| {
            c.query_opt(
                "SELECT body FROM updates WHERE update_id = $1",
                &[&update_id],
            )
            .map(|r| r.map(|r| r.get(0)))
        })?;
        let Some(Some(compressed)) = body else {
            return Ok(None);
        };
        self.unpack(update_id, &compressed).map(Some)
    }

    /// An update's events as kept ([`crate::store::IndexReader::kept_events`]): the parts
    /// unpacked with the index's events dictionaries.
    pub(super) fn read_kept_events(
        &mut self,
        update_id: &str,
    ) -> Result<Option<crate::store::KeptEvents>, StoreError> {
        let row = self.with(|c| {
            c.query_opt(
                &format!(
                    "SELECT {} FROM updates u JOIN events e ON e.seq = u.seq WHERE u.update_id = $1",
                    crate::store::KEPT_EVENTS_COLUMNS
                ),
                &[&update_id],
            )
        })?;
        let Some(r) = row else {
            // Not an update's: an event with a verdict and no update, perhaps.
            let row = self.with(|c| {
                c.query_opt(
                    &crate::store::reads::kept_verdict_event_sql('$'),
                    &[&update_id],
                )
            })?;
            return Ok(row.map(|r| {
                let digest: Vec<u8> = r.get(8);
                let scans: String = r.get(9);
                crate::store::KeptEvents::from_columns(
                    r.get(0),
                    r.get(1),
                    r.get(2),
                    r.get(3),
                    r.get(4),
                    (r.get(5), r.get(6), r.get(7)),
                    &digest,
                    &scans,
                )
                .of_verdict_only()
            }));
        };
        let packed: Vec<u8> = r.get(2);
        if self.event_dictionaries.wants(&packed) {
            let all: Vec<(i64, Vec<u8>)> = self.with(|c| {
                Ok(
                    c.query("SELECT id, dictionary FROM event_dictionaries", &[])?
                        .iter()
                        .map(|r| (r.get(0), r.get(1)))
                        .collect(),
                )
            })?;
            self.event_dictionaries.load(all);
        }
        let id: String = r.get(0);
        let text = self
            .event_dictionaries
            .unpack(&self.target.shown, &id, &packed)?;
        let digest: Vec<u8> = r.get(6);
        crate::store::KeptEvents::from_packed(
            id,
            r.get(1),
            &text,
            (r.get(3), r.get(4), r.get(5)),
            &digest,
        )
        .map(Some)
        .map_err(|detail| StoreError::Corrupt {
            path: self.target.shown.clone(),
            detail,
        })
    }

    /// The kept events with a verdict and no update between two record times, newest first.
    pub(super) fn read_verdict_events(
        &mut self,
        (from, until): (i64, i64),
        having: &crate::store::VerdictHaving<'_>,
        limit: Option<usize>,
    ) -> Result<Vec<crate::store::KeptVerdictEvent>, StoreError> {
        use crate::model::index::query::EventsValue;
        use postgres::types::ToSql;
        let contains: fn(&str, &str) -> String = |text, part| format!("strpos({text}, {part}) > 0");
        let sql =
            crate::store::reads::verdict_events_sql(('$', "record_time", contains), having, limit);
        let value = having.term.map(|t| t.column().1);
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&from, &until];
        match &value {
            Some(EventsValue::Text(v)) => params.push(v),
            Some(EventsValue::Number(n)) => params.push(n),
            None => {}
        }
        if let Some(m) = &having.mentions {
            params.push(m);
        }
        let rows = self.with(|c| c.query(&sql, &params))?;
        Ok(rows
            .iter()
            .map(|r| crate::store::KeptVerdictEvent {
                update_id: r.get(0),
                at: crate::store::At::new(r.get(1), r.get(2)),
                verdict_result: r.get(3),
                round_number: r.get(4),
                mediator_group: r.get(5),
                verdict: r.get(6),
            })
            .collect())
    }

    /// A kept body made text again (its own id put back where it names it:
    /// [`crate::model::index::pack::own_id_back`]), the index's dictionaries loaded first when
    /// it names one not loaded yet.
    pub(super) fn unpack(&mut self, update_id: &str, packed: &[u8]) -> Result<String, StoreError> {
        if self.dictionaries.wants(packed) {
            let all: Vec<(i64, Vec<u8>)> = self.with(|c| {
                Ok(c.query("SELECT id, dictionary FROM dictionaries", &[])?
                    .iter()
                    .map(|r| (r.get(0), r.get(1)))
                    .collect())
            })?;
            self.dictionaries.load(all);
        }
        self.dictionaries
            .unpack(&self.target.shown, update_id, packed)
            .map(|text| crate::model::index::pack::own_id_back(text, update_id))
    }

    /// The updates after `after` up to `through` (migration, µs), in ledger order.
    pub(super) fn read_kept_digests(
        &mut self,
        after: (i64, i64),
        through: (i64, i64),
    ) -> Result<Vec<DigestRow>, StoreError> {
        self.with(|c| {
            Ok(c.query(
                KEPT_DIGESTS_SQL,
                &[&after.0, &after.1, &through.0, &through.1],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect())
        })
    }

    pub(super) fn read_digests(&mut self) -> Result<Vec<(String, String)>, StoreError> {
        self.with(|c| {
            c.query(
                "SELECT update_id, digest FROM updates ORDER BY migration_id, record_time, seq",
                &[],
            )
        })
        .map(|rows| {
            rows.iter()
                .map(|r| {
                    let digest: Vec<u8> = r.get(1);
                    (r.get(0), hex::encode(digest))
                })
                .collect()
        })
    }
}
