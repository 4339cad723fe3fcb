//! A server can never hurt the operator's machine. Each test puts cantonscope (the API client in
//! process, or the real binary) in front of a small hostile HTTP server on 127.0.0.1:0, or
//! feeds hostile text to what writes the program's output:
//!
//! - deeply nested JSON: re-indenting is linear in the input, nesting beyond the limit is refused
//!   with a message, and a `Value` decode of a deep body is an error, not a crash;
//! - bidi and zero-width characters: written as `\uXXXX` escapes in headless JSON and JSON Lines
//!   exports (lossless), neutralised in CSV exports and error lines.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cantonscope::api::{ApiClient, ApiConfig, ApiError, scan};
use cantonscope::model::export::{ExportFormat, ExportRow, csv_field};
use cantonscope::model::json_text::{self, INDENT_LEVELS, JsonTextError, MAX_DEPTH};
use cantonscope::ui::safe::{needs_replacing, sanitize};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const BIN: &str = env!("CARGO_BIN_EXE_cantonscope");

// ---------------------------------------------------------------------------------------------
// The hostile server
// ---------------------------------------------------------------------------------------------

/// A whole body with a Content-Length.
#[derive(Clone)]
struct Reply {
    status: u16,
    body: Arc<Vec<u8>>,
}

fn json_reply(status: u16, body: impl Into<Vec<u8>>) -> Reply {
    Reply {
        status,
        body: Arc::new(body.into()),
    }
}

struct Hostile {
    url: String,
}

/// Serves `reply` to every request (on the current tokio runtime) until the runtime ends.
async fn hostile(reply: Reply) -> Hostile {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let reply = reply.clone();
            tokio::spawn(async move {
                let _ = answer(socket, reply).await;
            });
        }
    });
    Hostile { url }
}

async fn answer(mut socket: tokio::net::TcpStream, reply: Reply) -> std::io::Result<()> {
    let mut request = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        let n = socket.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        request.extend_from_slice(&buf[..n]);
        if let Some(p) = request.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
    };
    let head = String::from_utf8_lossy(&request[..head_end]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    while request.len() < head_end + length {
        let n = socket.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        request.extend_from_slice(&buf[..n]);
    }
    let Reply { status, body } = reply;
    let head = format!(
        "HTTP/1.1 {status} Hostile\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    socket.write_all(head.as_bytes()).await?;
    socket.write_all(&body).await?;
    socket.shutdown().await
}

fn client(url: &str) -> ApiClient {
    ApiClient::new(ApiConfig {
        scan_url: Some(url.to_owned()),
        ..ApiConfig::default()
    })
    .expect("client")
}

/// A runtime for servers that must keep serving while a test blocks on the binary.
fn server_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime")
}

// ---------------------------------------------------------------------------------------------
// The binary, with its peak memory
// ---------------------------------------------------------------------------------------------

struct Run {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    elapsed: Duration,
    /// Peak resident memory (VmHWM) in MiB, as last seen while it ran (Linux only).
    peak_rss_mib: Option<u64>,
}

impl Run {
    fn stdout(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8")
    }
}

fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    line.trim().trim_end_matches("kB").trim().parse().ok()
}

/// Runs the binary with a clean environment (plus `env`) and `args`, watching its peak memory.
fn run_cli(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Run {
    let mut command = Command::new(BIN);
    command.env_clear();
    if let Some(path) = std::env::var_os("PATH") {
        command.env("PATH", path);
    }
    command
        .env("XDG_CONFIG_HOME", dir.join("no-config"))
        .env("HOME", dir)
        .envs(env.iter().copied())
        .arg("--log-file")
        .arg(dir.join("cantonscope.log"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = command.spawn().expect("binary runs");
    let pid = child.id();
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let mut peak: Option<u64> = None;
    let status = loop {
        if let Some(kib) = peak_rss_kib(pid) {
            peak = Some(peak.map_or(kib, |p| p.max(kib)));
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("cantonscope {args:?} still running after 2 minutes");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Run {
        code: status.code(),
        stdout: out.join().expect("stdout reader"),
        stderr: String::from_utf8_lossy(&err.join().expect("stderr reader")).into_owned(),
        elapsed: start.elapsed(),
        peak_rss_mib: peak.map(|kib| kib / 1024),
    }
}

/// The first character of `text` a terminal must never get raw (newlines are fine here).
fn raw_unsafe(text: &str) -> Option<char> {
    text.chars().find(|&c| c != '\n' && needs_replacing(c))
}

// ---------------------------------------------------------------------------------------------
// 1. Deeply nested JSON
// ---------------------------------------------------------------------------------------------

/// An updates page nested `depth` levels deep in all (the page object, then arrays).
fn nested_arrays(depth: usize) -> String {
    format!(
        "{{\"transactions\":[],\"x\":{}{}}}",
        "[".repeat(depth - 1),
        "]".repeat(depth - 1)
    )
}

fn nested_objects(depth: usize) -> String {
    format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth))
}

/// What re-indenting may add: the first [`INDENT_LEVELS`] levels open and close on their own
/// lines, each at most `2 × INDENT_LEVELS + 1` bytes, plus `": "` per level.
const INDENT_BUDGET: usize = 2 * (INDENT_LEVELS + 1) * (2 * INDENT_LEVELS + 4);

#[test]
fn ten_thousand_levels_are_reindented_in_linear_size_and_time() {
    for input in [nested_arrays(10_000), nested_objects(10_000)] {
        let start = Instant::now();
        let out = json_text::pretty(&input).expect("within the depth limit");
        let elapsed = start.elapsed();
        assert!(
            out.len() <= input.len() + INDENT_BUDGET,
            "{} bytes out of {} in",
            out.len(),
            input.len()
        );
        assert!(elapsed < Duration::from_secs(1), "took {elapsed:?}");
        let widest = out
            .lines()
            .map(|l| l.len() - l.trim_start().len())
            .max()
            .unwrap_or(0);
        assert!(widest <= 2 * INDENT_LEVELS, "indented by {widest}");
        serde_json::from_str::<serde::de::IgnoredAny>(&out).expect("still one JSON value");
        let tokens = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        assert_eq!(tokens(&out), tokens(&input), "every token kept");
    }
}

#[test]
fn nesting_beyond_the_limit_is_refused_with_a_message() {
    for depth in [MAX_DEPTH + 1, 100_000] {
        let input = nested_arrays(depth);
        let start = Instant::now();
        let err = json_text::pretty(&input).err();
        assert_eq!(err, Some(JsonTextError::TooDeep), "{depth} levels");
        assert!(start.elapsed() < Duration::from_secs(1));
    }
    assert_eq!(
        JsonTextError::TooDeep.to_string(),
        "the JSON nests deeper than 10000 levels; not shown"
    );
    assert!(json_text::pretty(&nested_arrays(MAX_DEPTH)).is_ok());
    assert!(json_text::pretty(&nested_objects(MAX_DEPTH)).is_ok());
    assert!(json_text::pretty(&nested_objects(MAX_DEPTH + 1)).is_err());
}

#[test]
fn the_binary_prints_deep_bodies_in_linear_size_and_refuses_deeper_ones() {
    let rt = server_runtime();
    let dir = tempfile::tempdir().expect("tempdir");

    let deep = nested_arrays(10_000);
    let server = rt.block_on(hostile(json_reply(200, deep.clone())));
    let run = run_cli(
        dir.path(),
        &[],
        &["scan", "updates", "--scan-url", &server.url],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    eprintln!(
        "10,000 levels: {} bytes printed for a {}-byte body in {:?}",
        run.stdout.len(),
        deep.len(),
        run.elapsed
    );
    assert!(
        run.stdout.len() <= deep.len() + INDENT_BUDGET + 1,
        "{} bytes printed for a {}-byte body",
        run.stdout.len(),
        deep.len()
    );
    assert!(run.elapsed < Duration::from_secs(20));
    if let Some(peak) = run.peak_rss_mib {
        assert!(peak < 128, "peak RSS {peak} MiB for a 20 KB body");
    }

    let deeper = nested_arrays(100_000);
    let server = rt.block_on(hostile(json_reply(200, deeper)));
    let run = run_cli(
        dir.path(),
        &[],
        &["scan", "updates", "--scan-url", &server.url],
    );
    assert_eq!(run.code, Some(4), "{}", run.stderr);
    eprintln!(
        "100,000 levels: refused in {:?}: {}",
        run.elapsed,
        run.stderr.trim_end()
    );
    assert!(run.stdout.is_empty());
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("nests deeper than 10000 levels"),
        "{}",
        run.stderr
    );
    assert!(run.elapsed < Duration::from_secs(20));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deep_body_decoded_into_values_is_an_error_not_a_crash() {
    // `Version` keeps unknown fields as `serde_json::Value`s: serde_json's recursion limit (128)
    // must surface as a decode error.
    let body = format!(
        "{{\"version\":\"1\",\"x\":{}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let server = hostile(json_reply(200, body)).await;
    let err = client(&server.url)
        .send(&scan::version())
        .await
        .expect_err("too deep");
    assert!(matches!(err, ApiError::Decode { .. }), "{err}");
    assert!(err.to_string().contains("recursion limit"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// 2. Bidi and zero-width characters
// ---------------------------------------------------------------------------------------------

/// Every bidi control and invisible character the issue names, plus C1 and a tag character.
const EVIL: &str = "a\u{202e}b\u{2066}c\u{2067}d\u{2068}e\u{2069}f\u{61c}g\u{200b}h\u{200c}i\
                    \u{200d}j\u{200e}k\u{200f}l\u{202a}m\u{202b}n\u{202c}o\u{202d}p\u{feff}q\
                    \u{2028}r\u{9b}s\u{7f}t\u{e0041}u é 日本";

#[test]
fn headless_json_escapes_bidi_and_invisible_characters_losslessly() {
    let page = json!({
        "transactions": [{
            "update_id": EVIL,
            "migration_id": 0,
            "workflow_id": EVIL,
            "record_time": "2026-01-01T00:00:00Z",
            "effective_at": "2026-01-01T00:00:00Z",
            "synchronizer_id": "sync::1220",
            "root_event_ids": [],
            "events_by_id": {},
            format!("key{EVIL}"): [EVIL],
        }],
    });
    let rt = server_runtime();
    let server = rt.block_on(hostile(json_reply(200, page.to_string())));
    let dir = tempfile::tempdir().expect("tempdir");
    let run = run_cli(
        dir.path(),
        &[],
        &["scan", "updates", "--scan-url", &server.url],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let stdout = run.stdout();
    assert_eq!(
        raw_unsafe(&stdout),
        None,
        "raw character on stdout: {stdout}"
    );
    assert_eq!(raw_unsafe(&run.stderr), None, "{}", run.stderr);
    for escape in ["\\u202e", "\\u061c", "\\u200b", "\\ufeff", "\\u2066"] {
        assert!(stdout.contains(escape), "{escape} in {stdout}");
    }
    assert!(stdout.contains("é 日本"), "ordinary text stays readable");
    let printed: Value = serde_json::from_str(&stdout).expect("stdout is JSON");
    assert_eq!(
        printed, page,
        "the escapes decode to the server's exact strings"
    );
}

#[test]
fn headless_error_lines_carry_no_bidi_or_invisible_characters() {
    let body = json!({ "error": format!("no such update {EVIL}") }).to_string();
    let rt = server_runtime();
    let server = rt.block_on(hostile(json_reply(404, body)));
    let dir = tempfile::tempdir().expect("tempdir");
    let run = run_cli(
        dir.path(),
        &[],
        &["scan", "event", "some-update", "--scan-url", &server.url],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("no such update"), "{}", run.stderr);
    assert_eq!(raw_unsafe(&run.stderr), None, "{:?}", run.stderr);
}

fn evil_row() -> ExportRow<'static> {
    ExportRow {
        record_time: "2026-01-01T00:00:00.000000Z".to_owned(),
        update_id: EVIL,
        migration_id: 3,
        kind: "transaction",
        root_action: format!("Splice.Amulet:Transfer {EVIL}"),
        parties: vec![EVIL, "bob::1220"],
    }
}

#[test]
fn json_lines_exports_escape_bidi_and_invisible_characters_losslessly() {
    let row = evil_row();
    let mut out = Vec::new();
    row.write(ExportFormat::JsonLines, &mut out);
    let text = String::from_utf8(out).expect("utf-8");
    assert!(text.ends_with('\n') && text.lines().count() == 1);
    assert_eq!(raw_unsafe(&text), None, "{text}");
    let back: Value = serde_json::from_str(text.trim_end()).expect("a JSON line");
    assert_eq!(back["update_id"], EVIL);
    assert_eq!(back["root_action"], row.root_action.as_str());
    assert_eq!(back["parties"], json!([EVIL, "bob::1220"]));
}

#[test]
fn csv_exports_neutralise_bidi_and_invisible_characters_as_the_tui_does() {
    let mut out = Vec::new();
    evil_row().write(ExportFormat::Csv, &mut out);
    let text = String::from_utf8(out).expect("utf-8");
    assert!(text.ends_with("\r\n"));
    assert_eq!(raw_unsafe(text.trim_end_matches("\r\n")), None, "{text}");
    // Bidi and invisible characters become the TUI's visible mark, one per character.
    let bidi = "al\u{202e}ice\u{2066}x\u{2069}\u{61c}y\u{200b}z\u{feff}";
    assert_eq!(csv_field(bidi), sanitize(bidi));
    assert_eq!(
        csv_field(bidi),
        "al\u{fffd}ice\u{fffd}x\u{fffd}\u{fffd}y\u{fffd}z\u{fffd}"
    );
    // Quoting and formula neutralising still apply.
    assert_eq!(csv_field("=\u{202e}1,2"), "\"'=\u{fffd}1,2\"");
}
