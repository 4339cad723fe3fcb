//! The explorer's whole-index search (`F`) finds the events with a verdict and no update the
//! index keeps (issue 37 §1: a rejected request, a wholly private transaction), as `index
//! search` does: merged with the updates that match, newest first, counted in the total, read
//! a page at a time with each row once; Enter on one opens its kept verdict. Driven through the
//! real app with `--offline` over an index synced from the demo by the real binary.

use std::collections::BTreeSet;

use cantonscope::model::format::parse_time_micros;
use cantonscope::model::index::query::Query;
use cantonscope::msg::PaneId;
use cantonscope::panes::history::IndexSearch;
use crossterm::event::KeyCode;

use crate::common::bin::bin;
use crate::common::{Harness, clear_input, toast};
use crate::history_verdict_only::{offline_on_the_whole_index, verdict_only_kept};

/// `F`, `text`, Enter; then End until every match is read.
fn search_all(h: &mut Harness, text: &str) -> (u64, Vec<(String, String, String)>) {
    h.key(KeyCode::Char('F'));
    clear_input(h);
    h.type_text(text);
    h.key(KeyCode::Enter);
    let total = h
        .app
        .history
        .index_search()
        .and_then(IndexSearch::total)
        .unwrap_or_else(|| panic!("counted: {}", toast(h)));
    for _ in 0..200 {
        let read = h.app.history.index_search().expect("search").rows().len();
        if read as u64 >= total {
            break;
        }
        h.key(KeyCode::End);
    }
    let rows = h
        .app
        .history
        .index_search()
        .expect("search")
        .rows()
        .iter()
        .map(|r| (r.update_id.clone(), r.record_time.clone(), r.kind.clone()))
        .collect();
    (total, rows)
}

/// The update ids the index's own update search finds for `text` (every one).
fn updates_found(h: &Harness, text: &str) -> Vec<String> {
    let location =
        cantonscope::store::Location::parse(h.app.sh.ctx.index.as_deref().expect("index"));
    let mut reader = cantonscope::store::open_reader(&location).expect("reader");
    let query = Query::parse(&[text.to_owned()]).expect("a query");
    reader
        .search(&query, None, None, usize::MAX)
        .expect("search")
        .into_iter()
        .map(|r| r.update_id)
        .collect()
}

#[test]
fn f_finds_the_verdict_only_rejections_and_pages_the_merged_list_once_each() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = offline_on_the_whole_index(dir.path());
    let kept = verdict_only_kept(&h);
    let with = |result: &str| -> BTreeSet<String> {
        kept.iter()
            .filter(|e| e.verdict_result.as_deref() == Some(result))
            .map(|e| e.update_id.clone())
            .collect()
    };
    let rejected = with("rejected");
    assert!(!rejected.is_empty(), "the demo rejects some requests");

    // `verdict:rejected`: the rejections kept as events of their own, and any update whose
    // kept verdict is a rejection.
    let (total, rows) = search_all(&mut h, "verdict:rejected");
    let mut expected: BTreeSet<String> =
        updates_found(&h, "verdict:rejected").into_iter().collect();
    expected.extend(rejected.iter().cloned());
    assert_eq!(total, expected.len() as u64, "{}", toast(&h));
    let listed: BTreeSet<String> = rows.iter().map(|r| r.0.clone()).collect();
    assert_eq!(listed, expected);
    assert_eq!(rows.len(), listed.len(), "each once");
    assert!(
        rows.iter()
            .filter(|r| rejected.contains(&r.0))
            .all(|r| r.2 == "verdict only"),
        "{rows:?}"
    );
    let times: Vec<i64> = rows
        .iter()
        .map(|r| parse_time_micros(&r.1).expect("a time"))
        .collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "newest first");
    // The same rows `index search` prints, in the same order.
    let index = h.app.sh.ctx.index.clone().expect("index");
    let output = bin(dir.path())
        .args(["index", "--index", &index, "search", "verdict:rejected"])
        .args(["--limit", "100000"])
        .output()
        .expect("binary runs");
    assert_eq!(output.status.code(), Some(0));
    let printed: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            v["update_id"].as_str().expect("an id").to_owned()
        })
        .collect();
    let shown: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    assert_eq!(printed, shown);

    // Enter on a rejection: its kept verdict.
    let at = rows
        .iter()
        .position(|r| rejected.contains(&r.0))
        .expect("a rejection listed");
    h.key(KeyCode::Home);
    for _ in 0..at {
        h.key(KeyCode::Down);
    }
    let id = rows[at].0.clone();
    assert_eq!(
        h.app
            .history
            .index_search()
            .and_then(IndexSearch::selected)
            .map(|r| r.update_id.clone()),
        Some(id.clone())
    );
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Verdict);
    assert_eq!(h.app.verdict.update_id(), Some(id.as_str()));
    let s = h.screen(120, 40);
    assert!(s.contains("REJECTED"), "{s}");
    h.key(KeyCode::Esc);
    h.key(KeyCode::Esc);

    // `verdict:accepted`: pages of 200 over thousands of updates with the wholly private
    // transactions' verdicts among them; every row once, the count the rows read.
    let accepted = with("accepted");
    assert!(!accepted.is_empty(), "the demo keeps private transactions");
    let (total, rows) = search_all(&mut h, "verdict:accepted");
    assert!(total > 400, "more than two pages: {total}");
    let mut expected: BTreeSet<String> =
        updates_found(&h, "verdict:accepted").into_iter().collect();
    expected.extend(accepted.iter().cloned());
    assert_eq!(total, expected.len() as u64);
    let listed: BTreeSet<String> = rows.iter().map(|r| r.0.clone()).collect();
    assert_eq!(rows.len(), listed.len(), "each once");
    assert_eq!(listed, expected);
    let times: Vec<i64> = rows
        .iter()
        .map(|r| parse_time_micros(&r.1).expect("a time"))
        .collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "newest first");
}
