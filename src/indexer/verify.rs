//! A verify: the stored updates re-checked against the scans now. Every range given is walked
//! page by page as a sync walks it ([`super::scans`]); each stored digest is compared with the
//! one the scans agree on; updates the scans have that the index lacks, and the reverse, are
//! named too. A stored update is never changed.

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

use serde_json::{Value, json};

use super::{Engine, Failure, Halt, to_after};
use crate::api::scan::{UpdateItem, UpdatesAfter, UpdatesPage};
use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::index::{Digest, digest_hex};
use crate::model::page_walk::{PageWalk, cursor_at, cursor_position};
use crate::store::{At, KeptDigest, Position};

/// Most updates each list of the report names (the counts are whole).
const MAX_LISTED: usize = 1_000;

/// What verifying one range found.
#[derive(Debug, Default)]
pub struct RangeCheck {
    /// Exclusive start (`None`: the ledger begin).
    pub after: Option<Position>,
    /// Inclusive end.
    pub through: Option<Position>,
    /// Stored updates compared.
    pub updates: u64,
    /// The scans that confirmed its pages, less those odd in it.
    pub scans: BTreeSet<String>,
    /// The scans that served another version of one of its updates than the one kept.
    pub odd_scans: BTreeSet<String>,
    pub mismatches: u64,
    pub missing: u64,
    pub extra: u64,
    /// Stored updates of it that no version held by the scans needed confirms yet (the scans
    /// lag behind the index there): not compared.
    pub unchecked: u64,
    /// Every stored update of it (within --from/--until) was compared with the version the
    /// scans agree on: walked to its end, nothing left unchecked (`false`: stopped by a
    /// divergence or an interruption, or `unchecked` updates).
    pub complete: bool,
}

/// The whole report's lists.
#[derive(Debug, Default)]
pub struct Found {
    /// Stored with another digest than the scans agree on.
    pub mismatches: Vec<Value>,
    /// The scans have them, the index does not.
    pub missing: Vec<Value>,
    /// The index has them, the scans do not.
    pub extra: Vec<Value>,
    /// Scans outvoted on an update (the quorum's version is the one compared).
    pub odd: Vec<Value>,
    /// The first disagreement with the index, for the message.
    pub first: Option<String>,
}

impl Found {
    fn push(list: &mut Vec<Value>, value: Value) {
        if list.len() < MAX_LISTED {
            list.push(value);
        }
    }
}

/// Where an item is.
fn position_of(item: &UpdateItem) -> At {
    At::new(
        item.migration_id().unwrap_or_default(),
        item.record_time()
            .and_then(parse_time_micros)
            .unwrap_or_default(),
    )
}

/// Where a walk's cursor is (its start: before every update of its record time).
fn at_cursor(cursor: &UpdatesAfter) -> At {
    let (m, t) = cursor_position(cursor);
    At::new(m, t.unwrap_or(i64::MIN))
}

fn kept_json(kept: &KeptDigest) -> Value {
    json!({
        "update_id": kept.update_id,
        "migration_id": kept.migration_id,
        "record_time": format_time_micros(kept.record_time),
        "stored_digest": kept.digest,
    })
}

impl RangeCheck {
    /// The range's part of the report.
    pub fn to_json(&self) -> Value {
        json!({
            "after": self.after,
            "through": self.through,
            "updates_checked": self.updates,
            "scans": self.scans,
            "odd_scans": self.odd_scans,
            "mismatches": self.mismatches,
            "missing": self.missing,
            "extra": self.extra,
            "unchecked": self.unchecked,
            "complete": self.complete,
        })
    }
}

impl Engine<'_> {
    /// Verifies `ranges` (each after its start, exclusive, through its end, inclusive: the
    /// ranges the index covers) from `from` (µs) to the plan's `until`, in order, up to what
    /// stops it: what each range walked found, the report's lists, and the stop.
    pub async fn verify(
        &self,
        ranges: Vec<(Option<Position>, Position)>,
        from: Option<i64>,
    ) -> (Vec<RangeCheck>, Found, Option<Halt>) {
        let mut checks = Vec::new();
        let mut found = Found::default();
        let mut halt = None;
        for (i, (after, through)) in ranges.into_iter().enumerate() {
            let mut check = RangeCheck {
                after,
                through: Some(through),
                ..RangeCheck::default()
            };
            let result = self.verify_range(i, from, &mut check, &mut found).await;
            checks.push(check);
            if let Err(stop) = result {
                halt = Some(stop);
                break;
            }
        }
        (checks, found, halt)
    }

    /// Walks one covered range and compares every stored update of it with the scans'.
    async fn verify_range(
        &self,
        id: usize,
        from: Option<i64>,
        check: &mut RangeCheck,
        found: &mut Found,
    ) -> Result<(), Halt> {
        let Some(through) = check.through.clone() else {
            return Ok(());
        };
        let reach = parse_time_micros(&through.record_time).unwrap_or(i64::MAX);
        let end = self.plan.until.map_or(reach, |u| u.min(reach));
        let start = check
            .after
            .as_ref()
            .and_then(|p| parse_time_micros(&p.record_time));
        // From --from when it is inside the range: straight there.
        let begin = match (&check.after, from) {
            (Some(after), Some(f)) if start.is_some_and(|s| s < f) => {
                Some(cursor_at(after.migration_id, f))
            }
            (after, _) => after.as_ref().map(to_after),
        };
        let mut walk = PageWalk::new(begin.clone(), Some(end), self.plan.page_size);
        if let Some(f) = from {
            walk = walk.from_time(f);
        }
        let walk_start = start.max(from).unwrap_or(0);
        self.reach
            .borrow_mut()
            .insert(id as i64, (walk_start, walk_start));
        let end_now = self.end.get().map_or(end, |e| e.max(end));
        self.end.set(Some(end_now));
        // Everything stored after this has not been compared yet.
        let mut checked_to: Option<At> = begin.as_ref().map(at_cursor);
        loop {
            if self.cancel.is_cancelled() {
                return Err(Halt::Interrupted);
            }
            if walk.is_done() {
                break;
            }
            let page_start = walk.cursor().map(at_cursor);
            let Some(verified) = self.next_page(&mut walk, true).await? else {
                continue;
            };
            let confirmed = verified.page.transactions.len();
            if confirmed > 0 {
                let page = &verified.page;
                let keep = verified.keep.clone();
                let lower = match keep.start.checked_sub(1) {
                    Some(before) => page.transactions.get(before).map(position_of),
                    None => page_start,
                };
                let through = page.transactions.last().map(position_of);
                if let Some(through) = through {
                    let stored = self
                        .store
                        .call(move |s| s.kept_digests(lower, through))
                        .await?;
                    let scans = self.confirmed_by(&verified.confirmers);
                    self.compare(
                        page,
                        &verified.digests,
                        keep.clone(),
                        stored,
                        &scans,
                        check,
                        found,
                    );
                    for (position, scan) in verified.odd.iter().filter(|(p, _)| keep.contains(p)) {
                        if let Some(item) = page.transactions.get(*position) {
                            self.note_diverged(
                                *scan,
                                item,
                                format!(
                                    "serves update {} differently from the scans that agree with the index",
                                    item.update_id().unwrap_or_default()
                                ),
                            );
                            let holders = verified
                                .kept_by
                                .iter()
                                .find(|(p, _)| p == position)
                                .map(|(_, holders)| self.names(holders))
                                .unwrap_or_default();
                            let name = self.describe(*scan);
                            Found::push(
                                &mut found.odd,
                                json!({
                                    "update_id": item.update_id().unwrap_or_default(),
                                    "scan": name,
                                    "kept_by": holders,
                                }),
                            );
                            check.odd_scans.insert(name);
                        }
                    }
                    // A scan odd anywhere in the range is none of its confirming scans.
                    check.scans.extend(scans);
                    let odd = &check.odd_scans;
                    check.scans.retain(|s| !odd.contains(s));
                    checked_to = Some(through);
                    if let Some(entry) = self.reach.borrow_mut().get_mut(&(id as i64)) {
                        entry.1 = through.record_time;
                    }
                }
                {
                    let mut counters = self.counters.borrow_mut();
                    counters.pages += 1;
                    counters.known += keep.len() as u64;
                }
                self.progress();
                walk.on_page(page)
                    .map_err(|e| Halt::Failed(Failure::Server(e)))?;
            }
            if let Some(halt) = verified.halt {
                return Err(halt);
            }
            if confirmed == 0 {
                // The scans cannot confirm the rest of the range yet: what the index keeps
                // there is not checked (and the range not complete when there is some).
                let tail_end = At::new(through.migration_id, end);
                let stored = self
                    .store
                    .call(move |s| s.kept_digests(checked_to, tail_end))
                    .await?;
                check.unchecked = stored
                    .iter()
                    .filter(|k| from.is_none_or(|f| k.record_time >= f))
                    .count() as u64;
                check.complete = check.unchecked == 0;
                return Ok(());
            }
        }
        // The scans have nothing more up to the range's end: what the index keeps there, they
        // do not serve.
        let tail_end = At::new(through.migration_id, end);
        if checked_to.is_none_or(|c| c < tail_end) {
            let stored = self
                .store
                .call(move |s| s.kept_digests(checked_to, tail_end))
                .await?;
            let stored: Vec<KeptDigest> = stored
                .into_iter()
                .filter(|k| from.is_none_or(|f| k.record_time >= f))
                .collect();
            for kept in &stored {
                self.extra(kept, check, found);
            }
            check.updates += stored.len() as u64;
        }
        check.complete = true;
        Ok(())
    }

    /// Compares the confirmed items `keep` of `page` with what the index keeps in the same
    /// stretch of the history (`stored`).
    #[allow(clippy::too_many_arguments)]
    fn compare(
        &self,
        page: &UpdatesPage,
        digests: &[Digest],
        keep: Range<usize>,
        stored: Vec<KeptDigest>,
        scans: &[String],
        check: &mut RangeCheck,
        found: &mut Found,
    ) {
        check.updates += stored.len() as u64;
        let mut kept: HashMap<String, KeptDigest> = stored
            .into_iter()
            .map(|k| (k.update_id.clone(), k))
            .collect();
        for (item, digest) in page.transactions[keep.clone()].iter().zip(&digests[keep]) {
            let update_id = item.update_id().unwrap_or_default();
            let agreed = digest_hex(digest);
            let At {
                migration_id,
                record_time,
            } = position_of(item);
            match kept.remove(update_id) {
                Some(stored) if stored.digest == agreed => {}
                Some(stored) => {
                    check.mismatches += 1;
                    found.first.get_or_insert_with(|| {
                        format!(
                            "update {update_id} (migration {migration_id}, {}) differs: the index keeps digest {}, {} agree on {agreed}",
                            format_time_micros(record_time),
                            stored.digest,
                            scans.join(" + ")
                        )
                    });
                    Found::push(
                        &mut found.mismatches,
                        json!({
                            "update_id": update_id,
                            "migration_id": migration_id,
                            "record_time": format_time_micros(record_time),
                            "stored_digest": stored.digest,
                            "agreed_digest": agreed,
                            "scans": scans,
                        }),
                    );
                }
                None => {
                    check.missing += 1;
                    found.first.get_or_insert_with(|| {
                        format!(
                            "update {update_id} (migration {migration_id}, {}) is missing from the index: {} serve it",
                            format_time_micros(record_time),
                            scans.join(" + ")
                        )
                    });
                    Found::push(
                        &mut found.missing,
                        json!({
                            "update_id": update_id,
                            "migration_id": migration_id,
                            "record_time": format_time_micros(record_time),
                            "agreed_digest": agreed,
                            "scans": scans,
                        }),
                    );
                }
            }
        }
        let mut rest: Vec<KeptDigest> = kept.into_values().collect();
        rest.sort_by_key(|k| (k.migration_id, k.record_time));
        for kept in &rest {
            self.extra(kept, check, found);
        }
    }

    /// An update the index keeps that the scans do not serve.
    fn extra(&self, kept: &KeptDigest, check: &mut RangeCheck, found: &mut Found) {
        check.extra += 1;
        found.first.get_or_insert_with(|| {
            format!(
                "update {} (migration {}, {}) is in the index but the scans do not serve it",
                kept.update_id,
                kept.migration_id,
                format_time_micros(kept.record_time)
            )
        });
        Found::push(&mut found.extra, kept_json(kept));
    }
}
