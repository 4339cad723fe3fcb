//! The scans and the rounds: every SV's scan (`/v0/scans`), open and issuing mining rounds,
//! backfilling status.

use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use serde_json::{Map, Value, json};

use super::request::{ScanCtx, bad, parse_body};
use crate::demo::reply::{Fail, done, json_ok};

pub(super) async fn list_scans(State(c): State<ScanCtx>) -> Response {
    let net = &c.app.net;
    let scans: Vec<Value> = c
        .app
        .urls
        .iter()
        .enumerate()
        .map(|(k, url)| json!({"publicUrl": url, "svName": crate::demo::faults::sv_name(net, k)}))
        .collect();
    json_ok(&json!({
        "scans": [{"domainId": net.sync_id(crate::demo::topology::GLOBAL), "scans": scans}]
    }))
}

pub(super) async fn open_and_issuing_mining_rounds(
    State(c): State<ScanCtx>,
    body: Bytes,
) -> Response {
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
        let rounds = |tpl: crate::demo::topology::Tpl, cached: &[String]| -> Value {
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
                    crate::demo::render::contract_with_state(net, create, created_at, Some(sync))
                };
                m.insert(cid.to_owned(), entry);
            }
            Value::Object(m)
        };
        Ok(json_ok(&json!({
            "time_to_live_in_microseconds": 600_000_000,
            "open_mining_rounds": rounds(crate::demo::topology::Tpl::OpenMiningRound, &cached_open),
            "issuing_mining_rounds": rounds(crate::demo::topology::Tpl::IssuingMiningRound, &cached_issuing),
        })))
    })())
}

pub(super) async fn backfilling_status(State(c): State<ScanCtx>) -> Response {
    let complete = c.app.faults.backfilled_from(c.scan).is_none();
    json_ok(&json!({ "complete": complete }))
}
