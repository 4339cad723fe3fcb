//! The app's side of the Rounds view (`M`, `:rounds`; [`crate::ui::rounds`]): opening it (the
//! index's rounds read by the runtime), asking every scan about the rounds around the selection
//! as the view says ([`RoundsView::next_ask`]: one round at a time, a request the selection
//! left cancelled), walking the selected round's reward tree on every scan when asked (`T`),
//! and closing it (its pending requests, the tree walks too, cancelled).

use super::App;
use super::state::Overlay;
use crate::model::index::read::IndexRead;
use crate::msg::{Effect, Owner, Request, RequestId};
use crate::panes::{Out, Shared};
use crate::ui::rounds::{REWRITTEN_TEXT, RoundsView};

impl App {
    /// Opens the Rounds view and asks the runtime for the rounds the index holds (none asked
    /// without a usable index: the view says so).
    pub(super) fn open_rounds(&mut self, out: &mut Out) {
        if !self.sh.index.usable() {
            let index = &self.sh.index;
            let view = match (&index.rewritten, &index.failure) {
                (Some(_), _) => RoundsView::unusable(REWRITTEN_TEXT.to_owned()),
                (None, Some(failure)) if index.configured() => {
                    RoundsView::unusable(format!("the local index cannot be read now: {failure}"))
                }
                _ => RoundsView::no_index(),
            };
            self.overlay = Some(Overlay::Rounds(view));
            return;
        }
        let id = self.sh.next_request_id(Owner::Rounds);
        out.effects.push(Effect::Fetch {
            id,
            request: Request::Index(IndexRead::Rounds),
        });
        let mut view = RoundsView::loading(id);
        if self.sh.ctx.offline {
            view = view.without_scans("--offline");
        } else if self.sh.ctx.scan_urls.is_empty() {
            view = view.without_scans("no scan configured");
        }
        self.overlay = Some(Overlay::Rounds(view));
    }

    /// Asks the scans about the next round the view wants, cancelling what it no longer does.
    pub(super) fn ask_round_scans(&mut self, out: &mut Out) {
        let Some(Overlay::Rounds(view)) = &mut self.overlay else {
            return;
        };
        let now = self.sh.now;
        if let Some(round) = view.take_tree_wanted() {
            let id = fetch(&mut self.sh, out, Request::RoundTree { round, now });
            view.tree_asked(round, id);
        }
        let (cancel, ask) = view.next_ask();
        out.effects.extend(cancel.into_iter().map(Effect::Cancel));
        if let Some(round) = ask {
            let id = fetch(&mut self.sh, out, Request::RoundOnScans { round, now });
            view.asked(round, id);
        }
    }

    /// The view closes: the scans' answers it still waits for are no longer wanted.
    pub(super) fn close_rounds(&mut self, out: &mut Out) {
        if let Some(Overlay::Rounds(view)) = &self.overlay {
            out.effects.extend(
                view.pending()
                    .into_iter()
                    .chain(view.pending_trees())
                    .map(Effect::Cancel),
            );
        }
    }
}

/// A request of the Rounds view, asked of the runtime: its id.
fn fetch(sh: &mut Shared, out: &mut Out, request: Request) -> RequestId {
    let id = sh.next_request_id(Owner::Rounds);
    out.effects.push(Effect::Fetch { id, request });
    id
}
