//! An events page kept in one statement: the rows' columns as arrays, each update's seq found
//! by its id ([`crate::store::write::events_upsert`] did it a row at a time, a round trip
//! each).

use super::GenericClient;
use crate::store::EventsRow;

/// The events of the updates named by `$1` (ids not kept are left out): a row added, or
/// replaced when its digest differs. As [`crate::store::write::events_upsert`], for a page.
const UPSERT: &str = "INSERT INTO events (seq, served, parts, round_number, verdict_result, mediator_group, digest)
     SELECT u.seq, x.served, x.parts, x.round_number, x.verdict_result, x.mediator_group, x.digest
     FROM UNNEST($1::text[], $2::int8[], $3::bytea[], $4::int8[], $5::text[], $6::int8[], $7::bytea[])
         AS x (update_id, served, parts, round_number, verdict_result, mediator_group, digest)
     JOIN updates u ON u.update_id = x.update_id
     ON CONFLICT (seq) DO UPDATE SET served = excluded.served, parts = excluded.parts,
         round_number = excluded.round_number, verdict_result = excluded.verdict_result,
         mediator_group = excluded.mediator_group, digest = excluded.digest
     WHERE events.digest <> excluded.digest";

/// Keeps `rows` (their packed parts: `packed`, served and blob): how many rows were added or
/// replaced. Rows naming one update twice are kept one by one (`one`: the statement of a
/// row), as a statement may not change a row twice.
pub(super) fn upsert(
    c: &mut impl GenericClient,
    rows: &[EventsRow],
    packed: &[(i64, Vec<u8>)],
    one: &str,
) -> Result<u64, postgres::Error> {
    let mut seen = std::collections::HashSet::with_capacity(rows.len());
    if rows.iter().all(|r| seen.insert(r.update_id.as_str())) {
        let ids: Vec<&str> = rows.iter().map(|r| r.update_id.as_str()).collect();
        let served: Vec<i64> = packed.iter().map(|p| p.0).collect();
        let parts: Vec<&[u8]> = packed.iter().map(|p| p.1.as_slice()).collect();
        let rounds: Vec<Option<i64>> = rows.iter().map(|r| r.round_number).collect();
        let results: Vec<Option<&str>> = rows.iter().map(|r| r.verdict_result.as_deref()).collect();
        let groups: Vec<Option<i64>> = rows.iter().map(|r| r.mediator_group).collect();
        let digests: Vec<&[u8]> = rows.iter().map(|r| r.digest.as_slice()).collect();
        return c.execute(
            UPSERT,
            &[&ids, &served, &parts, &rounds, &results, &groups, &digests],
        );
    }
    let stmt = c.prepare(one)?;
    let mut kept = 0;
    for (r, (served, parts)) in rows.iter().zip(packed) {
        kept += c.execute(
            &stmt,
            &[
                &r.update_id,
                served,
                parts,
                &r.round_number,
                &r.verdict_result,
                &r.mediator_group,
                &r.digest,
            ],
        )?;
    }
    Ok(kept)
}
