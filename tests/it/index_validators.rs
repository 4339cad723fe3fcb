//! `index validators` and `scan validator-licenses` (issue 37 §4), run as the real binary over
//! real HTTP against a demo of two scans: the index lists exactly the validators whose
//! licences the demo's ledger created (checked against the demo's own updates and the scan's
//! licences endpoint), each one's first licence and last activity (time, round, count) as the
//! kept updates say; the licences endpoint's pages, its `--all` and its 400; the sort orders
//! and the csv; an index of schema 8 migrated in place.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cantonscope::demo::DemoConfig;
use cantonscope::model::format::{format_time_micros, parse_time_micros};
use serde_json::Value;

use crate::index::{Demo, index_args, run, start, sync, temp, text};

fn demo() -> &'static Demo {
    static DEMO: OnceLock<Demo> = OnceLock::new();
    DEMO.get_or_init(|| {
        start(
            DemoConfig {
                stagger: false,
                ..DemoConfig::default()
            }
            .with_total_scans(2),
        )
    })
}

/// The URL of the demo's first scan (the PostgreSQL test syncs the same demo).
pub(crate) fn demo_url() -> String {
    demo().handle.scan_url.clone()
}

/// What the tests sync up to (the demo goes on making updates after it).
pub(crate) fn until() -> &'static str {
    static UNTIL: OnceLock<String> = OnceLock::new();
    UNTIL.get_or_init(|| format_time_micros(chrono::Utc::now().timestamp_micros() - 1_000_000))
}

/// The demo's whole history up to [`until`] synced once, verified by both scans.
fn synced() -> &'static (tempfile::TempDir, PathBuf) {
    static SYNCED: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    SYNCED.get_or_init(|| {
        let (dir, index) = temp();
        let (code, out, err) = sync(
            dir.path(),
            &demo_url(),
            &index,
            &["--from", "begin", "--until", until(), "--verify", "2"],
        );
        assert_eq!(code, 0, "{err}\n{out}");
        (dir, index)
    })
}

/// `index validators` with `extra` flags: exit code, stdout, stderr.
pub(crate) fn validators(
    dir: &Path,
    url: &str,
    index: &(impl AsRef<Path> + ?Sized),
    extra: &[&str],
) -> (i32, String, String) {
    let mut args = vec!["--output", "json"];
    args.extend(index_args(index, "validators"));
    args.extend_from_slice(extra);
    let output = run(dir, url, &args);
    (
        output.status.code().unwrap_or(-1),
        text(&output.stdout),
        text(&output.stderr),
    )
}

/// A copy of the synced index in a directory of its own, for a test that changes it.
fn copy_of_synced() -> (tempfile::TempDir, PathBuf) {
    let (dir, index) = temp();
    let conn = rusqlite::Connection::open(&synced().1).expect("opens");
    conn.execute("VACUUM INTO ?1", [index.to_str().expect("utf-8")])
        .expect("copied");
    (dir, index)
}

/// The rows of `index validators` (JSON), by party.
pub(crate) fn rows(out: &str) -> BTreeMap<String, Value> {
    let doc: Value = serde_json::from_str(out).expect("JSON");
    doc["validators"]
        .as_array()
        .expect("validators")
        .iter()
        .map(|r| (r["party"].as_str().expect("party").to_owned(), r.clone()))
        .collect()
}

/// What the demo's own updates up to [`until`] say of each validator: its licences' record
/// times, its activities' (record time, round).
#[derive(Debug, Default)]
struct Told {
    licensed: Vec<i64>,
    active: Vec<(i64, i64)>,
}

fn told_by_updates(dir: &Path) -> BTreeMap<String, Told> {
    let output = run(
        dir,
        &demo_url(),
        &[
            "scan",
            "updates",
            "--all",
            "--request-rate",
            "1000",
            "--from",
            "begin",
            "--until",
            until(),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let mut told: BTreeMap<String, Told> = BTreeMap::new();
    for line in text(&output.stdout).lines() {
        let item: Value = serde_json::from_str(line).expect("a JSON line");
        let time = parse_time_micros(item["record_time"].as_str().expect("time")).expect("time");
        let Some(events) = item["events_by_id"].as_object() else {
            continue;
        };
        for e in events.values() {
            let template = e["template_id"].as_str().unwrap_or_default();
            if e["event_type"] != "created_event" {
                continue;
            }
            let args = &e["create_arguments"];
            let Some(v) = args["validator"].as_str() else {
                continue;
            };
            if template.ends_with(":Splice.ValidatorLicense:ValidatorLicense") {
                told.entry(v.to_owned()).or_default().licensed.push(time);
            } else if template.ends_with(":Splice.ValidatorLicense:ValidatorLivenessActivityRecord")
                || template.ends_with(":Splice.ValidatorLicense:ValidatorFaucetCoupon")
            {
                let round = args["round"]["number"]
                    .as_str()
                    .and_then(|r| r.parse().ok())
                    .expect("a round");
                told.entry(v.to_owned())
                    .or_default()
                    .active
                    .push((time, round));
            }
        }
    }
    told
}

/// The validators of the scan's current licences (`scan validator-licenses --all`).
fn licensed_now(dir: &Path) -> BTreeSet<String> {
    let output = run(
        dir,
        &demo_url(),
        &["--output", "json", "scan", "validator-licenses", "--all"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let doc: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    doc["validator_licenses"]
        .as_array()
        .expect("licences")
        .iter()
        .map(|c| {
            c["payload"]["validator"]
                .as_str()
                .expect("validator")
                .to_owned()
        })
        .collect()
}

/// Each provider's CIP-104 app activity as the index's per-round summary tells it (read per
/// party, as `index rounds --party` reads it): its newest round, that round's newest record
/// time, its records.
fn app_activity(index: &Path, parties: &[&String]) -> BTreeMap<String, (i64, i64, i64)> {
    let location = cantonscope::store::Location::parse(index.to_str().expect("utf-8"));
    let mut reader = cantonscope::store::open_reader(&location).expect("reader");
    let times: BTreeMap<i64, Option<i64>> = reader
        .rounds(None, None, None)
        .expect("rounds")
        .into_iter()
        .map(|r| (r.round, r.sums.last_time))
        .collect();
    let mut out = BTreeMap::new();
    for party in parties {
        let rounds = reader.rounds(None, None, Some(party)).expect("rounds");
        let Some(newest) = rounds.iter().map(|r| r.round).max() else {
            continue;
        };
        let records: i64 = rounds
            .iter()
            .flat_map(|r| &r.top_providers)
            .filter(|p| &p.party == *party)
            .map(|p| p.records)
            .sum();
        let time = times[&newest].expect("a round's time");
        out.insert((*party).clone(), (newest, time, records));
    }
    out
}

#[test]
fn the_index_lists_every_licensed_validator_with_its_last_activity_as_the_updates_say() {
    let (dir, index) = synced();
    let (code, out, err) = validators(dir.path(), &demo_url(), index, &["--no-scan"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("unknown: --no-scan"), "{err}");
    let listed = rows(&out);
    let told = told_by_updates(dir.path());
    let licensed: BTreeSet<&String> = told
        .iter()
        .filter(|(_, t)| !t.licensed.is_empty())
        .map(|(v, _)| v)
        .collect();
    assert!(licensed.len() >= 5, "{licensed:?}");
    assert_eq!(listed.keys().collect::<BTreeSet<_>>(), licensed);
    let mut active = 0;
    let apps = app_activity(index, &licensed.iter().copied().collect::<Vec<_>>());
    for (party, row) in &listed {
        let t = &told[party];
        let first = t.licensed.iter().min().copied().map(format_time_micros);
        assert_eq!(row["first_licensed"].as_str(), first.as_deref(), "{party}");
        assert_eq!(row["activities"], t.active.len(), "{party}");
        // The newest of its liveness records and coupons and of its app activity.
        let app = apps.get(party);
        assert_eq!(
            row["app_activity_records"].as_i64(),
            Some(app.map_or(0, |a| a.2)),
            "{party}"
        );
        let liveness_time = t.active.iter().map(|a| a.0).max();
        let last_time = liveness_time.max(app.map(|a| a.1)).map(format_time_micros);
        assert_eq!(
            row["last_activity"].as_str(),
            last_time.as_deref(),
            "{party}"
        );
        let liveness_round = t.active.iter().map(|a| a.1).max();
        let last_round = liveness_round.max(app.map(|a| a.0));
        assert_eq!(row["last_activity_round"].as_i64(), last_round, "{party}");
        assert_eq!(row["license_current"], Value::Null, "offline: unknown");
        active += usize::from(last_round.is_some());
    }
    assert!(active >= 3, "{active} validators active");
    // Rounds since: against the newest round the index holds (at least every activity's).
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    let newest = doc["newest_round"].as_i64().expect("a newest round");
    for row in listed.values() {
        if let Some(r) = row["last_activity_round"].as_i64() {
            assert_eq!(row["rounds_since"].as_i64(), Some(newest - r), "{row}");
        }
    }
    // With the scan: every validator's licence is current, as the licences endpoint says.
    let (code, out, err) = validators(dir.path(), &demo_url(), index, &[]);
    assert_eq!(code, 0, "{err}");
    let with_scan = rows(&out);
    let now = licensed_now(dir.path());
    let current: BTreeSet<String> = with_scan
        .iter()
        .filter(|(_, r)| r["license_current"] == true)
        .map(|(v, _)| v.clone())
        .collect();
    assert_eq!(current, now);
    assert!(
        licensed.iter().all(|v| now.contains(*v)),
        "the demo revokes no licence"
    );
}

#[test]
fn sort_orders_table_and_csv() {
    let (dir, index) = synced();
    let order = |sort: &str| -> Vec<Value> {
        let (code, out, err) = validators(
            dir.path(),
            &demo_url(),
            index,
            &["--no-scan", "--sort", sort],
        );
        assert_eq!(code, 0, "{err}");
        let doc: Value = serde_json::from_str(&out).expect("JSON");
        doc["validators"].as_array().expect("rows").clone()
    };
    let parties: Vec<String> = order("party")
        .iter()
        .map(|r| r["party"].as_str().expect("party").to_owned())
        .collect();
    let mut sorted = parties.clone();
    sorted.sort();
    assert_eq!(parties, sorted);
    let last: Vec<Option<i64>> = order("last")
        .iter()
        .map(|r| r["last_activity"].as_str().and_then(parse_time_micros))
        .collect();
    assert!(last.windows(2).all(|w| w[0] >= w[1]), "{last:?}");
    let since: Vec<Option<i64>> = order("rounds-since")
        .iter()
        .map(|r| r["rounds_since"].as_i64())
        .collect();
    // Never active first, then the most rounds since.
    let key = |s: &Option<i64>| (s.is_some(), std::cmp::Reverse(*s));
    assert!(
        since.windows(2).all(|w| key(&w[0]) <= key(&w[1])),
        "{since:?}"
    );
    let first: Vec<i64> = order("first")
        .iter()
        .filter_map(|r| r["first_licensed"].as_str().and_then(parse_time_micros))
        .collect();
    assert!(first.windows(2).all(|w| w[0] <= w[1]), "{first:?}");
    // The table and the csv: a row per validator.
    let index_text = index.to_str().expect("utf-8");
    let args = |output: &'static str| {
        vec![
            "--output",
            output,
            "index",
            "--index",
            index_text,
            "validators",
            "--no-scan",
        ]
    };
    let table = run(dir.path(), &demo_url(), &args("table"));
    assert_eq!(table.status.code(), Some(0));
    let table = text(&table.stdout);
    assert!(table.contains("LAST ACTIVITY"), "{table}");
    assert!(table.contains("ROUNDS SINCE"), "{table}");
    let csv = run(dir.path(), &demo_url(), &args("csv"));
    assert_eq!(csv.status.code(), Some(0));
    let csv = text(&csv.stdout);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "party,first licensed,current,last activity,round,rounds since,activities,app records"
        )
    );
    assert_eq!(lines.count(), parties.len(), "{csv}");
}

#[test]
fn the_licences_endpoint_pages_as_the_real_scan_and_refuses_a_bad_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let page = |extra: &[&str]| -> (i32, Value, String) {
        let mut args = vec!["--output", "json", "scan", "validator-licenses"];
        args.extend_from_slice(extra);
        let output = run(dir.path(), &demo_url(), &args);
        (
            output.status.code().unwrap_or(-1),
            serde_json::from_slice(&output.stdout).unwrap_or(Value::Null),
            text(&output.stderr),
        )
    };
    let (code, all, err) = page(&["--all"]);
    assert_eq!(code, 0, "{err}");
    let all = all["validator_licenses"]
        .as_array()
        .expect("licences")
        .clone();
    assert!(all.len() >= 5);
    // Two at a time, following next_page_token, gives the same licences in the same order.
    let mut walked = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let mut extra = vec!["--limit", "2"];
        if let Some(a) = &after {
            extra.extend_from_slice(&["--after", a.as_str()]);
        }
        let (code, doc, err) = page(&extra);
        assert_eq!(code, 0, "{err}");
        let got = doc["validator_licenses"].as_array().expect("page");
        assert!(got.len() <= 2);
        walked.extend(got.iter().map(|c| c["contract_id"].clone()));
        match doc["next_page_token"].as_i64() {
            Some(next) => after = Some(next.to_string()),
            None => break,
        }
    }
    let ids: Vec<Value> = all.iter().map(|c| c["contract_id"].clone()).collect();
    assert_eq!(walked, ids);
    // Newest first, each a ValidatorLicense naming its validator.
    for c in &all {
        assert!(
            c["template_id"]
                .as_str()
                .is_some_and(|t| t.ends_with(":Splice.ValidatorLicense:ValidatorLicense")),
            "{c}"
        );
        assert!(c["payload"]["validator"].is_string(), "{c}");
    }
    let created: Vec<i64> = all
        .iter()
        .map(|c| parse_time_micros(c["created_at"].as_str().expect("created_at")).expect("time"))
        .collect();
    assert!(created.windows(2).all(|w| w[0] >= w[1]), "{created:?}");
    // A limit the scan does not take: its 400, exit 1, the server's words.
    for bad in ["0", "1001"] {
        let (code, _, err) = page(&["--limit", bad]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("400"), "{err}");
        assert!(err.contains("limit"), "{err}");
    }
    // The table: a row per licence.
    let output = run(
        dir.path(),
        &demo_url(),
        &["--output", "table", "scan", "validator-licenses"],
    );
    assert_eq!(output.status.code(), Some(0));
    let table = text(&output.stdout);
    assert!(table.contains("VALIDATOR"), "{table}");
    assert_eq!(table.matches("-validator-").count(), all.len(), "{table}");
}

#[test]
fn an_index_of_schema_8_is_migrated_in_place_counting_its_kept_bodies() {
    let (dir, index) = copy_of_synced();
    let (code, before, err) = validators(dir.path(), &demo_url(), &index, &["--no-scan"]);
    assert_eq!(code, 0, "{err}");
    // An index of schema 8: no validators' table. Readers refuse it, the next writer migrates.
    let conn = rusqlite::Connection::open(&index).expect("opens");
    crate::common::migrated::times_from_1970(&conn);
    conn.execute_batch(
        "DROP TABLE validators; DELETE FROM meta WHERE key = 'validators_seq';
         UPDATE meta SET value = '8' WHERE key = 'schema_version';",
    )
    .expect("schema 8");
    drop(conn);
    let (code, _, err) = validators(dir.path(), &demo_url(), &index, &["--no-scan"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("older cantonscope (schema 8)"), "{err}");
    let (code, _, err) = sync(
        dir.path(),
        &demo_url(),
        &index,
        &["--until", until(), "--verify", "2"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("migrated the index from schema 8 to schema 21"),
        "{err}"
    );
    let (code, after, err) = validators(dir.path(), &demo_url(), &index, &["--no-scan"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(rows(&after), rows(&before));
    // Counted once: another writer's open adds nothing.
    let (code, _, err) = sync(
        dir.path(),
        &demo_url(),
        &index,
        &["--until", until(), "--verify", "2"],
    );
    assert_eq!(code, 0, "{err}");
    let (_, again, _) = validators(dir.path(), &demo_url(), &index, &["--no-scan"]);
    assert_eq!(rows(&again), rows(&before));
}

#[test]
fn a_range_pruned_then_synced_again_is_not_counted_twice() {
    let (dir, index) = copy_of_synced();
    let (code, before, err) = validators(dir.path(), &demo_url(), &index, &["--no-scan"]);
    assert_eq!(code, 0, "{err}");
    let before = rows(&before);
    // Cut in the middle of the history: some licences and activities before it.
    let times: Vec<i64> = before
        .values()
        .filter_map(|r| r["last_activity"].as_str().and_then(parse_time_micros))
        .collect();
    let first = before
        .values()
        .filter_map(|r| r["first_licensed"].as_str().and_then(parse_time_micros))
        .min()
        .expect("a licence");
    let last = times.iter().copied().max().expect("an activity");
    let cut = format_time_micros(first + (last - first) / 2);
    let mut args = index_args(&index, "prune");
    args.extend_from_slice(&["--before", &cut]);
    let output = run(dir.path(), &demo_url(), &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    // What the pruned updates told stays.
    let (code, pruned, err) = validators(dir.path(), &demo_url(), &index, &["--no-scan"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(rows(&pruned), before);
    // The range synced again: each licence and activity counted once.
    let (code, _, err) = sync(
        dir.path(),
        &demo_url(),
        &index,
        &["--from", "begin", "--until", &cut, "--verify", "2"],
    );
    assert_eq!(code, 0, "{err}");
    let (code, again, err) = validators(dir.path(), &demo_url(), &index, &["--no-scan"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(rows(&again), before);
}

#[test]
fn a_table_behind_its_updates_is_caught_up_by_the_next_sync_from_their_bodies() {
    // A sync stopped between a page's commit and the validators' count of it leaves the table
    // behind the updates: the next sync's page finds more updates after the table's seq than
    // it wrote and counts them from their bodies, each once.
    let (dir, index) = copy_of_synced();
    let (code, before, err) = validators(dir.path(), &demo_url(), &index, &["--no-scan"]);
    assert_eq!(code, 0, "{err}");
    let before = rows(&before);
    assert!(!before.is_empty());
    let conn = rusqlite::Connection::open(&index).expect("opens");
    let kept: i64 = conn
        .query_row("SELECT count(*) FROM updates", [], |r| r.get(0))
        .expect("counted");
    conn.execute_batch(
        "DELETE FROM validators; UPDATE meta SET value = '0' WHERE key = 'validators_seq';",
    )
    .expect("behind");
    drop(conn);
    // The table alone (a reader adds what it has not counted, so the list is the same).
    let (code, read, err) = validators(dir.path(), &demo_url(), &index, &["--no-scan"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(rows(&read), before);
    let (code, out, err) = sync(
        dir.path(),
        &demo_url(),
        &index,
        &["--until", until(), "--verify", "2"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out["counters"]["updates_written"].as_u64(),
        Some(0),
        "{out}"
    );
    let conn = rusqlite::Connection::open(&index).expect("opens");
    let through: String = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'validators_seq'",
            [],
            |r| r.get(0),
        )
        .expect("counted through");
    let newest: i64 = conn
        .query_row("SELECT max(seq) FROM updates", [], |r| r.get(0))
        .expect("newest");
    assert_eq!(through, newest.to_string(), "{kept} updates");
    let kept_rows: i64 = conn
        .query_row("SELECT count(*) FROM validators", [], |r| r.get(0))
        .expect("rows");
    assert!(kept_rows as usize >= before.len(), "{kept_rows}");
    drop(conn);
    let (code, after, err) = validators(dir.path(), &demo_url(), &index, &["--no-scan"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(rows(&after), before);
}

#[test]
fn an_index_kept_without_bodies_counts_no_validator() {
    // An update kept without its body tells nothing, though the sync decoded it.
    let (dir, index) = temp();
    let (code, _, err) = sync(
        dir.path(),
        &demo_url(),
        &index,
        &["--from", "begin", "--until", until(), "--no-bodies"],
    );
    assert_eq!(code, 0, "{err}");
    let conn = rusqlite::Connection::open(&index).expect("opens");
    let (kept, counted): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(*) FROM updates),
                    (SELECT count(*) FROM validators)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("counted");
    drop(conn);
    assert!(kept > 1_000, "{kept}");
    assert_eq!(counted, 0);
    let (code, out, err) = validators(dir.path(), &demo_url(), &index, &["--no-scan"]);
    assert_eq!(code, 0, "{err}");
    assert!(rows(&out).is_empty(), "{out}");
}
