//! Diverging verdicts (issue 37 §1): a demo scan started with `--diverging-verdicts K` serves
//! another mediator group for some updates' verdicts on `/v0/events`. Run as the real binary
//! over real HTTP: with `--verify 2` and two scans serving events, the first differing verdict
//! stops the events walk with a divergence naming the JSON path, recorded in the index's
//! divergences and shown by `index status`; with three scans serving events, the odd scan is
//! outvoted, named, and the honest verdicts are kept. (The highest-numbered demo scan is an
//! older scan without `/v0/events`: two scans serving events are a demo of three.)

use cantonscope::demo::{DemoConfig, DemoFaults};
use cantonscope::model::format::{format_time_micros, parse_time_micros};
use serde_json::Value;

use crate::index::{Demo, from, run, start, status, sync, temp, text};

/// `total` scans, the second (Boreal-Ops-2) serving diverging verdicts.
fn diverging_verdicts(total: usize) -> Demo {
    start(
        DemoConfig {
            stagger: false,
            seed: 31,
            faults: DemoFaults {
                diverging_verdicts: Some(1),
                ..DemoFaults::default()
            },
            ..DemoConfig::default()
        }
        .with_total_scans(total),
    )
}

fn until() -> String {
    format_time_micros(parse_time_micros(from()).expect("a time") + 3_600_000_000)
}

/// `scan event ID` of the scan at `url`: its verdict.
fn verdict_of(dir: &std::path::Path, url: &str, id: &str) -> Value {
    let output = run(dir, url, &["scan", "event", id]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let event: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    event["verdict"].clone()
}

#[test]
fn a_differing_verdict_stops_the_events_walk_with_a_divergence_naming_the_path() {
    let demo = diverging_verdicts(3);
    let (dir, index) = temp();
    let urls = &demo.handle.scan_urls;
    let until = until();
    let (code, out, err) = sync(
        dir.path(),
        &urls[0],
        &index,
        &["--from", from(), "--until", &until, "--verify", "2"],
    );
    assert_eq!(code, 5, "{out} {err}");
    assert!(err.contains("divergence in the events"), "{err}");
    assert!(
        err.contains("verdict.mediator_group"),
        "the path is named: {err}"
    );
    assert!(
        err.contains("Aurora-Node-1") && err.contains("Boreal-Ops-2"),
        "{err}"
    );
    // The update it stops at: the two scans serve it with different verdicts, on that path.
    let st = status(dir.path(), &index);
    let recorded = st["divergences"].as_array().expect("divergences");
    assert_eq!(recorded.len(), 1, "{st}");
    let d = &recorded[0];
    assert_eq!(d["resolved"], false, "{d}");
    assert_eq!(d["detail"]["part"], "events", "{d}");
    assert!(
        d["detail"]["differences"][0]["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("verdict.mediator_group")),
        "{d}"
    );
    let id = d["update_id"].as_str().expect("an id");
    assert!(err.contains(id), "{err}");
    let (a, b) = (
        verdict_of(dir.path(), &urls[0], id),
        verdict_of(dir.path(), &urls[1], id),
    );
    assert_ne!(a["mediator_group"], b["mediator_group"], "{a} {b}");
    // The updates are all kept; their events up to the divergence only.
    let updates = st["updates"].as_u64().expect("updates");
    let events = st["events"].as_u64().expect("events");
    assert!(updates > 10 && events < updates, "{st}");
    // The next sync stops there again.
    let (code, _, err) = sync(dir.path(), &urls[0], &index, &["--events", "--verify", "2"]);
    assert_eq!(code, 5, "{err}");
    assert!(err.contains(id), "{err}");
}

#[test]
fn a_scan_with_odd_verdicts_is_outvoted_named_and_the_honest_verdicts_kept() {
    let demo = diverging_verdicts(4);
    let (dir, index) = temp();
    let urls = &demo.handle.scan_urls;
    let until = until();
    let (code, out, err) = sync(
        dir.path(),
        &urls[0],
        &index,
        &["--from", from(), "--until", &until, "--verify", "2"],
    );
    assert_eq!(code, 0, "{out} {err}");
    let odd = out["events"]["odd"].as_u64().expect("odd");
    // The verifiers rotate: the diverging scan is asked for some pages only.
    assert!(odd > 0, "{out}");
    assert!(
        err.contains("Boreal-Ops-2 serve the events of update"),
        "{err}"
    );
    let st = status(dir.path(), &index);
    assert_eq!(st["events"], st["updates"], "{st}");
    let recorded: Vec<&Value> = st["divergences"]
        .as_array()
        .expect("divergences")
        .iter()
        .filter(|d| d["detail"]["part"] == "events")
        .collect();
    assert_eq!(recorded.len() as u64, odd, "{st}");
    let mut store =
        cantonscope::store::open_reader(&cantonscope::store::Location::Sqlite(index.clone()))
            .expect("index opens");
    for d in &recorded {
        assert_eq!(d["resolved"], true, "{d}");
        assert_eq!(
            d["detail"]["odd_scans"],
            serde_json::json!(["Boreal-Ops-2"])
        );
        // What the index keeps is the honest scans' verdict.
        let id = d["update_id"].as_str().expect("an id");
        let honest = verdict_of(dir.path(), &urls[0], id);
        let odd = verdict_of(dir.path(), &urls[1], id);
        assert_ne!(honest["mediator_group"], odd["mediator_group"]);
        let kept = store.kept_events(id).expect("reads").expect("kept events");
        assert_eq!(
            kept.mediator_group,
            honest["mediator_group"].as_i64(),
            "{id}"
        );
        assert_eq!(kept.scans.len(), 2, "{id}: {:?}", kept.scans);
        assert!(
            !kept.scans.iter().any(|s| s.contains("Boreal-Ops-2")),
            "{:?}",
            kept.scans
        );
    }
}
