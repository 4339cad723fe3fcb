//! Weeks of uptime in minutes: the whole explorer against a demo network producing 2,000
//! updates a second (about a day of MainNet in the long run), with a small history memory
//! budget. The demo runs in a child process (`cantonscope serve-demo`), so the RSS measured here
//! is the explorer's alone: the demo keeps every update it ever made and would otherwise count
//! against the explorer (it grew this process by 6 GB in 5 minutes).
//!
//! Short run: part of `cargo test`. Long run (alone):
//! `cargo test --release --test it soak_long -- --ignored --nocapture --test-threads=1`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cantonscope::msg::Action;
use serde_json::Value;

use crate::common::Harness;

const BIN: &str = env!("CARGO_BIN_EXE_cantonscope");

/// RSS of this process in KiB (Linux), if readable.
fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// `serve-demo` in a child process; killed when dropped.
pub(crate) struct ServedDemo {
    child: Child,
    pub(crate) info: Value,
    _dir: tempfile::TempDir,
}

impl Drop for ServedDemo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `serve-demo` (the default seed, `rate` new updates a second) in a child process.
pub(crate) fn serve_demo(rate: f64) -> ServedDemo {
    serve_demo_of(cantonscope::demo::DemoConfig::default().seed, rate)
}

/// [`serve_demo`] of the network of `seed`.
pub(crate) fn serve_demo_of(seed: u64, rate: f64) -> ServedDemo {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(BIN)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir.path())
        .env("CANTONSCOPE_DATA_DIR", dir.path().join("data"))
        .arg("--log-file")
        .arg(dir.path().join("demo.log"))
        .args(["serve-demo", "--listen", "127.0.0.1:0", "--rate"])
        .arg(rate.to_string())
        .arg("--seed")
        .arg(seed.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve-demo starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("its URLs");
    let info: Value = serde_json::from_str(&line).expect("a JSON line");
    ServedDemo {
        child,
        info,
        _dir: dir,
    }
}

/// The whole explorer on a served demo producing `rate` updates a second for `secs` seconds of
/// wall time (from its head on), with a history budget of `mib` MiB. Returns (updates seen,
/// updates the budget dropped, the largest accounted history size in bytes, the slowest tick or
/// full-screen draw in ms, RSS growth of this process in KiB). Fetches run to their end between ticks (in the app they run
/// in the background), so they are not counted in the slowest step.
fn soak(rate: f64, secs: u64, mib: u32) -> (u64, u64, usize, u128, Option<u64>) {
    let demo = serve_demo(rate);
    let mut settings = crate::index_explorer::served_settings(&demo);
    settings.history_memory_mib = mib;
    settings.refresh = Duration::from_millis(250);
    settings.from = cantonscope::config::HistoryStart::Now;
    let mut h = Harness::connect(&settings, chrono::Utc::now().timestamp_micros());
    let rss_start = rss_kib();
    let start = Instant::now();
    let (mut peak, mut slowest) = (0usize, 0u128);
    let mut draws = 0;
    // Past `secs`, on until the budget has dropped rows (at most a minute more).
    let exercised = |h: &Harness| h.app.sh.history.dropped() > 0;
    while start.elapsed().as_secs() < secs
        || (!exercised(&h) && start.elapsed().as_secs() < secs + 60)
    {
        std::thread::sleep(Duration::from_millis(100));
        h.now += 100_000;
        let t = Instant::now();
        let effects = h.app.update(Action::Tick(h.now));
        slowest = slowest.max(t.elapsed().as_millis());
        h.run(effects);
        peak = peak.max(h.app.sh.history.memory_bytes());
        if start.elapsed().as_secs() >= draws {
            draws += 1;
            let t = Instant::now();
            let screen = h.screen(120, 40);
            slowest = slowest.max(t.elapsed().as_millis());
            assert!(screen.contains("History"));
        }
    }
    let seen = h.app.sh.history.len() as u64 + h.app.sh.history.dropped();
    let rss = rss_start.zip(rss_kib()).map(|(a, b)| b.saturating_sub(a));
    (seen, h.app.sh.history.dropped(), peak, slowest, rss)
}

/// A short soak: 2,000 updates a second for 6 s against a 1 MiB budget (longer, up to a minute,
/// until the budget has made the history drop rows: a loaded machine fetches fewer a second).
#[test]
fn soak_short_the_history_holds_its_memory_budget_under_a_fast_demo() {
    let (seen, dropped, peak, slowest, _) = soak(2_000.0, 6, 1);
    eprintln!(
        "soak short: {seen} updates, {dropped} dropped, peak {peak} bytes, slowest step {slowest} ms"
    );
    assert!(peak <= 1 << 20, "peak {peak} bytes over the 1 MiB budget");
    assert!(
        dropped > 0,
        "{seen} updates arrived in a minute and none was dropped: the budget was not exercised"
    );
    assert!(slowest < 1_000, "a step took {slowest} ms");
}

/// The long soak (run alone: `cargo test --release --test it soak_long -- --ignored
/// --nocapture --test-threads=1`): 2,000 updates a second for 5 minutes (about a day of
/// MainNet) against a 16 MiB budget; RSS grows by at most the budget and a 64 MiB margin.
#[test]
#[ignore = "minutes long; run on demand"]
fn soak_long_the_history_holds_its_memory_budget_for_minutes() {
    let (seen, _, peak, slowest, rss) = soak(2_000.0, 300, 16);
    eprintln!(
        "soak long: {seen} updates, peak {peak} bytes, slowest step {slowest} ms, RSS +{rss:?} KiB"
    );
    assert!(peak <= 16 << 20);
    assert!(slowest < 1_000, "a step took {slowest} ms");
    if let Some(kib) = rss {
        assert!(kib <= (16 + 64) * 1024, "RSS grew by {kib} KiB");
    }
}
