//! A following sync whose scans went away: it waits for them with backoff and jitter, trying
//! again at least every [`RETRY_AT_MOST`], and tells its observer since when it waits; only a
//! signal or a permanent fault (history rewritten, another network, a disk that cannot grow)
//! ends it.

use std::time::Duration;

use super::{Engine, Failure, Halt, Observer, now_micros};
use crate::every_scan::Cancel;

/// The longest a following sync waits between two tries while the scans are down.
pub const RETRY_AT_MOST: Duration = Duration::from_secs(10);
/// The wait after the first failed try (doubled at each try, up to [`RETRY_AT_MOST`]).
const RETRY_FIRST: Duration = Duration::from_millis(500);

/// A following sync waiting for the scans.
#[derive(Debug, Clone, PartialEq)]
pub struct Waiting {
    /// Since when (Unix µs).
    pub since: i64,
    /// What the last try met.
    pub problem: String,
    /// When the next try is.
    pub retry_in: Duration,
}

/// The wait before try `tries` + 1: doubling up to [`RETRY_AT_MOST`], between half and all of
/// it (`jitter` in 0..1), so followers of one scan do not all come back at once.
pub(super) fn backoff(tries: u32, jitter: f64) -> Duration {
    let full = RETRY_FIRST
        .saturating_mul(2u32.saturating_pow(tries.min(16)))
        .min(RETRY_AT_MOST);
    full.mul_f64(0.5 + 0.5 * jitter.clamp(0.0, 1.0))
}

/// A jitter in 0..1 from the clock's nanoseconds (no more is asked of it).
fn jitter() -> f64 {
    f64::from(chrono::Utc::now().timestamp_subsec_nanos() % 1_000_000) / 1_000_000.0
}

/// What `halt` says of scans that went away (down, failing, too few to verify with), for a
/// following sync to wait out; `None` for a halt that ends it.
pub(super) fn scans_away(halt: &Halt) -> Option<String> {
    match halt {
        Halt::Failed(
            Failure::Connect(m) | Failure::Server(m) | Failure::NoQuorum(m) | Failure::Decode(m),
        ) => Some(m.clone()),
        Halt::Failed(Failure::Api(e)) if e.is_transient() => Some(e.to_string()),
        _ => None,
    }
}

/// Waits `retry_in`, or until a signal (`Err`).
async fn pause(retry_in: Duration, cancel: &Cancel) -> Result<(), Halt> {
    tokio::select! {
        () = tokio::time::sleep(retry_in) => Ok(()),
        () = cancel.cancelled() => Err(Halt::Interrupted),
    }
}

/// A following sync that cannot connect yet (its scans down when it starts).
#[derive(Debug, Default)]
pub(super) struct Outage {
    since: Option<i64>,
    tries: u32,
}

impl Outage {
    /// Waits for the scans after `halt` when they went away and the sync follows, `observer`
    /// told; `Err` otherwise, or on a signal.
    pub(super) async fn wait(
        &mut self,
        halt: Halt,
        follow: bool,
        observer: &mut dyn Observer,
        cancel: &Cancel,
    ) -> Result<(), Halt> {
        let Some(problem) = scans_away(&halt).filter(|_| follow) else {
            return Err(halt);
        };
        let since = *self.since.get_or_insert_with(now_micros);
        let retry_in = backoff(self.tries, jitter());
        self.tries = self.tries.saturating_add(1);
        observer.waiting(Some(&Waiting {
            since,
            problem,
            retry_in,
        }));
        pause(retry_in, cancel).await
    }

    /// Whether the sync waited (the scans answer now).
    pub(super) fn waited(&self) -> bool {
        self.since.is_some()
    }
}

impl Engine<'_> {
    /// A following sync that met `halt`: waits for the scans (the next try after a backoff)
    /// when the scans went away, the observer told; `Err` for any other halt, a sync that does
    /// not follow, or a signal while waiting.
    pub(super) async fn wait_for_scans(&self, halt: Halt, tries: &mut u32) -> Result<(), Halt> {
        let Some(problem) = scans_away(&halt).filter(|_| self.plan.follow) else {
            return Err(halt);
        };
        let since = self.waiting_since.get().unwrap_or_else(now_micros);
        self.waiting_since.set(Some(since));
        let retry_in = backoff(*tries, jitter());
        *tries = tries.saturating_add(1);
        let waiting = Waiting {
            since,
            problem,
            retry_in,
        };
        self.observer.borrow_mut().waiting(Some(&waiting));
        pause(retry_in, self.cancel).await
    }

    /// The scans answered: the backoff starts over, the observer told once the wait is over.
    pub(super) fn scans_back(&self, tries: &mut u32) {
        *tries = 0;
        if self.waiting_since.take().is_some() {
            self.observer.borrow_mut().waiting(None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_up_to_ten_seconds_with_jitter_below_it() {
        assert_eq!(backoff(0, 1.0), Duration::from_millis(500));
        assert_eq!(backoff(0, 0.0), Duration::from_millis(250));
        assert_eq!(backoff(3, 1.0), Duration::from_secs(4));
        for tries in [5, 6, 20, u32::MAX] {
            assert_eq!(backoff(tries, 1.0), RETRY_AT_MOST);
            assert_eq!(backoff(tries, 0.0), RETRY_AT_MOST / 2);
        }
    }
}
