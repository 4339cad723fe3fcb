//! One update across every scan: `GET /v2/updates/{id}` (or `/v0/events/{id}`) from all of them;
//! for scans that answer 404 while others have the update, whether their history has reached it
//! and whether they are still backfilling (so a 404 reads as "don't know", not as a different
//! answer). The verdict is `model::consensus::classify_update`.

use futures_util::future::join_all;

use super::{Network, Reply};
use crate::api::scan::{self, UpdatesRequest, ValueEncoding};
use crate::model::consensus::{
    Answer, LocalFields, Position, ScanHistory, UpdateCheck, classify_update, update_position,
};
use crate::model::format::format_time_micros;

/// Which endpoint is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateSource {
    /// `GET /v2/updates/{update_id}` (BFT-safe).
    Update,
    /// `GET /v0/events/{update_id}`, without `verdict.finalization_time` and
    /// `app_activity_records`.
    Event,
}

impl UpdateSource {
    /// The fields left out of the comparison.
    pub fn local_fields(self) -> LocalFields {
        match self {
            UpdateSource::Update => LocalFields::UPDATE,
            UpdateSource::Event => LocalFields::EVENT,
        }
    }

    /// The endpoint, as shown.
    pub fn endpoint(self) -> &'static str {
        match self {
            UpdateSource::Update => "GET /v2/updates/{update_id}",
            UpdateSource::Event => "GET /v0/events/{update_id}",
        }
    }
}

/// The replies and their classification.
#[derive(Debug, Clone)]
pub struct CheckedUpdate {
    pub replies: Vec<Reply>,
    pub history: Vec<ScanHistory>,
    pub check: UpdateCheck,
}

/// Asks every scan for `update_id` and classifies the answers.
pub async fn check_update(net: &Network, update_id: &str, source: UpdateSource) -> CheckedUpdate {
    let local = source.local_fields();
    let replies = match source {
        UpdateSource::Update => {
            net.ask_all(&scan::update_by_id(update_id, &ValueEncoding::CompactJson))
                .await
        }
        UpdateSource::Event => {
            net.ask_all(&scan::event(update_id, &ValueEncoding::CompactJson))
                .await
        }
    };
    let answers: Vec<Answer> = replies.iter().map(|r| r.answer(local)).collect();
    let position = answers.iter().find_map(|a| match a {
        Answer::Ok(body) => body.json().and_then(update_position),
        _ => None,
    });
    let history: Vec<ScanHistory> = match position {
        Some(position) => {
            join_all(answers.iter().enumerate().map(|(scan, answer)| async move {
                if matches!(answer, Answer::Error { status: 404, .. }) {
                    scan_history(net, scan, position).await
                } else {
                    ScanHistory::default()
                }
            }))
            .await
        }
        None => vec![ScanHistory::default(); answers.len()],
    };
    let check = classify_update(&answers, &net.counted(), &history, false);
    CheckedUpdate {
        replies,
        history,
        check,
    }
}

/// Whether scan `scan`'s history reaches `position`, and whether it is still backfilling: a
/// page of one after (migration, just before the update's record time) is empty exactly when
/// its history ends before the update. Where it ends is not learnt (the head stays `None`).
async fn scan_history(net: &Network, scan: usize, position: Position) -> ScanHistory {
    let probe = UpdatesRequest::after(
        1,
        position.migration_id,
        format_time_micros(position.record_time - 1),
    );
    let call = scan::updates(&probe);
    let backfill_call = scan::backfilling_status();
    let (page, backfill) = tokio::join!(net.ask(scan, &call), net.ask(scan, &backfill_call));
    let decode_ok = |reply: &Reply| {
        reply
            .success()
            .map(|e| (e.status, e.headers.clone(), e.body.clone()))
    };
    // Something at or after the update: its history reaches it; nothing: it ends before
    // (where exactly is not known from this probe).
    let reaches = decode_ok(&page)
        .and_then(|(s, h, b)| call.decode_response(s, &h, &b).ok())
        .map(|page| !page.transactions.is_empty());
    let backfilling = decode_ok(&backfill)
        .and_then(|(s, h, b)| backfill_call.decode_response(s, &h, &b).ok())
        .map(|status| !status.complete);
    ScanHistory {
        head: None,
        reaches,
        backfilling,
    }
}
