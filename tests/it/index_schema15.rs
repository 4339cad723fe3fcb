//! SQLite's schema 15 and 16 (issue 39's disk figure): a body names each contract among its
//! update's search terms by the term's id and (schema 16) its key, the start of the contract id,
//! by which the index finds the term in the terms' own order. An index of schema 14 (its
//! bodies holding their contract ids) is refused by readers and migrated in place by the next
//! sync without a body rewritten: the bodies it kept read back as they did, the next sync's
//! name their contracts, and every body opens as the scan served it. Run as the real binary
//! over real HTTP against the demo.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use cantonscope::model::index::pack::{
    CONTRACT_KEYS, ContractKey, KEY_BYTES, body_dictionary_id, contract_terms, named_contracts,
};
use cantonscope::store::Location;

use crate::common::migrated::{answers, sqlite_migrates, sqlite_synced};
use crate::index::{contract_terms_of, kept_text, sync};
use crate::index_schema14::{as_served, opened, served};

/// Every kept body of the SQLite index at `index`, by seq.
pub(crate) fn bodies(index: &Path) -> BTreeMap<i64, Vec<u8>> {
    let conn = rusqlite::Connection::open(index).expect("opens");
    conn.prepare("SELECT seq, body FROM updates")
        .expect("bodies")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("bodies")
        .collect::<Result<_, _>>()
        .expect("bodies")
}

/// Each update's contract terms (by seq): the ids a body that names its contracts holds.
pub(crate) fn contract_keys(index: &Path) -> BTreeMap<i64, BTreeSet<i64>> {
    let conn = rusqlite::Connection::open(index).expect("opens");
    let mut by_seq: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
    let mut rows: Vec<(i64, i64)> = conn
        .prepare("SELECT k.seq, k.term FROM keys k JOIN terms t ON t.id = k.term WHERE t.kind = 4")
        .expect("keys")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("keys")
        .collect::<Result<_, _>>()
        .expect("keys");
    // A contract of at least 100 updates keeps its keys in blocks (schema 21).
    let blocked = "term IN (SELECT id FROM terms WHERE kind = 4)";
    rows.extend(
        crate::common::migrated::block_keys(&conn, blocked)
            .into_iter()
            .map(|[term, _, _, seq]| (seq, term)),
    );
    for (seq, term) in rows {
        by_seq.entry(seq).or_default().insert(term);
    }
    by_seq
}

/// Whether the SQLite index at `index` has an index of the terms by id (schema 15's).
pub(crate) fn terms_by_id(index: &Path) -> bool {
    rusqlite::Connection::open(index)
        .expect("opens")
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'terms_id'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .expect("the schema")
        == 1
}

/// Every body by update id, the searched words, and their answers.
pub(crate) type Answered = (
    BTreeMap<String, String>,
    Vec<String>,
    Vec<(String, Vec<String>)>,
);

/// What the SQLite index at `index` (synced from `url` in `dir`) answers: every body opened as
/// the scan served it, and three searches (a kind, a template, a contract) with their answers.
pub(crate) fn opened_and_searched(url: &str, dir: &Path, index: &Path) -> Answered {
    let bodies = opened(&Location::Sqlite(index.to_owned()));
    as_served(&bodies, &served(dir, url));
    let words = vec![
        "is:transfer".to_owned(),
        "template:Splice.Amulet:Amulet".to_owned(),
        format!(
            "contract:{}",
            contract_terms_of(&rusqlite::Connection::open(index).expect("opens"))
                .values()
                .next()
                .expect("a contract")
        ),
    ];
    let shown = index.to_str().expect("utf-8");
    let answered = answers(dir, shown, &words);
    (bodies, words, answered)
}

/// The average bytes of `bodies`.
pub(crate) fn average(bodies: &BTreeMap<i64, Vec<u8>>) -> f64 {
    bodies.values().map(Vec::len).sum::<usize>() as f64 / bodies.len() as f64
}

/// The SQLite index as schema 14 kept it: each body that names its contracts packed again
/// with them in its text (with the dictionary it names), no index of the terms by id.
fn sqlite_to_schema_14(index: &Path) {
    let conn = rusqlite::Connection::open(index).expect("opens");
    let dictionaries: HashMap<u32, Vec<u8>> = conn
        .prepare("SELECT id, dictionary FROM dictionaries")
        .expect("dictionaries")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("dictionaries")
        .collect::<Result<_, _>>()
        .expect("dictionaries");
    let terms = contract_terms_of(&conn);
    for (seq, packed) in bodies(index) {
        if packed.first() != Some(&CONTRACT_KEYS) {
            continue;
        }
        let dictionary = body_dictionary_id(&packed).map(|id| &dictionaries[&id]);
        let unpack = |frame: &[u8]| match dictionary {
            None => zstd::stream::decode_all(frame).expect("plain"),
            Some(d) => zstd::bulk::Decompressor::with_dictionary(d)
                .expect("zstd")
                .decompress(frame, 1 << 24)
                .expect("unpacked"),
        };
        let text = kept_text(&packed, unpack, &terms);
        let repacked = match dictionary {
            None => zstd::bulk::compress(&text, 1).expect("packed"),
            Some(d) => zstd::bulk::Compressor::with_dictionary(1, d)
                .expect("zstd")
                .compress(&text)
                .expect("packed"),
        };
        conn.execute(
            "UPDATE updates SET body = ?1 WHERE seq = ?2",
            rusqlite::params![repacked, seq],
        )
        .expect("repacked");
    }
    crate::common::migrated::times_from_1970(&conn);
    conn.execute_batch(
        "DROP INDEX IF EXISTS terms_id; UPDATE meta SET value = '14' WHERE key = 'schema_version';",
    )
    .expect("schema 14");
}

#[test]
fn an_index_of_schema_14_keeps_its_bodies_and_the_next_name_their_contracts_by_their_terms() {
    let (url, dir, index, shown) = sqlite_synced();
    let location = Location::Sqlite(index.clone());
    // A new index: each update that has contract terms names them all, by their ids and
    // keys (the first KEY_BYTES of the contract id's bytes), in its body; no index of the
    // terms by id; every body opens as the scan served it.
    let fresh = bodies(&index);
    let keys = contract_keys(&index);
    assert!(!keys.is_empty());
    let values = contract_terms_of(&rusqlite::Connection::open(&index).expect("opens"));
    for (seq, packed) in &fresh {
        let (named, _) = named_contracts(packed).expect("a kept body");
        let ids: BTreeSet<i64> = named.iter().map(|c| c.term).collect();
        assert_eq!(ids, keys.get(seq).cloned().unwrap_or_default(), "{seq}");
        for c in &named {
            let id = hex::decode(&values[&c.term]).expect("a contract id of hex");
            assert_eq!(
                c.key,
                Some(ContractKey::Bytes(id[..KEY_BYTES].to_vec())),
                "{seq}"
            );
        }
    }
    assert!(!terms_by_id(&index));
    let (bodies_before, words, before) = opened_and_searched(url, dir.path(), &index);
    // The same index as schema 14 kept it: its bodies hold their contract ids, and are the
    // larger for it (on the demo's whole history about twice; a third in this hour, its first
    // 200 bodies packed without a dictionary).
    sqlite_to_schema_14(&index);
    let older = bodies(&index);
    assert!(
        older
            .values()
            .all(|b| contract_terms(b).expect("kept").0.is_empty())
    );
    assert!(
        average(&fresh) * 1.3 < average(&older),
        "{} bytes a body naming the contracts, {} holding them",
        average(&fresh),
        average(&older)
    );
    sqlite_migrates(
        dir.path(),
        url,
        &shown,
        14,
        (&words[0], "1", "name their contracts by their search terms"),
    );
    // No body rewritten; each opens as before, the searches answer the same.
    let migrated = bodies(&index);
    for (seq, kept) in &older {
        assert_eq!(migrated.get(seq), Some(kept), "{seq} kept as it was");
    }
    assert_eq!(opened(&location), bodies_before);
    assert_eq!(answers(dir.path(), &shown, &words), before);
    // A later sync (past the hour) names the contracts of the updates it writes; every body
    // opens as served.
    let (code, _, err) = sync(dir.path(), url, &shown, &["--verify", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(!terms_by_id(&index));
    let later = bodies(&index);
    let keys = contract_keys(&index);
    let new: Vec<&i64> = later.keys().filter(|s| !older.contains_key(*s)).collect();
    assert!(!new.is_empty(), "the sync wrote the updates past the hour");
    for seq in new {
        assert_eq!(
            later[seq].first() == Some(&CONTRACT_KEYS),
            keys.contains_key(seq)
        );
        let (named, _) = contract_terms(&later[seq]).expect("a kept body");
        let named: BTreeSet<i64> = named.into_iter().collect();
        assert_eq!(named, keys.get(seq).cloned().unwrap_or_default(), "{seq}");
    }
    as_served(
        &opened(&location),
        &super::index_schema14::served(dir.path(), url),
    );
}
