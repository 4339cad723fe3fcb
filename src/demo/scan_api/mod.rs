//! The scan group (`/api/scan`, and `/svN/api/scan` for extra scan instances): update history,
//! events and the latest record time of events (all but the highest-numbered scan of several),
//! update by hash, ACS snapshot times and holdings, validator faucets, BFT sequencers,
//! reward weights, bootstrapping transactions, party hosting, status and version, the DSO
//! (`/v0/dso`, each scan naming its own SV), governance (vote requests, vote results and their
//! count, amulet price votes) and the scans and rounds (`/v0/scans`, open and issuing mining
//! rounds, backfilling status), and the CIP-0104 reward accounting (`rewards.rs`). Scans with faults
//! (`super::faults`) lag, diverge or lack their early history here. This file is the router; what
//! an endpoint reads of its request, and its 400 / 404 replies, are `request.rs`.

mod acs;
mod dso;
mod governance;
mod history;
mod members;
mod names;
mod request;
mod rewards;
mod scans_and_rounds;
mod traffic;

use axum::Router;
use axum::routing::{get, post};

use super::state::Shared;
use acs::{holdings_summary, snapshot_timestamp};
use dso::dso_info;
use governance::{
    amulet_price_votes, vote_request, vote_requests, vote_requests_by_id, vote_results,
    vote_results_count,
};
use history::{event_by_id, latest_event_record_time, update_by_hash, update_by_id, updates};
use members::{
    amulet_rules, bft_sequencers, bootstrapping, dso_party_id, participant_ids,
    previous_reward_weight, status, validator_faucets, version,
};
use request::ScanCtx;
use scans_and_rounds::{backfilling_status, list_scans, open_and_issuing_mining_rounds};
use traffic::member_traffic_status;

pub(crate) fn routes(app: Shared, scan: usize) -> Router {
    Router::new()
        .route("/v2/updates", post(updates))
        .route("/v2/updates/{update_id}", get(update_by_id))
        .route("/v2/updates/hash/{hash}", get(update_by_hash))
        .route(
            "/v0/events/latest-record-time",
            get(latest_event_record_time),
        )
        .route("/v0/events", post(history::events))
        .route("/v0/events/{update_id}", get(event_by_id))
        .route("/v1/holdings/summary", post(holdings_summary))
        .route("/v0/state/acs/snapshot-timestamp", get(snapshot_timestamp))
        .route("/v0/validators/validator-faucets", get(validator_faucets))
        .route(
            "/v0/admin/validator/licenses",
            get(names::validator_licenses),
        )
        .route("/v0/ans-entries", get(names::ans_entries))
        .route(
            "/v0/ans-entries/by-name/{name}",
            get(names::ans_entry_by_name),
        )
        .route("/v0/sv-bft-sequencers", get(bft_sequencers))
        .route(
            "/v0/admin/sv/previous-sv-reward-weight",
            post(previous_reward_weight),
        )
        .route(
            "/v0/synchronizer-bootstrapping-transactions/{prefix}",
            get(bootstrapping),
        )
        .route(
            "/v1/domains/{domain_id}/parties/{party_id}/participant-id",
            get(participant_ids),
        )
        .route(
            "/v0/domains/{domain_id}/members/{member_id}/traffic-status",
            get(member_traffic_status),
        )
        .route("/v0/dso-party-id", get(dso_party_id))
        .route("/v0/dso", get(dso_info))
        .route("/v0/admin/sv/voterequests", get(vote_requests))
        .route("/v0/voterequest", post(vote_requests_by_id))
        .route("/v0/voterequests/{cid}", get(vote_request))
        .route("/v0/admin/sv/voteresults", post(vote_results))
        .route("/v0/admin/sv/voteresults/count", post(vote_results_count))
        .route("/v0/amulet-price/votes", get(amulet_price_votes))
        .route("/status", get(status))
        .route("/version", get(version))
        .route("/v0/scans", get(list_scans))
        .route(
            "/v0/open-and-issuing-mining-rounds",
            post(open_and_issuing_mining_rounds),
        )
        .route("/v0/backfilling/status", get(backfilling_status))
        .route("/v0/amulet-rules", post(amulet_rules))
        .route(
            "/v0/internal/reward-accounting-process/rounds/earliest-available",
            get(rewards::earliest_available),
        )
        .route(
            "/v0/internal/reward-accounting-process/rounds/{round}/activity-totals",
            get(rewards::activity_totals),
        )
        .route(
            "/v0/internal/reward-accounting-process/rounds/{round}/root-hash",
            get(rewards::root_hash),
        )
        .route(
            "/v0/internal/reward-accounting-process/rounds/{round}/batches/{hash}",
            get(rewards::batch),
        )
        .with_state(ScanCtx { app, scan })
}
