//! The one error type of the API client, [`ApiError`]: what the UI matches on, what the CLI maps
//! to exit codes. Every variant displays as one sanitised line fit for a status line. Also the
//! ledger's error body, [`JsCantonError`] (re-exported by `api::ledger`), which a variant carries.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::json::{int, nd, opt_int, sanitize_line};

/// Longest server text shown in a `Display` line.
const MAX_TEXT: usize = 200;

/// The ledger's error body (`JsCantonError`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JsCantonError {
    pub code: String,
    #[serde(default, deserialize_with = "nd")]
    pub cause: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<String>,
    #[serde(default, deserialize_with = "nd")]
    pub context: BTreeMap<String, String>,
    /// Pairs of (resource kind, value).
    #[serde(default, deserialize_with = "nd")]
    pub resources: Vec<(String, String)>,
    #[serde(default, deserialize_with = "int")]
    pub error_category: i32,
    #[serde(
        default,
        deserialize_with = "opt_int",
        skip_serializing_if = "Option::is_none"
    )]
    pub grpc_code_value: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_info: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definite_answer: Option<bool>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Any failure of an API call.
///
/// `endpoint` is a stable name such as `"scan POST /v2/updates"`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ApiError {
    /// A scan or validator-proxy server answered with its `{"error": …}` body.
    #[error("{endpoint}: HTTP {status}: {}", sanitize_line(message, MAX_TEXT))]
    Scan {
        endpoint: &'static str,
        status: u16,
        message: String,
    },
    /// The ledger answered with a `JsCantonError`.
    #[error("{endpoint}: HTTP {status}: {}: {}", sanitize_line(&error.code, 80), sanitize_line(&error.cause, MAX_TEXT))]
    Ledger {
        endpoint: &'static str,
        status: u16,
        error: Box<JsCantonError>,
    },
    /// The ledger rejected a value (HTTP 400, `text/plain`).
    #[error(
        "{endpoint}: HTTP 400 bad request: {}",
        sanitize_line(message, MAX_TEXT)
    )]
    LedgerBadRequest {
        endpoint: &'static str,
        message: String,
    },
    /// HTTP 401 or 403: missing, invalid or insufficient credentials. A scan's 403 is its IP
    /// allowlist (scans take no tokens).
    #[error("{endpoint}: {}{}",
        unauthorized_text(endpoint, *status),
        message.as_deref().map(|m| format!(": {}", sanitize_line(m, MAX_TEXT))).unwrap_or_default())]
    Unauthorized {
        endpoint: &'static str,
        status: u16,
        /// The server's explanation, when it gave one.
        message: Option<String>,
    },
    /// HTTP 404 with the API's error body: the requested thing does not exist (on this node).
    #[error("{endpoint}: not found: {}", sanitize_line(message, MAX_TEXT))]
    NotFound {
        endpoint: &'static str,
        message: String,
    },
    /// HTTP 404 for the whole route: this node does not serve the endpoint (older or newer version).
    #[error("{endpoint}: this node does not serve this endpoint{}",
        version.as_deref().map(|v| format!(" (version {})", sanitize_line(v, 60))).unwrap_or_default())]
    EndpointNotServed {
        endpoint: &'static str,
        version: Option<String>,
    },
    /// HTTP 413: the result exceeds the node's list limit (narrow the range).
    #[error("{endpoint}: HTTP 413: result exceeds the node's list limit; narrow the range")]
    TooLarge { endpoint: &'static str },
    /// The response body grew beyond the configured cap (`max_response_mib`, counted after gzip
    /// decoding); the read was aborted and the partial body dropped.
    #[error("response larger than {limit_mib} MiB from {endpoint}")]
    ResponseTooLarge {
        endpoint: &'static str,
        limit_mib: u32,
    },
    /// The request timed out.
    #[error("{endpoint}: request timed out")]
    Timeout { endpoint: &'static str },
    /// Connection, DNS or TLS failure, or the connection broke mid-response.
    #[error("{endpoint}: connection failed: {}", sanitize_line(detail, MAX_TEXT))]
    Connect {
        endpoint: &'static str,
        detail: String,
    },
    /// The response could not be decoded: `path` is the JSON path, `detail` what was expected.
    #[error(
        "{endpoint}: cannot decode response at {}: {}",
        sanitize_line(path, 120),
        sanitize_line(detail, MAX_TEXT)
    )]
    Decode {
        endpoint: &'static str,
        path: String,
        detail: String,
    },
    /// The server answered something other than JSON (a proxy's HTML error page, say):
    /// `content_type` is the media type it named.
    #[error(
        "{endpoint}: expected JSON, got {} (HTTP {status})",
        sanitize_line(content_type, 80)
    )]
    NotJson {
        endpoint: &'static str,
        status: u16,
        content_type: String,
    },
    /// Any other HTTP failure.
    #[error("{endpoint}: HTTP {status}{}",
        if body_snippet.trim().is_empty() { String::new() } else { format!(": {}", sanitize_line(body_snippet, MAX_TEXT)) })]
    Http {
        endpoint: &'static str,
        status: u16,
        body_snippet: String,
    },
    /// Something the call needs is not configured (a URL, a token).
    #[error("not configured: {}", sanitize_line(what, MAX_TEXT))]
    NotConfigured { what: String },
    /// `--offline`: the explorer reads the local index and asks no node.
    #[error(
        "--offline: no node is asked (the explorer reads the local index only); this needs a node"
    )]
    Offline,
    /// A local file of ours (the kept findings) could not be read or written.
    #[error("{}", sanitize_line(what, MAX_TEXT))]
    Local { what: String },
    /// The ledger token could not be obtained (file unreadable, command failed).
    #[error("ledger token: {}", sanitize_line(detail, MAX_TEXT))]
    Token { detail: String },
}

/// The text of a 401 / 403: a scan's 403 is its IP allowlist, other 403s a token without the
/// rights, 401s a missing or bad token.
fn unauthorized_text(endpoint: &str, status: u16) -> String {
    match status {
        403 if endpoint.starts_with("scan ") => {
            "this scan only answers allowlisted addresses (HTTP 403)".to_owned()
        }
        403 => "HTTP 403: forbidden (token lacks the rights)".to_owned(),
        _ => format!("HTTP {status}: unauthorized (token missing, invalid or expired)"),
    }
}

/// The media type of a `content-type` header value (`text/html; charset=utf-8` → `text/html`).
pub(crate) fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether a media type is JSON (`application/json`, `application/problem+json`, …).
pub(crate) fn is_json_media(media: &str) -> bool {
    media == "application/json" || media.ends_with("+json") || media.ends_with("/json")
}

impl ApiError {
    /// The endpoint the error belongs to, if any.
    pub fn endpoint(&self) -> Option<&'static str> {
        match self {
            ApiError::Scan { endpoint, .. }
            | ApiError::Ledger { endpoint, .. }
            | ApiError::LedgerBadRequest { endpoint, .. }
            | ApiError::Unauthorized { endpoint, .. }
            | ApiError::NotFound { endpoint, .. }
            | ApiError::EndpointNotServed { endpoint, .. }
            | ApiError::TooLarge { endpoint }
            | ApiError::ResponseTooLarge { endpoint, .. }
            | ApiError::Timeout { endpoint }
            | ApiError::Connect { endpoint, .. }
            | ApiError::Decode { endpoint, .. }
            | ApiError::NotJson { endpoint, .. }
            | ApiError::Http { endpoint, .. } => Some(endpoint),
            ApiError::NotConfigured { .. }
            | ApiError::Token { .. }
            | ApiError::Offline
            | ApiError::Local { .. } => None,
        }
    }

    /// The error in one line without its endpoint, with the HTTP status when the text lacks
    /// it: `expected JSON, got text/html (HTTP 502)`, `this scan only answers allowlisted
    /// addresses (HTTP 403)`, `HTTP 503: no healthy upstream`. For places that name the request
    /// themselves (a scan's health reasons, a consensus table's Detail column).
    pub fn reason(&self) -> String {
        let text = self.to_string();
        let mut line = self
            .endpoint()
            .and_then(|endpoint| text.strip_prefix(endpoint))
            .and_then(|rest| rest.strip_prefix(": "))
            .map_or_else(|| text.clone(), str::to_owned);
        if let Some(status) = self.status()
            && !line.contains(&format!("HTTP {status}"))
        {
            line.push_str(&format!(" (HTTP {status})"));
        }
        line
    }

    /// The HTTP status the server answered with, if it answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            ApiError::Scan { status, .. }
            | ApiError::Ledger { status, .. }
            | ApiError::Unauthorized { status, .. }
            | ApiError::NotJson { status, .. }
            | ApiError::Http { status, .. } => Some(*status),
            ApiError::LedgerBadRequest { .. } => Some(400),
            ApiError::NotFound { .. } | ApiError::EndpointNotServed { .. } => Some(404),
            ApiError::TooLarge { .. } => Some(413),
            ApiError::ResponseTooLarge { .. }
            | ApiError::Timeout { .. }
            | ApiError::Connect { .. }
            | ApiError::Decode { .. }
            | ApiError::NotConfigured { .. }
            | ApiError::Offline
            | ApiError::Local { .. }
            | ApiError::Token { .. } => None,
        }
    }

    /// True when trying again later may succeed (timeouts, connection failures, 5xx, 429).
    pub fn is_transient(&self) -> bool {
        match self {
            ApiError::Timeout { .. } | ApiError::Connect { .. } => true,
            ApiError::Scan { status, .. }
            | ApiError::Ledger { status, .. }
            | ApiError::NotJson { status, .. }
            | ApiError::Http { status, .. } => *status >= 500 || *status == 429,
            _ => false,
        }
    }

    /// The CLI exit code: 1 the server answered an error (a response over the size cap
    /// included), 2 configuration, 3 connection / TLS / timeout, 4 the response could not be
    /// decoded.
    pub fn exit_code(&self) -> i32 {
        match self {
            ApiError::Scan { .. }
            | ApiError::Ledger { .. }
            | ApiError::LedgerBadRequest { .. }
            | ApiError::Unauthorized { .. }
            | ApiError::NotFound { .. }
            | ApiError::EndpointNotServed { .. }
            | ApiError::TooLarge { .. }
            | ApiError::ResponseTooLarge { .. }
            | ApiError::Http { .. } => 1,
            ApiError::NotConfigured { .. } | ApiError::Token { .. } | ApiError::Offline => 2,
            ApiError::Timeout { .. } | ApiError::Connect { .. } => 3,
            ApiError::Decode { .. } => 4,
            ApiError::Local { .. } => 1,
            // A 2xx that is not JSON could not be decoded; an error page is the server's error.
            ApiError::NotJson { status, .. } => {
                if (200..=299).contains(status) {
                    4
                } else {
                    1
                }
            }
        }
    }
}
