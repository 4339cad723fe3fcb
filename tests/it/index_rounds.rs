//! `index rounds` (issue 37 §2), run as the real binary over real HTTP against a demo of three
//! scans (the second with `--diverging-rewards`, the third the older scan without reward
//! accounting): the figures of each whole round computed from the index's kept events equal
//! those computed from the scan's own `POST /v0/events` pages; the diverging scan is named
//! (exit 5); the scans' states (undetermined, cannot provide, 404, 501) are shown as states;
//! `--party` is one provider's history; without the scans the figures alone; `--output csv`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::OnceLock;

use cantonscope::demo::{DemoConfig, DemoFaults};
use serde_json::Value;

use crate::index::{Demo, index_args, run, start, sync, temp, text};

/// Three scans at the head, the second serving other reward figures.
pub(crate) fn demo() -> &'static Demo {
    static DEMO: OnceLock<Demo> = OnceLock::new();
    DEMO.get_or_init(|| {
        start(
            DemoConfig {
                stagger: false,
                faults: DemoFaults {
                    diverging_rewards: Some(1),
                    ..DemoFaults::default()
                },
                ..DemoConfig::default()
            }
            .with_total_scans(3),
        )
    })
}

/// The URL of the demo's first scan (the PostgreSQL test syncs the same demo).
pub(crate) fn demo_url() -> String {
    demo().handle.scan_url.clone()
}

/// A round's figures: (updates, traffic cost, records, weight, providers' weights).
type Figures = (i64, i64, i64, i64, BTreeMap<String, i64>);

/// Every round's figures as the scan at `url` serves its events (`POST /v0/events`, every
/// page; the items with an update, as the index keeps them).
pub(crate) fn figures_from_events(url: &str) -> BTreeMap<i64, Figures> {
    let rt = crate::common::bin::runtime();
    let url = format!("{url}/api/scan/v0/events");
    rt.block_on(async {
        let mut rounds: BTreeMap<i64, Figures> = BTreeMap::new();
        let mut body = serde_json::json!({"page_size": 1000});
        loop {
            let (status, page) = crate::common::http::post(&url, &body).await;
            assert!(status.is_success(), "{page}");
            let events = page["events"].as_array().expect("events").clone();
            let Some(last) = events.last() else { break };
            for e in events.iter().filter(|e| e["update"].is_object()) {
                if let Some(r) = e["verdict"]["round_number"].as_i64() {
                    let f = rounds.entry(r).or_default();
                    f.0 += 1;
                    f.1 += e["traffic_summary"]["total_traffic_cost"]
                        .as_i64()
                        .unwrap_or(0);
                }
                let a = &e["app_activity_records"];
                if let Some(r) = a["round_number"].as_i64() {
                    for rec in a["records"].as_array().expect("records") {
                        let f = rounds.entry(r).or_default();
                        let w = rec["weight"].as_i64().expect("weight");
                        f.2 += 1;
                        f.3 += w;
                        *f.4.entry(rec["party"].as_str().expect("party").to_owned())
                            .or_default() += w;
                    }
                }
            }
            let at = if last["update"].is_object() {
                &last["update"]
            } else {
                &last["verdict"]
            };
            // (A reassignment's migration is inside its `event`.)
            let migration = if at["migration_id"].is_i64() {
                &at["migration_id"]
            } else {
                &at["event"]["migration_id"]
            };
            body = serde_json::json!({"page_size": 1000, "after": {
                "after_migration_id": migration,
                "after_record_time": at["record_time"],
            }});
        }
        rounds
    })
}

/// `index rounds` with `extra` flags: exit code, stdout, stderr.
pub(crate) fn rounds(
    dir: &Path,
    url: &str,
    index: &(impl AsRef<Path> + ?Sized),
    extra: &[&str],
) -> (i32, String, String) {
    let mut args = vec!["--output", "json"];
    args.extend(index_args(index, "rounds"));
    args.extend_from_slice(&["--request-rate", "1000"]);
    args.extend_from_slice(extra);
    let output = run(dir, url, &args);
    (
        output.status.code().unwrap_or(-1),
        text(&output.stdout),
        text(&output.stderr),
    )
}

/// The demo's whole history synced once, verified by two scans (read by every test; one that
/// changes it works on a copy: [`copy`]).
pub(crate) fn synced() -> &'static (tempfile::TempDir, std::path::PathBuf) {
    static SYNCED: OnceLock<(tempfile::TempDir, std::path::PathBuf)> = OnceLock::new();
    SYNCED.get_or_init(|| {
        let (dir, index) = temp();
        let (code, out, err) = sync(
            dir.path(),
            &demo().handle.scan_url,
            &index,
            &["--from", "begin", "--verify", "2"],
        );
        assert_eq!(code, 0, "{err}\n{out}");
        (dir, index)
    })
}

/// A copy of the synced index in a directory of its own.
pub(crate) fn copy() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, index) = temp();
    let conn = rusqlite::Connection::open(&synced().1).expect("opens");
    conn.execute("VACUUM INTO ?1", [index.to_str().expect("utf-8")])
        .expect("copied");
    (dir, index)
}

/// The SV name of the scan at `url`, as `network scans` lists it.
pub(crate) fn name_of(dir: &Path, url: &str) -> String {
    let out = run(
        dir,
        &demo().handle.scan_url,
        &["--output", "json", "network", "scans"],
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    doc["scans"]
        .as_array()
        .expect("scans")
        .iter()
        .find(|s| s["url"].as_str() == Some(url))
        .and_then(|s| s["sv_name"].as_str())
        .expect("listed")
        .to_owned()
}

#[test]
fn whole_rounds_equal_the_events_pages_and_the_diverging_scan_is_named() {
    let d = demo();
    let (dir, index) = synced();
    let url = &d.handle.scan_url;
    // Every whole round the index holds, from its kept events alone, equals the scan's own
    // event pages.
    let (all, _) = local_rounds(dir.path(), index);
    let served = figures_from_events(url);
    let whole: Vec<&Value> = all.iter().filter(|r| r["whole"] == true).collect();
    assert!(whole.len() > 100, "{} whole rounds", whole.len());
    for r in &whole {
        let n = r["round"].as_i64().expect("a round");
        let (updates, traffic, records, weight, providers) =
            served.get(&n).cloned().unwrap_or_default();
        assert_eq!(r["updates"].as_i64(), Some(updates), "round {n}");
        assert_eq!(r["traffic_cost"].as_i64(), Some(traffic), "round {n}");
        assert_eq!(r["records"].as_i64(), Some(records), "round {n}");
        assert_eq!(r["weight"].as_i64(), Some(weight), "round {n}");
        assert_eq!(
            r["active_parties"].as_i64(),
            Some(i64::try_from(providers.len()).unwrap()),
            "round {n}"
        );
        if let Some(top) = r["top_providers"].as_array().and_then(|t| t.first()) {
            let heaviest = providers.values().max().copied();
            assert_eq!(top["weight"].as_i64(), heaviest, "round {n}");
        }
    }
    // Asked of the scans, around the first round with app activity (the scans' first rounds
    // cannot be provided, older ones are unknown: 404) and at the newest (undetermined).
    let first = all
        .iter()
        .find(|r| r["records"] != 0)
        .and_then(|r| r["round"].as_i64())
        .expect("a round with records");
    let newest = all
        .last()
        .and_then(|r| r["round"].as_i64())
        .expect("rounds");
    let diverging = name_of(dir.path(), &d.handle.scan_urls[1]);
    let older = name_of(dir.path(), &d.handle.scan_urls[2]);
    let mut states = BTreeSet::new();
    let mut checks = BTreeSet::new();
    for (from, until, exit) in [(first - 2, first + 5, 5), (newest - 1, newest, 0)] {
        let (from, until) = (from.to_string(), until.to_string());
        let (code, out, err) = rounds(
            dir.path(),
            url,
            index,
            &["--from", &from, "--until", &until],
        );
        assert_eq!(code, exit, "{err}\n{out}");
        let doc: Value = serde_json::from_str(&out).expect("JSON");
        if exit == 5 {
            // The diverging scan is named, the others never.
            assert_eq!(
                doc["differing_scans"],
                serde_json::json!([diverging]),
                "{doc}"
            );
            assert!(err.contains(&diverging), "{err}");
        }
        for r in doc["rounds"].as_array().expect("rounds") {
            checks.insert(r["check"].as_str().expect("check").to_owned());
            for s in r["scans"].as_array().expect("scans") {
                states.insert(s["totals_state"].as_str().expect("state").to_owned());
                if s["scan"] == older.as_str() {
                    assert_eq!(s["totals_state"], "not implemented (501)", "{r}");
                    assert_eq!(s["totals"], "not served", "{r}");
                }
                if s["totals_state"] != "ok" {
                    assert_eq!(s["totals"], "not served", "{r}");
                    continue;
                }
                // The honest scan agrees, the diverging one differs in its weight; both serve
                // the honest root hash.
                let want = if s["scan"] == diverging.as_str() {
                    "differ"
                } else {
                    "agree"
                };
                assert_eq!(s["totals"], want, "{r}");
                assert_eq!(s["root_hash"], "agree", "{r}");
            }
        }
    }
    for state in [
        "ok",
        "cannot provide",
        "not found (404)",
        "undetermined",
        "not implemented (501)",
    ] {
        assert!(states.contains(state), "{state} in {states:?}");
    }
    for check in ["divergence", "not served", "open"] {
        assert!(checks.contains(check), "{check} in {checks:?}");
    }
}

#[test]
fn party_no_scans_and_csv() {
    let d = demo();
    let (dir, index) = synced();
    let (dir, index) = (dir.path(), index.as_path());
    let url = &d.handle.scan_url;
    // Without the scans: the figures alone, exit 0, saying why.
    let (code, out, err) = rounds(dir, url, index, &["--no-scans"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("the scans were not asked"), "{err}");
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(doc["scans_asked"], false);
    let rows = doc["rounds"].as_array().expect("rounds").clone();
    assert!(rows.iter().all(|r| r["check"] == "not asked"));
    // A range.
    let with_records: Vec<&Value> = rows.iter().filter(|r| r["records"] != 0).collect();
    let (lo, hi) = (
        with_records[0]["round"].as_i64().unwrap(),
        with_records[2]["round"].as_i64().unwrap(),
    );
    let (lo_s, hi_s) = (lo.to_string(), hi.to_string());
    let (code, out, _) = rounds(
        dir,
        url,
        index,
        &["--no-scans", "--from", &lo_s, "--until", &hi_s],
    );
    assert_eq!(code, 0);
    let ranged: Value = serde_json::from_str(&out).expect("JSON");
    let numbers: Vec<i64> = ranged["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["round"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers, (lo..=hi).collect::<Vec<_>>());
    // One provider's history: the rounds it has records in, its weight in each.
    let party = with_records[0]["top_providers"][0]["party"]
        .as_str()
        .unwrap()
        .to_owned();
    let (code, out, _) = rounds(dir, url, index, &["--no-scans", "--party", &party]);
    assert_eq!(code, 0);
    let history: Value = serde_json::from_str(&out).expect("JSON");
    let served = figures_from_events(url);
    let own: Vec<(i64, i64)> = history["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["top_providers"].as_array().unwrap().len(), 1, "{r}");
            (
                r["round"].as_i64().unwrap(),
                r["top_providers"][0]["weight"].as_i64().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(i64, i64)> = served
        .iter()
        .filter_map(|(n, f)| f.4.get(&party).map(|w| (*n, *w)))
        .filter(|(n, _)| numbers_held(&rows).contains(n))
        .collect();
    assert!(!own.is_empty());
    assert_eq!(own, expected);
    // CSV: a header and a row per round, the same rounds.
    let mut args = vec!["--output", "csv"];
    let index_text = index.to_str().unwrap();
    args.extend(["index", "--index", index_text, "rounds", "--no-scans"]);
    let output = run(dir, url, &args);
    assert_eq!(output.status.code(), Some(0));
    let csv = text(&output.stdout);
    let mut lines = csv.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("round,check,weight,records"),
        "{csv}"
    );
    assert_eq!(lines.count(), rows.len(), "{csv}");
    // csv is for `index rounds` only.
    let other = run(
        dir,
        url,
        &["--output", "csv", "index", "--index", index_text, "status"],
    );
    assert_eq!(other.status.code(), Some(2));
}

fn numbers_held(rows: &[Value]) -> BTreeSet<i64> {
    rows.iter().filter_map(|r| r["round"].as_i64()).collect()
}

/// The rounds rows of `index rounds --no-scans` (the figures alone).
fn local_rounds(dir: &Path, index: &Path) -> (Vec<Value>, String) {
    let (code, out, err) = rounds(dir, &demo().handle.scan_url, index, &["--no-scans"]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    (doc["rounds"].as_array().expect("rounds").clone(), err)
}

#[test]
fn an_index_of_schema_7_with_events_is_migrated_and_gets_its_rounds_from_them() {
    let (dir, index) = copy();
    let (before, _) = local_rounds(dir.path(), &index);
    // An index of schema 7 with its events: no summary tables. Readers refuse it (the next
    // sync migrates it), as every older schema.
    let conn = rusqlite::Connection::open(&index).expect("opens");
    crate::common::migrated::times_from_1970(&conn);
    conn.execute_batch(
        "DROP TABLE rounds; DROP TABLE round_parties; DROP TABLE rounds_counted;
         DELETE FROM meta WHERE key = 'rounds_summary';
         UPDATE meta SET value = '7' WHERE key = 'schema_version';",
    )
    .expect("schema 7");
    drop(conn);
    let (code, _, err) = rounds(dir.path(), &demo().handle.scan_url, &index, &["--no-scans"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("older cantonscope (schema 7)"), "{err}");
    // The next events walk (nothing left to fetch) sums the kept events first.
    let events_walk = || {
        let (code, _, err) = sync(
            dir.path(),
            &demo().handle.scan_url,
            &index,
            &["--events", "--verify", "2"],
        );
        assert_eq!(code, 0, "{err}");
        err
    };
    let err = events_walk();
    assert!(
        err.contains("migrated the index from schema 7 to schema 21"),
        "{err}"
    );
    assert!(err.contains("built the per-round summary"), "{err}");
    let (after, err) = local_rounds(dir.path(), &index);
    assert!(!err.contains("not yet summed"), "{err}");
    // The same figures (the walk may have kept a few newer updates' events since).
    let n = before.len().saturating_sub(2);
    assert!(n > 3);
    assert_eq!(after[..n], before[..n]);
    // A second walk over the same events counts nothing twice.
    events_walk();
    let (again, _) = local_rounds(dir.path(), &index);
    assert_eq!(again[..n], before[..n]);
}

/// A round's figures as `index rounds` prints them, without what depends on the index's reach
/// (`closed`, `whole`) or on a prune; the rounds before `newest` (a later events walk may
/// keep the newest updates' events).
fn figures_of(rows: &[Value], newest: i64) -> BTreeMap<i64, Value> {
    rows.iter()
        .filter(|r| r["round"].as_i64().is_some_and(|n| n < newest))
        .map(|r| {
            let mut f = r.clone();
            let o = f.as_object_mut().expect("a round");
            for key in ["closed", "whole", "check", "records_pruned"] {
                o.remove(key);
            }
            (r["round"].as_i64().expect("a round"), f)
        })
        .collect()
}

/// `index prune` of the index at `at` (the demo's whole history, synced with its events):
/// every round's figures are kept; the rounds counted from updates pruned say so, the others
/// do not; syncing the pruned range again keeps its updates again and counts nothing twice.
pub(crate) fn prune_keeps_the_round_figures(dir: &Path, at: &str) {
    let url = demo_url();
    let doc = |extra: &[&str]| -> (Value, String) {
        let (code, out, err) = rounds(dir, &url, at, &[&["--no-scans"], extra].concat());
        assert_eq!(code, 0, "{err}");
        (serde_json::from_str(&out).expect("JSON"), err)
    };
    let (before, _) = doc(&[]);
    let before_rows = before["rounds"].as_array().expect("rounds").clone();
    // The two newest rounds may still be counting.
    let newest = before_rows
        .iter()
        .filter_map(|r| r["round"].as_i64())
        .max()
        .expect("rounds")
        - 1;
    assert!(before_rows.iter().all(|r| r["records_pruned"] == false));
    assert!(before["records_pruned_before"].is_null(), "{before}");
    let timed: Vec<&Value> = before_rows
        .iter()
        .filter(|r| r["first_time"].is_string())
        .collect();
    assert!(timed.len() > 10, "{} rounds", timed.len());
    let cut_text = timed[timed.len() / 3]["first_time"]
        .as_str()
        .expect("a time")
        .to_owned();
    let cut = cantonscope::model::format::parse_time_micros(&cut_text).expect("a time");
    let updates = |st: &Value| st["updates"].as_u64().expect("a count");
    let whole = updates(&crate::index::status(dir, at));

    let mut args = index_args(at, "prune");
    args.extend_from_slice(&["--before", &cut_text]);
    let output = run(dir, &url, &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let pruned = updates(&crate::index::status(dir, at));
    assert!(pruned < whole, "{pruned} of {whole}");

    // The figures stay; a round whose first counted update was pruned says so.
    let check = |doc: &Value, err: &str| {
        let rows = doc["rounds"].as_array().expect("rounds");
        assert_eq!(figures_of(rows, newest), figures_of(&before_rows, newest));
        let said = |r: &Value| r["records_pruned"].as_bool().expect("a flag");
        for r in rows {
            let first = r["first_time"]
                .as_str()
                .and_then(cantonscope::model::format::parse_time_micros);
            assert_eq!(said(r), first.is_some_and(|t| t < cut), "{r}");
        }
        let n = rows.iter().filter(|r| said(r)).count();
        assert!(n > 0 && n < rows.len(), "{n} pruned");
        assert_eq!(doc["records_pruned_before"], cut_text.as_str(), "{doc}");
        assert!(
            err.contains(&format!(
                "{n} rounds were counted from updates since pruned"
            )),
            "{err}"
        );
    };
    let (after, err) = doc(&[]);
    check(&after, &err);
    // The table says it too.
    let mut args = vec!["--output", "table"];
    args.extend(index_args(at, "rounds"));
    args.push("--no-scans");
    let table = text(&run(dir, &url, &args).stdout);
    assert!(
        table.lines().any(|l| l.contains("PRUNED"))
            && table
                .lines()
                .any(|l| l.contains("records pruned before") && l.contains(&cut_text)),
        "{table}"
    );

    // The pruned range synced again: its updates are back, its rounds counted once.
    let (code, _, err) = sync(
        dir,
        &url,
        at,
        &["--from", "begin", "--until", &cut_text, "--verify", "2"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(updates(&crate::index::status(dir, at)) > pruned);
    let (again, err) = doc(&[]);
    check(&again, &err);
}

#[test]
fn a_prune_keeps_the_round_figures_and_says_which_rounds_records_are_gone() {
    let (dir, index) = copy();
    prune_keeps_the_round_figures(dir.path(), index.to_str().expect("utf-8"));
}
