//! How the index keeps an update's body: its JSON without whitespace between tokens, zstd
//! compressed, with a dictionary trained on the first bodies an index receives.
//!
//! An update's JSON is a few KB, too little for zstd to learn its repetitions (field names,
//! template ids, parties) within one body; a dictionary of them, trained once per index from a
//! page of its bodies and kept in the index, halves the bodies and packs them faster: on the
//! demo's updates, a dictionary trained on one page of 1,000 packed the 7,000 of later pages
//! at a ratio of 8.1 instead of 4.0 and 665 MB/s instead of 415 (the `zstd` tool, level 1). A
//! packed body names its dictionary (zstd's dictionary id in the frame, none without one), so
//! an index can hold bodies packed with any of its dictionaries, or none, and reads each back.

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
/// a quiet network) are packed without one, and a later page trains it.
pub const DICTIONARY_SAMPLES: usize = 200;

/// How the bodies of new rows are packed: zstd at [`ZSTD_LEVEL`], with the index's dictionary
/// when it has one.
pub struct Packing {
    dictionary: Option<(u32, EncoderDictionary<'static>)>,
    /// Whether the bodies are packed with references ([`super::refs`]): for an engine that
    /// resolves them (SQLite's schema 14).
    refs: bool,
}

impl Packing {
    /// Without a dictionary.
    pub fn plain() -> Packing {
        Packing {
            dictionary: None,
            refs: false,
        }
    }

    /// The same packing, the bodies with references ([`super::refs`]) to the update's id and
    /// its contract ids (the engine keeps the contracts' list beside each body).
    #[must_use]
    pub fn referencing(mut self, refs: bool) -> Packing {
        self.refs = refs;
        self
    }

    /// Whether the bodies are packed with references.
    pub fn references(&self) -> bool {
        self.refs
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
            refs: false,
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

/// An item's JSON as the index keeps it: without whitespace between tokens ([`compact_json`]),
/// packed by `packer` ([`Packing::packer`]).
pub fn pack_body(item_json: &str, packer: &mut Compressor<'_>) -> Result<Vec<u8>, String> {
    packer
        .compress(compact_json(item_json).as_bytes())
        .map_err(|e| format!("cannot compress a body: {e}"))
}

/// [`pack_body`] with references ([`super::refs::tokenize`]): the update id `update_id` and
/// the contract ids `contracts` (the update's, in the order the engine keeps their list)
/// replaced by tokens before zstd.
pub fn pack_body_with_refs(
    item_json: &str,
    update_id: &str,
    contracts: &[&str],
    packer: &mut Compressor<'_>,
) -> Result<Vec<u8>, String> {
    let mut text = Vec::new();
    super::refs::tokenize(
        compact_json(item_json).as_bytes(),
        update_id,
        contracts,
        &mut text,
    );
    packer
        .compress(&text)
        .map_err(|e| format!("cannot compress a body: {e}"))
}

/// The most bodies a dictionary is trained from: of more, bodies evenly spaced among them.
/// zstd's trainer takes time in proportion to its samples' bytes: measured on the demo's
/// history (the `zstd` tool, level 1, the 13,340 bodies after the first page of 1,000 packed
/// with a 64 KiB dictionary trained from that page), every second body of the page (500)
/// trains in half the time of all 1,000 (0.08 CPU-s against 0.16) and packs the later bodies
/// 1.4 % larger (every fourth: 2.6 %).
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
    let dictionary = zstd::dict::from_samples(&samples, size).ok()?;
    dictionary_id(&dictionary).map(|_| dictionary)
}

/// The id a zstd dictionary names itself by (none: not a dictionary zstd made).
pub fn dictionary_id(dictionary: &[u8]) -> Option<u32> {
    zstd::zstd_safe::get_dict_id_from_dict(dictionary).map(std::num::NonZeroU32::get)
}

/// The dictionary id a packed body names (none: packed without one).
pub fn body_dictionary_id(packed: &[u8]) -> Option<u32> {
    zstd::zstd_safe::get_dict_id_from_frame(packed).map(std::num::NonZeroU32::get)
}
