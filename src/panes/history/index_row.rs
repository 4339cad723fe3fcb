//! A row of History's list over the local index ([`IndexedRow`]: read from the index, or sent
//! by the scan for a part the index lacks) and a row of the one scroll over it and the loaded
//! rows ([`JointRow`]), with the cells the History table draws of them.

use std::borrow::Cow;

use ratatui::style::Style;

use crate::model::format::parse_time_micros;
use crate::model::index::SearchRow;
use crate::model::index::read::{RangeKey, RowDetail};
use crate::model::summary::{UpdateSummary, short_party};
use crate::ui::table::{Cell, TableRow};
use crate::ui::theme::Theme;

use super::super::Shared;
use super::table::{HistoryCol, distinct_id};

/// One row of History read from the index: the summary row fields the index keeps, and the
/// event count and synchronizer read from the update's kept body (none when the index keeps no
/// bodies: `index sync --no-bodies`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedRow {
    /// µs (`None`: a row not read yet).
    pub record_time: Option<i64>,
    pub migration_id: i64,
    pub update_id: String,
    pub kind: String,
    pub summary: String,
    pub events: Option<u32>,
    pub synchronizer: Option<String>,
    /// The update's parties as the index keeps them with its summary row (sorted, distinct):
    /// the Parties column, without reading the body.
    pub parties: Vec<String>,
    /// Sent by the scan for a part of the list the index lacks (not read from the index).
    pub from_scan: bool,
}

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

impl IndexedRow {
    pub(super) fn of(r: SearchRow, detail: Option<RowDetail>) -> Self {
        let (events, synchronizer) = match detail {
            Some(d) => (Some(d.events), Some(d.synchronizer)),
            None => (None, None),
        };
        IndexedRow {
            record_time: parse_time_micros(&r.record_time),
            migration_id: r.migration_id,
            update_id: r.update_id,
            kind: r.kind,
            summary: r.root_action,
            events,
            synchronizer,
            parties: r.parties,
            from_scan: false,
        }
    }

    /// A row the scan sent for a part of the list the index lacks.
    pub(super) fn from_scan(r: SearchRow, detail: Option<RowDetail>) -> Self {
        IndexedRow {
            from_scan: true,
            ..IndexedRow::of(r, detail)
        }
    }

    /// Its place in the list, for a keyset read of the page after or before it.
    pub(super) fn key(&self) -> Option<RangeKey> {
        Some(RangeKey {
            migration_id: self.migration_id,
            record_time: self.record_time?,
            update_id: self.update_id.clone(),
        })
    }
}

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
}
