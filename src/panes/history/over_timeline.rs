//! The History pane over the app's timeline ([`Timeline`], in `Shared::timeline`): opening it
//! (`L`, `:time`, scrolling above the loaded rows), the commands over the one scroll of the
//! index's rows and the loaded rows (sent to the timeline as intents), and drawing it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Widget};

use crate::feed::timeline::{Aim, At, FillEnd, Land, Place, Timeline, TimelineIntent, index_reach};
use crate::model::format::format_time_micros;
use crate::model::history::History;
use crate::msg::Command;
use crate::ui::format::group_thousands;
use crate::ui::table::Draw;

use super::super::{AppEvent, Out, RenderCtx, Shared};
use super::HistoryPane;
use super::rows::{IndexedRow, JointRow, READING};
use super::table::{DATED_RANGE_WIDTH, loaded_range, put_line, with_notes};

impl HistoryPane {
    /// The loaded rows and the loaded selection, for the one scroll.
    pub fn loaded_rows(&self, history: &History) -> (usize, usize) {
        (self.view.len(history), self.scroll.cursor())
    }

    /// The timeline's selection went to loaded row `l`.
    pub fn select_loaded(&mut self, l: usize) {
        self.scroll.select(l);
    }

    /// Asks the app to show History over the index from `since` on, up to the loaded rows,
    /// landing the selection as `land`.
    fn open_index_range(&mut self, since: i64, land: Land, sh: &mut Shared, out: &mut Out) {
        self.pause(sh);
        self.resync(sh);
        out.events
            .push(AppEvent::Timeline(TimelineIntent::Open { since, land }));
        self.over_timeline = true;
    }

    /// Back to the loaded rows alone.
    pub(super) fn close_timeline(&mut self, out: &mut Out) {
        if std::mem::take(&mut self.over_timeline) {
            out.events.push(AppEvent::Timeline(TimelineIntent::Close));
        }
    }

    /// `L` with an index that holds updates older than the loaded ones: the span is read from
    /// the index as the list scrolls, not loaded into memory. Returns whether it was.
    pub(super) fn span_from_index(&mut self, since: i64, sh: &mut Shared, out: &mut Out) -> bool {
        let Some((first, last)) = index_reach(&sh.index) else {
            return false;
        };
        let loaded_first = sh
            .history
            .first()
            .map(crate::model::summary::UpdateSummary::record_time);
        if loaded_first.is_some_and(|t| first >= t) || last < since {
            // The index holds nothing older than the loaded rows (or nothing of the span).
            return false;
        }
        let land = if self.view.is_empty(&sh.history) {
            Land::Last
        } else {
            Land::Loaded
        };
        let mut said = format!(
            "the last {} from the local index, read as you scroll (not loaded into memory)",
            self.span.label
        );
        let offline = sh.ctx.offline;
        if first > since {
            said.push_str(&format!(
                "; the index reaches back to {} only: {}`cantonscope index sync --from {}` keeps it",
                format_time_micros(first),
                if offline { "" } else { "the rest is read from the scan; " },
                format_time_micros(since)
            ));
        }
        if loaded_first.is_some_and(|t| last < t) {
            said.push_str(&format!(
                "; the index ends at {}, before the loaded rows{}",
                format_time_micros(last),
                if offline {
                    ""
                } else {
                    ": the updates between are read from the scan"
                }
            ));
        }
        out.info(said);
        self.open_index_range(since, land, sh, out);
        true
    }

    /// `:time` before the loaded rows within the index's reach: the whole index up to the
    /// loaded rows, at that time. Returns whether it was.
    pub(super) fn time_from_index(&mut self, micros: i64, sh: &mut Shared, out: &mut Out) -> bool {
        let Some((first, last)) = index_reach(&sh.index) else {
            return false;
        };
        if micros < first || micros > last {
            return false;
        }
        if sh
            .history
            .first()
            .is_some_and(|s| micros >= s.record_time())
        {
            // After the loaded rows (they do not reach the head): the loader goes there.
            return false;
        }
        out.info(format!(
            "{} {} from the local index",
            sh.format_time(micros),
            sh.zone_label()
        ));
        self.open_index_range(first, Land::At(micros), sh, out);
        true
    }

    /// Scrolling above the first loaded row when the index holds older updates: the whole
    /// index above the loaded rows, on the row just above. Returns whether it was.
    pub(super) fn earlier_from_index(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        let Some((first, _)) = index_reach(&sh.index) else {
            return false;
        };
        let Some(loaded_first) = sh
            .history
            .first()
            .map(crate::model::summary::UpdateSummary::record_time)
        else {
            return false;
        };
        if first >= loaded_first {
            return false;
        }
        self.open_index_range(first, Land::Before(loaded_first), sh, out);
        true
    }

    /// A command while History lists rows through the timeline; `None` when it is not the
    /// list's.
    pub(super) fn index_range_command(
        &mut self,
        cmd: Command,
        sh: &mut Shared,
        out: &mut Out,
    ) -> Option<bool> {
        if !self.over_timeline {
            return None;
        }
        self.resync(sh);
        let r = sh.timeline.as_ref()?;
        let in_index = r.in_index();
        match cmd {
            cmd if cmd.is_move() => out.events.push(AppEvent::Timeline(TimelineIntent::Move(cmd))),
            Command::Select if in_index => match r.selected() {
                Some(row) if !row.update_id.is_empty() => {
                    out.events.push(AppEvent::OpenUpdate {
                        update_id: row.update_id.clone(),
                        event_id: None,
                    });
                    if row.is_verdict_only() {
                        // No update to show: its verdict (kept, or the scan's) is what there is.
                        out.events.push(AppEvent::Focus(crate::msg::PaneId::Verdict));
                    }
                }
                _ => out.info("this row is being read from the local index"),
            },
            Command::Select => self.open_selected(sh, out),
            Command::Copy | Command::CopyUpdateId if in_index => {
                if let Some(row) = r.selected().filter(|r| !r.update_id.is_empty()) {
                    out.copy("update id", row.update_id.clone());
                }
            }
            Command::Copy => self.copy_selected(sh, out),
            Command::Refresh if r.on_index_row() => {
                out.events.push(AppEvent::Timeline(TimelineIntent::Reread));
            }
            // The `/` filter works on loaded rows: over the index it is the whole-history
            // search, which says so.
            Command::Filter | Command::SearchIndex => {
                self.open_index_search(sh, out);
                self.index_search_set_viewport();
            }
            Command::FollowTail => {
                self.close_timeline(out);
                self.follow(sh);
            }
            Command::Back | Command::Cancel => self.close_timeline(out),
            Command::Export => out.info(
                "e exports the loaded rows (Esc drops the index's rows); X exports a range from the server",
            ),
            Command::Sort | Command::SortReverse => {
                out.info("the History list is in ledger order: it does not sort");
            }
            _ => return None,
        }
        Some(true)
    }

    /// Rows of the list in the pane's area (the border, the header and the last line).
    pub fn timeline_viewport(&self) -> usize {
        usize::from(self.area.height.saturating_sub(4).max(1))
    }

    /// Draws the one list (the index's rows, then the loaded rows) over the whole pane.
    pub(super) fn render_index_range(
        &self,
        r: &Timeline,
        area: Rect,
        buf: &mut Buffer,
        cx: RenderCtx<'_>,
    ) {
        let RenderCtx { sh, theme, focused } = cx;
        let above = r.above();
        let (loaded, loaded_cursor) = self.loaded_rows(&sh.history);
        let mut joint = r.joint;
        joint.set_len(above + loaded);
        joint.select(match r.at {
            At::Index => r.joint_of(Place::Index(r.list.cursor())),
            At::Scan(g, k) => r.joint_of(Place::Scan(g, k)),
            At::Loaded => above + loaded_cursor,
        });
        // Whether the index lacks parts of the list (read from the scan).
        let gaps = r.fill.as_ref().is_some_and(|f| !f.gaps().is_empty());
        let mut title = vec![Span::styled("History", theme.title)];
        let newest = sh
            .history
            .last()
            .map(crate::model::summary::UpdateSummary::record_time)
            .or_else(|| sh.index.reach.as_ref().and_then(|reach| reach.last));
        let oldest = r.row(0).and_then(|row| row.record_time).unwrap_or(r.since);
        if let Some(last) = newest {
            title.push(Span::styled(
                format!(
                    " · {}",
                    loaded_range(sh, oldest, last, area.width >= DATED_RANGE_WIDTH)
                ),
                theme.muted,
            ));
        }
        let mut compact = None;
        let count = match r.list.total() {
            Some(i) => {
                let scan = r.scan_rows();
                // The events with a verdict and no update are counted apart from the updates.
                let verdict_only = r.verdict_only.unwrap_or(0).min(i);
                let updates = i - verdict_only + scan as u64 + loaded as u64;
                let noun = if updates == 1 { "update" } else { "updates" };
                let source = if gaps {
                    format!("local index, {} from the scan", group_thousands(scan))
                } else {
                    "local index".to_owned()
                };
                let apart = if verdict_only > 0 {
                    format!(" · {} verdict only", group_thousands(verdict_only))
                } else {
                    String::new()
                };
                let tail = format!("({source}) · {} loaded", group_thousands(loaded));
                let updates = group_thousands(updates);
                if verdict_only > 0 && gaps {
                    // The scan's share named too: without the verdict-only count, should the
                    // whole title not fit (the loaded rows' count and state stay in view).
                    compact = Some(format!(" · {updates} {noun} {tail}"));
                }
                format!(" · {updates} {noun}{apart} {tail}")
            }
            None => " · counting (local index)…".to_owned(),
        };
        let count_at = title.len();
        title.push(Span::styled(count, theme.muted));
        if let Some(aim) = r.aiming() {
            // The selection goes to a part the index lacks: it lands once the scan sent it.
            let (at, t) = match aim {
                Aim::At(t) => ("at", t),
                Aim::Above(t) => ("before", t),
            };
            title.push(Span::styled(" · ", theme.muted));
            title.push(Span::styled(
                format!(
                    "reading the updates {at} {} {} from the scan…",
                    sh.format_time(t),
                    sh.zone_label()
                ),
                theme.muted,
            ));
        } else if let Some(fill) = r.fill.as_ref().filter(|_| gaps) {
            let state = match fill.end() {
                None => Some(("reading the index's gaps from the scan…", theme.muted)),
                Some(FillEnd::Budget) => {
                    Some(("memory budget full: gaps read in part", theme.status_warn))
                }
                Some(FillEnd::Failed) => Some(("gaps: the scan failed", theme.status_err)),
                Some(FillEnd::Done) => None,
            };
            if let Some((text, style)) = state {
                title.push(Span::styled(" · ", theme.muted));
                title.push(Span::styled(text, style));
            }
        }
        for (text, tone) in self.status_parts(sh) {
            let style = match tone {
                super::table::StatusTone::Ok => theme.status_ok,
                super::table::StatusTone::Warn => theme.status_warn,
                super::table::StatusTone::Err => theme.status_err,
                super::table::StatusTone::Muted => theme.muted,
            };
            title.push(Span::styled(" · ", theme.muted));
            title.push(Span::styled(text, style));
        }
        let migration = match r.selected() {
            Some(row) if row.record_time.is_some() => Some(row.migration_id),
            Some(_) => None,
            None if !r.in_index() => self
                .selected(sh)
                .map(crate::model::summary::UpdateSummary::migration_id),
            None => None,
        }
        .filter(|_| area.width >= 100);
        // The room beside the borders and the migration's label on the right.
        let room = usize::from(area.width).saturating_sub(
            2 + migration.map_or(0, |m| format!("migration {m}").chars().count() + 1),
        );
        if let Some(compact) = compact
            && Line::from(title.clone()).width() > room
        {
            title[count_at] = Span::styled(compact, theme.muted);
        }
        let title = Line::from(title);
        let title_width = title.width();
        let mut block = Block::bordered()
            .border_style(theme.border_style(focused))
            .title(title);
        if let Some(m) = migration {
            block = block
                .title_top(Line::styled(format!("migration {m}"), theme.muted).right_aligned());
        }
        let inner = block.inner(area);
        // The rows in view (below the header, above the keys' line).
        let list = Rect::new(
            inner.x,
            inner.y + 1,
            inner.width,
            inner.height.saturating_sub(2),
        );
        let shown = joint.visible_range(usize::from(list.height));
        let start = shown.start;
        let rows: Vec<JointRow<'_>> = shown
            .map(|i| {
                if i < above {
                    return JointRow::Index(r.row(i).unwrap_or(&READING));
                }
                self.view
                    .index(i - above)
                    .and_then(|k| sh.history.get(k))
                    .map_or(JointRow::Index(&READING), JointRow::Loaded)
            })
            .collect();
        let in_view: Vec<&JointRow<'_>> = rows.iter().collect();
        let (cols, notes) = self.columns.folded(list.width, &in_view, sh);
        let block = with_notes(block, None, &notes, title_width, area.width, theme);
        block.render(area, buf);
        if inner.height < 3 || inner.width < 10 {
            return;
        }
        let bottom = inner.y + inner.height - 1;
        let keys = if gaps {
            "the local index (its gaps from the scan), then the loaded rows · ↵ open · Esc loaded rows only · f follow · F search the index"
        } else {
            "the local index, then the loaded rows · ↵ open · Esc loaded rows only · f follow · F search the index"
        };
        put_line(buf, inner.x, bottom, inner.width, keys, theme.muted);
        let draw = Draw::new(sh, theme, focused);
        cols.render_header::<IndexedRow>(Rect::new(inner.x, inner.y, inner.width, 1), buf, &draw);
        if list.height == 0 {
            return;
        }
        if joint.is_empty() {
            let text = if let Some(e) = r.list.error() {
                e.to_owned()
            } else if r.list.total().is_none() {
                "reading the local index…".to_owned()
            } else {
                "the local index holds no update from here on".to_owned()
            };
            put_line(
                buf,
                list.x,
                list.y,
                list.width,
                &text,
                theme.muted.add_modifier(Modifier::ITALIC),
            );
            return;
        }
        let at = |i: usize| i.checked_sub(start).and_then(|k| rows.get(k));
        cols.render_rows(list, buf, &joint, at, &draw);
    }
}
