//! Zoom (`+`, as in lazygit): the focused pane gets the whole screen; `+` again or Esc gives it
//! back (issue 21).

use crossterm::event::KeyCode;

use cantonscope::panes::PaneId;

use crate::common::{Harness, assert_snapshot, stable};

#[test]
fn plus_zooms_the_focused_pane_and_plus_or_esc_gives_the_screen_back() {
    let mut h = Harness::start();
    let normal = h.screen(80, 24);
    // The header (at 80 columns the network's part takes the place of the program's name).
    assert!(
        normal
            .lines()
            .next()
            .unwrap_or_default()
            .contains("● scan OK · net 1/1")
    );
    h.key(KeyCode::Char('+'));
    assert!(h.app.zoomed);
    let zoomed = stable(&h.screen(80, 24));
    // No header, no tabs, no footer: the pane starts on the first row; the status line says how
    // to get back.
    let first = zoomed.lines().next().unwrap_or_default().to_string();
    assert!(
        !first.contains("cantonscope") && !first.contains("● scan"),
        "{first}"
    );
    assert!(first.contains("History"), "{first}");
    let last = zoomed.lines().last().unwrap_or_default().to_string();
    assert!(last.contains("History zoomed · + or Esc: back"), "{last}");
    // More rows of the table than unzoomed.
    let rows = |s: &str| s.lines().filter(|l| l.starts_with("│<hh:mm:ss>")).count();
    assert!(rows(&zoomed) > rows(&stable(&normal)), "{zoomed}");
    assert_snapshot!("zoom_history_80x24", zoomed);
    h.key(KeyCode::Char('+'));
    assert!(!h.app.zoomed);
    assert_eq!(h.screen(80, 24), normal);

    // Zoomed, the keys work as usual; Esc in a pane with nothing to close unzooms, and does not
    // leave the pane.
    h.key(KeyCode::Char('+'));
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Update);
    assert!(h.app.zoomed);
    let update = h.screen(80, 24);
    assert!(update.contains("Update zoomed"), "{update}");
    h.key(KeyCode::Esc);
    assert!(!h.app.zoomed);
    assert_eq!(h.app.focus, PaneId::Update);
    // Not zoomed: Esc goes back as before.
    h.key(KeyCode::Esc);
    assert_eq!(h.app.focus, PaneId::History);
}

#[test]
fn help_lists_the_zoom_and_locator_keys() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('?'));
    // The help overlay scrolls: look for the rows anywhere in it.
    let mut seen = String::new();
    for _ in 0..12 {
        seen.push_str(&h.screen(120, 40));
        h.key(KeyCode::PageDown);
    }
    assert!(
        seen.contains("zoom: the focused pane gets the whole screen"),
        "{seen}"
    );
    assert!(seen.contains("copy this view's locator"), "{seen}");
}
