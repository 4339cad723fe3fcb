//! `index sync`: walks `/v2/updates` into the index, chunk by chunk, each page verified by
//! `--verify N` scans before it is written (see [`super::scans`]).

use super::{
    ApiClient, ApiConfig, AtomicBool, BEAT_EVERY, BTreeMap, Cancel, Cell, Chunk, Digest,
    DivergenceRecord, Duration, EXIT_DECODE, EXIT_DEGRADED, EXIT_INTERRUPTED, EXIT_NO_QUORUM,
    EXIT_OK, EXIT_SERVER, EXIT_USAGE, FOLLOW_POLL, Heartbeat, Instant, ListSource, Location,
    Network, NetworkId, Ordering, PageWalk, PageWrite, Position, RefCell, ScanBudget, Settings,
    Store, StoreError, UpdatesAfter, UpdatesPage, Value, VerifyArg, Write, api_config,
    counters_json, cursor_at, describe, discover, drop_aside, format_time_micros, host_name,
    join_all, json, now_micros, open_locked, parse_time_micros, quorum, rows_of, say, scan,
    store_code, write_pretty,
};
use crate::api::scan::UpdateItem;
use crate::model::index::pack::{DICTIONARY_SAMPLES, Packing, train_dictionary};
use std::rc::Rc;

// ---------------------------------------------------------------------------------------------
// sync
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ProgressMode {
    Quiet,
    Line,
    Json,
}

/// What `index sync` was asked.
#[derive(Debug, Clone)]
pub(super) struct SyncPlan {
    /// `begin` or an RFC 3339 time.
    pub(super) from: Option<String>,
    /// Inclusive, µs.
    pub(super) until: Option<i64>,
    pub(super) follow: bool,
    pub(super) verify: VerifyArg,
    pub(super) bodies: bool,
    pub(super) progress: ProgressMode,
    pub(super) page_size: i32,
    pub(super) rate: f64,
    pub(super) timeout: Duration,
    /// Time chunks a `--from TIME` range is walked in, side by side.
    pub(super) chunks: usize,
}

/// Why a sync stopped before its end.
#[derive(Debug)]
pub(super) enum Halt {
    /// Exit code and message.
    Failed(i32, String),
    /// Scans disagree: the record (written) and the message.
    Diverged(Box<DivergenceRecord>, String),
    Interrupted,
}

impl From<StoreError> for Halt {
    fn from(e: StoreError) -> Self {
        Halt::Failed(store_code(&e), e.to_string())
    }
}

/// The running sync's counters.
#[derive(Debug, Default)]
pub(super) struct Counters {
    pub(super) pages: u64,
    pub(super) inserted: u64,
    pub(super) known: u64,
    pub(super) odd: u64,
    /// Updates the profile's scan had that no other scan could confirm yet (at the head).
    pub(super) unconfirmed: u64,
}

/// Everything one sync works with.
pub(super) struct Syncer<'a> {
    pub(super) net: Network,
    pub(super) primary: usize,
    pub(super) store: Store,
    pub(super) plan: &'a SyncPlan,
    pub(super) needed: usize,
    pub(super) threshold: usize,
    /// Where the verifiers of the next page start.
    pub(super) rotation: Cell<usize>,
    pub(super) counters: RefCell<Counters>,
    pub(super) started: Instant,
    /// Per chunk walked: the record times (µs) it started at and has reached, for the share
    /// of the range done.
    pub(super) reach: RefCell<BTreeMap<i64, (i64, i64)>>,
    /// The end of the range (µs), for the share.
    pub(super) end: Cell<Option<i64>>,
    /// Chunks walk concurrently on this one task: every borrow of these cells is short and
    /// never held across an `.await`.
    pub(super) err: RefCell<&'a mut dyn Write>,
    pub(super) cancel: &'a Cancel,
    /// How bodies are packed, once the index's dictionary is known.
    pub(super) packing: RefCell<Option<Rc<Packing>>>,
    /// Until the index has a dictionary: the bodies written so far, to train it from.
    pub(super) samples: RefCell<Vec<String>>,
    /// Held while a chunk reads, trains or keeps the dictionary, so chunks walking side by
    /// side train one, not one each.
    pub(super) training: tokio::sync::Mutex<()>,
    /// Scans found serving an update differently (diverged history), for the network's
    /// findings ([`Syncer::keep_findings`]).
    pub(super) findings: RefCell<Vec<crate::model::findings::FindingOp>>,
    /// Where the network's findings are kept (`None`: nowhere).
    pub(super) findings_path: Option<std::path::PathBuf>,
}

#[allow(clippy::too_many_arguments)]
pub(super) async fn sync(
    location: Location,
    settings: &Settings,
    plan: &SyncPlan,
    out: &mut dyn Write,
    err: &mut dyn Write,
    cancel: &Cancel,
    terminated: &AtomicBool,
) -> i32 {
    if settings.scan_url.is_none() {
        say(
            err,
            "no scan configured: give --scan-url (or $CANTONSCOPE_SCAN_URL, or scan_url in the \
             profile); the index takes its bodies from it and its /v0/scans lists the verifiers",
        );
        return EXIT_USAGE;
    }
    let started_at = now_micros();
    let holder = format!(
        "pid {} on {} since {} (cantonscope index sync)",
        std::process::id(),
        host_name(),
        format_time_micros(started_at)
    );
    let (store, _lock) = match open_locked(location, holder, false, err).await {
        Ok(opened) => opened,
        Err(e) => {
            say(err, &e.to_string());
            return store_code(&e);
        }
    };
    let heartbeat = Heartbeat {
        pid: i64::from(std::process::id()),
        host: host_name(),
        started_at,
        beat_at: started_at,
        command: "index sync".to_owned(),
    };
    if let Err(e) = store
        .call({
            let h = heartbeat.clone();
            move |s| s.beat(&h)
        })
        .await
    {
        say(err, &e.to_string());
        return store_code(&e);
    }
    let beating = {
        let store = store.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(BEAT_EVERY).await;
                let pid = heartbeat.pid;
                let _ = store.call(move |s| s.refresh_beat(pid, now_micros())).await;
            }
        })
    };
    let result = sync_inner(store.clone(), settings, plan, err, cancel).await;
    beating.abort();
    let (code, outcome, extra) = match &result {
        Ok(counters) => (
            EXIT_OK,
            "done",
            json!({ "counters": counters_json(counters) }),
        ),
        Err((Halt::Interrupted, counters)) => {
            // SIGTERM ends a --follow sync (a service, a tmux pane closing) as planned.
            let (code, outcome) = if terminated.load(Ordering::SeqCst) && plan.follow {
                (EXIT_OK, "stopped")
            } else {
                (EXIT_INTERRUPTED, "interrupted")
            };
            (
                code,
                outcome,
                json!({ "counters": counters_json(counters) }),
            )
        }
        Err((Halt::Diverged(record, message), counters)) => {
            say(err, message);
            (
                EXIT_DEGRADED,
                "diverged",
                json!({
                    "counters": counters_json(counters),
                    "divergence": serde_json::to_value(record.as_ref()).unwrap_or(Value::Null),
                }),
            )
        }
        Err((Halt::Failed(code, message), counters)) => {
            say(err, message);
            (
                *code,
                "failed",
                json!({ "counters": counters_json(counters), "error": message }),
            )
        }
    };
    let ended = now_micros();
    if let Err(e) = store
        .call(move |s| s.end_sync(started_at, ended, outcome))
        .await
    {
        say(err, &format!("warning: {e}"));
    }
    let mut result = json!({ "outcome": outcome, "exit_code": code });
    if let (Some(map), Value::Object(more)) = (result.as_object_mut(), extra) {
        map.extend(more);
    }
    if let Err(e) = write_pretty(out, &result) {
        say(err, &e);
    }
    code
}

pub(super) async fn sync_inner(
    store: Store,
    settings: &Settings,
    plan: &SyncPlan,
    err: &mut dyn Write,
    cancel: &Cancel,
) -> Result<Counters, (Halt, Counters)> {
    let syncer = connect(store, settings, plan, err, cancel)
        .await
        .map_err(|halt| (halt, Counters::default()))?;
    let result = syncer.run().await;
    syncer.keep_findings(crate::model::findings::FoundBy::IndexSync);
    let counters = syncer.counters.into_inner();
    match result {
        Ok(()) => Ok(counters),
        Err(halt) => Err((halt, counters)),
    }
}

/// What a sync or a verify works with: the network's scans (the profile's own among them),
/// the index's network claimed (another network's index refused), `--verify` checked against
/// the scans there are.
pub(super) async fn connect<'a>(
    store: Store,
    settings: &Settings,
    plan: &'a SyncPlan,
    err: &'a mut dyn Write,
    cancel: &'a Cancel,
) -> Result<Syncer<'a>, Halt> {
    let fail = |halt: Halt| halt;
    let config = ApiConfig {
        request_timeout: plan.timeout,
        connect_timeout: plan.timeout.min(ApiConfig::default().connect_timeout),
        retries: 0,
        ..api_config(settings)
    };
    let client = ApiClient::new(config)
        .map_err(|e| fail(Halt::Failed(e.exit_code(), e.to_string())))?
        .with_max_response_mib(settings.max_response_mib);
    let discovered = discover(
        &client,
        settings,
        settings.data_path().as_deref(),
        now_micros(),
    )
    .await;
    for warning in &discovered.warnings {
        say(err, &format!("warning: {warning}"));
    }
    if let ListSource::Unavailable { errors } = &discovered.source {
        for error in errors {
            say(err, &format!("cannot read the scan list: {error}"));
        }
    }
    let synchronizer = discovered
        .list
        .as_ref()
        .map(|l| l.domain_id.clone())
        .unwrap_or_default();
    let budget = ScanBudget {
        rate: plan.rate,
        timeout: plan.timeout,
        ..ScanBudget::default()
    };
    let net = Network::new(&client, discovered.entries.clone(), budget);
    let Some(primary) = net.entries().position(|e| e.own) else {
        return Err(fail(Halt::Failed(
            EXIT_USAGE,
            "the profile's scan is not among the scans to ask".to_owned(),
        )));
    };
    // The network the index belongs to.
    let dso = client
        .send(&scan::dso())
        .await
        .map_err(|e| fail(Halt::Failed(e.exit_code(), crate::headless::error_line(&e))))?;
    let network = NetworkId {
        dso_party: dso.dso_party_id.clone(),
        synchronizer,
    };
    store
        .call(move |s| s.claim_network(&network))
        .await
        .map_err(|e| fail(e.into()))?;
    let counted = net.counted().iter().filter(|c| **c).count();
    let needed = match plan.verify {
        VerifyArg::Scans(n) => n,
        VerifyArg::Quorum => quorum(counted),
    };
    if needed > net.len() {
        return Err(fail(Halt::Failed(
            EXIT_NO_QUORUM,
            format!(
                "not enough scans to verify with: --verify needs {needed} scans to agree and the network has {} ({})",
                net.len(),
                net.entries()
                    .map(|e| e.sv_name.clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )));
    }
    let syncer = Syncer {
        net,
        primary,
        store,
        plan,
        needed,
        threshold: quorum(counted).max(needed),
        rotation: Cell::new(0),
        counters: RefCell::new(Counters::default()),
        started: Instant::now(),
        reach: RefCell::new(BTreeMap::new()),
        end: Cell::new(plan.until),
        err: RefCell::new(err),
        cancel,
        packing: RefCell::new(None),
        samples: RefCell::new(Vec::new()),
        training: tokio::sync::Mutex::new(()),
        findings: RefCell::new(Vec::new()),
        findings_path: crate::network::findings::settings_path(
            settings,
            settings.data_path().as_deref(),
        ),
    };
    Ok(syncer)
}

pub(super) fn to_after(p: &Position) -> UpdatesAfter {
    UpdatesAfter {
        after_migration_id: p.migration_id,
        after_record_time: p.record_time.clone(),
    }
}

pub(super) fn to_position(a: &UpdatesAfter) -> Position {
    Position {
        migration_id: a.after_migration_id,
        record_time: a.after_record_time.clone(),
    }
}

impl Syncer<'_> {
    pub(super) async fn run(&self) -> Result<(), Halt> {
        let chunks = self.store.call(|s| s.chunks()).await?;
        // First the chunks an earlier sync left unfinished, side by side.
        let open: Vec<Chunk> = chunks.into_iter().filter(|c| c.state == "open").collect();
        self.walk_chunks(open).await?;
        // Then the range asked for.
        let start: Option<Position> = match self.plan.from.as_deref() {
            Some("begin") => None,
            Some(time) => {
                let micros = parse_time_micros(time).ok_or_else(|| {
                    Halt::Failed(EXIT_USAGE, format!("--from is not a time: {time}"))
                })?;
                return self.walk_range(micros).await;
            }
            None => {
                let chunks = self.store.call(|s| s.chunks()).await?;
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
    pub(super) async fn walk_range(&self, from: i64) -> Result<(), Halt> {
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
            let at = crate::network::sweep::start_at(&self.net, self.primary, start_time)
                .await
                .map_err(|e| {
                    Halt::Failed(EXIT_SERVER, format!("cannot find where --from is: {e}"))
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
    pub(super) async fn walk_chunks(&self, chunks: Vec<Chunk>) -> Result<(), Halt> {
        join_all(chunks.into_iter().map(|c| self.walk_chunk(c)))
            .await
            .into_iter()
            .collect::<Result<Vec<()>, Halt>>()
            .map(|_| ())
    }

    pub(super) async fn walk_chunk(&self, chunk: Chunk) -> Result<(), Halt> {
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
        loop {
            if self.cancel.is_cancelled() {
                return Err(Halt::Interrupted);
            }
            if walk.is_done() {
                if !follow {
                    break;
                }
                tokio::select! {
                    () = tokio::time::sleep(FOLLOW_POLL) => {}
                    () = self.cancel.cancelled() => return Err(Halt::Interrupted),
                }
                walk = PageWalk::new(walk.cursor().cloned(), None, self.plan.page_size);
                continue;
            }
            let page_start = walk.cursor().map(to_position);
            let Some((take, verified)) = self.next_page(&mut walk).await? else {
                continue;
            };
            let confirmed = verified.confirmed;
            if confirmed > 0 {
                let mut page = verified.body.page;
                page.transactions.truncate(confirmed);
                let keep = take.skip.min(confirmed)..confirmed;
                let digests = &verified.body.digests;
                self.write(
                    &chunk,
                    &page,
                    digests,
                    keep,
                    page_start,
                    &verified.confirmers,
                    &verified.odd,
                )
                .await?;
                walk.on_page(&page)
                    .map_err(|e| Halt::Failed(EXIT_SERVER, e))?;
                drop_aside(page);
            }
            if let Some(halt) = verified.halt {
                if let Halt::Diverged(record, _) = &halt {
                    let kept = (**record).clone();
                    self.store.call(move |s| s.record_divergence(&kept)).await?;
                }
                return Err(halt);
            }
            if confirmed == 0 {
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

    /// How the bodies of `items` (a page's) are packed: with the index's dictionary (read
    /// once), else with one trained from the bodies of this page and those written before it
    /// once they are [`DICTIONARY_SAMPLES`] (small pages: a `--follow` at the head) and kept
    /// in the index, else without one, for this page only.
    async fn packing(&self, items: &[UpdateItem]) -> Result<Rc<Packing>, Halt> {
        if let Some(packing) = self.packing.borrow().as_ref() {
            return Ok(Rc::clone(packing));
        }
        let _training = self.training.lock().await;
        // Another chunk may have made it while this one waited.
        if let Some(packing) = self.packing.borrow().as_ref() {
            return Ok(Rc::clone(packing));
        }
        let mut dictionary = self.store.call(|s| s.body_dictionary()).await?;
        let samples = dictionary.is_none().then(|| {
            let mut samples = self.samples.borrow_mut();
            samples.extend(items.iter().map(|i| i.raw().get().to_owned()));
            (samples.len() >= DICTIONARY_SAMPLES).then(|| std::mem::take(&mut *samples))
        });
        if let Some(Some(samples)) = samples
            && let Some(trained) = train_dictionary(samples.iter().map(String::as_str))
        {
            // Packed with what the index keeps (read back), so every body names a dictionary
            // the index has, whatever it made of this one.
            dictionary = self
                .store
                .call(move |s| {
                    s.add_body_dictionary(&trained, now_micros())?;
                    s.body_dictionary()
                })
                .await?;
        }
        let Some(dictionary) = dictionary else {
            return Ok(Rc::new(Packing::plain()));
        };
        let packing = match Packing::with_dictionary(&dictionary) {
            Ok(packing) => Rc::new(packing),
            Err(detail) => {
                let path = self.store.call(|s| Ok(s.shown())).await?;
                return Err(StoreError::Corrupt { path, detail }.into());
            }
        };
        *self.packing.borrow_mut() = Some(Rc::clone(&packing));
        Ok(packing)
    }

    /// Writes the confirmed items `keep` of `page` as one transaction with the chunk's cursor.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn write(
        &self,
        chunk: &Chunk,
        page: &UpdatesPage,
        digests: &[Digest],
        keep: std::ops::Range<usize>,
        page_start: Option<Position>,
        confirmers: &[usize],
        odd: &[(usize, usize)],
    ) -> Result<(), Halt> {
        let Some(last) = page.transactions.last() else {
            return Ok(());
        };
        let cursor = Position {
            migration_id: last.migration_id().unwrap_or_default(),
            record_time: last.record_time().unwrap_or_default().to_owned(),
        };
        // On every core: summaries, keys and packed bodies.
        let packing = if self.plan.bodies {
            Some(self.packing(&page.transactions[keep.clone()]).await?)
        } else {
            None
        };
        let rows = rows_of(
            &page.transactions[keep.clone()],
            &digests[keep.clone()],
            packing.as_deref(),
        )
        .map_err(|e| Halt::Failed(EXIT_DECODE, e))?;
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
        let mut scans: Vec<String> = confirmers.iter().map(|s| describe(&self.net, *s)).collect();
        if self.needed == 1 {
            scans = vec![describe(&self.net, self.primary)];
        }
        let write = PageWrite::new(rows, page_start, cursor, scans.clone());
        let id = chunk.id;
        let written = self
            .store
            .call(move |s| {
                let written = s.write_page(id, &write);
                drop_aside(write);
                written
            })
            .await?;
        {
            let mut counters = self.counters.borrow_mut();
            counters.pages += 1;
            counters.inserted += written.inserted;
            counters.known += written.known;
        }
        // Odd scans: a quorum kept another version than theirs.
        for (position, scan) in odd.iter().filter(|(p, _)| keep.contains(p)) {
            let Some(item) = page.transactions.get(*position) else {
                continue;
            };
            self.counters.borrow_mut().odd += 1;
            let name = describe(&self.net, *scan);
            let update_id = item.update_id().unwrap_or_default().to_owned();
            say(
                &mut **self.err.borrow_mut(),
                &format!(
                    "warning: {name} has another version of update {update_id}; {} scans agree on the one kept",
                    scans.len()
                ),
            );
            self.note_diverged(
                *scan,
                item,
                format!(
                    "has another version of update {update_id} than the {} scans that agree on the one the index keeps",
                    scans.len()
                ),
            );
            let record = DivergenceRecord {
                update_id,
                migration_id: item.migration_id().unwrap_or_default(),
                record_time: item.record_time().unwrap_or_default().to_owned(),
                found_at: now_micros(),
                resolved: true,
                detail: json!({ "odd_scans": [name], "kept_by": scans }),
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
