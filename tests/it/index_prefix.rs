//! Pages of a contract-id prefix over the whole index (issue 19): the prefix's contracts'
//! updates merged newest first from each contract's newest update, which the index keeps with
//! the term (schema 6), so a page of hundreds of contracts reads only the contracts that reach
//! it. Run as the real binary over real HTTP against the demo: every page equals the updates
//! whose events name a matching contract, newest first, alone and with other terms, and so it
//! does after the migration of an index of schema 5 (which kept no newest update per term).

use std::path::Path;

use cantonscope::api::scan::UpdateItem;
use cantonscope::model::format::{format_time_micros, parse_time_micros};
use cantonscope::model::index::query::{Query, Term};
use cantonscope::model::index::{KeyKind, keys_of};
use serde_json::Value;

use crate::index::{count_all, four, from, history, index_args, run, status, sync, temp, text};

/// `index search WORDS --limit LIMIT` over the whole index: the update ids, newest first.
fn search(dir: &Path, index: &Path, words: &[&str], limit: usize) -> Vec<String> {
    crate::index::search_ids(dir, index, words, &["--limit", &limit.to_string()])
}

/// The two 4-character prefixes of the index's contract ids that the most contracts share,
/// and the 8 characters of the contract in the most updates.
pub(crate) fn prefixes(index: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(index).expect("opens");
    let code = KeyKind::Contract.code();
    let mut out: Vec<String> = conn
        .prepare(
            "SELECT substr((CASE WHEN typeof(value) = 'blob' THEN lower(hex(value)) ELSE value END), 1, 4) p FROM terms WHERE kind = ?1
             GROUP BY p ORDER BY count(*) DESC, p LIMIT 2",
        )
        .expect("prefixes")
        .query_map([code], |r| r.get(0))
        .expect("prefixes")
        .collect::<Result<_, _>>()
        .expect("prefixes");
    let busy: String = conn
        .query_row(
            "SELECT substr((CASE WHEN typeof(value) = 'blob' THEN lower(hex(value)) ELSE value END), 1, 8) FROM terms WHERE kind = ?1 ORDER BY n DESC, value LIMIT 1",
            [code],
            |r| r.get(0),
        )
        .expect("a contract");
    out.push(busy);
    out
}

#[test]
fn contract_prefix_pages_are_the_newest_updates_naming_the_contracts_before_and_after_the_migration()
 {
    let demo = four();
    let (dir, index) = temp();
    let url = &demo.handle.scan_url;
    // An hour of the history, so the index and the expected pages stay as they are.
    let until = parse_time_micros(from()).expect("a time") + 3_600_000_000;
    let (code, _, err) = sync(
        dir.path(),
        url,
        &index,
        &[
            "--from",
            from(),
            "--until",
            &format_time_micros(until),
            "--verify",
            "1",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let lines: Vec<Value> = history(dir.path(), url)
        .into_iter()
        .filter(|l| {
            l["record_time"]
                .as_str()
                .and_then(parse_time_micros)
                .is_some_and(|t| t < until)
        })
        .collect();
    let keys: Vec<(String, Vec<(KeyKind, String)>)> = lines
        .iter()
        .rev()
        .map(|l| {
            let item: UpdateItem = serde_json::from_value(l.clone()).expect("an item");
            (
                l["update_id"].as_str().expect("id").to_owned(),
                keys_of(&item),
            )
        })
        .collect();
    let prefixes = prefixes(&index);
    let party = "party:".to_owned()
        + lines[0]["events_by_id"]
            .as_object()
            .and_then(|e| e.values().find_map(|e| e["signatories"][0].as_str()))
            .unwrap_or("DSO::0");
    let mut queries: Vec<Vec<String>> = prefixes
        .iter()
        .map(|p| vec![format!("contract:{p}")])
        .collect();
    queries.push(vec![format!("contract:1220{}", prefixes[0])]);
    queries.push(vec![format!("contract:{}", prefixes[0]), party.clone()]);
    queries.push(vec![
        format!("contract:{}", prefixes[1]),
        "choice:AmuletRules_Transfer".to_owned(),
    ]);
    let check = |when: &str| {
        for words in &queries {
            let q = Query::parse(words).expect("a query");
            let expected: Vec<&str> = keys
                .iter()
                .filter(|(_, k)| {
                    q.terms.iter().all(|t| match t {
                        Term::Exact(kind, v) => k.iter().any(|(kk, kv)| kk == kind && kv == v),
                        _ => k
                            .iter()
                            .any(|(kk, kv)| *kk == KeyKind::Contract && t.prefix_matches(kv)),
                    })
                })
                .map(|(id, _)| id.as_str())
                .collect();
            assert!(
                words.len() > 1 || expected.len() > 3,
                "{words:?} matches {} updates",
                expected.len()
            );
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            for limit in [1, 3, 100, 100_000] {
                let got = search(dir.path(), &index, &words, limit);
                let want: Vec<&str> = expected.iter().take(limit).copied().collect();
                assert_eq!(got, want, "{words:?}, {limit} rows, {when}");
            }
            // The count: a prefix alone takes its contracts of one update from their terms.
            assert_eq!(
                count_all(dir.path(), &index, &words),
                expected.len() as u64,
                "{words:?}, count, {when}"
            );
        }
    };
    // The first prefix stands for contracts of one update and of several, so its count takes
    // some from their terms and reads the others' keys.
    let q = Query::parse(&queries[0]).expect("a query");
    let mut per_contract: std::collections::HashMap<&str, usize> = Default::default();
    for (_, k) in &keys {
        let mut named: Vec<&str> = k
            .iter()
            .filter(|(kk, kv)| *kk == KeyKind::Contract && q.terms[0].prefix_matches(kv))
            .map(|(_, kv)| kv.as_str())
            .collect();
        named.sort_unstable();
        named.dedup();
        for c in named {
            *per_contract.entry(c).or_default() += 1;
        }
    }
    assert!(
        per_contract.values().any(|&n| n == 1) && per_contract.values().any(|&n| n > 1),
        "{:?}: {per_contract:?}",
        queries[0]
    );
    check("after the sync");

    // An index of schema 5 (no newest update per term): refused by readers, migrated by the
    // next sync, which reads each term's newest update from its keys.
    {
        let conn = rusqlite::Connection::open(&index).expect("opens");
        crate::common::migrated::times_from_1970(&conn);
        conn.execute_batch(
            "ALTER TABLE terms DROP COLUMN last_migration;
             ALTER TABLE terms DROP COLUMN last_time;
             ALTER TABLE terms DROP COLUMN last_seq;
             UPDATE meta SET value = '5' WHERE key = 'schema_version';",
        )
        .expect("schema 5");
    }
    let mut args = index_args(&index, "search");
    args.push(&queries[0][0]);
    let output = run(dir.path(), url, &args);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("older cantonscope (schema 5)"));
    let (code, _, err) = sync(
        dir.path(),
        url,
        &index,
        &["--until", &format_time_micros(until), "--verify", "1"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("migrated the index from schema 5 to schema 21")
            && err.contains("each term's newest update"),
        "{err}"
    );
    assert_eq!(status(dir.path(), &index)["schema_version"], 21);
    check("after the migration from 5");
}
