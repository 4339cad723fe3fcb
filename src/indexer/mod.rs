//! The engine that fills and verifies the local history index: library code any driver runs
//! (the headless `index sync` and `index verify` commands today; the explorer or a daemon the
//! same way).
//!
//! A sync walks `POST /v2/updates` ([`PageWalk`], as `scan updates --all` does) into the index.
//! The bodies come from the profile's own scan; each page is asked of other scans too (the
//! verifiers rotate among them) and written only when `N` scans have every update with the same
//! digest ([`judge`](crate::model::index::verify::judge)). A disagreement is put to every scan:
//! a version held by f + 1 (and at least N) scans is written and the odd scans recorded;
//! otherwise the sync stops at that update ([`Halt::Diverged`]) without writing it. A scan that
//! fails (403, down, backfilling) is skipped for another ([`Failure::NoQuorum`] when N scans
//! cannot be had). Each page is one transaction with its chunk's cursor; a sync resumes each
//! unfinished chunk by re-reading its last committed page (which also detects history rewritten
//! under the index). Bodies are packed with a dictionary trained from the first pages.
//!
//! The engine takes everything as parameters: the store ([`Shared`]), an [`ApiClient`] and the
//! settings (the scans are discovered from them), a [`Plan`], an [`Observer`] (lines for the
//! user and the progress after each page: the engine never prints) and the [`Cancel`] signal.
//! It ends with typed outcomes ([`Halt`], [`Failure`]) and the findings it made
//! ([`Engine::take_findings`]); the driver says them and chooses exit codes.
//!
//! It is async functions only: it spawns no task. The store's calls and the decoding of pages
//! run on tokio's blocking threads ([`Shared::call`]), a heartbeat is a future the driver runs
//! ([`beat_every`]).
//!
//! ```text
//! mod.rs       the plan, the outcomes, the observer, connecting to the scans
//! shared.rs    the store shared with the blocking threads that run its calls
//! sync.rs      a sync: chunks, the walk, writing verified pages, the body dictionary
//! scans.rs     a page from the scans, verified (shared by sync and verify)
//! verify.rs    a verify: the stored digests against the scans now
//! progress.rs  the progress after a page
//! outage.rs    a following sync waiting for scans that went away
//! ```

mod events;
mod events_read;
mod events_row;
mod outage;
mod progress;
mod scans;
mod shared;
mod sync;
mod verify;

pub use events::EventsCounts;

/// What one scan answered to a read several scans were asked (a page of updates, of events).
trait ScanAnswer {
    fn scan(&self) -> usize;
}

/// A divergence record's detail: the versions the scans serve, the JSON paths where the first
/// two differ (`more_differences` when the list was cut) and how many scans keep a version.
fn divergence_detail(
    versions: &[serde_json::Value],
    (differences, truncated): (&[crate::model::consensus::Difference], bool),
    needed: usize,
) -> serde_json::Value {
    serde_json::json!({
        "versions": versions,
        "differences": differences.iter().map(|d| serde_json::json!({
            "path": d.path, "first": d.quorum, "second": d.this,
        })).collect::<Vec<_>>(),
        "more_differences": truncated,
        "needed": needed,
    })
}

/// Scan `scan`'s answer among `answers`.
fn answer_of<A: ScanAnswer>(answers: &[A], scan: usize) -> Option<&A> {
    answers.iter().find(|a| a.scan() == scan)
}
pub use outage::{RETRY_AT_MOST, Waiting};
pub use progress::Progress;
pub use shared::{Shared, blocking};
pub use verify::{Found, RangeCheck};

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use tokio::time::Instant;

use crate::api::ApiClient;
use crate::api::scan::{self, UpdatesAfter};
use crate::config::Settings;
use crate::every_scan::discovery::{ListSource, discover};
use crate::every_scan::{Cancel, Network, ScanBudget};
use crate::model::consensus::quorum;
use crate::model::findings::{FindingOp, FoundBy};
use crate::model::index::pack::Packing;
use crate::store::{DivergenceRecord, Heartbeat, IndexWriter, NetworkId, Position, StoreError};

/// How often a sync's heartbeat is written ([`beat_every`]).
pub const BEAT_EVERY: Duration = Duration::from_secs(5);
/// How long a following sync waits at the head before asking again.
const FOLLOW_POLL: Duration = Duration::from_secs(2);

/// Unix µs now.
pub fn now_micros() -> i64 {
    chrono::Utc::now().timestamp_micros()
}

/// How many scans must agree on a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verify {
    /// This many scans (1: unverified, recorded as such).
    Scans(usize),
    /// f + 1 of the network.
    Quorum,
}

impl Verify {
    /// As the user gave it (`3`, `quorum`).
    pub fn label(self) -> String {
        match self {
            Verify::Scans(n) => n.to_string(),
            Verify::Quorum => "quorum".to_owned(),
        }
    }
}

/// What a sync does with the updates' events (`POST /v0/events`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventsMode {
    /// After the updates, the events of the updates kept without them.
    Keep,
    /// The updates alone (`--no-events`; a verify).
    Skip,
    /// The events alone, of the updates the index keeps (`--events`).
    Only,
}

/// What a sync or a verify is asked.
#[derive(Debug, Clone)]
pub struct Plan {
    /// `begin` or an RFC 3339 time.
    pub from: Option<String>,
    /// Inclusive, µs.
    pub until: Option<i64>,
    /// Go on at the head, asking again every [`FOLLOW_POLL`].
    pub follow: bool,
    pub verify: Verify,
    /// Keep the updates' bodies.
    pub bodies: bool,
    /// What of `/v0/events` a sync keeps.
    pub events: EventsMode,
    pub page_size: i32,
    /// Requests per second per scan.
    pub rate: f64,
    pub timeout: Duration,
    /// Time chunks a `from` time range is walked in, side by side.
    pub chunks: usize,
}

/// Why the engine could not go on (each is one exit code and message of the driver's).
#[derive(Debug)]
pub enum Failure {
    /// Asked what cannot be done (a `from` that is no time, the profile's scan not listed).
    Usage(String),
    /// A scan answered what the walk cannot take (an error status, a page out of order).
    Server(String),
    /// A scan that cannot be reached or timed out.
    Connect(String),
    /// A page that cannot be decoded or summarised.
    Decode(String),
    /// Fewer scans than the verification needs.
    NoQuorum(String),
    /// The profile's scan refused the network's DSO read.
    Api(crate::api::ApiError),
    /// The index.
    Store(StoreError),
}

/// Why a sync or a verify stopped before its end.
#[derive(Debug)]
pub enum Halt {
    Failed(Failure),
    /// Scans disagree: the record (kept by a sync) and the message.
    Diverged(Box<DivergenceRecord>, String),
    Interrupted,
}

impl From<StoreError> for Halt {
    fn from(e: StoreError) -> Self {
        Halt::Failed(Failure::Store(e))
    }
}

/// What the engine tells its driver while it runs.
pub trait Observer {
    /// A line for the user (a warning; what the scan list said).
    fn say(&mut self, line: &str);
    /// How far the walk is, after each page.
    fn progress(&mut self, progress: &Progress);
    /// A following sync waits for the scans (`Some`, at each try) or has them back (`None`).
    fn waiting(&mut self, _waiting: Option<&Waiting>) {}
}

/// The running walk's counters.
#[derive(Debug, Default)]
pub struct Counters {
    pub pages: u64,
    pub inserted: u64,
    pub known: u64,
    pub odd: u64,
    /// Updates the profile's scan had that no other scan could confirm yet (at the head).
    pub unconfirmed: u64,
}

/// Everything one sync or verify works with.
pub struct Engine<'a> {
    net: Network,
    primary: usize,
    store: Shared<dyn IndexWriter>,
    plan: &'a Plan,
    needed: usize,
    threshold: usize,
    /// Where the verifiers of the next page start.
    rotation: Cell<usize>,
    /// The scans named as not serving the events (said once per sync, a follower's rounds
    /// included).
    events_not_served: std::cell::RefCell<Vec<String>>,
    counters: RefCell<Counters>,
    started: Instant,
    /// Per chunk walked: the record times (µs) it started at and has reached, for the share
    /// of the range done.
    reach: RefCell<BTreeMap<i64, (i64, i64)>>,
    /// The end of the range (µs), for the share.
    end: Cell<Option<i64>>,
    /// Chunks walk concurrently on this one task: every borrow of these cells is short and
    /// never held across an `.await`.
    observer: RefCell<&'a mut dyn Observer>,
    cancel: &'a Cancel,
    /// How bodies are packed, per network migration, once its dictionary is known.
    packing: RefCell<HashMap<i64, Rc<Packing>>>,
    /// Per migration without its dictionary yet: the bodies written so far as they are packed
    /// (`crate::model::index::pack::body_sample`), to train it from.
    samples: RefCell<HashMap<i64, Vec<String>>>,
    /// Per migration without its dictionary yet: how its bodies are packed meanwhile (with the
    /// index's newest dictionary when the sync found it, else without one).
    meanwhile: RefCell<HashMap<i64, Rc<Packing>>>,
    /// Held while a chunk reads, trains or keeps the dictionary, so chunks walking side by
    /// side train one, not one each.
    training: tokio::sync::Mutex<()>,
    /// Scans found serving an update differently (diverged history), for the network's
    /// findings ([`Engine::take_findings`]).
    findings: RefCell<Vec<FindingOp>>,
    /// Per chunk written: the scans found odd in it, none of its confirming scans.
    odd_in_chunk: RefCell<BTreeMap<i64, BTreeSet<String>>>,
    /// Since when (µs) a following sync has waited for the scans.
    waiting_since: Cell<Option<i64>>,
    /// The scan the bodies come from while the profile's is down.
    bodies_elsewhere: Cell<Option<usize>>,
    /// The scan the events pages come from while the profile's is down.
    events_elsewhere: Cell<Option<usize>>,
}

impl<'a> Engine<'a> {
    /// What a sync or a verify works with: the network's scans (the profile's own among them,
    /// found with `client` from `settings`), the index's network claimed (another network's
    /// index refused), the verification checked against the scans there are.
    pub async fn connect(
        store: Shared<dyn IndexWriter>,
        client: &ApiClient,
        settings: &Settings,
        plan: &'a Plan,
        observer: &'a mut dyn Observer,
        cancel: &'a Cancel,
    ) -> Result<Engine<'a>, Halt> {
        // A following sync whose scans are down waits for them.
        let mut outage = outage::Outage::default();
        let (net, primary, counted) = loop {
            let mut listed = false;
            match joined(&store, client, settings, plan, &mut *observer, &mut listed).await {
                Ok(parts) => break parts,
                // Too few scans in a network whose list was read: no wait brings more.
                Err(halt @ Halt::Failed(Failure::NoQuorum(_))) if listed => return Err(halt),
                Err(halt) => {
                    outage
                        .wait(halt, plan.follow, &mut *observer, cancel)
                        .await?;
                }
            }
        };
        if outage.waited() {
            observer.waiting(None);
        }
        let needed = match plan.verify {
            Verify::Scans(n) => n,
            Verify::Quorum => quorum(counted),
        };
        Ok(Engine {
            net,
            primary,
            store,
            plan,
            needed,
            threshold: quorum(counted).max(needed),
            rotation: Cell::new(0),
            events_not_served: std::cell::RefCell::default(),
            counters: RefCell::new(Counters::default()),
            started: Instant::now(),
            reach: RefCell::new(BTreeMap::new()),
            end: Cell::new(plan.until),
            observer: RefCell::new(observer),
            cancel,
            packing: RefCell::new(HashMap::new()),
            samples: RefCell::new(HashMap::new()),
            meanwhile: RefCell::new(HashMap::new()),
            training: tokio::sync::Mutex::new(()),
            findings: RefCell::new(Vec::new()),
            odd_in_chunk: RefCell::new(BTreeMap::new()),
            waiting_since: Cell::new(None),
            bodies_elsewhere: Cell::new(None),
            events_elsewhere: Cell::new(None),
        })
    }

    /// The counters so far.
    pub fn counters(&self) -> std::cell::Ref<'_, Counters> {
        self.counters.borrow()
    }

    /// The counters, the engine done.
    pub fn into_counters(self) -> Counters {
        self.counters.into_inner()
    }

    /// The diverged histories found since the last call, as findings `found_by` (a sync's or a
    /// verify's), for the driver to keep with the network's findings (so the explorer,
    /// `network health` and `check` name those scans too).
    pub fn take_findings(&self, found_by: FoundBy) -> Vec<FindingOp> {
        let mut ops = std::mem::take(&mut *self.findings.borrow_mut());
        for op in &mut ops {
            if let FindingOp::Open(f) = op {
                f.found_by = found_by;
            }
        }
        ops
    }

    fn say(&self, line: &str) {
        self.observer.borrow_mut().say(line);
    }
}

/// The network's scans found (the profile's among them: its index), the index's network claimed
/// and the scans checked against the verification: the scans, the profile's, how many count.
/// `listed`: whether the network's scan list was read now (not a copy kept, nor none).
async fn joined(
    store: &Shared<dyn IndexWriter>,
    client: &ApiClient,
    settings: &Settings,
    plan: &Plan,
    observer: &mut dyn Observer,
    listed: &mut bool,
) -> Result<(Network, usize, usize), Halt> {
    let discovered = discover(
        client,
        settings,
        settings.data_path().as_deref(),
        now_micros(),
    )
    .await;
    for warning in &discovered.warnings {
        observer.say(&format!("warning: {warning}"));
    }
    *listed = matches!(discovered.source, ListSource::Fetched { .. });
    if let ListSource::Unavailable { errors } = &discovered.source {
        for error in errors {
            observer.say(&format!("cannot read the scan list: {error}"));
        }
    }
    let synchronizer = discovered
        .list
        .as_ref()
        .map(|l| l.domain_id.clone())
        .unwrap_or_default();
    let budget = ScanBudget {
        rate: plan.rate,
        timeout: plan.timeout,
        ..ScanBudget::default()
    };
    let net = Network::new(client, discovered.entries.clone(), budget);
    let Some(primary) = net.entries().position(|e| e.own) else {
        return Err(Halt::Failed(Failure::Usage(
            "the profile's scan is not among the scans to ask".to_owned(),
        )));
    };
    // The network the index belongs to.
    let dso = client
        .send(&scan::dso())
        .await
        .map_err(|e| Halt::Failed(Failure::Api(e)))?;
    let network = NetworkId {
        dso_party: dso.dso_party_id.clone(),
        synchronizer,
    };
    store.call(move |s| s.claim_network(&network)).await?;
    let counted = net.counted().iter().filter(|c| **c).count();
    let needed = match plan.verify {
        Verify::Scans(n) => n,
        Verify::Quorum => quorum(counted),
    };
    if needed > net.len() {
        return Err(Halt::Failed(Failure::NoQuorum(format!(
            "not enough scans to verify with: --verify needs {needed} scans to agree and the network has {} ({})",
            net.len(),
            net.entries()
                .map(|e| e.sv_name.clone())
                .collect::<Vec<_>>()
                .join(", ")
        ))));
    }
    Ok((net, primary, counted))
}

/// Moves the heartbeat `beat` of the running sync on every [`BEAT_EVERY`], forever: the driver
/// runs it beside the sync and drops it when the sync ends. While `waiting` holds a time (µs,
/// 0: none) the heartbeat's command says since when the sync waits for the scans (so
/// `index status` shows it).
pub async fn beat_every(store: Shared<dyn IndexWriter>, beat: Heartbeat, waiting: Arc<AtomicI64>) {
    let mut told = 0;
    loop {
        tokio::time::sleep(BEAT_EVERY).await;
        let since = waiting.load(Ordering::Relaxed);
        let now = now_micros();
        if since == told {
            let pid = beat.pid;
            let _ = store.call(move |s| s.refresh_beat(pid, now)).await;
            continue;
        }
        let mut beat = beat.clone();
        beat.beat_at = now;
        if since != 0 {
            beat.command = format!(
                "{} (waiting for scans since {})",
                beat.command,
                crate::model::format::format_time_micros(since)
            );
        }
        if store.call(move |s| s.beat(&beat)).await.is_ok() {
            told = since;
        }
    }
}

fn to_after(p: &Position) -> UpdatesAfter {
    UpdatesAfter {
        after_migration_id: p.migration_id,
        after_record_time: p.record_time.clone(),
    }
}

fn to_position(a: &UpdatesAfter) -> Position {
    Position {
        migration_id: a.after_migration_id,
        record_time: a.after_record_time.clone(),
    }
}
