//! The Validators pane (6) against the demo network: the empty state, the form pre-filled with
//! the validators of the loaded history (snapshots), the query of all of them (snapshots at 80x24
//! and 120x40), ids the scan ignores, Tab completion, sorting, the `/` filter (every key goes to
//! its input), copying, refreshing, client-side validation, the 400 and "not served" error
//! shapes, stale replies, sanitised server strings, warn/err styles of missed rounds and tiny
//! sizes.

use cantonscope::api::ApiError;
use cantonscope::api::scan::{ValidatorFaucets, ValidatorReceivedFaucets};
use cantonscope::model::summary::parse_time_micros;
use cantonscope::msg::Action;
use cantonscope::msg::Command;
use cantonscope::msg::{Effect, Fetched, Response};
use cantonscope::panes::form::QueryPane;
use cantonscope::panes::validators::{
    NOT_ONBOARDED, ValCol, ValidatorRow, ValidatorsPane, liveness,
};
use cantonscope::panes::{AppContext, Out, Pane, RenderCtx, Shared};
use cantonscope::runtime::fetch::execute;
use cantonscope::ui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::common::pane::{fetched, render, sent};
use crate::common::requests as req;
use crate::common::{Harness, Options, assert_snapshot, buffer_text, stable_hms, toast};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn faucet_requests(h: &Harness) -> usize {
    h.requests.iter().filter(|r| r.contains("faucet")).count()
}

/// Empties the form's input (Ctrl-a, Ctrl-k).
fn clear_input(h: &mut Harness) {
    h.key_mod(KeyCode::Char('a'), KeyModifiers::CONTROL);
    h.key_mod(KeyCode::Char('k'), KeyModifiers::CONTROL);
}

fn stats_of<'a>(p: &'a ValidatorsPane, id: &str) -> &'a ValidatorReceivedFaucets {
    p.rows
        .iter()
        .find_map(|r| match &r.faucets {
            Some(ValidatorRow::Stats(s)) if s.validator == id => Some(s),
            _ => None,
        })
        .expect("stats row")
}

/// Opens the form (pre-filled) and runs it.
fn query_all(h: &mut Harness) {
    h.cmd(Command::Pane6);
    h.cmd(Command::Edit);
    h.key(KeyCode::Enter);
    assert!(!h.app.validators.form_open());
}

// ---------------------------------------------------------------------------------------------
// Flows against the demo
// ---------------------------------------------------------------------------------------------

#[test]
fn history_knows_the_validators_from_validator_licenses() {
    let h = Harness::start();
    let validators = h.app.sh.history.validators();
    assert!(validators.len() >= 5, "{validators:?}");
    // Only the licensed validators: not the DSO (signatory) nor SVs or users.
    assert!(
        validators.iter().all(|v| v
            .split("::")
            .next()
            .is_some_and(|n| n.contains("-validator-"))),
        "{validators:?}"
    );
    let parties = h.app.sh.history.parties();
    assert!(validators.iter().all(|v| parties.contains(v)));
}

#[test]
fn first_show_queries_every_history_validator_and_the_form_lists_them() {
    let mut h = Harness::start();
    let mut known: Vec<String> = h
        .app
        .sh
        .history
        .validators()
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    known.sort_unstable();
    assert!(known.len() > 10, "{known:?}");
    // The first show runs at once, without `i` and Enter.
    h.cmd(Command::Pane6);
    assert_eq!(faucet_requests(&h), 1);
    let p = &h.app.validators;
    assert!(!p.form_open());
    assert_eq!(
        p.query.as_deref(),
        Some(&known[..]),
        "every validator, sorted"
    );
    assert_eq!(p.onboarded(), known.len());
    let screen = h.screen(80, 24);
    assert!(!screen.contains("No validators queried yet"), "{screen}");
    assert!(screen.contains("Liveness ▲"), "{screen}");
    assert!(
        screen.contains(&format!(
            "validator faucets of the {} validators",
            known.len()
        )),
        "{screen}"
    );
    assert_snapshot!("validators_first_show_80x24", stable_hms(&screen));
    assert_snapshot!(
        "validators_first_show_120x40",
        stable_hms(&h.screen(120, 40))
    );
    // Showing the pane again does not query again.
    h.cmd(Command::Pane1);
    h.cmd(Command::Pane6);
    assert_eq!(faucet_requests(&h), 1);

    // The form lists the ids with a count, never as one line thousands of characters long.
    h.key(KeyCode::Char('i'));
    let p = &h.app.validators;
    assert!(p.form_open() && p.wants_raw_keys());
    assert_eq!(
        p.ids_text(),
        known.join(" "),
        "the ids of the query, sorted"
    );
    assert_eq!(
        p.hints(),
        vec![Command::Confirm, Command::Cancel, Command::Complete]
    );
    let screen = h.screen(80, 24);
    assert!(
        screen.contains(&format!("{} validators:", known.len())),
        "{screen}"
    );
    assert!(screen.contains("more"), "the rest is counted: {screen}");
    assert!(
        !screen.contains(&known[known.len() - 1]),
        "no id is drawn whole on one long line: {screen}"
    );
    assert_snapshot!("validators_form_80x24", stable_hms(&screen));
    // Esc keeps the list; opening again does not pre-fill over what is there.
    h.key(KeyCode::Esc);
    assert!(!h.app.validators.form_open());
    h.cmd(Command::Edit);
    clear_input(&mut h);
    h.type_text("x::1");
    h.key(KeyCode::Esc);
    h.cmd(Command::Edit);
    assert_eq!(h.app.validators.ids_text(), "x::1");
    // An emptied list is pre-filled again with the history's validators.
    clear_input(&mut h);
    h.key(KeyCode::Backspace);
    h.key(KeyCode::Esc);
    h.cmd(Command::Edit);
    assert_eq!(h.app.validators.ids_text(), known.join(" "));
    assert!(h.screen(80, 24).contains(&format!(
        "pre-filled with the {} validators seen in the loaded history",
        known.len()
    )));
    assert_eq!(faucet_requests(&h), 1);
}

#[test]
fn first_show_without_validators_in_the_history_explains_how_to_start() {
    let mut sh = shared();
    let mut p = ValidatorsPane::new(&sh);
    let mut out = Out::default();
    p.on_focus(&mut sh, &mut out);
    assert!(
        out.effects.is_empty(),
        "nothing to query: {:?}",
        out.effects
    );
    assert!(p.start_note.is_some());
    let screen = buffer_text(&render(&p, &sh, 80, 24));
    assert!(
        screen.contains("No ValidatorLicense seen in the loaded history yet"),
        "{screen}"
    );
    assert!(
        screen.contains("press i to enter validator party ids"),
        "{screen}"
    );
    assert_snapshot!("validators_nothing_seen_80x24", screen);
    assert_eq!(p.tab_count(&sh), None);
    assert_eq!(p.hints(), vec![Command::Edit]);
}

#[test]
fn one_enter_shows_every_validator_with_liveness() {
    let mut h = Harness::start();
    let n = h.app.sh.history.validators().len();
    query_all(&mut h);
    assert_eq!(
        h.requests
            .last()
            .map(String::as_str)
            .map(|r| r.contains("faucet")),
        Some(true)
    );
    let p = &h.app.validators;
    assert!(p.error.is_none(), "{:?}", p.error);
    assert_eq!(
        p.onboarded(),
        n,
        "every licensed validator collected faucets"
    );
    for r in &p.rows {
        let Some(ValidatorRow::Stats(s)) = &r.faucets else {
            panic!("{r:?} ignored");
        };
        // The API's invariant: collected + missed = last - first + 1.
        assert_eq!(
            s.num_rounds_collected + s.num_rounds_missed,
            s.last_collected_in_round - s.first_collected_in_round + 1,
            "{s:?}"
        );
    }
    // Default order: liveness ascending (worst first).
    assert_eq!(p.sort_col, ValCol::Liveness);
    let ids = p.ordered_ids();
    let live: Vec<f64> = ids
        .iter()
        .map(|id| liveness(stats_of(p, id)).expect("liveness"))
        .collect();
    assert!(live.windows(2).all(|w| w[0] <= w[1]), "{live:?}");
    assert_eq!(p.tab_count(&h.app.sh), Some(p.rows.len()));
    assert!(p.rows.len() >= n);
    let rows = p.rows.len();
    assert_eq!(
        p.hints(),
        vec![
            Command::Edit,
            Command::Sort,
            Command::SortReverse,
            Command::Copy,
            Command::Refresh
        ]
    );
    // The worst validator's liveness, as shown.
    let worst = stats_of(p, ids[0]).clone();
    let pct = format!("{:.1}%", liveness(&worst).expect("l") * 100.0);
    let screen = h.screen(120, 40);
    assert!(
        screen.contains(&format!("6 Validators {rows} ")),
        "badge on the tab: {screen}"
    );
    let row = screen
        .lines()
        .find(|l| l.contains(worst.validator.split("::").next().expect("name")))
        .expect("worst row");
    assert!(row.contains(&pct) && row.contains('█'), "{row}");
    assert_snapshot!("validators_all_120x40", stable_hms(&screen));
    let screen = h.screen(80, 24);
    assert!(screen.contains("Liveness ▲"), "{screen}");
    assert_snapshot!("validators_all_80x24", stable_hms(&screen));
}

#[test]
fn ids_the_scan_ignores_are_listed_as_not_onboarded() {
    let mut h = Harness::start();
    let alice = h
        .app
        .sh
        .history
        .parties()
        .into_iter()
        .find(|p| p.starts_with("alice::"))
        .expect("alice")
        .to_string();
    h.cmd(Command::Pane6);
    h.cmd(Command::Edit);
    h.type_text(&format!(" bogus::1220dead {alice}"));
    h.key(KeyCode::Enter);
    let p = &h.app.validators;
    let ignored: Vec<&str> = p
        .rows
        .iter()
        .filter_map(|r| match &r.faucets {
            Some(ValidatorRow::NotOnboarded(id)) => Some(id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ignored, vec!["bogus::1220dead", alice.as_str()]);
    let ids = p.ordered_ids();
    assert_eq!(
        &ids[ids.len() - 2..],
        &[alice.as_str(), "bogus::1220dead"],
        "last, by id"
    );
    let screen = h.screen(120, 40);
    assert!(screen.contains("2 not onboarded"), "{screen}");
    let row = screen
        .lines()
        .find(|l| l.contains("bogus::1220dead"))
        .expect("row");
    assert!(row.contains("not an onboarded validator"), "{row}");
    // Sorting keeps them last.
    h.key(KeyCode::Char('O'));
    let ids = h.app.validators.ordered_ids();
    assert_eq!(&ids[ids.len() - 2..], &[alice.as_str(), "bogus::1220dead"]);
}

#[test]
fn tab_completes_validators_and_a_single_one_can_be_queried() {
    let mut h = Harness::start();
    let zephyr = h
        .app
        .sh
        .history
        .validators()
        .into_iter()
        .find(|v| v.starts_with("zephyr-"))
        .expect("zephyr")
        .to_string();
    h.cmd(Command::Pane6);
    h.cmd(Command::Edit);
    clear_input(&mut h);
    h.type_text("zeph");
    h.key(KeyCode::Tab);
    assert_eq!(h.app.validators.ids_text(), zephyr);
    // Users are not offered: only validators.
    h.type_text(" alic");
    h.key(KeyCode::Tab);
    assert!(h.screen(80, 24).contains("no known id matches"));
    for _ in 0..4 {
        h.key(KeyCode::Backspace);
    }
    // A word matching several (no validator starts with "er": the ones containing it): Tab
    // cycles through them.
    h.type_text("er");
    h.key(KeyCode::Tab);
    let a = h.app.validators.ids_text();
    h.key(KeyCode::Tab);
    let b = h.app.validators.ids_text();
    assert_ne!(a, b);
    assert!(h.screen(120, 40).contains("2/"), "candidates listed");
    h.key(KeyCode::BackTab);
    assert_eq!(h.app.validators.ids_text(), a);
    h.key(KeyCode::Enter);
    assert_eq!(h.app.validators.rows.len(), 2);
    assert!(h.app.validators.ordered_ids().contains(&zephyr.as_str()));
}

#[test]
fn sort_cycles_reverse_flips_copy_and_refresh() {
    let mut h = Harness::start();
    query_all(&mut h);
    let col_values = |h: &Harness, f: fn(&ValidatorReceivedFaucets) -> i64| -> Vec<i64> {
        let p = &h.app.validators;
        p.ordered_ids()
            .iter()
            .map(|id| f(stats_of(p, id)))
            .collect()
    };
    h.key(KeyCode::Char('o'));
    assert_eq!(h.app.validators.sort_col, ValCol::Validator);
    let ids: Vec<String> = h
        .app
        .validators
        .ordered_ids()
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);
    h.key(KeyCode::Char('o'));
    assert_eq!(h.app.validators.sort_col, ValCol::Collected);
    let v = col_values(&h, |s| s.num_rounds_collected);
    assert!(
        v.windows(2).all(|w| w[0] <= w[1]),
        "collected ascending {v:?}"
    );
    h.key(KeyCode::Char('O'));
    let v = col_values(&h, |s| s.num_rounds_collected);
    assert!(v.windows(2).all(|w| w[0] >= w[1]), "reversed {v:?}");
    h.key(KeyCode::Char('o'));
    assert_eq!(h.app.validators.sort_col, ValCol::Missed);
    let v = col_values(&h, |s| s.num_rounds_missed);
    assert!(
        v.windows(2).all(|w| w[0] >= w[1]),
        "most missed first {v:?}"
    );
    assert!(h.screen(120, 40).contains("Missed ▼"));
    h.key(KeyCode::Char('o'));
    h.key(KeyCode::Char('o'));
    assert_eq!(h.app.validators.sort_col, ValCol::Last);
    h.key(KeyCode::Char('o'));
    assert_eq!(h.app.validators.sort_col, ValCol::Liveness);

    // Copy the selected id (top row, then the next).
    h.key(KeyCode::Char('g'));
    h.key(KeyCode::Char('y'));
    let first = h.app.validators.ordered_ids()[0].to_string();
    assert_eq!(h.copied.last(), Some(&first));
    h.key(KeyCode::Down);
    h.key(KeyCode::Char('y'));
    let second = h.app.validators.ordered_ids()[1].to_string();
    assert_eq!(h.copied.last(), Some(&second));

    // Refresh sends the same ids again.
    let before = faucet_requests(&h);
    let asked = h.app.validators.query.clone();
    h.key(KeyCode::Char('r'));
    assert_eq!(faucet_requests(&h), before + 1);
    assert_eq!(h.app.validators.query, asked);
    assert_eq!(h.app.validators.selected_id(), Some(second.as_str()));
}

#[test]
fn slash_filters_the_table_while_every_key_goes_to_the_input() {
    let mut h = Harness::start();
    query_all(&mut h);
    let all = h.app.validators.ordered_ids().len();
    let before = faucet_requests(&h);
    h.key(KeyCode::Char('/'));
    assert!(h.app.validators.is_filtering());
    // `r` (refresh), `:` (palette), `e`, `c`, `h`: all text while the input is open.
    for c in "re:^(acme|zeph)".chars() {
        h.key(KeyCode::Char(c));
    }
    assert_eq!(faucet_requests(&h), before, "typing r did not refresh");
    assert!(h.app.overlay.is_none(), "typing : did not open the palette");
    assert!(h.app.validators.is_filtering());
    let ids: Vec<String> = h
        .app
        .validators
        .ordered_ids()
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    assert_eq!(ids.len(), 2, "acme and zephyr: {ids:?}");
    assert!(
        ids.iter()
            .all(|id| id.starts_with("acme") || id.starts_with("zeph")),
        "{ids:?}"
    );
    let screen = h.screen(120, 40);
    assert!(screen.contains("/ re:^(acme|zeph)"), "{screen}");
    assert!(screen.contains(&format!("2 of {all} match")), "{screen}");
    // Enter keeps the filter; the bar says how to change or clear it.
    h.key(KeyCode::Enter);
    assert!(!h.app.validators.is_filtering());
    assert_eq!(h.app.validators.filter_text(), Some("re:^(acme|zeph)"));
    let screen = h.screen(120, 40);
    assert!(
        screen.contains(&format!(
            "filter re:^(acme|zeph) · 2 of {all} match · / edit · Esc clear"
        )),
        "{screen}"
    );
    // Sorting sorts what the filter lets through.
    h.key(KeyCode::Char('o'));
    assert_eq!(h.app.validators.sort_col, ValCol::Validator);
    let sorted = h.app.validators.ordered_ids();
    assert!(
        sorted[0].starts_with("acme") && sorted[1].starts_with("zephyr"),
        "{sorted:?}"
    );
    h.key(KeyCode::Char('O'));
    assert!(h.app.validators.ordered_ids()[0].starts_with("zephyr"));
    h.key(KeyCode::Char('g'));
    h.key(KeyCode::Char('y'));
    assert!(h.copied.last().is_some_and(|c| c.starts_with("zephyr")));
    // A refresh keeps the filter; Esc clears it.
    h.key(KeyCode::Char('r'));
    assert_eq!(faucet_requests(&h), before + 1);
    assert_eq!(h.app.validators.ordered_ids().len(), 2);
    h.key(KeyCode::Esc);
    assert_eq!(h.app.validators.filter_text(), None);
    assert_eq!(h.app.validators.ordered_ids().len(), all);
    // Esc while typing drops the filter too; a bad regular expression is shown, not applied.
    h.key(KeyCode::Char('/'));
    h.type_text("re:(");
    assert_eq!(h.app.validators.ordered_ids().len(), all);
    assert!(h.screen(120, 40).contains("bad regular expression"));
    h.key(KeyCode::Esc);
    assert!(!h.app.validators.is_filtering());
    assert_eq!(h.app.validators.ordered_ids().len(), all);
}

#[test]
fn an_empty_list_is_refused_before_sending_and_the_scan_400_is_shown_plainly() {
    let mut h = Harness::start();
    h.cmd(Command::Pane6);
    assert_eq!(faucet_requests(&h), 1, "the first show queries");
    h.key(KeyCode::Char('r'));
    assert_eq!(faucet_requests(&h), 2, "r runs the query again");
    let shown = h.app.validators.tab_count(&h.app.sh);
    assert!(shown.is_some_and(|n| n > 0), "{shown:?}");
    h.cmd(Command::Edit);
    clear_input(&mut h);
    h.key(KeyCode::Enter);
    assert!(h.app.validators.form_open());
    assert_eq!(faucet_requests(&h), 2);
    let screen = h.screen(80, 24);
    assert!(
        screen.contains("enter at least one validator party id"),
        "{screen}"
    );
    assert_snapshot!("validators_form_invalid_80x24", stable_hms(&screen));

    // What the demo answers to an empty list (a request that bypasses the form).
    h.type_text("zeph");
    h.key(KeyCode::Tab);
    let effects = h.app.update(Action::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    let id = effects
        .into_iter()
        .find_map(|e| match e {
            Effect::Fetch { id, .. } => Some(id),
            _ => None,
        })
        .expect("sent");
    let request = req::validator_faucets(&[]);
    let result = h.rt.block_on(execute(&h.clients, &request));
    assert!(
        matches!(&result, Err(ApiError::Scan { status: 400, .. })),
        "{result:?}"
    );
    h.act(Action::Fetched(Box::new(Fetched {
        id,
        request,
        result,
        elapsed_ms: 1,
    })));
    assert_eq!(
        h.app.validators.error.as_deref(),
        Some("the scan rejected the query (HTTP 400): Missing query parameter: validator_ids")
    );
    assert_eq!(
        h.app.validators.tab_count(&h.app.sh),
        shown,
        "the rows shown before the failed query stay, and so does their count"
    );
    let screen = h.screen(80, 24);
    assert!(
        screen.contains("the scan rejected the query (HTTP 400)"),
        "{screen}"
    );
}

#[test]
fn a_scan_without_the_endpoint_says_so() {
    let mut h = Harness::start_with(Options {
        tweak: Box::new(|s| {
            let old = format!("{}/old", s.scan_url.as_ref().expect("scan").as_str());
            s.scan_url = Some(old.parse().expect("url"));
        }),
        ..Options::default()
    });
    h.cmd(Command::Pane6);
    h.cmd(Command::Edit);
    let screen = h.screen(80, 24);
    assert!(
        screen.contains("no ValidatorLicense seen in the loaded history"),
        "{screen}"
    );
    h.type_text("v::1220aa");
    h.key(KeyCode::Enter);
    assert_eq!(
        h.app.validators.error.as_deref(),
        Some("this scan does not serve /v0/validators/validator-faucets")
    );
    assert!(h.screen(120, 40).contains("this scan does not serve"));
}

// ---------------------------------------------------------------------------------------------
// The pane alone, with canned answers
// ---------------------------------------------------------------------------------------------

fn shared() -> Shared {
    Shared::new(
        AppContext {
            scan_urls: vec!["http://scan.example".into()],
            ..AppContext::default()
        },
        parse_time_micros("2026-01-05T10:00:00Z").expect("t"),
    )
}

fn faucets(rows: &[(&str, i64, i64, i64, i64)]) -> Result<Response, ApiError> {
    Ok(Response::from(ValidatorFaucets {
        validators_received_faucets: rows
            .iter()
            .map(|(v, c, m, f, l)| ValidatorReceivedFaucets {
                validator: (*v).into(),
                num_rounds_collected: *c,
                num_rounds_missed: *m,
                first_collected_in_round: *f,
                last_collected_in_round: *l,
                ..ValidatorReceivedFaucets::default()
            })
            .collect(),
        ..ValidatorFaucets::default()
    }))
}

#[test]
fn canned_answer_layout_and_sanitised_server_strings() {
    let mut sh = shared();
    let mut p = ValidatorsPane::new(&sh);
    let evil = "evil\u{1b}[2J\u{1b}]52;c;aGk=\u{7}::1220ab";
    let mut out = Out::default();
    p.run(
        vec![
            "good::1".into(),
            "flaky::2".into(),
            evil.into(),
            "gone::3".into(),
        ],
        &mut sh,
        &mut out,
    );
    let id = sent(&out);
    p.on_fetched(
        &fetched(
            id,
            &req::ledger_end(),
            &faucets(&[
                ("good::1", 100, 0, 1, 100),
                ("flaky::2", 50, 50, 1, 100),
                (evil, 95, 5, 1, 100),
            ]),
        ),
        &mut sh,
        &mut Out::default(),
    );
    assert_eq!(p.onboarded(), 3);
    assert_eq!(
        p.ordered_ids(),
        vec!["flaky::2", evil, "good::1", "gone::3"]
    );
    // The selection is drawn over a row's styles: select the last row.
    p.on_command(Command::Bottom, &mut sh, &mut Out::default());
    let buf = render(&p, &sh, 100, 10);
    for cell in buf.content() {
        assert!(
            !cell.symbol().chars().any(char::is_control),
            "{:?}",
            cell.symbol()
        );
    }
    let text = buffer_text(&buf);
    assert!(text.contains("gone::3"), "{text}");
    assert!(text.contains(NOT_ONBOARDED), "{text}");
    assert_snapshot!("validators_canned_100x10", text);
    // Missed rounds: 95% liveness is a warning, 50% an error, none is plain.
    let theme = Theme::default();
    let find = |needle: &str| -> (u16, u16) {
        for y in 0..buf.area.height {
            let line: String = (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect();
            if let Some(b) = line.find(needle) {
                return (line[..b].chars().count() as u16, y);
            }
        }
        panic!("{needle} not on screen");
    };
    let (_, y_flaky) = find("flaky::2");
    let (x_pct, _) = find("50.0%");
    assert_eq!(
        buf[(x_pct, y_flaky)].fg,
        theme.status_err.fg.unwrap_or_default()
    );
    let (x95, y95) = find("95.0%");
    assert_eq!(buf[(x95, y95)].fg, theme.status_warn.fg.unwrap_or_default());
    let (xg, yg) = find("100.0%");
    assert_eq!(buf[(xg, yg)].fg, theme.muted.fg.unwrap_or_default());
    // Copy gives sanitised text.
    let mut out = Out::default();
    p.on_command(Command::Top, &mut sh, &mut out);
    p.on_command(Command::Down, &mut sh, &mut out);
    p.on_command(Command::Copy, &mut sh, &mut out);
    assert!(
        out.effects.iter().any(
            |e| matches!(e, Effect::Copy(t) if t.starts_with("evil") && !t.contains('\u{1b}'))
        )
    );
    // An error with escapes.
    let mut out = Out::default();
    p.run(vec!["a::1".into()], &mut sh, &mut out);
    p.on_fetched(
        &fetched(
            sent(&out),
            &req::ledger_end(),
            &Err(ApiError::Scan {
                endpoint: "scan GET /v0/validators/validator-faucets",
                status: 400,
                message: "bad\u{1b}[31m id\u{7}".into(),
            }),
        ),
        &mut sh,
        &mut Out::default(),
    );
    assert!(p.error.as_ref().is_some_and(|e| !e.contains('\u{1b}')));
    let buf = render(&p, &sh, 80, 24);
    assert!(
        buf.content()
            .iter()
            .all(|c| !c.symbol().chars().any(char::is_control))
    );
}

#[test]
fn stale_replies_are_ignored_and_tiny_sizes_never_panic() {
    let mut sh = shared();
    let mut p = ValidatorsPane::new(&sh);
    let mut out = Out::default();
    p.run(vec!["a::1".into()], &mut sh, &mut out);
    let old = sent(&out);
    let mut out = Out::default();
    p.run(vec!["b::2".into()], &mut sh, &mut out);
    let new = sent(&out);
    assert!(out.effects.contains(&Effect::Cancel(old)));
    p.on_fetched(
        &fetched(old, &req::ledger_end(), &faucets(&[("a::1", 1, 0, 1, 1)])),
        &mut sh,
        &mut Out::default(),
    );
    assert!(p.rows.is_empty() && p.is_loading());
    assert_eq!(p.tab_count(&sh), None, "loading: no count yet");
    p.on_fetched(
        &fetched(new, &req::ledger_end(), &faucets(&[("b::2", 3, 1, 1, 4)])),
        &mut sh,
        &mut Out::default(),
    );
    assert_eq!(p.ordered_ids(), vec!["b::2"]);
    assert_eq!(p.tab_count(&sh), Some(1));
    for form in [false, true] {
        if form {
            p.open_form(&sh);
        }
        for (w, hgt) in [
            (1, 1),
            (0, 5),
            (5, 0),
            (3, 3),
            (10, 4),
            (20, 6),
            (40, 8),
            (80, 3),
        ] {
            let mut buf = Buffer::empty(Rect::new(0, 0, w.max(1), hgt.max(1)));
            p.render(
                Rect::new(0, 0, w, hgt),
                &mut buf,
                RenderCtx::new(&sh, &Theme::default(), true),
            );
        }
    }
}

/// Issue 21 (k9s habit): `o` then a column's letter sorts by that column — in its first
/// direction, the other way when pressed again — and the letters are named after `o` (and
/// underlined in the header). A key that is no letter after `o` does what it always does.
#[test]
fn o_then_a_column_letter_sorts_by_that_column_and_again_the_other_way() {
    let mut h = Harness::start();
    query_all(&mut h);
    let missed = |h: &Harness| -> Vec<i64> {
        let p = &h.app.validators;
        p.ordered_ids()
            .iter()
            .map(|id| stats_of(p, id).num_rounds_missed)
            .collect()
    };
    h.key(KeyCode::Char('o'));
    let said = toast(&h);
    assert!(said.contains("[M]issed"), "{said}");
    assert!(said.contains("[V]alidator"), "{said}");
    h.key(KeyCode::Char('m'));
    assert_eq!(h.app.validators.sort_col, ValCol::Missed);
    let v = missed(&h);
    assert!(
        v.windows(2).all(|w| w[0] >= w[1]),
        "most missed first {v:?}"
    );
    let screen = h.screen(120, 40);
    assert!(screen.contains("Missed ▼"), "{screen}");
    // The letter is underlined in the header.
    let buf = h.draw(120, 40);
    let header_y = (0..40)
        .find(|&y| buffer_line(&buf, y).contains("Missed ▼"))
        .expect("the header");
    let x = buffer_line(&buf, header_y).find("Missed ▼").unwrap();
    let x = buffer_line(&buf, header_y)[..x].chars().count() as u16;
    assert!(
        buf[(x, header_y)]
            .modifier
            .contains(ratatui::style::Modifier::UNDERLINED)
    );
    assert_snapshot!("validators_sorted_by_letter_120x40", stable_hms(&screen));
    // Again: the other way.
    h.key(KeyCode::Char('o'));
    h.key(KeyCode::Char('m'));
    assert_eq!(h.app.validators.sort_col, ValCol::Missed);
    let v = missed(&h);
    assert!(
        v.windows(2).all(|w| w[0] <= w[1]),
        "least missed first {v:?}"
    );
    assert!(h.screen(120, 40).contains("Missed ▲"));
    // A letter without `o` before it is no sort; `o` then `j` still moves down.
    h.key(KeyCode::Char('v'));
    assert_eq!(h.app.validators.sort_col, ValCol::Missed);
    // (`v` alone lists the row's fields whole; Esc closes that list.)
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('o'));
    h.key(KeyCode::Char('v'));
    assert_eq!(h.app.validators.sort_col, ValCol::Validator);
    let before = h.app.validators.selected_id().map(str::to_owned);
    h.key(KeyCode::Char('o'));
    h.key(KeyCode::Char('j'));
    assert_ne!(h.app.validators.selected_id().map(str::to_owned), before);
}

fn buffer_line(buf: &ratatui::buffer::Buffer, y: u16) -> String {
    (0..buf.area.width)
        .map(|x| buf[(x, y)].symbol().to_string())
        .collect()
}
