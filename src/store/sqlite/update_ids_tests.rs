//! Schema 17's look-ups of an update id (issue 39's disk figure): each statement that finds
//! an update by its id, or walks a prefix of ids, reads the index of the ids' heads
//! ([`super::update_ids::HEAD`]), none the whole table; and a prefix finds every update whose
//! id it starts, however many ids share a head.

use super::tests::{page, row};
use super::*;
use crate::model::index::query::Query;

/// The query plan of `sql` as one text.
fn plan(conn: &rusqlite::Connection, sql: &str) -> String {
    // Its parameters left unbound (NULL): the plan is made for any value.
    let mut stmt = conn
        .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
        .expect("prepared");
    let mut rows = stmt.raw_query();
    let mut plan = Vec::new();
    while let Some(row) = rows.next().expect("a plan row") {
        plan.push(row.get::<_, String>(3).expect("its detail"));
    }
    plan.join("\n")
}

#[test]
fn every_look_up_of_an_id_reads_the_heads_index_and_none_scans_the_updates() {
    let dir = tempfile::tempdir().expect("tempdir");
    let index = SqliteIndex::open(&dir.path().join("i.sqlite"), true).expect("opens");
    let conn = &index.conn;
    // A look-up by the whole id seeks its head and tail (one row, however many ids share the
    // head); a prefix walks the heads from its own.
    let looks = [
        (super::read::body_sql(), "(<expr>=? AND <expr>=?)"),
        (super::read::kept_events_sql(), "(<expr>=? AND <expr>=?)"),
        (
            super::write::stored_digests_sql(3),
            "(<expr>=? AND <expr>=?)",
        ),
        (
            super::events_write::upsert_sql(2),
            "(<expr>=? AND <expr>=?)",
        ),
        (super::rounds::seq_of_sql(), "(<expr>=? AND <expr>=?)"),
        (
            super::search::UPDATE_PREFIX_TEXT.to_owned(),
            "(<expr>>? AND <expr><?)",
        ),
        (super::search::UPDATE_PREFIX_BYTES.to_owned(), "(<expr>>?)"),
    ];
    for (sql, seek) in looks {
        let plan = plan(conn, &sql);
        assert!(
            plan.contains(&format!("USING INDEX updates_id_head {seek}")),
            "{sql}\n{plan}"
        );
        assert!(!plan.contains("SCAN updates"), "{sql}\n{plan}");
        assert!(!plan.contains("TEMP B-TREE"), "{sql}\n{plan}");
    }
}

#[test]
fn an_id_prefix_finds_each_update_whose_id_it_starts_however_the_heads_tie() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut index = SqliteIndex::open(&dir.path().join("i.sqlite"), true).expect("open");
    let chunk = index.start_chunk(None, None, 1, 0).expect("chunk");
    // The heads' index keeps 6 bytes (12 hex digits) or 6 characters of text; the ids of a
    // head are in the order written there, a non-matching one first.
    let ids = [
        "1220aabbccddeeff02",
        "1220aabbccddeeff01",
        "1220aabbccddeeff0102",
        "1220aabbccddee00",
        "#1:aabbccxx",
        "#1:aabbccdd",
    ];
    let rows = (1..).zip(ids).map(|(s, id)| row(id, s, "alice")).collect();
    index.write_page(chunk.id, &page(rows)).expect("page");
    for (prefix, found) in [
        (
            "1220aabbccddeeff01",
            &["1220aabbccddeeff0102", "1220aabbccddeeff01"][..],
        ),
        ("1220aabbccddeeff0102", &["1220aabbccddeeff0102"]),
        ("1220aabbccddeeff03", &[]),
        (
            "1220aabbccddee",
            &[
                "1220aabbccddee00",
                "1220aabbccddeeff0102",
                "1220aabbccddeeff01",
                "1220aabbccddeeff02",
            ],
        ),
        (
            "1220aabbccddeeff0",
            &[
                "1220aabbccddeeff0102",
                "1220aabbccddeeff01",
                "1220aabbccddeeff02",
            ],
        ),
        ("#1:aabbccdd", &["#1:aabbccdd"]),
        ("#1:aabbcc", &["#1:aabbccdd", "#1:aabbccxx"]),
    ] {
        let q = Query::parse(&[format!("id:{prefix}").as_str()]).expect("q");
        let rows = index.search(&q, None, None, 10).expect("search");
        let got: Vec<&str> = rows.iter().map(|r| r.update_id.as_str()).collect();
        assert_eq!(got, found, "{prefix}");
        assert_eq!(
            index.count(&q, None, None).expect("count"),
            found.len() as u64,
            "{prefix}"
        );
    }
}

#[test]
fn a_page_from_a_position_seeks_it_in_the_index_of_positions() {
    // Written as `migration_id > ?1 OR (...)`, SQLite sought the migration alone and read
    // every update of it before the position (58 ms a page deep in 1 M updates, 0.03 now).
    let dir = tempfile::tempdir().expect("tempdir");
    let index = SqliteIndex::open(&dir.path().join("i.sqlite"), true).expect("opens");
    for sql in [super::read::PAGE_AFTER_SQL, super::read::KEPT_DIGESTS_SQL] {
        let plan = plan(&index.conn, sql);
        assert!(
            plan.contains("USING INDEX updates_position ((migration_id,record_time)>(?,?)"),
            "{sql}\n{plan}"
        );
        assert!(!plan.contains("TEMP B-TREE"), "{sql}\n{plan}");
    }
}
