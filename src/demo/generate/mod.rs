//! Generates the demo history (deterministic from the seed) and keeps producing updates in live
//! mode. The generator plans each mining round as a list of intents (round lifecycle, liveness,
//! SV rewards, transfers, governance, transfer commands, reassignments…) placed in the round's
//! ten-minute window, runs them in time order and commits each resulting update to the ledger.

mod amulets;
mod apps;
mod bootstrap;
mod commands;
mod governance;
mod nodes;
mod plan;
mod rounds;
mod scripted;
mod tree;
mod wallet;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use foldhash::fast::RandomState;
use serde_json::{Value, json};

use super::ledger::{CreateNode, Ledger};
use super::topology::{Network, PartyIdx, PartyKind, SyncIdx, Tpl};
use super::util::{MINUTE, Rng, SECOND, UNIT};

use plan::Intent;
use tree::TreeB;

/// Length of a mining round (the real tick duration).
pub const ROUND_LEN: i64 = 10 * MINUTE;
/// Rounds of history generated at start (2.5 days).
pub const ROUNDS: i64 = 360;
/// The round at which the hard migration 0 → 1 happens.
pub const MIGRATION_ROUND: i64 = ROUNDS * 2 / 5;
/// Transfer commands exist in the last this-many rounds of history (20 hours), so their status
/// stays within the scan's 24 hour lookup window.
const TC_ROUNDS: i64 = 120;

const FAUCET_AMOUNT: i64 = 285 * UNIT / 100;
const HOLDING_RATE: &str = "0.0038051800";
const AMULET_PRICE: &str = "0.0050000000";

/// A contract the generator keeps a handle on.
#[derive(Clone, Debug)]
pub struct Con {
    pub cid: String,
    pub tpl: Tpl,
    pub sigs: Vec<PartyIdx>,
    pub obs: Vec<PartyIdx>,
}

/// The contract of a vote request not created yet (signed by the DSO): its id comes when the
/// request is submitted.
fn pending_request(dso: PartyIdx) -> Con {
    Con {
        cid: String::new(),
        tpl: Tpl::VoteRequest,
        sigs: vec![dso],
        obs: vec![],
    }
}

#[derive(Clone, Debug)]
struct Holding {
    con: Con,
    amount: i64,
}

#[derive(Clone, Debug)]
struct Coupon {
    con: Con,
    amount: i64,
    input_tag: &'static str,
}

#[derive(Clone, Debug)]
struct Locked {
    con: Con,
    owner: PartyIdx,
    holder: PartyIdx,
    amount: i64,
    expires_at: i64,
}

#[derive(Clone, Debug)]
struct ValState {
    party: PartyIdx,
    license: Option<Con>,
    wallet: Option<Con>,
    onboard_round: i64,
    reliability: f64,
    down: Option<(i64, i64)>,
    first: Option<i64>,
    last: Option<i64>,
    missed: i64,
}

#[derive(Clone, Debug)]
struct Featured {
    provider: PartyIdx,
    create: CreateNode,
    created_at: i64,
    sync: SyncIdx,
    counter: i64,
    in_flight: Option<String>,
}

#[derive(Clone, Debug)]
struct Vote {
    id: u32,
    con: Con,
    /// The contract id of the request as first created: its `trackingCid` once a vote has
    /// re-created it (empty before it is created).
    first_cid: String,
    requester: usize,
    target: usize,
    new_weight: i64,
    /// The request's `action`.
    action: Value,
    /// (sv index, accept, round to cast in)
    casts: Vec<(usize, bool, i64)>,
    votes: Vec<(usize, bool, i64)>,
    close_round: i64,
    vote_before: i64,
    /// `targetEffectiveAt`, when set.
    target_effective_at: Option<i64>,
    /// Votes of SVs offboarded since: (name, the vote's JSON).
    offboarded_votes: Vec<(String, Value)>,
    /// How a scripted request ends (`None`: one of the regular weight votes).
    script: Option<scripted::Ending>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TcOutcome {
    Send,
    Fail,
    Expire,
    Withdraw,
}

/// What a transfer command asks for.
#[derive(Clone, Debug)]
struct TcOrder {
    sender: PartyIdx,
    receiver: PartyIdx,
    amount: i64,
    nonce: i64,
}

impl TcOrder {
    /// The next transfer command of `sender` on `l` (with its next nonce).
    fn new(l: &Ledger, sender: PartyIdx, receiver: PartyIdx, amount: i64) -> TcOrder {
        TcOrder {
            sender,
            receiver,
            amount,
            nonce: l.next_nonce(sender),
        }
    }
}

#[derive(Clone, Debug)]
struct PendingTc {
    con: Con,
    order: TcOrder,
    resolve_round: i64,
    outcome: TcOutcome,
}

/// A transfer output: receiver, amount, and an optional lock (holder, expiry).
type Output = (PartyIdx, i64, Option<(PartyIdx, i64)>);

/// One step of the bootstrap phase.
type BootStep = Box<dyn FnMut(&mut Generator, &mut Ledger)>;

/// Extra facts about a transaction being finished.
#[derive(Default)]
struct TxMeta {
    sync: SyncIdx,
    submitters: Vec<PartyIdx>,
    command: &'static str,
    external: bool,
    rejectable: bool,
    app_provider: Option<PartyIdx>,
    workflow: Option<String>,
}

impl TxMeta {
    fn new(submitters: Vec<PartyIdx>, command: &'static str) -> TxMeta {
        TxMeta {
            submitters,
            command,
            ..TxMeta::default()
        }
    }
}

#[derive(Clone, Debug)]
pub struct Generator {
    net: Arc<Network>,
    rng: Rng,
    round: i64,
    migration: i64,
    now: i64,
    last_time: i64,
    queue: VecDeque<Intent>,
    /// Live: when the running round's plan started, and how long the last one took. A live
    /// round is a plan run at the server's rate (about 45 s at one update a second), not ten
    /// minutes, so the rounds' `opensAt` follow that length to stay true to the clock.
    live_round_start: Option<i64>,
    live_round_len: Option<i64>,
    /// Live: updates per second, which gives the first live round its expected length (its
    /// plan's size over the rate) before one has been measured.
    live_rate: Option<f64>,
    /// The last round of a history that goes live: the round it opens (two ahead) opens at
    /// `.0`, a live round's length `.1` apart from the next, instead of twenty minutes ahead.
    junction: Option<(i64, i64)>,
    tc_from_round: i64,
    amulet_rules: Option<Con>,
    ext_rules: Option<Con>,
    dso_rules: Option<Con>,
    dso_epoch: i64,
    sv_weights: Vec<i64>,
    open: VecDeque<(i64, Con)>,
    summarizing: VecDeque<(i64, Con)>,
    issuing: VecDeque<(i64, Con)>,
    sv_reward_state: Vec<Option<(Con, i64)>>,
    sv_status: Vec<Option<Con>>,
    validators: Vec<ValState>,
    wallets: HashMap<PartyIdx, Con, RandomState>,
    preapprovals: HashMap<PartyIdx, Con, RandomState>,
    amulets: HashMap<PartyIdx, Vec<Holding>, RandomState>,
    locked: Vec<Locked>,
    coupons: HashMap<PartyIdx, Vec<Coupon>, RandomState>,
    featured: Vec<Featured>,
    votes: Vec<Vote>,
    next_vote: u32,
    /// The random stream of the scripted governance (see `scripted`), apart from `rng` so the
    /// rest of the history is the same with or without it.
    script_rng: Rng,
    /// The random stream of the wholly private transactions (see `nodes`), apart from `rng`.
    private_rng: Rng,
    dev_unclaimed: VecDeque<(Con, i64)>,
    tcs: Vec<PendingTc>,
}

fn round_obj(r: i64) -> Value {
    json!({ "number": r.to_string() })
}

fn micros_obj(m: i64) -> Value {
    json!({ "microseconds": m.to_string() })
}

fn transfer_config() -> Value {
    json!({
        "createFee": {"fee": "0.0300000000"},
        "holdingFee": {"rate": "0.0000190259"},
        "transferFee": {
            "initialRate": "0.0100000000",
            "steps": [
                {"_1": "100.0000000000", "_2": "0.0010000000"},
                {"_1": "1000.0000000000", "_2": "0.0001000000"},
                {"_1": "1000000.0000000000", "_2": "0.0000100000"}
            ]
        },
        "lockHolderFee": {"fee": "0.0050000000"},
        "extraFeaturedAppRewardAmount": "1.0000000000",
        "maxNumInputs": "100",
        "maxNumOutputs": "100",
        "maxNumLockHolders": "50"
    })
}

fn issuance_config() -> Value {
    json!({
        "amuletToIssuePerYear": "40000000000.0000000000",
        "validatorRewardPercentage": "0.0500000000",
        "appRewardPercentage": "0.1500000000",
        "validatorRewardCap": "0.2000000000",
        "featuredAppRewardCap": "100.0000000000",
        "unfeaturedAppRewardCap": "0.6000000000",
        "optValidatorFaucetCap": "2.8500000000"
    })
}

impl Generator {
    fn new(net: Arc<Network>, seed: u64) -> Generator {
        let mut rng = Rng::new(seed);
        let n_val = net.validators.len();
        let validators = net
            .validators
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let late = [ROUNDS / 4, ROUNDS / 2, ROUNDS * 2 / 3, ROUNDS - 30];
                let onboard_round = if i + 4 >= n_val {
                    late[i + 4 - n_val]
                } else {
                    -1
                };
                let reliability = match i {
                    0 => 0.995,
                    7 => 0.6,
                    _ if i % 6 == 5 => 0.85,
                    _ => 0.97,
                };
                let down = (i % 8 == 3).then(|| {
                    let s = ROUNDS / 3 + rng.range(0, 40);
                    (s, s + rng.range(5, 15))
                });
                ValState {
                    party: *p,
                    license: None,
                    wallet: None,
                    onboard_round,
                    reliability,
                    down,
                    first: None,
                    last: None,
                    missed: 0,
                }
            })
            .collect();
        let sv_weights = net.svs.iter().map(|s| s.initial_weight).collect();
        let n_sv = net.svs.len();
        Generator {
            net,
            rng,
            round: 0,
            migration: 0,
            now: 0,
            last_time: 0,
            queue: VecDeque::new(),
            live_round_start: None,
            live_round_len: None,
            live_rate: None,
            junction: None,
            tc_from_round: ROUNDS - TC_ROUNDS,
            amulet_rules: None,
            ext_rules: None,
            dso_rules: None,
            dso_epoch: 0,
            sv_weights,
            open: VecDeque::new(),
            summarizing: VecDeque::new(),
            issuing: VecDeque::new(),
            sv_reward_state: vec![None; n_sv],
            sv_status: vec![None; n_sv],
            validators,
            wallets: HashMap::default(),
            preapprovals: HashMap::default(),
            amulets: HashMap::default(),
            locked: Vec::new(),
            coupons: HashMap::default(),
            featured: Vec::new(),
            votes: Vec::new(),
            next_vote: 0,
            script_rng: Rng::new(seed ^ 0x5c41_97e0_3d2b_a6f1),
            private_rng: Rng::new(seed ^ 0x7e1a_c0de_5eed_0037),
            dev_unclaimed: VecDeque::new(),
            tcs: Vec::new(),
        }
    }

    fn dso(&self) -> PartyIdx {
        self.net.dso
    }

    fn pid(&self, p: PartyIdx) -> Value {
        Value::String(self.net.party_id(p).to_string())
    }

    fn validator_of(&self, user: PartyIdx) -> PartyIdx {
        let p = self.net.party(user);
        match p.kind {
            PartyKind::User => p.validator.unwrap_or(self.net.validators[0]),
            _ => user,
        }
    }

    fn stake(&self, tpl: Tpl, a: PartyIdx, b: Option<PartyIdx>) -> (Vec<PartyIdx>, Vec<PartyIdx>) {
        let d = self.dso();
        let b = b.unwrap_or(a);
        match tpl {
            Tpl::Amulet | Tpl::ValidatorFaucetCoupon | Tpl::ValidatorLivenessActivityRecord => {
                (vec![d, a], vec![])
            }
            Tpl::LockedAmulet => {
                let mut s = vec![d, a];
                if b != a {
                    s.push(b);
                }
                (s, vec![])
            }
            Tpl::ValidatorRewardCoupon
            | Tpl::AppRewardCoupon
            | Tpl::SvRewardCoupon
            | Tpl::ValidatorLicense
            | Tpl::FeaturedAppRight
            | Tpl::SvStatusReport => (vec![d], vec![a]),
            Tpl::FeaturedAppActivityMarker => (vec![d, a], vec![]),
            Tpl::DevelopmentFundCoupon => {
                let mut o = vec![a];
                if b != a {
                    o.push(b);
                }
                (vec![d], o)
            }
            Tpl::TransferCommand => (vec![a], vec![d, b]),
            Tpl::WalletAppInstall => (vec![b], if a == b { vec![] } else { vec![a] }),
            Tpl::ValidatorRight => (vec![a], if a == b { vec![] } else { vec![b] }),
            Tpl::TransferPreapproval => (vec![a, b], vec![d]),
            _ => (vec![d], vec![]),
        }
    }

    fn open_round(&self) -> Option<Con> {
        self.open.front().map(|(_, c)| c.clone())
    }

    fn set_time(&mut self, t: i64) {
        self.now = t.max(self.last_time + 1);
        self.last_time = self.now;
    }

    /// How long a round lasts: ten minutes, or live the length of the last live round.
    pub(super) fn round_len(&self) -> i64 {
        self.live_round_len.unwrap_or(ROUND_LEN)
    }

    /// When round `r` opens, `rounds_ahead` rounds after the running one (`self.round`). Live
    /// rounds vary in length with their plans, so live a round opens one round earlier: the
    /// oldest open round has always opened, as on a real network.
    pub(super) fn opens_at(&self, r: i64, rounds_ahead: i64) -> i64 {
        let ahead = (r - self.round + rounds_ahead).max(0);
        if let Some((at, len)) = self.junction
            && ahead >= 2
        {
            return at + (ahead - 2) * len;
        }
        let ahead = if self.live_round_len.is_some() {
            (ahead - 1).max(0)
        } else {
            ahead
        };
        self.now + ahead * self.round_len()
    }

    fn pick_user(&mut self) -> PartyIdx {
        self.net.users[self.rng.index(self.net.users.len())]
    }

    fn pick_other(&mut self, not: PartyIdx) -> PartyIdx {
        loop {
            let u = self.pick_user();
            if u != not {
                return u;
            }
        }
    }

    /// Sets the live rate (updates per second) before the first live update.
    pub(crate) fn set_live_rate(&mut self, rate: f64) {
        self.live_rate = Some(rate);
    }

    /// Appends one live update at (or just after) `now`.
    pub(crate) fn live_step(&mut self, l: &mut Ledger, now: i64) {
        let before = l.len();
        for _ in 0..10_000 {
            let Some(intent) = self.queue.pop_front() else {
                if let Some(start) = self.live_round_start {
                    self.live_round_len = Some((now - start).max(1));
                }
                self.live_round_start = Some(now);
                self.round += 1;
                let plan = self.plan_round(self.round);
                if self.live_round_len.is_none()
                    && let Some(rate) = self.live_rate.filter(|r| *r > 0.0)
                {
                    // The first live round: its plan's length at the rate, so the round it
                    // opens does not open ten minutes ahead (after the live rounds that
                    // follow it within a minute).
                    let secs = plan.len() as f64 / rate;
                    self.live_round_len = Some(((secs * 1e6) as i64).max(1));
                }
                self.queue.extend(plan.into_iter().map(|(_, i)| i));
                continue;
            };
            self.set_time(now);
            self.run(l, intent);
            if l.len() > before {
                return;
            }
        }
    }
}

/// Generates the history of `seed` ending just before `generated_at` (microseconds), on a
/// network of `svs` SVs ([`Network::with_svs`]: the history is the same for any number, only the
/// SV list of the `DsoRules` contracts grows), for a still network.
#[cfg(test)]
pub fn generate_history(seed: u64, generated_at: i64, svs: usize) -> (Ledger, Generator) {
    let mut h = history_before_last_round(seed, generated_at, svs);
    h.finish(None);
    (h.ledger, h.generator)
}

/// A generated history without its last round, which [`Unfinished::finish`] adds: for a still
/// network as every other round, or for a network that goes live, whose last round opens its
/// new round at the live pace.
#[derive(Clone, Debug)]
pub struct Unfinished {
    pub ledger: Ledger,
    pub generator: Generator,
    /// When the history's first round started (µs).
    start: i64,
}

/// A demo network that goes live at `at` (µs) with `rate` updates per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GoesLive {
    pub at: i64,
    pub rate: f64,
}

/// The history of [`generate_history`] before its last round.
pub fn history_before_last_round(seed: u64, generated_at: i64, svs: usize) -> Unfinished {
    let net = Arc::new(Network::with_svs(seed, svs));
    let mut g = Generator::new(Arc::clone(&net), seed);
    let mut l = Ledger::new(net);
    let end = generated_at - 1_500_000;
    let start = end - ROUNDS * ROUND_LEN;
    g.round = 0;
    g.bootstrap(&mut l, start - 6 * MINUTE, start - 10 * SECOND);
    for r in 0..ROUNDS - 1 {
        g.begin_history_round(r);
        let plan = g.plan_round(r);
        g.run_history_plan(&mut l, start, r, plan);
    }
    Unfinished {
        ledger: l,
        generator: g,
        start,
    }
}

impl Unfinished {
    /// Adds the history's last round. Its mining round advance opens a round two ahead: twenty
    /// minutes ahead on a still network, as every history round does. On a network that goes
    /// live (`live`), whose rounds last as long as a plan takes at the rate (under a minute at
    /// 20 updates a second), that round would be the next to open for the first two live
    /// rounds, ten minutes out while the live rounds move every few seconds; so it opens during
    /// the first live round instead (half the expected live round after the first live update),
    /// and the open rounds the demo serves agree with the live pace from its first second.
    pub fn finish(&mut self, live: Option<GoesLive>) {
        let (l, g) = (&mut self.ledger, &mut self.generator);
        let r = ROUNDS - 1;
        g.begin_history_round(r);
        let mut plan = g.plan_round(r);
        // The newest update lands about a second before the end of history.
        if let Some(last) = plan.last_mut() {
            last.0 = ROUND_LEN - SECOND;
        }
        if let Some(live) = live.filter(|l| l.rate > 0.0) {
            let tick = (1.0 / live.rate).max(0.02);
            let round_len = ((plan.len() as f64 / live.rate) * 1e6) as i64;
            let first_update = live.at + (tick * 1e6) as i64;
            g.junction = Some((first_update + round_len / 2, round_len.max(1)));
        }
        g.run_history_plan(l, self.start, r, plan);
        g.junction = None;
        l.initial_len = l.len();
    }
}

impl Generator {
    /// Enters history round `r` (the migration changes at [`MIGRATION_ROUND`]).
    fn begin_history_round(&mut self, r: i64) {
        self.round = r;
        if r == MIGRATION_ROUND {
            self.migration = 1;
        }
    }

    /// Runs `plan`, history round `r`'s (of a history whose first round started at `start`).
    fn run_history_plan(&mut self, l: &mut Ledger, start: i64, r: i64, plan: Vec<(i64, Intent)>) {
        for (off, intent) in plan {
            self.set_time(start + r * ROUND_LEN + off);
            self.run(l, intent);
        }
    }
}

#[cfg(test)]
mod tests;
