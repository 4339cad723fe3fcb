//! The demo network over real HTTP: every endpoint answers in the real wire shapes, and every
//! validation rule gives the status code and error body the real servers give.

use cantonscope::demo::{DemoConfig, DemoHandle, generate, make_token, start};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::http::{dec, demo, get, post, urlencode};

async fn demo_with(scans: usize) -> DemoHandle {
    start(DemoConfig {
        scans,
        ..DemoConfig::default()
    })
    .await
    .expect("demo starts")
}

fn client() -> reqwest::Client {
    reqwest::Client::new()
}

fn scan(h: &DemoHandle, path: &str) -> String {
    format!("{}/api/scan{path}", h.scan_url)
}

fn assert_scan_error(status: StatusCode, body: &Value, want: StatusCode) {
    assert_eq!(status, want, "body: {body}");
    assert!(
        body.get("error")
            .and_then(Value::as_str)
            .is_some_and(|e| !e.is_empty()),
        "expected {{\"error\": ...}}, got {body}"
    );
}

// -------------------------------------------------------------------------------------------
// Scan: update history

#[tokio::test]
async fn updates_rejects_bad_page_sizes_and_bodies() {
    let h = demo().await;
    let url = scan(&h, "/v2/updates");
    for body in [
        json!({}),
        json!({"page_size": 0}),
        json!({"page_size": 1001}),
        json!({"page_size": -5}),
        json!({"page_size": "ten"}),
        json!({"page_size": 10, "daml_value_encoding": "xml"}),
        json!({"page_size": 10, "after": {"after_migration_id": 0}}),
        json!({"page_size": 10, "after": {"after_migration_id": 0, "after_record_time": "yesterday"}}),
    ] {
        let (s, b) = post(&url, &body).await;
        assert_scan_error(s, &b, StatusCode::BAD_REQUEST);
    }
    let r = client()
        .post(&url)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let b: Value = r.json().await.unwrap();
    assert!(b["error"].is_string());

    let (s, b) = post(&url, &json!({"page_size": 1000})).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(b["transactions"].as_array().unwrap().len(), 1000);
    // Either name of the encoding selector is accepted.
    for key in ["daml_value_encoding", "contract_value_encoding"] {
        let (s, b) = post(&url, &json!({"page_size": 3, key: "protobuf_json"})).await;
        assert_eq!(s, StatusCode::OK);
        let tx = &b["transactions"][0];
        let first = tx["events_by_id"]
            .as_object()
            .unwrap()
            .values()
            .next()
            .unwrap();
        let args = first
            .get("create_arguments")
            .or_else(|| first.get("choice_argument"))
            .unwrap();
        assert!(args.to_string().contains("\"fields\""), "{key}: {args}");
    }
    h.shutdown().await;
}

#[tokio::test]
async fn updates_follow_the_cursor_in_ascending_order() {
    let h = demo().await;
    let url = scan(&h, "/v2/updates");
    let (_, first) = post(&url, &json!({"page_size": 50})).await;
    let first = first["transactions"].as_array().unwrap().clone();
    assert_eq!(first.len(), 50);
    let tx = &first[0];
    for key in [
        "update_id",
        "migration_id",
        "workflow_id",
        "record_time",
        "synchronizer_id",
        "effective_at",
        "root_event_ids",
        "events_by_id",
    ] {
        assert!(tx.get(key).is_some(), "missing {key} in {tx}");
    }
    let id = tx["update_id"].as_str().unwrap();
    assert!(id.starts_with("1220") && id.len() == 68);
    // The next page starts right after the last item of the previous one.
    let last = &first[49];
    let after = json!({"after_migration_id": last["migration_id"], "after_record_time": last["record_time"]});
    let (_, second) = post(&url, &json!({"page_size": 50, "after": after})).await;
    let (_, both) = post(&url, &json!({"page_size": 100})).await;
    let both = both["transactions"].as_array().unwrap();
    assert_eq!(
        &both[50..],
        second["transactions"].as_array().unwrap().as_slice()
    );

    // A far-future time in migration 0 still returns migration 1 from its start.
    let far = "2999-01-01T00:00:00Z";
    let (_, m0) = post(
        &url,
        &json!({"page_size": 5, "after": {"after_migration_id": 0, "after_record_time": far}}),
    )
    .await;
    let m0 = m0["transactions"].as_array().unwrap();
    assert_eq!(m0.len(), 5);
    for item in m0 {
        let mig = item
            .get("migration_id")
            .or_else(|| item["event"].get("migration_id"))
            .unwrap();
        assert_eq!(mig, 1);
    }
    let (_, m1) = post(
        &url,
        &json!({"page_size": 5, "after": {"after_migration_id": 1, "after_record_time": far}}),
    )
    .await;
    assert!(m1["transactions"].as_array().unwrap().is_empty());
    h.shutdown().await;
}

#[tokio::test]
async fn recent_history_ends_near_now_and_mixes_reassignments() {
    let h = demo().await;
    let url = scan(&h, "/v2/updates");
    let since = chrono::Utc::now() - chrono::Duration::minutes(30);
    let (s, b) = post(&url, &json!({"page_size": 1000, "after": {"after_migration_id": 1, "after_record_time": since.to_rfc3339()}})).await;
    assert_eq!(s, StatusCode::OK);
    let items = b["transactions"].as_array().unwrap();
    assert!(items.len() > 20, "only {} recent updates", items.len());
    let newest = items.last().unwrap()["record_time"].as_str().unwrap();
    let newest = chrono::DateTime::parse_from_rfc3339(newest).unwrap();
    // The history ends now, or a second before midnight when generated in a day's first quarter
    // hour (`history_end`); the live loop may have added after it.
    let end = cantonscope::demo::history_end(chrono::Utc::now().timestamp_micros());
    assert!(
        end - newest.timestamp_micros() < 10 * 60 * 1_000_000,
        "newest {newest}, history end {end}"
    );

    // Somewhere in history there are reassignments, with `event` and `offset` and no tag.
    let mut after = json!(null);
    let mut found = None;
    for _ in 0..20 {
        let mut body = json!({"page_size": 1000});
        if !after.is_null() {
            body["after"] = after.clone();
        }
        let (_, b) = post(&url, &body).await;
        let items = b["transactions"].as_array().unwrap().clone();
        if let Some(r) = items.iter().find(|i| i.get("event").is_some()) {
            found = Some(r.clone());
            break;
        }
        let last = items.last().unwrap();
        after = json!({"after_migration_id": last["migration_id"], "after_record_time": last["record_time"]});
    }
    let r = found.expect("a reassignment in history");
    assert!(r["offset"].is_string());
    assert!(r["event"]["unassign_id"].is_string());
    assert!(r["event"]["reassignment_counter"].is_i64());
    assert!(r["event"]["source_synchronizer"].is_string());
    h.shutdown().await;
}

// -------------------------------------------------------------------------------------------
// Scan: single events and hashes

#[tokio::test]
async fn events_by_id_carry_verdicts_and_unknown_ids_are_404() {
    let h = demo().await;
    let ledger = generate(42);
    let ups = ledger.updates();
    let recent_tx = ups
        .iter()
        .rev()
        .find(|u| {
            u.tx()
                .is_some_and(|t| t.app_provider.is_some() && !t.rejected)
        })
        .unwrap();
    let (s, b) = get(&scan(&h, &format!("/v0/events/{}", recent_tx.update_id))).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["update"]["update_id"], recent_tx.update_id.as_str());
    let v = &b["verdict"];
    for key in [
        "update_id",
        "migration_id",
        "domain_id",
        "record_time",
        "finalization_time",
        "submitting_parties",
        "submitting_participant_uid",
        "verdict_result",
        "mediator_group",
        "transaction_views",
    ] {
        assert!(v.get(key).is_some(), "verdict lacks {key}: {v}");
    }
    assert_eq!(v["verdict_result"], "VERDICT_RESULT_ACCEPTED");
    let views = v["transaction_views"]["views"].as_array().unwrap();
    assert!(!views.is_empty());
    for view in views {
        assert!(view["informees"].is_array());
        assert!(view["confirming_parties"][0]["threshold"].is_i64());
        assert!(view["sub_views"].is_array());
        assert_eq!(view["view_hash"].as_str().unwrap().len(), 64);
    }
    let t = &b["traffic_summary"];
    let sum: i64 = t["envelope_traffic_summaries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["traffic_cost"].as_i64().unwrap())
        .sum();
    assert_eq!(t["total_traffic_cost"].as_i64().unwrap(), sum);
    let a = &b["app_activity_records"];
    assert!(a["round_number"].is_i64());
    assert!(a["records"][0]["weight"].is_i64());
    assert!(a["records"][0]["party"].is_string());

    // A rejected request commits no transaction: no update has a rejected verdict, and the
    // rejection is an event of its own, its verdict with no update, not in /v2/updates.
    assert!(!ups.iter().any(|u| u.tx().is_some_and(|t| t.rejected)));
    let rejected = ledger
        .verdicts_only()
        .iter()
        .find(|u| u.tx().is_some_and(|t| t.rejected))
        .expect("a rejected request");
    let (s, b) = get(&scan(&h, &format!("/v0/events/{}", rejected.update_id))).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert!(b["update"].is_null(), "{b}");
    assert_eq!(b["verdict"]["verdict_result"], "VERDICT_RESULT_REJECTED");
    assert_eq!(b["verdict"]["update_id"], rejected.update_id.as_str());
    let (s, _) = get(&scan(&h, &format!("/v2/updates/{}", rejected.update_id))).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    // A wholly private transaction: accepted, its verdict (and traffic) only.
    let private = ledger
        .verdicts_only()
        .iter()
        .rev()
        .find(|u| u.tx().is_some_and(|t| !t.rejected))
        .expect("a wholly private transaction");
    let (_, b) = get(&scan(&h, &format!("/v0/events/{}", private.update_id))).await;
    assert!(b["update"].is_null(), "{b}");
    assert_eq!(b["verdict"]["verdict_result"], "VERDICT_RESULT_ACCEPTED");
    assert!(b["traffic_summary"]["total_traffic_cost"].is_i64(), "{b}");

    let unknown = format!("1220{}", "ab".repeat(32));
    let (s, b) = get(&scan(&h, &format!("/v0/events/{unknown}"))).await;
    assert_scan_error(s, &b, StatusCode::NOT_FOUND);
    let (s, b) = get(&scan(
        &h,
        &format!(
            "/v0/events/{}?daml_value_encoding=yaml",
            recent_tx.update_id
        ),
    ))
    .await;
    assert_scan_error(s, &b, StatusCode::BAD_REQUEST);
    h.shutdown().await;
}

#[tokio::test]
async fn update_by_hash_depends_on_where_each_scan_started_indexing() {
    let h = demo_with(4).await;
    assert_eq!(h.scan_urls.len(), 4);
    let ledger = generate(42);
    let hashes = ledger.external_hashes();
    let n = ledger.len();
    // Scan 1 indexes from 50% of the history, scan 2 from 20%.
    let (early, _) = *hashes
        .iter()
        .find(|(_, i)| *i > n * 25 / 100 && *i < n * 45 / 100)
        .expect("an early hash");
    let (late, late_idx) = *hashes.iter().rev().nth(5).expect("a late hash");
    let (s, b) = get(&format!(
        "{}/api/scan/v2/updates/hash/{early}",
        h.scan_urls[0]
    ))
    .await;
    assert_scan_error(s, &b, StatusCode::NOT_FOUND);
    let (s, b) = get(&format!(
        "{}/api/scan/v2/updates/hash/{early}",
        h.scan_urls[1]
    ))
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["external_transaction_hash"], early);
    let (s, b) = get(&format!(
        "{}/api/scan/v2/updates/hash/{late}",
        h.scan_urls[0]
    ))
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        b["update_id"],
        ledger.updates()[late_idx].update_id.as_str()
    );
    let (s, b) = get(&scan(&h, "/v2/updates/hash/not-a-hash")).await;
    assert_scan_error(s, &b, StatusCode::BAD_REQUEST);
    let (s, b) = get(&scan(&h, &format!("/v2/updates/hash/{}", "0".repeat(64)))).await;
    assert_scan_error(s, &b, StatusCode::NOT_FOUND);
    h.shutdown().await;
}

#[tokio::test]
async fn extra_scans_live_on_prefixes_and_lag_the_head() {
    let h = demo_with(3).await;
    assert_eq!(h.scan_urls[0], h.scan_url);
    assert!(h.scan_urls[2].ends_with("/sv3"));
    // Each extra scan lags one more update behind the head.
    let ledger = generate(42);
    let n = ledger.len();
    let from = &ledger.updates()[n - 20];
    let after = json!({"after_migration_id": from.migration_id, "after_record_time": from.record_time_string()});
    for (k, base) in h.scan_urls.iter().enumerate() {
        let (s, b) = get(&format!("{base}/api/scan/status")).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(b["success"]["active"], true);
        let (s, b) = post(
            &format!("{base}/api/scan/v2/updates"),
            &json!({"page_size": 100, "after": after}),
        )
        .await;
        assert_eq!(s, StatusCode::OK);
        let items = b["transactions"].as_array().unwrap();
        assert_eq!(items.len(), 19 - k);
        let newest = items.last().unwrap()["update_id"].as_str().unwrap();
        assert_eq!(newest, ledger.updates()[n - 1 - k].update_id);
    }
    let (s, _) = get(&format!("{}/sv4/api/scan/status", h.scan_url)).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    h.shutdown().await;
}

// -------------------------------------------------------------------------------------------
// Scan: ACS snapshots and holdings

#[tokio::test]
async fn holdings_summary_validates_like_the_real_scan() {
    let h = demo().await;
    let ledger = generate(42);
    let alice = ledger.user_parties()[0].to_string();
    let url = scan(&h, "/v1/holdings/summary");
    let (s, b) = get(&format!(
        "{}?before={}&migration_id=1",
        scan(&h, "/v0/state/acs/snapshot-timestamp"),
        urlencode(&chrono::Utc::now().to_rfc3339())
    ))
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let snap = b["record_time"].as_str().unwrap().to_string();
    let t = chrono::DateTime::parse_from_rfc3339(&snap).unwrap();
    assert_eq!(t.timestamp() % 600, 0);

    let (s, b) = post(
        &url,
        &json!({"migration_id": 1, "record_time": snap, "owner_party_ids": []}),
    )
    .await;
    assert_scan_error(s, &b, StatusCode::BAD_REQUEST);
    let (s, b) = post(
        &url,
        &json!({"record_time": snap, "owner_party_ids": [alice]}),
    )
    .await;
    assert_scan_error(s, &b, StatusCode::BAD_REQUEST);
    let (s, b) = post(
        &url,
        &json!({"migration_id": 1, "record_time": "soon", "owner_party_ids": [alice]}),
    )
    .await;
    assert_scan_error(s, &b, StatusCode::BAD_REQUEST);
    let (s, b) = post(&url, &json!({"migration_id": 1, "record_time": snap, "record_time_match": "nearest", "owner_party_ids": [alice]})).await;
    assert_scan_error(s, &b, StatusCode::BAD_REQUEST);

    // `exact` (the default) only accepts snapshot times.
    let off = (t + chrono::Duration::seconds(7)).to_rfc3339();
    let (s, b) = post(
        &url,
        &json!({"migration_id": 1, "record_time": off, "owner_party_ids": [alice]}),
    )
    .await;
    assert_scan_error(s, &b, StatusCode::NOT_FOUND);
    let (s, b) = post(
        &url,
        &json!({"migration_id": 7, "record_time": snap, "owner_party_ids": [alice]}),
    )
    .await;
    assert_scan_error(s, &b, StatusCode::NOT_FOUND);

    let (s, exact) = post(
        &url,
        &json!({"migration_id": 1, "record_time": snap, "owner_party_ids": [alice]}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{exact}");
    assert_eq!(exact["record_time"], snap.as_str());
    assert_eq!(exact["migration_id"], 1);
    let row = &exact["summaries"][0];
    assert_eq!(row["party_id"], alice.as_str());
    let unlocked = dec(row["total_unlocked_coin"].as_str().unwrap());
    let locked = dec(row["total_locked_coin"].as_str().unwrap());
    assert_eq!(
        dec(row["total_coin_holdings"].as_str().unwrap()),
        unlocked + locked
    );
    assert!(
        row["total_unlocked_coin"]
            .as_str()
            .unwrap()
            .ends_with(|c: char| c.is_ascii_digit())
    );

    // `at_or_before` uses the latest snapshot at or before the time and echoes the request.
    let (s, b) = post(&url, &json!({"migration_id": 1, "record_time": off, "record_time_match": "at_or_before", "owner_party_ids": [alice, "nobody::1220"]})).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["record_time"], off.as_str());
    assert_eq!(b["summaries"], exact["summaries"]);
    h.shutdown().await;
}

#[tokio::test]
async fn snapshot_timestamp_needs_both_parameters() {
    let h = demo().await;
    let base = scan(&h, "/v0/state/acs/snapshot-timestamp");
    let (s, b) = get(&format!("{base}?migration_id=0")).await;
    assert_scan_error(s, &b, StatusCode::BAD_REQUEST);
    let (s, b) = get(&format!("{base}?before=2020-01-01T00:00:00Z")).await;
    assert_scan_error(s, &b, StatusCode::BAD_REQUEST);
    let (s, b) = get(&format!(
        "{base}?before=2020-01-01T00:00:00Z&migration_id=0"
    ))
    .await;
    assert_scan_error(s, &b, StatusCode::NOT_FOUND);
    let (s, b) = get(&format!(
        "{base}?before=2999-01-01T00:00:00Z&migration_id=0"
    ))
    .await;
    assert_eq!(s, StatusCode::OK);
    let m0_last = b["record_time"].as_str().unwrap().to_string();
    let (_, b) = get(&format!(
        "{base}?before=2999-01-01T00:00:00Z&migration_id=1"
    ))
    .await;
    assert!(b["record_time"].as_str().unwrap() > m0_last.as_str());
    h.shutdown().await;
}

// -------------------------------------------------------------------------------------------
// Scan: validators, SVs, synchronizers, status

#[tokio::test]
async fn validator_faucets_ignore_unknown_ids_and_need_one() {
    let h = demo().await;
    let ledger = generate(42);
    let vals = ledger.validator_parties();
    let (s, b) = get(&scan(&h, "/v0/validators/validator-faucets")).await;
    assert_scan_error(s, &b, StatusCode::BAD_REQUEST);
    let url = format!(
        "{}?validator_ids={}&validator_ids={}&validator_ids={}",
        scan(&h, "/v0/validators/validator-faucets"),
        urlencode(vals[0]),
        urlencode(vals[7]),
        urlencode("stranger::1220abcd"),
    );
    let (s, b) = get(&url).await;
    assert_eq!(s, StatusCode::OK);
    let list = b["validatorsReceivedFaucets"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    for v in list {
        let c = v["numRoundsCollected"].as_i64().unwrap();
        let m = v["numRoundsMissed"].as_i64().unwrap();
        let f = v["firstCollectedInRound"].as_i64().unwrap();
        let l = v["lastCollectedInRound"].as_i64().unwrap();
        assert_eq!(c + m, l - f + 1);
    }
    // The flaky validator (index 7) misses rounds.
    let flaky = list.iter().find(|v| v["validator"] == vals[7]).unwrap();
    assert!(flaky["numRoundsMissed"].as_i64().unwrap() > 0);
    h.shutdown().await;
}

#[tokio::test]
async fn sv_endpoints_answer_in_their_shapes() {
    let h = demo().await;
    let ledger = generate(42);
    let (s, b) = get(&scan(&h, "/v0/sv-bft-sequencers")).await;
    assert_eq!(s, StatusCode::OK);
    let seq = &b["bftSequencers"][0];
    assert!(seq["serialId"].is_i64() && seq["id"].is_string() && seq["p2pUrl"].is_string());

    let url = scan(&h, "/v0/admin/sv/previous-sv-reward-weight");
    let (s, b) = post(&url, &json!({})).await;
    assert_scan_error(s, &b, StatusCode::BAD_REQUEST);
    let (s, b) = post(&url, &json!({"svParty": "nobody::1220ab"})).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(b, json!({}));
    let change = ledger
        .weight_changes()
        .last()
        .expect("weight changes in history")
        .clone();
    let sv = ledger.party_id(change.sv).to_string();
    let (s, b) = post(&url, &json!({"svParty": sv})).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(b["rewardWeight"], change.weight.as_str());
    let (s, b) = post(
        &url,
        &json!({"svParty": sv, "effectiveBefore": "2001-01-01T00:00:00Z"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert!(b.get("rewardWeight").is_none());
    let (s, b) = post(&url, &json!({"svParty": sv, "effectiveBefore": "later"})).await;
    assert_scan_error(s, &b, StatusCode::BAD_REQUEST);
    h.shutdown().await;
}

#[tokio::test]
async fn bootstrapping_participants_status_and_version() {
    let h = demo().await;
    let ledger = generate(42);
    let [global, app] = ledger.synchronizer_ids();
    let (s, b) = get(&scan(
        &h,
        "/v0/synchronizer-bootstrapping-transactions/global-domain",
    ))
    .await;
    assert_eq!(s, StatusCode::OK);
    for k in [
        "domain_parameters",
        "sequencer_domain_state",
        "mediator_domain_state",
    ] {
        use base64::Engine as _;
        let v = b[k].as_str().unwrap();
        assert!(base64::engine::general_purpose::STANDARD.decode(v).is_ok());
    }
    let (s, b) = get(&scan(
        &h,
        "/v0/synchronizer-bootstrapping-transactions/no-such-domain",
    ))
    .await;
    assert_scan_error(s, &b, StatusCode::NOT_FOUND);

    let users = ledger.user_parties();
    let mut multi = 0;
    for u in &users {
        let (s, b) = get(&scan(
            &h,
            &format!("/v1/domains/{global}/parties/{u}/participant-id"),
        ))
        .await;
        assert_eq!(s, StatusCode::OK);
        let ids = b["participant_ids"].as_array().unwrap();
        assert!(ids.iter().all(|i| i.as_str().unwrap().starts_with("PAR::")));
        multi += usize::from(ids.len() > 1);
    }
    assert!(multi > 0, "some party is hosted on several participants");
    let (s, _) = get(&scan(
        &h,
        &format!("/v1/domains/{app}/parties/{}/participant-id", users[0]),
    ))
    .await;
    assert_eq!(s, StatusCode::OK);
    let (s, b) = get(&scan(
        &h,
        &format!("/v1/domains/{global}/parties/nobody::1220ab/participant-id"),
    ))
    .await;
    assert_scan_error(s, &b, StatusCode::NOT_FOUND);
    let (s, b) = get(&scan(
        &h,
        &format!(
            "/v1/domains/other::1220/parties/{}/participant-id",
            users[0]
        ),
    ))
    .await;
    assert_scan_error(s, &b, StatusCode::NOT_FOUND);

    let (s, b) = get(&scan(&h, "/status")).await;
    assert_eq!(s, StatusCode::OK);
    let st = &b["success"];
    assert!(st["id"].is_string() && st["uptime"].as_str().unwrap().starts_with("PT"));
    assert!(st["ports"].is_object() && st["active"].is_boolean());
    let (s, b) = get(&scan(&h, "/version")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(b["version"], "0.6.10");
    assert!(b["commit_ts"].is_string());
    h.shutdown().await;
}

// -------------------------------------------------------------------------------------------
// Validator scan-proxy

fn proxy(h: &DemoHandle, path: &str) -> String {
    format!("{}/api/validator/v0/scan-proxy{path}", h.validator_url)
}

#[tokio::test]
async fn scan_proxy_contracts_and_transfer_command_status() {
    let h = demo().await;
    let (s, b) = get(&proxy(&h, "/unclaimed-development-fund-coupons")).await;
    assert_eq!(s, StatusCode::OK);
    let coupons = b["unclaimed-development-fund-coupons"].as_array().unwrap();
    assert!(!coupons.is_empty());
    for c in coupons {
        let k = &c["contract"];
        assert!(
            k["template_id"]
                .as_str()
                .unwrap()
                .ends_with(":Splice.Amulet:UnclaimedDevelopmentFundCoupon")
        );
        for f in ["contract_id", "created_event_blob", "created_at"] {
            assert!(k[f].is_string(), "{f} in {k}");
        }
        assert!(k["payload"]["amount"].is_string());
        assert!(c["domain_id"].is_string());
    }
    let (s, b) = get(&proxy(&h, "/amulet-rules")).await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        b["amulet_rules"]["contract"]["template_id"]
            .as_str()
            .unwrap()
            .ends_with(":Splice.AmuletRules:AmuletRules")
    );

    let status = proxy(&h, "/transfer-command/status");
    let (s, b) = get(&status).await;
    assert_scan_error(s, &b, StatusCode::BAD_REQUEST);
    let (s, b) = get(&format!("{status}?sender=alice::1220ab")).await;
    assert_scan_error(s, &b, StatusCode::BAD_REQUEST);
    let (s, b) = get(&format!("{status}?sender=alice::1220ab&nonce=x")).await;
    assert_scan_error(s, &b, StatusCode::BAD_REQUEST);
    let (s, b) = get(&format!("{status}?sender=alice::1220ab&nonce=0")).await;
    assert_scan_error(s, &b, StatusCode::NOT_FOUND);

    let ledger = generate(42);
    let mut kinds = std::collections::BTreeSet::new();
    for tc in ledger.transfer_commands() {
        let sender = ledger.party_id(tc.sender);
        let url = format!("{status}?sender={}&nonce={}", urlencode(sender), tc.nonce);
        let (s, b) = get(&url).await;
        assert_eq!(s, StatusCode::OK, "{b}");
        let entry = &b["transfer_commands_by_contract_id"][&tc.contract_id];
        assert_eq!(entry["contract"]["contract_id"], tc.contract_id.as_str());
        assert_eq!(entry["contract"]["payload"]["sender"], sender);
        let st = &entry["status"];
        let kind = st["status"].as_str().unwrap().to_string();
        if kind == "failed" {
            assert!(st["reason"].is_string());
            kinds.insert(format!("failed/{}", st["failure_kind"].as_str().unwrap()));
        } else {
            assert!(st.get("failure_kind").is_none());
            kinds.insert(kind);
        }
    }
    for k in [
        "created",
        "sent",
        "failed/failed",
        "failed/expired",
        "failed/withdrawn",
    ] {
        assert!(
            kinds.contains(k),
            "no transfer command ended {k}: {kinds:?}"
        );
    }
    h.shutdown().await;
}

// -------------------------------------------------------------------------------------------
// Ledger API

fn ledger_url(h: &DemoHandle, path: &str) -> String {
    format!("{}{path}", h.ledger_url)
}

async fn ledger_get(h: &DemoHandle, path: &str) -> reqwest::Response {
    client()
        .get(ledger_url(h, path))
        .bearer_auth(&h.token)
        .send()
        .await
        .unwrap()
}

async fn ledger_post(h: &DemoHandle, path: &str, body: &Value) -> reqwest::Response {
    client()
        .post(ledger_url(h, path))
        .bearer_auth(&h.token)
        .json(body)
        .send()
        .await
        .unwrap()
}

async fn assert_canton_error(r: reqwest::Response, status: StatusCode, code: &str) -> Value {
    assert_eq!(r.status(), status);
    let ct = r.headers()["content-type"].to_str().unwrap().to_string();
    assert!(ct.starts_with("application/json"), "{ct}");
    let b: Value = r.json().await.unwrap();
    assert_eq!(b["code"], code, "{b}");
    assert!(b["cause"].is_string());
    assert!(b["context"].is_object());
    assert!(b["errorCategory"].is_i64());
    assert!(b["grpcCodeValue"].is_i64());
    assert!(b["resources"].is_array());
    b
}

async fn assert_plain_400(r: reqwest::Response) -> String {
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let ct = r.headers()["content-type"].to_str().unwrap().to_string();
    assert!(ct.starts_with("text/plain"), "{ct}");
    let text = r.text().await.unwrap();
    assert!(!text.is_empty());
    text
}

#[tokio::test]
async fn ledger_calls_need_a_valid_token() {
    let h = demo().await;
    let url = ledger_url(&h, "/v2/state/ledger-end");
    let r = client().get(&url).send().await.unwrap();
    let b = assert_canton_error(r, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert_eq!(b["errorCategory"], 6);
    let expired = make_token("participant_admin", 1_000);
    let r = client()
        .get(&url)
        .bearer_auth(expired)
        .send()
        .await
        .unwrap();
    assert_canton_error(r, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    let mut forged = h.token.clone();
    forged.truncate(forged.len() - 8);
    forged.push_str("AAAAAAAA");
    let r = client().get(&url).bearer_auth(forged).send().await.unwrap();
    assert_canton_error(r, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    let r = client()
        .get(&url)
        .bearer_auth("not-a-jwt")
        .send()
        .await
        .unwrap();
    assert_canton_error(r, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    let r = ledger_get(&h, "/v2/state/ledger-end").await;
    assert_eq!(r.status(), StatusCode::OK);
    let b: Value = r.json().await.unwrap();
    assert!(b["offset"].as_i64().unwrap() > 0);
    assert!(
        !format!("{h:?}").contains(&h.token),
        "the token is redacted from Debug"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn parties_users_and_packages() {
    let h = demo().await;
    let ledger = generate(42);
    let local = ledger.local_parties()[1].to_string();
    let remote = ledger.user_parties()[40].to_string();
    let r = ledger_get(
        &h,
        &format!(
            "/v2/parties/{}?parties={}&parties={}",
            urlencode(&local),
            urlencode(&remote),
            urlencode("ghost::1220ab")
        ),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let b: Value = r.json().await.unwrap();
    let details = b["partyDetails"].as_array().unwrap();
    assert_eq!(details.len(), 2);
    let l = details
        .iter()
        .find(|d| d["party"] == local.as_str())
        .unwrap();
    assert_eq!(l["isLocal"], true);
    assert!(l["localMetadata"]["resourceVersion"].is_string());
    assert!(l["localMetadata"]["annotations"].is_object());
    assert_eq!(l["identityProviderId"], "");
    let rm = details
        .iter()
        .find(|d| d["party"] == remote.as_str())
        .unwrap();
    assert_eq!(rm["isLocal"], false);
    let r = ledger_get(&h, "/v2/parties/ghost::1220ab").await;
    let b: Value = r.json().await.unwrap();
    assert_eq!(b["partyDetails"], json!([]));
    assert_plain_400(ledger_get(&h, "/v2/parties/no%20separator").await).await;
    assert_plain_400(
        ledger_get(
            &h,
            &format!("/v2/parties/{}?parties=bad", urlencode(&local)),
        )
        .await,
    )
    .await;

    // Users: deleting removes the user; a second delete is USER_NOT_FOUND.
    let del = |id: &str| {
        client()
            .delete(ledger_url(&h, &format!("/v2/users/{id}")))
            .bearer_auth(&h.token)
            .send()
    };
    let r = del("alice").await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.json::<Value>().await.unwrap(), json!({}));
    let b = assert_canton_error(
        del("alice").await.unwrap(),
        StatusCode::NOT_FOUND,
        "USER_NOT_FOUND",
    )
    .await;
    assert_eq!(b["errorCategory"], 11);
    assert_plain_400(del("bad%20user").await.unwrap()).await;

    // Packages: bytes with the hash header; unknown ids are a ledger error.
    let id = ledger.package_ids()[0].to_string();
    let r = ledger_get(&h, &format!("/v2/packages/{id}")).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "application/octet-stream");
    assert_eq!(r.headers()["canton-package-hash"].to_str().unwrap(), id);
    let bytes = r.bytes().await.unwrap();
    use sha2::Digest as _;
    assert_eq!(hex::encode(sha2::Sha256::digest(&bytes)), id);
    let r = ledger_get(&h, &format!("/v2/packages/{}", "f".repeat(64))).await;
    assert_canton_error(r, StatusCode::NOT_FOUND, "PACKAGE_NOT_FOUND").await;
    assert_plain_400(ledger_get(&h, "/v2/packages/bad%21id").await).await;
    h.shutdown().await;
}

#[tokio::test]
async fn update_trees_validate_and_respect_the_list_limit() {
    let h = demo().await;
    let url = "/v2/updates/trees";
    assert_plain_400(ledger_post(&h, url, &json!({})).await).await;
    assert_plain_400(ledger_post(&h, url, &json!({"beginExclusive": "zero"})).await).await;
    assert_plain_400(
        ledger_post(
            &h,
            url,
            &json!({"beginExclusive": 0, "descendingOrder": true}),
        )
        .await,
    )
    .await;
    assert_plain_400(ledger_post(&h, url, &json!({"beginExclusive": -1, "endInclusive": 5})).await)
        .await;
    assert_plain_400(
        ledger_post(
            &h,
            &format!("{url}?limit=abc"),
            &json!({"beginExclusive": 0}),
        )
        .await,
    )
    .await;
    let r = ledger_post(
        &h,
        url,
        &json!({"beginExclusive": 0, "endInclusive": 99_999_999}),
    )
    .await;
    assert_canton_error(r, StatusCode::BAD_REQUEST, "OFFSET_AFTER_LEDGER_END").await;
    // The whole ledger is over the 200 element limit.
    let r = ledger_post(&h, url, &json!({"beginExclusive": 0})).await;
    let b = assert_canton_error(
        r,
        StatusCode::PAYLOAD_TOO_LARGE,
        "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED",
    )
    .await;
    assert!(b["cause"].as_str().unwrap().contains("200"));
    // `limit` within the node setting truncates instead.
    let r = ledger_post(&h, &format!("{url}?limit=7"), &json!({"beginExclusive": 0})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let items: Vec<Value> = r.json().await.unwrap();
    assert_eq!(items.len(), 7);
    let r = ledger_post(&h, url, &json!({"beginExclusive": 10, "endInclusive": 40})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let items: Vec<Value> = r.json().await.unwrap();
    assert_eq!(items.len(), 30);
    let mut prev = 10;
    for it in &items {
        let tree = &it["update"]["TransactionTree"]["value"];
        let offset = tree
            .get("offset")
            .or_else(|| it["update"]["Reassignment"]["value"].get("offset"))
            .and_then(Value::as_i64)
            .unwrap();
        assert!(offset > prev);
        prev = offset;
        if tree.is_object() {
            for key in [
                "updateId",
                "effectiveAt",
                "offset",
                "eventsById",
                "synchronizerId",
                "recordTime",
            ] {
                assert!(tree.get(key).is_some(), "{key} missing");
            }
            for (k, ev) in tree["eventsById"].as_object().unwrap() {
                let (kind, v) = ev.as_object().unwrap().iter().next().unwrap();
                assert!(kind == "CreatedTreeEvent" || kind == "ExercisedTreeEvent");
                assert_eq!(v["value"]["nodeId"].as_i64().unwrap().to_string(), *k);
                assert_eq!(v["value"]["offset"], offset);
            }
        }
    }
    // Descending order with an end.
    let r = ledger_post(
        &h,
        url,
        &json!({"beginExclusive": 10, "endInclusive": 20, "descendingOrder": true}),
    )
    .await;
    let items: Vec<Value> = r.json().await.unwrap();
    let offs: Vec<i64> = items
        .iter()
        .map(|i| {
            let u = &i["update"];
            u["TransactionTree"]["value"]["offset"]
                .as_i64()
                .or_else(|| u["Reassignment"]["value"]["offset"].as_i64())
                .unwrap()
        })
        .collect();
    assert_eq!(offs, (11..=20).rev().collect::<Vec<_>>());
    // A party that sees little gets an offset checkpoint at the end of the range.
    let ledger = generate(42);
    let mut checkpoint = None;
    for user in ledger
        .local_parties()
        .into_iter()
        .filter(|p| !p.starts_with("acme"))
    {
        let r = ledger_post(&h, url, &json!({"beginExclusive": 0, "endInclusive": 150, "filter": {"filtersByParty": {user.to_string(): {}}}})).await;
        assert_eq!(r.status(), StatusCode::OK);
        let items: Vec<Value> = r.json().await.unwrap();
        let last = items.last().unwrap()["update"].clone();
        // (A party whose own update is the range's last one needs no checkpoint.)
        if !last["OffsetCheckpoint"].is_null() {
            checkpoint = Some(last);
            break;
        }
    }
    let checkpoint = checkpoint.expect("a party that sees little gets a checkpoint");
    let cp = &checkpoint["OffsetCheckpoint"]["value"];
    assert_eq!(cp["offset"], 150);
    assert_eq!(cp["synchronizerTimes"].as_array().unwrap().len(), 2);
    h.shutdown().await;
}

fn execute_body(party: &str, seed: &str) -> Value {
    use base64::Engine as _;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    json!({
        "preparedTransaction": b64(&format!("prepared transaction {seed}")),
        "partySignatures": {"signatures": [{"party": party, "signatures": [{
            "format": "SIGNATURE_FORMAT_CONCAT",
            "signature": b64("sixty-four bytes of signature"),
            "signedBy": party.split("::").nth(1).unwrap(),
            "signingAlgorithmSpec": "SIGNING_ALGORITHM_SPEC_ED25519"
        }]}]},
        "deduplicationPeriod": {"Empty": {}},
        "submissionId": format!("submission-{seed}"),
        "userId": "participant_admin",
        "hashingSchemeVersion": "HASHING_SCHEME_VERSION_V2",
        "transactionFormat": {"eventFormat": {"filtersByParty": {party: {}}, "verbose": true}, "transactionShape": "TRANSACTION_SHAPE_LEDGER_EFFECTS"}
    })
}

#[tokio::test]
async fn execute_validates_its_body_and_commits_a_transaction() {
    let h = demo().await;
    let ledger = generate(42);
    let party = ledger
        .local_parties()
        .into_iter()
        .find(|p| !p.starts_with("acme"))
        .unwrap()
        .to_string();
    let url = "/v2/interactive-submission/executeAndWaitForTransaction";
    let good = execute_body(&party, "server-test");
    for (path, bad) in [
        ("/preparedTransaction", json!(null)),
        ("/preparedTransaction", json!("%%%not base64")),
        ("/partySignatures/signatures", json!([])),
        ("/submissionId", json!("")),
        ("/hashingSchemeVersion", json!("HASHING_SCHEME_VERSION_V9")),
        (
            "/transactionFormat/transactionShape",
            json!("TRANSACTION_SHAPE_ROUND"),
        ),
        ("/deduplicationPeriod", json!({"Forever": {}})),
    ] {
        let mut body = good.clone();
        *body.pointer_mut(path).unwrap() = bad;
        assert_plain_400(ledger_post(&h, url, &body).await).await;
    }
    let r = client()
        .post(ledger_url(&h, url))
        .bearer_auth(&h.token)
        .header("content-type", "application/json")
        .body("[1, 2")
        .send()
        .await
        .unwrap();
    assert_plain_400(r).await;
    let remote = ledger.user_parties()[40].to_string();
    let r = ledger_post(&h, url, &execute_body(&remote, "remote")).await;
    assert_canton_error(r, StatusCode::NOT_FOUND, "PARTY_NOT_KNOWN_ON_LEDGER").await;

    let end_before: Value = ledger_get(&h, "/v2/state/ledger-end")
        .await
        .json()
        .await
        .unwrap();
    let r = ledger_post(&h, url, &good).await;
    assert_eq!(r.status(), StatusCode::OK);
    let b: Value = r.json().await.unwrap();
    let t = &b["transaction"];
    for key in [
        "updateId",
        "commandId",
        "effectiveAt",
        "events",
        "offset",
        "synchronizerId",
        "recordTime",
        "externalTransactionHash",
        "paidTrafficCost",
    ] {
        assert!(t.get(key).is_some(), "{key} missing in {t}");
    }
    assert_eq!(
        t["offset"].as_i64().unwrap(),
        end_before["offset"].as_i64().unwrap() + 1
    );
    let events = t["events"].as_array().unwrap();
    assert!(events.iter().any(|e| e.get("ExercisedEvent").is_some()));
    let created = events.iter().find_map(|e| e.get("CreatedEvent")).unwrap();
    assert!(
        created["templateId"]
            .as_str()
            .unwrap()
            .ends_with(":Splice.ExternalPartyAmuletRules:TransferCommand")
    );
    assert_eq!(created["createArgument"]["sender"], party.as_str());
    assert_eq!(t["externalTransactionHash"].as_str().unwrap().len(), 64);

    // The same prepared transaction again is a duplicate.
    let r = ledger_post(&h, url, &good).await;
    assert_canton_error(r, StatusCode::CONFLICT, "DUPLICATE_COMMAND").await;
    h.shutdown().await;
}

// -------------------------------------------------------------------------------------------
// Lifecycle

#[tokio::test]
async fn config_is_validated_and_shutdown_stops_serving() {
    for cfg in [
        DemoConfig {
            scans: 0,
            ..DemoConfig::default()
        },
        DemoConfig {
            scans: 5,
            ..DemoConfig::default()
        },
        DemoConfig {
            rate: -1.0,
            ..DemoConfig::default()
        },
        DemoConfig {
            rate: f64::NAN,
            ..DemoConfig::default()
        },
    ] {
        let e = start(cfg).await.expect_err("invalid config");
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    }
    let h = demo().await;
    let url = scan(&h, "/status");
    assert_eq!(get(&url).await.0, StatusCode::OK);
    h.shutdown().await;
    assert!(reqwest::Client::new().get(&url).send().await.is_err());
}

#[tokio::test]
async fn live_mode_appends_updates() {
    let h = start(DemoConfig {
        rate: 50.0,
        ..DemoConfig::default()
    })
    .await
    .unwrap();
    let url = scan(&h, "/v2/updates");
    let start_time = chrono::Utc::now().to_rfc3339();
    let mut seen = 0;
    for _ in 0..100 {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let (_, b) = post(&url, &json!({"page_size": 100, "after": {"after_migration_id": 1, "after_record_time": start_time}})).await;
        seen = b["transactions"].as_array().unwrap().len();
        if seen >= 3 {
            break;
        }
    }
    assert!(seen >= 3, "live mode appended {seen} updates");
    h.shutdown().await;
}

/// Live rounds run at the server's rate (a round's plan, not ten minutes): the rounds' `opensAt`
/// follow the live round length, so a round is open now and the newest opens within a few live
/// rounds. Before, every new round opened 20 minutes ahead, and after a few live rounds no open
/// round had opened (the Status card said "no open round has opened yet").
#[tokio::test]
async fn live_rounds_open_on_the_live_clock() {
    let h = start(DemoConfig {
        rate: 200.0,
        ..DemoConfig::default()
    })
    .await
    .unwrap();
    let url = scan(&h, "/v0/open-and-issuing-mining-rounds");
    let body = json!({"cached_open_mining_round_contract_ids": [], "cached_issuing_round_contract_ids": []});
    let first_round = |b: &Value| {
        b["open_mining_rounds"]
            .as_object()
            .into_iter()
            .flat_map(|m| m.values())
            .filter_map(|c| {
                c["contract"]["payload"]["round"]["number"]
                    .as_str()?
                    .parse::<i64>()
                    .ok()
            })
            .max()
    };
    let (_, before) = post(&url, &body).await;
    let start_round = first_round(&before).expect("open rounds");
    let mut answer = before;
    for _ in 0..300 {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        answer = post(&url, &body).await.1;
        if first_round(&answer).is_some_and(|r| r >= start_round + 5) {
            break;
        }
    }
    assert!(
        first_round(&answer).is_some_and(|r| r >= start_round + 5),
        "five live rounds advanced: {answer}"
    );
    let now = chrono::Utc::now().timestamp_micros();
    let opens: Vec<i64> = answer["open_mining_rounds"]
        .as_object()
        .expect("open rounds")
        .values()
        .filter_map(|c| {
            cantonscope::model::summary::parse_time_micros(
                c["contract"]["payload"]["opensAt"].as_str()?,
            )
        })
        .collect();
    assert!(
        opens.iter().any(|t| *t <= now),
        "a round is open now: {opens:?} at {now}"
    );
    assert!(
        opens.iter().all(|t| *t <= now + 600_000_000),
        "no round opens ten minutes or more ahead: {opens:?} at {now}"
    );
    h.shutdown().await;
}

/// From the first live round on, the rounds agree with each other as the Status card reads
/// them: some open round has opened (the current one, by `opensAt`) in every read and the
/// current round never goes back; once the rounds of the generated history (ten minutes long)
/// are archived, the rounds open in the order of their numbers and the next one opens within a
/// live round or so, not ten minutes ahead. Before, the first live round opened its new round
/// 20 minutes ahead (the history's round length), so once the history's rounds were archived no
/// open round had opened, and `next opens` named a time 20 minutes ahead while the live rounds
/// moved every few seconds.
#[tokio::test]
async fn live_rounds_agree_with_each_other_from_the_first_live_round() {
    use cantonscope::api::scan::{MiningRound, OpenAndIssuingMiningRounds};
    use cantonscope::feed::dashboard::RoundsView;
    use cantonscope::model::summary::parse_time_micros;
    let started = chrono::Utc::now().timestamp_micros();
    let h = start(DemoConfig {
        rate: 20.0,
        ..DemoConfig::default()
    })
    .await
    .unwrap();
    let url = scan(&h, "/v0/open-and-issuing-mining-rounds");
    let body = json!({"cached_open_mining_round_contract_ids": [], "cached_issuing_round_contract_ids": []});
    let mut last_current = 0;
    let mut currents = std::collections::BTreeSet::new();
    let mut live_only_reads = 0;
    for _ in 0..300 {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let (_, answer) = post(&url, &body).await;
        let now = chrono::Utc::now().timestamp_micros();
        let r: OpenAndIssuingMiningRounds = serde_json::from_value(answer).expect("decodes");
        let mut open: Vec<MiningRound> = r
            .open_mining_rounds
            .values()
            .filter_map(cantonscope::api::scan::MaybeCachedContract::round)
            .collect();
        open.sort_by_key(|o| o.number);
        let v = RoundsView::of(&open, &[], now, now);
        let current = v
            .current
            .unwrap_or_else(|| panic!("a round is open at {now}: {open:?}"));
        assert!(
            current.number >= last_current,
            "the current round went back: {open:?}"
        );
        last_current = current.number;
        currents.insert(current.number);
        let live = open
            .iter()
            .all(|o| parse_time_micros(&o.created_at).is_some_and(|t| t >= started));
        if !live {
            continue;
        }
        live_only_reads += 1;
        let opens: Vec<i64> = open
            .iter()
            .map(|o| parse_time_micros(&o.opens_at).expect("opensAt"))
            .collect();
        assert!(
            opens.windows(2).all(|w| w[0] <= w[1]),
            "rounds open in the order of their numbers: {open:?}"
        );
        let next = v.next.expect("a round opens next");
        let next_at = parse_time_micros(&next.opens_at).expect("opensAt");
        assert!(
            next_at - now < 60_000_000,
            "the next round opens within a minute at 20 updates a second: {open:?} at {now}"
        );
        if live_only_reads >= 20 {
            break;
        }
    }
    assert!(
        live_only_reads >= 20,
        "the history's rounds were archived by the live rounds"
    );
    assert!(currents.len() >= 3, "the live rounds moved: {currents:?}");
    h.shutdown().await;
}

/// Right after a live demo starts, the open rounds it serves already follow the live pace: the
/// soonest `opensAt` after now is within a live round (well under a minute at 20 updates a
/// second), and through the first live rounds no open round opens ten minutes out. Before, the
/// round the generated history's last round had opened (ten-minute rounds) opened ten minutes
/// after the history's end, and for the first two live rounds (about 90 s at one update a
/// second) the Status card's "next opens" named it.
#[tokio::test]
async fn a_live_demo_serves_its_next_round_at_the_live_pace_from_the_first_second() {
    use cantonscope::api::scan::{MiningRound, OpenAndIssuingMiningRounds};
    use cantonscope::feed::dashboard::RoundsView;
    use cantonscope::model::summary::parse_time_micros;
    const LIVE_ROUND: i64 = 60_000_000;
    let h = start(DemoConfig {
        rate: 20.0,
        ..DemoConfig::default()
    })
    .await
    .unwrap();
    let url = scan(&h, "/v0/open-and-issuing-mining-rounds");
    let body = json!({"cached_open_mining_round_contract_ids": [], "cached_issuing_round_contract_ids": []});
    let began = std::time::Instant::now();
    let mut reads = 0;
    while reads == 0 || began.elapsed() < std::time::Duration::from_secs(4) {
        let (_, answer) = post(&url, &body).await;
        let now = chrono::Utc::now().timestamp_micros();
        let r: OpenAndIssuingMiningRounds = serde_json::from_value(answer).expect("decodes");
        let mut open: Vec<MiningRound> = r
            .open_mining_rounds
            .values()
            .filter_map(cantonscope::api::scan::MaybeCachedContract::round)
            .collect();
        open.sort_by_key(|o| o.number);
        let opens: Vec<i64> = open
            .iter()
            .map(|o| parse_time_micros(&o.opens_at).expect("opensAt"))
            .collect();
        let v = RoundsView::of(&open, &[], now, now);
        assert!(v.current.is_some(), "a round is open at {now}: {open:?}");
        let next = v
            .next
            .map(|n| parse_time_micros(&n.opens_at).expect("opensAt"));
        if reads == 0 {
            let next = next.unwrap_or_else(|| panic!("a round opens next at {now}: {open:?}"));
            assert!(
                next - now < LIVE_ROUND,
                "right after the start the next round opens within a live round: {open:?} at {now}"
            );
        }
        if let Some(next) = next {
            assert!(next - now < LIVE_ROUND, "{open:?} at {now}");
        }
        assert!(
            opens.iter().all(|t| t - now < 2 * LIVE_ROUND),
            "no open round opens ten minutes out: {open:?} at {now}"
        );
        assert!(
            opens.windows(2).all(|w| w[0] <= w[1]),
            "rounds open in the order of their numbers: {open:?}"
        );
        reads += 1;
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    h.shutdown().await;
}

#[tokio::test]
async fn amulet_rules_through_the_scan_match_the_scan_proxy_and_honour_the_cache() {
    let h = demo().await;
    let (s, proxied) = get(&format!(
        "{}/api/validator/v0/scan-proxy/amulet-rules",
        h.validator_url
    ))
    .await;
    assert_eq!(s, StatusCode::OK);
    let url = scan(&h, "/v0/amulet-rules");
    let (s, b) = post(&url, &json!({})).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["amulet_rules_update"], proxied["amulet_rules"]);
    let cid = proxied["amulet_rules"]["contract"]["contract_id"]
        .as_str()
        .expect("contract id")
        .to_owned();
    // The caller already has this contract: only its synchronizer comes back.
    let (s, b) = post(&url, &json!({"cached_amulet_rules_contract_id": cid})).await;
    assert_eq!(s, StatusCode::OK);
    assert!(b["amulet_rules_update"].get("contract").is_none(), "{b}");
    assert!(b["amulet_rules_update"]["domain_id"].is_string(), "{b}");
    let (s, b) = post(&url, &json!({"cached_amulet_rules_contract_id": 7})).await;
    assert_scan_error(s, &b, StatusCode::BAD_REQUEST);
    let (s, b) = post(&url, &json!([])).await;
    assert_scan_error(s, &b, StatusCode::BAD_REQUEST);
    h.shutdown().await;
}
