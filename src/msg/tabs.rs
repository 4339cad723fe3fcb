//! A list of tabs in a fixed order, each with its label: the explorer's panes and the sections
//! of a pane. `[`/`]` and Tab/Shift-Tab step through them with wrap-around.

/// A fixed list in tab order with a label each: the panes ([`PaneId`](crate::msg::PaneId)) and
/// a pane's sections.
pub trait Tabs: Copy + PartialEq + 'static {
    /// Every tab, in tab order.
    fn all() -> &'static [Self];

    /// The tab label.
    fn title(self) -> &'static str;

    /// The position among [`Tabs::all`].
    fn index(self) -> usize {
        Self::all().iter().position(|s| *s == self).unwrap_or(0)
    }

    /// The next tab (`forward`) or the previous one, wrapping around.
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

/// Declares a list of tabs: the enum, its `ALL` in tab order and its [`Tabs`] impl with each
/// tab's label.
macro_rules! tabs {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident => $title:literal),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every tab, in tab order.
            pub const ALL: [$name; [$($title),+].len()] = [$($name::$variant),+];
        }

        impl $crate::msg::tabs::Tabs for $name {
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
pub(crate) use tabs;
