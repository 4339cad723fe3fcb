//! What `App::update` asks the runtime to do: fetches (HTTP through `api/`), clipboard, file
//! writes, quitting. The runtime sends each result back as an [`super::Action`].

use std::path::PathBuf;
use std::sync::Arc;

use super::PaneId;
use crate::api::ApiError;

use crate::api::ledger::{
    EmptyResponse, ExecuteRequest, ExecuteResponse, GetUpdatesRequest, JsGetUpdateTreesResponse,
    Package, PartiesResponse,
};
use crate::api::scan::{
    BftSequencers, BootstrappingTransactions, EventHistoryItem, HoldingsSummaryRequest,
    HoldingsSummaryResponse, MemberTrafficStatusResponse, NodeStatus, OpenAndIssuingMiningRounds,
    ParticipantIds, RewardWeightRequest, RewardWeightResponse, UpdateItem, UpdatesPage,
    UpdatesRequest, ValidatorFaucets,
};
use crate::api::validator::{AmuletRules, DevFundCoupons, TransferCommandStatusResponse};
use crate::model::network::{HistoryHead, NetworkCheck, NetworkSnapshot};
use crate::model::sweep::{Cursor, SweepPageReply};

/// Identifies one request (a fetch or a file operation) and the pane that sent it: the app
/// delivers the reply to that pane only. A pane keeps the id of its current request and drops
/// replies to older ones (latest request wins). Ids grow: a larger `seq` was sent later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RequestId {
    pub seq: u64,
    pub owner: PaneId,
}

impl RequestId {
    pub fn new(owner: PaneId, seq: u64) -> Self {
        RequestId { seq, owner }
    }
}

/// Hands out request ids in sending order.
#[derive(Debug, Clone, Default)]
pub struct RequestIds(u64);

impl RequestIds {
    /// A new id for a request of `owner`.
    pub fn next(&mut self, owner: PaneId) -> RequestId {
        self.0 += 1;
        RequestId::new(owner, self.0)
    }
}

/// A finished fetch, as the app hands it to the pane that asked.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub id: RequestId,
    pub request: Request,
    pub result: Result<Response, ApiError>,
    /// How long the request took, in milliseconds.
    pub elapsed_ms: u32,
}

/// Why the history asked for a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdatesPurpose {
    /// Probing whether migration `k` is the newest (page of 1 after (k, far future)).
    Discover { migration: i64 },
    /// Looking for recent activity: window index into the look-back steps.
    Seek { window: usize },
    /// Loading forward towards the head, or polling the head.
    Forward,
    /// Loading updates older than the oldest loaded one.
    Earlier,
    /// A page of the History pane's export from the server (not the loaded history's).
    Export,
}

/// A fetch to run.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// `POST /v2/updates` on scan 0.
    Updates {
        req: UpdatesRequest,
        purpose: UpdatesPurpose,
    },
    /// `GET /v0/events/{update_id}` on scan 0.
    Event { update_id: String },
    /// `GET /v2/updates/hash/{hash}` on scan `scan`.
    ByHash { scan: usize, hash: String },
    /// `GET /status` on scan `scan`.
    Status { scan: usize },
    /// `GET /v2/state/ledger-end`.
    LedgerEnd,
    /// `POST /v0/open-and-issuing-mining-rounds` on scan 0 (every round, nothing cached).
    MiningRounds,
    /// `GET /v0/scan-proxy/amulet-rules`, as a reachability probe of the validator proxy.
    ValidatorProbe,
    /// `POST /v1/holdings/summary` on scan 0.
    Holdings(HoldingsSummaryRequest),
    /// `GET /v0/validators/validator-faucets` on scan 0.
    ValidatorFaucets { validator_ids: Vec<String> },
    /// `GET /v0/sv-bft-sequencers` on scan 0.
    BftSequencers,
    /// `GET /v0/synchronizer-bootstrapping-transactions/{domain_id_prefix}` on scan 0.
    Bootstrapping { domain_id_prefix: String },
    /// `GET /v1/domains/{domain_id}/parties/{party_id}/participant-id` on scan 0.
    ParticipantIds { domain_id: String, party_id: String },
    /// `POST /v0/admin/sv/previous-sv-reward-weight` on scan 0.
    RewardWeight(RewardWeightRequest),
    /// Ledger `GET /v2/parties/participant-id`.
    LedgerParticipantId,
    /// `GET /v0/domains/{domain_id}/members/{member_id}/traffic-status` on scan 0.
    TrafficStatus {
        domain_id: String,
        member_id: String,
    },
    /// Validator proxy `GET .../amulet-rules` (the contract itself).
    AmuletRules,
    /// Validator proxy `GET .../unclaimed-development-fund-coupons`.
    DevFundCoupons,
    /// Validator proxy `GET .../transfer-command/status`.
    TransferStatus { sender: String, nonce: i64 },
    /// Ledger `GET /v2/parties/{party}`.
    Parties {
        party: String,
        more_parties: Vec<String>,
        identity_provider_id: Option<String>,
    },
    /// Ledger `DELETE /v2/users/{user-id}`.
    DeleteUser { user_id: String },
    /// Ledger `GET /v2/packages/{package-id}`.
    Package { package_id: String },
    /// Ledger `POST /v2/updates/trees`.
    Trees {
        req: Box<GetUpdatesRequest>,
        limit: Option<i64>,
    },
    /// Ledger `POST /v2/interactive-submission/executeAndWaitForTransaction`.
    Execute(Box<ExecuteRequest>),
    /// Every scan of the network (discovered, each within its request budget): `/status`,
    /// `/version`, the newest open mining round and the newest update of its history (paging
    /// forward from `heads`, the heads found last time, by scan URL). `now`: the app's clock.
    NetworkHealth {
        now: i64,
        heads: Vec<(String, HistoryHead)>,
    },
    /// One update on every scan: `GET /v2/updates/{id}` and `GET /v0/events/{id}`.
    NetworkCheck { update_id: String, now: i64 },
    /// A pane's scan query (holdings summary, validator faucets, hosting participants, reward
    /// weight) asked of every scan, the answers grouped.
    OnEveryScan { request: Box<Request>, now: i64 },
    /// One page of the history sweep on every scan: `POST /v2/updates` after `after` (`None`:
    /// from the beginning), each answer reduced to its item hashes.
    SweepPage {
        after: Option<Cursor>,
        page_size: usize,
        now: i64,
    },
    /// Where a sweep from `time` (µs) starts: after (the migration whose first update is the
    /// newest at or before `time`, `time`), read from the profile's own scan, else the others.
    SweepStart { time: i64, now: i64 },
}

impl Request {
    /// A short description of a request for logs (no tokens, no bodies).
    pub fn describe(&self) -> String {
        match self {
            Request::Updates { purpose, .. } => format!("updates {purpose:?}"),
            Request::Event { update_id } => format!("event {update_id}"),
            // Scans are numbered from 1, as the UI shows them.
            Request::ByHash { scan, .. } => format!("update-by-hash on scan {}", scan + 1),
            Request::Status { scan } => format!("status of scan {}", scan + 1),
            Request::LedgerEnd => "ledger end".into(),
            Request::MiningRounds => "open and issuing mining rounds".into(),
            Request::ValidatorProbe => "validator amulet-rules".into(),
            Request::Holdings(_) => "holdings summary".into(),
            Request::ValidatorFaucets { validator_ids } => {
                format!("validator faucets ({} ids)", validator_ids.len())
            }
            Request::BftSequencers => "bft sequencers".into(),
            Request::Bootstrapping { .. } => "bootstrapping transactions".into(),
            Request::ParticipantIds { .. } => "participant ids".into(),
            Request::RewardWeight(_) => "previous sv reward weight".into(),
            Request::LedgerParticipantId => "ledger participant id".into(),
            Request::TrafficStatus { .. } => "member traffic status".into(),
            Request::AmuletRules => "amulet rules".into(),
            Request::DevFundCoupons => "dev fund coupons".into(),
            Request::TransferStatus { .. } => "transfer command status".into(),
            Request::Parties { .. } => "ledger parties".into(),
            Request::DeleteUser { .. } => "ledger delete user".into(),
            Request::Package { .. } => "ledger package".into(),
            Request::Trees { .. } => "ledger update trees".into(),
            Request::Execute(_) => "ledger execute".into(),
            Request::NetworkHealth { .. } => "network health".into(),
            Request::NetworkCheck { update_id, .. } => format!("network check {update_id}"),
            Request::SweepPage { .. } => "network sweep page".into(),
            Request::SweepStart { .. } => "network sweep start".into(),
            Request::OnEveryScan { request, .. } => {
                format!("on every scan: {}", request.describe())
            }
        }
    }
}

/// Declares [`Response`] and, for each variant with an answer, the accessor named after the
/// arrow: `Some(answer)` when the response is that variant (a boxed answer unboxed), so a pane
/// picks its answer with `Response::parties` instead of a hand-written `match`.
macro_rules! responses {
    ($( $(#[$doc:meta])* $variant:ident $( ( $($answer:tt)+ ) => $accessor:ident )?, )*) => {
        /// A fetch result.
        #[derive(Debug, Clone)]
        pub enum Response {
            $( $(#[$doc])* $variant $( ( $($answer)+ ) )?, )*
        }

        impl Response {
            $( $( response_accessor!($variant, $accessor, $($answer)+); )? )*
        }
    };
}

/// One accessor of [`Response`] (see `responses!`); a `Box<T>` answer is handed out as `&T`.
macro_rules! response_accessor {
    ($variant:ident, $accessor:ident, Box<$answer:ty>) => {
        response_accessor!($variant, $accessor, $answer);
    };
    ($variant:ident, $accessor:ident, $answer:ty) => {
        #[doc = concat!("The answer when this is a `", stringify!($variant), "` response.")]
        pub fn $accessor(&self) -> Option<&$answer> {
            match self {
                Response::$variant(answer) => Some(answer),
                _ => None,
            }
        }
    };
}

responses! {
    Updates(UpdatesPage) => updates,
    Event(Arc<EventHistoryItem>) => event,
    ByHash(Box<UpdateItem>) => by_hash,
    Status(Box<NodeStatus>) => status,
    /// Ledger end offset (`None`: the server sent no offset, an empty ledger).
    LedgerEnd(Option<i64>) => ledger_end,
    /// The validator proxy answered.
    ValidatorOk,
    MiningRounds(Box<OpenAndIssuingMiningRounds>) => mining_rounds,
    Holdings(Box<HoldingsSummaryResponse>) => holdings,
    ValidatorFaucets(Box<ValidatorFaucets>) => validator_faucets,
    BftSequencers(Box<BftSequencers>) => bft_sequencers,
    Bootstrapping(Box<BootstrappingTransactions>) => bootstrapping,
    ParticipantIds(Box<ParticipantIds>) => participant_ids,
    RewardWeight(Box<RewardWeightResponse>) => reward_weight,
    /// The participant id the Ledger API names (as sent).
    LedgerParticipantId(String) => ledger_participant_id,
    TrafficStatus(Box<MemberTrafficStatusResponse>) => traffic_status,
    AmuletRules(Box<AmuletRules>) => amulet_rules,
    DevFundCoupons(Box<DevFundCoupons>) => dev_fund_coupons,
    TransferStatus(Box<TransferCommandStatusResponse>) => transfer_status,
    Parties(Box<PartiesResponse>) => parties,
    UserDeleted(Box<EmptyResponse>) => user_deleted,
    Package(Arc<Package>) => package,
    Trees(Arc<Vec<JsGetUpdateTreesResponse>>) => trees,
    Executed(Box<ExecuteResponse>) => executed,
    NetworkHealth(Box<NetworkSnapshot>) => network_health,
    NetworkCheck(Box<NetworkCheck>) => network_check,
    SweepPage(Box<SweepPageReply>) => sweep_page,
    /// Where the sweep starts, or why that could not be found.
    SweepStart(Result<Cursor, String>) => sweep_start,
}

/// The error of an `Effect::CreateFile` whose path exists.
pub const FILE_EXISTS: &str = "the file exists";

/// A side effect for the runtime.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Run a request; answer with `Action::Fetched`.
    Fetch { id: RequestId, request: Request },
    /// Abort a request if it is still running (its reply would be dropped anyway).
    Cancel(RequestId),
    /// Copy text to the clipboard through OSC 52.
    Copy(String),
    /// Write (create or truncate) a file; answer with `Action::Written`. File effects run in
    /// the order they were issued.
    WriteFile {
        id: RequestId,
        path: PathBuf,
        contents: Vec<u8>,
    },
    /// Write a new file, never replacing one: when `path` exists, answer `Action::Written`
    /// with the error [`FILE_EXISTS`] (the pane then asks before a `WriteFile`).
    CreateFile {
        id: RequestId,
        path: PathBuf,
        contents: Vec<u8>,
    },
    /// Append to a file written before (a streamed export's next chunk); answer with
    /// `Action::Written` (the bytes appended).
    AppendFile {
        id: RequestId,
        path: PathBuf,
        contents: Vec<u8>,
    },
    /// Remove a file (a cancelled export's partial output); no answer.
    RemoveFile(PathBuf),
    /// Cut a file to `len` bytes (a resumed export drops a row cut short); answer with
    /// `Action::Written` (`len`). Runs in order with the other file effects.
    TruncateFile {
        id: RequestId,
        path: PathBuf,
        len: u64,
    },
    /// Read a file (e.g. a request body the user named); answer with `Action::FileRead`.
    ReadFile { id: RequestId, path: PathBuf },
    /// Load a theme by name; answer with `Action::ThemeLoaded`.
    LoadTheme(String),
    /// Leave the app.
    Quit,
}

#[cfg(test)]
mod tests {
    use super::Request;

    #[test]
    fn log_descriptions_number_scans_from_1_like_the_ui() {
        assert_eq!(Request::Status { scan: 5 }.describe(), "status of scan 6");
        assert_eq!(
            Request::ByHash {
                scan: 0,
                hash: "ab".into()
            }
            .describe(),
            "update-by-hash on scan 1"
        );
    }
}
