//! The whole network for the explorer: the runtime side of the network requests
//! (`Request::NetworkHealth`, `NetworkCheck`, `SweepPage`). One [`NetworkSession`] per session
//! keeps the discovered scans and their request budgets (so every view shares one budget per
//! scan), discovers again when the list is older than [`SCAN_LIST_REFRESH`], and answers each
//! request with plain data for the app: URLs redacted for display, nothing that needs the
//! runtime to read.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::join_all;
use tokio::sync::Mutex;

use super::check::{UpdateSource, check_update};
use super::discovery::{Discovered, ListSource, discover};
use super::{Network, ScanBudget, health, sweep};
use crate::api::scan::{self, UpdatesRequest};
use crate::api::{ApiCall, ApiClient, ApiError, redact_userinfo};
use crate::config::Settings;
use crate::model::consensus::digest::Digester;
use crate::model::findings::{FindingOp, FindingsBook};
use crate::model::format::format_time_micros;
use crate::model::index::rounds::RoundOnScans;
use crate::model::network::{
    CheckedOnScans, HistoryHead, NetworkCheck, NetworkSnapshot, SCAN_LIST_REFRESH, ScanEntry,
    same_url,
};
use crate::model::reward_tree::RoundTrees;
use crate::model::sweep::{Cursor, SweepPageReply};
use crate::msg::{Request, Response};

struct Current {
    net: Arc<Network>,
    discovered: Discovered,
    /// When it was discovered (µs, the app's clock).
    at: i64,
}

/// The scans of the network as the explorer reads them.
pub struct NetworkSession {
    client: ApiClient,
    settings: Settings,
    data_dir: Option<PathBuf>,
    current: Mutex<Option<Current>>,
    /// The findings, when there is no data directory to keep them in.
    memory: Mutex<FindingsBook>,
}

impl std::fmt::Debug for NetworkSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetworkSession").finish_non_exhaustive()
    }
}

impl NetworkSession {
    /// A session for `settings` (its scans, selection, budget and thresholds), asking through
    /// `client`'s connection pool; the scan list is kept under `data_dir`.
    pub fn new(client: ApiClient, settings: Settings, data_dir: Option<PathBuf>) -> Self {
        NetworkSession {
            client,
            settings,
            data_dir,
            current: Mutex::new(None),
            memory: Mutex::new(FindingsBook::default()),
        }
    }

    /// Where the scan list is kept (`None`: nowhere).
    pub fn data_dir(&self) -> Option<&std::path::Path> {
        self.data_dir.as_deref()
    }

    /// The network, discovered again when the list is older than [`SCAN_LIST_REFRESH`].
    async fn network(&self, now: i64) -> (Arc<Network>, Discovered) {
        let mut current = self.current.lock().await;
        let c = match current.take() {
            Some(c) if (0..refresh_micros()).contains(&now.saturating_sub(c.at)) => c,
            _ => {
                let discovered =
                    discover(&self.client, &self.settings, self.data_dir.as_deref(), now).await;
                let budget = ScanBudget {
                    rate: self.settings.network.request_rate,
                    timeout: Duration::from_secs(10),
                    ..ScanBudget::default()
                };
                let net = Network::new(&self.client, discovered.entries.clone(), budget);
                Current {
                    net: Arc::new(net),
                    discovered,
                    at: now,
                }
            }
        };
        let found = (Arc::clone(&c.net), c.discovered.clone());
        *current = Some(c);
        found
    }

    /// Runs one network request.
    pub async fn execute(&self, request: &Request) -> Result<Response, ApiError> {
        match request {
            Request::NetworkHealth {
                now,
                heads,
                head_check,
            } => Ok(Response::NetworkHealth(Box::new(
                self.health(*now, heads, *head_check).await,
            ))),
            Request::Findings { ops, now } => Ok(Response::Findings(Box::new(
                self.findings(ops, *now).await?,
            ))),
            Request::NetworkCheck { update_id, now } => Ok(Response::NetworkCheck(Box::new(
                self.check(update_id, *now).await,
            ))),
            Request::SweepPage {
                after,
                page_size,
                now,
            } => Ok(Response::SweepPage(Box::new(
                self.sweep_page(after.as_ref(), *page_size, *now).await,
            ))),
            Request::SweepStart { time, now } => {
                Ok(Response::SweepStart(self.sweep_start(*time, *now).await))
            }
            Request::OnEveryScan {
                call,
                what,
                now,
                unordered,
            } => Ok(Response::NetworkCheck(Box::new(
                self.query(call, what, *now, *unordered).await,
            ))),
            Request::RoundOnScans { round, now } => Ok(Response::RoundOnScans(Box::new(
                self.round(*round, *now).await,
            ))),
            _ => Err(ApiError::NotConfigured {
                what: "not a network request".into(),
            }),
        }
    }

    /// The file the network's findings are kept in (`None`: not kept).
    pub fn findings_path(&self) -> Option<PathBuf> {
        super::findings::settings_path(&self.settings, self.data_dir.as_deref())
    }

    /// Applies `ops` to the kept findings; the book after (without a data directory: kept in
    /// memory for the session).
    pub async fn findings(&self, ops: &[FindingOp], now: i64) -> Result<FindingsBook, ApiError> {
        let Some(path) = self.findings_path() else {
            // Kept in memory for this session (the built-in demo, no data directory).
            let mut book = self.memory.lock().await;
            book.apply(ops, now);
            return Ok(book.clone());
        };
        let ops = ops.to_vec();
        tokio::task::spawn_blocking(move || super::findings::update(&path, &ops, now))
            .await
            .map_err(|e| ApiError::Local {
                what: format!("the findings: {e}"),
            })?
            .map(|(book, _)| book)
            .map_err(|e| ApiError::Local {
                what: format!("the findings could not be kept: {e}"),
            })
    }

    /// Measures every scan (see [`health::observe`]), paging forward from the known heads;
    /// with `head_check`, runs the head check too and keeps what it found.
    pub async fn health(
        &self,
        now: i64,
        heads: &[(String, HistoryHead)],
        head_check: bool,
    ) -> NetworkSnapshot {
        let (net, discovered) = self.network(now).await;
        let known: Vec<Option<HistoryHead>> = net
            .entries()
            .map(|e| {
                heads
                    .iter()
                    .find(|(url, _)| same_url(url, &redact_userinfo(&e.url)))
                    .map(|(_, h)| h.clone())
            })
            .collect();
        let observations = health::observe_all_from(&net, now, &known).await;
        let head_check = if head_check {
            health::head_check(&net, &observations).await
        } else {
            None
        };
        let entries = display_entries(&net);
        let ops = head_check
            .as_ref()
            .map(|c| c.ops(&entries))
            .unwrap_or_default();
        let mut warnings = discovered.warnings.clone();
        let findings = match self.findings(&ops, now).await {
            Ok(book) => book,
            Err(e) => {
                warnings.push(format!("the findings could not be kept: {e}"));
                let mut book = FindingsBook::default();
                book.apply(&ops, now);
                book
            }
        };
        NetworkSnapshot {
            entries,
            list_source: list_source(&discovered),
            warnings,
            observations,
            thresholds: self.settings.network.thresholds,
            checked_at: now,
            head_check,
            findings,
        }
    }

    /// Checks one update (and its verdict) on every scan.
    pub async fn check(&self, update_id: &str, now: i64) -> NetworkCheck {
        let (net, _) = self.network(now).await;
        let (update, event) = tokio::join!(
            check_update(&net, update_id, UpdateSource::Update),
            check_update(&net, update_id, UpdateSource::Event),
        );
        let on_scans =
            |source: UpdateSource, checked: super::check::CheckedUpdate| CheckedOnScans {
                endpoint: source.endpoint().to_owned(),
                latency_ms: checked
                    .replies
                    .iter()
                    .map(|r| u32::try_from(r.latency.as_millis()).unwrap_or(u32::MAX))
                    .collect(),
                check: checked.check,
                answers: Vec::new(),
            };
        NetworkCheck {
            update_id: update_id.to_owned(),
            query: None,
            entries: display_entries(&net),
            update: on_scans(UpdateSource::Update, update),
            event: Some(on_scans(UpdateSource::Event, event)),
            checked_at: now,
        }
    }

    /// A pane's scan call asked of every scan (`what` names it), its answers grouped and
    /// classified like an update's (the `unordered` lists of each answer sorted first).
    pub async fn query(
        &self,
        call: &ApiCall,
        what: &str,
        now: i64,
        unordered: crate::model::consensus::Unordered,
    ) -> NetworkCheck {
        let (net, _) = self.network(now).await;
        let replies = net.ask_all(call).await;
        let answers: Vec<_> = replies
            .iter()
            .map(|r| {
                let mut answer = r.answer(crate::model::consensus::LocalFields::NONE);
                unordered.sort(&mut answer);
                answer
            })
            .collect();
        let check = crate::model::consensus::classify_update(&answers, &net.counted(), &[], false);
        NetworkCheck {
            update_id: what.to_owned(),
            query: Some(what.to_owned()),
            entries: display_entries(&net),
            update: CheckedOnScans {
                endpoint: what.to_owned(),
                latency_ms: replies
                    .iter()
                    .map(|r| u32::try_from(r.latency.as_millis()).unwrap_or(u32::MAX))
                    .collect(),
                check,
                answers,
            },
            event: None,
            checked_at: now,
        }
    }

    /// One round on every scan: its activity totals and root hash ([`super::rounds`]), and
    /// f + 1 of the scans that count.
    pub async fn round(&self, round: i64, now: i64) -> RoundOnScans {
        let (net, _) = self.network(now).await;
        let counted = net.counted().iter().filter(|c| **c).count();
        RoundOnScans {
            round,
            scans: super::rounds::ask_round(&net, round).await,
            threshold: crate::model::consensus::quorum(counted),
        }
    }

    /// One round's reward tree on every scan ([`super::reward_tree`]), its leaves not judged
    /// yet (the index's side is the caller's).
    pub async fn round_tree(&self, round: i64, now: i64) -> RoundTrees {
        let (net, _) = self.network(now).await;
        RoundTrees {
            round,
            scans: super::reward_tree::trees_of_round(&net, round).await,
            kept: None,
        }
    }

    /// Where a sweep from `time` starts ([`sweep::start_at`]), asked of the profile's own scan
    /// first, then of the others until one answers.
    pub async fn sweep_start(&self, time: i64, now: i64) -> Result<Cursor, String> {
        let (net, _) = self.network(now).await;
        let mut order: Vec<usize> = (0..net.len()).collect();
        order.sort_by_key(|i| !net.entry(*i).is_some_and(|e| e.own));
        let mut found = Err("no scan".to_owned());
        for scan in order {
            found = sweep::start_at(&net, scan, time).await;
            if found.is_ok() {
                break;
            }
        }
        found.map_err(|e| {
            format!(
                "cannot find where {} is in the history: {e}",
                format_time_micros(time)
            )
        })
    }

    /// One sweep page on every scan, each answer reduced to its item hashes.
    pub async fn sweep_page(
        &self,
        after: Option<&Cursor>,
        page_size: usize,
        now: i64,
    ) -> SweepPageReply {
        let (net, _) = self.network(now).await;
        let size = i32::try_from(page_size).unwrap_or(1000);
        let request = match after {
            Some(c) => UpdatesRequest::after(size, c.migration_id, c.record_time.clone()),
            None => UpdatesRequest::from_begin(size),
        };
        let call = scan::updates(&request);
        let digester = Digester::new();
        let answers = join_all((0..net.len()).map(|i| {
            let (call, net, digester) = (&call, &net, &digester);
            async move { sweep::page_answer(net.ask(i, call).await, digester) }
        }))
        .await;
        SweepPageReply {
            counted: net.counted(),
            answers,
        }
    }
}

fn refresh_micros() -> i64 {
    i64::try_from(SCAN_LIST_REFRESH.as_micros()).unwrap_or(i64::MAX)
}

/// The scans as the explorer may show them: credentials in URLs redacted.
fn display_entries(net: &Network) -> Vec<ScanEntry> {
    net.entries()
        .map(|e| ScanEntry {
            url: redact_userinfo(&e.url),
            ..e.clone()
        })
        .collect()
}

fn list_source(d: &Discovered) -> String {
    match &d.source {
        ListSource::Fetched { from } => format!("list from {}", redact_userinfo(from)),
        ListSource::Cached { fetched_at, .. } => {
            format!("kept list of {}", format_time_micros(*fetched_at))
        }
        ListSource::Unavailable { .. } => "no scan list: own and pinned scans".to_owned(),
    }
}
