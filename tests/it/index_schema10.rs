//! Schema 10 (issue 37 §1's disk figure): the verdict results are indexed only of the verdicts
//! other than `accepted` (nearly every verdict is accepted; schema 9 indexed them all). An index
//! of schema 9 is refused by readers and migrated in place by the next sync, on SQLite and on
//! PostgreSQL, and reads the same after: its kept events and the answers of the verdict and
//! mediator searches. Run as the real binary over real HTTP against the demo.

use cantonscope::store::{self, Location};

use crate::common::migrated::{
    answers, count, postgres_migrates, postgres_synced, sqlite_migrates, sqlite_synced,
};
use crate::index_events::events_kept_at;

/// One update's verdict result made `rejected` in its search column (the demo rejects only
/// confirmation requests, which have no update), so the index has a result other than
/// accepted to find; the same statement on both engines.
const ONE_REJECTED: &str = "UPDATE events SET verdict_result = 'rejected'
    WHERE seq = (SELECT max(seq) FROM events WHERE verdict_result = 'accepted')";

/// The index's events table as schema 9 indexed it: every verdict's result.
const SCHEMA_9: &str = "DROP INDEX events_verdict_other;
    CREATE INDEX events_verdict ON events (verdict_result, mediator_group)
        WHERE verdict_result IS NOT NULL;
    UPDATE meta SET value = '9' WHERE key = 'schema_version';";

/// The searches asked before and after: each verdict result and mediator group 0.
fn words() -> Vec<String> {
    ["verdict:accepted", "verdict:rejected", "mediator:0"]
        .map(str::to_owned)
        .to_vec()
}

#[test]
fn an_index_of_schema_9_is_migrated_in_place_and_answers_the_same() {
    let (url, dir, index, shown) = sqlite_synced();
    let location = Location::Sqlite(index.clone());
    let conn = rusqlite::Connection::open(&index).expect("opens");
    conn.execute(ONE_REJECTED, []).expect("one rejected");
    let indexes = |conn: &rusqlite::Connection| -> Vec<String> {
        let mut stmt = conn
            .prepare(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'
                 ORDER BY name",
            )
            .expect("prepares");
        stmt.query_map([], |r| r.get(0))
            .and_then(Iterator::collect)
            .expect("names")
    };
    assert_eq!(indexes(&conn), ["events_round", "events_verdict_other"]);
    let kept = events_kept_at(&location);
    assert!(kept.len() > 10, "{} updates' events", kept.len());
    let before = answers(dir.path(), &shown, &words());
    assert!(count(&before, "verdict:rejected") >= 1, "{before:?}");
    assert!(count(&before, "verdict:accepted") > 10, "{before:?}");
    crate::common::migrated::times_from_1970(&conn);
    conn.execute_batch(SCHEMA_9).expect("schema 9");
    // Readers refuse it; the next writer migrates it.
    sqlite_migrates(
        dir.path(),
        url,
        &shown,
        9,
        ("verdict:rejected", "2", "verdicts other than accepted"),
    );
    assert_eq!(indexes(&conn), ["events_round", "events_verdict_other"]);
    assert_eq!(events_kept_at(&location), kept);
    assert_eq!(answers(dir.path(), &shown, &words()), before);
}

#[test]
fn a_postgres_index_of_schema_9_is_migrated_and_answers_the_same() {
    let Some((db, _server, url, dir)) = postgres_synced("schema9", "2") else {
        return;
    };
    let location = Location::Postgres(db.url.clone());
    let mut pg = postgres::Client::connect(&db.url, postgres::NoTls).expect("connects");
    pg.execute(ONE_REJECTED, &[]).expect("one rejected");
    let indexes = |pg: &mut postgres::Client| -> Vec<String> {
        pg.query(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'events'
                 AND indexname <> 'events_pkey' ORDER BY indexname",
            &[],
        )
        .expect("names")
        .iter()
        .map(|r| r.get(0))
        .collect()
    };
    assert_eq!(indexes(&mut pg), ["events_round", "events_verdict_other"]);
    // The search of a result other than accepted can read the partial index (the table is
    // small, so the planner is told to avoid a sequential scan to show it).
    let sql = store::events_term_sql(
        &cantonscope::model::index::query::EventsTerm::Verdict("rejected".to_owned()),
        '$',
    );
    let mut tx = pg.transaction().expect("a transaction");
    tx.batch_execute("SET LOCAL enable_seqscan = off")
        .expect("set");
    let plan: Vec<String> = tx
        .query(&format!("EXPLAIN {sql}"), &[&"rejected"])
        .expect("a plan")
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(
        plan.iter().any(|l| l.contains("events_verdict_other")),
        "{plan:?}"
    );
    tx.rollback().expect("rolled back");
    let kept = events_kept_at(&location);
    assert!(kept.len() > 10, "{} updates' events", kept.len());
    let before = answers(dir.path(), &db.url, &words());
    assert!(count(&before, "verdict:rejected") >= 1, "{before:?}");
    assert!(count(&before, "verdict:accepted") > 10, "{before:?}");
    pg.batch_execute(SCHEMA_9).expect("schema 9");
    postgres_migrates(dir.path(), url, &db, 9);
    assert_eq!(indexes(&mut pg), ["events_round", "events_verdict_other"]);
    assert_eq!(events_kept_at(&location), kept);
    assert_eq!(answers(dir.path(), &db.url, &words()), before);
}
