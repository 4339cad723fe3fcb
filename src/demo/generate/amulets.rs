//! Amulet holdings and the `AmuletRules_Transfer` subtree every payment is built on.

use serde_json::{Value, json};

use super::{
    AMULET_PRICE, Con, Coupon, Generator, HOLDING_RATE, Holding, Locked, Output, TreeB, round_obj,
};
use crate::demo::topology::{PartyIdx, Tpl};
use crate::demo::util::{UNIT, fmt_amount, fmt_time6};

impl Generator {
    pub(super) fn amulet_args(&self, owner: PartyIdx, amount: i64) -> Value {
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

    pub(super) fn create_amulet(
        &mut self,
        b: &mut TreeB,
        parent: Option<u32>,
        owner: PartyIdx,
        amount: i64,
    ) -> Con {
        let args = self.amulet_args(owner, amount);
        let con = self.create(b, parent, Tpl::Amulet, args, owner, None);
        self.amulets.entry(owner).or_default().push(Holding {
            con: con.clone(),
            amount,
        });
        con
    }

    pub(super) fn balance(&self, p: PartyIdx) -> i64 {
        self.amulets
            .get(&p)
            .map_or(0, |v| v.iter().map(|h| h.amount).sum())
    }

    /// Takes amulets of `p` covering `need` (largest first), at most `max` of them.
    pub(super) fn take_inputs(&mut self, p: PartyIdx, need: i64, max: usize) -> Vec<Holding> {
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

    /// Adds the transfer of amulets `inputs` of `sender` to `outputs` under `parent` (see
    /// [`Generator::transfer_subtree`]).
    pub(super) fn pay(
        &mut self,
        b: &mut TreeB,
        parent: Option<u32>,
        sender: PartyIdx,
        inputs: &[Holding],
        outputs: &[Output],
    ) -> (Vec<Con>, Option<Con>) {
        self.transfer_subtree(b, parent, sender, inputs, &[], outputs)
    }

    /// Adds `AmuletRules_Transfer` under `parent`: archives the inputs, creates the outputs, the
    /// sender's change and, unless reward coupons are spent (`extra_inputs`: a merge), the reward
    /// coupons. Returns the created output contracts and the change.
    pub(super) fn transfer_subtree(
        &mut self,
        b: &mut TreeB,
        parent: Option<u32>,
        sender: PartyIdx,
        inputs: &[Holding],
        extra_inputs: &[Coupon],
        outputs: &[Output],
    ) -> (Vec<Con>, Option<Con>) {
        let with_coupons = extra_inputs.is_empty();
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
        let t = b.exercise(
            parent,
            &rules,
            "AmuletRules_Transfer",
            arg,
            false,
            vec![sender],
        );
        self.fetch_open(b, Some(t), open.as_ref());
        for h in inputs {
            b.archive(Some(t), &h.con, vec![dso, sender]);
        }
        for c in extra_inputs {
            b.archive(Some(t), &c.con, vec![dso, sender]);
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
                    let con = self.create(b, Some(t), Tpl::LockedAmulet, args, *r, Some(*holder));
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
            let app_con = self.create(b, Some(t), Tpl::AppRewardCoupon, app, provider, None);
            let val = json!({
                "dso": self.pid(dso), "user": self.pid(provider),
                "amount": fmt_amount(fee / 2), "round": round
            });
            let val_con = self.create(b, Some(t), Tpl::ValidatorRewardCoupon, val, provider, None);
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
}
