//! A server can never hurt the operator's machine. Each test puts cantonscope (the API client in
//! process, or the real binary) in front of a small hostile HTTP server on 127.0.0.1:0:
//!
//! - response size cap: a gzip bomb (about 1 MiB on the wire, 1 GiB inflated), an endless
//!   chunked body, bodies just under and just over the cap; one error line, no retry, bounded
//!   time and (for the binary) bounded peak memory;
//! - deeply nested JSON: re-indenting is linear in the input, nesting beyond the limit is refused
//!   with a message, and a `Value` decode of a deep body is an error, not a crash;
//! - bidi and zero-width characters: written as `\uXXXX` escapes in headless JSON and JSON Lines
//!   exports (lossless), neutralised in CSV exports and error lines.

use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use cantonscope::api::{ApiClient, ApiConfig, ApiError, scan};
use cantonscope::model::export::{ExportFormat, ExportRow, csv_field};
use cantonscope::model::json_text::{self, INDENT_LEVELS, JsonTextError, MAX_DEPTH};
use cantonscope::ui::safe::{needs_replacing, sanitize};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const MIB: usize = 1024 * 1024;
/// The default cap, as the error message names it.
const DEFAULT_CAP_MIB: usize = 64;

// ---------------------------------------------------------------------------------------------
// gzip bodies, built by hand (a debug-build compressor would take minutes for 1 GiB)
// ---------------------------------------------------------------------------------------------

/// A deflate bit writer (fields LSB first, Huffman codes MSB first).
#[derive(Default)]
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    fn put(&mut self, value: u64, count: u32) {
        self.acc |= value << self.n;
        self.n += count;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    fn code(&mut self, code: u64, len: u32) {
        for i in (0..len).rev() {
            self.put((code >> i) & 1, 1);
        }
    }

    fn align(&mut self) {
        if self.n > 0 {
            self.put(0, 8 - self.n);
        }
    }

    fn zeros(&mut self, mut count: u64) {
        while count > 0 && self.n != 0 {
            self.put(0, 1);
            count -= 1;
        }
        let bytes = usize::try_from(count / 8).expect("fits");
        self.out.resize(self.out.len() + bytes, 0);
        self.put(0, (count % 8) as u32);
    }
}

fn crc32(data: impl Iterator<Item = u8>) -> u32 {
    let mut table = [0u32; 256];
    for (i, entry) in table.iter_mut().enumerate() {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 == 1 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        *entry = c;
    }
    !data.fold(!0u32, |c, b| {
        table[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8)
    })
}

/// A gzip member that inflates to `prefix` followed by spaces, `total` bytes in all (valid JSON
/// when `prefix` is): the prefix in a stored block, then one dynamic-Huffman block where a
/// length-258, distance-1 match costs two bits, about 1:1000. `with_crc: false` leaves the
/// trailer's CRC at zero (computing it over 1 GiB takes seconds in a debug build; a client that
/// respects its cap never gets that far).
fn gzip_json(prefix: &str, total: usize, with_crc: bool) -> Vec<u8> {
    assert!(total > prefix.len() && prefix.len() < 65_536);
    let mut bits = Bits::default();
    bits.out
        .extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
    // Stored block with the prefix.
    bits.put(0, 1);
    bits.put(0, 2);
    bits.align();
    let len = prefix.len() as u16;
    bits.out.extend_from_slice(&len.to_le_bytes());
    bits.out.extend_from_slice(&(!len).to_le_bytes());
    bits.out.extend_from_slice(prefix.as_bytes());
    // Final dynamic block: literal/length codes ' ' (32) → 10, end (256) → 11, length 258
    // (285) → 0; distance codes 0 → 0, 1 → 1. HLIT 286, HDIST 2, HCLEN 18.
    bits.put(1, 1);
    bits.put(2, 2);
    bits.put(29, 5);
    bits.put(1, 5);
    bits.put(14, 4);
    // Code length code lengths, in the format's order: 18 → 1 bit (0), 1 → 10, 2 → 11.
    for sym in [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1] {
        let len = match sym {
            18 => 1,
            1 | 2 => 2,
            _ => 0,
        };
        bits.put(len, 3);
    }
    let zeros = |bits: &mut Bits, n: u64| {
        bits.code(0, 1);
        bits.put(n - 11, 7);
    };
    zeros(&mut bits, 32); // 0..=31
    bits.code(3, 2); // 32: length 2
    zeros(&mut bits, 138); // 33..=170
    zeros(&mut bits, 85); // 171..=255
    bits.code(3, 2); // 256: length 2
    zeros(&mut bits, 28); // 257..=284
    bits.code(2, 2); // 285: length 1
    bits.code(2, 2); // distance 0: length 1
    bits.code(2, 2); // distance 1: length 1
    let rest = total - prefix.len();
    let matches = (rest - 1) / 258;
    for _ in 0..=(rest - 1) % 258 {
        bits.code(2, 2); // ' '
    }
    bits.zeros(2 * matches as u64); // each match: code 0, distance 0
    bits.code(3, 2); // end of block
    bits.align();
    let crc = if with_crc {
        crc32(
            prefix
                .bytes()
                .chain(std::iter::repeat_n(b' ', total - prefix.len())),
        )
    } else {
        0
    };
    let mut out = bits.out;
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out
}

// ---------------------------------------------------------------------------------------------
// The hostile server
// ---------------------------------------------------------------------------------------------

#[derive(Clone)]
pub(crate) enum Reply {
    /// A whole body with a Content-Length.
    Body {
        status: u16,
        gzip: bool,
        body: Arc<Vec<u8>>,
    },
    /// A chunked body that never ends (until the client hangs up).
    Endless { status: u16 },
}

pub(crate) fn json_reply(status: u16, body: impl Into<Vec<u8>>) -> Reply {
    Reply::Body {
        status,
        gzip: false,
        body: Arc::new(body.into()),
    }
}

fn gzip_reply(body: Vec<u8>) -> Reply {
    Reply::Body {
        status: 200,
        gzip: true,
        body: Arc::new(body),
    }
}

pub(crate) struct Hostile {
    pub(crate) url: String,
    requests: Arc<AtomicUsize>,
}

impl Hostile {
    pub(crate) fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

/// Serves `reply` to every request (on the current tokio runtime) until the runtime ends.
pub(crate) async fn hostile(reply: Reply) -> Hostile {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let requests = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&requests);
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let reply = reply.clone();
            let counter = Arc::clone(&counter);
            tokio::spawn(async move {
                let _ = answer(socket, reply, &counter).await;
            });
        }
    });
    Hostile { url, requests }
}

async fn answer(
    mut socket: tokio::net::TcpStream,
    reply: Reply,
    counter: &AtomicUsize,
) -> std::io::Result<()> {
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
    counter.fetch_add(1, Ordering::SeqCst);
    match reply {
        Reply::Body { status, gzip, body } => {
            let head = format!(
                "HTTP/1.1 {status} Hostile\r\ncontent-type: application/json\r\n\
                 content-length: {}\r\n{}connection: close\r\n\r\n",
                body.len(),
                if gzip {
                    "content-encoding: gzip\r\n"
                } else {
                    ""
                }
            );
            socket.write_all(head.as_bytes()).await?;
            socket.write_all(&body).await?;
            socket.shutdown().await
        }
        Reply::Endless { status } => {
            let head = format!(
                "HTTP/1.1 {status} Hostile\r\ncontent-type: application/json\r\n\
                 transfer-encoding: chunked\r\n\r\n"
            );
            socket.write_all(head.as_bytes()).await?;
            let chunk = format!("{:x}\r\n{}\r\n", 64 * 1024, " ".repeat(64 * 1024));
            loop {
                socket.write_all(chunk.as_bytes()).await?;
            }
        }
    }
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
    let mut command = crate::common::bin::bin(dir);
    command
        .envs(env.iter().copied())
        .args(args)
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
// 1. Response size cap
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gzip_bomb_fails_fast_with_one_error_and_no_retry() {
    let bomb = gzip_json("{}", 1 << 30, false);
    assert!(bomb.len() < 1_100_000, "{} bytes on the wire", bomb.len());
    let server = hostile(gzip_reply(bomb)).await;
    let start = Instant::now();
    let err = client(&server.url)
        .send(&scan::version())
        .await
        .expect_err("a 1 GiB body is refused");
    let elapsed = start.elapsed();
    assert_eq!(
        err.to_string(),
        format!("response larger than {DEFAULT_CAP_MIB} MiB from scan GET /version")
    );
    assert_eq!(err.exit_code(), 1, "a server error");
    assert!(!err.is_transient());
    assert_eq!(
        server.requests(),
        1,
        "never retried (a GET retries transient errors)"
    );
    assert!(elapsed < Duration::from_secs(20), "took {elapsed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_body_fails_fast_with_one_error_and_no_retry() {
    let server = hostile(Reply::Endless { status: 200 }).await;
    let start = Instant::now();
    let err = client(&server.url)
        .send(&scan::version())
        .await
        .expect_err("an endless body is refused");
    let elapsed = start.elapsed();
    assert_eq!(
        err.to_string(),
        format!("response larger than {DEFAULT_CAP_MIB} MiB from scan GET /version")
    );
    assert_eq!(server.requests(), 1, "never retried");
    // The request timeout (30 s) is not what stops it.
    assert!(elapsed < Duration::from_secs(20), "took {elapsed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_of_exactly_the_cap_is_read_and_one_byte_more_is_not() {
    let prefix = r#"{"version":"0.5.5"}"#;
    let pad = |total: usize| {
        let mut body = prefix.as_bytes().to_vec();
        body.resize(total, b' ');
        body
    };
    let at_cap = hostile(json_reply(200, pad(DEFAULT_CAP_MIB * MIB))).await;
    let resp = client(&at_cap.url)
        .send_raw(&scan::version())
        .await
        .expect("64 MiB is within the default cap");
    assert_eq!(resp.body.len(), DEFAULT_CAP_MIB * MIB);
    assert_eq!(resp.typed.version, "0.5.5");

    let over = hostile(json_reply(200, pad(DEFAULT_CAP_MIB * MIB + 1))).await;
    let err = client(&over.url)
        .send(&scan::version())
        .await
        .expect_err("one byte over");
    assert!(
        matches!(err, ApiError::ResponseTooLarge { limit_mib: 64, .. }),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cap_counts_decoded_bytes_not_bytes_on_the_wire() {
    let prefix = r#"{"version":"0.5.5"}"#;
    let at_cap = hostile(gzip_reply(gzip_json(prefix, MIB, true))).await;
    let resp = client(&at_cap.url)
        .with_max_response_mib(1)
        .send_raw(&scan::version())
        .await
        .expect("1 MiB inflated is within a 1 MiB cap");
    assert_eq!(resp.body.len(), MIB);
    assert!(resp.body.starts_with(prefix.as_bytes()));

    let over = hostile(gzip_reply(gzip_json(prefix, MIB + 1, true))).await;
    let err = client(&over.url)
        .with_max_response_mib(1)
        .send(&scan::version())
        .await
        .expect_err("1 KiB on the wire, 1 MiB + 1 inflated");
    assert_eq!(
        err.to_string(),
        "response larger than 1 MiB from scan GET /version"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_error_body_still_reads_as_its_status() {
    let server = hostile(Reply::Endless { status: 503 }).await;
    let start = Instant::now();
    let err = client(&server.url)
        .send(&scan::version())
        .await
        .expect_err("503");
    assert_eq!(err.status(), Some(503), "{err}");
    assert!(start.elapsed() < Duration::from_secs(20));
}

/// The binary against a server whose every answer is `reply`: exit 1, one line on stderr naming
/// the cap and the endpoint, nothing on stdout, one request, bounded time and memory.
fn cli_refuses(reply: Reply, what: &str) {
    let rt = server_runtime();
    let server = rt.block_on(hostile(reply));
    let dir = tempfile::tempdir().expect("tempdir");
    let run = run_cli(
        dir.path(),
        &[],
        &["scan", "bft-sequencers", "--scan-url", &server.url],
    );
    eprintln!(
        "{what}: exit {:?} in {:?}, peak RSS {:?} MiB",
        run.code, run.elapsed, run.peak_rss_mib
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "cantonscope: response larger than {DEFAULT_CAP_MIB} MiB from scan GET \
             /v0/sv-bft-sequencers\n"
        )
    );
    assert!(run.stdout.is_empty());
    assert_eq!(server.requests(), 1, "never retried");
    assert!(
        run.elapsed < Duration::from_secs(20),
        "took {:?}",
        run.elapsed
    );
    if let Some(peak) = run.peak_rss_mib {
        // The cap (64 MiB) plus the program itself; a body read whole would be 1 GiB and more.
        assert!(peak < 256, "{what}: peak RSS {peak} MiB");
    }
}

#[test]
fn the_binary_refuses_a_gzip_bomb_in_bounded_memory() {
    cli_refuses(
        gzip_reply(gzip_json("{}", 1 << 30, false)),
        "gzip bomb (1 GiB)",
    );
}

#[test]
fn the_binary_refuses_an_endless_body_in_bounded_memory() {
    cli_refuses(Reply::Endless { status: 200 }, "endless body");
}

#[test]
fn the_binary_takes_the_cap_from_the_config_file_env_and_flag() {
    let rt = server_runtime();
    let prefix = r#"{"transactions":[]}"#;
    let at_1mib = rt.block_on(hostile(gzip_reply(gzip_json(prefix, MIB, true))));
    let over_1mib = rt.block_on(hostile(gzip_reply(gzip_json(prefix, MIB + 1, true))));
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("config.toml");
    let write = |url: &str, cap: &str| {
        std::fs::write(
            &config,
            format!("[profiles.p]\nscan_url = \"{url}\"\nmax_response_mib = {cap}\n"),
        )
        .expect("config");
    };
    let config_arg = config.to_str().expect("utf-8 path");
    let scan = |env: &[(&str, &str)], extra: &[&str]| {
        let mut args = vec!["--config", config_arg, "scan", "updates"];
        args.extend_from_slice(extra);
        run_cli(dir.path(), env, &args)
    };

    write(&at_1mib.url, "1");
    let run = scan(&[], &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout(), "{\n  \"transactions\": []\n}\n");

    write(&over_1mib.url, "1");
    let run = scan(&[], &[]);
    assert_eq!(run.code, Some(1));
    assert_eq!(
        run.stderr,
        "cantonscope: response larger than 1 MiB from scan POST /v2/updates\n"
    );
    // The environment overrides the file, the flag overrides the environment.
    let run = scan(&[("CANTONSCOPE_MAX_RESPONSE_MIB", "2")], &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let run = scan(
        &[("CANTONSCOPE_MAX_RESPONSE_MIB", "2")],
        &["--max-response-mib", "1"],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("larger than 1 MiB"), "{}", run.stderr);

    // Nonsense is a configuration error naming the file and line.
    write(&at_1mib.url, "0");
    let run = scan(&[], &[]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("config.toml:3:") && run.stderr.contains("max_response_mib"),
        "{}",
        run.stderr
    );
}

// ---------------------------------------------------------------------------------------------
// 2. Deeply nested JSON
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
// 3. Bidi and zero-width characters
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
        &[
            "scan",
            "event",
            "1220abababababababababababababababababababababababababababababababab",
            "--scan-url",
            &server.url,
        ],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("no such update"), "{}", run.stderr);
    assert_eq!(raw_unsafe(&run.stderr), None, "{:?}", run.stderr);
}

fn evil_row() -> ExportRow<'static> {
    ExportRow {
        record_time: "2026-01-01T00:00:00.000000Z".to_owned(),
        update_id: EVIL.into(),
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
