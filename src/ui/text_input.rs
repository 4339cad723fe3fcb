//! The one wrapper around `ratatui_textarea::TextArea`: every text entry of the app (palette,
//! filters, forms, the prepared-transaction editor) goes through [`TextInput`], so swapping the
//! text-area crate is a change to this file only.
//!
//! Keys (fixed, independent of the keymap; callers that honour keymap overrides look the key up
//! in the `text_input` context first):
//! - single-line: Enter submits, Esc cancels, Tab / ↑ / ↓ are left to the caller (completion,
//!   history); newlines are never inserted (pasted newlines become spaces);
//! - multi-line: Enter inserts a newline, Ctrl-s or Alt-Enter submits, Esc cancels.
//!
//! Editing keys are the text area's emacs-style ones (Ctrl-a/e, Ctrl-w, Ctrl-u, Ctrl-k, Alt-b/f,
//! Ctrl-z undo…). Control, bidi and invisible characters are refused, whether typed or pasted.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::Widget;
use ratatui_textarea::{CursorMove, Input, Key, TextArea};

use crate::ui::safe::{needs_replacing, safe_line};
use crate::ui::theme::Theme;

/// One line or many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputMode {
    /// Enter submits; no newlines.
    SingleLine,
    /// Enter inserts a newline; Ctrl-s / Alt-Enter submits.
    MultiLine,
}

/// What a key did to the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputOutcome {
    /// The user submitted this text.
    Submitted(String),
    /// The user cancelled (Esc).
    Cancelled,
    /// The text changed.
    Changed,
    /// The key was used but the text did not change (cursor movement).
    Consumed,
    /// The key means nothing to the input (left to the caller).
    Ignored,
}

/// A text input: single- or multi-line, with placeholder, optional mask and a validation
/// message drawn under the text.
#[derive(Debug, Clone)]
pub struct TextInput {
    inner: TextArea<'static>,
    mode: InputMode,
    validation: Option<String>,
}

impl Default for TextInput {
    fn default() -> Self {
        Self::single_line()
    }
}

impl TextInput {
    fn with_mode(mode: InputMode) -> Self {
        let mut inner = TextArea::default();
        inner.set_cursor_line_style(Style::default());
        inner.set_max_histories(100);
        let mut input = TextInput {
            inner,
            mode,
            validation: None,
        };
        input.set_theme(&Theme::default());
        input
    }

    /// An empty single-line input.
    pub fn single_line() -> Self {
        Self::with_mode(InputMode::SingleLine)
    }

    /// An empty multi-line input.
    pub fn multi_line() -> Self {
        Self::with_mode(InputMode::MultiLine)
    }

    /// Sets the placeholder shown while empty.
    pub fn with_placeholder(mut self, text: impl Into<String>) -> Self {
        self.set_placeholder(text);
        self
    }

    /// Sets the placeholder shown while empty.
    pub fn set_placeholder(&mut self, text: impl Into<String>) {
        self.inner.set_placeholder_text(text);
    }

    /// Starts with `text`, cursor at the end.
    pub fn with_text(mut self, text: &str) -> Self {
        self.set_text(text);
        self
    }

    /// Shows every character as `•` (tokens, secrets).
    pub fn masked(mut self) -> Self {
        self.inner.set_mask_char('•');
        self
    }

    /// The mode.
    pub fn mode(&self) -> InputMode {
        self.mode
    }

    /// The text (lines joined with `\n`).
    pub fn text(&self) -> String {
        self.inner.lines().join("\n")
    }

    /// Whether the input is empty.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Replaces the text; the cursor goes to the end.
    pub fn set_text(&mut self, text: &str) {
        self.inner.clear();
        self.insert_str(text);
    }

    /// Empties the input.
    pub fn clear(&mut self) {
        self.inner.clear();
    }

    /// Inserts text at the cursor (paste, completion). Unsafe characters are dropped; in
    /// single-line mode newlines and tabs become spaces. Returns whether anything changed.
    pub fn insert_str(&mut self, text: &str) -> bool {
        let single = self.mode == InputMode::SingleLine;
        let cleaned: String = text
            .replace("\r\n", "\n")
            .chars()
            .filter_map(|c| match c {
                '\n' | '\t' if single => Some(' '),
                '\n' => Some('\n'),
                '\t' => Some(' '),
                c if needs_replacing(c) => None,
                c => Some(c),
            })
            .collect();
        if cleaned.is_empty() {
            return false;
        }
        self.inner.insert_str(cleaned)
    }

    /// Moves the cursor to the end of the text.
    pub fn move_to_end(&mut self) {
        self.inner.move_cursor(CursorMove::Bottom);
        self.inner.move_cursor(CursorMove::End);
    }

    /// Sets (or clears) the validation message drawn under the text.
    pub fn set_validation(&mut self, message: Option<String>) {
        self.validation = message;
    }

    /// The validation message.
    pub fn validation(&self) -> Option<&str> {
        self.validation.as_deref()
    }

    /// The cursor as (row, column in characters).
    pub fn cursor(&self) -> (usize, usize) {
        let c = self.inner.cursor();
        (c.0, c.1)
    }

    /// Handles a key press (see the module docs for the keys).
    pub fn handle_key(&mut self, key: &KeyEvent) -> InputOutcome {
        if key.kind == KeyEventKind::Release {
            return InputOutcome::Ignored;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let single = self.mode == InputMode::SingleLine;
        match key.code {
            KeyCode::Esc => return InputOutcome::Cancelled,
            KeyCode::Enter if single || alt => return InputOutcome::Submitted(self.text()),
            KeyCode::Char('s') if ctrl && !single => return InputOutcome::Submitted(self.text()),
            KeyCode::Char('m' | 'j') if ctrl && single => return InputOutcome::Ignored,
            KeyCode::Tab | KeyCode::BackTab => return InputOutcome::Ignored,
            KeyCode::Up | KeyCode::Down | KeyCode::PageUp | KeyCode::PageDown if single => {
                return InputOutcome::Ignored;
            }
            KeyCode::Char(c) if needs_replacing(c) => return InputOutcome::Ignored,
            KeyCode::Char('n' | 'p') if ctrl && single => return InputOutcome::Ignored,
            _ => {}
        }
        // Emacs/readline meanings where the text area's defaults differ (its Ctrl-u is undo).
        if ctrl && !alt {
            let changed = match key.code {
                KeyCode::Char('u') => Some(self.inner.delete_line_by_head()),
                KeyCode::Char('z') => Some(self.inner.undo()),
                _ => None,
            };
            if let Some(changed) = changed {
                return if changed {
                    self.validation = None;
                    InputOutcome::Changed
                } else {
                    InputOutcome::Consumed
                };
            }
        }
        let input = Input::from(*key);
        if input.key == Key::Null {
            return InputOutcome::Ignored;
        }
        let before = self.inner.cursor();
        if self.inner.input(input) {
            self.validation = None;
            InputOutcome::Changed
        } else if self.inner.cursor() != before {
            InputOutcome::Consumed
        } else {
            InputOutcome::Ignored
        }
    }

    fn styles(theme: &Theme, focused: bool) -> (Style, Style, Style) {
        let cursor = if focused {
            theme.input.add_modifier(Modifier::REVERSED)
        } else {
            theme.input
        };
        (theme.input, theme.placeholder, cursor)
    }

    /// Applies the theme's input styles (for a focused input) so drawing needs no copy. Drawing
    /// with another theme or focus still works, at the cost of a copy per frame.
    pub fn set_theme(&mut self, theme: &Theme) {
        let (style, placeholder, cursor) = Self::styles(theme, true);
        self.inner.set_style(style);
        self.inner.set_placeholder_style(placeholder);
        self.inner.set_cursor_style(cursor);
    }

    /// Rows needed to draw: the text lines (1 in single-line mode) plus one for a validation
    /// message.
    pub fn desired_height(&self) -> u16 {
        let text = match self.mode {
            InputMode::SingleLine => 1,
            InputMode::MultiLine => self.inner.lines().len().clamp(1, 20) as u16,
        };
        text + u16::from(self.validation.is_some())
    }

    /// Draws `prompt` (two columns, e.g. `/ ` or `: `) on the one row `row` and the text to its
    /// right, with the cursor when `focused` (a one-row input leaves no room for a validation
    /// message: the caller draws that).
    pub fn render_prompted(
        &self,
        row: Rect,
        buf: &mut Buffer,
        prompt: &str,
        theme: &Theme,
        focused: bool,
    ) {
        buf.set_line(
            row.x,
            row.y,
            &Line::styled(prompt, theme.key_hint),
            row.width,
        );
        if row.width > 2 {
            let rest = Rect::new(row.x + 2, row.y, row.width - 2, 1);
            self.render(rest, buf, theme, focused);
        }
    }

    /// Draws the text (and the validation message on the last row when there is room). The
    /// cursor is shown only when `focused`.
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme, focused: bool) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let (text_area, message_area) = match (&self.validation, area.height) {
            (Some(_), h) if h >= 2 => {
                let text_h = match self.mode {
                    InputMode::SingleLine => 1,
                    InputMode::MultiLine => h - 1,
                };
                (
                    Rect::new(area.x, area.y, area.width, text_h),
                    Some(Rect::new(area.x, area.y + h - 1, area.width, 1)),
                )
            }
            _ => match self.mode {
                InputMode::SingleLine => (Rect::new(area.x, area.y, area.width, 1), None),
                InputMode::MultiLine => (area, None),
            },
        };
        let (style, placeholder, cursor) = Self::styles(theme, focused);
        if self.inner.style() == style
            && self.inner.placeholder_style() == Some(placeholder)
            && self.inner.cursor_style() == cursor
        {
            (&self.inner).render(text_area, buf);
        } else {
            // Styles differ from the ones set by `set_theme`: draw a restyled copy.
            let mut inner = self.inner.clone();
            inner.set_style(style);
            inner.set_placeholder_style(placeholder);
            inner.set_cursor_style(cursor);
            (&inner).render(text_area, buf);
        }
        if let (Some(msg), Some(rect)) = (&self.validation, message_area) {
            let line = Line::styled(safe_line(msg, usize::from(rect.width)), theme.status_err);
            buf.set_line(rect.x, rect.y, &line, rect.width);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(input: &mut TextInput, code: KeyCode) -> InputOutcome {
        input.handle_key(&KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn type_str(input: &mut TextInput, s: &str) {
        for c in s.chars() {
            press(input, KeyCode::Char(c));
        }
    }

    #[test]
    fn single_line_submit_cancel_and_no_newlines() {
        let mut t = TextInput::single_line();
        type_str(&mut t, "event 12");
        assert_eq!(press(&mut t, KeyCode::Backspace), InputOutcome::Changed);
        assert_eq!(press(&mut t, KeyCode::Left), InputOutcome::Consumed);
        assert_eq!(
            t.handle_key(&KeyEvent::new(KeyCode::Char('m'), KeyModifiers::CONTROL)),
            InputOutcome::Ignored
        );
        assert_eq!(press(&mut t, KeyCode::Up), InputOutcome::Ignored);
        assert_eq!(press(&mut t, KeyCode::Tab), InputOutcome::Ignored);
        assert_eq!(
            press(&mut t, KeyCode::Enter),
            InputOutcome::Submitted("event 1".into())
        );
        assert_eq!(press(&mut t, KeyCode::Esc), InputOutcome::Cancelled);
        t.insert_str("\nx\ty\u{1b}z\u{202e}");
        assert_eq!(t.text(), "event  x yz1");
    }

    #[test]
    fn ctrl_u_deletes_to_the_line_start_and_ctrl_z_undoes() {
        let mut t = TextInput::single_line();
        for c in "abc def".chars() {
            t.handle_key(&KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        }
        t.handle_key(&KeyEvent::new(KeyCode::Left, KeyModifiers::NONE));
        assert_eq!(
            t.handle_key(&KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)),
            InputOutcome::Changed
        );
        assert_eq!(t.text(), "f");
        t.handle_key(&KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL));
        assert_eq!(t.text(), "abc def");
    }

    #[test]
    fn multi_line_enter_inserts_and_ctrl_s_submits() {
        let mut t = TextInput::multi_line();
        type_str(&mut t, "{");
        press(&mut t, KeyCode::Enter);
        type_str(&mut t, "}");
        assert_eq!(t.text(), "{\n}");
        assert_eq!(
            t.handle_key(&KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL)),
            InputOutcome::Submitted("{\n}".into())
        );
        assert_eq!(
            t.handle_key(&KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT)),
            InputOutcome::Submitted("{\n}".into())
        );
        t.set_text("a\r\nb");
        assert_eq!(t.text(), "a\nb");
    }

    #[test]
    fn control_characters_are_refused_and_validation_clears_on_edit() {
        let mut t = TextInput::single_line().with_text("ab");
        assert_eq!(
            press(&mut t, KeyCode::Char('\u{1b}')),
            InputOutcome::Ignored
        );
        assert_eq!(
            press(&mut t, KeyCode::Char('\u{200f}')),
            InputOutcome::Ignored
        );
        t.set_validation(Some("bad".into()));
        assert_eq!(t.desired_height(), 2);
        type_str(&mut t, "c");
        assert_eq!(t.validation(), None);
        assert_eq!(t.text(), "abc");
        assert_eq!(t.cursor(), (0, 3));
    }
}
