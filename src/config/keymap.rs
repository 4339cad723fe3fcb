//! Key bindings: the named [`Command`]s a key can trigger, key chords and their text form, the
//! default bindings per [`KeyContext`], and the `[keys]` overrides of the config file.
//!
//! Every binding carries a description: the help overlay and the footer hints are generated from
//! the [`KeyMap`], never written by hand.
//!
//! Lookup order: the bindings of the context in use, then (for `list`, `tree` and `overlay`) the
//! `global` bindings. A text input only falls back to `global` for chords with Ctrl or Alt and for
//! function keys, so typing letters never triggers a command (Ctrl-c still quits).
//!
//! Overrides (`[keys]` in the config file): `command = "spec"` or `command = ["spec", …]` replaces
//! the command's bindings in every context where it has default bindings (in `global` when it has
//! none); `"context.command" = …` (quoted key) replaces them in one context only; `[]` unbinds.
//! A chord given to a command is taken away from any other command of that context. Two
//! overrides giving the same chord to different commands in one context are an error.
//!
//! Key specs: a single character is that key, case-sensitive (`"G"`, `"?"`, `"1"`); names are
//! case-insensitive: `enter`, `esc`, `tab`, `backtab`, `space`, `backspace`, `delete`, `insert`,
//! `home`, `end`, `pgup`/`pageup`, `pgdn`/`pagedown`, `up`, `down`, `left`, `right`, `f1`–`f24`,
//! `minus`, `plus`; modifiers `ctrl-`, `alt-`, `shift-` (also `+` as separator, `c-`/`a-`/`m-`/`s-`
//! and vim's `<C-d>`). `shift-tab` is `backtab`; `shift-g` is `G`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::config::KeySpecs;
use crate::msg::Command;

/// Where a key is pressed: decides which bindings apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyContext {
    /// Everywhere (checked after the specific context).
    Global,
    /// A list or table pane.
    List,
    /// A tree view (event trees, view trees, JSON).
    Tree,
    /// A text input (palette, filter, forms).
    TextInput,
    /// An overlay (help, error log, dialogs).
    Overlay,
}

impl KeyContext {
    /// Every context, in help order.
    pub const ALL: [KeyContext; 5] = [
        KeyContext::Global,
        KeyContext::List,
        KeyContext::Tree,
        KeyContext::TextInput,
        KeyContext::Overlay,
    ];

    /// The name used in the config file (`text_input`).
    pub fn name(self) -> &'static str {
        match self {
            KeyContext::Global => "global",
            KeyContext::List => "list",
            KeyContext::Tree => "tree",
            KeyContext::TextInput => "text_input",
            KeyContext::Overlay => "overlay",
        }
    }

    /// A heading for the help overlay.
    pub fn title(self) -> &'static str {
        match self {
            KeyContext::Global => "Everywhere",
            KeyContext::List => "Lists and tables",
            KeyContext::Tree => "Trees",
            KeyContext::TextInput => "Text input",
            KeyContext::Overlay => "Overlays",
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    /// Whether an unbound `chord` in this context is looked up in `global`.
    fn falls_back(self, chord: &KeyChord) -> bool {
        match self {
            KeyContext::Global => false,
            KeyContext::List | KeyContext::Tree | KeyContext::Overlay => true,
            KeyContext::TextInput => {
                chord
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
                    || matches!(chord.code, KeyCode::F(_))
            }
        }
    }
}

impl fmt::Display for KeyContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for KeyContext {
    type Err = KeymapError;

    fn from_str(s: &str) -> Result<Self, KeymapError> {
        KeyContext::ALL
            .into_iter()
            .find(|c| c.name() == s.trim())
            .ok_or_else(|| KeymapError::UnknownContext(s.to_string()))
    }
}

impl From<crate::msg::UnknownCommand> for KeymapError {
    fn from(e: crate::msg::UnknownCommand) -> Self {
        KeymapError::UnknownCommand(e.0)
    }
}

/// Errors in key specs and `[keys]` overrides. One line each.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeymapError {
    /// Not a command name.
    #[error("unknown command {0:?}")]
    UnknownCommand(String),
    /// Not a context name.
    #[error("unknown key context {0:?} (global, list, tree, text_input, overlay)")]
    UnknownContext(String),
    /// A key spec that does not parse.
    #[error("invalid key {spec:?}: {reason}")]
    BadKey {
        /// The spec as written.
        spec: String,
        /// Why it is invalid.
        reason: String,
    },
    /// Two overrides give one chord to different commands in the same context.
    #[error("key {chord} is bound to both {first} and {second} in {context}")]
    Conflict {
        /// The chord, as displayed.
        chord: String,
        /// The context.
        context: KeyContext,
        /// One command.
        first: Command,
        /// The other command.
        second: Command,
    },
    /// A configured binding hides another command's binding across the global fallback: a
    /// global key that a list, tree or overlay binding takes first (or the reverse), so one of
    /// the two never runs there. (Taking a key from another command in the same context moves
    /// it, as the module docs say.)
    #[error(
        "key {chord} for {by} shadows {shadowed} (bound to {chord} in {context}): pick another key \
         or rebind {shadowed} too"
    )]
    Shadows {
        /// The chord, as displayed.
        chord: String,
        /// Where the shadowed command is bound to the chord.
        context: KeyContext,
        /// The command whose binding is hidden.
        shadowed: Command,
        /// The configured command that hides it.
        by: Command,
    },
}

/// A key with its modifiers, normalised so that a chord parsed from the config equals the one
/// crossterm reports: for characters the case carries Shift (`G`, not Shift-g) and Ctrl
/// characters are lower case; Shift-Tab is `BackTab`; only Ctrl, Alt and Shift count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyChord {
    /// The key.
    pub code: KeyCode,
    /// Ctrl / Alt / Shift.
    pub modifiers: KeyModifiers,
}

impl KeyChord {
    /// A normalised chord.
    pub fn new(code: KeyCode, modifiers: KeyModifiers) -> Self {
        let mut mods =
            modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match code {
            KeyCode::Char(c) => {
                let shifted = mods.contains(KeyModifiers::SHIFT);
                mods.remove(KeyModifiers::SHIFT);
                if mods.contains(KeyModifiers::CONTROL) {
                    KeyCode::Char(c.to_ascii_lowercase())
                } else if shifted && c.is_ascii_lowercase() {
                    KeyCode::Char(c.to_ascii_uppercase())
                } else {
                    KeyCode::Char(c)
                }
            }
            KeyCode::Tab if mods.contains(KeyModifiers::SHIFT) => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            KeyCode::BackTab => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            other => other,
        };
        KeyChord {
            code,
            modifiers: mods,
        }
    }

    /// A plain key.
    pub fn plain(code: KeyCode) -> Self {
        Self::new(code, KeyModifiers::NONE)
    }

    /// The chord of a key press or repeat; `None` for releases.
    pub fn from_event(event: &KeyEvent) -> Option<Self> {
        if event.kind == KeyEventKind::Release {
            return None;
        }
        Some(Self::new(event.code, event.modifiers))
    }

    /// Parses a key spec (`"ctrl-d"`, `"shift-tab"`, `"G"`, `"pgdn"`, `"f5"`, `"?"`).
    pub fn parse(spec: &str) -> Result<Self, KeymapError> {
        let bad = |reason: &str| KeymapError::BadKey {
            spec: spec.to_string(),
            reason: reason.to_string(),
        };
        let mut rest = spec.trim();
        if rest.is_empty() {
            return Err(bad("empty key"));
        }
        if rest.chars().count() > 2 && rest.starts_with('<') && rest.ends_with('>') {
            rest = &rest[1..rest.len() - 1];
        }
        let mut mods = KeyModifiers::NONE;
        while let Some((m, tail)) = split_modifier(rest) {
            mods |= m;
            rest = tail;
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) => KeyCode::Char(c),
            _ => named_key(&rest.to_ascii_lowercase()).ok_or_else(|| {
                bad("not a key name (enter, esc, tab, space, pgup, pgdn, up, f5, … or one character)")
            })?,
        };
        if let KeyCode::Char(c) = code
            && c.is_control()
        {
            return Err(bad("control characters are not keys"));
        }
        Ok(Self::new(code, mods))
    }
}

fn split_modifier(s: &str) -> Option<(KeyModifiers, &str)> {
    let i = s.find(['-', '+'])?;
    if i == 0 || i + 1 >= s.len() {
        return None;
    }
    let m = match s[..i].to_ascii_lowercase().as_str() {
        "ctrl" | "control" | "c" => KeyModifiers::CONTROL,
        "alt" | "meta" | "option" | "a" | "m" => KeyModifiers::ALT,
        "shift" | "s" => KeyModifiers::SHIFT,
        _ => return None,
    };
    Some((m, &s[i + 1..]))
}

fn named_key(name: &str) -> Option<KeyCode> {
    Some(match name {
        "enter" | "return" | "cr" => KeyCode::Enter,
        "esc" | "escape" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "backtab" => KeyCode::BackTab,
        "space" | "spc" => KeyCode::Char(' '),
        "backspace" | "bs" | "bksp" => KeyCode::Backspace,
        "delete" | "del" => KeyCode::Delete,
        "insert" | "ins" => KeyCode::Insert,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "pgup" | "pageup" | "page_up" | "page-up" => KeyCode::PageUp,
        "pgdn" | "pgdown" | "pagedown" | "page_down" | "page-down" => KeyCode::PageDown,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "minus" => KeyCode::Char('-'),
        "plus" => KeyCode::Char('+'),
        _ => {
            let n: u8 = name.strip_prefix('f')?.parse().ok()?;
            if (1..=24).contains(&n) {
                KeyCode::F(n)
            } else {
                return None;
            }
        }
    })
}

impl FromStr for KeyChord {
    type Err = KeymapError;

    fn from_str(s: &str) -> Result<Self, KeymapError> {
        KeyChord::parse(s)
    }
}

impl fmt::Display for KeyChord {
    /// `Ctrl-d`, `Shift-Tab`, `PgDn`, `↑`, `G`, `Space`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.modifiers.contains(KeyModifiers::CONTROL) {
            f.write_str("Ctrl-")?;
        }
        if self.modifiers.contains(KeyModifiers::ALT) {
            f.write_str("Alt-")?;
        }
        if self.modifiers.contains(KeyModifiers::SHIFT) {
            f.write_str("Shift-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("Space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::PageUp => f.write_str("PgUp"),
            KeyCode::PageDown => f.write_str("PgDn"),
            KeyCode::Home => f.write_str("Home"),
            KeyCode::End => f.write_str("End"),
            KeyCode::Enter => f.write_str("Enter"),
            KeyCode::Esc => f.write_str("Esc"),
            KeyCode::Tab => f.write_str("Tab"),
            KeyCode::BackTab => f.write_str("Shift-Tab"),
            KeyCode::Backspace => f.write_str("Bksp"),
            KeyCode::Delete => f.write_str("Del"),
            KeyCode::Insert => f.write_str("Ins"),
            KeyCode::F(n) => write!(f, "F{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}

/// One binding: a chord, the command it triggers in a context, and its help text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The chord.
    pub chord: KeyChord,
    /// The command.
    pub command: Command,
    /// What it does, for help and hints.
    pub description: Cow<'static, str>,
}

/// The chords of one command in one context, for a help row (`↑/k  move up`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingGroup<'a> {
    /// The command.
    pub command: Command,
    /// Its chords, in binding order.
    pub chords: Vec<&'a KeyChord>,
    /// The description of its first binding.
    pub description: &'a str,
}

impl BindingGroup<'_> {
    /// The chords joined with `/` (`↑/k`).
    pub fn keys_label(&self) -> String {
        join_chords(&self.chords)
    }
}

fn join_chords(chords: &[&KeyChord]) -> String {
    let mut out = String::new();
    for (i, c) in chords.iter().enumerate() {
        if i > 0 {
            out.push('/');
        }
        out.push_str(&c.to_string());
    }
    out
}

/// One parsed override: the command's chords in one context, or (`context: None`) in every
/// context where it has default bindings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyOverride {
    /// `None`: wherever the command is bound by default.
    pub context: Option<KeyContext>,
    /// The command.
    pub command: Command,
    /// Its new chords (empty: unbound).
    pub chords: Vec<KeyChord>,
}

/// Parses the config file's `[keys]` table: `command` or `context.command` → key spec(s).
pub fn parse_key_overrides(
    raw: &BTreeMap<String, KeySpecs>,
) -> Result<Vec<KeyOverride>, KeymapError> {
    let mut out = Vec::with_capacity(raw.len());
    for (key, specs) in raw {
        let (context, command) = match key.split_once('.') {
            Some((ctx, cmd)) => (Some(ctx.parse::<KeyContext>()?), cmd.parse::<Command>()?),
            None => (None, key.parse::<Command>()?),
        };
        let mut chords: Vec<KeyChord> = Vec::new();
        for spec in specs.as_slice() {
            let chord = KeyChord::parse(spec)?;
            if !chords.contains(&chord) {
                chords.push(chord);
            }
        }
        out.push(KeyOverride {
            context,
            command,
            chords,
        });
    }
    Ok(out)
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct ContextBindings {
    bindings: Vec<Binding>,
}

impl ContextBindings {
    fn get(&self, chord: &KeyChord) -> Option<&Binding> {
        self.bindings.iter().find(|b| &b.chord == chord)
    }

    fn binds(&self, command: Command) -> bool {
        self.bindings.iter().any(|b| b.command == command)
    }
}

/// Key bindings per context. Build with [`KeyMap::defaults`] (also `Default`) and
/// [`KeyMap::with_overrides`]; look keys up with [`KeyMap::lookup`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyMap {
    contexts: [ContextBindings; 5],
}

/// Default bindings of one group: each command with its key specs.
type DefaultTable = &'static [(Command, &'static [&'static str])];

const NAV: DefaultTable = &[
    (Command::Up, &["up", "k"]),
    (Command::Down, &["down", "j"]),
    (Command::PageUp, &["pgup", "ctrl-u"]),
    (Command::PageDown, &["pgdn", "ctrl-d"]),
    (Command::Top, &["home", "g"]),
    (Command::Bottom, &["end", "G"]),
];

const GLOBAL: DefaultTable = &[
    (Command::Help, &["?"]),
    (Command::Palette, &[":"]),
    (Command::Filter, &["/"]),
    (Command::NextPane, &["tab"]),
    (Command::PrevPane, &["shift-tab"]),
    (Command::Pane1, &["1"]),
    (Command::Pane2, &["2"]),
    (Command::Pane3, &["3"]),
    (Command::Pane4, &["4"]),
    (Command::Pane5, &["5"]),
    (Command::Pane6, &["6"]),
    (Command::Pane7, &["7"]),
    (Command::Pane8, &["8"]),
    (Command::Pane9, &["9"]),
    (Command::FollowTail, &["f"]),
    (Command::ToggleTimeZone, &["t"]),
    (Command::Copy, &["y"]),
    (Command::CopyUpdateId, &["Y"]),
    (Command::Save, &["s"]),
    (Command::FollowContract, &["c"]),
    (Command::ErrorLog, &["!"]),
    (Command::Refresh, &["r", "f5"]),
    (Command::Export, &["e"]),
    (Command::LoadSpan, &["L"]),
    (Command::ExportRange, &["X"]),
    (Command::Edit, &["i"]),
    (Command::NextSection, &["]"]),
    (Command::PrevSection, &["["]),
    (Command::Delete, &["D"]),
    (Command::Execute, &["x"]),
    (Command::Consensus, &["b"]),
    (Command::Sweep, &["S"]),
    (Command::Back, &["esc"]),
    (Command::Quit, &["q", "ctrl-c"]),
];

const LIST: DefaultTable = &[
    (Command::Select, &["enter"]),
    (Command::Left, &["left", "h"]),
    (Command::Right, &["right", "l"]),
    (Command::Sort, &["o"]),
    (Command::SortReverse, &["O"]),
];

const TREE: DefaultTable = &[
    (Command::Toggle, &["enter", "space"]),
    (Command::Expand, &["right", "l"]),
    (Command::Collapse, &["left", "h"]),
    (Command::ExpandAll, &["E"]),
    (Command::CollapseAll, &["C"]),
    (Command::Parent, &["p", "backspace"]),
    (Command::SwitchFocus, &["tab"]),
    (Command::TreeNarrower, &["<"]),
    (Command::TreeWider, &[">"]),
    (Command::ScrollLeft, &["H", "shift-left"]),
    (Command::ScrollRight, &["L", "shift-right"]),
    (Command::ShowValue, &["v"]),
];

const TEXT_INPUT: DefaultTable = &[
    (Command::Confirm, &["enter"]),
    (Command::Cancel, &["esc"]),
    (Command::Complete, &["tab"]),
    (Command::HistoryPrev, &["up"]),
    (Command::HistoryNext, &["down"]),
];

const OVERLAY: DefaultTable = &[
    (Command::Confirm, &["enter"]),
    (Command::Cancel, &["esc", "q"]),
];

impl Default for KeyMap {
    fn default() -> Self {
        Self::defaults()
    }
}

impl KeyMap {
    /// A map with no bindings at all.
    pub fn empty() -> Self {
        KeyMap {
            contexts: Default::default(),
        }
    }

    /// The default bindings: vim keys and arrows, PgUp/PgDn, Ctrl-d/Ctrl-u, g/G, Home/End,
    /// Tab/Shift-Tab, 1–9, `?` `:` `/` `f` `y` `s` `c` `!` `t` `e` `q`, Ctrl-c, Esc.
    pub fn defaults() -> Self {
        let mut map = Self::empty();
        let tables: [(KeyContext, &[DefaultTable]); 5] = [
            (KeyContext::Global, &[GLOBAL]),
            (KeyContext::List, &[NAV, LIST]),
            (KeyContext::Tree, &[NAV, TREE]),
            (KeyContext::TextInput, &[TEXT_INPUT]),
            (KeyContext::Overlay, &[NAV, OVERLAY]),
        ];
        for (ctx, parts) in tables {
            for part in parts {
                for (command, specs) in *part {
                    for spec in *specs {
                        // The default specs are literals checked by the tests; a bad one would
                        // only lose that binding.
                        if let Ok(chord) = KeyChord::parse(spec) {
                            map.bind(ctx, chord, *command, command.description());
                        }
                    }
                }
            }
        }
        map
    }

    /// Adds (or replaces) a binding.
    pub fn bind(
        &mut self,
        context: KeyContext,
        chord: KeyChord,
        command: Command,
        description: impl Into<Cow<'static, str>>,
    ) {
        let ctx = &mut self.contexts[context.index()];
        let binding = Binding {
            chord,
            command,
            description: description.into(),
        };
        match ctx.bindings.iter_mut().find(|b| b.chord == chord) {
            Some(existing) => *existing = binding,
            None => ctx.bindings.push(binding),
        }
    }

    /// Changes the description of a command's bindings in a context (e.g. `pane_1` →
    /// "go to History").
    pub fn set_description(
        &mut self,
        context: KeyContext,
        command: Command,
        description: impl Into<Cow<'static, str>>,
    ) {
        let description = description.into();
        for b in &mut self.contexts[context.index()].bindings {
            if b.command == command {
                b.description = description.clone();
            }
        }
    }

    /// Applies parsed `[keys]` overrides (see the module docs for the rules).
    pub fn with_overrides(mut self, overrides: &[KeyOverride]) -> Result<KeyMap, KeymapError> {
        // Final chords per (context, command): context-specific overrides beat general ones.
        let mut targets: BTreeMap<(KeyContext, Command), &[KeyChord]> = BTreeMap::new();
        for pass_specific in [false, true] {
            for o in overrides
                .iter()
                .filter(|o| o.context.is_some() == pass_specific)
            {
                let contexts: Vec<KeyContext> = match o.context {
                    Some(c) => vec![c],
                    None => {
                        let bound: Vec<KeyContext> = KeyContext::ALL
                            .into_iter()
                            .filter(|c| self.contexts[c.index()].binds(o.command))
                            .collect();
                        if bound.is_empty() {
                            vec![KeyContext::Global]
                        } else {
                            bound
                        }
                    }
                };
                for c in contexts {
                    targets.insert((c, o.command), &o.chords);
                }
            }
        }
        // Conflicts among the overrides themselves.
        let mut seen: Vec<(KeyContext, KeyChord, Command)> = Vec::new();
        for (&(ctx, command), chords) in &targets {
            for chord in *chords {
                if let Some(&(_, _, first)) = seen
                    .iter()
                    .find(|(c, k, cmd)| *c == ctx && k == chord && *cmd != command)
                {
                    return Err(KeymapError::Conflict {
                        chord: chord.to_string(),
                        context: ctx,
                        first,
                        second: command,
                    });
                }
                seen.push((ctx, *chord, command));
            }
        }
        // Apply.
        for (&(ctx, command), chords) in &targets {
            let cb = &mut self.contexts[ctx.index()];
            let position = cb.bindings.iter().position(|b| b.command == command);
            let description = cb
                .bindings
                .iter()
                .find(|b| b.command == command)
                .map_or(Cow::Borrowed(command.description()), |b| {
                    b.description.clone()
                });
            cb.bindings
                .retain(|b| b.command != command && !chords.contains(&b.chord));
            let at = position.unwrap_or(cb.bindings.len()).min(cb.bindings.len());
            for (i, chord) in chords.iter().enumerate() {
                cb.bindings.insert(
                    at + i,
                    Binding {
                        chord: *chord,
                        command,
                        description: description.clone(),
                    },
                );
            }
        }
        // Nor hide (or be hidden by) another command across the global fallback.
        for (&(ctx, command), chords) in &targets {
            for chord in *chords {
                let other = |c: KeyContext| {
                    self.contexts[c.index()]
                        .get(chord)
                        .filter(|b| b.command != command)
                        .map(|b| (c, b.command))
                };
                let hit = if ctx == KeyContext::Global {
                    KeyContext::ALL
                        .into_iter()
                        .filter(|c| {
                            // Overlays are modal: their keys are meant to differ.
                            !matches!(c, KeyContext::Global | KeyContext::Overlay)
                                && c.falls_back(chord)
                        })
                        .find_map(other)
                } else if ctx != KeyContext::Overlay && ctx.falls_back(chord) {
                    other(KeyContext::Global)
                } else {
                    None
                };
                if let Some((context, shadowed)) = hit {
                    return Err(KeymapError::Shadows {
                        chord: chord.to_string(),
                        context,
                        shadowed,
                        by: command,
                    });
                }
            }
        }
        Ok(self)
    }

    /// Defaults patched with the config file's `[keys]` table.
    pub fn from_config(raw: &BTreeMap<String, KeySpecs>) -> Result<KeyMap, KeymapError> {
        KeyMap::defaults().with_overrides(&parse_key_overrides(raw)?)
    }

    /// The command a key event triggers in `context` (falling back to `global` as the module
    /// docs say). `None` for key releases and unbound keys.
    pub fn lookup(&self, context: KeyContext, event: &KeyEvent) -> Option<Command> {
        self.lookup_chord(context, &KeyChord::from_event(event)?)
    }

    /// [`KeyMap::lookup`] for a chord.
    pub fn lookup_chord(&self, context: KeyContext, chord: &KeyChord) -> Option<Command> {
        if let Some(b) = self.contexts[context.index()].get(chord) {
            return Some(b.command);
        }
        if context.falls_back(chord) {
            return self.contexts[KeyContext::Global.index()]
                .get(chord)
                .map(|b| b.command);
        }
        None
    }

    /// The bindings of one context (without the global fallback), in order.
    pub fn bindings(
        &self,
        context: KeyContext,
    ) -> impl Iterator<Item = (&KeyChord, Command, &str)> + '_ {
        self.contexts[context.index()]
            .bindings
            .iter()
            .map(|b| (&b.chord, b.command, b.description.as_ref()))
    }

    /// The bindings of one context grouped by command (one help row each), in order of first
    /// appearance.
    pub fn groups(&self, context: KeyContext) -> Vec<BindingGroup<'_>> {
        let mut groups: Vec<BindingGroup<'_>> = Vec::new();
        for b in &self.contexts[context.index()].bindings {
            match groups.iter_mut().find(|g| g.command == b.command) {
                Some(g) => g.chords.push(&b.chord),
                None => groups.push(BindingGroup {
                    command: b.command,
                    chords: vec![&b.chord],
                    description: &b.description,
                }),
            }
        }
        groups
    }

    /// The chords that trigger `command` in `context`, including global ones reachable through
    /// the fallback (not shadowed by a binding of the context).
    pub fn keys_for(&self, context: KeyContext, command: Command) -> Vec<&KeyChord> {
        let own = &self.contexts[context.index()];
        let mut keys: Vec<&KeyChord> = own
            .bindings
            .iter()
            .filter(|b| b.command == command)
            .map(|b| &b.chord)
            .collect();
        if context != KeyContext::Global {
            for b in &self.contexts[KeyContext::Global.index()].bindings {
                if b.command == command
                    && own.get(&b.chord).is_none()
                    && context.falls_back(&b.chord)
                {
                    keys.push(&b.chord);
                }
            }
        }
        keys
    }

    /// The chords of `command` in `context` joined with `/` (`↑/k`); `None` when unbound.
    pub fn keys_label(&self, context: KeyContext, command: Command) -> Option<String> {
        let keys = self.keys_for(context, command);
        (!keys.is_empty()).then(|| join_chords(&keys))
    }

    /// The description of `command` in `context` (or global), else its default description.
    pub fn description(&self, context: KeyContext, command: Command) -> &str {
        [context, KeyContext::Global]
            .into_iter()
            .find_map(|c| {
                self.contexts[c.index()]
                    .bindings
                    .iter()
                    .find(|b| b.command == command)
            })
            .map_or(command.description(), |b| b.description.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn parse_table() {
        let c = KeyModifiers::CONTROL;
        let a = KeyModifiers::ALT;
        let s = KeyModifiers::SHIFT;
        let n = KeyModifiers::NONE;
        let table: &[(&str, KeyCode, KeyModifiers)] = &[
            ("q", KeyCode::Char('q'), n),
            ("G", KeyCode::Char('G'), n),
            ("shift-g", KeyCode::Char('G'), n),
            ("?", KeyCode::Char('?'), n),
            ("-", KeyCode::Char('-'), n),
            ("ctrl--", KeyCode::Char('-'), c),
            ("ctrl-d", KeyCode::Char('d'), c),
            ("Ctrl+D", KeyCode::Char('d'), c),
            ("<C-u>", KeyCode::Char('u'), c),
            ("alt-x", KeyCode::Char('x'), a),
            ("ctrl-alt-x", KeyCode::Char('x'), c | a),
            ("shift-tab", KeyCode::BackTab, n),
            ("backtab", KeyCode::BackTab, n),
            ("pgdn", KeyCode::PageDown, n),
            ("PageUp", KeyCode::PageUp, n),
            ("enter", KeyCode::Enter, n),
            ("Esc", KeyCode::Esc, n),
            ("space", KeyCode::Char(' '), n),
            ("f5", KeyCode::F(5), n),
            ("F12", KeyCode::F(12), n),
            ("shift-up", KeyCode::Up, s),
            ("home", KeyCode::Home, n),
            ("backspace", KeyCode::Backspace, n),
            ("minus", KeyCode::Char('-'), n),
        ];
        for (spec, code, mods) in table {
            let chord = KeyChord::parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
            assert_eq!(chord, KeyChord::new(*code, *mods), "{spec}");
        }
    }

    #[test]
    fn parse_errors() {
        for spec in [
            "",
            "ctrl-",
            "hyper-x",
            "f0",
            "f25",
            "pgdownn",
            "ctrl-enterr",
            "\u{1b}",
        ] {
            assert!(
                matches!(KeyChord::parse(spec), Err(KeymapError::BadKey { .. })),
                "{spec:?} should not parse"
            );
        }
    }

    #[test]
    fn display_table() {
        for (spec, shown) in [
            ("ctrl-d", "Ctrl-d"),
            ("shift-tab", "Shift-Tab"),
            ("pgdn", "PgDn"),
            ("up", "↑"),
            ("G", "G"),
            ("space", "Space"),
            ("f5", "F5"),
            ("alt-enter", "Alt-Enter"),
        ] {
            assert_eq!(KeyChord::parse(spec).expect(spec).to_string(), shown);
        }
    }

    #[test]
    fn every_default_spec_parses() {
        for table in [NAV, GLOBAL, LIST, TREE, TEXT_INPUT, OVERLAY] {
            for (cmd, specs) in table {
                for spec in *specs {
                    assert!(KeyChord::parse(spec).is_ok(), "{cmd}: {spec}");
                }
            }
        }
    }

    #[test]
    fn default_lookups_match_crossterm_events() {
        let km = KeyMap::defaults();
        let c = KeyModifiers::CONTROL;
        let n = KeyModifiers::NONE;
        let s = KeyModifiers::SHIFT;
        let table: &[(KeyContext, KeyEvent, Option<Command>)] = &[
            (
                KeyContext::List,
                key(KeyCode::Char('j'), n),
                Some(Command::Down),
            ),
            (KeyContext::List, key(KeyCode::Down, n), Some(Command::Down)),
            // terminals report G with or without SHIFT
            (
                KeyContext::List,
                key(KeyCode::Char('G'), s),
                Some(Command::Bottom),
            ),
            (
                KeyContext::List,
                key(KeyCode::Char('G'), n),
                Some(Command::Bottom),
            ),
            (
                KeyContext::List,
                key(KeyCode::Char('d'), c),
                Some(Command::PageDown),
            ),
            (
                KeyContext::List,
                key(KeyCode::Char('q'), n),
                Some(Command::Quit),
            ),
            (
                KeyContext::List,
                key(KeyCode::BackTab, s),
                Some(Command::PrevPane),
            ),
            (
                KeyContext::Global,
                key(KeyCode::Char('?'), s),
                Some(Command::Help),
            ),
            (
                KeyContext::Global,
                key(KeyCode::Char('c'), c),
                Some(Command::Quit),
            ),
            (
                KeyContext::Global,
                key(KeyCode::Char('3'), n),
                Some(Command::Pane3),
            ),
            (
                KeyContext::Tree,
                key(KeyCode::Char(' '), n),
                Some(Command::Toggle),
            ),
            (
                KeyContext::Tree,
                key(KeyCode::Left, n),
                Some(Command::Collapse),
            ),
            (
                KeyContext::Tree,
                key(KeyCode::Char('E'), s),
                Some(Command::ExpandAll),
            ),
            // typing in a text input never triggers commands…
            (KeyContext::TextInput, key(KeyCode::Char('q'), n), None),
            (KeyContext::TextInput, key(KeyCode::Char('j'), n), None),
            // …but Ctrl-c still quits and Enter confirms
            (
                KeyContext::TextInput,
                key(KeyCode::Char('c'), c),
                Some(Command::Quit),
            ),
            (
                KeyContext::TextInput,
                key(KeyCode::Enter, n),
                Some(Command::Confirm),
            ),
            (
                KeyContext::Overlay,
                key(KeyCode::Char('q'), n),
                Some(Command::Cancel),
            ),
            (
                KeyContext::Overlay,
                key(KeyCode::Char('/'), n),
                Some(Command::Filter),
            ),
            (KeyContext::List, key(KeyCode::Char('z'), n), None),
            (
                KeyContext::List,
                key(KeyCode::Char('x'), n),
                Some(Command::Execute),
            ),
        ];
        for (ctx, ev, want) in table {
            assert_eq!(km.lookup(*ctx, ev), *want, "{ctx} {ev:?}");
        }
        let mut release = key(KeyCode::Char('q'), n);
        release.kind = KeyEventKind::Release;
        assert_eq!(km.lookup(KeyContext::Global, &release), None);
    }

    fn raw(pairs: &[(&str, &[&str])]) -> BTreeMap<String, KeySpecs> {
        pairs
            .iter()
            .map(|(k, v)| {
                let specs = if v.len() == 1 {
                    KeySpecs::One(v[0].to_string())
                } else {
                    KeySpecs::Many(v.iter().map(|s| s.to_string()).collect())
                };
                (k.to_string(), specs)
            })
            .collect()
    }

    #[test]
    fn overrides_replace_and_steal() {
        let km = KeyMap::from_config(&raw(&[("down", &["n", "down"]), ("quit", &["ctrl-q"])]))
            .expect("valid");
        let n = KeyModifiers::NONE;
        // `down` replaced in every context where it was bound, `j` no longer bound
        for ctx in [KeyContext::List, KeyContext::Tree, KeyContext::Overlay] {
            assert_eq!(
                km.lookup(ctx, &key(KeyCode::Char('n'), n)),
                Some(Command::Down)
            );
            assert_eq!(km.lookup(ctx, &key(KeyCode::Char('j'), n)), None);
        }
        assert_eq!(
            km.lookup(KeyContext::Global, &key(KeyCode::Char('q'), n)),
            None
        );
        assert_eq!(
            km.lookup(
                KeyContext::Global,
                &key(KeyCode::Char('q'), KeyModifiers::CONTROL)
            ),
            Some(Command::Quit)
        );
        // descriptions survive the override; help order keeps the command's place
        assert_eq!(km.description(KeyContext::List, Command::Down), "move down");
        assert_eq!(
            km.keys_label(KeyContext::List, Command::Down).as_deref(),
            Some("n/↓")
        );
        let groups = km.groups(KeyContext::List);
        assert_eq!(groups[1].command, Command::Down);
    }

    #[test]
    fn override_takes_chord_from_other_command() {
        // `q` given to follow_tail: quit loses it (keeps Ctrl-c)
        let km = KeyMap::from_config(&raw(&[("follow_tail", &["q"])])).expect("valid");
        let ev = key(KeyCode::Char('q'), KeyModifiers::NONE);
        assert_eq!(
            km.lookup(KeyContext::Global, &ev),
            Some(Command::FollowTail)
        );
        assert_eq!(
            km.keys_label(KeyContext::Global, Command::Quit).as_deref(),
            Some("Ctrl-c")
        );
        assert_eq!(
            km.lookup(
                KeyContext::Global,
                &key(KeyCode::Char('f'), KeyModifiers::NONE)
            ),
            None
        );
    }

    #[test]
    fn override_table_errors_and_conflicts() {
        type Case<'a> = (&'a [(&'a str, &'a [&'a str])], &'a str);
        let cases: &[Case] = &[
            (&[("jump", &["x"])], "unknown command \"jump\""),
            (&[("panel.up", &["x"])], "unknown key context \"panel\""),
            (&[("up", &["ctrl-"])], "invalid key \"ctrl-\""),
            (
                &[("up", &["x"]), ("down", &["x"])],
                "key x is bound to both up and down in list",
            ),
            (
                &[("tree.parent", &["u"]), ("tree.up", &["u"])],
                "key u is bound to both up and parent in tree",
            ),
        ];
        for (pairs, want) in cases {
            let err = KeyMap::from_config(&raw(pairs))
                .expect_err(want)
                .to_string();
            assert!(err.starts_with(want), "{err:?} should start with {want:?}");
        }
        // same chord for different commands in different contexts is fine
        assert!(
            KeyMap::from_config(&raw(&[("tree.parent", &["u"]), ("list.sort", &["u"])])).is_ok()
        );
    }

    #[test]
    fn a_binding_that_shadows_another_is_an_error_naming_both() {
        let err = KeyMap::from_config(&raw(&[("copy", &["j"])])).expect_err("j is down in lists");
        assert_eq!(
            err,
            KeymapError::Shadows {
                chord: "j".into(),
                context: KeyContext::List,
                shadowed: Command::Down,
                by: Command::Copy,
            }
        );
        let text = err.to_string();
        assert!(text.contains("copy") && text.contains("down"), "{text}");
        // Moving `down` away too makes it fine.
        KeyMap::from_config(&raw(&[("copy", &["j"]), ("down", &["n"])])).expect("valid");
        // A list key over a global one is the same mistake.
        assert!(KeyMap::from_config(&raw(&[("list.select", &["y"])])).is_err());
    }

    #[test]
    fn context_specific_override_beats_general_one() {
        let km = KeyMap::from_config(&raw(&[("up", &["w"]), ("tree.up", &["o"])])).expect("valid");
        let n = KeyModifiers::NONE;
        assert_eq!(
            km.lookup(KeyContext::List, &key(KeyCode::Char('w'), n)),
            Some(Command::Up)
        );
        assert_eq!(
            km.lookup(KeyContext::Tree, &key(KeyCode::Char('o'), n)),
            Some(Command::Up)
        );
        assert_eq!(
            km.lookup(KeyContext::Tree, &key(KeyCode::Char('w'), n)),
            None
        );
    }

    #[test]
    fn empty_list_unbinds_and_new_commands_go_global() {
        let mut keys = raw(&[("sort", &["z"])]);
        keys.insert("export".into(), KeySpecs::Many(vec![]));
        let km = KeyMap::from_config(&keys).expect("valid");
        assert_eq!(km.keys_label(KeyContext::Global, Command::Export), None);
        // `sort` had list bindings: replaced there
        assert_eq!(
            km.lookup(
                KeyContext::List,
                &key(KeyCode::Char('z'), KeyModifiers::NONE)
            ),
            Some(Command::Sort)
        );
        // `palette` is unbound outside global, a new binding lands in global
        let km = KeyMap::from_config(&raw(&[("list.select", &["z"]), ("complete", &["ctrl-n"])]))
            .expect("valid");
        assert_eq!(
            km.lookup(
                KeyContext::TextInput,
                &key(KeyCode::Char('n'), KeyModifiers::CONTROL)
            ),
            Some(Command::Complete)
        );
    }

    #[test]
    fn command_names_round_trip_through_serde() {
        for c in Command::ALL {
            let parsed: Command =
                serde_json::from_str(&format!("\"{}\"", c.name())).expect("deserialises");
            assert_eq!(parsed, *c);
            assert_eq!(
                serde_json::to_string(c).expect("ser"),
                format!("\"{}\"", c.name())
            );
        }
        assert_eq!(Command::pane(3), Some(Command::Pane3));
        assert_eq!(Command::Pane9.pane_number(), Some(9));
        assert_eq!(Command::pane(0), None);
        assert!(serde_json::from_str::<Command>("\"nope\"").is_err());
    }

    #[test]
    fn footer_keys_skip_shadowed_global_chords() {
        let km = KeyMap::defaults();
        // in the tree `l` means expand, so it is not listed for a global command — and `q`
        // (overlay cancel) is not shown as quit in overlays
        assert_eq!(
            km.keys_label(KeyContext::Overlay, Command::Quit).as_deref(),
            Some("Ctrl-c")
        );
        assert_eq!(
            km.keys_label(KeyContext::List, Command::Quit).as_deref(),
            Some("q/Ctrl-c")
        );
        assert_eq!(km.keys_label(KeyContext::TextInput, Command::Help), None);
    }
}
