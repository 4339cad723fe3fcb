//! The scan group (`/api/scan`, and `/svN/api/scan` for extra scan instances): update history,
//! events, update by hash, ACS snapshot times and holdings, validator faucets, BFT sequencers,
//! reward weights, bootstrapping transactions, party hosting, status and version, the DSO
//! (`/v0/dso`, each scan naming its own SV) and the network endpoints (`/v0/scans`, open and
//! issuing mining rounds, backfilling status). Scans with faults
//! (`super::faults`) lag, diverge or lack their early history here.

mod acs;
mod dso;
mod history;
mod members;
mod network;
mod traffic;

use axum::Router;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde_json::{Map, Value};

use super::render::Encoding;
use super::server::{Fail, Shared, scan_error};
use super::util::parse_query;
use acs::{holdings_summary, snapshot_timestamp};
use dso::dso_info;
use history::{event_by_id, update_by_hash, update_by_id, updates};
use members::{
    amulet_rules, bft_sequencers, bootstrapping, dso_party_id, participant_ids,
    previous_reward_weight, status, validator_faucets, version,
};
use network::{backfilling_status, list_scans, open_and_issuing_mining_rounds};
use traffic::member_traffic_status;

#[derive(Clone)]
struct ScanCtx {
    app: Shared,
    scan: usize,
}

pub(crate) fn routes(app: Shared, scan: usize) -> Router {
    Router::new()
        .route("/v2/updates", post(updates))
        .route("/v2/updates/{update_id}", get(update_by_id))
        .route("/v2/updates/hash/{hash}", get(update_by_hash))
        .route("/v0/events/{update_id}", get(event_by_id))
        .route("/v1/holdings/summary", post(holdings_summary))
        .route("/v0/state/acs/snapshot-timestamp", get(snapshot_timestamp))
        .route("/v0/validators/validator-faucets", get(validator_faucets))
        .route("/v0/sv-bft-sequencers", get(bft_sequencers))
        .route(
            "/v0/admin/sv/previous-sv-reward-weight",
            post(previous_reward_weight),
        )
        .route(
            "/v0/synchronizer-bootstrapping-transactions/{prefix}",
            get(bootstrapping),
        )
        .route(
            "/v1/domains/{domain_id}/parties/{party_id}/participant-id",
            get(participant_ids),
        )
        .route(
            "/v0/domains/{domain_id}/members/{member_id}/traffic-status",
            get(member_traffic_status),
        )
        .route("/v0/dso-party-id", get(dso_party_id))
        .route("/v0/dso", get(dso_info))
        .route("/status", get(status))
        .route("/version", get(version))
        .route("/v0/scans", get(list_scans))
        .route(
            "/v0/open-and-issuing-mining-rounds",
            post(open_and_issuing_mining_rounds),
        )
        .route("/v0/backfilling/status", get(backfilling_status))
        .route("/v0/amulet-rules", post(amulet_rules))
        .with_state(ScanCtx { app, scan })
}

fn bad(msg: impl Into<String>) -> Fail {
    scan_error(StatusCode::BAD_REQUEST, msg).into()
}

fn not_found(msg: impl Into<String>) -> Fail {
    scan_error(StatusCode::NOT_FOUND, msg).into()
}

/// The integer `key` of `obj`; 400 `msg` when it is missing or no integer.
fn int_field(obj: &Map<String, Value>, key: &str, msg: &str) -> Result<i64, Fail> {
    obj.get(key).and_then(Value::as_i64).ok_or_else(|| bad(msg))
}

/// The string `key` of `obj`; 400 `msg` when it is missing or no string.
fn str_field<'a>(obj: &'a Map<String, Value>, key: &str, msg: &str) -> Result<&'a str, Fail> {
    obj.get(key).and_then(Value::as_str).ok_or_else(|| bad(msg))
}

fn parse_body(body: &Bytes) -> Result<Map<String, Value>, Fail> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(bad("The request body must be a JSON object")),
        Err(e) => Err(bad(format!("The request content was malformed: {e}"))),
    }
}

/// The encoding selector under either of its names.
fn encoding_of<'a>(get: impl Fn(&str) -> Option<&'a Value>) -> Result<Encoding, Fail> {
    for key in ["daml_value_encoding", "contract_value_encoding"] {
        match get(key) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => {
                return Encoding::parse(s).ok_or_else(|| {
                    bad(format!(
                        "Invalid value for {key}: '{s}' (expected compact_json or protobuf_json)"
                    ))
                });
            }
            Some(_) => return Err(bad(format!("{key} must be a string"))),
        }
    }
    Ok(Encoding::CompactJson)
}

fn query_encoding(raw: Option<&str>) -> Result<Encoding, Fail> {
    let q = parse_query(raw);
    let vals: Vec<(String, Value)> = q
        .into_iter()
        .filter(|(k, _)| k == "daml_value_encoding" || k == "contract_value_encoding")
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    encoding_of(|key| vals.iter().find(|(k, _)| k == key).map(|(_, v)| v))
}
