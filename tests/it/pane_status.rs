//! The Status pane: snapshots of the dashboard (healthy, failing, recovering nodes; 80x24 and
//! 120x40), headless polling flows (a node going down and coming back, back-off growing then
//! resetting, one request in flight per node, stale requests, the ledger without a token),
//! latency and ledger-rate sparklines, the incremental update-rate statistics and the uptime
//! parser.

use cantonscope::api::ApiError;
use cantonscope::api::scan::{
    MemberTrafficStatusResponse, NodeStatus, OpenAndIssuingMiningRounds, UpdateItem,
};
use cantonscope::app::health;
use cantonscope::model::history::Placement;
use cantonscope::model::summary::{format_time_micros, parse_time_micros};
use cantonscope::msg::Command;
use cantonscope::msg::PaneId;
use cantonscope::msg::{Effect, Fetched, Request, RequestId, Response};
use cantonscope::panes::status::{
    MAX_BACKOFF_MS, NO_TOKEN_TEXT, NodeHealth, NodeKind, StatusPane, retry_delay_ms,
};
use cantonscope::panes::{AppContext, AppEvent, Out, Pane, RenderCtx, Shared};
use cantonscope::ui::format::{human_duration, human_uptime, parse_iso8601_duration};
use cantonscope::ui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use serde_json::json;

use crate::common::pane::{draw, fetched, fetches};
use crate::common::requests::{self as req, Asked, participant_id};
use crate::common::{assert_snapshot, screen_text};

const SEC: i64 = 1_000_000;
const MIN: i64 = 60 * SEC;
const HOUR: i64 = 60 * MIN;

fn t0() -> i64 {
    parse_time_micros("2026-01-01T10:00:00Z").expect("time")
}

fn ctx(has_token: bool) -> AppContext {
    AppContext {
        profile: "test".into(),
        scan_urls: vec![
            "http://scan-0.example:5012".into(),
            "http://scan-1.example:5012".into(),
        ],
        validator_url: Some("http://validator.example:5003".into()),
        ledger_url: Some("http://ledger.example:7575".into()),
        has_token,
        refresh_ms: 2000,
        ..AppContext::default()
    }
}

fn status_ok(id: &str) -> Response {
    let s: NodeStatus = serde_json::from_value(json!({
        "success": {"id": id, "uptime": "PT85H26M0.595279S",
                    "ports": {"admin": 5012, "public": 5013}, "extra": null, "active": true}
    }))
    .expect("status decodes");
    Response::from(s)
}

fn round(number: i64, opens_at: i64) -> serde_json::Value {
    json!({
        "contract": {
            "template_id": "pkg:Splice.Round:OpenMiningRound",
            "contract_id": format!("00round{number}"),
            "payload": {"round": {"number": number.to_string()}, "opensAt": format_time_micros(opens_at)},
            "created_event_blob": "",
            "created_at": format_time_micros(opens_at - 10 * MIN),
        },
        "domain_id": "global-domain::1220"
    })
}

/// Three open rounds (the newest opens in the future) and two issuing ones.
fn mining_rounds() -> Response {
    let r: OpenAndIssuingMiningRounds = serde_json::from_value(json!({
        "time_to_live_in_microseconds": 60_000_000,
        "open_mining_rounds": {
            "00round1233": round(1233, t0() - 15 * MIN),
            "00round1234": round(1234, t0() - 5 * MIN),
            "00round1235": round(1235, t0() + 5 * MIN),
        },
        "issuing_mining_rounds": {
            "00round1231": round(1231, t0() - 35 * MIN),
            "00round1232": round(1232, t0() - 25 * MIN),
        }
    }))
    .expect("rounds decode");
    Response::from(r)
}

/// The participant id the ledger names (without the `PAR::` prefix, as the Ledger API sends it).
const PARTICIPANT: &str = "validator-1::1220beef";

fn traffic(consumed: i64, limit: i64, purchased: i64) -> Response {
    let r: MemberTrafficStatusResponse = serde_json::from_value(json!({
        "traffic_status": {
            "actual": {"total_consumed": consumed, "total_limit": limit},
            "target": {"total_purchased": purchased}
        }
    }))
    .expect("traffic decodes");
    Response::from(r)
}

fn connect_error() -> ApiError {
    ApiError::Connect {
        endpoint: "scan GET /status",
        detail: "connection refused (os error 111)".into(),
    }
}

fn fetch_for(out: &Out, req: &Request) -> Option<RequestId> {
    fetches(out)
        .into_iter()
        .find(|(_, r)| r == req)
        .map(|(id, _)| id)
}

fn answer(
    pane: &mut StatusPane,
    sh: &mut Shared,
    id: RequestId,
    req: Request,
    result: Result<Response, ApiError>,
    elapsed_ms: u32,
) -> Out {
    let mut out = Out::default();
    let reply = Fetched {
        elapsed_ms,
        ..fetched(id, &req, &result)
    };
    // As the app routes it: the nodes' polls to its health, the rest to the pane.
    if sh.health.owns(id) {
        health::drive(sh, &mut out, Some(&reply));
    } else {
        pane.on_fetched(&reply, sh, &mut out);
    }
    out
}

/// The app's start for this pane: its health's first round, then the pane's own requests.
fn start(pane: &mut StatusPane, sh: &mut Shared, out: &mut Out) {
    health::drive(sh, out, None);
    pane.start(sh, out);
}

fn tick(pane: &mut StatusPane, sh: &mut Shared, now: i64) -> Out {
    sh.now = now;
    let mut out = Out::default();
    health::drive(sh, &mut out, None);
    pane.on_tick(sh, &mut out);
    out
}

/// Answers every fetch in `out` successfully.
fn answer_all_ok(pane: &mut StatusPane, sh: &mut Shared, out: &Out, offset: i64, ms: u32) {
    for (id, req) in fetches(out) {
        let resp = match req::asked(&req) {
            Asked::Status(scan) => status_ok(&format!("sv-{scan}::scan-app")),
            Asked::LedgerEnd => req::ledger_end_answer(Some(offset)),
            Asked::AmuletRules => req::ok_answer(),
            Asked::MiningRounds => mining_rounds(),
            Asked::LedgerParticipantId => participant_id(PARTICIPANT),
            Asked::TrafficStatus => traffic(2_600_000, 4_000_000, 8_000_000),
            // The network's measurement (a job over every scan) and the DSO ("my SV") are
            // not this test's.
            Asked::Other(None | Some("scan GET /v0/dso")) => continue,
            Asked::Other(Some("scan GET /v0/admin/sv/voterequests")) => vote_requests(),
            Asked::Other(_) => panic!("unexpected request {req:?}"),
        };
        answer(pane, sh, id, req, Ok(resp), ms);
    }
}

/// Two open vote requests: one closing in 20 hours (amber), one in three days.
fn vote_requests() -> Response {
    let request = |cid: &str, action: &str, before: i64| {
        json!({"contract_id": cid, "created_at": format_time_micros(t0() - HOUR), "payload": {
            "requester": "Alpha-SV",
            "action": {"tag": "ARC_DsoRules", "value": {"dsoAction": {"tag": action, "value": {}}}},
            "reason": {"url": "", "body": ""},
            "voteBefore": format_time_micros(before),
            "votes": [],
            "trackingCid": null}})
    };
    let answer: cantonscope::api::scan::VoteRequests = serde_json::from_value(json!({
        "dso_rules_vote_requests": [
            request("00aa", "SRARC_SetConfig", t0() + 72 * HOUR),
            request("00bb", "SRARC_GrantFeaturedAppRight", t0() + 20 * HOUR),
        ]
    }))
    .expect("decodes");
    Response::from(answer)
}

fn tx(id: &str, migration: i64, record_time: i64) -> UpdateItem {
    serde_json::from_value(json!({
        "update_id": id,
        "migration_id": migration,
        "workflow_id": "",
        "record_time": format_time_micros(record_time),
        "synchronizer_id": "global-domain::1220",
        "effective_at": format_time_micros(record_time),
        "root_event_ids": [],
        "events_by_id": {}
    }))
    .expect("item decodes")
}

/// `n` updates evenly spread over `[from, to)`.
fn updates(prefix: &str, from: i64, to: i64, n: usize) -> Vec<UpdateItem> {
    (0..n)
        .map(|i| {
            let t = from + (to - from) * i as i64 / n as i64;
            tx(&format!("{prefix}{i:05}"), 3, t)
        })
        .collect()
}

/// A dashboard with history loaded and every node answered a few times (latencies vary).
fn healthy() -> (StatusPane, Shared) {
    let mut sh = Shared::new(ctx(true), t0() - 20 * SEC);
    // ~12 minutes of history, busier towards the end.
    sh.history.add_page(
        &updates("a", t0() - 12 * MIN, t0() - 6 * MIN, 60),
        Placement::Append,
    );
    sh.history.add_page(
        &updates("b", t0() - 6 * MIN, t0() - 3 * SEC, 240),
        Placement::Append,
    );
    // The History pane follows the head (it says so through `Shared`).
    sh.history_at_head = true;
    let mut pane = StatusPane::new(&sh);
    let mut out = Out::default();
    start(&mut pane, &mut sh, &mut out);
    answer_all_ok(&mut pane, &mut sh, &out, 100_000, 12);
    for (k, ms) in [30u32, 18, 9, 44, 15, 12, 20, 11, 13]
        .into_iter()
        .enumerate()
    {
        let now = t0() - 20 * SEC + (k as i64 + 1) * 2 * SEC;
        let out = tick(&mut pane, &mut sh, now);
        answer_all_ok(&mut pane, &mut sh, &out, 100_000 + 37 * (k as i64 + 1), ms);
    }
    sh.now = t0();
    (pane, sh)
}

#[test]
fn start_polls_every_configured_node_once() {
    let mut sh = Shared::new(ctx(true), t0());
    let mut pane = StatusPane::new(&sh);
    let mut out = Out::default();
    start(&mut pane, &mut sh, &mut out);
    let reqs: Vec<Request> = fetches(&out).into_iter().map(|(_, r)| r).collect();
    assert_eq!(
        reqs,
        [
            req::status(0),
            req::status(1),
            req::ledger_end(),
            req::amulet_rules(),
            // The app's health also reads the DSO ("my SV") and measures every scan of the
            // network from the start, with the head check (is any scan forked?).
            Request::api(cantonscope::api::scan::dso()),
            Request::NetworkHealth {
                now: t0(),
                heads: Vec::new(),
                head_check: true,
            },
            req::mining_rounds(),
            req::ledger_participant_id(),
            Request::api(cantonscope::api::scan::vote_requests()),
        ]
    );
    // Ticks while everything is in flight issue nothing more.
    for k in 1..10 {
        let out = tick(&mut pane, &mut sh, t0() + k * 5 * SEC);
        assert!(fetches(&out).is_empty(), "one request in flight per node");
    }
    assert_eq!(sh.health.nodes.scan0_health(), NodeHealth::Unknown);
}

#[test]
fn browsing_the_past_claims_no_lag() {
    let (mut pane, mut sh) = healthy();
    sh.history_at_head = false;
    let text = screen_text(&draw(&mut pane, &sh, 120, 40));
    assert!(text.contains("not at the head"), "{text}");
    assert!(!text.contains("lag "), "{text}");
    sh.history_at_head = true;
    let text = screen_text(&draw(&mut pane, &sh, 120, 40));
    assert!(text.contains("lag "), "{text}");
}

#[test]
fn healthy_dashboard_snapshots() {
    let (mut pane, sh) = healthy();
    assert_eq!(sh.health.nodes.scan0_health(), NodeHealth::Ok);
    assert_eq!(pane.migration_id(), Some(3));
    assert!(pane.newest_record_time().is_some());
    let t = draw(&mut pane, &sh, 80, 24);
    let text = screen_text(&t);
    assert!(text.contains("OK  success · active"), "{text}");
    assert!(text.contains("up 3d 13h 26m"), "{text}");
    assert!(text.contains("latency 13 ms"), "{text}");
    assert_snapshot!("status_healthy_80x24", t.backend());
    let t = draw(&mut pane, &sh, 120, 40);
    let text = screen_text(&t);
    assert!(text.contains("ledger end 100,333"), "{text}");
    assert!(text.contains("rate 18.5 offsets/s"), "{text}");
    assert!(text.contains("reachable"), "{text}");
    assert_snapshot!("status_healthy_120x40", t.backend());
    let t = draw(&mut pane, &sh, 200, 60);
    assert_snapshot!("status_healthy_200x60", t.backend());
}

#[test]
fn node_goes_down_shows_why_backs_off_and_recovers() {
    let (mut pane, mut sh) = healthy();
    let scan1 = req::status(1);
    // Next round: scan 1 fails.
    let mut now = t0() + 2 * SEC;
    let out = tick(&mut pane, &mut sh, now);
    let id = fetch_for(&out, &scan1).expect("scan 1 polled");
    let ev = answer(
        &mut pane,
        &mut sh,
        id,
        scan1.clone(),
        Err(connect_error()),
        0,
    );
    answer_all_ok(&mut pane, &mut sh, &out, 1, 10);
    assert!(
        ev.events
            .iter()
            .any(|e| matches!(e, AppEvent::Error(_, m) if m.contains("scan 2 is down"))),
        "going down is reported once: {:?}",
        ev.events
    );
    let node = sh.health.nodes.node(NodeKind::Scan(1)).expect("node");
    assert_eq!(node.health(), NodeHealth::Down);
    assert_eq!(node.failures, 1);
    assert_eq!(node.next_due() - now, 4 * SEC);
    assert_eq!(
        sh.health.nodes.scan0_health(),
        NodeHealth::Ok,
        "the header follows scan 0"
    );
    let t = draw(&mut pane, &sh, 120, 40);
    let text = screen_text(&t);
    assert!(text.contains("DOWN  1 failed attempt in a row"), "{text}");
    assert!(text.contains("connection refused"), "{text}");
    assert!(text.contains("retry in 4s"), "{text}");

    // Keep failing: the wait doubles up to 30 s; no request before it is due.
    let mut waits = vec![4 * SEC];
    for _ in 0..5 {
        let due = sh
            .health
            .nodes
            .node(NodeKind::Scan(1))
            .expect("node")
            .next_due();
        let out = tick(&mut pane, &mut sh, due - SEC);
        assert!(fetch_for(&out, &scan1).is_none(), "not before it is due");
        answer_all_ok(&mut pane, &mut sh, &out, 1, 10);
        now = due;
        let out = tick(&mut pane, &mut sh, now);
        let id = fetch_for(&out, &scan1).expect("retried when due");
        let ev = answer(
            &mut pane,
            &mut sh,
            id,
            scan1.clone(),
            Err(connect_error()),
            0,
        );
        assert!(ev.events.is_empty(), "no repeated error toasts while down");
        answer_all_ok(&mut pane, &mut sh, &out, 1, 10);
        waits.push(
            sh.health
                .nodes
                .node(NodeKind::Scan(1))
                .expect("node")
                .next_due()
                - now,
        );
    }
    assert_eq!(
        waits,
        [4 * SEC, 8 * SEC, 16 * SEC, 30 * SEC, 30 * SEC, 30 * SEC]
    );
    assert_eq!(MAX_BACKOFF_MS, 30_000);
    let t = draw(&mut pane, &sh, 80, 24);
    assert_snapshot!("status_failing_80x24", t.backend());
    let failing = draw(&mut pane, &sh, 120, 40);
    assert_snapshot!("status_failing_120x40", failing.backend());

    // It comes back: the card recovers, the back-off resets.
    now = sh
        .health
        .nodes
        .node(NodeKind::Scan(1))
        .expect("node")
        .next_due();
    let out = tick(&mut pane, &mut sh, now);
    let id = fetch_for(&out, &scan1).expect("retried");
    let ev = answer(
        &mut pane,
        &mut sh,
        id,
        scan1.clone(),
        Ok(status_ok("sv-1::scan-app")),
        25,
    );
    assert!(
        ev.events.iter().any(
            |e| matches!(e, AppEvent::Message(_, m) if m.contains("scan 2 is reachable again"))
        )
    );
    answer_all_ok(&mut pane, &mut sh, &out, 2, 10);
    let node = sh.health.nodes.node(NodeKind::Scan(1)).expect("node");
    assert_eq!(node.health(), NodeHealth::Ok);
    assert_eq!(node.failures, 0);
    assert_eq!(
        node.next_due() - now,
        2 * SEC,
        "back to the refresh interval"
    );
    assert_eq!(node.last_latency(), Some(25));
    sh.now = now + 5 * SEC;
    let t = draw(&mut pane, &sh, 120, 40);
    let text = screen_text(&t);
    assert!(text.contains("recovered · last error 35s ago"), "{text}");
    assert_snapshot!("status_recovering_120x40", t.backend());
    let t = draw(&mut pane, &sh, 80, 24);
    assert_snapshot!("status_recovering_80x24", t.backend());
}

#[test]
fn a_rate_limited_node_is_not_down() {
    let (mut pane, mut sh) = healthy();
    let scan1 = req::status(1);
    let now = t0() + 2 * SEC;
    let out = tick(&mut pane, &mut sh, now);
    let id = fetch_for(&out, &scan1).expect("scan 1 polled");
    let too_many = ApiError::Http {
        endpoint: "scan GET /status",
        status: 429,
        body_snippet: "too many requests".into(),
    };
    let ev = answer(&mut pane, &mut sh, id, scan1, Err(too_many), 0);
    answer_all_ok(&mut pane, &mut sh, &out, 1, 10);
    assert!(ev.events.is_empty(), "nothing is down: {:?}", ev.events);
    let node = sh.health.nodes.node(NodeKind::Scan(1)).expect("node");
    assert_eq!(
        node.health(),
        NodeHealth::Ok,
        "it answered, asking us to wait"
    );
    assert_eq!(node.failures, 0);
    assert!(node.next_due() - now >= 4 * SEC, "asked again later");
    let text = screen_text(&draw(&mut pane, &sh, 120, 40));
    assert!(text.contains("HTTP 429"), "the card shows it: {text}");
    assert!(!text.contains("scan 2 down"), "{text}");
}

#[test]
fn header_health_follows_scan_zero() {
    let mut sh = Shared::new(ctx(true), t0());
    let mut pane = StatusPane::new(&sh);
    let mut out = Out::default();
    start(&mut pane, &mut sh, &mut out);
    let scan0 = req::status(0);
    let id = fetch_for(&out, &scan0).expect("scan 0");
    let not_init: NodeStatus =
        serde_json::from_value(json!({"not_initialized": {"active": false}})).expect("decodes");
    answer(
        &mut pane,
        &mut sh,
        id,
        scan0.clone(),
        Ok(Response::from(not_init)),
        5,
    );
    assert_eq!(sh.health.nodes.scan0_health(), NodeHealth::Degraded);
    let t = draw(&mut pane, &sh, 80, 24);
    assert!(screen_text(&t).contains("DEGRADED  not initialized"));
    // Every card but the traffic and governance cards (about the validator and the DSO, not
    // nodes).
    assert_eq!(pane.tab_count(&sh), Some(pane.card_count() - 2));

    let out = tick(&mut pane, &mut sh, t0() + 2 * SEC);
    let id = fetch_for(&out, &scan0).expect("scan 0 again");
    let failed: NodeStatus =
        serde_json::from_value(json!({"failed": {"error": "db down"}})).expect("decodes");
    answer(
        &mut pane,
        &mut sh,
        id,
        scan0.clone(),
        Ok(Response::from(failed)),
        5,
    );
    assert_eq!(sh.health.nodes.scan0_health(), NodeHealth::Degraded);
    let t = draw(&mut pane, &sh, 80, 24);
    assert!(screen_text(&t).contains("failed: db down"));

    let out = tick(&mut pane, &mut sh, t0() + 4 * SEC);
    let id = fetch_for(&out, &scan0).expect("scan 0 again");
    answer(&mut pane, &mut sh, id, scan0, Err(connect_error()), 5);
    assert_eq!(sh.health.nodes.scan0_health(), NodeHealth::Down);
    assert_eq!(
        pane.tab_count(&sh),
        Some(pane.card_count() - 2),
        "down: the header says so"
    );
}

#[test]
fn replies_to_unknown_requests_are_ignored() {
    let mut sh = Shared::new(ctx(true), t0());
    let mut pane = StatusPane::new(&sh);
    let mut out = Out::default();
    start(&mut pane, &mut sh, &mut out);
    let ev = answer(
        &mut pane,
        &mut sh,
        RequestId::new(PaneId::Status, 9_999),
        req::status(0),
        Err(connect_error()),
        5,
    );
    assert!(ev.events.is_empty());
    assert_eq!(sh.health.nodes.scan0_health(), NodeHealth::Unknown);
    // The right id with another request kind is not ours either.
    let id = fetch_for(&out, &req::status(0)).expect("scan 0");
    answer(
        &mut pane,
        &mut sh,
        id,
        req::ledger_end(),
        Err(connect_error()),
        5,
    );
    assert_eq!(sh.health.nodes.scan0_health(), NodeHealth::Unknown);
}

#[test]
fn a_request_without_answer_is_given_up_and_retried() {
    let mut sh = Shared::new(ctx(true), t0());
    let mut pane = StatusPane::new(&sh);
    let mut out = Out::default();
    start(&mut pane, &mut sh, &mut out);
    let id = fetch_for(&out, &req::status(0)).expect("scan 0");
    let out = tick(&mut pane, &mut sh, t0() + 91 * SEC);
    assert!(out.effects.contains(&Effect::Cancel(id)));
    assert_eq!(sh.health.nodes.scan0_health(), NodeHealth::Down);
    // The late reply is dropped.
    answer(
        &mut pane,
        &mut sh,
        id,
        req::status(0),
        Ok(status_ok("x")),
        5,
    );
    assert_eq!(sh.health.nodes.scan0_health(), NodeHealth::Down);
    let out = tick(&mut pane, &mut sh, t0() + 95 * SEC);
    assert!(fetch_for(&out, &req::status(0)).is_some());
}

#[test]
fn latency_and_ledger_rate_sparklines_get_values() {
    let (_pane, sh) = healthy();
    let scan0 = sh.health.nodes.node(NodeKind::Scan(0)).expect("scan 0");
    let lat: Vec<Option<u64>> = scan0.latencies().collect();
    assert_eq!(
        lat,
        [12, 30, 18, 9, 44, 15, 12, 20, 11, 13].map(Some).to_vec()
    );
    let ledger = sh.health.nodes.node(NodeKind::Ledger).expect("ledger");
    // 37 offsets every 2 s.
    assert_eq!(ledger.rate, Some(18.5));
    assert_eq!(ledger.ledger_end, Some(Some(100_333)));

    // A failure leaves a gap in the latency history; only the last 60 are kept.
    let (mut pane, mut sh) = healthy();
    for k in 0..70 {
        let now = t0() + (k + 1) * 60 * SEC;
        let out = tick(&mut pane, &mut sh, now);
        for (id, req) in fetches(&out) {
            if req == (req::status(0)) && k == 69 {
                answer(&mut pane, &mut sh, id, req, Err(connect_error()), 0);
            } else if req == (req::status(0)) {
                answer(&mut pane, &mut sh, id, req, Ok(status_ok("a")), 7);
            }
        }
    }
    let lat: Vec<Option<u64>> = sh
        .health
        .nodes
        .node(NodeKind::Scan(0))
        .expect("scan 0")
        .latencies()
        .collect();
    assert_eq!(lat.len(), 60);
    assert_eq!(lat.last(), Some(&None));
    assert_eq!(lat[0], Some(7));
}

#[test]
fn ledger_without_token_is_not_polled_and_says_how_to_configure() {
    let mut sh = Shared::new(ctx(false), t0());
    let mut pane = StatusPane::new(&sh);
    let mut out = Out::default();
    start(&mut pane, &mut sh, &mut out);
    assert!(fetch_for(&out, &req::ledger_end()).is_none());
    let out = tick(&mut pane, &mut sh, t0() + 60 * SEC);
    assert!(fetch_for(&out, &req::ledger_end()).is_none());
    let t = draw(&mut pane, &sh, 120, 40);
    let text = screen_text(&t);
    assert!(text.contains("NOT POLLED"));
    assert!(text.contains("no ledger token configured"), "{text}");
    assert!(text.contains("CANTONSCOPE_TOKEN"), "{text}");
    assert!(text.contains("--token-file"), "{text}");
    assert!(NO_TOKEN_TEXT.contains("token_command"));
}

#[test]
fn history_rate_is_incremental_and_matches_a_full_count() {
    let mut sh = Shared::new(ctx(true), t0());
    let mut pane = StatusPane::new(&sh);
    let mut out = Out::default();
    start(&mut pane, &mut sh, &mut out);
    assert!(pane.history_stats().per_minute().is_empty());

    // Starts 10 minutes back (as the default start).
    sh.history
        .add_page(&updates("m", t0() - 10 * MIN, t0(), 100), Placement::Append);
    tick(&mut pane, &mut sh, t0());
    check_against_full_count(&pane, &sh);
    let pm = pane.history_stats().per_minute();
    assert_eq!(pm.len(), 30);
    assert_eq!(
        pm.iter().filter(|m| m.is_none()).count(),
        20,
        "minutes before the oldest loaded update are unknown"
    );
    assert!(pm[..20].iter().all(Option::is_none));
    assert_eq!(pm.iter().flatten().sum::<u64>(), 100);
    assert_eq!(pane.history_stats().average_per_minute(), Some(10.0));

    // New updates at the head.
    sh.history
        .add_page(&updates("n", t0(), t0() + 3 * MIN, 90), Placement::Append);
    tick(&mut pane, &mut sh, t0() + 3 * MIN);
    check_against_full_count(&pane, &sh);

    // Earlier updates loaded in front (some inside the window, some far before it).
    let mut earlier = updates("e", t0() - 3 * 60 * MIN, t0() - 2 * 60 * MIN, 50);
    earlier.extend(updates("f", t0() - 25 * MIN, t0() - 10 * MIN, 30));
    sh.history.add_page(&earlier, Placement::Prepend);
    tick(&mut pane, &mut sh, t0() + 3 * MIN);
    check_against_full_count(&pane, &sh);
    assert!(
        pane.history_stats()
            .per_minute()
            .iter()
            .all(Option::is_some),
        "the window is fully loaded now"
    );
    assert_eq!(pane.history_stats().loaded, 270);
    assert_eq!(
        pane.newest_record_time(),
        sh.history
            .last()
            .map(cantonscope::model::summary::UpdateSummary::record_time)
    );

    // A replaced history (e.g. a new start time) is counted from scratch.
    sh.history = Default::default();
    sh.history
        .add_page(&updates("z", t0(), t0() + MIN, 7), Placement::Append);
    tick(&mut pane, &mut sh, t0() + 3 * MIN);
    check_against_full_count(&pane, &sh);
    assert_eq!(
        pane.history_stats()
            .per_minute()
            .iter()
            .flatten()
            .sum::<u64>(),
        7
    );
}

/// The incremental per-minute counts equal a count over the whole history.
fn check_against_full_count(pane: &StatusPane, sh: &Shared) {
    let stats = pane.history_stats();
    let newest = sh
        .history
        .iter()
        .map(cantonscope::model::summary::UpdateSummary::record_time)
        .max()
        .expect("items");
    let oldest = sh.history.first().expect("items").record_time();
    let end = newest.div_euclid(MIN);
    let start = end - 29;
    let expected: Vec<Option<u64>> = (start..=end)
        .map(|m| {
            if m < oldest.div_euclid(MIN) {
                None
            } else {
                Some(
                    sh.history
                        .iter()
                        .filter(|s| s.record_time().div_euclid(MIN) == m)
                        .count() as u64,
                )
            }
        })
        .collect();
    assert_eq!(stats.per_minute(), expected);
}

#[test]
fn refresh_polls_now_and_copy_takes_the_last_error() {
    let (mut pane, mut sh) = healthy();
    let mut out = Out::default();
    assert!(pane.on_command(Command::Refresh, &mut sh, &mut out));
    // The pane asks the app's health, as the app carries it out.
    for event in std::mem::take(&mut out.events) {
        if let AppEvent::Health(intent) = event {
            health::intent(intent, &mut sh, &mut out);
        }
    }
    assert_eq!(fetches(&out).len(), 4);
    let id = fetch_for(&out, &req::status(0)).expect("scan 0");
    answer(
        &mut pane,
        &mut sh,
        id,
        req::status(0),
        Err(connect_error()),
        0,
    );
    // The first card (scan 0) is selected.
    let mut out = Out::default();
    assert!(pane.on_command(Command::Copy, &mut sh, &mut out));
    assert!(matches!(&out.effects[..], [Effect::Copy(t)] if t.contains("connection refused")));
    // Down to the second card (scan 1): no error, its URL.
    let mut out = Out::default();
    assert!(pane.on_command(Command::Down, &mut sh, &mut out));
    assert!(pane.on_command(Command::Copy, &mut sh, &mut out));
    assert_eq!(
        out.effects,
        [Effect::Copy("http://scan-1.example:5012".into())]
    );
}

#[test]
fn scrolling_keeps_the_selected_card_visible_at_80x24() {
    let (mut pane, sh) = healthy();
    let mut sh = sh;
    let mut out = Out::default();
    pane.set_area(Rect::new(0, 0, 80, 24));
    for _ in 0..10 {
        pane.on_command(Command::Down, &mut sh, &mut out);
    }
    let t = draw(&mut pane, &sh, 80, 24);
    let text = screen_text(&t);
    assert!(text.contains("validator proxy"), "{text}");
    assert!(text.contains("↑"), "{text}");
}

#[test]
fn tiny_sizes_never_panic() {
    let (mut pane, sh) = healthy();
    for (w, h) in [(1, 1), (0, 0), (5, 3), (30, 5), (59, 8), (2, 40), (200, 2)] {
        pane.set_area(Rect::new(0, 0, w, h));
        let mut terminal = Terminal::new(TestBackend::new(w.max(1), h.max(1))).expect("t");
        let theme = Theme::default();
        terminal
            .draw(|f| {
                pane.render(
                    Rect::new(0, 0, w, h),
                    f.buffer_mut(),
                    RenderCtx::new(&sh, &theme, false),
                );
            })
            .expect("draw");
    }
}

#[test]
fn uptime_parsing() {
    assert_eq!(human_uptime("PT85H26M0.595279S"), "3d 13h 26m");
    assert_eq!(
        parse_iso8601_duration("PT85H26M0.595279S"),
        Some((85 * 3600 + 26 * 60) * SEC + 595_279)
    );
    assert_eq!(human_uptime("PT0.595279S"), "0s");
    assert_eq!(human_uptime("PT1M"), "1m 0s");
    assert_eq!(human_uptime("PT2H"), "2h 0m");
    assert_eq!(human_uptime("P3DT4H5M"), "3d 4h 5m");
    assert_eq!(parse_iso8601_duration("garbage"), None);
    assert_eq!(parse_iso8601_duration("PT"), None);
    assert_eq!(parse_iso8601_duration("PT1H30"), None);
    assert_eq!(human_duration(90 * SEC), "1m 30s");
    assert_eq!(retry_delay_ms(2000, 1), 4000);
}

// ---------------------------------------------------------------------------------------------
// My node
// ---------------------------------------------------------------------------------------------

/// Expositions of an SV's nodes at `now` whose sequencer client is 10 minutes behind, with a
/// round that has not changed and failing automation.
fn node_scrapes(
    now: i64,
    open_round: i64,
    failures: i64,
) -> Vec<cantonscope::model::metrics::Scrape> {
    use cantonscope::model::metrics::scrape_of;
    vec![
        scrape_of(
            "participant",
            now,
            &format!(
                "daml_sequencer_client_handler_last_sequencing_time_micros {}\n\
                 daml_participant_sync_commitments_last_locally_checkpointed {}\n\
                 daml_sequencer_client_traffic_control_extra_traffic_purchased 100\n\
                 daml_sequencer_client_traffic_control_extra_traffic_consumed 90\n",
                now - 10 * MIN,
                now - MIN
            ),
        ),
        scrape_of(
            "sv-app",
            now,
            &format!(
                "splice_sv_dso_store_latest_open_mining_round {open_round}\n\
                 splice_trigger_completed_total{{outcome=\"failure\"}} {failures}\n\
                 splice_sv_vote_requests_active{{state=\"action_needed\"}} 2\n"
            ),
        ),
        cantonscope::model::metrics::Scrape {
            endpoint: "mediator".into(),
            at_us: now,
            result: Err("mediator (http://mediator:10013/metrics): connection failed".into()),
        },
    ]
}

/// The card first on Status: each rule with its value, threshold, since and source, firing
/// rows first; Enter on it opens the mining rounds card when the rounds are what fires worst.
#[test]
fn my_node_card_snapshot_and_enter() {
    let context = AppContext {
        node_metrics: true,
        ..ctx(true)
    };
    let mut sh = Shared::new(context, t0() - 40 * MIN);
    let mut pane = StatusPane::new(&sh);
    let mut out = Out::default();
    start(&mut pane, &mut sh, &mut out);
    let (id, request) = fetches(&out)
        .into_iter()
        .find(|(_, r)| matches!(r, Request::NodeMetrics { .. }))
        .expect("a metrics scrape at start");
    let first = Response::NodeMetrics(Box::new(node_scrapes(t0() - 40 * MIN, 1234, 3)));
    answer(&mut pane, &mut sh, id, request, Ok(first), 0);
    // 40 minutes later: the same round, two more failures.
    let out = tick(&mut pane, &mut sh, t0());
    let (id, _) = fetches(&out)
        .into_iter()
        .find(|(_, r)| matches!(r, Request::NodeMetrics { .. }))
        .expect("the next scrape");
    let second = Response::NodeMetrics(Box::new(node_scrapes(t0(), 1234, 5)));
    answer(
        &mut pane,
        &mut sh,
        id,
        Request::NodeMetrics { now: t0() },
        Ok(second),
        0,
    );
    let _ = tick(&mut pane, &mut sh, t0());
    let t = draw(&mut pane, &sh, 120, 40);
    let text = screen_text(&t);
    assert!(text.contains("my node"), "{text}");
    assert!(text.contains("rounds not advancing"), "{text}");
    assert!(text.contains("(DA rule)"), "{text}");
    assert!(text.contains("not exported"), "{text}");
    assert_snapshot!("status_my_node_120x40", t.backend());
    // Enter: the worst firing row explained by the mining rounds card.
    let mut out = Out::default();
    assert!(pane.on_command(Command::Select, &mut sh, &mut out));
    let fields = pane.fields(&sh).expect("the selected card");
    assert!(fields.0.starts_with("mining rounds"), "{:?}", fields.0);
}

/// The Status pane with `theme` drawn at `w`×`h`.
fn draw_themed(
    pane: &mut StatusPane,
    sh: &Shared,
    theme: &Theme,
    w: u16,
    h: u16,
) -> Terminal<TestBackend> {
    pane.set_area(Rect::new(0, 0, w, h));
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    terminal
        .draw(|f| pane.render(f.area(), f.buffer_mut(), RenderCtx::new(sh, theme, true)))
        .expect("draw");
    terminal
}

#[test]
fn the_history_card_draws_the_local_indexs_updates_per_day_once_the_app_read_them() {
    use cantonscope::feed::index::IndexFeed;
    use cantonscope::model::index::read::IndexReach;
    let (mut pane, mut sh) = healthy();
    let before = screen_text(&draw(&mut pane, &sh, 80, 24));
    assert!(!before.contains("index/day"), "no index: no row\n{before}");
    // The index feed's reads (the runtime ran them): its reach and the updates per day.
    sh.index = IndexFeed::new(Some("index.sqlite".into()));
    sh.index.reach = Some(IndexReach {
        updates: 61_000,
        first: Some(t0() - 14 * 86_400 * SEC),
        last: Some(t0()),
        sync_running: None,
        network: None,
        rewritten: None,
        read_ms: 0,
    });
    sh.index.per_day = vec![
        0, 0, 1_200, 2_400, 3_100, 4_000, 4_800, 5_200, 5_900, 6_300, 7_000, 7_400, 6_800, 7_900,
    ];
    tick(&mut pane, &mut sh, t0());
    sh.now = t0();
    let dark = Theme::default();
    let mono = Theme::load("mono", None).expect("mono");
    for (w, h, name) in [
        (80, 24, "status_index_days_80x24"),
        (200, 60, "status_index_days_200x60"),
    ] {
        let t = draw_themed(&mut pane, &sh, &dark, w, h);
        let text = screen_text(&t);
        let row = text
            .lines()
            .find(|l| l.contains("index/day 7,900 · 14 d "))
            .unwrap_or_else(|| panic!("the index row at {w}x{h}:\n{text}"));
        // The newest day (the largest) is a full bar, the empty days blank.
        assert!(row.contains('█'), "{row}");
        assert_snapshot!(name, t.backend());
        // NO_COLOR (the mono theme): the same text, the bars without a colour.
        let plain = draw_themed(&mut pane, &sh, &mono, w, h);
        assert_eq!(screen_text(&plain), text, "{w}x{h}");
        let buf = plain.backend().buffer();
        let y = text.lines().position(|l| l == row).expect("the row") as u16;
        let bar = (0..w)
            .find(|x| buf[(*x, y)].symbol() == "█")
            .expect("a full bar");
        assert_eq!(buf[(bar, y)].fg, ratatui::style::Color::Reset, "mono");
        let coloured = t.backend().buffer()[(bar, y)].fg;
        assert_ne!(
            coloured,
            ratatui::style::Color::Reset,
            "dark colours the bars"
        );
    }
}
