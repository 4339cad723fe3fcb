//! The demo ledger: the ordered list of updates (transactions and reassignments) and every index
//! derived from their events (contracts, amulet holdings, liveness records, reward-weight changes,
//! transfer commands, participant offsets). All derived state is computed from the committed
//! events, the same data a client sees, so the endpoints stay consistent with the history.

mod commit;
mod read;
mod update;

pub use update::{Body, CreateNode, ExerciseNode, Node, Reassign, ReassignKind, Tx, Update};

use std::collections::{BTreeSet, HashMap, HashSet};

use foldhash::fast::RandomState;
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
    by_id: HashMap<String, u32, RandomState>,
    by_hash: HashMap<String, u32, RandomState>,
    /// Number of updates generated at start (the hash-indexing start points are fractions of it).
    pub(crate) initial_len: usize,
    /// First update index of each migration, ascending.
    migrations: Vec<(i64, u32)>,
    contracts: HashMap<String, ContractRec, RandomState>,
    amulets: Vec<AmuletRec>,
    amulet_by_cid: HashMap<String, u32, RandomState>,
    liveness: HashMap<PartyIdx, BTreeSet<i64>, RandomState>,
    licensed: BTreeSet<PartyIdx>,
    weights: Vec<WeightChange>,
    tcs: Vec<TcRec>,
    tc_by_cid: HashMap<String, u32, RandomState>,
    tc_sent: HashMap<PartyIdx, i64, RandomState>,
    dev_coupons: Vec<String>,
    amulet_rules: Option<String>,
    /// Participant offsets: `ledger_offsets[o - 1]` is the update index at offset `o`.
    ledger_offsets: Vec<u32>,
    /// Per update index: its participant offset, 0 when the participant does not see it.
    offset_of: Vec<u32>,
    users: BTreeSet<String>,
    executed: HashSet<String, RandomState>,
    /// Events with a verdict and no update, in ledger order: confirmation requests the mediator
    /// rejected (they commit nothing) and wholly private transactions (accepted; the scan's
    /// party sees none of their events). Served by `/v0/events` only, never by `/v2/updates`.
    verdicts_only: Vec<Arc<Update>>,
    verdict_only_by_id: HashMap<String, u32, RandomState>,
}

/// About as many updates as a generated history has (14,340 for seed 42), and contracts (32,000):
/// the maps are sized once instead of growing (rehashing) while the history is generated.
const UPDATES_HINT: usize = 16 * 1024;
const CONTRACTS_HINT: usize = 40 * 1024;

/// The ledger's maps hash with foldhash (seeded per process): SipHash was 8 % of the demo's
/// start-up, in these maps' inserts. Seeded per process as SipHash's were, so nothing generated
/// or served depends on their iteration order.
fn map_with_capacity<K, V>(n: usize) -> HashMap<K, V, RandomState> {
    HashMap::with_capacity_and_hasher(n, RandomState::default())
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
            updates: Vec::with_capacity(UPDATES_HINT),
            by_id: map_with_capacity(UPDATES_HINT),
            by_hash: HashMap::default(),
            initial_len: 0,
            migrations: Vec::new(),
            contracts: map_with_capacity(CONTRACTS_HINT),
            amulets: Vec::new(),
            amulet_by_cid: map_with_capacity(UPDATES_HINT),
            liveness: HashMap::default(),
            licensed: BTreeSet::new(),
            weights: Vec::new(),
            verdicts_only: Vec::new(),
            verdict_only_by_id: HashMap::default(),
            tcs: Vec::new(),
            tc_by_cid: HashMap::default(),
            tc_sent: HashMap::default(),
            dev_coupons: Vec::new(),
            amulet_rules: None,
            ledger_offsets: Vec::new(),
            offset_of: Vec::with_capacity(UPDATES_HINT),
            users,
            executed: HashSet::default(),
        }
    }

    pub fn network(&self) -> &Network {
        &self.net
    }
}
