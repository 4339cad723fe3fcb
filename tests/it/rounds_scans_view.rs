//! The Rounds view beside what each scan of the network serves for its rounds (issue 37 §2),
//! driven through the real app over real HTTP: a demo of four scans (the second with
//! `--diverging-rewards`, the fourth the older scan without reward accounting) and an index
//! synced from it by the real binary. Per round, per scan: agree, differs (in what), not served
//! (501), undetermined; the round's verdict names the diverging scan. Offline no scan is asked.

use std::path::Path;

use cantonscope::app::Overlay;
use cantonscope::demo::DemoFaults;
use cantonscope::ui::rounds::{RoundsView, Tone};
use crossterm::event::KeyCode;

use crate::common::{Harness, Options};
use crate::index_explorer::{SYNCED_SECS, screen, sync_index};

/// Four scans, the second serving other reward figures; the index synced two hours back.
fn with_scans(dir: &Path, offline: bool) -> Harness {
    let dir = dir.to_owned();
    Harness::start_with(Options {
        scans: 4,
        faults: DemoFaults {
            diverging_rewards: Some(1),
            ..DemoFaults::default()
        },
        tweak: Box::new(|s| s.network.request_rate = 1000.0),
        prepare: Box::new(move |demo, now, settings| {
            let path = sync_index(&dir, &demo.scan_url, now, SYNCED_SECS);
            settings.index = Some(path.display().to_string());
            settings.offline = offline;
        }),
        ..Options::default()
    })
}

fn view(h: &Harness) -> &RoundsView {
    match &h.app.overlay {
        Some(Overlay::Rounds(r)) => r,
        _ => panic!("the Rounds view is not open"),
    }
}

/// The SV name of the demo's scan `i`, as the network's scans list names it.
fn scan_name(h: &Harness, i: usize) -> String {
    let url = &h.demo.as_ref().expect("demo").scan_urls[i];
    let snapshot = h
        .app
        .sh
        .health
        .network
        .snapshot
        .as_ref()
        .expect("the network was measured at start");
    snapshot
        .entries
        .iter()
        .find(|e| e.url.trim_end_matches('/') == url.trim_end_matches('/'))
        .unwrap_or_else(|| panic!("{url} in {:?}", snapshot.entries))
        .sv_name
        .clone()
}

#[test]
fn each_round_names_the_scan_that_differs_and_says_agree_for_the_others() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_scans(dir.path(), false);
    let diverging = scan_name(&h, 1);
    let older = scan_name(&h, 3);
    h.key(KeyCode::Char('M'));
    let v = view(&h).clone();
    assert_eq!(v.scans_not_asked(), None);
    let rounds: Vec<i64> = v.rounds().iter().map(|r| r.round).collect();
    assert!(rounds.len() > 4, "{rounds:?}");
    // The rounds around the selection were asked of every scan, the selected one first.
    let asked: Vec<&String> = h
        .requests
        .iter()
        .filter(|r| r.ends_with("on every scan"))
        .collect();
    assert_eq!(
        asked.first().map(|s| s.as_str()),
        Some(format!("round {} on every scan", rounds[0]).as_str())
    );
    assert!(asked.len() > 4, "{asked:?}");

    // The two newest rounds are not settled: every scan with reward accounting says so.
    let newest = v
        .round_check(rounds[0])
        .expect("the selected round answered");
    for s in &newest.scans {
        let want = if s.scan == older {
            "not implemented (501)"
        } else {
            "undetermined"
        };
        assert_eq!(s.totals_state, want, "{s:?}");
        assert_eq!(s.totals, "not served");
    }
    assert_eq!(
        v.scans_verdict(rounds[0]),
        Some(("3 undetermined · 1 not served".to_owned(), Tone::Quiet))
    );

    // Every whole round the scans serve: the diverging scan differs in its weight, the honest
    // ones agree, the older one does not serve it; the round's verdict names the diverging one.
    let mut judged = 0;
    for (i, r) in v.rounds().iter().enumerate() {
        let Some(check) = v.round_check(r.round) else {
            continue;
        };
        if !v.mark(r.round).is_empty() || !check.scans.iter().any(|s| s.totals_state == "ok") {
            continue;
        }
        judged += 1;
        assert_eq!(
            check.differing,
            vec![diverging.clone()],
            "round {}",
            r.round
        );
        for s in &check.scans {
            let (totals, state) = if s.scan == diverging {
                ("differ", "ok")
            } else if s.scan == older {
                ("not served", "not implemented (501)")
            } else {
                ("agree", "ok")
            };
            assert_eq!(
                (s.totals, s.totals_state.as_str()),
                (totals, state),
                "{s:?}"
            );
            if s.scan == diverging {
                assert_eq!(s.differs_in, vec!["total_app_activity_weight"]);
            }
        }
        assert!(
            check.root_hash.is_some() && !check.root_divergence,
            "{check:?}"
        );
        assert_eq!(
            v.scans_verdict(r.round),
            Some((
                format!("2 agree · 1 differs ({diverging}) · 1 not served"),
                Tone::Diverges
            ))
        );
        // On screen: the row's verdict, and with the round selected, each scan's line.
        if judged == 1 {
            let to = i;
            for _ in 0..to {
                h.key(KeyCode::Down);
            }
            let s = h.screen(160, 50);
            let row = s
                .lines()
                .find(|l| l.contains(&format!("│{:>8} ", r.round)))
                .unwrap_or_else(|| panic!("round {} in\n{s}", r.round));
            assert!(
                row.contains(&format!("2 agree · 1 differs ({diverging})")),
                "{row}"
            );
            let line = |name: &str| {
                s.lines()
                    .find(|l| l.contains(&format!("  {name} ")) && l.contains("totals"))
                    .unwrap_or_else(|| panic!("{name} in\n{s}"))
                    .to_owned()
            };
            assert!(
                line(&diverging).contains("totals differ in weight · root hash"),
                "{s}"
            );
            assert!(line(&diverging).contains("agrees"), "{s}");
            assert!(line(&older).contains("totals not implemented (501)"), "{s}");
            assert!(s.contains("Scans: 2 agree · 1 differs"), "{s}");
            assert!(s.contains("held by f + 1 = 2"), "{s}");
            for _ in 0..to {
                h.key(KeyCode::Up);
            }
        }
    }
    assert!(judged > 0, "a whole round the scans serve");
    // Each round is asked once: moving back over asked rounds asks nothing again.
    let before = h.requests.len();
    h.key(KeyCode::Down);
    h.key(KeyCode::Up);
    assert_eq!(h.requests.len(), before, "{:?}", &h.requests[before..]);
}

#[test]
fn offline_the_view_shows_the_index_alone_and_asks_no_scan() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_scans(dir.path(), true);
    h.key(KeyCode::Char('M'));
    assert_eq!(view(&h).scans_not_asked(), Some("--offline"));
    assert!(!view(&h).rounds().is_empty());
    assert!(
        !h.requests.iter().any(|r| r.ends_with("on every scan")),
        "{:?}",
        h.requests
    );
    let s = h.screen(120, 40);
    assert!(
        s.contains("no scan was asked (--offline): the index's figures alone"),
        "{s}"
    );
}

#[test]
fn snapshot_of_the_rounds_view_with_the_scans() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_scans(dir.path(), false);
    h.key(KeyCode::Char('M'));
    // The third newest round: the first the index holds whole.
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    crate::common::assert_snapshot!("rounds_scans_120x40", screen(&mut h, 120, 40));
}
