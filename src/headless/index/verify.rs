//! `index verify`: re-checks the stored updates against the scans now. Every range the index
//! covers (bounded by `--from`/`--until`) is walked page by page as a sync walks it: the
//! profile's scan and verifiers in rotation, a disagreement put to every scan, the version of
//! f + 1 (and `--verify`) scans taken ([`super::scans`]). Each stored digest is compared with
//! the one the scans agree on; updates the scans have that the index lacks, and the reverse,
//! are named too. What it found is recorded per range (shown by `index status`); a stored
//! update is never changed.

use std::collections::{BTreeSet, HashMap};

use super::sync::{connect, to_after};
use super::{
    Cancel, Digest, EXIT_DEGRADED, EXIT_INTERRUPTED, EXIT_OK, EXIT_SERVER, EXIT_USAGE, Halt,
    Location, PageWalk, Position, ProgressMode, Settings, SyncPlan, Syncer, UpdateItem,
    UpdatesPage, Value, VerifyArg, Write, cursor_at, describe, digest_hex, format_time_micros,
    json, now_micros, open, parse_time_micros, say, store_code, write_pretty,
};
use crate::model::page_walk::cursor_position;
use crate::store::{KeptDigest, covered};

/// Most updates each list of the report names (the counts are whole).
const MAX_LISTED: usize = 1_000;

/// What verifying one range found.
#[derive(Debug, Default)]
struct RangeCheck {
    /// Exclusive start (`None`: the ledger begin).
    after: Option<Position>,
    /// Inclusive end.
    through: Option<Position>,
    /// Stored updates compared.
    updates: u64,
    /// The scans that confirmed its pages.
    scans: BTreeSet<String>,
    mismatches: u64,
    missing: u64,
    extra: u64,
    /// Walked to its end (`false`: stopped, or the scans could not confirm its last pages).
    complete: bool,
}

/// The whole report's lists.
#[derive(Debug, Default)]
struct Found {
    /// Stored with another digest than the scans agree on.
    mismatches: Vec<Value>,
    /// The scans have them, the index does not.
    missing: Vec<Value>,
    /// The index has them, the scans do not.
    extra: Vec<Value>,
    /// Scans outvoted on an update (the quorum's version is the one compared).
    odd: Vec<Value>,
    /// The first disagreement with the index, for the message.
    first: Option<String>,
}

impl Found {
    fn push(list: &mut Vec<Value>, value: Value) {
        if list.len() < MAX_LISTED {
            list.push(value);
        }
    }
}

/// (migration, µs) of an item.
fn position_of(item: &UpdateItem) -> (i64, i64) {
    (
        item.migration_id().unwrap_or_default(),
        item.record_time()
            .and_then(parse_time_micros)
            .unwrap_or_default(),
    )
}

fn kept_json(kept: &KeptDigest) -> Value {
    json!({
        "update_id": kept.update_id,
        "migration_id": kept.migration_id,
        "record_time": format_time_micros(kept.record_time),
        "stored_digest": kept.digest,
    })
}

/// Runs `index verify`; returns the exit code.
#[allow(clippy::too_many_arguments)]
pub(super) async fn verify(
    location: Location,
    settings: &Settings,
    plan: &SyncPlan,
    from: Option<i64>,
    out: &mut dyn Write,
    err: &mut dyn Write,
    cancel: &Cancel,
) -> i32 {
    if settings.scan_url.is_none() {
        say(
            err,
            "no scan configured: give --scan-url (or $CANTONSCOPE_SCAN_URL, or scan_url in the \
             profile); its /v0/scans lists the scans to verify with",
        );
        return EXIT_USAGE;
    }
    // An index that exists; opened for writing only to record the verification.
    let store = match open(location.clone(), false, err).await {
        Ok(reader) => {
            drop(reader);
            open(location, true, err).await
        }
        Err(e) => Err(e),
    };
    let store = match store {
        Ok(store) => store,
        Err(e) => {
            say(err, &e.to_string());
            return store_code(&e);
        }
    };
    let ranges = match store.call(|s| s.chunks()).await {
        Ok(chunks) => covered(&chunks)
            .into_iter()
            .filter(|(after, through)| {
                let start = after
                    .as_ref()
                    .and_then(|p| parse_time_micros(&p.record_time));
                let end = parse_time_micros(&through.record_time).unwrap_or(i64::MAX);
                from.is_none_or(|f| end >= f)
                    && plan.until.is_none_or(|u| start.is_none_or(|s| s < u))
            })
            .collect::<Vec<_>>(),
        Err(e) => {
            say(err, &e.to_string());
            return store_code(&e);
        }
    };
    let (checks, found, halt, pages) = {
        let syncer = match connect(store.clone(), settings, plan, &mut *err, cancel).await {
            Ok(syncer) => syncer,
            Err(halt) => {
                let (code, message) = halt_code(&halt);
                say(err, &message);
                let report = json!({ "outcome": "failed", "exit_code": code, "error": message });
                if let Err(e) = write_pretty(out, &report) {
                    say(err, &e);
                }
                return code;
            }
        };
        let mut checks = Vec::new();
        let mut found = Found::default();
        let mut halt = None;
        for (i, (after, through)) in ranges.into_iter().enumerate() {
            let mut check = RangeCheck {
                after,
                through: Some(through),
                ..RangeCheck::default()
            };
            let result = syncer.verify_range(i, from, &mut check, &mut found).await;
            checks.push(check);
            if let Err(stop) = result {
                halt = Some(stop);
                break;
            }
        }
        if syncer.plan.progress == ProgressMode::Line {
            let _ = writeln!(syncer.err.borrow_mut());
        }
        syncer.keep_findings(crate::model::findings::FoundBy::IndexVerify);
        let pages = syncer.counters.borrow().pages;
        (checks, found, halt, pages)
    };
    // Recorded per range walked (a range never reached is not).
    let now = now_micros();
    let records: Vec<Value> = checks
        .iter()
        .filter(|c| c.updates > 0 || c.complete)
        .map(|c| {
            let mut record = range_json(c);
            if let Some(map) = record.as_object_mut() {
                map.insert("verified_at".to_owned(), json!(format_time_micros(now)));
                map.insert("verify".to_owned(), json!(plan.verify_label()));
            }
            record
        })
        .collect();
    if !records.is_empty()
        && let Err(e) = store.call(move |s| s.record_verification(&records)).await
    {
        say(
            err,
            &format!("warning: the verification is not recorded: {e}"),
        );
    }
    let differs =
        !(found.mismatches.is_empty() && found.missing.is_empty() && found.extra.is_empty());
    let (code, outcome) = match &halt {
        Some(halt) => {
            let (code, message) = halt_code(halt);
            say(err, &message);
            let outcome = match halt {
                Halt::Interrupted => "interrupted",
                Halt::Diverged(..) => "diverged",
                Halt::Failed(..) => "failed",
            };
            (code, outcome)
        }
        None if differs => {
            if let Some(first) = &found.first {
                say(err, first);
            }
            (EXIT_DEGRADED, "differs")
        }
        None => (EXIT_OK, "agree"),
    };
    let updates: u64 = checks.iter().map(|c| c.updates).sum();
    let report = json!({
        "outcome": outcome,
        "exit_code": code,
        "pages": pages,
        "updates_checked": updates,
        "ranges": checks.iter().map(range_json).collect::<Vec<_>>(),
        "mismatches": found.mismatches,
        "missing": found.missing,
        "extra": found.extra,
        "odd_scans": found.odd,
    });
    if let Err(e) = write_pretty(out, &report) {
        say(err, &e);
    }
    code
}

fn range_json(c: &RangeCheck) -> Value {
    json!({
        "after": c.after,
        "through": c.through,
        "updates_checked": c.updates,
        "scans": c.scans,
        "mismatches": c.mismatches,
        "missing": c.missing,
        "extra": c.extra,
        "complete": c.complete,
    })
}

/// The exit code and message of what stopped a verify.
fn halt_code(halt: &Halt) -> (i32, String) {
    match halt {
        Halt::Failed(code, message) => (*code, message.clone()),
        Halt::Interrupted => (EXIT_INTERRUPTED, "interrupted".to_owned()),
        Halt::Diverged(record, _) => (
            EXIT_DEGRADED,
            format!(
                "the scans disagree on update {} (migration {}, {}) and no version has the scans needed, so the index cannot be checked there (`cantonscope network check-update {}` shows each scan's answer); versions: {}",
                record.update_id,
                record.migration_id,
                record.record_time,
                record.update_id,
                record.detail["versions"]
            ),
        ),
    }
}

impl SyncPlan {
    /// `--verify` as given.
    fn verify_label(&self) -> String {
        match self.verify {
            VerifyArg::Scans(n) => n.to_string(),
            VerifyArg::Quorum => "quorum".to_owned(),
        }
    }
}

impl Syncer<'_> {
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
        let mut checked_to: Option<(i64, i64)> = begin.as_ref().map(|b| {
            let (m, t) = cursor_position(b);
            (m, t.unwrap_or(i64::MIN))
        });
        loop {
            if self.cancel.is_cancelled() {
                return Err(Halt::Interrupted);
            }
            if walk.is_done() {
                break;
            }
            let page_start = walk.cursor().map(|c| {
                let (m, t) = cursor_position(c);
                (m, t.unwrap_or(i64::MIN))
            });
            let Some((take, verified)) = self.next_page(&mut walk).await? else {
                continue;
            };
            let confirmed = verified.confirmed;
            if confirmed > 0 {
                let mut page = verified.body.page;
                page.transactions.truncate(confirmed);
                let keep = take.skip.min(confirmed)..confirmed;
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
                    let scans: Vec<String> = if self.needed == 1 {
                        vec![describe(&self.net, self.primary)]
                    } else {
                        verified
                            .confirmers
                            .iter()
                            .map(|s| describe(&self.net, *s))
                            .collect()
                    };
                    self.compare(
                        &page,
                        &verified.body.digests,
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
                            Found::push(
                                &mut found.odd,
                                json!({
                                    "update_id": item.update_id().unwrap_or_default(),
                                    "scan": describe(&self.net, *scan),
                                    "kept_by": scans,
                                }),
                            );
                        }
                    }
                    check.scans.extend(scans);
                    checked_to = Some(through);
                    if let Some(entry) = self.reach.borrow_mut().get_mut(&(id as i64)) {
                        entry.1 = through.1;
                    }
                }
                {
                    let mut counters = self.counters.borrow_mut();
                    counters.pages += 1;
                    counters.known += keep.len() as u64;
                }
                self.progress();
                walk.on_page(&page)
                    .map_err(|e| Halt::Failed(EXIT_SERVER, e))?;
            }
            if let Some(halt) = verified.halt {
                return Err(halt);
            }
            if confirmed == 0 {
                // The scans cannot confirm the rest of the range yet: not checked.
                return Ok(());
            }
        }
        // The scans have nothing more up to the range's end: what the index keeps there, they
        // do not serve.
        let tail_end = (through.migration_id, end);
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
        keep: std::ops::Range<usize>,
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
            let (migration_id, record_time) = position_of(item);
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
