//! The History pane's export: the dialog over the shown rows, the job encoding a chunk per tick
//! and the file writes streaming it (see `panes::export` for the dialog itself). The first
//! chunk creates the file ([`crate::panes::new_file`]) and nothing more is encoded until that
//! landed: when the file exists nothing is written, the dialog comes back saying so, and ↵
//! again replaces it.

use crossterm::event::KeyEvent;

use crate::model::export::{CHUNK_ROWS, ExportSnapshot};
use crate::msg::{Effect, RequestId};
use crate::ui::format::group_thousands;

use super::super::export::{DialogOutcome, ExportDialog, remember_format, start_path};
use super::super::new_file::EXISTS_NOTE;
use super::super::{Out, Shared};
use super::HistoryPane;

/// The file side of an export: its writes in flight and what to say at the end.
#[derive(Debug)]
pub(super) struct ExportWrites {
    path: std::path::PathBuf,
    rows: usize,
    format: crate::model::export::ExportFormat,
    /// Every write issued (answers to them are the export's, even after it stopped).
    ids: Vec<RequestId>,
    pending: usize,
    bytes: usize,
    /// Every row is encoded and handed to the writer.
    encoded: bool,
    /// Finished, failed or cancelled: later answers are only absorbed.
    over: bool,
    /// The first write (creating or replacing the file) landed: the file is the export's.
    /// Until then nothing more is written, and a cancel removes the file only once it did.
    opened: bool,
    /// The dialog as submitted, until the file is opened: it comes back if the file exists.
    retry: Option<Box<ExportDialog>>,
}

impl ExportWrites {
    fn new(job: &crate::model::export::ExportJob, retry: ExportDialog) -> ExportWrites {
        ExportWrites {
            path: job.path.clone(),
            rows: job.total(),
            format: job.format,
            ids: Vec::new(),
            pending: 0,
            bytes: 0,
            encoded: false,
            over: false,
            opened: false,
            retry: Some(Box::new(retry)),
        }
    }

    /// Stops: later answers are absorbed; what the export wrote is removed (once the file is
    /// opened: the answer to the first write removes it otherwise).
    fn give_up(&mut self, out: &mut Out) {
        self.over = true;
        if self.opened {
            out.effects.push(Effect::RemoveFile(self.path.clone()));
        }
    }
}

impl HistoryPane {
    // ---------------------------------------------------------------------------------------
    // Export
    // ---------------------------------------------------------------------------------------

    /// `e`: opens the export dialog over the rows shown now (frozen until the export ends).
    pub(super) fn open_export(&mut self, sh: &Shared, out: &mut Out) {
        if let Some(job) = &self.exports.job {
            out.warn(format!(
                "an export is running ({}%): Esc cancels it",
                job.percent()
            ));
            return;
        }
        self.resync(sh);
        let snapshot = ExportSnapshot::new(&sh.history, &self.view);
        if snapshot.is_empty() {
            out.warn(if sh.history.is_empty() {
                "nothing to export: no updates loaded yet"
            } else {
                "nothing to export: no loaded update matches the filter"
            });
            return;
        }
        let path = start_path(&sh.ctx, sh.now, "export");
        self.exports.dialog = Some(ExportDialog::new(snapshot, &path));
    }

    pub(super) fn on_export_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        let Some(dialog) = &mut self.exports.dialog else {
            return;
        };
        match dialog.handle_key(key) {
            DialogOutcome::Submit => {
                if let Some(dialog) = self.exports.dialog.take() {
                    let retry = dialog.clone();
                    match dialog.into_job() {
                        Ok(job) => {
                            remember_format(sh, job.format, out);
                            self.exports.writes = Some(ExportWrites::new(&job, retry));
                            self.exports.job = Some(job);
                            self.step_export(sh, out);
                        }
                        Err(dialog) => self.exports.dialog = Some(*dialog),
                    }
                }
            }
            DialogOutcome::Cancel => {
                self.exports.dialog = None;
                self.exports.file.forget();
            }
            DialogOutcome::Changed | DialogOutcome::Nothing => {}
        }
        self.scroll.set_viewport(self.list_viewport());
    }

    /// Encodes the next chunk of the running export and streams it to the file (the first
    /// chunk creates it, the next ones append once it landed; the runtime runs file effects in
    /// order).
    pub(super) fn step_export(&mut self, sh: &mut Shared, out: &mut Out) {
        let (Some(job), Some(writes)) = (&mut self.exports.job, &mut self.exports.writes) else {
            return;
        };
        if !writes.ids.is_empty() && !writes.opened {
            return;
        }
        let step = job.step(&sh.history, CHUNK_ROWS);
        let chunk = job.take_chunk();
        let path = job.path.clone();
        match step {
            Ok(finished) => {
                if !chunk.is_empty() || writes.ids.is_empty() {
                    let id = out.next_id(sh);
                    out.effects.push(if writes.ids.is_empty() {
                        self.exports.file.write(id, path, chunk)
                    } else {
                        Effect::AppendFile {
                            id,
                            path,
                            contents: chunk,
                        }
                    });
                    writes.ids.push(id);
                    writes.pending += 1;
                }
                if finished {
                    writes.encoded = true;
                    self.exports.job = None;
                }
            }
            Err(e) => {
                self.exports.job = None;
                writes.give_up(out);
                out.error(format!(
                    "export cancelled: {e}; the partial file was removed"
                ));
            }
        }
        self.scroll.set_viewport(self.list_viewport());
    }

    /// A write of the export finished: the next message, or the failure (which stops it).
    pub(super) fn on_export_written(
        &mut self,
        id: RequestId,
        result: &Result<usize, String>,
        out: &mut Out,
    ) -> bool {
        let Some(w) = &mut self.exports.writes else {
            return false;
        };
        if !w.ids.contains(&id) {
            return false;
        }
        w.pending = w.pending.saturating_sub(1);
        if w.ids.first() == Some(&id) && !w.opened {
            if self.exports.file.refused(&w.path, result, out) {
                // Nothing was written: the dialog comes back (unless the export was stopped).
                let retry = w.retry.take();
                if !w.over {
                    w.over = true;
                    self.exports.job = None;
                    if self.exports.dialog.is_none()
                        && let Some(mut dialog) = retry
                    {
                        dialog.set_validation(EXISTS_NOTE);
                        self.exports.dialog = Some(*dialog);
                    }
                    self.scroll.set_viewport(self.list_viewport());
                }
                return true;
            }
            if result.is_ok() {
                w.opened = true;
                w.retry = None;
                if w.over {
                    // Cancelled while the file was being created: it goes now.
                    out.effects.push(Effect::RemoveFile(w.path.clone()));
                }
            }
        }
        if w.over {
            return true;
        }
        match result {
            Ok(n) => {
                w.bytes += n;
                if w.encoded && w.pending == 0 {
                    w.over = true;
                    out.info(format!(
                        "exported {} row{} as {} to {} ({} bytes)",
                        group_thousands(w.rows),
                        if w.rows == 1 { "" } else { "s" },
                        w.format.label(),
                        w.path.display(),
                        group_thousands(w.bytes)
                    ));
                }
            }
            Err(e) => {
                // A file the export did not open is not its own to remove.
                w.give_up(out);
                out.error(format!(
                    "export failed: could not write {}: {e}",
                    w.path.display()
                ));
                self.exports.job = None;
                self.scroll.set_viewport(self.list_viewport());
            }
        }
        true
    }

    /// Stops a running export and removes what it wrote so far. Returns the message.
    pub(super) fn abort_export(&mut self, out: &mut Out) -> Option<(usize, usize)> {
        let job = self.exports.job.take()?;
        if let Some(w) = &mut self.exports.writes
            && !w.over
        {
            w.give_up(out);
        }
        Some((job.done(), job.total()))
    }

    pub(super) fn cancel_export(&mut self, out: &mut Out) {
        if let Some((done, total)) = self.abort_export(out) {
            out.info(format!(
                "export cancelled at {} of {} rows; the partial file was removed",
                group_thousands(done),
                group_thousands(total)
            ));
        }
        self.scroll.set_viewport(self.list_viewport());
    }
}
