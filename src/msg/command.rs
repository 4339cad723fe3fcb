//! The named user intents ([`Command`]) that keys, the palette and the config file name.
//! The keymap (`config::keymap`) binds chords to them; panes and the app handle them.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer};

macro_rules! commands {
    ($( $variant:ident => $name:literal, $short:literal, $desc:literal; )*) => {
        /// A named user intent a key can trigger. The lead's `Action` enum wraps it. Names in the
        /// config file and the palette are the snake_case [`Command::name`]s.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Command {
            $( #[doc = $desc] $variant, )*
        }

        impl Command {
            /// Every command, in help order.
            pub const ALL: &'static [Command] = &[$(Command::$variant),*];

            /// The snake_case name used in the config file (`follow_tail`).
            pub fn name(self) -> &'static str {
                match self { $(Command::$variant => $name,)* }
            }

            /// A short label for footer hints (`follow`).
            pub fn short(self) -> &'static str {
                match self { $(Command::$variant => $short,)* }
            }

            /// The default description shown in help.
            pub fn description(self) -> &'static str {
                match self { $(Command::$variant => $desc,)* }
            }
        }
    };
}

commands! {
    Quit => "quit", "quit", "quit cantonscope";
    Help => "help", "help", "show the keys (this help)";
    Palette => "palette", "commands", "open the command palette";
    Filter => "filter", "filter", "filter / search";
    NextPane => "next_pane", "next pane", "next pane";
    PrevPane => "prev_pane", "prev pane", "previous pane";
    Pane1 => "pane_1", "pane 1", "go to pane 1";
    Pane2 => "pane_2", "pane 2", "go to pane 2";
    Pane3 => "pane_3", "pane 3", "go to pane 3";
    Pane4 => "pane_4", "pane 4", "go to pane 4";
    Pane5 => "pane_5", "pane 5", "go to pane 5";
    Pane6 => "pane_6", "pane 6", "go to pane 6";
    Pane7 => "pane_7", "pane 7", "go to pane 7";
    Pane8 => "pane_8", "pane 8", "go to pane 8";
    Pane9 => "pane_9", "pane 9", "go to pane 9";
    Pane10 => "pane_10", "pane 10", "go to pane 10";
    Up => "up", "up", "move up";
    Down => "down", "down", "move down";
    Left => "left", "left", "move / scroll left";
    Right => "right", "right", "move / scroll right";
    PageUp => "page_up", "page up", "one page up";
    PageDown => "page_down", "page down", "one page down";
    Top => "top", "top", "go to the top";
    Bottom => "bottom", "bottom", "go to the bottom";
    Select => "select", "open", "open the selected item";
    Toggle => "toggle", "fold", "expand / collapse the selected node";
    Expand => "expand", "expand", "expand (when open: move right)";
    Collapse => "collapse", "collapse", "collapse (or go to the parent)";
    ExpandAll => "expand_all", "expand all", "expand everything";
    CollapseAll => "collapse_all", "collapse all", "collapse everything";
    Parent => "parent", "parent", "jump to the parent (Update, Ledger: at a root, back)";
    SwitchFocus => "switch_focus", "tree/details", "switch between the tree and its details (without details: next pane)";
    TreeNarrower => "tree_narrower", "narrower", "move the split: a narrower tree column";
    TreeWider => "tree_wider", "wider", "move the split: a wider tree column";
    ScrollLeft => "scroll_left", "scroll left", "scroll the details left";
    ScrollRight => "scroll_right", "scroll right", "scroll the details right (ids in full)";
    ShowValue => "show_value", "full value", "show a cut value whole: the one under the cursor, or pick a field of the selection (y copies it)";
    FollowTail => "follow_tail", "follow", "follow the live tail";
    ToggleTimeZone => "toggle_time_zone", "UTC/local", "toggle UTC / local time";
    Copy => "copy", "copy", "copy the selected id or JSON (OSC 52)";
    CopyUpdateId => "copy_update_id", "copy update id", "copy the update id (the open update, or the selected row in History)";
    CopyLocator => "copy_locator", "copy locator", "copy this view's locator (cs1:…; :open or cantonscope open goes there)";
    Zoom => "zoom", "zoom", "zoom: the focused pane gets the whole screen (+ or Esc again: back)";
    Save => "save", "save", "save the JSON to a file";
    FollowContract => "follow_contract", "contract", "follow the contract (creation and lifecycle)";
    ErrorLog => "error_log", "errors", "show the error log";
    Rounds => "rounds", "rounds", "show the mining rounds the local index holds (app activity weight, providers, traffic cost)";
    RewardTree => "reward_tree", "reward tree", "Rounds view: walk the selected round's reward tree on every scan (each batch's hash recomputed, its providers checked against the index)";
    Refresh => "refresh", "refresh", "refresh now";
    Export => "export", "export", "export the loaded updates";
    LoadSpan => "load_span", "load span", "load a span of history in the background (1h / 6h / 24h / any)";
    ExportRange => "export_range", "export range", "export a time range straight from the server";
    FlipOrder => "flip_order", "flip order", "flip the list: newest first / oldest first";
    SearchIndex => "search_index", "search index", "search the whole local index, not only the loaded rows (party: template: choice: contract: id: is:)";
    Context => "context", "context", "the updates just before and after the selected search hit touching the same party or contract (again: the next party or contract of the hit)";
    Sort => "sort", "sort", "sort by the next column; then a column's letter (underlined in the header): by that column, again: the other way";
    Edit => "edit", "edit", "edit the query or form of this pane";
    NextSection => "next_section", "next section", "next section of this pane";
    PrevSection => "prev_section", "prev section", "previous section of this pane";
    Delete => "delete", "delete", "delete (asks to confirm)";
    Execute => "execute", "execute", "execute a prepared transaction (asks to confirm)";
    Consensus => "consensus", "bft check", "check on every scan (BFT consensus): the update, or what the pane shows (Governance: results count and open requests)";
    Sweep => "sweep", "sweep", "compare the history of every scan (asks from where; stops a running sweep)";
    Acknowledge => "acknowledge", "acknowledge", "acknowledge the selected finding for 4h: listed, but no bell and not counted by check (again: take it back)";
    SortReverse => "sort_reverse", "reverse", "reverse the sort order";
    Back => "back", "back", "back / close";
    Cancel => "cancel", "cancel", "cancel";
    Confirm => "confirm", "confirm", "confirm";
    Complete => "complete", "complete", "complete the word";
    HistoryPrev => "history_prev", "history", "previous entry in the history";
    HistoryNext => "history_next", "history", "next entry in the history";
}

impl Command {
    /// `pane_N` for N in 1..=10.
    pub fn pane(n: usize) -> Option<Command> {
        const PANES: [Command; 10] = [
            Command::Pane1,
            Command::Pane2,
            Command::Pane3,
            Command::Pane4,
            Command::Pane5,
            Command::Pane6,
            Command::Pane7,
            Command::Pane8,
            Command::Pane9,
            Command::Pane10,
        ];
        n.checked_sub(1).and_then(|i| PANES.get(i).copied())
    }

    /// For `pane_N`: N (1-based).
    pub fn pane_number(self) -> Option<usize> {
        (1..=10).find(|&n| Command::pane(n) == Some(self))
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no [`Command`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownCommand(pub String);

impl fmt::Display for UnknownCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown command {:?}", self.0)
    }
}

impl std::error::Error for UnknownCommand {}

impl FromStr for Command {
    type Err = UnknownCommand;

    fn from_str(s: &str) -> Result<Self, UnknownCommand> {
        let wanted = s.trim();
        Command::ALL
            .iter()
            .copied()
            .find(|c| c.name() == wanted)
            .ok_or_else(|| UnknownCommand(s.to_string()))
    }
}

impl<'de> Deserialize<'de> for Command {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl serde::Serialize for Command {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl Command {
    /// A movement over a list: ↑ ↓ PgUp PgDn g G.
    pub fn is_move(self) -> bool {
        matches!(
            self,
            Command::Up
                | Command::Down
                | Command::PageUp
                | Command::PageDown
                | Command::Top
                | Command::Bottom
        )
    }
}

impl crate::model::scroll::ScrollState {
    /// Applies a movement command (↑ ↓ PgUp PgDn g G); returns whether `cmd` was one.
    pub fn navigate(&mut self, cmd: crate::msg::Command) -> bool {
        match cmd {
            Command::Up => self.up(1),
            Command::Down => self.down(1),
            Command::PageUp => self.page_up(),
            Command::PageDown => self.page_down(),
            Command::Top => self.top(),
            Command::Bottom => self.bottom(),
            _ => return false,
        }
        true
    }
}
