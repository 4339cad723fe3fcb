//! The Detail of a past result (Enter in Results): how it ended and when, the action in full,
//! the reason, the config change against its `baseConfig` or else the config in force then
//! (the newest accepted change of the same config before it, when the loaded results have
//! one), every SV's vote with its reason, link and cast time, the abstaining and offboarded
//! SVs, the tracking id, and the request's update when the loaded history has it (the detail
//! says so when it does not).

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::detail::{NOT_LOADED_TEXT, diff_lines, row, time, update_of_contracts, vote_lines};
use super::results::outcome_style;
use crate::api::scan::{DsoInfo, VoteOutcome, VoteResult};
use crate::model::governance::{ClosedRequest, config_in_force_then};
use crate::panes::Shared;
use crate::ui::safe::safe_line;
use crate::ui::theme::Theme;

/// Longest server text a detail line shows.
const MAX: usize = 400;

/// The update of a past request (its creation, by the tracking id), when the loaded history
/// has it.
pub fn result_update(result: &VoteResult, sh: &Shared) -> Option<String> {
    update_of_contracts(
        [
            result.request.tracking_cid.as_deref(),
            Some(result.request.contract_id.as_str()),
        ]
        .into_iter()
        .flatten(),
        sh,
    )
}

/// Every line of the detail of the past result `result` (`row`: it summarised; `all`: every
/// result read, for the config in force then).
pub fn result_lines(
    result: &VoteResult,
    row_: &ClosedRequest,
    all: &[VoteResult],
    dso: Option<&DsoInfo>,
    sh: &Shared,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{:<13}", "Outcome"), theme.muted),
        Span::styled(row_.outcome.word(), outcome_style(row_.outcome, theme)),
    ])];
    match &result.outcome {
        VoteOutcome::Accepted { effective_at } => {
            lines.push(row(
                "Effective at",
                time(effective_at, sh),
                theme.time,
                theme,
            ));
        }
        VoteOutcome::AcceptedButActionFailed { description } => lines.push(row(
            "Failure",
            safe_line(description, MAX).into_owned(),
            theme.status_warn,
            theme,
        )),
        VoteOutcome::Unknown { tag, .. } => lines.push(row(
            "",
            format!("{} (not known here)", safe_line(tag, 60)),
            theme.muted,
            theme,
        )),
        VoteOutcome::Rejected | VoteOutcome::Expired => {}
    }
    lines.push(row(
        "Completed at",
        time(&result.completed_at, sh),
        theme.time,
        theme,
    ));
    lines.push(row(
        "Action",
        safe_line(&row_.action, MAX).into_owned(),
        theme.title,
        theme,
    ));
    lines.push(row(
        "",
        safe_line(&row_.action_name, MAX).into_owned(),
        theme.muted,
        theme,
    ));
    lines.push(row(
        "Requester",
        safe_line(&row_.requester, MAX).into_owned(),
        theme.party,
        theme,
    ));
    let r = &result.request;
    if !r.reason.url.is_empty() {
        lines.push(row(
            "Reason URL",
            safe_line(&r.reason.url, MAX).into_owned(),
            theme.accent,
            theme,
        ));
    }
    if !r.reason.body.is_empty() {
        lines.push(row(
            "Reason",
            safe_line(&r.reason.body, MAX).into_owned(),
            Style::default(),
            theme,
        ));
    }
    if !r.vote_before.is_empty() {
        lines.push(row(
            "Vote before",
            time(&r.vote_before, sh),
            theme.time,
            theme,
        ));
    }
    if let Some(at) = r.target_effective_at.as_deref() {
        lines.push(row("Target", time(at, sh), theme.time, theme));
    }
    lines.push(row(
        "Votes",
        format!(
            "{} accept · {} reject (SVs at the time)",
            row_.accept, row_.reject
        ),
        Style::default(),
        theme,
    ));
    let names = |list: &[String]| -> String {
        if list.is_empty() {
            "none".to_owned()
        } else {
            list.iter()
                .map(|n| safe_line(n, 60).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    lines.push(row(
        "Abstaining",
        names(&result.abstaining_svs),
        theme.muted,
        theme,
    ));
    lines.push(row(
        "Offboarded",
        names(&result.offboarded_voters),
        theme.muted,
        theme,
    ));
    match result_update(result, sh) {
        Some(id) => lines.push(Line::from(vec![
            Span::styled(format!("{:<13}", "Update"), theme.muted),
            Span::styled(id, theme.id),
            Span::styled(" (the request's creation; Enter opens it)", theme.muted),
        ])),
        None => lines.push(row("Update", NOT_LOADED_TEXT, theme.muted, theme)),
    }
    if let Some(t) = r.tracking_cid.as_deref().filter(|t| !t.is_empty()) {
        lines.push(row(
            "Tracking id",
            safe_line(t, MAX).into_owned(),
            theme.id,
            theme,
        ));
    }
    if !r.contract_id.is_empty() {
        lines.push(row(
            "Contract id",
            safe_line(&r.contract_id, MAX).into_owned(),
            theme.id,
            theme,
        ));
    }
    let then = config_in_force_then(result, all);
    diff_lines(
        r,
        then.as_ref(),
        "against the config in force then (the change accepted before it)",
        "no baseConfig, and the config in force then is not among the results read",
        theme,
        &mut lines,
    );
    vote_lines(
        r,
        dso,
        &result.offboarded_voters,
        Some(&result.abstaining_svs),
        sh,
        theme,
        &mut lines,
    );
    lines
}
