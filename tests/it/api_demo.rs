//! Every endpoint of the client over real HTTP against the demo network (`demo::start` on
//! 127.0.0.1:0): the success path of all 20 endpoints and the error shapes the demo produces
//! like the real servers (scan 400/404, ledger 401/400/404/413, endpoint not served).

use cantonscope::api::ledger::{self, GetUpdatesRequest};
use cantonscope::api::scan::{
    self, HoldingsSummaryRequest, RecordTimeMatch, RewardWeightRequest, TreeEvent, UpdateItem,
    UpdatesRequest, ValueEncoding,
};
use cantonscope::api::validator::{self, TransferCommandState};
use cantonscope::api::{ApiClient, ApiConfig, ApiError, Secret, TokenSource};
use cantonscope::demo::{self, DemoConfig};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;
use std::time::Duration;

struct Demo {
    scan_url: String,
    validator_url: String,
    ledger_url: String,
    token: String,
}

/// One demo network shared by the read-only tests, on its own runtime thread.
fn shared_demo() -> &'static Demo {
    static DEMO: OnceLock<Demo> = OnceLock::new();
    DEMO.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let handle = demo::start(DemoConfig::default())
                    .await
                    .expect("demo starts");
                tx.send(Demo {
                    scan_url: handle.scan_url.clone(),
                    validator_url: handle.validator_url.clone(),
                    ledger_url: handle.ledger_url.clone(),
                    token: handle.token.clone(),
                })
                .expect("send urls");
                // Keep the handle (and so the server) alive for the whole test binary.
                let _keep = handle;
                std::future::pending::<()>().await;
            });
        });
        rx.recv().expect("demo started")
    })
}

fn client(d: &Demo) -> ApiClient {
    ApiClient::new(ApiConfig {
        scan_url: Some(d.scan_url.clone()),
        validator_url: Some(d.validator_url.clone()),
        ledger_url: Some(d.ledger_url.clone()),
        token: Some(TokenSource::Literal(Secret::new(d.token.clone()))),
        ..ApiConfig::default()
    })
    .expect("client")
}

/// The first `pages` pages of 1,000 updates.
async fn history(c: &ApiClient, pages: usize) -> Vec<UpdateItem> {
    let mut out = Vec::new();
    let mut req = UpdatesRequest::from_begin(1000);
    for _ in 0..pages {
        let page = c.send(&scan::updates(&req)).await.expect("updates page");
        assert_eq!(page.malformed_count(), 0, "demo items all decode");
        let Some(next) = page.next_after() else { break };
        let full = page.transactions.len() == 1000;
        out.extend(page.transactions);
        if !full {
            break;
        }
        req.after = Some(next);
    }
    out
}

/// The shared demo's whole history at first use (fetched once per test binary).
async fn shared_history(c: &ApiClient) -> &'static [UpdateItem] {
    static HISTORY: tokio::sync::OnceCell<Vec<UpdateItem>> = tokio::sync::OnceCell::const_new();
    HISTORY.get_or_init(|| history(c, 100)).await
}

fn transactions(items: &[UpdateItem]) -> impl Iterator<Item = &scan::Transaction> {
    items.iter().filter_map(UpdateItem::as_transaction)
}

fn created_events(items: &[UpdateItem]) -> impl Iterator<Item = &scan::CreatedEvent> {
    transactions(items)
        .flat_map(|t| t.events_by_id.values())
        .filter_map(|e| match e {
            TreeEvent::Created(c) => Some(c),
            _ => None,
        })
}

fn parties_seen(items: &[UpdateItem]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for t in transactions(items) {
        for e in t.events_by_id.values() {
            match e {
                TreeEvent::Created(c) => {
                    out.extend(c.signatories.iter().cloned());
                    out.extend(c.observers.iter().cloned());
                }
                TreeEvent::Exercised(x) => out.extend(x.acting_parties.iter().cloned()),
                TreeEvent::Unknown { .. } => {}
            }
        }
    }
    out
}

fn key(item: &UpdateItem) -> (i64, chrono::DateTime<chrono::FixedOffset>) {
    let t = item.record_time().expect("record time");
    (
        item.migration_id().expect("migration id"),
        chrono::DateTime::parse_from_rfc3339(t).expect("RFC 3339 record time"),
    )
}

#[tokio::test]
async fn scan_update_history_pages_and_trees() {
    let c = client(shared_demo());
    let items = shared_history(&c).await;
    assert!(items.len() >= 2000, "at least two full pages");
    // Ascending (migration id, record time), strictly within a migration.
    for w in items.windows(2) {
        assert!(key(&w[0]) < key(&w[1]), "order at {:?}", w[1].update_id());
    }
    let kinds: BTreeSet<_> = items.iter().map(UpdateItem::kind).collect();
    assert!(kinds.contains(&scan::UpdateKind::Transaction));
    for t in transactions(items) {
        assert!(t.update_id.starts_with("1220"), "{}", t.update_id);
        let walked: Vec<_> = t.walk().collect();
        assert!(walked.iter().all(|w| w.event.is_some()), "{}", t.update_id);
        assert_eq!(walked.len(), t.events_by_id.len(), "{}", t.update_id);
        for (id, ev) in &t.events_by_id {
            assert_eq!(id, ev.event_id());
        }
    }
    // page_size is validated like the real server.
    for bad in [0, 1001] {
        let err = c
            .send(&scan::updates(&UpdatesRequest::from_begin(bad)))
            .await
            .expect_err("page_size out of range");
        assert!(
            matches!(err, ApiError::Scan { status: 400, .. }),
            "{bad}: {err:?}"
        );
    }
}

#[tokio::test]
async fn scan_event_verdict_and_hash() {
    let c = client(shared_demo());
    let items = shared_history(&c).await;
    let tx = transactions(items).next().expect("a transaction");
    let ev = c
        .send(&scan::event(&tx.update_id, &ValueEncoding::CompactJson))
        .await
        .expect("event");
    let update = ev.update.as_ref().expect("update");
    assert_eq!(update.update_id(), Some(tx.update_id.as_str()));
    let verdict = ev
        .verdict
        .as_ref()
        .expect("demo has a verdict per transaction");
    assert_eq!(verdict.update_id, tx.update_id);
    let view_ids: BTreeSet<i32> = verdict
        .transaction_views
        .views
        .iter()
        .map(|v| v.view_id)
        .collect();
    assert!(!view_ids.is_empty());
    for r in &verdict.transaction_views.root_views {
        assert!(view_ids.contains(r));
    }
    if let Some(ts) = &ev.traffic_summary {
        let sum: i64 = ts
            .envelope_traffic_summaries
            .iter()
            .map(|e| e.traffic_cost)
            .sum();
        assert_eq!(sum, ts.total_traffic_cost);
    }
    if let Some(r) = items.iter().find(|i| i.as_reassignment().is_some()) {
        let id = r.update_id().expect("id");
        let ev = c
            .send(&scan::event(id, &ValueEncoding::CompactJson))
            .await
            .expect("reassignment event");
        assert_eq!(
            ev.update.as_ref().map(UpdateItem::kind),
            Some(r.kind()),
            "{id}"
        );
    }
    let err = c
        .send(&scan::event("1220deadbeef", &ValueEncoding::CompactJson))
        .await
        .expect_err("unknown id");
    assert!(matches!(err, ApiError::NotFound { .. }), "{err:?}");

    // Update by hash: the newest hashes are indexed; older ones may 404 (NotFound, not a crash).
    let hashes: Vec<(&str, &str)> = transactions(items)
        .filter_map(|t| {
            t.external_transaction_hash
                .as_deref()
                .map(|h| (h, t.update_id.as_str()))
        })
        .collect();
    assert!(
        !hashes.is_empty(),
        "the demo has externally signed transactions"
    );
    let mut found = 0;
    for (hash, update_id) in hashes.iter().rev().take(5) {
        match c
            .send(&scan::update_by_hash(hash, &ValueEncoding::CompactJson))
            .await
        {
            Ok(item) => {
                assert_eq!(item.update_id(), Some(*update_id));
                found += 1;
            }
            Err(ApiError::NotFound { .. }) => {}
            Err(e) => panic!("{e}"),
        }
    }
    assert!(found > 0, "the newest hashes resolve");
}

#[tokio::test]
async fn scan_state_endpoints() {
    let c = client(shared_demo());
    let items = shared_history(&c).await;
    let parties: Vec<String> = parties_seen(items).into_iter().collect();
    let tx = transactions(items).next().expect("tx");

    match c.send(&scan::status()).await.expect("status") {
        scan::NodeStatus::Success(s) => assert!(s.active),
        other => panic!("{other:?}"),
    }

    let last = items.last().expect("items");
    let summary = c
        .send(&scan::holdings_summary(&HoldingsSummaryRequest {
            migration_id: last.migration_id().expect("mig"),
            record_time: chrono::Utc::now().to_rfc3339(),
            record_time_match: Some(RecordTimeMatch::AtOrBefore),
            owner_party_ids: parties.iter().take(20).cloned().collect(),
        }))
        .await
        .expect("holdings");
    for s in &summary.summaries {
        assert!(parties.contains(&s.party_id));
        assert!(!s.total_coin_holdings.is_empty());
    }
    let err = c
        .send(&scan::holdings_summary(&HoldingsSummaryRequest {
            migration_id: 0,
            record_time: chrono::Utc::now().to_rfc3339(),
            record_time_match: None,
            owner_party_ids: vec![],
        }))
        .await
        .expect_err("empty owners");
    assert!(matches!(err, ApiError::Scan { status: 400, .. }), "{err:?}");

    let ids: Vec<String> = parties.iter().take(150).cloned().collect();
    let faucets = c
        .send(&scan::validator_faucets(&ids))
        .await
        .expect("faucets");
    assert!(!faucets.validators_received_faucets.is_empty());
    for v in &faucets.validators_received_faucets {
        assert!(ids.contains(&v.validator));
        assert_eq!(
            v.num_rounds_collected + v.num_rounds_missed,
            v.last_collected_in_round - v.first_collected_in_round + 1
        );
    }

    let seq = c.send(&scan::bft_sequencers()).await.expect("sequencers");
    for s in &seq.bft_sequencers {
        assert!(!s.id.is_empty() && !s.p2p_url.is_empty());
    }

    let mut weights = 0;
    for p in parties.iter().take(60) {
        let w = c
            .send(&scan::previous_sv_reward_weight(&RewardWeightRequest {
                sv_party: p.clone(),
                effective_before: None,
            }))
            .await
            .expect("reward weight");
        if w.reward_weight.is_some() {
            weights += 1;
        }
    }
    assert!(weights > 0, "some SV has a reward weight");

    let prefix = tx
        .synchronizer_id
        .split("::")
        .next()
        .expect("prefix")
        .to_owned();
    let boot = c
        .send(&scan::bootstrapping_transactions(&prefix))
        .await
        .expect("bootstrapping");
    assert!(!boot.domain_parameters.is_empty());
    assert!(!boot.sequencer_domain_state.is_empty());
    assert!(!boot.mediator_domain_state.is_empty());
    let err = c
        .send(&scan::bootstrapping_transactions("no-such-domain"))
        .await
        .expect_err("unknown prefix");
    assert!(matches!(err, ApiError::NotFound { .. }), "{err:?}");

    let party = parties.first().expect("party");
    let pids = c
        .send(&scan::participant_ids(&tx.synchronizer_id, party))
        .await
        .expect("participant ids");
    assert!(!pids.participant_ids.is_empty());
    assert!(pids.participant_ids.iter().all(|p| p.starts_with("PAR::")));
}

#[tokio::test]
async fn validator_proxy_endpoints() {
    let c = client(shared_demo());
    let rules = c.send(&validator::amulet_rules()).await.expect("rules");
    assert!(
        rules
            .amulet_rules
            .contract
            .template_id
            .contains("AmuletRules")
    );
    assert!(rules.amulet_rules.contract.payload.get().starts_with('{'));

    let coupons = c
        .send(&validator::dev_fund_coupons())
        .await
        .expect("coupons");
    for cw in &coupons.unclaimed_development_fund_coupons {
        assert!(cw.contract.template_id.contains("DevelopmentFundCoupon"));
    }

    // Transfer commands created in history: look up the newest ones by sender + nonce.
    let items = shared_history(&c).await;
    let commands: Vec<(String, String, i64)> = created_events(items)
        .filter(|e| e.template_id.ends_with(":TransferCommand"))
        .filter_map(|e| {
            let v = e.create_arguments.to_value().ok()?;
            let sender = v.get("sender")?.as_str()?.to_owned();
            let nonce = match v.get("nonce")? {
                serde_json::Value::String(s) => s.parse().ok()?,
                n => n.as_i64()?,
            };
            Some((e.contract_id.clone(), sender, nonce))
        })
        .collect();
    assert!(!commands.is_empty(), "history has transfer commands");
    let mut resolved = 0;
    let mut states = BTreeSet::new();
    for (cid, sender, nonce) in commands.iter().rev().take(10) {
        match c
            .send(&validator::transfer_command_status(sender, *nonce))
            .await
        {
            Ok(resp) => {
                let entry = resp
                    .transfer_commands_by_contract_id
                    .get(cid)
                    .expect("the command is listed under its contract id");
                assert_eq!(&entry.contract.contract_id, cid);
                states.insert(entry.status.status.as_str().to_owned());
                assert!(matches!(
                    entry.status.status,
                    TransferCommandState::Created
                        | TransferCommandState::Sent
                        | TransferCommandState::Failed
                ));
                resolved += 1;
            }
            Err(ApiError::NotFound { .. }) => {}
            Err(e) => panic!("{e}"),
        }
    }
    assert!(resolved > 0, "recent transfer commands resolve");
    let err = c
        .send(&validator::transfer_command_status("nobody::1220", 1))
        .await
        .expect_err("unknown sender");
    assert!(matches!(err, ApiError::NotFound { .. }), "{err:?}");
}

/// Checks that exercised node ranges nest (never partially overlap) and cover their nodes.
fn assert_ranges_nest(tree: &ledger::JsTransactionTree) {
    let ranges: Vec<(i32, i32)> = tree
        .nodes_in_order()
        .iter()
        .filter_map(|(_, e)| Some((e.node_id()?, e.last_descendant_node_id()?)))
        .collect();
    for (i, a) in ranges.iter().enumerate() {
        assert!(a.1 >= a.0);
        for b in &ranges[i + 1..] {
            let disjoint = b.0 > a.1;
            let nested = b.0 > a.0 && b.1 <= a.1;
            assert!(disjoint || nested, "{a:?} vs {b:?} in {}", tree.update_id);
        }
    }
}

#[tokio::test]
async fn ledger_endpoints() {
    let d = shared_demo();
    let c = client(d);
    let end = c.send(&ledger::ledger_end()).await.expect("ledger end");
    let end = end.offset.expect("offset");
    assert!(end > 300);

    let items = shared_history(&c).await;
    let parties: Vec<String> = parties_seen(items).into_iter().collect();
    let details = c
        .send(&ledger::parties(&parties[0], &parties[1..3], None))
        .await
        .expect("parties");
    assert!(details.party_details.iter().any(|p| p.party == parties[0]));

    let template = created_events(items)
        .next()
        .expect("created")
        .template_id
        .clone();
    let package_id = template.split(':').next().expect("package id");
    let pkg = c.send(&ledger::package(package_id)).await.expect("package");
    assert!(!pkg.bytes.is_empty());
    assert!(pkg.package_hash.as_deref().is_some_and(|h| !h.is_empty()));

    let trees = c
        .send(&ledger::update_trees(
            &GetUpdatesRequest::for_parties(end - 50, Some(end), &[]),
            None,
            None,
        ))
        .await
        .expect("trees");
    let mut n_trees = 0;
    for item in &trees {
        match &item.update {
            ledger::Update::TransactionTree(t) => {
                assert!(t.offset > end - 50 && t.offset <= end);
                assert_ranges_nest(t);
                n_trees += 1;
            }
            ledger::Update::Reassignment(r) => assert!(!r.events.is_empty()),
            ledger::Update::OffsetCheckpoint(_) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(n_trees > 0);

    let err = c
        .send(&ledger::update_trees(
            &GetUpdatesRequest::for_parties(0, Some(end), &[]),
            None,
            None,
        ))
        .await
        .expect_err("over the list limit");
    assert!(matches!(err, ApiError::TooLarge { .. }), "{err:?}");

    let err = c
        .send(&ledger::update_trees(
            &GetUpdatesRequest::for_parties(-5, Some(end), &[]),
            None,
            None,
        ))
        .await
        .expect_err("negative offset");
    assert!(matches!(err, ApiError::LedgerBadRequest { .. }), "{err:?}");

    let err = c
        .send(&ledger::delete_user("no-such-user-xyz"))
        .await
        .expect_err("missing user");
    match &err {
        ApiError::Ledger { status, error, .. } => {
            assert_eq!(*status, 404);
            assert!(!error.code.is_empty());
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn ledger_auth_failures_never_show_the_token() {
    let d = shared_demo();
    let bad_tokens = [
        "not-a-jwt".to_owned(),
        demo::make_token("ledger-api-user", chrono::Utc::now().timestamp() - 60),
    ];
    for token in bad_tokens {
        let c = ApiClient::new(ApiConfig {
            ledger_url: Some(d.ledger_url.clone()),
            token: Some(TokenSource::Literal(Secret::new(token.clone()))),
            ..ApiConfig::default()
        })
        .expect("client");
        let err = c.send(&ledger::ledger_end()).await.expect_err("401");
        assert!(
            matches!(err, ApiError::Unauthorized { status: 401, .. }),
            "{err:?}"
        );
        let text = format!("{err} {err:?} {c:?}");
        assert!(!text.contains(&token), "{text}");
    }
}

#[tokio::test]
async fn whole_route_missing_is_endpoint_not_served() {
    let d = shared_demo();
    let c = client(d).with_scan_url(&format!("{}/no-such-prefix", d.scan_url));
    let err = c.send(&scan::status()).await.expect_err("404 route");
    assert!(matches!(err, ApiError::EndpointNotServed { .. }), "{err:?}");
    assert!(err.to_string().contains("does not serve this endpoint"));
}

#[tokio::test]
async fn several_scans_and_writes() {
    // Its own network: this test deletes a user and appends a transaction.
    let handle = demo::start(DemoConfig {
        scans: 3,
        ..DemoConfig::default()
    })
    .await
    .expect("demo");
    assert_eq!(handle.scan_urls.len(), 3);
    assert_eq!(handle.scan_urls[0], handle.scan_url);
    let d = Demo {
        scan_url: handle.scan_url.clone(),
        validator_url: handle.validator_url.clone(),
        ledger_url: handle.ledger_url.clone(),
        token: handle.token.clone(),
    };
    let c = client(&d);
    for url in &handle.scan_urls {
        let other = c.with_scan_url(url);
        assert!(matches!(
            other.send(&scan::status()).await.expect("status"),
            scan::NodeStatus::Success(_)
        ));
        let page = other
            .send(&scan::updates(&UpdatesRequest::from_begin(10)))
            .await
            .expect("page");
        assert_eq!(page.transactions.len(), 10);
    }

    // Execute a prepared transaction: it lands on the ledger and in scan history.
    // The submitting party must be hosted here: pick one the ledger reports as local.
    let items = history(&c, 1).await;
    let seen: Vec<String> = parties_seen(&items).into_iter().collect();
    let details = c
        .send(&ledger::parties(
            &seen[0],
            &seen[1..seen.len().min(80)],
            None,
        ))
        .await
        .expect("parties");
    let party = details
        .party_details
        .iter()
        .find(|p| p.is_local)
        .map(|p| p.party.clone())
        .expect("a local party");
    let end_before = c
        .send(&ledger::ledger_end())
        .await
        .expect("end")
        .offset
        .unwrap_or_default();
    let req = ledger::ExecuteRequest {
        prepared_transaction: "CgMyLjESATAaGwoNdHJhbnNhY3Rpb24tMRIKZGVtby10ZXN0".into(),
        party_signatures: ledger::PartySignatures {
            signatures: vec![ledger::SinglePartySignatures {
                party: party.clone(),
                signatures: vec![ledger::Signature {
                    format: "SIGNATURE_FORMAT_CONCAT".into(),
                    signature: "c2lnbmF0dXJl".into(),
                    signed_by: "1220aabbccddeeff".into(),
                    signing_algorithm_spec: "SIGNING_ALGORITHM_SPEC_ED25519".into(),
                }],
            }],
        },
        deduplication_period: Some(ledger::DeduplicationPeriod::DeduplicationDuration {
            value: ledger::Duration {
                seconds: 30,
                nanos: 0,
                unknown_fields: None,
            },
        }),
        submission_id: "api-demo-test-1".into(),
        user_id: None,
        hashing_scheme_version: "HASHING_SCHEME_VERSION_V2".into(),
        min_ledger_time: None,
        transaction_format: None,
        unknown: serde_json::Map::new(),
    };
    let resp = c
        .send(&ledger::execute_and_wait(&req))
        .await
        .expect("execute");
    let tx = &resp.transaction;
    assert!(tx.offset > end_before);
    assert!(!tx.events.is_empty());
    assert!(!tx.update_id.is_empty());
    let mut seen_in_scan = false;
    for _ in 0..50 {
        match c
            .send(&scan::event(&tx.update_id, &ValueEncoding::CompactJson))
            .await
        {
            Ok(ev) => {
                assert_eq!(
                    ev.update.as_ref().and_then(UpdateItem::update_id),
                    Some(tx.update_id.as_str())
                );
                seen_in_scan = true;
                break;
            }
            Err(ApiError::NotFound { .. }) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(seen_in_scan, "the executed transaction shows up in scan");

    let bad = ledger::ExecuteRequest {
        prepared_transaction: String::new(),
        party_signatures: ledger::PartySignatures::default(),
        ..req
    };
    let err = c
        .send(&ledger::execute_and_wait(&bad))
        .await
        .expect_err("invalid body");
    assert_eq!(err.status(), Some(400), "{err:?}");

    // Delete the token's own user last: 200 `{}`, then 404 USER_NOT_FOUND.
    let sub = token_subject(&d.token).expect("demo token has a subject");
    let ok = c.send(&ledger::delete_user(&sub)).await.expect("delete");
    assert!(ok.unknown.is_empty());
    let again = c.send(&ledger::delete_user(&sub)).await.expect_err("gone");
    assert!(
        matches!(&again, ApiError::Ledger { status: 404, error, .. } if error.code == "USER_NOT_FOUND"),
        "{again:?}"
    );
    handle.shutdown().await;
}

fn token_subject(token: &str) -> Option<String> {
    use base64::Engine as _;
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .ok()?;
    let v: BTreeMap<String, serde_json::Value> = serde_json::from_slice(&bytes).ok()?;
    v.get("sub")?.as_str().map(str::to_owned)
}

/// The templates (package names and qualified names) of a ledger answer's tree events.
fn tree_templates(items: &[ledger::JsGetUpdateTreesResponse]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for item in items {
        if let ledger::Update::TransactionTree(t) = &item.update {
            for ev in t.events_by_id.values() {
                let (tpl, name) = match ev {
                    ledger::TreeEvent::CreatedTreeEvent(c) => (&c.template_id, &c.package_name),
                    ledger::TreeEvent::ExercisedTreeEvent(e) => (&e.template_id, &e.package_name),
                    ledger::TreeEvent::Unknown { .. } => continue,
                };
                let qualified = tpl.split_once(':').map_or("", |(_, q)| q);
                out.insert(format!("#{name}:{qualified}"));
            }
        }
    }
    out
}

#[tokio::test]
async fn ledger_template_filters_take_package_names_as_canton_3_5_1_does() {
    let d = shared_demo();
    let c = client(d);
    let end = c
        .send(&ledger::ledger_end())
        .await
        .expect("ledger end")
        .offset
        .expect("offset");
    let (begin, end) = (end - 100, Some(end));
    let license = "#splice-amulet:Splice.ValidatorLicense:ValidatorLicense".to_string();
    // Typed without `#`, the form's reference still names the package.
    assert_eq!(
        ledger::template_filter_ref("splice-amulet:Splice.ValidatorLicense:ValidatorLicense"),
        Ok(license.clone())
    );
    let all = c
        .send(&ledger::update_trees(
            &GetUpdatesRequest::for_parties(begin, end, &[]),
            None,
            None,
        ))
        .await
        .expect("every template");
    let req = GetUpdatesRequest::for_parties_and_templates(
        begin,
        end,
        &[],
        std::slice::from_ref(&license),
    );
    let body = serde_json::to_value(&req).expect("json");
    assert_eq!(
        body["filter"]["filtersForAnyParty"]["cumulative"][0]["identifierFilter"]["TemplateFilter"]
            ["value"]["templateId"],
        serde_json::json!(license),
        "sent as a package-name reference: {body}"
    );
    let some = c
        .send(&ledger::update_trees(&req, None, None))
        .await
        .expect("package-name filter accepted");
    let trees = |items: &[ledger::JsGetUpdateTreesResponse]| {
        items
            .iter()
            .filter(|i| matches!(i.update, ledger::Update::TransactionTree(_)))
            .count()
    };
    assert!(trees(&some) > 0, "licence updates in the last 100 offsets");
    assert!(trees(&some) < trees(&all), "the filter narrows the answer");
    assert!(tree_templates(&some).contains(&license));
    // The same filter on POST /v2/updates (the 3.5 replacement) with parties.
    let parties: Vec<String> = parties_seen(shared_history(&c).await)
        .into_iter()
        .take(40)
        .collect();
    let flat = c
        .send(&ledger::updates(
            &ledger::ledger_effects_request(&GetUpdatesRequest::for_parties_and_templates(
                begin,
                end,
                &parties,
                std::slice::from_ref(&license),
            )),
            None,
            None,
        ))
        .await
        .expect("/v2/updates takes package names too");
    assert!(flat.len() <= all.len());

    // A package-id reference is refused, as a 3.5.1 node does.
    let template_id = created_events(shared_history(&c).await)
        .next()
        .expect("created")
        .template_id
        .clone();
    let package_id = template_id
        .split(':')
        .next()
        .expect("package id")
        .to_string();
    let by_id = format!("{package_id}:Splice.ValidatorLicense:ValidatorLicense");
    let err = ledger::template_filter_ref(&by_id).expect_err("the form refuses package ids");
    assert!(
        err.contains("package id") && err.contains("#package-name"),
        "{err}"
    );
    let err = c
        .send(&ledger::update_trees(
            &GetUpdatesRequest::for_parties_and_templates(begin, end, &[], &[by_id]),
            None,
            None,
        ))
        .await
        .expect_err("package-id reference");
    match &err {
        ApiError::Ledger { status, error, .. } => {
            assert_eq!((*status, error.code.as_str()), (400, "INVALID_ARGUMENT"));
            assert!(error.cause.contains("package-name"), "{}", error.cause);
        }
        other => panic!("{other:?}"),
    }
    // An unknown package name, and an unknown template of a known package: not found.
    for (t, code) in [
        ("#no-such-package:A:B", "PACKAGE_NAMES_NOT_FOUND"),
        (
            "#splice-amulet:Splice.Amulet:NoSuch",
            "TEMPLATES_OR_INTERFACES_NOT_FOUND",
        ),
    ] {
        let err = c
            .send(&ledger::update_trees(
                &GetUpdatesRequest::for_parties_and_templates(begin, end, &[], &[t.to_string()]),
                None,
                None,
            ))
            .await
            .expect_err(t);
        match &err {
            ApiError::Ledger { status, error, .. } => {
                assert_eq!((*status, error.code.as_str()), (404, code), "{t}");
            }
            other => panic!("{t}: {other:?}"),
        }
    }
}

/// `/v0/dso` of the default demo: the first scan's SV, the DSO's 4 SVs with their current
/// reward weights (those of the last accepted votes), the threshold Splice derives, the newest
/// open round and the rules contracts.
#[tokio::test]
async fn scan_dso_is_the_ledgers_dso() {
    let d = shared_demo();
    let c = client(d);
    let info = c.send(&scan::dso()).await.expect("dso");
    let ledger = demo::generate(DemoConfig::default().seed);
    let listed = c.send(&scan::scans()).await.expect("scans");
    assert_eq!(info.dso_party_id, ledger.dso_party());
    assert_eq!(info.svs.len(), 4);
    assert_eq!(info.voting_threshold, Some(3));
    assert_eq!(info.initial_round, Some(0));
    let own = info.own_sv().expect("the scan's SV is listed");
    assert_eq!(own.name, listed.scans[0].scans[0].sv_name);
    assert_eq!(own.party, ledger.sv_parties()[0]);
    assert_eq!(info.sv_user.len(), 36, "{}", info.sv_user);
    // Reward weights are the DSO rules' current ones: the last accepted change of each SV.
    let changes = ledger.weight_changes();
    assert!(!changes.is_empty(), "the history has accepted votes");
    for sv in &info.svs {
        assert_eq!(sv.participant_id, format!("PAR::{}", sv.party));
        assert_eq!(sv.joined_as_of_round, Some(0));
        let last = changes
            .iter()
            .rev()
            .find(|w| ledger.party_id(w.sv) == sv.party)
            .map(|w| w.weight.parse::<i64>().expect("a weight"));
        if let Some(weight) = last {
            assert_eq!(sv.reward_weight, Some(weight), "{}", sv.name);
        } else {
            assert!(sv.reward_weight.is_some_and(|w| w > 0), "{}", sv.name);
        }
    }
    // The newest open round, as /v0/open-and-issuing-mining-rounds has it.
    let rounds = c
        .send(&scan::open_and_issuing_mining_rounds(
            &scan::MiningRoundsRequest::default(),
        ))
        .await
        .expect("rounds");
    assert_eq!(info.latest_round(), rounds.newest_open_round());
    // The rules contracts are the ledger's active ones.
    let rules = info.dso_rules.to_value().expect("dso_rules");
    assert!(
        rules["contract"]["template_id"]
            .as_str()
            .is_some_and(|t| t.ends_with(":Splice.DsoRules:DsoRules")),
        "{rules}"
    );
    let rules_cid = rules["contract"]["contract_id"].as_str().expect("an id");
    let amulet = info.amulet_rules.to_value().expect("amulet_rules");
    assert_eq!(
        amulet["contract"]["contract_id"].as_str(),
        ledger.amulet_rules_cid()
    );
    let created: BTreeSet<String> = created_events(shared_history(&c).await)
        .map(|e| e.contract_id.clone())
        .collect();
    assert!(
        created.contains(rules_cid),
        "the DsoRules contract is in the history"
    );
    // One node state per SV, naming the SV, with the scan's URL for the SV that has one.
    let states = info.sv_node_states.to_value().expect("states");
    let states = states.as_array().expect("an array");
    assert_eq!(states.len(), 4);
    for (state, sv) in states.iter().zip(&info.svs) {
        let payload = &state["contract"]["payload"];
        assert_eq!(payload["sv"], sv.party.as_str());
        assert_eq!(payload["svName"], sv.name.as_str());
    }
    let node = &states[0]["contract"]["payload"]["state"]["synchronizerNodes"][0][1];
    assert_eq!(
        node["scan"]["publicUrl"],
        listed.scans[0].scans[0].public_url.as_str()
    );
    assert!(states[1]["contract"]["payload"]["state"]["synchronizerNodes"][0][1]["scan"].is_null());
}

/// 13 scans: each scan's `/v0/dso` names its own SV, a different one for each, the SV that
/// `/v0/scans` lists under that scan's URL; every scan lists the same 13 SVs of the DSO.
#[tokio::test]
async fn scan_dso_names_each_scans_own_sv() {
    let handle = demo::start(
        DemoConfig {
            stagger: false,
            ..DemoConfig::default()
        }
        .with_total_scans(13),
    )
    .await
    .expect("demo");
    assert_eq!(handle.scan_urls.len(), 13);
    let c = ApiClient::new(ApiConfig {
        scan_url: Some(handle.scan_url.clone()),
        ..ApiConfig::default()
    })
    .expect("client");
    let listed = c.send(&scan::scans()).await.expect("scans");
    let listed = &listed.scans[0].scans;
    assert_eq!(listed.len(), 13);
    let mut parties = BTreeSet::new();
    let mut rules = BTreeSet::new();
    for url in &handle.scan_urls {
        let info = c
            .with_scan_url(url)
            .send(&scan::dso())
            .await
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        assert_eq!(info.svs.len(), 13, "{url}");
        assert_eq!(info.voting_threshold, Some(9), "{url}");
        let own = info
            .own_sv()
            .unwrap_or_else(|| panic!("{url}: own SV listed"));
        let entry = listed
            .iter()
            .find(|s| &s.public_url == url)
            .unwrap_or_else(|| panic!("{url} is listed"));
        assert_eq!(own.name, entry.sv_name, "{url}");
        assert!(
            parties.insert(own.party.clone()),
            "{url}: {} twice",
            own.party
        );
        let names: BTreeSet<&str> = info.svs.iter().map(|sv| sv.name.as_str()).collect();
        let scan_names: BTreeSet<&str> = listed.iter().map(|s| s.sv_name.as_str()).collect();
        assert_eq!(names, scan_names, "{url}");
        assert!(
            info.svs
                .iter()
                .all(|sv| sv.reward_weight.is_some_and(|w| w > 0))
        );
        let value = info.dso_rules.to_value().expect("rules");
        rules.insert(value["contract"]["contract_id"].as_str().map(str::to_owned));
        assert_eq!(
            info.sv_node_states
                .to_value()
                .expect("states")
                .as_array()
                .map(Vec::len),
            Some(13)
        );
    }
    assert_eq!(parties.len(), 13);
    assert_eq!(rules.len(), 1, "one DsoRules contract: {rules:?}");
    handle.shutdown().await;
}

/// `GET /v0/events/latest-record-time` (Splice 0.8+): served by every scan of the demo but the
/// last of several, which answers as an older scan does (the path read as
/// `/v0/events/{update_id}`: 404). The answer is the head of the verdict ingestion: a record
/// time the scan's `/v0/events` answers for, at or before its newest update's (not the
/// `/v2/updates` head itself). Absent reads as `None`, not as an error.
#[tokio::test]
async fn latest_event_record_time_is_served_by_new_scans_and_absent_on_old_ones() {
    use cantonscope::api::scan::events_head::{is_absent, or_absent};
    let handle = demo::start(DemoConfig {
        scans: 3,
        ..DemoConfig::default()
    })
    .await
    .expect("demo");
    let d = Demo {
        scan_url: handle.scan_url.clone(),
        validator_url: handle.validator_url.clone(),
        ledger_url: handle.ledger_url.clone(),
        token: handle.token.clone(),
    };
    let c = client(&d);
    let call = scan::latest_event_record_time();
    let first = or_absent(c.send(&call).await)
        .expect("no error")
        .expect("scan 1 serves it");
    let at = cantonscope::model::summary::parse_time_micros(&first.record_time).expect("a time");
    // Not after the newest update of its history, and /v0/events answers for an update at it.
    let mut head = None;
    let mut page = c
        .send(&scan::updates(&UpdatesRequest::from_begin(1000)))
        .await
        .expect("page");
    while let Some(last) = page.transactions.last().cloned() {
        head = Some(last.clone());
        if page.transactions.len() < 1000 {
            break;
        }
        let req = UpdatesRequest::after(
            1000,
            last.migration_id().expect("migration"),
            last.record_time().expect("time").to_owned(),
        );
        page = c.send(&scan::updates(&req)).await.expect("page");
    }
    let head = head.expect("history");
    let head_at = cantonscope::model::summary::parse_time_micros(head.record_time().unwrap())
        .expect("head time");
    assert!(
        at <= head_at,
        "{} after the head {head_at}",
        first.record_time
    );
    assert!(
        head_at - at < 600_000_000,
        "the verdicts trail the updates a little: {} vs {head_at}",
        first.record_time
    );
    // The last scan is older: 404 from the events-by-id route, read as absent.
    let old = c.with_scan_url(&handle.scan_urls[2]);
    let err = old.send(&call).await.expect_err("an old scan");
    assert!(is_absent(&err), "{err:?}");
    assert!(
        err.to_string().contains("latest-record-time"),
        "the events-by-id route's answer: {err}"
    );
    assert_eq!(or_absent(Err(err)).expect("absent is no error"), None);
    // A scan that does not answer is an error, not "absent".
    let down = c.with_scan_url("http://127.0.0.1:9");
    assert!(or_absent(down.send(&call).await).is_err());
    handle.shutdown().await;
}
