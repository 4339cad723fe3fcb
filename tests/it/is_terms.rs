//! `is:` terms (issue 38): `is:transfer`, `is:vote`, `is:reward`… find the updates of a kind
//! History's Summary names without the choice's name, the same in `index search` (the real
//! binary over an index synced from the demo over real HTTP), the History filter `/` and the
//! whole-history search `F` (the real app, headless); an unknown kind is refused with the list.

use crossterm::event::KeyCode;
use serde_json::Value;

use crate::common::{clear_input, toast};
use crate::index::{filtered, four, from, index_args, run, search_ids, text};

/// The choices each kind stands for, as the book's table lists them.
const KINDS: &[(&str, &[&str])] = &[
    ("transfer", &["AmuletRules_Transfer"]),
    ("tap", &["AmuletRules_DevNet_Tap"]),
    (
        "liveness",
        &["ValidatorLicense_RecordValidatorLivenessActivity"],
    ),
    ("faucet-coupon", &["ValidatorLicense_ReceiveFaucetCoupon"]),
    ("status-report", &["DsoRules_SubmitStatusReport"]),
    ("sv-reward", &["DsoRules_ReceiveSvRewardCoupon"]),
    ("vote", &["DsoRules_CastVote", "VoteRequest_CastVote"]),
    ("vote-request", &["DsoRules_RequestVote"]),
    (
        "activity-marker",
        &["FeaturedAppRight_CreateActivityMarker"],
    ),
    (
        "unlock",
        &["LockedAmulet_Unlock", "LockedAmulet_OwnerExpireLock"],
    ),
    (
        "reward",
        &[
            "DsoRules_ReceiveSvRewardCoupon",
            "ValidatorLicense_ReceiveFaucetCoupon",
            "ValidatorLicense_RecordValidatorLivenessActivity",
            "FeaturedAppRight_CreateActivityMarker",
        ],
    ),
];

/// The ids (newest first) of the updates that exercise one of `choices`, read from their JSON.
fn exercising(lines: &[Value], choices: &[&str]) -> Vec<String> {
    lines
        .iter()
        .rev()
        .filter(|l| {
            l["events_by_id"].as_object().is_some_and(|events| {
                events.values().any(|e| {
                    e["event_type"] == "exercised_event"
                        && e["choice"].as_str().is_some_and(|c| choices.contains(&c))
                })
            })
        })
        .map(|l| l["update_id"].as_str().expect("an id").to_owned())
        .collect()
}

#[test]
fn is_terms_find_the_same_updates_in_index_search_and_the_history_filter() {
    let url = &four().handle.scan_url;
    let (dir, index, _, lines) = crate::index::synced();
    let all = ["--limit", "1000000", "--from", from()];
    let mut found_some = 0;
    for (kind, choices) in KINDS {
        let expected = exercising(&lines, choices);
        found_some += usize::from(!expected.is_empty());
        let term = format!("is:{kind}");
        assert_eq!(
            search_ids(dir.path(), &index, &[&term], &all),
            expected,
            "{term} in index search"
        );
        assert_eq!(filtered(&lines, &term), expected, "{term} in the filter");
        let mut args = index_args(&index, "search");
        args.extend_from_slice(&[&term, "--count", "--from", from()]);
        let output = run(dir.path(), url, &args);
        assert_eq!(
            text(&output.stdout).trim(),
            expected.len().to_string(),
            "{term}"
        );
    }
    assert!(found_some >= 5, "the demo has updates of most kinds");
    // With another term, both must match; the kind in any case.
    let transfers = exercising(&lines, &["AmuletRules_Transfer"]);
    let party = lines
        .iter()
        .rev()
        .find(|l| {
            transfers
                .first()
                .is_some_and(|t| l["update_id"] == t.as_str())
        })
        .and_then(|l| {
            l["events_by_id"]
                .as_object()?
                .values()
                .find_map(|e| e["acting_parties"].as_array()?.first()?.as_str())
                .map(str::to_owned)
        })
        .expect("a transfer's acting party");
    let both = search_ids(
        dir.path(),
        &index,
        &["is:Transfer", &format!("party:{party}")],
        &all,
    );
    assert!(!both.is_empty() && both.len() <= transfers.len());
    assert_eq!(
        both,
        search_ids(
            dir.path(),
            &index,
            &["choice:AmuletRules_Transfer", &format!("party:{party}")],
            &all
        )
    );
    // An unknown kind: a usage error listing the kinds.
    let mut args = index_args(&index, "search");
    args.push("is:transfers");
    let output = run(dir.path(), url, &args);
    assert_eq!(output.status.code(), Some(2));
    let err = text(&output.stderr);
    assert!(err.contains("unknown is:transfers"), "{err}");
    for (kind, _) in KINDS {
        assert!(err.contains(kind), "{err} names {kind}");
    }
}

#[test]
fn is_terms_in_the_history_filter_and_the_whole_history_search() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = crate::index_explorer::with_index(dir.path(), false);
    // `/`: the same rows as the choices' names.
    let rows = |h: &mut crate::common::Harness, filter: &str| {
        h.palette(&format!("filter {filter}"));
        assert_eq!(h.app.history.filter_text(), Some(filter));
        h.app.history.row_count(&h.app.sh)
    };
    let transfers = rows(&mut h, "choice:re:^AmuletRules_Transfer$");
    assert!(transfers > 0);
    assert_eq!(rows(&mut h, "is:transfer"), transfers);
    let rewards = rows(
        &mut h,
        "choice:re:^(DsoRules_ReceiveSvRewardCoupon|ValidatorLicense_ReceiveFaucetCoupon|ValidatorLicense_RecordValidatorLivenessActivity|FeaturedAppRight_CreateActivityMarker)$",
    );
    assert!(rewards > 0);
    assert_eq!(rows(&mut h, "is:reward"), rewards);
    // Typed, an unknown kind is not applied and says which kinds there are.
    h.key(KeyCode::Char('/'));
    clear_input(&mut h);
    h.type_text("is:colour");
    let error = h.app.history.filter_error().expect("an error").to_owned();
    assert!(error.contains("is: takes one of transfer, tap"), "{error}");
    h.key(KeyCode::Esc);

    // `F` starts from the filter `is:transfer` and counts what `choice:` counts.
    let total = |h: &mut crate::common::Harness, query: &str| {
        h.key(KeyCode::Char('F'));
        clear_input(h);
        h.type_text(query);
        h.key(KeyCode::Enter);
        let total = h
            .app
            .history
            .index_search()
            .and_then(cantonscope::panes::history::IndexSearch::total)
            .unwrap_or_else(|| panic!("{query} counted: {}", toast(h)));
        h.key(KeyCode::Esc);
        total
    };
    let by_choice = total(&mut h, "choice:AmuletRules_Transfer");
    assert!(by_choice as usize >= transfers, "{by_choice} ≥ {transfers}");
    assert_eq!(total(&mut h, "is:transfer"), by_choice);
    h.key(KeyCode::Char('F'));
    clear_input(&mut h);
    h.type_text("is:transfers");
    h.key(KeyCode::Enter);
    assert!(
        toast(&h).contains("unknown is:transfers: is: takes one of transfer"),
        "{}",
        toast(&h)
    );
}
