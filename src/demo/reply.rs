//! The demo server's replies, shared by every endpoint module: a handler's [`Reply`] (the
//! response, or the error response as a small [`Fail`]), JSON responses, and the scan's
//! `{"error": …}` body.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

/// An error response, boxed (responses are large) so `Result<_, Fail>` stays small.
pub(crate) struct Fail(Box<Response>);

impl From<Response> for Fail {
    fn from(r: Response) -> Fail {
        Fail(Box::new(r))
    }
}

impl IntoResponse for Fail {
    fn into_response(self) -> Response {
        *self.0
    }
}

/// A handler result: the response, or the error response.
pub(crate) type Reply = Result<Response, Fail>;

pub(crate) fn done(r: Reply) -> Response {
    match r {
        Ok(x) => x,
        Err(f) => f.into_response(),
    }
}

/// A JSON response.
pub(crate) fn json_ok(v: &Value) -> Response {
    json_status(StatusCode::OK, v)
}

pub(crate) fn json_status(status: StatusCode, v: &Value) -> Response {
    let body = serde_json::to_vec(v).unwrap_or_default();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The scan / scan-proxy error body `{"error": "..."}`.
pub(crate) fn scan_error(status: StatusCode, msg: impl Into<String>) -> Response {
    json_status(status, &serde_json::json!({ "error": msg.into() }))
}
