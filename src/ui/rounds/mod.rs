//! The Rounds view (`M`, `:rounds`; issue 37 §2): an overlay listing the mining rounds the
//! local index holds, newest first, from its per-round summary (what `cantonscope index rounds`
//! prints): per round the total app activity weight, the records, the active providers, the
//! traffic cost of its verdicts and its time span; below, the selected round's top providers
//! by weight. The rounds are read by the runtime (`IndexRead::Rounds`), never here; without
//! an index the view says how to get one. Party ids are server text and drawn sanitized.
//!
//! Beside the index's figures, what each scan of the network serves for the rounds around the
//! selection (the selected one first, then its neighbours, one round at a time; each kept once
//! answered): the reward accounting's activity totals and root hash, judged per scan and per
//! round ([`scans`]). The app asks the runtime for them (`Request::RoundOnScans`) as
//! [`RoundsView::next_ask`] says; offline, or without a scan, none is asked and the view says so.
//!
//! `T` walks the selected round's reward tree on every scan serving a root hash ([`tree`]):
//! per scan verified, differs at a batch, unverifiable or not served, and its leaves' providers
//! against the index's kept activity; the walk is the runtime's (`Request::RoundTree`),
//! cancelled when the view closes.

mod draw;
pub mod scans;
pub mod tree;

use std::collections::BTreeMap;

use crossterm::event::KeyEvent;

use crate::config::keymap::{KeyContext, KeyMap};
use crate::model::index::read::IndexAnswer;
use crate::model::index::rounds::{RoundCheck, RoundSummary, closed_and_whole};
use crate::msg::{Command, Fetched, RequestId};
use crate::ui::OverlayOutcome;
pub use scans::{OnScans, Tone};
pub use tree::TreeState;

/// What the view says when the profile has no local index.
pub const NO_INDEX_TEXT: &str = "no local index: `cantonscope index sync` keeps one";
/// What the view says while the rounds are read.
pub const LOADING_TEXT: &str = "reading the rounds from the local index…";
/// What the view says when the scan's history is not the one the index kept (a demo
/// restarted, a scan restored): its rounds are of another history.
pub const REWRITTEN_TEXT: &str = "history rewritten under the index (see !): rounds not shown";
/// What the view says when the index holds no round.
pub const NO_ROUNDS_TEXT: &str =
    "the local index holds no round yet: `cantonscope index sync` keeps the events they come from";

/// What the view shows.
#[derive(Debug, Clone, PartialEq)]
enum State {
    /// Asked with this request.
    Loading(RequestId),
    /// No index can be read now, and why (in the user's words).
    Unusable(String),
    Failed(String),
    /// Newest first; whether the index starts at the ledger's beginning.
    Loaded(Vec<RoundSummary>, bool),
}

/// The Rounds overlay: its rounds, the selected one, and what the scans serve for them.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundsView {
    state: State,
    selected: usize,
    /// Why no scan is asked (`--offline`, no scan configured); `None`: they are.
    scans_not_asked: Option<String>,
    /// Per round, what the scans serve (or the request that asks them).
    on_scans: BTreeMap<i64, OnScans>,
    /// Per round, its reward tree on every scan, once asked (`T`).
    trees: BTreeMap<i64, TreeState>,
    /// The round whose tree the user asked to walk, not asked of the runtime yet.
    tree_wanted: Option<i64>,
}

/// How many rows PgUp / PgDn move.
const PAGE: usize = 10;

/// The rounds asked of the scans around the selection: this many before it (on screen once
/// the list scrolls down) and [`AFTER`] after it (on screen below it).
const BEFORE: usize = 2;
const AFTER: usize = 8;

impl RoundsView {
    /// The view while request `id` reads the rounds.
    pub fn loading(id: RequestId) -> Self {
        RoundsView {
            state: State::Loading(id),
            selected: 0,
            scans_not_asked: None,
            on_scans: BTreeMap::new(),
            trees: BTreeMap::new(),
            tree_wanted: None,
        }
    }

    /// The view that asks no scan, saying why (`--offline`, no scan configured).
    pub fn without_scans(mut self, why: impl Into<String>) -> Self {
        self.scans_not_asked = Some(why.into());
        self
    }

    /// Why no scan is asked (`None`: they are).
    pub fn scans_not_asked(&self) -> Option<&str> {
        self.scans_not_asked.as_deref()
    }

    /// The view when there is no index to read.
    pub fn no_index() -> Self {
        RoundsView::unusable(NO_INDEX_TEXT.to_owned())
    }

    /// The view when the index cannot be read now: `why`, as the view says it.
    pub fn unusable(why: String) -> Self {
        RoundsView {
            state: State::Unusable(why),
            ..RoundsView::loading(RequestId::default())
        }
    }

    /// Whether `id` is the view's pending read.
    pub fn owns(&self, id: RequestId) -> bool {
        self.state == State::Loading(id)
    }

    /// Takes the index's answer to the view's read, or the scans' answer for a round it asked
    /// (others are not its own: ignored).
    pub fn on_reply(&mut self, reply: &Fetched) -> bool {
        if let Some(round) = self.tree_asked_with(reply.id) {
            let compare = self
                .summary(round)
                .filter(|_| self.closed_and_whole(round).1)
                .map(|s| s.active_parties);
            let taken = match &reply.result {
                Ok(r) => match r.round_tree() {
                    Some(trees) => TreeState::answered(trees.clone(), compare),
                    None => TreeState::Failed("unexpected answer to a round's reward tree".into()),
                },
                Err(e) => TreeState::Failed(e.to_string()),
            };
            self.trees.insert(round, taken);
            return true;
        }
        if let Some(round) = self.asked_with(reply.id) {
            let taken = match &reply.result {
                Ok(r) => match (r.round_on_scans(), self.summary(round)) {
                    (Some(answer), Some(local)) => {
                        let whole = self.closed_and_whole(round).1;
                        OnScans::answered(local, whole, answer.clone())
                    }
                    _ => OnScans::Failed("unexpected answer to a round on every scan".into()),
                },
                Err(e) => OnScans::Failed(e.to_string()),
            };
            self.on_scans.insert(round, taken);
            return true;
        }
        if !self.owns(reply.id) {
            return false;
        }
        self.state = match reply.index_answer() {
            Ok(IndexAnswer::Rounds { rounds, from_begin }) => State::Loaded(rounds, from_begin),
            Ok(_) => State::Failed(crate::msg::UNEXPECTED_INDEX_ANSWER.to_owned()),
            Err(e) => State::Failed(e),
        };
        self.selected = 0;
        true
    }

    /// The rounds shown, newest first (empty until read).
    pub fn rounds(&self) -> &[RoundSummary] {
        match &self.state {
            State::Loaded(r, _) => r,
            _ => &[],
        }
    }

    /// Whether the rounds are still being read.
    pub fn is_loading(&self) -> bool {
        matches!(self.state, State::Loading(_))
    }

    /// Whether `round` is closed and whole in the index ([`closed_and_whole`]).
    fn closed_and_whole(&self, round: i64) -> (bool, bool) {
        let State::Loaded(rounds, from_begin) = &self.state else {
            return (false, false);
        };
        let (newest, first) = (
            rounds.first().map(|r| r.round),
            rounds.last().map(|r| r.round),
        );
        closed_and_whole(round, first, newest, *from_begin)
    }

    fn summary(&self, round: i64) -> Option<&RoundSummary> {
        self.rounds().iter().find(|r| r.round == round)
    }

    /// The round a pending request `id` asks the scans about.
    fn asked_with(&self, id: RequestId) -> Option<i64> {
        self.on_scans
            .iter()
            .find(|(_, s)| **s == OnScans::Asked(id))
            .map(|(r, _)| *r)
    }

    /// The round a pending tree walk `id` is for.
    fn tree_asked_with(&self, id: RequestId) -> Option<i64> {
        self.trees
            .iter()
            .find(|(_, s)| **s == TreeState::Asked(id))
            .map(|(r, _)| *r)
    }

    /// What the view knows of `round`'s reward tree (`None`: not asked).
    pub fn tree(&self, round: i64) -> Option<&TreeState> {
        self.trees.get(&round)
    }

    /// The round whose tree is to be walked now, taken (the app asks the runtime for it).
    pub fn take_tree_wanted(&mut self) -> Option<i64> {
        self.tree_wanted.take()
    }

    /// Request `id` walks `round`'s tree.
    pub fn tree_asked(&mut self, round: i64, id: RequestId) {
        self.trees.insert(round, TreeState::Asked(id));
    }

    /// The tree walks still waiting for their answer.
    pub fn pending_trees(&self) -> Vec<RequestId> {
        self.trees
            .values()
            .filter_map(|s| match s {
                TreeState::Asked(id) => Some(*id),
                _ => None,
            })
            .collect()
    }

    /// `T`: the selected round's tree is to be walked (again, once answered); offline, or
    /// without a scan, the detail says why none is asked.
    fn want_tree(&mut self) {
        let Some(round) = self.selected().map(|r| r.round) else {
            return;
        };
        if matches!(self.trees.get(&round), Some(TreeState::Asked(_))) {
            return;
        }
        match &self.scans_not_asked {
            Some(why) => {
                self.trees.insert(round, TreeState::NotAsked(why.clone()));
            }
            None => self.tree_wanted = Some(round),
        }
    }

    /// What the view knows of `round` on the scans (`None`: not asked yet).
    pub fn on_scans(&self, round: i64) -> Option<&OnScans> {
        self.on_scans.get(&round)
    }

    /// How `round` compares with what each scan serves, once they answered.
    pub fn round_check(&self, round: i64) -> Option<&RoundCheck> {
        match self.on_scans.get(&round)? {
            OnScans::Answered(a) => Some(&a.1),
            _ => None,
        }
    }

    /// The round's verdict over the scans as the list shows it (`None`: not answered yet).
    pub fn scans_verdict(&self, round: i64) -> Option<(String, Tone)> {
        self.round_check(round).map(scans::verdict)
    }

    /// The requests still waiting for the scans' answer.
    pub fn pending(&self) -> Vec<RequestId> {
        self.on_scans
            .values()
            .filter_map(|s| match s {
                OnScans::Asked(id) => Some(*id),
                _ => None,
            })
            .collect()
    }

    /// What to ask the scans next: the requests to cancel (asked for rounds the selection
    /// left) and the round to ask about, if any. The selected round first, then the nearest
    /// rounds around it not yet asked, one at a time (the next once the last is answered).
    pub fn next_ask(&mut self) -> (Vec<RequestId>, Option<i64>) {
        let Some(selected) = self.selected().map(|r| r.round) else {
            return (Vec::new(), None);
        };
        if self.scans_not_asked.is_some() {
            return (Vec::new(), None);
        }
        let pending = self.pending();
        if !pending.is_empty() {
            if self.on_scans.contains_key(&selected) {
                return (Vec::new(), None);
            }
            // The selection moved on to a round not asked: that one now, the others dropped.
            self.on_scans.retain(|_, s| !matches!(s, OnScans::Asked(_)));
            return (pending, Some(selected));
        }
        let rounds = self.rounds();
        let (lo, hi) = (
            self.selected.saturating_sub(BEFORE),
            (self.selected + AFTER).min(rounds.len().saturating_sub(1)),
        );
        let mut order: Vec<usize> = (lo..=hi).collect();
        order.sort_by_key(|i| i.abs_diff(self.selected));
        let next = order
            .into_iter()
            .map(|i| rounds[i].round)
            .find(|r| !self.on_scans.contains_key(r));
        (Vec::new(), next)
    }

    /// Request `id` asks the scans about `round`.
    pub fn asked(&mut self, round: i64, id: RequestId) {
        self.on_scans.insert(round, OnScans::Asked(id));
    }

    /// What the list says of a round beside its figures: `open` (one of the two newest rounds
    /// the index holds, still counting), `partial` (the index's first round, which may have
    /// begun before the index did), or nothing (whole).
    pub fn mark(&self, round: i64) -> &'static str {
        match self.closed_and_whole(round) {
            (false, _) => "open",
            (true, false) => "partial",
            (true, true) => "",
        }
    }

    /// The selected round.
    pub fn selected(&self) -> Option<&RoundSummary> {
        self.rounds().get(self.selected)
    }

    fn select(&mut self, at: usize) {
        let len = self.rounds().len();
        self.selected = at.min(len.saturating_sub(1));
    }

    /// A key while the view is open: moves the selection; Esc, `q` or the view's key close it.
    pub fn handle_key(&mut self, keymap: &KeyMap, key: &KeyEvent) -> OverlayOutcome {
        let page = PAGE;
        match keymap.lookup(KeyContext::Overlay, key) {
            Some(Command::Up) => self.select(self.selected.saturating_sub(1)),
            Some(Command::Down) => self.select(self.selected + 1),
            Some(Command::PageUp) => self.select(self.selected.saturating_sub(page)),
            Some(Command::PageDown) => self.select(self.selected + page),
            Some(Command::Top) => self.select(0),
            Some(Command::Bottom) => self.select(usize::MAX),
            Some(Command::RewardTree) => self.want_tree(),
            Some(Command::Cancel | Command::Back | Command::Rounds) => {
                return OverlayOutcome::Close;
            }
            Some(Command::Quit) => return OverlayOutcome::Passthrough(Command::Quit),
            Some(_) | None => return OverlayOutcome::Ignored,
        }
        OverlayOutcome::Consumed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::index::rounds::RoundSums;
    use crate::msg::Owner;

    fn loaded(n: i64) -> RoundsView {
        let rounds = (0..n)
            .rev()
            .map(|round| RoundSummary {
                round,
                sums: RoundSums::default(),
                active_parties: 0,
                top_providers: Vec::new(),
                records_pruned: false,
            })
            .collect();
        RoundsView {
            state: State::Loaded(rounds, true),
            ..RoundsView::loading(RequestId::default())
        }
    }

    #[test]
    fn the_selected_round_is_asked_first_then_its_neighbours_one_at_a_time() {
        let mut v = loaded(30);
        let id = |seq| RequestId::new(Owner::Rounds, seq);
        assert_eq!(v.next_ask(), (Vec::new(), Some(29)));
        v.asked(29, id(1));
        // One at a time: nothing more while the selected round is asked.
        assert_eq!(v.next_ask(), (Vec::new(), None));
        v.on_scans.insert(29, OnScans::Failed("down".into()));
        assert_eq!(v.next_ask(), (Vec::new(), Some(28)));
        v.asked(28, id(2));
        // The selection jumps to a round not asked: the pending request is cancelled.
        v.select(20);
        assert_eq!(v.next_ask(), (vec![id(2)], Some(9)));
        assert_eq!(v.on_scans(28), None, "asked again once near the selection");
        v.asked(9, id(3));
        assert_eq!(v.pending(), vec![id(3)]);
        v.on_scans.insert(9, OnScans::Failed("down".into()));
        // Then the nearest around it: one after, one before, … within two before, eight after.
        let mut order = Vec::new();
        while let (_, Some(r)) = v.next_ask() {
            order.push(r);
            v.on_scans.insert(r, OnScans::Failed("down".into()));
        }
        assert_eq!(order, vec![10, 8, 11, 7, 6, 5, 4, 3, 2, 1]);
        // Offline: none asked.
        let mut off = loaded(3).without_scans("--offline");
        assert_eq!(off.next_ask(), (Vec::new(), None));
    }
}
