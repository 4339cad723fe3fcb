//! The network's nodes: status, version, scans, mining rounds, BFT sequencers, bootstrapping
//! transactions, hosting participants, backfilling, amulet rules, traffic.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::api::call::{Call, Group, encode_segment};
use crate::api::json::{RawJson, int, nd, one_key_enum, opt_int, raw_backed};
use crate::api::validator::Contract;

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
