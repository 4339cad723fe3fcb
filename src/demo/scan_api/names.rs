//! What names a party: the validator licenses (`/v0/admin/validator/licenses`, newest first,
//! paged by a row number as real scans do) and the ANS entries (`/v0/ans-entries` by name
//! prefix, `/v0/ans-entries/by-name/{name}`). Every user party of the demo has an entry
//! `<name>.unverified.cns`, as the wallet's default names read on MainNet.

use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse as _, Response};
use serde_json::{Value, json};

use super::request::{ScanCtx, bad, not_found};
use crate::demo::reply::{Fail, json_ok};
use crate::demo::topology::PartyKind;
use crate::demo::util::{fmt_time6, parse_query, query_one};

/// The suffix of the demo's ANS names.
const ANS_SUFFIX: &str = ".unverified.cns";

/// A page size or limit from the query: absent → `default`; not a number in 1..=1000 → 400.
fn page_size(raw: Option<&str>, key: &str, default: Option<i64>) -> Result<i64, Fail> {
    match (raw, default) {
        (None, Some(d)) => Ok(d),
        (None, None) => Err(bad(format!("Missing query parameter: {key}"))),
        (Some(text), _) => match text.parse::<i64>() {
            Ok(n) if (1..=1000).contains(&n) => Ok(n),
            _ => Err(bad(format!("Invalid value for: query parameter {key}"))),
        },
    }
}

pub(super) async fn validator_licenses(
    State(c): State<ScanCtx>,
    RawQuery(q): RawQuery,
) -> Response {
    let q = parse_query(q.as_deref());
    let limit = match page_size(query_one(&q, "limit"), "limit", Some(1000)) {
        Ok(n) => n,
        Err(fail) => return fail.into_response(),
    };
    let after = match query_one(&q, "after").map(str::parse::<i64>) {
        None => 0,
        Some(Ok(n)) if n >= 0 => n,
        Some(_) => return bad("Invalid value for: query parameter after").into_response(),
    };
    let w = c.app.read();
    let mut licenses: Vec<(i64, &str)> = w
        .ledger
        .active_contracts(crate::demo::topology::Tpl::ValidatorLicense)
        .into_iter()
        .filter_map(|cid| w.ledger.contract(cid).map(|(_, at, _)| (at, cid)))
        .collect();
    licenses.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let start = usize::try_from(after).unwrap_or(usize::MAX);
    let end = start.saturating_add(usize::try_from(limit).unwrap_or(1000));
    let page: Vec<Value> = licenses
        .iter()
        .skip(start)
        .take(end - start)
        .filter_map(|(at, cid)| {
            let (create, _, _) = w.ledger.contract(cid)?;
            Some(json!({
                "template_id": c.app.net.template_id(create.tpl),
                "contract_id": create.contract_id,
                "payload": create.args,
                "created_event_blob": crate::demo::render::created_event_blob(&c.app.net, create),
                "created_at": fmt_time6(*at),
            }))
        })
        .collect();
    let mut body = json!({ "validator_licenses": page });
    if end < licenses.len() {
        body["next_page_token"] = json!(end);
    }
    json_ok(&body)
}

/// The demo's ANS entries, oldest (by party order) first.
fn entries(c: &ScanCtx) -> Vec<Value> {
    c.app
        .net
        .parties
        .iter()
        .filter(|p| p.kind == PartyKind::User)
        .map(|p| {
            json!({
                "user": p.id,
                "name": format!("{}{ANS_SUFFIX}", p.name),
                "url": "",
                "description": "",
            })
        })
        .collect()
}

pub(super) async fn ans_entries(State(c): State<ScanCtx>, RawQuery(q): RawQuery) -> Response {
    let q = parse_query(q.as_deref());
    let size = match page_size(query_one(&q, "page_size"), "page_size", None) {
        Ok(n) => n,
        Err(fail) => return fail.into_response(),
    };
    let prefix = query_one(&q, "name_prefix").unwrap_or_default();
    let found: Vec<Value> = entries(&c)
        .into_iter()
        .filter(|e| e["name"].as_str().is_some_and(|n| n.starts_with(prefix)))
        .take(usize::try_from(size).unwrap_or(1000))
        .collect();
    json_ok(&json!({ "entries": found }))
}

pub(super) async fn ans_entry_by_name(
    State(c): State<ScanCtx>,
    Path(name): Path<String>,
) -> Response {
    match entries(&c).into_iter().find(|e| e["name"] == name.as_str()) {
        Some(entry) => json_ok(&json!({ "entry": entry })),
        None => not_found(format!("No ans entry found for name: {name}")).into_response(),
    }
}
