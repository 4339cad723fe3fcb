//! The default bindings of every [`KeyContext`], as tables of command → key specs.

use super::{KeyChord, KeyContext, KeyMap};
use crate::msg::Command;

/// Default bindings of one group: each command with its key specs.
pub(super) type DefaultTable = &'static [(Command, &'static [&'static str])];

pub(super) const NAV: DefaultTable = &[
    (Command::Up, &["up", "k"]),
    (Command::Down, &["down", "j"]),
    (Command::PageUp, &["pgup", "ctrl-u"]),
    (Command::PageDown, &["pgdn", "ctrl-d"]),
    (Command::Top, &["home", "g"]),
    (Command::Bottom, &["end", "G"]),
];

pub(super) const GLOBAL: DefaultTable = &[
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
    (Command::Pane10, &["0"]),
    (Command::FollowTail, &["f"]),
    (Command::ToggleTimeZone, &["t"]),
    (Command::Copy, &["y"]),
    (Command::CopyUpdateId, &["Y"]),
    (Command::CopyLocator, &["W"]),
    (Command::Zoom, &["+"]),
    (Command::Save, &["s"]),
    (Command::FollowContract, &["c"]),
    (Command::ErrorLog, &["!"]),
    (Command::Rounds, &["M"]),
    (Command::Refresh, &["r", "f5"]),
    (Command::Export, &["e"]),
    (Command::LoadSpan, &["L"]),
    (Command::ExportRange, &["X"]),
    (Command::FlipOrder, &["R"]),
    (Command::SearchIndex, &["F"]),
    (Command::Context, &["N"]),
    (Command::Edit, &["i"]),
    (Command::NextSection, &["]"]),
    (Command::PrevSection, &["["]),
    (Command::Delete, &["D"]),
    (Command::Execute, &["x"]),
    (Command::Consensus, &["b"]),
    (Command::Sweep, &["S"]),
    (Command::Acknowledge, &["a"]),
    (Command::ShowValue, &["v"]),
    (Command::Back, &["esc"]),
    (Command::Quit, &["q", "ctrl-c"]),
];

pub(super) const LIST: DefaultTable = &[
    (Command::Select, &["enter"]),
    (Command::Left, &["left", "h"]),
    (Command::Right, &["right", "l"]),
    (Command::Sort, &["o"]),
    (Command::SortReverse, &["O"]),
];

pub(super) const TREE: DefaultTable = &[
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

pub(super) const TEXT_INPUT: DefaultTable = &[
    (Command::Confirm, &["enter"]),
    (Command::Cancel, &["esc"]),
    (Command::Complete, &["tab"]),
    (Command::HistoryPrev, &["up"]),
    (Command::HistoryNext, &["down"]),
];

pub(super) const OVERLAY: DefaultTable = &[
    (Command::Confirm, &["enter"]),
    (Command::Cancel, &["esc", "q"]),
    (Command::RewardTree, &["T"]),
];

impl KeyMap {
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
}
