//! The whole network, runtime side: ask one [`Call`] of every scan at once, each scan within its
//! own request budget ([`limiter`]: no more than `rate` requests per second, a 429 answered by
//! waiting for `Retry-After` and slowing down), and the jobs built on it: discovering the scans
//! ([`discovery`]), their health ([`health`]), one update across all scans ([`check`]) and the
//! history sweep ([`sweep`]). Everything they decide is decided by the pure models in
//! `model::consensus`, `model::network` and `model::sweep`; this module only sends requests.
//!
//! ```text
//! Network::new(client, [ScanEntry], budget)
//!    └─ ask_all(&call) ─► per scan: limiter.acquire ─► client.exchange ─► 429? wait, retry
//!                         ─► Vec<Reply> (status + body, or unreachable / timeout, latency)
//! ```

pub mod check;
pub mod discovery;
pub mod findings;
pub mod health;
pub mod limiter;
pub mod reward_tree;
pub mod rounds;
pub mod session;
pub mod sweep;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::future::join_all;
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::api::{ApiClient, ApiError, Call, Exchange};
use crate::model::consensus::{Answer, LocalFields};
use crate::model::network::ScanEntry;
use limiter::Limiter;

/// How each scan is asked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScanBudget {
    /// Requests per second per scan.
    pub rate: f64,
    /// Timeout of each request.
    pub timeout: Duration,
    /// How often one request is retried after a 429 before the 429 is its answer.
    pub max_429_retries: u32,
}

impl Default for ScanBudget {
    fn default() -> Self {
        ScanBudget {
            rate: crate::config::DEFAULT_SCAN_REQUEST_RATE,
            timeout: Duration::from_secs(10),
            max_429_retries: 8,
        }
    }
}

/// Why a scan gave no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// Connection refused, DNS, TLS, a broken response.
    Unreachable(String),
    /// No answer in time.
    Timeout,
}

/// One scan's reply to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub result: Result<Exchange, Transport>,
    /// Time of the last attempt (after waiting for the budget).
    pub latency: Duration,
    /// 429 answers waited out before this reply.
    pub throttled: u32,
}

impl Reply {
    /// The reply as the consensus model compares it, without the `local` fields. An error
    /// answer that is not JSON (a proxy's HTML page, a plain-text line) is compared and shown
    /// as the API client describes it ([`error_reason`]), never as its raw body.
    pub fn answer(&self, local: LocalFields) -> Answer {
        match &self.result {
            Ok(exchange) if !exchange.is_success() && !is_json(&exchange.body) => Answer::Error {
                status: exchange.status,
                body: crate::model::consensus::Body::Text(error_reason(exchange)),
            },
            Ok(exchange) => Answer::from_http(exchange.status, &exchange.body, local),
            Err(Transport::Unreachable(detail)) => Answer::Unreachable {
                detail: detail.clone(),
            },
            Err(Transport::Timeout) => Answer::Timeout,
        }
    }

    /// The 2xx answer, if it is one.
    pub fn success(&self) -> Option<&Exchange> {
        self.result.as_ref().ok().filter(|e| e.is_success())
    }

    /// True when the scan itself did not answer: a transport failure, or 502/503/504 from a
    /// proxy in front of it.
    pub fn is_down(&self) -> bool {
        match &self.result {
            Ok(exchange) => matches!(exchange.status, 502..=504),
            Err(_) => true,
        }
    }

    /// One line saying what went wrong (`None` for a 2xx answer): the scan's own error message,
    /// else what the API client calls the answer (`expected JSON, got text/html (HTTP 502)`,
    /// `this scan only answers allowlisted addresses (HTTP 403)`).
    pub fn problem(&self) -> Option<String> {
        match &self.result {
            Ok(e) if e.is_success() => None,
            Ok(e) if matches!(e.status, 401 | 403) || !is_json(&e.body) => Some(error_reason(e)),
            Ok(e) => {
                let body = crate::model::consensus::Body::parse(&e.body, LocalFields::NONE);
                let message = crate::api::sanitize_line(&body.message(), 200);
                Some(if message.is_empty() {
                    format!("HTTP {}", e.status)
                } else {
                    format!("HTTP {}: {message}", e.status)
                })
            }
            Err(Transport::Unreachable(detail)) => Some(detail.clone()),
            Err(Transport::Timeout) => Some("timed out".to_owned()),
        }
    }
}

fn is_json(body: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok()
}

/// A scan's error answer as [`crate::api::ApiError::reason`] words it: the same short text the
/// explorer and the CLI show for it, never a raw markup page.
fn error_reason(exchange: &Exchange) -> String {
    crate::api::classify_answer(
        "scan request",
        crate::api::Group::Scan,
        exchange.status,
        &exchange.headers,
        &exchange.body,
    )
    .reason()
}

struct ScanNode {
    entry: ScanEntry,
    client: ApiClient,
    limiter: Limiter,
}

/// The scans of the network and how to ask them.
pub struct Network {
    scans: Vec<ScanNode>,
    budget: ScanBudget,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network")
            .field(
                "scans",
                &self.scans.iter().map(|s| &s.entry).collect::<Vec<_>>(),
            )
            .field("budget", &self.budget)
            .finish()
    }
}

impl Network {
    /// The scans `entries`, asked through `client`'s connection pool.
    pub fn new(client: &ApiClient, entries: Vec<ScanEntry>, budget: ScanBudget) -> Network {
        let scans = entries
            .into_iter()
            .map(|entry| ScanNode {
                client: client.with_scan_url(&entry.url),
                limiter: Limiter::new(budget.rate),
                entry,
            })
            .collect();
        Network { scans, budget }
    }

    /// Number of scans (counted or not).
    pub fn len(&self) -> usize {
        self.scans.len()
    }

    /// True without scans.
    pub fn is_empty(&self) -> bool {
        self.scans.is_empty()
    }

    /// The scans.
    pub fn entries(&self) -> impl Iterator<Item = &ScanEntry> {
        self.scans.iter().map(|s| &s.entry)
    }

    /// The scan at `index`.
    pub fn entry(&self, index: usize) -> Option<&ScanEntry> {
        self.scans.get(index).map(|s| &s.entry)
    }

    /// Whether each scan counts in `n`.
    pub fn counted(&self) -> Vec<bool> {
        self.scans.iter().map(|s| s.entry.counted).collect()
    }

    /// The budget.
    pub fn budget(&self) -> ScanBudget {
        self.budget
    }

    /// Asks scan `scan`, within its budget; a 429 is waited out (up to
    /// [`ScanBudget::max_429_retries`] times).
    pub async fn ask<T>(&self, scan: usize, call: &Call<T>) -> Reply {
        let Some(node) = self.scans.get(scan) else {
            return Reply {
                result: Err(Transport::Unreachable("no such scan".to_owned())),
                latency: Duration::ZERO,
                throttled: 0,
            };
        };
        let call = call.clone().with_timeout(self.budget.timeout);
        let mut throttled = 0;
        loop {
            node.limiter.acquire().await;
            let start = Instant::now();
            let result = node.client.exchange(&call).await;
            let latency = start.elapsed();
            let result = match result {
                Ok(exchange)
                    if exchange.status == 429 && throttled < self.budget.max_429_retries =>
                {
                    throttled += 1;
                    let wait = exchange
                        .header("retry-after")
                        .and_then(|v| limiter::parse_retry_after(v, chrono::Utc::now()));
                    tracing::debug!(
                        scan = %crate::api::redact_userinfo(&node.entry.url),
                        ?wait,
                        "429: backing off"
                    );
                    node.limiter.too_many(wait);
                    continue;
                }
                Ok(exchange) => {
                    if exchange.status != 429 {
                        node.limiter.succeeded();
                    }
                    Ok(exchange)
                }
                Err(ApiError::Timeout { .. }) => Err(Transport::Timeout),
                Err(error) => Err(Transport::Unreachable(error.to_string())),
            };
            return Reply {
                result,
                latency,
                throttled,
            };
        }
    }

    /// Asks every scan at once (each within its own budget); the replies in scan order.
    pub async fn ask_all<T>(&self, call: &Call<T>) -> Vec<Reply> {
        join_all((0..self.scans.len()).map(|scan| self.ask(scan, call))).await
    }
}

/// A cancel signal for long jobs (the sweep).
#[derive(Debug, Default)]
pub struct Cancel {
    flag: AtomicBool,
    notify: Notify,
}

impl Cancel {
    /// A signal that has not fired.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Fires the signal.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    /// True once fired.
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// Completes when the signal fires.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}
