//! The history sweep in the explorer: the same `/v2/updates` page to every scan, page after
//! page, in the background (one `Request::SweepPage` at a time; the pure `model::sweep::Sweep`
//! decides), with a progress bar under the Scans section (pages, updates, rate, ETA).
//!
//! `S` asks where to start (`from:` — empty: the oldest loaded update; `begin`; or a time as
//! `:time` reads it: RFC 3339, `-2h`, `yesterday 14:00`); `:sweep`, `:sweep begin` and
//! `:sweep from <when>` start it at once. A time is first looked up in the scans' history
//! (`Request::SweepStart`: which migration it falls in). `S` again (or `:sweep cancel`) stops
//! it. It stops by itself at the first update where the scans differ and opens that update's
//! consensus check. `s` (or `:sweep save [FILE]`) saves the result as JSON: the path is asked
//! (pre-filled with `./sweep-<time>.json`) and an existing file is never replaced without a
//! second ↵ on the same name.
//!
//! ```text
//! sweep ██████████░░░░░░░░  12 pages · 2,400 updates · 350/s · ETA 20s · at 10:41:07 · S stop
//! ```

use std::path::PathBuf;
use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use serde_json::{Value, json};

use crate::model::summary::format_time_micros;
use crate::model::sweep::{Cursor, Sweep, SweepEnd, SweepPlan, SweepProgress};
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
    /// SV names in scan order (for the result).
    names: Vec<String>,
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
        let oldest = sh.history.first().map(|f| (f.migration_id, f.record_time));
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
            from: from.clone(),
            page_size: SWEEP_PAGE,
            max_pages: None,
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
            self.sweep.names = self
                .scans
                .rows
                .iter()
                .map(|r| r.entry.sv_name.clone())
                .collect();
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
        match sweep.end() {
            Some(SweepEnd::Diverged(d)) => {
                let id = d.update_id().map(str::to_owned);
                out.warn(format!(
                    "sweep: the scans differ at update {} (page {}, after {} updates that agree)",
                    id.as_deref().unwrap_or("?"),
                    d.page + 1,
                    group_thousands(updates)
                ));
                if let Some(id) = id {
                    self.open_check(&id, sh, out);
                }
            }
            Some(SweepEnd::ReachedHead) => out.info(format!(
                "sweep: no difference in {} updates ({} pages) up to the head",
                group_thousands(updates),
                group_thousands(pages)
            )),
            Some(SweepEnd::NoQuorum { page, answered, .. }) => out.error(format!(
                "sweep: only {answered} scans answered page {}: no quorum",
                page + 1
            )),
            Some(SweepEnd::PageLimit | SweepEnd::Cancelled) | None => {}
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
        let contents = serde_json::to_vec_pretty(&self.sweep_json(sweep)).unwrap_or_default();
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

    fn sweep_json(&self, sweep: &Sweep) -> Value {
        let name = |i: &usize| self.sweep.names.get(*i).cloned().unwrap_or_default();
        let (pages, updates) = sweep.counts();
        let end = match sweep.end() {
            None => json!({"result": "running"}),
            Some(SweepEnd::ReachedHead) => json!({"result": "reached_head"}),
            Some(SweepEnd::PageLimit) => json!({"result": "page_limit"}),
            Some(SweepEnd::Cancelled) => json!({"result": "cancelled"}),
            Some(SweepEnd::NoQuorum {
                page,
                answered,
                failures,
            }) => json!({
                "result": "no_quorum",
                "page": page,
                "answered": answered,
                "failures": failures.iter().map(|(i, why)| json!({"scan": name(i), "error": why})).collect::<Vec<_>>(),
            }),
            Some(SweepEnd::Diverged(d)) => json!({
                "result": "diverged",
                "update_id": d.update_id(),
                "page": d.page,
                "index": d.index,
                "after": d.after.as_ref().map(|c| json!({"migration_id": c.migration_id, "record_time": c.record_time})),
                "groups": d.groups.iter().map(|g| json!({
                    "scans": g.members.iter().map(name).collect::<Vec<_>>(),
                    "is_quorum": g.is_quorum,
                    "update_id": g.update_id,
                    "record_time": g.record_time,
                    "differences": g.differences.iter().map(|x| json!({"path": x.path, "quorum": x.quorum, "this": x.this})).collect::<Vec<_>>(),
                    "truncated": g.truncated,
                })).collect::<Vec<_>>(),
            }),
        };
        json!({
            "from": self.sweep.from,
            "start_after": self.sweep.start.as_ref().map(|c| json!({"migration_id": c.migration_id, "record_time": c.record_time})),
            "pages": pages,
            "updates": updates,
            "cursor": sweep.cursor().map(|c| json!({"migration_id": c.migration_id, "record_time": c.record_time})),
            "failed_pages": sweep.failed_pages().iter().enumerate().map(|(i, n)| json!({"scan": name(&i), "pages": n})).collect::<Vec<_>>(),
            "end": end,
        })
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
            let (text, style) = match (state.end(), &state.error) {
                (_, Some(e)) => (format!("stopped: {e}"), theme.status_err),
                (Some(SweepEnd::ReachedHead), _) => (
                    format!(
                        "no difference in {} updates up to the head · s save",
                        group_thousands(updates)
                    ),
                    theme.status_ok,
                ),
                (Some(SweepEnd::Diverged(d)), _) => (
                    format!(
                        "the scans differ at update {} (after {} updates that agree) · s save",
                        d.update_id().unwrap_or("?"),
                        group_thousands(updates)
                    ),
                    theme.status_err,
                ),
                (Some(SweepEnd::NoQuorum { page, answered, .. }), _) => (
                    format!("no quorum: {answered} scans answered page {}", page + 1),
                    theme.status_err,
                ),
                (Some(SweepEnd::Cancelled), _) => (
                    format!(
                        "stopped after {} updates · S again · s save",
                        group_thousands(updates)
                    ),
                    theme.status_warn,
                ),
                (Some(SweepEnd::PageLimit) | None, _) => (String::new(), theme.muted),
            };
            spans.push(Span::styled(text, style));
        }
        Some(Line::from(spans))
    }

    /// Draws the sweep line at the bottom of `area`; returns the area left above it.
    pub(super) fn render_sweep_line(&self, area: Rect, buf: &mut Buffer, theme: &Theme) -> Rect {
        match self.sweep_line(area.width, theme) {
            Some(line) if area.height > 2 => {
                let y = area.bottom() - 1;
                let safe: Vec<Span<'static>> = line
                    .spans
                    .into_iter()
                    .map(|s| {
                        Span::styled(
                            crate::ui::safe::safe_line(&s.content, usize::from(area.width))
                                .into_owned(),
                            s.style,
                        )
                    })
                    .collect();
                buf.set_line(area.x, y, &Line::from(safe), area.width);
                Rect::new(area.x, area.y, area.width, area.height - 1)
            }
            _ => area,
        }
    }
}
