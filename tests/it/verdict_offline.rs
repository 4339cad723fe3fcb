//! The Verdict pane on the local index alone (issue 37 §1): with `--offline` and the demo
//! stopped, an update the index keeps shows its kept verdict and says where it came from ("kept
//! in the index, confirmed by" the scans that agreed on it); an update whose events are not
//! synced yet says so, one whose scans served no verdict says "no verdict kept"; never "the
//! scan returned no verdict" when no scan was asked. Driven through the real app against an
//! index synced from the demo by the real binary.

use std::path::Path;

use cantonscope::msg::PaneId;
use crossterm::event::KeyCode;

use crate::common::{Harness, stable};
use crate::index_explorer::with_index;

/// An update of the index at `index` whose verdict is kept (the newest): its id, its result
/// (`accepted`, …) and the scans that confirmed it.
fn kept_verdict(index: &Path) -> (String, String, Vec<String>) {
    let location = cantonscope::store::Location::Sqlite(index.to_owned());
    let mut store = cantonscope::store::open_reader(&location).expect("opens");
    let newest = store
        .page_after(None, 1_000_000)
        .expect("kept updates")
        .into_iter()
        .rev()
        .find_map(|k| {
            store
                .kept_events(&k.update_id)
                .expect("kept events")
                .filter(|e| e.verdict.is_some())
        })
        .expect("an update with a kept verdict");
    (
        newest.update_id,
        newest.verdict_result.unwrap_or_default(),
        newest.scans,
    )
}

/// The Verdict pane's summary (the lines under the tabs) with what follows the demo's clock
/// masked: update ids and party fingerprints, numbers (round, migration), the result (the
/// newest update's, asserted apart). Its first `n` lines.
fn summary(h: &mut Harness, n: usize) -> String {
    let s = stable(&h.screen(120, 40));
    let s = regex::Regex::new(r"^(ACCEPTED|REJECTED)")
        .expect("regex")
        .replace(
            &s.lines().skip(2).collect::<Vec<_>>().join("\n"),
            "<RESULT>",
        )
        .into_owned();
    let lines: Vec<&str> = s.lines().take(n).collect();
    let s = regex::Regex::new(r"\b(1220)?[0-9a-f]{8,}…?")
        .expect("regex")
        .replace_all(&lines.join("\n"), "<id>")
        .into_owned();
    regex::Regex::new(r"\d[\d,]*")
        .expect("regex")
        .replace_all(&s, "<n>")
        .into_owned()
}

/// Opens `id` (`:event`) and shows the Verdict pane.
fn open_verdict(h: &mut Harness, id: &str) -> String {
    h.palette(&format!("event {id}"));
    h.tick(0.5);
    h.key(KeyCode::Char('3'));
    assert_eq!(h.app.focus, PaneId::Verdict);
    assert_eq!(h.app.verdict.update_id(), Some(id));
    h.screen(120, 40)
}

#[test]
fn offline_the_verdict_pane_shows_the_kept_verdict_and_where_it_came_from() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index(dir.path(), true);
    h.stop_demo();
    let index = dir.path().join("index.sqlite");
    let (id, result, scans) = kept_verdict(&index);

    let s = open_verdict(&mut h, &id);
    let origin = h.app.verdict.kept_origin().expect("read from the index");
    assert!(origin.events_synced && !origin.scan_failed, "{origin:?}");
    assert_eq!(origin.scans, scans);
    assert!(h.app.verdict.verdict().is_some(), "{s}");
    assert!(h.app.verdict.view_tree().is_some(), "{s}");
    assert!(s.contains(&result.to_uppercase()), "{result}: {s}");
    assert!(
        s.contains(&format!(
            "kept in the index, confirmed by {}",
            scans.join(", ")
        )),
        "{s}"
    );
    assert!(!s.contains("returned no verdict"), "{s}");
    assert!(
        !s.contains("finalized"),
        "the finalization time is not kept: {s}"
    );
    crate::common::assert_snapshot!("verdict_kept_offline_summary", summary(&mut h, 2));

    // An update whose events are not synced yet, and one whose scans served no verdict.
    let location = cantonscope::store::Location::Sqlite(index.clone());
    let others: Vec<cantonscope::store::KeptEvents> = {
        let mut store = cantonscope::store::open_reader(&location).expect("opens");
        store
            .page_after(None, 1_000_000)
            .expect("kept updates")
            .into_iter()
            .rev()
            .filter(|k| k.update_id != id)
            .filter_map(|k| store.kept_events(&k.update_id).expect("kept events"))
            .filter(|e| e.verdict.is_some())
            .take(2)
            .collect()
    };
    let [unsynced, none_served] = others.as_slice() else {
        panic!("two more updates with verdicts: {others:?}");
    };
    let (unsynced, none_served) = (unsynced.update_id.clone(), none_served);
    let conn = rusqlite::Connection::open(&index).expect("opens");
    conn.execute(
        "DELETE FROM events WHERE seq = (SELECT seq FROM updates WHERE update_id IN (?1, unhex(?1)))",
        [&unsynced],
    )
    .expect("events not synced");
    drop(conn);
    // The scans served no verdict for it: kept as such through the store's own write.
    let mut writer = cantonscope::store::open_writer(&location).expect("a writer");
    writer
        .write_events(&[cantonscope::store::EventsRow {
            update_id: none_served.update_id.clone(),
            served: none_served.served,
            verdict: None,
            traffic_summary: none_served.traffic_summary.clone(),
            app_activity_records: none_served.app_activity_records.clone(),
            round_number: None,
            verdict_result: None,
            mediator_group: None,
            digest: vec![0; 32],
            scans: none_served.scans.join(","),
        }])
        .expect("none served");
    drop(writer);
    let none_served = none_served.update_id.clone();
    let unsynced = &unsynced;
    let none_served = &none_served;
    let s = open_verdict(&mut h, unsynced);
    assert!(h.app.verdict.verdict().is_none(), "{s}");
    assert!(s.contains("NO VERDICT"), "{s}");
    assert!(s.contains("events are not synced yet"), "{s}");
    assert!(s.contains("no scan was asked"), "{s}");
    assert!(!s.contains("returned no verdict"), "{s}");
    crate::common::assert_snapshot!("verdict_not_synced_offline_summary", summary(&mut h, 4));
    let s = open_verdict(&mut h, none_served);
    assert!(s.contains("No verdict kept for this update"), "{s}");
    assert!(s.contains(&scans.join(", ")), "{s}");
    assert!(!s.contains("returned no verdict"), "{s}");
}
