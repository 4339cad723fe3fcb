//! SQLite's schema 16 (issue 39's disk figure): an index of schema 15, whose bodies name their
//! contracts by their terms' ids alone and are read through an index of the terms by id, is
//! refused by readers and migrated in place by the next sync: each such body's header is
//! rewritten with the contracts' keys (its zstd frame untouched), the index by id dropped, and
//! every body opens as the scan served it, the searches answering the same. Run as the real
//! binary over real HTTP against the demo.

use cantonscope::model::index::pack::{
    CONTRACT_KEYS, CONTRACT_TERMS, CONTRACTS_PENDING, contract_terms, named_contracts,
    with_contract_terms,
};
use cantonscope::store::Location;

use crate::common::migrated::{answers, sqlite_migrates, sqlite_synced};
use crate::index_schema14::opened;
use crate::index_schema15::{average, bodies, opened_and_searched, terms_by_id};

/// The SQLite index at `index` as schema 15 kept it: each body that names its contracts with
/// their terms' ids alone, and the terms' index by id.
fn sqlite_to_schema_15(index: &std::path::Path) {
    let conn = rusqlite::Connection::open(index).expect("opens");
    for (seq, kept) in bodies(index) {
        if kept.first() != Some(&CONTRACT_KEYS) {
            continue;
        }
        let (terms, frame) = contract_terms(&kept).expect("a kept body");
        let pending = [&[CONTRACTS_PENDING][..], frame].concat();
        conn.execute(
            "UPDATE updates SET body = ?1 WHERE seq = ?2",
            rusqlite::params![with_contract_terms(&pending, &terms), seq],
        )
        .expect("schema 15's body");
    }
    crate::common::migrated::times_from_1970(&conn);
    conn.execute_batch(
        "CREATE INDEX terms_id ON terms (id);
         UPDATE meta SET value = '15' WHERE key = 'schema_version';",
    )
    .expect("schema 15");
}

#[test]
fn an_index_of_schema_15_gets_its_contracts_keys_and_loses_the_terms_index_by_id() {
    let (url, dir, index, shown) = sqlite_synced();
    let location = Location::Sqlite(index.clone());
    let fresh = bodies(&index);
    let (bodies_before, words, before) = opened_and_searched(url, dir.path(), &index);

    sqlite_to_schema_15(&index);
    let older = bodies(&index);
    let named = older
        .values()
        .filter(|b| b.first() == Some(&CONTRACT_TERMS))
        .count();
    assert!(named > 100, "{named} bodies of schema 15");
    assert!(terms_by_id(&index));
    // Schema 15's bodies are the smaller by their keys: the index by id paid for it.
    assert!(average(&older) < average(&fresh));

    sqlite_migrates(
        dir.path(),
        url,
        &shown,
        15,
        (
            &words[0],
            "1",
            &format!("the {named} bodies that name their contracts by their terms' numbers"),
        ),
    );
    // Each body as the new index kept it: the same contracts, keys and frame; no index by id.
    assert!(!terms_by_id(&index));
    let migrated = bodies(&index);
    for (seq, kept) in &fresh {
        assert_eq!(migrated.get(seq), Some(kept), "{seq}");
        if kept.first() == Some(&CONTRACT_KEYS) {
            let (keys, _) = named_contracts(kept).expect("a kept body");
            assert!(keys.iter().all(|c| c.key.is_some()));
        }
    }
    assert_eq!(opened(&location), bodies_before);
    assert_eq!(answers(dir.path(), &shown, &words), before);
}

/// How bodies named their contracts before the one pass (schema 15 and 16 as first built): the
/// copies of each contract's `"id"` replaced in turn, in slot order, the text copied each time.
fn named_by_slot(text: &[u8], contracts: &[&str]) -> Option<Vec<u8>> {
    use cantonscope::model::index::pack::{CONTRACT, MOST_CONTRACTS, SLOT_BASE};
    if contracts.is_empty() || memchr::memchr(CONTRACT, text).is_some() {
        return None;
    }
    let mut current: Option<Vec<u8>> = None;
    for (slot, id) in contracts.iter().take(MOST_CONTRACTS).enumerate() {
        if id.is_empty() {
            continue;
        }
        let quoted = format!("\"{id}\"");
        let from = current.as_deref().unwrap_or(text);
        let found: Vec<usize> = memchr::memmem::find_iter(from, quoted.as_bytes()).collect();
        if found.is_empty() {
            continue;
        }
        let mut out = Vec::with_capacity(from.len());
        let mut run = 0;
        for at in found {
            out.extend_from_slice(&from[run..at]);
            out.extend_from_slice(&[CONTRACT, SLOT_BASE + slot as u8]);
            run = at + quoted.len();
        }
        out.extend_from_slice(&from[run..]);
        current = Some(out);
    }
    current
}

#[test]
fn the_demo_history_is_named_as_the_naming_by_slot_named_it() {
    use cantonscope::api::scan::UpdateItem;
    use cantonscope::model::index::pack::{name_contracts, name_own_id};
    use cantonscope::model::index::{contract_keys, keys_of};
    // The bodies an index keeps do not change with the one pass: every update the demo serves
    // (its own id named first, as packing does) comes out the same bytes.
    let url = &crate::index::four().handle.scan_url;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut named = 0;
    for update in crate::index::history_from(dir.path(), url, "2000-01-01T00:00:00Z") {
        let text = update.to_string();
        let item: UpdateItem = serde_json::from_str(&text).expect("an item");
        let id = item.update_id().expect("an id").to_owned();
        let text = name_own_id(&text, &id).expect("it has its id");
        let keys = keys_of(&item);
        let contracts = contract_keys(&keys);
        let one_pass = name_contracts(&text, &contracts);
        assert_eq!(one_pass, named_by_slot(&text, &contracts), "{id}");
        named += usize::from(one_pass.is_some());
    }
    assert!(named > 10_000, "{named} bodies name contracts");
}
