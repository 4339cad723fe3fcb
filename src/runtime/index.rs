//! The local history index in the explorer: the reads of [`IndexRead`] and the history pages
//! the loader asks for, run on a blocking thread over [`crate::store::IndexReader`] (an SQLite index is
//! opened for each read and closed after it, so no read transaction outlives it and a sync in
//! another process checkpoints freely; a PostgreSQL index's reader is kept between reads, so
//! the connection and the schema check are made once, not on every read). With `--offline` the index answers every history page
//! and nothing else is asked of a node; otherwise a page comes from the index only when a
//! chunk the index walked covers all of it, and from the profile's scan when the index lacks it.

use crate::api::scan::{UpdateItem, UpdatesPage, UpdatesRequest};
use crate::api::{Answer, ApiClient, ApiError};
use crate::model::format::parse_time_micros;
use crate::model::history::{History, Placement};
use crate::model::index::query::Query;
use crate::model::index::read::{
    IndexAnswer, IndexFailure, IndexRead, IndexReply, KeptEventsOf, LIFECYCLE_MAX, RangePage,
    RowDetail, SearchPage, holes_in,
};
use crate::model::lifecycle::Lifecycle;
use crate::msg::Response;
use crate::store::{At, IndexReader, KeptUpdate, Location, StoreError, open_reader, search_all};

/// The index of a session.
#[derive(Debug, Clone)]
pub struct IndexSource {
    pub location: Location,
    /// `--offline`: the explorer reads the index alone.
    pub offline: bool,
    /// A PostgreSQL index's reader, kept between reads (connected and its schema checked once,
    /// not on every read; dropped after a failed read, so the next one connects again). An
    /// SQLite index is opened for each read and closed after it.
    kept: KeptReader,
    /// Whether the scan's history is still the one the index kept ([`reach`]).
    pub check: super::rewrite_check::RewriteCheck,
}

/// The reader an [`IndexSource`] keeps between reads (PostgreSQL only).
#[derive(Clone, Default)]
struct KeptReader(std::sync::Arc<std::sync::Mutex<Option<Box<dyn IndexReader>>>>);

impl std::fmt::Debug for KeptReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeptReader")
    }
}

impl IndexSource {
    /// The index at `location`; `offline`: the explorer reads it alone.
    pub fn new(location: Location, offline: bool) -> Self {
        IndexSource {
            location,
            offline,
            kept: KeptReader::default(),
            check: super::rewrite_check::RewriteCheck::default(),
        }
    }

    /// Whether a reader is kept open between reads now (a PostgreSQL index once read).
    pub fn holds_reader(&self) -> bool {
        self.kept
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .is_some()
    }

    /// Runs `f` over a reader of the index: the kept one (PostgreSQL), else one opened for it.
    fn with_reader<T>(
        &self,
        f: impl FnOnce(&mut dyn IndexReader) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if !matches!(self.location, Location::Postgres(_)) {
            let mut store = open_reader(&self.location)?;
            return f(store.as_mut());
        }
        let mut slot = self
            .kept
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut store = match slot.take() {
            Some(store) => store,
            None => open_reader(&self.location)?,
        };
        let result = f(store.as_mut());
        if result.is_ok() {
            *slot = Some(store);
        }
        result
    }

    /// Runs one read here (blocking).
    pub fn read_here(&self, read: &IndexRead) -> IndexReply {
        let reach = matches!(read, IndexRead::Reach { .. });
        let failure = |e: StoreError| IndexFailure {
            unusable: reach || unusable(&e),
            message: crate::api::sanitize_line(&e.to_string(), 400),
        };
        self.with_reader(|store| answer(store, read))
            .map_err(failure)
    }
}

/// The error a request that needs a node gets with `--offline`.
pub fn offline_error() -> ApiError {
    ApiError::Offline
}

/// Whether the index cannot be used at all after `e` (rather than this read failing).
fn unusable(e: &StoreError) -> bool {
    matches!(
        e,
        StoreError::Missing(_)
            | StoreError::Corrupt { .. }
            | StoreError::NewerSchema { .. }
            | StoreError::SummaryVersion { .. }
    )
}

/// Runs one read on a blocking thread.
pub async fn read(source: &IndexSource, read: IndexRead) -> IndexReply {
    let source = source.clone();
    tokio::task::spawn_blocking(move || source.read_here(&read))
        .await
        .unwrap_or_else(|e| {
            Err(IndexFailure {
                message: format!("index read failed: {e}"),
                unusable: false,
            })
        })
}

/// The records each of `parties` has kept in round `round` (a party without any left out;
/// [`crate::store::rounds::kept_records`]), or why the index could not be read.
pub async fn kept_records(
    source: &IndexSource,
    round: i64,
    parties: Vec<String>,
) -> Result<std::collections::BTreeMap<String, i64>, String> {
    let source = source.clone();
    tokio::task::spawn_blocking(move || {
        source
            .with_reader(|store| crate::store::rounds::kept_records(store, round, &parties))
            .map_err(|e| crate::api::sanitize_line(&e.to_string(), 300))
    })
    .await
    .unwrap_or_else(|e| Err(format!("index read failed: {e}")))
}

/// The reach reading, and beside it (online) the check that the scan's history is still the one
/// the index kept, when the index's newest update changed since the last
/// ([`super::rewrite_check`]).
pub async fn reach(source: &IndexSource, scan: &ApiClient, ask: IndexRead) -> IndexReply {
    let started = std::time::Instant::now();
    let reply = read(source, ask).await;
    let Ok(IndexAnswer::Reach(mut reach)) = reply else {
        return reply;
    };
    reach.read_ms = u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
    if !source.offline
        && let Some(last) = reach.last
    {
        let reader = source.clone();
        let newest = tokio::task::spawn_blocking(move || {
            reader.with_reader(|store| super::rewrite_check::newest(store, last))
        })
        .await;
        if let Ok(Ok(Some(newest))) = newest
            && source.check.due(&newest)
        {
            source.check.run(scan, &newest).await;
        }
    }
    reach.rewritten = source.check.rewritten();
    Ok(IndexAnswer::Reach(reach))
}

/// The validators the index keeps and, online, the scan's current licences and newest round
/// beside them (asked of the profile's scan while the index is read).
pub async fn validators(source: &IndexSource, scan: &ApiClient) -> IndexReply {
    if source.offline {
        return read(source, IndexRead::Validators).await;
    }
    let (reply, (licenses, rounds)) = futures_util::future::join(
        read(source, IndexRead::Validators),
        crate::api::scan::licenses_and_rounds(scan),
    )
    .await;
    let Ok(IndexAnswer::Validators {
        kept, newest_round, ..
    }) = reply
    else {
        return reply;
    };
    let side = crate::model::index::validators::ScanSide::of(
        licenses
            .as_deref()
            .map_err(|e| crate::api::sanitize_line(&e.to_string(), 300)),
        rounds.as_ref(),
    );
    Ok(IndexAnswer::Validators {
        kept,
        newest_round,
        scan: side,
    })
}

fn answer(store: &mut dyn IndexReader, read: &IndexRead) -> Result<IndexAnswer, StoreError> {
    match read {
        IndexRead::Reach { now } => {
            let mut reach = store.reach(*now)?;
            reach.network = store.network()?.map(|n| n.dso_party);
            Ok(IndexAnswer::Reach(reach))
        }
        IndexRead::PerDay { days, reach } => per_day(store, *days, *reach).map(IndexAnswer::PerDay),
        IndexRead::Rounds => {
            let mut rounds = store.rounds(None, None, None)?;
            rounds.reverse();
            let from_begin = store
                .chunks()?
                .iter()
                .any(|c| c.start.is_none() && c.cursor.is_some());
            Ok(IndexAnswer::Rounds { rounds, from_begin })
        }
        IndexRead::Validators => {
            let (kept, newest_round) = crate::store::validators::read(store)?;
            Ok(IndexAnswer::Validators {
                kept,
                newest_round,
                scan: crate::model::index::validators::ScanSide::not_asked("offline"),
            })
        }
        IndexRead::Search {
            query,
            until,
            skip,
            limit,
            count,
        } => {
            // The updates and the events with a verdict and no update, merged newest first.
            let mut rows = search_all::search(store, query, None, *until, limit + skip.len())?;
            rows.retain(|r| !skip.contains(&r.update_id));
            rows.truncate(*limit);
            let total = if *count {
                Some(search_all::count(store, query, None, None)?)
            } else {
                None
            };
            Ok(IndexAnswer::Search(SearchPage { rows, total }))
        }
        IndexRead::Range {
            since,
            before,
            offset,
            from,
            limit,
            count,
            locate,
        } => {
            let rows = store.range_rows(*since, from, *limit)?;
            // Where the rows counted end: the list's own end, else its newest row now, so reads
            // counted from the end (`RangeFrom::FromEnd`) stay on the rows counted.
            let end = match before {
                Some(b) if *count => Some(*b),
                None if *count => {
                    let newest = crate::model::index::read::RangeFrom::FromEnd {
                        before: i64::MAX,
                        skip: 0,
                    };
                    let last = store.range_rows(*since, &newest, 1)?;
                    Some(last.first().map_or(*since, |r| {
                        parse_time_micros(&r.record_time).map_or(i64::MAX, |t| t.saturating_add(1))
                    }))
                }
                _ => None,
            };
            let (total, verdict_only) = if *count {
                let all = store.range_count(*since, end)?;
                let verdict_only = store.verdict_only_count(*since, end)?;
                (Some(all), Some(verdict_only))
            } else {
                (None, None)
            };
            let located = match locate {
                Some(at) => Some(store.range_count(*since, Some(*at))?),
                None => None,
            };
            let details = rows
                .iter()
                .map(|r| detail(store, &r.update_id))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(IndexAnswer::Range(RangePage {
                offset: *offset,
                rows,
                total,
                verdict_only,
                located,
                end,
                details,
            }))
        }
        IndexRead::Holes { since, before } => holes(store, *since, *before),
        IndexRead::Body { update_id } => Ok(IndexAnswer::Body {
            body: store.body(update_id)?,
            events: kept_events(store, update_id)?,
        }),
        IndexRead::Context {
            query,
            at,
            update_id,
            n,
        } => context(store, query, *at, update_id, *n),
        IndexRead::Lifecycle { contract_id } => lifecycle(store, contract_id),
        IndexRead::VoteUpdates { contract_id, close } => crate::model::governance::vote_updates_in(
            |cid| touching(store, cid),
            contract_id,
            *close,
        )
        .map(IndexAnswer::VoteUpdates),
    }
}

/// Most rows one side of a hit's context reads to find its nearest `n`.
const CONTEXT_READ_MAX: usize = 5_000;

/// The `n` updates matching `query` recorded nearest before and after the hit `update_id`
/// (recorded at `at`), each newest first. Before: the newest at or before the hit's time (the
/// hit left out). After: the search reads newest first, so a window after the hit is widened
/// (1 s, doubling) until it holds `n` matches or reaches past the index's newest update, and
/// its oldest `n` are taken.
fn context(
    store: &mut dyn IndexReader,
    query: &Query,
    at: i64,
    update_id: &str,
    n: usize,
) -> Result<IndexAnswer, StoreError> {
    let mut before = store.search(query, None, Some(at), n + 16)?;
    let hit = before.iter().position(|r| r.update_id == update_id);
    // Updates recorded in the hit's microsecond come before it in the list when listed after
    // it (newest first): keep those that follow it.
    match hit {
        Some(i) => {
            before.drain(..=i);
        }
        None => before.retain(|r| r.update_id != update_id),
    }
    before.truncate(n);
    let newest = store.reach(at)?.last.unwrap_or(at);
    let mut width: i64 = 1_000_000;
    let after = loop {
        let until = at.saturating_add(width);
        let found = store.count(query, Some(at + 1), Some(until))?;
        if found >= n as u64 || until >= newest {
            let limit = usize::try_from(found)
                .unwrap_or(usize::MAX)
                .min(CONTEXT_READ_MAX);
            let mut rows = store.search(query, Some(at + 1), Some(until), limit)?;
            let keep = rows.len().saturating_sub(n);
            rows.drain(..keep);
            break rows;
        }
        width = width.saturating_mul(2);
    };
    Ok(IndexAnswer::Context { before, after })
}

/// What the index keeps of an update's events: each part served, as served (see
/// [`KeptEventsOf::Kept`]).
fn kept_events(store: &mut dyn IndexReader, update_id: &str) -> Result<KeptEventsOf, StoreError> {
    let Some(kept) = store.kept_events(update_id)? else {
        return Ok(KeptEventsOf::NotSynced);
    };
    let parts: Vec<String> = [
        (1, "verdict", &kept.verdict),
        (2, "traffic_summary", &kept.traffic_summary),
        (4, "app_activity_records", &kept.app_activity_records),
    ]
    .into_iter()
    .filter(|(bit, _, _)| kept.served & bit != 0)
    .map(|(_, key, text)| format!("\"{key}\":{}", text.as_deref().unwrap_or("null")))
    .collect();
    Ok(KeptEventsOf::Kept {
        parts: format!("{{{}}}", parts.join(",")),
        scans: kept.scans,
        verdict_only: kept.verdict_only,
    })
}

/// An update's event count and synchronizer from its body as kept (`None`: kept without it,
/// or a body that does not decode).
fn detail(store: &mut dyn IndexReader, update_id: &str) -> Result<Option<RowDetail>, StoreError> {
    let Some(body) = store.body(update_id)? else {
        return Ok(None);
    };
    let Ok(item) = serde_json::from_str::<UpdateItem>(&body) else {
        return Ok(None);
    };
    Ok(RowDetail::of(&item))
}

/// The parts of History's list from `since` up to `before` no chunk covers, each with the
/// index's rows of the list before it.
fn holes(
    store: &mut dyn IndexReader,
    since: i64,
    before: Option<i64>,
) -> Result<IndexAnswer, StoreError> {
    let chunks = store.chunks()?;
    let pos = |p: &crate::store::Position| {
        parse_time_micros(&p.record_time).map(|t| At::new(p.migration_id, t))
    };
    let covered: Vec<_> = crate::store::covered(&chunks)
        .iter()
        .filter_map(|(start, reach)| {
            let start = match start {
                None => None,
                Some(s) => Some(pos(s)?),
            };
            Some((start, pos(reach)?))
        })
        .collect();
    let mut holes = holes_in(&covered, since, before);
    for hole in &mut holes {
        hole.offset = match hole.after {
            None => 0,
            Some(after) => store.range_count(since, Some(after.record_time.saturating_add(1)))?,
        };
    }
    Ok(IndexAnswer::Holes(holes))
}

/// Every update of the index touching `contract_id` (the newest [`LIFECYCLE_MAX`]), read from
/// their bodies into a lifecycle, oldest first.
fn lifecycle(store: &mut dyn IndexReader, contract_id: &str) -> Result<IndexAnswer, StoreError> {
    let (items, more) = touching_more(store, contract_id)?;
    let mut history = History::default();
    history.add_page(&items, Placement::Append);
    // A prefix term may also match longer ids: the lifecycle keeps the contract's own updates.
    let life = Lifecycle::build(&history, contract_id);
    Ok(IndexAnswer::Lifecycle { life, more })
}

/// The updates of the index touching `contract_id` (the newest [`LIFECYCLE_MAX`]), from their
/// bodies, oldest first.
fn touching(store: &mut dyn IndexReader, contract_id: &str) -> Result<Vec<UpdateItem>, StoreError> {
    touching_more(store, contract_id).map(|(items, _)| items)
}

/// [`touching`], and whether the contract has more updates than were read.
fn touching_more(
    store: &mut dyn IndexReader,
    contract_id: &str,
) -> Result<(Vec<UpdateItem>, bool), StoreError> {
    let query =
        Query::parse(&[format!("contract:{contract_id}")]).map_err(|e| StoreError::Engine {
            path: String::new(),
            detail: e,
        })?;
    let mut rows = store.search(&query, None, None, LIFECYCLE_MAX + 1)?;
    let more = rows.len() > LIFECYCLE_MAX;
    rows.truncate(LIFECYCLE_MAX);
    rows.reverse();
    let mut items = Vec::with_capacity(rows.len());
    for row in &rows {
        if let Some(body) = store.body(&row.update_id)?
            && let Ok(item) = serde_json::from_str::<UpdateItem>(&body)
        {
            items.push(item);
        }
    }
    Ok((items, more))
}

/// A history page for the loader: from the index where it covers the page (always with
/// `--offline`), else from the scan.
pub async fn history_page(
    index: Option<&IndexSource>,
    scan: &ApiClient,
    req: &UpdatesRequest,
) -> Result<Response, ApiError> {
    // A history rewritten under the index: its rows are not the scan's any more.
    if let Some(source) = index.filter(|s| s.offline || s.check.rewritten().is_none()) {
        let offline = source.offline;
        let request = req.clone();
        let reader = source.clone();
        let local = tokio::task::spawn_blocking(move || {
            reader.with_reader(|store| local_page(store, &request, offline))
        })
        .await
        .unwrap_or(Ok(Local::Uncovered));
        match local {
            Ok(Local::Page(page)) => return Ok(Response::Api(Answer::from(page))),
            Ok(Local::Uncovered) if !offline => {}
            Ok(Local::Uncovered) => {
                return Ok(Response::Api(Answer::from(UpdatesPage::default())));
            }
            Ok(Local::NoBodies) => {
                return Err(ApiError::Local {
                    what: NO_BODIES_OFFLINE.to_owned(),
                });
            }
            Err(e) if offline => {
                return Err(ApiError::NotConfigured {
                    what: format!("a readable index: {e}"),
                });
            }
            Err(e) => tracing::warn!("history page from the index failed, asking the scan: {e}"),
        }
    }
    let call = crate::api::scan::updates(req).into_answer();
    scan.send(&call).await.map(Response::Api)
}

/// What `--offline` says of a page whose updates the index keeps without their bodies.
/// (History's loaded rows are read from the bodies; the timeline's rows from the index's own.)
pub const NO_BODIES_OFFLINE: &str =
    "the index keeps no bodies (`index sync --no-bodies`): `L` lists its rows, `F` searches them";

/// A history page as the index answers it.
enum Local {
    /// The page, as the scan's answer would be.
    Page(UpdatesPage),
    /// The index does not cover the page (online: the scan answers; offline: the end).
    Uncovered,
    /// Offline, the updates after the cursor are kept, none with its body, nor the oldest.
    NoBodies,
}

/// The page from the index: [`Local::Uncovered`] when the index does not cover it (online),
/// or, offline, whatever the index holds after the cursor.
fn local_page(
    store: &mut dyn IndexReader,
    req: &UpdatesRequest,
    offline: bool,
) -> Result<Local, StoreError> {
    let after = match &req.after {
        Some(a) => match parse_time_micros(&a.after_record_time) {
            Some(t) => Some(At::new(a.after_migration_id, t)),
            None => return Ok(Local::Uncovered),
        },
        None => None,
    };
    let limit = usize::try_from(req.page_size.max(1)).unwrap_or(1);
    let kept = store.page_after(after, limit)?;
    if !offline {
        let full = kept.len() == limit;
        if !full || !covered(store, after, kept.last())? {
            return Ok(Local::Uncovered);
        }
    }
    if kept.iter().any(|k| k.body.is_none()) {
        // Kept without bodies: the scan has to answer (offline: what has bodies, and when
        // none has, say so rather than end the list as if nothing were kept).
        if !offline {
            return Ok(Local::Uncovered);
        }
        // An index kept without bodies from its start (`index sync --no-bodies`); one that
        // keeps them for part of its history ends the list there, as before.
        if kept.iter().all(|k| k.body.is_none())
            && store
                .page_after(None, 1)?
                .first()
                .is_some_and(|k| k.body.is_none())
        {
            return Ok(Local::NoBodies);
        }
    }
    Ok(Local::Page(page_of(&kept)))
}

/// Whether one chunk of the index walked everything after `after` up to `last`.
fn covered(
    store: &mut dyn IndexReader,
    after: Option<At>,
    last: Option<&KeptUpdate>,
) -> Result<bool, StoreError> {
    let Some(last) = last else {
        return Ok(false);
    };
    let pos = |p: &crate::store::Position| {
        parse_time_micros(&p.record_time).map(|t| At::new(p.migration_id, t))
    };
    Ok(store.chunks()?.iter().any(|c| {
        let starts_before = match (&c.start, after) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(s), Some(a)) => pos(s).is_some_and(|s| s <= a),
        };
        let reaches = c
            .cursor
            .as_ref()
            .and_then(pos)
            .is_some_and(|cur| cur >= At::new(last.migration_id, last.record_time));
        starts_before && reaches
    }))
}

/// The page of kept updates, decoded as the scan's answer would be.
fn page_of(kept: &[KeptUpdate]) -> UpdatesPage {
    let mut text = String::from("{\"transactions\":[");
    let mut first = true;
    for body in kept.iter().filter_map(|k| k.body.as_deref()) {
        if !first {
            text.push(',');
        }
        first = false;
        text.push_str(body);
    }
    text.push_str("]}");
    serde_json::from_str(&text).unwrap_or_default()
}

/// The updates kept per UTC day over the `days` days up to the newest update's day, oldest
/// first: a count of each day's range of the time index (the days before the oldest update
/// are 0, not read); `(first, last)`: the oldest and newest update's record times.
fn per_day(
    store: &mut dyn IndexReader,
    days: usize,
    (first, last): (i64, i64),
) -> Result<Vec<u64>, StoreError> {
    use crate::model::index::stats::{DAY_MICROS, day_of};
    let newest = day_of(last);
    let oldest = newest - i64::try_from(days).unwrap_or(0) + 1;
    (oldest..=newest)
        .map(|day| {
            if day < day_of(first) {
                return Ok(0);
            }
            store.update_count(day * DAY_MICROS, Some((day + 1) * DAY_MICROS))
        })
        .collect()
}
