//! How the index keeps an update's events parts (schema 8): one packed blob per update, as the
//! bodies are (`crate::model::index::pack`: zstd with a dictionary trained on the index's first
//! events), instead of three JSON text columns and the confirming scans' names. Schema 7 kept
//! them as text: 1,790 bytes an update on the demo; packed, about 240 (the book's index
//! chapter has the figures).
//!
//! The blob is the compact JSON array `[verdict, traffic_summary, app_activity_records,
//! "scans"]` (a part not served is `null`, told apart from a served `null` by the row's
//! `served` bits), and what is redundant with the update left out: a verdict that opens with
//! `{"update_id":"<the update's id>"` (as Scan serves it) keeps `{"update_id":null` and the bit
//! [`VERDICT_NAMES_ITS_UPDATE`], and is read back as served. The search columns (round,
//! verdict result, mediator group) and the digest stay columns.

use zstd::bulk::Compressor;

use super::{EventsRow, KeptEvents};
use crate::model::index::pack::{Packing, train_dictionary};

/// The bit of `served` saying the kept verdict's `update_id` is the update's own (left out).
pub(super) const VERDICT_NAMES_ITS_UPDATE: i64 = 8;

/// The bits of `served` that name the parts served (1 verdict, 2 traffic summary, 4 app
/// activity records).
const PARTS_SERVED: i64 = 7;

/// A row's parts as packed: its `served` bits and the text packed ([`self`]), written into one
/// buffer (not a string per part and the array formatted from them).
pub(super) fn packed_text(row: &EventsRow) -> (i64, String) {
    let mut served = row.served & PARTS_SERVED;
    let id = json_string(&row.update_id);
    let scans = json_string(&row.scans);
    let len = |p: &Option<String>| p.as_ref().map_or(4, String::len);
    let mut text = String::with_capacity(
        len(&row.verdict)
            + len(&row.traffic_summary)
            + len(&row.app_activity_records)
            + scans.len()
            + 8,
    );
    text.push('[');
    match row.verdict.as_deref() {
        Some(v) => match v
            .strip_prefix("{\"update_id\":")
            .and_then(|rest| rest.strip_prefix(id.as_str()))
        {
            Some(rest) => {
                served |= VERDICT_NAMES_ITS_UPDATE;
                text.push_str("{\"update_id\":null");
                text.push_str(rest);
            }
            None => text.push_str(v),
        },
        None => text.push_str("null"),
    }
    for part in [&row.traffic_summary, &row.app_activity_records] {
        text.push(',');
        text.push_str(part.as_deref().unwrap_or("null"));
    }
    text.push(',');
    text.push_str(&scans);
    text.push(']');
    (served, text)
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| serde_json::Value::String(s.to_owned()).to_string())
}

/// How the index packs events: with its newest events dictionary, or plain zstd until one is
/// trained (any blob names its dictionary and reads back).
pub(super) struct EventsPacker {
    packing: Packing,
}

impl EventsPacker {
    /// With `kept` (the index's newest events dictionary); without one, a dictionary trained
    /// from `rows` when they are enough ([`train_dictionary`]), returned for the index to keep.
    pub(super) fn new(
        kept: Option<Vec<u8>>,
        rows: &[EventsRow],
    ) -> Result<(EventsPacker, Option<Vec<u8>>), String> {
        let (dictionary, trained) = if let Some(d) = kept {
            (Some(d), None)
        } else {
            let texts: Vec<String> = rows.iter().map(|r| packed_text(r).1).collect();
            let trained = train_dictionary(texts.iter().map(String::as_str));
            (trained.clone(), trained)
        };
        let packing = match &dictionary {
            Some(d) => Packing::with_dictionary(d)?,
            None => Packing::plain(),
        };
        Ok((EventsPacker { packing }, trained))
    }

    /// Each row's `served` bits and packed blob.
    pub(super) fn pack_all(&self, rows: &[EventsRow]) -> Result<Vec<(i64, Vec<u8>)>, String> {
        let mut packer: Compressor<'_> = self.packing.packer()?;
        rows.iter()
            .map(|row| {
                let (served, text) = packed_text(row);
                packer
                    .compress(text.as_bytes())
                    .map(|blob| (served, blob))
                    .map_err(|e| format!("cannot compress an update's events: {e}"))
            })
            .collect()
    }
}

/// The 7 → 8 repacking's statements, the same on both engines but for the parameter mark
/// `mark`: the schema-7 table moved aside (its indexes dropped: schema 8 makes its own), a
/// batch of its rows read after a `seq`, a row of schema 8 written.
pub(super) fn repack_statements(mark: char) -> [String; 3] {
    [
        "DROP INDEX IF EXISTS events_round;
         DROP INDEX IF EXISTS events_verdict;
         ALTER TABLE events RENAME TO events_v7;"
            .to_owned(),
        format!(
            "SELECT e.seq, u.update_id, e.served, e.verdict, e.traffic_summary,
                    e.app_activity_records, e.round_number, e.verdict_result, e.mediator_group,
                    e.digest, e.scans
             FROM events_v7 e JOIN updates u ON u.seq = e.seq
             WHERE e.seq > {mark}1 ORDER BY e.seq LIMIT 1000"
        ),
        format!(
            "INSERT INTO events (seq, {}) VALUES ({})",
            super::write::EVENTS_COLUMNS.join(", "),
            (1..=7)
                .map(|n| format!("{mark}{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ]
}

/// The 7 → 8 repacking of an index's events, a batch of rows at a time (read by each engine
/// in `seq` order): the first batch trains the dictionary.
#[derive(Default)]
pub(super) struct Repacker {
    packer: Option<EventsPacker>,
}

impl Repacker {
    /// A batch of (seq, row) repacked (`None`: no rows, the repacking is done).
    pub(super) fn batch(
        &mut self,
        rows: Vec<(i64, EventsRow)>,
    ) -> Result<Option<Repacked>, String> {
        let Some(&(last, _)) = rows.last() else {
            return Ok(None);
        };
        let (seqs, rows): (Vec<i64>, Vec<EventsRow>) = rows.into_iter().unzip();
        let mut trained = None;
        if self.packer.is_none() {
            let (made, dictionary) = EventsPacker::new(None, &rows)?;
            trained = dictionary;
            self.packer = Some(made);
        }
        let packed = match &self.packer {
            Some(p) => p.pack_all(&rows)?,
            None => Vec::new(),
        };
        let rows = seqs
            .into_iter()
            .zip(packed)
            .zip(rows)
            .map(|((seq, (served, blob)), row)| (seq, served, blob, row))
            .collect();
        Ok(Some(Repacked {
            last,
            trained,
            rows,
        }))
    }
}

/// A batch [`Repacker::batch`] made.
pub(super) struct Repacked {
    /// The batch's last `seq` (the next batch is read after it).
    pub last: i64,
    /// The dictionary trained on it (the first batch), for the index to keep.
    pub trained: Option<Vec<u8>>,
    /// Each row's `seq`, `served` bits, blob and search columns.
    pub rows: Vec<(i64, i64, Vec<u8>, EventsRow)>,
}

impl KeptEvents {
    /// Made from a row as kept: its `served` bits, the blob's text unpacked ([`packed_text`]),
    /// the search columns and the digest (bytes).
    pub(super) fn from_packed(
        update_id: String,
        served: i64,
        text: &str,
        (round_number, verdict_result, mediator_group): (Option<i64>, Option<String>, Option<i64>),
        digest: &[u8],
    ) -> Result<KeptEvents, String> {
        let bad = |why: &str| format!("the kept events of {update_id} {why}");
        let parts: Vec<&serde_json::value::RawValue> =
            serde_json::from_str(text).map_err(|e| bad(&format!("are not JSON: {e}")))?;
        let [verdict, traffic_summary, app_activity_records, scans] = parts[..] else {
            return Err(bad("are not four parts"));
        };
        let part = |bit: i64, p: &serde_json::value::RawValue| {
            (served & bit != 0 && p.get() != "null").then(|| p.get().to_owned())
        };
        let mut verdict = part(1, verdict);
        if served & VERDICT_NAMES_ITS_UPDATE != 0
            && let Some(v) = &verdict
        {
            let rest = v
                .strip_prefix("{\"update_id\":null")
                .ok_or_else(|| bad("lack the verdict's update id"))?;
            verdict = Some(format!("{{\"update_id\":{}{rest}", json_string(&update_id)));
        }
        let scans: String = serde_json::from_str(scans.get()).map_err(|_| bad("name no scans"))?;
        Ok(KeptEvents::from_columns(
            update_id,
            served & PARTS_SERVED,
            verdict,
            part(2, traffic_summary),
            part(4, app_activity_records),
            (round_number, verdict_result, mediator_group),
            digest,
            &scans,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(verdict: Option<&str>, served: i64) -> EventsRow {
        EventsRow {
            update_id: "u1".to_owned(),
            served,
            verdict: verdict.map(str::to_owned),
            traffic_summary: Some(r#"{"total_traffic_cost":7}"#.to_owned()),
            app_activity_records: None,
            round_number: Some(3),
            verdict_result: Some("accepted".to_owned()),
            mediator_group: Some(0),
            digest: vec![1, 2],
            scans: "A,B".to_owned(),
        }
    }

    fn round_trip(row: &EventsRow) -> KeptEvents {
        let (packer, _) = EventsPacker::new(None, std::slice::from_ref(row)).expect("a packer");
        let (served, blob) = packer.pack_all(std::slice::from_ref(row)).expect("packed")[0].clone();
        let text = String::from_utf8(zstd::decode_all(&blob[..]).expect("unpacks")).expect("text");
        KeptEvents::from_packed(
            row.update_id.clone(),
            served,
            &text,
            (
                row.round_number,
                row.verdict_result.clone(),
                row.mediator_group,
            ),
            &row.digest,
        )
        .expect("read")
    }

    #[test]
    fn parts_read_back_as_served_the_verdicts_own_update_id_left_out_of_the_blob() {
        let own = row(Some(r#"{"update_id":"u1","round_number":3,"x":[1]}"#), 7);
        let (served, text) = packed_text(&own);
        assert_eq!(served, 7 | VERDICT_NAMES_ITS_UPDATE);
        assert!(!text.contains("\"u1\""), "{text}");
        let kept = round_trip(&own);
        assert_eq!(kept.verdict, own.verdict);
        assert_eq!(kept.traffic_summary, own.traffic_summary);
        assert_eq!(kept.app_activity_records, None);
        assert_eq!(kept.served, 7);
        assert_eq!(kept.scans, ["A", "B"]);
        assert_eq!(kept.digest, "0102");
        // Another update's id (or none first) is kept as served.
        for verdict in [
            r#"{"update_id":"u2","round_number":3}"#,
            r#"{"round_number":3,"update_id":"u1"}"#,
        ] {
            let other = row(Some(verdict), 7);
            assert_eq!(packed_text(&other).0, 7);
            assert_eq!(round_trip(&other).verdict, other.verdict);
        }
        // A verdict served as null, or not served at all, stays told apart.
        let none = round_trip(&row(None, 7));
        assert_eq!((none.verdict, none.served), (None, 7));
        let unserved = round_trip(&row(None, 6));
        assert_eq!((unserved.verdict, unserved.served), (None, 6));
    }
}
