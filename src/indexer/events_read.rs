//! How the events walk reads one scan's `/v0/events` page ([`read_page`]): each item's place
//! (its update's id, migration and record time, else its verdict's) and its parts' JSON text
//! with their digest, the update it carries skipped. The page is read in one pass
//! ([`FastItem`]); the parts are decoded into a `serde_json::Value` only for the version kept
//! or compared ([`Item::parts`]), not for every scan's copy. What that pass cannot read (an
//! item without a place where it looks, a field of another type, a duplicate key) reads the
//! page again the earlier way, field by field with the typed decode as the last resort, so
//! the same items come out.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::api::scan::UpdatesAfter;
use crate::model::format::format_time_micros;
use crate::model::index::{Digest, events_parts_digest};
use crate::model::position::At;

/// The parts of an events item, in the order they are kept.
const PARTS: [&str; 3] = ["verdict", "traffic_summary", "app_activity_records"];

/// One update's events as one scan serves them.
pub(super) struct Item {
    pub(super) id: String,
    pub(super) at: At,
    /// The parts served, as the JSON object `{"verdict":…,"traffic_summary":…,…}` of those
    /// present (each as served, the verdict's `finalization_time` still in).
    parts_text: String,
    /// Where each part's own text is in `parts_text` (in [`PARTS`]' order, `None` where not
    /// served).
    spans: [Option<std::ops::Range<usize>>; 3],
    /// Their digest ([`crate::model::index::events_parts`]'s).
    pub(super) digest: Digest,
    /// An event with a verdict and no update (a rejected request, a wholly private
    /// transaction): kept as a record of its own ([`crate::store::VerdictEvent`]).
    pub(super) verdict_only: bool,
}

impl Item {
    /// The walk's cursor just after this item.
    pub(super) fn after(&self) -> UpdatesAfter {
        UpdatesAfter {
            after_migration_id: self.at.migration_id,
            after_record_time: format_time_micros(self.at.record_time),
        }
    }

    /// The parts as the index keeps them ([`crate::model::index::events_parts`]'s: the
    /// verdict's `finalization_time` left out).
    pub(super) fn parts(&self) -> Map<String, Value> {
        let Ok(Value::Object(mut parts)) = serde_json::from_str::<Value>(&self.parts_text) else {
            return Map::new();
        };
        if let Some(Value::Object(verdict)) = parts.get_mut("verdict") {
            verdict.remove("finalization_time");
        }
        parts
    }

    /// Each part's text as served (in [`PARTS`]' order, `None` where not served).
    pub(super) fn part_texts(&self) -> [Option<&str>; 3] {
        self.spans
            .clone()
            .map(|span| span.map(|span| &self.parts_text[span]))
    }
}

/// The item of update `id` at `at` from its parts' raw JSON (in [`PARTS`]' order, `None`
/// where not served).
fn item_of(
    id: String,
    at: At,
    verdict_only: bool,
    parts: [Option<&RawValue>; 3],
) -> Result<Item, String> {
    let mut text = String::with_capacity(
        2 + parts
            .iter()
            .flatten()
            .map(|raw| raw.get().len() + 26)
            .sum::<usize>(),
    );
    text.push('{');
    let mut spans: [Option<std::ops::Range<usize>>; 3] = Default::default();
    for ((key, raw), span) in PARTS.iter().zip(parts).zip(&mut spans) {
        if let Some(raw) = raw {
            if text.len() > 1 {
                text.push(',');
            }
            text.push('"');
            text.push_str(key);
            text.push_str("\":");
            let start = text.len();
            text.push_str(raw.get());
            *span = Some(start..text.len());
        }
    }
    text.push('}');
    let digest = events_parts_digest(&text)?;
    Ok(Item {
        id,
        at,
        parts_text: text,
        spans,
        digest,
        verdict_only,
    })
}

/// A page's items ([`Item`]), or why they cannot be read.
pub(super) fn read_page(body: &[u8]) -> Result<Vec<Item>, String> {
    if let Some(items) = fast_page(body) {
        return Ok(items);
    }
    slow_page(body)
}

/// A `/v0/events` page read in one pass.
#[derive(Deserialize)]
struct FastPage<'a> {
    #[serde(default, borrow)]
    events: Vec<FastItem<'a>>,
}

/// An events item: where its update is (the rest of the update skipped) and its parts' text.
#[derive(Deserialize)]
struct FastItem<'a> {
    #[serde(default, borrow)]
    update: Option<Head<'a>>,
    #[serde(default, borrow, deserialize_with = "served")]
    verdict: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "served")]
    traffic_summary: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "served")]
    app_activity_records: Option<&'a RawValue>,
}

/// A part present, `null` included (told apart from a part not served).
fn served<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// The page's items by [`FastItem`]; `None` when any cannot be read so (the page is read
/// again by [`slow_page`]).
fn fast_page(body: &[u8]) -> Option<Vec<Item>> {
    let page: FastPage<'_> = serde_json::from_slice(body).ok()?;
    let mut items = Vec::with_capacity(page.events.len());
    for event in page.events {
        let verdict_only = event.update.is_none();
        let head = match event.update {
            Some(head) => head,
            None => serde_json::from_str(event.verdict?.get()).ok()?,
        };
        let (id, at) = head.place()?;
        items.push(
            item_of(
                id,
                at,
                verdict_only,
                [
                    event.verdict,
                    event.traffic_summary,
                    event.app_activity_records,
                ],
            )
            .ok()?,
        );
    }
    Some(items)
}

/// A `/v0/events` page as [`slow_page`] reads it: each item's JSON undecoded.
#[derive(Deserialize)]
struct LightPage<'a> {
    #[serde(default, borrow)]
    events: Vec<&'a RawValue>,
}

/// An events item's fields, each undecoded.
type Fields<'a> = BTreeMap<Cow<'a, str>, &'a RawValue>;

/// The page's items read field by field (the typed decode where an item's place is not
/// where [`Head`] looks).
fn slow_page(body: &[u8]) -> Result<Vec<Item>, String> {
    let page: LightPage<'_> = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    let mut items = Vec::with_capacity(page.events.len());
    for event in page.events {
        let fields: Fields<'_> = serde_json::from_str(event.get()).map_err(|e| e.to_string())?;
        let Some((id, at)) = place_of(&fields).or_else(|| typed_place_of(event.get())) else {
            return Err("an event without its update id or position".to_owned());
        };
        let verdict_only = fields.get("update").is_none_or(|raw| raw.get() == "null");
        let parts = PARTS.map(|key| fields.get(key).copied());
        items.push(item_of(id, at, verdict_only, parts)?);
    }
    Ok(items)
}

/// Where an update (or a verdict) says it is: its id, migration (a reassignment's inside its
/// `event`) and record time; the rest of it skipped.
#[derive(Deserialize)]
struct Head<'a> {
    update_id: Option<String>,
    migration_id: Option<i64>,
    #[serde(borrow)]
    record_time: Option<Cow<'a, str>>,
    event: Option<HeadEvent>,
}

#[derive(Deserialize)]
struct HeadEvent {
    migration_id: Option<i64>,
}

impl Head<'_> {
    /// Its update id and place, when it names them.
    fn place(self) -> Option<(String, At)> {
        let migration = self
            .migration_id
            .or_else(|| self.event.and_then(|e| e.migration_id))?;
        let time = crate::model::format::parse_time_micros(self.record_time.as_deref()?)?;
        Some((self.update_id?, At::new(migration, time)))
    }
}

/// An item's update id and place: its update's, else its verdict's (as
/// [`crate::model::position::event_at`]); `None` when [`Head`] finds them not.
fn place_of(fields: &Fields<'_>) -> Option<(String, At)> {
    let of = |key: &str| {
        fields
            .get(key)
            .filter(|raw| raw.get() != "null")
            .and_then(|raw| serde_json::from_str::<Head<'_>>(raw.get()).ok())
    };
    let head = match fields.get("update").filter(|raw| raw.get() != "null") {
        Some(_) => of("update")?,
        None => of("verdict")?,
    };
    head.place()
}

/// [`place_of`] by the typed decode of the item (what the light read could not place).
fn typed_place_of(item: &str) -> Option<(String, At)> {
    let event: crate::api::scan::EventHistoryItem = serde_json::from_str(item).ok()?;
    Some((
        event.update_id()?.to_owned(),
        crate::model::position::event_at(&event)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::index::events_parts;

    /// An item as compared: (id, place, parts kept, digest, verdict only).
    type Read = (String, At, Map<String, Value>, Digest, bool);

    /// The items of `page` as the walk read them before (each item decoded, its parts into a
    /// `Value`, [`events_parts`]): (id, place, parts kept, digest, verdict only).
    fn as_before(page: &Value) -> Vec<Read> {
        page["events"]
            .as_array()
            .expect("events")
            .iter()
            .map(|item| {
                let text = item.to_string();
                let fields: Fields<'_> = serde_json::from_str(&text).expect("fields");
                let (id, at) = place_of(&fields)
                    .or_else(|| typed_place_of(&text))
                    .expect("placed");
                let (parts, digest) = events_parts(item);
                let verdict_only = item.get("update").is_none_or(Value::is_null);
                (id, at, parts, digest, verdict_only)
            })
            .collect()
    }

    fn as_now(items: &[Item]) -> Vec<Read> {
        items
            .iter()
            .map(|i| (i.id.clone(), i.at, i.parts(), i.digest, i.verdict_only))
            .collect()
    }

    fn page() -> Value {
        serde_json::json!({"events": [
            {
                "update": {"update_id": "u1", "migration_id": 3,
                           "record_time": "2026-01-02T03:04:05.000006Z",
                           "events_by_id": {"#1": {"template_id": "a:b:C", "x": [1, 2.5, null]}}},
                "verdict": {"update_id": "u1", "finalization_time": "2026-01-02T03:04:06Z",
                            "verdict_result": "VERDICT_RESULT_ACCEPTED", "round_number": 7,
                            "z": "é\"q", "a": {"b": 1}},
                "traffic_summary": {"total_traffic_cost": 12},
                "app_activity_records": {"round_number": 7,
                                         "records": [{"party": "p::1", "weight": "3"}]}
            },
            {
                "update": null,
                "verdict": {"update_id": "v2", "migration_id": 3,
                            "record_time": "2026-01-02T03:04:07Z",
                            "verdict_result": "VERDICT_RESULT_REJECTED"},
                "traffic_summary": null
            },
            {
                "update": {"update_id": "u3", "record_time": "2026-01-02T03:04:08Z",
                           "event": {"migration_id": 4, "contract_id": "c"}},
                "verdict": null
            }
        ]})
    }

    #[test]
    fn the_one_pass_read_gives_the_items_and_digests_of_the_decoded_read() {
        let page = page();
        let body = page.to_string();
        let fast = fast_page(body.as_bytes()).expect("read in one pass");
        assert_eq!(as_now(&fast), as_before(&page));
        assert_eq!(fast.len(), 3);
        assert!(fast[1].verdict_only && !fast[0].verdict_only && !fast[2].verdict_only);
        assert!(
            !fast[0].parts()["verdict"]
                .as_object()
                .expect("verdict")
                .contains_key("finalization_time")
        );
        // Parts absent and parts served as null are told apart.
        assert_eq!(fast[2].parts().len(), 1);
        assert_ne!(fast[1].digest, fast[2].digest);
        let slow = slow_page(body.as_bytes()).expect("read field by field");
        assert_eq!(as_now(&slow), as_before(&page));
    }

    #[test]
    fn a_page_the_one_pass_read_cannot_read_is_read_field_by_field_the_same() {
        // A migration sent as text: the one pass gives up, the typed decode places it.
        let mut page = page();
        page["events"][0]["update"]["migration_id"] = Value::from("3");
        let body = page.to_string();
        assert!(fast_page(body.as_bytes()).is_none());
        let items = read_page(body.as_bytes()).expect("read");
        assert_eq!(as_now(&items), as_before(&page));
    }
}
