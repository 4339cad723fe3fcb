//! What a ledger endpoint checks of its request: the bearer token ([`Authorized`]), party and
//! user ids, the node's list limit; and the replies the JSON Ledger API gives when a check fails
//! or the node does (a `JsCantonError`, or 400 `text/plain` for an invalid value). Shared by the
//! endpoint modules; `mod.rs` is the router.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use serde_json::json;

use crate::demo::auth::verify_bearer;
use crate::demo::reply::{Fail, json_status};
use crate::demo::util::{Rng, now_micros};

/// The node's `http-list-max-elements-limit`.
pub const LIST_LIMIT: usize = 200;

/// A request with a valid bearer token: extracting it answers 401 `UNAUTHENTICATED` otherwise.
pub(super) struct Authorized;

impl<S: Send + Sync> FromRequestParts<S> for Authorized {
    type Rejection = Fail;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Authorized, Fail> {
        authorize(&parts.headers).map(|_| Authorized)
    }
}

/// 400 with a `text/plain` body, as the JSON API answers invalid values.
pub(super) fn invalid(msg: impl Into<String>) -> Fail {
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "text/plain; charset=UTF-8")],
        msg.into(),
    )
        .into_response()
        .into()
}

/// How a `JsCantonError` is classified: its HTTP status, error category and gRPC code.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    Unauthenticated,
    InvalidArgument,
    OutOfRange,
    NotFound,
    Exists,
    TooLarge,
    Internal,
}

impl Kind {
    fn codes(self) -> (StatusCode, i32, i32) {
        match self {
            Kind::Unauthenticated => (StatusCode::UNAUTHORIZED, 6, 16),
            Kind::InvalidArgument => (StatusCode::BAD_REQUEST, 8, 3),
            Kind::OutOfRange => (StatusCode::BAD_REQUEST, 12, 11),
            Kind::NotFound => (StatusCode::NOT_FOUND, 11, 5),
            Kind::Exists => (StatusCode::CONFLICT, 10, 6),
            Kind::TooLarge => (StatusCode::PAYLOAD_TOO_LARGE, 2, 10),
            Kind::Internal => (StatusCode::INTERNAL_SERVER_ERROR, 4, 13),
        }
    }
}

/// A `JsCantonError`.
pub(super) fn canton_error(
    kind: Kind,
    code: &str,
    cause: impl Into<String>,
    resources: &[(&str, &str)],
) -> Fail {
    let (status, category, grpc) = kind.codes();
    let cause = cause.into();
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

/// A `NOT_FOUND` error about `resource` (its kind and id).
pub(super) fn not_found(code: &str, cause: impl Into<String>, resource: (&str, &str)) -> Fail {
    canton_error(Kind::NotFound, code, cause, &[resource])
}

/// An `INTERNAL_ERROR`.
pub(super) fn internal(cause: &str) -> Fail {
    canton_error(Kind::Internal, "INTERNAL_ERROR", cause, &[])
}

pub(super) fn authorize(headers: &HeaderMap) -> Result<String, Fail> {
    let h = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    verify_bearer(h, now_micros() / 1_000_000).map_err(|_| {
        canton_error(
            Kind::Unauthenticated,
            "UNAUTHENTICATED",
            "The command is missing a (valid) JWT token",
            &[],
        )
    })
}

/// A syntactically valid party id (`name::fingerprint`).
pub(super) fn valid_party(s: &str) -> bool {
    let ok_chars = s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b":-_ ".contains(&b));
    match s.split_once("::") {
        Some((name, ns)) => !name.is_empty() && !ns.is_empty() && s.len() <= 255 && ok_chars,
        None => false,
    }
}

/// Canton's user id alphabet: `[a-zA-Z0-9@^$.!`\-#+'~_|:]{1,128}`.
pub(super) fn valid_user_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"@^$.!`-#+'~_|:".contains(&b))
}
