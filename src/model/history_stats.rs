//! Update-rate statistics of the loaded history for the Status dashboard, pure and kept
//! incrementally: each sync looks only at the updates added since the last one (and, for
//! prepended pages, only those inside the window). Rates come from the record times of the
//! loaded updates, never from the time since the explorer started.

use std::collections::BTreeMap;

use crate::model::history::History;

/// Minutes of history in the updates-per-minute sparkline.
pub const RATE_WINDOW_MINUTES: i64 = 30;
/// The current rate is measured over this much record time before the newest update (µs).
pub const RECENT_RATE_US: i64 = 5 * MINUTE_US;

const MINUTE_US: i64 = 60_000_000;

/// Identity of a history item, to detect prepends and appends.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ItemKey {
    migration_id: i64,
    record_time: i64,
    update_id: Box<str>,
}

impl ItemKey {
    fn of(h: &History, index: usize) -> Option<ItemKey> {
        h.get(index).map(|s| ItemKey {
            migration_id: s.migration_id(),
            record_time: s.record_time(),
            update_id: s.update_id().as_str().into(),
        })
    }

    fn is_at(&self, h: &History, index: usize) -> bool {
        h.get(index).is_some_and(|s| {
            s.record_time() == self.record_time
                && s.migration_id() == self.migration_id
                && s.update_id_is(&self.update_id)
        })
    }
}

/// Update-rate statistics of the loaded history, kept incrementally: each sync looks only at
/// the items added since the last one (and, for prepended pages, only those inside the window).
#[derive(Debug, Clone, Default)]
pub struct HistoryStats {
    counted: usize,
    first: Option<ItemKey>,
    last: Option<ItemKey>,
    /// Minute (record time / 60 s) → number of updates, only inside the window.
    buckets: BTreeMap<i64, u64>,
    /// Record time of the newest loaded update.
    pub newest: Option<i64>,
    /// Record time of the oldest loaded update.
    pub oldest: Option<i64>,
    /// Migration id of the newest loaded update.
    pub migration_id: Option<i64>,
    /// Number of loaded updates.
    pub loaded: usize,
    /// Updates per minute over the last [`RECENT_RATE_US`] of record time (or the loaded span
    /// when shorter); None with fewer than two updates in a span of at least a second.
    pub recent_rate: Option<f64>,
}

impl HistoryStats {
    /// Brings the statistics up to date with `h`. Returns whether anything changed.
    pub fn sync(&mut self, h: &History) -> bool {
        let len = h.len();
        if len == self.counted
            && self.first.as_ref().is_none_or(|k| k.is_at(h, 0))
            && self
                .last
                .as_ref()
                .is_none_or(|k| len > 0 && k.is_at(h, len - 1))
        {
            return false;
        }
        // Where the previously counted run sits now.
        let placed = match (&self.first, &self.last) {
            (Some(first), Some(last)) if len >= self.counted => (0..=len - self.counted)
                .find(|&p| first.is_at(h, p))
                .filter(|&p| last.is_at(h, p + self.counted - 1)),
            (None, None) => Some(0),
            _ => None,
        };
        if let Some(p) = placed {
            self.add_appended(h, p + self.counted);
            self.add_prepended(h, p);
        } else {
            // The history was replaced (or lost items at the front): count the window
            // again, walking back from the newest end only.
            self.buckets.clear();
            self.newest = h
                .last()
                .map(crate::model::summary::UpdateSummary::record_time);
            if let Some(start) = self.window_start_minute() {
                for s in h.iter().rev() {
                    let m = s.record_time().div_euclid(MINUTE_US);
                    if m < start {
                        break;
                    }
                    *self.buckets.entry(m).or_insert(0) += 1;
                }
            }
        }
        self.counted = len;
        self.loaded = len;
        self.first = ItemKey::of(h, 0);
        self.last = len.checked_sub(1).and_then(|i| ItemKey::of(h, i));
        self.oldest = h
            .first()
            .map(crate::model::summary::UpdateSummary::record_time);
        self.migration_id = h
            .last()
            .map(crate::model::summary::UpdateSummary::migration_id);
        self.recent_rate = recent_rate(h);
        true
    }

    fn window_start_minute(&self) -> Option<i64> {
        self.newest
            .map(|n| n.div_euclid(MINUTE_US) - (RATE_WINDOW_MINUTES - 1))
    }

    /// Counts items `from..len` (newer than everything counted).
    fn add_appended(&mut self, h: &History, from: usize) {
        let len = h.len();
        if from >= len {
            return;
        }
        let newest_new = (from..len)
            .filter_map(|i| {
                h.get(i)
                    .map(crate::model::summary::UpdateSummary::record_time)
            })
            .max();
        if let Some(n) = newest_new {
            self.newest = Some(self.newest.map_or(n, |o| o.max(n)));
        }
        let Some(start) = self.window_start_minute() else {
            return;
        };
        // Only the tail inside the window matters: walk back from the end.
        for i in (from..len).rev() {
            let Some(s) = h.get(i) else { break };
            let m = s.record_time().div_euclid(MINUTE_US);
            if m < start {
                break;
            }
            *self.buckets.entry(m).or_insert(0) += 1;
        }
        self.buckets = self.buckets.split_off(&start);
    }

    /// Counts items `0..to` (older than everything counted), newest first, stopping at the
    /// window's start.
    fn add_prepended(&mut self, h: &History, to: usize) {
        if self.newest.is_none() {
            self.newest = (0..to)
                .filter_map(|i| {
                    h.get(i)
                        .map(crate::model::summary::UpdateSummary::record_time)
                })
                .max();
        }
        let Some(start) = self.window_start_minute() else {
            return;
        };
        for i in (0..to).rev() {
            let Some(s) = h.get(i) else { break };
            let m = s.record_time().div_euclid(MINUTE_US);
            if m < start {
                break;
            }
            *self.buckets.entry(m).or_insert(0) += 1;
        }
    }

    /// Updates per minute over the window, oldest minute first; None for minutes before the
    /// oldest loaded update (not loaded, so unknown).
    pub fn per_minute(&self) -> Vec<Option<u64>> {
        let (Some(start), Some(newest)) = (self.window_start_minute(), self.newest) else {
            return Vec::new();
        };
        let end = newest.div_euclid(MINUTE_US);
        let oldest_min = self.oldest.map_or(start, |o| o.div_euclid(MINUTE_US));
        (start..=end)
            .map(|m| {
                if m < oldest_min {
                    None
                } else {
                    Some(self.buckets.get(&m).copied().unwrap_or(0))
                }
            })
            .collect()
    }

    /// Average updates per minute over the loaded part of the window.
    pub fn average_per_minute(&self) -> Option<f64> {
        let known: Vec<u64> = self.per_minute().into_iter().flatten().collect();
        if known.is_empty() {
            return None;
        }
        Some(known.iter().sum::<u64>() as f64 / known.len() as f64)
    }

    /// Updates in the last complete minute before the newest update's minute.
    pub fn last_full_minute(&self) -> Option<u64> {
        let pm = self.per_minute();
        pm.len().checked_sub(2).and_then(|i| pm[i])
    }
}

/// Updates per minute from the record times of the newest updates: the count over the last
/// [`RECENT_RATE_US`] before the newest update when the loaded history covers it, otherwise
/// the updates between the oldest and the newest loaded one over the time between them.
fn recent_rate(h: &History) -> Option<f64> {
    let newest = h.last()?.record_time();
    let start = newest - RECENT_RATE_US;
    let mut count = 0u64;
    let mut oldest = newest;
    let mut covered = false;
    for s in h.iter().rev() {
        if s.record_time() < start {
            covered = true;
            break;
        }
        count += 1;
        oldest = oldest.min(s.record_time());
    }
    if covered {
        return Some(count as f64 * MINUTE_US as f64 / RECENT_RATE_US as f64);
    }
    let span = newest - oldest;
    (count >= 2 && span >= 1_000_000).then(|| (count - 1) as f64 * MINUTE_US as f64 / span as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::scan::UpdateItem;
    use crate::model::fixtures::{item, transaction};
    use crate::model::format::format_time_micros;
    use crate::model::history::Placement;

    const T0: i64 = 1_800_000_000_000_000;

    /// `n` updates evenly spread over `[from, to)` (µs).
    fn updates(prefix: &str, from: i64, to: i64, n: usize) -> Vec<UpdateItem> {
        (0..n)
            .map(|i| {
                let t = from + (to - from) * i as i64 / n as i64;
                let mut v = transaction(&format!("{prefix}{i:05}"), 0, Vec::new());
                v["record_time"] = format_time_micros(t).into();
                item(&v)
            })
            .collect()
    }

    #[test]
    fn appended_and_prepended_pages_count_like_a_full_recount() {
        let mut h = History::default();
        let mut st = HistoryStats::default();
        h.add_page(
            &updates("a", T0, T0 + 10 * MINUTE_US, 100),
            Placement::Append,
        );
        assert!(st.sync(&h));
        assert!(!st.sync(&h), "nothing new");
        h.add_page(
            &updates("b", T0 + 10 * MINUTE_US, T0 + 12 * MINUTE_US, 40),
            Placement::Append,
        );
        st.sync(&h);
        h.add_page(
            &updates("c", T0 - 40 * MINUTE_US, T0, 80),
            Placement::Prepend,
        );
        st.sync(&h);
        let mut fresh = HistoryStats::default();
        fresh.sync(&h);
        assert_eq!(st.per_minute(), fresh.per_minute());
        assert_eq!(st.per_minute().len(), RATE_WINDOW_MINUTES as usize);
        assert_eq!(st.loaded, 220);
    }

    #[test]
    fn the_rate_comes_from_record_times_not_from_the_time_loaded() {
        // 30 s of history at 2 updates per second (120/min): the rate is 120/min at once.
        let mut h = History::default();
        h.add_page(&updates("a", T0, T0 + 30_000_000, 60), Placement::Append);
        let mut st = HistoryStats::default();
        st.sync(&h);
        let r = st.recent_rate.expect("a rate");
        assert!((r - 120.0).abs() < 3.0, "{r}");
        // 20 minutes at 10/min: the last 5 minutes count.
        let mut h = History::default();
        h.add_page(
            &updates("b", T0, T0 + 20 * MINUTE_US, 200),
            Placement::Append,
        );
        st.sync(&h);
        let r = st.recent_rate.expect("a rate");
        assert!((r - 10.0).abs() < 0.5, "{r}");
        // One update says nothing about a rate.
        let mut h = History::default();
        h.add_page(&updates("c", T0, T0 + 1, 1), Placement::Append);
        st.sync(&h);
        assert_eq!(st.recent_rate, None);
    }
}
