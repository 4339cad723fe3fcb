//! The whole network, pure: which scans there are (the `/v0/scans` list of the global
//! synchronizer merged with the profile's pins and SV selection, and its on-disk copy), how
//! healthy each one is (Splice's network status rules) with the one-line verdict, and the
//! search for the newest update of a scan's history ([`HeadSearch`], driven by page results).
//!
//! ```text
//! GET /v0/scans ─► ScanList::from_response ─► select_scans(list, selection, pins, own) ─► [ScanEntry]
//! per scan: /status, /version, open rounds, HeadSearch ─► ScanObservation ─► assess() ─► NetworkHealth
//! ```
//!
//! Scans are counted (`n`, quorum) when they are listed by the network or pinned by the profile.
//! The profile's own `scan_url`, when it is not one of them (for example the SV's own scan
//! reached through an SSH tunnel), is still asked and shown, but only compared against the
//! others: it does not count in `n`.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::consensus::{fault_tolerance, quorum};
use super::summary::{format_time_micros, parse_time_micros};
use crate::api::scan::DsoScans;

const MICROS: i64 = 1_000_000;

/// How often the scan list is fetched again (as Splice does).
pub const SCAN_LIST_REFRESH: Duration = Duration::from_secs(600);

// ---------------------------------------------------------------------------------------------
// The scan list
// ---------------------------------------------------------------------------------------------

/// Which of the listed scans to use: all of them, or the scans of the named SVs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ScanSelection {
    #[default]
    All,
    Names(Vec<String>),
}

/// One listed scan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListedScan {
    pub sv_name: String,
    pub url: String,
}

/// The scans of the global synchronizer, as `/v0/scans` lists them (and as kept on disk).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanList {
    /// The synchronizer the list is for.
    pub domain_id: String,
    pub scans: Vec<ListedScan>,
}

impl ScanList {
    /// The global synchronizer's entry of a `/v0/scans` answer (the `domainId` starting with
    /// `global-domain::`; without one, the first entry). Entries without a URL are dropped, and
    /// a URL listed twice is kept once.
    pub fn from_response(response: &DsoScans) -> Option<ScanList> {
        let domain = response
            .scans
            .iter()
            .find(|d| d.domain_id.starts_with("global-domain::"))
            .or_else(|| response.scans.first())?;
        let mut scans: Vec<ListedScan> = Vec::new();
        for info in &domain.scans {
            let url = info.public_url.trim().trim_end_matches('/').to_owned();
            if url.is_empty() || scans.iter().any(|s| same_url(&s.url, &url)) {
                continue;
            }
            scans.push(ListedScan {
                sv_name: info.sv_name.trim().to_owned(),
                url,
            });
        }
        Some(ScanList {
            domain_id: domain.domain_id.clone(),
            scans,
        })
    }
}

/// The last-known scan list, as kept on disk (one file per profile and seed scan).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachedScanList {
    /// The scan the list was fetched from.
    pub seed: String,
    /// When (µs since the epoch).
    pub fetched_at: i64,
    pub list: ScanList,
}

impl CachedScanList {
    /// True when the list is older than [`SCAN_LIST_REFRESH`] at `now` (µs).
    pub fn is_stale(&self, now: i64) -> bool {
        now.saturating_sub(self.fetched_at) >= duration_micros(SCAN_LIST_REFRESH)
    }

    /// The file text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads a file's text (`None` when it is not a list of ours).
    pub fn from_json(text: &str) -> Option<CachedScanList> {
        serde_json::from_str(text).ok()
    }
}

/// The file name of the cached list of a profile and seed URL: the profile name (or
/// `default`), made file-safe, and a short hash of the seed URL.
pub fn cache_file_name(profile: Option<&str>, seed: &str) -> String {
    let name: String = profile
        .unwrap_or("default")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    // FNV-1a: stable across versions and platforms.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in normalize_url(seed).bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("scans-{name}-{h:016x}.json")
}

/// A URL in the form URLs are matched by: no trailing `/`, scheme and host in lower case.
pub fn normalize_url(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    match url.find("://") {
        Some(scheme_end) => {
            let rest = &url[scheme_end + 3..];
            let host_end = rest.find('/').map_or(url.len(), |i| scheme_end + 3 + i);
            format!(
                "{}{}",
                url[..host_end].to_ascii_lowercase(),
                &url[host_end..]
            )
        }
        None => url.to_owned(),
    }
}

/// True when two URLs name the same scan.
pub fn same_url(a: &str, b: &str) -> bool {
    normalize_url(a) == normalize_url(b)
}

/// The host (and port) of a URL, for display.
pub fn url_host(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split('/').next().unwrap_or(rest);
    host.rsplit_once('@').map_or(host, |(_, h)| h).to_owned()
}

/// One scan of the network as the explorer uses it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScanEntry {
    /// The SV's name (for a pinned scan the network does not list: its host).
    pub sv_name: String,
    /// The base URL requests go to.
    pub url: String,
    /// Listed by the network's `/v0/scans`.
    pub listed: bool,
    /// Named by the profile's `scan_urls`.
    pub pinned: bool,
    /// The profile's own `scan_url`.
    pub own: bool,
    /// Counts in `n` and votes (listed or pinned); the profile's own scan, when neither, is only
    /// compared against the others.
    pub counted: bool,
}

/// The scans to ask: the listed ones chosen by `selection`, then the pinned URLs the list does
/// not have, then the profile's own scan when it is neither (not counted, unless there is no
/// list at all: then the own and pinned scans are the network). Also returns warnings
/// (selected names the list does not have).
pub fn select_scans(
    list: Option<&ScanList>,
    selection: &ScanSelection,
    pins: &[String],
    own: Option<&str>,
) -> (Vec<ScanEntry>, Vec<String>) {
    let mut warnings = Vec::new();
    let mut entries: Vec<ScanEntry> = Vec::new();
    let listed: &[ListedScan] = list.map_or(&[], |l| l.scans.as_slice());
    if let ScanSelection::Names(names) = selection {
        for name in names {
            if !listed.iter().any(|s| s.sv_name.eq_ignore_ascii_case(name)) {
                warnings.push(format!("no scan of an SV named {name:?} is listed"));
            }
        }
    }
    let is_pinned = |url: &str| pins.iter().any(|p| same_url(p, url));
    let is_own = |url: &str| own.is_some_and(|o| same_url(o, url));
    for scan in listed {
        let chosen = match selection {
            ScanSelection::All => true,
            ScanSelection::Names(names) => {
                names.iter().any(|n| n.eq_ignore_ascii_case(&scan.sv_name))
            }
        };
        let pinned = is_pinned(&scan.url);
        let own = is_own(&scan.url);
        if chosen || pinned || own {
            entries.push(ScanEntry {
                sv_name: scan.sv_name.clone(),
                url: scan.url.clone(),
                listed: true,
                pinned,
                own,
                counted: true,
            });
        }
    }
    for pin in pins {
        let url = pin.trim().trim_end_matches('/');
        if url.is_empty() || entries.iter().any(|e| same_url(&e.url, url)) {
            continue;
        }
        entries.push(ScanEntry {
            sv_name: url_host(url),
            url: url.to_owned(),
            listed: false,
            pinned: true,
            own: is_own(url),
            counted: true,
        });
    }
    if let Some(own) = own {
        let url = own.trim().trim_end_matches('/');
        if !url.is_empty() && !entries.iter().any(|e| same_url(&e.url, url)) {
            entries.push(ScanEntry {
                sv_name: url_host(url),
                url: url.to_owned(),
                listed: false,
                pinned: false,
                own: true,
                counted: list.is_none(),
            });
        }
    }
    (entries, warnings)
}

/// `n`, `f` and the quorum of a set of scans (counted ones only).
pub fn quorum_of(entries: &[ScanEntry]) -> (usize, usize, usize) {
    let n = entries.iter().filter(|e| e.counted).count();
    (n, fault_tolerance(n), quorum(n))
}

// ---------------------------------------------------------------------------------------------
// Health
// ---------------------------------------------------------------------------------------------

/// The health rules (Splice's network status check) and what counts as lagging.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HealthThresholds {
    /// A newest open mining round older than this is unhealthy (900 s).
    pub max_round_age: Duration,
    /// A newest update older than this is unhealthy (300 s).
    pub max_update_age: Duration,
    /// A healthy scan whose head is this far behind the newest head of all scans is lagging
    /// (30 s).
    pub max_lag: Duration,
}

impl Default for HealthThresholds {
    fn default() -> Self {
        HealthThresholds {
            max_round_age: Duration::from_secs(900),
            max_update_age: Duration::from_secs(300),
            max_lag: Duration::from_secs(30),
        }
    }
}

/// What `/status` said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state", content = "detail")]
pub enum NodeState {
    Active,
    /// `success` with `active: false`.
    Inactive,
    NotInitialized,
    Failed(String),
    /// The status could not be read.
    Unknown(String),
}

/// The newest update of a scan's history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryHead {
    pub migration_id: i64,
    /// µs since the epoch.
    pub record_time: i64,
    pub update_id: String,
}

/// An open mining round as one scan reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RoundSeen {
    pub number: i64,
    /// When its contract was created (µs since the epoch).
    pub created_at: i64,
}

/// Everything measured about one scan (by the runtime).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScanObservation {
    /// Some request got an answer from the scan itself (not a transport failure, not a
    /// 502/503/504 from a proxy in front of it).
    pub reachable: bool,
    /// Why it is not reachable.
    pub down_reason: Option<String>,
    pub status: Option<NodeState>,
    pub version: Option<String>,
    /// Time of the `/status` request.
    pub latency: Option<Duration>,
    /// Its history's newest update, or why it is unknown.
    pub head: Option<Result<Option<HistoryHead>, String>>,
    /// Its newest open mining round, or why it is unknown (`Ok(None)`: no open round).
    pub newest_round: Option<Result<Option<RoundSeen>, String>>,
}

/// The health of one scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HealthState {
    Healthy,
    Unhealthy,
    Down,
}

/// One scan's health and the numbers behind it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanHealth {
    pub state: HealthState,
    /// Healthy, but its head is more than `max_lag` behind the newest head.
    pub lagging: bool,
    /// Why it is unhealthy or down.
    pub reasons: Vec<String>,
    /// How far its head is behind the newest head of all scans (µs).
    pub lag_behind_newest: Option<i64>,
    /// How far its head is behind the clock: the age of its newest update (µs).
    pub update_age: Option<i64>,
    /// Age of its newest open mining round (µs).
    pub round_age: Option<i64>,
}

/// What the health of the whole network means for a script.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HealthOutcome {
    /// Every counted scan is healthy (lagging ones included).
    AllHealthy,
    /// Some scan is unhealthy or down, but a quorum is healthy.
    Degraded,
    /// Fewer than a quorum of scans are healthy.
    NoHealthyQuorum,
}

/// The health of every scan and of the network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkHealth {
    pub n: usize,
    pub f: usize,
    pub quorum: usize,
    /// Per scan, in scan order.
    pub scans: Vec<ScanHealth>,
    /// The newest head among all scans (µs).
    pub newest_head: Option<i64>,
    /// Counted scans per state; `healthy` includes the lagging ones.
    pub healthy: usize,
    pub lagging: usize,
    pub unhealthy: usize,
    pub down: usize,
    pub outcome: HealthOutcome,
    /// One line, e.g. `13 scans · 11 healthy · 1 lagging 42 s · 1 down · quorum 5 healthy ✓`.
    pub verdict: String,
}

fn duration_micros(d: Duration) -> i64 {
    i64::try_from(d.as_micros()).unwrap_or(i64::MAX)
}

fn secs(us: i64) -> i64 {
    us.div_euclid(MICROS)
}

/// What the check of something that ages (the newest round, the newest update) adds to a
/// scan's reasons: `of` names the thing and gives its age, `max` is the age allowed; `topic`
/// prefixes an error and `missing` says that there is none.
fn age_reason<T>(
    check: Option<&Result<Option<T>, String>>,
    max: i64,
    (topic, missing): (&str, &str),
    of: impl FnOnce(&T) -> (String, i64),
) -> Option<String> {
    match check {
        Some(Ok(Some(thing))) => {
            let (name, age) = of(thing);
            (age > max)
                .then(|| format!("{name} is {} s old (more than {} s)", secs(age), secs(max)))
        }
        Some(Ok(None)) => Some(missing.to_owned()),
        Some(Err(error)) => Some(format!("{topic}: {error}")),
        None => Some(format!("{topic} not checked")),
    }
}

/// Judges every scan and the network at `now` (µs). `counted[i]` says whether scan `i` counts
/// in `n` (see [`ScanEntry::counted`]).
pub fn assess(
    observations: &[ScanObservation],
    counted: &[bool],
    now: i64,
    thresholds: &HealthThresholds,
) -> NetworkHealth {
    let newest_head = observations
        .iter()
        .filter_map(|o| match &o.head {
            Some(Ok(Some(head))) => Some(head.record_time),
            _ => None,
        })
        .max();
    let max_round = duration_micros(thresholds.max_round_age);
    let max_update = duration_micros(thresholds.max_update_age);
    let max_lag = duration_micros(thresholds.max_lag);
    let scans: Vec<ScanHealth> = observations
        .iter()
        .map(|o| {
            let mut reasons = Vec::new();
            let head = match &o.head {
                Some(Ok(Some(head))) => Some(head),
                _ => None,
            };
            let update_age = head.map(|h| now - h.record_time);
            let lag_behind_newest = head.zip(newest_head).map(|(h, n)| n - h.record_time);
            let round_age = match &o.newest_round {
                Some(Ok(Some(round))) => Some(now - round.created_at),
                _ => None,
            };
            if !o.reachable {
                reasons.push(
                    o.down_reason
                        .clone()
                        .unwrap_or_else(|| "unreachable".to_owned()),
                );
                return ScanHealth {
                    state: HealthState::Down,
                    lagging: false,
                    reasons,
                    lag_behind_newest,
                    update_age,
                    round_age,
                };
            }
            match &o.status {
                Some(NodeState::Active) | None => {}
                Some(NodeState::Inactive) => reasons.push("status: not active".to_owned()),
                Some(NodeState::NotInitialized) => {
                    reasons.push("status: not initialised".to_owned());
                }
                Some(NodeState::Failed(error)) => reasons.push(format!("status: failed: {error}")),
                Some(NodeState::Unknown(error)) => reasons.push(format!("status: {error}")),
            }
            reasons.extend(age_reason(
                o.newest_round.as_ref(),
                max_round,
                ("open mining rounds", "no open mining round"),
                |round| {
                    let name = format!("newest open mining round {}", round.number);
                    (name, now - round.created_at)
                },
            ));
            reasons.extend(age_reason(
                o.head.as_ref(),
                max_update,
                ("newest update", "its history is empty"),
                |head| ("newest update".to_owned(), now - head.record_time),
            ));
            let state = if reasons.is_empty() {
                HealthState::Healthy
            } else {
                HealthState::Unhealthy
            };
            ScanHealth {
                state,
                lagging: state == HealthState::Healthy
                    && lag_behind_newest.is_some_and(|lag| lag > max_lag),
                reasons,
                lag_behind_newest,
                update_age,
                round_age,
            }
        })
        .collect();
    let is_counted = |i: usize| counted.get(i).copied().unwrap_or(true);
    let n = (0..scans.len()).filter(|i| is_counted(*i)).count();
    let (f, q) = (fault_tolerance(n), quorum(n));
    let counted_scans = || {
        scans
            .iter()
            .enumerate()
            .filter(|(i, _)| is_counted(*i))
            .map(|(_, s)| s)
    };
    let healthy = counted_scans()
        .filter(|s| s.state == HealthState::Healthy)
        .count();
    let lagging = counted_scans().filter(|s| s.lagging).count();
    let unhealthy = counted_scans()
        .filter(|s| s.state == HealthState::Unhealthy)
        .count();
    let down = counted_scans()
        .filter(|s| s.state == HealthState::Down)
        .count();
    let max_lag_seen = counted_scans()
        .filter(|s| s.lagging)
        .filter_map(|s| s.lag_behind_newest)
        .max();
    let outcome = if healthy < q || n == 0 {
        HealthOutcome::NoHealthyQuorum
    } else if healthy == n {
        HealthOutcome::AllHealthy
    } else {
        HealthOutcome::Degraded
    };
    let mut parts = vec![
        format!("{n} scan{}", if n == 1 { "" } else { "s" }),
        format!("{} healthy", healthy - lagging),
    ];
    if lagging > 0 {
        parts.push(format!(
            "{lagging} lagging {} s",
            secs(max_lag_seen.unwrap_or_default())
        ));
    }
    if unhealthy > 0 {
        parts.push(format!("{unhealthy} unhealthy"));
    }
    if down > 0 {
        parts.push(format!("{down} down"));
    }
    parts.push(format!(
        "quorum {q} healthy {}",
        if healthy >= q && n > 0 { "✓" } else { "✗" }
    ));
    NetworkHealth {
        n,
        f,
        quorum: q,
        scans,
        newest_head,
        healthy,
        lagging,
        unhealthy,
        down,
        outcome,
        verdict: parts.join(" · "),
    }
}

/// One measurement of every scan, as the runtime hands it to the explorer: the scans asked
/// (URLs for display, credentials redacted), where their list came from, what each one said,
/// and the thresholds to judge them by ([`assess`] at `checked_at`).
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkSnapshot {
    pub entries: Vec<ScanEntry>,
    /// Where the scan list came from (`fetched from …`, `kept list of …`, `no scan list`).
    pub list_source: String,
    /// Selected SV names the list does not have, a list that could not be read, …
    pub warnings: Vec<String>,
    /// Per scan, in the order of `entries`.
    pub observations: Vec<ScanObservation>,
    pub thresholds: HealthThresholds,
    /// When the scans were measured (µs since the epoch).
    pub checked_at: i64,
}

impl NetworkSnapshot {
    /// Whether each scan counts in `n`.
    pub fn counted(&self) -> Vec<bool> {
        self.entries.iter().map(|e| e.counted).collect()
    }

    /// The health of every scan and of the network at the time of the measurement.
    pub fn assess(&self) -> NetworkHealth {
        assess(
            &self.observations,
            &self.counted(),
            self.checked_at,
            &self.thresholds,
        )
    }

    /// The heads found, by scan URL (the next measurement pages forward from them).
    pub fn heads(&self) -> Vec<(String, HistoryHead)> {
        self.entries
            .iter()
            .zip(&self.observations)
            .filter_map(|(e, o)| match &o.head {
                Some(Ok(Some(head))) => Some((e.url.clone(), head.clone())),
                _ => None,
            })
            .collect()
    }
}

/// One endpoint's answers about one update on every scan, as the explorer shows them.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedOnScans {
    /// The endpoint compared (`GET /v2/updates/{update_id}`).
    pub endpoint: String,
    pub check: super::consensus::UpdateCheck,
    /// Per scan: how long its answer took (ms).
    pub latency_ms: Vec<u32>,
}

/// The consensus check of one update across every scan: the update itself
/// (`/v2/updates/{id}`) and its verdict (`/v0/events/{id}`, without the fields local to a scan);
/// or of another query a pane ran (`event` is then `None`).
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkCheck {
    /// The update id, or for another query what was asked (`holdings summary`).
    pub update_id: String,
    /// `None` for a query that is not an update.
    pub query: Option<String>,
    /// The scans asked (URLs for display), in the order of every per-scan list.
    pub entries: Vec<ScanEntry>,
    pub update: CheckedOnScans,
    pub event: Option<CheckedOnScans>,
    /// When it was checked (µs since the epoch).
    pub checked_at: i64,
}

// ---------------------------------------------------------------------------------------------
// Finding the newest update of one scan
// ---------------------------------------------------------------------------------------------

/// The record time used to probe whether a migration is the newest: a page after
/// (k, this time) holds only items of later migrations.
pub const FAR_FUTURE: &str = "9999-12-31T23:59:59Z";
/// The migration in force at `time`: of the `(migration, first record time)` starts, in
/// migration order, the one whose first update is the newest at or before `time`; the first
/// migration when `time` is before all of them, 0 when none is known.
pub fn migration_at(starts: &[(i64, i64)], time: i64) -> i64 {
    starts
        .iter()
        .rev()
        .find(|(_, first)| *first <= time)
        .or(starts.first())
        .map_or(0, |(m, _)| *m)
}

/// Look-back windows tried in turn (seconds); after the last, the whole migration. The history
/// loader's seek steps are the same windows from ten minutes on (`feed::loader::SEEK_STEPS`).
pub const HEAD_WINDOWS: [i64; 9] = [
    30,
    120,
    600,
    3_600,
    6 * 3_600,
    86_400,
    7 * 86_400,
    30 * 86_400,
    365 * 86_400,
];
/// Page size of the search probes.
pub const HEAD_PROBE: usize = 100;
/// Page size when paging forward at the end of the search.
pub const HEAD_PAGE: usize = 1000;
const MAX_HEAD_STEPS: u32 = 200;

/// One item of a page, as the head search needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadItem {
    pub migration_id: i64,
    /// µs since the epoch.
    pub record_time: i64,
    /// The record time as the server wrote it (cursors are sent back verbatim).
    pub record_time_text: String,
    pub update_id: String,
}

/// The next request of a head search: a page of `page_size` after (`migration_id`,
/// `record_time`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadProbe {
    pub migration_id: i64,
    pub record_time: String,
    pub page_size: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum HeadStage {
    /// Is `migration` the newest? (page of 1 after (migration, far future))
    Discover {
        migration: i64,
    },
    /// Anything in the last `HEAD_WINDOWS[window]` seconds (or the whole migration)?
    Window {
        migration: i64,
        window: usize,
    },
    /// The head is after `lo` (the last item seen) and at or before `hi` (µs).
    Bisect {
        migration: i64,
        lo: HeadItem,
        hi: i64,
        probe: i64,
    },
    /// Paging forward after `last` until a short page.
    Forward {
        migration: i64,
        last: HeadItem,
    },
    Done(Result<Option<HistoryHead>, String>),
}

/// The search for a scan's newest update. The history has no "newest" endpoint: first find the
/// newest migration (a page after (k, far future) is empty only when k is the newest), then
/// look back in growing windows, then bisect on record time with small pages until a page is
/// short: its last item is the head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadSearch {
    now: i64,
    hint: Option<i64>,
    stage: HeadStage,
    steps: u32,
}

impl HeadSearch {
    /// A search at `now` (µs); `hint` is a migration id to try first (e.g. another scan's).
    pub fn new(now: i64, hint: Option<i64>) -> HeadSearch {
        HeadSearch {
            now,
            hint,
            stage: HeadStage::Discover {
                migration: hint.unwrap_or(0).max(0),
            },
            steps: 0,
        }
    }

    /// A search that continues from a head found before: it pages forward after it, which is
    /// one request when fewer than a page of updates came since (a later migration is found by
    /// the next full search).
    pub fn after(now: i64, head: &HistoryHead) -> HeadSearch {
        HeadSearch {
            now,
            hint: Some(head.migration_id),
            stage: HeadStage::Forward {
                migration: head.migration_id,
                last: HeadItem {
                    migration_id: head.migration_id,
                    record_time: head.record_time,
                    record_time_text: format_time_micros(head.record_time),
                    update_id: head.update_id.clone(),
                },
            },
            steps: 0,
        }
    }

    /// The request to send next, or `None` when the search is over.
    pub fn probe(&self) -> Option<HeadProbe> {
        let (migration_id, at, page_size) = match &self.stage {
            HeadStage::Discover { migration } => {
                return Some(HeadProbe {
                    migration_id: *migration,
                    record_time: FAR_FUTURE.to_owned(),
                    page_size: 1,
                });
            }
            HeadStage::Window { migration, window } => {
                let at = HEAD_WINDOWS
                    .get(*window)
                    .map_or(0, |w| self.now - w * MICROS);
                (*migration, at, HEAD_PROBE)
            }
            HeadStage::Bisect {
                migration, probe, ..
            } => (*migration, *probe, HEAD_PROBE),
            HeadStage::Forward { migration, last } => {
                return Some(HeadProbe {
                    migration_id: *migration,
                    record_time: last.record_time_text.clone(),
                    page_size: HEAD_PAGE,
                });
            }
            HeadStage::Done(_) => return None,
        };
        Some(HeadProbe {
            migration_id,
            record_time: format_time_micros(at.max(0)),
            page_size,
        })
    }

    /// The result, once the search is over.
    pub fn result(&self) -> Option<&Result<Option<HistoryHead>, String>> {
        match &self.stage {
            HeadStage::Done(result) => Some(result),
            _ => None,
        }
    }

    /// The probe failed: the search ends with this error.
    pub fn on_error(&mut self, error: String) {
        self.stage = HeadStage::Done(Err(error));
    }

    /// The page answering the last [`HeadSearch::probe`].
    pub fn on_page(&mut self, items: &[HeadItem]) {
        self.steps += 1;
        if self.steps > MAX_HEAD_STEPS {
            self.stage =
                HeadStage::Done(Err("the search for the newest update did not end".into()));
            return;
        }
        let Some(probe) = self.probe() else { return };
        let full = items.len() >= probe.page_size;
        let last = items.last().cloned();
        let done = |item: HeadItem| {
            HeadStage::Done(Ok(Some(HistoryHead {
                migration_id: item.migration_id,
                record_time: item.record_time,
                update_id: item.update_id,
            })))
        };
        self.stage = match std::mem::replace(&mut self.stage, HeadStage::Done(Ok(None))) {
            HeadStage::Discover { migration } => match last {
                Some(item) if item.migration_id > migration => HeadStage::Discover {
                    migration: item.migration_id,
                },
                Some(_) => HeadStage::Done(Err(
                    "the scan ignored the cursor of /v2/updates (an item of an earlier migration)"
                        .into(),
                )),
                None => HeadStage::Window {
                    migration,
                    window: 0,
                },
            },
            HeadStage::Window { migration, window } => match last {
                Some(item) if !full => done(item),
                Some(item) => {
                    let hi = match window.checked_sub(1) {
                        Some(previous) => self.now - HEAD_WINDOWS[previous] * MICROS,
                        // Nothing was known empty yet: allow for clocks ahead of ours.
                        None => self.now + 3_600 * MICROS,
                    };
                    bisect(migration, item, hi)
                }
                None if window < HEAD_WINDOWS.len() => HeadStage::Window {
                    migration,
                    window: window + 1,
                },
                None => match self.hint.take() {
                    // The hinted migration is empty here: discover from the start.
                    Some(h) if h > 0 => HeadStage::Discover { migration: 0 },
                    _ => HeadStage::Done(Ok(None)),
                },
            },
            HeadStage::Bisect {
                migration,
                lo,
                hi,
                probe,
            } => match last {
                Some(item) if !full => done(item),
                Some(item) => bisect(migration, item, hi),
                None => bisect(migration, lo, probe),
            },
            HeadStage::Forward {
                migration,
                last: previous,
            } => match last {
                Some(item) if full => HeadStage::Forward {
                    migration,
                    last: item,
                },
                Some(item) => done(item),
                None => done(previous),
            },
            HeadStage::Done(result) => HeadStage::Done(result),
        };
    }
}

/// The next bisection step: probe halfway between `lo` and `hi`, or page forward from `lo` when
/// the interval is closed.
fn bisect(migration: i64, lo: HeadItem, hi: i64) -> HeadStage {
    if hi - lo.record_time <= 1 {
        return HeadStage::Forward {
            migration,
            last: lo,
        };
    }
    let probe = lo.record_time + (hi - lo.record_time) / 2;
    HeadStage::Bisect {
        migration,
        lo,
        hi,
        probe,
    }
}

/// Parses a record time as servers write it (µs since the epoch).
pub fn record_time_micros(text: &str) -> Option<i64> {
    parse_time_micros(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::scan::{DomainScans, ScanInfo};

    fn info(name: &str, url: &str) -> ScanInfo {
        ScanInfo {
            public_url: url.to_owned(),
            sv_name: name.to_owned(),
            ..ScanInfo::default()
        }
    }

    #[test]
    fn the_global_synchronizer_is_picked() {
        let response = DsoScans {
            scans: vec![
                DomainScans {
                    domain_id: "app-synchronizer::1220aa".into(),
                    scans: vec![info("A", "https://a")],
                    ..DomainScans::default()
                },
                DomainScans {
                    domain_id: "global-domain::1220bb".into(),
                    scans: vec![
                        info("SV-1", "https://one/"),
                        info("SV-2", "https://two"),
                        info("dup", "https://ONE"),
                        info("no url", ""),
                    ],
                    ..DomainScans::default()
                },
            ],
            ..DsoScans::default()
        };
        let list = ScanList::from_response(&response).expect("a list");
        assert_eq!(list.domain_id, "global-domain::1220bb");
        let urls: Vec<&str> = list.scans.iter().map(|s| s.url.as_str()).collect();
        assert_eq!(urls, ["https://one", "https://two"]);
        // Without a global synchronizer: the first entry.
        let other = DsoScans {
            scans: response.scans[..1].to_vec(),
            ..DsoScans::default()
        };
        assert_eq!(
            ScanList::from_response(&other).map(|l| l.domain_id),
            Some("app-synchronizer::1220aa".to_owned())
        );
        assert_eq!(ScanList::from_response(&DsoScans::default()), None);
    }

    #[test]
    fn selection_pins_and_the_own_scan() {
        let list = ScanList {
            domain_id: "global-domain::x".into(),
            scans: ["SV-1", "SV-2", "SV-3"]
                .iter()
                .enumerate()
                .map(|(i, n)| ListedScan {
                    sv_name: (*n).to_owned(),
                    url: format!("https://s{i}.example"),
                })
                .collect(),
        };
        let (all, warnings) = select_scans(Some(&list), &ScanSelection::All, &[], None);
        assert_eq!(all.len(), 3);
        assert!(warnings.is_empty());
        let names = ScanSelection::Names(vec!["sv-2".into(), "SV-9".into()]);
        let pins = vec![
            "https://S0.example/".to_owned(),
            "http://tunnel:5012".to_owned(),
        ];
        let (picked, warnings) =
            select_scans(Some(&list), &names, &pins, Some("http://localhost:5012"));
        let summary: Vec<(&str, bool, bool, bool, bool)> = picked
            .iter()
            .map(|e| (e.sv_name.as_str(), e.listed, e.pinned, e.own, e.counted))
            .collect();
        assert_eq!(
            summary,
            [
                ("SV-1", true, true, false, true),
                ("SV-2", true, false, false, true),
                ("tunnel:5012", false, true, false, true),
                ("localhost:5012", false, false, true, false),
            ]
        );
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(quorum_of(&picked), (3, 0, 1));
        // The own scan, when listed, is that entry.
        let (own, _) = select_scans(
            Some(&list),
            &ScanSelection::All,
            &[],
            Some("https://s1.example/"),
        );
        assert_eq!(own.len(), 3);
        assert!(own[1].own && own[1].counted);
    }

    #[test]
    fn cache_files_and_round_trip() {
        let a = cache_file_name(Some("main net"), "https://Scan.example/");
        assert_eq!(a, cache_file_name(Some("main net"), "https://scan.example"));
        assert!(
            a.starts_with("scans-main_net-") && a.ends_with(".json"),
            "{a}"
        );
        assert_ne!(
            a,
            cache_file_name(Some("main net"), "https://other.example")
        );
        let cached = CachedScanList {
            seed: "https://scan.example".into(),
            fetched_at: 1_000,
            list: ScanList {
                domain_id: "global-domain::x".into(),
                scans: vec![ListedScan {
                    sv_name: "SV-1".into(),
                    url: "https://s".into(),
                }],
            },
        };
        assert_eq!(
            CachedScanList::from_json(&cached.to_json()),
            Some(cached.clone())
        );
        assert!(!cached.is_stale(1_000 + 599 * MICROS));
        assert!(cached.is_stale(1_000 + 600 * MICROS));
        assert_eq!(CachedScanList::from_json("{}"), None);
    }

    fn observation(head_age_s: i64, round_age_s: i64, now: i64) -> ScanObservation {
        ScanObservation {
            reachable: true,
            status: Some(NodeState::Active),
            head: Some(Ok(Some(HistoryHead {
                migration_id: 1,
                record_time: now - head_age_s * MICROS,
                update_id: "u".into(),
            }))),
            newest_round: Some(Ok(Some(RoundSeen {
                number: 7,
                created_at: now - round_age_s * MICROS,
            }))),
            ..ScanObservation::default()
        }
    }

    #[test]
    fn health_rules_and_the_verdict_line() {
        let now = 1_800_000_000 * MICROS;
        let mut obs: Vec<ScanObservation> = (0..13).map(|_| observation(2, 100, now)).collect();
        obs[3] = observation(44, 100, now); // lagging 42 s behind the newest head
        obs[5] = ScanObservation {
            reachable: false,
            down_reason: Some("connection refused".into()),
            ..ScanObservation::default()
        };
        let counted = vec![true; 13];
        let t = HealthThresholds::default();
        let health = assess(&obs, &counted, now, &t);
        assert_eq!(
            health.verdict,
            "13 scans · 11 healthy · 1 lagging 42 s · 1 down · quorum 5 healthy ✓"
        );
        assert_eq!(health.outcome, HealthOutcome::Degraded);
        assert!(health.scans[3].lagging);
        assert_eq!(health.scans[5].state, HealthState::Down);

        // The rules: round older than 900 s, update older than 300 s.
        let old_round = assess(&[observation(2, 901, now)], &[true], now, &t);
        assert_eq!(old_round.scans[0].state, HealthState::Unhealthy);
        assert!(
            old_round.scans[0].reasons[0].contains("round 7"),
            "{:?}",
            old_round.scans[0]
        );
        let old_update = assess(&[observation(301, 10, now)], &[true], now, &t);
        assert_eq!(old_update.scans[0].state, HealthState::Unhealthy);
        assert_eq!(old_update.outcome, HealthOutcome::NoHealthyQuorum);
        let fine = assess(&[observation(299, 899, now)], &[true], now, &t);
        assert_eq!(fine.outcome, HealthOutcome::AllHealthy);
        assert_eq!(fine.verdict, "1 scan · 1 healthy · quorum 1 healthy ✓");

        // An uncounted scan is judged but not counted.
        let health = assess(
            &[observation(2, 1, now), observation(999, 1, now)],
            &[true, false],
            now,
            &t,
        );
        assert_eq!((health.n, health.unhealthy), (1, 0));
        assert_eq!(health.scans[1].state, HealthState::Unhealthy);
        assert_eq!(health.outcome, HealthOutcome::AllHealthy);
    }

    /// A history of one update per second in migrations 0..=2, ending at `end` (µs).
    fn history(end: i64) -> Vec<HeadItem> {
        let mut items = Vec::new();
        for m in 0..3i64 {
            for k in 0..5_000i64 {
                let t = end - (2 - m) * 10_000 * MICROS - (4_999 - k) * MICROS;
                items.push(HeadItem {
                    migration_id: m,
                    record_time: t,
                    record_time_text: format_time_micros(t),
                    update_id: format!("u{m}-{k}"),
                });
            }
        }
        items
    }

    fn answer(items: &[HeadItem], probe: &HeadProbe) -> Vec<HeadItem> {
        let after = parse_time_micros(&probe.record_time).expect("time");
        items
            .iter()
            .filter(|i| {
                i.migration_id > probe.migration_id
                    || (i.migration_id == probe.migration_id && i.record_time > after)
            })
            .take(probe.page_size)
            .cloned()
            .collect()
    }

    fn run(items: &[HeadItem], now: i64, hint: Option<i64>) -> (Option<HistoryHead>, u32) {
        let mut search = HeadSearch::new(now, hint);
        let mut requests = 0;
        while let Some(probe) = search.probe() {
            requests += 1;
            search.on_page(&answer(items, &probe));
            assert!(requests < 300);
        }
        (
            search.result().cloned().expect("done").expect("ok"),
            requests,
        )
    }

    #[test]
    fn the_head_search_finds_the_newest_update() {
        let now = 1_800_000_000 * MICROS;
        for lag_s in [0, 5, 42, 700, 90_000] {
            let items = history(now - lag_s * MICROS);
            let (head, requests) = run(&items, now, None);
            let head = head.expect("a head");
            assert_eq!(head.update_id, "u2-4999", "lag {lag_s}");
            assert!(requests < 40, "{requests} requests at lag {lag_s}");
            let (hinted, _) = run(&items, now, Some(2));
            assert_eq!(hinted, Some(head.clone()));
            // A hint beyond the scan's newest migration still finds it.
            let (too_far, _) = run(&items, now, Some(5));
            assert_eq!(too_far, Some(head));
        }
        assert_eq!(run(&[], now, None).0, None);
        // From a known head: one request when less than a page came since.
        let items = history(now);
        let known = HistoryHead {
            migration_id: 2,
            record_time: items[items.len() - 10].record_time,
            update_id: items[items.len() - 10].update_id.clone(),
        };
        let mut search = HeadSearch::after(now, &known);
        let mut requests = 0;
        while let Some(probe) = search.probe() {
            requests += 1;
            search.on_page(&answer(&items, &probe));
        }
        assert_eq!(requests, 1);
        let found = search.result().cloned().expect("done").expect("ok");
        assert_eq!(found.map(|h| h.update_id), Some("u2-4999".to_owned()));
    }
}
