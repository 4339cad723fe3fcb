use super::status::index_status;
use super::*;

#[test]
fn rows_align_numbers_right_and_neutralise_server_text() {
    let doc = r#"{"validatorsReceivedFaucets":[
        {"validator":"harbor-validator-1::1220ab","numRoundsCollected":120,"numRoundsMissed":3,"firstCollectedInRound":10,"lastCollectedInRound":130},
        {"validator":"evil\u001b[2J","numRoundsCollected":7,"numRoundsMissed":0,"firstCollectedInRound":1,"lastCollectedInRound":null}
    ]}"#;
    let table = render(&FAUCETS, doc).expect("a table");
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(
        lines[0],
        "VALIDATOR                   COLLECTED  MISSED  FIRST  LAST"
    );
    assert_eq!(
        lines[1],
        "harbor-validator-1::1220ab        120       3     10   130"
    );
    assert_eq!(
        lines[2],
        "evil [2J                            7       0      1"
    );
    assert!(!table.contains('\u{1b}'));
}

#[test]
fn an_empty_list_says_none_and_other_json_is_not_a_table() {
    let table = render(&FAUCETS, r#"{"validatorsReceivedFaucets":[]}"#).expect("a table");
    assert!(table.ends_with("(none)\n"), "{table}");
    assert_eq!(render(&FAUCETS, r#"{"other":1}"#), None);
    assert_eq!(render(&FAUCETS, "not json"), None);
}

#[test]
fn json_lines_are_rows_and_a_document_without_rows_is_key_value() {
    let lines = "{\"completed_at\":\"t1\",\"outcome\":\"accepted\",\"accept\":4}\n\
                 {\"completed_at\":\"t2\",\"outcome\":\"expired\",\"accept\":1}\n";
    let table = render(&GOVERNANCE_RESULTS, lines).expect("a table");
    assert!(
        table
            .lines()
            .nth(2)
            .is_some_and(|l| l.starts_with("t2         expired")),
        "{table}"
    );
    let status = render(
        &KEY_VALUE,
        r#"{"success":{"id":"scan-app","uptime":"PT5S","ports":{"admin":5012},"active":true}}"#,
    )
    .expect("key value");
    assert!(status.contains("success.ports.admin  5012"), "{status}");
    assert!(status.contains("success.active       yes"), "{status}");
}

#[test]
fn amounts_group_their_thousands_and_a_column_no_row_fills_is_left_out() {
    let json = r#"{"record_time":"2026-12-01T00:00:00Z","migration_id":0,
        "summaries":[
          {"party_id":"alice::1220","total_unlocked_coin":"1234567.5000000000",
           "total_locked_coin":"0.0000000000","total_coin_holdings":"1234567.5000000000"},
          {"party_id":"bob::1220","total_unlocked_coin":"-1000.25",
           "total_locked_coin":"12.0","total_coin_holdings":"987.75"}]}"#;
    let table = render(&HOLDINGS, json).expect("a table");
    assert!(!table.contains("FEES"), "{table}");
    assert!(table.contains("1,234,567.5000000000"), "{table}");
    assert!(table.contains("-1,000.25"), "{table}");
    let header = table
        .lines()
        .find(|l| l.starts_with("PARTY"))
        .expect("header");
    assert!(header.ends_with("HOLDINGS"), "{header}");
    // A value that is no decimal stays as sent.
    assert_eq!(grouped_decimal("1220abc.5"), None);
    assert_eq!(grouped_decimal("2026"), None);
}

#[test]
fn index_status_shows_each_ranges_events_share_and_none_for_a_range_without_updates() {
    use crate::store::EventsCoverage;
    let doc = serde_json::json!({
        "location": "i.sqlite", "schema_version": 8, "summary_version": 1,
        "updates": 300, "bodies": 300, "events": 187, "size_bytes": 1,
        "migrations": [{"migration_id": 4, "updates": 300,
            "events": EventsCoverage::of(300, 187)}],
        "chunks": [
            {"id": 1, "state": "done", "updates": 299, "events": EventsCoverage::of(299, 187)},
            {"id": 2, "state": "done", "updates": 1, "events": EventsCoverage::of(1, 0)},
            {"id": 3, "state": "open", "updates": 0, "events": EventsCoverage::of(0, 0)},
        ],
        "gaps": [], "divergences": [], "last_sync": null, "sync_running": null,
        "verifications": [],
    });
    let shown = index_status(&doc, false);
    let row = |section: &str, key: &str| {
        shown
            .lines()
            .skip_while(|l| !l.starts_with(section))
            .skip(2)
            .find(|l| l.split_whitespace().next() == Some(key))
            .map_or_else(|| panic!("{section} {key}: {shown}"), |l| format!("{l} "))
    };
    // Rounded down: 187 of 300 is 62.3 %, 187 of 299 is 62.5 %.
    assert!(row("migrations", "4").contains(" 62 % "), "{shown}");
    assert!(row("chunks", "1").contains(" 62 % "), "{shown}");
    assert!(row("chunks", "2").contains(" 0 % "), "{shown}");
    assert!(!row("chunks", "3").contains('%'), "{shown}");
    assert_eq!(EventsCoverage::of(3, 3).percent, Some(100));
    assert_eq!(EventsCoverage::of(1000, 999).percent, Some(99));
}

#[test]
fn index_status_fits_a_screen_however_many_divergences_and_lists_them_when_asked() {
    let divergences: Vec<serde_json::Value> = (0..1_000)
        .map(|i| {
            serde_json::json!({
                "update_id": format!("1220{i:060}"),
                "migration_id": 1,
                "record_time": format!("2026-01-01T00:{:02}:{:02}Z", i / 60 % 60, i % 60),
                "found_at": "2026-01-02T00:00:00Z",
                "resolved": i != 999,
                "detail": if i == 999 {
                    serde_json::json!({"versions": [
                        {"digest": "aa", "scans": ["A", "C"]},
                        {"digest": "bb", "scans": ["B"]},
                    ]})
                } else {
                    serde_json::json!({"odd_scans": ["B"], "kept_by": ["A", "C", "D"]})
                },
            })
        })
        .collect();
    let chunks: Vec<serde_json::Value> = (0..40)
        .map(|i| serde_json::json!({"id": i, "state": "done", "scans": ["A", "C"]}))
        .collect();
    let doc = serde_json::json!({
        "location": "i.sqlite", "schema_version": 6, "summary_version": 1,
        "updates": 1_234_567, "bodies": 1_234_567, "size_bytes": 12_345_678,
        "migrations": [], "chunks": chunks, "gaps": [], "divergences": divergences,
        "last_sync": null, "sync_running": null, "verifications": [],
    });
    let shown = index_status(&doc, false);
    assert!(shown.lines().count() <= 80, "{shown}");
    let line = |label: &str| {
        shown
            .lines()
            .find(|l| l.starts_with(&format!("{label}  ")))
            .unwrap_or_else(|| panic!("{label}: {shown}"))
            .to_owned()
    };
    assert!(line("updates").contains("1,234,567"), "{shown}");
    assert!(line("size").ends_with("12.3 MB"), "{shown}");
    assert!(
        line("divergences").starts_with("divergences      1000: 999 resolved"),
        "{shown}"
    );
    assert!(
        line("first").contains("00:00:00Z update 1220000"),
        "{shown}"
    );
    assert!(line("last").contains("00:16:39Z"), "{shown}");
    assert!(
        line("diverging scans").ends_with("B (1000 updates)"),
        "{shown}"
    );
    assert!(
        shown.contains("… 35 older: --output json has them all"),
        "{shown}"
    );
    let all = index_status(&doc, true);
    let rows = all.lines().filter(|l| l.starts_with("2026-01-01T")).count();
    assert_eq!(rows, 1_000, "a row each: {all}");
}
