//! SQLite's schema 14 and PostgreSQL's 15 (issue 39's disk figure): a body names its update's
//! own id by one byte (the id is in its row already). An index of the schema before (its
//! bodies as served) is refused by readers and migrated in place by the next sync without a
//! body rewritten: the bodies it kept read back as they did, the next sync's are named and,
//! once it has enough of them, packed with a dictionary trained on named bodies (the index's
//! was trained on bodies as served), and every body opens as the scan served it. Run as the real binary over real HTTP against the
//! demo.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use cantonscope::model::index::pack::{
    DICTIONARIES_KEY, OWN_ID, body_dictionary_id, dictionaries_by_migration, dictionary_id,
    own_id_back,
};
use cantonscope::store::{self, Location};
use serde_json::Value;

use crate::common::migrated::{
    answers, postgres_migrates, postgres_synced, sqlite_migrates, sqlite_synced,
};
use crate::index::{contract_terms_of, history_from, kept_text, sync};

/// A body as kept, unpacked (its dictionary among `dictionaries`, the contracts it names
/// among `terms`: SQLite's schema 15) but its own id not put back: the bytes the index's form
/// is seen in.
fn unpacked(packed: &[u8], dictionaries: &[Vec<u8>], terms: &HashMap<i64, String>) -> Vec<u8> {
    let unpack = |frame: &[u8]| match body_dictionary_id(frame) {
        None => zstd::stream::decode_all(frame).expect("plain"),
        Some(id) => {
            let dictionary = dictionaries
                .iter()
                .find(|d| dictionary_id(d) == Some(id))
                .expect("its dictionary");
            zstd::bulk::Decompressor::with_dictionary(dictionary)
                .expect("zstd")
                .decompress(frame, 1 << 24)
                .expect("unpacked")
        }
    };
    kept_text(packed, unpack, terms)
}

/// `text` packed as an older build packed it (as served, with the same dictionary).
fn packed_as_served(text: &[u8], dictionary: Option<&Vec<u8>>) -> Vec<u8> {
    match dictionary {
        None => zstd::bulk::compress(text, 1).expect("packed"),
        Some(d) => zstd::bulk::Compressor::with_dictionary(1, d)
            .expect("zstd")
            .compress(text)
            .expect("packed"),
    }
}

/// Whether a body's unpacked bytes name its own id (`true`) or are as served (`false`); a
/// named body keeps no copy of the id.
fn named(id: &str, text: &[u8]) -> bool {
    let named = text.last() == Some(&OWN_ID);
    if named {
        assert!(
            memchr::memmem::find(text, id.as_bytes()).is_none(),
            "{id}: a copy of its id left in its named body"
        );
    } else {
        assert!(
            memchr::memmem::find(text, id.as_bytes()).is_some(),
            "{id}: a body as served has its id"
        );
    }
    named
}

/// Whether a body dictionary was trained on bodies as kept, their own ids named: it holds the
/// named id, as a whole string or as the start of an event id, among what it learned (one
/// trained on bodies as served cannot). Not the `update_id` field alone: a dictionary trained
/// on one hour's first bodies does not always keep that one.
fn trained_on_named(dictionary: &[u8]) -> bool {
    memchr::memmem::find(dictionary, b"\"\x01\"").is_some()
        || memchr::memmem::find(dictionary, b"\"\x01:").is_some()
}

/// An update id as its text, whether SQLite keeps it as bytes or as text.
const ID_TEXT: &str =
    "CASE WHEN typeof(update_id) = 'blob' THEN lower(hex(update_id)) ELSE update_id END";

/// A SQLite index's body dictionaries, its updates (seq, id as text, packed body) and its
/// contract terms by id.
type SqliteBodies = (
    Vec<Vec<u8>>,
    Vec<(i64, String, Vec<u8>)>,
    HashMap<i64, String>,
);

fn sqlite_rows(conn: &rusqlite::Connection) -> SqliteBodies {
    let dictionaries = conn
        .prepare("SELECT dictionary FROM dictionaries")
        .expect("dictionaries")
        .query_map([], |r| r.get(0))
        .expect("dictionaries")
        .collect::<Result<_, _>>()
        .expect("dictionaries");
    let rows = conn
        .prepare(&format!("SELECT seq, {ID_TEXT}, body FROM updates"))
        .expect("bodies")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("bodies")
        .collect::<Result<_, _>>()
        .expect("bodies");
    (dictionaries, rows, contract_terms_of(conn))
}

/// Every SQLite body by its update's id: whether it names its id (the unpacked bytes end with
/// the byte), and its packed bytes.
fn sqlite_bodies(index: &Path) -> BTreeMap<String, (bool, Vec<u8>)> {
    let (dictionaries, rows, terms) =
        sqlite_rows(&rusqlite::Connection::open(index).expect("opens"));
    rows.into_iter()
        .map(|(_, id, packed)| {
            let text = unpacked(&packed, &dictionaries, &terms);
            (id.clone(), (named(&id, &text), packed))
        })
        .collect()
}

/// The text a body `packed` of update `id` opens to: as served.
fn served_text(
    packed: &[u8],
    id: &str,
    dictionaries: &[Vec<u8>],
    terms: &HashMap<i64, String>,
) -> String {
    own_id_back(
        String::from_utf8(unpacked(packed, dictionaries, terms)).expect("UTF-8"),
        id,
    )
}

/// A dictionary as an older build trained it: on the bodies as served.
fn trained_as_served(texts: &[String]) -> Vec<u8> {
    let dictionary = zstd::dict::from_samples(texts, 64 * 1024).expect("trained");
    assert!(!trained_on_named(&dictionary));
    dictionary
}

/// The SQLite index as schema 13 kept it: every body as served, packed with one dictionary
/// trained on the bodies as served.
fn sqlite_to_schema_13(index: &Path) {
    let conn = rusqlite::Connection::open(index).expect("opens");
    let (dictionaries, rows, terms) = sqlite_rows(&conn);
    let texts: Vec<String> = rows
        .iter()
        .map(|(_, id, packed)| served_text(packed, id, &dictionaries, &terms))
        .collect();
    let dictionary = trained_as_served(&texts);
    conn.execute("DELETE FROM dictionaries", [])
        .expect("emptied");
    conn.execute(
        "INSERT INTO dictionaries (id, added_at, dictionary) VALUES (?1, 1, ?2)",
        rusqlite::params![dictionary_id(&dictionary).expect("an id"), dictionary],
    )
    .expect("kept");
    for ((seq, _, _), text) in rows.iter().zip(&texts) {
        conn.execute(
            "UPDATE updates SET body = ?1 WHERE seq = ?2",
            rusqlite::params![packed_as_served(text.as_bytes(), Some(&dictionary)), seq],
        )
        .expect("repacked");
    }
    crate::common::migrated::times_from_1970(&conn);
    conn.execute_batch(
        "DROP INDEX IF EXISTS terms_id; UPDATE meta SET value = '13' WHERE key = 'schema_version';",
    )
    .expect("schema 13");
}

/// The id of the second of an index's two body dictionaries: trained on bodies as kept, the
/// first on bodies as served.
fn second_dictionary(dictionaries: &[Vec<u8>]) -> u32 {
    assert_eq!(dictionaries.len(), 2, "a second dictionary");
    let named: Vec<&Vec<u8>> = dictionaries
        .iter()
        .filter(|d| trained_on_named(d))
        .collect();
    assert_eq!(
        named.len(),
        1,
        "one trained on bodies as served, one on bodies as kept"
    );
    dictionary_id(named[0]).expect("an id")
}

/// The bodies a sync wrote (seq, packed), in the order it wrote them: those before it had
/// bodies enough to train the `second` dictionary on are packed with the first, every one
/// after with the second.
fn packed_with_the_second_once_trained(mut written: Vec<(i64, Vec<u8>)>, second: u32) {
    written.sort_by_key(|(seq, _)| *seq);
    let with: Vec<Option<u32>> = written
        .iter()
        .map(|(_, packed)| body_dictionary_id(packed))
        .collect();
    let from = with
        .iter()
        .position(|d| *d == Some(second))
        .expect("bodies packed with the second dictionary");
    assert!(
        with[from..].iter().all(|d| *d == Some(second)),
        "every body after the second dictionary packed with it: {with:?}"
    );
    assert!(
        with[..from]
            .iter()
            .all(|d| d.is_some() && *d != Some(second)),
        "the bodies before it packed with the first: {with:?}"
    );
}

/// The meta's dictionaries by migration (`kept`) name `second`, and no other.
fn names_only(kept: &str, second: u32) {
    assert_eq!(
        dictionaries_by_migration(Some(kept))
            .into_values()
            .collect::<Vec<_>>(),
        vec![second],
        "{kept}"
    );
}

/// Every body the index at `location` opens, by update id.
pub(crate) fn opened(location: &Location) -> BTreeMap<String, String> {
    let mut store = store::open_reader(location).expect("index opens");
    let ids: Vec<String> = store
        .digests()
        .expect("digests")
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    ids.into_iter()
        .map(|id| {
            let body = store.body(&id).expect("read").expect("a body");
            (id, body)
        })
        .collect()
}

/// Every update the scan serves, by id, as JSON.
pub(crate) fn served(dir: &Path, url: &str) -> BTreeMap<String, Value> {
    history_from(dir, url, "2000-01-01T00:00:00Z")
        .into_iter()
        .map(|u| (u["update_id"].as_str().expect("an id").to_owned(), u))
        .collect()
}

/// Each opened body is the scan's update of its id.
pub(crate) fn as_served(opened: &BTreeMap<String, String>, served: &BTreeMap<String, Value>) {
    assert!(!opened.is_empty());
    for (id, body) in opened {
        let served = served.get(id).expect("the scan serves it");
        assert_eq!(
            serde_json::from_str::<Value>(body).expect("JSON"),
            *served,
            "{id}"
        );
    }
}

#[test]
fn an_index_of_schema_13_keeps_its_bodies_as_served_and_names_the_ids_of_the_next() {
    let (url, dir, index, shown) = sqlite_synced();
    let location = Location::Sqlite(index.clone());
    let fresh = sqlite_bodies(&index);
    assert!(
        fresh.values().all(|(named, _)| *named),
        "every body of a new index names its id"
    );
    let dictionary: Vec<u8> = rusqlite::Connection::open(&index)
        .expect("opens")
        .query_row("SELECT dictionary FROM dictionaries", [], |r| r.get(0))
        .expect("one dictionary");
    assert!(trained_on_named(&dictionary), "trained on bodies as kept");
    let bodies = opened(&location);
    as_served(&bodies, &served(dir.path(), url));
    let words = vec![
        "is:transfer".to_owned(),
        "template:Splice.Amulet:Amulet".to_owned(),
    ];
    let before = answers(dir.path(), &shown, &words);
    sqlite_to_schema_13(&index);
    let older = sqlite_bodies(&index);
    assert!(older.values().all(|(named, _)| !named), "as served");
    sqlite_migrates(
        dir.path(),
        url,
        &shown,
        13,
        (&words[0], "1", "name their own update id by one byte"),
    );
    // No body rewritten; each opens as before, the search answers the same.
    let migrated = sqlite_bodies(&index);
    for (id, kept) in &older {
        assert_eq!(migrated.get(id), Some(kept), "{id} kept as it was");
    }
    let after = opened(&location);
    for (id, body) in &bodies {
        assert_eq!(after.get(id), Some(body), "{id}");
    }
    assert_eq!(answers(dir.path(), &shown, &words), before);
    // A later sync (past the hour) writes its updates named; every body opens as served.
    let (code, _, err) = sync(dir.path(), url, &shown, &["--verify", "1"]);
    assert_eq!(code, 0, "{err}");
    let later = sqlite_bodies(&index);
    let new: Vec<&String> = later.keys().filter(|id| !older.contains_key(*id)).collect();
    assert!(!new.is_empty(), "the sync wrote the updates past the hour");
    for id in &new {
        assert!(later[*id].0, "{id}: named");
    }
    // Its dictionary was trained on bodies as served: the sync trained a second one on bodies
    // as kept once it had enough of them, and packed the bodies after with it.
    let conn = rusqlite::Connection::open(&index).expect("opens");
    let (dictionaries, rows, _) = sqlite_rows(&conn);
    let second = second_dictionary(&dictionaries);
    let written: Vec<(i64, Vec<u8>)> = rows
        .into_iter()
        .filter(|(_, id, _)| !older.contains_key(id))
        .map(|(seq, _, packed)| (seq, packed))
        .collect();
    packed_with_the_second_once_trained(written, second);
    let kept: String = conn
        .query_row(
            "SELECT value FROM meta WHERE key = ?1",
            [DICTIONARIES_KEY],
            |r| r.get(0),
        )
        .expect("the second dictionary kept as its migration's");
    names_only(&kept, second);
    for (id, kept) in &older {
        assert_eq!(later.get(id), Some(kept), "{id} kept as it was");
    }
    as_served(&opened(&location), &served(dir.path(), url));
}

/// A PostgreSQL index's body dictionaries.
fn pg_dictionaries(pg: &mut postgres::Client) -> Vec<Vec<u8>> {
    pg.query("SELECT dictionary FROM dictionaries", &[])
        .expect("dictionaries")
        .iter()
        .map(|r| r.get(0))
        .collect()
}

#[test]
fn a_postgres_index_of_schema_14_keeps_its_bodies_as_served_and_is_migrated() {
    let Some((db, _server, url, dir)) = postgres_synced("schema14_bodies", "1") else {
        return;
    };
    let mut pg = postgres::Client::connect(&db.url, postgres::NoTls).expect("connects");
    let dictionaries = pg_dictionaries(&mut pg);
    let rows: Vec<(i64, String, Vec<u8>)> = pg
        .query("SELECT seq, update_id, body FROM updates", &[])
        .expect("bodies")
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert!(!rows.is_empty());
    assert!(
        dictionaries.len() == 1 && trained_on_named(&dictionaries[0]),
        "one dictionary, trained on bodies as kept"
    );
    let bodies = opened(&db.location());
    as_served(&bodies, &served(dir.path(), url));
    let texts: Vec<String> = rows
        .iter()
        .map(|(_, id, packed)| {
            assert!(
                named(id, &unpacked(packed, &dictionaries, &HashMap::new())),
                "{id}: a new database's body names its id"
            );
            served_text(packed, id, &dictionaries, &HashMap::new())
        })
        .collect();
    let dictionary = trained_as_served(&texts);
    pg.execute("DELETE FROM dictionaries", &[])
        .expect("emptied");
    pg.execute(
        "INSERT INTO dictionaries (id, added_at, dictionary) VALUES ($1, 1, $2)",
        &[
            &i64::from(dictionary_id(&dictionary).expect("an id")),
            &dictionary,
        ],
    )
    .expect("kept");
    for ((seq, _, _), text) in rows.iter().zip(&texts) {
        pg.execute(
            "UPDATE updates SET body = $1 WHERE seq = $2",
            &[&packed_as_served(text.as_bytes(), Some(&dictionary)), seq],
        )
        .expect("repacked");
    }
    pg.execute(
        "UPDATE meta SET value = '14' WHERE key = 'schema_version'",
        &[],
    )
    .expect("schema 14");
    postgres_migrates(dir.path(), url, &db, 14);
    // The bodies kept as served open as before; a later sync's (past the hour) are named.
    let (code, _, err) = sync(dir.path(), url, &db.url, &["--verify", "1"]);
    assert_eq!(code, 0, "{err}");
    let after = opened(&db.location());
    for (id, body) in &bodies {
        assert_eq!(after.get(id), Some(body), "{id}");
    }
    let kept: Vec<String> = rows.iter().map(|(_, id, _)| id.clone()).collect();
    let new: Vec<(i64, String, Vec<u8>)> = pg
        .query(
            "SELECT seq, update_id, body FROM updates WHERE NOT update_id = ANY($1)",
            &[&kept],
        )
        .expect("bodies")
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert!(!new.is_empty(), "the sync wrote the updates past the hour");
    let dictionaries = pg_dictionaries(&mut pg);
    for (_, id, packed) in &new {
        assert!(
            named(id, &unpacked(packed, &dictionaries, &HashMap::new())),
            "{id}: named"
        );
    }
    let second = second_dictionary(&dictionaries);
    packed_with_the_second_once_trained(
        new.into_iter()
            .map(|(seq, _, packed)| (seq, packed))
            .collect(),
        second,
    );
    let kept: String = pg
        .query_one(
            "SELECT value FROM meta WHERE key = $1",
            &[&DICTIONARIES_KEY],
        )
        .expect("the second dictionary kept as its migration's")
        .get(0);
    names_only(&kept, second);
    as_served(&after, &served(dir.path(), url));
}
