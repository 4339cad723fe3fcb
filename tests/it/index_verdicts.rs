//! Diverging verdicts (issue 37 §1): a demo scan started with `--diverging-verdicts K` serves
//! another mediator group for some updates' verdicts on `/v0/events`. Run as the real binary
//! over real HTTP: with `--verify 2` and two scans serving events, the first differing verdict
//! stops the events walk with a divergence naming the JSON path, recorded in the index's
//! divergences and shown by `index status`; with three scans serving events, the odd scan is
//! outvoted, named, and the honest verdicts are kept. (The highest-numbered demo scan is an
//! older scan without `/v0/events`: two scans serving events are a demo of three.)

use cantonscope::demo::{DemoConfig, DemoFaults};
use cantonscope::model::format::parse_time_micros;
use serde_json::{Value, json};

use crate::index::{Demo, from, run, start, status, sync, text};
use crate::index_events::{synced_hour, until};

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
    let urls = &demo.handle.scan_urls;
    let (dir, index, (code, out, err)) = synced_hour(&urls[0]);
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
    let urls = &demo.handle.scan_urls;
    let (dir, index, (code, out, err)) = synced_hour(&urls[0]);
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

/// The events `POST /v0/events` of the scan at `url` serves after `from` until `until`.
fn events_between(url: &str, from: &str, until: &str) -> Vec<Value> {
    let until = parse_time_micros(until).expect("a time");
    let rt = crate::common::bin::runtime();
    let mut after = json!({"after_migration_id": 0, "after_record_time": from});
    let mut all = Vec::new();
    loop {
        let body = json!({"page_size": 1000, "after": after});
        let (status, page) = rt.block_on(crate::common::http::post(
            &format!("{url}/api/scan/v0/events"),
            &body,
        ));
        assert!(status.is_success(), "{status} {page}");
        let events = page["events"].as_array().expect("events").clone();
        let Some(last) = events.last() else {
            return all;
        };
        let place = if last["update"].is_null() {
            &last["verdict"]
        } else {
            &last["update"]
        };
        after = json!({
            // A reassignment's migration id is its event's.
            "after_migration_id": place.get("migration_id").unwrap_or(&place["event"]["migration_id"]),
            "after_record_time": place["record_time"],
        });
        for event in events {
            let place = if event["update"].is_null() {
                &event["verdict"]
            } else {
                &event["update"]
            };
            if parse_time_micros(place["record_time"].as_str().expect("a time")).expect("a time")
                > until
            {
                return all;
            }
            all.push(event);
        }
    }
}

#[test]
fn events_with_a_verdict_and_no_update_are_served_as_such_and_kept_as_records_of_their_own() {
    let demo = crate::index::four();
    let url = &demo.handle.scan_url;
    let until = until();
    let (dir, index, (code, out, err)) = synced_hour(url);
    assert_eq!(code, 0, "{err}");
    // The demo's rejected requests and wholly private transactions: events whose update is
    // null, never in /v2/updates.
    let served = events_between(url, from(), &until);
    let verdict_only: Vec<&Value> = served.iter().filter(|e| e["update"].is_null()).collect();
    let result = |e: &Value| {
        e["verdict"]["verdict_result"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        verdict_only
            .iter()
            .any(|e| result(e) == "VERDICT_RESULT_REJECTED")
            && verdict_only
                .iter()
                .any(|e| result(e) == "VERDICT_RESULT_ACCEPTED"),
        "{verdict_only:?}"
    );
    let id_of = |e: &Value| {
        e["verdict"]["update_id"]
            .as_str()
            .expect("an id")
            .to_owned()
    };
    let updates = crate::index::ids(&crate::index::history_from(dir.path(), url, from()));
    for e in &verdict_only {
        assert!(!updates.contains(&id_of(e)), "{e}");
    }
    assert!(
        served
            .iter()
            .all(|e| !e["update"].is_null() || e["verdict"].is_object())
    );

    // Kept: those between the index's first and last update (the events walk goes over the
    // index's updates), each as the scans serve it (without its finalization_time),
    // confirmed by two scans.
    let st = status(dir.path(), &index);
    let bound = |key: &str| {
        parse_time_micros(st["migrations"][0][key].as_str().expect("a time")).expect("a time")
    };
    let (first, last) = (bound("first_record_time"), bound("last_record_time"));
    let within: Vec<&&Value> = verdict_only
        .iter()
        .filter(|e| {
            let t = parse_time_micros(e["verdict"]["record_time"].as_str().expect("a time"))
                .expect("a time");
            first < t && t <= last
        })
        .collect();
    assert!(!within.is_empty());
    assert_eq!(
        st["verdict_events"].as_u64(),
        Some(within.len() as u64),
        "{st}"
    );
    assert_eq!(
        out["events"]["verdict_only"].as_u64(),
        Some(within.len() as u64),
        "{out}"
    );
    let mut store =
        cantonscope::store::open_reader(&cantonscope::store::Location::Sqlite(index.clone()))
            .expect("index opens");
    for e in &within {
        let id = id_of(e);
        let kept = store.kept_events(&id).expect("reads").expect("kept");
        let mut verdict = e["verdict"].clone();
        verdict
            .as_object_mut()
            .expect("a verdict")
            .remove("finalization_time");
        let kept_verdict: Value =
            serde_json::from_str(kept.verdict.as_deref().expect("a verdict")).expect("JSON");
        assert_eq!(kept_verdict, verdict, "{id}");
        assert_eq!(kept.scans.len(), 2, "{id}");
    }
    drop(store);
    // `index search verdict:rejected` lists the rejected requests as what they are, newest
    // first; the index has no update with a rejected verdict.
    let output = run(
        dir.path(),
        url,
        &[
            &crate::index::index_args(&index, "search")[..],
            &["verdict:rejected", "--limit", "100000"],
        ]
        .concat(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let listed: Vec<Value> = text(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let mut rejected: Vec<String> = within
        .iter()
        .filter(|e| result(e) == "VERDICT_RESULT_REJECTED")
        .map(|e| id_of(e))
        .collect();
    rejected.reverse();
    assert_eq!(
        listed
            .iter()
            .map(|l| l["update_id"].as_str().expect("id").to_owned())
            .collect::<Vec<_>>(),
        rejected
    );
    for l in &listed {
        assert_eq!(l["kind"], "verdict only", "{l}");
        assert_eq!(l["root_action"], "rejected", "{l}");
        assert!(
            l["parties"].as_array().is_some_and(|p| !p.is_empty()),
            "{l}"
        );
    }
    // `index show` of one (its whole id): its parts as the scan serves them, no body.
    let shown = crate::index_show::shown(dir.path(), &index, &rejected[0]);
    assert_eq!(shown["kind"], "verdict only", "{shown}");
    assert_eq!(shown["root_action"], "rejected", "{shown}");
    assert!(shown["update"]["as_served"].is_null(), "{shown}");
    crate::index_show::assert_parts_as_served(dir.path(), url, &shown);
    // By a unique prefix or as the screen shows it too; a prefix it shares with an update
    // lists both.
    shown_by_prefix(dir.path(), index.to_str().expect("a path"));
    // Its round and its submitter find one too; a term it has no key for does not.
    let one = within[0];
    let round = one["verdict"]["round_number"].as_i64().expect("a round");
    let submitter = one["verdict"]["submitting_parties"][0]
        .as_str()
        .expect("a party");
    let found = crate::index::search_ids(
        dir.path(),
        &index,
        &[&format!("round:{round}"), &format!("party:{submitter}")],
        &["--limit", "100000"],
    );
    assert!(found.contains(&id_of(one)), "{found:?}");
    let found = crate::index::search_ids(
        dir.path(),
        &index,
        &[&format!("round:{round}"), "is:transfer"],
        &["--limit", "100000"],
    );
    assert!(!found.contains(&id_of(one)), "{found:?}");
    // `index status` says how many it keeps.
    let output = run(
        dir.path(),
        "http://127.0.0.1:9",
        &[
            &crate::index::index_args(&index, "status")[..],
            &["--output", "table"],
        ]
        .concat(),
    );
    let table = text(&output.stdout);
    assert!(
        table.lines().any(|l| l.starts_with("verdict only")
            && l.contains(&format!(
                " {} (events with a verdict and no update",
                within.len()
            ))),
        "{table}"
    );
}

#[test]
fn an_index_of_schema_7_is_migrated_in_place_and_gets_its_verdict_only_events_once() {
    let demo = crate::index::four();
    let url = &demo.handle.scan_url;
    let (dir, index, (code, _, err)) = synced_hour(url);
    assert_eq!(code, 0, "{err}");
    let before = status(dir.path(), &index);
    let verdict_only = before["verdict_events"].as_u64().expect("a count");
    assert!(verdict_only > 0, "{before}");
    // Schema 7, as the cantonscope before kept it: its updates with their events, no table
    // for the events with a verdict and no update.
    {
        let conn = rusqlite::Connection::open(&index).expect("opens");
        crate::common::migrated::times_from_1970(&conn);
        conn.execute_batch(
            "DROP TABLE verdict_events; UPDATE meta SET value = '7' WHERE key = 'schema_version';",
        )
        .expect("schema 7");
    }
    let output = run(
        dir.path(),
        url,
        &[
            &crate::index::index_args(&index, "search")[..],
            &["verdict:rejected"],
        ]
        .concat(),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("older cantonscope (schema 7)"));
    // The next sync migrates it (no re-sync of the updates) and walks the events once more
    // for those between them; a sync after that has none left to walk.
    let (code, out, err) = sync(dir.path(), url, &index, &["--events", "--verify", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("migrated the index from schema 7 to schema 21")
            && err.contains("events with a verdict and no update"),
        "{err}"
    );
    let after = status(dir.path(), &index);
    assert_eq!(after["schema_version"], 21);
    assert_eq!(after["updates"], before["updates"]);
    assert_eq!(after["events"], before["events"]);
    assert_eq!(
        after["verdict_events"].as_u64(),
        Some(verdict_only),
        "{out}"
    );
    let (code, out, err) = sync(dir.path(), url, &index, &["--events", "--verify", "2"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out["events"]["pages"].as_u64(), Some(0), "{out}");
}

/// `index show` names an event with a verdict and no update of the index at `index` as it
/// names an update: whole, by a unique prefix, or as the screen shows it; a prefix it shares
/// with an update is ambiguous and lists both, each as what it is.
pub(crate) fn shown_by_prefix(dir: &std::path::Path, index: &str) {
    use cantonscope::model::id_pattern::IdPattern;
    let mut store = cantonscope::store::open_reader(&cantonscope::store::Location::parse(index))
        .expect("index opens");
    let verdict_only: Vec<String> = store
        .verdict_events(None, None)
        .expect("reads")
        .into_iter()
        .map(|e| e.update_id)
        .collect();
    let updates: Vec<String> = store
        .digests()
        .expect("reads")
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    drop(store);
    assert!(!verdict_only.is_empty() && !updates.is_empty());
    let all: Vec<&String> = verdict_only.iter().chain(&updates).collect();
    let named = |text: &str| -> Vec<&String> {
        let pattern = IdPattern::parse(text).expect("an id pattern");
        all.iter()
            .copied()
            .filter(|id| pattern.matches(id))
            .collect()
    };
    let show = |text: &str| crate::index_show::show(dir, index, text, &[]);

    let id = &verdict_only[verdict_only.len() / 2];
    let whole = crate::index_show::shown(dir, index, id);
    assert_eq!(whole["kind"], "verdict only", "{whole}");
    assert_eq!(whole["update_id"], id.as_str(), "{whole}");
    let as_shown = format!("{}…{}", &id[..12], &id[id.len() - 4..]);
    let bare_head = format!("{}…", &id[4..20]);
    for text in [as_shown.as_str(), bare_head.as_str(), &id[..24]] {
        assert_eq!(named(text), vec![id], "{text} names one id");
        assert_eq!(crate::index_show::shown(dir, index, text), whole, "{text}");
    }

    // The verdict-only event and the update sharing the longest head: that head names both.
    let common = |a: &str, b: &str| a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let (v, u) = verdict_only
        .iter()
        .flat_map(|v| updates.iter().map(move |u| (v, u)))
        .max_by_key(|(v, u)| common(v, u))
        .expect("a pair");
    let head = &v[..common(v, u)];
    let both = named(head);
    assert!(both.len() <= 20, "{head} names {} ids", both.len());
    let (code, out, err) = show(head);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains(&format!("names {} updates of the index", both.len()))
            && err.contains("give more of the id"),
        "{err}"
    );
    for listed in &both {
        let line = err
            .lines()
            .find(|l| l.contains(listed.as_str()))
            .unwrap_or_else(|| panic!("{listed} listed: {err}"));
        assert_eq!(
            line.ends_with("(verdict only)"),
            verdict_only.contains(listed),
            "{line}"
        );
    }
    assert!(both.contains(&v) && both.contains(&u), "{err}");
}
