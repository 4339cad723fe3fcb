//! The cells the History table draws of a row of the timeline ([`IndexedRow`]: read from the
//! index, or sent by the scan for a part the index lacks) and of a row of the one scroll over
//! it and the loaded rows ([`JointRow`]).

use std::borrow::Cow;

use ratatui::style::{Modifier, Style};

pub use crate::feed::timeline::IndexedRow;
use crate::model::summary::{UpdateSummary, short_party};
use crate::ui::table::{Cell, TableRow};
use crate::ui::theme::Theme;

use super::super::Shared;
use super::table::{HistoryCol, distinct_id, fold_note};

/// What a row not read yet shows.
pub(super) static READING: IndexedRow = IndexedRow {
    record_time: None,
    migration_id: 0,
    update_id: String::new(),
    kind: String::new(),
    summary: String::new(),
    events: None,
    synchronizer: None,
    parties: Vec::new(),
    from_scan: false,
};

impl TableRow for IndexedRow {
    type Col = HistoryCol;
    type Ctx = Shared;

    fn cell(&self, col: HistoryCol, width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        let Some(time) = self.record_time else {
            return match col {
                HistoryCol::Time => Cell::new("…", theme.muted),
                _ => Cell::new("", theme.muted),
            };
        };
        match col {
            HistoryCol::Time => {
                let t = sh.format_time(time);
                let t = if width < 23 {
                    t.get(11..).map(str::to_string).unwrap_or(t)
                } else {
                    t
                };
                Cell::new(t, theme.time)
            }
            HistoryCol::Migration => Cell::new(self.migration_id.to_string(), Style::default()),
            // An event with a verdict and no update: `verdict` (the Summary says `(verdict
            // only)`), in the Kind column's width.
            HistoryCol::Kind if self.is_verdict_only() => {
                Cell::new("verdict", self.verdict_only_style(theme))
            }
            HistoryCol::Kind => {
                let style = match self.kind.as_str() {
                    "transaction" => theme.exercised,
                    "assign" => theme.assign,
                    "unassign" => theme.unassign,
                    _ => theme.status_err,
                };
                Cell::new(self.kind.clone(), style)
            }
            HistoryCol::Id => Cell::new(distinct_id(&self.update_id, width), theme.id),
            // An event with a verdict and no update: its verdict's result, round and mediator
            // group, set apart from the updates' summaries.
            HistoryCol::Summary if self.is_verdict_only() => {
                Cell::new(self.summary.clone(), self.verdict_only_style(theme))
            }
            HistoryCol::Summary => Cell::new(self.summary.clone(), Style::default()),
            // From the kept body; empty (not guessed) when the index keeps no bodies.
            HistoryCol::Events => Cell::new(
                self.events.map(|n| n.to_string()).unwrap_or_default(),
                theme.muted,
            ),
            HistoryCol::Synchronizer => Cell::new(
                self.synchronizer
                    .as_deref()
                    .map(|s| short_party(s).to_owned())
                    .unwrap_or_default(),
                theme.party,
            ),
            // From the summary row the index keeps (no body read), names as the loaded rows
            // show them.
            HistoryCol::Parties => Cell::new(party_names(&self.parties), theme.muted),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.update_id)
    }

    fn title(col: HistoryCol, sh: &Shared) -> Option<Cow<'static, str>> {
        (col == HistoryCol::Time).then(|| Cow::Owned(format!("Time ({})", sh.zone_label())))
    }

    fn fold_note(col: HistoryCol, title: &str, value: &str, _: &Shared) -> String {
        fold_note(col, title, value)
    }
}

impl IndexedRow {
    /// How a row of an event with a verdict and no update is set apart: in its result's colour
    /// (rejected, accepted), italic.
    fn verdict_only_style(&self, theme: &Theme) -> Style {
        let result = if self.summary.starts_with("rejected") {
            theme.rejected
        } else if self.summary.starts_with("accepted") {
            theme.accepted
        } else {
            theme.status_warn
        };
        result.add_modifier(Modifier::ITALIC)
    }
}

/// Parties as the Parties column names them: each party's name (before `::`), comma-separated.
fn party_names(parties: &[String]) -> String {
    parties
        .iter()
        .map(|p| p.split_once("::").map_or(p.as_str(), |(name, _)| name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A row of the one list: from the index, or loaded.
pub(super) enum JointRow<'a> {
    Index(&'a IndexedRow),
    Loaded(&'a UpdateSummary),
}

impl TableRow for JointRow<'_> {
    type Col = HistoryCol;
    type Ctx = Shared;

    fn cell(&self, col: HistoryCol, width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        match self {
            JointRow::Index(r) => r.cell(col, width, sh, theme),
            JointRow::Loaded(s) => s.cell(col, width, sh, theme),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        match self {
            JointRow::Index(r) => r.filter_text(),
            JointRow::Loaded(s) => s.filter_text(),
        }
    }

    fn title(col: HistoryCol, sh: &Shared) -> Option<Cow<'static, str>> {
        IndexedRow::title(col, sh)
    }

    fn fold_note(col: HistoryCol, title: &str, value: &str, sh: &Shared) -> String {
        IndexedRow::fold_note(col, title, value, sh)
    }
}
