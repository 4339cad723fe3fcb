//! Bad input says what to do (issue 38): each case runs the binary and checks the exit code and
//! the message.

use crate::common::bin::bin;
use crate::index::{four, text};

#[test]
fn offline_with_a_missing_index_is_a_usage_error_as_headless() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("nope.sqlite");
    let output = bin(dir.path())
        .arg("--offline")
        .arg("--index")
        .arg(&missing)
        .output()
        .expect("runs");
    let err = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("no index at {}", missing.display())),
        "{err}"
    );
}

#[test]
fn an_index_that_is_a_directory_says_what_is_expected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let place = dir.path().to_str().expect("utf-8");
    // The profile's `index` and $CANTONSCOPE_INDEX naming it say the same as --index.
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!("default_profile = \"main\"\n[profiles.main]\nindex = {place:?}\n"),
    )
    .expect("written");
    let config = config.to_str().expect("utf-8");
    for (args, env) in [
        (vec!["index", "--index", place, "status"], None),
        (vec!["--offline", "--index", place], None),
        (vec!["--config", config, "index", "status"], None),
        (vec!["--config", config, "--offline"], None),
        (vec!["index", "status"], Some(place)),
    ] {
        let mut command = bin(dir.path());
        if let Some(index) = env {
            command.env("CANTONSCOPE_INDEX", index);
        }
        let output = command.args(&args).output().expect("runs");
        let err = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("{place} is a directory"))
                && err.contains("SQLite file path")
                && err.contains("postgres:// URL"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("disk I/O error"), "{err}");
        if args.contains(&config) {
            assert!(err.contains("config.toml:3:"), "the file's line: {err}");
        }
    }
}

#[test]
fn https_to_a_plain_http_port_hints_at_http() {
    let demo = four();
    let plain = &demo.handle.scan_url;
    let tls = plain.replacen("http://", "https://", 1);
    let dir = tempfile::tempdir().expect("tempdir");
    let output = bin(dir.path())
        .args(["--scan-url", &tls, "scan", "status"])
        .output()
        .expect("runs");
    let err = text(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{err}");
    let host_port = plain
        .trim_start_matches("http://")
        .split('/')
        .next()
        .expect("host");
    assert!(
        err.contains(&format!("is it plain http? try http://{host_port}")),
        "{err}"
    );
}

#[test]
fn a_scan_url_ending_in_api_scan_asks_for_the_base_url() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = bin(dir.path())
        .args([
            "--scan-url",
            "http://127.0.0.1:9/api/scan/",
            "scan",
            "status",
        ])
        .output()
        .expect("runs");
    let err = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the base URL is expected, without /api/scan")
            && err.contains("try http://127.0.0.1:9"),
        "{err}"
    );
}

#[test]
fn a_config_typo_suggests_the_known_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    std::fs::write(
        &path,
        "[profiles.a]\nscan_url = \"http://127.0.0.1:9\"\nrefersh = \"2s\"\n",
    )
    .expect("write");
    let output = bin(dir.path())
        .arg("--config")
        .arg(&path)
        .args(["scan", "status"])
        .output()
        .expect("runs");
    let err = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains("unknown field `refersh`") && err.contains("did you mean `refresh`?"),
        "{err}"
    );
}
