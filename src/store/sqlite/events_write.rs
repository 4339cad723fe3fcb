//! A page of events rows kept ([`upsert`]): [`EVENTS_PER_UPSERT`] rows a statement, each
//! row's `seq` found by its update id in the same statement. One statement a row cost a bind,
//! a step, a statement journal's savepoint and a reset each (2% of a sync's CPU with events).

use rusqlite::Transaction;

use crate::store::EventsRow;
use crate::store::write::EVENTS_COLUMNS;

/// Rows a statement (7 parameters each).
const EVENTS_PER_UPSERT: usize = 64;

/// The statement keeping `rows` events rows, as `events_upsert` keeps one: each row's values
/// (its update id, then [`EVENTS_COLUMNS`]) joined to the update of that id (a row of an
/// update the index does not keep inserts nothing), replacing the update's earlier row when
/// its digest differs. SQLite takes the rows in the order given, one at a time, so a second
/// row of the same update in one statement does what it did in a statement of its own.
pub(super) fn upsert_sql(rows: usize) -> String {
    let width = EVENTS_COLUMNS.len() + 1;
    let group = format!("({})", vec!["?"; width].join(","));
    let values: Vec<String> = (2..=width).map(|n| format!("v.column{n}")).collect();
    let set: Vec<String> = EVENTS_COLUMNS
        .iter()
        .map(|c| format!("{c} = excluded.{c}"))
        .collect();
    // CROSS JOIN: the values first, each update found by its id (the heads' index:
    // [`super::update_ids::is`]);
    // `WHERE true` tells the upsert's ON from the join's.
    format!(
        "INSERT INTO events (seq, {}) SELECT u.seq, {} FROM (VALUES {}) AS v
         CROSS JOIN updates AS u ON {} WHERE true
         ON CONFLICT (seq) DO UPDATE SET {} WHERE events.digest <> excluded.digest",
        EVENTS_COLUMNS.join(", "),
        values.join(", "),
        vec![group; rows].join(","),
        super::update_ids::is("u.update_id", "v.column1"),
        set.join(", ")
    )
}

/// Keeps `rows` with their `packed` (served bits, packed parts:
/// [`crate::store::events_pack::EventsPacker::pack_all`]) in `tx`: how many rows were inserted
/// or replaced.
pub(super) fn upsert(
    tx: &Transaction<'_>,
    rows: &[EventsRow],
    packed: &[(i64, Vec<u8>)],
) -> rusqlite::Result<u64> {
    upsert_by(tx, rows, packed, EVENTS_PER_UPSERT)
}

/// [`upsert`] with `per` rows a statement (the rest one by one).
fn upsert_by(
    tx: &Transaction<'_>,
    rows: &[EventsRow],
    packed: &[(i64, Vec<u8>)],
    per: usize,
) -> rusqlite::Result<u64> {
    let mut kept = 0;
    let full = rows.len() - rows.len() % per;
    let mut many = tx.prepare_cached(&upsert_sql(per))?;
    for (batch, packed) in rows[..full].chunks(per).zip(packed.chunks(per)) {
        for (i, (r, (served, parts))) in batch.iter().zip(packed).enumerate() {
            bind(&mut many, i, r, *served, parts)?;
        }
        kept += many.raw_execute()? as u64;
    }
    let mut one = tx.prepare_cached(&upsert_sql(1))?;
    for (r, (served, parts)) in rows[full..].iter().zip(&packed[full..]) {
        bind(&mut one, 0, r, *served, parts)?;
        kept += one.raw_execute()? as u64;
    }
    Ok(kept)
}

/// Binds row `r` as the `i`th row of `statement`.
fn bind(
    statement: &mut rusqlite::CachedStatement<'_>,
    i: usize,
    r: &EventsRow,
    served: i64,
    parts: &[u8],
) -> rusqlite::Result<()> {
    let at = i * (EVENTS_COLUMNS.len() + 1);
    statement.raw_bind_parameter(at + 1, super::update_ids::stored(&r.update_id))?;
    statement.raw_bind_parameter(at + 2, served)?;
    statement.raw_bind_parameter(at + 3, parts)?;
    statement.raw_bind_parameter(at + 4, r.round_number)?;
    statement.raw_bind_parameter(at + 5, &r.verdict_result)?;
    statement.raw_bind_parameter(at + 6, r.mediator_group)?;
    statement.raw_bind_parameter(at + 7, r.digest.as_slice())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::IndexWriter;
    use crate::store::sqlite::SqliteIndex;
    use crate::store::sqlite::tests::{page, row};

    fn events_row(id: &str, digest: u8) -> EventsRow {
        EventsRow {
            update_id: id.to_owned(),
            served: 1,
            verdict: Some(format!("{{\"v\":{digest}}}")),
            traffic_summary: None,
            app_activity_records: None,
            round_number: Some(i64::from(digest)),
            verdict_result: Some("accepted".to_owned()),
            mediator_group: Some(0),
            digest: vec![digest; 32],
            scans: "sv1".to_owned(),
        }
    }

    /// The events table's rows (seq and every column) after `rows` are upserted `per` a
    /// statement into an index of updates aa000–aa149, and how many were kept.
    fn kept_by(per: usize, rows: &[EventsRow]) -> (u64, Vec<Vec<String>>) {
        let dir = tempfile::tempdir().expect("dir");
        let mut index = SqliteIndex::open(&dir.path().join("i.sqlite"), true).expect("open");
        let chunk = index.start_chunk(None, None, 1, 0).expect("chunk");
        let updates = (0..150).map(|i| row(&format!("aa{i:03}"), i, "alice"));
        index
            .write_page(chunk.id, &page(updates.collect()))
            .expect("page");
        let packed: Vec<(i64, Vec<u8>)> = rows
            .iter()
            .map(|r| (r.served, r.verdict.clone().unwrap_or_default().into_bytes()))
            .collect();
        let tx = index.conn.transaction().expect("tx");
        let kept = upsert_by(&tx, rows, &packed, per).expect("upsert");
        let table = tx
            .prepare("SELECT seq, served, hex(parts), round_number, verdict_result, mediator_group, hex(digest) FROM events ORDER BY seq")
            .expect("select")
            .query_map([], |r| {
                (0..7)
                    .map(|i| r.get_ref(i).map(|v| format!("{v:?}")))
                    .collect::<rusqlite::Result<Vec<String>>>()
            })
            .expect("rows")
            .collect::<rusqlite::Result<Vec<_>>>()
            .expect("table");
        (kept, table)
    }

    #[test]
    fn rows_kept_many_a_statement_are_those_kept_one_a_statement() {
        // 134 rows: the updates 0..130 (of 150 kept), an update not kept, one update twice
        // with another digest in one statement's rows and once more with the same digest.
        let mut rows: Vec<EventsRow> = (0..130)
            .map(|i| events_row(&format!("aa{i:03}"), (i % 200) as u8))
            .collect();
        rows.insert(10, events_row("ff999", 7));
        rows.insert(20, events_row("aa005", 99));
        rows.insert(100, events_row("aa006", 6));
        rows.push(events_row("aa140", 1));
        let one = kept_by(1, &rows);
        let many = kept_by(EVENTS_PER_UPSERT, &rows);
        assert_eq!(
            one.0, 132,
            "130 new, aa005 replaced, aa140; ff999 and aa006 again nothing"
        );
        assert_eq!(one.1.len(), 131);
        assert_eq!(many, one);
        // The page's statements and the rest one by one, as the writer runs them.
        assert_eq!(kept_by(7, &rows), one);
    }
}
