//! A following sync whose own scan goes down keeps the new updates' events (issue 37 §1): the
//! events pages are asked of another scan that answers, as the bodies are — said once, never
//! a stop, never a wait for the scans, never a divergence — and of its own scan again when it
//! is back. Run as the real binary over real HTTP against the demo, a scan switched off and
//! on through the demo's faults.

use std::collections::HashSet;

use cantonscope::store::Location;
use serde_json::{Value, json};

use crate::index::{Follower, kept, scans_down, status};
use crate::index_events::events_kept_at;

/// The demo's scan 0, the profile's (its SV's name).
const OWN: &str = "Aurora-Node-1";

#[test]
fn a_followers_events_come_from_another_scan_while_its_own_is_down() {
    // Four scans: with the profile's down, two others serve the events (the demo's last scan
    // is an older one, 404), enough for the follower's `--verify 2`.
    let mut f = Follower::start_with(43, 4);
    scans_down(&f.demo, json!([0]));
    // The updates kept so far: those after come from the scans after scan 0 went down, and so
    // do their events.
    let before: HashSet<String> = kept(&f.index).into_iter().map(|(id, _)| id).collect();
    let said = loop {
        let line = f.next();
        assert!(line.get("waiting_for_scans_since").is_none(), "{line}");
        if let Some(said) = line["said"].as_str() {
            assert!(!said.contains("not synced"), "{said}");
            if said.contains("the events come from") {
                break said.to_owned();
            }
        }
    };
    assert!(
        said.contains("the events come from Boreal-Ops-2")
            || said.contains("the events come from Cirrus-Labs-1"),
        "{said}"
    );
    // The events of the updates written while it is down are kept, from the other scans.
    let mut lines = 0;
    let after = loop {
        let line = f.next();
        if let Some(said) = line["said"].as_str() {
            assert!(!said.contains("not synced"), "{said}");
            assert!(!said.contains("events come from"), "said once: {said}");
        }
        let kept_now = events_kept_at(&Location::Sqlite(f.index.clone()));
        let after: Vec<_> = kept_now
            .into_iter()
            .filter(|e| !before.contains(&e.update_id))
            .collect();
        if after.len() >= 5 {
            break after;
        }
        lines += 1;
        assert!(lines < 2000, "no events kept while scan 0 is down");
    };
    for e in &after {
        assert!(!e.scans.is_empty(), "{}", e.update_id);
        assert!(
            e.scans.iter().all(|s| s != OWN),
            "{}: {:?}",
            e.update_id,
            e.scans
        );
    }
    // Nothing recorded as a dispute.
    let st = status(f.dir.path(), &f.index);
    assert_eq!(st["divergences"], Value::Array(Vec::new()), "{st}");
    // Back: the events come from it again (said), and the follower goes on.
    scans_down(&f.demo, Value::Bool(false));
    loop {
        if let Some(said) = f.next()["said"].as_str()
            && said.contains("answers again: the events come from it")
        {
            break;
        }
    }
    f.writes(2);
    f.stop_and_check();
}
