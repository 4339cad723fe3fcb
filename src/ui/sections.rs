//! Panes in sections (Network, Proxy, Ledger): the list of sections with their tab labels,
//! `[` / `]` switching with wrap-around, and the pane frame with its row of section tabs.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use crate::ui::form::render_section_tabs;
use crate::ui::layout::framed;
use crate::ui::theme::Theme;

/// A pane's sections, in tab order.
pub trait Sections: Copy + PartialEq + 'static {
    /// Every section, in tab order.
    fn all() -> &'static [Self];

    /// The tab label.
    fn title(self) -> &'static str;

    /// The position among [`Sections::all`].
    fn index(self) -> usize {
        Self::all().iter().position(|s| *s == self).unwrap_or(0)
    }

    /// The next section (`forward`) or the previous one, wrapping around.
    #[must_use]
    fn step(self, forward: bool) -> Self {
        let all = Self::all();
        let n = all.len();
        if n == 0 {
            return self;
        }
        let i = self.index();
        let next = if forward { i + 1 } else { i + n - 1 } % n;
        all.get(next).copied().unwrap_or(self)
    }
}

/// Declares a pane's sections: the enum, its `ALL` in tab order and its [`Sections`] impl with
/// each section's tab label.
macro_rules! sections {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident { $($variant:ident => $title:literal),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $($variant),+
        }

        impl $name {
            /// Every section, in tab order.
            pub const ALL: [$name; [$($title),+].len()] = [$($name::$variant),+];
        }

        impl $crate::ui::sections::Sections for $name {
            fn all() -> &'static [Self] {
                &Self::ALL
            }

            fn title(self) -> &'static str {
                match self {
                    $($name::$variant => $title),+
                }
            }
        }
    };
}
pub(crate) use sections;

/// Draws a pane frame titled `title`, focused or not, with the tabs of `current`'s sections on
/// its first row. Returns the area below the tabs (possibly no row high), or `None` when the
/// frame has no inside.
pub fn framed_sections<S: Sections>(
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
