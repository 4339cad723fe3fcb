//! Everything that can happen to the app: terminal input, timer ticks, user commands (from the
//! keymap or the palette) and the results of effects. Results travel inside the message.

use crossterm::event::{KeyEvent, MouseEvent};

use super::command::Command;

use super::effect::{Fetched, RequestId};

/// One thing that happened. `App::update` turns it into state changes and effects.
#[derive(Debug)]
pub enum Action {
    /// A key press (resolved through the keymap, or typed into a text input).
    Key(KeyEvent),
    /// Mouse input (wheel scrolls, click on a tab focuses it).
    Mouse(MouseEvent),
    /// Pasted text (bracketed paste).
    Paste(String),
    /// The terminal was resized.
    Resize(u16, u16),
    /// Time passed; `now` is microseconds since the Unix epoch (UTC). Drives polling and ages.
    Tick(i64),
    /// A named user intent (from the keymap or a test).
    Command(Command),
    /// A palette command line (`event <id>`, `time <ts>`, `theme <name>`, `hash <h>`, `quit`).
    Palette(String),
    /// A fetch finished.
    Fetched(Box<Fetched>),
    /// A file write finished.
    Written {
        id: RequestId,
        path: String,
        result: Result<usize, String>,
    },
    /// A file read (`Effect::ReadFile`) finished: the bytes, or why it failed.
    FileRead {
        id: RequestId,
        path: String,
        result: Result<Vec<u8>, String>,
    },
    /// A theme was loaded by the runtime (`:theme`).
    ThemeLoaded(Result<Box<ThemeSource>, String>),
}

/// What the runtime read for `:theme NAME`: the user's theme file, if there is one, and the names
/// of every available theme (for the error when none matches). The app builds the theme from it.
#[derive(Debug, Clone, PartialEq)]
pub struct ThemeSource {
    pub name: String,
    /// `(path, contents)` of `<config_dir>/themes/<name>.toml`, when that file exists.
    pub user_file: Option<(String, String)>,
    /// Built-in and user theme names.
    pub available: Vec<String>,
}
