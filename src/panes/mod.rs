//! The panes of the explorer. Each pane owns its UI state, its key handling and its drawing;
//! data shared between panes (the loaded history, cached update bodies, the clock) lives in
//! [`Shared`]. Panes never do I/O: they push [`Effect`]s and [`AppEvent`]s into an [`Out`].

use chrono::{DateTime, Local, SecondsFormat, Utc};
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::api::ApiCall;
use crate::api::scan::EventHistoryItem;
use crate::config::keymap::KeyContext;
use crate::feed::health::{Health, HealthIntent};
pub use crate::feed::loader::StartFrom;
use crate::feed::loader::{Feed, LoaderIntent};
use crate::feed::node_poll::NodePoller;
use crate::model::cache::BodyCache;
use crate::model::history::History;
use crate::msg::Command;
pub use crate::msg::PaneId;
use crate::msg::{Effect, Fetched, Request, RequestId, RequestIds};
use crate::ui::theme::Theme;
use crate::ui::whole_value::{ValueOutcome, ValueView};

pub mod export;
pub mod form;
pub mod governance;
pub mod history;
pub mod holdings;
pub mod ledger;
pub mod network;
pub mod new_file;
pub mod proxy;
pub mod status;
pub mod update;
pub mod validators;
pub mod verdict;

/// Fixed facts about the session (from the settings).
#[derive(Debug, Clone, PartialEq)]
pub struct AppContext {
    /// Profile name shown in the header.
    pub profile: String,
    /// Every configured scan URL (the first is the one the history is read from).
    pub scan_urls: Vec<String>,
    pub validator_url: Option<String>,
    pub ledger_url: Option<String>,
    /// Whether a ledger token source is configured.
    pub has_token: bool,
    pub read_only: bool,
    /// Polling interval in milliseconds.
    pub refresh_ms: u64,
    pub start: StartFrom,
    /// When the Status dashboard's lag turns amber and red.
    pub lag: crate::feed::dashboard::LagThresholds,
    /// When this validator's remaining traffic turns amber and red.
    pub traffic: crate::feed::dashboard::TrafficThresholds,
    /// How often governance is read (µs; the profile's `governance_interval`).
    pub governance_every: i64,
    /// How often every scan of the network is measured, in milliseconds
    /// (`network_health_interval`).
    pub network_interval_ms: u64,
    /// How often the head check runs, in milliseconds (`fork_check`; 0: never).
    pub fork_check_ms: u64,
    /// How new findings are announced (`notify`).
    pub notify: crate::model::findings::NotifyMode,
    /// The profile's `sv` key: "my SV" by name or party (else the scan's own, from `/v0/dso`).
    pub sv: Option<String>,
    /// Where data kept between runs lives (the scan list; the local history index will): the
    /// profile's data directory, `None` for the built-in demo.
    pub data_dir: Option<std::path::PathBuf>,
    /// The local history index, as messages name it (`None`: the profile has none).
    pub index: Option<String>,
    /// The profile's `export_dir`: where exports go by default (`None`: the current directory).
    pub export_dir: Option<std::path::PathBuf>,
    /// The profile's state file (`None`: nothing is kept, as for the built-in demo) and what it
    /// held when the explorer started, kept up to date as the state changes.
    pub state_file: Option<std::path::PathBuf>,
    pub state: crate::config::state::ProfileState,
    /// `--offline`: the explorer reads the index alone; no node is asked.
    pub offline: bool,
    /// My node: whether metrics (or a Prometheus) are configured, how often they are read
    /// (ms), and the rules' thresholds.
    pub node_metrics: bool,
    pub node_metrics_ms: u64,
    pub node_rules: crate::model::metrics::AlertRules,
}

impl Default for AppContext {
    fn default() -> Self {
        AppContext {
            profile: "default".into(),
            scan_urls: Vec::new(),
            validator_url: None,
            ledger_url: None,
            has_token: false,
            read_only: false,
            refresh_ms: 2000,
            start: StartFrom::Recent { window_secs: 600 },
            lag: crate::feed::dashboard::LagThresholds::default(),
            traffic: crate::feed::dashboard::TrafficThresholds::default(),
            governance_every: crate::feed::dashboard::GOVERNANCE_EVERY_US,
            network_interval_ms: 30_000,
            fork_check_ms: 60_000,
            notify: crate::model::findings::NotifyMode::Bell,
            sv: None,
            data_dir: None,
            index: None,
            export_dir: None,
            state_file: None,
            state: crate::config::state::ProfileState::default(),
            offline: false,
            node_metrics: false,
            node_metrics_ms: 15_000,
            node_rules: crate::model::metrics::AlertRules::default(),
        }
    }
}

/// Data shared by the panes.
#[derive(Debug)]
pub struct Shared {
    pub ctx: AppContext,
    /// The current time (microseconds since the epoch), from the last tick.
    pub now: i64,
    /// Show times in local time instead of UTC.
    pub local_time: bool,
    /// The loaded update history (compact summaries); written by the app's loader only.
    pub history: History,
    /// What the loader says about the loaded history (phase, head, migration, failures).
    pub feed: Feed,
    /// Full update bodies (`/v0/events/{id}`), bounded.
    pub bodies: BodyCache<EventHistoryItem>,
    /// Where a body of `bodies` read from the local index came from (what the index keeps of
    /// its events, the scans that confirmed them), by update id; the Verdict pane says it.
    pub kept_origins: BodyCache<crate::model::index::read::KeptOrigin>,
    /// The update open in the Update pane (the Verdict pane shows its verdict).
    pub current_update: Option<String>,
    /// The update the user was looking at when another pane got the focus: the one open in
    /// the Update (or Verdict) pane when the focus comes from there, else the one selected in
    /// History, else the open one (Holdings queries its parties when shown).
    pub selected_update: Option<String>,
    /// Whether the loaded history reaches the network's head (set by the loader); when
    /// it does not (browsing the past with `:time` or `--from`), its newest update says nothing
    /// about the network's lag.
    pub history_at_head: bool,
    /// The newest ledger end answered (`Some(None)`: an empty ledger), whichever pane asked.
    pub ledger_end: Option<Option<i64>>,
    ledger_end_seq: u64,
    /// Request ids, in sending order.
    pub ids: RequestIds,
    /// The health of the profile's nodes and of every scan of the network; written by the
    /// app only (`app::health`), read by the header, Status and Network.
    pub health: Health,
    /// The local history index: its reach and whether it can be used; written by the app only
    /// (`app::index`), read by the header and the panes that read the index.
    pub index: crate::feed::index::IndexFeed,
    /// History's timeline over the local index, the scan's reads of its gaps and the loaded rows,
    /// while History shows it; written by the app only (`app::timeline`), read by History.
    pub timeline: Option<crate::feed::timeline::Timeline>,
}

impl Shared {
    /// Fresh shared state.
    pub fn new(ctx: AppContext, now: i64) -> Self {
        Shared {
            now,
            local_time: false,
            history: History::default(),
            feed: Feed::default(),
            bodies: BodyCache::new(256),
            kept_origins: BodyCache::new(256),
            current_update: None,
            selected_update: None,
            history_at_head: false,
            ledger_end: None,
            ledger_end_seq: 0,
            ids: RequestIds::default(),
            health: Health::new(
                NodePoller::new(
                    &ctx.scan_urls,
                    ctx.ledger_url.as_deref().map(|u| (u, ctx.has_token)),
                    ctx.validator_url.as_deref(),
                    ctx.refresh_ms,
                ),
                !ctx.scan_urls.is_empty(),
                i64::try_from(ctx.network_interval_ms)
                    .unwrap_or(i64::MAX / 1000)
                    .saturating_mul(1000),
                ctx.sv.clone(),
            )
            .with_fork_check(
                i64::try_from(ctx.fork_check_ms)
                    .unwrap_or(i64::MAX / 1000)
                    .saturating_mul(1000),
            )
            .with_node(crate::feed::node_metrics::NodeWatch::new(
                ctx.node_rules.clone(),
                i64::try_from(ctx.node_metrics_ms)
                    .unwrap_or(i64::MAX / 1000)
                    .saturating_mul(1000),
                ctx.node_metrics,
            )),
            index: crate::feed::index::IndexFeed::new(ctx.index.clone()),
            timeline: None,
            ctx,
        }
    }

    /// Records a ledger end answered to request `id`, unless a later request already answered
    /// (a slow poll is stale). Every ledger end request goes to the session's one ledger URL,
    /// so a new end lower than the last one recorded means the ledger under the explorer was
    /// replaced: returned, for the app to say so and reload what it read of the old one (the
    /// check is [`crate::model::reread::ledger_end_reread`], beside the history's).
    pub fn note_ledger_end(
        &mut self,
        id: RequestId,
        end: Option<i64>,
    ) -> Option<crate::model::reread::EndWentBack> {
        if id.seq <= self.ledger_end_seq {
            return None;
        }
        self.ledger_end_seq = id.seq;
        let before = self.ledger_end.flatten();
        self.ledger_end = Some(end);
        crate::model::reread::ledger_end_reread(before, end).err()
    }

    /// A new id for a request of `owner` (a pane, or a state machine of the app's).
    pub fn next_request_id(&mut self, owner: impl Into<crate::msg::Owner>) -> RequestId {
        self.ids.next(owner)
    }

    /// A time for display (`2026-11-22 10:41:07.123456` in UTC or local time).
    pub fn format_time(&self, micros: i64) -> String {
        let Some(t) = DateTime::<Utc>::from_timestamp_micros(micros) else {
            return "-".into();
        };
        if self.local_time {
            display_time(&t.with_timezone(&Local).naive_local())
        } else {
            display_time(&t.naive_utc())
        }
    }

    /// The suffix naming the time zone in use (`UTC` or `local`).
    pub fn zone_label(&self) -> &'static str {
        if self.local_time { "local" } else { "UTC" }
    }

    /// An RFC 3339 time (for copying and files).
    pub fn rfc3339(micros: i64) -> String {
        DateTime::<Utc>::from_timestamp_micros(micros)
            .map(|t| t.to_rfc3339_opts(SecondsFormat::Micros, true))
            .unwrap_or_default()
    }
}

/// `2026-11-22 10:41:07.123` (chrono's `%Y-%m-%d %H:%M:%S%.3f`), written digit by digit: a
/// History frame formats a time per row, and parsing the format string each time was a tenth
/// of the frame.
fn display_time(t: &chrono::NaiveDateTime) -> String {
    use chrono::{Datelike, Timelike};
    let Ok(year @ 0..=9999) = u32::try_from(t.year()) else {
        return t.format("%Y-%m-%d %H:%M:%S%.3f").to_string();
    };
    let mut out = String::with_capacity(23);
    for (sep, n, width) in [
        (None, year, 4),
        (Some('-'), t.month(), 2),
        (Some('-'), t.day(), 2),
        (Some(' '), t.hour(), 2),
        (Some(':'), t.minute(), 2),
        (Some(':'), t.second(), 2),
        (Some('.'), t.nanosecond() / 1_000_000, 3),
    ] {
        out.extend(sep);
        for i in (0..width).rev() {
            out.push(char::from(b'0' + (n / 10u32.pow(i) % 10) as u8));
        }
    }
    out
}

/// What drawing reads besides the pane itself: the shared state, the theme, and whether the
/// pane (or the part being drawn) has the focus.
#[derive(Clone, Copy)]
pub struct RenderCtx<'a> {
    pub sh: &'a Shared,
    pub theme: &'a Theme,
    pub focused: bool,
}

impl<'a> RenderCtx<'a> {
    /// A context for drawing with `sh` and `theme`, focused or not.
    pub fn new(sh: &'a Shared, theme: &'a Theme, focused: bool) -> Self {
        RenderCtx { sh, theme, focused }
    }

    /// The same context with the focus set to `focused` (for a part drawn without the focus).
    #[must_use]
    pub fn focus(self, focused: bool) -> Self {
        RenderCtx { focused, ..self }
    }
}

/// How loud a status-line message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Warn,
    Error,
}

/// Something a pane wants the app to do beyond its own state.
#[derive(Debug, Clone, PartialEq)]
pub enum AppEvent {
    /// An abbreviated update id no loaded update matches (`:event 9237fcb34d82…`, `:bft …`,
    /// `:open cs1:update/…`): looked up in the local index (History's whole-index search), and
    /// the view `then` opened on the one match.
    FindUpdateInIndex {
        text: String,
        then: crate::model::locator::Locator,
    },
    /// Open an update in the Update pane (fetching it if needed), optionally selecting an event,
    /// and focus that pane.
    OpenUpdate {
        update_id: String,
        event_id: Option<String>,
    },
    /// Focus a pane.
    Focus(PaneId),
    /// A status-line message.
    Message(Level, String),
    /// An error: shown in the status line and kept in the error log (`!`), filed under the
    /// pane it came from (the one being called when it was raised).
    Error(PaneId, String),
    /// A request to the history loader (the app owns it).
    Loader(LoaderIntent),
    /// A request to History's timeline (the app owns it).
    Timeline(crate::feed::timeline::TimelineIntent),
    /// A request to the health (the app owns it).
    Health(HealthIntent),
    /// Show the Network pane's scans, on the scan at this index of the measurement if given.
    ShowScan(Option<usize>),
    /// Check an update on every scan (the Network pane's consensus view).
    CheckUpdate(String),
    /// Ask a pane's scan query of every scan and show the grouped answers (Network).
    CheckOnEveryScan { call: ApiCall, label: String },
    /// Look up the update of a prepared transaction's hash, scan after scan (opens it).
    LookupHash(String),
    /// The history at a record time (µs).
    GoToTime(i64),
    /// Load a span of history (seconds) in the background.
    LoadSpan(i64),
    /// Filter the history (empty clears).
    FilterHistory(String),
    /// Follow the live tail in History.
    FollowTail,
    /// The history sweep of the Network pane.
    Sweep(SweepIntent),
    /// A keymap command, as if its key was pressed (the error log, help, quit).
    Run(Command),
    /// Switch the colour theme (loaded by the runtime).
    LoadTheme(String),
    /// Go to the view a locator names (`:open`, `cantonscope open`).
    Open(crate::model::locator::Locator),
}

/// What can be asked of the history sweep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SweepIntent {
    /// Start it from there.
    Start(network::SweepFrom),
    /// Stop it.
    Cancel,
    /// Stop it when it runs, else ask where to start (`S`).
    Toggle,
    /// Save its result (`None`: ask for the path).
    Save(Option<String>),
}

/// What a pane produced while handling something. `owner` is the pane being called (the app
/// sets it): the requests it sends carry it, so their replies come back to it.
#[derive(Debug, Default)]
pub struct Out {
    pub effects: Vec<Effect>,
    pub events: Vec<AppEvent>,
    pub owner: PaneId,
}

impl Out {
    /// An empty `Out` for calls into pane `owner`.
    pub fn for_pane(owner: PaneId) -> Self {
        Out {
            owner,
            ..Out::default()
        }
    }

    /// A new request id owned by the pane being called (for fetches and file operations).
    pub fn next_id(&self, sh: &mut Shared) -> RequestId {
        sh.next_request_id(self.owner)
    }

    /// Queues a fetch and returns its id.
    pub fn fetch(&mut self, sh: &mut Shared, request: Request) -> RequestId {
        let id = self.next_id(sh);
        self.effects.push(Effect::Fetch { id, request });
        id
    }

    /// An informational status-line message.
    pub fn info(&mut self, text: impl Into<String>) {
        self.events
            .push(AppEvent::Message(Level::Info, text.into()));
    }

    /// A warning in the status line.
    pub fn warn(&mut self, text: impl Into<String>) {
        self.events
            .push(AppEvent::Message(Level::Warn, text.into()));
    }

    /// An error (status line + error log, filed under the pane being called).
    pub fn error(&mut self, text: impl Into<String>) {
        self.events.push(AppEvent::Error(self.owner, text.into()));
    }

    /// Copies text through OSC 52 and says so.
    pub fn copy(&mut self, what: &str, text: String) {
        self.effects.push(Effect::Copy(text));
        self.info(format!("copied {what}"));
    }

    /// Gives `cmd` to the full-value view when one is open (Esc closes it, `y` copies what it
    /// shows); returns whether one was open, and so took the command.
    pub fn whole_value(&mut self, view: &mut Option<ValueView>, cmd: Command) -> bool {
        let Some(v) = view else {
            return false;
        };
        match v.command(cmd) {
            ValueOutcome::Close => *view = None,
            ValueOutcome::Copy { what, text } => self.copy(&what, text),
            ValueOutcome::Used => {}
        }
        true
    }
}

/// The interface every pane implements. All methods are pure state changes; I/O is requested
/// through `out`.
pub trait Pane {
    /// Which pane this is.
    fn id(&self) -> PaneId;

    /// The key context for keymap lookups (list, tree, or text input while an input is open):
    /// by default a text input while raw keys go to the pane, else a list.
    fn key_context(&self) -> KeyContext {
        crate::ui::form::raw_or_list(self.wants_raw_keys())
    }

    /// Whether raw keys go to [`Pane::on_key`] (a text input is open) instead of the keymap.
    fn wants_raw_keys(&self) -> bool {
        false
    }

    /// A raw key while [`Pane::wants_raw_keys`] is true.
    fn on_key(&mut self, _key: &KeyEvent, _sh: &mut Shared, _out: &mut Out) {}

    /// Pasted text (only delivered while [`Pane::wants_raw_keys`] is true).
    fn on_paste(&mut self, _text: &str, _sh: &mut Shared, _out: &mut Out) {}

    /// A command from the keymap. Returns whether the pane used it.
    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool;

    /// `o` then a column's letter: sorts the pane's table by that column (the other way on a
    /// repeat). Returns whether the pane has a column of that letter.
    fn sort_by_letter(&mut self, _letter: char) -> bool {
        false
    }

    /// The sortable columns of the pane's table with their letters (`[t]ime [k]ind`), for the
    /// hint after `o`; `None` without a table to sort.
    fn sort_letters(&self) -> Option<String> {
        None
    }

    /// Called when the pane becomes the focused one (for loading on first show).
    fn on_focus(&mut self, _sh: &mut Shared, _out: &mut Out) {}

    /// Called on every tick (after `sh.now` moved). Returns whether what it draws changed.
    fn on_tick(&mut self, _sh: &mut Shared, _out: &mut Out) -> bool {
        false
    }

    /// The reply to a fetch this pane sent (the app delivers replies to their owner only).
    /// Replies to requests that are no longer the pane's current one are dropped here.
    fn on_fetched(&mut self, _reply: &Fetched, _sh: &mut Shared, _out: &mut Out) {}

    /// A file read (`Effect::ReadFile`) of this pane finished.
    fn on_file_read(
        &mut self,
        _id: RequestId,
        _path: &str,
        _result: &Result<Vec<u8>, String>,
        _sh: &mut Shared,
        _out: &mut Out,
    ) {
    }

    /// A file write (`Effect::WriteFile` / `AppendFile`) of this pane finished. Returns whether
    /// the pane reports the outcome itself (otherwise the App says "saved N bytes to path" or
    /// the error).
    fn on_written(
        &mut self,
        _id: RequestId,
        _result: &Result<usize, String>,
        _out: &mut Out,
    ) -> bool {
        false
    }

    /// The pane's drawing area changed (for page sizes).
    fn set_area(&mut self, _area: Rect) {}

    /// Draws the pane. Only reads.
    fn render(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>);

    /// Commands worth a footer hint while this pane has focus, most useful first.
    fn hints(&self) -> Vec<Command>;

    /// The update this pane shows or has selected, if any: `b` checks it on every scan.
    fn current_update_id(&self, _sh: &Shared) -> Option<String> {
        None
    }

    /// The scan query this pane shows (its call and a label), if any: `b` asks it of every
    /// scan and shows the grouped answers.
    fn scan_request(&self, _sh: &Shared) -> Option<(ApiCall, String)> {
        None
    }

    /// The number of rows of the pane's main table or list (of the section shown), once it has
    /// loaded something; `None` before (and for a pane or section without a table). The tab
    /// row shows it after the title, the same way for every pane.
    fn tab_count(&self, _sh: &Shared) -> Option<usize> {
        None
    }

    /// The fields of what the pane has selected, each whole (`v` lists them, shows one whole,
    /// `y` copies it: [`crate::ui::fields`]), with what they belong to (`update 1220ab…`);
    /// `None` when nothing is selected. Panes with a value cursor of their own (the trees'
    /// details) answer `v` themselves first.
    fn fields(&self, _sh: &Shared) -> Option<(String, Vec<crate::ui::fields::Field>)> {
        None
    }
}

#[cfg(test)]
mod display_time_tests {
    use chrono::{DateTime, Utc};

    #[test]
    fn display_time_writes_what_the_chrono_format_writes() {
        // Across years, month ends, midnight and sub-millisecond parts (cut, never rounded).
        for micros in [
            0,
            999,
            1_000,
            1_764_000_000_123_456,
            1_764_028_799_999_999,
            951_782_400_000_001,
            253_402_300_799_999_999,
            -62_167_219_200_000_000,
            -1,
        ] {
            let t = DateTime::<Utc>::from_timestamp_micros(micros).expect("a time");
            assert_eq!(
                super::display_time(&t.naive_utc()),
                t.format("%Y-%m-%d %H:%M:%S%.3f").to_string(),
                "{micros}"
            );
        }
    }
}
