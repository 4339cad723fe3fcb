//! How far a running walk is, told to the [`super::Observer`] after each page.

use super::{Engine, now_micros};
use crate::model::format::format_time_micros;

/// A walk's progress after a page.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub pages: u64,
    /// Updates walked (written and known).
    pub updates: u64,
    /// Updates written.
    pub written: u64,
    pub updates_per_s: f64,
    /// The share of the range done, 0 to 1.
    pub share: f64,
    /// Seconds left at this pace (`None`: nothing done yet).
    pub eta_s: Option<f64>,
    /// The newest record time reached (empty: none yet).
    pub record_time: String,
    /// Chunks walked.
    pub chunks: usize,
    /// Scans of the network.
    pub scans: usize,
    /// Scans that must agree.
    pub verify: usize,
}

impl Engine<'_> {
    /// Tells the observer how far the walk is.
    pub(super) fn progress(&self) {
        let progress = {
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
            Progress {
                pages: counters.pages,
                updates,
                written: counters.inserted,
                updates_per_s: rate,
                share,
                eta_s: (share > 0.0).then(|| elapsed * (1.0 - share) / share),
                record_time: last.map(format_time_micros).unwrap_or_default(),
                chunks: reach.len(),
                scans: self.net.len(),
                verify: self.needed,
            }
        };
        self.observer.borrow_mut().progress(&progress);
    }
}
