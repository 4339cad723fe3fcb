//! The Update pane: snapshots at 80x24 and 120x40 (transfer tree with details, reassignment,
//! loading, error, contract lifecycle) and headless flows (open → fetch → reply, tree order,
//! expand/collapse, parent, follow a contract, reassignment links, save, stale replies, hostile
//! payloads).

use std::sync::Arc;

use cantonscope::api::ApiError;
use cantonscope::api::json::RawJson;
use cantonscope::api::scan::{EventHistoryItem, UpdateItem};
use cantonscope::config::keymap::KeyContext;
use cantonscope::model::history::Placement;
use cantonscope::model::summary::parse_time_micros;
use cantonscope::msg::Command;
use cantonscope::msg::{Effect, RequestId, Response};
use cantonscope::panes::update::{Focus, UpdatePane};
use cantonscope::panes::{AppContext, AppEvent, Out, Pane, RenderCtx, Shared};
use cantonscope::ui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use serde_json::{Value, json};

use crate::common::pane::{draw, fetched, fetches};
use crate::common::requests as req;
use crate::common::{assert_snapshot, fixture, screen_text};

/// The transfer under test.
const T: &str = "1220c7d293ea23275dcc7bfef9d47fa10e76477d26c93db4074ee5dff5e2cd8a5680";
/// An earlier update creating the input amulet.
const A: &str = "1220a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0";
/// A later update exercising the transfer's output.
const B: &str = "1220b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0";
/// An unassign and its assign.
const R1: &str = "1220d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1";
const R2: &str = "1220d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2";

const C_IN: &str = "00a1a1a1a1a1a1a1a1ca101220bb";

/// 2026-11-22 10:00:00 UTC.
const NOW: i64 = 1_795_341_600_000_000;

/// The transfer: roots `:0` (with children `:1`, `:2`, `:10`) and `:3`. `events_by_id` key
/// order is `:0 :1 :10 :2 :3`; tree order is `:0 :1 :2 :10 :3`.
fn transfer() -> Value {
    fixture("scan_update_transfer.json")
}

fn earlier() -> Value {
    fixture("scan_update_transfer_input.json")
}

fn later() -> Value {
    fixture("scan_update_transfer_output_locked.json")
}

fn unassign() -> Value {
    fixture("scan_update_unassign.json")
}

fn assign() -> Value {
    fixture("scan_update_assign.json")
}

fn body(update: &Value) -> Arc<EventHistoryItem> {
    let text = json!({"update": update, "verdict": null}).to_string();
    Arc::new(serde_json::from_str(&text).expect("body decodes"))
}

fn item(update: &Value) -> UpdateItem {
    let raw = RawJson::from_string(update.to_string()).expect("valid JSON");
    let item = UpdateItem::from_raw(raw, "");
    assert!(!matches!(item, UpdateItem::Malformed { .. }), "{item:?}");
    item
}

fn shared() -> Shared {
    Shared::new(AppContext::default(), NOW)
}

/// Shared state with updates loaded into the history (oldest first).
fn shared_with(updates: &[Value]) -> Shared {
    let mut sh = shared();
    let items: Vec<UpdateItem> = updates.iter().map(item).collect();
    assert_eq!(sh.history.add_page(&items, Placement::Append), items.len());
    sh
}

/// Answers a fetch as the App does: the body goes into the cache, then the pane hears of it.
fn reply(pane: &mut UpdatePane, sh: &mut Shared, id: RequestId, update: &Value) -> Out {
    let b = body(update);
    let uid = update["update_id"].as_str().expect("update id").to_string();
    sh.bodies.insert(uid.clone(), b.clone());
    let mut out = Out::default();
    pane.on_fetched(
        &fetched(
            id,
            &req::event(&uid),
            &Ok(Response::Api(cantonscope::api::Answer::Event(b))),
        ),
        sh,
        &mut out,
    );
    out
}

/// Opens `update` through a fetch and its reply.
fn open_fetched(pane: &mut UpdatePane, sh: &mut Shared, update: &Value, event: Option<&str>) {
    let uid = update["update_id"].as_str().expect("update id");
    let mut out = Out::default();
    pane.open(uid, event, sh, &mut out);
    let f = fetches(&out);
    assert_eq!(f.len(), 1, "one fetch: {:?}", out.effects);
    reply(pane, sh, f[0].0, update);
}

fn cmd(pane: &mut UpdatePane, sh: &mut Shared, c: Command) -> Out {
    let mut out = Out::default();
    pane.on_command(c, sh, &mut out);
    out
}

fn ev(n: u32) -> String {
    format!("{T}:{n}")
}

/// A pane showing the transfer, with A and B loaded in the history.
fn transfer_pane() -> (UpdatePane, Shared) {
    let mut sh = shared_with(&[earlier(), transfer(), later()]);
    let mut pane = UpdatePane::new();
    open_fetched(&mut pane, &mut sh, &transfer(), None);
    (pane, sh)
}

// ---------------------------------------------------------------------------------------------
// Snapshots
// ---------------------------------------------------------------------------------------------

#[test]
fn snapshot_transfer_tree_with_details() {
    for (w, h) in [(80, 24), (120, 40)] {
        let (mut pane, mut sh) = transfer_pane();
        // Select the root exercise and look at its details.
        cmd(&mut pane, &mut sh, Command::Top);
        let t = draw(&mut pane, &sh, w, h);
        assert_snapshot!(format!("transfer_tree_{w}x{h}"), t.backend());
        // Move into the details panel (→ on an open node) and down into the JSON.
        cmd(&mut pane, &mut sh, Command::Expand);
        assert_eq!(pane.focus(), Focus::Details);
        for _ in 0..12 {
            cmd(&mut pane, &mut sh, Command::Down);
        }
        let t = draw(&mut pane, &sh, w, h);
        assert_snapshot!(format!("transfer_details_focused_{w}x{h}"), t.backend());
    }
}

#[test]
fn snapshot_reassignment_with_link() {
    for (w, h) in [(80, 24), (120, 40)] {
        let mut sh = shared_with(&[unassign(), assign()]);
        let mut pane = UpdatePane::new();
        open_fetched(&mut pane, &mut sh, &unassign(), None);
        assert_eq!(pane.reassignment_link(), Some(R2));
        let t = draw(&mut pane, &sh, w, h);
        assert_snapshot!(format!("unassign_{w}x{h}"), t.backend());
        open_fetched(&mut pane, &mut sh, &assign(), None);
        assert_eq!(pane.reassignment_link(), Some(R1));
        let t = draw(&mut pane, &sh, w, h);
        assert_snapshot!(format!("assign_{w}x{h}"), t.backend());
    }
}

#[test]
fn snapshot_empty_loading_and_error() {
    for (w, h) in [(80, 24), (120, 40)] {
        let mut sh = shared();
        let mut pane = UpdatePane::new();
        let t = draw(&mut pane, &sh, w, h);
        let s = screen_text(&t);
        assert!(s.contains("No update open."), "{s}");
        assert!(s.contains(":event <update id>"), "{s}");
        assert_snapshot!(format!("no_update_{w}x{h}"), t.backend());

        let mut out = Out::default();
        pane.open(T, None, &mut sh, &mut out);
        let t = draw(&mut pane, &sh, w, h);
        assert!(screen_text(&t).contains("loading 1220c7d293ea2327…"));
        assert_snapshot!(format!("loading_{w}x{h}"), t.backend());

        let id = fetches(&out)[0].0;
        let mut out = Out::default();
        pane.on_fetched(
            &fetched(
                id,
                &req::event(T),
                &Err(ApiError::Connect {
                    endpoint: "scan GET /v0/events/{update_id}",
                    detail: "connection refused (os error 111)".into(),
                }),
            ),
            &mut sh,
            &mut out,
        );
        let t = draw(&mut pane, &sh, w, h);
        let s = screen_text(&t);
        assert!(s.contains("could not load update"), "{s}");
        assert!(s.contains("press r to retry"), "{s}");
        assert_snapshot!(format!("error_{w}x{h}"), t.backend());
    }
}

#[test]
fn snapshot_lifecycle_list() {
    for (w, h) in [(80, 24), (120, 40)] {
        let (mut pane, mut sh) = transfer_pane();
        // :1 archives the input amulet created in A.
        cmd(&mut pane, &mut sh, Command::Top);
        cmd(&mut pane, &mut sh, Command::Down);
        assert_eq!(pane.selected_event_id(), Some(ev(1).as_str()));
        cmd(&mut pane, &mut sh, Command::FollowContract);
        assert!(pane.lifecycle_open());
        let t = draw(&mut pane, &sh, w, h);
        let s = screen_text(&t);
        assert!(s.contains("jump to creation"), "{s}");
        assert_snapshot!(format!("lifecycle_{w}x{h}"), t.backend());
    }
}

// ---------------------------------------------------------------------------------------------
// Flows
// ---------------------------------------------------------------------------------------------

#[test]
fn open_fetches_then_shows_tree_in_child_order() {
    let mut sh = shared();
    let mut pane = UpdatePane::new();
    let mut out = Out::default();
    pane.open(T, None, &mut sh, &mut out);
    assert_eq!(sh.current_update.as_deref(), Some(T));
    let f = fetches(&out);
    assert_eq!(f, vec![(f[0].0, req::event(T))]);
    assert!(pane.is_loading());
    assert!(pane.visible_event_ids().is_empty());

    reply(&mut pane, &mut sh, f[0].0, &transfer());
    assert!(!pane.is_loading());
    // Key order would be :0 :1 :10 :2 :3.
    assert_eq!(
        pane.visible_event_ids(),
        vec![ev(0), ev(1), ev(2), ev(10), ev(3)]
    );
    assert_eq!(pane.key_context(), KeyContext::Tree);

    // Opening it again uses the cache: no fetch, and the event is selected.
    let mut other = UpdatePane::new();
    let mut out = Out::default();
    other.open(T, Some(&ev(10)), &mut sh, &mut out);
    assert!(fetches(&out).is_empty());
    assert_eq!(other.selected_event_id(), Some(ev(10).as_str()));
}

#[test]
fn expand_collapse_all_and_parent() {
    let (mut pane, mut sh) = transfer_pane();
    cmd(&mut pane, &mut sh, Command::Top);
    cmd(&mut pane, &mut sh, Command::Collapse);
    assert_eq!(pane.visible_event_ids(), vec![ev(0), ev(3)]);
    cmd(&mut pane, &mut sh, Command::Toggle);
    assert_eq!(pane.visible_event_ids().len(), 5);
    cmd(&mut pane, &mut sh, Command::CollapseAll);
    assert_eq!(pane.visible_event_ids(), vec![ev(0), ev(3)]);
    cmd(&mut pane, &mut sh, Command::Expand);
    assert_eq!(pane.visible_event_ids().len(), 5);
    assert_eq!(pane.focus(), Focus::Tree, "expanding keeps the focus");
    cmd(&mut pane, &mut sh, Command::CollapseAll);
    cmd(&mut pane, &mut sh, Command::ExpandAll);
    assert_eq!(pane.visible_event_ids().len(), 5);
    // Parent of :10 is :0.
    cmd(&mut pane, &mut sh, Command::Top);
    for _ in 0..3 {
        cmd(&mut pane, &mut sh, Command::Down);
    }
    assert_eq!(pane.selected_event_id(), Some(ev(10).as_str()));
    cmd(&mut pane, &mut sh, Command::Parent);
    assert_eq!(pane.selected_event_id(), Some(ev(0).as_str()));
    // Collapse on a leaf goes to its parent.
    cmd(&mut pane, &mut sh, Command::Down);
    cmd(&mut pane, &mut sh, Command::Collapse);
    assert_eq!(pane.selected_event_id(), Some(ev(0).as_str()));
}

#[test]
fn focus_moves_between_tree_and_details() {
    let (mut pane, mut sh) = transfer_pane();
    cmd(&mut pane, &mut sh, Command::Top);
    cmd(&mut pane, &mut sh, Command::Down); // :1, a leaf
    cmd(&mut pane, &mut sh, Command::Expand);
    assert_eq!(pane.focus(), Focus::Details);
    // Up/Down now move in the details, not in the tree.
    cmd(&mut pane, &mut sh, Command::Down);
    assert_eq!(pane.selected_event_id(), Some(ev(1).as_str()));
    // y on the contract line copies the contract id.
    let out = cmd(&mut pane, &mut sh, Command::Copy);
    assert_eq!(out.effects, vec![Effect::Copy(C_IN.into())]);
    cmd(&mut pane, &mut sh, Command::Collapse);
    assert_eq!(pane.focus(), Focus::Tree);
    let out = cmd(&mut pane, &mut sh, Command::Copy);
    assert_eq!(out.effects, vec![Effect::Copy(ev(1))]);
    // Enter on a leaf also opens the details; Esc returns.
    cmd(&mut pane, &mut sh, Command::Toggle);
    assert_eq!(pane.focus(), Focus::Details);
    assert!(cmd(&mut pane, &mut sh, Command::Back).events.is_empty());
    assert_eq!(pane.focus(), Focus::Tree);
}

#[test]
fn copy_json_under_the_cursor() {
    let (mut pane, mut sh) = transfer_pane();
    cmd(&mut pane, &mut sh, Command::Bottom); // :3 Amulet_Fetch, result "ok"
    cmd(&mut pane, &mut sh, Command::Expand);
    assert_eq!(pane.focus(), Focus::Details);
    cmd(&mut pane, &mut sh, Command::Bottom); // the last JSON line: exercise_result "ok"
    let out = cmd(&mut pane, &mut sh, Command::Copy);
    assert_eq!(out.effects, vec![Effect::Copy("\"ok\"".into())]);
}

#[test]
fn follow_contract_within_the_update_then_lifecycle() {
    let (mut pane, mut sh) = transfer_pane();
    cmd(&mut pane, &mut sh, Command::Bottom);
    assert_eq!(pane.selected_event_id(), Some(ev(3).as_str()));
    // :3 exercises C_OUT, created by :2 in this update.
    cmd(&mut pane, &mut sh, Command::FollowContract);
    assert_eq!(pane.selected_event_id(), Some(ev(2).as_str()));
    assert!(!pane.lifecycle_open());
    // Again: the lifecycle among loaded updates (T created it, B exercised it).
    cmd(&mut pane, &mut sh, Command::FollowContract);
    assert!(pane.lifecycle_open());
    assert_eq!(pane.key_context(), KeyContext::Overlay);
    assert_eq!(pane.lifecycle_update_ids(), vec![T, T, B]);
    // Esc closes it.
    cmd(&mut pane, &mut sh, Command::Back);
    assert!(!pane.lifecycle_open());
}

#[test]
fn follow_contract_to_an_earlier_creation_and_back() {
    let (mut pane, mut sh) = transfer_pane();
    cmd(&mut pane, &mut sh, Command::Top);
    cmd(&mut pane, &mut sh, Command::Down); // :1 archives C_IN, created in A
    cmd(&mut pane, &mut sh, Command::FollowContract);
    assert_eq!(pane.lifecycle_update_ids(), vec![A, A, T]);
    // The first row is "jump to creation".
    cmd(&mut pane, &mut sh, Command::Top);
    let out = cmd(&mut pane, &mut sh, Command::Confirm);
    let f = fetches(&out);
    assert_eq!(
        f.iter().map(|x| x.1.clone()).collect::<Vec<_>>(),
        vec![req::event(A)]
    );
    assert_eq!(sh.current_update.as_deref(), Some(A));
    reply(&mut pane, &mut sh, f[0].0, &earlier());
    assert_eq!(pane.update_id(), Some(A));
    assert_eq!(pane.selected_event_id(), Some(format!("{A}:0").as_str()));
    // Esc: back to the transfer, same event selected, from the cache.
    let out = cmd(&mut pane, &mut sh, Command::Back);
    assert!(fetches(&out).is_empty());
    assert_eq!(pane.update_id(), Some(T));
    assert_eq!(pane.selected_event_id(), Some(ev(1).as_str()));
}

#[test]
fn contract_created_before_the_loaded_history() {
    let (mut pane, mut sh) = transfer_pane();
    cmd(&mut pane, &mut sh, Command::Top); // :0 on the AmuletRules contract
    cmd(&mut pane, &mut sh, Command::FollowContract);
    assert!(pane.lifecycle_open());
    assert_eq!(pane.lifecycle_update_ids(), vec![T]);
    let t = draw(&mut pane, &sh, 120, 40);
    let s = screen_text(&t);
    assert!(s.contains("created before the loaded history"), "{s}");
    assert!(!s.contains("jump to creation"), "{s}");
}

#[test]
fn reassignment_link_opens_the_other_half_and_appears_when_loaded() {
    // Only the unassign is loaded: no link yet.
    let mut sh = shared_with(&[unassign()]);
    let mut pane = UpdatePane::new();
    open_fetched(&mut pane, &mut sh, &unassign(), None);
    assert_eq!(pane.reassignment_link(), None);
    let t = draw(&mut pane, &sh, 80, 24);
    assert!(screen_text(&t).contains("the matching assign is not in the loaded"));
    let mut out = Out::default();
    assert!(!pane.on_tick(&mut sh, &mut out), "nothing new");
    // The assign arrives in the history.
    sh.history.add_page(&[item(&assign())], Placement::Append);
    assert!(pane.on_tick(&mut sh, &mut out));
    assert_eq!(pane.reassignment_link(), Some(R2));
    // Enter on the link row (the 7th) opens the assign.
    for _ in 0..6 {
        cmd(&mut pane, &mut sh, Command::Down);
    }
    let out = cmd(&mut pane, &mut sh, Command::Toggle);
    assert_eq!(
        fetches(&out).into_iter().map(|f| f.1).collect::<Vec<_>>(),
        vec![req::event(R2)]
    );
    assert_eq!(pane.update_id(), Some(R2));
}

#[test]
fn save_prompts_then_writes_the_pretty_body() {
    let (mut pane, mut sh) = transfer_pane();
    cmd(&mut pane, &mut sh, Command::Save);
    assert!(pane.save_prompt_open());
    assert!(pane.wants_raw_keys());
    assert_eq!(pane.key_context(), KeyContext::TextInput);
    let t = draw(&mut pane, &sh, 120, 40);
    assert!(screen_text(&t).contains(&format!("save to: ./{T}.json")));
    let mut out = Out::default();
    pane.on_key(
        &KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
        &mut sh,
        &mut out,
    );
    assert!(!pane.save_prompt_open());
    let [Effect::CreateFile { path, contents, .. }] = out.effects.as_slice() else {
        panic!("one new file: {:?}", out.effects);
    };
    assert_eq!(path.to_str(), Some(format!("./{T}.json").as_str()));
    let text = String::from_utf8(contents.clone()).expect("utf-8");
    assert!(
        text.contains("\n  \"update\": {\n"),
        "pretty: {}",
        &text[..200]
    );
    let saved: Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(saved["update"], transfer());

    // Esc cancels without writing.
    cmd(&mut pane, &mut sh, Command::Save);
    let mut out = Out::default();
    pane.on_key(
        &KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE),
        &mut sh,
        &mut out,
    );
    assert!(!pane.save_prompt_open());
    assert!(out.effects.is_empty());
}

#[test]
fn stale_replies_are_ignored() {
    let mut sh = shared();
    let mut pane = UpdatePane::new();
    let mut out_a = Out::default();
    pane.open(A, None, &mut sh, &mut out_a);
    let id_a = fetches(&out_a)[0].0;
    let mut out_t = Out::default();
    pane.open(T, None, &mut sh, &mut out_t);
    assert!(out_t.effects.contains(&Effect::Cancel(id_a)));
    let id_t = fetches(&out_t)[0].0;
    assert_ne!(id_a, id_t);
    // Asking again for the update on its way does not refetch; the new selection is kept.
    let mut again = Out::default();
    pane.open(T, Some(&ev(10)), &mut sh, &mut again);
    assert!(again.effects.is_empty(), "{:?}", again.effects);
    // The old reply lands (the App caches it) but the pane keeps waiting for T.
    reply(&mut pane, &mut sh, id_a, &earlier());
    assert!(pane.is_loading());
    assert_eq!(pane.update_id(), Some(T));
    assert!(pane.visible_event_ids().is_empty());
    // An old error is ignored too.
    let mut out = Out::default();
    pane.on_fetched(
        &fetched(
            id_a,
            &req::event(A),
            &Err(ApiError::Timeout {
                endpoint: "scan GET /v0/events/{update_id}",
            }),
        ),
        &mut sh,
        &mut out,
    );
    assert_eq!(pane.error(), None);
    reply(&mut pane, &mut sh, id_t, &transfer());
    assert_eq!(pane.visible_event_ids().len(), 5);
    assert_eq!(pane.selected_event_id(), Some(ev(10).as_str()));
}

#[test]
fn errors_are_shown_and_refresh_refetches() {
    let mut sh = shared();
    let mut pane = UpdatePane::new();
    let mut out = Out::default();
    pane.open(T, None, &mut sh, &mut out);
    let id = fetches(&out)[0].0;
    let mut out = Out::default();
    pane.on_fetched(
        &fetched(
            id,
            &req::event(T),
            &Err(ApiError::NotFound {
                endpoint: "scan GET /v0/events/{update_id}",
                message: "update not found".into(),
            }),
        ),
        &mut sh,
        &mut out,
    );
    assert!(pane.error().is_some_and(|e| e.contains("update not found")));
    assert!(matches!(out.events.as_slice(), [AppEvent::Error(..)]));
    assert_eq!(pane.hints(), vec![Command::Refresh]);
    let out = cmd(&mut pane, &mut sh, Command::Refresh);
    let f = fetches(&out);
    assert_eq!(f.len(), 1);
    assert!(pane.is_loading());
    reply(&mut pane, &mut sh, f[0].0, &transfer());
    assert_eq!(pane.error(), None);
    assert_eq!(pane.visible_event_ids().len(), 5);
}

#[test]
fn hostile_strings_leave_no_control_characters_on_screen() {
    let evil = "\u{1b}[2J\u{1b}]52;c;cm0gLXJmIH4=\u{7}x\u{9b}31m\u{202e}\r\n\u{7f}";
    let u = format!("1220ee{evil}");
    let update = json!({
        "update_id": u, "migration_id": 1, "workflow_id": evil,
        "record_time": evil, "synchronizer_id": evil, "effective_at": evil,
        "external_transaction_hash": evil,
        "root_event_ids": [format!("{u}:0"), format!("{u}:9{evil}")],
        "events_by_id": {
            format!("{u}:0"): {
                "event_type": "exercised_event", "event_id": format!("{u}:0"),
                "contract_id": format!("00{evil}"), "template_id": format!("p:M{evil}:T{evil}"),
                "package_name": evil, "choice": evil, "choice_argument": {evil: evil},
                "child_event_ids": [format!("{u}:1")], "exercise_result": evil,
                "consuming": true, "acting_parties": [evil], "interface_id": evil
            },
            format!("{u}:1"): {
                "event_type": evil, "event_id": format!("{u}:1"), "contract_id": evil
            }
        }
    });
    let mut sh = shared();
    let mut pane = UpdatePane::new();
    open_fetched(&mut pane, &mut sh, &update, None);
    let check = |pane: &mut UpdatePane, sh: &Shared, what: &str| {
        for (w, h) in [(80, 24), (120, 40), (30, 8)] {
            let t = draw(pane, sh, w, h);
            for cell in t.backend().buffer().content() {
                for c in cell.symbol().chars() {
                    assert!(
                        !(c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c)),
                        "{what} {w}x{h}: control char {c:?} drawn"
                    );
                }
            }
        }
    };
    check(&mut pane, &sh, "tree");
    for _ in 0..3 {
        cmd(&mut pane, &mut sh, Command::Down);
        check(&mut pane, &sh, "next node");
    }
    cmd(&mut pane, &mut sh, Command::Top);
    cmd(&mut pane, &mut sh, Command::Expand);
    cmd(&mut pane, &mut sh, Command::ExpandAll);
    check(&mut pane, &sh, "details");
    cmd(&mut pane, &mut sh, Command::FollowContract);
    check(&mut pane, &sh, "lifecycle");
    cmd(&mut pane, &mut sh, Command::Back);
    cmd(&mut pane, &mut sh, Command::Save);
    check(&mut pane, &sh, "save prompt");
    // The file name offered keeps only safe characters.
    let mut out = Out::default();
    pane.on_key(
        &KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
        &mut sh,
        &mut out,
    );
    let [Effect::CreateFile { path, .. }] = out.effects.as_slice() else {
        panic!("one new file: {:?}", out.effects);
    };
    let name = path.to_str().expect("utf-8 path");
    assert!(
        name.strip_prefix("./").is_some_and(|n| n
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))),
        "{name}"
    );
    // A hostile error message is drawn clean too.
    let mut pane = UpdatePane::new();
    let mut out = Out::default();
    let uncached = format!("{u}-2");
    pane.open(&uncached, None, &mut sh, &mut out);
    let id = fetches(&out)[0].0;
    pane.on_fetched(
        &fetched(
            id,
            &req::event(&uncached),
            &Err(ApiError::Scan {
                endpoint: "scan GET /v0/events/{update_id}",
                status: 500,
                message: evil.into(),
            }),
        ),
        &mut sh,
        &mut out,
    );
    check(&mut pane, &sh, "error");
}

#[test]
fn tiny_sizes_never_panic() {
    let (mut pane, mut sh) = transfer_pane();
    for (w, h) in [
        (1, 1),
        (0, 5),
        (5, 0),
        (2, 3),
        (10, 4),
        (40, 10),
        (99, 7),
        (100, 7),
    ] {
        pane.set_area(Rect::new(0, 0, w, h));
        let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
        pane.render(
            buf.area,
            &mut buf,
            RenderCtx::new(&sh, &Theme::default(), true),
        );
        cmd(&mut pane, &mut sh, Command::Down);
        cmd(&mut pane, &mut sh, Command::Expand);
        cmd(&mut pane, &mut sh, Command::FollowContract);
        pane.render(
            buf.area,
            &mut buf,
            RenderCtx::new(&sh, &Theme::default(), true),
        );
        cmd(&mut pane, &mut sh, Command::Back);
    }
}

#[test]
fn record_time_is_formatted_in_the_header() {
    let (mut pane, sh) = transfer_pane();
    let t = draw(&mut pane, &sh, 120, 40);
    let s = screen_text(&t);
    let us = parse_time_micros("2026-11-22T09:59:30.123456Z").expect("time");
    assert!(s.contains(&sh.format_time(us)), "{s}");
    assert!(s.contains("migration 4"), "{s}");
    assert!(s.contains("events 5"), "{s}");
}

#[test]
fn a_repeated_events_by_id_key_is_named_in_the_details() {
    // `events_by_id` lists `:1` twice (the second copy is what decodes) and `:0` once.
    let u = "1220dd";
    let text = format!(
        r#"{{"update": {{"update_id": "{u}", "migration_id": 1, "record_time": "2026-01-01T10:00:00Z",
        "synchronizer_id": "s", "effective_at": "2026-01-01T10:00:00Z", "root_event_ids": ["{u}:0"],
        "events_by_id": {{
          "{u}:0": {{"event_type": "exercised_event", "event_id": "{u}:0", "contract_id": "00aa",
                     "template_id": "p:M:T", "choice": "Go", "child_event_ids": ["{u}:1"]}},
          "{u}:1": {{"event_type": "created_event", "event_id": "{u}:1", "contract_id": "00first",
                     "template_id": "p:M:First", "create_arguments": {{}}}},
          "{u}:1": {{"event_type": "created_event", "event_id": "{u}:1", "contract_id": "00second",
                     "template_id": "p:M:Second", "create_arguments": {{}}}}
        }}}}, "verdict": null}}"#
    );
    let b: Arc<EventHistoryItem> = Arc::new(serde_json::from_str(&text).expect("decodes"));
    let mut sh = shared();
    let mut pane = UpdatePane::new();
    let mut out = Out::default();
    pane.open(u, None, &mut sh, &mut out);
    let (id, request) = fetches(&out).remove(0);
    sh.bodies.insert(u.to_string(), b.clone());
    pane.on_fetched(
        &fetched(
            id,
            &request,
            &Ok(Response::Api(cantonscope::api::Answer::Event(b))),
        ),
        &mut sh,
        &mut Out::default(),
    );
    // On the root: the other id is repeated.
    cmd(&mut pane, &mut sh, Command::Top);
    let screen = screen_text(&draw(&mut pane, &sh, 120, 40));
    assert!(
        screen.contains("duplicate    1 other id(s) repeated in events_by_id"),
        "{screen}"
    );
    // On the repeated node: how many copies, and that the last one is shown.
    cmd(&mut pane, &mut sh, Command::ExpandAll);
    cmd(&mut pane, &mut sh, Command::Down);
    let screen = screen_text(&draw(&mut pane, &sh, 120, 40));
    assert!(
        screen.contains("duplicate    2 copies in events_by_id; the last is shown"),
        "{screen}"
    );
    assert!(
        screen.contains("Second") && !screen.contains("First"),
        "{screen}"
    );
}

// ---------------------------------------------------------------------------------------------
// Trees: Tab, Backspace, the split, sideways scrolling and the full value (issue 10)
// ---------------------------------------------------------------------------------------------

/// The acting party of the transfer's root exercise.
const ALICE: &str = "alice::12209b21d512c6a7e2f5d215266fe6568cb732caaef7ff04e308f990a652340d";

/// Puts the details cursor on the `acting` row of the root exercise.
fn on_acting(pane: &mut UpdatePane, sh: &mut Shared) {
    cmd(pane, sh, Command::Top);
    cmd(pane, sh, Command::SwitchFocus);
    assert_eq!(pane.focus(), Focus::Details);
    for _ in 0..6 {
        cmd(pane, sh, Command::Down);
    }
    let out = cmd(pane, sh, Command::Copy);
    assert_eq!(out.effects, vec![Effect::Copy(ALICE.into())], "on acting");
}

#[test]
fn tab_switches_between_tree_and_details_and_backspace_goes_up_then_back() {
    let (mut pane, mut sh) = transfer_pane();
    cmd(&mut pane, &mut sh, Command::Top);
    assert!(pane.on_command(Command::SwitchFocus, &mut sh, &mut Out::default()));
    assert_eq!(pane.focus(), Focus::Details);
    assert!(pane.on_command(Command::SwitchFocus, &mut sh, &mut Out::default()));
    assert_eq!(pane.focus(), Focus::Tree);
    // Backspace (parent) on :10 goes to its parent :0 ...
    for _ in 0..3 {
        cmd(&mut pane, &mut sh, Command::Down);
    }
    assert_eq!(pane.selected_event_id(), Some(ev(10).as_str()));
    assert!(pane.on_command(Command::Parent, &mut sh, &mut Out::default()));
    assert_eq!(pane.selected_event_id(), Some(ev(0).as_str()));
    // ... and on a root it is back: nothing to go back to inside the pane, so the app takes
    // the user to the pane they came from (see app_flows).
    assert!(!pane.on_command(Command::Parent, &mut sh, &mut Out::default()));
    assert_eq!(pane.selected_event_id(), Some(ev(0).as_str()));
    // After following a link, Backspace on a root returns to the update left, as Esc does.
    cmd(&mut pane, &mut sh, Command::Down); // :1 archives C_IN, created in A
    cmd(&mut pane, &mut sh, Command::FollowContract);
    cmd(&mut pane, &mut sh, Command::Top); // "jump to creation"
    let out = cmd(&mut pane, &mut sh, Command::Confirm);
    reply(&mut pane, &mut sh, fetches(&out)[0].0, &earlier());
    assert_eq!(pane.update_id(), Some(A));
    assert_eq!(pane.selected_event_id(), Some(format!("{A}:0").as_str()));
    assert!(pane.on_command(Command::Parent, &mut sh, &mut Out::default()));
    assert_eq!(pane.update_id(), Some(T));
    assert_eq!(
        pane.selected_event_id(),
        Some(ev(1).as_str()),
        "where we were"
    );
    // A reassignment has no tree: Tab is not the pane's (the app goes to the next pane).
    let mut sh2 = shared_with(&[unassign(), assign()]);
    let mut re = UpdatePane::new();
    open_fetched(&mut re, &mut sh2, &unassign(), None);
    assert!(!re.on_command(Command::SwitchFocus, &mut sh2, &mut Out::default()));
}

#[test]
fn details_shorten_ids_in_the_middle_and_scroll_sideways_to_show_them_whole() {
    let (mut pane, mut sh) = transfer_pane();
    on_acting(&mut pane, &mut sh);
    let s = screen_text(&draw(&mut pane, &sh, 80, 24));
    // 80 columns: the party keeps its name and both ends of its fingerprint.
    let row = s
        .lines()
        .find(|l| l.contains("acting"))
        .expect("acting row");
    assert!(row.contains("alice::12209b21"), "{row}");
    assert!(
        row.contains("…") && row.trim_end_matches('"').ends_with("652340d"),
        "{row}"
    );
    // L scrolls the details right: the value shows in full from there on, the title says so.
    cmd(&mut pane, &mut sh, Command::ScrollRight);
    assert_eq!(pane.details_hscroll(), 8);
    let s = screen_text(&draw(&mut pane, &sh, 80, 24));
    assert!(s.contains("+8 cols"), "{s}");
    let row = s
        .lines()
        .find(|l| l.contains("acting"))
        .expect("acting row");
    // (the first column shown says the value goes on to the left)
    assert!(
        row.contains(&format!("…{}", &ALICE[9..40])),
        "whole value from column 8: {row}"
    );
    // Not past the widest row; H comes back to 0.
    for _ in 0..100 {
        cmd(&mut pane, &mut sh, Command::ScrollRight);
    }
    let most = pane.details_hscroll();
    assert!(most > 8 && most < 200, "{most}");
    for _ in 0..100 {
        cmd(&mut pane, &mut sh, Command::ScrollLeft);
    }
    assert_eq!(pane.details_hscroll(), 0);
}

#[test]
fn v_shows_the_whole_value_wrapped_y_copies_it_esc_closes() {
    let (mut pane, mut sh) = transfer_pane();
    on_acting(&mut pane, &mut sh);
    cmd(&mut pane, &mut sh, Command::ShowValue);
    assert_eq!(pane.shown_value(), Some(ALICE));
    assert_eq!(
        pane.key_context(),
        KeyContext::Overlay,
        "keys go to the box"
    );
    let s = screen_text(&draw(&mut pane, &sh, 40, 20));
    // Wrapped: all of it on screen even at 40 columns (34 columns inside the box).
    for piece in [&ALICE[..34], &ALICE[34..68], &ALICE[68..]] {
        assert!(s.contains(&format!("│{piece}")), "{piece} in {s}");
    }
    assert!(s.contains("y copy  Esc close"), "{s}");
    let out = cmd(&mut pane, &mut sh, Command::Copy);
    assert_eq!(out.effects, vec![Effect::Copy(ALICE.into())]);
    assert_eq!(pane.shown_value(), Some(ALICE), "copying keeps it open");
    cmd(&mut pane, &mut sh, Command::Cancel);
    assert_eq!(pane.shown_value(), None);
    assert_eq!(pane.focus(), Focus::Details, "Esc closed the box only");
    // From the tree: every field of the event, whole.
    cmd(&mut pane, &mut sh, Command::SwitchFocus);
    cmd(&mut pane, &mut sh, Command::ShowValue);
    let all = pane.shown_value().expect("open").to_string();
    assert!(
        all.contains(ALICE) && all.contains("AmuletRules_Transfer"),
        "{all}"
    );
    cmd(&mut pane, &mut sh, Command::ShowValue);
    assert_eq!(pane.shown_value(), None, "v again closes");
}

#[test]
fn the_split_moves_with_lt_gt_and_is_kept_for_the_next_update() {
    let (mut pane, mut sh) = transfer_pane();
    let separator = |pane: &mut UpdatePane, sh: &Shared| {
        let s = screen_text(&draw(pane, sh, 120, 40));
        let row = s.lines().nth(4).expect("row").trim_matches('"').to_string();
        row.chars().position(|c| c == '│').expect("separator")
    };
    assert_eq!(separator(&mut pane, &sh), 60);
    cmd(&mut pane, &mut sh, Command::TreeWider);
    cmd(&mut pane, &mut sh, Command::TreeWider);
    assert_eq!(pane.split_percent(), Some(60));
    assert_eq!(separator(&mut pane, &sh), 72);
    for _ in 0..20 {
        cmd(&mut pane, &mut sh, Command::TreeNarrower);
    }
    assert_eq!(pane.split_percent(), Some(15), "stops at 15 %");
    let out = cmd(&mut pane, &mut sh, Command::TreeNarrower);
    assert!(format!("{:?}", out.events).contains("at its end"));
    cmd(&mut pane, &mut sh, Command::TreeWider);
    // Kept when another update opens.
    let a = earlier();
    open_fetched(&mut pane, &mut sh, &a, None);
    assert_eq!(pane.split_percent(), Some(20));
    assert_eq!(separator(&mut pane, &sh), 24);
}

#[test]
fn snapshot_split_scroll_and_full_value() {
    for (w, h) in [(80, 24), (120, 40), (200, 60)] {
        let (mut pane, mut sh) = transfer_pane();
        cmd(&mut pane, &mut sh, Command::TreeWider);
        cmd(&mut pane, &mut sh, Command::TreeWider);
        on_acting(&mut pane, &mut sh);
        cmd(&mut pane, &mut sh, Command::ScrollRight);
        let t = draw(&mut pane, &sh, w, h);
        assert_snapshot!(format!("tree_wider_scrolled_{w}x{h}"), t.backend());
        cmd(&mut pane, &mut sh, Command::ScrollLeft);
        cmd(&mut pane, &mut sh, Command::ShowValue);
        let t = draw(&mut pane, &sh, w, h);
        assert_snapshot!(format!("full_value_{w}x{h}"), t.backend());
    }
}

#[test]
fn backspace_climbs_the_tree_then_returns_to_the_pane_the_user_came_from() {
    use cantonscope::panes::PaneId;
    let mut h = crate::common::Harness::start();
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Update);
    h.screen(120, 40);
    let root = h.app.update_pane.selected_event_id().map(str::to_string);
    // The last node is a child: Backspace goes to its parent, in the pane.
    h.key(KeyCode::Char('G'));
    assert_ne!(
        h.app.update_pane.selected_event_id().map(str::to_string),
        root
    );
    h.key(KeyCode::Backspace);
    assert_eq!(h.app.focus, PaneId::Update);
    assert_eq!(
        h.app.update_pane.selected_event_id().map(str::to_string),
        root
    );
    // On the root it is back, as Esc: to History, where the update was opened.
    h.key(KeyCode::Backspace);
    assert_eq!(h.app.focus, PaneId::History);
    // ? in the Update pane says so.
    h.key(KeyCode::Enter);
    h.key(KeyCode::Char('?'));
    let s = h.screen(200, 60);
    assert!(s.contains("p/Bksp"), "{s}");
    assert!(s.contains("at a root, back"), "{s}");
    assert!(s.contains("switch between the tree and its details"), "{s}");
}

#[test]
fn split_scroll_and_value_box_at_tiny_sizes_never_panic() {
    let (mut pane, mut sh) = transfer_pane();
    for c in [Command::TreeWider, Command::ScrollRight, Command::ShowValue] {
        for (w, h) in [(1, 1), (0, 5), (5, 0), (3, 3), (10, 4), (40, 10), (100, 7)] {
            pane.set_area(Rect::new(0, 0, w, h));
            for _ in 0..20 {
                cmd(&mut pane, &mut sh, c);
            }
            let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
            pane.render(
                buf.area,
                &mut buf,
                cantonscope::panes::RenderCtx::new(&sh, &Theme::default(), true),
            );
            cmd(&mut pane, &mut sh, Command::SwitchFocus);
            cmd(&mut pane, &mut sh, Command::TreeNarrower);
            pane.render(
                buf.area,
                &mut buf,
                cantonscope::panes::RenderCtx::new(&sh, &Theme::default(), true),
            );
        }
    }
}
