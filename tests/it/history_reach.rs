//! History you can reach (issue 10), on the demo network through the real app: the summary of
//! the most telling node (a transfer inside `WalletAppInstall_ExecuteBatch` reads `transfer
//! sender → receiver amount`) and the `/` filter still matching nested events; loading a chosen
//! span in the background (`L`, `:load`) with its prompt, progress line, cancel and the memory
//! budget; exporting a time range straight from the server, streamed and resumable.

use crossterm::event::KeyCode;

use crate::common::{Harness, Options, assert_snapshot, stable, toast};

/// Body rows of the History table on screen.
fn rows(screen: &str) -> Vec<&str> {
    screen
        .lines()
        .filter(|l| {
            l.contains(" transaction ") || l.contains(" assign ") || l.contains(" unassign ")
        })
        .collect()
}

#[test]
fn nested_transfers_read_as_sender_receiver_amount_and_the_filter_still_finds_them() {
    let mut h = Harness::start();
    let transfer = regex::Regex::new(r"transfer [\w-]+ → [\w-]+( \+\d+)? [\d,]+\.\d{2,}").unwrap();
    h.palette("filter choice:WalletAppInstall_ExecuteBatch");
    let batches = h.app.history.row_count(&h.app.sh);
    assert!(batches > 0);
    let screen = h.screen(160, 40);
    let shown = rows(&screen);
    assert!(!shown.is_empty(), "{screen}");
    for row in &shown {
        // The root choice is not the summary any more: the transfer inside it is.
        assert!(!row.contains("WalletAppInstall_ExecuteBatch"), "{row}");
        assert!(transfer.is_match(row), "{row}");
    }
    // The nested choice matches at least the same updates.
    h.palette("filter choice:AmuletRules_Transfer");
    assert!(h.app.history.row_count(&h.app.sh) >= batches);
    // And a template only nested events carry.
    h.palette("filter template:Splice.Amulet:Amulet");
    assert!(h.app.history.row_count(&h.app.sh) >= batches);
    // Liveness rows read as a phrase naming the validator.
    h.palette("filter choice:ValidatorLicense_RecordValidatorLivenessActivity");
    let screen = h.screen(160, 40);
    for row in rows(&screen) {
        assert!(row.contains(" liveness "), "{row}");
    }
}

#[test]
fn a_span_loads_in_the_background_with_a_prompt_a_progress_line_and_a_result() {
    let mut h = Harness::start();
    let before = h.app.history.row_count(&h.app.sh);
    let oldest = h.app.sh.history.first().unwrap().record_time();
    h.key(KeyCode::Char('L'));
    assert!(h.app.history.is_span_prompt_open());
    let screen = h.screen(80, 24);
    assert!(screen.contains("Load the last"), "{screen}");
    assert!(screen.contains("MiB"), "{screen}");
    assert_snapshot!("span_prompt_80x24", stable(&screen));
    // Enter loads 6h (the default) without blocking: the first pages come, the rest are paced.
    h.key(KeyCode::Enter);
    assert!(!h.app.history.is_span_prompt_open());
    let p = h.app.sh.feed.span.expect("a span load");
    assert_eq!(p.since, h.now - 6 * 3_600_000_000);
    let mut saw_progress = false;
    for _ in 0..120 {
        if h.app.sh.feed.span.is_some_and(|p| !p.running()) {
            break;
        }
        let screen = h.screen(120, 40);
        saw_progress |= screen.contains("loading the last 6h");
        h.tick(0.5);
    }
    let p = h.app.sh.feed.span.expect("a span load");
    assert_eq!(
        p.end,
        Some(cantonscope::feed::loader::SpanEnd::Done),
        "{}",
        toast(&h)
    );
    assert!(saw_progress || p.pages <= 16, "the progress line was shown");
    let first = h.app.sh.history.first().unwrap().record_time();
    assert!(first < oldest && first >= p.since, "{first} {oldest}");
    assert!(h.app.history.row_count(&h.app.sh) > before * 10);
    assert!(toast(&h).contains("span loaded back to"), "{}", toast(&h));
}

#[test]
fn esc_cancels_a_span_load_and_the_palette_starts_one() {
    let mut h = Harness::start_with(Options {
        // A small budget: 24 h does not fit.
        tweak: Box::new(|s| s.history_memory_mib = 1),
        ..Options::default()
    });
    // A unit it does not know: one message, naming the units it does.
    h.palette("load 1y");
    let said = toast(&h);
    assert_eq!(
        said.matches("(use").count(),
        1,
        "one hint, not two that disagree: {said}"
    );
    assert!(said.contains("h or d"), "{said}");
    h.palette("load 24h");
    assert!(h.app.sh.feed.span.is_some_and(|p| p.running()));
    let screen = h.screen(120, 40);
    assert!(screen.contains("loading the last 1d"), "{screen}");
    h.key(KeyCode::Esc);
    let p = h.app.sh.feed.span.expect("a span load");
    assert_eq!(p.end, Some(cantonscope::feed::loader::SpanEnd::Cancelled));
    assert!(toast(&h).contains("cancelled"), "{}", toast(&h));
    // Again: this time it runs into the 1 MiB budget and says so.
    h.palette("load 24h");
    for _ in 0..200 {
        if h.app.sh.feed.span.is_some_and(|p| !p.running()) {
            break;
        }
        h.tick(0.5);
    }
    let p = h.app.sh.feed.span.expect("a span load");
    assert_eq!(
        p.end,
        Some(cantonscope::feed::loader::SpanEnd::Budget),
        "{}",
        toast(&h)
    );
    assert!(
        toast(&h).contains("memory budget full (1 MiB)"),
        "{}",
        toast(&h)
    );
    assert!(h.app.sh.history.memory_bytes() <= 1 << 20);
}

// ---------------------------------------------------------------------------------------------
// Export from the server
// ---------------------------------------------------------------------------------------------

use cantonscope::model::summary::format_time_micros;

const HOUR: i64 = 3_600_000_000;

/// The demo ledger's update ids within `from..=until`, in order.
fn demo_ids(from: i64, until: i64) -> Vec<String> {
    cantonscope::demo::generate(42)
        .updates()
        .iter()
        .filter(|u| u.record_time >= from && u.record_time <= until)
        .map(|u| u.update_id.clone())
        .collect()
}

/// The update ids of a JSON Lines export, in order.
fn file_ids(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            v["update_id"].as_str().unwrap().to_owned()
        })
        .collect()
}

/// `X`, the range typed in, Enter.
pub(crate) fn ask_range_export(h: &mut Harness, path: &std::path::Path, from: i64, until: i64) {
    h.key(KeyCode::Char('X'));
    let d = h.app.history.range_dialog_mut().expect("the dialog opens");
    d.set_field(0, &path.display().to_string());
    d.set_field(1, &format_time_micros(from));
    d.set_field(2, &format_time_micros(until));
    h.key(KeyCode::Enter);
}

/// [`ask_range_export`], and the export starts.
fn start_range_export(h: &mut Harness, path: &std::path::Path, from: i64, until: i64) {
    ask_range_export(h, path, from, until);
    assert!(!h.app.history.is_range_dialog_open(), "{}", toast(h));
}

/// Ticks (250 ms each) until the export from the server ends (or `max` ticks); returns the
/// ticks.
fn run_ticks(h: &mut Harness, max: usize) -> usize {
    let mut ticks = 0;
    while ticks < max && h.app.history.is_range_exporting() {
        h.tick(0.25);
        ticks += 1;
    }
    ticks
}

#[test]
fn a_range_export_from_the_server_holds_exactly_the_updates_of_the_range() {
    let mut h = Harness::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("range.jsonl");
    let (from, until) = (h.now - 20 * HOUR, h.now - 2 * HOUR);
    let want = demo_ids(from, until);
    assert!(want.len() > 2_000, "{} updates: several pages", want.len());
    h.key(KeyCode::Char('X'));
    let screen = h.screen(80, 24);
    assert!(screen.contains("Export from the server"), "{screen}");
    let stamp = regex::Regex::new(r"\d{8}T\d{6}Z").unwrap();
    assert_snapshot!(
        "range_dialog_80x24",
        stamp.replace_all(&stable(&screen), "<stamp>")
    );
    h.key(KeyCode::Esc);
    start_range_export(&mut h, &path, from, until);
    assert!(h.app.history.is_range_exporting());
    let screen = h.screen(120, 40);
    assert!(!screen.contains("Export from the server"), "{screen}");
    // Progress in the status line as pages land.
    for _ in 0..4 {
        h.tick(0.25);
    }
    assert!(
        toast(&h).starts_with("exporting from the server"),
        "{}",
        toast(&h)
    );
    assert!(h.screen(120, 40).contains("exporting from the server"));
    let ticks = 4 + run_ticks(&mut h, 400);
    assert!(!h.app.history.is_range_exporting(), "{}", toast(&h));
    assert_eq!(file_ids(&path), want);
    assert!(toast(&h).starts_with("exported "), "{}", toast(&h));
    // Rate-limited: at most a page per 250 ms of the clock.
    let pages = crate::common::count(&h, "updates Export");
    assert!(pages > want.len() / 1000, "{pages} pages");
    assert!(
        pages <= ticks + 1,
        "{pages} pages in {ticks} ticks of 250 ms"
    );
    let side: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("range.jsonl.progress.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(side["complete"], true);
    assert_eq!(side["updates"], want.len());
    // The same file again: already complete.
    start_range_export(&mut h, &path, from, until);
    assert!(
        toast(&h).contains("already holds the complete export"),
        "{}",
        toast(&h)
    );
    assert!(!h.app.history.is_range_exporting());
}

/// A range in an earlier migration (the demo is in migration 1; migration 0 ended about 36 h
/// before its newest update): the export reads that migration, and a range across the change
/// reads both. Before, the cursor took the newest migration: a range wholly in migration 0 gave
/// 0 updates marked complete, and a range across the change began at migration 1.
#[test]
fn a_range_export_reads_the_migration_in_force_at_its_start() {
    let mut h = Harness::start();
    let ledger = cantonscope::demo::generate(42);
    let change = ledger
        .updates()
        .iter()
        .find(|u| u.migration_id == 1)
        .expect("a migration 1")
        .record_time;
    let dir = tempfile::tempdir().unwrap();
    for (name, from, until) in [
        ("old.jsonl", change - 12 * HOUR, change - HOUR),
        ("across.jsonl", change - 6 * HOUR, change + 6 * HOUR),
    ] {
        let want = demo_ids(from, until);
        assert!(want.len() > 500, "{name}: {} updates", want.len());
        let path = dir.path().join(name);
        start_range_export(&mut h, &path, from, until);
        run_ticks(&mut h, 400);
        assert!(!h.app.history.is_range_exporting(), "{}", toast(&h));
        assert_eq!(file_ids(&path), want, "{name}");
    }
}

/// From ledger begin the loader has not looked for where the migrations start: the export
/// guesses the migration from the loaded updates (migration 0, the only one loaded) and skips
/// what migration 1 holds before the range, so the file still holds exactly the range.
#[test]
fn a_range_export_from_a_history_loaded_from_begin_holds_exactly_the_range() {
    let mut h = Harness::start_with(crate::common::Options {
        tweak: Box::new(|s| s.from = cantonscope::config::HistoryStart::Begin),
        ..crate::common::Options::default()
    });
    assert!(h.app.sh.feed.migration_starts.is_none());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("late.jsonl");
    let (from, until) = (h.now - 4 * HOUR, h.now - HOUR);
    let want = demo_ids(from, until);
    assert!(want.len() > 100, "{} updates", want.len());
    start_range_export(&mut h, &path, from, until);
    run_ticks(&mut h, 800);
    assert!(!h.app.history.is_range_exporting(), "{}", toast(&h));
    assert_eq!(file_ids(&path), want);
}

#[test]
fn a_cut_range_export_resumes_without_duplicates_or_gaps() {
    let mut h = Harness::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("range.csv");
    let (from, until) = (h.now - 30 * HOUR, h.now - HOUR);
    let want = demo_ids(from, until);
    start_range_export(&mut h, &path, from, until);
    // Two pages, then Esc.
    for _ in 0..6 {
        h.tick(0.25);
    }
    assert!(h.app.history.is_range_exporting());
    h.key(KeyCode::Esc);
    assert!(!h.app.history.is_range_exporting());
    assert!(
        toast(&h).contains("X with the same file continues"),
        "{}",
        toast(&h)
    );
    let written = std::fs::read_to_string(&path).unwrap().lines().count() - 1;
    assert!(written >= 1_000 && written < want.len(), "{written}");
    // A crash in the middle of a row: half a line at the end of the file.
    {
        use std::io::Write as _;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"2026-11-22T10:00:00.000000Z,1220dead")
            .unwrap();
    }
    // The same file again (the range typed differently: the file's own range wins).
    start_range_export(&mut h, &path, from + HOUR, until);
    assert!(
        toast(&h).starts_with("resuming the export of"),
        "{}",
        toast(&h)
    );
    run_ticks(&mut h, 600);
    assert!(!h.app.history.is_range_exporting(), "{}", toast(&h));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.split("\r\n");
    assert_eq!(lines.next(), Some(cantonscope::model::export::CSV_HEADER));
    let ids: Vec<String> = lines
        .filter(|l| !l.is_empty())
        .map(|l| l.split(',').nth(1).unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), want.len());
    assert_eq!(ids, want, "no duplicates, no gaps");
    assert!(!text.contains("1220dead"));
}

/// Issue 21: `L 2d` on the demo (whose migration 0 → 1 happened 36 h before its newest update)
/// crosses the migration boundary: both migrations' updates load, in ledger (record-time)
/// order, once each, and the title names both migrations.
#[test]
fn a_span_crosses_the_migration_boundary_and_the_title_names_both_migrations() {
    let mut h = Harness::start();
    assert_eq!(h.app.sh.history.first().unwrap().migration_id(), 1);
    let screen = h.screen(120, 40);
    assert!(screen.contains("migration 1"), "{screen}");
    h.key(KeyCode::Char('L'));
    crate::common::clear_input(&mut h);
    h.type_text("2d");
    h.key(KeyCode::Enter);
    for _ in 0..400 {
        if h.app.sh.feed.span.is_some_and(|p| !p.running()) {
            break;
        }
        h.tick(0.5);
    }
    let p = h.app.sh.feed.span.expect("a span load");
    assert_eq!(
        p.end,
        Some(cantonscope::feed::loader::SpanEnd::Done),
        "{}",
        toast(&h)
    );
    let history = &h.app.sh.history;
    let first = history.first().unwrap();
    assert_eq!(first.migration_id(), 0, "the older migration was loaded");
    assert!(first.record_time() >= p.since);
    // Within an hour of the span's start: the span was loaded back to its start, not to the
    // migration boundary (36 h back).
    assert!(
        first.record_time() - p.since < 3_600_000_000,
        "{}",
        first.record_time() - p.since
    );
    let items: Vec<_> = history.iter().collect();
    assert!(items.iter().any(|s| s.migration_id() == 1));
    for w in items.windows(2) {
        assert!(
            (w[0].migration_id(), w[0].record_time()) <= (w[1].migration_id(), w[1].record_time())
                && w[0].record_time() <= w[1].record_time(),
            "out of order: {} then {}",
            w[0].update_id(),
            w[1].update_id()
        );
    }
    let ids: std::collections::HashSet<_> =
        items.iter().map(|s| s.update_id().to_string()).collect();
    assert_eq!(ids.len(), items.len(), "no update loaded twice");
    let screen = h.screen(120, 40);
    assert!(screen.contains("migrations 0–1"), "{screen}");
}

/// Issue 21: `serve-demo` restarted on the same port with another ledger: once the scan answers
/// again, the explorer reads its newest loaded update again, finds it gone, says the history
/// changed (status line and error log) and History reloads the new ledger alone: no duplicate
/// ids, none of the old ledger's updates.
#[test]
fn a_history_rewritten_under_the_explorer_is_said_and_reloaded() {
    let mut h = Harness::start();
    let old: std::collections::HashSet<String> = h
        .app
        .sh
        .history
        .iter()
        .map(|s| s.update_id().to_string())
        .collect();
    assert!(!old.is_empty());
    let addr = h.stop_demo();
    // The poll fails while the server is down.
    h.tick(3.0);
    assert!(h.app.sh.feed.failures > 0, "{}", toast(&h));
    let demo =
        h.rt.block_on(cantonscope::demo::start(cantonscope::demo::DemoConfig {
            listen: addr,
            seed: 7,
            ..cantonscope::demo::DemoConfig::default()
        }))
        .expect("demo restarts");
    h.demo = Some(demo);
    for _ in 0..20 {
        h.tick(3.0);
        if h.app.sh.feed.failures == 0 && h.app.sh.feed.at_head {
            break;
        }
    }
    let logged: Vec<String> = h.app.errors.entries().map(|e| e.message.clone()).collect();
    assert!(
        logged
            .iter()
            .any(|m| m.contains("the history changed under the explorer")),
        "{logged:?}"
    );
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("history changed") || logged.iter().any(|m| m.contains("reloads")),
        "{screen}"
    );
    let items: Vec<String> = h
        .app
        .sh
        .history
        .iter()
        .map(|s| s.update_id().to_string())
        .collect();
    assert!(!items.is_empty(), "the new ledger loaded");
    let unique: std::collections::HashSet<&String> = items.iter().collect();
    assert_eq!(unique.len(), items.len(), "no duplicate update ids");
    assert!(
        items.iter().all(|id| !old.contains(id)),
        "none of the old ledger's updates stay"
    );
    assert_eq!(h.app.history.row_count(&h.app.sh), items.len());
}

/// Issue 21: `serve-demo` restarted on the same port with another ledger between two polls (no
/// request fails): a poll at the head reads the update that was newest at the last check again
/// (every few polls), finds it gone, says the history changed and reloads the new ledger alone.
#[test]
fn a_history_rewritten_between_two_polls_is_found_without_a_failed_request() {
    let mut h = Harness::start();
    h.tick(3.0);
    let old: std::collections::HashSet<String> = h
        .app
        .sh
        .history
        .iter()
        .map(|s| s.update_id().to_string())
        .collect();
    assert!(h.app.sh.feed.at_head && !old.is_empty());
    let addr = h.stop_demo();
    let demo =
        h.rt.block_on(cantonscope::demo::start(cantonscope::demo::DemoConfig {
            listen: addr,
            seed: 7,
            ..cantonscope::demo::DemoConfig::default()
        }))
        .expect("demo restarts");
    h.demo = Some(demo);
    let said = |h: &Harness| {
        h.app
            .errors
            .entries()
            .any(|e| e.message.contains("the history changed under the explorer"))
    };
    let mut polls = 0;
    while !said(&h) && polls < 2 * cantonscope::feed::loader::HEAD_CHECK_EVERY {
        h.tick(2.5);
        polls += 1;
        assert_eq!(h.app.sh.feed.failures, 0, "no request failed");
    }
    assert!(said(&h), "said within {polls} polls: {}", toast(&h));
    // Reloaded: the new ledger alone.
    for _ in 0..10 {
        h.tick(2.5);
    }
    let items: Vec<String> = h
        .app
        .sh
        .history
        .iter()
        .map(|s| s.update_id().to_string())
        .collect();
    assert!(!items.is_empty(), "the new ledger loaded");
    let unique: std::collections::HashSet<&String> = items.iter().collect();
    assert_eq!(unique.len(), items.len(), "no duplicate update ids");
    assert!(
        items.iter().all(|id| !old.contains(id)),
        "none of the old ledger's updates stay"
    );
    assert!(
        !h.app
            .errors
            .entries()
            .any(|e| e.message.contains("error sending request") || e.message.contains("connect")),
        "no failed request"
    );
}

/// Issue 21: at 200 columns History adds a Parties column (the names of the update's parties)
/// instead of widening the Summary to 100 characters; at 120 there is none.
#[test]
fn at_200_columns_history_adds_a_parties_column() {
    let mut h = Harness::start();
    let narrow = h.screen(120, 40);
    assert!(!narrow.contains("Parties"), "{narrow}");
    let screen = h.screen(200, 60);
    let header = screen
        .lines()
        .find(|l| l.contains("Summary"))
        .expect("the header");
    assert!(header.contains("Parties"), "{header}");
    let summary_w = header.find("Events").unwrap() - header.find("Summary").unwrap();
    assert!(
        summary_w < 100,
        "the Summary is not widened to 100: {header}"
    );
    assert!(
        rows(&screen).iter().any(|r| r.contains("validator")),
        "party names shown: {screen}"
    );
    assert_snapshot!("history_parties_200x60", stable(&screen));
}

/// `X`'s dialog chooses the format as `e`'s does (the shared path + format component): Ctrl-T
/// switches it on screen, a typed `.csv` path selects CSV, and the file written is CSV (the
/// header, then a row per update of the range).
#[test]
fn x_chooses_its_format_like_e_and_writes_csv() {
    use cantonscope::model::export::ExportFormat;
    use crossterm::event::KeyModifiers;
    let mut h = Harness::start();
    h.key(KeyCode::Char('X'));
    assert!(h.screen(80, 24).contains("● JSON Lines  ○ CSV"));
    h.key_mod(KeyCode::Char('t'), KeyModifiers::CONTROL);
    let d = h.app.history.range_dialog_mut().unwrap();
    assert_eq!(d.format(), ExportFormat::Csv);
    assert!(d.field(0).ends_with(".csv"), "{}", d.field(0));
    assert!(h.screen(80, 24).contains("○ JSON Lines  ● CSV"));
    h.key(KeyCode::Esc);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("range.csv");
    let (from, until) = (h.now - 3 * HOUR, h.now - 2 * HOUR);
    start_range_export(&mut h, &path, from, until);
    run_ticks(&mut h, 400);
    let text = std::fs::read_to_string(&path).unwrap();
    let header =
        String::from_utf8(cantonscope::model::export_range::header(ExportFormat::Csv)).unwrap();
    assert!(text.starts_with(&header), "{text}");
    assert!(!header.starts_with('{'));
    let rows = text.lines().count() - 1;
    assert_eq!(rows, demo_ids(from, until).len());
}

/// Operator habits: in `X`'s dialog the Format line is a line like the others: Tab (or ↓) from
/// the file reaches it, and there ←/→ or Space switch the format (the extension follows), as
/// Tab does in `e`'s dialog; typing there changes nothing; Ctrl-T still switches it from any
/// line; on the file and time lines ←/→ move in the text. The dialog names the keys.
#[test]
fn x_switches_its_format_with_left_right_and_space_on_the_format_line() {
    use cantonscope::model::export::ExportFormat;
    use crossterm::event::KeyModifiers;
    let mut h = Harness::start();
    h.key(KeyCode::Char('X'));
    let screen = h.screen(80, 24);
    assert!(
        screen.contains("Enter export · Tab/↑/↓ line · ←/→ ^T format · Esc cancel"),
        "{screen}"
    );
    assert!(screen.contains("(Ctrl-T switches)"), "{screen}");
    let state = |h: &mut Harness| {
        let d = h
            .app
            .history
            .range_dialog_mut()
            .expect("the dialog is open");
        (d.format(), d.field(0), d.field(1), d.is_format_focused())
    };
    let (format, path, from, on_format) = state(&mut h);
    assert_eq!(format, ExportFormat::JsonLines);
    assert!(!on_format);
    // On the file, → moves in the path.
    h.key(KeyCode::Right);
    assert_eq!(state(&mut h).0, ExportFormat::JsonLines);
    // Tab: the Format line, its hint naming ←/→ and Space.
    h.key(KeyCode::Tab);
    assert!(state(&mut h).3);
    let screen = h.screen(80, 24);
    assert!(screen.contains("(←/→ or Space switch)"), "{screen}");
    let mut want = ExportFormat::JsonLines;
    for code in [KeyCode::Right, KeyCode::Left, KeyCode::Char(' ')] {
        h.key(code);
        want = if want == ExportFormat::Csv {
            ExportFormat::JsonLines
        } else {
            ExportFormat::Csv
        };
        let (format, now_path, _, on_format) = state(&mut h);
        assert_eq!(format, want, "{code:?}");
        assert!(on_format, "{code:?} stays on the Format line");
        let ext = if want == ExportFormat::Csv {
            ".csv"
        } else {
            ".jsonl"
        };
        assert!(now_path.ends_with(ext), "{code:?}: {now_path}");
    }
    assert!(h.screen(80, 24).contains("○ JSON Lines  ● CSV"));
    // Typing on the Format line changes nothing.
    h.key(KeyCode::Char('x'));
    let (format, now_path, now_from, _) = state(&mut h);
    assert_eq!(format, ExportFormat::Csv);
    assert_eq!(now_path, path.replace(".jsonl", ".csv"));
    assert_eq!(now_from, from);
    // ↓: From, where ← moves in the text and Ctrl-T still switches the format.
    h.key(KeyCode::Down);
    assert!(!state(&mut h).3);
    h.key(KeyCode::Left);
    h.key(KeyCode::Char('2'));
    let (format, _, now_from, _) = state(&mut h);
    assert_eq!(format, ExportFormat::Csv, "← in From does not switch");
    assert_eq!(now_from, "-12h");
    h.key_mod(KeyCode::Char('t'), KeyModifiers::CONTROL);
    assert_eq!(state(&mut h).0, ExportFormat::JsonLines);
    // ↑ back to the Format line, ↑ again to the file.
    h.key(KeyCode::Up);
    assert!(state(&mut h).3);
    h.key(KeyCode::Up);
    assert!(!state(&mut h).3);
    h.key(KeyCode::Esc);
    assert!(h.app.history.range_dialog_mut().is_none());
}
