//! What a running sync says: its counters, and progress on stderr (a line on a terminal, JSON
//! Lines with `--progress json`).

use super::{
    Counters, ProgressMode, Syncer, Value, format_time_micros, json, json_text, now_micros,
};

pub(super) fn counters_json(c: &Counters) -> Value {
    json!({
        "pages": c.pages,
        "updates_written": c.inserted,
        "updates_known": c.known,
        "odd_scan_updates": c.odd,
        "unconfirmed_at_head": c.unconfirmed,
    })
}

impl Syncer<'_> {
    pub(super) fn progress(&self) {
        if self.plan.progress == ProgressMode::Quiet {
            return;
        }
        let counters = self.counters.borrow();
        let elapsed = self.started.elapsed().as_secs_f64().max(1e-6);
        let updates = counters.inserted + counters.known;
        let rate = updates as f64 / elapsed;
        let reach = self.reach.borrow();
        let first = reach.values().map(|r| r.0).min();
        let last = reach.values().map(|r| r.1).max();
        let end = self.end.get().unwrap_or_else(now_micros);
        let share = match first {
            Some(first) if end > first => {
                let done: i64 = reach.values().map(|r| r.1 - r.0).sum();
                (done as f64 / (end - first) as f64).clamp(0.0, 1.0)
            }
            _ => 0.0,
        };
        let eta = (share > 0.0).then(|| elapsed * (1.0 - share) / share);
        let at = last.map(format_time_micros).unwrap_or_default();
        let mut err = self.err.borrow_mut();
        match self.plan.progress {
            ProgressMode::Json => {
                let line = json!({
                    "pages": counters.pages,
                    "updates": updates,
                    "written": counters.inserted,
                    "updates_per_s": (rate * 10.0).round() / 10.0,
                    "share": (share * 1000.0).round() / 1000.0,
                    "eta_s": eta.map(f64::round),
                    "record_time": at,
                    "chunks": reach.len(),
                    "scans": self.net.len(),
                    "verify": self.needed,
                });
                let _ = writeln!(err, "{}", json_text::escape_unsafe(&line.to_string()));
            }
            ProgressMode::Line => {
                let _ = write!(
                    err,
                    "\r{:5.1} % · {} pages · {} updates · {:.0} updates/s · ETA {} · at {} · {} chunks · {} scans, verify {}   ",
                    share * 100.0,
                    counters.pages,
                    updates,
                    rate,
                    eta.map_or_else(|| "?".to_owned(), |e| format!("{e:.0} s")),
                    crate::api::sanitize_line(&at, 40),
                    reach.len(),
                    self.net.len(),
                    self.needed
                );
            }
            ProgressMode::Quiet => {}
        }
        let _ = err.flush();
    }
}
