//! Governance as a scan serves it, read from the history the scan has ingested: the active
//! `VoteRequest` contracts (`/v0/admin/sv/voterequests`, look-ups by contract or tracking id),
//! the closed requests' results (`DsoRules_CloseVoteRequest` results, newest first, filtered
//! and paged with this scan's own row numbers as page tokens; `/count`), and one amulet price
//! vote per active SV (derived from the network; the generated history has no price votes).
//!
//! A lagging scan sees results only up to its head, and its vote history starts a day after
//! the network's (as older scans lack vote history before Nov 2024 while reporting their
//! backfill complete): its results and their count differ from the other scans'.
//!
//! A scan given the `page_token_ignored` fault answers every results page as the first one (as
//! an older scan may ignore `pageToken`).

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Map, Value, json};

use super::request::{ScanCtx, bad, not_found, parse_body};
use crate::demo::ledger::{Body, Ledger, Node};
use crate::demo::render::contract_with_state;
use crate::demo::reply::{Fail, done, json_ok};
use crate::demo::topology::Tpl;
use crate::demo::util::{HOUR, fmt_time6, parse_time, sha256_hex};

/// Most results one page returns.
const MAX_LIMIT: i64 = 1000;

/// Row numbers of scan k start here (each scan numbers its rows itself).
fn row_base(scan: usize) -> i64 {
    i64::try_from(scan).unwrap_or(0) * 100_000
}

/// The record time of the newest update scan `c.scan` has ingested.
fn scan_head(c: &ScanCtx, l: &Ledger) -> (usize, i64) {
    let n = c.app.visible_len(l, c.scan);
    let head = n
        .checked_sub(1)
        .and_then(|i| l.update(i))
        .map_or(0, |u| u.record_time);
    (n, head)
}

/// The active vote requests scan `c.scan` knows, as `Contract`s, oldest first.
fn active_requests(c: &ScanCtx, l: &Ledger) -> Vec<Value> {
    let (_, head) = scan_head(c, l);
    l.active_at(Tpl::VoteRequest, head)
        .into_iter()
        .filter_map(|cid| {
            let (create, created_at, sync) = l.contract(cid)?;
            let with_state = contract_with_state(
                &c.app.net,
                create,
                created_at,
                Some(c.app.net.sync_id(sync)),
            );
            with_state.get("contract").cloned()
        })
        .collect()
}

fn matches_id(contract: &Value, id: &str) -> bool {
    contract["contract_id"].as_str() == Some(id)
        || contract["payload"]["trackingCid"].as_str() == Some(id)
}

pub(super) async fn vote_requests(State(c): State<ScanCtx>) -> Response {
    let w = c.app.read();
    json_ok(&json!({ "dso_rules_vote_requests": active_requests(&c, &w.ledger) }))
}

pub(super) async fn vote_requests_by_id(State(c): State<ScanCtx>, body: Bytes) -> Response {
    done((|| {
        let req = parse_body(&body)?;
        let ids: Vec<&str> = match req.get("vote_request_contract_ids") {
            Some(Value::Array(ids)) => ids
                .iter()
                .map(|id| {
                    id.as_str()
                        .ok_or_else(|| bad("vote_request_contract_ids must be an array of strings"))
                })
                .collect::<Result<_, Fail>>()?,
            _ => {
                return Err(bad(
                    "vote_request_contract_ids is required and must be an array of strings",
                ));
            }
        };
        let w = c.app.read();
        let found: Vec<Value> = active_requests(&c, &w.ledger)
            .into_iter()
            .filter(|r| ids.iter().any(|id| matches_id(r, id)))
            .collect();
        Ok(json_ok(&json!({ "vote_requests": found })))
    })())
}

pub(super) async fn vote_request(State(c): State<ScanCtx>, Path(cid): Path<String>) -> Response {
    let w = c.app.read();
    match active_requests(&c, &w.ledger)
        .into_iter()
        .find(|r| matches_id(r, &cid))
    {
        Some(r) => json_ok(&json!({ "dso_rules_vote_request": r })),
        None => done(Err(not_found(format!(
            "No active VoteRequest found for contract id {cid}"
        )))),
    }
}

/// A closed request as scan `c.scan` has it: its row number, effective time, result.
struct Row {
    row: i64,
    effective: i64,
    result: Value,
}

/// Every result scan `c.scan` has, oldest (lowest row) first.
fn results(c: &ScanCtx, l: &Ledger) -> Vec<Row> {
    let (n, _) = scan_head(c, l);
    let first = l.updates().first().map_or(0, |u| u.record_time);
    let history_from = c.app.faults.lag_of(c.scan).map(|_| first + 24 * HOUR);
    let mut rows: Vec<(i64, usize, Value)> = Vec::new();
    for (i, u) in l.updates()[..n.min(l.len())].iter().enumerate() {
        let Body::Tx(tx) = &u.body else { continue };
        for node in &tx.nodes {
            let Node::Exercise(e) = node else { continue };
            if e.choice != "DsoRules_CloseVoteRequest" || !e.result.is_object() {
                continue;
            }
            if history_from.is_some_and(|from| u.record_time < from) {
                continue;
            }
            let effective = effective_time(&e.result).unwrap_or(u.record_time);
            rows.push((effective, i, e.result.clone()));
        }
    }
    rows.sort_by_key(|(t, i, _)| (*t, *i));
    let base = row_base(c.scan);
    rows.into_iter()
        .enumerate()
        .map(|(k, (effective, _, result))| Row {
            row: base + i64::try_from(k).unwrap_or(0) + 1,
            effective,
            result,
        })
        .collect()
}

/// `effectiveAt` of an accepted result, else `completedAt`.
fn effective_time(result: &Value) -> Option<i64> {
    let outcome = &result["outcome"];
    let at = if outcome["tag"] == "VRO_Accepted" {
        outcome["value"]["effectiveAt"].as_str()
    } else {
        result["completedAt"].as_str()
    };
    parse_time(at?)
}

/// The filters of a results request, validated as the scan does.
struct Filter {
    action_name: Option<String>,
    accepted: Option<bool>,
    requester: Option<String>,
    from: Option<i64>,
    to: Option<i64>,
}

impl Filter {
    fn parse(req: &Map<String, Value>) -> Result<Filter, Fail> {
        let text = |key: &str| -> Result<Option<String>, Fail> {
            match req.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(bad(format!("{key} must be a string"))),
            }
        };
        let time = |key: &str| -> Result<Option<i64>, Fail> {
            text(key)?
                .map(|s| {
                    parse_time(&s)
                        .ok_or_else(|| bad(format!("{key} is not a valid date-time: {s}")))
                })
                .transpose()
        };
        let accepted = match req.get("accepted") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => return Err(bad("accepted must be a boolean")),
        };
        Ok(Filter {
            action_name: text("actionName")?,
            accepted,
            requester: text("requester")?,
            from: time("effectiveFrom")?,
            to: time("effectiveTo")?,
        })
    }

    fn keeps(&self, row: &Row) -> bool {
        let r = &row.result;
        let action = &r["request"]["action"]["value"];
        let name = ["dsoAction", "amuletRulesAction"]
            .iter()
            .find_map(|k| action[*k]["tag"].as_str())
            .unwrap_or_default();
        let accepted = r["outcome"]["tag"] == "VRO_Accepted";
        let requester = r["request"]["requester"].as_str().unwrap_or_default();
        self.action_name.as_deref().is_none_or(|a| name.contains(a))
            && self.accepted.is_none_or(|a| a == accepted)
            && self
                .requester
                .as_deref()
                .is_none_or(|q| requester.contains(q))
            && self.from.is_none_or(|t| row.effective >= t)
            && self.to.is_none_or(|t| row.effective <= t)
    }
}

pub(super) async fn vote_results(State(c): State<ScanCtx>, body: Bytes) -> Response {
    done((|| {
        let req = parse_body(&body)?;
        let filter = Filter::parse(&req)?;
        let limit = match req.get("limit") {
            Some(Value::Number(n)) => n.as_i64().filter(|l| (1..=MAX_LIMIT).contains(l)),
            _ => None,
        }
        .ok_or_else(|| {
            bad(format!(
                "limit is required and must be an integer in 1..={MAX_LIMIT}"
            ))
        })?;
        let token = match req.get("pageToken") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => Some(
                n.as_i64()
                    .ok_or_else(|| bad("pageToken must be an integer"))?,
            ),
            Some(_) => return Err(bad("pageToken must be an integer")),
        };
        // An older scan may ignore the token: the first page again.
        let token = token.filter(|_| !c.app.faults.ignores_page_token(c.scan));
        let w = c.app.read();
        let mut rows: Vec<Row> = results(&c, &w.ledger)
            .into_iter()
            .filter(|r| filter.keeps(r))
            .filter(|r| token.is_none_or(|t| r.row < t))
            .collect();
        rows.reverse();
        let limit = usize::try_from(limit).unwrap_or(0);
        let more = rows.len() > limit;
        rows.truncate(limit);
        let next = more.then(|| rows.last().map(|r| r.row)).flatten();
        let results: Vec<Value> = rows.into_iter().map(|r| r.result).collect();
        let mut out = json!({ "dso_rules_vote_results": results });
        if let Some(next) = next {
            out["next_page_token"] = json!(next);
        }
        Ok(json_ok(&out))
    })())
}

pub(super) async fn vote_results_count(State(c): State<ScanCtx>, body: Bytes) -> Response {
    done((|| {
        let req = parse_body(&body)?;
        let filter = Filter::parse(&req)?;
        let w = c.app.read();
        let count = results(&c, &w.ledger)
            .iter()
            .filter(|r| filter.keeps(r))
            .count();
        Ok(json_ok(&json!({ "count": count })))
    })())
}

/// Each active SV's amulet price vote: around the open rounds' price, cast at different times;
/// the last SV has voted no price.
pub(super) async fn amulet_price_votes(State(c): State<ScanCtx>) -> Response {
    let w = c.app.read();
    let l = &w.ledger;
    let net = &c.app.net;
    let (_, head) = scan_head(&c, l);
    let svs = net.active_svs();
    let votes: Vec<Value> = svs
        .iter()
        .enumerate()
        .map(|(i, sv)| {
            let party = net.party_id(sv.party);
            let price = match i {
                _ if i + 1 == svs.len() && svs.len() > 1 => Value::Null,
                _ => json!(["0.0050000000", "0.0052000000", "0.0049000000", "0.0051000000"][i % 4]),
            };
            let at = head - (i64::try_from(i).unwrap_or(0) * 7 + 2) * HOUR;
            let cid = format!("00{}", sha256_hex(format!("AmuletPriceVote:{}:{party}", net.seed).as_bytes()));
            json!({
                "template_id": net.template_id(Tpl::AmuletPriceVote),
                "contract_id": cid,
                "payload": {"dso": net.dso_id(), "sv": party, "amuletPrice": price, "lastUpdatedAt": fmt_time6(at)},
                "created_event_blob": "",
                "created_at": fmt_time6(at),
            })
        })
        .collect();
    json_ok(&json!({ "amulet_price_votes": votes }))
}
