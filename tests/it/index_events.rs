//! The events parts the index keeps beside each update (issue 37 §1): the verdict, the traffic
//! summary and the app activity records of `/v0/events`, in a table of their own (schema 7).
//! Run as the real binary over real HTTP against the demo: a sync keeps each update's events
//! as the scans serve them (the verdict without its scan-local `finalization_time`), verified
//! across scans, the older scan (404) named as not serving them; `--no-events` keeps none; an
//! index of the previous schema is migrated in place, keeps every update it had and gets their
//! events with `--events`, which resumes where a killed run left off.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use cantonscope::model::format::{format_time_micros, parse_time_micros};
use serde_json::Value;

use crate::common::bin::bin;
use crate::index::{four, from, index_args, kept, run, search_ids, status, sync, temp, text};

/// The end of the tests' hour of history (before the scans' verdict-ingestion head).
fn until() -> String {
    format_time_micros(parse_time_micros(from()).expect("a time") + 3_600_000_000)
}

/// Every events row the index keeps: update id, verdict JSON, round, result, mediator group,
/// scans, by update id.
type EventRow = (
    String,
    Option<String>,
    Option<i64>,
    Option<String>,
    Option<i64>,
    String,
);
type EventsKept = Vec<EventRow>;

fn events_kept(index: &Path) -> EventsKept {
    let conn = rusqlite::Connection::open(index).expect("opens");
    conn.prepare(
        "SELECT u.update_id, e.verdict, e.round_number, e.verdict_result, e.mediator_group, e.scans
         FROM events e JOIN updates u ON u.seq = e.seq ORDER BY u.update_id",
    )
    .expect("a query")
    .query_map([], |r| {
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
        ))
    })
    .expect("rows")
    .collect::<Result<_, _>>()
    .expect("rows")
}

/// `scan event ID` of the scan at `url`.
fn scan_event(dir: &Path, url: &str, id: &str) -> Value {
    let output = run(dir, url, &["scan", "event", id]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("JSON")
}

#[test]
fn a_sync_keeps_each_updates_events_as_the_scans_serve_them_and_no_events_keeps_none() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let until = until();
    let (code, out, err) = sync(
        dir.path(),
        url,
        &index,
        &["--from", from(), "--until", &until, "--verify", "2"],
    );
    assert_eq!(code, 0, "{err}");
    let rows = events_kept(&index);
    let updates = kept(&index).len();
    assert!(updates > 10, "{updates} updates");
    assert_eq!(rows.len(), updates, "every update's events: {out}");
    assert_eq!(
        out["events"]["kept"].as_u64(),
        Some(updates as u64),
        "{out}"
    );
    // The older scan (the highest-numbered: 404 on /v0/events) is named, never a dispute.
    for name in out["events"]["not_served_by"].as_array().expect("a list") {
        assert!(name.as_str().is_some_and(|n| n.contains("404")), "{out}");
    }
    // Each kept verdict is the scan's /v0/events/{id} without its finalization_time, its
    // columns read from it, confirmed by two scans.
    let with_verdict: Vec<_> = rows.iter().filter(|r| r.1.is_some()).collect();
    assert!(!with_verdict.is_empty());
    let step = (with_verdict.len() / 6).max(1);
    for (id, verdict, round, result, group, scans) in with_verdict.into_iter().step_by(step) {
        let mut served = scan_event(dir.path(), url, id)["verdict"].clone();
        served
            .as_object_mut()
            .expect("a verdict")
            .remove("finalization_time");
        let verdict: Value = serde_json::from_str(verdict.as_deref().expect("kept")).expect("JSON");
        assert_eq!(verdict, served, "{id}");
        assert_eq!(*round, served["round_number"].as_i64(), "{id}");
        let expected = match served["verdict_result"].as_str() {
            Some("VERDICT_RESULT_ACCEPTED") => "accepted",
            Some("VERDICT_RESULT_REJECTED") => "rejected",
            _ => "unspecified",
        };
        assert_eq!(result.as_deref(), Some(expected), "{id}");
        assert_eq!(*group, served["mediator_group"].as_i64(), "{id}");
        assert_eq!(scans.split(',').count(), 2, "{id}: {scans}");
    }
    let st = status(dir.path(), &index);
    assert_eq!(st["events"].as_u64(), Some(updates as u64), "{st}");

    // verdict:, round: and mediator: find the updates whose kept verdict says so (in the
    // index's order, newest first: the same set), alone and together.
    let mut order = kept(&index);
    order.reverse();
    let expect = |keep: &dyn Fn(&EventRow) -> bool| -> Vec<String> {
        order
            .iter()
            .filter(|(id, _)| rows.iter().any(|r| &r.0 == id && keep(r)))
            .map(|(id, _)| id.clone())
            .collect()
    };
    let search = |terms: &[&str]| search_ids(dir.path(), &index, terms, &["--limit", "100000"]);
    let accepted = expect(&|r| r.3.as_deref() == Some("accepted"));
    assert!(!accepted.is_empty());
    assert_eq!(search(&["verdict:accepted"]), accepted);
    assert_eq!(
        search(&["verdict:rejected"]),
        expect(&|r| r.3.as_deref() == Some("rejected"))
    );
    let round = rows
        .iter()
        .find_map(|r| r.2)
        .expect("a verdict with its round");
    let in_round = expect(&|r| r.2 == Some(round));
    assert!(!in_round.is_empty());
    assert_eq!(search(&[&format!("round:{round}")]), in_round);
    let group = rows.iter().find_map(|r| r.4).expect("a mediator group");
    assert_eq!(
        search(&[&format!("mediator:{group}"), "verdict:accepted"]),
        expect(&|r| r.4 == Some(group) && r.3.as_deref() == Some("accepted"))
    );
    assert!(search(&["round:-1"]).is_empty());

    // --no-events keeps the updates alone: the same updates, no events.
    let bare = dir.path().join("bare.sqlite");
    let (code, out, err) = sync(
        dir.path(),
        url,
        &bare,
        &[
            "--from",
            from(),
            "--until",
            &until,
            "--verify",
            "2",
            "--no-events",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.get("events").is_none(), "{out}");
    assert_eq!(kept(&bare), kept(&index));
    assert!(events_kept(&bare).is_empty());
    let size = |st: &Value| st["size_bytes"].as_u64().expect("a size");
    let (with, without) = (size(&st), size(&status(dir.path(), &bare)));
    eprintln!(
        "events on disk: {with} bytes with, {without} without, {updates} updates: {} bytes an update",
        (with.saturating_sub(without)) / updates as u64
    );
}

/// Runs `index sync --events` into `index`, killed with SIGKILL once it has kept some events
/// (each page one transaction): how many events it had kept then.
fn kill_an_events_backfill(dir: &Path, url: &str, index: &Path) -> usize {
    let mut args = index_args(index, "sync");
    args.extend_from_slice(&[
        "--events",
        "--verify",
        "1",
        "--page-size",
        "3",
        "--request-rate",
        "200",
    ]);
    let mut child = bin(dir)
        .arg("--scan-url")
        .arg(url)
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let started = std::time::Instant::now();
    loop {
        let kept = rusqlite::Connection::open(index)
            .and_then(|c| c.query_row("SELECT count(*) FROM events", [], |r| r.get::<_, i64>(0)))
            .unwrap_or(0);
        if kept > 0 || started.elapsed() > Duration::from_secs(30) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("kill");
    child.wait().expect("wait");
    events_kept(index).len()
}

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
    // The next sync migrates it (no re-sync: the same updates, the same digests; their
    // events left for --events below).
    let (code, _, err) = sync(
        dir.path(),
        url,
        &index,
        &["--until", &until, "--verify", "1", "--no-events"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("migrated the index from schema 6 to schema 8")
            && err.contains("a table for each update's events"),
        "{err}"
    );
    assert_eq!(status(dir.path(), &index)["schema_version"], 8);
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
    drop(conn);
    // Its events come with --events, without fetching a body again: killed mid-way, the next
    // run goes on where it stopped, and the result is a straight sync's.
    assert!(events_kept(&index).is_empty());
    let killed = kill_an_events_backfill(dir.path(), url, &index);
    assert!(
        killed < before.len(),
        "killed after {killed} of {}",
        before.len()
    );
    let st = status(dir.path(), &index);
    assert_eq!(st["events"].as_u64(), Some(killed as u64));
    let output = run(
        dir.path(),
        "http://127.0.0.1:9",
        &[&index_args(&index, "status")[..], &["--output", "table"]].concat(),
    );
    assert!(
        text(&output.stdout).contains(&format!("{} %", killed * 100 / before.len())),
        "{}",
        text(&output.stdout)
    );
    let (code, out, err) = sync(dir.path(), url, &index, &["--events", "--verify", "2"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(kept(&index), before, "no update changed");
    let straight = dir.path().join("straight.sqlite");
    let (code, _, err) = sync(
        dir.path(),
        url,
        &straight,
        &["--from", from(), "--until", &until, "--verify", "2"],
    );
    assert_eq!(code, 0, "{err}");
    let strip = |rows: EventsKept| -> Vec<_> {
        rows.into_iter()
            .map(|r| (r.0, r.1, r.2, r.3, r.4))
            .collect()
    };
    assert_eq!(
        strip(events_kept(&index)),
        strip(events_kept(&straight)),
        "{out}"
    );
    let st = status(dir.path(), &index);
    assert_eq!(st["events"], st["updates"], "{st}");
}
