//! Drawing of the Holdings pane: the title, the query line, the table with its totals footer,
//! the owners the answer left out, and the query form dialog.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Widget};

use crate::panes::{RenderCtx, Shared};
use crate::ui::form::{id_list_summary, render_candidates, split_ids};
use crate::ui::layout::{centered, wrap_text};
use crate::ui::safe::{safe_line, sanitize};
use crate::ui::table::{Align, Draw, put};
use crate::ui::text_input::TextInput;
use crate::ui::theme::Theme;

use super::{
    EMPTY_TEXT, Field, HOLDINGS_ENDPOINT, HoldCol, HoldingLine, HoldingsPane, HoldingsResult,
    TimeSpec, amount_index,
};

impl HoldingsPane {
    // --- drawing ---------------------------------------------------------------------------

    pub(super) fn title_line(&self, theme: &Theme) -> Line<'static> {
        let mut spans = vec![Span::styled("Holdings", theme.title)];
        if let Some(r) = &self.result {
            let n = r.rows.len();
            spans.push(Span::styled(
                format!(" · {n} {}", if n == 1 { "party" } else { "parties" }),
                theme.muted,
            ));
        }
        if self.pending.is_some() {
            spans.push(Span::styled(" · querying…", theme.status_warn));
        } else if self.error.is_some() {
            spans.push(Span::styled(" · error", theme.status_err));
        }
        Line::from(spans)
    }

    pub(super) fn render_body(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { sh, theme, focused } = cx;
        let width = usize::from(area.width);
        let mut y = area.y;
        let bottom = area.bottom();
        if let Some(err) = &self.error {
            for line in wrap_text(&sanitize(err), width).into_iter().take(3) {
                if y >= bottom {
                    return;
                }
                buf.set_stringn(area.x, y, &line, width, theme.status_err);
                y += 1;
            }
        }
        let Some(r) = &self.result else {
            if y >= bottom {
                return;
            }
            let (text, style) = if self.pending.is_some() {
                (
                    format!("querying {HOLDINGS_ENDPOINT} on the scan…"),
                    theme.muted,
                )
            } else if self.error.is_some() {
                (
                    "Press i (edit) to change the query, r (refresh) to run it again.".to_string(),
                    theme.muted,
                )
            } else {
                (EMPTY_TEXT.to_string(), theme.muted)
            };
            for line in wrap_text(&text, width) {
                if y >= bottom {
                    break;
                }
                buf.set_stringn(area.x, y, &line, width, style);
                y += 1;
            }
            let parties = sh.history.parties().len();
            if y + 1 < bottom && self.pending.is_none() {
                let note = format!("{parties} parties seen in the loaded history to complete from");
                buf.set_stringn(area.x, y + 1, &note, width, theme.muted);
            }
            return;
        };
        // Query line.
        if y < bottom {
            let asked = match &r.asked {
                TimeSpec::Now => " (asked: now)",
                TimeSpec::At(_) => "",
            };
            let line = Line::from(vec![
                Span::styled("migration ", theme.muted),
                Span::styled(r.migration_id.to_string(), theme.accent),
                Span::styled(
                    if r.exact {
                        " · exact "
                    } else {
                        " · at or before "
                    },
                    theme.muted,
                ),
                Span::styled(safe_line(&r.record_time, 40).into_owned(), theme.time),
                Span::styled(asked, theme.muted),
            ]);
            buf.set_line(area.x, y, &line, area.width);
            y += 1;
        }
        let footer_h: u16 = 2 + u16::from(!r.missing.is_empty());
        let table_h = bottom.saturating_sub(y);
        if table_h < 2 {
            return;
        }
        let draw = Draw::new(&(), theme, focused);
        if r.rows.is_empty() {
            let header = Rect::new(area.x, y, area.width, 1);
            self.table
                .columns()
                .render_header::<HoldingLine>(header, buf, &draw);
            y += 1;
            if y < bottom {
                buf.set_stringn(
                    area.x,
                    y,
                    "no holdings: none of the owners has active amulets at this snapshot",
                    width,
                    theme.muted,
                );
            }
            y += 1;
            self.render_missing(
                r,
                Rect::new(area.x, y, area.width, bottom.saturating_sub(y)),
                buf,
                theme,
            );
            return;
        }
        // Below the header: the rows, then the totals when there is room.
        let room = bottom.saturating_sub(y + 1);
        let (rows_h, show_footer) = if room > footer_h + 1 {
            (room - footer_h, true)
        } else {
            (room, false)
        };
        let table = Rect::new(area.x, y, area.width, rows_h + 1);
        self.table.render(table, buf, &self.lines, &draw);
        if !show_footer {
            return;
        }
        let fy = y + 1 + rows_h;
        buf.set_stringn(area.x, fy, "─".repeat(width), width, theme.border);
        let ty = fy + 1;
        let bold = theme.accent.add_modifier(Modifier::BOLD);
        for p in self.table.columns().layout(area.width) {
            let x = area.x + p.x;
            match p.id {
                HoldCol::Party => {
                    let n = r.rows.len();
                    let label = format!("Total ({n} {})", if n == 1 { "party" } else { "parties" });
                    put(buf, x, ty, &label, p.width, Align::Left, bold);
                }
                col => {
                    let k = amount_index(col);
                    let style = if r.totals[k].is_some() {
                        bold
                    } else {
                        theme.status_warn
                    };
                    put(buf, x, ty, &self.totals[k], p.width, Align::Right, style);
                }
            }
        }
        self.render_missing(
            r,
            Rect::new(area.x, ty + 1, area.width, bottom.saturating_sub(ty + 1)),
            buf,
            theme,
        );
    }

    fn render_missing(&self, r: &HoldingsResult, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if r.missing.is_empty() || area.height == 0 || area.width == 0 {
            return;
        }
        let list = r
            .missing
            .iter()
            .map(|m| sanitize(m).into_owned())
            .collect::<Vec<_>>()
            .join(", ");
        let text = format!("no holdings reported for: {list}");
        buf.set_stringn(
            area.x,
            area.y,
            safe_line(&text, usize::from(area.width)),
            usize::from(area.width),
            theme.muted,
        );
    }

    pub(super) fn render_form(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme) {
        let f = &self.form;
        let completing = f.completer.candidates().is_some();
        let height = 2 + 4 + 1 + 1 + u16::from(completing) + 1;
        let rect = centered(area, area.width.min(100), height);
        if rect.width < 3 || rect.height < 3 {
            return;
        }
        Clear.render(rect, buf);
        let block = Block::bordered()
            .border_style(theme.border_focused)
            .style(theme.overlay)
            .title(Span::styled(" Holdings query ", theme.title));
        let inner = block.inner(rect);
        block.render(rect, buf);
        let label_w: u16 = 10;
        let bottom = inner.bottom();
        let mut y = inner.y;
        for field in Field::ALL {
            if y >= bottom {
                return;
            }
            let focused = field == f.field;
            let label_style = if focused { theme.accent } else { theme.muted };
            buf.set_stringn(
                inner.x,
                y,
                field.label(),
                usize::from(label_w.min(inner.width)),
                label_style,
            );
            let vx = inner.x + label_w.min(inner.width);
            let vw = inner.width.saturating_sub(label_w);
            match f.input(field) {
                Some(input) => input.render(Rect::new(vx, y, vw, 1), buf, theme, focused),
                None => {
                    let opt = |on: bool, name: &str| {
                        Span::styled(
                            format!("({}) {name}  ", if on { "•" } else { " " }),
                            if on { theme.accent } else { theme.muted },
                        )
                    };
                    let line =
                        Line::from(vec![opt(!f.exact, "at_or_before"), opt(f.exact, "exact")]);
                    buf.set_line(vx, y, &line, vw);
                    if focused {
                        buf.set_style(Rect::new(vx, y, vw.min(34), 1), theme.selection);
                    }
                }
            }
            y += 1;
        }
        // Every owner of the list, or their count, not only the tail the input shows.
        let owners = split_ids(&f.owners.text());
        if owners.len() > 1 && y < bottom {
            let w = usize::from(inner.width);
            let list = id_list_summary(&owners, ("owner", "owners"), w);
            buf.set_stringn(inner.x, y, list, w, theme.muted);
        }
        y += 1;
        // Help, note or validation for the focused field.
        if y < bottom {
            let validation = f.input(f.field).and_then(TextInput::validation);
            let (text, style) = if let Some(v) = validation {
                (v.to_string(), theme.status_err)
            } else if let Some(n) = &f.note {
                (n.clone(), theme.status_warn)
            } else {
                let help = match f.field {
                    Field::Owners => format!(
                        "Tab completes from the {} parties of the loaded history",
                        sh.history.parties().len()
                    ),
                    Field::Migration => match sh.history.last() {
                        Some(s) => format!(
                            "the current migration (newest loaded update) is {}",
                            s.migration_id
                        ),
                        None => "no history loaded: enter the migration id".to_string(),
                    },
                    Field::Time => {
                        "RFC 3339 (e.g. 2026-01-05T10:00:00Z) or now (read when the query runs)"
                            .to_string()
                    }
                    Field::Match => {
                        "at_or_before: newest snapshot at or before the time; exact: a snapshot time (space toggles)"
                            .to_string()
                    }
                };
                (help, theme.muted)
            };
            buf.set_stringn(
                inner.x,
                y,
                safe_line(&text, usize::from(inner.width)),
                usize::from(inner.width),
                style,
            );
            y += 1;
        }
        if completing && y < bottom {
            render_candidates(
                &f.completer,
                Rect::new(inner.x, y, inner.width, 1),
                buf,
                theme,
            );
            y += 1;
        }
        if y < bottom {
            buf.set_stringn(
                inner.x,
                y,
                "Enter run · Esc close · ↑/↓ field · Tab complete",
                usize::from(inner.width),
                theme.muted,
            );
        }
    }
}
