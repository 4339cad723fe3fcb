//! `X`: the dialog of the export of a time range from the server, and the export's run (its
//! state machine is [`crate::feed::range_export`]; the pane owns the dialog, the new-file kit
//! and the writes still landing after a stop).

use crossterm::event::KeyEvent;

use crate::feed::loader::Note;
use crate::feed::range_export::{ExportCx, ExportOut, Opened, RangeExport, Written};
use crate::msg::{Fetched, Owner, PaneId, RequestId};

use super::super::export::{DialogOutcome, RangeDialog};
use super::super::new_file::EXISTS_NOTE;
use super::super::{Out, Shared};
use super::HistoryPane;

/// Runs `f` on the export's state machine with the pane's clock, ids and output.
fn step<T>(sh: &mut Shared, out: &mut Out, f: impl FnOnce(&mut ExportCx<'_>) -> T) -> T {
    let mut eo = ExportOut::default();
    let got = {
        let mut cx = ExportCx {
            now: sh.now,
            ids: &mut sh.ids,
            owner: Owner::Pane(PaneId::History),
            out: &mut eo,
        };
        f(&mut cx)
    };
    emit(eo, out);
    got
}

/// Runs `f` on the export's state machine where it needs no clock nor ids (writes landing, a
/// stop).
fn emitting<T>(out: &mut Out, f: impl FnOnce(&mut ExportOut) -> T) -> T {
    let mut eo = ExportOut::default();
    let got = f(&mut eo);
    emit(eo, out);
    got
}

/// What the export emitted, into the pane's output.
fn emit(eo: ExportOut, out: &mut Out) {
    out.effects.extend(eo.effects);
    for (level, text) in eo.notes {
        match level {
            Note::Info => out.info(text),
            Note::Warn => out.warn(text),
            Note::Error => out.error(text),
        }
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
        let path = crate::panes::export::start_path(&sh.ctx, sh.now, "range");
        self.exports.range_dialog = Some(RangeDialog::new(&path));
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
                    Ok(ask) => {
                        crate::panes::export::remember_format(sh, ask.format, out);
                        self.start_range_export(ask, retry, sh, out);
                    }
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
                    .find(|s| s.record_time() <= ask.from)
                    .map(crate::model::summary::UpdateSummary::migration_id)
            })
            .or(sh.feed.migration)
            .unwrap_or(0);
        let job = step(sh, out, |cx| {
            RangeExport::start(ask.path, ask.format, (ask.from, ask.until), migration, cx)
        });
        self.exports.range = Some(job);
        self.exports.range_retry = Some(retry);
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
        let file = &self.exports.file;
        match step(sh, out, |cx| {
            job.on_file_read(id, result, cx, |wid, path, head| {
                file.write(wid, path, head)
            })
        }) {
            None => false,
            Some(Opened::Running) => true,
            Some(Opened::Ended) => {
                self.exports.range = None;
                true
            }
        }
    }

    /// Sends the next page when it is due (on ticks).
    pub(super) fn pump_range_export(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        let Some(job) = &mut self.exports.range else {
            return false;
        };
        step(sh, out, |cx| job.pump(cx))
    }

    /// A page arrived: its rows are appended; the sidecar follows once they landed.
    pub(super) fn on_range_page(
        &mut self,
        reply: &Fetched,
        sh: &mut Shared,
        out: &mut Out,
    ) -> bool {
        let Some(job) = &mut self.exports.range else {
            return false;
        };
        match step(sh, out, |cx| job.on_page(reply, cx)) {
            None => false,
            Some(Ok(())) => true,
            Some(Err(why)) => self.stop_range(&why, out),
        }
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
        let Some(mut written) = emitting(out, |eo| job.on_written(id, result, eo)) else {
            return false;
        };
        if let Written::Creating(result) = &written {
            let path = job.path().to_path_buf();
            let retry = self.exports.range_retry.take();
            if self.exports.file.refused(&path, result, out) {
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
            let Some(job) = &mut self.exports.range else {
                return true;
            };
            written = emitting(out, |eo| job.created(result, eo));
        }
        match written {
            Written::Failed(why) => {
                self.stop_range(&why, out);
            }
            Written::Done => self.exports.range = None,
            Written::Creating(_) | Written::Running => {}
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
        self.exports.range_retry = None;
        // Writes still in flight are answered later: absorbed quietly.
        let orphans = emitting(out, |eo| job.stop(why, eo));
        self.exports.range_orphans.extend(orphans);
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
