//! Headless flows through the whole explorer — the real `App`, its keymap and its effects run
//! over real HTTP against the in-process demo network: open an update, expand, follow a contract,
//! open the verdict, filter, pause and resume the live tail, a node going down and coming back,
//! idle drawing, tiny sizes, keys from the config, themes.

use cantonscope::msg::{Command, Tabs};
use cantonscope::panes::PaneId;
use crossterm::event::{KeyCode, KeyModifiers};

use crate::common::{Harness, Options, toast};

#[test]
fn starts_on_recent_history_and_opens_an_update_with_enter() {
    let mut h = Harness::start();
    let screen = h.screen(120, 40);
    assert!(screen.contains("● scan OK"), "{screen}");
    assert!(screen.contains("LIVE"), "{screen}");
    let rows = h.app.history.row_count(&h.app.sh);
    assert!(rows > 10, "recent activity is loaded at once: {rows}");
    assert!(h.app.history.is_following());

    // k moves the selection up: following pauses, the selection stays put.
    h.key(KeyCode::Char('k'));
    assert!(!h.app.history.is_following());
    let selected = h
        .app
        .history
        .selected_update_id(&h.app.sh)
        .expect("selection");
    assert!(h.screen(120, 40).contains("PAUSED"));

    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Update);
    assert_eq!(h.app.update_pane.update_id(), Some(selected.as_str()));
    assert!(!h.app.update_pane.is_loading());
    let screen = h.screen(120, 40);
    assert!(screen.contains("Event tree"), "{screen}");
    assert!(screen.contains(&selected[..8]), "{screen}");
    assert!(
        h.requests.iter().any(|r| r == &format!("event {selected}")),
        "the body comes from /v0/events: {:?}",
        h.requests
    );
}

/// Finds a loaded transaction with at least `min` events by walking the history with `k`.
fn open_big_transaction(h: &mut Harness, min: usize) {
    let text = h.screen(120, 40);
    assert!(!text.is_empty());
    for _ in 0..60 {
        let big = h
            .app
            .history
            .selected(&h.app.sh)
            .is_some_and(|s| s.event_count() as usize >= min);
        if big {
            h.key(KeyCode::Enter);
            return;
        }
        h.key(KeyCode::Char('k'));
    }
    panic!("no transaction with {min} events in the loaded history");
}

#[test]
fn expand_collapse_and_follow_a_contract() {
    let mut h = Harness::start();
    open_big_transaction(&mut h, 5);
    assert_eq!(h.app.focus, PaneId::Update);
    let expanded = h.app.update_pane.visible_event_ids().len();
    assert!(expanded >= 2, "the tree opens expanded");

    h.cmd(Command::CollapseAll);
    let collapsed = h.app.update_pane.visible_event_ids().len();
    assert!(collapsed < expanded, "{collapsed} < {expanded}");
    h.cmd(Command::ExpandAll);
    assert_eq!(h.app.update_pane.visible_event_ids().len(), expanded);

    // Down to a created event, then follow its contract.
    h.key(KeyCode::Char('j'));
    let event = h
        .app
        .update_pane
        .selected_event_id()
        .expect("an event")
        .to_string();
    h.key(KeyCode::Char('c'));
    assert!(
        h.app.update_pane.lifecycle_open(),
        "the lifecycle list opens"
    );
    let lifecycle = h.app.update_pane.lifecycle_update_ids();
    assert!(
        !lifecycle.is_empty(),
        "at least this update is on the contract"
    );
    let screen = h.screen(120, 40);
    assert!(screen.to_lowercase().contains("lifecycle"), "{screen}");
    assert!(!event.is_empty());
}

#[test]
fn verdict_of_the_open_update() {
    let mut h = Harness::start();
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Update);
    h.key(KeyCode::Char('3'));
    assert_eq!(h.app.focus, PaneId::Verdict);
    let screen = h.screen(120, 40);
    assert!(screen.contains("ACCEPTED"), "{screen}");
    assert!(screen.contains("mediator group"), "{screen}");
    assert!(screen.contains("views"), "{screen}");
    // The tab counts the rows of the views tree, as every tab counts its table's rows.
    let views = cantonscope::panes::Pane::tab_count(&h.app.verdict, &h.app.sh).expect("views");
    assert!(screen.contains(&format!("3 Verdict {views} ")), "{screen}");
}

#[test]
fn filter_narrows_the_history_and_esc_clears_it() {
    let mut h = Harness::start();
    let all = h.app.history.row_count(&h.app.sh);
    h.key(KeyCode::Char('/'));
    assert!(h.app.history.is_editing_filter());
    h.type_text("TransferCommand");
    h.key(KeyCode::Enter);
    let some = h.app.history.row_count(&h.app.sh);
    assert!(some > 0 && some < all, "{some} of {all}");
    // An update id narrows it to exactly that update.
    h.key(KeyCode::Home);
    let id = h.app.history.selected_update_id(&h.app.sh).expect("row");
    h.palette(&format!("filter {}", &id[..20]));
    assert_eq!(
        h.app.history.row_count(&h.app.sh),
        1,
        "{id} {}",
        h.screen(120, 40)
    );
    let screen = h.screen(120, 40);
    let body: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("transaction "))
        .collect();
    assert_eq!(body.len(), 1, "{screen}");
    // The Update column shows the id without its constant `1220` prefix.
    assert!(body[0].contains(&id[4..12]), "{screen}");

    // A bad regex is a clear message, not a crash.
    h.palette("filter re:([");
    assert!(
        h.app
            .toast
            .as_ref()
            .is_some_and(|t| t.text.contains("regex") || t.text.contains("filter"))
    );

    h.palette("filter");
    assert_eq!(h.app.history.row_count(&h.app.sh), all);
}

/// Terms separated by spaces must all match, whatever their fields and order.
#[test]
fn filter_terms_must_all_match() {
    let mut h = Harness::start();
    h.palette("filter TransferCommand");
    let some = h.app.history.row_count(&h.app.sh);
    assert!(some > 1, "{some}");
    h.key(KeyCode::Home);
    let id = h.app.history.selected_update_id(&h.app.sh).expect("row");
    let prefix = &id[..20];
    for (filter, want) in [
        (format!("TransferCommand id:{prefix}"), 1),
        (format!("id:{prefix}   TransferCommand"), 1),
        (
            format!("TransferCommand id:{prefix} no-such-thing-anywhere"),
            0,
        ),
        ("TransferCommand no-such-thing-anywhere".to_string(), 0),
    ] {
        h.palette(&format!("filter {filter}"));
        assert_eq!(h.app.history.row_count(&h.app.sh), want, "{filter}");
    }
}

#[test]
fn live_tail_pauses_counts_new_updates_and_resumes() {
    let mut h = Harness::start_with(Options {
        rate: 20.0,
        ..Options::default()
    });
    h.tick(1.0);
    let before = h.app.sh.history.len();
    h.key(KeyCode::Char('k'));
    assert!(!h.app.history.is_following());
    let selected = h.app.history.selected_update_id(&h.app.sh);

    std::thread::sleep(std::time::Duration::from_millis(600));
    h.tick(3.0);
    assert!(
        h.app.sh.history.len() > before,
        "polling loaded new updates"
    );
    assert_eq!(
        h.app.history.selected_update_id(&h.app.sh),
        selected,
        "the selection never jumps while paused"
    );
    assert!(h.app.history.new_count() > 0);
    let screen = h.screen(120, 40);
    assert!(screen.contains("paused · "), "{screen}");

    h.key(KeyCode::Char('f'));
    assert!(h.app.history.is_following());
    assert!(h.app.sh.feed.at_head);
    assert!(h.screen(120, 40).contains("LIVE"));
}

/// Every node answers but no update arrives for longer than the red lag threshold: the
/// dashboard says STALLED (the history does not move), not DOWN (which a user test read as a
/// node being down while the header said `scan OK`).
#[test]
fn a_history_that_stops_moving_is_stalled_not_down() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('4'));
    // The static demo adds no updates: ten minutes on, its newest is ten minutes old.
    for _ in 0..120 {
        h.tick(5.0);
    }
    let screen = h.screen(120, 40);
    let top = screen.lines().nth(2).unwrap_or_default().to_string();
    assert!(top.contains("STALLED"), "{screen}");
    assert!(top.contains("(red over 5m)"), "{top}");
    assert!(!top.contains("DOWN"), "{top}");
    let header = screen.lines().next().unwrap_or_default().to_string();
    assert!(header.contains("● scan OK"), "{header}");
}

/// `:time` to a time of day that has not come yet says so (it used to switch to browsing with
/// nothing to load and no message).
#[test]
fn a_time_in_the_future_is_refused() {
    let mut h = Harness::start();
    let before = h.app.sh.history.len();
    h.palette("time -1h");
    assert!(h.app.history.is_browsing());
    h.key(KeyCode::Char('f'));
    h.palette(&format!(
        "time {}",
        cantonscope::model::summary::format_time_micros(h.now + 3_600_000_000)
    ));
    assert!(
        crate::common::toast(&h).contains("is in the future"),
        "{}",
        crate::common::toast(&h)
    );
    assert!(
        !h.app.history.is_browsing(),
        "still following the live tail"
    );
    assert!(h.app.sh.history.len() >= before);
}

/// The update ids of every row History shows, top to bottom.
fn shown_ids(h: &mut Harness) -> Vec<String> {
    h.key(KeyCode::Char('1'));
    h.key(KeyCode::Home);
    let mut ids = Vec::new();
    loop {
        ids.extend(h.app.history.selected_update_id(&h.app.sh));
        let row = h.app.history.cursor_row();
        h.key(KeyCode::Down);
        if h.app.history.cursor_row() == row {
            return ids;
        }
    }
}

#[test]
fn f_anywhere_follows_the_live_tail_in_history() {
    let mut h = Harness::start();
    h.key(KeyCode::Up);
    assert!(!h.app.history.is_following());
    h.key(KeyCode::Char('4'));
    h.key(KeyCode::Char('f'));
    assert_eq!(h.app.focus, PaneId::History);
    assert!(h.app.history.is_following());
}

#[test]
fn a_filter_stays_right_when_the_history_is_reloaded() {
    let mut h = Harness::start();
    let filter = "filter choice:AmuletRules_Transfer party:olivia";
    h.palette(filter);
    assert!(!shown_ids(&mut h).is_empty(), "olivia transfers are loaded");
    // :time replaces the history (a new one, its parties and templates numbered anew).
    h.palette("time -2h");
    for _ in 0..20 {
        h.tick(1.0);
    }
    let after_reload = shown_ids(&mut h);
    assert!(
        !after_reload.is_empty(),
        "the reloaded history has olivia transfers"
    );
    // The same filter typed again (over the same history, or more of it: Home at the top loads
    // earlier updates): every row shown before is one it shows.
    h.palette(filter);
    let typed_again = shown_ids(&mut h);
    let wrong: Vec<&String> = after_reload
        .iter()
        .filter(|id| !typed_again.contains(id))
        .collect();
    assert!(wrong.is_empty(), "rows that do not match: {wrong:?}");
}

#[test]
fn the_header_claims_live_only_once_scan_1_answered() {
    // A scan that accepts connections and never answers.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let settings = cantonscope::config::Settings {
        scan_url: Some(url.parse().expect("url")),
        ..Default::default()
    };
    let (mut app, _clients) = {
        let _guard = rt.enter();
        cantonscope::runtime::build(&settings, chrono::Utc::now().timestamp_micros())
            .expect("app builds")
    };
    app.update(cantonscope::msg::Action::Resize(120, 40));
    let _requests_in_flight = app.start();
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).expect("terminal");
    terminal
        .draw(|f| cantonscope::app::draw::draw(&app, f))
        .expect("draw");
    let screen = crate::common::buffer_text(terminal.backend().buffer());
    let header = screen.lines().next().unwrap_or_default();
    assert!(
        header.contains("CONNECTING") && !header.contains("LIVE"),
        "{header}"
    );
    drop(listener);
}

#[test]
fn a_node_going_down_and_coming_back() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('4'));
    assert!(h.screen(120, 40).contains("OK  success"));

    let addr = h.stop_demo();
    for _ in 0..3 {
        h.tick(5.0);
    }
    let screen = h.screen(120, 40);
    assert!(screen.contains("DOWN"), "{screen}");
    assert!(
        screen.contains("connect") || screen.contains("refused"),
        "says why: {screen}"
    );
    assert!(!h.app.errors.is_empty(), "errors go to the error log");
    // The dashboard judges, and the header claims no live tail from a scan that is down.
    let top = screen.lines().nth(2).unwrap_or_default().to_string();
    assert!(top.contains("DOWN  scan 1 down"), "{screen}");
    let header = screen.lines().next().unwrap_or_default().to_string();
    assert!(header.contains("● scan DOWN"), "{header}");
    assert!(
        header.contains("OFFLINE") && !header.contains("LIVE"),
        "{header}"
    );

    h.restart_demo(addr);
    for _ in 0..4 {
        h.tick(30.0);
    }
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("OK  success"),
        "recovers by itself: {screen}"
    );
    assert!(screen.contains("● scan OK"), "{screen}");
    assert!(screen.contains("LIVE"), "{screen}");
    // (The static demo ledger is minutes old by now: the verdict names the lag, not the scan.)
    let top = screen.lines().nth(2).unwrap_or_default().to_string();
    assert!(!top.contains("scan 1 down"), "{screen}");
}

#[test]
fn a_scan_going_down_is_filed_under_status_wherever_the_user_is() {
    let mut h = Harness::start();
    // In History (the first pane) when the scan goes down.
    h.key(KeyCode::Char('1'));
    h.stop_demo();
    for _ in 0..3 {
        h.tick(5.0);
    }
    let down: Vec<_> = h
        .app
        .errors
        .entries()
        .filter(|e| e.message.contains("scan 1 is down"))
        .collect();
    assert!(
        !down.is_empty(),
        "{:?}",
        h.app.errors.entries().collect::<Vec<_>>()
    );
    // The status poll found it: filed under Status, not under the focused pane.
    assert!(down.iter().all(|e| e.source == "Status"), "{down:?}");
}

#[test]
fn tab_in_the_value_box_stays_in_it() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('1'));
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Update);
    h.key(KeyCode::Char('v'));
    assert!(h.app.update_pane.shown_value().is_some(), "the box is open");
    // Tab does not leave the box open behind another pane.
    h.key(KeyCode::Tab);
    assert_eq!(h.app.focus, PaneId::Update);
    assert!(h.app.update_pane.shown_value().is_some());
    // Esc closes it; then Tab moves on as everywhere.
    h.key(KeyCode::Esc);
    assert!(h.app.update_pane.shown_value().is_none());
}

#[test]
fn sort_keys_in_history_and_sweep_cancel_without_a_sweep_say_why_nothing_happens() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('1'));
    h.key(KeyCode::Char('o'));
    assert_eq!(
        toast(&h),
        "the History list is in ledger order: it does not sort (R flips it: newest first / oldest first)"
    );
    h.key(KeyCode::Char('O'));
    assert!(toast(&h).contains("does not sort"), "{}", toast(&h));
    h.palette("sweep cancel");
    assert_eq!(toast(&h), "no sweep is running");
}

/// A writer that counts the bytes the terminal backend writes.
#[derive(Default, Clone)]
struct Counting(std::rc::Rc<std::cell::Cell<usize>>);

impl std::io::Write for Counting {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.set(self.0.get() + buf.len());
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn idle_writes_nothing_to_the_terminal() {
    use ratatui::backend::CrosstermBackend;
    use ratatui::{Terminal, TerminalOptions, Viewport};

    let mut h = Harness::start();
    h.tick(0.0);
    let counter = Counting::default();
    let backend = CrosstermBackend::new(counter.clone());
    let mut terminal = Terminal::with_options(
        backend,
        TerminalOptions {
            viewport: Viewport::Fixed(ratatui::layout::Rect::new(0, 0, 120, 40)),
        },
    )
    .expect("terminal");
    h.app.mark_dirty();
    assert!(cantonscope::runtime::redraw_if_dirty(&mut h.app, &mut terminal).expect("draw"));
    let first = counter.0.get();
    assert!(first > 1000, "the first frame is drawn: {first} bytes");

    // Ticks inside the same second with nothing new: nothing is drawn, nothing written.
    let second_start = (h.now / 1_000_000) * 1_000_000;
    for i in 1..4 {
        h.now = second_start + i * 200_000;
        h.act(cantonscope::msg::Action::Tick(h.now));
        cantonscope::runtime::redraw_if_dirty(&mut h.app, &mut terminal).expect("draw");
    }
    assert_eq!(counter.0.get(), first, "idle ticks wrote to the terminal");

    // A key that changes something is drawn.
    h.key(KeyCode::Char('k'));
    assert!(cantonscope::runtime::redraw_if_dirty(&mut h.app, &mut terminal).expect("draw"));
    assert!(counter.0.get() > first);
}

#[test]
fn tiny_sizes_never_panic_and_say_too_small() {
    let mut h = Harness::start();
    h.key(KeyCode::Enter);
    for (w, hgt) in [
        (1, 1),
        (0, 0),
        (2, 1),
        (10, 3),
        (30, 8),
        (79, 23),
        (80, 24),
        (1, 1),
        (200, 60),
    ] {
        for pane in ['1', '2', '3', '4', '5', '6', '7', '8', '9'] {
            h.key(KeyCode::Char(pane));
            let _ = h.draw(w, hgt);
        }
        h.key(KeyCode::Char('?'));
        let _ = h.draw(w, hgt);
        h.key(KeyCode::Esc);
    }
    let screen = h.screen(30, 8);
    assert!(screen.contains("too small"), "{screen}");
    let screen = h.screen(80, 24);
    assert!(!screen.contains("too small"), "{screen}");
}

#[test]
fn keys_come_from_the_config() {
    let mut h = Harness::start_with(Options {
        tweak: Box::new(|s| {
            s.keys.insert(
                "help".into(),
                cantonscope::config::KeySpecs::One("f1".into()),
            );
            s.keys.insert(
                "down".into(),
                cantonscope::config::KeySpecs::Many(vec!["n".into(), "down".into()]),
            );
        }),
        ..Options::default()
    });
    h.key(KeyCode::Char('?'));
    assert!(h.app.overlay.is_none(), "? no longer opens help");
    h.key(KeyCode::F(1));
    assert!(h.app.overlay.is_some(), "F1 opens help");
    let help = h.screen(120, 40);
    assert!(
        help.contains("F1"),
        "help is generated from the keymap: {help}"
    );
    h.key(KeyCode::Esc);
    assert!(h.app.overlay.is_none());

    h.key(KeyCode::Home);
    let top = h.app.history.cursor_row();
    h.key(KeyCode::Char('n'));
    assert_eq!(h.app.history.cursor_row(), top + 1, "n moves down");
    let footer = h.screen(120, 40);
    assert!(
        footer.contains("F1 help"),
        "footer hints follow the keymap: {footer}"
    );
}

#[test]
fn palette_theme_time_and_errors() {
    let mut h = Harness::start();
    h.key(KeyCode::Char(':'));
    h.type_text("theme light");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.theme.name, "light");
    h.palette("theme nonesuch");
    assert_eq!(h.app.theme.name, "light");
    assert!(!h.app.errors.is_empty(), "an unknown theme is an error");

    // A short id that no loaded update starts with opens nothing (the open update stays).
    h.palette("event 1220deadbeef");
    let screen = h.screen(120, 40);
    assert_eq!(h.app.focus, PaneId::History);
    assert!(screen.contains("not found among"), "{screen}");

    h.key(KeyCode::Char('!'));
    let log = h.screen(120, 40);
    assert!(log.contains("nonesuch"), "{log}");
    h.key(KeyCode::Esc);

    h.key_mod(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(h.quit);
}

#[test]
fn an_invalid_filter_is_not_applied_silently() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('/'));
    h.type_text("re:x[");
    h.key(KeyCode::Enter);
    assert!(h.app.history.is_editing_filter(), "the input stays open");
    assert!(h.app.history.filter_error().is_some());
    assert!(
        h.app
            .toast
            .as_ref()
            .is_some_and(|t| t.text.starts_with("filter not applied")),
        "{:?}",
        h.app.toast
    );
    // Ctrl-u clears to the line start (readline), then a valid filter applies.
    h.key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL);
    h.type_text("Transfer");
    h.key(KeyCode::Enter);
    assert!(!h.app.history.is_editing_filter());
    assert_eq!(h.app.history.filter_text(), Some("Transfer"));
}

#[test]
fn status_cards_come_back_after_a_resize() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('4'));
    let _ = h.screen(120, 40);
    for _ in 0..3 {
        h.key(KeyCode::Char('j'));
    }
    let small = h.screen(80, 24);
    assert!(small.contains("more"), "a scroll hint at 80x24: {small}");
    let big = h.screen(120, 40);
    for card in ["scan 1 ·", "history ·", "ledger ·", "validator proxy ·"] {
        assert!(big.contains(card), "{card} shown again at 120x40: {big}");
    }
    assert!(!big.contains("more (↑/↓)"), "{big}");
}

#[test]
fn ledger_footer_offers_only_what_works() {
    let footer = |h: &mut Harness| {
        let screen = h.screen(120, 40);
        screen.lines().rev().nth(1).unwrap_or_default().to_string()
    };
    let mut h = Harness::start_with(Options {
        read_only: true,
        ..Options::default()
    });
    h.key(KeyCode::Char('9'));
    h.key(KeyCode::Char(']'));
    let f = footer(&mut h);
    assert!(!f.contains("D delete") && !f.contains("i edit"), "{f}");
    for _ in 0..3 {
        h.key(KeyCode::Char(']'));
    }
    let f = footer(&mut h);
    assert!(!f.contains("x execute"), "{f}");

    let mut h = Harness::start_with(Options {
        token: false,
        ..Options::default()
    });
    h.key(KeyCode::Char('9'));
    let f = footer(&mut h);
    assert!(f.contains("] next section"), "{f}");
    assert!(!f.contains("i edit") && !f.contains("r refresh"), "{f}");
}

#[test]
fn browsing_the_past_claims_no_lag_and_f_returns_to_the_head() {
    let mut h = Harness::start();
    assert!(h.app.sh.history_at_head);
    let oldest = h.app.sh.history.first().expect("loaded").record_time();
    let past = cantonscope::model::summary::format_time_micros(oldest - 86_400_000_000);
    h.palette(&format!("time {past}"));
    assert!(!h.app.sh.history_at_head);
    let screen = h.screen(120, 40);
    let header = screen.lines().next().unwrap_or_default();
    assert!(header.contains("browsing"), "{header}");
    assert!(!header.contains(" ago)"), "no lag claimed: {header}");
    h.key(KeyCode::Char('4'));
    h.tick(0.3);
    let status = h.screen(120, 40);
    assert!(status.contains("not at the head"), "{status}");
    // f: back to the live head, where the lag is real again.
    h.key(KeyCode::Char('1'));
    h.key(KeyCode::Char('f'));
    for _ in 0..20 {
        if h.app.sh.history_at_head {
            break;
        }
        h.tick(3.0);
    }
    assert!(h.app.sh.history_at_head, "following reaches the head");
    let header = h
        .screen(120, 40)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(
        header.contains("newest") && header.contains(" ago)"),
        "{header}"
    );
}

#[test]
fn small_terminal_abbreviates_tabs_and_keeps_help_and_quit() {
    let mut h = Harness::start();
    let screen = h.screen(80, 24);
    let lines: Vec<&str> = screen.lines().collect();
    let tabs = lines[1];
    // Every tab keeps a name (the focused one whole), none is a bare number.
    assert!(tabs.contains("1 History"), "{tabs}");
    for short in [
        "2 Upd", "3 Ver", "4 Sta", "5 Hol", "6 Val", "7 Net", "8 Pro", "9 Led", "10 Gov",
    ] {
        assert!(tabs.contains(short), "{short} in {tabs}");
    }
    let footer = lines[22];
    assert!(
        footer.contains("? help") && footer.contains("q quit"),
        "{footer}"
    );
    // On every pane.
    for n in ('1'..='9').chain(['0']) {
        h.key(KeyCode::Char(n));
        let screen = h.screen(80, 24);
        // (A message of two lines moves the footer up a row.)
        let footer = screen
            .lines()
            .skip(21)
            .find(|l| l.contains("? help"))
            .unwrap_or_default()
            .to_string();
        assert!(
            footer.contains("? help") && footer.contains("q quit"),
            "{n}: {screen}"
        );
    }
}

#[test]
/// One rule for every tab's badge: the rows of the pane's main table, thousands grouped, only
/// once the pane loaded something; the focused tab shows it at every width.
fn the_focused_tab_shows_its_badge_on_every_pane() {
    let mut h = Harness::start();
    for w in [80u16, 120, 200] {
        for (i, p) in PaneId::ALL.iter().enumerate() {
            // Pane 10's key is 0.
            h.key(KeyCode::Char(char::from(b'0' + ((i + 1) % 10) as u8)));
            assert_eq!(h.app.focus, *p);
            let screen = h.screen(w, 40);
            let tabs = screen.lines().nth(1).unwrap_or_default().to_string();
            let count = h.app.pane(*p).tab_count(&h.app.sh);
            let label = format!("{} {}", i + 1, p.title());
            let expected = match count {
                Some(n) => format!("{label} {}", cantonscope::ui::format::group_thousands(n)),
                None => label.clone(),
            };
            assert!(tabs.contains(&expected), "{w}: {expected:?} in {tabs}");
            // Nothing but the count follows the title.
            let after = tabs[tabs.find(&label).expect("the tab") + label.len()..]
                .split("  ")
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            assert!(
                after.chars().all(|c| c.is_ascii_digit() || c == ','),
                "{w}: {label} badge {after:?}"
            );
        }
    }
    // The History table's rows, grouped: 43 on the static demo.
    assert_eq!(
        h.app.pane(PaneId::History).tab_count(&h.app.sh),
        Some(h.app.sh.history.len())
    );
}

/// The tab row with several panes loaded (History, Status, Network's scans, Proxy's coupons):
/// every badge is a row count, thousands grouped; at 80 columns the titles are abbreviated and
/// only the focused tab keeps its name and count; at 120 every title is whole and only the
/// focused tab has its count; at 160 every tab has its count.
#[test]
fn tab_badges_count_rows_the_same_way_on_every_pane() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('7'));
    h.key(KeyCode::Char('8'));
    h.key(KeyCode::Char(']'));
    h.key(KeyCode::Char('4'));
    h.key(KeyCode::Char('1'));
    for (w, hgt) in [(80u16, 24u16), (120, 40)] {
        let screen = h.screen(w, hgt);
        let tabs = screen.lines().nth(1).unwrap_or_default().to_string();
        crate::common::assert_snapshot!(format!("tab_badges_{w}x{hgt}"), tabs);
    }
    let tabs = h
        .screen(160, 40)
        .lines()
        .nth(1)
        .unwrap_or_default()
        .to_string();
    for (p, label) in [
        (PaneId::History, "1 History"),
        (PaneId::Status, "4 Status"),
        (PaneId::Network, "7 Network"),
        (PaneId::Proxy, "8 Proxy"),
    ] {
        let n = h.app.pane(p).tab_count(&h.app.sh).expect("loaded");
        let expected = format!("{label} {}", cantonscope::ui::format::group_thousands(n));
        assert!(tabs.contains(&expected), "{expected:?} in {tabs}");
    }
}

#[test]
fn typing_a_filter_where_none_opens_runs_no_commands() {
    let mut h = Harness::start();
    // Validators queries on first show: its table has rows, so `/` opens its filter and every
    // key goes there.
    h.key(KeyCode::Char('6'));
    assert_eq!(h.app.focus, PaneId::Validators);
    let before = h.requests.len();
    h.type_text("/re:^(acme|zeph)");
    assert!(h.app.overlay.is_none(), "`:` did not open the palette");
    assert_eq!(h.requests.len(), before, "`r` did not refresh");
    assert!(h.app.validators.is_filtering());
    h.key(KeyCode::Esc);
    // The Ledger pane's parties table has nothing loaded: no filter opens, the text is ignored.
    h.key(KeyCode::Char('9'));
    assert_eq!(h.app.focus, PaneId::Ledger);
    let before = h.requests.len();
    h.type_text("/re:^(acme|zeph)");
    assert!(h.app.overlay.is_none(), "`:` did not open the palette");
    assert_eq!(h.requests.len(), before, "`r` did not refresh");
    assert_eq!(h.app.focus, PaneId::Ledger);
    let status = h.screen(120, 40);
    assert!(status.contains("typed text ignored"), "{status}");
    // Esc ends it: keys work again.
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('4'));
    assert_eq!(h.app.focus, PaneId::Status);
}

#[test]
fn an_everywhere_key_that_does_nothing_here_says_so() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('4'));
    h.key(KeyCode::Char('e'));
    let screen = h.screen(120, 40);
    let status = screen.lines().last().unwrap_or_default().to_string();
    assert!(status.contains("not in the Status pane"), "{status}");
}

/// Esc with nothing to close or go back to is quiet: the status line keeps what it said (it
/// used to say `back / close: not in the History pane`).
#[test]
fn esc_with_nothing_to_close_says_nothing() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('1'));
    for _ in 0..3 {
        h.key(KeyCode::Esc);
    }
    let screen = h.screen(120, 40);
    let status = screen.lines().last().unwrap_or_default().to_string();
    assert!(!status.contains("not in the"), "{status}");
    assert!(!status.contains("back / close"), "{status}");
}

#[test]
fn help_starts_with_the_focused_panes_keys() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('4'));
    h.key(KeyCode::Char('?'));
    let screen = h.screen(120, 40);
    let first = screen.find("Status pane").expect("a Status pane section");
    let everywhere = screen.find("Everywhere").unwrap_or(usize::MAX);
    assert!(first < everywhere, "{screen}");
    assert!(screen.contains("r/F5"), "{screen}");
    // Command names are shown for the config file.
    assert!(screen.contains("refresh"), "{screen}");
    h.key(KeyCode::Esc);
    // Pane-only keys are not listed under "Everywhere".
    h.key(KeyCode::Char('?'));
    h.key(KeyCode::Char('/'));
    h.type_text("export");
    h.key(KeyCode::Enter);
    let screen = h.screen(120, 40);
    assert!(screen.contains("Only in some panes"), "{screen}");
}

#[test]
fn keys_pressed_over_help_or_the_error_log_do_not_run_behind_it() {
    let mut h = Harness::start();
    for open in ['?', '!'] {
        h.key(KeyCode::Char(open));
        assert!(h.app.overlay.is_some());
        // Switching panes, the time zone and saving are not run while the overlay is open.
        for key in ['4', 't', 's', '\t'] {
            if key == '\t' {
                h.key(KeyCode::Tab);
            } else {
                h.key(KeyCode::Char(key));
            }
            assert!(h.app.overlay.is_some(), "{open} then {key:?} closed it");
        }
        assert_eq!(h.app.focus, PaneId::History, "{open}");
        assert!(!h.app.sh.local_time, "{open}");
        h.key(KeyCode::Esc);
        assert!(h.app.overlay.is_none());
    }
    // q closes the help as Esc does; Ctrl-c still quits from it.
    h.key(KeyCode::Char('?'));
    h.key(KeyCode::Char('q'));
    assert!(h.app.overlay.is_none() && !h.app.should_quit());
    h.key(KeyCode::Char('?'));
    h.key_mod(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(h.app.should_quit());
}

#[test]
fn update_ids_copy_and_esc_goes_back_where_the_user_came_from() {
    let mut h = Harness::start();
    // In History, Y copies the selected row's update id and says so.
    let selected = h.app.history.selected_update_id(&h.app.sh).expect("a row");
    h.key(KeyCode::Char('Y'));
    assert_eq!(h.copied.last(), Some(&selected));
    let status = h
        .screen(120, 40)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string();
    assert!(status.contains("copied update id"), "{status}");
    // Open it: in Update, Y copies the open update's id (y copies the event id).
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Update);
    let open = h.app.update_pane.update_id().expect("open").to_string();
    h.key(KeyCode::Char('Y'));
    assert_eq!(h.copied.last(), Some(&open));
    // Esc goes back to History.
    h.key(KeyCode::Esc);
    assert_eq!(h.app.focus, PaneId::History);
    // From the Status pane through the palette: Esc goes back to Status.
    h.key(KeyCode::Char('4'));
    h.palette(&format!("event {open}"));
    assert_eq!(h.app.focus, PaneId::Update);
    h.key(KeyCode::Esc);
    assert_eq!(h.app.focus, PaneId::Status);
}

#[test]
fn event_accepts_a_unique_prefix_and_a_failed_lookup_keeps_the_open_update() {
    let mut h = Harness::start();
    let ids: Vec<String> = h
        .app
        .sh
        .history
        .iter()
        .map(|s| s.update_id().to_string())
        .collect();
    let target = ids.last().expect("updates").clone();
    // The shortest prefix that only the target has.
    let prefix = (6..target.len())
        .map(|n| &target[..n])
        .find(|p| ids.iter().filter(|id| id.starts_with(p)).count() == 1)
        .expect("a unique prefix")
        .to_string();
    h.palette(&format!("event {prefix}"));
    assert_eq!(h.app.update_pane.update_id(), Some(target.as_str()));
    // What the History list shows: the id without its `1220`, as the row prints it.
    let other = ids[ids.len() / 2].clone();
    h.cmd(Command::Pane1);
    let screen = h.screen(120, 40);
    let shown = (8..other.len())
        .map(|n| &other[4..n])
        .find(|p| screen.contains(p) && ids.iter().filter(|id| id[4..].starts_with(p)).count() == 1)
        .unwrap_or(&other[4..20])
        .to_string();
    h.palette(&format!("event {shown}"));
    assert_eq!(
        h.app.update_pane.update_id(),
        Some(other.as_str()),
        ":event {shown}"
    );
    h.palette(&format!("bft {shown}"));
    assert_eq!(h.app.focus, PaneId::Network, ":bft {shown}");
    h.palette(&format!("event {prefix}"));
    // Every id starts with the multihash prefix: ambiguous.
    h.palette("event 1220");
    let status = h
        .screen(120, 40)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string();
    assert!(
        status.contains(&format!("ambiguous: {} matches", ids.len())),
        "{status}"
    );
    assert_eq!(h.app.update_pane.update_id(), Some(target.as_str()));
    // No match: said so, the open update stays.
    h.palette("event 1220ffffffffffff");
    let status = h
        .screen(120, 40)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string();
    assert!(status.contains("not found among"), "{status}");
    assert_eq!(h.app.update_pane.update_id(), Some(target.as_str()));
    let screen = h.screen(80, 24);
    assert!(
        screen.contains("ambiguous") || screen.contains("not found"),
        "{screen}"
    );
}

#[test]
fn esc_returns_from_every_palette_command_that_changes_pane() {
    let mut h = Harness::start();
    let id = h
        .app
        .sh
        .history
        .last()
        .map(|s| s.update_id().to_string())
        .expect("a loaded update");
    let lines = [
        (format!("event {}", &id[..16]), PaneId::Update),
        (format!("bft {id}"), PaneId::Network),
        ("time -1h".to_owned(), PaneId::History),
        ("load 1h".to_owned(), PaneId::History),
        ("filter transfer".to_owned(), PaneId::History),
        ("pane network".to_owned(), PaneId::Network),
        ("follow".to_owned(), PaneId::History),
        ("sweep cancel".to_owned(), PaneId::Network),
    ];
    for (line, lands) in lines {
        h.cmd(Command::Pane4);
        assert_eq!(h.app.focus, PaneId::Status);
        h.palette(&line);
        assert_eq!(h.app.focus, lands, ":{line}");
        // Esc (as often as the pane itself has something to close) comes back to Status.
        for _ in 0..3 {
            if h.app.focus == PaneId::Status {
                break;
            }
            h.cmd(Command::Back);
        }
        assert_eq!(h.app.focus, PaneId::Status, "Esc after :{line}");
    }
}

/// The keys that move to another pane (`b` check on every scan, `f` follow the tail, `S` the
/// sweep) go through the same intents as the palette: Esc comes back where the user was.
#[test]
fn esc_returns_from_every_key_that_changes_pane() {
    let mut h = Harness::start();
    let keys = [
        (PaneId::History, Command::Consensus, PaneId::Network),
        (PaneId::Status, Command::FollowTail, PaneId::History),
        (PaneId::History, Command::Sweep, PaneId::Network),
        (PaneId::Validators, Command::Consensus, PaneId::Network),
    ];
    for (from, key, lands) in keys {
        h.cmd(Command::pane(from.index() + 1).expect("a pane key"));
        assert_eq!(h.app.focus, from);
        h.cmd(key);
        assert_eq!(h.app.focus, lands, "{key:?} from {from:?}");
        for _ in 0..3 {
            if h.app.focus == from {
                break;
            }
            h.cmd(Command::Back);
        }
        assert_eq!(h.app.focus, from, "Esc after {key:?} from {from:?}");
    }
}

#[test]
fn the_palette_goes_to_any_pane_by_a_short_name_listed_in_help() {
    let mut h = Harness::start();
    // k9s's `:po`: a pane's alias or a unique prefix of its name goes there.
    for (line, lands) in [
        ("gov", PaneId::Governance),
        ("net", PaneId::Network),
        ("st", PaneId::Status),
        ("hold", PaneId::Holdings),
        ("VALIDATORS", PaneId::Validators),
        ("pane gov", PaneId::Governance),
        ("hi", PaneId::History),
    ] {
        h.palette(line);
        assert_eq!(h.app.focus, lands, ":{line}");
    }
    // A prefix a command has runs the command, as before (`:s` is `:sweep`, not Status):
    // `:f` is still ambiguous between the commands, not a pane.
    h.palette("f");
    let status = h.screen(120, 40);
    assert!(
        status.contains("ambiguous \"f\": filter, follow"),
        "{status}"
    );
    // `?` lists every palette command with its short names; `/` finds them.
    h.key(KeyCode::Char('?'));
    h.key(KeyCode::Char('/'));
    h.type_text("governance pane");
    let help = h.screen(120, 40);
    assert!(help.contains("Palette commands"), "{help}");
    let row = help
        .lines()
        .find(|l| l.contains(":governance · go to the Governance pane (key 0)"))
        .unwrap_or_else(|| panic!("no :governance row: {help}"));
    assert!(row.contains(":gov :g"), "{row}");
}

/// Issue 21: a field a pane shows cut (Verdict's confirming parties at 80x24) can be focused with
/// `v`, shown whole and copied whole; the same `v` lists a History row's fields.
#[test]
fn v_shows_and_copies_a_cut_field_whole_in_any_pane() {
    let mut h = Harness::start();
    // History: the selected row's fields.
    h.key(KeyCode::Char('v'));
    let screen = h.screen(80, 24);
    let id = h.app.history.selected_update_id(&h.app.sh).expect("row");
    assert!(screen.contains(" fields "), "{screen}");
    assert!(screen.contains("summary"), "{screen}");
    h.key(KeyCode::Char('y'));
    assert_eq!(
        h.copied.last(),
        Some(&id),
        "y copies the focused field whole"
    );
    h.key(KeyCode::Esc);
    assert!(!h.screen(80, 24).contains(" fields "));
    // Verdict: a view with a confirming quorum; its parties are cut on screen.
    h.key(KeyCode::Enter);
    h.key(KeyCode::Char('3'));
    let tree = h.app.verdict.view_tree().expect("views").clone();
    let quorum = (0..8)
        .find_map(|_| {
            let node = h.app.verdict.tree_state().selected()?;
            let found = tree
                .view(node)
                .and_then(|v| v.confirming_parties.first().cloned());
            if found.is_none() {
                h.key(KeyCode::Char('j'));
            }
            found
        })
        .expect("a view with a confirming quorum");
    let whole = quorum.parties.join(", ");
    let screen = h.screen(80, 24);
    assert!(
        !screen.contains(&quorum.parties[0]),
        "cut on screen: {screen}"
    );
    h.key(KeyCode::Char('v'));
    let name = format!(
        "confirming {} of {}",
        quorum.threshold,
        quorum.parties.len()
    );
    let screen = h.screen(80, 24);
    assert!(screen.contains(&name), "{screen}");
    // Focus the quorum's field, copy it, open it whole.
    let focused = |h: &Harness| match &h.app.overlay {
        Some(cantonscope::app::Overlay::Fields(f)) => Some(f.fields()[f.cursor()].name.clone()),
        _ => None,
    };
    for _ in 0..10 {
        if focused(&h).as_deref() == Some(name.as_str()) {
            break;
        }
        h.key(KeyCode::Char('j'));
    }
    assert_eq!(focused(&h).as_deref(), Some(name.as_str()));
    h.key(KeyCode::Char('y'));
    assert_eq!(h.copied.last(), Some(&whole), "y copies the quorum whole");
    h.key(KeyCode::Enter);
    let screen = h.screen(80, 24);
    let party = &quorum.parties[0];
    assert!(screen.contains(&party[..party.len().min(60)]), "{screen}");
    assert!(screen.contains(&party[party.len() - 12..]), "{screen}");
    assert!(screen.contains("y copy  Esc close"), "{screen}");
    // Esc: back to the list; Esc again: closed, the pane's keys work again.
    h.key(KeyCode::Esc);
    assert!(h.screen(80, 24).contains(" fields "));
    h.key(KeyCode::Esc);
    assert!(!h.screen(80, 24).contains(" fields "));
    assert_eq!(h.app.focus, PaneId::Verdict);
    // A table pane (Network's scans): the selected row's columns, the URL whole.
    h.key(KeyCode::Char('7'));
    h.tick(0.5);
    h.key(KeyCode::Char('v'));
    let screen = h.screen(80, 24);
    assert!(screen.contains(" row · "), "{screen}");
    assert!(screen.contains("http://127.0.0.1:"), "{screen}");
}

/// Issue 21: at 80 columns a message longer than the status line wraps onto a second line (over
/// the footer's row) instead of being cut; a longer one is cut with a hint and the error log
/// holds it whole; an error from an earlier command goes when the next command succeeds.
#[test]
fn long_messages_wrap_and_an_old_error_goes_with_the_next_command() {
    let mut h = Harness::start();
    h.screen(80, 24);
    let tail = "tailofthemessage";
    let id = format!("1220{}{tail}", "ab".repeat(8));
    h.palette(&format!("event {id}"));
    let screen = h.screen(80, 24);
    let lines: Vec<&str> = screen.lines().collect();
    let (footer, status) = (lines[22], lines[23]);
    assert!(footer.contains("event 1220ab"), "{screen}");
    assert!(footer.contains(tail), "{screen}");
    assert!(
        status.contains("to fetch it)"),
        "the end is on the second line: {screen}"
    );
    assert!(
        lines[21].contains("? help") && lines[21].contains("q quit"),
        "the footer moves up a row, keeping its keys: {screen}"
    );
    // Moving does not clear it; the next command that runs clears it (the log keeps it).
    h.key(KeyCode::Char('j'));
    assert!(h.screen(80, 24).contains(tail));
    h.key(KeyCode::Char('2'));
    h.key(KeyCode::Char('1'));
    let screen = h.screen(80, 24);
    assert!(!screen.contains(tail), "{screen}");
    assert!(
        screen.lines().nth(22).is_some_and(|l| l.contains("q quit")),
        "the footer is back: {screen}"
    );
    assert!(screen.contains("! 1 error"), "{screen}");
    // Longer than two lines: cut with a hint; the error log has it whole. (A text that is no
    // update id is not sent to a scan: a long error of another command.)
    let long = format!("1220{}{tail}", "cd".repeat(90));
    h.palette(&format!("theme {long}"));
    let screen = h.screen(80, 24);
    assert!(screen.contains("(! shows it whole)"), "{screen}");
    assert!(!screen.contains(tail), "{screen}");
    h.key(KeyCode::Char('!'));
    let screen = h.screen(200, 60);
    assert!(screen.contains(tail), "{screen}");
}
