//! Themes: the TOML theme files, their config-side types, and the resolved [`Theme`] of ratatui
//! [`Style`]s every widget draws with.
//!
//! The built-in themes (`themes/dark.toml` — the default —, `light.toml`, `high-contrast.toml`,
//! `mono.toml`) are embedded in the binary. A file `<config dir>/themes/<name>.toml` patches the
//! built-in theme of the same name field by field (and within a field, `fg` / `bg` /
//! `modifiers` one by one); a file with a new name patches its `extends` theme (default `dark`).
//! Files are parsed into [`ThemeFile`] / [`StyleSpec`] and converted to [`Style`]s once, by
//! [`Theme::load`]. `NO_COLOR` (present and non-empty) selects `mono` unless a theme was asked
//! for explicitly: see [`resolve_theme_name`].

use crate::msg::ThemeSource;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// The default theme's name.
pub const DEFAULT_THEME: &str = "dark";
/// The theme used when `NO_COLOR` is set.
pub const NO_COLOR_THEME: &str = "mono";

const BUILTIN: &[(&str, &str)] = &[
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
    ("mono", include_str!("../../themes/mono.toml")),
];

/// Errors loading a theme. One line each.
#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    /// No built-in theme and no user file has this name.
    #[error("unknown theme {name:?} (available: {available})")]
    Unknown {
        /// The requested name.
        name: String,
        /// Comma-separated list of the themes that exist.
        available: String,
    },
    /// A theme name with characters other than letters, digits, `-` and `_`.
    #[error("invalid theme name {0:?}: use letters, digits, '-' and '_'")]
    InvalidName(String),
    /// The user theme file exists but cannot be read.
    #[error("cannot read theme file {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The theme file is not valid TOML or has unknown fields / bad values.
    #[error("theme file {origin}: {message}")]
    Parse {
        /// The file path, or `built-in <name>`.
        origin: String,
        /// Line number and message.
        message: String,
    },
}

/// One style as written in a theme file: a bare colour string is the foreground; a table may give
/// `fg`, `bg` and `modifiers`. Absent parts are inherited from the theme being patched.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StyleSpec {
    /// Foreground colour.
    pub fg: Option<ColorSpec>,
    /// Background colour.
    pub bg: Option<ColorSpec>,
    /// Modifiers; `Some(empty)` clears inherited modifiers.
    pub modifiers: Option<Modifier>,
}

/// A colour in a theme file: unset (`"default"` / `"none"`) or a ratatui colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorSpec {
    /// Leave the colour unset (drawn with whatever is beneath).
    Unset,
    /// A concrete colour (`Color::Reset` for `"reset"`).
    Color(Color),
}

impl ColorSpec {
    fn color(self) -> Option<Color> {
        match self {
            ColorSpec::Unset => None,
            ColorSpec::Color(c) => Some(c),
        }
    }
}

impl FromStr for ColorSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "default" | "none" | "" => Ok(ColorSpec::Unset),
            _ => Color::from_str(s.trim())
                .map(ColorSpec::Color)
                .map_err(|_| format!("unknown colour {s:?} (use a name, #rrggbb or 0-255)")),
        }
    }
}

fn parse_modifier(name: &str) -> Result<Modifier, String> {
    Ok(
        match name.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "bold" => Modifier::BOLD,
            "dim" => Modifier::DIM,
            "italic" => Modifier::ITALIC,
            "underlined" | "underline" => Modifier::UNDERLINED,
            "slow_blink" | "blink" => Modifier::SLOW_BLINK,
            "rapid_blink" => Modifier::RAPID_BLINK,
            "reversed" | "reverse" => Modifier::REVERSED,
            "hidden" => Modifier::HIDDEN,
            "crossed_out" | "strikethrough" => Modifier::CROSSED_OUT,
            _ => {
                return Err(format!(
                    "unknown modifier {name:?} (bold, dim, italic, underlined, slow_blink, \
                     rapid_blink, reversed, hidden, crossed_out)"
                ));
            }
        },
    )
}

impl StyleSpec {
    /// Overwrites the parts `other` sets.
    pub fn patch(&mut self, other: &StyleSpec) {
        if other.fg.is_some() {
            self.fg = other.fg;
        }
        if other.bg.is_some() {
            self.bg = other.bg;
        }
        if other.modifiers.is_some() {
            self.modifiers = other.modifiers;
        }
    }

    /// The ratatui style.
    pub fn to_style(&self) -> Style {
        let mut style = Style::default();
        if let Some(fg) = self.fg.and_then(ColorSpec::color) {
            style = style.fg(fg);
        }
        if let Some(bg) = self.bg.and_then(ColorSpec::color) {
            style = style.bg(bg);
        }
        if let Some(m) = self.modifiers {
            style = style.add_modifier(m);
        }
        style
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StyleTable {
    fg: Option<String>,
    bg: Option<String>,
    modifiers: Option<Vec<String>>,
}

impl<'de> Deserialize<'de> for StyleSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SpecVisitor;
        impl<'de> Visitor<'de> for SpecVisitor {
            type Value = StyleSpec;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a colour string or a table with fg, bg, modifiers")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<StyleSpec, E> {
                Ok(StyleSpec {
                    fg: Some(v.parse().map_err(E::custom)?),
                    ..StyleSpec::default()
                })
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<StyleSpec, A::Error> {
                let t = StyleTable::deserialize(de::value::MapAccessDeserializer::new(map))?;
                let color = |c: Option<String>| -> Result<Option<ColorSpec>, A::Error> {
                    c.map(|s| s.parse().map_err(de::Error::custom)).transpose()
                };
                let modifiers = match t.modifiers {
                    None => None,
                    Some(names) => {
                        let mut m = Modifier::empty();
                        for n in &names {
                            m |= parse_modifier(n).map_err(de::Error::custom)?;
                        }
                        Some(m)
                    }
                };
                Ok(StyleSpec {
                    fg: color(t.fg)?,
                    bg: color(t.bg)?,
                    modifiers,
                })
            }
        }
        deserializer.deserialize_any(SpecVisitor)
    }
}

macro_rules! theme_fields {
    ($( $(#[$doc:meta])* $field:ident ),* $(,)?) => {
        /// A theme file as written: every field optional.
        #[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct ThemeFile {
            /// For a user theme with a new name: the built-in theme it patches (default `dark`).
            #[serde(default)]
            pub extends: Option<String>,
            $( $(#[$doc])* #[serde(default)] pub $field: Option<StyleSpec>, )*
        }

        /// A resolved theme: one ratatui [`Style`] per UI role. Built once by [`Theme::load`].
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct Theme {
            /// The theme's name.
            pub name: String,
            $( $(#[$doc])* pub $field: Style, )*
        }

        /// The style fields of a theme, as named in theme files.
        pub const THEME_FIELDS: &[&str] = &[$(stringify!($field)),*];

        impl ThemeFile {
            /// Patches `self` with the fields (and parts of fields) `other` sets.
            pub fn patch(&mut self, other: &ThemeFile) {
                $(
                    match (&mut self.$field, &other.$field) {
                        (Some(mine), Some(theirs)) => mine.patch(theirs),
                        (mine @ None, Some(theirs)) => *mine = Some(theirs.clone()),
                        (_, None) => {}
                    }
                )*
            }

            /// Names of the style fields this file does not set.
            pub fn missing_fields(&self) -> Vec<&'static str> {
                let mut missing = Vec::new();
                $( if self.$field.is_none() { missing.push(stringify!($field)); } )*
                missing
            }

            /// Converts to ratatui styles; unset fields get the empty style.
            pub fn to_theme(&self, name: &str) -> Theme {
                Theme {
                    name: name.to_string(),
                    $( $field: self.$field.as_ref().map(StyleSpec::to_style).unwrap_or_default(), )*
                }
            }
        }

        impl Theme {
            /// Every style of the theme with its field name (for tests and diagnostics).
            pub fn styles(&self) -> Vec<(&'static str, Style)> {
                vec![$( (stringify!($field), self.$field), )*]
            }
        }
    };
}

theme_fields! {
    /// Default text and background of the whole screen.
    base,
    /// The header bar (profile, node health, migration, newest record time, live/paused).
    header,
    /// The footer with key hints.
    footer,
    /// The status line (messages, toasts).
    status_line,
    /// Healthy / success.
    status_ok,
    /// Warning / paused / degraded.
    status_warn,
    /// Error.
    status_err,
    /// The selected row in the focused widget.
    selection,
    /// The selected row in a widget without focus.
    selection_unfocused,
    /// Borders of unfocused blocks.
    border,
    /// Border of the focused block.
    border_focused,
    /// Block titles.
    title,
    /// Secondary text.
    muted,
    /// Emphasised text.
    accent,
    /// A key in hints and help (`q`, `Ctrl-d`).
    key_hint,
    /// A key's description in hints and help.
    key_desc,
    /// Table column headers.
    table_header,
    /// Update ids, event ids, contract ids, hashes.
    id,
    /// Party ids.
    party,
    /// Timestamps.
    time,
    /// Tree guide lines (`├─`, `│`).
    tree_guide,
    /// JSON object keys.
    json_key,
    /// JSON strings.
    json_string,
    /// JSON numbers.
    json_number,
    /// JSON booleans.
    json_bool,
    /// JSON null.
    json_null,
    /// JSON braces, brackets, commas, fold markers.
    json_punct,
    /// Verdict accepted.
    accepted,
    /// Verdict rejected.
    rejected,
    /// Created events.
    created,
    /// Non-consuming exercised events.
    exercised,
    /// Consuming exercised events (archives).
    archived,
    /// Assign (reassignment in).
    assign,
    /// Unassign (reassignment out).
    unassign,
    /// Sparklines.
    sparkline,
    /// Gauges and liveness bars.
    gauge,
    /// Filter / search matches.
    highlight_match,
    /// The active pane tab.
    tab_active,
    /// Other pane tabs.
    tab_inactive,
    /// Text being edited.
    input,
    /// Placeholder text of an empty input.
    placeholder,
    /// Body of overlays (help, palette, error log, dialogs).
    overlay,
}

impl Default for Theme {
    /// The built-in `dark` theme.
    fn default() -> Self {
        Theme::builtin(DEFAULT_THEME).unwrap_or_else(|_| ThemeFile::default().to_theme("plain"))
    }
}

/// Whether `NO_COLOR` is present and non-empty in the environment (<https://no-color.org>).
pub fn no_color_env() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// The theme to use: the one asked for (flag, config or `:theme`), else `mono` when `no_color`,
/// else `dark`. An explicit request wins over `NO_COLOR`, as no-color.org recommends.
pub fn resolve_theme_name(requested: Option<&str>, no_color: bool) -> &str {
    match requested {
        Some(name) if !name.trim().is_empty() => name,
        _ if no_color => NO_COLOR_THEME,
        _ => DEFAULT_THEME,
    }
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn builtin_source(name: &str) -> Option<&'static str> {
    BUILTIN.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

fn parse_file(text: &str, origin: &str) -> Result<ThemeFile, ThemeError> {
    toml::from_str::<ThemeFile>(text).map_err(|e| ThemeError::Parse {
        origin: origin.to_string(),
        message: toml_message(text, &e),
    })
}

/// `line N: message` from a toml error (its Display is a multi-line snippet).
pub(crate) fn toml_message(text: &str, e: &toml::de::Error) -> String {
    let msg = e.message().trim().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let line = text
                .get(..span.start)
                .map_or(0, |before| before.matches('\n').count())
                + 1;
            format!("line {line}: {msg}")
        }
        None => msg,
    }
}

impl Theme {
    /// Names of the built-in themes, default first.
    pub fn names() -> &'static [&'static str] {
        &["dark", "light", "high-contrast", "mono"]
    }

    /// Built-in and user theme names (user files in `<config_dir>/themes/*.toml`), sorted with
    /// the built-ins first; for `:theme` completion.
    pub fn available(config_dir: Option<&Path>) -> Vec<String> {
        let mut names: Vec<String> = Self::names()
            .iter()
            .map(std::string::ToString::to_string)
            .collect();
        let mut user = Vec::new();
        if let Some(dir) = config_dir
            && let Ok(entries) = std::fs::read_dir(dir.join("themes"))
        {
            for entry in entries.flatten() {
                let path = entry.path();
                if path.extension().is_some_and(|e| e == "toml")
                    && let Some(stem) = path.file_stem().and_then(|s| s.to_str())
                    && valid_name(stem)
                    && !names.iter().any(|n| n == stem)
                {
                    user.push(stem.to_string());
                }
            }
        }
        user.sort();
        names.extend(user);
        names
    }

    /// A built-in theme without user overrides.
    pub fn builtin(name: &str) -> Result<Theme, ThemeError> {
        let src = builtin_source(name).ok_or_else(|| ThemeError::Unknown {
            name: name.to_string(),
            available: Self::names().join(", "),
        })?;
        Ok(parse_file(src, &format!("built-in {name}"))?.to_theme(name))
    }

    /// Loads theme `name`: the built-in theme patched by `<config_dir>/themes/<name>.toml` when
    /// that file exists, or a user-only theme patching its `extends` (default `dark`).
    pub fn load(name: &str, config_dir: Option<&Path>) -> Result<Theme, ThemeError> {
        Self::from_source(&Self::read_source(name, config_dir)?)
    }

    /// Reads what theme `name` is made of (the I/O half of [`Theme::load`]): the user's theme
    /// file, if any, and the names available.
    pub fn read_source(name: &str, config_dir: Option<&Path>) -> Result<ThemeSource, ThemeError> {
        if !valid_name(name) {
            return Err(ThemeError::InvalidName(name.to_string()));
        }
        let user_file = match config_dir {
            Some(dir) => {
                let path = dir.join("themes").join(format!("{name}.toml"));
                match std::fs::read_to_string(&path) {
                    Ok(text) => Some((path.display().to_string(), text)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                    Err(source) => return Err(ThemeError::Io { path, source }),
                }
            }
            None => None,
        };
        Ok(ThemeSource {
            name: name.to_string(),
            user_file,
            available: Self::available(config_dir),
        })
    }

    /// Builds a theme from what [`Theme::read_source`] read (the pure half of [`Theme::load`]).
    pub fn from_source(src: &ThemeSource) -> Result<Theme, ThemeError> {
        let name = src.name.as_str();
        let user = match &src.user_file {
            Some((path, text)) => Some(parse_file(text, path)?),
            None => None,
        };
        let base_name = match (&user, builtin_source(name)) {
            (Some(u), _) if u.extends.is_some() => u.extends.clone().unwrap_or_default(),
            (_, Some(_)) => name.to_string(),
            (Some(_), None) => DEFAULT_THEME.to_string(),
            (None, None) => {
                return Err(ThemeError::Unknown {
                    name: name.to_string(),
                    available: src.available.join(", "),
                });
            }
        };
        let base_src = builtin_source(&base_name).ok_or_else(|| ThemeError::Unknown {
            name: base_name.clone(),
            available: Self::names().join(", "),
        })?;
        let mut file = parse_file(base_src, &format!("built-in {base_name}"))?;
        if let Some(u) = &user {
            file.patch(u);
        }
        Ok(file.to_theme(name))
    }

    /// The selection style for a widget with or without focus.
    pub fn selection_style(&self, focused: bool) -> Style {
        if focused {
            self.selection
        } else {
            self.selection_unfocused
        }
    }

    /// The border style for a block with or without focus.
    pub fn border_style(&self, focused: bool) -> Style {
        if focused {
            self.border_focused
        } else {
            self.border
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_parses_and_sets_every_field() {
        for (name, src) in BUILTIN {
            let file = parse_file(src, name).expect("built-in theme parses");
            assert!(
                file.missing_fields().is_empty(),
                "{name} misses {:?}",
                file.missing_fields()
            );
            assert!(file.extends.is_none(), "{name} must be complete on its own");
        }
        assert_eq!(
            Theme::names(),
            BUILTIN.iter().map(|(n, _)| *n).collect::<Vec<_>>()
        );
    }

    #[test]
    fn style_spec_forms() {
        let f: ThemeFile = toml::from_str(
            r##"
            muted = "dark-gray"
            header = { fg = "#102030", bg = "reset", modifiers = ["bold", "reversed"] }
            base = { fg = "default" }
            "##,
        )
        .expect("parses");
        assert_eq!(
            f.muted.expect("set").to_style(),
            Style::new().fg(Color::DarkGray)
        );
        assert_eq!(
            f.header.expect("set").to_style(),
            Style::new()
                .fg(Color::Rgb(0x10, 0x20, 0x30))
                .bg(Color::Reset)
                .add_modifier(Modifier::BOLD | Modifier::REVERSED)
        );
        assert_eq!(f.base.expect("set").to_style(), Style::new());
    }

    #[test]
    fn bad_files_name_the_line() {
        for (text, needle) in [
            ("muted = \"purplish\"", "line 1: unknown colour"),
            ("\n\nheadr = {}", "line 3: unknown field `headr`"),
            ("title = { modifiers = [\"blinky\"] }", "unknown modifier"),
            ("title = { fg = \"red\", size = 3 }", "unknown field `size`"),
            ("title = 3", "a colour string or a table"),
        ] {
            let err = parse_file(text, "test.toml").expect_err(text).to_string();
            assert!(err.contains(needle), "{text:?}: {err}");
            assert!(!err.contains('\n'), "one line: {err}");
        }
    }

    #[test]
    fn resolve_name() {
        assert_eq!(resolve_theme_name(None, false), "dark");
        assert_eq!(resolve_theme_name(None, true), "mono");
        assert_eq!(resolve_theme_name(Some("light"), true), "light");
        assert_eq!(resolve_theme_name(Some(""), true), "mono");
    }

    #[test]
    fn patch_is_per_attribute() {
        let mut base: ThemeFile =
            toml::from_str("title = { fg = \"red\", modifiers = [\"bold\"] }").expect("parses");
        let over: ThemeFile = toml::from_str("title = { bg = \"blue\" }").expect("parses");
        base.patch(&over);
        assert_eq!(
            base.to_theme("t").title,
            Style::new()
                .fg(Color::Red)
                .bg(Color::Blue)
                .add_modifier(Modifier::BOLD)
        );
    }
}
