//! What both engines' reads share: the [`super::IndexReader`] methods that only hand over to
//! each engine's own functions ([`engine_reads`]), and packed bodies made text again (the
//! dictionaries they were packed with, [`BodyDictionaries`]).

use std::collections::HashMap;

use super::{KeptDigest, KeptUpdate, SearchRow, StoreError};
use crate::model::index::read::RangeFrom;

/// The reads every engine answers with its own functions of the same names (`read_status`,
/// `search_rows`, `count_rows`, `read_body`, `read_kept_digests`, `read_digests`, `read_reach`,
/// `read_page_after`, `read_range_count`, `read_update_count`, `read_verdict_only_count`,
/// `read_range_rows`, `read_bodies_after`, `read_kept_validators`): the [`IndexReader`]
/// methods that only hand over, written once for both engines' `impl IndexReader`.
///
/// `mark` is the engine's SQL parameter mark, `bytewise` what makes update ids compare
/// bytewise, `updates_id` the updates' id as text and `updates_parties` what the updates' side
/// reads as their parties, for [`RangeRead::new`].
macro_rules! engine_reads {
    (
        mark: $mark:literal,
        bytewise: $bytewise:literal,
        updates_id: $updates_id:expr,
        updates_parties: $updates_parties:literal
    ) => {
        fn status(&mut self, now: i64) -> Result<$crate::store::IndexStatus, StoreError> {
            self.read_status(now)
        }

        fn search(
            &mut self,
            query: &$crate::model::index::query::Query,
            from: Option<i64>,
            until: Option<i64>,
            limit: usize,
        ) -> Result<Vec<$crate::model::index::SearchRow>, StoreError> {
            self.search_rows(query, from, until, limit)
        }

        fn count(
            &mut self,
            query: &$crate::model::index::query::Query,
            from: Option<i64>,
            until: Option<i64>,
        ) -> Result<u64, StoreError> {
            self.count_rows(query, from, until)
        }

        fn body(&mut self, update_id: &str) -> Result<Option<String>, StoreError> {
            self.read_body(update_id)
        }

        fn kept_events(
            &mut self,
            update_id: &str,
        ) -> Result<Option<$crate::store::KeptEvents>, StoreError> {
            self.read_kept_events(update_id)
        }

        fn verdict_events_having(
            &mut self,
            from: Option<i64>,
            until: Option<i64>,
            having: &$crate::store::VerdictHaving<'_>,
            limit: Option<usize>,
        ) -> Result<Vec<$crate::store::KeptVerdictEvent>, StoreError> {
            self.read_verdict_events(
                (from.unwrap_or(i64::MIN), until.unwrap_or(i64::MAX)),
                having,
                limit,
            )
        }

        fn kept_digests(
            &mut self,
            after: Option<$crate::store::At>,
            through: $crate::store::At,
        ) -> Result<Vec<$crate::store::KeptDigest>, StoreError> {
            // No bound: from the beginning of the index.
            let after = after.unwrap_or($crate::store::At::BEGIN).pair();
            let rows = self.read_kept_digests(after, through.pair())?;
            Ok($crate::store::reads::kept_digests(rows))
        }

        fn digests(&mut self) -> Result<Vec<(String, String)>, StoreError> {
            self.read_digests()
        }

        fn reach(
            &mut self,
            now: i64,
        ) -> Result<$crate::model::index::read::IndexReach, StoreError> {
            self.read_reach(now)
        }

        fn page_after(
            &mut self,
            after: Option<$crate::store::At>,
            limit: usize,
        ) -> Result<Vec<$crate::store::KeptUpdate>, StoreError> {
            self.read_page_after(after, limit)
        }

        fn range_count(&mut self, since: i64, before: Option<i64>) -> Result<u64, StoreError> {
            // No bound: to the newest update.
            let n = self.read_range_count(since, before.unwrap_or(i64::MAX))?;
            Ok(u64::try_from(n).unwrap_or(0))
        }

        fn update_count(&mut self, since: i64, before: Option<i64>) -> Result<u64, StoreError> {
            let n = self.read_update_count(since, before.unwrap_or(i64::MAX))?;
            Ok(u64::try_from(n).unwrap_or(0))
        }

        fn verdict_only_count(
            &mut self,
            since: i64,
            before: Option<i64>,
        ) -> Result<u64, StoreError> {
            let n = self.read_verdict_only_count(since, before.unwrap_or(i64::MAX))?;
            Ok(u64::try_from(n).unwrap_or(0))
        }

        fn range_rows(
            &mut self,
            since: i64,
            from: &$crate::model::index::read::RangeFrom,
            limit: usize,
        ) -> Result<Vec<$crate::model::index::SearchRow>, StoreError> {
            let read = $crate::store::reads::RangeRead::new(
                since,
                from,
                limit,
                $mark,
                $bytewise,
                ($updates_id, $updates_parties),
                $mark == '$',
            );
            let mut rows = self.read_range_rows(&read)?;
            if read.backwards {
                rows.reverse();
            }
            Ok(rows)
        }

        fn bodies_after(
            &mut self,
            after: i64,
            limit: usize,
        ) -> Result<Vec<(i64, i64, Option<String>)>, StoreError> {
            self.read_bodies_after(after, limit)
        }

        fn kept_validators(
            &mut self,
        ) -> Result<$crate::store::validators::KeptValidators, StoreError> {
            self.read_kept_validators()
        }
    };
}
pub(super) use engine_reads;

/// A page of History's list read from the index ([`super::IndexReader::range_rows`]) as both
/// engines read it: the same SQL but for the engine's parameter mark (and PostgreSQL's order
/// and limit on each side), and its parameters. The
/// list holds the updates and the events with a verdict and no update (`verdict_events`), one
/// order over both ([`RANGE_COLUMNS`], mapped by [`range_row`]).
pub(super) struct RangeRead<'a> {
    /// Parameters: 1 `since`, 2 `limit`, then 3 to 5 the bound's record time, migration and
    /// update id ([`RangeBound::Key`]), or 3 the rows left out ([`RangeBound::Offset`]), or 3
    /// the time the rows end before and 4 the rows left out at the end
    /// ([`RangeBound::FromEnd`]).
    pub sql: String,
    pub since: i64,
    pub limit: i64,
    pub bound: RangeBound<'a>,
    /// The rows are read newest first (the page before a key), answered in the list's order.
    pub backwards: bool,
}

/// Where a [`RangeRead`] starts: after or before a row (record time, migration, update id), or
/// leaving out the first rows.
pub(super) enum RangeBound<'a> {
    Key(i64, i64, &'a str),
    Offset(i64),
    /// Before this time (µs), leaving out this many rows from the end.
    FromEnd(i64, i64),
}

/// What a [`RangeRead`] reads of each row, by position: update id, migration, record time,
/// kind, root action (of a verdict-only event: the verdict's result), parties (JSON; of a
/// verdict-only event: the verdict), round and mediator group (of a verdict-only event).
pub(super) type RangeColumns = (
    String,
    i64,
    i64,
    String,
    String,
    Option<String>,
    Option<i64>,
    Option<i64>,
);

/// A row of a [`RangeRead`] as History lists it: an update's summary row, or an event with a
/// verdict and no update as [`super::KeptVerdictEvent::history_row`] makes it.
pub(super) fn range_row(
    (update_id, migration_id, record_time, kind, root_action, parties, round, group): RangeColumns,
) -> SearchRow {
    if kind == super::VERDICT_ONLY_KIND {
        return super::KeptVerdictEvent {
            update_id,
            at: super::At::new(migration_id, record_time),
            verdict_result: Some(root_action).filter(|r| !r.is_empty()),
            round_number: round,
            mediator_group: group,
            verdict: parties,
        }
        .history_row();
    }
    SearchRow {
        record_time: crate::model::format::format_time_micros(record_time),
        update_id,
        migration_id,
        kind,
        root_action,
        parties: parties
            .and_then(|p| serde_json::from_str(&p).ok())
            .unwrap_or_default(),
    }
}

/// The SQL of [`super::IndexReader::update_count`] with the engine's parameter `mark`
/// (parameters 1 and 2: from, before, µs).
pub(super) fn update_count_sql(mark: char) -> String {
    format!("SELECT count(*) FROM updates WHERE record_time >= {mark}1 AND record_time < {mark}2")
}

/// The SQL of [`super::IndexReader::verdict_only_count`] with the engine's parameter `mark`
/// (parameters 1 and 2: from, before, µs).
pub(super) fn verdict_only_count_sql(mark: char) -> String {
    format!(
        "SELECT count(*) FROM verdict_events WHERE record_time >= {mark}1 AND record_time < {mark}2"
    )
}

/// The SQL of [`super::IndexReader::range_count`] with the engine's parameter `mark`
/// (parameters 1 and 2: from, before, µs): the updates and the events with a verdict and no
/// update.
pub(super) fn range_count_sql(mark: char) -> String {
    let m = mark;
    format!(
        "SELECT (SELECT count(*) FROM updates WHERE record_time >= {m}1 AND record_time < {m}2)
              + (SELECT count(*) FROM verdict_events
                 WHERE record_time >= {m}1 AND record_time < {m}2)"
    )
}

/// Where [`RangeRead`]'s SQL reads the updates' side, up to its conditions (SQLite's reads
/// put the updates' sets there: its `read_range_rows`).
pub(super) const RANGE_UPDATES: &str = "FROM updates WHERE";

impl<'a> RangeRead<'a> {
    /// The read of the rows at or after `since` from `from`, `limit` of them: the updates and
    /// the events with a verdict and no update, merged in one order (record time, migration,
    /// update id), each side read in that order from its time index. `mark` is the engine's
    /// parameter mark (`$` or `?`); `bytewise` makes update ids compare bytewise (in
    /// PostgreSQL `COLLATE "C"`; nothing in SQLite, whose BINARY collation is), so both engines
    /// order ties alike whatever the database's collation. `updates_id` is the updates' id as
    /// text (SQLite keeps most as bytes: `update_ids::TEXT`), compared as the events' ids are.
    /// `updates_parties` is what the updates' side reads as its parties' column (PostgreSQL:
    /// their JSON; SQLite: the number of their party set, which its reader names).
    /// `each_side_ordered` gives each side its own order and limit inside the merge (what
    /// PostgreSQL needs to read them from their time indexes; SQLite does without).
    pub(super) fn new(
        since: i64,
        from: &'a RangeFrom,
        limit: usize,
        mark: char,
        bytewise: &str,
        (updates_id, updates_parties): (&str, &str),
        each_side_ordered: bool,
    ) -> RangeRead<'a> {
        let m = mark;
        let id = format!("update_id{bytewise}");
        let updates_id = format!("({updates_id}){bytewise}");
        // The update id selected with the collation it is compared with: the merged order
        // (`ORDER BY 3, 2, 1`) sorts ties by it alike on both sides.
        let updates = format!(
            "SELECT {updates_id} AS update_id, migration_id, record_time, kind, root_action,
                    {updates_parties} AS parties,
                    CAST(NULL AS BIGINT) AS round_number, CAST(NULL AS BIGINT) AS mediator_group"
        );
        let verdicts = format!(
            "SELECT {id} AS update_id, migration_id, record_time, '{}' AS kind,
                    COALESCE(verdict_result, '') AS root_action, verdict AS parties,
                    round_number, mediator_group
             FROM verdict_events",
            super::VERDICT_ONLY_KIND
        );
        // The bound on each side, whether the list is read backwards, and how far past the
        // first row each side may have to read (the page, and the rows an OFFSET leaves out).
        let (bound, backwards, skipped) = match from {
            RangeFrom::After(_) => (
                format!(
                    "AND record_time >= {m}3
                     AND (record_time > {m}3 OR migration_id > {m}4
                          OR (migration_id = {m}4 AND @ID@ > {m}5))"
                ),
                false,
                None,
            ),
            RangeFrom::Before(_) => (
                format!(
                    "AND record_time <= {m}3
                     AND (record_time < {m}3 OR migration_id < {m}4
                          OR (migration_id = {m}4 AND @ID@ < {m}5))"
                ),
                true,
                None,
            ),
            RangeFrom::Offset(_) => (String::new(), false, Some(3)),
            RangeFrom::FromEnd { .. } => (format!("AND record_time < {m}3"), true, Some(4)),
        };
        let order = if backwards {
            "ORDER BY 3 DESC, 2 DESC, 1 DESC"
        } else {
            "ORDER BY 3, 2, 1"
        };
        let (page, side_limit) = match skipped {
            Some(n) => (
                format!("{order} LIMIT {m}2 OFFSET {m}{n}"),
                // Typed: PostgreSQL infers no type for the sum of two parameters.
                format!("LIMIT CAST({m}2 AS BIGINT) + CAST({m}{n} AS BIGINT)"),
            ),
            None => (format!("{order} LIMIT {m}2"), format!("LIMIT {m}2")),
        };
        // Each side compares its own id with the bound's.
        let updates_side = format!(
            "{updates} {RANGE_UPDATES} record_time >= {m}1 {}",
            bound.replace("@ID@", &updates_id)
        );
        let verdicts_side = format!(
            "{verdicts} WHERE record_time >= {m}1 {}",
            bound.replace("@ID@", &id)
        );
        let sql = if each_side_ordered {
            // PostgreSQL plans the merged order alone as a scan and a sort of every row after
            // `since` (2.2 s for the first page over 10 M updates); given each side's own order
            // and limit, it reads each from its time index with an incremental sort and merges
            // the two (0.4 ms).
            format!(
                "SELECT * FROM ({updates_side} {order} {side_limit}) AS u
                 UNION ALL
                 SELECT * FROM ({verdicts_side} {order} {side_limit}) AS v
                 {page}"
            )
        } else {
            format!(
                "{updates_side}
                 UNION ALL
                 {verdicts_side}
                 {page}"
            )
        };
        let bound = match from {
            RangeFrom::After(k) | RangeFrom::Before(k) => {
                RangeBound::Key(k.record_time, k.migration_id, &k.update_id)
            }
            RangeFrom::Offset(offset) => {
                RangeBound::Offset(i64::try_from(*offset).unwrap_or(i64::MAX))
            }
            RangeFrom::FromEnd { before, skip } => {
                RangeBound::FromEnd(*before, i64::try_from(*skip).unwrap_or(i64::MAX))
            }
        };
        RangeRead {
            sql,
            since,
            limit: i64::try_from(limit).unwrap_or(i64::MAX),
            bound,
            backwards,
        }
    }
}

/// The zstd id of a body dictionary an index at `path` is asked to keep (an error when the bytes
/// are not a zstd dictionary).
pub(super) fn dictionary_id_of(path: String, dictionary: &[u8]) -> Result<i64, StoreError> {
    crate::model::index::pack::dictionary_id(dictionary)
        .map(i64::from)
        .ok_or_else(|| StoreError::Engine {
            path,
            detail: "a body dictionary that is not a zstd dictionary".to_owned(),
        })
}

/// The dictionaries an index's bodies were packed with (`crate::model::index::pack`), by zstd
/// dictionary id, loaded the first time a body names one not loaded yet; and one zstd context
/// that unpacks every body (making a context a body, with its tables, had been a tenth of a
/// sync's CPU: each page's bodies are read back for the validators' table).
#[derive(Default)]
pub(super) struct BodyDictionaries(
    HashMap<u32, zstd::dict::DecoderDictionary<'static>>,
    Option<zstd::zstd_safe::DCtx<'static>>,
);

/// The largest body unpacked in one call (by the size its frame names); a larger or unnamed
/// size is read as a stream.
const ONE_CALL_MAX: u64 = 64 << 20;

impl BodyDictionaries {
    /// Whether `packed` names a dictionary not loaded (the caller loads them: [`Self::load`]).
    pub(super) fn wants(&self, packed: &[u8]) -> bool {
        crate::model::index::pack::body_dictionary_id(packed)
            .is_some_and(|id| !self.0.contains_key(&id))
    }

    /// Keeps the index's dictionaries (id, bytes) for [`Self::unpack`]; one zstd cannot load
    /// is left out (a body naming it is then reported as corrupt, never a panic).
    pub(super) fn load(&mut self, dictionaries: Vec<(i64, Vec<u8>)>) {
        for (id, bytes) in dictionaries {
            if let Ok(id) = u32::try_from(id)
                && !self.0.contains_key(&id)
                && let Ok(dictionary) = zstd::dict::DecoderDictionary::try_copy(&bytes)
            {
                self.0.insert(id, dictionary);
            }
        }
    }

    /// An update's body as kept made text again; `shown` names the index in the error.
    pub(super) fn unpack(
        &mut self,
        shown: &str,
        update_id: &str,
        packed: &[u8],
    ) -> Result<String, StoreError> {
        let corrupt = |detail: String| StoreError::Corrupt {
            path: shown.to_owned(),
            detail,
        };
        let id = crate::model::index::pack::body_dictionary_id(packed);
        let size = zstd::zstd_safe::get_frame_content_size(packed)
            .ok()
            .flatten()
            .filter(|s| *s <= ONE_CALL_MAX)
            .and_then(|s| usize::try_from(s).ok());
        let dictionary = id.and_then(|id| self.0.get(&id));
        if let Some(size) = size
            && (id.is_none() || dictionary.is_some())
        {
            let dctx = self.1.get_or_insert_with(zstd::zstd_safe::DCtx::create);
            let mut bytes: Vec<u8> = Vec::with_capacity(size);
            let done = match dictionary {
                None => dctx.decompress(&mut bytes, packed),
                Some(d) => dctx.decompress_using_ddict(&mut bytes, packed, d.as_ddict()),
            };
            if done.is_ok() {
                return String::from_utf8(bytes)
                    .map_err(|e| corrupt(format!("the body of {update_id} is not UTF-8: {e}")));
            }
            // Not what its frame says (damaged): read as a stream, which tells why.
        }
        let mut bytes = Vec::new();
        let read = match id {
            None => zstd::stream::read::Decoder::new(packed)
                .and_then(|mut d| std::io::Read::read_to_end(&mut d, &mut bytes)),
            Some(id) => {
                let dictionary = self.0.get(&id).ok_or_else(|| {
                    corrupt(format!(
                        "the body of {update_id} was packed with dictionary {id}, which the index does not have (or is damaged)"
                    ))
                })?;
                zstd::stream::read::Decoder::with_prepared_dictionary(
                    std::io::BufReader::new(packed),
                    dictionary,
                )
                .and_then(|mut d| std::io::Read::read_to_end(&mut d, &mut bytes))
            }
        };
        read.map_err(|e| corrupt(format!("the body of {update_id} does not decompress: {e}")))?;
        String::from_utf8(bytes)
            .map_err(|e| corrupt(format!("the body of {update_id} is not UTF-8: {e}")))
    }
}

/// An update as [`super::IndexReader::kept_digests`] reads it: update id, migration, µs,
/// digest.
pub(super) type DigestRow = (String, i64, i64, Vec<u8>);

/// The updates of [`super::IndexReader::kept_digests`] as read, their digests in hex.
pub(super) fn kept_digests(rows: Vec<DigestRow>) -> Vec<KeptDigest> {
    rows.into_iter()
        .map(
            |(update_id, migration_id, record_time, digest)| KeptDigest {
                update_id,
                migration_id,
                record_time,
                digest: hex::encode(digest),
            },
        )
        .collect()
}

/// The updates of [`super::IndexReader::page_after`] as read (update id, migration, µs, packed body),
/// their bodies unpacked with `unpack`.
pub(super) fn kept_updates(
    rows: Vec<(String, i64, i64, Option<Vec<u8>>)>,
    mut unpack: impl FnMut(&str, &[u8]) -> Result<String, StoreError>,
) -> Result<Vec<KeptUpdate>, StoreError> {
    rows.into_iter()
        .map(|(update_id, migration_id, record_time, body)| {
            let body = body.map(|packed| unpack(&update_id, &packed)).transpose()?;
            Ok(KeptUpdate {
                update_id,
                migration_id,
                record_time,
                body,
            })
        })
        .collect()
}

/// The SQL of [`super::IndexReader::verdict_events_having`] with the engine's parameter
/// `mark`: parameters 1 and 2 the first and last record time (µs), then the value of the
/// events term's column when there is one, then the text the verdict mentions when there is
/// one (tested by the engine's `contains(text, part)`); at most `limit` rows. `time` is the
/// record time as the range tests it: SQLite's `+record_time`, so that its planner reads the
/// events in the list's order from their position's index (testing their times there), where
/// by the time's index it sorted every one of them in a temporary B-tree (read to count
/// `party:` at 1 M: 13.6 MB of verdicts sorted, spilled to a file).
pub(super) fn verdict_events_sql(
    (mark, time, contains): (char, &str, fn(&str, &str) -> String),
    having: &super::VerdictHaving<'_>,
    limit: Option<usize>,
) -> String {
    let mut n = 2;
    let mut next = || {
        n += 1;
        format!("{mark}{n}")
    };
    let mut tests = String::new();
    if let Some(term) = having.term {
        tests.push_str(&format!(" AND {} = {}", term.column().0, next()));
    }
    if having.mentions.is_some() {
        tests.push_str(&format!(" AND {}", contains("verdict", &next())));
    }
    // No limit past what the engines count in (a count asks for every row).
    let limit = limit
        .and_then(|n| i64::try_from(n).ok())
        .map_or(String::new(), |n| format!(" LIMIT {n}"));
    format!(
        "SELECT {} FROM verdict_events WHERE {time} >= {mark}1 AND {time} <= {mark}2{tests}
         ORDER BY migration_id DESC, record_time DESC{limit}",
        super::VERDICT_EVENT_COLUMNS
    )
}

/// The SQL that reads an event with a verdict and no update as [`super::KeptEvents`], with
/// the engine's parameter `mark` (parameter 1 its update id).
pub(super) fn kept_verdict_event_sql(mark: char) -> String {
    format!(
        "SELECT {} FROM verdict_events WHERE update_id = {mark}1",
        super::KEPT_VERDICT_EVENT_COLUMNS
    )
}
