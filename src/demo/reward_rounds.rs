//! The CIP-0104 rounds' activity the demo's scans serve reward accounting from: per round, each
//! app provider's weight and the records, walked over the ledger once and extended as it grows.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::ledger::{Body, Ledger, Update};
use super::topology::Network;

/// One round's activity: weight per provider party id, and how many records.
#[derive(Default)]
pub(crate) struct RoundActivity {
    pub(crate) weights: BTreeMap<String, i64>,
    pub(crate) records: i64,
}

/// The rounds of the ledger: activity per round with records, and the newest round.
#[derive(Default)]
pub(crate) struct Rounds {
    pub(crate) activity: BTreeMap<i64, RoundActivity>,
    pub(crate) newest: i64,
}

/// The rounds' activity, walked over the ledger once and then extended with the updates it
/// gained since (the ledger only grows): a reward tree's walk asks for every batch of a round,
/// and each request walking the whole history again made a walk over the demo's rounds take
/// minutes.
#[derive(Default)]
pub(crate) struct RewardRounds {
    walked: usize,
    rounds: Rounds,
}

impl RewardRounds {
    pub(crate) fn current(&mut self, net: &Network, l: &Ledger) -> &Rounds {
        let updates = l.updates();
        if self.walked > updates.len() {
            *self = RewardRounds::default();
        }
        self.rounds.add(net, &updates[self.walked..]);
        self.walked = updates.len();
        &self.rounds
    }
}

impl Rounds {
    fn add(&mut self, net: &Network, updates: &[Arc<Update>]) {
        for u in updates {
            let Body::Tx(tx) = &u.body else { continue };
            let round = i64::try_from(tx.round).unwrap_or(i64::MAX);
            self.newest = self.newest.max(round);
            if u.migration_id == 0 || tx.rejected {
                continue;
            }
            let Some(p) = tx.app_provider else { continue };
            let a = self.activity.entry(round).or_default();
            *a.weights.entry(net.party_id(p).to_owned()).or_default() +=
                crate::demo::render::traffic_cost(u, tx);
            a.records += 1;
        }
    }
}
