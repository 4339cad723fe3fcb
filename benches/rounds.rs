//! `index rounds` over an index of 1,000,000 updates with their events (issue 37 §2: ≤ 1 s):
//! the per-round summary read (every round, its providers, the heaviest first), and what
//! keeping the summary costs a sync: the page sums added before each page of events is
//! written, per update.
//!
//! The index is an SQLite file of `N` updates (minimal rows, written straight with SQL, each
//! update id kept as the bytes its hex spells, as the index keeps it since schema 13, its
//! first bytes varied as a hash's are: [`update_id`]; the
//! updates' own bench is `benches/index.rs`), then their events written page by page (1,000)
//! as the events walk writes them, each update with a verdict of its round (40 updates a
//! round, as the demo's: 25,000 rounds), a traffic summary and, for one in three, an app
//! activity record of one of 60 providers. `INDEX_ROUNDS_N` sets `N` (default 1,000,000;
//! 20,000 outside `cargo bench`).

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use cantonscope::store::{self, EventsRow, Location};
use criterion::Criterion;

const PAGE: usize = 1_000;
const PER_ROUND: usize = 40;
const PROVIDERS: usize = 60;

fn updates(path: &Path, n: usize) {
    drop(store::open_writer(&Location::Sqlite(path.to_owned())).expect("index"));
    let mut conn = rusqlite::Connection::open(path).expect("opens");
    let tx = conn.transaction().expect("tx");
    {
        let mut insert = tx
            .prepare(
                // The index keeps a record time counted from 2027-01-01 (schema 18).
                "INSERT INTO updates (seq, update_id, migration_id, record_time, action, party_set, digest, chunk)
                 VALUES (?1, unhex(?2), 1, ?3 - 1798761600000000, 1, 1, x'00', 1)",
            )
            .expect("statement");
        for i in 0..n {
            let seq = i64::try_from(i).expect("fits");
            insert
                .execute(rusqlite::params![
                    seq + 1,
                    update_id(i),
                    1_700_000_000_000_000 + seq * 15_000_000
                ])
                .expect("insert");
        }
    }
    tx.commit().expect("commit");
}

/// Update `i`'s id: 32 bytes of hex, as a scan's, its first bytes after the `1220` spread as
/// a hash's are (the index finds an id by its first 6 bytes and its last 2: ids that all
/// began `1220000000000` made each look-up read every id of the same last 2 bytes, about 15
/// at 1 M, which no network's ids do), the rest `i` itself (each id distinct).
fn update_id(i: usize) -> String {
    // splitmix64's finaliser: a bijection of 64 bits.
    let mut z = u64::try_from(i)
        .expect("fits")
        .wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    format!("1220{z:016x}{i:044x}")
}

fn events_row(i: usize) -> EventsRow {
    let round = i64::try_from(i / PER_ROUND).expect("fits");
    let cost = 2_000 + i64::try_from(i % 977).expect("fits");
    let records = if i.is_multiple_of(3) {
        format!(
            r#"{{"round_number":{round},"records":[{{"party":"provider-{}::1220abcd","weight":{cost}}}]}}"#,
            (i * 7) % PROVIDERS
        )
    } else {
        format!(r#"{{"round_number":{round},"records":[]}}"#)
    };
    EventsRow {
        update_id: update_id(i),
        served: 7,
        verdict: Some(format!(
            r#"{{"round_number":{round},"verdict_result":"VERDICT_RESULT_ACCEPTED","mediator_group":0}}"#
        )),
        traffic_summary: Some(format!(
            r#"{{"total_traffic_cost":{cost},"envelope_traffic_summaries":[]}}"#
        )),
        app_activity_records: Some(records),
        round_number: Some(round),
        verdict_result: Some("accepted".to_owned()),
        mediator_group: Some(0),
        digest: vec![0; 32],
        scans: "a,b".to_owned(),
    }
}

fn rounds_benches(c: &mut Criterion) {
    let full = std::env::args().any(|a| a == "--bench");
    let n: usize = std::env::var("INDEX_ROUNDS_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if full { 1_000_000 } else { 20_000 });
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("rounds.sqlite");
    let started = Instant::now();
    updates(&path, n);
    eprintln!(
        "rounds bench: {n} updates written in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let mut index = store::open_writer(&Location::Sqlite(path.clone())).expect("index");
    let (mut summing, mut writing) = (0.0, 0.0);
    for start in (0..n).step_by(PAGE) {
        let rows: Vec<EventsRow> = (start..(start + PAGE).min(n)).map(events_row).collect();
        let t = Instant::now();
        index.add_rounds(&rows).expect("sums");
        summing += t.elapsed().as_secs_f64();
        let t = Instant::now();
        index.write_events(&rows).expect("events");
        writing += t.elapsed().as_secs_f64();
    }
    eprintln!(
        "rounds bench: the page sums cost {:.2} µs per update, the events' write {:.2} µs per update ({:.0} % more)",
        summing * 1e6 / n as f64,
        writing * 1e6 / n as f64,
        100.0 * summing / writing
    );
    drop(index);
    let mut reader = store::open_reader(&Location::Sqlite(path)).expect("reader");
    let all = reader.rounds(None, None, None).expect("rounds");
    eprintln!(
        "rounds bench: {} rounds, {} records",
        all.len(),
        all.iter().map(|r| r.sums.records).sum::<i64>()
    );
    assert_eq!(all.len(), n.div_ceil(PER_ROUND));
    let mut group = c.benchmark_group("index_rounds");
    group.sample_size(10);
    group.bench_function(format!("every_round_of_{n}_updates"), |b| {
        b.iter(|| black_box(reader.rounds(None, None, None).expect("rounds")));
    });
    group.bench_function(format!("one_provider_of_{n}_updates"), |b| {
        b.iter(|| {
            black_box(
                reader
                    .rounds(None, None, Some("provider-7::1220abcd"))
                    .expect("rounds"),
            )
        });
    });
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    rounds_benches(&mut c);
    c.final_summary();
}
