//! The validators' table on SQLite (schema 9, [`crate::store::validators`]): made, added to,
//! read; the kept bodies it is counted from.

use rusqlite::{OptionalExtension, params};

use super::{SqliteIndex, StoreError, engine_error};
use crate::model::index::validators::ValidatorsDelta;
use crate::store::validators::{
    KeptValidators, NEWEST_ROUND_SQL, PROVIDERS_SQL, PRUNED_KEY, READ_SQL, SEQ_KEY, Written,
    add_sql, bodies_of, bodies_sql, counted_before_sql, create_sql, cut_after, sums_of, through_of,
    written_sql,
};

/// In a prune's transaction, before the updates recorded before `before` go: when some of them
/// were counted, meta [`PRUNED_KEY`] moves on to `before` (the range synced again is not
/// counted twice).
pub(super) fn prune(tx: &rusqlite::Transaction<'_>, before: i64) -> rusqlite::Result<()> {
    let meta = |key: &str| -> rusqlite::Result<Option<String>> {
        tx.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
    };
    let through = through_of(meta(SEQ_KEY)?);
    let counted: bool = tx.query_row(
        &counted_before_sql('?'),
        params![super::record_times::stored(before), through],
        |r| r.get(0),
    )?;
    if counted {
        let cut = cut_after(meta(PRUNED_KEY)?, before);
        tx.execute(SET_META, params![PRUNED_KEY, cut])?;
    }
    Ok(())
}

/// After a prune's deletions: SQLite gives the next update written the seq after the newest
/// kept, which a removed one may have held, so the seq counted through goes down to it.
pub(super) fn after_prune(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute(
        "UPDATE meta SET value = CAST(min(CAST(value AS INTEGER),
             (SELECT coalesce(max(seq), 0) FROM updates)) AS TEXT) WHERE key = ?1",
        [SEQ_KEY],
    )?;
    Ok(())
}

const SET_META: &str = "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value";

/// Schema 9's step: the table, made when a file is created and by the 8 → 9 migration
/// (counted from the kept bodies when a writer opens it next).
pub(super) fn validators_step(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch(&create_sql("INTEGER"))
}

impl SqliteIndex {
    pub(super) fn read_bodies_after(
        &mut self,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(i64, i64, Option<String>)>, StoreError> {
        self.in_one_read(|me| me.bodies_after(after, limit))
    }

    fn bodies_after(
        &mut self,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(i64, i64, Option<String>)>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows: Vec<(i64, String, i64, Option<Vec<u8>>)> = self
            .conn
            .prepare_cached(&bodies_sql('?'))
            .and_then(|mut s| {
                s.query_map(params![after, limit], |r| {
                    Ok((
                        r.get(0)?,
                        super::update_ids::read(r, 1)?,
                        super::record_times::read(r, 2)?,
                        r.get(3)?,
                    ))
                })?
                .collect()
            })
            .map_err(|e| engine_error(&self.path, &e))?;
        bodies_of(rows, |id, packed| {
            self.unpack(id, packed, super::read::Contracts::Unread)
        })
    }

    pub(super) fn read_written_after(
        &mut self,
        after: i64,
        limit: usize,
    ) -> Result<Vec<Written>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.conn
            .prepare_cached(&written_sql('?'))
            .and_then(|mut s| {
                s.query_map(params![after, limit], |r| {
                    Ok(Written {
                        seq: r.get(0)?,
                        record_time: super::record_times::read(r, 1)?,
                        digest: r.get(2)?,
                        body: r.get(3)?,
                    })
                })?
                .collect()
            })
            .map_err(|e| engine_error(&self.path, &e))
    }

    pub(super) fn read_kept_validators(&mut self) -> Result<KeptValidators, StoreError> {
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(|e| self.engine(&e))?;
        let err = |e: rusqlite::Error| engine_error(&self.path, &e);
        let rows = tx
            .prepare_cached(READ_SQL)
            .and_then(|mut s| {
                s.query_map([], |r| {
                    Ok(sums_of(
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                    ))
                })?
                .collect()
            })
            .map_err(err)?;
        let newest_round = tx
            .query_row(NEWEST_ROUND_SQL, [], |r| r.get(0))
            .map_err(err)?;
        let providers = tx
            .prepare_cached(PROVIDERS_SQL)
            .and_then(|mut s| {
                s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                    .collect()
            })
            .map_err(err)?;
        let through: Option<String> = tx
            .query_row("SELECT value FROM meta WHERE key = ?1", [SEQ_KEY], |r| {
                r.get(0)
            })
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .map_err(err)?;
        drop(tx);
        Ok(KeptValidators {
            rows,
            through: through_of(through),
            newest_round,
            providers,
        })
    }

    pub(super) fn write_validators(
        &mut self,
        delta: &ValidatorsDelta,
        through: i64,
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let err = |e: rusqlite::Error| engine_error(&path, &e);
        let tx = self.conn.transaction().map_err(err)?;
        {
            let mut add = tx
                .prepare_cached(&add_sql('?', "min", "max"))
                .map_err(err)?;
            for (v, s) in &delta.validators {
                add.execute(params![
                    v,
                    s.first_licensed,
                    s.licenses,
                    s.last_time,
                    s.last_round,
                    s.activities
                ])
                .map_err(err)?;
            }
        }
        tx.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![SEQ_KEY, through.to_string()],
        )
        .map_err(err)?;
        tx.commit().map_err(err)
    }
}
