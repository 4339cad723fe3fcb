//! Per-party queries: holdings summary, validator faucets and licenses, ANS entries, SV reward
//! weight.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::api::call::{Call, Group};
use crate::api::json::{int, lenient_string, nd, opt_int, string_enum};

string_enum! {
    /// `record_time_match` of the holdings summary.
    #[derive(Default)]
    pub enum RecordTimeMatch {
        /// The record time must be a snapshot timestamp (server default).
        #[default]
        Exact = "exact",
        /// The most recent snapshot at or before the record time.
        AtOrBefore = "at_or_before",
    }
}

/// Body of `POST /v1/holdings/summary`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HoldingsSummaryRequest {
    pub migration_id: i64,
    pub record_time: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_time_match: Option<RecordTimeMatch>,
    pub owner_party_ids: Vec<String>,
}

/// Body of `POST /v0/admin/sv/previous-sv-reward-weight`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RewardWeightRequest {
    pub sv_party: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_before: Option<String>,
}

/// One owner's holdings (`HoldingsSummaryV1`). Amounts are Daml decimals as text.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HoldingsSummary {
    #[serde(default, deserialize_with = "nd")]
    pub party_id: String,
    #[serde(default, deserialize_with = "lenient_string")]
    pub total_unlocked_coin: String,
    #[serde(default, deserialize_with = "lenient_string")]
    pub total_locked_coin: String,
    #[serde(default, deserialize_with = "lenient_string")]
    pub total_coin_holdings: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `POST /v1/holdings/summary`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HoldingsSummaryResponse {
    #[serde(default, deserialize_with = "nd")]
    pub record_time: String,
    #[serde(default, deserialize_with = "int")]
    pub migration_id: i64,
    #[serde(default, deserialize_with = "nd")]
    pub summaries: Vec<HoldingsSummary>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Liveness statistics of one validator (`ValidatorReceivedFaucets`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidatorReceivedFaucets {
    #[serde(default, deserialize_with = "nd")]
    pub validator: String,
    #[serde(default, deserialize_with = "int")]
    pub num_rounds_collected: i64,
    #[serde(default, deserialize_with = "int")]
    pub num_rounds_missed: i64,
    #[serde(default, deserialize_with = "int")]
    pub first_collected_in_round: i64,
    #[serde(default, deserialize_with = "int")]
    pub last_collected_in_round: i64,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v0/validators/validator-faucets`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidatorFaucets {
    #[serde(default, deserialize_with = "nd")]
    pub validators_received_faucets: Vec<ValidatorReceivedFaucets>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// accepted weight change took effect before the given time.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RewardWeightResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward_weight: Option<String>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// `POST /v1/holdings/summary`.
pub fn holdings_summary(req: &HoldingsSummaryRequest) -> Call<HoldingsSummaryResponse> {
    Group::Scan
        .post(
            "scan POST /v1/holdings/summary",
            "/v1/holdings/summary",
            req,
        )
        .named("holdings summary")
}

/// `GET /v0/validators/validator-faucets?validator_ids=…` (one parameter per id).
pub fn validator_faucets(validator_ids: &[String]) -> Call<ValidatorFaucets> {
    let mut call = Group::Scan.get(
        "scan GET /v0/validators/validator-faucets",
        "/v0/validators/validator-faucets",
    );
    for id in validator_ids {
        call = call.query("validator_ids", id.as_str());
    }
    call.named("validator faucets")
}

/// A page of `GET /v0/admin/validator/licenses`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ValidatorLicenses {
    /// `Splice.ValidatorLicense:ValidatorLicense` contracts, newest first.
    #[serde(default, deserialize_with = "nd")]
    pub validator_licenses: Vec<crate::api::validator::Contract>,
    /// The `after` of the next page; absent on the last.
    #[serde(default, deserialize_with = "opt_int")]
    pub next_page_token: Option<i64>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// `GET /v0/admin/validator/licenses`: the validators the DSO approved, newest first, `limit`
/// a page (≤ 1000), `after` the previous page's `next_page_token`.
pub fn validator_licenses(after: Option<i64>, limit: u32) -> Call<ValidatorLicenses> {
    let mut call = Group::Scan
        .get(
            "scan GET /v0/admin/validator/licenses",
            "/v0/admin/validator/licenses",
        )
        .query("limit", limit.to_string().as_str());
    if let Some(after) = after {
        call = call.query("after", after.to_string().as_str());
    }
    call.named("validator licenses")
}

/// Pages of `/v0/admin/validator/licenses` read at most (of 1000 each): a scan that keeps
/// answering a next page is not followed for ever.
pub const LICENSE_PAGES_MAX: usize = 1000;

/// Every licence `GET /v0/admin/validator/licenses` serves, page after page (a page that names
/// no new next page, or an empty one, ends the walk).
pub async fn every_validator_license(
    client: &crate::api::ApiClient,
) -> Result<Vec<crate::api::validator::Contract>, crate::api::ApiError> {
    let (mut after, mut out) = (None, Vec::new());
    for _ in 0..LICENSE_PAGES_MAX {
        let page = client.send(&validator_licenses(after, 1000)).await?;
        let empty = page.validator_licenses.is_empty();
        out.extend(page.validator_licenses);
        match page.next_page_token {
            Some(next) if !empty && Some(next) != after => after = Some(next),
            _ => break,
        }
    }
    Ok(out)
}

/// Every current licence ([`every_validator_license`]) and the open and issuing rounds
/// (`None`: not answered), asked of one scan side by side.
pub async fn licenses_and_rounds(
    client: &crate::api::ApiClient,
) -> (
    Result<Vec<crate::api::validator::Contract>, crate::api::ApiError>,
    Option<super::OpenAndIssuingMiningRounds>,
) {
    let rounds_call = super::open_and_issuing_mining_rounds(&super::MiningRoundsRequest::default());
    let (licenses, rounds) =
        futures_util::future::join(every_validator_license(client), client.send(&rounds_call))
            .await;
    (licenses, rounds.ok())
}

/// An ANS entry (`AnsEntry`): a name and the party it names.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AnsEntry {
    /// The party the name belongs to.
    #[serde(default, deserialize_with = "nd")]
    pub user: String,
    #[serde(default, deserialize_with = "nd")]
    pub name: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v0/ans-entries`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AnsEntries {
    #[serde(default, deserialize_with = "nd")]
    pub entries: Vec<AnsEntry>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// `GET /v0/ans-entries?name_prefix=…&page_size=…`: the ANS entries whose names start with
/// `prefix`, oldest first.
pub fn ans_entries(prefix: &str, page_size: u32) -> Call<AnsEntries> {
    Group::Scan
        .get("scan GET /v0/ans-entries", "/v0/ans-entries")
        .query("name_prefix", prefix)
        .query("page_size", page_size.to_string().as_str())
        .named("ans entries")
}

/// `POST /v0/admin/sv/previous-sv-reward-weight`.
pub fn previous_sv_reward_weight(req: &RewardWeightRequest) -> Call<RewardWeightResponse> {
    Group::Scan
        .post(
            "scan POST /v0/admin/sv/previous-sv-reward-weight",
            "/v0/admin/sv/previous-sv-reward-weight",
            req,
        )
        .named("previous sv reward weight")
}
