//! History pane benchmarks (issue targets in brackets):
//! 1. drawing the History pane with 1,000,000 loaded summaries at 200x60 into a `Buffer`
//!    [≤ 1 ms per frame], following the head and with a filter active;
//! 2. ingest: `History::add_page` throughput from decoded pages [≥ 100,000 updates/s];
//! 3. memory per summary for 1,000,000 summaries, measured with a counting global allocator
//!    [≤ 512 bytes], printed before the timings;
//! 4. export: encoding one tick's chunk (`CHUNK_ROWS` rows) to JSON Lines and CSV [≤ 25 ms per
//!    chunk, so a 250 ms tick keeps the UI responsive], with the bytes per row printed.
//!
//! Pages are built from JSON shaped like real scan `/v2/updates` items (transfers with archives
//! and creates, liveness activity records, featured-app markers, assignments), decoded with the
//! api types; 1,000 pages of distinct updates are made by rewriting the update id and record
//! time of each decoded item. Run outside `cargo bench` (no `--bench` argument, e.g. under
//! `cargo test --benches`) the sizes shrink to 20,000 so the check stays quick.

use std::alloc::System;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use cantonscope::api::scan::{UpdateItem, UpdatesPage};
use cantonscope::model::export::{CHUNK_ROWS, ExportFormat, ExportJob, ExportSnapshot};
use cantonscope::model::history::{FilteredView, History, Placement};
use cantonscope::model::summary::{UpdateSummary, format_time_micros, parse_time_micros};
use cantonscope::msg::Command;
use cantonscope::panes::history::HistoryPane;
use cantonscope::panes::{AppContext, Out, Pane, RenderCtx, Shared};
use cantonscope::ui::theme::Theme;
use criterion::{BatchSize, Criterion, Throughput};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Counting allocator
// ---------------------------------------------------------------------------------------------

// The `cap` crate's allocator wraps the system allocator and counts live bytes, so the bench
// needs no unsafe code of its own (the crate denies it; one module of the library allows it).
#[global_allocator]
static GLOBAL: cap::Cap<System> = cap::Cap::new(System, usize::MAX);

fn live_bytes() -> usize {
    GLOBAL.allocated()
}

// ---------------------------------------------------------------------------------------------
// Pages
// ---------------------------------------------------------------------------------------------

const PAGE: usize = 1000;
const DSO: &str = "DSO::1220b1431ef217342db44d516bb9befde802be7d8899637d290895fa58880f19accc";
const SYNC: &str =
    "global-domain::1220b1431ef217342db44d516bb9befde802be7d8899637d290895fa58880f19accc";

fn t0() -> i64 {
    parse_time_micros("2026-11-01T00:00:00Z").unwrap_or(0)
}

fn party(i: usize) -> String {
    format!("validator-{i}::1220{:060x}", (i as u64 + 1) * 0x1357_9bdf)
}

fn cid(n: usize, k: usize) -> String {
    format!("00{:064x}ca101220{:060x}", n * 8 + k, n + k)
}

fn created(id: &str, n: usize, k: usize, template: &str, owner: &str) -> Value {
    json!({
        "event_type": "created_event",
        "event_id": format!("{id}:{k}"),
        "contract_id": cid(n, k),
        "template_id": format!("3ca1343ab26b453d38c8adb70dca5f1ead8440c42b59b68f070786955cbf9ec1:{template}"),
        "package_name": "splice-amulet",
        "create_arguments": {
            "dso": DSO, "owner": owner,
            "amount": {"initialAmount": "1234.5678900000", "createdAt": {"number": "12345"},
                       "ratePerRound": {"rate": "0.0000190259"}}
        },
        "created_at": "2026-11-01T00:00:00.000000Z",
        "signatories": [DSO, owner],
        "observers": []
    })
}

/// An exercised event: `what` is (template, choice), `consuming` whether it archives.
fn exercised(
    id: &str,
    n: usize,
    k: usize,
    what: (&str, &str),
    consuming: bool,
    actor: &str,
    children: &[usize],
) -> Value {
    let (template, choice) = what;
    json!({
        "event_type": "exercised_event",
        "event_id": format!("{id}:{k}"),
        "contract_id": cid(n, k),
        "template_id": format!("3ca1343ab26b453d38c8adb70dca5f1ead8440c42b59b68f070786955cbf9ec1:{template}"),
        "package_name": "splice-amulet",
        "choice": choice,
        "choice_argument": {"transfer": {"sender": actor, "provider": actor, "inputs": [], "outputs": []},
                            "context": {"openMiningRound": cid(n, 99)}},
        "child_event_ids": children.iter().map(|c| format!("{id}:{c}")).collect::<Vec<_>>(),
        "exercise_result": {"round": {"number": "12345"}, "summary": {"holdingFees": "0.0"}},
        "consuming": consuming,
        "acting_parties": [actor],
        "interface_id": null
    })
}

const TRANSFER: (&str, &str) = ("Splice.AmuletRules:AmuletRules", "AmuletRules_Transfer");
const ARCHIVE: (&str, &str) = ("Splice.Amulet:Amulet", "Archive");
const LIVENESS: (&str, &str) = (
    "Splice.ValidatorLicense:ValidatorLicense",
    "ValidatorLicense_RecordValidatorLivenessActivity",
);

/// One realistic item: transfers (5 events), liveness records (2), app markers (1), assigns.
fn item(n: usize) -> Value {
    let id = format!("1220{n:064x}");
    let time = format_time_micros(t0() + n as i64 * 250_000);
    let actor = party(n % 50);
    let other = party((n * 7 + 3) % 50);
    let events: Vec<Value> = match n % 10 {
        0..=3 => vec![
            exercised(&id, n, 0, TRANSFER, false, &actor, &[1, 2, 3, 4]),
            exercised(&id, n, 1, ARCHIVE, true, &actor, &[]),
            exercised(&id, n, 2, ARCHIVE, true, &actor, &[]),
            created(&id, n, 3, "Splice.Amulet:Amulet", &other),
            created(&id, n, 4, "Splice.Amulet:Amulet", &actor),
        ],
        4..=6 => vec![
            exercised(&id, n, 0, LIVENESS, false, &actor, &[1]),
            created(
                &id,
                n,
                1,
                "Splice.ValidatorLicense:ValidatorLivenessActivityRecord",
                &actor,
            ),
        ],
        7 | 8 => vec![created(
            &id,
            n,
            0,
            "Splice.Amulet:FeaturedAppActivityMarker",
            &actor,
        )],
        _ => {
            return json!({
                "update_id": id, "offset": format!("{n:018}"), "record_time": time,
                "event": {
                    "submitter": actor, "source_synchronizer": SYNC,
                    "target_synchronizer": "other-domain::1220aa", "migration_id": 4,
                    "unassign_id": format!("unassign-{n}"),
                    "created_event": created(&id, n, 0, "Splice.Amulet:Amulet", &actor),
                    "reassignment_counter": 1
                }
            });
        }
    };
    let events_by_id: serde_json::Map<String, Value> = events
        .into_iter()
        .enumerate()
        .map(|(k, e)| (format!("{id}:{k}"), e))
        .collect();
    json!({
        "update_id": id, "migration_id": 4, "workflow_id": "", "record_time": time,
        "synchronizer_id": SYNC, "effective_at": time,
        "root_event_ids": [format!("{id}:0")], "events_by_id": Value::Object(events_by_id)
    })
}

/// The JSON of a page of 1,000 items and the decoded page.
fn base_page() -> (Vec<u8>, UpdatesPage) {
    let items: Vec<Value> = (0..PAGE).map(item).collect();
    let bytes = serde_json::to_vec(&json!({ "transactions": items })).unwrap_or_default();
    let page: UpdatesPage = serde_json::from_slice(&bytes).unwrap_or_default();
    assert_eq!(page.transactions.len(), PAGE, "the page decodes");
    assert_eq!(page.malformed_count(), 0, "no malformed items");
    (bytes, page)
}

/// Rewrites the page in place into page `p` of distinct updates (ids and times).
fn make_page(page: &mut UpdatesPage, p: usize) {
    for (i, item) in page.transactions.iter_mut().enumerate() {
        let n = p * PAGE + i;
        let t = format_time_micros(t0() + n as i64 * 250_000);
        let (id, time) = match item {
            UpdateItem::Transaction(tx) => (&mut tx.update_id, &mut tx.record_time),
            UpdateItem::Reassignment(r) => (&mut r.update_id, &mut r.record_time),
            UpdateItem::Malformed { .. } => continue,
        };
        id.clear();
        let _ = write!(id, "1220{n:064x}");
        *time = t;
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Memory per summary (and the history the render bench draws)
// ---------------------------------------------------------------------------------------------

fn build_history(page: &mut UpdatesPage, n: usize) -> (History, f64) {
    let before = live_bytes();
    let mut history = History::default();
    for p in 0..n / PAGE {
        make_page(page, p);
        history.add_page(&page.transactions, Placement::Append);
    }
    let used = live_bytes().saturating_sub(before);
    assert_eq!(history.len(), n);
    (history, used as f64 / n as f64)
}

fn memory_report(history: &History, per_summary: f64) {
    let heap: usize = history.iter().map(UpdateSummary::heap_bytes).sum();
    let n = history.len();
    eprintln!(
        "history memory: {} summaries, {:.0} bytes/summary live (target ≤ 512): \
         struct {} B + own heap payload {:.0} B + allocator/deque/interner overhead; \
         interner {} strings",
        n,
        per_summary,
        std::mem::size_of::<UpdateSummary>(),
        heap as f64 / n as f64,
        history.summarizer.interner.len(),
    );
}

// ---------------------------------------------------------------------------------------------
// 1. Render
// ---------------------------------------------------------------------------------------------

fn bench_render(c: &mut Criterion, history: History) {
    let n = history.len();
    let mut sh = Shared::new(AppContext::default(), t0() + n as i64 * 250_000);
    sh.history = history;
    let mut pane = HistoryPane::new(&sh);
    let area = Rect::new(0, 0, 200, 60);
    pane.set_area(area);
    let mut out = Out::default();
    pane.on_command(Command::FollowTail, &mut sh, &mut out);
    let theme = Theme::default();
    let mut buf = Buffer::empty(area);

    let mut group = c.benchmark_group(format!("history_render_{n}_200x60"));
    group.bench_function("following the head", |b| {
        b.iter(|| {
            buf.reset();
            pane.render(area, &mut buf, RenderCtx::new(&sh, &theme, true));
            black_box(&buf);
        });
    });
    // The middle of the history (paused), then with a filter active.
    pane.goto_time(t0() + (n as i64 / 2) * 250_000, &mut sh, &mut out);
    group.bench_function("paused in the middle", |b| {
        b.iter(|| {
            buf.reset();
            pane.render(area, &mut buf, RenderCtx::new(&sh, &theme, true));
            black_box(&buf);
        });
    });
    pane.set_filter("choice:Liveness", &sh, &mut out);
    group.bench_function("filtered (choice:Liveness)", |b| {
        b.iter(|| {
            buf.reset();
            pane.render(area, &mut buf, RenderCtx::new(&sh, &theme, true));
            black_box(&buf);
        });
    });
    group.finish();
    let rows = pane.row_count(&sh);
    eprintln!("render: {n} loaded, {rows} rows shown with the filter");
}

// ---------------------------------------------------------------------------------------------
// 2. Ingest
// ---------------------------------------------------------------------------------------------

fn bench_ingest(c: &mut Criterion, bytes: &[u8], page: &mut UpdatesPage) {
    // A history that has seen one page (its strings are interned), then the next page.
    make_page(page, 0);
    let mut warm = History::default();
    warm.add_page(&page.transactions, Placement::Append);
    make_page(page, 1);
    let next = page.transactions.clone();

    let mut group = c.benchmark_group("history_ingest_page_1000");
    group.throughput(Throughput::Elements(PAGE as u64));
    group.bench_function("add_page (warm interner)", |b| {
        b.iter_batched(
            || warm.clone(),
            |mut h| {
                let added = h.add_page(black_box(&next), Placement::Append);
                assert_eq!(added, PAGE);
                h
            },
            BatchSize::SmallInput,
        );
    });
    group.bench_function("add_page (empty history)", |b| {
        b.iter_batched(
            History::default,
            |mut h| {
                h.add_page(black_box(&next), Placement::Append);
                h
            },
            BatchSize::SmallInput,
        );
    });
    group.bench_function("decode JSON + add_page", |b| {
        b.iter_batched(
            History::default,
            |mut h| {
                let page: UpdatesPage =
                    serde_json::from_slice(black_box(bytes)).unwrap_or_default();
                h.add_page(&page.transactions, Placement::Append);
                h
            },
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

// ---------------------------------------------------------------------------------------------
// 4. Export
// ---------------------------------------------------------------------------------------------

fn bench_export(c: &mut Criterion, history: &History) {
    let rows = history.len().min(CHUNK_ROWS);
    let view = FilteredView::default();
    let job = |format| {
        ExportJob::new(
            ExportSnapshot::new(history, &view),
            std::path::PathBuf::from("bench-export"),
            format,
        )
    };
    let mut group = c.benchmark_group(format!("history_export_chunk_{rows}"));
    group.throughput(Throughput::Elements(rows as u64));
    for format in [ExportFormat::JsonLines, ExportFormat::Csv] {
        let mut probe = job(format);
        let _ = probe.step(history, rows);
        eprintln!(
            "export {}: {:.0} bytes/row, {:.0} MB of file for all {} loaded rows (streamed chunk by chunk)",
            format.label(),
            probe.bytes() as f64 / rows as f64,
            probe.bytes() as f64 / rows as f64 * history.len() as f64 / 1e6,
            history.len()
        );
        group.bench_function(format.label(), |b| {
            b.iter_batched(
                || job(format),
                |mut j| {
                    let _ = black_box(j.step(black_box(history), rows));
                    j
                },
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let n = if full { 1_000_000 } else { 20_000 };
    let mut c = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();

    let (bytes, mut page) = base_page();
    eprintln!("page: {} bytes of JSON for {PAGE} items", bytes.len());
    let (history, per_summary) = build_history(&mut page, n);
    memory_report(&history, per_summary);
    bench_ingest(&mut c, &bytes, &mut page);
    bench_export(&mut c, &history);
    bench_render(&mut c, history);
    c.final_summary();
}
