//! The participant ledger group (JSON Ledger API v2 under `/v2`), as seen by one participant that
//! hosts some of the parties. Every call needs an HS256 bearer token signed with the demo secret.
//! Invalid values answer 400 `text/plain`; other failures a `JsCantonError`.

mod execute;
mod parties;
mod updates;

use axum::Router;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::{delete, get, post};
use serde_json::json;

use super::auth::verify_bearer;
use super::server::{Fail, Shared, json_status};
use super::util::{Rng, now_micros};
use execute::execute;
use parties::{delete_user, ledger_end, package, participant_id, parties};
use updates::{update_trees, updates_flat};

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

/// A request with a valid bearer token: extracting it answers 401 `UNAUTHENTICATED` otherwise.
pub(super) struct Authorized;

impl<S: Send + Sync> FromRequestParts<S> for Authorized {
    type Rejection = Fail;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Authorized, Fail> {
        authorize(&parts.headers).map(|_| Authorized)
    }
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

/// How a `JsCantonError` is classified: its HTTP status, error category and gRPC code.
#[derive(Clone, Copy)]
enum Kind {
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
fn canton_error(
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
fn not_found(code: &str, cause: impl Into<String>, resource: (&str, &str)) -> Fail {
    canton_error(Kind::NotFound, code, cause, &[resource])
}

/// An `INTERNAL_ERROR`.
fn internal(cause: &str) -> Fail {
    canton_error(Kind::Internal, "INTERNAL_ERROR", cause, &[])
}

fn authorize(headers: &HeaderMap) -> Result<String, Fail> {
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
