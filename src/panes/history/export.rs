//! The History pane's export: the dialog over the shown rows, the job encoding a chunk per tick
//! and the file writes streaming it (see `panes::export` for the dialog itself).

use crossterm::event::KeyEvent;

use crate::model::export::{CHUNK_ROWS, ExportSnapshot};
use crate::msg::{Effect, RequestId};
use crate::ui::format::group_thousands;

use super::super::export::{DialogOutcome, ExportDialog};
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
}

impl HistoryPane {
    // ---------------------------------------------------------------------------------------
    // Export
    // ---------------------------------------------------------------------------------------

    /// `e`: opens the export dialog over the rows shown now (frozen until the export ends).
    pub(super) fn open_export(&mut self, sh: &Shared, out: &mut Out) {
        if let Some(job) = &self.export {
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
        self.export_dialog = Some(ExportDialog::new(snapshot, sh.now));
    }

    pub(super) fn on_export_key(&mut self, key: &KeyEvent, sh: &mut Shared, out: &mut Out) {
        let Some(dialog) = &mut self.export_dialog else {
            return;
        };
        match dialog.handle_key(key) {
            DialogOutcome::Submit => {
                if let Some(dialog) = self.export_dialog.take() {
                    match dialog.into_job() {
                        Ok(job) => {
                            self.export = Some(job);
                            self.export_writes = None;
                            self.step_export(sh, out);
                        }
                        Err(dialog) => self.export_dialog = Some(*dialog),
                    }
                }
            }
            DialogOutcome::Cancel => self.export_dialog = None,
            DialogOutcome::Changed | DialogOutcome::Nothing => {}
        }
        self.scroll.set_viewport(self.list_viewport());
    }

    /// Encodes the next chunk of the running export and streams it to the file (the first
    /// chunk creates it, the next ones append; the runtime runs file effects in order).
    pub(super) fn step_export(&mut self, sh: &mut Shared, out: &mut Out) {
        let Some(job) = &mut self.export else {
            return;
        };
        let step = job.step(&sh.history, CHUNK_ROWS);
        let chunk = job.take_chunk();
        let (path, rows, format) = (job.path.clone(), job.total(), job.format);
        let writes = self.export_writes.get_or_insert_with(|| ExportWrites {
            path: path.clone(),
            rows,
            format,
            ids: Vec::new(),
            pending: 0,
            bytes: 0,
            encoded: false,
            over: false,
        });
        match step {
            Ok(finished) => {
                if !chunk.is_empty() || writes.ids.is_empty() {
                    let id = out.next_id(sh);
                    out.effects.push(if writes.ids.is_empty() {
                        Effect::WriteFile {
                            id,
                            path,
                            contents: chunk,
                        }
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
                    self.export = None;
                }
            }
            Err(e) => {
                self.export = None;
                writes.over = true;
                if !writes.ids.is_empty() {
                    out.effects.push(Effect::RemoveFile(writes.path.clone()));
                }
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
        let Some(w) = &mut self.export_writes else {
            return false;
        };
        if !w.ids.contains(&id) {
            return false;
        }
        w.pending = w.pending.saturating_sub(1);
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
                w.over = true;
                out.effects.push(Effect::RemoveFile(w.path.clone()));
                out.error(format!(
                    "export failed: could not write {}: {e}",
                    w.path.display()
                ));
                self.export = None;
                self.scroll.set_viewport(self.list_viewport());
            }
        }
        true
    }

    /// Stops a running export and removes what it wrote so far. Returns the message.
    pub(super) fn abort_export(&mut self, out: &mut Out) -> Option<(usize, usize)> {
        let job = self.export.take()?;
        if let Some(w) = &mut self.export_writes
            && !w.over
        {
            w.over = true;
            if !w.ids.is_empty() {
                out.effects.push(Effect::RemoveFile(w.path.clone()));
            }
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
