//! The Rounds view (`M`, `:rounds`; issue 37 §2): an overlay listing the mining rounds the
//! local index holds, newest first, from its per-round summary (what `cantonscope index rounds`
//! prints): per round the total app activity weight, the records, the active providers, the
//! traffic cost of its verdicts and its time span; below, the selected round's top providers
//! by weight. The rounds are read by the runtime (`IndexRead::Rounds`), never here; without
//! an index the view says how to get one. Party ids are server text and drawn sanitized.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::config::keymap::{KeyContext, KeyMap};
use crate::model::index::read::IndexAnswer;
use crate::model::index::rounds::{RoundSummary, closed_and_whole};
use crate::msg::{Command, Fetched, RequestId};
use crate::ui::OverlayOutcome;
use crate::ui::format::{format_gap, group_thousands};
use crate::ui::layout::{draw_overlay, overlay_block};
use crate::ui::safe::safe_line;
use crate::ui::theme::Theme;

/// What the view says when the profile has no local index (or it cannot be read now).
pub const NO_INDEX_TEXT: &str = "no local index: `cantonscope index sync` keeps one";
/// What the view says while the rounds are read.
pub const LOADING_TEXT: &str = "reading the rounds from the local index…";
/// What the view says when the index holds no round.
pub const NO_ROUNDS_TEXT: &str =
    "the local index holds no round yet: `cantonscope index sync` keeps the events they come from";

/// What the view shows.
#[derive(Debug, Clone, PartialEq)]
enum State {
    /// Asked with this request.
    Loading(RequestId),
    NoIndex,
    Failed(String),
    /// Newest first; whether the index starts at the ledger's beginning.
    Loaded(Vec<RoundSummary>, bool),
}

/// The Rounds overlay: its rounds and the selected one.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundsView {
    state: State,
    selected: usize,
}

/// How many rows PgUp / PgDn move.
const PAGE: usize = 10;

impl RoundsView {
    /// The view while request `id` reads the rounds.
    pub fn loading(id: RequestId) -> Self {
        RoundsView {
            state: State::Loading(id),
            selected: 0,
        }
    }

    /// The view when there is no index to read.
    pub fn no_index() -> Self {
        RoundsView {
            state: State::NoIndex,
            ..RoundsView::loading(RequestId::default())
        }
    }

    /// Whether `id` is the view's pending read.
    pub fn owns(&self, id: RequestId) -> bool {
        self.state == State::Loading(id)
    }

    /// Takes the index's answer to the view's read (others are not its own: ignored).
    pub fn on_reply(&mut self, reply: &Fetched) -> bool {
        if !self.owns(reply.id) {
            return false;
        }
        self.state = match reply.index_answer() {
            Ok(IndexAnswer::Rounds { rounds, from_begin }) => State::Loaded(rounds, from_begin),
            Ok(_) => State::Failed(crate::msg::UNEXPECTED_INDEX_ANSWER.to_owned()),
            Err(e) => State::Failed(e),
        };
        self.selected = 0;
        true
    }

    /// The rounds shown, newest first (empty until read).
    pub fn rounds(&self) -> &[RoundSummary] {
        match &self.state {
            State::Loaded(r, _) => r,
            _ => &[],
        }
    }

    /// Whether the rounds are still being read.
    pub fn is_loading(&self) -> bool {
        matches!(self.state, State::Loading(_))
    }

    /// What the list says of a round beside its figures: `open` (one of the two newest rounds
    /// the index holds, still counting), `partial` (the index's first round, which may have
    /// begun before the index did), or nothing (whole).
    pub fn mark(&self, round: i64) -> &'static str {
        let State::Loaded(rounds, from_begin) = &self.state else {
            return "";
        };
        let (newest, first) = (
            rounds.first().map(|r| r.round),
            rounds.last().map(|r| r.round),
        );
        match closed_and_whole(round, first, newest, *from_begin) {
            (false, _) => "open",
            (true, false) => "partial",
            (true, true) => "",
        }
    }

    /// The selected round.
    pub fn selected(&self) -> Option<&RoundSummary> {
        self.rounds().get(self.selected)
    }

    fn select(&mut self, at: usize) {
        let len = self.rounds().len();
        self.selected = at.min(len.saturating_sub(1));
    }

    /// A key while the view is open: moves the selection; Esc, `q` or the view's key close it.
    pub fn handle_key(&mut self, keymap: &KeyMap, key: &KeyEvent) -> OverlayOutcome {
        let page = PAGE;
        match keymap.lookup(KeyContext::Overlay, key) {
            Some(Command::Up) => self.select(self.selected.saturating_sub(1)),
            Some(Command::Down) => self.select(self.selected + 1),
            Some(Command::PageUp) => self.select(self.selected.saturating_sub(page)),
            Some(Command::PageDown) => self.select(self.selected + page),
            Some(Command::Top) => self.select(0),
            Some(Command::Bottom) => self.select(usize::MAX),
            Some(Command::Cancel | Command::Back | Command::Rounds) => {
                return OverlayOutcome::Close;
            }
            Some(Command::Quit) => return OverlayOutcome::Passthrough(Command::Quit),
            Some(_) | None => return OverlayOutcome::Ignored,
        }
        OverlayOutcome::Consumed
    }

    /// Draws the view in `area` (a bordered box): the list, then the selected round's detail.
    /// `time` formats a time (µs) as the explorer shows times.
    pub fn render(
        &self,
        area: Rect,
        buf: &mut Buffer,
        theme: &Theme,
        time: &dyn Fn(i64) -> String,
    ) {
        let title = match &self.state {
            State::Loaded(r, _) => {
                format!(" Rounds · {} in the local index ", group_thousands(r.len()))
            }
            _ => " Rounds ".to_owned(),
        };
        let Some(inner) = draw_overlay(area, buf, overlay_block(title, theme)) else {
            return;
        };
        let width = usize::from(inner.width);
        let say = |buf: &mut Buffer, text: &str, style: Style| {
            buf.set_line(
                inner.x,
                inner.y,
                &Line::styled(safe_line(text, width), style),
                inner.width,
            );
        };
        let rounds = match &self.state {
            State::Loading(_) => return say(buf, LOADING_TEXT, theme.muted),
            State::NoIndex => return say(buf, NO_INDEX_TEXT, theme.muted),
            State::Failed(e) => {
                return say(
                    buf,
                    &format!("could not read the rounds: {e}"),
                    theme.status_err,
                );
            }
            State::Loaded(r, _) if r.is_empty() => return say(buf, NO_ROUNDS_TEXT, theme.muted),
            State::Loaded(r, _) => r,
        };
        // The detail: two heading lines, the providers' header and up to TOP_PROVIDERS rows.
        let detail_h =
            (crate::model::index::rounds::TOP_PROVIDERS as u16 + 3).min(inner.height / 2);
        let list_h = inner.height - detail_h;
        let wide = width >= 100;
        let mut lines: Vec<Line> = Vec::new();
        let header = row_text(
            [
                "Round",
                "Weight",
                "Records",
                "Parties",
                "Updates",
                "Traffic cost",
                "First",
                "Span",
                "State",
            ],
            wide,
        );
        lines.push(Line::styled(
            safe_line(&header, width).into_owned(),
            theme.muted,
        ));
        let rows = usize::from(list_h.saturating_sub(1));
        // The selection stays on screen.
        let offset = (self.selected + 1).saturating_sub(rows.max(1));
        for (i, r) in rounds.iter().enumerate().skip(offset).take(rows) {
            let span = match (r.sums.first_time, r.sums.last_time) {
                (Some(a), Some(b)) => format_gap(b - a),
                _ => "—".to_owned(),
            };
            let first = match r.sums.first_time {
                Some(t) if wide => time(t),
                _ => "—".to_owned(),
            };
            let text = row_text(
                [
                    &r.round.to_string(),
                    &group_thousands(r.sums.weight),
                    &group_thousands(r.sums.records),
                    &group_thousands(r.active_parties),
                    &group_thousands(r.sums.updates),
                    &group_thousands(r.sums.traffic_cost),
                    &first,
                    &span,
                    if r.records_pruned {
                        PRUNED_MARK
                    } else {
                        self.mark(r.round)
                    },
                ],
                wide,
            );
            let style = if i == self.selected {
                theme.selection
            } else {
                Style::default()
            };
            lines.push(Line::styled(safe_line(&text, width).into_owned(), style));
        }
        for (i, line) in lines.iter().enumerate() {
            buf.set_line(inner.x, inner.y + i as u16, line, inner.width);
        }
        let Some(r) = self.selected() else { return };
        let mut detail: Vec<Line> = Vec::new();
        detail.push(Line::styled(
            safe_line(
                &format!(
                    "Round {} · {} updates · weight {} · {} records · {} providers",
                    r.round,
                    group_thousands(r.sums.updates),
                    group_thousands(r.sums.weight),
                    group_thousands(r.sums.records),
                    group_thousands(r.active_parties),
                ),
                width,
            )
            .into_owned(),
            theme.title,
        ));
        let when = match (r.sums.first_time, r.sums.last_time) {
            (Some(a), Some(b)) => format!("{} → {} ({})", time(a), time(b), format_gap(b - a)),
            _ => "no time kept".to_owned(),
        };
        let when = match self.mark(r.round) {
            "open" => format!("{when} · open"),
            "partial" => format!("{when} · partial"),
            _ => when,
        };
        let when = if r.records_pruned {
            format!("{when} · {PRUNED_DETAIL}")
        } else {
            when
        };
        detail.push(Line::styled(
            safe_line(&when, width).into_owned(),
            theme.time,
        ));
        if r.top_providers.is_empty() {
            detail.push(Line::styled(
                "no app activity records kept for this round",
                theme.muted,
            ));
        } else {
            let party_w = width.saturating_sub(30).max(8);
            let head = format!(
                "Top providers ({} of {})",
                r.top_providers.len(),
                r.active_parties
            );
            detail.push(Line::styled(
                safe_line(
                    &format!(
                        "{:<party_w$}{:>12} {:>8} {:>7}",
                        head, "weight", "records", "share"
                    ),
                    width,
                )
                .into_owned(),
                theme.table_header,
            ));
            for p in &r.top_providers {
                let share = if r.sums.weight > 0 {
                    format!("{:.1} %", p.weight as f64 * 100.0 / r.sums.weight as f64)
                } else {
                    "—".to_owned()
                };
                let party = safe_line(&p.party, party_w);
                detail.push(Line::from(vec![
                    Span::styled(format!("{party:<party_w$}"), theme.party),
                    Span::raw(format!(
                        "{:>12} {:>8} {:>7}",
                        group_thousands(p.weight),
                        group_thousands(p.records),
                        share
                    )),
                ]));
            }
        }
        let top = inner.y + list_h;
        for (i, line) in detail.iter().enumerate().take(usize::from(detail_h)) {
            buf.set_line(inner.x, top + i as u16, line, inner.width);
        }
    }
}

/// The state of a round counted from updates `index prune` removed since.
const PRUNED_MARK: &str = "pruned";
/// What the detail says of such a round.
const PRUNED_DETAIL: &str =
    "records pruned: figures kept as counted, not re-checkable from the index";

/// A row of the list (or its header) from its cells: round, weight, records, parties, updates,
/// traffic cost, first record time, span, state; narrow, without the updates and the time.
fn row_text(c: [&str; 9], wide: bool) -> String {
    if wide {
        format!(
            "{:>8} {:>12} {:>8} {:>8} {:>8} {:>12}  {:<23} {:>9}  {}",
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]
        )
    } else {
        format!(
            "{:>8} {:>12} {:>8} {:>8} {:>12} {:>9}  {}",
            c[0], c[1], c[2], c[3], c[5], c[7], c[8]
        )
    }
}
