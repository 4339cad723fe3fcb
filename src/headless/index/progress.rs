//! What a running sync or verify says on stderr: the engine's lines, and its progress (a line
//! on a terminal, JSON Lines with `--progress json`); a sync's counters as JSON.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use super::{Value, Write, json, json_text, say};
use crate::indexer::{Counters, Observer, Progress, RETRY_AT_MOST, Waiting};
use crate::model::format::format_time_micros;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ProgressMode {
    Quiet,
    Line,
    Json,
}

pub(super) fn counters_json(c: &Counters) -> Value {
    json!({
        "pages": c.pages,
        "updates_written": c.inserted,
        "updates_known": c.known,
        "odd_scan_updates": c.odd,
        "unconfirmed_at_head": c.unconfirmed,
    })
}

/// The engine's observer: everything on stderr.
pub(super) struct Stderr<'a> {
    pub(super) err: &'a mut dyn Write,
    pub(super) mode: ProgressMode,
    /// Since when (µs; 0: not) the sync waits for the scans, for its heartbeat.
    pub(super) waiting: Arc<AtomicI64>,
}

impl Observer for Stderr<'_> {
    fn say(&mut self, line: &str) {
        say(self.err, line);
    }

    /// While the scans are away: in JSON, a line at each try (`waiting_for_scans_since`);
    /// otherwise a line when the wait starts and when it ends.
    fn waiting(&mut self, waiting: Option<&Waiting>) {
        let before = self
            .waiting
            .swap(waiting.map_or(0, |w| w.since), Ordering::Relaxed);
        let err = &mut *self.err;
        match (self.mode, waiting) {
            (ProgressMode::Json, Some(w)) => {
                let line = json!({
                    "waiting_for_scans_since": format_time_micros(w.since),
                    "retry_in_s": (w.retry_in.as_secs_f64() * 10.0).round() / 10.0,
                    "problem": crate::api::sanitize_line(&w.problem, 300),
                });
                let _ = writeln!(err, "{}", json_text::escape_unsafe(&line.to_string()));
            }
            (ProgressMode::Json, None) => {
                let line = json!({
                    "waiting_for_scans_since": Value::Null,
                    "scans_back_after_s": waited_s(before),
                });
                let _ = writeln!(err, "{}", json_text::escape_unsafe(&line.to_string()));
            }
            (_, Some(w)) if before == 0 => say(
                err,
                &format!(
                    "waiting for scans since {}: {} (trying again at least every {} s)",
                    format_time_micros(w.since),
                    crate::api::sanitize_line(&w.problem, 300),
                    RETRY_AT_MOST.as_secs()
                ),
            ),
            (_, Some(_)) => {}
            (_, None) => say(
                err,
                &format!("the scans answer again after {} s", waited_s(before)),
            ),
        }
        let _ = err.flush();
    }

    fn progress(&mut self, p: &Progress) {
        let err = &mut *self.err;
        match self.mode {
            ProgressMode::Quiet => return,
            ProgressMode::Json => {
                let line = json!({
                    "pages": p.pages,
                    "updates": p.updates,
                    "written": p.written,
                    "updates_per_s": (p.updates_per_s * 10.0).round() / 10.0,
                    "share": (p.share * 1000.0).round() / 1000.0,
                    "eta_s": p.eta_s.map(f64::round),
                    "record_time": p.record_time,
                    "chunks": p.chunks,
                    "scans": p.scans,
                    "verify": p.verify,
                });
                let _ = writeln!(err, "{}", json_text::escape_unsafe(&line.to_string()));
            }
            ProgressMode::Line => {
                let _ = write!(
                    err,
                    "\r{:5.1} % · {} pages · {} updates · {:.0} updates/s · ETA {} · at {} · {} chunks · {} scans, verify {}   ",
                    p.share * 100.0,
                    p.pages,
                    p.updates,
                    p.updates_per_s,
                    p.eta_s
                        .map_or_else(|| "?".to_owned(), |e| format!("{e:.0} s")),
                    crate::api::sanitize_line(&p.record_time, 40),
                    p.chunks,
                    p.scans,
                    p.verify
                );
            }
        }
        let _ = err.flush();
    }
}

/// Seconds since `since` (µs), to a tenth.
fn waited_s(since: i64) -> f64 {
    let micros = crate::indexer::now_micros().saturating_sub(since).max(0);
    (micros as f64 / 100_000.0).round() / 10.0
}
