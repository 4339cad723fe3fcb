//! Property tests (proptest): hostile and malformed server answers never panic or hang.
//!
//! Bodies come from three sources: spec-shaped templates of every response type the API decodes
//! (`tests/fixtures/` and the shapes below) with random mutations (values replaced by nulls,
//! wrong types, huge and tiny numbers, strings with control, escape, bidi and zero-width
//! characters; keys removed or added; array items duplicated; the text cut short), random JSON
//! of any shape, and structured trees (scan trees from `child_event_ids` with cycles, repeats
//! and dangling ids; ledger trees from node-id ranges with overlapping, negative and huge
//! ranges; verdict view trees). Each is pushed through every decoder, the summaries, the tree
//! builders and tree views, the verdict view, the sanitiser and a full draw of every pane of the
//! real app at several sizes (its fetches answered with generated bodies).
//!
//! Short run (part of `cargo test`): a few dozen cases per property. Long run:
//! `PROPTEST_CASES=200000 cargo test --release --test it fuzz::` — 200,000 cases for each of
//! the five properties and a hundredth of that for the app-level one (each of its cases drives
//! the whole app through every pane): 1,002,000 cases in all (`docs/src/performance.md` has the
//! measured time).

use std::sync::mpsc;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use cantonscope::api::ledger::{self, GetUpdatesRequest, JsCantonError};
use cantonscope::api::scan::{
    self, HoldingsSummaryRequest, UpdateItem, UpdatesRequest, ValueEncoding,
};
use cantonscope::api::{ApiError, validator};
use cantonscope::app::App;
use cantonscope::model::event_tree::ScanTree;
use cantonscope::model::governance;
use cantonscope::model::history::{Filter, History, Placement};
use cantonscope::model::ledger_tree::LedgerTree;
use cantonscope::model::summary::Summarizer;
use cantonscope::model::verdict::ViewTree;
use cantonscope::msg::{Action, Command, Effect, Fetched, Request, Response};
use cantonscope::panes::AppContext;
use cantonscope::ui::safe;
use cantonscope::ui::scroll::Scrolled;
use cantonscope::ui::theme::Theme;
use cantonscope::ui::tree::{TreeSource, TreeState};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use serde_json::{Map, Value, json};
use unicode_width::UnicodeWidthStr;

use crate::common::fixture;

// ---------------------------------------------------------------------------------------------
// Running: case counts, time limit
// ---------------------------------------------------------------------------------------------

/// `PROPTEST_CASES` when set (the long run), else `short`; `divisor` scales the long run down
/// for expensive properties.
fn cases(short: u32, divisor: u32) -> u32 {
    match std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
    {
        Some(n) => (n / divisor).max(1),
        None => short,
    }
}

fn runner(short: u32, divisor: u32) -> TestRunner {
    TestRunner::new(Config {
        cases: cases(short, divisor),
        // Every failure found becomes a named regression test below instead of a file.
        failure_persistence: None,
        max_shrink_iters: 2_000,
        ..Config::default()
    })
}

/// Runs `f` on another thread and fails when it takes longer than `limit` (a hang). A panic in
/// `f` fails the case with its message.
fn bounded<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        let out = f();
        let _ = tx.send(());
        out
    });
    match rx.recv_timeout(limit) {
        Ok(()) => handle.join().expect("joined"),
        Err(mpsc::RecvTimeoutError::Disconnected) => match handle.join() {
            Ok(v) => v,
            Err(p) => std::panic::resume_unwind(p),
        },
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("hung: no answer within {limit:?}"),
    }
}

const LIMIT: Duration = Duration::from_secs(30);

// ---------------------------------------------------------------------------------------------
// Values: strings, numbers, any JSON
// ---------------------------------------------------------------------------------------------

/// Characters a hostile server would send: controls, escapes, C1, bidi, zero-width, wide,
/// combining, the replacement character, and a few id-like pieces.
const NASTY: &[&str] = &[
    "\u{1b}[31m",
    "\u{1b}]52;c;aGk=\u{7}",
    "\u{1b}[2J\u{1b}[H",
    "\u{9b}1m",
    "\u{9d}0;x\u{9c}",
    "\u{1b}",
    "\u{0}",
    "\u{7}",
    "\u{8}",
    "\r",
    "\n",
    "\t",
    "\u{7f}",
    "\u{85}",
    "\u{202e}",
    "\u{202a}",
    "\u{2066}",
    "\u{2069}",
    "\u{061c}",
    "\u{200e}",
    "\u{200b}",
    "\u{200d}",
    "\u{feff}",
    "\u{2028}",
    "\u{e0041}",
    "\u{ad}",
    "\u{301}",
    "界",
    "😀",
    "\u{fffd}",
    "1220",
    "::",
    ":",
    "#",
    "-",
    ".",
    "=cmd",
    "Splice.Amulet:Amulet",
    "alice::1220ab",
];

fn nasty_string() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::collection::vec(
            prop_oneof![
                3 => prop::sample::select(NASTY).prop_map(str::to_owned),
                2 => "[a-z0-9:#._-]{0,6}",
                1 => any::<char>().prop_map(String::from),
            ],
            0..12
        )
        .prop_map(|parts| parts.concat()),
        1 => any::<String>(),
        1 => (prop::sample::select(NASTY), 100usize..3000).prop_map(|(s, n)| s.repeat(n)),
        1 => Just(String::new()),
    ]
}

fn nasty_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(0)),
        Just(json!(-1)),
        Just(json!(i64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(u64::MAX)),
        Just(json!(i32::MAX)),
        Just(json!(i32::MIN)),
        Just(json!(i64::from(i32::MAX) + 1)),
        Just(json!(1e308)),
        Just(json!(-1e308)),
        Just(json!(5e-324)),
        Just(json!(-0.0)),
        Just(json!(0.5)),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        // Numbers as text, the way the APIs send int64 sometimes.
        Just(json!("9223372036854775808")),
        Just(json!("-9223372036854775809")),
        Just(json!("1e400")),
        Just(json!("12.5")),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        nasty_number(),
        nasty_string().prop_map(Value::String),
    ]
}

/// Keys the APIs use, so random objects sometimes hit real fields.
const KEYS: &[&str] = &[
    "update",
    "verdict",
    "transactions",
    "update_id",
    "migration_id",
    "record_time",
    "events_by_id",
    "root_event_ids",
    "child_event_ids",
    "event_type",
    "event_id",
    "event",
    "offset",
    "choice",
    "template_id",
    "contract_id",
    "value",
    "TransactionTree",
    "eventsById",
    "nodeId",
    "lastDescendantNodeId",
    "ExercisedTreeEvent",
    "CreatedTreeEvent",
    "transaction_views",
    "views",
    "view_id",
    "sub_views",
    "root_views",
    "success",
    "error",
    "contract",
    "payload",
];

fn any_json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        3 => prop::sample::select(KEYS).prop_map(str::to_owned),
                        1 => nasty_string(),
                    ],
                    inner
                ),
                0..8
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

// ---------------------------------------------------------------------------------------------
// Mutating spec-shaped templates
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum Mutation {
    /// Replace the node by another value (wrong type, null, huge number, nasty string…).
    Replace(Value),
    /// Remove the node (an object entry or an array item).
    Remove,
    /// Repeat an array item or add an unknown key to an object.
    Grow(String, Value),
    /// Replace a string's text, keeping its type.
    Text(String),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => leaf().prop_map(Mutation::Replace),
        1 => any_json().prop_map(Mutation::Replace),
        2 => Just(Mutation::Remove),
        1 => (nasty_string(), leaf()).prop_map(|(k, v)| Mutation::Grow(k, v)),
        3 => nasty_string().prop_map(Mutation::Text),
    ]
}

fn count_nodes(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(count_nodes).sum(),
        Value::Object(o) => o.values().map(count_nodes).sum(),
        _ => 0,
    }
}

/// Applies `m` to the node at pre-order position `*at` under `v` (`v` itself is position 0).
/// Returns true when applied.
fn mutate_at(v: &mut Value, at: &mut usize, m: &Mutation) -> bool {
    if *at == 0 {
        match m {
            Mutation::Replace(new) => *v = new.clone(),
            Mutation::Text(t) => {
                if let Value::String(s) = v {
                    s.clone_from(t);
                } else {
                    *v = Value::String(t.clone());
                }
            }
            Mutation::Grow(k, new) => match v {
                Value::Array(a) => {
                    let copy = a.first().cloned().unwrap_or_else(|| new.clone());
                    a.push(copy);
                }
                Value::Object(o) => {
                    o.insert(k.clone(), new.clone());
                }
                _ => *v = new.clone(),
            },
            Mutation::Remove => *v = Value::Null,
        }
        return true;
    }
    *at -= 1;
    match v {
        Value::Array(a) => {
            for i in 0..a.len() {
                if *at == 0 && matches!(m, Mutation::Remove) {
                    a.remove(i);
                    return true;
                }
                if mutate_at(&mut a[i], at, m) {
                    return true;
                }
            }
            false
        }
        Value::Object(o) => {
            let keys: Vec<String> = o.keys().cloned().collect();
            for k in keys {
                if *at == 0 && matches!(m, Mutation::Remove) {
                    o.remove(&k);
                    return true;
                }
                if let Some(child) = o.get_mut(&k)
                    && mutate_at(child, at, m)
                {
                    return true;
                }
            }
            false
        }
        _ => false,
    }
}

fn mutate(template: &Value, muts: &[(usize, Mutation)]) -> Value {
    let mut v = template.clone();
    for (pos, m) in muts {
        let n = count_nodes(&v);
        let mut at = pos % n;
        mutate_at(&mut v, &mut at, m);
    }
    v
}

/// How the text of a body is spoiled after serialising (most bodies are left whole).
#[derive(Debug, Clone)]
enum TextDamage {
    None,
    /// Cut at a fraction (per mille) of the length.
    Cut(u16),
    /// Random bytes instead of JSON.
    Bytes(Vec<u8>),
    /// An HTML error page.
    Html,
}

fn text_damage() -> impl Strategy<Value = TextDamage> {
    prop_oneof![
        20 => Just(TextDamage::None),
        2 => (0u16..1000).prop_map(TextDamage::Cut),
        1 => prop::collection::vec(any::<u8>(), 0..64).prop_map(TextDamage::Bytes),
        1 => Just(TextDamage::Html),
    ]
}

fn damaged(v: &Value, d: &TextDamage) -> Vec<u8> {
    let text = serde_json::to_vec(v).expect("serialises");
    match d {
        TextDamage::None => text,
        TextDamage::Cut(per_mille) => {
            let n = text.len() * usize::from(*per_mille) / 1000;
            text[..n].to_vec()
        }
        TextDamage::Bytes(b) => b.clone(),
        TextDamage::Html => b"<html><body><h1>502 Bad Gateway</h1></body></html>".to_vec(),
    }
}

// ---------------------------------------------------------------------------------------------
// The response types and their templates
// ---------------------------------------------------------------------------------------------

/// Every response type the client decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Updates,
    Event,
    UpdateById,
    Holdings,
    Faucets,
    Sequencers,
    RewardWeight,
    Bootstrapping,
    ParticipantIds,
    Status,
    Version,
    Scans,
    Dso,
    VoteRequests,
    VoteResults,
    PriceVotes,
    MiningRounds,
    Backfilling,
    DevFund,
    AmuletRules,
    TransferStatus,
    Parties,
    Empty,
    LedgerEnd,
    Trees,
    Executed,
    CantonError,
}

const KINDS: &[Kind] = &[
    Kind::Updates,
    Kind::Event,
    Kind::UpdateById,
    Kind::Holdings,
    Kind::Faucets,
    Kind::Sequencers,
    Kind::RewardWeight,
    Kind::Bootstrapping,
    Kind::ParticipantIds,
    Kind::Status,
    Kind::Version,
    Kind::Scans,
    Kind::Dso,
    Kind::VoteRequests,
    Kind::VoteResults,
    Kind::PriceVotes,
    Kind::MiningRounds,
    Kind::Backfilling,
    Kind::DevFund,
    Kind::AmuletRules,
    Kind::TransferStatus,
    Kind::Parties,
    Kind::Empty,
    Kind::LedgerEnd,
    Kind::Trees,
    Kind::Executed,
    Kind::CantonError,
];

fn contract() -> Value {
    json!({
        "template_id": "pkg:Splice.AmuletRules:AmuletRules",
        "contract_id": "00ab",
        "payload": {"round": {"number": "12"}, "opensAt": "2026-01-01T10:00:00Z", "amount": "10.5"},
        "created_event_blob": "AAEC",
        "created_at": "2026-01-01T10:00:00.000000Z"
    })
}

fn ledger_created(node: i64) -> Value {
    json!({"CreatedTreeEvent": {"value": {
        "offset": 7, "nodeId": node, "contractId": "00cd", "templateId": "pkg:Splice.Amulet:Amulet",
        "createArgument": {"owner": "alice::1220"}, "witnessParties": ["alice::1220"],
        "signatories": ["alice::1220"], "observers": [], "createdAt": "2026-01-01T10:00:00Z",
        "packageName": "splice-amulet", "interfaceViews": []
    }}})
}

fn ledger_exercised(node: i64, last: i64) -> Value {
    json!({"ExercisedTreeEvent": {"value": {
        "offset": 7, "nodeId": node, "contractId": "00ef", "templateId": "pkg:Splice.AmuletRules:AmuletRules",
        "choice": "AmuletRules_Transfer", "choiceArgument": {"transfer": {}}, "actingParties": ["alice::1220"],
        "consuming": false, "witnessParties": ["alice::1220"], "lastDescendantNodeId": last,
        "exerciseResult": {"summary": {}}, "packageName": "splice-amulet", "implementedInterfaces": []
    }}})
}

fn ledger_tree_item(events: Value) -> Value {
    json!({"update": {"TransactionTree": {"value": {
        "updateId": "1220aa", "commandId": "cmd", "workflowId": "wf",
        "effectiveAt": "2026-01-01T10:00:00Z", "offset": 7, "eventsById": events,
        "synchronizerId": "global-domain::1220", "recordTime": "2026-01-01T10:00:00.5Z",
        "traceContext": {"traceparent": "00-ab-cd-01"}
    }}}})
}

fn templates() -> &'static Vec<(Kind, Value)> {
    static T: OnceLock<Vec<(Kind, Value)>> = OnceLock::new();
    T.get_or_init(|| {
        let transfer = fixture("scan_update_transfer.json");
        let assign = fixture("scan_update_assign.json");
        let unassign = fixture("scan_update_unassign.json");
        let odd = fixture("scan_update_odd.json");
        let mut out = vec![
            (
                Kind::Updates,
                json!({"transactions": [transfer.clone(), assign.clone(), unassign.clone(), odd]}),
            ),
            (Kind::UpdateById, transfer),
            (Kind::UpdateById, assign),
            (
                Kind::Holdings,
                json!({"record_time": "2026-01-01T10:00:00Z", "migration_id": 3, "summaries": [
                    {"party_id": "alice::1220", "total_unlocked_coin": "10.0", "total_locked_coin": "1.5",
                     "total_coin_holdings": "11.5", "accumulated_holding_fees_unlocked": "0.1"}
                ]}),
            ),
            (
                Kind::Faucets,
                json!({"validatorsReceivedFaucets": [{"validator": "v::1220", "numRoundsCollected": 10,
                    "numRoundsMissed": 2, "firstCollectedInRound": 1, "lastCollectedInRound": 12}]}),
            ),
            (
                Kind::Sequencers,
                json!({"bftSequencers": [{"serialId": 1, "id": "PAR::seq::1220", "p2pUrl": "https://p2p.example"}]}),
            ),
            (Kind::RewardWeight, json!({"reward_weight": "10000"})),
            (
                Kind::Bootstrapping,
                json!({"domain_parameters": "AAEC", "sequencer_domain_state": "AAEC", "mediator_domain_state": "AAEC"}),
            ),
            (
                Kind::ParticipantIds,
                json!({"participant_ids": ["PAR::p1::1220", "PAR::p2::1220"]}),
            ),
            (
                Kind::Status,
                json!({"success": {"id": "scan", "uptime": "1h", "ports": {"http": 5012}, "active": true}}),
            ),
            (Kind::Status, json!({"not_initialized": {"active": false}})),
            (Kind::Status, json!({"failed": {"error": "down"}})),
            (
                Kind::Version,
                json!({"version": "0.4.1", "commit_ts": "2026-01-01T00:00:00Z"}),
            ),
            (
                Kind::Scans,
                json!({"scans": [{"domainId": "global-domain::1220", "scans": [
                    {"publicUrl": "https://scan.sv-1.example", "svName": "sv-1"}]}]}),
            ),
            (
                Kind::Dso,
                json!({"sv_user": "u", "sv_party_id": "sv-1::1220", "dso_party_id": "DSO::1220",
                    "voting_threshold": 1, "initial_round": "0",
                    "latest_mining_round": {"contract": contract(), "domain_id": "global-domain::1220"},
                    "amulet_rules": {"contract": contract(), "domain_id": "global-domain::1220"},
                    "dso_rules": {"contract": {"template_id": "pkg:Splice.DsoRules:DsoRules",
                        "contract_id": "00cd", "payload": {"svs": [["sv-1::1220", {"name": "sv-1",
                        "joinedAsOfRound": {"number": "3"}, "svRewardWeight": "10000",
                        "participantId": "PAR::sv-1::1220"}]]}}, "domain_id": "global-domain::1220"},
                    "sv_node_states": [{"contract": contract(), "domain_id": "global-domain::1220"}]}),
            ),
            (
                Kind::VoteRequests,
                json!({"dso_rules_vote_requests": [{"template_id": "pkg:Splice.DsoRules:VoteRequest",
                    "contract_id": "00ee", "created_event_blob": "", "created_at": "2026-01-01T00:00:00Z",
                    "payload": {"dso": "DSO::1220", "requester": "sv-1",
                        "action": {"tag": "ARC_DsoRules", "value": {"dsoAction": {"tag": "SRARC_UpdateSvRewardWeight",
                            "value": {"svParty": "sv-1::1220", "newRewardWeight": "9000"}}}},
                        "reason": {"url": "https://cip", "body": "why"}, "voteBefore": "2026-01-02T00:00:00Z",
                        "votes": [["sv-1", {"sv": "sv-1::1220", "accept": true,
                            "reason": {"url": "", "body": ""}, "optCastAt": "2026-01-01T00:00:00Z"}]],
                        "trackingCid": "00dd", "targetEffectiveAt": null}}]}),
            ),
            (
                Kind::VoteResults,
                json!({"dso_rules_vote_results": [{"request": {"requester": "sv-1",
                    "action": {"tag": "ARC_AmuletRules", "value": {"amuletRulesAction": {"tag": "CRARC_SetConfig",
                        "value": {"newConfig": {"a": "2"}, "baseConfig": {"a": "1"}}}}},
                    "votes": [], "voteBefore": "2026-01-02T00:00:00Z", "trackingCid": null},
                    "completedAt": "2026-01-02T00:00:00Z", "offboardedVoters": ["old"], "abstainingSvs": [],
                    "outcome": {"tag": "VRO_Accepted", "value": {"effectiveAt": "2026-01-03T00:00:00Z"}}}],
                    "next_page_token": 3}),
            ),
            (
                Kind::PriceVotes,
                json!({"amulet_price_votes": [{"contract_id": "00ff", "payload": {"sv": "sv-1::1220",
                    "amuletPrice": "0.005", "lastUpdatedAt": "2026-01-01T00:00:00Z"}}]}),
            ),
            (
                Kind::MiningRounds,
                json!({"time_to_live_in_microseconds": 600000000, "open_mining_rounds": {
                    "00ab": {"contract": contract(), "domain_id": "global-domain::1220"}},
                    "issuing_mining_rounds": {}}),
            ),
            (Kind::Backfilling, json!({"complete": true})),
            (
                Kind::DevFund,
                json!({"unclaimed-development-fund-coupons": [{"contract": contract(), "domain_id": "global-domain::1220"}],
                       "unclaimed_development_fund_coupons": [{"contract": contract(), "domain_id": "global-domain::1220"}]}),
            ),
            (
                Kind::AmuletRules,
                json!({"amulet_rules": {"contract": contract(), "domain_id": "global-domain::1220"}}),
            ),
            (
                Kind::TransferStatus,
                json!({"transfer_commands_by_contract_id": {"00ab": {"contract": contract(),
                    "status": {"status": "failed", "failure_kind": "expired", "reason": "too late"}}}}),
            ),
            (
                Kind::Parties,
                json!({"partyDetails": [{"party": "alice::1220", "isLocal": true,
                    "localMetadata": {"resourceVersion": "1", "annotations": {"k": "v"}},
                    "identityProviderId": ""}]}),
            ),
            (Kind::Empty, json!({})),
            (Kind::LedgerEnd, json!({"offset": 42})),
            (
                Kind::Trees,
                json!([
                    ledger_tree_item(json!({
                        "0": ledger_exercised(0, 3),
                        "1": ledger_created(1),
                        "3": ledger_exercised(3, 3),
                        "5": ledger_created(5)
                    })),
                    {"update": {"OffsetCheckpoint": {"value": {"offset": 8, "synchronizerTimes": [
                        {"synchronizerId": "global-domain::1220", "recordTime": "2026-01-01T10:00:01Z"}]}}}},
                    {"update": {"Reassignment": {"value": {"updateId": "1220bb", "offset": 9, "events": [],
                        "recordTime": "2026-01-01T10:00:02Z", "synchronizerId": "s"}}}},
                    {"update": {"TopologyTransaction": {"value": {}}}}
                ]),
            ),
            (
                Kind::Executed,
                json!({"transaction": {"updateId": "1220cc", "commandId": "c", "effectiveAt": "2026-01-01T10:00:00Z",
                    "events": [{"CreatedEvent": ledger_created(0)["CreatedTreeEvent"]["value"].clone()},
                               {"ArchivedEvent": {"offset": 1, "nodeId": 1, "contractId": "00ab", "templateId": "t"}}],
                    "offset": 10, "synchronizerId": "s", "recordTime": "2026-01-01T10:00:00Z", "paidTrafficCost": 12}}),
            ),
            (
                Kind::CantonError,
                json!({"code": "INVALID_ARGUMENT", "cause": "bad", "correlationId": "c", "traceId": "t",
                    "context": {"k": "v"}, "resources": [["PARTY", "alice"]], "errorCategory": 8,
                    "grpcCodeValue": 3, "retryInfo": "1s", "definiteAnswer": false}),
            ),
        ];
        for name in [
            "scan_event_accepted.json",
            "scan_event_rejected.json",
            "scan_event_no_verdict.json",
        ] {
            out.push((Kind::Event, fixture(name)));
        }
        out
    })
}

fn template_of(kind: Kind, pick: usize) -> Value {
    let all: Vec<&Value> = templates()
        .iter()
        .filter(|(k, _)| *k == kind)
        .map(|(_, v)| v)
        .collect();
    all[pick % all.len()].clone()
}

/// A body for `kind`: mostly its template mutated, sometimes any JSON at all.
fn body_for(kind: Kind) -> impl Strategy<Value = Vec<u8>> {
    (
        any::<usize>(),
        prop_oneof![
            8 => prop::collection::vec((any::<usize>(), mutation()), 0..6).prop_map(Some),
            1 => Just(None),
        ],
        any_json(),
        text_damage(),
    )
        .prop_map(move |(pick, muts, random, damage)| {
            let v = match muts {
                Some(m) => mutate(&template_of(kind, pick), &m),
                None => random,
            };
            damaged(&v, &damage)
        })
}

/// Runs the decoder of `kind` over `body` as the client does after a 200, and everything the
/// panes derive from a success.
fn decode_and_derive(kind: Kind, body: &[u8]) {
    let enc = ValueEncoding::default();
    let h: &[(String, String)] = &[];
    match kind {
        Kind::Updates => {
            if let Ok(page) =
                scan::updates(&UpdatesRequest::from_begin(10)).decode_response(200, h, body)
            {
                let _ = page.malformed_count();
                let _ = page.next_after();
                derive_items(&page.transactions);
            }
        }
        Kind::Event => {
            if let Ok(item) = scan::event("1220aa", &enc).decode_response(200, h, body) {
                let item = Arc::new(item);
                if let Some(u) = &item.update {
                    derive_items(std::slice::from_ref(u));
                }
                if let Some(tree) = ScanTree::from_body(Arc::clone(&item)) {
                    exercise_tree(&tree);
                }
                if let Some(views) = ViewTree::new(item) {
                    let _ = views.preorder_view_ids();
                    exercise_tree(&views);
                }
            }
        }
        Kind::UpdateById => {
            if let Ok(u) = scan::update_by_id("1220aa", &enc).decode_response(200, h, body) {
                derive_items(std::slice::from_ref(&u));
            }
            let _ = scan::update_by_hash("ab", &enc).decode_response(200, h, body);
        }
        Kind::Holdings => {
            let req = HoldingsSummaryRequest {
                migration_id: 0,
                record_time: String::new(),
                record_time_match: None,
                owner_party_ids: Vec::new(),
            };
            let _ = scan::holdings_summary(&req).decode_response(200, h, body);
        }
        Kind::Faucets => {
            let _ = scan::validator_faucets(&[]).decode_response(200, h, body);
        }
        Kind::Sequencers => {
            let _ = scan::bft_sequencers().decode_response(200, h, body);
        }
        Kind::RewardWeight => {
            let req = scan::RewardWeightRequest {
                sv_party: "sv".into(),
                effective_before: None,
            };
            let _ = scan::previous_sv_reward_weight(&req).decode_response(200, h, body);
        }
        Kind::Bootstrapping => {
            let _ = scan::bootstrapping_transactions("x").decode_response(200, h, body);
        }
        Kind::ParticipantIds => {
            let _ = scan::participant_ids("d", "p").decode_response(200, h, body);
        }
        Kind::Status => {
            let _ = scan::status().decode_response(200, h, body);
        }
        Kind::Version => {
            let _ = scan::version().decode_response(200, h, body);
        }
        Kind::Scans => {
            let _ = scan::scans().decode_response(200, h, body);
        }
        Kind::Dso => {
            if let Ok(info) = scan::dso().decode_response(200, h, body) {
                let _ = (info.own_sv(), info.latest_round());
            }
        }
        Kind::VoteRequests => {
            if let Ok(r) = scan::vote_requests().decode_response(200, h, body) {
                let dso: &[scan::DsoSv] = &[];
                for req in &r.requests {
                    let row =
                        governance::OpenRequest::of(req, dso, Some(1), Some((Some("sv-1"), None)));
                    let _ = (row.deadline(), governance::proposed_config(&req.action));
                }
            }
            let _ = scan::vote_request("00ee").decode_response(200, h, body);
        }
        Kind::VoteResults => {
            if let Ok(page) = scan::vote_results(&scan::VoteResultsRequest {
                filter: scan::VoteResultsFilter::default(),
                limit: 10,
                page_token: None,
            })
            .decode_response(200, h, body)
            {
                for r in &page.results {
                    let _ = governance::ClosedRequest::of(r, &[]);
                    let _ = governance::action_diff(&r.request.action, None);
                }
                let _ = governance::weight_history(&page.results, "sv-1::1220");
            }
            let _ = scan::vote_results_count(&scan::VoteResultsFilter::default())
                .decode_response(200, h, body);
        }
        Kind::PriceVotes => {
            if let Ok(v) = scan::amulet_price_votes().decode_response(200, h, body) {
                let _ = governance::price_stats(&v.votes);
            }
        }
        Kind::MiningRounds => {
            let req = Default::default();
            if let Ok(r) = scan::open_and_issuing_mining_rounds(&req).decode_response(200, h, body)
            {
                let _ = r.newest_open_round();
            }
        }
        Kind::Backfilling => {
            let _ = scan::backfilling_status().decode_response(200, h, body);
        }
        Kind::DevFund => {
            let _ = validator::dev_fund_coupons().decode_response(200, h, body);
        }
        Kind::AmuletRules => {
            let _ = validator::amulet_rules().decode_response(200, h, body);
        }
        Kind::TransferStatus => {
            let _ = validator::transfer_command_status("s", 1).decode_response(200, h, body);
        }
        Kind::Parties => {
            let _ = ledger::parties("p", &[], None).decode_response(200, h, body);
        }
        Kind::Empty => {
            let _ = ledger::delete_user("u").decode_response(200, h, body);
            let _ = ledger::package("p").decode_response(200, h, body);
        }
        Kind::LedgerEnd => {
            let _ = ledger::ledger_end().decode_response(200, h, body);
        }
        Kind::Trees => {
            let req = GetUpdatesRequest::for_parties(0, None, &[]);
            if let Ok(items) = ledger::update_trees(&req, None, None).decode_response(200, h, body)
            {
                for item in items {
                    if let ledger::Update::TransactionTree(t) = item.update {
                        let _ = t.nodes_in_order();
                        exercise_tree(&LedgerTree::new(Arc::new(*t)));
                    }
                }
            }
        }
        Kind::Executed => {
            let _ = serde_json::from_slice::<ledger::ExecuteResponse>(body);
        }
        Kind::CantonError => {
            if let Ok(e) = serde_json::from_slice::<JsCantonError>(body) {
                let err = ApiError::Ledger {
                    endpoint: "ledger POST /v2/updates/trees",
                    status: 400,
                    error: Box::new(e),
                };
                assert_one_clean_line(&err.to_string());
            }
        }
    }
}

/// Summaries, the history and its filter over decoded items.
fn derive_items(items: &[UpdateItem]) {
    let mut summarizer = Summarizer::default();
    for item in items {
        let s = summarizer.summarize(item);
        let _ = s.root_label(&summarizer.interner);
        let _ = s.record_time_string();
        if let Some(tx) = item.as_transaction() {
            let tree = ScanTree::new(Arc::new(tx.clone()));
            assert!(tree.len() <= tx.root_event_ids.len() + tx.events_by_id.len() * 2 + 1);
            exercise_tree(&tree);
        }
    }
    let mut history = History::default();
    history.add_page(items, Placement::Append);
    history.add_page(items, Placement::Prepend);
    for text in [
        "alice",
        "party:ali",
        "template:Amulet",
        "re:^(a|b)",
        "choice:Transfer",
    ] {
        if let Ok(Some(mut f)) = Filter::parse(text) {
            f.prepare(&history.summarizer);
            for s in history.iter() {
                let _ = f.matches(s);
            }
        }
    }
    let _ = history.parties();
    let _ = history.validators();
}

/// A tree view over `src`: expand everything, move around, draw at several sizes; every drawn
/// cell is clean.
fn exercise_tree<S: TreeSource>(src: &S) {
    let theme = Theme::default();
    let mut state = TreeState::new(src);
    state.expand_all(src);
    state.bottom();
    state.collapse();
    state.top();
    state.expand(src);
    state.down(3);
    state.toggle(src);
    state.parent();
    for (w, h) in [(1, 1), (20, 5), (80, 24), (200, 10)] {
        let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
        state.set_viewport(usize::from(h));
        state.render(src, buf.area, &mut buf, &theme, true);
        assert_clean_buffer(&buf);
    }
    state.collapse_all(src);
}

fn assert_clean_buffer(buf: &Buffer) {
    for cell in &buf.content {
        let sym = cell.symbol();
        assert!(
            safe::is_clean(sym),
            "a drawn cell holds an unsafe character: {sym:?}"
        );
    }
}

fn assert_one_clean_line(s: &str) {
    assert!(
        !s.chars().any(cantonscope::ui::safe::needs_replacing),
        "unsafe character in {s:?}"
    );
    assert!(
        !s.contains('\n') && !s.contains('\r'),
        "not one line: {s:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Structured trees
// ---------------------------------------------------------------------------------------------

/// A scan transaction whose tree is random: `n` events, each exercised event listing random
/// children (repeats, cycles, self references and dangling ids included), random roots, and
/// sometimes a duplicate key in `events_by_id`.
fn scan_tree_body() -> impl Strategy<Value = String> {
    (1usize..24)
        .prop_flat_map(|n| {
            (
                prop::collection::vec(
                    (
                        any::<bool>(),
                        prop::collection::vec(0usize..n + 3, 0..5),
                        nasty_string(),
                        any::<bool>(),
                    ),
                    n,
                ),
                prop::collection::vec(0usize..n + 3, 0..4),
                prop::option::of(0usize..n),
            )
        })
        .prop_map(|(events, roots, duplicate)| {
            let id = |i: usize| {
                if i % 7 == 6 {
                    format!("#1220ab:{i}")
                } else {
                    format!("1220ab:{i}")
                }
            };
            let mut entries: Vec<String> = Vec::new();
            for (i, (exercised, children, name, consuming)) in events.iter().enumerate() {
                let ev = if *exercised {
                    json!({"event_type": "exercised_event", "event_id": id(i), "contract_id": name,
                        "template_id": format!("pkg:M:{name}"), "choice": name, "choice_argument": {},
                        "child_event_ids": children.iter().map(|&c| id(c)).collect::<Vec<_>>(),
                        "exercise_result": name, "consuming": consuming, "acting_parties": [name]})
                } else {
                    json!({"event_type": "created_event", "event_id": id(i), "contract_id": name,
                        "template_id": format!("pkg:M:{name}"), "create_arguments": {"x": name},
                        "signatories": [name], "observers": []})
                };
                entries.push(format!(
                    "{}:{}",
                    serde_json::to_string(&id(i)).expect("id"),
                    ev
                ));
            }
            if let Some(d) = duplicate {
                let again = json!({"event_type": "created_event", "event_id": id(d), "contract_id": "dup",
                    "template_id": "pkg:M:Duplicate", "create_arguments": {}});
                entries.push(format!(
                    "{}:{}",
                    serde_json::to_string(&id(d)).expect("id"),
                    again
                ));
            }
            format!(
                r#"{{"update_id":"1220ab","migration_id":1,"record_time":"2026-01-01T10:00:00Z","synchronizer_id":"s","effective_at":"2026-01-01T10:00:00Z","root_event_ids":{},"events_by_id":{{{}}}}}"#,
                json!(roots.iter().map(|&r| id(r)).collect::<Vec<_>>()),
                entries.join(",")
            )
        })
}

/// A ledger transaction tree with random keys, node ids and ranges (overlapping, negative,
/// huge, below the node's own id), sometimes keys that are not integers.
fn ledger_tree_body() -> impl Strategy<Value = Value> {
    let node_id = prop_oneof![
        6 => -2i64..40,
        1 => Just(i64::from(i32::MAX)),
        1 => Just(i64::from(i32::MIN)),
    ];
    prop::collection::vec(
        (
            prop_oneof![
                6 => node_id.clone().prop_map(|n| n.to_string()),
                1 => nasty_string(),
                1 => Just("9223372036854775807".to_owned()),
            ],
            node_id.clone(),
            prop_oneof![
                4 => -2i64..60,
                1 => Just(i64::from(i32::MAX)),
                1 => Just(i64::from(i32::MIN)),
            ],
            any::<bool>(),
        ),
        0..30,
    )
    .prop_map(|nodes| {
        let mut events = Map::new();
        for (key, node, last, exercised) in nodes {
            let ev = if exercised {
                ledger_exercised(node, last)
            } else {
                ledger_created(node)
            };
            events.insert(key, ev);
        }
        json!([ledger_tree_item(Value::Object(events))])
    })
}

/// A `/v0/events` body whose verdict has random views (repeated ids, cycles, dangling
/// sub-views) and envelopes naming random views.
fn verdict_body() -> impl Strategy<Value = Value> {
    let vid = prop_oneof![6 => -2i32..20, 1 => Just(i32::MAX), 1 => Just(i32::MIN)];
    (
        prop::collection::vec(
            (
                vid.clone(),
                prop::collection::vec(vid.clone(), 0..4),
                prop::collection::vec(nasty_string(), 0..3),
                prop::collection::vec((nasty_string(), any::<i32>()), 0..3),
            ),
            0..16,
        ),
        prop::collection::vec(vid.clone(), 0..4),
        prop::collection::vec((any::<i64>(), prop::collection::vec(vid, 0..3)), 0..4),
        any::<bool>(),
    )
        .prop_map(|(views, roots, envelopes, accepted)| {
            let mut body = fixture("scan_event_accepted.json");
            let views: Vec<Value> = views
                .into_iter()
                .map(|(id, subs, informees, quorums)| {
                    json!({"view_id": id, "informees": informees, "sub_views": subs,
                        "confirming_parties": quorums.into_iter().map(|(p, t)| json!({"parties": [p], "threshold": t})).collect::<Vec<_>>(),
                        "view_hash": "ab"})
                })
                .collect();
            body["verdict"]["transaction_views"] = json!({"views": views, "root_views": roots});
            body["verdict"]["verdict_result"] = json!(if accepted {
                "VERDICT_RESULT_ACCEPTED"
            } else {
                "VERDICT_RESULT_REJECTED"
            });
            body["traffic_summary"] = json!({"total_traffic_cost": 12, "envelope_traffic_summaries":
                envelopes.into_iter().map(|(cost, ids)| json!({"traffic_cost": cost, "view_ids": ids})).collect::<Vec<_>>()});
            body
        })
}

// ---------------------------------------------------------------------------------------------
// Properties: decoding, summaries, trees, verdict, sanitiser
// ---------------------------------------------------------------------------------------------

#[test]
fn every_response_type_decodes_or_errors_without_panicking() {
    runner(96, 1)
        .run(
            &(0..KINDS.len()).prop_flat_map(|k| (Just(k), body_for(KINDS[k]))),
            |(k, body)| {
                bounded(LIMIT, move || {
                    decode_and_derive(KINDS[k], &body);
                    // The same body through every other decoder: wrong shapes are errors too.
                    for &other in KINDS {
                        decode_and_derive(other, &body);
                    }
                });
                Ok(())
            },
        )
        .unwrap();
}

#[test]
fn scan_trees_from_child_ids_never_hang_or_lose_nodes() {
    runner(64, 1)
        .run(&scan_tree_body(), |text| {
            bounded(LIMIT, move || {
                let item: UpdateItem = serde_json::from_str(&text).expect("an item");
                let tx = item.as_transaction().expect("a transaction").clone();
                // Each event id shows at most once, whatever the references.
                let walked: Vec<_> = tx.walk().map(|w| w.id.to_owned()).collect();
                let mut unique = walked.clone();
                unique.sort();
                unique.dedup();
                assert_eq!(unique.len(), walked.len(), "an id shown twice");
                let tree = ScanTree::new(Arc::new(tx));
                for n in 0..tree.len() {
                    for &c in tree.children(n) {
                        assert_eq!(tree.parent(c), Some(n));
                    }
                }
                exercise_tree(&tree);
                derive_items(std::slice::from_ref(&item));
            });
            Ok(())
        })
        .unwrap();
}

#[test]
fn ledger_trees_from_node_ranges_nest_each_node_once() {
    runner(64, 1)
        .run(&ledger_tree_body(), |body| {
            bounded(LIMIT, move || {
                let bytes = serde_json::to_vec(&body).expect("json");
                let req = GetUpdatesRequest::for_parties(0, None, &[]);
                let items = ledger::update_trees(&req, None, None)
                    .decode_response(200, &[], &bytes)
                    .expect("decodes");
                for item in items {
                    let ledger::Update::TransactionTree(t) = item.update else {
                        continue;
                    };
                    let n = t.events_by_id.len();
                    let tree = LedgerTree::new(Arc::new(*t));
                    assert_eq!(tree.len(), n);
                    // Every node is reached exactly once from the roots.
                    let mut seen = vec![0u32; n];
                    let mut stack: Vec<usize> = tree.roots().to_vec();
                    while let Some(x) = stack.pop() {
                        seen[x] += 1;
                        stack.extend_from_slice(tree.children(x));
                    }
                    assert!(seen.iter().all(|&c| c == 1), "nodes reached {seen:?}");
                    exercise_tree(&tree);
                }
            });
            Ok(())
        })
        .unwrap();
}

#[test]
fn verdict_view_trees_show_each_view_once() {
    runner(64, 1)
        .run(&verdict_body(), |body| {
            bounded(LIMIT, move || {
                let bytes = serde_json::to_vec(&body).expect("json");
                let item = scan::event("1220aa", &ValueEncoding::default())
                    .decode_response(200, &[], &bytes)
                    .expect("decodes");
                let n_views = item
                    .verdict
                    .as_ref()
                    .map_or(0, |v| v.transaction_views.views.len());
                let tree = ViewTree::new(Arc::new(item)).expect("a verdict");
                assert!(tree.len() >= n_views.min(1) || n_views == 0);
                let ids = tree.preorder_view_ids();
                assert!(ids.len() <= tree.len());
                exercise_tree(&tree);
            });
            Ok(())
        })
        .unwrap();
}

#[test]
fn the_sanitiser_leaves_nothing_a_terminal_would_act_on() {
    runner(256, 1)
        .run(&(nasty_string(), 0usize..120), |(s, max)| {
            let one = safe::sanitize(&s);
            assert!(safe::is_clean(&one), "{one:?}");
            let multi = safe::sanitize_multiline(&s);
            assert!(
                multi.split('\n').all(safe::is_clean),
                "multi-line output unsafe: {multi:?}"
            );
            let cut = safe::truncate_width(&s, max);
            assert!(cut.width() <= max.max(1), "{cut:?} wider than {max}");
            let line = safe::safe_line(&s, max);
            assert!(safe::is_clean(&line), "{line:?}");
            assert!(line.width() <= max.max(1), "{line:?} wider than {max}");
            let api = cantonscope::api::sanitize_line(&s, max);
            assert_one_clean_line(&api);
            assert!(api.chars().count() <= max + 1);
            Ok(())
        })
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// The Prometheus text exposition (My node)
// ---------------------------------------------------------------------------------------------

/// Pieces of a hostile exposition line.
const EXPOSITION_PIECES: &[&str] = &[
    "{",
    "}",
    "\"",
    "\\",
    "\\\"",
    "=",
    ",",
    " ",
    "\t",
    "#",
    "# HELP x y",
    "# TYPE x histogram",
    "NaN",
    "+Inf",
    "-Inf",
    "1e308",
    "-0",
    "0x10",
    "9223372036854775808",
    "_bucket",
    "le=\"+Inf\"",
    "daml_sequencer_client_handler_last_sequencing_time_micros",
    "splice_trigger_completed_total",
    "member=\"MED::x\"",
    "outcome=\"failure\"",
    "\r",
    "\u{0}",
    "\u{feff}",
    "é",
    "\n",
];

fn exposition_line() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(prop::sample::select(EXPOSITION_PIECES), 0..24).prop_map(|p| p.concat()),
        1 => nasty_string(),
        1 => ("[a-z_:]{1,12}", prop::collection::vec(("[a-z_]{1,6}", nasty_string()), 0..6), any::<f64>(), prop::option::of(any::<i64>()))
            .prop_map(|(name, labels, value, ts)| {
                let labels: Vec<String> = labels
                    .iter()
                    .map(|(k, v)| format!("{k}=\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")))
                    .collect();
                let ts = ts.map(|t| format!(" {t}")).unwrap_or_default();
                format!("{name}{{{}}} {value}{ts}", labels.join(","))
            }),
        1 => (prop::sample::select(EXPOSITION_PIECES), 1000usize..20_000).prop_map(|(s, n)| s.repeat(n)),
    ]
}

/// Hostile exposition text: the reader never panics, keeps no more than the text holds (each
/// sample's name and labels come from its own line), and the rules judge whatever it kept.
#[test]
fn the_exposition_reader_survives_hostile_text_in_bounded_memory() {
    use cantonscope::model::metrics::{self, AlertRules, SampleSet, parse};
    runner(256, 1)
        .run(&prop::collection::vec(exposition_line(), 0..40), |lines| {
            let text = lines.join("\n");
            let parsed = bounded(LIMIT, {
                let text = text.clone();
                move || parse::parse(&text)
            });
            let lines_in = text.split('\n').count();
            assert!(parsed.samples.len() + parsed.skipped <= lines_in);
            let held: usize = parsed
                .samples
                .iter()
                .map(|s| {
                    s.name.len()
                        + s.labels
                            .iter()
                            .map(|(k, v)| k.len() + v.len())
                            .sum::<usize>()
                })
                .sum();
            assert!(
                held <= text.len(),
                "{held} bytes held from {} of text",
                text.len()
            );
            for sample in &parsed.samples {
                assert!(
                    sample.labels.windows(2).all(|w| w[0].0 < w[1].0),
                    "{sample:?}"
                );
            }
            let scrape = metrics::Scrape {
                endpoint: "x".into(),
                at_us: 1_800_000_000_000_000,
                result: Ok(parsed.samples),
            };
            let (rows, keep) = metrics::evaluate(
                &AlertRules::default(),
                std::slice::from_ref(&scrape),
                None,
                scrape.at_us,
            );
            let (_, again) = metrics::evaluate(
                &AlertRules::default(),
                &[scrape],
                Some(&keep),
                1_800_000_060_000_000,
            );
            assert!(!rows.is_empty());
            assert_eq!(
                SampleSet::from_json(&again.to_json()).map(|s| s.counters.len()),
                Some(again.counters.len())
            );
            Ok(())
        })
        .unwrap();
}

/// Written samples read back as written: names, labels with any text, values, timestamps.
#[test]
fn exposition_samples_read_back_as_written() {
    use cantonscope::model::metrics::parse;
    runner(256, 1)
        .run(
            &(
                "[a-z_:][a-z0-9_:]{0,12}",
                prop::collection::btree_map("[a-z_][a-z0-9_]{0,6}", any::<String>(), 0..6),
                -1e12f64..1e12,
                prop::option::of(any::<i64>()),
            ),
            |(name, labels, value, ts)| {
                let written: Vec<String> = labels
                    .iter()
                    .map(|(k, v)| {
                        format!(
                            "{k}=\"{}\"",
                            v.replace('\\', "\\\\")
                                .replace('"', "\\\"")
                                .replace('\n', "\\n")
                        )
                    })
                    .collect();
                let ts_text = ts.map(|t| format!(" {t}")).unwrap_or_default();
                let line = format!("{name}{{{}}} {value}{ts_text}", written.join(","));
                let parsed = parse::parse(&line);
                // A label value with `\r` ends the line early: only those may be lost.
                if labels.values().any(|v| v.contains('\r')) {
                    return Ok(());
                }
                assert_eq!(parsed.skipped, 0, "{line:?}");
                let sample = &parsed.samples[0];
                assert_eq!(sample.name, name);
                assert_eq!(sample.labels, labels.into_iter().collect::<Vec<_>>());
                assert_eq!(sample.value, value);
                assert_eq!(sample.timestamp_ms, ts);
                Ok(())
            },
        )
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// The whole app: every pane drawn over generated answers
// ---------------------------------------------------------------------------------------------

/// The response type a request is answered with (by the endpoint its call names).
fn kind_of(request: &Request) -> Kind {
    // Answers gathered from every scan by the runtime: no one body to decode.
    let Some(call) = request.call() else {
        return Kind::Empty;
    };
    match call.endpoint() {
        "scan POST /v2/updates" => Kind::Updates,
        "scan GET /v0/events/{update_id}" => Kind::Event,
        "scan GET /v2/updates/hash/{hash}" => Kind::UpdateById,
        "scan GET /status" => Kind::Status,
        "ledger GET /v2/state/ledger-end" => Kind::LedgerEnd,
        "validator GET /v0/scan-proxy/amulet-rules" => Kind::AmuletRules,
        "scan POST /v1/holdings/summary" => Kind::Holdings,
        "scan GET /v0/validators/validator-faucets" => Kind::Faucets,
        "scan GET /v0/sv-bft-sequencers" => Kind::Sequencers,
        "scan GET /v0/synchronizer-bootstrapping-transactions/{domain_id_prefix}" => {
            Kind::Bootstrapping
        }
        "scan GET /v1/domains/{domain_id}/parties/{party_id}/participant-id" => {
            Kind::ParticipantIds
        }
        "scan POST /v0/admin/sv/previous-sv-reward-weight" => Kind::RewardWeight,
        "validator GET /v0/scan-proxy/unclaimed-development-fund-coupons" => Kind::DevFund,
        "validator GET /v0/scan-proxy/transfer-command/status" => Kind::TransferStatus,
        "ledger GET /v2/parties/{party}" => Kind::Parties,
        "ledger POST /v2/updates/trees" => Kind::Trees,
        "ledger POST /v2/interactive-submission/executeAndWaitForTransaction" => Kind::Executed,
        "scan POST /v0/open-and-issuing-mining-rounds" => Kind::MiningRounds,
        // Deleting a user, a package download, the participant id and the traffic status.
        _ => Kind::Empty,
    }
}

/// Endpoints the generated answers leave unanswered (the traffic card's).
const NOT_GENERATED: [&str; 2] = [
    "ledger GET /v2/parties/participant-id",
    "scan GET /v0/domains/{domain_id}/members/{member_id}/traffic-status",
];

/// Decodes `body` as the runtime would for `request`: its call's own decoder.
fn respond(request: &Request, body: &[u8]) -> Result<Response, ApiError> {
    match request.call() {
        Some(call) if !NOT_GENERATED.contains(&call.endpoint()) => {
            call.decode_response(200, &[], body).map(Response::Api)
        }
        _ => Err(ApiError::Scan {
            endpoint: "network",
            status: 503,
            message: "not generated".into(),
        }),
    }
}

/// Generated answers, one list per response type, used round-robin.
#[derive(Debug, Clone)]
struct Answers {
    bodies: Vec<Vec<Vec<u8>>>,
    next: Vec<usize>,
}

impl Answers {
    fn body(&mut self, kind: Kind) -> &[u8] {
        let k = KINDS.iter().position(|&x| x == kind).expect("a kind");
        let list = &self.bodies[k];
        let i = self.next[k] % list.len();
        self.next[k] += 1;
        &list[i]
    }
}

fn answers() -> impl Strategy<Value = Answers> {
    let per_kind: Vec<_> = KINDS
        .iter()
        .map(|&k| {
            let special = match k {
                Kind::Updates => scan_tree_body()
                    .prop_map(|t| format!(r#"{{"transactions":[{t}]}}"#).into_bytes())
                    .boxed(),
                Kind::Event => verdict_body()
                    .prop_map(|v| serde_json::to_vec(&v).expect("json"))
                    .boxed(),
                Kind::Trees => ledger_tree_body()
                    .prop_map(|v| serde_json::to_vec(&v).expect("json"))
                    .boxed(),
                _ => body_for(k).boxed(),
            };
            prop::collection::vec(prop_oneof![2 => body_for(k), 1 => special], 1..4)
        })
        .collect();
    per_kind.prop_map(|bodies| Answers {
        next: vec![0; bodies.len()],
        bodies,
    })
}

/// The app on made-up nodes (nothing is ever sent: every fetch is answered from `answers`).
fn fuzz_app() -> App {
    let ctx = AppContext {
        profile: "fuzz".into(),
        scan_urls: vec!["http://127.0.0.1:9".into(), "http://127.0.0.1:10".into()],
        validator_url: Some("http://127.0.0.1:9".into()),
        ledger_url: Some("http://127.0.0.1:9".into()),
        has_token: true,
        ..AppContext::default()
    };
    let keymap = cantonscope::app::with_pane_names(Default::default());
    App::new(ctx, Theme::default(), keymap, 1_767_261_600_000_000)
}

/// Applies effects until none are left, answering fetches from `answers`.
fn settle(app: &mut App, effects: Vec<Effect>, answers: &mut Answers) {
    let mut queue: std::collections::VecDeque<Effect> = effects.into();
    let mut guard = 0;
    while let Some(effect) = queue.pop_front() {
        guard += 1;
        // Pages that keep coming (a history that always has more) stop being answered.
        if guard > 200 {
            break;
        }
        let more = match effect {
            Effect::Fetch { id, request } => {
                let result = respond(&request, answers.body(kind_of(&request)));
                app.update(Action::Fetched(Box::new(Fetched {
                    id,
                    request,
                    result,
                    elapsed_ms: 3,
                })))
            }
            Effect::WriteFile { id, path, contents }
            | Effect::CreateFile { id, path, contents }
            | Effect::AppendFile { id, path, contents } => app.update(Action::Written {
                id,
                path: path.display().to_string(),
                result: Ok(contents.len()),
            }),
            Effect::ReadFile { id, path } => app.update(Action::FileRead {
                id,
                path: path.display().to_string(),
                result: Err("no such file".into()),
            }),
            _ => Vec::new(),
        };
        queue.extend(more);
    }
}

const SIZES: [(u16, u16); 4] = [(40, 10), (80, 24), (120, 40), (200, 60)];

fn draw_at(app: &mut App, answers: &mut Answers, (w, h): (u16, u16)) {
    let effects = app.update(Action::Resize(w, h));
    settle(app, effects, answers);
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    terminal
        .draw(|f| cantonscope::app::draw::draw(app, f))
        .expect("draw");
    assert_clean_buffer(terminal.backend().buffer());
}

fn draw_all_sizes(app: &mut App, answers: &mut Answers) {
    for size in SIZES {
        draw_at(app, answers, size);
    }
}

/// Drives the app through every pane: its form (with a pasted value), its first item opened,
/// trees expanded, each section, and draws at every size along the way.
fn drive_every_pane(mut answers: Answers) {
    let mut app = fuzz_app();
    let effects = app.update(Action::Resize(120, 40));
    settle(&mut app, effects, &mut answers);
    let effects = app.start();
    settle(&mut app, effects, &mut answers);
    let act = |app: &mut App, answers: &mut Answers, a: Action| {
        let effects = app.update(a);
        settle(app, effects, answers);
    };
    for tick in 1..4 {
        act(
            &mut app,
            &mut answers,
            Action::Tick(1_767_261_600_000_000 + tick * 2_500_000),
        );
    }
    act(&mut app, &mut answers, Action::Command(Command::Select));
    act(
        &mut app,
        &mut answers,
        Action::Palette("event 1220ab".into()),
    );
    act(&mut app, &mut answers, Action::Palette("hash ab12".into()));
    let panes = [
        Command::Pane1,
        Command::Pane2,
        Command::Pane3,
        Command::Pane4,
        Command::Pane5,
        Command::Pane6,
        Command::Pane7,
        Command::Pane8,
        Command::Pane9,
    ];
    for pane in panes {
        act(&mut app, &mut answers, Action::Command(pane));
        for section in 0..5 {
            act(&mut app, &mut answers, Action::Command(Command::Edit));
            act(&mut app, &mut answers, Action::Paste("alice::1220".into()));
            act(
                &mut app,
                &mut answers,
                Action::Key(crossterm::event::KeyEvent::from(
                    crossterm::event::KeyCode::Enter,
                )),
            );
            act(
                &mut app,
                &mut answers,
                Action::Key(crossterm::event::KeyEvent::from(
                    crossterm::event::KeyCode::Esc,
                )),
            );
            for cmd in [
                Command::Select,
                Command::ExpandAll,
                Command::Bottom,
                Command::Right,
                Command::Down,
                Command::Sort,
            ] {
                act(&mut app, &mut answers, Action::Command(cmd));
            }
            draw_at(&mut app, &mut answers, SIZES[section % SIZES.len()]);
            act(&mut app, &mut answers, Action::Command(Command::Refresh));
            act(
                &mut app,
                &mut answers,
                Action::Command(Command::NextSection),
            );
        }
    }
    act(&mut app, &mut answers, Action::Command(Command::ErrorLog));
    draw_all_sizes(&mut app, &mut answers);
}

#[test]
fn every_pane_draws_generated_answers_at_every_size() {
    runner(3, 100)
        .run(&answers(), |answers| {
            bounded(Duration::from_secs(120), move || drive_every_pane(answers));
            Ok(())
        })
        .unwrap();
}
