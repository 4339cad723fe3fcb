//! `index verify` (issue 19), run as the real binary over real HTTP against in-process demo
//! networks: a straight sync verifies clean (exit 0) and the verification shows in `index
//! status`; a digest changed in the index file is exit 5 naming exactly that update (and the
//! index is not changed), an update removed from it is named as missing; a scan that diverges
//! is outvoted by the quorum; too few scans to verify with is exit 6.

use serde_json::Value;
use std::path::Path;

use crate::index::{
    four, from, history, index_args, kept, one_of_four_diverging, run, status, sync, temp, text,
};

/// `index verify` with `extra` flags: its exit code, stdout JSON and stderr.
pub(crate) fn verify(
    dir: &Path,
    scan_url: &str,
    index: &(impl AsRef<Path> + ?Sized),
    extra: &[&str],
) -> (i32, Value, String) {
    let mut args = index_args(index, "verify");
    args.extend_from_slice(&["--request-rate", "1000", "--page-size", "97"]);
    args.extend_from_slice(extra);
    let output = run(dir, scan_url, &args);
    let stdout = text(&output.stdout);
    (
        output.status.code().unwrap_or(-1),
        serde_json::from_str(&stdout).unwrap_or(Value::Null),
        text(&output.stderr),
    )
}

#[test]
fn a_straight_sync_verifies_clean_and_status_shows_when_and_by_which_scans() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let (code, _, err) = sync(dir.path(), url, &index, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    let stored = kept(&index);
    let (code, out, err) = verify(dir.path(), url, &index, &[]);
    assert_eq!(code, 0, "{out} {err}");
    assert_eq!(out["outcome"], "agree");
    assert_eq!(
        out["updates_checked"].as_u64(),
        Some(stored.len() as u64),
        "{out}"
    );
    for list in ["mismatches", "missing", "extra"] {
        assert_eq!(out[list], Value::Array(Vec::new()), "{list}: {out}");
    }
    let ranges = out["ranges"].as_array().expect("ranges");
    assert!(!ranges.is_empty());
    for range in ranges {
        assert_eq!(range["complete"], true, "{range}");
        assert!(
            range["scans"].as_array().expect("scans").len() >= 2,
            "{range}"
        );
    }
    // Recorded: status names when each range was verified and by which scans.
    let st = status(dir.path(), &index);
    let recorded = st["verifications"].as_array().expect("verifications");
    assert_eq!(recorded.len(), ranges.len(), "{st}");
    for record in recorded {
        assert!(record["verified_at"].is_string(), "{record}");
        assert!(!record["scans"].as_array().expect("scans").is_empty());
        assert_eq!(record["mismatches"], 0);
    }
    // Bounded by --from/--until: fewer updates, still clean.
    let lines = history(dir.path(), url);
    let middle = lines[lines.len() / 2]["record_time"]
        .as_str()
        .expect("time");
    let (code, out, err) = verify(dir.path(), url, &index, &["--from", middle]);
    assert_eq!(code, 0, "{out} {err}");
    let checked = out["updates_checked"].as_u64().expect("checked");
    assert!(checked > 0 && checked < stored.len() as u64, "{checked}");
    // Verify never writes an update.
    assert_eq!(kept(&index), stored);
}

#[test]
fn a_digest_changed_in_the_index_is_exit_5_naming_that_update() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let (code, _, err) = sync(dir.path(), url, &index, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    let stored = kept(&index);
    let (tampered, digest) = stored[stored.len() / 3].clone();
    let (removed, _) = stored[stored.len() / 2].clone();
    {
        let conn = rusqlite::Connection::open(&index).expect("open");
        conn.execute(
            // An id kept as bytes (schema 13) or as text.
            "UPDATE updates SET digest = zeroblob(32) WHERE update_id IN (?1, unhex(?1))",
            [&tampered],
        )
        .expect("tamper");
        conn.execute(
            "DELETE FROM updates WHERE update_id IN (?1, unhex(?1))",
            [&removed],
        )
        .expect("remove");
    }
    let after_tampering = kept(&index);
    let (code, out, err) = verify(dir.path(), url, &index, &[]);
    assert_eq!(code, 5, "{out} {err}");
    assert_eq!(out["outcome"], "differs");
    assert!(
        err.contains(&tampered),
        "the first difference is named: {err}"
    );
    let mismatches = out["mismatches"].as_array().expect("mismatches");
    assert_eq!(mismatches.len(), 1, "{out}");
    assert_eq!(mismatches[0]["update_id"], tampered.as_str());
    assert_eq!(mismatches[0]["stored_digest"], "0".repeat(64));
    assert_eq!(mismatches[0]["agreed_digest"], digest.as_str());
    assert!(mismatches[0]["scans"].as_array().expect("scans").len() >= 2);
    let missing = out["missing"].as_array().expect("missing");
    assert_eq!(missing.len(), 1, "{out}");
    assert_eq!(missing[0]["update_id"], removed.as_str());
    assert_eq!(out["extra"], Value::Array(Vec::new()));
    // Nothing rewritten; status shows the range's mismatch.
    assert_eq!(kept(&index), after_tampering);
    let st = status(dir.path(), &index);
    let bad: u64 = st["verifications"]
        .as_array()
        .expect("verifications")
        .iter()
        .map(|r| r["mismatches"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(bad, 1, "{st}");
}

#[test]
fn a_diverging_scan_is_outvoted_by_the_quorum() {
    // Four scans (f = 1), one diverging two hours before the head: three of them agree.
    let demo = one_of_four_diverging();
    let (dir, index) = temp();
    let url = &demo.handle.scan_urls[0];
    let (code, _, err) = sync(dir.path(), url, &index, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    // Three scans must agree: the diverging one is asked on most pages and outvoted.
    let (code, out, err) = verify(dir.path(), url, &index, &["--verify", "3"]);
    assert_eq!(code, 0, "{out} {err}");
    assert_eq!(out["mismatches"], Value::Array(Vec::new()), "{out}");
    let odd = out["odd_scans"].as_array().expect("odd scans");
    assert!(!odd.is_empty(), "{out}");
    assert!(odd.iter().all(|o| o["scan"] == "Boreal-Ops-2"), "{out}");
    // All four must agree: no version has them, exit 5 naming the disputed update.
    let (code, out, err) = verify(dir.path(), url, &index, &["--verify", "4"]);
    assert_eq!(code, 5, "{out} {err}");
    assert_eq!(out["outcome"], "diverged");
    assert!(err.contains("the scans disagree on update"), "{err}");
}

#[test]
fn too_few_scans_to_verify_with_is_exit_6() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let recent = cantonscope::model::format::format_time_micros(
        chrono::Utc::now().timestamp_micros() - 1_800_000_000,
    );
    let (code, _, err) = sync(dir.path(), url, &index, &["--from", &recent]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = verify(dir.path(), url, &index, &["--verify", "5"]);
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("not enough scans to verify with"), "{err}");
    // A missing index is refused, not created.
    let none = dir.path().join("none.sqlite");
    let (code, _, err) = verify(dir.path(), url, &none, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(!none.exists());
}

/// Issue 21: `--output table` reads `index status` as `path  value`, `index search` as one row
/// an update (the JSON's own values) and `index verify`'s report as its summary and one row a
/// range; `--count` stays a number.
#[test]
fn index_commands_read_as_tables_with_output_table() {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    let (code, _, err) = sync(dir.path(), url, &index, &["--from", from()]);
    assert_eq!(code, 0, "{err}");
    let table = |command: &str, extra: &[&str]| {
        let mut args = index_args(&index, command);
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--output", "table"]);
        let output = run(dir.path(), url, &args);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        text(&output.stdout)
    };
    // Status: a summary (issue 38; it was every leaf as `path  value`), the count grouped.
    let status_json = status(dir.path(), &index);
    let shown = table("status", &[]);
    assert!(serde_json::from_str::<Value>(&shown).is_err(), "{shown}");
    let updates = status_json["updates"].as_u64().expect("updates");
    let grouped = cantonscope::model::format::group_thousands(updates);
    assert!(
        shown
            .lines()
            .any(|l| l.starts_with("updates ") && l.contains(&format!(" {grouped} ("))),
        "{shown}"
    );
    assert!(shown.lines().any(|l| l.starts_with("MIGRATION")), "{shown}");
    // Search: a header, then one row an update, newest first, with its id and kind.
    let (id, kind) = {
        let mut args = index_args(&index, "search");
        args.extend_from_slice(&["id:1220", "--limit", "3"]);
        let output = run(dir.path(), url, &args);
        let first: Value =
            serde_json::from_str(text(&output.stdout).lines().next().expect("a row"))
                .expect("JSON lines when piped");
        (
            first["update_id"].as_str().expect("id").to_owned(),
            first["kind"].as_str().expect("kind").to_owned(),
        )
    };
    let shown = table("search", &["id:1220", "--limit", "3"]);
    let mut lines = shown.lines();
    let header = lines.next().expect("header");
    for column in ["RECORD TIME", "MIG", "KIND", "UPDATE", "ACTION", "PARTIES"] {
        assert!(header.contains(column), "{header}");
    }
    let row = lines.next().expect("a row");
    assert!(row.contains(&id[..40]) && row.contains(&kind), "{row}");
    assert_eq!(shown.lines().count(), 4, "{shown}");
    let counted = table("search", &["id:1220", "--count"]);
    assert!(counted.trim().parse::<u64>().is_ok(), "{counted}");
    // Verify: the outcome, then the ranges.
    let shown = table("verify", &["--request-rate", "1000", "--page-size", "97"]);
    assert!(
        shown
            .lines()
            .any(|l| l.starts_with("outcome ") && l.ends_with("agree")),
        "{shown}"
    );
    let header = shown
        .lines()
        .find(|l| l.starts_with("AFTER"))
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(
        header.contains("COMPLETE") && header.contains("SCANS"),
        "{header}"
    );
}
