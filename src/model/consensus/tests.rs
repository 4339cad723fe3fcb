use serde_json::json;

use super::*;

#[test]
fn quorum_table() {
    // n = 1..=13 → (f, quorum): f grows by one every three scans.
    let table = [
        (1..=3, 0, 1),
        (4..=6, 1, 2),
        (7..=9, 2, 3),
        (10..=12, 3, 4),
        (13..=13, 4, 5),
    ];
    for (ns, f, q) in table {
        for n in ns {
            assert_eq!(fault_tolerance(n), f, "f of {n}");
            assert_eq!(quorum(n), q, "quorum of {n}");
        }
    }
    assert_eq!(quorum(0), 1);
}

#[test]
fn canonical_json_sorts_keys_and_drops_whitespace() {
    let a: Value =
        serde_json::from_str(r#"{"b": [1, {"y": 2, "x": null}], "a": "é"}"#).expect("json");
    assert_eq!(canonical_json(&a), r#"{"a":"é","b":[1,{"x":null,"y":2}]}"#);
}

#[test]
fn local_fields_are_stripped() {
    let mut event = json!({
        "update": {"update_id": "u", "offset": "0001"},
        "verdict": {"finalization_time": "t", "verdict_result": "ACCEPTED"},
        "app_activity_records": null,
    });
    LocalFields::EVENT.strip(&mut event);
    assert_eq!(
        event,
        json!({"update": {"update_id": "u"}, "verdict": {"verdict_result": "ACCEPTED"}})
    );
    let mut page = json!({"transactions": [{"offset": "1", "a": 1}, {"a": 2}]});
    LocalFields::PAGE.strip(&mut page);
    assert_eq!(page, json!({"transactions": [{"a": 1}, {"a": 2}]}));
}

#[test]
fn diff_paths_name_both_values() {
    let a = json!({"a": 1, "b": {"c": [1, 2], "d": null}, "odd key": true});
    let b = json!({"a": 1, "b": {"c": [1, 3, 4]}, "odd key": false});
    let (diffs, truncated) = json_diff(&a, &b, 10);
    assert!(!truncated);
    let paths: Vec<&str> = diffs.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, ["$.b.c[1]", "$.b.c[2]", "$.b.d", "$[\"odd key\"]"]);
    assert_eq!(diffs[0].quorum, Some(json!(2)));
    assert_eq!(diffs[0].this, Some(json!(3)));
    assert_eq!(diffs[1].quorum, None);
    assert_eq!(diffs[2].quorum, Some(Value::Null));
    assert_eq!(diffs[2].this, None);
    let (diffs, truncated) = json_diff(&a, &b, 2);
    assert_eq!(diffs.len(), 2);
    assert!(truncated);
}

fn ok(json: &str) -> Answer {
    Answer::from_http(200, json.as_bytes(), LocalFields::UPDATE)
}

fn err(status: u16, json: &str) -> Answer {
    Answer::from_http(status, json.as_bytes(), LocalFields::UPDATE)
}

#[test]
fn grouping_rules() {
    // (answers, expected group sizes, consensus group size or 0)
    let unreachable = Answer::Unreachable {
        detail: "connection refused".into(),
    };
    let cases: Vec<(&str, Vec<Answer>, Vec<usize>, usize)> = vec![
        (
            "field order and whitespace do not matter",
            vec![
                ok(r#"{"a":1,"b":2}"#),
                ok(r#"{ "b": 2, "a": 1 }"#),
                ok(r#"{"b":2,"a":1}"#),
                ok(r#"{"a":1,"b":3}"#),
            ],
            vec![3, 1],
            3,
        ),
        (
            "null and absent are different values",
            vec![
                ok(r#"{"a":1,"b":null}"#),
                ok(r#"{"a":1}"#),
                ok(r#"{"a":1}"#),
                ok(r#"{"a":1,"b":null}"#),
            ],
            vec![2, 2],
            0,
        ),
        (
            "identical 404s are a consensus",
            vec![
                err(404, r#"{"error":"not found"}"#),
                err(404, r#"{ "error" : "not found" }"#),
                ok("{}"),
                unreachable.clone(),
            ],
            vec![2, 1],
            2,
        ),
        (
            "errors group by status and body",
            vec![
                err(404, r#"{"error":"a"}"#),
                err(404, r#"{"error":"b"}"#),
                err(500, r#"{"error":"a"}"#),
                err(404, "plain text"),
            ],
            vec![1, 1, 1, 1],
            0,
        ),
        (
            "transport failures never group",
            vec![
                Answer::Timeout,
                Answer::Timeout,
                unreachable.clone(),
                unreachable,
            ],
            vec![],
            0,
        ),
        (
            "a reassignment's offset is local",
            vec![
                ok(r#"{"update_id":"u","offset":"1"}"#),
                ok(r#"{"update_id":"u","offset":"2"}"#),
                ok(r#"{"update_id":"u"}"#),
                Answer::Timeout,
            ],
            vec![3],
            3,
        ),
    ];
    for (name, answers, sizes, consensus) in cases {
        let g = group_answers(&answers);
        let got: Vec<usize> = g.groups.iter().map(|g| g.members.len()).collect();
        assert_eq!(got, sizes, "{name}");
        assert_eq!(
            g.consensus_group().map_or(0, |c| c.members.len()),
            consensus,
            "{name}"
        );
    }
    // Two groups with a quorum each: conflicting.
    let g = group_answers(&[ok("1"), ok("1"), ok("2"), ok("2")]);
    assert_eq!(g.consensus, Consensus::Conflicting { groups: vec![0, 1] });
    // n counts the failing scans: 13 scans, 4 matching answers are not enough.
    let mut answers = vec![Answer::Timeout; 9];
    answers.extend(std::iter::repeat_n(ok("{}"), 4));
    assert_eq!(group_answers(&answers).consensus, Consensus::None);
    answers[0] = ok("{}");
    assert!(matches!(
        group_answers(&answers).consensus,
        Consensus::Reached { .. }
    ));
}

#[test]
fn the_verdict_line_says_whether_a_quorum_exists_and_what_it_is() {
    let update = r#"{"update_id":"u","migration_id":1,"record_time":"2026-01-01T00:00:00Z"}"#;
    let other = r#"{"update_id":"u","migration_id":1,"record_time":"2026-01-01T00:00:01Z"}"#;
    let refused = || Answer::Unreachable {
        detail: "refused".into(),
    };
    let check = |answers: &[Answer]| {
        classify_update(answers, &vec![true; answers.len()], &[], false).verdict()
    };
    assert_eq!(
        check(&[ok(update), ok(update), ok(other), refused()]),
        "consensus: 2 of 4 agree on one answer (quorum 2) ✓ · 1 disagrees · 1 without an answer"
    );
    let gone = || err(404, r#"{"error":"x"}"#);
    assert_eq!(
        check(&[gone(), gone(), ok(update), refused()]),
        "not found: 2 of 4 answer 404 (quorum 2), no such update · 1 disagrees · 1 without an answer"
    );
    assert_eq!(
        check(&[ok(update), ok(other), refused(), refused()]),
        "no consensus: the largest group has 1 of 4 (quorum 2) ✗ · 2 without an answer"
    );
    assert_eq!(
        check(&[ok(update), ok(update), ok(other), ok(other)]),
        "conflicting: 2 groups reach the quorum of 2 ✗"
    );
}

#[test]
fn classes_of_one_update() {
    let body = r#"{"update_id":"u","migration_id":2,"record_time":"2026-01-01T00:00:10Z","x":1}"#;
    let other = r#"{"update_id":"u","migration_id":2,"record_time":"2026-01-01T00:00:10Z","x":2}"#;
    let missing = r#"{"error":"not found"}"#;
    let at = |s: i64| Position {
        migration_id: 2,
        record_time: super::super::format::parse_time_micros("2026-01-01T00:00:00Z").expect("time")
            + s * 1_000_000,
    };
    let answers = vec![
        ok(body),
        ok(body),
        ok(other),
        err(404, missing), // behind
        err(404, missing), // backfilling
        err(404, missing), // caught up: disagrees
        err(500, r#"{"error":"boom"}"#),
        Answer::Timeout,
        ok(body), // not counted: compared only
    ];
    let mut history = vec![ScanHistory::default(); answers.len()];
    history[3].head = Some(at(5));
    history[4].backfilling = Some(true);
    history[5].head = Some(at(20));
    let mut counted = vec![true; answers.len()];
    counted[8] = false;
    let check = classify_update(&answers, &counted, &history, false);
    assert_eq!(check.grouping.n, 8);
    assert_eq!(check.grouping.quorum, 3);
    assert_eq!(check.position, Some(at(10)));
    let names: Vec<&str> = check.classes.iter().map(ScanClass::name).collect();
    assert_eq!(
        names,
        [
            "unconfirmed",
            "unconfirmed",
            "unconfirmed",
            "dont_know",
            "dont_know",
            "error",
            "error",
            "timeout",
            "unconfirmed"
        ]
    );
    // Two agreeing answers are not a quorum of 8 (3); the observer does not vote.
    assert!(check.grouping.consensus_group().is_none());
    let mut answers = answers;
    answers[6] = ok(body);
    let check = classify_update(&answers, &counted, &history, false);
    assert!(check.grouping.consensus_group().is_some());
    let names: Vec<&str> = check.classes.iter().map(ScanClass::name).collect();
    assert_eq!(
        names,
        [
            "agree",
            "agree",
            "disagree",
            "dont_know",
            "dont_know",
            "disagree",
            "agree",
            "timeout",
            "agree"
        ]
    );
    let ScanClass::Disagree {
        status,
        differences,
        ..
    } = &check.classes[2]
    else {
        panic!("{:?}", check.classes[2]);
    };
    assert_eq!(*status, 200);
    assert_eq!(differences[0].path, "$.x");
    assert!(matches!(
        check.classes[3],
        ScanClass::DontKnow(UnknownReason::Behind { .. })
    ));
    assert_eq!(
        check.classes[4],
        ScanClass::DontKnow(UnknownReason::Backfilling)
    );
    assert!(matches!(
        check.classes[5],
        ScanClass::Disagree { status: 404, .. }
    ));
    assert_eq!(check.classes[8], ScanClass::Agree);
    // The hash lookup: every 404 is "not indexed here".
    let check = classify_update(&answers, &counted, &history, true);
    assert_eq!(
        check.classes[5],
        ScanClass::DontKnow(UnknownReason::NotIndexed)
    );
}

#[test]
fn a_scan_behind_the_update_names_its_history_end_only_when_known() {
    let body = r#"{"update_id":"u","migration_id":2,"record_time":"2026-01-01T00:00:10Z","x":1}"#;
    let missing = r#"{"error":"not found"}"#;
    let answers = vec![ok(body), ok(body), ok(body), err(404, missing)];
    let mut history = vec![ScanHistory::default(); answers.len()];
    // Known only not to reach the update: no time is named.
    history[3].reaches = Some(false);
    let check = classify_update(&answers, &[true; 4], &history, false);
    assert_eq!(
        check.classes[3],
        ScanClass::DontKnow(UnknownReason::Behind { head: None })
    );
    assert_eq!(
        check.classes[3].detail(),
        "its history does not reach this update yet"
    );
    // Its newest update known: that time, not the update's.
    let head = Position {
        migration_id: 2,
        record_time: super::super::format::parse_time_micros("2026-01-01T00:00:04Z").expect("time"),
    };
    history[3] = ScanHistory {
        head: Some(head),
        ..ScanHistory::default()
    };
    let check = classify_update(&answers, &[true; 4], &history, false);
    assert_eq!(
        check.classes[3].detail(),
        "its history ends before it, at 2026-01-01T00:00:04.000000Z"
    );
}
