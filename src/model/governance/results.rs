//! What the results list asks the scan and keeps of its answer: the filters ([`ResultsQuery`]:
//! action and requester as the server's substrings, outcome as the server's `accepted`, dates
//! on the effective date; the exact outcome and requester told apart here), the guard against
//! a scan that sends the same page twice ([`PageGuard`]), and the config in force when a past
//! config change was voted, when the loaded results know it ([`config_in_force_then`]).

use serde_json::Value;

use super::{ClosedRequest, Outcome};
use crate::api::scan::{VoteOutcome, VoteResult, VoteResultsFilter};
use crate::model::format::{format_time_micros, parse_time_micros};

/// The filters of the results list and of `governance results`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResultsQuery {
    /// A substring of the action's name (server-side).
    pub action: Option<String>,
    /// The outcome (server-side only as accepted / not accepted; told apart here).
    pub outcome: Option<Outcome>,
    /// The requester's exact SV name (the server matches a substring; exact here).
    pub requester: Option<String>,
    /// Effective at or after (RFC 3339 UTC).
    pub from: Option<String>,
    /// Effective at or before (RFC 3339 UTC).
    pub until: Option<String>,
}

impl ResultsQuery {
    /// What the server is asked to filter.
    pub fn server_filter(&self) -> VoteResultsFilter {
        VoteResultsFilter {
            action_name: self.action.clone(),
            accepted: self.outcome.and_then(Outcome::server_accepted),
            requester: self.requester.clone(),
            effective_from: self.from.clone(),
            effective_to: self.until.clone(),
        }
    }

    /// Whether a result the server sent passes the filters the server cannot apply (the exact
    /// outcome, the exact requester).
    pub fn keeps(&self, row: &ClosedRequest) -> bool {
        self.outcome.is_none_or(|o| o == row.outcome)
            && self.requester.as_deref().is_none_or(|r| r == row.requester)
    }

    /// Whether the server's `/count` counts exactly what is listed (no filter applied here
    /// narrows it further).
    pub fn count_is_exact(&self) -> bool {
        self.requester.is_none() && matches!(self.outcome, None | Some(Outcome::Accepted))
    }

    /// The filters in words (`action SetConfig · outcome expired · from …`), or `no filter`.
    pub fn words(&self) -> String {
        let mut parts = Vec::new();
        if let Some(a) = &self.action {
            parts.push(format!("action ~ {a}"));
        }
        if let Some(o) = self.outcome {
            parts.push(format!("outcome {}", o.word()));
        }
        if let Some(r) = &self.requester {
            parts.push(format!("requester {r}"));
        }
        if let Some(f) = &self.from {
            parts.push(format!("from {f}"));
        }
        if let Some(u) = &self.until {
            parts.push(format!("until {u}"));
        }
        if parts.is_empty() {
            "no filter".to_owned()
        } else {
            parts.join(" · ")
        }
    }
}

/// A time as the scan's date filters take it: RFC 3339 UTC; `None` when it is not a time.
pub fn filter_time(text: &str) -> Option<String> {
    parse_time_micros(text.trim()).map(format_time_micros)
}

/// Reading a scan's result pages one after another: the token of each page must be new, and a
/// page must not repeat the previous one (an older scan may ignore `pageToken` and send the
/// first page again).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageGuard {
    tokens: Vec<i64>,
    last_first: Option<String>,
}

/// What to do after a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextPage {
    /// Ask for the page after this token.
    After(i64),
    /// The last page was read.
    End,
    /// The scan sent a page twice: stop (the words say why).
    Repeated(String),
}

impl PageGuard {
    /// Checks a page (its results and `next_page_token`) and says what comes next; a page that
    /// repeats the previous one keeps none of its results (`false` in the pair).
    pub fn next(&mut self, page: &[VoteResult], token: Option<i64>) -> (bool, NextPage) {
        let first = page.first().map(|r| {
            format!(
                "{}|{}|{}",
                r.request.key(),
                r.completed_at,
                r.effective_date()
            )
        });
        if first.is_some() && first == self.last_first {
            return (
                false,
                NextPage::Repeated(
                    "the scan sent the same page twice (it may ignore pageToken): stopped here"
                        .to_owned(),
                ),
            );
        }
        self.last_first = first;
        match token {
            None => (true, NextPage::End),
            Some(_) if page.is_empty() => (true, NextPage::End),
            Some(t) if self.tokens.contains(&t) => (
                true,
                NextPage::Repeated(format!(
                    "the scan sent page token {t} twice (it may ignore pageToken): stopped here"
                )),
            ),
            Some(t) => {
                self.tokens.push(t);
                (true, NextPage::After(t))
            }
        }
    }
}

/// The config in force when `result` (a config change) was voted on, as far as `results` (any
/// results read, in any order) know it: the `newConfig` of the newest accepted change of the
/// same action effective before `result` was completed. `None` when none of them is.
pub fn config_in_force_then(result: &VoteResult, results: &[VoteResult]) -> Option<Value> {
    let name = &result.request.action.name;
    if !name.ends_with("_SetConfig") {
        return None;
    }
    let before = parse_time_micros(&result.completed_at)?;
    results
        .iter()
        .filter(|r| &r.request.action.name == name)
        .filter_map(|r| match &r.outcome {
            VoteOutcome::Accepted { effective_at } => {
                let at = parse_time_micros(effective_at)?;
                (at < before).then_some((at, r))
            }
            _ => None,
        })
        .max_by_key(|(at, _)| *at)
        .and_then(|(_, r)| r.request.action.value.get("newConfig").cloned())
        .filter(|v| !v.is_null())
}
