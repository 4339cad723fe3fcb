//! The per-round summary on PostgreSQL (schema 8, [`crate::store::rounds`]): its tables, the
//! sums a page adds, the uncounted events, the rounds read.

use postgres::GenericClient;

use super::{PgIndex, StoreError};
use crate::model::index::rounds::{Contribution, RoundProviders, RoundSums, RoundsDelta};
use crate::store::rounds::{BUILT_KEY, POSTGRES, PRUNED_KEY, SummaryRows, counts, cut_of};

/// Schema 8's step: the summary's tables, made when a database is created and by the 7 → 8
/// migration (idempotent); an index without events has its (empty) summary built already.
pub(super) fn rounds_step(c: &mut impl GenericClient) -> Result<(), postgres::Error> {
    c.batch_execute(
        "
CREATE TABLE IF NOT EXISTS rounds (
    round_number BIGINT PRIMARY KEY,
    updates BIGINT NOT NULL,
    traffic_cost BIGINT NOT NULL,
    records BIGINT NOT NULL,
    weight BIGINT NOT NULL,
    first_time BIGINT,
    last_time BIGINT
);
CREATE TABLE IF NOT EXISTS round_parties (
    round_number BIGINT NOT NULL,
    party TEXT NOT NULL,
    weight BIGINT NOT NULL,
    records BIGINT NOT NULL,
    PRIMARY KEY (round_number, party)
);
CREATE TABLE IF NOT EXISTS rounds_counted (seq BIGINT PRIMARY KEY);
",
    )?;
    c.execute(
        "INSERT INTO meta (key, value) SELECT $1, '1' WHERE NOT EXISTS (SELECT 1 FROM events)
         ON CONFLICT (key) DO NOTHING",
        &[&BUILT_KEY],
    )?;
    Ok(())
}

impl PgIndex {
    pub(super) fn write_rounds(
        &mut self,
        rows: &[(String, Contribution)],
    ) -> Result<u64, StoreError> {
        self.with(|c| {
            let mut tx = c.transaction()?;
            let seq_of = tx.prepare(&POSTGRES.seq_of())?;
            let mark = tx.prepare(&POSTGRES.mark())?;
            let cut = cut_of(
                tx.query_opt(&POSTGRES.meta_value(), &[&PRUNED_KEY])?
                    .map(|r| r.get(0)),
            );
            let mut delta = RoundsDelta::default();
            let mut counted = 0;
            for (id, contribution) in rows {
                let Some(row) = tx.query_opt(&seq_of, &[id])? else {
                    continue;
                };
                let (seq, time): (i64, i64) = (row.get(0), row.get(1));
                // Marked either way; before a prune's cut, counted before the prune.
                if tx.execute(&mark, &[&seq])? == 0 || !counts(cut, time) {
                    continue;
                }
                counted += 1;
                delta.add(contribution, time);
            }
            let round = tx.prepare(&POSTGRES.add_round())?;
            for (n, s) in &delta.rounds {
                tx.execute(
                    &round,
                    &[
                        n,
                        &s.updates,
                        &s.traffic_cost,
                        &s.records,
                        &s.weight,
                        &s.first_time,
                        &s.last_time,
                    ],
                )?;
            }
            let party = tx.prepare(&POSTGRES.add_party())?;
            for ((n, p), (weight, records)) in &delta.parties {
                tx.execute(&party, &[n, p, weight, records])?;
            }
            tx.commit()?;
            Ok(counted)
        })
    }

    pub(super) fn read_uncounted(
        &mut self,
        after: i64,
        limit: i64,
    ) -> Result<Vec<(i64, String)>, StoreError> {
        let rows = self.with(|c| c.query(&POSTGRES.uncounted(), &[&after, &limit]))?;
        Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    pub(super) fn read_rounds(
        &mut self,
        from: i64,
        until: i64,
        party: Option<&str>,
    ) -> Result<SummaryRows, StoreError> {
        let (rounds, parties) = self.with(|c| {
            let mut tx = c.build_transaction().read_only(true).start()?;
            let rounds = tx.query(&POSTGRES.read_rounds(), &[&from, &until])?;
            let parties = match party {
                Some(p) => tx.query(&POSTGRES.read_parties(true), &[&from, &until, &p])?,
                None => tx.query(&POSTGRES.read_parties(false), &[&from, &until])?,
            };
            tx.commit()?;
            Ok((rounds, parties))
        })?;
        let rounds = rounds
            .into_iter()
            .map(|r| {
                (
                    r.get(0),
                    RoundSums {
                        updates: r.get(1),
                        traffic_cost: r.get(2),
                        records: r.get(3),
                        weight: r.get(4),
                        first_time: r.get(5),
                        last_time: r.get(6),
                    },
                )
            })
            .collect();
        let mut providers = RoundProviders::default();
        for r in &parties {
            providers.add(r.get(0), r.get::<_, &str>(1), r.get(2), r.get(3));
        }
        let parties = providers;
        Ok((rounds, parties))
    }
}

/// In a prune's transaction, before the updates recorded before `before` go: their marks go
/// and, when some were counted, meta [`PRUNED_KEY`] moves on to `before`.
pub(super) fn prune(c: &mut impl GenericClient, before: i64) -> Result<(), postgres::Error> {
    if c.execute(&POSTGRES.unmark_before(), &[&before])? == 0 {
        return Ok(());
    }
    let cut = cut_of(
        c.query_opt(&POSTGRES.meta_value(), &[&PRUNED_KEY])?
            .map(|r| r.get(0)),
    );
    let cut = cut.map_or(before, |c| c.max(before)).to_string();
    c.execute(&POSTGRES.set_meta(), &[&PRUNED_KEY, &cut])?;
    Ok(())
}
