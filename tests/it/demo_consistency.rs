//! The demo network is one consistent ledger: what the endpoints report can be recomputed from the
//! update history the way a client would, and the ledger API view matches the scan view.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use cantonscope::demo::DemoHandle;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::http::{dec, demo, get, post, urlencode};

fn time(s: &str) -> chrono::DateTime<chrono::FixedOffset> {
    chrono::DateTime::parse_from_rfc3339(s).expect("a valid timestamp")
}

fn migration_of(item: &Value) -> i64 {
    item.get("migration_id")
        .or_else(|| item["event"].get("migration_id"))
        .and_then(Value::as_i64)
        .unwrap()
}

/// Pages through `/v2/updates` from ledger begin, as a client does, while `more` holds for the
/// last item of the page.
async fn history(h: &DemoHandle, more: impl Fn(&Value) -> bool) -> Vec<Value> {
    let url = format!("{}/api/scan/v2/updates", h.scan_url);
    let mut out: Vec<Value> = Vec::new();
    loop {
        let mut body = json!({"page_size": 1000});
        if let Some(last) = out.last() {
            body["after"] = json!({"after_migration_id": migration_of(last), "after_record_time": last["record_time"]});
        }
        let (s, mut b) = post(&url, &body).await;
        assert_eq!(s, StatusCode::OK, "{b}");
        let Value::Array(page) = b["transactions"].take() else {
            panic!("transactions is an array: {b}");
        };
        let n = page.len();
        out.extend(page);
        if n < 1000 || !out.last().is_some_and(&more) {
            return out;
        }
    }
}

fn template(ev: &Value) -> &str {
    ev["template_id"]
        .as_str()
        .unwrap()
        .split_once(':')
        .unwrap()
        .1
}

#[tokio::test]
async fn holdings_equal_the_sum_of_active_amulets_in_history() {
    let h = demo().await;
    let (_, first) = post(
        &format!("{}/api/scan/v2/updates", h.scan_url),
        &json!({"page_size": 1}),
    )
    .await;
    let start_time = time(first["transactions"][0]["record_time"].as_str().unwrap());
    let before = (start_time + chrono::Duration::hours(6)).to_rfc3339();
    let (s, b) = get(&format!(
        "{}/api/scan/v0/state/acs/snapshot-timestamp?before={}&migration_id=0",
        h.scan_url,
        urlencode(&before)
    ))
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let snap_str = b["record_time"].as_str().unwrap().to_string();
    let snap = time(&snap_str);

    // Replay the history up to the snapshot.
    let items = history(&h, |last| {
        time(last["record_time"].as_str().unwrap()) <= snap
    })
    .await;
    let mut active: HashMap<String, (String, i128, bool)> = HashMap::new();
    let mut replayed = 0;
    for item in items
        .iter()
        .filter(|i| time(i["record_time"].as_str().unwrap()) <= snap)
    {
        replayed += 1;
        let Some(events) = item["events_by_id"].as_object() else {
            continue;
        };
        for ev in events.values() {
            let cid = ev["contract_id"].as_str().unwrap().to_string();
            match ev["event_type"].as_str().unwrap() {
                "created_event" if template(ev) == "Splice.Amulet:Amulet" => {
                    let a = &ev["create_arguments"];
                    let owner = a["owner"].as_str().unwrap().to_string();
                    let amount = dec(a["amount"]["initialAmount"].as_str().unwrap());
                    active.insert(cid, (owner, amount, false));
                }
                "created_event" if template(ev) == "Splice.Amulet:LockedAmulet" => {
                    let a = &ev["create_arguments"]["amulet"];
                    let owner = a["owner"].as_str().unwrap().to_string();
                    let amount = dec(a["amount"]["initialAmount"].as_str().unwrap());
                    active.insert(cid, (owner, amount, true));
                }
                "exercised_event" if ev["consuming"] == true => {
                    active.remove(&cid);
                }
                _ => {}
            }
        }
    }
    assert!(replayed > 500, "the snapshot covers {replayed} updates");
    let mut expected: BTreeMap<String, (i128, i128)> = BTreeMap::new();
    for (owner, amount, locked) in active.values() {
        let e = expected.entry(owner.clone()).or_default();
        if *locked {
            e.1 += amount;
        } else {
            e.0 += amount;
        }
    }
    assert!(expected.len() > 40);
    assert!(
        expected.values().any(|e| e.1 > 0),
        "some amulets are locked"
    );

    let mut owners: Vec<&str> = expected.keys().map(String::as_str).collect();
    owners.push("nobody::12200000");
    let (s, b) = post(
        &format!("{}/api/scan/v1/holdings/summary", h.scan_url),
        &json!({"migration_id": 0, "record_time": snap_str, "owner_party_ids": owners}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let mut got: BTreeMap<String, (i128, i128)> = BTreeMap::new();
    for row in b["summaries"].as_array().unwrap() {
        let u = dec(row["total_unlocked_coin"].as_str().unwrap());
        let l = dec(row["total_locked_coin"].as_str().unwrap());
        assert_eq!(dec(row["total_coin_holdings"].as_str().unwrap()), u + l);
        let prev = got.insert(row["party_id"].as_str().unwrap().to_string(), (u, l));
        assert!(prev.is_none(), "party_id is unique among summaries");
    }
    assert_eq!(got, expected);
    h.shutdown().await;
}

#[tokio::test]
async fn history_invariants_hold_across_the_whole_ledger() {
    let h = demo().await;
    let items = history(&h, |_| true).await;
    assert!(items.len() >= 10_000, "{} updates", items.len());

    // Ascending (migration, record time); migration 0 before migration 1.
    let mut prev: Option<(i64, chrono::DateTime<chrono::FixedOffset>)> = None;
    let mut syncs = BTreeSet::new();
    for it in &items {
        let key = (migration_of(it), time(it["record_time"].as_str().unwrap()));
        if let Some(p) = prev {
            assert!(p < key, "history is ascending");
        }
        prev = Some(key);
        if let Some(s) = it["synchronizer_id"].as_str() {
            syncs.insert(s.to_string());
        }
    }
    assert_eq!(migration_of(&items[0]), 0);
    assert_eq!(migration_of(items.last().unwrap()), 1);
    assert_eq!(syncs.len(), 2, "transactions on both synchronizers");

    // Trees: every id resolves, each event is reached exactly once, keys sorted as text.
    let mut max_events = 0;
    let mut max_depth = 0;
    let mut string_results = 0;
    let mut seen_kinds: BTreeSet<String> = BTreeSet::new();
    let mut liveness: HashMap<String, BTreeSet<i64>> = HashMap::new();
    let mut weights: HashMap<String, Vec<(String, String)>> = HashMap::new();
    for it in items.iter().filter(|i| i.get("events_by_id").is_some()) {
        let uid = it["update_id"].as_str().unwrap();
        let events = it["events_by_id"].as_object().unwrap();
        let keys: Vec<&String> = events.keys().collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted, "events_by_id is sorted as text");
        for (k, ev) in events {
            assert_eq!(ev["event_id"], k.as_str());
            assert!(k.starts_with(&format!("{uid}:")));
        }
        let mut reached: HashSet<&str> = HashSet::new();
        let mut stack: Vec<(&str, usize)> = it["root_event_ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r.as_str().unwrap(), 1))
            .collect();
        while let Some((id, depth)) = stack.pop() {
            let ev = events
                .get(id)
                .unwrap_or_else(|| panic!("{id} does not resolve"));
            assert!(reached.insert(id), "{id} reached twice");
            max_depth = max_depth.max(depth);
            for c in ev["child_event_ids"].as_array().into_iter().flatten() {
                stack.push((c.as_str().unwrap(), depth + 1));
            }
        }
        assert_eq!(reached.len(), events.len(), "every event hangs off a root");
        max_events = max_events.max(events.len());

        for ev in events.values() {
            let tpl = template(ev);
            if ev["event_type"].as_str().unwrap() == "created_event" {
                seen_kinds.insert(format!("create {tpl}"));
                if tpl == "Splice.ValidatorLicense:ValidatorFaucetCoupon"
                    || tpl == "Splice.ValidatorLicense:ValidatorLivenessActivityRecord"
                {
                    let a = &ev["create_arguments"];
                    let round: i64 = a["round"]["number"].as_str().unwrap().parse().unwrap();
                    liveness
                        .entry(a["validator"].as_str().unwrap().to_string())
                        .or_default()
                        .insert(round);
                }
            } else {
                let choice = ev["choice"].as_str().unwrap();
                seen_kinds.insert(format!("choice {choice}"));
                assert!(ev.get("interface_id").is_some());
                string_results += usize::from(ev["exercise_result"].is_string());
                if choice == "DsoRules_UpdateSvRewardWeight" {
                    let a = &ev["choice_argument"];
                    weights
                        .entry(a["svParty"].as_str().unwrap().to_string())
                        .or_default()
                        .push((
                            it["record_time"].as_str().unwrap().to_string(),
                            a["newRewardWeight"].as_str().unwrap().to_string(),
                        ));
                }
            }
        }
    }
    assert!(max_events > 50, "largest tree: {max_events}");
    assert!(max_depth >= 3, "deepest tree: {max_depth}");
    assert!(
        string_results > 0,
        "some exercise results are plain strings"
    );
    for kind in [
        "create Splice.Round:OpenMiningRound",
        "create Splice.Round:SummarizingMiningRound",
        "create Splice.Round:IssuingMiningRound",
        "create Splice.Round:ClosedMiningRound",
        "create Splice.DsoRules:VoteRequest",
        "create Splice.ValidatorLicense:ValidatorLicense",
        "create Splice.ValidatorLicense:ValidatorLivenessActivityRecord",
        "create Splice.ExternalPartyAmuletRules:TransferCommand",
        "create Splice.Amulet:UnclaimedDevelopmentFundCoupon",
        "create Splice.Amulet:LockedAmulet",
        "choice AmuletRules_Transfer",
        "choice DsoRules_CastVote",
        "choice DsoRules_UpdateSvRewardWeight",
        "choice TransferCommand_Send",
        "choice TransferCommand_Expire",
        "choice TransferCommand_Withdraw",
    ] {
        assert!(seen_kinds.contains(kind), "history lacks {kind}");
    }

    // Reassignments: matching unassign/assign pairs; counters strictly increase per contract.
    let mut unassigns: HashMap<String, (String, i64, usize)> = HashMap::new();
    let mut counters: HashMap<String, i64> = HashMap::new();
    let mut pairs = 0;
    for (i, it) in items
        .iter()
        .enumerate()
        .filter(|(_, i)| i.get("event").is_some())
    {
        let ev = &it["event"];
        let uid = ev["unassign_id"].as_str().unwrap().to_string();
        let counter = ev["reassignment_counter"].as_i64().unwrap();
        if let Some(cid) = ev["contract_id"].as_str() {
            let last = counters.insert(cid.to_string(), counter).unwrap_or(0);
            assert!(counter > last, "counter increases with each unassign");
            unassigns.insert(uid, (cid.to_string(), counter, i));
        } else {
            let created = &ev["created_event"];
            let cid = created["contract_id"].as_str().unwrap();
            let (ucid, ucounter, at) = unassigns.get(&uid).expect("assign matches an unassign");
            assert_eq!(cid, ucid);
            assert_eq!(counter, *ucounter);
            assert!(i > *at);
            assert_eq!(
                created["event_id"],
                format!("{}:0", it["update_id"].as_str().unwrap())
            );
            pairs += 1;
        }
    }
    assert!(pairs > 10, "{pairs} reassignment pairs");

    // Faucet statistics come from the liveness records.
    let validators: Vec<&String> = liveness.keys().collect();
    let query: Vec<String> = validators
        .iter()
        .map(|v| format!("validator_ids={}", urlencode(v)))
        .collect();
    let (s, b) = get(&format!(
        "{}/api/scan/v0/validators/validator-faucets?{}",
        h.scan_url,
        query.join("&")
    ))
    .await;
    assert_eq!(s, StatusCode::OK);
    let stats = b["validatorsReceivedFaucets"].as_array().unwrap();
    assert_eq!(stats.len(), validators.len());
    for st in stats {
        let rounds = &liveness[st["validator"].as_str().unwrap()];
        let first = *rounds.first().unwrap();
        let last = *rounds.last().unwrap();
        assert_eq!(st["firstCollectedInRound"], first);
        assert_eq!(st["lastCollectedInRound"], last);
        assert_eq!(st["numRoundsCollected"], rounds.len() as i64);
        assert_eq!(
            st["numRoundsMissed"],
            last - first + 1 - rounds.len() as i64
        );
    }

    // Reward weights come from the accepted weight changes.
    assert!(!weights.is_empty());
    let url = format!(
        "{}/api/scan/v0/admin/sv/previous-sv-reward-weight",
        h.scan_url
    );
    for (sv, changes) in &weights {
        let (_, b) = post(&url, &json!({"svParty": sv})).await;
        assert_eq!(b["rewardWeight"], changes.last().unwrap().1.as_str());
        let (at, _) = changes.last().unwrap();
        let (_, b) = post(&url, &json!({"svParty": sv, "effectiveBefore": at})).await;
        match changes.len() {
            1 => assert!(b.get("rewardWeight").is_none(), "{b}"),
            n => assert_eq!(b["rewardWeight"], changes[n - 2].1.as_str()),
        }
    }
    h.shutdown().await;
}

async fn trees(h: &DemoHandle, begin: i64, end: i64) -> Vec<Value> {
    let r = reqwest::Client::new()
        .post(format!("{}/v2/updates/trees?limit=200", h.ledger_url))
        .bearer_auth(&h.token)
        .json(&json!({"beginExclusive": begin, "endInclusive": end}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    r.json().await.unwrap()
}

#[tokio::test]
async fn ledger_trees_nest_and_match_the_scan_view() {
    let h = demo().await;
    let mut checked = 0;
    let mut gaps = 0;
    for chunk in 0..3 {
        for item in trees(&h, chunk * 200, chunk * 200 + 200).await {
            let Some(tree) = item["update"].get("TransactionTree").map(|t| &t["value"]) else {
                continue;
            };
            let events = tree["eventsById"].as_object().unwrap();
            let mut ranges: Vec<(i64, i64)> = Vec::new();
            let mut ids: Vec<i64> = Vec::new();
            for (k, ev) in events {
                let (kind, v) = ev.as_object().unwrap().iter().next().unwrap();
                let v = &v["value"];
                let id = v["nodeId"].as_i64().unwrap();
                assert_eq!(k.parse::<i64>().unwrap(), id);
                ids.push(id);
                if kind == "ExercisedTreeEvent" {
                    let last = v["lastDescendantNodeId"].as_i64().unwrap();
                    assert!(last >= id);
                    ranges.push((id, last));
                }
            }
            ids.sort_unstable();
            gaps += usize::from(ids.windows(2).any(|w| w[1] > w[0] + 1) || ids[0] > 0);
            // Ranges either nest or are disjoint.
            for a in &ranges {
                for b in &ranges {
                    let disjoint = a.1 < b.0 || b.1 < a.0;
                    let nested = (a.0 <= b.0 && b.1 <= a.1) || (b.0 <= a.0 && a.1 <= b.1);
                    assert!(disjoint || nested, "{a:?} and {b:?} overlap");
                }
            }
            // The same transaction in the scan view: same events at the same node ids.
            if checked < 40 {
                let uid = tree["updateId"].as_str().unwrap();
                let (s, b) = get(&format!("{}/api/scan/v0/events/{uid}", h.scan_url)).await;
                assert_eq!(s, StatusCode::OK);
                let scan_events = b["update"]["events_by_id"].as_object().unwrap();
                for (k, ev) in events {
                    let v = &ev.as_object().unwrap().values().next().unwrap()["value"];
                    let sev = &scan_events[&format!("{uid}:{k}")];
                    assert_eq!(sev["contract_id"], v["contractId"]);
                    assert_eq!(sev["template_id"], v["templateId"]);
                    // A node's children in scan are exactly the visible nodes of its range.
                    if let Some(last) = v.get("lastDescendantNodeId").and_then(Value::as_i64) {
                        let id = v["nodeId"].as_i64().unwrap();
                        for c in sev["child_event_ids"].as_array().unwrap() {
                            let n: i64 = c
                                .as_str()
                                .unwrap()
                                .rsplit(':')
                                .next()
                                .unwrap()
                                .parse()
                                .unwrap();
                            assert!(n > id && n <= last, "child {n} outside ({id}, {last}]");
                        }
                    }
                }
                assert_eq!(b["update"]["record_time"], tree["recordTime"]);
                checked += 1;
            }
        }
    }
    assert!(checked >= 40);
    assert!(
        gaps > 0,
        "node ids have gaps where fetches or hidden nodes are"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn an_executed_transaction_shows_up_in_scan_history() {
    use base64::Engine as _;
    let h = demo().await;
    let ledger = cantonscope::demo::generate(42);
    let party = ledger
        .local_parties()
        .into_iter()
        .find(|p| !p.starts_with("acme"))
        .unwrap()
        .to_string();
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let prepared = b64("consistency prepared transaction");
    let body = json!({
        "preparedTransaction": prepared,
        "partySignatures": {"signatures": [{"party": party, "signatures": [{
            "format": "SIGNATURE_FORMAT_RAW", "signature": b64("sig"),
            "signedBy": "1220", "signingAlgorithmSpec": "SIGNING_ALGORITHM_SPEC_ED25519"}]}]},
        "submissionId": "consistency-1",
        "hashingSchemeVersion": "HASHING_SCHEME_VERSION_V2"
    });
    let r = reqwest::Client::new()
        .post(format!(
            "{}/v2/interactive-submission/executeAndWaitForTransaction",
            h.ledger_url
        ))
        .bearer_auth(&h.token)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let t: Value = r.json::<Value>().await.unwrap()["transaction"].clone();
    let uid = t["updateId"].as_str().unwrap();
    let hash = t["externalTransactionHash"].as_str().unwrap();
    {
        use sha2::Digest as _;
        let raw = base64::engine::general_purpose::STANDARD
            .decode(&prepared)
            .unwrap();
        assert_eq!(hash, hex::encode(sha2::Sha256::digest(raw)));
    }
    // ACS-delta shape by default: only the created TransferCommand.
    let events = t["events"].as_array().unwrap();
    assert_eq!(events.len(), 1);
    let created = &events[0]["CreatedEvent"];
    let nonce = created["createArgument"]["nonce"]
        .as_str()
        .unwrap()
        .to_string();

    // The newest update of the scan history is this transaction.
    let rt = time(t["recordTime"].as_str().unwrap());
    let just_before = (rt - chrono::Duration::microseconds(1)).to_rfc3339();
    let (_, b) = post(
        &format!("{}/api/scan/v2/updates", h.scan_url),
        &json!({"page_size": 10, "after": {"after_migration_id": 1, "after_record_time": just_before}}),
    )
    .await;
    let items = b["transactions"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["update_id"], uid);
    assert_eq!(items[0]["external_transaction_hash"], hash);
    let scan_created = items[0]["events_by_id"]
        .as_object()
        .unwrap()
        .values()
        .find(|e| e["event_type"] == "created_event")
        .unwrap();
    assert_eq!(scan_created["contract_id"], created["contractId"]);

    let (s, b) = get(&format!("{}/api/scan/v0/events/{uid}", h.scan_url)).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(b["verdict"]["submitting_parties"][0], party.as_str());
    let (s, b) = get(&format!("{}/api/scan/v2/updates/hash/{hash}", h.scan_url)).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(b["update_id"], uid);

    // Its transfer command is pending for (sender, nonce).
    let (s, b) = get(&format!(
        "{}/api/validator/v0/scan-proxy/transfer-command/status?sender={}&nonce={nonce}",
        h.validator_url,
        urlencode(&party)
    ))
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let entry = &b["transfer_commands_by_contract_id"][created["contractId"].as_str().unwrap()];
    assert_eq!(entry["status"]["status"], "created");

    // And the ledger end moved to its offset.
    let r = reqwest::Client::new()
        .get(format!("{}/v2/state/ledger-end", h.ledger_url))
        .bearer_auth(&h.token)
        .send()
        .await
        .unwrap();
    let end: Value = r.json().await.unwrap();
    assert_eq!(end["offset"], t["offset"]);
    let items = trees(
        &h,
        t["offset"].as_i64().unwrap() - 1,
        t["offset"].as_i64().unwrap(),
    )
    .await;
    assert_eq!(
        items[0]["update"]["TransactionTree"]["value"]["updateId"],
        uid
    );
    h.shutdown().await;
}
