//! Reads: the chunks, `index status` with its gaps, bodies, digests, and the explorer's reads
//! (the header's reach and History's pages; short read transactions only).

use super::{
    Chunk, DivergenceRecord, Heartbeat, IndexReach, IndexReader, IndexStatus, KeptUpdate,
    MigrationRange, OptionalExtension, Position, SCHEMA_VERSION, SUMMARY_VERSION, SearchRow,
    SqliteIndex, StoreError, SyncRunning, engine_error, format_time_micros, gaps, params,
};
use crate::store::reads::{DigestRow, RangeBound, RangeRead};
use crate::store::{At, CHUNK_EVENTS_SQL, EventsCoverage, with_events_coverage};

/// What a read of kept bodies does with the contracts a body names by their search terms
/// (schema 15: [`crate::model::index::pack::pack_body_naming_contracts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Contracts {
    /// Each looked up by its term's id and put back: the body as the scan served it.
    PutBack,
    /// Each left as the string `#term<id>`, looked up nowhere: for the readers that count
    /// what a body holds without reading a contract id (`index stats`' days, the validators'
    /// table), which then read a body about as fast as before schema 15.
    Unread,
}

/// The updates after a position (`?1` migration, `?2` µs), the first `?3` in ledger order.
/// The position is one row value, so the index of positions seeks it: the same test written
/// `migration_id > ?1 OR (migration_id = ?1 AND record_time > ?2)` made both engines read
/// every update of the migration before it (a page deep in 1 M updates: PostgreSQL 607 ms
/// where this takes 0.2; SQLite 58 ms where this takes 0.03).
pub(super) const PAGE_AFTER_SQL: &str =
    "SELECT update_id, migration_id, record_time, body FROM updates
     WHERE (migration_id, record_time) > (?1, ?2)
     ORDER BY migration_id, record_time LIMIT ?3";

/// The updates after (`?1`, `?2`) up to (`?3`, `?4`), in ledger order: both bounds row values
/// for the index of positions, as in [`PAGE_AFTER_SQL`].
pub(super) const KEPT_DIGESTS_SQL: &str =
    "SELECT update_id, migration_id, record_time, digest FROM updates
     WHERE (migration_id, record_time) > (?1, ?2) AND (migration_id, record_time) <= (?3, ?4)
     ORDER BY migration_id, record_time, seq";

impl SqliteIndex {
    pub(super) fn chunk_rows(&self) -> Result<Vec<Chunk>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, start_migration, start_time, end_before, cursor_migration, cursor_time,
                        page_start_migration, page_start_time, state, verify, scans, updates
                 FROM chunks ORDER BY id",
            )
            .map_err(|e| self.engine(&e))?;
        let rows = stmt
            .query_map([], |r| {
                let position = |m: Option<i64>, t: Option<String>| match (m, t) {
                    (Some(migration_id), Some(record_time)) => Some(Position {
                        migration_id,
                        record_time,
                    }),
                    _ => None,
                };
                let scans: String = r.get(10)?;
                Ok(Chunk {
                    id: r.get(0)?,
                    start: position(r.get(1)?, r.get(2)?),
                    end_before: r.get(3)?,
                    cursor: position(r.get(4)?, r.get(5)?),
                    page_start: position(r.get(6)?, r.get(7)?),
                    state: r.get(8)?,
                    verify: r.get(9)?,
                    scans: serde_json::from_str(&scans).unwrap_or_default(),
                    updates: r.get(11)?,
                    events: None,
                })
            })
            .map_err(|e| self.engine(&e))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.engine(&e))
    }

    pub(super) fn read_status(&mut self, now: i64) -> Result<IndexStatus, StoreError> {
        let path = self.path.clone();
        let size_bytes = super::migration_room::files_size(&path);
        // One short read transaction for a consistent picture.
        let tx = self
            .conn
            .transaction()
            .map_err(|e| engine_error(&path, &e))?;
        let e = |e: rusqlite::Error| engine_error(&path, &e);
        let (updates, bodies, events): (i64, i64, i64) = tx
            .query_row(
                "SELECT count(*), count(body), (SELECT count(*) FROM events) FROM updates",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map_err(e)?;
        let verdict_events: i64 = tx
            .query_row("SELECT count(*) FROM verdict_events", [], |r| r.get(0))
            .map_err(e)?;
        let migrations = {
            let mut stmt = tx
                .prepare(
                    "SELECT u.migration_id, count(*), min(u.record_time), max(u.record_time),
                            count(e.seq)
                     FROM updates u LEFT JOIN events e ON e.seq = u.seq
                     GROUP BY u.migration_id ORDER BY u.migration_id",
                )
                .map_err(e)?;
            stmt.query_map([], |r| {
                Ok(MigrationRange {
                    migration_id: r.get(0)?,
                    updates: r.get(1)?,
                    first_record_time: format_time_micros(super::record_times::read(r, 2)?),
                    last_record_time: format_time_micros(super::record_times::read(r, 3)?),
                    events: EventsCoverage::of(r.get(1)?, r.get(4)?),
                })
            })
            .map_err(e)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(e)?
        };
        let divergences = {
            let mut stmt = tx
                .prepare(
                    "SELECT update_id, migration_id, record_time, found_at, resolved, detail
                     FROM divergences ORDER BY migration_id, record_time, id",
                )
                .map_err(e)?;
            stmt.query_map([], |r| {
                let detail: String = r.get(5)?;
                Ok(DivergenceRecord {
                    update_id: r.get(0)?,
                    migration_id: r.get(1)?,
                    record_time: r.get(2)?,
                    found_at: r.get(3)?,
                    resolved: r.get(4)?,
                    detail: serde_json::from_str(&detail).unwrap_or_default(),
                })
            })
            .map_err(e)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(e)?
        };
        let heartbeat: Option<Heartbeat> = tx
            .query_row(
                "SELECT pid, host, started_at, beat_at, command FROM sync_heartbeat WHERE id = 1",
                [],
                |r| {
                    Ok(Heartbeat {
                        pid: r.get(0)?,
                        host: r.get(1)?,
                        started_at: r.get(2)?,
                        beat_at: r.get(3)?,
                        command: r.get(4)?,
                    })
                },
            )
            .optional()
            .map_err(e)?;
        let last_sync: Option<String> = tx
            .query_row("SELECT value FROM meta WHERE key = 'last_sync'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(e)?;
        tx.commit().map_err(e)?;
        let mut chunks = self.chunk_rows()?;
        {
            let mut stmt = self
                .conn
                .prepare_cached(CHUNK_EVENTS_SQL)
                .map_err(|e| engine_error(&path, &e))?;
            with_events_coverage(&mut chunks, |after, through| {
                stmt.query_row(
                    params![
                        after.migration_id,
                        super::record_times::stored(after.record_time),
                        through.migration_id,
                        super::record_times::stored(through.record_time)
                    ],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
            })
            .map_err(|e| engine_error(&path, &e))?;
        }
        Ok(IndexStatus {
            location: path.display().to_string(),
            schema_version: SCHEMA_VERSION,
            summary_version: SUMMARY_VERSION,
            network: self.network()?,
            verifications: self.verifications()?,
            updates,
            bodies,
            events,
            verdict_events,
            size_bytes,
            migrations,
            gaps: gaps(&chunks),
            chunks,
            divergences,
            last_sync: last_sync.and_then(|t| serde_json::from_str(&t).ok()),
            sync_running: heartbeat
                .filter(|h| now.saturating_sub(h.beat_at) < crate::store::HEARTBEAT_STALE_MICROS),
        })
    }

    /// One update's body: its row and its contracts' terms read in one read transaction (each
    /// contract's look-up outside one took and released the file's shared lock).
    pub(super) fn read_body(&mut self, update_id: &str) -> Result<Option<String>, StoreError> {
        self.in_one_read(|me| me.body_of(update_id))
    }

    fn body_of(&mut self, update_id: &str) -> Result<Option<String>, StoreError> {
        let body: Option<Option<Vec<u8>>> = self
            .conn
            .query_row(&body_sql(), [super::update_ids::stored(update_id)], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.engine(&e))?;
        let Some(Some(compressed)) = body else {
            return Ok(None);
        };
        self.unpack(update_id, &compressed, Contracts::PutBack)
            .map(Some)
    }

    /// An update's events as kept ([`crate::store::IndexReader::kept_events`]): the parts
    /// unpacked with the index's events dictionaries.
    pub(super) fn read_kept_events(
        &mut self,
        update_id: &str,
    ) -> Result<Option<crate::store::KeptEvents>, StoreError> {
        type Row = (
            String,
            i64,
            Vec<u8>,
            Option<i64>,
            Option<String>,
            Option<i64>,
            Vec<u8>,
        );
        // Cached: `index stats` asks for every update's events.
        let row: Option<Row> = self
            .conn
            .prepare_cached(&kept_events_sql())
            .and_then(|mut stmt| {
                stmt.query_row([super::update_ids::stored(update_id)], |r| {
                    Ok((
                        super::update_ids::read(r, 0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                    ))
                })
                .optional()
            })
            .map_err(|e| self.engine(&e))?;
        let Some((id, served, packed, round, result, group, digest)) = row else {
            // Not an update's: an event with a verdict and no update, perhaps.
            return self.read_kept_verdict_event(update_id);
        };
        if self.event_dictionaries.wants(&packed) {
            let all = self.dictionaries_of("event_dictionaries")?;
            self.event_dictionaries.load(all);
        }
        let shown = self.shown();
        let text = self.event_dictionaries.unpack(&shown, &id, &packed)?;
        crate::store::KeptEvents::from_packed(id, served, &text, (round, result, group), &digest)
            .map(Some)
            .map_err(|detail| StoreError::Corrupt {
                path: shown,
                detail,
            })
    }

    /// An event with a verdict and no update, as [`Self::read_kept_events`] reads an update's.
    fn read_kept_verdict_event(
        &mut self,
        update_id: &str,
    ) -> Result<Option<crate::store::KeptEvents>, StoreError> {
        self.conn
            .prepare_cached(&crate::store::reads::kept_verdict_event_sql('?'))
            .and_then(|mut stmt| stmt.query_row([update_id], kept_events_of).optional())
            .map_err(|e| self.engine(&e))
    }

    /// The kept events with a verdict and no update between two record times, newest first.
    pub(super) fn read_verdict_events(
        &mut self,
        (from, until): (i64, i64),
        having: &crate::store::VerdictHaving<'_>,
        limit: Option<usize>,
    ) -> Result<Vec<crate::store::KeptVerdictEvent>, StoreError> {
        use crate::model::index::query::EventsValue;
        let e = |e: rusqlite::Error| engine_error(&self.path, &e);
        let contains: fn(&str, &str) -> String = |text, part| format!("instr({text}, {part}) > 0");
        let mut stmt = self
            .conn
            .prepare_cached(&crate::store::reads::verdict_events_sql(
                ('?', "+record_time", contains),
                having,
                limit,
            ))
            .map_err(e)?;
        let kept = super::record_times::stored;
        let mut values: Vec<rusqlite::types::Value> = vec![kept(from).into(), kept(until).into()];
        match having.term.map(|t| t.column().1) {
            Some(EventsValue::Text(v)) => values.push(v.to_owned().into()),
            Some(EventsValue::Number(n)) => values.push(n.into()),
            None => {}
        }
        if let Some(text) = &having.mentions {
            values.push(text.clone().into());
        }
        stmt.query_map(rusqlite::params_from_iter(values), |r| {
            Ok(crate::store::KeptVerdictEvent {
                update_id: r.get(0)?,
                at: At::new(r.get(1)?, super::record_times::read(r, 2)?),
                verdict_result: r.get(3)?,
                round_number: r.get(4)?,
                mediator_group: r.get(5)?,
                verdict: r.get(6)?,
            })
        })
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(e)
    }

    /// `read` in one read transaction when none is open: a page of bodies then looks up the
    /// terms its contracts are named by ([`Self::unpack`]) without taking and releasing the
    /// file's shared lock for each one (a lookup a statement of its own took half a bulk read's
    /// time, `index stats`' first run twice as long as at schema 14), and reads its rows and
    /// those terms from one snapshot of the file.
    pub(super) fn in_one_read<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if !self.conn.is_autocommit() {
            return read(self);
        }
        self.conn
            .execute_batch("BEGIN DEFERRED")
            .map_err(|e| self.engine(&e))?;
        let out = read(self);
        // Nothing was written: ending the transaction either way loses nothing.
        let end = self
            .conn
            .execute_batch(if out.is_ok() { "COMMIT" } else { "ROLLBACK" });
        match (out, end) {
            (Ok(value), Ok(())) => Ok(value),
            (Err(e), _) => Err(e),
            (Ok(_), Err(e)) => Err(self.engine(&e)),
        }
    }

    /// A kept body made text again (its own id put back where it names it:
    /// [`crate::model::index::pack::own_id_back`]), the index's dictionaries loaded first when
    /// it names one not loaded yet.
    pub(super) fn unpack(
        &mut self,
        update_id: &str,
        kept: &[u8],
        contracts: Contracts,
    ) -> Result<String, StoreError> {
        use crate::model::index::pack;
        let (named, packed) = pack::named_contracts(kept).map_err(|e| StoreError::Corrupt {
            path: self.shown(),
            detail: format!("the body of {update_id}: {e}"),
        })?;
        if self.dictionaries.wants(packed) {
            let all = self.dictionaries_of("dictionaries")?;
            self.dictionaries.load(all);
        }
        let text = self.dictionaries.unpack(&self.shown(), update_id, packed)?;
        let text = if named.is_empty() {
            text
        } else {
            let contracts = match contracts {
                Contracts::PutBack => self.contract_values(&named)?,
                Contracts::Unread => named.iter().map(|c| format!("#term{}", c.term)).collect(),
            };
            pack::contracts_back(text, &contracts).map_err(|e| StoreError::Corrupt {
                path: self.shown(),
                detail: format!("the body of {update_id}: {e}"),
            })?
        };
        Ok(pack::own_id_back(text, update_id))
    }

    /// The id of each contract `named`: found by its key in the terms' own order (schema 16;
    /// of the terms that start with it, the one of its term's id), its text when the key is
    /// the whole id, or by the term's id alone (a body of schema 15); an error for a term the
    /// index does not have.
    fn contract_values(
        &self,
        named: &[crate::model::index::pack::NamedContract],
    ) -> Result<Vec<String>, StoreError> {
        use crate::model::index::pack::ContractKey;
        let contract = crate::model::index::KeyKind::Contract.code();
        let value = |r: &rusqlite::Row<'_>| -> rusqlite::Result<String> {
            super::term_values::text(r.get_ref(0)?)
                .map(std::borrow::Cow::into_owned)
                .map_err(Into::into)
        };
        named
            .iter()
            .map(|c| {
                let found = match &c.key {
                    Some(ContractKey::Text(text)) => Some(text.clone()),
                    Some(ContractKey::Bytes(start)) => match after_start(start) {
                        Some(end) => self
                            .conn
                            .prepare_cached(
                                "SELECT value FROM terms
                                 WHERE kind = ?1 AND value >= ?2 AND value < ?3 AND id = ?4",
                            )
                            .and_then(|mut s| {
                                s.query_row(params![contract, start, end, c.term], value)
                                    .optional()
                            }),
                        None => self
                            .conn
                            .prepare_cached(
                                "SELECT value FROM terms WHERE kind = ?1 AND value >= ?2 AND id = ?3",
                            )
                            .and_then(|mut s| {
                                s.query_row(params![contract, start, c.term], value).optional()
                            }),
                    }
                    .map_err(|e| self.engine(&e))?,
                    None => self
                        .conn
                        .prepare_cached("SELECT value FROM terms WHERE id = ?1")
                        .and_then(|mut s| s.query_row([c.term], value).optional())
                        .map_err(|e| self.engine(&e))?,
                };
                found.ok_or_else(|| StoreError::Corrupt {
                    path: self.shown(),
                    detail: format!(
                        "a body names the search term {}, which the index does not have",
                        c.term
                    ),
                })
            })
            .collect()
    }

    /// Every dictionary of `table` (`dictionaries`: the bodies'; `event_dictionaries`), by id.
    fn dictionaries_of(&self, table: &str) -> Result<Vec<(i64, Vec<u8>)>, StoreError> {
        self.conn
            .prepare(&format!("SELECT id, dictionary FROM {table}"))
            .and_then(|mut stmt| {
                stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<Vec<(i64, Vec<u8>)>>>()
            })
            .map_err(|e| engine_error(&self.path, &e))
    }

    /// The updates after `after` up to `through` (migration, µs), in ledger order.
    pub(super) fn read_kept_digests(
        &mut self,
        after: (i64, i64),
        through: (i64, i64),
    ) -> Result<Vec<DigestRow>, StoreError> {
        let e = |e: rusqlite::Error| engine_error(&self.path, &e);
        let mut stmt = self.conn.prepare(KEPT_DIGESTS_SQL).map_err(e)?;
        let kept = super::record_times::stored;
        stmt.query_map(
            params![after.0, kept(after.1), through.0, kept(through.1)],
            |r| {
                Ok((
                    super::update_ids::read(r, 0)?,
                    r.get(1)?,
                    super::record_times::read(r, 2)?,
                    r.get(3)?,
                ))
            },
        )
        .map_err(e)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(e)
    }

    pub(super) fn read_digests(&mut self) -> Result<Vec<(String, String)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT update_id, digest FROM updates ORDER BY migration_id, record_time")
            .map_err(|e| self.engine(&e))?;
        stmt.query_map([], |r| {
            let digest: Vec<u8> = r.get(1)?;
            Ok((super::update_ids::read(r, 0)?, hex::encode(digest)))
        })
        .map_err(|e| self.engine(&e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| self.engine(&e))
    }
}

impl SqliteIndex {
    pub(super) fn read_reach(&mut self, now: i64) -> Result<IndexReach, StoreError> {
        let path = self.path.clone();
        let e = |e: rusqlite::Error| engine_error(&path, &e);
        let tx = self.conn.unchecked_transaction().map_err(e)?;
        let (updates, first, last): (i64, Option<i64>, Option<i64>) = tx
            .query_row(
                "SELECT count(*), min(record_time), max(record_time) FROM updates",
                [],
                |r| {
                    Ok((
                        r.get(0)?,
                        super::record_times::read_opt(r, 1)?,
                        super::record_times::read_opt(r, 2)?,
                    ))
                },
            )
            .map_err(e)?;
        let beat: Option<(i64, String, i64)> = tx
            .query_row(
                "SELECT pid, host, beat_at FROM sync_heartbeat WHERE id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(e)?;
        tx.commit().map_err(e)?;
        Ok(IndexReach {
            updates: u64::try_from(updates).unwrap_or(0),
            first,
            last,
            sync_running: beat
                .filter(|(_, _, at)| now.saturating_sub(*at) < crate::store::HEARTBEAT_STALE_MICROS)
                .map(|(pid, host, beat_at)| SyncRunning { pid, host, beat_at }),
            network: None,
            rewritten: None,
            read_ms: 0,
        })
    }

    pub(super) fn read_update_count(&mut self, since: i64, before: i64) -> Result<i64, StoreError> {
        self.count_between(&crate::store::reads::update_count_sql('?'), since, before)
    }

    pub(super) fn read_verdict_only_count(
        &mut self,
        since: i64,
        before: i64,
    ) -> Result<i64, StoreError> {
        let sql = crate::store::reads::verdict_only_count_sql('?');
        self.count_between(&sql, since, before)
    }

    pub(super) fn read_range_count(&mut self, since: i64, before: i64) -> Result<i64, StoreError> {
        self.count_between(&crate::store::reads::range_count_sql('?'), since, before)
    }

    /// The one count `sql` answers for its parameters `since` and `before`.
    fn count_between(&mut self, sql: &str, since: i64, before: i64) -> Result<i64, StoreError> {
        self.conn
            .query_row(
                sql,
                params![
                    super::record_times::stored(since),
                    super::record_times::stored(before)
                ],
                |r| r.get(0),
            )
            .map_err(|e| engine_error(&self.path, &e))
    }

    /// The rows of `read`, in the order its SQL reads them. The time indexes lead: a keyset
    /// read seeks each at the bound's time and sorts only the rows of one record time by
    /// migration and update id; the two sides are merged as they are read.
    pub(super) fn read_range_rows(
        &mut self,
        read: &RangeRead<'_>,
    ) -> Result<Vec<SearchRow>, StoreError> {
        let e = |e: rusqlite::Error| engine_error(&self.path, &e);
        let conn = &self.conn;
        let cache = &mut self.row_cache;
        let mut stmt = conn.prepare_cached(&range_sql(read)).map_err(e)?;
        // An update's parties are its party set's number, named by the reader's copy of the
        // sets; a verdict-only event's column is its verdict.
        let map = |r: &rusqlite::Row<'_>| -> rusqlite::Result<SearchRow> {
            let kind: String = r.get(3)?;
            let verdict_only = kind == crate::store::VERDICT_ONLY_KIND;
            let mut row = crate::store::reads::range_row((
                r.get(0)?,
                r.get(1)?,
                super::record_times::read(r, 2)?,
                kind,
                r.get(4)?,
                if verdict_only { r.get(5)? } else { None },
                r.get(6)?,
                r.get(7)?,
            ));
            if !verdict_only {
                row.parties = cache.parties(conn, r.get(5)?)?.to_vec();
            }
            Ok(row)
        };
        let kept = super::record_times::stored;
        match read.bound {
            RangeBound::Key(record_time, migration_id, update_id) => stmt.query_map(
                params![
                    kept(read.since),
                    read.limit,
                    kept(record_time),
                    migration_id,
                    update_id
                ],
                map,
            ),
            RangeBound::Offset(offset) => {
                stmt.query_map(params![kept(read.since), read.limit, offset], map)
            }
            RangeBound::FromEnd(before, skip) => stmt.query_map(
                params![kept(read.since), read.limit, kept(before), skip],
                map,
            ),
        }
        .map_err(e)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(e)
    }

    pub(super) fn read_page_after(
        &mut self,
        after: Option<At>,
        limit: usize,
    ) -> Result<Vec<KeptUpdate>, StoreError> {
        self.in_one_read(|me| me.page_after(after, limit))
    }

    fn page_after(
        &mut self,
        after: Option<At>,
        limit: usize,
    ) -> Result<Vec<KeptUpdate>, StoreError> {
        let path = self.path.clone();
        let e = |e: rusqlite::Error| engine_error(&path, &e);
        let (migration, time) = after.unwrap_or(At::BEGIN).pair();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut stmt = self.conn.prepare(PAGE_AFTER_SQL).map_err(e)?;
        let rows = stmt
            .query_map(
                params![migration, super::record_times::stored(time), limit],
                |r| {
                    Ok((
                        super::update_ids::read(r, 0)?,
                        r.get::<_, i64>(1)?,
                        super::record_times::read(r, 2)?,
                        r.get::<_, Option<Vec<u8>>>(3)?,
                    ))
                },
            )
            .map_err(e)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(e)?;
        drop(stmt);
        super::super::reads::kept_updates(rows, |id, packed| {
            self.unpack(id, packed, Contracts::PutBack)
        })
    }
}

/// The SQL of `read` as SQLite runs it: the updates' side with their sets
/// ([`super::row_sets`]).
/// An update's body by its id (`?1`, its stored form).
pub(super) fn body_sql() -> String {
    format!(
        "SELECT body FROM updates WHERE {}",
        super::update_ids::is("update_id", "?1")
    )
}

/// An update's kept events by its id (`?1`, its stored form).
pub(super) fn kept_events_sql() -> String {
    format!(
        "SELECT {} FROM updates u JOIN events e ON e.seq = u.seq WHERE {}",
        crate::store::KEPT_EVENTS_COLUMNS,
        super::update_ids::is("u.update_id", "?1")
    )
}

pub(super) fn range_sql(read: &RangeRead<'_>) -> String {
    read.sql.replacen(
        crate::store::reads::RANGE_UPDATES,
        &format!("FROM {} WHERE", super::row_sets::ROWS_FROM),
        1,
    )
}

/// A row of [`crate::store::KEPT_VERDICT_EVENT_COLUMNS`] as
/// [`crate::store::KeptEvents`].
fn kept_events_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<crate::store::KeptEvents> {
    let digest: Vec<u8> = r.get(8)?;
    let scans: String = r.get(9)?;
    Ok(crate::store::KeptEvents::from_columns(
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        (r.get(5)?, r.get(6)?, r.get(7)?),
        &digest,
        &scans,
    )
    .of_verdict_only())
}

/// The first bytes after every value that starts with `start` (its last byte below 0xff raised
/// by one, the 0xff bytes after it dropped); `None` when there are none (all 0xff, or empty).
fn after_start(start: &[u8]) -> Option<Vec<u8>> {
    let last = start.iter().rposition(|b| *b != 0xff)?;
    let mut end = start[..=last].to_vec();
    end[last] += 1;
    Some(end)
}
