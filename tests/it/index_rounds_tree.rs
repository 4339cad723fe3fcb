//! `index rounds --tree` (issue 37 §2), run as the real binary over real HTTP: each round's
//! reward tree walked on every scan serving a root hash, every batch's hash recomputed, its
//! leaves against the index's kept app activity and the scan's own totals. On a healthy demo
//! every tree verifies (the older scan serves none); with `--diverging-rewards` the diverging
//! scan's tree differs at a batch (exit 5, the scan named); an index lacking a rewarded
//! provider's activity says which provider.

use serde_json::Value;

use crate::index::{four, run, sync, temp, text};
use crate::index_rounds::{copy, demo, name_of, rounds, synced};

/// The rounds of `doc` with a `trees` array (a root hash served by some scan).
fn walked(doc: &Value) -> Vec<Value> {
    doc["rounds"]
        .as_array()
        .expect("rounds")
        .iter()
        .filter(|r| r["trees"].is_array())
        .cloned()
        .collect()
}

fn tree_of<'a>(round: &'a Value, scan: &str) -> &'a Value {
    round["trees"]
        .as_array()
        .expect("trees")
        .iter()
        .find(|t| t["scan"] == scan)
        .unwrap_or_else(|| panic!("{scan} in {round}"))
}

#[test]
fn every_tree_verifies_on_a_healthy_demo_and_the_older_scan_serves_none() {
    let d = four();
    let url = &d.handle.scan_url;
    let (dir, index) = temp();
    let from = cantonscope::model::format::format_time_micros(
        chrono::Utc::now().timestamp_micros() - 70 * 60_000_000,
    );
    let (code, _, err) = sync(dir.path(), url, &index, &["--from", &from, "--verify", "2"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = rounds(dir.path(), url, &index, &["--tree"]);
    assert_eq!(code, 0, "{err}\n{out}");
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(doc["differing_trees"], serde_json::json!([]), "{doc}");
    let trees = walked(&doc);
    assert!(trees.len() >= 3, "{} rounds walked: {doc}", trees.len());
    let mut compared = 0;
    for r in &trees {
        assert_eq!(r["tree_verdict"], "verified on 3 · not served on 1", "{r}");
        assert_eq!(r["check"], "agree", "{r}");
        for t in r["trees"].as_array().expect("trees") {
            if t["outcome"] == "not_served" {
                assert_eq!(t["root_state"], "not implemented (501)", "{t}");
                continue;
            }
            let n = t["batches"].as_u64().expect("batches");
            assert!(n > 0, "{t}");
            let word = if n == 1 { "batch" } else { "batches" };
            assert_eq!(t["result"], format!("verified ({n} {word})"), "{t}");
            assert_eq!(t["leaves"]["sum_fits"], true, "{t}");
            assert_eq!(t["leaves"]["count_fits"], true, "{t}");
            // A whole round's providers are compared with the index's; the first (partial)
            // round's only with the scan's own sums.
            let want = if r["whole"] == true {
                compared += 1;
                "agree"
            } else {
                "not compared"
            };
            assert_eq!(t["leaves"]["result"], want, "{t}");
        }
    }
    assert!(compared > 0, "a whole round compared: {doc}");
    // The same walk as `scan reward-round N` on one scan.
    let round = trees[0]["round"].as_i64().expect("a round").to_string();
    let single = run(
        dir.path(),
        url,
        &["--output", "json", "scan", "reward-round", &round],
    );
    assert_eq!(single.status.code(), Some(0), "{}", text(&single.stderr));
    let single: Value = serde_json::from_slice(&single.stdout).expect("JSON");
    assert_eq!(single["verdict"], "verified");
    let own = tree_of(
        &trees[0],
        trees[0]["trees"][0]["scan"].as_str().expect("a scan"),
    );
    assert_eq!(
        single["batches"].as_array().expect("batches").len() as u64,
        own["batches"].as_u64().expect("batches"),
        "{single}\n{own}"
    );
    assert_eq!(single["root_hash"]["root_hash"], own["root_hash"]);
}

#[test]
fn the_diverging_scans_tree_differs_at_a_batch_and_is_named() {
    let d = demo();
    let (dir, index) = synced();
    let url = &d.handle.scan_url;
    let honest = name_of(dir.path(), &d.handle.scan_urls[0]);
    let diverging = name_of(dir.path(), &d.handle.scan_urls[1]);
    let older = name_of(dir.path(), &d.handle.scan_urls[2]);
    let first = first_round_with_records(dir.path(), url, index);
    // From before the scans serve a root hash (cannot provide) into rounds they serve.
    let (from, until) = (first.to_string(), (first + 5).to_string());
    let (code, out, err) = rounds(
        dir.path(),
        url,
        index,
        &["--tree", "--from", &from, "--until", &until],
    );
    assert_eq!(code, 5, "{err}\n{out}");
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        doc["differing_trees"],
        serde_json::json!([diverging]),
        "{doc}"
    );
    assert!(
        err.contains("the reward tree differs") && err.contains(&diverging),
        "{err}"
    );
    let rows = doc["rounds"].as_array().expect("rounds");
    assert!(
        rows.iter()
            .any(|r| r["tree"] == "no scan serves a root hash"),
        "{doc}"
    );
    let trees = walked(&doc);
    assert!(trees.len() >= 3, "{doc}");
    for r in &trees {
        let h = tree_of(r, &honest);
        assert_eq!(h["outcome"], "verified", "{h}");
        assert_eq!(h["leaves"]["result"], "agree", "{h}");
        let dv = tree_of(r, &diverging);
        assert_eq!(dv["outcome"], "differs", "{dv}");
        let at = dv["differs_at"].as_str().expect("the batch");
        assert_eq!(dv["result"], format!("differs at batch {at}"));
        // The batch is one of the tree's (the root, or a leaf under it), served under the
        // honest hash: the honest scan's root is the diverging scan's too.
        assert_eq!(dv["root_hash"], h["root_hash"], "{r}");
        assert_eq!(dv["leaves"]["sum_fits"], false, "{dv}");
        assert_eq!(tree_of(r, &older)["outcome"], "not_served");
        assert_eq!(r["check"], "divergence", "{r}");
        let line = r["tree"].as_str().expect("the tree's line");
        assert!(line.contains(&format!("{honest} verified (")), "{line}");
        assert!(
            line.contains(&format!("{diverging} differs at batch ")),
            "{line}"
        );
        assert!(
            line.contains(&format!("{older} not served: not implemented (501)")),
            "{line}"
        );
    }
    // The table has the tree's column.
    let mut args = vec!["--output", "table"];
    let index_text = index.to_str().expect("utf-8");
    args.extend(["index", "--index", index_text, "rounds", "--tree"]);
    args.extend(["--from", &from, "--until", &until, "--request-rate", "1000"]);
    let table = text(&run(dir.path(), url, &args).stdout);
    assert!(
        table.contains("TREE") && table.contains("differing trees"),
        "{table}"
    );
}

#[test]
fn a_rewarded_provider_without_kept_activity_is_named() {
    let d = demo();
    let (dir, index) = copy();
    let url = &d.handle.scan_url;
    let honest = name_of(dir.path(), &d.handle.scan_urls[0]);
    // A whole round the scans serve, with a provider in its tree.
    let first = first_round_with_records(dir.path(), url, &index);
    let n = (first + 4).to_string();
    let (_, out, err) = rounds(
        dir.path(),
        url,
        &index,
        &["--tree", "--from", &n, "--until", &n],
    );
    let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    let round = &walked(&doc)[0];
    assert_eq!(
        tree_of(round, &honest)["leaves"]["result"],
        "agree",
        "{round}"
    );
    // The honest tree's first provider: its activity in the round taken out of the index.
    let single = run(
        dir.path(),
        url,
        &["--output", "json", "scan", "reward-round", &n],
    );
    let single: Value = serde_json::from_slice(&single.stdout).expect("JSON");
    let root = single["root_hash"]["root_hash"].as_str().expect("a root");
    let provider = first_provider(url, &n, root);
    let conn = rusqlite::Connection::open(&index).expect("opens");
    let removed = conn
        .execute(
            "DELETE FROM round_parties WHERE round_number = ?1 AND party = ?2",
            rusqlite::params![first + 4, provider],
        )
        .expect("deleted");
    assert_eq!(removed, 1);
    drop(conn);
    let (code, out, err) = rounds(
        dir.path(),
        url,
        &index,
        &["--tree", "--from", &n, "--until", &n],
    );
    assert_eq!(code, 5, "{err}\n{out}");
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    let h = tree_of(&walked(&doc)[0], &honest).clone();
    assert_eq!(h["outcome"], "verified", "{h}");
    assert_eq!(h["leaves"]["result"], "differ", "{h}");
    assert_eq!(
        h["leaves"]["without_activity"],
        serde_json::json!([provider]),
        "{h}"
    );
    assert!(
        h["leaves"]["said"]
            .as_str()
            .expect("said")
            .contains(&format!("1 without kept activity ({provider})")),
        "{h}"
    );
}

/// The first provider of round `n`'s tree under `root` on the scan at `url` (the first leaf
/// reached breadth first).
/// The oldest round of the index with app activity records (its figures alone, no scan asked).
fn first_round_with_records(dir: &std::path::Path, url: &str, index: &std::path::Path) -> i64 {
    let (_, all, _) = rounds(dir, url, index, &["--no-scans"]);
    let all: Value = serde_json::from_str(&all).expect("JSON");
    all["rounds"]
        .as_array()
        .expect("rounds")
        .iter()
        .find(|r| r["records"] != 0)
        .and_then(|r| r["round"].as_i64())
        .expect("a round with records")
}

fn first_provider(url: &str, n: &str, root: &str) -> String {
    let rt = crate::common::bin::runtime();
    rt.block_on(async {
        let mut hash = root.to_owned();
        loop {
            let batch = crate::common::http::get(&format!(
                "{url}/api/scan/v0/internal/reward-accounting-process/rounds/{n}/batches/{hash}"
            ))
            .await
            .1;
            if let Some(list) = batch["minting_allowances"].as_array() {
                return list[0]["provider"].as_str().expect("a provider").to_owned();
            }
            batch["child_hashes"][0]
                .as_str()
                .expect("a child")
                .clone_into(&mut hash);
        }
    })
}
