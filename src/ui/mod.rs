//! The UI foundation: safe text, themes, layout helpers and the reusable widgets every pane and
//! overlay is drawn with. Nothing here touches the terminal: widgets draw into a ratatui
//! [`Buffer`](ratatui::buffer::Buffer) given by the caller, and their state changes only through
//! methods called from `App::update`. Drawing only reads (`render(&self, area, buf, &Theme, …)`).
//!
//! The screen, as [`layout::screen_areas`] splits it:
//!
//! ```text
//! ┌──────────────────────────────────────────────────────────────────────────────┐
//! │ header: profile · node health · migration · newest record time (lag) · live  │ 1 row
//! │ tabs:   1 History  2 Update  3 Verdict  4 Status …                           │ 1 row
//! ├──────────────────────────────────────────────────────────────────────────────┤
//! │                                                                              │
//! │ body: the active pane (lists, trees, JSON, cards)                            │
//! │        overlays (help, palette, error log, dialogs) are drawn on top,        │
//! │        centred with layout::centered                                         │
//! │                                                                              │
//! ├──────────────────────────────────────────────────────────────────────────────┤
//! │ footer: key hints generated from the keymap (help::footer_hints)             │ 1 row
//! │ status line: toasts and messages (status::StatusLine)                        │ 1 row
//! └──────────────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! Below [`layout::MIN_WIDTH`]×[`layout::MIN_HEIGHT`] only a "terminal too small" message is
//! drawn ([`layout::render_too_small`]).
//!
//! Modules: [`safe`] (sanitizer for untrusted text), [`format`] (numbers, durations, times and
//! ids for display), [`theme`], [`scroll`] (cursor/offset shared by the widgets), [`layout`],
//! [`tree`] (generic tree view), [`json`] (JSON viewer), [`table`] (the data table), [`form`]
//! (the form kit: fields with Tab completion, error text), [`load`] (a request's state and
//! the matching of its reply),
//! [`text_input`] (the text-area wrapper), [`help`] (help overlay, footer hints), [`palette`]
//! (command palette), [`status`] (toasts / status line), [`error_log`] (error log overlay),
//! [`osc52`] (clipboard escape sequence).

pub mod error_log;
pub mod form;
pub mod format;
pub mod help;
pub mod json;
pub mod layout;
pub mod load;
pub mod osc52;
pub mod palette;
pub mod safe;
pub mod scroll;
pub mod status;
pub mod table;
pub mod text_input;
pub mod theme;
pub mod tree;
pub mod tree_labels;

pub use theme::Theme;

use crate::msg::Command;

/// What an overlay did with a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlayOutcome {
    /// The overlay used the key (redraw).
    Consumed,
    /// The overlay asks to be closed.
    Close,
    /// A command the overlay does not handle (e.g. quit): the caller decides.
    Passthrough(Command),
    /// The key means nothing here.
    Ignored,
}
