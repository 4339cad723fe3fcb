//! Layout helpers: the screen split, centred overlay rectangles, the minimum-size check and
//! its "terminal too small" message, text wrapping by display width, lines of server text cut to
//! a width, a cell of text cut to its width ([`cell`]) and a paragraph of it wrapped to an area
//! ([`paragraph`]) (both of which `ui::form` re-exports), a one-line heading over a body
//! ([`heading`]), and a one-line text sparkline for cards.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::ui::safe::{safe_line, sanitize_multiline, truncate_width};
use crate::ui::theme::Theme;

/// Draws sanitized, wrapped text from `area.y`; returns the rows used.
pub fn paragraph(area: Rect, buf: &mut Buffer, text: &str, style: Style) -> u16 {
    if area.width == 0 || area.height == 0 {
        return 0;
    }
    let clean = sanitize_multiline(text);
    let mut rows = 0u16;
    for line in wrap_text(&clean, usize::from(area.width)) {
        if rows >= area.height {
            break;
        }
        buf.set_stringn(
            area.x,
            area.y + rows,
            safe_line(&line, usize::from(area.width)),
            usize::from(area.width),
            style,
        );
        rows += 1;
    }
    rows
}

/// `area` under its first row: the body under a one-line heading.
pub fn below_heading(area: Rect) -> Rect {
    Rect::new(
        area.x,
        area.y + 1,
        area.width,
        area.height.saturating_sub(1),
    )
}

/// Writes `text` (sanitized, cut to the width) as the first row of `area`; returns the area
/// under it.
pub fn heading(buf: &mut Buffer, area: Rect, text: &str, style: Style) -> Rect {
    cell(buf, area.x, area.y, text, area.width, style);
    below_heading(area)
}

/// Writes `text` (sanitized, cut to `width` columns) at (x, y).
pub fn cell(
    buf: &mut Buffer,
    x: u16,
    y: u16,
    text: &str,
    width: u16,
    style: ratatui::style::Style,
) {
    if width == 0 {
        return;
    }
    let w = usize::from(width);
    buf.set_stringn(x, y, safe_line(text, w), w, style);
}

/// Draws a bordered block (pane frame) with `title` and returns its inner area, or `None`
/// when nothing fits inside.
pub fn framed(
    area: Rect,
    buf: &mut Buffer,
    title: Line<'_>,
    border: ratatui::style::Style,
) -> Option<Rect> {
    use ratatui::widgets::{Block, Widget};
    if area.width == 0 || area.height == 0 {
        return None;
    }
    let block = Block::bordered().border_style(border).title(title);
    let inner = block.inner(area);
    block.render(area, buf);
    (inner.width > 0 && inner.height > 0).then_some(inner)
}

/// Draws `rows` of a muted label and its value (cut to what is left of the row), one a row from
/// the top of `area` down, as many as fit. Returns the row below the last one drawn.
pub fn label_rows(
    area: Rect,
    buf: &mut Buffer,
    rows: &[(&str, &str, ratatui::style::Style)],
    theme: &Theme,
) -> u16 {
    let mut y = area.y;
    for &(label, value, style) in rows {
        if y >= area.bottom() {
            break;
        }
        buf.set_stringn(area.x, y, label, usize::from(area.width), theme.muted);
        let x = area.x
            + u16::try_from(label.len())
                .unwrap_or(u16::MAX)
                .min(area.width);
        cell(buf, x, y, value, area.right() - x, style);
        y += 1;
    }
    y
}

/// The frame of an overlay (help, palette, error log): bordered, with the focused border, the
/// overlay style and `title`.
pub fn overlay_block<'a>(
    title: impl Into<std::borrow::Cow<'a, str>>,
    theme: &Theme,
) -> ratatui::widgets::Block<'a> {
    ratatui::widgets::Block::bordered()
        .border_style(theme.border_focused)
        .title(Span::styled(title, theme.title))
        .style(theme.overlay)
}

/// Clears `area` and draws the overlay frame `block` over it. Returns the inside, or `None`
/// when nothing fits there.
pub fn draw_overlay(
    area: Rect,
    buf: &mut Buffer,
    block: ratatui::widgets::Block<'_>,
) -> Option<Rect> {
    use ratatui::widgets::{Clear, Widget};
    if area.width == 0 || area.height == 0 {
        return None;
    }
    Clear.render(area, buf);
    let inner = block.inner(area);
    block.render(area, buf);
    (inner.width > 0 && inner.height > 0).then_some(inner)
}

/// Narrowest terminal the app draws in (below: only the "too small" message).
pub const MIN_WIDTH: u16 = 40;
/// Lowest terminal the app draws in.
pub const MIN_HEIGHT: u16 = 10;

/// The screen's regions (see the diagram in [`crate::ui`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScreenAreas {
    /// Header bar (1 row).
    pub header: Rect,
    /// Pane tabs (1 row).
    pub tabs: Rect,
    /// The active pane.
    pub body: Rect,
    /// Key hints (1 row).
    pub footer: Rect,
    /// Status line (1 row).
    pub status: Rect,
}

/// Splits the screen: header, tabs, body, footer, status line. Rows are taken from the top and
/// bottom while there is room; the body gets the rest (possibly zero rows).
pub fn screen_areas(area: Rect) -> ScreenAreas {
    let mut rest = area;
    let take_top = |rest: &mut Rect| {
        let h = rest.height.min(1);
        let r = Rect::new(rest.x, rest.y, rest.width, h);
        rest.y += h;
        rest.height -= h;
        r
    };
    let header = take_top(&mut rest);
    let tabs = take_top(&mut rest);
    let take_bottom = |rest: &mut Rect| {
        let h = rest.height.min(1);
        rest.height -= h;
        Rect::new(rest.x, rest.y + rest.height, rest.width, h)
    };
    let status = take_bottom(&mut rest);
    let footer = take_bottom(&mut rest);
    ScreenAreas {
        header,
        tabs,
        body: rest,
        footer,
        status,
    }
}

/// The zoomed screen (`+`): the body takes everything but the status line (no header, tabs
/// or footer, which get zero rows).
pub fn zoomed_areas(area: Rect) -> ScreenAreas {
    let status_h = area.height.min(1);
    let body = Rect::new(area.x, area.y, area.width, area.height - status_h);
    let none = Rect::new(area.x, area.y, area.width, 0);
    ScreenAreas {
        header: none,
        tabs: none,
        body,
        footer: Rect::new(area.x, area.y + body.height, area.width, 0),
        status: Rect::new(area.x, area.y + body.height, area.width, status_h),
    }
}

/// The screen's areas, zoomed (`+`) or not.
pub fn areas(area: Rect, zoomed: bool) -> ScreenAreas {
    if zoomed {
        zoomed_areas(area)
    } else {
        screen_areas(area)
    }
}

/// Whether `area` is below the minimum size.
pub fn is_too_small(area: Rect) -> bool {
    area.width < MIN_WIDTH || area.height < MIN_HEIGHT
}

/// Draws "terminal too small (need ≥ 40×10, have W×H)", centred and cut to what fits.
pub fn render_too_small(area: Rect, buf: &mut Buffer, theme: &Theme) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    buf.set_style(area, theme.base);
    let lines = [
        "terminal too small".to_string(),
        format!("need ≥ {MIN_WIDTH}×{MIN_HEIGHT}"),
        format!("have {}×{}", area.width, area.height),
    ];
    let shown = lines.len().min(usize::from(area.height));
    let top = area.y + (area.height - shown as u16) / 2;
    for (i, text) in lines.iter().take(shown).enumerate() {
        let text = truncate_width(text, usize::from(area.width));
        let w = unicode_width::UnicodeWidthStr::width(text.as_ref()) as u16;
        let x = area.x + (area.width - w.min(area.width)) / 2;
        let style = if i == 0 {
            theme.status_err
        } else {
            theme.muted
        };
        buf.set_line(x, top + i as u16, &Line::styled(text, style), area.width);
    }
}

/// A `width`×`height` rectangle centred in `area` (clamped to it).
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// A rectangle of `pct_w`% × `pct_h`% of `area`, centred, at least `min_w`×`min_h` (clamped to
/// the area).
pub fn centered_pct(area: Rect, pct_w: u16, pct_h: u16, min_w: u16, min_h: u16) -> Rect {
    let w = (u32::from(area.width) * u32::from(pct_w.min(100)) / 100) as u16;
    let h = (u32::from(area.height) * u32::from(pct_h.min(100)) / 100) as u16;
    centered(area, w.max(min_w), h.max(min_h))
}

/// Wraps already-sanitized text to `width` columns: existing newlines are kept, lines break at
/// the last space that fits, or anywhere for words longer than the width.
pub fn wrap_text(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    for para in text.split('\n') {
        let mut line = String::new();
        let mut line_w = 0usize;
        let mut last_space: Option<(usize, usize)> = None; // byte index, width before it
        for c in para.chars() {
            let cw = c.width().unwrap_or(0);
            if line_w + cw > width && !line.is_empty() {
                if c == ' ' {
                    // Break at this space and drop it.
                    out.push(std::mem::take(&mut line));
                    line_w = 0;
                    last_space = None;
                    continue;
                }
                match last_space {
                    Some((at, w_before)) if at > 0 => {
                        let rest = line.split_off(at + 1);
                        line.truncate(at);
                        out.push(std::mem::take(&mut line));
                        line = rest;
                        line_w -= w_before + 1;
                    }
                    _ => {
                        out.push(std::mem::take(&mut line));
                        line_w = 0;
                    }
                }
                last_space = None;
            }
            if c == ' ' {
                last_space = Some((line.len(), line_w));
            }
            line.push(c);
            line_w += cw;
        }
        out.push(line);
    }
    out
}

/// Sanitizes every span of `line` (server strings) and cuts it to `width` columns, marking a
/// cut with `…`.
pub fn fit_line(line: Line<'_>, width: usize) -> Line<'static> {
    let style = line.style;
    let mut left = width;
    let mut spans = Vec::with_capacity(line.spans.len());
    for s in line.spans {
        if left == 0 {
            break;
        }
        let text = safe_line(&s.content, left).into_owned();
        left = left.saturating_sub(text.width());
        spans.push(Span::styled(text, style.patch(s.style)));
    }
    Line::from(spans)
}

/// A one-line sparkline of the last `width` values (`▁▂▃▄▅▆▇█`), scaled to their maximum; a
/// zero is drawn as `▁`. Empty for no values.
pub fn sparkline_text(values: &[u64], width: usize) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let tail = &values[values.len().saturating_sub(width)..];
    let max = tail.iter().copied().max().unwrap_or(0);
    tail.iter()
        .map(|&v| {
            if max == 0 {
                BARS[0]
            } else {
                let i = (u128::from(v) * 7).div_ceil(u128::from(max)) as usize;
                BARS[i.min(7)]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screen_split_80x24_and_tiny() {
        let a = screen_areas(Rect::new(0, 0, 80, 24));
        assert_eq!(a.header, Rect::new(0, 0, 80, 1));
        assert_eq!(a.tabs, Rect::new(0, 1, 80, 1));
        assert_eq!(a.body, Rect::new(0, 2, 80, 20));
        assert_eq!(a.footer, Rect::new(0, 22, 80, 1));
        assert_eq!(a.status, Rect::new(0, 23, 80, 1));
        let t = screen_areas(Rect::new(0, 0, 1, 1));
        assert_eq!(t.header.height + t.tabs.height + t.body.height, 1);
        assert_eq!(t.status.height + t.footer.height, 0);
        let z = screen_areas(Rect::new(0, 0, 0, 0));
        assert_eq!(z.body, Rect::new(0, 0, 0, 0));
    }

    #[test]
    fn centered_clamps() {
        assert_eq!(
            centered(Rect::new(0, 0, 80, 24), 40, 10),
            Rect::new(20, 7, 40, 10)
        );
        assert_eq!(
            centered(Rect::new(5, 5, 10, 4), 40, 10),
            Rect::new(5, 5, 10, 4)
        );
        assert_eq!(
            centered_pct(Rect::new(0, 0, 100, 50), 50, 50, 60, 10),
            Rect::new(20, 12, 60, 25)
        );
    }

    #[test]
    fn too_small_threshold() {
        assert!(!is_too_small(Rect::new(0, 0, 80, 24)));
        assert!(!is_too_small(Rect::new(0, 0, MIN_WIDTH, MIN_HEIGHT)));
        assert!(is_too_small(Rect::new(0, 0, MIN_WIDTH - 1, 24)));
        assert!(is_too_small(Rect::new(0, 0, 80, MIN_HEIGHT - 1)));
    }

    #[test]
    fn wrapping() {
        assert_eq!(wrap_text("hello world foo", 11), ["hello world", "foo"]);
        assert_eq!(wrap_text("hello world foo", 8), ["hello", "world", "foo"]);
        assert_eq!(wrap_text("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap_text("a\n\nb", 4), ["a", "", "b"]);
        assert_eq!(wrap_text("日本語です", 4), ["日本", "語で", "す"]);
        assert_eq!(wrap_text("", 4), [""]);
    }

    #[test]
    fn sparkline() {
        assert_eq!(sparkline_text(&[0, 1, 2, 4, 8], 10), "▁▂▃▅█");
        assert_eq!(sparkline_text(&[5, 5], 1), "█");
        assert_eq!(sparkline_text(&[0, 0], 5), "▁▁");
        assert_eq!(sparkline_text(&[], 5), "");
    }
}
