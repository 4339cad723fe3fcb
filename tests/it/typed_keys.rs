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
