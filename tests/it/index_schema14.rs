//! Schema 14 (issue 42's disk figure): SQLite keeps each body with its update id and its
//! contract ids as references (the contracts' term ids beside the zstd frame, resolved on
//! reading). A fresh index reads every body back as the scans served it; an index of schema 13
//! (plain bodies) is refused by readers and migrated in place by the next sync, and answers the
//! same (searches, bodies, digests); a prune that removes every other update of a contract a
//! kept body names leaves that body readable. Run as the real binary over real HTTP against
//! the demo.

use std::collections::HashMap;
use std::path::Path;

use cantonscope::model::index::refs::read_leb128;
use cantonscope::store::{self, Location};

use crate::common::migrated::{answers, sqlite_migrates, sqlite_synced};
use crate::index::{index_args, kept, run, text};

/// A kept body's contracts' term ids and its zstd frame.
pub(crate) fn split_kept(kept: &[u8]) -> (Vec<i64>, &[u8]) {
    let (n, mut at) = read_leb128(kept).expect("the count of references");
    let mut ids = Vec::new();
    for _ in 0..n {
        let (id, len) = read_leb128(&kept[at..]).expect("a reference");
        ids.push(id.cast_signed());
        at += len;
    }
    (ids, &kept[at..])
}

/// Every body of the index by update id, read through the store.
fn bodies(index: &Path) -> Vec<(String, Option<String>)> {
    let mut store = store::open_reader(&Location::Sqlite(index.to_owned())).expect("opens");
    store
        .digests()
        .expect("digests")
        .into_iter()
        .map(|(id, _)| {
            let body = store.body(&id).expect("a body read");
            (id, body)
        })
        .collect()
}

/// The kept bodies as the file holds them: (references, frame) by seq.
fn kept_bodies(index: &Path) -> Vec<(Vec<i64>, Vec<u8>)> {
    let conn = rusqlite::Connection::open(index).expect("opens");
    conn.prepare("SELECT body FROM updates WHERE body IS NOT NULL ORDER BY seq")
        .and_then(|mut s| {
            s.query_map([], |r| r.get::<_, Vec<u8>>(0))?
                .collect::<Result<Vec<_>, _>>()
        })
        .expect("bodies")
        .iter()
        .map(|b| {
            let (ids, frame) = split_kept(b);
            (ids, frame.to_vec())
        })
        .collect()
}

/// The index as schema 13 kept it: each body its text (without references) packed with the
/// dictionary its frame names, no index of the contract terms by id.
pub(crate) fn to_schema_13(index: &Path) {
    let texts: HashMap<String, String> = bodies(index)
        .into_iter()
        .filter_map(|(id, body)| Some((id, body?)))
        .collect();
    let conn = rusqlite::Connection::open(index).expect("opens");
    let dictionaries: HashMap<u32, Vec<u8>> = conn
        .prepare("SELECT id, dictionary FROM dictionaries")
        .and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()
        })
        .expect("dictionaries");
    let rows: Vec<(i64, String, Vec<u8>)> = conn
        .prepare(
            "SELECT seq, CASE WHEN typeof(update_id) = 'blob' THEN lower(hex(update_id))
                 ELSE update_id END, body FROM updates WHERE body IS NOT NULL",
        )
        .and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<Result<_, _>>()
        })
        .expect("bodies");
    conn.execute_batch("BEGIN").expect("begins");
    for (seq, id, body) in rows {
        let (_, frame) = split_kept(&body);
        let text = texts[&id].as_bytes();
        let packed = match cantonscope::model::index::pack::body_dictionary_id(frame) {
            None => zstd::bulk::compress(text, 1).expect("packed"),
            Some(d) => zstd::bulk::Compressor::with_dictionary(1, &dictionaries[&d])
                .and_then(|mut c| c.compress(text))
                .expect("packed"),
        };
        conn.execute(
            "UPDATE updates SET body = ?2 WHERE seq = ?1",
            rusqlite::params![seq, packed],
        )
        .expect("a schema-13 body");
    }
    conn.execute_batch(
        "DROP INDEX terms_contract;
         UPDATE meta SET value = '13' WHERE key = 'schema_version';
         COMMIT;",
    )
    .expect("schema 13");
}

/// The searches asked of both layouts: the busiest party and template, a contract by its
/// whole id and by a prefix, an update id, and a word that finds nothing.
fn words(index: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(index).expect("opens");
    let top = |kind: i64| -> String {
        conn.query_row(
            "SELECT CASE WHEN typeof(value) = 'blob' THEN lower(hex(value)) ELSE value END
             FROM terms WHERE kind = ?1 ORDER BY n DESC, id LIMIT 1",
            [kind],
            |r| r.get(0),
        )
        .expect("a term")
    };
    let contract = top(4);
    vec![
        format!("party:{}", top(1)),
        format!("template:{}", top(2)),
        format!("contract:{contract}"),
        format!("contract:{}", &contract[..9]),
        "contract:zzzzzzzz".to_owned(),
    ]
}

#[test]
fn a_fresh_index_keeps_references_and_every_body_reads_back_as_served() {
    let (_dir, index, _out, lines) = crate::index::synced();
    let read = bodies(&index);
    assert_eq!(read.len(), lines.len());
    let served: HashMap<&str, &serde_json::Value> = lines
        .iter()
        .map(|l| (l["update_id"].as_str().expect("an id"), l))
        .collect();
    let digests: HashMap<String, String> = kept(&index).into_iter().collect();
    for (id, body) in &read {
        let body = body.as_deref().expect("a body");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(body).expect("json"),
            *served[id.as_str()],
            "{id}"
        );
        let digest = cantonscope::model::index::digest_of(body).expect("a digest");
        assert_eq!(
            cantonscope::model::index::digest_hex(&digest),
            digests[id],
            "{id}: the digest of the body read back is the kept one"
        );
    }
    // The file keeps references: nearly every body names contracts, and none of the
    // contract ids it names is in its frame as text.
    let kept = kept_bodies(&index);
    let naming = kept.iter().filter(|(ids, _)| !ids.is_empty()).count();
    assert!(naming * 10 > kept.len() * 9, "{naming} of {}", kept.len());
    let conn = rusqlite::Connection::open(&index).expect("opens");
    let plan: String = conn
        .query_row(
            "EXPLAIN QUERY PLAN SELECT value FROM terms WHERE kind = 4 AND id = 7",
            [],
            |r| r.get(3),
        )
        .expect("a plan");
    assert!(plan.contains("terms_contract"), "one look-up by id: {plan}");
}

#[test]
fn an_index_of_schema_13_is_migrated_in_place_and_answers_the_same() {
    let (url, dir, index, shown) = sqlite_synced();
    let words = words(&index);
    let before = answers(dir.path(), &shown, &words);
    let read = bodies(&index);
    let digests = kept(&index);
    let fresh = kept_bodies(&index);
    to_schema_13(&index);
    let plain = kept_bodies_as_frames(&index);
    assert!(
        plain
            .iter()
            .all(|b| b.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]))
    );
    sqlite_migrates(
        dir.path(),
        url,
        &shown,
        13,
        (&words[0], "1", "kept as references"),
    );
    let migrated = kept_bodies(&index);
    assert_eq!(migrated.len(), fresh.len());
    // The same contracts named, in the same order (their text's, as a fresh write has them).
    let names = |b: &[(Vec<i64>, Vec<u8>)]| -> Vec<Vec<i64>> {
        b.iter().map(|(ids, _)| ids.clone()).collect()
    };
    assert_eq!(names(&migrated), names(&fresh));
    let size = |b: &[(Vec<i64>, Vec<u8>)]| -> usize { b.iter().map(|(_, f)| f.len()).sum() };
    let plain_size: usize = plain.iter().map(Vec::len).sum();
    assert!(
        size(&migrated) * 10 < plain_size * 9,
        "smaller frames: {} against {plain_size}",
        size(&migrated)
    );
    assert_eq!(answers(dir.path(), &shown, &words), before);
    assert_eq!(bodies(&index)[..read.len()], read[..]);
    assert_eq!(kept(&index)[..digests.len()], digests[..]);
}

/// The kept bodies as the file holds them, whole.
fn kept_bodies_as_frames(index: &Path) -> Vec<Vec<u8>> {
    let conn = rusqlite::Connection::open(index).expect("opens");
    conn.prepare("SELECT body FROM updates WHERE body IS NOT NULL ORDER BY seq")
        .and_then(|mut s| {
            s.query_map([], |r| r.get::<_, Vec<u8>>(0))?
                .collect::<Result<Vec<_>, _>>()
        })
        .expect("bodies")
}

#[test]
fn a_prune_of_a_contracts_other_updates_leaves_the_bodies_that_name_it() {
    let (url, dir, index, shown) = sqlite_synced();
    let read: HashMap<String, Option<String>> = bodies(&index).into_iter().collect();
    // A contract named by updates on both sides of a cut: the cut just after its first.
    let conn = rusqlite::Connection::open(&index).expect("opens");
    let (term, cut): (i64, i64) = conn
        .query_row(
            "SELECT k.term, min(k.record_time) + 1 FROM keys k JOIN terms t ON t.id = k.term
             WHERE t.kind = 4 GROUP BY k.term
             HAVING count(DISTINCT k.record_time) >= 2 ORDER BY count(*) DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("a contract of several updates");
    let naming = |conn: &rusqlite::Connection| -> Vec<(i64, i64)> {
        conn.prepare("SELECT seq, record_time, body FROM updates WHERE body IS NOT NULL")
            .and_then(|mut s| {
                s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, Vec<u8>>(2)?)))?
                    .collect::<Result<Vec<_>, _>>()
            })
            .expect("bodies")
            .into_iter()
            .filter(|(_, _, b)| split_kept(b).0.contains(&term))
            .map(|(seq, time, _)| (seq, time))
            .collect()
    };
    let before = naming(&conn);
    assert!(
        before.iter().any(|(_, t)| *t < cut) && before.iter().any(|(_, t)| *t >= cut),
        "named on both sides of the cut: {before:?}"
    );
    drop(conn);
    let at = cantonscope::model::format::format_time_micros(cut);
    let mut args = index_args(&shown, "prune");
    args.extend_from_slice(&["--before", &at]);
    let output = run(dir.path(), url, &args);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let conn = rusqlite::Connection::open(&index).expect("opens");
    let after = naming(&conn);
    assert!(
        !after.is_empty() && after.iter().all(|(_, t)| *t >= cut),
        "{after:?}"
    );
    let n: i64 = conn
        .query_row("SELECT n FROM terms WHERE id = ?1", [term], |r| r.get(0))
        .expect("the term is kept");
    assert_eq!(n, after.len() as i64, "its count is of the kept updates");
    drop(conn);
    // Every kept body reads back as before, the ones naming the contract among them.
    let left = bodies(&index);
    assert!(!left.is_empty() && left.len() < read.len());
    for (id, body) in left {
        assert_eq!(body, read[&id], "{id}");
    }
}
