//! What the explorer reads from the local index, as data: the reads ([`IndexRead`]) a request
//! carries and their answers ([`IndexAnswer`]), so the app asks the index the way it asks a
//! scan (a `Request`, answered as an `Action::Fetched` reply) and the runtime runs the read on
//! a blocking thread (`runtime::index`). Pure types, no storage here.

use super::SearchRow;
use super::query::Query;
use crate::api::scan::{ReassignmentEvent, UpdateItem};
use crate::model::export::ExportRow;
use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::governance::VoteUpdates;
use crate::model::lifecycle::Lifecycle;
use crate::model::position::At;
use crate::model::summary::Summarizer;

/// Rows of one page of a whole-history search.
pub const SEARCH_PAGE: usize = 200;
/// Rows of one page of History's list read from the index.
pub const RANGE_PAGE: usize = 200;
/// Most updates a contract's lifecycle is read from (a contract touched more often shows the
/// newest ones and says so).
pub const LIFECYCLE_MAX: usize = 500;

/// How far the index reaches and whether a sync writes it, from its own bookkeeping.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IndexReach {
    /// Updates kept.
    pub updates: u64,
    /// Record time of the oldest and newest update kept (µs).
    pub first: Option<i64>,
    pub last: Option<i64>,
    /// A sync whose heartbeat is fresh: its pid and host, and its last beat (µs).
    pub sync_running: Option<SyncRunning>,
    /// The DSO party of the network the index belongs to (`None`: not recorded yet).
    pub network: Option<String>,
    /// The history the profile's scan serves is not the one the index kept, in the sync's
    /// words (the explorer's check beside the reading, `runtime::rewrite_check`).
    pub rewritten: Option<String>,
    /// How long the index took to read it (ms; not the scan's check beside it): the next
    /// reading waits for it ([`crate::feed::index::reach_pause`]).
    pub read_ms: u32,
}

/// A running sync, from its heartbeat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncRunning {
    pub pid: i64,
    pub host: String,
    pub beat_at: i64,
}

/// One read of the index.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexRead {
    /// Its reach and a running sync (`now`: the app's clock, to judge the heartbeat).
    Reach { now: i64 },
    /// A page of a whole-history search, newest first: the updates matching `query` recorded
    /// at or before `until` (`None`: the newest), leaving out `skip` (the rows of the page
    /// before recorded exactly at `until`), at most `limit`; with `count`, their total too.
    Search {
        query: Query,
        until: Option<i64>,
        skip: Vec<String>,
        limit: usize,
        count: bool,
    },
    /// A page of History's list read from the index: the updates recorded at or after `since`
    /// in the list's order ([`RangeKey`]), from where `from` says (after or before a
    /// neighbouring page's row, or by row number), at most `limit`; with `count`, how many
    /// there are before `before` (µs; `None`: all of them: the list stops where the loaded
    /// rows start); with `locate`, how many of them come before that time (µs), so the list
    /// can select the row of a time. `offset` is the row number of the page's first row.
    Range {
        since: i64,
        before: Option<i64>,
        offset: usize,
        from: RangeFrom,
        limit: usize,
        count: bool,
        locate: Option<i64>,
    },
    /// The parts of History's list from `since` up to `before` (µs; `None`: no end) that no
    /// chunk the index walked covers ([`Hole`]), each with how many of the index's rows of the
    /// list come before it: what the scan is asked for instead.
    Holes { since: i64, before: Option<i64> },
    /// An update's body as kept (the item's JSON).
    Body { update_id: String },
    /// The context of a search hit: the `n` updates matching `query` (one party or contract)
    /// recorded nearest before and after update `update_id`, recorded at `at` (µs).
    Context {
        query: Query,
        at: i64,
        update_id: String,
        n: usize,
    },
    /// Every update of the index that touches a contract, as its lifecycle.
    Lifecycle { contract_id: String },
    /// The updates of the vote request first created as `contract_id`: its creation and
    /// (`close`) the update that closed it ([`crate::model::governance::vote_updates_in`]).
    VoteUpdates { contract_id: String, close: bool },
    /// The updates kept per UTC day over the `days` days up to the newest update's day,
    /// oldest first (the Status pane's sparkline); `reach`: the oldest and newest update's
    /// record times (µs) as the last reach read them (not read again: the reach counts every
    /// update).
    PerDay { days: usize, reach: (i64, i64) },
    /// Every mining round the index's per-round summary holds, newest first (the Rounds view).
    Rounds,
    /// Every validator the kept history tells of, and (online) the scan's current licences
    /// and newest round (the Validators pane over the index).
    Validators,
}

impl IndexRead {
    /// A short description for logs.
    pub fn describe(&self) -> String {
        match self {
            IndexRead::Reach { .. } => "index reach".into(),
            IndexRead::Search { .. } => "index search".into(),
            IndexRead::Range { offset, .. } => format!("index rows from {offset}"),
            IndexRead::Holes { .. } => "index holes".into(),
            IndexRead::Body { update_id } => format!("index body {update_id}"),
            IndexRead::Context { update_id, .. } => format!("index context of {update_id}"),
            IndexRead::Lifecycle { contract_id } => format!("index lifecycle {contract_id}"),
            IndexRead::PerDay { days, .. } => format!("index updates per day ({days} days)"),
            IndexRead::Rounds => "index rounds".into(),
            IndexRead::Validators => "index validators".into(),
            IndexRead::VoteUpdates { contract_id, .. } => {
                format!("index vote updates {contract_id}")
            }
        }
    }
}

/// A row's place in History's list read from the index: the list is ordered by record time,
/// then migration, then update id (bytewise), so ties within one record time come out the
/// same from any index holding the same updates, whatever order they were written in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeKey {
    pub migration_id: i64,
    /// µs.
    pub record_time: i64,
    pub update_id: String,
}

/// Where a page of History's list read from the index starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RangeFrom {
    /// The rows right after this one (the page after a page read): a keyset read, as fast
    /// deep in the list as at its top.
    After(RangeKey),
    /// The rows right before this one (the page before a page read), read backwards and
    /// answered in the list's order.
    Before(RangeKey),
    /// Leaving out the first rows: only where no neighbouring page gives a bound (the first
    /// page, a jump to a row number: `:time`, `g`, `G`, a page evicted on both sides). SQL
    /// `OFFSET` walks the index up to the row.
    Offset(usize),
    /// The rows recorded before `before` (µs), leaving out the last `skip` of them: a page
    /// nearer the list's end than its start, with no neighbouring page to bound it (a jump to
    /// the end, the first page read above the loaded rows). Read backwards, so `OFFSET` walks
    /// the index from the end (the last page of 10 M rows is as cheap as the first), and
    /// answered in the list's order.
    FromEnd { before: i64, skip: usize },
}

/// A page of a whole-history search.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SearchPage {
    pub rows: Vec<SearchRow>,
    /// Every match, when asked.
    pub total: Option<u64>,
}

/// A page of History's list read from the index ([`IndexRead::Range`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RangePage {
    /// The row number of the first row.
    pub offset: usize,
    pub rows: Vec<SearchRow>,
    /// How many rows the list has, when asked.
    pub total: Option<u64>,
    /// How many of them are events with a verdict and no update (with `total`).
    pub verdict_only: Option<u64>,
    /// The row number of the time asked to locate, when asked.
    pub located: Option<u64>,
    /// Where the rows counted end (µs), when counted: the list's `before`, else just after its
    /// newest row (rows written after the count come after it).
    pub end: Option<i64>,
    /// What each row shows besides the index's summary row, read from its kept body, in the
    /// order of `rows` (`None`: kept without its body).
    pub details: Vec<Option<RowDetail>>,
}

/// A row's event count and synchronizer, read from the update's body as kept (the index's
/// summary row keeps neither).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowDetail {
    /// Events of a transaction, nested ones too (1 for a reassignment).
    pub events: u32,
    /// The synchronizer (of a reassignment: where the contract goes to, or leaves from).
    pub synchronizer: String,
}

impl RowDetail {
    /// The detail of a decoded item (`None`: a malformed one).
    pub fn of(item: &UpdateItem) -> Option<RowDetail> {
        match item {
            UpdateItem::Transaction(tx) => Some(RowDetail {
                events: u32::try_from(tx.events_by_id.len()).unwrap_or(u32::MAX),
                synchronizer: tx.synchronizer_id.clone(),
            }),
            UpdateItem::Reassignment(r) => Some(RowDetail {
                events: 1,
                synchronizer: match &r.event {
                    ReassignmentEvent::Assign(a) => a.target_synchronizer.clone(),
                    ReassignmentEvent::Unassign(u) => u.source_synchronizer.clone(),
                },
            }),
            UpdateItem::Malformed { .. } => None,
        }
    }
}

/// The summary row of a decoded item as the index keeps it (the History export's fields),
/// its summary made by `summarizer`: a row the scan sent, shown among the index's rows.
/// `None` for an item without an update id or a readable record time.
pub fn summary_row(item: &UpdateItem, summarizer: &mut Summarizer) -> Option<SearchRow> {
    let update_id = item.update_id().filter(|id| !id.is_empty())?.to_owned();
    let record_time = item.record_time().and_then(parse_time_micros)?;
    let migration_id = item.migration_id()?;
    let summary = summarizer.summarize(item);
    let export = ExportRow::of(&summary, summarizer);
    Some(SearchRow {
        record_time: format_time_micros(record_time),
        update_id,
        migration_id,
        kind: export.kind.to_owned(),
        root_action: export.root_action.clone(),
        parties: export.parties.iter().map(|p| (*p).to_owned()).collect(),
    })
}

/// A range the index's chunks cover: after its start (exclusive, `(migration, µs)`; `None`:
/// the ledger begin) up to its reach (inclusive).
pub type CoveredRange = (Option<At>, At);

/// A part of History's list that no chunk of the index covers: after `after` (exclusive,
/// `(migration, µs)`; `None`: from the list's start, inclusive) up to `through` (inclusive;
/// `None`: up to the list's end, exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hole {
    pub after: Option<At>,
    pub through: Option<At>,
    /// How many of the index's rows of the list come before it.
    pub offset: u64,
}

/// The parts of `since..before` (µs) that none of the `covered` ranges holds: each covered
/// range is after its start (exclusive, `(migration, µs)`; `None`: the ledger begin) up to its
/// reach (inclusive), in ledger order ([`crate::store::covered`]). Positions are compared by
/// record time (a migration starts after the one before it ends). Without `before`, the
/// part after the last covered range is left out (it reaches the head). Offsets are 0: the
/// reader counts them.
pub fn holes_in(covered: &[CoveredRange], since: i64, before: Option<i64>) -> Vec<Hole> {
    let mut out = Vec::new();
    // Where the part not covered yet starts: `None` at `since` (inclusive), else after it.
    let mut start: Option<At> = None;
    let starts_at = |start: Option<At>| start.map_or(since, |s| s.record_time.saturating_add(1));
    for (from, reach) in covered {
        let open = starts_at(start);
        if before.is_some_and(|b| open >= b) {
            return out;
        }
        if reach.record_time < open {
            // Ends before the part not covered yet.
            continue;
        }
        match from {
            // Covers the part not covered yet from its start on.
            None => {}
            Some(f) if f.record_time < open => {}
            Some(f) => {
                // Not covered from `open` through `f` (the covered range is after it).
                let through = match before {
                    Some(b) if f.record_time >= b => None,
                    _ => Some(*f),
                };
                out.push(Hole {
                    after: start,
                    through,
                    offset: 0,
                });
                if through.is_none() {
                    return out;
                }
            }
        }
        start = Some(*reach);
    }
    if let Some(b) = before
        && starts_at(start) < b
    {
        out.push(Hole {
            after: start,
            through: None,
            offset: 0,
        });
    }
    out
}

/// The answer of an [`IndexRead`].
#[derive(Debug, Clone, PartialEq)]
pub enum IndexAnswer {
    Reach(IndexReach),
    Search(SearchPage),
    Range(RangePage),
    Holes(Vec<Hole>),
    /// An update's body (`None`: not in the index, or kept without its body) and what the
    /// index keeps of its events.
    Body {
        body: Option<String>,
        events: KeptEventsOf,
    },
    /// A hit's context ([`IndexRead::Context`]): the updates before it and after it, each
    /// newest first, at most `n` each.
    Context {
        before: Vec<SearchRow>,
        after: Vec<SearchRow>,
    },
    /// The lifecycle from the index; `more`: the contract has more updates than were read.
    Lifecycle {
        life: Lifecycle,
        more: bool,
    },
    /// A vote request's updates found in the index.
    VoteUpdates(VoteUpdates),
    /// The updates per day, oldest first (see [`IndexRead::PerDay`]).
    PerDay(Vec<u64>),
    /// The rounds the index holds, newest first (see [`IndexRead::Rounds`]); `from_begin`: the
    /// index starts at the ledger's beginning (its first round is whole).
    Rounds {
        rounds: Vec<crate::model::index::rounds::RoundSummary>,
        from_begin: bool,
    },
    /// Every validator the kept history tells of, the newest round the index holds, and what
    /// the scan says beside (see [`IndexRead::Validators`]).
    Validators {
        kept: std::collections::BTreeMap<String, crate::model::index::validators::ValidatorSums>,
        newest_round: Option<i64>,
        scan: crate::model::index::validators::ScanSide,
    },
}

/// What the index keeps of an update's events (`/v0/events`: verdict, traffic summary, app
/// activity records), read beside its body for the explorer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeptEventsOf {
    /// The update is not in the index, or its events are not synced yet.
    NotSynced,
    /// Kept: `parts` is a JSON object holding each part the scans served, as they served it
    /// (`null`: served as none; a part no scan serves is absent; the verdict without its
    /// scan-local `finalization_time`), confirmed by `scans`. `verdict_only`: an event with a
    /// verdict and no update (a rejected request, a wholly private transaction), which has no
    /// body to keep.
    Kept {
        parts: String,
        scans: Vec<String>,
        verdict_only: bool,
    },
}

impl KeptEventsOf {
    /// The `/v0/events` item of the body `item_json` (`None`: none kept) and these parts: what
    /// the scan would have answered, but for the verdict's `finalization_time`.
    pub fn item_json(&self, item_json: Option<&str>) -> String {
        let update = item_json.unwrap_or("null");
        match self {
            KeptEventsOf::Kept { parts, .. } => {
                let parts = parts.trim();
                let inner = parts
                    .strip_prefix('{')
                    .and_then(|p| p.strip_suffix('}'))
                    .unwrap_or_default()
                    .trim();
                if inner.is_empty() {
                    format!("{{\"update\":{update}}}")
                } else {
                    format!("{{\"update\":{update},{inner}}}")
                }
            }
            KeptEventsOf::NotSynced => format!("{{\"update\":{update}}}"),
        }
    }
}

/// Where a body shown came from when the local index answered for the scan: what the index
/// keeps of its events, and whether the scan was asked (and failed) first. Kept beside the
/// body (`body`, the same `Arc` the body cache holds), so a later answer of the scan for the
/// same update is not mistaken for the index's.
#[derive(Debug, Clone)]
pub struct KeptOrigin {
    pub body: std::sync::Arc<crate::api::scan::EventHistoryItem>,
    /// The update's events are in the index (else: not synced yet).
    pub events_synced: bool,
    /// The scans that confirmed its events.
    pub scans: Vec<String>,
    /// The scan was asked first and did not answer (`false`: `--offline`, no scan asked).
    pub scan_failed: bool,
}

/// Why the index could not answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexFailure {
    /// One line for the user (names the file).
    pub message: String,
    /// The index cannot be used at all (missing, damaged, of a newer schema, a disk error):
    /// the explorer goes on without it. `false`: this one read failed (a bad query).
    pub unusable: bool,
}

/// What an index request answers.
pub type IndexReply = Result<IndexAnswer, IndexFailure>;

/// The next page's `until` and `skip` after `rows` (newest first): the oldest row's time,
/// leaving out the rows recorded exactly then (they were shown).
pub fn next_page_after(rows: &[SearchRow]) -> Option<(i64, Vec<String>)> {
    let last = rows.last()?;
    let at = crate::model::format::parse_time_micros(&last.record_time)?;
    let skip = rows
        .iter()
        .rev()
        .take_while(|r| r.record_time == last.record_time)
        .map(|r| r.update_id.clone())
        .collect();
    Some((at, skip))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, t: &str) -> SearchRow {
        SearchRow {
            record_time: t.into(),
            update_id: id.into(),
            migration_id: 0,
            kind: "transaction".into(),
            root_action: String::new(),
            parties: Vec::new(),
        }
    }

    #[test]
    fn holes_are_the_parts_of_the_list_no_covered_range_holds() {
        let h = |after: Option<(i64, i64)>, through: Option<(i64, i64)>| Hole {
            after: after.map(At::from),
            through: through.map(At::from),
            offset: 0,
        };
        let c = |from: Option<(i64, i64)>, reach: (i64, i64)| (from.map(At::from), At::from(reach));
        // Covered 100..=200 and 300..=400 (after 99 and 299).
        let covered = [c(Some((0, 99)), (0, 200)), c(Some((0, 299)), (0, 400))];
        // A span from 10 up to the loaded rows at 500: before, between and after.
        assert_eq!(
            holes_in(&covered, 10, Some(500)),
            vec![
                h(None, Some((0, 99))),
                h(Some((0, 200)), Some((0, 299))),
                h(Some((0, 400)), None),
            ]
        );
        // Inside the first range, up to the loaded rows inside the second: the gap alone.
        assert_eq!(
            holes_in(&covered, 150, Some(350)),
            vec![h(Some((0, 200)), Some((0, 299)))]
        );
        // The loaded rows start inside the gap: the gap up to them.
        assert_eq!(
            holes_in(&covered, 150, Some(250)),
            vec![h(Some((0, 200)), None)]
        );
        // From the ledger begin, the loaded rows right after the reach: nothing is missing.
        assert_eq!(holes_in(&[c(None, (1, 400))], 10, Some(401)), Vec::new());
        // No end: the part after the last range is the head's, not a hole.
        assert_eq!(holes_in(&[c(None, (1, 400))], 10, None), Vec::new());
        // Nothing covered: the whole span.
        assert_eq!(holes_in(&[], 10, Some(20)), vec![h(None, None)]);
        // A range wholly before the span does not count.
        assert_eq!(
            holes_in(&[c(None, (0, 5))], 10, Some(20)),
            vec![h(None, None)]
        );
    }

    #[test]
    fn the_next_page_starts_at_the_oldest_time_without_the_rows_shown_there() {
        let rows = [
            row("c", "2026-11-27T10:00:03Z"),
            row("b", "2026-11-27T10:00:01Z"),
            row("a", "2026-11-27T10:00:01Z"),
        ];
        let (until, skip) = next_page_after(&rows).expect("a page");
        assert_eq!(
            until,
            crate::model::format::parse_time_micros("2026-11-27T10:00:01Z").expect("t")
        );
        assert_eq!(skip, ["a", "b"]);
        assert!(next_page_after(&[]).is_none());
    }
}
