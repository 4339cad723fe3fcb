//! [`IndexWriter`]: the typed writes of an index, on every engine.

use super::{
    At, Chunk, DivergenceRecord, EventsRow, Heartbeat, IndexReader, MAX_VERIFICATIONS, NetworkId,
    PageWrite, PageWritten, Position, StoreError, VerdictEvent, rounds, validators,
};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::model::format::format_time_micros;

/// Where the events of the index's updates are to be synced: the first update (ledger order)
/// without them and the index's last update, each as (migration, record time µs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventsTodo {
    pub first_lacking: Option<At>,
    pub last: Option<At>,
}

/// What [`IndexWriter::compact`] did: the bytes the index took on disk before and after, as
/// `index status` counts them (SQLite: the file with its log; PostgreSQL: its tables with their
/// indexes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Compacted {
    pub bytes_before: u64,
    pub bytes_after: u64,
    /// SQLite: a reader in an older snapshot kept the write-ahead log from being cut (it is
    /// in `bytes_after`); the writer's next checkpoint after that reader ends cuts it.
    pub log_kept: bool,
}

/// The typed writes of an index, on every engine (one writer at a time:
/// [`open_locked`](super::open_locked)). The
/// provided methods are the same on every engine, over each engine's few primitives
/// (`meta_set`, `clear_beat`).
pub trait IndexWriter: IndexReader {
    /// Where the events of the index's updates are to be synced ([`EventsTodo`]).
    fn events_todo(&mut self) -> Result<EventsTodo, StoreError>;

    /// Keeps `rows` (each update's events, replacing what was kept) in one transaction; a row
    /// whose update the index does not keep is left out. Returns how many were kept.
    fn write_events(&mut self, rows: &[EventsRow]) -> Result<u64, StoreError>;

    /// Keeps events with a verdict and no update (replacing an earlier row of the same id), in
    /// one transaction: how many.
    fn write_verdict_events(&mut self, rows: &[VerdictEvent]) -> Result<u64, StoreError>;
    /// Replaces the summary of `figures.day` with `figures` (no row when it counted no
    /// update), in one transaction ([`stats::refresh`]).
    fn write_stats_day(
        &mut self,
        figures: &crate::model::index::stats::DayFigures,
    ) -> Result<(), StoreError>;
    /// Adds what `rows` (updates kept, by id, with their events' contributions) bring to the
    /// per-round summary, in one transaction: an update already counted, or one the index does
    /// not keep, adds nothing. Returns how many were counted now.
    fn count_rounds(
        &mut self,
        rows: &[(String, crate::model::index::rounds::Contribution)],
    ) -> Result<u64, StoreError>;

    /// At most `limit` updates (seq, id) after seq `after` whose events are kept but not
    /// counted in the per-round summary, in seq order.
    fn uncounted_events(
        &mut self,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(i64, String)>, StoreError>;

    /// Adds a page of events rows to the per-round summary (called before
    /// [`IndexWriter::write_events`] keeps them: see [`rounds`]).
    fn add_rounds(&mut self, rows: &[EventsRow]) -> Result<u64, StoreError> {
        let contributions: Vec<_> = rows
            .iter()
            .map(|r| {
                (
                    r.update_id.clone(),
                    crate::model::index::rounds::Contribution::of(
                        r.round_number,
                        r.traffic_summary.as_deref(),
                        r.app_activity_records.as_deref(),
                    ),
                )
            })
            .collect();
        self.count_rounds(&contributions)
    }

    /// Builds the per-round summary from the events kept before it existed (an index migrated
    /// to schema 8), once: `None` when it was built already, else how many updates were
    /// counted.
    fn build_rounds(&mut self) -> Result<Option<u64>, StoreError> {
        if self.rounds_built()? {
            return Ok(None);
        }
        let (mut after, mut counted) = (0, 0);
        loop {
            let batch = self.uncounted_events(after, 1000)?;
            let Some(last) = batch.last() else { break };
            after = last.0;
            let mut rows = Vec::with_capacity(batch.len());
            for (_, id) in batch {
                let kept = self.kept_events(&id)?;
                let c = kept.map_or_else(Default::default, |k| {
                    crate::model::index::rounds::Contribution::of(
                        k.round_number,
                        k.traffic_summary.as_deref(),
                        k.app_activity_records.as_deref(),
                    )
                });
                rows.push((id, c));
            }
            counted += self.count_rounds(&rows)?;
        }
        self.meta_set(rounds::BUILT_KEY, "1")?;
        Ok(Some(counted))
    }

    /// Adds `delta` to the validators' table and marks the updates through seq `through`
    /// counted, in one transaction ([`validators::build`](super::validators::build)).
    fn add_validators(
        &mut self,
        delta: &crate::model::index::validators::ValidatorsDelta,
        through: i64,
    ) -> Result<(), StoreError>;

    /// At most `limit` updates after seq `after`, in seq order, as [`validators::Written`]
    /// (no body read): what [`validators::build_page`] counts a page just written by. `None`:
    /// the engine does not list them (the bodies are read back instead).
    fn written_after(
        &mut self,
        _after: i64,
        _limit: usize,
    ) -> Result<Option<Vec<validators::Written>>, StoreError> {
        Ok(None)
    }

    /// Sets a value of the meta table.
    fn meta_set(&mut self, key: &str, value: &str) -> Result<(), StoreError>;

    /// Removes the heartbeat of the running sync.
    fn clear_beat(&mut self) -> Result<(), StoreError>;

    /// Brings the engine's planner statistics up to date after a sync wrote (PostgreSQL:
    /// `ANALYZE`, and `VACUUM` of the tables searches read from their keys alone; SQLite's
    /// queries are written to their plan and need none).
    fn refresh_statistics(&mut self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Records the network of a new index, or refuses another network's scans. A synchronizer
    /// unknown on either side is no difference (and a known one is kept when it was not).
    fn claim_network(&mut self, network: &NetworkId) -> Result<(), StoreError> {
        let Some(kept) = self.network()? else {
            self.meta_set("dso_party", &network.dso_party)?;
            return self.meta_set("synchronizer", &network.synchronizer);
        };
        let same_sync = kept.synchronizer.is_empty()
            || network.synchronizer.is_empty()
            || kept.synchronizer == network.synchronizer;
        if kept.dso_party == network.dso_party && same_sync {
            if kept.synchronizer.is_empty() && !network.synchronizer.is_empty() {
                self.meta_set("synchronizer", &network.synchronizer)?;
            }
            return Ok(());
        }
        Err(StoreError::WrongNetwork {
            path: self.shown(),
            index_dso: kept.dso_party,
            index_sync: kept.synchronizer,
            scan_dso: network.dso_party.clone(),
            scan_sync: network.synchronizer.clone(),
        })
    }

    /// Removes the heartbeat and records how the sync ended.
    fn end_sync(
        &mut self,
        started_at: i64,
        ended_at: i64,
        outcome: &str,
    ) -> Result<(), StoreError> {
        let last = serde_json::json!({
            "started_at": format_time_micros(started_at),
            "ended_at": format_time_micros(ended_at),
            "outcome": outcome,
        });
        self.meta_set("last_sync", &last.to_string())?;
        self.clear_beat()?;
        self.refresh_statistics()
    }

    /// Records what `index verify` found for the ranges it checked: each replaces the earlier
    /// record of the same range (`"after"` and `"through"`), the newest last, at most
    /// [`MAX_VERIFICATIONS`] kept. The updates themselves are never touched.
    fn record_verification(&mut self, ranges: &[serde_json::Value]) -> Result<(), StoreError> {
        let same = |a: &serde_json::Value, b: &serde_json::Value| {
            a["after"] == b["after"] && a["through"] == b["through"]
        };
        let mut kept = self.verifications()?;
        kept.retain(|old| !ranges.iter().any(|new| same(old, new)));
        kept.extend(ranges.iter().cloned());
        let excess = kept.len().saturating_sub(MAX_VERIFICATIONS);
        kept.drain(..excess);
        self.meta_set("verifications", &serde_json::Value::Array(kept).to_string())
    }

    /// A new open chunk.
    fn start_chunk(
        &mut self,
        start: Option<Position>,
        end_before: Option<i64>,
        verify: i64,
        now: i64,
    ) -> Result<Chunk, StoreError> {
        let mut chunk = Chunk::opened(0, start, end_before, verify);
        chunk.id = self.insert_chunk(&chunk, now)?;
        Ok(chunk)
    }

    /// Adds `chunk` (new, open) started at `now`; its id.
    fn insert_chunk(&mut self, chunk: &Chunk, now: i64) -> Result<i64, StoreError>;

    /// Writes one page and moves the chunk's cursor, in one transaction. An update the index
    /// has with another digest, or an update the chunk already walked past that the index does
    /// not have, is history rewritten: nothing is written.
    fn write_page(&mut self, chunk: i64, page: &PageWrite) -> Result<PageWritten, StoreError>;

    /// Sets a chunk's state (`done`, `diverged`, `open`).
    fn set_chunk_state(&mut self, chunk: i64, state: &str, now: i64) -> Result<(), StoreError>;

    /// Records a divergence (an unresolved one replaces an earlier record of the same update).
    fn record_divergence(&mut self, divergence: &DivergenceRecord) -> Result<(), StoreError>;

    /// Marks the unresolved divergences of `update_ids` resolved (the scans agree on them now),
    /// in one transaction (a page's updates at once: one call per page, not per update).
    fn resolve_divergences(&mut self, update_ids: &[String]) -> Result<(), StoreError>;

    /// Writes the heartbeat of a sync that starts.
    fn beat(&mut self, heartbeat: &Heartbeat) -> Result<(), StoreError>;

    /// Moves the heartbeat of the running sync `pid` on (nothing once [`IndexWriter::end_sync`]
    /// removed it, so a late beat never brings back a sync that ended).
    fn refresh_beat(&mut self, pid: i64, beat_at: i64) -> Result<(), StoreError>;

    /// Keeps `dictionary` (a zstd dictionary, by its own id) as the one new bodies are packed
    /// with; the bodies packed with earlier ones stay readable.
    fn add_body_dictionary(&mut self, dictionary: &[u8], now: i64) -> Result<(), StoreError>;

    /// Whether the bodies it is given may name their contracts
    /// ([`crate::model::index::pack::pack_body_naming_contracts`]): its writer gives them
    /// their contracts' term ids, its readers put the contracts back (SQLite's, schema 15).
    fn names_contracts(&self) -> bool {
        false
    }

    /// Removes every update recorded before `before` (µs) with its keys; chunks that end
    /// before it go, the others start after the newest update removed. Returns how many
    /// updates were removed.
    fn prune(&mut self, before: i64) -> Result<u64, StoreError>;

    /// Gives back the room that prunes and page splits left: SQLite's file is written again
    /// with its pages full and in order (`VACUUM`), so it shrinks; PostgreSQL's indexes are
    /// built again (`REINDEX`, beside the old ones when the server can) and its tables
    /// vacuumed. The updates, keys and answers stay the same. Once `stop` is set (Ctrl-C) it
    /// stops as soon as it can: [`StoreError::Interrupted`], what was not done left as it was.
    fn compact(&mut self, stop: &Arc<AtomicBool>) -> Result<Compacted, StoreError>;
}
