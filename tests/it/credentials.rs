//! Credentials stay secret and work: a basic-auth password in a scan URL never reaches the
//! headless commands' stdout, stderr, the log or the kept scan list (written 0600), and the
//! profile's own scan with credentials is the listed scan it names (asked with those
//! credentials, not counted twice); a ledger token written as `Bearer <jwt>` works and is
//! shown nowhere. The real binary against the demo network (with `--basic-auth` for scans).

use std::path::Path;
use std::process::Output;

use cantonscope::demo::{DemoConfig, DemoHandle};
use serde_json::Value;

use crate::common::bin::{bin, runtime};

const PASSWORD: &str = "s3cretPW";

/// `url` with `alice:s3cretPW@` as its user info.
fn with_credentials(url: &str) -> String {
    url.replacen("http://", &format!("http://alice:{PASSWORD}@"), 1)
}

/// A demo network of `scans` scans that answers only `alice:s3cretPW` (scan and validator).
fn basic_auth_demo(rt: &tokio::runtime::Runtime, seed: u64, scans: usize) -> DemoHandle {
    rt.block_on(cantonscope::demo::start(
        DemoConfig {
            seed,
            stagger: false,
            basic_auth: Some(format!("alice:{PASSWORD}")),
            ..DemoConfig::default()
        }
        .with_total_scans(scans),
    ))
    .expect("demo")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Neither stdout, stderr nor the log of `dir` holds the password.
fn assert_no_password(what: &str, output: &Output, dir: &Path) {
    assert!(
        !text(&output.stdout).contains(PASSWORD),
        "{what}: password on stdout: {}",
        text(&output.stdout)
    );
    assert!(
        !text(&output.stderr).contains(PASSWORD),
        "{what}: password on stderr: {}",
        text(&output.stderr)
    );
    let log = std::fs::read_to_string(dir.join("cantonscope.log")).unwrap_or_default();
    assert!(
        !log.contains(PASSWORD),
        "{what}: password in the log: {log}"
    );
}

/// Every file under `dir`.
fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if entry.path().is_dir() {
                todo.push(entry.path());
            } else {
                found.push(entry.path());
            }
        }
    }
    found
}

/// An unreachable scan whose URL carries a password: every `network` command says it cannot
/// read the scan list, naming the scan as `http://***@…`, on stderr and (for `scans`) in the
/// JSON's errors, never with the password.
#[test]
fn an_unreachable_scan_is_named_without_its_password() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("free port")
        .port();
    let url = with_credentials(&format!("http://127.0.0.1:{port}"));
    let dir = tempfile::tempdir().expect("tempdir");
    for args in [
        &["network", "scans"][..],
        &["network", "health"][..],
        &[
            "network",
            "check-update",
            "1220abababababababababababababababababababababababababababababababab",
        ][..],
        &["network", "sweep", "--pages", "1", "--quiet"][..],
    ] {
        let output = bin(dir.path())
            .args(["--scan-url", &url])
            .args(args)
            .output()
            .expect("runs");
        assert_no_password(&format!("{args:?}"), &output, dir.path());
        let err = text(&output.stderr);
        assert!(
            err.contains(&format!(
                "cannot read the scan list: http://***@127.0.0.1:{port}"
            )),
            "{args:?}: {err}"
        );
        if args[1] == "scans" {
            let json: Value = serde_json::from_slice(&output.stdout).expect("json");
            let errors = json["errors"].to_string();
            assert!(errors.contains("http://***@127.0.0.1"), "{json}");
        }
    }
    // No list kept (none was fetched); only the network's findings (the scan down, found by
    // `network health`), which name the scan without its password.
    let kept = files(&dir.path().join("data"));
    assert_eq!(kept.len(), 1, "{kept:?}");
    let name = kept[0]
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    assert!(name.starts_with("findings-"), "{kept:?}");
    let findings = std::fs::read_to_string(&kept[0]).expect("readable");
    assert!(findings.contains("scan_down"), "{findings}");
    assert!(!findings.contains(PASSWORD), "{findings}");
}

/// The kept scan list holds the seed without its password, is readable by its owner only, and
/// is still found (and used) for that seed when the scan is down.
#[test]
fn the_kept_scan_list_holds_no_password_and_is_found_again() {
    let rt = runtime();
    let demo = basic_auth_demo(&rt, 211, 2);
    let url = with_credentials(&demo.scan_url);
    let dir = tempfile::tempdir().expect("tempdir");
    let scans = |dir: &Path| {
        let output = bin(dir)
            .args(["--scan-url", &url, "network", "scans"])
            .output()
            .expect("runs");
        assert_no_password("network scans", &output, dir);
        let json: Value = serde_json::from_slice(&output.stdout).expect("json");
        (output, json)
    };
    let (output, json) = scans(dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(json["source"], "fetched", "{json}");
    let kept = files(&dir.path().join("data"));
    assert_eq!(kept.len(), 1, "{kept:?}");
    let on_disk = std::fs::read_to_string(&kept[0]).expect("kept list");
    assert!(!on_disk.contains(PASSWORD), "{on_disk}");
    let seed = serde_json::from_str::<Value>(&on_disk).expect("json")["seed"].clone();
    assert_eq!(
        seed,
        demo.scan_url.replacen("http://", "http://***@", 1),
        "{on_disk}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&kept[0])
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "mode {mode:o}");
    }

    // The seed is down: the kept list is read (its redacted seed matches the profile's).
    rt.block_on(demo.shutdown());
    let (output, json) = scans(dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(json["source"], "cached", "{json}");
    assert_eq!(json["listed"], 2, "{json}");
    assert_eq!(files(&dir.path().join("data")), kept, "no second file");
}

/// The profile's own scan with credentials (`--scan-url http://alice:…@host`) is the listed
/// scan of that URL: one row, counted once, asked with the credentials (healthy, not a 401).
/// A pinned scan with credentials likewise; a listed scan nobody gave credentials for answers
/// 401, which health reports.
#[test]
fn the_own_and_pinned_scans_with_credentials_are_the_listed_ones() {
    let rt = runtime();
    let demo = basic_auth_demo(&rt, 212, 2);
    let dir = tempfile::tempdir().expect("tempdir");
    let own = with_credentials(&demo.scan_url);
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[profiles.p]\nscan_url = \"{own}\"\nscan_urls = [\"{}\"]\n",
            with_credentials(&demo.scan_urls[1])
        ),
    )
    .expect("write config");
    let health = |profile_args: &[&str]| {
        let output = bin(dir.path())
            .args(profile_args)
            .args([
                "network",
                "health",
                "--max-update-age",
                "1h",
                "--max-round-age",
                "1h",
            ])
            .output()
            .expect("runs");
        assert_no_password("network health", &output, dir.path());
        let json: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
            panic!("not JSON ({e}): {}", text(&output.stderr));
        });
        (output.status.code(), json)
    };
    let rows = |json: &Value| -> Vec<(String, bool, bool, bool, String)> {
        json["scans"]
            .as_array()
            .expect("scans")
            .iter()
            .map(|s| {
                (
                    s["url"].as_str().unwrap_or_default().to_owned(),
                    s["own"].as_bool().unwrap_or_default(),
                    s["pinned"].as_bool().unwrap_or_default(),
                    s["counted"].as_bool().unwrap_or_default(),
                    s["state"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    };
    let redacted = |url: &str| url.replacen("http://", "http://***@", 1);

    // Only the own scan has credentials: it is the first listed scan, healthy; the second,
    // listed without credentials, answers 401.
    let (code, json) = health(&["--scan-url", &own]);
    assert_eq!(
        rows(&json),
        [
            (
                redacted(&demo.scan_url),
                true,
                false,
                true,
                "healthy".into()
            ),
            (
                demo.scan_urls[1].clone(),
                false,
                false,
                true,
                "unhealthy".into()
            ),
        ],
        "{json}"
    );
    assert!(
        json["scans"][1]["reasons"].to_string().contains("401"),
        "{json}"
    );
    assert_eq!(
        (json["n"].as_u64(), json["healthy"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(code, Some(5), "{json}");

    // The profile pins the second scan with credentials: both are asked with them.
    let (code, json) = health(&[
        "--config",
        config.to_str().expect("utf-8"),
        "--profile",
        "p",
    ]);
    assert_eq!(
        rows(&json),
        [
            (
                redacted(&demo.scan_url),
                true,
                false,
                true,
                "healthy".into()
            ),
            (
                redacted(&demo.scan_urls[1]),
                false,
                true,
                true,
                "healthy".into()
            ),
        ],
        "{json}"
    );
    assert_eq!(code, Some(0), "{json}");
}

/// A token written as an `Authorization` value (`Bearer <jwt>`, any case) in a token file or
/// `$CANTONSCOPE_TOKEN` works as the JWT alone does, and appears in no output.
#[test]
fn a_token_written_with_bearer_works() {
    let rt = runtime();
    let demo = rt
        .block_on(cantonscope::demo::start(DemoConfig::default()))
        .expect("demo");
    let dir = tempfile::tempdir().expect("tempdir");
    let jwt = &demo.token;
    let file = dir.path().join("token.jwt");
    std::fs::write(&file, format!("Bearer {jwt}\n")).expect("write token");
    let check = |output: &Output| {
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let end: Value = serde_json::from_slice(&output.stdout).expect("json");
        assert!(end["offset"].is_i64(), "{end}");
        for part in [&output.stdout, &output.stderr] {
            assert!(!text(part).contains(jwt.as_str()), "token in the output");
        }
    };
    let ledger = ["--ledger-url", demo.ledger_url.as_str(), "ledger", "end"];
    check(
        &bin(dir.path())
            .arg("--token-file")
            .arg(&file)
            .args(ledger)
            .output()
            .expect("runs"),
    );
    check(
        &bin(dir.path())
            .env("CANTONSCOPE_TOKEN", format!("bearer {jwt}"))
            .args(ledger)
            .output()
            .expect("runs"),
    );
    let log = std::fs::read_to_string(dir.path().join("cantonscope.log")).unwrap_or_default();
    assert!(!log.contains(jwt.as_str()), "token in the log");
}
