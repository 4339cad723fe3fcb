//! The network views of the explorer against the demo network with faults (13 scans: one
//! lagging 42 s, one down, one diverging, one still backfilling, one rate-limited): the Scans
//! matrix classifies each scan, its verdict line, sorting, filtering and the scan card; the
//! consensus view of one update (`:bft`, `b` from History and Update); the background sweep
//! (progress, cancel, every range of differing updates and the first one's consensus check,
//! saved as JSON: the same document `network sweep` prints).
//! Snapshots of the Network pane and the consensus view at 80x24 and 120x40.

use std::time::Duration;

use cantonscope::demo::{DemoConfig, DemoFaults, DemoTime, DownMode, generate};
use cantonscope::msg::{Command, PaneId};
use cantonscope::panes::network::NetSection;
use cantonscope::panes::network::class_label;
use crossterm::event::{KeyCode, KeyModifiers};

use crate::common::{Harness, Options, assert_snapshot, toast};

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
    faulty_with(|_| {})
}

/// [`faulty`], its settings set up further by `tweak`.
fn faulty_with(tweak: impl FnOnce(&mut cantonscope::config::Settings) + 'static) -> Harness {
    let (diverge, backfill) = fault_points();
    Harness::start_with(Options {
        seed: SEED,
        tweak: Box::new(tweak),
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
                    // One measurement's requests fit (status, version, rounds,
                    // backfilling, latest event record time, the head's page): the 429s
                    // are met by other bursts only.
                    rate_limit: Some((LIMITED, 6)),
                    ..DemoFaults::default()
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

/// The Status verdict line (the first line of the pane).
fn status_verdict(h: &mut Harness) -> String {
    let screen = h.screen(200, 60);
    screen
        .lines()
        .find(|l| l.contains("network "))
        .unwrap_or_else(|| panic!("no network part:\n{screen}"))
        .to_owned()
}

#[test]
fn the_status_verdict_follows_my_nodes_and_names_every_scan_that_is_not_healthy() {
    // An SV's profile: its own scan (the others are discovered from its /v0/scans).
    let mut h = faulty_with(|s| s.extra_scan_urls.clear());
    h.cmd(Command::Pane4);
    let names: Vec<String> = h
        .app
        .network
        .scan_rows()
        .iter()
        .map(|r| r.entry.sv_name.clone())
        .collect();
    assert_eq!(
        names.len(),
        13,
        "the app measured the network without the Network pane"
    );
    let line = status_verdict(&mut h);
    // My nodes are fine: the headline is green although two scans of the network are not.
    assert!(
        line.trim_start().starts_with("HEALTHY  my nodes OK · "),
        "{line}"
    );
    assert!(line.contains("network 9 of 13 healthy, quorum ✓"), "{line}");
    assert!(line.contains(&format!("{} down", names[DOWN])), "{line}");
    // The diverging scan is forked (the head check found it), named first.
    assert!(
        line.contains(&format!("quorum ✓ · {} forked", names[DIVERGING])),
        "{line}"
    );
    // Issue 21: the backfilling scan is not counted healthy, and is named.
    assert!(
        line.contains(&format!("{} backfilling", names[BACKFILLING])),
        "{line}"
    );
    let behind = regex::Regex::new(&format!("{} \\d+ s behind", regex::escape(&names[LAGGING])))
        .expect("regex");
    assert!(behind.is_match(&line), "{line}");
    // The down and the lagging scan are never counted healthy: 11, not 12 or 13.
    assert!(!line.contains("13 of 13"), "{line}");
    // Enter opens the Network pane on the first scan the verdict names (the forked one);
    // Esc comes back.
    h.cmd(Command::Select);
    assert_eq!(h.app.focus, PaneId::Network);
    assert_eq!(
        h.app
            .network
            .selected_scan()
            .map(|r| r.entry.sv_name.clone()),
        Some(names[DIVERGING].clone())
    );
    h.cmd(Command::Back);
    assert_eq!(h.app.focus, PaneId::Status);
}

#[test]
fn my_sv_is_the_scans_own_and_the_sv_key_overrides_it() {
    let mut h = faulty();
    h.cmd(Command::Pane7);
    let mine = h
        .app
        .sh
        .health
        .dso
        .my_sv()
        .and_then(|m| m.name.clone())
        .expect("my SV from the scan's /v0/dso");
    // The profile's scan is the first one listed: its SV is mine.
    let own = h.app.network.scan_rows()[0].entry.sv_name.clone();
    assert_eq!(mine, own);
    let screen = h.screen(120, 40);
    assert!(screen.contains(&format!("★ {own}")), "{screen}");
    assert_eq!(screen.matches('★').count(), 1, "{screen}");

    // The profile's sv key wins over the scan's answer.
    let other = h.app.network.scan_rows()[LAGGING].entry.sv_name.clone();
    let key = other.clone();
    let mut h = faulty_with(move |s| s.sv = Some(key));
    h.cmd(Command::Pane7);
    let screen = h.screen(200, 60);
    assert!(screen.contains(&format!("★ {other}")), "{screen}");
    assert!(!screen.contains(&format!("★ {own}")), "{screen}");
    assert!(screen.contains(&format!("my SV: {other} (from the profile's sv key)")));
    let my = h.app.sh.health.dso.my_sv().expect("my SV");
    assert!(my.describe().contains("sv key"), "{}", my.describe());
}

#[test]
fn the_matrix_classifies_every_scan() {
    let mut h = network_pane();
    assert_eq!(h.app.network.section(), NetSection::Scans);
    let rows = h.app.network.scan_rows().to_vec();
    assert_eq!(rows.len(), 13);
    let states: Vec<&str> = rows
        .iter()
        .map(cantonscope::panes::network::ScanRow::state_name)
        .collect();
    let mut expected = vec!["healthy"; 13];
    expected[LAGGING] = "lagging";
    expected[DOWN] = "down";
    expected[BACKFILLING] = "backfill";
    // The diverging scan differs at the head: the head check finds it forked.
    expected[DIVERGING] = "forked";
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
        format!(
            "13 scans · 9 healthy · 1 lagging {lag} s · 1 backfilling · 1 down · 1 forked · quorum 5 healthy ✓"
        )
    );
    let screen = h.screen(120, 40);
    assert!(screen.contains(&verdict), "{screen}");
    assert!(screen.contains("7 Network 13 "), "badge: {screen}");
}

#[test]
fn the_matrix_refreshes_at_the_interval_sorts_filters_and_opens_a_card() {
    let mut h = network_pane();
    let rounds = |h: &Harness| h.requests.iter().filter(|r| *r == "network health").count();
    assert_eq!(rounds(&h), 1);
    // Within the network's interval (30 s, not the refresh interval) nothing is asked again;
    // after it, one more round.
    h.tick(29.0);
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
    let screen = h.screen(120, 40);
    // The rows, below the header (the verdict line above it names my SV).
    let shown = &screen[screen.find(" Host ").expect("the header")..];
    let last_name = names.last().expect("names");
    let pos_last = shown.find(last_name.as_str()).expect("shown");
    let pos_first = shown.find(names[0].as_str()).expect("shown");
    assert!(pos_last < pos_first, "reversed by name:\n{shown}");
    // Wide, the Host column shows the path that tells the demo's scans apart (/svK).
    let wide = h.screen(200, 60);
    assert!(wide.contains("/sv13 "), "{wide}");
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
    // Its measurement time says its zone, as every other time does.
    let measured = card
        .lines()
        .find(|l| l.contains("Measured"))
        .unwrap_or_else(|| panic!("no Measured line: {card}"));
    assert!(measured.contains(" UTC"), "{measured}");
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

#[test]
fn at_200_columns_the_sv_column_fits_the_longest_name_and_the_host_column_takes_the_rest() {
    let mut h = network_pane();
    // The longest SV cell as drawn: my SV's star, the name, `*` on the profile's own scan.
    let longest = h
        .app
        .network
        .scan_rows()
        .iter()
        .map(|r| {
            let star = if h.app.sh.health.dso.is_mine(&r.entry.sv_name) {
                2
            } else {
                0
            };
            star + r.entry.sv_name.chars().count() + usize::from(r.entry.own)
        })
        .max()
        .expect("scans measured");
    let screen = h.screen(200, 60);
    let header = screen
        .lines()
        .find(|l| l.contains("SV ") && l.contains(" Host "))
        .unwrap_or_else(|| panic!("no header:\n{screen}"));
    let cols: Vec<char> = header.chars().collect();
    let at = |title: &str| {
        let t: Vec<char> = title.chars().collect();
        cols.windows(t.len())
            .position(|w| w == t.as_slice())
            .expect(title)
    };
    // The SV column (and the gap after it) is no wider than the longest name.
    let sv_width = at(" Host ") - at("SV ");
    assert!(
        sv_width <= longest.max(12),
        "SV column {sv_width} wide, longest name {longest}:\n{header}"
    );
    // Every name is shown whole; the Host column gets the spare width (wider than its 16).
    for r in h.app.network.scan_rows() {
        assert!(
            screen.contains(&r.entry.sv_name),
            "{} cut:\n{screen}",
            r.entry.sv_name
        );
    }
    let host_width = at("Reach") - at(" Host ") - 2;
    assert!(host_width > 32, "Host column {host_width} wide:\n{header}");
}

fn classes(h: &Harness) -> Vec<String> {
    h.app
        .network
        .consensus_rows()
        .iter()
        .map(|r| class_label(&r.update).into_owned())
        .collect()
}

#[test]
fn the_consensus_view_classifies_every_scan() {
    let (diverge, backfill) = fault_points();
    let ledger = generate(SEED);
    let mut h = faulty();
    // After the divergence point: the diverging scan disagrees in one JSON path, with both
    // values; the down scan is unreachable; the others agree.
    let diverged = ledger.updates()[diverge].update_id.clone();
    h.palette(&format!("bft {diverged}"));
    assert_eq!(h.app.focus, PaneId::Network);
    assert!(h.app.network.is_consensus_open());
    let mut expected = vec!["agree".to_owned(); 13];
    expected[DOWN] = "unreachable".into();
    expected[DIVERGING] = "disagree".into();
    assert_eq!(classes(&h), expected);
    let rows = h.app.network.consensus_rows().to_vec();
    assert_eq!(
        class_label(rows[DIVERGING].event.as_ref().expect("a verdict")),
        "disagree",
        "the verdict too"
    );
    assert!(rows[0].latency_ms.is_some());
    let check = h.app.network.consensus().expect("checked");
    assert_eq!(
        check.update.check.verdict(),
        "consensus: 11 of 13 agree on one answer (quorum 5) ✓ · 1 disagrees · 1 without an answer"
    );
    for _ in 0..DIVERGING {
        h.cmd(Command::Down);
    }
    let screen = h.screen(120, 40);
    assert!(screen.contains("$.workflow_id"), "{screen}");
    // Enter shows the differences with both values.
    h.key(KeyCode::Enter);
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("-diverged\"") || screen.contains("\"diverged\""),
        "{screen}"
    );

    // An old update the backfilling scan has not reached: "don't know", not a disagreement.
    let old = ledger.updates()[backfill - 10].update_id.clone();
    h.palette(&format!("bft {old}"));
    let mut expected = vec!["agree".to_owned(); 13];
    expected[DOWN] = "unreachable".into();
    expected[BACKFILLING] = "don't know".into();
    assert_eq!(classes(&h), expected);

    // The newest update: the lagging scan's 404 is "don't know" (its history does not reach
    // it); the detail does not name the update's own record time as the scan's history end.
    let newest_update = &ledger.updates()[ledger.len() - 1];
    let newest = newest_update.update_id.clone();
    h.palette(&format!("bft {newest}"));
    let got = classes(&h);
    assert_eq!(got[LAGGING], "don't know", "{got:?}");
    assert_eq!(got[0], "agree");
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("its history does not reach this update yet"),
        "{screen}"
    );
    let own_time = cantonscope::model::summary::format_time_micros(newest_update.record_time);
    assert!(!screen.contains(&own_time[..19]), "{screen}");

    // A unique prefix of a loaded update checks that update, as :event takes it.
    let loaded = h
        .app
        .history
        .selected_update_id(&h.app.sh)
        .expect("a loaded update");
    let prefix = &loaded[..16];
    h.palette(&format!("bft {prefix}"));
    let screen = h.screen(120, 40);
    assert!(
        screen.contains(&loaded[..40]),
        "checks the whole id: {screen}"
    );
    // A prefix nothing loaded starts with is refused, not sent.
    h.palette("bft 1220deadbeef");
    assert!(
        crate::common::toast(&h).contains("bft 1220deadbeef: not found among"),
        "{}",
        crate::common::toast(&h)
    );
    // A whole id no scan has: "not found", without the tick of a verified update.
    h.palette(&format!("bft 1220{}", "ab".repeat(32)));
    let screen = h.screen(120, 40);
    assert!(screen.contains("not found: "), "{screen}");
    assert!(screen.contains("no such update"), "{screen}");
    assert!(!screen.contains(") ✓"), "{screen}");

    // Esc goes back to the matrix.
    h.cmd(Command::Back);
    assert!(!h.app.network.is_consensus_open());
    assert!(h.screen(120, 40).contains("quorum 5 healthy"));
    // b on the matrix goes back to the last check.
    h.key(KeyCode::Char('b'));
    assert!(h.app.network.is_consensus_open());
}

#[test]
fn b_checks_the_update_selected_in_history_and_open_in_update() {
    let mut h = faulty();
    h.cmd(Command::Pane1);
    let selected = h
        .app
        .history
        .selected_update_id(&h.app.sh)
        .expect("a selected update");
    h.key(KeyCode::Char('b'));
    assert_eq!(h.app.focus, PaneId::Network);
    assert!(h.app.network.is_consensus_open());
    assert_eq!(
        h.app.network.consensus().map(|c| c.update_id.clone()),
        Some(selected.clone())
    );
    assert_eq!(classes(&h)[0], "agree");
    // From the Update pane: the open update.
    let ledger = generate(SEED);
    let other = ledger.updates()[ledger.len() - 5].update_id.clone();
    h.palette(&format!("event {other}"));
    assert_eq!(h.app.focus, PaneId::Update);
    h.key(KeyCode::Char('b'));
    assert_eq!(
        h.app.network.consensus().map(|c| c.update_id.clone()),
        Some(other)
    );
    // Where no update is selected and there is no query, b says how to use it (Holdings
    // queries the selected update's parties on first show, so it has one: the Ledger pane).
    h.cmd(Command::Pane9);
    h.key(KeyCode::Char('b'));
    assert_eq!(h.app.focus, PaneId::Ledger);
}

fn consensus_shown() -> Harness {
    let (diverge, _) = fault_points();
    let ledger = generate(SEED);
    let mut h = faulty();
    h.palette(&format!("bft {}", ledger.updates()[diverge].update_id));
    for _ in 0..DIVERGING {
        h.cmd(Command::Down);
    }
    h
}

#[test]
fn snapshot_consensus_80x24() {
    let mut h = consensus_shown();
    assert_snapshot!("snapshot_consensus_80x24", masked(&h.screen(80, 24)));
}

#[test]
fn snapshot_consensus_120x40() {
    let mut h = consensus_shown();
    assert_snapshot!("snapshot_consensus_120x40", masked(&h.screen(120, 40)));
}

#[test]
fn the_sweep_lists_every_range_of_differing_updates_and_opens_the_first_check() {
    let (diverge, _) = fault_points();
    let ledger = generate(SEED);
    let mut h = faulty();
    h.cmd(Command::Pane7);
    // The sweep starts at the oldest loaded update; the diverging scan differs in every
    // transaction from its point on: the first of those in the swept range is the answer.
    let start = h.app.sh.history.first().expect("loaded").record_time();
    let expected = ledger.updates()[diverge..]
        .iter()
        .find(|u| u.record_time >= start && u.tx().is_some())
        .expect("a transaction after the start")
        .update_id
        .clone();
    // S asks where from; ↵ on the empty prompt starts at the oldest loaded update; the harness
    // runs every page to the end.
    h.key(KeyCode::Char('S'));
    let prompt = h.screen(120, 40);
    assert!(
        prompt.contains("Sweep from")
            && prompt.contains("empty: oldest loaded · begin · -2h · yesterday 14:00 · RFC 3339"),
        "{prompt}"
    );
    assert!(h.app.network.is_editing());
    h.key(KeyCode::Enter);
    let sweep = h.app.network.sweep_state();
    assert_eq!(
        sweep.start().map(|c| c.record_time.clone()),
        Some(cantonscope::model::summary::format_time_micros(start - 1))
    );
    assert!(!sweep.is_running());
    // It went on to the head: every transaction from the divergence point on differs.
    assert_eq!(
        sweep.end(),
        Some(&cantonscope::model::sweep::SweepEnd::ReachedHead)
    );
    let swept = sweep.sweep.as_ref().expect("swept");
    let txs: Vec<_> = ledger.updates()[diverge..]
        .iter()
        .filter(|u| u.record_time >= start && u.tx().is_some())
        .collect();
    assert_eq!(swept.differing_updates(), txs.len() as u64);
    let ranges = swept.ranges();
    assert_eq!(ranges.len(), 1, "{ranges:#?}");
    assert_eq!(ranges[0].first.update_id, expected);
    assert_eq!(
        ranges[0].last.update_id,
        txs.last().expect("a transaction").update_id
    );
    assert_eq!(ranges[0].sides[1].members, [DIVERGING]);
    let pages = h
        .requests
        .iter()
        .filter(|r| *r == "network sweep page")
        .count();
    assert!(pages >= 1, "{pages}");
    // The status line says as many pages as were read.
    assert_eq!(swept.counts().0, pages as u64);
    // Its consensus check is open.
    assert!(h.app.network.is_consensus_open());
    assert_eq!(
        h.app.network.consensus().map(|c| c.update_id.clone()),
        Some(expected.clone())
    );
    let screen = h.screen(120, 40);
    assert!(
        screen.contains(&format!("sweep {} differing updates in 1 range", txs.len())),
        "{screen}"
    );
    // The ranges are listed above it: the count, the scan off the reference, the path.
    let listed = screen
        .lines()
        .find(|l| l.contains("against 11 scans"))
        .unwrap_or_else(|| panic!("no range line:\n{screen}"));
    assert!(
        listed.contains(&txs.len().to_string())
            && listed.contains("Gemini-Labs-2")
            && listed.contains("$.workflow_id"),
        "{listed}"
    );
    assert!(screen.contains("differing ranges: 1"), "{screen}");
    // Saved as JSON, the path named in the status line.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("sweep.json");
    h.palette(&format!("sweep save {}", path.display()));
    assert!(
        toast(&h).contains(&format!("sweep saved to {}", path.display())),
        "{}",
        toast(&h)
    );
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("saved")).expect("json");
    assert_eq!(saved["schema"], "cantonscope.sweep/1");
    assert_eq!(saved["end"], "reached_head");
    assert_eq!(saved["differing_updates"], txs.len());
    assert_eq!(saved["truncated"], false);
    // Pages as the status line counts them (it said `page 1` where the file said 0).
    assert_eq!(saved["pages"], pages);
    assert_eq!(saved["ranges"][0]["first_update_id"], expected.as_str());
    assert_eq!(saved["ranges"][0]["sides"][1]["scans"][0], "Gemini-Labs-2");
    assert_eq!(saved["ranges"][0]["example_path"], "$.workflow_id");

    // `network sweep` over the same scans from the same start, 200 updates a page as here,
    // prints the same document (but for where it started, in words).
    let cli = crate::common::bin::bin(dir.path())
        .arg("--scan-url")
        .arg(&h.demo.as_ref().expect("demo").scan_url)
        .args([
            "network",
            "sweep",
            "--quiet",
            "--page-size",
            "200",
            "--from",
        ])
        .arg(cantonscope::model::summary::format_time_micros(start - 1))
        .output()
        .expect("runs");
    assert_eq!(
        cli.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&cli.stderr)
    );
    let mut printed: serde_json::Value = serde_json::from_slice(&cli.stdout).expect("json");
    let mut saved = saved;
    for doc in [&mut printed, &mut saved] {
        doc.as_object_mut().expect("an object").remove("from");
    }
    assert_eq!(printed, saved);
}

/// The explorer after a sweep from the oldest loaded update: the ranges listed above the
/// sweep's outcome, the first differing update's consensus check open.
fn swept() -> Harness {
    let mut h = faulty();
    h.cmd(Command::Pane7);
    h.palette("sweep");
    assert!(h.app.network.sweep_state().end().is_some());
    h
}

#[test]
fn snapshot_sweep_ranges_80x24() {
    let mut h = swept();
    assert_snapshot!("snapshot_sweep_ranges_80x24", masked(&h.screen(80, 24)));
}

#[test]
fn snapshot_sweep_ranges_120x40() {
    let mut h = swept();
    assert_snapshot!("snapshot_sweep_ranges_120x40", masked(&h.screen(120, 40)));
}

/// `s` asks where to save (pre-filled with `./sweep-<time>.json`); a file that exists is never
/// replaced silently: the prompt comes back saying so, and ↵ on the same name replaces it.
#[test]
fn saving_the_sweep_asks_for_the_path_and_never_replaces_a_file_silently() {
    let mut h = faulty();
    h.cmd(Command::Pane7);
    h.key(KeyCode::Char('s'));
    assert!(toast(&h).contains("no sweep to save"), "{}", toast(&h));
    h.palette("sweep");
    assert!(h.app.network.sweep_state().end().is_some());
    h.key(KeyCode::Char('s'));
    let screen = h.screen(120, 40);
    assert!(screen.contains("Save sweep to ./sweep-20"), "{screen}");
    h.key(KeyCode::Esc);
    assert!(!h.app.network.is_editing());

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mine.json");
    std::fs::write(&path, "keep me").expect("write");
    h.palette(&format!("sweep save {}", path.display()));
    assert_eq!(std::fs::read_to_string(&path).expect("file"), "keep me");
    assert!(toast(&h).contains("exists: not replaced"), "{}", toast(&h));
    assert!(h.app.network.is_editing());
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("this file exists: ↵ again replaces it"),
        "{screen}"
    );
    h.key(KeyCode::Enter);
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("saved")).expect("json");
    assert!(
        saved["from"]
            .as_str()
            .is_some_and(|f| f.starts_with("the oldest loaded update")),
        "{}",
        saved["from"]
    );
    assert!(saved["start_after"]["record_time"].is_string());
    assert!(
        toast(&h).contains(&format!("sweep saved to {}", path.display())),
        "{}",
        toast(&h)
    );
    // A path that cannot be written is an error in the status line.
    let bad = dir.path().join("no-such-dir").join("x.json");
    h.palette(&format!("sweep save {}", bad.display()));
    assert!(
        toast(&h).contains(&format!("could not save the sweep to {}", bad.display())),
        "{}",
        toast(&h)
    );
    // The file is the rest of the line: spaces in a path are kept as typed.
    let spaced = dir.path().join("my  sweep of today.json");
    h.palette(&format!("sweep save {}", spaced.display()));
    assert!(spaced.exists(), "{}", toast(&h));
    assert!(
        toast(&h).contains(&format!("sweep saved to {}", spaced.display())),
        "{}",
        toast(&h)
    );
}

/// `S` then a time (as `:time` reads it): where it is in the scans' history is looked up first
/// (its migration), and the sweep starts right after it; `:sweep from` does the same at once. A
/// time that cannot be read is refused in the prompt and in the palette.
#[test]
fn the_sweep_starts_from_the_time_the_user_gives() {
    let (diverge, _) = fault_points();
    let ledger = generate(SEED);
    let n = ledger.len();
    let mut h = faulty();
    h.cmd(Command::Pane7);
    let at = &ledger.updates()[n - 300];
    let start = at.record_time;
    assert!(
        start < h.app.sh.history.first().expect("loaded").record_time(),
        "before the loaded window"
    );
    let expected = ledger.updates()[diverge..]
        .iter()
        .find(|u| u.record_time > start && u.tx().is_some())
        .expect("a transaction")
        .update_id
        .clone();
    let when = cantonscope::model::summary::format_time_micros(start);

    // A time the prompt cannot read stays in the prompt, saying why.
    h.key(KeyCode::Char('S'));
    h.type_text("next tuesday");
    h.key(KeyCode::Enter);
    assert!(h.app.network.is_editing());
    assert!(h.screen(120, 40).contains("not a time"));
    h.key(KeyCode::Esc);
    assert!(!h.app.network.sweep_state().is_running());

    h.key(KeyCode::Char('S'));
    h.type_text(&when);
    h.key(KeyCode::Enter);
    assert!(!h.app.network.is_editing());
    assert_eq!(
        h.requests
            .iter()
            .filter(|r| *r == "network sweep start")
            .count(),
        1
    );
    let sweep = h.app.network.sweep_state();
    let cursor = sweep.start().expect("a start");
    assert_eq!(
        (cursor.migration_id, cursor.record_time.as_str()),
        (at.migration_id, when.as_str())
    );
    assert!(
        sweep.from.starts_with(&h.app.sh.format_time(start)),
        "{}",
        sweep.from
    );
    let first = sweep
        .sweep
        .as_ref()
        .and_then(|s| s.ranges().first())
        .map(|r| r.first.update_id.clone());
    assert_eq!(first, Some(expected.clone()), "{:?}", sweep.end());
    let (_, updates) = h
        .app
        .network
        .sweep_state()
        .sweep
        .as_ref()
        .expect("swept")
        .counts();
    assert!(
        updates < 300,
        "{updates} updates: it started at the time given"
    );

    // The palette: the same, at once.
    h.palette(&format!("sweep from {when}"));
    assert_eq!(
        h.requests
            .iter()
            .filter(|r| *r == "network sweep start")
            .count(),
        2
    );
    assert_eq!(
        h.app
            .network
            .sweep_state()
            .start()
            .map(|c| c.record_time.clone()),
        Some(when.clone())
    );
    h.palette("sweep from next tuesday");
    assert!(toast(&h).contains("not a time"), "{}", toast(&h));
}

#[test]
fn the_sweep_runs_in_the_background_and_s_stops_it() {
    let mut h = faulty();
    h.cmd(Command::Pane7);
    // S opens the prompt; ↵ starts it. One page in flight, nothing blocks: the app answers
    // keys meanwhile.
    h.cmd(Command::Sweep);
    assert!(h.app.network.is_editing());
    assert!(h.app.network.sweep_state().sweep.is_none());
    let effects = h.app.update(cantonscope::msg::Action::Key(
        crossterm::event::KeyEvent::from(KeyCode::Enter),
    ));
    let ids: Vec<_> = effects
        .iter()
        .filter_map(|e| match e {
            cantonscope::msg::Effect::Fetch { id, request } => {
                matches!(request, cantonscope::msg::Request::SweepPage { .. }).then_some(*id)
            }
            _ => None,
        })
        .collect();
    assert_eq!(ids.len(), 1);
    assert!(h.app.network.sweep_state().is_running());
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("sweep ") && screen.contains("S stop"),
        "{screen}"
    );
    h.cmd(Command::Down);
    // S again stops it: the page is cancelled.
    let effects = h
        .app
        .update(cantonscope::msg::Action::Command(Command::Sweep));
    assert!(effects.contains(&cantonscope::msg::Effect::Cancel(ids[0])));
    assert!(!h.app.network.sweep_state().is_running());
}

/// Holdings of the first `n` parties of the loaded history (the form opened with the parties of
/// the update selected in History emptied first).
fn holdings_of_loaded_parties(h: &mut Harness, n: usize) {
    h.cmd(Command::Pane5);
    h.key(KeyCode::Char('i'));
    h.key_mod(KeyCode::Char('k'), KeyModifiers::CONTROL);
    let parties: Vec<String> = h
        .app
        .sh
        .history
        .parties()
        .iter()
        .take(n)
        .map(std::string::ToString::to_string)
        .collect();
    h.type_text(&parties.join(" "));
    h.key(KeyCode::Enter);
}

#[test]
fn b_asks_the_query_of_another_pane_of_every_scan() {
    let mut h = faulty();
    holdings_of_loaded_parties(&mut h, 3);
    h.key(KeyCode::Char('b'));
    assert_eq!(h.app.focus, PaneId::Network);
    assert!(h.app.network.is_consensus_open());
    assert!(
        h.requests
            .iter()
            .any(|r| r == "on every scan: holdings summary"),
        "{:?}",
        h.requests
    );
    let got = classes(&h);
    assert_eq!(got.len(), 13);
    assert_eq!(got[0], "agree");
    assert_eq!(got[DOWN], "unreachable");
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("On every scan: holdings summary of 3 parties"),
        "{screen}"
    );
    assert!(screen.contains("answer  consensus:"), "{screen}");
    // r asks again.
    h.cmd(Command::Refresh);
    let asked = h
        .requests
        .iter()
        .filter(|r| *r == "on every scan: holdings summary")
        .count();
    assert_eq!(asked, 2);
}

#[test]
fn a_query_on_every_scan_names_its_answer_and_esc_goes_back_where_it_was_asked() {
    let mut h = faulty();
    let dso = generate(SEED).dso_party().to_string();
    // Party hosting: look up the DSO, then b asks every scan.
    h.cmd(Command::Pane7);
    while h.app.network.section() != NetSection::Participants {
        h.cmd(Command::NextSection);
    }
    h.cmd(Command::Edit);
    h.key(KeyCode::Down);
    h.type_text(&dso);
    h.key(KeyCode::Enter);
    assert!(h.app.network.participants().is_some(), "looked up");
    h.key(KeyCode::Char('b'));
    assert!(h.app.network.is_consensus_open());
    let screen = h.screen(120, 40);
    let header = screen
        .lines()
        .find(|l| l.contains("SV ") && l.contains("Latency"))
        .unwrap_or_else(|| panic!("a table header in\n{screen}"))
        .to_owned();
    // Not an update and no verdict: the columns say what was asked.
    assert!(header.contains("Answer"), "{header}");
    assert!(!header.contains("Update"), "{header}");
    assert!(!header.contains("Verdict"), "{header}");
    // Esc: back to Party hosting, not to the Scans matrix.
    h.cmd(Command::Back);
    assert!(!h.app.network.is_consensus_open());
    assert_eq!(h.app.network.section(), NetSection::Participants);
    assert_eq!(h.app.focus, PaneId::Network);

    // From Holdings (another pane): Esc goes back to Holdings.
    holdings_of_loaded_parties(&mut h, 2);
    let holdings = h.app.focus;
    assert_ne!(holdings, PaneId::Network);
    h.key(KeyCode::Char('b'));
    assert_eq!(h.app.focus, PaneId::Network);
    assert!(h.app.network.is_consensus_open());
    h.cmd(Command::Back);
    assert_eq!(h.app.focus, holdings);
    assert!(!h.app.network.is_consensus_open());
    // An update check still has both columns.
    let ledger = generate(SEED);
    h.palette(&format!(
        "bft {}",
        ledger.updates()[ledger.len() - 5].update_id
    ));
    let screen = h.screen(120, 40);
    assert!(
        screen
            .lines()
            .any(|l| l.contains("SV ") && l.contains("Update") && l.contains("Verdict")),
        "{screen}"
    );
}

#[test]
fn b_on_the_amulet_rules_asks_every_scan_for_them() {
    let mut h = faulty();
    h.cmd(Command::Pane8);
    h.key(KeyCode::Char('b'));
    assert_eq!(h.app.focus, PaneId::Network);
    assert!(h.app.network.is_consensus_open());
    assert!(
        h.requests
            .iter()
            .any(|r| r == "on every scan: amulet rules"),
        "{:?}",
        h.requests
    );
    let got = classes(&h);
    assert_eq!(got.len(), 13);
    assert_eq!(got[0], "agree");
    assert_eq!(got[LAGGING], "agree");
    assert_eq!(got[DIVERGING], "agree");
    assert_eq!(got[DOWN], "unreachable");
    let screen = h.screen(120, 40);
    assert!(screen.contains("On every scan: amulet rules"), "{screen}");
    assert!(screen.contains("answer  consensus:"), "{screen}");
}

/// Issue 21: at 120 columns every scan's host cell tells it apart from the others (the demo's
/// scans share `127.0.0.1:<port>`; the cell shows the part after it), never `127.0.0.1:41329…`.
#[test]
fn hosts_are_told_apart_at_120_columns() {
    let mut h = network_pane();
    let screen = h.screen(120, 40);
    let hosts: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains(" active ") || l.contains(" down "))
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect();
    assert!(hosts.len() >= 12, "{screen}");
    let unique: std::collections::HashSet<&&str> = hosts.iter().collect();
    assert_eq!(unique.len(), hosts.len(), "{screen}");
    assert!(!hosts.iter().any(|h| h.ends_with('…')), "{screen}");
}

/// Issue 21: the differences of the selected scan sit beside the check's table from 160
/// columns on (below, Enter shows them instead of the table: see the next test).
#[test]
fn snapshot_consensus_200x60_the_differences_are_beside_the_table() {
    let mut h = consensus_shown();
    let screen = masked(&h.screen(200, 60));
    // Beside: on the table's header line.
    assert_eq!(
        line_of(&screen, "── Gemini-Labs-2"),
        line_of(&screen, "SV     "),
        "{screen}"
    );
    assert!(
        screen.contains("quorum \"\"  this \"diverged\""),
        "{screen}"
    );
    assert_snapshot!("snapshot_consensus_200x60", screen);
    // Enter changes nothing there: the differences are already beside the table.
    h.key(KeyCode::Enter);
    assert!(!h.app.network.is_consensus_diff_shown());
    assert_eq!(masked(&h.screen(200, 60)), screen);
    // Esc closes the check (there is no view of the differences to close first).
    h.key(KeyCode::Esc);
    assert!(!h.app.network.is_consensus_open());
}

/// The line of `screen` holding `what`.
fn line_of(screen: &str, what: &str) -> usize {
    screen
        .lines()
        .position(|l| l.contains(what))
        .unwrap_or_else(|| panic!("{what} on screen:\n{screen}"))
}

/// Operator habits: below 160 columns the differences are not squeezed under the table: the
/// table alone (Enter named in the footer on a scan that differs), Enter shows the selected
/// scan's differences instead of the table (the whole body, Esc named in the footer), Esc goes
/// back to the table (the check stays open, the same scan selected), Esc again closes the check.
#[test]
fn below_160_columns_enter_shows_the_differences_instead_of_the_table_and_esc_goes_back() {
    let (diverge, _) = fault_points();
    let ledger = generate(SEED);
    let mut h = faulty();
    h.screen(120, 40);
    h.palette(&format!("bft {}", ledger.updates()[diverge].update_id));
    assert!(h.app.network.is_consensus_open());
    // On the first scan (it agrees) Enter is not offered.
    let table = masked(&h.screen(120, 40));
    assert!(table.contains("Orion-Node-3"), "{table}");
    assert!(!table.contains("Enter open"), "{table}");
    for _ in 0..DIVERGING {
        h.cmd(Command::Down);
    }
    // The table alone, its Detail naming the first path; Enter is offered.
    let table = masked(&h.screen(120, 40));
    assert!(table.contains("Orion-Node-3"), "{table}");
    assert!(table.contains("$.workflow_id"), "{table}");
    assert!(!table.contains("── Gemini-Labs-2"), "{table}");
    assert!(table.contains("Enter open"), "{table}");

    h.key(KeyCode::Enter);
    assert!(h.app.network.is_consensus_diff_shown());
    let diff = masked(&h.screen(120, 40));
    // The differences right under the verdict lines, no table.
    assert_eq!(
        line_of(&diff, "── Gemini-Labs-2: 2 difference(s)"),
        line_of(&diff, "verdict consensus:") + 1,
        "{diff}"
    );
    assert!(
        diff.contains("update $.workflow_id  quorum \"\"  this \"diverged\""),
        "{diff}"
    );
    assert!(
        diff.contains("verdict $.update.workflow_id  quorum \"\"  this \"diverged\""),
        "{diff}"
    );
    for row in ["SV     ", "Orion-Node-3", "Boreal-Ops-2", "unreachable"] {
        assert!(!diff.contains(row), "{row} hidden:\n{diff}");
    }
    assert!(diff.contains("Esc back"), "{diff}");
    assert!(!diff.contains("Enter open"), "{diff}");
    // ↑/↓ do not move the hidden table's selection.
    h.cmd(Command::Down);
    assert!(h.app.network.is_consensus_diff_shown());
    assert_snapshot!("snapshot_consensus_differences_120x40", diff);
    assert_snapshot!(
        "snapshot_consensus_differences_80x24",
        masked(&h.screen(80, 24))
    );

    // Esc: the table again, the check still open on the same scan.
    h.key(KeyCode::Esc);
    assert!(h.app.network.is_consensus_open());
    assert!(!h.app.network.is_consensus_diff_shown());
    let back = masked(&h.screen(120, 40));
    assert!(back.contains("Orion-Node-3"), "{back}");
    assert!(!back.contains("── Gemini-Labs-2"), "{back}");
    assert_eq!(back, table);
    // On a scan that agrees, Enter says so and shows nothing else.
    h.cmd(Command::Top);
    h.key(KeyCode::Enter);
    assert!(!h.app.network.is_consensus_diff_shown());
    assert!(
        toast(&h).contains("Aurora-Node-1: no differences to show (agree)"),
        "{}",
        toast(&h)
    );
    assert!(masked(&h.screen(120, 40)).contains("Orion-Node-3"));
    // Esc again closes the check.
    h.key(KeyCode::Esc);
    assert!(!h.app.network.is_consensus_open());
}

/// Each scan's verdict ingestion lag (its newest update's record time minus its
/// `/v0/events/latest-record-time`): a column of the matrix when it fits, a line of the scan's
/// card, and the Status card of my scan. The demo's last scan is older (no such endpoint: its
/// path answers 404 as `/v0/events/{update_id}`): "—", not an error, and not unhealthy.
#[test]
fn verdict_ingestion_lag_per_scan_in_the_matrix_the_card_and_status() {
    let mut h = network_pane();
    let rows = h.app.network.scan_rows().to_vec();
    let old = rows.len() - 1;
    for (i, r) in rows.iter().enumerate() {
        match i {
            DOWN => assert_eq!(r.health.verdict_lag, None),
            i if i == old => {
                assert_eq!(r.observation.verdict_head, Some(Ok(None)), "absent");
                assert_eq!(r.health.verdict_lag, None);
                assert_eq!(r.state_name(), "healthy", "absent is no fault");
            }
            _ => {
                let lag = r
                    .health
                    .verdict_lag
                    .unwrap_or_else(|| panic!("scan {i}: {r:?}"));
                let head = match &r.observation.head {
                    Some(Ok(Some(head))) => head.record_time,
                    other => panic!("scan {i} head {other:?}"),
                };
                assert_eq!(Some(head - lag), r.health.verdict_head, "scan {i}");
                assert!((0..600_000_000).contains(&lag), "scan {i}: {lag}");
            }
        }
    }
    // The column, at 200 columns: the old scan's row says "—".
    let wide = h.screen(200, 60);
    assert!(wide.contains("Vrd lag"), "{wide}");
    let old_name = rows[old].entry.sv_name.clone();
    let old_row = wide
        .lines()
        .find(|l| l.contains(&format!("{old_name} ")))
        .unwrap_or_else(|| panic!("{old_name}: {wide}"));
    assert!(old_row.contains('—'), "{old_row}");
    // The card of the first scan, then of the old one.
    h.cmd(Command::Select);
    let card = h.screen(120, 40);
    assert!(card.contains("verdict ingestion lag"), "{card}");
    h.cmd(Command::Back);
    for _ in 0..old {
        h.cmd(Command::Down);
    }
    h.cmd(Command::Select);
    let card = h.screen(120, 40);
    assert!(card.contains(&old_name), "{card}");
    assert!(card.contains("Splice before 0.8"), "{card}");
    h.cmd(Command::Back);
    // Status: my scan's card, from the same measurement.
    h.cmd(Command::Pane4);
    let status = h.screen(200, 60);
    let lag = rows[0].health.verdict_lag.expect("scan 1's lag") / 1_000_000;
    assert!(
        status.contains(&format!("verdict ingestion lag {lag} s")),
        "{status}"
    );
}

/// Issue 35: the header's first line never hides a scan that is down, lagging or forked, at
/// 80 columns as at 200; at 80 the newest update's part gives way to it.
#[test]
fn the_header_counts_down_lagging_and_forked_scans_at_every_width() {
    let mut h = faulty();
    let part = regex::Regex::new(r"net 9/13 · 1 down · 1 lag \d+s · 1 forked · 1 backfill")
        .expect("regex");
    let wide = h.screen(200, 60);
    let wide = wide.lines().next().unwrap_or_default();
    assert!(part.is_match(wide), "{wide}");
    assert!(
        wide.contains("● scan OK") && wide.contains("newest"),
        "{wide}"
    );
    let narrow = h.screen(80, 24);
    let narrow = narrow.lines().next().unwrap_or_default();
    assert!(part.is_match(narrow), "{narrow}");
    assert!(!narrow.contains("newest"), "{narrow}");
    assert!(unicode_width::UnicodeWidthStr::width(narrow.trim_end()) <= 80);
}

/// Issue 35: at 80x24 the Status verdict names the failing scans before anything else.
#[test]
fn at_80_columns_the_status_verdict_names_the_failing_scans_first() {
    let mut h = faulty_with(|s| s.extra_scan_urls.clear());
    h.cmd(Command::Pane4);
    let names: Vec<String> = h
        .app
        .network
        .scan_rows()
        .iter()
        .map(|r| r.entry.sv_name.clone())
        .collect();
    let screen = h.screen(80, 24);
    let line = screen
        .lines()
        .find(|l| l.contains(" HEALTHY ") || l.contains(" DEGRADED "))
        .unwrap_or_else(|| panic!("no verdict:\n{screen}"));
    let forked = format!("{} forked", names[DIVERGING]);
    let down = format!("{} down", names[DOWN]);
    assert!(line.contains(&forked), "{line}");
    let at = |s: &str| line.find(s).unwrap_or(usize::MAX);
    assert!(at(&forked) < at("my nodes"), "{line}");
    // What does not fit is counted, and only that.
    if !line.contains(&down) {
        assert!(line.contains("more (Enter)"), "{line}");
    }
}

/// Issue 35: the findings log lists what the head check found (the forked scan, the scan
/// down); `a` acknowledges one; a new finding while the explorer runs rings once (what the
/// first measurement found does not).
#[test]
fn the_findings_log_lists_acknowledges_and_a_new_finding_rings_once() {
    let (diverge, _) = fault_points();
    let ledger = generate(SEED);
    let mut h = network_pane();
    let names: Vec<String> = h
        .app
        .network
        .scan_rows()
        .iter()
        .map(|r| r.entry.sv_name.clone())
        .collect();
    assert!(
        h.announced.is_empty(),
        "found at the first measurement: {:?}",
        h.announced
    );
    // `[` from the matrix: the findings, the last section.
    h.cmd(Command::PrevSection);
    assert_eq!(h.app.network.section(), NetSection::Findings);
    let rows = h.app.network.finding_rows().to_vec();
    let forked = rows
        .iter()
        .find(|r| r.finding.kind == cantonscope::model::findings::FindingKind::Forked)
        .unwrap_or_else(|| panic!("no forked finding: {rows:?}"));
    assert_eq!(forked.finding.name, names[DIVERGING]);
    assert!(
        forked
            .finding
            .path
            .as_deref()
            .is_some_and(|p| p.starts_with('$'))
    );
    assert!(rows.iter().any(|r| {
        r.finding.kind == cantonscope::model::findings::FindingKind::ScanDown
            && r.finding.name == names[DOWN]
    }));
    let screen = h.screen(200, 60);
    assert!(screen.contains("Findings"), "{screen}");
    assert!(
        screen.contains(&names[DIVERGING]) && screen.contains("forked"),
        "{screen}"
    );
    // a on the forked one: acknowledged, still listed.
    let at = rows.iter().position(|r| r.id == forked.id).expect("listed");
    for _ in 0..at {
        h.cmd(Command::Down);
    }
    assert_eq!(
        h.app.network.selected_finding().map(|r| r.id.clone()),
        Some(forked.id.clone())
    );
    h.key(KeyCode::Char('a'));
    let row = h
        .app
        .network
        .finding_rows()
        .iter()
        .find(|r| r.id == forked.id)
        .cloned()
        .expect("still listed");
    assert_eq!(row.state, "acked");
    // b on an update the diverging scan serves differently: a new finding (its diverged
    // history), announced once.
    h.palette(&format!("bft {}", ledger.updates()[diverge].update_id));
    assert_eq!(h.announced.len(), 1, "{:?}", h.announced);
    assert!(
        h.announced[0].contains(&names[DIVERGING]) && h.announced[0].contains("diverged history"),
        "{:?}",
        h.announced
    );
    h.palette(&format!("bft {}", ledger.updates()[diverge].update_id));
    assert_eq!(h.announced.len(), 1, "seen again: no second bell");
}

/// Issue 35: one measurement per fact — the Status cards' verdict ingestion lag is the Network
/// matrix's, scan by scan, from the first measurement on.
#[test]
fn status_cards_and_the_matrix_read_one_verdict_ingestion_lag() {
    let mut h = Harness::start_with(Options {
        scans: 4,
        rate: 1.0,
        ..Options::default()
    });
    h.cmd(Command::Pane4);
    let status = h.screen(200, 60);
    let rows = h.app.network.scan_rows().to_vec();
    assert_eq!(rows.len(), 4);
    let mut compared = 0;
    for (k, row) in rows.iter().enumerate() {
        let Some(lag) = row.health.verdict_lag else {
            continue;
        };
        let label = cantonscope::ui::format::age_label(Some(lag));
        let card = status
            .lines()
            .skip_while(|l| !l.contains(&format!("scan {} ·", k + 1)))
            .nth(1)
            .unwrap_or_default()
            .to_owned();
        let want = format!("verdict ingestion lag {label}");
        assert!(
            card.contains(&want),
            "scan {}: {want:?} not in {card:?}\n{status}",
            k + 1
        );
        compared += 1;
    }
    assert!(compared >= 2, "{status}");
}
