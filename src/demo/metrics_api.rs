//! The demo's metrics API: `/metrics/{node}` serves each node's metrics (as
//! [`super::node_metrics`] writes them), and `/demo/faults` reads (`GET`) and switches (`POST`)
//! the node faults while the demo runs, moving the metrics' clock forward on request, and
//! takes every scan away (503) and back.

use std::sync::PoisonError;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;

use super::node_metrics::{NODES, NodeMetrics, micros};
use super::state::Shared;
use super::util::SECOND;

/// `POST /demo/faults`: each field optional; a duration, or `"off"` (or `"0s"`) to clear.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FaultsBody {
    stalled_rounds: Option<String>,
    sequencer_delay: Option<String>,
    automation_failures: Option<bool>,
    /// Every scan answers 503 (`true`), or these scans (`[k, …]`: scan k, from 0), or every
    /// scan serves again (`false`, `[]`).
    scans_down: Option<serde_json::Value>,
    /// Moves the metrics' clock forward by this much.
    advance_clock: Option<String>,
}

fn duration_or_off(text: &str) -> Result<Option<Duration>, String> {
    if text.trim().eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    parse_span(text).map(|d| (!d.is_zero()).then_some(d))
}

/// A span as the control request writes it: `45m`, `10m`, `1h30m`, `90s`, `500ms`.
fn parse_span(text: &str) -> Result<Duration, String> {
    let mut total = Duration::ZERO;
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err("empty duration".to_owned());
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let number: u64 = rest[..digits]
            .parse()
            .map_err(|_| format!("bad duration {text:?}"))?;
        rest = &rest[digits..];
        let unit = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let part = match &rest[..unit] {
            "ms" => Duration::from_millis(number),
            "s" => Duration::from_secs(number),
            "m" => Duration::from_secs(number.saturating_mul(60)),
            "h" => Duration::from_secs(number.saturating_mul(3600)),
            "d" => Duration::from_secs(number.saturating_mul(86_400)),
            other => return Err(format!("bad unit {other:?} in {text:?} (ms, s, m, h, d)")),
        };
        total = total.saturating_add(part);
        rest = &rest[unit..];
    }
    Ok(total)
}

/// The scans `scans_down` takes away, a bit each: `true` every one, `false` none, `[k, …]`
/// those (scan k from 0).
fn down_mask(value: &serde_json::Value) -> Result<u32, String> {
    match value {
        serde_json::Value::Bool(all) => Ok(if *all { u32::MAX } else { 0 }),
        serde_json::Value::Array(scans) => scans.iter().try_fold(0u32, |mask, scan| {
            scan.as_u64()
                .filter(|k| *k < 32)
                .map(|k| mask | 1 << k)
                .ok_or_else(|| format!("scans_down: not a scan number: {scan}"))
        }),
        other => Err(format!("scans_down: true, false or [k, …], not {other}")),
    }
}

fn faults_json(m: &NodeMetrics) -> serde_json::Value {
    let text = |d: Option<Duration>| d.map(|d| format!("{}s", d.as_secs()));
    serde_json::json!({
        "stalled_rounds": text(m.faults.stalled_rounds),
        "sequencer_delay": text(m.faults.sequencer_delay),
        "automation_failures": m.faults.automation_failures,
        "clock_offset": format!("{}s", m.offset / SECOND),
    })
}

fn plain(status: StatusCode, text: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=UTF-8")],
        text,
    )
        .into_response()
}

/// The metrics and control routes.
pub(crate) fn routes(state: Shared) -> Router {
    Router::new()
        .route(
            "/metrics/{node}",
            get(
                |State(state): State<Shared>, Path(node): Path<String>| async move {
                    let urls = state.urls.clone();
                    let metrics = state
                        .node_metrics
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner);
                    match metrics.exposition(&node, &state.net, &urls) {
                        Some(text) => (
                            StatusCode::OK,
                            [(
                                header::CONTENT_TYPE,
                                "text/plain; version=0.0.4; charset=utf-8",
                            )],
                            text,
                        )
                            .into_response(),
                        None => plain(
                            StatusCode::NOT_FOUND,
                            format!("no node {node:?} (nodes: {})", NODES.join(", ")),
                        ),
                    }
                },
            ),
        )
        .route(
            "/demo/faults",
            get(|State(state): State<Shared>| async move {
                let metrics = state
                    .node_metrics
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                Json(faults_json(&metrics)).into_response()
            })
            .post(
                |State(state): State<Shared>, body: axum::body::Bytes| async move {
                    let body: FaultsBody = match serde_json::from_slice(&body) {
                        Ok(body) => body,
                        Err(e) => {
                            return plain(StatusCode::BAD_REQUEST, format!("bad faults body: {e}"));
                        }
                    };
                    let mut metrics = state
                        .node_metrics
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner);
                    let mut faults = metrics.faults.clone();
                    let parsed = (|| -> Result<(Option<Duration>, Option<u32>), String> {
                        if let Some(text) = &body.stalled_rounds {
                            faults.stalled_rounds = duration_or_off(text)?;
                        }
                        if let Some(text) = &body.sequencer_delay {
                            faults.sequencer_delay = duration_or_off(text)?;
                        }
                        if let Some(on) = body.automation_failures {
                            faults.automation_failures = on;
                        }
                        let down = body.scans_down.as_ref().map(down_mask).transpose()?;
                        let advance = body.advance_clock.as_deref().map(parse_span).transpose()?;
                        Ok((advance, down))
                    })();
                    match parsed {
                        Ok((advance, down)) => {
                            if let Some(down) = down {
                                state
                                    .scans_down
                                    .store(down, std::sync::atomic::Ordering::Relaxed);
                            }
                            metrics.offset += advance.map_or(0, micros);
                            metrics.set(faults);
                            Json(faults_json(&metrics)).into_response()
                        }
                        Err(e) => plain(StatusCode::BAD_REQUEST, e),
                    }
                },
            ),
        )
        .with_state(state)
}
