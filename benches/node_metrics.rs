//! My node: what one scrape of a 10k-line exposition costs. The exposition has the shape of a
//! real participant's or SV app's: histograms (`_bucket{le=…}`, `_sum`, `_count`), counters and
//! gauges with several labels, some with escapes, `NaN` and `+Inf`, `# HELP`/`# TYPE`
//! comments, and the rules' own metrics among them.
//!
//! `cargo bench --bench node_metrics` prints the body's size and the bytes the parsed samples
//! hold, then times reading it (`parse`) and judging it by every rule (`evaluate`, with the
//! previous scrape's samples).

use std::alloc::System;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use cantonscope::model::metrics::{AlertRules, Scrape, evaluate, parse};
use criterion::{Criterion, Throughput};

#[global_allocator]
static GLOBAL: cap::Cap<System> = cap::Cap::new(System, usize::MAX);

const NOW: i64 = 1_800_000_000_000_000;

/// About `lines` lines of exposition.
fn exposition(lines: usize) -> String {
    let mut out = String::new();
    let mut n = 0;
    let mut family = 0;
    while n < lines {
        family += 1;
        match family % 4 {
            0 => {
                let name = format!("daml_participant_api_request_duration_seconds_{family}");
                let _ = writeln!(
                    out,
                    "# HELP {name} Request durations.\n# TYPE {name} histogram"
                );
                for method in ["submit", "read", "prune"] {
                    for le in ["0.005", "0.05", "0.5", "5", "+Inf"] {
                        let _ = writeln!(
                            out,
                            "{name}_bucket{{method=\"{method}\",le=\"{le}\"}} {}",
                            family * 7
                        );
                        n += 1;
                    }
                    let _ = writeln!(
                        out,
                        "{name}_sum{{method=\"{method}\"}} 12.5\n{name}_count{{method=\"{method}\"}} {family}"
                    );
                    n += 2;
                }
                n += 2;
            }
            1 => {
                let _ = writeln!(out, "# TYPE splice_trigger_completed_total counter");
                for outcome in ["success", "failure"] {
                    let _ = writeln!(
                        out,
                        "splice_trigger_completed_total{{trigger=\"T{family}\",party=\"DSO::1220ab\\\"q\\\"\",outcome=\"{outcome}\"}} {family}"
                    );
                    n += 1;
                }
                n += 1;
            }
            2 => {
                let _ = writeln!(
                    out,
                    "daml_sequencer_client_handler_last_sequencing_time_micros{{node=\"n{family}\"}} {}",
                    NOW - 1_000_000
                );
                let _ = writeln!(out, "splice_cache_ratio{{cache=\"c{family}\"}} NaN");
                n += 2;
            }
            _ => {
                let _ = writeln!(
                    out,
                    "splice_store_last_ingested_record_time_ms{{store=\"s{family}\",path=\"C:\\\\x\\ny\"}} {} {}",
                    NOW / 1000,
                    NOW / 1000
                );
                n += 1;
            }
        }
    }
    out
}

fn main() {
    let text = exposition(10_000);
    let lines = text.lines().count();
    let before = GLOBAL.allocated();
    let parsed = parse::parse(&text);
    let held = GLOBAL.allocated().saturating_sub(before);
    eprintln!(
        "exposition: {lines} lines, {} bytes; parsed: {} samples ({} skipped) holding {} bytes",
        text.len(),
        parsed.samples.len(),
        parsed.skipped,
        held
    );
    let scrape = Scrape {
        endpoint: "participant".into(),
        at_us: NOW,
        result: Ok(parsed.samples),
    };
    let rules = AlertRules::default();
    let (_, previous) = evaluate(
        &rules,
        std::slice::from_ref(&scrape),
        None,
        NOW - 60_000_000,
    );

    let mut c = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let mut group = c.benchmark_group("node_metrics");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse_10k_lines", |b| {
        b.iter(|| black_box(parse::parse(black_box(&text))));
    });
    group.bench_function("evaluate_10k_lines", |b| {
        b.iter(|| {
            black_box(evaluate(
                &rules,
                std::slice::from_ref(&scrape),
                Some(&previous),
                NOW,
            ))
        });
    });
    group.finish();
    c.final_summary();
}
