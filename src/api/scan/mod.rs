//! Scan group (`{scan_url}/api/scan`): the typed models of every scan endpoint we use and the
//! [`Call`] constructors for them.
//!
//! The update history is the hot path and has its own files: `updates` (`/v2/updates` pages, an
//! update by id or by hash: items that keep their raw JSON, so one odd item becomes
//! [`UpdateItem::Malformed`] instead of failing the page) and `tree` (a transaction's events and
//! its tree walk). `dso` holds `/v0/dso` (the DSO rules and their SVs, the asked scan's own SV);
//! `governance` the vote requests, their results and the amulet price votes.
//! This file holds the other endpoints: the event history item (`/v0/events/{update_id}`), the per-party queries (holdings summary, validator faucets, SV
//! reward weight) and the network's nodes (status, version, scans, mining rounds, BFT
//! sequencers, bootstrapping transactions, hosting participants, backfilling, amulet rules,
//! traffic).

mod dso;
pub mod events_head;
mod governance;
mod tree;
mod updates;

pub use dso::{DsoInfo, DsoSv, dso};
pub use events_head::{LatestEventRecordTime, latest_event_record_time};
pub use governance::*;
pub use tree::*;
pub use updates::*;

use super::call::{Call, Group, Method, ResponseParts, decode_json, encode_segment};
use super::error::ApiError;
use super::json::{
    RawJson, int, lenient_string, nd, one_key_enum, opt_int, raw_backed, string_enum,
};
use super::validator::Contract;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

string_enum! {
    /// How Daml values are encoded in responses (`contract_value_encoding` / `daml_value_encoding`).
    #[derive(Default)]
    pub enum ValueEncoding {
        /// Compact human-readable JSON (the default).
        #[default]
        CompactJson = "compact_json",
        /// Verbose JSON with type information.
        ProtobufJson = "protobuf_json",
    }
}

/// Asks for Daml values in `encoding`, under both parameter names the scan versions use.
fn with_encoding<T>(call: Call<T>, encoding: &ValueEncoding) -> Call<T> {
    call.query("contract_value_encoding", encoding.as_str())
        .query("daml_value_encoding", encoding.as_str())
}

// ---------------------------------------------------------------------------------------------
// Event history item (/v0/events/{update_id})
// ---------------------------------------------------------------------------------------------

string_enum! {
    /// `verdict_result`.
    #[derive(Default)]
    pub enum VerdictResult {
        #[default]
        Unspecified = "VERDICT_RESULT_UNSPECIFIED",
        Accepted = "VERDICT_RESULT_ACCEPTED",
        Rejected = "VERDICT_RESULT_REJECTED",
    }
}

/// A confirming-party quorum.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Quorum {
    #[serde(default, deserialize_with = "nd")]
    pub parties: Vec<String>,
    #[serde(default, deserialize_with = "int")]
    pub threshold: i32,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// A transaction view of a verdict.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TransactionView {
    #[serde(default, deserialize_with = "int")]
    pub view_id: i32,
    #[serde(default, deserialize_with = "nd")]
    pub informees: Vec<String>,
    #[serde(default, deserialize_with = "nd")]
    pub confirming_parties: Vec<Quorum>,
    #[serde(default, deserialize_with = "nd")]
    pub sub_views: Vec<i32>,
    /// Empty for older data.
    #[serde(default, deserialize_with = "nd")]
    pub view_hash: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// The views of a verdict and the ids of the root views.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TransactionViews {
    #[serde(default, deserialize_with = "nd")]
    pub views: Vec<TransactionView>,
    #[serde(default, deserialize_with = "nd")]
    pub root_views: Vec<i32>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// A mediator verdict (`EventHistoryVerdict`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Verdict {
    #[serde(default, deserialize_with = "nd")]
    pub update_id: String,
    #[serde(default, deserialize_with = "int")]
    pub migration_id: i64,
    #[serde(default, deserialize_with = "nd")]
    pub domain_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub record_time: String,
    #[serde(default, deserialize_with = "nd")]
    pub finalization_time: String,
    #[serde(default, deserialize_with = "nd")]
    pub submitting_parties: Vec<String>,
    #[serde(default, deserialize_with = "nd")]
    pub submitting_participant_uid: String,
    #[serde(default)]
    pub verdict_result: VerdictResult,
    #[serde(default, deserialize_with = "int")]
    pub mediator_group: i32,
    #[serde(default, deserialize_with = "nd")]
    pub transaction_views: TransactionViews,
    /// The mining round the verdict falls in (Splice 0.8 and later; absent before).
    #[serde(
        default,
        deserialize_with = "opt_int",
        skip_serializing_if = "Option::is_none"
    )]
    pub round_number: Option<i64>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Traffic cost of one envelope, mapped to views.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EnvelopeTrafficSummary {
    #[serde(default, deserialize_with = "int")]
    pub traffic_cost: i64,
    #[serde(default, deserialize_with = "nd")]
    pub view_ids: Vec<i32>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// `traffic_summary` of an event.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TrafficSummary {
    #[serde(default, deserialize_with = "int")]
    pub total_traffic_cost: i64,
    #[serde(default, deserialize_with = "nd")]
    pub envelope_traffic_summaries: Vec<EnvelopeTrafficSummary>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// One party's activity weight.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AppActivityRecord {
    #[serde(default, deserialize_with = "nd")]
    pub party: String,
    #[serde(default, deserialize_with = "int")]
    pub weight: i64,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// `app_activity_records` of an event.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AppActivityRecords {
    #[serde(default, deserialize_with = "int")]
    pub round_number: i64,
    #[serde(default, deserialize_with = "nd")]
    pub records: Vec<AppActivityRecord>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

raw_backed! {
    /// Response of `GET /v0/events/{update_id}`: any combination of update, verdict, traffic
    /// summary and app activity records (each may be absent or null).
    pub struct EventHistoryItem via EventHistoryItemRepr {
        #[serde(default, deserialize_with = "opt_update_item")]
        pub update: Option<UpdateItem>,
        #[serde(default)]
        pub verdict: Option<Verdict>,
        #[serde(default)]
        pub traffic_summary: Option<TrafficSummary>,
        #[serde(default)]
        pub app_activity_records: Option<AppActivityRecords>,
    }
}

fn decode_event(parts: &ResponseParts<'_>) -> Result<EventHistoryItem, ApiError> {
    let item: EventHistoryItem = decode_json(parts)?;
    if let Some(UpdateItem::Malformed { error, .. }) = &item.update {
        return Err(error.decode_error(parts.endpoint));
    }
    Ok(item)
}

/// `GET /v0/events/{update_id}`: update, verdict, traffic summary and app activity of one update.
pub fn event(update_id: &str, encoding: &ValueEncoding) -> Call<EventHistoryItem> {
    with_encoding(
        Call::new(
            "scan GET /v0/events/{update_id}",
            Group::Scan,
            Method::Get,
            format!("/v0/events/{}", encode_segment(update_id)),
            decode_event,
        ),
        encoding,
    )
    .about(update_id)
    .named("event")
}

// ---------------------------------------------------------------------------------------------
// Per-party queries: holdings, validator faucets, SV reward weight
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// The network's nodes: status, scans, mining rounds, sequencers, traffic
// ---------------------------------------------------------------------------------------------

/// One BFT sequencer (`SynchronizerBftSequencer`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SynchronizerBftSequencer {
    #[serde(default, deserialize_with = "int")]
    pub serial_id: i64,
    #[serde(default, deserialize_with = "nd")]
    pub id: String,
    #[serde(default, deserialize_with = "nd")]
    pub p2p_url: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v0/sv-bft-sequencers`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BftSequencers {
    #[serde(default, deserialize_with = "nd")]
    pub bft_sequencers: Vec<SynchronizerBftSequencer>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v0/synchronizer-bootstrapping-transactions/{domain_id_prefix}` (each a
/// base64 topology transaction bundle).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BootstrappingTransactions {
    #[serde(default, deserialize_with = "nd")]
    pub domain_parameters: String,
    #[serde(default, deserialize_with = "nd")]
    pub sequencer_domain_state: String,
    #[serde(default, deserialize_with = "nd")]
    pub mediator_domain_state: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v1/domains/{domain_id}/parties/{party_id}/participant-id`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ParticipantIds {
    #[serde(default, deserialize_with = "nd")]
    pub participant_ids: Vec<String>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// The `success` status of a node.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Status {
    #[serde(default, deserialize_with = "nd")]
    pub id: String,
    /// ISO 8601 duration, e.g. `PT85H26M0.595279S`.
    #[serde(default, deserialize_with = "nd")]
    pub uptime: String,
    #[serde(default, deserialize_with = "nd")]
    pub ports: BTreeMap<String, i64>,
    /// Opaque extra data; often `null`.
    #[serde(default)]
    pub extra: Option<String>,
    #[serde(default, deserialize_with = "nd")]
    pub active: bool,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// The `not_initialized` status.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NotInitialized {
    #[serde(default, deserialize_with = "nd")]
    pub active: bool,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// The `failed` status.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StatusFailure {
    #[serde(default, deserialize_with = "nd")]
    pub error: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /status`.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeStatus {
    Success(Status),
    NotInitialized(NotInitialized),
    Failed(StatusFailure),
    /// A status shape this client does not know.
    Unknown {
        kind: String,
        raw: RawJson,
    },
}

one_key_enum!(NodeStatus, "one of success, not_initialized, failed", {
    "success" => Success: direct Status,
    "not_initialized" => NotInitialized: direct NotInitialized,
    "failed" => Failed: direct StatusFailure,
});

/// Response of `GET /version`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Version {
    #[serde(default, deserialize_with = "nd")]
    pub version: String,
    #[serde(default, deserialize_with = "nd")]
    pub commit_ts: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// One SV's scan (`ScanInfo` of `GET /v0/scans`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ScanInfo {
    /// The publicly reachable base URL of the scan (without `/api/scan`).
    #[serde(rename = "publicUrl", default, deserialize_with = "nd")]
    pub public_url: String,
    /// The name of the SV operating the scan.
    #[serde(rename = "svName", default, deserialize_with = "nd")]
    pub sv_name: String,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// The scans of one synchronizer (`DomainScans`): at most one per SV.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DomainScans {
    #[serde(rename = "domainId", default, deserialize_with = "nd")]
    pub domain_id: String,
    #[serde(default, deserialize_with = "nd")]
    pub scans: Vec<ScanInfo>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of `GET /v0/scans` (`ListDsoScansResponse`): every SV's scan, per synchronizer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DsoScans {
    #[serde(default, deserialize_with = "nd")]
    pub scans: Vec<DomainScans>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Body of `POST /v0/open-and-issuing-mining-rounds`: the contract ids the caller already has
/// (their contracts come back without the `contract` field). Empty lists ask for everything.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MiningRoundsRequest {
    #[serde(default)]
    pub cached_open_mining_round_contract_ids: Vec<String>,
    #[serde(default)]
    pub cached_issuing_round_contract_ids: Vec<String>,
}

raw_backed! {
    /// A round contract the caller may already have cached (`MaybeCachedContractWithState`):
    /// `contract` is absent when its id was in the request; `domain_id` is absent while the
    /// contract is in flight between synchronizers.
    pub struct MaybeCachedContract via MaybeCachedContractRepr {
        #[serde(default)]
        pub contract: Option<Contract>,
        #[serde(default)]
        pub domain_id: Option<String>,
    }
}

/// One mining round, read from its contract: the round number, when the contract was created
/// and when the round opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MiningRound {
    pub number: i64,
    pub contract_id: String,
    /// `created_at` of the contract, as sent.
    pub created_at: String,
    /// `payload.opensAt`, as sent (empty when absent).
    pub opens_at: String,
}

impl MaybeCachedContract {
    /// The round this contract is (`payload.round.number`, a number or a decimal string);
    /// `None` when the contract is absent (cached) or has no round number.
    pub fn round(&self) -> Option<MiningRound> {
        let contract = self.contract.as_ref()?;
        let payload = contract.payload.to_value().ok()?;
        let number = match payload.get("round")?.get("number")? {
            Value::Number(n) => n.as_i64()?,
            Value::String(s) => s.trim().parse().ok()?,
            _ => return None,
        };
        let opens_at = payload
            .get("opensAt")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        Some(MiningRound {
            number,
            contract_id: contract.contract_id.clone(),
            created_at: contract.created_at.clone(),
            opens_at,
        })
    }
}

/// Response of `POST /v0/open-and-issuing-mining-rounds`: the open and the issuing rounds, each
/// an object keyed by contract id, and a suggested cache time to live.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OpenAndIssuingMiningRounds {
    #[serde(default, deserialize_with = "opt_int")]
    pub time_to_live_in_microseconds: Option<i64>,
    #[serde(default, deserialize_with = "nd")]
    pub open_mining_rounds: BTreeMap<String, MaybeCachedContract>,
    #[serde(default, deserialize_with = "nd")]
    pub issuing_mining_rounds: BTreeMap<String, MaybeCachedContract>,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

impl OpenAndIssuingMiningRounds {
    /// The open round with the highest number (the newest), if any contract carries one.
    pub fn newest_open_round(&self) -> Option<MiningRound> {
        self.open_mining_rounds
            .values()
            .filter_map(MaybeCachedContract::round)
            .max_by_key(|r| r.number)
    }
}

/// Response of `GET /v0/backfilling/status`: whether the scan has ingested all of its history.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BackfillingStatus {
    #[serde(default, deserialize_with = "nd")]
    pub complete: bool,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// Response of the scan's own `POST /v0/amulet-rules`: the `AmuletRules` contract and its
/// synchronizer (`contract` absent when its id is the cached one the request named).
#[derive(Debug, Clone, Deserialize)]
pub struct ScanAmuletRules {
    pub amulet_rules_update: MaybeCachedContract,
}

/// Response of `GET /v0/domains/{domain_id}/members/{member_id}/traffic-status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MemberTrafficStatusResponse {
    #[serde(default, deserialize_with = "nd")]
    pub traffic_status: MemberTrafficStatus,
    #[serde(flatten)]
    pub unknown: Map<String, Value>,
}

/// A member's traffic on a synchronizer: what the sequencer enforces (`actual`) and what was
/// bought (`target`; ahead of `actual.total_limit` while a top-up is being applied).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MemberTrafficStatus {
    #[serde(default, deserialize_with = "nd")]
    pub actual: ActualMemberTraffic,
    #[serde(default, deserialize_with = "nd")]
    pub target: TargetMemberTraffic,
}

/// Extra traffic consumed and the limit the sequencer enforces, in bytes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ActualMemberTraffic {
    #[serde(default, deserialize_with = "int")]
    pub total_consumed: i64,
    #[serde(default, deserialize_with = "int")]
    pub total_limit: i64,
}

/// Extra traffic purchased in total, in bytes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TargetMemberTraffic {
    #[serde(default, deserialize_with = "int")]
    pub total_purchased: i64,
}

/// The sequencer member id of a participant: `PAR::` prefixed when it is a bare
/// `id::fingerprint` (the Ledger API names its participant without the prefix); a member id
/// that already has a code (`PAR::…`, `MED::…`) is kept.
pub fn participant_member_id(participant_id: &str) -> String {
    let id = participant_id.trim();
    if id.matches("::").count() >= 2 {
        id.to_string()
    } else {
        format!("PAR::{id}")
    }
}

/// `GET /v0/sv-bft-sequencers`.
pub fn bft_sequencers() -> Call<BftSequencers> {
    Group::Scan
        .get("scan GET /v0/sv-bft-sequencers", "/v0/sv-bft-sequencers")
        .named("bft sequencers")
}

/// `POST /v0/amulet-rules` with an empty body (nothing cached). Splice's scan spec tags it
/// internal; it is what a validator's scan connection reads the amulet rules from, on several
/// scans at once, so every scan must give the same answer.
pub fn amulet_rules() -> Call<ScanAmuletRules> {
    Group::Scan
        .post(
            "scan POST /v0/amulet-rules",
            "/v0/amulet-rules",
            &Map::new(),
        )
        .named("amulet rules")
}

/// `GET /v0/synchronizer-bootstrapping-transactions/{domain_id_prefix}`.
pub fn bootstrapping_transactions(domain_id_prefix: &str) -> Call<BootstrappingTransactions> {
    Group::Scan
        .get(
            "scan GET /v0/synchronizer-bootstrapping-transactions/{domain_id_prefix}",
            format!(
                "/v0/synchronizer-bootstrapping-transactions/{}",
                encode_segment(domain_id_prefix)
            ),
        )
        .named("bootstrapping transactions")
}

/// `GET /v1/domains/{domain_id}/parties/{party_id}/participant-id`.
pub fn participant_ids(domain_id: &str, party_id: &str) -> Call<ParticipantIds> {
    Group::Scan
        .get(
            "scan GET /v1/domains/{domain_id}/parties/{party_id}/participant-id",
            format!(
                "/v1/domains/{}/parties/{}/participant-id",
                encode_segment(domain_id),
                encode_segment(party_id)
            ),
        )
        .named("participant ids")
}

/// `GET /status`.
pub fn status() -> Call<NodeStatus> {
    Group::Scan
        .get("scan GET /status", "/status")
        .named("status")
}

/// `GET /version`.
pub fn version() -> Call<Version> {
    Group::Scan.get("scan GET /version", "/version")
}

/// `GET /v0/scans`: every SV's scan, grouped by synchronizer.
pub fn scans() -> Call<DsoScans> {
    Group::Scan.get("scan GET /v0/scans", "/v0/scans")
}

/// `POST /v0/open-and-issuing-mining-rounds`.
pub fn open_and_issuing_mining_rounds(
    req: &MiningRoundsRequest,
) -> Call<OpenAndIssuingMiningRounds> {
    Group::Scan
        .post(
            "scan POST /v0/open-and-issuing-mining-rounds",
            "/v0/open-and-issuing-mining-rounds",
            req,
        )
        .named("open and issuing mining rounds")
}

/// `GET /v0/backfilling/status` (internal endpoint; local to one SV).
pub fn backfilling_status() -> Call<BackfillingStatus> {
    Group::Scan.get("scan GET /v0/backfilling/status", "/v0/backfilling/status")
}

/// `GET /v0/domains/{domain_id}/members/{member_id}/traffic-status` (`member_id`:
/// `PAR::id::fingerprint` or `MED::id::fingerprint`).
pub fn member_traffic_status(
    domain_id: &str,
    member_id: &str,
) -> Call<MemberTrafficStatusResponse> {
    Group::Scan
        .get(
            "scan GET /v0/domains/{domain_id}/members/{member_id}/traffic-status",
            format!(
                "/v0/domains/{}/members/{}/traffic-status",
                encode_segment(domain_id),
                encode_segment(member_id)
            ),
        )
        .named("member traffic status")
}
