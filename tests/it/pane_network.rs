//! The Network pane against the demo network: BFT sequencers on first show, bootstrapping
//! transactions (query, sizes, save to a file, copy, sort and `/` filter), party hosting,
//! previous reward weight, the `:hash` lookup across several scans, error shapes, hostile server
//! text and tiny sizes.

use base64::Engine;
use cantonscope::api::ApiError;
use cantonscope::api::scan::BftSequencers;
use cantonscope::config::keymap::KeyContext;
use cantonscope::model::summary::format_time_micros;
use cantonscope::msg::Command;
use cantonscope::msg::{Effect, Response};
use cantonscope::panes::network::{NetSection, NetworkPane};
use cantonscope::panes::{AppContext, Level, Out, Pane, PaneId, RenderCtx, Shared};
use cantonscope::runtime::fetch::execute;
use cantonscope::ui::theme::Theme;
use crossterm::event::KeyCode;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::common::pane::fetched;
use crate::common::requests as req;
use crate::common::{Harness, Options, assert_snapshot, clear_input, count, stable, toast};

/// The Network pane on its BFT sequencers section (the first section is the Scans matrix).
fn network() -> Harness {
    let mut h = Harness::start();
    h.cmd(Command::Pane7);
    section(&mut h, NetSection::Sequencers);
    h
}

fn toast_level(h: &Harness) -> Option<Level> {
    h.app.toast.as_ref().map(|t| t.level)
}

fn section(h: &mut Harness, s: NetSection) {
    while h.app.network.section() != s {
        h.cmd(Command::NextSection);
    }
}

// ---------------------------------------------------------------------------------------------
// BFT sequencers
// ---------------------------------------------------------------------------------------------

#[test]
fn sequencers_load_on_first_show_and_again_on_refresh() {
    let mut h = Harness::start();
    assert_eq!(
        count(&h, "bft sequencers"),
        0,
        "nothing before the pane is shown"
    );
    h.cmd(Command::Pane7);
    assert_eq!(h.app.focus, PaneId::Network);
    assert_eq!(
        h.app.network.section(),
        NetSection::Scans,
        "the matrix first"
    );
    section(&mut h, NetSection::Sequencers);
    assert_eq!(count(&h, "bft sequencers"), 1);
    let seqs = h
        .app
        .network
        .sequencers()
        .expect("sequencers loaded")
        .to_vec();
    assert_eq!(seqs.len(), 2);
    let screen = h.screen(120, 40);
    assert!(screen.contains(&seqs[1].p2p_url), "{screen}");
    assert!(screen.contains("2 BFT sequencers of this SV"), "{screen}");
    assert!(screen.contains("7 Network 2 "), "badge: {screen}");
    // Showing the pane again does not reload; r does.
    h.cmd(Command::Pane1);
    h.cmd(Command::Pane7);
    assert_eq!(count(&h, "bft sequencers"), 1);
    h.cmd(Command::Refresh);
    assert_eq!(count(&h, "bft sequencers"), 2);
    // y copies the selected sequencer's p2p URL.
    h.cmd(Command::Down);
    h.cmd(Command::Copy);
    let url = h.app.network.sequencers().unwrap()[1].p2p_url.clone();
    assert_eq!(h.copied.last(), Some(&url));
}

#[test]
fn sections_switch_both_ways_and_the_tab_row_names_them() {
    let mut h = network();
    // The full section names at 120 columns (80 shows their first words).
    let screen = h.screen(120, 40);
    for name in [
        "Scans",
        "BFT sequencers",
        "Bootstrapping",
        "Party hosting",
        "Reward weight",
        "Findings",
    ] {
        assert!(screen.contains(name), "{name} in\n{screen}");
    }
    h.cmd(Command::NextSection);
    assert_eq!(h.app.network.section(), NetSection::Bootstrapping);
    h.cmd(Command::PrevSection);
    h.cmd(Command::PrevSection);
    assert_eq!(h.app.network.section(), NetSection::Scans);
    // Before the matrix, around: the findings log, the last section.
    h.cmd(Command::PrevSection);
    assert_eq!(h.app.network.section(), NetSection::Findings);
    h.key(KeyCode::Char(']'));
    assert_eq!(h.app.network.section(), NetSection::Scans);
}

#[test]
fn snapshot_sequencers_80x24() {
    let mut h = network();
    assert_snapshot!("snapshot_sequencers_80x24", stable(&h.screen(80, 24)));
}

#[test]
fn snapshot_sequencers_120x40() {
    let mut h = network();
    assert_snapshot!("snapshot_sequencers_120x40", stable(&h.screen(120, 40)));
}

// ---------------------------------------------------------------------------------------------
// Bootstrapping transactions
// ---------------------------------------------------------------------------------------------

fn bootstrapping_loaded() -> Harness {
    let mut h = network();
    section(&mut h, NetSection::Bootstrapping);
    h.cmd(Command::Edit);
    assert!(h.app.network.is_editing());
    clear_input(&mut h);
    h.type_text("global-domain");
    h.key(KeyCode::Enter);
    h
}

#[test]
fn bootstrapping_suggests_the_prefix_from_history_and_lists_decoded_sizes() {
    let mut h = network();
    section(&mut h, NetSection::Bootstrapping);
    let suggested = NetworkPane::suggested_prefix(&h.app.sh).expect("history loaded");
    assert!(
        suggested == "global-domain" || suggested == "app-synchronizer",
        "{suggested}"
    );
    let screen = h.screen(80, 24);
    assert!(
        screen.contains(&format!("suggested: {suggested}")),
        "{screen}"
    );
    h.cmd(Command::Edit);
    assert_eq!(h.app.key_context(), KeyContext::TextInput);
    // `]` types into the open form instead of switching sections.
    h.key(KeyCode::Char(']'));
    h.key(KeyCode::Backspace);
    let screen = h.screen(80, 24);
    assert!(screen.contains(&format!("Prefix {suggested}")), "{screen}");
    clear_input(&mut h);
    h.type_text("global-domain");
    h.key(KeyCode::Enter);
    assert!(!h.app.network.is_editing());
    let txs = h.app.network.bootstrapping().expect("loaded");
    let names: Vec<&str> = txs.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "domain_parameters",
            "sequencer_domain_state",
            "mediator_domain_state"
        ]
    );
    // The demo's own blobs for the global synchronizer, decoded independently.
    let ledger = cantonscope::demo::generate(42);
    let (p, sq, m) = &ledger.network().bootstrapping[0];
    let b64 = base64::engine::general_purpose::STANDARD;
    let expected: Vec<usize> = [p, sq, m]
        .iter()
        .map(|s| b64.decode(s.as_str()).unwrap().len())
        .collect();
    let sizes: Vec<usize> = txs
        .iter()
        .map(|t| t.bytes.as_ref().unwrap().len())
        .collect();
    assert_eq!(sizes, expected);
    let screen = h.screen(120, 40);
    for n in &expected {
        assert!(screen.contains(&format!(" {n} B ")), "{n} B in\n{screen}");
    }
    let total: usize = expected.iter().sum();
    assert!(
        screen.contains(&format!("{},{:03} B decoded", total / 1000, total % 1000)),
        "{screen}"
    );
}

#[test]
fn bootstrapping_copy_gives_base64_and_save_writes_the_decoded_bytes() {
    let mut h = bootstrapping_loaded();
    h.cmd(Command::Down);
    h.cmd(Command::Copy);
    let tx = h.app.network.bootstrapping().unwrap()[1].clone();
    assert_eq!(h.copied.last(), Some(&tx.base64));
    assert!(toast(&h).contains("sequencer_domain_state (base64)"));

    h.cmd(Command::Save);
    assert!(h.app.network.is_editing());
    let screen = h.screen(80, 24);
    assert!(
        screen.contains("./bootstrap-global-domain-2.bin"),
        "default path:\n{screen}"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("seq.bin");
    clear_input(&mut h);
    // An empty path is refused with a message, the input stays open.
    h.key(KeyCode::Enter);
    assert!(h.app.network.is_editing());
    h.type_text(path.to_str().unwrap());
    h.key(KeyCode::Enter);
    assert!(!h.app.network.is_editing());
    let written = std::fs::read(&path).expect("file written");
    let ledger = cantonscope::demo::generate(42);
    let demo_blob = &ledger.network().bootstrapping[0].1;
    assert_eq!(
        &tx.base64, demo_blob,
        "the sequencer state of the global synchronizer"
    );
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(demo_blob)
        .unwrap();
    assert_eq!(written, decoded);
    assert_eq!(
        toast(&h),
        format!("saved {} bytes to {}", decoded.len(), path.display())
    );

    // Esc cancels the save without writing.
    h.cmd(Command::Save);
    h.key(KeyCode::Esc);
    assert!(!h.app.network.is_editing());

    // A file that exists is not replaced silently: refused, asked again, ↵ again replaces.
    let other = dir.path().join("precious.bin");
    std::fs::write(&other, "precious").unwrap();
    h.cmd(Command::Save);
    clear_input(&mut h);
    h.type_text(other.to_str().unwrap());
    h.key(KeyCode::Enter);
    assert_eq!(std::fs::read(&other).unwrap(), b"precious");
    assert_eq!(
        toast(&h),
        format!("{} exists: not replaced", other.display())
    );
    assert!(h.app.network.is_editing(), "asked again");
    assert!(
        h.screen(120, 40)
            .contains("this file exists: ↵ again replaces it"),
        "{}",
        h.screen(120, 40)
    );
    h.key(KeyCode::Enter);
    assert!(!h.app.network.is_editing());
    assert_eq!(std::fs::read(&other).unwrap(), decoded);
}

#[test]
fn bootstrapping_table_filters_and_sorts_and_the_selection_follows() {
    let mut h = bootstrapping_loaded();
    let txs = h.app.network.bootstrapping().unwrap().to_vec();
    // `/` filters by transaction name; keys go to the input (`s` does not open the save
    // dialog, `r` does not refresh).
    let before = count(&h, "bootstrapping");
    h.key(KeyCode::Char('/'));
    h.type_text("mediators");
    assert_eq!(count(&h, "bootstrapping"), before);
    assert!(h.screen(120, 40).contains("0 of 3 match"));
    h.key(KeyCode::Backspace);
    h.key(KeyCode::Enter);
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("filter mediator · 1 of 3 match"),
        "{screen}"
    );
    h.cmd(Command::Copy);
    assert_eq!(h.copied.last(), Some(&txs[2].base64));
    // The save dialog names the selected transaction by its place in the answer.
    h.cmd(Command::Save);
    assert!(
        h.screen(80, 24).contains("./bootstrap-global-domain-3.bin"),
        "{}",
        h.screen(80, 24)
    );
    h.key(KeyCode::Esc);
    h.cmd(Command::Back);
    assert!(h.screen(120, 40).contains("domain_parameters"));
    // `o` sorts by the next column: name (ascending), then size (largest first).
    h.key(KeyCode::Char('o'));
    assert!(h.screen(120, 40).contains("Transaction ▲"));
    h.key(KeyCode::Char('o'));
    let largest = txs
        .iter()
        .max_by_key(|t| t.bytes.as_ref().map_or(0, Vec::len))
        .unwrap();
    h.key(KeyCode::Char('g'));
    h.cmd(Command::Copy);
    assert_eq!(h.copied.last(), Some(&largest.base64));
    assert!(h.screen(120, 40).contains("Size ▼"));
}

#[test]
fn bootstrapping_unknown_prefix_is_explained() {
    let mut h = network();
    section(&mut h, NetSection::Bootstrapping);
    h.cmd(Command::Edit);
    clear_input(&mut h);
    h.key(KeyCode::Enter);
    // Empty prefix: refused in the form, no request.
    assert!(h.app.network.is_editing());
    assert_eq!(count(&h, "bootstrapping"), 0);
    h.type_text("no-such-domain");
    h.key(KeyCode::Enter);
    let err = h.app.network.error_text().expect("failed").to_string();
    assert!(
        err.contains("no synchronizer id starts with \"no-such-domain\""),
        "{err}"
    );
    assert!(err.contains("No synchronizer found"), "{err}");
    let screen = h.screen(80, 24);
    assert!(
        screen.contains("no synchronizer id starts with"),
        "{screen}"
    );
    // r runs the last query again.
    h.cmd(Command::Refresh);
    assert_eq!(count(&h, "bootstrapping"), 2);
}

#[test]
fn snapshot_bootstrapping_80x24() {
    let mut h = bootstrapping_loaded();
    assert_snapshot!("snapshot_bootstrapping_80x24", stable(&h.screen(80, 24)));
}

#[test]
fn snapshot_bootstrapping_save_dialog_120x40() {
    let mut h = bootstrapping_loaded();
    h.cmd(Command::Save);
    assert_snapshot!(
        "snapshot_bootstrapping_save_dialog_120x40",
        stable(&h.screen(120, 40))
    );
}

// ---------------------------------------------------------------------------------------------
// Party hosting
// ---------------------------------------------------------------------------------------------

#[test]
fn party_hosting_shows_every_hosting_participant() {
    let mut h = network();
    let ledger = cantonscope::demo::generate(42);
    let dso = ledger.dso_party().to_string();
    let [global, _] = ledger.synchronizer_ids();
    let global = global.to_string();
    section(&mut h, NetSection::Participants);
    let screen = h.screen(80, 24);
    assert!(screen.contains("Press i to look up"), "{screen}");
    h.cmd(Command::Edit);
    // The synchronizer is prefilled from history; set it to the global one explicitly.
    h.key(KeyCode::Up);
    clear_input(&mut h);
    h.type_text(&global);
    h.key(KeyCode::Down);
    // Tab completes the party from the ones seen in the history.
    h.type_text(&dso[..5]);
    h.key(KeyCode::Tab);
    let screen = h.screen(120, 40);
    assert!(screen.contains(&dso), "completed party:\n{screen}");
    h.key(KeyCode::Enter);
    let expected = match h
        .rt
        .block_on(execute(&h.clients, &req::participant_ids(&global, &dso)))
    {
        Ok(r)
            if r.answer::<cantonscope::api::scan::ParticipantIds>()
                .is_some() =>
        {
            r.answer::<cantonscope::api::scan::ParticipantIds>()
                .map(|r| r.participant_ids.clone())
                .unwrap_or_default()
        }
        other => panic!("{other:?}"),
    };
    assert!(expected.len() > 1, "the DSO is multi-hosted");
    assert_eq!(h.app.network.participants(), Some(expected.as_slice()));
    let screen = h.screen(120, 40);
    assert!(
        screen.contains(&format!("Hosted by {} participants", expected.len())),
        "{screen}"
    );
    for p in &expected {
        assert!(screen.contains(p.as_str()), "{p} in\n{screen}");
    }
    h.cmd(Command::Bottom);
    h.cmd(Command::Copy);
    assert_eq!(h.copied.last(), expected.last());
}

#[test]
fn party_hosting_unknown_party_is_explained() {
    let mut h = network();
    section(&mut h, NetSection::Participants);
    h.cmd(Command::Edit);
    h.key(KeyCode::Down);
    h.key(KeyCode::Enter);
    assert!(h.app.network.is_editing(), "party is required");
    h.type_text("nobody::1220ab");
    h.key(KeyCode::Enter);
    let err = h.app.network.error_text().expect("failed");
    assert!(err.contains("knows no hosting of this party"), "{err}");
    assert!(err.contains("No party to participant mapping"), "{err}");
}

#[test]
fn snapshot_party_hosting_form_80x24() {
    let mut h = network();
    section(&mut h, NetSection::Participants);
    h.cmd(Command::Edit);
    h.type_text("DSO");
    assert_snapshot!(
        "snapshot_party_hosting_form_80x24",
        stable(&h.screen(80, 24))
    );
}

// ---------------------------------------------------------------------------------------------
// Reward weight
// ---------------------------------------------------------------------------------------------

#[test]
fn reward_weight_found_absent_and_bad_time() {
    let mut h = network();
    let ledger = cantonscope::demo::generate(42);
    let change = ledger
        .weight_changes()
        .last()
        .expect("weight changes")
        .clone();
    let sv = ledger.party_id(change.sv).to_string();
    section(&mut h, NetSection::RewardWeight);
    h.cmd(Command::Edit);
    h.type_text(&sv);
    h.key(KeyCode::Enter);
    let screen = h.screen(120, 40);
    assert!(screen.contains("Reward weight"), "{screen}");
    assert!(screen.contains(&change.weight), "{screen}");
    h.cmd(Command::Copy);
    assert_eq!(h.copied.last(), Some(&change.weight));

    // Bad time: refused in the form, no request.
    let before = count(&h, "reward weight");
    // The form opens on the first empty field: effective before.
    h.cmd(Command::Edit);
    h.type_text("soon");
    h.key(KeyCode::Enter);
    assert!(h.app.network.is_editing());
    assert_eq!(count(&h, "reward weight"), before);
    assert!(h.screen(120, 40).contains("not a time"));

    // Before any change: no weight, explained.
    clear_input(&mut h);
    h.type_text("2001-01-01T00:00:00Z");
    h.key(KeyCode::Enter);
    let screen = h.screen(120, 40);
    assert!(screen.contains("No reward weight"), "{screen}");
    assert!(
        screen.contains("no accepted UpdateSvRewardWeight proposal"),
        "{screen}"
    );
    assert!(screen.contains("2001-01-01T00:00:00.000000Z"), "{screen}");

    // A span back from the session's clock, as `:time` reads it.
    h.cmd(Command::Edit);
    h.key(KeyCode::Down);
    clear_input(&mut h);
    h.type_text("-2h");
    h.key(KeyCode::Enter);
    assert!(!h.app.network.is_editing());
    let two_hours_ago = format_time_micros(h.app.sh.now - 2 * 3_600_000_000);
    let screen = h.screen(120, 40);
    assert!(screen.contains(&two_hours_ago), "{two_hours_ago}: {screen}");
}

#[test]
fn snapshot_reward_weight_absent_80x24() {
    let mut h = network();
    section(&mut h, NetSection::RewardWeight);
    h.cmd(Command::Edit);
    h.type_text("nobody::1220ab");
    h.key(KeyCode::Enter);
    assert_snapshot!(
        "snapshot_reward_weight_absent_80x24",
        stable(&h.screen(80, 24))
    );
}

// ---------------------------------------------------------------------------------------------
// :hash
// ---------------------------------------------------------------------------------------------

/// Scan 1 indexes hashes from 50% of the initial history, scan 2 from 20%, scan 3 from 70%.
fn hash_in(lo: usize, hi: usize) -> (String, String) {
    let ledger = cantonscope::demo::generate(42);
    let n = ledger.len();
    let (hash, idx) = *ledger
        .external_hashes()
        .iter()
        .find(|(_, i)| *i > n * lo / 100 && *i < n * hi / 100)
        .expect("a hash in range");
    (hash.to_string(), ledger.updates()[idx].update_id.clone())
}

fn three_scans() -> Harness {
    Harness::start_with(Options {
        scans: 3,
        ..Options::default()
    })
}

#[test]
fn hash_known_only_to_the_second_scan_is_found_there_and_opened() {
    let mut h = three_scans();
    let (hash, update_id) = hash_in(25, 45);
    h.palette(&format!("hash {hash}"));
    let tried: Vec<&String> = h
        .requests
        .iter()
        .filter(|r| r.contains("by-hash"))
        .collect();
    assert_eq!(
        tried,
        ["update-by-hash on scan 1", "update-by-hash on scan 2"],
        "scan 1 misses, scan 2 has it (numbered from 1, as the toast says)"
    );
    assert_eq!(h.app.focus, PaneId::Update);
    assert_eq!(h.app.sh.current_update.as_deref(), Some(update_id.as_str()));
    let msg = toast(&h);
    assert!(msg.contains("found on scan 2"), "{msg}");
    assert!(msg.contains("not indexed by scan 1"), "{msg}");
    assert!(!h.app.network.is_looking_up_hash());
}

#[test]
fn hash_known_to_the_first_scan_needs_one_request() {
    let mut h = three_scans();
    let (hash, update_id) = hash_in(75, 95);
    h.palette(&format!("hash {hash}"));
    assert_eq!(count(&h, "by-hash"), 1);
    assert_eq!(h.app.sh.current_update.as_deref(), Some(update_id.as_str()));
    assert!(toast(&h).contains("found on scan 1"));
}

#[test]
fn hash_no_scan_indexed_names_every_scan_tried() {
    let mut h = three_scans();
    let (hash, _) = hash_in(0, 15);
    h.palette(&format!("hash {hash}"));
    assert_eq!(count(&h, "by-hash"), 3);
    assert_ne!(h.app.focus, PaneId::Update);
    assert_eq!(toast_level(&h), Some(Level::Error));
    let msg = toast(&h);
    for s in ["scan 1 (", "scan 2 (", "scan 3 ("] {
        assert!(msg.contains(s), "{s} in {msg}");
    }
    assert!(msg.contains("not indexed"), "{msg}");
    assert!(
        msg.contains("indexes hashes only from the point it started indexing them"),
        "{msg}"
    );
    assert_eq!(h.app.errors.len(), 1);
}

#[test]
fn hash_miss_with_one_scan_suggests_configuring_more() {
    let mut h = Harness::start();
    let (hash, _) = hash_in(0, 15);
    h.palette(&format!("hash {hash}"));
    assert_eq!(count(&h, "by-hash"), 1);
    let msg = toast(&h);
    assert!(msg.contains("configure more scan URLs"), "{msg}");
}

#[test]
fn hash_that_is_not_hex_is_refused_by_the_scan_without_trying_others() {
    let mut h = three_scans();
    h.palette("hash not-a-hash");
    assert_eq!(count(&h, "by-hash"), 1);
    let msg = toast(&h);
    assert!(msg.contains("HTTP 400"), "{msg}");
    assert!(msg.contains("Invalid hash"), "{msg}");
    h.palette("hash");
    assert!(toast(&h).contains("hash"), "usage error");
}

// ---------------------------------------------------------------------------------------------
// Connection errors, hostile text, tiny sizes
// ---------------------------------------------------------------------------------------------

#[test]
fn unreachable_scan_is_explained() {
    let mut h = Harness::start_with(Options {
        tweak: Box::new(|s| {
            s.scan_url = Some("http://127.0.0.1:9".parse().expect("url"));
            s.extra_scan_urls.clear();
        }),
        ..Options::default()
    });
    h.cmd(Command::Pane7);
    section(&mut h, NetSection::Sequencers);
    let err = h.app.network.error_text().expect("failed").to_string();
    assert!(err.contains("connection failed"), "{err}");
    assert!(err.contains("press r to retry"), "{err}");
    let screen = h.screen(80, 24);
    assert!(screen.contains("connection failed"), "{screen}");
    assert!(
        screen.contains("7 Network  "),
        "no count on failure: {screen}"
    );
}

fn pure() -> (NetworkPane, Shared) {
    let sh = Shared::new(
        AppContext {
            scan_urls: vec!["http://scan.example".into()],
            ..AppContext::default()
        },
        1_700_000_000_000_000,
    );
    (NetworkPane::new(&sh), sh)
}

fn assert_clean(buf: &Buffer) {
    for c in buf.content() {
        assert!(
            !c.symbol()
                .chars()
                .any(|ch| ch.is_control() || ch == '\u{202e}'),
            "raw control character {:?} in the buffer",
            c.symbol()
        );
    }
}

#[test]
fn server_strings_with_escapes_never_reach_the_buffer() {
    let (mut pane, mut sh) = pure();
    let mut out = Out::default();
    // The BFT sequencers section (after the Scans matrix) loads when shown.
    pane.on_command(Command::NextSection, &mut sh, &mut out);
    let Some(Effect::Fetch { id, request }) = out.effects.first().cloned() else {
        panic!("fetch on focus: {:?}", out.effects);
    };
    let seqs: BftSequencers = serde_json::from_value(serde_json::json!({
        "bftSequencers": [{
            "serialId": 0,
            "id": "SEQ::\u{1b}[2Jevil\u{202e}",
            "p2pUrl": "https://x\u{1b}]52;c;aGk=\u{7}.example"
        }]
    }))
    .unwrap();
    pane.on_fetched(
        &fetched(id, &request, &Ok(Response::from(seqs))),
        &mut sh,
        &mut out,
    );
    for (w, hh) in [(80, 24), (120, 40)] {
        let mut buf = Buffer::empty(Rect::new(0, 0, w, hh));
        pane.render(
            buf.area,
            &mut buf,
            RenderCtx::new(&sh, &Theme::default(), true),
        );
        assert_clean(&buf);
        let text: String = buf
            .content()
            .iter()
            .map(ratatui::buffer::Cell::symbol)
            .collect();
        assert!(text.contains('␛'), "escape shown as a picture");
    }
    // An error message with escapes too.
    pane.on_command(Command::Refresh, &mut sh, &mut out);
    let Some(Effect::Fetch { id, request }) = out.effects.last().cloned() else {
        panic!()
    };
    pane.on_fetched(
        &fetched(
            id,
            &request,
            &Err(ApiError::NotFound {
                endpoint: "scan GET /v0/sv-bft-sequencers",
                message: "gone\u{1b}[31m\nred".into(),
            }),
        ),
        &mut sh,
        &mut out,
    );
    let mut buf = Buffer::empty(Rect::new(0, 0, 80, 24));
    pane.render(
        buf.area,
        &mut buf,
        RenderCtx::new(&sh, &Theme::default(), true),
    );
    assert_clean(&buf);
}

#[test]
fn stale_replies_are_ignored() {
    let (mut pane, mut sh) = pure();
    let mut out = Out::default();
    // The BFT sequencers section (after the Scans matrix) loads when shown.
    pane.on_command(Command::NextSection, &mut sh, &mut out);
    pane.on_command(Command::Refresh, &mut sh, &mut out);
    let ids: Vec<_> = out
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Fetch { id, .. } => Some(*id),
            _ => None,
        })
        .collect();
    assert_eq!(ids.len(), 2);
    assert!(out.effects.contains(&Effect::Cancel(ids[0])));
    let seqs: BftSequencers =
        serde_json::from_value(serde_json::json!({"bftSequencers": []})).unwrap();
    pane.on_fetched(
        &fetched(
            ids[0],
            &req::bft_sequencers(),
            &Ok(Response::from(seqs.clone())),
        ),
        &mut sh,
        &mut out,
    );
    assert!(pane.sequencers().is_none(), "the old reply is dropped");
    pane.on_fetched(
        &fetched(ids[1], &req::bft_sequencers(), &Ok(Response::from(seqs))),
        &mut sh,
        &mut out,
    );
    assert_eq!(pane.sequencers().map(<[_]>::len), Some(0));
}

#[test]
fn tiny_sizes_never_panic() {
    let mut h = bootstrapping_loaded();
    h.cmd(Command::Save);
    for s in NetSection::ALL {
        let _ = s;
        for (w, hh) in [(1, 1), (0, 5), (5, 0), (3, 3), (20, 4), (40, 10), (2, 30)] {
            let mut buf = Buffer::empty(Rect::new(0, 0, w, hh));
            h.app.network.render(
                buf.area,
                &mut buf,
                RenderCtx::new(&h.app.sh, &Theme::default(), true),
            );
            h.app.network.set_area(Rect::new(0, 0, w, hh));
        }
        h.key(KeyCode::Esc);
        h.cmd(Command::NextSection);
        h.cmd(Command::Edit);
    }
}
