//! `cantonscope index stats` (issue 37 §4): totals and a daily series computed from the index,
//! run as the real binary on an index synced over real HTTP from the demo, each figure equal to
//! what this test counts itself from the demo's own `/v2/updates` and `/v0/events` pages.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use cantonscope::model::amount::Amount;
use cantonscope::model::format::{format_time_micros, parse_time_micros};
use serde_json::{Value, json};

use cantonscope::store::Location;

use crate::common::bin::runtime;
use crate::common::http::post;
use crate::index::{four, from, index_args, run, sync, temp, text};

/// The end of the tests' range: two hours after its start (before the verdict-ingestion head).
pub(crate) fn until() -> String {
    format_time_micros(parse_time_micros(from()).expect("a time") + 2 * 3_600_000_000)
}

/// One day's figures as this test counts them.
#[derive(Debug, Default)]
pub(crate) struct Day {
    updates: i64,
    transfers: i64,
    volume: Option<Amount>,
    parties: BTreeSet<String>,
    validators: BTreeSet<String>,
    vote_requests: i64,
    vote_results: i64,
    traffic_cost: i64,
    events: i64,
}

/// Every item of a paged POST endpoint (`/v2/updates`: `transactions`, `/v0/events`: `events`)
/// after (`migration`, `from`) until a page is empty or its items are past `until`.
fn walk(url: &str, path: &str, field: &str, migration: i64, from: &str, until: i64) -> Vec<Value> {
    let rt = runtime();
    let mut after = (migration, from.to_owned());
    let mut items = Vec::new();
    loop {
        let body = json!({"page_size": 500, "after": {"after_migration_id": after.0, "after_record_time": after.1}});
        let (status, page) = rt.block_on(post(&format!("{url}{path}"), &body));
        assert!(status.is_success(), "{path}: {status} {page}");
        let page = page[field].as_array().cloned().unwrap_or_default();
        let Some(last) = page.last() else {
            return items;
        };
        let item = last.get("update").unwrap_or(last);
        after = (
            item["migration_id"]
                .as_i64()
                .or_else(|| item["event"]["migration_id"].as_i64())
                .expect("a migration"),
            item["record_time"].as_str().expect("a time").to_owned(),
        );
        items.extend(page);
        if parse_time_micros(&after.1).expect("a time") > until {
            return items;
        }
    }
}

/// The figures per day (`YYYY-MM-DD`) of the updates the index keeps, counted from the demo's
/// pages.
/// `index` is a file or a `postgres://` URL.
pub(crate) fn expected(url: &str, index: &str, from: &str, until: &str) -> BTreeMap<String, Day> {
    let mut store =
        cantonscope::store::open_reader(&Location::parse(index)).expect("the index opens");
    let ids: HashSet<String> = store
        .digests()
        .expect("digests")
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    // The pages are walked from the migration of the first update kept.
    let migration = store.page_after(None, 1).expect("a page")[0].migration_id;
    drop(store);
    let until = parse_time_micros(until).expect("a time");
    let updates = walk(
        url,
        "/api/scan/v2/updates",
        "transactions",
        migration,
        from,
        until,
    );
    let events = walk(url, "/api/scan/v0/events", "events", migration, from, until);
    let traffic: HashMap<String, Value> = events
        .into_iter()
        .filter_map(|e| {
            let id = e["update"]["update_id"].as_str()?.to_owned();
            Some((id, e["traffic_summary"].clone()))
        })
        .collect();
    let mut days: BTreeMap<String, Day> = BTreeMap::new();
    let mut seen = HashSet::new();
    for item in updates {
        let id = item["update_id"].as_str().expect("an id").to_owned();
        if !ids.contains(&id) || !seen.insert(id.clone()) {
            continue;
        }
        let time = item["record_time"].as_str().expect("a time");
        let day = days.entry(time[..10].to_owned()).or_default();
        day.updates += 1;
        if let Some(summary) = traffic.get(&id) {
            day.events += 1;
            day.traffic_cost += summary["total_traffic_cost"].as_i64().unwrap_or(0);
        }
        let Some(events) = item["events_by_id"].as_object() else {
            continue;
        };
        for event in events.values() {
            if let Some(choice) = event["choice"].as_str() {
                for party in event["acting_parties"].as_array().into_iter().flatten() {
                    day.parties
                        .insert(party.as_str().expect("a party").to_owned());
                }
                match choice {
                    "AmuletRules_Transfer" => {
                        day.transfers += 1;
                        for output in event["choice_argument"]["transfer"]["outputs"]
                            .as_array()
                            .into_iter()
                            .flatten()
                        {
                            let amount = Amount::parse(output["amount"].as_str().expect("amount"))
                                .expect("an amount");
                            day.volume = Some(match day.volume {
                                Some(v) => v.checked_add(amount).expect("fits"),
                                None => amount,
                            });
                        }
                    }
                    "DsoRules_RequestVote" => day.vote_requests += 1,
                    "DsoRules_CloseVoteRequest" => day.vote_results += 1,
                    _ => {}
                }
            } else if let Some(template) = event["template_id"].as_str()
                && [
                    ":ValidatorLicense",
                    ":ValidatorFaucetCoupon",
                    ":ValidatorLivenessActivityRecord",
                ]
                .iter()
                .any(|t| template.ends_with(t))
            {
                let validator = event["create_arguments"]["validator"]
                    .as_str()
                    .expect("a validator");
                day.validators.insert(validator.to_owned());
            }
        }
    }
    assert_eq!(
        days.values().map(|d| d.updates).sum::<i64>(),
        ids.len() as i64,
        "every kept update found in the pages"
    );
    days
}

/// `index stats` with `args`: stdout and stderr.
pub(crate) fn stats(dir: &Path, index: &str, args: &[&str]) -> (String, String) {
    let mut all = index_args(index, "stats");
    all.extend_from_slice(args);
    let output = run(dir, "http://127.0.0.1:9", &all);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    (text(&output.stdout), text(&output.stderr))
}

/// `row` (of `index stats`) against `day`.
fn assert_day(row: &Value, day: &Day) {
    let volume = day.volume.map_or("0".to_owned(), Amount::plain);
    assert_eq!(row["updates"].as_i64(), Some(day.updates), "{row}");
    assert_eq!(
        row["updates_with_bodies"].as_i64(),
        Some(day.updates),
        "{row}"
    );
    assert_eq!(
        row["updates_with_events"].as_i64(),
        Some(day.events),
        "{row}"
    );
    assert_eq!(row["transfers"].as_i64(), Some(day.transfers), "{row}");
    assert_eq!(row["volume"].as_str(), Some(volume.as_str()), "{row}");
    assert_eq!(
        row["active_parties"].as_i64(),
        Some(day.parties.len() as i64),
        "{row}"
    );
    assert_eq!(
        row["validators"].as_i64(),
        Some(day.validators.len() as i64),
        "{row}"
    );
    assert_eq!(
        row["vote_requests"].as_i64(),
        Some(day.vote_requests),
        "{row}"
    );
    assert_eq!(
        row["vote_results"].as_i64(),
        Some(day.vote_results),
        "{row}"
    );
    assert_eq!(
        row["traffic_cost"].as_i64(),
        Some(day.traffic_cost),
        "{row}"
    );
}

/// The days of `expected` together (the distinct counts over them all).
pub(crate) fn together(days: &BTreeMap<String, Day>) -> Day {
    let mut all = Day::default();
    for d in days.values() {
        all.updates += d.updates;
        all.events += d.events;
        all.transfers += d.transfers;
        all.volume = match (all.volume, d.volume) {
            (Some(a), Some(b)) => Some(a.checked_add(b).expect("fits")),
            (a, b) => a.or(b),
        };
        all.parties.extend(d.parties.iter().cloned());
        all.validators.extend(d.validators.iter().cloned());
        all.vote_requests += d.vote_requests;
        all.vote_results += d.vote_results;
        all.traffic_cost += d.traffic_cost;
    }
    all
}

/// The daily series and the totals of `index stats --daily` on `index` equal `days`.
pub(crate) fn assert_stats(dir: &Path, index: &str, days: &BTreeMap<String, Day>) -> Value {
    let (out, err) = stats(dir, index, &["--daily", "--output", "json"]);
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    let rows = doc["days"].as_array().expect("days");
    assert_eq!(
        rows.iter()
            .map(|r| r["day"].as_str().expect("a day"))
            .collect::<Vec<_>>(),
        days.keys().map(String::as_str).collect::<Vec<_>>(),
        "{doc}"
    );
    for (row, day) in rows.iter().zip(days.values()) {
        assert_day(row, day);
    }
    assert_day(&doc["totals"], &together(days));
    assert!(doc["totals"]["transfers"].as_i64() > Some(0), "{doc}");
    assert!(doc["totals"]["traffic_cost"].as_i64() > Some(0), "{doc}");
    assert!(doc["totals"]["validators"].as_i64() > Some(0), "{doc}");
    assert!(doc["days_counted"].as_u64() > Some(0), "{doc} {err}");
    doc
}

#[test]
fn index_stats_equal_what_the_demos_own_pages_count_per_day_and_in_total() {
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
    let path = index.to_str().expect("utf-8");
    let days = expected(url, path, from(), &until);
    let doc = assert_stats(dir.path(), path, &days);

    // A second run counts nothing anew and answers the same.
    let (again, _) = stats(dir.path(), path, &["--daily", "--output", "json"]);
    let again: Value = serde_json::from_str(&again).expect("JSON");
    assert_eq!(again["days_counted"].as_u64(), Some(0), "{again}");
    assert_eq!(again["days"], doc["days"]);
    assert_eq!(again["totals"], doc["totals"]);

    // Without --daily: the totals alone; --from/--until a day: that day's figures.
    let (alone, _) = stats(dir.path(), path, &["--output", "json"]);
    let alone: Value = serde_json::from_str(&alone).expect("JSON");
    assert!(alone.get("days").is_none(), "{alone}");
    assert_eq!(alone["totals"], doc["totals"]);
    let (day, figures) = days.iter().next_back().expect("a day");
    let (one, _) = stats(
        dir.path(),
        path,
        &["--from", day, "--until", day, "--output", "json"],
    );
    let one: Value = serde_json::from_str(&one).expect("JSON");
    assert_day(&one["totals"], figures);
    assert_eq!(one["from"].as_str(), Some(day.as_str()));

    // CSV: the header, a line a day, the totals last; the table the same rows.
    let (csv, _) = stats(dir.path(), path, &["--daily", "--output", "csv"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "day,updates,transfers,volume,active_parties,validators,vote_requests,vote_results,traffic_cost,updates_with_bodies,updates_with_events"
    );
    assert_eq!(lines.len(), days.len() + 2, "{csv}");
    let total = &doc["totals"];
    assert_eq!(
        lines[lines.len() - 1],
        format!(
            "total,{},{},{},{},{},{},{},{},{},{}",
            total["updates"],
            total["transfers"],
            total["volume"].as_str().expect("text"),
            total["active_parties"],
            total["validators"],
            total["vote_requests"],
            total["vote_results"],
            total["traffic_cost"],
            total["updates_with_bodies"],
            total["updates_with_events"]
        )
    );
    let (table, _) = stats(dir.path(), path, &["--daily", "--output", "table"]);
    assert!(table.starts_with("DAY"), "{table}");
    assert!(
        table.lines().last().is_some_and(|l| l.starts_with("total")),
        "{table}"
    );

    // Another command refuses --output csv (usage, exit 2).
    let output = run(
        dir.path(),
        "http://127.0.0.1:9",
        &["index", "--index", path, "status", "--output", "csv"],
    );
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
}

#[test]
fn index_stats_count_again_only_the_days_a_later_sync_wrote_and_refuse_a_missing_index() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let until = until();
    let half = format_time_micros(parse_time_micros(from()).expect("a time") + 3_600_000_000);
    let (code, _, err) = sync(
        dir.path(),
        url,
        &index,
        &["--from", from(), "--until", &half, "--no-events"],
    );
    assert_eq!(code, 0, "{err}");
    let path = index.to_str().expect("utf-8");
    // Schema 7, as the cantonscope before kept it: no summary tables. `index stats` migrates
    // it in place and fills the summary from the kept updates.
    {
        let conn = rusqlite::Connection::open(&index).expect("opens");
        crate::common::migrated::times_from_1970(&conn);
        conn.execute_batch(
            "DROP TABLE daily_stats; DROP TABLE daily_actors;
             UPDATE meta SET value = '7' WHERE key = 'schema_version';",
        )
        .expect("schema 7");
    }
    let (first, err) = stats(dir.path(), path, &["--output", "json"]);
    assert!(
        err.contains("migrated the index from schema 7 to schema 21")
            && err.contains("a per-day summary for `index stats`"),
        "{err}"
    );
    let first: Value = serde_json::from_str(&first).expect("JSON");
    assert_eq!(first["totals"]["updates_with_events"].as_i64(), Some(0));
    assert_eq!(first["totals"]["traffic_cost"].as_i64(), Some(0));
    // The rest of the range, then the events of all of it: the figures follow.
    let (code, _, err) = sync(dir.path(), url, &index, &["--until", &until]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = sync(dir.path(), url, &index, &["--events"]);
    assert_eq!(code, 0, "{err}");
    let days = expected(url, path, from(), &until);
    assert_stats(dir.path(), path, &days);

    let missing = dir.path().join("none.sqlite");
    let output = run(
        dir.path(),
        "http://127.0.0.1:9",
        &index_args(&missing, "stats"),
    );
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(!missing.exists(), "no index made");
}
