//! The Validators pane (6) over a local index (issue 37 §4): the index synced from the demo's
//! beginning by the real binary; the pane lists every validator the index's kept history
//! licensed (the same as `index validators` prints), with its first licence, whether the
//! scan lists its licence now, its last activity and round and the rounds since, then asks the
//! scan for the faucets of all of them; its columns sort with the pane's sort keys. Without an
//! index the pane is unchanged (`pane_validators`).

use std::path::Path;

use cantonscope::msg::Command;
use cantonscope::panes::validators::{ValCol, ValidatorRow};
use crossterm::event::KeyCode;
use serde_json::Value;

use crate::common::{Harness, Options, assert_snapshot, stable};
use crate::index_explorer::screen as index_screen;
use crate::index_explorer::sync_index_from;

/// The explorer on the demo with an index of its whole history (`offline`: `--offline`).
fn with_whole_index(dir: &Path, offline: bool) -> Harness {
    let dir = dir.to_owned();
    Harness::start_with(Options {
        prepare: Box::new(move |demo, _now, settings| {
            let path = sync_index_from(&dir, &demo.scan_url, "begin");
            settings.index = Some(path.display().to_string());
            settings.offline = offline;
        }),
        ..Options::default()
    })
}

/// `index validators --no-scan` of the index in `dir`: the parties, sorted.
fn listed_by_the_cli(dir: &Path) -> Vec<String> {
    let index = dir.join("index.sqlite");
    let (code, out, err) = crate::index_validators::validators(
        dir,
        "http://127.0.0.1:9",
        &index,
        &["--no-scan", "--sort", "party"],
    );
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    doc["validators"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["party"].as_str().expect("party").to_owned())
        .collect()
}

#[test]
fn over_an_index_the_pane_lists_every_validator_ever_licensed_with_its_activity() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_whole_index(dir.path(), false);
    h.cmd(Command::Pane6);
    let p = &h.app.validators;
    assert!(p.error.is_none(), "{:?}", p.error);
    let kept = p.kept.as_ref().expect("the index's list");
    let mut parties: Vec<String> = kept.rows.iter().map(|r| r.party.clone()).collect();
    parties.sort();
    assert_eq!(parties, listed_by_the_cli(dir.path()));
    assert!(parties.len() >= 5, "{parties:?}");
    // Online: every licence is current, as the scan's licences endpoint says.
    assert!(kept.scan_note.is_none(), "{:?}", kept.scan_note);
    assert!(kept.rows.iter().all(|r| r.license_current == Some(true)));
    // Then the faucets of every one of them, asked of the scan as without an index.
    let mut asked = p.query.clone().expect("a faucet query");
    asked.sort();
    assert_eq!(asked, parties);
    assert_eq!(p.rows.len(), parties.len());
    for row in &p.rows {
        assert!(row.kept.is_some(), "{row:?}");
        assert!(
            matches!(row.faucets, Some(ValidatorRow::Stats(_))),
            "{row:?}"
        );
    }
    let screen = index_screen(&mut h, 120, 40);
    assert!(screen.contains("ever licensed (index)"), "{screen}");
    assert!(screen.contains("Last active"), "{screen}");
    assert_snapshot!("validators_over_an_index_120x40", screen);
    // The kept columns sort with the pane's sort keys: `o` steps through the columns.
    let mut seen = Vec::new();
    for _ in 0..12 {
        h.key(KeyCode::Char('o'));
        seen.push(h.app.validators.sort_col);
        if h.app.validators.sort_col == ValCol::Since {
            break;
        }
    }
    assert_eq!(h.app.validators.sort_col, ValCol::Since, "{seen:?}");
    let since: Vec<Option<i64>> = h
        .app
        .validators
        .ordered_ids()
        .iter()
        .map(|id| {
            h.app
                .validators
                .rows
                .iter()
                .find(|r| r.id() == *id)
                .and_then(|r| r.kept.as_ref())
                .and_then(|k| k.rounds_since)
        })
        .collect();
    // Descending first: the most rounds since the last activity on top.
    let known: Vec<i64> = since.iter().flatten().copied().collect();
    assert!(known.windows(2).all(|w| w[0] >= w[1]), "{since:?}");
}

#[test]
fn offline_the_index_alone_lists_them_and_says_the_licences_are_unknown() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_whole_index(dir.path(), true);
    h.cmd(Command::Pane6);
    let kept = h.app.validators.kept.as_ref().expect("the index's list");
    let mut parties: Vec<String> = kept.rows.iter().map(|r| r.party.clone()).collect();
    parties.sort();
    assert_eq!(parties, listed_by_the_cli(dir.path()));
    assert!(kept.rows.iter().all(|r| r.license_current.is_none()));
    assert_eq!(kept.scan_note.as_deref(), Some("offline"));
    let screen = stable(&h.screen(120, 40));
    assert!(
        screen.contains("licence currency unknown (offline)"),
        "{screen}"
    );
}
