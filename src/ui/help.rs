//! The help overlay and the footer key hints, both generated from the [`KeyMap`] (never written
//! by hand), so config overrides show up in both.
//!
//! The overlay lists every context's bindings (one row per command: `↑/k  move up`) under a
//! heading per context, and is searchable: `/` starts typing a filter (every word must match
//! the keys, the command name, the description or the context), Enter keeps it, Esc clears it.

use crate::ui::layout::{draw_overlay, overlay_block};
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::config::keymap::{KeyContext, KeyMap};
use crate::msg::Command;
use crate::ui::OverlayOutcome;
use crate::ui::safe::truncate_width;
use crate::ui::scroll::{ScrollState, Scrolled};
use crate::ui::text_input::{InputOutcome, TextInput};
use crate::ui::theme::Theme;

/// One help row: a command's keys in one context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpRow {
    /// The context.
    pub context: KeyContext,
    /// The command.
    pub command: Command,
    /// Its keys joined with `/` (`↑/k`).
    pub keys: String,
    /// Its description.
    pub description: String,
    /// The section it is listed under (`History pane`, `Everywhere`, `Only in some panes`, …).
    pub heading: String,
}

/// The heading of the keys that work in one or two panes only, listed apart from "Everywhere".
pub const PANE_ONLY_HEADING: &str = "Only in some panes";
/// The heading of the palette's commands in the help.
pub const PALETTE_HEADING: &str = "Palette commands (after :)";

/// The panes a global command does something in, for commands that belong to few panes
/// (listed under [`PANE_ONLY_HEADING`] instead of "Everywhere").
pub fn pane_only(cmd: Command) -> Option<&'static str> {
    match cmd {
        Command::Export
        | Command::LoadSpan
        | Command::ExportRange
        | Command::SearchIndex
        | Command::Context
        | Command::FlipOrder => Some("History"),
        Command::FollowContract => Some("Update"),
        Command::Delete | Command::Execute => Some("Ledger"),
        _ => None,
    }
}

impl HelpRow {
    fn matches(&self, terms: &[String]) -> bool {
        terms.iter().all(|t| {
            self.keys.to_lowercase().contains(t)
                || self.description.to_lowercase().contains(t)
                || self.command.name().contains(t)
                || self.context.name().contains(t)
                || self.context.title().to_lowercase().contains(t)
                || self.heading.to_lowercase().contains(t)
        })
    }
}

/// Every binding of every context, one row per (context, command), in keymap order; the global
/// commands of few panes ([`pane_only`]) come last, under [`PANE_ONLY_HEADING`].
pub fn help_rows(keymap: &KeyMap) -> Vec<HelpRow> {
    let mut rows = Vec::new();
    let mut only = Vec::new();
    for ctx in KeyContext::ALL {
        for g in keymap.groups(ctx) {
            let mut row = HelpRow {
                context: ctx,
                command: g.command,
                keys: g.keys_label(),
                description: g.description.to_string(),
                heading: ctx.title().to_string(),
            };
            match pane_only(g.command) {
                Some(panes) if ctx == KeyContext::Global => {
                    row.description = format!("{} ({panes})", row.description);
                    row.heading = PANE_ONLY_HEADING.to_string();
                    only.push(row);
                }
                _ => rows.push(row),
            }
        }
    }
    rows.extend(only);
    rows
}

/// The keymap as Markdown tables, one per help section (the book's keys page, `docs/src/keys.md`,
/// is generated with this and checked by a test).
pub fn markdown_tables(keymap: &KeyMap) -> String {
    let rows = help_rows(keymap);
    let mut out = String::new();
    let mut heading: Option<&str> = None;
    for row in &rows {
        if heading != Some(row.heading.as_str()) {
            if heading.is_some() {
                out.push('\n');
            }
            heading = Some(row.heading.as_str());
            out.push_str(&format!(
                "**{}**\n\n| Keys | Action | Config name |\n|---|---|---|\n",
                row.heading
            ));
        }
        let keys = row.keys.replace('|', "\\|");
        out.push_str(&format!(
            "| `{}` | {} | `{}` |\n",
            keys,
            row.description,
            row.command.name()
        ));
    }
    if heading.is_some() {
        out.push('\n');
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    /// The heading of row `n`'s section.
    Heading(usize),
    Row(usize),
}

/// State of the help overlay: the rows (taken from the keymap when opened), the filter and the
/// scroll position.
#[derive(Debug, Clone)]
pub struct HelpOverlay {
    rows: Vec<HelpRow>,
    entries: Vec<Entry>,
    filter: TextInput,
    searching: bool,
    scroll: ScrollState,
}

impl HelpOverlay {
    /// A help overlay for `keymap`, unfiltered.
    pub fn new(keymap: &KeyMap) -> Self {
        Self::with_rows(help_rows(keymap))
    }

    /// A help overlay that starts with the keys of the focused pane (`pane`, its title, with
    /// `commands` in key context `context`, and the keys that work only in it and a few others:
    /// [`pane_only`]), then every binding.
    pub fn for_pane(
        keymap: &KeyMap,
        pane: &str,
        context: KeyContext,
        commands: &[Command],
    ) -> Self {
        let mut commands = commands.to_vec();
        for g in keymap.groups(KeyContext::Global) {
            let here = pane_only(g.command)
                .is_some_and(|panes| panes.split([',', ' ']).any(|p| p == pane));
            if here && !commands.contains(&g.command) {
                commands.push(g.command);
            }
        }
        let mut rows: Vec<HelpRow> = commands
            .iter()
            .filter_map(|&cmd| {
                let keys: Vec<String> = keymap
                    .keys_for(context, cmd)
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                (!keys.is_empty()).then(|| HelpRow {
                    context,
                    command: cmd,
                    keys: keys.join("/"),
                    description: keymap.description(context, cmd).to_string(),
                    heading: format!("{pane} pane"),
                })
            })
            .collect();
        rows.extend(help_rows(keymap));
        Self::with_rows(rows)
    }

    /// Adds the palette's commands, each with the short names that run it (`:gov`), under
    /// [`PALETTE_HEADING`], after the keys.
    #[must_use]
    pub fn with_palette(mut self, palette: &crate::ui::palette::Palette) -> Self {
        self.rows.extend(palette.entries().iter().map(|e| {
            let shorts = palette.short_names(e);
            let keys = if shorts.is_empty() {
                format!(":{}", e.name)
            } else {
                shorts
                    .iter()
                    .map(|s| format!(":{s}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            HelpRow {
                context: KeyContext::Global,
                command: Command::Palette,
                keys,
                description: format!(":{} · {}", e.usage(), e.description),
                heading: PALETTE_HEADING.to_string(),
            }
        }));
        self.refilter();
        self
    }

    fn with_rows(rows: Vec<HelpRow>) -> Self {
        let mut h = HelpOverlay {
            rows,
            entries: Vec::new(),
            filter: TextInput::single_line().with_placeholder("type to filter"),
            searching: false,
            scroll: ScrollState::default(),
        };
        h.refilter();
        h
    }

    /// Sets the filter text.
    pub fn set_filter(&mut self, text: &str) {
        self.filter.set_text(text);
        self.refilter();
    }

    /// The filter text.
    pub fn filter(&self) -> String {
        self.filter.text()
    }

    /// Whether keys currently go to the filter.
    pub fn is_searching(&self) -> bool {
        self.searching
    }

    /// The rows passing the filter.
    pub fn visible_rows(&self) -> impl Iterator<Item = &HelpRow> {
        self.entries.iter().filter_map(|e| match e {
            Entry::Row(i) => self.rows.get(*i),
            Entry::Heading(_) => None,
        })
    }

    fn refilter(&mut self) {
        let terms: Vec<String> = self
            .filter
            .text()
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        self.entries.clear();
        let mut last: Option<&str> = None;
        for (i, row) in self.rows.iter().enumerate() {
            if !row.matches(&terms) {
                continue;
            }
            if last != Some(row.heading.as_str()) {
                self.entries.push(Entry::Heading(i));
                last = Some(row.heading.as_str());
            }
            self.entries.push(Entry::Row(i));
        }
        self.scroll.set_len(self.entries.len());
        self.scroll.top();
    }

    /// Handles a key. While searching, keys edit the filter (`text_input` context: confirm keeps
    /// it, cancel clears it). Otherwise (`overlay` context): moves, `filter` starts searching,
    /// cancel/back clear an active filter or close, `help` closes; other commands pass through.
    pub fn handle_key(&mut self, keymap: &KeyMap, key: &KeyEvent) -> OverlayOutcome {
        if self.searching {
            match keymap.lookup(KeyContext::TextInput, key) {
                Some(Command::Confirm) => self.searching = false,
                Some(Command::Cancel) => {
                    self.searching = false;
                    self.set_filter("");
                }
                Some(Command::HistoryPrev) => self.scroll.up(1),
                Some(Command::HistoryNext) => self.scroll.down(1),
                Some(Command::Complete) => {}
                Some(Command::Quit) => return OverlayOutcome::Passthrough(Command::Quit),
                Some(_) => return OverlayOutcome::Ignored,
                None => match self.filter.handle_key(key) {
                    InputOutcome::Changed => self.refilter(),
                    InputOutcome::Consumed => {}
                    InputOutcome::Submitted(_) => self.searching = false,
                    InputOutcome::Cancelled => {
                        self.searching = false;
                        self.set_filter("");
                    }
                    InputOutcome::Ignored => return OverlayOutcome::Ignored,
                },
            }
            return OverlayOutcome::Consumed;
        }
        match keymap.lookup(KeyContext::Overlay, key) {
            Some(cmd) if self.scroll.navigate(cmd) => {}
            Some(Command::Filter) => self.searching = true,
            Some(Command::Cancel | Command::Back) if !self.filter.is_empty() => {
                self.set_filter("");
            }
            Some(Command::Cancel | Command::Back | Command::Help) => return OverlayOutcome::Close,
            // Only quitting reaches the app: a key pressed to read about it, or typed before `/`,
            // must not run behind the overlay.
            Some(Command::Quit) => return OverlayOutcome::Passthrough(Command::Quit),
            Some(_) => return OverlayOutcome::Ignored,
            None => return OverlayOutcome::Ignored,
        }
        OverlayOutcome::Consumed
    }

    /// The rectangle the overlay takes within `screen`.
    pub fn area(screen: Rect) -> Rect {
        crate::ui::layout::centered_pct(screen, 80, 85, 60, 12)
    }

    /// Draws the overlay in `area` (use [`HelpOverlay::area`] for the usual placement).
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let block = overlay_block(" Keys ", theme).title_bottom(Line::from(vec![
            Span::styled(" / ", theme.key_hint),
            Span::styled("search  ", theme.key_desc),
            Span::styled("Esc ", theme.key_hint),
            Span::styled("close ", theme.key_desc),
        ]));
        let Some(inner) = draw_overlay(area, buf, block) else {
            return;
        };
        let mut list = inner;
        if self.searching || !self.filter.is_empty() {
            let row = Rect::new(inner.x, inner.y, inner.width, 1);
            self.filter
                .render_prompted(row, buf, "/", theme, self.searching);
            list.y += 1;
            list.height -= 1;
        }
        if list.height == 0 {
            return;
        }
        if self.entries.is_empty() {
            buf.set_line(
                list.x,
                list.y,
                &Line::styled("no matching keys", theme.muted),
                list.width,
            );
            return;
        }
        let keys_w = self
            .rows
            .iter()
            .map(|r| r.keys.width())
            .max()
            .unwrap_or(0)
            .min(usize::from(list.width) / 2)
            .min(24);
        let width = usize::from(list.width);
        let range = self.scroll.visible_range(usize::from(list.height));
        for (offset, entry) in self.entries[range].iter().enumerate() {
            let y = list.y + offset as u16;
            let line = match entry {
                Entry::Heading(i) => {
                    Line::styled(self.rows[*i].heading.clone(), theme.table_header)
                }
                Entry::Row(i) => {
                    let row = &self.rows[*i];
                    let keys = truncate_width(&row.keys, keys_w);
                    let pad = keys_w.saturating_sub(keys.width()) + 2;
                    let desc_w = width.saturating_sub(2 + keys_w + 2);
                    // The command's config name (for `[keys]`) after the description, whole,
                    // as long as a useful start of the description still fits beside it: the
                    // name is what rebinding needs, the description is cut first.
                    let name = row.command.name();
                    // (A palette command has no config name: `:` runs it.)
                    let with_name = row.heading != PALETTE_HEADING
                        && name.width() + 3 + MIN_DESCRIPTION <= desc_w;
                    let shown_w = if with_name {
                        desc_w - name.width() - 1
                    } else {
                        desc_w
                    };
                    let description = truncate_width(&row.description, shown_w);
                    let gap = desc_w.saturating_sub(description.width() + name.width());
                    let mut spans = vec![
                        Span::raw("  "),
                        Span::styled(keys.into_owned(), theme.key_hint),
                        Span::raw(" ".repeat(pad)),
                        Span::styled(description.into_owned(), theme.key_desc),
                    ];
                    if with_name {
                        // Right-aligned, apart from the description.
                        spans.push(Span::raw(" ".repeat(gap)));
                        spans.push(Span::styled(name, theme.muted));
                    }
                    Line::from(spans)
                }
            };
            buf.set_line(list.x, y, &line, list.width);
        }
    }
}

/// The least of a description worth showing beside a command's config name.
const MIN_DESCRIPTION: usize = 12;

impl Scrolled for HelpOverlay {
    fn scroll(&self) -> &ScrollState {
        &self.scroll
    }

    fn scroll_mut(&mut self) -> &mut ScrollState {
        &mut self.scroll
    }
}

/// Footer hints for `commands` in `context`: `key label` pairs (first key of each command, short
/// label), as many as fit in `width` columns, in the given order. `help` and `quit` are always
/// kept when listed (other hints are dropped first to make room). Unbound commands are skipped.
pub fn footer_hints(
    keymap: &KeyMap,
    context: KeyContext,
    commands: &[Command],
    theme: &Theme,
    width: u16,
) -> Line<'static> {
    let width = usize::from(width);
    let hints: Vec<(Command, String, &str)> = commands
        .iter()
        .filter_map(|&cmd| {
            let chord = keymap
                .keys_for(context, cmd)
                .first()
                .map(ToString::to_string)?;
            Some((cmd, chord, cmd.short()))
        })
        .collect();
    let need = |(_, chord, label): &(Command, String, &str)| 2 + chord.width() + 1 + label.width();
    let essential = |cmd: Command| matches!(cmd, Command::Help | Command::Quit);
    // Room for the essentials first, then the others in order while they fit.
    let mut used: usize = hints.iter().filter(|h| essential(h.0)).map(need).sum();
    let mut keep: Vec<bool> = hints.iter().map(|h| essential(h.0)).collect();
    for (i, h) in hints.iter().enumerate() {
        if !keep[i] && used + need(h) <= width + 2 {
            used += need(h);
            keep[i] = true;
        }
    }
    let mut spans = Vec::new();
    let mut drawn = 0usize;
    for (h, _) in hints.iter().zip(&keep).filter(|(_, k)| **k) {
        let sep = if spans.is_empty() { 0 } else { 2 };
        if drawn + need(h) - 2 + sep > width {
            break;
        }
        if sep > 0 {
            spans.push(Span::styled("  ", theme.footer));
        }
        spans.push(Span::styled(h.1.clone(), theme.key_hint));
        spans.push(Span::styled(format!(" {}", h.2), theme.key_desc));
        drawn += need(h) - 2 + sep;
    }
    Line::from(spans).style(theme.footer)
}

/// Draws [`footer_hints`] on the first row of `area` (nothing when the area is empty).
pub fn render_footer_hints(
    keymap: &KeyMap,
    context: KeyContext,
    commands: &[Command],
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    buf.set_style(Rect::new(area.x, area.y, area.width, 1), theme.footer);
    let line = footer_hints(keymap, context, commands, theme, area.width);
    buf.set_line(area.x, area.y, &line, area.width);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    fn press(h: &mut HelpOverlay, km: &KeyMap, code: KeyCode) -> OverlayOutcome {
        h.handle_key(km, &KeyEvent::new(code, KeyModifiers::NONE))
    }

    #[test]
    fn rows_cover_every_binding() {
        let km = KeyMap::defaults();
        let rows = help_rows(&km);
        let bound: usize = KeyContext::ALL.iter().map(|c| km.groups(*c).len()).sum();
        assert_eq!(rows.len(), bound);
        let quit = rows
            .iter()
            .find(|r| r.context == KeyContext::Global && r.command == Command::Quit)
            .expect("quit row");
        assert_eq!(quit.keys, "q/Ctrl-c");
    }

    #[test]
    fn a_pane_section_lists_the_keys_that_work_only_in_that_pane() {
        let km = KeyMap::defaults();
        let h = HelpOverlay::for_pane(
            &km,
            "History",
            KeyContext::List,
            &[Command::Select, Command::Export],
        );
        let here: Vec<Command> = h
            .visible_rows()
            .filter(|r| r.heading == "History pane")
            .map(|r| r.command)
            .collect();
        // L, X and F were only under "Only in some panes"; e once.
        assert_eq!(
            here,
            [
                Command::Select,
                Command::Export,
                Command::LoadSpan,
                Command::ExportRange,
                Command::FlipOrder,
                Command::SearchIndex,
                Command::Context
            ]
        );
        let keys: Vec<&str> = h
            .visible_rows()
            .filter(|r| r.heading == "History pane")
            .map(|r| r.keys.as_str())
            .collect();
        assert!(
            keys.contains(&"L") && keys.contains(&"X") && keys.contains(&"R"),
            "{keys:?}"
        );
        // Another pane does not get them.
        let h = HelpOverlay::for_pane(&km, "Update", KeyContext::Tree, &[Command::Select]);
        assert!(
            h.visible_rows()
                .filter(|r| r.heading == "Update pane")
                .all(|r| r.command != Command::LoadSpan)
        );
    }

    #[test]
    fn search_narrows_and_esc_clears() {
        let km = KeyMap::defaults();
        let mut h = HelpOverlay::new(&km);
        let all = h.visible_rows().count();
        assert_eq!(
            press(&mut h, &km, KeyCode::Char('/')),
            OverlayOutcome::Consumed
        );
        assert!(h.is_searching());
        // ("live tail": "tail" alone also finds the "details" of the tree keys)
        for c in "live tail".chars() {
            press(&mut h, &km, KeyCode::Char(c));
        }
        let found: Vec<Command> = h.visible_rows().map(|r| r.command).collect();
        assert_eq!(found, [Command::FollowTail]);
        // Enter keeps the filter; then j scrolls instead of typing
        press(&mut h, &km, KeyCode::Enter);
        assert!(!h.is_searching());
        assert_eq!(
            press(&mut h, &km, KeyCode::Char('j')),
            OverlayOutcome::Consumed
        );
        assert_eq!(h.filter(), "live tail");
        // Esc clears the filter first, then closes
        assert_eq!(press(&mut h, &km, KeyCode::Esc), OverlayOutcome::Consumed);
        assert_eq!(h.visible_rows().count(), all);
        assert_eq!(press(&mut h, &km, KeyCode::Esc), OverlayOutcome::Close);
        assert_eq!(
            press(&mut h, &km, KeyCode::Char('?')),
            OverlayOutcome::Close
        );
    }

    #[test]
    fn multi_word_filter_matches_all_words() {
        let km = KeyMap::defaults();
        let mut h = HelpOverlay::new(&km);
        h.set_filter("tree parent");
        let found: Vec<(KeyContext, Command)> =
            h.visible_rows().map(|r| (r.context, r.command)).collect();
        assert_eq!(
            found,
            [
                (KeyContext::Tree, Command::Collapse),
                (KeyContext::Tree, Command::Parent)
            ]
        );
        h.set_filter("ctrl-d");
        assert!(h.visible_rows().all(|r| r.command == Command::PageDown));
        assert!(h.visible_rows().count() >= 2);
    }

    #[test]
    fn footer_is_generated_from_overrides() {
        let km = KeyMap::defaults();
        let theme = Theme::default();
        let text = |l: &Line| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        };
        let cmds = [
            Command::Help,
            Command::Filter,
            Command::FollowTail,
            Command::Quit,
        ];
        assert_eq!(
            text(&footer_hints(&km, KeyContext::List, &cmds, &theme, 80)),
            "? help  / filter  f follow  q quit"
        );
        assert_eq!(
            text(&footer_hints(&km, KeyContext::List, &cmds, &theme, 17)),
            "? help  q quit",
            "help and quit stay when room is short"
        );
        let mut raw = std::collections::BTreeMap::new();
        raw.insert(
            "help".to_string(),
            crate::config::KeySpecs::One("f1".into()),
        );
        let km = KeyMap::from_config(&raw).expect("valid");
        assert_eq!(
            text(&footer_hints(&km, KeyContext::List, &cmds[..1], &theme, 80)),
            "F1 help"
        );
    }
}
