//! What both engines' reads share: the [`super::IndexReader`] methods that only hand over to
//! each engine's own functions ([`engine_reads`]), and packed bodies made text again (the
//! dictionaries they were packed with, [`BodyDictionaries`]).

use std::collections::HashMap;

use super::{KeptUpdate, StoreError};

/// The reads every engine answers with its own functions of the same names (`read_status`,
/// `search_rows`, `count_rows`, `read_body`, `read_kept_digests`, `read_digests`, `read_reach`,
/// `read_page_after`, `read_range_count`, `read_range_rows`): the [`IndexReader`] methods that
/// only hand over, written once for both engines' `impl IndexReader`.
macro_rules! engine_reads {
    () => {
        fn status(&mut self, now: i64) -> Result<$crate::store::IndexStatus, StoreError> {
            self.read_status(now)
        }

        fn search(
            &mut self,
            query: &$crate::model::index::query::Query,
            from: Option<i64>,
            until: Option<i64>,
            limit: usize,
        ) -> Result<Vec<$crate::model::index::SearchRow>, StoreError> {
            self.search_rows(query, from, until, limit)
        }

        fn count(
            &mut self,
            query: &$crate::model::index::query::Query,
            from: Option<i64>,
            until: Option<i64>,
        ) -> Result<u64, StoreError> {
            self.count_rows(query, from, until)
        }

        fn body(&mut self, update_id: &str) -> Result<Option<String>, StoreError> {
            self.read_body(update_id)
        }

        fn kept_digests(
            &mut self,
            after: Option<$crate::store::At>,
            through: $crate::store::At,
        ) -> Result<Vec<$crate::store::KeptDigest>, StoreError> {
            self.read_kept_digests(after, through)
        }

        fn digests(&mut self) -> Result<Vec<(String, String)>, StoreError> {
            self.read_digests()
        }

        fn reach(
            &mut self,
            now: i64,
        ) -> Result<$crate::model::index::read::IndexReach, StoreError> {
            self.read_reach(now)
        }

        fn page_after(
            &mut self,
            after: Option<$crate::store::At>,
            limit: usize,
        ) -> Result<Vec<$crate::store::KeptUpdate>, StoreError> {
            self.read_page_after(after, limit)
        }

        fn range_count(&mut self, since: i64, before: Option<i64>) -> Result<u64, StoreError> {
            self.read_range_count(since, before)
        }

        fn range_rows(
            &mut self,
            since: i64,
            from: &$crate::model::index::read::RangeFrom,
            limit: usize,
        ) -> Result<Vec<$crate::model::index::SearchRow>, StoreError> {
            self.read_range_rows(since, from, limit)
        }
    };
}
pub(super) use engine_reads;

/// The zstd id of a body dictionary an index at `path` is asked to keep (an error when the bytes
/// are not a zstd dictionary).
pub(super) fn dictionary_id_of(path: String, dictionary: &[u8]) -> Result<i64, StoreError> {
    crate::model::index::pack::dictionary_id(dictionary)
        .map(i64::from)
        .ok_or_else(|| StoreError::Engine {
            path,
            detail: "a body dictionary that is not a zstd dictionary".to_owned(),
        })
}

/// The dictionaries an index's bodies were packed with (`crate::model::index::pack`), by zstd
/// dictionary id, loaded the first time a body names one not loaded yet.
#[derive(Default)]
pub(super) struct BodyDictionaries(HashMap<u32, zstd::dict::DecoderDictionary<'static>>);

impl BodyDictionaries {
    /// Whether `packed` names a dictionary not loaded (the caller loads them: [`Self::load`]).
    pub(super) fn wants(&self, packed: &[u8]) -> bool {
        crate::model::index::pack::body_dictionary_id(packed)
            .is_some_and(|id| !self.0.contains_key(&id))
    }

    /// Keeps the index's dictionaries (id, bytes) for [`Self::unpack`]; one zstd cannot load
    /// is left out (a body naming it is then reported as corrupt, never a panic).
    pub(super) fn load(&mut self, dictionaries: Vec<(i64, Vec<u8>)>) {
        for (id, bytes) in dictionaries {
            if let Ok(id) = u32::try_from(id)
                && !self.0.contains_key(&id)
                && let Ok(dictionary) = zstd::dict::DecoderDictionary::try_copy(&bytes)
            {
                self.0.insert(id, dictionary);
            }
        }
    }

    /// An update's body as kept made text again; `shown` names the index in the error.
    pub(super) fn unpack(
        &self,
        shown: &str,
        update_id: &str,
        packed: &[u8],
    ) -> Result<String, StoreError> {
        let corrupt = |detail: String| StoreError::Corrupt {
            path: shown.to_owned(),
            detail,
        };
        let mut bytes = Vec::new();
        let read = match crate::model::index::pack::body_dictionary_id(packed) {
            None => zstd::stream::read::Decoder::new(packed)
                .and_then(|mut d| std::io::Read::read_to_end(&mut d, &mut bytes)),
            Some(id) => {
                let dictionary = self.0.get(&id).ok_or_else(|| {
                    corrupt(format!(
                        "the body of {update_id} was packed with dictionary {id}, which the index does not have (or is damaged)"
                    ))
                })?;
                zstd::stream::read::Decoder::with_prepared_dictionary(
                    std::io::BufReader::new(packed),
                    dictionary,
                )
                .and_then(|mut d| std::io::Read::read_to_end(&mut d, &mut bytes))
            }
        };
        read.map_err(|e| corrupt(format!("the body of {update_id} does not decompress: {e}")))?;
        String::from_utf8(bytes)
            .map_err(|e| corrupt(format!("the body of {update_id} is not UTF-8: {e}")))
    }
}

/// The updates of [`super::IndexReader::page_after`] as read (update id, migration, µs, packed body),
/// their bodies unpacked with `unpack`.
pub(super) fn kept_updates(
    rows: Vec<(String, i64, i64, Option<Vec<u8>>)>,
    mut unpack: impl FnMut(&str, &[u8]) -> Result<String, StoreError>,
) -> Result<Vec<KeptUpdate>, StoreError> {
    rows.into_iter()
        .map(|(update_id, migration_id, record_time, body)| {
            let body = body.map(|packed| unpack(&update_id, &packed)).transpose()?;
            Ok(KeptUpdate {
                update_id,
                migration_id,
                record_time,
                body,
            })
        })
        .collect()
}
