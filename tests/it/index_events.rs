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
use cantonscope::store::{KeptEvents, Location};
use serde_json::Value;

use crate::common::bin::bin;
use crate::index::{four, from, index_args, kept, run, search_ids, status, sync, temp, text};

/// The end of the tests' hour of history (before the scans' verdict-ingestion head).
pub(crate) fn until() -> String {
    format_time_micros(parse_time_micros(from()).expect("a time") + 3_600_000_000)
}

/// A new index synced from the scan at `url` over the tests' hour with `--verify 2`: its
/// directory and path, and the sync's exit code, JSON and stderr.
pub(crate) fn synced_hour(
    url: &str,
) -> (tempfile::TempDir, std::path::PathBuf, (i32, Value, String)) {
    let (dir, index) = temp();
    let ended = sync(
        dir.path(),
        url,
        &index,
        &["--from", from(), "--until", &until(), "--verify", "2"],
    );
    (dir, index, ended)
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

/// Every update's events as the index at `location` keeps them, read through the store's API
/// (`IndexReader::kept_events`), by update id.
pub(crate) fn events_kept_at(location: &Location) -> Vec<KeptEvents> {
    let mut store = cantonscope::store::open_reader(location).expect("index opens");
    let mut ids: Vec<String> = store
        .digests()
        .expect("digests")
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    ids.sort();
    ids.iter()
        .filter_map(|id| store.kept_events(id).expect("kept events"))
        .collect()
}

fn events_kept(index: &Path) -> EventsKept {
    events_rows(&Location::Sqlite(index.to_owned()))
}

/// [`events_kept_at`] as [`EventRow`]s.
pub(crate) fn events_rows(location: &Location) -> EventsKept {
    events_kept_at(location)
        .into_iter()
        .map(|e| {
            (
                e.update_id,
                e.verdict,
                e.round_number,
                e.verdict_result,
                e.mediator_group,
                e.scans.join(","),
            )
        })
        .collect()
}

/// How many updates' events the index keeps (`index status`'s count, through the API).
fn events_count(index: &Path) -> Option<i64> {
    let mut store = cantonscope::store::open_reader(&Location::Sqlite(index.to_owned())).ok()?;
    store.status(0).ok().map(|s| s.events)
}

/// The rows of `sql` (the columns of an [`EventRow`]) in the index.
fn rows_of(index: &Path, sql: &str) -> EventsKept {
    let conn = rusqlite::Connection::open(index).expect("opens");
    conn.prepare(sql)
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

/// Every event with a verdict and no update the index keeps (schema 8), as [`events_kept`].
fn verdict_events_kept(index: &Path) -> EventsKept {
    rows_of(
        index,
        "SELECT update_id, verdict, round_number, verdict_result, mediator_group, scans
         FROM verdict_events ORDER BY update_id",
    )
}

/// The ids of the updates and of the events with a verdict and no update the index keeps,
/// newest first (as searches list them).
fn listed_newest_first(index: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(index).expect("opens");
    conn.prepare(
        "SELECT update_id FROM (
             SELECT CASE WHEN typeof(update_id) = 'blob' THEN lower(hex(update_id))
                         ELSE update_id END AS update_id, migration_id, record_time FROM updates
             UNION ALL SELECT update_id, migration_id, record_time FROM verdict_events)
         ORDER BY migration_id DESC, record_time DESC",
    )
    .expect("a query")
    .query_map([], |r| r.get(0))
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
    let url = &demo.handle.scan_url;
    let until = until();
    let (dir, index, (code, out, err)) = synced_hour(url);
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

    // verdict:, round: and mediator: find the updates whose kept verdict says so, and the
    // events with a verdict and no update that do (records of their own), in the index's
    // order, newest first: the same set, alone and together.
    let order = listed_newest_first(&index);
    let all: EventsKept = rows
        .iter()
        .cloned()
        .chain(verdict_events_kept(&index))
        .collect();
    let expect = |keep: &dyn Fn(&EventRow) -> bool| -> Vec<String> {
        order
            .iter()
            .filter(|id| all.iter().any(|r| &r.0 == *id && keep(r)))
            .cloned()
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
    assert!(
        !search(&["verdict:rejected"]).is_empty(),
        "the demo's rejected requests"
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
pub(crate) fn kill_an_events_backfill(dir: &Path, url: &str, index: &Path) -> usize {
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
        let kept = events_count(index).unwrap_or(0);
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
        crate::common::migrated::times_from_1970(&conn);
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
        err.contains("migrated the index from schema 6 to schema 21")
            && err.contains("a table for each update's events"),
        "{err}"
    );
    assert_eq!(status(dir.path(), &index)["schema_version"], 21);
    assert_eq!(kept(&index), before);
    assert_eq!(events_count(&index), Some(0), "the events table is made");
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

/// The events table of schema 7, as the cantonscope before kept it: the parts as JSON text
/// and the confirming scans' names (both engines' DDL: their types read the same).
pub(crate) const EVENTS_7: &str = "
DROP TABLE events;
DROP TABLE event_dictionaries;
CREATE TABLE events (
    seq BIGINT PRIMARY KEY,
    served BIGINT NOT NULL,
    verdict TEXT,
    traffic_summary TEXT,
    app_activity_records TEXT,
    round_number BIGINT,
    verdict_result TEXT,
    mediator_group BIGINT,
    digest BYTEA NOT NULL,
    scans TEXT NOT NULL
);
CREATE INDEX events_round ON events (round_number) WHERE round_number IS NOT NULL;
CREATE INDEX events_verdict ON events (verdict_result, mediator_group)
    WHERE verdict_result IS NOT NULL;
UPDATE meta SET value = '7' WHERE key = 'schema_version';
";

/// The row of `kept` as schema 7 kept it: its parameters after the update id, for the
/// statement `INSERT INTO events SELECT seq, … FROM updates WHERE update_id = $1`.
pub(crate) const EVENTS_7_INSERT: &str =
    "INSERT INTO events (seq, served, verdict, traffic_summary,
    app_activity_records, round_number, verdict_result, mediator_group, digest, scans)
    SELECT seq, $2, $3, $4, $5, $6, $7, $8, $9, $10 FROM updates WHERE update_id = $1";

#[test]
fn an_index_of_schema_7_is_migrated_in_place_its_events_repacked_and_read_back_as_kept() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let until = until();
    let (code, _, err) = sync(
        dir.path(),
        url,
        &index,
        &["--from", from(), "--until", &until, "--verify", "2"],
    );
    assert_eq!(code, 0, "{err}");
    let location = Location::Sqlite(index.clone());
    let before = events_kept_at(&location);
    let updates = kept(&index);
    assert_eq!(before.len(), updates.len());
    assert!(before.iter().any(|e| e.traffic_summary.is_some()));
    let search = |terms: &[&str]| search_ids(dir.path(), &index, terms, &["--limit", "100000"]);
    let accepted = search(&["verdict:accepted"]);
    assert!(!accepted.is_empty());
    // The index as schema 7 kept it: the same events as text columns.
    {
        let mut conn = rusqlite::Connection::open(&index).expect("opens");
        crate::common::migrated::times_from_1970(&conn);
        let tx = conn.transaction().expect("a transaction");
        tx.execute_batch(EVENTS_7).expect("schema 7");
        for e in &before {
            tx.execute(
                // SQLite keeps an update id as bytes (schema 13) or as text.
                &EVENTS_7_INSERT
                    .replace('$', "?")
                    .replace("update_id = ?1", "update_id IN (?1, unhex(?1))"),
                rusqlite::params![
                    e.update_id,
                    e.served,
                    e.verdict,
                    e.traffic_summary,
                    e.app_activity_records,
                    e.round_number,
                    e.verdict_result,
                    e.mediator_group,
                    hex::decode(&e.digest).expect("hex"),
                    e.scans.join(",")
                ],
            )
            .expect("a row");
        }
        tx.commit().expect("commits");
    }
    let output = run(
        dir.path(),
        url,
        &[&index_args(&index, "search")[..], &["party:x"]].concat(),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("older cantonscope (schema 7)"));
    // The next sync migrates it in place: every update's events read back as they were kept,
    // found by the same searches; nothing fetched again.
    let (code, _, err) = sync(
        dir.path(),
        url,
        &index,
        &["--until", &until, "--verify", "1", "--no-events"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("migrated the index from schema 7 to schema 21")
            && err.contains(&format!(
                "the events of {} updates packed with zstd and a dictionary",
                before.len()
            )),
        "{err}"
    );
    assert_eq!(status(dir.path(), &index)["schema_version"], 21);
    assert_eq!(kept(&index), updates);
    assert_eq!(events_kept_at(&location), before);
    assert_eq!(search(&["verdict:accepted"]), accepted);
    // The first sync with events after it walks the index once for the events with a verdict
    // and no update, which schema 7 did not keep; the updates' events stay as they were.
    let (code, out, err) = sync(
        dir.path(),
        url,
        &index,
        &["--until", &until, "--verify", "2"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out["events"]["verdict_only"].as_u64() > Some(0), "{out}");
    assert_eq!(events_kept_at(&location), before);
    // The next has nothing left to keep.
    let (code, out, err) = sync(
        dir.path(),
        url,
        &index,
        &["--until", &until, "--verify", "2"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out["events"]["kept"].as_u64(), Some(0), "{out}");
    assert_eq!(out["events"]["verdict_only"].as_u64(), Some(0), "{out}");
    assert_eq!(events_kept_at(&location), before);
}

/// The update ids the index keeps (ledger order), and of them those whose events it keeps.
fn kept_and_with_events(index: &Path) -> (Vec<String>, std::collections::HashSet<String>) {
    let updates: Vec<String> = kept(index).into_iter().map(|(id, _)| id).collect();
    let with = events_kept_at(&Location::Sqlite(index.to_owned()))
        .into_iter()
        .map(|e| e.update_id)
        .collect();
    (updates, with)
}

#[test]
fn a_follower_keeps_the_new_updates_events_each_round_those_past_the_verdict_head_later() {
    let demo = crate::index::start(
        cantonscope::demo::DemoConfig {
            stagger: false,
            seed: 41,
            // Slow enough that the scans' verdict head (two updates behind their newest) stays
            // behind what a round wrote until the round's events walk, even on a loaded machine.
            rate: 1.0,
            ..cantonscope::demo::DemoConfig::default()
        }
        .with_total_scans(3),
    );
    let (dir, index) = temp();
    let url = demo.handle.scan_url.clone();
    let recent = format_time_micros(chrono::Utc::now().timestamp_micros() - 120_000_000);
    let mut args = index_args(&index, "sync");
    args.extend_from_slice(&[
        "--request-rate",
        "1000",
        "--verify",
        "2",
        "--from",
        &recent,
        "--follow",
    ]);
    let child = bin(dir.path())
        .arg("--scan-url")
        .arg(&url)
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    // Each round keeps the events of the updates it wrote, but for the newest: those past
    // the scans' verdict-ingestion head are not synced yet, and only they (a suffix).
    let started = std::time::Instant::now();
    let mut lacking_seen: Vec<String> = Vec::new();
    let mut rounds = 0;
    while rounds < 4 {
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "the follower keeps no events ({rounds} rounds)"
        );
        std::thread::sleep(Duration::from_millis(700));
        let (updates, with) = kept_and_with_events(&index);
        if with.is_empty() {
            continue;
        }
        let first_lacking = updates.iter().position(|id| !with.contains(id));
        if let Some(first) = first_lacking {
            assert!(
                updates[first..].iter().all(|id| !with.contains(id)),
                "only the newest updates lack their events"
            );
            if lacking_seen.is_empty() {
                lacking_seen = updates[first..].to_vec();
            }
        }
        rounds += 1;
    }
    assert!(!lacking_seen.is_empty(), "some updates were past the head");
    // Those kept their events in a later round, without a restart.
    let later = loop {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the updates past the head never got their events"
        );
        let (_, with) = kept_and_with_events(&index);
        if lacking_seen.iter().all(|id| with.contains(id)) {
            break with;
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    // Verified as a sync's: each equals the scan's /v0/events/{id}, confirmed by two scans.
    let kept_now = events_kept_at(&Location::Sqlite(index.clone()));
    for id in &lacking_seen {
        assert!(later.contains(id));
        let e = kept_now.iter().find(|e| &e.update_id == id).expect("kept");
        let mut served = scan_event(dir.path(), &url, id)["verdict"].clone();
        if let Some(v) = served.as_object_mut() {
            v.remove("finalization_time");
        }
        let verdict: Value = e
            .verdict
            .as_deref()
            .map_or(Value::Null, |v| serde_json::from_str(v).expect("JSON"));
        assert_eq!(verdict, served, "{id}");
        assert_eq!(e.scans.len(), 2, "{id}: {:?}", e.scans);
    }
    let output = crate::index::terminated(child);
    let result: Value = serde_json::from_slice(&output.stdout).expect("result JSON");
    assert_eq!(result["outcome"], "stopped", "{result}");
}
