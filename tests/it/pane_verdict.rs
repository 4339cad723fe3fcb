//! The Verdict pane: snapshots (accepted, rejected, no verdict, nothing open, loading) at 80x24
//! and 120x40, the view tree order, following the open update, copying, hostile text and tiny
//! sizes.

use std::sync::Arc;

use cantonscope::api::scan::EventHistoryItem;
use cantonscope::model::cache::BodyCache;
use cantonscope::model::summary::parse_time_micros;
use cantonscope::msg::Command;
use cantonscope::msg::Effect;
use cantonscope::panes::verdict::VerdictPane;
use cantonscope::panes::{AppContext, AppEvent, Out, Pane, RenderCtx, Shared};
use cantonscope::ui::format::format_gap;
use cantonscope::ui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use serde_json::json;

use crate::common::pane::draw;
use crate::common::{assert_snapshot, fixture_text, screen_text};

const UPDATE: &str = "1220c7d293ea23275dcc7bfef9d47fa10e76477d26c93db4074ee5dff5e2cd8a5680";
const ALICE: &str = "alice::1220aaaa1111222233334444555566667777888899990000aaaabbbbccccdddd";
const BOB: &str = "bob::1220bbbb1111222233334444555566667777888899990000aaaabbbbccccdddd";
const DSO: &str = "DSO::1220d5d5111122223333444455556666777788889999000011112222333344445";

fn now() -> i64 {
    parse_time_micros("2026-01-01T10:05:00Z").expect("time")
}

/// An event history item from `tests/fixtures/<name>`, its update ([`UPDATE`] there) under `id`.
fn event_body(name: &str, id: &str) -> serde_json::Value {
    serde_json::from_str(&fixture_text(name).replace(UPDATE, id)).expect("fixture parses")
}

/// Views listed out of tree order: the tree must follow root_views [0, 3] and view 0's
/// sub_views [2, 1], giving 0, 2, 1, 3.
fn accepted_body(id: &str) -> serde_json::Value {
    event_body("scan_event_accepted.json", id)
}

fn rejected_body(id: &str) -> serde_json::Value {
    event_body("scan_event_rejected.json", id)
}

fn no_verdict_body(id: &str) -> serde_json::Value {
    event_body("scan_event_no_verdict.json", id)
}

fn decode(v: serde_json::Value) -> Arc<EventHistoryItem> {
    Arc::new(serde_json::from_value(v).expect("event history item decodes"))
}

fn shared() -> Shared {
    Shared::new(AppContext::default(), now())
}

/// Opens `id` with `body` (None: still loading) and syncs the pane.
fn open(pane: &mut VerdictPane, sh: &mut Shared, id: &str, body: Option<serde_json::Value>) {
    if let Some(b) = body {
        sh.bodies.insert(id.to_string(), decode(b));
    }
    sh.current_update = Some(id.to_string());
    pane.sync(sh);
}

#[test]
fn accepted_verdict_snapshots() {
    let mut sh = shared();
    let mut pane = VerdictPane::new();
    open(&mut pane, &mut sh, UPDATE, Some(accepted_body(UPDATE)));
    let t = draw(&mut pane, &sh, 80, 24);
    let text = screen_text(&t);
    assert!(text.contains("ACCEPTED"));
    assert!(text.contains("gap 412 ms"), "{text}");
    assert!(text.contains("12,345"));
    assert_snapshot!("verdict_accepted_80x24", t.backend());
    let t = draw(&mut pane, &sh, 120, 40);
    assert_snapshot!("verdict_accepted_120x40", t.backend());
}

#[test]
fn rejected_verdict_snapshots() {
    let mut sh = shared();
    let mut pane = VerdictPane::new();
    open(&mut pane, &mut sh, UPDATE, Some(rejected_body(UPDATE)));
    let t = draw(&mut pane, &sh, 80, 24);
    let text = screen_text(&t);
    assert!(text.contains("REJECTED"));
    assert!(text.contains("gap 3.2 s"), "{text}");
    assert!(
        text.contains("2 of 2:"),
        "quorum shown as threshold of N: {text}"
    );
    assert!(text.contains("no traffic summary"));
    assert_snapshot!("verdict_rejected_80x24", t.backend());
    let t = draw(&mut pane, &sh, 120, 40);
    assert_snapshot!("verdict_rejected_120x40", t.backend());
    // The tab counts the rows of the views tree (the verdict is in the pane).
    assert!(pane.tab_count(&sh).is_some_and(|n| n > 0));
}

#[test]
fn no_verdict_nothing_open_and_loading() {
    let mut sh = shared();
    let mut pane = VerdictPane::new();
    pane.sync(&sh);
    let t = draw(&mut pane, &sh, 80, 24);
    assert!(screen_text(&t).contains("No update open."));
    assert_snapshot!("verdict_nothing_open_80x24", t.backend());

    open(&mut pane, &mut sh, UPDATE, None);
    assert!(pane.is_loading());
    let t = draw(&mut pane, &sh, 80, 24);
    assert!(screen_text(&t).contains("Loading update"));

    sh.bodies
        .insert(UPDATE.to_string(), decode(no_verdict_body(UPDATE)));
    pane.sync(&sh);
    assert!(!pane.is_loading());
    assert!(pane.verdict().is_none());
    let t = draw(&mut pane, &sh, 80, 24);
    let text = screen_text(&t);
    assert!(text.contains("NO VERDICT"));
    assert!(text.contains("returned no verdict"));
    assert_snapshot!("verdict_none_80x24", t.backend());
    let t = draw(&mut pane, &sh, 120, 40);
    assert_snapshot!("verdict_none_120x40", t.backend());
}

#[test]
fn reassignment_has_no_verdict_and_says_why() {
    let mut sh = shared();
    let mut pane = VerdictPane::new();
    let body = json!({
        "update": {
            "update_id": "r1", "offset": "000001", "record_time": "2026-01-01T10:00:00Z",
            "event": {"submitter": ALICE, "source_synchronizer": "a::1", "target_synchronizer": "b::2",
                      "migration_id": 3, "unassign_id": "u1", "reassignment_counter": 1, "contract_id": "00aa"}
        },
        "verdict": null
    });
    open(&mut pane, &mut sh, "r1", Some(body));
    let t = draw(&mut pane, &sh, 120, 40);
    assert!(screen_text(&t).contains("reassignment"));
}

#[test]
fn view_tree_follows_root_views_and_sub_views() {
    let mut sh = shared();
    let mut pane = VerdictPane::new();
    open(&mut pane, &mut sh, UPDATE, Some(accepted_body(UPDATE)));
    let tree = pane.view_tree().expect("tree");
    assert_eq!(tree.preorder_view_ids(), [0, 2, 1, 3]);
    assert_eq!(pane.visible_view_ids(), [0, 2, 1, 3], "expanded at first");
    assert_eq!(pane.selected_view_id(), Some(0));

    let mut out = Out::default();
    assert!(pane.on_command(Command::Collapse, &mut sh, &mut out));
    assert_eq!(pane.visible_view_ids(), [0, 3]);
    assert!(pane.on_command(Command::Down, &mut sh, &mut out));
    assert_eq!(pane.selected_view_id(), Some(3));
    assert!(pane.on_command(Command::Up, &mut sh, &mut out));
    assert!(pane.on_command(Command::Expand, &mut sh, &mut out));
    assert_eq!(pane.visible_view_ids(), [0, 2, 1, 3]);
    assert!(out.effects.is_empty());
}

#[test]
fn envelopes_are_mapped_to_the_views_they_carry() {
    let mut sh = shared();
    let mut pane = VerdictPane::new();
    open(&mut pane, &mut sh, UPDATE, Some(accepted_body(UPDATE)));
    let tree = pane.view_tree().expect("tree");
    let node_of = |vid: i32| {
        (0..tree.len())
            .find(|&n| tree.view_id(n) == Some(vid))
            .expect("node")
    };
    assert_eq!(tree.envelopes(node_of(0)), [0]);
    assert_eq!(tree.envelopes(node_of(2)), [0]);
    assert_eq!(tree.envelopes(node_of(3)), [1]);

    // The details of view 3 show the envelope carrying it.
    let mut out = Out::default();
    pane.on_command(Command::Bottom, &mut sh, &mut out);
    assert_eq!(pane.selected_view_id(), Some(3));
    let t = draw(&mut pane, &sh, 120, 40);
    let text = screen_text(&t);
    assert!(text.contains("envelope #1 3,345"), "{text}");
    assert!(!text.contains("envelope #0 9,000"), "{text}");
}

#[test]
fn malformed_views_missing_cycles_and_orphans_are_shown_once() {
    let mut sh = shared();
    let mut pane = VerdictPane::new();
    let body = json!({
        "verdict": {
            "verdict_result": "VERDICT_RESULT_ACCEPTED",
            "transaction_views": {
                "views": [
                    {"view_id": 0, "informees": [], "confirming_parties": [], "sub_views": [1, 0]},
                    {"view_id": 1, "informees": [], "confirming_parties": [], "sub_views": [0]},
                    {"view_id": 5, "informees": [], "confirming_parties": [], "sub_views": []}
                ],
                "root_views": [0, 9]
            }
        }
    });
    open(&mut pane, &mut sh, "weird", Some(body));
    let tree = pane.view_tree().expect("tree");
    assert_eq!(tree.preorder_view_ids(), [0, 1, 9, 5]);
    let t = draw(&mut pane, &sh, 120, 40);
    let text = screen_text(&t);
    assert!(text.contains("view 9  missing"), "{text}");
    assert!(text.contains("(no parent)"), "{text}");
}

#[test]
fn follows_the_open_update_and_keeps_a_body_the_cache_evicted() {
    let mut sh = shared();
    sh.bodies = BodyCache::new(1);
    let mut pane = VerdictPane::new();
    open(&mut pane, &mut sh, UPDATE, Some(accepted_body(UPDATE)));
    let mut out = Out::default();
    pane.on_command(Command::Down, &mut sh, &mut out);
    assert_eq!(pane.selected_view_id(), Some(2));

    // Syncing again with nothing changed keeps the cursor.
    pane.sync(&sh);
    assert_eq!(pane.selected_view_id(), Some(2));

    // Another body evicts ours while the same update stays open: still shown.
    sh.bodies
        .insert("other".into(), decode(rejected_body("other")));
    pane.sync(&sh);
    assert_eq!(pane.update_id(), Some(UPDATE));
    assert!(pane.verdict().is_some());
    assert_eq!(pane.selected_view_id(), Some(2));

    // Refetched (a new body for the same update): rebuilt, selection kept by view id.
    sh.bodies
        .insert(UPDATE.to_string(), decode(accepted_body(UPDATE)));
    pane.sync(&sh);
    assert_eq!(pane.selected_view_id(), Some(2));

    // Another update opened.
    sh.current_update = Some("other".into());
    sh.bodies
        .insert("other".into(), decode(rejected_body("other")));
    pane.sync(&sh);
    assert_eq!(pane.update_id(), Some("other"));
    assert_eq!(pane.visible_view_ids(), [0]);

    // Closed.
    sh.current_update = None;
    pane.sync(&sh);
    assert!(pane.update_id().is_none());
    assert!(pane.verdict().is_none());
}

#[test]
fn copy_takes_the_selected_informees_or_the_update_id() {
    let mut sh = shared();
    let mut pane = VerdictPane::new();
    open(&mut pane, &mut sh, UPDATE, Some(accepted_body(UPDATE)));
    let mut out = Out::default();
    assert!(pane.on_command(Command::Copy, &mut sh, &mut out));
    assert_eq!(
        out.effects,
        [Effect::Copy(format!("{ALICE}\n{BOB}\n{DSO}"))]
    );
    assert!(matches!(&out.events[0], AppEvent::Message(_, m) if m.contains("informees of view 0")));

    let mut pane = VerdictPane::new();
    open(&mut pane, &mut sh, "nv", Some(no_verdict_body("nv")));
    let mut out = Out::default();
    assert!(pane.on_command(Command::Copy, &mut sh, &mut out));
    assert_eq!(out.effects, [Effect::Copy("nv".into())]);

    let mut empty = VerdictPane::new();
    let mut out = Out::default();
    assert!(!empty.on_command(Command::Copy, &mut sh, &mut out));
    assert!(!empty.on_command(Command::Down, &mut sh, &mut out));
}

#[test]
fn hostile_strings_never_reach_the_buffer_raw() {
    let evil = "mallory::12\u{1b}]0;pwned\u{7}\u{1b}[31mred\u{202e}txt\u{0}";
    let mut body = accepted_body(UPDATE);
    body["verdict"]["submitting_parties"] = json!([evil]);
    body["verdict"]["submitting_participant_uid"] = json!(evil);
    body["verdict"]["transaction_views"]["views"][2]["informees"] = json!([evil, ALICE]);
    body["verdict"]["verdict_result"] = json!("\u{1b}[2JWIPE");
    body["app_activity_records"]["records"][0]["party"] = json!(evil);
    let mut sh = shared();
    let mut pane = VerdictPane::new();
    open(&mut pane, &mut sh, UPDATE, Some(body));
    for (w, h) in [(80, 24), (120, 40), (200, 60)] {
        let t = draw(&mut pane, &sh, w, h);
        for cell in t.backend().buffer().content() {
            for c in cell.symbol().chars() {
                assert!(
                    !c.is_control() && !('\u{202a}'..='\u{202e}').contains(&c),
                    "raw control {c:?} drawn"
                );
            }
        }
    }
}

#[test]
fn tiny_sizes_never_panic() {
    let mut sh = shared();
    let mut pane = VerdictPane::new();
    open(&mut pane, &mut sh, UPDATE, Some(accepted_body(UPDATE)));
    for (w, h) in [
        (1, 1),
        (0, 0),
        (5, 3),
        (30, 5),
        (59, 8),
        (60, 7),
        (2, 40),
        (200, 2),
    ] {
        pane.set_area(Rect::new(0, 0, w, h));
        let mut terminal = Terminal::new(TestBackend::new(w.max(1), h.max(1))).expect("t");
        let theme = Theme::default();
        terminal
            .draw(|f| {
                let area = Rect::new(0, 0, w, h);
                pane.render(area, f.buffer_mut(), RenderCtx::new(&sh, &theme, false));
            })
            .expect("draw");
    }
}

#[test]
fn gap_formats() {
    assert_eq!(format_gap(412_000), "412 ms");
    assert_eq!(format_gap(3_200_000), "3.2 s");
}

#[test]
fn huge_quorums_are_summarised_not_listed() {
    let parties: Vec<String> = (0..1000).map(|i| format!("p{i}::1220{i:060}")).collect();
    let mut body = accepted_body(UPDATE);
    body["verdict"]["transaction_views"]["views"][2]["confirming_parties"] =
        json!([{"parties": parties, "threshold": 667}]);
    body["verdict"]["transaction_views"]["views"][2]["informees"] = json!(parties);
    let mut sh = shared();
    let mut pane = VerdictPane::new();
    open(&mut pane, &mut sh, UPDATE, Some(body));
    let t = draw(&mut pane, &sh, 120, 40);
    let text = screen_text(&t);
    assert!(text.contains("667 of 1000: p0::"), "{text}");
    assert!(text.contains("informees (1000)"), "{text}");
    assert!(
        text.contains("more"),
        "a cut list says how many are left: {text}"
    );
}

#[test]
fn the_header_names_the_scan_that_served_the_verdict() {
    let line_at = |sh: &mut Shared, width: u16| {
        let mut pane = VerdictPane::new();
        open(&mut pane, sh, UPDATE, Some(accepted_body(UPDATE)));
        let text = screen_text(&draw(&mut pane, sh, width, 24));
        text.lines()
            .nth(1)
            .expect("a second line")
            .trim_end()
            .to_owned()
    };
    let line2 = |sh: &mut Shared| line_at(sh, 160);
    // No scan configured (a fixture): the first scan, as the Status cards call it.
    let line = line2(&mut shared());
    assert!(line.ends_with("gap 412 ms  served by scan 1"), "{line}");
    // Where the name does not fit whole, it is left out rather than cut.
    let line = line_at(&mut shared(), 80);
    assert!(line.ends_with("gap 412 ms"), "{line}");
    // The profile's scan, by its URL (as the Status card names it), its text made safe.
    let mut sh = Shared::new(
        AppContext {
            scan_urls: vec!["https://scan.sv-1.example.com\u{1b}[2J".to_owned()],
            ..AppContext::default()
        },
        now(),
    );
    let line = line2(&mut sh);
    assert!(
        line.contains("served by https://scan.sv-1.example.com"),
        "{line}"
    );
    assert!(!line.contains('\u{1b}'), "{line:?}");
    // Once the network is measured: by its SV's name, as the Network pane lists it.
    let entry = |name: &str, url: &str, own: bool| cantonscope::model::network::ScanEntry {
        sv_name: name.to_owned(),
        url: url.to_owned(),
        listed: true,
        pinned: false,
        own,
        counted: true,
    };
    sh.health.network.snapshot = Some(cantonscope::model::network::NetworkSnapshot {
        entries: vec![
            entry("Other-SV", "https://other.example.com", false),
            entry("Sv-One", "https://scan.sv-1.example.com", true),
        ],
        list_source: String::new(),
        warnings: Vec::new(),
        observations: Vec::new(),
        thresholds: Default::default(),
        checked_at: now(),
        head_check: None,
        findings: Default::default(),
    });
    let line = line2(&mut sh);
    assert!(line.ends_with("served by Sv-One"), "{line}");
}
