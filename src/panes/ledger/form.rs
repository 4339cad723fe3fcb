//! A small form of labelled single-line [`TextInput`]s, as the sections of the Ledger pane use
//! them: ↑/↓ (and Shift-Tab) move between fields, Tab completes the word under the cursor from
//! the field's candidates (parties seen in the history, package ids) or moves to the next field
//! when there is nothing to complete, Enter submits the whole form, Esc cancels.
//!
//! ```text
//! party          alice::1220…▏
//! more parties   bob::1220…, carol
//! idp id         (default)
//! Enter look up · ↑/↓ field · Tab complete · Esc cancel
//!   bob::1220ab…   bob-2::1220cd…
//! ```

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::ui::safe::safe_line;
use crate::ui::text_input::{InputOutcome, TextInput};
use crate::ui::theme::Theme;

/// What candidates a field completes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Complete {
    None,
    /// Party ids (the last word of a list).
    Party,
    /// Package ids.
    Package,
}

/// One labelled input.
#[derive(Debug, Clone)]
pub struct Field {
    pub label: &'static str,
    pub input: TextInput,
    pub complete: Complete,
}

/// What a key did to the form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormOutcome {
    Submitted,
    Cancelled,
    /// Text, focus or completion changed (or nothing visible happened).
    Changed,
}

/// Tab-completion in progress: the typed word and the matches being cycled.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cycle {
    field: usize,
    matches: Vec<String>,
    next: usize,
    /// The field text after the last completion (any other text ends the cycle).
    text: String,
}

/// Labelled inputs with one focused.
#[derive(Debug, Clone)]
pub struct Form {
    pub fields: Vec<Field>,
    pub focus: usize,
    /// What Enter does, for the hint row (`look up`, `download`…).
    pub submit_label: &'static str,
    cycle: Option<Cycle>,
}

/// Most completion candidates listed under the form.
const MAX_SHOWN: usize = 8;

/// The word completed in `text`: after the last comma or space.
fn word_start(text: &str) -> usize {
    text.rfind([',', ' ']).map_or(0, |i| i + 1)
}

/// Candidates matching `word`: the form kit's completion order (prefix matches first, then
/// substring matches; a party's name before its fingerprint).
pub fn matching(candidates: &[String], word: &str) -> Vec<String> {
    crate::ui::form::matching(candidates, word)
        .into_iter()
        .map(str::to_string)
        .collect()
}

impl Form {
    pub fn new(
        submit_label: &'static str,
        fields: Vec<(&'static str, &str, &str, Complete)>,
    ) -> Self {
        Form {
            fields: fields
                .into_iter()
                .map(|(label, text, placeholder, complete)| Field {
                    label,
                    input: TextInput::single_line()
                        .with_placeholder(placeholder)
                        .with_text(text),
                    complete,
                })
                .collect(),
            focus: 0,
            submit_label,
            cycle: None,
        }
    }

    /// The text of field `i`, trimmed.
    pub fn value(&self, i: usize) -> String {
        self.fields
            .get(i)
            .map(|f| f.input.text().trim().to_string())
            .unwrap_or_default()
    }

    /// Puts an error under field `i` and focuses it.
    pub fn fail(&mut self, i: usize, message: impl Into<String>) {
        if let Some(f) = self.fields.get_mut(i) {
            f.input.set_validation(Some(message.into()));
            self.focus = i;
        }
    }

    /// The focused field's completion kind and current word.
    pub fn completing(&self) -> Option<(Complete, String)> {
        let f = self.fields.get(self.focus)?;
        if f.complete == Complete::None {
            return None;
        }
        let text = f.input.text();
        Some((f.complete, text[word_start(&text)..].to_string()))
    }

    fn move_focus(&mut self, delta: isize) {
        let n = self.fields.len().max(1) as isize;
        self.focus = (self.focus as isize + delta).rem_euclid(n) as usize;
        self.cycle = None;
        if let Some(f) = self.fields.get_mut(self.focus) {
            f.input.move_to_end();
        }
    }

    /// Tab: completes the word from `candidates` (cycling on repeated Tabs), or moves on when
    /// there is nothing to complete.
    fn complete(&mut self, candidates: &[String]) {
        let i = self.focus;
        let Some(field) = self.fields.get_mut(i) else {
            return;
        };
        let text = field.input.text();
        let cycling = self
            .cycle
            .as_ref()
            .is_some_and(|c| c.field == i && c.text == text && !c.matches.is_empty());
        if !cycling {
            let start = word_start(&text);
            let matches = if field.complete == Complete::None {
                Vec::new()
            } else {
                matching(candidates, &text[start..])
            };
            // A word that is already the only match: move on.
            if matches.is_empty() || (matches.len() == 1 && matches[0] == text[start..]) {
                self.move_focus(1);
                return;
            }
            self.cycle = Some(Cycle {
                field: i,
                matches,
                next: 0,
                text: String::new(),
            });
        }
        let Some(c) = self.cycle.as_mut() else {
            return;
        };
        let pick = c.matches[c.next % c.matches.len()].clone();
        c.next = (c.next + 1) % c.matches.len();
        let start = word_start(&text);
        let mut new_text = text[..start].to_string();
        if start > 0 && !new_text.ends_with(' ') {
            new_text.push(' ');
        }
        new_text.push_str(&pick);
        field.input.set_text(&new_text);
        c.text = field.input.text();
    }

    /// A raw key; `candidates` are the completion candidates of the focused field.
    pub fn handle_key(&mut self, key: &KeyEvent, candidates: &[String]) -> FormOutcome {
        let Some(field) = self.fields.get_mut(self.focus) else {
            return FormOutcome::Cancelled;
        };
        match field.input.handle_key(key) {
            InputOutcome::Submitted(_) => FormOutcome::Submitted,
            InputOutcome::Cancelled => FormOutcome::Cancelled,
            InputOutcome::Changed => {
                self.cycle = None;
                FormOutcome::Changed
            }
            InputOutcome::Consumed => FormOutcome::Changed,
            InputOutcome::Ignored => {
                match key.code {
                    KeyCode::BackTab => self.move_focus(-1),
                    // ↑/↓ stop at the first and last field (Tab/Shift-Tab wrap).
                    KeyCode::Up if self.focus > 0 => self.move_focus(-1),
                    KeyCode::Down if self.focus + 1 < self.fields.len() => self.move_focus(1),
                    KeyCode::Up | KeyCode::Down => {}
                    KeyCode::Tab => self.complete(candidates),
                    _ => {}
                }
                FormOutcome::Changed
            }
        }
    }

    /// Pasted text goes into the focused field.
    pub fn paste(&mut self, text: &str) {
        if let Some(f) = self.fields.get_mut(self.focus) {
            f.input.insert_str(text);
            self.cycle = None;
        }
    }

    /// Rows needed: the fields (with their validation rows), the hint row and, when completing,
    /// one row of suggestions.
    pub fn height(&self, suggestions: usize) -> u16 {
        let fields: u16 = self.fields.iter().map(|f| f.input.desired_height()).sum();
        fields + 1 + u16::from(suggestions > 0)
    }

    /// Draws the form; `suggestions` are the candidates matching the focused field's word.
    /// Returns the rows used.
    pub fn render(
        &self,
        area: Rect,
        buf: &mut Buffer,
        theme: &Theme,
        suggestions: &[String],
    ) -> u16 {
        if area.width == 0 || area.height == 0 {
            return 0;
        }
        let label_w = self
            .fields
            .iter()
            .map(|f| f.label.width())
            .max()
            .unwrap_or(0)
            + 2;
        let label_w = label_w.min(usize::from(area.width) / 3);
        let mut y = 0u16;
        for (i, f) in self.fields.iter().enumerate() {
            if y >= area.height {
                return y;
            }
            let focused = i == self.focus;
            let label = safe_line(f.label, label_w.saturating_sub(1)).into_owned();
            let style = if focused { theme.title } else { theme.muted };
            let marker = if focused { "›" } else { " " };
            buf.set_line(
                area.x,
                area.y + y,
                &Line::from(vec![
                    Span::styled(marker, theme.accent),
                    Span::styled(label, style),
                ]),
                area.width,
            );
            let x = (label_w as u16 + 1).min(area.width);
            let h = f.input.desired_height().min(area.height - y);
            let rect = Rect::new(area.x + x, area.y + y, area.width - x, h);
            f.input.render(rect, buf, theme, focused);
            y += h;
        }
        if y < area.height {
            let hint = format!(
                "Enter {} · ↑/↓ field · Tab complete/next · Esc cancel",
                self.submit_label
            );
            buf.set_line(
                area.x,
                area.y + y,
                &Line::styled(
                    safe_line(&hint, usize::from(area.width)).into_owned(),
                    theme.muted,
                ),
                area.width,
            );
            y += 1;
        }
        if !suggestions.is_empty() && y < area.height {
            let mut spans = vec![Span::styled("  ", theme.muted)];
            let mut used = 2usize;
            let width = usize::from(area.width);
            for s in suggestions.iter().take(MAX_SHOWN) {
                let room = width.saturating_sub(used + 3);
                if room < 6 {
                    break;
                }
                let shown = safe_line(s, room.min(40)).into_owned();
                used += shown.width() + 3;
                spans.push(Span::styled(shown, theme.party));
                spans.push(Span::raw("   "));
            }
            if suggestions.len() > MAX_SHOWN {
                let more = format!("+{}", suggestions.len() - MAX_SHOWN);
                if used + more.width() <= width {
                    spans.push(Span::styled(more, theme.muted));
                }
            }
            buf.set_line(area.x, area.y + y, &Line::from(spans), area.width);
            y += 1;
        }
        y
    }
}

/// A raw key for a section's form, if one is open (`None`: no form). Esc closes it here; the
/// section acts on `Submitted`. `candidates` are the completion candidates of the focused
/// field.
pub fn form_key(
    form: &mut Option<Form>,
    key: &KeyEvent,
    candidates: impl FnOnce(&Form) -> Vec<String>,
) -> Option<FormOutcome> {
    let f = form.as_mut()?;
    let cands = candidates(f);
    let outcome = f.handle_key(key, &cands);
    if outcome == FormOutcome::Cancelled {
        *form = None;
    }
    Some(outcome)
}

/// Pasted text for a section's form, if one is open; returns whether it took it.
pub fn form_paste(form: &mut Option<Form>, text: &str) -> bool {
    form.as_mut().map(|f| f.paste(text)).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn tab_completes_the_last_word_and_cycles() {
        let cands: Vec<String> = ["alice::1", "bob::2", "albert::3"]
            .iter()
            .map(|s| (*s).to_string())
            .collect();
        let mut f = Form::new(
            "go",
            vec![
                ("parties", "bob::2, al", "", Complete::Party),
                ("x", "", "", Complete::None),
            ],
        );
        f.handle_key(&key(KeyCode::Tab), &cands);
        assert_eq!(f.value(0), "bob::2, albert::3");
        f.handle_key(&key(KeyCode::Tab), &cands);
        assert_eq!(f.value(0), "bob::2, alice::1");
        // Typing ends the cycle; a complete word moves on.
        f.fields[0].input.set_text("bob::2");
        f.handle_key(&key(KeyCode::Char('x')), &cands);
        f.handle_key(&key(KeyCode::Backspace), &cands);
        f.handle_key(&key(KeyCode::Tab), &cands);
        assert_eq!(f.focus, 1);
        // Nothing to complete: Tab moves on (wrapping).
        f.handle_key(&key(KeyCode::Tab), &cands);
        assert_eq!(f.focus, 0);
        f.handle_key(&key(KeyCode::Up), &cands);
        assert_eq!(f.focus, 0, "↑ stops at the first field");
        f.handle_key(&key(KeyCode::Down), &cands);
        f.handle_key(&key(KeyCode::Down), &cands);
        assert_eq!(f.focus, 1, "↓ stops at the last field");
        assert_eq!(
            f.handle_key(&key(KeyCode::Enter), &cands),
            FormOutcome::Submitted
        );
        assert_eq!(
            f.handle_key(&key(KeyCode::Esc), &cands),
            FormOutcome::Cancelled
        );
    }

    #[test]
    fn tiny_areas_do_not_panic() {
        let f = Form::new("go", vec![("a", "x", "", Complete::None)]);
        let mut buf = Buffer::empty(Rect::new(0, 0, 3, 1));
        for (w, h) in [(0, 0), (1, 1), (3, 1)] {
            f.render(
                Rect::new(0, 0, w, h),
                &mut buf,
                &Theme::default(),
                &["s".into()],
            );
        }
    }
}
