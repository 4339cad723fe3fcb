//! `GET /v0/dso` (`GetDsoInfoResponse`): the DSO as the scan's own SV sees it. Scan k is SV k
//! of the network, so every scan names its own SV (`sv_party_id`, `sv_user`); the rest is the
//! ledger's: the `DsoRules` contract (its SVs with their current reward weights, changed by
//! accepted votes), the voting threshold Splice derives from their number, the open mining
//! round with the highest number, the `AmuletRules` contract. A lagging scan answers as of its
//! head: the DSO rules active then, no round opened after it.
//!
//! The generated history has no `SvNodeState` contracts, so `sv_node_states` is derived from
//! the network: for each SV of the DSO rules, its party and name, its scan's public URL (as
//! `/v0/scans` lists it), its sequencer and mediator, with a contract id derived from its party.

use axum::extract::State;
use axum::response::Response;
use serde_json::{Value, json};

use super::request::{ScanCtx, not_found};
use crate::demo::ledger::{CreateNode, Ledger};
use crate::demo::render::contract_with_state;
use crate::demo::reply::{Fail, done, json_ok};
use crate::demo::topology::{GLOBAL, Network, Tpl};
use crate::demo::util::{fmt_time6, sha256_hex};

/// Votes needed to pass a vote request among `svs` SVs, as Splice's `DsoRules` derives it
/// (`summarizeDso`): with `f = (n − 1) / 3` faulty SVs tolerated, `⌈(n + f + 1) / 2⌉`.
pub(crate) fn voting_threshold(svs: usize) -> usize {
    let f = svs.saturating_sub(1) / 3;
    (svs + f + 1).div_ceil(2)
}

pub(super) async fn dso_info(State(c): State<ScanCtx>) -> Response {
    done((|| {
        let w = c.app.read();
        let l = &w.ledger;
        let net = &c.app.net;
        let cutoff = c
            .app
            .faults
            .lag_of(c.scan)
            .map(|lag| c.app.lag_cutoff(l, lag));
        let head = l.updates().last().map_or(0, |u| u.record_time);
        let contract = |cid: &str| -> Option<Value> {
            let (create, created_at, sync) = l.contract(cid)?;
            Some(contract_with_state(
                net,
                create,
                created_at,
                Some(net.sync_id(sync)),
            ))
        };
        let rules_cid = l
            .active_at(Tpl::DsoRules, cutoff.unwrap_or(head))
            .last()
            .copied()
            .ok_or_else(|| not_found("No DsoRules contract found"))?;
        let (rules, _, _) = l
            .contract(rules_cid)
            .ok_or_else(|| not_found("No DsoRules contract found"))?;
        let svs = rules.args["svs"].as_array().cloned().unwrap_or_default();
        let round = newest_open_round(l, cutoff)
            .and_then(contract)
            .ok_or_else(|| not_found("No open mining round found"))?;
        let amulet_rules = l
            .amulet_rules_cid()
            .and_then(contract)
            .ok_or_else(|| not_found("No AmuletRules contract found"))?;
        let dso_rules = contract(rules_cid).ok_or_else(|| not_found("No DsoRules contract"))?;
        let own = net
            .svs
            .get(c.scan)
            .or_else(|| net.svs.get(c.scan % net.svs.len().max(1)))
            .ok_or_else(|| not_found("This scan's SV is unknown"))?;
        let own_party = net.party_id(own.party);
        let states: Vec<Value> = svs
            .iter()
            .filter_map(|entry| entry.get(0)?.as_str())
            .filter_map(|party| sv_node_state(net, l, &c.app.urls, party))
            .collect();
        Ok::<_, Fail>(json_ok(&json!({
            "sv_user": sv_user(own_party),
            "sv_party_id": own_party,
            "dso_party_id": net.dso_id(),
            "voting_threshold": voting_threshold(svs.len()),
            "latest_mining_round": round,
            "amulet_rules": amulet_rules,
            "dso_rules": dso_rules,
            "sv_node_states": states,
            "initial_round": "0",
        })))
    })())
}

/// The active open mining round with the highest number (none created after `cutoff`, as the
/// scan's `/v0/open-and-issuing-mining-rounds` shows them).
fn newest_open_round(l: &Ledger, cutoff: Option<i64>) -> Option<&str> {
    l.active_contracts(Tpl::OpenMiningRound)
        .into_iter()
        .filter_map(|cid| {
            let (create, created_at, _) = l.contract(cid)?;
            if cutoff.is_some_and(|t| created_at > t) {
                return None;
            }
            let number: i64 = create.args["round"]["number"].as_str()?.parse().ok()?;
            Some((number, cid))
        })
        .max_by_key(|(number, _)| *number)
        .map(|(_, cid)| cid)
}

/// The SV app's ledger user: a UUID derived from the SV's party, as MainNet's look.
fn sv_user(party: &str) -> String {
    let h = sha256_hex(format!("sv-user:{party}").as_bytes());
    format!(
        "{}-{}-4{}-a{}-{}",
        &h[0..8],
        &h[8..12],
        &h[13..16],
        &h[17..20],
        &h[20..32]
    )
}

/// The `SvNodeState` of the SV `party` (`ContractWithState`), derived from the network; `None`
/// for a party that is no SV of the network.
fn sv_node_state(net: &Network, l: &Ledger, urls: &[String], party: &str) -> Option<Value> {
    let p = net.lookup_party(party)?;
    let k = net.sv_index_of(p)?;
    let sv = &net.svs[k];
    let fingerprint = party.split_once("::").map_or(party, |(_, fp)| fp);
    let migration = l.current_migration_id();
    let available_after = l.migration_range(migration).map_or(0, |(first, _)| first);
    let slug = sv.name.to_ascii_lowercase();
    let mut node = json!({
        "legacySequencerConfig": null,
        "mediator": {"mediatorId": format!("MED::{}::{fingerprint}", sv.name)},
        "sequencer": {
            "migrationId": migration.to_string(),
            "sequencerId": sv.sequencer_id,
            "url": format!("https://sequencer-{migration}.{slug}.demo.cantonscope.invalid"),
            "availableAfter": fmt_time6(available_after),
        },
        "cometBft": {"nodes": [], "governanceKeys": [], "sequencingKeys": []},
    });
    if let (Some(url), Some(m)) = (urls.get(k), node.as_object_mut()) {
        m.insert("scan".into(), json!({ "publicUrl": url }));
    }
    let create = CreateNode {
        contract_id: format!(
            "00{}ca101220{}",
            sha256_hex(format!("SvNodeState:{party}").as_bytes()),
            sha256_hex(format!("SvNodeState:{}:{party}", net.seed).as_bytes())
        ),
        tpl: Tpl::SvNodeState,
        args: json!({
            "dso": net.dso_id(),
            "sv": party,
            "svName": sv.name,
            "state": {"synchronizerNodes": [[net.sync_id(GLOBAL), node]]},
        }),
        signatories: vec![net.dso],
        observers: vec![],
    };
    let created_at = l.updates().first().map_or(0, |u| u.record_time);
    Some(contract_with_state(
        net,
        &create,
        created_at,
        Some(net.sync_id(GLOBAL)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn voting_threshold_is_splices() {
        // MainNet: 13 SVs, threshold 9; and Splice's small networks.
        let got: Vec<usize> = [1, 2, 3, 4, 5, 6, 7, 10, 13, 16]
            .into_iter()
            .map(voting_threshold)
            .collect();
        assert_eq!(got, [1, 2, 2, 3, 4, 4, 5, 7, 9, 11]);
    }

    #[test]
    fn sv_users_look_like_uuids_and_differ() {
        let a = sv_user("Aurora-Node-1::1220aa");
        assert_eq!(a.len(), 36);
        assert_eq!(a.matches('-').count(), 4);
        assert_ne!(a, sv_user("Boreal-Ops-2::1220bb"));
        assert_eq!(a, sv_user("Aurora-Node-1::1220aa"));
    }
}
