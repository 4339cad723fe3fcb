//! [`FilterInput`]: the `/` input of a table and its filter bar.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::msg::Command;
use crate::ui::format::group_thousands;
use crate::ui::safe::safe_line;
use crate::ui::text_input::{InputOutcome, TextInput};
use crate::ui::theme::Theme;

/// What a key did to the filter input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterEvent {
    /// The text changed: apply it, or say why it does not parse ([`FilterInput::set_error`]).
    Changed(String),
    /// Enter: close the input and keep the filter (unless it does not parse).
    Submitted,
    /// Esc: close the input and clear the filter.
    Cancelled,
    /// ↑ ↓ PgUp PgDn while typing: move the selection.
    Move(Command),
    /// Tab (`back`: Shift-Tab) while typing: complete the word at the cursor, or go on to the
    /// next (previous) match ([`FilterInput::complete`]).
    Complete { back: bool },
    /// Nothing to do (cursor movement, a key the input ignores).
    Nothing,
}

/// The `/` filter input and the filter bar under a table. While it is open every key goes to
/// it (the pane reports `wants_raw_keys`), so typing `r` or `:` never refreshes or opens the
/// palette.
#[derive(Debug, Clone, Default)]
pub struct FilterInput {
    input: Option<TextInput>,
    /// The matches of the last completion, while its result is the text: Tab again goes on.
    cycle: Option<Cycle>,
}

/// A completion that Tab can go on with.
#[derive(Debug, Clone)]
struct Cycle {
    /// The text before the completed value (`… party:`).
    head: String,
    matches: Vec<String>,
    at: usize,
}

impl Cycle {
    fn text(&self) -> String {
        format!("{}{}", self.head, self.matches[self.at])
    }
}

impl FilterInput {
    /// Opens the input with `text`, cursor at the end.
    pub fn open(&mut self, text: &str, placeholder: &str) {
        let mut input = TextInput::single_line()
            .with_placeholder(placeholder)
            .with_text(text);
        input.move_to_end();
        self.input = Some(input);
    }

    /// Closes the input.
    pub fn close(&mut self) {
        self.input = None;
    }

    /// Whether the input is open.
    pub fn is_open(&self) -> bool {
        self.input.is_some()
    }

    /// The text typed (while open).
    pub fn text(&self) -> Option<String> {
        self.input.as_ref().map(TextInput::text)
    }

    /// Replaces the text (while open) and clears the error.
    pub fn set_text(&mut self, text: &str) {
        if let Some(input) = &mut self.input {
            input.set_text(text);
            input.set_validation(None);
        }
    }

    /// Sets (or clears) why the text does not parse.
    pub fn set_error(&mut self, error: Option<String>) {
        if let Some(input) = &mut self.input {
            input.set_validation(error);
        }
    }

    /// Why the text does not parse.
    pub fn error(&self) -> Option<&str> {
        self.input.as_ref().and_then(TextInput::validation)
    }

    /// Handles a key while open.
    pub fn on_key(&mut self, key: &KeyEvent) -> FilterEvent {
        let Some(input) = &mut self.input else {
            return FilterEvent::Nothing;
        };
        match input.handle_key(key) {
            InputOutcome::Submitted(_) => FilterEvent::Submitted,
            InputOutcome::Cancelled => FilterEvent::Cancelled,
            InputOutcome::Changed => FilterEvent::Changed(input.text()),
            InputOutcome::Consumed => FilterEvent::Nothing,
            InputOutcome::Ignored => match key.code {
                KeyCode::Up => FilterEvent::Move(Command::Up),
                KeyCode::Down => FilterEvent::Move(Command::Down),
                KeyCode::PageUp => FilterEvent::Move(Command::PageUp),
                KeyCode::PageDown => FilterEvent::Move(Command::PageDown),
                KeyCode::Tab => FilterEvent::Complete { back: false },
                KeyCode::BackTab => FilterEvent::Complete { back: true },
                _ => FilterEvent::Nothing,
            },
        }
    }

    /// Completes the last word of the text when it is `field:` + the start of a value
    /// (`party:ju` → `party:julia::1220…`), from `candidates` in the forms' order (prefix
    /// matches first, then substring). Returns the number of matches (0: nothing changed) and
    /// the new text.
    pub fn complete(
        &mut self,
        field: &str,
        candidates: &[&str],
        back: bool,
    ) -> (usize, Option<String>) {
        let Some(input) = &mut self.input else {
            return (0, None);
        };
        let text = input.text();
        // Tab again on what the last Tab completed: the next (Shift-Tab: previous) match.
        if let Some(cycle) = self.cycle.as_mut().filter(|c| c.text() == text) {
            let n = cycle.matches.len();
            cycle.at = if back {
                (cycle.at + n - 1) % n
            } else {
                (cycle.at + 1) % n
            };
            let completed = cycle.text();
            input.set_text(&completed);
            input.move_to_end();
            return (n, Some(completed));
        }
        let start = text.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let word = &text[start..];
        let Some(partial) = word
            .strip_prefix(field)
            .and_then(|w| w.strip_prefix(':'))
            .filter(|w| !w.is_empty() && !w.starts_with("re:"))
        else {
            return (0, None);
        };
        let found = crate::ui::form::matching(candidates, partial);
        if found.is_empty() {
            return (0, None);
        }
        let cycle = Cycle {
            head: format!("{}{field}:", &text[..start]),
            matches: found.iter().map(|m| (*m).to_owned()).collect(),
            at: if back { found.len() - 1 } else { 0 },
        };
        let completed = cycle.text();
        input.set_text(&completed);
        input.move_to_end();
        self.cycle = Some(cycle);
        (found.len(), Some(completed))
    }

    /// Pasted text while open.
    pub fn on_paste(&mut self, text: &str) -> FilterEvent {
        match &mut self.input {
            Some(input) => {
                if input.insert_str(text) {
                    FilterEvent::Changed(input.text())
                } else {
                    FilterEvent::Nothing
                }
            }
            None => FilterEvent::Nothing,
        }
    }

    /// Rows of the bar: the input (and its error) while open, one line while a filter is
    /// `applied`, none otherwise.
    pub fn height(&self, applied: bool) -> u16 {
        match &self.input {
            Some(input) => input.desired_height().clamp(1, 2),
            None => u16::from(applied),
        }
    }

    /// Draws the bar: `/ text … N of M match` while open, `filter text · N of M match · / edit
    /// · Esc clear` while a filter is `applied`.
    pub fn render(
        &self,
        area: Rect,
        buf: &mut Buffer,
        theme: &Theme,
        applied: Option<&str>,
        (shown, total): (usize, usize),
    ) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let count = if applied.is_some() {
            format!(
                "{} of {} match",
                group_thousands(shown),
                group_thousands(total)
            )
        } else {
            String::new()
        };
        let width = usize::from(area.width);
        if let Some(input) = &self.input {
            let count_w = if width >= count.width() + 20 {
                count.width()
            } else {
                0
            };
            buf.set_stringn(area.x, area.y, "/ ", width, theme.accent);
            let input_x = area.x + 2.min(area.width);
            let reserve = if count_w > 0 { count_w + 1 } else { 0 };
            let input_w = area
                .width
                .saturating_sub(2)
                .saturating_sub(u16::try_from(reserve).unwrap_or(u16::MAX));
            input.render(
                Rect::new(input_x, area.y, input_w, area.height),
                buf,
                theme,
                true,
            );
            if count_w > 0 {
                let x = area.x + area.width - u16::try_from(count_w).unwrap_or(0);
                buf.set_stringn(x, area.y, &count, count_w, theme.muted);
            }
        } else {
            let line = Line::from(vec![
                Span::styled("filter ", theme.muted),
                Span::styled(
                    safe_line(applied.unwrap_or(""), width / 2).into_owned(),
                    theme.accent,
                ),
                Span::styled(format!(" · {count} · / edit · Esc clear"), theme.muted),
            ]);
            buf.set_line(area.x, area.y, &line, area.width);
        }
    }
}
