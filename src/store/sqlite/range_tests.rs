//! History's list read from an SQLite index with events that have a verdict and no update
//! among the updates (issue 37 §1): one record-time order over both, counted and paged alike.

use super::tests::{page, row};
use super::*;
use crate::model::index::read::{RangeFrom, RangeKey};
use crate::store::{At, EventsRow, VerdictEvent};

/// The time of `second`, as [`row`] writes it.
fn t(second: i64) -> i64 {
    1_800_000_000_000_000 + second * 1_000_000
}

/// An event with a verdict and no update at `second` (migration 1), rejected or accepted,
/// submitted by `party`, in `round`.
fn verdict_event(id: &str, second: i64, result: &str, party: &str, round: i64) -> VerdictEvent {
    let served_result = if result == "rejected" {
        "VERDICT_RESULT_REJECTED"
    } else {
        "VERDICT_RESULT_ACCEPTED"
    };
    let verdict = serde_json::json!({
        "update_id": id,
        "migration_id": 1,
        "domain_id": "global-domain::1220aa",
        "record_time": format_time_micros(t(second)),
        "finalization_time": format_time_micros(t(second)),
        "submitting_parties": [party],
        "submitting_participant_uid": "PAR::node::1220bb",
        "verdict_result": served_result,
        "mediator_group": 0,
        "transaction_views": {"views": [], "root_views": []},
    });
    VerdictEvent {
        at: At::new(1, t(second)),
        row: EventsRow {
            update_id: id.to_owned(),
            served: 1,
            verdict: Some(verdict.to_string()),
            traffic_summary: None,
            app_activity_records: None,
            round_number: Some(round),
            verdict_result: Some(result.to_owned()),
            mediator_group: Some(0),
            digest: vec![second as u8; 32],
            scans: "sv1".to_owned(),
        },
    }
}

/// An index of five updates (two in second 3) and four events with a verdict and no update
/// (before the first update, in second 3 between the two updates by id, between two updates,
/// after the last): the list is the nine in record-time, migration, update-id order.
fn mixed(dir: &std::path::Path) -> SqliteIndex {
    let mut index = SqliteIndex::open(&dir.join("i.sqlite"), true).expect("open");
    let chunk = index.start_chunk(None, None, 1, 0).expect("chunk");
    let rows = vec![
        row("u1", 1, "alice"),
        row("u2", 2, "alice"),
        row("b3", 3, "alice"),
        row("d3", 3, "bob"),
        row("u5", 5, "bob"),
    ];
    index.write_page(chunk.id, &page(rows)).expect("page");
    index
        .write_verdict_events(&[
            verdict_event("v0", 0, "rejected", "carol::1220cc", 7),
            verdict_event("c3", 3, "rejected", "dave::1220dd", 8),
            verdict_event("v4", 4, "accepted", "erin::1220ee", 8),
            verdict_event("v6", 6, "rejected", "carol::1220cc", 9),
        ])
        .expect("verdict events");
    index
}

const ALL: [&str; 9] = ["v0", "u1", "u2", "b3", "c3", "d3", "v4", "u5", "v6"];

fn ids(rows: &[SearchRow]) -> Vec<&str> {
    rows.iter().map(|r| r.update_id.as_str()).collect()
}

fn key(r: &SearchRow) -> RangeKey {
    RangeKey {
        migration_id: r.migration_id,
        record_time: crate::model::format::parse_time_micros(&r.record_time).expect("time"),
        update_id: r.update_id.clone(),
    }
}

#[test]
fn history_lists_the_verdict_only_events_among_the_updates_in_record_time_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut index = mixed(dir.path());
    assert_eq!(index.range_count(t(0), None).expect("count"), 9);
    assert_eq!(index.range_count(t(1), None).expect("count"), 8);
    // From second 3 up to second 5: the two updates, the event between them, the one after.
    assert_eq!(index.range_count(t(3), Some(t(5))).expect("count"), 4);
    // The updates alone (the status card's updates per day).
    assert_eq!(index.update_count(t(0), None).expect("count"), 5);
    assert_eq!(index.update_count(t(3), Some(t(5))).expect("count"), 2);
    // The events alone, without counting the updates.
    assert_eq!(index.verdict_only_count(t(0), None).expect("count"), 4);
    assert_eq!(
        index.verdict_only_count(t(3), Some(t(5))).expect("count"),
        2
    );
    let all = index
        .range_rows(t(0), &RangeFrom::Offset(0), 20)
        .expect("rows");
    assert_eq!(ids(&all), ALL);

    // The rows read as History shows them: the verdict's result marked verdict only, its round
    // and mediator group; the submitting parties.
    let c3 = &all[4];
    assert_eq!(c3.kind, "verdict only");
    assert_eq!(
        c3.root_action,
        "rejected (verdict only) · round 8 · mediator group 0"
    );
    assert_eq!(c3.parties, ["dave::1220dd"]);
    assert_eq!(c3.record_time, format_time_micros(t(3)));
    assert_eq!(
        all[6].root_action,
        "accepted (verdict only) · round 8 · mediator group 0"
    );
    // The updates' rows are as before.
    assert_eq!(all[3].kind, "transaction");
    assert_eq!(all[3].root_action, "Choice");
    assert_eq!(all[3].parties, ["alice"]);

    // Pages by offset of every size, put together, are the whole list once each.
    for size in 1..=4 {
        let mut paged = Vec::new();
        for offset in (0..9).step_by(size) {
            paged.extend(
                index
                    .range_rows(t(0), &RangeFrom::Offset(offset), size)
                    .expect("rows"),
            );
        }
        assert_eq!(ids(&paged), ALL, "pages of {size}");
    }
    // Pages counted from the end of the rows before a time, put together, are those rows once
    // each: before second 100 all nine, before second 4 the six up to d3 (ties at second 3).
    for (before, n) in [(t(100), 9), (t(4), 6)] {
        for size in 1..=4 {
            let mut paged = Vec::new();
            for start in (0..n).step_by(size) {
                let end = (start + size).min(n);
                let from = RangeFrom::FromEnd {
                    before,
                    skip: n - end,
                };
                paged.extend(index.range_rows(t(0), &from, end - start).expect("rows"));
            }
            assert_eq!(ids(&paged), ALL[..n], "pages of {size} before {before}");
        }
    }
    // Keyset pages after and before every row, a verdict-only one or an update, ties too.
    for (i, row) in all.iter().enumerate() {
        for size in [1, 2, 3] {
            let after = index
                .range_rows(t(0), &RangeFrom::After(key(row)), size)
                .expect("rows");
            assert_eq!(ids(&after), ALL[i + 1..(i + 1 + size).min(9)], "after {i}");
            let before = index
                .range_rows(t(0), &RangeFrom::Before(key(row)), size)
                .expect("rows");
            assert_eq!(
                ids(&before),
                ALL[i.saturating_sub(size)..i],
                "before {i}, {size}"
            );
        }
    }
    // Never before `since`: from second 3, before the event in it.
    assert_eq!(
        ids(&index
            .range_rows(t(3), &RangeFrom::Before(key(&all[4])), 5)
            .expect("rows")),
        ["b3"]
    );
    assert_eq!(
        ids(&index
            .range_rows(t(4), &RangeFrom::Offset(0), 5)
            .expect("rows")),
        ["v4", "u5", "v6"]
    );
}

#[test]
fn the_list_reads_the_verdict_only_events_by_their_time_index() {
    let dir = tempfile::tempdir().expect("tempdir");
    let index = mixed(dir.path());
    let read = crate::store::reads::RangeRead::new(
        t(0),
        &RangeFrom::Offset(0),
        10,
        '?',
        "",
        (super::update_ids::TEXT, "party_set"),
        false,
    );
    let plan: Vec<String> = index
        .conn
        .prepare(&format!(
            "EXPLAIN QUERY PLAN {}",
            super::read::range_sql(&read)
        ))
        .expect("plan")
        .query_map(params![t(0), 10, 0], |r| r.get::<_, String>(3))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("plan rows");
    let plan = plan.join("\n");
    // Both sides seek their time index and are merged as read (no sort of either side).
    assert!(plan.contains("MERGE (UNION ALL)"), "{plan}");
    assert!(plan.contains("verdict_events_time"), "{plan}");
    assert!(plan.contains("updates_time"), "{plan}");
}
