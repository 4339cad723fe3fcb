//! Issue 38: the index's reports do not contradict each other, run as the real binary against a
//! staggered demo network of seven scans (f = 2, so f + 1 = 3) whose second scan diverges from
//! two hours before the head. A divergence's `kept_by` names every scan known to hold the kept
//! version (at least f + 1), a range's confirming scans never include a scan odd in it, `agree`
//! is never said beside an incomplete range (a range the scans cannot check is `unchecked`,
//! exit 6), `index status` writes RFC 3339 times, and its table fits a screen (count, first,
//! last and scans of the divergences; `--divergences` lists each one).

use std::collections::BTreeSet;
use std::sync::OnceLock;
use std::time::Duration;

use cantonscope::demo::{DemoConfig, DemoFaults, DemoTime};
use cantonscope::model::format::parse_time_micros;
use serde_json::Value;

use crate::index::{Demo, from, index_args, run, start, status, sync, temp, text};
use crate::index_verify::verify;

/// The diverging scan (the second).
const ODD: &str = "Boreal-Ops-2";

/// Seven scans, staggered (scan K trails the head by K − 1 updates), the second diverging
/// from two hours before the head.
fn seven_one_diverging() -> &'static Demo {
    static DEMO: OnceLock<Demo> = OnceLock::new();
    DEMO.get_or_init(|| {
        start(
            DemoConfig {
                seed: 38,
                faults: DemoFaults {
                    diverging: Some((1, DemoTime::BeforeHead(Duration::from_secs(2 * 3_600)))),
                    ..DemoFaults::default()
                },
                ..DemoConfig::default()
            }
            .with_total_scans(7),
        )
    })
}

fn names(value: &Value) -> BTreeSet<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("a list of scans: {value}"))
        .iter()
        .map(|s| s.as_str().expect("a scan's name").to_owned())
        .collect()
}

/// The scans of the network, by name, from `network scans`.
fn all_scans(dir: &std::path::Path, url: &str) -> BTreeSet<String> {
    let output = run(dir, url, &["network", "scans"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let list: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    list["scans"]
        .as_array()
        .expect("scans")
        .iter()
        .map(|s| s["sv_name"].as_str().expect("name").to_owned())
        .collect()
}

fn is_rfc3339(value: &Value) -> bool {
    value
        .as_str()
        .is_some_and(|t| parse_time_micros(t).is_some())
}

/// Every resolved divergence's `kept_by`: at least f + 1 scans, never the odd one, and every
/// scan that has the update when it is old enough for the staggered scans to have it (all
/// six others: the demo serves one version to every scan but the diverging one).
fn assert_kept_by(kept_by: &Value, record_time: &Value, others: &BTreeSet<String>, old: i64) {
    let kept = names(kept_by);
    assert!(kept.len() >= 3, "f + 1 = 3 of 7: {kept:?}");
    assert!(!kept.contains(ODD), "{kept:?}");
    let at = record_time
        .as_str()
        .and_then(parse_time_micros)
        .expect("a record time");
    if at <= old {
        assert_eq!(
            &kept, others,
            "every scan holding the kept version, at {record_time}"
        );
    }
}

#[test]
fn the_index_reports_agree_with_each_other_on_a_diverging_scan() {
    let demo = seven_one_diverging();
    let (dir, index) = temp();
    let url = &demo.handle.scan_urls[0];
    let scans = all_scans(dir.path(), url);
    assert_eq!(scans.len(), 7, "{scans:?}");
    let others: BTreeSet<String> = scans.iter().filter(|s| *s != ODD).cloned().collect();
    // Two scans per page: the diverging one is outvoted where it is asked (the newest update,
    // which only it and the profile's scan have yet, may stop the sync: exit 5).
    let (code, out, err) = sync(
        dir.path(),
        url,
        &index,
        &["--from", from(), "--verify", "2"],
    );
    assert!(code == 0 || code == 5, "{code} {out} {err}");
    let st = status(dir.path(), &index);
    // Updates every staggered scan has: older than the newest 10.
    let newest = st["migrations"][0]["last_record_time"]
        .as_str()
        .and_then(parse_time_micros)
        .expect("the newest update");
    let old = newest - 60_000_000;
    let divergences = st["divergences"].as_array().expect("divergences");
    let resolved: Vec<&Value> = divergences
        .iter()
        .filter(|d| d["resolved"] == true)
        .collect();
    // How far the sync gets before the newest update may stop it depends on the machine's
    // load; a few dozen outvoted updates at least are enough to hold every report to them.
    assert!(
        resolved.len() >= 10,
        "many updates outvoted: {}",
        resolved.len()
    );
    for d in &resolved {
        assert_eq!(d["detail"]["odd_scans"], serde_json::json!([ODD]), "{d}");
        assert_kept_by(&d["detail"]["kept_by"], &d["record_time"], &others, old);
    }
    // A chunk's confirming scans are not a scan odd in it.
    let chunks = st["chunks"].as_array().expect("chunks");
    let time = |v: &Value| v.as_str().and_then(parse_time_micros);
    let mut odd_in_some = false;
    for chunk in chunks {
        let after = time(&chunk["start"]["record_time"]).unwrap_or(i64::MIN);
        let before = time(&chunk["end_before"]).unwrap_or(i64::MAX);
        let odd_here = resolved
            .iter()
            .any(|d| time(&d["record_time"]).is_some_and(|t| after < t && t < before));
        if odd_here {
            odd_in_some = true;
            assert!(!names(&chunk["scans"]).contains(ODD), "{chunk}");
        }
    }
    assert!(odd_in_some, "{st}");
    // Times are RFC 3339, never µs.
    for d in divergences {
        assert!(is_rfc3339(&d["found_at"]), "{d}");
    }
    for chunk in st["chunks"].as_array().expect("chunks") {
        assert!(
            chunk["end_before"].is_null() || is_rfc3339(&chunk["end_before"]),
            "{chunk}"
        );
    }
    assert!(is_rfc3339(&st["last_sync"]["started_at"]), "{st}");

    // Verify with three scans: the diverging one is outvoted where asked.
    let (code, out, err) = verify(dir.path(), url, &index, &["--verify", "3"]);
    let ranges = out["ranges"].as_array().expect("ranges");
    let complete = ranges.iter().all(|r| r["complete"] == true);
    assert_eq!(
        out["outcome"] == "agree",
        complete && code == 0,
        "{out} {err}"
    );
    assert_eq!(out["outcome"], "agree", "{out} {err}");
    let odd = out["odd_scans"].as_array().expect("odd scans");
    assert!(!odd.is_empty(), "{out}");
    for o in odd {
        assert_eq!(o["scan"], ODD, "{o}");
    }
    for range in ranges {
        assert_eq!(names(&range["odd_scans"]), BTreeSet::from([ODD.to_owned()]));
        let confirming = names(&range["scans"]);
        assert!(!confirming.contains(ODD), "{range}");
        assert!(confirming.len() >= 3, "{range}");
        assert_eq!(range["unchecked"], 0, "{range}");
    }
    let st = status(dir.path(), &index);
    for record in st["verifications"].as_array().expect("verifications") {
        assert!(!names(&record["scans"]).contains(ODD), "{record}");
        assert!(is_rfc3339(&record["verified_at"]), "{record}");
    }

    // The table: a screen, whatever the number of divergences.
    let table = |extra: &[&str]| {
        let mut args = index_args(&index, "status");
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--output", "table"]);
        let output = run(dir.path(), url, &args);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        text(&output.stdout)
    };
    let shown = table(&[]);
    assert!(shown.lines().count() <= 80, "{shown}");
    let line = |label: &str| {
        shown
            .lines()
            .find(|l| l.starts_with(&format!("{label}  ")))
            .unwrap_or_else(|| panic!("no {label} line: {shown}"))
            .to_owned()
    };
    assert!(
        line("divergences").contains(&format!("{}:", divergences.len())),
        "{shown}"
    );
    let by_time = |a: &&Value, b: &&Value| {
        let t = |d: &&Value| d["record_time"].as_str().and_then(parse_time_micros);
        t(a).cmp(&t(b))
    };
    let first = divergences.iter().min_by(by_time).expect("a divergence");
    let last = divergences.iter().max_by(by_time).expect("a divergence");
    let id = |d: &Value| d["update_id"].as_str().expect("id")[..40].to_owned();
    assert!(line("first").contains(&id(first)), "{shown}");
    assert!(line("last").contains(&id(last)), "{last} {shown}");
    assert!(line("diverging scans").contains(ODD), "{shown}");
    // Sizes read as sizes, times as RFC 3339.
    let size = line("size");
    assert!(
        ["kB", "MB", "GB"].iter().any(|u| size.ends_with(u)),
        "{size}"
    );
    assert!(!shown.contains(&st["size_bytes"].to_string()), "{shown}");
    assert!(!shown.contains("found_at"), "{shown}");
    // --divergences: every one, a row each.
    let listed = table(&["--divergences"]);
    for d in divergences {
        assert!(listed.contains(&id(d)), "{d} not listed");
    }
    assert!(listed.lines().count() > divergences.len(), "{listed}");
}

/// A range whose newest updates the scans asked cannot confirm yet (three of the four
/// staggered scans trail the head) is not `complete`, and the verify says `unchecked` (exit 6)
/// instead of `agree`.
#[test]
fn updates_the_scans_cannot_confirm_yet_are_unchecked_not_agreed() {
    let demo = start(DemoConfig::default().with_total_scans(4));
    let (dir, index) = temp();
    let url = &demo.handle.scan_urls[0];
    let recent = cantonscope::model::format::format_time_micros(
        chrono::Utc::now().timestamp_micros() - 1_800_000_000,
    );
    // Unverified, to the profile's scan's head.
    let (code, _, err) = sync(
        dir.path(),
        url,
        &index,
        &["--from", &recent, "--verify", "1"],
    );
    assert_eq!(code, 0, "{err}");
    // All four must agree: the newest three updates only the first scans have.
    let (code, out, err) = verify(dir.path(), url, &index, &["--verify", "4"]);
    assert_eq!(code, 6, "{out} {err}");
    assert_eq!(out["outcome"], "unchecked", "{out}");
    assert!(err.contains("could not be checked"), "{err}");
    let range = &out["ranges"][0];
    assert_eq!(range["complete"], false, "{range}");
    assert_eq!(range["unchecked"], 3, "{range}");
    // Two: only the newest update (the second scan trails by one) is left unchecked.
    let (code, out, err) = verify(dir.path(), url, &index, &["--verify", "2"]);
    assert_eq!(code, 6, "{out} {err}");
    assert_eq!(out["ranges"][0]["unchecked"], 1, "{out}");
    // One (the profile's scan alone): every stored update is checked, the range complete.
    let (code, out, err) = verify(dir.path(), url, &index, &["--verify", "1"]);
    assert_eq!(code, 0, "{out} {err}");
    assert_eq!(out["outcome"], "agree");
    assert_eq!(out["ranges"][0]["complete"], true, "{out}");
}
