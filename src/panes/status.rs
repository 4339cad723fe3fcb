//! The Status pane: the dashboard kept open over SSH. It owns the polling of every configured
//! node (each scan's `/status`, the ledger end, the validator proxy's reachability) with one
//! request in flight per node, exponential back-off for failing nodes (at most 30 s between
//! attempts, reset on success), per-node latency and error history, and the update-rate
//! statistics of the loaded history (kept incrementally). It draws one card per node in a grid.
//!
//! ```text
//! ┌ scan 0 · http://127.0.0.1:5012 ──────────┐┌ history · scan 0 ────────────────────────┐
//! │OK  success · active                      ││newest 2026-01-01 10:00:00.123 UTC  lag 2s│
//! │id amulet::scan-app · up 3d 13h 26m · …   ││migration 3 · 1,234 updates loaded        │
//! │latency 12 ms ▁▂▃▅▂▁▁▂▃                   ││updates/min 12 · avg 10.4 over 30 min     │
//! │last ok 2s ago · every 2s                 ││▁▂▃▄▅▆▇█▁▂▃▄▅▆▇█▁▂▃▄▅▆▇█▁▂▃▄▅            │
//! │no errors                                 │└──────────────────────────────────────────┘
//! └──────────────────────────────────────────┘
//! ```

use std::collections::{BTreeMap, VecDeque};

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Sparkline, SparklineBar, Widget};

use crate::api::scan::NodeStatus;
use crate::config::keymap::KeyContext;
use crate::model::history::History;
use crate::msg::Command;
use crate::msg::{Effect, Fetched, Request, RequestId, Response};
use crate::ui::format::{group_thousands, human_duration, human_uptime};
use crate::ui::layout::{fit_line, wrap_text};
use crate::ui::safe::{safe_line, sanitize};
use crate::ui::theme::Theme;

use super::{Out, Pane, PaneId, Shared};

/// Longest wait between attempts for a failing node (ms), unless the refresh interval is longer.
pub const MAX_BACKOFF_MS: u64 = 30_000;
/// Shortest polling interval honoured (ms).
const MIN_REFRESH_MS: u64 = 250;
/// Latency samples kept per node.
pub const LATENCY_SAMPLES: usize = 60;
/// Ledger rate samples kept.
const RATE_SAMPLES: usize = 60;
/// The ledger rate is averaged over this window (µs).
const RATE_WINDOW_US: i64 = 60_000_000;
/// Minutes of history in the updates-per-minute sparkline.
pub const RATE_WINDOW_MINUTES: i64 = 30;
/// A request without an answer after this long is given up (µs).
const STALE_REQUEST_US: i64 = 90_000_000;
/// The text shown when a ledger is configured without a token.
pub const NO_TOKEN_TEXT: &str =
    "no ledger token configured: set CANTONSCOPE_TOKEN, --token-file or token_command";
/// From this width on, one more column of cards.
const CARD_MIN_WIDTH: u16 = 60;

const MINUTE_US: i64 = 60_000_000;

/// Health of a node, as the header shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeHealth {
    /// The node answered and reports itself healthy.
    Ok,
    /// The node answered but is not initialized, reports a failure, or is inactive.
    Degraded,
    /// The last request failed.
    Down,
    /// No answer yet (or nothing configured).
    Unknown,
}

impl NodeHealth {
    /// A short upper-case label.
    pub fn label(self) -> &'static str {
        match self {
            NodeHealth::Ok => "OK",
            NodeHealth::Degraded => "DEGRADED",
            NodeHealth::Down => "DOWN",
            NodeHealth::Unknown => "…",
        }
    }

    /// The theme style for this health.
    pub fn style(self, theme: &Theme) -> Style {
        match self {
            NodeHealth::Ok => theme.status_ok,
            NodeHealth::Degraded => theme.status_warn,
            NodeHealth::Down => theme.status_err,
            NodeHealth::Unknown => theme.muted,
        }
    }
}

/// What a node card polls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// Scan number `n` of `ctx.scan_urls` (`GET /status`).
    Scan(usize),
    /// The participant ledger (`GET /v2/state/ledger-end`).
    Ledger,
    /// The validator scan-proxy (reachability probe).
    Validator,
}

impl NodeKind {
    fn request(self) -> Request {
        match self {
            NodeKind::Scan(scan) => Request::Status { scan },
            NodeKind::Ledger => Request::LedgerEnd,
            NodeKind::Validator => Request::ValidatorProbe,
        }
    }

    fn name(self) -> String {
        match self {
            NodeKind::Scan(n) => format!("scan {}", n + 1),
            NodeKind::Ledger => "ledger".into(),
            NodeKind::Validator => "validator proxy".into(),
        }
    }
}

/// Polling state and recent results of one node.
#[derive(Debug, Clone)]
pub struct NodeState {
    pub kind: NodeKind,
    pub url: String,
    /// Whether the node is polled at all (a ledger without a token is not).
    pub polled: bool,
    in_flight: Option<(RequestId, i64)>,
    next_due: i64,
    /// Consecutive failed requests.
    pub failures: u32,
    /// Whether the last request succeeded (None before the first answer).
    pub last_ok: Option<bool>,
    /// When the last successful answer arrived (µs).
    pub last_ok_at: Option<i64>,
    /// The last error (when, Display text); kept after recovery.
    pub last_error: Option<(i64, String)>,
    /// Latency of recent requests in ms (None: the request failed).
    latencies: VecDeque<Option<u64>>,
    /// The last `/status` answer (scans).
    pub status: Option<NodeStatus>,
    /// The last ledger end (ledger; inner None: empty ledger).
    pub ledger_end: Option<Option<i64>>,
    /// Ledger offsets per second over the last minute (or the time sampled so far).
    pub rate: Option<f64>,
    rates: VecDeque<u64>,
    /// (time µs, ledger end) samples of the last [`RATE_WINDOW_US`] (plus one older as base).
    offset_samples: VecDeque<(i64, i64)>,
}

impl NodeState {
    fn new(kind: NodeKind, url: String, polled: bool) -> Self {
        NodeState {
            kind,
            url,
            polled,
            in_flight: None,
            next_due: i64::MIN,
            failures: 0,
            last_ok: None,
            last_ok_at: None,
            last_error: None,
            latencies: VecDeque::with_capacity(LATENCY_SAMPLES),
            status: None,
            ledger_end: None,
            rate: None,
            rates: VecDeque::new(),
            offset_samples: VecDeque::new(),
        }
    }

    /// Records a ledger end seen at `now` and updates the rate over the last minute (a rate
    /// between two polls a few seconds apart would mostly read 0 on a ledger that moves a few
    /// offsets per minute).
    fn add_offset_sample(&mut self, now: i64, off: i64) {
        if self
            .offset_samples
            .back()
            .is_some_and(|&(t, o)| now <= t || off < o)
        {
            // Clock went back or the ledger was reset: start over.
            if self.offset_samples.back().is_some_and(|&(_, o)| off < o) {
                self.offset_samples.clear();
            } else {
                return;
            }
        }
        self.offset_samples.push_back((now, off));
        // Keep one sample at or before the window start as the base.
        while self.offset_samples.len() > 2 && self.offset_samples[1].0 <= now - RATE_WINDOW_US {
            self.offset_samples.pop_front();
        }
        if let (Some(&(t0, o0)), true) =
            (self.offset_samples.front(), self.offset_samples.len() > 1)
        {
            let rate = (off - o0) as f64 / ((now - t0) as f64 / 1e6);
            self.rate = Some(rate);
            if self.rates.len() == RATE_SAMPLES {
                self.rates.pop_front();
            }
            self.rates.push_back((rate * 1000.0).round() as u64);
        }
    }

    /// The node's health from its last answer.
    pub fn health(&self) -> NodeHealth {
        match self.last_ok {
            None => NodeHealth::Unknown,
            Some(false) => NodeHealth::Down,
            Some(true) => match &self.status {
                Some(NodeStatus::Success(s)) if s.active => NodeHealth::Ok,
                Some(_) => NodeHealth::Degraded,
                None => NodeHealth::Ok,
            },
        }
    }

    /// The request in flight, if any.
    pub fn in_flight(&self) -> Option<RequestId> {
        self.in_flight.map(|(id, _)| id)
    }

    /// When the next request is due (µs since the epoch).
    pub fn next_due(&self) -> i64 {
        self.next_due
    }

    /// Recent latencies in ms, oldest first (None: that request failed).
    pub fn latencies(&self) -> impl ExactSizeIterator<Item = Option<u64>> + '_ {
        self.latencies.iter().copied()
    }

    /// The latency of the last successful request.
    pub fn last_latency(&self) -> Option<u64> {
        self.latencies.back().copied().flatten()
    }

    fn push_latency(&mut self, v: Option<u64>) {
        if self.latencies.len() == LATENCY_SAMPLES {
            self.latencies.pop_front();
        }
        self.latencies.push_back(v);
    }
}

/// Wait before the next attempt after `failures` consecutive failures: the refresh interval
/// when healthy, doubling per failure, capped at [`MAX_BACKOFF_MS`] (or the refresh interval
/// when that is longer).
pub fn retry_delay_ms(refresh_ms: u64, failures: u32) -> u64 {
    let refresh = refresh_ms.max(MIN_REFRESH_MS);
    if failures == 0 {
        return refresh;
    }
    let cap = MAX_BACKOFF_MS.max(refresh);
    refresh.saturating_mul(1u64 << failures.min(20)).min(cap)
}

/// Identity of a history item, to detect prepends and appends.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ItemKey {
    migration_id: i64,
    record_time: i64,
    update_id: Box<str>,
}

impl ItemKey {
    fn of(h: &History, index: usize) -> Option<ItemKey> {
        h.get(index).map(|s| ItemKey {
            migration_id: s.migration_id,
            record_time: s.record_time,
            update_id: s.update_id.clone(),
        })
    }

    fn is_at(&self, h: &History, index: usize) -> bool {
        h.get(index).is_some_and(|s| {
            s.record_time == self.record_time
                && s.migration_id == self.migration_id
                && *s.update_id == *self.update_id
        })
    }
}

/// Update-rate statistics of the loaded history, kept incrementally: each sync looks only at
/// the items added since the last one (and, for prepended pages, only those inside the window).
#[derive(Debug, Clone, Default)]
pub struct HistoryStats {
    counted: usize,
    first: Option<ItemKey>,
    last: Option<ItemKey>,
    /// Minute (record time / 60 s) → number of updates, only inside the window.
    buckets: BTreeMap<i64, u64>,
    /// Record time of the newest loaded update.
    pub newest: Option<i64>,
    /// Record time of the oldest loaded update.
    pub oldest: Option<i64>,
    /// Migration id of the newest loaded update.
    pub migration_id: Option<i64>,
    /// Number of loaded updates.
    pub loaded: usize,
}

impl HistoryStats {
    /// Brings the statistics up to date with `h`. Returns whether anything changed.
    pub fn sync(&mut self, h: &History) -> bool {
        let len = h.len();
        if len == self.counted
            && self.first.as_ref().is_none_or(|k| k.is_at(h, 0))
            && self
                .last
                .as_ref()
                .is_none_or(|k| len > 0 && k.is_at(h, len - 1))
        {
            return false;
        }
        // Where the previously counted run sits now.
        let placed = match (&self.first, &self.last) {
            (Some(first), Some(last)) if len >= self.counted => (0..=len - self.counted)
                .find(|&p| first.is_at(h, p))
                .filter(|&p| last.is_at(h, p + self.counted - 1)),
            (None, None) => Some(0),
            _ => None,
        };
        match placed {
            Some(p) => {
                self.add_appended(h, p + self.counted);
                self.add_prepended(h, p);
            }
            None => {
                // The history was replaced (or lost items at the front): count the window
                // again, walking back from the newest end only.
                self.buckets.clear();
                self.newest = h.last().map(|s| s.record_time);
                if let Some(start) = self.window_start_minute() {
                    for s in h.iter().rev() {
                        let m = s.record_time.div_euclid(MINUTE_US);
                        if m < start {
                            break;
                        }
                        *self.buckets.entry(m).or_insert(0) += 1;
                    }
                }
            }
        }
        self.counted = len;
        self.loaded = len;
        self.first = ItemKey::of(h, 0);
        self.last = len.checked_sub(1).and_then(|i| ItemKey::of(h, i));
        self.oldest = h.first().map(|s| s.record_time);
        self.migration_id = h.last().map(|s| s.migration_id);
        true
    }

    fn window_start_minute(&self) -> Option<i64> {
        self.newest
            .map(|n| n.div_euclid(MINUTE_US) - (RATE_WINDOW_MINUTES - 1))
    }

    /// Counts items `from..len` (newer than everything counted).
    fn add_appended(&mut self, h: &History, from: usize) {
        let len = h.len();
        if from >= len {
            return;
        }
        let newest_new = (from..len)
            .filter_map(|i| h.get(i).map(|s| s.record_time))
            .max();
        if let Some(n) = newest_new {
            self.newest = Some(self.newest.map_or(n, |o| o.max(n)));
        }
        let Some(start) = self.window_start_minute() else {
            return;
        };
        // Only the tail inside the window matters: walk back from the end.
        for i in (from..len).rev() {
            let Some(s) = h.get(i) else { break };
            let m = s.record_time.div_euclid(MINUTE_US);
            if m < start {
                break;
            }
            *self.buckets.entry(m).or_insert(0) += 1;
        }
        self.buckets = self.buckets.split_off(&start);
    }

    /// Counts items `0..to` (older than everything counted), newest first, stopping at the
    /// window's start.
    fn add_prepended(&mut self, h: &History, to: usize) {
        if self.newest.is_none() {
            self.newest = (0..to)
                .filter_map(|i| h.get(i).map(|s| s.record_time))
                .max();
        }
        let Some(start) = self.window_start_minute() else {
            return;
        };
        for i in (0..to).rev() {
            let Some(s) = h.get(i) else { break };
            let m = s.record_time.div_euclid(MINUTE_US);
            if m < start {
                break;
            }
            *self.buckets.entry(m).or_insert(0) += 1;
        }
    }

    /// Updates per minute over the window, oldest minute first; None for minutes before the
    /// oldest loaded update (not loaded, so unknown).
    pub fn per_minute(&self) -> Vec<Option<u64>> {
        let (Some(start), Some(newest)) = (self.window_start_minute(), self.newest) else {
            return Vec::new();
        };
        let end = newest.div_euclid(MINUTE_US);
        let oldest_min = self.oldest.map_or(start, |o| o.div_euclid(MINUTE_US));
        (start..=end)
            .map(|m| {
                if m < oldest_min {
                    None
                } else {
                    Some(self.buckets.get(&m).copied().unwrap_or(0))
                }
            })
            .collect()
    }

    /// Average updates per minute over the loaded part of the window.
    pub fn average_per_minute(&self) -> Option<f64> {
        let known: Vec<u64> = self.per_minute().into_iter().flatten().collect();
        if known.is_empty() {
            return None;
        }
        Some(known.iter().sum::<u64>() as f64 / known.len() as f64)
    }

    /// Updates in the last complete minute before the newest update's minute.
    pub fn last_full_minute(&self) -> Option<u64> {
        let pm = self.per_minute();
        pm.len().checked_sub(2).and_then(|i| pm[i])
    }
}

/// Which card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Card {
    Node(usize),
    History,
}

/// The Status pane.
#[derive(Debug)]
pub struct StatusPane {
    nodes: Vec<NodeState>,
    history: HistoryStats,
    refresh_ms: u64,
    /// Cards in display order.
    cards: Vec<Card>,
    selected: usize,
    first_row: usize,
    area: Rect,
    last_second: i64,
}

impl StatusPane {
    /// One card per configured node (each scan, the ledger, the validator proxy) and one for the
    /// loaded history.
    pub fn new(sh: &Shared) -> Self {
        let ctx = &sh.ctx;
        let mut nodes: Vec<NodeState> = ctx
            .scan_urls
            .iter()
            .enumerate()
            .map(|(i, url)| NodeState::new(NodeKind::Scan(i), url.clone(), true))
            .collect();
        if let Some(url) = &ctx.ledger_url {
            nodes.push(NodeState::new(NodeKind::Ledger, url.clone(), ctx.has_token));
        }
        if let Some(url) = &ctx.validator_url {
            nodes.push(NodeState::new(NodeKind::Validator, url.clone(), true));
        }
        let scans = ctx.scan_urls.len();
        let mut cards: Vec<Card> = (0..scans).map(Card::Node).collect();
        cards.push(Card::History);
        cards.extend((scans..nodes.len()).map(Card::Node));
        StatusPane {
            nodes,
            history: HistoryStats::default(),
            refresh_ms: ctx.refresh_ms.max(MIN_REFRESH_MS),
            cards,
            selected: 0,
            first_row: 0,
            area: Rect::default(),
            last_second: i64::MIN,
        }
    }

    /// Issues the first round of requests.
    pub fn start(&mut self, sh: &mut Shared, out: &mut Out) {
        for i in 0..self.nodes.len() {
            if self.nodes[i].polled && self.nodes[i].in_flight.is_none() {
                self.poll(i, sh, out);
            }
        }
        self.history.sync(&sh.history);
    }

    /// Health of scan 0 (the one the history is read from).
    pub fn health(&self) -> NodeHealth {
        self.nodes
            .iter()
            .find(|n| n.kind == NodeKind::Scan(0))
            .map_or(NodeHealth::Unknown, NodeState::health)
    }

    /// Migration id of the newest loaded update.
    pub fn migration_id(&self) -> Option<i64> {
        self.history.migration_id
    }

    /// Record time (µs) of the newest loaded update.
    pub fn newest_record_time(&self) -> Option<i64> {
        self.history.newest
    }

    /// Every node, in card order of kind (scans, ledger, validator).
    pub fn nodes(&self) -> &[NodeState] {
        &self.nodes
    }

    /// The node of a kind.
    pub fn node(&self, kind: NodeKind) -> Option<&NodeState> {
        self.nodes.iter().find(|n| n.kind == kind)
    }

    /// The history statistics.
    pub fn history_stats(&self) -> &HistoryStats {
        &self.history
    }

    fn poll(&mut self, i: usize, sh: &mut Shared, out: &mut Out) {
        let request = self.nodes[i].kind.request();
        let id = out.fetch(sh, request);
        self.nodes[i].in_flight = Some((id, sh.now));
    }

    fn on_result(
        &mut self,
        i: usize,
        result: Result<&Response, String>,
        elapsed_ms: u32,
        sh: &Shared,
        out: &mut Out,
    ) {
        let refresh = self.refresh_ms;
        let now = sh.now;
        let elapsed = u64::from(elapsed_ms);
        let node = &mut self.nodes[i];
        node.in_flight = None;
        let was = node.last_ok;
        match result {
            Ok(resp) => {
                node.failures = 0;
                node.last_ok = Some(true);
                node.last_ok_at = Some(now);
                node.push_latency(Some(elapsed));
                match resp {
                    Response::Status(s) => node.status = Some((**s).clone()),
                    Response::LedgerEnd(end) => {
                        node.ledger_end = Some(*end);
                        if let Some(off) = *end {
                            node.add_offset_sample(now, off);
                        }
                    }
                    _ => {}
                }
                if was == Some(false) {
                    out.info(format!("{} is reachable again", node.kind.name()));
                }
            }
            Err(text) => {
                node.failures = node.failures.saturating_add(1);
                node.last_ok = Some(false);
                node.push_latency(None);
                if was != Some(false) {
                    out.error(format!("{} is down: {text}", node.kind.name()));
                }
                node.last_error = Some((now, text));
            }
        }
        node.next_due = now.saturating_add(
            i64::try_from(retry_delay_ms(refresh, node.failures))
                .unwrap_or(i64::MAX / 1000)
                .saturating_mul(1000),
        );
    }

    fn grid(&self, area: Rect) -> Grid {
        let cols = usize::from((area.width / CARD_MIN_WIDTH).max(1))
            .min(3)
            .min(self.cards.len().max(1));
        let rows = self.cards.len().div_ceil(cols);
        let heights: Vec<u16> = (0..rows)
            .map(|r| {
                (0..cols)
                    .filter_map(|c| self.cards.get(r * cols + c))
                    .map(|&card| self.card_height(card))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        Grid { cols, heights }
    }

    fn card_height(&self, card: Card) -> u16 {
        2 + match card {
            Card::History => 4,
            Card::Node(i) => match self.nodes.get(i) {
                Some(n) if !n.polled => 3,
                Some(n) => {
                    let error_rows = u16::from(n.health() == NodeHealth::Down);
                    error_rows
                        + match n.kind {
                            NodeKind::Scan(_) | NodeKind::Ledger => 5,
                            NodeKind::Validator => 4,
                        }
                }
                None => 1,
            },
        }
    }

    /// First visible card row so that the selected card is on screen.
    fn first_visible_row(&self, grid: &Grid, height: u16) -> usize {
        let sel_row = self.selected / grid.cols.max(1);
        let mut first = self.first_row.min(sel_row);
        while first < sel_row {
            let used: u32 = grid.heights[first..=sel_row]
                .iter()
                .map(|&h| u32::from(h))
                .sum();
            if used <= u32::from(height) {
                break;
            }
            first += 1;
        }
        // Show as many rows above as fit (after a resize to a taller area, all of them).
        while first > 0 {
            let used: u32 = grid.heights[first - 1..=sel_row]
                .iter()
                .map(|&h| u32::from(h))
                .sum();
            if used > u32::from(height) {
                break;
            }
            first -= 1;
        }
        first
    }

    fn move_selection(&mut self, delta: isize) {
        let n = self.cards.len();
        if n == 0 {
            return;
        }
        self.selected = self.selected.saturating_add_signed(delta).min(n - 1);
        let grid = self.grid(self.area);
        self.first_row = self.first_visible_row(&grid, self.area.height);
    }

    fn render_card(
        &self,
        card: Card,
        area: Rect,
        buf: &mut Buffer,
        sh: &Shared,
        theme: &Theme,
        selected: bool,
    ) {
        let title = match card {
            Card::History => {
                let scan = sh.ctx.scan_urls.first().map_or("", String::as_str);
                format!(" history · {scan} ")
            }
            Card::Node(i) => match self.nodes.get(i) {
                Some(n) => format!(" {} · {} ", n.kind.name(), n.url),
                None => String::new(),
            },
        };
        let block = Block::bordered()
            .border_style(if selected {
                theme.border_focused
            } else {
                theme.border
            })
            .title(Span::styled(
                safe_line(&title, usize::from(area.width.saturating_sub(2))).into_owned(),
                theme.title,
            ));
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let mut rows = CardRows {
            area: inner,
            buf,
            y: 0,
        };
        match card {
            Card::History => self.render_history(&mut rows, sh, theme),
            Card::Node(i) => {
                if let Some(n) = self.nodes.get(i) {
                    self.render_node(n, &mut rows, sh, theme);
                }
            }
        }
    }

    fn render_history(&self, rows: &mut CardRows<'_>, sh: &Shared, theme: &Theme) {
        let st = &self.history;
        let Some(newest) = st.newest else {
            rows.line(Line::styled("no updates loaded yet", theme.muted));
            return;
        };
        if sh.history_at_head {
            self.render_lag_line(rows, newest, sh, theme);
        } else {
            rows.line(Line::from(vec![
                Span::styled("loaded up to ", theme.muted),
                Span::styled(
                    format!("{} {}", sh.format_time(newest), sh.zone_label()),
                    theme.time,
                ),
                Span::styled(
                    "  not at the head (browsing the past; f follows)",
                    theme.muted,
                ),
            ]));
        }
        self.render_history_rest(rows, theme);
    }

    fn render_lag_line(&self, rows: &mut CardRows<'_>, newest: i64, sh: &Shared, theme: &Theme) {
        let lag = sh.now - newest;
        let lag_style = if lag > 5 * MINUTE_US {
            theme.status_warn
        } else {
            theme.muted
        };
        rows.line(Line::from(vec![
            Span::styled("newest ", theme.muted),
            Span::styled(
                format!("{} {}", sh.format_time(newest), sh.zone_label()),
                theme.time,
            ),
            Span::styled("  lag ", theme.muted),
            Span::styled(
                if lag < 0 {
                    format!("-{}", human_duration(-lag))
                } else {
                    human_duration(lag)
                },
                lag_style,
            ),
        ]));
    }

    fn render_history_rest(&self, rows: &mut CardRows<'_>, theme: &Theme) {
        let st = &self.history;
        rows.line(Line::from(vec![
            Span::styled("migration ", theme.muted),
            Span::raw(st.migration_id.map_or("-".into(), |m| m.to_string())),
            Span::styled(" · ", theme.muted),
            Span::raw(group_thousands(st.loaded as i64)),
            Span::styled(" updates loaded", theme.muted),
        ]));
        let avg = st
            .average_per_minute()
            .map_or("-".into(), |a| format!("{a:.1}"));
        let known = st.per_minute().iter().flatten().count();
        rows.line(Line::from(vec![
            Span::styled("updates/min ", theme.muted),
            Span::styled(
                st.last_full_minute().map_or("-".into(), |v| v.to_string()),
                theme.accent,
            ),
            Span::styled(
                format!(" last minute · avg {avg} over {known} min"),
                theme.muted,
            ),
        ]));
        let data = st.per_minute();
        // Minutes before the oldest loaded update are unknown: blank.
        rows.sparkline_with("", &data, theme, " ", theme.muted);
    }

    fn render_node(&self, n: &NodeState, rows: &mut CardRows<'_>, sh: &Shared, theme: &Theme) {
        if !n.polled {
            rows.line(Line::styled("NOT POLLED", theme.status_warn));
            rows.wrapped(NO_TOKEN_TEXT, theme.muted);
            return;
        }
        let health = n.health();
        // Line 1: health and what the node says.
        let mut l1 = vec![Span::styled(
            health.label(),
            health.style(theme).patch(bold()),
        )];
        let detail: String = match (health, n.kind) {
            (NodeHealth::Unknown, _) => "waiting for the first answer".into(),
            (NodeHealth::Down, _) => format!(
                "{} failed attempt{} in a row",
                n.failures,
                if n.failures == 1 { "" } else { "s" }
            ),
            (_, NodeKind::Scan(_)) => match &n.status {
                Some(NodeStatus::Success(s)) => {
                    format!("success · {}", if s.active { "active" } else { "inactive" })
                }
                Some(NodeStatus::NotInitialized(ni)) => format!(
                    "not initialized · {}",
                    if ni.active { "active" } else { "inactive" }
                ),
                Some(NodeStatus::Failed(f)) => format!("failed: {}", f.error),
                Some(NodeStatus::Unknown { kind, .. }) => format!("unknown status \"{kind}\""),
                None => String::new(),
            },
            (_, NodeKind::Ledger) => match n.ledger_end {
                Some(Some(off)) => format!("ledger end {}", group_thousands(off)),
                Some(None) => "ledger end: none (empty ledger)".into(),
                None => String::new(),
            },
            (_, NodeKind::Validator) => "reachable".into(),
        };
        l1.push(Span::raw("  "));
        l1.push(Span::raw(detail));
        rows.line(Line::from(l1));

        // Line 2: identity (scans) or rate (ledger).
        match n.kind {
            NodeKind::Scan(_) => match &n.status {
                Some(NodeStatus::Success(s)) => {
                    let ports: Vec<String> =
                        s.ports.iter().map(|(k, v)| format!("{k} {v}")).collect();
                    let mut spans = vec![
                        Span::styled("id ", theme.muted),
                        Span::styled(s.id.as_str(), theme.id),
                        Span::styled(" · up ", theme.muted),
                        Span::raw(human_uptime(&s.uptime)),
                    ];
                    if !ports.is_empty() {
                        spans.push(Span::styled(" · ports ", theme.muted));
                        spans.push(Span::raw(ports.join(", ")));
                    }
                    let mut line = Line::from(spans);
                    if health == NodeHealth::Down {
                        // As of the last answer: dimmed while the node is down.
                        line = line.style(theme.muted);
                    }
                    rows.line(line);
                }
                _ => rows.line(Line::styled("id - · up -", theme.muted)),
            },
            NodeKind::Ledger => {
                let rates: Vec<Option<u64>> = n.rates.iter().map(|&r| Some(r)).collect();
                let label = match n.rate {
                    Some(r) if r >= 1.0 => format!("rate {r:.1} offsets/s "),
                    Some(r) => format!("rate {:.1} offsets/min ", r * 60.0),
                    None => "rate - ".into(),
                };
                rows.sparkline(&label, &rates, theme);
            }
            NodeKind::Validator => {}
        }

        // Latency with its sparkline.
        let latencies: Vec<Option<u64>> = n.latencies().collect();
        let label = match n.last_latency() {
            Some(ms) => format!("latency {ms} ms "),
            None => "latency - ".into(),
        };
        rows.sparkline(&label, &latencies, theme);

        // Timing: last success and the next attempt.
        let age = |t: i64| human_duration(sh.now - t);
        let mut timing = vec![Span::styled("last ok ", theme.muted)];
        match n.last_ok_at {
            Some(t) => timing.push(Span::raw(format!("{} ago", age(t)))),
            None => timing.push(Span::styled("never", theme.status_warn)),
        }
        if n.failures > 0 {
            if n.in_flight.is_some() {
                timing.push(Span::styled(" · retrying…", theme.status_warn));
            } else {
                let wait = (n.next_due - sh.now).max(0);
                timing.push(Span::styled(
                    format!(" · retry in {}", human_duration(wait + 999_999)),
                    theme.status_warn,
                ));
            }
        } else {
            timing.push(Span::styled(
                format!(" · every {}", human_duration(self.refresh_ms as i64 * 1000)),
                theme.muted,
            ));
        }
        rows.line(Line::from(timing));

        // The last error (red while down, muted once recovered).
        match &n.last_error {
            Some((t, text)) => {
                let style = if health == NodeHealth::Down {
                    theme.status_err
                } else {
                    theme.muted
                };
                if health == NodeHealth::Down {
                    // Why it is down matters most: up to two rows.
                    rows.wrapped_cut(&format!("error {} ago: {text}", age(*t)), style, 2);
                } else {
                    rows.line(Line::from(vec![
                        Span::styled(format!("recovered · last error {} ago: ", age(*t)), style),
                        Span::styled(text.as_str(), style),
                    ]));
                }
            }
            None => rows.line(Line::styled("no errors", theme.muted)),
        }
    }
}

fn bold() -> Style {
    Style::default().add_modifier(ratatui::style::Modifier::BOLD)
}

/// Column count and row heights of the card grid.
#[derive(Debug, Clone)]
struct Grid {
    cols: usize,
    heights: Vec<u16>,
}

/// Writes lines top to bottom into a card, sanitizing and cutting each.
struct CardRows<'b> {
    area: Rect,
    buf: &'b mut Buffer,
    y: u16,
}

impl CardRows<'_> {
    fn line(&mut self, line: Line<'_>) {
        if self.y >= self.area.height {
            return;
        }
        let line = fit_line(line, usize::from(self.area.width));
        self.buf
            .set_line(self.area.x, self.area.y + self.y, &line, self.area.width);
        self.y += 1;
    }

    fn wrapped(&mut self, text: &str, style: Style) {
        for l in wrap_text(text, usize::from(self.area.width)) {
            self.line(Line::styled(l, style));
        }
    }

    /// `label` then a sparkline of `data` (latest values, as many as fit) on one row.
    /// `text` wrapped on at most `max_rows` rows, the last one cut with `…`.
    fn wrapped_cut(&mut self, text: &str, style: Style, max_rows: usize) {
        let clean = sanitize(text);
        let mut parts = wrap_text(&clean, usize::from(self.area.width)).into_iter();
        for _ in 1..max_rows {
            match parts.next() {
                Some(l) => self.line(Line::styled(l, style)),
                None => return,
            }
        }
        let rest: Vec<String> = parts.collect();
        if !rest.is_empty() {
            self.line(Line::styled(rest.join(" "), style));
        }
    }

    /// `label` then a sparkline of `data` (latest values, as many as fit) on one row; absent
    /// values (failed requests) are drawn as a red `×`.
    fn sparkline(&mut self, label: &str, data: &[Option<u64>], theme: &Theme) {
        self.sparkline_with(label, data, theme, "×", theme.status_err);
    }

    fn sparkline_with(
        &mut self,
        label: &str,
        data: &[Option<u64>],
        theme: &Theme,
        absent: &str,
        absent_style: Style,
    ) {
        if self.y >= self.area.height {
            return;
        }
        let y = self.area.y + self.y;
        let label = safe_line(label, usize::from(self.area.width));
        let (x, _) = self.buf.set_stringn(
            self.area.x,
            y,
            &label,
            usize::from(self.area.width),
            theme.muted,
        );
        let used = x - self.area.x;
        let spark_w = self.area.width.saturating_sub(used);
        if spark_w > 0 && !data.is_empty() {
            let tail = &data[data.len().saturating_sub(usize::from(spark_w))..];
            let bars: Vec<SparklineBar> = tail.iter().map(|v| SparklineBar::from(*v)).collect();
            Sparkline::default()
                .data(bars)
                .style(theme.sparkline)
                .absent_value_symbol(absent)
                .absent_value_style(absent_style)
                .render(Rect::new(x, y, spark_w, 1), self.buf);
        }
        self.y += 1;
    }
}

impl Pane for StatusPane {
    fn id(&self) -> PaneId {
        PaneId::Status
    }

    fn key_context(&self) -> KeyContext {
        KeyContext::List
    }

    fn on_command(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) -> bool {
        match cmd {
            Command::Up | Command::Left => self.move_selection(-1),
            Command::Down | Command::Right => self.move_selection(1),
            Command::PageUp => self.move_selection(-3),
            Command::PageDown => self.move_selection(3),
            Command::Top => self.move_selection(isize::MIN / 2),
            Command::Bottom => self.move_selection(isize::MAX / 2),
            Command::Refresh => {
                let mut any = false;
                for i in 0..self.nodes.len() {
                    if self.nodes[i].polled && self.nodes[i].in_flight.is_none() {
                        self.poll(i, sh, out);
                        any = true;
                    }
                }
                if any {
                    out.info("polling every node now");
                }
            }
            Command::Copy => match self.cards.get(self.selected) {
                Some(Card::Node(i)) => {
                    let Some(n) = self.nodes.get(*i) else {
                        return false;
                    };
                    match &n.last_error {
                        Some((_, text)) => out.copy("last error", text.clone()),
                        None => out.copy("URL", n.url.clone()),
                    }
                }
                Some(Card::History) => match sh.history.last() {
                    Some(s) => out.copy("newest update id", s.update_id.to_string()),
                    None => return false,
                },
                None => return false,
            },
            _ => return false,
        }
        true
    }

    fn on_tick(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        let mut changed = self.history.sync(&sh.history);
        let now = sh.now;
        for i in 0..self.nodes.len() {
            let node = &self.nodes[i];
            if !node.polled {
                continue;
            }
            match node.in_flight {
                Some((id, started)) if now - started > STALE_REQUEST_US => {
                    out.effects.push(Effect::Cancel(id));
                    let text = format!(
                        "{}: no answer after {}",
                        node.kind.name(),
                        human_duration(now - started)
                    );
                    self.on_result(i, Err(text), 0, sh, out);
                    changed = true;
                }
                Some(_) => {}
                None if now >= node.next_due => {
                    self.poll(i, sh, out);
                    changed = true;
                }
                None => {}
            }
        }
        let second = now.div_euclid(1_000_000);
        if second != self.last_second {
            self.last_second = second;
            changed = true;
        }
        changed
    }

    fn on_fetched(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) {
        let (id, request, result) = (reply.id, &reply.request, &reply.result);
        let Some(i) = self
            .nodes
            .iter()
            .position(|n| n.in_flight.is_some_and(|(f, _)| f == id))
        else {
            return;
        };
        if *request != self.nodes[i].kind.request() {
            return;
        }
        let result = match result {
            Ok(resp) => Ok(resp),
            Err(e) => Err(e.to_string()),
        };
        self.on_result(i, result, reply.elapsed_ms, sh, out);
        self.history.sync(&sh.history);
    }

    fn set_area(&mut self, area: Rect) {
        self.area = area;
        let grid = self.grid(area);
        self.first_row = self.first_visible_row(&grid, area.height);
    }

    fn render(&self, area: Rect, buf: &mut Buffer, sh: &Shared, theme: &Theme, focused: bool) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        if self.cards.is_empty() {
            return;
        }
        let grid = self.grid(area);
        let first = self.first_visible_row(&grid, area.height);
        let col_w = area.width / grid.cols as u16;
        let mut y = area.y;
        let bottom = area.y + area.height;
        // Rows drawn whole (a cut row at the bottom does not count).
        let mut full_rows = 0usize;
        for (r, &h) in grid.heights.iter().enumerate().skip(first) {
            let room = bottom - y;
            // A row that does not fit is drawn cut when at least its first lines show.
            if room == 0 || (h > room && r > first && room < 3) {
                break;
            }
            let shown = h.min(room);
            for c in 0..grid.cols {
                let Some(&card) = self.cards.get(r * grid.cols + c) else {
                    break;
                };
                let x = area.x + col_w * c as u16;
                let w = if c + 1 == grid.cols {
                    area.width - col_w * c as u16
                } else {
                    col_w
                };
                let selected = focused && r * grid.cols + c == self.selected;
                self.render_card(card, Rect::new(x, y, w, shown), buf, sh, theme, selected);
            }
            y += shown;
            if shown == h {
                full_rows += 1;
            }
        }
        let above = first * grid.cols;
        let below = self
            .cards
            .len()
            .saturating_sub((first + full_rows) * grid.cols);
        if above > 0 || below > 0 {
            let mut parts = Vec::new();
            if above > 0 {
                parts.push(format!("↑ {above} more"));
            }
            if below > 0 {
                parts.push(format!("↓ {below} more"));
            }
            let text = format!(" {} (↑/↓) ", parts.join(" · "));
            let w = unicode_width::UnicodeWidthStr::width(text.as_str()) as u16;
            if w <= area.width {
                let x = area.x + area.width - w;
                buf.set_string(x, bottom - 1, &text, theme.accent);
            }
        }
    }

    fn hints(&self) -> Vec<Command> {
        vec![Command::Down, Command::Up, Command::Refresh, Command::Copy]
    }

    fn badge(&self, _sh: &Shared) -> Option<String> {
        let down = self
            .nodes
            .iter()
            .filter(|n| n.health() == NodeHealth::Down)
            .count();
        let degraded = self
            .nodes
            .iter()
            .filter(|n| n.health() == NodeHealth::Degraded)
            .count();
        match (down, degraded) {
            (0, 0) => None,
            (0, d) => Some(format!("{d} degraded")),
            (d, _) => Some(format!("{d} down")),
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn ledger_rate_is_averaged_over_the_last_minute() {
        let mut n = NodeState::new(NodeKind::Ledger, "http://l".into(), true);
        let s = 1_000_000;
        // One offset every 10 s, polled every 2 s: most polls see no change.
        for k in 0..60 {
            n.add_offset_sample(k * 2 * s, 1000 + k * 2 / 10);
        }
        let r = n.rate.expect("a rate");
        assert!((r - 0.1).abs() < 0.02, "{r}");
        // A ledger reset (smaller end) starts over instead of a negative rate.
        n.add_offset_sample(200 * s, 5);
        n.add_offset_sample(202 * s, 6);
        let r = n.rate.expect("a rate");
        assert!((r - 0.5).abs() < 1e-9, "{r}");
    }
    use super::*;

    #[test]
    fn backoff_doubles_and_caps() {
        assert_eq!(retry_delay_ms(2000, 0), 2000);
        assert_eq!(retry_delay_ms(2000, 1), 4000);
        assert_eq!(retry_delay_ms(2000, 2), 8000);
        assert_eq!(retry_delay_ms(2000, 3), 16000);
        assert_eq!(retry_delay_ms(2000, 4), 30000);
        assert_eq!(retry_delay_ms(2000, 40), 30000);
        assert_eq!(retry_delay_ms(60_000, 3), 60_000);
        assert_eq!(retry_delay_ms(0, 0), MIN_REFRESH_MS);
    }
}
