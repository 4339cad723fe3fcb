//! [`KeyChord`]: a key with its modifiers, its text form (`"ctrl-d"`, `"<C-u>"`, `"G"`) and how
//! it is shown (`Ctrl-d`, `↑`).

use std::fmt;
use std::str::FromStr;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::KeymapError;

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
