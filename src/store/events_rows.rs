//! An update's events as the index keeps them: the rows a sync writes ([`EventsRow`]) and reads
//! back ([`KeptEvents`]), and the verdict-only events ([`VerdictEvent`], [`KeptVerdictEvent`]).

use serde::Serialize;

use super::At;
use crate::model::format::format_time_micros;
use crate::model::index::SearchRow;

/// One update's events parts as the scans agreed on them, to keep
/// ([`IndexWriter::write_events`](super::IndexWriter::write_events); made by [`EventsRow::of`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventsRow {
    pub update_id: String,
    /// A bit per part served: 1 verdict, 2 traffic summary, 4 app activity records.
    pub served: i64,
    pub verdict: Option<String>,
    pub traffic_summary: Option<String>,
    pub app_activity_records: Option<String>,
    pub round_number: Option<i64>,
    /// `accepted`, `rejected` or `unspecified`; `None` without a verdict.
    pub verdict_result: Option<String>,
    pub mediator_group: Option<i64>,
    pub digest: Vec<u8>,
    /// The confirming scans, comma-separated.
    pub scans: String,
}

/// An event with a verdict and no update (`update: null` on `/v0/events`: a confirmation
/// request the mediator rejected, which commits no transaction, or a wholly private
/// transaction), kept as a record of its own at its verdict's place
/// ([`IndexWriter::write_verdict_events`](super::IndexWriter::write_verdict_events)): its parts as
/// an update's events are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerdictEvent {
    pub at: At,
    pub row: EventsRow,
}

/// A kept event with a verdict and no update, as searches and History list it
/// ([`IndexReader::verdict_events`](super::IndexReader::verdict_events)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptVerdictEvent {
    pub update_id: String,
    pub at: At,
    /// `accepted`, `rejected` or `unspecified`.
    pub verdict_result: Option<String>,
    pub round_number: Option<i64>,
    pub mediator_group: Option<i64>,
    /// The verdict as kept (JSON text).
    pub verdict: Option<String>,
}

/// The meta key an index migrated from schema 7 gets (value [`VERDICT_EVENTS_PENDING`]): its
/// updates have their events, but the events with a verdict and no update between them were
/// not kept; the next events walk goes over the whole index once for them.
pub const VERDICT_EVENTS_BACKFILL: &str = "verdict_events_backfill";
/// The value of [`VERDICT_EVENTS_BACKFILL`] until that walk ends.
pub const VERDICT_EVENTS_PENDING: &str = "pending";

pub use crate::model::index::VERDICT_ONLY_KIND;

impl KeptVerdictEvent {
    /// As a search (and History) lists it: kind [`VERDICT_ONLY_KIND`], the verdict's result
    /// as its action, the parties that submitted it.
    pub fn search_row(&self) -> SearchRow {
        let parties = self.verdict.as_deref().map(submitters).unwrap_or_default();
        SearchRow {
            record_time: format_time_micros(self.at.record_time),
            update_id: self.update_id.clone(),
            migration_id: self.at.migration_id,
            kind: VERDICT_ONLY_KIND.to_owned(),
            root_action: self
                .verdict_result
                .clone()
                .unwrap_or_else(|| "none served".to_owned()),
            parties,
        }
    }
}

/// What the statement over the events with a verdict and no update tests of a query before
/// its rows are read ([`super::IndexReader::verdict_events_having`]); each row read is then
/// tested on the whole query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerdictHaving<'a> {
    /// A verdict, round or mediator group term: its column equal to its value.
    pub term: Option<&'a crate::model::index::query::EventsTerm>,
    /// A party term's text as it stands in the verdict's JSON (a `"` and the party, or its
    /// hint): the verdict's text contains it, which every verdict a party submitted does (the
    /// verdict's own parties, informees among them, match too; the test on its submitters
    /// then decides). So a `party:` search reads the verdicts that name it, not every one.
    pub mentions: Option<String>,
}

impl<'a> VerdictHaving<'a> {
    /// The first events term of `query`, and its first party term.
    pub fn of(query: &'a crate::model::index::query::Query) -> Self {
        use crate::model::index::KeyKind;
        use crate::model::index::query::Term;
        let term = query.terms.iter().find_map(|t| match t {
            Term::Events(e) => Some(e),
            _ => None,
        });
        let mentions = query.terms.iter().find_map(|t| match t {
            Term::Exact(KeyKind::Party, party) => mention(party),
            Term::PartyHint(hint) => mention(hint),
            _ => None,
        });
        VerdictHaving { term, mentions }
    }
}

/// `"` and `party` as a verdict's JSON writes it, when no JSON writer would escape it: a party
/// id's characters are letters, digits, `-`, `_`, `:` and spaces (a text with others is not
/// looked for, every verdict read and tested as before).
fn mention(party: &str) -> Option<String> {
    party
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '-' | '_' | ' '))
        .then(|| format!("\"{party}"))
}

/// The parties that submitted a verdict (its `submitting_parties`, those that are text),
/// read alone: the rest of the verdict is skipped, not built into a tree (a search with a
/// `party:` term reads every event with a verdict only).
fn submitters(verdict: &str) -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Submitters {
        #[serde(default)]
        submitting_parties: Option<Vec<serde_json::Value>>,
    }
    serde_json::from_str::<Submitters>(verdict)
        .ok()
        .and_then(|v| v.submitting_parties)
        .map(|ps| {
            ps.into_iter()
                .filter_map(|p| match p {
                    serde_json::Value::String(p) => Some(p),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

impl KeptVerdictEvent {
    /// As History lists it among the updates: its [`Self::search_row`], the summary the
    /// verdict's result marked `(verdict only)` with its round and mediator group.
    pub fn history_row(&self) -> SearchRow {
        SearchRow {
            root_action: crate::model::index::verdict_only_summary(
                self.verdict_result.as_deref(),
                self.round_number,
                self.mediator_group,
            ),
            ..self.search_row()
        }
    }
}

/// The columns [`KeptVerdictEvent`] is read from (both engines), by position.
pub(crate) const VERDICT_EVENT_COLUMNS: &str =
    "update_id, migration_id, record_time, verdict_result, round_number, mediator_group, verdict";

/// The columns [`KeptEvents`] is read from for an event with a verdict and no update.
pub(crate) const KEPT_VERDICT_EVENT_COLUMNS: &str = "update_id, served, verdict, traffic_summary, app_activity_records, round_number, verdict_result, mediator_group, digest, scans";

/// One update's events as the index keeps them
/// ([`IndexReader::kept_events`](super::IndexReader::kept_events)): each part as
/// the confirming scans served it (JSON text), `None` when not served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeptEvents {
    pub update_id: String,
    /// A bit per part served: 1 verdict, 2 traffic summary, 4 app activity records.
    pub served: i64,
    pub verdict: Option<String>,
    pub traffic_summary: Option<String>,
    pub app_activity_records: Option<String>,
    pub round_number: Option<i64>,
    pub verdict_result: Option<String>,
    pub mediator_group: Option<i64>,
    /// The parts' digest (hex), as [`EventsRow::digest`].
    pub digest: String,
    /// The scans that confirmed the parts.
    pub scans: Vec<String>,
    /// An event with a verdict and no update (`verdict_events`): no body to look for.
    #[serde(skip)]
    pub verdict_only: bool,
}

/// The columns [`KeptEvents`] is read from (both engines): the update id, the `served` bits,
/// the packed parts ([`events_pack`](super::events_pack)), the search columns and the digest.
pub(crate) const KEPT_EVENTS_COLUMNS: &str =
    "u.update_id, e.served, e.parts, e.round_number, e.verdict_result, e.mediator_group, e.digest";

impl KeptEvents {
    /// Made from a row of [`KEPT_VERDICT_EVENT_COLUMNS`] (an event with a verdict and no
    /// update, kept unpacked: the digest as bytes, the scans comma-separated).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn from_columns(
        update_id: String,
        served: i64,
        verdict: Option<String>,
        traffic_summary: Option<String>,
        app_activity_records: Option<String>,
        (round_number, verdict_result, mediator_group): (Option<i64>, Option<String>, Option<i64>),
        digest: &[u8],
        scans: &str,
    ) -> Self {
        KeptEvents {
            update_id,
            served,
            verdict,
            traffic_summary,
            app_activity_records,
            round_number,
            verdict_result,
            mediator_group,
            digest: hex::encode(digest),
            scans: scans
                .split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
            verdict_only: false,
        }
    }

    /// As read from `verdict_events`: an event with a verdict and no update.
    pub(super) fn of_verdict_only(self) -> Self {
        KeptEvents {
            verdict_only: true,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{VerdictHaving, submitters};
    use crate::model::index::query::{EventsTerm, Query};

    #[test]
    fn a_party_search_reads_the_verdicts_that_name_the_party_as_their_json_writes_it() {
        let having = |q: &str| VerdictHaving::of(&Query::parse(&[q]).expect("a query")).mentions;
        assert_eq!(having("party:alice").as_deref(), Some("\"alice"));
        assert_eq!(
            having("verdict:rejected party:alice::1220ab").as_deref(),
            Some("\"alice::1220ab")
        );
        assert_eq!(having("verdict:rejected"), None);
        // A text some JSON writer would escape is not looked for: every verdict is read.
        assert_eq!(having("party:al\"ice"), None);
        assert_eq!(having("party:alicé"), None);
        // Every verdict the party submitted contains it, written by a JSON writer.
        let verdict = serde_json::json!({
            "submitting_parties": ["bob::1220cd", "alice::1220ab"],
            "verdict_result": "VERDICT_RESULT_REJECTED",
        })
        .to_string();
        for q in ["party:alice", "party:alice::1220ab", "party:bob"] {
            let text = having(q).expect("looked for");
            assert!(verdict.contains(&text), "{q}");
        }
        let q = Query::parse(&["round:42 party:alice"]).expect("a query");
        assert_eq!(VerdictHaving::of(&q).term, Some(&EventsTerm::Round(42)));
    }

    #[test]
    fn a_verdicts_submitters_are_its_text_parties_and_nothing_else_of_it() {
        let verdict = r#"{"verdict_result":"VERDICT_RESULT_REJECTED","finalization_time":"2026-12-01T00:00:00Z",
            "submitting_parties":["alice::1220ab",7,null,"bob::1220cd"],
            "transaction_views":{"views":[{"informees":["carol::1220ef"]}]}}"#;
        assert_eq!(submitters(verdict), ["alice::1220ab", "bob::1220cd"]);
        for none in [
            r#"{"submitting_parties":"alice::1220ab"}"#,
            r#"{"submitting_parties":null}"#,
            r#"{"verdict_result":"VERDICT_RESULT_ACCEPTED"}"#,
            r#"["alice::1220ab"]"#,
            r#"{"submitting_parties":["alice::1220ab""#,
        ] {
            assert!(submitters(none).is_empty(), "{none}");
        }
    }
}
