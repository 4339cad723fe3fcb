//! The newest updates of many terms at once (a contract-id prefix stands for hundreds): the
//! terms' key runs merged newest first, each term starting from the newest key the index keeps
//! with it (`terms` on SQLite, `term_counts` on PostgreSQL), so a run is read only when the
//! page needs more than its newest key. A page of 100 from 695 terms of one update each reads
//! the 100 newest terms' rows and no key, where reading every term's keys was one cold read per
//! term.

use std::collections::{BinaryHeap, HashSet};

/// A key's place in ledger order: (migration, record time, seq).
pub type Pos = (i64, i64, i64);

/// A term of the merge: its id, how many updates have it, and its newest key when known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    pub id: i64,
    pub n: i64,
    pub last: Option<Pos>,
}

/// Above every key: where a term whose newest key is unknown is read from.
const TOP: Pos = (i64::MAX, i64::MAX, i64::MAX);

/// Below every key: where the newest of a page's keys is sought from (SQLite's kept record
/// times are negative before 2027, so `(0, 0, 0)` is above some keys of migration 0).
pub const BOTTOM: Pos = (i64::MIN, i64::MIN, i64::MIN);

/// Fewest keys read from a run at a time.
const MIN_READ: usize = 16;

/// The seqs of the `limit` newest updates having any of `heads`' terms and passing `keep`,
/// newest first, each once. `read(term, below, most)` gives up to `most` of the term's keys
/// before `below`, newest first; `keep(pos)` says whether an update passes the query's other
/// terms.
pub fn merge<E>(
    heads: &[Head],
    limit: usize,
    read: &mut dyn FnMut(i64, Pos, usize) -> Result<Vec<Pos>, E>,
    keep: &mut dyn FnMut(Pos) -> Result<bool, E>,
) -> Result<Vec<i64>, E> {
    // Per term: the keys read ahead (newest last, popped), and how many were taken.
    let mut ahead: Vec<Vec<Pos>> = vec![Vec::new(); heads.len()];
    let mut taken: Vec<i64> = vec![0; heads.len()];
    let mut queue: BinaryHeap<(Pos, usize)> = BinaryHeap::new();
    let mut out: Vec<i64> = Vec::new();
    let mut seen: HashSet<i64> = HashSet::new();
    if limit == 0 {
        return Ok(out);
    }
    for (at, head) in heads.iter().enumerate() {
        if head.n <= 0 {
            continue;
        }
        if let Some(last) = head.last {
            queue.push((last, at));
        } else {
            let mut keys = read(head.id, TOP, limit.max(MIN_READ))?;
            keys.reverse();
            if let Some(next) = keys.pop() {
                queue.push((next, at));
            }
            ahead[at] = keys;
        }
    }
    while let Some((pos, at)) = queue.pop() {
        taken[at] += 1;
        if !seen.contains(&pos.2) && keep(pos)? {
            seen.insert(pos.2);
            out.push(pos.2);
            if out.len() >= limit {
                break;
            }
        }
        if ahead[at].is_empty() && taken[at] < heads[at].n {
            let mut keys = read(heads[at].id, pos, (limit - out.len()).max(MIN_READ))?;
            keys.reverse();
            ahead[at] = keys;
        }
        if let Some(next) = ahead[at].pop() {
            queue.push((next, at));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Terms' keys as a reader sees them; counts the runs read.
    struct Runs {
        keys: Vec<Vec<Pos>>,
        reads: usize,
    }

    impl Runs {
        fn read(&mut self, term: i64, below: Pos, most: usize) -> Vec<Pos> {
            self.reads += 1;
            let mut keys: Vec<Pos> = self.keys[term as usize]
                .iter()
                .copied()
                .filter(|k| *k < below)
                .collect();
            keys.sort_unstable_by(|a, b| b.cmp(a));
            keys.truncate(most);
            keys
        }

        fn heads(&self, known: bool) -> Vec<Head> {
            self.keys
                .iter()
                .enumerate()
                .map(|(id, keys)| Head {
                    id: id as i64,
                    n: keys.len() as i64,
                    last: if known {
                        keys.iter().max().copied()
                    } else {
                        None
                    },
                })
                .collect()
        }

        /// The merged page of `limit` with every update kept.
        fn page(&mut self, heads: &[Head], limit: usize) -> Vec<i64> {
            merge(
                heads,
                limit,
                &mut |t, b, m| Ok::<_, ()>(self.read(t, b, m)),
                &mut |_| Ok(true),
            )
            .unwrap()
        }

        /// What a query over every key would answer.
        fn oracle(&self, limit: usize, keep: impl Fn(Pos) -> bool) -> Vec<i64> {
            let mut all: Vec<Pos> = self
                .keys
                .iter()
                .flatten()
                .copied()
                .filter(|p| keep(*p))
                .collect();
            all.sort_unstable_by(|a, b| b.cmp(a));
            all.dedup_by_key(|p| p.2);
            all.into_iter().take(limit).map(|p| p.2).collect()
        }
    }

    /// Deterministic pseudo-random terms: `terms` runs, each of 1..=`most` updates out of
    /// `updates`, an update's place (migration, time) fixed by its seq.
    fn runs(terms: usize, most: u64, updates: u64, seed: u64) -> Runs {
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let place = |seq: i64| (seq / 1000, seq * 7 % 1000, seq);
        let keys = (0..terms)
            .map(|_| {
                let k = 1 + next() % most;
                let mut run: Vec<Pos> = (0..k).map(|_| place((next() % updates) as i64)).collect();
                run.sort_unstable();
                run.dedup();
                run
            })
            .collect();
        Runs { keys, reads: 0 }
    }

    #[test]
    fn the_merged_page_is_the_newest_updates_of_all_terms_each_once() {
        for seed in 1..40 {
            let mut r = runs(50, 6, 400, seed);
            for limit in [1, 7, 100, 1000] {
                for known in [true, false] {
                    let heads = r.heads(known);
                    let got = merge(
                        &heads,
                        limit,
                        &mut |t, b, m| Ok::<_, ()>(r.read(t, b, m)),
                        &mut |_| Ok(true),
                    );
                    assert_eq!(
                        got,
                        Ok(r.oracle(limit, |_| true)),
                        "seed {seed} limit {limit}"
                    );
                    let odd = |p: Pos| p.2 % 3 != 0;
                    let got = merge(
                        &heads,
                        limit,
                        &mut |t, b, m| Ok::<_, ()>(r.read(t, b, m)),
                        &mut |p| Ok(odd(p)),
                    );
                    assert_eq!(
                        got,
                        Ok(r.oracle(limit, odd)),
                        "seed {seed} limit {limit} kept"
                    );
                }
            }
        }
    }

    #[test]
    fn terms_of_one_update_are_answered_from_their_heads_without_a_read() {
        // 695 terms of one update each, as the benchmark's prefix: no run is read.
        let mut r = runs(695, 1, 1_000_000, 7);
        let heads = r.heads(true);
        let got = r.page(&heads, 100);
        assert_eq!(got, r.oracle(100, |_| true));
        assert_eq!(r.reads, 0);
        // Terms of a few updates: only the terms whose keys reach the page are read, once each.
        let mut r = runs(695, 4, 1_000_000, 9);
        let heads = r.heads(true);
        let got = r.page(&heads, 100);
        assert_eq!(got, r.oracle(100, |_| true));
        assert!(r.reads <= 100, "{} runs read", r.reads);
        // Without the heads every term is read.
        r.reads = 0;
        let heads = r.heads(false);
        r.page(&heads, 100);
        assert_eq!(r.reads, 695);
    }

    #[test]
    fn a_failed_read_is_the_merges_error() {
        let heads = [Head {
            id: 0,
            n: 2,
            last: Some((0, 5, 5)),
        }];
        let got: Result<Vec<i64>, &str> =
            merge(&heads, 10, &mut |_, _, _| Err("gone"), &mut |_| Ok(true));
        assert_eq!(got, Err("gone"));
    }
}
