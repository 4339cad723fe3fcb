//! The Detail section: one open request in full, as lines scrolled with the arrows.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::lookup::UpdateLookup;
use super::{GovernancePane, NO_DETAIL_TEXT, deadline_words, my_vote_style, row, urgency_style};
use crate::api::scan::{DsoInfo, VoteRequest};
use crate::model::format::parse_time_micros;
use crate::model::governance::{DiffBase, OpenRequest, action_diff, config_in_force};
use crate::panes::{RenderCtx, Shared};
use crate::ui::form::paragraph;
use crate::ui::safe::safe_line;
use crate::ui::theme::Theme;

/// Longest server text a detail line shows.
const MAX: usize = 400;

/// A server time as the session shows times, with the zone.
pub(super) fn time(raw: &str, sh: &Shared) -> String {
    parse_time_micros(raw).map_or_else(
        || safe_line(raw, 40).into_owned(),
        |t| format!("{} {}", sh.format_time(t), sh.zone_label()),
    )
}

/// The request's action in words and by name, its requester and its reason (URL and text).
pub(super) struct Head<'a> {
    pub action: &'a str,
    pub action_name: &'a str,
    pub requester: &'a str,
    pub reason_url: &'a str,
    pub reason: &'a str,
}

impl Head<'_> {
    /// Its lines (a reason's URL and text when there are).
    pub(super) fn lines(&self, theme: &Theme, lines: &mut Vec<Line<'static>>) {
        let text = |s: &str| safe_line(s, MAX).into_owned();
        lines.push(row("Action", text(self.action), theme.title, theme));
        lines.push(row("", text(self.action_name), theme.muted, theme));
        lines.push(row("Requester", text(self.requester), theme.party, theme));
        if !self.reason_url.is_empty() {
            lines.push(row(
                "Reason URL",
                text(self.reason_url),
                theme.accent,
                theme,
            ));
        }
        if !self.reason.is_empty() {
            lines.push(row("Reason", text(self.reason), Style::default(), theme));
        }
    }
}

/// The request's tracking id and contract id (each when known).
pub(super) fn id_lines(
    tracking: Option<&str>,
    contract_id: &str,
    theme: &Theme,
    lines: &mut Vec<Line<'static>>,
) {
    let ids = [
        ("Tracking id", tracking.unwrap_or_default()),
        ("Contract id", contract_id),
    ];
    for (label, id) in ids {
        if !id.is_empty() {
            lines.push(row(label, safe_line(id, MAX).into_owned(), theme.id, theme));
        }
    }
}

/// What a Detail (of an open request or of a past result) is drawn with: `lookup` where its
/// updates are, the DSO's info when read, on a screen `width` columns wide.
#[derive(Clone, Copy)]
pub struct DetailView<'a> {
    pub lookup: &'a UpdateLookup,
    pub dso: Option<&'a DsoInfo>,
    pub width: u16,
    pub sh: &'a Shared,
    pub theme: &'a Theme,
}

/// Every line of the detail of `r` (`request` is the request as the scan sent it) as `view`
/// draws it.
pub fn detail_lines(
    r: &OpenRequest,
    request: Option<&VoteRequest>,
    view: DetailView<'_>,
) -> Vec<Line<'static>> {
    let DetailView { sh, theme, .. } = view;
    let mut lines = Vec::new();
    Head {
        action: &r.action,
        action_name: &r.action_name,
        requester: &r.requester,
        reason_url: &r.reason_url,
        reason: &r.reason,
    }
    .lines(theme, &mut lines);
    let mut before = vec![
        Span::styled(format!("{:<13}", "Vote before"), theme.muted),
        Span::styled(time(&r.vote_before, sh), theme.time),
    ];
    if let Some(at) = r.deadline() {
        before.push(Span::styled(" · ", theme.muted));
        before.push(Span::styled(
            deadline_words(at - sh.now),
            urgency_style(at - sh.now, theme),
        ));
    }
    lines.push(Line::from(before));
    if let Some(at) = r.target_effective_at.as_deref() {
        lines.push(row("Effective at", time(at, sh), theme.time, theme));
    }
    lines.push(row(
        "Votes",
        r.votes_words.clone(),
        if r.tally.passes() {
            theme.status_ok
        } else {
            Style::default()
        },
        theme,
    ));
    match (r.my_vote, sh.health.dso.my_sv()) {
        (Some(v), Some(me)) => {
            let who = me
                .name
                .as_deref()
                .or(me.party.as_deref())
                .unwrap_or("my SV");
            lines.push(Line::from(vec![
                Span::styled(format!("{:<13}", "My vote"), theme.muted),
                Span::styled(v.word(), my_vote_style(v, theme)),
                Span::styled(format!(" ({})", safe_line(who, 60)), theme.muted),
            ]));
        }
        _ => lines.push(row("My vote", "my SV unknown", theme.muted, theme)),
    }
    lines.extend(view.lookup.lines(sh, theme));
    id_lines(r.tracking_cid.as_deref(), &r.contract_id, theme, &mut lines);
    if let Some(request) = request {
        let in_force = view.dso.and_then(|d| config_in_force(&request.action, d));
        diff_lines(
            request,
            in_force.as_ref(),
            "against the config in force",
            "neither a baseConfig nor the config in force is known",
            theme,
            &mut lines,
        );
        vote_lines(
            request,
            view.dso,
            &[],
            None,
            view.width,
            sh,
            theme,
            &mut lines,
        );
    }
    lines
}

/// A config action's changes, coloured: the old value red, the new green; against its
/// `baseConfig`, else against `in_force` (`in_force_words` says which config that is,
/// `unknown_words` what is missing when neither is known).
pub(super) fn diff_lines(
    request: &VoteRequest,
    in_force: Option<&serde_json::Value>,
    in_force_words: &str,
    unknown_words: &str,
    theme: &Theme,
    lines: &mut Vec<Line<'static>>,
) {
    if !request.action.name.ends_with("_SetConfig") {
        return;
    }
    lines.push(Line::default());
    let Some((base, diff)) = action_diff(&request.action, in_force) else {
        lines.push(Line::styled(
            format!("Config change: {unknown_words}"),
            theme.muted,
        ));
        return;
    };
    let against = match base {
        DiffBase::BaseConfig => "against its baseConfig",
        DiffBase::InForce => in_force_words,
    };
    lines.push(Line::from(vec![
        Span::styled("Config change", theme.title),
        Span::styled(
            format!(" · {} · {against}", plural(diff.len(), "value")),
            theme.muted,
        ),
    ]));
    if diff.is_empty() {
        lines.push(Line::styled("  no value changes", theme.muted));
    }
    for d in diff {
        let mut spans = vec![Span::styled(
            format!("  {}: ", safe_line(&d.path, MAX)),
            theme.json_key,
        )];
        spans.push(match &d.old {
            Some(old) => Span::styled(safe_line(old, MAX).into_owned(), theme.rejected),
            None => Span::styled("(absent)", theme.muted),
        });
        spans.push(Span::styled(" → ", theme.muted));
        spans.push(match &d.new {
            Some(new) => Span::styled(safe_line(new, MAX).into_owned(), theme.accepted),
            None => Span::styled("(removed)", theme.muted),
        });
        lines.push(Line::from(spans));
    }
}

/// `1 value`, `3 values`.
pub(super) fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// Longest name an SV name column reads.
const MAX_NAME: usize = 200;

/// The width of a column of SV names: as wide as the longest of `names` (as shown: sanitised),
/// at least `least` (the column's usual width), and at most what a `width` columns wide screen
/// leaves after `rest` columns of the line's other parts: a name is cut only when the screen
/// cannot hold it.
pub(super) fn name_column<'a>(
    names: impl Iterator<Item = &'a str>,
    least: usize,
    width: u16,
    rest: usize,
) -> usize {
    use unicode_width::UnicodeWidthStr;
    let longest = names
        .map(|n| safe_line(n, MAX_NAME).width())
        .max()
        .unwrap_or(0);
    let room = usize::from(width).saturating_sub(rest);
    longest.max(least).min(room.max(least))
}

/// `name` in a column `w` wide (cut with `…` when longer), then a space.
pub(super) fn padded_name(name: &str, w: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    let shown = safe_line(name, w);
    let pad = w.saturating_sub(shown.width());
    format!("{shown}{} ", " ".repeat(pad))
}

/// Every SV of the DSO with its vote (or `not yet`), then votes of SVs no longer in the DSO
/// (not counted; `offboarded`: the result's offboarded voters, said so); my SV marked ★.
/// The names' column is as wide as the longest name (see [`name_column`]) on a `width`
/// columns wide screen.
#[allow(clippy::too_many_arguments)]
pub(super) fn vote_lines(
    request: &VoteRequest,
    dso: Option<&DsoInfo>,
    offboarded: &[String],
    abstaining: Option<&[String]>,
    width: u16,
    sh: &Shared,
    theme: &Theme,
    lines: &mut Vec<Line<'static>>,
) {
    lines.push(Line::default());
    lines.push(Line::from(vec![
        Span::styled("Votes", theme.title),
        Span::styled(
            format!(
                " · {} cast · SV, vote, cast at, reason",
                request.votes.len()
            ),
            theme.muted,
        ),
    ]));
    let svs = dso.map_or(&[][..], |d| d.svs.as_slice());
    let mut names: Vec<(&str, bool)> = svs.iter().map(|s| (s.name.as_str(), true)).collect();
    for v in &request.votes {
        if !svs.iter().any(|s| s.name == v.voter) {
            names.push((v.voter.as_str(), false));
        }
    }
    // The mark, the name and a space, then at least the vote's word (`abstained`).
    let name_w = name_column(names.iter().map(|(n, _)| *n), 16, width, 2 + 1 + 9);
    for (name, current) in names {
        let mine = sh.health.dso.is_mine(name);
        let mut spans = vec![
            Span::styled(if mine { "★ " } else { "  " }, theme.accent),
            Span::styled(padded_name(name, name_w), theme.party),
        ];
        match request.vote_of(name) {
            Some(v) => {
                let (word, style) = if v.accept {
                    ("accept ", theme.status_ok)
                } else {
                    ("reject ", theme.status_err)
                };
                spans.push(Span::styled(word, style));
                let cast = v
                    .cast_at
                    .as_deref()
                    .map_or_else(|| "-".to_string(), |c| time(c, sh));
                spans.push(Span::styled(format!("{cast} "), theme.time));
                if !v.reason.url.is_empty() {
                    spans.push(Span::styled(
                        format!("{} ", safe_line(&v.reason.url, MAX)),
                        theme.accent,
                    ));
                }
                spans.push(Span::raw(safe_line(&v.reason.body, MAX).into_owned()));
            }
            None => spans.push(Span::styled(
                match abstaining {
                    None => "not yet",
                    Some(list) if list.iter().any(|a| a == name) => "abstained",
                    Some(_) => "no vote",
                },
                theme.muted,
            )),
        }
        if offboarded.iter().any(|o| o == name) {
            spans.push(Span::styled(
                " (offboarded: not counted)",
                theme.status_warn,
            ));
        } else if !current {
            spans.push(Span::styled(
                " (no longer an SV: not counted)",
                theme.status_warn,
            ));
        }
        lines.push(Line::from(spans));
    }
}

impl GovernancePane {
    /// The raw request shown in Detail, as the scan sent it.
    pub(super) fn chosen_request(&self) -> Option<&VoteRequest> {
        let key = self.chosen.as_deref()?;
        let requests = self.watch.requests.as_ref()?;
        requests.requests.iter().find(|r| r.key() == key)
    }

    pub(super) fn render_detail(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let theme = cx.theme;
        let lines = self.detail_lines(cx.sh, theme, area.width);
        if lines.is_empty() {
            let text = match self.detail_of() {
                super::DetailOf::Result => {
                    "No result chosen: select one in Results and press Enter."
                }
                super::DetailOf::Open if self.chosen.is_some() => {
                    "The request is no longer open (its vote closed): see Open."
                }
                super::DetailOf::Open => NO_DETAIL_TEXT,
            };
            paragraph(area, buf, text, theme.muted);
            return;
        }
        let height = usize::from(area.height);
        let first = self.scroll.min(lines.len().saturating_sub(height));
        for (i, line) in lines.iter().skip(first).take(height).enumerate() {
            let y = area.y + u16::try_from(i).unwrap_or(u16::MAX);
            buf.set_line(area.x, y, line, area.width);
        }
    }
}
