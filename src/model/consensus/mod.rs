//! Reading many scans as Splice's BFT clients do (pure: no I/O): the quorum arithmetic, the
//! canonical form in which answers are compared, grouping the answers of every scan into answer
//! groups, the per-scan verdict on one update, and the JSON paths where two answers differ. The
//! fast canonical hash of whole `/v2/updates` pages lives in [`digest`].
//!
//! The rules:
//! - `n` counts every scan, failing ones included; `f = (n − 1) / 3`; `f + 1` matching answers
//!   are the consensus ([`fault_tolerance`], [`quorum`]).
//! - A 2xx answer is compared as decoded JSON in canonical form: object key order and whitespace
//!   never matter, every value does, and `null` differs from an absent field
//!   (`{"a": null}` ≠ `{}`). Numbers compare as serde_json decodes them: `1` and `1.0` differ,
//!   `1.0` and `1.00` do not.
//! - An error answer groups by (status, body): f + 1 identical 404s are a consensus too. A body
//!   that is not JSON compares as its text.
//! - A transport failure or a timeout never groups with anything.
//! - Fields that are local to one SV are removed before comparing ([`LocalFields`]).

mod diff;
pub mod digest;
mod update_check;

pub use diff::{Difference, json_diff};
pub use update_check::{
    MAX_DIFFERENCES, Position, ScanClass, ScanHistory, UnknownReason, UpdateCheck, classify_update,
    update_position,
};

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

/// `f`, the number of faulty scans tolerated among `n`: `(n − 1) / 3` (0 for `n` = 0).
pub fn fault_tolerance(n: usize) -> usize {
    n.saturating_sub(1) / 3
}

/// The number of matching answers that make a consensus among `n` scans: `f + 1`.
pub fn quorum(n: usize) -> usize {
    fault_tolerance(n) + 1
}

// ---------------------------------------------------------------------------------------------
// Local fields
// ---------------------------------------------------------------------------------------------

/// Fields that differ between honest scans and are removed before comparing: paths of object
/// keys from the root of one answer (`*` matches every element of an array).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalFields(pub &'static [&'static [&'static str]]);

impl LocalFields {
    /// Nothing is local.
    pub const NONE: LocalFields = LocalFields(&[]);
    /// One update item (`/v2/updates/{id}`, an item of a `/v2/updates` page): a reassignment's
    /// `offset` is the scan's own.
    pub const UPDATE: LocalFields = LocalFields(&[&["offset"]]);
    /// An event (`/v0/events/{id}`): the verdict's `finalization_time` is the scan's own,
    /// `app_activity_records` may be missing on one scan, and the update's `offset` as above.
    pub const EVENT: LocalFields = LocalFields(&[
        &["verdict", "finalization_time"],
        &["app_activity_records"],
        &["update", "offset"],
    ]);
    /// A `/v2/updates` page: the `offset` of every item.
    pub const PAGE: LocalFields = LocalFields(&[&["transactions", "*", "offset"]]);

    /// Removes these fields from `value`.
    pub fn strip(self, value: &mut Value) {
        for path in self.0 {
            strip_path(value, path);
        }
    }
}

fn strip_path(value: &mut Value, path: &[&str]) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    match value {
        Value::Object(map) if rest.is_empty() => {
            map.shift_remove(*first);
        }
        Value::Object(map) => {
            if let Some(inner) = map.get_mut(*first) {
                strip_path(inner, rest);
            }
        }
        Value::Array(items) if *first == "*" => {
            for item in items {
                strip_path(item, rest);
            }
        }
        _ => {}
    }
}

/// Lists of an answer whose order carries no meaning (a scan may send its active contracts in
/// any order): top-level keys whose arrays are sorted by each element's canonical text before
/// the answers are compared, so the same set in another order is the same answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unordered(pub &'static [&'static str]);

impl Unordered {
    /// Every list keeps its order.
    pub const NONE: Unordered = Unordered(&[]);

    /// Sorts the lists of a JSON answer (`Ok` or an error with a JSON body).
    pub fn sort(self, answer: &mut Answer) {
        let body = match answer {
            Answer::Ok(body) | Answer::Error { body, .. } => body,
            Answer::Unreachable { .. } | Answer::Timeout => return,
        };
        if let Body::Json(value) = body {
            self.sort_value(value);
        }
    }

    /// Sorts the lists of `value`.
    pub fn sort_value(self, value: &mut Value) {
        for key in self.0 {
            if let Some(Value::Array(items)) = value.get_mut(*key) {
                let mut keyed: Vec<(String, Value)> =
                    items.drain(..).map(|v| (canonical_json(&v), v)).collect();
                keyed.sort_by(|a, b| a.0.cmp(&b.0));
                items.extend(keyed.into_iter().map(|(_, v)| v));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Canonical JSON
// ---------------------------------------------------------------------------------------------

/// The canonical text of a JSON value: no whitespace, object keys sorted (by their UTF-8
/// bytes), strings and numbers as serde_json writes them. Two values are the same value exactly
/// when their canonical texts are equal.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            write_list(out, '{', '}', keys, |key, out| {
                write_string(key, out);
                out.push(':');
                if let Some(v) = map.get(key) {
                    write_canonical(v, out);
                }
            });
        }
        Value::Array(items) => write_list(out, '[', ']', items, write_canonical),
        Value::String(s) => write_string(s, out),
        other => {
            // null, booleans and numbers: serde_json's own (deterministic) text.
            let _ = write!(out, "{other}");
        }
    }
}

/// `open`, the items written by `each` with commas between them, `close`.
fn write_list<T>(
    out: &mut String,
    open: char,
    close: char,
    items: impl IntoIterator<Item = T>,
    mut each: impl FnMut(T, &mut String),
) {
    out.push(open);
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        each(item, out);
    }
    out.push(close);
}

fn write_string(s: &str, out: &mut String) {
    // serde_json's string escaping is deterministic.
    let _ = write!(out, "{}", Value::String(s.to_owned()));
}

// ---------------------------------------------------------------------------------------------
// Answers and groups
// ---------------------------------------------------------------------------------------------

/// A response body: decoded JSON, or the text of a body that is not JSON.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    Json(Value),
    Text(String),
}

impl Body {
    /// Decodes `bytes`, removing `local` fields from JSON.
    pub fn parse(bytes: &[u8], local: LocalFields) -> Body {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(mut value) => {
                local.strip(&mut value);
                Body::Json(value)
            }
            Err(_) => Body::Text(String::from_utf8_lossy(bytes).trim().to_owned()),
        }
    }

    /// The canonical text this body is compared by.
    pub fn canonical(&self) -> String {
        match self {
            Body::Json(value) => format!("j{}", canonical_json(value)),
            Body::Text(text) => format!("t{text}"),
        }
    }

    /// The JSON value, if the body is JSON.
    pub fn json(&self) -> Option<&Value> {
        match self {
            Body::Json(value) => Some(value),
            Body::Text(_) => None,
        }
    }

    /// A one-line description of an error body: the scan's `error` text, else the body.
    pub fn message(&self) -> String {
        match self {
            Body::Json(value) => value
                .get("error")
                .and_then(Value::as_str)
                .map_or_else(|| canonical_json(value), str::to_owned),
            Body::Text(text) => text.clone(),
        }
    }
}

/// What one scan answered to one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A 2xx answer.
    Ok(Body),
    /// Any other status.
    Error { status: u16, body: Body },
    /// No answer: connection refused, DNS, TLS, a broken response.
    Unreachable { detail: String },
    /// No answer in time.
    Timeout,
}

impl Answer {
    /// An HTTP answer: 2xx is [`Answer::Ok`], anything else [`Answer::Error`].
    pub fn from_http(status: u16, body: &[u8], local: LocalFields) -> Answer {
        let body = Body::parse(body, local);
        if (200..=299).contains(&status) {
            Answer::Ok(body)
        } else {
            Answer::Error { status, body }
        }
    }

    /// The key answers are grouped by; `None` for transport failures (they never group).
    pub fn group_key(&self) -> Option<String> {
        match self {
            Answer::Ok(body) => Some(format!("ok {}", body.canonical())),
            Answer::Error { status, body } => Some(format!("{status} {}", body.canonical())),
            Answer::Unreachable { .. } | Answer::Timeout => None,
        }
    }

    /// The HTTP status, when the scan answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            Answer::Ok(_) => Some(200),
            Answer::Error { status, .. } => Some(*status),
            Answer::Unreachable { .. } | Answer::Timeout => None,
        }
    }
}

/// Scans that gave the same answer.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerGroup {
    /// Indexes of the scans, ascending.
    pub members: Vec<usize>,
    /// The HTTP status of the answer (200 for any 2xx).
    pub status: u16,
    /// True when the group has at least `quorum` members.
    pub is_quorum: bool,
}

/// Whether the answers make a consensus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Consensus {
    /// Exactly one group has a quorum: its index in [`Grouping::groups`].
    Reached { group: usize },
    /// No group has a quorum.
    None,
    /// Several groups have a quorum (more than `f` scans are faulty): their indexes.
    Conflicting { groups: Vec<usize> },
}

/// The answers of every scan, grouped.
#[derive(Debug, Clone, PartialEq)]
pub struct Grouping {
    /// Number of scans, failing ones included.
    pub n: usize,
    /// Faulty scans tolerated.
    pub f: usize,
    /// Matching answers needed.
    pub quorum: usize,
    /// The groups, largest first (ties: the one with the lowest scan index first).
    pub groups: Vec<AnswerGroup>,
    /// Scans in no group: transport failures and excluded answers.
    pub ungrouped: Vec<usize>,
    pub consensus: Consensus,
}

impl Grouping {
    /// The consensus group, if there is exactly one.
    pub fn consensus_group(&self) -> Option<&AnswerGroup> {
        match self.consensus {
            Consensus::Reached { group } => self.groups.get(group),
            _ => None,
        }
    }

    /// The group scan `scan` belongs to.
    pub fn group_of(&self, scan: usize) -> Option<usize> {
        self.groups
            .iter()
            .position(|g| g.members.binary_search(&scan).is_ok())
    }
}

/// Groups the answers of every scan (index = scan). `n` is `answers.len()`.
pub fn group_answers(answers: &[Answer]) -> Grouping {
    group_answers_excluding(answers, |_| false)
}

/// [`group_answers`] leaving out the scans for which `exclude` is true (they still count in `n`).
pub fn group_answers_excluding(answers: &[Answer], exclude: impl Fn(usize) -> bool) -> Grouping {
    group_among(answers, answers.len(), exclude)
}

fn group_among(answers: &[Answer], n: usize, exclude: impl Fn(usize) -> bool) -> Grouping {
    let q = quorum(n);
    let mut by_key: BTreeMap<String, (usize, AnswerGroup)> = BTreeMap::new();
    let mut ungrouped = Vec::new();
    for (scan, answer) in answers.iter().enumerate() {
        let key = if exclude(scan) {
            None
        } else {
            answer.group_key()
        };
        let Some(key) = key else {
            ungrouped.push(scan);
            continue;
        };
        let status = answer.status().unwrap_or_default();
        by_key
            .entry(key)
            .or_insert_with(|| {
                (
                    scan,
                    AnswerGroup {
                        members: Vec::new(),
                        status,
                        is_quorum: false,
                    },
                )
            })
            .1
            .members
            .push(scan);
    }
    let mut groups: Vec<(usize, AnswerGroup)> = by_key.into_values().collect();
    groups.sort_by(|(a_first, a), (b_first, b)| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then(a_first.cmp(b_first))
    });
    let mut groups: Vec<AnswerGroup> = groups.into_iter().map(|(_, g)| g).collect();
    for group in &mut groups {
        group.is_quorum = group.members.len() >= q;
    }
    let quorum_groups: Vec<usize> = groups
        .iter()
        .enumerate()
        .filter(|(_, g)| g.is_quorum)
        .map(|(i, _)| i)
        .collect();
    let consensus = match quorum_groups.as_slice() {
        [] => Consensus::None,
        [one] => Consensus::Reached { group: *one },
        _ => Consensus::Conflicting {
            groups: quorum_groups,
        },
    };
    Grouping {
        n,
        f: fault_tolerance(n),
        quorum: q,
        groups,
        ungrouped,
        consensus,
    }
}

#[cfg(test)]
mod tests;
