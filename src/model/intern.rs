//! String interning for the history store: parties, templates, choices and synchronizers repeat
//! across thousands of updates, so each summary holds 4-byte symbols instead of strings.

use std::collections::HashMap;
use std::sync::Arc;

/// An interned string. `Sym::NONE` (0) is the empty string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Sym(pub u32);

impl Sym {
    /// The empty string / no value.
    pub const NONE: Sym = Sym(0);

    /// Whether this is [`Sym::NONE`].
    pub fn is_none(self) -> bool {
        self.0 == 0
    }
}

/// Interns strings; each distinct string is stored once (shared by the map and the table).
#[derive(Debug, Clone)]
pub struct Interner {
    /// foldhash (seeded per process): SipHash was 4% of an index sync's CPU, spent here.
    map: HashMap<Arc<str>, Sym, foldhash::fast::RandomState>,
    strings: Vec<Arc<str>>,
    /// Bytes of the interned strings.
    text_bytes: usize,
    /// The symbol last found in each of [`RECENT`] slots, a slot chosen by a string's length
    /// and last bytes: the parties and templates of an update repeat from event to event, and
    /// a hit compares the text once instead of hashing it whole first (the map's hashing was a
    /// fifth of a History page's ingest). A string of another slot, or another string of this
    /// one, goes to the map.
    recent: [Sym; RECENT],
}

/// Slots of [`Interner`]'s recent symbols.
const RECENT: usize = 64;

/// A string's slot among the recent symbols: its length and up to 8 of its last bytes, mixed.
fn recent_slot(s: &str) -> usize {
    let bytes = s.as_bytes();
    let tail = match bytes.last_chunk::<8>() {
        Some(last) => u64::from_le_bytes(*last),
        None => bytes.iter().fold(0, |w, &b| w << 8 | u64::from(b)),
    };
    let mixed = (tail ^ bytes.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (mixed >> 58) as usize
}

impl Default for Interner {
    fn default() -> Self {
        let empty: Arc<str> = Arc::from("");
        let mut map = HashMap::default();
        map.insert(empty.clone(), Sym::NONE);
        Interner {
            map,
            strings: vec![empty],
            text_bytes: 0,
            recent: [Sym::NONE; RECENT],
        }
    }
}

impl Interner {
    /// The symbol for `s`, adding it if new.
    pub fn intern(&mut self, s: &str) -> Sym {
        let slot = recent_slot(s);
        let recent = self.recent[slot];
        if self.resolve(recent) == s {
            return recent;
        }
        let sym = if let Some(&sym) = self.map.get(s) {
            sym
        } else {
            let sym = Sym(u32::try_from(self.strings.len()).unwrap_or(u32::MAX));
            let arc: Arc<str> = Arc::from(s);
            self.text_bytes += s.len();
            self.strings.push(arc.clone());
            self.map.insert(arc, sym);
            sym
        };
        self.recent[slot] = sym;
        sym
    }

    /// The symbol for `s` if it was interned.
    pub fn get(&self, s: &str) -> Option<Sym> {
        self.map.get(s).copied()
    }

    /// The string of a symbol ("" for unknown symbols).
    pub fn resolve(&self, sym: Sym) -> &str {
        self.strings.get(sym.0 as usize).map_or("", |s| s)
    }

    /// Number of distinct strings (including the empty one).
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// Whether only the empty string is interned.
    pub fn is_empty(&self) -> bool {
        self.strings.len() <= 1
    }

    /// An estimate of the heap memory in use: each string once (with its `Arc` counts and the
    /// allocator's overhead), the table slot and the map's slot (at its load factor).
    pub fn heap_bytes(&self) -> usize {
        const ALLOC: usize = 16;
        let per_string = 2 * std::mem::size_of::<usize>() + ALLOC;
        let slot = std::mem::size_of::<Arc<str>>();
        let map_slot = std::mem::size_of::<(Arc<str>, Sym)>() + 1;
        self.text_bytes
            + self.strings.len() * per_string
            + self.strings.capacity() * slot
            + self.map.capacity() * map_slot * 8 / 7
    }

    /// Every symbol with its string.
    pub fn iter(&self) -> impl Iterator<Item = (Sym, &str)> {
        self.strings
            .iter()
            .enumerate()
            .map(|(i, s)| (Sym(i as u32), &**s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_once_and_resolves() {
        let mut i = Interner::default();
        let a = i.intern("alice::1220");
        let b = i.intern("bob::1220");
        assert_ne!(a, b);
        assert_eq!(i.intern("alice::1220"), a);
        assert_eq!(i.resolve(a), "alice::1220");
        assert_eq!(i.intern(""), Sym::NONE);
        assert_eq!(i.len(), 3);
        assert_eq!(i.resolve(Sym(99)), "");
    }

    #[test]
    fn strings_that_share_a_recent_slot_keep_their_own_symbols() {
        // The same length and last bytes (one slot), the names differing before them, as a
        // hostile server's parties could; interned in turns, each time again.
        let parties: Vec<String> = (0..50)
            .map(|n| format!("p{n:02}::1220{}", "ab".repeat(32)))
            .collect();
        let mut i = Interner::default();
        let first: Vec<Sym> = parties.iter().map(|p| i.intern(p)).collect();
        for round in 0..3 {
            for (p, sym) in parties.iter().zip(&first).rev().skip(round) {
                assert_eq!(i.intern(p), *sym, "{p}");
                assert_eq!(i.resolve(*sym), p);
            }
        }
        let distinct: std::collections::HashSet<Sym> = first.iter().copied().collect();
        assert_eq!(distinct.len(), parties.len());
        assert_eq!(i.len(), parties.len() + 1);
    }
}
