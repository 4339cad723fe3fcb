//! The status line and its toasts: one short message at a time (info, success, warning, error)
//! that expires after a while, drawn on the bottom row with an optional right-aligned text
//! (e.g. "3 errors · ! log"). Time is passed in (`now`), never read here, so `App::update`
//! stays pure.

use std::time::{Duration, Instant};

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::ui::safe::safe_line;
use crate::ui::theme::Theme;

/// How long a toast stays by default.
pub const DEFAULT_TOAST_TTL: Duration = Duration::from_secs(5);
/// How long an error toast stays by default.
pub const ERROR_TOAST_TTL: Duration = Duration::from_secs(10);

/// A toast's kind (its colour and prefix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToastLevel {
    /// Neutral information.
    Info,
    /// Something worked (copied, saved).
    Success,
    /// Degraded (node slow, paused).
    Warn,
    /// Something failed; the full error is in the error log.
    Error,
}

/// One message in the status line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toast {
    /// Kind.
    pub level: ToastLevel,
    /// Text (may come from a server: sanitized when drawn).
    pub message: String,
    /// When it was shown.
    pub shown_at: Instant,
    /// How long it stays.
    pub ttl: Duration,
}

impl Toast {
    /// Whether it has expired at `now`.
    pub fn is_expired(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.shown_at) >= self.ttl
    }
}

/// The status line state: the current toast, if any.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusLine {
    toast: Option<Toast>,
}

impl StatusLine {
    /// Shows a toast (replacing the current one) with the default time to live for its level.
    pub fn show(&mut self, level: ToastLevel, message: impl Into<String>, now: Instant) {
        let ttl = match level {
            ToastLevel::Error => ERROR_TOAST_TTL,
            _ => DEFAULT_TOAST_TTL,
        };
        self.show_for(level, message, now, ttl);
    }

    /// Shows a toast for `ttl`.
    pub fn show_for(
        &mut self,
        level: ToastLevel,
        message: impl Into<String>,
        now: Instant,
        ttl: Duration,
    ) {
        self.toast = Some(Toast {
            level,
            message: message.into(),
            shown_at: now,
            ttl,
        });
    }

    /// Removes the toast if it expired; true when that changed the screen.
    pub fn expire(&mut self, now: Instant) -> bool {
        if self.toast.as_ref().is_some_and(|t| t.is_expired(now)) {
            self.toast = None;
            true
        } else {
            false
        }
    }

    /// Removes the toast.
    pub fn clear(&mut self) {
        self.toast = None;
    }

    /// The current toast.
    pub fn current(&self) -> Option<&Toast> {
        self.toast.as_ref()
    }

    /// When the current toast expires (for scheduling the next tick).
    pub fn deadline(&self) -> Option<Instant> {
        self.toast.as_ref().map(|t| t.shown_at + t.ttl)
    }

    /// Draws the toast on the left and `right` (caller's text, e.g. the error count) on the
    /// right; the toast is cut first when space is short.
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme, right: &str) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let area = Rect::new(area.x, area.y, area.width, 1);
        buf.set_style(area, theme.status_line);
        let width = usize::from(area.width);
        let right = safe_line(right, width);
        let right_w = right.width();
        if right_w > 0 {
            let x = area.x + (width - right_w) as u16;
            buf.set_line(x, area.y, &Line::styled(right, theme.muted), right_w as u16);
        }
        let Some(toast) = &self.toast else { return };
        let room = width.saturating_sub(right_w + usize::from(right_w > 0));
        let (prefix, style): (&str, Style) = match toast.level {
            ToastLevel::Info => ("", theme.status_line),
            ToastLevel::Success => ("✓ ", theme.status_ok),
            ToastLevel::Warn => ("! ", theme.status_warn),
            ToastLevel::Error => ("✗ ", theme.status_err),
        };
        let prefix_w = prefix.width().min(room);
        let text = safe_line(&toast.message, room.saturating_sub(prefix_w));
        let line = Line::from(vec![Span::styled(prefix, style), Span::styled(text, style)]);
        buf.set_line(area.x, area.y, &line, room as u16);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toasts_expire() {
        let t0 = Instant::now();
        let mut s = StatusLine::default();
        s.show(ToastLevel::Info, "copied", t0);
        assert!(!s.expire(t0 + Duration::from_secs(1)));
        assert_eq!(s.deadline(), Some(t0 + DEFAULT_TOAST_TTL));
        assert!(s.expire(t0 + DEFAULT_TOAST_TTL));
        assert!(s.current().is_none());
        assert!(!s.expire(t0 + DEFAULT_TOAST_TTL));
        s.show(ToastLevel::Error, "boom", t0);
        assert!(!s.expire(t0 + DEFAULT_TOAST_TTL));
    }

    #[test]
    fn render_cuts_toast_before_right_text() {
        let mut s = StatusLine::default();
        s.show(
            ToastLevel::Error,
            "scan down: \u{1b}[31mconnection refused",
            Instant::now(),
        );
        let mut buf = Buffer::empty(Rect::new(0, 0, 30, 1));
        s.render(buf.area, &mut buf, &Theme::default(), "2 errors");
        let row: String = (0..30).map(|x| buf[(x, 0)].symbol().to_string()).collect();
        assert_eq!(row, "✗ scan down: ␛connec… 2 errors");
    }
}
