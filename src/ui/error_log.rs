//! The error log: every error the app met (failed fetches, bad pages, dead nodes), timestamped,
//! newest first, kept up to a capacity, and the scrollable overlay (`!`) that shows each one in
//! full, wrapped to the width. Messages are untrusted (server bodies) and sanitized when drawn.

use std::collections::VecDeque;

use crate::ui::layout::{draw_overlay, overlay_block, wrap_text};
use chrono::{DateTime, Local, Utc};
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::config::keymap::{KeyContext, KeyMap};
use crate::msg::Command;
use crate::ui::OverlayOutcome;
use crate::ui::safe::{safe_line, sanitize_multiline};
use crate::ui::scroll::ScrollState;
use crate::ui::theme::Theme;

/// Default number of entries kept.
pub const DEFAULT_CAPACITY: usize = 500;
/// Longest message kept (bytes); longer ones are cut with a note.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024;

/// One logged error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorEntry {
    /// When it happened.
    pub at: DateTime<Utc>,
    /// Where (e.g. `scan`, `ledger`, `history`).
    pub source: String,
    /// The full error text.
    pub message: String,
}

/// The log and the overlay's scroll position (a cursor over entries, newest first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorLog {
    entries: VecDeque<ErrorEntry>,
    capacity: usize,
    scroll: ScrollState,
}

impl Default for ErrorLog {
    fn default() -> Self {
        Self::new(DEFAULT_CAPACITY)
    }
}

impl ErrorLog {
    /// An empty log keeping at most `capacity` entries (at least 1).
    pub fn new(capacity: usize) -> Self {
        ErrorLog {
            entries: VecDeque::new(),
            capacity: capacity.max(1),
            scroll: ScrollState::default(),
        }
    }

    /// Adds an entry (the oldest is dropped when full). The cursor stays on the entry it was
    /// on, so reading is not disturbed by new errors.
    pub fn push(
        &mut self,
        at: DateTime<Utc>,
        source: impl Into<String>,
        message: impl Into<String>,
    ) {
        let mut message = message.into();
        if message.len() > MAX_MESSAGE_BYTES {
            let mut cut = MAX_MESSAGE_BYTES;
            while !message.is_char_boundary(cut) {
                cut -= 1;
            }
            let total = message.len();
            message.truncate(cut);
            message.push_str(&format!("\n… ({total} bytes, cut)"));
        }
        let was_empty = self.entries.is_empty();
        self.entries.push_front(ErrorEntry {
            at,
            source: source.into(),
            message,
        });
        if self.entries.len() > self.capacity {
            self.entries.pop_back();
        }
        self.scroll.set_len(self.entries.len());
        if !was_empty && self.scroll.cursor() + 1 < self.entries.len() {
            self.scroll.down(1);
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entries, newest first.
    pub fn entries(&self) -> impl Iterator<Item = &ErrorEntry> {
        self.entries.iter()
    }

    /// The newest entry.
    pub fn latest(&self) -> Option<&ErrorEntry> {
        self.entries.front()
    }

    /// The entry under the cursor.
    pub fn selected(&self) -> Option<&ErrorEntry> {
        self.entries.get(self.scroll.cursor())
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.scroll = ScrollState::default();
    }

    /// Puts the cursor on the newest entry (call when opening the overlay).
    pub fn reset_view(&mut self) {
        self.scroll.top();
    }

    /// Keys while the overlay is open (`overlay` context): moves, closes on cancel / back /
    /// `error_log`; other commands pass through.
    pub fn handle_key(&mut self, keymap: &KeyMap, key: &KeyEvent) -> OverlayOutcome {
        match keymap.lookup(KeyContext::Overlay, key) {
            Some(cmd) if self.scroll.navigate(cmd) => {}
            Some(Command::Cancel | Command::Back | Command::ErrorLog) => {
                return OverlayOutcome::Close;
            }
            // Only quitting reaches the app; other keys do nothing behind the overlay.
            Some(Command::Quit) => return OverlayOutcome::Passthrough(Command::Quit),
            Some(_) | None => return OverlayOutcome::Ignored,
        }
        OverlayOutcome::Consumed
    }

    /// Draws the overlay (a bordered box filling `area`): per entry a header line (time,
    /// source) and the message wrapped to the width. Only the entries on screen are wrapped.
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme, local_time: bool) {
        let title = format!(" Errors ({}) ", self.entries.len());
        let Some(inner) = draw_overlay(area, buf, overlay_block(title, theme)) else {
            return;
        };
        if self.entries.is_empty() {
            buf.set_line(
                inner.x,
                inner.y,
                &Line::styled(
                    safe_line("no errors", usize::from(inner.width)),
                    theme.muted,
                ),
                inner.width,
            );
            return;
        }
        let width = usize::from(inner.width);
        // Show the cursor entry; entries are variable height, so start from the stored offset
        // clamped to the cursor.
        let mut first = self.scroll.offset().min(self.scroll.cursor());
        if self.scroll.cursor() >= first + usize::from(inner.height) {
            first = self.scroll.cursor();
        }
        let mut y = inner.y;
        let bottom = inner.y + inner.height;
        for (i, entry) in self.entries.iter().enumerate().skip(first) {
            if y >= bottom {
                break;
            }
            let time = if local_time {
                entry
                    .at
                    .with_timezone(&Local)
                    .format("%Y-%m-%d %H:%M:%S")
                    .to_string()
            } else {
                entry.at.format("%Y-%m-%d %H:%M:%SZ").to_string()
            };
            let header = Line::from(vec![
                Span::styled(time, theme.time),
                Span::raw(" "),
                Span::styled(safe_line(&entry.source, width), theme.accent),
            ]);
            buf.set_line(inner.x, y, &header, inner.width);
            if i == self.scroll.cursor() {
                buf.set_style(Rect::new(inner.x, y, inner.width, 1), theme.selection);
            }
            y += 1;
            let body = sanitize_multiline(&entry.message);
            for line in wrap_text(&body, width.saturating_sub(2)) {
                if y >= bottom {
                    break;
                }
                let line = Line::from(vec![Span::raw("  "), Span::styled(line, theme.status_err)]);
                buf.set_line(inner.x, y, &line, inner.width);
                y += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use crossterm::event::{KeyCode, KeyModifiers};

    fn at(s: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(1_700_000_000 + s, 0)
            .single()
            .expect("valid")
    }

    #[test]
    fn newest_first_with_capacity_and_cut() {
        let mut log = ErrorLog::new(2);
        log.push(at(0), "scan", "a");
        log.push(at(1), "scan", "b");
        log.push(at(2), "ledger", "c");
        let msgs: Vec<&str> = log.entries().map(|e| e.message.as_str()).collect();
        assert_eq!(msgs, ["c", "b"]);
        log.push(at(3), "x", "é".repeat(MAX_MESSAGE_BYTES));
        let m = &log.latest().expect("entry").message;
        assert!(m.len() < MAX_MESSAGE_BYTES + 40);
        assert!(m.ends_with(&format!("({} bytes, cut)", 2 * MAX_MESSAGE_BYTES)));
    }

    #[test]
    fn cursor_stays_on_the_entry_being_read() {
        let mut log = ErrorLog::default();
        log.push(at(0), "scan", "first");
        log.push(at(1), "scan", "second");
        let km = KeyMap::defaults();
        log.reset_view();
        let down = KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE);
        assert_eq!(log.handle_key(&km, &down), OverlayOutcome::Consumed);
        assert_eq!(log.selected().map(|e| e.message.as_str()), Some("first"));
        log.push(at(2), "scan", "third");
        assert_eq!(log.selected().map(|e| e.message.as_str()), Some("first"));
        let esc = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
        assert_eq!(log.handle_key(&km, &esc), OverlayOutcome::Close);
        let bang = KeyEvent::new(KeyCode::Char('!'), KeyModifiers::NONE);
        assert_eq!(log.handle_key(&km, &bang), OverlayOutcome::Close);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(
            log.handle_key(&km, &ctrl_c),
            OverlayOutcome::Passthrough(Command::Quit)
        );
    }
}
