//! The bootstrap phase before the first round: the DSO and its rules, the first open rounds,
//! validators, users, their wallets, featured apps and first taps.

use serde_json::{Value, json};

use super::{
    AMULET_PRICE, BootStep, Featured, Generator, ROUND_LEN, TreeB, issuance_config, micros_obj,
    round_obj, transfer_config,
};
use crate::demo::ledger::{CreateNode, Ledger};
use crate::demo::topology::{GLOBAL, PartyIdx, Tpl};
use crate::demo::util::{HOUR, UNIT, fmt_time6};

impl Generator {
    pub(super) fn bootstrap(&mut self, l: &mut Ledger, from: i64, to: i64) {
        let n_val = self.net.validators.len();
        let n_users = self.net.users.len();
        let mut intents: Vec<BootStep> = Vec::new();
        intents.push(Box::new(super::Generator::dso_bootstrap));
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

    pub(super) fn dso_config(&self) -> Value {
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

    pub(super) fn dso_rules_args(&self) -> Value {
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

    pub(super) fn open_round_args(&self, r: i64) -> Value {
        json!({
            "dso": self.pid(self.dso()),
            "round": round_obj(r),
            "amuletPrice": AMULET_PRICE,
            "opensAt": fmt_time6(self.opens_at(r, 0)),
            "targetClosesAt": fmt_time6(self.opens_at(r, 2)),
            "issuingFor": micros_obj(r * ROUND_LEN),
            "transferConfigUsd": transfer_config(),
            "issuanceConfig": issuance_config(),
            "tickDuration": micros_obj(ROUND_LEN)
        })
    }

    pub(super) fn dso_bootstrap(&mut self, l: &mut Ledger) {
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
        let boot = self.create_dso(&mut b, None, Tpl::DsoBootstrap, boot_args);
        let x = b.exercise(
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
        let rules = self.create_dso(&mut b, Some(x), Tpl::AmuletRules, rules_args);
        self.amulet_rules = Some(rules.clone());
        let ext = self.create_dso(
            &mut b,
            Some(x),
            Tpl::ExternalPartyAmuletRules,
            json!({"dso": self.pid(dso)}),
        );
        self.ext_rules = Some(ext);
        let arg = json!({"amuletPrice": AMULET_PRICE, "round0Duration": micros_obj(ROUND_LEN), "initialRound": null});
        let br = b.exercise(
            Some(x),
            &rules,
            "AmuletRules_Bootstrap_Rounds",
            arg,
            false,
            vec![dso],
        );
        for r in 0..3 {
            let args = self.open_round_args(r);
            let c = self.create_dso(&mut b, Some(br), Tpl::OpenMiningRound, args);
            self.open.push_back((r, c));
        }
        let first_open = self.open.front().map(|(_, c)| c.cid.clone());
        b.set_result(
            br,
            json!({"openMiningRoundCid": first_open, "initialRound": null}),
        );
        let dso_args = self.dso_rules_args();
        let rules_con = self.create_dso(&mut b, Some(x), Tpl::DsoRules, dso_args);
        self.dso_rules = Some(rules_con);
        for i in 0..self.net.active_svs().len() {
            let args = json!({
                "dso": self.pid(dso),
                "svName": self.net.svs[i].name,
                "state": {"numRoundsMissed": "0", "numRoundsCollected": "0", "lastRoundCollected": {"number": "-1"}, "numCouponsIssued": "0"}
            });
            let c = self.create_dso(&mut b, Some(x), Tpl::SvRewardState, args);
            self.sv_reward_state[i] = Some((c, 0));
        }
        // As on MainNet, some results arrive as a plain string.
        b.set_result(x, json!("DsoBootstrap_BootstrapResult"));
        self.submit(l, b, vec![dso], "dso-bootstrap");
    }

    pub(super) fn onboard_validator(&mut self, l: &mut Ledger, v: usize) {
        let Some(rules) = self.dso_rules.clone() else {
            return;
        };
        let val = self.validators[v].party;
        let sponsor = self.net.active_svs()[v % self.net.active_svs().len()].party;
        let mut b = TreeB::new();
        let arg = json!({"sponsor": self.pid(sponsor), "validator": self.pid(val), "version": "0.4.2", "contactPoint": format!("ops@{}.example", self.net.party(val).name)});
        let x = b.exercise(
            None,
            &rules,
            "DsoRules_OnboardValidator",
            arg,
            false,
            vec![sponsor],
        );
        let args = self.license_args(val, sponsor, &Value::Null);
        let lic = self.create(&mut b, Some(x), Tpl::ValidatorLicense, args, val, None);
        b.set_result(x, json!({"validatorLicense": lic.cid}));
        self.validators[v].license = Some(lic);
        self.submit(l, b, vec![sponsor], "onboard-validator");
    }

    /// The arguments of the license of validator `val`, sponsored by `sponsor`.
    pub(super) fn license_args(
        &self,
        val: PartyIdx,
        sponsor: PartyIdx,
        faucet_state: &Value,
    ) -> Value {
        json!({
            "validator": self.pid(val),
            "sponsor": self.pid(sponsor),
            "dso": self.pid(self.dso()),
            "faucetState": faucet_state,
            "metadata": {"lastUpdatedAt": fmt_time6(self.now), "version": "0.4.2", "contactPoint": format!("ops@{}.example", self.net.party(val).name)},
            "lastActiveAt": fmt_time6(self.now)
        })
    }

    pub(super) fn install_validator_wallet(&mut self, l: &mut Ledger, v: usize) {
        let val = self.validators[v].party;
        let mut b = TreeB::new();
        let args = json!({
            "dsoParty": self.pid(self.dso()),
            "validatorParty": self.pid(val),
            "endUserName": format!("{}-operator", self.net.party(val).name),
            "endUserParty": self.pid(val)
        });
        let w = self.create(&mut b, None, Tpl::WalletAppInstall, args, val, Some(val));
        self.validators[v].wallet = Some(w);
        self.submit(l, b, vec![val], "install-wallet");
    }

    pub(super) fn onboard_user(&mut self, l: &mut Ledger, u: usize) {
        let user = self.net.users[u];
        let val = self.validator_of(user);
        let dso = self.dso();
        let mut b = TreeB::new();
        let right =
            json!({"dso": self.pid(dso), "user": self.pid(user), "validator": self.pid(val)});
        self.create(&mut b, None, Tpl::ValidatorRight, right, user, Some(val));
        let args = json!({
            "dsoParty": self.pid(dso),
            "validatorParty": self.pid(val),
            "endUserName": self.net.party(user).name,
            "endUserParty": self.pid(user)
        });
        let w = self.create(&mut b, None, Tpl::WalletAppInstall, args, user, Some(val));
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
            let p = self.create(
                &mut b,
                None,
                Tpl::TransferPreapproval,
                args,
                user,
                Some(val),
            );
            self.preapprovals.insert(user, p);
        }
        self.submit(l, b, vec![val], "onboard-user");
    }

    pub(super) fn grant_featured(&mut self, l: &mut Ledger, user: usize, _i: usize) {
        let Some(rules) = self.dso_rules.clone() else {
            return;
        };
        let provider = self.net.users[user % self.net.users.len()];
        let dso = self.dso();
        let mut b = TreeB::new();
        let arg = json!({"provider": self.pid(provider)});
        let x = b.exercise(
            None,
            &rules,
            "DsoRules_GrantFeaturedAppRight",
            arg,
            false,
            vec![dso],
        );
        let args = json!({"dso": self.pid(dso), "provider": self.pid(provider)});
        let con = self.create(
            &mut b,
            Some(x),
            Tpl::FeaturedAppRight,
            args.clone(),
            provider,
            None,
        );
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
        self.submit(l, b, vec![dso], "grant-featured-app-right");
    }
}
