//! The Governance pane (0) against the demo network: Open and Detail in snapshots at 80x24 and
//! 120x40, "needs my vote" (the request my SV has not voted on reads `needed`, the one it voted
//! on `accepted`), Enter / Esc between Open and Detail, and polling at `governance_interval`
//! (not at the refresh rate) with `r` reading at once.

use cantonscope::api::scan::{self, VoteResult, VoteResultsFilter, VoteResultsRequest};
use cantonscope::api::{ApiClient, ApiConfig};
use cantonscope::model::governance::{ClosedRequest, MyVote, Outcome, price_stats, weight_history};
use cantonscope::msg::Command;
use cantonscope::panes::PaneId;
use cantonscope::panes::governance::{DetailOf, GovSection, MISSING_HISTORY_NOTE};
use crossterm::event::KeyCode;

use crate::common::{Harness, Options, assert_snapshot, count, stable_hms};

/// What Detail says of a request's update when neither the loaded history nor a local index
/// has it (the demo's loaded window starts after these requests were made).
const NO_UPDATE_TEXT: &str = "loaded updates; no local index";

/// The explorer on the demo with the Governance pane shown (by its key, `0`).
fn shown() -> Harness {
    let mut h = Harness::start();
    h.key(KeyCode::Char('0'));
    assert_eq!(h.app.focus, PaneId::Governance);
    h.tick(0.1);
    h
}

#[test]
fn key_0_shows_the_open_requests_sorted_by_deadline() {
    let h = shown();
    let rows = h.app.governance.ordered();
    assert!(rows.len() >= 3, "{rows:?}");
    let deadlines: Vec<i64> = rows.iter().filter_map(|r| r.deadline()).collect();
    assert_eq!(deadlines.len(), rows.len());
    assert!(deadlines.windows(2).all(|w| w[0] <= w[1]), "{deadlines:?}");
}

#[test]
fn open_says_which_request_needs_my_vote_and_which_my_sv_accepted() {
    let mut h = shown();
    let rows = h.app.governance.ordered();
    let needed: Vec<_> = rows
        .iter()
        .filter(|r| r.my_vote == Some(MyVote::Needed))
        .collect();
    let accepted: Vec<_> = rows
        .iter()
        .filter(|r| r.my_vote == Some(MyVote::Accepted))
        .collect();
    assert!(!needed.is_empty(), "{rows:?}");
    assert!(!accepted.is_empty(), "{rows:?}");
    let (needed_action, accepted_action) = (needed[0].action.clone(), accepted[0].action.clone());
    let screen = h.screen(160, 40);
    let line_of = |action: &str| {
        let cut: String = action.chars().take(20).collect();
        screen
            .lines()
            .find(|l| l.contains(&cut))
            .unwrap_or_else(|| panic!("{action} in\n{screen}"))
            .to_string()
    };
    assert!(line_of(&needed_action).contains("needed"), "{screen}");
    assert!(line_of(&accepted_action).contains("accepted"), "{screen}");
    assert!(
        screen.contains("needs my vote") || screen.contains("need my vote"),
        "{screen}"
    );
}

#[test]
fn open_snapshots() {
    let mut h = shown();
    assert_snapshot!("open_120x40", stable_hms(&h.screen(120, 40)));
    assert_snapshot!("open_80x24", stable_hms(&h.screen(80, 24)));
}

/// Issue 38: where the width allows, Open shows each deadline itself (in the session's zone,
/// to the minute) beside its countdown; at 80 columns the votes read in words, not in symbols.
#[test]
fn open_shows_the_deadline_itself_where_there_is_room_and_the_votes_in_words() {
    let mut h = shown();
    let rows = h.app.governance.ordered();
    let first = rows[0].clone();
    let deadline = first.deadline().expect("a deadline");
    let at = h.app.sh.format_time(deadline)[..16].to_string();
    let wide = h.screen(200, 60);
    assert!(wide.contains("Closes (UTC)"), "{wide}");
    let cut: String = first.action.chars().take(20).collect();
    let line = wide
        .lines()
        .find(|l| l.contains(&cut))
        .unwrap_or_else(|| panic!("{cut} in\n{wide}"));
    assert!(
        line.contains(&at) && line.contains("│in "),
        "{at} in {line}"
    );
    assert_snapshot!("open_200x60", stable_hms(&wide));
    // At 120 the row has no room for it; at 80 the votes read in words.
    assert!(!h.screen(120, 40).contains("Closes"));
    let narrow = h.screen(80, 24);
    let t = &first.tally;
    let words = format!("{} yes {} no {} open", t.accept, t.reject, t.not_yet);
    assert!(narrow.contains(&words), "{words} in\n{narrow}");
    assert!(
        !narrow.contains('✓') && !narrow.contains("votes 1/3"),
        "{narrow}"
    );
}

#[test]
fn enter_opens_the_detail_and_esc_goes_back_to_open() {
    let mut h = shown();
    h.cmd(Command::Down);
    let key = h
        .app
        .governance
        .selected()
        .expect("a selected row")
        .key
        .clone();
    h.key(KeyCode::Enter);
    assert_eq!(h.app.governance.section(), GovSection::Detail);
    assert_eq!(h.app.governance.chosen().map(|r| r.key.clone()), Some(key));
    let screen = h.screen(120, 40);
    assert!(screen.contains("Contract id"), "{screen}");
    h.key(KeyCode::Esc);
    assert_eq!(h.app.governance.section(), GovSection::Open);
    assert_eq!(h.app.focus, PaneId::Governance);
}

#[test]
fn detail_snapshots_with_the_votes_and_the_config_diff() {
    let mut h = shown();
    // The config change (it carries a baseConfig).
    let at = h
        .app
        .governance
        .ordered()
        .iter()
        .position(|r| r.action_name.ends_with("SetConfig"))
        .expect("a config change is open");
    for _ in 0..at {
        h.cmd(Command::Down);
    }
    h.key(KeyCode::Enter);
    let screen = h.screen(120, 40);
    assert!(screen.contains("against its baseConfig"), "{screen}");
    assert!(screen.contains('★'), "{screen}");
    assert!(screen.contains(NO_UPDATE_TEXT), "{screen}");
    assert_snapshot!("detail_config_120x40", stable_hms(&screen));
    assert_snapshot!("detail_config_80x24", stable_hms(&h.screen(80, 24)));
}

#[test]
fn requests_are_read_at_the_governance_interval_and_r_reads_now() {
    let mut h = shown();
    let first = h.app.governance.read_at().expect("read on first show");
    // Ticks at the refresh rate do not read again.
    for _ in 0..5 {
        h.tick(2.0);
    }
    assert_eq!(h.app.governance.read_at(), Some(first));
    h.key(KeyCode::Char('r'));
    assert_eq!(h.app.governance.read_at(), Some(h.now));
    let r_at = h.now;
    h.tick(5.0);
    assert_eq!(h.app.governance.read_at(), Some(r_at));
    let every = h.app.sh.ctx.governance_every as f64 / 1e6;
    h.tick(every);
    assert_eq!(h.app.governance.read_at(), Some(h.now));
}

#[test]
fn price_votes_show_each_svs_vote_the_median_spread_and_the_price_in_force() {
    let mut h = shown();
    assert!(
        h.app.governance.price_votes().is_none(),
        "read only when shown"
    );
    h.key(KeyCode::Char(']'));
    h.key(KeyCode::Char(']'));
    assert_eq!(h.app.governance.section(), GovSection::PriceVotes);
    let votes = h
        .app
        .governance
        .price_votes()
        .expect("read on first show")
        .clone();
    assert!(!votes.votes.is_empty());
    let stats = price_stats(&votes.votes);
    let screen = h.screen(120, 40);
    let median = stats.median.expect("a median");
    assert!(screen.contains(&format!("Median    {median}")), "{screen}");
    assert!(screen.contains("In force"), "{screen}");
    assert!(!screen.contains("In force  unknown"), "{screen}");
    assert!(screen.contains('★'), "{screen}");
    assert_snapshot!("prices_120x40", stable_hms(&screen));
    assert_snapshot!("prices_80x24", stable_hms(&h.screen(80, 24)));
}

#[test]
fn price_votes_are_read_at_the_governance_interval_and_r_reads_them_now() {
    let mut h = shown();
    go_to(&mut h, GovSection::PriceVotes);
    let before = count(&h, "amulet price votes");
    assert_eq!(before, 1, "{:?}", h.requests);
    h.tick(2.0);
    assert_eq!(count(&h, "amulet price votes"), 1);
    h.key(KeyCode::Char('r'));
    assert_eq!(count(&h, "amulet price votes"), 2);
    let every = h.app.sh.ctx.governance_every as f64 / 1e6;
    h.tick(every);
    assert_eq!(count(&h, "amulet price votes"), 3);
}

// ---------------------------------------------------------------------------------------------
// Results, SVs, Across scans.

/// A client of the demo's scan `scan` (to check the pane against what the scan serves).
fn scan_client(h: &Harness, scan: usize) -> ApiClient {
    let url = h.demo.as_ref().expect("demo").scan_urls[scan].clone();
    ApiClient::new(ApiConfig {
        scan_url: Some(url),
        ..ApiConfig::default()
    })
    .expect("client")
}

/// Every result of scan `scan` matching `filter`, paged by the test itself.
fn served(h: &Harness, scan: usize, filter: &VoteResultsFilter) -> Vec<VoteResult> {
    let c = scan_client(h, scan);
    let mut out = Vec::new();
    let mut token = None;
    for _ in 0..100 {
        let page =
            h.rt.block_on(c.send(&scan::vote_results(&VoteResultsRequest {
                filter: filter.clone(),
                limit: 100,
                page_token: token,
            })))
            .expect("results");
        out.extend(page.results);
        match page.next_page_token {
            Some(t) if Some(t) != token => token = Some(t),
            _ => return out,
        }
    }
    panic!("no last page")
}

/// Moves to `section` with `]`.
fn go_to(h: &mut Harness, section: GovSection) {
    for _ in 0..8 {
        if h.app.governance.section() == section {
            return;
        }
        h.key(KeyCode::Char(']'));
    }
    panic!("no section {section:?}");
}

/// Opens the results filter and fills it: action, outcome (index into any / accepted /
/// rejected / expired / failed), requester, from.
fn filter_results(h: &mut Harness, action: &str, outcome: usize, requester: &str, from: &str) {
    h.key(KeyCode::Char('i'));
    assert!(h.app.governance.results().dialog.is_open());
    for (field, text) in [(0, action), (2, requester), (3, from)] {
        // Field by field (↓ moves); the form opens with the filters in force, which these
        // tests start from empty.
        let at = h.app.governance.results().dialog.form.active();
        for _ in at..field {
            h.key(KeyCode::Down);
        }
        h.type_text(text);
    }
    // The outcome: back up to it and pick.
    while h.app.governance.results().dialog.form.active() > 1 {
        h.key(KeyCode::Up);
    }
    for _ in 0..outcome {
        h.key(KeyCode::Right);
    }
    h.key(KeyCode::Enter);
    assert!(
        !h.app.governance.results().dialog.is_open(),
        "the form closes"
    );
}

#[test]
fn results_are_paged_newest_first_with_the_count_and_enter_opens_a_past_result() {
    let mut h = shown();
    // A small page, so the demo's results take several pages.
    h.app.governance.set_results_page_size(3);
    go_to(&mut h, GovSection::Results);
    let all = served(&h, 0, &VoteResultsFilter::default());
    assert!(all.len() > 6, "{}", all.len());
    // Two screens ahead are read at once; the rest as the cursor moves down.
    h.cmd(Command::Bottom);
    for _ in 0..10 {
        h.cmd(Command::Bottom);
    }
    let r = h.app.governance.results();
    assert!(r.done, "every page read");
    assert!(r.pages >= 3, "{} pages", r.pages);
    assert_eq!(r.count, Some(all.len() as i64));
    assert_eq!(r.rows.len(), all.len());
    let keys: Vec<&str> = r.raw.iter().map(|x| x.request.key()).collect();
    let want: Vec<&str> = all.iter().map(|x| x.request.key()).collect();
    assert_eq!(keys, want, "every result once, newest first");
    let screen = h.screen(120, 40);
    assert!(
        screen.contains(&format!("{} listed of {} (count)", all.len(), all.len())),
        "{screen}"
    );
    // Enter on the failed one: its detail, with the failure and the offboarded voter.
    let at = h
        .app
        .governance
        .results()
        .table
        .ordered(&h.app.governance.results().rows)
        .position(|r| r.outcome == Outcome::AcceptedButFailed)
        .expect("a failed result");
    h.cmd(Command::Top);
    for _ in 0..at {
        h.cmd(Command::Down);
    }
    h.key(KeyCode::Enter);
    assert_eq!(h.app.governance.section(), GovSection::Detail);
    assert_eq!(h.app.governance.detail_of(), DetailOf::Result);
    let screen = h.screen(120, 40);
    assert!(screen.contains("accepted but failed"), "{screen}");
    assert!(screen.contains("Failure"), "{screen}");
    assert!(screen.contains("Retired-Node-7"), "{screen}");
    assert!(
        screen.contains("Retired-Node-7   accept") && screen.contains("(offboarded: not counted)"),
        "{screen}"
    );
    assert!(screen.contains(NO_UPDATE_TEXT), "{screen}");
    // Esc goes back to Results, not Open.
    h.key(KeyCode::Esc);
    assert_eq!(h.app.governance.section(), GovSection::Results);
}

#[test]
fn results_filters_go_to_the_server_and_the_rest_is_told_apart_here() {
    let mut h = shown();
    h.app.governance.set_results_page_size(4);
    go_to(&mut h, GovSection::Results);
    let all = served(&h, 0, &VoteResultsFilter::default());
    let dso = h.app.sh.health.dso.info.clone().expect("dso");
    let rows: Vec<ClosedRequest> = all.iter().map(|r| ClosedRequest::of(r, &dso.svs)).collect();
    // Rejected weight changes: the server narrows to not accepted, the pane to rejected.
    filter_results(&mut h, "UpdateSvRewardWeight", 2, "", "");
    for _ in 0..5 {
        h.cmd(Command::Bottom);
    }
    let want: Vec<&str> = rows
        .iter()
        .filter(|r| {
            r.outcome == Outcome::Rejected && r.action_name.contains("UpdateSvRewardWeight")
        })
        .map(|r| r.key.as_str())
        .collect();
    assert!(!want.is_empty());
    let r = h.app.governance.results();
    assert!(r.done);
    let got: Vec<&str> = r.rows.iter().map(|x| x.key.as_str()).collect();
    assert_eq!(got, want);
    // The count is the server's: not accepted, of that action.
    let not_accepted = rows
        .iter()
        .filter(|r| {
            r.outcome != Outcome::Accepted && r.action_name.contains("UpdateSvRewardWeight")
        })
        .count();
    assert_eq!(r.count, Some(not_accepted as i64));
    let screen = h.screen(120, 40);
    assert!(screen.contains("outcome rejected"), "{screen}");
    assert!(
        screen.contains(&format!("count {not_accepted} not accepted")),
        "{screen}"
    );
    // A requester's exact name (a prefix matches nothing here), from a date on.
    let who = rows[0].requester.clone();
    let since = rows[rows.len() / 2].effective_at.clone();
    // A fresh explorer for each (the form opens with the filters in force).
    let mut fresh = shown();
    fresh.app.governance.set_results_page_size(4);
    go_to(&mut fresh, GovSection::Results);
    filter_results(&mut fresh, "", 0, &who[..who.len() - 1], "");
    for _ in 0..5 {
        fresh.cmd(Command::Bottom);
    }
    assert!(fresh.app.governance.results().done);
    assert!(
        fresh.app.governance.results().rows.is_empty(),
        "a prefix is no exact match"
    );
    let screen = fresh.screen(80, 24);
    assert!(screen.contains("No result matches the filters"), "{screen}");
    let mut fresh = shown();
    fresh.app.governance.set_results_page_size(4);
    go_to(&mut fresh, GovSection::Results);
    filter_results(&mut fresh, "", 0, &who, &since);
    for _ in 0..5 {
        fresh.cmd(Command::Bottom);
    }
    let since_us = cantonscope::model::format::parse_time_micros(&since).expect("a time");
    let want: Vec<&str> = rows
        .iter()
        .filter(|r| r.requester == who)
        .filter(|r| {
            cantonscope::model::format::parse_time_micros(&r.effective_at)
                .is_some_and(|t| t >= since_us)
        })
        .map(|r| r.key.as_str())
        .collect();
    let got: Vec<&str> = fresh
        .app
        .governance
        .results()
        .rows
        .iter()
        .map(|x| x.key.as_str())
        .collect();
    assert_eq!(got, want);
    // A date that is no time: the form says so and stays open.
    fresh.key(KeyCode::Char('i'));
    for _ in 0..4 {
        fresh.key(KeyCode::Down);
    }
    fresh.type_text("next tuesday");
    fresh.key(KeyCode::Enter);
    let form = &fresh.app.governance.results().dialog;
    assert!(form.is_open());
    assert!(form.form.error(4).is_some_and(|e| e.contains("not a time")));
}

#[test]
fn results_snapshots() {
    let mut h = shown();
    go_to(&mut h, GovSection::Results);
    assert_snapshot!("results_120x40", stable_hms(&h.screen(120, 40)));
    assert_snapshot!("results_80x24", stable_hms(&h.screen(80, 24)));
    // The rejected AmuletRules config change: its diff against its baseConfig.
    let at = h
        .app
        .governance
        .results()
        .table
        .ordered(&h.app.governance.results().rows)
        .position(|r| r.action_name == "CRARC_SetConfig")
        .expect("a config result");
    for _ in 0..at {
        h.cmd(Command::Down);
    }
    h.key(KeyCode::Enter);
    let screen = h.screen(120, 40);
    assert!(screen.contains("against its baseConfig"), "{screen}");
    assert!(screen.contains("transferConfig.createFee.fee"), "{screen}");
    assert_snapshot!("result_detail_120x40", stable_hms(&screen));
    assert_snapshot!("result_detail_80x24", stable_hms(&h.screen(80, 24)));
}

#[test]
fn a_past_results_link_opens_the_update_that_closed_it_from_the_loaded_history() {
    use cantonscope::panes::governance::Where;
    // The loaded history starts 12 hours back: it holds votes, their re-creations and closes.
    let mut h = Harness::start_with(Options {
        prepare: Box::new(|_, now, settings| {
            let from =
                chrono::DateTime::from_timestamp_micros(now - 12 * 3_600_000_000).expect("a time");
            settings.from = cantonscope::config::HistoryStart::At(from);
        }),
        ..Options::default()
    });
    h.key(KeyCode::Char('0'));
    h.tick(0.1);
    go_to(&mut h, GovSection::Results);
    let n = h.app.governance.results().rows.len();
    let mut found = None;
    for i in 0..n {
        h.cmd(Command::Top);
        for _ in 0..i {
            h.cmd(Command::Down);
        }
        h.key(KeyCode::Enter);
        let lookup = h.app.governance.lookup();
        if let (Where::Loaded(close), Where::Loaded(creation)) =
            (lookup.close(&h.app.sh), lookup.creation(&h.app.sh))
        {
            assert!(!lookup.is_searching(), "no index is asked");
            found = Some((close, creation));
            break;
        }
        h.key(KeyCode::Esc);
    }
    let (close, creation) = found.expect("a result closed and requested within the loaded history");
    assert_ne!(close, creation);
    let screen = h.screen(200, 40);
    assert!(
        screen.contains(&format!("closed in {close} (loaded; Enter opens it)")),
        "{screen}"
    );
    assert!(
        screen.contains(&format!("Requested in {creation} (loaded)")),
        "{screen}"
    );
    // Enter opens the update that closed the request, not the one that made it.
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Update);
    assert_eq!(h.app.update_pane.update_id(), Some(close.as_str()));
    let screen = h.screen(160, 40);
    assert!(screen.contains("DsoRules_CloseVoteRequest"), "{screen}");
}

#[test]
fn results_stop_paging_when_the_scan_ignores_the_page_token() {
    // Scan 1 answers every results page as the first one (as an older scan may).
    let mut h = Harness::start_with(Options {
        faults: cantonscope::demo::DemoFaults {
            page_token_ignored: Some(0),
            ..Default::default()
        },
        ..Options::default()
    });
    h.key(KeyCode::Char('0'));
    h.tick(0.1);
    h.app.governance.set_results_page_size(3);
    go_to(&mut h, GovSection::Results);
    for _ in 0..5 {
        h.cmd(Command::Bottom);
    }
    let r = h.app.governance.results();
    assert!(r.done, "paging stopped");
    assert!(r.count.is_some_and(|n| n > 3), "{:?}", r.count);
    // The first page once: the repeated one is dropped, not listed again.
    assert_eq!(r.rows.len(), 3, "{:?}", r.rows);
    let keys: std::collections::HashSet<&str> = r.raw.iter().map(|x| x.request.key()).collect();
    assert_eq!(keys.len(), 3);
    let screen = h.screen(120, 40);
    assert!(
        screen
            .contains("the scan sent the same page twice (it may ignore pageToken): stopped here"),
        "{screen}"
    );
    assert!(screen.contains("3 listed of"), "{screen}");
}

#[test]
fn svs_show_weights_my_sv_and_the_history_of_the_selected_one() {
    let mut h = shown();
    go_to(&mut h, GovSection::Svs);
    h.tick(0.1);
    let dso = h.app.sh.health.dso.info.clone().expect("dso");
    let changes = served(
        &h,
        0,
        &VoteResultsFilter {
            action_name: Some("SRARC_UpdateSvRewardWeight".into()),
            accepted: Some(true),
            ..VoteResultsFilter::default()
        },
    );
    let svs = h.app.governance.svs();
    assert!(svs.done);
    assert_eq!(svs.rows.len(), dso.svs.len());
    for row in &svs.rows {
        let sv = dso
            .svs
            .iter()
            .find(|s| s.party == row.party)
            .expect("an SV");
        assert_eq!(row.weight, sv.reward_weight);
        assert_eq!(row.steps, weight_history(&changes, &sv.party));
    }
    assert_eq!(svs.rows.iter().filter(|r| r.mine).count(), 1);
    let unknown = svs
        .rows
        .iter()
        .find(|r| r.steps.is_empty())
        .expect("an SV without a change")
        .name
        .clone();
    let screen = h.screen(120, 40);
    assert!(screen.contains("★ Aurora-Node-1"), "{screen}");
    // The selected SV (the first): its history and the scan's own point agree.
    assert!(
        screen.contains("scan's previous-sv-reward-weight")
            && screen.contains("agrees with the last change"),
        "{screen}"
    );
    assert!(screen.contains("unknown before"), "{screen}");
    assert_snapshot!("svs_120x40", stable_hms(&screen));
    assert_snapshot!("svs_80x24", stable_hms(&h.screen(80, 24)));
    // An SV without an accepted change: unknown, never guessed.
    let at = h
        .app
        .governance
        .svs()
        .ordered()
        .iter()
        .position(|r| r.name == unknown)
        .expect("listed");
    for _ in 0..at {
        h.cmd(Command::Down);
    }
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("no accepted weight change in the results: its history is unknown"),
        "{screen}"
    );
}

/// Four scans; the fourth lags and lacks the first day of vote history.
fn four_scans() -> Harness {
    let mut h = Harness::start_with(Options {
        scans: 4,
        faults: cantonscope::demo::DemoFaults {
            lagging: Some((3, std::time::Duration::from_secs(42))),
            ..cantonscope::demo::DemoFaults::default()
        },
        ..Options::default()
    });
    h.key(KeyCode::Char('0'));
    h.tick(0.1);
    h
}

#[test]
fn b_compares_every_scan_and_names_the_one_that_misses_results_with_both_numbers() {
    let mut h = four_scans();
    h.key(KeyCode::Char('b'));
    assert_eq!(h.app.focus, PaneId::Governance, "b stays in the pane");
    assert_eq!(h.app.governance.section(), GovSection::Across);
    let count = |h: &Harness, scan: usize| {
        h.rt.block_on(
            scan_client(h, scan).send(&scan::vote_results_count(&VoteResultsFilter::default())),
        )
        .expect("count")
        .count
    };
    let (here, there) = (count(&h, 3), count(&h, 0));
    assert!(here < there, "{here} vs {there}");
    let scans = h.app.governance.across().scans.clone().expect("compared");
    assert_eq!(scans.rows.len(), 4);
    let differs = scans.count_differs();
    assert_eq!(differs.len(), 1, "{scans:?}");
    assert_eq!(differs[0].index, 3);
    let words = format!("differs: {here} here, {there} there");
    assert_eq!(differs[0].count.words(), words);
    assert!(
        scans.count_verdict.starts_with("consensus: 3 of 4"),
        "{}",
        scans.count_verdict
    );
    // The active requests (sorted first) agree on every scan.
    assert!(scans.requests_differ().is_empty(), "{scans:?}");
    assert!(
        scans.requests_verdict.starts_with("consensus: 4 of 4"),
        "{}",
        scans.requests_verdict
    );
    let screen = h.screen(120, 40);
    let name = &differs[0].sv_name;
    assert!(screen.contains(&format!("{name} {words}")), "{screen}");
    assert!(screen.contains(&MISSING_HISTORY_NOTE[..40]), "{screen}");
    assert_snapshot!("across_120x40", stable_hms(&screen));
    assert_snapshot!("across_80x24", stable_hms(&h.screen(80, 24)));
    // b again asks again.
    let before = count_every(&h);
    h.key(KeyCode::Char('b'));
    assert_eq!(count_every(&h), before + 2);
}

fn count_every(h: &Harness) -> usize {
    h.requests
        .iter()
        .filter(|r| r.starts_with("on every scan: vote"))
        .count()
}

#[test]
fn the_requester_column_uses_the_room_of_a_wide_terminal() {
    let mut h = shown();
    let names: Vec<String> = h
        .app
        .governance
        .ordered()
        .iter()
        .map(|r| r.requester.clone())
        .collect();
    assert!(
        names.iter().any(|n| n.chars().count() > 12),
        "the demo has names longer than 12: {names:?}"
    );
    // At 200 columns every requester is shown whole, on its request's row.
    let screen = h.screen(200, 40);
    for r in h.app.governance.ordered() {
        let cut: String = r.action.chars().take(20).collect();
        let line = screen
            .lines()
            .find(|l| l.contains(&cut))
            .unwrap_or_else(|| panic!("{cut} in\n{screen}"));
        assert!(line.contains(&r.requester), "{line}");
    }
    // At 120 the column stays 12 wide (the snapshots show it).
    let screen = h.screen(120, 40);
    assert!(
        names
            .iter()
            .filter(|n| n.chars().count() > 12)
            .all(|n| !screen.contains(n.as_str())),
        "{screen}"
    );
}

/// Issue 21 (k9s habit): `o` then a column's letter sorts Results, SVs and Across scans by that
/// column (the letters named after `o`, the mark in the header), again the other way.
#[test]
fn o_then_a_letter_sorts_results_svs_and_across_by_that_column() {
    let mut h = shown();
    go_to(&mut h, GovSection::Results);
    h.cmd(Command::Bottom);
    let actions = |h: &Harness| -> Vec<String> {
        let r = h.app.governance.results();
        r.table.ordered(&r.rows).map(|x| x.action.clone()).collect()
    };
    h.key(KeyCode::Char('o'));
    let said = crate::common::toast(&h);
    assert!(said.contains("[A]ction"), "{said}");
    h.key(KeyCode::Char('a'));
    let v = actions(&h);
    assert!(v.len() > 2 && v.windows(2).all(|w| w[0] <= w[1]), "{v:?}");
    assert!(v.first() != v.last(), "{v:?}");
    assert!(h.screen(120, 40).contains("Action ▲"));
    h.key(KeyCode::Char('o'));
    h.key(KeyCode::Char('a'));
    let v = actions(&h);
    assert!(v.windows(2).all(|w| w[0] >= w[1]), "{v:?}");
    assert!(h.screen(120, 40).contains("Action ▼"));

    go_to(&mut h, GovSection::Svs);
    h.tick(0.1);
    h.key(KeyCode::Char('o'));
    let said = crate::common::toast(&h);
    assert!(said.contains("[W]eight"), "{said}");
    h.key(KeyCode::Char('w'));
    let w: Vec<Option<i64>> = h
        .app
        .governance
        .svs()
        .ordered()
        .iter()
        .map(|r| r.weight)
        .collect();
    assert!(w.len() > 2 && w.windows(2).all(|x| x[0] <= x[1]), "{w:?}");
    assert!(h.screen(120, 40).contains("Weight ▲"));

    go_to(&mut h, GovSection::Across);
    h.tick(0.1);
    h.key(KeyCode::Char('o'));
    h.key(KeyCode::Char('s'));
    let screen = h.screen(120, 40);
    assert!(screen.contains("SV ▼"), "{screen}");
}

/// The demo's DSO with `edit` applied (as a scan would answer it), put in place of the one read.
fn with_dso(h: &mut Harness, edit: impl FnOnce(&mut cantonscope::api::scan::DsoInfo)) {
    let mut dso = (**h.app.sh.health.dso.info.as_ref().expect("the DSO is read")).clone();
    edit(&mut dso);
    h.app.sh.health.dso.info = Some(std::sync::Arc::new(dso));
}

/// The column where one of `word` starts on each line of Detail's votes (after its `Votes ·`
/// heading) holding one of `names`.
fn columns_of(screen: &str, names: &[&str], word: &[&str]) -> Vec<usize> {
    screen
        .lines()
        .skip_while(|l| !l.contains("Votes · "))
        .filter(|l| names.iter().any(|n| l.contains(n)))
        .map(|l| {
            let at = word
                .iter()
                .filter_map(|w| l.find(w))
                .min()
                .unwrap_or_else(|| panic!("{word:?} in {l}"));
            l[..at].chars().count()
        })
        .collect()
}

/// Operator habits: SV names are whole in Detail's votes and in Price votes. The column is as
/// wide as the longest name shown (the demo's names are at most 16 long, the old fixed widths
/// were 16 and 20: here a DSO with longer ones), every row's vote in one column after it, and a
/// name is cut only when the screen cannot hold it beside the vote (40 columns).
#[test]
fn sv_names_are_whole_in_the_votes_of_detail_and_price_votes() {
    // An SV onboarded after the request was made: listed, with no vote yet.
    const JOINED: &str = "Ursa-Major-Frankfurt-Node-7";
    let mut h = shown();
    with_dso(&mut h, |dso| {
        dso.svs.push(cantonscope::api::scan::DsoSv {
            party: "Ursa-Major-Frankfurt-Node-7::1220ab".into(),
            name: JOINED.into(),
            ..Default::default()
        });
    });
    h.key(KeyCode::Enter);
    assert_eq!(h.app.governance.section(), GovSection::Detail);
    h.cmd(Command::Bottom);
    let names: Vec<String> = h
        .app
        .sh
        .health
        .dso
        .info
        .as_ref()
        .expect("the DSO")
        .svs
        .iter()
        .map(|s| s.name.clone())
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let votes = ["accept ", "reject ", "not yet"];
    let screen = h.screen(120, 40);
    let line = screen
        .lines()
        .find(|l| l.contains(JOINED))
        .unwrap_or_else(|| panic!("{JOINED} whole in\n{screen}"));
    assert!(line.contains(&format!("{JOINED} not yet")), "{line}");
    // Every SV's vote starts in the same column, right after the longest name.
    let at = columns_of(&screen, &names, &votes);
    assert_eq!(at.len(), names.len(), "{screen}");
    assert!(at.iter().all(|c| *c == at[0]), "{at:?}\n{screen}");
    assert_eq!(at[0], 1 + 2 + JOINED.len() + 1, "{screen}");
    // 40 columns cannot hold it beside its vote: cut there, the vote still shown.
    h.screen(40, 24);
    h.cmd(Command::Bottom);
    let narrow = h.screen(40, 24);
    assert!(!narrow.contains(JOINED), "{narrow}");
    let line = narrow
        .lines()
        .find(|l| l.contains("Ursa-Major-Frankfurt"))
        .unwrap_or_else(|| panic!("the name, cut, in\n{narrow}"));
    assert!(line.contains("… not yet"), "{line}");

    // Price votes: an SV whose DSO name is long (its vote is found by its party).
    const RENAMED: &str = "Boreal-Operations-Zurich-2";
    let mut h = shown();
    with_dso(&mut h, |dso| {
        let sv = dso
            .svs
            .iter_mut()
            .find(|s| s.name == "Boreal-Ops-2")
            .expect("the demo's Boreal-Ops-2");
        sv.name = RENAMED.into();
    });
    go_to(&mut h, GovSection::PriceVotes);
    let screen = h.screen(120, 40);
    assert!(screen.contains(RENAMED), "{screen}");
    let names = [
        "Aurora-Node-1",
        RENAMED,
        "Cirrus-Labs-1",
        "Dorado-Systems-3",
    ];
    // The header's `price` and every SV's price end in one column, after the longest name.
    let header = screen
        .lines()
        .find(|l| l.contains("price  cast at"))
        .expect("the header");
    let price_col = header[..header.find("price  cast at").unwrap()]
        .chars()
        .count()
        + 5;
    assert_eq!(price_col, 1 + 2 + RENAMED.len() + 1 + 14, "{header}");
    let rows: Vec<&str> = screen
        .lines()
        .skip_while(|l| !l.contains("price  cast at"))
        .filter(|l| names.iter().any(|n| l.contains(n)))
        .collect();
    assert_eq!(rows.len(), names.len(), "{screen}");
    for row in rows {
        let chars: Vec<char> = row.chars().collect();
        assert!(
            chars[price_col - 1] != ' ' && chars[price_col] == ' ' && chars[price_col + 1] == ' ',
            "the price ends at {price_col}: {row}"
        );
    }
    // 60 columns still hold it; 40 do not (cut, the price still shown).
    assert!(h.screen(60, 24).contains(RENAMED));
    let narrow = h.screen(40, 24);
    assert!(!narrow.contains(RENAMED), "{narrow}");
    assert!(narrow.contains("Boreal-Operations-Z…"), "{narrow}");
}
