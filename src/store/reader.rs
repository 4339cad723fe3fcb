//! [`IndexReader`]: the typed reads of an index, on every engine.

use super::{
    At, Chunk, IndexStatus, KeptDigest, KeptEvents, KeptUpdate, KeptVerdictEvent, NetworkId,
    StoreError, rounds, stats, validators,
};
use crate::model::index::SearchRow;
use crate::model::index::query::Query;
use crate::model::index::read::{IndexReach, RangeFrom};

/// The typed reads of an index, on every engine. An index opened for reading
/// ([`open_reader`](super::open_reader)) is only this: it cannot write.
pub trait IndexReader: Send {
    /// How messages name the index (a path; a URL without its password).
    fn shown(&self) -> String;

    /// A value of the index's meta table (`None`: not set).
    fn meta_get(&mut self, key: &str) -> Result<Option<String>, StoreError>;

    /// The network the index belongs to (`None`: a new index).
    fn network(&mut self) -> Result<Option<NetworkId>, StoreError> {
        let Some(dso_party) = self.meta_get("dso_party")? else {
            return Ok(None);
        };
        Ok(Some(NetworkId {
            dso_party,
            synchronizer: self.meta_get("synchronizer")?.unwrap_or_default(),
        }))
    }

    /// The last `index verify` of each range (see
    /// [`IndexWriter::record_verification`](super::IndexWriter::record_verification)).
    fn verifications(&mut self) -> Result<Vec<serde_json::Value>, StoreError> {
        Ok(self
            .meta_get("verifications")?
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default())
    }

    /// The chunks, oldest first.
    fn chunks(&mut self) -> Result<Vec<Chunk>, StoreError>;

    /// What `index status` shows.
    fn status(&mut self, now: i64) -> Result<IndexStatus, StoreError>;

    /// The updates matching `query` with a record time in `from..=until`, newest first, at
    /// most `limit`.
    fn search(
        &mut self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
        limit: usize,
    ) -> Result<Vec<SearchRow>, StoreError>;

    /// How many updates match.
    fn count(
        &mut self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
    ) -> Result<u64, StoreError>;

    /// An update's body as kept (`None`: not in the index, or kept without bodies).
    fn body(&mut self, update_id: &str) -> Result<Option<String>, StoreError>;

    /// An update's events as kept (`None`: the update is not in the index, or its events are
    /// not synced yet; [`KeptEvents::verdict`] `None`: the scans served none).
    fn kept_events(&mut self, update_id: &str) -> Result<Option<KeptEvents>, StoreError>;

    /// The kept events with a verdict and no update from `from` until `until` (record times,
    /// µs, inclusive; `None`: no bound), newest first.
    fn verdict_events(
        &mut self,
        from: Option<i64>,
        until: Option<i64>,
    ) -> Result<Vec<KeptVerdictEvent>, StoreError> {
        self.verdict_events_having(from, until, &super::VerdictHaving::default(), None)
    }

    /// [`Self::verdict_events`] of them that have what `having` says, the newest `limit`
    /// (`None`: all).
    fn verdict_events_having(
        &mut self,
        from: Option<i64>,
        until: Option<i64>,
        having: &super::VerdictHaving<'_>,
        limit: Option<usize>,
    ) -> Result<Vec<KeptVerdictEvent>, StoreError>;

    /// The kept events with a verdict and no update that `query` finds
    /// ([`Query::matches_verdict_only`]), newest first, at most `limit`, as search rows: kind
    /// `verdict only`, the verdict's result as the action, the submitting parties.
    fn search_verdict_events(
        &mut self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
        limit: usize,
    ) -> Result<Vec<SearchRow>, StoreError> {
        // None can match: none read.
        if !query.may_match_verdict_only() {
            return Ok(Vec::new());
        }
        let having = super::VerdictHaving::of(query);
        // When the statement tests the whole query, each row it reads is one found.
        let whole = having.term.is_some() && query.terms.len() == 1;
        Ok(self
            .verdict_events_having(from, until, &having, whole.then_some(limit))?
            .iter()
            .filter_map(|event| {
                let row = event.search_row();
                query
                    .matches_verdict_only(&crate::model::index::query::VerdictFacts {
                        update_id: &event.update_id,
                        result: event.verdict_result.as_deref(),
                        round: event.round_number,
                        mediator: event.mediator_group,
                        submitters: &row.parties,
                    })
                    .then_some(row)
            })
            .take(limit)
            .collect())
    }

    /// The newest body dictionary the index keeps (`None`: it has none yet): what a sync packs
    /// the bodies of a network migration with until it has trained that migration's own
    /// (`crate::model::index::pack::DICTIONARIES_KEY`).
    fn body_dictionary(&mut self) -> Result<Option<Vec<u8>>, StoreError>;

    /// The body dictionary of zstd id `id` the index keeps (`None`: it has none of that id).
    fn body_dictionary_of(&mut self, id: u32) -> Result<Option<Vec<u8>>, StoreError>;

    /// Every update id with its digest, in ledger order (tests, `index verify`).
    fn digests(&mut self) -> Result<Vec<(String, String)>, StoreError>;

    /// The updates kept after `after` (exclusive; `None`: from the beginning) up to `through`
    /// (inclusive), as (migration, record time µs), in ledger order with their digests: what
    /// `index verify` compares with the scans' pages.
    fn kept_digests(
        &mut self,
        after: Option<At>,
        through: At,
    ) -> Result<Vec<KeptDigest>, StoreError>;

    /// How far the index reaches (update count, oldest and newest record time) and the sync
    /// whose heartbeat is fresh at `now`: one short read transaction, cheap enough for a timer.
    fn reach(&mut self, now: i64) -> Result<IndexReach, StoreError>;

    /// At most `limit` updates after `after` (migration, record time µs; `None`: from the
    /// beginning) in ledger order, each with its body (`None` when kept without bodies): what
    /// `/v2/updates` answers, read from the index.
    fn page_after(
        &mut self,
        after: Option<At>,
        limit: usize,
    ) -> Result<Vec<KeptUpdate>, StoreError>;

    /// How many rows History's list read from the index holds from `since` up to `before`
    /// (µs; `None`: up to the newest): the updates and the events with a verdict and no update
    /// recorded in that time.
    fn range_count(&mut self, since: i64, before: Option<i64>) -> Result<u64, StoreError>;

    /// How many updates were recorded at or after `since` and before `before` (µs; `None`: up
    /// to the newest): [`Self::range_count`] without the events with a verdict and no update.
    fn update_count(&mut self, since: i64, before: Option<i64>) -> Result<u64, StoreError>;

    /// How many events with a verdict and no update were recorded at or after `since` and
    /// before `before` (µs; `None`: up to the newest): [`Self::range_count`] without the
    /// updates, read without counting them (a count of 10 M updates takes PostgreSQL about
    /// half a second).
    fn verdict_only_count(&mut self, since: i64, before: Option<i64>) -> Result<u64, StoreError>;

    /// The updates (and the events with a verdict and no update, as
    /// [`KeptVerdictEvent::history_row`] makes their rows) recorded at or after `since` in the list's order
    /// ([`RangeKey`](crate::model::index::read::RangeKey): record time, migration, update id), from where `from` says, at most `limit`, as summary rows
    /// in that order: one page of History's list read from the index.
    fn range_rows(
        &mut self,
        since: i64,
        from: &RangeFrom,
        limit: usize,
    ) -> Result<Vec<SearchRow>, StoreError>;

    /// The stamp of what the index keeps (the updates and events: how many, the newest seq):
    /// unchanged, nothing was written since ([`stats::refresh`]).
    fn stats_stamp(&mut self) -> Result<String, StoreError>;

    /// The updates kept per UTC day and those of them with their events, oldest day first.
    fn day_counts(&mut self) -> Result<Vec<stats::DayCount>, StoreError>;

    /// At most `limit` updates of UTC `day` after `after` (record time µs, seq), in that
    /// order, each with its seq and body: what a day's figures are counted from. A body read
    /// here may hold `#term<id>` for a contract id it names by its search term (SQLite's
    /// schema 15): a day's figures read no contract id, and looking each up doubled the read.
    fn stats_page(
        &mut self,
        day: i64,
        after: Option<(i64, i64)>,
        limit: usize,
    ) -> Result<Vec<(i64, KeptUpdate)>, StoreError>;

    /// The summary rows of the days `from..=until` (days since 1970-01-01, UTC), oldest first.
    fn stats_days(
        &mut self,
        from: i64,
        until: i64,
    ) -> Result<Vec<(i64, crate::model::index::stats::StatsRow)>, StoreError>;

    /// The distinct active parties and validators of the days `from..=until`.
    fn stats_distinct(&mut self, from: i64, until: i64) -> Result<(i64, i64), StoreError>;
    /// The rounds numbered `from..=until` (`None`: unbounded) as the per-round summary keeps
    /// them, in order, each with its heaviest providers; with `party`, only the rounds that
    /// provider has app activity in, and only its part ([`rounds`]).
    fn rounds(
        &mut self,
        from: Option<i64>,
        until: Option<i64>,
        party: Option<&str>,
    ) -> Result<Vec<crate::model::index::rounds::RoundSummary>, StoreError>;

    /// At most `limit` updates after seq `after`, in seq order, as (seq, record time µs, body;
    /// `None`: kept without): what [`validators`] counts, which reads no contract id (a body
    /// may hold `#term<id>` for one, as [`Self::stats_page`]'s).
    fn bodies_after(
        &mut self,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(i64, i64, Option<String>)>, StoreError>;

    /// The validators' table as kept, the seq it counts through and the newest round of the
    /// per-round summary ([`validators::read`] adds what was written since).
    fn kept_validators(&mut self) -> Result<validators::KeptValidators, StoreError>;

    /// Whether the per-round summary covers every kept event (an index migrated with events
    /// gets it at its next events walk:
    /// [`IndexWriter::build_rounds`](super::IndexWriter::build_rounds)).
    fn rounds_built(&mut self) -> Result<bool, StoreError> {
        Ok(self.meta_get(rounds::BUILT_KEY)?.as_deref() == Some("1"))
    }

    /// What opening the index did that the user should hear of (an older schema migrated),
    /// each once.
    fn notices(&mut self) -> Vec<String> {
        Vec::new()
    }
}
