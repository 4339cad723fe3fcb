//! The history sweep in the explorer: the same `/v2/updates` page to every scan, page after
//! page, in the background (one `Request::SweepPage` at a time; the pure `model::sweep::Sweep`
//! decides), with a progress bar under the Scans section (pages, updates, rate, ETA).
//!
//! `S` asks where to start (`from:` — empty: the oldest loaded update; `begin`; or a time as
//! `:time` reads it: RFC 3339, `-2h`, `yesterday 14:00`); `:sweep`, `:sweep begin` and
//! `:sweep from <when>` start it at once. A time is first looked up in the scans' history
//! (`Request::SweepStart`: which migration it falls in). `S` again (or `:sweep cancel`) stops
//! it. It goes on past differences up to the head (or [`DEFAULT_MAX_DIFFERENCES`] differing
//! updates): the ranges of differing updates are listed above the progress line, and when it
//! ends the consensus check of the first differing update opens. `s` (or `:sweep save [FILE]`)
//! saves the result as JSON (a [`SweepReport`], as `network sweep` prints it): the path is asked
//! (pre-filled with `./sweep-<time>.json`) and an existing file is never replaced without a
//! second ↵ on the same name.
//!
//! ```text
//! differing ranges: 2 · 61 updates
//!      58  2026-01-01 10:40:02.120 → 2026-01-01 10:41:07.004  Gemini-Labs-2 against 11 scans  $.workflow_id
//!       3  2026-01-01 10:42:00.001 → 2026-01-01 10:42:00.950  Orb-3 against 10 scans  $.workflow_id
//! sweep ██████████░░░░░░░░  12 pages · 2,400 updates · 61 differ · 350/s · ETA 20s · S stop
//! ```

use std::path::PathBuf;
use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::model::format::parse_time_micros;
use crate::model::summary::format_time_micros;
use crate::model::sweep::report::ScanRef;
use crate::model::sweep::{
    Cursor, DEFAULT_MAX_DIFFERENCES, DiffRange, Sweep, SweepEnd, SweepPlan, SweepProgress,
    SweepReport,
};
use crate::model::when::parse_when;
use crate::msg::{Effect, Fetched, Request, RequestId, Response};
use crate::panes::form::Form;
use crate::panes::new_file::{EXISTS_NOTE, NewFile};
use crate::panes::{Out, Shared};
use crate::ui::format::{group_thousands, human_secs};
use crate::ui::load::accept;
use crate::ui::theme::Theme;

use super::NetworkPane;
use super::forms::FormKind;

/// Updates per sweep page.
pub const SWEEP_PAGE: usize = 200;

/// Where a sweep starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepFrom {
    /// The oldest loaded update (the default: the history the user sees).
    Loaded,
    /// The beginning of the history.
    Begin,
    /// A record time (µs); the scans are first asked which migration it falls in.
    Time(i64),
}

impl SweepFrom {
    /// Reads what the user typed as the start (`:sweep from …`, the `from:` prompt): empty is
    /// the oldest loaded update, `begin` the beginning, anything else a time as `:time` reads
    /// it (RFC 3339, `-2h`, `yesterday 14:00`) at `now` in UTC or local time.
    pub fn parse(text: &str, now: i64, local: bool) -> Result<SweepFrom, String> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(SweepFrom::Loaded);
        }
        if text.eq_ignore_ascii_case("begin") || text.eq_ignore_ascii_case("beginning") {
            return Ok(SweepFrom::Begin);
        }
        parse_when(text, now, local)
            .map(SweepFrom::Time)
            .ok_or_else(|| {
                format!(
                    "not a time: {:?} (use RFC 3339, -2h, yesterday 14:00 or begin)",
                    crate::ui::safe::safe_line(text, 40)
                )
            })
    }
}

/// A sweep in the explorer.
#[derive(Debug, Default)]
pub struct SweepState {
    /// What to sweep (until the first page answered).
    plan: Option<SweepPlan>,
    /// The lookup of where a sweep from a time starts, in flight.
    starting: Option<RequestId>,
    /// The save in flight: its write and path.
    saving: Option<(RequestId, String)>,
    /// A path the user was told exists: saving to it again replaces it.
    file: NewFile,
    /// The cursor the first page is asked after (`None`: the beginning).
    start: Option<Cursor>,
    /// Where it started, as shown (`the loaded history`, `the beginning`).
    pub from: String,
    /// The sweep, once the first page answered (it needs the scans).
    pub sweep: Option<Sweep>,
    /// The page in flight.
    pub pending: Option<RequestId>,
    /// When it started (µs, the app's clock).
    started_at: i64,
    pub progress: Option<SweepProgress>,
    /// Why it could not go on (a failed request, the scans changed).
    pub error: Option<String>,
    /// The scans in scan order (for the result).
    scans: Vec<ScanRef>,
}

impl SweepState {
    /// Whether a sweep is running (or looking up where it starts).
    pub fn is_running(&self) -> bool {
        self.pending.is_some() || self.starting.is_some()
    }

    /// The cursor the sweep started after (`None`: the beginning of the history).
    pub fn start(&self) -> Option<&Cursor> {
        self.start.as_ref()
    }

    /// Why it ended, once it has.
    pub fn end(&self) -> Option<&SweepEnd> {
        self.sweep.as_ref().and_then(Sweep::end)
    }

    /// What it found so far, as it is saved (`None` before its first page).
    pub fn report(&self) -> Option<SweepReport> {
        let sweep = self.sweep.as_ref()?;
        Some(SweepReport::of(sweep, &self.scans, &self.from))
    }
}

impl NetworkPane {
    /// The sweep (running or finished).
    pub fn sweep_state(&self) -> &SweepState {
        &self.sweep
    }

    /// `S`: stops the running sweep, or asks where a new one starts (the `from:` prompt).
    pub fn toggle_sweep(&mut self, out: &mut Out) {
        self.section = super::NetSection::Scans;
        if self.sweep.is_running() {
            self.cancel_sweep(out);
            return;
        }
        // Short enough for 80 columns.
        self.form = Some((
            FormKind::SweepFrom,
            Form::new(vec![Form::field(
                "Sweep from",
                "",
                "empty: oldest loaded · begin · -2h · yesterday 14:00 · RFC 3339",
            )]),
        ));
    }

    /// Starts a sweep from `from` (`:sweep [begin | from <when>]`, the `from:` prompt), stopping
    /// a running one.
    pub fn start_sweep(&mut self, from: SweepFrom, sh: &mut Shared, out: &mut Out) {
        self.section = super::NetSection::Scans;
        self.cancel_sweep(out);
        let oldest = sh
            .history
            .first()
            .map(|f| (f.migration_id(), f.record_time()));
        match (from, oldest) {
            (SweepFrom::Time(time), _) => {
                let label = format!("{} {}", sh.format_time(time), sh.zone_label());
                self.sweep = SweepState {
                    from: label.clone(),
                    started_at: sh.now,
                    ..SweepState::default()
                };
                self.sweep.starting =
                    Some(out.fetch(sh, Request::SweepStart { time, now: sh.now }));
                out.info(format!("finding {label} in the history of the scans…"));
            }
            (SweepFrom::Loaded, Some((migration_id, record_time))) => {
                let cursor = Cursor {
                    migration_id,
                    record_time: format_time_micros(record_time - 1),
                };
                let label = format!("the oldest loaded update ({})", sh.format_time(record_time));
                self.begin_sweep(Some(cursor), &label, sh, out);
            }
            (SweepFrom::Loaded | SweepFrom::Begin, _) => {
                self.begin_sweep(None, "the beginning of the history", sh, out);
            }
        }
    }

    /// Asks for the first page after `from`.
    fn begin_sweep(&mut self, from: Option<Cursor>, label: &str, sh: &mut Shared, out: &mut Out) {
        let plan = SweepPlan {
            max_differences: DEFAULT_MAX_DIFFERENCES,
            ..SweepPlan::new(from.clone(), SWEEP_PAGE)
        };
        self.sweep = SweepState {
            plan: Some(plan),
            from: label.to_owned(),
            started_at: sh.now,
            file: std::mem::take(&mut self.sweep.file),
            start: from.clone(),
            ..SweepState::default()
        };
        self.sweep.pending = Some(out.fetch(
            sh,
            Request::SweepPage {
                after: from,
                page_size: SWEEP_PAGE,
                now: sh.now,
            },
        ));
        out.info(format!("sweeping the history of every scan from {label}…"));
    }

    /// Stops the running sweep (its reply would be dropped).
    pub fn cancel_sweep(&mut self, out: &mut Out) {
        let ids = [self.sweep.pending.take(), self.sweep.starting.take()];
        if ids.iter().any(Option::is_some) {
            for id in ids.into_iter().flatten() {
                out.effects.push(Effect::Cancel(id));
            }
            if let Some(s) = &mut self.sweep.sweep {
                s.cancel();
            }
            out.info("sweep stopped");
        }
    }

    /// Where a sweep from a time starts: begins it there, or says why it cannot.
    pub(super) fn on_sweep_start_reply(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) {
        let Some(answer) = accept(
            &mut self.sweep.starting,
            reply,
            "the sweep start",
            Response::sweep_start,
        ) else {
            return;
        };
        let found = match answer {
            Ok(found) => found.clone(),
            Err(f) => Err(f.to_string()),
        };
        match found {
            Ok(cursor) => {
                let label = self.sweep.from.clone();
                self.begin_sweep(Some(cursor), &label, sh, out);
            }
            Err(e) => {
                out.error(format!("sweep: {e}"));
                self.sweep.error = Some(e);
            }
        }
    }

    pub(super) fn on_sweep_reply(&mut self, reply: &Fetched, sh: &mut Shared, out: &mut Out) {
        let Some(answer) = accept(
            &mut self.sweep.pending,
            reply,
            "a sweep page",
            Response::sweep_page,
        ) else {
            return;
        };
        let page = match answer {
            Ok(page) => page,
            Err(f) => {
                self.sweep.error = Some(f.to_string());
                if f.api().is_some() {
                    out.error(format!("sweep: {f}"));
                }
                return;
            }
        };
        if self.sweep.sweep.is_none() {
            let Some(plan) = self.sweep.plan.take() else {
                return;
            };
            self.sweep.sweep = Some(Sweep::new(plan, page.counted.clone()));
            let mut scans = vec![ScanRef::default(); page.answers.len()];
            for row in &self.scans.rows {
                if let Some(scan) = scans.get_mut(row.index) {
                    *scan = ScanRef {
                        name: row.entry.sv_name.clone(),
                        url: row.entry.url.clone(),
                    };
                }
            }
            self.sweep.scans = scans;
        }
        let Some(sweep) = &mut self.sweep.sweep else {
            return;
        };
        if page.answers.len() != sweep.failed_pages().len() {
            self.sweep.error = Some("the scans of the network changed during the sweep".into());
            sweep.cancel();
            return;
        }
        sweep.on_page(&page.answers);
        let elapsed = u64::try_from(sh.now - self.sweep.started_at).unwrap_or(0);
        self.sweep.progress = Some(sweep.progress(Duration::from_micros(elapsed), sh.now));
        if let Some(cursor) = sweep.next_page() {
            let after = cursor.cloned();
            self.sweep.pending = Some(out.fetch(
                sh,
                Request::SweepPage {
                    after,
                    page_size: SWEEP_PAGE,
                    now: sh.now,
                },
            ));
            return;
        }
        let (pages, updates) = sweep.counts();
        let differing = sweep.differing_updates();
        let first = sweep.ranges().first().map(|r| r.first.update_id.clone());
        // What it found (and re-checked) is kept with the network's findings.
        if !matches!(sweep.end(), Some(SweepEnd::Cancelled)) {
            let report = SweepReport::of(sweep, &self.sweep.scans, &self.sweep.from);
            let ops = report.findings(&sh.health.network.findings);
            if !ops.is_empty() {
                out.events.push(crate::panes::AppEvent::Health(
                    crate::feed::health::HealthIntent::Record(ops),
                ));
            }
        }
        if let Some(SweepEnd::NoQuorum { page, answered, .. }) = sweep.end() {
            out.error(format!(
                "sweep: only {answered} scans answered page {page}: no quorum"
            ));
        }
        if differing > 0 {
            let more = if sweep.truncated() {
                " (the limit: there may be more)"
            } else {
                ""
            };
            out.warn(format!(
                "sweep: {}{more} in {}, of {} ({}); the first: {}",
                counted(differing, "differing update", "differing updates"),
                counted(sweep.ranges().len() as u64, "range", "ranges"),
                counted(updates, "update", "updates"),
                counted(pages, "page", "pages"),
                first.as_deref().unwrap_or("?"),
            ));
            if let Some(id) = first.filter(|id| !id.is_empty()) {
                self.open_check(&id, sh, out);
            }
        } else if let Some(SweepEnd::ReachedHead) = sweep.end() {
            out.info(format!(
                "sweep: no difference in {} updates ({} pages) up to the head",
                group_thousands(updates),
                group_thousands(pages)
            ));
        }
    }

    /// The file a sweep is saved to unless the user names another: `./sweep-<now>.json`.
    fn default_sweep_path(sh: &Shared) -> String {
        let stamp = format_time_micros(sh.now).replace([':', '.'], "-");
        format!("./sweep-{stamp}.json")
    }

    /// `s` after a sweep (or `:sweep save`): asks for the path, pre-filled with
    /// `./sweep-<time>.json`.
    pub fn open_sweep_save(&mut self, sh: &Shared, out: &mut Out) {
        self.section = super::NetSection::Scans;
        if self.sweep.sweep.is_none() {
            out.warn("no sweep to save: press S to sweep the history of every scan");
            return;
        }
        let path = Self::default_sweep_path(sh);
        self.sweep_save_prompt(&path, None);
    }

    fn sweep_save_prompt(&mut self, path: &str, error: Option<String>) {
        let mut form = Form::new(vec![Form::field("Save sweep to", path, "file path (JSON)")]);
        if let Some(e) = error {
            form.set_error(0, e);
        }
        self.form = Some((FormKind::SweepSave, form));
    }

    /// Writes the sweep's result as JSON to `path` (`:sweep save FILE`, the save prompt). A new
    /// file only: when `path` exists the prompt comes back saying so, and ↵ on the same name
    /// replaces it.
    pub fn save_sweep(&mut self, path: &str, sh: &mut Shared, out: &mut Out) {
        let Some(sweep) = &self.sweep.sweep else {
            out.warn("no sweep to save: press S to sweep the history of every scan");
            return;
        };
        let path = path.trim();
        if path.is_empty() {
            self.sweep_save_prompt("", Some("enter a file path".into()));
            return;
        }
        let report = SweepReport::of(sweep, &self.sweep.scans, &self.sweep.from);
        let contents = serde_json::to_vec_pretty(&report).unwrap_or_default();
        let id = out.next_id(sh);
        out.effects
            .push(self.sweep.file.write(id, PathBuf::from(path), contents));
        self.sweep.saving = Some((id, path.to_owned()));
    }

    /// A save of the sweep finished: says where it went, or asks again when the file exists.
    /// Returns whether the write was the sweep's.
    pub(super) fn on_sweep_written(
        &mut self,
        id: RequestId,
        result: &Result<usize, String>,
        out: &mut Out,
    ) -> bool {
        let Some((_, path)) = self.sweep.saving.take_if(|(saving, _)| *saving == id) else {
            return false;
        };
        if self
            .sweep
            .file
            .refused(std::path::Path::new(&path), result, out)
        {
            self.sweep_save_prompt(&path, Some(EXISTS_NOTE.into()));
            return true;
        }
        match result {
            Ok(n) => out.info(format!(
                "sweep saved to {path} ({} bytes)",
                group_thousands(*n)
            )),
            Err(e) => out.error(format!("could not save the sweep to {path}: {e}")),
        }
        true
    }

    /// The sweep's line under the Scans section: a progress bar while it runs, its outcome
    /// after.
    pub(super) fn sweep_line(&self, width: u16, theme: &Theme) -> Option<Line<'static>> {
        let state = &self.sweep;
        if state.starting.is_some() {
            return Some(Line::from(vec![
                Span::styled("sweep ", theme.title),
                Span::styled(
                    format!(
                        "finding {} in the history of the scans… · S stop",
                        state.from
                    ),
                    theme.muted,
                ),
            ]));
        }
        if state.plan.is_none() && state.sweep.is_none() && state.error.is_none() {
            return None;
        }
        let p = state.progress.clone();
        let (pages, updates) = p.as_ref().map_or((0, 0), |p| (p.pages, p.updates));
        let mut spans = vec![Span::styled("sweep ", theme.title)];
        if state.is_running() {
            let ratio = p
                .as_ref()
                .and_then(|p| {
                    let eta = p.eta?.as_secs_f64();
                    let done = p.elapsed.as_secs_f64();
                    (done + eta > 0.0).then(|| done / (done + eta))
                })
                .unwrap_or(0.0);
            let bar_w = usize::from(width / 5).clamp(5, 20);
            let filled = ((ratio * bar_w as f64).round() as usize).min(bar_w);
            spans.push(Span::styled("█".repeat(filled), theme.accent));
            spans.push(Span::styled("░".repeat(bar_w - filled), theme.muted));
            let mut text = format!(
                "  {} pages · {} updates",
                group_thousands(pages),
                group_thousands(updates)
            );
            if let Some(p) = p.as_ref().filter(|p| p.differing_updates > 0) {
                text.push_str(&format!(
                    " · {} differ",
                    group_thousands(p.differing_updates)
                ));
            }
            if let Some(p) = &p {
                let rate = p.updates_per_s.max(0.0).round() as u64;
                text.push_str(&format!(" · {}/s", group_thousands(rate)));
                if let Some(eta) = p.eta {
                    text.push_str(&format!(
                        " · ETA {}",
                        human_secs(i64::try_from(eta.as_secs()).unwrap_or(i64::MAX))
                    ));
                }
                if let Some(t) = &p.record_time {
                    text.push_str(&format!(" · at {t}"));
                }
            }
            text.push_str(" · S stop");
            spans.push(Span::styled(text, theme.muted));
        } else {
            let differing = p.as_ref().map_or(0, |p| p.differing_updates);
            let ranges = p.as_ref().map_or(0, |p| p.ranges);
            let truncated = state.sweep.as_ref().is_some_and(Sweep::truncated);
            let (text, style) = match (state.end(), &state.error) {
                (_, Some(e)) => (format!("stopped: {e}"), theme.status_err),
                (end, _) if differing > 0 => {
                    let how = match end {
                        _ if truncated => " · stopped at the limit: there may be more",
                        Some(SweepEnd::ReachedHead) => " up to the head",
                        Some(SweepEnd::NoQuorum { .. }) => " · then no quorum",
                        Some(SweepEnd::Cancelled) => " · stopped",
                        _ => "",
                    };
                    (
                        format!(
                            "{} in {}, of {} ({}){how} · s save",
                            counted(differing, "differing update", "differing updates"),
                            counted(ranges as u64, "range", "ranges"),
                            counted(updates, "update", "updates"),
                            counted(pages, "page", "pages"),
                        ),
                        theme.status_err,
                    )
                }
                (Some(SweepEnd::ReachedHead), _) => (
                    format!(
                        "no difference in {} updates up to the head · s save",
                        group_thousands(updates)
                    ),
                    theme.status_ok,
                ),
                (Some(SweepEnd::NoQuorum { page, answered, .. }), _) => (
                    format!("no quorum: {answered} scans answered page {page}"),
                    theme.status_err,
                ),
                (Some(SweepEnd::Cancelled), _) => (
                    format!(
                        "stopped after {} updates · S again · s save",
                        group_thousands(updates)
                    ),
                    theme.status_warn,
                ),
                (Some(SweepEnd::PageLimit | SweepEnd::DifferenceLimit) | None, _) => {
                    (String::new(), theme.muted)
                }
            };
            spans.push(Span::styled(text, style));
        }
        Some(Line::from(spans))
    }

    /// The list of differing ranges drawn above the sweep line: a heading, then one line per
    /// range (count, first and last record time, the scans off the reference side against how
    /// many on it, one differing path). Empty without differences.
    pub(super) fn sweep_range_lines(&self, sh: &Shared, theme: &Theme) -> Vec<Line<'static>> {
        let Some(sweep) = &self.sweep.sweep else {
            return Vec::new();
        };
        if sweep.ranges().is_empty() {
            return Vec::new();
        }
        let mut heading = format!(
            "differing ranges: {} · {}",
            group_thousands(sweep.ranges().len() as u64),
            counted(sweep.differing_updates(), "update", "updates")
        );
        if sweep.truncated() {
            heading.push_str(" · stopped at the limit");
        }
        let mut lines = vec![Line::from(Span::styled(heading, theme.title))];
        for range in sweep.ranges() {
            lines.push(self.range_line(range, sh, theme));
        }
        lines
    }

    fn range_line(&self, range: &DiffRange, sh: &Shared, theme: &Theme) -> Line<'static> {
        let time =
            |t: &str| parse_time_micros(t).map_or_else(|| t.to_owned(), |m| sh.format_time(m));
        let first = time(&range.first.record_time);
        let last = time(&range.last.record_time);
        let name = |i: &usize| {
            self.sweep
                .scans
                .get(*i)
                .map_or_else(|| format!("scan {}", i + 1), |s| s.name.clone())
        };
        let others: Vec<String> = range
            .sides
            .iter()
            .skip(1)
            .map(|side| side.members.iter().map(name).collect::<Vec<_>>().join(", "))
            .collect();
        let reference = range.sides.first().map_or(0, |s| s.members.len());
        Line::from(vec![
            Span::styled(
                format!("{:>7}  ", group_thousands(range.count)),
                theme.status_err,
            ),
            Span::raw(format!("{first} → {last}  ")),
            Span::raw(format!(
                "{} against {reference} scans  ",
                others.join(" / ")
            )),
            Span::styled(range.example_path().unwrap_or("").to_owned(), theme.muted),
        ])
    }

    /// Draws the sweep line at the bottom of `area` and the differing ranges above it (at most
    /// a third of `area`); returns the area left above them.
    pub(super) fn render_sweep(
        &self,
        area: Rect,
        buf: &mut Buffer,
        sh: &Shared,
        theme: &Theme,
    ) -> Rect {
        let area = self.render_sweep_line(area, buf, theme);
        let lines = self.sweep_range_lines(sh, theme);
        let room = usize::from(area.height / 3);
        if lines.is_empty() || room < 2 {
            return area;
        }
        let shown = lines.len().min(room);
        let top = area.bottom() - shown as u16;
        for (k, line) in lines.into_iter().take(shown).enumerate() {
            let line = if k + 1 == shown && k + 1 < self.sweep_range_count() + 1 {
                Line::from(Span::styled(
                    format!(
                        "… {} more ranges: s saves them all",
                        self.sweep_range_count() + 1 - k
                    ),
                    theme.muted,
                ))
            } else {
                line
            };
            set_safe_line(buf, area.x, top + k as u16, line, area.width);
        }
        Rect::new(area.x, area.y, area.width, area.height - shown as u16)
    }

    fn sweep_range_count(&self) -> usize {
        self.sweep.sweep.as_ref().map_or(0, |s| s.ranges().len())
    }

    /// Draws the sweep line at the bottom of `area`; returns the area left above it.
    pub(super) fn render_sweep_line(&self, area: Rect, buf: &mut Buffer, theme: &Theme) -> Rect {
        match self.sweep_line(area.width, theme) {
            Some(line) if area.height > 2 => {
                set_safe_line(buf, area.x, area.bottom() - 1, line, area.width);
                Rect::new(area.x, area.y, area.width, area.height - 1)
            }
            _ => area,
        }
    }
}

/// `n` and what it counts, in the singular for 1.
fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", group_thousands(n), if n == 1 { one } else { many })
}

/// Draws `line` at (`x`, `y`), each span made safe for the terminal.
fn set_safe_line(buf: &mut Buffer, x: u16, y: u16, line: Line<'static>, width: u16) {
    let safe: Vec<Span<'static>> = line
        .spans
        .into_iter()
        .map(|s| {
            Span::styled(
                crate::ui::safe::safe_line(&s.content, usize::from(width)).into_owned(),
                s.style,
            )
        })
        .collect();
    buf.set_line(x, y, &Line::from(safe), width);
}
