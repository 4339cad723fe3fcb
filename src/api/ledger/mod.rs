//! Participant ledger group (JSON Ledger API v2, `{ledger_url}/v2`): the models and the
//! [`Call`] constructors, one file per group of endpoints. Every call carries the bearer token.
//!
//! - here: the `JsCantonError` error body, parties, users, packages, ledger end, participant id,
//!   and interactive-submission execution;
//! - `events`: events, transactions, trees, reassignments and update items as the node sends them;
//! - `updates`: the update stream requests (`/v2/updates/trees`, `/v2/updates`), their filters,
//!   and trees from the flat ledger-effects shape.

mod events;
mod updates;

pub use events::*;
pub use updates::*;

use super::call::{Call, Group, Method, ResponseParts, encode_segment};
use super::error::ApiError;
use super::json::{int, nd, opt_int, raw_backed};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

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

/// Participant-local metadata of a resource.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
    #[serde(default, deserialize_with = "nd")]
    pub annotations: BTreeMap<String, String>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Details of a party.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PartyDetails {
    #[serde(default, deserialize_with = "nd")]
    pub party: String,
    #[serde(default, deserialize_with = "nd")]
    pub is_local: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_metadata: Option<ObjectMeta>,
    /// Unset: default identity provider, or not hosted / outside the user's provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity_provider_id: Option<String>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v2/parties/{party}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PartiesResponse {
    #[serde(default, deserialize_with = "nd")]
    pub party_details: Vec<PartyDetails>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// An empty JSON object answer (e.g. `DELETE /v2/users/{user-id}`); keeps anything sent.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EmptyResponse {
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v2/packages/{package-id}`: the package bytes and its hash header.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Package {
    pub bytes: Vec<u8>,
    /// The `Canton-Package-Hash` header.
    pub package_hash: Option<String>,
    pub content_type: Option<String>,
}

/// Response of `GET /v2/state/ledger-end`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LedgerEnd {
    /// 0 (or absent): the participant's view of the ledger is empty.
    #[serde(
        default,
        deserialize_with = "opt_int",
        skip_serializing_if = "Option::is_none"
    )]
    pub offset: Option<i64>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v2/parties/participant-id`: the id of the participant serving this Ledger
/// API (usually `name::fingerprint`, without the `PAR::` prefix a sequencer member id has).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParticipantIdResponse {
    #[serde(default, deserialize_with = "nd")]
    pub participant_id: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

fn decode_package(parts: &ResponseParts<'_>) -> Result<Package, ApiError> {
    Ok(Package {
        bytes: parts.body.to_vec(),
        package_hash: parts.header("canton-package-hash").map(str::to_owned),
        content_type: parts.header("content-type").map(str::to_owned),
    })
}

/// `GET /v2/parties/{party}` (plus `parties` and `identity-provider-id` query parameters).
pub fn parties(
    party: &str,
    more_parties: &[String],
    identity_provider_id: Option<&str>,
) -> Call<PartiesResponse> {
    let mut call = Group::Ledger.get(
        "ledger GET /v2/parties/{party}",
        format!("/v2/parties/{}", encode_segment(party)),
    );
    if let Some(idp) = identity_provider_id {
        call = call.query("identity-provider-id", idp);
    }
    for p in more_parties {
        call = call.query("parties", p.as_str());
    }
    call
}

/// `GET /v2/parties/participant-id`.
pub fn participant_id() -> Call<ParticipantIdResponse> {
    Group::Ledger.get(
        "ledger GET /v2/parties/participant-id",
        "/v2/parties/participant-id",
    )
}

/// `DELETE /v2/users/{user-id}`.
pub fn delete_user(user_id: &str) -> Call<EmptyResponse> {
    Group::Ledger.call(
        Method::Delete,
        "ledger DELETE /v2/users/{user-id}",
        format!("/v2/users/{}", encode_segment(user_id)),
    )
}

/// `GET /v2/packages/{package-id}`: raw package bytes and the `Canton-Package-Hash` header.
pub fn package(package_id: &str) -> Call<Package> {
    Call::new(
        "ledger GET /v2/packages/{package-id}",
        Group::Ledger,
        Method::Get,
        format!("/v2/packages/{}", encode_segment(package_id)),
        decode_package,
    )
}

/// `GET /v2/state/ledger-end`.
pub fn ledger_end() -> Call<LedgerEnd> {
    Group::Ledger.get("ledger GET /v2/state/ledger-end", "/v2/state/ledger-end")
}

// ---------------------------------------------------------------------------------------------
// Interactive submission: executeAndWaitForTransaction
// ---------------------------------------------------------------------------------------------

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
