//! The packed, variable part of an [`UpdateSummary`](super::summary::UpdateSummary): one
//! exact-size heap block per loaded update instead of three allocations (id, symbols, contract
//! keys), with the update id kept as 32 raw bytes when it has the form every Canton update id has
//! (`1220` and 64 lowercase hex digits) and small numbers written as LEB128 varints.
//!
//! Layout, in order:
//! 1. a flags byte ([`ID_HEX`], [`MIGRATION_HERE`]);
//! 2. the migration id as a zigzag varint, only when it does not fit the summary's `u16` slot;
//! 3. the update id: 32 bytes (hex form) or a varint length and the UTF-8 bytes, exactly;
//! 4. the contract keys: a varint count, then 8 little-endian bytes each;
//! 5. the symbols: a varint count, then the sorted symbols as varint deltas;
//! 6. the event count (varint);
//! 7. the root action: a tag byte and its fields.
//!
//! Only [`pack`] writes a block and the readers below read one; they never panic on a short
//! block (missing parts read as zero / empty).

use super::intern::Sym;
use super::summary_telling::{Telling, TellingKind};

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

/// Flag: the update id is `1220` + 64 lowercase hex digits, kept as 32 bytes.
const ID_HEX: u8 = 1;
/// Flag: the migration id is written in the block (it does not fit the summary's slot).
pub(super) const MIGRATION_HERE: u8 = 2;

/// Characters of an update id in the hex form.
pub const HEX_ID_LEN: usize = 68;
const HEX_ID_PREFIX: &[u8] = b"1220";
const HEX_ID_BYTES: usize = 32;
const DIGITS: &[u8; 16] = b"0123456789abcdef";

const ROOT_NONE: u8 = 0;
const ROOT_EXERCISE: u8 = 1;
const ROOT_CREATE: u8 = 2;
const ROOT_REASSIGN: u8 = 3;
const ROOT_TELLING: u8 = 4;

/// What a block holds (the summary's fixed fields live beside it).
pub(super) struct Parts<'a> {
    /// The migration id when it does not fit the summary's slot.
    pub migration: Option<i64>,
    pub update_id: &'a str,
    /// Sorted and deduplicated.
    pub contracts: &'a [u64],
    /// Sorted and deduplicated.
    pub syms: &'a [Sym],
    pub event_count: u32,
    pub root: RootAction,
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// A cursor over a block.
struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> u8 {
        let v = self.b.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v
    }

    fn varint(&mut self) -> u64 {
        let mut v: u64 = 0;
        let mut shift = 0;
        while let Some(&b) = self.b.get(self.pos) {
            self.pos += 1;
            if shift < 64 {
                v |= u64::from(b & 0x7f) << shift;
            }
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        v
    }

    fn u32(&mut self) -> u32 {
        u32::try_from(self.varint()).unwrap_or(u32::MAX)
    }

    fn sym(&mut self) -> Sym {
        Sym(self.u32())
    }

    fn take(&mut self, n: usize) -> &'a [u8] {
        let start = self.pos.min(self.b.len());
        let end = self.pos.saturating_add(n).min(self.b.len());
        self.pos = self.pos.saturating_add(n);
        &self.b[start..end]
    }

    /// Skips to the contract keys; returns the update id's bytes and whether they are raw.
    fn id(&mut self) -> (&'a [u8], bool) {
        let flags = self.byte();
        if flags & MIGRATION_HERE != 0 {
            self.varint();
        }
        if flags & ID_HEX != 0 {
            (self.take(HEX_ID_BYTES), false)
        } else {
            let n = usize::try_from(self.varint()).unwrap_or(usize::MAX);
            (self.take(n), true)
        }
    }

    /// Skips the contract keys; returns their bytes.
    fn contracts(&mut self) -> &'a [u8] {
        self.id();
        let n = usize::try_from(self.varint()).unwrap_or(usize::MAX);
        self.take(n.saturating_mul(8))
    }

    /// Positions the cursor at the first symbol delta; returns the count.
    fn syms(&mut self) -> usize {
        self.contracts();
        usize::try_from(self.varint()).unwrap_or(usize::MAX)
    }

    /// Positions the cursor at the root action; returns the event count.
    fn event_count(&mut self) -> u32 {
        let n = self.syms();
        for _ in 0..n.min(self.b.len()) {
            self.varint();
        }
        self.u32()
    }
}

/// The bytes of an id of `1220` and 64 lower-case hex digits (none for any other id), its
/// digits checked and decoded in one pass.
fn hex_id_bytes(id: &str) -> Option<[u8; HEX_ID_BYTES]> {
    let digits = id.as_bytes().strip_prefix(HEX_ID_PREFIX)?;
    let mut bytes = [0u8; HEX_ID_BYTES];
    super::lower_hex::decode(digits, &mut bytes).then_some(bytes)
}

/// Writes the block for `parts` into `out` (cleared first).
pub(super) fn pack(out: &mut Vec<u8>, parts: &Parts<'_>) {
    out.clear();
    let hex = hex_id_bytes(parts.update_id);
    let mut flags = 0;
    if hex.is_some() {
        flags |= ID_HEX;
    }
    if parts.migration.is_some() {
        flags |= MIGRATION_HERE;
    }
    out.push(flags);
    if let Some(m) = parts.migration {
        put_varint(out, zigzag(m));
    }
    if let Some(bytes) = hex {
        out.extend_from_slice(&bytes);
    } else {
        put_varint(out, parts.update_id.len() as u64);
        out.extend_from_slice(parts.update_id.as_bytes());
    }
    put_varint(out, parts.contracts.len() as u64);
    for c in parts.contracts {
        out.extend_from_slice(&c.to_le_bytes());
    }
    put_varint(out, parts.syms.len() as u64);
    let mut prev = 0u32;
    for s in parts.syms {
        put_varint(out, u64::from(s.0.wrapping_sub(prev)));
        prev = s.0;
    }
    put_varint(out, u64::from(parts.event_count));
    match parts.root {
        RootAction::None => out.push(ROOT_NONE),
        RootAction::Exercise {
            template,
            choice,
            more_roots,
        } => {
            out.push(ROOT_EXERCISE);
            put_varint(out, u64::from(template.0));
            put_varint(out, u64::from(choice.0));
            put_varint(out, u64::from(more_roots));
        }
        RootAction::Create {
            template,
            more_roots,
        } => {
            out.push(ROOT_CREATE);
            put_varint(out, u64::from(template.0));
            put_varint(out, u64::from(more_roots));
        }
        RootAction::Reassign {
            source,
            target,
            counter,
            link,
        } => {
            out.push(ROOT_REASSIGN);
            put_varint(out, u64::from(source.0));
            put_varint(out, u64::from(target.0));
            put_varint(out, zigzag(counter));
            put_varint(out, u64::from(link.0));
        }
        RootAction::Telling(t) => {
            out.push(ROOT_TELLING);
            out.push(t.kind as u8);
            put_varint(out, u64::from(t.party.0));
            put_varint(out, u64::from(t.other.0));
            put_varint(out, zigzag(t.units));
            out.push(t.scale);
            out.push(t.more_receivers);
            put_varint(out, u64::from(t.more));
        }
    }
}

/// The migration id written in the block (0 when it is not there).
pub(super) fn migration(b: &[u8]) -> i64 {
    let mut r = Reader { b, pos: 0 };
    if r.byte() & MIGRATION_HERE == 0 {
        return 0;
    }
    unzigzag(r.varint())
}

/// The update id's text, decoded on the stack when it was kept as bytes.
#[derive(Clone, Copy)]
pub enum UpdateIdText<'a> {
    /// The hex form, spelt out.
    Hex([u8; HEX_ID_LEN]),
    /// Any other id, exactly as received.
    Raw(&'a str),
}

impl UpdateIdText<'_> {
    /// The id.
    pub fn as_str(&self) -> &str {
        match self {
            UpdateIdText::Hex(b) => std::str::from_utf8(b).unwrap_or_default(),
            UpdateIdText::Raw(s) => s,
        }
    }
}

impl std::ops::Deref for UpdateIdText<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Display for UpdateIdText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for UpdateIdText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for UpdateIdText<'_> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for UpdateIdText<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// The update id of a block.
pub(super) fn update_id(b: &[u8]) -> UpdateIdText<'_> {
    let mut r = Reader { b, pos: 0 };
    match r.id() {
        (raw, true) => UpdateIdText::Raw(std::str::from_utf8(raw).unwrap_or_default()),
        (bytes, false) => {
            let mut out = [0u8; HEX_ID_LEN];
            out[..HEX_ID_PREFIX.len()].copy_from_slice(HEX_ID_PREFIX);
            for (i, v) in bytes.iter().enumerate() {
                let at = HEX_ID_PREFIX.len() + 2 * i;
                if let Some(pair) = out.get_mut(at..at + 2) {
                    pair[0] = DIGITS[usize::from(v >> 4)];
                    pair[1] = DIGITS[usize::from(v & 0xf)];
                }
            }
            UpdateIdText::Hex(out)
        }
    }
}

/// Whether the block's update id is `id` (without spelling it out).
pub(super) fn update_id_is(b: &[u8], id: &str) -> bool {
    let mut r = Reader { b, pos: 0 };
    match r.id() {
        (raw, true) => raw == id.as_bytes(),
        (bytes, false) => hex_id_bytes(id).is_some_and(|id| id == bytes),
    }
}

/// The contract keys of a block, in order.
pub(super) fn contracts(b: &[u8]) -> impl ExactSizeIterator<Item = u64> + Clone + '_ {
    let mut r = Reader { b, pos: 0 };
    r.contracts().chunks_exact(8).map(|c| {
        let mut a = [0u8; 8];
        a.copy_from_slice(c);
        u64::from_le_bytes(a)
    })
}

/// The symbols of a block, ascending.
#[derive(Clone)]
pub struct Syms<'a> {
    r: Reader<'a>,
    left: usize,
    prev: u32,
}

impl Clone for Reader<'_> {
    fn clone(&self) -> Self {
        Reader {
            b: self.b,
            pos: self.pos,
        }
    }
}

impl Iterator for Syms<'_> {
    type Item = Sym;
    fn next(&mut self) -> Option<Sym> {
        if self.left == 0 || self.r.pos >= self.r.b.len() {
            return None;
        }
        self.left -= 1;
        self.prev = self.prev.wrapping_add(self.r.u32());
        Some(Sym(self.prev))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left))
    }
}

/// The symbols of a block, ascending.
pub(super) fn syms(b: &[u8]) -> Syms<'_> {
    let mut r = Reader { b, pos: 0 };
    let left = r.syms();
    Syms { r, left, prev: 0 }
}

/// The event count of a block.
pub(super) fn event_count(b: &[u8]) -> u32 {
    Reader { b, pos: 0 }.event_count()
}

/// The root action of a block.
pub(super) fn root(b: &[u8]) -> RootAction {
    let mut r = Reader { b, pos: 0 };
    r.event_count();
    match r.byte() {
        ROOT_EXERCISE => RootAction::Exercise {
            template: r.sym(),
            choice: r.sym(),
            more_roots: u16::try_from(r.varint()).unwrap_or(u16::MAX),
        },
        ROOT_CREATE => RootAction::Create {
            template: r.sym(),
            more_roots: u16::try_from(r.varint()).unwrap_or(u16::MAX),
        },
        ROOT_REASSIGN => RootAction::Reassign {
            source: r.sym(),
            target: r.sym(),
            counter: unzigzag(r.varint()),
            link: r.sym(),
        },
        ROOT_TELLING => {
            let kind = r.byte();
            let Some(kind) = TellingKind::ALL.into_iter().find(|k| *k as u8 == kind) else {
                return RootAction::None;
            };
            RootAction::Telling(Telling {
                kind,
                party: r.sym(),
                other: r.sym(),
                units: unzigzag(r.varint()),
                scale: r.byte(),
                more_receivers: r.byte(),
                more: u16::try_from(r.varint()).unwrap_or(u16::MAX),
            })
        }
        _ => RootAction::None,
    }
}
