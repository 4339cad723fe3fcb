//! View locators (issue 21): `w` copies the view's `cs1:` locator, `:open` and `cantonscope open`
//! go there; a malformed one is a usage error that says what was expected.

use crossterm::event::KeyCode;

use cantonscope::msg::Tabs;
use cantonscope::panes::PaneId;

use crate::common::{Harness, toast};

fn status_line(h: &mut Harness) -> String {
    h.screen(120, 40)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_copied_update_locator_opens_the_same_view_in_a_fresh_app() {
    let mut h = Harness::start();
    // Open the selected update, then copy its locator.
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Update);
    let open = h.app.update_pane.update_id().expect("open").to_string();
    h.key(KeyCode::Char('W'));
    let locator = h.copied.last().expect("copied").clone();
    assert_eq!(locator, format!("cs1:update/{open}"));
    assert_eq!(open.len(), 68, "the whole id, never the shortened form");
    assert!(status_line(&mut h).contains("copied view locator cs1:update/"));

    // A colleague's fresh explorer: `:open` lands on the same update in the Update pane.
    let mut other = Harness::start();
    assert_eq!(other.app.focus, PaneId::History);
    other.palette(&format!("open {locator}"));
    assert_eq!(other.app.focus, PaneId::Update);
    assert_eq!(other.app.update_pane.update_id(), Some(open.as_str()));
    assert!(other.app.update_pane.error().is_none());
    // … and its locator is the same text.
    other.key(KeyCode::Char('W'));
    assert_eq!(other.copied.last(), Some(&locator));

    // The verdict of that update: `#verdict`, and back the same way.
    h.key(KeyCode::Char('3'));
    assert_eq!(h.app.focus, PaneId::Verdict);
    h.key(KeyCode::Char('W'));
    let verdict = h.copied.last().expect("copied").clone();
    assert_eq!(verdict, format!("cs1:update/{open}#verdict"));
    let mut third = Harness::start();
    third.palette(&format!("open {verdict}"));
    assert_eq!(third.app.focus, PaneId::Verdict);
    assert_eq!(third.app.verdict.update_id(), Some(open.as_str()));
}

#[test]
fn network_check_and_pane_locators_round_trip_through_open() {
    let mut h = Harness::start();
    let selected = h.app.history.selected_update_id(&h.app.sh).expect("a row");
    h.key(KeyCode::Char('b'));
    assert_eq!(h.app.focus, PaneId::Network);
    h.key(KeyCode::Char('W'));
    let locator = h.copied.last().expect("copied").clone();
    assert_eq!(locator, format!("cs1:network/check/{selected}"));
    let mut other = Harness::start();
    other.palette(&format!("open {locator}"));
    assert_eq!(other.app.focus, PaneId::Network);
    assert_eq!(other.app.network.checked_update(), Some(selected.as_str()));

    // A pane without anything open: its name.
    h.key(KeyCode::Char('4'));
    h.key(KeyCode::Char('W'));
    assert_eq!(h.copied.last().map(String::as_str), Some("cs1:status"));
    other.palette("open cs1:status");
    assert_eq!(other.app.focus, PaneId::Status);
}

#[test]
fn a_history_locator_keeps_the_party_filter_and_the_time() {
    let mut h = Harness::start();
    let party = h
        .app
        .sh
        .history
        .iter()
        .flat_map(|s| h.app.sh.history.parties_of_update(&s.update_id()))
        .find(|p| p.contains("::"))
        .expect("a party")
        .to_string();
    h.palette(&format!("filter party:{party}"));
    h.key(KeyCode::Char('k'));
    h.key(KeyCode::Char('W'));
    let locator = h.copied.last().expect("copied").clone();
    assert!(
        locator.starts_with(&format!("cs1:history?party={party}")),
        "{locator}"
    );
    let mut other = Harness::start();
    other.palette(&format!("open {locator}"));
    assert_eq!(other.app.focus, PaneId::History);
    assert_eq!(
        other.app.history.filter_text().map(str::to_string),
        Some(format!("party:{party}"))
    );
}

#[test]
fn a_malformed_locator_in_the_palette_says_what_was_expected() {
    let mut h = Harness::start();
    h.palette("open cs1:update/1220abcd");
    let t = toast(&h);
    assert!(t.contains("not a whole update id"), "{t}");
    assert_eq!(h.app.focus, PaneId::History);
    h.palette("open cs2:status");
    let t = toast(&h);
    assert!(t.contains("version cs2 is not known"), "{t}");
    h.palette("open https://scan.example.com/api/scan");
    let t = toast(&h);
    assert!(t.contains("URL or host"), "{t}");
    assert_eq!(h.app.focus.title(), "History");
}

#[test]
fn cantonscope_open_with_a_malformed_locator_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (locator, says) in [
        ("cs1:update/1220abcd", "not a whole update id"),
        ("cs2:status", "version cs2 is not known"),
        ("https://scan.example.com/", "URL or host"),
    ] {
        let output = crate::common::bin::bin(dir.path())
            .args(["open", locator])
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{locator}: {err}");
        assert!(err.contains(says), "{locator}: {err}");
        assert!(err.contains("expected cs1:"), "{locator}: {err}");
        assert!(output.stdout.is_empty());
    }
}
