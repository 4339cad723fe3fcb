//! Reading kept bodies: the contracts a body names put back, or left unread by the counts, in
//! one read transaction.

use super::tests::{page, row};
use super::*;
use crate::model::index::KeyKind;

/// An index holding one update, `u1` (its party `alice`), whose body `text` names its
/// `contracts` (each also one of its search terms).
fn one_body_naming(dir: &std::path::Path, text: &str, contracts: &[&str]) -> SqliteIndex {
    let mut index = SqliteIndex::open(&dir.join("i.sqlite"), true).expect("open");
    let chunk = index.start_chunk(None, None, 1, 0).expect("chunk");
    let mut named = row("u1", 1, "alice");
    named.keys = std::iter::once((KeyKind::Party, "alice".to_owned()))
        .chain(
            contracts
                .iter()
                .map(|id| (KeyKind::Contract, (*id).to_owned())),
        )
        .collect();
    let mut packer = zstd::bulk::Compressor::new(1).expect("packer");
    named.body = Some(
        crate::model::index::pack::pack_body_naming_contracts(text, "u1", contracts, &mut packer)
            .expect("pack"),
    );
    index
        .write_page(chunk.id, &page(vec![named]))
        .expect("page");
    index
}

/// An index holding `u1`, whose body names its contract `00cafe` by its search term (schema
/// 15), and that contract's term id.
fn one_body_naming_its_contract(dir: &std::path::Path) -> (SqliteIndex, i64) {
    let text = r#"{"update_id":"u1","events_by_id":{"u1:0":{"contract_id":"00cafe"}}}"#;
    let index = one_body_naming(dir, text, &["00cafe"]);
    let term = index
        .conn
        .query_row(
            "SELECT id FROM terms WHERE kind = ?1",
            [KeyKind::Contract.code()],
            |r| r.get(0),
        )
        .expect("the contract's term");
    (index, term)
}

#[test]
fn bodies_read_to_count_leave_their_contracts_unread_and_every_other_read_puts_them_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut index, term) = one_body_naming_its_contract(dir.path());
    let served = r#"{"update_id":"u1","events_by_id":{"u1:0":{"contract_id":"00cafe"}}}"#;
    let counted = format!(
        r##"{{"update_id":"u1","events_by_id":{{"u1:0":{{"contract_id":"#term{term}"}}}}}}"##
    );

    // What a user reads: the body as served.
    assert_eq!(index.body("u1").expect("body").as_deref(), Some(served));
    let page = index.page_after(None, 10).expect("page");
    assert_eq!(page[0].body.as_deref(), Some(served));

    // What `index stats` and the validators' table count from: the contract left unread.
    let bodies = index.bodies_after(0, 10).expect("bodies");
    assert_eq!(bodies[0].2.as_deref(), Some(counted.as_str()));
    let day = 1_800_000_001_000_000 / crate::model::index::stats::DAY_MICROS;
    let stats_page = index.stats_page(day, None, 10).expect("stats page");
    assert_eq!(stats_page[0].1.body.as_deref(), Some(counted.as_str()));

    // Each bulk read ended its read transaction, and a failing one does too.
    assert!(index.conn.is_autocommit());
    let failed: Result<(), StoreError> = index.in_one_read(|me| {
        assert!(!me.conn.is_autocommit(), "inside one read transaction");
        Err(StoreError::Corrupt {
            path: "i.sqlite".to_owned(),
            detail: "a read that fails".to_owned(),
        })
    });
    assert!(failed.is_err());
    assert!(index.conn.is_autocommit());
    // A write after them is not refused by a transaction left open.
    index.meta_set("k", "v").expect("a write after the reads");
}

#[test]
fn a_body_naming_many_contracts_two_sharing_a_key_and_one_kept_as_text_reads_back_as_served() {
    let dir = tempfile::tempdir().expect("tempdir");
    // 40 contracts: two share their key (the first 6 bytes), one id is kept as text.
    let mut ids: Vec<String> = (0..37).map(|i| format!("00{i:02x}c0ffee{i:04x}")).collect();
    ids.push("00aabbccddee01".to_owned());
    ids.push("00aabbccddee02".to_owned());
    ids.push("not-hex-contract".to_owned());
    let events: Vec<String> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| format!(r#""u1:{i}":{{"contract_id":"{id}"}}"#))
        .collect();
    let text = format!(
        r#"{{"update_id":"u1","events_by_id":{{{}}}}}"#,
        events.join(",")
    );
    let names: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut index = one_body_naming(dir.path(), &text, &names);

    assert_eq!(
        index.body("u1").expect("body").as_deref(),
        Some(text.as_str())
    );
    assert!(index.conn.is_autocommit(), "the open ended its read");
    let page = index.page_after(None, 10).expect("page");
    assert_eq!(page[0].body.as_deref(), Some(text.as_str()));
}
