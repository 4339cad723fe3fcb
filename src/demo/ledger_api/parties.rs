//! Parties, users, packages, the participant id and the ledger end.

use axum::extract::{Path, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::request::{Authorized, invalid, not_found, valid_party, valid_user_id};
use crate::demo::reply::{Reply, json_ok};
use crate::demo::state::Shared;
use crate::demo::topology::PartyIdx;
use crate::demo::util::{parse_query, query_all, query_one};

pub(super) async fn parties(
    State(app): State<Shared>,
    Path(party): Path<String>,
    RawQuery(q): RawQuery,
    _: Authorized,
) -> Reply {
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
        return Err(not_found(
            "IDP_CONFIG_NOT_FOUND",
            format!("Identity provider config with id={idp} was not found"),
            ("IDENTITY_PROVIDER_CONFIG", idp),
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
    Ok(json_ok(&json!({ "partyDetails": details })))
}

pub(super) async fn delete_user(
    State(app): State<Shared>,
    Path(user_id): Path<String>,
    _: Authorized,
) -> Reply {
    if !valid_user_id(&user_id) {
        return Err(invalid(format!(
            "Invalid value for: path parameter user-id (not a valid user id: {user_id})"
        )));
    }
    let mut w = app.write();
    if !w.ledger.delete_user(&user_id) {
        return Err(not_found(
            "USER_NOT_FOUND",
            format!("deleting user failed for unknown user \"{user_id}\""),
            ("USER", &user_id),
        ));
    }
    Ok(json_ok(&json!({})))
}

pub(super) async fn package(
    State(app): State<Shared>,
    Path(package_id): Path<String>,
    _: Authorized,
) -> Reply {
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
        return Err(not_found(
            "PACKAGE_NOT_FOUND",
            "Could not find package.",
            ("PACKAGE", &package_id),
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
}

pub(super) async fn participant_id(State(app): State<Shared>, _: Authorized) -> Response {
    let net = &app.net;
    json_ok(&json!({ "participantId": net.participants[net.ledger_participant].uid() }))
}

pub(super) async fn ledger_end(State(app): State<Shared>, _: Authorized) -> Response {
    let end = app.read().ledger.ledger_end();
    json_ok(&json!({ "offset": end }))
}
