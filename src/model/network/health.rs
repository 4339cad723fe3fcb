//! How healthy each scan is (Splice's network status rules) and the one-line verdict of the
//! network: [`assess`] over one [`ScanObservation`] a scan.

use std::time::Duration;

use super::{MICROS, ScanEntry};
use crate::model::consensus::{fault_tolerance, quorum};

use serde::{Deserialize, Serialize};

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
    /// `/v0/backfilling/status` says its history is not complete yet.
    pub backfilling: bool,
    /// Some request was refused with 429 (the scan's rate limit).
    pub rate_limited: bool,
    /// The head of its verdict ingestion (`/v0/events/latest-record-time`, µs), or why it is
    /// unknown; `Ok(None)`: the scan does not serve the endpoint (older than Splice 0.8).
    pub verdict_head: Option<Result<Option<i64>, String>>,
}

/// The health of one scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HealthState {
    Healthy,
    /// Answers, but is still ingesting its history (`/v0/backfilling/status`): not healthy,
    /// not a fault either.
    Backfilling,
    /// Refused some of our requests with 429: what it said is incomplete, not wrong.
    RateLimited,
    Unhealthy,
    Down,
    /// Answers, but differs from the other scans at the head now (an open `forked` finding:
    /// the head check, `b`, a sweep or the index found it; a newer head check that agrees
    /// clears it).
    Forked,
    /// Answers, but served a past update differently from the others (an open `diverged
    /// history` finding, kept until that update is checked again and agrees).
    DivergedHistory,
}

impl HealthState {
    /// As written in JSON (`healthy`, `forked`, `diverged_history`, …).
    pub fn name(self) -> &'static str {
        match self {
            HealthState::Healthy => "healthy",
            HealthState::Backfilling => "backfilling",
            HealthState::RateLimited => "rate_limited",
            HealthState::Unhealthy => "unhealthy",
            HealthState::Down => "down",
            HealthState::Forked => "forked",
            HealthState::DivergedHistory => "diverged_history",
        }
    }
}

/// A scan's verdict ingestion lag (µs, at least 0): the record time of its newest update
/// (`head`) minus the latest record time `/v0/events` answers for (`verdict_head`). Verdicts
/// trail the updates; a verdict head after the update head (read a moment later) is no lag.
pub fn verdict_lag(head: i64, verdict_head: i64) -> i64 {
    (head - verdict_head).max(0)
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
    /// How far its head is behind the clock: the age of its newest update (µs, at least 0).
    pub update_age: Option<i64>,
    /// Age of its newest open mining round (µs, at least 0).
    pub round_age: Option<i64>,
    /// The latest record time `/v0/events` answers for (µs): the head of its verdict
    /// ingestion; `None` when the scan does not serve it or it is unknown.
    pub verdict_head: Option<i64>,
    /// Its verdict ingestion lag: its newest update's record time minus [`Self::verdict_head`]
    /// (µs, at least 0); `None` without both.
    pub verdict_lag: Option<i64>,
}

impl ScanHealth {
    /// Healthy, not lagging, not forked: what the header counts as healthy.
    pub fn is_well(&self) -> bool {
        self.state == HealthState::Healthy && !self.lagging
    }
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
    /// Counted scans with an open `forked` / `diverged history` finding (not healthy).
    pub forked: usize,
    pub diverged: usize,
    /// Counted scans still backfilling, and refusing with 429 (neither healthy nor faulty).
    pub backfilling: usize,
    pub rate_limited: usize,
    pub outcome: HealthOutcome,
    /// One line, e.g. `13 scans · 11 healthy · 1 lagging 42 s · 1 down · quorum 5 healthy ✓`.
    pub verdict: String,
}

pub(super) fn duration_micros(d: Duration) -> i64 {
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
    assess_with(observations, counted, now, thresholds, &[])
}

/// [`assess`], where `forks[i]` is what the kept findings say of scan `i`: an open `forked`
/// finding makes it [`HealthState::Forked`], an open `diverged history` one
/// [`HealthState::DivergedHistory`] (a scan that is down stays down); the finding's detail
/// leads its reasons.
pub fn assess_with(
    observations: &[ScanObservation],
    counted: &[bool],
    now: i64,
    thresholds: &HealthThresholds,
    forks: &[ForkMark],
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
        .enumerate()
        .map(|(index, o)| {
            let mut reasons = Vec::new();
            let head = match &o.head {
                Some(Ok(Some(head))) => Some(head),
                _ => None,
            };
            // A head or a round "from the future" is a clock skew between the scan and us.
            let update_age = head.map(|h| (now - h.record_time).max(0));
            let lag_behind_newest = head.zip(newest_head).map(|(h, n)| n - h.record_time);
            let round_age = match &o.newest_round {
                Some(Ok(Some(round))) => Some((now - round.created_at).max(0)),
                _ => None,
            };
            let verdict_head = match &o.verdict_head {
                Some(Ok(Some(t))) => Some(*t),
                _ => None,
            };
            let verdict_lag = head
                .zip(verdict_head)
                .map(|(h, v)| verdict_lag(h.record_time, v));
            let health = |state: HealthState, lagging: bool, reasons: Vec<String>| ScanHealth {
                state,
                lagging,
                reasons,
                lag_behind_newest,
                update_age,
                round_age,
                verdict_head,
                verdict_lag,
            };
            if !o.reachable {
                reasons.push(
                    o.down_reason
                        .clone()
                        .unwrap_or_else(|| "unreachable".to_owned()),
                );
                return health(HealthState::Down, false, reasons);
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
            let fork = forks.get(index).cloned().unwrap_or_default();
            let state = if let Some(detail) = &fork.forked {
                reasons.insert(0, format!("forked: {detail}"));
                HealthState::Forked
            } else if let Some(detail) = &fork.diverged {
                reasons.insert(0, format!("diverged history: {detail}"));
                HealthState::DivergedHistory
            } else if o.rate_limited {
                reasons.insert(0, "rate-limited (429)".to_owned());
                HealthState::RateLimited
            } else if reasons.is_empty() && o.backfilling {
                reasons.push("backfilling its history".to_owned());
                HealthState::Backfilling
            } else if reasons.is_empty() {
                HealthState::Healthy
            } else {
                HealthState::Unhealthy
            };
            let lagging =
                state == HealthState::Healthy && lag_behind_newest.is_some_and(|lag| lag > max_lag);
            health(state, lagging, reasons)
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
    let in_state = |state: HealthState| counted_scans().filter(|s| s.state == state).count();
    let healthy = in_state(HealthState::Healthy);
    let lagging = counted_scans().filter(|s| s.lagging).count();
    let unhealthy = in_state(HealthState::Unhealthy);
    let down = in_state(HealthState::Down);
    let backfilling = in_state(HealthState::Backfilling);
    let rate_limited = in_state(HealthState::RateLimited);
    let forked = in_state(HealthState::Forked);
    let diverged = in_state(HealthState::DivergedHistory);
    let max_lag_seen = counted_scans()
        .filter(|s| s.lagging)
        .filter_map(|s| s.lag_behind_newest)
        .max();
    let outcome = if healthy < q || n == 0 {
        HealthOutcome::NoHealthyQuorum
    } else if healthy + backfilling + rate_limited == n {
        // A backfilling or rate-limited scan is not healthy (it does not count for the
        // quorum) but is no fault of the network either.
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
    for (count, what) in [
        (backfilling, "backfilling"),
        (rate_limited, "rate-limited"),
        (unhealthy, "unhealthy"),
        (down, "down"),
        (forked, "forked"),
        (diverged, "diverged history"),
    ] {
        if count > 0 {
            parts.push(format!("{count} {what}"));
        }
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
        forked,
        diverged,
        backfilling,
        rate_limited,
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
    /// The head check run with this measurement, if one was due.
    pub head_check: Option<super::fork::HeadCheck>,
    /// The network's findings as kept after this measurement (the head check's applied).
    pub findings: crate::model::findings::FindingsBook,
}

/// The findings a measurement makes of scans down: a counted scan that is down and has no
/// open `scan down` finding opens one; a scan that answers again clears its own.
pub fn down_ops(
    entries: &[ScanEntry],
    health: &NetworkHealth,
    book: &crate::model::findings::FindingsBook,
) -> Vec<crate::model::findings::FindingOp> {
    use crate::model::findings::{FindingKind, FindingOp, FoundBy};
    let mut ops = Vec::new();
    for (entry, scan) in entries.iter().zip(&health.scans) {
        let down = scan.state == HealthState::Down;
        let open = book
            .open_about(FindingKind::ScanDown, &entry.url)
            .next()
            .is_some();
        if down && !open && entry.counted {
            ops.push(FindingOp::open(
                FindingKind::ScanDown,
                (&entry.url, &entry.sv_name),
                FoundBy::Health,
                scan.reasons
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "down".into()),
            ));
        } else if !down && open {
            ops.push(FindingOp::clear(
                FindingKind::ScanDown,
                &entry.url,
                "answers again",
            ));
        }
    }
    ops
}

/// What the kept findings say of one scan: the detail of its open `forked` and `diverged
/// history` findings (the newest of each).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ForkMark {
    pub forked: Option<String>,
    pub diverged: Option<String>,
}

/// What `book` says of each scan of `entries` (see [`assess_with`]).
pub fn fork_marks(
    entries: &[ScanEntry],
    book: &crate::model::findings::FindingsBook,
) -> Vec<ForkMark> {
    use crate::model::findings::FindingKind;
    let newest = |kind: FindingKind, url: &str| {
        book.open_about(kind, url)
            .max_by_key(|f| f.last_seen)
            .map(|f| f.detail.clone())
    };
    entries
        .iter()
        .map(|e| {
            let diverged = book
                .open_about(FindingKind::DivergedHistory, &e.url)
                .count();
            ForkMark {
                forked: newest(FindingKind::Forked, &e.url),
                diverged: newest(FindingKind::DivergedHistory, &e.url).map(|d| {
                    if diverged > 1 {
                        format!("{diverged} updates, e.g. {d}")
                    } else {
                        d
                    }
                }),
            }
        })
        .collect()
}

impl NetworkSnapshot {
    /// Whether each scan counts in `n`.
    pub fn counted(&self) -> Vec<bool> {
        self.entries.iter().map(|e| e.counted).collect()
    }

    /// The health of every scan and of the network at the time of the measurement.
    pub fn assess(&self) -> NetworkHealth {
        assess_with(
            &self.observations,
            &self.counted(),
            self.checked_at,
            &self.thresholds,
            &fork_marks(&self.entries, &self.findings),
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
    pub check: crate::model::consensus::UpdateCheck,
    /// Per scan: how long its answer took (ms).
    pub latency_ms: Vec<u32>,
    /// Per scan: its answer as compared (a pane's query only; empty for an update check,
    /// whose bodies are not kept).
    pub answers: Vec<crate::model::consensus::Answer>,
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
