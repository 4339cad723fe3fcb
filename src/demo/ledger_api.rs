//! The participant ledger group (JSON Ledger API v2 under `/v2`), as seen by one participant that
//! hosts some of the parties. Every call needs an HS256 bearer token signed with the demo secret.
//! Invalid values answer 400 `text/plain`; other failures a `JsCantonError`.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use serde_json::{Value, json};

use super::auth::verify_bearer;
use super::ledger::{Body, Node, Update};
use super::ledger_render::{checkpoint_item, flat_item, js_transaction, tree_item};
use super::network::{Network, PACKAGES, PartyIdx, Tpl};
use super::server::{Fail, Reply, Shared, World, done, json_ok, json_status};
use super::util::{Rng, now_micros, parse_query, query_all, query_one};

/// The node's `http-list-max-elements-limit`.
pub const LIST_LIMIT: usize = 200;

pub(crate) fn routes(app: Shared) -> Router {
    Router::new()
        .route("/v2/parties/participant-id", get(participant_id))
        .route("/v2/parties/{party}", get(parties))
        .route("/v2/users/{user_id}", delete(delete_user))
        .route("/v2/packages/{package_id}", get(package))
        .route("/v2/state/ledger-end", get(ledger_end))
        .route("/v2/updates/trees", post(update_trees))
        .route("/v2/updates", post(updates_flat))
        .route(
            "/v2/interactive-submission/executeAndWaitForTransaction",
            post(execute),
        )
        .with_state(app)
}

/// 400 with a `text/plain` body, as the JSON API answers invalid values.
fn invalid(msg: impl Into<String>) -> Fail {
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "text/plain; charset=UTF-8")],
        msg.into(),
    )
        .into_response()
        .into()
}

/// A `JsCantonError`.
fn canton_error(
    status: StatusCode,
    code: &str,
    cause: String,
    category: i32,
    grpc: i32,
    resources: &[(&str, &str)],
) -> Fail {
    let trace = Rng::new(now_micros() as u64 ^ cause.len() as u64).hex(32);
    let body = json!({
        "code": code,
        "cause": cause,
        "correlationId": null,
        "traceId": trace,
        "context": {
            "participant": "'demo-participant'",
            "category": category.to_string(),
            "definite_answer": "false",
            "tid": trace,
        },
        "resources": resources.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>(),
        "errorCategory": category,
        "grpcCodeValue": grpc,
        "retryInfo": null,
        "definiteAnswer": null,
    });
    json_status(status, &body).into()
}

fn authorize(headers: &HeaderMap) -> Result<String, Fail> {
    let h = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    verify_bearer(h, now_micros() / 1_000_000).map_err(|_| {
        canton_error(
            StatusCode::UNAUTHORIZED,
            "UNAUTHENTICATED",
            "The command is missing a (valid) JWT token".into(),
            6,
            16,
            &[],
        )
    })
}

/// A syntactically valid party id (`name::fingerprint`).
fn valid_party(s: &str) -> bool {
    let ok_chars = s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b":-_ ".contains(&b));
    match s.split_once("::") {
        Some((name, ns)) => !name.is_empty() && !ns.is_empty() && s.len() <= 255 && ok_chars,
        None => false,
    }
}

/// Canton's user id alphabet: `[a-zA-Z0-9@^$.!`\-#+'~_|:]{1,128}`.
fn valid_user_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"@^$.!`-#+'~_|:".contains(&b))
}

// ---------------------------------------------------------------------------------------------
// Parties, users, packages, ledger end

async fn parties(
    State(app): State<Shared>,
    headers: HeaderMap,
    Path(party): Path<String>,
    RawQuery(q): RawQuery,
) -> Response {
    done((|| {
        authorize(&headers)?;
        let q = parse_query(q.as_deref());
        if !valid_party(&party) {
            return Err(invalid(format!(
                "Invalid value for: path parameter party (not a valid party id: {party})"
            )));
        }
        let mut requested = vec![party.clone()];
        for p in query_all(&q, "parties") {
            if !valid_party(p) {
                return Err(invalid(format!(
                    "Invalid value for: query parameter parties (not a valid party id: {p})"
                )));
            }
            requested.push(p.to_string());
        }
        if let Some(idp) = query_one(&q, "identity-provider-id")
            && !idp.is_empty()
        {
            if !valid_user_id(idp) {
                return Err(invalid(
                    "Invalid value for: query parameter identity-provider-id",
                ));
            }
            return Err(canton_error(
                StatusCode::NOT_FOUND,
                "IDP_CONFIG_NOT_FOUND",
                format!("Identity provider config with id={idp} was not found"),
                11,
                5,
                &[("IDENTITY_PROVIDER_CONFIG", idp)],
            ));
        }
        let net = &app.net;
        let mut seen: Vec<PartyIdx> = Vec::new();
        let mut details = Vec::new();
        for id in &requested {
            let Some(p) = net.lookup_party(id) else {
                continue;
            };
            if seen.contains(&p) {
                continue;
            }
            seen.push(p);
            let party = net.party(p);
            let mut annotations = serde_json::Map::new();
            if party.local {
                annotations.insert("cantonscope.demo/display-name".into(), json!(party.name));
            }
            details.push(json!({
                "party": party.id,
                "isLocal": party.local,
                "localMetadata": {
                    "resourceVersion": if party.local { "1" } else { "" },
                    "annotations": annotations,
                },
                "identityProviderId": "",
            }));
        }
        Ok(json_ok(json!({ "partyDetails": details })))
    })())
}

async fn delete_user(
    State(app): State<Shared>,
    headers: HeaderMap,
    Path(user_id): Path<String>,
) -> Response {
    done((|| {
        authorize(&headers)?;
        if !valid_user_id(&user_id) {
            return Err(invalid(format!(
                "Invalid value for: path parameter user-id (not a valid user id: {user_id})"
            )));
        }
        let mut w = app.write();
        if !w.ledger.delete_user(&user_id) {
            return Err(canton_error(
                StatusCode::NOT_FOUND,
                "USER_NOT_FOUND",
                format!("deleting user failed for unknown user \"{user_id}\""),
                11,
                5,
                &[("USER", &user_id)],
            ));
        }
        Ok(json_ok(json!({})))
    })())
}

async fn package(
    State(app): State<Shared>,
    headers: HeaderMap,
    Path(package_id): Path<String>,
) -> Response {
    done((|| {
        authorize(&headers)?;
        let ok = !package_id.is_empty()
            && package_id.len() <= 64
            && package_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_ ".contains(&b));
        if !ok {
            return Err(invalid(format!(
                "Invalid value for: path parameter package-id (not a valid package id: {package_id})"
            )));
        }
        let Some(pkg) = app.net.package_by_id(&package_id) else {
            return Err(canton_error(
                StatusCode::NOT_FOUND,
                "PACKAGE_NOT_FOUND",
                "Could not find package.".into(),
                11,
                5,
                &[("PACKAGE", &package_id)],
            ));
        };
        Ok((
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, "application/octet-stream".to_string()),
                (
                    header::HeaderName::from_static("canton-package-hash"),
                    pkg.id.clone(),
                ),
            ],
            pkg.bytes.to_vec(),
        )
            .into_response())
    })())
}

async fn participant_id(State(app): State<Shared>, headers: HeaderMap) -> Response {
    if let Err(e) = authorize(&headers) {
        return e.into_response();
    }
    let net = &app.net;
    json_ok(json!({ "participantId": net.participants[net.ledger_participant].uid() }))
}

async fn ledger_end(State(app): State<Shared>, headers: HeaderMap) -> Response {
    if let Err(e) = authorize(&headers) {
        return e.into_response();
    }
    let end = app.read().ledger.ledger_end();
    json_ok(json!({ "offset": end }))
}

// ---------------------------------------------------------------------------------------------
// Transaction trees

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
fn filter_parties(filter: &Value, at: &str) -> Result<(Vec<String>, bool), Fail> {
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
            StatusCode::BAD_REQUEST,
            "INVALID_ARGUMENT",
            format!(
                "The submitted request has invalid arguments: package-id reference identifiers \
                 are not supported in event filters, use the package-name format \
                 #<package-name>:<module>:<entity>: {id}"
            ),
            8,
            3,
            &[],
        ));
    };
    if !PACKAGES.iter().any(|(_, n, _)| *n == name) {
        return Err(canton_error(
            StatusCode::NOT_FOUND,
            "PACKAGE_NAMES_NOT_FOUND",
            format!(
                "The following package names do not match upgradable packages uploaded on this \
                 participant: [{name}]."
            ),
            11,
            5,
            &[("PACKAGE_NAME", name)],
        ));
    }
    let qualified = format!("{module}:{entity}");
    Tpl::ALL
        .iter()
        .copied()
        .find(|t| net.package_name(*t) == name && t.qualified() == qualified)
        .ok_or_else(|| {
            canton_error(
                StatusCode::NOT_FOUND,
                "TEMPLATES_OR_INTERFACES_NOT_FOUND",
                format!("The following templates or interfaces do not exist: {id}"),
                11,
                5,
                &[("TEMPLATE_ID", id)],
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

async fn update_trees(
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
async fn updates_flat(
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
                StatusCode::BAD_REQUEST,
                "OFFSET_AFTER_LEDGER_END",
                format!("Offset {off} is after ledger end {ledger_end}"),
                12,
                11,
                &[],
            ));
        }
        let end = end.unwrap_or(ledger_end);
        if end < begin {
            return Err(canton_error(
                StatusCode::BAD_REQUEST,
                "INVALID_ARGUMENT",
                format!(
                    "The submitted request has invalid arguments: Begin offset {begin} is after end offset {end}"
                ),
                8,
                3,
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
            StatusCode::PAYLOAD_TOO_LARGE,
            "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED",
            format!(
                "The number of matching elements ({count}) is greater than the node limit ({LIST_LIMIT})."
            ),
            2,
            10,
            &[],
        ));
    }
    Ok(json_ok(Value::Array(out)))
}

/// Record time of the latest update per synchronizer up to participant offset `end`.
fn last_sync_times(l: &super::ledger::Ledger, end: i64) -> [i64; 2] {
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
fn requested_parties(app: &Shared, names: &[String], any: bool) -> Vec<PartyIdx> {
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

// ---------------------------------------------------------------------------------------------
// executeAndWaitForTransaction

fn req_str<'a>(obj: &'a Value, key: &str, at: &str) -> Result<&'a str, Fail> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s),
        None | Some(Value::Null) => Err(invalid(format!(
            "Invalid value for: body (missing required field '{at}{key}')"
        ))),
        Some(v) => Err(invalid(format!(
            "Invalid value for: body (expected a string at '{at}{key}', got {v})"
        ))),
    }
}

const SIGNATURE_FORMATS: [&str; 5] = [
    "SIGNATURE_FORMAT_UNSPECIFIED",
    "SIGNATURE_FORMAT_RAW",
    "SIGNATURE_FORMAT_DER",
    "SIGNATURE_FORMAT_CONCAT",
    "SIGNATURE_FORMAT_SYMBOLIC",
];
const SIGNING_ALGORITHMS: [&str; 4] = [
    "SIGNING_ALGORITHM_SPEC_UNSPECIFIED",
    "SIGNING_ALGORITHM_SPEC_ED25519",
    "SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256",
    "SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384",
];
const HASHING_SCHEMES: [&str; 3] = [
    "HASHING_SCHEME_VERSION_UNSPECIFIED",
    "HASHING_SCHEME_VERSION_V2",
    "HASHING_SCHEME_VERSION_V3",
];

struct Submission {
    prepared: Vec<u8>,
    signers: Vec<String>,
    submission_id: String,
    user_id: Option<String>,
    ledger_effects: bool,
    format_parties: Option<(Vec<String>, bool)>,
}

fn validate_submission(body: &Bytes) -> Result<Submission, Fail> {
    use base64::Engine as _;
    let req = match serde_json::from_slice::<Value>(body) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return Err(invalid("Invalid value for: body (expected a JSON object)")),
        Err(e) => return Err(invalid(format!("Invalid value for: body ({e})"))),
    };
    let prepared_b64 = req_str(&req, "preparedTransaction", "")?;
    let prepared = base64::engine::general_purpose::STANDARD
        .decode(prepared_b64)
        .ok()
        .filter(|b| !b.is_empty())
        .ok_or_else(|| {
            invalid("Invalid value for: body (preparedTransaction must be non-empty base64)")
        })?;
    let sigs = req
        .get("partySignatures")
        .and_then(|p| p.get("signatures"))
        .and_then(Value::as_array)
        .ok_or_else(|| {
            invalid("Invalid value for: body (missing required field 'partySignatures.signatures')")
        })?;
    if sigs.is_empty() {
        return Err(invalid(
            "Invalid value for: body (partySignatures.signatures must not be empty)",
        ));
    }
    let mut signers = Vec::new();
    for (i, s) in sigs.iter().enumerate() {
        let at = format!("partySignatures.signatures[{i}].");
        let party = req_str(s, "party", &at)?;
        if !valid_party(party) {
            return Err(invalid(format!(
                "Invalid value for: body (not a valid party id at '{at}party': {party})"
            )));
        }
        let inner = s
            .get("signatures")
            .and_then(Value::as_array)
            .filter(|a| !a.is_empty())
            .ok_or_else(|| {
                invalid(format!(
                    "Invalid value for: body ('{at}signatures' must be a non-empty array)"
                ))
            })?;
        for (j, sig) in inner.iter().enumerate() {
            let at = format!("{at}signatures[{j}].");
            let format = req_str(sig, "format", &at)?;
            if !SIGNATURE_FORMATS.contains(&format) {
                return Err(invalid(format!(
                    "Invalid value for: body (unknown value '{format}' at '{at}format')"
                )));
            }
            let signature = req_str(sig, "signature", &at)?;
            if base64::engine::general_purpose::STANDARD
                .decode(signature)
                .map_or(true, |b| b.is_empty())
            {
                return Err(invalid(format!(
                    "Invalid value for: body ('{at}signature' must be non-empty base64)"
                )));
            }
            req_str(sig, "signedBy", &at)?;
            let algo = req_str(sig, "signingAlgorithmSpec", &at)?;
            if !SIGNING_ALGORITHMS.contains(&algo) {
                return Err(invalid(format!(
                    "Invalid value for: body (unknown value '{algo}' at '{at}signingAlgorithmSpec')"
                )));
            }
        }
        signers.push(party.to_string());
    }
    let submission_id = req_str(&req, "submissionId", "")?;
    if submission_id.is_empty() {
        return Err(invalid(
            "Invalid value for: body (submissionId must not be empty)",
        ));
    }
    let scheme = req_str(&req, "hashingSchemeVersion", "")?;
    if !HASHING_SCHEMES.contains(&scheme) {
        return Err(invalid(format!(
            "Invalid value for: body (unknown value '{scheme}' at 'hashingSchemeVersion')"
        )));
    }
    if scheme == "HASHING_SCHEME_VERSION_UNSPECIFIED" {
        return Err(invalid(
            "Invalid value for: body (hashingSchemeVersion must be specified)",
        ));
    }
    let user_id = match req.get("userId") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.is_empty() => None,
        Some(Value::String(s)) if valid_user_id(s) => Some(s.clone()),
        Some(v) => {
            return Err(invalid(format!(
                "Invalid value for: body (not a valid user id at 'userId': {v})"
            )));
        }
    };
    match req.get("deduplicationPeriod") {
        None | Some(Value::Null) => {}
        Some(Value::Object(m))
            if m.len() == 1
                && ["DeduplicationDuration", "DeduplicationOffset", "Empty"]
                    .iter()
                    .any(|k| m.contains_key(*k)) => {}
        Some(_) => {
            return Err(invalid(
                "Invalid value for: body ('deduplicationPeriod' must be one of DeduplicationDuration, DeduplicationOffset, Empty)",
            ));
        }
    }
    if let Some(v) = req.get("minLedgerTime")
        && !v.is_null()
        && !v.is_object()
    {
        return Err(invalid(
            "Invalid value for: body (expected an object at 'minLedgerTime')",
        ));
    }
    let mut ledger_effects = false;
    let mut format_parties = None;
    match req.get("transactionFormat") {
        None | Some(Value::Null) => {}
        Some(tf @ Value::Object(_)) => {
            let shape = req_str(tf, "transactionShape", "transactionFormat.")?;
            ledger_effects = match shape {
                "TRANSACTION_SHAPE_LEDGER_EFFECTS" => true,
                "TRANSACTION_SHAPE_ACS_DELTA" | "TRANSACTION_SHAPE_UNSPECIFIED" => false,
                other => {
                    return Err(invalid(format!(
                        "Invalid value for: body (unknown value '{other}' at 'transactionFormat.transactionShape')"
                    )));
                }
            };
            let ef = tf.get("eventFormat").ok_or_else(|| {
                invalid("Invalid value for: body (missing required field 'transactionFormat.eventFormat')")
            })?;
            format_parties = Some(filter_parties(ef, "transactionFormat.eventFormat")?);
        }
        Some(_) => {
            return Err(invalid(
                "Invalid value for: body (expected an object at 'transactionFormat')",
            ));
        }
    }
    Ok(Submission {
        prepared,
        signers,
        submission_id: submission_id.to_string(),
        user_id,
        ledger_effects,
        format_parties,
    })
}

async fn execute(State(app): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    done(execute_inner(&app, &headers, &body))
}

fn execute_inner(app: &Shared, headers: &HeaderMap, body: &Bytes) -> Reply {
    authorize(headers)?;
    let sub = validate_submission(body)?;
    let net = Arc::clone(&app.net);
    let mut signer_idx = Vec::new();
    for s in &sub.signers {
        match net.lookup_party(s).filter(|p| net.party(*p).local) {
            Some(p) => signer_idx.push(p),
            None => {
                return Err(canton_error(
                    StatusCode::NOT_FOUND,
                    "PARTY_NOT_KNOWN_ON_LEDGER",
                    format!(
                        "Party not known on ledger: Party {s} is not hosted on this participant"
                    ),
                    11,
                    5,
                    &[("PARTY", s)],
                ));
            }
        }
    }
    let hash = super::util::sha256_hex(&sub.prepared);
    let (u, offset) = {
        let mut w = app.write();
        if let Some(user) = &sub.user_id
            && !w.ledger.has_user(user)
        {
            return Err(canton_error(
                StatusCode::NOT_FOUND,
                "USER_NOT_FOUND",
                format!("getting user failed for unknown user \"{user}\""),
                11,
                5,
                &[("USER", user)],
            ));
        }
        if !w.ledger.mark_executed(&hash) {
            return Err(canton_error(
                StatusCode::CONFLICT,
                "DUPLICATE_COMMAND",
                "A command with the given command id has already been successfully processed"
                    .into(),
                10,
                6,
                &[("EXTERNAL_TRANSACTION_HASH", &hash)],
            ));
        }
        let World { ledger, generator } = &mut *w;
        let idx = generator
            .execute_transfer_command(
                ledger,
                signer_idx[0],
                hash,
                &sub.submission_id,
                now_micros(),
            )
            .ok_or_else(|| {
                canton_error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "INTERNAL_ERROR",
                    "the ledger could not commit the transaction".into(),
                    4,
                    13,
                    &[],
                )
            })?;
        let u = ledger.update(idx).map(Arc::clone);
        let offset = ledger.offset_of(idx).unwrap_or(0);
        match u {
            Some(u) => (u, offset),
            None => {
                return Err(canton_error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "INTERNAL_ERROR",
                    "the committed transaction is missing".into(),
                    4,
                    13,
                    &[],
                ));
            }
        }
    };
    let req = match &sub.format_parties {
        Some((names, any)) => requested_parties(app, names, *any || names.is_empty()),
        None => {
            let mut v = signer_idx.clone();
            v.sort_unstable();
            v
        }
    };
    let Some(tx) = u.tx() else {
        return Err(canton_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL_ERROR",
            "the committed update is not a transaction".into(),
            4,
            13,
            &[],
        ));
    };
    let t = js_transaction(&net, &u, tx, offset, &req, sub.ledger_effects);
    Ok(json_ok(json!({ "transaction": t })))
}
