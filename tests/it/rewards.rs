//! CIP-0104 reward accounting over real HTTP against a demo of three scans (scan 2 with
//! `--diverging-rewards`, scan 3 the older scan): every state decodes as its state through the
//! typed calls, the first scan's reward tree verifies with the hashes recomputed by Splice's
//! CryptoHash, the diverging scan's does not, and `cantonscope scan reward-round` says so
//! (exit 0 / 1) in JSON and as a table.

use std::process::Output;
use std::sync::OnceLock;

use cantonscope::api::scan::{self, RewardBatch, RoundAnswer, rewards::settle};
use cantonscope::api::{ApiClient, ApiConfig};
use cantonscope::demo::{DemoConfig, DemoFaults, DemoHandle};
use cantonscope::model::reward_hash;
use serde_json::Value;

use crate::common::bin::{bin, runtime};

struct Demo {
    runtime: tokio::runtime::Runtime,
    handle: DemoHandle,
    dir: tempfile::TempDir,
}

fn demo() -> &'static Demo {
    static DEMO: OnceLock<Demo> = OnceLock::new();
    DEMO.get_or_init(|| {
        let runtime = runtime();
        let handle = runtime
            .block_on(cantonscope::demo::start(
                DemoConfig {
                    stagger: false,
                    faults: DemoFaults {
                        diverging_rewards: Some(1),
                        ..DemoFaults::default()
                    },
                    ..DemoConfig::default()
                }
                .with_total_scans(3),
            ))
            .expect("demo starts");
        Demo {
            runtime,
            handle,
            dir: tempfile::tempdir().expect("tempdir"),
        }
    })
}

fn client(scan: usize) -> ApiClient {
    ApiClient::new(ApiConfig {
        scan_url: Some(demo().handle.scan_urls[scan].clone()),
        ..ApiConfig::default()
    })
    .expect("client")
}

fn earliest() -> i64 {
    let d = demo();
    let e = d
        .runtime
        .block_on(async { settle(client(0).send(&scan::reward_earliest_round()).await) })
        .expect("answers");
    e.ok()
        .expect("the first scan has an earliest round")
        .earliest_round
}

/// A round answer's state, through the typed call and [`settle`].
fn totals_state(scan: usize, round: i64) -> String {
    let d = demo();
    let a = d
        .runtime
        .block_on(async {
            settle(
                client(scan)
                    .send(&scan::reward_activity_totals(round))
                    .await,
            )
        })
        .expect("a state, not an error");
    a.state().to_owned()
}

#[test]
fn every_state_decodes_as_its_state() {
    let d = demo();
    let e = earliest();
    // Settled rounds: Ok with totals that add up.
    let ok = d
        .runtime
        .block_on(async { settle(client(0).send(&scan::reward_activity_totals(e)).await) })
        .expect("ok");
    let t = ok.ok().expect("the earliest available round is settled");
    assert_eq!(t.round_number, e);
    assert!(t.total_app_activity_weight > 0, "{t:?}");
    assert!(t.active_parties_count >= t.rewarded_app_provider_parties_count);
    assert!(t.activity_records_count >= t.active_parties_count);
    // The two rounds before it: this scan cannot provide them; older rounds are unknown (404).
    assert_eq!(totals_state(0, e - 1), "cannot provide");
    assert_eq!(totals_state(0, e - 2), "cannot provide");
    assert_eq!(totals_state(0, e - 3), "not found (404)");
    // A round far ahead is not settled yet.
    assert_eq!(totals_state(0, e + 1_000_000), "undetermined");
    // The older scan: 501 for the rounds, 404 for the earliest round.
    assert_eq!(totals_state(2, e), "not implemented (501)");
    let older = d
        .runtime
        .block_on(async { settle(client(2).send(&scan::reward_earliest_round()).await) })
        .expect("a state");
    assert_eq!(older, RoundAnswer::NotFound);
    // The root hash has the same states.
    let root = d
        .runtime
        .block_on(async { settle(client(0).send(&scan::reward_root_hash(e - 1)).await) })
        .expect("a state");
    assert_eq!(root, RoundAnswer::CannotProvide);
    // An unknown batch is not found.
    let batch = d
        .runtime
        .block_on(async {
            settle(
                client(0)
                    .send(&scan::reward_batch(e, &"0".repeat(64)))
                    .await,
            )
        })
        .expect("a state");
    assert_eq!(batch, RoundAnswer::NotFound);
    // So is a batch of a round that is not settled.
    let batch = d
        .runtime
        .block_on(async {
            settle(
                client(0)
                    .send(&scan::reward_batch(e - 1, &"0".repeat(64)))
                    .await,
            )
        })
        .expect("a state");
    assert_eq!(batch, RoundAnswer::NotFound);
}

/// Walks scan `scan`'s tree of `round`: (batches, leaves' allowances, whether all verified).
fn walk(scan: usize, round: i64) -> (usize, usize, bool) {
    let d = demo();
    d.runtime.block_on(async {
        let c = client(scan);
        let root = settle(c.send(&scan::reward_root_hash(round)).await).expect("root");
        let root = root.ok().expect("a settled round").root_hash.clone();
        let (mut batches, mut allowances, mut verified) = (0, 0, true);
        let mut queue = vec![root];
        while let Some(hash) = queue.pop() {
            batches += 1;
            let b = settle(c.send(&scan::reward_batch(round, &hash)).await).expect("batch");
            let recomputed = match b.ok().expect("served") {
                RewardBatch::BatchOfBatches { child_hashes } => {
                    queue.extend(child_hashes.iter().cloned());
                    reward_hash::hash_batch_of_batches(child_hashes)
                }
                RewardBatch::BatchOfMintingAllowances { minting_allowances } => {
                    allowances += minting_allowances.len();
                    let hashes: Vec<String> = minting_allowances
                        .iter()
                        .map(|a| {
                            // Served as numeric(38,10); hashed as Daml shows it.
                            assert_eq!(a.amount.split_once('.').expect("a decimal").1.len(), 10);
                            reward_hash::hash_minting_allowance(&a.provider, &a.amount)
                                .expect("a decimal amount")
                        })
                        .collect();
                    reward_hash::hash_batch_of_minting_allowances(&hashes)
                }
                RewardBatch::Unknown { unknown_type } => panic!("unknown batch {unknown_type}"),
            };
            verified &= recomputed == hash;
        }
        (batches, allowances, verified)
    })
}

#[test]
fn the_tree_verifies_and_the_diverging_scan_does_not() {
    let e = earliest();
    let d = demo();
    // The first settled round with more than one leaf (more than two rewarded providers).
    let (round, rewarded) = (e..e + 20)
        .find_map(|r| {
            let a = d
                .runtime
                .block_on(async { settle(client(0).send(&scan::reward_activity_totals(r)).await) })
                .expect("a state");
            let n = a.ok()?.rewarded_app_provider_parties_count;
            (n > 2).then_some((r, n))
        })
        .expect("a settled round with three rewarded providers");
    let (batches, allowances, verified) = walk(0, round);
    assert!(verified, "scan 1's tree verifies");
    assert_eq!(i64::try_from(allowances).unwrap(), rewarded);
    assert!(batches >= 3, "a root over two leaves at least: {batches}");
    // Scan 2 serves the same root but a leaf that is not what its hash says.
    let (_, _, verified) = walk(1, round);
    assert!(!verified, "scan 2's tree differs");
}

fn cli(scan: usize, args: &[&str]) -> Output {
    let d = demo();
    bin(d.dir.path())
        .arg("--scan-url")
        .arg(&d.handle.scan_urls[scan])
        .args(["scan", "reward-round"])
        .args(args)
        .output()
        .expect("runs")
}

#[test]
fn reward_round_prints_states_and_verifies_the_tree() {
    let e = earliest().to_string();
    let out = cli(0, &[&e, "--output", "json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["verdict"], "verified", "{v}");
    assert_eq!(v["activity_totals"]["state"], "ok");
    let rows = v["batches"].as_array().expect("batches");
    assert!(rows.iter().all(|r| r["result"] == "verified"), "{v}");
    assert_eq!(rows[0]["hash"], v["root_hash"]["root_hash"]);
    // The diverging scan: the batch that differs, exit 1.
    let out = cli(1, &[&e, "--output", "json"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["verdict"], "differs", "{v}");
    assert!(
        v["batches"]
            .as_array()
            .expect("batches")
            .iter()
            .any(|r| r["result"] == "differs" && r["type"] == "BatchOfMintingAllowances"),
        "{v}"
    );
    // The older scan and an unsettled round are states, exit 0.
    let out = cli(2, &[&e, "--output", "json"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["root_hash"]["state"], "not implemented (501)", "{v}");
    let out = cli(0, &["--output", "table", "999999999"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("verdict") && text.contains("undetermined"),
        "{text}"
    );
    // The table of a differing tree names the batch that differs.
    let out = cli(1, &["--output", "table", &e]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("RESULT") && text.contains("differs"),
        "{text}"
    );
}

/// The app activity records of `round` as the first scan's events carry them (`POST
/// /v0/events`, every page): (total weight, records, distinct parties).
fn activity_from_events(round: i64) -> (i64, i64, usize) {
    let d = demo();
    let url = format!("{}/api/scan/v0/events", d.handle.scan_url);
    d.runtime.block_on(async {
        let (mut weight, mut records) = (0, 0);
        let mut parties = std::collections::BTreeSet::new();
        let mut body = serde_json::json!({"page_size": 1000});
        loop {
            let (status, page) = crate::common::http::post(&url, &body).await;
            assert!(status.is_success(), "{page}");
            let events = page["events"].as_array().expect("events").clone();
            let Some(last) = events.last() else { break };
            for e in &events {
                let a = &e["app_activity_records"];
                if a["round_number"].as_i64() != Some(round) {
                    continue;
                }
                for r in a["records"].as_array().expect("records") {
                    weight += r["weight"].as_i64().expect("weight");
                    records += 1;
                    parties.insert(r["party"].as_str().expect("party").to_owned());
                }
            }
            let at = if last["update"].is_object() {
                &last["update"]
            } else {
                &last["verdict"]
            };
            // A reassignment's migration id is its event's.
            let migration = at
                .get("migration_id")
                .unwrap_or(&at["event"]["migration_id"]);
            body = serde_json::json!({"page_size": 1000, "after": {
                "after_migration_id": migration,
                "after_record_time": at["record_time"],
            }});
        }
        (weight, records, parties.len())
    })
}

#[test]
fn activity_totals_are_the_sums_of_the_events_app_activity_records() {
    let e = earliest();
    let d = demo();
    let totals = d
        .runtime
        .block_on(async { settle(client(0).send(&scan::reward_activity_totals(e)).await) })
        .expect("ok");
    let t = totals.ok().expect("ok").clone();
    let (weight, records, parties) = activity_from_events(e);
    assert!(records > 0, "round {e} has records in the events");
    assert_eq!(t.total_app_activity_weight, weight);
    assert_eq!(t.activity_records_count, records);
    assert_eq!(t.active_parties_count, i64::try_from(parties).unwrap());
}
