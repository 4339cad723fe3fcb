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
        let d = describe(self);
        match col {
            TreeCol::Kind => {
                let style = match d.kind {
                    "tree" | "transaction" => theme.exercised,
                    "reassignment" => theme.assign,
                    "checkpoint" => theme.muted,
                    _ => theme.status_warn,
                };
                Cell::new(d.kind, style)
            }
            TreeCol::Offset => Cell::new(
                d.offset.map(|o| o.to_string()).unwrap_or_default(),
                theme.accent,
            ),
            TreeCol::Update => Cell::new(
                short_id(&d.update_id, usize::from(width).saturating_sub(1)),
                theme.id,
            ),
            TreeCol::Events => Cell::new(
                d.events.map(|e| e.to_string()).unwrap_or_default(),
                Style::default(),
            ),
            TreeCol::Time => Cell::new(
                server_time(&d.time, "", |us| sh.format_time(us)),
                theme.time,
            ),
            TreeCol::What => Cell::new(d.what, theme.muted),
        }
    }

    fn sort_key(&self, col: TreeCol) -> SortKey<'_> {
        let d = describe(self);
        let int = |v: Option<i128>| v.map_or(SortKey::Missing, SortKey::Int);
        match col {
            TreeCol::Kind => SortKey::Text(Cow::Borrowed(d.kind)),
            TreeCol::Offset => int(d.offset.map(i128::from)),
            TreeCol::Update => SortKey::Text(Cow::Owned(d.update_id)),
            TreeCol::Events => int(d.events.map(|e| e as i128)),
            TreeCol::Time => SortKey::Text(Cow::Owned(d.time)),
            TreeCol::What => SortKey::Text(Cow::Owned(d.what)),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        let d = describe(self);
        let offset = d.offset.map(|o| o.to_string()).unwrap_or_default();
        Cow::Owned(format!("{} {offset} {} {}", d.kind, d.update_id, d.what))
    }
}

/// What a list item shows in the columns.
#[derive(Debug, Default)]
pub(super) struct Described {
    pub kind: &'static str,
    pub offset: Option<i64>,
    /// Empty for a checkpoint (and an unknown kind).
    pub update_id: String,
    pub events: Option<usize>,
    /// The record time as sent.
    pub time: String,
    /// The root event, the reassigned contract, or the synchronizer count.
    pub what: String,
}

impl Described {
    /// An update of `kind`: `events` events at `offset`, recorded at `time`.
    fn update(
        kind: &'static str,
        offset: i64,
        update_id: &str,
        events: usize,
        time: &str,
        what: String,
    ) -> Self {
        Described {
            kind,
            offset: Some(offset),
            update_id: update_id.to_owned(),
            events: Some(events),
            time: time.to_owned(),
            what,
        }
    }
}

/// What a list item shows.
pub(super) fn describe(item: &JsGetUpdateTreesResponse) -> Described {
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
            Described::update(
                "tree",
                t.offset,
                &t.update_id,
                t.events_by_id.len(),
                &t.record_time,
                root,
            )
        }
        Update::Transaction(t) => Described::update(
            "transaction",
            t.offset,
            &t.update_id,
            t.events.len(),
            &t.record_time,
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
            Described::update(
                "reassignment",
                r.offset,
                &r.update_id,
                r.events.len(),
                &r.record_time,
                what,
            )
        }
        Update::OffsetCheckpoint(c) => Described {
            kind: "checkpoint",
            offset: Some(c.offset),
            time: c
                .synchronizer_times
                .first()
                .map(|s| s.record_time.clone())
                .unwrap_or_default(),
            what: format!("{} synchronizer(s)", c.synchronizer_times.len()),
            ..Described::default()
        },
        Update::Unknown { kind, .. } => Described {
            kind: "other",
            what: kind.clone(),
            ..Described::default()
        },
    }
}
