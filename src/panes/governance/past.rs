//! The Detail of a past result (Enter in Results): how it ended and when, the action in full,
//! the reason, the config change against its `baseConfig` or else the config in force then
//! (the newest accepted change of the same config before it, when the loaded results have
//! one), every SV's vote with its reason, link and cast time, the abstaining and offboarded
//! SVs, the tracking id, and the request's update when the loaded history has it (the detail
//! says so when it does not).

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::detail::{DetailView, Head, diff_lines, id_lines, time, vote_lines};
use super::results::outcome_style;
use super::row;
use crate::api::scan::{VoteOutcome, VoteResult};
use crate::model::governance::{ClosedRequest, config_in_force_then};
use crate::ui::safe::safe_line;

/// Longest server text a detail line shows.
const MAX: usize = 400;

/// Every line of the detail of the past result `result` (`row`: it summarised; `all`: every
/// result read, for the config in force then) as `view` draws it.
pub fn result_lines(
    result: &VoteResult,
    row_: &ClosedRequest,
    all: &[VoteResult],
    view: DetailView<'_>,
) -> Vec<Line<'static>> {
    let DetailView { sh, theme, .. } = view;
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
    let r = &result.request;
    Head {
        action: &row_.action,
        action_name: &row_.action_name,
        requester: &row_.requester,
        reason_url: &r.reason.url,
        reason: &r.reason.body,
    }
    .lines(theme, &mut lines);
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
    lines.extend(view.lookup.lines(sh, theme));
    id_lines(r.tracking_cid.as_deref(), &r.contract_id, theme, &mut lines);
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
        view.dso,
        &result.offboarded_voters,
        Some(&result.abstaining_svs),
        view.width,
        sh,
        theme,
        &mut lines,
    );
    lines
}
