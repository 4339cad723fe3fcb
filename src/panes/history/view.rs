//! Keeping the History pane's view in step with the history (filter, appended and prepended
//! pages, the cursor of the next forward request) and the commands on the selected row.

use crate::api::scan::{UpdateItem, UpdatesPage};
use crate::model::history::{FILTER_SYNTAX, Filter, Placement};
use crate::model::summary::SummaryKind;
use crate::msg::Command;
use crate::ui::safe::safe_line;

use super::super::{AppEvent, Out, Shared};
use super::HistoryPane;
use super::loader::{MALFORMED_KEPT, after_at, cursor_position, item_position};

impl HistoryPane {
    // ---------------------------------------------------------------------------------------
    // Filter
    // ---------------------------------------------------------------------------------------

    /// Sets the filter from text (`[field:][re:]text`; empty clears it). A parse error is
    /// reported and the current filter kept.
    pub fn set_filter(&mut self, text: &str, sh: &mut Shared, out: &mut Out) {
        match Filter::parse(text) {
            Ok(f) => {
                self.apply_filter(f, sh);
                self.filter.set_text(text);
                self.pump(sh, out);
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
        if self.following {
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

    pub(super) fn filter_text_changed(&mut self, sh: &mut Shared, out: &mut Out) {
        let Some(text) = self.filter.text() else {
            return;
        };
        match Filter::parse(&text) {
            Ok(f) => {
                self.filter.set_error(None);
                self.apply_filter(f, sh);
                self.pump(sh, out);
            }
            Err(e) => self.filter.set_error(Some(e)),
        }
        self.scroll.set_viewport(self.list_viewport());
    }

    // ---------------------------------------------------------------------------------------
    // Keeping the view in step with the history
    // ---------------------------------------------------------------------------------------

    /// Brings the view in step after the history changed outside the pane.
    pub fn resync(&mut self, sh: &Shared) {
        let len = sh.history.len();
        if len == self.known_len && self.scroll.len() == self.view.len(&sh.history) {
            return;
        }
        if len < self.known_len {
            let filter = self.view.filter.take();
            self.view.set(filter, &sh.history);
        } else {
            self.view.sync(&sh.history, 0);
        }
        self.known_len = len;
        self.scroll.set_len(self.view.len(&sh.history));
        if self.following {
            self.scroll.bottom();
        }
    }

    pub(super) fn pause(&mut self) {
        if self.following {
            self.following = false;
            self.new_rows = 0;
        }
    }

    /// Appends a page; returns rows added to the view.
    pub(super) fn append(&mut self, page: &UpdatesPage, sh: &mut Shared, out: &mut Out) -> usize {
        self.resync(sh);
        let items = self.positioned(&page.transactions, out);
        let old_rows = self.view.len(&sh.history);
        let added = sh.history.add_page(&items, Placement::Append);
        if added > 0 {
            self.view.sync(&sh.history, 0);
        }
        self.known_len = sh.history.len();
        let new_rows = self.view.len(&sh.history);
        let delta = new_rows.saturating_sub(old_rows);
        self.scroll.set_len(new_rows);
        if self.following {
            self.scroll.bottom();
        } else if self.at_head {
            self.new_rows += delta;
        }
        if let Some(last) = sh.history.last() {
            self.migration = Some(
                self.migration
                    .map_or(last.migration_id, |m| m.max(last.migration_id)),
            );
        }
        self.advance_cursor(page, sh);
        delta
    }

    /// Prepends items older than the oldest loaded one, keeping the selection on the same
    /// update (and the screen still). Returns history items added.
    pub(super) fn prepend(&mut self, items: &[UpdateItem], sh: &mut Shared) -> usize {
        self.resync(sh);
        let selected = self.selected_index(sh);
        let old_rows = self.view.len(&sh.history);
        let added = sh.history.add_page(items, Placement::Prepend);
        if added == 0 {
            return 0;
        }
        self.view.sync(&sh.history, added);
        self.known_len = sh.history.len();
        let new_rows = self.view.len(&sh.history);
        let delta = new_rows.saturating_sub(old_rows);
        self.scroll.set_len(new_rows);
        if self.following {
            self.scroll.bottom();
        } else if let Some(i) = selected {
            let row = self.view.row_of(i + added);
            self.scroll
                .scroll_by(isize::try_from(delta).unwrap_or(isize::MAX));
            self.scroll.select(row);
        } else if new_rows > 0 {
            self.scroll.select(new_rows - 1);
        }
        added
    }

    /// Items with a readable position (malformed items without one cannot be placed); records
    /// the decode errors of malformed items.
    pub(super) fn positioned<'a>(
        &mut self,
        items: &'a [UpdateItem],
        out: &mut Out,
    ) -> std::borrow::Cow<'a, [UpdateItem]> {
        let mut all = true;
        for item in items {
            let pos = item_position(item);
            if let UpdateItem::Malformed { error, .. } = item
                && let Some(p) = pos
            {
                if self.malformed.len() >= MALFORMED_KEPT {
                    self.malformed.pop_front();
                }
                self.malformed.push_back((p, error.to_string()));
            }
            all &= pos.is_some();
        }
        if all {
            return std::borrow::Cow::Borrowed(items);
        }
        let kept: Vec<UpdateItem> = items
            .iter()
            .filter(|i| item_position(i).is_some())
            .cloned()
            .collect();
        out.warn(format!(
            "skipped {} update(s) without a readable record time",
            items.len() - kept.len()
        ));
        std::borrow::Cow::Owned(kept)
    }

    /// Moves the forward cursor to the newest loaded update (never backwards). The server's own
    /// text is used when it names exactly that update.
    pub(super) fn advance_cursor(&mut self, page: &UpdatesPage, sh: &Shared) {
        let Some(last) = sh.history.last() else {
            return;
        };
        let last_pos = (last.migration_id, last.record_time);
        if self
            .cursor
            .as_ref()
            .and_then(cursor_position)
            .is_some_and(|c| c >= last_pos)
        {
            return;
        }
        if let Some(next) = page.next_after()
            && cursor_position(&next) == Some(last_pos)
        {
            self.cursor = Some(next);
            return;
        }
        self.cursor = Some(after_at(last.migration_id, last.record_time));
    }

    // ---------------------------------------------------------------------------------------
    // Commands
    // ---------------------------------------------------------------------------------------

    pub(super) fn on_move(&mut self, cmd: Command, sh: &mut Shared, out: &mut Out) {
        self.resync(sh);
        self.pause();
        let at_top = self.scroll.cursor() == 0;
        match cmd {
            Command::Up | Command::PageUp | Command::Top if at_top => {
                self.start_earlier(sh, out);
            }
            _ => {
                self.scroll.navigate(cmd);
            }
        }
        if matches!(cmd, Command::Down | Command::PageDown | Command::Bottom)
            && self.lazy
            && !self.at_head
            && self.scroll.cursor() + 1 >= self.scroll.len()
        {
            self.more_requested = true;
        }
        self.pump(sh, out);
    }

    pub(super) fn follow(&mut self, sh: &mut Shared, out: &mut Out) {
        self.resync(sh);
        self.following = true;
        self.new_rows = 0;
        self.scroll.bottom();
        self.pump(sh, out);
    }

    pub(super) fn open_selected(&mut self, sh: &Shared, out: &mut Out) {
        let Some(s) = self.selected(sh) else {
            return;
        };
        if s.kind == SummaryKind::Malformed {
            let pos = (s.migration_id, s.record_time);
            let why = self
                .malformed
                .iter()
                .rev()
                .find(|(p, _)| *p == pos)
                .map_or("its JSON does not match the expected shape", |(_, e)| e);
            let id = if s.update_id.is_empty() {
                "this update".to_string()
            } else {
                format!("update {}", safe_line(&s.update_id, 80))
            };
            out.error(format!("{id} could not be decoded: {why}"));
            return;
        }
        if s.update_id.is_empty() {
            out.warn("this update has no id");
            return;
        }
        out.events.push(AppEvent::OpenUpdate {
            update_id: s.update_id.to_string(),
            event_id: None,
        });
    }

    pub(super) fn copy_selected(&self, sh: &Shared, out: &mut Out) {
        match self.selected(sh) {
            Some(s) if !s.update_id.is_empty() => out.copy("update id", s.update_id.to_string()),
            Some(_) => out.warn("this update has no id"),
            None => {}
        }
    }
}
