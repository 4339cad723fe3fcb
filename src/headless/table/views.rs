//! The [`View`] of each command that reads well as a table.

use serde_json::Value;

use super::status::index_status;
use super::{View, cell, grid};

/// A document without a list of rows (`scan status`): every leaf as `path  value`.
pub const KEY_VALUE: View = View {
    summary: &[],
    rows: None,
    columns: &[],
    custom: None,
};

/// `network scans`.
pub const NETWORK_SCANS: View = View {
    summary: &[
        ("synchronizer", "/domain_id"),
        ("scans", "/n"),
        ("f", "/f"),
        ("quorum", "/quorum"),
        ("list", "/source"),
    ],
    rows: Some("/scans"),
    columns: &[
        ("SCAN", "/sv_name"),
        ("URL", "/url"),
        ("OWN", "/own"),
        ("COUNTED", "/counted"),
        ("LISTED", "/listed"),
        ("PINNED", "/pinned"),
    ],
    custom: None,
};

/// `network health`.
pub const NETWORK_HEALTH: View = View {
    summary: &[
        ("verdict", "/verdict"),
        ("outcome", "/outcome"),
        ("newest head", "/newest_head"),
        ("checked at", "/checked_at"),
    ],
    rows: Some("/scans"),
    columns: &[
        ("SCAN", "/sv_name"),
        ("HOST", "/host"),
        ("STATE", "/state"),
        ("LAGGING", "/lagging"),
        ("STATUS", "/status"),
        ("VERSION", "/version"),
        ("MS", "/latency_ms"),
        ("MIGR", "/migration_id"),
        ("HEAD", "/head_record_time"),
        ("LAG S", "/lag_behind_newest_s"),
        ("ROUND", "/newest_open_round/number"),
        ("REASONS", "/reasons"),
    ],
    custom: None,
};

/// `network check-update`.
pub const NETWORK_CHECK: View = View {
    summary: &[
        ("update", "/update_id"),
        ("outcome", "/outcome"),
        ("consensus", "/consensus"),
        ("own scan", "/own_scan"),
        ("record time", "/record_time"),
    ],
    rows: Some("/scans"),
    columns: &[
        ("SCAN", "/sv_name"),
        ("CLASS", "/class"),
        ("STATUS", "/status"),
        ("MS", "/latency_ms"),
        ("DETAIL", "/detail"),
        ("DIFFERS AT", "/differences/0/path"),
    ],
    custom: None,
};

/// `network sweep`: a row per range of differing updates.
pub const NETWORK_SWEEP: View = View {
    summary: &[
        ("outcome", "/outcome"),
        ("end", "/end"),
        ("differing updates", "/differing_updates"),
        ("truncated", "/truncated"),
        ("pages", "/pages"),
        ("updates", "/updates"),
        ("from", "/from"),
        ("cursor", "/cursor/record_time"),
        ("no quorum on page", "/no_quorum/page"),
    ],
    rows: Some("/ranges"),
    columns: &[
        ("COUNT", "/count"),
        ("FIRST RECORD TIME", "/first_record_time"),
        ("LAST RECORD TIME", "/last_record_time"),
        ("DIFFERING SCANS", "/sides/1/scans"),
        ("AGAINST", "/sides/0/count"),
        ("EXAMPLE PATH", "/example_path"),
        ("FIRST UPDATE", "/first_update_id"),
        ("LAST UPDATE", "/last_update_id"),
    ],
    custom: None,
};

/// `scan holdings`.
pub const HOLDINGS: View = View {
    summary: &[
        ("record time", "/record_time"),
        ("migration", "/migration_id"),
        ("as of round", "/computed_as_of_round"),
    ],
    rows: Some("/summaries"),
    columns: &[
        ("PARTY", "/party_id"),
        ("UNLOCKED", "/total_unlocked_coin"),
        ("LOCKED", "/total_locked_coin"),
        ("HOLDINGS", "/total_coin_holdings"),
        ("FEES", "/accumulated_holding_fees_total"),
    ],
    custom: None,
};

/// `scan validator-faucets`.
pub const FAUCETS: View = View {
    summary: &[],
    rows: Some("/validatorsReceivedFaucets"),
    columns: &[
        ("VALIDATOR", "/validator"),
        ("COLLECTED", "/numRoundsCollected"),
        ("MISSED", "/numRoundsMissed"),
        ("FIRST", "/firstCollectedInRound"),
        ("LAST", "/lastCollectedInRound"),
    ],
    custom: None,
};

/// `scan validator-licenses`.
pub const LICENSES: View = View {
    summary: &[("next page", "/next_page_token")],
    rows: Some("/validator_licenses"),
    columns: &[
        ("VALIDATOR", "/payload/validator"),
        ("SPONSOR", "/payload/sponsor"),
        ("CREATED", "/created_at"),
        ("CONTRACT", "/contract_id"),
    ],
    custom: None,
};

/// `scan reward-round`.
pub const REWARD_ROUND: View = View {
    summary: &[
        ("round", "/round"),
        ("earliest available", "/earliest_available_round"),
        ("activity totals", "/activity_totals/state"),
        (
            "activity weight",
            "/activity_totals/total_app_activity_weight",
        ),
        ("active parties", "/activity_totals/active_parties_count"),
        (
            "activity records",
            "/activity_totals/activity_records_count",
        ),
        (
            "minting allowance",
            "/activity_totals/total_app_reward_minting_allowance",
        ),
        (
            "thresholded",
            "/activity_totals/total_app_reward_thresholded",
        ),
        ("unclaimed", "/activity_totals/total_app_reward_unclaimed"),
        (
            "rewarded providers",
            "/activity_totals/rewarded_app_provider_parties_count",
        ),
        ("root hash", "/root_hash/state"),
        ("root", "/root_hash/root_hash"),
        ("verdict", "/verdict"),
    ],
    rows: Some("/batches"),
    columns: &[
        ("DEPTH", "/depth"),
        ("HASH", "/hash"),
        ("TYPE", "/type"),
        ("ENTRIES", "/entries"),
        ("RESULT", "/result"),
    ],
    custom: None,
};

/// `governance requests` and `governance needs-vote`.
pub const GOVERNANCE_REQUESTS: View = View {
    summary: &[
        ("my SV", "/my_sv/described"),
        ("needs my vote", "/needs_vote"),
    ],
    rows: Some("/requests"),
    columns: &[
        ("VOTE BEFORE", "/vote_before"),
        ("MY VOTE", "/my_vote"),
        ("REQUESTER", "/requester"),
        ("VOTES", "/votes_words"),
        ("ACTION", "/action"),
    ],
    custom: None,
};

/// `governance results` (JSON Lines).
pub const GOVERNANCE_RESULTS: View = View {
    summary: &[],
    rows: None,
    columns: &[
        ("COMPLETED", "/completed_at"),
        ("OUTCOME", "/outcome"),
        ("REQUESTER", "/requester"),
        ("ACCEPT", "/accept"),
        ("REJECT", "/reject"),
        ("ACTION", "/action"),
    ],
    custom: None,
};

/// `governance weights`.
pub const GOVERNANCE_WEIGHTS: View = View {
    summary: &[("my SV", "/my_sv/described"), ("note", "/note")],
    rows: Some("/svs"),
    columns: &[
        ("SV", "/name"),
        ("MINE", "/my_sv"),
        ("WEIGHT", "/reward_weight"),
        ("KNOWN SINCE", "/known_since"),
        ("CHECKED", "/history_agrees"),
    ],
    custom: None,
};

/// `index search` (JSON Lines).
pub const INDEX_SEARCH: View = View {
    summary: &[],
    rows: None,
    columns: &[
        ("RECORD TIME", "/record_time"),
        ("MIG", "/migration_id"),
        ("KIND", "/kind"),
        ("UPDATE", "/update_id"),
        ("ACTION", "/root_action"),
        ("PARTIES", "/parties"),
    ],
    custom: None,
};

/// `index rounds` (and its `--output csv`, the same columns whole).
pub const INDEX_ROUNDS: View = View {
    summary: &[
        ("index", "/index"),
        ("party", "/party"),
        ("scans not asked", "/scans_not_asked_because"),
        ("f + 1", "/f_plus_one"),
        ("divergences", "/divergences"),
        ("differing scans", "/differing_scans"),
        ("differing trees", "/differing_trees"),
        ("records pruned before", "/records_pruned_before"),
    ],
    rows: Some("/rounds"),
    columns: &[
        ("ROUND", "/round"),
        ("CHECK", "/check"),
        ("WEIGHT", "/weight"),
        ("RECORDS", "/records"),
        ("PARTIES", "/active_parties"),
        ("TRAFFIC COST", "/traffic_cost"),
        ("UPDATES", "/updates"),
        ("FIRST", "/first_time"),
        ("LAST", "/last_time"),
        ("TOP PROVIDER", "/top_provider"),
        ("ROOT HASH", "/root_hash"),
        ("DIFFERING", "/differing_scans"),
        ("TREE", "/tree"),
        ("PRUNED", "/records_pruned"),
    ],
    custom: None,
};

/// `index verify`'s report.
pub const INDEX_VERIFY: View = View {
    summary: &[
        ("outcome", "/outcome"),
        ("exit code", "/exit_code"),
        ("pages", "/pages"),
        ("updates checked", "/updates_checked"),
        ("mismatches", "/mismatches"),
        ("missing", "/missing"),
        ("extra", "/extra"),
        ("odd scans", "/odd_scans"),
    ],
    rows: Some("/ranges"),
    columns: &[
        ("AFTER", "/after/record_time"),
        ("THROUGH", "/through/record_time"),
        ("UPDATES", "/updates_checked"),
        ("SCANS", "/scans"),
        ("MISMATCHES", "/mismatches"),
        ("MISSING", "/missing"),
        ("EXTRA", "/extra"),
        ("UNCHECKED", "/unchecked"),
        ("COMPLETE", "/complete"),
    ],
    custom: None,
};

/// `index status`: a summary that fits a screen however big the index is.
pub const INDEX_STATUS: View = View {
    summary: &[],
    rows: None,
    columns: &[],
    custom: Some(|doc| index_status(doc, false)),
};

/// `index status --divergences`: the summary, then every divergence.
pub const INDEX_STATUS_DIVERGENCES: View = View {
    summary: &[],
    rows: None,
    columns: &[],
    custom: Some(|doc| index_status(doc, true)),
};

/// `index stats`: a row per day (with `--daily`), then the totals.
pub const INDEX_STATS: View = View {
    summary: &[],
    rows: None,
    columns: &[],
    custom: Some(|doc| {
        let columns = [
            ("DAY", "/day"),
            ("UPDATES", "/updates"),
            ("TRANSFERS", "/transfers"),
            ("VOLUME", "/volume"),
            ("PARTIES", "/active_parties"),
            ("VALIDATORS", "/validators"),
            ("VOTE REQ", "/vote_requests"),
            ("VOTE RES", "/vote_results"),
            ("TRAFFIC COST", "/traffic_cost"),
        ];
        grid(&columns, &stats_rows(doc))
    }),
};

/// `index stats --output csv`: the rows of [`INDEX_STATS`] as CSV
/// ([`crate::model::index::stats::CSV_HEADER`]).
pub const INDEX_STATS_CSV: View = View {
    summary: &[],
    rows: None,
    columns: &[],
    custom: Some(|doc| {
        let header = crate::model::index::stats::CSV_HEADER;
        let mut out = format!("{header}\n");
        for row in stats_rows(doc) {
            let fields: Vec<String> = header.split(',').map(|f| cell(&row[f])).collect();
            out.push_str(&fields.join(","));
            out.push('\n');
        }
        out
    }),
};

/// The days of an `index stats` answer, then its totals (their day `total`).
fn stats_rows(doc: &Value) -> Vec<Value> {
    let mut rows: Vec<Value> = doc["days"].as_array().cloned().unwrap_or_default();
    let mut totals = doc["totals"].clone();
    if let Some(map) = totals.as_object_mut() {
        map.insert("day".to_owned(), Value::from("total"));
    }
    rows.push(totals);
    rows
}

/// `node alerts`.
pub const NODE_ALERTS: View = View {
    summary: &[
        ("at", "/at"),
        ("source", "/source"),
        ("firing", "/firing"),
        ("worst", "/worst"),
    ],
    rows: Some("/rules"),
    columns: &[
        ("SIGNAL", "/title"),
        ("SUBJECT", "/subject"),
        ("STATE", "/state"),
        ("SEVERITY", "/severity"),
        ("VALUE", "/value"),
        ("THRESHOLD", "/threshold"),
        ("SINCE", "/since"),
        ("DEFAULT FROM", "/source"),
    ],
    custom: None,
};
