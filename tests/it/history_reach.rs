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
    let oldest = h.app.sh.history.first().unwrap().record_time;
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
    let first = h.app.sh.history.first().unwrap().record_time;
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
