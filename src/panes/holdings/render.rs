//! Drawing of the Holdings pane: the title, the query line, the table with its totals footer,
//! the owners the answer left out, and the query form dialog.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use crate::panes::form::{QueryPane, Unanswered, render_error, render_unanswered};
use crate::panes::{RenderCtx, Shared};
use crate::ui::format::server_time;
use crate::ui::safe::safe_line;
use crate::ui::table::{Align, Draw, put};
use crate::ui::theme::Theme;

use super::{
    EMPTY_TEXT, HOLDINGS_ENDPOINT, HoldCol, HoldingLine, HoldingsPane, TimeSpec, amount_index,
};

impl HoldingsPane {
    // --- drawing ---------------------------------------------------------------------------

    /// The title's count of parties, once answered.
    pub(super) fn title_counts(&self, theme: &Theme) -> Vec<Span<'static>> {
        self.result
            .iter()
            .map(|r| {
                let n = r.parties();
                Span::styled(
                    format!(" · {n} {}", if n == 1 { "party" } else { "parties" }),
                    theme.muted,
                )
            })
            .collect()
    }

    pub(super) fn render_body(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { sh, theme, focused } = cx;
        let width = usize::from(area.width);
        let bottom = area.bottom();
        let Some(mut y) = render_error(self.error.as_deref(), area, buf, theme) else {
            return;
        };
        let Some(r) = &self.result else {
            let idle = match &self.start_note {
                Some(note) => format!("{note}\n{EMPTY_TEXT}"),
                None => EMPTY_TEXT.to_string(),
            };
            let parties = sh.history.parties().len();
            let texts = Unanswered {
                endpoint: HOLDINGS_ENDPOINT,
                retry: "Press i (edit) to change the query, r (refresh) to run it again.",
                idle: &idle,
                seen: &format!("{parties} parties seen in the loaded history to complete from"),
            };
            render_unanswered(area, y, buf, (self.state(), theme), &texts);
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
                Span::styled(
                    safe_line(
                        &server_time(&r.record_time, "", |us| {
                            format!("{} {}", sh.format_time(us), sh.zone_label())
                        }),
                        40,
                    )
                    .into_owned(),
                    theme.time,
                ),
                Span::styled(asked, theme.muted),
            ]);
            buf.set_line(area.x, y, &line, area.width);
            y += 1;
        }
        let footer_h: u16 = 2;
        let table_h = bottom.saturating_sub(y);
        if table_h < 2 {
            return;
        }
        let draw = Draw::new(&(), theme, focused);
        if self.lines.is_empty() {
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
                    let n = r.parties();
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
    }

    pub(super) fn render_form(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme) {
        let help = self.form.help(sh);
        self.form
            .dialog
            .form
            .render_dialog(area, buf, theme, "Holdings query", &help);
    }
}
