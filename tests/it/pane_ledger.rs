//! The Ledger pane (9): snapshots at 80x24 and 120x40 (parties, the delete dialog, trees and
//! their drill-down, the execute confirmation and result, read-only, no token), the trees list
//! sorted and filtered (`o`, `/`), headless flows
//! against the demo network for every action with its confirmation paths and the error shapes
//! the demo answers (no token, 401 with a refused token, 404 missing user / package / party,
//! 400 invalid values, 409 duplicate, 413 over the list limit), the 404 of a node that removed
//! `/v2/updates/trees`, the `--read-only` flag and config key, sanitization of server strings
//! and drawing at tiny sizes.

use std::path::Path;
use std::sync::OnceLock;

use cantonscope::api::ledger::{JsCantonError, PartiesResponse, TreeEvent};
use cantonscope::api::{ApiError, Secret, TokenSource};
use cantonscope::demo::Ledger;
use cantonscope::msg::Command;
use cantonscope::msg::{Effect, Request, RequestId, Response};
use cantonscope::panes::ledger::{LedgerPane, READ_ONLY_TEXT, REMOVED_HINT, Section, TOKEN_HELP};
use cantonscope::panes::{AppContext, Out, Pane, Shared};
use crossterm::event::{KeyCode, KeyModifiers};
use ratatui::buffer::Buffer;
use serde_json::json;

use crate::common::pane::{fetched, render};
use crate::common::{Harness, Options, assert_snapshot, buffer_text};

fn demo_ledger() -> &'static Ledger {
    static L: OnceLock<Ledger> = OnceLock::new();
    L.get_or_init(|| cantonscope::demo::generate(42))
}

fn local_parties() -> Vec<String> {
    demo_ledger()
        .local_parties()
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// A party the demo participant does not host.
fn remote_party() -> String {
    let local = local_parties();
    demo_ledger()
        .user_parties()
        .into_iter()
        .find(|p| !local.iter().any(|l| l == p))
        .expect("a remote party")
        .to_string()
}

/// The Ledger pane on the demo, at `section`.
fn at(opts: Options, section: Section) -> Harness {
    let mut h = Harness::start_with(opts);
    h.cmd(Command::Pane9);
    h.app.ledger.set_section(section);
    h
}

fn snap(h: &mut Harness, w: u16, ht: u16) -> String {
    let s = crate::common::stable(&h.screen(w, ht));
    // Trace ids of error bodies, and the History badge (how many updates the recent window
    // holds depends on the clock).
    let s = regex::Regex::new(r"\b[0-9a-f]{32}\b")
        .expect("regex")
        .replace_all(&s, "<trace>")
        .into_owned();
    regex::Regex::new(r"History \d[\d,]*")
        .expect("regex")
        .replace_all(&s, "History N")
        .into_owned()
}

fn count(h: &Harness, what: &str) -> usize {
    h.requests.iter().filter(|r| r.as_str() == what).count()
}

/// An execute body the demo accepts, signed by `signer`.
fn execute_body(signer: &str, prepared: &str, scheme: &str) -> serde_json::Value {
    use base64::Engine as _;
    json!({
        "preparedTransaction": base64::engine::general_purpose::STANDARD.encode(prepared),
        "partySignatures": {"signatures": [{
            "party": signer,
            "signatures": [{
                "format": "SIGNATURE_FORMAT_RAW",
                "signature": "AQID",
                "signedBy": "1220aa",
                "signingAlgorithmSpec": "SIGNING_ALGORITHM_SPEC_ED25519"
            }]
        }]},
        "submissionId": "pane-test",
        "hashingSchemeVersion": scheme,
        "deduplicationPeriod": {"Empty": {}}
    })
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// Opens the execute editor with `x`, types `path` and loads it.
fn load_body(h: &mut Harness, path: &Path) {
    h.cmd(Command::Execute);
    h.key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL);
    h.type_text(path.to_str().expect("utf-8 path"));
    h.key(KeyCode::Enter);
}

// ---------------------------------------------------------------------------------------------
// Header, badge, tabs, no token, refused token

#[test]
fn header_shows_the_ledger_end_and_sections_switch() {
    let mut h = at(Options::default(), Section::Parties);
    let end = demo_ledger().ledger_end();
    let shown = format!("{end}");
    let grouped = cantonscope::ui::format::group_thousands(u64::try_from(end).expect("offset"));
    assert_eq!(grouped.replace(',', ""), shown);
    let screen = h.screen(80, 24);
    assert!(
        screen.contains(&format!("ledger end {grouped}")),
        "{screen}"
    );
    // The tab counts the rows of the section shown: no parties listed yet, no count.
    assert_eq!(h.app.ledger.tab_count(&h.app.sh), None);
    // Refresh fetches it again.
    let before = count(&h, "ledger end");
    h.cmd(Command::Refresh);
    assert_eq!(count(&h, "ledger end"), before + 1);
    for want in [
        Section::DeleteUser,
        Section::Package,
        Section::Trees,
        Section::Execute,
        Section::Parties,
    ] {
        h.key(KeyCode::Char(']'));
        assert_eq!(h.app.ledger.section(), want);
    }
    h.key(KeyCode::Char('['));
    assert_eq!(h.app.ledger.section(), Section::Execute);
    assert!(h.app.ledger.hints().contains(&Command::Execute));
    h.key(KeyCode::Char('['));
    h.key(KeyCode::Char('['));
    assert!(h.app.ledger.hints().contains(&Command::Select));
    h.key(KeyCode::Char('['));
    assert!(h.app.ledger.hints().contains(&Command::Delete));
}

#[test]
fn without_a_token_the_pane_says_what_to_configure_and_sends_nothing() {
    let mut h = at(
        Options {
            token: false,
            ..Options::default()
        },
        Section::Parties,
    );
    assert_eq!(h.app.ledger.tab_count(&h.app.sh), None);
    let before = h.requests.len();
    h.cmd(Command::Edit);
    h.cmd(Command::Refresh);
    h.tick(3.0);
    assert!(!h.app.ledger.wants_raw_keys(), "no form without a token");
    assert!(
        h.requests[before..]
            .iter()
            .all(|r| !r.starts_with("ledger")),
        "{:?}",
        &h.requests[before..]
    );
    let screen = h.screen(80, 24);
    for needle in [
        "JWT required",
        "--token-file",
        "CANTONSCOPE_TOKEN",
        "token_command",
    ] {
        assert!(screen.contains(needle), "{needle}\n{screen}");
    }
    assert_snapshot!("no_token_80x24", snap(&mut h, 80, 24));
    assert_snapshot!("no_token_120x40", snap(&mut h, 120, 40));
}

#[test]
fn a_refused_token_reads_as_401_with_the_token_hint() {
    let mut h = at(
        Options {
            tweak: Box::new(|s| s.token = Some(TokenSource::Literal(Secret::new("not-a-jwt")))),
            ..Options::default()
        },
        Section::Parties,
    );
    h.cmd(Command::Edit);
    h.type_text(&local_parties()[0]);
    h.key(KeyCode::Enter);
    assert_eq!(count(&h, "ledger parties"), 1);
    let screen = h.screen(120, 40);
    assert!(screen.contains("HTTP 401 unauthorized"), "{screen}");
    assert!(screen.contains("UNAUTHENTICATED"), "{screen}");
    assert!(screen.contains("--token-file"), "{screen}");
    assert_snapshot!("unauthorized_80x24", snap(&mut h, 80, 24));
}

// ---------------------------------------------------------------------------------------------
// Parties

#[test]
fn parties_lookup_with_completion_extra_parties_and_unknown_ones() {
    let mut h = at(Options::default(), Section::Parties);
    let local = local_parties();
    let first = &local[0];
    h.cmd(Command::Edit);
    assert!(h.app.ledger.wants_raw_keys());
    // Tab completes from the parties seen in the history.
    let prefix: String = first.chars().take(5).collect();
    h.type_text(&prefix);
    h.key(KeyCode::Tab);
    assert_snapshot!("parties_form_80x24", snap(&mut h, 80, 24));
    h.key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL);
    h.type_text(first);
    h.key(KeyCode::Down);
    let remote = remote_party();
    h.type_text(&format!("{remote}, nobody::1220ab"));
    h.key(KeyCode::Enter);
    assert_eq!(count(&h, "ledger parties"), 1);
    let p = &h.app.ledger.parties;
    assert_eq!(p.party_ids().len(), 2, "{:?}", p.party_ids());
    assert!(p.party_ids().contains(&first.as_str()));
    assert_eq!(p.unknown(), vec!["nobody::1220ab"]);
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("2 of 3 requested parties known · not known: nobody::1220ab"),
        "{screen}"
    );
    assert!(
        screen.contains("cantonscope.demo/display-name="),
        "{screen}"
    );
    assert_snapshot!("parties_80x24", snap(&mut h, 80, 24));
    assert_snapshot!("parties_120x40", snap(&mut h, 120, 40));
    // Copy the selected party; refresh repeats the query.
    h.cmd(Command::Copy);
    assert_eq!(
        h.copied.last().map(String::as_str),
        Some(h.app.ledger.parties.party_ids()[0])
    );
    h.cmd(Command::Refresh);
    assert_eq!(count(&h, "ledger parties"), 2);
}

#[test]
fn parties_errors_invalid_party_and_unknown_identity_provider() {
    let mut h = at(Options::default(), Section::Parties);
    // An empty party never leaves the form.
    h.cmd(Command::Edit);
    h.key(KeyCode::Enter);
    assert!(h.app.ledger.wants_raw_keys());
    assert!(h.screen(80, 24).contains("a party id is required"));
    h.type_text("not a party");
    h.key(KeyCode::Enter);
    let screen = h.screen(120, 40);
    assert!(screen.contains("HTTP 400 invalid value"), "{screen}");
    h.cmd(Command::Edit);
    h.key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL);
    h.type_text(&local_parties()[0]);
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    h.type_text("corp-idp");
    h.key(KeyCode::Enter);
    let screen = h.screen(120, 40);
    assert!(screen.contains("HTTP 404 IDP_CONFIG_NOT_FOUND"), "{screen}");
    assert!(screen.contains("correlation id"), "{screen}");
}

// ---------------------------------------------------------------------------------------------
// Delete user

#[test]
fn delete_user_needs_the_exact_user_id_and_reports_each_outcome() {
    let mut h = at(Options::default(), Section::DeleteUser);
    assert!(demo_ledger().users().any(|u| u == "alice"));
    // D without a user asks for one, then the dialog asks to type it again.
    h.cmd(Command::Delete);
    h.type_text("alice");
    h.key(KeyCode::Enter);
    assert!(h.app.ledger.delete.dialog_open());
    assert_snapshot!("delete_dialog_80x24", snap(&mut h, 80, 24));
    assert_snapshot!("delete_dialog_120x40", snap(&mut h, 120, 40));
    // A mismatch keeps the dialog and sends nothing.
    h.type_text("Alice");
    h.key(KeyCode::Enter);
    assert!(h.app.ledger.delete.dialog_open());
    assert!(
        h.screen(80, 24)
            .contains("does not match: type alice exactly")
    );
    assert_eq!(count(&h, "ledger delete user"), 0);
    // Esc cancels.
    h.key(KeyCode::Esc);
    assert!(!h.app.ledger.delete.dialog_open());
    assert_eq!(count(&h, "ledger delete user"), 0);
    // The exact id deletes.
    h.cmd(Command::Delete);
    h.type_text("alice");
    h.key(KeyCode::Enter);
    assert_eq!(count(&h, "ledger delete user"), 1);
    assert_eq!(h.app.ledger.delete.outcomes()[0].verdict, "deleted");
    // Again: the user is gone (404 USER_NOT_FOUND).
    h.cmd(Command::Delete);
    h.type_text("alice");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.ledger.delete.outcomes()[0].verdict, "not found");
    let screen = h.screen(120, 40);
    assert!(screen.contains("user alice: not found"), "{screen}");
    assert!(screen.contains("HTTP 404 USER_NOT_FOUND"), "{screen}");
    assert!(
        screen.contains("deleted user alice and all its rights"),
        "{screen}"
    );
    assert_snapshot!("delete_outcomes_80x24", snap(&mut h, 80, 24));
    // An invalid user id is a 400.
    h.cmd(Command::Edit);
    h.key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL);
    h.type_text("no/such user");
    h.key(KeyCode::Enter);
    h.type_text("no/such user");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.ledger.delete.outcomes()[0].verdict, "invalid");
    assert!(h.screen(120, 40).contains("HTTP 400 invalid value"));
}

#[test]
fn a_refused_delete_reads_as_not_allowed() {
    let mut h = at(
        Options {
            tweak: Box::new(|s| s.token = Some(TokenSource::Literal(Secret::new("expired")))),
            ..Options::default()
        },
        Section::DeleteUser,
    );
    h.cmd(Command::Delete);
    h.type_text("bob");
    h.key(KeyCode::Enter);
    h.type_text("bob");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.ledger.delete.outcomes()[0].verdict, "not allowed");
    let screen = h.screen(120, 40);
    assert!(screen.contains("user bob: not allowed"), "{screen}");
    assert!(screen.contains(TOKEN_HELP.split_whitespace().next().expect("word")));
}

// ---------------------------------------------------------------------------------------------
// Read-only

#[test]
fn read_only_disables_delete_and_execute_and_says_so() {
    let mut h = at(
        Options {
            read_only: true,
            ..Options::default()
        },
        Section::DeleteUser,
    );
    assert!(h.app.sh.ctx.read_only);
    h.cmd(Command::Delete);
    h.cmd(Command::Edit);
    assert!(!h.app.ledger.delete.dialog_open());
    assert!(!h.app.ledger.wants_raw_keys());
    let screen = h.screen(120, 40);
    assert!(screen.contains(READ_ONLY_TEXT), "{screen}");
    assert_snapshot!("read_only_delete_80x24", snap(&mut h, 80, 24));
    h.app.ledger.set_section(Section::Execute);
    h.cmd(Command::Execute);
    h.cmd(Command::Edit);
    assert!(!h.app.ledger.wants_raw_keys());
    assert!(!h.app.ledger.execute.confirm_open());
    assert!(h.screen(80, 24).contains(READ_ONLY_TEXT));
    assert_eq!(
        count(&h, "ledger delete user") + count(&h, "ledger execute"),
        0
    );
    // The other sections still work.
    h.app.ledger.set_section(Section::Parties);
    h.cmd(Command::Edit);
    assert!(h.app.ledger.wants_raw_keys());
}

/// The `--read-only` flag and the `read_only` profile key both reach the pane.
#[test]
fn read_only_flag_and_config_key_reach_the_pane() {
    use clap::Parser as _;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let _guard = rt.enter();
    let check = |settings: cantonscope::config::Settings| {
        let (mut app, _) = cantonscope::runtime::build(&settings, 0).expect("builds");
        assert!(app.sh.ctx.read_only);
        app.update(cantonscope::msg::Action::Command(Command::Pane9));
        app.ledger.set_section(Section::Execute);
        let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 30)).expect("t");
        t.draw(|f| cantonscope::app::draw::draw(&app, f))
            .expect("draw");
        let text = buffer_text(t.backend().buffer());
        assert!(text.contains(READ_ONLY_TEXT), "{text}");
    };
    let cli = cantonscope::cli::Cli::try_parse_from([
        "cantonscope",
        "--read-only",
        "--ledger-url",
        "http://127.0.0.1:9",
    ])
    .expect("parses");
    let flags = cli.overrides();
    assert!(flags.read_only);
    let env = cantonscope::config::Env::new();
    check(cantonscope::config::resolve(None, &env, &flags).expect("resolves"));
    let file = cantonscope::config::LoadedFile {
        path: "/tmp/cs.toml".into(),
        text: "[profiles.p]\nledger_url = \"http://127.0.0.1:9\"\nread_only = true\n".into(),
    };
    let flags = cantonscope::config::Overrides {
        profile: Some("p".into()),
        ..Default::default()
    };
    check(cantonscope::config::resolve(Some(&file), &env, &flags).expect("resolves"));
}

// ---------------------------------------------------------------------------------------------
// Package

#[test]
fn package_download_writes_the_file_with_size_and_hash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = at(Options::default(), Section::Package);
    let ids = h.app.ledger.package.known_ids(&h.app.sh);
    let demo_ids: Vec<&str> = demo_ledger().package_ids();
    assert!(
        !ids.is_empty() && ids.iter().all(|i| demo_ids.contains(&i.as_str())),
        "{ids:?}"
    );
    // Enter on a known id opens the form with it; name the file and download.
    h.cmd(Command::Select);
    let path = dir.path().join("pkg.dalf");
    h.key(KeyCode::Down);
    h.key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL);
    h.type_text(path.to_str().expect("utf-8"));
    h.key(KeyCode::Enter);
    assert_eq!(count(&h, "ledger package"), 1);
    let got = h.app.ledger.package.result().expect("downloaded").clone();
    assert_eq!(got.package_id, ids[0]);
    let bytes = std::fs::read(&path).expect("file written");
    assert_eq!(bytes.len(), got.size);
    assert_eq!(got.hash.as_deref(), Some(ids[0].as_str()));
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("check     matches the package id"),
        "{screen}"
    );
    assert!(
        screen.contains(&format!("saved {} bytes", bytes.len())),
        "{screen}"
    );
    assert!(screen.contains("saved to"), "{screen}");
    let masked = snap(&mut h, 80, 24).replace(dir.path().to_str().expect("utf-8"), "<dir>");
    assert_snapshot!("package_80x24", masked);

    // A file that cannot be written: the pane says so instead of "saved to".
    h.cmd(Command::Select);
    let bad = dir.path().join("missing-dir").join("pkg.dalf");
    h.key(KeyCode::Down);
    h.key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL);
    h.type_text(bad.to_str().expect("utf-8"));
    h.key(KeyCode::Enter);
    let screen = h.screen(120, 40);
    assert!(screen.contains("not saved"), "{screen}");
    assert!(!screen.contains("saved to"), "{screen}");
}

#[test]
fn package_errors_missing_fields_unknown_and_invalid_ids() {
    let mut h = at(Options::default(), Section::Package);
    h.cmd(Command::Edit);
    h.key(KeyCode::Enter);
    assert!(h.screen(80, 24).contains("a package id is required"));
    h.type_text("00aa11bb22cc33dd44ee55ff66778899");
    h.key(KeyCode::Enter);
    assert!(
        h.screen(80, 24)
            .contains("name the file to save the package to")
    );
    h.type_text("x.dalf");
    h.key(KeyCode::Enter);
    let screen = h.screen(120, 40);
    assert!(screen.contains("HTTP 404 PACKAGE_NOT_FOUND"), "{screen}");
    assert!(!Path::new("x.dalf").exists(), "nothing written on failure");
    h.cmd(Command::Edit);
    h.key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL);
    h.type_text("bad.id!");
    h.key(KeyCode::Enter);
    assert!(h.screen(120, 40).contains("HTTP 400 invalid value"));
}

// ---------------------------------------------------------------------------------------------
// Transaction trees

fn trees_query(h: &mut Harness, begin: &str, end: &str, parties: &str, limit: &str, desc: &str) {
    h.cmd(Command::Edit);
    for (i, v) in [begin, end, parties, limit, desc].iter().enumerate() {
        if i > 0 {
            h.key(KeyCode::Down);
        }
        h.key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL);
        h.type_text(v);
    }
    h.key(KeyCode::Enter);
}

#[test]
fn trees_list_sorts_filters_and_opens_the_selected_item() {
    use cantonscope::api::ledger::Update;
    let mut h = at(Options::default(), Section::Trees);
    trees_query(&mut h, "0", "40", "", "", "no");
    let trees: Vec<(i64, String)> = h
        .app
        .ledger
        .trees
        .items()
        .iter()
        .filter_map(|i| match &i.update {
            Update::TransactionTree(t) => Some((t.offset, t.update_id.clone())),
            _ => None,
        })
        .collect();
    assert!(trees.len() >= 2, "{trees:?}");
    // o: kind, then offset (ascending); O reverses: the newest first.
    h.key(KeyCode::Char('o'));
    h.key(KeyCode::Char('o'));
    h.key(KeyCode::Char('O'));
    assert!(h.screen(120, 40).contains("offset ▼"));
    h.key(KeyCode::Char('g'));
    h.key(KeyCode::Char('y'));
    let newest = trees.iter().max_by_key(|(o, _)| *o).expect("a tree");
    assert_eq!(h.copied.last(), Some(&newest.1));
    // `/` filters by update id (and kind, offset, root); Enter then opens the row shown.
    let (_, wanted) = &trees[0];
    h.key(KeyCode::Char('/'));
    h.type_text(&wanted[..16]);
    h.key(KeyCode::Enter);
    assert!(h.screen(120, 40).contains("filter "));
    h.key(KeyCode::Char('y'));
    assert_eq!(h.copied.last(), Some(wanted));
    h.key(KeyCode::Enter);
    assert_eq!(
        h.app.ledger.trees.drill_focus(),
        Some(cantonscope::panes::ledger::DrillFocus::Tree)
    );
    let screen = h.screen(120, 40);
    assert!(screen.contains(&wanted[..16]), "{screen}");
    // Esc: back to the list, then the filter goes.
    h.key(KeyCode::Esc);
    assert_eq!(h.app.ledger.trees.drill_focus(), None);
    h.key(KeyCode::Esc);
    assert!(!h.screen(120, 40).contains("filter "));
}

#[test]
fn trees_list_and_drill_down_into_the_tree_widget() {
    let mut h = at(Options::default(), Section::Trees);
    trees_query(&mut h, "0", "40", "", "", "no");
    assert_eq!(count(&h, "ledger update trees"), 1);
    let n = h.app.ledger.trees.items().len();
    assert!(n > 5 && n <= 41, "{n}");
    assert_snapshot!("trees_80x24", snap(&mut h, 80, 24));
    assert_snapshot!("trees_120x40", snap(&mut h, 120, 40));
    // Open the first tree with more than one node.
    let idx = h
        .app
        .ledger
        .trees
        .items()
        .iter()
        .position(|i| match &i.update {
            cantonscope::api::ledger::Update::TransactionTree(t) => t.events_by_id.values().any(|e| {
                matches!(e, TreeEvent::ExercisedTreeEvent(x) if x.last_descendant_node_id > x.node_id)
            }),
            _ => false,
        })
        .expect("a tree with nesting");
    for _ in 0..idx {
        h.cmd(Command::Down);
    }
    h.key(KeyCode::Enter);
    assert_eq!(
        h.app.ledger.trees.drill_focus(),
        Some(cantonscope::panes::ledger::DrillFocus::Tree)
    );
    let ids = h.app.ledger.trees.visible_node_ids();
    assert!(ids.len() >= 2, "{ids:?}");
    assert_snapshot!("trees_drill_80x24", snap(&mut h, 80, 24));
    assert_snapshot!("trees_drill_120x40", snap(&mut h, 120, 40));
    // Moving changes the details; the JSON shows the arguments.
    h.cmd(Command::Down);
    let screen = h.screen(120, 40);
    assert!(screen.contains("Argument"), "{screen}");
    // Collapse everything (C): only the roots stay; expand everything again (E).
    h.key(KeyCode::Char('C'));
    assert!(h.app.ledger.trees.visible_node_ids().len() < ids.len());
    h.key(KeyCode::Char('E'));
    assert_eq!(h.app.ledger.trees.visible_node_ids(), ids);
    // → on a leaf moves to the details; Esc comes back to the tree.
    h.cmd(Command::Bottom);
    h.key(KeyCode::Right);
    assert_eq!(
        h.app.ledger.trees.drill_focus(),
        Some(cantonscope::panes::ledger::DrillFocus::Details)
    );
    h.key(KeyCode::Esc);
    assert_eq!(
        h.app.ledger.trees.drill_focus(),
        Some(cantonscope::panes::ledger::DrillFocus::Tree)
    );
    // Esc goes back to the list.
    h.key(KeyCode::Esc);
    assert_eq!(h.app.ledger.trees.drill_focus(), None);
    // Package ids seen in the trees feed the Package section.
    assert!(!h.app.ledger.package.known_ids(&h.app.sh).is_empty());
}

#[test]
fn trees_party_filter_limit_and_descending() {
    let mut h = at(Options::default(), Section::Trees);
    let party = local_parties()[0].clone();
    trees_query(&mut h, "0", "300", &party, "5", "yes");
    let items = h.app.ledger.trees.items();
    assert!(items.len() <= 5 && !items.is_empty(), "{}", items.len());
    let offsets: Vec<i64> = items
        .iter()
        .filter_map(|i| match &i.update {
            cantonscope::api::ledger::Update::TransactionTree(t) => Some(t.offset),
            _ => None,
        })
        .collect();
    assert!(
        offsets.windows(2).all(|w| w[0] > w[1]),
        "descending: {offsets:?}"
    );
    assert!(
        h.screen(120, 40)
            .contains("· 1 party · limit 5 · descending")
    );
}

#[test]
fn trees_errors_413_400_and_form_checks() {
    let mut h = at(Options::default(), Section::Trees);
    // Descending without an end never leaves the form.
    trees_query(&mut h, "0", "", "", "", "yes");
    assert!(h.app.ledger.wants_raw_keys());
    assert!(
        h.screen(80, 24)
            .contains("descending order needs an end offset")
    );
    assert_eq!(count(&h, "ledger update trees"), 0);
    h.key(KeyCode::Esc);
    // The whole ledger without a limit: over the node's list limit.
    trees_query(&mut h, "0", "", "", "", "no");
    assert_eq!(count(&h, "ledger update trees"), 1);
    let screen = h.screen(120, 40);
    assert!(screen.contains("HTTP 413"), "{screen}");
    assert!(screen.contains("Narrow the range"), "{screen}");
    assert_snapshot!("trees_413_80x24", snap(&mut h, 80, 24));
    // An end after the ledger end: the ledger's 400.
    let end = demo_ledger().ledger_end() + 1000;
    trees_query(&mut h, "0", &end.to_string(), "", "", "no");
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("HTTP 400 OFFSET_AFTER_LEDGER_END"),
        "{screen}"
    );
}

// ---------------------------------------------------------------------------------------------
// Execute

#[test]
fn execute_from_a_file_confirm_then_duplicate_is_409() {
    let dir = tempfile::tempdir().expect("tempdir");
    let signer = local_parties()[0].clone();
    let prepared = "pane test prepared transaction 1";
    let path = dir.path().join("execute.json");
    std::fs::write(
        &path,
        execute_body(&signer, prepared, "HASHING_SCHEME_VERSION_V2").to_string(),
    )
    .expect("write");
    let mut h = at(Options::default(), Section::Execute);
    load_body(&mut h, &path);
    assert!(
        h.app.ledger.execute.confirm_open(),
        "{}",
        h.app.ledger.execute.problem_text()
    );
    let masked = |s: String| s.replace(dir.path().to_str().expect("utf-8"), "<dir>");
    assert_snapshot!("execute_confirm_80x24", masked(snap(&mut h, 80, 24)));
    assert_snapshot!("execute_confirm_120x40", masked(snap(&mut h, 120, 40)));
    // Esc cancels: nothing sent; x reopens the confirmation.
    h.key(KeyCode::Esc);
    assert!(!h.app.ledger.execute.confirm_open());
    assert_eq!(count(&h, "ledger execute"), 0);
    h.cmd(Command::Execute);
    assert!(h.app.ledger.execute.confirm_open());
    // Enter does not confirm an irreversible action (a held Enter must not send it); x does.
    h.key(KeyCode::Enter);
    assert_eq!(count(&h, "ledger execute"), 0);
    assert!(h.app.ledger.execute.confirm_open());
    h.key(KeyCode::Char('x'));
    assert_eq!(count(&h, "ledger execute"), 1);
    let tx = h.app.ledger.execute.result().expect("executed").clone();
    // The pane fetched the new ledger end.
    assert_eq!(h.app.sh.ledger_end, Some(Some(tx.offset)));
    assert_eq!(
        tx.external_transaction_hash.as_deref(),
        Some(sha256_hex(prepared.as_bytes()).as_str())
    );
    assert!(tx.offset > demo_ledger().ledger_end());
    assert!(!tx.events.is_empty());
    let screen = h.screen(120, 40);
    for needle in [
        tx.update_id.as_str(),
        "external hash",
        "traffic cost",
        "created",
    ] {
        assert!(screen.contains(needle), "{needle}\n{screen}");
    }
    assert_snapshot!("execute_result_80x24", masked(snap(&mut h, 80, 24)));
    h.cmd(Command::Copy);
    assert_eq!(h.copied.last(), Some(&tx.update_id));
    // The same prepared transaction again: 409 DUPLICATE_COMMAND, shown with its fields.
    load_body(&mut h, &path);
    h.key(KeyCode::Char('x'));
    assert_eq!(count(&h, "ledger execute"), 2);
    let screen = h.screen(120, 40);
    assert!(screen.contains("HTTP 409 DUPLICATE_COMMAND"), "{screen}");
    assert!(screen.contains("category 10 · gRPC code 6"), "{screen}");
    assert!(screen.contains("correlation id"), "{screen}");
    assert_snapshot!("execute_duplicate_80x24", masked(snap(&mut h, 80, 24)));
}

#[test]
fn execute_checks_the_body_locally_and_shows_server_rejections() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = at(Options::default(), Section::Execute);
    // A file that does not exist.
    load_body(&mut h, &dir.path().join("missing.json"));
    assert!(h.screen(120, 40).contains("cannot read"));
    h.key(KeyCode::Esc);
    // Missing required fields: the serde path, nothing sent.
    let path = dir.path().join("bad.json");
    std::fs::write(
        &path,
        r#"{"preparedTransaction": "AA==", "partySignatures": {"signatures": [{"party": 7}]}}"#,
    )
    .expect("write");
    load_body(&mut h, &path);
    assert!(!h.app.ledger.execute.confirm_open());
    let problem = h.app.ledger.execute.problem_text();
    assert!(
        problem.contains("at partySignatures.signatures[0].party"),
        "{problem}"
    );
    assert!(
        h.screen(120, 40)
            .contains("partySignatures.signatures[0].party")
    );
    let masked = snap(&mut h, 80, 24).replace(dir.path().to_str().expect("utf-8"), "<dir>");
    assert_snapshot!("execute_editor_invalid_80x24", masked);
    h.key(KeyCode::Esc);
    assert_eq!(count(&h, "ledger execute"), 0);
    // Passes the local check, rejected by the ledger: 400 text/plain.
    let signer = local_parties()[0].clone();
    std::fs::write(
        &path,
        execute_body(
            &signer,
            "unspecified scheme",
            "HASHING_SCHEME_VERSION_UNSPECIFIED",
        )
        .to_string(),
    )
    .expect("write");
    load_body(&mut h, &path);
    h.key(KeyCode::Char('x'));
    let screen = h.screen(120, 40);
    assert!(screen.contains("HTTP 400 invalid value"), "{screen}");
    assert!(
        screen.contains("hashingSchemeVersion must be specified"),
        "{screen}"
    );
    // A signer the participant does not host: 404 PARTY_NOT_KNOWN_ON_LEDGER.
    std::fs::write(
        &path,
        execute_body(
            &remote_party(),
            "remote signer",
            "HASHING_SCHEME_VERSION_V2",
        )
        .to_string(),
    )
    .expect("write");
    load_body(&mut h, &path);
    h.key(KeyCode::Char('x'));
    assert!(
        h.screen(120, 40)
            .contains("HTTP 404 PARTY_NOT_KNOWN_ON_LEDGER")
    );
    assert_eq!(count(&h, "ledger execute"), 2);
}

#[test]
fn execute_from_a_pasted_body() {
    let mut h = at(Options::default(), Section::Execute);
    let signer = local_parties()[0].clone();
    h.cmd(Command::Edit);
    assert!(h.app.ledger.wants_raw_keys());
    let body = serde_json::to_string_pretty(&execute_body(
        &signer,
        "pasted",
        "HASHING_SCHEME_VERSION_V3",
    ))
    .expect("json");
    h.act(cantonscope::msg::Action::Paste(body));
    h.key_mod(KeyCode::Char('s'), KeyModifiers::CONTROL);
    assert!(
        h.app.ledger.execute.confirm_open(),
        "{}",
        h.app.ledger.execute.problem_text()
    );
    h.key(KeyCode::Char('x'));
    let tx = h.app.ledger.execute.result().expect("executed");
    assert_eq!(
        tx.external_transaction_hash.as_deref(),
        Some(sha256_hex(b"pasted").as_str())
    );
}

// ---------------------------------------------------------------------------------------------
// Pure pane: removed endpoint, sanitization, tiny sizes

fn pure() -> (LedgerPane, Shared) {
    let ctx = AppContext {
        ledger_url: Some("http://ledger.example:7575".into()),
        has_token: true,
        ..AppContext::default()
    };
    let sh = Shared::new(ctx, 0);
    (LedgerPane::new(&sh), sh)
}

fn fetch_of(out: &Out) -> (RequestId, Request) {
    out.effects
        .iter()
        .find_map(|e| match e {
            Effect::Fetch { id, request } => Some((*id, request.clone())),
            _ => None,
        })
        .expect("a fetch")
}

fn press(pane: &mut LedgerPane, sh: &mut Shared, code: KeyCode) -> Out {
    let mut out = Out::default();
    pane.on_key(
        &crossterm::event::KeyEvent::new(code, KeyModifiers::NONE),
        sh,
        &mut out,
    );
    out
}

#[test]
fn a_404_on_trees_says_the_node_removed_the_endpoint() {
    let (mut pane, mut sh) = pure();
    pane.set_section(Section::Trees);
    let mut out = Out::default();
    pane.on_command(Command::Edit, &mut sh, &mut out);
    let out = press(&mut pane, &mut sh, KeyCode::Enter);
    let (id, request) = fetch_of(&out);
    assert_eq!(
        request.call().map(cantonscope::api::Call::endpoint),
        Some("ledger POST /v2/updates/trees")
    );
    let err = Err(ApiError::EndpointNotServed {
        endpoint: "ledger POST /v2/updates/trees",
        version: Some("3.5.0".into()),
    });
    pane.on_fetched(&fetched(id, &request, &err), &mut sh, &mut Out::default());
    let text = buffer_text(&render(&pane, &sh, 120, 20));
    assert!(
        text.contains("this node does not serve the endpoint (version 3.5.0)"),
        "{text}"
    );
    assert!(text.contains(&REMOVED_HINT[..40]), "{text}");
    // A stale reply is ignored.
    let ok = Ok(Response::from(Vec::<
        cantonscope::api::ledger::JsGetUpdateTreesResponse,
    >::new()));
    pane.on_fetched(
        &fetched(RequestId::new(id.owner, id.seq + 100), &request, &ok),
        &mut sh,
        &mut Out::default(),
    );
    assert!(buffer_text(&render(&pane, &sh, 120, 20)).contains("removed"));
}

#[test]
fn server_strings_never_reach_the_buffer_raw() {
    let (mut pane, mut sh) = pure();
    let mut out = Out::default();
    pane.on_command(Command::Edit, &mut sh, &mut out);
    for c in "evil::1220".chars() {
        press(&mut pane, &mut sh, KeyCode::Char(c));
    }
    let out = press(&mut pane, &mut sh, KeyCode::Enter);
    let (id, request) = fetch_of(&out);
    let resp: PartiesResponse = serde_json::from_value(json!({"partyDetails": [{
        "party": "evil\u{1b}[31m::1220\u{202e}",
        "isLocal": true,
        "localMetadata": {"resourceVersion": "7\u{7}", "annotations": {"k\u{1b}]0;x": "v\u{9b}2J"}},
        "identityProviderId": "idp\r\n"
    }]}))
    .expect("decodes");
    pane.on_fetched(
        &fetched(id, &request, &Ok(Response::from(resp))),
        &mut sh,
        &mut Out::default(),
    );
    let check = |buf: &Buffer| {
        for cell in buf.content() {
            for c in cell.symbol().chars() {
                assert!(
                    !c.is_control() && !('\u{202a}'..='\u{202e}').contains(&c),
                    "raw {c:?} in the buffer"
                );
            }
        }
    };
    let buf = render(&pane, &sh, 120, 30);
    assert!(buffer_text(&buf).contains("evil"));
    check(&buf);
    // A JsCantonError with escapes in its fields.
    pane.set_section(Section::DeleteUser);
    let mut out = Out::default();
    pane.on_command(Command::Delete, &mut sh, &mut out);
    for _ in 0..2 {
        for c in "bob".chars() {
            press(&mut pane, &mut sh, KeyCode::Char(c));
        }
        let out = press(&mut pane, &mut sh, KeyCode::Enter);
        if let Some((id, request)) = out.effects.iter().find_map(|e| match e {
            Effect::Fetch { id, request } => Some((*id, request.clone())),
            _ => None,
        }) {
            let err = Err(ApiError::Ledger {
                endpoint: "ledger DELETE /v2/users/{user-id}",
                status: 404,
                error: Box::new(JsCantonError {
                    code: "USER_NOT_FOUND\u{1b}[2J".into(),
                    cause: "gone\u{1b}]52;c;aGk=\u{7}".into(),
                    correlation_id: Some("c\u{1b}[0m".into()),
                    resources: vec![("USER\u{8}".into(), "bob\u{1b}".into())],
                    ..JsCantonError::default()
                }),
            });
            pane.on_fetched(&fetched(id, &request, &err), &mut sh, &mut Out::default());
        }
    }
    let buf = render(&pane, &sh, 120, 30);
    assert!(
        buffer_text(&buf).contains("USER_NOT_FOUND"),
        "{}",
        buffer_text(&buf)
    );
    check(&buf);
}

#[test]
fn tiny_areas_never_panic() {
    let (mut pane, mut sh) = pure();
    let mut out = Out::default();
    for section in Section::ALL {
        pane.set_section(section);
        for (w, h) in [(0, 0), (1, 1), (5, 2), (10, 3), (20, 4), (80, 0), (30, 8)] {
            render(&pane, &sh, w, h);
        }
        // With a form or dialog open.
        for cmd in [Command::Edit, Command::Delete, Command::Execute] {
            pane.on_command(cmd, &mut sh, &mut out);
            for (w, h) in [(1, 1), (5, 2), (10, 3), (20, 4), (30, 8)] {
                render(&pane, &sh, w, h);
            }
            press(&mut pane, &mut sh, KeyCode::Esc);
        }
    }
    sh.ctx.has_token = false;
    for (w, h) in [(1, 1), (3, 3), (200, 2)] {
        render(&pane, &sh, w, h);
    }
}

#[test]
fn a_node_without_update_trees_draws_the_same_trees_from_v2_updates() {
    // The same query on a node with /v2/updates/trees and on one that answers 404 for it (as
    // Canton 3.5+ does): the api layer falls back to POST /v2/updates (ledger effects).
    let run = |removed: bool| {
        let mut h = at(
            Options {
                faults: cantonscope::demo::DemoFaults {
                    update_trees_removed: removed,
                    ..Default::default()
                },
                ..Options::default()
            },
            Section::Trees,
        );
        let party = local_parties()[0].clone();
        // The node really lacks the trees endpoint (or really has it).
        let req = cantonscope::api::ledger::GetUpdatesRequest::for_parties(0, Some(60), &[]);
        let direct = h.rt.block_on(
            h.clients
                .main
                .send(&cantonscope::api::ledger::update_trees(&req, None, None)),
        );
        assert_eq!(
            matches!(direct, Err(ApiError::EndpointNotServed { .. })),
            removed,
            "{direct:?}"
        );
        trees_query(&mut h, "0", "60", &party, "", "no");
        let list = snap(&mut h, 120, 40);
        let idx = h
            .app
            .ledger
            .trees
            .items()
            .iter()
            .position(|i| match &i.update {
                cantonscope::api::ledger::Update::TransactionTree(t) => {
                    t.events_by_id.values().any(|e| {
                        matches!(e, TreeEvent::ExercisedTreeEvent(x) if x.last_descendant_node_id > x.node_id)
                    })
                }
                _ => false,
            })
            .expect("a tree with nesting");
        for _ in 0..idx {
            h.cmd(Command::Down);
        }
        h.key(KeyCode::Enter);
        h.key(KeyCode::Char('E'));
        let drill = snap(&mut h, 120, 40);
        h.cmd(Command::Down);
        let details = snap(&mut h, 120, 40);
        (list, drill, details, h.app.ledger.trees.visible_node_ids())
    };
    let trees = run(false);
    let fallback = run(true);
    assert!(
        trees.0.contains("TransactionTree") || trees.0.contains("tree"),
        "{}",
        trees.0
    );
    assert_eq!(fallback.0, trees.0, "the list");
    assert_eq!(fallback.1, trees.1, "the tree");
    assert_eq!(fallback.2, trees.2, "the details");
    assert_eq!(fallback.3, trees.3);
    assert!(trees.3.len() >= 2);
}

#[test]
fn trees_template_filters_send_package_names_and_refuse_package_ids() {
    use cantonscope::api::ledger::Update;
    let mut h = at(Options::default(), Section::Trees);
    // Every template first: the package-name references of the answer become completions.
    trees_query(&mut h, "0", "40", "", "", "no");
    let all = h.app.ledger.trees.items().len();
    // A package id in the template field: the form says what to write instead, sends nothing.
    let package_id = h
        .app
        .ledger
        .package
        .known_ids(&h.app.sh)
        .first()
        .cloned()
        .expect("package ids seen");
    h.cmd(Command::Edit);
    for _ in 0..5 {
        h.key(KeyCode::Down);
    }
    h.type_text(&format!("{package_id}:Splice.Round:OpenMiningRound"));
    h.key(KeyCode::Enter);
    assert!(h.app.ledger.wants_raw_keys(), "the form stays open");
    assert_eq!(count(&h, "ledger update trees"), 1);
    let screen = h.screen(120, 40);
    assert!(screen.contains("is a package id"), "{screen}");
    assert!(screen.contains("#package-name:"), "{screen}");
    // A package name (completed with Tab from the references seen): sent, and the list is
    // narrowed to the updates that touch the template.
    h.key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL);
    h.type_text("#splice-amulet:Splice.Amulet:ValidatorRi");
    h.key(KeyCode::Tab);
    h.key(KeyCode::Enter);
    assert!(!h.app.ledger.wants_raw_keys(), "{}", h.screen(120, 40));
    assert_eq!(count(&h, "ledger update trees"), 2);
    let items = h.app.ledger.trees.items();
    let trees: Vec<_> = items
        .iter()
        .filter_map(|i| match &i.update {
            Update::TransactionTree(t) => Some(t),
            _ => None,
        })
        .collect();
    assert!(
        !trees.is_empty() && items.len() < all,
        "{} of {all}",
        items.len()
    );
    for t in &trees {
        assert!(
            t.events_by_id.values().any(|e| match e {
                TreeEvent::CreatedTreeEvent(c) =>
                    c.template_id.ends_with(":Splice.Amulet:ValidatorRight"),
                TreeEvent::ExercisedTreeEvent(x) =>
                    x.template_id.ends_with(":Splice.Amulet:ValidatorRight"),
                TreeEvent::Unknown { .. } => false,
            }),
            "{}",
            t.update_id
        );
    }
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("· #splice-amulet:Splice.Amulet:ValidatorRight"),
        "{screen}"
    );
    assert_snapshot!("trees_template_filter_80x24", snap(&mut h, 80, 24));
}

// ---------------------------------------------------------------------------------------------
// The tree drill-down keys, as in the Update pane (issue 10)

/// Opens the first transaction tree with nesting (at 120x40).
fn open_nested_tree(h: &mut Harness) {
    trees_query(h, "0", "40", "", "", "no");
    let idx = h
        .app
        .ledger
        .trees
        .items()
        .iter()
        .position(|i| match &i.update {
            cantonscope::api::ledger::Update::TransactionTree(t) => t.events_by_id.values().any(|e| {
                matches!(e, TreeEvent::ExercisedTreeEvent(x) if x.last_descendant_node_id > x.node_id)
            }),
            _ => false,
        })
        .expect("a tree with nesting");
    for _ in 0..idx {
        h.cmd(Command::Down);
    }
    h.key(KeyCode::Enter);
    h.screen(120, 40);
}

fn drill(h: &Harness) -> Option<cantonscope::panes::ledger::DrillFocus> {
    h.app.ledger.trees.drill_focus()
}

#[test]
fn trees_drill_keys_match_the_update_pane() {
    use cantonscope::panes::ledger::DrillFocus;
    let mut h = at(Options::default(), Section::Trees);
    open_nested_tree(&mut h);
    assert_eq!(drill(&h), Some(DrillFocus::Tree));
    // l on the open root moves into the details (↓ walks the children), h comes back.
    h.key(KeyCode::Char('l'));
    assert_eq!(drill(&h), Some(DrillFocus::Details));
    h.key(KeyCode::Char('h'));
    assert_eq!(drill(&h), Some(DrillFocus::Tree));
    // Tab switches between tree and details (and does not leave the pane).
    h.key(KeyCode::Tab);
    assert_eq!(drill(&h), Some(DrillFocus::Details));
    assert_eq!(h.app.focus, cantonscope::panes::PaneId::Ledger);
    h.key(KeyCode::Tab);
    assert_eq!(drill(&h), Some(DrillFocus::Tree));
    // Enter on a leaf opens its details, as in the Update pane.
    let ids = h.app.ledger.trees.visible_node_ids();
    h.key(KeyCode::Char('G'));
    h.key(KeyCode::Enter);
    assert_eq!(drill(&h), Some(DrillFocus::Details));
    assert_eq!(h.app.ledger.trees.visible_node_ids(), ids, "nothing folded");
    h.key(KeyCode::Esc);
    // Backspace on a child goes to its parent; on the root it is back (to the list).
    h.key(KeyCode::Backspace);
    assert_eq!(drill(&h), Some(DrillFocus::Tree));
    let s = h.screen(120, 40);
    let selected_row = s.lines().nth(7).expect("first tree row");
    assert!(selected_row.contains("#0 exercised"), "{s}");
    h.key(KeyCode::Backspace);
    assert_eq!(drill(&h), None, "back to the list");
    // The details keep the template's name and both ends of its package id.
    h.key(KeyCode::Enter);
    let shortened =
        regex::Regex::new(r"template\s+[0-9a-f]{4,}…[0-9a-f]{4,}:Splice\.[A-Za-z.]+:[A-Za-z_]+\s")
            .expect("regex");
    let whole = regex::Regex::new(r"template\s+[0-9a-f]{64}:Splice\.[A-Za-z.]+:[A-Za-z_]+\s")
        .expect("regex");
    for (w, ht) in [(80, 24), (120, 40), (200, 60)] {
        let s = h.screen(w, ht);
        assert!(
            shortened.is_match(&s) || whole.is_match(&s),
            "{w}x{ht}: template with its name: {s}"
        );
        assert!(!s.contains(":Sp…"), "{s}");
    }
}

#[test]
fn trees_drill_split_sideways_scroll_and_full_value() {
    use cantonscope::panes::ledger::DrillFocus;
    let mut h = at(Options::default(), Section::Trees);
    open_nested_tree(&mut h);
    // > twice: a wider tree; kept for the next tree opened.
    h.key(KeyCode::Char('>'));
    h.key(KeyCode::Char('>'));
    assert_eq!(h.app.ledger.trees.split_percent(), Some(65));
    let sep = |h: &mut Harness| {
        let s = h.screen(120, 40);
        let row = s.lines().nth(7).expect("row").to_string();
        row.chars().position(|c| c == '│').expect("separator")
    };
    assert_eq!(sep(&mut h), 78);
    h.key(KeyCode::Esc);
    h.key(KeyCode::Enter);
    assert_eq!(sep(&mut h), 78, "kept");
    h.key(KeyCode::Char('<'));
    assert_eq!(sep(&mut h), 72);
    // L scrolls the details sideways (fields in full), H back.
    h.key(KeyCode::Tab);
    h.key(KeyCode::Char('L'));
    assert_eq!(h.app.ledger.trees.details_hscroll(), 8);
    h.key_mod(KeyCode::Right, KeyModifiers::SHIFT);
    assert_eq!(h.app.ledger.trees.details_hscroll(), 16);
    for (w, ht) in [(80, 24), (120, 40), (200, 60)] {
        assert_snapshot!(
            format!("trees_drill_scrolled_{w}x{ht}"),
            snap(&mut h, w, ht)
        );
    }
    h.screen(120, 40);
    h.key(KeyCode::Char('H'));
    h.key_mod(KeyCode::Left, KeyModifiers::SHIFT);
    assert_eq!(h.app.ledger.trees.details_hscroll(), 0);
    // v in the details: the JSON value under the cursor, whole; y copies it; Esc closes.
    assert_eq!(drill(&h), Some(DrillFocus::Details));
    h.key(KeyCode::Char('v'));
    let shown = h.app.ledger.trees.shown_value().expect("open").to_string();
    assert!(shown.starts_with('{'), "{shown}");
    h.key(KeyCode::Char('y'));
    assert_eq!(h.copied.last(), Some(&shown));
    h.key(KeyCode::Esc);
    assert_eq!(h.app.ledger.trees.shown_value(), None);
    assert_eq!(
        drill(&h),
        Some(DrillFocus::Details),
        "Esc closed only the box"
    );
    // v in the tree: every field of the node, ids whole.
    h.key(KeyCode::Tab);
    h.key(KeyCode::Char('g'));
    h.key(KeyCode::Char('v'));
    let all = h.app.ledger.trees.shown_value().expect("open").to_string();
    assert!(
        regex::Regex::new(r"template\s+[0-9a-f]{64}:Splice\.")
            .expect("regex")
            .is_match(&all),
        "{all}"
    );
    for (w, ht) in [(80, 24), (120, 40), (200, 60)] {
        assert_snapshot!(
            format!("trees_drill_full_value_{w}x{ht}"),
            snap(&mut h, w, ht)
        );
    }
    h.key(KeyCode::Esc);
    assert_eq!(drill(&h), Some(DrillFocus::Tree));
}

/// Issue 21 (k9s habit): `o` then a column's letter sorts the trees list (and the parties
/// table) by that column, again the other way; the letters are named after `o`.
#[test]
fn o_then_a_letter_sorts_the_ledger_tables_by_that_column() {
    let mut h = at(Options::default(), Section::Trees);
    trees_query(&mut h, "0", "40", "", "", "no");
    h.key(KeyCode::Char('o'));
    let said = crate::common::toast(&h);
    assert!(
        said.contains("[o]ffset") || said.contains("o[f]fset"),
        "{said}"
    );
    assert!(said.contains("[e]vents"), "{said}");
    // Offset: oldest first; again: newest first (the first row copies the newest tree).
    h.key(KeyCode::Char('f'));
    let screen = h.screen(120, 40);
    assert!(screen.contains("offset ▲"), "{screen}");
    h.key(KeyCode::Char('o'));
    h.key(KeyCode::Char('f'));
    assert!(h.screen(120, 40).contains("offset ▼"));
    h.cmd(Command::Top);
    h.cmd(Command::Copy);
    let newest = h
        .app
        .ledger
        .trees
        .items()
        .iter()
        .filter_map(|i| match &i.update {
            cantonscope::api::ledger::Update::TransactionTree(t) => {
                Some((t.offset, t.update_id.clone()))
            }
            _ => None,
        })
        .max_by_key(|(o, _)| *o)
        .expect("a tree");
    assert_eq!(h.copied.last(), Some(&newest.1));

    let mut h = at(Options::default(), Section::Parties);
    let local = local_parties();
    h.cmd(Command::Edit);
    h.type_text(&local[0]);
    h.key(KeyCode::Down);
    h.type_text(&local[1..].join(", "));
    h.key(KeyCode::Enter);
    assert!(h.app.ledger.parties.party_ids().len() >= 2);
    h.key(KeyCode::Char('o'));
    let said = crate::common::toast(&h);
    assert!(said.contains("[p]arty"), "{said}");
    h.key(KeyCode::Char('p'));
    assert!(h.screen(120, 40).contains("party ▲"));
    h.key(KeyCode::Char('o'));
    h.key(KeyCode::Char('p'));
    let screen = h.screen(120, 40);
    assert!(screen.contains("party ▼"), "{screen}");
    // The first row shown is the greatest party id.
    h.cmd(Command::Top);
    h.cmd(Command::Copy);
    let max = local.iter().max().expect("a party");
    assert_eq!(h.copied.last(), Some(max));
}

// ---------------------------------------------------------------------------------------------
// Another ledger under the same URL

/// The demo restarted on the same port with a shorter ledger (another seed): the ledger end
/// polled for the Status card goes back. The explorer says so, naming both offsets (status
/// line and error log), and the Ledger pane reads again what it read of the old ledger: the
/// parties asked are asked again, the trees of the last query come from the new ledger (the
/// range cut at the new end), never the old ones; the Status card's offset rate never turns
/// negative.
#[test]
fn a_ledger_end_that_goes_back_is_said_and_the_ledger_pane_reloads() {
    use cantonscope::api::ledger::Update;
    use cantonscope::feed::node_poll::NodeKind;
    use cantonscope::model::format::group_thousands;
    let end = |seed| cantonscope::demo::generate(seed).ledger_end();
    let (long, short) = if end(42) > end(7) { (42, 7) } else { (7, 42) };
    let (from, to) = (end(long), end(short));
    assert!(to < from && to > 30, "{from} {to}");
    let mut h = at(
        Options {
            seed: long,
            ..Options::default()
        },
        Section::Trees,
    );
    h.tick(3.0);
    assert_eq!(h.app.sh.ledger_end, Some(Some(from)));
    let tree_ids = |h: &Harness| -> Vec<(i64, String)> {
        h.app
            .ledger
            .trees
            .items()
            .iter()
            .filter_map(|i| match &i.update {
                Update::TransactionTree(t) => Some((t.offset, t.update_id.clone())),
                _ => None,
            })
            .collect()
    };
    // Trees from below the new end to the old end, and a party lookup.
    trees_query(
        &mut h,
        &(to - 30).to_string(),
        &from.to_string(),
        "",
        "",
        "no",
    );
    let old_trees = tree_ids(&h);
    assert!(!old_trees.is_empty());
    h.app.ledger.set_section(Section::Parties);
    let party = cantonscope::demo::generate(long).local_parties()[0].to_owned();
    h.cmd(Command::Edit);
    h.type_text(&party);
    h.key(KeyCode::Enter);
    assert_eq!(count(&h, "ledger parties"), 1);
    h.app.ledger.set_section(Section::Trees);

    let addr = h.stop_demo();
    let demo =
        h.rt.block_on(cantonscope::demo::start(cantonscope::demo::DemoConfig {
            listen: addr,
            seed: short,
            ..cantonscope::demo::DemoConfig::default()
        }))
        .expect("demo restarts");
    h.demo = Some(demo);
    let said = format!(
        "the ledger end went back from {} to {}",
        group_thousands(from),
        group_thousands(to)
    );
    let logged = |h: &Harness| h.app.errors.entries().any(|e| e.message.contains(&said));
    let mut toasted = false;
    for _ in 0..8 {
        h.tick(2.5);
        toasted |= crate::common::toast(&h).contains(&said);
        if logged(&h) {
            break;
        }
    }
    assert!(logged(&h), "in the error log: {}", crate::common::toast(&h));
    assert!(toasted, "in the status line");
    let url = h.app.sh.ctx.ledger_url.clone().expect("a ledger URL");
    assert!(
        h.app
            .errors
            .entries()
            .any(|e| e.message.contains(&said) && e.message.contains(&url)),
        "names the ledger"
    );
    assert_eq!(h.app.sh.ledger_end, Some(Some(to)));
    // Reloaded: the parties asked again, the trees from the new ledger only.
    assert_eq!(count(&h, "ledger parties"), 2);
    let new_ledger = cantonscope::demo::generate(short);
    let trees = tree_ids(&h);
    assert!(!trees.is_empty(), "the trees were asked again");
    for (offset, id) in &trees {
        assert!(*offset <= to, "{offset} is past the new end {to}");
        assert!(
            new_ledger.index_of(id).is_some(),
            "{id} is of the new ledger"
        );
        assert!(
            !old_trees.iter().any(|(_, o)| o == id),
            "{id} is of the old ledger"
        );
    }
    let screen = h.screen(120, 40);
    assert!(
        screen.contains(&format!("ledger end {}", group_thousands(to))),
        "{screen}"
    );
    assert!(screen.contains(&format!("({}, {to}]", to - 30)), "{screen}");
    // The Status card's rate starts over on the new ledger: never negative.
    for _ in 0..3 {
        let rate = h
            .app
            .sh
            .health
            .nodes
            .node(NodeKind::Ledger)
            .expect("the ledger node")
            .rate;
        assert!(rate.is_none_or(|r| r >= 0.0), "{rate:?}");
        h.tick(2.5);
    }
    // The Status pane (4): its ledger card.
    h.cmd(Command::Pane4);
    let screen = h.screen(160, 50);
    assert!(
        screen.contains("offsets/"),
        "the ledger card's rate: {screen}"
    );
    let negative = regex::Regex::new(r"rate -\d").expect("regex");
    assert!(!negative.is_match(&screen), "{screen}");
    assert!(
        screen.contains(&format!("ledger end {}", group_thousands(to))),
        "{screen}"
    );
}
