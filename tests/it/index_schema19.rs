//! SQLite's schema 19 (issue 39's disk figure): a party set is kept as its parties' numbers
//! (LEB128), each party's name once in `party_names`, not as the set's JSON. Every list and
//! search row reads back its parties by name, in the set's order. An index of schema 18 (sets
//! as JSON) is refused by readers and migrated in place by the next sync: the same lists,
//! searches and bodies, and a sync of the hour again adds no set and no name. Run as the real
//! binary over real HTTP against the demo.

use std::path::Path;

use cantonscope::model::index::SearchRow;
use cantonscope::model::index::read::RangeFrom;
use cantonscope::store::{self, Location};

use crate::common::migrated::{
    answers, party_sets_as_json, sqlite_migrates, sqlite_synced, synced_again,
};
use crate::index_schema14::opened;

/// The party sets (how many, their kept bytes, how many are kept as bytes) and the parties'
/// names (how many, how many distinct) of the SQLite index at `index`.
fn sets(index: &Path) -> ((i64, i64, i64), Option<(i64, i64)>) {
    let conn = rusqlite::Connection::open(index).expect("opens");
    let sets = conn
        .query_row(
            "SELECT count(*), sum(length(CAST(parties AS BLOB))), sum(typeof(parties) = 'blob')
             FROM party_sets",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .expect("sets");
    let names = conn
        .query_row(
            "SELECT count(*), count(DISTINCT party) FROM party_names",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .ok();
    (sets, names)
}

/// History's whole list and every update's parties as the search rows of `is:transfer` show
/// them.
fn read(location: &Location) -> Vec<SearchRow> {
    let mut store = store::open_reader(location).expect("index opens");
    store
        .range_rows(i64::MIN, &RangeFrom::Offset(0), 1_000_000)
        .expect("History's list")
}

#[test]
fn an_index_of_schema_18_gets_its_party_sets_kept_as_numbers_and_reads_them_back_the_same() {
    let (url, dir, index, shown) = sqlite_synced();
    let location = Location::Sqlite(index.clone());
    let ((n, kept_bytes, blobs), names) = sets(&index);
    assert!(n > 10, "{n} sets");
    assert_eq!(blobs, n, "every set kept as its parties' numbers");
    let (names, distinct) = names.expect("the names' table");
    assert_eq!(names, distinct, "each party named once");
    assert!(names > 5, "{names} parties");

    let before = read(&location);
    let updates: Vec<&SearchRow> = before.iter().filter(|r| !r.is_verdict_only()).collect();
    assert!(updates.len() > 100, "{} rows", updates.len());
    let with_parties: Vec<&&SearchRow> = updates.iter().filter(|r| !r.parties.is_empty()).collect();
    assert!(
        with_parties.len() * 2 > updates.len(),
        "{}",
        with_parties.len()
    );
    // Each row's parties in the set's order (sorted, distinct), by name.
    assert!(
        with_parties
            .iter()
            .all(|r| r.parties.windows(2).all(|w| w[0] < w[1]) && r.parties[0].contains("::")),
        "{:?}",
        with_parties[0].parties
    );
    let party = with_parties
        .iter()
        .find(|r| r.parties.len() > 2)
        .map(|r| r.parties[1].clone())
        .expect("a set of three parties");
    let words = vec![
        format!("party:{party}"),
        "is:transfer".to_owned(),
        format!("party:{party} is:transfer"),
    ];
    let answered = answers(dir.path(), &shown, &words);
    assert!(
        answered[0].1.iter().any(|line| line.contains(&party)),
        "the search's rows name the party: {answered:?}"
    );
    let bodies = opened(&location);

    // Schema 18: the sets as JSON, several times the bytes.
    let conn = rusqlite::Connection::open(&index).expect("opens");
    party_sets_as_json(&conn);
    conn.execute_batch("UPDATE meta SET value = '18' WHERE key = 'schema_version';")
        .expect("schema 18");
    drop(conn);
    let ((_, json_bytes, json_blobs), no_names) = sets(&index);
    assert_eq!((json_blobs, no_names), (0, None));
    assert!(
        json_bytes > 10 * kept_bytes,
        "{json_bytes} against {kept_bytes}"
    );

    sqlite_migrates(
        dir.path(),
        url,
        &shown,
        18,
        (
            &words[1],
            "1",
            &format!("the {n} party sets kept as their parties' numbers"),
        ),
    );
    let ((n_after, bytes_after, blobs_after), names_after) = sets(&index);
    assert_eq!((n_after, bytes_after, blobs_after), (n, kept_bytes, n));
    assert_eq!(names_after, Some((names, names)));
    assert_eq!(read(&location), before);
    assert_eq!(answers(dir.path(), &shown, &words), answered);
    assert_eq!(opened(&location), bodies);
    // The hour again: no set and no name added.
    synced_again(dir.path(), url, &shown);
    assert_eq!(sets(&index), ((n, kept_bytes, n), Some((names, names))));
    assert_eq!(read(&location), before);
}
