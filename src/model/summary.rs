//! Compact update summaries: what the History pane keeps per loaded update (about a hundred
//! bytes: a 32-byte slot and one packed heap block, see `model::summary_pack`), derived from a
//! decoded `/v2/updates` item. Full bodies live in the bounded cache of [`super::cache`] and are
//! refetched when evicted.

use std::borrow::Cow;

use crate::api::scan::{ReassignmentEvent, TreeEvent, UpdateItem};

use super::intern::{Interner, Sym};
use super::summary_pack::{self as pack, Parts};
pub use super::summary_pack::{HEX_ID_LEN, RootAction, Syms, UpdateIdText};
// Re-exported for the callers that name them here (the panes, the integration tests).
pub use super::format::{
    format_time_micros, parse_time_micros, short_id, short_party, short_template, template_entity,
};
use super::summary_telling::{self, Telling};

/// What kind of update a summary describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SummaryKind {
    Transaction,
    Assign,
    Unassign,
    /// An item that could not be decoded; kept so the user sees that something was there.
    Malformed,
}

impl SummaryKind {
    /// The label shown in the kind column.
    pub fn label(self) -> &'static str {
        match self {
            SummaryKind::Transaction => "transaction",
            SummaryKind::Assign => "assign",
            SummaryKind::Unassign => "unassign",
            SummaryKind::Malformed => "malformed",
        }
    }
}

/// Flag bits in the low bits of a contract key.
pub const CONTRACT_CREATED: u64 = 0b01;
/// The update archives the contract (consuming exercise or unassign).
pub const CONTRACT_ARCHIVED: u64 = 0b10;
const CONTRACT_FLAGS: u64 = 0b11;

/// The key of a contract id: its first 16 hex digits (or a hash, for non-hex ids), with the two
/// low bits cleared (they carry [`CONTRACT_CREATED`] / [`CONTRACT_ARCHIVED`] inside summaries).
pub fn contract_key(contract_id: &str) -> u64 {
    let bytes = contract_id.as_bytes();
    let mut v: u64 = 0;
    let mut hex = bytes.len() >= 16;
    if hex {
        for &b in &bytes[..16] {
            let d = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => {
                    hex = false;
                    break;
                }
            };
            v = (v << 4) | u64::from(d);
        }
    }
    if !hex {
        // FNV-1a over the whole id.
        v = 0xcbf2_9ce4_8422_2325;
        for &b in bytes {
            v ^= u64::from(b);
            v = v.wrapping_mul(0x0100_0000_01b3);
        }
    }
    v & !CONTRACT_FLAGS
}

/// Symbol categories, as bits (a symbol may be in several).
pub mod cat {
    pub const PARTY: u8 = 1;
    pub const TEMPLATE: u8 = 2;
    pub const CHOICE: u8 = 4;
    pub const SYNCHRONIZER: u8 = 8;
    /// A validator: an observer (not a signatory) of a created `ValidatorLicense` contract.
    pub const VALIDATOR: u8 = 16;
}

/// Whether a template id names the Splice `ValidatorLicense` template (any package).
pub fn is_validator_license(template_id: &str) -> bool {
    short_template(template_id) == "Splice.ValidatorLicense:ValidatorLicense"
}

/// One loaded update, compactly: 32 bytes in the History's deque and one exact-size heap block
/// (see `model::summary_pack`) for the update id, contract keys, symbols, event count and root
/// action. Read it through the accessor methods.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateSummary {
    /// Record time in microseconds since the Unix epoch (UTC).
    record_time: i64,
    packed: Box<[u8]>,
    synchronizer: Sym,
    /// The migration id, or [`MIGRATION_PACKED`] when it is kept in `packed` (it does not fit).
    migration: u16,
    kind: SummaryKind,
}

/// The `migration` slot's value for a migration id kept in the packed block instead.
const MIGRATION_PACKED: u16 = u16::MAX;

/// The parts of a summary, for [`UpdateSummary::new`].
#[derive(Debug, Clone)]
pub struct SummaryParts<'a> {
    /// Record time in microseconds since the Unix epoch (UTC).
    pub record_time: i64,
    pub migration_id: i64,
    pub update_id: &'a str,
    pub synchronizer: Sym,
    pub event_count: u32,
    pub kind: SummaryKind,
    pub root: RootAction,
    /// Parties, templates and choices of the update (sorted and deduplicated here).
    pub syms: &'a [Sym],
    /// Contract keys (see [`contract_key`]) with flag bits (sorted and deduplicated here).
    pub contracts: &'a [u64],
}

/// Builds summaries, interning strings and recording symbol categories.
#[derive(Debug, Default, Clone)]
pub struct Summarizer {
    pub interner: Interner,
    /// Category bits per symbol (index = symbol number).
    pub sym_cats: Vec<u8>,
    scratch_syms: Vec<Sym>,
    scratch_contracts: Vec<u64>,
    scratch_packed: Vec<u8>,
}

/// The fixed parts of a summary as [`Summarizer::summarize`] reads them from an item.
struct Head<'a> {
    record_time: i64,
    migration_id: i64,
    update_id: Cow<'a, str>,
    synchronizer: Sym,
    event_count: u32,
    kind: SummaryKind,
    root: RootAction,
}

impl Summarizer {
    fn sym(&mut self, s: &str, category: u8) -> Sym {
        let sym = self.interner.intern(s);
        let i = sym.0 as usize;
        if self.sym_cats.len() <= i {
            self.sym_cats.resize(i + 1, 0);
        }
        self.sym_cats[i] |= category;
        sym
    }

    /// A party's symbol (none for an empty id).
    fn party_sym(&mut self, s: &str) -> Sym {
        if s.is_empty() {
            Sym::NONE
        } else {
            self.sym(s, cat::PARTY)
        }
    }

    fn push_sym(&mut self, s: &str, category: u8) -> Sym {
        let sym = self.sym(s, category);
        if !sym.is_none() {
            self.scratch_syms.push(sym);
        }
        sym
    }

    fn push_contract(&mut self, id: &str, flags: u64) {
        if !id.is_empty() {
            self.scratch_contracts.push(contract_key(id) | flags);
        }
    }

    /// The category bits of a symbol.
    pub fn category(&self, sym: Sym) -> u8 {
        self.sym_cats.get(sym.0 as usize).copied().unwrap_or(0)
    }

    /// Summarises one decoded history item.
    pub fn summarize(&mut self, item: &UpdateItem) -> UpdateSummary {
        self.scratch_syms.clear();
        self.scratch_contracts.clear();
        let head = match item {
            UpdateItem::Transaction(tx) => {
                let synchronizer = self.sym(&tx.synchronizer_id, cat::SYNCHRONIZER);
                for ev in tx.events_by_id.values() {
                    match ev {
                        TreeEvent::Created(c) => {
                            self.push_sym(&c.template_id, cat::TEMPLATE);
                            for p in c.signatories.iter().chain(&c.observers) {
                                self.push_sym(p, cat::PARTY);
                            }
                            if is_validator_license(&c.template_id) {
                                for p in &c.observers {
                                    if !c.signatories.contains(p) {
                                        self.sym(p, cat::VALIDATOR);
                                    }
                                }
                            }
                            self.push_contract(&c.contract_id, CONTRACT_CREATED);
                        }
                        TreeEvent::Exercised(e) => {
                            self.push_sym(&e.template_id, cat::TEMPLATE);
                            self.push_sym(&e.choice, cat::CHOICE);
                            for p in &e.acting_parties {
                                self.push_sym(p, cat::PARTY);
                            }
                            let flags = if e.consuming { CONTRACT_ARCHIVED } else { 0 };
                            self.push_contract(&e.contract_id, flags);
                        }
                        TreeEvent::Unknown { .. } => {}
                    }
                }
                let more_roots =
                    u16::try_from(tx.root_event_ids.len().saturating_sub(1)).unwrap_or(u16::MAX);
                let telling = summary_telling::find(tx).map(|f| {
                    RootAction::Telling(Telling {
                        kind: f.kind,
                        party: self.party_sym(&f.party),
                        other: self.party_sym(&f.other),
                        units: f.amount.units,
                        scale: f.amount.scale,
                        more_receivers: u8::try_from(f.more_receivers).unwrap_or(u8::MAX),
                        more: u16::try_from(f.more).unwrap_or(u16::MAX),
                    })
                });
                let root = match (telling, tx.root_events().next()) {
                    (Some(telling), _) => telling,
                    (None, Some(TreeEvent::Exercised(e))) => RootAction::Exercise {
                        template: self.sym(&e.template_id, cat::TEMPLATE),
                        choice: self.sym(&e.choice, cat::CHOICE),
                        more_roots,
                    },
                    (None, Some(TreeEvent::Created(c))) => RootAction::Create {
                        template: self.sym(&c.template_id, cat::TEMPLATE),
                        more_roots,
                    },
                    _ => RootAction::None,
                };
                Head {
                    record_time: parse_time_micros(&tx.record_time).unwrap_or(i64::MIN),
                    migration_id: tx.migration_id,
                    update_id: Cow::Borrowed(tx.update_id.as_str()),
                    synchronizer,
                    event_count: u32::try_from(tx.events_by_id.len()).unwrap_or(u32::MAX),
                    kind: SummaryKind::Transaction,
                    root,
                }
            }
            UpdateItem::Reassignment(r) => {
                let (kind, source, target, counter, submitter, sync) = match &r.event {
                    ReassignmentEvent::Assign(a) => {
                        let c = &a.created_event;
                        self.push_sym(&c.template_id, cat::TEMPLATE);
                        for p in c.signatories.iter().chain(&c.observers) {
                            self.push_sym(p, cat::PARTY);
                        }
                        self.push_contract(&c.contract_id, CONTRACT_CREATED);
                        (
                            SummaryKind::Assign,
                            &a.source_synchronizer,
                            &a.target_synchronizer,
                            a.reassignment_counter,
                            &a.submitter,
                            &a.target_synchronizer,
                        )
                    }
                    ReassignmentEvent::Unassign(u) => {
                        self.push_contract(&u.contract_id, CONTRACT_ARCHIVED);
                        (
                            SummaryKind::Unassign,
                            &u.source_synchronizer,
                            &u.target_synchronizer,
                            u.reassignment_counter,
                            &u.submitter,
                            &u.source_synchronizer,
                        )
                    }
                };
                self.push_sym(submitter, cat::PARTY);
                let root = RootAction::Reassign {
                    source: self.sym(source, cat::SYNCHRONIZER),
                    target: self.sym(target, cat::SYNCHRONIZER),
                    counter,
                    link: self.sym(r.event.unassign_id(), 0),
                };
                Head {
                    record_time: parse_time_micros(&r.record_time).unwrap_or(i64::MIN),
                    migration_id: r.event.migration_id(),
                    update_id: Cow::Borrowed(r.update_id.as_str()),
                    synchronizer: self.sym(sync, cat::SYNCHRONIZER),
                    event_count: 1,
                    kind,
                    root,
                }
            }
            UpdateItem::Malformed { raw, .. } => {
                // Keep what can be read so the cursor still advances past it.
                let v = raw.to_value().unwrap_or_default();
                let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
                Head {
                    record_time: parse_time_micros(&s("record_time")).unwrap_or(i64::MIN),
                    migration_id: v
                        .get("migration_id")
                        .and_then(serde_json::Value::as_i64)
                        .unwrap_or(-1),
                    update_id: Cow::Owned(s("update_id")),
                    synchronizer: Sym::NONE,
                    event_count: 0,
                    kind: SummaryKind::Malformed,
                    root: RootAction::None,
                }
            }
        };
        self.scratch_syms.sort_unstable();
        self.scratch_syms.dedup();
        self.scratch_contracts.sort_unstable();
        self.scratch_contracts.dedup();
        UpdateSummary::build(
            &SummaryParts {
                record_time: head.record_time,
                migration_id: head.migration_id,
                update_id: &head.update_id,
                synchronizer: head.synchronizer,
                event_count: head.event_count,
                kind: head.kind,
                root: head.root,
                syms: &self.scratch_syms,
                contracts: &self.scratch_contracts,
            },
            &mut self.scratch_packed,
        )
    }
}

impl UpdateSummary {
    /// A summary of these parts (the symbols and contract keys are sorted and deduplicated).
    pub fn new(parts: &SummaryParts<'_>) -> UpdateSummary {
        let mut syms = parts.syms.to_vec();
        syms.sort_unstable();
        syms.dedup();
        let mut contracts = parts.contracts.to_vec();
        contracts.sort_unstable();
        contracts.dedup();
        UpdateSummary::build(
            &SummaryParts {
                syms: &syms,
                contracts: &contracts,
                ..parts.clone()
            },
            &mut Vec::new(),
        )
    }

    /// Builds a summary from parts whose symbols and contract keys are sorted and deduplicated,
    /// packing into `scratch` first so the kept block is allocated at its exact size.
    fn build(parts: &SummaryParts<'_>, scratch: &mut Vec<u8>) -> UpdateSummary {
        let slot = u16::try_from(parts.migration_id)
            .ok()
            .filter(|&m| m != MIGRATION_PACKED);
        pack::pack(
            scratch,
            &Parts {
                migration: if slot.is_some() {
                    None
                } else {
                    Some(parts.migration_id)
                },
                update_id: parts.update_id,
                contracts: parts.contracts,
                syms: parts.syms,
                event_count: parts.event_count,
                root: parts.root,
            },
        );
        UpdateSummary {
            record_time: parts.record_time,
            packed: scratch.as_slice().into(),
            synchronizer: parts.synchronizer,
            migration: slot.unwrap_or(MIGRATION_PACKED),
            kind: parts.kind,
        }
    }

    /// A copy under another update id at another record time (tests and benchmarks make many
    /// distinct updates from one).
    pub fn with_id_and_time(&self, update_id: &str, record_time: i64) -> UpdateSummary {
        let syms: Vec<Sym> = self.syms().collect();
        let contracts: Vec<u64> = self.contracts().collect();
        UpdateSummary::build(
            &SummaryParts {
                record_time,
                migration_id: self.migration_id(),
                update_id,
                synchronizer: self.synchronizer,
                event_count: self.event_count(),
                kind: self.kind,
                root: self.root(),
                syms: &syms,
                contracts: &contracts,
            },
            &mut Vec::new(),
        )
    }

    /// Record time in microseconds since the Unix epoch (UTC).
    pub fn record_time(&self) -> i64 {
        self.record_time
    }

    /// The migration id.
    pub fn migration_id(&self) -> i64 {
        if self.migration == MIGRATION_PACKED {
            pack::migration(&self.packed)
        } else {
            i64::from(self.migration)
        }
    }

    /// The update id, exactly as received.
    pub fn update_id(&self) -> UpdateIdText<'_> {
        pack::update_id(&self.packed)
    }

    /// Whether the update id is `id` (without spelling the id out).
    pub fn update_id_is(&self, id: &str) -> bool {
        pack::update_id_is(&self.packed, id)
    }

    /// The synchronizer.
    pub fn synchronizer(&self) -> Sym {
        self.synchronizer
    }

    /// Events in the update (saturating at `u32::MAX`).
    pub fn event_count(&self) -> u32 {
        pack::event_count(&self.packed)
    }

    /// What kind of update it is.
    pub fn kind(&self) -> SummaryKind {
        self.kind
    }

    /// The root action.
    pub fn root(&self) -> RootAction {
        pack::root(&self.packed)
    }

    /// Parties, templates and choices of the update, deduplicated, ascending (for the filter
    /// and export).
    pub fn syms(&self) -> Syms<'_> {
        pack::syms(&self.packed)
    }

    /// Whether the update holds the symbol.
    pub fn has_sym(&self, sym: Sym) -> bool {
        self.syms().take_while(|s| *s <= sym).any(|s| s == sym)
    }

    /// Contract keys (see [`contract_key`]) with flag bits, ascending.
    pub fn contracts(&self) -> impl ExactSizeIterator<Item = u64> + Clone + '_ {
        pack::contracts(&self.packed)
    }

    /// Its place in the ledger.
    pub fn at(&self) -> crate::model::position::At {
        crate::model::position::At::new(self.migration_id(), self.record_time)
    }

    /// [`root_label`](Self::root_label) for a column `width` wide: a well-known Splice action
    /// keeps its amount whole by cutting the parties' names instead (see
    /// [`Telling::label_within`](crate::model::summary_telling::Telling::label_within)).
    pub fn root_label_within(&self, interner: &Interner, width: usize) -> String {
        match self.root() {
            RootAction::Telling(t) => t.label_within(interner, width),
            _ => self.root_label(interner),
        }
    }

    /// The one-line summary of the root action (`AmuletRules_Transfer`, `created ValidatorLicense`,
    /// `assign global-domain→other #3`).
    pub fn root_label(&self, interner: &Interner) -> String {
        let more = |n: u16| {
            if n > 0 {
                format!(" +{n}")
            } else {
                String::new()
            }
        };
        match self.root() {
            RootAction::Exercise {
                template,
                choice,
                more_roots,
            } => {
                let choice = interner.resolve(choice);
                if choice.is_empty() {
                    format!(
                        "exercised {}{}",
                        template_entity(interner.resolve(template)),
                        more(more_roots)
                    )
                } else {
                    format!("{choice}{}", more(more_roots))
                }
            }
            RootAction::Create {
                template,
                more_roots,
            } => format!(
                "created {}{}",
                template_entity(interner.resolve(template)),
                more(more_roots)
            ),
            RootAction::Reassign {
                source,
                target,
                counter,
                ..
            } => format!(
                "{} {}→{} #{counter}",
                self.kind.label(),
                short_party(interner.resolve(source)),
                short_party(interner.resolve(target)),
            ),
            RootAction::Telling(t) => t.label(interner),
            RootAction::None => match self.kind {
                SummaryKind::Malformed => "could not be decoded".to_string(),
                _ => "(no root event)".to_string(),
            },
        }
    }

    /// The record time as the server writes it.
    pub fn record_time_string(&self) -> String {
        format_time_micros(self.record_time)
    }

    /// The flags with which this update touches the contract of `key` (None: it does not).
    /// An update may hold a key several times with different flags (created by one event,
    /// exercised by another): the flags are combined.
    pub fn contract_flags(&self, key: u64) -> Option<u64> {
        self.contracts()
            .filter(|c| (*c & !CONTRACT_FLAGS) == key)
            .fold(None, |acc, c| Some(acc.unwrap_or(0) | (c & CONTRACT_FLAGS)))
    }

    /// Bytes this summary uses on the heap (not counting interned strings, which are shared).
    pub fn heap_bytes(&self) -> usize {
        self.packed.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_keys_ignore_flags_and_accept_non_hex() {
        let a = contract_key("00ab12cd34ef5678aabbccdd");
        assert_eq!(a & CONTRACT_FLAGS, 0);
        assert_eq!(a, contract_key("00AB12CD34EF5678ffff"));
        assert_ne!(
            contract_key("not-hex-contract-id-1"),
            contract_key("not-hex-contract-id-2")
        );
    }
}
