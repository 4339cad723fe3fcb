//! A sync: the chunks an earlier sync left open resumed, then the range asked for walked (in
//! time chunks side by side for a `from` time), each page verified ([`super::scans`]) and
//! written as one transaction with its chunk's cursor, the bodies packed with the index's
//! dictionary (trained from the first pages when it has none).

use std::rc::Rc;

use futures_util::future::join_all;
use serde_json::json;

use super::scans::Confirmed;
use super::{Engine, FOLLOW_POLL, Failure, Halt, now_micros, to_after, to_position};
use crate::api::scan::{UpdateItem, UpdatesPage};
use crate::model::format::parse_time_micros;
use crate::model::index::pack::{
    DICTIONARIES_KEY, DICTIONARY_SAMPLES, Packing, body_sample, body_sample_naming_contracts,
    dictionaries_by_migration, dictionaries_text, dictionary_id, train_dictionary,
};
use crate::model::index::validators::page_facts;
use crate::model::index::{contract_keys, drop_aside, keys_of, rows_of};
use crate::model::page_walk::{PageWalk, cursor_at};
use crate::store::{Chunk, DivergenceRecord, IndexReader, PageWrite, Position, StoreError};

/// A page fetched (where it starts, what the scans confirmed of it).
type Fetched = (Option<Position>, Result<Option<Confirmed>, Halt>);

impl Engine<'_> {
    /// Runs the sync: the chunks an earlier sync left open, then the range of the plan (from
    /// where the index reaches when it names none).
    pub async fn sync(&self) -> Result<(), Halt> {
        let chunks = self.store.call(IndexReader::chunks).await?;
        // First the chunks an earlier sync left unfinished, side by side.
        let open: Vec<Chunk> = chunks.into_iter().filter(|c| c.state == "open").collect();
        self.walk_chunks(open).await?;
        // Then the range asked for.
        let start: Option<Position> = match self.plan.from.as_deref() {
            Some("begin") => None,
            Some(time) => {
                let micros = parse_time_micros(time).ok_or_else(|| {
                    Halt::Failed(Failure::Usage(format!("--from is not a time: {time}")))
                })?;
                return self.walk_range(micros).await;
            }
            None => {
                let chunks = self.store.call(IndexReader::chunks).await?;
                let newest = chunks
                    .into_iter()
                    .filter(|c| c.cursor.is_some())
                    .max_by_key(|c| c.cursor.as_ref().map(Position::order));
                match newest {
                    // The chunk that reached the head goes on from its last committed page,
                    // read again (a history rewritten under the index is seen there).
                    Some(chunk) if chunk.end_before.is_none() => {
                        let id = chunk.id;
                        self.store
                            .call(move |s| s.set_chunk_state(id, "open", now_micros()))
                            .await?;
                        return self.walk_chunk(chunk).await;
                    }
                    Some(chunk) => chunk.cursor,
                    None => None,
                }
            }
        };
        let end_before = self.plan.until.map(|u| u.saturating_add(1));
        let verify = self.needed as i64;
        let chunk = self
            .store
            .call(move |s| s.start_chunk(start, end_before, verify, now_micros()))
            .await?;
        self.walk_chunk(chunk).await
    }

    /// Walks the range from `from` (µs) to `--until` (or the head) in `--chunks` time chunks
    /// side by side, each from the cursor at its start time.
    async fn walk_range(&self, from: i64) -> Result<(), Halt> {
        let end = self.plan.until.unwrap_or_else(now_micros);
        self.end.set(Some(end));
        let parts = i64::try_from(self.plan.chunks.max(1)).unwrap_or(1);
        // Ranges shorter than an hour are one chunk.
        let parts = if end - from < 3_600_000_000 { 1 } else { parts };
        let step = (end - from) / parts;
        let verify = self.needed as i64;
        let mut chunks = Vec::new();
        for i in 0..parts {
            let start_time = from + i * step;
            // The migration whose first update is the newest at or before the start time.
            let at = crate::every_scan::sweep::start_at(&self.net, self.primary, start_time)
                .await
                .map_err(|e| {
                    Halt::Failed(Failure::Server(format!("cannot find where --from is: {e}")))
                })?;
            let start = Some(to_position(&cursor_at(at.migration_id, start_time)));
            let end_before = if i + 1 < parts {
                Some(from + (i + 1) * step)
            } else {
                self.plan.until.map(|u| u.saturating_add(1))
            };
            let chunk = self
                .store
                .call(move |s| s.start_chunk(start, end_before, verify, now_micros()))
                .await?;
            chunks.push(chunk);
        }
        self.walk_chunks(chunks).await
    }

    /// Walks `chunks` side by side, each to its end or to what stops it (a divergence stops
    /// only its own chunk: the others go on, so everything the scans agree on before it is
    /// kept); the sync then ends with the earliest chunk's stop. What each committed stays, and
    /// an unfinished chunk is resumed by the next sync.
    async fn walk_chunks(&self, chunks: Vec<Chunk>) -> Result<(), Halt> {
        join_all(chunks.into_iter().map(|c| self.walk_chunk(c)))
            .await
            .into_iter()
            .collect::<Result<Vec<()>, Halt>>()
            .map(|_| ())
    }

    async fn walk_chunk(&self, chunk: Chunk) -> Result<(), Halt> {
        // Resume by re-reading the last committed page; a new chunk starts at its start.
        let from_time = if chunk.page_start.is_none() {
            chunk
                .start
                .as_ref()
                .and_then(|p| parse_time_micros(&p.record_time))
                .map(|t| t + 1)
        } else {
            None
        };
        let begin = chunk
            .page_start
            .as_ref()
            .or(chunk.start.as_ref())
            .map(to_after);
        let until = chunk.end_before.map(|e| e - 1);
        let mut walk = PageWalk::new(begin, until, self.plan.page_size);
        if let Some(t) = from_time {
            walk = walk.from_time(t);
        }
        let follow = self.plan.follow && chunk.end_before.is_none();
        // Tries since the scans went away (a following sync waits for them).
        let mut tries = 0;
        // A following sync keeps the new updates' events at the head, after each round that
        // wrote updates (and again while some are past the scans' verdict-ingestion head).
        let mut events_due = follow && self.plan.events == super::EventsMode::Keep;
        // The next page, fetched while the one before it was written (and where it starts).
        let mut ahead: Option<Fetched> = None;
        // A following walk at the head (since its last full page): its first verifier is asked
        // after the profile's scan answers, not beside it ([`Engine::next_page`]).
        let mut at_head = false;
        loop {
            if self.cancel.is_cancelled() {
                return Err(Halt::Interrupted);
            }
            if ahead.is_none() && walk.is_done() {
                if !follow {
                    break;
                }
                if events_due {
                    events_due = self.follow_events().await?;
                }
                tokio::select! {
                    () = tokio::time::sleep(FOLLOW_POLL) => {}
                    () = self.cancel.cancelled() => return Err(Halt::Interrupted),
                }
                walk = PageWalk::new(walk.cursor().cloned(), None, self.plan.page_size);
                at_head = true;
                continue;
            }
            let (page_start, fetched) = match ahead.take() {
                Some(fetched) => fetched,
                None => (
                    walk.cursor().map(to_position),
                    self.next_page(&mut walk, !at_head).await,
                ),
            };
            let confirmed = match fetched {
                Ok(confirmed) => confirmed,
                Err(halt) => {
                    self.wait_for_scans(halt, &mut tries).await?;
                    continue;
                }
            };
            let Some(confirmed) = confirmed else {
                self.scans_back(&mut tries);
                continue;
            };
            let any = !confirmed.page.transactions.is_empty();
            if confirmed.page.transactions.len()
                >= usize::try_from(self.plan.page_size).unwrap_or(0)
            {
                at_head = false;
            }
            if any {
                events_due |= follow && self.plan.events == super::EventsMode::Keep;
                // The cursor moves on before the page is written (the write does not read it),
                // so that the next page is fetched, decoded and verified while this one is
                // written; a page the scans stopped on is written alone, and nothing is
                // fetched ahead of a write that fails (its error ends the walk).
                let moved = walk
                    .on_page(&confirmed.page)
                    .map_err(|e| Halt::Failed(Failure::Server(e)));
                if let Err(halt) = moved {
                    self.write(&chunk, &confirmed, page_start).await?;
                    return Err(halt);
                }
                if confirmed.halt.is_none() && !walk.is_done() && !self.cancel.is_cancelled() {
                    let next_start = walk.cursor().map(to_position);
                    let (written, next) = futures_util::future::join(
                        self.write(&chunk, &confirmed, page_start),
                        self.next_page(&mut walk, !at_head),
                    )
                    .await;
                    written?;
                    ahead = Some((next_start, next));
                } else {
                    self.write(&chunk, &confirmed, page_start).await?;
                }
            }
            let Confirmed { page, halt, .. } = confirmed;
            drop_aside(page);
            if let Some(halt) = halt {
                if !any && super::outage::scans_away(&halt).is_some() {
                    // Nothing confirmed (too few scans answer): a following sync waits.
                    self.wait_for_scans(halt, &mut tries).await?;
                    continue;
                }
                if let Halt::Diverged(record, _) = &halt {
                    let kept = (**record).clone();
                    self.store.call(move |s| s.record_divergence(&kept)).await?;
                }
                return Err(halt);
            }
            self.scans_back(&mut tries);
            if !any {
                // Nothing the other scans can confirm yet: the verified head (an empty page
                // ends the walk where it is).
                let _ = walk.on_page(&UpdatesPage {
                    transactions: Vec::new(),
                });
            }
        }
        let id = chunk.id;
        self.store
            .call(move |s| s.set_chunk_state(id, "done", now_micros()))
            .await?;
        Ok(())
    }

    /// How the bodies of `items` (of one network migration: its first item's) are packed:
    /// with that migration's dictionary ([`DICTIONARIES_KEY`], read once), else with one
    /// trained from the migration's bodies of this page and those written before it once they
    /// are [`DICTIONARY_SAMPLES`] (small pages: a `--follow` at the head) and kept in the
    /// index, else, for this page only, with the index's newest dictionary (an earlier
    /// migration's, or one an older build trained on bodies as served) or without one.
    async fn packing(&self, items: &[UpdateItem]) -> Result<Rc<Packing>, Halt> {
        let migration = items
            .iter()
            .find_map(UpdateItem::migration_id)
            .unwrap_or_default();
        if let Some(packing) = self.packing.borrow().get(&migration) {
            return Ok(Rc::clone(packing));
        }
        let _training = self.training.lock().await;
        // Another chunk may have made it while this one waited.
        if let Some(packing) = self.packing.borrow().get(&migration) {
            return Ok(Rc::clone(packing));
        }
        // A migration still gathering its bodies keeps what it is packed with meanwhile, so a
        // page reads no dictionary from the index until it trains its own.
        let meanwhile = self.meanwhile.borrow().get(&migration).cloned();
        let (own, newest) = match meanwhile {
            Some(_) => (None, None),
            None => {
                self.store
                    .call(move |s| {
                        let kept =
                            dictionaries_by_migration(s.meta_get(DICTIONARIES_KEY)?.as_deref());
                        let own = match kept.get(&migration) {
                            Some(id) => s.body_dictionary_of(*id)?,
                            None => None,
                        };
                        let newest = match own {
                            Some(_) => None,
                            None => s.body_dictionary()?,
                        };
                        Ok((own, newest))
                    })
                    .await?
            }
        };
        let names_contracts = self.store.call(|s| Ok(s.names_contracts())).await?;
        let samples = own.is_none().then(|| {
            let mut samples = self.samples.borrow_mut();
            let samples = samples.entry(migration).or_default();
            samples.extend(items.iter().map(|i| {
                let (raw, id) = (i.raw().get(), i.update_id().unwrap_or_default());
                if names_contracts {
                    let keys = keys_of(i);
                    body_sample_naming_contracts(raw, id, &contract_keys(&keys))
                } else {
                    body_sample(raw, id)
                }
            }));
            (samples.len() >= DICTIONARY_SAMPLES).then(|| std::mem::take(samples))
        });
        // Trained on a blocking thread, so that the next page is fetched meanwhile.
        let trained = match samples {
            Some(Some(samples)) => {
                super::blocking(move || Ok(train_dictionary(samples.iter().map(String::as_str))))
                    .await?
            }
            _ => None,
        };
        let trained = match trained.and_then(|t| dictionary_id(&t).map(|id| (t, id))) {
            // Packed with what the index keeps (read back), so every body names a dictionary
            // the index has, whatever it made of this one.
            Some((trained, id)) => {
                self.store
                    .call(move |s| {
                        s.add_body_dictionary(&trained, now_micros())?;
                        let mut kept =
                            dictionaries_by_migration(s.meta_get(DICTIONARIES_KEY)?.as_deref());
                        kept.insert(migration, id);
                        s.meta_set(DICTIONARIES_KEY, &dictionaries_text(&kept))?;
                        s.body_dictionary_of(id)
                    })
                    .await?
            }
            None => None,
        };
        let settled = own.is_some() || trained.is_some();
        if let (false, Some(meanwhile)) = (settled, meanwhile) {
            return Ok(meanwhile);
        }
        let packing = match own.or(trained).or(newest) {
            None => Rc::new(Packing::plain().naming_contracts(names_contracts)),
            Some(dictionary) => match Packing::with_dictionary(&dictionary) {
                Ok(packing) => Rc::new(packing.naming_contracts(names_contracts)),
                Err(detail) => {
                    let path = self.store.call(|s| Ok(s.shown())).await?;
                    return Err(StoreError::Corrupt { path, detail }.into());
                }
            },
        };
        if settled {
            self.meanwhile.borrow_mut().remove(&migration);
            self.packing
                .borrow_mut()
                .insert(migration, Rc::clone(&packing));
        } else {
            self.meanwhile
                .borrow_mut()
                .insert(migration, Rc::clone(&packing));
        }
        Ok(packing)
    }

    /// Writes the confirmed items `keep` of the page as one transaction with the chunk's cursor.
    async fn write(
        &self,
        chunk: &Chunk,
        confirmed: &Confirmed,
        page_start: Option<Position>,
    ) -> Result<(), Halt> {
        let Confirmed {
            page,
            digests,
            keep,
            confirmers,
            odd,
            kept_by,
            ..
        } = confirmed;
        let keep = keep.clone();
        let Some(last) = page.transactions.last() else {
            return Ok(());
        };
        let cursor = Position {
            migration_id: last.migration_id().unwrap_or_default(),
            record_time: last.record_time().unwrap_or_default().to_owned(),
        };
        // On every core: summaries, keys and packed bodies, each network migration's bodies
        // with its dictionary (a page holds one migration but where the network migrated).
        let (items, item_digests) = (&page.transactions[keep.clone()], &digests[keep.clone()]);
        let mut rows = Vec::with_capacity(items.len());
        let mut run_start = 0;
        while run_start < items.len() {
            let migration = items[run_start].migration_id();
            let run_end = items[run_start..]
                .iter()
                .position(|i| i.migration_id() != migration)
                .map_or(items.len(), |n| run_start + n);
            let run = run_start..run_end;
            let packing = if self.plan.bodies {
                Some(self.packing(&items[run.clone()]).await?)
            } else {
                None
            };
            rows.extend(
                rows_of(&items[run.clone()], &item_digests[run], packing.as_deref())
                    .map_err(|e| Halt::Failed(Failure::Decode(e)))?,
            );
            run_start = run_end;
        }
        // What the items tell of the validators, from the items decoded here (the writer then
        // reads no body back).
        let facts = page_facts(
            &page.transactions[keep.clone()],
            &digests[keep.clone()],
            self.plan.bodies,
        );
        if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
            let start = chunk
                .start
                .as_ref()
                .and_then(|p| parse_time_micros(&p.record_time))
                .unwrap_or(first.record_time);
            let mut reach = self.reach.borrow_mut();
            let entry = reach.entry(chunk.id).or_insert((start, start));
            entry.1 = last.record_time;
        }
        // A scan odd anywhere in the chunk is none of its confirming scans.
        let odd_here: Vec<String> = {
            let mut seen = self.odd_in_chunk.borrow_mut();
            let seen = seen.entry(chunk.id).or_default();
            for (position, scan) in odd {
                if keep.contains(position) {
                    seen.insert(self.describe(*scan));
                }
            }
            seen.iter().cloned().collect()
        };
        let scans: Vec<String> = self
            .confirmed_by(confirmers)
            .into_iter()
            .filter(|s| !odd_here.contains(s))
            .collect();
        let write = PageWrite::new(rows, page_start, cursor, scans).without(odd_here);
        let id = chunk.id;
        let written = self
            .store
            .call(move |s| {
                let written = s.write_page(id, &write);
                drop_aside(write);
                // The validators the page's updates tell of, counted now (one short read of
                // the seqs just written).
                let written = written?;
                crate::store::validators::build_page(s, written.inserted, &facts)?;
                drop_aside(facts);
                Ok(written)
            })
            .await?;
        {
            let mut counters = self.counters.borrow_mut();
            counters.pages += 1;
            counters.inserted += written.inserted;
            counters.known += written.known;
        }
        // Odd scans: f + 1 (and N) scans kept another version than theirs; one record an
        // update, naming every odd scan and every scan known to hold the version kept.
        for (position, holders) in kept_by.iter().filter(|(p, _)| keep.contains(p)) {
            let Some(item) = page.transactions.get(*position) else {
                continue;
            };
            let update_id = item.update_id().unwrap_or_default().to_owned();
            let holders = self.names(holders);
            let mut names = Vec::new();
            for (_, scan) in odd.iter().filter(|(p, _)| p == position) {
                self.counters.borrow_mut().odd += 1;
                let name = self.describe(*scan);
                self.say(&format!(
                    "warning: {name} has another version of update {update_id}; {} scans agree on the one kept",
                    holders.len()
                ));
                self.note_diverged(
                    *scan,
                    item,
                    format!(
                        "has another version of update {update_id} than the {} scans that agree on the one the index keeps",
                        holders.len()
                    ),
                );
                names.push(name);
            }
            let record = DivergenceRecord {
                update_id,
                migration_id: item.migration_id().unwrap_or_default(),
                record_time: item.record_time().unwrap_or_default().to_owned(),
                found_at: now_micros(),
                resolved: true,
                detail: json!({ "odd_scans": names, "kept_by": holders }),
            };
            self.store
                .call(move |s| s.record_divergence(&record))
                .await?;
        }
        // Updates the scans disagreed on before and agree on now (one store call a page: a
        // call per update cost a blocking-thread hand-off and a statement each).
        let ids: Vec<String> = page.transactions[keep]
            .iter()
            .filter_map(|item| item.update_id().map(str::to_owned))
            .collect();
        self.store
            .call(move |s| s.resolve_divergences(&ids))
            .await?;
        self.progress();
        Ok(())
    }
}
