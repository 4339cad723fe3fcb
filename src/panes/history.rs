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

use std::borrow::Cow;
use std::collections::VecDeque;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Widget};

use crate::api::scan::{UpdateItem, UpdatesAfter, UpdatesPage, UpdatesRequest};
use crate::config::keymap::KeyContext;
use crate::model::export::{CHUNK_ROWS, ExportJob, ExportSnapshot};
use crate::model::history::{FILTER_SYNTAX, Filter, FilteredView, History, Placement};
use crate::model::summary::{
    SummaryKind, UpdateSummary, format_time_micros, parse_time_micros, short_id, short_party,
};
use crate::msg::Command;
use crate::msg::{Effect, Fetched, Request, RequestId, Response, UpdatesPurpose};
use crate::ui::format::human_span;
// Also read under this name by network.rs.
pub(crate) use crate::ui::format::group_thousands as group_digits;
use crate::ui::safe::safe_line;
use crate::ui::scroll::ScrollState;
use crate::ui::table::{Cell, Column, Columns, Draw, FilterEvent, FilterInput, TableRow, Width};
use crate::ui::theme::Theme;

use super::export::{DialogOutcome, ExportDialog, render_progress};
use super::{AppEvent, Out, Pane, PaneId, Shared, StartFrom};

/// Items per `/v2/updates` request (the largest page real servers accept).
pub const PAGE_SIZE: i32 = 1000;
const PAGE: usize = PAGE_SIZE as usize;
/// The "far future" record time used to probe whether a migration is the newest.
pub const DISCOVER_TIME: &str = "9999-12-31T23:59:59Z";
/// Look-back windows (seconds) tried in turn when the recent window is empty.
pub const SEEK_STEPS: [i64; 7] = [
    600,
    3_600,
    6 * 3_600,
    86_400,
    7 * 86_400,
    30 * 86_400,
    365 * 86_400,
];
const MICROS: i64 = 1_000_000;
/// First look-back step when loading earlier updates (µs).
pub const EARLIER_FIRST_STEP: i64 = 3_600 * MICROS;
/// Largest doubling step when loading earlier updates (~1 year, µs); after it the whole
/// migration (from the epoch) is asked for.
pub const EARLIER_MAX_STEP: i64 = 365 * 86_400 * MICROS;
const EARLIER_MIN_STEP: i64 = 1_000;
/// Loading earlier updates stops once this many arrived for one request of the user.
pub const EARLIER_ENOUGH: usize = 100;
/// Longest retry interval after failures (ms).
pub const MAX_BACKOFF_MS: u64 = 30_000;
const MALFORMED_KEPT: usize = 64;
const MAX_DISCOVER_STEPS: u32 = 10_000;

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

/// The file side of an export: its writes in flight and what to say at the end.
#[derive(Debug)]
struct ExportWrites {
    path: std::path::PathBuf,
    rows: usize,
    format: crate::model::export::ExportFormat,
    /// Every write issued (answers to them are the export's, even after it stopped).
    ids: Vec<RequestId>,
    pending: usize,
    bytes: usize,
    /// Every row is encoded and handed to the writer.
    encoded: bool,
    /// Finished, failed or cancelled: later answers are only absorbed.
    over: bool,
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

    // ---------------------------------------------------------------------------------------
    // Filter
    // ---------------------------------------------------------------------------------------

    /// Sets the filter from text (`[field:][re:]text`; empty clears it). A parse error is
    /// reported and the current filter kept.
    pub fn set_filter(&mut self, text: &str, sh: &mut Shared, out: &mut Out) {
        match Filter::parse(text) {
            Ok(f) => {
                self.apply_filter(f, sh);
                self.filter.set_text(text);
                self.pump(sh, out);
            }
            Err(e) => out.error(format!("filter: {e}")),
        }
    }

    fn apply_filter(&mut self, filter: Option<Filter>, sh: &Shared) {
        self.resync(sh);
        let selected = self.selected_index(sh);
        self.view.set(filter, &sh.history);
        let rows = self.view.len(&sh.history);
        self.scroll.set_len(rows);
        if self.following {
            self.scroll.bottom();
        } else if let Some(i) = selected {
            self.scroll
                .select(self.view.row_of(i).min(rows.saturating_sub(1)));
        }
    }

    fn open_filter(&mut self) {
        let text = self.filter_text().unwrap_or("").to_string();
        self.filter.open(&text, FILTER_SYNTAX);
        self.scroll.set_viewport(self.list_viewport());
    }

    fn close_filter(&mut self) {
        self.filter.close();
        self.scroll.set_viewport(self.list_viewport());
    }

    fn filter_text_changed(&mut self, sh: &mut Shared, out: &mut Out) {
        let Some(text) = self.filter.text() else {
            return;
        };
        match Filter::parse(&text) {
            Ok(f) => {
                self.filter.set_error(None);
                self.apply_filter(f, sh);
                self.pump(sh, out);
            }
            Err(e) => self.filter.set_error(Some(e)),
        }
        self.scroll.set_viewport(self.list_viewport());
    }

    // ---------------------------------------------------------------------------------------
    // Keeping the view in step with the history
    // ---------------------------------------------------------------------------------------

    /// Brings the view in step after the history changed outside the pane.
    pub fn resync(&mut self, sh: &Shared) {
        let len = sh.history.len();
        if len == self.known_len && self.scroll.len() == self.view.len(&sh.history) {
            return;
        }
        if len < self.known_len {
            let filter = self.view.filter.take();
            self.view.set(filter, &sh.history);
        } else {
            self.view.sync(&sh.history, 0);
        }
        self.known_len = len;
        self.scroll.set_len(self.view.len(&sh.history));
        if self.following {
            self.scroll.bottom();
        }
    }

    fn pause(&mut self) {
        if self.following {
            self.following = false;
            self.new_rows = 0;
        }
    }

    /// Appends a page; returns rows added to the view.
    fn append(&mut self, page: &UpdatesPage, sh: &mut Shared, out: &mut Out) -> usize {
        self.resync(sh);
        let items = self.positioned(&page.transactions, out);
        let old_rows = self.view.len(&sh.history);
        let added = sh.history.add_page(&items, Placement::Append);
        if added > 0 {
            self.view.sync(&sh.history, 0);
        }
        self.known_len = sh.history.len();
        let new_rows = self.view.len(&sh.history);
        let delta = new_rows.saturating_sub(old_rows);
        self.scroll.set_len(new_rows);
        if self.following {
            self.scroll.bottom();
        } else if self.at_head {
            self.new_rows += delta;
        }
        if let Some(last) = sh.history.last() {
            self.migration = Some(
                self.migration
                    .map_or(last.migration_id, |m| m.max(last.migration_id)),
            );
        }
        self.advance_cursor(page, sh);
        delta
    }

    /// Prepends items older than the oldest loaded one, keeping the selection on the same
    /// update (and the screen still). Returns history items added.
    fn prepend(&mut self, items: &[UpdateItem], sh: &mut Shared) -> usize {
        self.resync(sh);
        let selected = self.selected_index(sh);
        let old_rows = self.view.len(&sh.history);
        let added = sh.history.add_page(items, Placement::Prepend);
        if added == 0 {
            return 0;
        }
        self.view.sync(&sh.history, added);
        self.known_len = sh.history.len();
        let new_rows = self.view.len(&sh.history);
        let delta = new_rows.saturating_sub(old_rows);
        self.scroll.set_len(new_rows);
        if self.following {
            self.scroll.bottom();
        } else if let Some(i) = selected {
            let row = self.view.row_of(i + added);
            self.scroll
                .scroll_by(isize::try_from(delta).unwrap_or(isize::MAX));
            self.scroll.select(row);
        } else if new_rows > 0 {
            self.scroll.select(new_rows - 1);
        }
        added
    }

    /// Items with a readable position (malformed items without one cannot be placed); records
    /// the decode errors of malformed items.
    fn positioned<'a>(
        &mut self,
        items: &'a [UpdateItem],
        out: &mut Out,
    ) -> std::borrow::Cow<'a, [UpdateItem]> {
        let mut all = true;
        for item in items {
            let pos = item_position(item);
            if let UpdateItem::Malformed { error, .. } = item
                && let Some(p) = pos
            {
                if self.malformed.len() >= MALFORMED_KEPT {
                    self.malformed.pop_front();
                }
                self.malformed.push_back((p, error.to_string()));
            }
            all &= pos.is_some();
        }
        if all {
            return std::borrow::Cow::Borrowed(items);
        }
        let kept: Vec<UpdateItem> = items
            .iter()
            .filter(|i| item_position(i).is_some())
            .cloned()
            .collect();
        out.warn(format!(
            "skipped {} update(s) without a readable record time",
            items.len() - kept.len()
        ));
        std::borrow::Cow::Owned(kept)
    }

    /// Moves the forward cursor to the newest loaded update (never backwards). The server's own
    /// text is used when it names exactly that update.
    fn advance_cursor(&mut self, page: &UpdatesPage, sh: &Shared) {
        let Some(last) = sh.history.last() else {
            return;
        };
        let last_pos = (last.migration_id, last.record_time);
        if self
            .cursor
            .as_ref()
            .and_then(cursor_position)
            .is_some_and(|c| c >= last_pos)
        {
            return;
        }
        if let Some(next) = page.next_after()
            && cursor_position(&next) == Some(last_pos)
        {
            self.cursor = Some(next);
            return;
        }
        self.cursor = Some(after_at(last.migration_id, last.record_time));
    }

    // ---------------------------------------------------------------------------------------
    // Main-line loader
    // ---------------------------------------------------------------------------------------

    fn refresh_ms(sh: &Shared) -> u64 {
        sh.ctx.refresh_ms.max(100)
    }

    fn forward_request(&self) -> UpdatesRequest {
        match &self.cursor {
            None => UpdatesRequest::from_begin(PAGE_SIZE),
            Some(c) => {
                UpdatesRequest::after(PAGE_SIZE, c.after_migration_id, c.after_record_time.clone())
            }
        }
    }

    /// Whether a lazily loading list needs the next page now.
    fn wants_more(&self, sh: &Shared) -> bool {
        if !self.lazy || self.following || self.more_requested {
            return true;
        }
        let len = sh.history.len();
        if len == 0 {
            return true;
        }
        if self.view.is_empty(&sh.history) {
            return false;
        }
        let index = self.view.index(self.scroll.cursor()).unwrap_or(0);
        len.saturating_sub(index) <= PAGE
    }

    /// Sends the next main-line request if one is due.
    fn pump(&mut self, sh: &mut Shared, out: &mut Out) {
        if self.in_flight.is_some() || sh.now < self.due {
            return;
        }
        let (req, purpose) = match self.stage {
            Stage::Idle => return,
            Stage::Discover { migration } => (
                UpdatesRequest::after(1, migration, DISCOVER_TIME),
                UpdatesPurpose::Discover { migration },
            ),
            Stage::Seek { window } => {
                let secs = self
                    .windows
                    .get(window)
                    .copied()
                    .unwrap_or(SEEK_STEPS[SEEK_STEPS.len() - 1]);
                let t = self.start_time.saturating_sub(secs.saturating_mul(MICROS));
                let m = self.migration.unwrap_or(0);
                (
                    UpdatesRequest::after(PAGE_SIZE, m, format_time_micros(t.max(0))),
                    UpdatesPurpose::Seek { window },
                )
            }
            Stage::Forward => {
                if !self.at_head && !self.wants_more(sh) {
                    return;
                }
                (self.forward_request(), UpdatesPurpose::Forward)
            }
        };
        self.in_flight = Some(out.fetch(sh, Request::Updates { req, purpose }));
    }

    fn on_failure(&mut self, message: String, sh: &Shared, out: &mut Out) -> i64 {
        out.error(message);
        self.failures = self.failures.saturating_add(1);
        let base = Self::refresh_ms(sh);
        self.backoff_ms = if self.backoff_ms == 0 {
            base
        } else {
            self.backoff_ms
                .saturating_mul(2)
                .min(MAX_BACKOFF_MS.max(base))
        };
        sh.now
            .saturating_add(i64::try_from(self.backoff_ms).unwrap_or(i64::MAX / 1000) * 1000)
    }

    fn on_success(&mut self) {
        self.failures = 0;
        self.backoff_ms = 0;
    }

    fn on_main_page(&mut self, page: &UpdatesPage, sh: &mut Shared, out: &mut Out) {
        self.on_success();
        let now = sh.now;
        match self.stage {
            Stage::Idle => {}
            Stage::Discover { migration } => {
                let next = page.transactions.first().map(|item| {
                    item_position(item)
                        .map(|(m, _)| m)
                        .filter(|&m| m > migration)
                        .unwrap_or(migration.saturating_add(1))
                });
                self.discover_steps += 1;
                match next {
                    Some(next) if self.discover_steps < MAX_DISCOVER_STEPS => {
                        self.stage = Stage::Discover { migration: next }
                    }
                    Some(next) => {
                        out.warn("migration discovery did not end; using the last one seen");
                        self.after_discovery(next);
                    }
                    None => self.after_discovery(migration),
                }
                self.due = now;
            }
            Stage::Seek { window } => {
                if page.transactions.is_empty() {
                    if window + 1 < self.windows.len() {
                        self.stage = Stage::Seek { window: window + 1 };
                        self.due = now;
                    } else {
                        // Nothing in a year: wait for new updates after the widest window.
                        let secs = self.windows.last().copied().unwrap_or(0);
                        let t = self.start_time.saturating_sub(secs.saturating_mul(MICROS));
                        self.cursor = Some(after_at(self.migration.unwrap_or(0), t.max(0)));
                        self.stage = Stage::Forward;
                        self.enter_head(now, sh);
                    }
                } else {
                    self.stage = Stage::Forward;
                    self.forward_page(page, sh, out);
                }
            }
            Stage::Forward => self.forward_page(page, sh, out),
        }
    }

    fn enter_head(&mut self, now: i64, sh: &Shared) {
        self.at_head = true;
        let ms = i64::try_from(Self::refresh_ms(sh)).unwrap_or(i64::MAX / 1000);
        self.due = now.saturating_add(ms * 1000);
    }

    fn forward_page(&mut self, page: &UpdatesPage, sh: &mut Shared, out: &mut Out) {
        self.more_requested = false;
        let before = self.cursor.clone();
        self.append(page, sh, out);
        if page.transactions.len() < PAGE {
            self.enter_head(sh.now, sh);
        } else if self.cursor == before {
            // A full page that did not move the cursor would be asked for for ever.
            out.warn("the update history did not advance; polling instead");
            self.enter_head(sh.now, sh);
        } else {
            // More is waiting: fetch again at once.
            self.due = sh.now;
        }
    }

    // ---------------------------------------------------------------------------------------
    // Earlier updates
    // ---------------------------------------------------------------------------------------

    /// The oldest known position: the first loaded update, or the forward cursor when nothing
    /// is loaded (then updates at the cursor itself count as earlier).
    fn earlier_bound(&self, sh: &Shared) -> Option<(Pos, bool)> {
        if let Some(first) = sh.history.first() {
            return Some(((first.migration_id, first.record_time), false));
        }
        if self.stage != Stage::Forward {
            return None;
        }
        self.cursor
            .as_ref()
            .and_then(cursor_position)
            .map(|p| (p, true))
    }

    fn start_earlier(&mut self, sh: &mut Shared, out: &mut Out) {
        if self.earlier.is_some() {
            return;
        }
        if self.reached_begin {
            out.info("reached ledger begin");
            return;
        }
        let Some(((migration, _), _)) = self.earlier_bound(sh) else {
            return;
        };
        self.earlier = Some(EarlierJob {
            migration,
            step: EARLIER_FIRST_STEP,
            gathered: 0,
            id: None,
            sent_after: 0,
            due: i64::MIN,
        });
        self.scroll.set_viewport(self.list_viewport());
        self.pump_earlier(sh, out);
    }

    fn pump_earlier(&mut self, sh: &mut Shared, out: &mut Out) {
        let Some(((_, anchor), _)) = self.earlier_bound(sh) else {
            return;
        };
        let Some(job) = &mut self.earlier else {
            return;
        };
        if job.id.is_some() || sh.now < job.due {
            return;
        }
        let after = anchor.saturating_sub(job.step).max(0);
        job.sent_after = after;
        let req = UpdatesRequest::after(PAGE_SIZE, job.migration, format_time_micros(after));
        let id = out.fetch(
            sh,
            Request::Updates {
                req,
                purpose: UpdatesPurpose::Earlier,
            },
        );
        if let Some(job) = &mut self.earlier {
            job.id = Some(id);
        }
    }

    fn on_earlier_page(&mut self, page: &UpdatesPage, sh: &mut Shared, out: &mut Out) {
        self.on_success();
        let Some((bound, inclusive)) = self.earlier_bound(sh) else {
            self.finish_earlier();
            return;
        };
        let Some(mut job) = self.earlier else {
            return;
        };
        job.id = None;
        let before = |p: Pos| if inclusive { p <= bound } else { p < bound };
        // Items come in ledger order: the earlier ones are a prefix of the page.
        let cut = page
            .transactions
            .iter()
            .position(|i| item_position(i).is_some_and(|p| !before(p)));
        let reached = cut.is_some();
        let full = page.transactions.len() >= PAGE;
        if full && !reached && job.step > EARLIER_MIN_STEP {
            // A gap between this page and the oldest loaded update: look back less far.
            job.step /= 2;
            job.due = sh.now;
            self.earlier = Some(job);
            return;
        }
        if full && !reached {
            out.warn("more than 1,000 updates within a millisecond: some were skipped");
        }
        let slice = &page.transactions[..cut.unwrap_or(page.transactions.len())];
        let items = self.positioned(slice, out);
        let added = self.prepend(&items, sh);
        job.gathered += added;
        job.due = sh.now;
        if job.gathered >= EARLIER_ENOUGH {
            self.finish_earlier();
            return;
        }
        if job.sent_after > 0 {
            let anchor = self.earlier_bound(sh).map_or(0, |((_, t), _)| t);
            job.step = if job.step >= EARLIER_MAX_STEP {
                // Ask for the whole migration.
                anchor.max(job.step)
            } else {
                job.step.saturating_mul(2).min(EARLIER_MAX_STEP)
            };
            self.earlier = Some(job);
        } else if job.migration > 0 {
            // This migration is exhausted: continue in the previous one.
            job.migration -= 1;
            job.step = EARLIER_FIRST_STEP;
            self.earlier = Some(job);
        } else {
            self.finish_earlier();
            self.reached_begin = true;
            out.info("reached ledger begin");
        }
    }

    fn finish_earlier(&mut self) {
        self.earlier = None;
        self.scroll.set_viewport(self.list_viewport());
    }

    // ---------------------------------------------------------------------------------------
    // Commands
    // ---------------------------------------------------------------------------------------

    fn on_move(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) {
        self.resync(sh);
        self.pause();
        let at_top = self.scroll.cursor() == 0;
        match cmd {
            Command::Up | Command::PageUp | Command::Top if at_top => {
                self.start_earlier(sh, out);
            }
            _ => {
                self.scroll.navigate(cmd);
            }
        }
        if matches!(cmd, Command::Down | Command::PageDown | Command::Bottom)
            && self.lazy
            && !self.at_head
            && self.scroll.cursor() + 1 >= self.scroll.len()
        {
            self.more_requested = true;
        }
        self.pump(sh, out);
    }

    fn follow(&mut self, sh: &mut Shared, out: &mut Out) {
        self.resync(sh);
        self.following = true;
        self.new_rows = 0;
        self.scroll.bottom();
        self.pump(sh, out);
    }

    fn open_selected(&mut self, sh: &Shared, out: &mut Out) {
        let Some(s) = self.selected(sh) else {
            return;
        };
        if s.kind == SummaryKind::Malformed {
            let pos = (s.migration_id, s.record_time);
            let why = self
                .malformed
                .iter()
                .rev()
                .find(|(p, _)| *p == pos)
                .map_or("its JSON does not match the expected shape", |(_, e)| e);
            let id = if s.update_id.is_empty() {
                "this update".to_string()
            } else {
                format!("update {}", safe_line(&s.update_id, 80))
            };
            out.error(format!("{id} could not be decoded: {why}"));
            return;
        }
        if s.update_id.is_empty() {
            out.warn("this update has no id");
            return;
        }
        out.events.push(AppEvent::OpenUpdate {
            update_id: s.update_id.to_string(),
            event_id: None,
        });
    }

    fn copy_selected(&self, sh: &Shared, out: &mut Out) {
        match self.selected(sh) {
            Some(s) if !s.update_id.is_empty() => out.copy("update id", s.update_id.to_string()),
            Some(_) => out.warn("this update has no id"),
            None => {}
        }
    }

    // ---------------------------------------------------------------------------------------
    // Export
    // ---------------------------------------------------------------------------------------

    /// `e`: opens the export dialog over the rows shown now (frozen until the export ends).
    fn open_export(&mut self, sh: &Shared, out: &mut Out) {
        if let Some(job) = &self.export {
            out.warn(format!(
                "an export is running ({}%): Esc cancels it",
                job.percent()
            ));
            return;
        }
        self.resync(sh);
        let snapshot = ExportSnapshot::new(&sh.history, &self.view);
        if snapshot.is_empty() {
            out.warn(if sh.history.is_empty() {
                "nothing to export: no updates loaded yet"
            } else {
                "nothing to export: no loaded update matches the filter"
            });
            return;
        }
        self.export_dialog = Some(ExportDialog::new(snapshot, sh.now));
    }

    fn on_export_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        let Some(dialog) = &mut self.export_dialog else {
            return;
        };
        match dialog.handle_key(key) {
            DialogOutcome::Submit => {
                if let Some(dialog) = self.export_dialog.take() {
                    match dialog.into_job() {
                        Ok(job) => {
                            self.export = Some(job);
                            self.export_writes = None;
                            self.step_export(sh, out);
                        }
                        Err(dialog) => self.export_dialog = Some(*dialog),
                    }
                }
            }
            DialogOutcome::Cancel => self.export_dialog = None,
            DialogOutcome::Changed | DialogOutcome::Nothing => {}
        }
        self.scroll.set_viewport(self.list_viewport());
    }

    /// Encodes the next chunk of the running export and streams it to the file (the first
    /// chunk creates it, the next ones append; the runtime runs file effects in order).
    fn step_export(&mut self, sh: &mut Shared, out: &mut Out) {
        let Some(job) = &mut self.export else {
            return;
        };
        let step = job.step(&sh.history, CHUNK_ROWS);
        let chunk = job.take_chunk();
        let (path, rows, format) = (job.path.clone(), job.total(), job.format);
        let writes = self.export_writes.get_or_insert_with(|| ExportWrites {
            path: path.clone(),
            rows,
            format,
            ids: Vec::new(),
            pending: 0,
            bytes: 0,
            encoded: false,
            over: false,
        });
        match step {
            Ok(finished) => {
                if !chunk.is_empty() || writes.ids.is_empty() {
                    let id = out.next_id(sh);
                    out.effects.push(if writes.ids.is_empty() {
                        Effect::WriteFile {
                            id,
                            path,
                            contents: chunk,
                        }
                    } else {
                        Effect::AppendFile {
                            id,
                            path,
                            contents: chunk,
                        }
                    });
                    writes.ids.push(id);
                    writes.pending += 1;
                }
                if finished {
                    writes.encoded = true;
                    self.export = None;
                }
            }
            Err(e) => {
                self.export = None;
                writes.over = true;
                if !writes.ids.is_empty() {
                    out.effects.push(Effect::RemoveFile(writes.path.clone()));
                }
                out.error(format!(
                    "export cancelled: {e}; the partial file was removed"
                ));
            }
        }
        self.scroll.set_viewport(self.list_viewport());
    }

    /// A write of the export finished: the next message, or the failure (which stops it).
    fn on_export_written(
        &mut self,
        id: RequestId,
        result: &Result<usize, String>,
        out: &mut Out,
    ) -> bool {
        let Some(w) = &mut self.export_writes else {
            return false;
        };
        if !w.ids.contains(&id) {
            return false;
        }
        w.pending = w.pending.saturating_sub(1);
        if w.over {
            return true;
        }
        match result {
            Ok(n) => {
                w.bytes += n;
                if w.encoded && w.pending == 0 {
                    w.over = true;
                    out.info(format!(
                        "exported {} row{} as {} to {} ({} bytes)",
                        group_digits(w.rows),
                        if w.rows == 1 { "" } else { "s" },
                        w.format.label(),
                        w.path.display(),
                        group_digits(w.bytes)
                    ));
                }
            }
            Err(e) => {
                w.over = true;
                out.effects.push(Effect::RemoveFile(w.path.clone()));
                out.error(format!(
                    "export failed: could not write {}: {e}",
                    w.path.display()
                ));
                self.export = None;
                self.scroll.set_viewport(self.list_viewport());
            }
        }
        true
    }

    /// Stops a running export and removes what it wrote so far. Returns the message.
    fn abort_export(&mut self, out: &mut Out) -> Option<(usize, usize)> {
        let job = self.export.take()?;
        if let Some(w) = &mut self.export_writes
            && !w.over
        {
            w.over = true;
            if !w.ids.is_empty() {
                out.effects.push(Effect::RemoveFile(w.path.clone()));
            }
        }
        Some((job.done(), job.total()))
    }

    fn cancel_export(&mut self, out: &mut Out) {
        if let Some((done, total)) = self.abort_export(out) {
            out.info(format!(
                "export cancelled at {} of {} rows; the partial file was removed",
                group_digits(done),
                group_digits(total)
            ));
        }
        self.scroll.set_viewport(self.list_viewport());
    }

    // ---------------------------------------------------------------------------------------
    // Drawing
    // ---------------------------------------------------------------------------------------

    /// Rows of the filter bar at the bottom.
    fn filter_bar_height(&self) -> u16 {
        self.filter.height(self.view.filter.is_some())
    }

    /// List rows available in the last known area.
    fn list_viewport(&self) -> usize {
        let inner = self.area.height.saturating_sub(2);
        let used = 1
            + self.filter_bar_height()
            + u16::from(self.earlier.is_some())
            + u16::from(self.export.is_some());
        usize::from(inner.saturating_sub(used).max(1))
    }

    fn status_parts(&self) -> Vec<(String, StatusTone)> {
        let mut parts = Vec::new();
        if self.following {
            if self.at_head {
                parts.push(("live".to_string(), StatusTone::Ok));
            } else {
                parts.push(("following".to_string(), StatusTone::Ok));
            }
        } else if self.stage != Stage::Idle {
            if self.new_rows > 0 {
                parts.push((
                    format!("paused · {} new", group_digits(self.new_rows)),
                    StatusTone::Warn,
                ));
            } else {
                parts.push(("paused".to_string(), StatusTone::Warn));
            }
        }
        match self.stage {
            Stage::Idle => parts.push(("not started".to_string(), StatusTone::Muted)),
            Stage::Discover { .. } => parts.push((
                "finding the current migration…".to_string(),
                StatusTone::Muted,
            )),
            Stage::Seek { window } => {
                let secs = self.windows.get(window).copied().unwrap_or(0);
                parts.push((
                    format!("looking back {}…", human_span(secs)),
                    StatusTone::Muted,
                ));
            }
            Stage::Forward if !self.at_head => {
                let text = if self.in_flight.is_some() {
                    "loading…"
                } else {
                    "more below"
                };
                parts.push((text.to_string(), StatusTone::Muted));
            }
            Stage::Forward => {}
        }
        if self.failures > 0 {
            parts.push((
                format!("error, retrying ({}×)", self.failures),
                StatusTone::Err,
            ));
        }
        if let Some(job) = &self.export {
            parts.push((format!("export {}%", job.percent()), StatusTone::Ok));
        }
        parts
    }

    fn title_line(&self, sh: &Shared, theme: &Theme) -> Line<'static> {
        let mut spans = vec![Span::styled("History", theme.title)];
        let rows = self.view.len(&sh.history);
        let count = if self.view.filter.is_some() {
            format!(
                "{} of {} updates",
                group_digits(rows),
                group_digits(sh.history.len())
            )
        } else {
            format!("{} updates", group_digits(sh.history.len()))
        };
        spans.push(Span::styled(format!(" · {count}"), theme.muted));
        for (text, tone) in self.status_parts() {
            let style = match tone {
                StatusTone::Ok => theme.status_ok,
                StatusTone::Warn => theme.status_warn,
                StatusTone::Err => theme.status_err,
                StatusTone::Muted => theme.muted,
            };
            spans.push(Span::styled(" · ", theme.muted));
            spans.push(Span::styled(text, style));
        }
        Line::from(spans)
    }

    fn render_rows(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, focused: bool) {
        let rows = self.view.len(&sh.history);
        let width = usize::from(area.width);
        if rows == 0 {
            let text = if sh.history.is_empty() {
                match self.stage {
                    Stage::Idle => "not started",
                    Stage::Discover { .. } | Stage::Seek { .. } => "loading…",
                    Stage::Forward if self.at_head => "no updates yet: waiting for new ones",
                    Stage::Forward => "loading…",
                }
            } else {
                "no loaded update matches the filter"
            };
            buf.set_stringn(area.x, area.y, text, width, theme.muted);
            return;
        }
        let mut scroll = self.scroll;
        if scroll.len() != rows {
            scroll.set_len(rows);
        }
        let draw = Draw::new(sh, theme, focused);
        let at = |row: usize| self.view.index(row).and_then(|i| sh.history.get(i));
        self.columns.render_rows(area, buf, &scroll, at, &draw);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StatusTone {
    Ok,
    Warn,
    Err,
    Muted,
}

/// A column of the History table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryCol {
    Time,
    Migration,
    Kind,
    Id,
    Summary,
    Events,
    Synchronizer,
}

/// The table's columns: low-value ones go first as it narrows (the synchronizer, the migration,
/// the event count…), the time keeps only the time of day below 72 columns. Ledger order: the
/// table is not sorted.
fn columns() -> Columns<HistoryCol> {
    let col = |id, title, width| Column::new(id, title, Width::Fixed(width)).unsortable();
    Columns::new(vec![
        Column::new(
            HistoryCol::Time,
            "Time",
            Width::Wide {
                narrow: 12,
                wide: 23,
                from: 72,
            },
        )
        .unsortable()
        .priority(8),
        col(HistoryCol::Migration, "Mig", 3).right().priority(2),
        col(HistoryCol::Kind, "Kind", 11).priority(6),
        col(HistoryCol::Id, "Update", 10).priority(5),
        Column::new(HistoryCol::Summary, "Summary", Width::fill(24)).unsortable(),
        col(HistoryCol::Events, "Events", 6).right().priority(3),
        col(HistoryCol::Synchronizer, "Synchronizer", 16).priority(1),
    ])
}

impl TableRow for UpdateSummary {
    type Col = HistoryCol;
    /// Times in the session's zone, labels from the history's interner.
    type Ctx = Shared;

    fn cell(&self, col: HistoryCol, width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        let interner = &sh.history.summarizer.interner;
        match col {
            HistoryCol::Time => {
                let t = sh.format_time(self.record_time);
                let t = if width < 23 {
                    t.get(11..).map(str::to_string).unwrap_or(t)
                } else {
                    t
                };
                Cell::new(t, theme.time)
            }
            HistoryCol::Migration => Cell::new(self.migration_id.to_string(), Style::default()),
            HistoryCol::Kind => {
                let style = match self.kind {
                    SummaryKind::Transaction => theme.exercised,
                    SummaryKind::Assign => theme.assign,
                    SummaryKind::Unassign => theme.unassign,
                    SummaryKind::Malformed => theme.status_err,
                };
                Cell::new(self.kind.label(), style)
            }
            HistoryCol::Id => Cell::new(short_id(&self.update_id, 8), theme.id),
            HistoryCol::Summary => {
                let style = if self.kind == SummaryKind::Malformed {
                    theme.status_err
                } else {
                    Style::default()
                };
                Cell::new(self.root_label(interner), style)
            }
            HistoryCol::Events => Cell::new(self.event_count.to_string(), theme.muted),
            HistoryCol::Synchronizer => Cell::new(
                short_party(interner.resolve(self.synchronizer)).to_owned(),
                theme.party,
            ),
        }
    }

    /// Unused: the History filter matches summaries by field (`model::history::Filter`).
    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.update_id)
    }

    fn title(col: HistoryCol, sh: &Shared) -> Option<Cow<'static, str>> {
        (col == HistoryCol::Time).then(|| Cow::Owned(format!("Time ({})", sh.zone_label())))
    }
}

/// `after` at `(migration, micros)`.
fn after_at(migration: i64, micros: i64) -> UpdatesAfter {
    UpdatesAfter {
        after_migration_id: migration,
        after_record_time: format_time_micros(micros),
    }
}

fn cursor_position(c: &UpdatesAfter) -> Option<Pos> {
    parse_time_micros(&c.after_record_time).map(|t| (c.after_migration_id, t))
}

/// `(migration id, record time)` of an item; for malformed items read from their raw JSON.
fn item_position(item: &UpdateItem) -> Option<Pos> {
    match item {
        UpdateItem::Malformed { raw, .. } => {
            let v = raw.to_value().ok()?;
            let m = v.get("migration_id").and_then(serde_json::Value::as_i64)?;
            let t = v
                .get("record_time")
                .and_then(serde_json::Value::as_str)
                .and_then(parse_time_micros)?;
            Some((m, t))
        }
        _ => Some((
            item.migration_id()?,
            parse_time_micros(item.record_time()?)?,
        )),
    }
}

impl Pane for HistoryPane {
    fn current_update_id(&self, sh: &Shared) -> Option<String> {
        self.selected_update_id(sh)
    }

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
                format!("paused +{}", group_digits(self.new_rows))
            } else {
                "paused".into()
            });
        }
        if sh.history.is_empty() {
            None
        } else {
            Some(group_digits(sh.history.len()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_fill_the_width_and_drop_low_value_ones() {
        let cols = columns();
        for w in [0u16, 10, 40, 51, 52, 78, 80, 100, 118, 200] {
            let layout = cols.layout(w);
            let last = layout.last().expect("a column");
            assert_eq!(last.x + last.width, w, "width {w}");
            assert!(layout.iter().any(|c| c.id == HistoryCol::Summary));
        }
        let ids = |w| cols.layout(w).iter().map(|c| c.id).collect::<Vec<_>>();
        assert_eq!(
            ids(78),
            vec![
                HistoryCol::Time,
                HistoryCol::Kind,
                HistoryCol::Id,
                HistoryCol::Summary,
                HistoryCol::Events
            ]
        );
        assert!(ids(118).contains(&HistoryCol::Synchronizer));
    }

    #[test]
    fn spans_read_naturally() {
        assert_eq!(human_span(600), "10 min");
        assert_eq!(human_span(3600), "1 h");
        assert_eq!(human_span(7 * 86_400), "7 d");
        assert_eq!(human_span(45), "45 s");
    }
}
