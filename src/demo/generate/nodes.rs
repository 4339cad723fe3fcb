//! Building transaction trees: the nodes (create, exercise, archive, fetch) with their
//! stakeholders, and committing a finished tree as a transaction.

use serde_json::{Value, json};

use super::{Con, Generator, TreeB, TxMeta};
use crate::demo::ledger::{Body, CreateNode, Ledger, Node, Tx, Update};
use crate::demo::topology::{PartyIdx, Tpl};

impl Generator {
    /// Adds the creation of a `tpl` contract, its stakeholders as [`Generator::stake`] gives them
    /// for `party` (and `other`).
    pub(super) fn create(
        &mut self,
        b: &mut TreeB,
        parent: Option<u32>,
        tpl: Tpl,
        args: Value,
        party: PartyIdx,
        other: Option<PartyIdx>,
    ) -> Con {
        let (sigs, obs) = self.stake(tpl, party, other);
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

    /// Adds the creation of a contract the DSO alone signs.
    pub(super) fn create_dso(
        &mut self,
        b: &mut TreeB,
        parent: Option<u32>,
        tpl: Tpl,
        args: Value,
    ) -> Con {
        let dso = self.dso();
        self.create(b, parent, tpl, args, dso, None)
    }

    /// Adds the fetch of the open mining round `open`, when there is one.
    pub(super) fn fetch_open(&self, b: &mut TreeB, parent: Option<u32>, open: Option<&Con>) {
        if let Some(con) = open {
            b.add(
                parent,
                Node::Fetch {
                    contract_id: con.cid.clone(),
                    tpl: con.tpl,
                },
            );
        }
    }

    /// Commits the transaction `b` submitted by `submitters` with no further facts.
    pub(super) fn submit(
        &mut self,
        l: &mut Ledger,
        b: TreeB,
        submitters: Vec<PartyIdx>,
        command: &'static str,
    ) {
        self.finish(l, b, TxMeta::new(submitters, command));
    }

    /// Commits the transaction `b` submitted by the user `user` through its validator's app.
    pub(super) fn submit_as_user(
        &mut self,
        l: &mut Ledger,
        b: TreeB,
        user: PartyIdx,
        command: &'static str,
    ) {
        let meta = TxMeta {
            app_provider: Some(self.validator_of(user)),
            ..TxMeta::new(vec![user], command)
        };
        self.finish(l, b, meta);
    }

    /// Commits the transaction `b`; a request the mediator rejects (a share of the
    /// `rejectable` ones) commits nothing and is kept as a verdict-only event: `false`, and
    /// the caller undoes what it assumed of it.
    pub(super) fn finish(&mut self, l: &mut Ledger, b: TreeB, meta: TxMeta) -> bool {
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
        let update = Update {
            update_id,
            migration_id: self.migration,
            record_time: self.now,
            body: Body::Tx(tx),
        };
        if rejected {
            l.commit_verdict_only(update);
            return false;
        }
        l.commit(update);
        true
    }

    /// A wholly private transaction of the app of `provider` with one of its users, just after
    /// the last update: the scan sees its verdict (and the traffic it paid) only, no update.
    /// Drawn from a random stream of its own, so the rest of the history is the same.
    pub(super) fn private_transaction(&mut self, l: &mut Ledger, provider: PartyIdx) {
        let rng = &mut self.private_rng;
        let user = self.net.users[rng.index(self.net.users.len())];
        let con = Con {
            cid: format!("00{}", rng.hex(66)),
            tpl: Tpl::FeaturedAppRight,
            sigs: vec![provider],
            obs: vec![user],
        };
        let mut b = TreeB::new();
        let x = b.exercise(None, &con, "Settle", json!({}), false, vec![provider]);
        b.set_result(x, json!({}));
        let (nodes, roots) = b.finish();
        let update_id = rng.fingerprint();
        let command_id = format!("private-{}", rng.hex(10));
        let finalization_delay = rng.range(20_000, 1_400_000);
        self.set_time(self.now + 1);
        let tx = Tx {
            workflow_id: String::new(),
            command_id,
            sync: crate::demo::topology::APP,
            effective_at: self.now,
            nodes,
            roots,
            external_hash: None,
            rejected: false,
            round: self.round.max(0) as u64,
            submitters: vec![provider],
            app_provider: None,
            finalization_delay,
        };
        l.commit_verdict_only(Update {
            update_id,
            migration_id: self.migration,
            record_time: self.now,
            body: Body::Tx(tx),
        });
    }
}
