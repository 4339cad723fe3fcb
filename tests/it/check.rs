//! `cantonscope check` (issue 35): one run for cron and Prometheus, run as a user would (the
//! binary) against demo networks over HTTP: its exit codes, its JSON, its findings kept with
//! `network health`'s, acknowledgements, the textfile.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use cantonscope::demo::{DemoConfig, DemoFaults, DemoHandle, DemoTime, DownMode};
use serde_json::Value;

use crate::common::bin::{bin, runtime};

/// A demo network of `scans` scans with these faults, its history ending now.
fn demo(rt: &tokio::runtime::Runtime, scans: usize, faults: DemoFaults) -> DemoHandle {
    rt.block_on(cantonscope::demo::start(
        DemoConfig {
            seed: 7,
            rate: 0.0,
            stagger: false,
            end_now: true,
            faults,
            ..DemoConfig::default()
        }
        .with_total_scans(scans),
    ))
    .expect("demo starts")
}

fn run(dir: &Path, scan_url: &str, args: &[&str]) -> (Output, Value) {
    let output = bin(dir)
        .args(["--scan-url", scan_url, "--output", "json"])
        .args(args)
        .output()
        .expect("runs");
    let json = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output, json)
}

fn of_kind<'a>(json: &'a Value, kind: &str) -> Vec<&'a Value> {
    json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["kind"] == kind)
        .collect()
}

#[test]
fn a_down_and_a_forked_scan_are_findings_kept_with_network_health_and_can_be_acknowledged() {
    let rt = runtime();
    let handle = demo(
        &rt,
        5,
        DemoFaults {
            down: Some((1, DownMode::Refused)),
            diverging: Some((2, DemoTime::BeforeHead(Duration::from_secs(120)))),
            ..DemoFaults::default()
        },
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let url = handle.scan_url.clone();
    let (output, json) = run(dir.path(), &url, &["check", "--within", "1s"]);
    assert_eq!(output.status.code(), Some(5), "{json}");
    assert_eq!(json["exit_code"], 5);
    let forked = of_kind(&json, "forked");
    assert_eq!(forked.len(), 1, "{json}");
    assert!(
        forked[0]["open"]
            .as_str()
            .is_some_and(|o| o.starts_with("cs1:network/check/1220")),
        "{json}"
    );
    assert!(forked[0]["since"].is_string() && forked[0]["id"].is_string());
    assert_eq!(of_kind(&json, "scan_down").len(), 1, "{json}");
    // Every rule is listed: the quorum, the head check, each scan.
    let checks = json["checks"].as_array().expect("checks");
    let state = |check: &str| {
        checks
            .iter()
            .find(|c| c["check"] == check)
            .map(|c| c["state"].as_str().unwrap_or_default().to_owned())
    };
    assert_eq!(state("quorum").as_deref(), Some("ok"), "{json}");
    assert_eq!(state("head_check").as_deref(), Some("ok"), "{json}");
    assert_eq!(
        checks.iter().filter(|c| c["check"] == "scan").count(),
        5,
        "{json}"
    );
    // `network health` reads the same findings: the forked scan is forked there too.
    let output = bin(dir.path())
        .args(["--scan-url", &url, "network", "health"])
        .output()
        .expect("runs");
    let health: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(health["scans"][2]["state"], "forked", "{health}");
    // The log lists them; acknowledged, the fork stays listed but stops counting.
    let (_, log) = run(dir.path(), &url, &["check", "--log"]);
    let id = forked[0]["id"].as_str().expect("an id").to_owned();
    assert!(
        log["findings"]
            .as_array()
            .is_some_and(|f| f.iter().any(|f| f["id"] == id.as_str())),
        "{log}"
    );
    let (output, acked) = run(dir.path(), &url, &["check", "--ack", &id, "--for", "1h"]);
    assert_eq!(output.status.code(), Some(0), "{acked}");
    assert!(acked["acknowledged"]["acknowledged_until"].is_string());
    let (output, json) = run(dir.path(), &url, &["check", "--within", "1s"]);
    assert_eq!(output.status.code(), Some(5), "the scan down still counts");
    assert!(of_kind(&json, "forked").is_empty(), "{json}");
    assert!(
        json["checks"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c["state"] == "forked (acknowledged)")),
        "{json}"
    );
    // An unknown id is a usage error.
    let output = bin(dir.path())
        .args(["--scan-url", &url, "check", "--ack", "forked-00000000"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    drop(handle);
}

#[test]
fn all_well_is_0_and_the_prometheus_textfile_is_written_atomically() {
    let rt = runtime();
    let handle = demo(&rt, 4, DemoFaults::default());
    let dir = tempfile::tempdir().expect("tempdir");
    let prom = dir.path().join("textfile").join("cantonscope.prom");
    std::fs::create_dir_all(prom.parent().expect("dir")).expect("dir");
    let (output, json) = run(
        dir.path(),
        &handle.scan_url,
        &[
            "check",
            "--within",
            "1s",
            "--textfile",
            prom.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{json}");
    assert!(json["findings"].as_array().is_some_and(Vec::is_empty));
    let text = std::fs::read_to_string(&prom).expect("the textfile");
    assert!(text.contains("cantonscope_check_exit_code 0\n"), "{text}");
    assert!(text.contains("cantonscope_check_findings 0\n"), "{text}");
    assert!(
        text.contains("cantonscope_check_last_run_timestamp_seconds "),
        "{text}"
    );
    // No temporary file left beside it.
    let left: Vec<_> = std::fs::read_dir(prom.parent().expect("dir"))
        .expect("dir")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
    // --output prometheus prints the same text; other commands refuse it.
    let output = bin(dir.path())
        .args(["--scan-url", &handle.scan_url, "--output", "prometheus"])
        .args(["check", "--within", "1s"])
        .output()
        .expect("runs");
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        printed.contains("# TYPE cantonscope_check_state gauge"),
        "{printed}"
    );
    let output = bin(dir.path())
        .args(["--scan-url", &handle.scan_url, "--output", "prometheus"])
        .args(["network", "health"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    drop(handle);
}

#[test]
fn my_scan_unreachable_is_3() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let dir = tempfile::tempdir().expect("tempdir");
    let (output, json) = run(
        dir.path(),
        &format!("http://127.0.0.1:{port}"),
        &["check", "--timeout", "2s"],
    );
    assert_eq!(output.status.code(), Some(3), "{json}");
    assert!(
        json["unreachable"]
            .as_array()
            .is_some_and(|u| !u.is_empty()),
        "{json}"
    );
    // Without a scan: usage.
    let output = bin(dir.path()).args(["check"]).output().expect("runs");
    assert_eq!(output.status.code(), Some(2));
}

/// My node's alerts in `check` (issue 35 §4, §5): the demo's sequencer client delay fires in
/// one run (an age rule), a finding with its threshold and since; a counter rule without a
/// previous run is `not determined`, named and not a finding; the Prometheus output read back
/// by the exposition reader the explorer scrapes with; an unreachable metrics endpoint is 3.
#[test]
fn my_node_alerts_are_findings_and_the_output_reads_back_as_an_exposition() {
    let rt = runtime();
    let handle = rt
        .block_on(cantonscope::demo::start(
            DemoConfig {
                seed: 7,
                end_now: true,
                faults: DemoFaults {
                    node: cantonscope::demo::NodeFaults {
                        sequencer_delay: Some(Duration::from_secs(600)),
                        ..Default::default()
                    },
                    ..DemoFaults::default()
                },
                ..DemoConfig::default()
            }
            .with_total_scans(4),
        ))
        .expect("demo starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("config.toml");
    let endpoints: Vec<String> = handle
        .metrics_urls
        .iter()
        .map(|(name, url)| format!("{{ name = \"{name}\", url = \"{url}\" }}"))
        .collect();
    std::fs::write(
        &config,
        format!("[profiles.default]\nmetrics = [{}]\n", endpoints.join(", ")),
    )
    .expect("config");
    let run_with = |extra: &[&str]| {
        bin(dir.path())
            .args(["--config", config.to_str().expect("utf-8")])
            .args(["--scan-url", &handle.scan_url])
            .args(extra)
            .args(["check", "--within", "1s"])
            .output()
            .expect("runs")
    };
    let output = run_with(&["--output", "json"]);
    let json: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(output.status.code(), Some(5), "{json}");
    let alerts = of_kind(&json, "node_alert");
    let delay = alerts
        .iter()
        .find(|f| {
            f["subject"]
                .as_str()
                .is_some_and(|s| s.starts_with("sequencer client delay"))
        })
        .unwrap_or_else(|| panic!("no sequencer delay: {json}"));
    assert!(
        delay["threshold"].is_string() && delay["since"].is_string(),
        "{delay}"
    );
    let checks = json["checks"].as_array().expect("checks");
    assert!(
        checks
            .iter()
            .any(|c| c["check"] == "node_alert" && c["state"] == "not determined"),
        "a counter rule has no previous run yet: {json}"
    );
    // The exposition parses with the reader the explorer scrapes with.
    let output = run_with(&["--output", "prometheus"]);
    let text = String::from_utf8(output.stdout).expect("utf-8");
    let parsed = cantonscope::api::metrics::exposition::parse(&text);
    assert_eq!(parsed.skipped, 0, "{text}");
    let value = |name: &str| {
        parsed
            .samples
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.value)
    };
    assert_eq!(value("cantonscope_check_exit_code"), Some(5.0));
    assert!(value("cantonscope_check_last_run_timestamp_seconds").is_some_and(|t| t > 1.7e9));
    assert!(parsed.samples.iter().any(|s| {
        s.name == "cantonscope_check_finding"
            && s.labels
                .iter()
                .any(|(k, v)| k == "kind" && v == "node_alert")
    }));
    // A metrics endpoint of mine that does not answer: 3.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    std::fs::write(
        &config,
        format!("[profiles.default]\nmetrics = [{{ name = \"participant\", url = \"http://127.0.0.1:{port}/metrics\" }}]\n"),
    )
    .expect("config");
    let output = run_with(&["--output", "json"]);
    let json: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(output.status.code(), Some(3), "{json}");
    drop(handle);
}
