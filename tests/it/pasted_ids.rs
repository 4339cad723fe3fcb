//! Update ids pasted as the screen draws them (issue 38): `9237fcb34d82…`, `1220d17b…9f1e`.
//! A malformed id is a usage error before any scan is asked; an abbreviation is completed from
//! the local index (a unique match) and never sent to a scan as typed.

use cantonscope::model::format::{format_time_micros, parse_time_micros};
use cantonscope::model::index::query::Query;
use cantonscope::store::{Location, open_reader};

use crate::index::{four, from, run, sync, temp, text};

/// Nothing listens there: a scan asked would be a connection error (not exit 2).
const NO_SCAN: &str = "http://127.0.0.1:9";

#[test]
fn a_malformed_or_abbreviated_id_without_an_index_is_a_usage_error_and_no_scan_is_asked() {
    let (dir, _) = temp();
    let cases: &[(&[&str], &str)] = &[
        (&["network", "check-update", "zz"], "is not an update id"),
        (&["network", "check-update", "x…"], "is not an update id"),
        (
            &["network", "check-update", "9237fcb34d82…"],
            "no local index to complete it from",
        ),
        (
            &["network", "check-update", "1220d17b...9f1e"],
            "no local index to complete it from",
        ),
        (
            &["scan", "event", "9237…"],
            "no local index to complete it from",
        ),
        (&["scan", "event", "no-such-update"], "is not an update id"),
    ];
    for (args, says) in cases {
        let output = run(dir.path(), NO_SCAN, args);
        let err = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("no scan has update"), "{args:?}: {err}");
    }
}

#[test]
fn an_abbreviated_id_is_completed_from_the_index_and_an_ambiguous_one_is_refused() {
    let demo = four();
    let url = &demo.handle.scan_url;
    let (dir, index) = temp();
    let until = parse_time_micros(from()).expect("a time") + 600_000_000;
    let (code, _, err) = sync(
        dir.path(),
        url,
        &index,
        &[
            "--from",
            from(),
            "--until",
            &format_time_micros(until),
            "--verify",
            "1",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let mut store = open_reader(&Location::Sqlite(index.clone())).expect("opens");
    let rows = store
        .search(
            &Query::parse(&["id:1220"]).expect("a query"),
            None,
            None,
            1000,
        )
        .expect("searches");
    assert!(rows.len() > 1, "{}", rows.len());
    let whole = &rows[0].update_id;
    let idx = index.to_str().expect("utf-8");
    // As the lists draw it (without 1220), and as a wide column does (head and tail).
    for pasted in [
        format!("{}…", &whole[4..16]),
        format!("{}…{}", &whole[..8], &whole[64..]),
        format!("{}...", &whole[..20]),
    ] {
        let output = run(dir.path(), url, &["--index", idx, "scan", "event", &pasted]);
        let (out, err) = (text(&output.stdout), text(&output.stderr));
        assert_eq!(output.status.code(), Some(0), "{pasted}: {err}");
        assert!(out.contains(whole.as_str()), "{pasted}: {out}");
        let output = run(
            dir.path(),
            url,
            &["--index", idx, "network", "check-update", &pasted],
        );
        let (out, err) = (text(&output.stdout), text(&output.stderr));
        assert!(out.contains(whole.as_str()), "{pasted}: {out} {err}");
        assert!(!err.contains("no scan has update"), "{pasted}: {err}");
    }
    // `1220…` names every update of the index: how many, a few of them, exit 2.
    let output = run(dir.path(), url, &["--index", idx, "scan", "event", "1220…"]);
    let err = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains("ambiguous: ") && err.contains(" matches ("),
        "{err}"
    );
    // No update of the index matches: said, exit 2.
    let output = run(
        dir.path(),
        url,
        &["--index", idx, "network", "check-update", "ffffffff…"],
    );
    let err = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("no update of the local index"), "{err}");
}

#[test]
fn an_id_pasted_as_the_screen_draws_it_opens_in_event_and_a_malformed_one_names_nothing() {
    let mut h = crate::common::Harness::start();
    let ids: Vec<String> = h
        .app
        .sh
        .history
        .iter()
        .map(|s| s.update_id.to_string())
        .collect();
    let target = ids.last().expect("updates").clone();
    let unique = |pasted: &str| {
        let pattern = cantonscope::model::id_pattern::IdPattern::parse(pasted).expect(pasted);
        ids.iter().filter(|id| pattern.matches(id)).count() == 1
    };
    let head_tail = (8..40)
        .map(|n| format!("{}…{}", &target[..n], &target[64..]))
        .find(|p| unique(p))
        .expect("a unique head…tail");
    let head = (12..40)
        .map(|n| format!("{}...", &target[4..n]))
        .find(|p| unique(p))
        .expect("a unique head");
    for pasted in [head_tail, head] {
        h.cmd(cantonscope::msg::Command::Pane1);
        h.palette(&format!("event {pasted}"));
        assert_eq!(
            h.app.update_pane.update_id(),
            Some(target.as_str()),
            ":event {pasted}"
        );
    }
    // Text that is no id names no loaded update (and goes to no scan).
    h.palette("event zz…");
    let status = h.screen(160, 40);
    assert!(status.contains("not found among"), "{status}");
    assert_eq!(h.app.update_pane.update_id(), Some(target.as_str()));
}

#[test]
fn event_with_an_abbreviation_of_an_update_not_loaded_looks_in_the_local_index() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = crate::index_explorer::with_index(dir.path(), false);
    let loaded: std::collections::HashSet<String> = h
        .app
        .sh
        .history
        .iter()
        .map(|s| s.update_id.to_string())
        .collect();
    let index = h.app.sh.ctx.index.clone().expect("an index");
    let mut store = open_reader(&Location::parse(&index)).expect("opens");
    let rows = store
        .search(
            &Query::parse(&["id:1220"]).expect("a query"),
            None,
            None,
            100_000,
        )
        .expect("searches");
    let ids: Vec<&str> = rows.iter().map(|r| r.update_id.as_str()).collect();
    let target = *ids
        .iter()
        .find(|id| !loaded.contains(**id))
        .expect("an update of the index not loaded");
    let pasted = (12..40)
        .map(|n| format!("{}…", &target[4..n]))
        .find(|p| {
            let pattern = cantonscope::model::id_pattern::IdPattern::parse(p).expect("parses");
            ids.iter().filter(|id| pattern.matches(id)).count() == 1
        })
        .expect("a unique head");
    h.palette(&format!("event {pasted}"));
    assert_eq!(
        h.app.update_pane.update_id(),
        Some(target),
        ":event {pasted}: {}",
        crate::common::toast(&h)
    );
    // Nothing in the index either: said so.
    h.palette("event ffffffffffff…");
    let said = crate::common::toast(&h);
    assert!(said.contains("nor in the local index"), "{said}");
}
