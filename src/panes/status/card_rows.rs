//! Writing into a Status card: its frame, and lines top to bottom (sanitized, cut to the
//! card's width, sparklines).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Sparkline, SparklineBar, Widget};

use crate::ui::layout::{fit_line, framed, wrap_text};
use crate::ui::safe::{safe_line, sanitize};
use crate::ui::theme::Theme;

pub(super) fn bold() -> Style {
    Style::default().add_modifier(ratatui::style::Modifier::BOLD)
}

/// Writes lines top to bottom into a card, sanitizing and cutting each.
pub(super) struct CardRows<'b> {
    pub(super) area: Rect,
    pub(super) buf: &'b mut Buffer,
    pub(super) y: u16,
}

impl CardRows<'_> {
    pub(super) fn line(&mut self, line: Line<'_>) {
        if self.y >= self.area.height {
            return;
        }
        let line = fit_line(line, usize::from(self.area.width));
        self.buf
            .set_line(self.area.x, self.area.y + self.y, &line, self.area.width);
        self.y += 1;
    }

    pub(super) fn wrapped(&mut self, text: &str, style: Style) {
        for l in wrap_text(text, usize::from(self.area.width)) {
            self.line(Line::styled(l, style));
        }
    }

    /// `label` then a sparkline of `data` (latest values, as many as fit) on one row.
    /// `text` wrapped on at most `max_rows` rows, the last one cut with `…`.
    pub(super) fn wrapped_cut(&mut self, text: &str, style: Style, max_rows: usize) {
        let clean = sanitize(text);
        let mut parts = wrap_text(&clean, usize::from(self.area.width)).into_iter();
        for _ in 1..max_rows {
            match parts.next() {
                Some(l) => self.line(Line::styled(l, style)),
                None => return,
            }
        }
        let rest: Vec<String> = parts.collect();
        if !rest.is_empty() {
            self.line(Line::styled(rest.join(" "), style));
        }
    }

    /// `label` then a sparkline of `data` (latest values, as many as fit) on one row, full
    /// scale at `floor` or the largest value; absent values (failed requests) are drawn as
    /// `absent`.
    pub(super) fn sparkline_with(
        &mut self,
        label: &str,
        data: &[Option<u64>],
        theme: &Theme,
        absent: &str,
        absent_style: Style,
        floor: u64,
    ) {
        if self.y >= self.area.height {
            return;
        }
        let y = self.area.y + self.y;
        let label = safe_line(label, usize::from(self.area.width));
        let (x, _) = self.buf.set_stringn(
            self.area.x,
            y,
            &label,
            usize::from(self.area.width),
            theme.muted,
        );
        let used = x - self.area.x;
        let spark_w = self.area.width.saturating_sub(used);
        if spark_w > 0 && !data.is_empty() {
            let tail = &data[data.len().saturating_sub(usize::from(spark_w))..];
            let bars: Vec<SparklineBar> = tail.iter().map(|v| SparklineBar::from(*v)).collect();
            let max = tail.iter().flatten().max().copied().unwrap_or(0).max(floor);
            Sparkline::default()
                .data(bars)
                .max(max)
                .style(theme.sparkline)
                .absent_value_symbol(absent)
                .absent_value_style(absent_style)
                .render(Rect::new(x, y, spark_w, 1), self.buf);
        }
        self.y += 1;
    }
}

/// A card's frame: a bordered block titled `title` (cut to fit). Returns the inside, or `None`
/// when nothing fits there.
pub(super) fn card_frame(
    area: Rect,
    buf: &mut Buffer,
    title: &str,
    border: Style,
    theme: &Theme,
) -> Option<Rect> {
    let title = safe_line(title, usize::from(area.width.saturating_sub(2))).into_owned();
    framed(
        area,
        buf,
        Line::from(Span::styled(title, theme.title)),
        border,
    )
}
