//! Validator scan-proxy group (`{validator_url}/api/validator`): contract models and the
//! [`Call`] constructors for the development fund coupons, amulet rules and transfer command
//! status endpoints.

use super::call::{Call, Group};
use super::json::RawJson;
use super::json::{nd, raw_backed, string_enum};
use std::collections::BTreeMap;

raw_backed! {
    /// An active contract as the scan (proxy) returns it.
    pub struct Contract via ContractRepr {
        #[serde(default, deserialize_with = "nd")]
        pub template_id: String,
        #[serde(default, deserialize_with = "nd")]
        pub contract_id: String,
        /// The contract's create arguments (Daml value, compact JSON).
        #[serde(default)]
        pub payload: RawJson,
        /// Base64 created-event blob, for disclosure.
        #[serde(default, deserialize_with = "nd")]
        pub created_event_blob: String,
        #[serde(default, deserialize_with = "nd")]
        pub created_at: String,
    }
}

raw_backed! {
    /// A contract and the synchronizer it is assigned to (absent while in flight).
    pub struct ContractWithState via ContractWithStateRepr {
        pub contract: Contract,
        #[serde(default)]
        pub domain_id: Option<String>,
    }
}

raw_backed! {
    /// Response of `GET /v0/scan-proxy/unclaimed-development-fund-coupons`.
    pub struct DevFundCoupons via DevFundCouponsRepr {
        #[serde(rename = "unclaimed-development-fund-coupons", default, deserialize_with = "nd")]
        pub unclaimed_development_fund_coupons: Vec<ContractWithState>,
    }
}

raw_backed! {
    /// Response of `GET /v0/scan-proxy/amulet-rules`.
    pub struct AmuletRules via AmuletRulesRepr {
        pub amulet_rules: ContractWithState,
    }
}

string_enum! {
    /// `status` of a transfer command.
    pub enum TransferCommandState {
        Created = "created",
        Sent = "sent",
        Failed = "failed",
    }
}

string_enum! {
    /// `failure_kind` of a failed transfer command.
    pub enum TransferFailureKind {
        Failed = "failed",
        Expired = "expired",
        Withdrawn = "withdrawn",
    }
}

/// The status of one transfer command.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TransferCommandStatus {
    pub status: TransferCommandState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_kind: Option<TransferFailureKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(flatten)]
    pub unknown: serde_json::Map<String, serde_json::Value>,
}

raw_backed! {
    /// A transfer command contract with its status.
    pub struct TransferCommandWithStatus via TransferCommandWithStatusRepr {
        pub contract: Contract,
        pub status: TransferCommandStatus,
    }
}

raw_backed! {
    /// Response of `GET /v0/scan-proxy/transfer-command/status`: commands keyed by contract id.
    pub struct TransferCommandStatusResponse via TransferCommandStatusResponseRepr {
        #[serde(default, deserialize_with = "nd")]
        pub transfer_commands_by_contract_id: BTreeMap<String, TransferCommandWithStatus>,
    }
}

/// `GET /v0/scan-proxy/unclaimed-development-fund-coupons`.
pub fn dev_fund_coupons() -> Call<DevFundCoupons> {
    Group::Validator
        .get(
            "validator GET /v0/scan-proxy/unclaimed-development-fund-coupons",
            "/v0/scan-proxy/unclaimed-development-fund-coupons",
        )
        .named("dev fund coupons")
}

/// `GET /v0/scan-proxy/amulet-rules`.
pub fn amulet_rules() -> Call<AmuletRules> {
    Group::Validator
        .get(
            "validator GET /v0/scan-proxy/amulet-rules",
            "/v0/scan-proxy/amulet-rules",
        )
        .named("amulet rules")
}

/// `GET /v0/scan-proxy/transfer-command/status?sender=…&nonce=…` (404 when the sender created
/// nothing in the last 24 hours).
pub fn transfer_command_status(sender: &str, nonce: i64) -> Call<TransferCommandStatusResponse> {
    Group::Validator
        .get(
            "validator GET /v0/scan-proxy/transfer-command/status",
            "/v0/scan-proxy/transfer-command/status",
        )
        .query("sender", sender)
        .query("nonce", nonce.to_string())
        .named("transfer command status")
}
