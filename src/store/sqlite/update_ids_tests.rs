//! Schema 17's look-ups of an update id (issue 39's disk figure): each statement that finds
//! an update by its id, or walks a prefix of ids, reads the index of the ids' heads
//! ([`super::update_ids::HEAD`]), none the whole table.

use super::*;

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
        (
            crate::store::rounds::SQLITE.seq_of(),
            "(<expr>=? AND <expr>=?)",
        ),
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
