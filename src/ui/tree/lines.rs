//! Drawing tree rows that do not fit: cutting a row to the width with `…`, shifting it
//! sideways ([`render_shifted`]), and the split between a tree and its detail ([`TreeSplit`]).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::ui::theme::Theme;

/// `spans` cut to `width` columns, ending with `…` when something was cut (a tree row that does
/// not fit says so instead of stopping mid-word).
pub fn fit_line(spans: Vec<Span<'_>>, width: u16) -> Line<'_> {
    let width = usize::from(width);
    let total: usize = spans.iter().map(|s| s.content.width()).sum();
    if total <= width {
        return Line::from(spans);
    }
    let mut out = Vec::with_capacity(spans.len() + 1);
    let mut used = 0usize;
    let room = width.saturating_sub(1);
    let mut last_style = ratatui::style::Style::default();
    for span in spans {
        let w = span.content.width();
        last_style = span.style;
        if used + w <= room {
            used += w;
            out.push(span);
            continue;
        }
        let mut cut = String::new();
        for c in span.content.chars() {
            let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if used + cw > room {
                break;
            }
            used += cw;
            cut.push(c);
        }
        out.push(Span::styled(cut, span.style));
        break;
    }
    if width > 0 {
        out.push(Span::styled("…", last_style));
    }
    Line::from(out)
}

/// `line` without its first `cols` columns (a row scrolled sideways); starts with `…` when
/// something was skipped. A wide character cut in two is replaced by a space.
pub fn skip_columns<'a>(line: Line<'a>, cols: usize, theme: &Theme) -> Line<'a> {
    if cols == 0 {
        return line;
    }
    let style = line.style;
    let mut out: Vec<Span<'a>> = Vec::with_capacity(line.spans.len() + 1);
    let mut skipped = 0usize;
    let mut any = false;
    for span in line.spans {
        if skipped >= cols {
            out.push(span);
            continue;
        }
        let mut kept = String::new();
        for c in span.content.chars() {
            let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if skipped < cols {
                skipped += w;
                any |= c != ' ';
                if skipped > cols {
                    kept.push(' ');
                }
            } else {
                kept.push(c);
            }
        }
        if !kept.is_empty() {
            out.push(Span::styled(kept, span.style));
        }
    }
    if any {
        // The first column says that the row goes on to the left.
        match out.first_mut() {
            Some(first) => {
                let rest: String = first.content.chars().skip(1).collect();
                let first_style = first.style;
                *first = Span::styled(rest, first_style);
                out.insert(0, Span::styled("…", theme.muted));
            }
            None => out.push(Span::styled("…", theme.muted)),
        }
    }
    Line::from(out).style(style)
}

/// How far one `<` / `>` moves the split between a tree and its details, in percent.
pub const SPLIT_STEP: u16 = 5;
/// The narrowest and widest tree column the split allows, in percent.
pub const SPLIT_RANGE: (u16, u16) = (15, 85);

/// Where the split between a tree and its details panel sits: the tree's share of the width
/// (or, stacked, of the height) in percent; `None` until the user moves it (`<` / `>`), so each
/// view keeps its own default layout. Kept by the pane while the app runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TreeSplit(Option<u16>);

impl TreeSplit {
    /// The tree's share in percent, `default` until moved.
    pub fn percent(self, default: u16) -> u16 {
        self.0.unwrap_or(default)
    }

    /// Whether the user moved the split.
    pub fn is_set(self) -> bool {
        self.0.is_some()
    }

    /// One step narrower (`wider = false`) or wider, starting from `default`. False at the end
    /// of the range.
    pub fn step(&mut self, wider: bool, default: u16) -> bool {
        let now = self.percent(default);
        let next = if wider {
            (now + SPLIT_STEP).min(SPLIT_RANGE.1)
        } else {
            now.saturating_sub(SPLIT_STEP).max(SPLIT_RANGE.0)
        };
        self.0 = Some(next);
        next != now
    }

    /// `total` cells split: the tree's part (at least 1, leaving at least 1 when `total` > 1).
    pub fn part(self, total: u16, default: u16) -> u16 {
        let p = u32::from(self.percent(default));
        let part = u16::try_from(u32::from(total) * p / 100).unwrap_or(total);
        part.clamp(total.min(1), total.saturating_sub(1).max(total.min(1)))
    }
}

/// Columns a sideways scroll moves per key press.
pub const HSCROLL_STEP: usize = 8;

/// Draws with `draw` into a scratch buffer `offset` columns wider than `area`, then copies the
/// part right of `offset` into `buf`: any widget scrolled sideways, its own cuts (`…`) landing
/// at the real right edge. A row cut at the left starts with `…`. Returns the width of the
/// widest drawn row (for clamping the offset).
pub fn render_shifted(
    area: Rect,
    buf: &mut Buffer,
    offset: usize,
    theme: &Theme,
    draw: impl FnOnce(Rect, &mut Buffer),
) -> usize {
    if area.width == 0 || area.height == 0 {
        return 0;
    }
    let off = u16::try_from(offset)
        .unwrap_or(u16::MAX / 2)
        .min(u16::MAX / 2);
    let wide = Rect::new(0, 0, area.width.saturating_add(off), area.height);
    let mut scratch = Buffer::empty(wide);
    draw(wide, &mut scratch);
    let mut widest = 0usize;
    for y in 0..area.height {
        let row_width = (0..wide.width)
            .rev()
            .find(|&x| scratch[(x, y)].symbol() != " ")
            .map_or(0, |x| usize::from(x) + 1);
        widest = widest.max(row_width);
        for x in 0..area.width {
            let cell = scratch[(x + off, y)].clone();
            buf[(area.x + x, area.y + y)] = cell;
        }
        if off > 0 && (0..off).any(|x| scratch[(x, y)].symbol() != " ") {
            let cell = &mut buf[(area.x, area.y + y)];
            cell.set_symbol("…");
            cell.set_style(theme.muted);
        }
    }
    widest
}
