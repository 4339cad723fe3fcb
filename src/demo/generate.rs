//! Generates the demo history (deterministic from the seed) and keeps producing updates in live
//! mode. The generator plans each mining round as a list of intents (round lifecycle, liveness,
//! SV rewards, transfers, governance, transfer commands, reassignments…) placed in the round's
//! ten-minute window, runs them in time order and commits each resulting update to the ledger.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use serde_json::{Value, json};

use super::ledger::{
    Body, CreateNode, ExerciseNode, Ledger, Node, Reassign, ReassignKind, Tx, Update,
};
use super::network::{APP, GLOBAL, Network, PartyIdx, PartyKind, SyncIdx, Tpl};
use super::util::{HOUR, MINUTE, Rng, SECOND, UNIT, fmt_amount, fmt_time6};

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
    requester: usize,
    target: usize,
    new_weight: i64,
    /// (sv index, accept, round to cast in)
    casts: Vec<(usize, bool, i64)>,
    votes: Vec<(usize, bool, i64)>,
    close_round: i64,
    vote_before: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TcOutcome {
    Send,
    Fail,
    Expire,
    Withdraw,
}

#[derive(Clone, Debug)]
struct PendingTc {
    con: Con,
    sender: PartyIdx,
    receiver: PartyIdx,
    amount: i64,
    nonce: i64,
    resolve_round: i64,
    outcome: TcOutcome,
}

#[derive(Clone, Debug)]
enum Intent {
    Advance,
    StartIssuing,
    Close,
    SvReward(usize),
    Liveness(usize),
    StatusReport(usize),
    Transfer,
    Payroll,
    LockedTransfer,
    Unlock,
    Tap,
    PreapprovalSend,
    Collect(usize),
    RequestVote,
    CastVote(u32, usize),
    CloseVote(u32),
    AllocateDevFund,
    Unassign(usize),
    Assign(usize),
    ActivityMarker(usize),
    CreateTc,
    ResolveTc(String),
    OnboardValidator(usize),
    InstallWallet(usize),
}

/// A transfer output: receiver, amount, and an optional lock (holder, expiry).
type Output = (PartyIdx, i64, Option<(PartyIdx, i64)>);

/// One step of the bootstrap phase.
type BootStep = Box<dyn FnMut(&mut Generator, &mut Ledger)>;

/// Builds one transaction tree in pre-order (a node's subtree is added right after it).
struct TreeB {
    nodes: Vec<Node>,
    roots: Vec<u32>,
}

impl TreeB {
    fn new() -> TreeB {
        TreeB {
            nodes: Vec::new(),
            roots: Vec::new(),
        }
    }

    fn add(&mut self, parent: Option<u32>, node: Node) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(node);
        match parent {
            None => self.roots.push(id),
            Some(p) => {
                if let Some(Node::Exercise(e)) = self.nodes.get_mut(p as usize) {
                    e.children.push(id);
                }
            }
        }
        id
    }

    fn set_result(&mut self, id: u32, result: Value) {
        if let Some(Node::Exercise(e)) = self.nodes.get_mut(id as usize) {
            e.result = result;
        }
    }

    fn finish(mut self) -> (Vec<Node>, Vec<u32>) {
        let n = self.nodes.len();
        let mut last = vec![0u32; n];
        for i in (0..n).rev() {
            last[i] = match self.nodes[i].children().last() {
                Some(c) => last[*c as usize],
                None => i as u32,
            };
        }
        for (i, node) in self.nodes.iter_mut().enumerate() {
            if let Node::Exercise(e) = node {
                e.last_descendant = last[i];
            }
        }
        (self.nodes, self.roots)
    }
}

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

#[derive(Clone, Debug)]
pub struct Generator {
    net: Arc<Network>,
    rng: Rng,
    round: i64,
    migration: i64,
    now: i64,
    last_time: i64,
    queue: VecDeque<Intent>,
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
    wallets: HashMap<PartyIdx, Con>,
    preapprovals: HashMap<PartyIdx, Con>,
    amulets: HashMap<PartyIdx, Vec<Holding>>,
    locked: Vec<Locked>,
    coupons: HashMap<PartyIdx, Vec<Coupon>>,
    featured: Vec<Featured>,
    votes: Vec<Vote>,
    next_vote: u32,
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
            wallets: HashMap::new(),
            preapprovals: HashMap::new(),
            amulets: HashMap::new(),
            locked: Vec::new(),
            coupons: HashMap::new(),
            featured: Vec::new(),
            votes: Vec::new(),
            next_vote: 0,
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

    // -----------------------------------------------------------------------------------------
    // Node helpers

    fn create(
        &mut self,
        b: &mut TreeB,
        parent: Option<u32>,
        tpl: Tpl,
        args: Value,
        (sigs, obs): (Vec<PartyIdx>, Vec<PartyIdx>),
    ) -> Con {
        let cid = self.rng.contract_id();
        b.add(
            parent,
            Node::Create(CreateNode {
                contract_id: cid.clone(),
                tpl,
                args,
                signatories: sigs.clone(),
                observers: obs.clone(),
            }),
        );
        Con {
            cid,
            tpl,
            sigs,
            obs,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn exercise(
        &self,
        b: &mut TreeB,
        parent: Option<u32>,
        con: &Con,
        choice: &'static str,
        argument: Value,
        consuming: bool,
        actors: Vec<PartyIdx>,
    ) -> u32 {
        b.add(
            parent,
            Node::Exercise(ExerciseNode {
                contract_id: con.cid.clone(),
                tpl: con.tpl,
                choice,
                argument,
                result: json!({}),
                consuming,
                actors,
                signatories: con.sigs.clone(),
                observers: con.obs.clone(),
                children: Vec::new(),
                last_descendant: 0,
            }),
        )
    }

    fn archive(&self, b: &mut TreeB, parent: Option<u32>, con: &Con, actors: Vec<PartyIdx>) {
        self.exercise(b, parent, con, "Archive", json!({}), true, actors);
    }

    fn fetch(&self, b: &mut TreeB, parent: Option<u32>, con: &Con) {
        b.add(
            parent,
            Node::Fetch {
                contract_id: con.cid.clone(),
                tpl: con.tpl,
            },
        );
    }

    fn open_round(&self) -> Option<Con> {
        self.open.front().map(|(_, c)| c.clone())
    }

    fn finish(&mut self, l: &mut Ledger, b: TreeB, meta: TxMeta) {
        let (nodes, roots) = b.finish();
        let update_id = self.rng.fingerprint();
        let external_hash = meta.external.then(|| self.rng.hex(64));
        let rejected = meta.rejectable && self.rng.chance(0.05);
        let effective_at = self.now - self.rng.range(40_000, 600_000);
        let finalization_delay = self.rng.range(20_000, 1_400_000);
        let command_id = format!("{}-{}", meta.command, self.rng.hex(10));
        let tx = Tx {
            workflow_id: meta.workflow.unwrap_or_default(),
            command_id,
            sync: meta.sync,
            effective_at,
            nodes,
            roots,
            external_hash,
            rejected,
            round: self.round.max(0) as u64,
            submitters: meta.submitters,
            app_provider: meta.app_provider,
            finalization_delay,
        };
        l.commit(Update {
            update_id,
            migration_id: self.migration,
            record_time: self.now,
            body: Body::Tx(tx),
        });
    }

    fn amulet_args(&self, owner: PartyIdx, amount: i64) -> Value {
        json!({
            "dso": self.pid(self.dso()),
            "owner": self.pid(owner),
            "amount": {
                "initialAmount": fmt_amount(amount),
                "createdAt": round_obj(self.round.max(0)),
                "ratePerRound": {"rate": HOLDING_RATE}
            }
        })
    }

    fn create_amulet(
        &mut self,
        b: &mut TreeB,
        parent: Option<u32>,
        owner: PartyIdx,
        amount: i64,
    ) -> Con {
        let args = self.amulet_args(owner, amount);
        let st = self.stake(Tpl::Amulet, owner, None);
        let con = self.create(b, parent, Tpl::Amulet, args, st);
        self.amulets.entry(owner).or_default().push(Holding {
            con: con.clone(),
            amount,
        });
        con
    }

    fn balance(&self, p: PartyIdx) -> i64 {
        self.amulets
            .get(&p)
            .map_or(0, |v| v.iter().map(|h| h.amount).sum())
    }

    /// Takes amulets of `p` covering `need` (largest first), at most `max` of them.
    fn take_inputs(&mut self, p: PartyIdx, need: i64, max: usize) -> Vec<Holding> {
        let Some(list) = self.amulets.get_mut(&p) else {
            return Vec::new();
        };
        list.sort_by_key(|h| std::cmp::Reverse(h.amount));
        let mut take = 0;
        let mut sum = 0;
        while take < list.len() && take < max && sum < need {
            sum += list[take].amount;
            take += 1;
        }
        list.drain(..take).collect()
    }

    // -----------------------------------------------------------------------------------------
    // The AmuletRules_Transfer subtree

    /// Adds `AmuletRules_Transfer` under `parent`: archives the inputs, creates the outputs, the
    /// sender's change and the reward coupons. Returns the created output contracts.
    #[allow(clippy::too_many_arguments)]
    fn transfer_subtree(
        &mut self,
        b: &mut TreeB,
        parent: Option<u32>,
        sender: PartyIdx,
        inputs: Vec<Holding>,
        extra_inputs: Vec<Coupon>,
        outputs: &[Output],
        with_coupons: bool,
    ) -> (Vec<Con>, Option<Con>) {
        let Some(rules) = self.amulet_rules.clone() else {
            return (Vec::new(), None);
        };
        let dso = self.dso();
        let provider = self.validator_of(sender);
        let total_in: i64 = inputs.iter().map(|h| h.amount).sum::<i64>()
            + extra_inputs.iter().map(|c| c.amount).sum::<i64>();
        let out_total: i64 = outputs.iter().map(|o| o.1).sum();
        let fee: i64 = outputs.len() as i64 * (3 * UNIT / 100) + out_total / 1000;
        let change = total_in - out_total - fee;
        let mut input_json: Vec<Value> = inputs
            .iter()
            .map(|h| json!({"tag": "InputAmulet", "value": h.con.cid}))
            .collect();
        input_json.extend(
            extra_inputs
                .iter()
                .map(|c| json!({"tag": c.input_tag, "value": c.con.cid})),
        );
        let out_json: Vec<Value> = outputs
            .iter()
            .map(|(r, a, lock)| {
                json!({
                    "receiver": self.pid(*r),
                    "receiverFeeRatio": "0.0000000000",
                    "amount": fmt_amount(*a),
                    "lock": lock.map(|(h, exp)| json!({
                        "holders": [self.pid(h)],
                        "expiresAt": fmt_time6(exp),
                        "optContext": "payment escrow"
                    })),
                })
            })
            .collect();
        let open = self.open_round();
        let arg = json!({
            "transfer": {
                "sender": self.pid(sender),
                "provider": self.pid(provider),
                "inputs": input_json,
                "outputs": out_json,
                "beneficiaries": null
            },
            "context": {
                "openMiningRound": open.as_ref().map(|c| c.cid.clone()),
                "issuingMiningRounds": [],
                "validatorRights": [],
                "featuredAppRight": null
            },
            "expectedDso": self.pid(dso)
        });
        let t = self.exercise(
            b,
            parent,
            &rules,
            "AmuletRules_Transfer",
            arg,
            false,
            vec![sender],
        );
        if let Some(open) = &open {
            self.fetch(b, Some(t), open);
        }
        for h in &inputs {
            self.archive(b, Some(t), &h.con, vec![dso, sender]);
        }
        for c in &extra_inputs {
            self.archive(b, Some(t), &c.con, vec![dso, sender]);
        }
        let mut created = Vec::new();
        for (r, a, lock) in outputs {
            match lock {
                None => created.push(self.create_amulet(b, Some(t), *r, *a)),
                Some((holder, exp)) => {
                    let args = json!({
                        "amulet": self.amulet_args(*r, *a),
                        "lock": {
                            "holders": [self.pid(*holder)],
                            "expiresAt": fmt_time6(*exp),
                            "optContext": "payment escrow"
                        }
                    });
                    let st = self.stake(Tpl::LockedAmulet, *r, Some(*holder));
                    let con = self.create(b, Some(t), Tpl::LockedAmulet, args, st);
                    self.locked.push(Locked {
                        con: con.clone(),
                        owner: *r,
                        holder: *holder,
                        amount: *a,
                        expires_at: *exp,
                    });
                    created.push(con);
                }
            }
        }
        let change_con = (change > 0).then(|| self.create_amulet(b, Some(t), sender, change));
        if with_coupons && fee > 0 {
            let round = round_obj(self.round.max(0));
            let app = json!({
                "dso": self.pid(dso), "provider": self.pid(provider), "featured": false,
                "amount": fmt_amount(fee / 2), "round": round, "beneficiary": self.pid(provider)
            });
            let st = self.stake(Tpl::AppRewardCoupon, provider, None);
            let app_con = self.create(b, Some(t), Tpl::AppRewardCoupon, app, st);
            let val = json!({
                "dso": self.pid(dso), "user": self.pid(provider),
                "amount": fmt_amount(fee / 2), "round": round
            });
            let st = self.stake(Tpl::ValidatorRewardCoupon, provider, None);
            let val_con = self.create(b, Some(t), Tpl::ValidatorRewardCoupon, val, st);
            let pool = self.coupons.entry(provider).or_default();
            pool.push(Coupon {
                con: app_con,
                amount: fee / 2,
                input_tag: "InputAppRewardCoupon",
            });
            pool.push(Coupon {
                con: val_con,
                amount: fee / 2,
                input_tag: "InputValidatorRewardCoupon",
            });
        }
        let result = json!({
            "round": round_obj(self.round.max(0)),
            "summary": {
                "inputAppRewardAmount": "0.0000000000",
                "inputValidatorRewardAmount": fmt_amount(extra_inputs.iter().map(|c| c.amount).sum()),
                "inputSvRewardAmount": "0.0000000000",
                "inputAmuletAmount": fmt_amount(inputs.iter().map(|h| h.amount).sum()),
                "holdingFees": "0.0000000000",
                "outputFees": outputs.iter().map(|_| fmt_amount(3 * UNIT / 100)).collect::<Vec<_>>(),
                "senderChangeFee": fmt_amount(fee - outputs.len() as i64 * (3 * UNIT / 100)),
                "senderChangeAmount": fmt_amount(change.max(0)),
                "amuletPrice": AMULET_PRICE
            },
            "createdAmulets": created.iter().map(|c| json!({
                "tag": if c.tpl == Tpl::LockedAmulet { "TransferResultLockedAmulet" } else { "TransferResultAmulet" },
                "value": c.cid
            })).collect::<Vec<_>>(),
            "senderChangeAmulet": change_con.as_ref().map(|c| c.cid.clone()),
            "meta": null
        });
        b.set_result(t, result);
        (created, change_con)
    }

    // -----------------------------------------------------------------------------------------
    // Bootstrap

    fn bootstrap(&mut self, l: &mut Ledger, from: i64, to: i64) {
        let n_val = self.net.validators.len();
        let n_users = self.net.users.len();
        let mut intents: Vec<BootStep> = Vec::new();
        intents.push(Box::new(|g, l| g.dso_bootstrap(l)));
        for v in 0..n_val {
            if self.validators[v].onboard_round < 0 {
                intents.push(Box::new(move |g, l| g.onboard_validator(l, v)));
                intents.push(Box::new(move |g, l| g.install_validator_wallet(l, v)));
            }
        }
        for u in 0..n_users {
            intents.push(Box::new(move |g, l| g.onboard_user(l, u)));
        }
        for (i, u) in [0usize, 13, 26].into_iter().enumerate() {
            intents.push(Box::new(move |g, l| g.grant_featured(l, u, i)));
        }
        for u in 0..n_users {
            intents.push(Box::new(move |g, l| {
                let p = g.net.users[u];
                let amount = g.rng.range(2_000, 60_000) * UNIT + g.rng.range(0, 99) * UNIT / 100;
                g.tap(l, p, amount);
            }));
        }
        let step = (to - from) / intents.len() as i64;
        for (i, mut f) in intents.into_iter().enumerate() {
            let jitter = self.rng.range(0, step / 2);
            self.set_time(from + i as i64 * step + jitter);
            f(self, l);
        }
    }

    fn set_time(&mut self, t: i64) {
        self.now = t.max(self.last_time + 1);
        self.last_time = self.now;
    }

    fn dso_config(&self) -> Value {
        json!({
            "numUnclaimedRewardsThreshold": "10",
            "numMemberTrafficContractsThreshold": "5",
            "actionConfirmationTimeout": micros_obj(3_600_000_000),
            "svOnboardingRequestTimeout": micros_obj(3_600_000_000),
            "svOnboardingConfirmedTimeout": micros_obj(3_600_000_000),
            "voteRequestTimeout": micros_obj(604_800_000_000),
            "dsoDelegateInactiveTimeout": micros_obj(70_000_000),
            "synchronizerNodeConfigLimits": {"cometBft": {"maxNumCometBftNodes": "2", "maxNumGovernanceKeys": "2", "maxNumSequencingKeys": "2", "maxNodeIdLength": "50", "maxPubKeyLength": "256"}},
            "maxTextLength": "1024",
            "decentralizedSynchronizer": {
                "synchronizers": [[self.net.sync_id(GLOBAL), {"state": "DS_Operational", "cometBftGenesisJson": "", "acsCommitmentReconciliationInterval": "1800"}]],
                "lastSynchronizerId": self.net.sync_id(GLOBAL),
                "activeSynchronizerId": self.net.sync_id(GLOBAL)
            },
            "nextScheduledSynchronizerUpgrade": null
        })
    }

    fn dso_rules_args(&self) -> Value {
        let svs: Vec<Value> = self
            .net
            .svs
            .iter()
            .enumerate()
            .map(|(i, s)| {
                json!([self.net.party_id(s.party), {
                    "name": s.name,
                    "joinedAsOfRound": round_obj(0),
                    "svRewardWeight": self.sv_weights[i].to_string(),
                    "participantId": self.net.participants[s.participant].id
                }])
            })
            .collect();
        json!({
            "dso": self.pid(self.dso()),
            "epoch": self.dso_epoch.to_string(),
            "svs": svs,
            "offboardedSvs": [],
            "dsoDelegate": self.pid(self.net.svs[0].party),
            "config": self.dso_config(),
            "isDevNet": true
        })
    }

    fn open_round_args(&self, r: i64) -> Value {
        json!({
            "dso": self.pid(self.dso()),
            "round": round_obj(r),
            "amuletPrice": AMULET_PRICE,
            "opensAt": fmt_time6(self.now + (r - self.round).max(0) * ROUND_LEN),
            "targetClosesAt": fmt_time6(self.now + (r - self.round + 2).max(0) * ROUND_LEN),
            "issuingFor": micros_obj(r * ROUND_LEN),
            "transferConfigUsd": transfer_config(),
            "issuanceConfig": issuance_config(),
            "tickDuration": micros_obj(ROUND_LEN)
        })
    }

    fn dso_bootstrap(&mut self, l: &mut Ledger) {
        let dso = self.dso();
        let mut b = TreeB::new();
        let sv1 = self.net.svs[0].clone();
        let boot_args = json!({
            "dso": self.pid(dso),
            "sv1Party": self.pid(sv1.party),
            "sv1Name": sv1.name,
            "sv1RewardWeight": sv1.initial_weight.to_string(),
            "sv1ParticipantId": self.net.participants[sv1.participant].id,
            "round0Duration": micros_obj(ROUND_LEN),
            "amuletConfig": {"transferConfig": transfer_config(), "issuanceCurve": {"initialValue": issuance_config(), "futureValues": []}},
            "isDevNet": true
        });
        let boot = self.create(
            &mut b,
            None,
            Tpl::DsoBootstrap,
            boot_args,
            (vec![dso], vec![]),
        );
        let x = self.exercise(
            &mut b,
            None,
            &boot,
            "DsoBootstrap_Bootstrap",
            json!({}),
            true,
            vec![dso],
        );
        let rules_args = json!({
            "dso": self.pid(dso),
            "configSchedule": {"initialValue": {"transferConfig": transfer_config(), "issuanceCurve": {"initialValue": issuance_config(), "futureValues": []}, "decentralizedSynchronizer": {"requiredSynchronizers": {"map": [[self.net.sync_id(GLOBAL), {}]]}, "activeSynchronizer": self.net.sync_id(GLOBAL), "fees": {"baseRateTrafficLimits": {"burstAmount": "400000", "burstWindow": micros_obj(1_200_000_000)}, "extraTrafficPrice": "16.6700000000", "readVsWriteScalingFactor": "4", "minTopupAmount": "200000"}}, "tickDuration": micros_obj(ROUND_LEN), "packageConfig": {"amulet": "0.1.14", "amuletNameService": "0.1.15", "dsoGovernance": "0.1.19", "validatorLifecycle": "0.1.5", "wallet": "0.1.14", "walletPayments": "0.1.14"}, "transferPreapprovalFee": null, "featuredAppActivityMarkerAmount": "1.0000000000"}, "futureValues": []},
            "isDevNet": true
        });
        let rules = self.create(
            &mut b,
            Some(x),
            Tpl::AmuletRules,
            rules_args,
            (vec![dso], vec![]),
        );
        self.amulet_rules = Some(rules.clone());
        let ext = self.create(
            &mut b,
            Some(x),
            Tpl::ExternalPartyAmuletRules,
            json!({"dso": self.pid(dso)}),
            (vec![dso], vec![]),
        );
        self.ext_rules = Some(ext);
        let br = self.exercise(
            &mut b,
            Some(x),
            &rules,
            "AmuletRules_Bootstrap_Rounds",
            json!({"amuletPrice": AMULET_PRICE, "round0Duration": micros_obj(ROUND_LEN), "initialRound": null}),
            false,
            vec![dso],
        );
        for r in 0..3 {
            let args = self.open_round_args(r);
            let c = self.create(
                &mut b,
                Some(br),
                Tpl::OpenMiningRound,
                args,
                (vec![dso], vec![]),
            );
            self.open.push_back((r, c));
        }
        let first_open = self.open.front().map(|(_, c)| c.cid.clone());
        b.set_result(
            br,
            json!({"openMiningRoundCid": first_open, "initialRound": null}),
        );
        let dso_args = self.dso_rules_args();
        let rules_con = self.create(
            &mut b,
            Some(x),
            Tpl::DsoRules,
            dso_args,
            (vec![dso], vec![]),
        );
        self.dso_rules = Some(rules_con);
        for i in 0..self.net.svs.len() {
            let args = json!({
                "dso": self.pid(dso),
                "svName": self.net.svs[i].name,
                "state": {"numRoundsMissed": "0", "numRoundsCollected": "0", "lastRoundCollected": {"number": "-1"}, "numCouponsIssued": "0"}
            });
            let c = self.create(
                &mut b,
                Some(x),
                Tpl::SvRewardState,
                args,
                (vec![dso], vec![]),
            );
            self.sv_reward_state[i] = Some((c, 0));
        }
        // As on MainNet, some results arrive as a plain string.
        b.set_result(x, json!("DsoBootstrap_BootstrapResult"));
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![dso],
                command: "dso-bootstrap",
                ..TxMeta::default()
            },
        );
    }

    fn onboard_validator(&mut self, l: &mut Ledger, v: usize) {
        let Some(rules) = self.dso_rules.clone() else {
            return;
        };
        let dso = self.dso();
        let val = self.validators[v].party;
        let sponsor = self.net.svs[v % self.net.svs.len()].party;
        let mut b = TreeB::new();
        let x = self.exercise(
            &mut b,
            None,
            &rules,
            "DsoRules_OnboardValidator",
            json!({"sponsor": self.pid(sponsor), "validator": self.pid(val), "version": "0.4.2", "contactPoint": format!("ops@{}.example", self.net.party(val).name)}),
            false,
            vec![sponsor],
        );
        let args = json!({
            "validator": self.pid(val),
            "sponsor": self.pid(sponsor),
            "dso": self.pid(dso),
            "faucetState": null,
            "metadata": {"lastUpdatedAt": fmt_time6(self.now), "version": "0.4.2", "contactPoint": format!("ops@{}.example", self.net.party(val).name)},
            "lastActiveAt": fmt_time6(self.now)
        });
        let st = self.stake(Tpl::ValidatorLicense, val, None);
        let lic = self.create(&mut b, Some(x), Tpl::ValidatorLicense, args, st);
        b.set_result(x, json!({"validatorLicense": lic.cid}));
        self.validators[v].license = Some(lic);
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![sponsor],
                command: "onboard-validator",
                ..TxMeta::default()
            },
        );
    }

    fn install_validator_wallet(&mut self, l: &mut Ledger, v: usize) {
        let val = self.validators[v].party;
        let mut b = TreeB::new();
        let args = json!({
            "dsoParty": self.pid(self.dso()),
            "validatorParty": self.pid(val),
            "endUserName": format!("{}-operator", self.net.party(val).name),
            "endUserParty": self.pid(val)
        });
        let st = self.stake(Tpl::WalletAppInstall, val, Some(val));
        let w = self.create(&mut b, None, Tpl::WalletAppInstall, args, st);
        self.validators[v].wallet = Some(w);
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![val],
                command: "install-wallet",
                ..TxMeta::default()
            },
        );
    }

    fn onboard_user(&mut self, l: &mut Ledger, u: usize) {
        let user = self.net.users[u];
        let val = self.validator_of(user);
        let dso = self.dso();
        let mut b = TreeB::new();
        let right =
            json!({"dso": self.pid(dso), "user": self.pid(user), "validator": self.pid(val)});
        let st = self.stake(Tpl::ValidatorRight, user, Some(val));
        self.create(&mut b, None, Tpl::ValidatorRight, right, st);
        let args = json!({
            "dsoParty": self.pid(dso),
            "validatorParty": self.pid(val),
            "endUserName": self.net.party(user).name,
            "endUserParty": self.pid(user)
        });
        let st = self.stake(Tpl::WalletAppInstall, user, Some(val));
        let w = self.create(&mut b, None, Tpl::WalletAppInstall, args, st);
        self.wallets.insert(user, w);
        if u.is_multiple_of(3) {
            let args = json!({
                "dso": self.pid(dso),
                "receiver": self.pid(user),
                "provider": self.pid(val),
                "validFrom": fmt_time6(self.now),
                "lastRenewedAt": fmt_time6(self.now),
                "expiresAt": fmt_time6(self.now + 90 * 24 * HOUR)
            });
            let st = self.stake(Tpl::TransferPreapproval, user, Some(val));
            let p = self.create(&mut b, None, Tpl::TransferPreapproval, args, st);
            self.preapprovals.insert(user, p);
        }
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![val],
                command: "onboard-user",
                ..TxMeta::default()
            },
        );
    }

    fn grant_featured(&mut self, l: &mut Ledger, user: usize, _i: usize) {
        let Some(rules) = self.dso_rules.clone() else {
            return;
        };
        let provider = self.net.users[user % self.net.users.len()];
        let dso = self.dso();
        let mut b = TreeB::new();
        let x = self.exercise(
            &mut b,
            None,
            &rules,
            "DsoRules_GrantFeaturedAppRight",
            json!({"provider": self.pid(provider)}),
            false,
            vec![dso],
        );
        let args = json!({"dso": self.pid(dso), "provider": self.pid(provider)});
        let st = self.stake(Tpl::FeaturedAppRight, provider, None);
        let con = self.create(&mut b, Some(x), Tpl::FeaturedAppRight, args.clone(), st);
        b.set_result(x, json!({"featuredAppRight": con.cid}));
        let create = CreateNode {
            contract_id: con.cid.clone(),
            tpl: Tpl::FeaturedAppRight,
            args,
            signatories: con.sigs.clone(),
            observers: con.obs.clone(),
        };
        let created_at = self.now;
        self.featured.push(Featured {
            provider,
            create,
            created_at,
            sync: GLOBAL,
            counter: 0,
            in_flight: None,
        });
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![dso],
                command: "grant-featured-app-right",
                ..TxMeta::default()
            },
        );
    }

    fn tap(&mut self, l: &mut Ledger, user: PartyIdx, amount: i64) {
        let Some(rules) = self.amulet_rules.clone() else {
            return;
        };
        let mut b = TreeB::new();
        let open = self.open_round();
        let x = self.exercise(
            &mut b,
            None,
            &rules,
            "AmuletRules_DevNet_Tap",
            json!({"receiver": self.pid(user), "amount": fmt_amount(amount), "openRound": open.as_ref().map(|c| c.cid.clone())}),
            false,
            vec![user],
        );
        if let Some(o) = &open {
            self.fetch(&mut b, Some(x), o);
        }
        let a = self.create_amulet(&mut b, Some(x), user, amount);
        b.set_result(
            x,
            json!({"amuletSum": {"amulet": a.cid, "round": round_obj(self.round.max(0)), "amuletPrice": AMULET_PRICE}}),
        );
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![user],
                command: "devnet-tap",
                app_provider: Some(self.validator_of(user)),
                ..TxMeta::default()
            },
        );
    }

    // -----------------------------------------------------------------------------------------
    // Round planning

    fn plan_round(&mut self, r: i64) -> Vec<(i64, Intent)> {
        let mut plan: Vec<(i64, Intent)> = Vec::new();
        let rng = &mut self.rng;
        let at = |rng: &mut Rng, lo: i64, hi: i64| rng.range(lo * 1000, hi * 1000) * 1000;
        if r >= 1 {
            plan.push((at(rng, 0, 1), Intent::Advance));
            plan.push((at(rng, 2, 4), Intent::StartIssuing));
        }
        if r >= 2 {
            plan.push((at(rng, 5, 7), Intent::Close));
        }
        for s in 0..self.net.svs.len() {
            plan.push((at(rng, 10, 120), Intent::SvReward(s)));
            if rng.chance(0.3) {
                plan.push((at(rng, 10, 590), Intent::StatusReport(s)));
            }
        }
        for (v, st) in self.validators.iter().enumerate() {
            if st.onboard_round == r {
                plan.push((at(rng, 10, 200), Intent::OnboardValidator(v)));
                plan.push((at(rng, 205, 300), Intent::InstallWallet(v)));
                continue;
            }
            let onboarded = st.onboard_round < r;
            let down = st.down.is_some_and(|(a, b)| (a..b).contains(&r));
            if onboarded && !down && rng.chance(st.reliability) {
                plan.push((at(rng, 15, 590), Intent::Liveness(v)));
            }
            if onboarded && (r + v as i64) % 12 == 0 {
                plan.push((at(rng, 300, 590), Intent::Collect(v)));
            }
        }
        for _ in 0..rng.range(3, 8) {
            plan.push((at(rng, 10, 590), Intent::Transfer));
        }
        let extras: [(f64, Intent); 5] = [
            (0.10, Intent::Payroll),
            (0.35, Intent::LockedTransfer),
            (0.30, Intent::Unlock),
            (0.12, Intent::Tap),
            (0.45, Intent::PreapprovalSend),
        ];
        for (p, intent) in extras {
            if rng.chance(p) {
                plan.push((at(rng, 10, 590), intent));
            }
        }
        if r % 36 == 5 {
            plan.push((at(rng, 100, 500), Intent::RequestVote));
        }
        if r % 12 == 7 {
            plan.push((at(rng, 100, 500), Intent::AllocateDevFund));
        }
        for vote in &self.votes {
            for (s, _, cast_round) in &vote.casts {
                if *cast_round == r {
                    plan.push((at(rng, 20, 580), Intent::CastVote(vote.id, *s)));
                }
            }
            if vote.close_round == r {
                plan.push((at(rng, 585, 595), Intent::CloseVote(vote.id)));
            }
        }
        for (i, f) in self.featured.iter().enumerate() {
            if f.sync == APP && f.in_flight.is_none() {
                for _ in 0..rng.range(0, 2) {
                    plan.push((at(rng, 10, 400), Intent::ActivityMarker(i)));
                }
            }
            if (r + 8 * i as i64) % 24 == 10 {
                let t = at(rng, 410, 520);
                plan.push((t, Intent::Unassign(i)));
                plan.push((t + rng.range(2, 60) * SECOND, Intent::Assign(i)));
            }
        }
        if r >= self.tc_from_round {
            for _ in 0..rng.range(0, 2) {
                plan.push((at(rng, 10, 590), Intent::CreateTc));
            }
        }
        for tc in &self.tcs {
            if tc.resolve_round == r {
                plan.push((at(rng, 10, 590), Intent::ResolveTc(tc.con.cid.clone())));
            }
        }
        plan.sort_by_key(|(t, _)| *t);
        plan
    }

    fn run(&mut self, l: &mut Ledger, intent: Intent) {
        match intent {
            Intent::Advance => self.advance(l),
            Intent::StartIssuing => self.start_issuing(l),
            Intent::Close => self.close_round(l),
            Intent::SvReward(s) => self.sv_reward(l, s),
            Intent::Liveness(v) => self.liveness(l, v),
            Intent::StatusReport(s) => self.status_report(l, s),
            Intent::Transfer => self.wallet_transfer(l, false),
            Intent::LockedTransfer => self.wallet_transfer(l, true),
            Intent::Payroll => self.payroll(l),
            Intent::Unlock => self.unlock(l),
            Intent::Tap => {
                let u = self.net.users[self.rng.index(self.net.users.len())];
                let amount = self.rng.range(100, 5_000) * UNIT;
                self.tap(l, u, amount);
            }
            Intent::PreapprovalSend => self.preapproval_send(l),
            Intent::Collect(v) => self.collect(l, v),
            Intent::RequestVote => self.request_vote(l),
            Intent::CastVote(id, s) => self.cast_vote(l, id, s),
            Intent::CloseVote(id) => self.close_vote(l, id),
            Intent::AllocateDevFund => self.allocate_dev_fund(l),
            Intent::Unassign(f) => self.unassign(l, f),
            Intent::Assign(f) => self.assign(l, f),
            Intent::ActivityMarker(f) => self.activity_marker(l, f),
            Intent::CreateTc => self.create_tc(l),
            Intent::ResolveTc(cid) => self.resolve_tc(l, &cid),
            Intent::OnboardValidator(v) => self.onboard_validator(l, v),
            Intent::InstallWallet(v) => self.install_validator_wallet(l, v),
        }
    }

    // -----------------------------------------------------------------------------------------
    // Mining rounds

    fn advance(&mut self, l: &mut Ledger) {
        let (Some(rules), Some(amulet_rules)) = (self.dso_rules.clone(), self.amulet_rules.clone())
        else {
            return;
        };
        let Some((old_r, old)) = self.open.pop_front() else {
            return;
        };
        let dso = self.dso();
        let mut b = TreeB::new();
        let x = self.exercise(
            &mut b,
            None,
            &rules,
            "DsoRules_AdvanceOpenMiningRounds",
            json!({"amuletRulesCid": amulet_rules.cid, "roundToArchiveCid": old.cid, "middleRoundCid": self.open.front().map(|c| c.1.cid.clone()), "latestRoundCid": self.open.back().map(|c| c.1.cid.clone()), "amuletPrice": AMULET_PRICE}),
            false,
            vec![dso],
        );
        let y = self.exercise(
            &mut b,
            Some(x),
            &amulet_rules,
            "AmuletRules_AdvanceOpenMiningRounds",
            json!({"roundToArchiveCid": old.cid, "amuletPrice": AMULET_PRICE}),
            false,
            vec![dso],
        );
        self.archive(&mut b, Some(y), &old, vec![dso]);
        let args = json!({
            "dso": self.pid(dso),
            "round": round_obj(old_r),
            "amuletPrice": AMULET_PRICE,
            "issuanceConfig": issuance_config(),
            "tickDuration": micros_obj(ROUND_LEN)
        });
        let sum = self.create(
            &mut b,
            Some(y),
            Tpl::SummarizingMiningRound,
            args,
            (vec![dso], vec![]),
        );
        let new_r = self.open.back().map_or(old_r + 3, |(r, _)| r + 1);
        let args = self.open_round_args(new_r);
        let open = self.create(
            &mut b,
            Some(y),
            Tpl::OpenMiningRound,
            args,
            (vec![dso], vec![]),
        );
        let res = json!({"summarizingRound": sum.cid, "openRound": open.cid});
        b.set_result(y, res.clone());
        b.set_result(x, res);
        self.summarizing.push_back((old_r, sum));
        self.open.push_back((new_r, open));
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![dso],
                command: "advance-rounds",
                ..TxMeta::default()
            },
        );
    }

    fn start_issuing(&mut self, l: &mut Ledger) {
        let (Some(rules), Some(amulet_rules)) = (self.dso_rules.clone(), self.amulet_rules.clone())
        else {
            return;
        };
        let Some((r, sum)) = self.summarizing.pop_front() else {
            return;
        };
        let dso = self.dso();
        let mut b = TreeB::new();
        let x = self.exercise(
            &mut b,
            None,
            &rules,
            "DsoRules_StartIssuing",
            json!({"miningRoundCid": sum.cid}),
            false,
            vec![dso],
        );
        let y = self.exercise(
            &mut b,
            Some(x),
            &amulet_rules,
            "AmuletRules_MiningRound_StartIssuing",
            json!({"miningRoundCid": sum.cid, "summary": {"totalValidatorRewardCoupons": "12.5000000000", "totalFeaturedAppRewardCoupons": "3.0000000000", "totalUnfeaturedAppRewardCoupons": "9.5000000000", "totalSvRewardWeight": self.sv_weights.iter().sum::<i64>().to_string()}}),
            false,
            vec![dso],
        );
        self.archive(&mut b, Some(y), &sum, vec![dso]);
        let args = json!({
            "dso": self.pid(dso),
            "round": round_obj(r),
            "issuancePerValidatorRewardCoupon": "0.2000000000",
            "issuancePerFeaturedAppRewardCoupon": "100.0000000000",
            "issuancePerUnfeaturedAppRewardCoupon": "0.6000000000",
            "issuancePerSvRewardCoupon": "1.2340000000",
            "opensAt": fmt_time6(self.now),
            "targetClosesAt": fmt_time6(self.now + 2 * ROUND_LEN),
            "optIssuancePerValidatorFaucetCoupon": "2.8500000000"
        });
        let iss = self.create(
            &mut b,
            Some(y),
            Tpl::IssuingMiningRound,
            args,
            (vec![dso], vec![]),
        );
        b.set_result(y, json!({"issuingRoundCid": iss.cid}));
        b.set_result(x, json!({"issuingRoundCid": iss.cid}));
        self.issuing.push_back((r, iss));
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![dso],
                command: "start-issuing",
                ..TxMeta::default()
            },
        );
    }

    fn close_round(&mut self, l: &mut Ledger) {
        let (Some(rules), Some(amulet_rules)) = (self.dso_rules.clone(), self.amulet_rules.clone())
        else {
            return;
        };
        let Some((r, iss)) = self.issuing.pop_front() else {
            return;
        };
        let dso = self.dso();
        let mut b = TreeB::new();
        let x = self.exercise(
            &mut b,
            None,
            &rules,
            "DsoRules_MiningRound_Close",
            json!({"issuingRoundCid": iss.cid}),
            false,
            vec![dso],
        );
        let y = self.exercise(
            &mut b,
            Some(x),
            &amulet_rules,
            "AmuletRules_MiningRound_Close",
            json!({"issuingRoundCid": iss.cid}),
            false,
            vec![dso],
        );
        self.archive(&mut b, Some(y), &iss, vec![dso]);
        let args = json!({
            "dso": self.pid(dso),
            "round": round_obj(r),
            "issuancePerValidatorRewardCoupon": "0.2000000000",
            "issuancePerFeaturedAppRewardCoupon": "100.0000000000",
            "issuancePerUnfeaturedAppRewardCoupon": "0.6000000000",
            "issuancePerSvRewardCoupon": "1.2340000000",
            "optIssuancePerValidatorFaucetCoupon": "2.8500000000"
        });
        let closed = self.create(
            &mut b,
            Some(y),
            Tpl::ClosedMiningRound,
            args,
            (vec![dso], vec![]),
        );
        b.set_result(y, json!({"closedRoundCid": closed.cid}));
        let mut res = json!({"closedRoundCid": closed.cid, "unclaimedDevelopmentFundCoupon": null});
        if self.rng.chance(0.5) {
            let amount = self.rng.range(500, 5_000) * UNIT;
            let args = json!({"dso": self.pid(dso), "amount": fmt_amount(amount)});
            let c = self.create(
                &mut b,
                Some(x),
                Tpl::UnclaimedDevelopmentFundCoupon,
                args,
                (vec![dso], vec![]),
            );
            res["unclaimedDevelopmentFundCoupon"] = json!(c.cid);
            self.dev_unclaimed.push_back((c, amount));
        }
        b.set_result(x, res);
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![dso],
                command: "close-round",
                ..TxMeta::default()
            },
        );
    }

    fn sv_reward(&mut self, l: &mut Ledger, s: usize) {
        let Some(rules) = self.dso_rules.clone() else {
            return;
        };
        let Some((state, collected)) = self.sv_reward_state[s].clone() else {
            return;
        };
        let dso = self.dso();
        let sv = self.net.svs[s].party;
        let round = self.round.max(0);
        let mut b = TreeB::new();
        let open = self.open_round();
        let x = self.exercise(
            &mut b,
            None,
            &rules,
            "DsoRules_ReceiveSvRewardCoupon",
            json!({"sv": self.pid(sv), "openRoundCid": open.as_ref().map(|c| c.cid.clone()), "rewardStateCid": state.cid}),
            false,
            vec![sv],
        );
        if let Some(o) = &open {
            self.fetch(&mut b, Some(x), o);
        }
        self.archive(&mut b, Some(x), &state, vec![dso]);
        let args = json!({
            "dso": self.pid(dso),
            "svName": self.net.svs[s].name,
            "state": {"numRoundsMissed": "0", "numRoundsCollected": (collected + 1).to_string(), "lastRoundCollected": round_obj(round), "numCouponsIssued": (collected + 1).to_string()}
        });
        let new_state = self.create(
            &mut b,
            Some(x),
            Tpl::SvRewardState,
            args,
            (vec![dso], vec![]),
        );
        let args = json!({
            "dso": self.pid(dso),
            "sv": self.pid(sv),
            "beneficiary": self.pid(sv),
            "round": round_obj(round),
            "weight": self.sv_weights[s].to_string()
        });
        let st = self.stake(Tpl::SvRewardCoupon, sv, None);
        let coupon = self.create(&mut b, Some(x), Tpl::SvRewardCoupon, args, st);
        b.set_result(
            x,
            json!({"svRewardState": new_state.cid, "svRewardCoupon": coupon.cid}),
        );
        self.sv_reward_state[s] = Some((new_state, collected + 1));
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![sv],
                command: "sv-reward",
                ..TxMeta::default()
            },
        );
    }

    fn status_report(&mut self, l: &mut Ledger, s: usize) {
        let Some(rules) = self.dso_rules.clone() else {
            return;
        };
        let dso = self.dso();
        let sv = self.net.svs[s].party;
        let prev = self.sv_status[s].clone();
        let mut b = TreeB::new();
        let status = json!({
            "createdAt": fmt_time6(self.now),
            "cometBftHeight": (self.round * 600 + self.rng.range(0, 599)).max(0).to_string(),
            "mediatorSynchronizerTime": fmt_time6(self.now - self.rng.range(100_000, 900_000)),
            "participantSynchronizerTime": fmt_time6(self.now - self.rng.range(100_000, 900_000)),
            "latestOpenRound": round_obj(self.open.back().map_or(0, |(r, _)| *r))
        });
        let x = self.exercise(
            &mut b,
            None,
            &rules,
            "DsoRules_SubmitStatusReport",
            json!({"sv": self.pid(sv), "previousReportCid": prev.as_ref().map(|c| c.cid.clone()), "status": status}),
            false,
            vec![sv],
        );
        if let Some(p) = &prev {
            self.archive(&mut b, Some(x), p, vec![dso]);
        }
        let args = json!({"dso": self.pid(dso), "sv": self.pid(sv), "svName": self.net.svs[s].name, "status": status});
        let st = self.stake(Tpl::SvStatusReport, sv, None);
        let report = self.create(&mut b, Some(x), Tpl::SvStatusReport, args, st);
        b.set_result(x, json!({"newReport": report.cid}));
        self.sv_status[s] = Some(report);
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![sv],
                command: "status-report",
                rejectable: true,
                ..TxMeta::default()
            },
        );
    }

    fn liveness(&mut self, l: &mut Ledger, v: usize) {
        let Some(lic) = self.validators[v].license.clone() else {
            return;
        };
        let dso = self.dso();
        let val = self.validators[v].party;
        let round = self.round.max(0);
        let st = &mut self.validators[v];
        if let Some(last) = st.last {
            st.missed += (round - last - 1).max(0);
        }
        st.first.get_or_insert(round);
        st.last = Some(round);
        let (first, missed) = (st.first.unwrap_or(round), st.missed);
        let modern = self.migration >= 1;
        let (choice, tpl, key) = if modern {
            (
                "ValidatorLicense_RecordValidatorLivenessActivity",
                Tpl::ValidatorLivenessActivityRecord,
                "livenessActivityRecordCid",
            )
        } else {
            (
                "ValidatorLicense_ReceiveFaucetCoupon",
                Tpl::ValidatorFaucetCoupon,
                "couponCid",
            )
        };
        let mut b = TreeB::new();
        let open = self.open_round();
        let x = self.exercise(
            &mut b,
            None,
            &lic,
            choice,
            json!({"openRoundCid": open.as_ref().map(|c| c.cid.clone())}),
            true,
            vec![val],
        );
        if let Some(o) = &open {
            self.fetch(&mut b, Some(x), o);
        }
        let sponsor = self.net.svs[v % self.net.svs.len()].party;
        let args = json!({
            "validator": self.pid(val),
            "sponsor": self.pid(sponsor),
            "dso": self.pid(dso),
            "faucetState": {"firstReceivedFor": round_obj(first), "lastReceivedFor": round_obj(round), "numCouponsMissed": missed.to_string()},
            "metadata": {"lastUpdatedAt": fmt_time6(self.now), "version": "0.4.2", "contactPoint": format!("ops@{}.example", self.net.party(val).name)},
            "lastActiveAt": fmt_time6(self.now)
        });
        let lst = self.stake(Tpl::ValidatorLicense, val, None);
        let new_lic = self.create(&mut b, Some(x), Tpl::ValidatorLicense, args, lst);
        let args =
            json!({"dso": self.pid(dso), "validator": self.pid(val), "round": round_obj(round)});
        let cst = self.stake(tpl, val, None);
        let coupon = self.create(&mut b, Some(x), tpl, args, cst);
        let mut res = serde_json::Map::new();
        res.insert("licenseCid".into(), json!(new_lic.cid));
        res.insert(key.into(), json!(coupon.cid));
        b.set_result(x, Value::Object(res));
        self.validators[v].license = Some(new_lic);
        self.coupons.entry(val).or_default().push(Coupon {
            con: coupon,
            amount: FAUCET_AMOUNT,
            input_tag: if modern {
                "InputValidatorLivenessActivityRecord"
            } else {
                "InputValidatorFaucetCoupon"
            },
        });
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![val],
                command: "liveness",
                ..TxMeta::default()
            },
        );
    }

    // -----------------------------------------------------------------------------------------
    // Transfers

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

    fn wallet_transfer(&mut self, l: &mut Ledger, locked: bool) {
        let sender = self.pick_user();
        let receiver = self.pick_other(sender);
        let Some(wallet) = self.wallets.get(&sender).cloned() else {
            return;
        };
        let balance = self.balance(sender);
        let mut amount = self.rng.range(5, 800) * UNIT + self.rng.range(0, 9999) * UNIT / 10_000;
        if balance < amount + UNIT {
            if balance < 10 * UNIT {
                let top = self.rng.range(1_000, 10_000) * UNIT;
                self.tap(l, sender, top);
                return;
            }
            amount = balance / 2;
        }
        let max_inputs = if self.rng.chance(0.2) { 12 } else { 4 };
        let inputs = self.take_inputs(sender, amount + UNIT, max_inputs);
        let total: i64 = inputs.iter().map(|h| h.amount).sum();
        if total < amount + UNIT {
            amount = (total - UNIT) / 2;
        }
        let lock = locked.then(|| (sender, self.now + self.rng.range(2, 12) * HOUR));
        let mut b = TreeB::new();
        let op = json!({"tag": "CO_Transfer", "value": {"receiver": self.pid(receiver), "amount": fmt_amount(amount), "description": if locked {"escrowed payment"} else {"wallet transfer"}}});
        let x = self.exercise(
            &mut b,
            None,
            &wallet,
            "WalletAppInstall_ExecuteBatch",
            json!({"operations": [op]}),
            false,
            vec![sender],
        );
        let (created, _) = self.transfer_subtree(
            &mut b,
            Some(x),
            sender,
            inputs,
            Vec::new(),
            &[(receiver, amount, lock)],
            true,
        );
        b.set_result(
            x,
            json!({"outcomes": [{"tag": "COO_Transfer", "value": created.first().map(|c| c.cid.clone())}]}),
        );
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![sender],
                command: if locked {
                    "locked-transfer"
                } else {
                    "transfer"
                },
                app_provider: Some(self.validator_of(sender)),
                ..TxMeta::default()
            },
        );
    }

    fn payroll(&mut self, l: &mut Ledger) {
        // The richest user pays 8-12 others in one batch: a tree of well over 50 events.
        let Some(sender) = self
            .net
            .users
            .clone()
            .into_iter()
            .max_by_key(|u| self.balance(*u))
        else {
            return;
        };
        let Some(wallet) = self.wallets.get(&sender).cloned() else {
            return;
        };
        let n = self.rng.range(8, 12) as usize;
        let balance = self.balance(sender);
        let per = (balance / (n as i64 * 4)).min(2_000 * UNIT);
        if per < 5 * UNIT {
            return;
        }
        let mut receivers = Vec::new();
        while receivers.len() < n {
            let r = self.pick_other(sender);
            if !receivers.contains(&r) {
                receivers.push(r);
            }
        }
        let mut b = TreeB::new();
        let ops: Vec<Value> = receivers
            .iter()
            .map(|r| json!({"tag": "CO_Transfer", "value": {"receiver": self.pid(*r), "amount": fmt_amount(per), "description": "payroll"}}))
            .collect();
        let x = self.exercise(
            &mut b,
            None,
            &wallet,
            "WalletAppInstall_ExecuteBatch",
            json!({"operations": ops}),
            false,
            vec![sender],
        );
        let mut inputs = self.take_inputs(sender, i64::MAX, 20);
        let mut outcomes = Vec::new();
        for r in receivers {
            let (created, change) = self.transfer_subtree(
                &mut b,
                Some(x),
                sender,
                inputs,
                Vec::new(),
                &[(r, per, None)],
                true,
            );
            outcomes.push(
                json!({"tag": "COO_Transfer", "value": created.first().map(|c| c.cid.clone())}),
            );
            // The change of one transfer is the input of the next.
            inputs = match change {
                Some(c) => {
                    let list = self.amulets.entry(sender).or_default();
                    match list.iter().position(|h| h.con.cid == c.cid) {
                        Some(i) => vec![list.remove(i)],
                        None => Vec::new(),
                    }
                }
                None => Vec::new(),
            };
            if inputs.is_empty() {
                break;
            }
        }
        // Whatever change is left stays with the sender.
        self.amulets.entry(sender).or_default().extend(inputs);
        b.set_result(x, json!({"outcomes": outcomes}));
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![sender],
                command: "payroll",
                app_provider: Some(self.validator_of(sender)),
                ..TxMeta::default()
            },
        );
    }

    fn unlock(&mut self, l: &mut Ledger) {
        if self.locked.is_empty() {
            return;
        }
        let i = self.rng.index(self.locked.len());
        let lk = self.locked.remove(i);
        let expired = lk.expires_at <= self.now;
        let mut b = TreeB::new();
        let (choice, actors, arg) = if expired {
            (
                "LockedAmulet_OwnerExpireLock",
                vec![lk.owner],
                json!({"openRoundCid": self.open_round().map(|c| c.cid)}),
            )
        } else {
            ("LockedAmulet_Unlock", vec![lk.owner, lk.holder], json!({}))
        };
        let x = self.exercise(&mut b, None, &lk.con, choice, arg, true, actors.clone());
        let a = self.create_amulet(&mut b, Some(x), lk.owner, lk.amount);
        b.set_result(
            x,
            json!({"amuletSum": {"amulet": a.cid, "round": round_obj(self.round.max(0))}}),
        );
        self.finish(
            l,
            b,
            TxMeta {
                submitters: actors,
                command: "unlock",
                ..TxMeta::default()
            },
        );
    }

    fn preapproval_send(&mut self, l: &mut Ledger) {
        let senders: Vec<PartyIdx> = self
            .net
            .users
            .iter()
            .copied()
            .filter(|u| self.net.party(*u).external && self.balance(*u) > 50 * UNIT)
            .collect();
        if senders.is_empty() || self.preapprovals.is_empty() {
            return;
        }
        let sender = senders[self.rng.index(senders.len())];
        let mut receivers: Vec<PartyIdx> = self
            .preapprovals
            .keys()
            .copied()
            .filter(|r| *r != sender)
            .collect();
        receivers.sort_unstable();
        if receivers.is_empty() {
            return;
        }
        let receiver = receivers[self.rng.index(receivers.len())];
        let Some(pre) = self.preapprovals.get(&receiver).cloned() else {
            return;
        };
        let amount = (self.rng.range(1, 200) * UNIT).min(self.balance(sender) / 2);
        let inputs = self.take_inputs(sender, amount + UNIT, 6);
        let mut b = TreeB::new();
        let x = self.exercise(
            &mut b,
            None,
            &pre,
            "TransferPreapproval_Send",
            json!({
                "context": {"amuletRules": self.amulet_rules.as_ref().map(|c| c.cid.clone()), "context": {"openMiningRound": self.open_round().map(|c| c.cid), "issuingMiningRounds": [], "validatorRights": [], "featuredAppRight": null}},
                "inputs": inputs.iter().map(|h| json!({"tag": "InputAmulet", "value": h.con.cid})).collect::<Vec<_>>(),
                "amount": fmt_amount(amount),
                "sender": self.pid(sender),
                "description": "token-standard-transfer"
            }),
            false,
            vec![sender],
        );
        let (created, change) = self.transfer_subtree(
            &mut b,
            Some(x),
            sender,
            inputs,
            Vec::new(),
            &[(receiver, amount, None)],
            true,
        );
        b.set_result(
            x,
            json!({"result": {"createdAmulets": created.iter().map(|c| json!({"tag": "TransferResultAmulet", "value": c.cid})).collect::<Vec<_>>(), "senderChangeAmulet": change.map(|c| c.cid)}, "meta": {"values": {"splice.lfdecentralizedtrust.org/tx-kind": "transfer"}}}),
        );
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![sender],
                command: "preapproval-send",
                external: true,
                app_provider: Some(self.validator_of(sender)),
                ..TxMeta::default()
            },
        );
    }

    fn collect(&mut self, l: &mut Ledger, v: usize) {
        let val = self.validators[v].party;
        let Some(wallet) = self.validators[v].wallet.clone() else {
            return;
        };
        let coupons: Vec<Coupon> = {
            let pool = self.coupons.entry(val).or_default();
            let n = pool.len().min(60);
            pool.drain(..n).collect()
        };
        if coupons.is_empty() {
            return;
        }
        let inputs = self.take_inputs(val, i64::MAX, 4);
        let total: i64 = coupons.iter().map(|c| c.amount).sum::<i64>()
            + inputs.iter().map(|h| h.amount).sum::<i64>();
        let mut b = TreeB::new();
        let x = self.exercise(
            &mut b,
            None,
            &wallet,
            "WalletAppInstall_ExecuteBatch",
            json!({"operations": [{"tag": "CO_MergeTransferInputs", "value": {}}]}),
            false,
            vec![val],
        );
        // A self-transfer merging the rewards into one amulet (no further coupons).
        let keep = total - total / 50;
        let (created, _) = self.transfer_subtree(
            &mut b,
            Some(x),
            val,
            inputs,
            coupons,
            &[(val, keep, None)],
            false,
        );
        b.set_result(
            x,
            json!({"outcomes": [{"tag": "COO_MergeTransferInputs", "value": created.first().map(|c| c.cid.clone())}]}),
        );
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![val],
                command: "collect-rewards",
                app_provider: Some(val),
                ..TxMeta::default()
            },
        );
    }

    // -----------------------------------------------------------------------------------------
    // Governance

    fn request_vote(&mut self, l: &mut Ledger) {
        let Some(rules) = self.dso_rules.clone() else {
            return;
        };
        let n = self.net.svs.len();
        let requester = (self.round / 36) as usize % n;
        let target = (requester + 1 + self.rng.index(n - 1)) % n;
        let delta = self.rng.range(1, 6) * 500 * if self.rng.chance(0.5) { 1 } else { -1 };
        let new_weight = (self.sv_weights[target] + delta).max(500);
        let pass = self.rng.chance(0.8);
        let round = self.round;
        let mut casts = Vec::new();
        for s in 0..n {
            if s == requester {
                continue;
            }
            let accept = pass || casts.is_empty();
            casts.push((s, accept, round + 1 + self.rng.range(0, 1)));
        }
        let dso = self.dso();
        let sv = self.net.svs[requester].party;
        let vote_before = self.now + 4 * ROUND_LEN;
        let mut vote = Vote {
            id: self.next_vote,
            con: Con {
                cid: String::new(),
                tpl: Tpl::VoteRequest,
                sigs: vec![dso],
                obs: vec![],
            },
            requester,
            target,
            new_weight,
            casts,
            votes: vec![(requester, true, self.now)],
            close_round: round + 3,
            vote_before,
        };
        self.next_vote += 1;
        let action = self.vote_action(&vote);
        let reason = json!({"url": format!("https://forum.demo.cantonscope.invalid/t/weight-{}", vote.id), "body": format!("Adjust the reward weight of {}", self.net.svs[target].name)});
        let mut b = TreeB::new();
        let x = self.exercise(
            &mut b,
            None,
            &rules,
            "DsoRules_RequestVote",
            json!({"requester": self.pid(sv), "action": action, "reason": reason, "voteRequestTimeout": micros_obj(4 * ROUND_LEN), "targetEffectiveAt": null}),
            false,
            vec![sv],
        );
        let args = self.vote_args(&vote, &reason);
        let con = self.create(&mut b, Some(x), Tpl::VoteRequest, args, (vec![dso], vec![]));
        b.set_result(x, json!({"voteRequest": con.cid}));
        vote.con = con;
        self.votes.push(vote);
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![sv],
                command: "request-vote",
                ..TxMeta::default()
            },
        );
    }

    fn vote_action(&self, vote: &Vote) -> Value {
        json!({"tag": "ARC_DsoRules", "value": {"dsoAction": {"tag": "SRARC_UpdateSvRewardWeight", "value": {
            "svParty": self.net.party_id(self.net.svs[vote.target].party),
            "newRewardWeight": vote.new_weight.to_string()
        }}}})
    }

    fn vote_args(&self, vote: &Vote, reason: &Value) -> Value {
        let votes: Vec<Value> = vote
            .votes
            .iter()
            .map(|(s, accept, at)| {
                json!([self.net.svs[*s].name, {
                    "sv": self.net.party_id(self.net.svs[*s].party),
                    "accept": accept,
                    "reason": {"url": "", "body": if *accept {"looks good"} else {"not yet"}},
                    "optCastAt": fmt_time6(*at)
                }])
            })
            .collect();
        json!({
            "dso": self.pid(self.dso()),
            "requester": self.net.svs[vote.requester].name,
            "action": self.vote_action(vote),
            "reason": reason,
            "voteBefore": fmt_time6(vote.vote_before),
            "votes": votes,
            "trackingCid": null,
            "targetEffectiveAt": null
        })
    }

    fn cast_vote(&mut self, l: &mut Ledger, id: u32, s: usize) {
        let Some(rules) = self.dso_rules.clone() else {
            return;
        };
        let Some(vi) = self.votes.iter().position(|v| v.id == id) else {
            return;
        };
        let Some(accept) = self.votes[vi].casts.iter().find(|c| c.0 == s).map(|c| c.1) else {
            return;
        };
        let dso = self.dso();
        let sv = self.net.svs[s].party;
        let old = self.votes[vi].con.clone();
        self.votes[vi].votes.push((s, accept, self.now));
        let reason = json!({"url": format!("https://forum.demo.cantonscope.invalid/t/weight-{}", id), "body": format!("Adjust the reward weight of {}", self.net.svs[self.votes[vi].target].name)});
        let vote_json = json!({"sv": self.pid(sv), "accept": accept, "reason": {"url": "", "body": if accept {"looks good"} else {"not yet"}}, "optCastAt": fmt_time6(self.now)});
        let mut b = TreeB::new();
        let x = self.exercise(
            &mut b,
            None,
            &rules,
            "DsoRules_CastVote",
            json!({"requestCid": old.cid, "vote": vote_json}),
            false,
            vec![sv],
        );
        let y = self.exercise(
            &mut b,
            Some(x),
            &old,
            "VoteRequest_CastVote",
            json!({"vote": vote_json}),
            true,
            vec![dso],
        );
        let args = self.vote_args(&self.votes[vi].clone(), &reason);
        let con = self.create(&mut b, Some(y), Tpl::VoteRequest, args, (vec![dso], vec![]));
        b.set_result(y, json!({"voteRequest": con.cid}));
        b.set_result(x, json!({"voteRequest": con.cid}));
        self.votes[vi].con = con;
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![sv],
                command: "cast-vote",
                ..TxMeta::default()
            },
        );
    }

    fn close_vote(&mut self, l: &mut Ledger, id: u32) {
        let Some(rules) = self.dso_rules.clone() else {
            return;
        };
        let Some(vi) = self.votes.iter().position(|v| v.id == id) else {
            return;
        };
        let vote = self.votes.remove(vi);
        let dso = self.dso();
        let accepts = vote.votes.iter().filter(|v| v.1).count();
        let accepted = accepts * 4 >= self.net.svs.len() * 3;
        let closer = self.net.svs[vote.requester].party;
        let mut b = TreeB::new();
        let x = self.exercise(
            &mut b,
            None,
            &rules,
            "DsoRules_CloseVoteRequest",
            json!({"requestCid": vote.con.cid, "amuletRulesCid": self.amulet_rules.as_ref().map(|c| c.cid.clone())}),
            false,
            vec![closer],
        );
        self.archive(&mut b, Some(x), &vote.con, vec![dso]);
        let outcome = if accepted {
            let e = self.exercise(
                &mut b,
                Some(x),
                &rules,
                "DsoRules_ExecuteConfirmedAction",
                json!({"action": self.vote_action(&vote), "amuletRulesCid": self.amulet_rules.as_ref().map(|c| c.cid.clone()), "confirmationCid": null}),
                false,
                vec![dso],
            );
            let w = self.exercise(
                &mut b,
                Some(e),
                &rules,
                "DsoRules_UpdateSvRewardWeight",
                json!({"svParty": self.net.party_id(self.net.svs[vote.target].party), "newRewardWeight": vote.new_weight.to_string()}),
                true,
                vec![dso],
            );
            self.sv_weights[vote.target] = vote.new_weight;
            self.dso_epoch += 1;
            let args = self.dso_rules_args();
            let new_rules = self.create(&mut b, Some(w), Tpl::DsoRules, args, (vec![dso], vec![]));
            b.set_result(w, json!({"newDsoRules": new_rules.cid}));
            b.set_result(e, json!({"newDsoRules": new_rules.cid}));
            self.dso_rules = Some(new_rules);
            json!({"tag": "VRO_Accepted", "value": {"effectiveAt": fmt_time6(self.now)}})
        } else {
            json!({"tag": "VRO_Rejected", "value": {}})
        };
        b.set_result(x, json!({"outcome": outcome}));
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![closer],
                command: "close-vote",
                ..TxMeta::default()
            },
        );
    }

    fn allocate_dev_fund(&mut self, l: &mut Ledger) {
        let Some(rules) = self.dso_rules.clone() else {
            return;
        };
        let k = self.rng.range(1, 3) as usize;
        if self.dev_unclaimed.len() < k + 1 {
            return;
        }
        let taken: Vec<(Con, i64)> = self.dev_unclaimed.drain(..k).collect();
        let total: i64 = taken.iter().map(|t| t.1).sum();
        let amount = total * self.rng.range(40, 100) / 100;
        let dso = self.dso();
        let manager = self.net.svs[self.rng.index(self.net.svs.len())].party;
        let beneficiary = self.pick_user();
        let mut b = TreeB::new();
        let x = self.exercise(
            &mut b,
            None,
            &rules,
            "DsoRules_AllocateDevelopmentFundCoupon",
            json!({"unclaimedDevelopmentFundCouponCids": taken.iter().map(|t| t.0.cid.clone()).collect::<Vec<_>>(), "beneficiary": self.pid(beneficiary), "amount": fmt_amount(amount), "expiresAt": fmt_time6(self.now + 30 * 24 * HOUR), "reason": "ecosystem grant", "fundManager": self.pid(manager)}),
            false,
            vec![manager],
        );
        for (c, _) in &taken {
            self.archive(&mut b, Some(x), c, vec![dso]);
        }
        let args = json!({"dso": self.pid(dso), "beneficiary": self.pid(beneficiary), "fundManager": self.pid(manager), "amount": fmt_amount(amount), "expiresAt": fmt_time6(self.now + 30 * 24 * HOUR), "reason": "ecosystem grant"});
        let st = self.stake(Tpl::DevelopmentFundCoupon, beneficiary, Some(manager));
        let coupon = self.create(&mut b, Some(x), Tpl::DevelopmentFundCoupon, args, st);
        let mut rest = Value::Null;
        if total > amount {
            let args = json!({"dso": self.pid(dso), "amount": fmt_amount(total - amount)});
            let c = self.create(
                &mut b,
                Some(x),
                Tpl::UnclaimedDevelopmentFundCoupon,
                args,
                (vec![dso], vec![]),
            );
            rest = json!(c.cid);
            self.dev_unclaimed.push_back((c, total - amount));
        }
        b.set_result(
            x,
            json!({"developmentFundCouponCid": coupon.cid, "optUnclaimedDevelopmentFundCouponCid": rest}),
        );
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![manager],
                command: "allocate-development-fund",
                ..TxMeta::default()
            },
        );
    }

    // -----------------------------------------------------------------------------------------
    // Reassignments and the app synchronizer

    fn unassign(&mut self, l: &mut Ledger, f: usize) {
        let Some(fr) = self.featured.get(f).cloned() else {
            return;
        };
        if fr.in_flight.is_some() {
            return;
        }
        let target = if fr.sync == GLOBAL { APP } else { GLOBAL };
        let unassign_id = self.rng.fingerprint();
        let counter = fr.counter + 1;
        let update_id = self.rng.fingerprint();
        l.commit(Update {
            update_id,
            migration_id: self.migration,
            record_time: self.now,
            body: Body::Reassign(Reassign {
                kind: ReassignKind::Unassign,
                submitter: fr.provider,
                source: fr.sync,
                target,
                unassign_id: unassign_id.clone(),
                counter,
                create: fr.create.clone(),
                created_at: fr.created_at,
            }),
        });
        let fm = &mut self.featured[f];
        fm.counter = counter;
        fm.in_flight = Some(unassign_id);
    }

    fn assign(&mut self, l: &mut Ledger, f: usize) {
        let Some(fr) = self.featured.get(f).cloned() else {
            return;
        };
        let Some(unassign_id) = fr.in_flight.clone() else {
            return;
        };
        let target = if fr.sync == GLOBAL { APP } else { GLOBAL };
        let update_id = self.rng.fingerprint();
        l.commit(Update {
            update_id,
            migration_id: self.migration,
            record_time: self.now,
            body: Body::Reassign(Reassign {
                kind: ReassignKind::Assign,
                submitter: fr.provider,
                source: fr.sync,
                target,
                unassign_id,
                counter: fr.counter,
                create: fr.create.clone(),
                created_at: fr.created_at,
            }),
        });
        let fm = &mut self.featured[f];
        fm.sync = target;
        fm.in_flight = None;
    }

    fn activity_marker(&mut self, l: &mut Ledger, f: usize) {
        let Some(fr) = self.featured.get(f).cloned() else {
            return;
        };
        if fr.in_flight.is_some() || fr.sync != APP {
            return;
        }
        let dso = self.dso();
        let con = Con {
            cid: fr.create.contract_id.clone(),
            tpl: Tpl::FeaturedAppRight,
            sigs: fr.create.signatories.clone(),
            obs: fr.create.observers.clone(),
        };
        let beneficiary = self.pick_user();
        let mut b = TreeB::new();
        let x = self.exercise(
            &mut b,
            None,
            &con,
            "FeaturedAppRight_CreateActivityMarker",
            json!({"beneficiaries": [{"beneficiary": self.pid(beneficiary), "weight": "1.0000000000"}]}),
            false,
            vec![fr.provider],
        );
        let args = json!({"dso": self.pid(dso), "provider": self.pid(fr.provider), "beneficiary": self.pid(beneficiary), "weight": "1.0000000000"});
        let st = self.stake(Tpl::FeaturedAppActivityMarker, fr.provider, None);
        let m = self.create(&mut b, Some(x), Tpl::FeaturedAppActivityMarker, args, st);
        b.set_result(x, json!({"activityMarkerCids": [m.cid]}));
        self.finish(
            l,
            b,
            TxMeta {
                sync: APP,
                submitters: vec![fr.provider],
                command: "activity-marker",
                rejectable: true,
                app_provider: Some(fr.provider),
                ..TxMeta::default()
            },
        );
    }

    // -----------------------------------------------------------------------------------------
    // Transfer commands (externally signed)

    fn tc_tree(
        &mut self,
        b: &mut TreeB,
        sender: PartyIdx,
        receiver: PartyIdx,
        amount: i64,
        nonce: i64,
        expires_at: i64,
    ) -> Option<Con> {
        let rules = self.ext_rules.clone()?;
        let dso = self.dso();
        let delegate = self.validator_of(sender);
        let args = json!({
            "dso": self.pid(dso),
            "sender": self.pid(sender),
            "receiver": self.pid(receiver),
            "delegate": self.pid(delegate),
            "amount": fmt_amount(amount),
            "expiresAt": fmt_time6(expires_at),
            "nonce": nonce.to_string(),
            "description": format!("invoice {}", self.rng.range(1000, 9999)),
            "expectedDso": self.pid(dso)
        });
        let x = self.exercise(
            b,
            None,
            &rules,
            "ExternalPartyAmuletRules_CreateTransferCommand",
            args.clone(),
            false,
            vec![sender],
        );
        let st = self.stake(Tpl::TransferCommand, sender, Some(delegate));
        let con = self.create(b, Some(x), Tpl::TransferCommand, args, st);
        b.set_result(x, json!({"transferCommandCid": con.cid}));
        Some(con)
    }

    fn create_tc(&mut self, l: &mut Ledger) {
        let busy: Vec<PartyIdx> = self.tcs.iter().map(|t| t.sender).collect();
        let senders: Vec<PartyIdx> = self
            .net
            .users
            .iter()
            .copied()
            .filter(|u| self.net.party(*u).external && !busy.contains(u))
            .collect();
        if senders.is_empty() {
            return;
        }
        let sender = senders[self.rng.index(senders.len())];
        let receiver = self.pick_other(sender);
        let roll = self.rng.f64();
        let outcome = if roll < 0.62 {
            TcOutcome::Send
        } else if roll < 0.74 {
            TcOutcome::Fail
        } else if roll < 0.87 {
            TcOutcome::Expire
        } else {
            TcOutcome::Withdraw
        };
        let delay = self.rng.range(1, 4);
        let amount = self.rng.range(1, 300) * UNIT + self.rng.range(0, 99) * UNIT / 100;
        let expires_at = if outcome == TcOutcome::Expire {
            self.now + delay * ROUND_LEN - 2 * ROUND_LEN
        } else {
            self.now + 24 * HOUR
        };
        let nonce = l.next_nonce(sender);
        let mut b = TreeB::new();
        let Some(con) = self.tc_tree(&mut b, sender, receiver, amount, nonce, expires_at) else {
            return;
        };
        self.tcs.push(PendingTc {
            con,
            sender,
            receiver,
            amount,
            nonce,
            resolve_round: self.round + delay,
            outcome,
        });
        self.finish(
            l,
            b,
            TxMeta {
                submitters: vec![sender],
                command: "create-transfer-command",
                external: true,
                ..TxMeta::default()
            },
        );
    }

    fn resolve_tc(&mut self, l: &mut Ledger, cid: &str) {
        let Some(i) = self.tcs.iter().position(|t| t.con.cid == cid) else {
            return;
        };
        let tc = self.tcs.remove(i);
        let dso = self.dso();
        let delegate = self.validator_of(tc.sender);
        let mut b = TreeB::new();
        let mut outcome = tc.outcome;
        let expected = l.next_nonce(tc.sender);
        let mut fail_reason = String::from("ITR_Other: the transfer was rejected by the delegate");
        if outcome == TcOutcome::Send && expected != tc.nonce {
            outcome = TcOutcome::Fail;
            fail_reason = format!(
                "Expected nonce {expected} but the command has nonce {}",
                tc.nonce
            );
        }
        if outcome == TcOutcome::Send && self.balance(tc.sender) < tc.amount + UNIT {
            outcome = TcOutcome::Fail;
            fail_reason = format!(
                "ITR_InsufficientFunds: missing {} amulet",
                fmt_amount(tc.amount + UNIT - self.balance(tc.sender))
            );
        }
        let submitters = match outcome {
            TcOutcome::Send => {
                let x = self.exercise(
                    &mut b,
                    None,
                    &tc.con,
                    "TransferCommand_Send",
                    json!({"context": {"amuletRules": self.amulet_rules.as_ref().map(|c| c.cid.clone()), "openMiningRound": self.open_round().map(|c| c.cid)}, "inputs": [], "transferPreapprovalCidO": null, "transferCounterCid": null}),
                    true,
                    vec![delegate],
                );
                let inputs = self.take_inputs(tc.sender, tc.amount + UNIT, 8);
                let (created, change) = self.transfer_subtree(
                    &mut b,
                    Some(x),
                    tc.sender,
                    inputs,
                    Vec::new(),
                    &[(tc.receiver, tc.amount, None)],
                    true,
                );
                b.set_result(
                    x,
                    json!({"result": {"tag": "TransferCommandResultSuccess", "value": {"createdAmulets": created.iter().map(|c| json!({"tag": "TransferResultAmulet", "value": c.cid})).collect::<Vec<_>>(), "senderChangeAmulet": change.map(|c| c.cid)}}, "sender": self.pid(tc.sender), "nonce": tc.nonce.to_string()}),
                );
                vec![delegate]
            }
            TcOutcome::Fail => {
                let x = self.exercise(
                    &mut b,
                    None,
                    &tc.con,
                    "TransferCommand_Send",
                    json!({"context": {"amuletRules": self.amulet_rules.as_ref().map(|c| c.cid.clone()), "openMiningRound": self.open_round().map(|c| c.cid)}, "inputs": [], "transferPreapprovalCidO": null, "transferCounterCid": null}),
                    true,
                    vec![delegate],
                );
                b.set_result(
                    x,
                    json!({"result": {"tag": "TransferCommandResultFailure", "value": {"reason": fail_reason}}, "sender": self.pid(tc.sender), "nonce": tc.nonce.to_string()}),
                );
                vec![delegate]
            }
            TcOutcome::Expire => {
                let x = self.exercise(
                    &mut b,
                    None,
                    &tc.con,
                    "TransferCommand_Expire",
                    json!({"p": self.pid(dso)}),
                    true,
                    vec![dso],
                );
                b.set_result(x, json!("TransferCommand_ExpireResult"));
                vec![dso]
            }
            TcOutcome::Withdraw => {
                let x = self.exercise(
                    &mut b,
                    None,
                    &tc.con,
                    "TransferCommand_Withdraw",
                    json!({}),
                    true,
                    vec![tc.sender],
                );
                b.set_result(x, json!("TransferCommand_WithdrawResult"));
                vec![tc.sender]
            }
        };
        self.finish(
            l,
            b,
            TxMeta {
                submitters,
                command: "transfer-command",
                external: outcome == TcOutcome::Withdraw,
                ..TxMeta::default()
            },
        );
    }

    /// Commits the transaction of an executed, externally signed submission: `sender` creates a
    /// TransferCommand (resolved later by the live generator). Returns the update index.
    pub(crate) fn execute_transfer_command(
        &mut self,
        l: &mut Ledger,
        sender: PartyIdx,
        hash: String,
        command_id: &str,
        now: i64,
    ) -> Option<usize> {
        self.set_time(now);
        let receiver = self.pick_other(sender);
        let amount = self.rng.range(1, 100) * UNIT;
        let nonce = l.next_nonce(sender);
        let mut b = TreeB::new();
        let con = self.tc_tree(
            &mut b,
            sender,
            receiver,
            amount,
            nonce,
            self.now + 24 * HOUR,
        )?;
        self.tcs.push(PendingTc {
            con,
            sender,
            receiver,
            amount,
            nonce,
            resolve_round: self.round + 2,
            outcome: TcOutcome::Send,
        });
        let (nodes, roots) = b.finish();
        let update_id = self.rng.fingerprint();
        let effective_at = self.now - self.rng.range(40_000, 300_000);
        l.commit(Update {
            update_id,
            migration_id: self.migration,
            record_time: self.now,
            body: Body::Tx(Tx {
                workflow_id: String::new(),
                command_id: command_id.to_string(),
                sync: GLOBAL,
                effective_at,
                nodes,
                roots,
                external_hash: Some(hash),
                rejected: false,
                round: self.round.max(0) as u64,
                submitters: vec![sender],
                app_provider: Some(self.validator_of(sender)),
                finalization_delay: self.rng.range(20_000, 400_000),
            }),
        });
        Some(l.len() - 1)
    }

    // -----------------------------------------------------------------------------------------
    // Driving

    /// Appends one live update at (or just after) `now`.
    pub(crate) fn live_step(&mut self, l: &mut Ledger, now: i64) {
        let before = l.len();
        for _ in 0..10_000 {
            let Some(intent) = self.queue.pop_front() else {
                self.round += 1;
                let plan = self.plan_round(self.round);
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

/// Generates the history of `seed` ending just before `generated_at` (microseconds).
pub fn generate_history(seed: u64, generated_at: i64) -> (Ledger, Generator) {
    let net = Arc::new(Network::new(seed));
    let mut g = Generator::new(Arc::clone(&net), seed);
    let mut l = Ledger::new(net);
    let end = generated_at - 1_500_000;
    let start = end - ROUNDS * ROUND_LEN;
    g.round = 0;
    g.bootstrap(&mut l, start - 6 * MINUTE, start - 10 * SECOND);
    for r in 0..ROUNDS {
        g.round = r;
        if r == MIGRATION_ROUND {
            g.migration = 1;
        }
        let mut plan = g.plan_round(r);
        if r == ROUNDS - 1 {
            // The newest update lands about a second before the end of history.
            if let Some(last) = plan.last_mut() {
                last.0 = ROUND_LEN - SECOND;
            }
        }
        for (off, intent) in plan {
            g.set_time(start + r * ROUND_LEN + off);
            g.run(&mut l, intent);
        }
    }
    l.initial_len = l.len();
    (l, g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_is_ordered_and_large() {
        let now = 1_800_000_000 * SECOND;
        let (l, _) = generate_history(42, now);
        assert!(l.len() >= 10_000, "only {} updates", l.len());
        let ups = l.updates();
        for w in ups.windows(2) {
            assert!((w[0].migration_id, w[0].record_time) < (w[1].migration_id, w[1].record_time));
            assert!(w[0].record_time < w[1].record_time);
        }
        let last = ups.last().unwrap();
        assert!(now - last.record_time < 5 * SECOND);
        assert_eq!(l.current_migration_id(), 1);
        let max_events = ups
            .iter()
            .filter_map(|u| u.tx())
            .map(|t| t.nodes.iter().filter(|n| !n.is_fetch()).count())
            .max()
            .unwrap();
        assert!(max_events > 50, "largest tree has {max_events} events");
    }

    #[test]
    fn same_seed_same_history() {
        let (a, _) = generate_history(7, 1_800_000_000 * SECOND);
        let (b, _) = generate_history(7, 1_800_000_000 * SECOND);
        assert_eq!(a.len(), b.len());
        assert_eq!(a.updates()[100].update_id, b.updates()[100].update_id);
        let (c, _) = generate_history(8, 1_800_000_000 * SECOND);
        assert_ne!(a.updates()[100].update_id, c.updates()[100].update_id);
    }
}
