//! The demo ledger: the ordered list of updates (transactions and reassignments) and every index
//! derived from their events (contracts, amulet holdings, liveness records, reward-weight changes,
//! transfer commands, participant offsets). All derived state is computed from the committed
//! events, the same data a client sees, so the endpoints stay consistent with the history.

mod commit;
mod read;
mod update;

pub use update::{Body, CreateNode, ExerciseNode, Node, Reassign, ReassignKind, Tx, Update};

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;

use super::topology::{Network, PartyIdx, SyncIdx, Tpl};
use super::util::MINUTE;

/// Period of the ACS snapshots: snapshot record times are the multiples of this period (UTC)
/// that fall inside a migration's record-time range.
pub const SNAPSHOT_PERIOD: i64 = 10 * MINUTE;

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
    /// Events with a verdict and no update, in ledger order: confirmation requests the mediator
    /// rejected (they commit nothing) and wholly private transactions (accepted; the scan's
    /// party sees none of their events). Served by `/v0/events` only, never by `/v2/updates`.
    verdicts_only: Vec<Arc<Update>>,
    verdict_only_by_id: HashMap<String, u32>,
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
            verdicts_only: Vec::new(),
            verdict_only_by_id: HashMap::new(),
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
}
