//! Sweep benchmark. (1) Comparing must be cheap: the canonical digest of a 1,000-update
//! `POST /v2/updates` page (one hash per item, what the sweep compares) next to decoding the same
//! page into the typed model and into `serde_json::Value`; and one sweep step's comparison (4
//! pages digested and compared position by position). (2) Pages compared per second across 4
//! demo scans over real HTTP (local demo server, no faults, budget 1,000 requests/s per scan).

use std::time::Duration;

use cantonscope::api::scan::{self, UpdatesPage, UpdatesRequest};
use cantonscope::api::{ApiClient, ApiConfig};
use cantonscope::demo::{self, DemoConfig, DemoHandle};
use cantonscope::every_scan::{Cancel, Network, ScanBudget, sweep};
use cantonscope::model::consensus::LocalFields;
use cantonscope::model::consensus::digest::Digester;
use cantonscope::model::network::{ScanEntry, select_scans};
use cantonscope::model::sweep::{PageAnswer, Sweep, SweepPlan};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn demo_4(rt: &tokio::runtime::Runtime) -> DemoHandle {
    rt.block_on(demo::start(
        DemoConfig {
            stagger: false,
            ..DemoConfig::default()
        }
        .with_total_scans(4),
    ))
    .expect("demo server starts")
}

fn page_of(rt: &tokio::runtime::Runtime, handle: &DemoHandle) -> Vec<u8> {
    rt.block_on(async {
        let client = ApiClient::new(ApiConfig {
            scan_url: Some(handle.scan_url.clone()),
            ..ApiConfig::default()
        })
        .expect("client");
        client
            .send_raw(&scan::updates(&UpdatesRequest::from_begin(1000)))
            .await
            .expect("a page of updates")
            .body
    })
}

fn compare_vs_decode(c: &mut Criterion, bytes: &[u8]) {
    let page: UpdatesPage = serde_json::from_slice(bytes).expect("page decodes");
    assert_eq!(page.transactions.len(), 1000, "a full page");
    let digester = Digester::with_key(42);
    let call = scan::updates(&UpdatesRequest::from_begin(1000));
    let mut group = c.benchmark_group("sweep_page_1000");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("compare: canonical digest (1 hash per item)", |b| {
        b.iter(|| {
            digester
                .page(black_box(bytes), LocalFields::UPDATE)
                .expect("digest")
        });
    });
    group.bench_function("decode: typed UpdatesPage (client decoder)", |b| {
        b.iter(|| {
            call.decode_response(200, &[], black_box(bytes))
                .expect("decodes")
        });
    });
    group.bench_function("decode: serde_json::Value", |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(bytes)).expect("decodes"));
    });
    group.finish();

    // One sweep step: 4 scans' pages digested and compared.
    let mut step = c.benchmark_group("sweep_step_4_scans");
    step.throughput(Throughput::Elements(4 * 1000));
    step.bench_function("digest 4 pages + compare", |b| {
        b.iter(|| {
            let answers: Vec<PageAnswer> = (0..4)
                .map(|_| PageAnswer::Page {
                    digest: digester.page(bytes, LocalFields::UPDATE).expect("digest"),
                    body: Vec::new(),
                })
                .collect();
            let mut sweep = Sweep::new(SweepPlan::new(None, 1000), vec![true; 4]);
            sweep.on_page(black_box(&answers));
            sweep.counts()
        });
    });
    step.bench_function("decode 4 pages (typed)", |b| {
        b.iter(|| {
            for _ in 0..4 {
                black_box(call.decode_response(200, &[], bytes).expect("decodes"));
            }
        });
    });
    step.finish();
}

fn pages_per_second(c: &mut Criterion, rt: &tokio::runtime::Runtime, handle: &DemoHandle) {
    let client = ApiClient::new(ApiConfig::default()).expect("client");
    let (entries, _) = select_scans(
        None,
        &cantonscope::model::network::ScanSelection::All,
        &handle.scan_urls[1..],
        Some(&handle.scan_url),
    );
    let entries: Vec<ScanEntry> = entries
        .into_iter()
        .map(|e| ScanEntry { counted: true, ..e })
        .collect();
    let net = Network::new(
        &client,
        entries,
        ScanBudget {
            rate: 1000.0,
            timeout: Duration::from_secs(30),
            ..ScanBudget::default()
        },
    );
    const PAGES: u64 = 4;
    let mut group = c.benchmark_group("sweep_http_4_scans");
    group.sample_size(10);
    group.throughput(Throughput::Elements(PAGES));
    group.bench_function("pages of 1000 compared (elements = pages)", |b| {
        b.iter(|| {
            rt.block_on(async {
                let mut state = Sweep::new(
                    SweepPlan {
                        max_pages: Some(PAGES),
                        ..SweepPlan::new(None, 1000)
                    },
                    net.counted(),
                );
                sweep::run(&net, &mut state, &Cancel::new(), || 0, |_| {}).await;
                assert_eq!(state.counts().0, PAGES);
            });
        });
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("tokio runtime");
    let handle = demo_4(&rt);
    let bytes = page_of(&rt, &handle);
    eprintln!("page: {} bytes", bytes.len());
    compare_vs_decode(c, &bytes);
    pages_per_second(c, &rt, &handle);
    rt.block_on(handle.shutdown());
}

criterion_group!(sweep_benches, benches);
criterion_main!(sweep_benches);
