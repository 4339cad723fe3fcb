//! Panes in sections (Network, Proxy, Ledger): the pane frame with its row of section tabs. The
//! list of sections, their labels and `[` / `]` stepping are [`crate::msg::tabs`].

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use crate::msg::tabs::Tabs;
use crate::ui::form::render_section_tabs;
use crate::ui::layout::framed;
use crate::ui::theme::Theme;

/// Draws a pane frame titled `title`, focused or not, with the tabs of `current`'s sections on
/// its first row. Returns the area below the tabs (possibly no row high), or `None` when the
/// frame has no inside.
pub fn framed_sections<S: Tabs>(
    area: Rect,
    buf: &mut Buffer,
    title: Line<'_>,
    current: S,
    theme: &Theme,
    focused: bool,
) -> Option<Rect> {
    let inner = framed(area, buf, title, theme.border_style(focused))?;
    let titles: Vec<&str> = S::all().iter().map(|s| s.title()).collect();
    render_section_tabs(
        Rect::new(inner.x, inner.y, inner.width, 1),
        buf,
        &titles,
        current.index(),
        theme,
    );
    Some(Rect::new(
        inner.x,
        inner.y + 1,
        inner.width,
        inner.height - 1,
    ))
}
