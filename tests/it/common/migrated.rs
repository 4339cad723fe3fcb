//! What the tests of an index migrated in place share (`index_schema10` to `index_schema13`):
//! an index synced of the tests' hour on each engine, the answers of
//! `index search` asked before and after, and the migration itself (readers refuse the older
//! schema, the next sync migrates it and says so).

use std::path::{Path, PathBuf};
use std::sync::RwLockReadGuard;

use cantonscope::store::{self, Location, POSTGRES_SCHEMA_VERSION, SCHEMA_VERSION};

use crate::index::{four, from, index_args, run, status, sync, text};
use crate::index_events::{synced_hour, until};
use crate::index_pg::Database;

/// A new SQLite index synced of the tests' hour from the four-scan demo (`--verify 2`): the
/// scan's URL, the index's directory, path and path as text.
pub(crate) fn sqlite_synced() -> (&'static str, tempfile::TempDir, PathBuf, String) {
    let url = &four().handle.scan_url;
    let (dir, index, (code, _, err)) = synced_hour(url);
    assert_eq!(code, 0, "{err}");
    let shown = index.to_str().expect("utf-8").to_owned();
    (url, dir, index, shown)
}

/// A new PostgreSQL database for `test` (`None`: no test server, the test is skipped) synced of
/// the tests' hour from the four-scan demo with `--verify VERIFY`: the database and the
/// server's guard, the scan's URL and a directory to run in.
pub(crate) fn postgres_synced(
    test: &str,
    verify: &str,
) -> Option<(
    Database,
    RwLockReadGuard<'static, ()>,
    &'static str,
    tempfile::TempDir,
)> {
    let (db, server) = crate::index_pg::database(test)?;
    let url = &four().handle.scan_url;
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, _, err) = sync(
        dir.path(),
        url,
        &db.url,
        &["--from", from(), "--until", &until(), "--verify", verify],
    );
    assert_eq!(code, 0, "{err}");
    Some((db, server, url, dir))
}

/// The SQLite index `shown`, made of schema `older` by the test: readers refuse it (`index
/// search PROBE`), the next `index sync --verify VERIFY` migrates it to this build's schema
/// and says so on stderr, with `said` among the steps.
pub(crate) fn sqlite_migrates(
    dir: &Path,
    url: &str,
    shown: &str,
    older: i64,
    (probe, verify, said): (&str, &str, &str),
) {
    let output = run(
        dir,
        url,
        &[&index_args(shown, "search")[..], &[probe]].concat(),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains(&format!("older cantonscope (schema {older})")));
    let (code, _, err) = sync(dir, url, shown, &["--until", &until(), "--verify", verify]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!(
            "migrated the index from schema {older} to schema {SCHEMA_VERSION}"
        )) && err.contains(said),
        "{err}"
    );
    assert_eq!(status(dir, shown)["schema_version"], SCHEMA_VERSION);
}

/// The PostgreSQL index at `db`, made of schema `older` by the test: a reader refuses it, the
/// next `index sync --no-events` migrates it to this build's schema.
pub(crate) fn postgres_migrates(dir: &Path, url: &str, db: &Database, older: i64) {
    assert!(
        store::open_reader(&Location::Postgres(db.url.clone())).is_err(),
        "a reader refuses schema {older}"
    );
    let (code, _, err) = sync(
        dir,
        url,
        &db.url,
        &["--until", &until(), "--verify", "1", "--no-events"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        status(dir, &db.url)["schema_version"],
        POSTGRES_SCHEMA_VERSION
    );
}

/// The answers of `index search` (the listed page and the count) of each of `words` (a word:
/// its search terms separated by spaces).
pub(crate) fn answers(dir: &Path, index: &str, words: &[String]) -> Vec<(String, Vec<String>)> {
    let mut all = Vec::new();
    for word in words {
        for extra in [&[][..], &["--count"][..]] {
            let terms: Vec<&str> = word.split(' ').collect();
            let args = [&index_args(index, "search")[..], &terms, extra].concat();
            let output = run(dir, "http://127.0.0.1:9", &args);
            assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
            let lines = text(&output.stdout).lines().map(str::to_owned).collect();
            all.push((format!("{word} {extra:?}"), lines));
        }
    }
    all
}

/// The count `word` has among `answers` (its `--count` answer).
pub(crate) fn count(answers: &[(String, Vec<String>)], word: &str) -> u64 {
    answers
        .iter()
        .find(|(asked, _)| *asked == format!("{word} [\"--count\"]"))
        .and_then(|(_, lines)| lines.first()?.trim().parse().ok())
        .expect("a count")
}

/// The SQLite index open on `conn` laid out as schema 17 and the schemas before it kept it:
/// its record times counted from 1970 again (schema 18 counts the updates', keys', terms' and
/// verdict-only events' times from 2027-01-01) and its party sets as JSON
/// ([`party_sets_as_json`]): what a test that makes an index of an older schema does first.
pub(crate) fn times_from_1970(conn: &rusqlite::Connection) {
    party_sets_as_json(conn);
    conn.execute_batch(
        "UPDATE updates SET record_time = record_time + 1798761600000000;
         UPDATE keys SET record_time = record_time + 1798761600000000;
         UPDATE terms SET last_time = last_time + 1798761600000000 WHERE last_time IS NOT NULL;
         UPDATE verdict_events SET record_time = record_time + 1798761600000000;",
    )
    .expect("times from 1970");
}

/// The keys of the terms `which` selects (an SQL condition on `term`) that the SQLite index
/// open on `conn` keeps in blocks (`hub_keys`, a hub's from schema 20, any term's of at least
/// 100 updates from 21: up to 128 keys of a term and migration a row, the first whole, each
/// next one the varints of its record time's step and its seq's zigzagged step), decoded in
/// this helper's own reader: (term, migration, record time, seq).
pub(crate) fn block_keys(conn: &rusqlite::Connection, which: &str) -> Vec<[i64; 4]> {
    let varint = |bytes: &[u8], at: &mut usize| -> u64 {
        let mut v = 0;
        for shift in (0..64).step_by(7) {
            let b = bytes[*at];
            *at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                break;
            }
        }
        v
    };
    let blocks: Vec<(i64, [i64; 3], Vec<u8>)> = conn
        .prepare(&format!(
            "SELECT term, migration_id, record_time, seq, rest FROM hub_keys WHERE {which}"
        ))
        .and_then(|mut s| {
            s.query_map([], |r| {
                Ok((r.get(0)?, [r.get(1)?, r.get(2)?, r.get(3)?], r.get(4)?))
            })?
            .collect()
        })
        .expect("blocks");
    let mut out = Vec::new();
    for (term, [m, mut t, mut s], rest) in blocks {
        out.push([term, m, t, s]);
        let mut at = 0;
        while at < rest.len() {
            t += varint(&rest, &mut at) as i64;
            let z = varint(&rest, &mut at);
            s += ((z >> 1) as i64) ^ -((z & 1) as i64);
            out.push([term, m, t, s]);
        }
    }
    out
}

/// The keys of the terms `which` selects that the SQLite index open on `conn` keeps in blocks
/// ([`block_keys`]) made rows of `keys` again, as schema 19 and the schemas before kept every
/// key (and as a term of fewer updates that is not a hub keeps them).
pub(crate) fn hub_keys_as_rows(conn: &rusqlite::Connection, which: &str) {
    let mut insert = conn
        .prepare("INSERT INTO keys (term, migration_id, record_time, seq) VALUES (?1, ?2, ?3, ?4)")
        .expect("insert");
    for key in block_keys(conn, which) {
        insert.execute(key).expect("key");
    }
    conn.execute(&format!("DELETE FROM hub_keys WHERE {which}"), [])
        .expect("blocks gone");
}

/// The party sets of the SQLite index open on `conn` kept as their JSON again, as schema 18 and
/// the schemas before it kept them (schema 19 keeps a set as its parties' LEB128 numbers, each
/// party's name a row of `party_names`), the names' table dropped.
pub(crate) fn party_sets_as_json(conn: &rusqlite::Connection) {
    hub_keys_as_rows(conn, "1");
    conn.execute_batch("DROP TABLE hub_keys")
        .expect("no blocks");
    let names: std::collections::HashMap<i64, String> = conn
        .prepare("SELECT id, party FROM party_names")
        .and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()
        })
        .expect("party names");
    let sets: Vec<(i64, Vec<u8>)> = conn
        .prepare("SELECT id, parties FROM party_sets")
        .and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()
        })
        .expect("party sets");
    for (id, set) in sets {
        let mut parties = Vec::new();
        let (mut n, mut shift) = (0_i64, 0);
        for byte in set {
            n |= i64::from(byte & 0x7f) << shift;
            shift += 7;
            if byte & 0x80 == 0 {
                parties.push(names[&n].clone());
                (n, shift) = (0, 0);
            }
        }
        let json = serde_json::to_string(&parties).expect("json");
        conn.execute(
            "UPDATE party_sets SET parties = ?2 WHERE id = ?1",
            rusqlite::params![id, json],
        )
        .expect("a set as JSON");
    }
    conn.execute_batch("DROP TABLE party_names")
        .expect("no names' table");
}

/// The tests' hour synced again into the SQLite index `shown` (`--verify 2`, as
/// [`sqlite_synced`] synced it), the sync ending well.
pub(crate) fn synced_again(dir: &Path, url: &str, shown: &str) {
    let (code, _, err) = sync(
        dir,
        url,
        shown,
        &["--from", from(), "--until", &until(), "--verify", "2"],
    );
    assert_eq!(code, 0, "{err}");
}
