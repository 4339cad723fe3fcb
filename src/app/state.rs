//! The explorer's state: [`App`] with what it shows and remembers, and the read-only views of
//! it that drawing and the palette use. `App::update` (in `app/mod.rs`) is the one writer.

use ratatui::layout::Rect;

use crate::config::keymap::{KeyContext, KeyMap};
use crate::feed::loader::Loader;
use crate::msg::{Command, Tabs};
use crate::panes::{Level, Pane, PaneId, Shared};
use crate::ui::error_log::ErrorLog;
use crate::ui::help::HelpOverlay;
use crate::ui::palette::Palette;
use crate::ui::theme::Theme;

use super::panes::Panes;

/// A status-line message.
#[derive(Debug, Clone, PartialEq)]
pub struct Toast {
    pub level: Level,
    pub text: String,
    /// When it disappears (µs since the epoch).
    pub until: i64,
    /// Shown in answer to a command of the user (the next command that succeeds clears it),
    /// not by something that arrived by itself (a node going down).
    pub from_command: bool,
    /// A hint (an info message) belongs to the pane focused when it was shown: it goes when
    /// the focus leaves that pane (`None`: not yet placed, or not a hint).
    pub pane: Option<PaneId>,
    /// It was shown while that pane's text input was open: it is about the input, and goes
    /// when the input closes.
    pub typing: bool,
}

/// An overlay drawn over the panes.
#[derive(Debug)]
pub enum Overlay {
    Help(HelpOverlay),
    Palette(Palette),
    ErrorLog,
    /// The fields of the focused pane's selection, each whole (`v`).
    Fields(crate::ui::fields::FieldsView),
    /// The mining rounds the local index holds (`M`, `:rounds`).
    Rounds(crate::ui::rounds::RoundsView),
}

/// The whole explorer state.
pub struct App {
    pub sh: Shared,
    pub theme: Theme,
    pub keymap: KeyMap,
    pub focus: PaneId,
    /// The history loader: the one writer of `sh.history` and `sh.feed`.
    pub loader: Loader,
    /// The pane last told it has focus ([`Pane::on_focus`]).
    pub(super) focus_seen: PaneId,
    /// Every pane (`app.history` etc. read through [`Deref`](std::ops::Deref)).
    pub panes: Panes,
    pub overlay: Option<Overlay>,
    pub toast: Option<Toast>,
    pub errors: ErrorLog,
    /// Palette history, kept across openings.
    pub palette_history: Vec<String>,
    /// Terminal size.
    pub size: Rect,
    pub(super) dirty: bool,
    pub(super) quit: bool,
    /// Until when typed keys are ignored (after `/` where no filter opens), µs.
    pub(super) typing_guard: Option<i64>,
    /// `o` sorted the focused pane's table: a column letter next sorts by that column.
    pub(super) sort_armed: bool,
    /// Panes to go back to (Esc in a pane with nothing left to close), newest last.
    pub(super) back_stack: Vec<PaneId>,
    /// The view to go to once started (`cantonscope open LOCATOR`).
    pub open_at: Option<crate::model::locator::Locator>,
    /// Zoomed (`+`): the focused pane has the whole screen but the status line.
    pub zoomed: bool,
    /// Second of the last drawn clock (the header shows ages in seconds).
    pub(super) clock_second: i64,
    /// The user ran a command (not a move) in the action being handled: an error shown from
    /// an earlier one goes when this one brings no message of its own.
    pub(super) acted: bool,
    /// Counts the messages shown (to tell whether the action at hand showed one).
    pub(super) toast_seq: u64,
}

/// The keymap with the number keys described by the pane they go to ("go to History").
pub fn with_pane_names(mut keymap: KeyMap) -> KeyMap {
    for (i, p) in PaneId::ALL.iter().enumerate() {
        if let Some(cmd) = Command::pane(i + 1) {
            for ctx in KeyContext::ALL {
                keymap.set_description(ctx, cmd, format!("go to {}", p.title()));
            }
        }
    }
    keymap
}

impl App {
    /// The pane with this id.
    pub fn pane(&self, id: PaneId) -> &dyn Pane {
        self.panes.get(id)
    }

    /// The key context in use now.
    pub fn key_context(&self) -> KeyContext {
        match &self.overlay {
            Some(Overlay::Palette(_)) => KeyContext::TextInput,
            Some(_) => KeyContext::Overlay,
            None => self.pane(self.focus).key_context(),
        }
    }
}

/// The app reads as its panes: `app.history`, `app.status`, … are `app.panes.history`, … (the
/// app's own code names `panes` where it borrows a pane and the shared state together).
impl std::ops::Deref for App {
    type Target = Panes;

    fn deref(&self) -> &Panes {
        &self.panes
    }
}

impl std::ops::DerefMut for App {
    fn deref_mut(&mut self) -> &mut Panes {
        &mut self.panes
    }
}
