//! Every validator ever licensed, kept (schema 9, issue 37 §4): what `index validators` and
//! the Validators pane read instead of every kept body.
//!
//! ```text
//! validators   validator (key), first_licensed (µs), licenses, last_time (µs), last_round,
//!              activities: the sums of what the kept bodies tell of it
//!              ([`crate::model::index::validators::facts_of`])
//! meta validators_seq   the updates (by seq) already counted in it
//! ```
//!
//! The table is brought up to the newest kept update by [`build`]: after each page a sync
//! writes, and when a writer opens the index (an index migrated from schema 8 is counted from
//! its kept bodies then, once). A reader adds what was written since the last build
//! ([`read`]), so its answer always covers every kept update. An update kept without its body
//! tells nothing. A prune removes updates, never what they told: a validator once licensed
//! stays listed. A range pruned then synced again is not counted twice: a prune that removes
//! counted updates moves meta [`PRUNED_KEY`] on to its cut, and an update recorded before it
//! is never counted again (as the per-round summary does, [`super::rounds`]); on SQLite,
//! which may give a removed seq to the next update written, the prune also lowers
//! [`SEQ_KEY`] to the newest seq kept.
//!
//! The validators' CIP-104 app activity (the records naming them as the provider) is read
//! from the per-round summary ([`PROVIDERS_SQL`]: kept across prunes, each record counted
//! once): their newest round as a provider, that round's newest kept record time, their
//! records.

use std::collections::BTreeMap;

use super::{IndexReader, IndexWriter, StoreError};
use crate::model::index::validators::{PageFacts, ValidatorSums, ValidatorsDelta};

/// The meta key of the newest seq counted.
pub const SEQ_KEY: &str = "validators_seq";

/// The meta key of the newest time (µs) a prune removed counted updates before.
pub const PRUNED_KEY: &str = "validators_pruned_before";

/// Every provider of the per-round summary: party, its newest round, its records, that round's
/// newest record time.
pub(super) const PROVIDERS_SQL: &str = "SELECT p.party, p.round_number, p.records, r.last_time
     FROM (SELECT party, max(round_number) AS round_number, CAST(sum(records) AS BIGINT) AS records
           FROM round_parties GROUP BY party) p
     LEFT JOIN rounds r ON r.round_number = p.round_number";

/// Whether an update recorded before `p1` was counted (its seq at most `p2`).
pub(super) fn counted_before_sql(mark: char) -> String {
    format!("SELECT EXISTS (SELECT 1 FROM updates WHERE record_time < {mark}1 AND seq <= {mark}2)")
}

/// The cut after a prune at `before` that removed counted updates (`meta`: [`PRUNED_KEY`] as
/// read): the newest of both, as meta text.
pub(super) fn cut_after(meta: Option<String>, before: i64) -> String {
    super::rounds::cut_of(meta)
        .map_or(before, |c| c.max(before))
        .to_string()
}

/// Whether an update recorded at `time` is counted (not before the cut of a prune).
fn counts(cut: Option<i64>, time: i64) -> bool {
    cut.is_none_or(|c| time >= c)
}

/// Bodies read at a time.
const BATCH: usize = 2_000;

/// The table (an engine's spelling of integers: `INTEGER` or `BIGINT`), made when an index is
/// created and by the 8 → 9 migration (idempotent).
pub(super) fn create_sql(int: &str) -> String {
    format!(
        "CREATE TABLE IF NOT EXISTS validators (
    validator TEXT PRIMARY KEY,
    first_licensed {int},
    licenses {int} NOT NULL,
    last_time {int},
    last_round {int},
    activities {int} NOT NULL
);"
    )
}

/// Adds one validator's sums (validator, first, licenses, last time, last round, activities),
/// with the engine's parameter mark and its `min` / `max` of two values.
pub(super) fn add_sql(mark: char, least: &str, greatest: &str) -> String {
    let p = |n: u8| format!("{mark}{n}");
    format!(
        "INSERT INTO validators (validator, first_licensed, licenses, last_time, last_round, activities)
         VALUES ({}, {}, {}, {}, {}, {})
         ON CONFLICT (validator) DO UPDATE SET
            first_licensed = {least}(COALESCE(validators.first_licensed, excluded.first_licensed), COALESCE(excluded.first_licensed, validators.first_licensed)),
            licenses = validators.licenses + excluded.licenses,
            last_time = {greatest}(COALESCE(validators.last_time, excluded.last_time), COALESCE(excluded.last_time, validators.last_time)),
            last_round = {greatest}(COALESCE(validators.last_round, excluded.last_round), COALESCE(excluded.last_round, validators.last_round)),
            activities = validators.activities + excluded.activities",
        p(1),
        p(2),
        p(3),
        p(4),
        p(5),
        p(6)
    )
}

/// Every row.
pub(super) const READ_SQL: &str =
    "SELECT validator, first_licensed, licenses, last_time, last_round, activities FROM validators";

/// The newest round the per-round summary holds.
pub(super) const NEWEST_ROUND_SQL: &str = "SELECT max(round_number) FROM rounds";

/// At most `p2` updates after seq `p1`, in seq order: seq, id, record time, packed body (NULL:
/// kept without; not filtered here, so an index kept without bodies is walked by its key, not
/// scanned whole for a body at every page).
pub(super) fn bodies_sql(mark: char) -> String {
    format!(
        "SELECT seq, update_id, record_time, body FROM updates
         WHERE seq > {mark}1 ORDER BY seq LIMIT {mark}2"
    )
}

/// Rows of [`bodies_sql`] (seq, id, record time, packed body) as (seq, record time, body),
/// each packed body made text by the engine's `unpack` (update id, packed).
pub(super) fn bodies_of(
    rows: Vec<(i64, String, i64, Option<Vec<u8>>)>,
    mut unpack: impl FnMut(&str, &[u8]) -> Result<String, StoreError>,
) -> Result<Vec<(i64, i64, Option<String>)>, StoreError> {
    rows.into_iter()
        .map(|(seq, id, time, packed)| {
            let body = packed.map(|p| unpack(&id, &p)).transpose()?;
            Ok((seq, time, body))
        })
        .collect()
}

/// A row of [`READ_SQL`] as (validator, sums).
pub(super) fn sums_of(
    validator: String,
    first_licensed: Option<i64>,
    licenses: i64,
    last_time: Option<i64>,
    last_round: Option<i64>,
    activities: i64,
) -> (String, ValidatorSums) {
    (
        validator,
        ValidatorSums {
            first_licensed,
            licenses,
            last_time,
            last_round,
            activities,
            ..ValidatorSums::default()
        },
    )
}

/// What the table keeps: every validator's sums, the seq it counts through, the newest round
/// of the per-round summary.
#[derive(Debug, Clone, Default)]
pub struct KeptValidators {
    pub rows: Vec<(String, ValidatorSums)>,
    pub through: i64,
    pub newest_round: Option<i64>,
    /// The app activity providers of the per-round summary: (party, newest round, records,
    /// that round's newest record time).
    pub providers: Vec<(String, i64, i64, Option<i64>)>,
}

/// The seq the table counts through, from the meta value.
pub(super) fn through_of(meta: Option<String>) -> i64 {
    meta.and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// What the updates kept after seq `after` tell.
fn tail<S: IndexReader + ?Sized>(
    store: &mut S,
    mut after: i64,
) -> Result<ValidatorsDelta, StoreError> {
    let cut = super::rounds::cut_of(store.meta_get(PRUNED_KEY)?);
    let mut delta = ValidatorsDelta::default();
    loop {
        let batch = store.bodies_after(after, BATCH)?;
        let Some(last) = batch.last() else { break };
        after = last.0;
        for (_, time, body) in &batch {
            if let Some(body) = body.as_deref().filter(|_| counts(cut, *time)) {
                delta.add_body(body, *time);
            }
        }
        if batch.len() < BATCH {
            break;
        }
    }
    Ok(delta)
}

/// Every validator the kept history tells of, with the newest round the index holds: the table
/// and what was written since it was built.
pub fn read<S: IndexReader + ?Sized>(
    store: &mut S,
) -> Result<(BTreeMap<String, ValidatorSums>, Option<i64>), StoreError> {
    let kept = store.kept_validators()?;
    let mut delta = tail(store, kept.through)?;
    delta.merge_rows(kept.rows);
    for (party, round, records, time) in kept.providers {
        delta.add_app_activity(party, round, records, time);
    }
    Ok((delta.validators, kept.newest_round))
}

/// Counts the updates kept since the table was built into it, a batch at a time (each batch
/// one transaction with its mark): how many updates were read.
pub fn build<S: IndexWriter + ?Sized>(store: &mut S) -> Result<u64, StoreError> {
    let mut after = through_of(store.meta_get(SEQ_KEY)?);
    let cut = super::rounds::cut_of(store.meta_get(PRUNED_KEY)?);
    let mut total = 0;
    loop {
        let batch = store.bodies_after(after, BATCH)?;
        let Some(last) = batch.last() else { break };
        let through = last.0;
        let mut delta = ValidatorsDelta::default();
        for (_, time, body) in &batch {
            if let Some(body) = body.as_deref().filter(|_| counts(cut, *time)) {
                delta.add_body(body, *time);
            }
        }
        store.add_validators(&delta, through)?;
        total += batch.len() as u64;
        after = through;
        if batch.len() < BATCH {
            break;
        }
    }
    Ok(total)
}

/// An update as written, for [`build_page`]: its seq, record time (µs), digest and whether its
/// body is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub seq: i64,
    pub record_time: i64,
    pub digest: Vec<u8>,
    pub body: bool,
}

/// At most `p2` updates after seq `p1`, in seq order: seq, record time, digest, whether its body
/// is kept (the body itself not read).
pub(super) fn written_sql(mark: char) -> String {
    format!(
        "SELECT seq, record_time, digest, body IS NOT NULL FROM updates
         WHERE seq > {mark}1 ORDER BY seq LIMIT {mark}2"
    )
}

/// [`build`] after a sync wrote a page, `inserted` of its updates new, what they tell being
/// `facts` (by digest, made from the items the sync decoded:
/// [`crate::model::index::validators::page_facts`]). When the updates after the seq the table
/// counts through are just those `inserted` (the table was up to date before the page), their
/// facts are counted from `facts`, their bodies not read back and parsed again; otherwise (an
/// engine that does not list them, a table behind: a sync stopped between its page and this)
/// [`build`] reads the bodies. The same sums either way: each update's facts are those of its
/// own body, counted only when its body is kept and it is not before a prune's cut. How many
/// updates were counted.
pub fn build_page<S: IndexWriter + ?Sized>(
    store: &mut S,
    inserted: u64,
    facts: &PageFacts,
) -> Result<u64, StoreError> {
    let after = through_of(store.meta_get(SEQ_KEY)?);
    let limit = usize::try_from(inserted)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    let Some(written) = store.written_after(after, limit)? else {
        return build(store);
    };
    let of = |w: &Written| {
        <&crate::model::index::Digest>::try_from(w.digest.as_slice())
            .ok()
            .and_then(|d| facts.get(d))
    };
    if written.len() as u64 != inserted || !written.iter().all(|w| of(w).is_some()) {
        return build(store);
    }
    let Some(last) = written.last() else {
        return Ok(0);
    };
    let cut = super::rounds::cut_of(store.meta_get(PRUNED_KEY)?);
    let mut delta = ValidatorsDelta::default();
    for w in written
        .iter()
        .filter(|w| w.body && counts(cut, w.record_time))
    {
        if let Some(facts) = of(w) {
            delta.add_facts(facts, w.record_time);
        }
    }
    store.add_validators(&delta, last.seq)?;
    Ok(written.len() as u64)
}

#[cfg(test)]
#[path = "validators_tests.rs"]
mod tests;
