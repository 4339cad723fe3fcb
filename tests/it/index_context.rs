//! The context of a whole-history search hit (issue 37 §4): from a result of `F`, `N` lists the
//! updates just before and after it touching the same party (the hit's, the DSO last; or the
//! search's own `party:`/`contract:` term), read from an index synced from the demo by the real
//! binary and driven through the real app; `N` again moves to the next party; Enter opens one;
//! Esc goes back to the results. The rows equal `index search` of that party around the hit.

use std::path::Path;

use cantonscope::panes::PaneId;
use cantonscope::panes::history::CONTEXT_N;
use crossterm::event::KeyCode;

use crate::common::Harness;
use crate::index::{run, text};
use crate::index_explorer::with_index;

/// `index search TERM` over the whole index: the update ids, newest first.
fn searched(dir: &Path, index: &Path, term: &str) -> Vec<String> {
    let output = run(
        dir,
        "http://127.0.0.1:9",
        &[
            "index",
            "--index",
            index.to_str().expect("utf-8"),
            "search",
            term,
            "--limit",
            "1000000",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    text(&output.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).expect("JSON")["update_id"]
                .as_str()
                .expect("id")
                .to_owned()
        })
        .collect()
}

/// The context shown: its term and its update ids (newest first), once read.
fn context_shown(h: &Harness) -> (String, Vec<String>, usize) {
    let c = h
        .app
        .history
        .index_search()
        .and_then(|s| s.context())
        .expect("the context is shown");
    assert!(!c.is_loading());
    assert!(c.error.is_none(), "{:?}", c.error);
    (
        c.term().to_owned(),
        c.rows.iter().map(|r| r.update_id.clone()).collect(),
        c.hit_row,
    )
}

/// What the context of `hit` over `term` must be: the ids of `index search TERM` around it.
fn expected(dir: &Path, index: &Path, term: &str, hit: &str) -> Vec<String> {
    let all = searched(dir, index, term);
    let at = all
        .iter()
        .position(|id| id == hit)
        .expect("the hit matches its party");
    all[at.saturating_sub(CONTEXT_N)..(at + CONTEXT_N + 1).min(all.len())].to_vec()
}

#[test]
fn capital_n_on_a_search_hit_lists_the_updates_around_it_touching_the_same_party() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index(dir.path(), true);
    let index = dir.path().join("index.sqlite");
    h.key(KeyCode::Char('F'));
    h.type_text("choice:AmuletRules_Transfer");
    h.key(KeyCode::Enter);
    for _ in 0..3 {
        h.key(KeyCode::Down);
    }
    let hit = h
        .app
        .history
        .index_search()
        .and_then(|s| s.selected())
        .expect("a hit")
        .clone();
    h.key(KeyCode::Char('N'));
    let (term, rows, hit_row) = context_shown(&h);
    // The hit's first party that is not the DSO (the search names none).
    let first = hit
        .parties
        .iter()
        .find(|p| !p.starts_with("DSO::"))
        .expect("a party besides the DSO");
    assert_eq!(term, format!("party:{first}"));
    assert_eq!(rows[hit_row], hit.update_id);
    let want = expected(dir.path(), &index, &term, &hit.update_id);
    assert_eq!(rows, want, "{term}");
    assert!(rows.len() > 1, "{rows:?}");
    let s = h.screen(120, 40);
    assert!(s.contains("Context · party:"), "{s}");
    assert!(s.contains("before,") && s.contains("after the hit"), "{s}");
    assert!(s.contains("▸"), "{s}");

    // N again: the next party of the hit, its own context.
    h.key(KeyCode::Char('N'));
    let (next, rows, hit_row) = context_shown(&h);
    assert_ne!(next, term);
    assert_eq!(rows[hit_row], hit.update_id);
    assert_eq!(
        rows,
        expected(dir.path(), &index, &next, &hit.update_id),
        "{next}"
    );

    // Enter opens the selected update (the hit); Esc in History goes back to the results.
    h.key(KeyCode::Up);
    let newer = rows.get(hit_row.wrapping_sub(1)).cloned();
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Update);
    assert_eq!(
        h.app.update_pane.update_id().map(str::to_owned),
        newer.or(Some(hit.update_id.clone()))
    );
    h.key(KeyCode::Char('1'));
    h.key(KeyCode::Esc);
    let search = h.app.history.index_search().expect("the results");
    assert!(search.context().is_none());
    assert!(!search.rows().is_empty());
}
