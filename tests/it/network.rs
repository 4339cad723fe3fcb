//! The whole network against the demo with faults, over real HTTP: the quorum arithmetic and
//! grouping rules as tables; discovery (global synchronizer, pins, selection, the kept list while
//! the seed is down); each scan's health (lagging, down refused / 503, unhealthy); one update
//! across all scans (agree, disagree with the differing path, don't know when behind or
//! backfilling, unreachable, 404 consensus); the sweep finding every differing update, in the
//! ranges the scans' own pages show (an agreeing reassignment inside one), a lagging scan not
//! counting as a difference, the request budget respected (the
//! demo's per-client counter) and 429s waited out; cancel; the config keys; the CLI's JSON and
//! exit codes. Each scenario uses its own seed, so time-based health is fresh when it runs.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use cantonscope::api::scan::UpdatesRequest;
use cantonscope::api::{ApiClient, ApiConfig};
use cantonscope::config::{self, LoadedFile, Overrides, Settings};
use cantonscope::demo::{
    DemoConfig, DemoFaults, DemoHandle, DemoTime, DownMode, generate, generate_ending_now,
};
use cantonscope::every_scan::check::{UpdateSource, check_update};
use cantonscope::every_scan::discovery::{ListSource, discover};
use cantonscope::every_scan::{Cancel, Network, ScanBudget, health, sweep};
use cantonscope::model::consensus::{
    self, Answer, LocalFields, ScanClass, UnknownReason, group_answers,
};
use cantonscope::model::network::{
    HealthOutcome, HealthState, HealthThresholds, ScanSelection, assess,
};
use cantonscope::model::sweep::{Cursor, Sweep, SweepEnd, SweepPlan};
use serde_json::Value;

use crate::common::bin::{bin, runtime};

const MICROS: i64 = 1_000_000;

fn now() -> i64 {
    chrono::Utc::now().timestamp_micros()
}

fn settings_for(handle: &DemoHandle) -> Settings {
    Settings {
        scan_url: Some(handle.scan_url.parse().expect("url")),
        ..Settings::default()
    }
}

fn client() -> ApiClient {
    ApiClient::new(ApiConfig::default()).expect("client")
}

/// Discovers the demo's scans (without keeping the list) and builds the network.
async fn network(handle: &DemoHandle, rate: f64) -> Network {
    let found = discover(&client(), &settings_for(handle), None, now()).await;
    assert!(
        matches!(found.source, ListSource::Fetched { .. }),
        "{:?}",
        found.source
    );
    Network::new(
        &client(),
        found.entries,
        ScanBudget {
            rate,
            timeout: Duration::from_secs(10),
            ..ScanBudget::default()
        },
    )
}

// ---------------------------------------------------------------------------------------------
// Tables

#[test]
fn quorum_arithmetic_table() {
    let table: [(usize, usize, usize); 13] = [
        (1, 0, 1),
        (2, 0, 1),
        (3, 0, 1),
        (4, 1, 2),
        (5, 1, 2),
        (6, 1, 2),
        (7, 2, 3),
        (8, 2, 3),
        (9, 2, 3),
        (10, 3, 4),
        (11, 3, 4),
        (12, 3, 4),
        (13, 4, 5),
    ];
    for (n, f, q) in table {
        assert_eq!(
            (consensus::fault_tolerance(n), consensus::quorum(n)),
            (f, q),
            "n = {n}"
        );
    }
}

#[test]
fn grouping_rules_table() {
    let ok = |s: &str| Answer::from_http(200, s.as_bytes(), LocalFields::NONE);
    let err = |status: u16, s: &str| Answer::from_http(status, s.as_bytes(), LocalFields::NONE);
    let refused = || Answer::Unreachable {
        detail: "connection refused".into(),
    };
    // (rule, answers, group sizes largest first, size of the consensus group or 0)
    let table: Vec<(&str, Vec<Answer>, Vec<usize>, usize)> = vec![
        (
            "object key order never matters",
            vec![
                ok(r#"{"a":1,"b":{"c":2,"d":3}}"#),
                ok(r#"{"b":{"d":3,"c":2},"a":1}"#),
            ],
            vec![2],
            2,
        ),
        (
            "whitespace never matters",
            vec![ok("{\"a\": [1, 2]}"), ok("{\n  \"a\":[1,2]\n}")],
            vec![2],
            2,
        ),
        (
            "any value matters",
            vec![
                ok(r#"{"a":1}"#),
                ok(r#"{"a":"1"}"#),
                ok(r#"{"a":1.5}"#),
                ok(r#"{"a":[1]}"#),
            ],
            vec![1, 1, 1, 1],
            0,
        ),
        (
            "null and an absent field are different values",
            vec![ok(r#"{"a":null}"#), ok("{}")],
            vec![1, 1],
            0,
        ),
        (
            "identical 404s are a consensus",
            vec![
                err(404, r#"{"error":"gone"}"#),
                err(404, r#"{ "error": "gone" }"#),
                ok("{}"),
                refused(),
            ],
            vec![2, 1],
            2,
        ),
        (
            "errors group by status and body",
            vec![
                err(404, r#"{"error":"gone"}"#),
                err(500, r#"{"error":"gone"}"#),
                err(404, r#"{"error":"other"}"#),
                err(404, "The requested resource could not be found."),
            ],
            vec![1, 1, 1, 1],
            0,
        ),
        (
            "transport failures and timeouts never group",
            vec![refused(), refused(), Answer::Timeout, Answer::Timeout],
            vec![],
            0,
        ),
    ];
    for (rule, answers, sizes, consensus) in table {
        let g = group_answers(&answers);
        let got: Vec<usize> = g.groups.iter().map(|g| g.members.len()).collect();
        assert_eq!(got, sizes, "{rule}");
        assert_eq!(
            g.consensus_group().map_or(0, |c| c.members.len()),
            consensus,
            "{rule}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// A 13-scan network with every fault (static: seed 103)

const SEED: u64 = 103;

/// Indexes (from 0) of the faulty scans of the 13-scan network.
const LAGGING: usize = 3;
const DOWN: usize = 5;
const DIVERGING: usize = 6;
const BACKFILLING: usize = 8;
const LIMITED: usize = 10;

struct Faulty {
    /// First update (index) the diverging scan renders differently (a transaction).
    diverge_index: usize,
    /// First update (index) the backfilling scan has.
    backfill_index: usize,
}

fn faulty() -> Faulty {
    let ledger = generate(SEED);
    let n = ledger.len();
    let diverge_index = (n - 60..n)
        .find(|i| ledger.updates()[*i].tx().is_some())
        .expect("a transaction");
    Faulty {
        diverge_index,
        backfill_index: n - 150,
    }
}

fn faults_13(f: &Faulty) -> DemoFaults {
    let ledger = generate(SEED);
    DemoFaults {
        lagging: Some((LAGGING, Duration::from_secs(42))),
        down: Some((DOWN, DownMode::Refused)),
        diverging: Some((
            DIVERGING,
            DemoTime::At(ledger.updates()[f.diverge_index].record_time),
        )),
        backfilling: Some((
            BACKFILLING,
            DemoTime::At(ledger.updates()[f.backfill_index].record_time),
        )),
        rate_limit: Some((LIMITED, 5)),
        ..DemoFaults::default()
    }
}

async fn start_13(seed: u64, rate: f64, faults: DemoFaults) -> DemoHandle {
    start_13_ending(seed, rate, faults, false).await
}

/// [`start_13`], its history ending at its start when `end_now` (at any time of day: checks
/// of the head's age).
async fn start_13_ending(seed: u64, rate: f64, faults: DemoFaults, end_now: bool) -> DemoHandle {
    cantonscope::demo::start(
        DemoConfig {
            seed,
            rate,
            stagger: false,
            faults,
            end_now,
            ..DemoConfig::default()
        }
        .with_total_scans(13),
    )
    .await
    .expect("demo starts")
}

#[test]
fn discovery_picks_the_listed_scans_and_keeps_the_list() {
    let rt = runtime();
    rt.block_on(async {
        let handle = start_13(SEED, 0.0, faults_13(&faulty())).await;
        let dir = tempfile::tempdir().expect("tempdir");
        let mut settings = settings_for(&handle);
        settings.profile = Some("net".into());
        settings.extra_scan_urls = vec!["http://127.0.0.1:9/pinned".parse().expect("url")];
        settings.network.scans = ScanSelection::Names(vec![
            "Aurora-Node-1".into(),
            "boreal-ops-2".into(),
            "Nobody-1".into(),
        ]);
        let found = discover(&client(), &settings, Some(dir.path()), now()).await;
        assert!(matches!(found.source, ListSource::Fetched { .. }));
        let list = found.list.as_ref().expect("a list");
        assert_eq!(list.scans.len(), 13);
        assert!(list.domain_id.starts_with("global-domain::"));
        assert_eq!(list.scans[DOWN].sv_name, "Fornax-Ops-1");
        let names: Vec<(&str, bool, bool, bool)> = found
            .entries
            .iter()
            .map(|e| (e.sv_name.as_str(), e.pinned, e.own, e.counted))
            .collect();
        assert_eq!(
            names,
            [
                ("Aurora-Node-1", false, true, true),
                ("Boreal-Ops-2", false, false, true),
                ("127.0.0.1:9/pinned", true, false, true),
            ]
        );
        assert!(found.warnings.iter().any(|w| w.contains("Nobody-1")));
        let kept = found.cache_file.clone().expect("a cache file");
        assert!(kept.exists(), "{}", kept.display());

        // The seed goes down: the kept list is used.
        handle.shutdown().await;
        settings.network.scans = ScanSelection::All;
        let again = discover(&client(), &settings, Some(dir.path()), now()).await;
        assert!(
            matches!(again.source, ListSource::Cached { .. }),
            "{:?}",
            again.source
        );
        assert_eq!(again.entries.len(), 14, "13 listed + 1 pinned");
        // Without a kept list: the profile's own and pinned scans are the network.
        let none = discover(&client(), &settings, None, now()).await;
        assert!(matches!(none.source, ListSource::Unavailable { .. }));
        assert_eq!(none.entries.len(), 2);
        assert!(none.entries.iter().all(|e| e.counted && !e.listed));
    });
}

#[test]
fn check_update_classifies_every_scan() {
    let rt = runtime();
    rt.block_on(async {
        let f = faulty();
        let handle = start_13(SEED, 0.0, faults_13(&f)).await;
        let net = network(&handle, 10.0).await;
        assert_eq!(net.len(), 13);
        let ledger = generate(SEED);
        let n = ledger.len();
        let names = |check: &cantonscope::every_scan::check::CheckedUpdate| -> Vec<&'static str> {
            check.check.classes.iter().map(ScanClass::name).collect()
        };

        // An old update: the backfilling scan does not know it, the down scan is unreachable.
        let old = &ledger.updates()[f.backfill_index - 10].update_id;
        let checked = check_update(&net, old, UpdateSource::Update).await;
        let mut expected = vec!["agree"; 13];
        expected[DOWN] = "unreachable";
        expected[BACKFILLING] = "dont_know";
        assert_eq!(names(&checked), expected);
        assert_eq!(
            checked.check.classes[BACKFILLING],
            ScanClass::DontKnow(UnknownReason::Backfilling)
        );
        assert_eq!(
            checked
                .check
                .grouping
                .consensus_group()
                .map(|g| g.members.len()),
            Some(11)
        );
        assert!(checked.replies[LIMITED].success().is_some());

        // After the divergence point: the diverging scan disagrees, with the path.
        let diverged = &ledger.updates()[f.diverge_index].update_id;
        let checked = check_update(&net, diverged, UpdateSource::Update).await;
        let ScanClass::Disagree {
            status,
            differences,
            ..
        } = &checked.check.classes[DIVERGING]
        else {
            panic!("{:?}", checked.check.classes[DIVERGING]);
        };
        assert_eq!(*status, 200);
        assert_eq!(differences.len(), 1);
        assert_eq!(differences[0].path, "$.workflow_id");
        assert_eq!(
            differences[0].this,
            Some(Value::String(
                match differences[0].quorum.as_ref().and_then(Value::as_str) {
                    Some("") | None => "diverged".to_owned(),
                    Some(w) => format!("{w}-diverged"),
                }
            ))
        );
        // The same through /v0/events (finalization times and activity records are local).
        let events = check_update(&net, diverged, UpdateSource::Event).await;
        assert_eq!(names(&events)[DIVERGING], "disagree");
        assert_eq!(names(&events)[0], "agree");

        // The newest update: the lagging scan's 404 is "don't know". The probe learns that
        // its history does not reach the update, not where it ends: no head is made up (it
        // was the update's own record time less 1 µs, shown as the scan's history end).
        let newest = &ledger.updates()[n - 1];
        let checked = check_update(&net, &newest.update_id, UpdateSource::Update).await;
        assert_eq!(
            checked.check.classes[LAGGING],
            ScanClass::DontKnow(UnknownReason::Behind { head: None })
        );
        assert_eq!(
            checked.check.classes[LAGGING].detail(),
            "its history does not reach this update yet"
        );
        assert_eq!(names(&checked)[0], "agree");

        // An update nobody has: identical 404s are the consensus.
        let checked = check_update(&net, "1220deadbeef", UpdateSource::Update).await;
        let group = checked.check.grouping.consensus_group().expect("consensus");
        assert_eq!((group.status, group.members.len()), (404, 12));
        assert_eq!(names(&checked)[0], "agree");
        handle.shutdown().await;
    });
}

/// One scan's own `/v2/updates` items after `from` up to its head, as the project's client
/// reads them (pages of 100), local fields removed.
async fn own_items(net: &Network, scan: usize, from: &Cursor) -> Vec<Value> {
    const PAGE: usize = 100;
    let mut items = Vec::new();
    let mut request =
        UpdatesRequest::after(PAGE as i32, from.migration_id, from.record_time.clone());
    loop {
        let call = cantonscope::api::scan::updates(&request);
        let reply = net.ask(scan, &call).await;
        let exchange = reply
            .success()
            .unwrap_or_else(|| panic!("scan {scan}: {:?}", reply.problem()));
        // The client decodes it (a real page), then the items are compared as JSON.
        call.decode_response(exchange.status, &exchange.headers, &exchange.body)
            .expect("a page");
        let page: Value = serde_json::from_slice(&exchange.body).expect("json");
        let page_items = page["transactions"].as_array().expect("items").clone();
        let Some(last) = page_items.last() else {
            break;
        };
        let migration = &last
            .get("migration_id")
            .unwrap_or(&last["event"]["migration_id"]);
        let migration = migration
            .as_i64()
            .or_else(|| migration.as_str().and_then(|m| m.parse().ok()))
            .expect("a migration id");
        let time = last["record_time"]
            .as_str()
            .expect("a record time")
            .to_owned();
        request = UpdatesRequest::after(PAGE as i32, migration, time);
        let full = page_items.len() == PAGE;
        for mut item in page_items {
            LocalFields::UPDATE.strip(&mut item);
            items.push(item);
        }
        if !full {
            break;
        }
    }
    items
}

/// A range of differing updates: first and last update id, first and last record time, count.
type Bounds = (String, String, String, String, u64);

/// The differing updates between two scans' own histories, as the sweep should report them:
/// (first update id, last update id, first record time, last record time, count) per range of
/// consecutive differing updates, an agreeing reassignment not ending a range (an agreeing
/// transaction does); and how many agreeing reassignments sit inside the ranges.
fn truth(reference: &[Value], other: &[Value]) -> (Vec<Bounds>, usize) {
    assert_eq!(
        reference.len(),
        other.len(),
        "both scans have the whole range"
    );
    let text = |v: &Value, key: &str| v[key].as_str().unwrap_or_default().to_owned();
    let mut ranges: Vec<Bounds> = Vec::new();
    let mut open = false;
    let mut pending_reassignments = 0;
    let mut inside = 0;
    for (mine, theirs) in reference.iter().zip(other) {
        assert_eq!(
            mine["update_id"], theirs["update_id"],
            "aligned by position"
        );
        if mine != theirs {
            match ranges.last_mut() {
                Some(range) if open => {
                    range.1 = text(mine, "update_id");
                    range.3 = text(mine, "record_time");
                    range.4 += 1;
                    inside += pending_reassignments;
                }
                _ => ranges.push((
                    text(mine, "update_id"),
                    text(mine, "update_id"),
                    text(mine, "record_time"),
                    text(mine, "record_time"),
                    1,
                )),
            }
            open = true;
            pending_reassignments = 0;
        } else if mine.get("event").is_some() {
            pending_reassignments += 1;
        } else {
            open = false;
            pending_reassignments = 0;
        }
    }
    (ranges, inside)
}

#[test]
fn the_sweep_finds_every_differing_update_the_scans_own_pages_show() {
    let rt = runtime();
    rt.block_on(async {
        let f = faulty();
        let ledger = generate(SEED);
        // The scan diverges a little before the newest reassignments, so that they sit
        // between differing transactions; the sweep starts before it, and before the
        // backfilling scan's history.
        let newest_reassignment = (0..ledger.len())
            .rev()
            .find(|i| ledger.updates()[*i].tx().is_none())
            .expect("a reassignment");
        let diverge = (newest_reassignment - 20..newest_reassignment)
            .find(|i| ledger.updates()[*i].tx().is_some())
            .expect("a transaction");
        assert!(diverge < f.backfill_index);
        let faults = DemoFaults {
            diverging: Some((
                DIVERGING,
                DemoTime::At(ledger.updates()[diverge].record_time),
            )),
            ..faults_13(&f)
        };
        let handle = start_13(SEED, 0.0, faults).await;
        let net = network(&handle, 20.0).await;
        let start = &ledger.updates()[diverge - 10];
        let from = Cursor {
            migration_id: start.migration_id,
            record_time: start.record_time_string(),
        };
        let mut state = Sweep::new(SweepPlan::new(Some(from.clone()), 25), net.counted());
        let mut progress_calls = 0;
        sweep::run(&net, &mut state, &Cancel::new(), now, |_| {
            progress_calls += 1;
        })
        .await;
        // It goes on past the first difference, to the head.
        assert_eq!(state.end(), Some(&SweepEnd::ReachedHead));

        // The truth: the diverging scan's own pages against the first scan's.
        let reference = own_items(&net, 0, &from).await;
        let diverging = own_items(&net, DIVERGING, &from).await;
        let (expected, reassignments_inside) = truth(&reference, &diverging);
        assert_eq!(
            (expected.len(), reassignments_inside),
            (1, 2),
            "one range, with the two agreeing reassignments inside: {expected:?}"
        );
        assert_eq!(
            expected[0].0,
            ledger.updates()[diverge].update_id,
            "from the first transaction at the divergence point"
        );
        let found: Vec<Bounds> = state
            .ranges()
            .iter()
            .map(|r| {
                (
                    r.first.update_id.clone(),
                    r.last.update_id.clone(),
                    r.first.record_time.clone(),
                    r.last.record_time.clone(),
                    r.count,
                )
            })
            .collect();
        assert_eq!(found, expected);
        let total: u64 = expected.iter().map(|r| r.4).sum();
        assert_eq!(state.differing_updates(), total);
        assert!(!state.truncated());
        for range in state.ranges() {
            let sides: Vec<&[usize]> = range.sides.iter().map(|s| s.members.as_slice()).collect();
            assert_eq!(sides.len(), 2, "{sides:?}");
            assert_eq!(sides[1], [DIVERGING]);
            assert_eq!(sides[0].len(), 11, "all but the down and the diverging");
            assert_eq!(range.example_path(), Some("$.workflow_id"));
        }
        assert_eq!(
            state
                .minority_scans()
                .iter()
                .map(|m| m.scan)
                .collect::<Vec<_>>(),
            [DIVERGING]
        );
        // Every update was compared, the differing ones included.
        let (_, updates) = state.counts();
        assert_eq!(updates, reference.len() as u64);
        assert!(progress_calls >= 1);
        // The backfilling scan could not serve the first pages; the down scan none.
        assert!(state.failed_pages()[BACKFILLING] >= 1);
        assert!(state.failed_pages()[BACKFILLING] < state.failed_pages()[DOWN]);
        // The rate-limited scan (5/s) took part in every page.
        assert_eq!(state.failed_pages()[LIMITED], 0);

        // Asked 15 times at once at 20/s, it answers 429s: they are waited out (Retry-After,
        // then a slower rate) and every request ends with its answer.
        let call = cantonscope::api::scan::version();
        let replies =
            futures_util::future::join_all((0..15).map(|_| net.ask(LIMITED, &call))).await;
        let stats = handle.requests(LIMITED);
        let rejected: u64 = stats.iter().map(|(_, s)| s.rejected).sum();
        assert!(rejected > 0, "no 429 seen: {stats:?}");
        assert!(replies.iter().all(|r| r.success().is_some()), "{replies:?}");
        assert!(replies.iter().any(|r| r.throttled > 0));
        handle.shutdown().await;
    });
}

#[test]
fn the_budget_is_respected_and_a_lagging_scan_is_no_difference() {
    let rt = runtime();
    rt.block_on(async {
        // 4 scans: scan 2 allows 5 requests/s per client, scan 4 lags by 42 s.
        let handle = cantonscope::demo::start(DemoConfig {
            seed: SEED,
            scans: 4,
            stagger: false,
            faults: DemoFaults {
                lagging: Some((3, Duration::from_secs(42))),
                rate_limit: Some((1, 5)),
                ..DemoFaults::default()
            },
            ..DemoConfig::default()
        })
        .await
        .expect("demo");
        let net = network(&handle, 4.0).await;
        let ledger = generate(SEED);
        let n = ledger.len();
        let start = &ledger.updates()[n - 61];
        let mut state = Sweep::new(
            SweepPlan::new(
                Some(Cursor {
                    migration_id: start.migration_id,
                    record_time: start.record_time_string(),
                }),
                10,
            ),
            net.counted(),
        );
        sweep::run(&net, &mut state, &Cancel::new(), now, |_| {}).await;
        assert_eq!(state.end(), Some(&SweepEnd::ReachedHead));
        assert_eq!(state.counts().1, 60, "every update up to the head");
        assert_eq!(
            state.differing_updates(),
            0,
            "the lagging scan is no difference"
        );
        let stats = handle.requests(1);
        assert_eq!(stats.len(), 1, "one client: {stats:?}");
        let (_, s) = stats[0];
        assert!(s.total >= 7, "{s:?}");
        assert_eq!(s.rejected, 0, "{s:?}");
        assert!(s.max_per_second <= 5, "budget 4/s: {s:?}");
        handle.shutdown().await;
    });
}

#[test]
fn a_sweep_can_be_cancelled() {
    let rt = runtime();
    rt.block_on(async {
        let handle = cantonscope::demo::start(DemoConfig {
            seed: SEED,
            scans: 2,
            ..DemoConfig::default()
        })
        .await
        .expect("demo");
        let net = network(&handle, 1.0).await;
        let mut state = Sweep::new(SweepPlan::new(None, 5), net.counted());
        let cancel = Cancel::new();
        let stop = async {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            cancel.cancel();
        };
        let run = sweep::run(&net, &mut state, &cancel, now, |_| {});
        tokio::join!(run, stop);
        assert_eq!(state.end(), Some(&SweepEnd::Cancelled));
        assert!(state.counts().0 >= 1);
        handle.shutdown().await;
    });
}

// ---------------------------------------------------------------------------------------------
// Health (its own seed, its history ending at its start at any time of day: the ages of the
// newest update and round are fresh)

#[test]
fn health_classifies_every_scan() {
    let rt = runtime();
    rt.block_on(async {
        let handle = start_13_ending(
            101,
            0.0,
            DemoFaults {
                lagging: Some((LAGGING, Duration::from_secs(42))),
                down: Some((DOWN, DownMode::Refused)),
                ..DemoFaults::default()
            },
            true,
        )
        .await;
        let net = network(&handle, 10.0).await;
        let t = now();
        let observations = health::observe_all(&net, t).await;
        let h = assess(
            &observations,
            &net.counted(),
            t,
            &HealthThresholds::default(),
        );
        assert_eq!(h.n, 13);
        assert_eq!(h.quorum, 5);
        for (i, scan) in h.scans.iter().enumerate() {
            match i {
                DOWN => {
                    assert_eq!(scan.state, HealthState::Down);
                    assert!(scan.reasons[0].contains("onnect"), "{:?}", scan.reasons);
                }
                LAGGING => {
                    assert_eq!(scan.state, HealthState::Healthy, "{:?}", scan.reasons);
                    assert!(scan.lagging);
                    assert!(scan.lag_behind_newest.is_some_and(|l| l >= 42 * MICROS));
                }
                _ => {
                    assert_eq!(
                        scan.state,
                        HealthState::Healthy,
                        "scan {i}: {:?}",
                        scan.reasons
                    );
                    assert!(!scan.lagging, "scan {i}");
                    assert_eq!(scan.lag_behind_newest, Some(0));
                }
            }
        }
        for o in observations
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != DOWN)
            .map(|(_, o)| o)
        {
            assert_eq!(o.version.as_deref(), Some("0.6.10"));
            assert!(o.latency.is_some());
            assert!(matches!(&o.head, Some(Ok(Some(head))) if head.migration_id == 1));
        }
        assert_eq!(h.outcome, HealthOutcome::Degraded);
        assert!(
            h.verdict.starts_with("13 scans · 11 healthy · 1 lagging ")
                && h.verdict.ends_with(" s · 1 down · quorum 5 healthy ✓"),
            "{}",
            h.verdict
        );
        handle.shutdown().await;

        // 503 is down too; a scan 400 s behind is unhealthy (its newest update is too old).
        let handle = cantonscope::demo::start(DemoConfig {
            seed: 101,
            scans: 4,
            stagger: false,
            end_now: true,
            faults: DemoFaults {
                lagging: Some((3, Duration::from_secs(400))),
                down: Some((1, DownMode::Unavailable)),
                ..DemoFaults::default()
            },
            ..DemoConfig::default()
        })
        .await
        .expect("demo");
        let net = network(&handle, 10.0).await;
        let t = now();
        let observations = health::observe_all(&net, t).await;
        let h = assess(
            &observations,
            &net.counted(),
            t,
            &HealthThresholds::default(),
        );
        assert_eq!(h.scans[1].state, HealthState::Down);
        assert!(
            h.scans[1].reasons[0].contains("503"),
            "{:?}",
            h.scans[1].reasons
        );
        assert_eq!(h.scans[3].state, HealthState::Unhealthy);
        assert!(
            h.scans[3]
                .reasons
                .iter()
                .any(|r| r.starts_with("newest update is")),
            "{:?}",
            h.scans[3].reasons
        );
        assert_eq!(
            h.verdict,
            "4 scans · 2 healthy · 1 unhealthy · 1 down · quorum 2 healthy ✓"
        );
        // Thresholds are configurable: a 1 s update age makes every scan unhealthy.
        let strict = HealthThresholds {
            max_update_age: Duration::from_secs(1),
            ..HealthThresholds::default()
        };
        let h = assess(&observations, &net.counted(), t + 10 * MICROS, &strict);
        assert_eq!(h.outcome, HealthOutcome::NoHealthyQuorum);
        handle.shutdown().await;
    });
}

// ---------------------------------------------------------------------------------------------
// Config

#[test]
fn network_config_keys() {
    let loaded = |text: &str| LoadedFile {
        path: "/etc/cs/config.toml".into(),
        text: text.to_owned(),
    };
    let resolve = |text: &str| {
        config::resolve(
            Some(&loaded(text)),
            &config::Env::new(),
            &Overrides::default(),
        )
    };
    let s = resolve(
        "[profiles.main]\nscan_url = \"https://a.example\"\nnetwork_scans = [\"SV-1\", \"SV-2\"]\nscan_request_rate = 4.5\nmax_round_age = \"20m\"\nmax_update_age = \"2m\"\nmax_lag = \"10s\"\n",
    )
    .expect("valid");
    assert_eq!(
        s.network.scans,
        ScanSelection::Names(vec!["SV-1".into(), "SV-2".into()])
    );
    assert!((s.network.request_rate - 4.5).abs() < 1e-9);
    assert_eq!(
        s.network.thresholds.max_round_age,
        Duration::from_secs(1200)
    );
    assert_eq!(
        s.network.thresholds.max_update_age,
        Duration::from_secs(120)
    );
    assert_eq!(s.network.thresholds.max_lag, Duration::from_secs(10));
    let all = resolve("[profiles.main]\nnetwork_scans = \"all\"\n").expect("valid");
    assert_eq!(all.network.scans, ScanSelection::All);
    assert_eq!(all.network.request_rate, 10.0);
    for (text, line, needle) in [
        (
            "[profiles.main]\nscan_url = \"https://a.example\"\nnetwork_scans = \"some\"\n",
            3,
            "network_scans",
        ),
        ("[profiles.main]\n\nnetwork_scans = []\n", 3, "empty"),
        (
            "[profiles.main]\nscan_request_rate = 0\n",
            2,
            "scan_request_rate",
        ),
        (
            "[profiles.main]\nscan_request_rate = 5000.0\n",
            2,
            "scan_request_rate",
        ),
        ("[profiles.main]\nmax_lag = \"0s\"\n", 2, "max_lag"),
        (
            "[profiles.main]\nnetwork_scans = 5\n",
            2,
            "\"all\" or a list of SV names",
        ),
        (
            "[profiles.main]\nnetwork_scan = \"all\"\n",
            2,
            "network_scan",
        ),
    ] {
        let error = resolve(text).expect_err(text).to_string();
        assert!(
            error.starts_with(&format!("/etc/cs/config.toml:{line}:")),
            "{text:?}: {error}"
        );
        assert!(error.contains(needle), "{text:?}: {error}");
    }
}

// ---------------------------------------------------------------------------------------------
// CLI

/// A demo network of 4 scans for the CLI: scan 2 down, scan 3 diverging from `diverge_index`,
/// scan 4 lagging 42 s. Its own seed (fresh ages for `network health`).
struct CliDemo {
    _runtime: tokio::runtime::Runtime,
    handle: DemoHandle,
    dir: tempfile::TempDir,
    diverge_index: usize,
}

const CLI_SEED: u64 = 104;

fn cli_demo() -> &'static CliDemo {
    static DEMO: OnceLock<CliDemo> = OnceLock::new();
    DEMO.get_or_init(|| {
        let ledger = generate_ending_now(CLI_SEED);
        let n = ledger.len();
        let diverge_index = (n - 40..n)
            .find(|i| ledger.updates()[*i].tx().is_some())
            .expect("a transaction");
        let rt = runtime();
        let handle = rt
            .block_on(cantonscope::demo::start(DemoConfig {
                seed: CLI_SEED,
                scans: 4,
                stagger: false,
                end_now: true,
                faults: DemoFaults {
                    lagging: Some((3, Duration::from_secs(42))),
                    down: Some((1, DownMode::Refused)),
                    diverging: Some((2, DemoTime::At(ledger.updates()[diverge_index].record_time))),
                    ..DemoFaults::default()
                },
                ..DemoConfig::default()
            }))
            .expect("demo");
        CliDemo {
            _runtime: rt,
            handle,
            dir: tempfile::tempdir().expect("tempdir"),
            diverge_index,
        }
    })
}

fn network_cli_raw(args: &[&str]) -> Output {
    let demo = cli_demo();
    bin(demo.dir.path())
        .arg("--scan-url")
        .arg(&demo.handle.scan_url)
        .arg("network")
        .args(args)
        .output()
        .expect("runs")
}

fn network_cli(args: &[&str]) -> (Output, Value) {
    let output = network_cli_raw(args);
    let json = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output, json)
}

#[test]
fn cli_help_documents_the_exit_codes() {
    let dir = tempfile::tempdir().expect("tempdir");
    for args in [
        &["network", "--help"][..],
        &["network", "health", "--help"][..],
    ] {
        let output = bin(dir.path()).args(args).output().expect("runs");
        assert_eq!(output.status.code(), Some(0));
        let text = String::from_utf8_lossy(&output.stdout);
        for needle in [
            "Exit codes:",
            "  5  health",
            "  6  health",
            "130",
            "check-update: a consensus on an error answer: 404, no scan has the update",
        ] {
            assert!(text.contains(needle), "{args:?} lacks {needle:?}:\n{text}");
        }
    }
    let output = bin(dir.path())
        .args(["network", "scans"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2), "no scan configured");
}

#[test]
fn cli_scans_and_health() {
    let (output, scans) = network_cli(&["scans"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(scans["source"], "fetched");
    assert_eq!(
        (scans["n"].as_u64(), scans["quorum"].as_u64()),
        (Some(4), Some(2))
    );
    assert_eq!(scans["scans"][0]["own"], true);
    assert_eq!(scans["scans"][1]["sv_name"], "Boreal-Ops-2");
    let cache = scans["cache_file"].as_str().expect("cache file");
    assert!(Path::new(cache).exists(), "{cache}");

    let (output, health) = network_cli(&["health"]);
    assert_eq!(output.status.code(), Some(5), "degraded: {health}");
    assert_eq!(health["outcome"], "degraded");
    let states: Vec<&str> = health["scans"]
        .as_array()
        .expect("scans")
        .iter()
        .map(|s| s["state"].as_str().unwrap_or_default())
        .collect();
    // The diverging scan differs at the head: the head check finds it forked (it never reads
    // healthy), naming the update and one JSON path.
    assert_eq!(states, ["healthy", "down", "forked", "healthy"]);
    let forked = &health["scans"][2]["forked"];
    assert_eq!(forked["found_by"], "head check", "{health}");
    assert!(forked["update_id"].is_string(), "{health}");
    assert!(
        forked["path"].as_str().is_some_and(|p| p.starts_with('$')),
        "{health}"
    );
    assert!(health["head_check"]["after"].is_object(), "{health}");
    assert!(
        health["findings"]
            .as_array()
            .is_some_and(|f| f.iter().any(|f| f["kind"] == "forked")),
        "{health}"
    );
    assert_eq!(health["scans"][3]["lagging"], true);
    assert_eq!(health["scans"][1]["status"], "unreachable");
    assert_eq!(health["scans"][0]["version"], "0.6.10");
    assert!(health["scans"][0]["newest_open_round"]["number"].is_u64());
    assert!(health["scans"][0]["latency_ms"].is_f64());
    assert!(
        health["verdict"]
            .as_str()
            .is_some_and(|v| v.starts_with("4 scans · 1 healthy · 1 lagging ")
                && v.contains(" · 1 forked · ")),
        "{}",
        health["verdict"]
    );
    // The counts read like the verdict line and add up to n; the quorum counts lagging ones.
    let count = |k: &str| health[k].as_u64();
    assert_eq!(
        [
            count("healthy"),
            count("lagging"),
            count("unhealthy"),
            count("down"),
            count("forked")
        ],
        [Some(1), Some(1), Some(0), Some(1), Some(1)],
        "{health}"
    );
    assert_eq!(count("quorum_healthy"), Some(2));
    for scan in health["scans"].as_array().expect("scans") {
        for age in [
            &scan["newest_update_age_s"],
            &scan["newest_open_round"]["age_s"],
        ] {
            assert!(age.as_f64().is_none_or(|s| s >= 0.0), "{scan}");
        }
    }
    // Verdict ingestion: scan 1 serves `/v0/events/latest-record-time` (a little behind its
    // newest update); scan 4, the last, is older (absent: null, and still healthy).
    let lag = health["scans"][0]["verdict_ingestion_lag_s"].as_f64();
    assert!(lag.is_some_and(|s| (0.0..600.0).contains(&s)), "{health}");
    assert!(health["scans"][0]["latest_event_record_time"].is_string());
    assert!(health["scans"][3]["verdict_ingestion_lag_s"].is_null());
    assert!(health["scans"][3]["latest_event_record_time"].is_null());
    // Stricter thresholds by flag: nothing is healthy.
    let (output, strict) = network_cli(&["health", "--max-update-age", "1ms"]);
    assert_eq!(output.status.code(), Some(6), "{strict}");
    assert_eq!(strict["outcome"], "no_healthy_quorum");
}

/// `$CANTONSCOPE_DATA_DIR` decides where the scan list is kept: the CLI writes it there and
/// nowhere else (the home directory holds only the log the test asked for), the settings
/// resolve it from the environment, and the built-in demo keeps nothing at all.
#[test]
fn the_scan_list_is_kept_only_in_the_data_dir() {
    let demo = cli_demo();
    let (home, data) = (
        tempfile::tempdir().expect("tempdir"),
        tempfile::tempdir().expect("tempdir"),
    );
    let output = bin(home.path())
        .env("CANTONSCOPE_DATA_DIR", data.path())
        .arg("--scan-url")
        .arg(&demo.handle.scan_url)
        .args(["network", "scans"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&output.stdout).expect("json");
    let cache = Path::new(json["cache_file"].as_str().expect("cache file"));
    assert!(cache.starts_with(data.path()), "{}", cache.display());
    assert!(cache.exists(), "{}", cache.display());
    let files = |dir: &Path| {
        let mut found = Vec::new();
        let mut todo = vec![dir.to_owned()];
        while let Some(d) = todo.pop() {
            for entry in std::fs::read_dir(&d).expect("readable").flatten() {
                if entry.path().is_dir() {
                    todo.push(entry.path());
                } else {
                    found.push(entry.path());
                }
            }
        }
        found
    };
    assert_eq!(files(data.path()), [cache.to_owned()]);
    assert_eq!(
        files(home.path()),
        [home.path().join("cantonscope.log")],
        "nothing but the log under HOME"
    );

    let env: config::Env = [("CANTONSCOPE_DATA_DIR".to_owned(), "/srv/cs".to_owned())].into();
    let mut settings = config::resolve(None, &env, &Overrides::default()).expect("resolves");
    assert_eq!(settings.data_path(), Some("/srv/cs".into()));
    settings
        .use_demo(
            &["http://127.0.0.1:1".into()],
            "http://127.0.0.1:2",
            "http://127.0.0.1:3",
            "t",
        )
        .expect("demo");
    assert_eq!(
        settings.data_path(),
        None,
        "the built-in demo keeps nothing"
    );
}

#[test]
fn cli_check_update_exit_codes() {
    let demo = cli_demo();
    let ledger = generate_ending_now(CLI_SEED);
    let n = ledger.len();
    // Before the divergence: scans 1, 3, 4 agree, scan 2 is unreachable → 0.
    let old = ledger.updates()[demo.diverge_index - 30].update_id.clone();
    let (output, check) = network_cli(&["check-update", &old]);
    assert_eq!(output.status.code(), Some(0), "{check}");
    assert_eq!(check["consensus"], "reached");
    assert_eq!(check["own_scan"], "agree");
    let classes: Vec<&str> = check["scans"]
        .as_array()
        .expect("scans")
        .iter()
        .map(|s| s["class"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(classes, ["agree", "unreachable", "agree", "agree"]);
    assert_eq!(
        (&check["outcome"], &check["found"]),
        (&Value::from("verified"), &Value::from(true))
    );

    // An update no scan has: a consensus of 404s is reported as such and is no success (it
    // exited 0, so `check-update X && echo verified` passed).
    let absent = format!("1220{}", "deadbeef".repeat(8));
    let (output, missing) = network_cli(&["check-update", &absent]);
    assert_eq!(output.status.code(), Some(1), "{missing}");
    assert_eq!(missing["consensus"], "reached");
    assert_eq!(missing["outcome"], "not_found");
    assert_eq!(missing["found"], false);
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains(&format!("no scan has update {absent} (404 from ")) && err.contains(" of 4)"),
        "{err}"
    );

    // What the explorer's lists show (a prefix, without `1220`) is no id a scan can look up:
    // a usage error that says so, before any scan is asked.
    for short in ["1220deadbeef", &old[4..16]] {
        let output = network_cli_raw(&["check-update", short]);
        assert_eq!(output.status.code(), Some(2), "{short}");
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(
            err.contains("is not a whole update id (68 hex characters"),
            "{err}"
        );
    }
    // The 64 characters after the prefix are the whole id.
    let (output, check) = network_cli(&["check-update", &old[4..]]);
    assert_eq!(output.status.code(), Some(0), "{check}");

    // The diverging update, old enough for the lagging scan: a consensus, scan 3 disagrees → 5.
    let lag_cutoff = ledger.updates()[n - 1].record_time - 42 * MICROS;
    let diverged = &ledger.updates()[demo.diverge_index];
    if diverged.record_time <= lag_cutoff {
        let (output, check) = network_cli(&["check-update", &diverged.update_id]);
        assert_eq!(output.status.code(), Some(5), "{check}");
        assert_eq!(check["scans"][2]["class"], "disagree");
        assert_eq!(check["scans"][2]["differences"][0]["path"], "$.workflow_id");
    }

    // The newest update: scan 3 differs, scan 4 does not know, scan 2 is down: no consensus → 6.
    let newest = &ledger.updates()[(demo.diverge_index..n)
        .rev()
        .find(|i| ledger.updates()[*i].tx().is_some())
        .expect("a transaction")];
    assert!(newest.record_time > lag_cutoff);
    let (output, check) = network_cli(&["check-update", &newest.update_id]);
    assert_eq!(output.status.code(), Some(6), "{check}");
    assert_eq!(check["consensus"], "none");
    assert_eq!(check["scans"][3]["class"], "dont_know");
    assert_eq!(
        check["scans"][3]["detail"], "its history does not reach this update yet",
        "{check}"
    );
}

#[test]
fn cli_sweep_reports_every_differing_update_in_ranges() {
    let demo = cli_demo();
    let ledger = generate_ending_now(CLI_SEED);
    let start = &ledger.updates()[demo.diverge_index - 25];
    let from = chrono::DateTime::from_timestamp_micros(start.record_time - 1)
        .expect("time")
        .to_rfc3339();
    let (output, sweep) = network_cli(&["sweep", "--from", &from, "--page-size", "10"]);
    assert_eq!(output.status.code(), Some(5), "{sweep}");
    assert_eq!(sweep["schema"], "cantonscope.sweep/1");
    // It goes on past the differences, to the head.
    assert_eq!(sweep["end"], "reached_head", "{sweep}");
    assert_eq!(sweep["outcome"], "differ");
    assert_eq!(sweep["truncated"], false);
    // The truth from the ledger the demo serves: the diverging scan renders every transaction
    // from its point on differently, reassignments alike; one range, from the first of those
    // transactions to the last.
    let txs: Vec<_> = ledger.updates()[demo.diverge_index..]
        .iter()
        .filter(|u| u.tx().is_some())
        .collect();
    assert_eq!(sweep["differing_updates"], txs.len(), "{sweep}");
    let ranges = sweep["ranges"].as_array().expect("ranges");
    assert_eq!(ranges.len(), 1, "{sweep}");
    let range = &ranges[0];
    assert_eq!(range["count"], txs.len());
    assert_eq!(range["first_update_id"], txs[0].update_id.as_str());
    assert_eq!(
        range["last_update_id"],
        txs.last().expect("a transaction").update_id.as_str()
    );
    assert_eq!(range["first_record_time"], txs[0].record_time_string());
    assert_eq!(range["example_path"], "$.workflow_id");
    let sides = range["sides"].as_array().expect("sides");
    assert_eq!(sides.len(), 2);
    assert_eq!(sides[1]["indexes"], serde_json::json!([2]));
    assert_eq!(sides[1]["scans"][0], sweep["scans"][2]["name"]);
    assert_eq!(sides[1]["count"], 1);
    assert_eq!(sides[0]["quorum"], true);
    assert_eq!(sides[1]["quorum"], false);
    // Progress: one JSON line per page on stderr.
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<Value> = stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert!(!lines.is_empty());
    assert!(
        lines
            .iter()
            .all(|l| l["pages"].is_u64() && l["updates_per_s"].is_number())
    );
    // Seconds in milliseconds, without float noise (it read 3.5019609999999997).
    for line in &lines {
        let elapsed = line["elapsed_s"].to_string();
        let decimals = elapsed.split_once('.').map_or(0, |(_, d)| d.len());
        assert!(decimals <= 3, "{elapsed}");
    }
    // Pages are numbered as the progress lines number them: the last page read is `pages`
    // (10 updates a page, the last one short: the head).
    let (pages, updates) = (
        sweep["pages"].as_u64().expect("pages"),
        sweep["updates"].as_u64().expect("updates"),
    );
    assert_eq!(pages, updates / 10 + 1, "{pages} pages, {updates} updates");
    assert_eq!(lines.last().map(|l| &l["pages"]), Some(&sweep["pages"]));
    assert_eq!(
        lines.last().map(|l| &l["differing_updates"]),
        Some(&sweep["differing_updates"])
    );
    assert_eq!(range["last_page"], sweep["pages"]);

    // --max-differences stops early and says so.
    let (output, first3) = network_cli(&[
        "sweep",
        "--from",
        &from,
        "--page-size",
        "10",
        "--max-differences",
        "3",
        "--quiet",
    ]);
    assert_eq!(output.status.code(), Some(5), "{first3}");
    assert_eq!(first3["end"], "max_differences");
    assert_eq!(first3["truncated"], true);
    assert_eq!(first3["differing_updates"], 3);
    assert_eq!(
        first3["ranges"][0]["first_update_id"],
        txs[0].update_id.as_str()
    );
    assert_eq!(
        first3["ranges"][0]["last_update_id"],
        txs[2].update_id.as_str()
    );
    assert_eq!(
        first3["cursor"]["record_time"],
        txs[2].record_time_string(),
        "it stopped after the last one it kept"
    );

    // A page limit, quietly: no difference in the first pages → 0.
    let (output, limited) = network_cli(&["sweep", "--pages", "2", "--page-size", "5", "--quiet"]);
    assert_eq!(output.status.code(), Some(0), "{limited}");
    assert_eq!(limited["end"], "page_limit");
    assert_eq!(limited["outcome"], "agree");
    assert_eq!(
        (&limited["updates"], &limited["pages"]),
        (&10.into(), &2.into())
    );
    assert_eq!(limited["differing_updates"], 0);
    assert_eq!(limited["ranges"], serde_json::json!([]));
    assert!(output.stderr.is_empty());

    // A span back from now, as the explorer's `S` and `:time` take it (it used to be a usage
    // error, and `--from -2h` without `=` a clap error).
    let (output, back) = network_cli(&["sweep", "--from", "-2h", "--pages", "1", "--quiet"]);
    assert_ne!(output.status.code(), Some(2), "{back}");
    assert!(back["end"].is_string(), "{back}");
}

/// `network sweep --output table`: the outcome and counts, then a row per range of differing
/// updates, read from the same JSON.
#[test]
fn cli_sweep_as_a_table_has_a_row_per_range() {
    let demo = cli_demo();
    let ledger = generate_ending_now(CLI_SEED);
    let start = &ledger.updates()[demo.diverge_index - 25];
    let from = chrono::DateTime::from_timestamp_micros(start.record_time - 1)
        .expect("time")
        .to_rfc3339();
    let args = ["sweep", "--from", &from, "--page-size", "50", "--quiet"];
    let (_, json) = network_cli(&args);
    let output = network_cli_raw(&[&args[..], &["--output", "table"]].concat());
    assert_eq!(output.status.code(), Some(5));
    let text = String::from_utf8_lossy(&output.stdout);
    let summary = |label: &str| {
        let line = text
            .lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no {label}: {text}"));
        line[label.len()..].trim().to_owned()
    };
    assert_eq!(summary("outcome"), "differ");
    assert_eq!(
        summary("differing updates"),
        json["differing_updates"].to_string()
    );
    let header = text
        .lines()
        .position(|l| l.starts_with("COUNT"))
        .unwrap_or_else(|| panic!("no header: {text}"));
    let rows: Vec<&str> = text.lines().skip(header + 1).collect();
    let ranges = json["ranges"].as_array().expect("ranges");
    assert_eq!(rows.len(), ranges.len(), "{text}");
    for (row, range) in rows.iter().zip(ranges) {
        let differing = range["sides"][1]["scans"][0].as_str().expect("a scan");
        assert!(
            row.trim_start().starts_with(&range["count"].to_string())
                && row.contains(range["first_record_time"].as_str().expect("time"))
                && row.contains(differing)
                && row.contains("$.workflow_id"),
            "{row}"
        );
    }
}

/// `sweep --from` reads times as `:time` does and says so in one message; `now`, `recent` and a
/// time in the future are usage errors (`now` was accepted by the parser and then refused with
/// another list, and a future time "reached the head" with exit 0 having compared nothing).
#[test]
fn cli_sweep_from_takes_the_time_grammar_and_refuses_the_future() {
    let dir = tempfile::tempdir().expect("tempdir");
    let accepted = ["begin", "RFC 3339", "-2h", "yesterday 14:00"];
    for (from, needle) in [
        ("now", "is not a start"),
        ("recent", "is not a start"),
        ("soon", "is not a start"),
        ("2099-01-01T00:00:00Z", "is in the future"),
    ] {
        let output = bin(dir.path())
            .args([
                "--scan-url",
                "http://127.0.0.1:1",
                "network",
                "sweep",
                "--from",
                from,
            ])
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{from}: {err}");
        assert!(err.contains(needle), "{from}: {err}");
        for form in accepted {
            assert!(err.contains(form), "{from} lacks {form:?}: {err}");
        }
    }
    // No scan to say where the start is: the scans failed (6), not the usage (it exited 2).
    let output = bin(dir.path())
        .args([
            "--scan-url",
            "http://127.0.0.1:1",
            "network",
            "sweep",
            "--from",
            "-1h",
        ])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(6), "{err}");
    assert!(err.contains("cannot find where"), "{err}");
    // A second ago is not in the future; a time of day is read as :time reads it.
    for from in ["-1s", "yesterday 00:00"] {
        let (output, sweep) = network_cli(&["sweep", "--from", from, "--pages", "1", "--quiet"]);
        assert_ne!(output.status.code(), Some(2), "{from}: {sweep}");
        assert!(sweep["end"].is_string(), "{from}: {sweep}");
    }
}

/// A server answering every request with `status` and an HTML page (a proxy in front of the
/// scan).
fn html_server(status: u16) -> String {
    use axum::http::{StatusCode, header};
    let runtime = runtime();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let code = StatusCode::from_u16(status).expect("status");
    let app = axum::Router::new().fallback(move || async move {
        (
            code,
            [(header::CONTENT_TYPE, "text/html")],
            "<html><body><h1>Bad gateway</h1></body></html>",
        )
    });
    std::thread::spawn(move || {
        runtime.block_on(async move {
            let _ = axum::serve(listener, app).await;
        });
    });
    url
}

/// An HTML answer reads as the API client words it in the network commands too: `expected
/// JSON, got text/html (HTTP 502)` and `this scan only answers allowlisted addresses (HTTP
/// 403)`, never the page (health reasons read `HTTP 502: <html>…`).
#[test]
fn cli_html_answers_read_as_the_client_words_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |url: &str, args: &[&str]| {
        let output = bin(dir.path())
            .args(["--scan-url", url, "network"])
            .args(args)
            .args(["--timeout", "5s"])
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&output.stderr).into_owned();
        let json: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        assert!(
            !err.contains("<html") && !json.to_string().contains("<html"),
            "{err}\n{json}"
        );
        (output.status.code(), json, err)
    };
    let proxy = html_server(502);
    let (_, health, err) = run(&proxy, &["health"]);
    assert!(
        err.contains("scan GET /v0/scans: expected JSON, got text/html (HTTP 502)"),
        "{err}"
    );
    assert_eq!(health["scans"][0]["state"], "down", "{health}");
    assert_eq!(
        health["scans"][0]["reasons"][0], "expected JSON, got text/html (HTTP 502)",
        "{health}"
    );
    let (code, check, err) = run(
        &proxy,
        &[
            "check-update",
            "1220abababababababababababababababababababababababababababababababab",
        ],
    );
    assert_eq!(code, Some(1), "{check}");
    assert_eq!(check["outcome"], "error", "{check}");
    assert!(
        err.contains("(1 of 1): expected JSON, got text/html (HTTP 502)"),
        "{err}"
    );

    let allowlist = html_server(403);
    let (_, health, _) = run(&allowlist, &["health"]);
    assert_eq!(health["scans"][0]["state"], "unhealthy", "{health}");
    assert_eq!(
        health["scans"][0]["reasons"][0],
        "status: this scan only answers allowlisted addresses (HTTP 403)",
        "{health}"
    );
}

/// A server that accepts every connection and never answers (keeps it open); `accepted` hears of
/// each connection.
fn silent_server() -> (String, std::sync::mpsc::Receiver<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut open = Vec::new();
        for stream in listener.incoming().flatten() {
            open.push(stream);
            let _ = tx.send(());
        }
    });
    (url, rx)
}

/// A config file pinning `pinned` as an extra scan of the default profile.
fn pinning_config(dir: &Path, name: &str, pinned: &str) -> std::path::PathBuf {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(
        &path,
        format!("default_profile = \"p\"\n[profiles.p]\nscan_urls = [\"{pinned}\"]\n"),
    )
    .expect("config written");
    path
}

/// `--timeout` bounds every request, the scan list's included: against a scan that accepts and
/// never answers, each command ends within a few timeouts (it took 90 s and more when
/// discovery kept the client's 30 s timeout and retried it twice).
#[test]
fn cli_timeout_bounds_every_request_discovery_included() {
    let (url, _accepted) = silent_server();
    let dir = tempfile::tempdir().expect("tempdir");
    let started = std::time::Instant::now();
    let children: Vec<(&[&str], std::process::Child)> = [
        &["scans"][..],
        &[
            "check-update",
            "1220abababababababababababababababababababababababababababababababab",
        ][..],
        &["health"][..],
        &["sweep", "--pages", "1", "--quiet"][..],
    ]
    .into_iter()
    .map(|args| {
        let child = bin(dir.path())
            .args(["--scan-url", &url, "network"])
            .args(args)
            .args(["--timeout", "1s"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawns");
        (args, child)
    })
    .collect();
    for (args, child) in children {
        let output = child.wait_with_output().expect("exits");
        let took = started.elapsed();
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(
            took < Duration::from_secs(10),
            "{args:?} took {took:?}: {err}"
        );
        assert!(err.contains("timed out"), "{args:?}: {err}");
        assert_ne!(output.status.code(), Some(0), "{args:?}: {err}");
    }
}

#[test]
fn cli_refuses_a_zero_timeout_and_zero_pages_readably() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (args, needle) in [
        (
            &["network", "scans", "--timeout", "0s"][..],
            "--timeout must be longer than 0s",
        ),
        (
            &["network", "sweep", "--pages", "0"][..],
            "--pages must be at least 1",
        ),
    ] {
        let output = bin(dir.path())
            .args(["--scan-url", "http://127.0.0.1:1"])
            .args(args)
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("18446744073709551615"), "{args:?}: {err}");
    }
}

/// Ctrl-C ends every network command at once with 130, while the scan list is read and while
/// the scans are asked; the sweep still prints its result so far.
#[test]
fn cli_ctrl_c_ends_every_network_command_promptly() {
    let demo = cli_demo();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut runs = Vec::new();
    for args in [
        &["health"][..],
        &["sweep", "--quiet"][..],
        &[
            "check-update",
            "1220abababababababababababababababababababababababababababababababab",
        ][..],
    ] {
        for while_discovering in [true, false] {
            let (silent, accepted) = silent_server();
            let mut command = bin(dir.path());
            if while_discovering {
                command.args(["--scan-url", &silent]);
            } else {
                // The list comes from the demo; the pinned silent scan holds the command.
                let config = pinning_config(dir.path(), &format!("pin{}", runs.len()), &silent);
                command
                    .arg("--config")
                    .arg(config)
                    .args(["--scan-url", &demo.handle.scan_url]);
            }
            let child = command
                .arg("network")
                .args(args)
                .args(["--timeout", "60s"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawns");
            runs.push((args, while_discovering, accepted, child));
        }
    }
    for (args, while_discovering, accepted, child) in runs {
        accepted
            .recv_timeout(Duration::from_secs(20))
            .expect("the silent scan is asked");
        std::thread::sleep(Duration::from_millis(300));
        let status = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
        let sent = std::time::Instant::now();
        let output = child.wait_with_output().expect("exits");
        let took = sent.elapsed();
        let what = format!(
            "{args:?} (while discovering: {while_discovering}): {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(took < Duration::from_secs(5), "{what} took {took:?}");
        assert_eq!(output.status.code(), Some(130), "{what}");
        if args[0] == "sweep" && !while_discovering {
            let result: Value = serde_json::from_slice(&output.stdout).expect("the result so far");
            assert_eq!(result["end"], "cancelled", "{what}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Recorded MainNet samples (`../shared/samples`, skipped when absent)

fn sample(name: &str) -> Option<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/samples");
    if !dir.is_dir() {
        eprintln!("skipping: sample folder {} is absent", dir.display());
        return None;
    }
    Some(std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}")))
}

#[test]
fn mainnet_samples_decode_and_compare() {
    use cantonscope::api::scan as api;
    use cantonscope::model::consensus::digest::Digester;
    use cantonscope::model::network::ScanList;
    let Some(scans) = sample("scan-mainnet-GET-v0-scans.json") else {
        return;
    };
    let call = api::scans();
    let listed = call
        .decode_response(200, &[], &scans)
        .expect("scans decode");
    let list = ScanList::from_response(&listed).expect("a list");
    assert!(list.domain_id.starts_with("global-domain::"));
    assert_eq!(list.scans.len(), 13);
    assert!(
        list.scans
            .iter()
            .all(|s| s.url.starts_with("https://") && !s.sv_name.is_empty())
    );

    let version = sample("scan-mainnet-GET-version.json").expect("sample");
    let version = api::version()
        .decode_response(200, &[], &version)
        .expect("version decodes");
    assert_eq!(version.version, "0.5.5");

    let rounds =
        sample("scan-mainnet-POST-v0-open-and-issuing-mining-rounds.json").expect("sample");
    let rounds = api::open_and_issuing_mining_rounds(&api::MiningRoundsRequest::default())
        .decode_response(200, &[], &rounds)
        .expect("rounds decode");
    assert_eq!(rounds.open_mining_rounds.len(), 3);
    assert_eq!(rounds.issuing_mining_rounds.len(), 2);
    let newest = rounds.newest_open_round().expect("an open round");
    assert_eq!(newest.number, 81_325);
    assert_eq!(newest.created_at, "2026-01-30T08:39:18.316438Z");

    // One update: the recorded text and its canonical form (keys sorted, no whitespace) are
    // the same answer, by the digest and by grouping.
    let update = sample("scan-mainnet-GET-v2-updates-by-update_id.json").expect("sample");
    let value: Value = serde_json::from_slice(&update).expect("json");
    let canonical = consensus::canonical_json(&value);
    assert_ne!(canonical.as_bytes(), update.as_slice());
    let d = Digester::new();
    assert_eq!(
        d.hash(&update, LocalFields::UPDATE).expect("hash"),
        d.hash(canonical.as_bytes(), LocalFields::UPDATE)
            .expect("hash")
    );
    let answers = [
        Answer::from_http(200, &update, LocalFields::UPDATE),
        Answer::from_http(200, canonical.as_bytes(), LocalFields::UPDATE),
    ];
    assert_eq!(group_answers(&answers).groups.len(), 1);
    let position = consensus::update_position(&value).expect("a position");
    assert_eq!(position.migration_id, 0);
}

#[test]
fn cli_health_as_a_table_has_a_row_per_scan_and_the_verdict() {
    let (_, json) = network_cli(&["health"]);
    let output = network_cli_raw(&["health", "--output", "table"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.code().is_some());
    // (Two runs: the lag in the verdict may differ by a second; its start does not.)
    let verdict = json["verdict"].as_str().expect("verdict");
    let start = verdict.split(" · ").next().expect("scans");
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.starts_with("verdict") && l.contains(start)),
        "{text}"
    );
    let scans = json["scans"].as_array().expect("scans");
    for scan in scans {
        let name = scan["sv_name"].as_str().expect("name");
        let row = text
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no row for {name}: {text}"));
        assert!(
            ["healthy", "unhealthy", "down", "forked"]
                .iter()
                .any(|state| row.split_whitespace().any(|w| w == *state)),
            "{row}"
        );
    }
    let header = text
        .lines()
        .find(|l| l.starts_with("SCAN"))
        .expect("header");
    assert!(
        header.contains("STATE") && header.contains("HEAD"),
        "{header}"
    );
}

/// Issue 21: the demo's backfilling scan and its rate-limited one (429 above 3 requests a
/// second) are states of their own, not `healthy`; the counts still add up to n and they alone
/// leave the network "all healthy" (no exit 5).
#[test]
fn backfilling_and_rate_limited_scans_are_states_of_their_own() {
    let rt = runtime();
    rt.block_on(async {
        let ledger = generate_ending_now(SEED);
        let n = ledger.len();
        let handle = start_13_ending(
            SEED,
            0.0,
            DemoFaults {
                backfilling: Some((
                    BACKFILLING,
                    DemoTime::At(ledger.updates()[n - 150].record_time),
                )),
                // One request a second: the measurement's six or more requests to a scan
                // meet the limit even when a loaded machine spreads them over several seconds
                // (with 3, split 3 + 3 across a second's edge, none was refused).
                rate_limit: Some((LIMITED, 1)),
                ..DemoFaults::default()
            },
            true,
        )
        .await;
        let net = network(&handle, 10.0).await;
        let t = now();
        let observations = health::observe_all(&net, t).await;
        let h = assess(
            &observations,
            &net.counted(),
            t,
            &HealthThresholds::default(),
        );
        assert_eq!(
            h.scans[BACKFILLING].state,
            HealthState::Backfilling,
            "{:?}",
            h.scans[BACKFILLING]
        );
        assert_eq!(
            h.scans[LIMITED].state,
            HealthState::RateLimited,
            "{:?}",
            h.scans[LIMITED]
        );
        assert_eq!(
            (h.healthy, h.backfilling, h.rate_limited),
            (11, 1, 1),
            "{}",
            h.verdict
        );
        assert_eq!(
            h.healthy + h.backfilling + h.rate_limited + h.unhealthy + h.down,
            h.n
        );
        assert_eq!(h.outcome, HealthOutcome::AllHealthy, "{}", h.verdict);
        handle.shutdown().await;
    });
}

// ---------------------------------------------------------------------------------------------
// The head check (issue 35): forked now, never for a scan that only trails

/// A staggered network (scan K trails by K − 1 updates, as `cantonscope demo` and
/// `serve-demo` serve it, live updates arriving): the head check compares every scan, and none
/// is forked; a diverging scan on the same network is.
#[test]
fn the_head_check_finds_no_fork_on_a_staggered_network_and_finds_a_diverging_scan() {
    let rt = runtime();
    rt.block_on(async {
        let handle = cantonscope::demo::start(
            DemoConfig {
                seed: SEED,
                rate: 5.0,
                stagger: true,
                end_now: true,
                ..DemoConfig::default()
            }
            .with_total_scans(5),
        )
        .await
        .expect("demo starts");
        let net = network(&handle, 50.0).await;
        for round in 0..3 {
            let now = now();
            let observations = health::observe_all(&net, now).await;
            let check = health::head_check(&net, &observations)
                .await
                .expect("heads known");
            for (i, verdict) in check.scans.iter().enumerate() {
                assert!(
                    matches!(
                        verdict,
                        cantonscope::model::network::fork::HeadVerdict::Agrees { compared } if *compared > 0
                    ),
                    "round {round}, scan {}: {verdict:?}",
                    i + 1
                );
            }
            tokio::time::sleep(Duration::from_millis(700)).await;
        }
        handle.shutdown().await;

        // The same network with scan 3 diverging from two minutes ago: forked at an update
        // after that, the others agree.
        let handle = cantonscope::demo::start(
            DemoConfig {
                seed: SEED,
                rate: 5.0,
                stagger: true,
                end_now: true,
                faults: DemoFaults {
                    diverging: Some((2, DemoTime::BeforeHead(Duration::from_secs(120)))),
                    ..DemoFaults::default()
                },
                ..DemoConfig::default()
            }
            .with_total_scans(5),
        )
        .await
        .expect("demo starts");
        let net = network(&handle, 50.0).await;
        let observations = health::observe_all(&net, now()).await;
        let check = health::head_check(&net, &observations)
            .await
            .expect("heads known");
        for (i, verdict) in check.scans.iter().enumerate() {
            use cantonscope::model::network::fork::HeadVerdict;
            if i == 2 {
                assert!(
                    matches!(verdict, HeadVerdict::Forked { path: Some(p), .. } if p.starts_with('$')),
                    "{verdict:?}"
                );
            } else {
                assert!(matches!(verdict, HeadVerdict::Agrees { .. }), "scan {}: {verdict:?}", i + 1);
            }
        }
        handle.shutdown().await;
    });
}

/// Issue 35: a sweep's differences are findings of the network: the diverging scan has a
/// diverged history found by the sweep, with the range's first update and a JSON path, that
/// `network health` and `check` read.
#[test]
fn cli_sweep_keeps_the_diverging_scan_as_a_finding() {
    let demo = cli_demo();
    let ledger = generate_ending_now(CLI_SEED);
    let from = ledger.updates()[demo.diverge_index.saturating_sub(5)].record_time;
    let from = cantonscope::model::format::format_time_micros(from);
    // A data directory of its own (the other tests' checks of the same update keep theirs).
    let dir = tempfile::tempdir().expect("tempdir");
    let output = bin(dir.path())
        .arg("--scan-url")
        .arg(&demo.handle.scan_url)
        .args(["network", "sweep", "--from", &from, "--quiet"])
        .output()
        .expect("runs");
    let report: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(output.status.code(), Some(5), "{report}");
    let output = bin(dir.path())
        .arg("--scan-url")
        .arg(&demo.handle.scan_url)
        .args(["--output", "json", "check", "--log"])
        .output()
        .expect("runs");
    let log: Value = serde_json::from_slice(&output.stdout).expect("json");
    let found = log["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["kind"] == "diverged_history" && f["found_by"] == "sweep")
        .unwrap_or_else(|| panic!("no sweep finding: {log}"));
    assert_eq!(found["name"], report["scans"][2]["name"], "{found}");
    assert!(
        found["path"].as_str().is_some_and(|p| p.starts_with('$')),
        "{found}"
    );
    assert_eq!(
        found["update_id"], report["ranges"][0]["first_update_id"],
        "{found}"
    );
}
