//! A row of History's timeline ([`IndexedRow`]): read from the local index, or sent by the scan
//! for a part the index lacks. The History table draws it (`panes/history/rows.rs`).

use crate::model::format::parse_time_micros;
use crate::model::index::SearchRow;
use crate::model::index::read::{RangeKey, RowDetail};

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

impl IndexedRow {
    pub fn of(r: SearchRow, detail: Option<RowDetail>) -> Self {
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
    pub fn from_scan(r: SearchRow, detail: Option<RowDetail>) -> Self {
        IndexedRow {
            from_scan: true,
            ..IndexedRow::of(r, detail)
        }
    }

    /// Whether the row is an event with a verdict and no update (a rejected request, a wholly
    /// private transaction's verdict): no update to open, its kept verdict instead.
    pub fn is_verdict_only(&self) -> bool {
        self.kind == crate::model::index::VERDICT_ONLY_KIND
    }

    /// Its place in the list, for a keyset read of the page after or before it.
    pub fn key(&self) -> Option<RangeKey> {
        Some(RangeKey {
            migration_id: self.migration_id,
            record_time: self.record_time?,
            update_id: self.update_id.clone(),
        })
    }
}

/// The memory a row takes (reckoned: the struct and its strings).
pub fn row_bytes(r: &IndexedRow) -> usize {
    std::mem::size_of::<IndexedRow>()
        + r.update_id.len()
        + r.kind.len()
        + r.summary.len()
        + r.synchronizer.as_ref().map_or(0, String::len)
        + r.parties
            .iter()
            .map(|p| p.len() + std::mem::size_of::<String>())
            .sum::<usize>()
}

/// A row the scan sent at `t` (µs), named `update_id` (tests).
#[cfg(test)]
pub(crate) fn scan_row(t: i64, update_id: String) -> IndexedRow {
    IndexedRow {
        record_time: Some(t),
        migration_id: 0,
        update_id,
        kind: "transaction".into(),
        summary: String::new(),
        events: None,
        synchronizer: None,
        parties: Vec::new(),
        from_scan: true,
    }
}
