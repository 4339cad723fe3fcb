//! Runs a [`Request`] through the API client and wraps the typed result in a [`Response`].
//! The only bridge between the app's pure requests and HTTP.

use std::sync::Arc;

use crate::api::scan::{self, ValueEncoding};
use crate::api::{ApiClient, ApiError, ledger, validator};
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

/// Runs one request.
pub async fn execute(clients: &Clients, request: &Request) -> Result<Response, ApiError> {
    let enc = ValueEncoding::default();
    let main = &clients.main;
    match request {
        Request::Updates { req, .. } => clients
            .main
            .send(&scan::updates(req))
            .await
            .map(Response::Updates),
        Request::Event { update_id } => clients
            .main
            .send(&scan::event(update_id, &enc))
            .await
            .map(|b| Response::Event(Arc::new(b))),
        Request::ByHash { scan: i, hash } => clients
            .scan(*i)
            .send(&scan::update_by_hash(hash, &enc))
            .await
            .map(|u| Response::ByHash(Box::new(u))),
        Request::Status { scan: i } => clients
            .scan(*i)
            .send(&scan::status())
            .await
            .map(|s| Response::Status(Box::new(s))),
        Request::LedgerEnd => clients
            .main
            .send(&ledger::ledger_end())
            .await
            .map(|e| Response::LedgerEnd(e.offset)),
        Request::MiningRounds => main
            .send(&scan::open_and_issuing_mining_rounds(
                &scan::MiningRoundsRequest::default(),
            ))
            .await
            .map(|r| Response::MiningRounds(Box::new(r))),
        Request::ValidatorProbe => clients
            .main
            .send(&validator::amulet_rules())
            .await
            .map(|_| Response::ValidatorOk),
        Request::Holdings(req) => main
            .send(&scan::holdings_summary(req))
            .await
            .map(|r| Response::Holdings(Box::new(r))),
        Request::ValidatorFaucets { validator_ids } => main
            .send(&scan::validator_faucets(validator_ids))
            .await
            .map(|r| Response::ValidatorFaucets(Box::new(r))),
        Request::BftSequencers => main
            .send(&scan::bft_sequencers())
            .await
            .map(|r| Response::BftSequencers(Box::new(r))),
        Request::Bootstrapping { domain_id_prefix } => main
            .send(&scan::bootstrapping_transactions(domain_id_prefix))
            .await
            .map(|r| Response::Bootstrapping(Box::new(r))),
        Request::ParticipantIds {
            domain_id,
            party_id,
        } => main
            .send(&scan::participant_ids(domain_id, party_id))
            .await
            .map(|r| Response::ParticipantIds(Box::new(r))),
        Request::RewardWeight(req) => main
            .send(&scan::previous_sv_reward_weight(req))
            .await
            .map(|r| Response::RewardWeight(Box::new(r))),
        Request::LedgerParticipantId => main
            .send(&ledger::participant_id())
            .await
            .map(|r| Response::LedgerParticipantId(r.participant_id)),
        Request::TrafficStatus {
            domain_id,
            member_id,
        } => main
            .send(&scan::member_traffic_status(domain_id, member_id))
            .await
            .map(|r| Response::TrafficStatus(Box::new(r))),
        Request::AmuletRules => main
            .send(&validator::amulet_rules())
            .await
            .map(|r| Response::AmuletRules(Box::new(r))),
        Request::DevFundCoupons => main
            .send(&validator::dev_fund_coupons())
            .await
            .map(|r| Response::DevFundCoupons(Box::new(r))),
        Request::TransferStatus { sender, nonce } => main
            .send(&validator::transfer_command_status(sender, *nonce))
            .await
            .map(|r| Response::TransferStatus(Box::new(r))),
        Request::Parties {
            party,
            more_parties,
            identity_provider_id,
        } => main
            .send(&ledger::parties(
                party,
                more_parties,
                identity_provider_id.as_deref(),
            ))
            .await
            .map(|r| Response::Parties(Box::new(r))),
        Request::DeleteUser { user_id } => main
            .send(&ledger::delete_user(user_id))
            .await
            .map(|r| Response::UserDeleted(Box::new(r))),
        Request::Package { package_id } => main
            .send(&ledger::package(package_id))
            .await
            .map(|r| Response::Package(Arc::new(r))),
        Request::Trees { req, limit } => ledger::fetch_trees(main, req, *limit)
            .await
            .map(|r| Response::Trees(Arc::new(r))),
        Request::Execute(req) => main
            .send(&ledger::execute_and_wait(req))
            .await
            .map(|r| Response::Executed(Box::new(r))),
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
