//! The UI foundation: safe text, themes, layout helpers and the reusable widgets every pane and
//! overlay is drawn with. Nothing here touches the terminal: widgets draw into a ratatui
//! [`Buffer`](ratatui::buffer::Buffer) given by the caller, and their state changes only through
//! methods called from `App::update`. Drawing only reads (`render(&self, area, buf, &Theme, …)`).
//!
//! The screen, as [`layout::screen_areas`] splits it and `app::draw` draws it (the same
//! diagram heads `app/draw.rs`):
//!
//! ```text
//! ┌──────────────────────────────────────────────────────────────────────────────┐
//! │ cantonscope · profile · ● scan OK · net 4/4 · mig 1 · newest 10:41:07 (2s) · LIVE│ header
//! │ 1 History 1,234  2 Update  3 Verdict  4 Status  5 Holdings …                 │ tabs   1 row
//! ├──────────────────────────────────────────────────────────────────────────────┤
//! │ body: the focused pane (lists, trees, JSON, cards); overlays (help, palette, │
//! │       error log) are drawn on top of it                                      │
//! ├──────────────────────────────────────────────────────────────────────────────┤
//! │ ↵ open  / filter  f follow  y copy  ? help  : commands  q quit               │ footer 1 row
//! │ <messages and errors (toasts)>                                    ! 2 errors │ status 1 row
//! └──────────────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! Below [`layout::MIN_WIDTH`]×[`layout::MIN_HEIGHT`] only a "terminal too small" message is
//! drawn ([`layout::render_too_small`]).
//!
//! Modules: [`safe`] (sanitizer for untrusted text), [`format`] (numbers, durations, times and
//! ids for display), [`theme`], [`scroll`] (cursor/offset shared by the widgets), [`layout`],
//! [`tree`] (generic tree view, the tree/details split, sideways scrolling), [`whole_value`] (the
//! full value of a cut field), [`json`] (JSON viewer), [`table`] (the data table), [`form`]
//! (the form kit: fields with Tab completion, error text), [`load`] (a request's state and
//! the matching of its reply),
//! [`text_input`] (the text-area wrapper), [`help`] (help overlay, footer hints), [`palette`]
//! (command palette), [`error_log`] (error log overlay),
//! [`osc52`] (clipboard escape sequence).

pub mod error_log;
pub mod explain;
pub mod fields;
pub mod form;
pub mod format;
pub mod help;
pub mod json;
pub mod layout;
pub mod load;
pub mod notify;
pub mod osc52;
pub mod palette;
pub mod rounds;
pub mod safe;
pub mod scroll;
pub mod sections;
pub mod table;
pub mod text_input;
pub mod theme;
pub mod tree;
pub mod tree_labels;
pub mod whole_value;

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
