//! Featured apps on the app synchronizer: reassignments of their rights between the
//! synchronizers and activity markers.

use serde_json::json;

use super::{Con, Featured, Generator, TreeB, TxMeta};
use crate::demo::ledger::{Body, Ledger, Reassign, ReassignKind, Update};
use crate::demo::topology::{APP, GLOBAL, SyncIdx, Tpl};

impl Generator {
    pub(super) fn unassign(&mut self, l: &mut Ledger, f: usize) {
        let Some(fr) = self.featured.get(f).cloned() else {
            return;
        };
        if fr.in_flight.is_some() {
            return;
        }
        let unassign_id = self.rng.fingerprint();
        let counter = fr.counter + 1;
        self.reassign(l, &fr, ReassignKind::Unassign, unassign_id.clone(), counter);
        let fm = &mut self.featured[f];
        fm.counter = counter;
        fm.in_flight = Some(unassign_id);
    }

    pub(super) fn assign(&mut self, l: &mut Ledger, f: usize) {
        let Some(fr) = self.featured.get(f).cloned() else {
            return;
        };
        let Some(unassign_id) = fr.in_flight.clone() else {
            return;
        };
        let target = self.reassign(l, &fr, ReassignKind::Assign, unassign_id, fr.counter);
        let fm = &mut self.featured[f];
        fm.sync = target;
        fm.in_flight = None;
    }

    /// Commits one half of moving the featured-app right `fr` to the other synchronizer, which
    /// it returns.
    pub(super) fn reassign(
        &mut self,
        l: &mut Ledger,
        fr: &Featured,
        kind: ReassignKind,
        unassign_id: String,
        counter: i64,
    ) -> SyncIdx {
        let target = if fr.sync == GLOBAL { APP } else { GLOBAL };
        let update_id = self.rng.fingerprint();
        l.commit(Update {
            update_id,
            migration_id: self.migration,
            record_time: self.now,
            body: Body::Reassign(Reassign {
                kind,
                submitter: fr.provider,
                source: fr.sync,
                target,
                unassign_id,
                counter,
                create: fr.create.clone(),
                created_at: fr.created_at,
            }),
        });
        target
    }

    pub(super) fn activity_marker(&mut self, l: &mut Ledger, f: usize) {
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
        let arg = json!({"beneficiaries": [{"beneficiary": self.pid(beneficiary), "weight": "1.0000000000"}]});
        let x = b.exercise(
            None,
            &con,
            "FeaturedAppRight_CreateActivityMarker",
            arg,
            false,
            vec![fr.provider],
        );
        let args = json!({"dso": self.pid(dso), "provider": self.pid(fr.provider), "beneficiary": self.pid(beneficiary), "weight": "1.0000000000"});
        let m = self.create(
            &mut b,
            Some(x),
            Tpl::FeaturedAppActivityMarker,
            args,
            fr.provider,
            None,
        );
        b.set_result(x, json!({"activityMarkerCids": [m.cid]}));
        let meta = TxMeta {
            sync: APP,
            rejectable: true,
            app_provider: Some(fr.provider),
            ..TxMeta::new(vec![fr.provider], "activity-marker")
        };
        if self.finish(l, b, meta) && self.private_rng.chance(0.25) {
            self.private_transaction(l, fr.provider);
        }
    }
}
