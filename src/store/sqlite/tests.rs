//! Unit tests of the SQLite index.

use super::*;
use crate::model::index::query::{Query, party_hinted};
use crate::model::index::read::{RangeFrom, RangeKey};
use crate::model::index::{IndexRow, KeyKind};
use crate::store::Gap;

pub(super) fn row(id: &str, second: i64, party: &str) -> IndexRow {
    IndexRow {
        update_id: id.to_owned(),
        migration_id: 1,
        record_time: 1_800_000_000_000_000 + second * 1_000_000,
        kind: "transaction".to_owned(),
        root_action: "Choice".to_owned(),
        parties: vec![party.to_owned()],
        keys: vec![
            (KeyKind::Party, party.to_owned()),
            (KeyKind::Contract, format!("00{id}")),
        ],
        digest: [second as u8; 32],
        body: Some(
            zstd::bulk::compress(format!("{{\"update_id\":\"{id}\"}}").as_bytes(), 1)
                .expect("zstd"),
        ),
    }
}

pub(super) fn page(rows: Vec<IndexRow>) -> PageWrite {
    let last = rows.last().expect("rows");
    let cursor = Position {
        migration_id: last.migration_id,
        record_time: format_time_micros(last.record_time),
    };
    PageWrite::new(rows, None, cursor, vec!["sv1".to_owned()])
}

/// The time of `second` (as [`row`] writes it).
pub(super) fn at_second(second: i64) -> i64 {
    1_800_000_000_000_000 + second * 1_000_000
}

/// A new index in `dir` whose terms become hubs at 4 updates (100,000 on a real index), and two
/// chunks: from second 40 on, and before it. Walking the later first gives the earlier updates
/// the highest seqs, so pruning them frees seqs that the next updates written get again.
pub(super) fn hubs_at_4_and_two_chunks(dir: &std::path::Path) -> (SqliteIndex, Chunk, Chunk) {
    let mut index = SqliteIndex::open(&dir.join("i.sqlite"), true).expect("open");
    index
        .meta_set(crate::store::hubs::THRESHOLD_KEY, "4")
        .expect("threshold");
    let later = index
        .start_chunk(
            Some(Position {
                migration_id: 1,
                record_time: format_time_micros(at_second(39)),
            }),
            None,
            1,
            0,
        )
        .expect("chunk");
    let earlier = index
        .start_chunk(None, Some(at_second(40)), 1, 0)
        .expect("chunk");
    (index, later, earlier)
}

/// The pages of 10 updates from 0 to 80, later ones first, then from 0 (those below 40 in the
/// chunk `earlier`, the rest in `later`): (first update, chunk).
fn out_of_order(earlier: &Chunk, later: &Chunk) -> Vec<(i64, i64)> {
    [40, 50, 60, 70, 0, 10, 20, 30]
        .map(|first| (first, if first < 40 { earlier.id } else { later.id }))
        .to_vec()
}

/// Writes the pages `page_of` makes from each (first update, chunk), `check` run after each.
fn write_pages<W: ?Sized, O: std::ops::DerefMut<Target = W>>(
    index: &mut SqliteIndex,
    pages: &[(i64, i64)],
    written: &mut O,
    page_of: impl Fn(i64, &mut O) -> PageWrite,
    check: impl Fn(&mut SqliteIndex, &W, &str),
) {
    for (first, chunk) in pages {
        let page = page_of(*first, written);
        index.write_page(*chunk, &page).expect("page");
        check(index, written, &format!("after the page from {first}"));
    }
}

#[test]
fn gaps_are_the_ranges_between_chunks_no_chunk_covers() {
    let at = |m: i64, s: i64| Position {
        migration_id: m,
        record_time: format_time_micros(1_800_000_000_000_000 + s * 1_000_000),
    };
    let chunk = |id: i64, start: Option<Position>, cursor: Option<Position>| Chunk {
        id,
        start,
        end_before: None,
        cursor,
        page_start: None,
        state: "done".to_owned(),
        verify: 2,
        scans: Vec::new(),
        updates: 1,
        events: None,
    };
    // A finished chunk that ends where the next starts leaves no gap.
    let mut ended = chunk(5, Some(at(3, 0)), Some(at(3, 4)));
    ended.end_before = Some(1_800_000_000_000_000 + 10 * 1_000_000);
    // The next chunk starts after one microsecond before the end (its first update may
    // be at the end time itself).
    let just_before = Position {
        migration_id: 3,
        record_time: format_time_micros(1_800_000_000_000_000 + 10 * 1_000_000 - 1),
    };
    let next = chunk(6, Some(just_before), Some(at(3, 12)));
    let mut unfinished = ended.clone();
    unfinished.state = "open".to_owned();
    assert_eq!(gaps(&[ended, next.clone()]), Vec::new());
    assert_eq!(gaps(&[unfinished, next]).len(), 1);
    let chunks = [
        chunk(1, None, Some(at(1, 10))),
        chunk(2, Some(at(1, 5)), Some(at(1, 12))),
        chunk(3, Some(at(1, 20)), Some(at(2, 3))),
        chunk(4, Some(at(2, 9)), None),
    ];
    assert_eq!(
        gaps(&chunks),
        vec![Gap {
            after: at(1, 12),
            before: at(1, 20)
        }]
    );
}

#[test]
fn history_rows_from_a_time_in_record_time_order_by_offset_with_their_count() {
    let dir = std::env::temp_dir().join(format!("cantonscope-sqlite-range-{}", std::process::id()));
    let path = dir.join("i.sqlite");
    let _ = std::fs::remove_dir_all(&dir);
    let mut index = SqliteIndex::open(&path, true).expect("open");
    let chunk = index.start_chunk(None, None, 1, 0).expect("chunk");
    // Written out of order (chunks are walked in parallel), two in one microsecond.
    let mut rows: Vec<IndexRow> = [5, 1, 3, 2, 4, 3]
        .iter()
        .enumerate()
        .map(|(i, s)| row(&format!("r{}s{s}", 9 - i), *s, "alice"))
        .collect();
    rows.sort_by_key(|r| r.record_time);
    index.write_page(chunk.id, &page(rows)).expect("page");
    let t = |s: i64| 1_800_000_000_000_000 + s * 1_000_000;
    assert_eq!(index.range_count(t(0), None).expect("count"), 6);
    assert_eq!(index.range_count(t(3), None).expect("count"), 4);
    assert_eq!(index.range_count(t(2), Some(t(4))).expect("count"), 3);
    let ids = |rows: Vec<SearchRow>| rows.into_iter().map(|r| r.update_id).collect::<Vec<_>>();
    let all = ids(index
        .range_rows(t(0), &RangeFrom::Offset(0), 10)
        .expect("rows"));
    assert_eq!(all.len(), 6);
    assert_eq!(all[0], "r8s1");
    assert_eq!(all[5], "r9s5");
    // The two in one microsecond in update-id order, not in the order they were written.
    assert_eq!(all[2..4], ["r4s3", "r7s3"]);
    // Pages by offset put together are the whole list, once each.
    let mut paged = Vec::new();
    for offset in (0..6).step_by(4) {
        paged.extend(ids(index
            .range_rows(t(0), &RangeFrom::Offset(offset), 4)
            .expect("rows")));
    }
    assert_eq!(paged, all);
    assert_eq!(
        ids(index
            .range_rows(t(3), &RangeFrom::Offset(1), 2)
            .expect("rows")),
        all[3..5].to_vec()
    );
    // Keyset reads: after and before a row (one of the tie too), the same rows.
    let rows = index
        .range_rows(t(0), &RangeFrom::Offset(0), 10)
        .expect("rows");
    let key = |i: usize| RangeKey {
        migration_id: rows[i].migration_id,
        record_time: crate::model::format::parse_time_micros(&rows[i].record_time).expect("time"),
        update_id: rows[i].update_id.clone(),
    };
    for i in 0..6 {
        assert_eq!(
            ids(index
                .range_rows(t(0), &RangeFrom::After(key(i)), 2)
                .expect("rows")),
            all[i + 1..(i + 3).min(6)].to_vec(),
            "after {i}"
        );
        assert_eq!(
            ids(index
                .range_rows(t(0), &RangeFrom::Before(key(i)), 2)
                .expect("rows")),
            all[i.saturating_sub(2)..i].to_vec(),
            "before {i}"
        );
    }
    // Never before `since`.
    assert_eq!(
        ids(index
            .range_rows(t(3), &RangeFrom::Before(key(3)), 5)
            .expect("rows")),
        all[2..3].to_vec()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pages_search_bodies_and_a_rewritten_update() {
    let dir = std::env::temp_dir().join(format!("cantonscope-sqlite-{}", std::process::id()));
    let path = dir.join("i.sqlite");
    let _ = std::fs::remove_dir_all(&dir);
    let mut index = SqliteIndex::open(&path, true).expect("open");
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).expect("file").permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "owner only");
    }
    let chunk = index.start_chunk(None, None, 2, 0).expect("chunk");
    let w = index
        .write_page(
            chunk.id,
            &page(vec![row("aa01", 1, "alice"), row("aa02", 2, "bob")]),
        )
        .expect("page");
    assert_eq!(w.inserted, 2);
    // The same page again: known, nothing twice.
    let w = index
        .write_page(chunk.id, &page(vec![row("aa02", 2, "bob")]))
        .expect("again");
    assert_eq!((w.inserted, w.known), (0, 1));
    let q = Query::parse(&["party:alice"]).expect("q");
    let found = index.search(&q, None, None, 10).expect("search");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].update_id, "aa01");
    let q = Query::parse(&["contract:00aa"]).expect("q");
    assert_eq!(index.count(&q, None, None).expect("count"), 2);
    let newest = index.search(&q, None, None, 10).expect("search");
    assert_eq!(newest[0].update_id, "aa02", "newest first");
    assert_eq!(
        index.body("aa01").expect("body").as_deref(),
        Some("{\"update_id\":\"aa01\"}")
    );
    // Another digest for a kept update: refused, nothing written.
    let mut changed = row("aa03", 3, "carol");
    let mut other = row("aa02", 2, "bob");
    other.digest = [9; 32];
    changed.update_id = "aa03".to_owned();
    let e = index
        .write_page(chunk.id, &page(vec![changed, other]))
        .expect_err("rewritten");
    assert!(e.to_string().contains("aa02"), "{e}");
    assert_eq!(
        index.digests().expect("digests").len(),
        2,
        "aa03 rolled back"
    );
    // A new update at a position already walked past.
    let e = index
        .write_page(chunk.id, &page(vec![row("bb01", 1, "x")]))
        .expect_err("new in the past");
    assert!(e.to_string().contains("walked past"), "{e}");
    drop(index);
    // Read-only; a file that is no database.
    let mut reader = SqliteIndex::open(&path, false).expect("reader");
    assert_eq!(reader.status(0).expect("status").updates, 2);
    let junk = dir.join("junk.sqlite");
    std::fs::write(&junk, vec![7u8; 4096]).expect("junk");
    let e = SqliteIndex::open(&junk, false).err().expect("corrupt");
    assert!(matches!(e, StoreError::Corrupt { .. }), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_pages_updates_resolve_their_open_divergences_at_once_and_only_theirs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut index = SqliteIndex::open(&dir.path().join("i.sqlite"), true).expect("open");
    let divergence = |id: &str| DivergenceRecord {
        update_id: id.to_owned(),
        migration_id: 1,
        record_time: format_time_micros(1_800_000_000_000_000),
        found_at: 0,
        resolved: false,
        detail: serde_json::json!({}),
    };
    // Nothing open: nothing to do.
    index
        .resolve_divergences(&["aa01".to_owned()])
        .expect("none open");
    for id in ["aa01", "aa02", "aa03"] {
        index.record_divergence(&divergence(id)).expect("recorded");
    }
    index
        .resolve_divergences(&["aa00".to_owned(), "aa01".to_owned(), "aa03".to_owned()])
        .expect("resolved");
    let resolved: Vec<(String, bool)> = index
        .status(0)
        .expect("status")
        .divergences
        .into_iter()
        .map(|d| (d.update_id, d.resolved))
        .collect();
    assert_eq!(
        resolved,
        vec![
            ("aa01".to_owned(), true),
            ("aa02".to_owned(), false),
            ("aa03".to_owned(), true)
        ]
    );
}

#[test]
fn a_long_page_read_again_keeps_what_the_index_has_and_adds_only_the_rest() {
    // More rows than one look-up statement of ids takes, so the look-up's batches and its
    // padded last batch both count.
    let dir = tempfile::tempdir().expect("temp dir");
    let mut index = SqliteIndex::open(&dir.path().join("i.sqlite"), true).expect("open");
    let chunk = index.start_chunk(None, None, 1, 0).expect("chunk");
    let rows = |from: i64, to: i64| -> Vec<IndexRow> {
        (from..to)
            .map(|i| row(&format!("u{i:04}"), i, "alice"))
            .collect()
    };
    let w = index
        .write_page(chunk.id, &page(rows(1, 251)))
        .expect("page");
    assert_eq!((w.inserted, w.known), (250, 0));
    // The page read again after a restart, with 30 updates the scan has since.
    let w = index
        .write_page(chunk.id, &page(rows(1, 281)))
        .expect("again");
    assert_eq!((w.inserted, w.known), (30, 250));
    assert_eq!(index.digests().expect("digests").len(), 280, "none twice");
    // One update of the third batch comes back with another digest: refused, nothing written.
    let mut again = rows(200, 301);
    again[50].digest = [0xee; 32];
    let e = index
        .write_page(chunk.id, &page(again))
        .expect_err("rewritten");
    assert!(e.to_string().contains("u0250"), "{e}");
    assert_eq!(index.digests().expect("digests").len(), 280, "rolled back");
}

#[test]
fn counts_of_frequent_terms_read_their_pairs_and_bitmaps_through_pages_prune_and_reused_seqs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut index, later, earlier) = hubs_at_4_and_two_chunks(dir.path());
    let at = at_second;
    let parties = ["dso", "sv1", "sv2", "alice", "bob", "carol"];
    let share = [95, 60, 40, 25, 12, 4];
    // From second 80 (written after the prune, on seqs used before) the rarer parties go
    // without the frequent ones, so a bit left by a pruned update would be counted.
    let has = |i: i64, k: usize| {
        if i >= 80 {
            (i + k as i64) % 3 == 0
        } else {
            (i * 37 + k as i64 * 101 + i * i * 13) % 100 < share[k]
        }
    };
    let mut written: Vec<(i64, Vec<&str>)> = Vec::new();
    // Every two parties over the whole index (a pair row when both are hubs, a bitmap when
    // one is), from second 25 to 95 (bitmaps, or probes), and every three in a row.
    let check = |index: &mut SqliteIndex, written: &[(i64, Vec<&str>)], when: &str| {
        // The updates with all of `terms` (`within` 25 to 95), newest first.
        let matching = |terms: &[&str], within: bool| {
            let mut ids: Vec<(i64, String)> = written
                .iter()
                .filter(|(s, p)| {
                    (!within || (25..=95).contains(s)) && terms.iter().all(|t| p.contains(t))
                })
                .map(|(s, _)| (*s, format!("up{s:03}")))
                .collect();
            ids.sort_unstable_by(|a, b| b.cmp(a));
            ids.into_iter().map(|(_, id)| id).collect::<Vec<_>>()
        };
        let expect = |terms: &[&str], within: bool| matching(terms, within).len() as u64;
        // A page of the newest 3, and every match: the search walks the same way.
        let pages = |index: &mut SqliteIndex, terms: &[&str], within: bool| {
            let q = Query::parse(
                &terms
                    .iter()
                    .map(|t| format!("party:{t}"))
                    .collect::<Vec<_>>(),
            )
            .expect("q");
            let (from, until) = if within {
                (Some(at(25)), Some(at(95)))
            } else {
                (None, None)
            };
            let all = matching(terms, within);
            for limit in [3, 1000] {
                let rows = index.search(&q, from, until, limit).expect("search");
                let ids: Vec<&str> = rows.iter().map(|r| r.update_id.as_str()).collect();
                let expected: Vec<&str> = all.iter().take(limit).map(String::as_str).collect();
                assert_eq!(
                    ids, expected,
                    "{terms:?} within {within}, {limit} rows, {when}"
                );
            }
        };
        let query = |terms: &[&str]| {
            Query::parse(
                &terms
                    .iter()
                    .map(|t| format!("party:{t}"))
                    .collect::<Vec<_>>(),
            )
            .expect("q")
        };
        for (i, x) in parties.iter().enumerate() {
            for y in &parties[i + 1..] {
                let q = query(&[x, y]);
                let got = index.count(&q, None, None).expect("count");
                assert_eq!(got, expect(&[x, y], false), "{x} and {y} {when}");
                let got = index.count(&q, Some(at(25)), Some(at(95))).expect("count");
                assert_eq!(got, expect(&[x, y], true), "{x} and {y}, 25 to 95, {when}");
                pages(index, &[x, y], false);
                pages(index, &[x, y], true);
            }
        }
        for three in parties.windows(3) {
            let got = index.count(&query(three), None, None).expect("count");
            assert_eq!(got, expect(three, false), "{three:?} {when}");
            pages(index, three, false);
        }
    };
    let page_of = |first: i64, written: &mut Vec<(i64, Vec<&str>)>| {
        let rows: Vec<IndexRow> = (first..first + 10)
            .map(|i| {
                let mut r = row(&format!("up{i:03}"), i, "dso");
                let mine: Vec<&str> = (0..parties.len())
                    .filter(|k| has(i, *k))
                    .map(|k| parties[k])
                    .collect();
                // Each party twice (as a stakeholder and a signatory would be): once counted.
                r.keys = mine
                    .iter()
                    .flat_map(|p| std::iter::repeat_n((KeyKind::Party, (*p).to_owned()), 2))
                    .collect();
                written.push((i, mine));
                r
            })
            .collect();
        page(rows)
    };
    let pages = out_of_order(&earlier, &later);
    write_pages(&mut index, &pages, &mut written, page_of, check);
    let count = |index: &SqliteIndex, table: &str| -> i64 {
        index
            .conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .expect("count")
    };
    assert!(count(&index, "hubs") >= 5, "the frequent parties are hubs");
    assert!(count(&index, "pairs") >= 8, "their pairs are kept");
    assert!(count(&index, "hub_bits") >= 5, "their bitmaps are kept");
    let top = |index: &SqliteIndex| -> i64 {
        index
            .conn
            .query_row("SELECT max(seq) FROM updates", [], |r| r.get(0))
            .expect("seq")
    };
    let before = top(&index);
    // Prune the earlier half (the highest seqs): the pairs and bits lose its updates.
    index.prune(at(40)).expect("prune");
    written.retain(|(second, _)| *second >= 40);
    check(&mut index, &written, "after prune");
    let pages = [(80, later.id), (90, later.id)];
    write_pages(&mut index, &pages, &mut written, page_of, check);
    assert!(
        top(&index) < before,
        "the pruned updates' seqs were used again"
    );
}

#[test]
fn bodies_read_back_whether_packed_with_a_dictionary_or_without_and_a_missing_one_is_named() {
    use crate::model::index::pack::{Packing, pack_body, train_dictionary};
    let dir = tempfile::tempdir().expect("dir");
    let mut index = SqliteIndex::open(&dir.path().join("i.sqlite"), true).expect("open");
    let chunk = index.start_chunk(None, None, 1, 0).expect("chunk");
    let text = |i: usize| {
        format!(
            "{{\"update_id\":\"aa{i:03}\",\"events\":[{{\"template_id\":\"Splice.Amulet:Amulet\",\"owner\":\"alice::1220{i:04x}\",\"amount\":\"{}.0\"}}]}}",
            i * 7
        )
    };
    let samples: Vec<String> = (0..300).map(text).collect();
    let dictionary = train_dictionary(samples.iter().map(String::as_str)).expect("trained");
    assert_eq!(index.body_dictionary().expect("none yet"), None);
    index.add_body_dictionary(&dictionary, 1).expect("kept");
    assert_eq!(
        index.body_dictionary().expect("read").as_deref(),
        Some(&dictionary[..])
    );
    let with = Packing::with_dictionary(&dictionary).expect("a dictionary");
    let rows: Vec<IndexRow> = (0..4)
        .map(|i| {
            let packing = if i % 2 == 0 { &with } else { &Packing::plain() };
            let mut packer = packing.packer().expect("zstd");
            IndexRow {
                body: Some(pack_body(&text(i), &format!("aa{i:03}"), &mut packer).expect("packed")),
                ..row(&format!("aa{i:03}"), i as i64, "alice")
            }
        })
        .collect();
    index.write_page(chunk.id, &page(rows)).expect("written");
    drop(index);
    // A reader of its own: the dictionaries are loaded from the file when a body names one.
    let mut index = SqliteIndex::open(&dir.path().join("i.sqlite"), false).expect("reader");
    for i in 0..4 {
        assert_eq!(
            index.body(&format!("aa{i:03}")).expect("read").as_deref(),
            Some(text(i).as_str()),
            "body {i}"
        );
    }
    // A body naming a dictionary the index does not have: a corrupt index, said so.
    drop(index);
    let conn = Connection::open(dir.path().join("i.sqlite")).expect("open");
    conn.execute("DELETE FROM dictionaries", []).expect("gone");
    drop(conn);
    let mut index = SqliteIndex::open(&dir.path().join("i.sqlite"), false).expect("reader");
    let err = index.body("aa000").expect_err("no dictionary").to_string();
    assert!(err.contains("packed with dictionary"), "{err}");
    assert_eq!(
        index.body("aa001").expect("plain").as_deref(),
        Some(text(1).as_str())
    );
}

#[test]
fn a_damaged_dictionary_is_a_corrupt_index_error_not_a_panic() {
    use crate::model::index::pack::{Packing, pack_body, train_dictionary};
    let samples: Vec<String> = (0..300)
        .map(|i| {
            format!(
                "{{\"update_id\":\"aa{i:03}\",\"template_id\":\"Splice.Amulet:Amulet\",\"n\":{i}}}"
            )
        })
        .collect();
    let dictionary = train_dictionary(samples.iter().map(String::as_str)).expect("trained");
    let packed = pack_body(
        &samples[0],
        "aa000",
        &mut Packing::with_dictionary(&dictionary)
            .expect("a dictionary")
            .packer()
            .expect("zstd"),
    )
    .expect("packed");
    // Its header (magic number, id) intact, its tables not.
    let mut damaged = dictionary.clone();
    for byte in &mut damaged[8..] {
        *byte = 0xff;
    }
    let err = Packing::with_dictionary(&damaged).err().expect("refused");
    assert!(err.contains("damaged"), "{err}");
    let dir = tempfile::tempdir().expect("dir");
    let mut index = SqliteIndex::open(&dir.path().join("i.sqlite"), true).expect("open");
    index.add_body_dictionary(&damaged, 1).expect("kept");
    let chunk = index.start_chunk(None, None, 1, 0).expect("chunk");
    let rows = vec![IndexRow {
        body: Some(packed),
        ..row("aa000", 0, "alice")
    }];
    index.write_page(chunk.id, &page(rows)).expect("written");
    let err = index.body("aa000").expect_err("corrupt").to_string();
    assert!(err.contains("damaged"), "{err}");
}

#[test]
fn contract_prefix_pages_merge_from_each_terms_newest_key_through_pages_prune_and_reused_seqs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut index, later, earlier) = hubs_at_4_and_two_chunks(dir.path());
    let at = at_second;
    // Update i has contract cafe{g}{c} for a few (g, c): some contracts in one update, some in
    // many; every other update has the party dso (a hub at 4), every third bob (not one).
    let contracts = |i: i64| -> Vec<String> {
        let mut v = vec![format!("cafe{}{:02}", i % 3, i % 7)];
        if i % 5 == 0 {
            v.push(format!("cafe{}{:02}", (i / 5) % 3, 50 + i));
        }
        v
    };
    let parties = |i: i64| -> Vec<&'static str> {
        let mut v = Vec::new();
        if i % 2 == 0 {
            v.push("dso");
        }
        if i % 3 == 0 {
            v.push("bob");
        }
        v
    };
    // Updates from 100 are of migration 2, at seconds 0 to 9.
    let place = |i: i64| if i >= 100 { (2, i - 100) } else { (1, i) };
    let mut written: Vec<i64> = Vec::new();
    let check = |index: &mut SqliteIndex, written: &[i64], when: &str| {
        for words in [
            vec!["contract:cafe1"],
            vec!["contract:cafe"],
            vec!["contract:1220cafe2"],
            vec!["contract:cafe0", "party:dso"],
            vec!["contract:cafe", "party:bob"],
            vec!["contract:cafe", "party:dso", "party:bob"],
            vec!["contract:cafe", "id:up01"],
        ] {
            let q = Query::parse(&words).expect("q");
            let mut expected: Vec<i64> = written
                .iter()
                .copied()
                .filter(|i| {
                    q.terms.iter().all(|t| match t {
                        Term::ContractPrefix(_) => {
                            contracts(*i).iter().any(|c| t.prefix_matches(c))
                        }
                        Term::UpdatePrefix(_) => t.prefix_matches(&format!("up{i:03}")),
                        Term::Exact(_, p) => parties(*i).contains(&p.as_str()),
                        Term::TemplateName(_) | Term::Choices(_) | Term::Events(_) => false,
                        Term::PartyHint(h) => parties(*i).iter().any(|p| party_hinted(p, h)),
                    })
                })
                .collect();
            expected.sort_unstable_by_key(|i| std::cmp::Reverse(place(*i)));
            // Over the whole index, and within bounds (each migration's part merged apart).
            for (from, until) in [
                (None, None),
                (Some(5), Some(75)),
                (None, Some(55)),
                (Some(3), None),
            ] {
                for limit in [1, 4, 1000] {
                    let rows = index
                        .search(&q, from.map(at), until.map(at), limit)
                        .expect("search");
                    let got: Vec<String> = rows.into_iter().map(|r| r.update_id).collect();
                    let want: Vec<String> = expected
                        .iter()
                        .filter(|i| {
                            let second = place(**i).1;
                            from.is_none_or(|f| second >= f) && until.is_none_or(|u| second <= u)
                        })
                        .take(limit)
                        .map(|i| format!("up{i:03}"))
                        .collect();
                    assert_eq!(
                        got, want,
                        "{words:?} {from:?}..{until:?}, {limit} rows, {when}"
                    );
                }
            }
        }
    };
    let page_of = |first: i64, written: &mut Vec<i64>| {
        let rows: Vec<IndexRow> = (first..first + 10)
            .map(|i| {
                let (migration, second) = place(i);
                let mut r = row(&format!("up{i:03}"), second, "nobody");
                r.migration_id = migration;
                r.keys = parties(i)
                    .into_iter()
                    .map(|p| (KeyKind::Party, p.to_owned()))
                    .chain(contracts(i).into_iter().map(|c| (KeyKind::Contract, c)))
                    .collect();
                written.push(i);
                r
            })
            .collect();
        page(rows)
    };
    let pages = out_of_order(&earlier, &later);
    write_pages(&mut index, &pages, &mut written, page_of, check);
    // Each term's newest key is its last key (a hub's, of its blocks).
    let stale = super::hub_keys::stale_terms(&index.conn);
    assert_eq!(stale, 0, "terms whose newest key is not their last");
    // A term whose newest key is unknown (as a term without keys keeps none) is read whole.
    index
        .conn
        .execute(
            "UPDATE terms SET last_migration = NULL, last_time = NULL, last_seq = NULL
             WHERE value LIKE 'cafe1%'",
            [],
        )
        .expect("unknown");
    check(&mut index, &written, "with unknown newest keys");
    // Prune the earlier half (the highest seqs): the terms' newest keys are read again, and
    // the next updates get the freed seqs.
    index.prune(at(40)).expect("prune");
    written.retain(|second| *second >= 40);
    check(&mut index, &written, "after prune");
    let pages = [(80, later.id), (90, later.id)];
    write_pages(&mut index, &pages, &mut written, page_of, check);
    // Updates of a later migration at earlier times: the newest keys of their terms, removed
    // by a prune before a time after them, which leaves the terms' keys of migration 1.
    let page = page_of(100, &mut written);
    index.write_page(later.id, &page).expect("page");
    check(&mut index, &written, "after migration 2");
    index.prune(at(40)).expect("prune");
    written.retain(|i| *i < 100);
    check(&mut index, &written, "after the prune of migration 2");
}

#[test]
fn a_writers_wal_is_copied_into_the_file_by_its_own_thread_and_stays_bounded() {
    use super::checkpoint::{BOUND, WAKE_AT, wal_pages};
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("i.sqlite");
    let mut index = SqliteIndex::open(&path, true).expect("open");
    let chunk = index.start_chunk(None, None, 1, 0).expect("chunk");
    let size = |p: &std::path::Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let mut written = 0;
    let mut write = |index: &mut SqliteIndex| {
        let rows = (written..written + 20)
            .map(|n| row(&format!("up{n:05}"), n, &format!("party{}", n % 7)))
            .collect();
        written += 20;
        index.write_page(chunk.id, &page(rows)).expect("page");
        wal_pages()
    };
    // Pages until the WAL passes the wake-up mark, below the writer's own bound.
    let before = size(&path);
    let reached = (0..40).map(|_| write(&mut index)).find(|p| *p >= WAKE_AT);
    assert!(reached.is_some_and(|p| p < BOUND), "{reached:?} WAL pages");
    // The thread copies them into the index file while the writer stays open (SQLite's own
    // automatic checkpoint is replaced, and the writer copies only past the bound).
    let copied = (0..200).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(25));
        size(&path) > before
    });
    assert!(copied, "the file stayed at {before} bytes");
    // Writing on, the WAL starts over after copies that caught up, and never goes far past the
    // bound (at most one page's commit beyond it).
    let after_each: Vec<_> = (0..40).map(|_| write(&mut index)).collect();
    assert!(
        after_each.windows(2).any(|w| w[1] < w[0]),
        "the WAL started over: {after_each:?}"
    );
    let most = after_each.iter().copied().max().unwrap_or(0);
    assert!(most < 2 * BOUND, "{most} WAL pages: {after_each:?}");
}

#[test]
fn a_terms_newest_key_is_its_last_for_updates_of_migration_0_before_2027() {
    // Kept from 2027-01-01, their times are negative: below the (0, 0, 0) a page's search for
    // its newest keys must not start from.
    let dir = tempfile::tempdir().expect("temp dir");
    let mut index = SqliteIndex::open(&dir.path().join("i.sqlite"), true).expect("open");
    let chunk = index.start_chunk(None, None, 1, 0).expect("chunk");
    let rows: Vec<IndexRow> = (1..=3)
        .map(|i| {
            let mut r = row(&format!("ab0{i}"), i, "alice");
            r.migration_id = 0;
            r.record_time = super::record_times::EPOCH - 86_400_000_000 + i * 1_000_000;
            r.keys.push((KeyKind::Contract, "00cafe".to_owned()));
            r
        })
        .collect();
    index.write_page(chunk.id, &page(rows)).expect("page");
    let newest: Vec<(i64, i64, i64)> = index
        .conn
        .prepare("SELECT last_migration, last_time, last_seq FROM terms ORDER BY id")
        .and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect()
        })
        .expect("newest keys");
    assert!(
        newest.iter().all(|(_, t, seq)| *t < 0 && *seq > 0),
        "{newest:?}"
    );
    // The newest first, through each term's newest key.
    let q = Query::parse(&["contract:00cafe"]).expect("q");
    let ids: Vec<String> = index
        .search(&q, None, None, 10)
        .expect("search")
        .into_iter()
        .map(|r| r.update_id)
        .collect();
    assert_eq!(ids, ["ab03", "ab02", "ab01"]);
}
