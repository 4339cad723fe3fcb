//! Governance across scans: the results count (`/voteresults/count`) and the active requests
//! (`/voterequests`, their list sorted: canonical form) of every scan side by side, each grouped
//! with the consensus rules of the Network pane ([`crate::model::consensus`]). A scan whose
//! count differs from the consensus is named with both numbers (`differs: 298 here, 331
//! there`): older scans lack vote history while reporting their backfill complete. A vote cast
//! in the last seconds may not have reached every scan yet, so a difference in the active
//! requests is to be checked again before it is called a disagreement.

use serde_json::Value;

use crate::model::consensus::{Answer, Consensus, ScanClass, Unordered};
use crate::model::network::NetworkCheck;

/// The active requests' list, sorted before the scans' answers are compared.
pub const VOTE_REQUESTS_UNORDERED: Unordered =
    Unordered(&["dso_rules_vote_requests", "vote_requests"]);

/// What one scan answered to one of the two questions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AcrossCell {
    /// In the consensus group: the value.
    Agree(String),
    /// Another answer than the consensus: this scan's value and the consensus's.
    Differs { here: String, there: String },
    /// An answer, with no consensus to compare it with.
    Unconfirmed(String),
    /// No usable answer: the error, unreachable, timeout.
    Failed(String),
    /// The scan was not asked (the other question's list of scans is longer).
    Missing,
}

impl AcrossCell {
    /// In words: `331`, `differs: 298 here, 331 there`, `331 (no consensus)`, the error.
    pub fn words(&self) -> String {
        match self {
            AcrossCell::Agree(v) => v.clone(),
            AcrossCell::Differs { here, there } => format!("differs: {here} here, {there} there"),
            AcrossCell::Unconfirmed(v) => format!("{v} (no consensus)"),
            AcrossCell::Failed(e) => e.clone(),
            AcrossCell::Missing => "-".to_owned(),
        }
    }

    /// Whether the scan's answer differs from the consensus.
    pub fn differs(&self) -> bool {
        matches!(self, AcrossCell::Differs { .. })
    }
}

/// One scan: its SV and its two answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanRow {
    pub index: usize,
    pub sv_name: String,
    /// The results count.
    pub count: AcrossCell,
    /// The active requests.
    pub requests: AcrossCell,
}

/// Every scan's governance side by side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcrossScans {
    pub rows: Vec<ScanRow>,
    /// The consensus on the count, in one line (the Network pane's words).
    pub count_verdict: String,
    /// The consensus on the active requests, in one line.
    pub requests_verdict: String,
    /// When it was checked (µs).
    pub checked_at: i64,
}

impl AcrossScans {
    /// The scans whose count differs from the consensus.
    pub fn count_differs(&self) -> Vec<&ScanRow> {
        self.rows.iter().filter(|r| r.count.differs()).collect()
    }

    /// The scans whose active requests differ from the consensus.
    pub fn requests_differ(&self) -> Vec<&ScanRow> {
        self.rows.iter().filter(|r| r.requests.differs()).collect()
    }
}

/// The count of a `/count` answer.
fn count_text(value: &Value) -> String {
    match value.get("count") {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) => s.clone(),
        _ => "?".to_owned(),
    }
}

/// The active requests of a `/voterequests` answer in words: `3 open`, with the number of
/// votes cast on them (`3 open · 7 votes`).
fn requests_text(value: &Value) -> String {
    let list = value
        .get("dso_rules_vote_requests")
        .or_else(|| value.get("vote_requests"))
        .and_then(Value::as_array);
    let Some(list) = list else {
        return "?".to_owned();
    };
    let votes: usize = list
        .iter()
        .map(|r| match r.pointer("/payload/votes") {
            Some(Value::Array(v)) => v.len(),
            Some(Value::Object(v)) => v.len(),
            _ => 0,
        })
        .sum();
    format!("{} open · {votes} votes", list.len())
}

/// One question's cells, per scan.
fn cells(check: &NetworkCheck, text: fn(&Value) -> String) -> Vec<AcrossCell> {
    let c = &check.update.check;
    let answers = &check.update.answers;
    let value_of = |i: usize| match answers.get(i) {
        Some(Answer::Ok(body)) => body.json().map(text),
        _ => None,
    };
    let consensus = match &c.grouping.consensus {
        Consensus::Reached { group } => c
            .grouping
            .groups
            .get(*group)
            .and_then(|g| g.members.first())
            .and_then(|&i| value_of(i)),
        _ => None,
    };
    c.classes
        .iter()
        .enumerate()
        .map(|(i, class)| {
            let value = value_of(i);
            match (class, value) {
                (ScanClass::Agree, Some(v)) => AcrossCell::Agree(v),
                (ScanClass::Disagree { .. }, Some(here)) => AcrossCell::Differs {
                    here,
                    there: consensus.clone().unwrap_or_else(|| "?".to_owned()),
                },
                (ScanClass::Unconfirmed, Some(v)) => AcrossCell::Unconfirmed(v),
                (class, _) => {
                    let detail = class.detail();
                    AcrossCell::Failed(if detail.is_empty() {
                        class.name().to_owned()
                    } else {
                        format!("{}: {detail}", class.name())
                    })
                }
            }
        })
        .collect()
}

/// The two checks side by side, by scan (the scans of `count`, in its order).
pub fn across_scans(count: &NetworkCheck, requests: &NetworkCheck) -> AcrossScans {
    let counts = cells(count, count_text);
    let reqs = cells(requests, requests_text);
    let rows = count
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            // The same scan in the other check (by URL: both lists come from one discovery,
            // but a rediscovery in between may reorder them).
            let j = requests.entries.iter().position(|r| r.url == e.url);
            ScanRow {
                index: i,
                sv_name: e.sv_name.clone(),
                count: counts.get(i).cloned().unwrap_or(AcrossCell::Missing),
                requests: j
                    .and_then(|j| reqs.get(j).cloned())
                    .unwrap_or(AcrossCell::Missing),
            }
        })
        .collect();
    AcrossScans {
        rows,
        count_verdict: count.update.check.verdict(),
        requests_verdict: requests.update.check.verdict(),
        checked_at: count.checked_at,
    }
}
