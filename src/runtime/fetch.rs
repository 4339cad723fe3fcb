//! Runs a [`Request`] through the API client and wraps the typed result in a [`Response`].
//! The only bridge between the app's pure requests and HTTP.

use std::sync::Arc;

use crate::api::scan::{self, ValueEncoding};
use crate::api::{ApiClient, ApiError, Call, ledger, validator};
use crate::msg::{Request, Response};

/// The API clients of a session: one per configured scan (the first is the main one, which also
/// carries the validator and ledger URLs).
#[derive(Clone)]
pub struct Clients {
    pub main: ApiClient,
    pub scans: Vec<ApiClient>,
    /// The whole network (discovered scans, each within its budget), when scans are configured.
    pub network: Option<Arc<crate::network::session::NetworkSession>>,
}

impl Clients {
    /// Clients for `main` plus one per extra scan URL (sharing the connection pool).
    pub fn new(main: ApiClient, scan_urls: &[String]) -> Self {
        let scans = scan_urls.iter().map(|u| main.with_scan_url(u)).collect();
        Clients {
            main,
            scans,
            network: None,
        }
    }

    fn scan(&self, i: usize) -> &ApiClient {
        self.scans.get(i).unwrap_or(&self.main)
    }
}

/// Sends `call` through `client` and wraps the answer in its [`Response`] variant (`W` is how
/// the variant holds it: the value itself, boxed or shared).
async fn send<T: Send + 'static, W: From<T>>(
    client: &ApiClient,
    call: Call<T>,
    wrap: fn(W) -> Response,
) -> Result<Response, ApiError> {
    client.send(&call).await.map(|answer| wrap(W::from(answer)))
}

/// Runs one request.
pub async fn execute(clients: &Clients, request: &Request) -> Result<Response, ApiError> {
    let enc = ValueEncoding::default();
    let main = &clients.main;
    match request {
        Request::Updates { req, .. } => send(main, scan::updates(req), Response::Updates).await,
        Request::Event { update_id } => {
            send(main, scan::event(update_id, &enc), Response::Event).await
        }
        Request::ByHash { scan: i, hash } => {
            let call = scan::update_by_hash(hash, &enc);
            send(clients.scan(*i), call, Response::ByHash).await
        }
        Request::Status { scan: i } => {
            send(clients.scan(*i), scan::status(), Response::Status).await
        }
        Request::LedgerEnd => {
            send(main, ledger::ledger_end(), |end: ledger::LedgerEnd| {
                Response::LedgerEnd(end.offset)
            })
            .await
        }
        Request::MiningRounds => {
            let call = scan::open_and_issuing_mining_rounds(&scan::MiningRoundsRequest::default());
            send(main, call, Response::MiningRounds).await
        }
        Request::ValidatorProbe => {
            send(
                main,
                validator::amulet_rules(),
                |_: validator::AmuletRules| Response::ValidatorOk,
            )
            .await
        }
        Request::Holdings(req) => send(main, scan::holdings_summary(req), Response::Holdings).await,
        Request::ValidatorFaucets { validator_ids } => {
            let call = scan::validator_faucets(validator_ids);
            send(main, call, Response::ValidatorFaucets).await
        }
        Request::BftSequencers => send(main, scan::bft_sequencers(), Response::BftSequencers).await,
        Request::Bootstrapping { domain_id_prefix } => {
            let call = scan::bootstrapping_transactions(domain_id_prefix);
            send(main, call, Response::Bootstrapping).await
        }
        Request::ParticipantIds {
            domain_id,
            party_id,
        } => {
            let call = scan::participant_ids(domain_id, party_id);
            send(main, call, Response::ParticipantIds).await
        }
        Request::RewardWeight(req) => {
            let call = scan::previous_sv_reward_weight(req);
            send(main, call, Response::RewardWeight).await
        }
        Request::LedgerParticipantId => {
            send(
                main,
                ledger::participant_id(),
                |r: ledger::ParticipantIdResponse| Response::LedgerParticipantId(r.participant_id),
            )
            .await
        }
        Request::TrafficStatus {
            domain_id,
            member_id,
        } => {
            let call = scan::member_traffic_status(domain_id, member_id);
            send(main, call, Response::TrafficStatus).await
        }
        Request::AmuletRules => send(main, validator::amulet_rules(), Response::AmuletRules).await,
        Request::DevFundCoupons => {
            send(
                main,
                validator::dev_fund_coupons(),
                Response::DevFundCoupons,
            )
            .await
        }
        Request::TransferStatus { sender, nonce } => {
            let call = validator::transfer_command_status(sender, *nonce);
            send(main, call, Response::TransferStatus).await
        }
        Request::Parties {
            party,
            more_parties,
            identity_provider_id,
        } => {
            let call = ledger::parties(party, more_parties, identity_provider_id.as_deref());
            send(main, call, Response::Parties).await
        }
        Request::DeleteUser { user_id } => {
            send(main, ledger::delete_user(user_id), Response::UserDeleted).await
        }
        Request::Package { package_id } => {
            send(main, ledger::package(package_id), Response::Package).await
        }
        Request::Trees { req, limit } => ledger::fetch_trees(main, req, *limit)
            .await
            .map(|r| Response::Trees(Arc::new(r))),
        Request::Execute(req) => {
            send(main, ledger::execute_and_wait(req), Response::Executed).await
        }
        Request::NetworkHealth { .. }
        | Request::NetworkCheck { .. }
        | Request::SweepPage { .. }
        | Request::SweepStart { .. }
        | Request::OnEveryScan { .. } => match &clients.network {
            Some(session) => session.execute(request).await,
            None => Err(ApiError::NotConfigured {
                what: "a scan URL (the network is discovered from its /v0/scans)".into(),
            }),
        },
    }
}
