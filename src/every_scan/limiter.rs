//! The request budget of one scan: a token bucket without burst (requests are spaced by
//! `1 / rate`, so no wall-clock second sees more than `rate + 1` of them), paused after a 429
//! until `Retry-After`, with the rate halved and then slowly restored (+5 % per success).

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

/// Longest wait a `Retry-After` is honoured with (longer ones are capped).
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
/// Wait after a 429 without `Retry-After`.
pub const DEFAULT_RETRY_AFTER: Duration = Duration::from_secs(1);
/// The rate never drops below this (requests per second).
const MIN_RATE: f64 = 0.2;

#[derive(Debug)]
struct State {
    rate: f64,
    max_rate: f64,
    /// The next free slot.
    next: Instant,
    /// Counts the 429s: a request that reserved its slot before one takes a new slot.
    epoch: u64,
}

/// One scan's request budget.
#[derive(Debug)]
pub struct Limiter {
    state: Mutex<State>,
}

impl Limiter {
    /// A budget of `rate` requests per second.
    pub fn new(rate: f64) -> Limiter {
        let rate = if rate.is_finite() && rate > 0.0 {
            rate
        } else {
            10.0
        };
        Limiter {
            state: Mutex::new(State {
                rate,
                max_rate: rate,
                next: Instant::now(),
                epoch: 0,
            }),
        }
    }

    /// The current rate (requests per second).
    pub fn rate(&self) -> f64 {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .rate
    }

    /// Waits for this request's turn. A 429 that arrives while it waits sends it to the back,
    /// after the pause and at the slower rate.
    pub async fn acquire(&self) {
        loop {
            let (slot, epoch) = {
                let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                let slot = s.next.max(Instant::now());
                s.next = slot + Duration::from_secs_f64(1.0 / s.rate);
                (slot, s.epoch)
            };
            tokio::time::sleep_until(slot).await;
            let s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            if s.epoch == epoch {
                return;
            }
        }
    }

    /// The scan answered 429: nothing more before `retry_after`, and at half the rate.
    pub fn too_many(&self, retry_after: Option<Duration>) {
        let wait = retry_after
            .unwrap_or(DEFAULT_RETRY_AFTER)
            .min(MAX_RETRY_AFTER);
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        s.rate = (s.rate / 2.0).max(MIN_RATE.min(s.max_rate));
        s.epoch += 1;
        // Reservations made before this 429 are void: the next slot is after the pause.
        s.next = Instant::now() + wait;
    }

    /// A request went through: the rate recovers towards the budget.
    pub fn succeeded(&self) {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        s.rate = (s.rate * 1.05).min(s.max_rate);
    }
}

/// The wait a `Retry-After` header asks for: seconds, or an HTTP date.
pub fn parse_retry_after(value: &str, now: chrono::DateTime<chrono::Utc>) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let wait = at.with_timezone(&chrono::Utc) - now;
    Some(wait.to_std().unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_forms() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-01-30T08:00:00Z")
            .expect("time")
            .with_timezone(&chrono::Utc);
        assert_eq!(parse_retry_after(" 3 ", now), Some(Duration::from_secs(3)));
        assert_eq!(
            parse_retry_after("Fri, 30 Jan 2026 08:00:05 GMT", now),
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            parse_retry_after("Fri, 30 Jan 2026 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[tokio::test]
    async fn requests_are_spaced_and_429_pauses() {
        let limiter = Limiter::new(50.0);
        let start = Instant::now();
        for _ in 0..11 {
            limiter.acquire().await;
        }
        let spaced = start.elapsed();
        assert!(
            spaced >= Duration::from_millis(195) && spaced < Duration::from_secs(2),
            "{spaced:?}"
        );
        limiter.too_many(Some(Duration::from_millis(300)));
        assert!((limiter.rate() - 25.0).abs() < 1e-9);
        let before = Instant::now();
        limiter.acquire().await;
        assert!(before.elapsed() >= Duration::from_millis(290));
        limiter.succeeded();
        assert!(limiter.rate() > 25.0);
    }
}
