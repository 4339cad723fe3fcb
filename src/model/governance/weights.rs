//! Each SV's reward weight history, rebuilt from accepted `SRARC_UpdateSvRewardWeight` results:
//! one step per accepted change, oldest first. Before the first step the weight is unknown (the
//! results say nothing about it), never guessed from today's weight.

use serde::Serialize;

use crate::api::scan::{VoteOutcome, VoteResult};
use crate::model::format::parse_time_micros;

/// The weight of an SV from `effective_at` on (until the next step).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WeightStep {
    /// When the change took effect (`effectiveAt`).
    pub effective_at: String,
    /// The new weight (basis points).
    pub weight: i64,
    /// The request's key (`trackingCid ?? contract_id`), when the result carries one.
    pub key: String,
}

/// The steps of `party`'s weight, oldest first, from accepted weight changes among `results`
/// (in any order; duplicates, such as the same result from two pages, count once).
pub fn weight_history(results: &[VoteResult], party: &str) -> Vec<WeightStep> {
    let mut steps: Vec<(i64, WeightStep)> = results
        .iter()
        .filter(|r| r.request.action.name == "SRARC_UpdateSvRewardWeight")
        .filter_map(|r| {
            let VoteOutcome::Accepted { effective_at } = &r.outcome else {
                return None;
            };
            let v = &r.request.action.value;
            if v.get("svParty").and_then(|p| p.as_str()) != Some(party) {
                return None;
            }
            let weight = match v.get("newRewardWeight")? {
                serde_json::Value::String(s) => s.trim().parse().ok()?,
                serde_json::Value::Number(n) => n.as_i64()?,
                _ => return None,
            };
            let at = parse_time_micros(effective_at)?;
            Some((
                at,
                WeightStep {
                    effective_at: effective_at.clone(),
                    weight,
                    key: r.request.key().to_owned(),
                },
            ))
        })
        .collect();
    steps.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.key.cmp(&b.1.key)));
    steps.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    steps.into_iter().map(|(_, s)| s).collect()
}

/// The weight in force at `at` (µs) by `steps`; `None` (unknown) before the first step.
pub fn weight_at(steps: &[WeightStep], at: i64) -> Option<i64> {
    steps
        .iter()
        .take_while(|s| parse_time_micros(&s.effective_at).is_some_and(|t| t <= at))
        .last()
        .map(|s| s.weight)
}
