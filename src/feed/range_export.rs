//! `X`: an export of a time range straight from the server (not the loaded rows), as a pure
//! state machine the History pane runs (it owns the dialog and the file kit). The pages of
//! `/v2/updates` are walked with [`PageWalk`] (the same walker as `scan updates --all`), each
//! encoded as the History export's rows and appended to the file as it comes — nothing is
//! collected in memory — at most [`RANGE_PAGES_PER_SEC`] pages a second, with progress in the
//! status line. After each page has landed, the sidecar (`<file>.progress.json`) records the
//! bytes and the cursor, so running the export again with the same file after an error, a
//! cancel or a quit cuts the file to its last whole page and continues after it. Without a
//! sidecar the header creates the file (the pane's new-file kit: a file that exists is left
//! alone, the dialog comes back saying so, and ↵ again replaces it); the sidecar is written once
//! the header landed.
//!
//! ```text
//!  X ─► dialog ─► read sidecar ─┬─ none: create with header ─► sidecar ─┐
//!                               │     (exists: dialog again)            │
//!                               └─ found: truncate to its bytes ────────┴─► page ─► append ─► sidecar ─► page …
//! ```

use std::path::PathBuf;

use super::loader::{Note, PAGE_SIZE, RANGE_PAGES_PER_SEC};
use crate::api::scan::UpdatesAfter;
use crate::model::export::ExportFormat;
use crate::model::export_range::{RangeSidecar, encode_items, header, sidecar_path};
use crate::model::format::{format_time_micros, group_thousands, parse_time_micros};
use crate::model::page_walk::{PageWalk, cursor_at, cursor_position};
use crate::msg::{Effect, Fetched, Owner, Request, RequestId, RequestIds};

/// What a step of the export emits: effects, and messages for the status line.
#[derive(Debug, Default)]
pub struct ExportOut {
    pub effects: Vec<Effect>,
    pub notes: Vec<(Note, String)>,
}

/// What a step works on: the clock, the id source (ids owned by `owner`) and the output.
pub struct ExportCx<'a> {
    pub now: i64,
    pub ids: &'a mut RequestIds,
    pub owner: Owner,
    pub out: &'a mut ExportOut,
}

impl ExportCx<'_> {
    fn next_id(&mut self) -> RequestId {
        self.ids.next(self.owner)
    }

    fn note(&mut self, level: Note, text: String) {
        self.out.note(level, text);
    }
}

impl ExportOut {
    fn note(&mut self, level: Note, text: String) {
        self.notes.push((level, text));
    }
}

/// Where the export is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Reading the sidecar (request id).
    Opening(RequestId),
    /// Paging: the next page is due at `due` unless a fetch or the file writes are pending.
    Running,
}

/// What the sidecar read made of the export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opened {
    /// It runs (resumed, or a new file is being created).
    Running,
    /// It ended before it started (the message was said).
    Ended,
}

/// What a write landing means for the export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// The write creating the file (a new export) landed or was refused: the pane's file kit
    /// says which ([`RangeExport::created`] goes on).
    Creating(Result<usize, String>),
    /// A write failed: the export stops (why).
    Failed(String),
    /// The export goes on.
    Running,
    /// The export is complete (the message was said).
    Done,
}

/// A running export from the server.
#[derive(Debug)]
pub struct RangeExport {
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
}

impl RangeExport {
    /// Starts an export of `from..=until` (µs) of `migration` on (the migration holding
    /// `from`; when it is an older one, the walk skips what the next one holds before `from`)
    /// into `path`: reads its sidecar first.
    pub fn start(
        path: PathBuf,
        format: ExportFormat,
        (from, until): (i64, i64),
        migration: i64,
        cx: &mut ExportCx<'_>,
    ) -> RangeExport {
        let id = cx.next_id();
        cx.out.effects.push(Effect::ReadFile {
            id,
            path: sidecar_path(&path),
        });
        RangeExport {
            walk: PageWalk::new(Some(cursor_at(migration, from)), Some(until), PAGE_SIZE)
                .from_time(from),
            path,
            format,
            from,
            until,
            migration,
            stage: Stage::Opening(id),
            side: None,
            fetch: None,
            writes: Vec::new(),
            next_side: None,
            due: cx.now,
            now: cx.now,
            started: cx.now,
            pages_now: 0,
            creating: None,
        }
    }

    /// How far it is (0–100).
    pub fn percent(&self) -> u8 {
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

    /// The file written.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Writes the sidecar (`wid` is the write's id) and keeps it as what the file says.
    fn write_side(&mut self, wid: RequestId, side: RangeSidecar, out: &mut ExportOut) {
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

    /// The sidecar read (`None`: not this export's read): resume after it, or start afresh with
    /// the header written by `create` (the pane's new-file kit).
    pub fn on_file_read(
        &mut self,
        id: RequestId,
        result: &Result<Vec<u8>, String>,
        cx: &mut ExportCx<'_>,
        create: impl FnOnce(RequestId, PathBuf, Vec<u8>) -> Effect,
    ) -> Option<Opened> {
        if self.stage != Stage::Opening(id) {
            return None;
        }
        let side_path = sidecar_path(&self.path);
        if let Ok(bytes) = result {
            let side = match RangeSidecar::parse(bytes) {
                Ok(s) => s,
                Err(e) => {
                    cx.note(
                        Note::Error,
                        format!(
                            "cannot resume {}: {} {e}; choose another file or remove it",
                            self.path.display(),
                            side_path.display()
                        ),
                    );
                    return Some(Opened::Ended);
                }
            };
            if side.complete {
                cx.note(
                    Note::Warn,
                    format!(
                        "{} already holds the complete export of {} – {} ({} updates); choose another file",
                        self.path.display(),
                        side.from,
                        side.until,
                        group_thousands(side.updates)
                    ),
                );
                return Some(Opened::Ended);
            }
            // Resume the sidecar's range and format, whatever the dialog said.
            self.format = side.format();
            self.from = parse_time_micros(&side.from).unwrap_or(self.from);
            self.until = parse_time_micros(&side.until).unwrap_or(self.until);
            self.walk = PageWalk::new(Some(side.cursor()), Some(self.until), PAGE_SIZE)
                .from_time(self.from);
            let wid = cx.next_id();
            cx.out.effects.push(Effect::TruncateFile {
                id: wid,
                path: self.path.clone(),
                len: side.bytes,
            });
            self.writes.push(wid);
            cx.note(
                Note::Info,
                format!(
                    "resuming the export of {} – {} after {} ({} updates written)",
                    side.from,
                    side.until,
                    side.after_record_time,
                    group_thousands(side.updates)
                ),
            );
            self.side = Some(side);
        } else {
            let head = header(self.format);
            let cursor = self.walk.cursor().cloned().unwrap_or_else(|| UpdatesAfter {
                after_migration_id: self.migration,
                after_record_time: format_time_micros(self.from),
            });
            let side = RangeSidecar::new(
                self.format,
                &format_time_micros(self.from),
                &format_time_micros(self.until),
                &cursor,
                head.len() as u64,
            );
            // A new file (or the one the user chose to replace); its sidecar once it is.
            let wid = cx.next_id();
            cx.out.effects.push(create(wid, self.path.clone(), head));
            self.writes.push(wid);
            self.creating = Some(wid);
            self.next_side = Some((cx.next_id(), side.clone()));
            self.side = Some(side);
        }
        self.stage = Stage::Running;
        Some(Opened::Running)
    }

    /// Sends the next page when it is due (on ticks); whether it did.
    pub fn pump(&mut self, cx: &mut ExportCx<'_>) -> bool {
        if self.stage != Stage::Running
            || self.fetch.is_some()
            || !self.writes.is_empty()
            || cx.now < self.due
        {
            return false;
        }
        let id = cx.next_id();
        cx.out.effects.push(Effect::Fetch {
            id,
            request: Request::api(
                crate::api::scan::updates(&self.walk.request()).named("updates Export"),
            ),
        });
        self.fetch = Some(id);
        self.due = cx.now.saturating_add(1_000_000 / RANGE_PAGES_PER_SEC);
        true
    }

    /// A page arrived (`None`: not this export's): its rows are appended; the sidecar follows
    /// once they landed. `Some(Err(why))`: the export must stop.
    pub fn on_page(
        &mut self,
        reply: &Fetched,
        cx: &mut ExportCx<'_>,
    ) -> Option<Result<(), String>> {
        if self.fetch != Some(reply.id) {
            return None;
        }
        self.fetch = None;
        self.now = cx.now;
        let page = match &reply.result {
            Ok(r) => match r.answer::<crate::api::scan::UpdatesPage>() {
                Some(page) => page,
                None => return Some(Err("unexpected response to /v2/updates".to_owned())),
            },
            Err(e) => return Some(Err(e.to_string())),
        };
        let take = match self.walk.on_page(page) {
            Ok(t) => t,
            Err(e) => return Some(Err(e)),
        };
        let Some(mut side) = self.side.clone() else {
            return Some(Ok(()));
        };
        let chunk = encode_items(&page.transactions[take.range()], self.format);
        side.bytes += chunk.len() as u64;
        side.updates += take.range().len() as u64;
        side.pages += 1;
        self.pages_now += 1;
        if let Some(c) = self.walk.cursor() {
            side.after_migration_id = c.after_migration_id;
            side.after_record_time.clone_from(&c.after_record_time);
        }
        side.complete = take.done;
        if chunk.is_empty() {
            let wid = cx.next_id();
            self.write_side(wid, side, cx.out);
        } else {
            let wid = cx.next_id();
            cx.out.effects.push(Effect::AppendFile {
                id: wid,
                path: self.path.clone(),
                contents: chunk,
            });
            self.writes.push(wid);
            self.next_side = Some((cx.next_id(), side));
        }
        Some(Ok(()))
    }

    /// A write landed or failed (`None`: not this export's).
    pub fn on_written(
        &mut self,
        id: RequestId,
        result: &Result<usize, String>,
        out: &mut ExportOut,
    ) -> Option<Written> {
        let at = self.writes.iter().position(|w| *w == id)?;
        self.writes.remove(at);
        if self.creating == Some(id) {
            self.creating = None;
            return Some(Written::Creating(result.clone()));
        }
        Some(self.went_on(result, out))
    }

    /// The file was created (its header landed, or the kit says why not: `created` false):
    /// goes on with its sidecar.
    pub fn created(&mut self, result: &Result<usize, String>, out: &mut ExportOut) -> Written {
        self.went_on(result, out)
    }

    fn went_on(&mut self, result: &Result<usize, String>, out: &mut ExportOut) -> Written {
        if let Err(e) = result {
            return Written::Failed(format!("could not write {}: {e}", self.path.display()));
        }
        if let Some((wid, side)) = self.next_side.take() {
            // The page's rows landed: now the sidecar may say so.
            self.write_side(wid, side, out);
            return Written::Running;
        }
        if !self.writes.is_empty() || self.stage != Stage::Running {
            return Written::Running;
        }
        let (pct, done) = (self.percent(), self.walk.is_done());
        let side = self.side.clone();
        if done {
            if let Some(side) = side {
                out.note(
                    Note::Info,
                    format!(
                        "exported {} updates of {} – {} from the server to {} ({} bytes)",
                        group_thousands(side.updates),
                        side.from,
                        side.until,
                        self.path.display(),
                        group_thousands(side.bytes)
                    ),
                );
            }
            return Written::Done;
        }
        if self.pages_now > 0 {
            let secs = (self.now - self.started).max(1) as f64 / 1e6;
            out.note(
                Note::Info,
                format!(
                    "exporting from the server {pct}%: {} updates · {} pages · {:.1} pages/s · at {} · Esc stops",
                    group_thousands(self.written()),
                    group_thousands(side.as_ref().map_or(0, |s| s.pages)),
                    self.pages_now as f64 / secs,
                    side.as_ref().map_or("", |s| s.after_record_time.as_str()),
                ),
            );
        }
        Written::Running
    }

    /// Stops the export (the file and its sidecar stay; the same file resumes): the page in
    /// flight is cancelled, the message said; returns the writes still in flight (answered
    /// later, to be absorbed quietly).
    pub fn stop(self, why: &str, out: &mut ExportOut) -> Vec<RequestId> {
        if let Some(id) = self.fetch {
            out.effects.push(Effect::Cancel(id));
        }
        let at = self
            .side
            .as_ref()
            .map_or_else(String::new, |s| s.after_record_time.clone());
        let text = format!(
            "export from the server stopped ({}) at {at} with {} updates in {}; X with the same file continues",
            crate::api::sanitize_line(why, 120),
            group_thousands(self.written()),
            self.path.display()
        );
        let level = if why == "cancelled" {
            Note::Info
        } else {
            Note::Error
        };
        out.note(level, text);
        self.writes
    }
}
