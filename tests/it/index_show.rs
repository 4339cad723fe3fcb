//! `cantonscope index show ID` (issue 37 §1): what the index keeps of one update, read from the
//! index alone, run as the real binary against an index synced over real HTTP from the demo:
//! the body as the scan served it and each events part as the scans served it on
//! `GET /v0/events/{id}` (the verdict without its scan-local `finalization_time`), with the
//! scans that confirmed each; the id whole, abbreviated as the screen shows it or a unique
//! prefix; an ambiguous prefix lists the candidates; an unknown id is exit 2; an update whose
//! events are not synced says so.

use std::path::Path;

use cantonscope::model::format::{format_time_micros, parse_time_micros};
use serde_json::Value;

use crate::index::{four, from, history_from, index_args, run, sync, temp, text};

/// No scan is asked: a URL nothing answers on.
pub(crate) const NOWHERE: &str = "http://127.0.0.1:9";

/// `index show ID` (with `extra` flags): exit code, stdout, stderr.
pub(crate) fn show(
    dir: &Path,
    index: &(impl AsRef<Path> + ?Sized),
    id: &str,
    extra: &[&str],
) -> (i32, String, String) {
    let mut args = index_args(index, "show");
    args.push(id);
    args.extend_from_slice(extra);
    let output = run(dir, NOWHERE, &args);
    (
        output.status.code().unwrap_or(-1),
        text(&output.stdout),
        text(&output.stderr),
    )
}

/// `index show ID` as JSON (exit 0 asserted).
pub(crate) fn shown(dir: &Path, index: &(impl AsRef<Path> + ?Sized), id: &str) -> Value {
    let (code, out, err) = show(dir, index, id, &[]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("JSON")
}

/// `scan event ID` of the scan at `url`: the `/v0/events/{id}` item.
pub(crate) fn scan_event(dir: &Path, url: &str, id: &str) -> Value {
    let output = run(dir, url, &["scan", "event", id]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("JSON")
}

/// What `index show` says of an update's events parts equals what the scan at `url` serves for
/// it on `/v0/events/{id}` (the verdict without `finalization_time`); `shown["events"]` kept.
pub(crate) fn assert_parts_as_served(dir: &Path, url: &str, shown: &Value) {
    let id = shown["update_id"].as_str().expect("an id");
    let events = &shown["events"];
    assert_eq!(events["state"], "kept", "{shown}");
    let mut served = scan_event(dir, url, id);
    if let Some(verdict) = served["verdict"].as_object_mut() {
        verdict.remove("finalization_time");
    }
    for part in ["verdict", "traffic_summary", "app_activity_records"] {
        let kept = &events[part];
        match served.get(part) {
            None => assert_eq!(kept["state"], "not served", "{id} {part}: {shown}"),
            Some(Value::Null) => assert_eq!(kept["state"], "none served", "{id} {part}: {shown}"),
            Some(value) => {
                assert_eq!(kept["state"], "kept", "{id} {part}: {shown}");
                assert_eq!(&kept["as_served"], value, "{id} {part}");
            }
        }
    }
}

/// The end of the tests' hour of history (before the scans' verdict-ingestion head).
pub(crate) fn until() -> String {
    format_time_micros(parse_time_micros(from()).expect("a time") + 3_600_000_000)
}

/// The flags of a sync of the tests' hour (ending at `until`), verified by two scans.
pub(crate) fn hour(until: &str) -> [&str; 6] {
    ["--from", from(), "--until", until, "--verify", "2"]
}

#[test]
fn index_show_prints_the_kept_update_and_its_events_as_the_scans_served_them() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let until = until();
    let (code, _, err) = sync(dir.path(), url, &index, &hour(&until));
    assert_eq!(code, 0, "{err}");
    let served: Vec<Value> = history_from(dir.path(), url, from())
        .into_iter()
        .filter(|l| {
            l["record_time"]
                .as_str()
                .and_then(parse_time_micros)
                .is_some_and(|t| t <= parse_time_micros(&until).expect("a time"))
        })
        .collect();
    assert!(served.len() > 10, "{} updates", served.len());
    let step = (served.len() / 8).max(1);
    let mut verdicts = 0;
    for item in served.iter().step_by(step) {
        let id = item["update_id"].as_str().expect("an id");
        let shown = shown(dir.path(), &index, id);
        assert_eq!(shown["update_id"], id);
        let micros = |v: &Value| v.as_str().and_then(parse_time_micros);
        assert_eq!(
            micros(&shown["record_time"]),
            micros(&item["record_time"]),
            "{id}"
        );
        // The body as the scan served it, confirmed by the two scans of --verify 2.
        assert!(
            &shown["update"]["as_served"] == item,
            "{id}: the kept body differs"
        );
        assert_eq!(shown["update"]["verify"], 2, "{shown}");
        let scans = shown["update"]["confirmed_by"].as_array().expect("scans");
        assert!(scans.len() >= 2, "{shown}");
        // Each events part as the scan serves it on /v0/events/{id}, confirmed by two scans.
        assert_parts_as_served(dir.path(), url, &shown);
        assert_eq!(
            shown["events"]["confirmed_by"]
                .as_array()
                .expect("scans")
                .len(),
            2,
            "{shown}"
        );
        if shown["events"]["verdict"]["state"] == "kept" {
            verdicts += 1;
            assert!(
                shown["events"]["note"]
                    .as_str()
                    .is_some_and(|n| n.contains("finalization_time")),
                "{shown}"
            );
        }
    }
    assert!(verdicts > 0, "some verdicts shown");

    // The id as the screen shows it, or a unique prefix, names the same update.
    let id = served[served.len() / 2]["update_id"]
        .as_str()
        .expect("an id");
    let whole = shown(dir.path(), &index, id);
    let as_shown = format!("{}…{}", &id[..12], &id[id.len() - 4..]);
    assert_eq!(shown(dir.path(), &index, &as_shown), whole);
    assert_eq!(
        shown(dir.path(), &index, &format!("{}…", &id[4..20])),
        whole
    );
    assert_eq!(shown(dir.path(), &index, &id[4..24]), whole);

    // The readable form says the same for a person, who confirmed what above each part.
    let (code, table, err) = show(dir.path(), &index, id, &["--output", "table"]);
    assert_eq!(code, 0, "{err}");
    assert!(table.contains(id), "{table}");
    assert!(table.contains("the update, confirmed by "), "{table}");
    assert!(table.contains("its events, confirmed by "), "{table}");
    assert!(table.contains("verdict"), "{table}");

    // An ambiguous prefix lists the candidates; an unknown id is a clear error; both exit 2.
    let (code, out, err) = show(dir.path(), &index, "1220", &[]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("give more of the id"), "{err}");
    let listed = served
        .iter()
        .filter(|l| err.contains(l["update_id"].as_str().expect("an id")))
        .count();
    assert!(listed >= 2, "{err}");
    let unknown = format!("1220{}", "0".repeat(64));
    let (code, out, err) = show(dir.path(), &index, &unknown, &[]);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains("no update of the index matches") && err.contains(&unknown),
        "{err}"
    );
    assert!(out.is_empty(), "{out}");

    // An index synced without events says they are not synced yet (never "none served").
    let bare = dir.path().join("bare.sqlite");
    let no_events = [&hour(&until)[..], &["--no-events"]].concat();
    let (code, _, err) = sync(dir.path(), url, &bare, &no_events);
    assert_eq!(code, 0, "{err}");
    let bare_shown = shown(dir.path(), &bare, id);
    assert_eq!(
        bare_shown["events"]["state"], "not synced yet",
        "{bare_shown}"
    );
    assert!(
        bare_shown["events"].get("verdict").is_none(),
        "{bare_shown}"
    );
    assert!(bare_shown["update"]["as_served"] == whole["update"]["as_served"]);
    let (code, table, _) = show(dir.path(), &bare, id, &["--output", "table"]);
    assert_eq!(code, 0);
    assert!(table.contains("its events: not synced yet"), "{table}");
}
