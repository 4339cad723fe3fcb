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

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::events_read::{Item, read_page};
use super::{Engine, Failure, Halt, now_micros};
use crate::api::Call;
use crate::api::scan::{self, EventsPage, UpdatesAfter, UpdatesRequest, ValueEncoding};
use crate::model::consensus::{MAX_DIFFERENCES, json_diff};
use crate::model::format::format_time_micros;
use crate::model::index::{Digest, digest_hex};
use crate::model::position::At;
use crate::store::{DivergenceRecord, EventsRow, VerdictEvent};

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

    /// Update `id`'s item, looked for at `k` first (where it is when the scans' pages line
    /// up, as they do but for a difference).
    fn get_at(&self, k: usize, id: &str) -> Option<&Item> {
        match self.items.get(k) {
            Some(item) if item.id == id => Some(item),
            _ => self.get(id),
        }
    }
}

/// An events page judged ([`Engine::events_page`]): what of it is kept, what was found, and
/// where the walk goes next.
#[derive(Default)]
struct Judged {
    /// The updates' events, in order, up to where the page stopped.
    rows: Vec<EventsRow>,
    /// The events with a verdict and no update among them.
    verdict_rows: Vec<VerdictEvent>,
    /// The scans outvoted (resolved records).
    outvoted: Vec<DivergenceRecord>,
    /// The divergence the walk stops at.
    halt: Option<Halt>,
    /// The cursor after the last item walked.
    next: Option<UpdatesAfter>,
    /// Whether the walk goes on after it: nothing stopped it and the page was whole.
    more: bool,
}

/// What an events walk did.
#[derive(Debug, Default)]
pub struct EventsCounts {
    pub pages: u64,
    /// Updates whose events were kept.
    pub kept: u64,
    /// Updates where a scan was outvoted.
    pub odd: u64,
    /// Events with a verdict and no update kept (rejected requests, wholly private
    /// transactions).
    pub verdict_only: u64,
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
            "verdict_only": self.verdict_only,
            "not_served_by": self.not_served_by,
            "not_synced_yet": self.behind,
        })
    }
}

impl Engine<'_> {
    /// `scan`'s events page, or why it has none (its status: 404 from an older scan) and
    /// whether it is down (no answer, or 502–504 from a proxy in front of it).
    async fn events_of(
        &self,
        scan: usize,
        call: &Call<EventsPage>,
    ) -> Result<EventsOf, (String, bool)> {
        let reply = self.net.ask(scan, call).await;
        if reply.success().is_none() {
            let problem = reply.problem().unwrap_or_else(|| "no answer".to_owned());
            return Err((problem, reply.is_down()));
        }
        let Ok(exchange) = reply.result else {
            return Err(("no answer".to_owned(), true));
        };
        // Only what the walk needs is read (each item's place and parts' text and digest,
        // the update it carries skipped); the parts are decoded for the version kept alone.
        let items = read_page(&exchange.body).map_err(|e| (e, false))?;
        Ok(EventsOf { scan, items })
    }

    /// Walks `/v0/events` over the index's updates still without their events, keeping them
    /// verified page by page (see the module).
    pub async fn sync_events(&self) -> Result<EventsCounts, Halt> {
        let counts = self.walk_events().await?;
        if !counts.behind {
            self.verdict_events_backfilled().await?;
        }
        Ok(counts)
    }

    /// The walk of [`Self::sync_events`]: each page fetched, verified and judged while the
    /// page before it is written (the next page's cursor is known before the write, which
    /// reads nothing of it); a page that ends the walk is written alone.
    async fn walk_events(&self) -> Result<EventsCounts, Halt> {
        let counts = RefCell::new(EventsCounts::default());
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
        let backfill = self.verdict_events_backfill().await?;
        let first = match backfill {
            Some(start) => Some(todo.first_lacking.map_or(start, |f| f.min(start))),
            None => todo.first_lacking,
        };
        let (Some(first), Some(last)) = (first, todo.last) else {
            return Ok(counts.into_inner());
        };
        let mut after = UpdatesAfter {
            after_migration_id: first.migration_id,
            after_record_time: format_time_micros(first.record_time - 1),
        };
        // The next page, fetched and judged while the one before it was written.
        let mut ahead: Option<Result<Option<Judged>, Halt>> = None;
        loop {
            if self.cancel.is_cancelled() {
                return Err(Halt::Interrupted);
            }
            let judged = match ahead.take() {
                Some(judged) => judged?,
                None => self.events_page(&after, last, &counts).await?,
            };
            let Some(judged) = judged else {
                return Ok(counts.into_inner());
            };
            let next = judged.next.clone().filter(|_| judged.more);
            let Some(next) = next else {
                self.keep_events_page(judged, &counts).await?;
                return Ok(counts.into_inner());
            };
            if self.cancel.is_cancelled() {
                self.keep_events_page(judged, &counts).await?;
                return Err(Halt::Interrupted);
            }
            let (kept, fetched) = futures_util::future::join(
                self.keep_events_page(judged, &counts),
                self.events_page(&next, last, &counts),
            )
            .await;
            kept?;
            ahead = Some(fetched);
            after = next;
        }
    }

    /// The events page after `after`, asked of the scans the verification needs (of every
    /// scan on a difference) and judged update by update up to the index's `last` update:
    /// `None` when it has none of the index's updates (`counts` says whether some are left
    /// without events).
    async fn events_page(
        &self,
        after: &UpdatesAfter,
        last: At,
        counts: &RefCell<EventsCounts>,
    ) -> Result<Option<Judged>, Halt> {
        let call = scan::events(&UpdatesRequest {
            page_size: self.plan.page_size,
            after: Some(after.clone()),
            encoding: ValueEncoding::CompactJson,
        });
        let primary = self.reference_events(&call).await?;
        let within = primary.items.iter().take_while(|i| i.at <= last).count();
        if within == 0 {
            counts.borrow_mut().behind = primary.items.is_empty() && first_or_more(after, last);
            return Ok(None);
        }
        let n = self.net.len();
        let mut pending = (0..n)
            .map(|i| (i + self.rotation.get()) % n)
            .filter(|i| *i != self.primary && *i != primary.scan)
            .collect::<Vec<_>>()
            .into_iter();
        self.rotation.set(self.rotation.get() + 1);
        let mut pages = vec![primary];
        let ask = async |pages: &mut Vec<EventsOf>, scan: usize| match self
            .events_of(scan, &call)
            .await
        {
            Ok(page) => pages.push(page),
            Err((problem, _)) => {
                let name = format!("{} ({problem})", self.describe(scan));
                let mut counts = counts.borrow_mut();
                if !counts.not_served_by.contains(&name) {
                    let mut said = self.events_not_served.borrow_mut();
                    if !said.contains(&name) {
                        self.say(&format!("events not served by {name}"));
                        said.push(name.clone());
                    }
                    counts.not_served_by.push(name);
                }
            }
        };
        while pages.len() < self.needed {
            let Some(scan) = pending.next() else {
                return Err(Halt::Failed(Failure::NoQuorum(format!(
                    "not enough scans serve the updates' events to verify with: --verify needs {} scans to agree; not served by {}",
                    self.needed,
                    counts.borrow().not_served_by.join(", ")
                ))));
            };
            ask(&mut pages, scan).await;
        }
        let mut judged = Judged::default();
        let mut behind = false;
        for k in 0..within {
            let id = pages[0].items[k].id.clone();
            let groups = loop {
                let mut groups: BTreeMap<Digest, Vec<usize>> = BTreeMap::new();
                for page in &pages {
                    if let Some(item) = page.get_at(k, &id) {
                        groups.entry(item.digest).or_default().push(page.scan);
                    }
                }
                if groups.len() > 1 && pending.len() > 0 {
                    for scan in pending.by_ref().collect::<Vec<_>>() {
                        ask(&mut pages, scan).await;
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
                judged.halt = Some(self.events_diverged(&pages, &id, &ranked));
                break;
            }
            if members.len() < self.needed {
                // The other scans lag: the newest events are not confirmed yet.
                behind = true;
                counts.borrow_mut().behind = true;
                break;
            }
            if outvoting {
                counts.borrow_mut().odd += 1;
                for (_, odd) in &ranked[1..] {
                    self.say(&format!(
                        "warning: {} serve the events of update {id} differently; kept the version of {}",
                        self.names(odd).join(", "),
                        self.names(members).join(", ")
                    ));
                }
                judged
                    .outvoted
                    .push(self.events_outvoted(&pages, &id, &ranked));
            }
            let Some(item) = super::answer_of(&pages, members[0]).and_then(|p| p.get_at(k, &id))
            else {
                continue;
            };
            // The scans that served the version kept (the profile's scan alone, unverified,
            // names itself; while it is down, the scan the events came from is named).
            let by = if pages[0].scan == self.primary {
                self.confirmed_by(members)
            } else {
                self.names(members)
            };
            let row = item.row(digest, &by);
            if item.verdict_only {
                judged.verdict_rows.push(VerdictEvent { at: item.at, row });
            } else {
                judged.rows.push(row);
            }
        }
        let walked = judged.rows.len() + judged.verdict_rows.len();
        judged.next = pages[0].items.get(walked.max(1) - 1).map(Item::after);
        judged.more =
            judged.halt.is_none() && !behind && walked == within && within == pages[0].items.len();
        Ok(Some(judged))
    }

    /// Keeps a judged page: its events with a verdict and no update, its round sums and its
    /// updates' events (the round sums marked counted in their transaction: a walk killed
    /// between the two writes the page again and counts nothing twice), then its findings;
    /// the divergence it stopped at, if any, as the error.
    async fn keep_events_page(
        &self,
        judged: Judged,
        counts: &RefCell<EventsCounts>,
    ) -> Result<(), Halt> {
        let Judged {
            rows,
            verdict_rows,
            outvoted,
            halt,
            ..
        } = judged;
        let verdict_only = self.keep_verdict_events(verdict_rows).await?;
        counts.borrow_mut().verdict_only += verdict_only;
        let kept = self
            .store
            .call(move |s| {
                s.add_rounds(&rows)?;
                s.write_events(&rows)
            })
            .await?;
        {
            let mut counts = counts.borrow_mut();
            counts.kept += kept;
            counts.pages += 1;
        }
        self.record_events_findings(outvoted, halt.as_ref()).await?;
        match halt {
            Some(halt) => Err(halt),
            None => Ok(()),
        }
    }

    /// The events page the walk goes by: the profile's scan's; while it is down, a following
    /// sync's comes from the first other scan that answers (said once), verified as any page,
    /// as the bodies do ([`Engine::body_page`]). A profile's scan that answers without
    /// serving the events (404) stops the walk, as before.
    async fn reference_events(&self, call: &Call<EventsPage>) -> Result<EventsOf, Halt> {
        let name = self.describe(self.primary);
        let (problem, down) = match self.events_of(self.primary, call).await {
            Ok(page) => {
                if self.events_elsewhere.take().is_some() {
                    self.say(&format!(
                        "the profile's scan ({name}) answers again: the events come from it"
                    ));
                }
                return Ok(page);
            }
            Err(why) => why,
        };
        let halt = Halt::Failed(Failure::Server(format!(
            "the profile's scan ({name}) does not serve the updates' events (POST /v0/events: {problem}); `index sync --no-events` keeps the updates alone"
        )));
        if !self.plan.follow || !down {
            return Err(halt);
        }
        let n = self.net.len();
        let start = self.events_elsewhere.get().unwrap_or(self.rotation.get());
        for scan in (0..n)
            .map(|i| (start + i) % n)
            .filter(|s| *s != self.primary)
        {
            if let Ok(page) = self.events_of(scan, call).await {
                if self.events_elsewhere.replace(Some(scan)) != Some(scan) {
                    self.say(&format!(
                        "the profile's scan is down ({problem}): the events come from {} until it answers",
                        self.describe(scan)
                    ));
                }
                return Ok(page);
            }
        }
        Err(halt)
    }

    /// A following sync's round of events at the head ([`Self::sync_events`]): whether
    /// another is due (some updates are past the scans' verdict-ingestion head: "not synced
    /// yet" until a later round). Events the scans cannot serve or verify now are said and
    /// asked again next round; a divergence or a signal stops the sync.
    pub(super) async fn follow_events(&self) -> Result<bool, Halt> {
        match self.sync_events().await {
            Ok(counts) => Ok(counts.behind),
            Err(Halt::Failed(Failure::NoQuorum(why) | Failure::Server(why))) => {
                // Said once while it lasts (a follower asks again every round).
                let line = format!("warning: the updates' events are not synced yet: {why}");
                let mut said = self.events_not_served.borrow_mut();
                if !said.contains(&line) {
                    self.say(&line);
                    said.push(line);
                }
                Ok(true)
            }
            Err(halt) => Err(halt),
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
                &Value::Object(a.parts()),
                &Value::Object(b.parts()),
                MAX_DIFFERENCES,
            ),
            _ => (Vec::new(), false),
        };
        let at = a.map(Item::after);
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

impl Engine<'_> {
    /// The record of update `id`, whose events the odd scans of `ranked` (all but the first
    /// version's) serve differently from the version kept: resolved, naming them.
    fn events_outvoted(
        &self,
        pages: &[EventsOf],
        id: &str,
        ranked: &[(Digest, Vec<usize>)],
    ) -> DivergenceRecord {
        let at = super::answer_of(pages, ranked[0].1[0])
            .and_then(|p| p.get(id))
            .map(Item::after);
        let odd: Vec<String> = ranked[1..]
            .iter()
            .flat_map(|(_, scans)| self.names(scans))
            .collect();
        DivergenceRecord {
            update_id: id.to_owned(),
            migration_id: at.as_ref().map_or(0, |a| a.after_migration_id),
            record_time: at.map(|a| a.after_record_time).unwrap_or_default(),
            found_at: now_micros(),
            resolved: true,
            detail: json!({
                "part": "events",
                "odd_scans": odd,
                "kept_by": self.names(&ranked[0].1),
            }),
        }
    }

    /// Where an index migrated from schema 7 is to be walked again for its events with a
    /// verdict and no update: its first update (`None`: no such walk is pending).
    async fn verdict_events_backfill(&self) -> Result<Option<At>, Halt> {
        Ok(self
            .store
            .call(|s| {
                if s.meta_get(crate::store::VERDICT_EVENTS_BACKFILL)?
                    .as_deref()
                    != Some(crate::store::VERDICT_EVENTS_PENDING)
                {
                    return Ok(None);
                }
                Ok(s.page_after(None, 1)?
                    .first()
                    .map(|u| At::new(u.migration_id, u.record_time)))
            })
            .await?)
    }

    /// That walk has ended: not pending any more.
    async fn verdict_events_backfilled(&self) -> Result<(), Halt> {
        Ok(self
            .store
            .call(|s| {
                if s.meta_get(crate::store::VERDICT_EVENTS_BACKFILL)?.is_some() {
                    s.meta_set(crate::store::VERDICT_EVENTS_BACKFILL, "done")?;
                }
                Ok(())
            })
            .await?)
    }

    /// Keeps a page's events with a verdict and no update (before the page's update events,
    /// whose write moves the walk on): how many.
    async fn keep_verdict_events(&self, rows: Vec<VerdictEvent>) -> Result<u64, Halt> {
        if rows.is_empty() {
            return Ok(0);
        }
        Ok(self
            .store
            .call(move |s| s.write_verdict_events(&rows))
            .await?)
    }

    /// Records a page's findings in the divergences table, as the updates' walk does: the
    /// scans outvoted (resolved) and the divergence the walk stops at.
    async fn record_events_findings(
        &self,
        mut records: Vec<DivergenceRecord>,
        halt: Option<&Halt>,
    ) -> Result<(), Halt> {
        if let Some(Halt::Diverged(record, _)) = halt {
            records.push((**record).clone());
        }
        if records.is_empty() {
            return Ok(());
        }
        self.store
            .call(move |s| {
                records
                    .iter()
                    .try_for_each(|record| s.record_divergence(record))
            })
            .await?;
        Ok(())
    }
}

/// Whether the walk's cursor `after` is before the index's `last` update (so an empty page
/// leaves updates without events).
fn first_or_more(after: &UpdatesAfter, last: At) -> bool {
    crate::model::format::parse_time_micros(&after.after_record_time)
        .is_some_and(|t| At::new(after.after_migration_id, t) < last)
}
