//! What a scan endpoint reads of its request: which scan instance it is ([`ScanCtx`]), the JSON
//! body and its fields, the value encoding (in the body or the query); and the scan's 400 / 404
//! replies when that is wrong. Shared by the endpoint modules; `mod.rs` is the router.

use axum::body::Bytes;
use axum::http::StatusCode;
use serde_json::{Map, Value};

use crate::demo::render::Encoding;
use crate::demo::reply::{Fail, scan_error};
use crate::demo::state::Shared;
use crate::demo::util::parse_query;

/// What a scan endpoint serves from: the shared state and which scan instance it is.
#[derive(Clone)]
pub(super) struct ScanCtx {
    pub(super) app: Shared,
    pub(super) scan: usize,
}

pub(super) fn bad(msg: impl Into<String>) -> Fail {
    scan_error(StatusCode::BAD_REQUEST, msg).into()
}

pub(super) fn not_found(msg: impl Into<String>) -> Fail {
    scan_error(StatusCode::NOT_FOUND, msg).into()
}

/// The integer `key` of `obj`; 400 `msg` when it is missing or no integer.
pub(super) fn int_field(obj: &Map<String, Value>, key: &str, msg: &str) -> Result<i64, Fail> {
    obj.get(key).and_then(Value::as_i64).ok_or_else(|| bad(msg))
}

/// The string `key` of `obj`; 400 `msg` when it is missing or no string.
pub(super) fn str_field<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
    msg: &str,
) -> Result<&'a str, Fail> {
    obj.get(key).and_then(Value::as_str).ok_or_else(|| bad(msg))
}

pub(super) fn parse_body(body: &Bytes) -> Result<Map<String, Value>, Fail> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(bad("The request body must be a JSON object")),
        Err(e) => Err(bad(format!("The request content was malformed: {e}"))),
    }
}

/// The encoding selector under either of its names.
pub(super) fn encoding_of<'a>(get: impl Fn(&str) -> Option<&'a Value>) -> Result<Encoding, Fail> {
    for key in ["daml_value_encoding", "contract_value_encoding"] {
        match get(key) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => {
                return Encoding::parse(s).ok_or_else(|| {
                    bad(format!(
                        "Invalid value for {key}: '{s}' (expected compact_json or protobuf_json)"
                    ))
                });
            }
            Some(_) => return Err(bad(format!("{key} must be a string"))),
        }
    }
    Ok(Encoding::CompactJson)
}

pub(super) fn query_encoding(raw: Option<&str>) -> Result<Encoding, Fail> {
    let q = parse_query(raw);
    let vals: Vec<(String, Value)> = q
        .into_iter()
        .filter(|(k, _)| k == "daml_value_encoding" || k == "contract_value_encoding")
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    encoding_of(|key| vals.iter().find(|(k, _)| k == key).map(|(_, v)| v))
}
