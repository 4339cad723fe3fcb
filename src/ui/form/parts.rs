//! Pieces of the query panes around the form: the section tab row, the one-line explanation of
//! API errors, cut cells and file-name-safe parts.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::ui::theme::Theme;

/// A dialog's key line: each key in the key style, its description after it, the pairs
/// separated by ` · ` (`Enter export · Tab format · Esc cancel`).
pub fn key_line(keys: &[(&'static str, &'static str)], theme: &Theme) -> Line<'static> {
    let mut spans = Vec::with_capacity(keys.len() * 2);
    for (i, (key, what)) in keys.iter().enumerate() {
        let sep = if i + 1 < keys.len() { " · " } else { "" };
        spans.push(Span::styled(*key, theme.key_hint));
        spans.push(Span::styled(format!(" {what}{sep}"), theme.key_desc));
    }
    Line::from(spans)
}

/// A progress bar `bar_w` cells wide between `▕` and `▏` for `pct` percent.
pub fn progress_bar(pct: u8, bar_w: usize) -> String {
    let filled = usize::from(pct) * bar_w / 100;
    format!(
        "▕{}{}▏",
        "█".repeat(filled),
        "░".repeat(bar_w.saturating_sub(filled))
    )
}

/// Draws the section tab row (`BFT sequencers │ Bootstrapping │ …  [ ] section`), the active one
/// highlighted, with the keys that really switch sections (`[` and `]`, the default
/// `prev_section` / `next_section`; number keys go to panes, so labels carry no numbers).
/// Labels shrink to their first word when the row is narrow.
pub fn render_section_tabs(
    area: Rect,
    buf: &mut Buffer,
    titles: &[&str],
    active: usize,
    theme: &Theme,
) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    const HINT: &str = "[ ] section";
    let full: usize = titles.iter().map(|t| t.width() + 3).sum::<usize>() + HINT.width() + 2;
    let short = full > usize::from(area.width);
    let mut spans = Vec::new();
    for (i, title) in titles.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" │ ", theme.muted));
        }
        let label = if short {
            title.split(' ').next().unwrap_or(title)
        } else {
            title
        };
        let style = if i == active {
            theme.tab_active
        } else {
            theme.tab_inactive
        };
        spans.push(Span::styled(label.to_string(), style));
    }
    spans.push(Span::styled("   [ ]", theme.key_hint));
    spans.push(Span::styled(" section", theme.key_desc));
    buf.set_line(area.x, area.y, &Line::from(spans), area.width);
}

/// `s` with every character but ASCII letters, digits, `-`, `_` (and `.` when `dots`) made
/// `_`, cut to `max` characters.
pub fn file_safe(s: &str, max: usize, dots: bool) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || (dots && c == '.') {
                c
            } else {
                '_'
            }
        })
        .take(max)
        .collect()
}

/// A file-name-safe form of `s` (letters, digits, `-`, `_`, `.`; at most 40 characters).
pub fn file_part(s: &str) -> String {
    let mut out = file_safe(s, 40, true);
    while out.starts_with('.') {
        out.remove(0);
    }
    if out.is_empty() { "x".into() } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_parts_are_safe() {
        assert_eq!(file_part("global-domain::1220ab"), "global-domain__1220ab");
        assert_eq!(file_part("../../etc"), "_.._etc");
        assert_eq!(file_part(""), "x");
    }
}
