use super::defaults::{GLOBAL, LIST, NAV, OVERLAY, TEXT_INPUT, TREE};
use super::*;
use crossterm::event::{KeyEventKind, KeyModifiers};

fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, mods)
}

/// A character key press.
fn ch(c: char, mods: KeyModifiers) -> KeyEvent {
    key(KeyCode::Char(c), mods)
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
    use KeyContext::{Global, List, Overlay, TextInput, Tree};
    let km = KeyMap::defaults();
    let c = KeyModifiers::CONTROL;
    let n = KeyModifiers::NONE;
    let s = KeyModifiers::SHIFT;
    let table: &[(KeyContext, KeyEvent, Option<Command>)] = &[
        (List, ch('j', n), Some(Command::Down)),
        (List, key(KeyCode::Down, n), Some(Command::Down)),
        // terminals report G with or without SHIFT
        (List, ch('G', s), Some(Command::Bottom)),
        (List, ch('G', n), Some(Command::Bottom)),
        (List, ch('d', c), Some(Command::PageDown)),
        (List, ch('q', n), Some(Command::Quit)),
        (List, key(KeyCode::BackTab, s), Some(Command::PrevPane)),
        (Global, ch('?', s), Some(Command::Help)),
        (Global, ch('c', c), Some(Command::Quit)),
        (Global, ch('3', n), Some(Command::Pane3)),
        (Tree, ch(' ', n), Some(Command::Toggle)),
        (Tree, key(KeyCode::Left, n), Some(Command::Collapse)),
        (Tree, ch('E', s), Some(Command::ExpandAll)),
        // typing in a text input never triggers commands…
        (TextInput, ch('q', n), None),
        (TextInput, ch('j', n), None),
        // …but Ctrl-c still quits and Enter confirms
        (TextInput, ch('c', c), Some(Command::Quit)),
        (TextInput, key(KeyCode::Enter, n), Some(Command::Confirm)),
        (Overlay, ch('q', n), Some(Command::Cancel)),
        (Overlay, ch('/', n), Some(Command::Filter)),
        (List, ch('z', n), None),
        (List, ch('x', n), Some(Command::Execute)),
    ];
    for (ctx, ev, want) in table {
        assert_eq!(km.lookup(*ctx, ev), *want, "{ctx} {ev:?}");
    }
    let mut release = ch('q', n);
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
                KeySpecs::Many(v.iter().map(std::string::ToString::to_string).collect())
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
        assert_eq!(km.lookup(ctx, &ch('n', n)), Some(Command::Down));
        assert_eq!(km.lookup(ctx, &ch('j', n)), None);
    }
    assert_eq!(km.lookup(KeyContext::Global, &ch('q', n)), None);
    assert_eq!(
        km.lookup(KeyContext::Global, &ch('q', KeyModifiers::CONTROL)),
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
    let ev = ch('q', KeyModifiers::NONE);
    assert_eq!(
        km.lookup(KeyContext::Global, &ev),
        Some(Command::FollowTail)
    );
    assert_eq!(
        km.keys_label(KeyContext::Global, Command::Quit).as_deref(),
        Some("Ctrl-c")
    );
    assert_eq!(
        km.lookup(KeyContext::Global, &ch('f', KeyModifiers::NONE)),
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
    assert!(KeyMap::from_config(&raw(&[("tree.parent", &["u"]), ("list.sort", &["u"])])).is_ok());
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
    assert_eq!(km.lookup(KeyContext::List, &ch('w', n)), Some(Command::Up));
    assert_eq!(km.lookup(KeyContext::Tree, &ch('o', n)), Some(Command::Up));
    assert_eq!(km.lookup(KeyContext::Tree, &ch('w', n)), None);
}

#[test]
fn empty_list_unbinds_and_new_commands_go_global() {
    let mut keys = raw(&[("sort", &["z"])]);
    keys.insert("export".into(), KeySpecs::Many(vec![]));
    let km = KeyMap::from_config(&keys).expect("valid");
    assert_eq!(km.keys_label(KeyContext::Global, Command::Export), None);
    // `sort` had list bindings: replaced there
    assert_eq!(
        km.lookup(KeyContext::List, &ch('z', KeyModifiers::NONE)),
        Some(Command::Sort)
    );
    // `palette` is unbound outside global, a new binding lands in global
    let km = KeyMap::from_config(&raw(&[("list.select", &["z"]), ("complete", &["ctrl-n"])]))
        .expect("valid");
    assert_eq!(
        km.lookup(KeyContext::TextInput, &ch('n', KeyModifiers::CONTROL)),
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
    assert_eq!(Command::pane(10), Some(Command::Pane10));
    assert_eq!(Command::Pane10.pane_number(), Some(10));
    assert_eq!(Command::pane(11), None);
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
