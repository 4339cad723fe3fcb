//! The demo ledger: the ordered list of updates (transactions and reassignments) and every index
//! derived from their events (contracts, amulet holdings, liveness records, reward-weight changes,
//! transfer commands, participant offsets). All derived state is computed from the committed
//! events, the same data a client sees, so the endpoints stay consistent with the history.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;

use super::network::{Network, PartyIdx, SyncIdx, Tpl};
use super::util::{MINUTE, parse_amount};

/// Period of the ACS snapshots: snapshot record times are the multiples of this period (UTC)
/// that fall inside a migration's record-time range.
pub const SNAPSHOT_PERIOD: i64 = 10 * MINUTE;

#[derive(Clone, Debug)]
pub struct CreateNode {
    pub contract_id: String,
    pub tpl: Tpl,
    pub args: Value,
    pub signatories: Vec<PartyIdx>,
    pub observers: Vec<PartyIdx>,
}

impl CreateNode {
    pub fn stakeholders(&self) -> impl Iterator<Item = PartyIdx> + '_ {
        self.signatories
            .iter()
            .chain(self.observers.iter())
            .copied()
    }
}

#[derive(Clone, Debug)]
pub struct ExerciseNode {
    pub contract_id: String,
    pub tpl: Tpl,
    pub choice: &'static str,
    pub argument: Value,
    pub result: Value,
    pub consuming: bool,
    pub actors: Vec<PartyIdx>,
    /// Signatories and observers of the target contract.
    pub signatories: Vec<PartyIdx>,
    pub observers: Vec<PartyIdx>,
    pub children: Vec<u32>,
    pub last_descendant: u32,
}

#[derive(Clone, Debug)]
pub enum Node {
    Create(CreateNode),
    Exercise(ExerciseNode),
    /// A fetch: occupies a node id but is never shown (this is what makes node ids have gaps).
    Fetch {
        contract_id: String,
        tpl: Tpl,
    },
}

impl Node {
    /// Informees of the action: stakeholders of a create; actors plus signatories (plus observers
    /// when consuming) of an exercise.
    pub fn informees(&self) -> Vec<PartyIdx> {
        let mut v: Vec<PartyIdx> = match self {
            Node::Create(c) => c.stakeholders().collect(),
            Node::Exercise(e) => {
                let mut v: Vec<PartyIdx> = e.actors.iter().chain(&e.signatories).copied().collect();
                if e.consuming {
                    v.extend(&e.observers);
                }
                v
            }
            Node::Fetch { .. } => Vec::new(),
        };
        v.sort_unstable();
        v.dedup();
        v
    }

    pub fn is_fetch(&self) -> bool {
        matches!(self, Node::Fetch { .. })
    }

    pub fn children(&self) -> &[u32] {
        match self {
            Node::Exercise(e) => &e.children,
            _ => &[],
        }
    }
}

#[derive(Clone, Debug)]
pub struct Tx {
    pub workflow_id: String,
    pub command_id: String,
    pub sync: SyncIdx,
    pub effective_at: i64,
    /// Pre-order; the index is the node id.
    pub nodes: Vec<Node>,
    pub roots: Vec<u32>,
    pub external_hash: Option<String>,
    /// The mediator verdict of this transaction was a rejection (demo: only status reports and
    /// activity markers, which move no holdings).
    pub rejected: bool,
    pub round: u64,
    pub submitters: Vec<PartyIdx>,
    /// The app provider credited in the app activity record, if any.
    pub app_provider: Option<PartyIdx>,
    /// Finalization time minus record time.
    pub finalization_delay: i64,
}

impl Tx {
    /// Parent of each node (`u32::MAX` for roots).
    pub fn parents(&self) -> Vec<u32> {
        let mut parent = vec![u32::MAX; self.nodes.len()];
        for (i, n) in self.nodes.iter().enumerate() {
            for c in n.children() {
                if let Some(p) = parent.get_mut(*c as usize) {
                    *p = i as u32;
                }
            }
        }
        parent
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReassignKind {
    Unassign,
    Assign,
}

#[derive(Clone, Debug)]
pub struct Reassign {
    pub kind: ReassignKind,
    pub submitter: PartyIdx,
    pub source: SyncIdx,
    pub target: SyncIdx,
    pub unassign_id: String,
    pub counter: i64,
    /// The contract (for an assignment: its create event, with the original creation time).
    pub create: CreateNode,
    pub created_at: i64,
}

#[derive(Clone, Debug)]
pub enum Body {
    Tx(Tx),
    Reassign(Reassign),
}

#[derive(Clone, Debug)]
pub struct Update {
    pub update_id: String,
    pub migration_id: i64,
    pub record_time: i64,
    pub body: Body,
}

impl Update {
    /// The record time as the APIs render it.
    pub fn record_time_string(&self) -> String {
        super::util::fmt_time(self.record_time)
    }

    pub fn tx(&self) -> Option<&Tx> {
        match &self.body {
            Body::Tx(t) => Some(t),
            Body::Reassign(_) => None,
        }
    }

    pub fn sync(&self) -> SyncIdx {
        match &self.body {
            Body::Tx(t) => t.sync,
            Body::Reassign(r) => match r.kind {
                ReassignKind::Unassign => r.source,
                ReassignKind::Assign => r.target,
            },
        }
    }
}

#[derive(Clone, Debug)]
struct ContractRec {
    created: u32,
    /// Node index of the create in the creating transaction (`u32::MAX`: none, e.g. assigned).
    node: u32,
    archived: Option<u32>,
    tpl: Tpl,
    created_at: i64,
    sync: SyncIdx,
    in_flight: bool,
    counter: i64,
}

#[derive(Clone, Debug)]
struct AmuletRec {
    owner: PartyIdx,
    amount: i64,
    locked: bool,
    created: u32,
    archived: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct WeightChange {
    pub sv: PartyIdx,
    pub effective_at: i64,
    pub weight: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TcStatus {
    Created,
    Sent,
    Failed { kind: &'static str, reason: String },
}

#[derive(Clone, Debug)]
pub struct TcRec {
    pub contract_id: String,
    pub sender: PartyIdx,
    pub nonce: i64,
    pub created_time: i64,
    pub status: TcStatus,
}

/// Faucet statistics of one validator (the scan `ValidatorReceivedFaucets` numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaucetStats {
    pub validator: PartyIdx,
    pub collected: i64,
    pub missed: i64,
    pub first: i64,
    pub last: i64,
}

/// Holdings of one owner: (unlocked, locked) in units of 1e-10.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Holding {
    pub party: PartyIdx,
    pub unlocked: i64,
    pub locked: i64,
}

/// The demo ledger. Cheap to clone (updates are shared).
#[derive(Clone, Debug)]
pub struct Ledger {
    pub(crate) net: Arc<Network>,
    updates: Vec<Arc<Update>>,
    by_id: HashMap<String, u32>,
    by_hash: HashMap<String, u32>,
    /// Number of updates generated at start (the hash-indexing start points are fractions of it).
    pub(crate) initial_len: usize,
    /// First update index of each migration, ascending.
    migrations: Vec<(i64, u32)>,
    contracts: HashMap<String, ContractRec>,
    amulets: Vec<AmuletRec>,
    amulet_by_cid: HashMap<String, u32>,
    liveness: HashMap<PartyIdx, BTreeSet<i64>>,
    licensed: BTreeSet<PartyIdx>,
    weights: Vec<WeightChange>,
    tcs: Vec<TcRec>,
    tc_by_cid: HashMap<String, u32>,
    tc_sent: HashMap<PartyIdx, i64>,
    dev_coupons: Vec<String>,
    amulet_rules: Option<String>,
    /// Participant offsets: `ledger_offsets[o - 1]` is the update index at offset `o`.
    ledger_offsets: Vec<u32>,
    /// Per update index: its participant offset, 0 when the participant does not see it.
    offset_of: Vec<u32>,
    users: BTreeSet<String>,
    executed: HashSet<String>,
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for p in path {
        cur = cur.get(p)?;
    }
    cur.as_str()
}

impl Ledger {
    pub(crate) fn new(net: Arc<Network>) -> Ledger {
        let users = net.ledger_users.iter().cloned().collect();
        Ledger {
            net,
            updates: Vec::new(),
            by_id: HashMap::new(),
            by_hash: HashMap::new(),
            initial_len: 0,
            migrations: Vec::new(),
            contracts: HashMap::new(),
            amulets: Vec::new(),
            amulet_by_cid: HashMap::new(),
            liveness: HashMap::new(),
            licensed: BTreeSet::new(),
            weights: Vec::new(),
            tcs: Vec::new(),
            tc_by_cid: HashMap::new(),
            tc_sent: HashMap::new(),
            dev_coupons: Vec::new(),
            amulet_rules: None,
            ledger_offsets: Vec::new(),
            offset_of: Vec::new(),
            users,
            executed: HashSet::new(),
        }
    }

    pub fn network(&self) -> &Network {
        &self.net
    }

    // -----------------------------------------------------------------------------------------
    // Committing

    /// Appends an update and updates every derived index from its events.
    pub(crate) fn commit(&mut self, u: Update) {
        let idx = self.updates.len() as u32;
        match self.migrations.last() {
            Some((m, _)) if *m == u.migration_id => {}
            _ => self.migrations.push((u.migration_id, idx)),
        }
        self.by_id.insert(u.update_id.clone(), idx);
        let mut visible = false;
        match &u.body {
            Body::Tx(tx) => {
                if let Some(h) = &tx.external_hash {
                    self.by_hash.insert(h.clone(), idx);
                }
                for (n, node) in tx.nodes.iter().enumerate() {
                    if !node.is_fetch() && !visible {
                        visible = node.informees().iter().any(|p| self.net.party(*p).local);
                    }
                    match node {
                        Node::Create(c) => self.on_create(
                            idx,
                            n as u32,
                            c,
                            tx.effective_at,
                            tx.sync,
                            u.record_time,
                        ),
                        Node::Exercise(e) => self.on_exercise(idx, e, u.record_time),
                        Node::Fetch { .. } => {}
                    }
                }
            }
            Body::Reassign(r) => {
                visible = r.create.stakeholders().any(|p| self.net.party(p).local);
                let rec = self
                    .contracts
                    .entry(r.create.contract_id.clone())
                    .or_insert_with(|| ContractRec {
                        created: idx,
                        node: u32::MAX,
                        archived: None,
                        tpl: r.create.tpl,
                        created_at: r.created_at,
                        sync: r.source,
                        in_flight: false,
                        counter: 0,
                    });
                rec.counter = r.counter;
                match r.kind {
                    ReassignKind::Unassign => rec.in_flight = true,
                    ReassignKind::Assign => {
                        rec.in_flight = false;
                        rec.sync = r.target;
                    }
                }
            }
        }
        if visible {
            self.ledger_offsets.push(idx);
            self.offset_of.push(self.ledger_offsets.len() as u32);
        } else {
            self.offset_of.push(0);
        }
        self.updates.push(Arc::new(u));
    }

    fn on_create(
        &mut self,
        idx: u32,
        node: u32,
        c: &CreateNode,
        created_at: i64,
        sync: SyncIdx,
        record_time: i64,
    ) {
        self.contracts.insert(
            c.contract_id.clone(),
            ContractRec {
                created: idx,
                node,
                archived: None,
                tpl: c.tpl,
                created_at,
                sync,
                in_flight: false,
                counter: 0,
            },
        );
        let net = Arc::clone(&self.net);
        let party = |path: &[&str]| str_at(&c.args, path).and_then(|s| net.lookup_party(s));
        match c.tpl {
            Tpl::Amulet | Tpl::LockedAmulet => {
                let (owner, amount) = if c.tpl == Tpl::Amulet {
                    (
                        party(&["owner"]),
                        str_at(&c.args, &["amount", "initialAmount"]),
                    )
                } else {
                    (
                        party(&["amulet", "owner"]),
                        str_at(&c.args, &["amulet", "amount", "initialAmount"]),
                    )
                };
                if let (Some(owner), Some(amount)) = (owner, amount.and_then(parse_amount)) {
                    self.amulet_by_cid
                        .insert(c.contract_id.clone(), self.amulets.len() as u32);
                    self.amulets.push(AmuletRec {
                        owner,
                        amount,
                        locked: c.tpl == Tpl::LockedAmulet,
                        created: idx,
                        archived: None,
                    });
                }
            }
            Tpl::ValidatorFaucetCoupon | Tpl::ValidatorLivenessActivityRecord => {
                let round = str_at(&c.args, &["round", "number"]).and_then(|s| s.parse().ok());
                if let (Some(v), Some(r)) = (party(&["validator"]), round) {
                    self.liveness.entry(v).or_default().insert(r);
                }
            }
            Tpl::ValidatorLicense => {
                if let Some(v) = party(&["validator"]) {
                    self.licensed.insert(v);
                }
            }
            Tpl::TransferCommand => {
                let nonce = str_at(&c.args, &["nonce"]).and_then(|s| s.parse().ok());
                if let (Some(sender), Some(nonce)) = (party(&["sender"]), nonce) {
                    self.tc_by_cid
                        .insert(c.contract_id.clone(), self.tcs.len() as u32);
                    self.tcs.push(TcRec {
                        contract_id: c.contract_id.clone(),
                        sender,
                        nonce,
                        created_time: record_time,
                        status: TcStatus::Created,
                    });
                }
            }
            Tpl::UnclaimedDevelopmentFundCoupon => self.dev_coupons.push(c.contract_id.clone()),
            Tpl::AmuletRules => self.amulet_rules = Some(c.contract_id.clone()),
            _ => {}
        }
    }

    fn on_exercise(&mut self, idx: u32, e: &ExerciseNode, record_time: i64) {
        if e.choice == "DsoRules_UpdateSvRewardWeight" {
            let sv = str_at(&e.argument, &["svParty"]).and_then(|s| self.net.lookup_party(s));
            let weight = str_at(&e.argument, &["newRewardWeight"]);
            if let (Some(sv), Some(weight)) = (sv, weight) {
                self.weights.push(WeightChange {
                    sv,
                    effective_at: record_time,
                    weight: weight.to_string(),
                });
            }
        }
        if !e.consuming {
            return;
        }
        if let Some(rec) = self.contracts.get_mut(&e.contract_id) {
            rec.archived = Some(idx);
        }
        if let Some(a) = self.amulet_by_cid.get(&e.contract_id) {
            self.amulets[*a as usize].archived = Some(idx);
        }
        if let Some(t) = self.tc_by_cid.get(&e.contract_id).copied() {
            let status = match e.choice {
                "TransferCommand_Send" => match str_at(&e.result, &["result", "tag"]) {
                    Some("TransferCommandResultSuccess") => TcStatus::Sent,
                    _ => TcStatus::Failed {
                        kind: "failed",
                        reason: str_at(&e.result, &["result", "value", "reason"])
                            .unwrap_or("transfer failed")
                            .to_string(),
                    },
                },
                "TransferCommand_Expire" => TcStatus::Failed {
                    kind: "expired",
                    reason: "the transfer command expired before it could be completed".to_string(),
                },
                "TransferCommand_Withdraw" => TcStatus::Failed {
                    kind: "withdrawn",
                    reason: "the sender withdrew the transfer command".to_string(),
                },
                _ => TcStatus::Failed {
                    kind: "failed",
                    reason: format!("archived by {}", e.choice),
                },
            };
            let rec = &mut self.tcs[t as usize];
            if status == TcStatus::Sent {
                *self.tc_sent.entry(rec.sender).or_insert(0) += 1;
            }
            rec.status = status;
        }
    }

    // -----------------------------------------------------------------------------------------
    // Reading the history

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
