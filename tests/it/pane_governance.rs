//! The Governance pane (0) against the demo network: Open and Detail in snapshots at 80x24 and
//! 120x40, "needs my vote" (the request my SV has not voted on reads `needed`, the one it voted
//! on `accepted`), Enter / Esc between Open and Detail, and polling at `governance_interval`
//! (not at the refresh rate) with `r` reading at once.

use cantonscope::model::governance::{MyVote, price_stats};
use cantonscope::msg::Command;
use cantonscope::panes::PaneId;
use cantonscope::panes::governance::{GovSection, NOT_LOADED_TEXT};
use crossterm::event::KeyCode;

use crate::common::{Harness, assert_snapshot, count, stable_hms};

/// The explorer on the demo with the Governance pane shown (by its key, `0`).
fn shown() -> Harness {
    let mut h = Harness::start();
    h.key(KeyCode::Char('0'));
    assert_eq!(h.app.focus, PaneId::Governance);
    h.tick(0.1);
    h
}

#[test]
fn key_0_shows_the_open_requests_sorted_by_deadline() {
    let h = shown();
    let rows = h.app.governance.ordered();
    assert!(rows.len() >= 3, "{rows:?}");
    let deadlines: Vec<i64> = rows.iter().filter_map(|r| r.deadline()).collect();
    assert_eq!(deadlines.len(), rows.len());
    assert!(deadlines.windows(2).all(|w| w[0] <= w[1]), "{deadlines:?}");
}

#[test]
fn open_says_which_request_needs_my_vote_and_which_my_sv_accepted() {
    let mut h = shown();
    let rows = h.app.governance.ordered();
    let needed: Vec<_> = rows
        .iter()
        .filter(|r| r.my_vote == Some(MyVote::Needed))
        .collect();
    let accepted: Vec<_> = rows
        .iter()
        .filter(|r| r.my_vote == Some(MyVote::Accepted))
        .collect();
    assert!(!needed.is_empty(), "{rows:?}");
    assert!(!accepted.is_empty(), "{rows:?}");
    let (needed_action, accepted_action) = (needed[0].action.clone(), accepted[0].action.clone());
    let screen = h.screen(160, 40);
    let line_of = |action: &str| {
        let cut: String = action.chars().take(20).collect();
        screen
            .lines()
            .find(|l| l.contains(&cut))
            .unwrap_or_else(|| panic!("{action} in\n{screen}"))
            .to_string()
    };
    assert!(line_of(&needed_action).contains("needed"), "{screen}");
    assert!(line_of(&accepted_action).contains("accepted"), "{screen}");
    assert!(
        screen.contains("needs my vote") || screen.contains("need my vote"),
        "{screen}"
    );
}

#[test]
fn open_snapshots() {
    let mut h = shown();
    assert_snapshot!("open_120x40", stable_hms(&h.screen(120, 40)));
    assert_snapshot!("open_80x24", stable_hms(&h.screen(80, 24)));
}

#[test]
fn enter_opens_the_detail_and_esc_goes_back_to_open() {
    let mut h = shown();
    h.cmd(Command::Down);
    let key = h
        .app
        .governance
        .selected()
        .expect("a selected row")
        .key
        .clone();
    h.key(KeyCode::Enter);
    assert_eq!(h.app.governance.section(), GovSection::Detail);
    assert_eq!(h.app.governance.chosen().map(|r| r.key.clone()), Some(key));
    let screen = h.screen(120, 40);
    assert!(screen.contains("Contract id"), "{screen}");
    h.key(KeyCode::Esc);
    assert_eq!(h.app.governance.section(), GovSection::Open);
    assert_eq!(h.app.focus, PaneId::Governance);
}

#[test]
fn detail_snapshots_with_the_votes_and_the_config_diff() {
    let mut h = shown();
    // The config change (it carries a baseConfig).
    let at = h
        .app
        .governance
        .ordered()
        .iter()
        .position(|r| r.action_name.ends_with("SetConfig"))
        .expect("a config change is open");
    for _ in 0..at {
        h.cmd(Command::Down);
    }
    h.key(KeyCode::Enter);
    let screen = h.screen(120, 40);
    assert!(screen.contains("against its baseConfig"), "{screen}");
    assert!(screen.contains('★'), "{screen}");
    assert!(screen.contains(NOT_LOADED_TEXT), "{screen}");
    assert_snapshot!("detail_config_120x40", stable_hms(&screen));
    assert_snapshot!("detail_config_80x24", stable_hms(&h.screen(80, 24)));
}

#[test]
fn requests_are_read_at_the_governance_interval_and_r_reads_now() {
    let mut h = shown();
    let first = h.app.governance.read_at().expect("read on first show");
    // Ticks at the refresh rate do not read again.
    for _ in 0..5 {
        h.tick(2.0);
    }
    assert_eq!(h.app.governance.read_at(), Some(first));
    h.key(KeyCode::Char('r'));
    assert_eq!(h.app.governance.read_at(), Some(h.now));
    let r_at = h.now;
    h.tick(5.0);
    assert_eq!(h.app.governance.read_at(), Some(r_at));
    let every = h.app.sh.ctx.governance_every as f64 / 1e6;
    h.tick(every);
    assert_eq!(h.app.governance.read_at(), Some(h.now));
}

#[test]
fn price_votes_show_each_svs_vote_the_median_spread_and_the_price_in_force() {
    let mut h = shown();
    assert!(
        h.app.governance.price_votes().is_none(),
        "read only when shown"
    );
    h.key(KeyCode::Char(']'));
    h.key(KeyCode::Char(']'));
    assert_eq!(h.app.governance.section(), GovSection::PriceVotes);
    let votes = h
        .app
        .governance
        .price_votes()
        .expect("read on first show")
        .clone();
    assert!(!votes.votes.is_empty());
    let stats = price_stats(&votes.votes);
    let screen = h.screen(120, 40);
    let median = stats.median.expect("a median");
    assert!(screen.contains(&format!("Median    {median}")), "{screen}");
    assert!(screen.contains("In force"), "{screen}");
    assert!(!screen.contains("In force  unknown"), "{screen}");
    assert!(screen.contains('★'), "{screen}");
    assert_snapshot!("prices_120x40", stable_hms(&screen));
    assert_snapshot!("prices_80x24", stable_hms(&h.screen(80, 24)));
}

#[test]
fn price_votes_are_read_at_the_governance_interval_and_r_reads_them_now() {
    let mut h = shown();
    h.key(KeyCode::Char('['));
    assert_eq!(h.app.governance.section(), GovSection::PriceVotes);
    let before = count(&h, "amulet price votes");
    assert_eq!(before, 1, "{:?}", h.requests);
    h.tick(2.0);
    assert_eq!(count(&h, "amulet price votes"), 1);
    h.key(KeyCode::Char('r'));
    assert_eq!(count(&h, "amulet price votes"), 2);
    let every = h.app.sh.ctx.governance_every as f64 / 1e6;
    h.tick(every);
    assert_eq!(count(&h, "amulet price votes"), 3);
}

#[test]
fn zz_explore() {
    let mut h = Harness::start_with(crate::common::Options {
        scans: 4,
        faults: cantonscope::demo::DemoFaults {
            lagging: Some((3, std::time::Duration::from_secs(42))),
            ..cantonscope::demo::DemoFaults::default()
        },
        ..crate::common::Options::default()
    });
    h.key(KeyCode::Char('0'));
    h.tick(0.1);
    for _ in 0..3 {
        h.key(KeyCode::Char(']'));
    }
    println!("{}", h.screen(120, 40));
    println!("{}", h.screen(80, 24));
    h.key(KeyCode::Enter);
    println!("{}", h.screen(120, 40));
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char(']'));
    h.tick(0.1);
    h.key(KeyCode::Down);
    println!("{}", h.screen(120, 40));
    println!("{}", h.screen(80, 24));
    h.key(KeyCode::Char('b'));
    println!("{}", h.screen(120, 40));
    println!("{}", h.screen(80, 24));
    println!("{:?}", h.requests);
}
