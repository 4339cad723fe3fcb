//! The demo network: one generated, internally consistent Canton/Splice ledger (deterministic
//! from a seed) served over real HTTP as all three API groups: scan (`/api/scan`, plus
//! `/svN/api/scan` for extra scan instances), validator scan-proxy (`/api/validator`) and the
//! JSON Ledger API (`/v2`, HS256 bearer tokens signed with [`demo_secret`]).
//!
//! ```text
//! generate (seed) ─► Ledger (updates + derived indexes) ◄─ live task (rate/s), execute…
//!                          │
//!           axum router ───┼── scan (×N, each lagging k updates, own hash-index start)
//!                          ├── validator scan-proxy
//!                          └── ledger /v2 (participant view, offsets, node ids)
//! ```
//!
//! Choices where the specs are silent:
//! - Event ids are `<update_id>:<node_id>` in `/v2/updates` *and* `/v0/events` (the recorded MainNet
//!   `/v0/events/{id}` response uses the un-prefixed form; `#…` only appears in ACS data).
//! - `protobuf_json` renders Daml values in the Ledger API's verbose protobuf-JSON form, with types
//!   inferred from the value shapes (see `render`).
//! - ACS snapshots exist at every 10-minute multiple (UTC) inside a migration's record-time range.
//! - Holdings summaries leave out owners without active amulets.
//! - Transactions of migration 0 have verdicts with empty `view_hash` and `null` traffic summary
//!   and app activity records (data ingested before those existed).
//! - A small share of status-report and activity-marker requests are rejected by the mediator:
//!   they commit nothing (no update, no contract) and are served by `/v0/events` only, as
//!   events with a verdict and no update (`update: null`), as are a few wholly private
//!   transactions (accepted, after about a quarter of the activity markers).
//! - Transfer-command status only reports commands created in the last 24 hours (404 otherwise).
//! - `executeAndWaitForTransaction` commits, for the first signing party (which must be hosted by
//!   the demo participant), the creation of a TransferCommand to another user; its external
//!   transaction hash is the SHA-256 of the decoded `preparedTransaction`. Executing the same
//!   prepared transaction twice answers 409 `DUPLICATE_COMMAND`.
//! - `/v2/updates/trees` without a filter (or with `filtersForAnyParty`) shows what all parties
//!   hosted by the participant see.
//! - The network has one SV per scan: beyond the 4 SVs that run the generated activity, the SVs
//!   of scans 5 to 13 are DSO members from the bootstrap that do nothing else (the history is
//!   the same for every number of scans; only the `DsoRules` SV list grows).
//! - `/v0/dso` derives `sv_node_states` from the network (the history has no `SvNodeState`
//!   contracts) and `sv_user` from the SV's party.

mod auth;
mod faults;
mod generate;
mod ledger;
mod ledger_api;
mod ledger_render;
mod metrics_api;
mod node_metrics;
mod render;
mod reply;
mod reward_rounds;
mod scan_api;
mod server;
mod state;
mod topology;
mod util;
mod validator_api;

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use auth::{demo_secret, make_token};
pub use faults::{DemoFaults, DemoTime, DownMode, MAX_SCANS, NodeFaults, RequestStats};
pub use ledger::{
    Body, CreateNode, ExerciseNode, FaucetStats, Holding, Ledger, Node, Reassign, ReassignKind,
    SNAPSHOT_PERIOD, TcRec, TcStatus, Tx, Update, WeightChange,
};
pub use node_metrics::NODES as METRICS_NODES;
pub use topology::{NUM_SVS, PartyIdx, Tpl};

use state::{AppState, World};

/// How to run the demo network.
#[derive(Clone, Debug, PartialEq)]
pub struct DemoConfig {
    /// Address to listen on; port 0 picks a free port.
    pub listen: SocketAddr,
    /// Seed of the generated ledger (same seed, same history).
    pub seed: u64,
    /// New updates appended per second (0 = a static ledger).
    pub rate: f64,
    /// Number of scan instances of the network's active SVs (1..=4).
    pub scans: usize,
    /// Further scan instances (0..=9, with `scans` = 4), one per further SV, so the demo can
    /// list as many scans as MainNet (13). The network then has one SV per scan: the further
    /// SVs are members of the DSO from its bootstrap (listed in its `DsoRules`, each with its
    /// party, participant and reward weight) and otherwise idle, so the generated history is
    /// the same for every number of scans (see `topology`).
    pub extra_scans: usize,
    /// `user:password` the scan and validator groups require as HTTP basic auth (as servers
    /// behind an authenticating proxy do); `None`: open.
    pub basic_auth: Option<String>,
    /// Each scan after the first lags the head by one more update than the one before it
    /// (scan k by k − 1 updates), as scans of a real network trail each other; off: every scan
    /// without a fault is at the head.
    pub stagger: bool,
    /// Faults of individual scans (none by default).
    pub faults: DemoFaults,
    /// The history ends when it is generated at any time of day: off, one generated in a UTC
    /// day's first quarter hour ends before midnight ([`history_end`]), its head up to a quarter
    /// hour old. On for checks of a fresh head (scan health), whose answers would otherwise
    /// depend on the time of day they run at.
    pub end_now: bool,
}

impl DemoConfig {
    /// Every scan instance: `scans + extra_scans`.
    pub fn total_scans(&self) -> usize {
        self.scans + self.extra_scans
    }

    /// Sets `scans` and `extra_scans` for `total` scans (1..=[`MAX_SCANS`]).
    #[must_use]
    pub fn with_total_scans(mut self, total: usize) -> DemoConfig {
        self.scans = total.min(topology::NUM_SVS);
        self.extra_scans = total.saturating_sub(topology::NUM_SVS);
        self
    }
}

impl Default for DemoConfig {
    fn default() -> Self {
        DemoConfig {
            listen: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            seed: 42,
            rate: 0.0,
            scans: 1,
            extra_scans: 0,
            basic_auth: None,
            stagger: true,
            faults: DemoFaults::default(),
            end_now: false,
        }
    }
}

/// A running demo network. Dropping the handle stops the server in the background;
/// [`DemoHandle::shutdown`] stops it and waits for it.
pub struct DemoHandle {
    /// Scan base URL (`{scan_url}/api/scan/...`).
    pub scan_url: String,
    /// Validator base URL (`{validator_url}/api/validator/...`).
    pub validator_url: String,
    /// Ledger base URL (`{ledger_url}/v2/...`).
    pub ledger_url: String,
    /// A ledger API token (HS256, valid for a day) for user `participant_admin`.
    pub token: String,
    /// Every scan instance, the first being `scan_url` (as `/v0/scans` lists them; a scan that
    /// is down with refused connections has a closed port here).
    pub scan_urls: Vec<String>,
    /// The first SV's nodes' metrics: `(node, URL of its exposition)`, as `metrics` in a
    /// profile names them (`sv-app`, `scan`, `validator`, `participant`, `sequencer`,
    /// `mediator`).
    pub metrics_urls: Vec<(String, String)>,
    /// `POST` here switches the node faults (`{"stalled_rounds": "45m" | "off",
    /// "sequencer_delay": …, "automation_failures": bool, "advance_clock": "31m"}`).
    pub faults_url: String,
    counters: Arc<faults::RequestCounters>,
    shutdown: Option<oneshot::Sender<()>>,
    join: Option<JoinHandle<()>>,
    live: Option<JoinHandle<()>>,
}

impl fmt::Debug for DemoHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DemoHandle")
            .field("scan_url", &self.scan_url)
            .field("validator_url", &self.validator_url)
            .field("ledger_url", &self.ledger_url)
            .field("token", &"<redacted>")
            .field("scan_urls", &self.scan_urls)
            .finish_non_exhaustive()
    }
}

impl DemoHandle {
    /// The requests scan instance `scan` (0 = the first) received, per client IP address.
    pub fn requests(&self, scan: usize) -> Vec<(std::net::IpAddr, RequestStats)> {
        self.counters.stats(scan)
    }

    /// Stops the server gracefully and waits (at most a few seconds) for it to finish.
    pub async fn shutdown(mut self) {
        if let Some(live) = self.live.take() {
            live.abort();
        }
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(join) = self.join.take() {
            let abort = join.abort_handle();
            if tokio::time::timeout(Duration::from_secs(5), join)
                .await
                .is_err()
            {
                abort.abort();
            }
        }
    }
}

impl Drop for DemoHandle {
    fn drop(&mut self) {
        if let Some(live) = self.live.take() {
            live.abort();
        }
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// A seed's generated history without its last round, and when the history ends.
type Cached = (generate::Unfinished, i64);
/// By (seed, SVs, [`DemoConfig::end_now`]).
type Cache = Mutex<HashMap<(u64, usize, bool), Arc<Cached>>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The generated world of `seed` on a network of `svs` SVs, still or going live now at `rate`
/// updates per second: generated once per process, seed and number of SVs but for its last
/// round, then cloned (cheaply: updates are shared) and finished (the last round's open mining
/// round follows the live pace when it goes live, see [`generate::Unfinished::finish`]). Its
/// history ends just before the first generation in this process.
fn world_for(seed: u64, svs: usize, rate: f64, end_now: bool) -> World {
    let svs = svs.clamp(topology::NUM_SVS, topology::MAX_SVS);
    let cached = {
        let mut c = cache().lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(w) = c.get(&(seed, svs, end_now)) {
            Arc::clone(w)
        } else {
            // Times come from the first world of this seed, so every number of SVs has the
            // same history (the same record times included).
            let now = util::now_micros();
            let generated_at = c
                .iter()
                .find(|((s, _, e), _)| *s == seed && *e == end_now)
                .map_or_else(|| ends_at(now, end_now), |(_, w)| w.1);
            let unfinished = generate::history_before_last_round(seed, generated_at, svs);
            let cached = Arc::new((unfinished, generated_at));
            c.insert((seed, svs, end_now), Arc::clone(&cached));
            cached
        }
    };
    let mut history = cached.0.clone();
    let live = (rate > 0.0).then(|| generate::GoesLive {
        at: util::now_micros(),
        rate,
    });
    history.finish(live);
    World {
        ledger: history.ledger,
        generator: history.generator,
    }
}

/// How long after midnight (UTC) a generated history still ends before midnight.
const DAY_START_MARGIN: i64 = 15 * util::MINUTE;

/// When a history generated at `now` ends: `now`, except in the first quarter hour of a UTC day,
/// when it ends a second before midnight, so the recent rows (the last ten minutes, what the
/// explorer shows first) are of one day whenever the demo starts (and its Time column reads the
/// same at any time of day).
pub fn history_end(now: i64) -> i64 {
    let day = 24 * util::HOUR;
    let into_day = now.rem_euclid(day);
    if into_day < DAY_START_MARGIN {
        now - into_day - util::SECOND
    } else {
        now
    }
}

/// When a history generated at `now` ends: [`history_end`], or `now` for
/// [`DemoConfig::end_now`].
fn ends_at(now: i64, end_now: bool) -> i64 {
    if end_now { now } else { history_end(now) }
}

/// The generated ledger of `seed` without a server (for checks and tests), on the network of
/// [`NUM_SVS`] SVs (the history of every demo network of this seed).
pub fn generate(seed: u64) -> Ledger {
    world_for(seed, topology::NUM_SVS, 0.0, false).ledger
}

/// [`generate`] for a demo started with [`DemoConfig::end_now`] (the same history).
pub fn generate_ending_now(seed: u64) -> Ledger {
    world_for(seed, topology::NUM_SVS, 0.0, true).ledger
}

/// Binds, spawns the server (and the live task when `rate > 0`) and returns at once.
pub async fn start(cfg: DemoConfig) -> io::Result<DemoHandle> {
    if cfg.extra_scans > 0 && (cfg.scans != topology::NUM_SVS || cfg.total_scans() > MAX_SCANS) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "extra scans need all {} SV scans and at most {MAX_SCANS} scans in all, got {} + {}",
                topology::NUM_SVS,
                cfg.scans,
                cfg.extra_scans
            ),
        ));
    }
    if let Err(message) = cfg.faults.validate(cfg.total_scans()) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, message));
    }
    if cfg.scans == 0 || cfg.scans > topology::NUM_SVS {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "--scans must be between 1 and {} (one scan per SV), got {}",
                topology::NUM_SVS,
                cfg.scans
            ),
        ));
    }
    if !cfg.rate.is_finite() || cfg.rate < 0.0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("--rate must be a non-negative number, got {}", cfg.rate),
        ));
    }
    let seed = cfg.seed;
    // One SV per scan: more scans than active SVs bring their SVs.
    let svs = cfg.total_scans().max(topology::NUM_SVS);
    let (rate, end_now) = (cfg.rate, cfg.end_now);
    let world = tokio::task::spawn_blocking(move || world_for(seed, svs, rate, end_now))
        .await
        .map_err(io::Error::other)?;
    let listener = tokio::net::TcpListener::bind(cfg.listen)
        .await
        .map_err(|e| io::Error::new(e.kind(), format!("cannot listen on {}: {e}", cfg.listen)))?;
    let addr = listener.local_addr()?;
    let base = format!("http://{addr}");
    let total = cfg.total_scans();
    let mut scan_urls: Vec<String> = (0..total)
        .map(|k| {
            if k == 0 {
                base.clone()
            } else {
                format!("{base}/sv{}", k + 1)
            }
        })
        .collect();
    if let Some((k, DownMode::Refused)) = cfg.faults.down {
        // A port that was free a moment ago and is closed now.
        let closed = std::net::TcpListener::bind((addr.ip(), 0))?.local_addr()?;
        scan_urls[k] = format!("http://{closed}/sv{}", k + 1);
    }
    let state = Arc::new(AppState::new(world, total).with_network(
        scan_urls.clone(),
        cfg.stagger,
        &cfg.faults,
    ));
    let counters = Arc::clone(&state.counters);
    let app = server::router(&state, cfg.basic_auth.clone())
        .into_make_service_with_connect_info::<SocketAddr>();
    let (tx, rx) = oneshot::channel::<()>();
    let join = tokio::spawn(async move {
        let shutdown = async move {
            let _ = rx.await;
        };
        if let Err(e) = axum::serve(listener, app)
            .with_graceful_shutdown(shutdown)
            .await
        {
            tracing::warn!("demo server stopped: {e}");
        }
    });
    let live =
        (cfg.rate > 0.0).then(|| tokio::spawn(server::live_loop(Arc::clone(&state), cfg.rate)));
    let exp = util::now_micros() / 1_000_000 + 24 * 3600;
    let metrics_urls = node_metrics::NODES
        .iter()
        .map(|node| ((*node).to_owned(), format!("{base}/metrics/{node}")))
        .collect();
    Ok(DemoHandle {
        metrics_urls,
        faults_url: format!("{base}/demo/faults"),
        scan_url: base.clone(),
        validator_url: base.clone(),
        ledger_url: base,
        token: make_token("participant_admin", exp),
        scan_urls,
        counters,
        shutdown: Some(tx),
        join: Some(join),
        live,
    })
}

/// Starts the demo network, prints one JSON line
/// `{"scan_url","validator_url","ledger_url","token","scan_urls"}` to stdout and serves until
/// SIGINT or SIGTERM, then shuts down gracefully.
pub async fn serve_forever(cfg: DemoConfig) -> io::Result<()> {
    use std::io::Write as _;
    let handle = start(cfg).await?;
    let line = serde_json::json!({
        "scan_url": handle.scan_url,
        "validator_url": handle.validator_url,
        "ledger_url": handle.ledger_url,
        "token": handle.token,
        "scan_urls": handle.scan_urls,
        "metrics": handle
            .metrics_urls
            .iter()
            .map(|(name, url)| serde_json::json!({"name": name, "url": url}))
            .collect::<Vec<_>>(),
        "faults_url": handle.faults_url,
    });
    {
        let mut out = io::stdout().lock();
        writeln!(out, "{line}")?;
        out.flush()?;
    }
    wait_for_signal().await?;
    handle.shutdown().await;
    Ok(())
}

#[cfg(unix)]
async fn wait_for_signal() -> io::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    tokio::select! {
        r = tokio::signal::ctrl_c() => r,
        _ = term.recv() => Ok(()),
    }
}

#[cfg(not(unix))]
async fn wait_for_signal() -> io::Result<()> {
    tokio::signal::ctrl_c().await
}

#[cfg(test)]
mod tests {
    use super::{ends_at, history_end, util};

    /// A history generated in the first quarter hour of a day ends before midnight, so its last
    /// ten minutes are of one day (the Time column shows no dates); otherwise it ends now.
    #[test]
    fn a_history_generated_just_after_midnight_ends_before_it() {
        let midnight = 1_795_737_600 * util::SECOND; // 2026-11-28T00:00:00Z
        assert_eq!(midnight.rem_euclid(24 * util::HOUR), 0);
        for after in [0, util::SECOND, 5 * util::MINUTE, 15 * util::MINUTE - 1] {
            let end = history_end(midnight + after);
            assert_eq!(end, midnight - util::SECOND, "{after}");
            assert_eq!(ends_at(midnight + after, false), end);
            // Unless the demo is made to end now (checks of a fresh head).
            assert_eq!(ends_at(midnight + after, true), midnight + after);
            // The recent window before it stays in the day before.
            assert!(end - 10 * util::MINUTE > midnight - 24 * util::HOUR);
        }
        for now in [
            midnight + 15 * util::MINUTE,
            midnight - util::SECOND,
            midnight + 12 * util::HOUR,
        ] {
            assert_eq!(history_end(now), now);
            assert_eq!(ends_at(now, true), now);
            assert_eq!(ends_at(now, false), now);
        }
    }
}
