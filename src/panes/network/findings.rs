//! The Findings section: the network's findings log, as the app keeps it
//! (`feed::health`'s `findings`, from the data directory: what the explorer, `network health`,
//! `check`, the sweep and the index found) — open ones first, then what cleared, newest first;
//! `a` acknowledges the selected finding for four hours (again: takes it back), Enter opens what
//! explains it (the update checked on every scan, or the scan's row).

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::NetworkPane;
use crate::feed::health::HealthIntent;
use crate::model::findings::{Finding, FindingKind, FindingOp};
use crate::panes::form::paragraph;
use crate::panes::{AppEvent, Out, RenderCtx, Shared};
use crate::ui::layout::heading;
use crate::ui::safe::safe_line;
use crate::ui::table::{Cell, Column, Columns, DataTable, Draw, SortKey, TableRow, Width};
use crate::ui::theme::Theme;

/// How long `a` quiets a finding (µs): four hours.
pub const ACK_FOR_US: i64 = 4 * 3600 * 1_000_000;

/// One finding as the section lists it, judged at the app's clock when it was taken in.
#[derive(Debug, Clone, PartialEq)]
pub struct FindingRow {
    pub finding: Finding,
    /// `open`, `acked`, `cleared`.
    pub state: &'static str,
    /// The finding's id (for `a`).
    pub id: String,
}

/// The columns of the findings table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindingCol {
    State,
    Kind,
    Subject,
    Since,
    Cleared,
    Update,
    Path,
    FoundBy,
    Detail,
}

impl TableRow for FindingRow {
    type Col = FindingCol;
    type Ctx = Shared;

    fn cell(&self, col: FindingCol, _width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        let f = &self.finding;
        let time = |t: i64| {
            let s = sh.format_time(t);
            s.get(5..19).unwrap_or(&s).to_owned()
        };
        match col {
            FindingCol::State => Cell::new(
                self.state,
                match self.state {
                    "open" => theme.status_err,
                    "acked" => theme.status_warn,
                    _ => theme.muted,
                },
            ),
            FindingCol::Kind => Cell::new(f.kind.words(), theme.accent),
            FindingCol::Subject => Cell::new(safe_line(&f.name, 40).into_owned(), theme.header),
            FindingCol::Since => Cell::new(time(f.first_seen), theme.time),
            FindingCol::Cleared => {
                Cell::new(f.cleared_at.map(time).unwrap_or_default(), theme.time)
            }
            FindingCol::Update => Cell::new(f.update_id.as_deref().unwrap_or(""), theme.id),
            FindingCol::Path => Cell::new(
                safe_line(f.path.as_deref().unwrap_or(""), 80).into_owned(),
                theme.json_key,
            ),
            FindingCol::FoundBy => Cell::new(f.found_by.name(), theme.muted),
            FindingCol::Detail => Cell::new(safe_line(&f.detail, 200).into_owned(), theme.muted),
        }
    }

    fn sort_key(&self, col: FindingCol) -> SortKey<'_> {
        let f = &self.finding;
        match col {
            FindingCol::State => SortKey::Text(Cow::Borrowed(self.state)),
            FindingCol::Kind => SortKey::Text(Cow::Borrowed(f.kind.words())),
            FindingCol::Subject => SortKey::Text(Cow::Borrowed(&f.name)),
            FindingCol::Since => SortKey::Int(f.first_seen.into()),
            FindingCol::Cleared => SortKey::Int(f.cleared_at.unwrap_or(0).into()),
            FindingCol::Update => {
                SortKey::Text(Cow::Borrowed(f.update_id.as_deref().unwrap_or("")))
            }
            FindingCol::Path => SortKey::Text(Cow::Borrowed(f.path.as_deref().unwrap_or(""))),
            FindingCol::FoundBy => SortKey::Text(Cow::Borrowed(f.found_by.name())),
            FindingCol::Detail => SortKey::Text(Cow::Borrowed(&f.detail)),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        let f = &self.finding;
        Cow::Owned(format!(
            "{} {} {} {} {} {} {}",
            self.state,
            f.kind.words(),
            f.name,
            f.update_id.as_deref().unwrap_or(""),
            f.path.as_deref().unwrap_or(""),
            f.found_by.name(),
            f.detail
        ))
    }
}

pub(super) fn findings_table() -> DataTable<FindingCol> {
    DataTable::new(Columns::new(vec![
        Column::new(FindingCol::State, "State", Width::Fixed(7)),
        Column::new(FindingCol::Kind, "Kind", Width::Fixed(16)),
        Column::new(
            FindingCol::Subject,
            "Subject",
            Width::Fill { min: 10, weight: 2 },
        ),
        Column::new(FindingCol::Since, "Since", Width::Fixed(14)),
        Column::new(FindingCol::Cleared, "Cleared", Width::Fixed(14)).priority(2),
        Column::new(
            FindingCol::Update,
            "Update",
            Width::Fill { min: 8, weight: 1 },
        )
        .priority(3),
        Column::new(FindingCol::Path, "Path", Width::Fill { min: 8, weight: 1 }).priority(3),
        Column::new(FindingCol::FoundBy, "Found by", Width::Fixed(12)).priority(2),
        Column::new(
            FindingCol::Detail,
            "Detail",
            Width::Fill { min: 10, weight: 3 },
        )
        .priority(1),
    ]))
}

/// The rows of `sh`'s findings: open (and acknowledged) ones first, newest first in each.
pub(super) fn finding_rows(sh: &Shared) -> Vec<FindingRow> {
    let now = sh.now;
    let mut rows: Vec<FindingRow> = sh
        .health
        .network
        .findings
        .findings
        .iter()
        .map(|f| FindingRow {
            state: if !f.is_open() {
                "cleared"
            } else if f.is_acked(now) {
                "acked"
            } else {
                "open"
            },
            id: f.id(),
            finding: f.clone(),
        })
        .collect();
    rows.sort_by_key(|r| {
        (
            u8::from(!r.finding.is_open()),
            std::cmp::Reverse(r.finding.cleared_at.unwrap_or(r.finding.last_seen)),
        )
    });
    rows
}

impl NetworkPane {
    /// Takes the app's findings in (after a measurement or a change); whether they changed.
    pub(super) fn sync_findings(&mut self, sh: &Shared) -> bool {
        let rows = finding_rows(sh);
        if rows == self.findings {
            return false;
        }
        self.findings = rows;
        self.findings_table.reset_rows(&self.findings);
        true
    }

    /// The selected finding.
    pub fn selected_finding(&self) -> Option<&FindingRow> {
        self.findings_table.selected_row(&self.findings)
    }

    /// The findings listed.
    pub fn finding_rows(&self) -> &[FindingRow] {
        &self.findings
    }

    /// `a`: acknowledges the selected finding for four hours, or takes the acknowledgement back.
    pub(super) fn acknowledge(&mut self, sh: &Shared, out: &mut Out) {
        let Some(row) = self.selected_finding() else {
            out.info("no finding selected");
            return;
        };
        if !row.finding.is_open() {
            out.info("this finding has cleared: nothing to acknowledge");
            return;
        }
        let acked = row.finding.is_acked(sh.now);
        let until = (!acked).then(|| sh.now + ACK_FOR_US);
        out.info(if acked {
            format!(
                "{}: acknowledgement taken back",
                safe_line(&row.finding.name, 40)
            )
        } else {
            format!(
                "{}: acknowledged for 4h (listed, no bell, not counted by check)",
                safe_line(&row.finding.name, 40)
            )
        });
        out.events.push(AppEvent::Health(HealthIntent::Record(vec![
            FindingOp::Ack {
                id: row.id.clone(),
                until,
            },
        ])));
    }

    /// Enter: what explains the selected finding — the update checked on every scan, or the
    /// scan's row of the matrix.
    pub(super) fn open_finding(&mut self, sh: &Shared, out: &mut Out) {
        let Some(row) = self.selected_finding() else {
            return;
        };
        let f = &row.finding;
        match (&f.update_id, f.kind) {
            (Some(id), FindingKind::Forked | FindingKind::DivergedHistory) => {
                out.events.push(AppEvent::CheckUpdate(id.clone()));
            }
            (_, FindingKind::Forked | FindingKind::DivergedHistory | FindingKind::ScanDown) => {
                let scan = sh.health.network.snapshot.as_ref().and_then(|s| {
                    s.entries
                        .iter()
                        .position(|e| crate::model::network::same_url(&e.url, &f.subject))
                });
                out.events.push(AppEvent::ShowScan(scan));
            }
            (_, FindingKind::VoteNeeded) => {
                out.events
                    .push(AppEvent::Focus(crate::panes::PaneId::Governance));
            }
            (_, FindingKind::NodeAlert) => {
                out.events
                    .push(AppEvent::Focus(crate::panes::PaneId::Status));
            }
        }
    }

    pub(super) fn render_findings(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { sh, theme, focused } = cx;
        if self.findings.is_empty() {
            paragraph(
                area,
                buf,
                "No finding kept for this network: no scan has been found forked, diverged or \
                 down (by the head check, b, a sweep, the index or check), and no alert fired.",
                theme.muted,
            );
            return;
        }
        let open = self.findings.iter().filter(|r| r.state == "open").count();
        let acked = self.findings.iter().filter(|r| r.state == "acked").count();
        let line = format!(
            "{open} open · {acked} acknowledged · {} cleared (kept 14 days) · a acknowledge 4h · ↵ open",
            self.findings.len() - open - acked
        );
        let table = heading(buf, area, &line, theme.muted);
        // The times in the zone the user chose.
        let draw = Draw::new(sh, theme, focused);
        self.findings_table
            .render(table, buf, &self.findings, &draw);
    }
}
