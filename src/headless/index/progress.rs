//! What a running sync or verify says on stderr: the engine's lines, and its progress (a line
//! on a terminal, JSON Lines with `--progress json`); a sync's counters as JSON.

use super::{Value, Write, json, json_text, say};
use crate::indexer::{Counters, Observer, Progress};

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
}

impl Observer for Stderr<'_> {
    fn say(&mut self, line: &str) {
        say(self.err, line);
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
