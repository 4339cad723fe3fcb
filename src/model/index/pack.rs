//! How the index keeps an update's body: its JSON without whitespace between tokens, zstd
//! compressed, with a dictionary trained on the first bodies of its network migration that an
//! index receives.
//!
//! An update's JSON is a few KB, too little for zstd to learn its repetitions (field names,
//! template ids, parties) within one body; a dictionary of them, trained once per network
//! migration from a page of its bodies and kept in the index, halves the bodies and packs them faster: on the
//! demo's updates, a dictionary trained on one page of 1,000 packed the 7,000 of later pages
//! at a ratio of 8.1 instead of 4.0 and 665 MB/s instead of 415 (the `zstd` tool, level 1). A
//! packed body names its dictionary (zstd's dictionary id in the frame, none without one), so
//! an index can hold bodies packed with any of its dictionaries, or none, and reads each back.
//!
//! A body names its update's own id by one byte ([`OWN_ID`]): the id is in the update's row
//! already, and its first copy in a body (the id, then inside every event id) was a tenth of
//! the packed bytes, hex that no dictionary learns (measured on the demo's history: 756 bytes
//! a body, 681 with the id named by the byte). Bodies packed before keep the id, and read back
//! the same.

use zstd::bulk::Compressor;
use zstd::dict::EncoderDictionary;

use super::compact_json;

/// zstd level of the bodies, on both engines: level 1 costs about half the CPU of level 3 for
/// bodies a few percent larger (`INDEX_SYNC_CPU_RUNS=N cargo bench --bench index` prints both).
/// A body of any level reads back the same.
pub const ZSTD_LEVEL: i32 = 1;

/// The largest dictionary trained: 64 KiB (measured on the demo: 32 KiB from 200 bodies packed
/// at 7.6, 64 KiB from 1,000 at 8.1).
pub const DICTIONARY_SIZE: usize = 64 * 1024;

/// The fewest bodies a dictionary is trained from: fewer (a sync's first pages at the head of
/// a quiet network) are packed with the index's newest dictionary or without one, and a
/// later page trains it.
pub const DICTIONARY_SAMPLES: usize = 200;

/// How the bodies of new rows are packed: zstd at [`ZSTD_LEVEL`], with a dictionary of the
/// index or without one.
pub struct Packing {
    dictionary: Option<(u32, EncoderDictionary<'static>)>,
    /// Whether the bodies name their contracts ([`pack_body_naming_contracts`]): for an index
    /// whose writer completes them (SQLite's, schema 15).
    names_contracts: bool,
}

impl Packing {
    /// Without a dictionary.
    pub fn plain() -> Packing {
        Packing {
            dictionary: None,
            names_contracts: false,
        }
    }

    /// The same, its bodies naming their contracts when `names` ([`Self::names_contracts`]).
    pub fn naming_contracts(self, names: bool) -> Packing {
        Packing {
            names_contracts: names,
            ..self
        }
    }

    /// Whether its bodies name their contracts ([`pack_body_naming_contracts`]).
    pub fn names_contracts(&self) -> bool {
        self.names_contracts
    }

    /// With `dictionary` (as [`train_dictionary`] made it); an error for bytes that are not a
    /// zstd dictionary.
    pub fn with_dictionary(dictionary: &[u8]) -> Result<Packing, String> {
        let id = dictionary_id(dictionary)
            .ok_or("the index's body dictionary is not a zstd dictionary")?;
        let prepared = EncoderDictionary::try_copy(dictionary, ZSTD_LEVEL)
            .map_err(|e| format!("the index's body dictionary {id} is damaged: {e}"))?;
        Ok(Packing {
            dictionary: Some((id, prepared)),
            names_contracts: false,
        })
    }

    /// The id of its dictionary (none: packed without one).
    pub fn dictionary_id(&self) -> Option<u32> {
        self.dictionary.as_ref().map(|(id, _)| *id)
    }

    /// A compressor of bodies, reused body after body (a new context per body cost an
    /// allocation of its tables each time).
    pub fn packer(&self) -> Result<Compressor<'_>, String> {
        match &self.dictionary {
            Some((_, dictionary)) => Compressor::with_prepared_dictionary(dictionary),
            None => Compressor::new(ZSTD_LEVEL),
        }
        .map_err(|e| format!("cannot start zstd: {e}"))
    }
}

/// The byte that stands for the update's own id in a body's text, and that ends such a text (a
/// JSON text ends with `}`, and holds no raw control character): its row has the id. At the
/// end, not the start, it leaves the text's start as the dictionary has it: on the demo's
/// history 681 bytes a body against 694 with the byte first.
pub const OWN_ID: u8 = 0x01;

/// An item's JSON as the index keeps it: without whitespace between tokens ([`compact_json`]),
/// each copy of `update_id` named by [`OWN_ID`] ([`name_own_id`]), packed by `packer`
/// ([`Packing::packer`]).
pub fn pack_body(
    item_json: &str,
    update_id: &str,
    packer: &mut Compressor<'_>,
) -> Result<Vec<u8>, String> {
    let compact = compact_json(item_json);
    let named = name_own_id(&compact, update_id);
    packer
        .compress(named.as_deref().unwrap_or(compact.as_bytes()))
        .map_err(|e| format!("cannot compress a body: {e}"))
}

/// [`pack_body`] with the copies of `contracts` (the update's contract-id search terms, in
/// their order: [`super::keys_of`]) named too ([`name_contracts`]): the bytes are
/// [`CONTRACTS_PENDING`] then the frame, which the writer completes with the terms' ids
/// ([`with_contract_terms`]). Without a contract named, as [`pack_body`].
pub fn pack_body_naming_contracts(
    item_json: &str,
    update_id: &str,
    contracts: &[&str],
    packer: &mut Compressor<'_>,
) -> Result<Vec<u8>, String> {
    let compact = compact_json(item_json);
    let own = name_own_id(&compact, update_id);
    let text = own.as_deref().unwrap_or(compact.as_bytes());
    match name_contracts(text, contracts) {
        Some(named) => {
            let frame = packer
                .compress(&named)
                .map_err(|e| format!("cannot compress a body: {e}"))?;
            let mut out = Vec::with_capacity(frame.len() + 1);
            out.push(CONTRACTS_PENDING);
            out.extend_from_slice(&frame);
            Ok(out)
        }
        None => packer
            .compress(text)
            .map_err(|e| format!("cannot compress a body: {e}")),
    }
}

/// The byte that, followed by a slot byte ([`SLOT_BASE`] + the contract's place in the
/// update's contract terms), stands for a contract id in a body's text, quotes included. A
/// JSON text holds no raw control character, so neither this byte nor [`OWN_ID`] can be
/// there already.
pub const CONTRACT: u8 = 0x02;

/// The first slot byte: printable ASCII, so the text stays UTF-8.
pub const SLOT_BASE: u8 = 0x20;

/// The most contracts a body names (slot bytes `0x20`–`0x7e`); the ids of more stay as served.
pub const MOST_CONTRACTS: usize = 95;

/// The first byte of a packed body whose contracts are named and whose terms the writer has
/// not written yet (a zstd frame begins with 0x28).
pub const CONTRACTS_PENDING: u8 = 0xc4;

/// The first byte of a kept body that names its contracts: then the count of the terms and
/// each term's id (LEB128), then the zstd frame.
pub const CONTRACT_TERMS: u8 = 0xc5;

/// `text` with [`CONTRACT`] and a slot byte in the place of each copy of `"id"` (quoted: a
/// whole JSON string) of the first [`MOST_CONTRACTS`] of `contracts`; `None` when none is
/// there, or when the text has that byte already (not a JSON text: kept as it is).
pub fn name_contracts(text: &[u8], contracts: &[&str]) -> Option<Vec<u8>> {
    if contracts.is_empty() || memchr::memchr(CONTRACT, text).is_some() {
        return None;
    }
    // The ids to look for with their slots (the first of two equal ids keeps its slot), and
    // the bytes an id may start with, so that most quotes are passed over by one lookup.
    let mut ids: Vec<(&[u8], u8)> = Vec::with_capacity(contracts.len().min(MOST_CONTRACTS));
    let mut starts = [false; 256];
    for (slot, id) in contracts.iter().take(MOST_CONTRACTS).enumerate() {
        let id = id.as_bytes();
        if id.is_empty() || ids.iter().any(|(seen, _)| *seen == id) {
            continue;
        }
        starts[usize::from(id[0])] = true;
        ids.push((id, SLOT_BASE + slot as u8));
    }
    // One pass over the text's quotes: each that opens `"id"` of one of them is named, and
    // the search goes on past its closing quote. Contract ids as participants make them all
    // start with `00`: then only the quotes before a `0` are looked at, found by a searcher
    // made once (a quote is about one byte in ten of a body).
    static QUOTE_ZERO: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"0"));
    let zeros = ids.iter().all(|(id, _)| id[0] == b'0');
    let next_quote = |from: &[u8]| {
        if zeros {
            QUOTE_ZERO.find(from)
        } else {
            memchr::memchr(b'"', from)
        }
    };
    let mut out: Option<Vec<u8>> = None;
    let (mut run, mut from) = (0, 0);
    while let Some(found) = next_quote(&text[from..]) {
        let at = from + found;
        let rest = &text[at + 1..];
        let named = match rest.first() {
            Some(&first) if starts[usize::from(first)] => ids
                .iter()
                .find(|(id, _)| rest.get(id.len()) == Some(&b'"') && rest.starts_with(id)),
            _ => None,
        };
        match named {
            Some(&(id, slot)) => {
                let out = out.get_or_insert_with(|| Vec::with_capacity(text.len()));
                out.extend_from_slice(&text[run..at]);
                out.push(CONTRACT);
                out.push(slot);
                run = at + id.len() + 2;
                from = run;
            }
            None => from = at + 1,
        }
    }
    let mut out = out?;
    out.extend_from_slice(&text[run..]);
    Some(out)
}

/// A packed body as the index keeps it: a [`CONTRACTS_PENDING`] body given its contracts'
/// term ids (`terms`, in the order of the contracts it was packed with), any other as it is.
pub fn with_contract_terms(packed: &[u8], terms: &[i64]) -> Vec<u8> {
    match packed.split_first() {
        Some((&CONTRACTS_PENDING, frame)) => {
            let mut out = Vec::with_capacity(frame.len() + 2 + terms.len() * 4);
            out.push(CONTRACT_TERMS);
            leb128(&mut out, terms.len() as u64);
            for t in terms {
                leb128(&mut out, u64::try_from(*t).unwrap_or_default());
            }
            out.extend_from_slice(frame);
            out
        }
        _ => packed.to_vec(),
    }
}

/// The first byte of a kept body that names its contracts by their terms and keys (SQLite's
/// schema 16): the count of the terms, then for each its id (LEB128) and its key, then the
/// zstd frame. A key is the start of the contract id as the terms' table keeps it
/// ([`ContractKey`]), so that a reader finds the term through the table's own order, with no
/// index by id (schema 15's, [`CONTRACT_TERMS`], took 210 bytes an update at 1 M updates).
pub const CONTRACT_KEYS: u8 = 0xc6;

/// How many bytes of a contract id kept as bytes a body's key holds: with the id's first byte
/// (`00` today) 40 bits, so that another contract rarely shares them; the term's id tells those
/// that do apart.
pub const KEY_BYTES: usize = 6;

/// The tag of a key that is a whole contract id kept as text (then its length, LEB128, and its
/// text); a tag below it is the length of a key of bytes, which follow.
const KEY_TEXT: u8 = 0x80;

/// Where a reader finds a contract a body names ([`CONTRACT_KEYS`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContractKey {
    /// The first [`KEY_BYTES`] (or fewer: the whole id) of an id kept as bytes.
    Bytes(Vec<u8>),
    /// An id kept as text, whole (no contract id a participant makes).
    Text(String),
}

/// A contract a kept body names: its term's id and, from schema 16, its key (`None`: a body of
/// schema 15, found by the term's id alone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedContract {
    pub term: i64,
    pub key: Option<ContractKey>,
}

/// A packed body as the index keeps it from schema 16: a [`CONTRACTS_PENDING`] body given its
/// contracts' terms and keys (`contracts`, in the order of the contracts it was packed with),
/// any other as it is.
pub fn with_contract_keys(packed: &[u8], contracts: &[(i64, ContractKey)]) -> Vec<u8> {
    match packed.split_first() {
        Some((&CONTRACTS_PENDING, frame)) => {
            let mut out = Vec::with_capacity(frame.len() + 2 + contracts.len() * 11);
            out.push(CONTRACT_KEYS);
            leb128(&mut out, contracts.len() as u64);
            for (term, key) in contracts {
                leb128(&mut out, u64::try_from(*term).unwrap_or_default());
                match key {
                    ContractKey::Bytes(bytes) => {
                        let bytes = &bytes[..bytes.len().min(KEY_BYTES)];
                        out.push(bytes.len() as u8);
                        out.extend_from_slice(bytes);
                    }
                    ContractKey::Text(text) => {
                        out.push(KEY_TEXT);
                        leb128(&mut out, text.len() as u64);
                        out.extend_from_slice(text.as_bytes());
                    }
                }
            }
            out.extend_from_slice(frame);
            out
        }
        _ => packed.to_vec(),
    }
}

/// A kept body split into the contracts it names (none for a body that names none: schema 14
/// or before, or no contract of its update in it) and its zstd frame; an error for a body
/// damaged or not completed by its writer.
pub fn named_contracts(kept: &[u8]) -> Result<(Vec<NamedContract>, &[u8]), String> {
    let bad = || "its contracts' terms are damaged".to_owned();
    let count = |rest: &[u8], at: &mut usize| {
        read_leb128(rest, at)
            .filter(|n| *n <= MOST_CONTRACTS as u64)
            .ok_or_else(bad)
    };
    let term = |rest: &[u8], at: &mut usize| {
        read_leb128(rest, at)
            .and_then(|id| i64::try_from(id).ok())
            .ok_or_else(bad)
    };
    match kept.split_first() {
        Some((&CONTRACT_KEYS, rest)) => {
            let mut at = 0;
            let n = count(rest, &mut at)?;
            let mut named = Vec::with_capacity(n as usize);
            for _ in 0..n {
                let term = term(rest, &mut at)?;
                let tag = *rest.get(at).ok_or_else(bad)?;
                at += 1;
                let key = if tag == KEY_TEXT {
                    let len = read_leb128(rest, &mut at)
                        .and_then(|n| usize::try_from(n).ok())
                        .ok_or_else(bad)?;
                    let text = rest.get(at..at.saturating_add(len)).ok_or_else(bad)?;
                    at += len;
                    ContractKey::Text(String::from_utf8(text.to_vec()).map_err(|_| bad())?)
                } else if usize::from(tag) <= KEY_BYTES {
                    let len = usize::from(tag);
                    let bytes = rest.get(at..at + len).ok_or_else(bad)?;
                    at += len;
                    ContractKey::Bytes(bytes.to_vec())
                } else {
                    return Err(bad());
                };
                named.push(NamedContract {
                    term,
                    key: Some(key),
                });
            }
            Ok((named, &rest[at..]))
        }
        Some((&CONTRACT_TERMS, rest)) => {
            let mut at = 0;
            let n = count(rest, &mut at)?;
            let mut named = Vec::with_capacity(n as usize);
            for _ in 0..n {
                named.push(NamedContract {
                    term: term(rest, &mut at)?,
                    key: None,
                });
            }
            Ok((named, &rest[at..]))
        }
        Some((&CONTRACTS_PENDING, _)) => Err("its contracts' terms were never written".to_owned()),
        _ => Ok((Vec::new(), kept)),
    }
}

/// `n` as LEB128 (7 bits a byte, the low ones first), appended to `out`.
pub(crate) fn leb128(out: &mut Vec<u8>, mut n: u64) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// The LEB128 number at `at` of `bytes`, `at` moved past it; `None` when it ends early.
pub(crate) fn read_leb128(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut n: u64 = 0;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        n |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(n);
        }
    }
    None
}

/// A kept body split into the term ids of the contracts it names (none for a body that names
/// none) and its zstd frame ([`named_contracts`] without the keys); an error for a body
/// damaged or not completed by its writer.
pub fn contract_terms(kept: &[u8]) -> Result<(Vec<i64>, &[u8]), String> {
    named_contracts(kept).map(|(named, frame)| (named.iter().map(|c| c.term).collect(), frame))
}

/// A body's text as unpacked with each contract it names put back (`contracts`: the ids of
/// its terms, in order, as [`contract_terms`] read them and the index holds them); an error
/// for a slot it has no contract for.
pub fn contracts_back(text: String, contracts: &[String]) -> Result<String, String> {
    if contracts.is_empty() || !text.as_bytes().contains(&CONTRACT) {
        return Ok(text);
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + contracts.len() * 140);
    let mut run = 0;
    for at in memchr::memchr_iter(CONTRACT, bytes) {
        if at < run {
            continue;
        }
        let slot = bytes
            .get(at + 1)
            .and_then(|b| b.checked_sub(SLOT_BASE))
            .map(usize::from);
        let contract = slot
            .and_then(|s| contracts.get(s))
            .ok_or_else(|| "it names a contract its terms do not have".to_owned())?;
        out.push_str(&text[run..at]);
        out.push('"');
        out.push_str(contract);
        out.push('"');
        run = at + 2;
    }
    out.push_str(&text[run..]);
    Ok(out)
}

/// `text` with [`OWN_ID`] in the place of each copy of `update_id`, and last; `None` when it
/// has none (kept as it is), or when the id is empty or the text not a JSON text (it has that
/// byte: kept as it is, so that it reads back exactly).
pub fn name_own_id(text: &str, update_id: &str) -> Option<Vec<u8>> {
    let (text, id) = (text.as_bytes(), update_id.as_bytes());
    if id.is_empty() || memchr::memchr(OWN_ID, text).is_some() {
        return None;
    }
    let mut found = memchr::memmem::find_iter(text, id).peekable();
    found.peek()?;
    let mut out = Vec::with_capacity(text.len());
    let mut run = 0;
    for at in found {
        out.extend_from_slice(&text[run..at]);
        out.push(OWN_ID);
        run = at + id.len();
    }
    out.extend_from_slice(&text[run..]);
    out.push(OWN_ID);
    Some(out)
}

/// A body's text as unpacked, its update's id put back where [`name_own_id`] named it (a text
/// that does not end with [`OWN_ID`] is as served).
pub fn own_id_back(text: String, update_id: &str) -> String {
    match text.as_bytes().last() {
        Some(&OWN_ID) => text[..text.len() - 1].replace(char::from(OWN_ID), update_id),
        _ => text,
    }
}

/// An item's JSON as [`pack_body`] packs it, before zstd: the sample a body dictionary is
/// trained from ([`train_dictionary`]). A dictionary trained on the bodies as served keeps
/// the ids' places as the served text has them: the demo's bodies named by the byte packed to
/// 739 bytes with it against 681 with one trained on named bodies (756 as served).
pub fn body_sample(item_json: &str, update_id: &str) -> String {
    let compact = compact_json(item_json);
    name_own_id(&compact, update_id)
        .and_then(|named| String::from_utf8(named).ok())
        .unwrap_or_else(|| compact.into_owned())
}

/// [`body_sample`] of a body that names its contracts ([`pack_body_naming_contracts`]).
pub fn body_sample_naming_contracts(
    item_json: &str,
    update_id: &str,
    contracts: &[&str],
) -> String {
    let sample = body_sample(item_json, update_id);
    name_contracts(sample.as_bytes(), contracts)
        .and_then(|named| String::from_utf8(named).ok())
        .unwrap_or(sample)
}

/// The meta key of the body dictionaries a sync trained per network migration, on bodies named
/// as [`body_sample`] names them: `MIGRATION:ID` pairs ([`dictionaries_by_migration`]). A
/// migration without one gets its own from the first bodies of it that a sync writes, which
/// are packed with the index's newest dictionary meanwhile. On the demo's history, its second
/// migration's bodies take 648 bytes each with a dictionary of their own against 686 with
/// the first migration's; an index migrated from SQLite's schema 13 (PostgreSQL's 14), whose
/// dictionary was trained on bodies as served, is given its new one the same way.
pub const DICTIONARIES_KEY: &str = "body_dictionaries";

/// The dictionary ids by migration that [`DICTIONARIES_KEY`] keeps (a pair it cannot read is
/// left out: that migration trains another).
pub fn dictionaries_by_migration(kept: Option<&str>) -> std::collections::BTreeMap<i64, u32> {
    kept.unwrap_or_default()
        .split_whitespace()
        .filter_map(|pair| {
            let (migration, id) = pair.split_once(':')?;
            Some((migration.parse().ok()?, id.parse().ok()?))
        })
        .collect()
}

/// [`DICTIONARIES_KEY`]'s value for `by_migration`.
pub fn dictionaries_text(by_migration: &std::collections::BTreeMap<i64, u32>) -> String {
    by_migration
        .iter()
        .map(|(migration, id)| format!("{migration}:{id}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The most bodies a dictionary is trained from: of more, bodies evenly spaced among them.
/// zstd's trainer takes time in proportion to its samples' bytes: measured on the demo's
/// history (the `zstd` tool, level 1, the 13,340 bodies after the first page of 1,000 packed
/// with a 64 KiB dictionary trained from that page), every second body of the page (500)
/// trains in half the time of all 1,000 (0.08 CPU-s against 0.16, zstd's search of five segment
/// sizes; one training, [`super::zdict`], takes about a quarter of that) and packs the later
/// bodies 1.4 % larger (every fourth: 2.6 %).
pub const DICTIONARY_TRAINED_FROM: usize = 500;

/// A dictionary for bodies like `bodies` (items' JSON): `None` from fewer than
/// [`DICTIONARY_SAMPLES`] or when zstd finds nothing to learn (it refuses samples too few or
/// too small). Of more than [`DICTIONARY_TRAINED_FROM`] bodies, that many evenly spaced.
pub fn train_dictionary<'a>(bodies: impl IntoIterator<Item = &'a str>) -> Option<Vec<u8>> {
    let bodies: Vec<&str> = bodies.into_iter().collect();
    if bodies.len() < DICTIONARY_SAMPLES {
        return None;
    }
    let step = bodies.len().div_ceil(DICTIONARY_TRAINED_FROM);
    let samples: Vec<String> = bodies
        .iter()
        .step_by(step)
        .map(|b| compact_json(b).into_owned())
        .collect();
    let total: usize = samples.iter().map(String::len).sum();
    // zstd wants about ten times the dictionary's size in samples; less, a smaller one.
    let size = DICTIONARY_SIZE.min(total / 10).max(256);
    // One training with the segment size set ([`super::zdict`]). zstd's search of five refuses
    // all that it refuses (too few or too small samples), so it runs only should the training
    // fail otherwise (its memory, its entropy tables): a second chance, not another rule.
    let dictionary = match super::zdict::train(&samples, size, ZSTD_LEVEL) {
        Some(dictionary) => dictionary,
        None => zstd::dict::from_samples(&samples, size).ok()?,
    };
    dictionary_id(&dictionary).map(|_| dictionary)
}

/// The id a zstd dictionary names itself by (none: not a dictionary zstd made).
pub fn dictionary_id(dictionary: &[u8]) -> Option<u32> {
    zstd::zstd_safe::get_dict_id_from_dict(dictionary).map(std::num::NonZeroU32::get)
}

/// The dictionary id a packed body names (none: packed without one), a body that names its
/// contracts read past their terms ([`contract_terms`]).
pub fn body_dictionary_id(packed: &[u8]) -> Option<u32> {
    let frame = match packed.first() {
        Some(&CONTRACT_TERMS | &CONTRACT_KEYS) => {
            contract_terms(packed).map_or(packed, |(_, frame)| frame)
        }
        Some(&CONTRACTS_PENDING) => &packed[1..],
        _ => packed,
    };
    zstd::zstd_safe::get_dict_id_from_frame(frame).map(std::num::NonZeroU32::get)
}

#[cfg(test)]
#[path = "pack_tests.rs"]
mod tests;
