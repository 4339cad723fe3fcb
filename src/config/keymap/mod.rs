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

mod chord;
mod defaults;
#[cfg(test)]
mod tests;

pub use chord::KeyChord;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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
                b.description.clone_from(&description);
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
                let contexts: Vec<KeyContext> = if let Some(c) = o.context {
                    vec![c]
                } else {
                    let bound: Vec<KeyContext> = KeyContext::ALL
                        .into_iter()
                        .filter(|c| self.contexts[c.index()].binds(o.command))
                        .collect();
                    if bound.is_empty() {
                        vec![KeyContext::Global]
                    } else {
                        bound
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
