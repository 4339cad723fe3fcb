//! The requests the panes send, built as the panes build them (the typed call of `api/`), and a
//! reading of a request back into what it asks, for tests that answer by kind.

use cantonscope::api::ledger::{self, LedgerEnd};
use cantonscope::api::scan::{self, HoldingsSummaryRequest};
use cantonscope::api::validator;
use cantonscope::msg::{Request, Response};

/// `GET /status` of configured scan `i` (from 0), as the Status pane polls it.
pub fn status(i: usize) -> Request {
    Request::on_scan(i, scan::status())
}

/// `GET /v2/state/ledger-end`.
pub fn ledger_end() -> Request {
    Request::api(ledger::ledger_end())
}

/// The validator proxy's `GET …/amulet-rules` (the Status probe and the Proxy pane's rules).
pub fn amulet_rules() -> Request {
    Request::api(validator::amulet_rules())
}

/// `POST /v0/open-and-issuing-mining-rounds`, nothing cached.
pub fn mining_rounds() -> Request {
    Request::api(scan::open_and_issuing_mining_rounds(
        &scan::MiningRoundsRequest::default(),
    ))
}

/// The Ledger API's `GET /v2/parties/participant-id`.
pub fn ledger_participant_id() -> Request {
    Request::api(ledger::participant_id())
}

/// `GET /v0/domains/{domain}/members/{member}/traffic-status`.
pub fn traffic_status(domain_id: &str, member_id: &str) -> Request {
    Request::api(scan::member_traffic_status(domain_id, member_id))
}

/// The Update pane's body and verdict: `GET /v0/events/{update_id}` on the scan, or the local
/// index's copy (the runtime decides which: `Request::Body`).
pub fn event(update_id: &str) -> Request {
    Request::Body {
        update_id: update_id.to_owned(),
    }
}

/// `POST /v1/holdings/summary`.
pub fn holdings(req: &HoldingsSummaryRequest) -> Request {
    Request::api(scan::holdings_summary(req))
}

/// `GET /v0/validators/validator-faucets`.
pub fn validator_faucets(ids: &[String]) -> Request {
    Request::api(scan::validator_faucets(ids))
}

/// `GET /v0/sv-bft-sequencers`.
pub fn bft_sequencers() -> Request {
    Request::api(scan::bft_sequencers())
}

/// `GET /v1/domains/{domain}/parties/{party}/participant-id`.
pub fn participant_ids(domain_id: &str, party_id: &str) -> Request {
    Request::api(scan::participant_ids(domain_id, party_id))
}

/// The validator proxy's `GET …/transfer-command/status`.
pub fn transfer_status(sender: &str, nonce: i64) -> Request {
    Request::api(validator::transfer_command_status(sender, nonce))
}

/// The ledger end answer `offset`.
pub fn ledger_end_answer(offset: Option<i64>) -> Response {
    Response::from(LedgerEnd {
        offset,
        ..LedgerEnd::default()
    })
}

/// The Ledger API's participant id answer `id`.
pub fn participant_id(id: &str) -> Response {
    Response::from(ledger::ParticipantIdResponse {
        participant_id: id.to_owned(),
        ..ledger::ParticipantIdResponse::default()
    })
}

/// An answer that is only a success (an empty JSON object), for requests whose content the
/// reader does not look at (the validator probe).
pub fn ok_answer() -> Response {
    Response::from(ledger::EmptyResponse::default())
}

/// What a request asks, by its call's endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    /// `/status` of configured scan `i`.
    Status(usize),
    LedgerEnd,
    AmuletRules,
    MiningRounds,
    LedgerParticipantId,
    TrafficStatus,
    /// Any other call (its endpoint), or a network job (`None`).
    Other(Option<&'static str>),
}

/// What `request` asks.
pub fn asked(request: &Request) -> Asked {
    let Some(call) = request.call() else {
        return Asked::Other(None);
    };
    match (call.endpoint(), request) {
        ("scan GET /status", Request::OnScan { scan, .. }) => Asked::Status(*scan),
        ("scan GET /status", _) => Asked::Status(0),
        ("ledger GET /v2/state/ledger-end", _) => Asked::LedgerEnd,
        ("validator GET /v0/scan-proxy/amulet-rules", _) => Asked::AmuletRules,
        ("scan POST /v0/open-and-issuing-mining-rounds", _) => Asked::MiningRounds,
        ("ledger GET /v2/parties/participant-id", _) => Asked::LedgerParticipantId,
        ("scan GET /v0/domains/{domain_id}/members/{member_id}/traffic-status", _) => {
            Asked::TrafficStatus
        }
        (other, _) => Asked::Other(Some(other)),
    }
}
