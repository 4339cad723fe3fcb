//! Update history: pages of updates (`/v2/updates`) and of events (`/v0/events`: each update
//! with its verdict, traffic summary and app activity, up to the verdict ingestion's head), one
//! update or event by id, one update by external hash.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequestParts, Path, RawQuery, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::request::{
    ScanCtx, bad, encoding_of, int_field, not_found, parse_body, query_encoding, str_field,
};
use crate::demo::ledger::Update;
use crate::demo::render::{Encoding, ScanUpdateJson, event_item, scan_update, verdict_only_item};
use crate::demo::reply::{Fail, Reply, done, json_ok, scan_error};
use crate::demo::topology::Network;
use crate::demo::util::{fmt_time, parse_time};

pub(super) async fn updates(State(c): State<ScanCtx>, body: Bytes) -> Response {
    done(updates_inner(&c, &body))
}

/// What a page request (`/v2/updates`, `/v0/events`) asks: its size, the values' encoding and
/// the cursor `(migration, µs)`, validated as Scan does; a scan still backfilling answers 503
/// for a page before what it has.
struct PageAsk {
    page_size: usize,
    enc: Encoding,
    after: Option<(i64, i64)>,
}

fn page_ask(c: &ScanCtx, body: &Bytes) -> Result<PageAsk, Fail> {
    let req = parse_body(body)?;
    let page_size = match req.get("page_size") {
        None | Some(Value::Null) => return Err(bad("page_size is required")),
        Some(v) => v
            .as_i64()
            .ok_or_else(|| bad("page_size must be an integer"))?,
    };
    if !(1..=1000).contains(&page_size) {
        return Err(bad(format!(
            "page_size must be between 1 and 1000, but was {page_size}"
        )));
    }
    let enc = encoding_of(|k| req.get(k))?;
    let after = match req.get("after") {
        None | Some(Value::Null) => None,
        Some(Value::Object(a)) => {
            let m = int_field(
                a,
                "after_migration_id",
                "after.after_migration_id must be an integer",
            )?;
            let t = str_field(
                a,
                "after_record_time",
                "after.after_record_time must be a string",
            )?;
            let t = parse_time(t).ok_or_else(|| {
                bad(format!(
                    "after.after_record_time is not a valid timestamp: {t}"
                ))
            })?;
            Some((m, t))
        }
        Some(_) => return Err(bad("after must be an object")),
    };
    if let Some(from) = c.app.faults.backfilled_from(c.scan)
        && after.is_none_or(|(_, t)| t < from)
    {
        return Err(scan_error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "This scan is still backfilling its update history: updates before {} are not \
                 available yet; try again later",
                fmt_time(from)
            ),
        )
        .into());
    }
    Ok(PageAsk {
        page_size: usize::try_from(page_size).unwrap_or(1),
        enc,
        after,
    })
}

/// The updates of a page: after the cursor, up to `end` (this scan's visible history, or its
/// verdict ingestion's head).
fn page_items(c: &ScanCtx, ask: &PageAsk, trail: usize) -> Vec<(usize, Arc<Update>)> {
    let w = c.app.read();
    let l = &w.ledger;
    let start: usize = ask.after.map_or(0, |(m, t)| l.cursor_start(m, t));
    let end = c.app.visible_len(l, c.scan).saturating_sub(trail);
    let stop = end.min(start.saturating_add(ask.page_size));
    (start..stop)
        .filter_map(|i| l.update(i).map(|u| (i, Arc::clone(u))))
        .collect()
}

fn updates_inner(c: &ScanCtx, body: &Bytes) -> Reply {
    let ask = page_ask(c, body)?;
    let enc = ask.enc;
    let items = page_items(c, &ask, 0);
    let net = Arc::clone(&c.app.net);
    let page = Page {
        transactions: items
            .iter()
            .map(|(i, u)| ScanUpdateJson {
                net: &net,
                u,
                idx: *i,
                scan: c.scan,
                enc,
                diverged: c.app.faults.diverges(c.scan, u),
            })
            .collect(),
    };
    match serde_json::to_vec(&page) {
        Ok(body) => Ok(json_bytes(body)),
        Err(e) => Err(scan_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("failed to render the page: {e}"),
        )
        .into()),
    }
}

#[derive(serde::Serialize)]
struct Page<'a> {
    transactions: Vec<ScanUpdateJson<'a>>,
}

/// `POST /v0/events` (Splice 0.8 and later): the event history, paged as `/v2/updates` is (same
/// request, same cursor, same faults), each update with its verdict, traffic summary and app
/// activity, up to the verdict ingestion's head ([`VERDICT_TRAIL`] updates behind this scan's
/// newest). The highest-numbered scan of a network of several is older: it has no such route
/// (404).
pub(super) async fn events(State(c): State<ScanCtx>, body: Bytes) -> Response {
    if c.app.scans > 1 && c.scan + 1 == c.app.scans {
        return done(Err(not_found("The requested resource could not be found.")));
    }
    done((|| {
        let ask = page_ask(&c, &body)?;
        let events: Vec<Value> = events_of_page(&c, &ask)
            .iter()
            .map(|(i, u)| {
                let mut value = match i {
                    Some(i) => event_item(&c.app.net, u, *i, c.scan, ask.enc),
                    None => verdict_only_item(&c.app.net, u),
                };
                if c.app.faults.diverges(c.scan, u) {
                    crate::demo::faults::mark_diverged(&mut value);
                }
                if c.app.faults.verdict_diverges(c.scan, &u.update_id) {
                    crate::demo::faults::mark_verdict_diverged(&mut value);
                }
                value
            })
            .collect();
        Ok(json_ok(&serde_json::json!({ "events": events })))
    })())
}

/// The events of a `/v0/events` page, in ledger order: the updates (with their index) and the
/// verdict-only events (`None`: a rejected request, a wholly private transaction) after the
/// cursor, up to the verdict ingestion's head, at most a page of them.
fn events_of_page(c: &ScanCtx, ask: &PageAsk) -> Vec<(Option<usize>, Arc<Update>)> {
    let updates = page_items(c, ask, VERDICT_TRAIL);
    let verdicts: Vec<Arc<Update>> = {
        let w = c.app.read();
        let l = &w.ledger;
        match verdict_head(c, l) {
            Some(head) => l
                .verdicts_only_between(ask.after.unwrap_or((i64::MIN, i64::MIN)), head)
                .iter()
                .take(ask.page_size)
                .cloned()
                .collect(),
            None => Vec::new(),
        }
    };
    let mut all: Vec<(Option<usize>, Arc<Update>)> = updates
        .into_iter()
        .map(|(i, u)| (Some(i), u))
        .chain(verdicts.into_iter().map(|u| (None, u)))
        .collect();
    all.sort_by_key(|(_, u)| (u.migration_id, u.record_time));
    all.truncate(ask.page_size);
    all
}

/// The place of this scan's verdict ingestion head: its newest update but [`VERDICT_TRAIL`].
fn verdict_head(c: &ScanCtx, l: &crate::demo::ledger::Ledger) -> Option<(i64, i64)> {
    let visible = c.app.visible_len(l, c.scan);
    visible
        .checked_sub(1 + VERDICT_TRAIL)
        .and_then(|i| l.update(i))
        .map(|u| (u.migration_id, u.record_time))
}

/// The verdict-only event `update_id`, if this scan has ingested it.
fn find_verdict_only(c: &ScanCtx, update_id: &str) -> Option<Arc<Update>> {
    let w = c.app.read();
    let l = &w.ledger;
    let u = l.verdict_only(update_id)?;
    let head = verdict_head(c, l)?;
    let from = c.app.faults.backfilled_from(c.scan);
    ((u.migration_id, u.record_time) <= head && from.is_none_or(|from| u.record_time >= from))
        .then(|| Arc::clone(u))
}

fn json_bytes(body: Vec<u8>) -> Response {
    (
        StatusCode::OK,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

fn find_update(c: &ScanCtx, update_id: &str) -> Option<(usize, Arc<Update>)> {
    let w = c.app.read();
    let l = &w.ledger;
    let idx = l.index_of(update_id)?;
    if idx >= c.app.visible_len(l, c.scan) {
        return None;
    }
    let u = l.update(idx)?;
    if c.app
        .faults
        .backfilled_from(c.scan)
        .is_some_and(|from| u.record_time < from)
    {
        return None;
    }
    Some((idx, Arc::clone(u)))
}

/// One update (or event) as scan `c` renders it: a diverging scan changes a field (a scan
/// with diverging verdicts, an event's verdict).
fn rendered(c: &ScanCtx, u: &Update, mut value: Value) -> Response {
    if c.app.faults.diverges(c.scan, u) {
        crate::demo::faults::mark_diverged(&mut value);
    }
    if c.app.faults.verdict_diverges(c.scan, &u.update_id) {
        crate::demo::faults::mark_verdict_diverged(&mut value);
    }
    json_ok(&value)
}

/// A request for one update by its id (`/v2/updates/{id}`, `/v0/events/{id}`): the scan, the
/// id and the query.
pub(super) struct ById {
    c: ScanCtx,
    update_id: String,
    query: Option<String>,
}

impl FromRequestParts<ScanCtx> for ById {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, c: &ScanCtx) -> Result<ById, Response> {
        let Path(update_id) = Path::<String>::from_request_parts(parts, c)
            .await
            .map_err(IntoResponse::into_response)?;
        let query = parts.uri.query().map(str::to_owned);
        Ok(ById {
            c: c.clone(),
            update_id,
            query,
        })
    }
}

impl ById {
    /// The update as `render` draws it, in the encoding the query asks for; 404
    /// `{missing} {update_id} not found` when the ledger has no such update.
    fn answer(&self, missing: &str, render: Render) -> Response {
        let (c, update_id) = (&self.c, &self.update_id);
        done((|| {
            let enc = query_encoding(self.query.as_deref())?;
            let (idx, u) = find_update(c, update_id)
                .ok_or_else(|| not_found(format!("{missing} {update_id} not found")))?;
            Ok(rendered(c, &u, render(&c.app.net, &u, idx, c.scan, enc)))
        })())
    }
}

/// How an update is drawn: as an update or as an event.
type Render = fn(&Network, &Update, usize, usize, Encoding) -> Value;

pub(super) async fn update_by_id(request: ById) -> Response {
    request.answer("Transaction with id", scan_update)
}

pub(super) async fn event_by_id(request: ById) -> Response {
    // An event with a verdict and no update (a rejected request, a wholly private
    // transaction) is found by its verdict's update id.
    if let Some(u) = find_verdict_only(&request.c, &request.update_id) {
        let c = &request.c;
        return done(
            query_encoding(request.query.as_deref())
                .map(|_| rendered(c, &u, verdict_only_item(&c.app.net, &u))),
        );
    }
    request.answer("Event with update id", event_item)
}

pub(super) async fn update_by_hash(
    State(c): State<ScanCtx>,
    Path(hash): Path<String>,
    RawQuery(q): RawQuery,
) -> Response {
    done((|| {
        let enc = query_encoding(q.as_deref())?;
        if !crate::demo::util::is_hex(&hash) {
            return Err(bad(format!("Invalid hash: {hash} (expected a hex string)")));
        }
        let hash = hash.to_ascii_lowercase();
        let missing = || not_found(format!("No update found for hash {hash}"));
        let (idx, u) = {
            let w = c.app.read();
            let l = &w.ledger;
            let idx = l.index_of_hash(&hash).ok_or_else(missing)?;
            // This scan only indexed hashes from its own starting point on.
            if idx < c.app.hash_index_start(l, c.scan) || idx >= c.app.visible_len(l, c.scan) {
                return Err(missing());
            }
            let u = l.update(idx).ok_or_else(missing)?;
            if c.app
                .faults
                .backfilled_from(c.scan)
                .is_some_and(|from| u.record_time < from)
            {
                return Err(missing());
            }
            (idx, Arc::clone(u))
        };
        Ok(rendered(
            &c,
            &u,
            scan_update(&c.app.net, &u, idx, c.scan, enc),
        ))
    })())
}

/// How many updates the verdicts of a scan trail its update history by: the verdict ingestion
/// of a Splice scan is a stream of its own, a little behind `/v2/updates`.
const VERDICT_TRAIL: usize = 2;

/// `GET /v0/events/latest-record-time` (Splice 0.8 and later): the latest record time for which
/// `/v0/events` can answer (the verdict ingestion's head, [`VERDICT_TRAIL`] updates behind this
/// scan's newest update). The highest-numbered scan of a network of several is older: the path
/// falls into `/v0/events/{update_id}` and answers as that route does (404, no such update).
pub(super) async fn latest_event_record_time(
    State(c): State<ScanCtx>,
    RawQuery(query): RawQuery,
) -> Response {
    if c.app.scans > 1 && c.scan + 1 == c.app.scans {
        let request = ById {
            c,
            update_id: "latest-record-time".to_owned(),
            query,
        };
        return event_by_id(request).await;
    }
    let c = &c;
    done((|| {
        let w = c.app.read();
        let l = &w.ledger;
        let visible = c.app.visible_len(l, c.scan);
        let head = visible
            .checked_sub(1 + VERDICT_TRAIL)
            .and_then(|i| l.update(i))
            .ok_or_else(|| not_found("No verdicts ingested yet"))?;
        Ok(json_ok(&serde_json::json!({
            "record_time": crate::demo::util::fmt_time6(head.record_time)
        })))
    })())
}
