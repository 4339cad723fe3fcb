//! The headless CLI, run as the real binary against an in-process demo network (and a tiny
//! misbehaving server for decode errors): JSON on stdout with the fields each endpoint returns,
//! exit codes 0 / 1 / 2 / 3 / 4, one-line errors on stderr, no token in any output, and
//! `serve-demo` printing its URLs and stopping cleanly on SIGTERM.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use cantonscope::demo::{DemoConfig, DemoHandle};
use serde_json::Value;

use crate::common::bin::bin;

/// One demo network for the whole test binary, on a runtime that lives as long as the process.
struct Demo {
    _runtime: tokio::runtime::Runtime,
    handle: DemoHandle,
    dir: tempfile::TempDir,
}

fn demo() -> &'static Demo {
    static DEMO: OnceLock<Demo> = OnceLock::new();
    DEMO.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let handle = runtime
            .block_on(cantonscope::demo::start(DemoConfig::default()))
            .expect("demo network starts");
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("token.jwt"), &handle.token).expect("token file");
        Demo {
            _runtime: runtime,
            handle,
            dir,
        }
    })
}

/// Run a command against the demo network (all three URLs and the token file set by flags).
fn run(args: &[&str]) -> Output {
    let demo = demo();
    bin(demo.dir.path())
        .arg("--scan-url")
        .arg(&demo.handle.scan_url)
        .arg("--validator-url")
        .arg(&demo.handle.validator_url)
        .arg("--ledger-url")
        .arg(&demo.handle.ledger_url)
        .arg("--token-file")
        .arg(demo.dir.path().join("token.jwt"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Assert success and parse stdout as JSON.
fn json_ok(args: &[&str]) -> Value {
    let output = run(args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{args:?} failed: stderr {}",
        stderr(&output)
    );
    assert!(
        output.stderr.is_empty(),
        "{args:?}: stderr {}",
        stderr(&output)
    );
    check_no_token(&output);
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("{args:?}: stdout is not JSON ({err}): {}", stdout(&output)))
}

/// Assert a failure with `code`, one line on stderr, nothing on stdout.
fn fails_with(args: &[&str], code: i32) -> String {
    let output = run(args);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(code), "{args:?}: stderr {err}");
    assert!(
        output.stdout.is_empty(),
        "{args:?}: stdout {}",
        stdout(&output)
    );
    check_no_token(&output);
    err
}

fn check_no_token(output: &Output) {
    let token = &demo().handle.token;
    assert!(!stdout(output).contains(token.as_str()), "token on stdout");
    assert!(!stderr(output).contains(token.as_str()), "token on stderr");
}

/// Facts about the demo network read through the CLI itself.
struct Facts {
    update_id: String,
    migration_id: i64,
    synchronizer_id: String,
    /// A signatory of a created event.
    party: String,
    /// Owners of amulets created early in the history.
    amulet_owners: Vec<String>,
    /// A validator with a license, and the SV that sponsored it.
    validator: String,
    sv: String,
    package_id: String,
}

fn created_events(page: &Value) -> impl Iterator<Item = &Value> {
    page["transactions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tx| tx["events_by_id"].as_object())
        .flat_map(|events| events.values())
        .filter(|event| event["event_type"] == "created_event")
}

fn facts() -> &'static Facts {
    static FACTS: OnceLock<Facts> = OnceLock::new();
    FACTS.get_or_init(|| {
        let page = json_ok(&["scan", "updates", "--page-size", "300"]);
        let tx = page["transactions"]
            .as_array()
            .and_then(|items| items.iter().find(|tx| tx.get("events_by_id").is_some()))
            .expect("a transaction in the first page");
        let event = created_events(&page)
            .find(|e| e["signatories"].as_array().is_some_and(|s| !s.is_empty()))
            .expect("a created event with signatories");
        let mut amulet_owners: Vec<String> = created_events(&page)
            .filter(|e| {
                e["template_id"]
                    .as_str()
                    .is_some_and(|t| t.ends_with(":Splice.Amulet:Amulet"))
            })
            .filter_map(|e| e["create_arguments"]["owner"].as_str().map(str::to_owned))
            .collect();
        amulet_owners.sort();
        amulet_owners.dedup();
        let license = created_events(&page)
            .find(|e| {
                e["template_id"]
                    .as_str()
                    .is_some_and(|t| t.ends_with(":Splice.ValidatorLicense:ValidatorLicense"))
            })
            .expect("a validator license");
        let template_id = event["template_id"].as_str().expect("template id");
        Facts {
            update_id: tx["update_id"].as_str().expect("update id").to_owned(),
            migration_id: tx["migration_id"].as_i64().expect("migration id"),
            synchronizer_id: tx["synchronizer_id"].as_str().expect("sync id").to_owned(),
            party: event["signatories"][0].as_str().expect("party").to_owned(),
            amulet_owners,
            validator: license["create_arguments"]["validator"]
                .as_str()
                .expect("validator")
                .to_owned(),
            sv: license["create_arguments"]["sponsor"]
                .as_str()
                .expect("sponsor")
                .to_owned(),
            package_id: template_id
                .split(':')
                .next()
                .expect("package id")
                .to_owned(),
        }
    })
}

#[test]
fn scan_updates_pages_and_cursor() {
    let page = json_ok(&["scan", "updates", "--page-size", "3"]);
    let items = page["transactions"].as_array().expect("transactions array");
    assert_eq!(items.len(), 3);
    for item in items {
        assert!(item["update_id"].is_string(), "{item}");
        assert!(item["record_time"].is_string(), "{item}");
    }
    let last = &items[2];
    let migration = last["migration_id"]
        .as_i64()
        .expect("migration")
        .to_string();
    let record_time = last["record_time"].as_str().expect("time");
    let next = json_ok(&[
        "scan",
        "updates",
        "--page-size",
        "2",
        "--after-migration-id",
        &migration,
        "--after-record-time",
        record_time,
        "--encoding",
        "protobuf_json",
    ]);
    let next_items = next["transactions"].as_array().expect("transactions");
    assert_eq!(next_items.len(), 2);
    assert!(
        next_items[0]["record_time"].as_str() > Some(record_time)
            || next_items[0]["migration_id"].as_i64() > last["migration_id"].as_i64()
    );
}

#[test]
fn scan_events_pages_the_event_history_each_event_as_scan_event_answers_it() {
    let page = json_ok(&["scan", "events", "--page-size", "3"]);
    let events = page["events"].as_array().expect("events array");
    assert_eq!(events.len(), 3, "{page}");
    // The same updates in the same order as the update history, each with its verdict part.
    let updates = json_ok(&["scan", "updates", "--page-size", "3"]);
    let updates = updates["transactions"].as_array().expect("transactions");
    for (event, update) in events.iter().zip(updates) {
        assert_eq!(event["update"]["update_id"], update["update_id"], "{event}");
        assert!(event.get("verdict").is_some(), "{event}");
        let id = event["update"]["update_id"].as_str().expect("an id");
        assert_eq!(
            *event,
            json_ok(&["scan", "event", id]),
            "a page's event is the one /v0/events/{{id}} serves"
        );
    }
    // The cursor pages on after the last event, as `scan updates` does.
    let last = &events[2]["update"];
    let migration = last["migration_id"]
        .as_i64()
        .expect("migration")
        .to_string();
    let record_time = last["record_time"].as_str().expect("time");
    let next = json_ok(&[
        "scan",
        "events",
        "--page-size",
        "2",
        "--after-migration-id",
        &migration,
        "--after-record-time",
        record_time,
    ]);
    let next = next["events"].as_array().expect("events");
    assert_eq!(next.len(), 2);
    assert_eq!(
        next[0]["update"]["update_id"],
        updates_after(&migration, record_time)
    );
    // The scan checks the request as Scan does: the message, exit 1, nothing on stdout.
    let err = fails_with(&["scan", "events", "--page-size", "0"], 1);
    assert!(
        err.contains("page_size must be between 1 and 1000"),
        "{err}"
    );
}

/// The update right after `(migration, record_time)` in the update history.
fn updates_after(migration: &str, record_time: &str) -> Value {
    let page = json_ok(&[
        "scan",
        "updates",
        "--page-size",
        "1",
        "--after-migration-id",
        migration,
        "--after-record-time",
        record_time,
    ]);
    page["transactions"][0]["update_id"].clone()
}

/// stdout is the server's body: the same JSON value as a direct request returns, every field.
#[test]
fn output_equals_the_server_body() {
    let demo = demo();
    let facts = facts();
    let url = format!(
        "{}/api/scan/v0/events/{}",
        demo.handle.scan_url, facts.update_id
    );
    let direct: Value = demo
        ._runtime
        .block_on(async { reqwest::get(&url).await?.json::<Value>().await })
        .expect("direct request");
    let via_cli = json_ok(&["scan", "event", &facts.update_id]);
    assert_eq!(via_cli, direct);

    // The run was logged to the log file, not the terminal, and the log holds no token.
    let log = std::fs::read_to_string(demo.dir.path().join("cantonscope.log")).expect("log");
    assert!(!log.is_empty());
    assert!(!log.contains(demo.handle.token.as_str()));
}

#[test]
fn scan_event_and_status_and_sequencers() {
    let facts = facts();
    let event = json_ok(&["scan", "event", &facts.update_id]);
    assert_eq!(event["update"]["update_id"], facts.update_id.as_str());
    assert!(event.get("verdict").is_some(), "{event}");

    let status = json_ok(&["scan", "status"]);
    assert!(status.is_object(), "{status}");
    assert!(
        ["success", "not_initialized", "failed"]
            .iter()
            .any(|key| status.get(*key).is_some()),
        "{status}"
    );

    let sequencers = json_ok(&["scan", "bft-sequencers"]);
    assert!(sequencers["bftSequencers"].is_array(), "{sequencers}");
}

/// `scan dso` prints the server's `/v0/dso` as sent: the scan's own SV (the one `/v0/scans`
/// lists under its URL), the DSO's SVs, the voting threshold.
#[test]
fn scan_dso_names_the_scans_sv() {
    let demo = demo();
    let direct: Value = demo
        ._runtime
        .block_on(async {
            reqwest::get(format!("{}/api/scan/v0/dso", demo.handle.scan_url))
                .await?
                .json::<Value>()
                .await
        })
        .expect("direct request");
    let dso = json_ok(&["scan", "dso"]);
    assert_eq!(dso, direct);
    let listed: Value = demo
        ._runtime
        .block_on(async {
            reqwest::get(format!("{}/api/scan/v0/scans", demo.handle.scan_url))
                .await?
                .json::<Value>()
                .await
        })
        .expect("the scan list");
    let svs = dso["dso_rules"]["contract"]["payload"]["svs"]
        .as_array()
        .expect("svs");
    assert_eq!(svs.len(), 4);
    assert_eq!(dso["voting_threshold"], 3);
    let own = svs
        .iter()
        .find(|sv| sv[0] == dso["sv_party_id"])
        .expect("the scan's SV is listed");
    assert_eq!(own[1]["name"], listed["scans"][0]["scans"][0]["svName"]);
    assert_eq!(own[1]["name"], "Aurora-Node-1");
    assert!(dso["latest_mining_round"]["contract"]["payload"]["round"]["number"].is_string());
}

#[test]
fn scan_holdings_faucets_weight_bootstrapping_participants() {
    let facts = facts();
    assert!(!facts.amulet_owners.is_empty());
    let migration = facts.migration_id.to_string();
    // at_or_before a time after the whole history: the newest snapshot of the migration.
    let mut args = vec![
        "scan",
        "holdings",
        "--migration-id",
        &migration,
        "--record-time",
        "2100-01-01T00:00:00Z",
        "--match",
        "at_or_before",
        "--party",
    ];
    args.extend(facts.amulet_owners.iter().map(String::as_str));
    let holdings = json_ok(&args);
    assert_eq!(holdings["migration_id"], facts.migration_id);
    assert_eq!(holdings["record_time"], "2100-01-01T00:00:00Z");
    let summaries = holdings["summaries"].as_array().expect("summaries");
    assert!(!summaries.is_empty(), "{holdings}");
    for summary in summaries {
        let owner = summary["party_id"].as_str().expect("party_id");
        assert!(facts.amulet_owners.iter().any(|o| o == owner), "{summary}");
        for key in [
            "total_unlocked_coin",
            "total_locked_coin",
            "total_coin_holdings",
        ] {
            assert!(summary[key].is_string(), "{key}: {summary}");
        }
    }

    let faucets = json_ok(&["scan", "validator-faucets", "--validator", &facts.validator]);
    let entries = faucets["validatorsReceivedFaucets"]
        .as_array()
        .expect("array");
    assert_eq!(entries.len(), 1, "{faucets}");
    assert_eq!(entries[0]["validator"], facts.validator.as_str());
    assert!(entries[0]["numRoundsCollected"].is_i64(), "{faucets}");

    let weight = json_ok(&[
        "scan",
        "reward-weight",
        "--sv",
        &facts.sv,
        "--effective-before",
        "2100-01-01T00:00:00Z",
    ]);
    assert!(weight.is_object(), "{weight}");
    if let Some(value) = weight.get("rewardWeight") {
        assert!(value.is_string(), "{weight}");
    }

    let prefix: String = facts.synchronizer_id.chars().take(12).collect();
    let boot = json_ok(&["scan", "bootstrapping", &prefix]);
    for key in [
        "domain_parameters",
        "sequencer_domain_state",
        "mediator_domain_state",
    ] {
        assert!(boot[key].is_string(), "{key}: {boot}");
    }

    let hosts = json_ok(&[
        "scan",
        "participant-id",
        "--domain",
        &facts.synchronizer_id,
        "--party",
        &facts.party,
    ]);
    let ids = hosts["participant_ids"]
        .as_array()
        .expect("participant ids");
    assert!(!ids.is_empty(), "{hosts}");
}

#[test]
fn validator_commands() {
    let coupons = json_ok(&["validator", "dev-fund-coupons"]);
    assert!(
        coupons["unclaimed-development-fund-coupons"].is_array(),
        "{coupons}"
    );
    let err = fails_with(
        &[
            "validator",
            "transfer-status",
            "--sender",
            "nobody::1220",
            "--nonce",
            "0",
        ],
        1,
    );
    assert!(err.contains("404"), "{err}");
    let rules = json_ok(&["validator", "amulet-rules"]);
    assert!(
        rules["amulet_rules"]["contract"]["contract_id"].is_string(),
        "{rules}"
    );
}

#[test]
fn ledger_end_parties_trees_package() {
    let facts = facts();
    let end = json_ok(&["ledger", "end"]);
    let offset = end["offset"].as_i64().expect("offset");
    assert!(offset > 0, "{end}");

    let parties = json_ok(&["ledger", "parties", &facts.party]);
    let details = parties["partyDetails"].as_array().expect("partyDetails");
    assert!(
        details.iter().any(|d| d["party"] == facts.party.as_str()),
        "{parties}"
    );

    let trees = json_ok(&[
        "ledger",
        "trees",
        "--begin-exclusive",
        "0",
        "--end-inclusive",
        "5",
        "--limit",
        "5",
    ]);
    let items = trees.as_array().expect("array of updates");
    assert!(!items.is_empty(), "{trees}");
    assert!(
        items.iter().all(|item| item.get("update").is_some()),
        "{trees}"
    );

    let out = demo().dir.path().join("package.bin");
    let summary = json_ok(&[
        "ledger",
        "package",
        &facts.package_id,
        "--out",
        path_str(&out),
    ]);
    let written = std::fs::read(&out).expect("package file written");
    assert!(!written.is_empty());
    assert_eq!(summary["bytes"], written.len());
    assert_eq!(summary["package_id"], facts.package_id.as_str());
    assert!(summary["canton_package_hash"].is_string(), "{summary}");
    assert_eq!(summary["out"], path_str(&out));
    // Again onto the same file: refused, the file kept; --force replaces it.
    let args = [
        "ledger",
        "package",
        &facts.package_id,
        "--out",
        path_str(&out),
    ];
    std::fs::write(&out, b"mine").expect("write");
    let err = fails_with(&args, 2);
    assert!(err.contains("exists: not replaced"), "{err}");
    assert_eq!(std::fs::read(&out).expect("kept"), b"mine");
    let mut forced = args.to_vec();
    forced.push("--force");
    json_ok(&forced);
    assert_eq!(std::fs::read(&out).expect("replaced"), written);
}

/// Execute a prepared transaction, then find it by its hash on the scan and its transfer command
/// through the validator proxy; executing it again is a server error.
#[test]
fn ledger_execute_then_hash_and_transfer_status() {
    // A party hosted by the participant: a witness of the first trees.
    let trees = json_ok(&[
        "ledger",
        "trees",
        "--begin-exclusive",
        "0",
        "--end-inclusive",
        "20",
    ]);
    let signer = find_key(&trees, "witnessParties")
        .and_then(|parties| parties[0].as_str())
        .expect("a witness party");

    let body = serde_json::json!({
        "preparedTransaction": "Y2xpLXRlc3QtcHJlcGFyZWQ=",
        "partySignatures": {"signatures": [{
            "party": signer,
            "signatures": [{
                "format": "SIGNATURE_FORMAT_RAW",
                "signature": "AQID",
                "signedBy": "1220aa",
                "signingAlgorithmSpec": "SIGNING_ALGORITHM_SPEC_ED25519"
            }]
        }]},
        "submissionId": "cli-test",
        "hashingSchemeVersion": "HASHING_SCHEME_VERSION_V2",
        "deduplicationPeriod": {"Empty": {}}
    });
    let path = demo().dir.path().join("execute.json");
    std::fs::write(&path, body.to_string()).expect("write body");
    let result = json_ok(&["ledger", "execute", "--body", path_str(&path)]);
    let tx = &result["transaction"];
    let update_id = tx["updateId"].as_str().expect("updateId");
    assert!(tx["offset"].is_i64(), "{result}");
    let hash = tx["externalTransactionHash"].as_str().expect("hash");

    let update = json_ok(&["scan", "update-by-hash", hash]);
    assert_eq!(update["update_id"], update_id, "{update}");
    assert_eq!(update["external_transaction_hash"], hash, "{update}");

    let created = tx["events"]
        .as_array()
        .and_then(|events| events.iter().find_map(|e| e.get("CreatedEvent")))
        .expect("a created event");
    let sender = created["createArgument"]["sender"]
        .as_str()
        .expect("sender");
    let nonce = created["createArgument"]["nonce"].as_str().expect("nonce");
    let status = json_ok(&[
        "validator",
        "transfer-status",
        "--sender",
        sender,
        "--nonce",
        nonce,
    ]);
    let commands = status["transfer_commands_by_contract_id"]
        .as_object()
        .expect("map");
    let contract_id = created["contractId"].as_str().expect("contract id");
    let command = commands.get(contract_id).expect("the new command");
    assert!(command["status"]["status"].is_string(), "{status}");

    // The same prepared transaction again: 409 from the server.
    let err = fails_with(&["ledger", "execute", "--body", path_str(&path)], 1);
    assert!(err.contains("409"), "{err}");
    // A body without the required fields never reaches the server.
    std::fs::write(&path, "{\"submissionId\": \"x\"}").expect("write body");
    let err = fails_with(&["ledger", "execute", "--body", path_str(&path)], 2);
    assert!(err.contains("preparedTransaction"), "{err}");
}

#[test]
fn ledger_delete_user() {
    let deleted = json_ok(&["ledger", "delete-user", "auditor", "--yes"]);
    assert_eq!(deleted, serde_json::json!({}));
    let err = fails_with(&["ledger", "delete-user", "auditor", "--yes"], 1);
    assert!(err.contains("404") && err.contains("auditor"), "{err}");
}

/// Read-only (the profile's `read_only = true` or `--read-only`) refuses the headless commands
/// that change the ledger before any request: one line naming read-only and where it was set,
/// exit 2, and the user is still there afterwards.
#[test]
fn read_only_refuses_delete_user_and_execute() {
    let demo = demo();
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("ro.toml");
    std::fs::write(
        &config,
        format!(
            "[profiles.ro]\nledger_url = \"{}\"\nread_only = true\n",
            demo.handle.ledger_url
        ),
    )
    .expect("write config");
    let token = demo.dir.path().join("token.jwt");
    let missing_body = dir.path().join("no-such-body.json");
    let refused = |args: &[&str], needles: &[&str]| {
        let output = bin(dir.path())
            .arg("--token-file")
            .arg(&token)
            .args(args)
            .output()
            .expect("runs");
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
        assert!(output.stdout.is_empty(), "{args:?}: {}", stdout(&output));
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        for needle in needles {
            assert!(err.contains(needle), "{args:?} lacks {needle:?}: {err}");
        }
        check_no_token(&output);
    };
    let config = path_str(&config);
    let from_profile = ["read-only", "read_only = true", "\"ro\"", config];
    refused(
        &[
            "--config",
            config,
            "--profile",
            "ro",
            "ledger",
            "delete-user",
            "wallet-ui",
            "--yes",
        ],
        &from_profile,
    );
    refused(
        &[
            "--config",
            config,
            "--profile",
            "ro",
            "ledger",
            "execute",
            "--body",
            path_str(&missing_body),
        ],
        &from_profile,
    );
    let ledger = &demo.handle.ledger_url;
    for command in [
        &["ledger", "delete-user", "wallet-ui", "--yes"][..],
        &["ledger", "execute", "--body", path_str(&missing_body)][..],
    ] {
        let args: Vec<&str> = ["--ledger-url", ledger.as_str(), "--read-only"]
            .into_iter()
            .chain(command.iter().copied())
            .collect();
        refused(&args, &["read-only", "--read-only"]);
    }
    // Nothing was deleted: without read-only the same command deletes the user.
    let deleted = json_ok(&["ledger", "delete-user", "wallet-ui", "--yes"]);
    assert_eq!(deleted, serde_json::json!({}));
}

/// The first value under `key` anywhere in `value` (depth first).
fn find_key<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    match value {
        Value::Object(map) => map
            .get(key)
            .or_else(|| map.values().find_map(|v| find_key(v, key))),
        Value::Array(items) => items.iter().find_map(|v| find_key(v, key)),
        _ => None,
    }
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("utf-8 temp path")
}

#[test]
fn server_errors_exit_1_with_one_line() {
    // A well-formed id no update has (a malformed one is a usage error, no scan asked).
    let absent = format!("1220{}", "deadbeef".repeat(8));
    let err = fails_with(&["scan", "event", &absent], 1);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("404"), "{err}");

    let err = fails_with(&["scan", "updates", "--page-size", "5000"], 1);
    assert!(err.contains("400"), "{err}");

    let err = fails_with(&["scan", "update-by-hash", "00ff"], 1);
    assert!(err.contains("404"), "{err}");
}

#[test]
fn ledger_without_a_token_is_refused() {
    let demo = demo();
    let output = bin(demo.dir.path())
        .args(["--ledger-url", &demo.handle.ledger_url, "ledger", "end"])
        .output()
        .expect("runs");
    let err = stderr(&output);
    assert_ne!(output.status.code(), Some(0), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn usage_errors_exit_2() {
    // delete-user without --yes
    let err = fails_with(&["ledger", "delete-user", "alice"], 2);
    assert!(err.contains("--yes"), "{err}");
    // an unknown flag
    fails_with(&["scan", "status", "--no-such-flag"], 2);
    // a bad value
    fails_with(
        &[
            "scan",
            "holdings",
            "--migration-id",
            "x",
            "--record-time",
            "t",
            "--party",
            "p",
        ],
        2,
    );
    // --after-migration-id without --after-record-time
    fails_with(&["scan", "updates", "--after-migration-id", "1"], 2);
    // no scan URL configured at all
    let demo = demo();
    let output = bin(demo.dir.path())
        .args(["scan", "status"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("scan URL"), "{}", stderr(&output));
    // an unknown profile
    let output = bin(demo.dir.path())
        .args(["--profile", "nope", "scan", "status"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("nope"), "{}", stderr(&output));
}

#[test]
fn config_file_errors_exit_2_naming_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    std::fs::write(
        &path,
        "[profiles.a]\nscan_url = \"http://127.0.0.1:1\"\nscan_ulr = \"x\"\n",
    )
    .expect("write");
    let output = bin(dir.path())
        .arg("--config")
        .arg(&path)
        .args(["scan", "status"])
        .output()
        .expect("runs");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("{}:3:", path.display())), "{err}");
    assert!(err.contains("scan_ulr"), "{err}");
}

#[test]
fn profile_from_config_file_is_used() {
    let demo = demo();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    std::fs::write(
        &path,
        format!(
            "default_profile = \"d\"\n[profiles.d]\nscan_url = \"{}\"\n",
            demo.handle.scan_url
        ),
    )
    .expect("write");
    let output = bin(dir.path())
        .env("CANTONSCOPE_CONFIG", &path)
        .args(["scan", "bft-sequencers"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let value: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert!(value["bftSequencers"].is_array());
}

#[test]
fn closed_port_exits_3() {
    // Bind then drop a listener: nothing listens on that port any more.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("free port")
        .port();
    let dir = tempfile::tempdir().expect("tempdir");
    let output = bin(dir.path())
        .args([
            "--scan-url",
            &format!("http://127.0.0.1:{port}"),
            "scan",
            "status",
        ])
        .output()
        .expect("runs");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(output.stdout.is_empty());
}

#[test]
fn wrong_shape_exits_4_naming_endpoint_and_path() {
    use axum::{Json, Router, routing::get};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let app = Router::new().route(
        "/api/scan/v0/sv-bft-sequencers",
        get(|| async {
            Json(serde_json::json!({"bftSequencers": [{"serialId": "not a number"}]}))
        }),
    );
    let server = std::thread::spawn(move || {
        runtime.block_on(async move {
            let _ = axum::serve(listener, app).await;
        });
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let output = bin(dir.path())
        .args([
            "--scan-url",
            &format!("http://{addr}"),
            "scan",
            "bft-sequencers",
        ])
        .output()
        .expect("runs");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(4), "{err}");
    assert!(err.contains("/v0/sv-bft-sequencers"), "{err}");
    assert!(err.contains("bftSequencers"), "{err}");
    assert!(output.stdout.is_empty());
    drop(server);
}

#[test]
fn serve_demo_prints_urls_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut child = bin(dir.path())
        .args([
            "serve-demo",
            "--listen",
            "127.0.0.1:0",
            "--seed",
            "7",
            "--scans",
            "2",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("one line");
    let info: Value = serde_json::from_str(&line).expect("a JSON line");
    for key in [
        "scan_url",
        "validator_url",
        "ledger_url",
        "token",
        "scan_urls",
    ] {
        assert!(info.get(key).is_some(), "{key} missing: {line}");
    }
    assert_eq!(
        info["scan_urls"].as_array().map(Vec::len),
        Some(2),
        "{line}"
    );

    // The served network answers the CLI.
    let scan_url = info["scan_url"].as_str().expect("scan url");
    let output = bin(dir.path())
        .args(["--scan-url", scan_url, "scan", "status"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));

    // A second one on the same address says which address is taken.
    let taken = scan_url.trim_start_matches("http://");
    let output = bin(dir.path())
        .args(["serve-demo", "--listen", taken])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains(&format!("cannot listen on {taken}")),
        "{}",
        stderr(&output)
    );

    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let exit = child.wait().expect("exits");
    assert!(exit.success(), "serve-demo exit: {exit:?}");
}

#[test]
fn help_and_version_exit_0() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = bin(dir.path()).arg("--help").output().expect("runs");
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).contains("serve-demo"));
    let output = bin(dir.path()).arg("--version").output().expect("runs");
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn explorer_without_nodes_says_how_to_configure_and_offers_the_demo() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = bin(dir.path()).output().expect("binary runs");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("no node configured"), "{err}");
    assert!(err.contains("--scan-url"), "{err}");
    assert!(err.contains("cantonscope demo"), "{err}");

    // Profiles, none selected: says which there are and how to pick one.
    let config = dir.path().join("two.toml");
    std::fs::write(
        &config,
        "[profiles.a]\nscan_url = \"http://127.0.0.1:9\"\n[profiles.b]\nscan_url = \"http://127.0.0.1:9\"\n",
    )
    .expect("config");
    let output = bin(dir.path())
        .arg("--config")
        .arg(&config)
        .output()
        .expect("binary runs");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains("profiles (a, b)") && err.contains("--profile NAME"),
        "{err}"
    );
}

#[test]
fn explorer_outside_a_terminal_points_to_the_headless_commands() {
    let demo = demo();
    let output = bin(demo.dir.path())
        .arg("--scan-url")
        .arg(&demo.handle.scan_url)
        .output()
        .expect("binary runs");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("needs a terminal"), "{err}");
    assert!(err.contains("cantonscope scan"), "{err}");
    assert!(output.stdout.is_empty(), "nothing drawn on a non-terminal");
}

// ---------------------------------------------------------------------------------------------
// scan updates --all, scan holdings defaults, non-JSON and allowlist answers

/// The demo ledger the shared demo network serves.
fn demo_updates() -> Vec<(String, i64, i64)> {
    cantonscope::demo::generate(DemoConfig::default().seed)
        .updates()
        .iter()
        .map(|u| (u.update_id.clone(), u.migration_id, u.record_time))
        .collect()
}

/// Runs `scan updates --all` with `extra` flags: the lines of stdout, parsed.
fn all_updates(extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["scan", "updates", "--all", "--request-rate", "1000"];
    args.extend_from_slice(extra);
    let output = run(&args);
    assert_eq!(output.status.code(), Some(0), "stderr {}", stderr(&output));
    // stderr is not a terminal here: no progress.
    assert!(output.stderr.is_empty(), "stderr {}", stderr(&output));
    check_no_token(&output);
    stdout(&output)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("line is not JSON ({e}): {l}")))
        .collect()
}

fn micros(t: &Value) -> i64 {
    chrono::DateTime::parse_from_rfc3339(t.as_str().expect("a time"))
        .expect("RFC 3339")
        .timestamp_micros()
}

#[test]
fn scan_updates_all_writes_every_update_once_as_json_lines() {
    let expected = demo_updates();
    let lines = all_updates(&["--page-size", "997"]);
    // Other tests may execute a transaction on the shared demo: updates after the generated
    // ones are fine; each is written once, in order.
    assert!(lines.len() >= expected.len() && lines.len() <= expected.len() + 5);
    let mut ids: Vec<&str> = lines
        .iter()
        .map(|l| l["update_id"].as_str().expect("id"))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), lines.len(), "each update once");
    for w in lines.windows(2) {
        assert!(micros(&w[0]["record_time"]) < micros(&w[1]["record_time"]));
    }
    for (line, (id, migration, time)) in lines.iter().zip(&expected) {
        assert_eq!(line["update_id"], id.as_str());
        // Reassignments carry their migration inside `event`.
        let m = &line["migration_id"];
        assert!(m.is_null() || m == migration, "{line}");
        assert_eq!(micros(&line["record_time"]), *time);
    }
}

#[test]
fn scan_updates_all_limit_is_the_number_of_updates_across_pages() {
    let expected = demo_updates();
    // Pages of 7: 20 updates come from 3 pages, the first 20 of the history.
    let lines = all_updates(&["--page-size", "7", "--limit", "20"]);
    let ids: Vec<&str> = lines
        .iter()
        .map(|l| l["update_id"].as_str().expect("id"))
        .collect();
    let want: Vec<&str> = expected[..20]
        .iter()
        .map(|(id, _, _)| id.as_str())
        .collect();
    assert_eq!(ids, want);
    // A limit of none is a usage error, and --limit needs --all (one page has --page-size).
    for args in [
        &["scan", "updates", "--all", "--limit", "0"][..],
        &["scan", "updates", "--limit", "5"],
    ] {
        let output = run(args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn scan_updates_all_from_until_keeps_the_range() {
    let expected = demo_updates();
    let (from, until) = (
        expected[expected.len() / 3].2,
        expected[expected.len() / 2].2,
    );
    let fmt = |us: i64| {
        chrono::DateTime::from_timestamp_micros(us)
            .expect("time")
            .to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
    };
    let lines = all_updates(&[
        "--page-size",
        "500",
        "--from",
        &fmt(from),
        "--until",
        &fmt(until),
    ]);
    let want: Vec<&str> = expected
        .iter()
        .filter(|(_, _, t)| (from..=until).contains(t))
        .map(|(id, _, _)| id.as_str())
        .collect();
    let got: Vec<&str> = lines
        .iter()
        .map(|l| l["update_id"].as_str().expect("id"))
        .collect();
    assert!(!want.is_empty());
    assert_eq!(
        got, want,
        "exactly the updates from --from to --until, in order"
    );
    // --from needs --all.
    fails_with(&["scan", "updates", "--from", "begin"], 2);
}

#[test]
fn scan_holdings_defaults_to_the_current_migration_and_now() {
    let facts = facts();
    let newest_migration = demo_updates().last().expect("updates").1;
    let mut args = vec!["scan", "holdings", "--party"];
    args.extend(facts.amulet_owners.iter().map(String::as_str));
    let holdings = json_ok(&args);
    assert_eq!(holdings["migration_id"], newest_migration, "{holdings}");
    assert!(
        !holdings["summaries"]
            .as_array()
            .expect("summaries")
            .is_empty(),
        "at_or_before now finds the newest snapshot: {holdings}"
    );
    let mut args = vec!["scan", "holdings", "--record-time", "now", "--party"];
    args.extend(facts.amulet_owners.iter().map(String::as_str));
    let again = json_ok(&args);
    assert_eq!(again["migration_id"], newest_migration);
    // A span back from now, as `:time` reads it (clap would take `-1m` for a flag otherwise).
    let mut args = vec![
        "scan",
        "holdings",
        "--record-time",
        "-1m",
        "--match",
        "at_or_before",
        "--party",
    ];
    args.extend(facts.amulet_owners.iter().map(String::as_str));
    let minute_ago = json_ok(&args);
    assert_eq!(minute_ago["migration_id"], newest_migration, "{minute_ago}");
    fails_with(
        &["scan", "holdings", "--record-time", "soon", "--party", "p"],
        2,
    );
}

/// A server answering every request with `status`, `content_type` and `body`.
fn canned_server(status: u16, content_type: &'static str, body: &'static str) -> String {
    use axum::Router;
    use axum::http::{StatusCode, header};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let code = StatusCode::from_u16(status).expect("status");
    let app = Router::new()
        .fallback(move || async move { (code, [(header::CONTENT_TYPE, content_type)], body) });
    std::thread::spawn(move || {
        runtime.block_on(async move {
            let _ = axum::serve(listener, app).await;
        });
    });
    format!("http://{addr}")
}

#[test]
fn an_html_answer_says_expected_json_and_a_scan_403_names_the_allowlist() {
    let html = "<html><body><h1>502 Bad Gateway</h1></body></html>";
    let dir = tempfile::tempdir().expect("tempdir");
    for (status, want, code) in [
        (502, "expected JSON, got text/html (HTTP 502)", 1),
        (200, "expected JSON, got text/html (HTTP 200)", 4),
    ] {
        let url = canned_server(status, "text/html; charset=utf-8", html);
        let output = bin(dir.path())
            .args(["--scan-url", &url, "scan", "bft-sequencers"])
            .output()
            .expect("runs");
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(code), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(want), "{err}");
        assert!(!err.contains("<html"), "{err}");
    }
    let url = canned_server(403, "text/plain", "Forbidden");
    let output = bin(dir.path())
        .args(["--scan-url", &url, "scan", "status"])
        .output()
        .expect("runs");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("this scan only answers allowlisted addresses (HTTP 403)"),
        "{err}"
    );
}

#[test]
fn ledger_trees_on_a_node_without_update_trees_reads_v2_updates() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let removed = runtime
        .block_on(cantonscope::demo::start(DemoConfig {
            faults: cantonscope::demo::DemoFaults {
                update_trees_removed: true,
                ..Default::default()
            },
            ..DemoConfig::default()
        }))
        .expect("demo starts");
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("token.jwt"), &removed.token).expect("token file");
    let args = [
        "ledger",
        "trees",
        "--begin-exclusive",
        "0",
        "--end-inclusive",
        "40",
    ];
    let output = bin(dir.path())
        .arg("--ledger-url")
        .arg(&removed.ledger_url)
        .arg("--token-file")
        .arg(dir.path().join("token.jwt"))
        .args(args)
        .output()
        .expect("runs");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(err.contains("POST /v2/updates"), "{err}");
    let fallback: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let direct = json_ok(&args);
    let shape = |v: &Value| -> Vec<(String, Vec<String>)> {
        v.as_array()
            .expect("items")
            .iter()
            .filter_map(|i| {
                let t = &i["update"]["TransactionTree"]["value"];
                let keys = t["eventsById"].as_object()?.keys().cloned().collect();
                Some((t["updateId"].as_str()?.to_owned(), keys))
            })
            .collect()
    };
    assert!(!shape(&direct).is_empty());
    assert_eq!(shape(&fallback), shape(&direct), "the same trees");
    runtime.block_on(removed.shutdown());
}

#[test]
fn scan_traffic_status_of_a_hosting_participant() {
    let facts = facts();
    let hosts = json_ok(&[
        "scan",
        "participant-id",
        "--domain",
        &facts.synchronizer_id,
        "--party",
        &facts.party,
    ]);
    let member = hosts["participant_ids"][0].as_str().expect("a participant");
    // Without --domain: the synchronizer the open mining rounds name; a bare id gets `PAR::`.
    let bare = member.strip_prefix("PAR::").unwrap_or(member);
    let traffic = json_ok(&["scan", "traffic-status", "--member", bare]);
    let actual = &traffic["traffic_status"]["actual"];
    let consumed = actual["total_consumed"].as_i64().expect("consumed");
    let limit = actual["total_limit"].as_i64().expect("limit");
    let purchased = traffic["traffic_status"]["target"]["total_purchased"]
        .as_i64()
        .expect("purchased");
    assert!(
        purchased >= limit && limit > 0 && consumed >= 0,
        "{traffic}"
    );
    // A member the synchronizer does not know: exit 1, the scan's 404 on stderr.
    let err = fails_with(
        &["scan", "traffic-status", "--member", "PAR::nobody::1220ff"],
        1,
    );
    assert!(err.contains("No traffic state found"), "{err}");
}

#[test]
fn bash_completion_from_the_binary_completes_commands_and_flags() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = bin(dir.path())
        .args(["completions", "bash"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0));
    let script = dir.path().join("cantonscope.bash");
    std::fs::write(&script, &output.stdout).expect("script");
    // What bash offers after `cantonscope gov<Tab>` and `cantonscope index sync --ver<Tab>`.
    let complete = |words: &str| -> String {
        let cmd = format!(
            "source {}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             COMP_LINE=\"{words}\"; COMP_POINT=${{#COMP_LINE}}; \
             _cantonscope cantonscope \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; echo \"${{COMPREPLY[@]}}\"",
            script.display()
        );
        let out = Command::new("bash")
            .args(["--noprofile", "--norc", "-c", &cmd])
            .output()
            .expect("bash runs");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    assert_eq!(complete("cantonscope gov"), "governance");
    assert!(complete("cantonscope index sync --ver").contains("--verify"));
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let output = bin(dir.path())
            .args(["completions", shell])
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(0), "{shell}");
        assert!(
            String::from_utf8_lossy(&output.stdout).contains("governance"),
            "{shell}"
        );
    }
    let output = bin(dir.path())
        .args(["completions", "tcsh"])
        .output()
        .expect("runs");
    assert_eq!(
        output.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}

#[test]
fn the_man_page_documents_every_command_and_renders() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = bin(dir.path()).arg("man").output().expect("runs");
    assert_eq!(output.status.code(), Some(0));
    let page = String::from_utf8_lossy(&output.stdout);
    for title in [
        ".TH cantonscope 1",
        ".TH cantonscope-index 1",
        ".TH cantonscope-governance 1",
        ".TH cantonscope-network 1",
    ] {
        assert!(page.contains(title), "{title}");
    }
    // It is roff that man renders (where groff is installed): the options read as text.
    let path = dir.path().join("cantonscope.1");
    std::fs::write(&path, &output.stdout).expect("page");
    if let Ok(out) = Command::new("groff")
        .args(["-man", "-Tascii", "-P-cbou"])
        .arg(&path)
        .output()
    {
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("--scan-url"), "{text}");
    }
}

#[test]
fn output_table_reads_the_json_as_columns_and_json_stays_the_default_when_piped() {
    // Piped (as here), the default is JSON; `--output json` says the same.
    let piped = run(&["governance", "requests"]);
    let json: Value = serde_json::from_slice(&piped.stdout).expect("JSON when piped");
    let explicit = run(&["--output", "json", "governance", "requests"]);
    assert_eq!(
        serde_json::from_slice::<Value>(&explicit.stdout).expect("JSON"),
        json
    );
    // The same requests as a table: a header, one row per request, the JSON's own words.
    let table = run(&["governance", "requests", "--output", "table"]);
    assert_eq!(table.status.code(), Some(0));
    let text = String::from_utf8_lossy(&table.stdout);
    let header = text
        .lines()
        .find(|l| l.starts_with("VOTE BEFORE"))
        .unwrap_or_else(|| panic!("no header: {text}"));
    assert!(
        header.contains("MY VOTE") && header.contains("ACTION"),
        "{header}"
    );
    let requests = json["requests"].as_array().expect("requests");
    assert!(!requests.is_empty());
    for request in requests {
        let deadline = request["vote_before"].as_str().expect("vote_before");
        let row = text
            .lines()
            .find(|l| l.starts_with(deadline))
            .unwrap_or_else(|| panic!("no row for {deadline}: {text}"));
        assert!(
            row.contains(request["my_vote"].as_str().unwrap_or("?")),
            "{row}"
        );
    }
    // A document without rows reads as `path  value`.
    let status = run(&["--output", "table", "scan", "status"]);
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(
        text.lines()
            .any(|l| l.starts_with("success.active") && l.ends_with("yes")),
        "{text}"
    );
    // A command without a table form prints its JSON either way.
    let dso = run(&["--output", "table", "scan", "dso"]);
    assert!(serde_json::from_slice::<Value>(&dso.stdout).is_ok());
    // Exit codes are the command's own: needs-vote still exits 5 with a table.
    let needs = run(&["--output", "table", "governance", "needs-vote"]);
    assert_eq!(needs.status.code(), Some(5));
    assert!(String::from_utf8_lossy(&needs.stdout).contains("needed"));
}

/// `scan status` as a table adds what `/status` does not say: the head of the scan's verdict
/// ingestion (`/v0/events/latest-record-time`), its newest update, and the verdict ingestion
/// lag between them in seconds. Its JSON stays the scan's `/status` as sent, without them.
#[test]
fn scan_status_as_a_table_adds_the_verdict_ingestion_lag_and_its_json_stays_the_scans() {
    use cantonscope::model::format::parse_time_micros;
    let rt = crate::common::bin::runtime();
    let scan = |path: &str| format!("{}/api/scan{path}", demo().handle.scan_url);
    let verdict_head = || -> i64 {
        let (_, v) = rt.block_on(crate::common::http::get(&scan(
            "/v0/events/latest-record-time",
        )));
        parse_time_micros(v["record_time"].as_str().expect("record_time")).expect("a time")
    };
    // Other tests may execute commands on the shared demo meanwhile (the ledger grows): the
    // verdict head is the scan's before or after the command.
    let before = verdict_head();
    let output = run(&["--output", "table", "scan", "status"]);
    let after = verdict_head();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let value = |key: &str| -> String {
        text.lines()
            .find_map(|l| l.strip_prefix(key).filter(|rest| rest.starts_with(' ')))
            .map_or_else(|| panic!("no {key} line: {text}"), |v| v.trim().to_owned())
    };
    assert!(
        text.lines()
            .any(|l| l.starts_with("success.active") && l.ends_with("yes")),
        "the scan's own fields first: {text}"
    );
    let verdicts = parse_time_micros(&value("latest_event_record_time")).expect("a time");
    assert!(verdicts == before || verdicts == after, "{text}");
    let head = parse_time_micros(&value("head_record_time")).expect("a time");
    assert!(head > verdicts, "{text}");
    let lag: f64 = value("verdict_ingestion_lag_s").parse().expect("seconds");
    let want = (head - verdicts) as f64 / 1e6;
    assert!((lag - want).abs() < 0.002, "{lag} s, want {want} s: {text}");
    // On the generated ledger the demo's verdicts trail its updates by two.
    let ledger = cantonscope::demo::generate(42);
    let updates = ledger.updates();
    if verdicts == updates[updates.len() - 3].record_time {
        assert_eq!(head, updates[updates.len() - 1].record_time, "{text}");
    }
    // The JSON is the scan's answer, as sent.
    let json = json_ok(&["--output", "json", "scan", "status"]);
    let (_, direct) = rt.block_on(crate::common::http::get(&scan("/status")));
    let keys =
        |v: &Value| -> Vec<String> { v.as_object().expect("an object").keys().cloned().collect() };
    assert_eq!(keys(&json), keys(&direct));
    for added in [
        "latest_event_record_time",
        "head_record_time",
        "verdict_ingestion_lag_s",
    ] {
        assert!(json.get(added).is_none(), "{json}");
    }
}

#[test]
fn a_party_given_by_name_is_completed_where_a_source_names_it_else_exit_2_with_a_hint() {
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    // A user's ANS name (`alice.unverified.cns` on the demo) names alice's party.
    let output = run(&["scan", "holdings", "--party", "alice"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let err = text(&output.stderr);
    assert!(
        err.contains("alice is alice::1220")
            && err.contains("(from the ANS entry alice.unverified.cns)"),
        "{err}"
    );
    let json: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let party = json["summaries"][0]["party_id"]
        .as_str()
        .expect("alice's row");
    assert!(party.starts_with("alice::1220"), "{party}");

    // A validator's name through its license.
    let url = format!(
        "{}/api/scan/v0/admin/validator/licenses?limit=1",
        demo().handle.scan_url
    );
    let licenses: Value = demo()
        ._runtime
        .block_on(async { reqwest::get(url).await?.json().await })
        .expect("the licenses");
    let validator = licenses["validator_licenses"][0]["payload"]["validator"]
        .as_str()
        .expect("a licensed validator");
    let name = validator.split("::").next().expect("name");
    let output = run(&["scan", "validator-faucets", "--validator", name]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("(from its validator license)"));
    let json: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(json["validatorsReceivedFaucets"][0]["validator"], validator);

    // The demo checks these requests as Scan does.
    let status = |path: &str| {
        let url = format!("{}/api/scan{path}", demo().handle.scan_url);
        demo()
            ._runtime
            .block_on(reqwest::get(url))
            .expect("answers")
            .status()
            .as_u16()
    };
    assert_eq!(status("/v0/admin/validator/licenses?limit=0"), 400);
    assert_eq!(status("/v0/admin/validator/licenses?after=-1"), 400);
    assert_eq!(
        status("/v0/ans-entries?name_prefix=al"),
        400,
        "page_size is required"
    );
    assert_eq!(status("/v0/ans-entries/by-name/alice.unverified.cns"), 200);
    assert_eq!(status("/v0/ans-entries/by-name/nobody.cns"), 404);

    // What no source names: exit 2 with the hint, and the scan is not asked for an empty list.
    for args in [
        &["scan", "holdings", "--party", "judy-nobody"][..],
        &["scan", "validator-faucets", "--validator", "alice"][..],
    ] {
        let output = run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        let err = text(&output.stderr);
        assert!(
            err.contains("is not a party id (NAME::FINGERPRINT"),
            "{err}"
        );
    }
}
