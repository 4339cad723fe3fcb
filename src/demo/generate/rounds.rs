//! The life of a mining round (advance, start issuing, close) and the SVs' and validators'
//! per-round activity: SV reward coupons, status reports and validator liveness.

use std::collections::VecDeque;

use serde_json::{Value, json};

use super::{
    AMULET_PRICE, Con, Coupon, FAUCET_AMOUNT, Generator, ROUND_LEN, TreeB, TxMeta, issuance_config,
    micros_obj, round_obj,
};
use crate::demo::ledger::Ledger;
use crate::demo::topology::Tpl;
use crate::demo::util::{UNIT, fmt_amount, fmt_time6};

impl Generator {
    /// The DSO rules and the amulet rules, which every step of a mining round's life exercises,
    /// and the round that takes the next step: the first of `queue`.
    pub(super) fn next_round(
        &mut self,
        queue: impl FnOnce(&mut Generator) -> &mut VecDeque<(i64, Con)>,
    ) -> Option<((Con, Con), i64, Con)> {
        let rules = (self.dso_rules.clone()?, self.amulet_rules.clone()?);
        let (r, con) = queue(self).pop_front()?;
        Some((rules, r, con))
    }

    /// One step of a mining round's life: the `DsoRules` choice `dso` (a root) and under it the
    /// `AmuletRules` choice `amulet`, which archives the round `old` and creates the round
    /// `next`. Returns both exercise nodes and the created round.
    pub(super) fn round_step(
        &mut self,
        b: &mut TreeB,
        (rules, amulet_rules): &(Con, Con),
        dso: (&'static str, Value),
        amulet: (&'static str, Value),
        old: &Con,
        (tpl, args): (Tpl, Value),
    ) -> (u32, u32, Con) {
        let owner = vec![self.dso()];
        let x = b.exercise(None, rules, dso.0, dso.1, false, owner.clone());
        let y = b.exercise(
            Some(x),
            amulet_rules,
            amulet.0,
            amulet.1,
            false,
            owner.clone(),
        );
        b.archive(Some(y), old, owner);
        let next = self.create_dso(b, Some(y), tpl, args);
        (x, y, next)
    }

    /// The arguments of an issuing round `r` (opening at `opens`) or, without `opens`, of a
    /// closed round `r`.
    pub(super) fn issuance_round_args(&self, r: i64, opens: Option<i64>) -> Value {
        let mut args = json!({
            "dso": self.pid(self.dso()),
            "round": round_obj(r),
            "issuancePerValidatorRewardCoupon": "0.2000000000",
            "issuancePerFeaturedAppRewardCoupon": "100.0000000000",
            "issuancePerUnfeaturedAppRewardCoupon": "0.6000000000",
            "issuancePerSvRewardCoupon": "1.2340000000",
        });
        if let Some(at) = opens {
            args["opensAt"] = json!(fmt_time6(at));
            args["targetClosesAt"] = json!(fmt_time6(at + 2 * self.round_len()));
        }
        args["optIssuancePerValidatorFaucetCoupon"] = json!("2.8500000000");
        args
    }

    pub(super) fn advance(&mut self, l: &mut Ledger) {
        let Some((rules, old_r, old)) = self.next_round(|g| &mut g.open) else {
            return;
        };
        let dso = self.dso();
        let mut b = TreeB::new();
        let dso_arg = json!({"amuletRulesCid": rules.1.cid, "roundToArchiveCid": old.cid, "middleRoundCid": self.open.front().map(|c| c.1.cid.clone()), "latestRoundCid": self.open.back().map(|c| c.1.cid.clone()), "amuletPrice": AMULET_PRICE});
        let amulet_arg = json!({"roundToArchiveCid": old.cid, "amuletPrice": AMULET_PRICE});
        let args = json!({
            "dso": self.pid(dso),
            "round": round_obj(old_r),
            "amuletPrice": AMULET_PRICE,
            "issuanceConfig": issuance_config(),
            "tickDuration": micros_obj(ROUND_LEN)
        });
        let (x, y, sum) = self.round_step(
            &mut b,
            &rules,
            ("DsoRules_AdvanceOpenMiningRounds", dso_arg),
            ("AmuletRules_AdvanceOpenMiningRounds", amulet_arg),
            &old,
            (Tpl::SummarizingMiningRound, args),
        );
        let new_r = self.open.back().map_or(old_r + 3, |(r, _)| r + 1);
        let args = self.open_round_args(new_r);
        let open = self.create_dso(&mut b, Some(y), Tpl::OpenMiningRound, args);
        let res = json!({"summarizingRound": sum.cid, "openRound": open.cid});
        b.set_result(y, res.clone());
        b.set_result(x, res);
        self.summarizing.push_back((old_r, sum));
        self.open.push_back((new_r, open));
        self.submit(l, b, vec![dso], "advance-rounds");
    }

    pub(super) fn start_issuing(&mut self, l: &mut Ledger) {
        let Some((rules, r, sum)) = self.next_round(|g| &mut g.summarizing) else {
            return;
        };
        let mut b = TreeB::new();
        let dso_arg = json!({"miningRoundCid": sum.cid});
        // The weights of the SVs that received reward coupons: the active ones.
        let total_sv_weight: i64 = self.sv_weights[..self.net.active_svs().len()].iter().sum();
        let amulet_arg = json!({"miningRoundCid": sum.cid, "summary": {"totalValidatorRewardCoupons": "12.5000000000", "totalFeaturedAppRewardCoupons": "3.0000000000", "totalUnfeaturedAppRewardCoupons": "9.5000000000", "totalSvRewardWeight": total_sv_weight.to_string()}});
        let args = self.issuance_round_args(r, Some(self.now));
        let (x, y, iss) = self.round_step(
            &mut b,
            &rules,
            ("DsoRules_StartIssuing", dso_arg),
            ("AmuletRules_MiningRound_StartIssuing", amulet_arg),
            &sum,
            (Tpl::IssuingMiningRound, args),
        );
        b.set_result(y, json!({"issuingRoundCid": iss.cid}));
        b.set_result(x, json!({"issuingRoundCid": iss.cid}));
        self.issuing.push_back((r, iss));
        self.submit(l, b, vec![self.dso()], "start-issuing");
    }

    pub(super) fn close_round(&mut self, l: &mut Ledger) {
        let Some((rules, r, iss)) = self.next_round(|g| &mut g.issuing) else {
            return;
        };
        let dso = self.dso();
        let mut b = TreeB::new();
        let arg = json!({"issuingRoundCid": iss.cid});
        let args = self.issuance_round_args(r, None);
        let (x, y, closed) = self.round_step(
            &mut b,
            &rules,
            ("DsoRules_MiningRound_Close", arg.clone()),
            ("AmuletRules_MiningRound_Close", arg),
            &iss,
            (Tpl::ClosedMiningRound, args),
        );
        b.set_result(y, json!({"closedRoundCid": closed.cid}));
        let mut res = json!({"closedRoundCid": closed.cid, "unclaimedDevelopmentFundCoupon": null});
        if self.rng.chance(0.5) {
            let amount = self.rng.range(500, 5_000) * UNIT;
            let args = json!({"dso": self.pid(dso), "amount": fmt_amount(amount)});
            let c = self.create_dso(&mut b, Some(x), Tpl::UnclaimedDevelopmentFundCoupon, args);
            res["unclaimedDevelopmentFundCoupon"] = json!(c.cid);
            self.dev_unclaimed.push_back((c, amount));
        }
        b.set_result(x, res);
        self.submit(l, b, vec![dso], "close-round");
    }

    pub(super) fn sv_reward(&mut self, l: &mut Ledger, s: usize) {
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
        let arg = json!({"sv": self.pid(sv), "openRoundCid": open.as_ref().map(|c| c.cid.clone()), "rewardStateCid": state.cid});
        let x = b.exercise(
            None,
            &rules,
            "DsoRules_ReceiveSvRewardCoupon",
            arg,
            false,
            vec![sv],
        );
        self.fetch_open(&mut b, Some(x), open.as_ref());
        b.archive(Some(x), &state, vec![dso]);
        let args = json!({
            "dso": self.pid(dso),
            "svName": self.net.svs[s].name,
            "state": {"numRoundsMissed": "0", "numRoundsCollected": (collected + 1).to_string(), "lastRoundCollected": round_obj(round), "numCouponsIssued": (collected + 1).to_string()}
        });
        let new_state = self.create_dso(&mut b, Some(x), Tpl::SvRewardState, args);
        let args = json!({
            "dso": self.pid(dso),
            "sv": self.pid(sv),
            "beneficiary": self.pid(sv),
            "round": round_obj(round),
            "weight": self.sv_weights[s].to_string()
        });
        let coupon = self.create(&mut b, Some(x), Tpl::SvRewardCoupon, args, sv, None);
        b.set_result(
            x,
            json!({"svRewardState": new_state.cid, "svRewardCoupon": coupon.cid}),
        );
        self.sv_reward_state[s] = Some((new_state, collected + 1));
        self.submit(l, b, vec![sv], "sv-reward");
    }

    pub(super) fn status_report(&mut self, l: &mut Ledger, s: usize) {
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
        let arg = json!({"sv": self.pid(sv), "previousReportCid": prev.as_ref().map(|c| c.cid.clone()), "status": status});
        let x = b.exercise(
            None,
            &rules,
            "DsoRules_SubmitStatusReport",
            arg,
            false,
            vec![sv],
        );
        if let Some(p) = &prev {
            b.archive(Some(x), p, vec![dso]);
        }
        let args = json!({"dso": self.pid(dso), "sv": self.pid(sv), "svName": self.net.svs[s].name, "status": status});
        let report = self.create(&mut b, Some(x), Tpl::SvStatusReport, args, sv, None);
        b.set_result(x, json!({"newReport": report.cid}));
        self.sv_status[s] = Some(report);
        let meta = TxMeta {
            rejectable: true,
            ..TxMeta::new(vec![sv], "status-report")
        };
        if !self.finish(l, b, meta) {
            // Rejected: the previous report stays the SV's.
            self.sv_status[s] = prev;
        }
    }

    pub(super) fn liveness(&mut self, l: &mut Ledger, v: usize) {
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
        let arg = json!({"openRoundCid": open.as_ref().map(|c| c.cid.clone())});
        let x = b.exercise(None, &lic, choice, arg, true, vec![val]);
        self.fetch_open(&mut b, Some(x), open.as_ref());
        let sponsor = self.net.active_svs()[v % self.net.active_svs().len()].party;
        let args = self.license_args(val, sponsor, &json!({"firstReceivedFor": round_obj(first), "lastReceivedFor": round_obj(round), "numCouponsMissed": missed.to_string()}));
        let new_lic = self.create(&mut b, Some(x), Tpl::ValidatorLicense, args, val, None);
        let args =
            json!({"dso": self.pid(dso), "validator": self.pid(val), "round": round_obj(round)});
        let coupon = self.create(&mut b, Some(x), tpl, args, val, None);
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
        self.submit(l, b, vec![val], "liveness");
    }
}
