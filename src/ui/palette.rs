//! The command palette (`:`): an input line, completion over a command list the caller supplies
//! (names, argument hints, known argument values), history on ↑/↓, and parsing into a
//! [`PaletteCommand`] on Enter. Generic: it knows no command's meaning.
//!
//! ```text
//! ┌ : ─────────────────────────────────────────────┐
//! │ : th█                                          │
//! │ theme <name>        switch the colour theme    │
//! │ time <ts>           jump to a record time      │
//! └────────────────────────────────────────────────┘
//! ```
//!
//! Keys go through the keymap's `text_input` context: confirm (Enter) runs, cancel (Esc) closes,
//! complete (Tab) completes the word under the cursor and cycles through candidates (Shift-Tab
//! backwards), history_prev/next (↑/↓) walk the history. A command name may be abbreviated to
//! any unique prefix (`:q`).

use crate::ui::layout::{draw_overlay, overlay_block};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::config::keymap::{KeyContext, KeyMap};
use crate::msg::Command;
use crate::ui::safe::{safe_line, truncate_width};
use crate::ui::text_input::{InputOutcome, TextInput};
use crate::ui::theme::Theme;

/// History entries kept.
pub const HISTORY_LIMIT: usize = 100;
/// Completion candidates drawn at most.
pub const MAX_SHOWN_COMPLETIONS: usize = 8;

/// One argument of a palette command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgSpec {
    /// Its name, shown as `<name>` (`[name]` when optional).
    pub name: String,
    /// May be left out.
    pub optional: bool,
    /// Known values, offered as completions (not enforced).
    pub values: Vec<String>,
    /// The last argument takes the rest of the line as typed (spaces and all): a filter, a time
    /// like `yesterday 14:00`, a path with spaces.
    pub rest: bool,
}

/// One command the palette offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaletteEntry {
    /// The name typed (`event`).
    pub name: String,
    /// Its arguments, in order.
    pub args: Vec<ArgSpec>,
    /// What it does.
    pub description: String,
    /// Short names that also run it (`gov`, `net`), as k9s's `:po`.
    pub aliases: Vec<String>,
    /// Ranked after the commands when a prefix is matched (the panes): a prefix some command
    /// has runs that command (`:s` is still `sweep`; `:st` is the Status pane).
    pub secondary: bool,
}

impl PaletteEntry {
    /// A command without arguments.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        PaletteEntry {
            name: name.into(),
            args: Vec::new(),
            description: description.into(),
            aliases: Vec::new(),
            secondary: false,
        }
    }

    /// Adds short names that also run it.
    #[must_use]
    pub fn aliases(mut self, aliases: &[&str]) -> Self {
        self.aliases.extend(aliases.iter().map(|a| (*a).to_owned()));
        self
    }

    /// Ranks it after the commands when a prefix is matched.
    #[must_use]
    pub fn secondary(mut self) -> Self {
        self.secondary = true;
        self
    }

    /// Adds a required argument.
    pub fn arg(mut self, name: impl Into<String>) -> Self {
        self.args.push(ArgSpec {
            name: name.into(),
            optional: false,
            values: Vec::new(),
            rest: false,
        });
        self
    }

    /// Adds an optional argument (only after the required ones).
    pub fn optional_arg(mut self, name: impl Into<String>) -> Self {
        self.args.push(ArgSpec {
            name: name.into(),
            optional: true,
            values: Vec::new(),
            rest: false,
        });
        self
    }

    /// Adds a required argument with known values to complete from.
    pub fn arg_with_values(mut self, name: impl Into<String>, values: Vec<String>) -> Self {
        self.args.push(ArgSpec {
            name: name.into(),
            optional: false,
            values,
            rest: false,
        });
        self
    }

    /// Makes the last argument take the rest of the line as typed.
    pub fn rest(mut self) -> Self {
        if let Some(a) = self.args.last_mut() {
            a.rest = true;
        }
        self
    }

    /// `event <update_id>`, `theme <name>`, `time [ts]`.
    pub fn usage(&self) -> String {
        let mut out = self.name.clone();
        for a in &self.args {
            let dots = if a.rest { "…" } else { "" };
            if a.optional {
                out.push_str(&format!(" [{}{dots}]", a.name));
            } else {
                out.push_str(&format!(" <{}{dots}>", a.name));
            }
        }
        out
    }

    fn required(&self) -> usize {
        self.args.iter().filter(|a| !a.optional).count()
    }
}

/// What the user ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaletteCommand {
    /// The full command name (abbreviations resolved).
    pub name: String,
    /// The arguments as typed.
    pub args: Vec<String>,
}

/// What a key did in the palette.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaletteOutcome {
    /// Run this command (the palette should close).
    Submitted(PaletteCommand),
    /// Close the palette.
    Cancelled,
    /// The palette changed (redraw).
    Changed,
    /// A command that is not the palette's (e.g. quit from Ctrl-c).
    Passthrough(Command),
    /// Nothing happened.
    Ignored,
}

/// One completion candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The word that replaces the one under the cursor.
    pub text: String,
    /// What the list shows first: the usage for command names, the value for values.
    pub hint: String,
    /// What the list shows next: the command's description, or `<argument>` for values.
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Cycle {
    /// Input text before the word being completed.
    head: String,
    candidates: Vec<Completion>,
    index: usize,
}

/// Palette state.
#[derive(Debug, Clone)]
pub struct Palette {
    entries: Vec<PaletteEntry>,
    input: TextInput,
    history: Vec<String>,
    history_pos: Option<usize>,
    draft: String,
    cycle: Option<Cycle>,
}

impl Palette {
    /// A palette offering `entries`.
    pub fn new(entries: Vec<PaletteEntry>) -> Self {
        Palette {
            entries,
            input: TextInput::single_line().with_placeholder("command (Tab completes)"),
            history: Vec::new(),
            history_pos: None,
            draft: String::new(),
            cycle: None,
        }
    }

    /// Replaces the command list (e.g. when theme names or known ids change).
    pub fn set_entries(&mut self, entries: Vec<PaletteEntry>) {
        self.entries = entries;
        self.cycle = None;
    }

    /// The command list.
    pub fn entries(&self) -> &[PaletteEntry] {
        &self.entries
    }

    /// Clears the input for a fresh start (call when opening).
    pub fn open(&mut self) {
        self.input.clear();
        self.input.set_validation(None);
        self.history_pos = None;
        self.draft.clear();
        self.cycle = None;
    }

    /// The input line.
    pub fn input_text(&self) -> String {
        self.input.text()
    }

    /// Replaces the input line.
    pub fn set_input(&mut self, text: &str) {
        self.input.set_text(text);
        self.cycle = None;
    }

    /// The validation message of the last failed Enter.
    pub fn error(&self) -> Option<&str> {
        self.input.validation()
    }

    /// The history, oldest first.
    pub fn history(&self) -> &[String] {
        &self.history
    }

    /// Sets the history (e.g. restored from disk), oldest first.
    pub fn set_history(&mut self, history: Vec<String>) {
        let skip = history.len().saturating_sub(HISTORY_LIMIT);
        self.history = history.into_iter().skip(skip).collect();
        self.history_pos = None;
    }

    fn entry(&self, name: &str) -> Result<&PaletteEntry, String> {
        let name = name.to_ascii_lowercase();
        let name = name.as_str();
        if let Some(e) = self
            .entries
            .iter()
            .find(|e| e.name == name || e.aliases.iter().any(|a| a == name))
        {
            return Ok(e);
        }
        let prefixed = |secondary: bool| -> Vec<&PaletteEntry> {
            self.entries
                .iter()
                .filter(|e| e.secondary == secondary && e.name.starts_with(name))
                .collect()
        };
        let mut matches = prefixed(false);
        if matches.is_empty() {
            matches = prefixed(true);
        }
        match matches.as_slice() {
            [one] => Ok(one),
            [] => Err(format!(
                "unknown command {:?} (Tab lists commands)",
                safe_line(name, 40)
            )),
            many => Err(format!(
                "ambiguous {:?}: {}",
                safe_line(name, 40),
                many.iter()
                    .map(|e| e.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// The short names that run `entry` (`gov` for `governance`): its aliases, then the
    /// shortest prefix that runs it when shorter than the name.
    pub fn short_names(&self, entry: &PaletteEntry) -> Vec<String> {
        let mut out = entry.aliases.clone();
        let prefix = (1..entry.name.len())
            .map(|n| &entry.name[..n])
            .find(|p| self.entry(p).is_ok_and(|e| e.name == entry.name));
        if let Some(p) = prefix.filter(|p| !out.iter().any(|a| a == p)) {
            out.push(p.to_owned());
        }
        out
    }

    /// Parses a command line: the name (or a unique prefix) and its arguments, checked against
    /// the entry's argument count.
    pub fn parse(&self, line: &str) -> Result<PaletteCommand, String> {
        let mut words = words_at(line);
        let (_, name) = words.next().ok_or_else(|| "empty command".to_string())?;
        let entry = self.entry(name.trim_start_matches(':'))?;
        let mut args: Vec<String> = Vec::new();
        for (at, word) in words {
            if args.len() + 1 == entry.args.len() && entry.args.last().is_some_and(|a| a.rest) {
                // The last argument: the rest of the line as typed.
                args.push(line[at..].trim_end().to_string());
                break;
            }
            args.push(word.to_string());
        }
        if args.len() < entry.required() || args.len() > entry.args.len() {
            return Err(format!("usage: {}", entry.usage()));
        }
        Ok(PaletteCommand {
            name: entry.name.clone(),
            args,
        })
    }

    /// Completion candidates for the word at the end of the input: command names for the first
    /// word, known values of the argument for later words.
    pub fn completions(&self) -> Vec<Completion> {
        let text = self.input.text();
        let (_, word, index) = split_last_word(&text);
        if index == 0 {
            let w = word.trim_start_matches(':');
            let mut out: Vec<Completion> = self
                .entries
                .iter()
                .filter(|e| e.name.starts_with(w))
                .map(|e| Completion {
                    text: e.name.clone(),
                    hint: e.usage(),
                    description: e.description.clone(),
                })
                .collect();
            // Then names merely containing the word.
            if !w.is_empty() {
                out.extend(
                    self.entries
                        .iter()
                        .filter(|e| !e.name.starts_with(w) && e.name.contains(w))
                        .map(|e| Completion {
                            text: e.name.clone(),
                            hint: e.usage(),
                            description: e.description.clone(),
                        }),
                );
            }
            return out;
        }
        let first = text.split_whitespace().next().unwrap_or("");
        let Ok(entry) = self.entry(first.trim_start_matches(':')) else {
            return Vec::new();
        };
        let Some(arg) = entry.args.get(index - 1) else {
            return Vec::new();
        };
        let lower = word.to_lowercase();
        arg.values
            .iter()
            .filter(|v| v.to_lowercase().starts_with(&lower))
            .map(|v| Completion {
                text: v.clone(),
                hint: v.clone(),
                description: format!("<{}>", arg.name),
            })
            .collect()
    }

    fn complete(&mut self, backwards: bool) -> PaletteOutcome {
        if let Some(cycle) = &mut self.cycle {
            let n = cycle.candidates.len();
            cycle.index = if backwards {
                (cycle.index + n - 1) % n
            } else {
                (cycle.index + 1) % n
            };
            let text = format!("{}{}", cycle.head, cycle.candidates[cycle.index].text);
            self.input.set_text(&text);
            return PaletteOutcome::Changed;
        }
        let candidates = self.completions();
        let text = self.input.text();
        let (head, _, index) = split_last_word(&text);
        let head = head.to_string();
        match candidates.len() {
            0 => PaletteOutcome::Ignored,
            1 => {
                let c = &candidates[0];
                let needs_space = index == 0
                    && self
                        .entries
                        .iter()
                        .any(|e| e.name == c.text && !e.args.is_empty());
                let text = format!("{head}{}{}", c.text, if needs_space { " " } else { "" });
                self.input.set_text(&text);
                PaletteOutcome::Changed
            }
            _ => {
                let text = format!("{head}{}", candidates[0].text);
                self.input.set_text(&text);
                self.cycle = Some(Cycle {
                    head,
                    candidates,
                    index: 0,
                });
                PaletteOutcome::Changed
            }
        }
    }

    fn history_step(&mut self, older: bool) -> PaletteOutcome {
        if self.history.is_empty() {
            return PaletteOutcome::Ignored;
        }
        let pos = match (self.history_pos, older) {
            (None, true) => {
                self.draft = self.input.text();
                Some(self.history.len() - 1)
            }
            (None, false) => return PaletteOutcome::Ignored,
            (Some(p), true) => Some(p.saturating_sub(1)),
            (Some(p), false) if p + 1 < self.history.len() => Some(p + 1),
            (Some(_), false) => None,
        };
        self.history_pos = pos;
        let text = match pos {
            Some(p) => self.history[p].clone(),
            None => std::mem::take(&mut self.draft),
        };
        self.input.set_text(&text);
        self.cycle = None;
        PaletteOutcome::Changed
    }

    fn submit(&mut self) -> PaletteOutcome {
        let line = self.input.text();
        if line.trim().is_empty() {
            return PaletteOutcome::Cancelled;
        }
        match self.parse(&line) {
            Ok(cmd) => {
                let line = line.trim().to_string();
                if self.history.last() != Some(&line) {
                    self.history.push(line);
                    if self.history.len() > HISTORY_LIMIT {
                        self.history.remove(0);
                    }
                }
                self.history_pos = None;
                self.cycle = None;
                PaletteOutcome::Submitted(cmd)
            }
            Err(message) => {
                self.input.set_validation(Some(message));
                PaletteOutcome::Changed
            }
        }
    }

    /// Handles a key (see the module docs).
    pub fn handle_key(&mut self, keymap: &KeyMap, key: &KeyEvent) -> PaletteOutcome {
        if key.code == KeyCode::BackTab && self.cycle.is_some() {
            return self.complete(true);
        }
        let outcome = match keymap.lookup(KeyContext::TextInput, key) {
            Some(Command::Confirm) => return self.submit(),
            Some(Command::Cancel) => return PaletteOutcome::Cancelled,
            Some(Command::Complete) => return self.complete(false),
            Some(Command::HistoryPrev) => return self.history_step(true),
            Some(Command::HistoryNext) => return self.history_step(false),
            Some(other) => return PaletteOutcome::Passthrough(other),
            None => self.input.handle_key(key),
        };
        match outcome {
            InputOutcome::Changed => {
                self.cycle = None;
                self.history_pos = None;
                PaletteOutcome::Changed
            }
            InputOutcome::Consumed => PaletteOutcome::Changed,
            InputOutcome::Submitted(_) => self.submit(),
            InputOutcome::Cancelled => PaletteOutcome::Cancelled,
            InputOutcome::Ignored => PaletteOutcome::Ignored,
        }
    }

    /// Rows the palette wants (borders, input, error, completions), for sizing its box.
    pub fn desired_height(&self) -> u16 {
        let shown = self.completions().len().min(MAX_SHOWN_COMPLETIONS) as u16;
        2 + 1 + u16::from(self.error().is_some()) + shown
    }

    /// The usual box: top of `screen`, centred, up to 80 columns wide.
    pub fn area(&self, screen: Rect) -> Rect {
        let w = screen.width.min(80);
        let h = self.desired_height().min(screen.height);
        Rect::new(
            screen.x + (screen.width - w) / 2,
            screen.y + screen.height.min(2).min(screen.height - h),
            w,
            h,
        )
    }

    /// Draws the palette in `area` (see [`Palette::area`]).
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let Some(inner) = draw_overlay(area, buf, overlay_block(" Command ", theme)) else {
            return;
        };
        // One row: the validation message is drawn below by us, not by the input.
        let row = Rect::new(inner.x, inner.y, inner.width, 1);
        self.input.render_prompted(row, buf, ": ", theme, true);
        let mut y = inner.y + 1;
        let bottom = inner.y + inner.height;
        let width = usize::from(inner.width);
        if let Some(err) = self.error()
            && y < bottom
        {
            buf.set_line(
                inner.x,
                y,
                &Line::styled(safe_line(err, width), theme.status_err),
                inner.width,
            );
            y += 1;
        }
        let completions = match &self.cycle {
            Some(c) => c.candidates.clone(),
            None => self.completions(),
        };
        let selected = self.cycle.as_ref().map(|c| c.index);
        let hint_w = completions
            .iter()
            .map(|c| c.hint.width())
            .max()
            .unwrap_or(0)
            .min(width / 2);
        let first = selected.map_or(0, |s| s.saturating_sub(MAX_SHOWN_COMPLETIONS - 1));
        for (i, c) in completions
            .iter()
            .enumerate()
            .skip(first)
            .take(MAX_SHOWN_COMPLETIONS)
        {
            if y >= bottom {
                break;
            }
            let hint = safe_line(&c.hint, hint_w);
            let pad = hint_w.saturating_sub(hint.width()) + 2;
            let line = Line::from(vec![
                Span::styled(hint.into_owned(), theme.accent),
                Span::raw(" ".repeat(pad)),
                Span::styled(
                    truncate_width(&c.description, width.saturating_sub(hint_w + 2)).into_owned(),
                    theme.muted,
                ),
            ]);
            buf.set_line(inner.x, y, &line, inner.width);
            if Some(i) == selected {
                buf.set_style(Rect::new(inner.x, y, inner.width, 1), theme.selection);
            }
            y += 1;
        }
    }
}

/// Splits `text` into (everything before the last word, the last word, the word's index). A
/// trailing space starts a new empty word.
/// The whitespace-separated words of `line`, each with its byte offset.
fn words_at(line: &str) -> std::vec::IntoIter<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, &line[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, &line[s..]));
    }
    out.into_iter()
}

fn split_last_word(text: &str) -> (&str, &str, usize) {
    let start = text.rfind(char::is_whitespace).map_or(0, |i| i + 1);
    let index = text[..start].split_whitespace().count();
    (&text[..start], &text[start..], index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    fn palette() -> Palette {
        Palette::new(vec![
            PaletteEntry::new("event", "open an update by id").arg("update_id"),
            PaletteEntry::new("time", "jump to a record time").arg("ts"),
            PaletteEntry::new("theme", "switch the colour theme").arg_with_values(
                "name",
                vec![
                    "dark".into(),
                    "light".into(),
                    "high-contrast".into(),
                    "mono".into(),
                ],
            ),
            PaletteEntry::new("hash", "open an update by hash").arg("hash"),
            PaletteEntry::new("quit", "quit cantonscope"),
        ])
    }

    fn key(p: &mut Palette, km: &KeyMap, code: KeyCode) -> PaletteOutcome {
        p.handle_key(km, &KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn typed(p: &mut Palette, km: &KeyMap, s: &str) {
        for c in s.chars() {
            key(p, km, KeyCode::Char(c));
        }
    }

    /// The test palette with `s` typed into it.
    fn palette_typed(km: &KeyMap, s: &str) -> Palette {
        let mut p = palette();
        typed(&mut p, km, s);
        p
    }

    #[test]
    fn parse_table() {
        let p = palette();
        let ok = |name: &str, args: &[&str]| {
            Ok(PaletteCommand {
                name: name.into(),
                args: args.iter().map(std::string::ToString::to_string).collect(),
            })
        };
        let cases = [
            ("event 1220ab", ok("event", &["1220ab"])),
            (":q", ok("quit", &[])),
            ("  ev   x  ", ok("event", &["x"])),
            ("th light", ok("theme", &["light"])),
            ("t x", Err("ambiguous \"t\": time, theme".into())),
            ("event", Err("usage: event <update_id>".into())),
            ("quit now", Err("usage: quit".into())),
        ];
        for (input, want) in cases {
            assert_eq!(p.parse(input), want, "{input:?}");
        }
        assert!(
            p.parse("jump 3")
                .expect_err("unknown")
                .starts_with("unknown command \"jump\"")
        );
    }

    #[test]
    fn the_last_argument_can_take_the_rest_of_the_line() {
        let p = Palette::new(vec![
            PaletteEntry::new("filter", "filter")
                .optional_arg("text")
                .rest(),
            PaletteEntry::new("sweep", "sweep")
                .optional_arg("what")
                .optional_arg("time|file")
                .rest(),
        ]);
        let args = |line: &str| p.parse(line).map(|c| c.args);
        let cases: [(&str, &[&str]); 5] = [
            ("filter", &[]),
            (
                "filter party:ju  choice:Transfer ",
                &["party:ju  choice:Transfer"],
            ),
            ("sweep save", &["save"]),
            (
                "sweep save /tmp/my  sweeps/a b.json",
                &["save", "/tmp/my  sweeps/a b.json"],
            ),
            ("sweep from yesterday 14:00", &["from", "yesterday 14:00"]),
        ];
        for (line, want) in cases {
            assert_eq!(
                args(line),
                Ok(want.iter().map(std::string::ToString::to_string).collect()),
                "{line:?}"
            );
        }
        assert_eq!(p.entries[1].usage(), "sweep [what] [time|file…]");
    }

    #[test]
    fn tab_completes_names_then_values() {
        let km = KeyMap::defaults();
        let mut p = palette_typed(&km, "ev");
        assert_eq!(key(&mut p, &km, KeyCode::Tab), PaletteOutcome::Changed);
        assert_eq!(p.input_text(), "event ");
        p.set_input("theme ");
        let c: Vec<String> = p.completions().into_iter().map(|c| c.text).collect();
        assert_eq!(c, ["dark", "light", "high-contrast", "mono"]);
        typed(&mut p, &km, "l");
        key(&mut p, &km, KeyCode::Tab);
        assert_eq!(p.input_text(), "theme light");
        // several candidates: Tab cycles, Shift-Tab goes back
        p.set_input("t");
        key(&mut p, &km, KeyCode::Tab);
        assert_eq!(p.input_text(), "time");
        key(&mut p, &km, KeyCode::Tab);
        assert_eq!(p.input_text(), "theme");
        p.handle_key(&km, &KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT));
        assert_eq!(p.input_text(), "time");
        // nothing to complete
        p.set_input("event x");
        assert_eq!(key(&mut p, &km, KeyCode::Tab), PaletteOutcome::Ignored);
    }

    #[test]
    fn enter_submits_or_explains_and_history_walks() {
        let km = KeyMap::defaults();
        let mut p = palette_typed(&km, "event");
        assert_eq!(key(&mut p, &km, KeyCode::Enter), PaletteOutcome::Changed);
        assert_eq!(p.error(), Some("usage: event <update_id>"));
        typed(&mut p, &km, " abc");
        assert_eq!(p.error(), None, "editing clears the message");
        assert_eq!(
            key(&mut p, &km, KeyCode::Enter),
            PaletteOutcome::Submitted(PaletteCommand {
                name: "event".into(),
                args: vec!["abc".into()]
            })
        );
        p.open();
        typed(&mut p, &km, "quit");
        key(&mut p, &km, KeyCode::Enter);
        p.open();
        typed(&mut p, &km, "dra");
        key(&mut p, &km, KeyCode::Up);
        assert_eq!(p.input_text(), "quit");
        key(&mut p, &km, KeyCode::Up);
        assert_eq!(p.input_text(), "event abc");
        key(&mut p, &km, KeyCode::Up);
        assert_eq!(p.input_text(), "event abc");
        key(&mut p, &km, KeyCode::Down);
        key(&mut p, &km, KeyCode::Down);
        assert_eq!(p.input_text(), "dra", "the draft comes back");
        assert_eq!(p.history(), ["event abc", "quit"]);
        p.open();
        assert_eq!(key(&mut p, &km, KeyCode::Enter), PaletteOutcome::Cancelled);
        assert_eq!(key(&mut p, &km, KeyCode::Esc), PaletteOutcome::Cancelled);
        assert_eq!(
            p.handle_key(
                &km,
                &KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)
            ),
            PaletteOutcome::Passthrough(Command::Quit)
        );
    }
}
