//! SQLite's schema 18 (issue 39's disk figure): the record times of the updates, their keys,
//! their terms' newest keys and the verdict-only events are kept counted from
//! 2027-01-01T00:00:00Z, where SQLite keeps them in 6 bytes, not 8. Every time read back is the
//! time served. An index of schema 17 (times from 1970) is refused by readers and migrated in
//! place by the next sync: the same times, lists, counts and searches (bounded by time among
//! them), and a sync of the hour again adds nothing. Run as the real binary over real HTTP
//! against the demo.

use std::path::Path;

use cantonscope::model::format::format_time_micros;
use cantonscope::model::index::SearchRow;
use cantonscope::model::index::read::RangeFrom;
use cantonscope::store::{self, Location};

use crate::common::migrated::{
    answers, count, sqlite_migrates, sqlite_synced, synced_again, times_from_1970,
};
use crate::index::status;
use crate::index_schema14::opened;

/// 2027-01-01T00:00:00Z in µs since 1970.
const EPOCH: i64 = 1_798_761_600_000_000;

/// Every record time the index keeps (updates, keys, terms' newest keys, verdict-only events),
/// as kept.
fn kept_times(index: &Path) -> Vec<i64> {
    let conn = rusqlite::Connection::open(index).expect("opens");
    conn.prepare(
        "SELECT record_time FROM updates UNION ALL SELECT record_time FROM keys
         UNION ALL SELECT last_time FROM terms WHERE last_time IS NOT NULL
         UNION ALL SELECT record_time FROM verdict_events",
    )
    .expect("times")
    .query_map([], |r| r.get(0))
    .expect("times")
    .collect::<Result<_, _>>()
    .expect("times")
}

/// The SQLite index at `index` as schema 17 kept it: its times counted from 1970.
fn sqlite_to_schema_17(index: &Path) {
    let conn = rusqlite::Connection::open(index).expect("opens");
    times_from_1970(&conn);
    conn.execute_batch("UPDATE meta SET value = '17' WHERE key = 'schema_version';")
        .expect("schema 17");
}

/// What a reader of the index answers that holds a record time: History's whole list, its
/// counts from a time, the updates in ledger order with their times, the index's reach.
type Read = (
    Vec<SearchRow>,
    (u64, u64, u64),
    Vec<(String, i64)>,
    (Option<i64>, Option<i64>),
);

fn read(location: &Location, at: i64) -> Read {
    let mut store = store::open_reader(location).expect("index opens");
    let list = store
        .range_rows(i64::MIN, &RangeFrom::Offset(0), 1_000_000)
        .expect("History's list");
    let counts = (
        store.range_count(at, None).expect("a count"),
        store.update_count(at, None).expect("a count"),
        store.update_count(i64::MIN, Some(at)).expect("a count"),
    );
    let updates = store
        .page_after(None, 1_000_000)
        .expect("updates")
        .into_iter()
        .map(|u| (u.update_id, u.record_time))
        .collect();
    let reach = store.reach(0).expect("reach");
    (list, counts, updates, (reach.first, reach.last))
}

#[test]
fn an_index_of_schema_17_gets_its_times_counted_from_2027_and_reads_them_back_the_same() {
    let (url, dir, index, shown) = sqlite_synced();
    let location = Location::Sqlite(index.clone());
    // Kept from 2027-01-01: each within 2⁴⁷ µs of it (SQLite's 6-byte integers).
    let kept = kept_times(&index);
    assert!(kept.len() > 1000, "{} times", kept.len());
    assert!(kept.iter().all(|t| t.abs() < 1 << 47), "{kept:?}");

    // A time in the middle of the hour: the bounded reads and searches cut there.
    let mut updates = read(&location, 0).2;
    updates.sort_by_key(|(_, t)| *t);
    let middle = updates[updates.len() / 2].1;
    let (first, last) = (updates[0].1, updates[updates.len() - 1].1);
    assert!(first < middle && middle < last);
    // Served times, not kept ones: the hour synced is now's.
    assert!(
        first > EPOCH - 400 * 86_400_000_000,
        "{}",
        format_time_micros(first)
    );
    let before = read(&location, middle);
    assert!(
        before.1.0 > 0 && before.1.1 > 0 && before.1.2 > 0,
        "{:?}",
        before.1
    );
    assert_eq!(before.1.1 + before.1.2, updates.len() as u64);
    assert!(
        before.0.iter().any(SearchRow::is_verdict_only),
        "the list holds the verdict-only events"
    );
    let party = before
        .0
        .iter()
        .find_map(|r| r.parties.first().cloned())
        .expect("a party");
    let bounded = format!(
        "--from {} --until {}",
        format_time_micros(middle),
        format_time_micros(last)
    );
    let words = vec![
        "is:transfer".to_owned(),
        format!("is:transfer {bounded}"),
        format!("template:Splice.Amulet:Amulet {bounded}"),
        format!("party:{party} --until {}", format_time_micros(middle)),
    ];
    let answered = answers(dir.path(), &shown, &words);
    assert!(count(&answered, &words[1]) >= 1, "{answered:?}");
    assert!(count(&answered, &words[1]) < count(&answered, &words[0]));
    let bodies = opened(&location);

    sqlite_to_schema_17(&index);
    assert!(kept_times(&index).iter().all(|t| *t > EPOCH / 2));
    sqlite_migrates(
        dir.path(),
        url,
        &shown,
        17,
        (
            &words[0],
            "1",
            "the record times counted from 2027-01-01, not from 1970",
        ),
    );
    assert_eq!(kept_times(&index), kept);
    assert_eq!(read(&location, middle), before);
    assert_eq!(answers(dir.path(), &shown, &words), answered);
    assert_eq!(opened(&location), bodies);
    // The hour again: nothing added, the times the same.
    synced_again(dir.path(), url, &shown);
    assert_eq!(read(&location, middle), before);
    assert_eq!(status(dir.path(), &shown)["updates"], updates.len());
}
