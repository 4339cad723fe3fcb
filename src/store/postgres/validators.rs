//! The validators' table on PostgreSQL (schema 9, [`crate::store::validators`]): made, added
//! to, read; the kept bodies it is counted from.

use postgres::GenericClient;

use super::{PgIndex, StoreError};
use crate::model::index::validators::ValidatorsDelta;
use crate::store::validators::{
    KeptValidators, NEWEST_ROUND_SQL, PROVIDERS_SQL, PRUNED_KEY, READ_SQL, SEQ_KEY, add_sql,
    bodies_of, bodies_sql, counted_before_sql, create_sql, cut_after, sums_of, through_of,
};

/// In a prune's transaction, before the updates recorded before `before` go: when some of them
/// were counted, meta [`PRUNED_KEY`] moves on to `before` (the range synced again is not
/// counted twice; PostgreSQL never gives a seq again).
pub(super) fn prune(c: &mut impl GenericClient, before: i64) -> Result<(), postgres::Error> {
    let through = through_of(
        c.query_opt("SELECT value FROM meta WHERE key = $1", &[&SEQ_KEY])?
            .map(|r| r.get(0)),
    );
    let counted: bool = c
        .query_one(&counted_before_sql('$'), &[&before, &through])?
        .get(0);
    if counted {
        let meta = c
            .query_opt("SELECT value FROM meta WHERE key = $1", &[&PRUNED_KEY])?
            .map(|r| r.get(0));
        c.execute(
            "INSERT INTO meta (key, value) VALUES ($1, $2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            &[&PRUNED_KEY, &cut_after(meta, before)],
        )?;
    }
    Ok(())
}

/// Schema 9's step: the table, made when a database is created and by the 8 → 9 migration
/// (counted from the kept bodies right after).
pub(super) fn validators_step(c: &mut impl GenericClient) -> Result<(), postgres::Error> {
    c.batch_execute(&create_sql("BIGINT"))
}

impl PgIndex {
    pub(super) fn read_bodies_after(
        &mut self,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(i64, i64, Option<String>)>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows: Vec<(i64, String, i64, Option<Vec<u8>>)> = self.with(|c| {
            Ok(c.query(&bodies_sql('$'), &[&after, &limit])?
                .iter()
                .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
                .collect())
        })?;
        bodies_of(rows, |id, packed| self.unpack(id, packed))
    }

    pub(super) fn read_kept_validators(&mut self) -> Result<KeptValidators, StoreError> {
        self.with(|c| {
            let mut tx = c
                .build_transaction()
                .isolation_level(postgres::IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()?;
            let rows = tx
                .query(READ_SQL, &[])?
                .iter()
                .map(|r| sums_of(r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)))
                .collect();
            let newest_round: Option<i64> = tx.query_one(NEWEST_ROUND_SQL, &[])?.get(0);
            let providers = tx
                .query(PROVIDERS_SQL, &[])?
                .iter()
                .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
                .collect();
            let through: Option<String> = tx
                .query_opt("SELECT value FROM meta WHERE key = $1", &[&SEQ_KEY])?
                .map(|r| r.get(0));
            tx.commit()?;
            Ok(KeptValidators {
                rows,
                through: through_of(through),
                newest_round,
                providers,
            })
        })
    }

    pub(super) fn write_validators(
        &mut self,
        delta: &ValidatorsDelta,
        through: i64,
    ) -> Result<(), StoreError> {
        // Every validator of the delta in one statement (a sync adds a page's at every page;
        // the delta names each validator once).
        let sums = &delta.validators;
        let validators: Vec<&str> = sums.keys().map(String::as_str).collect();
        let first: Vec<Option<i64>> = sums.values().map(|s| s.first_licensed).collect();
        let licenses: Vec<i64> = sums.values().map(|s| s.licenses).collect();
        let last_time: Vec<Option<i64>> = sums.values().map(|s| s.last_time).collect();
        let last_round: Vec<Option<i64>> = sums.values().map(|s| s.last_round).collect();
        let activities: Vec<i64> = sums.values().map(|s| s.activities).collect();
        self.with(|c| {
            let mut tx = c.transaction()?;
            if !validators.is_empty() {
                tx.execute(
                    &add_sql('$', "LEAST", "GREATEST").replace(
                        "VALUES ($1, $2, $3, $4, $5, $6)",
                        "SELECT * FROM UNNEST($1::text[], $2::int8[], $3::int8[], $4::int8[],
                                              $5::int8[], $6::int8[])",
                    ),
                    &[
                        &validators,
                        &first,
                        &licenses,
                        &last_time,
                        &last_round,
                        &activities,
                    ],
                )?;
            }
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ($1, $2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[&SEQ_KEY, &through.to_string()],
            )?;
            tx.commit()
        })
    }
}
