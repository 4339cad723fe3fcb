//! `X`: export a time range straight from the server (not the loaded rows). The pages of
//! `/v2/updates` are walked with [`PageWalk`] (the same walker as `scan updates --all`), each
//! encoded as the History export's rows and appended to the file as it comes — nothing is
//! collected in memory — at most [`PAGES_PER_SEC`] pages a second, with progress in the status
//! line. After each page has landed, the sidecar (`<file>.progress.json`) records the bytes
//! and the cursor, so running the export again with the same file after an error, a cancel or
//! a quit cuts the file to its last whole page and continues after it. Without a sidecar the
//! header creates the file ([`crate::panes::new_file`]): a file that exists is left alone, the
//! dialog comes back saying so, and ↵ again replaces it; the sidecar is written once the header
//! landed.
//!
//! ```text
//!  X ─► dialog ─► read sidecar ─┬─ none: create with header ─► sidecar ─┐
//!                               │     (exists: dialog again)            │
//!                               └─ found: truncate to its bytes ────────┴─► page ─► append ─► sidecar ─► page …
//! ```

use std::path::PathBuf;

use crossterm::event::KeyEvent;

use crate::api::scan::UpdatesAfter;
use crate::feed::loader::{PAGE_SIZE, RANGE_PAGES_PER_SEC as PAGES_PER_SEC};
use crate::model::export::ExportFormat;
use crate::model::export_range::{RangeSidecar, encode_items, header, sidecar_path};
use crate::model::page_walk::{PageWalk, cursor_at, cursor_position};
use crate::model::summary::{format_time_micros, parse_time_micros};
use crate::msg::{Effect, Fetched, Request, RequestId};
use crate::ui::format::group_thousands;

use super::super::export::{DialogOutcome, RangeDialog};
use super::super::new_file::EXISTS_NOTE;
use super::super::{Out, Shared};
use super::HistoryPane;

/// Where the export is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Reading the sidecar (request id).
    Opening(RequestId),
    /// Paging: the next page is due at `due` unless a fetch or the file writes are pending.
    Running,
}

/// A running export from the server.
#[derive(Debug)]
pub(super) struct RangeExport {
    path: PathBuf,
    format: ExportFormat,
    from: i64,
    until: i64,
    migration: i64,
    stage: Stage,
    walk: PageWalk,
    /// What the sidecar says once the pending writes have landed.
    side: Option<RangeSidecar>,
    fetch: Option<RequestId>,
    /// File writes in flight (a page's append, then its sidecar), in order.
    writes: Vec<RequestId>,
    /// The sidecar to write (with the id of that write) once the append in flight has landed.
    next_side: Option<(RequestId, RangeSidecar)>,
    due: i64,
    /// The clock when the last page came.
    now: i64,
    started: i64,
    pages_now: u64,
    /// The write creating the file (a new export), until it landed.
    creating: Option<RequestId>,
    /// The dialog as submitted, until the file is created: it comes back if the file exists.
    retry: Option<RangeDialog>,
}

impl RangeExport {
    fn percent(&self) -> u8 {
        let whole = self.until.saturating_sub(self.from);
        let at = self
            .walk
            .cursor()
            .and_then(|c| cursor_position(c).1)
            .unwrap_or(self.from);
        if whole <= 0 {
            return 0;
        }
        let done = at.saturating_sub(self.from).clamp(0, whole);
        u8::try_from(i128::from(done) * 100 / i128::from(whole)).unwrap_or(100)
    }

    /// Writes the sidecar (`wid` is the write's id) and keeps it as what the file says.
    fn write_side(&mut self, wid: RequestId, side: RangeSidecar, out: &mut Out) {
        out.effects.push(Effect::WriteFile {
            id: wid,
            path: sidecar_path(&self.path),
            contents: side.to_bytes(),
        });
        self.writes.push(wid);
        self.side = Some(side);
    }

    fn written(&self) -> u64 {
        self.side.as_ref().map_or(0, |s| s.updates)
    }
}

impl HistoryPane {
    /// `X`: opens the dialog (or says an export runs).
    pub(super) fn open_range_export(&mut self, sh: &Shared, out: &mut Out) {
        if let Some(job) = &self.exports.range {
            out.warn(format!(
                "an export from the server is running ({}%): Esc stops it",
                job.percent()
            ));
            return;
        }
        self.exports.range_dialog = Some(RangeDialog::new(sh.now));
    }

    /// Whether the export-from-the-server dialog is open.
    pub fn is_range_dialog_open(&self) -> bool {
        self.exports.range_dialog.is_some()
    }

    /// The dialog, while open (tests fill it in).
    pub fn range_dialog_mut(&mut self) -> Option<&mut RangeDialog> {
        self.exports.range_dialog.as_mut()
    }

    /// Whether an export from the server runs.
    pub fn is_range_exporting(&self) -> bool {
        self.exports.range.is_some()
    }

    pub(super) fn on_range_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        let Some(dialog) = &mut self.exports.range_dialog else {
            return;
        };
        match dialog.handle_key(key) {
            DialogOutcome::Submit => {
                let Some(dialog) = self.exports.range_dialog.take() else {
                    return;
                };
                let retry = dialog.clone();
                let (now, local) = (sh.now, sh.local_time);
                let when = |t: &str| {
                    if t.trim().eq_ignore_ascii_case("now") {
                        Some(now)
                    } else {
                        crate::model::when::parse_when(t, now, local)
                    }
                };
                match dialog.resolve(when) {
                    Ok(ask) => self.start_range_export(ask, retry, sh, out),
                    Err(dialog) => self.exports.range_dialog = Some(*dialog),
                }
            }
            DialogOutcome::Cancel => {
                self.exports.range_dialog = None;
                self.exports.file.forget();
            }
            DialogOutcome::Changed | DialogOutcome::Nothing => {}
        }
    }

    pub(super) fn paste_range(&mut self, text: &str) -> bool {
        self.exports
            .range_dialog
            .as_mut()
            .is_some_and(|d| d.paste(text))
    }

    fn start_range_export(
        &mut self,
        ask: crate::panes::export::RangeAsk,
        retry: RangeDialog,
        sh: &mut Shared,
        out: &mut Out,
    ) {
        // The migration holding `from`: where the loader's discovery found the migrations to
        // start; without that (history loaded from ledger begin), that of the newest loaded
        // update at or before it, else the current one. If that guess is an older migration,
        // the walk skips what the next one holds before `from`.
        let migration = sh
            .feed
            .migration_at(ask.from)
            .or_else(|| {
                sh.history
                    .iter()
                    .rev()
                    .find(|s| s.record_time <= ask.from)
                    .map(|s| s.migration_id)
            })
            .or(sh.feed.migration)
            .unwrap_or(0);
        let id = out.next_id(sh);
        out.effects.push(Effect::ReadFile {
            id,
            path: sidecar_path(&ask.path),
        });
        self.exports.range = Some(RangeExport {
            walk: PageWalk::new(
                Some(cursor_at(migration, ask.from)),
                Some(ask.until),
                PAGE_SIZE,
            )
            .from_time(ask.from),
            path: ask.path,
            format: ask.format,
            from: ask.from,
            until: ask.until,
            migration,
            stage: Stage::Opening(id),
            side: None,
            fetch: None,
            writes: Vec::new(),
            next_side: None,
            due: sh.now,
            now: sh.now,
            started: sh.now,
            pages_now: 0,
            creating: None,
            retry: Some(retry),
        });
    }

    /// The sidecar read: resume after it, or start afresh.
    pub(super) fn on_range_file_read(
        &mut self,
        id: RequestId,
        result: &Result<Vec<u8>, String>,
        sh: &mut Shared,
        out: &mut Out,
    ) -> bool {
        let Some(job) = &mut self.exports.range else {
            return false;
        };
        if job.stage != Stage::Opening(id) {
            return false;
        }
        let side_path = sidecar_path(&job.path);
        if let Ok(bytes) = result {
            let side = match RangeSidecar::parse(bytes) {
                Ok(s) => s,
                Err(e) => {
                    out.error(format!(
                        "cannot resume {}: {} {e}; choose another file or remove it",
                        job.path.display(),
                        side_path.display()
                    ));
                    self.exports.range = None;
                    return true;
                }
            };
            if side.complete {
                out.warn(format!(
                    "{} already holds the complete export of {} – {} ({} updates); choose another file",
                    job.path.display(),
                    side.from,
                    side.until,
                    group_thousands(side.updates)
                ));
                self.exports.range = None;
                return true;
            }
            // Resume the sidecar's range and format, whatever the dialog said.
            job.format = side.format();
            job.from = parse_time_micros(&side.from).unwrap_or(job.from);
            job.until = parse_time_micros(&side.until).unwrap_or(job.until);
            job.walk =
                PageWalk::new(Some(side.cursor()), Some(job.until), PAGE_SIZE).from_time(job.from);
            let wid = out.next_id(sh);
            out.effects.push(Effect::TruncateFile {
                id: wid,
                path: job.path.clone(),
                len: side.bytes,
            });
            job.writes.push(wid);
            out.info(format!(
                "resuming the export of {} – {} after {} ({} updates written)",
                side.from,
                side.until,
                side.after_record_time,
                group_thousands(side.updates)
            ));
            job.side = Some(side);
        } else {
            let head = header(job.format);
            let cursor = job.walk.cursor().cloned().unwrap_or_else(|| UpdatesAfter {
                after_migration_id: job.migration,
                after_record_time: format_time_micros(job.from),
            });
            let side = RangeSidecar::new(
                job.format,
                &format_time_micros(job.from),
                &format_time_micros(job.until),
                &cursor,
                head.len() as u64,
            );
            // A new file (or the one the user chose to replace); its sidecar once it is.
            let wid = out.next_id(sh);
            out.effects
                .push(self.exports.file.write(wid, job.path.clone(), head));
            job.writes.push(wid);
            job.creating = Some(wid);
            job.next_side = Some((out.next_id(sh), side.clone()));
            job.side = Some(side);
        }
        job.stage = Stage::Running;
        true
    }

    /// Sends the next page when it is due (on ticks).
    pub(super) fn pump_range_export(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        let Some(job) = &mut self.exports.range else {
            return false;
        };
        if job.stage != Stage::Running
            || job.fetch.is_some()
            || !job.writes.is_empty()
            || sh.now < job.due
        {
            return false;
        }
        let id = out.next_id(sh);
        out.effects.push(Effect::Fetch {
            id,
            request: Request::api(
                crate::api::scan::updates(&job.walk.request()).named("updates Export"),
            ),
        });
        job.fetch = Some(id);
        job.due = sh.now.saturating_add(1_000_000 / PAGES_PER_SEC);
        true
    }

    /// A page arrived: append its rows; the sidecar follows once they landed.
    pub(super) fn on_range_page(
        &mut self,
        reply: &Fetched,
        sh: &mut Shared,
        out: &mut Out,
    ) -> bool {
        let Some(job) = &mut self.exports.range else {
            return false;
        };
        if job.fetch != Some(reply.id) {
            return false;
        }
        job.fetch = None;
        job.now = sh.now;
        let page = match &reply.result {
            Ok(r) => match r.answer::<crate::api::scan::UpdatesPage>() {
                Some(page) => page,
                None => return self.stop_range("unexpected response to /v2/updates", out),
            },
            Err(e) => return self.stop_range(&e.to_string(), out),
        };
        let take = match job.walk.on_page(page) {
            Ok(t) => t,
            Err(e) => return self.stop_range(&e, out),
        };
        let Some(mut side) = job.side.clone() else {
            return true;
        };
        let chunk = encode_items(&page.transactions[take.range()], job.format);
        side.bytes += chunk.len() as u64;
        side.updates += take.range().len() as u64;
        side.pages += 1;
        job.pages_now += 1;
        if let Some(c) = job.walk.cursor() {
            side.after_migration_id = c.after_migration_id;
            side.after_record_time.clone_from(&c.after_record_time);
        }
        side.complete = take.done;
        if chunk.is_empty() {
            job.write_side(out.next_id(sh), side, out);
        } else {
            let wid = out.next_id(sh);
            out.effects.push(Effect::AppendFile {
                id: wid,
                path: job.path.clone(),
                contents: chunk,
            });
            job.writes.push(wid);
            job.next_side = Some((out.next_id(sh), side));
        }
        true
    }

    /// A write of the export landed (or failed).
    pub(super) fn on_range_written(
        &mut self,
        id: RequestId,
        result: &Result<usize, String>,
        out: &mut Out,
    ) -> bool {
        if let Some(at) = self.exports.range_orphans.iter().position(|w| *w == id) {
            self.exports.range_orphans.swap_remove(at);
            return true;
        }
        let Some(job) = &mut self.exports.range else {
            return false;
        };
        let Some(at) = job.writes.iter().position(|w| *w == id) else {
            return false;
        };
        job.writes.remove(at);
        if job.creating == Some(id) {
            job.creating = None;
            let retry = job.retry.take();
            if self.exports.file.refused(&job.path, result, out) {
                // Nothing was written (the sidecar waited for the header): ask again.
                self.exports.range = None;
                if self.exports.range_dialog.is_none()
                    && let Some(mut dialog) = retry
                {
                    dialog.set_error(0, EXISTS_NOTE);
                    self.exports.range_dialog = Some(dialog);
                }
                return true;
            }
        }
        if let Err(e) = result {
            let msg = format!("could not write {}: {e}", job.path.display());
            return self.stop_range(&msg, out);
        }
        if let Some((wid, side)) = job.next_side.take() {
            // The page's rows landed: now the sidecar may say so.
            job.write_side(wid, side, out);
            return true;
        }
        if !job.writes.is_empty() || job.stage != Stage::Running {
            return true;
        }
        let (pct, done) = (job.percent(), job.walk.is_done());
        let side = job.side.clone();
        if done {
            if let Some(side) = side {
                out.info(format!(
                    "exported {} updates of {} – {} from the server to {} ({} bytes)",
                    group_thousands(side.updates),
                    side.from,
                    side.until,
                    job.path.display(),
                    group_thousands(side.bytes)
                ));
            }
            self.exports.range = None;
        } else if job.pages_now > 0 {
            let secs = (job.now - job.started).max(1) as f64 / 1e6;
            out.info(format!(
                "exporting from the server {pct}%: {} updates · {} pages · {:.1} pages/s · at {} · Esc stops",
                group_thousands(job.written()),
                group_thousands(side.as_ref().map_or(0, |s| s.pages)),
                job.pages_now as f64 / secs,
                side.as_ref().map_or("", |s| s.after_record_time.as_str()),
            ));
        }
        true
    }

    /// Esc: stops the export (the file and its sidecar stay; the same file resumes).
    pub(super) fn cancel_range_export(&mut self, out: &mut Out) -> bool {
        if self.exports.range.is_none() {
            return false;
        }
        self.stop_range("cancelled", out)
    }

    fn stop_range(&mut self, why: &str, out: &mut Out) -> bool {
        let Some(job) = self.exports.range.take() else {
            return false;
        };
        // Writes still in flight are answered later: absorbed quietly.
        self.exports
            .range_orphans
            .extend(job.writes.iter().copied());
        if let Some(id) = job.fetch {
            out.effects.push(Effect::Cancel(id));
        }
        let at = job
            .side
            .as_ref()
            .map_or_else(String::new, |s| s.after_record_time.clone());
        let text = format!(
            "export from the server stopped ({}) at {at} with {} updates in {}; X with the same file continues",
            crate::ui::safe::safe_line(why, 120),
            group_thousands(job.written()),
            job.path.display()
        );
        if why == "cancelled" {
            out.info(text);
        } else {
            out.error(text);
        }
        true
    }

    /// The History title's part while an export from the server runs.
    pub(super) fn range_badge(&self) -> Option<String> {
        self.exports
            .range
            .as_ref()
            .map(|j| format!("export {}%", j.percent()))
    }
}
