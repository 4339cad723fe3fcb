//! The CIP-0104 reward accounting endpoints (`/v0/internal/reward-accounting-process/…`, SV
//! internal and subject to change): the earliest round with complete activity records, a
//! round's activity totals and root hash, and the batches of its reward tree.
//!
//! They are decoded tolerantly: unknown fields are kept, a missing count reads as 0, an unknown
//! `status` or `batch_type` is kept as text. A round's answer is a state, not an error
//! ([`RoundAnswer`]): `Undetermined` (the round is not settled yet), `CannotProvide` (this scan
//! lacks the data), and, through [`settle`], a 404 (the round, or the endpoint, is unknown to
//! this scan) or a 501 (an older scan that does not implement it).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::api::call::{Call, Group, Method, ResponseParts, decode_json, encode_segment};
use crate::api::error::ApiError;

const PREFIX: &str = "/v0/internal/reward-accounting-process/rounds";

/// What a scan answers for a round (or for a batch, or for the earliest round).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", content = "value", rename_all = "snake_case")]
pub enum RoundAnswer<T> {
    /// `status: Ok` with the data.
    Ok(T),
    /// `status: Undetermined`: the round is not settled yet.
    Undetermined,
    /// `status: CannotProvide`: this scan lacks the data for the round.
    CannotProvide,
    /// A `status` this program does not know (as sent).
    UnknownStatus(String),
    /// 404: the round (or batch) is unknown to this scan, or the endpoint is absent.
    NotFound,
    /// 501: the scan does not implement the endpoint (older than the reward accounting).
    NotImplemented,
}

impl<T> RoundAnswer<T> {
    /// The data when the answer is `Ok`.
    pub fn ok(&self) -> Option<&T> {
        match self {
            RoundAnswer::Ok(t) => Some(t),
            _ => None,
        }
    }

    /// The state in one word, as the CLI prints it.
    pub fn state(&self) -> &str {
        match self {
            RoundAnswer::Ok(_) => "ok",
            RoundAnswer::Undetermined => "undetermined",
            RoundAnswer::CannotProvide => "cannot provide",
            RoundAnswer::UnknownStatus(_) => "unknown status",
            RoundAnswer::NotFound => "not found (404)",
            RoundAnswer::NotImplemented => "not implemented (501)",
        }
    }
}

/// A call's result with 404 and 501 read as states ([`RoundAnswer::NotFound`],
/// [`RoundAnswer::NotImplemented`]); other errors stay errors.
pub fn settle<T>(result: Result<RoundAnswer<T>, ApiError>) -> Result<RoundAnswer<T>, ApiError> {
    match result {
        Ok(a) => Ok(a),
        Err(e) => match e.status() {
            Some(404) => Ok(RoundAnswer::NotFound),
            Some(501) => Ok(RoundAnswer::NotImplemented),
            _ => Err(e),
        },
    }
}

/// `{"earliest_round": n}`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct EarliestRewardRound {
    pub earliest_round: i64,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// A round's activity totals (`status: Ok`). Amounts are decimal text as sent.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ActivityTotals {
    pub round_number: i64,
    pub total_app_activity_weight: i64,
    pub active_parties_count: i64,
    pub activity_records_count: i64,
    pub total_app_reward_minting_allowance: String,
    pub total_app_reward_thresholded: String,
    pub total_app_reward_unclaimed: String,
    pub rewarded_app_provider_parties_count: i64,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// A round's root hash (`status: Ok`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RootHash {
    pub round_number: i64,
    /// Hex, as sent.
    pub root_hash: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// One minting allowance of a leaf batch: `amount` is decimal text as sent.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MintingAllowance {
    pub provider: String,
    pub amount: String,
}

/// A batch of a round's reward tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "batch_type")]
pub enum RewardBatch {
    /// An inner batch: its children's hashes (hex, as sent).
    BatchOfBatches { child_hashes: Vec<String> },
    /// A leaf batch.
    BatchOfMintingAllowances {
        minting_allowances: Vec<MintingAllowance>,
    },
    /// A `batch_type` this program does not know (as sent).
    Unknown { unknown_type: String },
}

fn decode_error(parts: &ResponseParts<'_>, detail: &dyn std::fmt::Display) -> ApiError {
    ApiError::Decode {
        endpoint: parts.endpoint,
        path: String::new(),
        detail: detail.to_string(),
    }
}

fn object(parts: &ResponseParts<'_>) -> Result<Map<String, Value>, ApiError> {
    match decode_json::<Value>(parts)? {
        Value::Object(m) => Ok(m),
        _ => Err(decode_error(parts, &"expected a JSON object")),
    }
}

fn decode_status<T: serde::de::DeserializeOwned>(
    parts: &ResponseParts<'_>,
) -> Result<RoundAnswer<T>, ApiError> {
    let m = object(parts)?;
    let status = m.get("status").and_then(Value::as_str).unwrap_or("Ok");
    Ok(match status {
        "Ok" => RoundAnswer::Ok(
            serde_json::from_value(Value::Object(m.clone()))
                .map_err(|e| decode_error(parts, &e))?,
        ),
        "Undetermined" => RoundAnswer::Undetermined,
        "CannotProvide" => RoundAnswer::CannotProvide,
        other => RoundAnswer::UnknownStatus(other.to_owned()),
    })
}

fn decode_batch(parts: &ResponseParts<'_>) -> Result<RoundAnswer<RewardBatch>, ApiError> {
    let m = object(parts)?;
    // A batch of a round that is not settled may come as a round status.
    if !m.contains_key("batch_type") {
        match m.get("status").and_then(Value::as_str) {
            Some("Undetermined") => return Ok(RoundAnswer::Undetermined),
            Some("CannotProvide") => return Ok(RoundAnswer::CannotProvide),
            _ => {}
        }
    }
    let field = |k: &str| m.get(k).cloned().unwrap_or(Value::Array(Vec::new()));
    let batch = match m.get("batch_type").and_then(Value::as_str).unwrap_or("") {
        "BatchOfBatches" => RewardBatch::BatchOfBatches {
            child_hashes: serde_json::from_value(field("child_hashes"))
                .map_err(|e| decode_error(parts, &e))?,
        },
        "BatchOfMintingAllowances" => RewardBatch::BatchOfMintingAllowances {
            minting_allowances: serde_json::from_value(field("minting_allowances"))
                .map_err(|e| decode_error(parts, &e))?,
        },
        other => RewardBatch::Unknown {
            unknown_type: other.to_owned(),
        },
    };
    Ok(RoundAnswer::Ok(batch))
}

/// `GET …/rounds/earliest-available`. Pass the result through [`settle`].
pub fn reward_earliest_round() -> Call<RoundAnswer<EarliestRewardRound>> {
    Group::Scan
        .get::<EarliestRewardRound>(
            "scan GET /v0/internal/reward-accounting-process/rounds/earliest-available",
            format!("{PREFIX}/earliest-available"),
        )
        .map(RoundAnswer::Ok)
        .named("earliest reward accounting round")
}

/// `GET …/rounds/{round}/activity-totals`. Pass the result through [`settle`].
pub fn reward_activity_totals(round: i64) -> Call<RoundAnswer<ActivityTotals>> {
    Call::new(
        "scan GET /v0/internal/reward-accounting-process/rounds/{round_number}/activity-totals",
        Group::Scan,
        Method::Get,
        format!("{PREFIX}/{round}/activity-totals"),
        decode_status::<ActivityTotals>,
    )
    .about(round.to_string())
    .named(format!("activity totals of round {round}"))
}

/// `GET …/rounds/{round}/root-hash`. Pass the result through [`settle`].
pub fn reward_root_hash(round: i64) -> Call<RoundAnswer<RootHash>> {
    Call::new(
        "scan GET /v0/internal/reward-accounting-process/rounds/{round_number}/root-hash",
        Group::Scan,
        Method::Get,
        format!("{PREFIX}/{round}/root-hash"),
        decode_status::<RootHash>,
    )
    .about(round.to_string())
    .named(format!("reward root hash of round {round}"))
}

/// `GET …/rounds/{round}/batches/{batch_hash}`. Pass the result through [`settle`] (404: no
/// such batch).
pub fn reward_batch(round: i64, batch_hash: &str) -> Call<RoundAnswer<RewardBatch>> {
    Call::new(
        "scan GET /v0/internal/reward-accounting-process/rounds/{round_number}/batches/{batch_hash}",
        Group::Scan,
        Method::Get,
        format!("{PREFIX}/{round}/batches/{}", encode_segment(batch_hash)),
        decode_batch,
    )
    .about(batch_hash.to_owned())
    .named(format!("reward batch of round {round}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_decodes_as_its_state() {
        let call = reward_activity_totals(7);
        assert_eq!(
            call.path(),
            "/v0/internal/reward-accounting-process/rounds/7/activity-totals"
        );
        let ok = call
            .decode_response(
                200,
                &[],
                br#"{"status":"Ok","round_number":7,"total_app_activity_weight":12,
                    "total_app_reward_minting_allowance":"1.5","new":true}"#,
            )
            .expect("decodes");
        let t = ok.ok().expect("ok");
        assert_eq!(t.total_app_activity_weight, 12);
        assert_eq!(t.active_parties_count, 0);
        assert_eq!(t.total_app_reward_minting_allowance, "1.5");
        assert!(t.unknown.contains_key("new"));
        for (body, want) in [
            (&br#"{"status":"Undetermined"}"#[..], "undetermined"),
            (br#"{"status":"CannotProvide"}"#, "cannot provide"),
            (br#"{"status":"Later"}"#, "unknown status"),
        ] {
            let a = reward_root_hash(7)
                .decode_response(200, &[], body)
                .expect("decodes");
            assert_eq!(a.state(), want);
        }
    }

    #[test]
    fn batches_decode_by_type_and_404_501_are_states() {
        let call = reward_batch(3, "ab/c");
        assert!(call.path().ends_with("/rounds/3/batches/ab%2Fc"));
        let b = call
            .decode_response(
                200,
                &[],
                br#"{"batch_type":"BatchOfMintingAllowances","minting_allowances":[{"provider":"p::1","amount":"2.0"}]}"#,
            )
            .expect("decodes");
        assert_eq!(
            b,
            RoundAnswer::Ok(RewardBatch::BatchOfMintingAllowances {
                minting_allowances: vec![MintingAllowance {
                    provider: "p::1".into(),
                    amount: "2.0".into()
                }]
            })
        );
        let nf = ApiError::NotFound {
            endpoint: "e",
            message: "no".into(),
        };
        assert_eq!(
            settle::<RootHash>(Err(nf)).expect("state"),
            RoundAnswer::NotFound
        );
        let down = ApiError::Timeout { endpoint: "e" };
        assert!(settle::<RootHash>(Err(down)).is_err());
        let later = reward_batch(3, "ab")
            .decode_response(200, &[], br#"{"status":"Undetermined"}"#)
            .expect("decodes");
        assert_eq!(later, RoundAnswer::Undetermined);
    }
}
