//! Drawing the Rounds view: the list (the index's figures of each round and the scans' verdict
//! on it), then the selected round's detail (its figures and time, each scan's answer, its
//! reward tree on every scan once walked, its top providers). Reads the view only; every
//! server string (party ids, SV names, hashes, states) goes through the `safe_*` helpers.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::scans::{self, OnScans, Tone};
use super::{LOADING_TEXT, NO_ROUNDS_TEXT, RoundsView, State};
use crate::model::index::rounds::{RoundSummary, TOP_PROVIDERS};
use crate::ui::format::{format_gap, group_thousands};
use crate::ui::layout::{draw_overlay, overlay_block};
use crate::ui::safe::safe_line;
use crate::ui::theme::Theme;

/// The list's columns at a width: `Wide` has the updates and traffic cost, `Widest` the first
/// record time too.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Columns {
    Narrow,
    Wide,
    Widest,
}

impl Columns {
    fn at(width: usize) -> Columns {
        match width {
            130.. => Columns::Widest,
            100.. => Columns::Wide,
            _ => Columns::Narrow,
        }
    }
}

fn tone_style(tone: Tone, theme: &Theme) -> Style {
    match tone {
        Tone::Agree => theme.status_ok,
        Tone::Doubt => theme.status_warn,
        Tone::Diverges => theme.status_err,
        Tone::Quiet => theme.muted,
    }
}

impl RoundsView {
    /// What the list's `Scans` cell says of `round`, and its tone.
    fn scans_cell(&self, round: i64) -> (String, Tone) {
        if self.scans_not_asked.is_some() {
            return ("—".to_owned(), Tone::Quiet);
        }
        match self.on_scans(round) {
            None => (String::new(), Tone::Quiet),
            Some(OnScans::Asked(_)) => ("asking…".to_owned(), Tone::Quiet),
            Some(OnScans::Failed(_)) => ("not asked: failed".to_owned(), Tone::Doubt),
            Some(OnScans::Answered(a)) => scans::verdict(&a.1),
        }
    }

    /// How many scan lines the detail has room for: one per scan of the answers so far.
    fn scan_rows(&self) -> usize {
        self.on_scans
            .values()
            .filter_map(|s| match s {
                OnScans::Answered(a) => Some(a.1.scans.len()),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// How many reward tree lines the detail has room for: as many as the largest tree state
    /// so far (none until a tree is asked).
    fn tree_rows(&self) -> usize {
        self.trees
            .values()
            .map(super::TreeState::rows)
            .max()
            .unwrap_or(0)
    }

    /// The selected round's lines about the scans: the verdict, the root hash f + 1 hold (or
    /// the divergence), then one line per scan.
    fn scan_lines(&self, round: i64, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        let mut lines = Vec::new();
        let say =
            |text: String, style: Style| Line::styled(safe_line(&text, width).into_owned(), style);
        if let Some(why) = &self.scans_not_asked {
            lines.push(say(
                format!("no scan was asked ({why}): the index's figures alone"),
                theme.muted,
            ));
            return lines;
        }
        let answered = match self.on_scans(round) {
            None | Some(OnScans::Asked(_)) => {
                lines.push(say("asking every scan for this round…".into(), theme.muted));
                return lines;
            }
            Some(OnScans::Failed(e)) => {
                lines.push(say(
                    format!("the scans could not be asked: {e}"),
                    theme.status_err,
                ));
                return lines;
            }
            Some(OnScans::Answered(a)) => a,
        };
        let (answer, check) = (&answered.0, &answered.1);
        let (verdict, tone) = scans::verdict(check);
        let root = match (&check.root_hash, check.root_divergence) {
            (Some(h), _) => format!(
                "root hash {} held by f + 1 = {}",
                scans::short_hash(h),
                answer.threshold
            ),
            (None, true) => format!(
                "DIVERGENCE: no root hash is held by f + 1 = {} scans",
                answer.threshold
            ),
            (None, false) => "no scan serves a root hash".to_owned(),
        };
        lines.push(say(
            format!("Scans: {verdict} · {root}"),
            tone_style(tone, theme),
        ));
        let name_w = check
            .scans
            .iter()
            .map(|v| v.scan.chars().count())
            .max()
            .unwrap_or(0)
            .clamp(4, 20);
        for v in &check.scans {
            let (text, tone) = scans::scan_line(v);
            let name = safe_line(&v.scan, name_w);
            let rest = width.saturating_sub(name_w + 2);
            lines.push(Line::from(vec![
                Span::styled(format!("  {name:<name_w$}"), theme.accent),
                Span::styled(
                    format!(" {}", safe_line(&text, rest)),
                    tone_style(tone, theme),
                ),
            ]));
        }
        lines
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
            State::Unusable(why) => return say(buf, why, theme.muted),
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
        let columns = Columns::at(width);
        let detail = self
            .selected()
            .map(|r| self.detail(r, width, theme, time))
            .unwrap_or_default();
        // The same height whichever round is selected: the headings, the scans' lines, the
        // providers' header and rows.
        let reserved = TOP_PROVIDERS + 4 + self.scan_rows() + self.tree_rows();
        let detail_h = u16::try_from(reserved)
            .unwrap_or(u16::MAX)
            .min(inner.height / 2);
        let list_h = inner.height - detail_h;
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
                "Scans",
            ],
            columns,
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
                Some(t) if columns == Columns::Widest => time(t),
                _ => "—".to_owned(),
            };
            let figures = row_text(
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
                    "",
                ],
                columns,
            );
            let figures = safe_line(&figures, width).into_owned();
            let (verdict, tone) = self.scans_cell(r.round);
            let rest = width.saturating_sub(figures.chars().count());
            let mut line = Line::from(vec![
                Span::raw(figures),
                Span::styled(
                    safe_line(&verdict, rest).into_owned(),
                    tone_style(tone, theme),
                ),
            ]);
            if i == self.selected {
                line = line.patch_style(theme.selection);
            }
            lines.push(line);
        }
        for (i, line) in lines.iter().enumerate() {
            buf.set_line(inner.x, inner.y + i as u16, line, inner.width);
        }
        let top = inner.y + list_h;
        for (i, line) in detail.iter().enumerate().take(usize::from(detail_h)) {
            buf.set_line(inner.x, top + i as u16, line, inner.width);
        }
    }

    /// The selected round's detail: two heading lines, the scans' lines, the providers.
    fn detail(
        &self,
        r: &RoundSummary,
        width: usize,
        theme: &Theme,
        time: &dyn Fn(i64) -> String,
    ) -> Vec<Line<'static>> {
        let mut detail: Vec<Line> = Vec::new();
        detail.push(Line::styled(
            safe_line(
                &format!(
                    "Round {} · {} updates · weight {} · {} records · {} providers · traffic cost {}",
                    r.round,
                    group_thousands(r.sums.updates),
                    group_thousands(r.sums.weight),
                    group_thousands(r.sums.records),
                    group_thousands(r.active_parties),
                    group_thousands(r.sums.traffic_cost),
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
        detail.extend(self.scan_lines(r.round, width, theme));
        if let Some(tree) = self.tree(r.round) {
            detail.extend(tree.lines(width, theme, &|t| tone_style(t, theme)));
        }
        if r.top_providers.is_empty() {
            detail.push(Line::styled(
                "no app activity records kept for this round",
                theme.muted,
            ));
            return detail;
        }
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
        for p in r.top_providers.iter().take(TOP_PROVIDERS) {
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
        detail
    }
}

/// A row of the list (or its header) from its cells: round, weight, records, parties, updates,
/// traffic cost, first record time, span, state, scans. Narrow: without the updates, the
/// traffic cost, the time and the span; wide: without the time.
fn row_text(c: [&str; 10], columns: Columns) -> String {
    match columns {
        Columns::Widest => format!(
            "{:>8} {:>12} {:>8} {:>8} {:>8} {:>12}  {:<23} {:>9}  {:<7}  {}",
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9]
        ),
        Columns::Wide => format!(
            "{:>8} {:>12} {:>8} {:>8} {:>8} {:>12} {:>9}  {:<7}  {}",
            c[0], c[1], c[2], c[3], c[4], c[5], c[7], c[8], c[9]
        ),
        Columns::Narrow => format!(
            "{:>8} {:>12} {:>8} {:>8}  {:<7}  {}",
            c[0], c[1], c[2], c[3], c[8], c[9]
        ),
    }
}

/// The state of a round counted from updates `index prune` removed since.
const PRUNED_MARK: &str = "pruned";
/// What the detail says of such a round.
const PRUNED_DETAIL: &str =
    "records pruned: figures kept as counted, not re-checkable from the index";
