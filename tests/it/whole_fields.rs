//! Issue 21: `v` shows a field a pane draws cut whole (and `y` copies it, OSC 52) in the panes
//! drawn as cards or lines: the Status pane's cards, Governance Detail and Price votes, and the
//! Ledger pane's sections other than Trees (which has a value cursor of its own).

use cantonscope::app::Overlay;
use cantonscope::msg::Command;
use cantonscope::panes::PaneId;
use cantonscope::panes::governance::GovSection;
use cantonscope::panes::ledger::Section;
use crossterm::event::KeyCode;

use crate::common::Harness;

/// The fields `v` listed: (name, whole value).
fn fields(h: &Harness) -> Vec<(String, String)> {
    match &h.app.overlay {
        Some(Overlay::Fields(f)) => f
            .fields()
            .iter()
            .map(|f| (f.name.clone(), f.value.clone()))
            .collect(),
        _ => Vec::new(),
    }
}

/// Moves the fields' cursor to the first field whose name is `name`.
fn focus(h: &mut Harness, name: &str) {
    let at = fields(h)
        .iter()
        .position(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no field {name}: {:?}", fields(h)));
    h.key(KeyCode::Char('g'));
    for _ in 0..at {
        h.key(KeyCode::Char('j'));
    }
}

/// Status: `v` on the selected card lists its title and lines whole; Enter shows one whole, `y`
/// copies it.
#[test]
fn v_lists_a_status_cards_lines_whole_and_y_copies_one() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('4'));
    assert_eq!(h.app.focus, PaneId::Status);
    h.tick(0.5);
    let scan = h.app.sh.ctx.scan_urls[0].clone();
    h.key(KeyCode::Char('v'));
    let screen = h.screen(80, 24);
    assert!(screen.contains(" scan 1 card · "), "{screen}");
    let listed = fields(&h);
    assert_eq!(listed[0], ("card".into(), format!("scan 1 · {scan}")));
    let (name, whole) = listed
        .iter()
        .find(|(_, v)| v.contains("ports"))
        .cloned()
        .expect("the identity line");
    assert!(whole.starts_with("id scan-app · up "), "{whole}");
    focus(&mut h, &name);
    h.key(KeyCode::Char('y'));
    assert_eq!(h.copied.last(), Some(&whole), "y copies the line whole");
    h.key(KeyCode::Enter);
    assert!(h.screen(80, 24).contains("ports admin"));
    h.key(KeyCode::Esc);
    h.key(KeyCode::Esc);
    assert!(h.app.overlay.is_none());
    // The next card (the loaded history): its own lines.
    h.key(KeyCode::Char('j'));
    h.key(KeyCode::Char('v'));
    let listed = fields(&h);
    assert!(listed[0].1.starts_with("history · "), "{listed:?}");
    assert!(
        listed.iter().any(|(_, v)| v.contains("updates loaded")),
        "{listed:?}"
    );
}

/// Governance Detail at 80x24 cuts the Action's party id; `v` lists every line by its label,
/// whole, `y` copies the action whole. At 200x60 the Action row shows the party whole.
#[test]
fn v_shows_a_governance_details_cut_action_whole_and_200_columns_show_it() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('0'));
    h.tick(0.1);
    let at = h
        .app
        .governance
        .ordered()
        .iter()
        .position(|r| r.action.contains("::1220"))
        .expect("an open request whose action names a party");
    for _ in 0..at {
        h.cmd(Command::Down);
    }
    let action = h.app.governance.ordered()[at].action.clone();
    let party = action.rsplit(' ').next().expect("party").to_owned();
    assert!(party.len() > 70, "a whole party id: {party}");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.governance.section(), GovSection::Detail);
    let screen = h.screen(80, 24);
    assert!(!screen.contains(&party), "cut at 80 columns: {screen}");
    let wide = h.screen(200, 60);
    let row = wide
        .lines()
        .find(|l| l.contains("Action "))
        .expect("the Action row");
    assert!(row.contains(&action), "whole at 200 columns: {row}");
    crate::common::assert_snapshot!("governance_detail_200x60", crate::common::stable_hms(&wide));
    h.screen(80, 24);
    h.key(KeyCode::Char('v'));
    let listed = fields(&h);
    assert!(
        listed.contains(&("Action".into(), action.clone())),
        "{listed:?}"
    );
    assert!(listed.iter().any(|(n, _)| n == "Contract id"), "{listed:?}");
    focus(&mut h, "Action");
    h.key(KeyCode::Char('y'));
    assert_eq!(h.copied.last(), Some(&action));
    h.key(KeyCode::Enter);
    let screen = h.screen(80, 24);
    assert!(screen.contains(&party[party.len() - 16..]), "{screen}");
    h.key(KeyCode::Esc);
    h.key(KeyCode::Esc);
    // Price votes: each SV's vote by its name.
    h.key(KeyCode::Char(']'));
    assert_eq!(h.app.governance.section(), GovSection::PriceVotes);
    h.key(KeyCode::Char('v'));
    let listed = fields(&h);
    let vote = h
        .app
        .governance
        .price_votes()
        .expect("read")
        .votes
        .iter()
        .find_map(|v| v.amulet_price.clone())
        .expect("a price");
    assert!(listed.iter().any(|(n, _)| n == "Median"), "{listed:?}");
    let (sv, row) = listed
        .iter()
        .find(|(_, v)| v.starts_with(&vote))
        .cloned()
        .unwrap_or_else(|| panic!("a vote row of {vote}: {listed:?}"));
    focus(&mut h, &sv);
    h.key(KeyCode::Char('y'));
    assert_eq!(h.copied.last(), Some(&row));
}

/// Ledger: the Parties section's selected row (the party id whole) and the Package section's
/// download and id under the cursor.
#[test]
fn v_lists_the_ledger_sections_fields_whole() {
    let mut h = Harness::start();
    h.cmd(Command::Pane9);
    h.app.ledger.set_section(Section::Package);
    h.key(KeyCode::Char('v'));
    let listed = fields(&h);
    let seen = h.app.ledger.package.known_ids(&h.app.sh)[0].clone();
    assert_eq!(listed, vec![("package id seen".into(), seen.clone())]);
    // One field: open whole at once; y copies it.
    h.key(KeyCode::Char('y'));
    assert_eq!(h.copied.last(), Some(&seen));
    h.key(KeyCode::Esc);
    assert!(h.app.overlay.is_none());
    // Parties: look one up, then v lists its row.
    h.app.ledger.set_section(Section::Parties);
    let party = cantonscope::demo::generate(42).local_parties()[0].to_owned();
    h.cmd(Command::Edit);
    h.type_text(&party);
    h.key(KeyCode::Enter);
    assert_eq!(h.app.ledger.parties.party_ids(), vec![party.as_str()]);
    h.screen(80, 24);
    h.key(KeyCode::Char('v'));
    let listed = fields(&h);
    let (name, _) = listed
        .iter()
        .find(|(_, v)| *v == party)
        .cloned()
        .unwrap_or_else(|| panic!("the party whole: {listed:?}"));
    focus(&mut h, &name);
    h.key(KeyCode::Char('y'));
    assert_eq!(h.copied.last(), Some(&party));
}
