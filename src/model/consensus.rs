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

pub mod digest;

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

// ---------------------------------------------------------------------------------------------
// Differences
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// One update across every scan
// ---------------------------------------------------------------------------------------------

/// Where an update (or a scan's history head) sits in the history: migration id, then record
/// time (µs since the epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    pub migration_id: i64,
    pub record_time: i64,
}

/// What is known about one scan's history, to tell "don't know" from "disagree" when it
/// answered 404.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScanHistory {
    /// The newest update of its history, when it was looked up.
    pub head: Option<Position>,
    /// `Some(true)` when the scan reports it is still backfilling its history.
    pub backfilling: Option<bool>,
}

/// Why a scan's 404 does not count as an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnknownReason {
    /// The endpoint answers 404 for what this scan has not indexed (`/v2/updates/hash`).
    NotIndexed,
    /// The scan's history ends before the update.
    Behind { head: Position },
    /// The scan is still backfilling its history.
    Backfilling,
}

/// The verdict on one scan's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ScanClass {
    /// In the consensus group.
    Agree,
    /// A different answer than the consensus.
    Disagree {
        /// The status it answered (200, or e.g. 404 while its history reaches past the update).
        status: u16,
        /// The paths where its body differs (empty when it answered an error).
        differences: Vec<Difference>,
        /// More differences were left out.
        truncated: bool,
    },
    /// Its answer does not count: it cannot know.
    DontKnow(UnknownReason),
    /// It answered, but there is no consensus to compare with.
    Unconfirmed,
    /// It answered an error that is not the consensus (and not a "don't know").
    Error { status: u16, message: String },
    /// No answer.
    Unreachable { detail: String },
    /// No answer in time.
    Timeout,
}

impl ScanClass {
    /// The short name used in JSON output: agree, disagree, dont_know, unconfirmed, error,
    /// unreachable, timeout.
    pub fn name(&self) -> &'static str {
        match self {
            ScanClass::Agree => "agree",
            ScanClass::Disagree { .. } => "disagree",
            ScanClass::DontKnow(_) => "dont_know",
            ScanClass::Unconfirmed => "unconfirmed",
            ScanClass::Error { .. } => "error",
            ScanClass::Unreachable { .. } => "unreachable",
            ScanClass::Timeout => "timeout",
        }
    }
}

/// Most differences listed per disagreeing scan.
pub const MAX_DIFFERENCES: usize = 50;

/// One update as every scan answered it.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateCheck {
    /// Where the update sits (from the 2xx answers), when any scan returned it.
    pub position: Option<Position>,
    pub grouping: Grouping,
    /// Per scan, in scan order.
    pub classes: Vec<ScanClass>,
}

impl UpdateCheck {
    /// True when some scan disagrees with the consensus.
    pub fn any_disagree(&self) -> bool {
        self.classes
            .iter()
            .any(|c| matches!(c, ScanClass::Disagree { .. }))
    }

    /// How many scans are in each class: (agree, disagree, don't know, no answer or error).
    pub fn tally(&self) -> (usize, usize, usize, usize) {
        let count = |f: fn(&ScanClass) -> bool| self.classes.iter().filter(|c| f(c)).count();
        (
            count(|c| matches!(c, ScanClass::Agree)),
            count(|c| matches!(c, ScanClass::Disagree { .. })),
            count(|c| matches!(c, ScanClass::DontKnow(_))),
            count(|c| {
                matches!(
                    c,
                    ScanClass::Error { .. } | ScanClass::Unreachable { .. } | ScanClass::Timeout
                )
            }),
        )
    }

    /// Whether a quorum exists and what it is, in one line: `consensus: 11 of 13 agree on the
    /// update (quorum 5) ✓ · 1 disagrees · 1 unreachable`, `no consensus: …  ✗`.
    pub fn verdict(&self) -> String {
        let g = &self.grouping;
        let (agree, disagree, dont_know, failed) = self.tally();
        let mut parts = vec![match &g.consensus {
            Consensus::Reached { group } => {
                let what = match g.groups.get(*group).map(|x| x.status) {
                    Some(200) | None => "one answer".to_owned(),
                    Some(404) => "not found (404)".to_owned(),
                    Some(status) => format!("HTTP {status}"),
                };
                format!(
                    "consensus: {agree} of {} agree on {what} (quorum {}) ✓",
                    g.n, g.quorum
                )
            }
            Consensus::None => format!(
                "no consensus: the largest group has {} of {} (quorum {}) ✗",
                g.groups.first().map_or(0, |x| x.members.len()),
                g.n,
                g.quorum
            ),
            Consensus::Conflicting { groups } => format!(
                "conflicting: {} groups reach the quorum of {} ✗",
                groups.len(),
                g.quorum
            ),
        }];
        if disagree > 0 {
            parts.push(format!(
                "{disagree} disagree{}",
                if disagree == 1 { "s" } else { "" }
            ));
        }
        if dont_know > 0 {
            parts.push(format!("{dont_know} don't know"));
        }
        if failed > 0 {
            parts.push(format!("{failed} without an answer"));
        }
        parts.join(" · ")
    }
}

/// The position of an update answer (`/v2/updates/{id}` item, or an event with `update`):
/// its migration id (for a reassignment the one inside `event`) and record time.
pub fn update_position(value: &Value) -> Option<Position> {
    let item = match value.get("update") {
        Some(update) if update.is_object() => update,
        _ => value,
    };
    let record_time = item
        .get("record_time")
        .and_then(Value::as_str)
        .and_then(super::summary::parse_time_micros)?;
    let migration_id = item
        .get("migration_id")
        .or_else(|| item.get("event").and_then(|e| e.get("migration_id")))
        .and_then(json_int)?;
    Some(Position {
        migration_id,
        record_time,
    })
}

fn json_int(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Classifies every scan's answer about one update.
///
/// `counted[i]` says whether scan `i` counts in `n` and votes (a scan that does not is only
/// compared against the consensus). `history[i]` is what is known about scan `i`'s history
/// (only needed for scans that answered 404). With `not_found_is_unknown` (the hash lookup)
/// every 404 is "don't know". Otherwise a 404 is "don't know" when the scan is still
/// backfilling or its head is before the update's position; such answers are left out of the
/// groups (they still count in `n`).
pub fn classify_update(
    answers: &[Answer],
    counted: &[bool],
    history: &[ScanHistory],
    not_found_is_unknown: bool,
) -> UpdateCheck {
    let is_counted = |i: usize| counted.get(i).copied().unwrap_or(true);
    let n = (0..answers.len()).filter(|i| is_counted(*i)).count();
    // The update's position, from the largest group of 2xx answers.
    let first = group_answers(answers);
    let position = first
        .groups
        .iter()
        .filter(|g| g.status == 200)
        .find_map(|g| match answers.get(g.members[0]) {
            Some(Answer::Ok(Body::Json(value))) => update_position(value),
            _ => None,
        });
    let unknown: Vec<Option<UnknownReason>> = answers
        .iter()
        .enumerate()
        .map(|(i, answer)| {
            if !matches!(answer, Answer::Error { status: 404, .. }) {
                return None;
            }
            if not_found_is_unknown {
                return Some(UnknownReason::NotIndexed);
            }
            let known = history.get(i).copied().unwrap_or_default();
            if known.backfilling == Some(true) {
                return Some(UnknownReason::Backfilling);
            }
            match (known.head, position) {
                (Some(head), Some(update)) if head < update => Some(UnknownReason::Behind { head }),
                _ => None,
            }
        })
        .collect();
    let grouping = group_among(answers, n, |i| unknown[i].is_some() || !is_counted(i));
    let reference = grouping.consensus_group().map(|g| (g.members[0], g.status));
    let reference_key = reference.and_then(|(scan, _)| answers[scan].group_key());
    let classes = answers
        .iter()
        .enumerate()
        .map(|(i, answer)| {
            if let Some(reason) = &unknown[i] {
                return ScanClass::DontKnow(reason.clone());
            }
            match answer {
                Answer::Unreachable { detail } => {
                    return ScanClass::Unreachable {
                        detail: detail.clone(),
                    };
                }
                Answer::Timeout => return ScanClass::Timeout,
                _ => {}
            }
            let Some((ref_scan, ref_status)) = reference else {
                return match answer {
                    Answer::Error { status, body } => ScanClass::Error {
                        status: *status,
                        message: body.message(),
                    },
                    _ => ScanClass::Unconfirmed,
                };
            };
            if answer.group_key() == reference_key {
                return ScanClass::Agree;
            }
            match (answer, &answers[ref_scan]) {
                (Answer::Ok(body), Answer::Ok(reference_body)) => {
                    let (differences, truncated) = match (reference_body.json(), body.json()) {
                        (Some(a), Some(b)) => json_diff(a, b, MAX_DIFFERENCES),
                        _ => (Vec::new(), false),
                    };
                    ScanClass::Disagree {
                        status: 200,
                        differences,
                        truncated,
                    }
                }
                // The consensus is an answer, this scan says the update is not there although
                // its history reaches past it (or its history is unknown).
                (Answer::Error { status: 404, .. }, Answer::Ok(_)) => ScanClass::Disagree {
                    status: 404,
                    differences: Vec::new(),
                    truncated: false,
                },
                // The consensus is an error (e.g. not found) and this scan returned a body.
                (Answer::Ok(_), _) if ref_status != 200 => ScanClass::Disagree {
                    status: 200,
                    differences: Vec::new(),
                    truncated: false,
                },
                (Answer::Error { status, body }, _) => ScanClass::Error {
                    status: *status,
                    message: body.message(),
                },
                _ => ScanClass::Unconfirmed,
            }
        })
        .collect();
    UpdateCheck {
        position,
        grouping,
        classes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn quorum_table() {
        // n = 1..=13 → (f, quorum): f grows by one every three scans.
        let table = [
            (1..=3, 0, 1),
            (4..=6, 1, 2),
            (7..=9, 2, 3),
            (10..=12, 3, 4),
            (13..=13, 4, 5),
        ];
        for (ns, f, q) in table {
            for n in ns {
                assert_eq!(fault_tolerance(n), f, "f of {n}");
                assert_eq!(quorum(n), q, "quorum of {n}");
            }
        }
        assert_eq!(quorum(0), 1);
    }

    #[test]
    fn canonical_json_sorts_keys_and_drops_whitespace() {
        let a: Value =
            serde_json::from_str(r#"{"b": [1, {"y": 2, "x": null}], "a": "é"}"#).expect("json");
        assert_eq!(canonical_json(&a), r#"{"a":"é","b":[1,{"x":null,"y":2}]}"#);
    }

    #[test]
    fn local_fields_are_stripped() {
        let mut event = json!({
            "update": {"update_id": "u", "offset": "0001"},
            "verdict": {"finalization_time": "t", "verdict_result": "ACCEPTED"},
            "app_activity_records": null,
        });
        LocalFields::EVENT.strip(&mut event);
        assert_eq!(
            event,
            json!({"update": {"update_id": "u"}, "verdict": {"verdict_result": "ACCEPTED"}})
        );
        let mut page = json!({"transactions": [{"offset": "1", "a": 1}, {"a": 2}]});
        LocalFields::PAGE.strip(&mut page);
        assert_eq!(page, json!({"transactions": [{"a": 1}, {"a": 2}]}));
    }

    #[test]
    fn diff_paths_name_both_values() {
        let a = json!({"a": 1, "b": {"c": [1, 2], "d": null}, "odd key": true});
        let b = json!({"a": 1, "b": {"c": [1, 3, 4]}, "odd key": false});
        let (diffs, truncated) = json_diff(&a, &b, 10);
        assert!(!truncated);
        let paths: Vec<&str> = diffs.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["$.b.c[1]", "$.b.c[2]", "$.b.d", "$[\"odd key\"]"]);
        assert_eq!(diffs[0].quorum, Some(json!(2)));
        assert_eq!(diffs[0].this, Some(json!(3)));
        assert_eq!(diffs[1].quorum, None);
        assert_eq!(diffs[2].quorum, Some(Value::Null));
        assert_eq!(diffs[2].this, None);
        let (diffs, truncated) = json_diff(&a, &b, 2);
        assert_eq!(diffs.len(), 2);
        assert!(truncated);
    }

    fn ok(json: &str) -> Answer {
        Answer::from_http(200, json.as_bytes(), LocalFields::UPDATE)
    }

    fn err(status: u16, json: &str) -> Answer {
        Answer::from_http(status, json.as_bytes(), LocalFields::UPDATE)
    }

    #[test]
    fn grouping_rules() {
        // (answers, expected group sizes, consensus group size or 0)
        let unreachable = Answer::Unreachable {
            detail: "connection refused".into(),
        };
        let cases: Vec<(&str, Vec<Answer>, Vec<usize>, usize)> = vec![
            (
                "field order and whitespace do not matter",
                vec![
                    ok(r#"{"a":1,"b":2}"#),
                    ok(r#"{ "b": 2, "a": 1 }"#),
                    ok(r#"{"b":2,"a":1}"#),
                    ok(r#"{"a":1,"b":3}"#),
                ],
                vec![3, 1],
                3,
            ),
            (
                "null and absent are different values",
                vec![
                    ok(r#"{"a":1,"b":null}"#),
                    ok(r#"{"a":1}"#),
                    ok(r#"{"a":1}"#),
                    ok(r#"{"a":1,"b":null}"#),
                ],
                vec![2, 2],
                0,
            ),
            (
                "identical 404s are a consensus",
                vec![
                    err(404, r#"{"error":"not found"}"#),
                    err(404, r#"{ "error" : "not found" }"#),
                    ok("{}"),
                    unreachable.clone(),
                ],
                vec![2, 1],
                2,
            ),
            (
                "errors group by status and body",
                vec![
                    err(404, r#"{"error":"a"}"#),
                    err(404, r#"{"error":"b"}"#),
                    err(500, r#"{"error":"a"}"#),
                    err(404, "plain text"),
                ],
                vec![1, 1, 1, 1],
                0,
            ),
            (
                "transport failures never group",
                vec![
                    Answer::Timeout,
                    Answer::Timeout,
                    unreachable.clone(),
                    unreachable,
                ],
                vec![],
                0,
            ),
            (
                "a reassignment's offset is local",
                vec![
                    ok(r#"{"update_id":"u","offset":"1"}"#),
                    ok(r#"{"update_id":"u","offset":"2"}"#),
                    ok(r#"{"update_id":"u"}"#),
                    Answer::Timeout,
                ],
                vec![3],
                3,
            ),
        ];
        for (name, answers, sizes, consensus) in cases {
            let g = group_answers(&answers);
            let got: Vec<usize> = g.groups.iter().map(|g| g.members.len()).collect();
            assert_eq!(got, sizes, "{name}");
            assert_eq!(
                g.consensus_group().map_or(0, |c| c.members.len()),
                consensus,
                "{name}"
            );
        }
        // Two groups with a quorum each: conflicting.
        let g = group_answers(&[ok("1"), ok("1"), ok("2"), ok("2")]);
        assert_eq!(g.consensus, Consensus::Conflicting { groups: vec![0, 1] });
        // n counts the failing scans: 13 scans, 4 matching answers are not enough.
        let mut answers = vec![Answer::Timeout; 9];
        answers.extend(std::iter::repeat_n(ok("{}"), 4));
        assert_eq!(group_answers(&answers).consensus, Consensus::None);
        answers[0] = ok("{}");
        assert!(matches!(
            group_answers(&answers).consensus,
            Consensus::Reached { .. }
        ));
    }

    #[test]
    fn the_verdict_line_says_whether_a_quorum_exists_and_what_it_is() {
        let update = r#"{"update_id":"u","migration_id":1,"record_time":"2026-01-01T00:00:00Z"}"#;
        let other = r#"{"update_id":"u","migration_id":1,"record_time":"2026-01-01T00:00:01Z"}"#;
        let refused = || Answer::Unreachable {
            detail: "refused".into(),
        };
        let check = |answers: &[Answer]| {
            classify_update(answers, &vec![true; answers.len()], &[], false).verdict()
        };
        assert_eq!(
            check(&[ok(update), ok(update), ok(other), refused()]),
            "consensus: 2 of 4 agree on one answer (quorum 2) ✓ · 1 disagrees · 1 without an answer"
        );
        let gone = || err(404, r#"{"error":"x"}"#);
        assert_eq!(
            check(&[gone(), gone(), ok(update), refused()]),
            "consensus: 2 of 4 agree on not found (404) (quorum 2) ✓ · 1 disagrees · 1 without an answer"
        );
        assert_eq!(
            check(&[ok(update), ok(other), refused(), refused()]),
            "no consensus: the largest group has 1 of 4 (quorum 2) ✗ · 2 without an answer"
        );
        assert_eq!(
            check(&[ok(update), ok(update), ok(other), ok(other)]),
            "conflicting: 2 groups reach the quorum of 2 ✗"
        );
    }

    #[test]
    fn classes_of_one_update() {
        let body =
            r#"{"update_id":"u","migration_id":2,"record_time":"2026-01-01T00:00:10Z","x":1}"#;
        let other =
            r#"{"update_id":"u","migration_id":2,"record_time":"2026-01-01T00:00:10Z","x":2}"#;
        let missing = r#"{"error":"not found"}"#;
        let at = |s: i64| Position {
            migration_id: 2,
            record_time: super::super::summary::parse_time_micros("2026-01-01T00:00:00Z")
                .expect("time")
                + s * 1_000_000,
        };
        let answers = vec![
            ok(body),
            ok(body),
            ok(other),
            err(404, missing), // behind
            err(404, missing), // backfilling
            err(404, missing), // caught up: disagrees
            err(500, r#"{"error":"boom"}"#),
            Answer::Timeout,
            ok(body), // not counted: compared only
        ];
        let mut history = vec![ScanHistory::default(); answers.len()];
        history[3].head = Some(at(5));
        history[4].backfilling = Some(true);
        history[5].head = Some(at(20));
        let mut counted = vec![true; answers.len()];
        counted[8] = false;
        let check = classify_update(&answers, &counted, &history, false);
        assert_eq!(check.grouping.n, 8);
        assert_eq!(check.grouping.quorum, 3);
        assert_eq!(check.position, Some(at(10)));
        let names: Vec<&str> = check.classes.iter().map(ScanClass::name).collect();
        assert_eq!(
            names,
            [
                "unconfirmed",
                "unconfirmed",
                "unconfirmed",
                "dont_know",
                "dont_know",
                "error",
                "error",
                "timeout",
                "unconfirmed"
            ]
        );
        // Two agreeing answers are not a quorum of 8 (3); the observer does not vote.
        assert!(check.grouping.consensus_group().is_none());
        let mut answers = answers;
        answers[6] = ok(body);
        let check = classify_update(&answers, &counted, &history, false);
        assert!(check.grouping.consensus_group().is_some());
        let names: Vec<&str> = check.classes.iter().map(ScanClass::name).collect();
        assert_eq!(
            names,
            [
                "agree",
                "agree",
                "disagree",
                "dont_know",
                "dont_know",
                "disagree",
                "agree",
                "timeout",
                "agree"
            ]
        );
        let ScanClass::Disagree {
            status,
            differences,
            ..
        } = &check.classes[2]
        else {
            panic!("{:?}", check.classes[2]);
        };
        assert_eq!(*status, 200);
        assert_eq!(differences[0].path, "$.x");
        assert!(matches!(
            check.classes[3],
            ScanClass::DontKnow(UnknownReason::Behind { .. })
        ));
        assert_eq!(
            check.classes[4],
            ScanClass::DontKnow(UnknownReason::Backfilling)
        );
        assert!(matches!(
            check.classes[5],
            ScanClass::Disagree { status: 404, .. }
        ));
        assert_eq!(check.classes[8], ScanClass::Agree);
        // The hash lookup: every 404 is "not indexed here".
        let check = classify_update(&answers, &counted, &history, true);
        assert_eq!(
            check.classes[5],
            ScanClass::DontKnow(UnknownReason::NotIndexed)
        );
    }
}
