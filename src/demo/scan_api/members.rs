//! Validators, SVs and synchronizers: validator faucets, BFT sequencers, amulet rules, previous
//! reward weights, bootstrapping transactions, party hosting, the DSO party, status and version.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse as _, Response};
use serde_json::{Value, json};

use super::request::{ScanCtx, bad, not_found, parse_body, str_field};
use crate::demo::reply::{done, json_ok};
use crate::demo::util::{fmt_duration, now_micros, parse_query, parse_time, query_all};

pub(super) async fn validator_faucets(State(c): State<ScanCtx>, RawQuery(q): RawQuery) -> Response {
    let q = parse_query(q.as_deref());
    let ids: Vec<&str> = query_all(&q, "validator_ids")
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect();
    if ids.is_empty() {
        return bad("Missing query parameter: validator_ids").into_response();
    }
    let w = c.app.read();
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for id in ids {
        let Some(p) = c.app.net.lookup_party(id) else {
            continue;
        };
        if seen.contains(&p) {
            continue;
        }
        seen.push(p);
        if let Some(s) = w.ledger.faucet_stats(p) {
            out.push(json!({
                "validator": c.app.net.party_id(p),
                "numRoundsCollected": s.collected,
                "numRoundsMissed": s.missed,
                "firstCollectedInRound": s.first,
                "lastCollectedInRound": s.last,
            }));
        }
    }
    json_ok(&json!({ "validatorsReceivedFaucets": out }))
}

pub(super) async fn bft_sequencers(State(c): State<ScanCtx>) -> Response {
    let sv = &c.app.net.svs[c.scan % c.app.net.svs.len()];
    let seqs: Vec<Value> = (0..2)
        .map(|serial| {
            json!({
                "serialId": serial,
                "id": sv.sequencer_id,
                "p2pUrl": sv.p2p_url.replace("sequencer-p2p.", &format!("sequencer-p2p-{serial}.")),
            })
        })
        .collect();
    json_ok(&json!({ "bftSequencers": seqs }))
}

/// `POST /v0/amulet-rules`: the current `AmuletRules` contract; without `contract` when the
/// request names its id as cached (both request fields optional strings, as in Splice).
pub(super) async fn amulet_rules(State(c): State<ScanCtx>, body: Bytes) -> Response {
    done((|| {
        let req = parse_body(&body)?;
        let optional_string = |key: &str| match req.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(bad(format!("{key} must be a string"))),
        };
        let cached = optional_string("cached_amulet_rules_contract_id")?;
        optional_string("cached_amulet_rules_domain_id")?;
        let w = c.app.read();
        let l = &w.ledger;
        let net = &c.app.net;
        let (cid, (create, at, sync)) = l
            .amulet_rules_cid()
            .and_then(|cid| Some((cid, l.contract(cid)?)))
            .ok_or_else(|| not_found("No AmuletRules contract found"))?;
        let mut update =
            crate::demo::render::contract_with_state(net, create, at, Some(net.sync_id(sync)));
        if cached.as_deref() == Some(cid)
            && let Some(m) = update.as_object_mut()
        {
            m.remove("contract");
        }
        Ok(json_ok(&json!({ "amulet_rules_update": update })))
    })())
}

pub(super) async fn previous_reward_weight(State(c): State<ScanCtx>, body: Bytes) -> Response {
    done((|| {
        let req = parse_body(&body)?;
        let sv = str_field(&req, "svParty", "svParty is required and must be a string")?;
        let before = match req.get("effectiveBefore") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(
                parse_time(s)
                    .ok_or_else(|| bad(format!("effectiveBefore is not a valid date-time: {s}")))?,
            ),
            Some(_) => return Err(bad("effectiveBefore must be a date-time string")),
        };
        let w = c.app.read();
        let weight = c
            .app
            .net
            .lookup_party(sv)
            .and_then(|p| w.ledger.previous_reward_weight(p, before));
        Ok(json_ok(&match weight {
            Some(wt) => json!({ "rewardWeight": wt }),
            None => json!({}),
        }))
    })())
}

pub(super) async fn bootstrapping(
    State(c): State<ScanCtx>,
    Path(prefix): Path<String>,
) -> Response {
    let net = &c.app.net;
    let found = (!prefix.is_empty())
        .then(|| {
            net.synchronizers
                .iter()
                .position(|s| s.starts_with(&prefix))
        })
        .flatten();
    match found {
        Some(i) => {
            let (p, s, m) = &net.bootstrapping[i];
            json_ok(&json!({
                "domain_parameters": p,
                "sequencer_domain_state": s,
                "mediator_domain_state": m,
            }))
        }
        None => not_found(format!("No synchronizer found with id prefix {prefix}")).into_response(),
    }
}

pub(super) async fn participant_ids(
    State(c): State<ScanCtx>,
    Path((domain_id, party_id)): Path<(String, String)>,
) -> Response {
    let net = &c.app.net;
    if !net.synchronizers.contains(&domain_id) {
        return not_found(format!("Synchronizer {domain_id} not found")).into_response();
    }
    let Some(p) = net.lookup_party(&party_id) else {
        return not_found(format!(
            "No party to participant mapping found for party {party_id} on synchronizer {domain_id}"
        ))
        .into_response();
    };
    let ids: Vec<&str> = net
        .party(p)
        .participants
        .iter()
        .map(|i| net.participants[*i].id.as_str())
        .collect();
    json_ok(&json!({ "participant_ids": ids }))
}

pub(super) async fn dso_party_id(State(c): State<ScanCtx>) -> Response {
    json_ok(&json!({ "dso_party_id": c.app.net.dso_id() }))
}

pub(super) async fn status(State(c): State<ScanCtx>) -> Response {
    json_ok(&json!({
        "success": {
            "id": "scan-app",
            "uptime": fmt_duration(now_micros() - c.app.started),
            "ports": { "admin": 5012 + c.scan as i64 },
            "extra": null,
            "active": true,
        }
    }))
}

pub(super) async fn version() -> Response {
    json_ok(&json!({ "version": "0.6.10", "commit_ts": "2026-03-02T14:21:07Z" }))
}
