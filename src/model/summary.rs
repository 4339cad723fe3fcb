//! Compact update summaries: what the History pane keeps per loaded update (a few hundred bytes),
//! derived from a decoded `/v2/updates` item. Full bodies live in the bounded cache of
//! [`super::cache`] and are refetched when evicted.

use crate::api::scan::{ReassignmentEvent, TreeEvent, UpdateItem};

use super::intern::{Interner, Sym};
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

/// The root action of an update, for the one-line summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootAction {
    /// The first root is an exercise.
    Exercise {
        template: Sym,
        choice: Sym,
        more_roots: u16,
    },
    /// The first root is a create.
    Create { template: Sym, more_roots: u16 },
    /// A reassignment between synchronizers.
    Reassign {
        source: Sym,
        target: Sym,
        counter: i64,
        /// The interned `unassign_id` linking an unassign and its assign.
        link: Sym,
    },
    /// The most telling node inside the tree (a transfer, a well-known Splice choice; see
    /// [`super::summary_telling`]).
    Telling(Telling),
    /// No resolvable root.
    None,
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

/// One loaded update, compactly.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateSummary {
    /// Record time in microseconds since the Unix epoch (UTC).
    pub record_time: i64,
    pub migration_id: i64,
    pub update_id: Box<str>,
    pub synchronizer: Sym,
    pub event_count: u32,
    pub kind: SummaryKind,
    pub root: RootAction,
    /// Parties, templates and choices of the update, deduplicated (for the filter and export).
    pub syms: Box<[Sym]>,
    /// Contract keys (see [`contract_key`]) with flag bits.
    pub contracts: Box<[u64]>,
}

/// Builds summaries, interning strings and recording symbol categories.
#[derive(Debug, Default, Clone)]
pub struct Summarizer {
    pub interner: Interner,
    /// Category bits per symbol (index = symbol number).
    pub sym_cats: Vec<u8>,
    scratch_syms: Vec<Sym>,
    scratch_contracts: Vec<u64>,
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
        let mut summary = match item {
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
                UpdateSummary {
                    record_time: parse_time_micros(&tx.record_time).unwrap_or(i64::MIN),
                    migration_id: tx.migration_id,
                    update_id: tx.update_id.as_str().into(),
                    synchronizer,
                    event_count: u32::try_from(tx.events_by_id.len()).unwrap_or(u32::MAX),
                    kind: SummaryKind::Transaction,
                    root,
                    syms: Box::default(),
                    contracts: Box::default(),
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
                UpdateSummary {
                    record_time: parse_time_micros(&r.record_time).unwrap_or(i64::MIN),
                    migration_id: r.event.migration_id(),
                    update_id: r.update_id.as_str().into(),
                    synchronizer: self.sym(sync, cat::SYNCHRONIZER),
                    event_count: 1,
                    kind,
                    root,
                    syms: Box::default(),
                    contracts: Box::default(),
                }
            }
            UpdateItem::Malformed { raw, .. } => {
                // Keep what can be read so the cursor still advances past it.
                let v = raw.to_value().unwrap_or_default();
                let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
                UpdateSummary {
                    record_time: parse_time_micros(&s("record_time")).unwrap_or(i64::MIN),
                    migration_id: v
                        .get("migration_id")
                        .and_then(serde_json::Value::as_i64)
                        .unwrap_or(-1),
                    update_id: s("update_id").into(),
                    synchronizer: Sym::NONE,
                    event_count: 0,
                    kind: SummaryKind::Malformed,
                    root: RootAction::None,
                    syms: Box::default(),
                    contracts: Box::default(),
                }
            }
        };
        self.scratch_syms.sort_unstable();
        self.scratch_syms.dedup();
        self.scratch_contracts.sort_unstable();
        self.scratch_contracts.dedup();
        summary.syms = self.scratch_syms.as_slice().into();
        summary.contracts = self.scratch_contracts.as_slice().into();
        summary
    }
}

impl UpdateSummary {
    /// Its place in the ledger.
    pub fn at(&self) -> crate::model::position::At {
        crate::model::position::At::new(self.migration_id, self.record_time)
    }

    /// [`root_label`](Self::root_label) for a column `width` wide: a well-known Splice action
    /// keeps its amount whole by cutting the parties' names instead (see
    /// [`Telling::label_within`](crate::model::summary_telling::Telling::label_within)).
    pub fn root_label_within(&self, interner: &Interner, width: usize) -> String {
        match &self.root {
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
        match self.root {
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
        self.contracts
            .iter()
            .filter(|c| (**c & !CONTRACT_FLAGS) == key)
            .fold(None, |acc, c| Some(acc.unwrap_or(0) | (c & CONTRACT_FLAGS)))
    }

    /// Bytes this summary uses on the heap (not counting interned strings, which are shared).
    pub fn heap_bytes(&self) -> usize {
        self.update_id.len()
            + self.syms.len() * std::mem::size_of::<Sym>()
            + self.contracts.len() * std::mem::size_of::<u64>()
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
