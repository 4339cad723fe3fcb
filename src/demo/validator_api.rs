//! The validator scan-proxy group (`/api/validator`): unclaimed development fund coupons, the
//! amulet rules contract and the status of transfer commands by sender and nonce.

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use serde_json::{Map, Value, json};

use super::ledger::TcStatus;
use super::render::contract_with_state;
use super::reply::{json_ok, scan_error};
use super::state::Shared;
use super::topology::Tpl;
use super::util::{HOUR, now_micros, parse_query, query_one};

pub(crate) fn routes(app: Shared) -> Router {
    Router::new()
        .route(
            "/v0/scan-proxy/unclaimed-development-fund-coupons",
            get(dev_fund_coupons),
        )
        .route("/v0/scan-proxy/amulet-rules", get(amulet_rules))
        .route(
            "/v0/scan-proxy/transfer-command/status",
            get(transfer_status),
        )
        .with_state(app)
}

async fn dev_fund_coupons(State(app): State<Shared>) -> Response {
    let w = app.read();
    let l = &w.ledger;
    let net = &app.net;
    let coupons: Vec<Value> = l
        .unclaimed_dev_coupons()
        .into_iter()
        .filter_map(|cid| l.contract(cid))
        .map(|(c, at, sync)| contract_with_state(net, c, at, Some(net.sync_id(sync))))
        .collect();
    json_ok(&json!({ "unclaimed-development-fund-coupons": coupons }))
}

async fn amulet_rules(State(app): State<Shared>) -> Response {
    let w = app.read();
    let l = &w.ledger;
    let net = &app.net;
    match l.amulet_rules_cid().and_then(|cid| l.contract(cid)) {
        Some((c, at, sync)) => json_ok(&json!({
            "amulet_rules": contract_with_state(net, c, at, Some(net.sync_id(sync)))
        })),
        None => scan_error(StatusCode::NOT_FOUND, "No AmuletRules contract found"),
    }
}

async fn transfer_status(State(app): State<Shared>, RawQuery(q): RawQuery) -> Response {
    let q = parse_query(q.as_deref());
    let Some(sender) = query_one(&q, "sender").filter(|s| !s.is_empty()) else {
        return scan_error(StatusCode::BAD_REQUEST, "Missing query parameter: sender");
    };
    let Some(nonce) = query_one(&q, "nonce") else {
        return scan_error(StatusCode::BAD_REQUEST, "Missing query parameter: nonce");
    };
    let Ok(nonce) = nonce.parse::<i64>() else {
        return scan_error(
            StatusCode::BAD_REQUEST,
            format!("Invalid value for query parameter nonce: {nonce} (expected an integer)"),
        );
    };
    let none = || {
        scan_error(
            StatusCode::NOT_FOUND,
            format!(
                "No TransferCommand found for sender {sender} with nonce {nonce} in the last 24 hours"
            ),
        )
    };
    let net = &app.net;
    let Some(sender_idx) = net.lookup_party(sender) else {
        return none();
    };
    let since = now_micros() - 24 * HOUR;
    let w = app.read();
    let l = &w.ledger;
    let mut map = Map::new();
    for tc in l.transfer_commands() {
        if tc.sender != sender_idx || tc.nonce != nonce || tc.created_time < since {
            continue;
        }
        let Some((c, at, _)) = l.contract(&tc.contract_id) else {
            continue;
        };
        if c.tpl != Tpl::TransferCommand {
            continue;
        }
        let contract = contract_with_state(net, c, at, None)
            .get("contract")
            .cloned()
            .unwrap_or(Value::Null);
        let status = match &tc.status {
            TcStatus::Created => json!({ "status": "created" }),
            TcStatus::Sent => json!({ "status": "sent" }),
            TcStatus::Failed { kind, reason } => {
                json!({ "status": "failed", "failure_kind": kind, "reason": reason })
            }
        };
        map.insert(
            tc.contract_id.clone(),
            json!({ "contract": contract, "status": status }),
        );
    }
    if map.is_empty() {
        return none();
    }
    json_ok(&json!({ "transfer_commands_by_contract_id": map }))
}
