//! The demo HTTP server: shared state (one ledger behind a lock), the router that mounts the scan
//! group (once per scan instance), the validator proxy group and the ledger group, common response
//! helpers, and the live task that appends updates.

use base64::Engine as _;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::faults::{DemoFaults, DownMode, Faults, Gate, RequestCounters, gate};
use super::generate::Generator;
use super::ledger::Ledger;
use super::network::Network;
use super::util::now_micros;

/// The ledger plus the generator that extends it.
#[derive(Clone, Debug)]
pub(crate) struct World {
    pub ledger: Ledger,
    pub generator: Generator,
    /// The time (µs) the history was generated up to: every world of a seed shares it.
    pub generated_at: i64,
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

/// An error response, boxed (responses are large) so `Result<_, Fail>` stays small.
pub(crate) struct Fail(Box<Response>);

impl From<Response> for Fail {
    fn from(r: Response) -> Fail {
        Fail(Box::new(r))
    }
}

impl IntoResponse for Fail {
    fn into_response(self) -> Response {
        *self.0
    }
}

/// A handler result: the response, or the error response.
pub(crate) type Reply = Result<Response, Fail>;

pub(crate) fn done(r: Reply) -> Response {
    match r {
        Ok(x) => x,
        Err(f) => f.into_response(),
    }
}

/// A JSON response.
pub(crate) fn json_ok(v: Value) -> Response {
    json_status(StatusCode::OK, &v)
}

pub(crate) fn json_status(status: StatusCode, v: &Value) -> Response {
    let body = serde_json::to_vec(v).unwrap_or_default();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The scan / scan-proxy error body `{"error": "..."}`.
pub(crate) fn scan_error(status: StatusCode, msg: impl Into<String>) -> Response {
    json_status(status, &serde_json::json!({ "error": msg.into() }))
}

async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/plain; charset=UTF-8")],
        "The requested resource could not be found.",
    )
        .into_response()
}

/// The whole demo network. With `basic_auth` (`user:password`), the scan and validator groups
/// answer 401 unless the request carries those credentials as HTTP basic auth.
pub(crate) fn router(state: Shared, basic_auth: Option<String>) -> Router {
    let mut open = Router::new().nest(
        "/api/validator",
        super::validator_api::routes(Arc::clone(&state)),
    );
    for k in 0..state.scans {
        let down = state.faults.down.filter(|(s, _)| *s == k).map(|(_, m)| m);
        if down == Some(DownMode::Refused) {
            // Listed with a closed port: nothing is served for it here.
            continue;
        }
        let prefix = if k == 0 {
            "/api/scan".to_owned()
        } else {
            format!("/sv{}/api/scan", k + 1)
        };
        let g = Gate {
            scan: k,
            counters: Arc::clone(&state.counters),
            unavailable: down == Some(DownMode::Unavailable),
            limit: state
                .faults
                .rate_limit
                .filter(|(s, _)| *s == k)
                .map(|(_, r)| r),
        };
        let routes = super::scan_api::routes(Arc::clone(&state), k).layer(
            axum::middleware::from_fn(move |req, next| gate(g.clone(), req, next)),
        );
        open = open.nest(&prefix, routes);
    }
    if let Some(credentials) = basic_auth {
        let expected: Arc<str> = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(credentials)
        )
        .into();
        open = open.layer(axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| {
                let expected = Arc::clone(&expected);
                async move {
                    let given = req.headers().get(header::AUTHORIZATION);
                    if given.is_some_and(|v| v.as_bytes() == expected.as_bytes()) {
                        next.run(req).await
                    } else {
                        scan_error(StatusCode::UNAUTHORIZED, "missing or wrong credentials")
                    }
                }
            },
        ));
    }
    open.merge(super::ledger_api::routes(Arc::clone(&state)))
        .fallback(not_found)
}

/// Appends `rate` updates per second until aborted.
pub(crate) async fn live_loop(state: Shared, rate: f64) {
    let tick = (1.0 / rate).max(0.02);
    let mut interval = tokio::time::interval(Duration::from_secs_f64(tick));
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    interval.tick().await;
    let mut budget = 0.0;
    loop {
        interval.tick().await;
        budget += rate * tick;
        let mut w = state.write();
        let World {
            ledger, generator, ..
        } = &mut *w;
        while budget >= 1.0 {
            generator.live_step(ledger, now_micros());
            budget -= 1.0;
        }
    }
}
