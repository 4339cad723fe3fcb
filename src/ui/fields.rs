//! The fields of what a pane has selected, each whole: `v` (`show_value`) in a pane that has no
//! value under a cursor of its own (the trees' details panels keep theirs) lists the fields of
//! the selection — what a row or a card shows cut (`2 of 2: nimbus-validator-1::1220e493…, …`)
//! — one a line; ↑/↓ focuses one, Enter (or `v`) shows it whole in the [`ValueView`], `y` copies
//! it whole (OSC 52), Esc closes. One component for every pane: a pane only says what its fields
//! are ([`crate::panes::Pane::fields`]).
//!
//! ```text
//! ┌ view 0 · 5 fields ───────────────────────────────────────────┐
//! │hash                 0000aaaa                                 │
//! │informee             alice::1220aaaa1111222233334444555566…   │
//! │confirming 1 of 2    alice::1220aaaa…, bob::1220bbbb…         │
//! │Enter whole  y copy  Esc close                                │
//! └──────────────────────────────────────────────────────────────┘
//! ```

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};
use unicode_width::UnicodeWidthStr;

use crate::msg::Command;
use crate::ui::layout::centered_pct;
use crate::ui::safe::{safe_line, sanitize_multiline};
use crate::ui::theme::Theme;
use crate::ui::whole_value::{ValueOutcome, ValueView};

/// One field of a selection: its name and its whole value (as the server sent it; sanitised
/// when drawn and when copied).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub value: String,
}

impl Field {
    /// A field named `name` holding `value`.
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        Field {
            name: name.into(),
            value: value.into(),
        }
    }
}

/// The fields of a section drawn as lines (a detail, a card): one field a line that has text,
/// named by its label (a first span padded with spaces, `Requester    `, after any marker such
/// as `★ `), the rest of the line its value; a line without a label is named by its place
/// (`line 7`). The lines must hold their values whole (not cut to the width drawn).
pub fn line_fields(lines: &[Line<'_>]) -> Vec<Field> {
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let spans: Vec<&str> = line.spans.iter().map(|s| s.content.as_ref()).collect();
        let whole: String = spans.concat();
        if whole.trim().is_empty() {
            continue;
        }
        // Leading markers (`  `, `★ `), then a label padded with spaces.
        let skip = spans
            .iter()
            .take_while(|s| matches!(s.trim(), "" | "★"))
            .count();
        let label = spans
            .get(skip)
            .filter(|s| skip + 1 < spans.len() && s.ends_with(' ') && !s.trim().is_empty())
            .map(|s| s.trim());
        let field = match label {
            Some(name) => Field::new(name, spans[skip + 1..].concat().trim()),
            None => Field::new(format!("line {}", n + 1), whole.trim()),
        };
        out.push(field);
    }
    out
}

/// What the list did with a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldsOutcome {
    Used,
    Close,
    Copy { what: String, text: String },
}

/// The list of fields, with the focused one's whole value open or not.
#[derive(Debug, Clone)]
pub struct FieldsView {
    title: String,
    fields: Vec<Field>,
    cursor: usize,
    /// The focused field shown whole.
    value: Option<ValueView>,
    area: Rect,
}

/// The widest name column.
const NAME_MAX: usize = 22;

impl FieldsView {
    /// A list of `fields` of what `title` names (`view 0`, `update 1220ab…`). A single field
    /// opens whole at once.
    pub fn new(title: impl Into<String>, fields: Vec<Field>) -> Self {
        let mut v = FieldsView {
            title: title.into(),
            fields,
            cursor: 0,
            value: None,
            area: Rect::new(0, 0, 80, 20),
        };
        if v.fields.len() == 1 {
            v.open();
        }
        v
    }

    /// The fields listed.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// The focused field.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Whether the focused field is shown whole.
    pub fn is_value_open(&self) -> bool {
        self.value.is_some()
    }

    /// Adapts to the area drawn over (the pane's body).
    pub fn set_area(&mut self, area: Rect) {
        self.area = area;
        if let Some(v) = &mut self.value {
            v.set_area(area);
        }
    }

    fn open(&mut self) {
        if let Some(f) = self.fields.get(self.cursor) {
            let mut v = ValueView::new(f.name.clone(), f.value.clone());
            v.set_area(self.area);
            self.value = Some(v);
        }
    }

    /// A command while the list is open.
    pub fn command(&mut self, cmd: Command) -> FieldsOutcome {
        if let Some(v) = &mut self.value {
            return match v.command(cmd) {
                ValueOutcome::Close if self.fields.len() == 1 => FieldsOutcome::Close,
                ValueOutcome::Close => {
                    self.value = None;
                    FieldsOutcome::Used
                }
                ValueOutcome::Copy { what, text } => FieldsOutcome::Copy { what, text },
                ValueOutcome::Used => FieldsOutcome::Used,
            };
        }
        let last = self.fields.len().saturating_sub(1);
        match cmd {
            Command::Up => self.cursor = self.cursor.saturating_sub(1),
            Command::Down => self.cursor = (self.cursor + 1).min(last),
            Command::Top | Command::PageUp => self.cursor = 0,
            Command::Bottom | Command::PageDown => self.cursor = last,
            Command::Confirm
            | Command::Select
            | Command::ShowValue
            | Command::Right
            | Command::Expand => self.open(),
            Command::Copy => {
                if let Some(f) = self.fields.get(self.cursor) {
                    return FieldsOutcome::Copy {
                        what: f.name.clone(),
                        text: sanitize_multiline(&f.value).into_owned(),
                    };
                }
            }
            Command::Cancel | Command::Back => return FieldsOutcome::Close,
            _ => {}
        }
        FieldsOutcome::Used
    }

    /// The box of the list inside `area`.
    fn rect(&self, area: Rect) -> Rect {
        let most = centered_pct(area, 90, 70, 30, 5);
        let want = u16::try_from(self.fields.len() + 3).unwrap_or(u16::MAX);
        let h = want.clamp(4, most.height.max(4));
        Rect::new(most.x, most.y, most.width, h.min(area.height))
    }

    /// Draws the list (or the focused field whole) over `area`.
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if let Some(v) = &self.value {
            v.render(area, buf, theme);
            return;
        }
        let rect = self.rect(area);
        if rect.width < 8 || rect.height < 3 {
            return;
        }
        Clear.render(rect, buf);
        let title = format!(
            " {} · {} field{} ",
            self.title,
            self.fields.len(),
            if self.fields.len() == 1 { "" } else { "s" }
        );
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border_focused)
            .style(theme.overlay)
            .title(Span::styled(
                safe_line(&title, usize::from(rect.width.saturating_sub(4))).into_owned(),
                theme.title,
            ));
        let inner = block.inner(rect);
        block.render(rect, buf);
        if inner.height == 0 || inner.width == 0 {
            return;
        }
        let width = usize::from(inner.width);
        let name_w = self
            .fields
            .iter()
            .map(|f| f.name.width())
            .max()
            .unwrap_or(0)
            .min(NAME_MAX)
            .min(width / 3);
        let rows = usize::from(inner.height.saturating_sub(1)).max(1);
        let top = self.cursor.saturating_sub(rows - 1);
        for (i, f) in self.fields.iter().enumerate().skip(top).take(rows) {
            let y = inner.y + (i - top) as u16;
            let name = safe_line(&f.name, name_w);
            let pad = name_w.saturating_sub(name.width());
            let value_w = width.saturating_sub(name_w + 1);
            let line = Line::from(vec![
                Span::styled(format!("{name}{} ", " ".repeat(pad)), theme.muted),
                Span::raw(safe_line(&f.value, value_w).into_owned()),
            ]);
            buf.set_line(inner.x, y, &line, inner.width);
            if i == self.cursor {
                buf.set_style(
                    Rect::new(inner.x, y, inner.width, 1),
                    theme.selection_style(true),
                );
            }
        }
        if inner.height >= 2 {
            let footer = Line::from(vec![
                Span::styled("Enter", theme.key_hint),
                Span::styled(" whole  ", theme.muted),
                Span::styled("y", theme.key_hint),
                Span::styled(" copy  ", theme.muted),
                Span::styled("Esc", theme.key_hint),
                Span::styled(" close", theme.muted),
            ]);
            buf.set_line(inner.x, inner.y + inner.height - 1, &footer, inner.width);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_opens_copies_and_closes() {
        let long = format!("alice::1220{}", "ab".repeat(40));
        let mut v = FieldsView::new(
            "view 0",
            vec![
                Field::new("hash", "00aa"),
                Field::new("informee", long.clone()),
            ],
        );
        assert_eq!(v.command(Command::Down), FieldsOutcome::Used);
        assert_eq!(
            v.command(Command::Copy),
            FieldsOutcome::Copy {
                what: "informee".into(),
                text: long.clone()
            }
        );
        v.command(Command::Confirm);
        assert!(v.is_value_open());
        assert_eq!(v.command(Command::Cancel), FieldsOutcome::Used);
        assert!(!v.is_value_open());
        assert_eq!(v.command(Command::Cancel), FieldsOutcome::Close);
        // One field opens whole; closing it closes the list.
        let mut one = FieldsView::new("x", vec![Field::new("id", long)]);
        assert!(one.is_value_open());
        assert_eq!(one.command(Command::Cancel), FieldsOutcome::Close);
    }
}
