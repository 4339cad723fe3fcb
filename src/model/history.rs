//! The loaded update history: compact summaries in ledger order (migration id, record time), the
//! filter over them, and the contract index used to follow a contract's lifecycle.

use std::collections::VecDeque;

use regex::{Regex, RegexBuilder};

use crate::api::scan::UpdateItem;

use super::intern::Sym;
use super::position::At;
use super::summary::{Summarizer, UpdateSummary, cat, contract_key};

/// The loaded history.
#[derive(Debug, Default, Clone)]
pub struct History {
    pub summarizer: Summarizer,
    items: VecDeque<UpdateSummary>,
    /// Changes whenever the history is replaced ([`History::clear`]).
    epoch: u64,
    /// Sequence number of the oldest loaded item: lower after a prepend, higher after the
    /// oldest were dropped. Readers compare it with the value they last saw.
    base: i64,
    /// Heap bytes of the loaded summaries ([`summary_heap_bytes`]).
    heap: usize,
    /// Updates dropped from the front to stay within the memory budget (since the last clear).
    dropped: u64,
}

/// Heap bytes of one summary: its packed block (id, contract keys, symbols, root action) with
/// the allocator's overhead (16 bytes).
pub fn summary_heap_bytes(s: &UpdateSummary) -> usize {
    const ALLOC: usize = 16;
    s.heap_bytes() + ALLOC
}

/// Where a page goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Newer than everything loaded.
    Append,
    /// Older than everything loaded.
    Prepend,
}

impl History {
    /// Replaces the history by an empty one (a new [`History::epoch`]).
    pub fn clear(&mut self) {
        *self = History {
            epoch: self.epoch.wrapping_add(1),
            ..History::default()
        };
    }

    /// Changes whenever the history is replaced.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Sequence number of the oldest loaded item (lower after earlier items were added).
    pub fn base(&self) -> i64 {
        self.base
    }

    /// An estimate of the memory the loaded history holds: the summaries (their slots in the
    /// deque, at its capacity, and their heap parts) and the interned strings.
    pub fn memory_bytes(&self) -> usize {
        self.items.capacity() * std::mem::size_of::<UpdateSummary>()
            + self.heap
            + self.summarizer.interner.heap_bytes()
            + self.summarizer.sym_cats.capacity()
    }

    /// Updates dropped from the front (memory budget) since the history was last replaced.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Drops the `n` oldest updates (to stay within a memory budget) and gives back the deque's
    /// spare room beyond a quarter. Returns how many were dropped.
    pub fn drop_oldest(&mut self, n: usize) -> usize {
        let n = n.min(self.items.len());
        for s in self.items.drain(..n) {
            self.heap -= summary_heap_bytes(&s);
        }
        self.base += i64::try_from(n).unwrap_or(i64::MAX);
        self.dropped += n as u64;
        let keep = self.items.len() + self.items.len() / 4;
        if self.items.capacity() > keep + 1024 {
            self.items.shrink_to(keep);
        }
        n
    }

    /// Number of loaded updates.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether nothing is loaded.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The summary at `index` (0 = oldest loaded).
    pub fn get(&self, index: usize) -> Option<&UpdateSummary> {
        self.items.get(index)
    }

    /// All loaded summaries, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &UpdateSummary> + ExactSizeIterator {
        self.items.iter()
    }

    /// The oldest loaded summary.
    pub fn first(&self) -> Option<&UpdateSummary> {
        self.items.front()
    }

    /// The newest loaded summary.
    pub fn last(&self) -> Option<&UpdateSummary> {
        self.items.back()
    }

    fn position(s: &UpdateSummary) -> At {
        s.at()
    }

    /// Adds a page. Items that are not strictly newer (append) or strictly older (prepend) than
    /// what is loaded are skipped, so overlapping pages never duplicate. Returns how many were
    /// added.
    pub fn add_page(&mut self, items: &[UpdateItem], placement: Placement) -> usize {
        match placement {
            Placement::Append => {
                let mut added = 0;
                for item in items {
                    let s = self.summarizer.summarize(item);
                    let newer = self
                        .items
                        .back()
                        .is_none_or(|last| Self::position(&s) > Self::position(last));
                    if newer {
                        self.heap += summary_heap_bytes(&s);
                        self.items.push_back(s);
                        added += 1;
                    }
                }
                added
            }
            Placement::Prepend => {
                let bound = self.items.front().map(Self::position);
                let fresh: Vec<UpdateSummary> = items
                    .iter()
                    .map(|i| self.summarizer.summarize(i))
                    .filter(|s| bound.is_none_or(|b| Self::position(s) < b))
                    .collect();
                let n = fresh.len();
                self.base -= i64::try_from(n).unwrap_or(i64::MAX);
                for s in fresh.into_iter().rev() {
                    self.heap += summary_heap_bytes(&s);
                    self.items.push_front(s);
                }
                n
            }
        }
    }

    /// Adds an already built summary at the end (used by benchmarks and the ingest path).
    pub fn push_summary(&mut self, s: UpdateSummary) {
        self.heap += summary_heap_bytes(&s);
        self.items.push_back(s);
    }

    /// Index of the update with this id (linear; user-triggered only).
    pub fn find_update(&self, update_id: &str) -> Option<usize> {
        self.items.iter().rposition(|s| s.update_id_is(update_id))
    }

    /// Index of the first update at or after this time (by record time, within any migration).
    pub fn index_at_time(&self, micros: i64) -> usize {
        self.items
            .iter()
            .position(|s| s.record_time() >= micros)
            .unwrap_or(self.items.len())
    }

    /// Indices of loaded updates that touch the contract, oldest first.
    pub fn contract_updates(&self, contract_id: &str) -> Vec<usize> {
        let key = contract_key(contract_id);
        self.items
            .iter()
            .enumerate()
            .filter(|(_, s)| s.contract_flags(key).is_some())
            .map(|(i, _)| i)
            .collect()
    }

    /// Distinct parties seen in the loaded history (for completion).
    pub fn parties(&self) -> Vec<&str> {
        self.symbols_of(cat::PARTY)
    }

    /// The parties of one loaded update (by id), in the order first seen; empty when it is not
    /// loaded.
    pub fn parties_of_update(&self, update_id: &str) -> Vec<&str> {
        match self.find_update(update_id).and_then(|i| self.items.get(i)) {
            Some(s) => self.parties_of(s),
            None => Vec::new(),
        }
    }

    /// The parties of a summary of this history, in the order first seen.
    pub fn parties_of(&self, s: &UpdateSummary) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for sym in s.syms() {
            if self.summarizer.category(sym) & cat::PARTY != 0 {
                let p = self.summarizer.interner.resolve(sym);
                if !p.is_empty() && !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        out
    }

    /// Distinct validator parties seen in the loaded history (observers of created
    /// `ValidatorLicense` contracts), for completion.
    pub fn validators(&self) -> Vec<&str> {
        self.symbols_of(cat::VALIDATOR)
    }

    /// Distinct strings of a symbol category.
    pub fn symbols_of(&self, category: u8) -> Vec<&str> {
        self.summarizer
            .interner
            .iter()
            .filter(|(sym, s)| !s.is_empty() && self.summarizer.category(*sym) & category != 0)
            .map(|(_, s)| s)
            .collect()
    }
}

/// Which field a filter looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterField {
    /// Any of the fields below.
    Any,
    Party,
    Template,
    Choice,
    UpdateId,
    Contract,
}

impl FilterField {
    fn category(self) -> u8 {
        match self {
            FilterField::Any => cat::PARTY | cat::TEMPLATE | cat::CHOICE,
            FilterField::Party => cat::PARTY,
            FilterField::Template => cat::TEMPLATE,
            FilterField::Choice => cat::CHOICE,
            FilterField::UpdateId | FilterField::Contract => 0,
        }
    }
}

/// How filter text is matched: a substring (case-insensitive unless the text has capitals) or,
/// after `re:`, a regular expression. Shared by the history filter and the pane kit's tables.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Lower-cased needle, case-insensitive unless `case_sensitive`.
    Substring {
        needle: String,
        case_sensitive: bool,
    },
    Regex(Regex),
}

impl Matcher {
    /// Parses `[re:]text`: a substring (case-insensitive unless `text` has capitals) or a
    /// regular expression (size-limited).
    pub fn parse(text: &str) -> Result<Matcher, String> {
        if let Some(pattern) = text.strip_prefix("re:") {
            let re = RegexBuilder::new(pattern)
                .size_limit(1 << 20)
                .build()
                .map_err(|e| format!("bad regular expression: {}", first_line(&e.to_string())))?;
            return Ok(Matcher::Regex(re));
        }
        let case_sensitive = text.chars().any(char::is_uppercase);
        Ok(Matcher::Substring {
            needle: if case_sensitive {
                text.to_string()
            } else {
                text.to_lowercase()
            },
            case_sensitive,
        })
    }

    /// Whether `hay` matches.
    pub fn is_match(&self, hay: &str) -> bool {
        match self {
            Matcher::Substring {
                needle,
                case_sensitive: true,
            } => hay.contains(needle.as_str()),
            Matcher::Substring { needle, .. } => {
                // ASCII-folding without allocating for the common all-ASCII case.
                if hay.is_ascii() && needle.is_ascii() {
                    let (h, n) = (hay.as_bytes(), needle.as_bytes());
                    n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
                } else {
                    hay.to_lowercase().contains(needle.as_str())
                }
            }
            Matcher::Regex(re) => re.is_match(hay),
        }
    }
}

/// A parsed filter: terms separated by spaces, each `[field:][re:]text`, fields `party`,
/// `template`, `choice`, `id`, `contract`, or `is:NAME` (a kind of update, see
/// [`super::is_term`]); an update matches when every term does (no symbol,
/// id or contract of a summary holds a space, so a space never separates a real match).
/// Substring match by default (case-insensitive unless the text has capitals); `re:` makes it
/// a regular expression (write a space in one as `\s`).
#[derive(Debug, Clone)]
pub struct Filter {
    pub input: String,
    terms: Vec<Term>,
}

/// One term of a [`Filter`].
#[derive(Debug, Clone)]
struct Term {
    field: FilterField,
    matcher: Matcher,
    /// Per symbol: whether it matches (extended lazily as the interner grows).
    sym_match: Vec<bool>,
}

/// The filter syntax, for the help line under the input.
pub const FILTER_SYNTAX: &str = "text | party:… template:… choice:… id:… contract:… | is:transfer, is:vote, is:reward… | re:<regex> (e.g. choice:re:^Amulet); terms separated by spaces must all match";

impl Filter {
    /// Parses filter input. An empty input is `Ok(None)` (no filter).
    pub fn parse(input: &str) -> Result<Option<Filter>, String> {
        let trimmed = input.trim();
        if trimmed.is_empty() {
            return Ok(None);
        }
        let terms = trimmed
            .split_whitespace()
            .map(Term::parse)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(Filter {
            input: trimmed.to_string(),
            terms,
        }))
    }

    /// Brings the per-symbol match tables up to date with the interner.
    pub fn prepare(&mut self, summarizer: &Summarizer) {
        for term in &mut self.terms {
            term.prepare(summarizer);
        }
    }

    /// Drops what [`Filter::prepare`] worked out (for another history).
    fn forget_prepared(&mut self) {
        for term in &mut self.terms {
            term.sym_match.clear();
        }
    }

    /// Whether a summary matches every term. Call [`Filter::prepare`] after the history grew.
    pub fn matches(&self, s: &UpdateSummary) -> bool {
        self.terms.iter().all(|t| t.matches(s))
    }
}

impl Term {
    fn parse(text: &str) -> Result<Term, String> {
        let (field, rest) = match text.split_once(':') {
            Some(("party", r)) => (FilterField::Party, r),
            Some(("template", r)) => (FilterField::Template, r),
            Some(("choice", r)) => (FilterField::Choice, r),
            Some(("id", r)) => (FilterField::UpdateId, r),
            Some(("contract", r)) => (FilterField::Contract, r),
            Some(("is", name)) => {
                // The update exercises one of the choices of that kind (as `index search`).
                let choices = super::is_term::choices(name)?;
                let pattern = choices
                    .iter()
                    .map(|c| regex::escape(c))
                    .collect::<Vec<_>>()
                    .join("|");
                let re = RegexBuilder::new(&format!("^(?:{pattern})$"))
                    .build()
                    .map_err(|e| format!("is:{name}: {e}"))?;
                return Ok(Term {
                    field: FilterField::Choice,
                    matcher: Matcher::Regex(re),
                    sym_match: Vec::new(),
                });
            }
            _ => (FilterField::Any, text),
        };
        Ok(Term {
            field,
            matcher: Matcher::parse(rest)?,
            sym_match: Vec::new(),
        })
    }

    fn prepare(&mut self, summarizer: &Summarizer) {
        let interner = &summarizer.interner;
        let wanted = self.field.category();
        for i in self.sym_match.len()..interner.len() {
            let sym = Sym(i as u32);
            let m = i != 0
                && summarizer.category(sym) & wanted != 0
                && self.matcher.is_match(interner.resolve(sym));
            self.sym_match.push(m);
        }
    }

    fn matches(&self, s: &UpdateSummary) -> bool {
        let field = self.field;
        if matches!(field, FilterField::Any | FilterField::UpdateId)
            && self.matcher.is_match(&s.update_id())
        {
            return true;
        }
        if matches!(field, FilterField::Any | FilterField::Contract) && self.matches_contract(s) {
            return true;
        }
        s.syms()
            .any(|sym| self.sym_match.get(sym.0 as usize).copied().unwrap_or(false))
    }

    fn matches_contract(&self, s: &UpdateSummary) -> bool {
        // Summaries keep the first 16 hex digits of each contract id (low 2 bits are flags): a
        // needle matches a prefix it occurs in, or a longer id that starts with the prefix.
        let Matcher::Substring { needle, .. } = &self.matcher else {
            return false;
        };
        let n = needle.as_bytes();
        if n.len() < 4 || !n.iter().all(u8::is_ascii_hexdigit) {
            return false;
        }
        s.contracts().any(|c| {
            let hex = hex16(c & !0b11);
            if n.len() >= 16 {
                // The low two bits of the 16th digit carry flags: compare the first 15 exactly.
                hex[..15].eq_ignore_ascii_case(&n[..15]) && contract_key(needle) == (c & !0b11)
            } else {
                hex[..15]
                    .windows(n.len().min(15))
                    .any(|w| w.eq_ignore_ascii_case(&n[..n.len().min(15)]))
            }
        })
    }
}

fn hex16(v: u64) -> [u8; 16] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; 16];
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = DIGITS[((v >> ((15 - i) * 4)) & 0xf) as usize];
    }
    out
}

fn first_line(s: &str) -> &str {
    s.lines().last().unwrap_or(s)
}

/// The rows a filtered view shows: indices into the history, kept in step as pages arrive.
#[derive(Debug, Clone, Default)]
pub struct FilteredView {
    pub filter: Option<Filter>,
    /// Matching indices (only when a filter is set).
    rows: Vec<usize>,
    /// How many history items have been examined (from the oldest).
    seen: usize,
}

impl FilteredView {
    /// Sets (or clears) the filter and recomputes the rows. What the filter prepared belongs
    /// to the history it was prepared on (a replaced history numbers its parties and templates
    /// anew), so it is prepared again from scratch.
    pub fn set(&mut self, mut filter: Option<Filter>, history: &History) {
        if let Some(f) = filter.as_mut() {
            f.forget_prepared();
        }
        self.filter = filter;
        self.rows.clear();
        self.seen = 0;
        self.sync(history, 0);
    }

    /// Call after the `n` oldest history items were dropped (before [`FilteredView::sync`]).
    pub fn drop_front(&mut self, n: usize) {
        if self.filter.is_some() {
            self.rows.retain(|&i| i >= n);
            for r in &mut self.rows {
                *r -= n;
            }
        }
        self.seen = self.seen.saturating_sub(n);
    }

    /// Call after pages were added: `prepended` items arrived at the front.
    pub fn sync(&mut self, history: &History, prepended: usize) {
        let Some(filter) = self.filter.as_mut() else {
            self.seen = history.len();
            return;
        };
        filter.prepare(&history.summarizer);
        if prepended > 0 {
            for r in &mut self.rows {
                *r += prepended;
            }
            self.seen += prepended;
            let mut front: Vec<usize> = (0..prepended)
                .filter(|&i| history.get(i).is_some_and(|s| filter.matches(s)))
                .collect();
            front.append(&mut self.rows);
            self.rows = front;
        }
        for i in self.seen..history.len() {
            if history.get(i).is_some_and(|s| filter.matches(s)) {
                self.rows.push(i);
            }
        }
        self.seen = history.len();
    }

    /// Number of rows shown.
    pub fn len(&self, history: &History) -> usize {
        if self.filter.is_some() {
            self.rows.len()
        } else {
            history.len()
        }
    }

    /// Whether no rows are shown.
    pub fn is_empty(&self, history: &History) -> bool {
        self.len(history) == 0
    }

    /// The history index of row `row`.
    pub fn index(&self, row: usize) -> Option<usize> {
        if self.filter.is_some() {
            self.rows.get(row).copied()
        } else {
            Some(row)
        }
    }

    /// The row showing history index `index` (the nearest row at or after it when filtered).
    pub fn row_of(&self, index: usize) -> usize {
        if self.filter.is_some() {
            self.rows.partition_point(|&i| i < index)
        } else {
            index
        }
    }
}
