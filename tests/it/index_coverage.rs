//! `index status`'s events coverage per range (issue 37 §1): for each migration and each chunk,
//! how many of its updates have their events kept (`events: 62 %`). Run as the real binary
//! over real HTTP against the demo, on an index synced with `--no-events` in two ranges and
//! then partly backfilled (an `--events` run killed mid-way): the figures `index status`
//! prints, as JSON and as a table, equal those counted update by update through the store's
//! API, and reach 100 % once the backfill is resumed to its end.

use std::collections::BTreeMap;
use std::path::Path;

use cantonscope::model::format::{format_time_micros, parse_time_micros};
use cantonscope::store::{At, Location, Position};
use serde_json::Value;

use crate::index::{four, from, index_args, run, status, sync, temp, text};
use crate::index_events::kill_an_events_backfill;

/// `from()` plus `minutes`, as RFC 3339.
fn at(minutes: i64) -> String {
    format_time_micros(parse_time_micros(from()).expect("a time") + minutes * 60_000_000)
}

/// What the store's API says of each range: (updates, of them with events kept) per migration
/// and per chunk (the updates after its start up to its cursor), counted update by update.
type Counts = (BTreeMap<i64, (i64, i64)>, BTreeMap<i64, (i64, i64)>);

/// (updates, events, percent) by migration id or chunk id, as `index status` shows them.
type Shown = BTreeMap<i64, (i64, i64, Option<i64>)>;

fn counted(index: &Path) -> Counts {
    let mut store =
        cantonscope::store::open_reader(&Location::Sqlite(index.to_owned())).expect("opens");
    let updates = store.page_after(None, 1_000_000).expect("updates");
    let chunks = store.chunks().expect("chunks");
    let (mut migrations, mut per_chunk) = (BTreeMap::new(), BTreeMap::new());
    for update in &updates {
        let kept = i64::from(
            store
                .kept_events(&update.update_id)
                .expect("kept events")
                .is_some(),
        );
        let add = |map: &mut BTreeMap<i64, (i64, i64)>, key: i64| {
            let entry = map.entry(key).or_insert((0, 0));
            *entry = (entry.0 + 1, entry.1 + kept);
        };
        add(&mut migrations, update.migration_id);
        let place = At::new(update.migration_id, update.record_time);
        for chunk in &chunks {
            let after = chunk.start.as_ref().map_or(At::BEGIN, Position::order);
            let until = chunk.cursor.as_ref().map(Position::order);
            if place > after && until.is_some_and(|u| place <= u) {
                add(&mut per_chunk, chunk.id);
            }
        }
    }
    for chunk in &chunks {
        per_chunk.entry(chunk.id).or_insert((0, 0));
    }
    (migrations, per_chunk)
}

/// The events coverage `index status` (JSON) shows: (updates, events, percent) per migration
/// and per chunk.
fn shown(status: &Value) -> (Shown, Shown) {
    let of = |list: &str, key: &str| -> Shown {
        status[list]
            .as_array()
            .expect("a list")
            .iter()
            .map(|row| {
                let n = |p: &str| row.pointer(p).and_then(Value::as_i64).expect(p);
                (
                    n(key),
                    (
                        n("/events/updates"),
                        n("/events/events"),
                        row.pointer("/events/percent").and_then(Value::as_i64),
                    ),
                )
            })
            .collect()
    };
    (of("migrations", "/migration_id"), of("chunks", "/id"))
}

/// `events` of `updates` in whole percent, rounded down (`None`: no updates).
fn percent(updates: i64, events: i64) -> Option<i64> {
    (updates > 0).then(|| events * 100 / updates)
}

/// Asserts that `status` shows per range what the store's API counts of the index.
fn assert_coverage_as_counted(status: &Value, index: &Path) -> Counts {
    let (migrations, chunks) = counted(index);
    let (shown_migrations, shown_chunks) = shown(status);
    let expected = |map: &BTreeMap<i64, (i64, i64)>| -> Shown {
        map.iter()
            .map(|(&k, &(u, e))| (k, (u, e, percent(u, e))))
            .collect()
    };
    assert_eq!(shown_migrations, expected(&migrations), "{status}");
    assert_eq!(shown_chunks, expected(&chunks), "{status}");
    // The ranges' updates are those each migration has and each chunk's sync wrote, as before.
    for list in ["migrations", "chunks"] {
        for row in status[list].as_array().expect("a list") {
            assert_eq!(row["updates"], row["events"]["updates"], "{row}");
        }
    }
    (migrations, chunks)
}

#[test]
fn status_shows_events_coverage_per_migration_and_chunk_as_the_store_counts_it() {
    let demo = four();
    let url = &demo.handle.scan_url;
    let (dir, index) = temp();
    // Two ranges with a gap between them: two chunks, their updates without events.
    for (start, end) in [(0, 20), (40, 60)] {
        let (code, _, err) = sync(
            dir.path(),
            url,
            &index,
            &[
                "--from",
                &at(start),
                "--until",
                &at(end),
                "--verify",
                "1",
                "--no-events",
            ],
        );
        assert_eq!(code, 0, "{err}");
    }
    let st = status(dir.path(), &index);
    let (migrations, chunks) = assert_coverage_as_counted(&st, &index);
    assert_eq!(chunks.len(), 2, "{st}");
    assert!(chunks.values().all(|&(u, e)| u > 0 && e == 0), "{chunks:?}");
    assert!(migrations.values().all(|&(_, e)| e == 0), "{migrations:?}");
    // An --events backfill killed once it kept some: part of the index has its events.
    let killed = kill_an_events_backfill(dir.path(), url, &index);
    let st = status(dir.path(), &index);
    let (migrations, chunks) = assert_coverage_as_counted(&st, &index);
    let (updates, events) = migrations
        .values()
        .fold((0, 0), |(u, e), &(mu, me)| (u + mu, e + me));
    assert_eq!(events, i64::try_from(killed).expect("a count"));
    assert!(0 < events && events < updates, "{events} of {updates}");
    assert_eq!(st["events"].as_i64(), Some(events), "{st}");
    // The table shows each migration's and each chunk's share in its EVENTS column.
    let output = run(
        dir.path(),
        "http://127.0.0.1:9",
        &[&index_args(&index, "status")[..], &["--output", "table"]].concat(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let table = text(&output.stdout);
    let section = |title: &str| -> Vec<Vec<String>> {
        let mut lines = table
            .lines()
            .skip_while(|l| !l.starts_with(title))
            .skip(1)
            .take_while(|l| !l.trim().is_empty());
        let header: Vec<&str> = lines.next().expect("a header").split_whitespace().collect();
        let column = header.iter().position(|h| *h == "EVENTS").expect("EVENTS");
        lines
            .map(|l| {
                let cells: Vec<String> = l.split_whitespace().map(str::to_owned).collect();
                // The key, and the column's value and unit ("62 %": two words).
                vec![
                    cells[0].clone(),
                    format!("{} {}", cells[column], cells[column + 1]),
                ]
            })
            .collect()
    };
    let rows = |map: &BTreeMap<i64, (i64, i64)>| -> Vec<Vec<String>> {
        map.iter()
            .map(|(k, &(u, e))| {
                let shown = percent(u, e).expect("a chunk with updates");
                vec![k.to_string(), format!("{shown} %")]
            })
            .collect()
    };
    assert_eq!(section("migrations ("), rows(&migrations), "{table}");
    assert_eq!(section("chunks ("), rows(&chunks), "{table}");
    // The backfill resumed to its end: every range at 100 %.
    let (code, _, err) = sync(dir.path(), url, &index, &["--events", "--verify", "1"]);
    assert_eq!(code, 0, "{err}");
    let st = status(dir.path(), &index);
    let (migrations, chunks) = assert_coverage_as_counted(&st, &index);
    assert!(
        migrations
            .values()
            .chain(chunks.values())
            .all(|&(u, e)| u == e),
        "{st}"
    );
}
