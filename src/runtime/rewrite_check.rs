//! Whether the history the profile's scan serves is still the one the local index kept (issue
//! 37 §3: a new user restarted the demo, a scan was restored from a backup). Asked beside the
//! reach reading, only when the index's newest kept update changed since the last check (so a
//! following sync costs one one-update page of the scan per reading, an idle index none): the
//! newest update the index walked is looked for at its position on the scan. The same update
//! there, or a scan whose history starts after it (pruned: the index is then the only copy), is
//! the same history; another update there, or none while the scan serves history before it, is
//! a rewrite, named in the sync's words ([`crate::model::reread`]). Once found, the explorer's
//! loader no longer takes pages from the index, and the app stops reading it.

use std::sync::{Arc, Mutex, PoisonError};

use crate::api::ApiClient;
use crate::api::scan::{UpdateItem, UpdatesAfter, UpdatesRequest, ValueEncoding};
use crate::model::format::{format_time_micros, parse_time_micros};
use crate::model::index::read::RangeFrom;
use crate::model::position::At;
use crate::model::reread::{Kept, Rewrite, reread};
use crate::store::{IndexReader, StoreError};

/// What the checks found so far (shared by the clones of an index source).
#[derive(Debug, Clone, Default)]
pub struct RewriteCheck(Arc<Mutex<Checked>>);

#[derive(Debug, Default)]
struct Checked {
    /// The newest kept update last found on the scan at its position.
    confirmed: Option<String>,
    /// A rewrite, in the sync's words, and the newest kept update it was found at (an index
    /// replaced by a sync of the scan's history checks again, and clears it).
    rewritten: Option<(String, String)>,
}

/// The newest update the index walked: its id and position, and how far the walk that kept it
/// reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Newest {
    pub update_id: String,
    pub at: At,
    pub walked_to: At,
}

impl RewriteCheck {
    /// The rewrite found, if any.
    pub fn rewritten(&self) -> Option<String> {
        self.lock().rewritten.as_ref().map(|(_, text)| text.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Checked> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `newest` still has to be looked for on the scan.
    pub fn due(&self, newest: &Newest) -> bool {
        let checked = self.lock();
        checked.confirmed.as_deref() != Some(&newest.update_id)
            && checked.rewritten.as_ref().map(|(k, _)| k) != Some(&newest.update_id)
    }

    /// Looks for `newest` on `scan` and keeps what it found. A scan that does not answer leaves
    /// it unchecked (asked again at the next reading).
    pub async fn run(&self, scan: &ApiClient, newest: &Newest) {
        let Ok(found) = look(scan, newest).await else {
            return;
        };
        let mut checked = self.lock();
        match found {
            Ok(()) => {
                checked.confirmed = Some(newest.update_id.clone());
                checked.rewritten = None;
            }
            Err(rewrite) => {
                checked.confirmed = None;
                checked.rewritten = Some((
                    newest.update_id.clone(),
                    format!(
                        "{}; the scan's history is not the one the index kept (a demo restarted, a scan restored): History no longer lists the index's rows; sync from scratch into a new file (`cantonscope index sync --index NEW`) or start the explorer with `--index` another file",
                        StoreError::from(rewrite)
                    ),
                ));
            }
        }
    }
}

/// The newest update the index walked (`None`: it keeps none, or none a walk covers).
pub fn newest(store: &mut dyn IndexReader, last: i64) -> Result<Option<Newest>, StoreError> {
    let rows = store.range_rows(last, &RangeFrom::Offset(0), 16)?;
    // The updates only: an event with a verdict and no update is not on the scan's
    // `/v2/updates`.
    let Some(row) = rows
        .iter()
        .filter(|r| !r.is_verdict_only())
        .filter_map(|r| {
            Some((
                At::new(r.migration_id, parse_time_micros(&r.record_time)?),
                r,
            ))
        })
        .max_by_key(|(at, _)| *at)
    else {
        return Ok(None);
    };
    let (at, row) = row;
    let pos = |p: &crate::store::Position| {
        parse_time_micros(&p.record_time).map(|t| At::new(p.migration_id, t))
    };
    let walked_to = crate::store::covered(&store.chunks()?)
        .iter()
        .filter_map(|(_, reach)| pos(reach))
        .filter(|reach| at <= *reach)
        .min();
    Ok(walked_to.map(|walked_to| Newest {
        update_id: row.update_id.clone(),
        at,
        walked_to,
    }))
}

/// The scan's first `n` updates after `after` (`None`: from its beginning), with their
/// positions.
async fn first_after(
    scan: &ApiClient,
    after: Option<At>,
    n: i32,
) -> Result<Vec<(String, At)>, crate::api::ApiError> {
    let call = crate::api::scan::updates(&UpdatesRequest {
        page_size: n,
        after: after.map(|a| UpdatesAfter {
            after_migration_id: a.migration_id,
            after_record_time: format_time_micros(a.record_time),
        }),
        encoding: ValueEncoding::CompactJson,
    });
    let page = scan.send(&call).await?;
    Ok(page.transactions.iter().filter_map(position).collect())
}

fn position(item: &UpdateItem) -> Option<(String, At)> {
    Some((
        item.update_id()?.to_owned(),
        At::new(
            item.migration_id()?,
            parse_time_micros(item.record_time()?)?,
        ),
    ))
}

/// `Ok(Ok(()))`: the same history; `Ok(Err(_))`: rewritten; `Err`: the scan did not answer.
async fn look(
    scan: &ApiClient,
    newest: &Newest,
) -> Result<Result<(), Rewrite>, crate::api::ApiError> {
    let before = At::new(newest.at.migration_id, newest.at.record_time - 1);
    // A few: updates recorded in the same microsecond come in the ledger's order.
    let there = first_after(scan, Some(before), 8).await?;
    if there
        .iter()
        .any(|(id, at)| *id == newest.update_id && *at == newest.at)
    {
        return Ok(Ok(()));
    }
    if let Some((id, at)) = there.first()
        && *at <= newest.walked_to
    {
        // Another update at a position the index walked past (or the index's newest moved).
        return Ok(reread(id, *at, Kept::Absent, Some(newest.walked_to)).map(|_| ()));
    }
    // The index's newest is not on the scan: rewritten, unless the scan's history starts after
    // it (pruned, or a scan that never had it).
    let first = first_after(scan, None, 1).await?;
    if first.first().is_some_and(|(_, at)| *at < newest.at) {
        return Ok(Err(Rewrite {
            update_id: newest.update_id.clone(),
            position: newest.at,
            what: "is gone from the scan's history".to_owned(),
        }));
    }
    Ok(Ok(()))
}
