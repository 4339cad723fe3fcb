//! Transfer commands (externally signed): created, later sent, failed, expired or withdrawn,
//! and the ones the ledger API executes.

use serde_json::{Value, json};

use super::{Generator, PendingTc, ROUND_LEN, TcOrder, TcOutcome, TreeB, TxMeta};
use crate::demo::ledger::{Body, Ledger, Tx, Update};
use crate::demo::topology::{GLOBAL, PartyIdx, Tpl};
use crate::demo::util::{HOUR, UNIT, fmt_amount, fmt_time6};

impl Generator {
    /// Adds the creation of the transfer command `order` (expiring at `expires_at`) and keeps it
    /// pending until round `resolve_round`, where it ends as `outcome`. False without the rules.
    pub(super) fn tc_tree(
        &mut self,
        b: &mut TreeB,
        order: TcOrder,
        expires_at: i64,
        resolve_round: i64,
        outcome: TcOutcome,
    ) -> bool {
        let Some(rules) = self.ext_rules.clone() else {
            return false;
        };
        let TcOrder {
            sender,
            receiver,
            amount,
            nonce,
        } = order;
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
        let x = b.exercise(
            None,
            &rules,
            "ExternalPartyAmuletRules_CreateTransferCommand",
            args.clone(),
            false,
            vec![sender],
        );
        let con = self.create(
            b,
            Some(x),
            Tpl::TransferCommand,
            args,
            sender,
            Some(delegate),
        );
        b.set_result(x, json!({"transferCommandCid": con.cid}));
        self.tcs.push(PendingTc {
            con,
            order,
            resolve_round,
            outcome,
        });
        true
    }

    pub(super) fn create_tc(&mut self, l: &mut Ledger) {
        let busy: Vec<PartyIdx> = self.tcs.iter().map(|t| t.order.sender).collect();
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
        let mut b = TreeB::new();
        let order = TcOrder::new(l, sender, receiver, amount);
        if !self.tc_tree(&mut b, order, expires_at, self.round + delay, outcome) {
            return;
        }
        let meta = TxMeta {
            external: true,
            ..TxMeta::new(vec![sender], "create-transfer-command")
        };
        self.finish(l, b, meta);
    }

    pub(super) fn resolve_tc(&mut self, l: &mut Ledger, cid: &str) {
        let Some(i) = self.tcs.iter().position(|t| t.con.cid == cid) else {
            return;
        };
        let tc = self.tcs.remove(i);
        let dso = self.dso();
        let delegate = self.validator_of(tc.order.sender);
        let mut b = TreeB::new();
        let mut outcome = tc.outcome;
        let expected = l.next_nonce(tc.order.sender);
        let mut fail_reason = String::from("ITR_Other: the transfer was rejected by the delegate");
        if outcome == TcOutcome::Send && expected != tc.order.nonce {
            outcome = TcOutcome::Fail;
            fail_reason = format!(
                "Expected nonce {expected} but the command has nonce {}",
                tc.order.nonce
            );
        }
        if outcome == TcOutcome::Send && self.balance(tc.order.sender) < tc.order.amount + UNIT {
            outcome = TcOutcome::Fail;
            fail_reason = format!(
                "ITR_InsufficientFunds: missing {} amulet",
                fmt_amount(tc.order.amount + UNIT - self.balance(tc.order.sender))
            );
        }
        let (choice, arg, actor) = match outcome {
            TcOutcome::Send | TcOutcome::Fail => (
                "TransferCommand_Send",
                json!({"context": {"amuletRules": self.amulet_rules.as_ref().map(|c| c.cid.clone()), "openMiningRound": self.open_round().map(|c| c.cid)}, "inputs": [], "transferPreapprovalCidO": null, "transferCounterCid": null}),
                delegate,
            ),
            TcOutcome::Expire => ("TransferCommand_Expire", json!({"p": self.pid(dso)}), dso),
            TcOutcome::Withdraw => ("TransferCommand_Withdraw", json!({}), tc.order.sender),
        };
        let x = b.exercise(None, &tc.con, choice, arg, true, vec![actor]);
        let (sender, nonce) = (self.pid(tc.order.sender), tc.order.nonce.to_string());
        let sent = |tag: &str, value: Value| json!({"result": {"tag": tag, "value": value}, "sender": sender, "nonce": nonce});
        let result = match outcome {
            TcOutcome::Send => {
                let inputs = self.take_inputs(tc.order.sender, tc.order.amount + UNIT, 8);
                let (created, change) = self.pay(
                    &mut b,
                    Some(x),
                    tc.order.sender,
                    &inputs,
                    &[(tc.order.receiver, tc.order.amount, None)],
                );
                sent(
                    "TransferCommandResultSuccess",
                    json!({"createdAmulets": created.iter().map(|c| json!({"tag": "TransferResultAmulet", "value": c.cid})).collect::<Vec<_>>(), "senderChangeAmulet": change.map(|c| c.cid)}),
                )
            }
            TcOutcome::Fail => sent(
                "TransferCommandResultFailure",
                json!({"reason": fail_reason}),
            ),
            TcOutcome::Expire => json!("TransferCommand_ExpireResult"),
            TcOutcome::Withdraw => json!("TransferCommand_WithdrawResult"),
        };
        b.set_result(x, result);
        let submitters = vec![actor];
        let meta = TxMeta {
            external: outcome == TcOutcome::Withdraw,
            ..TxMeta::new(submitters, "transfer-command")
        };
        self.finish(l, b, meta);
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
        let mut b = TreeB::new();
        let order = TcOrder::new(l, sender, receiver, amount);
        let expires_at = self.now + 24 * HOUR;
        if !self.tc_tree(&mut b, order, expires_at, self.round + 2, TcOutcome::Send) {
            return None;
        }
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
}
