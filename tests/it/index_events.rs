//! The events parts the index keeps beside each update (issue 37 §1): the verdict, the traffic
//! summary and the app activity records of `/v0/events`, in a table of their own (schema 7).
//! Run as the real binary over real HTTP against the demo: an index of the previous schema is
//! migrated in place by the next sync and keeps every update it had.

use cantonscope::model::format::{format_time_micros, parse_time_micros};

use crate::index::{four, from, index_args, kept, run, status, sync, temp, text};

#[test]
fn an_index_of_schema_6_is_refused_by_readers_and_migrated_in_place_keeping_its_updates() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let until = format_time_micros(parse_time_micros(from()).expect("a time") + 3_600_000_000);
    let (code, _, err) = sync(
        dir.path(),
        url,
        &index,
        &["--from", from(), "--until", &until, "--verify", "1"],
    );
    assert_eq!(code, 0, "{err}");
    let before = kept(&index);
    assert!(before.len() > 10, "{} updates", before.len());
    // Schema 6, as the cantonscope before kept it: no events table.
    {
        let conn = rusqlite::Connection::open(&index).expect("opens");
        conn.execute_batch(
            "DROP TABLE events; UPDATE meta SET value = '6' WHERE key = 'schema_version';",
        )
        .expect("schema 6");
    }
    let output = run(
        dir.path(),
        url,
        &[&index_args(&index, "search")[..], &["party:x"]].concat(),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("older cantonscope (schema 6)"));
    // The next sync migrates it (no re-sync: the same updates, the same digests).
    let (code, _, err) = sync(
        dir.path(),
        url,
        &index,
        &["--until", &until, "--verify", "1"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("migrated the index from schema 6 to schema 7")
            && err.contains("a table for each update's events"),
        "{err}"
    );
    assert_eq!(status(dir.path(), &index)["schema_version"], 7);
    assert_eq!(kept(&index), before);
    let conn = rusqlite::Connection::open(&index).expect("opens");
    let tables: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'events'",
            [],
            |r| r.get(0),
        )
        .expect("a count");
    assert_eq!(tables, 1, "the events table is made");
}
