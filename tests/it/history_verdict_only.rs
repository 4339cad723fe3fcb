//! History over the local index lists the events with a verdict and no update (issue 37 §1):
//! the demo's rejected confirmation requests and some wholly private transactions are served
//! by `/v0/events` only, and the index keeps them. Listed among the updates in record-time
//! order as `rejected (verdict only)` (or `accepted …`) with their round and mediator group and
//! the parties that submitted them; Enter shows the kept verdict and why there is no
//! transaction, never an error about a missing body. Driven through the real app with
//! `--offline` over an index synced from the demo by the real binary.

use std::path::Path;

use cantonscope::msg::PaneId;
use cantonscope::store::KeptVerdictEvent;
use crossterm::event::KeyCode;

use crate::common::{Harness, Options, clear_input, stable, toast};
use crate::index_explorer::{kept_in_time_order, range, sync_index_from};

/// The explorer, `--offline`, on an index holding the demo's whole history, the demo stopped.
pub(crate) fn offline_on_the_whole_index(dir: &Path) -> Harness {
    let dir = dir.to_owned();
    let mut h = Harness::start_with(Options {
        prepare: Box::new(move |demo, _now, settings| {
            let path = sync_index_from(&dir, &demo.scan_url, "begin");
            settings.index = Some(path.display().to_string());
            settings.offline = true;
        }),
        ..Options::default()
    });
    h.stop_demo();
    h
}

/// The events with a verdict and no update the index keeps, newest first.
pub(crate) fn verdict_only_kept(h: &Harness) -> Vec<KeptVerdictEvent> {
    let location =
        cantonscope::store::Location::parse(h.app.sh.ctx.index.as_deref().expect("index"));
    let mut reader = cantonscope::store::open_reader(&location).expect("reader");
    reader
        .verdict_events(None, None)
        .expect("verdict-only events")
}

/// The screen's lines holding `what`.
fn lines_with(s: &str, what: &str) -> Vec<String> {
    s.lines()
        .filter(|l| l.contains(what))
        .map(str::to_owned)
        .collect()
}

#[test]
fn history_over_the_index_lists_a_rejected_request_and_enter_shows_its_kept_verdict() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = offline_on_the_whole_index(dir.path());
    let loaded_first = h.app.sh.history.first().expect("loaded rows").record_time();
    let kept = verdict_only_kept(&h);
    // The newest rejected request before the loaded rows.
    let rejected = kept
        .iter()
        .find(|e| {
            e.verdict_result.as_deref() == Some("rejected") && e.at.record_time < loaded_first
        })
        .expect("a rejected request before the loaded rows")
        .clone();
    let list = kept_in_time_order(&h);
    assert!(
        list.len() > kept.len(),
        "the updates and the verdict-only events"
    );
    let at = list
        .iter()
        .position(|(_, id)| *id == rejected.update_id)
        .expect("in the list");

    // `:time` at its record time: the whole index, the selection on it.
    h.palette(&format!(
        "time {}",
        cantonscope::model::format::format_time_micros(rejected.at.record_time)
    ));
    let r = range(&h);
    assert_eq!(
        r.total(),
        Some(list.len() as u64),
        "the list counts the updates and the verdict-only events"
    );
    assert_eq!(r.cursor(), at, "at its place in record-time order");
    let row = r.selected().expect("a row read").clone();
    assert_eq!(row.update_id, rejected.update_id);
    assert_eq!(row.kind, "verdict only");
    let round = rejected.round_number.expect("a round");
    let group = rejected.mediator_group.expect("a mediator group");
    assert_eq!(
        row.summary,
        format!("rejected (verdict only) · round {round} · mediator group {group}")
    );
    let submitters = row.parties.clone();
    assert!(!submitters.is_empty(), "its submitting parties");
    // The rows around it are the list's, in order: the one above and below.
    h.key(KeyCode::Up);
    assert_eq!(
        range(&h).selected().map(|r| r.update_id.clone()),
        Some(list[at - 1].1.clone())
    );
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    assert_eq!(
        range(&h).selected().map(|r| r.update_id.clone()),
        Some(list[at + 1].1.clone())
    );
    h.key(KeyCode::Up);
    assert_eq!(
        range(&h).selected().map(|r| r.update_id.as_str()),
        Some(rejected.update_id.as_str())
    );

    // Drawn: its kind, its summary, its submitter by name.
    let s = h.screen(200, 30);
    // The title counts the verdict-only rows apart from the updates.
    let verdict_only = list
        .iter()
        .filter(|(_, id)| kept.iter().any(|e| e.update_id == *id))
        .count();
    assert!(verdict_only > 0);
    let group = cantonscope::model::format::group_thousands;
    let counted = format!(
        "{} updates · {} verdict only (local index)",
        group(list.len() - verdict_only),
        group(verdict_only)
    );
    assert!(
        s.lines().next().is_some_and(|l| l.contains(&counted)) || s.contains(&counted),
        "{counted} in\n{s}"
    );
    let drawn = lines_with(&s, "rejected (verdict only)");
    assert!(!drawn.is_empty(), "{s}");
    let name = submitters[0].split("::").next().unwrap_or_default();
    assert!(
        drawn
            .iter()
            .any(|l| l.contains("verdict only") && l.contains(name)),
        "{name}: {drawn:?}"
    );
    crate::common::assert_snapshot!(
        "history_verdict_only_row_120x16",
        crate::index_explorer::screen(&mut h, 120, 16)
    );

    // Enter: the kept verdict, and why there is no transaction; no error about a body.
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Verdict);
    assert_eq!(h.app.verdict.update_id(), Some(rejected.update_id.as_str()));
    assert!(h.app.verdict.verdict().is_some());
    let origin = h.app.verdict.kept_origin().expect("read from the index");
    assert!(origin.events_synced, "{origin:?}");
    let s = h.screen(120, 40);
    assert!(s.contains("REJECTED"), "{s}");
    assert!(s.contains("kept in the index, confirmed by"), "{s}");
    assert!(
        s.contains("No transaction in the update history: the mediator rejected"),
        "{s}"
    );
    assert!(
        h.app.update_pane.error().is_none(),
        "{:?}",
        h.app.update_pane.error()
    );
    let summary = stable(&s)
        .lines()
        .skip(2)
        .take(5)
        .collect::<Vec<_>>()
        .join("\n");
    crate::common::assert_snapshot!("verdict_only_kept_offline_summary", summary);
    // The Update pane says the same, without an error.
    h.key(KeyCode::Char('2'));
    assert_eq!(h.app.focus, PaneId::Update);
    let s = h.screen(120, 40);
    assert!(s.contains("No transaction in the update history"), "{s}");
    assert!(!s.contains("could not load"), "{s}");
}

#[test]
fn an_accepted_verdict_without_an_update_reads_as_a_private_transaction() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = offline_on_the_whole_index(dir.path());
    let loaded_first = h.app.sh.history.first().expect("loaded rows").record_time();
    let private = verdict_only_kept(&h)
        .into_iter()
        .find(|e| {
            e.verdict_result.as_deref() == Some("accepted") && e.at.record_time < loaded_first
        })
        .expect("a wholly private transaction's verdict before the loaded rows");
    h.palette(&format!(
        "time {}",
        cantonscope::model::format::format_time_micros(private.at.record_time)
    ));
    let row = range(&h).selected().expect("a row read").clone();
    assert_eq!(row.update_id, private.update_id);
    assert!(
        row.summary.starts_with("accepted (verdict only) · round "),
        "{}",
        row.summary
    );
    // `/` on the mixed list is the whole-history search: `is:` terms count what the index's
    // own search counts; Esc comes back to the list, on the same row.
    let location =
        cantonscope::store::Location::parse(h.app.sh.ctx.index.as_deref().expect("index"));
    let transfers = cantonscope::store::open_reader(&location)
        .expect("reader")
        .count(
            &cantonscope::model::index::query::Query::parse(&["is:transfer".to_owned()])
                .expect("a query"),
            None,
            None,
        )
        .expect("count");
    assert!(transfers > 0);
    h.key(KeyCode::Char('/'));
    clear_input(&mut h);
    h.type_text("is:transfer");
    h.key(KeyCode::Enter);
    let total = h
        .app
        .history
        .index_search()
        .and_then(cantonscope::panes::history::IndexSearch::total);
    assert_eq!(total, Some(transfers), "{}", toast(&h));
    h.key(KeyCode::Esc);
    assert_eq!(
        range(&h).selected().map(|r| r.update_id.as_str()),
        Some(private.update_id.as_str())
    );
    h.key(KeyCode::Enter);
    assert_eq!(h.app.focus, PaneId::Verdict);
    let s = h.screen(120, 40);
    assert!(s.contains("ACCEPTED"), "{s}");
    assert!(s.contains("a wholly private transaction"), "{s}");
}
