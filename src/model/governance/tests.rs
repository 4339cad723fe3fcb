// Fixture builders take the JSON they are handed by value.
#![allow(clippy::needless_pass_by_value)]

use serde_json::{Value, json};

use super::*;
use crate::api::scan::{DsoSv, VoteRequest, VoteResult};

fn sv(name: &str, party: &str, weight: i64) -> DsoSv {
    DsoSv {
        party: party.into(),
        name: name.into(),
        reward_weight: Some(weight),
        ..DsoSv::default()
    }
}

fn svs() -> Vec<DsoSv> {
    vec![
        sv("Alpha", "A::1", 10_000),
        sv("Beta", "B::2", 10_000),
        sv("Gamma", "C::3", 5_000),
        sv("Delta", "D::4", 8_000),
    ]
}

fn vote(accept: bool, party: &str) -> Value {
    json!({"sv": party, "accept": accept, "reason": {"url": "", "body": ""}, "optCastAt": "2026-01-01T00:00:00Z"})
}

fn weight_request(votes: Value) -> VoteRequest {
    VoteRequest::from_contract(&json!({
        "contract_id": "00new",
        "payload": {
            "requester": "Alpha",
            "action": {"tag": "ARC_DsoRules", "value": {"dsoAction": {"tag": "SRARC_UpdateSvRewardWeight",
                "value": {"svParty": "D::4", "newRewardWeight": "9000"}}}},
            "reason": {"url": "https://cip", "body": "because"},
            "voteBefore": "2026-01-10T00:00:00Z",
            "votes": votes,
            "trackingCid": "00first"
        }
    }))
}

#[test]
fn actions_in_words() {
    let r = weight_request(json!([]));
    assert_eq!(
        action_words(&r.action, &svs()),
        "update reward weight of Delta 8000 → 9000"
    );
    // Closed, the weight in force now is not the one it changed.
    assert_eq!(
        past_action_words(&r.action, &svs()),
        "update reward weight of Delta to 9000"
    );
    let words = |raw: Value| action_words(&GovAction::decode(&raw), &svs());
    assert_eq!(
        words(
            json!({"tag":"ARC_DsoRules","value":{"dsoAction":{"tag":"SRARC_SetConfig","value":{}}}})
        ),
        "set DsoRules config"
    );
    assert_eq!(
        words(
            json!({"tag":"ARC_DsoRules","value":{"dsoAction":{"tag":"SRARC_GrantFeaturedAppRight","value":{"provider":"App::9"}}}})
        ),
        "grant featured app right to App::9"
    );
    assert_eq!(
        words(
            json!({"tag":"ARC_DsoRules","value":{"dsoAction":{"tag":"SRARC_OffboardSv","value":{"sv":"C::3"}}}})
        ),
        "offboard SV Gamma"
    );
    assert_eq!(
        words(
            json!({"tag":"ARC_DsoRules","value":{"dsoAction":{"tag":"SRARC_Future\u{202e}","value":{}}}})
        ),
        "SRARC_Future (not known here)",
        "an unknown tag is shown, made safe"
    );
    // An SV not in the DSO: the party, and no old weight.
    assert_eq!(
        words(
            json!({"tag":"ARC_DsoRules","value":{"dsoAction":{"tag":"SRARC_UpdateSvRewardWeight","value":{"svParty":"Z::9","newRewardWeight":"1"}}}})
        ),
        "update reward weight of Z::9 to 1"
    );
}

#[test]
fn the_tally_counts_current_svs_and_the_requesters_accept() {
    // Beta accepts, Gamma rejects, an offboarded SV accepted; Alpha (the requester) has no
    // entry: its accept counts; Delta has not voted.
    let r = weight_request(json!([
        ["Beta", vote(true, "B::2")],
        ["Gamma", vote(false, "C::3")],
        ["Retired", vote(true, "R::7")]
    ]));
    let t = Tally::of(&r, &svs(), Some(3));
    assert_eq!((t.accept, t.reject, t.not_yet), (2, 1, 1));
    assert_eq!(t.words(), "3 of 4 needed · 2 accept · 1 reject · 1 not yet");
    assert!(!t.passes());
    let t = Tally::of(&r, &svs(), Some(2));
    assert!(t.passes());
    assert_eq!(
        Tally::of(&r, &svs(), None).words(),
        "? of 4 needed · 2 accept · 1 reject · 1 not yet"
    );
}

#[test]
fn my_vote_by_name_or_party() {
    let r = weight_request(json!([
        ["Beta", vote(true, "B::2")],
        ["Gamma", vote(false, "C::3")]
    ]));
    assert_eq!(MyVote::of(&r, Some("Beta"), None), MyVote::Accepted);
    assert_eq!(MyVote::of(&r, None, Some("C::3")), MyVote::Rejected);
    assert_eq!(MyVote::of(&r, Some("Delta"), Some("D::4")), MyVote::Needed);
    assert_eq!(
        MyVote::of(&r, Some("Alpha"), None),
        MyVote::Accepted,
        "the requester"
    );
    let open = OpenRequest::of(&r, &svs(), Some(3), Some((Some("Delta"), None)));
    assert_eq!(open.key, "00first");
    assert_eq!(open.my_vote, Some(MyVote::Needed));
    let json = serde_json::to_value(&open).expect("serialises");
    assert_eq!(json["my_vote"], "needed");
    assert_eq!(
        json["votes_words"],
        "3 of 4 needed · 2 accept · 1 reject · 1 not yet"
    );
    let unknown = OpenRequest::of(&r, &svs(), Some(3), None);
    assert_eq!(unknown.my_vote, None);
}

/// Weight requests `(key, vote before, whether my SV's vote is needed)` summarised.
fn deadlines(list: &[(&str, &str, bool)]) -> Vec<OpenRequest> {
    list.iter()
        .map(|&(key, before, needed)| {
            let mut r = weight_request(json!([]));
            r.tracking_cid = Some(key.into());
            r.vote_before = before.into();
            let me = if needed { "Delta" } else { "Alpha" };
            OpenRequest::of(&r, &svs(), Some(3), Some((Some(me), None)))
        })
        .collect()
}

#[test]
fn needing_my_vote_sorted_and_within_a_window() {
    let day = 86_400_000_000_i64;
    let now = parse_time_micros("2026-01-01T00:00:00Z").expect("time");
    let mut reqs = deadlines(&[
        ("k1", "2026-01-05T00:00:00Z", true),
        ("k2", "2026-01-01T12:00:00Z", true),
        ("k3", "2026-01-02T00:00:00Z", false),
    ]);
    sort_by_deadline(&mut reqs);
    let keys: Vec<&str> = reqs.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(keys, ["k2", "k3", "k1"]);
    let all: Vec<&str> = needing_my_vote(&reqs, now, None)
        .iter()
        .map(|r| r.key.as_str())
        .collect();
    assert_eq!(all, ["k2", "k1"]);
    let soon: Vec<&str> = needing_my_vote(&reqs, now, Some(day))
        .iter()
        .map(|r| r.key.as_str())
        .collect();
    assert_eq!(soon, ["k2"]);
}

fn result(outcome: Value, svparty: &str, weight: &str, completed: &str) -> VoteResult {
    VoteResult::decode(&json!({
        "request": {"requester": "Alpha", "trackingCid": format!("t-{completed}"),
            "action": {"tag": "ARC_DsoRules", "value": {"dsoAction": {"tag": "SRARC_UpdateSvRewardWeight",
                "value": {"svParty": svparty, "newRewardWeight": weight}}}},
            "votes": [["Alpha", vote(true, "A::1")], ["Old", vote(true, "O::0")], ["Beta", vote(false, "B::2")]]},
        "completedAt": completed,
        "offboardedVoters": ["Old"],
        "abstainingSvs": ["Gamma"],
        "outcome": outcome
    }))
}

#[test]
fn outcomes_told_apart_and_closed_requests_summarised() {
    let accepted = json!({"tag":"VRO_Accepted","value":{"effectiveAt":"2026-01-03T00:00:00Z"}});
    let r = result(accepted, "D::4", "9000", "2026-01-02T00:00:00Z");
    let c = ClosedRequest::of(&r, &svs());
    assert_eq!(c.outcome, Outcome::Accepted);
    assert_eq!(
        (c.accept, c.reject),
        (1, 1),
        "the offboarded voter does not count"
    );
    assert_eq!(c.effective_at, "2026-01-03T00:00:00Z");
    let failed = result(
        json!({"tag":"VRO_AcceptedButActionFailed","value":{"description":"no such SV"}}),
        "D::4",
        "1",
        "c",
    );
    let c = ClosedRequest::of(&failed, &svs());
    assert_eq!(c.outcome, Outcome::AcceptedButFailed);
    assert_eq!(c.failure.as_deref(), Some("no such SV"));
    assert_eq!(Outcome::parse("Expired"), Some(Outcome::Expired));
    assert_eq!(Outcome::parse("nope"), None);
    assert_eq!(Outcome::Rejected.server_accepted(), Some(false));
    assert_eq!(Outcome::Accepted.server_accepted(), Some(true));
}

#[test]
fn weight_history_from_accepted_changes_only() {
    let acc = |at: &str| json!({"tag":"VRO_Accepted","value":{"effectiveAt": at}});
    let results = vec![
        result(
            acc("2026-01-05T00:00:00Z"),
            "D::4",
            "9000",
            "2026-01-05T00:00:00Z",
        ),
        result(
            json!({"tag":"VRO_Rejected","value":{}}),
            "D::4",
            "1",
            "2026-01-04T00:00:00Z",
        ),
        result(
            acc("2026-01-02T00:00:00Z"),
            "D::4",
            "8000",
            "2026-01-02T00:00:00Z",
        ),
        result(
            acc("2026-01-03T00:00:00Z"),
            "B::2",
            "7000",
            "2026-01-03T00:00:00Z",
        ),
        result(
            acc("2026-01-02T00:00:00Z"),
            "D::4",
            "8000",
            "2026-01-02T00:00:00Z",
        ),
    ];
    let steps = weight_history(&results, "D::4");
    let w: Vec<(&str, i64)> = steps
        .iter()
        .map(|s| (s.effective_at.as_str(), s.weight))
        .collect();
    assert_eq!(
        w,
        [
            ("2026-01-02T00:00:00Z", 8000),
            ("2026-01-05T00:00:00Z", 9000)
        ]
    );
    let t = |s: &str| parse_time_micros(s).expect("time");
    assert_eq!(
        weight_at(&steps, t("2026-01-01T00:00:00Z")),
        None,
        "unknown before the first"
    );
    assert_eq!(weight_at(&steps, t("2026-01-03T00:00:00Z")), Some(8000));
    assert_eq!(weight_at(&steps, t("2026-01-06T00:00:00Z")), Some(9000));
    assert!(weight_history(&results, "C::3").is_empty());
}

#[test]
fn price_median_and_spread() {
    let v = |p: Option<&str>| AmuletPriceVote {
        amulet_price: p.map(str::to_owned),
        ..AmuletPriceVote::default()
    };
    let s = price_stats(&[
        v(Some("0.0050000000")),
        v(Some("0.006")),
        v(None),
        v(Some("0.004")),
        v(Some("x")),
    ]);
    assert_eq!(s.voted, 3);
    assert_eq!(s.median.as_deref(), Some("0.005"));
    assert_eq!(s.spread.as_deref(), Some("0.002"));
    let s = price_stats(&[v(Some("0.004")), v(Some("0.007"))]);
    assert_eq!(s.median.as_deref(), Some("0.0055"));
    let s = price_stats(&[]);
    assert_eq!((s.voted, s.median, s.spread), (0, None, None));
}

#[test]
fn the_open_summary_and_deadline_colours() {
    let hour = 3_600_000_000_i64;
    let now = parse_time_micros("2026-01-01T00:00:00Z").expect("time");
    let reqs = deadlines(&[
        ("k1", "2026-01-01T01:00:00Z", false),
        ("k2", "2026-01-01T20:00:00Z", true),
        ("k3", "2026-01-04T00:00:00Z", true),
    ]);
    let s = OpenSummary::of(&reqs, now, true);
    assert_eq!(s.open, 3);
    assert_eq!(s.needs_my_vote, Some(2));
    assert_eq!(s.next_deadline.as_ref().map(|d| d.0), Some(hour));
    assert_eq!(s.my_next_deadline, Some(20 * hour));
    assert_eq!(Urgency::of(hour), Urgency::Urgent);
    assert_eq!(Urgency::of(20 * hour), Urgency::Soon);
    assert_eq!(Urgency::of(30 * hour), Urgency::Calm);
    assert_eq!(Urgency::of(-hour), Urgency::Urgent, "past");
    let unknown: Vec<OpenRequest> = reqs
        .iter()
        .cloned()
        .map(|mut r| {
            r.my_vote = None;
            r
        })
        .collect();
    assert_eq!(OpenSummary::of(&unknown, now, false).needs_my_vote, None);
    let none = OpenSummary::of(&[], now, true);
    assert_eq!((none.open, none.next_deadline), (0, None));
    assert_eq!(
        none.needs_my_vote,
        Some(0),
        "my SV known, nothing open: nothing needed"
    );
    assert_eq!(OpenSummary::of(&[], now, false).needs_my_vote, None);
}

fn config_result(outcome: Value, completed: &str, new: Value, base: Option<Value>) -> VoteResult {
    let mut value = json!({"newConfig": new});
    if let Some(base) = base {
        value["baseConfig"] = base;
    }
    VoteResult::decode(&json!({
        "request": {"requester": "Alpha", "votes": [], "trackingCid": format!("t-{completed}"),
            "action": {"tag": "ARC_DsoRules", "value": {"dsoAction": {"tag": "SRARC_SetConfig", "value": value}}}},
        "completedAt": completed,
        "outcome": outcome,
    }))
}

#[test]
fn the_config_in_force_then_is_the_newest_accepted_change_before() {
    let accepted = |at: &str| json!({"tag": "VRO_Accepted", "value": {"effectiveAt": at}});
    let old = config_result(
        accepted("2026-01-01T00:00:00Z"),
        "2026-01-01T00:00:00Z",
        json!({"n": 1}),
        None,
    );
    let newer = config_result(
        accepted("2026-01-05T00:00:00Z"),
        "2026-01-05T00:00:00Z",
        json!({"n": 2}),
        None,
    );
    let rejected = config_result(
        json!({"tag": "VRO_Rejected", "value": {}}),
        "2026-01-06T00:00:00Z",
        json!({"n": 9}),
        None,
    );
    let later = config_result(
        accepted("2026-01-09T00:00:00Z"),
        "2026-01-08T00:00:00Z",
        json!({"n": 3}),
        None,
    );
    let all = vec![later.clone(), rejected.clone(), newer.clone(), old.clone()];
    // The rejected change was voted while {"n": 2} was in force; the rejected one never was.
    assert_eq!(config_in_force_then(&rejected, &all), Some(json!({"n": 2})));
    assert_eq!(config_in_force_then(&later, &all), Some(json!({"n": 2})));
    assert_eq!(
        config_in_force_then(&old, &all),
        None,
        "nothing before the first"
    );
    let (base, lines) = action_diff(
        &later.request.action,
        config_in_force_then(&later, &all).as_ref(),
    )
    .expect("a diff");
    assert_eq!(base, DiffBase::InForce);
    assert_eq!(lines[0].path, "n");
}

#[test]
fn the_page_guard_stops_on_a_page_or_token_sent_twice() {
    let a = result(
        json!({"tag": "VRO_Rejected", "value": {}}),
        "D::4",
        "1",
        "2026-01-02T00:00:00Z",
    );
    let b = result(
        json!({"tag": "VRO_Expired"}),
        "D::4",
        "2",
        "2026-01-01T00:00:00Z",
    );
    let mut g = PageGuard::default();
    assert_eq!(
        g.next(std::slice::from_ref(&a), Some(1)),
        (true, NextPage::After(1))
    );
    assert_eq!(
        g.next(std::slice::from_ref(&b), Some(2)),
        (true, NextPage::After(2))
    );
    assert_eq!(g.next(&[], Some(3)), (true, NextPage::End));
    // A scan that ignores pageToken sends its first page again: nothing of it is kept.
    let mut g = PageGuard::default();
    assert_eq!(
        g.next(std::slice::from_ref(&a), Some(1)),
        (true, NextPage::After(1))
    );
    let (keep, next) = g.next(std::slice::from_ref(&a), Some(1));
    assert!(!keep);
    assert!(matches!(next, NextPage::Repeated(why) if why.contains("same page twice")));
    // Another page with a token seen before.
    let mut g = PageGuard::default();
    g.next(std::slice::from_ref(&a), Some(1));
    let (keep, next) = g.next(std::slice::from_ref(&b), Some(1));
    assert!(keep);
    assert!(matches!(next, NextPage::Repeated(why) if why.contains("token 1 twice")));
    assert_eq!(g.next(&[], None).1, NextPage::End);
}

#[test]
fn results_query_server_filter_and_what_is_told_apart_here() {
    let q = ResultsQuery {
        action: Some("SetConfig".into()),
        outcome: Some(Outcome::Expired),
        requester: Some("Alpha".into()),
        from: filter_time("2026-01-01T10:00:00+02:00"),
        until: None,
    };
    let f = q.server_filter();
    assert_eq!(f.accepted, Some(false));
    assert_eq!(f.requester.as_deref(), Some("Alpha"));
    assert_eq!(
        f.effective_from.as_deref(),
        Some("2026-01-01T08:00:00.000000Z")
    );
    assert!(!q.count_is_exact());
    let rows: Vec<ClosedRequest> = [
        json!({"tag": "VRO_Expired"}),
        json!({"tag": "VRO_Rejected", "value": {}}),
    ]
    .into_iter()
    .map(|o| ClosedRequest::of(&result(o, "D::4", "1", "2026-01-02T00:00:00Z"), &svs()))
    .collect();
    assert!(q.keeps(&rows[0]));
    assert!(!q.keeps(&rows[1]), "rejected is not expired");
    let other = ResultsQuery {
        requester: Some("Alph".into()),
        ..ResultsQuery::default()
    };
    assert!(!other.keeps(&rows[0]), "the requester matches exactly");
    assert!(ResultsQuery::default().count_is_exact());
    assert_eq!(ResultsQuery::default().words(), "no filter");
    assert_eq!(filter_time("next tuesday"), None);
}

#[test]
fn vote_requests_compare_in_any_order() {
    use crate::model::consensus::{Answer, Body, group_answers};
    let r1 = json!({"contract_id": "01", "payload": {"trackingCid": null}});
    let r2 = json!({"contract_id": "02", "payload": {"trackingCid": "00"}});
    let mut answers = vec![
        Answer::Ok(Body::Json(
            json!({"dso_rules_vote_requests": [r1.clone(), r2.clone()]}),
        )),
        Answer::Ok(Body::Json(
            json!({"dso_rules_vote_requests": [r2.clone(), r1.clone()]}),
        )),
        Answer::Ok(Body::Json(json!({"dso_rules_vote_requests": [r2]}))),
    ];
    assert_eq!(group_answers(&answers).groups.len(), 3);
    for a in &mut answers {
        VOTE_REQUESTS_UNORDERED.sort(a);
    }
    let g = group_answers(&answers);
    assert_eq!(g.groups.len(), 2);
    assert_eq!(g.groups[0].members, [0, 1]);
}

/// A pane query's check over four scans (answers in scan order), as the network session
/// builds it.
fn check_of(answers: Vec<crate::model::consensus::Answer>) -> crate::model::network::NetworkCheck {
    use crate::model::network::{CheckedOnScans, NetworkCheck, ScanEntry};
    let n = answers.len();
    let check = crate::model::consensus::classify_update(&answers, &vec![true; n], &[], false);
    NetworkCheck {
        update_id: "q".into(),
        query: Some("q".into()),
        entries: (0..n)
            .map(|i| ScanEntry {
                sv_name: format!("SV-{i}"),
                url: format!("http://scan{i}"),
                listed: true,
                pinned: false,
                own: i == 0,
                counted: true,
            })
            .collect(),
        update: CheckedOnScans {
            endpoint: "q".into(),
            check,
            latency_ms: vec![1; n],
            answers,
        },
        event: None,
        checked_at: 0,
    }
}

#[test]
fn across_scans_names_a_differing_scan_with_both_values() {
    use crate::model::consensus::{Answer, Body};
    let count = |n: i64| Answer::Ok(Body::Json(json!({"count": n})));
    let request = |votes: usize| json!({"contract_id": "01", "payload": {"votes": (0..votes).map(|i| json!([format!("SV-{i}"), {"accept": true}])).collect::<Vec<_>>()}});
    let requests = |votes: usize| {
        Answer::Ok(Body::Json(
            json!({"dso_rules_vote_requests": [request(votes)]}),
        ))
    };
    let counts = check_of(vec![count(331), count(331), count(298), Answer::Timeout]);
    // The last scan has not seen the newest vote yet.
    let open = check_of(vec![requests(3), requests(3), requests(3), requests(2)]);
    let a = across_scans(&counts, &open);
    assert_eq!(a.rows.len(), 4);
    assert_eq!(a.rows[0].count, AcrossCell::Agree("331".into()));
    assert_eq!(a.rows[2].count.words(), "differs: 298 here, 331 there");
    assert!(matches!(&a.rows[3].count, AcrossCell::Failed(e) if e.starts_with("timeout")));
    assert_eq!(a.count_differs().len(), 1);
    assert_eq!(a.rows[0].requests.words(), "1 open · 3 votes");
    assert_eq!(
        a.rows[3].requests.words(),
        "differs: 1 open · 2 votes here, 1 open · 3 votes there"
    );
    assert_eq!(a.requests_differ().len(), 1);
    assert!(
        a.count_verdict.starts_with("consensus: 2 of 4"),
        "{}",
        a.count_verdict
    );
    // No consensus: each answer stands alone.
    let split = check_of(vec![count(1), count(2), count(3), count(4)]);
    let b = across_scans(&split, &open);
    assert_eq!(b.rows[0].count.words(), "1 (no consensus)");
}
