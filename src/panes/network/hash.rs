//! The `:hash` lookup (`/v2/updates/hash/{hash}`), trying every configured scan in turn because
//! each scan indexes hashes only from its own starting point.

use super::NetworkPane;
use crate::api::ApiError;
use crate::api::scan::UpdateItem;
use crate::msg::{Effect, Request, RequestId, Response};
use crate::panes::{AppEvent, Out, Shared};
use crate::ui::safe::safe_line;

/// A `:hash` lookup walking the configured scans.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct HashLookup {
    pub(super) hash: String,
    pub(super) scan: usize,
    pub(super) id: RequestId,
    /// Scans tried so far and what each said.
    pub(super) misses: Vec<(usize, String)>,
}

impl NetworkPane {
    // -----------------------------------------------------------------------------------------
    // :hash
    // -----------------------------------------------------------------------------------------

    /// Starts a `:hash` lookup on scan 0; on a miss the other configured scans are tried in
    /// turn, and the update opens in the Update pane from the first scan that has it.
    pub fn lookup_hash(&mut self, hash: &str, sh: &mut Shared, out: &mut Out) {
        let hash = hash.trim();
        if hash.is_empty() {
            out.error("hash: give the hash of a prepared transaction (hex)");
            return;
        }
        if let Some(old) = self.hash.take() {
            out.effects.push(Effect::Cancel(old.id));
        }
        let id = out.fetch(sh, by_hash(0, hash));
        self.hash = Some(HashLookup {
            hash: hash.to_string(),
            scan: 0,
            id,
            misses: Vec::new(),
        });
        out.info(format!(
            "looking up hash {} on {}…",
            safe_line(hash, 20),
            scan_name(sh, 0)
        ));
    }

    pub(super) fn on_hash_reply(
        &mut self,
        result: &Result<Response, ApiError>,
        sh: &mut Shared,
        out: &mut Out,
    ) {
        let Some(mut job) = self.hash.take() else {
            return;
        };
        let short = safe_line(&job.hash, 20).into_owned();
        match result.as_ref().map(|r| r.answer::<UpdateItem>()) {
            Ok(Some(item)) => match item.update_id() {
                Some(update_id) => {
                    let mut msg = format!("hash {short} found on {}", scan_name(sh, job.scan));
                    if !job.misses.is_empty() {
                        let names: Vec<String> = job
                            .misses
                            .iter()
                            .map(|(i, _)| format!("{}", i + 1))
                            .collect();
                        msg.push_str(&format!(" (not indexed by scan {})", names.join(", ")));
                    }
                    out.info(msg);
                    out.events.push(AppEvent::OpenUpdate {
                        update_id: update_id.to_string(),
                        event_id: None,
                    });
                }
                None => out.error(format!(
                    "hash {short}: {} returned an update that could not be decoded",
                    scan_name(sh, job.scan)
                )),
            },
            Ok(None) => out.error(format!("hash {short}: unexpected response")),
            Err(e) => {
                let miss = matches!(
                    e,
                    ApiError::NotFound { .. }
                        | ApiError::EndpointNotServed { .. }
                        | ApiError::Connect { .. }
                        | ApiError::Timeout { .. }
                ) || e.is_transient();
                if !miss {
                    out.error(format!("hash {short}: {e}"));
                    return;
                }
                let said = match e {
                    ApiError::NotFound { .. } => "not indexed".to_string(),
                    other => other.to_string(),
                };
                job.misses.push((job.scan, said));
                let scans = sh.ctx.scan_urls.len().max(1);
                let next = job.scan + 1;
                if next < scans {
                    out.info(format!(
                        "{} has no update for hash {short}; trying {}…",
                        scan_name(sh, job.scan),
                        scan_name(sh, next)
                    ));
                    job.scan = next;
                    job.id = out.fetch(sh, by_hash(next, &job.hash));
                    self.hash = Some(job);
                } else {
                    out.error(hash_miss_message(sh, &short, &job.misses));
                }
            }
        }
    }
}

/// The name of scan `i` for messages: `scan 2 (https://…)`.
pub(super) fn scan_name(sh: &Shared, i: usize) -> String {
    match sh.ctx.scan_urls.get(i) {
        Some(url) => format!("scan {} ({})", i + 1, safe_line(url, 60)),
        None => format!("scan {}", i + 1),
    }
}

/// The error after every configured scan missed a hash.
pub(super) fn hash_miss_message(sh: &Shared, short: &str, misses: &[(usize, String)]) -> String {
    let tried: Vec<String> = misses
        .iter()
        .map(|(i, said)| format!("{}: {}", scan_name(sh, *i), said))
        .collect();
    let mut msg = format!("no update for hash {short} on {}. ", tried.join("; "));
    msg.push_str(
        "A scan indexes hashes only from the point it started indexing them, so an older update may be known to another scan",
    );
    if sh.ctx.scan_urls.len() <= 1 {
        msg.push_str("; configure more scan URLs (scan_urls) to try them");
    }
    msg
}

/// The look-up of `hash` on configured scan `scan` (from 0).
fn by_hash(scan: usize, hash: &str) -> Request {
    let call = crate::api::scan::update_by_hash(hash, &crate::api::scan::ValueEncoding::default());
    Request::on_scan(scan, call)
}
