//! The consensus view of one update (`:bft <update_id>`, `b` in History, Update and here): every
//! scan's answer to `GET /v2/updates/{id}` and to `GET /v0/events/{id}` (its verdict, compared
//! without the fields local to one scan), each scan classified as agree / disagree / don't know
//! (grey: its history ends before the update, or it is still backfilling) / error / unreachable
//! / timeout, with its latency; a verdict line per endpoint; the JSON paths where the selected
//! scan differs, with both values: beside the table from [`WIDE_DIFF`] columns on; below that,
//! Enter on a scan that differs shows its differences instead of the table (the whole body,
//! ↑/↓ scroll them) and Esc goes back to the table.
//!
//! ```text
//! Update 1220ab…  checked 10:41:07
//! update  consensus: 11 of 13 agree on one answer (quorum 5) ✓ · 1 disagrees · 1 without an answer
//! verdict consensus: 11 of 13 agree on one answer (quorum 5) ✓ · 1 disagrees · 1 without an answer
//! SV               Update      Verdict     Latency  Detail
//! Gemini-Labs-2    disagree    disagree      31 ms  $.workflow_id
//! ── Gemini-Labs-2 · update: 1 difference ─────────────
//! $.workflow_id  quorum "wf"  this "wf-diverged"
//! ```

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;

use crate::api::ApiCall;
use crate::model::consensus::{Difference, ScanClass, UpdateCheck};
use crate::model::network::NetworkCheck;
use crate::msg::{Effect, Fetched, Request, Response};
use crate::panes::form::{Load, cell, paragraph};
use crate::panes::{Out, RenderCtx, Shared};
use crate::ui::format::short_event_id;
use crate::ui::table::{Cell, Column, Columns, DataTable, Draw, SortKey, TableRow, Width};
use crate::ui::theme::Theme;

use super::NetworkPane;

/// One scan in the consensus view.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckRow {
    pub index: usize,
    pub sv_name: String,
    pub update: ScanClass,
    /// The verdict's class (`None` for a query that is not an update).
    pub event: Option<ScanClass>,
    pub latency_ms: Option<u32>,
}

/// The short label of a class: `agree`, `disagree`, `don't know`, `error 500`, `unreachable`,
/// `timeout`, `unconfirmed`.
pub fn class_label(class: &ScanClass) -> Cow<'static, str> {
    match class {
        ScanClass::Agree => "agree".into(),
        ScanClass::Disagree { status: 200, .. } => "disagree".into(),
        ScanClass::Disagree { status, .. } => format!("disagree {status}").into(),
        ScanClass::DontKnow(_) => "don't know".into(),
        ScanClass::Unconfirmed => "unconfirmed".into(),
        ScanClass::Error { status, .. } => format!("error {status}").into(),
        ScanClass::Unreachable { .. } => "unreachable".into(),
        ScanClass::Timeout => "timeout".into(),
    }
}

fn class_style(class: &ScanClass, theme: &Theme) -> Style {
    match class {
        ScanClass::Agree => theme.status_ok,
        ScanClass::DontKnow(_) | ScanClass::Unconfirmed => theme.muted,
        ScanClass::Timeout => theme.status_warn,
        ScanClass::Disagree { .. } | ScanClass::Error { .. } | ScanClass::Unreachable { .. } => {
            theme.status_err
        }
    }
}

fn class_rank(class: &ScanClass) -> i128 {
    match class {
        ScanClass::Agree => 0,
        ScanClass::Unconfirmed => 1,
        ScanClass::DontKnow(_) => 2,
        ScanClass::Timeout => 3,
        ScanClass::Unreachable { .. } => 4,
        ScanClass::Error { .. } => 5,
        ScanClass::Disagree { .. } => 6,
    }
}

/// Why a scan's answer says what it says, in one line.
pub fn class_detail(class: &ScanClass) -> String {
    class.detail()
}

/// The columns of the consensus view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckCol {
    Sv,
    Update,
    Event,
    Latency,
    Detail,
}

impl TableRow for CheckRow {
    type Col = CheckCol;
    type Ctx = Shared;

    fn cell(&self, col: CheckCol, _width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        match col {
            CheckCol::Sv => Cell::new(
                format!(
                    "{}{}",
                    super::scans::my_sv_mark(sh, &self.sv_name),
                    self.sv_name
                ),
                theme.accent,
            ),
            CheckCol::Update => {
                Cell::new(class_label(&self.update), class_style(&self.update, theme))
            }
            CheckCol::Event => match &self.event {
                Some(e) => Cell::new(class_label(e), class_style(e, theme)),
                None => Cell::empty(),
            },
            CheckCol::Latency => Cell::new(
                self.latency_ms
                    .map_or_else(|| "—".to_owned(), |ms| format!("{ms} ms")),
                theme.json_number,
            ),
            CheckCol::Detail => {
                let detail = match class_detail(&self.update) {
                    d if d.is_empty() => self.event.as_ref().map(class_detail).unwrap_or_default(),
                    d => d,
                };
                Cell::Rest(detail.into(), theme.muted)
            }
        }
    }

    fn sort_key(&self, col: CheckCol) -> SortKey<'_> {
        match col {
            CheckCol::Sv => SortKey::Text(Cow::Borrowed(&self.sv_name)),
            CheckCol::Update => SortKey::Int(class_rank(&self.update)),
            CheckCol::Event => self
                .event
                .as_ref()
                .map_or(SortKey::Missing, |e| SortKey::Int(class_rank(e))),
            CheckCol::Latency => self
                .latency_ms
                .map_or(SortKey::Missing, |ms| SortKey::Int(i128::from(ms))),
            CheckCol::Detail => SortKey::Missing,
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Owned(format!(
            "{} {} {}",
            self.sv_name,
            class_label(&self.update),
            self.event.as_ref().map(class_label).unwrap_or_default()
        ))
    }
}

/// The table of an update check (`Update`, `Verdict`) or, for a query that is not an update
/// (`query`), of its answers (`Answer`, no verdict).
fn check_table(query: bool) -> DataTable<CheckCol> {
    let mut cols = vec![Column::new(CheckCol::Sv, "SV", Width::Fixed(18))];
    if query {
        cols.push(Column::new(CheckCol::Update, "Answer", Width::Fixed(12)));
    } else {
        cols.push(Column::new(CheckCol::Update, "Update", Width::Fixed(12)));
        cols.push(Column::new(CheckCol::Event, "Verdict", Width::Fixed(12)).priority(3));
    }
    cols.push(
        Column::new(CheckCol::Latency, "Latency", Width::Fixed(8))
            .right()
            .priority(2),
    );
    cols.push(Column::new(CheckCol::Detail, "Detail", Width::fill(0)).priority(1));
    DataTable::new(Columns::new(cols))
}

/// The consensus view's state.
#[derive(Debug)]
pub struct ConsensusState {
    /// The update checked (or being checked).
    pub update_id: Option<String>,
    pub load: Load<NetworkCheck>,
    pub rows: Vec<CheckRow>,
    pub table: DataTable<CheckCol>,
    /// The view is shown in the Scans section (instead of the matrix).
    pub open: bool,
    /// What a pane's query asked (instead of an update).
    pub query: Option<String>,
    /// That query, to ask again (`b`, `r`).
    request: Option<ApiCall>,
    /// The section shown before the view opened: Esc goes back to it.
    back_to: super::NetSection,
    /// The view was opened from another pane (`b` there): Esc goes back to that pane.
    from_pane: bool,
    /// Enter on a scan that differs, on a screen too narrow for the differences beside the
    /// table: they are shown instead of the table until Esc.
    diff_open: bool,
    /// The first difference shown while they fill the body (↑/↓ scroll).
    diff_top: usize,
}

impl Default for ConsensusState {
    fn default() -> Self {
        ConsensusState {
            update_id: None,
            load: Load::Idle,
            rows: Vec::new(),
            table: check_table(false),
            open: false,
            query: None,
            request: None,
            back_to: super::NetSection::Scans,
            from_pane: false,
            diff_open: false,
            diff_top: 0,
        }
    }
}

impl ConsensusState {
    /// Reopened from the matrix (`b` there): Esc goes back to the matrix.
    pub(super) fn back_to_scans(&mut self) {
        self.back_to = super::NetSection::Scans;
        self.from_pane = false;
    }
}

impl NetworkPane {
    /// The consensus check shown (once answered).
    pub fn consensus(&self) -> Option<&NetworkCheck> {
        self.check.load.done()
    }

    /// The rows of the consensus view.
    pub fn consensus_rows(&self) -> &[CheckRow] {
        &self.check.rows
    }

    /// Whether the consensus view is shown.
    pub fn is_consensus_open(&self) -> bool {
        self.section == super::NetSection::Scans && self.check.open
    }

    /// Whether the differences of the selected scan fill the consensus view instead of its
    /// table (Enter on a scan that differs, below [`WIDE_DIFF`] columns; Esc: the table).
    pub fn is_consensus_diff_shown(&self) -> bool {
        self.is_consensus_open()
            && self.check.diff_open
            && !self.diff_beside()
            && !self.selected_differences().is_empty()
    }

    /// Whether the differences sit beside the check's table (the pane's body is at least
    /// [`WIDE_DIFF`] columns wide).
    fn diff_beside(&self) -> bool {
        // The body is the pane's area inside its border.
        self.area.width.saturating_sub(2) >= WIDE_DIFF
    }

    /// The differences of the selected scan of the check.
    fn selected_differences(&self) -> Vec<(&'static str, Difference)> {
        self.check
            .table
            .selected_row(&self.check.rows)
            .map(differences_of)
            .unwrap_or_default()
    }

    /// The footer's keys while the consensus view is shown.
    pub(super) fn consensus_hints(&self) -> Vec<crate::msg::Command> {
        use crate::msg::Command;
        if self.is_consensus_diff_shown() {
            return vec![Command::Back, Command::Consensus, Command::Copy];
        }
        let mut hints = vec![Command::Back];
        if !self.diff_beside() && !self.selected_differences().is_empty() {
            hints.push(Command::Select);
        }
        hints.extend([
            Command::Consensus,
            Command::Sort,
            Command::Filter,
            Command::Copy,
        ]);
        hints
    }

    /// Enter in the check's table: the selected scan's differences instead of the table (on a
    /// screen too narrow to show them beside it).
    fn open_differences(&mut self, out: &mut Out) {
        let Some(row) = self.check.table.selected_row(&self.check.rows) else {
            return;
        };
        if differences_of(row).is_empty() {
            out.info(format!(
                "{}: no differences to show ({})",
                crate::ui::safe::safe_line(&row.sv_name, 40),
                class_label(&row.update)
            ));
        } else if !self.diff_beside() {
            self.check.diff_open = true;
            self.check.diff_top = 0;
        }
    }

    /// A command while the differences fill the view: Esc back to the table, ↑/↓ scroll.
    /// `None`: not one of these (the view's other keys handle it).
    fn on_differences_command(&mut self, cmd: crate::msg::Command) -> Option<bool> {
        use crate::msg::Command;
        let len = self.selected_differences().len();
        // The lines under the differences' heading (at most: the sweep line may take one).
        let verdicts = self
            .check
            .load
            .done()
            .map_or(2, |c| 1 + usize::from(c.event.is_some()));
        let page = usize::from(self.area.height)
            .saturating_sub(6 + verdicts)
            .max(1);
        let last = len.saturating_sub(page);
        let top = self.check.diff_top;
        self.check.diff_top = match cmd {
            Command::Back | Command::Cancel => {
                self.check.diff_open = false;
                0
            }
            Command::Up => top.saturating_sub(1),
            Command::Down => (top + 1).min(last),
            Command::PageUp => top.saturating_sub(page),
            Command::PageDown => (top + page).min(last),
            Command::Top => 0,
            Command::Bottom => last,
            // The table is not shown: its keys do nothing meanwhile.
            Command::Sort | Command::SortReverse | Command::Filter | Command::Select => top,
            _ => return None,
        };
        Some(true)
    }

    /// Asks every scan a pane's query (`b` in Holdings, Validators, Party hosting, Reward
    /// weight) and shows the grouped answers in the consensus view.
    pub fn open_query(&mut self, call: ApiCall, label: &str, sh: &mut Shared, out: &mut Out) {
        let request = Request::OnEveryScan {
            call: call.clone(),
            what: label.to_owned(),
            now: sh.now,
            unordered: crate::model::consensus::Unordered::NONE,
        };
        self.open_asking(request, true, sh, out);
        self.check.update_id = None;
        self.check.query = Some(label.to_owned());
        self.check.request = Some(call);
    }

    /// Sends `request` (cancelling the one before) and opens the consensus view, empty, with
    /// the table of a query (`query`) or of an update check.
    fn open_asking(&mut self, request: Request, query: bool, sh: &mut Shared, out: &mut Out) {
        if let Load::Loading(old) = self.check.load {
            out.effects.push(Effect::Cancel(old));
        }
        let id = out.fetch(sh, request);
        self.check.load = Load::Loading(id);
        self.remember_where_from();
        if self.check.query.is_some() != query {
            self.check.table = check_table(query);
        }
        self.check.rows.clear();
        self.check.table.reset_rows(&self.check.rows);
        self.check.open = true;
        self.check.diff_open = false;
        self.scans.detail = None;
        self.section = super::NetSection::Scans;
    }

    /// Before the view opens (not when it is asked again while shown): the section to go
    /// back to on Esc.
    fn remember_where_from(&mut self) {
        if !self.is_consensus_open() {
            self.check.back_to = self.section;
            self.check.from_pane = false;
        }
    }

    /// The view just opened was asked for from another pane (`b` there): Esc goes back to it.
    pub fn opened_from_another_pane(&mut self) {
        self.check.from_pane = true;
    }

    /// The view just opened was asked for in this pane (`:bft` here): Esc goes back to the
    /// section it covers.
    pub fn opened_here(&mut self) {
        self.check.from_pane = false;
    }

    /// Checks `update_id` on every scan and shows the consensus view (`:bft`, `b`).
    pub fn open_check(&mut self, update_id: &str, sh: &mut Shared, out: &mut Out) {
        let update_id = update_id.trim();
        if update_id.is_empty() {
            out.error("bft: give an update id (or press b on an update)");
            return;
        }
        let request = Request::NetworkCheck {
            update_id: update_id.to_owned(),
            now: sh.now,
        };
        self.open_asking(request, false, sh, out);
        self.check.update_id = Some(update_id.to_owned());
        self.check.query = None;
    }

    /// A command while the consensus view is shown: Esc back to the matrix (from the
    /// differences shown instead of the table: back to the table), Enter shows the selected
    /// scan's differences, `b` / `r` check again, `y` copies the update id; the rest goes to
    /// its table.
    pub(super) fn on_consensus_command(
        &mut self,
        cmd: crate::msg::Command,
        sh: &mut Shared,
        out: &mut Out,
    ) -> bool {
        use crate::msg::Command;
        if self.is_consensus_diff_shown()
            && let Some(used) = self.on_differences_command(cmd)
        {
            return used;
        }
        match cmd {
            Command::Select => {
                self.open_differences(out);
                true
            }
            Command::Consensus | Command::Refresh => {
                if let Some(id) = self.check.update_id.clone() {
                    self.open_check(&id, sh, out);
                } else if let (Some(request), Some(label)) =
                    (self.check.request.clone(), self.check.query.clone())
                {
                    self.open_query(request, &label, sh, out);
                }
                true
            }
            Command::Copy => {
                if let Some(id) = self.check.update_id.clone() {
                    out.copy("update id", id);
                }
                true
            }
            Command::Back | Command::Cancel => {
                if self.check.table.on_command(cmd, &self.check.rows) {
                    return true;
                }
                // Back where the user was: the section, and the pane it was asked from.
                self.check.open = false;
                self.check.diff_open = false;
                self.section = self.check.back_to;
                !(self.check.from_pane && cmd == Command::Back)
            }
            Command::NextSection | Command::PrevSection | Command::Edit => false,
            _ => self.check.table.on_command(cmd, &self.check.rows),
        }
    }

    /// Takes a consensus check in; for an update (not a pane's query), the findings it makes
    /// (diverged history at that update, or cleared there).
    pub(super) fn on_check_reply(
        &mut self,
        reply: &Fetched,
    ) -> Vec<crate::model::findings::FindingOp> {
        let answer = self
            .check
            .load
            .accept(reply, "the consensus check", Response::network_check);
        let Some(answer) = answer else {
            return Vec::new();
        };
        let ops = match &answer {
            Ok(check) if check.query.is_none() => crate::model::network::fork::update_check_ops(
                &check.entries,
                &check.update_id,
                &check.update.check,
            ),
            _ => Vec::new(),
        };
        self.check.diff_open = false;
        self.check.load = match answer {
            Ok(check) => {
                self.check.rows = check
                    .entries
                    .iter()
                    .enumerate()
                    .map(|(i, e)| CheckRow {
                        index: i,
                        sv_name: e.sv_name.clone(),
                        update: class_at(&check.update.check, i),
                        event: check.event.as_ref().map(|e| class_at(&e.check, i)),
                        latency_ms: check.update.latency_ms.get(i).copied(),
                    })
                    .collect();
                self.check.table.reset_rows(&self.check.rows);
                Load::Done(check.clone())
            }
            Err(f) => Load::Failed(f.to_string()),
        };
        ops
    }

    pub(super) fn render_consensus(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { sh, theme, focused } = cx;
        let id = self.check.update_id.as_deref().unwrap_or("");
        let mut y = area.y;
        let title = match &self.check.query {
            Some(query) => format!("On every scan: {query}"),
            None => format!("Update {}", short_event_id(id)),
        };
        cell(buf, area.x, y, &title, area.width, theme.title);
        let check = match &self.check.load {
            Load::Done(check) => check,
            Load::Loading(_) | Load::Idle => {
                let body = Rect::new(area.x, y + 1, area.width, area.height.saturating_sub(1));
                paragraph(
                    body,
                    buf,
                    "asking every scan for the update and its verdict…",
                    theme.muted,
                );
                return;
            }
            Load::Failed(e) => {
                let body = Rect::new(area.x, y + 1, area.width, area.height.saturating_sub(1));
                paragraph(body, buf, e, theme.status_err);
                return;
            }
        };
        let when = format!("checked {}", sh.format_time(check.checked_at));
        let w = u16::try_from(when.len()).unwrap_or(0);
        if u16::try_from(title.len()).unwrap_or(u16::MAX) + w + 2 <= area.width {
            cell(buf, area.right() - w, y, &when, w, theme.muted);
        }
        y += 1;
        let first = if check.query.is_some() {
            "answer  "
        } else {
            "update  "
        };
        for (label, on) in [
            (first, Some(&check.update)),
            ("verdict ", check.event.as_ref()),
        ] {
            let Some(on) = on else { continue };
            if y >= area.bottom() {
                return;
            }
            let style = verdict_style(&on.check, theme);
            cell(buf, area.x, y, label, area.width, theme.muted);
            let x = area.x + 8.min(area.width);
            cell(buf, x, y, &on.check.verdict(), area.right() - x, style);
            y += 1;
        }
        let rest = area.bottom().saturating_sub(y);
        // The differences of the selected scan: beside the table on a wide screen; below
        // that, instead of the table once Enter asked for them, else not at all (the table's
        // Detail column names the first path that differs).
        let selected = self.check.table.selected_row(&self.check.rows);
        let diffs = selected.map(differences_of).unwrap_or_default();
        let draw = Draw::new(sh, theme, focused);
        let body = Rect::new(area.x, y, area.width, rest);
        let beside = area.width >= WIDE_DIFF;
        let (table, panel) = if diffs.is_empty() {
            (body, Rect::default())
        } else if beside {
            let pw = area.width * 2 / 5;
            let tw = area.width - pw - 1;
            (
                Rect::new(area.x, y, tw, rest),
                Rect::new(area.x + tw + 1, y, pw, rest),
            )
        } else if self.check.diff_open {
            (Rect::default(), body)
        } else {
            (body, Rect::default())
        };
        if table.height > 0 {
            self.check.table.render(table, buf, &self.check.rows, &draw);
        }
        if panel.height > 0
            && let Some(row) = selected
        {
            let lines = usize::from(panel.height - 1);
            // Scrolled only while the differences fill the view.
            let top = if beside {
                0
            } else {
                self.check.diff_top.min(diffs.len().saturating_sub(lines))
            };
            let mut head = format!("── {}: {} difference(s) ", row.sv_name, diffs.len());
            if top > 0 {
                head.push_str(&format!("· from {} ", top + 1));
            }
            cell(buf, panel.x, panel.y, &head, panel.width, theme.accent);
            let shown = &diffs[top..];
            for (i, (what, d)) in shown.iter().enumerate().take(lines) {
                let line = format!(
                    "{what} {}  quorum {}  this {}",
                    d.path,
                    json_short(d.quorum.as_ref()),
                    json_short(d.this.as_ref())
                );
                let more = shown.len() > lines && i + 1 == lines;
                let line = if more {
                    format!("… {} more", shown.len() - i)
                } else {
                    line
                };
                cell(
                    buf,
                    panel.x,
                    panel.y + 1 + u16::try_from(i).unwrap_or(0),
                    &line,
                    panel.width,
                    if more { theme.muted } else { theme.status_err },
                );
            }
        }
    }
}

/// From this width on (of the pane's body), the differences sit beside the check's table;
/// below it, Enter shows them instead of the table.
const WIDE_DIFF: u16 = 160;

fn class_at(check: &UpdateCheck, i: usize) -> ScanClass {
    check
        .classes
        .get(i)
        .cloned()
        .unwrap_or(ScanClass::Unconfirmed)
}

fn verdict_style(check: &UpdateCheck, theme: &Theme) -> Style {
    match check.grouping.consensus {
        crate::model::consensus::Consensus::Reached { .. } if !check.any_disagree() => {
            theme.status_ok
        }
        crate::model::consensus::Consensus::Reached { .. } => theme.status_warn,
        _ => theme.status_err,
    }
}

/// The differences of one scan: the update's, then the verdict's.
fn differences_of(row: &CheckRow) -> Vec<(&'static str, Difference)> {
    let mut out = Vec::new();
    for (what, class) in [
        ("update", Some(&row.update)),
        ("verdict", row.event.as_ref()),
    ] {
        let Some(class) = class else { continue };
        if let ScanClass::Disagree { differences, .. } = class {
            out.extend(differences.iter().map(|d| (what, d.clone())));
        }
    }
    out
}

/// A JSON value in one short line (`absent` when the field is missing).
fn json_short(v: Option<&serde_json::Value>) -> String {
    match v {
        None => "absent".to_owned(),
        Some(v) => {
            let text = v.to_string();
            if text.chars().count() > 60 {
                let cut: String = text.chars().take(59).collect();
                format!("{cut}…")
            } else {
                text
            }
        }
    }
}
