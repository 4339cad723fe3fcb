//! The Holdings pane (5) against the demo network: the empty state and the query form
//! (snapshots), defaults (current migration, now, at_or_before), Tab completion from the loaded
//! history's parties, the query and its exact totals (snapshots at 80x24 and 120x40), sorting,
//! the `/` filter, copying, refreshing, client-side validation, every error shape the demo
//! answers (400, 404 no snapshot, 404 route not served by an old scan), stale replies, sanitised
//! server strings and tiny sizes.

use cantonscope::api::ApiError;
use cantonscope::api::scan::{HoldingsSummary, HoldingsSummaryResponse};
use cantonscope::app::App;
use cantonscope::model::summary::{format_time_micros, parse_time_micros};
use cantonscope::msg::Action;
use cantonscope::msg::Command;
use cantonscope::msg::{Effect, Fetched, Response};
use cantonscope::panes::form::QueryPane;
use cantonscope::panes::holdings::{
    Field, HoldCol, HoldingsPane, HoldingsQuery, NO_HOLDINGS, NOT_SERVED_TEXT, TimeSpec,
};
use cantonscope::panes::{AppContext, Out, Pane, RenderCtx, Shared};
use cantonscope::runtime::fetch::execute;
use cantonscope::ui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::common::pane::{fetched, render, sent};
use crate::common::requests as req;
use crate::common::{Harness, Options, assert_snapshot, buffer_text, stable_hms};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// For screens with amounts: the demo's ACS snapshots sit on a wall-clock 10-minute grid while
/// its history is generated relative to now, so amounts (and with them the column widths and
/// where party ids are cut) differ between runs. Masks fingerprints and numbers and collapses
/// spaces; the structure (rows, columns, totals, notes) stays.
fn masked(screen: &str) -> String {
    let s = stable_hms(screen);
    let s = regex::Regex::new(r"::[0-9a-f]*…?")
        .expect("regex")
        .replace_all(&s, "::<fp>");
    let s = regex::Regex::new(r"-?\d[\d,]*(\.\d+)?")
        .expect("regex")
        .replace_all(&s, "#");
    regex::Regex::new(r" +")
        .expect("regex")
        .replace_all(&s, " ")
        .into_owned()
}

/// The full id of the loaded-history party whose id starts with `name::`.
fn party(h: &Harness, name: &str) -> String {
    h.app
        .sh
        .history
        .parties()
        .into_iter()
        .find(|p| p.starts_with(&format!("{name}::")))
        .unwrap_or_else(|| panic!("party {name} in the loaded history"))
        .to_string()
}

fn holdings_requests(h: &Harness) -> usize {
    h.requests.iter().filter(|r| r.contains("holdings")).count()
}

fn ctrl(h: &mut Harness, c: char) {
    h.key_mod(KeyCode::Char(c), KeyModifiers::CONTROL);
}

/// Empties the focused form field (Ctrl-a, Ctrl-k).
fn clear_field(h: &mut Harness) {
    ctrl(h, 'a');
    ctrl(h, 'k');
}

/// Leaves History with no update selected (a filter nothing matches), so Holdings opens empty
/// on first show instead of querying the selected update's parties.
fn no_selection(h: &mut Harness) {
    h.cmd(Command::Pane1);
    h.key(KeyCode::Char('/'));
    h.type_text("no-such-party-zzzz");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.history.selected_update_id(&h.app.sh), None);
}

/// Opens the form and queries the owners named (completed with Tab from their names).
fn query(h: &mut Harness, names: &[&str]) {
    h.cmd(Command::Pane5);
    h.cmd(Command::Edit);
    assert!(h.app.holdings.form_open());
    clear_field(h);
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            h.type_text(" ");
        }
        h.type_text(n);
        h.key(KeyCode::Tab);
    }
    h.key(KeyCode::Enter);
    assert!(
        !h.app.holdings.form_open(),
        "the form closes on a valid query"
    );
}

/// Sums Daml decimal strings exactly with plain integers (independent of the pane's code).
fn exact_sum(values: &[&str]) -> i128 {
    values
        .iter()
        .map(|v| {
            let (int, frac) = v.split_once('.').unwrap_or((v, ""));
            let frac = format!("{frac:0<18}");
            let int: i128 = int.parse().expect("integer part");
            let frac: i128 = frac.parse().expect("fraction");
            int * 10i128.pow(18) + if int < 0 { -frac } else { frac }
        })
        .sum()
}

fn scaled(plain: &str) -> i128 {
    exact_sum(&[plain])
}

// ---------------------------------------------------------------------------------------------
// Flows against the demo
// ---------------------------------------------------------------------------------------------

#[test]
fn empty_state_explains_how_to_start_and_the_form_has_defaults() {
    let mut h = Harness::start();
    no_selection(&mut h);
    h.cmd(Command::Pane5);
    let screen = h.screen(80, 24);
    assert!(
        screen.contains("No holdings query yet. Press i (edit)"),
        "{screen}"
    );
    assert_snapshot!("holdings_empty_80x24", stable_hms(&screen));
    assert_eq!(
        h.app.holdings.hints(),
        vec![Command::Edit],
        "nothing to sort or copy yet"
    );
    assert_eq!(h.app.holdings.tab_count(&h.app.sh), None);

    h.key(KeyCode::Char('i'));
    let p = &h.app.holdings;
    assert!(p.form_open() && p.wants_raw_keys());
    let newest = h
        .app
        .sh
        .history
        .last()
        .expect("history loaded")
        .migration_id();
    assert_eq!(p.form.migration(), newest.to_string(), "current migration");
    assert_eq!(p.form.time(), "now");
    assert!(!p.form.exact(), "at_or_before by default");
    assert_eq!(p.form.field(), Field::Owners);
    assert_eq!(
        p.hints(),
        vec![Command::Confirm, Command::Cancel, Command::Complete]
    );
    let screen = h.screen(80, 24);
    assert!(screen.contains("Holdings query"), "{screen}");
    assert!(screen.contains("Tab completes from the"), "{screen}");
    assert_snapshot!("holdings_form_80x24", stable_hms(&screen));

    // Esc closes the form, keeping what was typed.
    h.type_text("ali");
    h.key(KeyCode::Esc);
    assert!(!h.app.holdings.form_open());
    assert_eq!(h.app.holdings.form.owners(), "ali");
    assert_eq!(holdings_requests(&h), 0);
}

#[test]
fn with_nothing_selected_the_pane_says_so_and_queries_once_an_update_is_selected() {
    let mut h = Harness::start();
    no_selection(&mut h);
    h.cmd(Command::Pane5);
    assert_eq!(holdings_requests(&h), 0);
    assert!(
        h.screen(80, 24)
            .contains("No update is selected in History")
    );
    // Select an update in History (drop the filter) and come back: the query runs.
    h.cmd(Command::Pane1);
    h.key(KeyCode::Esc);
    assert!(h.app.history.selected_update_id(&h.app.sh).is_some());
    h.cmd(Command::Pane5);
    assert_eq!(holdings_requests(&h), 1);
    assert!(h.app.holdings.start_note.is_none());
    assert!(
        !h.screen(80, 24)
            .contains("No update is selected in History")
    );
}

#[test]
fn first_show_queries_the_parties_of_the_update_selected_in_history() {
    let mut h = Harness::start();
    let selected = h
        .app
        .history
        .selected_update_id(&h.app.sh)
        .expect("History selects an update");
    let parties: Vec<String> = h
        .app
        .sh
        .history
        .parties_of_update(&selected)
        .into_iter()
        .map(str::to_string)
        .collect();
    assert!(parties.len() > 1, "{parties:?}");
    // No `i`, no Enter: the first show asks for the selected update's parties.
    h.cmd(Command::Pane5);
    assert_eq!(holdings_requests(&h), 1);
    let p = &h.app.holdings;
    assert!(!p.form_open());
    let q = p.query.as_ref().expect("queried at once");
    assert_eq!(q.owners, parties);
    assert_eq!(q.time, TimeSpec::Now);
    assert!(p.result.is_some(), "{:?}", p.error);
    let screen = h.screen(80, 24);
    assert!(!screen.contains("No holdings query yet"), "{screen}");
    assert!(
        screen.contains("holdings of the"),
        "the status line says why: {screen}"
    );
    assert_snapshot!("holdings_first_show_80x24", masked(&screen));
    assert_snapshot!("holdings_first_show_120x40", masked(&h.screen(120, 40)));
    // Shown again: no new query.
    h.cmd(Command::Pane1);
    h.cmd(Command::Pane5);
    assert_eq!(holdings_requests(&h), 1);
    // The form keeps them, listed with a count (not only the last one).
    h.cmd(Command::Edit);
    assert_eq!(h.app.holdings.form.owners(), parties.join(" "));
    let screen = h.screen(80, 24);
    assert!(
        screen.contains(&format!("{} owners: ", parties.len())),
        "{screen}"
    );
    assert_snapshot!("holdings_form_prefilled_80x24", masked(&screen));
}

/// The decimals of every amount on a screen row (the numbers with a decimal point).
fn decimals(row: &str) -> Vec<usize> {
    row.split(['│', ' '])
        .filter(|t| t.starts_with(|c: char| c.is_ascii_digit() || c == '-'))
        .filter(|t| {
            t.chars()
                .all(|c| c.is_ascii_digit() || c == ',' || c == '.' || c == '-')
        })
        .map(|t| t.split_once('.').map_or(0, |(_, f)| f.len()))
        .collect()
}

/// Every owner asked for has a row, the ones without holdings too (the DSO party of the first
/// update: before, `holdings of the 4 parties` showed 3 rows), and every amount of the table,
/// the totals included, has the same number of decimals.
#[test]
fn every_owner_asked_for_has_a_row_and_the_table_has_one_number_of_decimals() {
    let mut h = Harness::start();
    h.cmd(Command::Pane5);
    let p = &h.app.holdings;
    let owners = p.query.as_ref().expect("queried at once").owners.clone();
    let r = p.result.clone().expect("answered");
    assert!(!r.missing.is_empty(), "some owner has no holdings");
    assert!(!r.rows.is_empty(), "some owner has holdings");
    let mut shown: Vec<String> = p
        .ordered_parties()
        .iter()
        .map(ToString::to_string)
        .collect();
    shown.sort();
    let mut asked = owners.clone();
    asked.sort();
    assert_eq!(shown, asked, "one row per owner asked for");
    let screen = h.screen(120, 40);
    let n = owners.len();
    assert!(
        screen.contains(&format!("Holdings · {n} parties")),
        "{screen}"
    );
    assert!(screen.contains(&format!("Total ({n} parties)")), "{screen}");
    assert!(
        screen.contains(&format!("holdings of the {n} parties")),
        "{screen}"
    );
    for m in &r.missing {
        let name = m.split("::").next().unwrap_or(m);
        let row = screen
            .lines()
            .find(|l| l.contains(&format!("{name}::")))
            .unwrap_or_else(|| panic!("a row for {m}: {screen}"));
        assert!(row.contains(NO_HOLDINGS), "{row}");
    }
    let amounts: Vec<Vec<usize>> = screen
        .lines()
        .filter(|l| !l.contains(NO_HOLDINGS))
        .filter(|l| l.contains("::") || l.contains("Total ("))
        .map(decimals)
        .filter(|d| d.len() == 3)
        .collect();
    assert_eq!(
        amounts.len(),
        r.rows.len() + 1,
        "rows and the total: {screen}"
    );
    // One number of decimals for the whole table (Locked reads like Unlocked).
    let first = amounts[0][0];
    assert!(
        amounts.iter().all(|d| d.iter().all(|n| *n == first)),
        "the table has one number of decimals: {amounts:?}\n{screen}"
    );
}

/// `5` from the Update pane queries the parties of the update open there, not History's
/// selection; from History it follows History's selection (a query of its own, since the
/// update changed); a query the user entered stays when the pane is shown again.
#[test]
fn five_queries_the_update_in_view_the_one_open_in_update_first() {
    use cantonscope::panes::PaneId;
    let mut h = Harness::start();
    let parties_of = |h: &Harness, u: &str| -> Vec<String> {
        h.app
            .sh
            .history
            .parties_of_update(u)
            .into_iter()
            .map(str::to_string)
            .collect()
    };
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Update);
    let open = h.app.sh.current_update.clone().expect("an update is open");
    // History moves on to an update with other parties.
    h.cmd(Command::Pane1);
    let mut selected = open.clone();
    for _ in 0..200 {
        h.key(KeyCode::Up);
        selected = h
            .app
            .history
            .selected_update_id(&h.app.sh)
            .expect("selected");
        if parties_of(&h, &selected) != parties_of(&h, &open) {
            break;
        }
    }
    assert_ne!(parties_of(&h, &selected), parties_of(&h, &open));
    h.cmd(Command::Pane2);
    h.cmd(Command::Pane5);
    let q = h.app.holdings.query.clone().expect("queried");
    assert_eq!(q.owners, parties_of(&h, &open), "the open update's parties");
    assert_eq!(holdings_requests(&h), 1);
    // From History: its selection.
    h.cmd(Command::Pane1);
    h.cmd(Command::Pane5);
    let q = h.app.holdings.query.clone().expect("queried");
    assert_eq!(q.owners, parties_of(&h, &selected), "History's selection");
    assert_eq!(holdings_requests(&h), 2);
    // The same update again: no new query.
    h.cmd(Command::Pane1);
    h.cmd(Command::Pane5);
    assert_eq!(holdings_requests(&h), 2);
    // A query the user entered stays.
    query(&mut h, &["alice"]);
    assert_eq!(holdings_requests(&h), 3);
    h.cmd(Command::Pane2);
    h.cmd(Command::Pane5);
    assert_eq!(holdings_requests(&h), 3);
    assert_eq!(
        h.app.holdings.query.as_ref().map(|q| q.owners.clone()),
        Some(vec![party(&h, "alice")])
    );
}

#[test]
fn tab_completes_owners_from_the_loaded_history_and_cycles() {
    let mut h = Harness::start();
    no_selection(&mut h);
    let alice = party(&h, "alice");
    h.cmd(Command::Pane5);
    h.cmd(Command::Edit);
    h.type_text("alic");
    h.key(KeyCode::Tab);
    assert_eq!(h.app.holdings.form.owners(), alice);
    // A second word: candidates that start with it, cycling with Tab, back with Shift-Tab.
    h.type_text(" ivan");
    h.key(KeyCode::Tab);
    let first = h.app.holdings.form.owners();
    h.key(KeyCode::Tab);
    let second = h.app.holdings.form.owners();
    assert_ne!(first, second, "Tab cycles between ivan and ivan-2");
    assert!(first.starts_with(&format!("{alice} ivan")));
    assert!(second.starts_with(&format!("{alice} ivan")));
    h.key(KeyCode::BackTab);
    assert_eq!(h.app.holdings.form.owners(), first);
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("1/2 "),
        "the candidates are listed: {screen}"
    );
    // Nothing matches: the form says so and leaves the text alone.
    h.type_text(" zzzz");
    h.key(KeyCode::Tab);
    assert!(h.app.holdings.form.owners().ends_with(" zzzz"));
    let screen = h.screen(120, 40);
    assert!(screen.contains("no known id matches"), "{screen}");
    // Tab on another field moves on instead; ↑/↓ move too.
    h.key(KeyCode::Down);
    assert_eq!(h.app.holdings.form.field(), Field::Migration);
    h.key(KeyCode::Tab);
    assert_eq!(h.app.holdings.form.field(), Field::Time);
    h.key(KeyCode::Tab);
    assert_eq!(h.app.holdings.form.field(), Field::Match);
    h.key(KeyCode::Char(' '));
    assert!(h.app.holdings.form.exact(), "space toggles the match mode");
    h.key(KeyCode::Right);
    assert!(!h.app.holdings.form.exact());
    h.key(KeyCode::Up);
    assert_eq!(h.app.holdings.form.field(), Field::Time);
}

#[test]
fn query_shows_exact_totals_badge_and_snapshots() {
    let mut h = Harness::start();
    no_selection(&mut h);
    let names = ["alice", "chen", "judy"];
    let ids: Vec<String> = names.iter().map(|n| party(&h, n)).collect();
    query(&mut h, &names);
    assert_eq!(
        h.requests.last().map(String::as_str),
        Some("holdings summary")
    );
    let p = &h.app.holdings;
    let q = p.query.as_ref().expect("query kept");
    assert_eq!(q.owners, ids, "the completed ids, in order");
    assert_eq!(q.time, TimeSpec::Now);
    assert!(!q.exact);
    assert!(p.error.is_none(), "{:?}", p.error);
    let r = p.result.as_ref().expect("answer");
    assert!(!r.rows.is_empty(), "the demo users hold amulets");
    assert_eq!(r.rows.len() + r.missing.len(), ids.len());
    assert!(r.rows.iter().all(|row| ids.contains(&row.party)));
    // The echoed record time is the time the query was sent ("now").
    let sent = parse_time_micros(&r.record_time).expect("record time");
    assert!((sent - h.now).abs() < 5_000_000);
    // Totals: the exact sums of the server's strings.
    for (k, pick) in [
        |row: &cantonscope::panes::holdings::HoldingRow| row.unlocked.raw.clone(),
        |row: &cantonscope::panes::holdings::HoldingRow| row.locked.raw.clone(),
        |row: &cantonscope::panes::holdings::HoldingRow| row.total.raw.clone(),
    ]
    .iter()
    .enumerate()
    {
        let raws: Vec<String> = r.rows.iter().map(pick).collect();
        let refs: Vec<&str> = raws.iter().map(String::as_str).collect();
        let total = r.totals[k].expect("every amount parses");
        assert_eq!(scaled(&total.plain()), exact_sum(&refs), "column {k}");
    }
    for row in &r.rows {
        assert!(
            row.consistent(),
            "total = unlocked + locked for {}",
            row.party
        );
    }
    let n = r.rows.len();
    assert_eq!(h.app.holdings.tab_count(&h.app.sh), Some(n));
    assert_eq!(
        h.app.holdings.hints(),
        vec![
            Command::Edit,
            Command::Sort,
            Command::SortReverse,
            Command::Copy,
            Command::Refresh
        ]
    );

    let total_text = {
        let (int, frac) = r.totals[2].expect("total").parts();
        if frac.is_empty() {
            int
        } else {
            format!("{int}.{frac}")
        }
    };
    let screen = h.screen(120, 40);
    assert!(
        screen.contains(&format!("5 Holdings {n}")),
        "badge on the tab: {screen}"
    );
    let totals_line = screen
        .lines()
        .find(|l| l.contains("Total ("))
        .expect("totals row");
    assert!(totals_line.contains(&total_text), "{totals_line}");
    assert!(screen.contains("at or before"), "{screen}");
    assert!(
        screen.contains("Total ▼"),
        "sorted by total, descending: {screen}"
    );
    // The order by total changes with the amounts: snapshot the rows by party.
    h.key(KeyCode::Char('o'));
    let screen = h.screen(120, 40);
    assert!(screen.contains("Party ▲"), "{screen}");
    assert_snapshot!("holdings_result_120x40", masked(&screen));
    let screen = h.screen(80, 24);
    assert!(screen.contains("Total ("), "{screen}");
    assert_snapshot!("holdings_result_80x24", masked(&screen));
}

#[test]
fn sort_cycles_columns_reverse_flips_and_copy_takes_the_selected_party() {
    let mut h = Harness::start();
    query(&mut h, &["alice", "chen", "judy", "ivan", "olivia"]);
    let totals = |h: &Harness| -> Vec<i128> {
        let r = h.app.holdings.result.as_ref().expect("result");
        h.app
            .holdings
            .ordered_parties()
            .iter()
            .map(|p| {
                let row = r.rows.iter().find(|x| x.party == *p).expect("row");
                scaled(&row.total.raw)
            })
            .collect()
    };
    assert!(h.app.holdings.ordered_parties().len() >= 2, "several rows");
    let t = totals(&h);
    assert!(
        t.windows(2).all(|w| w[0] >= w[1]),
        "total descending: {t:?}"
    );

    h.key(KeyCode::Char('o'));
    assert_eq!(h.app.holdings.sort_col, HoldCol::Party);
    let parties: Vec<String> = h
        .app
        .holdings
        .ordered_parties()
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    let mut sorted = parties.clone();
    sorted.sort();
    assert_eq!(parties, sorted, "party ascending");
    assert!(h.screen(120, 40).contains("Party ▲"));

    h.key(KeyCode::Char('O'));
    let mut rev = sorted.clone();
    rev.reverse();
    assert_eq!(h.app.holdings.ordered_parties(), rev, "reversed");

    // o: unlocked, locked, total, party again.
    h.key(KeyCode::Char('o'));
    assert_eq!(h.app.holdings.sort_col, HoldCol::Unlocked);
    h.key(KeyCode::Char('o'));
    assert_eq!(h.app.holdings.sort_col, HoldCol::Locked);
    h.key(KeyCode::Char('o'));
    assert_eq!(h.app.holdings.sort_col, HoldCol::Total);
    h.key(KeyCode::Char('O'));
    let t = totals(&h);
    assert!(t.windows(2).all(|w| w[0] <= w[1]), "total ascending: {t:?}");

    // Copy: the selected row's party id (the selection followed its party through the sorts:
    // go to the top first); moving down selects the next.
    h.key(KeyCode::Char('g'));
    h.key(KeyCode::Char('y'));
    let first = h.app.holdings.ordered_parties()[0].to_string();
    assert_eq!(h.copied.last(), Some(&first));
    h.key(KeyCode::Char('j'));
    h.key(KeyCode::Char('y'));
    let second = h.app.holdings.ordered_parties()[1].to_string();
    assert_eq!(h.copied.last(), Some(&second));
    // Sorting keeps the selected party selected.
    h.key(KeyCode::Char('O'));
    assert_eq!(h.app.holdings.selected_party(), Some(second.as_str()));
}

#[test]
fn slash_filters_parties_and_amounts_and_sorting_applies_to_what_is_shown() {
    let mut h = Harness::start();
    query(&mut h, &["alice", "chen", "judy", "ivan", "olivia"]);
    let all = h.app.holdings.ordered_parties().len();
    let before = holdings_requests(&h);
    h.key(KeyCode::Char('/'));
    assert!(h.app.holdings.is_filtering());
    // Every key goes to the input: `r` does not refresh, `:` does not open the palette.
    h.type_text("re:^(alice|chen)::");
    assert_eq!(holdings_requests(&h), before);
    assert!(h.app.overlay.is_none());
    let shown: Vec<String> = h
        .app
        .holdings
        .ordered_parties()
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    assert_eq!(shown.len(), 2, "{shown:?}");
    assert!(
        shown
            .iter()
            .all(|p| p.starts_with("alice::") || p.starts_with("chen::"))
    );
    assert!(
        h.screen(120, 40).contains(&format!("2 of {all} match")),
        "the bar counts the matches"
    );
    h.key(KeyCode::Enter);
    assert!(!h.app.holdings.is_filtering());
    // Sorting applies to the filtered rows.
    h.key(KeyCode::Char('o'));
    assert_eq!(h.app.holdings.sort_col, HoldCol::Party);
    assert!(h.app.holdings.ordered_parties()[0].starts_with("alice::"));
    h.key(KeyCode::Char('O'));
    assert!(h.app.holdings.ordered_parties()[0].starts_with("chen::"));
    h.key(KeyCode::Char('g'));
    h.key(KeyCode::Char('y'));
    assert!(h.copied.last().is_some_and(|p| p.starts_with("chen::")));
    // The amounts as the server sent them match too.
    h.key(KeyCode::Esc);
    assert_eq!(h.app.holdings.ordered_parties().len(), all);
    let (alice, total) = {
        let r = h.app.holdings.result.as_ref().expect("result");
        let row = r
            .rows
            .iter()
            .find(|row| row.party.starts_with("alice::"))
            .expect("alice holds amulets");
        (row.party.clone(), row.total.raw.clone())
    };
    h.key(KeyCode::Char('/'));
    h.type_text(&total);
    h.key(KeyCode::Enter);
    assert!(h.app.holdings.ordered_parties().contains(&alice.as_str()));
    assert_eq!(h.app.holdings.filter_text(), Some(total.as_str()));
    h.key(KeyCode::Esc);
    assert_eq!(h.app.holdings.filter_text(), None);
}

#[test]
fn refresh_reruns_the_query_reading_now_again() {
    let mut h = Harness::start();
    no_selection(&mut h);
    h.cmd(Command::Pane5);
    h.key(KeyCode::Char('r'));
    assert_eq!(holdings_requests(&h), 0, "no query yet: nothing to refresh");
    query(&mut h, &["alice"]);
    assert_eq!(holdings_requests(&h), 1);
    let before = h
        .app
        .holdings
        .result
        .as_ref()
        .expect("r")
        .record_time
        .clone();
    h.tick(90.0);
    h.key(KeyCode::Char('r'));
    assert_eq!(holdings_requests(&h), 2);
    let after = h
        .app
        .holdings
        .result
        .as_ref()
        .expect("r")
        .record_time
        .clone();
    assert_ne!(before, after, "`now` is read again on refresh");
    let d = parse_time_micros(&after).expect("t") - parse_time_micros(&before).expect("t");
    assert!((d - 90_000_000).abs() < 5_000_000, "{before} → {after}");
}

#[test]
fn the_form_validates_before_sending() {
    let mut h = Harness::start();
    no_selection(&mut h);
    h.cmd(Command::Pane5);
    h.cmd(Command::Edit);
    // No owners: the API needs at least one; the form says so and sends nothing.
    h.key(KeyCode::Enter);
    assert!(h.app.holdings.form_open());
    assert_eq!(holdings_requests(&h), 0);
    let screen = h.screen(80, 24);
    assert!(
        screen.contains("enter at least one owner party id"),
        "{screen}"
    );
    h.type_text("not-a-party");
    h.key(KeyCode::Enter);
    assert!(h.screen(80, 24).contains("not a party id: not-a-party"));
    clear_field(&mut h);
    h.type_text("alic");
    h.key(KeyCode::Tab);
    // A bad migration id, then a bad time: focus jumps to the field at fault.
    h.key(KeyCode::Down);
    clear_field(&mut h);
    h.type_text("one");
    h.key(KeyCode::Up);
    h.key(KeyCode::Enter);
    assert_eq!(h.app.holdings.form.field(), Field::Migration);
    assert!(
        h.screen(80, 24)
            .contains("the migration id is a whole number")
    );
    clear_field(&mut h);
    h.type_text("1");
    h.key(KeyCode::Down);
    clear_field(&mut h);
    h.type_text("soon");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.holdings.form.field(), Field::Time);
    let screen = h.screen(80, 24);
    assert!(screen.contains("not a time: soon"), "{screen}");
    assert_snapshot!("holdings_form_invalid_80x24", stable_hms(&screen));
    assert_eq!(holdings_requests(&h), 0);
    // A valid explicit time is normalised to UTC.
    clear_field(&mut h);
    h.type_text("2030-01-01T12:00:00+01:00");
    h.key(KeyCode::Enter);
    assert_eq!(holdings_requests(&h), 1);
    assert_eq!(
        h.app.holdings.query.as_ref().expect("q").time,
        TimeSpec::At("2030-01-01T11:00:00.000000Z".into())
    );
    // As `:time` reads times: a span back from the session's clock, fixed when sent.
    h.cmd(Command::Edit);
    for _ in 0..4 {
        if h.app.holdings.form.field() != Field::Time {
            h.key(KeyCode::Down);
        }
    }
    assert_eq!(h.app.holdings.form.field(), Field::Time);
    clear_field(&mut h);
    h.type_text("-2h");
    h.key(KeyCode::Enter);
    assert_eq!(holdings_requests(&h), 2);
    let two_hours_ago = format_time_micros(h.app.sh.now - 2 * 3_600_000_000);
    assert_eq!(
        h.app.holdings.query.as_ref().expect("q").time,
        TimeSpec::At(two_hours_ago)
    );
}

#[test]
fn a_400_from_the_scan_is_shown_plainly() {
    // The form never sends an empty owner list; a request that bypasses it (as a scripted
    // client could) shows what the demo answers.
    let mut h = Harness::start();
    h.cmd(Command::Pane5);
    // The first show queried the parties of the update selected in History.
    let shown = h.app.holdings.tab_count(&h.app.sh);
    assert!(shown.is_some_and(|n| n > 0), "{shown:?}");
    h.cmd(Command::Edit);
    h.type_text("alic");
    h.key(KeyCode::Tab);
    let effects = h.app.update(Action::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    let (id, request) = effects
        .into_iter()
        .find_map(|e| match e {
            Effect::Fetch { id, request } => Some((id, request)),
            _ => None,
        })
        .expect("the query is sent");
    let call = request.call().expect("a call");
    assert_eq!(call.endpoint(), "scan POST /v1/holdings/summary");
    let mut body: cantonscope::api::scan::HoldingsSummaryRequest =
        serde_json::from_slice(call.body().expect("a body")).expect("a holdings request");
    body.owner_party_ids.clear();
    let request = req::holdings(&body);
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
    let err = h.app.holdings.error.clone().expect("error shown");
    assert_eq!(
        err,
        "the scan rejected the query (HTTP 400): owner_party_ids must contain at least one party id"
    );
    assert_eq!(
        h.app.holdings.tab_count(&h.app.sh),
        shown,
        "the rows shown before the failed query stay, and so does their count"
    );
    let screen = h.screen(80, 24);
    assert!(
        screen.contains("the scan rejected the query (HTTP 400)"),
        "{screen}"
    );
    assert!(
        h.app
            .errors
            .latest()
            .is_some_and(|e| e.message.contains("HTTP 400")),
        "kept in the error log"
    );
}

#[test]
fn exact_time_without_a_snapshot_is_a_404_explained() {
    let mut h = Harness::start();
    no_selection(&mut h);
    h.cmd(Command::Pane5);
    h.cmd(Command::Edit);
    h.type_text("alic");
    h.key(KeyCode::Tab);
    // Match: exact, time: now (not a snapshot time).
    for _ in 0..3 {
        h.key(KeyCode::Down);
    }
    h.key(KeyCode::Char('e'));
    assert!(h.app.holdings.form.exact());
    h.key(KeyCode::Enter);
    let err = h.app.holdings.error.clone().expect("error");
    assert!(
        err.starts_with("no holdings snapshot (HTTP 404): No ACS snapshot found for migration id"),
        "{err}"
    );
    assert!(
        err.ends_with("(exact needs a snapshot time: try at_or_before)"),
        "{err}"
    );
    assert!(h.app.holdings.result.is_none());
    let screen = h.screen(80, 24);
    assert!(
        screen.contains("no holdings snapshot (HTTP 404)"),
        "{screen}"
    );
    assert_snapshot!("holdings_404_80x24", stable_hms(&screen));

    // A migration that does not exist: also 404, with the other hint.
    h.cmd(Command::Edit);
    h.key(KeyCode::Char(' '));
    h.key(KeyCode::Up);
    h.key(KeyCode::Up);
    clear_field(&mut h);
    h.type_text("99");
    h.key(KeyCode::Enter);
    let err = h.app.holdings.error.clone().expect("error");
    assert!(err.contains("migration id 99"), "{err}");
    assert!(
        err.ends_with("(try a later record time or another migration id)"),
        "{err}"
    );
}

#[test]
fn a_scan_too_old_for_v1_says_which_version_it_needs() {
    let mut h = Harness::start_with(Options {
        tweak: Box::new(|s| {
            // A path under which the demo serves nothing: every route answers the plain-text
            // 404 of an unknown route, as a scan without the endpoint does.
            let old = format!("{}/old", s.scan_url.as_ref().expect("scan").as_str());
            s.scan_url = Some(old.parse().expect("url"));
        }),
        ..Options::default()
    });
    h.cmd(Command::Pane5);
    h.cmd(Command::Edit);
    assert_eq!(
        h.app.holdings.form.migration(),
        "",
        "no history: no default"
    );
    h.type_text("alice::1220aa");
    h.key(KeyCode::Down);
    h.type_text("1");
    h.key(KeyCode::Enter);
    assert_eq!(holdings_requests(&h), 1);
    let err = h.app.holdings.error.clone().expect("error");
    assert!(err.starts_with(NOT_SERVED_TEXT), "{err}");
    assert!(err.contains(
        "this scan does not serve /v1/holdings/summary (needs a Splice version with the v1 holdings API"
    ));
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("does not serve /v1/holdings/summary"),
        "{screen}"
    );
}

// ---------------------------------------------------------------------------------------------
// The pane alone, with canned answers
// ---------------------------------------------------------------------------------------------

const T0: &str = "2026-01-05T10:00:00Z";

fn shared() -> Shared {
    let now = parse_time_micros(T0).expect("t0");
    Shared::new(
        AppContext {
            scan_urls: vec!["http://scan.example".into()],
            ..AppContext::default()
        },
        now,
    )
}

fn answer(summaries: &[(&str, &str, &str, &str)]) -> Result<Response, ApiError> {
    Ok(Response::from(HoldingsSummaryResponse {
        record_time: T0.into(),
        migration_id: 3,
        summaries: summaries
            .iter()
            .map(|(p, u, l, t)| HoldingsSummary {
                party_id: (*p).into(),
                total_unlocked_coin: (*u).into(),
                total_locked_coin: (*l).into(),
                total_coin_holdings: (*t).into(),
                ..HoldingsSummary::default()
            })
            .collect(),
        ..HoldingsSummaryResponse::default()
    }))
}

fn q(owners: &[&str]) -> HoldingsQuery {
    HoldingsQuery {
        owners: owners.iter().map(|s| (*s).to_string()).collect(),
        migration_id: 3,
        time: TimeSpec::At(T0.into()),
        exact: false,
    }
}

fn no_control_chars(buf: &Buffer) {
    for cell in buf.content() {
        assert!(
            !cell.symbol().chars().any(char::is_control),
            "control character in {:?}",
            cell.symbol()
        );
    }
}

#[test]
fn server_strings_never_reach_the_buffer_raw() {
    let mut sh = shared();
    let mut p = HoldingsPane::new(&sh);
    let evil = "evil\u{1b}[2J\u{1b}]52;c;aGk=\u{7}::1220ab";
    let mut out = Out::default();
    p.run(q(&[evil, "gone\u{1b}[31m::1"]), &mut sh, &mut out);
    let id = sent(&out);
    p.on_fetched(
        &fetched(
            id,
            &req::ledger_end(),
            &answer(&[(evil, "1\u{1b}[31m.5", "2", "3.5")]),
        ),
        &mut sh,
        &mut Out::default(),
    );
    let r = p.result.as_ref().expect("result");
    assert_eq!(
        r.totals[0], None,
        "an amount that is not a decimal is not summed"
    );
    for (w, hgt) in [(80, 24), (120, 40), (30, 8)] {
        let buf = render(&p, &sh, w, hgt);
        no_control_chars(&buf);
        let text = buffer_text(&buf);
        assert!(text.contains("evil"), "{text}");
    }
    // Copy gives the sanitised id.
    let mut out = Out::default();
    p.on_command(Command::Copy, &mut sh, &mut out);
    assert!(
        out.effects.iter().any(
            |e| matches!(e, Effect::Copy(t) if t.starts_with("evil") && !t.contains('\u{1b}'))
        )
    );
    // An error message with escapes.
    let mut out = Out::default();
    p.run(q(&["a::1"]), &mut sh, &mut out);
    let id = sent(&out);
    p.on_fetched(
        &fetched(
            id,
            &req::ledger_end(),
            &Err(ApiError::NotFound {
                endpoint: "scan POST /v1/holdings/summary",
                message: "No snapshot\u{1b}[2J\u{7}".into(),
            }),
        ),
        &mut sh,
        &mut Out::default(),
    );
    assert!(p.error.as_ref().is_some_and(|e| !e.contains('\u{1b}')));
    no_control_chars(&render(&p, &sh, 80, 24));
}

#[test]
fn sums_are_exact_and_decimal_points_line_up() {
    let mut sh = shared();
    let mut p = HoldingsPane::new(&sh);
    let mut out = Out::default();
    p.run(q(&["a::1", "b::2", "c::3"]), &mut sh, &mut out);
    let id = sent(&out);
    p.on_fetched(
        &fetched(
            id,
            &req::ledger_end(),
            &answer(&[
                ("a::1", "0.1000000000", "0", "0.1000000000"),
                (
                    "b::2",
                    "0.2000000000",
                    "1234567.0000000001",
                    "1234567.2000000001",
                ),
            ]),
        ),
        &mut sh,
        &mut Out::default(),
    );
    let r = p.result.as_ref().expect("result");
    assert_eq!(r.totals[0].expect("u").plain(), "0.3", "no float rounding");
    assert_eq!(r.totals[1].expect("l").plain(), "1234567.0000000001");
    assert_eq!(r.totals[2].expect("t").plain(), "1234567.3000000001");
    assert_eq!(r.missing, vec!["c::3".to_string()]);
    // The owner the answer leaves out has a row saying so, counted with the others.
    assert_eq!(p.ordered_parties(), ["b::2", "a::1", "c::3"]);
    let text = buffer_text(&render(&p, &sh, 100, 12));
    assert_snapshot!("holdings_canned_100x12", text);
    let line = |needle: &str| -> String {
        text.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} in {text}"))
            .to_string()
    };
    // The decimal points of the total column sit in one column.
    let dot = |l: &str| l.rfind('.').map(|i| l[..i].chars().count());
    assert_eq!(dot(&line("a::1")), dot(&line("b::2")));
    assert_eq!(dot(&line("b::2")), dot(&line("Total (3 parties)")));
    assert!(line("Total (3 parties)").contains("1,234,567.3000000001"));
    assert!(line("c::3").contains(NO_HOLDINGS), "{text}");
    assert!(text.contains("Holdings · 3 parties"), "{text}");
}

#[test]
fn stale_replies_are_ignored() {
    let mut sh = shared();
    let mut p = HoldingsPane::new(&sh);
    let mut out = Out::default();
    p.run(q(&["a::1"]), &mut sh, &mut out);
    let old = sent(&out);
    let mut out = Out::default();
    p.run(q(&["b::2"]), &mut sh, &mut out);
    let new = sent(&out);
    assert!(
        out.effects.contains(&Effect::Cancel(old)),
        "the old request is cancelled"
    );
    p.on_fetched(
        &fetched(old, &req::ledger_end(), &answer(&[("a::1", "1", "0", "1")])),
        &mut sh,
        &mut Out::default(),
    );
    assert!(p.result.is_none() && p.is_loading());
    assert_eq!(p.tab_count(&sh), None, "loading: no count yet");
    p.on_fetched(
        &fetched(new, &req::ledger_end(), &answer(&[("b::2", "2", "0", "2")])),
        &mut sh,
        &mut Out::default(),
    );
    assert_eq!(p.ordered_parties(), vec!["b::2"]);
    assert!(!p.is_loading());
}

#[test]
fn tiny_sizes_never_panic() {
    let mut sh = shared();
    let mut p = HoldingsPane::new(&sh);
    let mut out = Out::default();
    p.run(q(&["a::1", "b::2"]), &mut sh, &mut out);
    let id = sent(&out);
    p.on_fetched(
        &fetched(
            id,
            &req::ledger_end(),
            &answer(&[("a::1", "1.5", "2", "3.5")]),
        ),
        &mut sh,
        &mut Out::default(),
    );
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
    // The whole app at tiny sizes with the pane focused and the form open.
    let mut app = App::new(
        sh.ctx.clone(),
        Theme::default(),
        cantonscope::config::keymap::KeyMap::defaults(),
        sh.now,
    );
    app.update(Action::Command(Command::Pane5));
    app.update(Action::Command(Command::Edit));
    for (w, hgt) in [(1u16, 1u16), (20, 5), (80, 24)] {
        app.update(Action::Resize(w, hgt));
        let mut terminal =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, hgt)).expect("terminal");
        terminal
            .draw(|f| cantonscope::app::draw::draw(&app, f))
            .expect("draw");
    }
}
