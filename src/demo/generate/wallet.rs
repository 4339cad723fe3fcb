//! Users' payments: DevNet taps, wallet transfers (plain and locked), payroll batches, unlocks,
//! transfers through preapprovals and validators collecting their rewards.

use serde_json::{Value, json};

use super::{AMULET_PRICE, Con, Coupon, Generator, TreeB, TxMeta, round_obj};
use crate::demo::ledger::Ledger;
use crate::demo::topology::PartyIdx;
use crate::demo::util::{HOUR, UNIT, fmt_amount};

impl Generator {
    pub(super) fn tap(&mut self, l: &mut Ledger, user: PartyIdx, amount: i64) {
        let Some(rules) = self.amulet_rules.clone() else {
            return;
        };
        let mut b = TreeB::new();
        let open = self.open_round();
        let arg = json!({"receiver": self.pid(user), "amount": fmt_amount(amount), "openRound": open.as_ref().map(|c| c.cid.clone())});
        let x = b.exercise(
            None,
            &rules,
            "AmuletRules_DevNet_Tap",
            arg,
            false,
            vec![user],
        );
        self.fetch_open(&mut b, Some(x), open.as_ref());
        let a = self.create_amulet(&mut b, Some(x), user, amount);
        b.set_result(
            x,
            json!({"amuletSum": {"amulet": a.cid, "round": round_obj(self.round.max(0)), "amuletPrice": AMULET_PRICE}}),
        );
        self.submit_as_user(l, b, user, "devnet-tap");
    }

    /// Adds the wallet batch of `operations` by `actor` (a root).
    pub(super) fn execute_batch(
        &self,
        b: &mut TreeB,
        wallet: &Con,
        operations: &[Value],
        actor: Vec<PartyIdx>,
    ) -> u32 {
        let arg = json!({ "operations": operations });
        b.exercise(
            None,
            wallet,
            "WalletAppInstall_ExecuteBatch",
            arg,
            false,
            actor,
        )
    }

    pub(super) fn wallet_transfer(&mut self, l: &mut Ledger, locked: bool) {
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
        let x = self.execute_batch(&mut b, &wallet, &[op], vec![sender]);
        let (created, _) = self.pay(
            &mut b,
            Some(x),
            sender,
            &inputs,
            &[(receiver, amount, lock)],
        );
        b.set_result(
            x,
            json!({"outcomes": [batch_outcome("COO_Transfer", &created)]}),
        );
        self.submit_as_user(
            l,
            b,
            sender,
            if locked {
                "locked-transfer"
            } else {
                "transfer"
            },
        );
    }

    pub(super) fn payroll(&mut self, l: &mut Ledger) {
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
        let x = self.execute_batch(&mut b, &wallet, &ops, vec![sender]);
        let mut inputs = self.take_inputs(sender, i64::MAX, 20);
        let mut outcomes = Vec::new();
        for r in receivers {
            let (created, change) = self.pay(&mut b, Some(x), sender, &inputs, &[(r, per, None)]);
            outcomes.push(batch_outcome("COO_Transfer", &created));
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
        self.submit_as_user(l, b, sender, "payroll");
    }

    pub(super) fn unlock(&mut self, l: &mut Ledger) {
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
        let x = b.exercise(None, &lk.con, choice, arg, true, actors.clone());
        let a = self.create_amulet(&mut b, Some(x), lk.owner, lk.amount);
        b.set_result(
            x,
            json!({"amuletSum": {"amulet": a.cid, "round": round_obj(self.round.max(0))}}),
        );
        self.submit(l, b, actors, "unlock");
    }

    pub(super) fn preapproval_send(&mut self, l: &mut Ledger) {
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
        let arg = json!({
            "context": {"amuletRules": self.amulet_rules.as_ref().map(|c| c.cid.clone()), "context": {"openMiningRound": self.open_round().map(|c| c.cid), "issuingMiningRounds": [], "validatorRights": [], "featuredAppRight": null}},
            "inputs": inputs.iter().map(|h| json!({"tag": "InputAmulet", "value": h.con.cid})).collect::<Vec<_>>(),
            "amount": fmt_amount(amount),
            "sender": self.pid(sender),
            "description": "token-standard-transfer"
        });
        let x = b.exercise(
            None,
            &pre,
            "TransferPreapproval_Send",
            arg,
            false,
            vec![sender],
        );
        let (created, change) = self.pay(
            &mut b,
            Some(x),
            sender,
            &inputs,
            &[(receiver, amount, None)],
        );
        b.set_result(
            x,
            json!({"result": {"createdAmulets": created.iter().map(|c| json!({"tag": "TransferResultAmulet", "value": c.cid})).collect::<Vec<_>>(), "senderChangeAmulet": change.map(|c| c.cid)}, "meta": {"values": {"splice.lfdecentralizedtrust.org/tx-kind": "transfer"}}}),
        );
        let meta = TxMeta {
            external: true,
            app_provider: Some(self.validator_of(sender)),
            ..TxMeta::new(vec![sender], "preapproval-send")
        };
        self.finish(l, b, meta);
    }

    pub(super) fn collect(&mut self, l: &mut Ledger, v: usize) {
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
        let x = self.execute_batch(
            &mut b,
            &wallet,
            &[json!({"tag": "CO_MergeTransferInputs", "value": {}})],
            vec![val],
        );
        // A self-transfer merging the rewards into one amulet (no further coupons).
        let keep = total - total / 50;
        let (created, _) = self.transfer_subtree(
            &mut b,
            Some(x),
            val,
            &inputs,
            &coupons,
            &[(val, keep, None)],
        );
        b.set_result(
            x,
            json!({"outcomes": [batch_outcome("COO_MergeTransferInputs", &created)]}),
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
}

/// The outcome `tag` of one operation of a wallet batch that created `created`.
fn batch_outcome(tag: &str, created: &[Con]) -> Value {
    json!({"tag": tag, "value": created.first().map(|c| c.cid.clone())})
}
