//! The network views of the explorer against the demo network with faults (13 scans: one
//! lagging 42 s, one down, one diverging, one still backfilling, one rate-limited): the Scans
//! matrix classifies each scan, its verdict line, sorting, filtering and the scan card; the
//! consensus view of one update (`:bft`, `b` from History and Update); the background sweep
//! (progress, cancel, the first differing update and its consensus check, saved as JSON).
//! Snapshots of the Network pane and the consensus view at 80x24 and 120x40.

use std::time::Duration;

use cantonscope::demo::{DemoConfig, DemoFaults, DemoTime, DownMode, generate};
use cantonscope::msg::Command;
use cantonscope::panes::network::NetSection;

use crate::common::{Harness, Options, assert_snapshot};

const SEED: u64 = 42;
const LAGGING: usize = 3;
const DOWN: usize = 5;
const DIVERGING: usize = 6;
const BACKFILLING: usize = 8;
const LIMITED: usize = 10;

/// The index of the first update the diverging scan changes (a transaction near the head), and
/// the first update the backfilling scan has.
fn fault_points() -> (usize, usize) {
    let ledger = generate(SEED);
    let n = ledger.len();
    let diverge = (n - 60..n)
        .find(|i| ledger.updates()[*i].tx().is_some())
        .expect("a transaction");
    (diverge, n - 150)
}

/// The explorer on a 13-scan demo network with every fault.
fn faulty() -> Harness {
    let (diverge, backfill) = fault_points();
    Harness::start_with(Options {
        seed: SEED,
        demo: Box::new(move |c: DemoConfig| {
            let ledger = generate(SEED);
            DemoConfig {
                stagger: false,
                faults: DemoFaults {
                    lagging: Some((LAGGING, Duration::from_secs(42))),
                    down: Some((DOWN, DownMode::Refused)),
                    diverging: Some((
                        DIVERGING,
                        DemoTime::At(ledger.updates()[diverge].record_time),
                    )),
                    backfilling: Some((
                        BACKFILLING,
                        DemoTime::At(ledger.updates()[backfill].record_time),
                    )),
                    rate_limit: Some((LIMITED, 5)),
                },
                ..c
            }
            .with_total_scans(13)
        }),
        ..Options::default()
    })
}

/// Latencies vary from run to run (and so does their width); clocks too.
fn masked(screen: &str) -> String {
    let s = crate::common::stable_hms(screen);
    regex::Regex::new(r" +(\d+ ms|<ms>)")
        .expect("regex")
        .replace_all(&s, " ~ms")
        .into_owned()
}

fn network_pane() -> Harness {
    let mut h = faulty();
    h.cmd(Command::Pane7);
    h
}

#[test]
fn the_matrix_classifies_every_scan() {
    let mut h = network_pane();
    assert_eq!(h.app.network.section(), NetSection::Scans);
    let rows = h.app.network.scan_rows().to_vec();
    assert_eq!(rows.len(), 13);
    let states: Vec<&str> = rows.iter().map(|r| r.state_name()).collect();
    let mut expected = vec!["healthy"; 13];
    expected[LAGGING] = "lagging";
    expected[DOWN] = "down";
    assert_eq!(states, expected);
    assert!(!rows[DOWN].observation.reachable);
    assert!(rows[LIMITED].observation.reachable, "429s are waited out");
    let verdict = h
        .app
        .network
        .network_health()
        .expect("measured")
        .verdict
        .clone();
    // The lagging scan's head is the last update at least 42 s before the newest one.
    let lag = rows[LAGGING].health.lag_behind_newest.expect("a lag") / 1_000_000;
    assert!((42..120).contains(&lag), "{lag}");
    assert_eq!(
        verdict,
        format!("13 scans · 11 healthy · 1 lagging {lag} s · 1 down · quorum 5 healthy ✓")
    );
    let screen = h.screen(120, 40);
    assert!(screen.contains(&verdict), "{screen}");
    assert!(screen.contains("Network 12/13 ok"), "badge: {screen}");
}

#[test]
fn the_matrix_refreshes_at_the_interval_sorts_filters_and_opens_a_card() {
    let mut h = network_pane();
    let rounds = |h: &Harness| h.requests.iter().filter(|r| *r == "network health").count();
    assert_eq!(rounds(&h), 1);
    // Within the refresh interval (2 s) nothing is asked again; after it, one more round.
    h.tick(1.0);
    assert_eq!(rounds(&h), 1);
    h.tick(1.5);
    assert_eq!(rounds(&h), 2);
    // Sort: o cycles the columns from the SV name; the health column puts down scans last.
    h.cmd(Command::Sort);
    h.cmd(Command::SortReverse);
    let first = h
        .app
        .network
        .scan_rows()
        .iter()
        .map(|r| r.entry.sv_name.clone());
    let mut names: Vec<String> = first.collect();
    names.sort();
    let shown = h.screen(120, 40);
    let last_name = names.last().expect("names");
    let pos_last = shown.find(last_name.as_str()).expect("shown");
    let pos_first = shown.find(names[0].as_str()).expect("shown");
    assert!(pos_last < pos_first, "reversed by name:\n{shown}");
    // / filters the rows.
    h.cmd(Command::Filter);
    h.type_text("down");
    h.key(crossterm::event::KeyCode::Enter);
    let screen = h.screen(120, 40);
    assert!(screen.contains("1 of 13 match"), "{screen}");
    // Enter opens the selected scan's card: its problems and what it answered.
    h.cmd(Command::Select);
    let card = h.screen(120, 40);
    assert!(card.contains("Fornax-Ops-1"), "{card}");
    assert!(card.contains("Reachable  no"), "{card}");
    assert!(card.contains("connection failed"), "{card}");
    h.cmd(Command::Back);
    assert!(!h.screen(120, 40).contains("Reachable  no"));
    h.cmd(Command::Back);
    assert!(h.screen(120, 40).contains("Orion-Node-3"), "filter cleared");
}

#[test]
fn snapshot_network_matrix_80x24() {
    let mut h = network_pane();
    assert_snapshot!("snapshot_network_matrix_80x24", masked(&h.screen(80, 24)));
}

#[test]
fn snapshot_network_matrix_120x40() {
    let mut h = network_pane();
    assert_snapshot!("snapshot_network_matrix_120x40", masked(&h.screen(120, 40)));
}
