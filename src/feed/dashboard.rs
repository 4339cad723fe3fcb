//! What the Status dashboard concludes, pure: the one-line verdict over every node and the
//! loaded history (healthy / degraded / down, and why), the lag thresholds it judges by, and the
//! mining rounds it shows (polled from scan 0), and this validator's sequencer traffic (its
//! participant id read once from the Ledger API, its traffic status polled from scan 0), and the
//! open vote requests of the governance card ([`GovernanceWatch`], polled from scan 0).

use crate::api::scan::{
    DsoInfo, MiningRound, NodeStatus, OpenAndIssuingMiningRounds, VoteRequests,
};
use crate::api::scan::{MemberTrafficStatus, participant_member_id};
use crate::feed::node_poll::{NodeHealth, NodeKind, NodePoller};
use crate::model::format::{human_age, parse_time_micros};
use crate::model::governance::{OpenRequest, OpenSummary, sort_by_deadline};
use crate::model::history_stats::HistoryStats;
use crate::model::network::MySv;
use crate::msg::{Request, RequestId};

const SEC: i64 = 1_000_000;

/// When the lag of the newest update turns amber (`warn`) and red (`error`), in µs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LagThresholds {
    pub warn: i64,
    pub error: i64,
}

impl Default for LagThresholds {
    fn default() -> Self {
        LagThresholds {
            warn: 60 * SEC,
            error: 300 * SEC,
        }
    }
}

/// How bad a lag is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LagLevel {
    Fine,
    Amber,
    Red,
}

impl LagThresholds {
    /// The level of a lag (µs).
    pub fn level(&self, lag: i64) -> LagLevel {
        if lag > self.error {
            LagLevel::Red
        } else if lag > self.warn {
            LagLevel::Amber
        } else {
            LagLevel::Fine
        }
    }
}

/// The overall level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// No node has answered yet.
    Checking,
    Healthy,
    Degraded,
    /// Every node may answer, but the newest update is older than the red threshold: the
    /// history does not move.
    Stalled,
    Down,
}

impl Level {
    /// Upper-case label.
    pub fn label(self) -> &'static str {
        match self {
            Level::Checking => "CHECKING",
            Level::Healthy => "HEALTHY",
            Level::Degraded => "DEGRADED",
            Level::Stalled => "STALLED",
            Level::Down => "DOWN",
        }
    }
}

/// The dashboard's verdict: a level and the reasons, worst first.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub level: Level,
    pub reasons: Vec<String>,
}

/// Judges the nodes and the history: scan 0 down (the history's source) is **down**; the newest
/// update older than the red threshold is **stalled** (the nodes answer, the history does not
/// move); any other node down or degraded, or a lag over the amber threshold, is **degraded**;
/// otherwise **healthy** (with what was checked).
pub fn judge(
    poller: &NodePoller,
    stats: &HistoryStats,
    at_head: bool,
    now: i64,
    lag: LagThresholds,
) -> Verdict {
    let mut down = Vec::new();
    let mut degraded = Vec::new();
    let mut answered = 0usize;
    let mut polled = 0usize;
    for n in poller.nodes().iter().filter(|n| n.polled) {
        polled += 1;
        match n.health() {
            NodeHealth::Down => {
                let why = n
                    .last_error
                    .as_ref()
                    .map(|(_, e)| e.rsplit(": ").next().unwrap_or(e).to_string())
                    .unwrap_or_default();
                down.push((n.kind, format!("{} down ({why})", n.kind.name())));
            }
            NodeHealth::Degraded => {
                answered += 1;
                let what = match &n.status {
                    Some(NodeStatus::NotInitialized(_)) => "not initialized",
                    Some(NodeStatus::Failed(_)) => "reports a failure",
                    Some(NodeStatus::Success(_)) => "inactive",
                    _ => "degraded",
                };
                degraded.push(format!("{} {what}", n.kind.name()));
            }
            NodeHealth::Ok => answered += 1,
            NodeHealth::Unknown => {}
        }
    }
    let mut level = Level::Healthy;
    let mut reasons = Vec::new();
    if down.iter().any(|(k, _)| *k == NodeKind::Scan(0)) {
        level = Level::Down;
    } else if !down.is_empty() || !degraded.is_empty() {
        level = Level::Degraded;
    }
    reasons.extend(down.into_iter().map(|(_, r)| r));
    reasons.extend(degraded);
    if at_head && let Some(newest) = stats.newest {
        let age = now - newest;
        match lag.level(age) {
            LagLevel::Red => {
                level = level.max(Level::Stalled);
                reasons.push(format!(
                    "newest update {} old (red over {})",
                    human_age(age),
                    human_age(lag.error)
                ));
            }
            LagLevel::Amber => {
                level = level.max(Level::Degraded);
                reasons.push(format!(
                    "newest update {} old (amber over {})",
                    human_age(age),
                    human_age(lag.warn)
                ));
            }
            LagLevel::Fine => {}
        }
    }
    if level == Level::Healthy {
        if answered == 0 && polled > 0 {
            level = Level::Checking;
            reasons.push("waiting for the first answers".into());
        } else {
            reasons.push(format!(
                "{answered} of {polled} node{} answer{}",
                if polled == 1 { "" } else { "s" },
                if answered == 1 { "s" } else { "" }
            ));
            if at_head && let Some(newest) = stats.newest {
                reasons.push(format!("newest update {} old", human_age(now - newest)));
            }
            if let Some(r) = stats.recent_rate {
                reasons.push(format!("{r:.0} updates/min"));
            }
        }
    }
    Verdict { level, reasons }
}

/// One request read slowly, at most one in flight: the cadence of the Status dashboard's
/// mining rounds and of the governance watch.
#[derive(Debug, Clone, Copy, Default)]
pub struct SlowPoll {
    in_flight: Option<RequestId>,
    next_due: i64,
}

impl SlowPoll {
    /// Whether a request is due at `now`.
    pub fn due(&self, now: i64) -> bool {
        self.in_flight.is_none() && now >= self.next_due
    }

    /// Records that request `id` went out.
    pub fn sent(&mut self, id: RequestId) {
        self.in_flight = Some(id);
    }

    /// Whether `id` is the request in flight.
    pub fn is_waiting_for(&self, id: RequestId) -> bool {
        self.in_flight == Some(id)
    }

    /// Records that the answer (or failure) arrived at `now`: the next request is due
    /// `every_us` later.
    fn answered(&mut self, now: i64, every_us: i64) {
        self.in_flight = None;
        self.next_due = now.saturating_add(every_us);
    }
}

/// The mining rounds of scan 0, polled slowly.
#[derive(Debug, Clone, Default)]
pub struct Rounds {
    /// The request in flight and when the next is due.
    pub poll: SlowPoll,
    /// Open rounds, oldest first.
    pub open: Vec<MiningRound>,
    /// Issuing rounds, oldest first.
    pub issuing: Vec<i64>,
    /// When the last answer arrived (µs).
    pub at: Option<i64>,
    /// The last error, while the last request failed.
    pub error: Option<String>,
    /// The synchronizer the rounds live on (the global synchronizer), from the last answer.
    pub domain_id: Option<String>,
}

impl Rounds {
    /// Records an answer at `now`; the next request is due `every_us` later.
    pub fn on_result(
        &mut self,
        result: Result<&OpenAndIssuingMiningRounds, String>,
        now: i64,
        every_us: i64,
    ) {
        self.poll.answered(now, every_us);
        match result {
            Ok(r) => {
                let mut open: Vec<MiningRound> = r
                    .open_mining_rounds
                    .values()
                    .filter_map(super::super::api::scan::MaybeCachedContract::round)
                    .collect();
                open.sort_by_key(|r| r.number);
                let mut issuing: Vec<i64> = r
                    .issuing_mining_rounds
                    .values()
                    .filter_map(|c| c.round().map(|r| r.number))
                    .collect();
                issuing.sort_unstable();
                if let Some(d) = r
                    .open_mining_rounds
                    .values()
                    .chain(r.issuing_mining_rounds.values())
                    .find_map(|c| c.domain_id.clone().filter(|d| !d.is_empty()))
                {
                    self.domain_id = Some(d);
                }
                self.open = open;
                self.issuing = issuing;
                self.at = Some(now);
                self.error = None;
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Every figure of the mining rounds card, from the last answer and one `now`
    /// ([`RoundsView::of`]); `None` before the first answer.
    pub fn view(&self, now: i64) -> Option<RoundsView<'_>> {
        self.at
            .map(|at| RoundsView::of(&self.open, &self.issuing, at, now))
    }

    /// The current round at `now` (see [`RoundsView::current`]).
    pub fn current(&self, now: i64) -> Option<&MiningRound> {
        self.view(now).and_then(|v| v.current)
    }
}

/// The mining rounds card's figures, all derived from one answer (the open and issuing rounds
/// of one read of `/v0/open-and-issuing-mining-rounds`) at one `now`, so they cannot disagree.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundsView<'a> {
    /// The current round, as Splice defines it: the open round whose `opensAt` is the latest
    /// not after `now` (a round whose `opensAt` cannot be read is never current).
    pub current: Option<&'a MiningRound>,
    /// The round that opens next: the open round with the smallest `opensAt` after `now`.
    pub next: Option<&'a MiningRound>,
    /// The open rounds, by number.
    pub open: &'a [MiningRound],
    /// The issuing rounds' numbers, in order.
    pub issuing: &'a [i64],
    /// When the answer arrived (µs).
    pub read_at: i64,
}

impl<'a> RoundsView<'a> {
    /// The figures of the open rounds `open` and issuing rounds `issuing` read at `read_at`,
    /// at `now`.
    pub fn of(open: &'a [MiningRound], issuing: &'a [i64], read_at: i64, now: i64) -> Self {
        let timed = || {
            open.iter()
                .filter_map(|r| parse_time_micros(&r.opens_at).map(|t| (t, r)))
        };
        // Ties (two rounds opening at the same instant) go to the higher number.
        let current = timed()
            .filter(|(t, _)| *t <= now)
            .max_by_key(|(t, r)| (*t, r.number))
            .map(|(_, r)| r);
        let next = timed()
            .filter(|(t, _)| *t > now)
            .min_by_key(|(t, r)| (*t, r.number))
            .map(|(_, r)| r);
        RoundsView {
            current,
            next,
            open,
            issuing,
            read_at,
        }
    }
}

/// When the remaining traffic turns amber and red, in percent of the limit (profile keys
/// `traffic_warn_percent`, `traffic_error_percent`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrafficThresholds {
    /// Amber under this share of the limit (default 20).
    pub warn: u32,
    /// Red under this share of the limit (default 5).
    pub error: u32,
}

impl Default for TrafficThresholds {
    fn default() -> Self {
        TrafficThresholds { warn: 20, error: 5 }
    }
}

/// What the traffic card asks next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrafficAsk {
    /// The participant id, of the Ledger API.
    ParticipantId,
    /// The traffic status of `member_id` on `domain_id`, of scan 0.
    Status {
        domain_id: String,
        member_id: String,
    },
}

impl TrafficAsk {
    /// The request that asks it.
    pub fn request(&self) -> Request {
        match self {
            TrafficAsk::ParticipantId => Request::api(crate::api::ledger::participant_id()),
            TrafficAsk::Status {
                domain_id,
                member_id,
            } => Request::api(crate::api::scan::member_traffic_status(
                domain_id, member_id,
            )),
        }
    }
}

/// This validator's sequencer traffic on the global synchronizer: its participant id, asked of
/// the Ledger API once (again after a failure), then its traffic status asked of scan 0 every
/// `every_us`, at most one request of each kind in flight.
#[derive(Debug, Clone, Default)]
pub struct Traffic {
    participant_in_flight: Option<RequestId>,
    status_in_flight: Option<RequestId>,
    participant_due: i64,
    status_due: i64,
    /// The participant id as the Ledger API sent it.
    pub participant: Option<String>,
    /// Why the participant id could not be read, while it could not.
    pub participant_error: Option<String>,
    /// The synchronizer the last status was asked on.
    pub domain_id: Option<String>,
    /// The last traffic status.
    pub status: Option<MemberTrafficStatus>,
    /// When the last status arrived (µs).
    pub at: Option<i64>,
    /// The last error of the traffic status, while the last request failed.
    pub error: Option<String>,
    /// When the remaining traffic turns amber and red.
    pub thresholds: TrafficThresholds,
}

impl Traffic {
    /// No participant or status read yet; judged by `thresholds`.
    pub fn new(thresholds: TrafficThresholds) -> Self {
        Traffic {
            thresholds,
            ..Traffic::default()
        }
    }

    /// The sequencer member id of the participant (`PAR::…`), once known.
    pub fn member_id(&self) -> Option<String> {
        self.participant.as_deref().map(participant_member_id)
    }

    /// What is due at `now`, if anything: the participant id until it is known, then the
    /// traffic status on `domain_id` (the global synchronizer, once known).
    pub fn due(&self, now: i64, domain_id: Option<&str>) -> Option<TrafficAsk> {
        match (&self.participant, domain_id) {
            (None, _) => (self.participant_in_flight.is_none() && now >= self.participant_due)
                .then_some(TrafficAsk::ParticipantId),
            (Some(_), Some(domain_id)) => (self.status_in_flight.is_none()
                && now >= self.status_due)
                .then(|| TrafficAsk::Status {
                    domain_id: domain_id.to_string(),
                    member_id: self.member_id().unwrap_or_default(),
                }),
            (Some(_), None) => None,
        }
    }

    /// Records that request `id` (for `ask`) went out.
    pub fn sent(&mut self, id: RequestId, ask: &TrafficAsk) {
        match ask {
            TrafficAsk::ParticipantId => self.participant_in_flight = Some(id),
            TrafficAsk::Status { domain_id, .. } => {
                self.status_in_flight = Some(id);
                self.domain_id = Some(domain_id.clone());
            }
        }
    }

    /// Whether `id` is the participant id request in flight (else the status request).
    pub fn is_participant_request(&self, id: RequestId) -> bool {
        self.participant_in_flight == Some(id)
    }

    /// Whether `id` is one of the requests in flight.
    pub fn is_waiting_for(&self, id: RequestId) -> bool {
        self.participant_in_flight == Some(id) || self.status_in_flight == Some(id)
    }

    /// Records the participant id (or why it could not be read) at `now`; after a failure the
    /// next attempt is due `every_us` later.
    pub fn on_participant(&mut self, result: Result<&str, String>, now: i64, every_us: i64) {
        self.participant_in_flight = None;
        match result {
            Ok(id) if !id.trim().is_empty() => {
                self.participant = Some(id.trim().to_string());
                self.participant_error = None;
                self.status_due = now;
            }
            Ok(_) => {
                self.participant_error = Some("the Ledger API sent an empty participant id".into());
                self.participant_due = now.saturating_add(every_us);
            }
            Err(e) => {
                self.participant_error = Some(e);
                self.participant_due = now.saturating_add(every_us);
            }
        }
    }

    /// Records a traffic status (or its error) at `now`; the next is due `every_us` later.
    pub fn on_status(
        &mut self,
        result: Result<&MemberTrafficStatus, String>,
        now: i64,
        every_us: i64,
    ) {
        self.status_in_flight = None;
        self.status_due = now.saturating_add(every_us);
        match result {
            Ok(s) => {
                self.status = Some(s.clone());
                self.at = Some(now);
                self.error = None;
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Extra traffic left under the limit (bytes; negative when over it).
    pub fn remaining(&self) -> Option<i64> {
        let a = &self.status.as_ref()?.actual;
        Some(a.total_limit - a.total_consumed)
    }

    /// The remaining traffic as a whole percentage of the limit (0 when there is no limit).
    pub fn remaining_percent(&self) -> Option<i64> {
        let a = &self.status.as_ref()?.actual;
        let left = a.total_limit - a.total_consumed;
        Some(if a.total_limit > 0 {
            (i128::from(left.max(0)) * 100 / i128::from(a.total_limit)) as i64
        } else {
            0
        })
    }

    /// Adds the traffic to a verdict: remaining traffic under the amber or red threshold makes
    /// the dashboard degraded and says how much is left (the network itself is not down).
    pub fn judge(&self, verdict: &mut Verdict) {
        let (Some(level), Some(pct)) = (self.level(), self.remaining_percent()) else {
            return;
        };
        let threshold = match level {
            LagLevel::Fine => return,
            LagLevel::Amber => format!("amber under {}%", self.thresholds.warn),
            LagLevel::Red => format!("red under {}%", self.thresholds.error),
        };
        if matches!(verdict.level, Level::Healthy | Level::Checking) {
            verdict.level = Level::Degraded;
            verdict.reasons.clear();
        }
        verdict
            .reasons
            .push(format!("traffic {pct}% of the limit left ({threshold})"));
    }

    /// How worrying the remaining traffic is: amber under `thresholds.warn` percent of the
    /// limit, red under `thresholds.error` percent (or with nothing left).
    pub fn level(&self) -> Option<LagLevel> {
        let a = &self.status.as_ref()?.actual;
        let left = i128::from(a.total_limit - a.total_consumed);
        let limit = i128::from(a.total_limit.max(0));
        Some(
            if left * 100 < limit * i128::from(self.thresholds.error) || left <= 0 {
                LagLevel::Red
            } else if left * 100 < limit * i128::from(self.thresholds.warn) {
                LagLevel::Amber
            } else {
                LagLevel::Fine
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::{PaneId, Response};

    const NOW: i64 = 1_800_000_000 * SEC;

    fn poller() -> NodePoller {
        let urls = vec!["http://s0".to_string(), "http://s1".to_string()];
        NodePoller::new(&urls, None, Some("http://v"), 2000)
    }

    fn answer(p: &mut NodePoller, i: usize, ok: bool) {
        p.sent(i, RequestId::new(PaneId::Status, 1), NOW);
        let r = if ok {
            Ok(&Response::from(crate::api::ledger::EmptyResponse::default()))
        } else {
            Err("scan GET /status: connection failed: refused".to_string())
        };
        p.on_result(i, r, 5, NOW);
    }

    #[test]
    fn one_node_answers_in_the_singular() {
        let mut p = NodePoller::new(&["http://s0".to_string()], None, None, 2000);
        answer(&mut p, 0, true);
        let v = judge(
            &p,
            &HistoryStats::default(),
            true,
            NOW,
            LagThresholds::default(),
        );
        assert_eq!(v.reasons[0], "1 of 1 node answers");
    }

    #[test]
    fn the_verdict_names_the_worst_first() {
        let stats = HistoryStats::default();
        let lag = LagThresholds::default();
        let mut p = poller();
        assert_eq!(judge(&p, &stats, true, NOW, lag).level, Level::Checking);
        for i in 0..3 {
            answer(&mut p, i, true);
        }
        let v = judge(&p, &stats, true, NOW, lag);
        assert_eq!(v.level, Level::Healthy);
        assert_eq!(v.reasons[0], "3 of 3 nodes answer");
        answer(&mut p, 1, false);
        let v = judge(&p, &stats, true, NOW, lag);
        assert_eq!(v.level, Level::Degraded);
        assert_eq!(v.reasons, ["scan 2 down (refused)"]);
        answer(&mut p, 0, false);
        let v = judge(&p, &stats, true, NOW, lag);
        assert_eq!(v.level, Level::Down);
        assert_eq!(v.reasons.len(), 2);
    }

    fn round(number: i64, opens_at: i64) -> MiningRound {
        MiningRound {
            number,
            contract_id: format!("00r{number}"),
            created_at: String::new(),
            opens_at: crate::model::format::format_time_micros(opens_at),
        }
    }

    #[test]
    fn the_current_round_is_the_latest_opened_by_opens_at_not_by_number() {
        let min = 60 * SEC;
        // As right after a live demo started: the newest round by number opened first.
        let open = [
            round(361, NOW + 8 * min),
            round(362, NOW + 18 * min),
            round(363, NOW - 40 * SEC),
            round(364, NOW + 15 * SEC),
        ];
        let v = RoundsView::of(&open, &[360], NOW - 5 * SEC, NOW);
        assert_eq!(v.current.map(|r| r.number), Some(363));
        // Next opens: the smallest opensAt after now, not the first higher number.
        assert_eq!(v.next.map(|r| r.number), Some(364));
        assert_eq!(v.read_at, NOW - 5 * SEC);
        // The same read later: 364 has opened, 361 is next.
        let v = RoundsView::of(&open, &[360], NOW - 5 * SEC, NOW + 15 * SEC);
        assert_eq!(v.current.map(|r| r.number), Some(364));
        assert_eq!(v.next.map(|r| r.number), Some(361));
        // Nothing opened yet; nothing left to open.
        let v = RoundsView::of(&open, &[], NOW, NOW - min);
        assert_eq!(v.current, None);
        assert_eq!(v.next.map(|r| r.number), Some(363));
        let v = RoundsView::of(&open, &[], NOW, NOW + 30 * min);
        assert_eq!(v.current.map(|r| r.number), Some(362));
        assert_eq!(v.next, None);
    }

    #[test]
    fn a_round_without_a_readable_opening_time_is_never_current() {
        let mut odd = round(9, NOW);
        odd.opens_at = "soon".into();
        let open = [round(7, NOW - SEC), round(8, NOW + SEC), odd];
        let v = RoundsView::of(&open, &[], NOW, NOW);
        assert_eq!(v.current.map(|r| r.number), Some(7));
        assert_eq!(v.next.map(|r| r.number), Some(8));
        assert_eq!(v.open.len(), 3);
    }

    #[test]
    fn the_card_reads_one_answer() {
        let mut rounds = Rounds::default();
        assert!(rounds.view(NOW).is_none());
        let answer: OpenAndIssuingMiningRounds = serde_json::from_value(serde_json::json!({
            "open_mining_rounds": {
                "00a": {"contract": {"contract_id": "00a", "template_id": "t", "created_at": "",
                    "payload": {"round": {"number": "5"}, "opensAt": crate::model::format::format_time_micros(NOW - SEC)}}},
                "00b": {"contract": {"contract_id": "00b", "template_id": "t", "created_at": "",
                    "payload": {"round": {"number": "6"}, "opensAt": crate::model::format::format_time_micros(NOW + SEC)}}}
            },
            "issuing_mining_rounds": {
                "00c": {"contract": {"contract_id": "00c", "template_id": "t", "created_at": "",
                    "payload": {"round": {"number": "4"}}}}
            }
        }))
        .expect("decodes");
        rounds.on_result(Ok(&answer), NOW, 30 * SEC);
        let v = rounds.view(NOW).expect("read");
        assert_eq!(v.current.map(|r| r.number), Some(5));
        assert_eq!(v.next.map(|r| r.number), Some(6));
        assert_eq!(v.issuing, [4]);
        // A failed read keeps the last answer whole (with its time), not half of it.
        rounds.on_result(Err("refused".into()), NOW + 40 * SEC, 30 * SEC);
        let v = rounds.view(NOW + 40 * SEC).expect("kept");
        assert_eq!(v.read_at, NOW);
        assert_eq!(v.current.map(|r| r.number), Some(6));
        assert_eq!(rounds.error.as_deref(), Some("refused"));
    }

    #[test]
    fn lag_thresholds_turn_amber_then_red() {
        let lag = LagThresholds {
            warn: 10 * SEC,
            error: 20 * SEC,
        };
        assert_eq!(lag.level(5 * SEC), LagLevel::Fine);
        assert_eq!(lag.level(15 * SEC), LagLevel::Amber);
        assert_eq!(lag.level(25 * SEC), LagLevel::Red);
        let mut p = poller();
        for i in 0..3 {
            answer(&mut p, i, true);
        }
        let mut stats = HistoryStats::default();
        stats.newest = Some(NOW - 15 * SEC);
        let v = judge(&p, &stats, true, NOW, lag);
        assert_eq!(v.level, Level::Degraded);
        assert_eq!(v.reasons, ["newest update 15s old (amber over 10s)"]);
        let v = judge(&p, &stats, true, NOW + 10 * SEC, lag);
        assert_eq!(v.level, Level::Stalled);
        assert_eq!(v.level.label(), "STALLED");
        // Browsing the past says nothing about the lag.
        assert_eq!(
            judge(&p, &stats, false, NOW + 10 * SEC, lag).level,
            Level::Healthy
        );
    }
}

/// How often the governance card reads the open vote requests by default (µs; the profile's
/// `governance_interval`): governance moves in days, so every 45 s is plenty.
pub const GOVERNANCE_EVERY_US: i64 = 45 * SEC;

/// The open vote requests as the Status dashboard's governance card last read them (scan 0's
/// `/v0/admin/sv/voterequests`).
#[derive(Debug, Default)]
pub struct GovernanceWatch {
    /// The request in flight and when the next is due.
    pub poll: SlowPoll,
    /// The last answer.
    pub requests: Option<std::sync::Arc<VoteRequests>>,
    /// When the last answer arrived (µs).
    pub at: Option<i64>,
    /// The last error, while the last request failed.
    pub error: Option<String>,
}

impl GovernanceWatch {
    /// Records an answer at `now`; the next request is due `every_us` later. A failure keeps
    /// the last answer (shown with its age) and says why.
    pub fn on_result(
        &mut self,
        result: Result<std::sync::Arc<VoteRequests>, String>,
        now: i64,
        every_us: i64,
    ) {
        self.poll.answered(now, every_us);
        match result {
            Ok(r) => {
                self.requests = Some(r);
                self.at = Some(now);
                self.error = None;
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// The open requests summarised for the DSO's SVs and my SV, soonest deadline first.
    pub fn rows(&self, dso: Option<&DsoInfo>, me: Option<&MySv>) -> Option<Vec<OpenRequest>> {
        let requests = self.requests.as_ref()?;
        let svs = dso.map_or(&[][..], |d| d.svs.as_slice());
        let threshold = dso.and_then(|d| d.voting_threshold);
        let me = me.map(|m| (m.name.as_deref(), m.party.as_deref()));
        let mut rows: Vec<OpenRequest> = requests
            .requests
            .iter()
            .map(|r| OpenRequest::of(r, svs, threshold, me))
            .collect();
        sort_by_deadline(&mut rows);
        Some(rows)
    }

    /// The open requests at a glance at `now`.
    pub fn summary(
        &self,
        dso: Option<&DsoInfo>,
        me: Option<&MySv>,
        now: i64,
    ) -> Option<OpenSummary> {
        self.rows(dso, me)
            .map(|rows| OpenSummary::of(&rows, now, me.is_some()))
    }
}
