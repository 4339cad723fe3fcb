//! The update history from the shell: `scan updates --all` walks every page of `/v2/updates`
//! and writes one update per line (JSON Lines) as the pages come, rate-limited, with progress on
//! stderr when stderr is a terminal; and the migrations of a scan (their first record times),
//! which `--from` and the default `--migration-id` of `scan holdings` need.
//!
//! Every loop here makes progress or stops with a message: a page whose cursor does not move
//! forward ends the walk ("the scan returned the same page twice"). The page walking itself is
//! [`crate::model::page_walk::PageWalk`], shared with the History pane's export from the server.

use std::io::{IsTerminal, Write};

use crate::api::scan::{self, UpdatesAfter, UpdatesRequest, ValueEncoding};
use crate::api::{ApiClient, ApiError};
use crate::every_scan::limiter::Limiter;
use crate::model::format::parse_time_micros;
use crate::model::index::compact_json;
use crate::model::json_text;
use crate::model::network::{FAR_FUTURE, migration_at};
use crate::model::page_walk::{PageWalk, cursor_at};

/// Most migrations looked at (each a request).
const MAX_MIGRATIONS: usize = 1000;
/// Most 429 answers in a row before giving up.
const MAX_THROTTLED: u32 = 20;

/// Why the walk stopped early.
#[derive(Debug)]
pub enum WalkError {
    Api(ApiError),
    /// The server misbehaved in a way no retry fixes.
    Server(String),
    /// stdout could not be written (other than a closed pipe).
    Output(String),
}

impl From<ApiError> for WalkError {
    fn from(e: ApiError) -> Self {
        WalkError::Api(e)
    }
}

/// What `scan updates --all` was asked.
#[derive(Debug, Clone)]
pub struct WalkRequest {
    pub page_size: i32,
    /// `None` or `begin`: the ledger begin; else an RFC 3339 time.
    pub from: Option<String>,
    /// An explicit cursor (`--after-migration-id`, `--after-record-time`).
    pub after: Option<UpdatesAfter>,
    /// Inclusive upper bound (RFC 3339).
    pub until: Option<String>,
    /// Requests per second at most.
    pub rate: f64,
    pub encoding: ValueEncoding,
    /// At most this many updates in all (`None`: every one).
    pub limit: Option<u64>,
}

/// What the walk did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WalkStats {
    pub updates: u64,
    pub pages: u64,
    /// Items written as sent that do not have the expected shape.
    pub malformed: u64,
}

/// Sends `call` through the limiter, waiting out 429s (bounded).
async fn send_limited<T: Send + 'static>(
    client: &ApiClient,
    limiter: &Limiter,
    call: &crate::api::Call<T>,
) -> Result<T, ApiError> {
    let mut throttled = 0;
    loop {
        limiter.acquire().await;
        match client.send(call).await {
            Err(e) if e.status() == Some(429) && throttled < MAX_THROTTLED => {
                throttled += 1;
                limiter.too_many(None);
            }
            other => {
                if other.is_ok() {
                    limiter.succeeded();
                }
                return other;
            }
        }
    }
}

/// The migrations of the scan's history with the record time (µs) of each one's first update,
/// oldest first: a page of one from the beginning, then after (k, far future) for each k.
pub async fn migration_starts(
    client: &ApiClient,
    limiter: &Limiter,
) -> Result<Vec<(i64, i64)>, WalkError> {
    let mut starts: Vec<(i64, i64)> = Vec::new();
    let mut request = UpdatesRequest::from_begin(1);
    for _ in 0..MAX_MIGRATIONS {
        let page = send_limited(client, limiter, &scan::updates(&request)).await?;
        let Some(item) = page
            .transactions
            .iter()
            .find(|i| i.migration_id().is_some())
        else {
            break;
        };
        let migration = item.migration_id().unwrap_or_default();
        let time = item
            .record_time()
            .and_then(parse_time_micros)
            .ok_or_else(|| {
                WalkError::Server(format!(
                    "unreadable record time {:?} in the first update of migration {migration}",
                    crate::api::sanitize_line(item.record_time().unwrap_or_default(), 60)
                ))
            })?;
        if starts.last().is_some_and(|(m, _)| *m >= migration) {
            return Err(WalkError::Server(
                "the scan ignored the cursor of /v2/updates (it returned the same migration twice)"
                    .to_owned(),
            ));
        }
        starts.push((migration, time));
        request = UpdatesRequest::after(1, migration, FAR_FUTURE);
    }
    Ok(starts)
}

/// The scan's current (newest) migration id (0 for an empty history).
pub async fn newest_migration(client: &ApiClient, limiter: &Limiter) -> Result<i64, WalkError> {
    Ok(migration_starts(client, limiter)
        .await?
        .last()
        .map_or(0, |(m, _)| *m))
}

/// Writes `line` and a newline; `Ok(false)` when the reader went away (`| head`).
fn write_line(out: &mut dyn Write, line: &str) -> Result<bool, WalkError> {
    match out
        .write_all(line.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
    {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(WalkError::Output(format!("cannot write the output: {e}"))),
    }
}

/// Walks the history as asked and writes every update to `out`, one per line, flushing after
/// each page. Progress goes to `err` when stderr is a terminal.
pub async fn walk(
    client: &ApiClient,
    req: &WalkRequest,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<WalkStats, WalkError> {
    let limiter = Limiter::new(req.rate);
    let progress = std::io::stderr().is_terminal();
    let until = match &req.until {
        Some(t) => Some(
            parse_time_micros(t)
                .ok_or_else(|| WalkError::Server(format!("--until is not a time: {t}")))?,
        ),
        None => None,
    };
    let cursor: Option<UpdatesAfter> = match (&req.after, req.from.as_deref()) {
        (Some(after), _) => Some(after.clone()),
        (None, None | Some("begin")) => None,
        (None, Some(from)) => {
            let time = parse_time_micros(from)
                .ok_or_else(|| WalkError::Server(format!("--from is not a time: {from}")))?;
            let starts = migration_starts(client, &limiter).await?;
            // `after` is exclusive: the cursor starts one microsecond earlier.
            Some(cursor_at(migration_at(&starts, time), time))
        }
    };
    let mut stats = WalkStats::default();
    let mut pages = PageWalk::new(cursor, until, req.page_size).with_encoding(req.encoding.clone());
    while !pages.is_done() {
        let page = send_limited(client, &limiter, &scan::updates(&pages.request())).await?;
        let take = pages.on_page(&page).map_err(WalkError::Server)?;
        if !page.transactions.is_empty() {
            stats.pages += 1;
        }
        for item in &page.transactions[take.range()] {
            if req.limit.is_some_and(|n| stats.updates >= n) {
                break;
            }
            let line = compact_json(item.raw().get());
            if !write_line(out, &json_text::escape_unsafe(&line))? {
                return Ok(stats);
            }
            stats.updates += 1;
            if matches!(item, scan::UpdateItem::Malformed { .. }) {
                stats.malformed += 1;
            }
        }
        if let Err(e) = out.flush() {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                return Ok(stats);
            }
            return Err(WalkError::Output(format!("cannot write the output: {e}")));
        }
        if req.limit.is_some_and(|n| stats.updates >= n) {
            break;
        }
        if progress && let Some(next) = pages.cursor() {
            let _ = write!(
                err,
                "\r{} updates · {} pages · at {}",
                stats.updates,
                stats.pages,
                crate::api::sanitize_line(&next.after_record_time, 40)
            );
            let _ = err.flush();
        }
    }
    if progress {
        let _ = writeln!(err);
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_json_keeps_strings_and_drops_layout() {
        let text = "{\n  \"a b\": [1, 2],\n  \"s\": \"x \\\" y\\\\\",\t\"n\": null\r\n}";
        assert_eq!(
            compact_json(text),
            r#"{"a b":[1,2],"s":"x \" y\\","n":null}"#
        );
    }
}
