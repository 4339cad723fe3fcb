//! What the explorer knows of its local history index, read from the index's own bookkeeping:
//! how far it reaches and whether a sync is writing it (the heartbeat a sync updates, so a sync
//! in another process shows too; a stale heartbeat is no running sync). A pure state machine
//! owned by the app (in `Shared::index`): on the clock it asks for the reach (a `Request::Index`
//! the runtime runs on a blocking thread), it takes the reply, and it says once when the index
//! cannot be used (damaged, a disk error): the explorer then goes on without it, and tries again
//! now and then.

use crate::model::index::read::{IndexAnswer, IndexReach, IndexRead};
use crate::msg::{Fetched, Owner, Request, RequestId, RequestIds};

use super::loader::Note;

/// How often the reach is read (µs).
pub const REACH_EVERY: i64 = 5_000_000;
/// How often an index that could not be used is tried again (µs).
pub const RETRY_EVERY: i64 = 60_000_000;

/// The local index as the app knows it.
#[derive(Debug, Clone, Default)]
pub struct IndexFeed {
    /// Where it is (as messages name it); `None`: the profile has no index.
    pub location: Option<String>,
    /// The last reach read.
    pub reach: Option<IndexReach>,
    /// Why it cannot be used now (said once); the explorer runs without it meanwhile.
    pub failure: Option<String>,
    pending: Option<RequestId>,
    next_at: i64,
}

impl IndexFeed {
    /// The feed of the index at `location` (`None`: no index).
    pub fn new(location: Option<String>) -> Self {
        IndexFeed {
            location,
            ..IndexFeed::default()
        }
    }

    /// Whether the profile has an index.
    pub fn configured(&self) -> bool {
        self.location.is_some()
    }

    /// Whether the index can be read now (configured, and not found unusable).
    pub fn usable(&self) -> bool {
        self.location.is_some() && self.failure.is_none()
    }

    /// Whether `id` is this feed's request.
    pub fn owns(&self, id: RequestId) -> bool {
        self.pending == Some(id)
    }

    /// The reach request when one is due at `now`.
    pub fn tick(&mut self, now: i64, ids: &mut RequestIds) -> Option<(RequestId, Request)> {
        if self.location.is_none() || self.pending.is_some() || now < self.next_at {
            return None;
        }
        let id = ids.next(Owner::Index);
        self.pending = Some(id);
        Some((id, Request::Index(IndexRead::Reach { now })))
    }

    /// Takes the reply to the reach request; returns what to tell the user (once per change
    /// between usable and not) and whether what the header shows changed.
    pub fn on_reply(&mut self, reply: &Fetched, now: i64) -> (Option<(Note, String)>, bool) {
        if !self.owns(reply.id) {
            return (None, false);
        }
        self.pending = None;
        let answer = reply.index_answer();
        match answer {
            Ok(IndexAnswer::Reach(reach)) => {
                self.next_at = now + REACH_EVERY;
                let note = self.failure.take().map(|_| {
                    (
                        Note::Info,
                        format!(
                            "the local index is readable again ({})",
                            self.location.as_deref().unwrap_or_default()
                        ),
                    )
                });
                let changed = self.reach.as_ref() != Some(&reach);
                self.reach = Some(reach);
                let shown = note.is_some();
                (note, changed || shown)
            }
            Ok(_) => {
                self.next_at = now + REACH_EVERY;
                (None, false)
            }
            Err(message) => {
                self.next_at = now + RETRY_EVERY;
                self.reach = None;
                let first = self.failure.is_none();
                self.failure = Some(message.clone());
                let note = first.then(|| {
                    (
                        Note::Error,
                        format!("{message}; the explorer goes on without the local index"),
                    )
                });
                (note, first)
            }
        }
    }
}
