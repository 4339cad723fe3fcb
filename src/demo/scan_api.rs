//! The scan group (`/api/scan`, and `/svN/api/scan` for extra scan instances): update history,
//! events, update by hash, ACS snapshot times and holdings, validator faucets, BFT sequencers,
//! reward weights, bootstrapping transactions, party hosting, status and version, and the network
//! endpoints (`/v0/scans`, open and issuing mining rounds, backfilling status). Scans with faults
//! (`super::faults`) lag, diverge or lack their early history here.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse as _, Response};
use axum::routing::{get, post};
use serde_json::{Map, Value, json};

use super::ledger::Update;
use super::network::{Network, PartyIdx};
use super::render::{Encoding, ScanUpdateJson, event_item, scan_update};
use super::server::{Fail, Reply, Shared, done, json_ok, scan_error};
use super::util::{
    fmt_amount, fmt_duration, fmt_time, now_micros, parse_query, parse_time, query_all, query_one,
};

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

// ---------------------------------------------------------------------------------------------
// History

async fn updates(State(c): State<ScanCtx>, body: Bytes) -> Response {
    done(updates_inner(&c, &body))
}

fn updates_inner(c: &ScanCtx, body: &Bytes) -> Reply {
    let req = parse_body(body)?;
    let page_size = match req.get("page_size") {
        None | Some(Value::Null) => return Err(bad("page_size is required")),
        Some(v) => v
            .as_i64()
            .ok_or_else(|| bad("page_size must be an integer"))?,
    };
    if !(1..=1000).contains(&page_size) {
        return Err(bad(format!(
            "page_size must be between 1 and 1000, but was {page_size}"
        )));
    }
    let enc = encoding_of(|k| req.get(k))?;
    let after = match req.get("after") {
        None | Some(Value::Null) => None,
        Some(Value::Object(a)) => {
            let m = a
                .get("after_migration_id")
                .and_then(Value::as_i64)
                .ok_or_else(|| bad("after.after_migration_id must be an integer"))?;
            let t = a
                .get("after_record_time")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("after.after_record_time must be a string"))?;
            let t = parse_time(t).ok_or_else(|| {
                bad(format!(
                    "after.after_record_time is not a valid timestamp: {t}"
                ))
            })?;
            Some((m, t))
        }
        Some(_) => return Err(bad("after must be an object")),
    };
    if let Some(from) = c.app.faults.backfilled_from(c.scan)
        && after.is_none_or(|(_, t)| t < from)
    {
        return Err(scan_error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "This scan is still backfilling its update history: updates before {} are not \
                 available yet; try again later",
                fmt_time(from)
            ),
        )
        .into());
    }
    let (net, items) = {
        let w = c.app.read();
        let l = &w.ledger;
        let start: usize = after.map_or(0, |(m, t)| l.cursor_start(m, t));
        let end = c.app.visible_len(l, c.scan);
        let stop = end.min(start.saturating_add(page_size as usize));
        let items: Vec<(usize, Arc<Update>)> = (start..stop)
            .filter_map(|i| l.update(i).map(|u| (i, Arc::clone(u))))
            .collect();
        (Arc::clone(&c.app.net), items)
    };
    let page = Page {
        transactions: items
            .iter()
            .map(|(i, u)| ScanUpdateJson {
                net: &net,
                u,
                idx: *i,
                scan: c.scan,
                enc,
                diverged: c.app.faults.diverges(c.scan, u),
            })
            .collect(),
    };
    match serde_json::to_vec(&page) {
        Ok(body) => Ok(json_bytes(body)),
        Err(e) => Err(scan_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("failed to render the page: {e}"),
        )
        .into()),
    }
}

#[derive(serde::Serialize)]
struct Page<'a> {
    transactions: Vec<ScanUpdateJson<'a>>,
}

fn json_bytes(body: Vec<u8>) -> Response {
    (
        StatusCode::OK,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

fn find_update(c: &ScanCtx, update_id: &str) -> Option<(usize, Arc<Update>)> {
    let w = c.app.read();
    let l = &w.ledger;
    let idx = l.index_of(update_id)?;
    if idx >= c.app.visible_len(l, c.scan) {
        return None;
    }
    let u = l.update(idx)?;
    if c.app
        .faults
        .backfilled_from(c.scan)
        .is_some_and(|from| u.record_time < from)
    {
        return None;
    }
    Some((idx, Arc::clone(u)))
}

/// One update (or event) as scan `c` renders it: a diverging scan changes a field.
fn rendered(c: &ScanCtx, u: &Update, mut value: Value) -> Response {
    if c.app.faults.diverges(c.scan, u) {
        super::faults::mark_diverged(&mut value);
    }
    json_ok(value)
}

async fn update_by_id(
    State(c): State<ScanCtx>,
    Path(update_id): Path<String>,
    RawQuery(q): RawQuery,
) -> Response {
    one_update(
        &c,
        &update_id,
        q.as_deref(),
        "Transaction with id",
        scan_update,
    )
}

async fn event_by_id(
    State(c): State<ScanCtx>,
    Path(update_id): Path<String>,
    RawQuery(q): RawQuery,
) -> Response {
    one_update(
        &c,
        &update_id,
        q.as_deref(),
        "Event with update id",
        event_item,
    )
}

/// The update `update_id` as `render` draws it, in the encoding the query asks for; 404
/// `{missing} {update_id} not found` when the ledger has no such update.
fn one_update(
    c: &ScanCtx,
    update_id: &str,
    query: Option<&str>,
    missing: &str,
    render: fn(&Network, &Update, usize, usize, Encoding) -> Value,
) -> Response {
    done((|| {
        let enc = query_encoding(query)?;
        let (idx, u) = find_update(c, update_id)
            .ok_or_else(|| not_found(format!("{missing} {update_id} not found")))?;
        Ok(rendered(c, &u, render(&c.app.net, &u, idx, c.scan, enc)))
    })())
}

async fn update_by_hash(
    State(c): State<ScanCtx>,
    Path(hash): Path<String>,
    RawQuery(q): RawQuery,
) -> Response {
    done((|| {
        let enc = query_encoding(q.as_deref())?;
        if !super::util::is_hex(&hash) {
            return Err(bad(format!("Invalid hash: {hash} (expected a hex string)")));
        }
        let hash = hash.to_ascii_lowercase();
        let missing = || not_found(format!("No update found for hash {hash}"));
        let (idx, u) = {
            let w = c.app.read();
            let l = &w.ledger;
            let idx = l.index_of_hash(&hash).ok_or_else(missing)?;
            // This scan only indexed hashes from its own starting point on.
            if idx < c.app.hash_index_start(l, c.scan) || idx >= c.app.visible_len(l, c.scan) {
                return Err(missing());
            }
            let u = l.update(idx).ok_or_else(missing)?;
            if c.app
                .faults
                .backfilled_from(c.scan)
                .is_some_and(|from| u.record_time < from)
            {
                return Err(missing());
            }
            (idx, Arc::clone(u))
        };
        Ok(rendered(
            &c,
            &u,
            scan_update(&c.app.net, &u, idx, c.scan, enc),
        ))
    })())
}

// ---------------------------------------------------------------------------------------------
// ACS snapshots and holdings

async fn snapshot_timestamp(State(c): State<ScanCtx>, RawQuery(q): RawQuery) -> Response {
    done((|| {
        let q = parse_query(q.as_deref());
        let before =
            query_one(&q, "before").ok_or_else(|| bad("Missing query parameter: before"))?;
        let before_t = parse_time(before).ok_or_else(|| {
            bad(format!(
                "Invalid value for query parameter before: {before}"
            ))
        })?;
        let mig = query_one(&q, "migration_id")
            .ok_or_else(|| bad("Missing query parameter: migration_id"))?;
        let mig: i64 = mig.parse().map_err(|_| {
            bad(format!(
                "Invalid value for query parameter migration_id: {mig}"
            ))
        })?;
        let w = c.app.read();
        let t = w.ledger.snapshot_before(mig, before_t).ok_or_else(|| {
            not_found(format!(
                "No ACS snapshot found for migration id {mig} before {before}"
            ))
        })?;
        Ok(json_ok(json!({ "record_time": fmt_time(t) })))
    })())
}

async fn holdings_summary(State(c): State<ScanCtx>, body: Bytes) -> Response {
    done(holdings_inner(&c, &body))
}

fn holdings_inner(c: &ScanCtx, body: &Bytes) -> Reply {
    let req = parse_body(body)?;
    let migration = req
        .get("migration_id")
        .and_then(Value::as_i64)
        .ok_or_else(|| bad("migration_id is required and must be an integer"))?;
    let rt_str = req
        .get("record_time")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("record_time is required and must be a date-time string"))?;
    let rt = parse_time(rt_str)
        .ok_or_else(|| bad(format!("record_time is not a valid date-time: {rt_str}")))?;
    let exact = match req.get("record_time_match") {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) if s == "exact" => true,
        Some(Value::String(s)) if s == "at_or_before" => false,
        Some(other) => {
            return Err(bad(format!(
                "Invalid record_time_match: {other} (expected \"exact\" or \"at_or_before\")"
            )));
        }
    };
    let Some(Value::Array(owners)) = req.get("owner_party_ids") else {
        return Err(bad(
            "owner_party_ids is required and must be an array of party ids",
        ));
    };
    if owners.is_empty() {
        return Err(bad("owner_party_ids must contain at least one party id"));
    }
    let mut owner_ids: Vec<PartyIdx> = Vec::new();
    for o in owners {
        let s = o
            .as_str()
            .ok_or_else(|| bad("owner_party_ids must contain strings"))?;
        if let Some(p) = c.app.net.lookup_party(s)
            && !owner_ids.contains(&p)
        {
            owner_ids.push(p);
        }
    }
    let w = c.app.read();
    let l = &w.ledger;
    let snapshot = if exact {
        l.is_snapshot(migration, rt).then_some(rt)
    } else {
        l.snapshot_at_or_before(migration, rt)
    };
    let snapshot = snapshot.ok_or_else(|| {
        let how = if exact { "at" } else { "at or before" };
        not_found(format!(
            "No ACS snapshot found for migration id {migration} {how} record time {rt_str}"
        ))
    })?;
    let net = &c.app.net;
    let summaries: Vec<Value> = l
        .holdings_at(snapshot, &owner_ids)
        .iter()
        .map(|h| {
            json!({
                "party_id": net.party_id(h.party),
                "total_unlocked_coin": fmt_amount(h.unlocked),
                "total_locked_coin": fmt_amount(h.locked),
                "total_coin_holdings": fmt_amount(h.unlocked + h.locked),
            })
        })
        .collect();
    Ok(json_ok(json!({
        "record_time": rt_str,
        "migration_id": migration,
        "summaries": summaries,
    })))
}

// ---------------------------------------------------------------------------------------------
// Validators, SVs, synchronizers

async fn validator_faucets(State(c): State<ScanCtx>, RawQuery(q): RawQuery) -> Response {
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
    json_ok(json!({ "validatorsReceivedFaucets": out }))
}

async fn bft_sequencers(State(c): State<ScanCtx>) -> Response {
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
    json_ok(json!({ "bftSequencers": seqs }))
}

/// `POST /v0/amulet-rules`: the current `AmuletRules` contract; without `contract` when the
/// request names its id as cached (both request fields optional strings, as in Splice).
async fn amulet_rules(State(c): State<ScanCtx>, body: Bytes) -> Response {
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
            super::render::contract_with_state(net, create, at, Some(net.sync_id(sync)));
        if cached.as_deref() == Some(cid)
            && let Some(m) = update.as_object_mut()
        {
            m.remove("contract");
        }
        Ok(json_ok(json!({ "amulet_rules_update": update })))
    })())
}

async fn previous_reward_weight(State(c): State<ScanCtx>, body: Bytes) -> Response {
    done((|| {
        let req = parse_body(&body)?;
        let sv = req
            .get("svParty")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("svParty is required and must be a string"))?;
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
        Ok(json_ok(match weight {
            Some(wt) => json!({ "rewardWeight": wt }),
            None => json!({}),
        }))
    })())
}

async fn bootstrapping(State(c): State<ScanCtx>, Path(prefix): Path<String>) -> Response {
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
            json_ok(json!({
                "domain_parameters": p,
                "sequencer_domain_state": s,
                "mediator_domain_state": m,
            }))
        }
        None => not_found(format!("No synchronizer found with id prefix {prefix}")).into_response(),
    }
}

async fn participant_ids(
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
    json_ok(json!({ "participant_ids": ids }))
}

async fn dso_party_id(State(c): State<ScanCtx>) -> Response {
    json_ok(json!({ "dso_party_id": c.app.net.dso_id() }))
}

async fn status(State(c): State<ScanCtx>) -> Response {
    json_ok(json!({
        "success": {
            "id": "scan-app",
            "uptime": fmt_duration(now_micros() - c.app.started),
            "ports": { "admin": 5012 + c.scan as i64 },
            "extra": null,
            "active": true,
        }
    }))
}

async fn version() -> Response {
    json_ok(json!({ "version": "0.6.10", "commit_ts": "2026-03-02T14:21:07Z" }))
}

// ---------------------------------------------------------------------------------------------
// The network: every SV's scan, mining rounds, backfilling

async fn list_scans(State(c): State<ScanCtx>) -> Response {
    let net = &c.app.net;
    let scans: Vec<Value> = c
        .app
        .urls
        .iter()
        .enumerate()
        .map(|(k, url)| json!({"publicUrl": url, "svName": super::faults::sv_name(net, k)}))
        .collect();
    json_ok(json!({
        "scans": [{"domainId": net.sync_id(super::network::GLOBAL), "scans": scans}]
    }))
}

async fn open_and_issuing_mining_rounds(State(c): State<ScanCtx>, body: Bytes) -> Response {
    done((|| {
        let req = if body.iter().all(u8::is_ascii_whitespace) {
            Map::new()
        } else {
            parse_body(&body)?
        };
        let cached = |key: &str| -> Result<Vec<String>, Fail> {
            match req.get(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(ids)) => ids
                    .iter()
                    .map(|id| {
                        id.as_str()
                            .map(str::to_owned)
                            .ok_or_else(|| bad(format!("{key} must be an array of contract ids")))
                    })
                    .collect(),
                Some(_) => Err(bad(format!("{key} must be an array of contract ids"))),
            }
        };
        let cached_open = cached("cached_open_mining_round_contract_ids")?;
        let cached_issuing = cached("cached_issuing_round_contract_ids")?;
        let w = c.app.read();
        let l = &w.ledger;
        // A lagging scan has not seen the rounds created after its head.
        let cutoff = c
            .app
            .faults
            .lag_of(c.scan)
            .map(|lag| c.app.lag_cutoff(l, lag));
        let net = &c.app.net;
        let rounds = |tpl: super::network::Tpl, cached: &[String]| -> Value {
            let mut m = Map::new();
            for cid in l.active_contracts(tpl) {
                let Some((create, created_at, sync)) = l.contract(cid) else {
                    continue;
                };
                if cutoff.is_some_and(|t| created_at > t) {
                    continue;
                }
                let sync = net.sync_id(sync);
                let entry = if cached.iter().any(|k| k == cid) {
                    json!({ "domain_id": sync })
                } else {
                    super::render::contract_with_state(net, create, created_at, Some(sync))
                };
                m.insert(cid.to_owned(), entry);
            }
            Value::Object(m)
        };
        Ok(json_ok(json!({
            "time_to_live_in_microseconds": 600_000_000,
            "open_mining_rounds": rounds(super::network::Tpl::OpenMiningRound, &cached_open),
            "issuing_mining_rounds": rounds(super::network::Tpl::IssuingMiningRound, &cached_issuing),
        })))
    })())
}

async fn backfilling_status(State(c): State<ScanCtx>) -> Response {
    let complete = c.app.faults.backfilled_from(c.scan).is_none();
    json_ok(json!({ "complete": complete }))
}

// ---------------------------------------------------------------------------------------------
// Sequencer traffic

/// Bytes of extra traffic one transaction costs its submitting participant: a fixed envelope
/// plus a share per node.
const TRAFFIC_PER_TX: i64 = 6_000;
const TRAFFIC_PER_NODE: i64 = 1_500;
/// The smallest purchase; each later top-up doubles the total.
const TRAFFIC_FIRST_PURCHASE: i64 = 2_000_000;
/// A top-up is bought once consumption passes this share (per mille) of the purchased total.
const TRAFFIC_TOP_UP_AT: i64 = 900;
/// How long the sequencer takes to apply a purchase to the member's limit (µs).
const TRAFFIC_APPLY_DELAY: i64 = 30_000_000;

/// The purchased total that covers `consumed` under the demo validator's top-up schedule: the
/// first purchase doubled until consumption is under 90 % of it.
fn traffic_purchased(consumed: i64) -> i64 {
    let mut total = TRAFFIC_FIRST_PURCHASE;
    while consumed * 1000 >= total * TRAFFIC_TOP_UP_AT {
        total *= 2;
    }
    total
}

/// A participant's extra traffic on the global synchronizer at `now`: (consumed, limit,
/// purchased). Consumed grows with every transaction on it whose first submitter the
/// participant hosts; the limit follows the purchases after [`TRAFFIC_APPLY_DELAY`].
pub(crate) fn participant_traffic(
    net: &Network,
    updates: &[Arc<Update>],
    participant: usize,
    now: i64,
) -> (i64, i64, i64) {
    let host = &net.participants[participant].id;
    let mut consumed = 0i64;
    let mut consumed_before = 0i64;
    for u in updates {
        if u.record_time > now {
            break;
        }
        let Some(tx) = u.tx() else { continue };
        if tx.sync != super::network::GLOBAL {
            continue;
        }
        let Some(&submitter) = tx.submitters.first() else {
            continue;
        };
        if &net.host(submitter).id != host {
            continue;
        }
        let cost = TRAFFIC_PER_TX + TRAFFIC_PER_NODE * tx.nodes.len() as i64;
        consumed += cost;
        if u.record_time <= now - TRAFFIC_APPLY_DELAY {
            consumed_before += cost;
        }
    }
    let purchased = traffic_purchased(consumed);
    let limit = traffic_purchased(consumed_before);
    (consumed, limit, purchased)
}

/// Whether `member` reads as `CODE::id::fingerprint`.
fn member_id_ok(member: &str) -> bool {
    let mut parts = member.splitn(3, "::");
    let code = parts.next().unwrap_or_default();
    let id = parts.next().unwrap_or_default();
    let fingerprint = parts.next().unwrap_or_default();
    code.len() == 3
        && code.bytes().all(|b| b.is_ascii_uppercase())
        && !id.is_empty()
        && !fingerprint.is_empty()
        && !fingerprint.contains("::")
}

async fn member_traffic_status(
    State(c): State<ScanCtx>,
    Path((domain_id, member_id)): Path<(String, String)>,
) -> Response {
    let net = &c.app.net;
    if !member_id_ok(&member_id) {
        return bad(format!(
            "Invalid member ID {member_id}: expected code::id::fingerprint"
        ))
        .into_response();
    }
    if !net.synchronizers.contains(&domain_id) {
        return not_found(format!("Synchronizer {domain_id} not found")).into_response();
    }
    let participant = net.participants.iter().position(|p| p.id == member_id);
    let (Some(participant), true) = (
        participant,
        domain_id == net.sync_id(super::network::GLOBAL),
    ) else {
        return not_found(format!(
            "No traffic state found for member {member_id} on synchronizer {domain_id}"
        ))
        .into_response();
    };
    let w = c.app.read();
    let (consumed, limit, purchased) =
        participant_traffic(net, w.ledger.updates(), participant, now_micros());
    json_ok(json!({
        "traffic_status": {
            "actual": { "total_consumed": consumed, "total_limit": limit },
            "target": { "total_purchased": purchased },
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::generate::generate_history;

    const SEC: i64 = 1_000_000;

    #[test]
    fn traffic_follows_the_validators_submissions_and_the_top_up_schedule() {
        let now = 1_800_000_000 * SEC;
        let (l, _) = generate_history(42, now);
        let net = l.network();
        let me = net.ledger_participant;
        let ups = l.updates();
        let first = ups.first().expect("updates").record_time;
        assert_eq!(participant_traffic(net, ups, me, first - 1).0, 0);
        // A transaction the validator's participant submitted costs it; others do not.
        let mine = ups
            .iter()
            .find(|u| {
                u.tx().is_some_and(|t| {
                    t.sync == super::super::network::GLOBAL
                        && t.submitters
                            .first()
                            .is_some_and(|&p| net.host(p).id == net.participants[me].id)
                })
            })
            .expect("the validator submits");
        let tx = mine.tx().expect("tx");
        let before = participant_traffic(net, ups, me, mine.record_time - 1).0;
        let after = participant_traffic(net, ups, me, mine.record_time).0;
        assert_eq!(
            after - before,
            TRAFFIC_PER_TX + TRAFFIC_PER_NODE * tx.nodes.len() as i64
        );
        // Over the whole history: consumed only grows, purchased >= limit always, and the
        // limit covers what was consumed nearly always.
        let (mut last, mut covered, mut samples) = (0, 0, 0);
        let end = ups.last().expect("updates").record_time;
        let step = ((end - first) / 400).max(1);
        let mut t = first;
        while t <= end {
            let (consumed, limit, purchased) = participant_traffic(net, ups, me, t);
            assert!(consumed >= last);
            assert!(purchased >= limit, "{purchased} < {limit}");
            last = consumed;
            covered += usize::from(limit >= consumed);
            samples += 1;
            t += step;
        }
        assert!(last > 0);
        assert!(covered * 100 >= samples * 95, "{covered} of {samples}");
    }
}
