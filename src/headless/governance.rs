//! `cantonscope governance …`: the DSO's governance as the profile's scan serves it, as JSON on
//! stdout (diagnostics on stderr), with the exit codes of [`crate::cli::GOVERNANCE_EXIT_CODES`]:
//!
//! - `requests`: the open vote requests, soonest deadline first, with the votes against the
//!   threshold, my SV's vote, and what a config action changes (`config_diff`).
//! - `results`: every result (all pages) as JSON Lines, newest first; `--outcome` and
//!   `--requester` (an exact SV name) are applied here after the server's filters (it knows
//!   only accepted / not accepted, and matches requesters as substrings).
//! - `needs-vote`: the open requests my SV has not voted on (`--within`: closing that soon);
//!   exit 5 when there is one, 2 when my SV is unknown.
//! - `weights`: every SV's reward weight and its history from accepted weight changes,
//!   checked against `previous-sv-reward-weight`.
//!
//! Every server text goes out through [`json_text`], which escapes characters unsafe on a
//! terminal.

use std::io::Write;
use std::time::Duration;

use serde_json::{Value, json};

use super::{EXIT_OK, EXIT_SERVER, EXIT_USAGE, api_config, client_or_exit, say, write_text};
use crate::api::scan::GovAction;
use crate::api::scan::{
    self, DsoInfo, RewardWeightRequest, VoteResult, VoteResultsFilter, VoteResultsRequest,
};
use crate::api::{ApiClient, ApiError};
use crate::cli::{GovernanceCommand, OutcomeArg};
use crate::config::Settings;
use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::governance::{
    ClosedRequest, NextPage, OpenRequest, Outcome, PageGuard, ResultsQuery, action_diff,
    config_in_force, needing_my_vote, sort_by_deadline, weight_history,
};
use crate::model::json_text;
use crate::model::network::{MySv, resolve_my_sv};

/// Exit code of `needs-vote`: a request still needs my SV's vote.
pub const EXIT_NEEDS_VOTE: i32 = 5;

/// Most pages `results` reads (a server that never ends its pages is stopped).
const MAX_PAGES: usize = 100_000;

enum Failure {
    Api(ApiError),
    Usage(String),
    Server(String),
    Output(String),
}

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Self {
        Failure::Api(e)
    }
}

fn write_json(out: &mut dyn Write, value: &Value) -> Result<(), Failure> {
    let compact = serde_json::to_vec(value).map_err(|e| Failure::Output(e.to_string()))?;
    let pretty = json_text::pretty_bytes(&compact).map_err(|e| Failure::Output(e.to_string()))?;
    write_text(out, &pretty).map_err(Failure::Output)
}

fn write_json_line(out: &mut dyn Write, value: &Value) -> Result<(), Failure> {
    let compact = serde_json::to_string(value).map_err(|e| Failure::Output(e.to_string()))?;
    write_text(out, &json_text::escape_unsafe(&compact)).map_err(Failure::Output)
}

fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Runs one `governance` command; returns the exit code.
pub async fn run(
    command: &GovernanceCommand,
    settings: &Settings,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    if settings.scan_url.is_none() {
        say(err, &crate::headless::no_scan_configured(""));
        return EXIT_USAGE;
    }
    let client = match client_or_exit(api_config(settings), err, say) {
        Ok(client) => client.with_max_response_mib(settings.max_response_mib),
        Err(code) => return code,
    };
    let now = chrono::Utc::now().timestamp_micros();
    let result = match command {
        GovernanceCommand::Requests => requests(&client, settings, out).await,
        GovernanceCommand::Results {
            action,
            outcome,
            requester,
            from,
            until,
            page_size,
            limit,
        } => {
            let query = ResultsQuery {
                action: action.clone(),
                outcome: outcome.map(outcome_of),
                requester: requester.clone(),
                from: from.as_deref().map(utc),
                until: until.as_deref().map(utc),
            };
            results(&client, &query, i64::from(*page_size), *limit, out).await
        }
        GovernanceCommand::NeedsVote { within } => {
            needs_vote(&client, settings, *within, now, out).await
        }
        GovernanceCommand::Weights => weights(&client, settings, out).await,
    };
    match result {
        Ok(code) => code,
        Err(Failure::Api(error)) => {
            say(err, &error.to_string());
            error.exit_code()
        }
        Err(Failure::Usage(message)) => {
            say(err, &message);
            EXIT_USAGE
        }
        Err(Failure::Server(message)) => {
            say(err, &message);
            EXIT_SERVER
        }
        Err(Failure::Output(message)) => {
            say(err, &message);
            EXIT_USAGE
        }
    }
}

fn outcome_of(arg: OutcomeArg) -> Outcome {
    match arg {
        OutcomeArg::Accepted => Outcome::Accepted,
        OutcomeArg::Rejected => Outcome::Rejected,
        OutcomeArg::Expired => Outcome::Expired,
        OutcomeArg::Failed => Outcome::AcceptedButFailed,
    }
}

/// A time as RFC 3339 UTC (as the scan's date filters expect it).
fn utc(time: &str) -> String {
    parse_time_micros(time).map_or_else(|| time.to_owned(), format_time_micros)
}

/// My SV as JSON (`null` when unknown).
fn my_sv_json(me: Option<&MySv>) -> Value {
    me.map_or(
        Value::Null,
        |me| json!({"name": me.name, "party": me.party, "described": me.describe()}),
    )
}

/// The name and party of my SV, when known.
fn me_of(me: Option<&MySv>) -> Option<(Option<&str>, Option<&str>)> {
    me.map(|me| (me.name.as_deref(), me.party.as_deref()))
}

/// My SV and the open requests (as [`open_requests`]), or one line saying why they could not
/// be read (`check`).
pub(crate) async fn open_requests_of(
    client: &ApiClient,
    settings: &Settings,
) -> Result<(Option<MySv>, Vec<OpenRequest>), String> {
    match open_requests(client, settings).await {
        Ok((_, me, rows)) => Ok((me, rows)),
        Err(Failure::Api(e)) => Err(crate::headless::error_line(&e)),
        Err(Failure::Usage(m) | Failure::Server(m) | Failure::Output(m)) => Err(m),
    }
}

/// The open requests, summarised and sorted by deadline, with the DSO and my SV.
async fn open_requests(
    client: &ApiClient,
    settings: &Settings,
) -> Result<(DsoInfo, Option<MySv>, Vec<OpenRequest>), Failure> {
    let dso = client.send(&scan::dso()).await?;
    let me = resolve_my_sv(settings.sv.as_deref(), Some(&dso));
    let requests = client.send(&scan::vote_requests()).await?;
    let mut rows: Vec<OpenRequest> = requests
        .requests
        .iter()
        .map(|r| OpenRequest::of(r, &dso.svs, dso.voting_threshold, me_of(me.as_ref())))
        .collect();
    sort_by_deadline(&mut rows);
    Ok((dso, me, rows))
}

async fn requests(
    client: &ApiClient,
    settings: &Settings,
    out: &mut dyn Write,
) -> Result<i32, Failure> {
    let (dso, me, rows) = open_requests(client, settings).await?;
    // A config action's changes: against its baseConfig, else against the config in force.
    let rows: Vec<Value> = rows
        .iter()
        .map(|r| {
            let mut v = to_value(r);
            let action = GovAction::decode(&r.action_json);
            let in_force = config_in_force(&action, &dso);
            if let Some((base, lines)) = action_diff(&action, in_force.as_ref()) {
                v["config_diff"] = json!({"against": base, "changes": lines});
            }
            v
        })
        .collect();
    write_json(
        out,
        &json!({
            "my_sv": my_sv_json(me.as_ref()),
            "voting_threshold": dso.voting_threshold,
            "svs": dso.svs.len(),
            "requests": rows,
        }),
    )?;
    Ok(EXIT_OK)
}

async fn needs_vote(
    client: &ApiClient,
    settings: &Settings,
    within: Option<Duration>,
    now: i64,
    out: &mut dyn Write,
) -> Result<i32, Failure> {
    let (_, me, rows) = open_requests(client, settings).await?;
    let Some(me) = me.filter(|me| me.listed != Some(false)) else {
        return Err(Failure::Usage(
            "my SV is unknown: this scan's /v0/dso names no SV of the DSO, and no sv key of the \
             profile names one (set sv = \"<SV name or party>\" in the profile)"
                .to_owned(),
        ));
    };
    let within = within.map(|w| i64::try_from(w.as_micros()).unwrap_or(i64::MAX));
    let needed = needing_my_vote(&rows, now, within);
    write_json(
        out,
        &json!({
            "my_sv": my_sv_json(Some(&me)),
            "within_seconds": within.map(|w| w / 1_000_000),
            "needs_vote": needed.len(),
            "requests": to_value(&needed),
        }),
    )?;
    Ok(if needed.is_empty() {
        EXIT_OK
    } else {
        EXIT_NEEDS_VOTE
    })
}

/// Whether a walk over pages goes on after a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Walk {
    On,
    Stop,
}

/// Reads every page of results matching `filter` (`page_size` a page), handing each page to
/// `each` until it says stop. A page token seen before, or a page that repeats the previous one
/// (a scan that ignores the token), ends the walk as a server error ([`PageGuard`]).
async fn walk_results(
    client: &ApiClient,
    filter: &VoteResultsFilter,
    page_size: i64,
    mut each: impl FnMut(&[VoteResult]) -> Result<Walk, Failure>,
) -> Result<(), Failure> {
    let mut token = None;
    let mut guard = PageGuard::default();
    for _ in 0..MAX_PAGES {
        let page = client
            .send(&scan::vote_results(&VoteResultsRequest {
                filter: filter.clone(),
                limit: page_size,
                page_token: token,
            }))
            .await?;
        let (keep, next) = guard.next(&page.results, page.next_page_token);
        if keep && each(&page.results)? == Walk::Stop {
            return Ok(());
        }
        match next {
            NextPage::End => return Ok(()),
            NextPage::Repeated(why) => return Err(Failure::Server(why)),
            NextPage::After(next) => token = Some(next),
        }
    }
    Err(Failure::Server(format!(
        "more than {MAX_PAGES} pages of results; stopped"
    )))
}

async fn results(
    client: &ApiClient,
    query: &ResultsQuery,
    page_size: i64,
    limit: Option<u64>,
    out: &mut dyn Write,
) -> Result<i32, Failure> {
    let dso = client.send(&scan::dso()).await?;
    let mut left = limit.unwrap_or(u64::MAX);
    walk_results(client, &query.server_filter(), page_size, |page| {
        for result in page {
            let row = ClosedRequest::of(result, &dso.svs);
            if !query.keeps(&row) {
                continue;
            }
            if left == 0 {
                return Ok(Walk::Stop);
            }
            left -= 1;
            let mut line = to_value(&row);
            // A past config action's changes, when it carries its baseConfig (the config in
            // force then is not known here).
            if let Some((base, lines)) = action_diff(&result.request.action, None) {
                line["config_diff"] = json!({"against": base, "changes": lines});
            }
            write_json_line(out, &line)?;
        }
        Ok(if left == 0 { Walk::Stop } else { Walk::On })
    })
    .await?;
    Ok(EXIT_OK)
}

async fn weights(
    client: &ApiClient,
    settings: &Settings,
    out: &mut dyn Write,
) -> Result<i32, Failure> {
    let dso = client.send(&scan::dso()).await?;
    let me = resolve_my_sv(settings.sv.as_deref(), Some(&dso));
    let filter = VoteResultsFilter {
        action_name: Some("SRARC_UpdateSvRewardWeight".to_owned()),
        accepted: Some(true),
        ..VoteResultsFilter::default()
    };
    let mut all = Vec::new();
    walk_results(client, &filter, 100, |page| {
        all.extend_from_slice(page);
        Ok(Walk::On)
    })
    .await?;
    let mut svs = Vec::new();
    for sv in &dso.svs {
        let steps = weight_history(&all, &sv.party);
        let previous = client
            .send(&scan::previous_sv_reward_weight(&RewardWeightRequest {
                sv_party: sv.party.clone(),
                effective_before: None,
            }))
            .await?;
        let newest = steps.last().map(|s| s.weight.to_string());
        svs.push(json!({
            "name": sv.name,
            "party": sv.party,
            "my_sv": me.as_ref().is_some_and(|m| m.party.as_deref() == Some(sv.party.as_str())),
            "reward_weight": sv.reward_weight,
            "known_since": steps.first().map(|s| s.effective_at.clone()),
            "history": to_value(&steps),
            "previous_sv_reward_weight": previous.reward_weight,
            "history_agrees": previous.reward_weight == newest,
        }));
    }
    write_json(
        out,
        &json!({
            "my_sv": my_sv_json(me.as_ref()),
            "note": "a weight before its SV's first accepted change is unknown",
            "svs": svs,
        }),
    )?;
    Ok(EXIT_OK)
}
