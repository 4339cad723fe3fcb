//! Drawing the form: inline above what it queries, as a Ledger section form (marker, submit
//! label, suggestions), or as a dialog over a pane (help line, completion candidates).
//!
//! ```text
//! inline                         section                          dialog
//! Party  alice::1220ab█          ›party        alice::1220ab█     ┌ Holdings query ─────────┐
//! Nonce  3                        more parties  2 parties: a, b ·  │Owners    █              │
//! ↵ run · Tab complete · …       Enter look up · ↑/↓ field · …    │Match     (•) a  ( ) b   │
//!                                  alice::1220…   alice-2::…      │3 owners: a, b, c        │
//!                                                                 │help / note / error      │
//!                                                                 │1/2 alice::…  alice-2::… │
//!                                                                 │Enter run · Esc close    │
//!                                                                 └─────────────────────────┘
//! ```

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Widget};
use unicode_width::UnicodeWidthStr;

use crate::ui::layout::centered;
use crate::ui::safe::safe_line;
use crate::ui::theme::Theme;

use super::{Field, Form, Kind, id_list_rows, id_list_summary, render_id_list};

/// Most suggestions listed under a section form.
const MAX_SHOWN: usize = 8;

impl Field {
    /// Rows the ids of a list take under the field at `width` (0 for other fields).
    fn list_rows(&self, width: u16) -> u16 {
        match self.kind {
            Kind::List { rows: 1, .. } => 1,
            Kind::List { rows, .. } if rows > 1 && !self.items.is_empty() => {
                rows.min(id_list_rows(&self.items, width))
            }
            _ => 0,
        }
    }

    /// Rows of the field drawn inline (text with its message, and a list's ids).
    fn inline_height(&self, width: u16) -> u16 {
        match self.kind {
            Kind::Choice { .. } => 1,
            _ => self.input.desired_height() + self.list_rows(width),
        }
    }

    /// Draws the value on the first row of `area` (and the rows a text needs below it).
    fn render_value(&self, area: Rect, buf: &mut Buffer, theme: &Theme, active: bool) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        match &self.kind {
            Kind::Choice { options, selected } => {
                let spans: Vec<Span> = options
                    .iter()
                    .enumerate()
                    .map(|(i, o)| {
                        let on = i == *selected;
                        Span::styled(
                            format!("({}) {o}  ", if on { "•" } else { " " }),
                            if on { theme.accent } else { theme.muted },
                        )
                    })
                    .collect();
                let line = Line::from(spans);
                let w = u16::try_from(line.width()).unwrap_or(u16::MAX);
                buf.set_line(area.x, area.y, &line, area.width);
                if active {
                    buf.set_style(
                        Rect::new(area.x, area.y, w.min(area.width), 1),
                        theme.selection,
                    );
                }
            }
            Kind::List { noun, rows: 0 } if !self.items.is_empty() => {
                // The count and names in front of the entry.
                let room = usize::from(area.width / 2);
                let head = format!("{} · ", id_list_summary(&self.items, *noun, room));
                let head = safe_line(&head, usize::from(area.width)).into_owned();
                let w = u16::try_from(head.width())
                    .unwrap_or(u16::MAX)
                    .min(area.width);
                buf.set_stringn(area.x, area.y, &head, usize::from(area.width), theme.party);
                let rest = Rect::new(area.x + w, area.y, area.width - w, area.height);
                self.input.render(rest, buf, theme, active);
            }
            _ => self.input.render(area, buf, theme, active),
        }
    }

    /// Draws a list's ids in `area` (the rows of [`Field::list_rows`]).
    fn render_list(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let Kind::List { noun, rows } = self.kind else {
            return;
        };
        if area.height == 0 || area.width == 0 || self.items.is_empty() {
            return;
        }
        if rows == 1 {
            let w = usize::from(area.width);
            let line = id_list_summary(&self.items, noun, w);
            buf.set_stringn(area.x, area.y, line, w, theme.muted);
        } else {
            render_id_list(&self.items, noun, area, buf, theme);
        }
    }
}

impl Form {
    // --- inline ---------------------------------------------------------------------------

    /// Rows needed inline: the fields (with their messages and lists) and the hint line.
    pub fn height(&self) -> u16 {
        self.height_at(u16::MAX)
    }

    fn height_at(&self, width: u16) -> u16 {
        self.fields
            .iter()
            .map(|f| f.inline_height(width))
            .sum::<u16>()
            + 1
    }

    /// Draws the form at the top of `area` and returns what is left below it (after one blank
    /// row between the form and what it queried).
    pub fn render_above(&self, area: Rect, buf: &mut Buffer, theme: &Theme) -> Rect {
        let h = self.height_at(area.width).min(area.height);
        self.render(Rect::new(area.x, area.y, area.width, h), buf, theme);
        let used = (h + 1).min(area.height);
        Rect::new(area.x, area.y + used, area.width, area.height - used)
    }

    /// Draws the fields and a hint line (inline, as the Network and Proxy sections do).
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let Some(y) = self.render_fields(area, buf, theme, false) else {
            return;
        };
        if y < area.bottom() {
            let text = if let Some(n) = &self.note {
                n.clone()
            } else {
                let matches = self.matches().len();
                let tab = if matches > 0 {
                    format!(
                        "Tab complete ({matches} match{})",
                        if matches == 1 { "" } else { "es" }
                    )
                } else {
                    "Tab next field".to_string()
                };
                format!("↵ run · {tab} · ↑↓ field · Esc cancel")
            };
            let style = if self.note.is_some() {
                theme.status_warn
            } else {
                theme.muted
            };
            hint_line(area, y, buf, &text, style);
        }
    }

    /// Draws the fields from the top of `area`, labels in a column (`marked`: a `›` before the
    /// active label and two columns more, as the Ledger sections draw them); returns the row
    /// below them, or `None` when `area` is empty.
    fn render_fields(
        &self,
        area: Rect,
        buf: &mut Buffer,
        theme: &Theme,
        marked: bool,
    ) -> Option<u16> {
        if area.width == 0 || area.height == 0 {
            return None;
        }
        let widest = self
            .fields
            .iter()
            .map(|f| f.label.width())
            .max()
            .unwrap_or(0)
            + if marked { 2 } else { 0 };
        let label_w = widest.min(usize::from(area.width) / 3) as u16;
        let mut y = area.y;
        for (i, f) in self.fields.iter().enumerate() {
            if y >= area.bottom() {
                return Some(y);
            }
            let active = i == self.active;
            if marked {
                let label = safe_line(f.label, usize::from(label_w.saturating_sub(1))).into_owned();
                let style = if active { theme.title } else { theme.muted };
                let line = Line::from(vec![
                    Span::styled(if active { "›" } else { " " }, theme.accent),
                    Span::styled(label, style),
                ]);
                buf.set_line(area.x, y, &line, area.width);
            } else {
                let style = if active { theme.accent } else { theme.muted };
                buf.set_stringn(area.x, y, f.label, usize::from(label_w), style);
            }
            let x = (area.x + label_w + 1).min(area.right());
            let list = f.list_rows(area.width);
            let h = f.inline_height(area.width).min(area.bottom() - y);
            let value_h = h.saturating_sub(list).max(1);
            f.render_value(
                Rect::new(x, y, area.right() - x, value_h),
                buf,
                theme,
                active,
            );
            if list > 0 && y + value_h < area.bottom() {
                let lh = list.min(area.bottom() - y - value_h);
                f.render_list(Rect::new(x, y + value_h, area.right() - x, lh), buf, theme);
            }
            y += h.max(1);
        }
        Some(y)
    }

    // --- Ledger section -------------------------------------------------------------------

    /// Matches of what the active field holds, listed under a section form while typing.
    pub fn suggestions(&self) -> Vec<&str> {
        match self.fields.get(self.active) {
            Some(f) if !f.typed().is_empty() && !f.candidates.is_empty() => self.matches(),
            _ => Vec::new(),
        }
    }

    /// Rows a section form needs at `width`: the fields, the hint row and, while there are
    /// suggestions, one row of them.
    pub fn section_height(&self, width: u16) -> u16 {
        self.height_at(width) + u16::from(!self.suggestions().is_empty())
    }

    /// Draws a section form (`submit` names what Enter does: `look up`, `download`…) and
    /// returns the rows used.
    pub fn render_section(&self, area: Rect, buf: &mut Buffer, theme: &Theme, submit: &str) -> u16 {
        let area = Rect::new(
            area.x,
            area.y,
            area.width,
            self.section_height(area.width).min(area.height),
        );
        let Some(mut y) = self.render_fields(area, buf, theme, true) else {
            return 0;
        };
        if y < area.bottom() {
            let (text, style) = if let Some(n) = &self.note {
                (n.clone(), theme.status_warn)
            } else {
                let more = if self.fields.len() > 1 {
                    " · ↑/↓ field · Tab complete/next"
                } else if self.fields.iter().any(|f| !f.candidates.is_empty()) {
                    " · Tab complete"
                } else {
                    ""
                };
                (format!("Enter {submit}{more} · Esc cancel"), theme.muted)
            };
            hint_line(area, y, buf, &text, style);
            y += 1;
        }
        let sugg = self.suggestions();
        if !sugg.is_empty() && y < area.bottom() {
            let mut spans = vec![Span::styled("  ", theme.muted)];
            let mut used = 2usize;
            let width = usize::from(area.width);
            for s in sugg.iter().take(MAX_SHOWN) {
                let room = width.saturating_sub(used + 3);
                if room < 6 {
                    break;
                }
                let shown = safe_line(s, room.min(40)).into_owned();
                used += shown.width() + 3;
                spans.push(Span::styled(shown, theme.party));
                spans.push(Span::raw("   "));
            }
            if sugg.len() > MAX_SHOWN {
                let more = format!("+{}", sugg.len() - MAX_SHOWN);
                if used + more.width() <= width {
                    spans.push(Span::styled(more, theme.muted));
                }
            }
            buf.set_line(area.x, y, &Line::from(spans), area.width);
            y += 1;
        }
        y - area.y
    }

    /// Draws a section form above the rest of `area` (when there is one) and returns what is
    /// left below it, after a blank row.
    pub fn render_section_above(
        form: Option<&Form>,
        area: Rect,
        buf: &mut Buffer,
        theme: &Theme,
        submit: &str,
    ) -> Rect {
        let Some(form) = form else {
            return area;
        };
        let used = (form.render_section(area, buf, theme, submit) + 1).min(area.height);
        Rect::new(area.x, area.y + used, area.width, area.height - used)
    }

    // --- dialog ---------------------------------------------------------------------------

    /// Draws the form as a dialog titled `title` centred over `area`: one row per field, the
    /// lists of ids, a line with the active field's message (or the note, or `help`), the
    /// candidates of a running completion and the keys.
    pub fn render_dialog(
        &self,
        area: Rect,
        buf: &mut Buffer,
        theme: &Theme,
        title: &str,
        help: &str,
    ) {
        let inner_w = area.width.min(100).saturating_sub(2);
        let cap = (area.height / 3).max(1);
        let lists: Vec<u16> = self
            .fields
            .iter()
            .map(|f| f.list_rows(inner_w).min(cap))
            .collect();
        let completing = self.cycle().is_some();
        let rows = self.fields.len() as u16 + lists.iter().sum::<u16>();
        let height = 2 + rows + 1 + u16::from(completing) + 1;
        let rect = centered(area, area.width.min(100), height);
        if rect.width < 3 || rect.height < 3 {
            return;
        }
        Clear.render(rect, buf);
        let block = Block::bordered()
            .border_style(theme.border_focused)
            .style(theme.overlay)
            .title(Span::styled(format!(" {title} "), theme.title));
        let inner = block.inner(rect);
        block.render(rect, buf);
        let label_w = (self
            .fields
            .iter()
            .map(|f| f.label.width())
            .max()
            .unwrap_or(0)
            + 1)
        .min(usize::from(inner.width)) as u16;
        let bottom = inner.bottom();
        let mut y = inner.y;
        for (i, f) in self.fields.iter().enumerate() {
            if y >= bottom {
                return;
            }
            let active = i == self.active;
            let style = if active { theme.accent } else { theme.muted };
            buf.set_stringn(inner.x, y, f.label, usize::from(label_w), style);
            let vx = inner.x + label_w;
            f.render_value(
                Rect::new(vx, y, inner.width - label_w, 1),
                buf,
                theme,
                active,
            );
            y += 1;
        }
        // The lists of ids under the fields: every id, or how many, never only the tail.
        for (f, h) in self.fields.iter().zip(lists) {
            if h == 0 {
                continue;
            }
            if y >= bottom {
                return;
            }
            let h = h.min(bottom - y);
            f.render_list(Rect::new(inner.x, y, inner.width, h), buf, theme);
            y += h;
        }
        let w = usize::from(inner.width);
        if y < bottom {
            let (text, style) = if let Some(e) = self.error(self.active) {
                (e.to_string(), theme.status_err)
            } else if let Some(n) = &self.note {
                (n.clone(), theme.status_warn)
            } else {
                (help.to_string(), theme.muted)
            };
            buf.set_stringn(inner.x, y, safe_line(&text, w), w, style);
            y += 1;
        }
        if let Some((cands, index)) = self.cycle()
            && y < bottom
        {
            render_candidates(
                cands,
                index,
                Rect::new(inner.x, y, inner.width, 1),
                buf,
                theme,
            );
            y += 1;
        }
        if y < bottom {
            let mut hint = "Enter run · Esc close".to_string();
            if self.fields.len() > 1 {
                hint.push_str(" · ↑/↓ field");
            }
            if self.fields.iter().any(|f| !f.candidates.is_empty()) {
                hint.push_str(" · Tab complete");
            }
            buf.set_stringn(inner.x, y, hint, w, theme.muted);
        }
    }
}

fn hint_line(area: Rect, y: u16, buf: &mut Buffer, text: &str, style: Style) {
    let line = Line::from(Span::styled(
        safe_line(text, usize::from(area.width)).into_owned(),
        style,
    ));
    buf.set_line(area.x, y, &line, area.width);
}

/// Draws the candidates of a completion cycle on one line, the current one highlighted.
fn render_candidates(cands: &[String], index: usize, area: Rect, buf: &mut Buffer, theme: &Theme) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let width = usize::from(area.width);
    let mut spans = vec![Span::styled(
        format!("{}/{} ", index + 1, cands.len()),
        theme.muted,
    )];
    let mut used = spans[0].content.len();
    // Start a little before the current candidate so it is always visible.
    let start = index.saturating_sub(1);
    for (i, c) in cands.iter().enumerate().skip(start) {
        if used >= width {
            break;
        }
        let text = safe_line(c, width.saturating_sub(used).min(48)).into_owned();
        used += text.width() + 2;
        let style = if i == index {
            theme.selection
        } else {
            theme.party
        };
        spans.push(Span::styled(text, style));
        spans.push(Span::raw("  "));
    }
    buf.set_line(area.x, area.y, &Line::from(spans), area.width);
}
