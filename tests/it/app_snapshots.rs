//! Snapshots of the whole screen (header, tabs, pane, footer, status line) for the panes of the
//! explorer at 80x24 and 120x40, on the demo network (seed 42). Volatile parts (clock, ports,
//! latencies, ages) are masked by `common::stable`.

use crossterm::event::KeyCode;

use crate::common::{Harness, assert_snapshot, stable};

fn shots(h: &mut Harness, name: &str) {
    for (w, hgt) in [(80, 24), (120, 40)] {
        let screen = stable(&h.screen(w, hgt));
        assert_snapshot!(format!("{name}_{w}x{hgt}"), screen);
    }
}

#[test]
fn history_pane() {
    let mut h = Harness::start();
    shots(&mut h, "app_history");
}

#[test]
fn update_and_verdict_panes() {
    let mut h = Harness::start();
    h.key(KeyCode::Enter);
    shots(&mut h, "app_update");
    // → on the open root moves into its details.
    h.key(KeyCode::Char('l'));
    shots(&mut h, "app_update_details");
    h.key(KeyCode::Char('3'));
    shots(&mut h, "app_verdict");
}

#[test]
fn status_pane() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('4'));
    h.tick(0.3);
    shots(&mut h, "app_status");
}

#[test]
fn overlays() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('?'));
    shots(&mut h, "app_help");
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char(':'));
    h.type_text("th");
    shots(&mut h, "app_palette");
    h.key(KeyCode::Esc);
    h.palette("event 1220nothere");
    h.key(KeyCode::Char('!'));
    shots(&mut h, "app_error_log");
}

/// Writes the text captures of the README and the book's `docs/src/screens.md`
/// (`assets/screens/*.txt`, 120x40, real times) from the real explorer on the demo network. Run:
/// `cargo test --test it app_snapshots::write_readme_screens -- --ignored`.
#[test]
#[ignore = "writes assets/screens; run with --ignored to refresh the README and book captures"]
fn write_readme_screens() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/screens");
    std::fs::create_dir_all(dir).expect("assets/screens");
    let mut h = Harness::start();
    let save = |h: &mut Harness, name: &str| {
        let text = h.screen(120, 40);
        std::fs::write(format!("{dir}/{name}.txt"), text).expect("write capture");
    };
    save(&mut h, "history");
    // The biggest transaction among the last rows.
    for _ in 0..12 {
        if h.app
            .history
            .selected(&h.app.sh)
            .is_some_and(|s| s.event_count() >= 20)
        {
            break;
        }
        h.key(KeyCode::Char('k'));
    }
    h.key(KeyCode::Enter);
    h.key(KeyCode::Char('j'));
    save(&mut h, "update");
    h.key(KeyCode::Char('3'));
    save(&mut h, "verdict");
    h.key(KeyCode::Char('4'));
    h.tick(0.3);
    save(&mut h, "status");
    h.key(KeyCode::Char('5'));
    h.key(KeyCode::Char('i'));
    let parties: Vec<String> = h
        .app
        .sh
        .history
        .parties()
        .iter()
        .take(6)
        .map(std::string::ToString::to_string)
        .collect();
    h.type_text(&parties.join(" "));
    h.key(KeyCode::Enter);
    save(&mut h, "holdings");
    h.key(KeyCode::Char('6'));
    h.key(KeyCode::Char('i'));
    h.key(KeyCode::Enter);
    save(&mut h, "validators");
    h.key(KeyCode::Char('7'));
    save(&mut h, "network");
    h.key(KeyCode::Char('8'));
    save(&mut h, "proxy");
    h.key(KeyCode::Char('9'));
    for _ in 0..3 {
        h.key(KeyCode::Char(']'));
    }
    h.key(KeyCode::Char('i'));
    h.key(KeyCode::Enter);
    save(&mut h, "ledger");
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('0'));
    h.tick(0.3);
    save(&mut h, "governance");
    // Results (the fourth section), then SVs.
    for _ in 0..3 {
        h.key(KeyCode::Char(']'));
    }
    save(&mut h, "governance-results");
    h.key(KeyCode::Char(']'));
    h.tick(0.3);
    save(&mut h, "governance-svs");
}
