//! Where the parts of the Update pane go ([`split`]) and what is drawn around the panels: the
//! header of the open update, the panel titles and the messages shown instead of an update.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::api::scan::{ReassignmentEvent, UpdateItem};
use crate::model::summary::{short_id, short_party};
use crate::ui::format::server_time;
use crate::ui::layout::wrap_text;
use crate::ui::safe::{safe_line, sanitize};
use crate::ui::theme::Theme;
use crate::ui::tree::TreeSplit;

use super::{Shared, UpdatePane, WIDE_MIN_WIDTH};

/// The pane's regions.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Areas {
    pub(super) header: Rect,
    pub(super) tree_title: Rect,
    pub(super) tree: Rect,
    /// The column between tree and details on wide layouts.
    pub(super) separator: Rect,
    pub(super) details_title: Rect,
    pub(super) details: Rect,
    pub(super) prompt: Rect,
}

/// Splits the pane. `tree_rows` (visible tree rows) lets a short tree leave room to the details
/// on narrow layouts.
pub(super) fn split(
    area: Rect,
    has_tree: bool,
    tree_rows: usize,
    prompt: u16,
    tree_split: TreeSplit,
) -> Areas {
    let mut rest = area;
    let mut a = Areas::default();
    if prompt > 0 && rest.height > prompt {
        a.prompt = Rect::new(rest.x, rest.y + rest.height - prompt, rest.width, prompt);
        rest.height -= prompt;
    }
    let header_h = match rest.height {
        0 => 0,
        1..=6 => 1,
        _ => 2,
    };
    a.header = Rect::new(rest.x, rest.y, rest.width, header_h);
    rest.y += header_h;
    rest.height -= header_h;
    let title_and_body = |r: Rect| -> (Rect, Rect) {
        let t = r.height.min(1);
        (
            Rect::new(r.x, r.y, r.width, t),
            Rect::new(r.x, r.y + t, r.width, r.height - t),
        )
    };
    if !has_tree {
        (a.details_title, a.details) = title_and_body(rest);
        return a;
    }
    if rest.width >= WIDE_MIN_WIDTH {
        let left = if tree_split.is_set() {
            tree_split.part(rest.width, 50)
        } else {
            rest.width / 2
        };
        let left_rect = Rect::new(rest.x, rest.y, left, rest.height);
        a.separator = Rect::new(rest.x + left, rest.y, 1, rest.height);
        let right_rect = Rect::new(
            rest.x + left + 1,
            rest.y,
            rest.width - left - 1,
            rest.height,
        );
        (a.tree_title, a.tree) = title_and_body(left_rect);
        (a.details_title, a.details) = title_and_body(right_rect);
    } else {
        let usable = rest.height.saturating_sub(2);
        let rows = u16::try_from(tree_rows).unwrap_or(u16::MAX);
        let tree_h = if tree_split.is_set() {
            // Moved by the user: the tree gets its share (less when it has fewer rows).
            let most = tree_split.part(usable, 50).max(usable.min(1));
            rows.clamp(usable.min(1), most)
        } else {
            let most = (usable / 2).max(usable.min(3));
            rows.clamp(usable.min(3), most)
        };
        let top = Rect::new(rest.x, rest.y, rest.width, (tree_h + 1).min(rest.height));
        let bottom = Rect::new(
            rest.x,
            rest.y + top.height,
            rest.width,
            rest.height - top.height,
        );
        (a.tree_title, a.tree) = title_and_body(top);
        (a.details_title, a.details) = title_and_body(bottom);
    }
    a
}

impl UpdatePane {
    pub(super) fn render_header(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme) {
        let Some(id) = &self.update_id else { return };
        let mut pieces: Vec<(&str, String, Style)> = vec![("update", id.clone(), theme.id)];
        let time = |s: &str| fmt_time(s, sh);
        match self.body.as_ref().and_then(|b| b.update.as_ref()) {
            Some(UpdateItem::Transaction(tx)) => {
                pieces.push(("", "transaction".into(), theme.accent));
                pieces.push(("events", tx.events_by_id.len().to_string(), theme.accent));
                pieces.push(("migration", tx.migration_id.to_string(), Style::default()));
                pieces.push(("record", time(&tx.record_time), theme.time));
                pieces.push(("effective", time(&tx.effective_at), theme.time));
                pieces.push((
                    "synchronizer",
                    short_party(&tx.synchronizer_id).to_string(),
                    theme.party,
                ));
                if !tx.workflow_id.is_empty() {
                    pieces.push(("workflow", tx.workflow_id.clone(), Style::default()));
                }
                if let Some(h) = tx
                    .external_transaction_hash
                    .as_deref()
                    .filter(|h| !h.is_empty())
                {
                    pieces.push(("external hash", h.to_string(), theme.id));
                }
            }
            Some(UpdateItem::Reassignment(r)) => {
                let (kind, style) = match r.event {
                    ReassignmentEvent::Assign(_) => ("assign", theme.assign),
                    ReassignmentEvent::Unassign(_) => ("unassign", theme.unassign),
                };
                pieces.push(("", kind.into(), style));
                pieces.push((
                    "migration",
                    r.event.migration_id().to_string(),
                    Style::default(),
                ));
                pieces.push(("record", time(&r.record_time), theme.time));
                pieces.push(("offset", r.offset.clone(), Style::default()));
            }
            _ => {}
        }
        if self.from_index {
            // Early in the header, so it is never wrapped away.
            let at = pieces.len().min(2);
            pieces.insert(at, ("", "from the local index".into(), theme.status_warn));
        }
        if self.pending.is_some() && self.content.is_some() {
            pieces.push(("", "refreshing…".into(), theme.status_warn));
        }
        if self.error.is_some() && self.content.is_some() {
            pieces.push(("", "refresh failed (r retries)".into(), theme.status_err));
        }
        render_flow(&pieces, area, buf, theme);
    }

    pub(super) fn render_message(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let width = usize::from(area.width);
        let mut lines: Vec<Line<'_>> = Vec::new();
        match &self.update_id {
            None => {
                lines.push(Line::styled("No update open.", theme.accent));
                lines.push(Line::raw(""));
                for text in wrap_text(
                    "Press Enter on an update in the History pane, or type :event <update id> \
                     in the command palette (:).",
                    width,
                ) {
                    lines.push(Line::styled(text, theme.muted));
                }
            }
            Some(id) => {
                if let Some(err) = &self.error {
                    lines.push(Line::styled(
                        format!(
                            "could not load update {}",
                            safe_line(id, width.saturating_sub(24))
                        ),
                        theme.status_err,
                    ));
                    for text in wrap_text(&sanitize(err), width) {
                        lines.push(Line::raw(text));
                    }
                    lines.push(Line::raw(""));
                    lines.push(Line::styled("press r to retry", theme.muted));
                } else if self.pending.is_some() {
                    lines.push(Line::from(vec![
                        Span::styled("loading ", theme.muted),
                        Span::styled(short_id(&sanitize(id), 16), theme.id),
                    ]));
                } else if let Some(verdict) = self.body.as_ref().and_then(|b| b.verdict.as_ref()) {
                    // An event with a verdict and no update: why there is none, and where its
                    // verdict is.
                    let why = crate::model::verdict::no_update_why(&verdict.verdict_result);
                    for text in wrap_text(&format!("{why} Its verdict: the Verdict pane."), width) {
                        lines.push(Line::styled(text, theme.muted));
                    }
                } else {
                    lines.push(Line::styled(
                        "The server sent no update in this body (nothing to show but its verdict: \
                         see the Verdict pane).",
                        theme.muted,
                    ));
                }
            }
        }
        for (i, line) in lines.iter().take(usize::from(area.height)).enumerate() {
            buf.set_line(area.x, area.y + i as u16, line, area.width);
        }
    }
}

/// A server time in the pane's zone, with the zone named (`-` when empty).
pub(super) fn fmt_time(s: &str, sh: &Shared) -> String {
    server_time(s, "-", |us| {
        format!("{} {}", sh.format_time(us), sh.zone_label())
    })
}

/// Draws `label value` pieces flowing over the rows of `area`, each piece cut to fit.
fn render_flow(pieces: &[(&str, String, Style)], area: Rect, buf: &mut Buffer, theme: &Theme) {
    let width = usize::from(area.width);
    if width == 0 || area.height == 0 {
        return;
    }
    let mut row = 0u16;
    let mut spans: Vec<Span<'_>> = Vec::new();
    let mut used = 0usize;
    let mut flush = |spans: &mut Vec<Span<'_>>, row: u16| {
        if row < area.height {
            buf.set_line(
                area.x,
                area.y + row,
                &Line::from(std::mem::take(spans)),
                area.width,
            );
        }
        spans.clear();
    };
    for (label, value, style) in pieces {
        let label_w = if label.is_empty() {
            0
        } else {
            label.width() + 1
        };
        let value = sanitize(value);
        let need = label_w + value.width() + if used > 0 { 2 } else { 0 };
        if used > 0 && used + need > width {
            flush(&mut spans, row);
            row += 1;
            used = 0;
        }
        if row >= area.height {
            break;
        }
        if used > 0 {
            spans.push(Span::raw("  "));
            used += 2;
        }
        if !label.is_empty() {
            spans.push(Span::styled(format!("{label} "), theme.muted));
            used += label_w;
        }
        let left = width.saturating_sub(used);
        let shown = safe_line(&value, left).into_owned();
        used += shown.width();
        spans.push(Span::styled(shown, *style));
    }
    flush(&mut spans, row);
}

/// A panel title: `name: subject` then a rule, with a focus hint at the end.
pub(super) fn render_title(
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
    active: bool,
    name: &str,
    subject: &str,
    hint: &str,
) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let head = if subject.is_empty() {
        format!("─ {name} ")
    } else {
        format!("─ {name}: ")
    };
    let hint_w = hint.width();
    let subject_room = width.saturating_sub(head.width() + hint_w + 2);
    let subject = if subject.is_empty() {
        String::new()
    } else {
        format!("{} ", safe_line(subject, subject_room))
    };
    let used = head.width() + subject.width();
    let fill = width.saturating_sub(used + hint_w);
    let border = theme.border_style(active);
    let title = if active { theme.title } else { theme.muted };
    let line = Line::from(vec![
        Span::styled(head, border),
        Span::styled(subject, title),
        Span::styled("─".repeat(fill), border),
        Span::styled(hint.to_string(), theme.muted),
    ]);
    buf.set_line(area.x, area.y, &line, area.width);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_never_exceeds_the_area() {
        for w in 0..130u16 {
            for h in 0..30u16 {
                let area = Rect::new(1, 2, w, h);
                for (tree, rows, prompt) in [
                    (true, 0, 0),
                    (true, 1000, 1),
                    (true, 4, 0),
                    (false, 0, 0),
                    (false, 0, 1),
                    (true, 1000, 2),
                ] {
                    let mut narrow = TreeSplit::default();
                    let mut wide = TreeSplit::default();
                    for _ in 0..20 {
                        narrow.step(false, 50);
                        wide.step(true, 50);
                    }
                    for a in [TreeSplit::default(), narrow, wide]
                        .map(|s| split(area, tree, rows, prompt, s))
                    {
                        for r in [
                            a.header,
                            a.tree_title,
                            a.tree,
                            a.separator,
                            a.details_title,
                            a.details,
                            a.prompt,
                        ] {
                            if r.width > 0 && r.height > 0 {
                                assert!(area.contains(r.as_position()), "{w}x{h} {r:?}");
                                assert!(r.right() <= area.right() && r.bottom() <= area.bottom());
                            }
                        }
                    }
                }
            }
        }
    }
}
