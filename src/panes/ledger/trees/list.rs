//! The list of a trees answer: its columns, and what each item (transaction tree, offset
//! checkpoint, reassignment) shows in them.

use std::borrow::Cow;

use ratatui::style::Style;

use crate::api::ledger::{JsGetUpdateTreesResponse, JsReassignmentEvent, TreeEvent, Update};
use crate::model::summary::{short_id, short_template};
use crate::panes::Shared;
use crate::ui::format::server_time;
use crate::ui::table::{Cell, Column, Columns, SortKey, TableRow, Width};
use crate::ui::theme::Theme;

/// The columns of the list of the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeCol {
    Kind,
    Offset,
    Update,
    Events,
    Time,
    What,
}

impl TreeCol {
    /// From 110 columns on: longer update ids and the record time.
    pub(super) fn columns() -> Columns<TreeCol> {
        Columns::new(vec![
            Column::new(TreeCol::Kind, "kind", Width::Fixed(12)),
            Column::new(TreeCol::Offset, "offset", Width::Fixed(8)).right(),
            Column::new(
                TreeCol::Update,
                "update",
                Width::Wide {
                    narrow: 12,
                    wide: 20,
                    from: 110,
                },
            )
            .priority(3),
            Column::new(TreeCol::Events, "events", Width::Fixed(6))
                .right()
                .descending_first()
                .priority(2),
            Column::new(
                TreeCol::Time,
                "record time",
                Width::Wide {
                    narrow: 0,
                    wide: 23,
                    from: 110,
                },
            )
            .priority(1),
            Column::new(TreeCol::What, "root / what", Width::fill(0)),
        ])
    }
}

impl TableRow for JsGetUpdateTreesResponse {
    type Col = TreeCol;
    /// Times in the session's zone.
    type Ctx = Shared;

    fn cell(&self, col: TreeCol, width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        let (kind, offset, update_id, events, time, what) = describe(self);
        match col {
            TreeCol::Kind => {
                let style = match kind {
                    "tree" | "transaction" => theme.exercised,
                    "reassignment" => theme.assign,
                    "checkpoint" => theme.muted,
                    _ => theme.status_warn,
                };
                Cell::new(kind, style)
            }
            TreeCol::Offset => Cell::new(
                offset.map(|o| o.to_string()).unwrap_or_default(),
                theme.accent,
            ),
            TreeCol::Update => Cell::new(
                short_id(&update_id, usize::from(width).saturating_sub(1)),
                theme.id,
            ),
            TreeCol::Events => Cell::new(
                events.map(|e| e.to_string()).unwrap_or_default(),
                Style::default(),
            ),
            TreeCol::Time => Cell::new(server_time(&time, "", |us| sh.format_time(us)), theme.time),
            TreeCol::What => Cell::new(what, theme.muted),
        }
    }

    fn sort_key(&self, col: TreeCol) -> SortKey<'_> {
        let (kind, offset, update_id, events, time, what) = describe(self);
        let int = |v: Option<i128>| v.map_or(SortKey::Missing, SortKey::Int);
        match col {
            TreeCol::Kind => SortKey::Text(Cow::Borrowed(kind)),
            TreeCol::Offset => int(offset.map(i128::from)),
            TreeCol::Update => SortKey::Text(Cow::Owned(update_id)),
            TreeCol::Events => int(events.map(|e| e as i128)),
            TreeCol::Time => SortKey::Text(Cow::Owned(time)),
            TreeCol::What => SortKey::Text(Cow::Owned(what)),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        let (kind, offset, update_id, _, _, what) = describe(self);
        let offset = offset.map(|o| o.to_string()).unwrap_or_default();
        Cow::Owned(format!("{kind} {offset} {update_id} {what}"))
    }
}

/// (kind, offset, update id, events, record time, description) of a list item.
pub(super) fn describe(
    item: &JsGetUpdateTreesResponse,
) -> (
    &'static str,
    Option<i64>,
    String,
    Option<usize>,
    String,
    String,
) {
    match &item.update {
        Update::TransactionTree(t) => {
            let root = t
                .nodes_in_order()
                .first()
                .map(|(_, e)| match e {
                    TreeEvent::ExercisedTreeEvent(x) => {
                        format!("exercised {} {}", x.choice, short_template(&x.template_id))
                    }
                    TreeEvent::CreatedTreeEvent(c) => {
                        format!("created {}", short_template(&c.template_id))
                    }
                    TreeEvent::Unknown { kind, .. } => kind.clone(),
                })
                .unwrap_or_default();
            (
                "tree",
                Some(t.offset),
                t.update_id.clone(),
                Some(t.events_by_id.len()),
                t.record_time.clone(),
                root,
            )
        }
        Update::Transaction(t) => (
            "transaction",
            Some(t.offset),
            t.update_id.clone(),
            Some(t.events.len()),
            t.record_time.clone(),
            String::new(),
        ),
        Update::Reassignment(r) => {
            let what = r
                .events
                .first()
                .map(|e| match e {
                    JsReassignmentEvent::JsAssignmentEvent(a) => format!(
                        "assigned {} {}",
                        short_template(&a.created_event.template_id),
                        short_id(&a.created_event.contract_id, 12)
                    ),
                    JsReassignmentEvent::JsUnassignedEvent(u) => format!(
                        "unassigned {} {}",
                        short_template(&u.template_id),
                        short_id(&u.contract_id, 12)
                    ),
                    JsReassignmentEvent::Unknown { kind, .. } => kind.clone(),
                })
                .unwrap_or_default();
            (
                "reassignment",
                Some(r.offset),
                r.update_id.clone(),
                Some(r.events.len()),
                r.record_time.clone(),
                what,
            )
        }
        Update::OffsetCheckpoint(c) => (
            "checkpoint",
            Some(c.offset),
            String::new(),
            None,
            c.synchronizer_times
                .first()
                .map(|s| s.record_time.clone())
                .unwrap_or_default(),
            format!("{} synchronizer(s)", c.synchronizer_times.len()),
        ),
        Update::Unknown { kind, .. } => (
            "other",
            None,
            String::new(),
            None,
            String::new(),
            kind.clone(),
        ),
    }
}
