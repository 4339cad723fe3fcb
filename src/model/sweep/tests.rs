use super::*;
use crate::model::consensus::LocalFields;
use crate::model::consensus::digest::Digester;

fn item(k: usize, workflow: &str) -> String {
    format!(
        r#"{{"update_id":"u{k}","migration_id":1,"record_time":"2026-01-01T00:00:{:02}.000000Z","workflow_id":"{workflow}","events_by_id":{{}}}}"#,
        k % 60
    )
}

fn reassignment(k: usize, submitter: &str) -> String {
    format!(
        r#"{{"update_id":"u{k}","offset":"{k}","record_time":"2026-01-01T00:00:{:02}.000000Z","event":{{"migration_id":1,"submitter":"{submitter}"}}}}"#,
        k % 60
    )
}

fn page(items: &[String]) -> PageAnswer {
    let body = format!("{{\"transactions\":[{}]}}", items.join(",")).into_bytes();
    let digest = Digester::with_key(3)
        .page(&body, LocalFields::UPDATE)
        .expect("page");
    PageAnswer::Page { digest, body }
}

fn items(range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|k| item(k, "")).collect()
}

/// Items `range` as a scan that renders the transactions in `differ` differently has them.
fn items_differing(range: std::ops::Range<usize>, differ: &[usize]) -> Vec<String> {
    range
        .map(|k| item(k, if differ.contains(&k) { "diverged" } else { "" }))
        .collect()
}

fn plan(page_size: usize) -> SweepPlan {
    SweepPlan::new(None, page_size)
}

fn failed() -> PageAnswer {
    PageAnswer::Failed {
        status: Some(503),
        message: "unavailable".into(),
    }
}

fn ids(range: &DiffRange) -> (&str, &str, u64) {
    (
        range.first.update_id.as_str(),
        range.last.update_id.as_str(),
        range.count,
    )
}

fn members(range: &DiffRange) -> Vec<Vec<usize>> {
    range.sides.iter().map(|s| s.members.clone()).collect()
}

#[test]
fn agreeing_pages_advance_and_a_lagging_scan_is_not_a_difference() {
    let mut sweep = Sweep::new(plan(5), vec![true; 4]);
    let full = page(&items(0..5));
    sweep.on_page(&[full.clone(), full.clone(), full.clone(), full]);
    assert_eq!(sweep.counts(), (1, 5));
    assert_eq!(
        sweep.next_page().flatten().map(|c| c.record_time.as_str()),
        Some("2026-01-01T00:00:04.000000Z")
    );
    // At the head: one scan lags by two updates, one is down.
    let head = page(&items(5..8));
    let lagging = page(&items(5..6));
    sweep.on_page(&[
        head.clone(),
        head.clone(),
        lagging,
        PageAnswer::Failed {
            status: None,
            message: "connection refused".into(),
        },
    ]);
    assert_eq!(sweep.end(), Some(&SweepEnd::ReachedHead));
    assert_eq!(sweep.counts(), (2, 8));
    assert_eq!(sweep.failed_pages(), &[0, 0, 0, 1]);
    assert_eq!(sweep.differing_updates(), 0);
    assert!(sweep.ranges().is_empty() && !sweep.truncated());
}

#[test]
fn every_differing_update_is_kept_in_ranges_and_the_sweep_goes_on() {
    let mut sweep = Sweep::new(plan(5), vec![true; 4]);
    // Page 1: scan 1 differs at u3 and u4.
    let good = page(&items(0..5));
    sweep.on_page(&[
        good.clone(),
        page(&items_differing(0..5, &[3, 4])),
        good.clone(),
        good,
    ]);
    assert_eq!(sweep.end(), None, "it goes on past a difference");
    assert_eq!(sweep.counts(), (1, 5));
    assert_eq!(sweep.differing_updates(), 2);
    assert_eq!(
        sweep.cursor().map(|c| c.record_time.as_str()),
        Some("2026-01-01T00:00:04.000000Z"),
        "the next page starts after the last differing update"
    );
    // Page 2: scan 1 still differs at u5 (the range goes on across the page, scan 3 sitting
    // the page out does not split it); u6 agrees (a transaction: the range ends); scan 2
    // differs at u7 (other sides: a new range), scan 1 at u8 and u9.
    let good = page(&items(5..10));
    sweep.on_page(&[
        good.clone(),
        page(&items_differing(5..10, &[5, 8, 9])),
        page(&items_differing(5..10, &[7])),
        failed(),
    ]);
    // Page 3: the head, u10 agreeing.
    let head = page(&items(10..11));
    sweep.on_page(&[head.clone(), head.clone(), head.clone(), head]);
    assert_eq!(sweep.end(), Some(&SweepEnd::ReachedHead));
    assert_eq!(sweep.counts(), (3, 11));
    assert_eq!(sweep.differing_updates(), 6);
    let ranges = sweep.ranges();
    assert_eq!(ranges.len(), 3, "{ranges:#?}");
    assert_eq!(ids(&ranges[0]), ("u3", "u5", 3));
    assert_eq!((ranges[0].first.page, ranges[0].last.page), (1, 2));
    assert_eq!(members(&ranges[0]), [vec![0, 2, 3], vec![1]]);
    assert!(ranges[0].sides[0].is_quorum);
    assert_eq!(ranges[0].example_path(), Some("$.workflow_id"));
    assert_eq!(
        ranges[0].first.record_time,
        "2026-01-01T00:00:03.000000Z".to_owned()
    );
    assert_eq!(ranges[0].last.record_time, "2026-01-01T00:00:05.000000Z");
    assert_eq!(ids(&ranges[1]), ("u7", "u7", 1));
    assert_eq!(members(&ranges[1]), [vec![0, 1], vec![2]]);
    assert_eq!(ids(&ranges[2]), ("u8", "u9", 2));
    assert_eq!(members(&ranges[2]), [vec![0, 2], vec![1]]);
    let total: u64 = ranges.iter().map(|r| r.count).sum();
    assert_eq!(total, sweep.differing_updates());
    assert!(!sweep.truncated());
    // Scan 1 first differed at u3, scan 2 at u7.
    assert_eq!(
        sweep.minority_scans(),
        [
            MinorityScan {
                scan: 1,
                first_update_id: "u3".into(),
                example_path: Some("$.workflow_id".into()),
            },
            MinorityScan {
                scan: 2,
                first_update_id: "u7".into(),
                example_path: Some("$.workflow_id".into()),
            },
        ]
    );

    // The report says the same, pages numbered as here.
    let scans: Vec<report::ScanRef> = (0..4)
        .map(|i| report::ScanRef {
            name: format!("SV-{i}"),
            url: format!("http://alice:pw{i}@scan{i}.example"),
        })
        .collect();
    let report = SweepReport::of(&sweep, &scans, "the beginning of the history");
    assert_eq!(report.minority_scans(), sweep.minority_scans());
    let json = serde_json::to_value(&report).expect("json");
    assert_eq!(json["schema"], "cantonscope.sweep/1");
    assert_eq!(json["end"], "reached_head");
    assert_eq!(json["outcome"], "differ");
    assert_eq!(json["pages"], 3);
    assert_eq!(json["differing_updates"], 6);
    assert_eq!(json["truncated"], false);
    assert_eq!(json["n"], 4);
    assert_eq!(json["quorum"], 2);
    assert_eq!(json["scans"][3]["failed_pages"], 1);
    assert_eq!(json["scans"][3]["url"], "http://***@scan3.example");
    let first = &json["ranges"][0];
    assert_eq!(
        (&first["first_update_id"], &first["last_update_id"]),
        (&"u3".into(), &"u5".into())
    );
    assert_eq!(
        (&first["first_page"], &first["last_page"]),
        (&1.into(), &2.into())
    );
    assert_eq!(first["count"], 3);
    assert_eq!(first["example_path"], "$.workflow_id");
    assert_eq!(
        first["sides"][0]["scans"],
        serde_json::json!(["SV-0", "SV-2", "SV-3"])
    );
    assert_eq!(first["sides"][1]["scans"], serde_json::json!(["SV-1"]));
    assert_eq!(first["sides"][1]["count"], 1);
    let back: SweepReport = serde_json::from_value(json).expect("reads back");
    assert_eq!(back, report);
}

#[test]
fn an_agreeing_reassignment_does_not_split_a_range_but_a_transaction_does() {
    let mut sweep = Sweep::new(plan(10), vec![true; 4]);
    let honest = vec![
        item(0, ""),
        reassignment(1, "a"),
        item(2, ""),
        reassignment(3, "a"),
        reassignment(4, "a"),
        item(5, ""),
        item(6, ""),
        item(7, ""),
        reassignment(8, "a"),
    ];
    let mut other = honest.clone();
    // u0 and u2 differ around an agreeing reassignment; u5 after two; u7 after an agreeing
    // transaction; the reassignment u8 itself differs.
    for k in [0, 2, 5, 7] {
        other[k] = item(k, "diverged");
    }
    other[8] = reassignment(8, "b");
    let good = page(&honest);
    sweep.on_page(&[good.clone(), good.clone(), page(&other), good]);
    assert_eq!(sweep.end(), Some(&SweepEnd::ReachedHead));
    let ranges = sweep.ranges();
    assert_eq!(ranges.len(), 2, "{ranges:#?}");
    assert_eq!(ids(&ranges[0]), ("u0", "u5", 3));
    assert_eq!(ids(&ranges[1]), ("u7", "u8", 2));
    assert_eq!(sweep.differing_updates(), 5);
    assert_eq!(sweep.counts(), (1, 9));
}

#[test]
fn max_differences_stops_early_and_says_truncated() {
    let mut sweep = Sweep::new(
        SweepPlan {
            max_differences: 2,
            ..plan(10)
        },
        vec![true; 4],
    );
    let good = page(&items(0..10));
    let bad = page(&items_differing(0..10, &[2, 3, 4, 8]));
    sweep.on_page(&[good.clone(), bad, good.clone(), good]);
    assert_eq!(sweep.end(), Some(&SweepEnd::DifferenceLimit));
    assert!(sweep.truncated());
    assert_eq!(sweep.differing_updates(), 2);
    assert_eq!(ids(&sweep.ranges()[0]), ("u2", "u3", 2));
    assert_eq!(
        sweep.counts(),
        (1, 4),
        "the page counts, up to where it stopped"
    );
    assert_eq!(
        sweep.cursor().map(|c| c.record_time.as_str()),
        Some("2026-01-01T00:00:03.000000Z")
    );
    assert_eq!(sweep.next_page(), None);
}

#[test]
fn a_side_is_a_minority_only_against_a_quorum_it_is_not() {
    // Two scans of four against the other two: each side is f + 1 = 2 (the reference is the
    // side of the lowest scan); neither is a minority.
    let mut sweep = Sweep::new(plan(3), vec![true; 4]);
    let good = page(&items(0..3));
    let bad = page(&items_differing(0..3, &[1]));
    sweep.on_page(&[bad.clone(), good.clone(), good, bad]);
    let ranges = sweep.ranges();
    assert_eq!(members(&ranges[0]), [vec![0, 3], vec![1, 2]]);
    assert!(ranges[0].sides.iter().all(|s| s.is_quorum));
    assert!(sweep.minority_scans().is_empty());
    // Of 7 scans (quorum 3), 2 against 2 with 3 sitting out: no quorum side, no minority.
    let mut sweep = Sweep::new(plan(3), vec![true; 7]);
    let good = page(&items(0..3));
    let bad = page(&items_differing(0..3, &[1]));
    sweep.on_page(&[
        good.clone(),
        good,
        bad.clone(),
        bad,
        failed(),
        failed(),
        failed(),
    ]);
    assert_eq!(sweep.differing_updates(), 1);
    assert!(!sweep.ranges()[0].sides[0].is_quorum);
    assert!(sweep.minority_scans().is_empty());
}

#[test]
fn too_few_answers_is_no_quorum_and_limits_stop() {
    let mut sweep = Sweep::new(plan(5), vec![true; 4]);
    sweep.on_page(&[page(&items(0..5)), failed(), failed(), failed()]);
    assert!(matches!(
        sweep.end(),
        Some(SweepEnd::NoQuorum {
            page: 1,
            answered: 1,
            ..
        })
    ));

    let mut limited = Sweep::new(
        SweepPlan {
            max_pages: Some(1),
            ..plan(2)
        },
        vec![true; 1],
    );
    limited.on_page(&[page(&items(0..2))]);
    assert_eq!(limited.end(), Some(&SweepEnd::PageLimit));
    let progress = limited.progress(Duration::from_secs(2), 0);
    assert_eq!((progress.pages, progress.updates), (1, 2));
    assert!((progress.updates_per_s - 1.0).abs() < 1e-9);
}

#[test]
fn item_positions_of_both_shapes() {
    let tx = item(7, "");
    assert_eq!(
        item_info(tx.as_bytes()),
        Some(ItemInfo {
            update_id: "u7".into(),
            migration_id: 1,
            record_time: "2026-01-01T00:00:07.000000Z".into(),
            reassignment: false,
        })
    );
    let reassign =
        br#"{"update_id":"r","offset":"9","record_time":"t","event":{"migration_id":"3"}}"#;
    let info = item_info(reassign).expect("a position");
    assert_eq!((info.migration_id, info.reassignment), (3, true));
    assert_eq!(item_info(b"{}"), None);
}
