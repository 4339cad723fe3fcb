//! Interactive submission: `POST /v2/interactive-submission/executeAndWaitForTransaction`, its
//! request (prepared transaction and party signatures) and its answer.

use super::events::JsTransaction;
use super::updates::TransactionFormat;
use crate::api::call::{Call, Group};
use crate::api::json::raw_backed;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One signature.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Signature {
    pub format: String,
    pub signature: String,
    pub signed_by: String,
    pub signing_algorithm_spec: String,
}

/// The signatures of one party.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SinglePartySignatures {
    pub party: String,
    pub signatures: Vec<Signature>,
}

/// `PartySignatures`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PartySignatures {
    pub signatures: Vec<SinglePartySignatures>,
}

/// A protobuf duration.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Duration {
    pub seconds: i64,
    #[serde(default)]
    pub nanos: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown_fields: Option<Value>,
}

/// `DeduplicationPeriod` (a one-key object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum DeduplicationPeriod {
    DeduplicationDuration { value: Duration },
    DeduplicationOffset { value: i64 },
    Empty(Map<String, Value>),
}

/// `MinLedgerTime.time` (a one-key object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum MinLedgerTimeVariant {
    Empty(Map<String, Value>),
    MinLedgerTimeAbs { value: String },
    MinLedgerTimeRel { value: Duration },
}

/// `MinLedgerTime`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MinLedgerTime {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<MinLedgerTimeVariant>,
}

/// Body of `POST /v2/interactive-submission/executeAndWaitForTransaction`
/// (`JsExecuteSubmissionAndWaitForTransactionRequest`). Decoding checks the required fields;
/// unknown fields are kept and sent back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecuteRequest {
    /// Base64 prepared transaction.
    pub prepared_transaction: String,
    pub party_signatures: PartySignatures,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deduplication_period: Option<DeduplicationPeriod>,
    pub submission_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    /// e.g. `HASHING_SCHEME_VERSION_V2`.
    pub hashing_scheme_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ledger_time: Option<MinLedgerTime>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_format: Option<TransactionFormat>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

raw_backed! {
    /// Response of executeAndWaitForTransaction.
    pub struct ExecuteResponse via ExecuteResponseRepr {
        pub transaction: JsTransaction,
    }
}

/// `POST /v2/interactive-submission/executeAndWaitForTransaction`. Not retried.
pub fn execute_and_wait(req: &ExecuteRequest) -> Call<ExecuteResponse> {
    Group::Ledger.post(
        "ledger POST /v2/interactive-submission/executeAndWaitForTransaction",
        "/v2/interactive-submission/executeAndWaitForTransaction",
        req,
    )
}
