//! Reading the ledger: the history, ACS snapshots and holdings, validators, SVs, transfer
//! commands and coupons, the participant view, and accessors for tests and the other parts of
//! the program.

use std::collections::HashMap;
use std::sync::Arc;

use super::update::{Body, CreateNode, Node, Update};
use super::{FaucetStats, Holding, Ledger, SNAPSHOT_PERIOD, TcRec, WeightChange};
use crate::demo::topology::{PartyIdx, SyncIdx, Tpl};

impl Ledger {
    pub fn len(&self) -> usize {
        self.updates.len()
    }

    pub fn is_empty(&self) -> bool {
        self.updates.is_empty()
    }

    pub fn update(&self, idx: usize) -> Option<&Arc<Update>> {
        self.updates.get(idx)
    }

    pub fn updates(&self) -> &[Arc<Update>] {
        &self.updates
    }

    /// The events with a verdict and no update, in ledger order.
    pub fn verdicts_only(&self) -> &[Arc<Update>] {
        &self.verdicts_only
    }

    /// The event with a verdict and no update of this id.
    pub fn verdict_only(&self, update_id: &str) -> Option<&Arc<Update>> {
        self.verdict_only_by_id
            .get(update_id)
            .and_then(|i| self.verdicts_only.get(*i as usize))
    }

    /// The verdict-only events after the cursor `(migration, record_time)` and up to `until`
    /// (inclusive), in ledger order.
    pub fn verdicts_only_between(&self, after: (i64, i64), until: (i64, i64)) -> &[Arc<Update>] {
        let start = self
            .verdicts_only
            .partition_point(|u| (u.migration_id, u.record_time) <= after);
        let end = self
            .verdicts_only
            .partition_point(|u| (u.migration_id, u.record_time) <= until);
        &self.verdicts_only[start..end.max(start)]
    }

    pub fn index_of(&self, update_id: &str) -> Option<usize> {
        self.by_id.get(update_id).map(|i| *i as usize)
    }

    pub fn index_of_hash(&self, hash: &str) -> Option<usize> {
        self.by_hash.get(hash).map(|i| *i as usize)
    }

    /// Index of the first update after the cursor `(migration, record_time)`: a higher migration
    /// id, or the same migration id and a later record time.
    pub fn cursor_start(&self, migration: i64, record_time: i64) -> usize {
        self.updates
            .partition_point(|u| (u.migration_id, u.record_time) <= (migration, record_time))
    }

    pub fn current_migration_id(&self) -> i64 {
        self.migrations.last().map_or(0, |(m, _)| *m)
    }

    pub fn migration_ids(&self) -> Vec<i64> {
        self.migrations.iter().map(|(m, _)| *m).collect()
    }

    /// First and last record time of a migration.
    pub fn migration_range(&self, migration: i64) -> Option<(i64, i64)> {
        let pos = self.migrations.iter().position(|(m, _)| *m == migration)?;
        let first = self.migrations[pos].1 as usize;
        let end = self
            .migrations
            .get(pos + 1)
            .map_or(self.updates.len(), |(_, i)| *i as usize);
        let last = end.checked_sub(1)?;
        Some((
            self.updates[first].record_time,
            self.updates[last].record_time,
        ))
    }

    // -----------------------------------------------------------------------------------------
    // ACS snapshots and holdings

    /// The most recent snapshot of `migration` strictly before `before`.
    pub fn snapshot_before(&self, migration: i64, before: i64) -> Option<i64> {
        let (first, last) = self.migration_range(migration)?;
        let t = floor_period(before - 1).min(floor_period(last));
        (t >= first).then_some(t)
    }

    /// The most recent snapshot of `migration` at or before `at`.
    pub fn snapshot_at_or_before(&self, migration: i64, at: i64) -> Option<i64> {
        let (first, last) = self.migration_range(migration)?;
        let t = floor_period(at).min(floor_period(last));
        (t >= first).then_some(t)
    }

    pub fn is_snapshot(&self, migration: i64, at: i64) -> bool {
        self.snapshot_at_or_before(migration, at) == Some(at)
    }

    /// Active amulets (created, not archived) at record time `at`, summed per owner among
    /// `owners`. Owners without any active amulet are left out.
    pub fn holdings_at(&self, at: i64, owners: &[PartyIdx]) -> Vec<Holding> {
        let end = self.updates.partition_point(|u| u.record_time <= at) as u32;
        let mut out: Vec<Holding> = Vec::new();
        let mut seen: HashMap<PartyIdx, usize> = HashMap::new();
        for o in owners {
            if !seen.contains_key(o) {
                seen.insert(*o, usize::MAX);
            }
        }
        for a in &self.amulets {
            if a.created >= end || a.archived.is_some_and(|x| x < end) {
                continue;
            }
            let Some(slot) = seen.get_mut(&a.owner) else {
                continue;
            };
            if *slot == usize::MAX {
                *slot = out.len();
                out.push(Holding {
                    party: a.owner,
                    unlocked: 0,
                    locked: 0,
                });
            }
            let h = &mut out[*slot];
            if a.locked {
                h.locked += a.amount;
            } else {
                h.unlocked += a.amount;
            }
        }
        out
    }

    // -----------------------------------------------------------------------------------------
    // Validators, SVs, transfer commands, coupons

    pub fn onboarded_validators(&self) -> Vec<PartyIdx> {
        self.licensed.iter().copied().collect()
    }

    pub fn faucet_stats(&self, validator: PartyIdx) -> Option<FaucetStats> {
        if !self.licensed.contains(&validator) {
            return None;
        }
        let rounds = self.liveness.get(&validator)?;
        let first = *rounds.first()?;
        let last = *rounds.last()?;
        let collected = rounds.len() as i64;
        Some(FaucetStats {
            validator,
            collected,
            missed: last - first + 1 - collected,
            first,
            last,
        })
    }

    pub fn weight_changes(&self) -> &[WeightChange] {
        &self.weights
    }

    /// The weight set by the most recent accepted change that took effect strictly before
    /// `before` (or the latest change when `before` is absent).
    pub fn previous_reward_weight(&self, sv: PartyIdx, before: Option<i64>) -> Option<&str> {
        self.weights
            .iter()
            .rev()
            .find(|w| w.sv == sv && before.is_none_or(|b| w.effective_at < b))
            .map(|w| w.weight.as_str())
    }

    pub fn transfer_commands(&self) -> &[TcRec] {
        &self.tcs
    }

    /// The nonce the next transfer command of `sender` must carry (the number of sent ones).
    pub fn next_nonce(&self, sender: PartyIdx) -> i64 {
        self.tc_sent.get(&sender).copied().unwrap_or(0)
    }

    pub fn unclaimed_dev_coupons(&self) -> Vec<&str> {
        self.dev_coupons
            .iter()
            .filter(|c| self.is_active(c))
            .map(String::as_str)
            .collect()
    }

    pub fn amulet_rules_cid(&self) -> Option<&str> {
        self.amulet_rules.as_deref()
    }

    pub fn is_active(&self, cid: &str) -> bool {
        self.contracts
            .get(cid)
            .is_some_and(|c| c.archived.is_none())
    }

    /// The create event of a contract, its creation time and its current synchronizer.
    pub fn contract(&self, cid: &str) -> Option<(&CreateNode, i64, SyncIdx)> {
        let rec = self.contracts.get(cid)?;
        let u = self.updates.get(rec.created as usize)?;
        let create = match &u.body {
            Body::Tx(tx) => match tx.nodes.get(rec.node as usize)? {
                Node::Create(c) => c,
                _ => return None,
            },
            Body::Reassign(r) => &r.create,
        };
        Some((create, rec.created_at, rec.sync))
    }

    /// Template, reassignment counter and whether it is in flight (unassigned, not yet assigned).
    pub fn contract_state(&self, cid: &str) -> Option<(Tpl, i64, bool)> {
        self.contracts
            .get(cid)
            .map(|c| (c.tpl, c.counter, c.in_flight))
    }

    // -----------------------------------------------------------------------------------------
    // The participant view (ledger API)

    pub fn ledger_end(&self) -> i64 {
        self.ledger_offsets.len() as i64
    }

    pub fn update_at_offset(&self, offset: i64) -> Option<usize> {
        let i = usize::try_from(offset).ok()?.checked_sub(1)?;
        self.ledger_offsets.get(i).map(|x| *x as usize)
    }

    pub fn offset_of(&self, idx: usize) -> Option<i64> {
        match self.offset_of.get(idx) {
            Some(0) | None => None,
            Some(o) => Some(i64::from(*o)),
        }
    }

    pub fn users(&self) -> impl Iterator<Item = &str> {
        self.users.iter().map(String::as_str)
    }

    pub(crate) fn delete_user(&mut self, user: &str) -> bool {
        self.users.remove(user)
    }

    pub(crate) fn has_user(&self, user: &str) -> bool {
        self.users.contains(user)
    }

    pub(crate) fn mark_executed(&mut self, key: &str) -> bool {
        self.executed.insert(key.to_string())
    }

    // -----------------------------------------------------------------------------------------
    // Convenience accessors for tests and for the other parts of the program

    /// The id of a party by its index (as stored in the ledger's records).
    pub fn party_id(&self, p: PartyIdx) -> &str {
        self.net.party_id(p)
    }

    pub fn dso_party(&self) -> &str {
        self.net.dso_id()
    }

    pub fn sv_parties(&self) -> Vec<&str> {
        self.net
            .svs
            .iter()
            .map(|s| self.net.party_id(s.party))
            .collect()
    }

    pub fn validator_parties(&self) -> Vec<&str> {
        self.net
            .validators
            .iter()
            .map(|p| self.net.party_id(*p))
            .collect()
    }

    pub fn user_parties(&self) -> Vec<&str> {
        self.net
            .users
            .iter()
            .map(|p| self.net.party_id(*p))
            .collect()
    }

    /// Parties hosted on the participant behind the demo ledger API.
    pub fn local_parties(&self) -> Vec<&str> {
        self.net
            .parties
            .iter()
            .filter(|p| p.local)
            .map(|p| p.id.as_str())
            .collect()
    }

    pub fn synchronizer_ids(&self) -> [&str; 2] {
        [
            self.net.synchronizers[0].as_str(),
            self.net.synchronizers[1].as_str(),
        ]
    }

    /// Package ids of the Daml packages the participant knows.
    pub fn package_ids(&self) -> Vec<&str> {
        self.net.packages.iter().map(|p| p.id.as_str()).collect()
    }

    /// The external transaction hashes in history, with the update index carrying each.
    pub fn external_hashes(&self) -> Vec<(&str, usize)> {
        let mut v: Vec<(&str, usize)> = self
            .by_hash
            .iter()
            .map(|(h, i)| (h.as_str(), *i as usize))
            .collect();
        v.sort_by_key(|(_, i)| *i);
        v
    }

    /// The contract id of every contract of a template that was active at record time `at`
    /// (created at or before it, and archived after it or not at all), oldest first.
    pub fn active_at(&self, tpl: Tpl, at: i64) -> Vec<&str> {
        let time = |idx: u32| self.updates.get(idx as usize).map(|u| u.record_time);
        let mut v: Vec<(&str, u32)> = self
            .contracts
            .iter()
            .filter(|(_, c)| c.tpl == tpl)
            .filter(|(_, c)| time(c.created).is_some_and(|t| t <= at))
            .filter(|(_, c)| c.archived.is_none_or(|a| time(a).is_none_or(|t| t > at)))
            .map(|(k, c)| (k.as_str(), c.created))
            .collect();
        v.sort_by_key(|(_, c)| *c);
        v.into_iter().map(|(k, _)| k).collect()
    }

    /// The contract id of every contract of a template that is active now.
    pub fn active_contracts(&self, tpl: Tpl) -> Vec<&str> {
        let mut v: Vec<(&str, u32)> = self
            .contracts
            .iter()
            .filter(|(_, c)| c.tpl == tpl && c.archived.is_none())
            .map(|(k, c)| (k.as_str(), c.created))
            .collect();
        v.sort_by_key(|(_, c)| *c);
        v.into_iter().map(|(k, _)| k).collect()
    }
}

fn floor_period(t: i64) -> i64 {
    t.div_euclid(SNAPSHOT_PERIOD) * SNAPSHOT_PERIOD
}
