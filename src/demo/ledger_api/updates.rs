//! `POST /v2/updates/trees` and `POST /v2/updates`: the participant's updates in an offset
//! range, filtered by parties and templates, as transaction trees or flat transactions.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::request::{Kind, LIST_LIMIT, authorize, canton_error, invalid, not_found, valid_party};
use crate::demo::ledger::{Body, Node, Update};
use crate::demo::ledger_render::{checkpoint_item, flat_item, tree_item};
use crate::demo::reply::{Fail, Reply, done, json_ok};
use crate::demo::state::Shared;
use crate::demo::topology::{Network, PACKAGES, PartyIdx, Tpl};
use crate::demo::util::{parse_query, query_one};

fn int_field(body: &serde_json::Map<String, Value>, key: &str) -> Result<Option<i64>, Fail> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_i64().map(Some).ok_or_else(|| {
            invalid(format!(
                "Invalid value for: body (expected an int64 at '{key}', got {v})"
            ))
        }),
    }
}

fn bool_field(body: &serde_json::Map<String, Value>, key: &str) -> Result<bool, Fail> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(invalid(format!(
            "Invalid value for: body (expected a boolean at '{key}', got {v})"
        ))),
    }
}

/// The parties a transaction filter asks for: `None` means any party.
pub(super) fn filter_parties(filter: &Value, at: &str) -> Result<(Vec<String>, bool), Fail> {
    let Some(obj) = filter.as_object() else {
        return Err(invalid(format!(
            "Invalid value for: body (expected an object at '{at}')"
        )));
    };
    let mut parties = Vec::new();
    match obj.get("filtersByParty") {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => {
            for k in m.keys() {
                if !valid_party(k) {
                    return Err(invalid(format!(
                        "Invalid value for: body (not a valid party id in '{at}.filtersByParty': {k})"
                    )));
                }
                parties.push(k.clone());
            }
        }
        Some(_) => {
            return Err(invalid(format!(
                "Invalid value for: body (expected an object at '{at}.filtersByParty')"
            )));
        }
    }
    let any = !matches!(obj.get("filtersForAnyParty"), None | Some(Value::Null));
    Ok((parties, any))
}

/// The templates the filter's template filters name (`cumulative[].identifierFilter`), checked
/// as a Canton 3.5.1 node checks them: package-name references (`#name:Module:Entity`) only — a
/// package-id reference is rejected (400), an unknown package name or template is not found
/// (404). Interface and wildcard filters are accepted and select nothing narrower.
fn filter_templates(net: &Network, filter: &Value, at: &str) -> Result<Vec<Tpl>, Fail> {
    let mut all: Vec<(String, &Value)> = Vec::new();
    if let Some(m) = filter.get("filtersByParty").and_then(Value::as_object) {
        for (k, v) in m {
            all.push((format!("{at}.filtersByParty.{k}"), v));
        }
    }
    if let Some(v) = filter.get("filtersForAnyParty").filter(|v| !v.is_null()) {
        all.push((format!("{at}.filtersForAnyParty"), v));
    }
    let mut out = Vec::new();
    for (path, filters) in all {
        let cumulative = match filters.get("cumulative") {
            None | Some(Value::Null) => continue,
            Some(Value::Array(a)) => a,
            Some(_) => {
                return Err(invalid(format!(
                    "Invalid value for: body (expected an array at '{path}.cumulative')"
                )));
            }
        };
        for (i, c) in cumulative.iter().enumerate() {
            let Some(t) = c
                .get("identifierFilter")
                .and_then(|f| f.get("TemplateFilter"))
            else {
                continue;
            };
            let Some(id) = t
                .get("value")
                .and_then(|v| v.get("templateId"))
                .and_then(Value::as_str)
            else {
                return Err(invalid(format!(
                    "Invalid value for: body (missing required field '{path}.cumulative[{i}].identifierFilter.TemplateFilter.value.templateId')"
                )));
            };
            out.push(resolve_template(net, id)?);
        }
    }
    Ok(out)
}

/// One template reference of a filter (see [`filter_templates`]).
fn resolve_template(net: &Network, id: &str) -> Result<Tpl, Fail> {
    let parts: Vec<&str> = id.split(':').collect();
    let [package, module, entity] = parts[..] else {
        return Err(invalid(format!(
            "Invalid value for: body (not a valid template id: {id})"
        )));
    };
    if module.is_empty() || entity.is_empty() {
        return Err(invalid(format!(
            "Invalid value for: body (not a valid template id: {id})"
        )));
    }
    let Some(name) = package.strip_prefix('#') else {
        return Err(canton_error(
            Kind::InvalidArgument,
            "INVALID_ARGUMENT",
            format!(
                "The submitted request has invalid arguments: package-id reference identifiers \
                 are not supported in event filters, use the package-name format \
                 #<package-name>:<module>:<entity>: {id}"
            ),
            &[],
        ));
    };
    if !PACKAGES.iter().any(|(_, n, _)| *n == name) {
        return Err(not_found(
            "PACKAGE_NAMES_NOT_FOUND",
            format!(
                "The following package names do not match upgradable packages uploaded on this \
                 participant: [{name}]."
            ),
            ("PACKAGE_NAME", name),
        ));
    }
    let qualified = format!("{module}:{entity}");
    Tpl::ALL
        .iter()
        .copied()
        .find(|t| net.package_name(*t) == name && t.qualified() == qualified)
        .ok_or_else(|| {
            not_found(
                "TEMPLATES_OR_INTERFACES_NOT_FOUND",
                format!("The following templates or interfaces do not exist: {id}"),
                ("TEMPLATE_ID", id),
            )
        })
}

/// Whether an update has a node (or reassigns a contract) of one of `tpls`.
fn has_template(u: &Update, tpls: &[Tpl]) -> bool {
    match &u.body {
        Body::Tx(tx) => tx.nodes.iter().any(|n| match n {
            Node::Create(c) => tpls.contains(&c.tpl),
            Node::Exercise(e) => tpls.contains(&e.tpl),
            Node::Fetch { .. } => false,
        }),
        Body::Reassign(r) => tpls.contains(&r.create.tpl),
    }
}

pub(super) async fn update_trees(
    State(app): State<Shared>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
    body: Bytes,
) -> Response {
    if app.faults.update_trees_removed {
        // A Canton 3.5+ node: the route is gone (a bare 404, no JsCantonError).
        return (StatusCode::NOT_FOUND, "").into_response();
    }
    done(trees_inner(
        &app,
        &headers,
        q.as_deref(),
        &body,
        Shape::Trees,
    ))
}

/// `POST /v2/updates`: the same range and filters as the trees, transactions flat.
pub(super) async fn updates_flat(
    State(app): State<Shared>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
    body: Bytes,
) -> Response {
    done(trees_inner(
        &app,
        &headers,
        q.as_deref(),
        &body,
        Shape::Flat,
    ))
}

/// How `trees_inner` renders transactions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `/v2/updates/trees`: `TransactionTree`s.
    Trees,
    /// `/v2/updates`: `Transaction`s in the shape `updateFormat` asks for.
    Flat,
}

fn trees_inner(
    app: &Shared,
    headers: &HeaderMap,
    q: Option<&str>,
    body: &Bytes,
    shape: Shape,
) -> Reply {
    authorize(headers)?;
    let q = parse_query(q);
    let limit = match query_one(&q, "limit") {
        None => None,
        Some(s) => match s.parse::<i64>() {
            Ok(n) if n > 0 => Some(n as usize),
            _ => return Err(invalid("Invalid value for: query parameter limit")),
        },
    };
    if let Some(s) = query_one(&q, "stream_idle_timeout_ms")
        && s.parse::<i64>().map_or(true, |n| n < 0)
    {
        return Err(invalid(
            "Invalid value for: query parameter stream_idle_timeout_ms",
        ));
    }
    let req = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return Err(invalid("Invalid value for: body (expected a JSON object)")),
        Err(e) => return Err(invalid(format!("Invalid value for: body ({e})"))),
    };
    let begin = int_field(&req, "beginExclusive")?.ok_or_else(|| {
        invalid("Invalid value for: body (missing required field 'beginExclusive')")
    })?;
    let end = int_field(&req, "endInclusive")?;
    let descending = bool_field(&req, "descendingOrder")?;
    bool_field(&req, "verbose")?;
    if descending && end.is_none() {
        return Err(invalid(
            "Invalid value for: body (descendingOrder requires endInclusive to be set)",
        ));
    }
    if begin < 0 {
        return Err(invalid(format!(
            "Invalid value for: body (beginExclusive must be non-negative, got {begin})"
        )));
    }
    if let Some(e) = end
        && e < 0
    {
        return Err(invalid(format!(
            "Invalid value for: body (endInclusive must be non-negative, got {e})"
        )));
    }
    let mut names: Vec<String> = Vec::new();
    let mut any = true;
    let filter = match req.get("filter") {
        None | Some(Value::Null) => req
            .get("updateFormat")
            .and_then(|u| u.get("includeTransactions"))
            .and_then(|t| t.get("eventFormat"))
            .map(|f| (f, "updateFormat.includeTransactions.eventFormat")),
        Some(f) => Some((f, "filter")),
    };
    let mut templates: Vec<Tpl> = Vec::new();
    if let Some((f, at)) = filter {
        let (ps, any_party) = filter_parties(f, at)?;
        any = any_party || ps.is_empty();
        names = ps;
        templates = filter_templates(&app.net, f, at)?;
    }
    let ledger_effects = req
        .get("updateFormat")
        .and_then(|u| u.get("includeTransactions"))
        .and_then(|t| t.get("transactionShape"))
        .and_then(Value::as_str)
        == Some("TRANSACTION_SHAPE_LEDGER_EFFECTS");

    let net = Arc::clone(&app.net);
    let (items, ledger_end, last_times) = {
        let w = app.read();
        let l = &w.ledger;
        let ledger_end = l.ledger_end();
        if begin > ledger_end || end.is_some_and(|e| e > ledger_end) {
            let off = if begin > ledger_end {
                begin
            } else {
                end.unwrap_or(0)
            };
            return Err(canton_error(
                Kind::OutOfRange,
                "OFFSET_AFTER_LEDGER_END",
                format!("Offset {off} is after ledger end {ledger_end}"),
                &[],
            ));
        }
        let end = end.unwrap_or(ledger_end);
        if end < begin {
            return Err(canton_error(
                Kind::InvalidArgument,
                "INVALID_ARGUMENT",
                format!(
                    "The submitted request has invalid arguments: Begin offset {begin} is after end offset {end}"
                ),
                &[],
            ));
        }
        // Template filters keep the updates that touch one of the templates (whole, so the
        // node-id ranges of a tree stay intact).
        let items: Vec<(i64, Arc<Update>)> = ((begin + 1)..=end)
            .filter_map(|o| {
                l.update_at_offset(o)
                    .and_then(|i| l.update(i))
                    .filter(|u| templates.is_empty() || has_template(u, &templates))
                    .map(|u| (o, Arc::clone(u)))
            })
            .collect();
        let times = last_sync_times(l, end);
        (items, end, times)
    };
    let req_parties = requested_parties(app, &names, any);
    let cap = match limit {
        Some(n) if n <= LIST_LIMIT => Some(n),
        _ => None,
    };
    let mut out: Vec<Value> = Vec::new();
    let mut count = 0usize;
    let mut last_emitted = begin;
    let iter: Box<dyn Iterator<Item = &(i64, Arc<Update>)>> = if descending {
        Box::new(items.iter().rev())
    } else {
        Box::new(items.iter())
    };
    for (offset, u) in iter {
        if cap.is_some_and(|c| out.len() >= c) {
            break;
        }
        let item = match shape {
            Shape::Trees => tree_item(&net, u, *offset, &req_parties),
            Shape::Flat => flat_item(&net, u, *offset, &req_parties, ledger_effects),
        };
        if let Some(v) = item {
            count += 1;
            if count <= LIST_LIMIT {
                out.push(v);
            }
            last_emitted = *offset;
        }
    }
    if !descending && ledger_end > last_emitted && cap.is_none_or(|c| out.len() < c) {
        // The range ends with updates these parties do not see: say how far we got.
        count += 1;
        if count <= LIST_LIMIT {
            out.push(checkpoint_item(&net, ledger_end, last_times));
        }
    }
    if cap.is_none() && count > LIST_LIMIT {
        return Err(canton_error(
            Kind::TooLarge,
            "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED",
            format!(
                "The number of matching elements ({count}) is greater than the node limit ({LIST_LIMIT})."
            ),
            &[],
        ));
    }
    Ok(json_ok(&Value::Array(out)))
}

/// Record time of the latest update per synchronizer up to participant offset `end`.
fn last_sync_times(l: &crate::demo::ledger::Ledger, end: i64) -> [i64; 2] {
    let idx = l.update_at_offset(end).unwrap_or(0);
    let mut times = [0i64; 2];
    let mut found = [false; 2];
    for i in (0..=idx).rev() {
        let Some(u) = l.update(i) else { continue };
        let s = usize::from(u.sync().min(1));
        if !found[s] {
            found[s] = true;
            times[s] = u.record_time;
        }
        if found[0] && found[1] {
            break;
        }
    }
    if !found[1] {
        times[1] = times[0];
    }
    times
}

/// Requested parties that this participant hosts (sorted); all hosted parties for `any`.
pub(super) fn requested_parties(app: &Shared, names: &[String], any: bool) -> Vec<PartyIdx> {
    let net = &app.net;
    let mut v: Vec<PartyIdx> = if any {
        (0..net.parties.len())
            .filter(|i| net.parties[*i].local)
            .map(|i| i as PartyIdx)
            .collect()
    } else {
        names
            .iter()
            .filter_map(|n| net.lookup_party(n))
            .filter(|p| net.party(*p).local)
            .collect()
    };
    v.sort_unstable();
    v.dedup();
    v
}
