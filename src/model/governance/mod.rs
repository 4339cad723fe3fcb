//! Governance, pure: what a vote request asks in words ([`action_words`]), where its vote stands
//! against the DSO's voting threshold counting current SVs only ([`Tally`]), whether my SV still
//! has to vote ([`MyVote`]), how a closed request ended, told apart client-side ([`Outcome`]),
//! what a config action changes ([`config_diff`]), the amulet price votes' median and spread
//! ([`PriceStats`]) and each SV's reward weight history rebuilt from accepted results
//! ([`weight_history`]). No UI: the pane and the headless commands draw and print these.
//!
//! ```text
//! /v0/admin/sv/voterequests ─► VoteRequest ─┬─► action_words ─► "update reward weight of D 8000 → 9000"
//! /v0/dso (SVs, threshold) ─────────────────┼─► Tally ─► "5 of 7 needed · 4 accept · 1 reject · 2 not yet"
//! my SV (profile sv / sv_party_id) ─────────┴─► MyVote ─► needed | accepted | rejected
//! /v0/admin/sv/voteresults ─► VoteResult ─► Outcome, weight_history, config_diff
//! ```

mod across;
mod diff;
mod results;
mod updates;
mod weights;

pub use across::{AcrossCell, AcrossScans, ScanRow, VOTE_REQUESTS_UNORDERED, across_scans};
pub use diff::{DiffBase, DiffLine, action_diff, config_diff, config_in_force, proposed_config};
pub use results::{NextPage, PageGuard, ResultsQuery, config_in_force_then, filter_time};
pub use updates::{CLOSE_CHOICE, VoteUpdates, vote_updates_in, vote_updates_loaded};
pub use weights::{WeightStep, weight_at, weight_history};

use serde::Serialize;
use serde_json::Value;

use crate::api::sanitize_line;
use crate::api::scan::{AmuletPriceVote, DsoSv, GovAction, VoteOutcome, VoteRequest, VoteResult};
use crate::model::amount::Amount;
use crate::model::format::{parse_time_micros, short_id};

/// Longest name an action's words show.
const NAME_MAX: usize = 60;

/// Longest party id an action's words show: a whole one (Canton's limit is 255 characters), so
/// a wide Detail shows it whole; narrower screens cut it where they draw it.
const PARTY_MAX: usize = 255;

/// The name of the SV whose party is `party`, else the party shortened; sanitised.
fn sv_label(party: &str, svs: &[DsoSv]) -> String {
    if party.is_empty() {
        return "?".to_owned();
    }
    match svs
        .iter()
        .find(|sv| sv.party == party && !sv.name.is_empty())
    {
        Some(sv) => sanitize_line(&sv.name, NAME_MAX),
        None => sanitize_line(party, PARTY_MAX),
    }
}

fn field<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value.get(key).filter(|v| !v.is_null())
}

fn field_text(value: &Value, key: &str) -> String {
    match field(value, key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// What `action` asks, in words: `update reward weight of Delta-SV 8000 → 9000`, `set DsoRules
/// config`, `grant featured app right to …`. SV parties read as names where the DSO lists them;
/// an action this client does not know reads as its tag (`SRARC_New (not known here)`).
pub fn action_words(action: &GovAction, svs: &[DsoSv]) -> String {
    words(action, svs, true)
}

/// [`action_words`] of a closed request: a weight change reads `to N`, since the weight in
/// force now is not the one it changed (it may be the very weight it set).
pub fn past_action_words(action: &GovAction, svs: &[DsoSv]) -> String {
    words(action, svs, false)
}

fn words(action: &GovAction, svs: &[DsoSv], open: bool) -> String {
    let v = &action.value;
    let party = |key: &str| sv_label(&field_text(v, key), svs);
    match action.name.as_str() {
        "SRARC_UpdateSvRewardWeight" => {
            let sv_party = field_text(v, "svParty");
            let new = field_text(v, "newRewardWeight");
            let old = svs
                .iter()
                .find(|sv| open && sv.party == sv_party)
                .and_then(|sv| sv.reward_weight);
            match old {
                Some(old) => format!(
                    "update reward weight of {} {old} → {}",
                    party("svParty"),
                    sanitize_line(&new, 20)
                ),
                None => format!(
                    "update reward weight of {} to {}",
                    party("svParty"),
                    sanitize_line(&new, 20)
                ),
            }
        }
        "SRARC_SetConfig" => "set DsoRules config".to_owned(),
        "CRARC_SetConfig" => "set AmuletRules config".to_owned(),
        "SRARC_OffboardSv" => format!("offboard SV {}", party("sv")),
        "SRARC_AddSv" => format!(
            "add SV {}",
            sanitize_line(&field_text(v, "newSvName"), NAME_MAX)
        ),
        "SRARC_GrantFeaturedAppRight" => {
            format!("grant featured app right to {}", party("provider"))
        }
        "SRARC_RevokeFeaturedAppRight" => format!(
            "revoke featured app right {}",
            short_id(&sanitize_line(&field_text(v, "rightCid"), NAME_MAX), 12)
        ),
        "SRARC_CreateUnallocatedUnclaimedActivityRecord" => {
            let who = party("beneficiary");
            let amount = sanitize_line(&field_text(v, "amount"), 30);
            format!("create unclaimed activity record for {who} {amount}")
        }
        "CRARC_AddFutureAmuletConfigSchedule" => "add a future AmuletRules config".to_owned(),
        "CRARC_RemoveFutureAmuletConfigSchedule" => "remove a future AmuletRules config".to_owned(),
        "CRARC_UpdateFutureAmuletConfigSchedule" => "update a future AmuletRules config".to_owned(),
        "" => "(no action)".to_owned(),
        other => format!("{} (not known here)", sanitize_line(other, NAME_MAX)),
    }
}

/// A request's votes against the voting threshold, counting the SVs of the DSO only (votes of
/// offboarded SVs stay in `votes` but do not count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// `voting_threshold` of `/v0/dso`.
    pub threshold: Option<i64>,
    /// SVs of the DSO.
    pub svs: usize,
    pub accept: usize,
    pub reject: usize,
    pub not_yet: usize,
}

impl Tally {
    /// Counts `request`'s votes by the current `svs`. The requester's accept is counted even
    /// when the scan's `votes` lacks it (Splice adds it when the request is made).
    pub fn of(request: &VoteRequest, svs: &[DsoSv], threshold: Option<i64>) -> Tally {
        let mut tally = Tally {
            threshold,
            svs: svs.len(),
            accept: 0,
            reject: 0,
            not_yet: 0,
        };
        for sv in svs {
            let vote = request
                .votes
                .iter()
                .find(|v| v.voter == sv.name || (!v.sv.is_empty() && v.sv == sv.party));
            match vote {
                Some(v) if v.accept => tally.accept += 1,
                Some(_) => tally.reject += 1,
                None if sv.name == request.requester => tally.accept += 1,
                None => tally.not_yet += 1,
            }
        }
        tally
    }

    /// `5 of 7 needed · 4 accept · 1 reject · 2 not yet`.
    pub fn words(&self) -> String {
        let needed = match self.threshold {
            Some(t) => format!("{t} of {} needed", self.svs),
            None => format!("? of {} needed", self.svs),
        };
        format!(
            "{needed} · {} accept · {} reject · {} not yet",
            self.accept, self.reject, self.not_yet
        )
    }

    /// Whether the accepts reach the threshold.
    pub fn passes(&self) -> bool {
        self.threshold
            .is_some_and(|t| i64::try_from(self.accept).is_ok_and(|a| a >= t))
    }
}

/// My SV's vote on an open request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MyVote {
    /// My SV has not voted: a vote is needed.
    Needed,
    Accepted,
    Rejected,
}

impl MyVote {
    /// My SV's vote on `request`: by its name (the votes' key), or by its party (the vote's
    /// `sv`). The requester has accepted.
    pub fn of(request: &VoteRequest, name: Option<&str>, party: Option<&str>) -> MyVote {
        let vote = request.votes.iter().find(|v| {
            name.is_some_and(|n| v.voter == n)
                || party.is_some_and(|p| !v.sv.is_empty() && v.sv == p)
        });
        match vote {
            Some(v) if v.accept => MyVote::Accepted,
            Some(_) => MyVote::Rejected,
            None if name.is_some_and(|n| n == request.requester) => MyVote::Accepted,
            None => MyVote::Needed,
        }
    }

    /// `needed`, `accepted`, `rejected`.
    pub fn word(self) -> &'static str {
        match self {
            MyVote::Needed => "needed",
            MyVote::Accepted => "accepted",
            MyVote::Rejected => "rejected",
        }
    }
}

/// How a closed request ended, as the results list and the `--outcome` filter tell them apart
/// (the server filters only `accepted: true|false`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Accepted,
    Rejected,
    Expired,
    /// Accepted, but executing the action failed (legacy `VRO_AcceptedButActionFailed`).
    AcceptedButFailed,
    /// A tag this client does not know.
    Other,
}

impl Outcome {
    pub fn of(outcome: &VoteOutcome) -> Outcome {
        match outcome {
            VoteOutcome::Accepted { .. } => Outcome::Accepted,
            VoteOutcome::Rejected => Outcome::Rejected,
            VoteOutcome::Expired => Outcome::Expired,
            VoteOutcome::AcceptedButActionFailed { .. } => Outcome::AcceptedButFailed,
            VoteOutcome::Unknown { .. } => Outcome::Other,
        }
    }

    /// The word the CLI and the pane use.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Accepted => "accepted",
            Outcome::Rejected => "rejected",
            Outcome::Expired => "expired",
            Outcome::AcceptedButFailed => "accepted but failed",
            Outcome::Other => "other",
        }
    }

    /// Parses an `--outcome` value.
    pub fn parse(word: &str) -> Option<Outcome> {
        match word.trim().to_ascii_lowercase().as_str() {
            "accepted" => Some(Outcome::Accepted),
            "rejected" => Some(Outcome::Rejected),
            "expired" => Some(Outcome::Expired),
            "failed" | "accepted-but-failed" => Some(Outcome::AcceptedButFailed),
            _ => None,
        }
    }

    /// What the server's `accepted` filter can narrow this outcome to.
    pub fn server_accepted(self) -> Option<bool> {
        match self {
            Outcome::Accepted => Some(true),
            Outcome::Rejected | Outcome::Expired | Outcome::AcceptedButFailed => Some(false),
            Outcome::Other => None,
        }
    }
}

/// One open request, as the headless `governance requests` prints it and the pane lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenRequest {
    /// `trackingCid ?? contract_id`.
    pub key: String,
    pub contract_id: String,
    pub tracking_cid: Option<String>,
    pub action_name: String,
    pub action: String,
    pub requester: String,
    pub reason_url: String,
    pub reason: String,
    pub vote_before: String,
    pub target_effective_at: Option<String>,
    pub tally: Tally,
    pub votes_words: String,
    /// `None` when my SV is unknown.
    pub my_vote: Option<MyVote>,
    /// The action as the scan sent it.
    pub action_json: Value,
}

impl OpenRequest {
    /// Summarises `request` for the SVs of the DSO, its threshold and my SV.
    pub fn of(
        request: &VoteRequest,
        svs: &[DsoSv],
        threshold: Option<i64>,
        me: Option<(Option<&str>, Option<&str>)>,
    ) -> OpenRequest {
        let tally = Tally::of(request, svs, threshold);
        OpenRequest {
            key: request.key().to_owned(),
            contract_id: request.contract_id.clone(),
            tracking_cid: request.tracking_cid.clone(),
            action_name: request.action.name.clone(),
            action: action_words(&request.action, svs),
            requester: request.requester.clone(),
            reason_url: request.reason.url.clone(),
            reason: request.reason.body.clone(),
            vote_before: request.vote_before.clone(),
            target_effective_at: request.target_effective_at.clone(),
            votes_words: tally.words(),
            tally,
            my_vote: me.map(|(name, party)| MyVote::of(request, name, party)),
            action_json: request.action.raw.clone(),
        }
    }

    /// When voting closes (µs): `voteBefore`.
    pub fn deadline(&self) -> Option<i64> {
        parse_time_micros(&self.vote_before)
    }
}

/// Open requests sorted by deadline (soonest first; unknown deadlines last), then by key.
pub fn sort_by_deadline(requests: &mut [OpenRequest]) {
    requests.sort_by(|a, b| {
        let da = a.deadline().unwrap_or(i64::MAX);
        let db = b.deadline().unwrap_or(i64::MAX);
        da.cmp(&db).then_with(|| a.key.cmp(&b.key))
    });
}

/// The requests that need my vote, voting closing within `within` µs of `now` when given.
pub fn needing_my_vote(
    requests: &[OpenRequest],
    now: i64,
    within: Option<i64>,
) -> Vec<&OpenRequest> {
    requests
        .iter()
        .filter(|r| r.my_vote == Some(MyVote::Needed))
        .filter(|r| match (within, r.deadline()) {
            (Some(w), Some(d)) => d - now <= w,
            _ => true,
        })
        .collect()
}

/// How close a voting deadline is: amber under a day, red under two hours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Urgency {
    Calm,
    /// Under [`AMBER_US`].
    Soon,
    /// Under [`RED_US`] (or past).
    Urgent,
}

/// A deadline closer than this is amber (24 h).
pub const AMBER_US: i64 = 24 * 3_600_000_000;
/// A deadline closer than this is red (2 h).
pub const RED_US: i64 = 2 * 3_600_000_000;

impl Urgency {
    /// The urgency of a deadline `left` µs away.
    pub fn of(left: i64) -> Urgency {
        if left < RED_US {
            Urgency::Urgent
        } else if left < AMBER_US {
            Urgency::Soon
        } else {
            Urgency::Calm
        }
    }
}

/// The open requests at a glance (the Status dashboard's governance card).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenSummary {
    pub open: usize,
    /// Requests my SV has not voted on; `None` when my SV is unknown.
    pub needs_my_vote: Option<usize>,
    /// The soonest deadline still ahead or just past: µs left, the request's action in words.
    pub next_deadline: Option<(i64, String)>,
    /// The soonest deadline of a request that needs my vote: µs left.
    pub my_next_deadline: Option<i64>,
}

impl OpenSummary {
    /// Summarises `requests` (already summarised for the DSO's SVs and my SV) at `now`;
    /// `me_known`: whether my SV is known (with nothing open, no request says).
    pub fn of(requests: &[OpenRequest], now: i64, me_known: bool) -> OpenSummary {
        let known = me_known || requests.iter().any(|r| r.my_vote.is_some());
        OpenSummary {
            open: requests.len(),
            needs_my_vote: known.then(|| {
                requests
                    .iter()
                    .filter(|r| r.my_vote == Some(MyVote::Needed))
                    .count()
            }),
            next_deadline: soonest(requests.iter(), now).map(|(left, r)| (left, r.action.clone())),
            my_next_deadline: soonest(
                requests
                    .iter()
                    .filter(|r| r.my_vote == Some(MyVote::Needed)),
                now,
            )
            .map(|(left, _)| left),
        }
    }
}

/// The request of `rows` closing soonest, with the µs left until then.
fn soonest<'a>(
    rows: impl Iterator<Item = &'a OpenRequest>,
    now: i64,
) -> Option<(i64, &'a OpenRequest)> {
    rows.filter_map(|r| r.deadline().map(|d| (d - now, r)))
        .min_by_key(|(left, _)| *left)
}

/// One closed request, as the headless `governance results` prints it (one JSON line).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClosedRequest {
    pub key: String,
    pub outcome: Outcome,
    pub action_name: String,
    pub action: String,
    pub requester: String,
    pub reason_url: String,
    pub reason: String,
    pub completed_at: String,
    /// `effectiveAt` when accepted, else `completedAt` (what the scan filters and orders by).
    pub effective_at: String,
    pub accept: usize,
    pub reject: usize,
    pub abstaining_svs: Vec<String>,
    pub offboarded_voters: Vec<String>,
    /// The failure's description of an accepted-but-failed result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// The result as the scan sent it.
    pub result: Value,
}

impl ClosedRequest {
    pub fn of(result: &VoteResult, svs: &[DsoSv]) -> ClosedRequest {
        let r = &result.request;
        let counted = |accept: bool| {
            r.votes
                .iter()
                .filter(|v| v.accept == accept && !result.offboarded_voters.contains(&v.voter))
                .count()
        };
        ClosedRequest {
            key: r.key().to_owned(),
            outcome: Outcome::of(&result.outcome),
            action_name: r.action.name.clone(),
            action: past_action_words(&r.action, svs),
            requester: r.requester.clone(),
            reason_url: r.reason.url.clone(),
            reason: r.reason.body.clone(),
            completed_at: result.completed_at.clone(),
            effective_at: result.effective_date().to_owned(),
            accept: counted(true),
            reject: counted(false),
            abstaining_svs: result.abstaining_svs.clone(),
            offboarded_voters: result.offboarded_voters.clone(),
            failure: match &result.outcome {
                VoteOutcome::AcceptedButActionFailed { description } => Some(description.clone()),
                _ => None,
            },
            result: result.raw.clone(),
        }
    }
}

/// The amulet price votes in numbers: how many SVs voted a price, the median, the spread
/// (highest − lowest), each exact to the vote's decimals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PriceStats {
    pub voted: usize,
    pub median: Option<String>,
    pub lowest: Option<String>,
    pub highest: Option<String>,
    pub spread: Option<String>,
}

/// The median (the mean of the middle two for an even count) and spread of the votes' prices;
/// votes without a price, or with one that is not a decimal, do not count.
pub fn price_stats(votes: &[AmuletPriceVote]) -> PriceStats {
    const SCALE: u32 = 10;
    let mut units: Vec<i128> = votes
        .iter()
        .filter_map(|v| v.amulet_price.as_deref())
        .filter_map(Amount::parse)
        .filter_map(|a| rescale(a, SCALE))
        .collect();
    units.sort_unstable();
    let show = |u: i128| Amount::from_units(u, SCALE).plain();
    let median = match units.len() {
        0 => None,
        n if n % 2 == 1 => Some(units[n / 2]),
        n => Some(i128::midpoint(units[n / 2 - 1], units[n / 2])),
    };
    PriceStats {
        voted: units.len(),
        median: median.map(show),
        lowest: units.first().copied().map(show),
        highest: units.last().copied().map(show),
        spread: units
            .first()
            .zip(units.last())
            .map(|(lo, hi)| show(hi - lo)),
    }
}

/// `a` in units of `10^-scale` (truncating finer digits).
fn rescale(a: Amount, scale: u32) -> Option<i128> {
    let s = a.scale();
    if s <= scale {
        a.units().checked_mul(10i128.checked_pow(scale - s)?)
    } else {
        Some(a.units() / 10i128.checked_pow(s - scale)?)
    }
}

#[cfg(test)]
mod tests;
