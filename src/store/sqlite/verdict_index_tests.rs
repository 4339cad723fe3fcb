//! Schema 10's index of the verdict results other than `accepted` (issue 37 §1's disk figure):
//! a search of a verdict result finds the updates whose kept events have it, the rare results
//! by the partial index, `accepted` (nearly every update) by the table in `seq` order.

use super::tests::{page, row};
use super::*;
use crate::model::index::query::{EventsTerm, Query};
use crate::store::EventsRow;

/// The events of update `id`: a verdict of `result` in round 3, mediator group `group`.
fn events(id: &str, result: &str, group: i64) -> EventsRow {
    EventsRow {
        update_id: id.to_owned(),
        served: 7,
        verdict: Some(format!(
            r#"{{"update_id":"{id}","mediator_group":{group}}}"#
        )),
        traffic_summary: Some(r#"{"total_traffic_cost":1}"#.to_owned()),
        app_activity_records: None,
        round_number: Some(3),
        verdict_result: Some(result.to_owned()),
        mediator_group: Some(group),
        digest: vec![7; 32],
        scans: "sv1".to_owned(),
    }
}

/// An index of six updates: u1 to u4 accepted (u4 by mediator group 1), u5 rejected, u6
/// without its events yet.
fn index(dir: &std::path::Path) -> SqliteIndex {
    let mut index = SqliteIndex::open(&dir.join("i.sqlite"), true).expect("open");
    let chunk = index.start_chunk(None, None, 1, 0).expect("chunk");
    let ids = ["u1", "u2", "u3", "u4", "u5", "u6"];
    let rows = ids
        .iter()
        .zip(1..)
        .map(|(id, second)| row(id, second, "alice"))
        .collect();
    index.write_page(chunk.id, &page(rows)).expect("page");
    index
        .write_events(&[
            events("u1", "accepted", 0),
            events("u2", "accepted", 0),
            events("u3", "accepted", 0),
            events("u4", "accepted", 1),
            events("u5", "rejected", 0),
        ])
        .expect("events");
    index
}

fn found(index: &mut SqliteIndex, term: &str) -> Vec<String> {
    let q = Query::parse(&[term]).expect("a query");
    let mut ids: Vec<String> = index
        .search(&q, None, None, 10)
        .expect("search")
        .into_iter()
        .map(|r| r.update_id)
        .collect();
    ids.sort();
    ids
}

fn plan(index: &SqliteIndex, term: &EventsTerm, value: rusqlite::types::Value) -> String {
    let sql = crate::store::events_term_sql(term, '?');
    let rows: Vec<String> = index
        .conn
        .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
        .expect("plan")
        .query_map([value], |r| r.get::<_, String>(3))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("plan rows");
    rows.join("\n")
}

#[test]
fn a_verdict_search_finds_each_result_and_reads_the_rare_ones_by_the_partial_index() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut index = index(dir.path());
    assert_eq!(
        found(&mut index, "verdict:accepted"),
        ["u1", "u2", "u3", "u4"]
    );
    assert_eq!(found(&mut index, "verdict:rejected"), ["u5"]);
    assert_eq!(found(&mut index, "mediator:1"), ["u4"]);
    // The index holds only the verdicts other than accepted.
    let indexed: i64 = index
        .conn
        .query_row(
            "SELECT count(*) FROM events INDEXED BY events_verdict_other
             WHERE verdict_result <> 'accepted'",
            [],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(indexed, 1);
    let rejected = plan(
        &index,
        &EventsTerm::Verdict("rejected".to_owned()),
        "rejected".to_owned().into(),
    );
    assert!(rejected.contains("events_verdict_other"), "{rejected}");
    // Accepted: the table in seq order, nothing sorted.
    let accepted = plan(
        &index,
        &EventsTerm::Verdict("accepted".to_owned()),
        "accepted".to_owned().into(),
    );
    assert!(!accepted.contains("TEMP B-TREE"), "{accepted}");
    assert!(!accepted.contains("events_verdict"), "{accepted}");
}
