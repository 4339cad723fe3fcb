//! The demo server's shared state: the world (one ledger and the generator that extends it)
//! behind a lock, the scans' URLs and faults, and what a scan instance has ingested. Every
//! endpoint module reads it through [`Shared`]; the router (`server.rs`) builds it.

use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::faults::{DemoFaults, Faults, RequestCounters};
use super::generate::Generator;
use super::ledger::Ledger;
use super::topology::Network;
use super::util::now_micros;

/// The ledger plus the generator that extends it.
#[derive(Clone, Debug)]
pub(crate) struct World {
    pub ledger: Ledger,
    pub generator: Generator,
}

pub(crate) struct AppState {
    world: RwLock<World>,
    pub net: Arc<Network>,
    pub scans: usize,
    pub started: i64,
    /// The public URL of each scan instance, as `/v0/scans` lists them.
    pub urls: Vec<String>,
    /// Scan k lags the head by k updates.
    pub stagger: bool,
    pub faults: Faults,
    pub counters: Arc<RequestCounters>,
    /// The scans that answer 503 for now, a bit each (scan k: bit k), as `POST /demo/faults`
    /// `{"scans_down": true | false | [k, …]}` switched them: scans gone and back while the
    /// demo, and its history, runs on.
    pub scans_down: Arc<std::sync::atomic::AtomicU32>,
    /// The nodes' metrics and their faults.
    pub node_metrics: super::node_metrics::SharedMetrics,
    /// The CIP-104 rounds' activity, extended as the ledger grows.
    pub reward_rounds: std::sync::Mutex<super::reward_rounds::RewardRounds>,
}

/// Where each scan instance started indexing external transaction hashes, as a fraction of the
/// history present at start (scan 0 = the first scan).
const HASH_INDEX_START: [f64; 4] = [0.5, 0.2, 0.7, 0.35];

impl AppState {
    pub fn new(world: World, scans: usize) -> AppState {
        let net = Arc::clone(&world.ledger.net);
        AppState {
            world: RwLock::new(world),
            net,
            scans,
            started: now_micros(),
            urls: Vec::new(),
            stagger: true,
            faults: Faults::default(),
            counters: Arc::default(),
            scans_down: Arc::default(),
            node_metrics: Arc::new(std::sync::Mutex::new(
                super::node_metrics::NodeMetrics::new(&super::faults::NodeFaults::default()),
            )),
            reward_rounds: std::sync::Mutex::default(),
        }
    }

    /// The same state with the scans' public URLs, whether they trail each other, and their
    /// faults.
    pub fn with_network(
        mut self,
        urls: Vec<String>,
        stagger: bool,
        faults: &DemoFaults,
    ) -> AppState {
        self.stagger = stagger;
        let resolved = Faults::resolve(faults, &self.read().ledger);
        self.faults = resolved;
        self.node_metrics = Arc::new(std::sync::Mutex::new(
            super::node_metrics::NodeMetrics::new(&faults.node),
        ));
        self.urls = urls;
        self
    }

    pub fn read(&self) -> RwLockReadGuard<'_, World> {
        self.world.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn write(&self) -> RwLockWriteGuard<'_, World> {
        self.world.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Number of updates scan instance `scan` has ingested: each extra scan lags the head by one
    /// more update (with `stagger`), a lagging scan by its lag.
    pub fn visible_len(&self, ledger: &Ledger, scan: usize) -> usize {
        let staggered = if self.stagger {
            ledger.len().saturating_sub(scan)
        } else {
            ledger.len()
        };
        match self.faults.lag_of(scan) {
            // A lagging scan: nothing newer than its lag behind the newest update.
            Some(lag) => {
                let cutoff = self.lag_cutoff(ledger, lag);
                staggered.min(
                    ledger
                        .updates()
                        .partition_point(|u| u.record_time <= cutoff),
                )
            }
            None => staggered,
        }
    }

    /// The newest record time a scan lagging by `lag` (µs) has.
    pub fn lag_cutoff(&self, ledger: &Ledger, lag: i64) -> i64 {
        ledger.updates().last().map_or(0, |u| u.record_time) - lag
    }

    /// The first update index whose external hash scan instance `scan` has indexed.
    pub fn hash_index_start(&self, ledger: &Ledger, scan: usize) -> usize {
        let frac = HASH_INDEX_START[scan % HASH_INDEX_START.len()];
        (ledger.initial_len as f64 * frac) as usize
    }
}

pub(crate) type Shared = Arc<AppState>;
