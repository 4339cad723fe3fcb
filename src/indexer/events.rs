//! The events of the index's updates (issue 37 §1): the verdict, traffic summary and app
//! activity records `POST /v0/events` serves beside each update, walked from the first update
//! of the index without them to its last, each page asked of `--verify N` scans and each
//! update's parts kept as updates are ([`EventsRow`]): N scans agree on the parts' digest
//! (the verdict's scan-local `finalization_time` left out); on a difference every scan is
//! asked and a version held by f + 1 (and N) scans, more than hold any other, is kept, the
//! others named odd; otherwise the walk stops at that update with a divergence naming the
//! JSON paths that differ. A scan that does not serve `/v0/events` (an older scan: 404) is
//! "not served by" it, skipped for another, never a dispute. Each page is one transaction, so
//! a walk killed at any moment goes on next time from the first update still without events.
//! The stream ends at the scans' verdict-ingestion head: the updates after it stay "events not
//! synced yet" until a later walk.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::{Engine, Failure, Halt, now_micros};
use crate::api::Call;
use crate::api::scan::{self, EventsPage, UpdatesAfter, UpdatesRequest, ValueEncoding};
use crate::model::consensus::{MAX_DIFFERENCES, json_diff};
use crate::model::format::format_time_micros;
use crate::model::index::{Digest, digest_hex, events_parts};
use crate::model::position::At;
use crate::store::{DivergenceRecord, EventsRow};

/// One update's events as one scan serves them.
struct Item {
    id: String,
    at: At,
    after: UpdatesAfter,
    parts: Map<String, Value>,
    digest: Digest,
}

/// One scan's answer to an events page.
struct EventsOf {
    scan: usize,
    items: Vec<Item>,
}

impl super::ScanAnswer for EventsOf {
    fn scan(&self) -> usize {
        self.scan
    }
}

impl EventsOf {
    fn get(&self, id: &str) -> Option<&Item> {
        self.items.iter().find(|i| i.id == id)
    }
}

/// What an events walk did.
#[derive(Debug, Default)]
pub struct EventsCounts {
    pub pages: u64,
    /// Updates whose events were kept.
    pub kept: u64,
    /// Updates where a scan was outvoted.
    pub odd: u64,
    /// Scans that did not serve `/v0/events` (with why), each named once.
    pub not_served_by: Vec<String>,
    /// The walk ended before the index's last update: the scans' events stop there (their
    /// verdict-ingestion head), or too few scans serve the newest ones yet.
    pub behind: bool,
}

impl EventsCounts {
    /// As the sync's JSON says it.
    pub fn to_json(&self) -> Value {
        json!({
            "pages": self.pages,
            "kept": self.kept,
            "odd": self.odd,
            "not_served_by": self.not_served_by,
            "not_synced_yet": self.behind,
        })
    }
}

impl Engine<'_> {
    /// `scan`'s events page, or why it has none (its status: 404 from an older scan).
    async fn events_of(&self, scan: usize, call: &Call<EventsPage>) -> Result<EventsOf, String> {
        let reply = self.net.ask(scan, call).await;
        if reply.success().is_none() {
            return Err(reply.problem().unwrap_or_else(|| "no answer".to_owned()));
        }
        let Ok(exchange) = reply.result else {
            return Err("no answer".to_owned());
        };
        let page = call
            .decode_response(exchange.status, &exchange.headers, &exchange.body)
            .map_err(|e| e.to_string())?;
        let mut items = Vec::with_capacity(page.events.len());
        for event in &page.events {
            let (Some(id), Some(at)) = (event.update_id(), crate::model::position::event_at(event))
            else {
                return Err("an event without its update id or position".to_owned());
            };
            let value: Value = serde_json::from_str(event.raw.get()).map_err(|e| e.to_string())?;
            let (parts, digest) = events_parts(&value);
            items.push(Item {
                id: id.to_owned(),
                at,
                after: UpdatesAfter {
                    after_migration_id: at.migration_id,
                    after_record_time: format_time_micros(at.record_time),
                },
                parts,
                digest,
            });
        }
        Ok(EventsOf { scan, items })
    }

    /// Walks `/v0/events` over the index's updates still without their events, keeping them
    /// verified page by page (see the module).
    pub async fn sync_events(&self) -> Result<EventsCounts, Halt> {
        let mut counts = EventsCounts::default();
        // An index migrated with events kept gets their per-round summary once.
        if let Some(n) = self
            .store
            .call(crate::store::IndexWriter::build_rounds)
            .await?
            && n > 0
        {
            self.say(&format!(
                "built the per-round summary from the {n} updates' events the index keeps"
            ));
        }
        let todo = self
            .store
            .call(crate::store::IndexWriter::events_todo)
            .await?;
        let (Some(first), Some(last)) = (todo.first_lacking, todo.last) else {
            return Ok(counts);
        };
        let mut after = UpdatesAfter {
            after_migration_id: first.migration_id,
            after_record_time: format_time_micros(first.record_time - 1),
        };
        let primary_name = self.describe(self.primary);
        loop {
            if self.cancel.is_cancelled() {
                return Err(Halt::Interrupted);
            }
            let call = scan::events(&UpdatesRequest {
                page_size: self.plan.page_size,
                after: Some(after.clone()),
                encoding: ValueEncoding::CompactJson,
            });
            let primary = self.events_of(self.primary, &call).await.map_err(|p| {
                Halt::Failed(Failure::Server(format!(
                    "the profile's scan ({primary_name}) does not serve the updates' events (POST /v0/events: {p}); `index sync --no-events` keeps the updates alone"
                )))
            })?;
            let within = primary.items.iter().take_while(|i| i.at <= last).count();
            if within == 0 {
                counts.behind = primary.items.is_empty() && first_or_more(&after, last);
                return Ok(counts);
            }
            let n = self.net.len();
            let mut pending = (0..n)
                .map(|i| (i + self.rotation.get()) % n)
                .filter(|i| *i != self.primary)
                .collect::<Vec<_>>()
                .into_iter();
            self.rotation.set(self.rotation.get() + 1);
            let mut pages = vec![primary];
            let ask = async |pages: &mut Vec<EventsOf>, scan: usize, counts: &mut EventsCounts| {
                match self.events_of(scan, &call).await {
                    Ok(page) => pages.push(page),
                    Err(problem) => {
                        let name = format!("{} ({problem})", self.describe(scan));
                        if !counts.not_served_by.contains(&name) {
                            self.say(&format!("events not served by {name}"));
                            counts.not_served_by.push(name);
                        }
                    }
                }
            };
            while pages.len() < self.needed {
                let Some(scan) = pending.next() else {
                    return Err(Halt::Failed(Failure::NoQuorum(format!(
                        "not enough scans serve the updates' events to verify with: --verify needs {} scans to agree; not served by {}",
                        self.needed,
                        counts.not_served_by.join(", ")
                    ))));
                };
                ask(&mut pages, scan, &mut counts).await;
            }
            let mut rows = Vec::new();
            let mut halt = None;
            for k in 0..within {
                let id = pages[0].items[k].id.clone();
                let groups = loop {
                    let mut groups: BTreeMap<Digest, Vec<usize>> = BTreeMap::new();
                    for page in &pages {
                        if let Some(item) = page.get(&id) {
                            groups.entry(item.digest).or_default().push(page.scan);
                        }
                    }
                    if groups.len() > 1 && pending.len() > 0 {
                        for scan in pending.by_ref().collect::<Vec<_>>() {
                            ask(&mut pages, scan, &mut counts).await;
                        }
                        continue;
                    }
                    break groups;
                };
                let mut ranked: Vec<(Digest, Vec<usize>)> = groups.into_iter().collect();
                ranked.sort_by_key(|(_, m)| std::cmp::Reverse(m.len()));
                let (digest, members) = &ranked[0];
                let outvoting = ranked.len() > 1
                    && members.len() >= self.threshold
                    && members.len() > ranked[1].1.len();
                if ranked.len() > 1 && !outvoting {
                    halt = Some(self.events_diverged(&pages, &id, &ranked));
                    break;
                }
                if members.len() < self.needed {
                    // The other scans lag: the newest events are not confirmed yet.
                    counts.behind = true;
                    break;
                }
                if outvoting {
                    counts.odd += 1;
                    for (_, odd) in &ranked[1..] {
                        self.say(&format!(
                            "warning: {} serve the events of update {id} differently; kept the version of {}",
                            self.names(odd).join(", "),
                            self.names(members).join(", ")
                        ));
                    }
                }
                let Some(item) = super::answer_of(&pages, members[0]).and_then(|p| p.get(&id))
                else {
                    continue;
                };
                rows.push(EventsRow::of(
                    &id,
                    &item.parts,
                    digest,
                    &self.confirmed_by(members),
                ));
            }
            let walked = rows.len();
            let next = pages[0]
                .items
                .get(walked.max(1) - 1)
                .map(|i| i.after.clone());
            // The page's round sums first (marked counted in their transaction): a walk
            // killed between the two writes the page again and counts nothing twice.
            let kept = self
                .store
                .call(move |s| {
                    s.add_rounds(&rows)?;
                    s.write_events(&rows)
                })
                .await?;
            counts.kept += kept;
            counts.pages += 1;
            if let Some(halt) = halt {
                return Err(halt);
            }
            if counts.behind || walked < within || within < pages[0].items.len() {
                return Ok(counts);
            }
            match next {
                Some(next) => after = next,
                None => return Ok(counts),
            }
        }
    }

    /// The halt at update `id`, whose events the scans serve in versions none of which has
    /// the scans needed: the record names the versions and the JSON paths that differ.
    fn events_diverged(
        &self,
        pages: &[EventsOf],
        id: &str,
        ranked: &[(Digest, Vec<usize>)],
    ) -> Halt {
        let parts_of = |scan: usize| super::answer_of(pages, scan).and_then(|p| p.get(id));
        let a = parts_of(ranked[0].1[0]);
        let b = parts_of(ranked[1].1[0]);
        let (differences, truncated) = match (a, b) {
            (Some(a), Some(b)) => json_diff(
                &Value::Object(a.parts.clone()),
                &Value::Object(b.parts.clone()),
                MAX_DIFFERENCES,
            ),
            _ => (Vec::new(), false),
        };
        let at = a.map(|a| a.after.clone());
        let versions: Vec<Value> = ranked
            .iter()
            .map(|(digest, members)| json!({ "digest": digest_hex(digest), "scans": self.names(members) }))
            .collect();
        let fields: Vec<String> = differences.iter().map(|d| d.path.clone()).collect();
        let mut detail =
            super::divergence_detail(&versions, (&differences, truncated), self.threshold);
        detail["part"] = json!("events");
        let record = DivergenceRecord {
            update_id: id.to_owned(),
            migration_id: at.as_ref().map_or(0, |a| a.after_migration_id),
            record_time: at.map(|a| a.after_record_time).unwrap_or_default(),
            found_at: now_micros(),
            resolved: false,
            detail,
        };
        let message = format!(
            "stopped at a divergence in the events of update {id}: the scans disagree ({}), fields {}; no version has the {} scans needed; the events are kept up to it",
            ranked
                .iter()
                .map(|(_, m)| self.names(m).join(" + "))
                .collect::<Vec<_>>()
                .join(" vs "),
            if fields.is_empty() {
                "unknown".to_owned()
            } else {
                fields.join(", ")
            },
            self.threshold
        );
        Halt::Diverged(Box::new(record), message)
    }
}

/// Whether the walk's cursor `after` is before the index's `last` update (so an empty page
/// leaves updates without events).
fn first_or_more(after: &UpdatesAfter, last: At) -> bool {
    crate::model::format::parse_time_micros(&after.after_record_time)
        .is_some_and(|t| At::new(after.after_migration_id, t) < last)
}
