//! The full value of a field that a tree's details panel (or a tree row) shows cut: a box over
//! the pane with the whole value, wrapped, scrollable (↑/↓, PgUp/PgDn, g/G); `y` copies the
//! value, `Esc` (or `v` again) closes. Opened by the panes with `v` (`show_value`).
//!
//! ```text
//! ┌ template ───────────────────────────────────────────┐
//! │dac22aa1d5bd9f3b7e8e3a0a9d0b5cdbdbf6d1f3e1f0c1aa5d1e9│
//! │f1e:Splice.Amulet:Amulet                              │
//! │                                                      │
//! │y copy  Esc close                         2 lines     │
//! └──────────────────────────────────────────────────────┘
//! ```

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use crate::msg::Command;
use unicode_width::UnicodeWidthStr;

use crate::ui::layout::{centered, centered_pct, wrap_text};
use crate::ui::safe::{safe_line, sanitize_multiline};
use crate::ui::theme::Theme;

/// What the viewer did with a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueOutcome {
    /// Used (scrolled, or nothing to do).
    Used,
    /// Close the viewer.
    Close,
    /// Copy this text, named so (`copied template`).
    Copy { what: String, text: String },
}

/// The viewer's state: the value and its wrapped lines at the last known size.
#[derive(Debug, Clone)]
pub struct ValueView {
    /// What the value is (`template`, `JSON $.amount`).
    title: String,
    /// The whole value as the server sent it (sanitized when wrapped and when copied).
    value: String,
    lines: Vec<String>,
    /// The widest line of the value, unwrapped (the box is no wider than needed).
    natural: usize,
    /// Inner text rows.
    rows: usize,
    width: usize,
    top: usize,
}

impl ValueView {
    /// A viewer of `value` titled `title`; call [`ValueView::set_area`] with the pane's area.
    pub fn new(title: impl Into<String>, value: impl Into<String>) -> Self {
        let value = value.into();
        let natural = sanitize_multiline(&value)
            .lines()
            .map(UnicodeWidthStr::width)
            .max()
            .unwrap_or(0);
        let mut v = ValueView {
            title: title.into(),
            value,
            lines: Vec::new(),
            natural,
            rows: 1,
            width: 0,
            top: 0,
        };
        v.rewrap(60);
        v
    }

    /// The value shown.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The first line on screen.
    pub fn top(&self) -> usize {
        self.top
    }

    /// The number of wrapped lines.
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// The box drawn inside `area` (the pane): as wide as the value (and its title) needs, at
    /// most 90 % of the pane; as high as its wrapped lines need, at most 70 %.
    pub fn rect(&self, area: Rect) -> Rect {
        let most = centered_pct(area, 90, 70, 24, 6);
        let want_w =
            (self.natural.max(self.title.width() + 4).max(30) + 2).min(usize::from(most.width));
        let want_w = u16::try_from(want_w).unwrap_or(most.width);
        let inner_w = usize::from(want_w.saturating_sub(2)).max(1);
        let lines = wrap_text(&sanitize_multiline(&self.value), inner_w).len();
        let want_h = u16::try_from(lines + 3)
            .unwrap_or(u16::MAX)
            .clamp(5, most.height.max(5));
        centered(area, want_w, want_h)
    }

    /// Adapts the wrapping and paging to the pane's `area` (call on resize and when opened).
    pub fn set_area(&mut self, area: Rect) {
        let r = self.rect(area);
        let inner_w = usize::from(r.width.saturating_sub(2)).max(1);
        self.rows = usize::from(r.height.saturating_sub(3)).max(1);
        if inner_w != self.width {
            self.rewrap(inner_w);
        }
        self.top = self.top.min(self.max_top());
    }

    fn rewrap(&mut self, width: usize) {
        self.width = width;
        self.lines = wrap_text(&sanitize_multiline(&self.value), width);
    }

    fn max_top(&self) -> usize {
        self.lines.len().saturating_sub(self.rows)
    }

    /// A command while the viewer is open.
    pub fn command(&mut self, cmd: Command) -> ValueOutcome {
        let max = self.max_top();
        match cmd {
            Command::Up => self.top = self.top.saturating_sub(1),
            Command::Down => self.top = (self.top + 1).min(max),
            Command::PageUp => self.top = self.top.saturating_sub(self.rows.max(2) - 1),
            Command::PageDown => self.top = (self.top + self.rows.max(2) - 1).min(max),
            Command::Top => self.top = 0,
            Command::Bottom => self.top = max,
            Command::Copy => {
                return ValueOutcome::Copy {
                    what: self.title.clone(),
                    text: sanitize_multiline(&self.value).into_owned(),
                };
            }
            Command::Cancel | Command::Back | Command::ShowValue | Command::Confirm => {
                return ValueOutcome::Close;
            }
            _ => {}
        }
        ValueOutcome::Used
    }

    /// Draws the box over `area` (the pane).
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let rect = self.rect(area);
        if rect.width < 4 || rect.height < 3 {
            return;
        }
        Clear.render(rect, buf);
        let title_room = usize::from(rect.width.saturating_sub(4));
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border_focused)
            .style(theme.overlay)
            .title(Span::styled(
                safe_line(&format!(" {} ", self.title), title_room).into_owned(),
                theme.title,
            ));
        let inner = block.inner(rect);
        block.render(rect, buf);
        if inner.height == 0 || inner.width == 0 {
            return;
        }
        let text_rows = usize::from(inner.height.saturating_sub(1)).max(1);
        for (i, line) in self.lines.iter().skip(self.top).take(text_rows).enumerate() {
            buf.set_line(
                inner.x,
                inner.y + i as u16,
                &Line::raw(line.as_str()),
                inner.width,
            );
        }
        if inner.height >= 2 {
            let end = (self.top + text_rows).min(self.lines.len());
            let place = if self.lines.len() > text_rows {
                format!("lines {}–{end} of {}", self.top + 1, self.lines.len())
            } else {
                format!(
                    "{} line{}",
                    self.lines.len(),
                    if self.lines.len() == 1 { "" } else { "s" }
                )
            };
            let footer = Line::from(vec![
                Span::styled("y", theme.key_hint),
                Span::styled(" copy  ", theme.muted),
                Span::styled("Esc", theme.key_hint),
                Span::styled(" close  ", theme.muted),
                Span::styled(place, theme.muted),
            ]);
            buf.set_line(inner.x, inner.y + inner.height - 1, &footer, inner.width);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(buf: &Buffer) -> String {
        let mut s = String::new();
        for y in 0..buf.area.height {
            for x in 0..buf.area.width {
                s.push_str(buf[(x, y)].symbol());
            }
            s.push('\n');
        }
        s
    }

    #[test]
    fn wraps_scrolls_copies_and_closes() {
        let long = format!("{}:Splice.Amulet:Amulet", "ab12".repeat(40));
        let mut v = ValueView::new("template", long.clone());
        let area = Rect::new(0, 0, 40, 10);
        v.set_area(area);
        assert!(v.line_count() > 3, "wrapped: {}", v.line_count());
        let mut buf = Buffer::empty(area);
        v.render(area, &mut buf, &Theme::default());
        let shown = text(&buf);
        assert!(shown.contains(" template "), "{shown}");
        assert!(shown.contains("ab12ab12"), "{shown}");
        assert!(shown.contains("y copy  Esc close"), "{shown}");
        v.command(Command::Bottom);
        assert!(v.top() > 0);
        let mut buf = Buffer::empty(area);
        v.render(area, &mut buf, &Theme::default());
        assert!(text(&buf).contains("Amulet"), "the end is reachable");
        assert_eq!(
            v.command(Command::Copy),
            ValueOutcome::Copy {
                what: "template".into(),
                text: long
            }
        );
        assert_eq!(v.command(Command::Cancel), ValueOutcome::Close);
        // Hostile text is sanitized on screen and in the copy.
        let mut v = ValueView::new("x", "a\u{1b}[2Jb");
        v.set_area(area);
        let ValueOutcome::Copy { text: copied, .. } = v.command(Command::Copy) else {
            panic!("copy");
        };
        assert!(!copied.contains('\u{1b}'));
    }
}
