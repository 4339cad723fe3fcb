//! The per-round summary of the kept events (schema 8, issue 37 §2): what `index rounds` reads
//! instead of every update's events. The same on both engines but for the SQL parameter mark
//! and the names of `min`/`max` of two values, so the statements are written once here.
//!
//! ```text
//! rounds          round_number, updates (verdicts of the round), traffic_cost, records,
//!                 weight (app activity), first_time, last_time (µs)
//! round_parties   (round_number, party): weight, records: each provider's part
//! rounds_counted  seq: the updates already counted, so a page's events written again (a
//!                 walk resumed, `--events` over a range) are never counted twice
//! ```
//!
//! `index prune` keeps the sums (they are what a kept copy is for) and removes the marks of
//! the updates it removes; meta [`PRUNED_KEY`] keeps the newest time it cut counted updates
//! at. An update recorded before that time is never counted again (the range synced again
//! after a prune adds nothing: its figures are kept already), and a round whose first counted
//! update is before it says its records were pruned ([`RoundSummary::records_pruned`]).
//!
//! A page's sums are added before its events are written ([`IndexWriter::add_rounds`]), in
//! one transaction with the marks: a walk killed between the two walks the page again and its
//! marked updates add nothing. An index migrated to schema 8 with events already kept (meta
//! `rounds_summary` not set) gets its summary from them at the next events walk
//! ([`IndexWriter::build_rounds`]).
//!
//! [`IndexWriter::add_rounds`]: super::IndexWriter::add_rounds
//! [`IndexWriter::build_rounds`]: super::IndexWriter::build_rounds
//! [`RoundSummary::records_pruned`]: crate::model::index::rounds::RoundSummary::records_pruned

/// The meta key set once the summary covers every kept event.
pub const BUILT_KEY: &str = "rounds_summary";

/// The meta key of the newest time (µs) `index prune` removed counted updates before.
pub const PRUNED_KEY: &str = "rounds_pruned_before";

/// The value of meta [`PRUNED_KEY`] as read (`None`: not set, or not a time).
pub fn cut_of(value: Option<String>) -> Option<i64> {
    value.and_then(|v| v.parse().ok())
}

/// Whether an update recorded at `time` (µs) is counted: not when before the cut of a prune.
pub(super) fn counts(cut: Option<i64>, time: i64) -> bool {
    cut.is_none_or(|c| time >= c)
}

/// An engine's spelling: its parameter mark and its `min` / `max` of two values.
#[derive(Clone, Copy)]
pub(super) struct Dialect {
    pub mark: char,
    pub least: &'static str,
    pub greatest: &'static str,
}

pub(super) const SQLITE: Dialect = Dialect {
    mark: '?',
    least: "min",
    greatest: "max",
};

pub(super) const POSTGRES: Dialect = Dialect {
    mark: '$',
    least: "LEAST",
    greatest: "GREATEST",
};

impl Dialect {
    fn p(self, n: usize) -> String {
        format!("{}{n}", self.mark)
    }

    /// An update's seq and record time by its id.
    pub fn seq_of(self) -> String {
        format!(
            "SELECT seq, record_time FROM updates WHERE update_id = {}",
            self.p(1)
        )
    }

    /// Marks an update counted; changes no row when it was.
    pub fn mark(self) -> String {
        format!(
            "INSERT INTO rounds_counted (seq) VALUES ({}) ON CONFLICT DO NOTHING",
            self.p(1)
        )
    }

    /// Adds one round's sums (round, updates, traffic cost, records, weight, first, last).
    pub fn add_round(self) -> String {
        let (l, g) = (self.least, self.greatest);
        format!(
            "INSERT INTO rounds (round_number, updates, traffic_cost, records, weight, first_time, last_time)
             VALUES ({}, {}, {}, {}, {}, {}, {})
             ON CONFLICT (round_number) DO UPDATE SET
                updates = rounds.updates + excluded.updates,
                traffic_cost = rounds.traffic_cost + excluded.traffic_cost,
                records = rounds.records + excluded.records,
                weight = rounds.weight + excluded.weight,
                first_time = {l}(COALESCE(rounds.first_time, excluded.first_time), COALESCE(excluded.first_time, rounds.first_time)),
                last_time = {g}(COALESCE(rounds.last_time, excluded.last_time), COALESCE(excluded.last_time, rounds.last_time))",
            self.p(1),
            self.p(2),
            self.p(3),
            self.p(4),
            self.p(5),
            self.p(6),
            self.p(7)
        )
    }

    /// Adds one provider's part of a round (round, party, weight, records).
    pub fn add_party(self) -> String {
        format!(
            "INSERT INTO round_parties (round_number, party, weight, records) VALUES ({}, {}, {}, {})
             ON CONFLICT (round_number, party) DO UPDATE SET
                weight = round_parties.weight + excluded.weight,
                records = round_parties.records + excluded.records",
            self.p(1),
            self.p(2),
            self.p(3),
            self.p(4)
        )
    }

    /// The rounds from `p1` to `p2` (inclusive), in order.
    pub fn read_rounds(self) -> String {
        format!(
            "SELECT round_number, updates, traffic_cost, records, weight, first_time, last_time
             FROM rounds WHERE round_number BETWEEN {} AND {} ORDER BY round_number",
            self.p(1),
            self.p(2)
        )
    }

    /// The providers' parts of the rounds from `p1` to `p2`; with `party`, of `p3` only.
    pub fn read_parties(self, party: bool) -> String {
        let only = if party {
            format!(" AND party = {}", self.p(3))
        } else {
            String::new()
        };
        format!(
            "SELECT round_number, party, weight, records FROM round_parties
             WHERE round_number BETWEEN {} AND {}{only}",
            self.p(1),
            self.p(2)
        )
    }

    /// Removes the marks of the updates recorded before `p1` (a prune removes them: a seq may
    /// be given again); the number removed.
    pub fn unmark_before(self) -> String {
        format!(
            "DELETE FROM rounds_counted WHERE seq IN (SELECT seq FROM updates WHERE record_time < {})",
            self.p(1)
        )
    }

    /// Reads meta `p1`.
    pub fn meta_value(self) -> String {
        format!("SELECT value FROM meta WHERE key = {}", self.p(1))
    }

    /// Sets meta `p1` to `p2`.
    pub fn set_meta(self) -> String {
        format!(
            "INSERT INTO meta (key, value) VALUES ({}, {}) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            self.p(1),
            self.p(2)
        )
    }

    /// At most `p2` kept events (seq, update id) after seq `p1` not counted yet, in seq order.
    pub fn uncounted(self) -> String {
        format!(
            "SELECT e.seq, u.update_id FROM events e JOIN updates u ON u.seq = e.seq
             WHERE e.seq > {} AND NOT EXISTS (SELECT 1 FROM rounds_counted c WHERE c.seq = e.seq)
             ORDER BY e.seq LIMIT {}",
            self.p(1),
            self.p(2)
        )
    }
}

/// The rounds of the summary the reader asked for, with their providers: `rounds` rows in
/// order, `parties` as read; with `party`, only the rounds it has records in; those whose
/// first counted update is before `cut` (meta [`PRUNED_KEY`]) marked as having their records
/// pruned.
pub(super) fn summaries(
    rounds: Vec<(i64, crate::model::index::rounds::RoundSums)>,
    parties: crate::model::index::rounds::RoundProviders,
    party: bool,
    cut: Option<i64>,
) -> Vec<crate::model::index::rounds::RoundSummary> {
    let rounds = if party {
        rounds
            .into_iter()
            .filter(|(r, _)| parties.has(*r))
            .collect()
    } else {
        rounds
    };
    let mut summaries = crate::model::index::rounds::RoundSummary::assemble(rounds, parties);
    for s in &mut summaries {
        s.records_pruned = s.sums.first_time.is_some_and(|t| !counts(cut, t));
    }
    summaries
}

/// The rows of the summary an engine reads: the rounds (number, sums) in order and the
/// providers' parts, each added as it is read (round, party, weight, records).
pub(super) type SummaryRows = (
    Vec<(i64, crate::model::index::rounds::RoundSums)>,
    crate::model::index::rounds::RoundProviders,
);

/// The summary's reads every engine answers with its own `read_rounds(from, until, party)`
/// ([`SummaryRows`]): the [`super::IndexReader::rounds`] method, written once for both engines.
macro_rules! engine_round_reads {
    () => {
        fn rounds(
            &mut self,
            from: Option<i64>,
            until: Option<i64>,
            party: Option<&str>,
        ) -> Result<Vec<$crate::model::index::rounds::RoundSummary>, StoreError> {
            let (rounds, parties) =
                self.read_rounds(from.unwrap_or(i64::MIN), until.unwrap_or(i64::MAX), party)?;
            let cut = $crate::store::rounds::cut_of($crate::store::IndexReader::meta_get(
                self,
                $crate::store::rounds::PRUNED_KEY,
            )?);
            Ok($crate::store::rounds::summaries(
                rounds,
                parties,
                party.is_some(),
                cut,
            ))
        }
    };
}

/// The summary's writes every engine answers with its own `write_rounds(rows)` and
/// `read_uncounted(after, limit)`: the [`super::IndexWriter`] methods, written once.
macro_rules! engine_round_writes {
    () => {
        fn count_rounds(
            &mut self,
            rows: &[(String, $crate::model::index::rounds::Contribution)],
        ) -> Result<u64, StoreError> {
            self.write_rounds(rows)
        }

        fn uncounted_events(
            &mut self,
            after: i64,
            limit: usize,
        ) -> Result<Vec<(i64, String)>, StoreError> {
            self.read_uncounted(after, i64::try_from(limit).unwrap_or(i64::MAX))
        }
    };
}

pub(super) use {engine_round_reads, engine_round_writes};

/// The records each of `parties` has kept in round `round` (a party without any is left
/// out), read one party at a time from the summary: what a round's reward tree's providers
/// are checked against (`model::reward_tree::judge_leaves`).
pub fn kept_records(
    store: &mut dyn super::IndexReader,
    round: i64,
    parties: &[String],
) -> Result<std::collections::BTreeMap<String, i64>, super::StoreError> {
    let mut kept = std::collections::BTreeMap::new();
    for party in parties {
        let rounds = store.rounds(Some(round), Some(round), Some(party))?;
        let records: i64 = rounds
            .iter()
            .flat_map(|r| &r.top_providers)
            .filter(|p| p.party == *party)
            .map(|p| p.records)
            .sum();
        if records > 0 {
            kept.insert(party.clone(), records);
        }
    }
    Ok(kept)
}
