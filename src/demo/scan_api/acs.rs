//! ACS snapshot times and holdings summaries.

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::response::Response;
use serde_json::{Value, json};

use super::request::{ScanCtx, bad, int_field, not_found, parse_body, str_field};
use crate::demo::reply::{Reply, done, json_ok};
use crate::demo::topology::PartyIdx;
use crate::demo::util::{fmt_amount, fmt_time, parse_query, parse_time, query_one};

pub(super) async fn snapshot_timestamp(
    State(c): State<ScanCtx>,
    RawQuery(q): RawQuery,
) -> Response {
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
        Ok(json_ok(&json!({ "record_time": fmt_time(t) })))
    })())
}

pub(super) async fn holdings_summary(State(c): State<ScanCtx>, body: Bytes) -> Response {
    done(holdings_inner(&c, &body))
}

fn holdings_inner(c: &ScanCtx, body: &Bytes) -> Reply {
    let req = parse_body(body)?;
    let migration = int_field(
        &req,
        "migration_id",
        "migration_id is required and must be an integer",
    )?;
    let rt_str = str_field(
        &req,
        "record_time",
        "record_time is required and must be a date-time string",
    )?;
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
    Ok(json_ok(&json!({
        "record_time": rt_str,
        "migration_id": migration,
        "summaries": summaries,
    })))
}
