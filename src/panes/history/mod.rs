//! The History pane: the update history of scan 0 (`POST /v2/updates`) as a virtualized table,
//! with the loader that fills [`Shared::history`]: migration discovery, the look-back seek for
//! recent activity, forward paging to the head, the live tail (polling, follow / pause with a
//! new-item count), loading earlier updates above the first loaded one, the `/` filter, and
//! opening / copying the selected update, and the export of the shown rows (`e`, see
//! [`super::export`]).
//!
//! ```text
//! ┌History · 1,234 updates · live───────────────────────────────────migration 3┐
//! │Time (UTC)              Kind        Update     Summary                  Events│
//! │2026-11-22 10:41:07.123 transaction 1220d17b…  AmuletRules_Transfer          3│
//! │2026-11-22 10:41:08.004 assign      1220aa01…  assign global→other #3        1│
//! │/ choice:Transfer                                             12 of 1,234 match│
//! └────────────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! Loading is a small state machine driven by [`HistoryPane::start`], fetch results and ticks:
//! one main-line request (discover / seek / forward / poll) and one "earlier" request at most
//! are in flight; failed requests are retried on a later tick with a doubling back-off.

mod export;
mod loader;
mod table;
mod view;

use std::collections::VecDeque;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::Line;
use ratatui::widgets::{Block, Widget};

use crate::api::scan::UpdatesAfter;
use crate::config::keymap::KeyContext;
use crate::model::export::ExportJob;
use crate::model::history::{FilteredView, History};
use crate::model::summary::UpdateSummary;
use crate::msg::Command;
use crate::msg::{Effect, Fetched, Request, RequestId, Response};
use crate::ui::format::group_thousands;
use crate::ui::scroll::ScrollState;
use crate::ui::table::{Columns, Draw, FilterEvent, FilterInput};
use crate::ui::theme::Theme;

use super::export::{ExportDialog, render_progress};
use super::{Out, Pane, PaneId, Shared, StartFrom};
use export::ExportWrites;
use loader::after_at;
pub use loader::{
    DISCOVER_TIME, EARLIER_ENOUGH, EARLIER_FIRST_STEP, EARLIER_MAX_STEP, MAX_BACKOFF_MS, PAGE_SIZE,
    SEEK_STEPS,
};
pub use table::HistoryCol;
use table::columns;

/// Where the main-line loader is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Not started.
    Idle,
    /// Probing whether `migration` is the newest.
    Discover { migration: i64 },
    /// Looking for recent activity in `windows[window]`.
    Seek { window: usize },
    /// Paging forward (catching up), then polling the head.
    Forward,
}

/// A running "load earlier updates" job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct EarlierJob {
    /// Migration being searched.
    migration: i64,
    /// Look-back from the oldest loaded update (µs).
    step: i64,
    /// Updates prepended so far.
    gathered: usize,
    /// The request in flight.
    id: Option<RequestId>,
    /// The `after` time of the request in flight (µs).
    sent_after: i64,
    /// Earliest time to send (after an error).
    due: i64,
}

/// Position of an update in ledger order.
type Pos = (i64, i64);

/// The History pane.
#[derive(Debug)]
pub struct HistoryPane {
    origin: StartFrom,
    stage: Stage,
    discover_steps: u32,
    /// The current (newest) migration id, once discovered.
    migration: Option<i64>,
    /// Reference time of the start (µs): `now` for Recent/Now, the time for Time.
    start_time: i64,
    /// Look-back windows (s) for Recent: the configured window, then the larger steps.
    windows: Vec<i64>,
    /// The `after` cursor of the next forward request (`None`: from ledger begin).
    cursor: Option<UpdatesAfter>,
    in_flight: Option<RequestId>,
    /// Earliest `sh.now` at which the main line may send (polling interval, back-off).
    due: i64,
    at_head: bool,
    /// Load forward only on demand (Begin / Time: far from the head).
    lazy: bool,
    /// The user moved to the end of a lazily loaded list: load one more page.
    more_requested: bool,
    following: bool,
    /// Rows that arrived at the head since following was paused.
    new_rows: usize,
    earlier: Option<EarlierJob>,
    reached_begin: bool,
    failures: u32,
    backoff_ms: u64,
    scroll: ScrollState,
    view: FilteredView,
    /// History length the view was last synced with.
    known_len: usize,
    columns: Columns<HistoryCol>,
    /// The `/` input (the filter itself is `view.filter`).
    filter: FilterInput,
    /// Decode errors of the most recent malformed items, by position.
    malformed: VecDeque<(Pos, String)>,
    /// The export dialog, while open.
    export_dialog: Option<ExportDialog>,
    /// The running export (encoded a chunk per tick).
    export: Option<ExportJob>,
    /// The writes of the current (or last) export.
    export_writes: Option<ExportWrites>,
    area: Rect,
}

impl HistoryPane {
    /// A pane over the shared history; nothing is fetched until [`HistoryPane::start`].
    pub fn new(sh: &Shared) -> Self {
        let mut view = FilteredView::default();
        view.sync(&sh.history, 0);
        HistoryPane {
            origin: sh.ctx.start,
            stage: Stage::Idle,
            discover_steps: 0,
            migration: None,
            start_time: sh.now,
            windows: Vec::new(),
            cursor: None,
            in_flight: None,
            due: i64::MIN,
            at_head: false,
            lazy: false,
            more_requested: false,
            following: false,
            new_rows: 0,
            earlier: None,
            reached_begin: false,
            failures: 0,
            backoff_ms: 0,
            scroll: ScrollState::new(sh.history.len()),
            view,
            known_len: sh.history.len(),
            columns: columns(),
            filter: FilterInput::default(),
            malformed: VecDeque::new(),
            export_dialog: None,
            export: None,
            export_writes: None,
            area: Rect::default(),
        }
    }

    // ---------------------------------------------------------------------------------------
    // Public state (for the app, the header and tests)
    // ---------------------------------------------------------------------------------------

    /// Whether the selection follows the newest update.
    pub fn is_following(&self) -> bool {
        self.following
    }

    /// Whether the loader reached the head (short page) and is polling.
    pub fn is_at_head(&self) -> bool {
        self.at_head
    }

    /// Rows that arrived since following was paused.
    pub fn new_count(&self) -> usize {
        self.new_rows
    }

    /// The current migration id, once discovered (or seen in a loaded update).
    pub fn current_migration(&self) -> Option<i64> {
        self.migration
    }

    /// Whether earlier updates are being loaded.
    pub fn is_loading_earlier(&self) -> bool {
        self.earlier.is_some()
    }

    /// Whether the oldest loaded update is the first of the ledger.
    pub fn reached_begin(&self) -> bool {
        self.reached_begin
    }

    /// Consecutive failed requests (0 when the last one worked).
    pub fn failures(&self) -> u32 {
        self.failures
    }

    /// Number of rows shown (matching the filter, if any).
    pub fn row_count(&self, sh: &Shared) -> usize {
        self.view.len(&sh.history)
    }

    /// The selected row.
    pub fn cursor_row(&self) -> usize {
        self.scroll.cursor()
    }

    /// History index of the selected row.
    pub fn selected_index(&self, sh: &Shared) -> Option<usize> {
        if self.view.is_empty(&sh.history) {
            return None;
        }
        self.view
            .index(self.scroll.cursor())
            .filter(|&i| i < sh.history.len())
    }

    /// The selected update's summary.
    pub fn selected<'a>(&self, sh: &'a Shared) -> Option<&'a UpdateSummary> {
        self.selected_index(sh).and_then(|i| sh.history.get(i))
    }

    /// The selected update's id.
    pub fn selected_update_id(&self, sh: &Shared) -> Option<String> {
        self.selected(sh).map(|s| s.update_id.to_string())
    }

    /// The active filter's text.
    pub fn filter_text(&self) -> Option<&str> {
        self.view.filter.as_ref().map(|f| f.input.as_str())
    }

    /// Whether the filter input is open.
    pub fn is_editing_filter(&self) -> bool {
        self.filter.is_open()
    }

    /// Whether the export dialog is open.
    pub fn is_export_dialog_open(&self) -> bool {
        self.export_dialog.is_some()
    }

    /// The export dialog, while open.
    pub fn export_dialog(&self) -> Option<&ExportDialog> {
        self.export_dialog.as_ref()
    }

    /// Progress of the running export: (rows done, rows in total).
    pub fn export_progress(&self) -> Option<(usize, usize)> {
        self.export.as_ref().map(|j| (j.done(), j.total()))
    }

    /// The filter input's parse error, if the text typed so far does not parse.
    pub fn filter_error(&self) -> Option<&str> {
        self.filter.error()
    }

    /// The status shown after the title (`1,234 updates · live`, `paused · 12 new`, …).
    pub fn status_text(&self, _sh: &Shared) -> String {
        self.status_parts()
            .into_iter()
            .map(|(t, _)| t)
            .collect::<Vec<_>>()
            .join(" · ")
    }

    // ---------------------------------------------------------------------------------------
    // Starting and restarting
    // ---------------------------------------------------------------------------------------

    /// Starts loading per `sh.ctx.start` (clears any loaded history).
    pub fn start(&mut self, sh: &mut Shared, out: &mut Out) {
        self.migration = None;
        self.restart(sh.ctx.start, sh, out);
    }

    /// Selects the first update at or after `micros` if it is within the loaded range (pausing
    /// the tail); otherwise restarts loading from that time.
    pub fn goto_time(&mut self, micros: i64, sh: &mut Shared, out: &mut Out) {
        self.resync(sh);
        let in_range = match (sh.history.first(), sh.history.last()) {
            (Some(first), Some(last)) => {
                micros >= first.record_time && (micros <= last.record_time || self.at_head)
            }
            _ => false,
        };
        if !in_range {
            out.info(format!(
                "loading from {} {}",
                sh.format_time(micros),
                sh.zone_label()
            ));
            self.restart(StartFrom::Time(micros), sh, out);
            return;
        }
        self.pause();
        let rows = self.view.len(&sh.history);
        if rows == 0 {
            return;
        }
        let index = sh.history.index_at_time(micros);
        let row = if index >= sh.history.len() {
            rows - 1
        } else {
            self.view.row_of(index).min(rows - 1)
        };
        self.scroll.select(row);
        self.pump(sh, out);
    }

    fn restart(&mut self, origin: StartFrom, sh: &mut Shared, out: &mut Out) {
        for id in [self.in_flight.take(), self.earlier.and_then(|j| j.id)]
            .into_iter()
            .flatten()
        {
            out.effects.push(Effect::Cancel(id));
        }
        if self.abort_export(out).is_some() {
            out.warn("export cancelled: the history is being reloaded");
        }
        self.export_dialog = None;
        sh.history = History::default();
        let filter = self.view.filter.take();
        self.view.set(filter, &sh.history);
        self.known_len = 0;
        self.scroll = ScrollState::new(0);
        self.scroll.set_viewport(self.list_viewport());
        self.origin = origin;
        self.cursor = None;
        self.due = i64::MIN;
        self.at_head = false;
        sh.history_at_head = false;
        self.more_requested = false;
        self.new_rows = 0;
        self.earlier = None;
        self.reached_begin = false;
        self.failures = 0;
        self.backoff_ms = 0;
        self.discover_steps = 0;
        self.malformed.clear();
        self.windows.clear();
        match origin {
            StartFrom::Begin => {
                self.lazy = true;
                self.following = false;
                self.reached_begin = true;
                self.stage = Stage::Forward;
            }
            StartFrom::Recent { window_secs } => {
                self.lazy = false;
                self.following = true;
                self.start_time = sh.now;
                let first = window_secs.max(1);
                self.windows.push(first);
                self.windows
                    .extend(SEEK_STEPS.iter().copied().filter(|&s| s > first));
                self.stage = match self.migration {
                    Some(_) => Stage::Seek { window: 0 },
                    None => Stage::Discover { migration: 0 },
                };
            }
            StartFrom::Now | StartFrom::Time(_) => {
                let (t, lazy) = match origin {
                    StartFrom::Time(t) => (t, true),
                    _ => (sh.now, false),
                };
                self.lazy = lazy;
                self.following = !lazy;
                self.start_time = t;
                self.stage = match self.migration {
                    Some(m) => {
                        self.cursor = Some(after_at(m, t));
                        Stage::Forward
                    }
                    None => Stage::Discover { migration: 0 },
                };
            }
        }
        self.pump(sh, out);
    }

    /// After the current migration is known: where the forward loading starts.
    fn after_discovery(&mut self, m: i64) {
        self.migration = Some(m);
        match self.origin {
            StartFrom::Recent { .. } => self.stage = Stage::Seek { window: 0 },
            StartFrom::Now | StartFrom::Time(_) => {
                self.cursor = Some(after_at(m, self.start_time));
                self.stage = Stage::Forward;
            }
            StartFrom::Begin => self.stage = Stage::Forward,
        }
    }
}

impl Pane for HistoryPane {
    fn id(&self) -> PaneId {
        PaneId::History
    }

    fn key_context(&self) -> KeyContext {
        if self.filter.is_open() || self.export_dialog.is_some() {
            KeyContext::TextInput
        } else {
            KeyContext::List
        }
    }

    fn wants_raw_keys(&self) -> bool {
        self.filter.is_open() || self.export_dialog.is_some()
    }

    fn on_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        if self.export_dialog.is_some() {
            self.on_export_key(key, sh, out);
            return;
        }
        match self.filter.on_key(key) {
            // An invalid filter is not applied silently: the input stays open with its message.
            FilterEvent::Submitted => match self.filter_error() {
                Some(e) => out.warn(format!("filter not applied: {e}")),
                None => self.close_filter(),
            },
            FilterEvent::Cancelled => {
                self.close_filter();
                self.apply_filter(None, sh);
            }
            FilterEvent::Changed(_) => self.filter_text_changed(sh, out),
            FilterEvent::Move(cmd) => self.on_move(cmd, sh, out),
            FilterEvent::Nothing => {}
        }
    }

    fn on_paste(&mut self, text: &str, sh: &mut Shared, out: &mut Out) {
        if let Some(dialog) = &mut self.export_dialog {
            dialog.paste(text);
            return;
        }
        if let FilterEvent::Changed(_) = self.filter.on_paste(text) {
            self.filter_text_changed(sh, out);
        }
    }

    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        match cmd {
            Command::Up
            | Command::Down
            | Command::PageUp
            | Command::PageDown
            | Command::Top
            | Command::Bottom => {
                self.on_move(cmd, sh, out);
                true
            }
            Command::FollowTail => {
                self.follow(sh, out);
                true
            }
            Command::Filter => {
                self.open_filter();
                true
            }
            Command::Export => {
                self.open_export(sh, out);
                true
            }
            Command::Back | Command::Cancel if self.export.is_some() => {
                self.cancel_export(out);
                true
            }
            Command::Back | Command::Cancel if self.view.filter.is_some() => {
                self.close_filter();
                self.apply_filter(None, sh);
                true
            }
            Command::Select => {
                self.resync(sh);
                self.open_selected(sh, out);
                true
            }
            Command::Copy => {
                self.resync(sh);
                self.copy_selected(sh, out);
                true
            }
            Command::Refresh => {
                self.due = i64::MIN;
                if let Some(job) = &mut self.earlier {
                    job.due = i64::MIN;
                }
                self.pump(sh, out);
                self.pump_earlier(sh, out);
                true
            }
            _ => false,
        }
    }

    fn on_tick(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        let before = (self.known_len, self.scroll);
        self.resync(sh);
        let changed = before != (self.known_len, self.scroll);
        let was_idle = self.in_flight.is_none();
        self.pump(sh, out);
        self.pump_earlier(sh, out);
        let exporting = self.export.is_some();
        if exporting {
            self.step_export(sh, out);
        }
        // "loading…" replaces "more below" when a lazy page is sent.
        changed || exporting || (was_idle && self.in_flight.is_some() && !self.at_head)
    }

    fn on_written(&mut self, id: RequestId, result: &Result<usize, String>, out: &mut Out) -> bool {
        self.on_export_written(id, result, out)
    }

    fn on_fetched(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) {
        let (id, request, result) = (reply.id, &reply.request, &reply.result);
        let Request::Updates { .. } = request else {
            return;
        };
        if self.in_flight == Some(id) {
            self.in_flight = None;
            match result {
                Ok(Response::Updates(page)) => self.on_main_page(page, sh, out),
                Ok(_) => {
                    self.due = self.on_failure("unexpected response to /v2/updates".into(), sh, out)
                }
                Err(e) => self.due = self.on_failure(e.to_string(), sh, out),
            }
            self.pump(sh, out);
            sh.history_at_head = self.at_head;
        } else if self.earlier.is_some_and(|j| j.id == Some(id)) {
            match result {
                Ok(Response::Updates(page)) => self.on_earlier_page(page, sh, out),
                other => {
                    let msg = match other {
                        Err(e) => e.to_string(),
                        _ => "unexpected response to /v2/updates".into(),
                    };
                    let due = self.on_failure(msg, sh, out);
                    if let Some(job) = &mut self.earlier {
                        job.id = None;
                        job.due = due;
                    }
                }
            }
            self.pump_earlier(sh, out);
        }
    }

    fn set_area(&mut self, area: Rect) {
        self.area = area;
        self.scroll.set_viewport(self.list_viewport());
    }

    fn render(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, focused: bool) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let mut block = Block::bordered()
            .border_style(theme.border_style(focused))
            .title(self.title_line(sh, theme));
        if let Some(m) = self.migration
            && area.width >= 60
        {
            block = block
                .title_top(Line::styled(format!("migration {m}"), theme.muted).right_aligned());
        }
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let mut list = inner;
        let bar_h = self.filter_bar_height().min(list.height.saturating_sub(1));
        if bar_h > 0 {
            let bar = Rect::new(list.x, list.bottom() - bar_h, list.width, bar_h);
            list.height -= bar_h;
            let counts = (self.view.len(&sh.history), sh.history.len());
            self.filter
                .render(bar, buf, theme, self.filter_text(), counts);
        }
        if let Some(job) = &self.export
            && list.height >= 2
        {
            list.height -= 1;
            render_progress(
                job,
                Rect::new(list.x, list.bottom(), list.width, 1),
                buf,
                theme,
            );
        }
        if list.height >= 2 {
            let header = Rect::new(list.x, list.y, list.width, 1);
            let draw = Draw::new(sh, theme, focused);
            self.columns
                .render_header::<UpdateSummary>(header, buf, &draw);
            list.y += 1;
            list.height -= 1;
        }
        if self.earlier.is_some() && list.height >= 2 {
            buf.set_stringn(
                list.x,
                list.y,
                "↑ loading earlier updates…",
                usize::from(list.width),
                theme.muted.add_modifier(Modifier::ITALIC),
            );
            list.y += 1;
            list.height -= 1;
        }
        self.render_rows(list, buf, sh, theme, focused);
        if let Some(dialog) = &self.export_dialog {
            dialog.render(area, buf, theme);
        }
    }

    fn hints(&self) -> Vec<Command> {
        if self.filter.is_open() || self.export_dialog.is_some() {
            return vec![Command::Confirm, Command::Cancel];
        }
        vec![
            Command::Select,
            Command::Filter,
            Command::FollowTail,
            Command::Copy,
            Command::Export,
            Command::ToggleTimeZone,
            Command::Refresh,
        ]
    }

    fn badge(&self, sh: &Shared) -> Option<String> {
        if let Some(job) = &self.export {
            return Some(format!("export {}%", job.percent()));
        }
        if self.failures > 0 {
            return Some("retrying".into());
        }
        if self.stage != Stage::Idle && !self.following {
            return Some(if self.new_rows > 0 {
                format!("paused +{}", group_thousands(self.new_rows))
            } else {
                "paused".into()
            });
        }
        if sh.history.is_empty() {
            None
        } else {
            Some(group_thousands(sh.history.len()))
        }
    }
}
