//! The Scans section: every SV's scan side by side, one row per discovered scan (the health
//! matrix), with the verdict for the whole network on top; Enter opens the selected scan's card.
//! Measured every refresh interval (one `Request::NetworkHealth`; a new round starts only when
//! the last one answered and the interval passed, so each scan gets at most one request per
//! endpoint per interval, within its request budget).
//!
//! ```text
//! 4 scans · 3 healthy · 1 lagging 42 s · quorum 2 healthy ✓          list from http://…
//! SV               Host            Reach Status  Version  Latency Mig Head      Lag   Age …
//! Aurora-Node-1    127.0.0.1:7575  yes   active  0.4.2      3 ms    1 10:41:07  0 s   4 s
//! Delta-Node-4     127.0.0.1:7575  yes   active  0.4.2      2 ms    1 10:40:25  42 s  46 s
//! ```

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::feed::health::HealthIntent;
use crate::model::network::{
    HealthState, NetworkHealth, NetworkSnapshot, NodeState, ScanEntry, ScanHealth, ScanObservation,
    distinct_hosts, url_host,
};
use crate::panes::AppEvent;
use crate::panes::form::{cell, paragraph};
use crate::panes::{Out, RenderCtx, Shared};
use crate::ui::format::{age_label, group_thousands};
use crate::ui::layout::below_heading;
use crate::ui::safe::safe_line;
use crate::ui::table::{Cell, Column, Columns, DataTable, Draw, SortKey, TableRow, Width};
use crate::ui::theme::Theme;
use unicode_width::UnicodeWidthStr;

use super::NetworkPane;

/// One row of the matrix: a scan, what it said and how healthy it is.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanRow {
    /// The scan's position in the network's order (the consensus view uses the same).
    pub index: usize,
    pub entry: ScanEntry,
    pub observation: ScanObservation,
    pub health: ScanHealth,
    /// The part of the host that tells it from the other scans' ([`distinct_hosts`]), shown
    /// when the whole host does not fit.
    pub host_label: String,
}

impl ScanRow {
    /// The SV cell: my SV's star, the SV's name, `*` on the profile's own scan.
    fn sv_text(&self, sh: &Shared) -> String {
        let mark = if self.entry.own { "*" } else { "" };
        format!(
            "{}{}{mark}",
            my_sv_mark(sh, &self.entry.sv_name),
            self.entry.sv_name
        )
    }

    /// `healthy`, `lagging`, `unhealthy`, `down`, `forked`, `diverged`, ….
    pub fn state_name(&self) -> &'static str {
        match self.health.state {
            HealthState::Healthy if self.health.lagging => "lagging",
            HealthState::Healthy => "healthy",
            // (Short for the 9-column Health cell; JSON says `backfilling`, `rate_limited`.)
            HealthState::Backfilling => "backfill",
            HealthState::RateLimited => "limit 429",
            HealthState::Unhealthy => "unhealthy",
            HealthState::Down => "down",
            HealthState::Forked => "forked",
            HealthState::DivergedHistory => "diverged",
        }
    }

    fn state_rank(&self) -> i128 {
        match self.health.state {
            HealthState::Healthy if self.health.lagging => 1,
            HealthState::Healthy => 0,
            HealthState::Backfilling | HealthState::RateLimited => 1,
            HealthState::Unhealthy | HealthState::DivergedHistory => 2,
            HealthState::Forked | HealthState::Down => 3,
        }
    }

    fn state_style(&self, theme: &Theme) -> Style {
        match self.health.state {
            HealthState::Healthy if self.health.lagging => theme.status_warn,
            HealthState::Healthy => theme.status_ok,
            HealthState::Backfilling | HealthState::RateLimited => theme.status_warn,
            HealthState::Unhealthy
            | HealthState::Down
            | HealthState::Forked
            | HealthState::DivergedHistory => theme.status_err,
        }
    }

    fn head(&self) -> Option<&crate::model::network::HistoryHead> {
        match &self.observation.head {
            Some(Ok(Some(head))) => Some(head),
            _ => None,
        }
    }

    fn round(&self) -> Option<crate::model::network::RoundSeen> {
        match &self.observation.newest_round {
            Some(Ok(Some(round))) => Some(*round),
            _ => None,
        }
    }

    fn status_label(&self) -> &'static str {
        if !self.observation.reachable {
            return "—";
        }
        match &self.observation.status {
            Some(NodeState::Active) => "active",
            Some(NodeState::Inactive) => "inactive",
            Some(NodeState::NotInitialized) => "not init",
            Some(NodeState::Failed(_)) => "failed",
            Some(NodeState::Unknown(_)) | None => "unknown",
        }
    }
}

/// What a scan's card says of its verdict ingestion (`/v0/events/latest-record-time`).
pub fn verdict_words(o: &ScanObservation, h: &ScanHealth, sh: &Shared) -> String {
    match (&o.verdict_head, h.verdict_head) {
        (_, Some(t)) => match h.verdict_lag {
            Some(lag) => format!(
                "ingested up to {} · verdict ingestion lag {}",
                sh.format_time(t),
                age_label(Some(lag))
            ),
            None => format!("ingested up to {}", sh.format_time(t)),
        },
        (Some(Ok(None)), _) => "— (no /v0/events/latest-record-time: Splice before 0.8)".to_owned(),
        (Some(Err(e)), _) => format!("unknown: {e}"),
        _ => "not checked".to_owned(),
    }
}

/// The columns of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanCol {
    Sv,
    Host,
    Reach,
    Status,
    Version,
    Latency,
    Migration,
    Head,
    Lag,
    Age,
    Round,
    RoundAge,
    /// Verdict ingestion lag: the newest update's record time minus the latest record time of
    /// `/v0/events` ("—" on a scan without `/v0/events/latest-record-time`).
    VerdictLag,
    Health,
}

impl TableRow for ScanRow {
    type Col = ScanCol;
    type Ctx = Shared;

    fn cell(&self, col: ScanCol, width: u16, sh: &Shared, theme: &Theme) -> Cell<'_> {
        let muted = theme.muted;
        match col {
            ScanCol::Sv => {
                let style = if self.entry.counted {
                    theme.accent
                } else {
                    theme.muted
                };
                Cell::new(self.sv_text(sh), style)
            }
            ScanCol::Host => {
                let host = url_host(&self.entry.url);
                if host.width() <= usize::from(width) {
                    Cell::new(host, theme.id)
                } else {
                    Cell::new(self.host_label.clone(), theme.id)
                }
            }
            ScanCol::Reach => {
                if self.observation.reachable {
                    Cell::new("yes", theme.status_ok)
                } else {
                    Cell::new("no", theme.status_err)
                }
            }
            ScanCol::Status => {
                let style = match self.status_label() {
                    "active" => theme.status_ok,
                    "—" => muted,
                    _ => theme.status_err,
                };
                Cell::new(self.status_label(), style)
            }
            ScanCol::Version => Cell::new(
                self.observation
                    .version
                    .clone()
                    .unwrap_or_else(|| "—".into()),
                muted,
            ),
            ScanCol::Latency => Cell::new(
                self.observation
                    .latency
                    .map_or_else(|| "—".into(), |d| format!("{} ms", d.as_millis())),
                theme.json_number,
            ),
            ScanCol::Migration => Cell::new(
                self.head()
                    .map_or_else(|| "—".into(), |h| h.migration_id.to_string()),
                theme.json_number,
            ),
            ScanCol::Head => Cell::new(
                self.head().map_or_else(
                    || "—".into(),
                    |h| {
                        let t = sh.format_time(h.record_time);
                        t.get(11..19).unwrap_or(&t).to_owned()
                    },
                ),
                theme.time,
            ),
            ScanCol::Lag => {
                let lag = self.health.lag_behind_newest;
                let style = if self.health.lagging {
                    theme.status_warn
                } else {
                    theme.json_number
                };
                Cell::new(age_label(lag), style)
            }
            ScanCol::Age => Cell::new(age_label(self.health.update_age), theme.json_number),
            ScanCol::Round => Cell::new(
                self.round()
                    .map_or_else(|| "—".into(), |r| group_thousands(r.number)),
                theme.json_number,
            ),
            ScanCol::RoundAge => Cell::new(age_label(self.health.round_age), theme.json_number),
            ScanCol::VerdictLag => Cell::new(age_label(self.health.verdict_lag), theme.json_number),
            ScanCol::Health => Cell::new(self.state_name(), self.state_style(theme)),
        }
    }

    fn sort_key(&self, col: ScanCol) -> SortKey<'_> {
        let opt = |v: Option<i64>| v.map_or(SortKey::Missing, |v| SortKey::Int(i128::from(v)));
        match col {
            ScanCol::Sv => SortKey::Text(Cow::Borrowed(&self.entry.sv_name)),
            ScanCol::Host => SortKey::Text(Cow::Owned(url_host(&self.entry.url))),
            ScanCol::Reach => SortKey::Int(i128::from(self.observation.reachable)),
            ScanCol::Status => SortKey::Text(Cow::Borrowed(self.status_label())),
            ScanCol::Version => self
                .observation
                .version
                .as_deref()
                .map_or(SortKey::Missing, |v| SortKey::Text(Cow::Borrowed(v))),
            ScanCol::Latency => opt(self
                .observation
                .latency
                .map(|d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))),
            ScanCol::Migration => opt(self.head().map(|h| h.migration_id)),
            ScanCol::Head => opt(self.head().map(|h| h.record_time)),
            ScanCol::Lag => opt(self.health.lag_behind_newest),
            ScanCol::Age => opt(self.health.update_age),
            ScanCol::Round => opt(self.round().map(|r| r.number)),
            ScanCol::RoundAge => opt(self.health.round_age),
            ScanCol::VerdictLag => opt(self.health.verdict_lag),
            ScanCol::Health => SortKey::Int(self.state_rank()),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Owned(format!(
            "{} {} {} {}",
            self.entry.sv_name,
            url_host(&self.entry.url),
            self.state_name(),
            self.observation.version.as_deref().unwrap_or("")
        ))
    }
}

/// The matrix table.
pub(super) fn scans_table() -> DataTable<ScanCol> {
    DataTable::new(Columns::new(vec![
        Column::new(ScanCol::Sv, "SV", sv_width(0)),
        // What the other columns leave: the whole host and path of a wide screen's URLs.
        Column::new(ScanCol::Host, "Host", Width::fill(16)).priority(2),
        Column::new(ScanCol::Reach, "Reach", Width::Fixed(5)).priority(4),
        Column::new(ScanCol::Status, "Status", Width::Fixed(8)).priority(6),
        Column::new(ScanCol::Version, "Version", Width::Fixed(8)).priority(1),
        Column::new(ScanCol::Latency, "Latency", Width::Fixed(7))
            .right()
            .priority(5),
        Column::new(ScanCol::Migration, "Mig", Width::Fixed(3))
            .right()
            .priority(3),
        Column::new(ScanCol::Head, "Head", Width::Fixed(8)).priority(5),
        Column::new(ScanCol::Lag, "Lag", Width::Fixed(6))
            .right()
            .descending_first()
            .priority(8),
        Column::new(ScanCol::Age, "Age", Width::Fixed(6))
            .right()
            .descending_first()
            .priority(7),
        Column::new(ScanCol::Round, "Round", Width::Fixed(7))
            .right()
            .priority(2),
        Column::new(ScanCol::RoundAge, "Rnd age", Width::Fixed(7))
            .right()
            .descending_first()
            .priority(3),
        Column::new(ScanCol::VerdictLag, "Vrd lag", Width::Fixed(7))
            .right()
            .descending_first()
            .priority(0),
        Column::new(ScanCol::Health, "Health", Width::Fixed(9)).priority(9),
    ]))
}

/// The SV column: as wide as the longest SV cell (`longest` columns), at least 12, at most 32
/// (a longer name is cut with a marker).
fn sv_width(longest: usize) -> Width {
    Width::Fixed(u16::try_from(longest.clamp(12, 32)).unwrap_or(32))
}

/// The Scans section's state.
#[derive(Debug)]
pub struct ScansState {
    /// The last measurement and its verdict.
    pub snapshot: Option<NetworkSnapshot>,
    pub health: Option<NetworkHealth>,
    pub rows: Vec<ScanRow>,
    pub table: DataTable<ScanCol>,
    /// Whether the app's health is measuring every scan now.
    pub measuring: bool,
    /// The app's measurement this state shows (`NetworkWatch::epoch`).
    pub epoch: u64,
    /// Why the last round failed.
    pub error: Option<String>,
    /// The scan whose card is open (index into `rows`).
    pub detail: Option<usize>,
}

impl Default for ScansState {
    fn default() -> Self {
        ScansState {
            snapshot: None,
            health: None,
            rows: Vec::new(),
            table: scans_table(),
            measuring: false,
            epoch: 0,
            error: None,
            detail: None,
        }
    }
}

impl ScansState {
    /// Takes a new measurement in.
    pub fn accept(&mut self, snapshot: NetworkSnapshot) {
        let health = snapshot.assess();
        let hosts: Vec<String> = snapshot.entries.iter().map(|e| url_host(&e.url)).collect();
        let labels = distinct_hosts(&hosts);
        self.rows = snapshot
            .entries
            .iter()
            .zip(&snapshot.observations)
            .zip(&health.scans)
            .enumerate()
            .map(|(index, ((entry, observation), h))| ScanRow {
                index,
                entry: entry.clone(),
                observation: observation.clone(),
                health: h.clone(),
                host_label: labels.get(index).cloned().unwrap_or_default(),
            })
            .collect();
        self.table.set_rows(&self.rows);
        if self.detail.is_some_and(|d| d >= self.rows.len()) {
            self.detail = None;
        }
        self.health = Some(health);
        self.snapshot = Some(snapshot);
        self.error = None;
    }
}

impl NetworkPane {
    /// The scans of the network and their health (after the first measurement).
    pub fn scan_rows(&self) -> &[ScanRow] {
        &self.scans.rows
    }

    /// The verdict for the whole network, once measured.
    pub fn network_health(&self) -> Option<&NetworkHealth> {
        self.scans.health.as_ref()
    }

    /// Whether a measurement of every scan is running.
    pub fn is_measuring(&self) -> bool {
        self.scans.measuring
    }

    /// Shows the scans, with the scan at `index` of the measurement selected when given
    /// (Enter on the network part of the Status verdict).
    pub fn show_scan(&mut self, index: Option<usize>, sh: &Shared) {
        self.sync_scans(sh);
        self.section = super::NetSection::Scans;
        self.check.open = false;
        self.scans.detail = None;
        if let Some(i) = index {
            self.scans
                .table
                .select_where(&self.scans.rows, |r| r.index == i);
        }
    }

    /// Asks the app's health to measure every scan now (`r`), unless it is measuring.
    pub(super) fn measure(&mut self, sh: &Shared, out: &mut Out) {
        if !sh.health.network.is_measuring() {
            out.events
                .push(AppEvent::Health(HealthIntent::MeasureNetworkNow));
            self.scans.measuring = true;
        }
    }

    /// Keeps the matrix in step with the app's health (every scan, measured every
    /// `network_health_interval` by the app); returns whether it changed.
    pub fn sync_scans(&mut self, sh: &Shared) -> bool {
        let net = &sh.health.network;
        let mut changed = false;
        if net.epoch != self.scans.epoch {
            self.scans.epoch = net.epoch;
            if let Some(snapshot) = &net.snapshot {
                self.scans.accept(snapshot.clone());
            }
            changed = true;
        }
        if net.error != self.scans.error {
            self.scans.error.clone_from(&net.error);
            changed = true;
        }
        if net.is_measuring() != self.scans.measuring {
            self.scans.measuring = net.is_measuring();
            changed = true;
        }
        // The SV column fits the longest SV cell as drawn (sanitised; my SV's star can come
        // after the rows, with the DSO); the Host column takes what the others leave.
        let longest = self
            .scans
            .rows
            .iter()
            .map(|r| safe_line(&r.sv_text(sh), 32).width())
            .max()
            .unwrap_or(0);
        self.scans
            .table
            .columns_mut()
            .set_width(ScanCol::Sv, sv_width(longest));
        changed | self.sync_findings(sh)
    }

    /// The selected scan's row.
    pub fn selected_scan(&self) -> Option<&ScanRow> {
        self.scans.table.selected_row(&self.scans.rows)
    }

    // -----------------------------------------------------------------------------------------
    // Drawing
    // -----------------------------------------------------------------------------------------

    /// The verdict line: `4 scans · 3 healthy · 1 lagging 42 s · quorum 2 healthy ✓`.
    pub(super) fn verdict_line(&self, theme: &Theme) -> Line<'static> {
        let Some(health) = &self.scans.health else {
            return Line::from(Span::styled("measuring every scan…", theme.muted));
        };
        let style = match health.outcome {
            crate::model::network::HealthOutcome::AllHealthy => theme.status_ok,
            crate::model::network::HealthOutcome::Degraded => theme.status_warn,
            crate::model::network::HealthOutcome::NoHealthyQuorum => theme.status_err,
        };
        let mut spans = vec![Span::styled(health.verdict.clone(), style)];
        if self.scans.measuring {
            spans.push(Span::styled(" · measuring…", theme.muted));
        }
        Line::from(spans)
    }

    pub(super) fn render_scans(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { sh, theme, focused } = cx;
        if area.height == 0 {
            return;
        }
        let mut top = self.verdict_line(theme);
        // Where "my SV" came from, when it fits whole.
        if let Some(my) = sh.health.dso.my_sv() {
            let mine = format!(" · {}", my.describe());
            let w = unicode_width::UnicodeWidthStr::width(mine.as_str());
            if top.width() + w <= usize::from(area.width) {
                top.spans.push(Span::styled(mine, theme.muted));
            }
        }
        buf.set_line(area.x, area.y, &top, area.width);
        if let Some(snap) = &self.scans.snapshot {
            let source = safe_line(&snap.list_source, 60).into_owned();
            let w = u16::try_from(source.chars().count()).unwrap_or(0);
            let used = u16::try_from(top.width()).unwrap_or(u16::MAX);
            if used + w + 2 <= area.width {
                cell(buf, area.right() - w, area.y, &source, w, theme.muted);
            }
        }
        let body = below_heading(area);
        if body.height == 0 {
            return;
        }
        if let Some(e) = &self.scans.error {
            if self.scans.rows.is_empty() {
                paragraph(body, buf, e, theme.status_err);
                return;
            }
            cell(
                buf,
                body.x,
                body.bottom() - 1,
                e,
                body.width,
                theme.status_err,
            );
        }
        if self.scans.rows.is_empty() {
            if self.scans.snapshot.is_some() {
                paragraph(
                    body,
                    buf,
                    "No scan to ask: configure scan_url (its /v0/scans lists the others).",
                    theme.muted,
                );
            } else {
                paragraph(
                    body,
                    buf,
                    "Discovering the scans (/v0/scans) and asking each one for /status, /version, its newest open mining round and the newest update of its history…",
                    theme.muted,
                );
            }
            return;
        }
        if let Some(i) = self.scans.detail
            && let Some(row) = self.scans.rows.get(i)
        {
            self.render_scan_card(body, buf, sh, theme, row);
            return;
        }
        let draw = Draw::new(sh, theme, focused);
        self.scans.table.render(body, buf, &self.scans.rows, &draw);
    }

    fn render_scan_card(
        &self,
        area: Rect,
        buf: &mut Buffer,
        sh: &Shared,
        theme: &Theme,
        row: &ScanRow,
    ) {
        let o = &row.observation;
        let h = &row.health;
        let mut lines: Vec<(&str, String, Style)> = vec![
            (
                "SV",
                format!(
                    "{}{}",
                    my_sv_mark(sh, &row.entry.sv_name),
                    row.entry.sv_name
                ),
                theme.accent,
            ),
            ("URL", row.entry.url.clone(), theme.id),
            (
                "Role",
                [
                    (row.entry.listed, "listed by /v0/scans"),
                    (row.entry.pinned, "pinned (scan_urls)"),
                    (row.entry.own, "this profile's scan"),
                    (!row.entry.counted, "not counted in n"),
                ]
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, s)| *s)
                .collect::<Vec<_>>()
                .join(", "),
                theme.muted,
            ),
            (
                "Health",
                row.state_name().to_owned(),
                row.state_style(theme),
            ),
            (
                "Reachable",
                if o.reachable { "yes" } else { "no" }.to_owned(),
                theme.muted,
            ),
            (
                "Status",
                match &o.status {
                    Some(NodeState::Failed(e)) => format!("failed: {e}"),
                    Some(NodeState::Unknown(e)) => format!("unknown: {e}"),
                    _ => row.status_label().to_owned(),
                },
                theme.muted,
            ),
            (
                "Version",
                o.version.clone().unwrap_or_else(|| "—".into()),
                theme.muted,
            ),
            (
                "Latency",
                o.latency
                    .map_or_else(|| "—".into(), |d| format!("{} ms", d.as_millis())),
                theme.json_number,
            ),
        ];
        let head = match &o.head {
            Some(Ok(Some(head))) => format!(
                "{} (migration {}) {}",
                sh.format_time(head.record_time),
                head.migration_id,
                head.update_id
            ),
            Some(Ok(None)) => "empty history".into(),
            Some(Err(e)) => format!("unknown: {e}"),
            None => "not checked".into(),
        };
        lines.push(("Head", head, theme.time));
        lines.push((
            "Lag",
            format!(
                "{} behind the newest head, {} behind the clock",
                age_label(h.lag_behind_newest),
                age_label(h.update_age)
            ),
            theme.json_number,
        ));
        let round = match &o.newest_round {
            Some(Ok(Some(r))) => format!(
                "{} opened {} ({} ago)",
                group_thousands(r.number),
                sh.format_time(r.created_at),
                age_label(h.round_age)
            ),
            Some(Ok(None)) => "no open round".into(),
            Some(Err(e)) => format!("unknown: {e}"),
            None => "not checked".into(),
        };
        lines.push(("Open round", round, theme.json_number));
        lines.push(("Verdicts", verdict_words(o, h, sh), theme.json_number));
        if let Some(snap) = &self.scans.snapshot {
            // With its zone, as every other time of the card has it.
            let at = format!("{} {}", sh.format_time(snap.checked_at), sh.zone_label());
            lines.push(("Measured", at, theme.time));
        }
        if let Some(why) = &o.down_reason {
            lines.push(("Down", why.clone(), theme.status_err));
        }
        for reason in &h.reasons {
            lines.push(("Problem", reason.clone(), theme.status_err));
        }
        let mut y = area.y;
        for (label, value, style) in lines {
            if y >= area.bottom() {
                break;
            }
            let label = format!("{label:<11}");
            cell(buf, area.x, y, &label, area.width, theme.muted);
            let x = area.x + 11.min(area.width);
            cell(buf, x, y, &value, area.right() - x, style);
            y += 1;
        }
        if y < area.bottom() {
            cell(
                buf,
                area.x,
                area.bottom() - 1,
                "Esc back to every scan",
                area.width,
                theme.muted,
            );
        }
    }
}

/// `★ ` before the name of my SV (the profile's `sv` key, else the SV of the profile's scan).
pub fn my_sv_mark(sh: &Shared, sv_name: &str) -> &'static str {
    if sh.health.dso.is_mine(sv_name) {
        "★ "
    } else {
        ""
    }
}
