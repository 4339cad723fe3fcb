//! Committing an update: every derived index is updated from its events.

use std::sync::Arc;

use super::update::{Body, CreateNode, ExerciseNode, Node, ReassignKind, Update};
use super::{AmuletRec, ContractRec, Ledger, TcRec, TcStatus, WeightChange, str_at};
use crate::demo::topology::{SyncIdx, Tpl};
use crate::demo::util::parse_amount;

impl Ledger {
    /// Records an event with a verdict and no update (a rejected request, a wholly private
    /// transaction): it changes nothing on the ledger.
    pub(crate) fn commit_verdict_only(&mut self, u: Update) {
        let idx = self.verdicts_only.len() as u32;
        self.verdict_only_by_id.insert(u.update_id.clone(), idx);
        self.verdicts_only.push(Arc::new(u));
    }

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
}
