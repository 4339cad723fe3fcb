//! Counts of two terms together, kept for the frequent terms ("hubs").
//!
//! A count of two terms probes the rarer term's updates one by one for the other: fast while
//! the rarer has few updates, and growing with the index when both are frequent (the DSO party
//! and a common choice: millions of probes at 10 M updates). So a term with at least
//! [`DEFAULT_THRESHOLD`] updates becomes a hub, and for every two hubs the index keeps how many
//! updates have both (`pairs`, `a < b`): a count of two hubs reads one row, and any other
//! count of two terms probes at most the threshold's number of updates.
//!
//! The rule every engine keeps, page by page in the page's transaction:
//! - a page's new updates raise the pairs of the hubs they have (hubs before the page);
//! - a term whose count reaches the threshold in a page becomes a hub, its pairs with every
//!   hub counted once over the keys (the page's included), driven by its own updates;
//! - prune lowers the pairs by the updates it removes; a hub whose term is gone goes.
//!
//! A count uses a pair only when both terms are hubs, so what the threshold was when a term
//! became one changes only speed, never an answer.

use std::collections::{HashMap, HashSet};

/// Updates a term has when it becomes a hub. A count of two terms that are not both hubs
/// probes at most this many updates (about 0.1 s warm).
pub const DEFAULT_THRESHOLD: i64 = 100_000;

/// The meta key holding the threshold (tests set a small one).
pub const THRESHOLD_KEY: &str = "hub_threshold";

/// The threshold an index's meta value gives (the default when unset or unreadable).
pub fn threshold(meta: Option<&str>) -> i64 {
    meta.and_then(|t| t.parse().ok())
        .filter(|t: &i64| *t > 0)
        .unwrap_or(DEFAULT_THRESHOLD)
}

/// How many of a page's updates have each two `hubs` together: `updates` gives each update's
/// term ids (a term twice in one update counts once).
pub fn page_pairs<'a, S: std::hash::BuildHasher>(
    updates: impl IntoIterator<Item = &'a [i64]>,
    hubs: &HashSet<i64, S>,
) -> HashMap<(i64, i64), i64> {
    let mut pairs = HashMap::new();
    let mut present: Vec<i64> = Vec::new();
    for terms in updates {
        present.clear();
        present.extend(terms.iter().filter(|t| hubs.contains(t)));
        present.sort_unstable();
        present.dedup();
        for (i, a) in present.iter().enumerate() {
            for b in &present[i + 1..] {
                *pairs.entry((*a, *b)).or_default() += 1;
            }
        }
    }
    pairs
}

/// Term ids as an SQL list (`1,2,3`): integers read from the index itself, written into the
/// SQL as numbers.
pub fn id_list(ids: &[i64]) -> String {
    ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
}

/// The pair row of two distinct terms (`None`: the same term twice).
pub fn pair_of(x: i64, y: i64) -> Option<(i64, i64)> {
    match x.cmp(&y) {
        std::cmp::Ordering::Less => Some((x, y)),
        std::cmp::Ordering::Greater => Some((y, x)),
        std::cmp::Ordering::Equal => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_counts_each_two_hubs_an_update_has_once() {
        let hubs: HashSet<i64> = [1, 2, 3].into_iter().collect();
        let updates: Vec<Vec<i64>> = vec![
            vec![3, 1, 9, 2, 1], // 1, 2, 3 (1 twice, 9 is no hub)
            vec![2, 9],          // one hub: no pair
            vec![1, 3],
        ];
        let pairs = page_pairs(updates.iter().map(Vec::as_slice), &hubs);
        let mut got: Vec<_> = pairs.into_iter().collect();
        got.sort_unstable();
        assert_eq!(got, vec![((1, 2), 1), ((1, 3), 2), ((2, 3), 1)]);
    }

    #[test]
    fn the_threshold_comes_from_the_index_or_is_the_default() {
        assert_eq!(threshold(Some("3")), 3);
        assert_eq!(threshold(None), DEFAULT_THRESHOLD);
        assert_eq!(threshold(Some("x")), DEFAULT_THRESHOLD);
        assert_eq!(threshold(Some("0")), DEFAULT_THRESHOLD);
        assert_eq!(pair_of(5, 2), Some((2, 5)));
        assert_eq!(pair_of(2, 2), None);
    }
}
