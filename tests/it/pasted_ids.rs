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
    // `index search id:head…tail` checks the tail too: a short head the tail makes unique.
    let head_tail = format!("id:{}…{}", &whole[..8], &whole[60..]);
    let mut args = vec!["index", "--index", idx, "search", &head_tail];
    let output = run(dir.path(), url, &args);
    let out = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(out.lines().count(), 1, "{head_tail}: {out}");
    assert!(out.contains(whole.as_str()), "{out}");
    let last = whole.chars().last().expect("a digit");
    let other = if last == '0' { '1' } else { '0' };
    let wrong_tail = format!("id:{}…{}{other}", &whole[..8], &whole[60..67]);
    args[4] = &wrong_tail;
    let output = run(dir.path(), url, &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        !text(&output.stdout).contains(whole.as_str()),
        "{wrong_tail} is not {whole}"
    );
    // `open` a locator holding an abbreviation: the view of the whole id, completed from the
    // index before the explorer starts; none matching is a usage error.
    use clap::Parser as _;
    let abbreviated = format!("cs1:update/{}…{}#verdict", &whole[..8], &whole[60..]);
    let mut cli = cantonscope::cli::Cli::try_parse_from(["cantonscope", "open", &abbreviated])
        .expect("parses");
    let settings = cantonscope::config::Settings {
        index: Some(idx.to_owned()),
        ..cantonscope::config::Settings::default()
    };
    let command = cli.command.as_mut().expect("a command");
    cantonscope::headless::ids::resolve_command_ids(command, &settings).expect("completed");
    match command {
        cantonscope::cli::Command::Open(args) => assert_eq!(
            args.locator,
            cantonscope::model::locator::Locator::Update {
                update_id: whole.clone(),
                verdict: true
            }
        ),
        other => panic!("{other:?}"),
    }
    for (args, says) in [
        (
            vec!["--index", idx, "open", "cs1:update/ffffffff…"],
            "no update of the local index",
        ),
        (
            vec!["open", "cs1:network/check/ffffffff…"],
            "no local index to complete it from",
        ),
    ] {
        let output = run(dir.path(), url, &args);
        let err = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
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
        .map(|s| s.update_id().to_string())
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

/// The ids of the loaded updates, and of every update of the explorer's index.
fn loaded_and_indexed(
    h: &crate::common::Harness,
) -> (std::collections::HashSet<String>, Vec<String>) {
    let loaded = h
        .app
        .sh
        .history
        .iter()
        .map(|s| s.update_id().to_string())
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
    (loaded, rows.into_iter().map(|r| r.update_id).collect())
}

#[test]
fn event_with_an_abbreviation_of_an_update_not_loaded_looks_in_the_local_index() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = crate::index_explorer::with_index(dir.path(), false);
    let (loaded, ids) = loaded_and_indexed(&h);
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
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

#[test]
fn open_and_bft_take_abbreviations_completed_among_the_loaded_updates_or_in_the_index() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = crate::index_explorer::with_index(dir.path(), false);
    let (loaded, ids) = loaded_and_indexed(&h);
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    // The shortest head…tail naming `id` alone among the index's updates.
    let abbreviate = |id: &str| {
        (8..40)
            .map(|n| format!("{}…{}", &id[..n], &id[62..]))
            .find(|p| {
                let pattern = cantonscope::model::id_pattern::IdPattern::parse(p).expect("parses");
                ids.iter().filter(|i| pattern.matches(i)).count() == 1
            })
            .expect("a unique abbreviation")
    };
    let in_memory = *ids
        .iter()
        .find(|id| loaded.contains(**id))
        .expect("a loaded update");
    let not_loaded = *ids
        .iter()
        .find(|id| !loaded.contains(**id))
        .expect("an update of the index not loaded");

    // Loaded: completed at once.
    h.palette(&format!("open cs1:update/{}", abbreviate(in_memory)));
    assert_eq!(h.app.update_pane.update_id(), Some(in_memory));
    // Not loaded: found in the index, then the view the locator names.
    h.palette(&format!(
        "open cs1:update/{}#verdict",
        abbreviate(not_loaded)
    ));
    assert_eq!(h.app.focus, cantonscope::panes::PaneId::Verdict);
    assert_eq!(
        h.app.sh.current_update.as_deref(),
        Some(not_loaded),
        "{}",
        crate::common::toast(&h)
    );
    h.palette(&format!("bft {}", abbreviate(not_loaded)));
    assert_eq!(
        h.app.network.checked_update(),
        Some(not_loaded),
        ":bft: {}",
        crate::common::toast(&h)
    );
    h.palette("pane history");
    h.palette(&format!(
        "open cs1:network/check/{}",
        abbreviate(in_memory).replace('…', "...")
    ));
    assert_eq!(h.app.network.checked_update(), Some(in_memory));
    // Nothing in the index either: said so.
    h.palette("open cs1:update/ffffffffffff…");
    let said = crate::common::toast(&h);
    assert!(said.contains("nor in the local index"), "{said}");
    h.palette("bft ffffffffffff…");
    let said = crate::common::toast(&h);
    assert!(said.contains("nor in the local index"), "{said}");
}
