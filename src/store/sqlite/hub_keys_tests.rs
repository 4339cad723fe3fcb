//! Schemas 20 and 21 in a whole index: the keys of the hubs and of the terms of many updates in
//! their blocks, none left in `keys`; an index of schema 19 (every key in `keys`) or 20 (the
//! hubs' keys alone in blocks) migrated in place answering as before; prune giving a term that
//! falls under the count its rows back.

use super::tests::{at_second, hubs_at_4_and_two_chunks, page, row};
use super::*;
use crate::model::index::query::Query;
use crate::model::index::{IndexRow, KeyKind};

/// The parties of update `i`: every one has dso, every other ops::1, every third bob, two
/// have ops::2 (not a hub: `party:ops` is a hub and a term that is not one), each its own.
fn parties(i: i64) -> Vec<String> {
    let mut out = vec![format!("rare{i}::1")];
    for (every, party) in [(1, "dso::1"), (2, "ops::1"), (3, "bob::1")] {
        if i % every == 0 {
            out.push(party.to_owned());
        }
    }
    if i == 7 || i == 31 {
        out.push("ops::2".to_owned());
    }
    out
}

/// Every search and count the test asks, as their answers, each checked against the parties
/// written (updates 0 to 79, at their second; those from `kept` on).
fn answers(index: &mut SqliteIndex, kept: i64) -> Vec<String> {
    let mut out = Vec::new();
    for words in [
        vec!["party:dso"],
        vec!["party:ops"],
        vec!["party:dso", "party:ops"],
        vec!["party:bob", "party:ops"],
        vec!["party:rare5"],
        vec!["party:rare7", "party:ops"],
        vec!["party:dso", "party:rare9"],
        vec!["party:rare31", "party:ops", "party:dso"],
        vec!["contract:00up01", "party:ops"],
    ] {
        let q = Query::parse(&words).expect("q");
        let has = |i: i64| {
            words.iter().all(|w| match w.split_once(':') {
                Some(("party", hint)) => parties(i)
                    .iter()
                    .any(|p| p.split("::").next() == Some(hint)),
                Some(("contract", prefix)) => format!("00up{i:03}").starts_with(prefix),
                _ => false,
            })
        };
        for (from, until) in [(None, None), (Some(15), Some(55))] {
            let all: Vec<String> = (kept..80)
                .rev()
                .filter(|i| from.is_none_or(|f| *i >= f) && until.is_none_or(|u| *i <= u))
                .filter(|i| has(*i))
                .map(|i| format!("up{i:03}"))
                .collect();
            let (from, until) = (from.map(at_second), until.map(at_second));
            for limit in [3, 1000] {
                let rows = index.search(&q, from, until, limit).expect("search");
                let ids: Vec<String> = rows.into_iter().map(|r| r.update_id).collect();
                assert_eq!(
                    ids,
                    all[..all.len().min(limit)],
                    "{words:?} {from:?} {limit}"
                );
                out.push(format!("{words:?} {from:?} {limit}: {ids:?}"));
            }
            let n = index.count(&q, from, until).expect("count");
            assert_eq!(n, all.len() as u64, "{words:?} {from:?}");
            out.push(format!("{words:?} {from:?} count {n}"));
        }
    }
    out
}

fn count(index: &SqliteIndex, sql: &str) -> i64 {
    index.conn.query_row(sql, [], |r| r.get(0)).expect("count")
}

/// Writes updates 0 to 79 (their parties and a contract each) in four pages out of order, two
/// chunks.
fn written(index: &mut SqliteIndex, later: &Chunk, earlier: &Chunk) {
    for (first, chunk) in [
        (40, later.id),
        (0, earlier.id),
        (60, later.id),
        (20, earlier.id),
    ] {
        let rows: Vec<IndexRow> = (first..first + 20)
            .map(|i| {
                let mut r = row(&format!("up{i:03}"), i, "dso");
                r.keys = parties(i)
                    .into_iter()
                    .map(|p| (KeyKind::Party, p))
                    .chain([(KeyKind::Contract, format!("00up{i:03}"))])
                    .collect();
                r
            })
            .collect();
        index.write_page(chunk, &page(rows)).expect("page");
    }
}

#[test]
fn an_index_of_schema_19_moves_its_hubs_keys_into_blocks_and_answers_as_before() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut index, later, earlier) = hubs_at_4_and_two_chunks(dir.path());
    written(&mut index, &later, &earlier);
    let hub_keys = "SELECT count(*) FROM keys WHERE term IN (SELECT term FROM hubs)";
    assert_eq!(
        count(&index, "SELECT count(*) FROM hubs"),
        3,
        "dso, ops::1, bob"
    );
    assert_eq!(count(&index, hub_keys), 0, "a hub's keys are in its blocks");
    assert!(count(&index, "SELECT count(*) FROM hub_keys") >= 3);
    let before = answers(&mut index, 0);
    // As schema 19 kept them: every key a row of `keys`.
    let hubs: Vec<i64> = index
        .conn
        .prepare("SELECT term FROM hubs")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("hubs");
    let mut moved = 0;
    for hub in hubs {
        for (m, t, s) in super::hub_keys::all(&index.conn, hub, None).expect("keys") {
            index
                .conn
                .execute("INSERT INTO keys VALUES (?1, ?2, ?3, ?4)", [hub, m, t, s])
                .expect("key");
            moved += 1;
        }
    }
    // Schema 19 knew no count for blocks: the migration to 21 keeps the default (100) and
    // writes it.
    index
        .conn
        .execute_batch(
            "DROP TABLE hub_keys; UPDATE meta SET value = '19' WHERE key = 'schema_version';
             DELETE FROM meta WHERE key = 'blocks_from';",
        )
        .expect("schema 19");
    let path = index.path.clone();
    drop(index);
    assert!(matches!(
        SqliteIndex::open(&path, false).map(|_| ()),
        Err(StoreError::OlderSchema { found: 19, .. })
    ));
    let mut index = SqliteIndex::open(&path, true).expect("migrated");
    let said = index.notices().join("\n");
    assert!(
        said.contains("from schema 19 to schema 21")
            && said.contains(&format!("the {moved} keys of the frequent terms")),
        "{said}"
    );
    assert_eq!(count(&index, hub_keys), 0, "moved out of `keys`");
    assert_eq!(
        count(
            &index,
            "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'blocks_from'"
        ),
        super::hub_keys::FROM
    );
    assert_eq!(answers(&mut index, 0), before);
}

#[test]
fn the_keys_of_terms_of_many_updates_are_blocks_migrated_from_20_and_given_back_by_prune() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut index, later, earlier) = hubs_at_4_and_two_chunks(dir.path());
    // dso (80 updates) a hub; ops::1 (40) and bob (27) in blocks without being hubs; ops::2 (2),
    // each rare party and each contract (1) in `keys`.
    index
        .meta_set(crate::store::hubs::THRESHOLD_KEY, "50")
        .expect("threshold");
    index
        .meta_set(super::hub_keys::FROM_KEY, "8")
        .expect("blocks from");
    written(&mut index, &later, &earlier);
    let blocked = "SELECT count(DISTINCT term) FROM hub_keys";
    let hubs = "SELECT count(*) FROM hubs";
    assert_eq!((count(&index, hubs), count(&index, blocked)), (1, 3));
    assert_eq!(
        super::hub_keys::misplaced_terms(&index.conn),
        Vec::<i64>::new()
    );
    assert_eq!(super::hub_keys::stale_terms(&index.conn), 0);
    let before = answers(&mut index, 0);
    // As schema 20 kept them: the hubs' keys in blocks, the other terms' rows of `keys`.
    let others: Vec<i64> = index
        .conn
        .prepare("SELECT DISTINCT term FROM hub_keys WHERE term NOT IN (SELECT term FROM hubs)")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("terms");
    let mut moved = 0;
    for term in &others {
        moved += super::hub_keys::all(&index.conn, *term, None)
            .expect("keys")
            .len();
        super::hub_keys::give_back(&index.conn, *term).expect("rows");
    }
    assert_eq!((others.len(), moved), (2, 40 + 27));
    assert_eq!(count(&index, blocked), 1);
    index
        .conn
        .execute(
            "UPDATE meta SET value = '20' WHERE key = 'schema_version'",
            [],
        )
        .expect("schema 20");
    let path = index.path.clone();
    drop(index);
    let mut index = SqliteIndex::open(&path, true).expect("migrated");
    let said = index.notices().join("\n");
    assert!(
        said.contains("from schema 20 to schema 21")
            && said.contains("the 67 keys of the 2 other terms with at least 8 updates"),
        "{said}"
    );
    assert_eq!(count(&index, blocked), 3);
    assert_eq!(
        super::hub_keys::misplaced_terms(&index.conn),
        Vec::<i64>::new()
    );
    assert_eq!(answers(&mut index, 0), before);
    // Prune before update 60: bob keeps 7 updates (60, 63, … 78), under the count, and gets its
    // rows back; ops::1 keeps 10, in blocks.
    index.prune(at_second(60)).expect("prune");
    assert_eq!(count(&index, blocked), 2);
    assert_eq!(
        super::hub_keys::misplaced_terms(&index.conn),
        Vec::<i64>::new()
    );
    assert_eq!(super::hub_keys::stale_terms(&index.conn), 0);
    answers(&mut index, 60);
    // A page more: bob's keys go on in `keys` until it has 8 updates again.
    let rows: Vec<IndexRow> = (80..84)
        .map(|i| {
            let mut r = row(&format!("up{i:03}"), i, "dso");
            r.keys = vec![(KeyKind::Party, "bob::1".to_owned())];
            r
        })
        .collect();
    index.write_page(later.id, &page(rows)).expect("page");
    assert_eq!(count(&index, blocked), 3, "bob has 11 updates");
    assert_eq!(
        super::hub_keys::misplaced_terms(&index.conn),
        Vec::<i64>::new()
    );
    assert_eq!(super::hub_keys::stale_terms(&index.conn), 0);
    let q = Query::parse(&["party:bob"]).expect("q");
    let ids: Vec<String> = index
        .search(&q, None, None, 100)
        .expect("search")
        .into_iter()
        .map(|r| r.update_id)
        .collect();
    assert_eq!(
        ids,
        [
            "up083", "up082", "up081", "up080", "up078", "up075", "up072", "up069", "up066",
            "up063", "up060"
        ]
    );
    assert_eq!(index.count(&q, None, None).expect("count"), 11);
}
