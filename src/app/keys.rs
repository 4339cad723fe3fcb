//! Keys and commands: an open overlay gets a key first, then a pane's text input, then the
//! keymap's [`Command`], run app-wide here or by the focused pane; and the palette's lines.

use crossterm::event::KeyEvent;

use super::{App, Overlay, locate, palette_cmd};
use crate::config::keymap::KeyContext;
use crate::msg::{Command, Effect, Tabs};
use crate::panes::{AppEvent, Out, PaneId, SweepIntent};
use crate::ui::OverlayOutcome;
use crate::ui::fields::FieldsOutcome;
use crate::ui::help::HelpOverlay;
use crate::ui::palette::{Palette, PaletteOutcome};

/// After `/` found no filter, typed keys are ignored until this long after the last one (µs).
const TYPING_GUARD_US: i64 = 3_000_000;

/// The keys that open a prompt to type into: when the prompt does not open (refused, or not in
/// this pane), what is typed next is ignored until Esc or Enter (or a pause) rather than run
/// as keys.
const PROMPTS: [Command; 5] = [
    Command::Filter,
    Command::SearchIndex,
    Command::LoadSpan,
    Command::ExportRange,
    Command::Edit,
];

impl App {
    pub(super) fn on_key(&mut self, key: &KeyEvent, out: &mut Out) {
        // Overlays first.
        if let Some(Overlay::Fields(f)) = &mut self.overlay {
            match self.keymap.lookup(KeyContext::Overlay, key) {
                Some(Command::Quit) if !f.is_value_open() => self.request_quit(out),
                Some(cmd) => match f.command(cmd) {
                    FieldsOutcome::Close => self.overlay = None,
                    FieldsOutcome::Copy { what, text } => out.copy(&what, text),
                    FieldsOutcome::Used => {}
                },
                None => {}
            }
            return;
        }
        if let Some(overlay) = &mut self.overlay {
            let outcome = match overlay {
                Overlay::Help(h) => h.handle_key(&self.keymap, key),
                Overlay::ErrorLog => self.errors.handle_key(&self.keymap, key),
                Overlay::Palette(p) => match p.handle_key(&self.keymap, key) {
                    PaletteOutcome::Submitted(cmd) => {
                        let line = std::iter::once(cmd.name.clone())
                            .chain(cmd.args.iter().cloned())
                            .collect::<Vec<_>>()
                            .join(" ");
                        self.overlay = None;
                        self.palette_history.retain(|l| *l != line);
                        self.palette_history.push(line);
                        self.acted = true;
                        match palette_cmd::intent(self, &cmd) {
                            Ok(intent) => out.events.push(intent),
                            Err(e) => out.error(e),
                        }
                        return;
                    }
                    PaletteOutcome::Cancelled => OverlayOutcome::Close,
                    PaletteOutcome::Changed => OverlayOutcome::Consumed,
                    PaletteOutcome::Passthrough(c) => OverlayOutcome::Passthrough(c),
                    PaletteOutcome::Ignored => OverlayOutcome::Ignored,
                },
                Overlay::Fields(_) => OverlayOutcome::Ignored,
                Overlay::Rounds(r) => r.handle_key(&self.keymap, key),
            };
            if matches!(self.overlay, Some(Overlay::Rounds(_))) {
                if outcome == OverlayOutcome::Close {
                    self.close_rounds(out);
                } else {
                    self.ask_round_scans(out);
                }
            }
            match outcome {
                OverlayOutcome::Close => self.overlay = None,
                OverlayOutcome::Passthrough(Command::Quit) => self.request_quit(out),
                OverlayOutcome::Passthrough(cmd) => {
                    self.overlay = None;
                    self.on_command(cmd, out);
                }
                OverlayOutcome::Consumed | OverlayOutcome::Ignored => {}
            }
            return;
        }
        let focus = self.focus;
        if std::mem::take(&mut self.sort_armed)
            && let crossterm::event::KeyCode::Char(c) = key.code
            && key.modifiers.is_empty()
        {
            let (pane, _) = self.split(focus, out);
            if pane.sort_by_letter(c) {
                return;
            }
        }
        if self.pane(focus).wants_raw_keys() {
            // Ctrl-c still quits from a text input.
            if let Some(Command::Quit) = self.keymap.lookup(KeyContext::TextInput, key)
                && key
                    .modifiers
                    .contains(crossterm::event::KeyModifiers::CONTROL)
            {
                self.request_quit(out);
                return;
            }
            // Enter in a form or a filter submits: a command.
            self.acted |= key.code == crossterm::event::KeyCode::Enter;
            let (pane, sh) = self.split(focus, out);
            pane.on_key(key, sh, out);
            return;
        }
        if let Some(until) = self.typing_guard {
            use crossterm::event::{KeyCode, KeyModifiers};
            let plain = !key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
            match key.code {
                _ if self.sh.now > until => self.typing_guard = None,
                KeyCode::Esc | KeyCode::Enter => {
                    self.typing_guard = None;
                    return;
                }
                KeyCode::Char(_) | KeyCode::Backspace if plain => {
                    self.typing_guard = Some(self.sh.now + TYPING_GUARD_US);
                    out.info(format!(
                        "no prompt is open in the {} pane: typed text ignored (Esc)",
                        focus.title()
                    ));
                    return;
                }
                _ => self.typing_guard = None,
            }
        }
        let ctx = self.pane(focus).key_context();
        if let Some(cmd) = self.keymap.lookup(ctx, key) {
            self.on_command(cmd, out);
        }
    }

    fn request_quit(&mut self, out: &mut Out) {
        self.quit = true;
        out.effects.push(Effect::Quit);
    }

    /// Runs a command: app-wide ones here, the rest in the focused pane.
    pub fn on_command(&mut self, cmd: Command, out: &mut Out) {
        self.acted |= !matches!(
            cmd,
            Command::Help
                | Command::Palette
                | Command::ErrorLog
                | Command::Up
                | Command::Down
                | Command::PageUp
                | Command::PageDown
                | Command::Top
                | Command::Bottom
                | Command::Left
                | Command::Right
        );
        if let Some(n) = cmd.pane_number() {
            if let Some(p) = PaneId::ALL.get(n - 1) {
                self.focus = *p;
            }
            return;
        }
        match cmd {
            Command::Quit => self.request_quit(out),
            Command::Help => {
                // The focused pane's keys first, as gitui does.
                let pane = self.pane(self.focus);
                let palette = Palette::new(palette_cmd::entries());
                self.overlay = Some(Overlay::Help(
                    HelpOverlay::for_pane(
                        &self.keymap,
                        self.focus.title(),
                        pane.key_context(),
                        &pane.hints(),
                    )
                    .with_palette(&palette),
                ));
            }
            Command::Palette => {
                let mut palette = Palette::new(palette_cmd::entries());
                palette.set_history(self.palette_history.clone());
                palette.open();
                self.overlay = Some(Overlay::Palette(palette));
            }
            Command::ErrorLog => {
                self.errors.reset_view();
                self.overlay = Some(Overlay::ErrorLog);
            }
            Command::Rounds => self.open_rounds(out),
            // A box open over the pane (a value, a confirmation) keeps Tab: leaving would leave
            // it open behind.
            Command::NextPane | Command::PrevPane
                if self.pane(self.focus).key_context() == KeyContext::Overlay => {}
            Command::NextPane | Command::PrevPane => {
                self.focus = self.focus.step(cmd == Command::NextPane);
            }
            Command::CopyUpdateId => self.copy_update_id(out),
            Command::Zoom => self.set_zoom(!self.zoomed),
            Command::CopyLocator => {
                let text = locate::current(self).to_string();
                let shown = crate::ui::safe::safe_line(&text, 48).into_owned();
                out.copy(&format!("view locator {shown}"), text);
            }
            // Keys that move to another pane are intents, delivered (with the back stack) as
            // the palette's are.
            Command::Consensus if self.focus != PaneId::Network => {
                let pane = self.pane(self.focus);
                let query = pane.scan_request(&self.sh);
                match (pane.current_update_id(&self.sh), query) {
                    (Some(id), _) => out.events.push(AppEvent::CheckUpdate(id)),
                    (None, Some((call, label))) => {
                        out.events.push(AppEvent::CheckOnEveryScan { call, label });
                    }
                    (None, None) => {
                        let focus = self.focus;
                        let (pane, sh) = self.split(focus, out);
                        if !pane.on_command(cmd, sh, out) {
                            out.info("b checks an update on every scan: select one (History, Update) or use :bft <update_id>");
                        }
                    }
                }
            }
            // The live tail is History's: f anywhere follows it there (as :follow does).
            Command::FollowTail if self.focus != PaneId::History => {
                out.events.push(AppEvent::FollowTail);
            }
            Command::Sweep if self.focus != PaneId::Network => {
                out.events.push(AppEvent::Sweep(SweepIntent::Toggle));
            }
            Command::ToggleTimeZone => {
                self.sh.local_time = !self.sh.local_time;
                out.info(format!("times in {}", self.sh.zone_label()));
            }
            _ => {
                let focus = self.focus;
                let (pane, sh) = self.split(focus, out);
                let used = pane.on_command(cmd, sh, out);
                // A prompt the pane refused (F without a usable index, say): what the user
                // types next was meant for it, not to run as keys.
                let refused = used
                    && PROMPTS.contains(&cmd)
                    && !pane.wants_raw_keys()
                    && pane.key_context() != KeyContext::Overlay;
                let now = sh.now;
                if !used && cmd == Command::ShowValue {
                    return self.show_fields(out);
                }
                if used
                    && cmd == Command::Sort
                    && let Some(letters) = pane.sort_letters()
                {
                    // `o` then a column's letter sorts by that column.
                    self.sort_armed = true;
                    out.info(format!(
                        "sort by {letters}: its letter (again: the other way)"
                    ));
                }
                if refused {
                    self.typing_guard = Some(now + TYPING_GUARD_US);
                }
                if !used && cmd == Command::SwitchFocus {
                    // Tab in a tree without a details panel: the next pane, as elsewhere.
                    return self.on_command(Command::NextPane, out);
                }
                if !used && cmd == Command::Back && self.zoomed {
                    // Esc with nothing left to close in the pane: out of the zoom first.
                    self.set_zoom(false);
                    return;
                }
                if !used
                    && matches!(cmd, Command::Back | Command::Parent)
                    && let Some(previous) = self.back_stack.pop()
                {
                    // Nothing left to go back to inside the pane: back where the user came from.
                    self.focus = previous;
                    return;
                }
                if !used
                    && cmd != Command::Back
                    && !self.keymap.keys_for(KeyContext::Global, cmd).is_empty()
                {
                    // An "Everywhere" key that means nothing here says so (Esc with nothing
                    // to close is quiet, as in any terminal tool).
                    let what = self.keymap.description(KeyContext::Global, cmd);
                    out.info(format!("{what}: not in the {} pane", focus.title()));
                    if PROMPTS.contains(&cmd) {
                        // What the user types next was meant for a filter: keep it from
                        // running commands until Esc or Enter (or a pause).
                        self.typing_guard = Some(self.sh.now + TYPING_GUARD_US);
                    }
                }
            }
        }
    }

    pub(super) fn run_palette(&mut self, line: &str, out: &mut Out) {
        match palette_cmd::parse(line).and_then(|cmd| palette_cmd::intent(self, &cmd)) {
            Ok(intent) => out.events.push(intent),
            Err(e) => out.error(e),
        }
    }
}
