//! App state and the pure `update`: every [`Action`] (keys, ticks, fetch results) goes through
//! [`App::update`], which changes state and returns the [`Effect`]s for the runtime to run. No
//! I/O happens here, so the whole explorer can be driven headless in tests.
//!
//! Key routing: an open overlay gets keys first; then a pane with an open text input gets raw
//! keys; otherwise the keymap turns the key into a [`Command`] (in the focused pane's context),
//! app-wide commands are handled here and the rest go to the focused pane.

pub mod draw;
pub mod health;
pub mod index;
mod keys;
pub mod loader;
pub mod locate;
pub mod palette_cmd;
pub mod panes;
mod rounds;
mod screen;
pub mod state;
pub mod timeline;

use crossterm::event::KeyEventKind;
use ratatui::layout::Rect;

use crate::config::keymap::KeyMap;
use crate::feed::loader::Loader;
use crate::msg::{Command, Tabs};
use crate::panes::{AppContext, AppEvent, Level, Out, Pane, PaneId, Shared, SweepIntent};
use crate::ui::error_log::ErrorLog;
use crate::ui::theme::Theme;
pub use panes::Panes;
pub use state::{App, Overlay, Toast, with_pane_names};

use crate::api::ledger::LedgerEnd;
use crate::api::scan::EventHistoryItem;
use crate::msg::{Action, Effect, Owner};

/// Panes remembered for going back.
const BACK_STACK_MAX: usize = 32;
/// How long a status-line message stays, in microseconds.
const TOAST_INFO_US: i64 = 4_000_000;
const TOAST_ERROR_US: i64 = 8_000_000;

impl App {
    /// A new app; call [`App::start`] for the first effects.
    pub fn new(ctx: AppContext, theme: Theme, keymap: KeyMap, now: i64) -> Self {
        let loader = Loader::new(ctx.refresh_ms);
        let sh = Shared::new(ctx, now);
        let keymap = with_pane_names(keymap);
        App {
            loader,
            panes: Panes::new(&sh),
            sh,
            theme,
            keymap,
            focus: PaneId::History,
            focus_seen: PaneId::History,
            overlay: None,
            toast: None,
            errors: ErrorLog::new(crate::ui::error_log::DEFAULT_CAPACITY),
            palette_history: Vec::new(),
            size: Rect::new(0, 0, 80, 24),
            dirty: true,
            quit: false,
            typing_guard: None,
            sort_armed: false,
            back_stack: Vec::new(),
            zoomed: false,
            open_at: None,
            clock_second: now / 1_000_000,
            acted: false,
            toast_seq: 0,
        }
    }

    /// The first effects: history discovery and the first status round.
    pub fn start(&mut self) -> Vec<Effect> {
        let mut out = Out::for_pane(PaneId::History);
        self.panes.history.start(&self.sh, &mut out);
        self.drive_history(None, &mut out);
        index::drive(&mut self.sh, &mut out, None);
        if !self.sh.ctx.offline {
            // With --offline no node is asked: no health, no dashboard polls.
            out.owner = PaneId::Status;
            health::drive(&mut self.sh, &mut out, None);
            self.panes.status.start(&mut self.sh, &mut out);
        }
        if let Some(loc) = self.open_at.take() {
            out.owner = PaneId::History;
            out.events.push(AppEvent::Open(loc));
        }
        self.finish(out)
    }

    /// Whether the screen must be redrawn; clears the flag.
    pub fn take_dirty(&mut self) -> bool {
        std::mem::take(&mut self.dirty)
    }

    /// Marks the screen for redrawing.
    pub fn mark_dirty(&mut self) {
        self.dirty = true;
    }

    /// Whether the user asked to quit.
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    fn pane_mut(&mut self, id: PaneId) -> &mut dyn Pane {
        self.panes.get_mut(id)
    }

    /// Handles one action. Pure: state changes plus the effects to run.
    pub fn update(&mut self, action: Action) -> Vec<Effect> {
        // What the user does acts on the focused pane; replies and ticks set their pane.
        let out = Out::for_pane(self.focus);
        self.acted = false;
        let shown = self.toast_seq;
        let effects = self.handle(action, out);
        // A command that went through without a message of its own clears an error (or warning)
        // left by an earlier one: it stays in the error log (`!`).
        if self.acted
            && self.toast_seq == shown
            && self
                .toast
                .as_ref()
                .is_some_and(|t| t.level != Level::Info && t.from_command)
        {
            self.toast = None;
        }
        self.place_hint(self.toast_seq != shown);
        effects
    }

    /// A hint belongs to the pane that showed it: placed when shown (`new`), and gone once the
    /// focus left that pane or the input it was about closed.
    fn place_hint(&mut self, new: bool) {
        let focus = self.focus;
        let typing = self.pane(focus).wants_raw_keys();
        let Some(toast) = self.toast.as_mut().filter(|t| t.level == Level::Info) else {
            return;
        };
        if new {
            toast.pane = Some(focus);
            toast.typing = typing;
        } else if toast.pane.is_some_and(|p| p != focus) || (toast.typing && !typing) {
            self.toast = None;
            self.dirty = true;
        }
    }

    fn handle(&mut self, action: Action, mut out: Out) -> Vec<Effect> {
        match action {
            Action::Key(key) => {
                if key.kind != KeyEventKind::Release {
                    self.on_key(&key, &mut out);
                    self.dirty = true;
                }
            }
            Action::Mouse(m) => self.on_mouse(m, &mut out),
            Action::Paste(text) => {
                if let Some(Overlay::Palette(p)) = &mut self.overlay {
                    let mut line = p.input_text();
                    line.push_str(&text.replace(['\n', '\r'], " "));
                    p.set_input(&line);
                } else if self.pane(self.focus).wants_raw_keys() {
                    let focus = self.focus;
                    let (pane, sh) = self.split(focus, &mut out);
                    pane.on_paste(&text, sh, &mut out);
                }
                self.dirty = true;
            }
            Action::Resize(w, h) => {
                self.size = Rect::new(0, 0, w, h);
                self.resize_panes();
                let body = crate::ui::layout::areas(self.size, self.zoomed).body;
                if let Some(Overlay::Fields(f)) = &mut self.overlay {
                    f.set_area(body);
                }
                self.dirty = true;
            }
            Action::Tick(now) => self.on_tick(now, &mut out),
            Action::Command(cmd) => {
                self.on_command(cmd, &mut out);
                self.dirty = true;
            }
            Action::Palette(line) => {
                self.acted = true;
                self.run_palette(&line, &mut out);
                self.dirty = true;
            }
            Action::Fetched(reply) => {
                // What every pane may read: full update bodies and the ledger end.
                if let Ok(response) = &reply.result {
                    if let (Some(body), Some(update_id)) = (
                        response.shared::<EventHistoryItem>(),
                        reply.request.body_subject(),
                    ) {
                        self.sh.bodies.insert(update_id.to_owned(), body.clone());
                    }
                    if let Some(end) = response.answer::<LedgerEnd>()
                        && let Some(back) = self.sh.note_ledger_end(reply.id, end.offset)
                    {
                        self.ledger_went_back(back, &mut out);
                    }
                }
                match reply.id.owner {
                    Owner::Rounds => {
                        // A reply the view no longer waits for (closed, opened again) is
                        // dropped.
                        if let Some(Overlay::Rounds(r)) = &mut self.overlay
                            && r.on_reply(&reply)
                        {
                            self.ask_round_scans(&mut out);
                        }
                    }
                    Owner::Index => {
                        out.owner = PaneId::History;
                        index::drive(&mut self.sh, &mut out, Some(&reply));
                    }
                    Owner::Health => {
                        out.owner = PaneId::Status;
                        health::drive(&mut self.sh, &mut out, Some(&reply));
                        self.panes.network.sync_scans(&self.sh);
                    }
                    Owner::Loader => self.drive_history(Some(&reply), &mut out),
                    Owner::Timeline => {
                        self.drive_timeline(timeline::Step::Reply(&reply), &mut out);
                    }
                    Owner::Pane(id) => {
                        let (pane, sh) = self.split(id, &mut out);
                        pane.on_fetched(&reply, sh, &mut out);
                    }
                }
                self.dirty = true;
            }
            Action::Written { id, path, result } => {
                let owner = id.owner.pane().unwrap_or(self.focus);
                out.owner = owner;
                let claimed = self.pane_mut(owner).on_written(id, &result, &mut out);
                if claimed {
                    self.dirty = true;
                    return self.finish(out);
                }
                match result {
                    Ok(n) => out.info(format!("saved {n} bytes to {path}")),
                    Err(e) => out.error(format!("could not save {path}: {e}")),
                }
                self.dirty = true;
            }
            Action::FileRead { id, path, result } => {
                // To the pane that asked, wherever the focus went meanwhile.
                let owner = id.owner.pane().unwrap_or(self.focus);
                let (pane, sh) = self.split(owner, &mut out);
                pane.on_file_read(id, &path, &result, sh, &mut out);
                self.dirty = true;
            }
            Action::ThemeLoaded(result) => {
                match result.and_then(|src| Theme::from_source(&src).map_err(|e| e.to_string())) {
                    Ok(theme) => {
                        out.info(format!("theme {}", theme.name));
                        self.theme = theme;
                    }
                    Err(e) => out.error(e),
                }
                self.dirty = true;
            }
        }
        self.finish(out)
    }

    /// Splits the borrow: one pane and the shared state; what the pane sends through `out` is
    /// owned by it.
    fn split(&mut self, id: PaneId, out: &mut Out) -> (&mut dyn Pane, &mut Shared) {
        out.owner = id;
        (self.panes.get_mut(id), &mut self.sh)
    }

    /// The participant's ledger end went back (another ledger under the same URL): says so,
    /// naming both offsets (status line and error log), and has the Ledger pane read again
    /// what it read of the old ledger. (The Status card's offset rate starts over by itself:
    /// `NodeState::add_offset_sample`.)
    fn ledger_went_back(&mut self, back: crate::model::reread::EndWentBack, out: &mut Out) {
        let owner = std::mem::replace(&mut out.owner, PaneId::Ledger);
        let url = self
            .sh
            .ctx
            .ledger_url
            .as_deref()
            .map_or_else(|| "the ledger".to_owned(), crate::api::redact_userinfo);
        out.error(format!(
            "{back} at {url}: the participant's ledger changed under the explorer; the Ledger \
             pane reloads what it read"
        ));
        self.panes.ledger.ledger_replaced(&mut self.sh, out);
        out.owner = owner;
    }

    /// Runs the history loader: queued intents, a reply, what is due (see [`loader::drive`]).
    fn drive_history(&mut self, reply: Option<&crate::msg::Fetched>, out: &mut Out) {
        out.owner = PaneId::History;
        let (changed, range) = loader::drive(
            &mut self.loader,
            &mut self.panes.history,
            &mut self.sh,
            out,
            reply,
        );
        self.dirty |= changed;
        if !range.is_empty() {
            // What the loader read of the index's gaps, for History's timeline (which may ask
            // it for the next gap: an intent the events loop runs).
            self.drive_timeline(timeline::Step::Range(range), out);
        }
    }

    /// Runs History's timeline: queued intents, and a reply or the tick (see
    /// [`timeline::drive`]).
    fn drive_timeline(&mut self, step: timeline::Step<'_>, out: &mut Out) {
        let owner = std::mem::replace(&mut out.owner, PaneId::History);
        if timeline::drive(&mut self.panes.history, &mut self.sh, out, step) {
            self.dirty = true;
        }
        out.owner = owner;
    }

    /// Applies the app events the panes produced and returns the effects.
    fn finish(&mut self, mut out: Out) -> Vec<Effect> {
        self.drive_timeline(timeline::Step::Intents, &mut out);
        self.drive_history(None, &mut out);
        // Events can produce more events (opening an update may fetch and message).
        let mut guard = 0;
        loop {
            if self.focus != self.focus_seen {
                // Tell a newly focused pane (it may load what it shows on first show).
                let left = std::mem::replace(&mut self.focus_seen, self.focus);
                let selected = self.panes.history.selected_update_id(&self.sh);
                let open = self.sh.current_update.clone();
                // The update the user looks at: the one open in Update or Verdict when coming
                // from there, else History's selection (else the open one).
                self.sh.selected_update = match left {
                    PaneId::Update | PaneId::Verdict => open.or(selected),
                    _ => selected.or(open),
                };
                let focus = self.focus;
                let (pane, sh) = self.split(focus, &mut out);
                pane.on_focus(sh, &mut out);
            }
            if out.events.is_empty() || guard >= 16 {
                break;
            }
            guard += 1;
            let events = std::mem::take(&mut out.events);
            for ev in events {
                self.apply_event(ev, &mut out);
            }
        }
        self.panes.verdict.sync(&self.sh);
        if out.effects.contains(&Effect::Quit) {
            self.quit = true;
        }
        out.effects
    }

    fn apply_event(&mut self, ev: AppEvent, out: &mut Out) {
        match ev {
            AppEvent::OpenUpdate {
                update_id,
                event_id,
            } => {
                out.owner = PaneId::Update;
                self.panes
                    .update_pane
                    .open(&update_id, event_id.as_deref(), &mut self.sh, out);
                self.go_to(PaneId::Update);
            }
            AppEvent::Focus(p) => self.go_to(p),
            AppEvent::CheckUpdate(update_id) => {
                let elsewhere = self.focus != PaneId::Network;
                self.open_check(&update_id, out);
                // Esc closes the check and goes back to the pane it was asked from, or to the
                // section it covers when asked here.
                if elsewhere {
                    self.panes.network.opened_from_another_pane();
                } else {
                    self.panes.network.opened_here();
                }
            }
            AppEvent::CheckOnEveryScan { call, label } => {
                out.owner = PaneId::Network;
                self.panes
                    .network
                    .open_query(call, &label, &mut self.sh, out);
                self.panes.network.opened_from_another_pane();
                self.go_to(PaneId::Network);
            }
            AppEvent::LookupHash(hash) => {
                out.owner = PaneId::Network;
                self.panes.network.lookup_hash(&hash, &mut self.sh, out);
            }
            AppEvent::GoToTime(t) => {
                out.owner = PaneId::History;
                self.panes.history.goto_time(t, &mut self.sh, out);
                self.go_to(PaneId::History);
            }
            AppEvent::LoadSpan(secs) => {
                out.owner = PaneId::History;
                self.panes.history.load_span(secs, &mut self.sh, out);
                self.go_to(PaneId::History);
            }
            AppEvent::FindUpdateInIndex { text, then } => {
                out.owner = PaneId::History;
                let found =
                    crate::model::id_pattern::IdPattern::parse(&text).is_ok_and(|pattern| {
                        self.panes
                            .history
                            .search_index_for_id(pattern, then, &mut self.sh, out)
                    });
                if found {
                    self.go_to(PaneId::History);
                } else {
                    out.warn(format!(
                        "{}: not found among the {} loaded updates, and there is no usable local index to look in",
                        crate::ui::safe::safe_line(&text, 40),
                        self.sh.history.len()
                    ));
                }
            }
            AppEvent::FilterHistory(text) => {
                out.owner = PaneId::History;
                self.panes.history.set_filter(&text, &self.sh, out);
                self.go_to(PaneId::History);
            }
            AppEvent::FollowTail => {
                self.go_to(PaneId::History);
                self.on_command(Command::FollowTail, out);
            }
            AppEvent::Sweep(intent) => {
                out.owner = PaneId::Network;
                let net = &mut self.panes.network;
                match intent {
                    SweepIntent::Cancel if !net.sweep_state().is_running() => {
                        out.info("no sweep is running");
                    }
                    SweepIntent::Cancel => net.cancel_sweep(out),
                    SweepIntent::Toggle => net.toggle_sweep(out),
                    SweepIntent::Save(None) => net.open_sweep_save(&self.sh, out),
                    SweepIntent::Save(Some(path)) => net.save_sweep(&path, &mut self.sh, out),
                    SweepIntent::Start(from) => net.start_sweep(from, &mut self.sh, out),
                }
                self.go_to(PaneId::Network);
            }
            AppEvent::Run(cmd) => self.on_command(cmd, out),
            AppEvent::LoadTheme(name) => out.effects.push(Effect::LoadTheme(name)),
            // An update id abbreviated by hand: completed among the loaded updates, else in
            // the local index, before the view opens.
            AppEvent::Open(loc) if loc.abbreviated().is_some() => {
                let text = loc.abbreviated().unwrap_or_default().to_owned();
                match palette_cmd::resolve_update_id(&self.sh.history, &text, "open") {
                    Ok(whole) => out.events.push(AppEvent::Open(loc.with_update_id(&whole))),
                    Err(e) => match palette_cmd::in_index(self, &text, e, loc.clone()) {
                        Ok(find) => out.events.push(find),
                        Err(e) => out.warn(e),
                    },
                }
            }
            AppEvent::Open(loc) => match loc {
                crate::model::locator::Locator::Holdings(party) => {
                    out.owner = PaneId::Holdings;
                    self.panes.holdings.query_party(&party, &mut self.sh, out);
                    self.go_to(PaneId::Holdings);
                }
                crate::model::locator::Locator::GovernanceRequest(cid) => {
                    self.panes.governance.show_request(&cid);
                    self.go_to(PaneId::Governance);
                }
                other => out.events.extend(locate::intents(&other)),
            },
            AppEvent::ShowScan(scan) => {
                self.panes.network.show_scan(scan, &self.sh);
                self.go_to(PaneId::Network);
            }
            AppEvent::Health(intent) => {
                let owner = std::mem::replace(&mut out.owner, PaneId::Status);
                health::intent(intent, &mut self.sh, out);
                out.owner = owner;
            }
            AppEvent::Loader(intent) => {
                out.events.push(AppEvent::Loader(intent));
                self.drive_history(None, out);
            }
            AppEvent::Timeline(intent) => {
                out.events.push(AppEvent::Timeline(intent));
                self.drive_timeline(timeline::Step::Intents, out);
                self.drive_history(None, out);
            }
            AppEvent::Message(level, text) => self.show_toast(level, text),
            AppEvent::Error(source, text) => {
                let at = chrono::DateTime::from_timestamp_micros(self.sh.now).unwrap_or_default();
                self.errors.push(at, source.title(), text.clone());
                self.show_toast(Level::Error, text);
            }
        }
        self.dirty = true;
    }

    /// Focuses `p`, remembering where the user came from (for Esc).
    fn go_to(&mut self, p: PaneId) {
        if p != self.focus {
            self.back_stack.push(self.focus);
            if self.back_stack.len() > BACK_STACK_MAX {
                self.back_stack.remove(0);
            }
            self.focus = p;
        }
    }

    /// Copies the update id of the open update (Update, Verdict) or of the selected row
    /// (History), naming it in the status line.
    fn copy_update_id(&mut self, out: &mut Out) {
        let id = match self.focus {
            PaneId::Update | PaneId::Verdict => self
                .panes
                .update_pane
                .update_id()
                .map(str::to_string)
                .or_else(|| self.sh.current_update.clone()),
            PaneId::History => self.panes.history.selected_update_id(&self.sh),
            other => {
                out.info(format!("copy update id: not in the {} pane", other.title()));
                return;
            }
        };
        match id {
            Some(id) => {
                let short = crate::ui::safe::safe_line(&id, 16).into_owned();
                out.copy(&format!("update id {short}"), id);
            }
            None => out.info("copy update id: no update here"),
        }
    }

    fn show_toast(&mut self, level: Level, text: String) {
        let life = if level == Level::Info {
            TOAST_INFO_US
        } else {
            TOAST_ERROR_US
        };
        self.toast_seq += 1;
        // Two lines of the status line at most: a longer message is cut there with a hint
        // (when drawn) and the error log holds it whole (errors are there already).
        let width = draw::status_text_width(self.size.width, self.errors.len() + 1);
        let one_line = crate::ui::safe::sanitize(&text).replace(['\n', '\r'], " ");
        if level != Level::Error && crate::ui::layout::wrap_text(&one_line, width).len() > 2 {
            let at = chrono::DateTime::from_timestamp_micros(self.sh.now).unwrap_or_default();
            self.errors.push(at, self.focus.title(), text.clone());
        }
        self.toast = Some(Toast {
            level,
            text,
            from_command: self.acted,
            until: self.sh.now + life,
            pane: None,
            typing: false,
        });
    }

    fn on_tick(&mut self, now: i64, out: &mut Out) {
        self.sh.now = now;
        out.owner = PaneId::History;
        let mut changed = index::drive(&mut self.sh, out, None);
        out.owner = PaneId::Status;
        if !self.sh.ctx.offline {
            changed |= health::drive(&mut self.sh, out, None);
        }
        for id in PaneId::ALL {
            let (pane, sh) = self.split(id, out);
            changed |= pane.on_tick(sh, out);
            if id == PaneId::History {
                // History's timeline in step with the loaded window, as the pane's rows are.
                changed |= timeline::drive(
                    &mut self.panes.history,
                    &mut self.sh,
                    out,
                    timeline::Step::Tick,
                );
            }
        }
        if self.toast.as_ref().is_some_and(|t| t.until <= now) {
            self.toast = None;
            changed = true;
        }
        // The header shows the lag behind now in seconds.
        let second = now / 1_000_000;
        if second != self.clock_second {
            self.clock_second = second;
            changed = true;
        }
        if changed {
            self.dirty = true;
        }
    }

    /// Checks an update on every scan and shows the consensus view in the Network pane.
    pub fn open_check(&mut self, update_id: &str, out: &mut Out) {
        out.owner = PaneId::Network;
        self.panes.network.open_check(update_id, &mut self.sh, out);
        self.go_to(PaneId::Network);
    }
}
