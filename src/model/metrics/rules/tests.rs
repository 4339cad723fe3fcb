//! Each rule fires, clears, is not exported, is not determined.
#![allow(clippy::float_cmp)]

use super::ctx::firing;
use super::*;
use crate::model::metrics::{AlertState, Severity, scrape_of};

const NOW: i64 = 1_800_000_000 * SECOND;

fn scrape(endpoint: &str, body: &str) -> Scrape {
    scrape_of(endpoint, NOW, body)
}

fn run(scrapes: &[Scrape], previous: Option<&SampleSet>, now: i64) -> (Vec<RuleState>, SampleSet) {
    evaluate(&AlertRules::default(), scrapes, previous, now)
}

fn of(rows: &[RuleState], id: RuleId) -> Vec<&RuleState> {
    rows.iter().filter(|r| r.id == id).collect()
}

fn one(rows: &[RuleState], id: RuleId) -> &RuleState {
    let found = of(rows, id);
    assert_eq!(found.len(), 1, "{id:?}: {found:#?}");
    found[0]
}

#[test]
fn nothing_exported_is_not_exported_never_a_zero() {
    let (rows, _) = run(&[scrape("sv-app", "other_metric 1\n")], None, NOW);
    assert_eq!(rows.len(), RuleId::ALL.len());
    for row in &rows {
        assert_eq!(row.state, AlertState::NotExported, "{row:?}");
        assert_eq!(row.value, None);
    }
    // An unreachable endpoint: not determined, named.
    let down = Scrape {
        endpoint: "mediator".into(),
        at_us: NOW,
        result: Err("connection refused".into()),
    };
    let (rows, _) = run(&[scrape("sv-app", ""), down], None, NOW);
    match &one(&rows, RuleId::MediatorAckLag).state {
        AlertState::NotDetermined { why } => assert!(why.contains("mediator"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn sequencer_delay_fires_after_threshold_plus_for() {
    let at = |age_s: i64| format!("{} {}\n", names::SEQUENCING_TIME, NOW - age_s * SECOND);
    // 6 min old: past 90 s, but not for 5 min yet.
    let (rows, _) = run(&[scrape("participant", &at(360))], None, NOW);
    assert_eq!(
        one(&rows, RuleId::SequencerClientDelay).state,
        AlertState::Ok
    );
    let (rows, _) = run(&[scrape("participant", &at(400))], None, NOW);
    let row = one(&rows, RuleId::SequencerClientDelay);
    assert_eq!(row.state, firing(Severity::Critical));
    assert_eq!(row.since_us, Some(NOW - 400 * SECOND + 390 * SECOND));
    assert_eq!(row.value.as_deref(), Some("6m 40s"));
    assert_eq!(row.threshold, "> 90s for 5m");
    assert_eq!(row.source, Source::DaRule);
    // The participant and the mediator both export it: two rows, by endpoint.
    let (rows, _) = run(
        &[
            scrape("participant", &at(10)),
            scrape("mediator", &at(1000)),
        ],
        None,
        NOW,
    );
    let both = of(&rows, RuleId::SequencerClientDelay);
    assert_eq!(both.len(), 2);
    assert_eq!(both[1].subject.as_deref(), Some("mediator"));
    assert!(both[1].state.is_firing() && !both[0].state.is_firing());
    // Nothing sequenced yet (0).
    let (rows, _) = run(
        &[scrape(
            "participant",
            &format!("{} 0\n", names::SEQUENCING_TIME),
        )],
        None,
        NOW,
    );
    assert!(matches!(
        one(&rows, RuleId::SequencerClientDelay).state,
        AlertState::NotDetermined { .. }
    ));
}

#[test]
fn mediator_lag_reads_mediator_members_only() {
    let body = format!(
        "{n}{{member=\"PAR::p::1220\"}} {fresh}\n{n}{{member=\"MED::m::1220\"}} {old}\n",
        n = names::ACKNOWLEDGMENTS,
        fresh = NOW,
        old = NOW - 1300 * SECOND
    );
    let (rows, _) = run(&[scrape("sequencer", &body)], None, NOW);
    assert!(one(&rows, RuleId::MediatorAckLag).state.is_firing());
    let body = format!(
        "{}{{member=\"MED::m::1220\"}} {}\n",
        names::ACKNOWLEDGMENTS,
        NOW - 60 * SECOND
    );
    let (rows, _) = run(&[scrape("sequencer", &body)], None, NOW);
    assert_eq!(one(&rows, RuleId::MediatorAckLag).state, AlertState::Ok);
}

#[test]
fn rounds_fire_when_unchanged_for_the_window_and_clear_on_a_new_round() {
    let body = |open: i64| {
        format!(
            "{} {open}\n{} {}\n",
            names::OPEN_ROUND,
            names::ISSUING_ROUND,
            open - 1
        )
    };
    let (rows, first) = run(&[scrape("sv-app", &body(100))], None, NOW);
    let open = of(&rows, RuleId::RoundsNotAdvancing);
    assert_eq!(open.len(), 2);
    assert!(
        matches!(open[0].state, AlertState::NotDetermined { .. }),
        "{open:?}"
    );
    // Ten minutes on, a new round: ok.
    let later = NOW + 10 * MINUTE;
    let (rows, second) = run(&[scrape("sv-app", &body(101))], Some(&first), later);
    assert_eq!(
        of(&rows, RuleId::RoundsNotAdvancing)[0].state,
        AlertState::Ok
    );
    // 31 minutes without one: fires, since the change + 30 min.
    let stalled = later + 31 * MINUTE;
    let (rows, third) = run(&[scrape("sv-app", &body(101))], Some(&second), stalled);
    let row = of(&rows, RuleId::RoundsNotAdvancing)[0];
    assert!(row.state.is_firing(), "{row:?}");
    assert_eq!(row.since_us, Some(later + 30 * MINUTE));
    // A new round clears it.
    let (rows, _) = run(
        &[scrape("sv-app", &body(102))],
        Some(&third),
        stalled + MINUTE,
    );
    assert_eq!(
        of(&rows, RuleId::RoundsNotAdvancing)[0].state,
        AlertState::Ok
    );
}

#[test]
fn status_report_age() {
    let body = format!(
        "{n}{{report_publisher=\"SV-1\"}} {a}\n{n}{{report_publisher=\"SV-2\"}} {b}\n",
        n = names::STATUS_REPORT,
        a = NOW - 10 * SECOND,
        b = NOW - 400 * SECOND
    );
    let (rows, _) = run(&[scrape("sv-app", &body)], None, NOW);
    let row = one(&rows, RuleId::StatusReportAge);
    assert!(row.state.is_firing());
    assert!(
        row.value.as_deref().is_some_and(|v| v.contains("SV-2")),
        "{row:?}"
    );
}

fn bft(conn: &str, success: bool, agree: f64, disagree: f64, other: f64) -> String {
    let n = names::BFT_CONSENSUS;
    format!(
        "{n}{{scan_connection=\"{conn}\",request=\"listDsoScans\",consensus=\"agree\",success=\"{success}\"}} {agree}\n\
         {n}{{scan_connection=\"{conn}\",request=\"listDsoScans\",consensus=\"disagree\",success=\"{success}\"}} {disagree}\n\
         {n}{{scan_connection=\"{conn}\",request=\"getOpenAndIssuingMiningRounds\",consensus=\"disagree\",success=\"{success}\"}} {other}\n\
         {n}{{scan_connection=\"{conn}\",request=\"lookup\",status_code=\"404\",consensus=\"disagree\",success=\"{success}\"}} {other}\n"
    )
}

#[test]
fn scan_disagreement_share_per_connection_and_success() {
    let first = bft("https://scan.a", true, 100.0, 0.0, 0.0)
        + &bft("https://scan.b", false, 100.0, 0.0, 0.0);
    let (rows, kept) = run(&[scrape("validator", &first)], None, NOW);
    for row in of(&rows, RuleId::ScanDisagreement) {
        assert!(
            matches!(row.state, AlertState::NotDetermined { .. }),
            "{row:?}"
        );
    }
    // 20 % of a's successful reads disagree (critical); b's failed reads 5 % (ok); the
    // excluded requests disagree wildly and do not count.
    let second = bft("https://scan.a", true, 180.0, 20.0, 500.0)
        + &bft("https://scan.b", false, 195.0, 5.0, 500.0);
    let (rows, kept2) = run(
        &[scrape("validator", &second)],
        Some(&kept),
        NOW + 5 * MINUTE,
    );
    let rows = of(&rows, RuleId::ScanDisagreement);
    assert_eq!(rows[0].subject.as_deref(), Some("https://scan.a"));
    assert_eq!(rows[0].state, firing(Severity::Critical));
    assert_eq!(rows[1].state, AlertState::Ok, "{:?}", rows[1]);
    // Failed reads disagreeing: a warning.
    let third = bft("https://scan.a", true, 180.0, 20.0, 500.0)
        + &bft("https://scan.b", false, 195.0, 50.0, 500.0);
    let (rows, _) = run(
        &[scrape("validator", &third)],
        Some(&kept2),
        NOW + 6 * MINUTE,
    );
    assert_eq!(
        of(&rows, RuleId::ScanDisagreement)[1].state,
        firing(Severity::Warning)
    );
    // A previous run older than the window: not determined, named.
    let (rows, _) = run(
        &[scrape("validator", &second)],
        Some(&kept),
        NOW + 31 * MINUTE,
    );
    match &of(&rows, RuleId::ScanDisagreement)[0].state {
        AlertState::NotDetermined { why } => {
            assert!(why.contains("older than the 30m window"), "{why}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn counters_fire_on_an_increase_and_clear_after_the_window() {
    let body = |failures: f64, missed: f64| {
        format!(
            "{t}{{outcome=\"success\",trigger=\"a\"}} 50\n{t}{{outcome=\"failure\",trigger=\"a\"}} {failures}\n\
             {m}{{party=\"DSO::1220\"}} {missed}\n{m}{{party=\"PAR::x\"}} 99\n",
            t = names::TRIGGERS,
            m = names::NON_RESPONSIVE
        )
    };
    let (rows, s1) = run(&[scrape("sv-app", &body(3.0, 1.0))], None, NOW);
    assert!(matches!(
        one(&rows, RuleId::AutomationFailures).state,
        AlertState::NotDetermined { .. }
    ));
    assert!(matches!(
        one(&rows, RuleId::MissedConfirmations).state,
        AlertState::NotDetermined { .. }
    ));
    let t2 = NOW + 2 * MINUTE;
    let (rows, s2) = run(&[scrape("sv-app", &body(5.0, 2.0))], Some(&s1), t2);
    let failures = one(&rows, RuleId::AutomationFailures);
    assert_eq!(failures.state, firing(Severity::Warning));
    assert_eq!(failures.since_us, Some(t2));
    assert_eq!(failures.value.as_deref(), Some("2 in 10m"));
    assert!(one(&rows, RuleId::MissedConfirmations).state.is_firing());
    // Still firing a minute later: since stays.
    let t3 = t2 + MINUTE;
    let (rows, s3) = run(&[scrape("sv-app", &body(5.0, 2.0))], Some(&s2), t3);
    assert_eq!(one(&rows, RuleId::AutomationFailures).since_us, Some(t2));
    // No failure for ten minutes: clears (a scrape within the window to compare with).
    let (_, s3) = run(
        &[scrape("sv-app", &body(5.0, 2.0))],
        Some(&s3),
        t3 + 9 * MINUTE,
    );
    let t4 = t3 + 10 * MINUTE + SECOND;
    let (rows, s4) = run(&[scrape("sv-app", &body(5.0, 2.0))], Some(&s3), t4);
    assert_eq!(
        one(&rows, RuleId::AutomationFailures).state,
        AlertState::Ok,
        "{s3:?}"
    );
    assert_eq!(
        one(&rows, RuleId::MissedConfirmations).state,
        AlertState::Ok
    );
    assert!(s4.firing.is_empty());
    // A counter reset counts from zero.
    let (rows, _) = run(&[scrape("sv-app", &body(1.0, 2.0))], Some(&s4), t4 + MINUTE);
    assert!(one(&rows, RuleId::AutomationFailures).state.is_firing());
}

#[test]
fn ingestion_lag_and_acs_commitments() {
    let body = format!(
        "{i}{{store=\"dso\"}} {fresh}\n{i}{{store=\"user\"}} {old}\n{c} {min}\n",
        i = names::INGESTED,
        fresh = NOW / 1000 - 1000,
        old = NOW / 1000 - 21 * 60 * 1000,
        c = names::COMMITMENTS,
        min = -62_135_596_800_000_000_i64
    );
    let (rows, _) = run(&[scrape("scan", &body)], None, NOW);
    let lag = one(&rows, RuleId::IngestionLag);
    assert!(lag.state.is_firing());
    assert_eq!(lag.subject.as_deref(), Some("scan (store=user)"));
    assert_eq!(lag.source, Source::ValidatorDocs);
    let acs = one(&rows, RuleId::AcsCommitments);
    assert!(
        matches!(acs.state, AlertState::NotDetermined { .. }),
        "{acs:?}"
    );
    // In µs, 50 min old: fires; 10 min old: ok.
    for (age, fires) in [(3000, true), (600, false)] {
        let body = format!("{} {}\n", names::COMMITMENTS, NOW - age * SECOND);
        let (rows, _) = run(&[scrape("participant", &body)], None, NOW);
        assert_eq!(one(&rows, RuleId::AcsCommitments).state.is_firing(), fires);
    }
}

#[test]
fn traffic_by_the_profile_thresholds() {
    for (consumed, state) in [
        (50.0, AlertState::Ok),
        (85.0, firing(Severity::Warning)),
        (97.0, firing(Severity::Critical)),
    ] {
        let body = format!(
            "{}{{member=\"PAR::p\"}} 100\n{}{{member=\"PAR::p\"}} {consumed}\n",
            names::TRAFFIC_PURCHASED,
            names::TRAFFIC_CONSUMED
        );
        let (rows, _) = run(&[scrape("participant", &body)], None, NOW);
        let row = one(&rows, RuleId::Traffic);
        assert_eq!(row.state, state);
        assert_eq!(row.source, Source::Profile);
    }
}

#[test]
fn ordering_layer_height() {
    let body = |h: i64| format!("cometbft_consensus_height {h}\n");
    let (_, s1) = run(&[scrape("sequencer", &body(10))], None, NOW);
    let (rows, s2) = run(&[scrape("sequencer", &body(11))], Some(&s1), NOW + SECOND);
    assert_eq!(one(&rows, RuleId::OrderingLayer).state, AlertState::Ok);
    let (rows, _) = run(
        &[scrape("sequencer", &body(11))],
        Some(&s2),
        NOW + 6 * MINUTE,
    );
    assert!(one(&rows, RuleId::OrderingLayer).state.is_firing());
}

#[test]
fn votes_are_information() {
    let body = format!(
        "{v}{{state=\"action_needed\"}} 2\n{v}{{state=\"voted\"}} 5\n",
        v = names::VOTES
    );
    let (rows, _) = run(&[scrape("sv-app", &body)], None, NOW);
    let row = one(&rows, RuleId::VotesNeedingAction);
    assert_eq!(row.state, AlertState::Info);
    assert_eq!(row.value.as_deref(), Some("2"));
}

#[test]
fn the_sample_set_round_trips_through_json() {
    let body = format!(
        "{}{{outcome=\"failure\"}} 1\n{} 5\n",
        names::TRIGGERS,
        names::OPEN_ROUND
    );
    let (_, kept) = run(&[scrape("sv-app", &body)], None, NOW);
    let text = kept.to_json();
    assert_eq!(SampleSet::from_json(&text), Some(kept));
    assert_eq!(SampleSet::from_json("not json"), None);
}

#[test]
fn counter_points_stay_bounded() {
    let mut kept: Option<SampleSet> = None;
    for i in 0..2000 {
        let body = format!("{}{{outcome=\"failure\"}} {i}\n", names::TRIGGERS);
        let (_, next) = run(
            &[scrape("sv-app", &body)],
            kept.as_ref(),
            NOW + i * 15 * SECOND,
        );
        kept = Some(next);
    }
    let kept = kept.unwrap();
    let points = kept.counters.values().next().unwrap();
    assert!(points.len() <= 40, "{}", points.len());
}
