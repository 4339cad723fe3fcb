//! The contract lifecycle list of the Update pane (`c` on a contract not created in the open
//! update): a modal list of the loaded updates touching the contract (a [`Lifecycle`] from the
//! model), with a "jump to creation" row first when the creation is loaded.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use crate::api::scan::TreeEvent;
use crate::model::lifecycle::{LifeEntry, Lifecycle, Step};
use crate::model::summary::short_id;
use crate::msg::Command;
use crate::ui::safe::{safe_line, sanitize};
use crate::ui::scroll::ScrollState;
use crate::ui::theme::Theme;

use super::{Content, Focus, Out, Shared, UpdatePane, Want};
use crate::model::index::read::{IndexAnswer, IndexRead, LIFECYCLE_MAX};
use crate::msg::{Fetched, Request, RequestId, UNEXPECTED_INDEX_ANSWER};

/// One selectable row of the lifecycle list.
#[derive(Debug, Clone)]
struct LifeRow {
    entry: LifeEntry,
    /// The "jump to creation" row.
    jump: bool,
    /// The update open now.
    current: bool,
}

/// The lifecycle list of a contract: a [`Lifecycle`] from the loaded history as rows, the
/// creation first again as a "jump to creation" row when it is loaded. With a local index, the
/// whole lifecycle is read from it and replaces the loaded one when it arrives.
#[derive(Debug, Clone)]
pub(super) struct LifecycleList {
    contract_id: String,
    rows: Vec<LifeRow>,
    /// Shown above the rows (e.g. "created before the loaded history").
    note: Option<String>,
    pub(super) scroll: ScrollState,
    /// The read of the whole lifecycle from the local index, while awaited.
    pending: Option<RequestId>,
    /// The rows are the index's (the whole history it keeps), not the loaded updates'.
    from_index: bool,
}

impl LifecycleList {
    /// The update ids of the rows (the "jump to creation" row included).
    pub(super) fn update_ids(&self) -> Vec<String> {
        self.rows
            .iter()
            .map(|r| r.entry.update_id.clone())
            .collect()
    }
}

impl UpdatePane {
    /// The contract of the selected event (or of the reassignment).
    fn selected_contract(&self) -> Option<String> {
        let cid = match &self.content {
            Some(Content::Tx(v)) => v
                .state
                .selected()
                .and_then(|n| v.tree.event(n))
                .map(|e| e.contract_id().to_string()),
            Some(Content::Reassign(_)) => self
                .reassignment()
                .map(|r| r.event.contract_id().to_string()),
            _ => None,
        }?;
        (!cid.is_empty()).then_some(cid)
    }

    /// `c`: the creating event when it is in this transaction, else the lifecycle list.
    pub(super) fn follow_contract(&mut self, sh: &mut Shared, out: &mut Out) {
        let Some(cid) = self.selected_contract() else {
            out.warn("the selected event is on no contract");
            return;
        };
        if let Some(Content::Tx(v)) = &mut self.content {
            let creation = v
                .tree
                .nodes_on_contract(&cid)
                .into_iter()
                .find(|&n| matches!(v.tree.event(n), Some(TreeEvent::Created(_))));
            if let Some(n) = creation
                && v.state.selected() != Some(n)
            {
                v.state.select_node(&v.tree, n);
                self.focus = Focus::Tree;
                self.sync_details();
                out.info("selected the event creating this contract (c again: its lifecycle)");
                return;
            }
        }
        let mut list = build_lifecycle(&cid, self.update_id.as_deref(), sh);
        if sh.index.usable() {
            // The whole lifecycle, from the local index (the loaded one shows meanwhile).
            list.pending = Some(out.fetch(
                sh,
                Request::Index(IndexRead::Lifecycle {
                    contract_id: cid.clone(),
                }),
            ));
            list.note = Some("reading the whole lifecycle from the local index…".into());
        }
        self.lifecycle = Some(list);
        self.apply_viewports();
    }

    /// The whole lifecycle read from the local index: it replaces the loaded one.
    pub(super) fn on_index_lifecycle(&mut self, reply: &Fetched, sh: &Shared, out: &mut Out) {
        let current = self.update_id.clone();
        let Some(l) = &mut self.lifecycle else {
            return;
        };
        if l.pending != Some(reply.id) {
            return;
        }
        l.pending = None;
        let answer = reply.index_answer();
        match answer {
            Ok(IndexAnswer::Lifecycle { life, more }) => {
                let mut list = lifecycle_rows(&life, current.as_deref());
                list.from_index = true;
                list.note = match (life.creation(), more) {
                    (_, true) => Some(format!(
                        "the newest {LIFECYCLE_MAX} updates of the local index touching it"
                    )),
                    (Some(_), false) => None,
                    (None, false) => Some(match sh.index.reach.as_ref().and_then(|r| r.first) {
                        Some(first) => format!(
                            "created before the local index reaches (its oldest update: {} {})",
                            sh.format_time(first),
                            sh.zone_label()
                        ),
                        None => "created before the local index reaches".to_owned(),
                    }),
                };
                *l = list;
                self.apply_viewports();
            }
            Ok(_) => l.note = Some(UNEXPECTED_INDEX_ANSWER.into()),
            Err(e) => {
                l.note = Some(format!("the local index could not be read: {e}"));
                out.error(format!("contract lifecycle: {e}"));
            }
        }
    }

    pub(super) fn lifecycle_command(
        &mut self,
        cmd: Command,
        sh: &mut Shared,
        out: &mut Out,
    ) -> bool {
        let Some(l) = &mut self.lifecycle else {
            return false;
        };
        match cmd {
            Command::Up => l.scroll.up(1),
            Command::Down => l.scroll.down(1),
            Command::PageUp => l.scroll.page_up(),
            Command::PageDown => l.scroll.page_down(),
            Command::Top => l.scroll.top(),
            Command::Bottom => l.scroll.bottom(),
            Command::Back | Command::Cancel | Command::FollowContract => self.lifecycle = None,
            Command::Select | Command::Confirm | Command::Toggle | Command::Expand => {
                let Some(row) = l.rows.get(l.scroll.cursor()).cloned() else {
                    return true;
                };
                let want = Want::Contract {
                    id: l.contract_id.clone(),
                    prefer_create: row.jump,
                };
                self.lifecycle = None;
                self.navigate(&row.entry.update_id, want, sh, out);
            }
            Command::Copy => {
                if let Some(r) = l.rows.get(l.scroll.cursor()) {
                    out.copy("update id", sanitize(&r.entry.update_id).into_owned());
                }
            }
            // Everything else is swallowed while the list is open (it is modal).
            _ => {}
        }
        true
    }

    pub(super) fn render_lifecycle(
        &self,
        l: &LifecycleList,
        area: Rect,
        buf: &mut Buffer,
        sh: &Shared,
        theme: &Theme,
    ) {
        if area.width < 4 || area.height < 3 {
            return;
        }
        let rows = l.rows.len() + usize::from(l.note.is_some()) + 1;
        let w = area
            .width
            .saturating_sub(2)
            .min(110)
            .max(area.width.min(20));
        let h = (rows as u16 + 2).min(area.height);
        let rect = crate::ui::layout::centered(area, w, h);
        Clear.render(rect, buf);
        let title = format!(
            " contract {} · lifecycle in {} ",
            short_id(&sanitize(&l.contract_id), 16),
            if l.from_index {
                "the local index"
            } else {
                "loaded history"
            }
        );
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border_style(true))
            .title(Line::styled(
                safe_line(&title, usize::from(rect.width.saturating_sub(2))).into_owned(),
                theme.title,
            ))
            .style(theme.overlay);
        let inner = block.inner(rect);
        block.render(rect, buf);
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let width = usize::from(inner.width);
        let mut y = inner.y;
        let bottom = inner.y + inner.height;
        if let Some(note) = &l.note {
            buf.set_line(
                inner.x,
                y,
                &Line::styled(safe_line(note, width).into_owned(), theme.status_warn),
                inner.width,
            );
            y += 1;
        }
        // Last row: the keys.
        let list_h = bottom.saturating_sub(y).saturating_sub(1);
        let range = l.scroll.visible_range(usize::from(list_h));
        let cursor = l.scroll.cursor();
        for (k, i) in range.enumerate() {
            let r = &l.rows[i];
            let e = &r.entry;
            let ry = y + k as u16;
            let marker_style = match e.step {
                Step::Created | Step::Assigned => theme.created,
                Step::Archived | Step::Unassigned | Step::CreatedArchived => theme.archived,
                Step::Exercised => theme.exercised,
            };
            let lead = if r.jump {
                "⤒ "
            } else if r.current {
                "● "
            } else {
                "  "
            };
            let label = if r.jump {
                format!("jump to creation ({})", e.label)
            } else {
                e.label.clone()
            };
            let spans = vec![
                Span::styled(lead, theme.accent),
                Span::styled(sh.format_time(e.record_time), theme.time),
                Span::raw("  "),
                Span::styled(short_id(&sanitize(&e.update_id), 14), theme.id),
                Span::raw("  "),
                Span::styled(format!("{:<10}", e.step.as_str()), marker_style),
                Span::raw(" "),
                Span::raw(sanitize(&label).into_owned()),
            ];
            buf.set_line(inner.x, ry, &Line::from(spans), inner.width);
            if i == cursor {
                buf.set_style(
                    Rect::new(inner.x, ry, inner.width, 1),
                    theme.selection_style(true),
                );
            }
        }
        if l.rows.is_empty() && list_h > 0 {
            buf.set_line(
                inner.x,
                y,
                &Line::styled(
                    if l.from_index {
                        "no update of the local index touches this contract"
                    } else {
                        "no loaded update touches this contract"
                    },
                    theme.muted,
                ),
                inner.width,
            );
        }
        let keys = format!(
            "times {} · ● this update · Enter open · y copy id · Esc close",
            sh.zone_label()
        );
        buf.set_line(
            inner.x,
            bottom - 1,
            &Line::styled(safe_line(&keys, width).into_owned(), theme.muted),
            inner.width,
        );
    }
}

/// The lifecycle list of `contract_id` (`current`: the update open now).
fn build_lifecycle(contract_id: &str, current: Option<&str>, sh: &Shared) -> LifecycleList {
    let life = Lifecycle::build(&sh.history, contract_id);
    let note = match life.creation() {
        Some(_) => None,
        None => Some(match sh.history.first() {
            Some(first) => format!(
                "created before the loaded history (oldest loaded update: {} {})",
                sh.format_time(first.record_time()),
                sh.zone_label()
            ),
            None => "created before the loaded history (no history loaded)".to_string(),
        }),
    };
    let mut list = lifecycle_rows(&life, current);
    list.note = note;
    list
}

/// The rows of a lifecycle (`current`: the update open now), without a note.
fn lifecycle_rows(life: &Lifecycle, current: Option<&str>) -> LifecycleList {
    let row = |entry: &LifeEntry, jump: bool| LifeRow {
        current: current == Some(entry.update_id.as_str()),
        entry: entry.clone(),
        jump,
    };
    let mut rows: Vec<LifeRow> = life.creation().map(|c| row(c, true)).into_iter().collect();
    rows.extend(life.entries.iter().map(|e| row(e, false)));
    let mut scroll = ScrollState::new(rows.len());
    if let Some(i) = rows.iter().position(|r| r.current && !r.jump) {
        scroll.select(i);
    }
    LifecycleList {
        contract_id: life.contract_id.clone(),
        rows,
        note: None,
        scroll,
        pending: None,
        from_index: false,
    }
}
