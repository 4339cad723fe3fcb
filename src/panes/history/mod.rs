//! The History pane: the loaded update history ([`Shared::history`], filled by the app's loader,
//! [`crate::feed::loader`]) as a virtualized table: the live tail (follow / pause with a
//! new-item count), asking the loader for earlier updates above the first loaded one and for
//! the next page of a lazily loaded list, the `/` filter, opening / copying the selected update,
//! and the export of the shown rows (`e`, see [`super::export`]). With a local index that holds
//! older updates, `L`, `:time` and scrolling above the loaded rows show History read from the
//! index instead, a page at a time (`index_range`), and `F` searches the whole index
//! (`index_search`).
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
//! The pane only reads the history: it asks the loader for more through
//! [`AppEvent::Loader`](super::AppEvent::Loader) and keeps its view in step in
//! [`HistoryPane::on_history`].

mod context;
mod export;
mod index_search;
mod loaded;
mod over_timeline;
mod rows;
mod server_export;
mod span;
mod start;
mod table;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::widgets::{Block, Widget};

use crate::feed::loader::LoaderIntent;
use crate::model::export::ExportJob;
use crate::model::history::FilteredView;
use crate::model::summary::UpdateSummary;
use crate::msg::Command;
use crate::msg::RequestId;
use crate::ui::scroll::ScrollState;
use crate::ui::table::{Columns, Draw, FilterEvent, FilterInput};

use super::export::{ExportDialog, RangeDialog, render_progress};
use super::new_file::NewFile;
use super::{AppEvent, Out, Pane, PaneId, RenderCtx, Shared};
pub use crate::feed::loader::{
    DISCOVER_TIME, EARLIER_ENOUGH, EARLIER_FIRST_STEP, EARLIER_MAX_STEP, MAX_BACKOFF_MS, PAGE_SIZE,
    SEEK_STEPS,
};
use crate::feed::range_export::RangeExport;
pub use crate::feed::timeline::{
    Aim, FillEnd, Gap, IndexedRow, KEPT_PAGES as INDEX_RANGE_KEPT_PAGES, Land, ScanFill, Timeline,
};
pub use context::{CONTEXT_N, HitContext};
use export::ExportWrites;
pub use index_search::{IndexSearch, MAX_KEPT as INDEX_SEARCH_MAX_KEPT, NO_INDEX};
pub use span::{SPAN_CHOICES, parse_span};
use span::{SpanPrompt, render_span_progress};
pub use table::HistoryCol;
use table::columns;

/// What the view was last synced with: `(epoch, base, len)` of the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Known {
    epoch: u64,
    base: i64,
    len: usize,
}

impl Known {
    fn of(h: &crate::model::history::History) -> Self {
        Known {
            epoch: h.epoch(),
            base: h.base(),
            len: h.len(),
        }
    }
}

/// The History pane.
#[derive(Debug)]
pub struct HistoryPane {
    /// Following the newest update, or paused, or browsing at a time.
    tail: Tail,
    /// The "loading earlier updates" row is shown (the loader's, as last seen).
    earlier_row: bool,
    /// The list is drawn newest first (`R` flips it); the scroll state stays in ledger order
    /// (row 0 the oldest) and only drawing and the movement keys are mirrored.
    newest_first: bool,
    scroll: ScrollState,
    view: FilteredView,
    /// The history the view was last synced with.
    known: Known,
    columns: Columns<HistoryCol>,
    /// The `/` input (the filter itself is `view.filter`).
    filter: FilterInput,
    /// The exports: of the shown rows (`e`) and from the server (`X`).
    exports: Exports,
    /// The span load (`L`): its prompt and progress line.
    span: SpanState,
    /// The whole-history search (`F`), while shown.
    index_search: Option<IndexSearch>,
    /// History reads through the app's timeline (`Shared::timeline`: `L`, `:time`, scrolling
    /// above the loaded rows with an index): the pane opened it and has not closed it.
    over_timeline: bool,
    area: Rect,
}

/// Where the list stands against the newest update.
#[derive(Debug, Default)]
struct Tail {
    following: bool,
    /// The user went to a time (`:time`, `--from`): the header says "browsing" until following
    /// resumes.
    browsing: bool,
    /// Rows that arrived at the head since following was paused.
    new_rows: usize,
    /// Where the history stood when following was paused (the absolute index of the first
    /// update that came after): the new rows are the view's rows from there.
    paused_at: Option<i64>,
}

/// The exports of the pane: of the shown rows (`e`) and from the server (`X`).
#[derive(Debug, Default)]
struct Exports {
    /// The export dialog, while open.
    dialog: Option<ExportDialog>,
    /// The running export (encoded a chunk per tick).
    job: Option<ExportJob>,
    /// The writes of the current (or last) export.
    writes: Option<ExportWrites>,
    /// The path of an export the user was told exists (`e` and `X`): ↵ again replaces it.
    file: NewFile,
    /// The export-from-the-server dialog, while open.
    range_dialog: Option<RangeDialog>,
    /// The running export from the server.
    range: Option<RangeExport>,
    /// Its dialog as submitted, until the file is created: it comes back if the file exists.
    range_retry: Option<RangeDialog>,
    /// Writes of a stopped export from the server still to be answered.
    range_orphans: Vec<RequestId>,
}

/// The span load (`L`, `:load 6h`) as the pane shows it.
#[derive(Debug, Default)]
struct SpanState {
    /// The "load the last …" prompt, while open.
    prompt: Option<SpanPrompt>,
    /// The span of the running (or last) span load, as the user asked it (`6h`).
    label: String,
    /// The span load's progress line is shown (the loader's, as last seen).
    line: bool,
}

impl HistoryPane {
    /// A pane over the shared history; nothing is fetched until [`HistoryPane::start`].
    pub fn new(sh: &Shared) -> Self {
        let mut view = FilteredView::default();
        view.sync(&sh.history, 0);
        HistoryPane {
            tail: Tail::default(),
            earlier_row: false,
            newest_first: false,
            scroll: ScrollState::new(sh.history.len()),
            view,
            known: Known::of(&sh.history),
            columns: columns(),
            filter: FilterInput::default(),
            exports: Exports::default(),
            span: SpanState::default(),
            index_search: None,
            over_timeline: false,
            area: Rect::default(),
        }
    }

    // ---------------------------------------------------------------------------------------
    // Public state (for the app, the header and tests)
    // ---------------------------------------------------------------------------------------

    /// Whether the list is drawn newest first.
    pub fn is_newest_first(&self) -> bool {
        self.newest_first
    }

    /// Whether the selection follows the newest update.
    pub fn is_following(&self) -> bool {
        self.tail.following
    }

    /// Whether the user went to a time (`:time`, `--from`) and browses there.
    pub fn is_browsing(&self) -> bool {
        self.tail.browsing && !self.tail.following
    }

    /// Rows that arrived since following was paused.
    pub fn new_count(&self) -> usize {
        self.tail.new_rows
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
        if let Some(r) = &sh.timeline
            && r.in_index()
        {
            return r
                .selected()
                .filter(|row| !row.update_id.is_empty())
                .map(|row| row.update_id.clone());
        }
        self.selected(sh).map(|s| s.update_id().to_string())
    }

    /// The active filter's text.
    pub fn filter_text(&self) -> Option<&str> {
        self.view.filter.as_ref().map(|f| f.input.as_str())
    }

    /// Whether the filter input is open.
    pub fn is_editing_filter(&self) -> bool {
        self.filter.is_open()
    }

    /// Whether the "load the last …" prompt is open.
    pub fn is_span_prompt_open(&self) -> bool {
        self.span.prompt.is_some()
    }

    /// Whether a span load is running (the loader's, as the feed says).
    fn span_running(sh: &Shared) -> bool {
        sh.feed.span.is_some_and(|p| p.running())
    }

    /// Whether the export dialog is open.
    pub fn is_export_dialog_open(&self) -> bool {
        self.exports.dialog.is_some()
    }

    /// The export dialog, while open.
    pub fn export_dialog(&self) -> Option<&ExportDialog> {
        self.exports.dialog.as_ref()
    }

    /// Progress of the running export: (rows done, rows in total).
    pub fn export_progress(&self) -> Option<(usize, usize)> {
        self.exports.job.as_ref().map(|j| (j.done(), j.total()))
    }

    /// The filter input's parse error, if the text typed so far does not parse.
    pub fn filter_error(&self) -> Option<&str> {
        self.filter.error()
    }

    /// The status shown after the title (`1,234 updates · live`, `paused · 12 new`, …).
    pub fn status_text(&self, sh: &Shared) -> String {
        self.status_parts(sh)
            .into_iter()
            .map(|(t, _)| t)
            .collect::<Vec<_>>()
            .join(" · ")
    }
}

impl Pane for HistoryPane {
    fn current_update_id(&self, sh: &Shared) -> Option<String> {
        self.selected_update_id(sh)
    }

    fn id(&self) -> PaneId {
        PaneId::History
    }

    fn wants_raw_keys(&self) -> bool {
        self.index_search
            .as_ref()
            .is_some_and(IndexSearch::is_typing)
            || self.filter.is_open()
            || self.exports.dialog.is_some()
            || self.span.prompt.is_some()
            || self.exports.range_dialog.is_some()
    }

    fn on_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        if self
            .index_search
            .as_ref()
            .is_some_and(IndexSearch::is_typing)
        {
            self.on_index_search_key(key, sh, out);
            return;
        }
        if self.exports.dialog.is_some() {
            self.on_export_key(key, sh, out);
            return;
        }
        if self.span.prompt.is_some() {
            self.on_span_key(key, sh, out);
            return;
        }
        if self.exports.range_dialog.is_some() {
            self.on_range_key(key, sh, out);
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
            FilterEvent::Changed(_) => self.filter_text_changed(sh),
            FilterEvent::Move(cmd) => self.on_move(cmd, sh, out),
            FilterEvent::Complete { back } => {
                let parties = sh.history.parties();
                match self.filter.complete("party", &parties, back) {
                    (0, _) => out.info("Tab completes party ids after party: (e.g. party:ju)"),
                    (n, _) => {
                        if n > 1 {
                            out.info(format!(
                                "{n} parties match: Tab the next, Shift-Tab the previous"
                            ));
                        }
                        self.filter_text_changed(sh);
                    }
                }
            }
            FilterEvent::Nothing => {}
        }
    }

    fn on_paste(&mut self, text: &str, sh: &mut Shared, _out: &mut Out) {
        if let Some(dialog) = &mut self.exports.dialog {
            dialog.paste(text);
            return;
        }
        if self.paste_index_search(text) || self.paste_span(text) || self.paste_range(text) {
            return;
        }
        if let FilterEvent::Changed(_) = self.filter.on_paste(text) {
            self.filter_text_changed(sh);
        }
    }

    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        if let Some(used) = self.index_search_command(cmd, sh, out) {
            return used;
        }
        if let Some(used) = self.index_range_command(cmd, sh, out) {
            return used;
        }
        match cmd {
            Command::SearchIndex => {
                self.open_index_search(sh, out);
                self.index_search_set_viewport();
                true
            }
            cmd if cmd.is_move() => {
                // Newest first: the keys move on screen, so in ledger order the other way.
                let cmd = if self.newest_first {
                    match cmd {
                        Command::Up => Command::Down,
                        Command::Down => Command::Up,
                        Command::PageUp => Command::PageDown,
                        Command::PageDown => Command::PageUp,
                        Command::Top => Command::Bottom,
                        _ => Command::Top,
                    }
                } else {
                    cmd
                };
                self.on_move(cmd, sh, out);
                true
            }
            Command::FlipOrder => {
                self.resync(sh);
                self.newest_first = !self.newest_first;
                out.info(if self.newest_first {
                    "History: newest first (R: oldest first)"
                } else {
                    "History: oldest first, in ledger order (R: newest first)"
                });
                true
            }
            Command::FollowTail => {
                self.follow(sh);
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
            Command::LoadSpan => {
                self.open_span_prompt(sh, out);
                true
            }
            Command::ExportRange => {
                self.open_range_export(sh, out);
                true
            }
            Command::Back | Command::Cancel if self.is_range_exporting() => {
                self.cancel_range_export(out)
            }
            Command::Back | Command::Cancel if self.exports.job.is_some() => {
                self.cancel_export(out);
                true
            }
            Command::Back | Command::Cancel if Self::span_running(sh) => {
                out.events.push(AppEvent::Loader(LoaderIntent::CancelSpan));
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
                out.events.push(AppEvent::Loader(LoaderIntent::Refresh));
                true
            }
            // o / O sort the other tables; this one follows the ledger (and its tail).
            Command::Sort | Command::SortReverse => {
                out.info(
                    "the History list is in ledger order: it does not sort (R flips it: newest first / oldest first)",
                );
                true
            }
            _ => false,
        }
    }

    fn on_tick(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        let before = (self.known, self.scroll);
        self.resync(sh);
        let changed = before != (self.known, self.scroll);
        let exporting = self.exports.job.is_some();
        if exporting {
            self.step_export(sh, out);
        }
        let paging = self.pump_range_export(sh, out);
        changed || exporting || paging
    }

    fn on_fetched(&mut self, reply: &crate::msg::Fetched, sh: &mut Shared, out: &mut Out) {
        if self.on_index_search_reply(reply, sh, out) {
            return;
        }
        self.on_range_page(reply, sh, out);
        self.pump_range_export(sh, out);
    }

    fn on_file_read(
        &mut self,
        id: RequestId,
        _path: &str,
        result: &Result<Vec<u8>, String>,
        sh: &mut Shared,
        out: &mut Out,
    ) {
        self.on_range_file_read(id, result, sh, out);
    }

    fn on_written(&mut self, id: RequestId, result: &Result<usize, String>, out: &mut Out) -> bool {
        self.on_export_written(id, result, out) || self.on_range_written(id, result, out)
    }

    fn set_area(&mut self, area: Rect) {
        self.area = area;
        self.scroll.set_viewport(self.list_viewport());
        self.index_search_set_viewport();
    }

    fn render(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { sh, theme, focused } = cx;
        if area.width == 0 || area.height == 0 {
            return;
        }
        if let Some(s) = &self.index_search {
            self.render_index_search(s, area, buf, cx);
            return;
        }
        if let Some(r) = &sh.timeline {
            self.render_index_range(r, area, buf, cx);
            if let Some(prompt) = &self.span.prompt {
                prompt.render(area, buf, sh, theme);
            }
            return;
        }
        let title = self.title_line(sh, theme);
        let title_width = title.width();
        let block = Block::bordered()
            .border_style(theme.border_style(focused))
            .title(title);
        let inner = block.inner(area);
        if inner.width == 0 || inner.height == 0 {
            block.render(area, buf);
            return;
        }
        // Where things go: the filter bar and the progress lines at the bottom, the header
        // and the earlier-updates line at the top, the rows between.
        let mut list = inner;
        let bar_h = self.filter_bar_height().min(list.height.saturating_sub(1));
        let bar = Rect::new(list.x, list.bottom() - bar_h, list.width, bar_h);
        list.height -= bar_h;
        let span_line = sh
            .feed
            .span
            .filter(super::super::feed::loader::SpanProgress::running)
            .filter(|_| list.height >= 2)
            .map(|p| {
                list.height -= 1;
                (p, Rect::new(list.x, list.bottom(), list.width, 1))
            });
        let job_line = self
            .exports
            .job
            .as_ref()
            .filter(|_| list.height >= 2)
            .map(|job| {
                list.height -= 1;
                (job, Rect::new(list.x, list.bottom(), list.width, 1))
            });
        let header = (list.height >= 2).then(|| {
            let header = Rect::new(list.x, list.y, list.width, 1);
            list.y += 1;
            list.height -= 1;
            header
        });
        let earlier = (self.earlier_row && list.height >= 2).then(|| {
            // Earlier updates come in above the oldest row: at the top, or at the bottom when
            // the list is drawn newest first.
            let (y, text) = if self.newest_first {
                (list.bottom() - 1, "↓ loading earlier updates…")
            } else {
                (list.y, "↑ loading earlier updates…")
            };
            if !self.newest_first {
                list.y += 1;
            }
            list.height -= 1;
            (y, text)
        });
        let (cols, notes) = self.folded_columns(sh, list);
        // The migrations on the right (unless a folded column says it), with what the folded
        // columns leave out, where they do not cut the title.
        let migrations = migrations_shown(sh)
            .filter(|_| !notes.iter().any(|(c, _)| *c == HistoryCol::Migration));
        let block = table::with_notes(
            block,
            migrations.as_deref(),
            &notes,
            title_width,
            area.width,
            theme,
        );
        block.render(area, buf);
        if bar_h > 0 {
            let counts = (self.view.len(&sh.history), sh.history.len());
            self.filter
                .render(bar, buf, theme, self.filter_text(), counts);
        }
        if let Some((p, line)) = span_line {
            render_span_progress(&p, &self.span.label, sh, line, buf, theme);
        }
        if let Some((job, line)) = job_line {
            render_progress(job, line, buf, theme);
        }
        if let Some(header) = header {
            let draw = Draw::new(sh, theme, focused);
            cols.render_header::<UpdateSummary>(header, buf, &draw);
        }
        if let Some((y, text)) = earlier {
            buf.set_stringn(
                list.x,
                y,
                text,
                usize::from(list.width),
                theme.muted.add_modifier(Modifier::ITALIC),
            );
        }
        self.render_rows(&cols, list, buf, cx);
        if let Some(dialog) = &self.exports.dialog {
            dialog.render(area, buf, theme);
        }
        if let Some(prompt) = &self.span.prompt {
            prompt.render(area, buf, sh, theme);
        }
        if let Some(dialog) = &self.exports.range_dialog {
            dialog.render(area, buf, theme);
        }
    }

    /// The selected row's fields, whole (the Summary and the id are cut in the table).
    fn fields(&self, sh: &Shared) -> Option<(String, Vec<crate::ui::fields::Field>)> {
        use crate::ui::fields::Field;
        let s = self.selected(sh)?;
        let interner = &sh.history.summarizer.interner;
        Some((
            format!(
                "update {}",
                crate::model::summary::short_id(&s.update_id(), 16)
            ),
            vec![
                Field::new("update", s.update_id().to_string()),
                Field::new("record time", sh.format_time(s.record_time())),
                Field::new("summary", s.root_label(interner)),
                Field::new("migration", s.migration_id().to_string()),
                Field::new(
                    "synchronizer",
                    interner.resolve(s.synchronizer()).to_string(),
                ),
                Field::new("events", s.event_count().to_string()),
            ],
        ))
    }

    fn hints(&self) -> Vec<Command> {
        if self.wants_raw_keys() {
            return vec![Command::Confirm, Command::Cancel];
        }
        if self.over_timeline && self.index_search.is_none() {
            return vec![
                Command::Select,
                Command::Copy,
                Command::FollowTail,
                Command::SearchIndex,
                Command::Back,
            ];
        }
        if self.index_search.is_some() {
            return vec![
                Command::Select,
                Command::Copy,
                Command::Context,
                Command::SearchIndex,
                Command::Back,
            ];
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

    fn tab_count(&self, sh: &Shared) -> Option<usize> {
        (!sh.history.is_empty()).then(|| sh.history.len())
    }
}

/// The migrations of the loaded updates, as the title names them (`migration 1`,
/// `migrations 0–1`); the current migration while nothing is loaded.
pub fn migrations_shown(sh: &Shared) -> Option<String> {
    let range = match (sh.history.first(), sh.history.last()) {
        (Some(f), Some(l)) => (f.migration_id(), l.migration_id()),
        _ => sh.feed.migration.map(|m| (m, m))?,
    };
    Some(match range {
        (a, b) if a == b => format!("migration {a}"),
        (a, b) => format!("migrations {a}–{b}"),
    })
}
