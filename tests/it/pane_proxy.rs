//! The Proxy pane (validator scan proxy) against the demo network: amulet rules and coupons on
//! first show, the JSON payload, coupon details (sorted and filtered with `o` and `/`), transfer
//! command status by sender and nonce, error shapes (404, no validator URL, unreachable proxy),
//! hostile server text, tiny sizes.

use cantonscope::api::validator::TransferCommandStatusResponse;
use cantonscope::config::keymap::KeyContext;
use cantonscope::demo::{TcRec, TcStatus};
use cantonscope::msg::Command;
use cantonscope::msg::{Effect, Response};
use cantonscope::panes::proxy::{ProxyPane, ProxySection};
use cantonscope::panes::{AppContext, Out, Pane, PaneId, RenderCtx, Shared};
use cantonscope::ui::theme::Theme;
use crossterm::event::KeyCode;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::common::pane::fetched;
use crate::common::requests as req;
use crate::common::{Harness, Options, assert_snapshot, clear_input, count, stable, toast};

fn proxy() -> Harness {
    let mut h = Harness::start();
    h.cmd(Command::Pane8);
    h
}

fn section(h: &mut Harness, s: ProxySection) {
    while h.app.proxy.section() != s {
        h.cmd(Command::NextSection);
    }
}

// ---------------------------------------------------------------------------------------------
// Amulet rules
// ---------------------------------------------------------------------------------------------

#[test]
fn first_show_loads_rules_and_coupons_once() {
    let mut h = Harness::start();
    assert_eq!(count(&h, "amulet rules"), 0);
    h.cmd(Command::Pane8);
    assert_eq!(h.app.focus, PaneId::Proxy);
    assert_eq!(count(&h, "amulet rules"), 1);
    assert_eq!(count(&h, "dev fund coupons"), 1);
    let ledger = cantonscope::demo::generate(42);
    assert_eq!(
        h.app.proxy.amulet_rules_id(),
        ledger.amulet_rules_cid(),
        "the demo's AmuletRules contract"
    );
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("Splice.AmuletRules:AmuletRules"),
        "{screen}"
    );
    assert!(screen.contains("Payload"), "{screen}");
    assert!(screen.contains("Domain     global-domain::"), "{screen}");
    h.cmd(Command::Pane1);
    h.cmd(Command::Pane8);
    assert_eq!(count(&h, "amulet rules"), 1, "no reload on the second show");
    h.cmd(Command::Refresh);
    assert_eq!(count(&h, "amulet rules"), 2);
}

#[test]
fn rules_payload_folds_and_copies() {
    let mut h = proxy();
    assert_eq!(h.app.key_context(), KeyContext::Tree);
    // At the root, y copies the contract id.
    h.cmd(Command::Copy);
    let cid = h.app.proxy.amulet_rules_id().unwrap().to_string();
    assert_eq!(h.copied.last(), Some(&cid));
    // On a payload node, y copies that node's JSON.
    h.cmd(Command::Down);
    h.cmd(Command::Copy);
    let copied = h.copied.last().unwrap().clone();
    assert_ne!(copied, cid);
    assert!(toast(&h).starts_with("copied JSON at"), "{}", toast(&h));
    // Folding the root hides the payload's lines.
    let open = h.screen(120, 40);
    h.cmd(Command::Top);
    h.cmd(Command::Toggle);
    let folded = h.screen(120, 40);
    assert!(
        folded
            .lines()
            .filter(|l| l.trim_matches('│').trim().is_empty())
            .count()
            > open
                .lines()
                .filter(|l| l.trim_matches('│').trim().is_empty())
                .count(),
        "folded:\n{folded}"
    );
}

#[test]
fn snapshot_rules_80x24() {
    let mut h = proxy();
    assert_snapshot!("snapshot_rules_80x24", stable(&h.screen(80, 24)));
}

#[test]
fn snapshot_rules_120x40() {
    let mut h = proxy();
    assert_snapshot!("snapshot_rules_120x40", stable(&h.screen(120, 40)));
}

// ---------------------------------------------------------------------------------------------
// Development fund coupons
// ---------------------------------------------------------------------------------------------

#[test]
fn coupons_sort_by_amount_and_filter_by_contract_id() {
    let mut h = proxy();
    section(&mut h, ProxySection::Coupons);
    let coupons = h.app.proxy.coupons().expect("loaded").to_vec();
    assert!(coupons.len() >= 2, "several coupons");
    let amount = |c: &cantonscope::api::validator::ContractWithState| -> f64 {
        let v: serde_json::Value = serde_json::from_str(c.contract.payload.get()).unwrap();
        v["amount"].as_str().unwrap().parse().unwrap()
    };
    // `o` sorts by amount, largest first; the details follow the selection.
    h.key(KeyCode::Char('o'));
    h.cmd(Command::Top);
    h.cmd(Command::Copy);
    let largest = coupons
        .iter()
        .max_by(|a, b| amount(a).total_cmp(&amount(b)))
        .unwrap();
    assert_eq!(
        h.copied.last(),
        Some(&largest.contract.contract_id),
        "the largest coupon first"
    );
    let screen = h.screen(120, 40);
    assert!(screen.contains("Amount ▼"), "{screen}");
    assert!(
        screen.contains(&largest.contract.contract_id[..20]),
        "the side panel shows the selected coupon:\n{screen}"
    );
    // `/` filters by contract id (and amount, creation time).
    let wanted = &coupons[coupons.len() - 1].contract.contract_id;
    h.key(KeyCode::Char('/'));
    h.type_text(&wanted[..16]);
    h.key(KeyCode::Enter);
    h.cmd(Command::Copy);
    assert_eq!(h.copied.last(), Some(wanted));
    assert!(
        h.screen(120, 40)
            .contains(&format!("1 of {} match", coupons.len()))
    );
    h.cmd(Command::Back);
    assert!(
        h.screen(120, 40)
            .contains(&format!("{} unclaimed coupons", coupons.len()))
    );
}

#[test]
fn coupons_table_details_and_copy() {
    let mut h = proxy();
    section(&mut h, ProxySection::Coupons);
    assert_eq!(h.app.key_context(), KeyContext::List);
    let ledger = cantonscope::demo::generate(42);
    let expected = ledger.unclaimed_dev_coupons();
    assert!(!expected.is_empty());
    let coupons = h.app.proxy.coupons().expect("loaded").to_vec();
    assert_eq!(coupons.len(), expected.len());
    let screen = h.screen(80, 24);
    assert!(
        screen.contains(&format!("{} unclaimed coupons", expected.len())),
        "{screen}"
    );
    h.cmd(Command::Down);
    h.cmd(Command::Copy);
    assert_eq!(
        h.copied.last(),
        Some(&coupons[1].contract.contract_id),
        "y copies the selected coupon's id"
    );
    // Enter shows the details (the whole section at 80 columns), Esc goes back.
    h.cmd(Command::Select);
    assert!(h.app.proxy.is_in_coupon_details());
    assert_eq!(h.app.key_context(), KeyContext::Tree);
    let screen = h.screen(80, 24);
    assert!(
        screen.contains(&coupons[1].contract.contract_id[..20]),
        "{screen}"
    );
    assert!(screen.contains("Payload"), "{screen}");
    h.key(KeyCode::Esc);
    assert!(!h.app.proxy.is_in_coupon_details());
    // At 120 columns the details of the selected coupon are beside the table.
    let screen = h.screen(120, 40);
    assert!(screen.contains("Template"), "side panel:\n{screen}");
}

#[test]
fn snapshot_coupons_120x40() {
    let mut h = proxy();
    section(&mut h, ProxySection::Coupons);
    assert_snapshot!("snapshot_coupons_120x40", stable(&h.screen(120, 40)));
}

#[test]
fn snapshot_coupon_details_80x24() {
    let mut h = proxy();
    section(&mut h, ProxySection::Coupons);
    h.cmd(Command::Select);
    assert_snapshot!("snapshot_coupon_details_80x24", stable(&h.screen(80, 24)));
}

// ---------------------------------------------------------------------------------------------
// Transfer command status
// ---------------------------------------------------------------------------------------------

/// A (sender, nonce) of the demo created in the last 24 hours, preferring a failed command.
fn recent_command() -> (String, TcRec) {
    let ledger = cantonscope::demo::generate(42);
    let since = chrono::Utc::now().timestamp_micros() - 23 * 3_600_000_000;
    let recent: Vec<&TcRec> = ledger
        .transfer_commands()
        .iter()
        .filter(|t| t.created_time > since)
        .collect();
    let tc = recent
        .iter()
        .find(|t| matches!(t.status, TcStatus::Failed { .. }))
        .or(recent.first())
        .expect("a recent transfer command");
    (ledger.party_id(tc.sender).to_string(), (*tc).clone())
}

fn transfers_for(sender: &str, nonce: i64) -> Harness {
    let mut h = proxy();
    section(&mut h, ProxySection::Transfers);
    h.cmd(Command::Edit);
    assert!(h.app.proxy.is_editing());
    h.type_text(sender);
    h.key(KeyCode::Down);
    h.type_text(&nonce.to_string());
    h.key(KeyCode::Enter);
    h
}

#[test]
fn transfer_status_lists_the_commands_of_sender_and_nonce() {
    let (sender, tc) = recent_command();
    let mut h = transfers_for(&sender, tc.nonce);
    assert!(!h.app.proxy.is_editing());
    let rows = h.app.proxy.transfers().expect("found").to_vec();
    let row = rows
        .iter()
        .find(|r| r.contract_id == tc.contract_id)
        .expect("the demo's command");
    let expected_status = match &tc.status {
        TcStatus::Created => "created",
        TcStatus::Sent => "sent",
        TcStatus::Failed { .. } => "failed",
    };
    assert_eq!(row.status.to_string(), expected_status);
    if let TcStatus::Failed { reason, .. } = &tc.status {
        assert_eq!(row.reason.as_deref(), Some(reason.as_str()));
        assert!(row.failure_kind.is_some());
    }
    let screen = h.screen(120, 40);
    assert!(screen.contains(expected_status), "{screen}");
    assert!(screen.contains(&format!("nonce {}", tc.nonce)), "{screen}");
    h.cmd(Command::Copy);
    assert_eq!(h.copied.last(), Some(&rows[0].contract_id));
    // r asks again with the same query.
    h.cmd(Command::Refresh);
    assert_eq!(count(&h, "transfer command status"), 2);
}

#[test]
fn transfer_sender_completes_from_history_parties() {
    let mut h = proxy();
    section(&mut h, ProxySection::Transfers);
    h.cmd(Command::Edit);
    let parties: Vec<String> = h
        .app
        .sh
        .history
        .parties()
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    let target = parties
        .iter()
        .find(|p| p.starts_with("DSO"))
        .expect("the DSO party is in the history");
    h.type_text("DSO");
    h.key(KeyCode::Tab);
    let screen = h.screen(120, 40);
    assert!(screen.contains(target.as_str()), "{screen}");
}

#[test]
fn transfer_status_not_found_and_bad_nonce_are_explained() {
    let (sender, _) = recent_command();
    let mut h = transfers_for(&sender, 999_999);
    let err = h.app.proxy.error_text().expect("failed").to_string();
    assert!(
        err.contains("no transfer command for this sender and nonce"),
        "{err}"
    );
    assert!(err.contains("last 24 hours"), "{err}");
    let screen = h.screen(80, 24);
    assert!(
        screen.contains("no transfer command for this sender"),
        "{screen}"
    );

    // A nonce that is not a number is refused in the form: no request.
    let before = count(&h, "transfer command status");
    h.cmd(Command::Edit);
    h.key(KeyCode::Down);
    clear_input(&mut h);
    h.type_text("abc");
    h.key(KeyCode::Enter);
    assert!(h.app.proxy.is_editing());
    assert_eq!(count(&h, "transfer command status"), before);
    assert!(h.screen(80, 24).contains("whole number"));
    h.key(KeyCode::Esc);
    assert!(!h.app.proxy.is_editing());
}

#[test]
fn snapshot_transfers_120x40() {
    let (sender, tc) = recent_command();
    let mut h = transfers_for(&sender, tc.nonce);
    assert_snapshot!("snapshot_transfers_120x40", stable(&h.screen(120, 40)));
}

#[test]
fn snapshot_transfers_form_80x24() {
    let mut h = proxy();
    section(&mut h, ProxySection::Transfers);
    h.cmd(Command::Edit);
    h.type_text("DSO");
    assert_snapshot!("snapshot_transfers_form_80x24", stable(&h.screen(80, 24)));
}

#[test]
fn snapshot_transfers_not_found_80x24() {
    let (sender, _) = recent_command();
    let mut h = transfers_for(&sender, 999_999);
    assert_snapshot!(
        "snapshot_transfers_not_found_80x24",
        stable(&h.screen(80, 24))
    );
}

// ---------------------------------------------------------------------------------------------
// Configuration and connection errors
// ---------------------------------------------------------------------------------------------

#[test]
fn no_validator_url_is_explained() {
    let mut h = Harness::start_with(Options {
        tweak: Box::new(|s| s.validator_url = None),
        ..Options::default()
    });
    h.cmd(Command::Pane8);
    let err = h.app.proxy.error_text().expect("failed").to_string();
    assert!(err.contains("not configured"), "{err}");
    let screen = h.screen(80, 24);
    assert!(screen.contains("not configured"), "{screen}");
    assert!(
        screen.contains("8 Proxy  "),
        "no count on failure:\n{screen}"
    );
}

#[test]
fn unreachable_validator_is_explained() {
    let mut h = Harness::start_with(Options {
        tweak: Box::new(|s| s.validator_url = Some("http://127.0.0.1:9".parse().expect("url"))),
        ..Options::default()
    });
    h.cmd(Command::Pane8);
    let err = h.app.proxy.error_text().expect("failed").to_string();
    assert!(err.contains("connection failed"), "{err}");
    section(&mut h, ProxySection::Coupons);
    assert!(
        h.app
            .proxy
            .error_text()
            .unwrap()
            .contains("connection failed")
    );
}

// ---------------------------------------------------------------------------------------------
// Hostile text, stale replies, tiny sizes
// ---------------------------------------------------------------------------------------------

#[test]
fn server_strings_with_escapes_never_reach_the_buffer() {
    let mut sh = Shared::new(AppContext::default(), 1_700_000_000_000_000);
    let mut pane = ProxyPane::new(&sh);
    let mut out = Out::default();
    pane.on_command(Command::NextSection, &mut sh, &mut out);
    pane.on_command(Command::NextSection, &mut sh, &mut out);
    assert_eq!(pane.section(), ProxySection::Transfers);
    pane.on_command(Command::Edit, &mut sh, &mut out);
    for c in "alice::1".chars() {
        pane.on_key(
            &crossterm::event::KeyEvent::from(KeyCode::Char(c)),
            &mut sh,
            &mut out,
        );
    }
    pane.on_key(&KeyCode::Down.into(), &mut sh, &mut out);
    pane.on_key(&KeyCode::Char('7').into(), &mut sh, &mut out);
    pane.on_key(&KeyCode::Enter.into(), &mut sh, &mut out);
    let Some(Effect::Fetch { id, request }) = out.effects.last().cloned() else {
        panic!("{:?}", out.effects);
    };
    assert_eq!(request, req::transfer_status("alice::1", 7));
    let body = serde_json::json!({
        "transfer_commands_by_contract_id": {
            "00\u{1b}[2Jcid": {
                "contract": {
                    "template_id": "pkg:Splice.ExternalPartyAmuletRules:TransferCommand",
                    "contract_id": "00\u{1b}[2Jcid",
                    "payload": {"receiver": "bob\u{1b}]0;title\u{7}::1", "amount": "1.0\u{202e}"},
                    "created_event_blob": "",
                    "created_at": "2026-01-01T00:00:00Z"
                },
                "status": {"status": "failed", "failure_kind": "withdrawn", "reason": "no\u{9b}31m\nfunds\u{1b}[0m"}
            }
        }
    });
    let r: TransferCommandStatusResponse = serde_json::from_value(body).unwrap();
    pane.on_fetched(
        &fetched(id, &request, &Ok(Response::from(r))),
        &mut sh,
        &mut out,
    );
    assert_eq!(pane.transfers().map(<[_]>::len), Some(1));
    for (w, hh) in [(80, 24), (120, 40), (40, 12)] {
        let mut buf = Buffer::empty(Rect::new(0, 0, w, hh));
        pane.render(
            buf.area,
            &mut buf,
            RenderCtx::new(&sh, &Theme::default(), true),
        );
        for c in buf.content() {
            assert!(
                !c.symbol()
                    .chars()
                    .any(|ch| ch.is_control() || ch == '\u{202e}'),
                "raw control {:?}",
                c.symbol()
            );
        }
    }
}

#[test]
fn stale_replies_are_ignored() {
    let mut sh = Shared::new(AppContext::default(), 1_700_000_000_000_000);
    let mut pane = ProxyPane::new(&sh);
    let mut out = Out::default();
    pane.on_focus(&mut sh, &mut out);
    pane.on_command(Command::Refresh, &mut sh, &mut out);
    let ids: Vec<_> = out
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Fetch { id, request } if *request == req::amulet_rules() => Some(*id),
            _ => None,
        })
        .collect();
    assert_eq!(ids.len(), 2);
    assert!(out.effects.contains(&Effect::Cancel(ids[0])));
    pane.on_fetched(
        &fetched(
            ids[0],
            &req::amulet_rules(),
            &Err(cantonscope::api::ApiError::Timeout { endpoint: "x" }),
        ),
        &mut sh,
        &mut out,
    );
    assert!(pane.error_text().is_none(), "the old reply is dropped");
    pane.on_fetched(
        &fetched(
            ids[1],
            &req::amulet_rules(),
            &Err(cantonscope::api::ApiError::Timeout { endpoint: "x" }),
        ),
        &mut sh,
        &mut out,
    );
    assert!(pane.error_text().unwrap().contains("timed out"));
}

#[test]
fn tiny_sizes_never_panic() {
    let (sender, tc) = recent_command();
    let mut h = transfers_for(&sender, tc.nonce);
    for _ in 0..3 {
        for (w, hh) in [(1, 1), (0, 5), (5, 0), (3, 3), (20, 4), (40, 10), (2, 30)] {
            let mut buf = Buffer::empty(Rect::new(0, 0, w, hh));
            h.app.proxy.render(
                buf.area,
                &mut buf,
                RenderCtx::new(&h.app.sh, &Theme::default(), true),
            );
            h.app.proxy.set_area(Rect::new(0, 0, w, hh));
            h.cmd(Command::PageDown);
        }
        h.cmd(Command::NextSection);
        h.cmd(Command::Select);
    }
    h.cmd(Command::Edit);
    let mut buf = Buffer::empty(Rect::new(0, 0, 10, 3));
    h.app.proxy.render(
        buf.area,
        &mut buf,
        RenderCtx::new(&h.app.sh, &Theme::default(), true),
    );
}
