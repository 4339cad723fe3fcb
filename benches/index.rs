//! Local history index benchmarks: what a sync costs in CPU per update, how fast the index
//! answers searches, how fast it opens an update, and how much disk it takes.
//!
//! The large index comes from a streaming generator that writes demo updates straight through
//! the index writer (no HTTP while writing, memory bounded by one page): the demo's history
//! (fetched once from a demo server started here) is the template, and copy `k` of it has every
//! update id, event id, contract id and user party rewritten (a hash of `k` and the original),
//! its times shifted by `k` spans and its migrations numbered after the previous copy's, so
//! each copy is as consistent as the demo's own history
//! and the copies never collide. The DSO and SV parties, busy in every copy, stay: they are the
//! "in nearly every update" parties of a real network.
//!
//! The index is built once and cached under `target/index-bench/` by (updates, seed, schema
//! version, summary version); the first run builds it and says so. `INDEX_BENCH_UPDATES` sets
//! its size (default 1,000,000); the 10 M figures of `docs/src/performance.md` come from
//! `INDEX_BENCH_UPDATES=10000000 cargo bench --bench index`.
//!
//! Before the timed groups it prints the build's updates/s, the size on disk per update (rows
//! and keys from an index built without bodies, bodies as the difference), and the cold-cache
//! time of each search when the page cache can be dropped (root), else that it was skipped.
//! `INDEX_BENCH_SEARCH_ONLY=1` leaves out the figures that make other indexes (the twins without
//! bodies and with events, the copy `index stats` runs on): at 10 M the disk holds one.
//!
//! `INDEX_BENCH_PG_URL=postgres://USER:PASSWORD@HOST:PORT/postgres` (a role that may create
//! databases) runs the same searches on PostgreSQL too: the index of the same updates is built
//! once in the database `cantonscope_bench_<updates>_<seed>_s<schema>_v<summary>` and kept there.
//! With `INDEX_BENCH_PG_RESTART` (a shell command restarting that server) it measures them cold
//! too: the server restarted and the page cache dropped before each first page and each count.
//! `INDEX_BENCH_PG_ONLY=1` measures PostgreSQL alone (no SQLite index of that size built first).

use std::collections::{HashMap, HashSet};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use cantonscope::api::scan::{self, UpdateItem, UpdatesRequest};
use cantonscope::api::{ApiClient, ApiConfig};
use cantonscope::demo::{self, DemoConfig};
use cantonscope::model::format::parse_time_micros;
use cantonscope::model::index::pack::{
    Packing, body_sample, body_sample_naming_contracts, name_own_id, own_id_back, pack_body,
    pack_body_naming_contracts, train_dictionary,
};
use cantonscope::model::index::query::Query;
use cantonscope::model::index::{
    KeyKind, SUMMARY_VERSION, contract_keys, digest_of, drop_aside, items_and_digests, keys_of,
    row_with_digest, rows_of,
};
use cantonscope::model::summary::Summarizer;
use cantonscope::store::{
    self, IndexReader, IndexWriter, Location, NetworkId, PageWrite, Position,
};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;

/// The binary's allocator (src/main.rs), so the CPU figures are the sync's own.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "index_cold/mod.rs"]
mod cold;
#[path = "index_events/mod.rs"]
mod events;
#[path = "index_pg/mod.rs"]
mod pg;

const SEED: u64 = 42;
const PAGE: usize = 1000;

/// The demo's whole history as item JSON texts, in ledger order, and its events items
/// (`/v0/events`, in the stream's order).
fn template() -> (Vec<String>, Vec<String>) {
    let rt = tokio::runtime::Runtime::new().expect("tokio runtime");
    rt.block_on(async {
        let handle = demo::start(DemoConfig {
            seed: SEED,
            ..DemoConfig::default()
        })
        .await
        .expect("demo server starts");
        let client = ApiClient::new(ApiConfig {
            scan_url: Some(handle.scan_url.clone()),
            ..ApiConfig::default()
        })
        .expect("client");
        let mut items = Vec::new();
        let mut request = UpdatesRequest::from_begin(1000);
        loop {
            let resp = client
                .send_raw(&scan::updates(&request))
                .await
                .expect("a page of updates");
            let body: Value = serde_json::from_slice(&resp.body).expect("a JSON page");
            let page = body["transactions"].as_array().cloned().unwrap_or_default();
            let n = page.len();
            items.extend(page.iter().map(Value::to_string));
            match resp.typed.next_after() {
                Some(after) if n == 1000 => {
                    request = UpdatesRequest::after(
                        1000,
                        after.after_migration_id,
                        after.after_record_time,
                    );
                }
                _ => break,
            }
        }
        let events = events::fetch(&client).await;
        handle.shutdown().await;
        (items, events)
    })
}

/// Makes copy `k` of the template.
struct Copier {
    /// Update ids, contract ids and user parties of the template (rewritten per copy).
    rewrite: HashSet<String>,
    update_ids: HashSet<String>,
    /// The template's record-time span plus a second (µs): copy `k` is shifted by `k` spans.
    span: i64,
    /// The template's migrations (ids `0..migrations`): copy `k`'s migration `m` is
    /// `m + k * migrations`, so the copies follow each other in (migration, record time).
    migrations: i64,
    /// The party in the most updates (the DSO).
    dso: String,
    /// A party in the fewest updates of the template (rare in one copy).
    rare: String,
    /// A contract id of the template.
    contract: String,
    /// The body dictionary of every bench index, trained as a sync trains it: from its first
    /// page (of the first copy).
    dictionary: Vec<u8>,
    /// The same, trained on bodies that name their contracts (SQLite's, schema 15).
    named_dictionary: Vec<u8>,
}

fn mix(mut x: u64) -> u64 {
    // splitmix64
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn hash_str(s: &str, k: u64) -> u64 {
    s.bytes().fold(mix(k), |h, b| mix(h ^ u64::from(b)))
}

impl Copier {
    fn new(items: &[String]) -> Copier {
        let mut party_count: HashMap<String, usize> = HashMap::new();
        let mut rewrite = HashSet::new();
        let mut update_ids = HashSet::new();
        let mut times = Vec::new();
        let mut contract = String::new();
        let mut migrations = 1;
        for text in items {
            let item: UpdateItem = serde_json::from_str(text).expect("a demo item decodes");
            if let Some(id) = item.update_id() {
                update_ids.insert(id.to_owned());
                rewrite.insert(id.to_owned());
            }
            if let Some(m) = item.migration_id() {
                migrations = migrations.max(m + 1);
            }
            if let Some(t) = item.record_time().and_then(parse_time_micros) {
                times.push(t);
            }
            for (kind, key) in keys_of(&item) {
                match kind {
                    KeyKind::Party => *party_count.entry(key).or_default() += 1,
                    KeyKind::Contract => {
                        if contract.is_empty() {
                            contract.clone_from(&key);
                        }
                        rewrite.insert(key);
                    }
                    KeyKind::Template | KeyKind::Choice => {}
                }
            }
        }
        let busy = items.len() / 10;
        let mut parties: Vec<(String, usize)> = party_count.into_iter().collect();
        parties.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let dso = parties.first().map(|p| p.0.clone()).unwrap_or_default();
        let rare = parties.last().map(|p| p.0.clone()).unwrap_or_default();
        for (p, n) in &parties {
            if *n < busy {
                rewrite.insert(p.clone());
            }
        }
        let span = times.iter().max().unwrap_or(&0) - times.iter().min().unwrap_or(&0) + 1_000_000;
        let mut copier = Copier {
            rewrite,
            update_ids,
            span,
            migrations,
            dso,
            rare,
            contract,
            dictionary: Vec::new(),
            named_dictionary: Vec::new(),
        };
        let first: Vec<String> = items[..PAGE.min(items.len())]
            .iter()
            .map(|t| body_sample(&copier.copy(t, 0), own_id(t)))
            .collect();
        let trained = Instant::now();
        copier.dictionary =
            train_dictionary(first.iter().map(String::as_str)).expect("a dictionary");
        let named: Vec<String> = items[..PAGE.min(items.len())]
            .iter()
            .map(|t| {
                let copy = copier.copy(t, 0);
                let item: UpdateItem = serde_json::from_str(&copy).expect("an item");
                let keys = keys_of(&item);
                body_sample_naming_contracts(&copy, own_id(t), &contract_keys(&keys))
            })
            .collect();
        copier.named_dictionary =
            train_dictionary(named.iter().map(String::as_str)).expect("a dictionary");
        eprintln!(
            "index bench: the body dictionary ({} bytes) trained from {} bodies in {:.0} ms",
            copier.dictionary.len(),
            first.len(),
            trained.elapsed().as_secs_f64() * 1e3
        );
        copier
    }

    /// Rewrites the ids of the events with a verdict and no update too (as the updates' ids),
    /// so each copy's are its own.
    fn learn_events(&mut self, events: &[String]) {
        for text in events {
            let v: Value = serde_json::from_str(text).expect("a demo event");
            if v["update"].is_null()
                && let Some(id) = v["verdict"]["update_id"].as_str()
            {
                self.rewrite.insert(id.to_owned());
                self.update_ids.insert(id.to_owned());
            }
        }
    }

    /// The dictionary of an index whose bodies name their contracts (`names`) or not.
    fn dictionary(&self, names: bool) -> &[u8] {
        if names {
            &self.named_dictionary
        } else {
            &self.dictionary
        }
    }

    /// How the bench's bodies are packed: with [`Copier::dictionary`], naming their contracts
    /// for an index that does (SQLite's).
    fn packing(&self, names: bool) -> Packing {
        Packing::with_dictionary(self.dictionary(names))
            .expect("a dictionary")
            .naming_contracts(names)
    }

    /// A string of the template as copy `k` has it.
    fn map(&self, s: &str, k: u64) -> Option<String> {
        if k == 0 {
            return None;
        }
        if self.rewrite.contains(s) {
            if let Some((name, fingerprint)) = s.split_once("::") {
                return Some(format!("{name}-c{k}::{fingerprint}"));
            }
            // A hex id: its last 16 characters become a hash of the copy and the original.
            let cut = s.len().saturating_sub(16);
            return Some(format!("{}{:016x}", &s[..cut], hash_str(s, k)));
        }
        // An event id: `<update id>:<n>`.
        if let Some((update, n)) = s.rsplit_once(':')
            && self.update_ids.contains(update)
        {
            return Some(format!("{}:{n}", self.map(update, k)?));
        }
        None
    }

    fn copy_value(&self, v: &mut Value, k: u64) {
        match v {
            Value::String(s) => {
                if let Some(m) = self.map(s, k) {
                    *s = m;
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| self.copy_value(x, k)),
            Value::Object(o) => {
                // Rebuilt in the template's key order: removing and inserting each key (a
                // swap-remove with serde_json's `preserve_order`) scrambled it, so a copy's
                // bodies and verdicts were not laid out as the scans serve them (a verdict's
                // `update_id` no longer first: kept whole, and packed worse by a dictionary
                // trained on the template's order).
                for (key, mut x) in std::mem::take(o) {
                    if key == "migration_id"
                        && let Some(m) = x.as_i64()
                    {
                        x = Value::from(m + self.migrations * i64::try_from(k).unwrap_or(0));
                    } else if matches!(key.as_str(), "record_time" | "effective_at")
                        && let Some(t) = x.as_str().and_then(parse_time_micros)
                    {
                        let shifted = t + self.span * i64::try_from(k).unwrap_or(0);
                        let at = chrono::DateTime::from_timestamp_micros(shifted)
                            .unwrap_or_default()
                            .to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
                        x = Value::String(at);
                    } else {
                        self.copy_value(&mut x, k);
                    }
                    let key = self.map(&key, k).unwrap_or(key);
                    o.insert(key, x);
                }
            }
            _ => {}
        }
    }

    fn copy(&self, text: &str, k: u64) -> String {
        if k == 0 {
            return text.to_owned();
        }
        let mut v: Value = serde_json::from_str(text).expect("template JSON");
        self.copy_value(&mut v, k);
        v.to_string()
    }
}

/// Turns item texts into a page write (decode, digest, summary, keys).
fn page_of(texts: &[String], page_start: Option<Position>, packing: Option<&Packing>) -> PageWrite {
    let mut summarizer = Summarizer::default();
    let mut packer = packing.map(|p| p.packer().expect("zstd"));
    let mut rows = Vec::with_capacity(texts.len());
    let mut cursor = None;
    for text in texts {
        let item: UpdateItem = serde_json::from_str(text).expect("an item decodes");
        let digest = digest_of(text).expect("a digest");
        let names = packing.is_some_and(Packing::names_contracts);
        let row =
            row_with_digest(&item, &mut summarizer, digest, packer.as_mut(), names).expect("a row");
        cursor = Some(Position {
            migration_id: row.migration_id,
            record_time: item.record_time().unwrap_or_default().to_owned(),
        });
        rows.push(row);
    }
    PageWrite::new(
        rows,
        page_start,
        cursor.expect("a page is not empty"),
        vec!["bench".to_owned()],
    )
}

/// A page's body as a scan sends it (`{"transactions":[…]}`) of its items' texts.
fn page_body(texts: &[String]) -> String {
    format!("{{\"transactions\":[{}]}}", texts.join(","))
}

/// [`page_of`] the way `index sync` does it from a page's body as it arrived ([`page_body`]):
/// split once, its items decoded and digested on every core (`page_item_texts`,
/// `items_and_digests`), then the rows on every core (`rows_of`).
fn page_par(body: &str, page_start: Option<Position>, packing: Option<&Packing>) -> PageWrite {
    let split = scan::page_item_texts(body.as_bytes()).expect("a page");
    let (items, digests) = items_and_digests(&split).expect("decoded");
    let rows = rows_of(&items, &digests, packing).expect("rows");
    let last = items.last().expect("a page is not empty");
    let cursor = Position {
        migration_id: last.migration_id().unwrap_or_default(),
        record_time: last.record_time().unwrap_or_default().to_owned(),
    };
    let page = PageWrite::new(rows, page_start, cursor, vec!["bench".to_owned()]);
    // Freed on the pool, as the sync frees its pages.
    drop_aside(items);
    page
}

/// This process's user + system CPU seconds so far (all its threads, ended ones too), from
/// `/proc/self/stat` (Linux; clock ticks of 1/100 s).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name (which is in parentheses and may hold spaces).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    (ticks(11) + ticks(12)) / 100.0
}

/// Time spent copying an index to write onto, left out of the figures.
#[derive(Default)]
struct Copying {
    wall: Duration,
    cpu: f64,
}

/// The index a run writes onto (`INDEX_SYNC_CPU_ONTO`): a cached SQLite file, or a cached
/// PostgreSQL database (its server's URL, one that may create databases, and its name).
enum Onto {
    Sqlite(PathBuf),
    Postgres { admin_url: String, name: String },
}

/// Where a run's index is: a new file in `dir`, or a copy of `onto` (its time added to
/// `copying`): the file copied into `dir`, the database copied into `<name>_onto`.
fn run_index(dir: &Path, onto: Option<&Onto>, copying: &mut Copying) -> Location {
    let path = dir.join("i.sqlite");
    let (at, cpu) = (Instant::now(), cpu_seconds());
    let location = match onto {
        None => return Location::Sqlite(path),
        Some(Onto::Sqlite(from)) => {
            std::fs::copy(from, &path).expect("the index copied");
            // On disk before the run, so that its writeback does not take the run's I/O.
            std::fs::File::open(&path)
                .and_then(|f| f.sync_all())
                .expect("the copy synced");
            Location::Sqlite(path)
        }
        Some(Onto::Postgres { admin_url, name }) => {
            let mut admin = postgres::Client::connect(admin_url, postgres::NoTls)
                .expect("INDEX_BENCH_PG_URL answers");
            // One statement each: DROP and CREATE DATABASE refuse a transaction block.
            for statement in [
                format!("DROP DATABASE IF EXISTS {name}_onto"),
                format!("CREATE DATABASE {name}_onto TEMPLATE {name} STRATEGY FILE_COPY"),
                "CHECKPOINT".to_owned(),
            ] {
                admin
                    .batch_execute(&statement)
                    .expect("the database copied");
            }
            let mut url = reqwest::Url::parse(admin_url).expect("a URL");
            url.set_path(&format!("/{name}_onto"));
            Location::Postgres(url.to_string())
        }
    };
    copying.wall += at.elapsed();
    copying.cpu += cpu_seconds() - cpu;
    location
}

/// The pages (by number) that the frames of the WAL at `path` hold, from its `from`th frame:
/// SQLite's WAL is a 32-byte header, then frames of a 24-byte header (the page's number
/// first) and the page; a frame is valid while its salts are the header's.
fn wal_frames(path: &Path, from: usize) -> Vec<u32> {
    let wal = std::fs::read(path).unwrap_or_default();
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    if wal.len() < 32 {
        return Vec::new();
    }
    let page = be(&wal[8..12]) as usize;
    wal[32..]
        .chunks_exact(24 + page)
        .take_while(|f| f[8..16] == wal[16..24])
        .skip(from)
        .map(|f| be(&f[..4]))
        .collect()
}

/// `INDEX_SYNC_CPU_WAL=1` with `INDEX_SYNC_CPU_ONTO`: the WAL that the first page written onto
/// a copy of `onto` leaves, its distinct pages counted by table or index (SQLite's `dbstat`).
fn wal_by_table(onto: &Path, page_body: &str, copier: &Copier) {
    let dir = tempfile::tempdir().expect("temp dir");
    let location = run_index(
        dir.path(),
        Some(&Onto::Sqlite(onto.to_owned())),
        &mut Copying::default(),
    );
    let Location::Sqlite(path) = &location else {
        return;
    };
    let wal = PathBuf::from(format!("{}-wal", path.display()));
    let (mut index, chunk) = new_index_at(&location, copier);
    let before = wal_frames(&wal, 0).len();
    let page = page_par(
        page_body,
        None,
        Some(&copier.packing(index.names_contracts())),
    );
    index.write_page(chunk, &page).expect("written");
    // Read while the writer is open: closing it copies the WAL into the file.
    let frames = wal_frames(&wal, before);
    let distinct: HashSet<u32> = frames.iter().copied().collect();
    let conn = rusqlite::Connection::open(path).expect("a reader");
    let mut stat = conn
        .prepare("SELECT name, pageno FROM dbstat")
        .expect("dbstat");
    let mut by_table: HashMap<String, usize> = HashMap::new();
    let rows = stat
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, u32>(1)?)))
        .expect("dbstat rows");
    for (name, page) in rows.map(|r| r.expect("a dbstat row")) {
        if distinct.contains(&page) {
            *by_table.entry(name).or_default() += 1;
        }
    }
    let mut by_table: Vec<_> = by_table.into_iter().collect();
    by_table.sort_by_key(|t| std::cmp::Reverse(t.1));
    eprintln!(
        "the WAL of the first page ({} updates) onto it: {} frames, {} distinct pages: {by_table:?}",
        page.rows().len(),
        frames.len(),
        distinct.len()
    );
    drop(index);
}

/// `INDEX_SYNC_CPU_RUNS=N cargo bench --bench index`: the sync's way (as in the
/// `index_sync_cpu` group) `N` times, then the CPU time it took per update — the figure that
/// stays meaningful on a machine busy with other work, where wall-clock rates do not.
fn sync_cpu_per_update(
    pages: &[Vec<String>],
    page_bodies: &[String],
    copier: &Copier,
    updates: usize,
    runs: usize,
    onto: Option<&Onto>,
) {
    let packing = copier.packing(!matches!(onto, Some(Onto::Postgres { .. })));
    let cpu = cpu_seconds();
    let wall = Instant::now();
    // The one writer's time in `write_page`, and waiting for the next page.
    let mut writing = Duration::ZERO;
    let mut waiting = Duration::ZERO;
    // From a run's first page made to its last committed: the rate a long sync keeps, without
    // creating the index and closing it (the WAL's last 64 MiB copied into the file and
    // synced), which a sync does once.
    let mut streaming = Duration::ZERO;
    // Copying the index of `INDEX_SYNC_CPU_ONTO` (not the sync's): its wall and CPU time.
    let mut copying = Copying::default();
    for _ in 0..runs {
        let dir = tempfile::tempdir().expect("temp dir");
        let location = run_index(dir.path(), onto, &mut copying);
        let (mut index, chunk) = new_index_at(&location, copier);
        let (tx, rx) = mpsc::sync_channel::<PageWrite>(2);
        let started = Instant::now();
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut start = None;
                for body in page_bodies {
                    let page = page_par(body, start.take(), Some(&packing));
                    start = Some(page.cursor.clone());
                    if tx.send(page).is_err() {
                        break;
                    }
                }
                drop(tx);
            });
            let mut at = Instant::now();
            for page in rx {
                waiting += at.elapsed();
                at = Instant::now();
                index.write_page(chunk, &page).expect("written");
                drop_aside(page);
                writing += at.elapsed();
                at = Instant::now();
            }
        });
        streaming += started.elapsed();
    }
    let cpu = cpu_seconds() - cpu - copying.cpu;
    let wall = wall.elapsed().saturating_sub(copying.wall).as_secs_f64();
    let n = (updates * runs) as f64;
    eprintln!(
        "index sync CPU: {n} updates in {cpu:.2} CPU s ({:.1} µs/update, {:.0} updates per CPU-second); wall {wall:.2} s ({:.0} updates/s; {:.0} from each run's first page to its last, the index not created nor closed); the writer wrote {:.2} s and waited for pages {:.2} s",
        cpu * 1e6 / n,
        n / cpu,
        n / wall,
        n / streaming.as_secs_f64(),
        writing.as_secs_f64(),
        waiting.as_secs_f64(),
    );
    if std::env::var_os("INDEX_SYNC_CPU_ONLY").is_some() {
        return;
    }
    // The writer alone, the pages made before: its CPU per update and its ceiling.
    let made: Vec<PageWrite> = {
        let mut start = None;
        page_bodies
            .iter()
            .map(|body| {
                let page = page_par(body, start.take(), Some(&packing));
                start = Some(page.cursor.clone());
                page
            })
            .collect()
    };
    let cpu = cpu_seconds();
    let wall = Instant::now();
    let mut copying = Copying::default();
    for _ in 0..runs {
        let dir = tempfile::tempdir().expect("temp dir");
        let location = run_index(dir.path(), onto, &mut copying);
        let (mut index, chunk) = new_index_at(&location, copier);
        for page in &made {
            index.write_page(chunk, page).expect("written");
        }
    }
    let cpu = cpu_seconds() - cpu - copying.cpu;
    eprintln!(
        "  the writer alone: {:.1} µs CPU/update, at most {:.0} updates/s",
        cpu * 1e6 / n,
        n / wall.elapsed().saturating_sub(copying.wall).as_secs_f64()
    );
    // Parts of it, one thread each, CPU µs per update.
    let texts: Vec<&String> = pages.iter().flatten().collect();
    if let Some(path) = std::env::var_os("INDEX_SYNC_CPU_DUMP") {
        let lines: Vec<&str> = texts.iter().map(|t| t.as_str()).collect();
        std::fs::write(path, lines.join("\n")).expect("dump written");
    }
    for t in &texts {
        let mut v: Value = serde_json::from_str(t).expect("json");
        assert_eq!(
            digest_of(t).expect("digest"),
            cantonscope::model::index::digest_value(&mut v),
            "the digest of the text is the one of the value"
        );
    }
    let part = |name: &str, f: &dyn Fn(&str) -> usize| {
        let cpu = cpu_seconds();
        let mut sink = 0usize;
        for _ in 0..runs {
            for t in &texts {
                sink = sink.wrapping_add(f(t));
            }
        }
        let cpu = cpu_seconds() - cpu;
        eprintln!(
            "  {name}: {:.1} µs/update ({sink})",
            cpu * 1e6 / (texts.len() * runs) as f64
        );
    };
    part("decode (UpdateItem)", &|t| {
        usize::from(serde_json::from_str::<UpdateItem>(t).is_ok())
    });
    part("digest_of", &|t| {
        usize::from(digest_of(t).map_or(0, |d| d[0]))
    });
    part("digest via Value (the old way)", &|t| {
        let mut v: Value = serde_json::from_str(t).expect("json");
        usize::from(cantonscope::model::index::digest_value(&mut v)[0])
    });
    part("compact_json", &|t| {
        cantonscope::model::index::compact_json(t).len()
    });
    // The bodies' level against the former one: CPU per update, and the bytes (the sum) kept.
    for level in [1, 3] {
        let zstd = std::cell::RefCell::new(zstd::bulk::Compressor::new(level).expect("zstd"));
        part(&format!("zstd level {level}, Compressor reused"), &|t| {
            zstd.borrow_mut()
                .compress(t.as_bytes())
                .map_or(0, |z| z.len())
        });
    }
    let packer = std::cell::RefCell::new(packing.packer().expect("zstd"));
    part(
        "zstd level 1 with the index's dictionary, the text as served",
        &|t| {
            packer
                .borrow_mut()
                .compress(t.as_bytes())
                .map_or(0, |z| z.len())
        },
    );
    // A body as kept since schema 14: its own id named by a byte, then packed (the sum: the
    // bytes kept, against the line above's).
    part("name_own_id", &|t| {
        name_own_id(t, own_id(t)).map_or(0, |named| named.len())
    });
    part(
        "pack_body: own id named, zstd level 1 with the dictionary (as kept)",
        &|t| pack_body(t, own_id(t), &mut packer.borrow_mut()).map_or(0, |z| z.len()),
    );
    // A body as kept since schema 15 (SQLite): its contracts named by their place among its
    // keys too (the keys made beforehand, as a sync has them).
    let contracts: HashMap<usize, Vec<String>> = texts
        .iter()
        .map(|t| {
            let item = serde_json::from_str::<UpdateItem>(t).expect("an item");
            let keys = keys_of(&item);
            let named = contract_keys(&keys)
                .into_iter()
                .map(str::to_owned)
                .collect();
            (t.as_ptr() as usize, named)
        })
        .collect();
    part(
        "pack_body_naming_contracts: own id and contracts named, zstd level 1 with the dictionary (as kept since schema 15)",
        &|t| {
            let named: Vec<&str> = contracts[&(t.as_ptr() as usize)]
                .iter()
                .map(String::as_str)
                .collect();
            pack_body_naming_contracts(t, own_id(t), &named, &mut packer.borrow_mut())
                .map_or(0, |z| z.len())
        },
    );
    // A read's part: the id put back into a named body (the text copied first, as unpacking
    // makes it anew).
    let named: Vec<(String, &str)> = texts
        .iter()
        .map(|t| (body_sample(t, own_id(t)), own_id(t)))
        .collect();
    let cpu = cpu_seconds();
    let mut sink = 0usize;
    for _ in 0..runs {
        for (text, id) in &named {
            sink = sink.wrapping_add(own_id_back(text.clone(), id).len());
        }
    }
    eprintln!(
        "  own_id_back (a read; with a copy of the text): {:.1} µs/update ({sink})",
        (cpu_seconds() - cpu) * 1e6 / (named.len() * runs) as f64
    );
    let summarizer = std::cell::RefCell::new(Summarizer::default());
    part(
        "decode, summary, History row and keys (no digest, no body)",
        &|t| {
            let item = serde_json::from_str::<UpdateItem>(t).expect("an item");
            row_with_digest(&item, &mut summarizer.borrow_mut(), [0; 32], None, false)
                .map_or(0, |r| r.keys.len())
        },
    );
    part("keys_of", &|t| {
        serde_json::from_str::<UpdateItem>(t).map_or(0, |i| keys_of(&i).len())
    });
}

/// The update id an item's text starts with (`{"update_id":"…"`; empty when it does not).
fn own_id(t: &str) -> &str {
    let start = t.find("\"update_id\":\"").map_or(t.len(), |i| i + 13);
    t[start..]
        .find('"')
        .map_or("", |end| &t[start..start + end])
}

fn new_index(path: &Path, copier: &Copier) -> (Box<dyn IndexWriter>, i64) {
    new_index_at(&Location::Sqlite(path.to_owned()), copier)
}

fn new_index_at(location: &Location, copier: &Copier) -> (Box<dyn IndexWriter>, i64) {
    let mut index = store::open_writer(location).expect("index opens");
    index
        .claim_network(&NetworkId {
            dso_party: copier.dso.clone(),
            synchronizer: String::new(),
        })
        .expect("network");
    index
        .add_body_dictionary(copier.dictionary(index.names_contracts()), 0)
        .expect("dictionary");
    let chunk = index.start_chunk(None, None, 1, 0).expect("chunk");
    (index, chunk.id)
}

/// Streams `n` updates (copies of the template) into a new index at `path`: copies are made
/// and turned into pages on a second thread, the writer commits them here. Returns updates/s.
/// With `events`, each page's events are written after it, as the events walk writes them.
fn build(
    path: &Path,
    template: &[String],
    copier: &Copier,
    n: usize,
    bodies: bool,
    events: Option<&events::EventsTemplate>,
) -> f64 {
    build_at(
        &Location::Sqlite(path.to_owned()),
        template,
        copier,
        n,
        bodies,
        events,
    )
}

fn build_at(
    location: &Location,
    template: &[String],
    copier: &Copier,
    n: usize,
    bodies: bool,
    events: Option<&events::EventsTemplate>,
) -> f64 {
    type PageEvents = (Vec<store::EventsRow>, Vec<store::VerdictEvent>);
    let started = Instant::now();
    let (mut index, chunk) = new_index_at(location, copier);
    let (tx, rx) = mpsc::sync_channel::<(PageWrite, Option<PageEvents>)>(4);
    let packing = copier.packing(index.names_contracts());
    let packing = bodies.then_some(&packing);
    std::thread::scope(|s| {
        s.spawn(move || {
            let mut made = 0usize;
            let mut k = 0u64;
            let mut start = None;
            'copies: loop {
                for (j, texts) in template.chunks(PAGE).enumerate() {
                    let take = texts.len().min(n - made);
                    let copied: Vec<String> =
                        texts[..take].iter().map(|t| copier.copy(t, k)).collect();
                    let page = page_par(&page_body(&copied), start.take(), packing);
                    let page_events = events.map(|e| e.rows(copier, j, k, j * PAGE + take));
                    start = Some(page.cursor.clone());
                    made += take;
                    if tx.send((page, page_events)).is_err() || made >= n {
                        break 'copies;
                    }
                }
                k += 1;
            }
        });
        for (page, page_events) in rx {
            index.write_page(chunk, &page).expect("page written");
            if let Some(page_events) = &page_events {
                events::write(index.as_mut(), page_events);
            }
        }
    });
    index.set_chunk_state(chunk, "done", 0).expect("done");
    // As a sync ends: the planner's statistics of the freshly filled tables (PostgreSQL).
    index.refresh_statistics().expect("statistics");
    n as f64 / started.elapsed().as_secs_f64()
}

/// `index stats --daily` on a copy of the index of `n` updates (the cached one stays as
/// built): the first run, which counts every day from the kept bodies into the per-day
/// summary, and a later one, which finds nothing written since and reads the summary.
fn stats_figures(path: &Path, n: usize) {
    let copy = path.with_extension("stats-copy.sqlite");
    std::fs::copy(path, &copy).expect("a copy of the index");
    let location = Location::Sqlite(copy.clone());
    let mut writer = store::open_writer(&location).expect("writer");
    let t = Instant::now();
    let days = store::stats::refresh(writer.as_mut()).expect("first run");
    let read = store::stats::read(writer.as_mut(), None, None, true).expect("read");
    let first = t.elapsed();
    let t = Instant::now();
    let again = store::stats::refresh(writer.as_mut()).expect("later run");
    let read_again = store::stats::read(writer.as_mut(), None, None, true).expect("read");
    let later = t.elapsed();
    assert_eq!((again, &read_again), (0, &read));
    eprintln!(
        "index bench: index stats --daily, {n} updates over {days} days ({} transfers): first run (every day counted from the bodies) {:.1} s; later runs {:.1} ms",
        read.totals.transfers,
        first.as_secs_f64(),
        later.as_secs_f64() * 1e3
    );
    drop(writer);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", copy.display()));
    }
}

fn file_size(path: &Path) -> u64 {
    let mut total = 0;
    for suffix in ["", "-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        total += std::fs::metadata(PathBuf::from(p)).map_or(0, |m| m.len());
    }
    total
}

fn cache_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"),
        PathBuf::from,
    );
    target.join("index-bench")
}

/// The cached index of `n` updates (built when missing).
fn cached(template: &[String], copier: &Copier, n: usize, bodies: bool) -> PathBuf {
    let dir = cache_dir();
    std::fs::create_dir_all(&dir).expect("cache dir");
    let name = format!(
        "{n}-seed{SEED}-schema{}-summary{SUMMARY_VERSION}{}.sqlite",
        store::SCHEMA_VERSION,
        if bodies { "" } else { "-nobodies" }
    );
    let path = dir.join(name);
    if path.exists() {
        // Brought to this build's hubs as its next sync would: opened for writing.
        let started = Instant::now();
        let notices = store::open_writer(&Location::Sqlite(path.clone()))
            .expect("the cached index opens for writing")
            .notices();
        eprintln!(
            "index bench: {} reused, opened for writing in {:.1} s {notices:?}",
            path.display(),
            started.elapsed().as_secs_f64()
        );
    } else {
        let building = path.with_extension("building");
        let _ = std::fs::remove_file(&building);
        eprintln!("index bench: building {} ({n} updates)…", path.display());
        let rate = build(&building, template, copier, n, bodies, None);
        std::fs::rename(&building, &path).expect("cache rename");
        eprintln!("index bench: built at {rate:.0} updates/s");
    }
    path
}

/// Drops the page cache (root only); whether it could.
fn drop_caches() -> bool {
    std::fs::write("/proc/sys/vm/drop_caches", "3").is_ok()
}

fn index_benches(c: &mut Criterion) {
    let (template, template_events) = template();
    let mut copier = Copier::new(&template);
    copier.learn_events(&template_events);
    let copier = copier;
    eprintln!(
        "index bench: template of {} demo updates; DSO {}; rare party {}",
        template.len(),
        copier.dso,
        copier.rare
    );

    // Sync CPU work: 20 pages of copies into a fresh index per iteration
    // (`INDEX_SYNC_CPU_COPIES` copies of them one after the other).
    let copies: u64 = std::env::var("INDEX_SYNC_CPU_COPIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let copier_ref = &copier;
    // `INDEX_SYNC_CPU_ONTO=N`: each run writes onto a copy of the cached index of N updates
    // (its copies of the history are 0..=N/len; these follow them), as a sync that extends a
    // large index does; onto the PostgreSQL one too with `INDEX_BENCH_PG_URL`.
    let onto_n = std::env::var("INDEX_SYNC_CPU_ONTO")
        .ok()
        .and_then(|v| v.parse::<usize>().ok());
    let first = onto_n.map_or(1, |n| (n / template.len()) as u64 + 1);
    let pages: Vec<Vec<String>> = (first..first + copies)
        .flat_map(|k| {
            template.chunks(PAGE).take(20).map(move |t| {
                t.iter()
                    .map(|s| copier_ref.copy(s, k))
                    .collect::<Vec<String>>()
            })
        })
        .collect();
    let updates: usize = pages.iter().map(Vec::len).sum();
    // The page bodies as they arrive from a scan (receiving them is not the sync's CPU work).
    let page_bodies: Vec<String> = pages.iter().map(|p| page_body(p)).collect();
    // The groups below write SQLite indexes.
    let packing = copier.packing(true);
    if let Some(runs) = std::env::var("INDEX_SYNC_CPU_RUNS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        let Some(n) = onto_n else {
            sync_cpu_per_update(&pages, &page_bodies, &copier, updates, runs, None);
            return;
        };
        let cached_path = cached(&template, &copier, n, true);
        eprintln!("onto the SQLite index of {n} updates:");
        if std::env::var_os("INDEX_SYNC_CPU_WAL").is_some() {
            wal_by_table(&cached_path, &page_bodies[0], &copier);
        }
        let onto = Onto::Sqlite(cached_path);
        sync_cpu_per_update(&pages, &page_bodies, &copier, updates, runs, Some(&onto));
        if let Ok(admin_url) = std::env::var("INDEX_BENCH_PG_URL") {
            pg::cached(&admin_url, &template, &copier, n);
            eprintln!(
                "onto the PostgreSQL index of {n} updates (the CPU is this process's, not the server's):"
            );
            let name = pg::name(n);
            let onto = Onto::Postgres { admin_url, name };
            sync_cpu_per_update(&pages, &page_bodies, &copier, updates, runs, Some(&onto));
            if let Onto::Postgres { admin_url, name } = &onto {
                postgres::Client::connect(admin_url, postgres::NoTls)
                    .and_then(|mut admin| {
                        admin.batch_execute(&format!("DROP DATABASE IF EXISTS {name}_onto"))
                    })
                    .expect("the copy dropped");
            }
        }
        return;
    }
    let mut group = c.benchmark_group("index_sync_cpu");
    group.sample_size(10);
    group.throughput(Throughput::Elements(updates as u64));
    group.bench_function("decode+digest+summary+keys+zstd+write, one thread", |b| {
        b.iter_batched(
            || tempfile::tempdir().expect("temp dir"),
            |dir| {
                let (mut index, chunk) = new_index(&dir.path().join("i.sqlite"), &copier);
                let mut start = None;
                for texts in &pages {
                    let page = page_of(texts, start.take(), Some(&packing));
                    start = Some(page.cursor.clone());
                    index.write_page(chunk, &page).expect("written");
                }
                dir
            },
            BatchSize::PerIteration,
        );
    });
    group.bench_function("the same, pages made on a second thread", |b| {
        b.iter_batched(
            || tempfile::tempdir().expect("temp dir"),
            |dir| {
                let (mut index, chunk) = new_index(&dir.path().join("i.sqlite"), &copier);
                let (tx, rx) = mpsc::sync_channel::<PageWrite>(2);
                std::thread::scope(|s| {
                    s.spawn(|| {
                        let mut start = None;
                        for texts in &pages {
                            let page = page_of(texts, start.take(), Some(&packing));
                            start = Some(page.cursor.clone());
                            if tx.send(page).is_err() {
                                break;
                            }
                        }
                        drop(tx);
                    });
                    for page in rx {
                        index.write_page(chunk, &page).expect("written");
                    }
                });
                dir
            },
            BatchSize::PerIteration,
        );
    });
    group.bench_function(
        "the sync's way: pages decoded on every core, written by one writer meanwhile",
        |b| {
            b.iter_batched(
                || tempfile::tempdir().expect("temp dir"),
                |dir| {
                    let (mut index, chunk) = new_index(&dir.path().join("i.sqlite"), &copier);
                    let (tx, rx) = mpsc::sync_channel::<PageWrite>(2);
                    std::thread::scope(|s| {
                        s.spawn(|| {
                            let mut start = None;
                            for body in &page_bodies {
                                let page = page_par(body, start.take(), Some(&packing));
                                start = Some(page.cursor.clone());
                                if tx.send(page).is_err() {
                                    break;
                                }
                            }
                            drop(tx);
                        });
                        for page in rx {
                            index.write_page(chunk, &page).expect("written");
                            drop_aside(page);
                        }
                    });
                    dir
                },
                BatchSize::PerIteration,
            );
        },
    );
    group.finish();

    let n: usize = std::env::var("INDEX_BENCH_UPDATES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let parsed = queries(&copier, n, template.len());
    if pg::only() {
        let url = std::env::var("INDEX_BENCH_PG_URL")
            .expect("INDEX_BENCH_PG_ONLY needs INDEX_BENCH_PG_URL");
        pg::figures(c, &url, &template, &copier, n, &parsed);
        return;
    }
    let path = cached(&template, &copier, n, true);
    let mut with_events = None;
    if cold::search_only() {
        eprintln!(
            "index bench: {n} updates, {:.1} MiB on disk ({:.0} bytes/update); INDEX_BENCH_SEARCH_ONLY: no split into rows and keys and bodies, no events figure, no index stats figure",
            file_size(&path) as f64 / 1_048_576.0,
            file_size(&path) as f64 / n as f64,
        );
    } else {
        // Size: rows and keys from an index without bodies (a tenth as large), bodies the rest.
        let small = (n / 10).max(template.len());
        let lean = cached(&template, &copier, small, false);
        let with_bodies = cached(&template, &copier, small, true);
        let keys_per = file_size(&lean) as f64 / small as f64;
        let bodies_per = (file_size(&with_bodies) as f64 - file_size(&lean) as f64) / small as f64;
        eprintln!(
            "index bench: {n} updates, {:.1} MiB on disk ({:.0} bytes/update); rows and keys {keys_per:.0} bytes/update, zstd bodies {bodies_per:.0} bytes/update (from {small}-update indexes)",
            file_size(&path) as f64 / 1_048_576.0,
            file_size(&path) as f64 / n as f64,
        );
        // The same updates with their events (issue 37 §1: at most 400 bytes an update more).
        let events = events::EventsTemplate::new(&template, &template_events);
        with_events = Some(events::size_figure(&template, &events, &copier, n, &path));
        stats_figures(&path, n);
    }

    let mut index = store::open_reader(&Location::Sqlite(path.clone())).expect("reader");
    // Cold cache: once per query, after dropping the page cache (a fresh reader each time).
    cold::figures(&path, &parsed, &drop_caches);

    non_hub_counts(&path, &copier.dso);

    if let Ok(url) = std::env::var("INDEX_BENCH_PG_URL") {
        pg::figures(c, &url, &template, &copier, n, &parsed);
    }
    search_group(c, &format!("index_search_{n}"), index.as_mut(), &parsed);
    if let Some(path) = with_events {
        whole_search_group(
            c,
            &format!("index_search_{n}_with_events"),
            &path,
            &parsed[0].1,
        );
    }
}

/// The search as `index search` and the explorer's `F` run it on an index that keeps its
/// events ([`store::search_all`]: the updates that match, and the events with a verdict and no
/// update that do): a term no such event has, a party (tested on each one's submitters) and
/// a verdict (read by the statement).
fn whole_search_group(c: &mut Criterion, group_name: &str, path: &Path, rare_party: &Query) {
    let mut index = store::open_reader(&Location::Sqlite(path.to_path_buf())).expect("reader");
    let queries = [
        (
            "is:transfer",
            Query::parse(&["is:transfer"]).expect("a query"),
        ),
        ("a rare party", rare_party.clone()),
        (
            "verdict:rejected",
            Query::parse(&["verdict:rejected"]).expect("a query"),
        ),
    ];
    let mut group = c.benchmark_group(group_name);
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for (name, query) in &queries {
        let hits = store::search_all::count(index.as_mut(), query, None, None).expect("count");
        assert!(hits > 0, "{name} matches something");
        group.bench_function(format!("{name}: first page of 100"), |b| {
            b.iter(|| {
                store::search_all::search(index.as_mut(), black_box(query), None, None, 100)
                    .expect("search")
            });
        });
        group.bench_function(format!("{name}: count ({hits})"), |b| {
            b.iter(|| {
                store::search_all::count(index.as_mut(), black_box(query), None, None)
                    .expect("count")
            });
        });
    }
    group.finish();
}

/// The searches every engine is measured on: a rare party, the DSO party, two terms and a
/// contract-id prefix (of a contract in the middle copy; the generator keeps an id's start, so
/// the prefix matches that contract in every copy).
fn queries(copier: &Copier, n: usize, template_len: usize) -> Vec<(&'static str, Query)> {
    let copies = (n / template_len).max(1) as u64;
    let rare = copier
        .map(&copier.rare, 1)
        .unwrap_or_else(|| copier.rare.clone());
    let contract = copier
        .map(&copier.contract, copies / 2)
        .unwrap_or_else(|| copier.contract.clone());
    let prefix = contract.get(..12).unwrap_or(&contract).to_owned();
    eprintln!("index bench: the contract-id prefix is {prefix}");
    let queries: [(&str, Vec<String>); 4] = [
        ("a rare party", vec![format!("party:{rare}")]),
        ("the DSO party", vec![format!("party:{}", copier.dso)]),
        (
            "two terms",
            vec![
                format!("party:{}", copier.dso),
                "choice:AmuletRules_Transfer".to_owned(),
            ],
        ),
        ("a contract-id prefix", vec![format!("contract:{prefix}")]),
    ];
    queries
        .into_iter()
        .map(|(name, words)| (name, Query::parse(&words).expect("a query")))
        .collect()
}

/// Two terms that are not both hubs: the DSO party (a hub) with the most frequent party,
/// template or choice below the hub threshold (and one below a tenth of it), then the least
/// frequent hub with that term (fewer updates shared). The count walks that term's updates and
/// tests each in the hub's bitmap; the first page walks them newest first until 100 match.
/// Warm, and cold when the page cache can be dropped.
fn non_hub_counts(path: &Path, dso: &str) {
    let conn =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("the index opens");
    let threshold = store::hubs::DEFAULT_THRESHOLD;
    let term = |id: Option<i64>, below: i64| -> Option<Term> {
        conn.query_row(
            "SELECT kind, value, n FROM terms WHERE (?1 IS NULL AND n < ?2 AND kind IN (1, 2, 3))
               OR id = ?1 ORDER BY n DESC LIMIT 1",
            rusqlite::params![id, below],
            |r| Ok((r.get::<_, i64>(0)?, r.get(1)?, r.get(2)?)),
        )
        .ok()
        .map(|(kind, value, n)| {
            let field = KeyKind::from_code(kind).expect("a key kind").field();
            (field.to_owned(), value, n)
        })
    };
    let least_hub: Option<i64> = conn
        .query_row(
            "SELECT h.term FROM hubs h JOIN terms t ON t.id = h.term ORDER BY t.n LIMIT 1",
            [],
            |r| r.get(0),
        )
        .ok();
    let hub = least_hub.and_then(|id| term(Some(id), 0));
    let below: Vec<Term> = [threshold, threshold / 10]
        .into_iter()
        .filter_map(|b| term(None, b))
        .collect();
    let cold = drop_caches();
    let fresh = || {
        drop_caches();
        store::open_reader(&Location::Sqlite(path.to_owned())).expect("reader")
    };
    two_term_figures(
        "",
        dso,
        hub.as_ref(),
        &below,
        &fresh,
        if cold {
            "each first cold"
        } else {
            "warm: the page cache cannot be dropped"
        },
    );
}

/// A term of the index: its field, its value and the updates it is in.
type Term = (String, String, i64);

/// Each of `below` with the DSO party, then with the least frequent hub: the first page of 100
/// and again, then the count three times, each from a `fresh` reader (cold where it can be);
/// `engine` and `how` name them in the lines printed.
fn two_term_figures(
    engine: &str,
    dso: &str,
    hub: Option<&Term>,
    below: &[Term],
    fresh: &dyn Fn() -> Box<dyn IndexReader>,
    how: &str,
) {
    for (field, value, n) in below {
        let mut pairs = vec![(format!("party:{dso}"), "the DSO party".to_owned())];
        if let Some((hub_field, hub_value, hub_n)) = hub {
            pairs.push((
                format!("{hub_field}:{hub_value}"),
                format!("the least frequent hub ({hub_n} updates)"),
            ));
        }
        for (with, name) in pairs {
            let query = Query::parse(&[with, format!("{field}:{value}")]).expect("a query");
            let mut index = fresh();
            let t = Instant::now();
            let rows = index.search(&query, None, None, 100).expect("search");
            let page = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            index.search(&query, None, None, 100).expect("search");
            let page_again = t.elapsed().as_secs_f64() * 1e3;
            let mut index = fresh();
            let mut times = Vec::new();
            let mut count = 0;
            for _ in 0..3 {
                let t = Instant::now();
                count = index.count(&query, None, None).expect("count");
                times.push(format!("{:.1} ms", t.elapsed().as_secs_f64() * 1e3));
            }
            eprintln!(
                "index bench: {engine}{name} and a {field} of {n} updates (no hub): first page ({} rows) {page:.1} ms, again {page_again:.2} ms; count {count} in {} ({how})",
                rows.len(),
                times.join(", "),
            );
        }
    }
}

fn search_group(
    c: &mut Criterion,
    group_name: &str,
    index: &mut dyn IndexReader,
    parsed: &[(&str, Query)],
) {
    let mut group = c.benchmark_group(group_name);
    // Ten samples: a search of the DSO party reads seconds today.
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for (name, query) in parsed {
        let hits = index.count(query, None, None).expect("count");
        assert!(hits > 0, "{name} matches something");
        group.bench_function(format!("{name}: first page of 100"), |b| {
            b.iter(|| {
                index
                    .search(black_box(query), None, None, 100)
                    .expect("search")
            });
        });
        group.bench_function(format!("{name}: count ({hits})"), |b| {
            b.iter(|| index.count(black_box(query), None, None).expect("count"));
        });
    }
    let some_id = index
        .search(&parsed[1].1, None, None, 1)
        .expect("search")
        .first()
        .map(|r| r.update_id.clone())
        .expect("an update");
    group.bench_function("open an update (its body)", |b| {
        b.iter(|| index.body(black_box(&some_id)).expect("body"));
    });
    list_reads(&mut group, index);
    group.finish();
}

/// History's list over the whole index (`L`): its first page, its last page counted from the
/// end and by `OFFSET` from the start (as before), and the loader's page after a position
/// deep in the index (the explorer's pages over the index, `--offline`).
fn list_reads(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    index: &mut dyn IndexReader,
) {
    use cantonscope::model::index::read::RangeFrom;
    const SIZE: usize = 200;
    let since = 0;
    let newest = RangeFrom::FromEnd {
        before: i64::MAX,
        skip: 0,
    };
    let last = index.range_rows(since, &newest, 1).expect("the newest row");
    let last = last.first().expect("a row");
    let end = cantonscope::model::format::parse_time_micros(&last.record_time).expect("a time") + 1;
    let total = usize::try_from(index.range_count(since, Some(end)).expect("count")).expect("fits");
    let from_end = RangeFrom::FromEnd {
        before: end,
        skip: 0,
    };
    let by_offset = RangeFrom::Offset(total - SIZE);
    assert_eq!(
        index.range_rows(since, &from_end, SIZE).expect("rows"),
        index.range_rows(since, &by_offset, SIZE).expect("rows"),
        "the same last page both ways"
    );
    for (name, from) in [
        ("the list: first page of 200", RangeFrom::Offset(0)),
        ("the list: last page of 200, from the end", from_end),
        ("the list: last page of 200, by OFFSET", by_offset),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                index
                    .range_rows(since, black_box(&from), SIZE)
                    .expect("rows")
            });
        });
    }
    let deep = cantonscope::store::At::new(last.migration_id, end - 3_600_000_000);
    group.bench_function(
        "a page of 100 after a position an hour before the newest",
        |b| {
            b.iter(|| index.page_after(black_box(Some(deep)), 100).expect("page"));
        },
    );
}

criterion_group!(benches, index_benches);
criterion_main!(benches);
