//! The Rounds view beside what each scan of the network serves for its rounds (issue 37 §2),
//! driven through the real app over real HTTP: a demo of four scans (the second with
//! `--diverging-rewards`, the fourth the older scan without reward accounting) and an index
//! synced from it by the real binary. Per round, per scan: agree, differs (in what), not served
//! (501), undetermined; the round's verdict names the diverging scan. Offline no scan is asked.
//! `T` walks the selected round's reward tree on every scan: verified on the honest scans,
//! differs on the diverging one, not served by the older one; offline it says why not.

use std::path::Path;

use cantonscope::app::Overlay;
use cantonscope::demo::DemoFaults;
use cantonscope::model::reward_tree::TreeOutcome;
use cantonscope::msg::{Action, Effect, Request};
use cantonscope::ui::rounds::{RoundsView, Tone, TreeState};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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

/// `T` on the selected round.
fn walk_tree(h: &mut Harness) {
    h.key(KeyCode::Char('T'));
}

#[test]
fn t_walks_the_selected_rounds_reward_tree_on_every_scan() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_scans(dir.path(), false);
    let diverging = scan_name(&h, 1);
    let older = scan_name(&h, 3);
    h.key(KeyCode::Char('M'));
    // The third newest round: the first the index holds whole (the newest two are open).
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    let round = view(&h).selected().expect("a round").round;
    assert!(view(&h).tree(round).is_none(), "not walked before T");
    walk_tree(&mut h);
    assert!(
        h.requests
            .iter()
            .any(|r| r == &format!("round {round}'s reward tree on every scan")),
        "{:?}",
        h.requests
    );
    let Some(TreeState::Answered(trees)) = view(&h).tree(round).cloned() else {
        panic!("{:?}", view(&h).tree(round));
    };
    assert_eq!(trees.scans.len(), 4);
    for s in &trees.scans {
        if s.scan == older {
            assert_eq!(s.outcome, TreeOutcome::NotServed, "{s:?}");
            assert_eq!(s.root_state, "not implemented (501)");
            continue;
        }
        assert!(s.batches > 0, "{s:?}");
        let leaves = s.leaves.as_ref().expect("leaves judged");
        assert!(leaves.without_activity.is_empty(), "{s:?}");
        if s.scan == diverging {
            // Its first allowance is one unit higher under the honest hash.
            assert_eq!(s.outcome, TreeOutcome::Differs, "{s:?}");
            assert!(s.differs_at.is_some());
            assert_eq!(leaves.sum_fits, Some(false), "{s:?}");
            assert_eq!(leaves.result, "differ");
        } else {
            assert_eq!(s.outcome, TreeOutcome::Verified, "{s:?}");
            assert_eq!(leaves.result, "agree", "{s:?}");
            assert_eq!(leaves.sum_fits, Some(true), "{s:?}");
        }
    }
    assert_eq!(
        trees.verdict(),
        (
            format!("differs on {diverging} · verified on 2 · not served on 1"),
            true
        )
    );
    let s = h.screen(120, 50);
    assert!(
        s.contains(&format!("Reward tree: differs on {diverging}")),
        "{s}"
    );
    let line = |name: &str| {
        s.lines()
            .find(|l| l.contains(&format!("  {name} ")) && !l.contains("totals"))
            .unwrap_or_else(|| panic!("{name} in\n{s}"))
            .to_owned()
    };
    assert!(line(&diverging).contains("differs at batch"), "{s}");
    assert!(
        line(&older).contains("not served: not implemented (501)"),
        "{s}"
    );
    // Closing the view while a walk is under way cancels it.
    let asked = h.app.update(Action::Key(press('T')));
    let id = asked
        .iter()
        .find_map(|e| match e {
            Effect::Fetch {
                id,
                request: Request::RoundTree { .. },
            } => Some(*id),
            _ => None,
        })
        .expect("the walk asked again");
    let closed = h.app.update(Action::Key(press_code(KeyCode::Esc)));
    assert!(
        closed
            .iter()
            .any(|e| matches!(e, Effect::Cancel(c) if *c == id)),
        "{closed:?}"
    );
}

fn press(c: char) -> KeyEvent {
    press_code(KeyCode::Char(c))
}

fn press_code(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[test]
fn offline_t_says_why_no_tree_is_walked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_scans(dir.path(), true);
    h.key(KeyCode::Char('M'));
    walk_tree(&mut h);
    let round = view(&h).selected().expect("a round").round;
    assert_eq!(
        view(&h).tree(round),
        Some(&TreeState::NotAsked("--offline".into()))
    );
    assert!(
        !h.requests.iter().any(|r| r.contains("reward tree")),
        "{:?}",
        h.requests
    );
    let s = h.screen(120, 40);
    assert!(
        s.contains("Reward tree: not walked (--offline): no scan is asked"),
        "{s}"
    );
}

#[test]
fn snapshot_of_the_rounds_view_with_a_reward_tree() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_scans(dir.path(), false);
    h.key(KeyCode::Char('M'));
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    walk_tree(&mut h);
    crate::common::assert_snapshot!("rounds_tree_120x50", screen(&mut h, 120, 50));
}
