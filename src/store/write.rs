//! The write decisions every engine makes the same way; only their SQL differs
//! (`sqlite/write.rs`, `postgres/write.rs`).
//!
//! - Each row of a page, in order ([`decide`]): before the chunk's start (a page read again
//!   after a prune) it is not the chunk's to write; kept with the same digest it is known; not
//!   kept and after everything the chunk walked it is new (the same update twice in a page is
//!   new once); anything else is history rewritten under the index, and nothing is written.
//! - The chunk's scans after a page ([`merged_scans`]) and a chunk after a prune
//!   ([`pruned_chunk`]).

use std::collections::HashMap;
use std::hash::BuildHasher;

use super::{At, Chunk, EventsRow, IndexRow, PageWrite, Position, format_time_micros, kept};
use crate::model::reread::{Reread, Rewrite, reread};

/// The rows of `page` after the chunk's start, with their place in the page (which is how the
/// page's terms name them).
pub(super) fn in_chunk<'p>(chunk: &Chunk, page: &'p PageWrite) -> Vec<(usize, &'p IndexRow)> {
    let start = chunk.start.as_ref().map(Position::order);
    page.rows
        .iter()
        .enumerate()
        .filter(|(_, row)| start.is_none_or(|s| At::new(row.migration_id, row.record_time) > s))
        .collect()
}

/// What a page's rows are to the index.
#[derive(Debug, Default)]
pub(super) struct Decided {
    /// The places in the page of the rows to write, in page order.
    pub fresh: Vec<usize>,
    /// Rows the index keeps already, the same.
    pub known: u64,
}

/// Decides each row of `rows` (from [`in_chunk`]) against the digests the index keeps of them
/// (`stored`, by update id; a new row is added, so a second copy of it is known).
pub(super) fn decide<S: BuildHasher>(
    chunk: &Chunk,
    rows: &[(usize, &IndexRow)],
    stored: &mut HashMap<String, Vec<u8>, S>,
) -> Result<Decided, Rewrite> {
    let walked_to = chunk.cursor.as_ref().map(Position::order);
    let mut decided = Decided::default();
    for (at, row) in rows {
        let position = At::new(row.migration_id, row.record_time);
        let kept = kept(stored.get(&row.update_id).map(Vec::as_slice), &row.digest);
        match reread(&row.update_id, position, kept, walked_to)? {
            Reread::Known => decided.known += 1,
            Reread::New => {
                stored.insert(row.update_id.clone(), row.digest.to_vec());
                decided.fresh.push(*at);
            }
        }
    }
    Ok(decided)
}

/// The chunk's scans with those that confirmed `page` added and its odd scans taken out.
pub(super) fn merged_scans(chunk: &Chunk, page: &PageWrite) -> String {
    let mut scans = chunk.scans.clone();
    for scan in &page.scans {
        if !scans.contains(scan) {
            scans.push(scan.clone());
        }
    }
    scans.retain(|s| !page.odd.contains(s));
    serde_json::to_string(&scans).unwrap_or_else(|_| "[]".to_owned())
}

/// What a prune does to a chunk whose newest update removed is at `newest`.
pub(super) enum Pruned {
    /// Everything it walked is removed: the chunk goes.
    Gone,
    /// It now starts after the update removed: (migration, record time).
    StartsAfter(i64, String),
}

pub(super) fn pruned_chunk(chunk: &Chunk, newest: At) -> Pruned {
    let emptied = chunk.cursor.as_ref().is_some_and(|c| c.order() <= newest);
    if emptied {
        Pruned::Gone
    } else {
        Pruned::StartsAfter(newest.migration_id, format_time_micros(newest.record_time))
    }
}

/// The columns of an events row after its `seq`, in the order [`events_upsert`] and the
/// 7 → 8 repacking bind them.
pub(super) const EVENTS_COLUMNS: [&str; 6] = [
    "served",
    "parts",
    "round_number",
    "verdict_result",
    "mediator_group",
    "digest",
];

impl EventsRow {
    /// The row kept for update `update_id` from its events `parts` ([`events_parts`]) the
    /// scans agreed on (`digest`, confirmed by `scans`): each part as JSON (a part not served
    /// stays NULL, told apart from a served `null` by `served`), the verdict's round, result
    /// and mediator group for search. The same row on every engine.
    ///
    /// [`events_parts`]: crate::model::index::events_parts
    pub fn of(
        update_id: &str,
        parts: &serde_json::Map<String, serde_json::Value>,
        digest: &[u8],
        scans: &[String],
    ) -> EventsRow {
        let mut served = 0;
        let mut text = |bit: i64, key: &str| {
            let v = parts.get(key)?;
            served |= bit;
            (!v.is_null()).then(|| v.to_string())
        };
        let verdict = text(1, "verdict");
        let traffic_summary = text(2, "traffic_summary");
        let app_activity_records = text(4, "app_activity_records");
        let v = parts.get("verdict").filter(|v| v.is_object());
        let result = v.and_then(|v| v["verdict_result"].as_str()).map(|r| {
            match r {
                "VERDICT_RESULT_ACCEPTED" => "accepted",
                "VERDICT_RESULT_REJECTED" => "rejected",
                _ => "unspecified",
            }
            .to_owned()
        });
        let int = |v: &serde_json::Value| {
            v.as_i64()
                .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        };
        EventsRow {
            update_id: update_id.to_owned(),
            served,
            verdict,
            traffic_summary,
            app_activity_records,
            round_number: v.and_then(|v| int(&v["round_number"])),
            verdict_result: result,
            mediator_group: v.map(|v| int(&v["mediator_group"]).unwrap_or(0)),
            digest: digest.to_vec(),
            scans: scans.join(","),
        }
    }
}

/// The statement that keeps one [`EventsRow`] (replacing the update's earlier row when its
/// digest differs: the same parts walked again, for the verdict-only events a schema-7 index
/// lacks, keep the scans that confirmed them first and count as nothing kept), its
/// parameters numbered after `mark` (`?` on SQLite, `$` on PostgreSQL): the update id, then
/// [`EVENTS_COLUMNS`] (the `served` bits and the packed parts:
/// [`super::events_pack::EventsPacker::pack_all`]). An update the index does not keep inserts
/// nothing.
pub(super) fn events_upsert(mark: char) -> String {
    let columns = EVENTS_COLUMNS;
    let values: Vec<String> = (2..=columns.len() + 1)
        .map(|n| format!("{mark}{n}"))
        .collect();
    let set: Vec<String> = columns
        .iter()
        .map(|c| format!("{c} = excluded.{c}"))
        .collect();
    format!(
        "INSERT INTO events (seq, {}) SELECT seq, {} FROM updates WHERE update_id = {mark}1
         ON CONFLICT (seq) DO UPDATE SET {} WHERE events.digest <> excluded.digest",
        columns.join(", "),
        values.join(", "),
        set.join(", ")
    )
}

/// The columns of an [`EventsRow`] (but its update id), in its fields' order, as the
/// verdict-only events' table keeps them (unpacked: they are few).
const EVENTS_ROW_COLUMNS: [&str; 9] = [
    "served",
    "verdict",
    "traffic_summary",
    "app_activity_records",
    "round_number",
    "verdict_result",
    "mediator_group",
    "digest",
    "scans",
];

/// The statement that keeps one [`super::VerdictEvent`] (replacing an earlier row of its id),
/// its parameters numbered after `mark` (`?` on SQLite, `$` on PostgreSQL): the update id,
/// migration id and record time (µs), then the row's columns in [`EventsRow`]'s order.
pub(super) fn verdict_events_upsert(mark: char) -> String {
    let columns: Vec<&str> = ["update_id", "migration_id", "record_time"]
        .into_iter()
        .chain(EVENTS_ROW_COLUMNS)
        .collect();
    let values: Vec<String> = (1..=columns.len()).map(|n| format!("{mark}{n}")).collect();
    let set: Vec<String> = columns[1..]
        .iter()
        .map(|c| format!("{c} = excluded.{c}"))
        .collect();
    format!(
        "INSERT INTO verdict_events ({}) VALUES ({}) ON CONFLICT (update_id) DO UPDATE SET {}",
        columns.join(", "),
        values.join(", "),
        set.join(", ")
    )
}
