//! Helpers shared by the sections of the Ledger pane: drawing a block of wrapped notes (what
//! `ui::explain` says of a failed call, among them), key-value rows, a dialog frame and number formatting. Every server string goes through
//! `sanitize` / `safe_line` before it reaches the buffer.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};
use unicode_width::UnicodeWidthStr;

use crate::msg::Command;
use crate::panes::{Out, Shared};
use crate::ui::explain::{Note, Tone};
use crate::ui::form::Form;
use crate::ui::layout::wrap_text;
use crate::ui::safe::{safe_line, sanitize};
use crate::ui::theme::Theme;

/// What read-only mode means here.
pub const READ_ONLY_TEXT: &str = "read-only: delete and execute are disabled";

/// The footer hints of a section while its query form is open.
pub const FORM_HINTS: [Command; 3] = [Command::Confirm, Command::Complete, Command::Cancel];

/// The footer hints of a section's answer list: edit the query, open, copy, next section.
pub const LIST_HINTS: [Command; 4] = [
    Command::Edit,
    Command::Select,
    Command::Copy,
    Command::NextSection,
];

/// What a section says in read-only mode: that `what` (`users cannot be deleted`) from here.
pub fn read_only_notes(what: &str) -> [Note; 2] {
    [
        Note::new(Tone::Warn, READ_ONLY_TEXT),
        Note::new(
            Tone::Muted,
            format!(
                "Read-only mode is on (--read-only, or read_only = true in the profile): {what} \
                 from here."
            ),
        ),
    ]
}

/// Whether read-only mode forbids a state-changing action; if so, says so in the status line.
pub fn refuse_read_only(sh: &Shared, out: &mut Out) -> bool {
    if sh.ctx.read_only {
        out.warn(format!(
            "{READ_ONLY_TEXT} (--read-only / read_only in the profile)"
        ));
    }
    sh.ctx.read_only
}

/// A muted `reading {path}…` row at `y` of `area` (a file read in flight).
pub fn reading_line(area: Rect, y: u16, buf: &mut Buffer, path: &str, theme: &Theme) {
    put_safe(area, y, buf, &format!("reading {path}…"), theme.muted);
}

/// What a query section shows around its answer: its form (when open) on top, then a line
/// while the request is in flight, the notes of a failure, or the intro until the first answer.
pub struct SectionState<'a> {
    pub form: Option<&'a Form>,
    /// What Enter does in the form (`look up`, `query`).
    pub submit: &'a str,
    /// The line shown while the request is in flight.
    pub pending: Option<&'a str>,
    pub error: Option<&'a [Note]>,
    pub answered: bool,
    pub intro: &'a [Note],
}

impl SectionState<'_> {
    /// Draws the state; returns the area left for the answer once there is one.
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) -> Option<Rect> {
        let rest = Form::render_section_above(self.form, area, buf, theme, self.submit);
        if let Some(p) = self.pending {
            put(rest, 0, buf, &Line::styled(p.to_string(), theme.muted));
        } else if let Some(err) = self.error {
            render_notes(err, rest, buf, theme);
        } else if !self.answered {
            if self.form.is_none() {
                render_notes(self.intro, rest, buf, theme);
            }
        } else {
            return Some(rest);
        }
        None
    }
}

/// Draws notes wrapped to the width of `area`, from its top; returns the rows used.
pub fn render_notes(notes: &[Note], area: Rect, buf: &mut Buffer, theme: &Theme) -> u16 {
    let mut y = 0u16;
    if area.width == 0 {
        return 0;
    }
    for n in notes {
        let text = sanitize(&n.text);
        for line in wrap_text(&text, usize::from(area.width)) {
            if y >= area.height {
                return y;
            }
            let shown = safe_line(&line, usize::from(area.width));
            buf.set_line(
                area.x,
                area.y + y,
                &Line::styled(shown.into_owned(), n.tone.style(theme)),
                area.width,
            );
            y += 1;
        }
    }
    y
}

/// Rows [`render_notes`] needs at `width`.
pub fn notes_height(notes: &[Note], width: u16) -> u16 {
    if width == 0 {
        return 0;
    }
    let n: usize = notes
        .iter()
        .map(|n| wrap_text(&sanitize(&n.text), usize::from(width)).len())
        .sum();
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// A `label value` row: the label muted in a column of `label_w`, the value sanitized and cut.
pub fn kv_line(
    label: &str,
    value: &str,
    style: Style,
    label_w: usize,
    width: u16,
    theme: &Theme,
) -> Line<'static> {
    let width = usize::from(width);
    let label = format!("{label:<label_w$} ");
    let label = safe_line(&label, width).into_owned();
    let left = width.saturating_sub(label.width());
    let value = safe_line(value, left).into_owned();
    Line::from(vec![
        Span::styled(label, theme.muted),
        Span::styled(value, style),
    ])
}

/// Draws a one-line `line` at row `y` of `area` when it is inside.
pub fn put(area: Rect, y: u16, buf: &mut Buffer, line: &Line<'_>) {
    if y < area.height && area.width > 0 {
        buf.set_line(area.x, area.y + y, line, area.width);
    }
}

/// Draws `text` in one `style` at row `y` of `area` when it is inside (a waiting text, a note).
pub fn put_styled(area: Rect, y: u16, buf: &mut Buffer, text: &str, style: Style) {
    put(area, y, buf, &Line::styled(text, style));
}

/// Draws untrusted `text` (sanitised, cut to the width with an ellipsis) in one `style` at row
/// `y` of `area` when it is inside.
pub fn put_safe(area: Rect, y: u16, buf: &mut Buffer, text: &str, style: Style) {
    let text = safe_line(text, usize::from(area.width)).into_owned();
    put(area, y, buf, &Line::styled(text, style));
}

/// Clears a centred box of `w`×`h` inside `area` with a bordered title and returns its inner area.
pub fn dialog(area: Rect, w: u16, h: u16, title: &str, buf: &mut Buffer, theme: &Theme) -> Rect {
    let rect = crate::ui::layout::centered(area, w, h);
    if rect.width < 2 || rect.height < 2 {
        return Rect::new(rect.x, rect.y, 0, 0);
    }
    Clear.render(rect, buf);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused)
        .style(theme.overlay)
        .title(Span::styled(
            safe_line(
                &format!(" {title} "),
                usize::from(rect.width.saturating_sub(2)),
            )
            .into_owned(),
            theme.title,
        ));
    let inner = block.inner(rect);
    block.render(rect, buf);
    inner
}

/// Splits a list typed by the user (commas and/or spaces) into its non-empty items.
pub fn split_list(s: &str) -> Vec<String> {
    s.split([',', ' ', '\t'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The package id of a template id (`pkg:Module:Entity` → `pkg`).
pub fn package_of(template_id: &str) -> Option<&str> {
    match template_id.split_once(':') {
        Some((pkg, rest)) if rest.contains(':') && !pkg.is_empty() => Some(pkg),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_packages() {
        assert_eq!(split_list(" a, b  c,,"), vec!["a", "b", "c"]);
        assert_eq!(package_of("abc:Mod.X:T"), Some("abc"));
        assert_eq!(package_of("#name:Mod:T"), Some("#name"));
        assert_eq!(package_of("Mod:T"), None);
    }
}
