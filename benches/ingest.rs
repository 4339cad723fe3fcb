//! Ingest benchmark: decoding a `POST /v2/updates` page of 1,000 demo updates into the typed
//! model (`UpdatesPage`, raw payloads, per-item decode) next to a plain
//! `serde_json::from_slice::<serde_json::Value>` of the same bytes. The page comes from a demo
//! server started here, fetched through the real client. The allocator is the binary's
//! (mimalloc, `src/main.rs`): a page's decode is mostly small allocations and its drop their
//! frees, so the figures are the binary's own only with its allocator.

use cantonscope::api::json::RawJson;
use cantonscope::api::scan::{self, UpdateItem, UpdatesPage, UpdatesRequest};
use cantonscope::api::{ApiClient, ApiConfig};
use cantonscope::demo::{self, DemoConfig};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

/// The binary's allocator (src/main.rs), so the figures are the binary's own.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn demo_page() -> Vec<u8> {
    let rt = tokio::runtime::Runtime::new().expect("tokio runtime");
    rt.block_on(async {
        let handle = demo::start(DemoConfig::default())
            .await
            .expect("demo server starts");
        let client = ApiClient::new(ApiConfig {
            scan_url: Some(handle.scan_url.clone()),
            ..ApiConfig::default()
        })
        .expect("client");
        let resp = client
            .send_raw(&scan::updates(&UpdatesRequest::from_begin(1000)))
            .await
            .expect("a page of updates");
        handle.shutdown().await;
        resp.body
    })
}

fn ingest(c: &mut Criterion) {
    let bytes = demo_page();
    let page: UpdatesPage = serde_json::from_slice(&bytes).expect("page decodes");
    assert_eq!(page.transactions.len(), 1000, "a full page");
    assert_eq!(page.malformed_count(), 0);
    let txs = page
        .transactions
        .iter()
        .filter(|i| matches!(i, UpdateItem::Transaction(_)))
        .count();
    let events: usize = page
        .transactions
        .iter()
        .filter_map(UpdateItem::as_transaction)
        .map(|t| t.events_by_id.len())
        .sum();
    eprintln!(
        "page: {} bytes, {} items ({txs} transactions, {events} events)",
        bytes.len(),
        page.transactions.len()
    );

    let call = scan::updates(&UpdatesRequest::from_begin(1000));
    let mut group = c.benchmark_group("updates_page_1000");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("typed UpdatesPage (serde_json::from_slice)", |b| {
        b.iter(|| serde_json::from_slice::<UpdatesPage>(black_box(&bytes)).expect("decodes"));
    });
    group.bench_function("typed via client decoder (with JSON paths)", |b| {
        b.iter(|| {
            call.decode_response(200, &[], black_box(&bytes))
                .expect("decodes")
        });
    });
    group.bench_function("serde_json::Value", |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(&bytes)).expect("parses"));
    });
    // Where the typed decode's time goes: the JSON syntax alone, the page split into its items'
    // texts (the first of `UpdatesPage`'s own two passes; the client's decoder reads the page
    // in one), and the split followed by each item's own decode (what an index sync runs, there
    // on every core).
    group.bench_function("syntax only (serde::de::IgnoredAny)", |b| {
        b.iter(|| {
            serde_json::from_slice::<serde::de::IgnoredAny>(black_box(&bytes)).expect("parses")
        });
    });
    group.bench_function("split into item texts (page_item_texts)", |b| {
        b.iter(|| scan::page_item_texts(black_box(&bytes)).expect("a page"));
    });
    group.bench_function("split, then each item (UpdateItem::from_raw)", |b| {
        b.iter(|| {
            scan::page_item_texts(black_box(&bytes))
                .expect("a page")
                .into_iter()
                .enumerate()
                .map(|(i, text)| {
                    UpdateItem::from_raw(
                        RawJson::new(text.to_owned()),
                        &format!("transactions[{i}]"),
                    )
                })
                .collect::<Vec<_>>()
        });
    });
    group.finish();
}

criterion_group!(benches, ingest);
criterion_main!(benches);
