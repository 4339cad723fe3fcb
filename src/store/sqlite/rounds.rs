//! The per-round summary on SQLite (schema 8, [`crate::store::rounds`]): its tables, the
//! sums a page adds, the uncounted events, the rounds read.

use rusqlite::{OptionalExtension, params};

use super::{SqliteIndex, StoreError, engine_error};
use crate::model::index::rounds::{Contribution, RoundProviders, RoundSums, RoundsDelta};
use crate::store::rounds::{BUILT_KEY, PRUNED_KEY, SQLITE, SummaryRows, counts, cut_of};

/// Schema 8's step: the summary's tables, made when a file is created and by the 7 → 8
/// migration (idempotent); an index without events has its (empty) summary built already.
pub(super) fn rounds_step(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch(
        "
CREATE TABLE IF NOT EXISTS rounds (
    round_number INTEGER PRIMARY KEY,
    updates INTEGER NOT NULL,
    traffic_cost INTEGER NOT NULL,
    records INTEGER NOT NULL,
    weight INTEGER NOT NULL,
    first_time INTEGER,
    last_time INTEGER
);
CREATE TABLE IF NOT EXISTS round_parties (
    round_number INTEGER NOT NULL,
    party TEXT NOT NULL,
    weight INTEGER NOT NULL,
    records INTEGER NOT NULL,
    PRIMARY KEY (round_number, party)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rounds_counted (seq INTEGER PRIMARY KEY);
",
    )?;
    tx.execute(
        "INSERT OR IGNORE INTO meta (key, value) SELECT ?1, '1' WHERE NOT EXISTS (SELECT 1 FROM events)",
        [BUILT_KEY],
    )?;
    Ok(())
}

impl SqliteIndex {
    pub(super) fn write_rounds(
        &mut self,
        rows: &[(String, Contribution)],
    ) -> Result<u64, StoreError> {
        let path = self.path.clone();
        let err = |e: rusqlite::Error| engine_error(&path, &e);
        let tx = self.conn.transaction().map_err(err)?;
        let mut delta = RoundsDelta::default();
        let mut counted = 0;
        {
            let cut = cut_of(
                tx.query_row(&SQLITE.meta_value(), [PRUNED_KEY], |r| r.get(0))
                    .optional()
                    .map_err(err)?,
            );
            let mut seq_of = tx.prepare_cached(&seq_of_sql()).map_err(err)?;
            let mut mark = tx.prepare_cached(&SQLITE.mark()).map_err(err)?;
            for (id, c) in rows {
                let Some((seq, time)) = seq_of
                    .query_row([super::update_ids::stored(id)], |r| {
                        Ok((r.get::<_, i64>(0)?, super::record_times::read(r, 1)?))
                    })
                    .optional()
                    .map_err(err)?
                else {
                    continue;
                };
                // Marked either way; before a prune's cut, counted before the prune.
                if mark.execute([seq]).map_err(err)? == 0 || !counts(cut, time) {
                    continue;
                }
                counted += 1;
                delta.add(c, time);
            }
            let mut round = tx.prepare_cached(&SQLITE.add_round()).map_err(err)?;
            for (n, s) in &delta.rounds {
                round
                    .execute(params![
                        n,
                        s.updates,
                        s.traffic_cost,
                        s.records,
                        s.weight,
                        s.first_time,
                        s.last_time
                    ])
                    .map_err(err)?;
            }
            let mut party = tx.prepare_cached(&SQLITE.add_party()).map_err(err)?;
            for ((n, p), (weight, records)) in &delta.parties {
                party.execute(params![n, p, weight, records]).map_err(err)?;
            }
        }
        tx.commit().map_err(err)?;
        Ok(counted)
    }

    pub(super) fn read_uncounted(
        &mut self,
        after: i64,
        limit: i64,
    ) -> Result<Vec<(i64, String)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&SQLITE.uncounted())
            .map_err(|e| self.engine(&e))?;
        stmt.query_map(params![after, limit], |r| {
            Ok((r.get(0)?, super::update_ids::read(r, 1)?))
        })
        .and_then(Iterator::collect)
        .map_err(|e| engine_error(&self.path, &e))
    }

    pub(super) fn read_rounds(
        &mut self,
        from: i64,
        until: i64,
        party: Option<&str>,
    ) -> Result<SummaryRows, StoreError> {
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(|e| self.engine(&e))?;
        let rounds = tx
            .prepare_cached(&SQLITE.read_rounds())
            .and_then(|mut s| {
                s.query_map(params![from, until], |r| {
                    Ok((
                        r.get(0)?,
                        RoundSums {
                            updates: r.get(1)?,
                            traffic_cost: r.get(2)?,
                            records: r.get(3)?,
                            weight: r.get(4)?,
                            first_time: r.get(5)?,
                            last_time: r.get(6)?,
                        },
                    ))
                })?
                .collect::<Result<Vec<_>, _>>()
            })
            .map_err(|e| engine_error(&self.path, &e))?;
        let mut parties = RoundProviders::default();
        tx.prepare_cached(&SQLITE.read_parties(party.is_some()))
            .and_then(|mut s| {
                let mut rows = match party {
                    Some(p) => s.query(params![from, until, p])?,
                    None => s.query(params![from, until])?,
                };
                while let Some(r) = rows.next()? {
                    let name = r.get_ref(1)?.as_str()?;
                    parties.add(r.get(0)?, name, r.get(2)?, r.get(3)?);
                }
                Ok(())
            })
            .map_err(|e| engine_error(&self.path, &e))?;
        drop(tx);
        Ok((rounds, parties))
    }
}

/// In a prune's transaction, before the updates recorded before `before` go: their marks go
/// (SQLite may give a removed seq to the next update written) and, when some were counted,
/// meta [`PRUNED_KEY`] moves on to `before`.
pub(super) fn prune(tx: &rusqlite::Transaction<'_>, before: i64) -> rusqlite::Result<()> {
    if tx.execute(
        &SQLITE.unmark_before(),
        [super::record_times::stored(before)],
    )? == 0
    {
        return Ok(());
    }
    let cut = cut_of(
        tx.query_row(&SQLITE.meta_value(), [PRUNED_KEY], |r| r.get(0))
            .optional()?,
    );
    let cut = cut.map_or(before, |c| c.max(before));
    tx.execute(&SQLITE.set_meta(), params![PRUNED_KEY, cut.to_string()])?;
    Ok(())
}

/// An update's seq and kept record time by its id (`?1`, its stored form), found through the
/// heads' index ([`super::update_ids::is`]; PostgreSQL's is
/// `crate::store::rounds::Dialect::seq_of`).
pub(super) fn seq_of_sql() -> String {
    format!(
        "SELECT seq, record_time FROM updates WHERE {}",
        super::update_ids::is("update_id", "?1")
    )
}
