//! Keeping the History pane's view in step with the history (the filter, items appended,
//! prepended or replaced by the loader) and the commands on the selected row.

use crate::feed::loader::LoaderIntent;
use crate::model::history::{FILTER_SYNTAX, Filter};
use crate::model::summary::SummaryKind;
use crate::msg::Command;
use crate::ui::safe::safe_line;
use crate::ui::scroll::ScrollState;

use super::super::{AppEvent, Out, Shared};
use super::{HistoryPane, Known};

impl HistoryPane {
    // ---------------------------------------------------------------------------------------
    // Filter
    // ---------------------------------------------------------------------------------------

    /// Sets the filter from text (`[field:][re:]text`; empty clears it). A parse error is
    /// reported and the current filter kept.
    pub fn set_filter(&mut self, text: &str, sh: &Shared, out: &mut Out) {
        match Filter::parse(text) {
            Ok(f) => {
                // The filter is the loaded rows': they are shown again.
                self.close_timeline(out);
                self.apply_filter(f, sh);
                self.filter.set_text(text);
            }
            Err(e) => out.error(format!("filter: {e}")),
        }
    }

    pub(super) fn apply_filter(&mut self, filter: Option<Filter>, sh: &Shared) {
        self.resync(sh);
        let selected = self.selected_index(sh);
        self.view.set(filter, &sh.history);
        let rows = self.view.len(&sh.history);
        self.scroll.set_len(rows);
        // New rows are counted in the view shown: the ones the new filter keeps.
        if let (false, Some(mark)) = (self.tail.following, self.tail.paused_at) {
            let first_new = usize::try_from(mark - sh.history.base()).unwrap_or(0);
            self.tail.new_rows = rows - self.view.row_of(first_new.min(sh.history.len()));
        }
        if self.tail.following {
            self.scroll.bottom();
        } else if let Some(i) = selected {
            self.scroll
                .select(self.view.row_of(i).min(rows.saturating_sub(1)));
        }
    }

    pub(super) fn open_filter(&mut self) {
        let text = self.filter_text().unwrap_or("").to_string();
        self.filter.open(&text, FILTER_SYNTAX);
        self.scroll.set_viewport(self.list_viewport());
    }

    pub(super) fn close_filter(&mut self) {
        self.filter.close();
        self.scroll.set_viewport(self.list_viewport());
    }

    pub(super) fn filter_text_changed(&mut self, sh: &Shared) {
        let Some(text) = self.filter.text() else {
            return;
        };
        match Filter::parse(&text) {
            Ok(f) => {
                self.filter.set_error(None);
                self.apply_filter(f, sh);
            }
            Err(e) => self.filter.set_error(Some(e)),
        }
        self.scroll.set_viewport(self.list_viewport());
    }

    // ---------------------------------------------------------------------------------------
    // Keeping the view in step with the history
    // ---------------------------------------------------------------------------------------

    /// Brings the view in step after the history changed: a replaced history starts a new
    /// list, earlier items keep the selection on the same update (and the screen still).
    /// Returns the rows appended at the end.
    pub fn resync(&mut self, sh: &Shared) -> usize {
        let h = &sh.history;
        let now = Known::of(h);
        if now == self.known && self.scroll.len() == self.view.len(h) {
            return 0;
        }
        let old = std::mem::replace(&mut self.known, now);
        let old_rows = self.scroll.len();
        if now.epoch != old.epoch {
            let filter = self.view.filter.take();
            self.view.set(filter, h);
            self.scroll = ScrollState::new(self.view.len(h));
            self.scroll.set_viewport(self.list_viewport());
            if self.tail.following {
                self.scroll.bottom();
            }
            return 0;
        }
        let prepended = usize::try_from(old.base.saturating_sub(now.base)).unwrap_or(0);
        let dropped = usize::try_from(now.base.saturating_sub(old.base)).unwrap_or(0);
        if dropped > old.len || now.len + dropped < old.len + prepended {
            // Items went away (the history was replaced by hand): count the rows again.
            let filter = self.view.filter.take();
            self.view.set(filter, h);
            self.scroll.set_len(self.view.len(h));
            if self.tail.following {
                self.scroll.bottom();
            }
            return 0;
        }
        let selected = (old_rows > 0)
            .then(|| self.view.index(self.scroll.cursor()))
            .flatten();
        // Rows of the dropped items (the oldest, at the top of the list).
        let gone = if dropped > 0 {
            let rows = if self.view.filter.is_some() {
                self.view.row_of(dropped)
            } else {
                dropped.min(old_rows)
            };
            self.view.drop_front(dropped);
            rows
        } else {
            0
        };
        self.view.sync(h, prepended);
        let rows = self.view.len(h);
        let front = if prepended > 0 {
            self.view.row_of(prepended)
        } else {
            0
        };
        let appended = rows.saturating_sub(old_rows.saturating_sub(gone) + front);
        self.scroll.set_len(rows);
        if self.tail.following {
            self.scroll.bottom();
        } else if front > 0 || gone > 0 {
            match selected {
                Some(i) => {
                    let i = (i + prepended).saturating_sub(dropped);
                    let row = self.view.row_of(i);
                    let shift = isize::try_from(front).unwrap_or(isize::MAX)
                        - isize::try_from(gone).unwrap_or(isize::MAX);
                    self.scroll.scroll_by(shift);
                    self.scroll.select(row.min(rows.saturating_sub(1)));
                }
                None if rows > 0 && front > 0 => self.scroll.select(rows - 1),
                None => {}
            }
        }
        appended
    }

    /// Stops following; rows arriving from now on count as new.
    pub(super) fn pause(&mut self, sh: &Shared) {
        if self.tail.following {
            self.tail.following = false;
            self.tail.new_rows = 0;
            self.tail.paused_at = Some(sh.history.base() + sh.history.len() as i64);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Commands
    // ---------------------------------------------------------------------------------------

    pub(super) fn on_move(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) {
        self.resync(sh);
        self.pause(sh);
        let at_top = self.scroll.cursor() == 0;
        match cmd {
            // Above the loaded rows, the index holds older updates: History reads on from it
            // (not with a filter: the filter is the loaded rows').
            Command::Up | Command::PageUp | Command::Top
                if at_top && self.view.filter.is_none() && self.earlier_from_index(sh, out) => {}
            Command::Up | Command::PageUp | Command::Top if at_top => {
                out.events.push(AppEvent::Loader(LoaderIntent::Earlier));
            }
            _ => {
                self.scroll.navigate(cmd);
            }
        }
        if matches!(cmd, Command::Down | Command::PageDown | Command::Bottom)
            && !sh.feed.at_head
            && self.scroll.cursor() + 1 >= self.scroll.len()
        {
            out.events.push(AppEvent::Loader(LoaderIntent::More));
        }
    }

    pub(super) fn follow(&mut self, sh: &Shared) {
        self.resync(sh);
        self.tail.following = true;
        self.tail.browsing = false;
        self.tail.new_rows = 0;
        self.scroll.bottom();
    }

    pub(super) fn open_selected(&mut self, sh: &Shared, out: &mut Out) {
        let Some(s) = self.selected(sh) else {
            return;
        };
        if s.kind() == SummaryKind::Malformed {
            let why = sh
                .feed
                .malformed_error(s.at())
                .unwrap_or("its JSON does not match the expected shape");
            let id = if s.update_id().is_empty() {
                "this update".to_string()
            } else {
                format!("update {}", safe_line(&s.update_id(), 80))
            };
            out.error(format!("{id} could not be decoded: {why}"));
            return;
        }
        if s.update_id().is_empty() {
            out.warn("this update has no id");
            return;
        }
        out.events.push(AppEvent::OpenUpdate {
            update_id: s.update_id().to_string(),
            event_id: None,
        });
    }

    pub(super) fn copy_selected(&self, sh: &Shared, out: &mut Out) {
        match self.selected(sh) {
            Some(s) if !s.update_id().is_empty() => {
                out.copy("update id", s.update_id().to_string());
            }
            Some(_) => out.warn("this update has no id"),
            None => {}
        }
    }
}
