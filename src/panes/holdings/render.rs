//! Drawing of the Holdings pane: the title, the query line, the table with its totals footer,
//! the owners the answer left out, and the query form dialog.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use crate::panes::form::state_span;
use crate::panes::{RenderCtx, Shared};
use crate::ui::layout::wrap_text;
use crate::ui::safe::{safe_line, sanitize};
use crate::ui::table::{Align, Draw, put};
use crate::ui::theme::Theme;

use super::{
    EMPTY_TEXT, HOLDINGS_ENDPOINT, HoldCol, HoldingLine, HoldingsPane, HoldingsResult, TimeSpec,
    amount_index,
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
        spans.extend(state_span(
            self.pending.is_some(),
            self.error.is_some(),
            theme,
        ));
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
            } else if let Some(note) = &self.start_note {
                (format!("{note}\n{EMPTY_TEXT}"), theme.muted)
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
        let help = self.form.help(sh);
        self.form
            .dialog
            .form
            .render_dialog(area, buf, theme, "Holdings query", &help);
    }
}
