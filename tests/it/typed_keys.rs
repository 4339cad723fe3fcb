//! What you type is never run as keys (issue 38): after a prompt-opening key that opens no
//! prompt (F without a local index), the query typed next is ignored until Esc or Enter.

use cantonscope::panes::PaneId;
use crossterm::event::KeyCode;

use crate::common::Harness;

#[test]
fn a_refused_index_search_swallows_the_query_typed_next() {
    let mut h = Harness::start();
    assert_eq!(h.app.focus, PaneId::History);
    let zone = h.app.sh.local_time;
    let (requests, copied) = (h.requests.len(), h.copied.len());
    h.key(KeyCode::Char('F'));
    let screen = h.screen(160, 40);
    assert!(screen.contains("index"), "F says why: {screen}");
    // `r` refreshes, `t` toggles the time zone, `y` copies, `:` opens the palette, `4` goes
    // to the Status pane: none of them runs.
    h.type_text("party:rty:4");
    assert_eq!(h.app.sh.local_time, zone, "`t` toggled the time zone");
    assert_eq!(h.requests.len(), requests, "`r` refreshed");
    assert_eq!(h.copied.len(), copied, "`y` copied");
    assert!(h.app.overlay.is_none(), "`:` opened the palette");
    assert_eq!(h.app.focus, PaneId::History, "`4` moved");
    let screen = h.screen(160, 40);
    assert!(screen.contains("typed text ignored"), "{screen}");
    // Esc ends it: keys work again.
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('4'));
    assert_eq!(h.app.focus, PaneId::Status);
}

#[test]
fn a_hint_goes_when_the_focus_leaves_its_pane_or_its_input_closes() {
    let mut h = Harness::start();
    // Validators' first show says what it queried and how to edit it: Validators' own hint.
    h.key(KeyCode::Char('6'));
    assert_eq!(h.app.focus, PaneId::Validators);
    assert!(crate::common::toast(&h).contains("i edits the list"));
    for pane in ['7', '8'] {
        h.key(KeyCode::Char(pane));
        let screen = h.screen(120, 40);
        assert!(
            !screen.contains("i edits the list"),
            "pane {pane}: {screen}"
        );
    }
    // Tab completing a party in History's filter: the hint is about the input, gone after
    // Enter closes it.
    h.key(KeyCode::Char('1'));
    let parties: Vec<String> = h
        .app
        .sh
        .history
        .parties()
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    let prefix = parties
        .iter()
        .filter_map(|p| p.get(..1))
        .find(|c| parties.iter().filter(|p| p.starts_with(c)).count() > 1)
        .expect("two parties sharing a first letter")
        .to_owned();
    h.key(KeyCode::Char('/'));
    h.type_text(&format!("party:{prefix}"));
    h.key(KeyCode::Tab);
    assert!(
        crate::common::toast(&h).contains("parties match: Tab the next"),
        "{}",
        crate::common::toast(&h)
    );
    h.key(KeyCode::Enter);
    let screen = h.screen(120, 40);
    assert!(!screen.contains("parties match"), "{screen}");
}
