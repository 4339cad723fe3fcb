//! The explorer's Rounds view (issue 37 §2; `M`, `:rounds`), driven through the real app
//! against an index synced from the demo by the real binary (`index sync --verify 1`, events
//! kept): its rows are the index's per-round summary (`IndexReader::rounds`), newest first,
//! the selected round's top providers below; without an index it says how to keep one; `?`
//! lists its key.

use cantonscope::app::Overlay;
use cantonscope::model::index::rounds::RoundSummary;
use cantonscope::ui::rounds::{NO_INDEX_TEXT, RoundsView};
use crossterm::event::KeyCode;

use crate::common::{Harness, stable};
use crate::index_explorer::{screen, with_index};

/// The Rounds view open, if it is.
fn view(h: &Harness) -> Option<&RoundsView> {
    match &h.app.overlay {
        Some(Overlay::Rounds(r)) => Some(r),
        _ => None,
    }
}

/// What `IndexReader::rounds` holds (every round), newest first.
fn kept_rounds(h: &Harness) -> Vec<RoundSummary> {
    let location =
        cantonscope::store::Location::parse(h.app.sh.ctx.index.as_deref().expect("index"));
    let mut reader = cantonscope::store::open_reader(&location).expect("reader");
    let mut rounds = reader.rounds(None, None, None).expect("rounds");
    rounds.reverse();
    rounds
}

#[test]
fn m_lists_the_rounds_of_the_index_newest_first_with_the_selected_rounds_providers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index(dir.path(), false);
    let kept = kept_rounds(&h);
    assert!(kept.len() > 2, "the demo's index holds rounds: {kept:?}");
    assert!(
        kept.iter().any(|r| !r.top_providers.is_empty()),
        "some round has app activity: {kept:?}"
    );
    h.key(KeyCode::Char('M'));
    let v = view(&h).expect("the Rounds view is open");
    assert!(!v.is_loading());
    assert_eq!(v.rounds(), kept.as_slice());
    assert!(v.rounds().windows(2).all(|w| w[0].round > w[1].round));
    assert_eq!(v.selected().map(|r| r.round), Some(kept[0].round));
    // As `index rounds` judges them: the two newest still counting, the index's first round
    // (synced from two hours back, not the ledger's beginning) partial, the others whole.
    let marks: Vec<&str> = kept.iter().map(|r| v.mark(r.round)).collect();
    let last = marks.len() - 1;
    assert_eq!(&marks[..2], ["open", "open"]);
    assert_eq!(marks[last], "partial");
    assert!(marks[2..last].iter().all(|m| m.is_empty()), "{marks:?}");

    // The selected round's detail: its figures and its top providers, on screen.
    let busy = kept
        .iter()
        .position(|r| !r.top_providers.is_empty())
        .expect("a round with providers");
    for _ in 0..busy {
        h.key(KeyCode::Down);
    }
    let r = &kept[busy];
    assert_eq!(view(&h).and_then(|v| v.selected()), Some(r));
    let s = h.screen(120, 40);
    assert!(s.contains(&format!("Round {} ·", r.round)), "{s}");
    let top = &r.top_providers[0];
    let name = top.party.split("::").next().expect("name");
    let line = s
        .lines()
        .find(|l| l.contains(name))
        .unwrap_or_else(|| panic!("{name} in\n{s}"));
    assert!(
        line.contains(&cantonscope::ui::format::group_thousands(top.weight)),
        "{line}"
    );
    // Each round of the list shows its weight.
    for r in kept.iter().take(5) {
        let row = s
            .lines()
            .find(|l| l.contains(&format!("│{:>8} ", r.round)))
            .unwrap_or_else(|| panic!("round {} in\n{s}", r.round));
        assert!(
            row.contains(&cantonscope::ui::format::group_thousands(r.sums.weight)),
            "{row}"
        );
    }

    // End goes to the oldest round the index holds, Home back to the newest.
    h.key(KeyCode::End);
    assert_eq!(view(&h).and_then(|v| v.selected()), kept.last());
    h.key(KeyCode::Home);
    assert_eq!(view(&h).and_then(|v| v.selected()), kept.first());

    // Esc closes it; `:rounds` opens it again, read anew.
    h.key(KeyCode::Esc);
    assert!(view(&h).is_none());
    h.palette("rounds");
    assert_eq!(view(&h).map(RoundsView::rounds), Some(kept.as_slice()));
}

#[test]
fn without_an_index_the_rounds_view_says_how_to_keep_one() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('M'));
    let v = view(&h).expect("open");
    assert!(v.rounds().is_empty());
    let s = h.screen(80, 24);
    assert!(s.contains(NO_INDEX_TEXT), "{s}");
    crate::common::assert_snapshot!("no_index_80x24", stable(&s));
}

#[test]
fn help_lists_the_rounds_key() {
    let mut h = Harness::start();
    h.key(KeyCode::Char('?'));
    h.key(KeyCode::Char('/'));
    h.type_text("rounds");
    h.key(KeyCode::Enter);
    let s = h.screen(120, 40);
    let line = s
        .lines()
        .find(|l| l.contains("mining rounds"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(line.contains(" M "), "{line}");
}

#[test]
fn snapshots_of_the_rounds_view() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = with_index(dir.path(), false);
    h.key(KeyCode::Char('M'));
    crate::common::assert_snapshot!("rounds_80x24", screen(&mut h, 80, 24));
    h.key(KeyCode::Down);
    crate::common::assert_snapshot!("rounds_120x40", screen(&mut h, 120, 40));
}
