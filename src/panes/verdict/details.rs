//! The details of the selected view (hash, informees, confirming-party quorums, the traffic
//! envelopes that carry it), each list cut to its share of the height, and the app activity
//! records of the update.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Widget};

use crate::model::verdict::ViewTree;
use crate::ui::format::group_thousands;
use crate::ui::safe::safe_line;
use crate::ui::theme::Theme;
use crate::ui::tree::NodeId;

use super::{VerdictPane, compact_party, draw_lines, plural};

impl VerdictPane {
    pub(super) fn render_details(
        &self,
        area: Rect,
        buf: &mut Buffer,
        theme: &Theme,
        tree: &ViewTree,
        node: Option<NodeId>,
    ) {
        let title = match node.and_then(|n| tree.view_id(n)) {
            Some(vid) => format!(" view {vid} "),
            None => " view ".to_string(),
        };
        let block = Block::bordered()
            .border_style(theme.border)
            .title(Span::styled(title, theme.title));
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let height = usize::from(inner.height);
        let mut lines: Vec<Line> = Vec::with_capacity(height);
        let Some(node) = node else {
            lines.push(Line::styled("this verdict lists no views", theme.muted));
            draw_lines(inner, buf, lines);
            return;
        };
        let Some(view) = tree.view(node) else {
            lines.push(Line::styled(
                "this view id is referenced but not listed in the verdict's views",
                theme.status_err,
            ));
            draw_lines(inner, buf, lines);
            return;
        };
        lines.push(Line::from(vec![
            Span::styled("hash ", theme.muted),
            if view.view_hash.is_empty() {
                Span::styled("- (older data)", theme.muted)
            } else {
                Span::styled(view.view_hash.as_str(), theme.id)
            },
        ]));
        // Budget the rest: quorums and envelopes first get what they need (up to a share),
        // informees fill the remainder.
        let quorum_lines = view.confirming_parties.len().max(1);
        let env_lines = tree.envelopes(node).len().max(1);
        let fixed = 1 + 1 + 1 + 1; // hash, informees title, quorums title, traffic title
        let avail = height.saturating_sub(fixed);
        let q_budget = quorum_lines.min(avail / 3).max(1);
        let e_budget = env_lines.min(avail / 4).max(1);
        let i_budget = avail.saturating_sub(q_budget + e_budget).max(1);

        lines.push(Line::styled(
            format!("informees ({})", view.informees.len()),
            theme.table_header,
        ));
        push_limited(
            &mut lines,
            view.informees
                .iter()
                .map(|p| Line::from(vec![Span::raw("  "), Span::styled(p.as_str(), theme.party)])),
            view.informees.len(),
            i_budget,
            theme,
        );
        lines.push(Line::styled(
            format!(
                "confirming parties ({} quorum{})",
                view.confirming_parties.len(),
                plural(view.confirming_parties.len())
            ),
            theme.table_header,
        ));
        if view.confirming_parties.is_empty() {
            lines.push(Line::styled("  none", theme.muted));
        } else {
            push_limited(
                &mut lines,
                view.confirming_parties.iter().map(|q| {
                    // Enough parties to fill a line; the count says how many there are.
                    let parties: Vec<String> = q
                        .parties
                        .iter()
                        .take(16)
                        .map(|p| compact_party(p))
                        .collect();
                    let more = q.parties.len().saturating_sub(parties.len());
                    let mut text = parties.join(", ");
                    if more > 0 {
                        text.push_str(&format!(" +{more}"));
                    }
                    Line::from(vec![
                        Span::styled(
                            format!("  {} of {}: ", q.threshold, q.parties.len()),
                            theme.accent,
                        ),
                        Span::styled(text, theme.party),
                    ])
                }),
                view.confirming_parties.len(),
                q_budget,
                theme,
            );
        }
        lines.push(Line::styled("traffic", theme.table_header));
        match tree.traffic_summary() {
            None => lines.push(Line::styled("  no traffic summary", theme.muted)),
            Some(traffic) => {
                let envs = tree.envelopes(node);
                if envs.is_empty() {
                    lines.push(Line::styled("  in no envelope", theme.muted));
                } else {
                    push_limited(
                        &mut lines,
                        envs.iter().filter_map(|&e| {
                            let env = traffic.envelope_traffic_summaries.get(e)?;
                            let views: Vec<String> =
                                env.view_ids.iter().map(i32::to_string).collect();
                            Some(Line::from(vec![
                                Span::styled(format!("  envelope #{e} "), theme.muted),
                                Span::styled(group_thousands(env.traffic_cost), theme.accent),
                                Span::styled(
                                    format!("  carries views {}", views.join(", ")),
                                    theme.muted,
                                ),
                            ]))
                        }),
                        envs.len(),
                        e_budget,
                        theme,
                    );
                }
            }
        }
        lines.truncate(height);
        draw_lines(inner, buf, lines);
    }

    pub(super) fn render_activity(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let Some(records) = self
            .body
            .as_ref()
            .and_then(|b| b.app_activity_records.as_ref())
        else {
            return;
        };
        let block = Block::bordered()
            .border_style(theme.border)
            .title(Span::styled(
                format!(" app activity · round {} ", records.round_number),
                theme.title,
            ));
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let w = usize::from(inner.width);
        let weight_w = 12.min(w / 2);
        let party_w = w.saturating_sub(weight_w + 1);
        let mut lines = Vec::with_capacity(usize::from(inner.height));
        if records.records.is_empty() {
            lines.push(Line::styled("no activity records", theme.muted));
        } else {
            lines.push(Line::styled(
                format!("{:<party_w$} {:>weight_w$}", "party", "weight"),
                theme.table_header,
            ));
            let rows = usize::from(inner.height) - 1;
            let shown = if records.records.len() > rows {
                rows.saturating_sub(1)
            } else {
                rows
            };
            for r in records.records.iter().take(shown) {
                let party = safe_line(&r.party, party_w);
                let pad =
                    party_w.saturating_sub(unicode_width::UnicodeWidthStr::width(party.as_ref()));
                lines.push(Line::from(vec![
                    Span::styled(party.into_owned(), theme.party),
                    Span::raw(" ".repeat(pad + 1)),
                    Span::styled(
                        format!("{:>weight_w$}", group_thousands(r.weight)),
                        theme.accent,
                    ),
                ]));
            }
            if records.records.len() > shown {
                lines.push(Line::styled(
                    format!("… {} more", records.records.len() - shown),
                    theme.muted,
                ));
            }
        }
        draw_lines(inner, buf, lines);
    }
}

/// Pushes at most `budget` lines of `items` (`total` of them), ending with `… N more` when cut.
fn push_limited<'a>(
    lines: &mut Vec<Line<'a>>,
    items: impl Iterator<Item = Line<'a>>,
    total: usize,
    budget: usize,
    theme: &Theme,
) {
    let shown = if total > budget {
        budget.saturating_sub(1)
    } else {
        total
    };
    lines.extend(items.take(shown));
    if total > shown {
        lines.push(Line::styled(
            format!("  … {} more", total - shown),
            theme.muted,
        ));
    }
}
