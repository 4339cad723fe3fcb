//! The explorer on the local history index (issue 19, step 3), driven through the real app
//! against an index synced from the demo network by the real binary (`index sync --verify 1`):
//! the header's reach and a running sync (from the heartbeat), the whole-history search from
//! History (`F`: its total, paged rows, Enter opening an update the loaded history does not
//! hold), `c`'s lifecycle from the index, `--offline` (History from the index, no node asked;
//! without an index, exit 2), and a damaged index file (one message, the explorer goes on).

use std::path::{Path, PathBuf};

use cantonscope::model::format::format_time_micros;
use crossterm::event::KeyCode;

use crate::common::bin::bin;
use crate::common::{Harness, Options, stable, toast};

/// How far back from the explorer's clock the tests' index reaches.
const SYNCED_SECS: i64 = 2 * 3600;

/// Syncs the demo at `scan_url` into `dir/index.sqlite` from `SYNCED_SECS` before `now`.
fn sync_index(dir: &Path, scan_url: &str, now: i64) -> PathBuf {
    let path = dir.join("index.sqlite");
    let from = format_time_micros(now - SYNCED_SECS * 1_000_000);
    let output = bin(dir)
        .arg("--scan-url")
        .arg(scan_url)
        .args(["index", "--index"])
        .arg(&path)
        .args([
            "sync",
            "--verify",
            "1",
            "--request-rate",
            "1000",
            "--from",
            &from,
        ])
        .output()
        .expect("binary runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "sync: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    path
}

/// The explorer on the demo with an index synced from it (`offline`: `--offline`).
fn with_index(dir: &Path, offline: bool) -> Harness {
    let dir = dir.to_owned();
    Harness::start_with(Options {
        prepare: Box::new(move |demo, now, settings| {
            let path = sync_index(&dir, &demo.scan_url, now);
            settings.index = Some(path.display().to_string());
            settings.offline = offline;
        }),
        ..Options::default()
    })
}

/// The screen with the index's dates masked too.
fn screen(h: &mut Harness, w: u16, height: u16) -> String {
    let s = stable(&h.screen(w, height));
    regex::Regex::new(r"(→ |idx )\d{2}-\d{2}")
        .expect("regex")
        .replace_all(&s, "$1<mm-dd>")
        .into_owned()
}

#[test]
fn the_header_says_how_far_the_index_reaches_and_whether_a_sync_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index(dir.path(), false);
    let reach = h
        .app
        .sh
        .index
        .reach
        .clone()
        .expect("the reach was read at start");
    assert!(reach.updates > 0, "{reach:?}");
    assert!(reach.sync_running.is_none(), "the sync ended: {reach:?}");
    let wide = screen(&mut h, 120, 40);
    let header = wide.lines().next().unwrap_or_default().to_owned();
    assert!(header.contains("index <date> → "), "{header}");
    assert!(!header.contains("syncing"), "{header}");
    let narrow = h.screen(80, 24);
    let header = narrow.lines().next().unwrap_or_default();
    assert!(header.contains("idx "), "80 columns: {header}");
    assert!(header.chars().count() <= 80, "{header}");

    // A sync in another process: its heartbeat, fresh, shows at the next reading; a stale one
    // (the sync died) does not.
    let location =
        cantonscope::store::Location::parse(h.app.sh.ctx.index.as_deref().expect("index"));
    let mut writer = cantonscope::store::open_writer(&location).expect("writer");
    let beat = |at: i64| cantonscope::store::Heartbeat {
        pid: 4242,
        host: "elsewhere".into(),
        started_at: at,
        beat_at: at,
        command: "index sync --follow".into(),
    };
    writer.beat(&beat(h.now)).expect("beat");
    h.tick(5.0);
    let running = h.app.sh.index.reach.clone().expect("reach").sync_running;
    assert_eq!(running.map(|r| r.pid), Some(4242));
    let header = h
        .screen(120, 40)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(header.contains("syncing"), "{header}");
    writer.beat(&beat(h.now - 600_000_000)).expect("stale beat");
    h.tick(5.0);
    let header = h
        .screen(120, 40)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(
        !header.contains("syncing"),
        "a stale heartbeat is no running sync: {header}"
    );
}

#[test]
fn without_an_index_the_header_says_nothing_of_one() {
    let mut h = Harness::start();
    assert!(!h.app.sh.index.configured());
    let s = h.screen(120, 40);
    assert!(
        !s.lines().next().unwrap_or_default().contains("index"),
        "{s}"
    );
}

#[test]
fn a_damaged_index_is_said_once_and_the_explorer_goes_on_without_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("damaged.sqlite");
    std::fs::write(
        &path,
        b"this is not an SQLite database, not at all: 0123456789abcdef",
    )
    .expect("write");
    let shown = path.display().to_string();
    let mut h = Harness::start_with(Options {
        tweak: Box::new(move |s| s.index = Some(shown)),
        ..Options::default()
    });
    assert!(!h.app.sh.index.usable());
    let text = toast(&h);
    assert!(text.contains("damaged"), "{text}");
    assert!(text.contains("goes on without the local index"), "{text}");
    assert_eq!(h.app.errors.len(), 1, "said once");
    // The explorer runs: the history loads from the scan, time passes, no second message.
    assert!(!h.app.sh.history.is_empty());
    for _ in 0..30 {
        h.tick(5.0);
    }
    assert_eq!(h.app.errors.len(), 1, "said once, not on every reading");
    let s = h.screen(120, 40);
    assert!(
        s.lines()
            .next()
            .unwrap_or_default()
            .contains("index unusable"),
        "{s}"
    );
    h.key(KeyCode::Char('q'));
}
