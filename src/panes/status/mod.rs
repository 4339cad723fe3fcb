//! The Status pane: the dashboard kept open over SSH. The polling of every configured node is
//! [`NodePoller`] and the update-rate statistics of the loaded history are [`HistoryStats`] (both
//! pure, in `model/`); this pane sends the requests the poller asks for, hands the answers back,
//! and draws one card per node in a grid (`cards.rs`), plus this validator's sequencer traffic
//! (`traffic.rs`: the participant id from the Ledger API, its traffic status from scan 0), and
//! governance (the open vote requests of scan 0: how many, how many need my SV's vote, the next
//! deadline, amber under a day and red under two hours).
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

mod card_rows;
mod cards;
mod rounds_card;
mod traffic;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;

use crate::api::scan;
use crate::config::keymap::KeyContext;
use crate::feed::dashboard::Level;
use crate::feed::dashboard::{GovernanceWatch, LagThresholds, Rounds, Traffic, Verdict, judge};
use crate::feed::health::{HealthIntent, NetworkPart};
use crate::feed::node_poll::NodePoller;
pub use crate::feed::node_poll::{
    LATENCY_SAMPLES, MAX_BACKOFF_MS, NodeHealth, NodeKind, NodeState, retry_delay_ms,
};
pub use crate::model::history_stats::{HistoryStats, RATE_WINDOW_MINUTES};
use crate::msg::Command;
use crate::msg::{Fetched, Request};
use crate::ui::theme::Theme;

use super::{AppEvent, Out, Pane, PaneId, RenderCtx, Shared};

/// The text shown when a ledger is configured without a token.
pub const NO_TOKEN_TEXT: &str =
    "no ledger token configured: set CANTONSCOPE_TOKEN, --token-file or token_command";
/// From this width on, one more column of cards.
const CARD_MIN_WIDTH: u16 = 60;
/// The updates-per-minute chart below the cards is drawn when at least this many rows are left.
const MIN_CHART_ROWS: u16 = 5;
/// Most rule rows the My node card shows (`v` lists them all).
const MAX_NODE_ROWS: u16 = 14;
/// How often the mining rounds are read (µs); they change every few minutes.
const ROUNDS_EVERY_US: i64 = 30_000_000;

/// The theme style for a node's health.
pub fn health_style(health: NodeHealth, theme: &Theme) -> Style {
    match health {
        NodeHealth::Ok => theme.status_ok,
        NodeHealth::Degraded => theme.status_warn,
        NodeHealth::Down => theme.status_err,
        NodeHealth::Unknown => theme.muted,
    }
}

/// Which card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Card {
    Node(usize),
    History,
    Rounds,
    Traffic,
    Governance,
    /// My node: the operator's own metrics judged by the alert rules.
    MyNode,
}

/// What decides the height of a node's card, as the app's health last said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct NodeShape {
    kind: NodeKind,
    polled: bool,
    down: bool,
}

impl NodeShape {
    fn of(nodes: &NodePoller) -> Vec<NodeShape> {
        nodes
            .nodes()
            .iter()
            .map(|n| NodeShape {
                kind: n.kind,
                polled: n.polled,
                down: n.health() == NodeHealth::Down,
            })
            .collect()
    }
}

/// The Status pane.
#[derive(Debug)]
pub struct StatusPane {
    /// The node cards' shapes (the nodes themselves are the app's: `Shared::health`).
    shapes: Vec<NodeShape>,
    /// The verdict has the network's part (Enter opens it).
    network_shown: bool,
    history: HistoryStats,
    rounds: Rounds,
    traffic: Traffic,
    governance: GovernanceWatch,
    lag: LagThresholds,
    /// Cards in display order.
    cards: Vec<Card>,
    selected: usize,
    first_row: usize,
    area: Rect,
    last_second: i64,
    /// Rows of the My node card, as last judged (its height).
    node_rows: u16,
    /// The History card shows the local index's updates per day (an index is read).
    index_row: bool,
}

impl StatusPane {
    /// One card per configured node (each scan, the ledger, the validator proxy) and one for the
    /// loaded history.
    pub fn new(sh: &Shared) -> Self {
        let ctx = &sh.ctx;
        let shapes = NodeShape::of(&sh.health.nodes);
        let scans = ctx.scan_urls.len();
        let mut cards: Vec<Card> = (0..scans).map(Card::Node).collect();
        cards.push(Card::History);
        if scans > 0 {
            cards.push(Card::Rounds);
        }
        cards.extend((scans..shapes.len()).map(Card::Node));
        if scans > 0 || ctx.ledger_url.is_some() {
            cards.push(Card::Traffic);
        }
        if scans > 0 {
            cards.push(Card::Governance);
        }
        if sh.health.node.is_enabled() {
            // First: what pages the operator is what they look at first.
            cards.insert(0, Card::MyNode);
        }
        StatusPane {
            shapes,
            network_shown: false,
            history: HistoryStats::default(),
            rounds: Rounds::default(),
            traffic: Traffic::new(ctx.traffic),
            governance: GovernanceWatch::default(),
            lag: ctx.lag,
            cards,
            selected: 0,
            first_row: 0,
            area: Rect::default(),
            last_second: i64::MIN,
            node_rows: 0,
            index_row: false,
        }
    }

    /// Issues the first round of requests (the nodes are polled by the app's health).
    pub fn start(&mut self, sh: &mut Shared, out: &mut Out) {
        self.poll_rounds(sh, out);
        self.poll_traffic(sh, out);
        self.poll_governance(sh, out);
        self.history.sync(&sh.history);
    }

    /// Asks scan 0 for the open vote requests when they are due.
    fn poll_governance(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        if sh.ctx.scan_urls.is_empty() || !self.governance.poll.due(sh.now) {
            return false;
        }
        let id = out.fetch(sh, Request::api(scan::vote_requests()));
        self.governance.poll.sent(id);
        true
    }

    /// The open vote requests, as last read.
    pub fn governance(&self) -> &GovernanceWatch {
        &self.governance
    }

    /// Asks scan 0 for the mining rounds when they are due.
    fn poll_rounds(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        if sh.ctx.scan_urls.is_empty() || !self.rounds.poll.due(sh.now) {
            return false;
        }
        let call = scan::open_and_issuing_mining_rounds(&scan::MiningRoundsRequest::default());
        let id = out.fetch(sh, Request::api(call));
        self.rounds.poll.sent(id);
        true
    }

    /// This validator's sequencer traffic, as last read.
    pub fn traffic(&self) -> &Traffic {
        &self.traffic
    }

    /// The dashboard's verdict now.
    pub fn verdict(&self, sh: &Shared) -> Verdict {
        let mut v = judge(
            &sh.health.nodes,
            &self.history,
            sh.history_at_head,
            sh.now,
            self.lag,
        );
        self.traffic.judge(&mut v);
        // My node's firing rules turn the headline amber and are named.
        let mut firing: Vec<&str> = Vec::new();
        for row in sh.health.node.rows.iter().filter(|r| r.state.is_firing()) {
            if !firing.contains(&row.title.as_str()) {
                firing.push(&row.title);
            }
        }
        if !firing.is_empty() {
            v.level = v.level.max(Level::Degraded);
            v.reasons.push(format!("my node: {}", firing.join(", ")));
        }
        // With more than one scan known, my nodes (above) and whether a quorum of the network
        // is healthy decide the headline; the network's own part follows it (`network_part`).
        if let Some(part) = sh.health.network.verdict_part() {
            if !part.quorum_ok {
                v.level = v.level.max(Level::Degraded);
                v.reasons.push("no healthy quorum of the network".into());
            } else if v.level == Level::Healthy {
                v.reasons = vec!["my nodes OK".into()];
            }
        }
        v
    }

    /// The network's part of the verdict line (when more than one scan is known).
    pub fn network_part<'a>(&self, sh: &'a Shared) -> Option<&'a NetworkPart> {
        sh.health.network.verdict_part()
    }

    /// The mining rounds last read from scan 0.
    pub fn rounds(&self) -> &Rounds {
        &self.rounds
    }

    /// Enter on the My node card: what explains its worst firing row (rounds: the mining
    /// rounds card; a scan's disagreement: that scan's Network row; ingestion lag: the scan's
    /// card). False when nothing fires or nothing explains it.
    fn explain_node(&mut self, sh: &Shared, out: &mut Out) -> bool {
        use crate::model::metrics::{RuleId, Severity};
        let rows = &sh.health.node.rows;
        let worst = [Severity::Critical, Severity::Warning]
            .into_iter()
            .find_map(|severity| {
                rows.iter().find(|r| {
                    r.state == crate::model::metrics::AlertState::Firing { severity }
                        && matches!(
                            r.id,
                            RuleId::RoundsNotAdvancing
                                | RuleId::ScanDisagreement
                                | RuleId::IngestionLag
                        )
                })
            });
        let Some(row) = worst else {
            return false;
        };
        let select = |pane: &mut Self, card: Card| match pane.cards.iter().position(|c| *c == card)
        {
            Some(i) => {
                pane.selected = i;
                let grid = pane.grid(pane.area);
                pane.first_row = pane.first_visible_row(&grid, pane.area.height);
                true
            }
            None => false,
        };
        match row.id {
            RuleId::RoundsNotAdvancing => select(self, Card::Rounds),
            RuleId::ScanDisagreement => {
                let subject = row.subject.as_deref().unwrap_or("");
                let scan = sh.health.network.snapshot.as_ref().and_then(|s| {
                    s.entries
                        .iter()
                        .position(|e| crate::model::network::same_url(&e.url, subject))
                });
                out.events.push(AppEvent::ShowScan(scan));
                true
            }
            _ => select(self, Card::Node(0)),
        }
    }

    /// The number of cards (one per configured node, one for the history).
    pub fn card_count(&self) -> usize {
        self.cards.len()
    }

    /// Migration id of the newest loaded update.
    pub fn migration_id(&self) -> Option<i64> {
        self.history.migration_id
    }

    /// Record time (µs) of the newest loaded update.
    pub fn newest_record_time(&self) -> Option<i64> {
        self.history.newest
    }

    /// The history statistics.
    pub fn history_stats(&self) -> &HistoryStats {
        &self.history
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
            Card::MyNode => 1 + self.node_rows.clamp(1, MAX_NODE_ROWS),
            Card::History => 4 + u16::from(self.index_row),
            Card::Rounds | Card::Traffic | Card::Governance => 4,
            Card::Node(i) => match self.shapes.get(i) {
                Some(n) if !n.polled => 3,
                Some(n) => {
                    let error_rows = u16::from(n.down);
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
}

/// Below the verdict line.
fn cards_area(area: Rect) -> Rect {
    let top = area.height.min(1);
    Rect::new(area.x, area.y + top, area.width, area.height - top)
}

/// Column count and row heights of the card grid.
#[derive(Debug, Clone)]
struct Grid {
    cols: usize,
    heights: Vec<u16>,
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
            Command::Refresh => out
                .events
                .push(AppEvent::Health(HealthIntent::PollNodesNow)),
            // Enter on My node: what explains its worst firing row.
            Command::Select if self.cards.get(self.selected) == Some(&Card::MyNode) => {
                return self.explain_node(sh, out);
            }
            // Enter: the network part of the verdict, in the Network pane (on the first scan
            // it names).
            Command::Select => match self.network_part(sh) {
                Some(part) => out
                    .events
                    .push(AppEvent::ShowScan(part.named_scans.first().copied())),
                None => return false,
            },
            Command::Copy => match self.cards.get(self.selected) {
                Some(Card::Node(i)) => {
                    let Some(n) = sh.health.nodes.nodes().get(*i) else {
                        return false;
                    };
                    match &n.last_error {
                        Some((_, text)) => out.copy("last error", text.clone()),
                        None => out.copy("URL", n.url.clone()),
                    }
                }
                Some(Card::Rounds) => match self.rounds.current(sh.now) {
                    Some(r) => out.copy("current round's contract id", r.contract_id.clone()),
                    None => return false,
                },
                Some(Card::Traffic) => match self.traffic.member_id() {
                    Some(m) => out.copy("member id", m),
                    None => return false,
                },
                Some(Card::Governance) => {
                    let dso = sh.health.dso.info.as_deref();
                    let rows = self.governance.rows(dso, sh.health.dso.my_sv());
                    match rows.as_deref().and_then(<[_]>::first) {
                        Some(r) => out.copy("key of the request closing next", r.key.clone()),
                        None => return false,
                    }
                }
                Some(Card::MyNode) => {
                    let rows = &sh.health.node.rows;
                    match rows.iter().find(|r| r.state.is_firing()).or(rows.first()) {
                        Some(r) => out.copy("rule expression", r.expression.clone()),
                        None => return false,
                    }
                }
                Some(Card::History) => match sh.history.last() {
                    Some(s) => out.copy("newest update id", s.update_id().to_string()),
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
        let network_shown = sh.health.network.verdict_part().is_some();
        if network_shown != self.network_shown {
            self.network_shown = network_shown;
            changed = true;
        }
        let node_rows = u16::try_from(sh.health.node.rows.len()).unwrap_or(u16::MAX);
        if node_rows != self.node_rows {
            self.node_rows = node_rows;
            let grid = self.grid(self.area);
            self.first_row = self.first_visible_row(&grid, self.area.height);
            changed = true;
        }
        let index_row = sh.index.reach.is_some() && !sh.index.per_day.is_empty();
        if index_row != self.index_row {
            self.index_row = index_row;
            let grid = self.grid(self.area);
            self.first_row = self.first_visible_row(&grid, self.area.height);
            changed = true;
        }
        let shapes = NodeShape::of(&sh.health.nodes);
        if shapes != self.shapes {
            self.shapes = shapes;
            let grid = self.grid(self.area);
            self.first_row = self.first_visible_row(&grid, self.area.height);
            changed = true;
        }
        changed |= self.poll_rounds(sh, out);
        changed |= self.poll_traffic(sh, out);
        changed |= self.poll_governance(sh, out);
        let second = now.div_euclid(1_000_000);
        if second != self.last_second {
            self.last_second = second;
            changed = true;
        }
        changed
    }

    fn on_fetched(&mut self, reply: &Fetched, sh: &mut Shared, _out: &mut Out) {
        if self.rounds.poll.is_waiting_for(reply.id) {
            let result = match &reply.result {
                Ok(r) => r
                    .answer::<scan::OpenAndIssuingMiningRounds>()
                    .ok_or_else(|| "unexpected answer".to_string()),
                Err(e) => Err(e.to_string()),
            };
            self.rounds.on_result(result, sh.now, ROUNDS_EVERY_US);
            return;
        }
        if self.traffic.is_waiting_for(reply.id) {
            self.on_traffic(reply, sh);
            return;
        }
        if self.governance.poll.is_waiting_for(reply.id) {
            let result = match &reply.result {
                Ok(r) => r
                    .shared::<scan::VoteRequests>()
                    .cloned()
                    .ok_or_else(|| "unexpected answer".to_string()),
                Err(e) => Err(e.to_string()),
            };
            self.governance
                .on_result(result, sh.now, sh.ctx.governance_every);
        }
    }

    fn set_area(&mut self, area: Rect) {
        let area = cards_area(area);
        self.area = area;
        let grid = self.grid(area);
        self.first_row = self.first_visible_row(&grid, area.height);
    }

    fn render(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { sh, theme, focused } = cx;
        if area.width == 0 || area.height == 0 {
            return;
        }
        self.render_verdict(area, buf, sh, theme);
        let area = cards_area(area);
        if self.cards.is_empty() || area.height == 0 {
            return;
        }
        let grid = self.grid(area);
        let first = self.first_visible_row(&grid, area.height);
        let col_w = area.width / grid.cols as u16;
        let mut y = area.y;
        let bottom = area.y + area.height;
        // Rows drawn whole (a cut row at the bottom does not count).
        let mut full_rows = 0usize;
        // Where the last row of the grid was drawn whole: its top and height.
        let mut last_row = None;
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
            if shown == h {
                full_rows += 1;
                if r + 1 == grid.heights.len() {
                    last_row = Some((y, h));
                }
            }
            y += shown;
        }
        // Room left below every card: a large chart of updates per minute. Without that room,
        // the chart takes the empty places of the last row when it has some.
        let empty = grid.cols * grid.heights.len() - self.cards.len();
        if first == 0 && full_rows == grid.heights.len() && bottom - y >= MIN_CHART_ROWS {
            self.render_chart(Rect::new(area.x, y, area.width, bottom - y), buf, theme);
        } else if let Some((row_y, h)) = last_row.filter(|_| empty > 0) {
            let x = area.x + col_w * (grid.cols - empty) as u16;
            self.render_chart(Rect::new(x, row_y, area.right() - x, h), buf, theme);
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
        let mut hints = vec![Command::Down, Command::Up, Command::Refresh, Command::Copy];
        if self.network_shown {
            hints.push(Command::Select);
        }
        hints
    }

    /// The selected card, whole: its title, then each of its lines (named by place; the
    /// lines as drawn, each on a row as wide as it needs).
    fn fields(&self, sh: &Shared) -> Option<(String, Vec<crate::ui::fields::Field>)> {
        use crate::ui::fields::Field;
        let card = *self.cards.get(self.selected)?;
        let title = self.card_title(card, sh);
        let mut fields = vec![Field::new("card", title.clone())];
        for (i, line) in self.card_lines(card, sh).iter().enumerate() {
            let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            if !text.trim().is_empty() {
                fields.push(Field::new(format!("line {}", i + 1), text.trim()));
            }
        }
        let name = title.split(" · ").next().unwrap_or("status").to_owned();
        Some((format!("{name} card"), fields))
    }

    fn tab_count(&self, sh: &Shared) -> Option<usize> {
        // The node, history and rounds cards, once a node answered (or failed); the traffic
        // and governance cards are not counted (they are about one validator and the DSO, not
        // nodes of their own).
        let polled = sh.health.nodes.nodes().iter().any(|n| n.last_ok.is_some());
        let extra = usize::from(self.cards.contains(&Card::Traffic))
            + usize::from(self.cards.contains(&Card::Governance))
            + usize::from(self.cards.contains(&Card::MyNode));
        polled.then_some(self.card_count() - extra)
    }
}
