//! Asking the scans for a page and judging their answers: the profile's scan for the bodies,
//! verifiers in rotation, a disagreement put to every scan ([`judge`]), the record and message
//! of a divergence. Shared by a sync and a verify.

use std::ops::Range;

use serde_json::{Value, json};

use super::outage::scans_away;
use super::{Engine, Failure, Halt, now_micros};
use crate::api::scan::{self, UpdateItem, UpdatesPage};
use crate::api::{Call, Exchange};
use crate::every_scan::{Reply, Transport};
use crate::model::consensus::{MAX_DIFFERENCES, json_diff};
use crate::model::index::verify::{Answered, Stop, judge};
use crate::model::index::{
    Digest, digest_hex, digests_of, digests_of_texts, items_and_digests, items_of_texts,
};
use crate::model::page_walk::PageWalk;
use crate::store::DivergenceRecord;

/// One scan's answer to a page.
pub(super) struct PageOf {
    pub(super) scan: usize,
    /// Its items: none yet while it is `held`.
    pub(super) page: UpdatesPage,
    pub(super) digests: Vec<Digest>,
    /// A verifier's page as it came, its items not decoded ([`Decode::Digests`]) until they
    /// are read ([`PageOf::decode_held`]).
    held: Option<Vec<u8>>,
}

impl PageOf {
    /// Decodes its items if it was held (on a blocking thread, on every core): for a page
    /// that becomes the bodies' page, or whose items a divergence names.
    async fn decode_held(&mut self) {
        if let Some(body) = self.held.take() {
            self.page.transactions = tokio::task::spawn_blocking(move || {
                scan::page_item_texts(&body)
                    .map(|texts| items_of_texts(&texts))
                    .unwrap_or_default()
            })
            .await
            .unwrap_or_default();
        }
    }
}

/// What an answer to a page is decoded into.
#[derive(Clone, Copy)]
pub(super) enum Decode {
    /// Its items with their digests: the page whose bodies are kept.
    Items,
    /// Only its items' digests, the page held as it came: a verifier's, which is judged by its
    /// digests alone and rarely read further (its items' parse and their copies saved: 14% of
    /// a default `--verify 2` sync's CPU).
    Digests,
}

impl super::ScanAnswer for PageOf {
    fn scan(&self) -> usize {
        self.scan
    }
}

impl Engine<'_> {
    /// How messages name scan `scan`.
    pub(super) fn describe(&self, scan: usize) -> String {
        self.net
            .entry(scan)
            .map_or_else(|| format!("scan {scan}"), |e| e.sv_name.clone())
    }

    /// The scans named as confirming a page: `confirmers`, or the profile's scan alone when
    /// the page is not verified (`N` = 1).
    pub(super) fn confirmed_by(&self, confirmers: &[usize]) -> Vec<String> {
        if self.needed == 1 {
            return vec![self.describe(self.primary)];
        }
        self.names(confirmers)
    }

    /// How messages name `scans`.
    pub(super) fn names(&self, scans: &[usize]) -> Vec<String> {
        scans.iter().map(|s| self.describe(*s)).collect()
    }

    /// Notes that `scan` serves `item` differently from the version kept (or from the others,
    /// on a dispute): a diverged history of that scan at that update, kept with the network's
    /// findings when the sync or verify ends.
    pub(super) fn note_diverged(&self, scan: usize, item: &UpdateItem, detail: String) {
        use crate::model::findings::{FindingKind, FindingOp, FoundBy};
        let Some(entry) = self.net.entry(scan) else {
            return;
        };
        let url = crate::api::redact_userinfo(&entry.url);
        let record_time = item
            .record_time()
            .and_then(crate::model::format::parse_time_micros);
        self.findings.borrow_mut().push(FindingOp::open_at(
            FindingKind::DivergedHistory,
            (&url, &entry.sv_name),
            // Set when kept (a sync's or a verify's).
            FoundBy::IndexSync,
            detail,
            (item.update_id().unwrap_or_default(), record_time, None),
        ));
    }

    /// The primary scan's answer, or why the sync cannot go on.
    pub(super) async fn primary_page(&self, call: &Call<UpdatesPage>) -> Result<PageOf, Halt> {
        let reply = self.net.ask(self.primary, call).await;
        let name = self.describe(self.primary);
        if reply.success().is_some()
            && let Ok(exchange) = reply.result
        {
            return decoded(self.primary, call, exchange, Decode::Items)
                .await
                .map_err(|e| Halt::Failed(Failure::Decode(format!("{name}: {e}"))));
        }
        match &reply.result {
            Ok(_) => Err(Halt::Failed(Failure::Server(format!(
                "the profile's scan ({name}) answered {}",
                reply.problem().unwrap_or_default()
            )))),
            Err(Transport::Timeout) => Err(Halt::Failed(Failure::Connect(format!(
                "the profile's scan ({name}) timed out"
            )))),
            Err(Transport::Unreachable(detail)) => Err(Halt::Failed(Failure::Connect(format!(
                "the profile's scan ({name}): {detail}"
            )))),
        }
    }

    /// The page with the bodies: the profile's scan's; while it is down, a following sync's
    /// comes from the first other scan that answers (said once), verified as any page.
    async fn body_page(&self, call: &Call<UpdatesPage>) -> Result<PageOf, Halt> {
        let halt = match self.primary_page(call).await {
            Ok(page) => {
                if self.bodies_elsewhere.take().is_some() {
                    let name = self.describe(self.primary);
                    self.say(&format!(
                        "the profile's scan ({name}) answers again: the bodies come from it"
                    ));
                }
                return Ok(page);
            }
            Err(halt) => halt,
        };
        if !self.plan.follow || scans_away(&halt).is_none() {
            return Err(halt);
        }
        let n = self.net.len();
        let start = self.bodies_elsewhere.get().unwrap_or(self.rotation.get());
        for scan in (0..n)
            .map(|i| (start + i) % n)
            .filter(|s| *s != self.primary)
        {
            if let Ok(page) = self.verifier_page(scan, call, Decode::Items).await {
                if self.bodies_elsewhere.replace(Some(scan)) != Some(scan) {
                    self.say(&format!(
                        "the profile's scan is down ({}): the bodies come from {} until it answers",
                        scans_away(&halt).unwrap_or_default(),
                        self.describe(scan)
                    ));
                }
                return Ok(page);
            }
        }
        Err(halt)
    }

    /// A verifier's answer: its page, or why it cannot verify.
    pub(super) async fn verifier_page(
        &self,
        scan: usize,
        call: &Call<UpdatesPage>,
        decode: Decode,
    ) -> Result<PageOf, String> {
        let reply: Reply = self.net.ask(scan, call).await;
        if reply.success().is_none() {
            return Err(reply.problem().unwrap_or_else(|| "no answer".to_owned()));
        }
        match reply.result {
            Ok(exchange) => decoded(scan, call, exchange, decode).await,
            Err(_) => Err("no answer".to_owned()),
        }
    }

    /// The next page of `walk` from the profile's scan, verified ([`Engine::verify_page`]) up
    /// to the end of the walk's range and cut after its confirmed items; `None` for an empty
    /// page (the walk has taken it: done). With `ahead`, the first verifier the page needs is
    /// asked at once, beside the profile's scan, not after its answer: a page costs one round
    /// trip instead of two. A following walk at the head passes `false`: its pages are mostly
    /// empty, and a verifier would be asked for nothing.
    pub(super) async fn next_page(
        &self,
        walk: &mut PageWalk,
        ahead: bool,
    ) -> Result<Option<Confirmed>, Halt> {
        let call = scan::updates(&walk.request());
        let order = self.verifiers_in_turn();
        let early_scan = order
            .first()
            .copied()
            .filter(|_| ahead && self.needed > 1 && self.bodies_elsewhere.get().is_none());
        let (primary, early) = futures_util::future::join(self.body_page(&call), async {
            match early_scan {
                Some(scan) => Some((scan, self.verifier_page(scan, &call, Decode::Digests).await)),
                None => None,
            }
        })
        .await;
        let primary = primary?;
        let take = walk
            .clone()
            .on_page(&primary.page)
            .map_err(|e| Halt::Failed(Failure::Server(e)))?;
        if primary.page.transactions.is_empty() {
            walk.on_page(&primary.page)
                .map_err(|e| Halt::Failed(Failure::Server(e)))?;
            return Ok(None);
        }
        let verified = self
            .verify_page(primary, &call, take.keep, order, early)
            .await;
        let confirmed = verified.confirmed;
        let mut page = verified.body.page;
        page.transactions.truncate(confirmed);
        Ok(Some(Confirmed {
            page,
            digests: verified.body.digests,
            keep: take.skip.min(confirmed)..confirmed,
            confirmers: verified.confirmers,
            odd: verified.odd,
            kept_by: verified.kept_by,
            halt: verified.halt,
        }))
    }

    /// The verifiers in the order this page asks them ([`Engine::verify_page`] moves the
    /// rotation on): every scan but the profile's.
    fn verifiers_in_turn(&self) -> Vec<usize> {
        let n = self.net.len();
        (0..n)
            .map(|i| (i + self.rotation.get()) % n)
            .filter(|i| *i != self.primary)
            .collect()
    }

    /// Asks verifiers, in the order `turn`, until the page's items are confirmed as far as they
    /// can be (`early`: a verifier's answer already asked for): returns the page whose items
    /// are kept, how many of its first items are confirmed, the scans that confirmed them and
    /// the odd (position, scan) pairs.
    pub(super) async fn verify_page(
        &self,
        primary: PageOf,
        call: &Call<UpdatesPage>,
        limit: usize,
        turn: Vec<usize>,
        mut early: Option<(usize, Result<PageOf, String>)>,
    ) -> Verified {
        // The bodies' scan: the profile's, or the one standing in for it (the profile's, just
        // down, not asked again).
        let mut body_scan = primary.scan;
        let others: Vec<usize> = turn.into_iter().filter(|i| *i != body_scan).collect();
        self.rotation.set(self.rotation.get() + 1);
        let mut pending = others.into_iter();
        let mut pages: Vec<PageOf> = vec![primary];
        let mut failures: Vec<String> = Vec::new();
        loop {
            let answers: Vec<Answered<'_>> = pages
                .iter()
                .map(|p| Answered {
                    scan: p.scan,
                    digests: &p.digests,
                })
                .collect();
            let judged = judge(&answers, body_scan, self.needed, self.threshold, limit);
            let ask_one = match &judged.stop {
                Stop::End => None,
                Stop::Unknown { .. } => Some(false),
                Stop::Disputed { .. } => Some(true),
                Stop::OtherVersion { scan } if judged.confirmed == 0 => {
                    body_scan = *scan;
                    continue;
                }
                Stop::OtherVersion { .. } => None,
            };
            let exhausted = pending.len() == 0;
            if let Some(all) = ask_one
                && !exhausted
            {
                let asking: Vec<usize> = if all {
                    pending.by_ref().collect()
                } else {
                    pending.by_ref().take(1).collect()
                };
                for scan in asking {
                    let answer = match early.take() {
                        Some((asked, answer)) if asked == scan => answer,
                        other => {
                            early = other;
                            self.verifier_page(scan, call, Decode::Digests).await
                        }
                    };
                    match answer {
                        Ok(page) => pages.push(page),
                        Err(problem) => {
                            failures.push(format!("{} ({problem})", self.describe(scan)));
                        }
                    }
                }
                continue;
            }
            // As far as it goes.
            let mut halt = None;
            if let Stop::Disputed { groups } = &judged.stop {
                for page in &mut pages {
                    page.decode_held().await;
                }
                // No version has the scans needed: the scans outside the largest group have a
                // diverged history there.
                let largest = groups.iter().map(|(_, m)| m.len()).max().unwrap_or(0);
                let reference = groups.iter().position(|(_, m)| m.len() == largest);
                for (g, (_, members)) in groups.iter().enumerate() {
                    if Some(g) == reference {
                        continue;
                    }
                    for &scan in members {
                        let item = super::answer_of(&pages, scan)
                            .and_then(|p| p.page.transactions.get(judged.confirmed));
                        if let Some(item) = item {
                            self.note_diverged(
                                scan,
                                item,
                                "disagrees with the other scans on this update; no version has the scans needed".to_owned(),
                            );
                        }
                    }
                }
                let record = self.divergence(&pages, judged.confirmed, groups);
                halt = Some(self.diverged(record));
            } else if judged.confirmed == 0 && ask_one == Some(false) && pages.len() == 1 {
                halt = Some(Halt::Failed(Failure::NoQuorum(format!(
                    "not enough scans to verify with: --verify needs {} scans to agree; {}",
                    self.needed,
                    if failures.is_empty() {
                        "no other scan to ask".to_owned()
                    } else {
                        format!("failed: {}", failures.join(", "))
                    }
                ))));
            }
            if let Some(body) = pages.iter().find(|p| p.scan == body_scan) {
                let have = body.digests.len().min(limit);
                self.counters.borrow_mut().unconfirmed = (have - judged.confirmed) as u64;
            }
            let index = pages.iter().position(|p| p.scan == body_scan).unwrap_or(0);
            let mut body = pages.swap_remove(index);
            body.decode_held().await;
            return Verified {
                body,
                confirmed: judged.confirmed,
                confirmers: judged.confirmers,
                odd: judged.odd,
                kept_by: judged.kept_by,
                halt,
            };
        }
    }

    /// The record of a disputed item at `position`.
    pub(super) fn divergence(
        &self,
        pages: &[PageOf],
        position: usize,
        groups: &[(Digest, Vec<usize>)],
    ) -> DivergenceRecord {
        let item_of = |scan: usize| {
            super::answer_of(pages, scan).and_then(|p| p.page.transactions.get(position))
        };
        let value_of = |scan: usize| -> Option<Value> {
            let mut v: Value = serde_json::from_str(item_of(scan)?.raw().get()).ok()?;
            crate::model::consensus::LocalFields::UPDATE.strip(&mut v);
            Some(v)
        };
        let reference = groups.first().and_then(|(_, m)| m.first().copied());
        let item = reference.and_then(item_of);
        let (differences, truncated) = match (
            reference.and_then(value_of),
            groups
                .get(1)
                .and_then(|(_, m)| m.first().copied())
                .and_then(value_of),
        ) {
            (Some(a), Some(b)) => json_diff(&a, &b, MAX_DIFFERENCES),
            _ => (Vec::new(), false),
        };
        let versions: Vec<Value> = groups
            .iter()
            .map(|(digest, members)| {
                json!({
                    "digest": digest_hex(digest),
                    "scans": members.iter().map(|s| self.describe(*s)).collect::<Vec<_>>(),
                })
            })
            .collect();
        DivergenceRecord {
            update_id: item
                .and_then(UpdateItem::update_id)
                .unwrap_or_default()
                .to_owned(),
            migration_id: item.and_then(UpdateItem::migration_id).unwrap_or_default(),
            record_time: item
                .and_then(UpdateItem::record_time)
                .unwrap_or_default()
                .to_owned(),
            found_at: now_micros(),
            resolved: false,
            detail: super::divergence_detail(&versions, (&differences, truncated), self.threshold),
        }
    }

    /// The halt at a divergence, with its message.
    pub(super) fn diverged(&self, record: DivergenceRecord) -> Halt {
        let versions = record.detail["versions"]
            .as_array()
            .map(|v| {
                v.iter()
                    .map(|g| {
                        let scans: Vec<&str> = g["scans"]
                            .as_array()
                            .map(|s| s.iter().filter_map(Value::as_str).collect())
                            .unwrap_or_default();
                        scans.join(" + ")
                    })
                    .collect::<Vec<_>>()
                    .join(" vs ")
            })
            .unwrap_or_default();
        let fields = record.detail["differences"]
            .as_array()
            .map(|d| {
                d.iter()
                    .filter_map(|x| x["path"].as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        let message = format!(
            "stopped at a divergence: update {} (migration {}, {}): the scans disagree ({versions}), fields {}; no version has the {} scans needed; the index stops before it (`cantonscope network check-update {}` shows each scan's answer)",
            record.update_id,
            record.migration_id,
            record.record_time,
            if fields.is_empty() {
                "unknown".to_owned()
            } else {
                fields
            },
            self.threshold,
            record.update_id,
        );
        Halt::Diverged(Box::new(record), message)
    }
}

/// A page of the walk as far as the scans confirm it.
pub(super) struct Confirmed {
    /// Its confirmed items (empty: none yet), from the scan whose version is kept.
    pub(super) page: UpdatesPage,
    /// Their digests (and those of the items after them).
    pub(super) digests: Vec<Digest>,
    /// The items of `page` that are the walk's (those before them were read before).
    pub(super) keep: Range<usize>,
    /// The scans that confirmed them.
    pub(super) confirmers: Vec<usize>,
    /// (position, scan) of confirmed items a scan has in another version.
    pub(super) odd: Vec<(usize, usize)>,
    /// (position, scans) of those items: every scan known to hold the version kept.
    pub(super) kept_by: Vec<(usize, Vec<usize>)>,
    /// Why the walk cannot go past them.
    pub(super) halt: Option<Halt>,
}

/// What verifying a page found.
pub(super) struct Verified {
    /// The page whose items are kept.
    pub(super) body: PageOf,
    /// How many of its first items are confirmed.
    pub(super) confirmed: usize,
    /// The scans that confirmed them.
    pub(super) confirmers: Vec<usize>,
    /// (position, scan) of confirmed items a scan has in another version.
    pub(super) odd: Vec<(usize, usize)>,
    /// (position, scans) of those items: every scan known to hold the version kept.
    pub(super) kept_by: Vec<(usize, Vec<usize>)>,
    /// Why the sync cannot go past the confirmed items.
    pub(super) halt: Option<Halt>,
}

/// A page decoded with the digests of its items, on a blocking thread (the digests on every
/// core), so the walk's task only waits.
pub(super) async fn decoded(
    scan: usize,
    call: &Call<UpdatesPage>,
    exchange: Exchange,
    decode: Decode,
) -> Result<PageOf, String> {
    let call = call.clone();
    tokio::task::spawn_blocking(move || {
        // The page split once, its items decoded and digested on every core (or only
        // digested, the page held); a body that is not a page is decoded the ordinary way,
        // for its error.
        let split = scan::page_item_texts(&exchange.body).map(|texts| match decode {
            Decode::Items => items_and_digests(&texts).map(|(items, d)| (items, d, false)),
            Decode::Digests => digests_of_texts(&texts).map(|d| (Vec::new(), d, true)),
        });
        let (transactions, digests, held) = if let Some(split) = split {
            split?
        } else {
            let page = call
                .decode_response(exchange.status, &exchange.headers, &exchange.body)
                .map_err(|e| e.to_string())?;
            let digests = digests_of(&page.transactions)?;
            (page.transactions, digests, false)
        };
        Ok(PageOf {
            scan,
            page: UpdatesPage { transactions },
            digests,
            held: held.then_some(exchange.body),
        })
    })
    .await
    .unwrap_or_else(|e| Err(format!("the decoding thread failed: {e}")))
}
