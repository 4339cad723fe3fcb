//! Decoding of real recorded responses (`../shared/samples`, skipped when absent) and tolerance of
//! odd data: explicit nulls, unknown fields, string `exercise_result`, malformed items in a page,
//! and decode errors that name the endpoint, the JSON path and the expectation.

use cantonscope::api::call::{RawResponse, ResponseParts};
use cantonscope::api::json::RawJson;
use cantonscope::api::ledger::{self, JsCantonError, JsTransaction, JsTransactionTree};
use cantonscope::api::scan::{
    self, EventHistoryItem, HoldingsSummaryResponse, NodeStatus, ReassignmentEvent, TreeEvent,
    UpdateItem, UpdateKind, UpdatesPage, ValidatorFaucets, Version,
};
use cantonscope::api::validator::{self, ContractWithState};
use cantonscope::api::{ApiError, Call};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use std::path::PathBuf;

fn samples_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/samples");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipping: sample folder {} is absent", dir.display());
        None
    }
}

fn sample(dir: &std::path::Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("read sample {name}: {e}"))
}

fn decode<T: DeserializeOwned>(bytes: &[u8], what: &str) -> T {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(&mut de)
        .unwrap_or_else(|e| panic!("{what}: decode failed at {}: {}", e.path(), e.inner()))
}

/// Runs a call's own decoder over `body`, as the client does after a 200.
fn run_decoder<T>(call: &Call<T>, body: &[u8]) -> Result<T, ApiError> {
    call.decode_response(200, &[], body)
}

fn assert_tree_consistent(tx: &scan::Transaction) {
    // Every root and child id resolves, and the walk visits every event once.
    let walked: Vec<_> = tx.walk().collect();
    assert!(
        walked.iter().all(|w| w.event.is_some()),
        "unresolved id in {}",
        tx.update_id
    );
    assert_eq!(
        walked.len(),
        tx.events_by_id.len(),
        "walk covers all events"
    );
    for w in &walked {
        if let Some(ev) = w.event {
            assert_eq!(scan::strip_hash(ev.event_id()), scan::strip_hash(w.id));
        }
    }
}

#[test]
fn scan_update_pages_decode() {
    let Some(dir) = samples_dir() else { return };
    for name in [
        "scan-mainnet-POST-v2-updates-page_size25-from-ledger-begin.json",
        "scan-mainnet-POST-v2-updates-page_size1-from-ledger-begin.json",
    ] {
        let bytes = sample(&dir, name);
        let page = run_decoder(
            &scan::updates(&scan::UpdatesRequest::from_begin(25)),
            &bytes,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!page.transactions.is_empty(), "{name}");
        assert_eq!(page.malformed_count(), 0, "{name}");
        for item in &page.transactions {
            let tx = item
                .as_transaction()
                .expect("MainNet genesis items are transactions");
            assert!(tx.update_id.starts_with("1220"));
            assert_tree_consistent(tx);
            // Lossless: the item re-serialises to the server's JSON value.
            let back: serde_json::Value =
                serde_json::from_str(&serde_json::to_string(item).expect("ser")).expect("json");
            let orig: serde_json::Value = serde_json::from_str(item.raw().get()).expect("json");
            assert_eq!(back, orig);
        }
        let all: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
        let back = serde_json::to_value(&page).expect("ser");
        assert_eq!(all, back, "{name}: page re-serialises losslessly");
    }

    // The 25-page holds the enum-like string exercise_result of DsoBootstrap_Bootstrap.
    let page: UpdatesPage = decode(
        &sample(
            &dir,
            "scan-mainnet-POST-v2-updates-page_size25-from-ledger-begin.json",
        ),
        "page",
    );
    let string_result = page
        .transactions
        .iter()
        .filter_map(UpdateItem::as_transaction)
        .flat_map(|t| t.events_by_id.values())
        .find_map(|e| match e {
            TreeEvent::Exercised(x) => x.exercise_result.as_str(),
            _ => None,
        });
    assert_eq!(
        string_result.as_deref(),
        Some("DsoBootstrap_BootstrapResult")
    );
}

#[test]
fn scan_single_items_decode() {
    let Some(dir) = samples_dir() else { return };
    let by_id = sample(&dir, "scan-mainnet-GET-v2-updates-by-update_id.json");
    let item = run_decoder(
        &scan::update_by_hash("h", &scan::ValueEncoding::CompactJson),
        &by_id,
    )
    .expect("bare update item decodes");
    assert_eq!(item.kind(), UpdateKind::Transaction);
    assert_tree_consistent(item.as_transaction().expect("tx"));

    let ev = sample(&dir, "scan-mainnet-GET-v0-events-by-update_id.json");
    let item: EventHistoryItem =
        run_decoder(&scan::event("x", &scan::ValueEncoding::CompactJson), &ev)
            .expect("event decodes");
    assert!(item.verdict.is_none(), "0.5.5 sends verdict: null");
    assert!(item.traffic_summary.is_none());
    let tx = item
        .update
        .as_ref()
        .and_then(UpdateItem::as_transaction)
        .expect("tx");
    let roots: Vec<_> = tx.root_events().collect();
    assert_eq!(roots.len(), tx.root_event_ids.len());

    // POST /v0/events items have the same shape as GET /v0/events/{id}.
    #[derive(Deserialize)]
    struct Events {
        events: Vec<EventHistoryItem>,
    }
    let events: Events = decode(
        &sample(
            &dir,
            "scan-mainnet-POST-v0-events-page_size25-from-ledger-begin.json",
        ),
        "v0 events page",
    );
    assert_eq!(events.events.len(), 25);
    for e in &events.events {
        assert!(matches!(e.update, Some(UpdateItem::Transaction(_))));
    }
}

#[test]
fn scan_small_endpoints_decode() {
    let Some(dir) = samples_dir() else { return };
    let status = run_decoder(
        &scan::status(),
        &sample(&dir, "scan-mainnet-GET-status.json"),
    )
    .expect("status");
    match status {
        NodeStatus::Success(s) => {
            assert_eq!(s.id, "amulet::scan-app");
            assert!(s.active);
            assert_eq!(s.ports.get("admin"), Some(&5012));
            assert_eq!(s.extra, None, "extra: null");
        }
        other => panic!("expected success, got {other:?}"),
    }
    let v: Version = run_decoder(
        &scan::version(),
        &sample(&dir, "scan-mainnet-GET-version.json"),
    )
    .expect("version");
    assert_eq!(v.version, "0.5.5");

    let f: ValidatorFaucets = run_decoder(
        &scan::validator_faucets(&[]),
        &sample(
            &dir,
            "scan-mainnet-GET-v0-validators-validator-faucets.json",
        ),
    )
    .expect("faucets");
    assert_eq!(f.validators_received_faucets.len(), 10);
    // MainNet reports a validator that never collected as all zeros; the others obey
    // collected + missed = last - first + 1.
    let zeros = f
        .validators_received_faucets
        .iter()
        .filter(|v| v.num_rounds_collected == 0)
        .count();
    assert_eq!(zeros, 1);
    for v in f
        .validators_received_faucets
        .iter()
        .filter(|v| v.num_rounds_collected > 0)
    {
        assert_eq!(
            v.num_rounds_collected + v.num_rounds_missed,
            v.last_collected_in_round - v.first_collected_in_round + 1,
            "MainNet faucet arithmetic for {}",
            v.validator
        );
    }

    // The v0 holdings summary has extra fee fields: they are kept.
    let h: HoldingsSummaryResponse = run_decoder(
        &scan::holdings_summary(&scan::HoldingsSummaryRequest {
            migration_id: 4,
            record_time: "2026-01-30T06:00:00Z".into(),
            record_time_match: None,
            owner_party_ids: vec!["p".into()],
        }),
        &sample(&dir, "scan-mainnet-POST-v0-holdings-summary.json"),
    )
    .expect("holdings");
    assert_eq!(h.migration_id, 4);
    assert_eq!(h.summaries[0].total_unlocked_coin, "1361296.3926166390");
    assert!(h.unknown.contains_key("computed_as_of_round"));
    assert!(h.summaries[0].unknown.contains_key("total_available_coin"));

    // ACS created events use `#`-prefixed ids.
    #[derive(Deserialize)]
    struct Acs {
        created_events: Vec<scan::CreatedEvent>,
    }
    let acs: Acs = decode(&sample(&dir, "scan-mainnet-POST-v0-state-acs.json"), "acs");
    let first = &acs.created_events[0];
    assert!(first.event_id.starts_with('#'));
    assert_eq!(scan::event_index(&first.event_id), Some(0));
    assert!(!scan::strip_hash(&first.event_id).starts_with('#'));
}

/// The MainNet `/v0/dso`: 13 SVs with their names and reward weights, the asked scan's SV
/// among them, and every SV name is one `/v0/scans` lists.
#[test]
fn scan_dso_decodes_with_its_svs() {
    let Some(dir) = samples_dir() else { return };
    let info =
        run_decoder(&scan::dso(), &sample(&dir, "scan-mainnet-GET-v0-dso.json")).expect("dso");
    assert_eq!(info.svs.len(), 13);
    assert_eq!(info.voting_threshold, Some(9));
    assert_eq!(info.initial_round, Some(0));
    assert!(
        info.dso_party_id.starts_with("DSO::1220b143"),
        "{}",
        info.dso_party_id
    );
    let own = info.own_sv().expect("the scan's SV is listed");
    assert_eq!(own.name, "Global-Synchronizer-Foundation");
    assert_eq!(own.party, info.sv_party_id);
    assert_eq!(own.reward_weight, Some(1_855_000));
    let first = &info.svs[0];
    assert_eq!(first.name, "C7-Technology-Services-Limited");
    assert_eq!(first.reward_weight, Some(105_750));
    assert_eq!(first.joined_as_of_round, Some(28_175));
    assert_eq!(first.participant_id, format!("PAR::{}", first.party));
    assert!(
        info.svs
            .iter()
            .all(|sv| { !sv.name.is_empty() && sv.party.starts_with(&format!("{}::", sv.name)) })
    );
    let weights: i64 = info.svs.iter().filter_map(|sv| sv.reward_weight).sum();
    assert_eq!(weights, 3_097_000);
    assert_eq!(info.latest_round().map(|r| r.number), Some(81_325));
    // Every SV of the DSO is a scan of /v0/scans, by name.
    #[derive(Deserialize)]
    struct Scans {
        scans: Vec<scan::DomainScans>,
    }
    let scans: Scans = decode(&sample(&dir, "scan-mainnet-GET-v0-scans.json"), "scans");
    let mut listed: Vec<&str> = scans.scans[0]
        .scans
        .iter()
        .map(|s| s.sv_name.as_str())
        .collect();
    let mut names: Vec<&str> = info.svs.iter().map(|sv| sv.name.as_str()).collect();
    listed.sort_unstable();
    names.sort_unstable();
    assert_eq!(listed, names);
    // The contracts are kept whole: the DSO rules' config for governance views.
    let rules = info.dso_rules.to_value().expect("dso_rules");
    assert_eq!(
        rules["contract"]["payload"]["config"]["maxTextLength"],
        "1024"
    );
    assert_eq!(
        info.sv_node_states
            .to_value()
            .expect("states")
            .as_array()
            .map(Vec::len),
        Some(13)
    );
    assert!(!info.amulet_rules.is_null());
}

#[test]
fn validator_contracts_decode() {
    let Some(dir) = samples_dir() else { return };
    #[derive(Deserialize)]
    struct Rounds {
        open_mining_rounds: Vec<ContractWithState>,
        issuing_mining_rounds: Vec<ContractWithState>,
    }
    let r: Rounds = decode(
        &sample(
            &dir,
            "validator-devnet-GET-v0-scan-proxy-open-and-issuing-mining-rounds.json",
        ),
        "rounds",
    );
    assert!(!r.open_mining_rounds.is_empty());
    for c in r.open_mining_rounds.iter().chain(&r.issuing_mining_rounds) {
        assert!(c.contract.template_id.contains(":Splice.Round:"));
        assert!(c.contract.payload.get().starts_with('{'));
        assert!(c.domain_id.is_some());
    }
}

#[test]
fn ledger_samples_decode() {
    let Some(dir) = samples_dir() else { return };
    #[derive(Deserialize)]
    struct TreeResp {
        transaction: JsTransactionTree,
    }
    let t: TreeResp = decode(
        &sample(
            &dir,
            "ledger-devnet-GET-v2-updates-transaction-tree-by-offset-JsGetTransactionTreeResponse.json",
        ),
        "tree",
    );
    let tree = t.transaction;
    assert_eq!(tree.offset, 4086);
    let ids: Vec<i64> = tree.nodes_in_order().iter().map(|(n, _)| *n).collect();
    assert_eq!(
        ids,
        vec![0, 2, 6, 7, 8, 9, 10],
        "node ids with gaps, numeric order"
    );
    match tree.node(0) {
        Some(ledger::TreeEvent::ExercisedTreeEvent(e)) => {
            assert_eq!(e.last_descendant_node_id, 10);
            assert_eq!(e.interface_id, None);
            assert_eq!(e.acs_delta, None, "3.3 data has no acsDelta");
        }
        other => panic!("node 0: {other:?}"),
    }

    #[derive(Deserialize)]
    struct TxResp {
        transaction: JsTransaction,
    }
    let t: TxResp = decode(
        &sample(
            &dir,
            "ledger-devnet-POST-v2-updates-transaction-by-offset-JsGetTransactionResponse.json",
        ),
        "flat tx",
    );
    assert!(matches!(
        t.transaction.events.first(),
        Some(ledger::Event::ArchivedEvent(_))
    ));
    assert!(
        t.transaction
            .events
            .iter()
            .any(|e| matches!(e, ledger::Event::CreatedEvent(_)))
    );

    let item: ledger::JsGetUpdateTreesResponse = decode(
        &sample(
            &dir,
            "ledger-localnet-v2-updates-item-Transaction-ledger-effects-1-step-transfer.json",
        ),
        "updates item",
    );
    match &item.update {
        ledger::Update::Transaction(tx) => assert!(
            tx.events
                .iter()
                .any(|e| matches!(e, ledger::Event::ExercisedEvent(_)))
        ),
        other => panic!("expected Transaction, got {other:?}"),
    }

    for name in [
        "ledger-devnet-error-NON_POSITIVE_OFFSET-sdk-wrapped.json",
        "ledger-devnet-error-TRANSACTION_NOT_FOUND-sdk-wrapped.json",
    ] {
        #[derive(Deserialize)]
        struct Wrapped {
            details: Details,
        }
        #[derive(Deserialize)]
        struct Details {
            response: JsCantonError,
        }
        let w: Wrapped = decode(&sample(&dir, name), name);
        assert!(!w.details.response.code.is_empty());
        assert!(
            w.details.response.correlation_id.is_none(),
            "null correlationId"
        );
        assert!(w.details.response.grpc_code_value.is_some());
    }
}

// ---------------------------------------------------------------------------------------------
// Tolerance, hand-written JSON
// ---------------------------------------------------------------------------------------------

/// A transaction with explicit nulls, unknown fields and a string `exercise_result`.
const TX: &str = include_str!("../fixtures/scan_update_odd.json");

#[test]
fn explicit_nulls_unknown_fields_and_string_results() {
    let item: UpdateItem = serde_json::from_str(TX).expect("decodes");
    let tx = item.as_transaction().expect("transaction");
    assert_eq!(tx.workflow_id, "", "null workflow_id");
    assert_eq!(tx.external_transaction_hash, None);
    // Tree order: children as listed (":10" before ":2"), not key order.
    let order: Vec<&str> = tx.walk().map(|w| w.id).collect();
    assert_eq!(order, vec!["1220aa:0", "1220aa:10", "1220aa:2"]);
    let depths: Vec<usize> = tx.walk().map(|w| w.depth).collect();
    assert_eq!(depths, vec![0, 1, 1]);
    match tx.event("1220aa:0") {
        Some(TreeEvent::Exercised(e)) => {
            assert_eq!(
                e.exercise_result.as_str().as_deref(),
                Some("SomeEnumResult")
            );
            assert_eq!(e.choice_argument.get(), r#"{"amount": "12.5000000000"}"#);
            assert_eq!(e.interface_id, None);
        }
        other => panic!("{other:?}"),
    }
    match tx.event("#1220aa:10") {
        Some(TreeEvent::Created(c)) => assert!(c.observers.is_empty(), "null observers"),
        other => panic!("{other:?}"),
    }
    match tx.event("1220aa:2") {
        Some(TreeEvent::Unknown {
            event_type, raw, ..
        }) => {
            assert_eq!(event_type, "archived_event_v9");
            assert!(
                raw.get().contains("\"mystery\": 42"),
                "unknown event kept raw"
            );
        }
        other => panic!("{other:?}"),
    }
    // Re-serialised output holds every unknown field.
    let out = serde_json::to_string(&item).expect("ser");
    for needle in ["brand_new_field", "future_event_field", "mystery"] {
        assert!(out.contains(needle), "{needle} kept");
    }
    let a: serde_json::Value = serde_json::from_str(TX).expect("json");
    let b: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(a, b);
}

#[test]
fn reassignments_decode_untagged() {
    let page = format!(
        r#"{{"transactions": [
        {{"update_id": "1220u1", "offset": "000000000000000123", "record_time": "2026-01-01T00:00:01Z",
          "event": {{"submitter": "alice::1220", "source_synchronizer": "global::1", "target_synchronizer": "other::2",
                    "migration_id": 4, "unassign_id": "un-1", "reassignment_counter": 3, "contract_id": "00c9"}}}},
        {{"update_id": "1220u2", "offset": 124, "record_time": "2026-01-01T00:00:02Z",
          "event": {{"submitter": "alice::1220", "source_synchronizer": "global::1", "target_synchronizer": "other::2",
                    "migration_id": 4, "unassign_id": "un-1", "reassignment_counter": 3,
                    "created_event": {{"event_type": "created_event", "event_id": "1220u2:0", "contract_id": "00c9",
                      "template_id": "p:M:T", "package_name": "x", "create_arguments": {{}}, "created_at": "t",
                      "signatories": [], "observers": []}}}}}},
        {TX}
    ]}}"#
    );
    let page: UpdatesPage = serde_json::from_str(&page).expect("page");
    let kinds: Vec<UpdateKind> = page.transactions.iter().map(UpdateItem::kind).collect();
    assert_eq!(
        kinds,
        vec![
            UpdateKind::Unassign,
            UpdateKind::Assign,
            UpdateKind::Transaction
        ]
    );
    let un = page.transactions[0].as_reassignment().expect("r");
    assert_eq!(un.offset, "000000000000000123");
    assert_eq!(
        page.transactions[1].as_reassignment().expect("r").offset,
        "124"
    );
    match (
        &un.event,
        &page.transactions[1].as_reassignment().expect("r").event,
    ) {
        (ReassignmentEvent::Unassign(u), ReassignmentEvent::Assign(a)) => {
            assert_eq!(u.unassign_id, a.unassign_id);
            assert_eq!(u.reassignment_counter, a.reassignment_counter);
            assert_eq!(u.contract_id, a.created_event.contract_id);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(page.transactions[0].migration_id(), Some(4));
    let next = page.next_after().expect("cursor");
    assert_eq!(next.after_migration_id, 3);
}

#[test]
fn one_malformed_item_never_fails_a_page() {
    let bad = TX.replace(r#""migration_id": 3"#, r#""migration_id": "three""#);
    let body = format!(
        r#"{{"transactions": [{TX}, {bad}, {{"neither": true}}, {TX}], "unknown_top": 1}}"#
    );
    let page = run_decoder(
        &scan::updates(&scan::UpdatesRequest::from_begin(10)),
        body.as_bytes(),
    )
    .expect("page decodes");
    assert_eq!(page.transactions.len(), 4);
    assert_eq!(page.malformed_count(), 2);
    match &page.transactions[1] {
        UpdateItem::Malformed { error, raw } => {
            assert_eq!(error.path, "transactions[1].migration_id");
            assert!(error.detail.contains("integer"), "{}", error.detail);
            assert!(raw.get().contains("three"), "raw kept");
        }
        other => panic!("{other:?}"),
    }
    match &page.transactions[2] {
        UpdateItem::Malformed { error, .. } => {
            assert_eq!(error.path, "transactions[2]");
            assert!(error.detail.contains("neither a transaction"));
        }
        other => panic!("{other:?}"),
    }
    // Deep errors name the full path.
    let deep = TX.replace(r#""consuming": false"#, r#""consuming": "no""#);
    let page: UpdatesPage =
        serde_json::from_str(&format!(r#"{{"transactions": [{deep}]}}"#)).expect("page");
    match &page.transactions[0] {
        UpdateItem::Malformed { error, .. } => {
            assert_eq!(
                error.path,
                "transactions[0].events_by_id.1220aa:0.consuming"
            );
            assert!(
                error.detail.contains("expected a boolean"),
                "{}",
                error.detail
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn decode_errors_name_endpoint_path_and_expectation() {
    let err = run_decoder(
        &scan::status(),
        br#"{"success": {"id": "x", "active": "yes"}}"#,
    )
    .expect_err("bad bool");
    match &err {
        ApiError::Decode {
            endpoint,
            path,
            detail,
        } => {
            assert_eq!(*endpoint, "scan GET /status");
            assert_eq!(path, "success.active");
            assert!(detail.contains("expected a boolean"), "{detail}");
        }
        other => panic!("{other:?}"),
    }
    let line = err.to_string();
    assert!(line.contains("scan GET /status") && line.contains("success.active"));
    assert_eq!(err.exit_code(), 4);

    // Nested raw-backed types merge their paths.
    let err = run_decoder(
        &validator::amulet_rules(),
        br#"{"amulet_rules": {"contract": {"template_id": 5}}}"#,
    )
    .expect_err("bad template id");
    match &err {
        ApiError::Decode { path, detail, .. } => {
            assert_eq!(path, "amulet_rules.contract.template_id");
            assert!(detail.contains("expected a string"), "{detail}");
        }
        other => panic!("{other:?}"),
    }

    // A single update that is malformed is a decode error (not a page).
    let err = run_decoder(
        &scan::update_by_hash("h", &scan::ValueEncoding::CompactJson),
        br#"{"update_id": "x", "events_by_id": [], "root_event_ids": []}"#,
    )
    .expect_err("events_by_id must be an object");
    assert!(matches!(&err, ApiError::Decode { path, .. } if path == "events_by_id"));

    let err = run_decoder(&ledger::ledger_end(), b"not json").expect_err("not json");
    assert!(matches!(err, ApiError::Decode { .. }));
}

#[test]
fn event_history_nulls_and_unknowns() {
    let body = format!(
        r#"{{"update": {TX}, "verdict": {{"update_id": "1220aa", "migration_id": 3, "domain_id": "d",
            "record_time": "t1", "finalization_time": "t2", "submitting_parties": ["a"],
            "submitting_participant_uid": "PAR::p", "verdict_result": "VERDICT_RESULT_REJECTED",
            "mediator_group": 0, "transaction_views": {{"views": [{{"view_id": 0, "informees": ["a"],
            "confirming_parties": [{{"parties": ["a"], "threshold": 1}}], "sub_views": [1], "view_hash": null}}],
            "root_views": [0]}}, "new_verdict_field": 1}},
            "traffic_summary": null, "app_activity_records": {{"round_number": "7", "records": [{{"party": "a", "weight": 3}}]}},
            "future": "x"}}"#
    );
    let item = run_decoder(
        &scan::event("1220aa", &scan::ValueEncoding::CompactJson),
        body.as_bytes(),
    )
    .expect("event");
    let v = item.verdict.as_ref().expect("verdict");
    assert_eq!(v.verdict_result, scan::VerdictResult::Rejected);
    assert_eq!(v.transaction_views.views[0].view_hash, "");
    assert!(v.unknown.contains_key("new_verdict_field"));
    assert!(item.traffic_summary.is_none());
    assert_eq!(
        item.app_activity_records
            .as_ref()
            .expect("aar")
            .round_number,
        7
    );
    let out = serde_json::to_string(&item).expect("ser");
    assert!(out.contains("\"future\"") && out.contains("new_verdict_field"));
}

#[test]
fn ledger_tolerance() {
    let body = br#"[
      {"update": {"OffsetCheckpoint": {"value": {"offset": 7, "synchronizerTimes": [{"synchronizerId": "s", "recordTime": "t"}]}}}},
      {"update": {"TransactionTree": {"value": {"updateId": "1220", "effectiveAt": "t", "offset": 8,
         "synchronizerId": "s", "recordTime": "t", "traceContext": {"traceparent": "00-1", "tracestate": null},
         "eventsById": {
           "0": {"ExercisedTreeEvent": {"value": {"offset": 8, "nodeId": 0, "contractId": "c", "templateId": "p:M:T",
                 "choice": "Go", "choiceArgument": {}, "actingParties": ["a"], "consuming": true, "witnessParties": ["a"],
                 "lastDescendantNodeId": 3, "exerciseResult": "text", "packageName": "x", "implementedInterfaces": null}}},
           "3": {"CreatedTreeEvent": {"value": {"offset": 8, "nodeId": 3, "contractId": "c2", "templateId": "p:M:T",
                 "createArgument": {"k": 1}, "witnessParties": ["a"], "signatories": ["a"], "createdAt": "t",
                 "packageName": "x", "representativePackageId": "p", "acsDelta": true, "newField": 1}}},
           "4": {"FutureTreeEvent": {"value": {"nodeId": 4}}}
         }, "extraTreeField": [1]}}}},
      {"update": {"TopologyTransaction": {"value": {"offset": 9}}}}
    ]"#;
    let items = run_decoder(
        &ledger::update_trees(&ledger::GetUpdatesRequest::default(), None, None),
        body,
    )
    .expect("trees");
    assert!(matches!(items[0].update, ledger::Update::OffsetCheckpoint(ref c) if c.offset == 7));
    let ledger::Update::TransactionTree(tree) = &items[1].update else {
        panic!("tree expected")
    };
    assert_eq!(
        tree.trace_context
            .as_ref()
            .and_then(|t| t.tracestate.clone()),
        None
    );
    match tree.node(0) {
        Some(ledger::TreeEvent::ExercisedTreeEvent(e)) => {
            assert_eq!(e.exercise_result.as_str().as_deref(), Some("text"));
            assert!(e.implemented_interfaces.is_empty());
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(tree.node(4), Some(ledger::TreeEvent::Unknown { kind, .. }) if kind == "FutureTreeEvent")
    );
    assert!(tree.raw.get().contains("extraTreeField"));
    assert!(
        matches!(&items[2].update, ledger::Update::Unknown { kind, .. } if kind == "TopologyTransaction")
    );
    let out = serde_json::to_string(&items).expect("ser");
    for needle in [
        "extraTreeField",
        "newField",
        "FutureTreeEvent",
        "TopologyTransaction",
    ] {
        assert!(out.contains(needle), "{needle}");
    }

    // The execute request checks required fields and keeps unknown ones.
    let req: Result<ledger::ExecuteRequest, _> =
        serde_json::from_str(r#"{"preparedTransaction": "AA=="}"#);
    let err = req.expect_err("missing fields");
    assert!(err.to_string().contains("partySignatures"), "{err}");
    let ok: ledger::ExecuteRequest = serde_json::from_str(
        r#"{"preparedTransaction": "AA==", "partySignatures": {"signatures": []},
            "submissionId": "s", "hashingSchemeVersion": "HASHING_SCHEME_VERSION_V2",
            "deduplicationPeriod": {"DeduplicationDuration": {"value": {"seconds": 30, "nanos": 0}}},
            "someFutureField": {"x": 1}}"#,
    )
    .expect("valid");
    let out = serde_json::to_string(&ok).expect("ser");
    assert!(out.contains("someFutureField") && out.contains("DeduplicationDuration"));
}

#[test]
fn raw_json_helpers() {
    let r = RawJson::from_string(r#" {"a": [1, "x"]} "#.trim().to_owned()).expect("valid");
    assert_eq!(r.to_value().expect("v")["a"][1], "x");
    assert!(RawJson::default().is_null());
    assert!(RawJson::from_string("{".into()).is_err());
    let resp = RawResponse {
        status: 200,
        headers: vec![("content-type".into(), "application/json".into())],
        body: br#"{"z":1,"a":{"b":null}}"#.to_vec(),
        typed: (),
    };
    assert_eq!(resp.header("Content-Type"), Some("application/json"));
    let pretty = resp.pretty_json().expect("json");
    assert!(
        pretty.find("\"z\"") < pretty.find("\"a\""),
        "server key order kept"
    );
    let _ = ResponseParts {
        endpoint: "x",
        status: 200,
        headers: &[],
        body: b"",
    };
}

#[test]
fn a_verdicts_round_number_is_read_when_a_newer_scan_sends_it() {
    let base = serde_json::json!({
        "update_id": "1220ab", "migration_id": 1, "domain_id": "global-domain::1220",
        "record_time": "2026-11-27T09:00:00Z", "finalization_time": "2026-11-27T09:00:01Z",
        "submitting_parties": [], "submitting_participant_uid": "p",
        "verdict_result": "VERDICT_RESULT_ACCEPTED", "mediator_group": 0,
        "transaction_views": {"views": [], "root_views": []}
    });
    // Before Splice 0.8: no round_number.
    let old: cantonscope::api::scan::Verdict = serde_json::from_value(base.clone()).expect("old");
    assert_eq!(old.round_number, None);
    for round in [serde_json::json!(362), serde_json::json!("362")] {
        let mut newer = base.clone();
        newer["round_number"] = round;
        let v: cantonscope::api::scan::Verdict = serde_json::from_value(newer).expect("new");
        assert_eq!(v.round_number, Some(362));
        assert!(!v.unknown.contains_key("round_number"));
    }
}
