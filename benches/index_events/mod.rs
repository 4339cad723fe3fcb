//! The bench index with the updates' events (issue 37 §1's size figure): the demo's
//! `/v0/events` stream (fetched with the template) copied with each copy of the history —
//! verdicts, traffic summaries, app activity records and the events with a verdict and no
//! update, every id, party and time rewritten as the updates' are — and written after each
//! page of updates through the store's calls the events walk makes (the verdict-only events,
//! the page's round sums, the page's events). Cached beside the index without them; the bench
//! prints what they add on disk per update.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use cantonscope::api::ApiClient;
use cantonscope::api::scan::{self, UpdateItem, UpdatesRequest};
use cantonscope::model::format::{format_time_micros, parse_time_micros};
use cantonscope::model::index::{SUMMARY_VERSION, events_parts};
use cantonscope::model::position::At;
use cantonscope::store::{self, EventsRow, IndexWriter, VerdictEvent};
use serde_json::Value;

use super::{Copier, PAGE, SEED, build, cache_dir, file_size};

/// The scans named as confirming each update's events (as a `--verify 2` sync names them).
const SCANS: [&str; 2] = ["Aurora-Validators-0", "Boreal-Ops-2"];

/// The demo's events items as JSON texts, in the stream's order (it ends at the scans'
/// verdict-ingestion head, so the newest updates have none, as in a sync).
pub async fn fetch(client: &ApiClient) -> Vec<String> {
    let mut events = Vec::new();
    let mut request = UpdatesRequest::from_begin(1000);
    loop {
        let resp = client
            .send_raw(&scan::events(&request))
            .await
            .expect("a page of events");
        let body: Value = serde_json::from_slice(&resp.body).expect("a JSON page");
        let page = body["events"].as_array().cloned().unwrap_or_default();
        let n = page.len();
        events.extend(page.iter().map(Value::to_string));
        let last = resp
            .typed
            .events
            .last()
            .and_then(cantonscope::model::position::event_at);
        match last {
            Some(at) if n == 1000 => {
                request = UpdatesRequest::after(
                    1000,
                    at.migration_id,
                    format_time_micros(at.record_time),
                );
            }
            _ => break,
        }
    }
    events
}

/// The template's events by page of the template (`PAGE` updates): (the index in the
/// template of the update it comes with, or of the first update after a verdict-only one;
/// its JSON text).
pub struct EventsTemplate {
    by_page: Vec<Vec<(usize, String)>>,
    /// How many of the events have a verdict and no update.
    verdict_only: usize,
}

/// Where an events item is: its update id (the update's, else the verdict's), its place, and
/// whether it has no update.
fn place(v: &Value) -> Option<(String, At, bool)> {
    let verdict_only = v["update"].is_null();
    let head = if verdict_only {
        &v["verdict"]
    } else {
        &v["update"]
    };
    let id = head["update_id"].as_str()?.to_owned();
    let migration = head["migration_id"]
        .as_i64()
        .or_else(|| head["event"]["migration_id"].as_i64())?;
    let time = parse_time_micros(head["record_time"].as_str()?)?;
    Some((id, At::new(migration, time), verdict_only))
}

impl EventsTemplate {
    pub fn new(template: &[String], events: &[String]) -> EventsTemplate {
        let mut index_of = HashMap::new();
        let mut places = Vec::with_capacity(template.len());
        for (i, text) in template.iter().enumerate() {
            let item: UpdateItem = serde_json::from_str(text).expect("a demo item decodes");
            if let Some(id) = item.update_id() {
                index_of.insert(id.to_owned(), i);
            }
            let at = item
                .migration_id()
                .zip(item.record_time().and_then(parse_time_micros))
                .map_or(At::BEGIN, |(m, t)| At::new(m, t));
            places.push(at);
        }
        let pages = template.len().div_ceil(PAGE).max(1);
        let mut by_page = vec![Vec::new(); pages];
        let mut verdict_only = 0;
        for text in events {
            let v: Value = serde_json::from_str(text).expect("a demo event");
            let Some((id, at, only)) = place(&v) else {
                continue;
            };
            let i = if only {
                verdict_only += 1;
                places.partition_point(|p| *p <= at)
            } else {
                let Some(i) = index_of.get(&id) else { continue };
                *i
            };
            by_page[(i / PAGE).min(pages - 1)].push((i, text.clone()));
        }
        EventsTemplate {
            by_page,
            verdict_only,
        }
    }

    /// How many events the template has, and of them with a verdict and no update.
    pub fn counts(&self) -> (usize, usize) {
        (self.by_page.iter().map(Vec::len).sum(), self.verdict_only)
    }

    /// The rows of template page `page`'s events as copy `k` has them, of its updates before
    /// `limit` (an index in the template): the updates' events and the verdict-only events,
    /// made as the events walk makes them.
    pub fn rows(
        &self,
        copier: &Copier,
        page: usize,
        k: u64,
        limit: usize,
    ) -> (Vec<EventsRow>, Vec<VerdictEvent>) {
        let scans: Vec<String> = SCANS.iter().map(|s| (*s).to_owned()).collect();
        let (mut rows, mut verdicts) = (Vec::new(), Vec::new());
        for (i, text) in self.by_page.get(page).into_iter().flatten() {
            if *i >= limit {
                continue;
            }
            let v: Value = serde_json::from_str(&copier.copy(text, k)).expect("a copied event");
            let Some((id, at, only)) = place(&v) else {
                continue;
            };
            let (parts, digest) = events_parts(&v);
            let row = EventsRow::of(&id, &parts, &digest, &scans);
            if only {
                verdicts.push(VerdictEvent { at, row });
            } else {
                rows.push(row);
            }
        }
        (rows, verdicts)
    }
}

/// Writes a page's events as the events walk does: the verdict-only events, then the page's
/// round sums and its events.
pub fn write(index: &mut dyn IndexWriter, (rows, verdicts): &(Vec<EventsRow>, Vec<VerdictEvent>)) {
    if !verdicts.is_empty() {
        index
            .write_verdict_events(verdicts)
            .expect("verdict events");
    }
    index.add_rounds(rows).expect("round sums");
    index.write_events(rows).expect("events");
}

/// The cached index of `n` updates with their events (built when missing).
fn cached(template: &[String], events: &EventsTemplate, copier: &Copier, n: usize) -> PathBuf {
    let dir = cache_dir();
    std::fs::create_dir_all(&dir).expect("cache dir");
    let name = format!(
        "{n}-seed{SEED}-schema{}-summary{SUMMARY_VERSION}-events.sqlite",
        store::SCHEMA_VERSION,
    );
    let path = dir.join(name);
    if !path.exists() {
        let building = path.with_extension("building");
        let _ = std::fs::remove_file(&building);
        eprintln!(
            "index bench: building {} ({n} updates with their events)…",
            path.display()
        );
        let rate = build(&building, template, copier, n, true, Some(events));
        std::fs::rename(&building, &path).expect("cache rename");
        eprintln!("index bench: built at {rate:.0} updates/s");
    }
    path
}

/// How many rows `sql` counts in the index at `path`.
fn count(path: &Path, sql: &str) -> i64 {
    rusqlite::Connection::open(path)
        .and_then(|c| c.query_row(sql, [], |r| r.get(0)))
        .expect("a count")
}

/// Prints what the events add on disk per update to the index of `n` updates at `plain`
/// (the same updates without their events).
pub fn size_figure(
    template: &[String],
    events: &EventsTemplate,
    copier: &Copier,
    n: usize,
    plain: &Path,
) -> PathBuf {
    let path = cached(template, events, copier, n);
    let with = file_size(&path) as f64 / n as f64;
    let without = file_size(plain) as f64 / n as f64;
    let kept = count(&path, "SELECT count(*) FROM events");
    let verdict_only = count(&path, "SELECT count(*) FROM verdict_events");
    let (in_template, only_in_template) = events.counts();
    eprintln!(
        "index bench: events: {n} updates with their events (template: {in_template} events, {only_in_template} with a verdict and no update), {kept} updates' events and {verdict_only} verdict-only kept: {with:.0} bytes/update on disk against {without:.0} without them: the events add {:.0} bytes/update",
        with - without
    );
    path
}
