//! [`build_page`]: a page's validators counted from the facts of its decoded items come to
//! the same table as counted from the bodies kept ([`build`]), and a table behind its updates
//! is caught up from their bodies.

use super::*;
use crate::api::RawJson;
use crate::api::scan::UpdateItem;
use crate::model::format::format_time_micros;
use crate::model::index::pack::Packing;
use crate::model::index::validators::{ACTIVITY_TEMPLATES, LICENSE_TEMPLATE, page_facts};
use crate::model::index::{digest_of, rows_of};
use crate::store::{Chunk, Location, PageWrite, Position, open_writer};

/// An update item `id` at `second` creating one contract of `template` with `args`.
fn item(id: &str, second: i64, template: &str, args: &serde_json::Value) -> String {
    let time = format_time_micros(1_800_000_000_000_000 + second * 1_000_000);
    serde_json::json!({
        "update_id": id, "migration_id": 0, "record_time": time,
        "synchronizer_id": "s", "effective_at": time, "workflow_id": "", "offset": 1,
        "root_event_ids": [format!("{id}:0")],
        "events_by_id": { format!("{id}:0"): {
            "event_type": "created_event", "event_id": format!("{id}:0"),
            "contract_id": format!("00{id}"), "template_id": format!("pkg:{template}"),
            "create_arguments": args, "signatories": ["dso"], "observers": [],
        }},
    })
    .to_string()
}

/// The page of `texts` as a sync makes it: its rows (packed bodies with `bodies`) and facts.
fn page(texts: &[String], bodies: bool) -> (PageWrite, PageFacts) {
    let items: Vec<UpdateItem> = texts
        .iter()
        .map(|t| UpdateItem::from_raw(RawJson::from_string(t.clone()).expect("json"), "."))
        .collect();
    let digests: Vec<_> = texts
        .iter()
        .map(|t| digest_of(t).expect("digest"))
        .collect();
    let packing = Packing::plain();
    let rows = rows_of(&items, &digests, bodies.then_some(&packing)).expect("rows");
    let last = rows.last().expect("rows");
    let cursor = Position {
        migration_id: last.migration_id,
        record_time: format_time_micros(last.record_time),
    };
    let facts = page_facts(&items, &digests, bodies);
    (
        PageWrite::new(rows, None, cursor, vec!["sv1".into()]),
        facts,
    )
}

fn pages() -> Vec<Vec<String>> {
    let licence = |v: &str| serde_json::json!({ "validator": v, "sponsor": "sv" });
    let active =
        |v: &str, round: &str| serde_json::json!({ "validator": v, "round": { "number": round } });
    vec![
        vec![
            item("a1", 1, LICENSE_TEMPLATE, &licence("v1")),
            item(
                "a2",
                2,
                "Splice.Amulet:Amulet",
                &serde_json::json!({"owner": "v1"}),
            ),
            item("a3", 3, ACTIVITY_TEMPLATES[0], &active("v1", "4")),
        ],
        vec![
            item("b1", 4, LICENSE_TEMPLATE, &licence("v2")),
            item("b2", 5, ACTIVITY_TEMPLATES[1], &active("v2", "5")),
            item("b3", 6, ACTIVITY_TEMPLATES[0], &active("v1", "6")),
        ],
    ]
}

fn table(store: &mut dyn IndexWriter) -> (Vec<(String, ValidatorSums)>, i64) {
    let kept = store.kept_validators().expect("kept");
    let mut rows = kept.rows;
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    (rows, kept.through)
}

fn new_index(dir: &tempfile::TempDir) -> (Box<dyn IndexWriter>, Chunk) {
    let path = dir.path().join("i.sqlite");
    let mut store = open_writer(&Location::Sqlite(path)).expect("index");
    let chunk = store.start_chunk(None, None, 1, 0).expect("chunk");
    (store, chunk)
}

#[test]
fn a_page_counted_from_its_items_is_the_table_its_bodies_make() {
    let dir = tempfile::tempdir().expect("dir");
    let (mut store, chunk) = new_index(&dir);
    for texts in pages() {
        let (write, facts) = page(&texts, true);
        let written = store.write_page(chunk.id, &write).expect("written");
        assert_eq!(written.inserted, 3);
        assert_eq!(
            build_page(store.as_mut(), written.inserted, &facts).expect("counted"),
            3
        );
    }
    let by_facts = table(store.as_mut());
    assert_eq!(by_facts.1, 6, "counted through the newest seq");
    let v1 = &by_facts.0.iter().find(|(v, _)| v == "v1").expect("v1").1;
    assert_eq!((v1.licenses, v1.activities, v1.last_round), (1, 2, Some(6)));
    // Counted from the bodies kept: the same table.
    let dir2 = tempfile::tempdir().expect("dir");
    let (mut other, chunk2) = new_index(&dir2);
    for texts in pages() {
        let (write, _) = page(&texts, true);
        other.write_page(chunk2.id, &write).expect("written");
    }
    build(other.as_mut()).expect("counted");
    assert_eq!(table(other.as_mut()), by_facts);
    // The page read again: nothing new, nothing counted twice.
    let (write, facts) = page(&pages()[1], true);
    let written = other.write_page(chunk2.id, &write).expect("written");
    assert_eq!((written.inserted, written.known), (0, 3));
    assert_eq!(build_page(other.as_mut(), 0, &facts).expect("counted"), 0);
    assert_eq!(table(other.as_mut()), by_facts);
}

#[test]
fn a_table_behind_is_caught_up_from_the_bodies_and_bodies_not_kept_tell_nothing() {
    let dir = tempfile::tempdir().expect("dir");
    let (mut store, chunk) = new_index(&dir);
    let [first, second] = <[Vec<String>; 2]>::try_from(pages()).expect("two pages");
    // The first page written, its count lost (a sync stopped between the two).
    let (write, _) = page(&first, true);
    store.write_page(chunk.id, &write).expect("written");
    // The second page's facts alone cannot count the first's updates: read from their bodies.
    let (write, facts) = page(&second, true);
    let written = store.write_page(chunk.id, &write).expect("written");
    assert_eq!(
        build_page(store.as_mut(), written.inserted, &facts).expect("counted"),
        6
    );
    let caught_up = table(store.as_mut());
    let dir2 = tempfile::tempdir().expect("dir");
    let (mut other, chunk2) = new_index(&dir2);
    for texts in [&first, &second] {
        let (write, facts) = page(texts, true);
        let written = other.write_page(chunk2.id, &write).expect("written");
        build_page(other.as_mut(), written.inserted, &facts).expect("counted");
    }
    assert_eq!(table(other.as_mut()), caught_up);
    assert_eq!(caught_up.0.len(), 2);
    // Kept without bodies: the facts the items tell are not counted.
    let dir3 = tempfile::tempdir().expect("dir");
    let (mut bare, chunk3) = new_index(&dir3);
    let (write, _) = page(&first, false);
    let (_, told) = page(&first, true);
    let written = bare.write_page(chunk3.id, &write).expect("written");
    assert_eq!(
        build_page(bare.as_mut(), written.inserted, &told).expect("counted"),
        3
    );
    assert_eq!(table(bare.as_mut()), (Vec::new(), 3));
}
