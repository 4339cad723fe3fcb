//! The demo HTTP server: the router that mounts the scan group (once per scan instance), the
//! validator proxy group and the ledger group, and the live task that appends updates. The
//! state the endpoints share is `state.rs`; the replies they build, `reply.rs`.

use base64::Engine as _;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::faults::{DownMode, Gate, gate};
use super::reply::scan_error;
use super::state::{Shared, World};
use super::util::now_micros;

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
pub(crate) fn router(state: &Shared, basic_auth: Option<String>) -> Router {
    let mut open = Router::new()
        .nest(
            "/api/validator",
            super::validator_api::routes(Arc::clone(state)),
        )
        .merge(super::metrics_api::routes(Arc::clone(state)));
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
            down_now: Arc::clone(&state.scans_down),
            limit: state
                .faults
                .rate_limit
                .filter(|(s, _)| *s == k)
                .map(|(_, r)| r),
        };
        let routes = super::scan_api::routes(Arc::clone(state), k).layer(
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
    open.merge(super::ledger_api::routes(Arc::clone(state)))
        .fallback(not_found)
}

/// Appends `rate` updates per second until aborted.
pub(crate) async fn live_loop(state: Shared, rate: f64) {
    state.write().generator.set_live_rate(rate);
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
