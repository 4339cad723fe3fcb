//! Starting and restarting the History pane's load: the first start, going to a time (in the
//! loaded rows, from the index, or reloading from there), the pane's side of a reload, what the
//! list needs from the loader, and keeping in step when the loader changes the history.

use crate::feed::loader::{Demand, LoaderIntent, PAGE};

use super::super::{AppEvent, Out, Shared, StartFrom};
use super::HistoryPane;

impl HistoryPane {
    /// Starts loading per `sh.ctx.start` (the loaded history is replaced).
    pub fn start(&mut self, sh: &Shared, out: &mut Out) {
        self.before_restart(sh.ctx.start, out);
        out.events
            .push(AppEvent::Loader(LoaderIntent::Start(sh.ctx.start)));
    }

    /// Selects the first update at or after `micros` if it is within the loaded range (pausing
    /// the tail); otherwise asks the loader to reload from that time.
    pub fn goto_time(&mut self, micros: i64, sh: &mut Shared, out: &mut Out) {
        self.resync(sh);
        self.close_timeline(out);
        let in_range = match (sh.history.first(), sh.history.last()) {
            (Some(first), Some(last)) => {
                micros >= first.record_time() && (micros <= last.record_time() || sh.feed.at_head)
            }
            _ => false,
        };
        self.tail.browsing = true;
        if !in_range && self.time_from_index(micros, sh, out) {
            return;
        }
        if !in_range {
            out.info(format!(
                "loading from {} {}",
                sh.format_time(micros),
                sh.zone_label()
            ));
            let origin = StartFrom::Time(micros);
            self.before_restart(origin, out);
            out.events
                .push(AppEvent::Loader(LoaderIntent::Restart(origin)));
            return;
        }
        self.pause(sh);
        let rows = self.view.len(&sh.history);
        if rows == 0 {
            return;
        }
        let index = sh.history.index_at_time(micros);
        let row = if index >= sh.history.len() {
            rows - 1
        } else {
            self.view.row_of(index).min(rows - 1)
        };
        self.scroll.select(row);
    }

    /// The pane's side of a reload: no export over a history that goes away, follow or not.
    fn before_restart(&mut self, origin: StartFrom, out: &mut Out) {
        if self.abort_export(out).is_some() {
            out.warn("export cancelled: the history is being reloaded");
        }
        self.exports.dialog = None;
        self.close_timeline(out);
        self.tail.following = origin.follows();
        self.tail.browsing = !self.tail.following;
        self.tail.new_rows = 0;
    }

    /// What the list needs from the loader now: following, or near the end of what is loaded.
    pub fn demand(&self, sh: &Shared) -> Demand {
        let len = sh.history.len();
        let near_end = if len == 0 {
            true
        } else if self.view.is_empty(&sh.history) {
            false
        } else {
            let index = self.view.index(self.scroll.cursor()).unwrap_or(0);
            len.saturating_sub(index) <= PAGE
        };
        Demand {
            following: self.tail.following,
            near_end,
        }
    }

    /// The loader changed the history (or its feed): keep the view and the selection in step,
    /// count rows that arrived at the head while paused.
    pub fn on_history(&mut self, change: &crate::feed::loader::HistoryChange, sh: &Shared) {
        let appended = self.resync(sh);
        if !self.tail.following && change.at_head {
            self.tail.new_rows += appended;
        }
        self.earlier_row = sh.feed.loading_earlier;
        self.span.line = Self::span_running(sh);
        self.scroll.set_viewport(self.list_viewport());
    }
}
