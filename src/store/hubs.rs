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
//! - a term whose count reaches the threshold in a page becomes a hub: its bitmap made from its
//!   keys (the page's included), its pairs with every hub counted once against that hub's
//!   bitmap ([`Promotion`]);
//! - a writer opening an index whose hubs were made at a higher threshold makes hubs of the
//!   terms in between ([`to_complete`]);
//! - prune lowers the pairs by the updates it removes; a hub whose term is gone goes.
//!
//! A count uses a pair only when both terms are hubs, so what the threshold was when a term
//! became one changes only speed, never an answer. A pair no update has (no row: 0) answers
//! a count in any range, and a page: no row, where a walk would read every update of the
//! rarer hub to find none (at 10 M updates, two choices of 3.2 M and 4.1 M updates).
//!
//! Every hub also keeps which updates have it, as a bitmap over the updates' `seq` in blocks of
//! [`BLOCK_SEQS`] (`hub_bits`: a block is a list of offsets while it has few, else 512 bytes of
//! bits; a block no update sets is no row). A count of a hub with a term that is not one walks
//! the other term's updates (at most the threshold's number, one range of `keys` read in order)
//! and tests each in the hub's bitmap (at most a bit per update of the index, read in order),
//! instead of probing the hub's keys one update at a time (a random read each when cold). The
//! bitmaps follow the pairs' rule: a page sets the bits of the hubs before it, a new hub's bits
//! are read from its keys, prune clears the bits of the updates it removes (a seq may be used
//! again once its update is gone).

use std::collections::{BTreeMap, HashMap, HashSet};

/// Updates a term has when it becomes a hub. A count of two terms that are not both hubs
/// walks at most this many updates of the rarer, and so does a first page of two terms that
/// share none (a hub's pair count of 0 stops it). It was 100,000 ([`EARLIER_THRESHOLD`]): at
/// 10 M updates a template of 76,671 updates with the DSO party counted in 83–113 ms cold on
/// SQLite, and with the least frequent hub (no update shared) a first page took 120–157 ms
/// on PostgreSQL. At 25,000 such a template is a hub (its count one row, its empty page
/// stopped by the pair), and the rarer terms walk at most a third as far; the hubs at 10 M go
/// from 38 to 48, their pairs from 194 to 233, their bitmaps from 75 to 78 MB.
pub const DEFAULT_THRESHOLD: i64 = 25_000;

/// The default threshold of the builds before [`MADE_AT_KEY`] was kept: an index without that
/// key has every term of this many updates (or of its own [`THRESHOLD_KEY`]) a hub.
pub const EARLIER_THRESHOLD: i64 = 100_000;

/// The meta key holding the threshold (tests set a small one).
pub const THRESHOLD_KEY: &str = "hub_threshold";

/// The meta key holding the threshold at which every term of the index was last made a hub.
pub const MADE_AT_KEY: &str = "hubs_made_at";

/// The threshold an index's meta value gives (the default when unset or unreadable).
pub fn threshold(meta: Option<&str>) -> i64 {
    positive(meta).unwrap_or(DEFAULT_THRESHOLD)
}

fn positive(meta: Option<&str>) -> Option<i64> {
    meta.and_then(|t| t.parse().ok()).filter(|t: &i64| *t > 0)
}

/// When a writer opens an index whose hubs were made at a higher threshold than its own now
/// (`threshold`: its [`THRESHOLD_KEY`]; `made_at`: its [`MADE_AT_KEY`]), the threshold from
/// which its terms are to be made hubs (`None`: every such term is one). A page makes a hub
/// only of a term it raises, so an index of a build with a higher default gets its terms in
/// between made hubs once, at the writer's open.
pub fn to_complete(threshold_meta: Option<&str>, made_at: Option<&str>) -> Option<i64> {
    let now = threshold(threshold_meta);
    let made = positive(made_at)
        .or_else(|| positive(threshold_meta))
        .unwrap_or(EARLIER_THRESHOLD);
    (now < made).then_some(now)
}

/// What a writer's open tells of the `n` terms it made hubs ([`to_complete`]).
pub fn made_notice(shown: &str, threshold: i64, n: usize, took: std::time::Duration) -> String {
    format!(
        "{shown}: {n} terms with {threshold} updates or more made frequent terms (their bitmaps and the counts of their pairs with the others) in {:.1} s",
        took.as_secs_f64()
    )
}

/// Terms becoming hubs together (a page's, or an index's at a lowered threshold): each with
/// its updates' seqs (read from its keys), their pairs counted with each other and with every
/// hub they join, whose bitmap is read whole once ([`Self::with_hub`]): a pass over the seqs a
/// block at a time, where probing the keys for each two was a look-up per update and hub (at
/// 10 M updates, 10 terms of 25,000–100,000 updates and 38 hubs: about 2 × 10⁷ look-ups, most
/// of them cold reads).
#[derive(Debug, Default)]
pub struct Promotion {
    new: Vec<(i64, Vec<i64>)>,
    pairs: BTreeMap<(i64, i64), i64>,
}

impl Promotion {
    /// The terms (each with its updates' seqs, in any order) and their pairs with each other.
    pub fn new(mut new: Vec<(i64, Vec<i64>)>) -> Promotion {
        for (_, seqs) in &mut new {
            seqs.sort_unstable();
            seqs.dedup();
        }
        let mut pairs = BTreeMap::new();
        for (i, (x, xs)) in new.iter().enumerate() {
            for (y, ys) in &new[i + 1..] {
                let n = both_sorted(xs, ys);
                if let Some(pair) = pair_of(*x, *y).filter(|_| n > 0) {
                    pairs.insert(pair, n);
                }
            }
        }
        Promotion { new, pairs }
    }

    /// Counts the pairs of the terms with `hub` (one they join, its bitmap read whole).
    pub fn with_hub(&mut self, hub: i64, bits: &HubBits) {
        for (term, seqs) in &self.new {
            let n = bits.count_of(seqs);
            if let Some(pair) = pair_of(*term, hub).filter(|_| n > 0) {
                self.pairs.insert(pair, n);
            }
        }
    }

    /// The terms becoming hubs.
    pub fn terms(&self) -> Vec<i64> {
        self.new.iter().map(|(t, _)| *t).collect()
    }

    /// Every pair of a term with another hub or term that some update has: ((a, b), n).
    pub fn pairs(&self) -> &BTreeMap<(i64, i64), i64> {
        &self.pairs
    }

    /// The terms' bits to set, by (term, block), as [`page_bits`] gives them.
    pub fn bits(&self) -> BTreeMap<(i64, i64), Vec<i64>> {
        let mut out = BTreeMap::new();
        for (term, seqs) in &self.new {
            out.extend(term_blocks(*term, seqs.iter().copied()));
        }
        out
    }
}

/// How many values two sorted lists share.
fn both_sorted(xs: &[i64], ys: &[i64]) -> i64 {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < xs.len() && j < ys.len() {
        match xs[i].cmp(&ys[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
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

/// Updates (by `seq`) one row of a hub's bitmap covers.
pub const BLOCK_SEQS: i64 = 4096;

/// u64 words of a block's bits.
const WORDS: usize = (BLOCK_SEQS / 64) as usize;

/// Offsets a block keeps as a list (2 bytes each) before it keeps bits (512 bytes).
const MAX_LISTED: usize = WORDS * 8 / 2 - 1;

/// The block holding `seq`.
pub fn block_of(seq: i64) -> i64 {
    seq.div_euclid(BLOCK_SEQS)
}

/// One block of a hub's bitmap: which of its [`BLOCK_SEQS`] updates have the hub.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block(Box<[u64; WORDS]>);

impl Default for Block {
    fn default() -> Block {
        Block(Box::new([0; WORDS]))
    }
}

impl Block {
    /// A block as stored: 512 bytes are its bits, anything else a list of little-endian u16
    /// offsets (bytes that are neither, from a damaged row, read as what they spell: never a
    /// panic).
    pub fn decode(bytes: &[u8]) -> Block {
        let mut block = Block::default();
        if bytes.len() == WORDS * 8 {
            for (word, b) in block.0.iter_mut().zip(bytes.chunks_exact(8)) {
                *word = u64::from_le_bytes(b.try_into().unwrap_or_default());
            }
        } else {
            for b in bytes.chunks_exact(2) {
                block.put(i64::from(u16::from_le_bytes([b[0], b[1]])), true);
            }
        }
        block
    }

    /// The block as stored (`None`: no update has the hub, no row).
    pub fn encode(&self) -> Option<Vec<u8>> {
        let set: usize = self.0.iter().map(|w| w.count_ones() as usize).sum();
        if set == 0 {
            return None;
        }
        if set > MAX_LISTED {
            return Some(self.0.iter().flat_map(|w| w.to_le_bytes()).collect());
        }
        let mut out = Vec::with_capacity(set * 2);
        for (i, word) in self.0.iter().enumerate() {
            let mut w = *word;
            while w != 0 {
                let bit = w.trailing_zeros() as usize;
                out.extend_from_slice(&((i * 64 + bit) as u16).to_le_bytes());
                w &= w - 1;
            }
        }
        Some(out)
    }

    /// Sets (`on`) or clears the bit of `seq` (taken within its block).
    pub fn put(&mut self, seq: i64, on: bool) {
        let at = seq.rem_euclid(BLOCK_SEQS) as usize;
        let mask = 1u64 << (at % 64);
        if on {
            self.0[at / 64] |= mask;
        } else {
            self.0[at / 64] &= !mask;
        }
    }

    /// Whether the update `seq` (taken within its block) has the hub.
    pub fn has(&self, seq: i64) -> bool {
        let at = seq.rem_euclid(BLOCK_SEQS) as usize;
        self.0[at / 64] & (1u64 << (at % 64)) != 0
    }
}

/// The seqs of one hub's updates grouped by (hub, block), as [`page_bits`] gives them.
pub fn term_blocks(
    term: i64,
    seqs: impl IntoIterator<Item = i64>,
) -> BTreeMap<(i64, i64), Vec<i64>> {
    let mut out: BTreeMap<(i64, i64), Vec<i64>> = BTreeMap::new();
    for seq in seqs {
        out.entry((term, block_of(seq))).or_default().push(seq);
    }
    out
}

/// Schema 4 → 5 in any engine: every one of `hubs` gets its bitmap built from its keys
/// (`build`), in term order. Returns how many hubs there are.
pub fn build_every<E>(
    hubs: impl IntoIterator<Item = i64>,
    mut build: impl FnMut(i64) -> Result<(), E>,
) -> Result<usize, E> {
    let mut hubs: Vec<i64> = hubs.into_iter().collect();
    hubs.sort_unstable();
    for term in &hubs {
        build(*term)?;
    }
    Ok(hubs.len())
}

/// What a page's updates change of the hubs, as every engine writes it ([`page_changes`]).
#[derive(Debug, Default)]
pub struct PageChanges {
    /// The seqs each hub gets set, by (hub, block) ([`page_bits`]).
    pub bits: BTreeMap<(i64, i64), Vec<i64>>,
    /// The pairs raised ((a, b), by how much), in order; none below two hubs ([`page_pairs`]).
    pub pairs: Vec<((i64, i64), i64)>,
}

/// What a page's updates (their seq and term ids) change of `hubs`.
pub fn page_changes<S: std::hash::BuildHasher>(
    updates: &[(i64, Vec<i64>)],
    hubs: &HashSet<i64, S>,
) -> PageChanges {
    if hubs.is_empty() {
        return PageChanges::default();
    }
    let bits = page_bits(updates.iter().map(|(s, t)| (*s, t.as_slice())), hubs);
    if hubs.len() < 2 {
        return PageChanges {
            bits,
            pairs: Vec::new(),
        };
    }
    let terms = updates.iter().map(|(_, t)| t.as_slice());
    let mut pairs: Vec<_> = page_pairs(terms, hubs).into_iter().collect();
    pairs.sort_unstable();
    PageChanges { bits, pairs }
}

/// For a page's updates (`seq`, term ids), the seqs each of `hubs` gets set, by (hub, block).
pub fn page_bits<'a, S: std::hash::BuildHasher>(
    updates: impl IntoIterator<Item = (i64, &'a [i64])>,
    hubs: &HashSet<i64, S>,
) -> BTreeMap<(i64, i64), Vec<i64>> {
    let mut out: BTreeMap<(i64, i64), Vec<i64>> = BTreeMap::new();
    for (seq, terms) in updates {
        for term in terms.iter().filter(|t| hubs.contains(t)) {
            let seqs = out.entry((*term, block_of(seq))).or_default();
            if seqs.last() != Some(&seq) && !seqs.contains(&seq) {
                seqs.push(seq);
            }
        }
    }
    out
}

/// A hub's bitmap as read: whole (for a count, which tests updates all over the history) or a
/// block at a time (for a first page, which tests the newest few).
#[derive(Debug, Default)]
pub struct HubBits {
    blocks: HashMap<i64, Option<Block>>,
    whole: bool,
}

impl HubBits {
    /// A bitmap to be read whole: every block it has is [`Self::insert`]ed.
    pub fn whole() -> HubBits {
        HubBits {
            blocks: HashMap::new(),
            whole: true,
        }
    }

    /// A bitmap read a block at a time: [`Self::unread`] says which block to read next.
    pub fn by_block() -> HubBits {
        HubBits::default()
    }

    /// Adds a stored block.
    pub fn insert(&mut self, block: i64, bytes: &[u8]) {
        self.blocks.insert(block, Some(Block::decode(bytes)));
    }

    /// Records that the hub has no row for `block` (none of its updates has the hub).
    pub fn none_in(&mut self, block: i64) {
        self.blocks.insert(block, None);
    }

    /// The block to read before `seq` can be tested (`None`: it is read, or the bitmap is).
    pub fn unread(&self, seq: i64) -> Option<i64> {
        let block = block_of(seq);
        (!self.whole && !self.blocks.contains_key(&block)).then_some(block)
    }

    /// Whether the update `seq` has the hub (its block read, see [`Self::unread`]).
    pub fn has(&self, seq: i64) -> bool {
        self.blocks
            .get(&block_of(seq))
            .is_some_and(|b| b.as_ref().is_some_and(|b| b.has(seq)))
    }

    /// How many of the updates `seqs` (sorted) have the hub (their blocks read): a look-up a
    /// block, not a seq.
    pub fn count_of(&self, seqs: &[i64]) -> i64 {
        let mut n = 0;
        for run in seqs.chunk_by(|a, b| block_of(*a) == block_of(*b)) {
            if let Some(Some(block)) = self.blocks.get(&block_of(run[0])) {
                n += run.iter().filter(|seq| block.has(**seq)).count() as i64;
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_keeps_a_list_while_sparse_and_bits_when_dense_and_reads_back_either() {
        let mut block = Block::default();
        assert_eq!(block.encode(), None, "an empty block is no row");
        for seq in [4096 * 3 + 5, 4096 * 3, 4096 * 4 - 1] {
            block.put(seq, true);
        }
        let listed = block.encode().expect("set");
        assert_eq!(listed.len(), 6, "three offsets of 2 bytes");
        let back = Block::decode(&listed);
        assert_eq!(back, block);
        assert!(back.has(4096 * 3 + 5) && back.has(4096 * 3) && back.has(4095));
        assert!(!back.has(4096 * 3 + 6));
        // Dense: past 255 offsets the block is its 512 bytes of bits.
        for seq in (0..4096).step_by(3) {
            block.put(seq, true);
        }
        let bits = block.encode().expect("set");
        assert_eq!(bits.len(), 512);
        assert_eq!(Block::decode(&bits), block);
        for seq in (0..4096).step_by(3) {
            block.put(seq, false);
        }
        block.put(4096 * 3, false);
        block.put(4095, false);
        assert_eq!(block.encode(), Some(vec![5, 0]), "a list again once sparse");
        // A damaged row (an odd length, an offset past the block) reads as what it spells.
        let damaged = Block::decode(&[0xff, 0xff, 7]);
        assert!(damaged.has(4095) && !damaged.has(7));
    }

    #[test]
    fn a_page_sets_each_hub_bit_of_its_updates_once_by_block() {
        let hubs: HashSet<i64> = [1, 2].into_iter().collect();
        let updates: Vec<(i64, Vec<i64>)> = vec![
            (4094, vec![1, 9, 1]),
            (4095, vec![2]),
            (4096, vec![1, 2]),
            (4097, vec![9]),
        ];
        let bits = page_bits(updates.iter().map(|(s, t)| (*s, t.as_slice())), &hubs);
        let got: Vec<_> = bits.into_iter().collect();
        assert_eq!(
            got,
            vec![
                ((1, 0), vec![4094]),
                ((1, 1), vec![4096]),
                ((2, 0), vec![4095]),
                ((2, 1), vec![4096]),
            ]
        );
        let mut hub = HubBits::whole();
        let mut stored = Vec::new();
        for ((_, block), seqs) in term_blocks(1, [4094, 4096, 9000]) {
            let mut b = Block::default();
            for seq in seqs {
                b.put(seq, true);
            }
            stored.push((block, b.encode().expect("set")));
        }
        for (block, bytes) in &stored {
            hub.insert(*block, bytes);
        }
        assert!(hub.has(4094) && hub.has(4096) && hub.has(9000));
        assert!(!hub.has(4095) && !hub.has(1) && !hub.has(-3));
        assert_eq!(hub.unread(5 * 4096), None, "a whole bitmap is read");
        // Read a block at a time: each block once, a block without a row has none.
        let mut lazy = HubBits::by_block();
        assert_eq!(lazy.unread(9000), Some(2));
        lazy.insert(2, &stored[2].1);
        assert_eq!(lazy.unread(9001), None);
        assert!(lazy.has(9000) && !lazy.has(9001));
        assert_eq!(lazy.unread(5 * 4096), Some(5));
        lazy.none_in(5);
        assert_eq!(lazy.unread(5 * 4096 + 1), None);
        assert!(!lazy.has(5 * 4096));
    }

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
    fn terms_becoming_hubs_count_their_pairs_with_each_other_and_with_each_hub_they_join() {
        // An earlier hub 7 on seqs 1, 5, 4100 and 9000; new terms 3 and 9.
        let mut hub = HubBits::whole();
        for ((_, block), seqs) in term_blocks(7, [1, 5, 4100, 9000]) {
            let mut b = Block::default();
            for seq in seqs {
                b.put(seq, true);
            }
            hub.insert(block, &b.encode().expect("set"));
        }
        assert_eq!(hub.count_of(&[0, 1, 5, 6, 4100, 8191, 9000, 20_000]), 4);
        assert_eq!(hub.count_of(&[]), 0);
        let mut promotion = Promotion::new(vec![
            (9, vec![9000, 5, 2, 5, 4100]), // unsorted, 5 twice: counted once
            (3, vec![2, 6, 9000]),
            (11, vec![6]),
        ]);
        assert_eq!(promotion.terms(), vec![9, 3, 11]);
        promotion.with_hub(7, &hub);
        let pairs: Vec<_> = promotion.pairs().iter().map(|(p, n)| (*p, *n)).collect();
        // 3 and 9 share 2 and 9000; 3 and 11 share 6; 9 and 11 none (no row); 7 and 9 share 5,
        // 4100 and 9000; 3 and 7 share 9000; 7 and 11 none.
        assert_eq!(
            pairs,
            vec![((3, 7), 1), ((3, 9), 2), ((3, 11), 1), ((7, 9), 3)]
        );
        let bits: Vec<_> = promotion.bits().into_iter().collect();
        assert_eq!(
            bits,
            vec![
                ((3, 0), vec![2, 6]),
                ((3, 2), vec![9000]),
                ((9, 0), vec![2, 5]),
                ((9, 1), vec![4100]),
                ((9, 2), vec![9000]),
                ((11, 0), vec![6]),
            ]
        );
    }

    #[test]
    fn a_writer_makes_hubs_of_the_terms_a_lowered_threshold_takes_in_once() {
        // An index of a build whose default was 100,000: its terms between become hubs.
        assert_eq!(to_complete(None, None), Some(DEFAULT_THRESHOLD));
        assert_eq!(
            to_complete(None, Some(&DEFAULT_THRESHOLD.to_string())),
            None,
            "made at today's default"
        );
        // Its own threshold, kept since before: its hubs were made at it.
        assert_eq!(to_complete(Some("100"), None), None);
        // Lowered below what they were made at; raised (nothing to make).
        assert_eq!(to_complete(Some("100"), Some("1000")), Some(100));
        assert_eq!(to_complete(Some("1000"), Some("100")), None);
        // Unreadable values read as unset.
        assert_eq!(to_complete(Some("x"), Some("0")), Some(DEFAULT_THRESHOLD));
        assert!(
            made_notice("i.sqlite", 100, 3, std::time::Duration::from_millis(1500))
                .starts_with("i.sqlite: 3 terms with 100 updates or more made frequent terms")
        );
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
