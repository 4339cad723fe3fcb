//! The JSON paths where an answer differs from the consensus ([`json_diff`]).

use std::fmt::Write as _;

use super::write_string;
use serde_json::Value;

/// One place where an answer differs from the consensus: the JSON path and both values
/// (`None` = the field is absent on that side).
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// `$` for the root, `.key` or `["key"]` for object fields, `[i]` for array elements.
    pub path: String,
    pub quorum: Option<Value>,
    pub this: Option<Value>,
}

/// The paths where `other` differs from `reference`, depth first, keys in sorted order; at most
/// `limit` of them (the flag says whether more were left out).
pub fn json_diff(reference: &Value, other: &Value, limit: usize) -> (Vec<Difference>, bool) {
    let mut out = Vec::new();
    let mut truncated = false;
    diff_into(
        reference,
        other,
        &mut "$".to_owned(),
        limit,
        &mut out,
        &mut truncated,
    );
    (out, truncated)
}

fn push_diff(
    out: &mut Vec<Difference>,
    truncated: &mut bool,
    limit: usize,
    path: &str,
    a: Option<&Value>,
    b: Option<&Value>,
) {
    if out.len() >= limit {
        *truncated = true;
        return;
    }
    out.push(Difference {
        path: path.to_owned(),
        quorum: a.cloned(),
        this: b.cloned(),
    });
}

fn diff_into(
    a: &Value,
    b: &Value,
    path: &mut String,
    limit: usize,
    out: &mut Vec<Difference>,
    truncated: &mut bool,
) {
    if *truncated {
        return;
    }
    match (a, b) {
        (Value::Object(ma), Value::Object(mb)) => {
            let mut keys: Vec<&String> = ma.keys().chain(mb.keys()).collect();
            keys.sort_unstable();
            keys.dedup();
            for key in keys {
                let len = path.len();
                push_key(path, key);
                match (ma.get(key), mb.get(key)) {
                    (Some(x), Some(y)) => diff_into(x, y, path, limit, out, truncated),
                    (x, y) => push_diff(out, truncated, limit, path, x, y),
                }
                path.truncate(len);
            }
        }
        (Value::Array(xa), Value::Array(xb)) => {
            for i in 0..xa.len().max(xb.len()) {
                let len = path.len();
                let _ = write!(path, "[{i}]");
                match (xa.get(i), xb.get(i)) {
                    (Some(x), Some(y)) => diff_into(x, y, path, limit, out, truncated),
                    (x, y) => push_diff(out, truncated, limit, path, x, y),
                }
                path.truncate(len);
            }
        }
        _ if a == b => {}
        _ => push_diff(out, truncated, limit, path, Some(a), Some(b)),
    }
}

fn push_key(path: &mut String, key: &str) {
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        path.push('.');
        path.push_str(key);
    } else {
        path.push('[');
        write_string(key, path);
        path.push(']');
    }
}
