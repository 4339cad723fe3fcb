//! What the explorer knows of its local history index, read from the index's own bookkeeping:
//! how far it reaches and whether a sync is writing it (the heartbeat a sync updates, so a sync
//! in another process shows too; a stale heartbeat is no running sync). A pure state machine
//! owned by the app (in `Shared::index`): on the clock it asks for the reach (a `Request::Index`
//! the runtime runs on a blocking thread), it takes the reply, and it says once when the index
//! cannot be used (damaged, a disk error): the explorer then goes on without it, and tries again
//! now and then. An index named but not there yet is looked for at every reading, so one a sync
//! creates while the explorer runs is picked up within [`REACH_EVERY`] and said once; so is an
//! index replaced by another file (one of another network is refused, saying why).

use crate::model::index::read::{IndexAnswer, IndexReach, IndexRead};
use crate::msg::{Fetched, Owner, Request, RequestId, RequestIds};

use super::loader::Note;

/// How often the reach is read (µs).
pub const REACH_EVERY: i64 = 5_000_000;
/// How many times what a reading of the reach took the next one waits at least: the reach
/// counts the index's updates (half a second for 10 M in PostgreSQL, and it grows with the
/// index), so an explorer left open keeps to a twentieth of a core of the index's server.
pub const REACH_DUTY: i64 = 20;
/// The longest wait between readings of the reach (µs), however long one took.
pub const REACH_MAX: i64 = 60_000_000;
/// How often an index that could not be used is tried again (µs).
pub const RETRY_EVERY: i64 = 60_000_000;
/// How often the updates per day are read (µs): a count of the recent days' range of the
/// time index, more than the reach's few rows.
pub const PER_DAY_EVERY: i64 = 60_000_000;
/// The days of the Status pane's updates-per-day sparkline.
pub const PER_DAY_DAYS: usize = 14;

/// The local index as the app knows it.
#[derive(Debug, Clone, Default)]
pub struct IndexFeed {
    /// Where it is (as messages name it); `None`: the profile has no index.
    pub location: Option<String>,
    /// The last reach read.
    pub reach: Option<IndexReach>,
    /// Why it cannot be used now (said once); the explorer runs without it meanwhile.
    pub failure: Option<String>,
    /// The last reading found no index there (looked for again at every reading).
    pub absent: bool,
    /// The updates kept per UTC day over [`PER_DAY_DAYS`] days up to the newest update's day,
    /// oldest first (empty until read).
    pub per_day: Vec<u64>,
    per_day_at: i64,
    /// The DSO party of the network of the index read last (to tell a replaced index).
    network: Option<String>,
    /// The history the scan serves is not the one the index kept, in the sync's words (said
    /// once): History does not list the index's rows and nothing reads the index until a
    /// reading finds them the same again (the index replaced by a new sync).
    pub rewritten: Option<String>,
    pending: Option<RequestId>,
    next_at: i64,
}

/// How long after a reading of the reach that took the index `read_ms` the next one is due
/// (µs): [`REACH_EVERY`], or [`REACH_DUTY`] times the reading when longer, at most
/// [`REACH_MAX`].
pub fn reach_pause(read_ms: u32) -> i64 {
    (i64::from(read_ms) * 1_000 * REACH_DUTY).clamp(REACH_EVERY, REACH_MAX)
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
        self.location.is_some() && self.failure.is_none() && self.rewritten.is_none()
    }

    /// Whether `id` is this feed's request.
    pub fn owns(&self, id: RequestId) -> bool {
        self.pending == Some(id)
    }

    /// The reach request when one is due at `now`.
    pub fn tick(&mut self, now: i64, ids: &mut RequestIds) -> Option<(RequestId, Request)> {
        if self.location.is_none() || self.pending.is_some() {
            return None;
        }
        let reach = self.reach.as_ref().and_then(|r| Some((r.first?, r.last?)));
        let read = if now >= self.next_at {
            IndexRead::Reach { now }
        } else if let Some(reach) = reach
            && self.failure.is_none()
            && now >= self.per_day_at
        {
            IndexRead::PerDay {
                days: PER_DAY_DAYS,
                reach,
            }
        } else {
            return None;
        };
        let id = ids.next(Owner::Index);
        self.pending = Some(id);
        Some((id, Request::Index(read)))
    }

    /// Takes the reply to the reach request; `scan_dso`: the DSO party the profile's scan
    /// serves, when known (an index of another network is refused). Returns what to tell the
    /// user (once per change: unusable, appeared, replaced, refused, readable again) and whether
    /// what the header shows changed.
    pub fn on_reply(
        &mut self,
        reply: &Fetched,
        now: i64,
        scan_dso: Option<&str>,
    ) -> (Option<(Note, String)>, bool) {
        if !self.owns(reply.id) {
            return (None, false);
        }
        self.pending = None;
        let location = self.location.clone().unwrap_or_default();
        match reply.index_answer() {
            Ok(IndexAnswer::Reach(mut reach)) => {
                // Taken out: the reach read again in another time is the same reach.
                let read_ms = std::mem::take(&mut reach.read_ms);
                self.next_at = now + reach_pause(read_ms);
                if let Some(refusal) = self.refusal(&reach, scan_dso, &location) {
                    // Looked at again at every reading: a sync of the right network into
                    // another file moved there is picked up.
                    self.reach = None;
                    self.absent = false;
                    let first = self.failure.as_deref() != Some(refusal.as_str());
                    self.failure = Some(refusal.clone());
                    return (first.then_some((Note::Error, refusal)), first);
                }
                let was_absent = std::mem::take(&mut self.absent);
                let replaced = self.network.is_some() && self.network != reach.network
                    || self.reach.as_ref().is_some_and(|before| {
                        reach.updates < before.updates || reach.last < before.last
                    });
                let note = match self.failure.take() {
                    Some(_) if was_absent => Some(format!(
                        "the local index appeared: {} ({location})",
                        reach_words(&reach)
                    )),
                    Some(_) if self.network.is_some() && self.network != reach.network => {
                        Some(format!(
                            "the local index was replaced: {} ({location})",
                            reach_words(&reach)
                        ))
                    }
                    Some(_) => Some(format!("the local index is readable again ({location})")),
                    None if replaced => Some(format!(
                        "the local index was replaced: {} ({location})",
                        reach_words(&reach)
                    )),
                    None => None,
                };
                if reach.network.is_some() {
                    self.network.clone_from(&reach.network);
                }
                let changed = self.reach.as_ref() != Some(&reach);
                let rewritten = reach.rewritten.clone();
                self.reach = Some(reach);
                if rewritten != self.rewritten {
                    let was = std::mem::replace(&mut self.rewritten, rewritten.clone());
                    return match rewritten {
                        Some(text) => (Some((Note::Error, text)), true),
                        None if was.is_some() => (
                            Some((
                                Note::Info,
                                format!(
                                    "the local index holds the scan's history again ({location})"
                                ),
                            )),
                            true,
                        ),
                        None => (None, true),
                    };
                }
                let shown = note.is_some();
                (note.map(|n| (Note::Info, n)), changed || shown)
            }
            Ok(IndexAnswer::PerDay(days)) => {
                self.per_day_at = now + PER_DAY_EVERY;
                let changed = self.per_day != days;
                self.per_day = days;
                (None, changed)
            }
            Ok(_) => {
                self.next_at = now + REACH_EVERY;
                (None, false)
            }
            Err(message) => {
                let missing = message.starts_with("no index at ");
                // An index not there yet is looked for at every reading (a sync in another
                // terminal creates it); a damaged one is tried again now and then.
                self.next_at = now + if missing { REACH_EVERY } else { RETRY_EVERY };
                self.reach = None;
                self.absent = missing;
                let first = self.failure.as_deref() != Some(message.as_str());
                self.failure = Some(message.clone());
                let note = first.then(|| {
                    let text = if missing {
                        format!(
                            "{message}; the explorer goes on without the local index and picks it up once a sync creates it"
                        )
                    } else {
                        format!("{message}; the explorer goes on without the local index")
                    };
                    (Note::Error, text)
                });
                (note, first)
            }
        }
    }

    /// Why the index read is refused: it belongs to another network than the scan serves (or,
    /// before the scan answered, than the index read before).
    fn refusal(
        &self,
        reach: &IndexReach,
        scan_dso: Option<&str>,
        location: &str,
    ) -> Option<String> {
        let index_dso = reach.network.as_deref()?;
        let expected = scan_dso.or(self.network.as_deref())?;
        (index_dso != expected).then(|| {
            crate::api::sanitize_line(
                &format!(
                    "{location} is now the index of another network (DSO party {index_dso}; the scans serve {expected}): the explorer goes on without the local index; point --index at an index of this network"
                ),
                400,
            )
        })
    }
}

/// The reach in words: `1,234 updates, 2026-11-01 → 2026-11-27`.
fn reach_words(reach: &IndexReach) -> String {
    let count = crate::model::format::group_thousands(i64::try_from(reach.updates).unwrap_or(0));
    match (reach.first, reach.last) {
        (Some(first), Some(last)) => format!(
            "{count} updates, {} → {}",
            crate::model::format::format_time_micros(first),
            crate::model::format::format_time_micros(last)
        ),
        _ => format!("{count} updates"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msg::Response;

    /// The reply to `feed`'s pending reach request, read from the index in `read_ms` (the
    /// whole request, the scan's check beside it, 30 s: a scan that does not answer).
    fn reach_reply(feed: &IndexFeed, read_ms: u32) -> Fetched {
        let id = feed.pending.expect("a reach asked");
        Fetched {
            id,
            request: Request::Index(IndexRead::Reach { now: 0 }),
            result: Ok(Response::Index(Box::new(Ok(IndexAnswer::Reach(
                IndexReach {
                    read_ms,
                    ..IndexReach::default()
                },
            ))))),
            elapsed_ms: 30_000,
        }
    }

    #[test]
    fn a_reach_slow_to_count_is_read_again_less_often() {
        let mut ids = RequestIds::default();
        let mut feed = IndexFeed::new(Some("i.sqlite".to_owned()));
        let now = 1_000_000_000;
        for (elapsed_ms, next_in) in [
            (3, REACH_EVERY),
            (250, REACH_EVERY),
            (600, 12_000_000),
            (10_000, REACH_MAX),
        ] {
            let (_, request) = feed.tick(now, &mut ids).expect("due");
            assert!(matches!(request, Request::Index(IndexRead::Reach { .. })));
            let reply = reach_reply(&feed, elapsed_ms);
            feed.on_reply(&reply, now, None);
            assert_eq!(feed.next_at, now + next_in, "read in {elapsed_ms} ms");
            // Not asked again before it is due (the per-day counts may come in between).
            let early = feed.tick(now + next_in - 1, &mut ids);
            assert!(
                early.is_none_or(|(_, r)| !matches!(r, Request::Index(IndexRead::Reach { .. })))
            );
            feed.pending = None;
            feed.next_at = now;
        }
    }

    #[test]
    fn the_days_are_counted_within_the_reach_read_last_not_read_again() {
        let mut ids = RequestIds::default();
        let mut feed = IndexFeed::new(Some("i.sqlite".to_owned()));
        let now = 1_000_000_000;
        feed.tick(now, &mut ids).expect("the reach");
        let mut reply = reach_reply(&feed, 3);
        reply.result = Ok(Response::Index(Box::new(Ok(IndexAnswer::Reach(
            IndexReach {
                updates: 2,
                first: Some(10),
                last: Some(20),
                ..IndexReach::default()
            },
        )))));
        feed.on_reply(&reply, now, None);
        let (_, asked) = feed.tick(now + 1, &mut ids).expect("the days");
        assert!(
            matches!(
                asked,
                Request::Index(IndexRead::PerDay {
                    days: PER_DAY_DAYS,
                    reach: (10, 20)
                })
            ),
            "{asked:?}"
        );
    }
}
