//! The bootstrapping section: a synchronizer's bootstrapping transactions (decoded sizes,
//! save the decoded bytes to a file, copy the base64).

use std::borrow::Cow;
use std::path::PathBuf;

use base64::Engine;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::NetworkPane;
use crate::api::scan::BootstrappingTransactions;
use crate::msg::{Request, RequestId};
use crate::panes::form::{Load, cell, file_part, paragraph};
use crate::panes::new_file::EXISTS_NOTE;
use crate::panes::{Out, RenderCtx, Shared};
use crate::ui::layout::heading;
use crate::ui::table::{Cell, Column, Columns, DataTable, Draw, SortKey, TableRow, Width};
use crate::ui::text_input::TextInput;
use crate::ui::theme::Theme;

/// One bootstrapping transaction (a base64 topology transaction bundle).
#[derive(Debug, Clone, PartialEq)]
pub struct BootTx {
    /// The response field it came from (`domain_parameters`, …).
    pub name: String,
    pub base64: String,
    /// The decoded bytes, or why they could not be decoded.
    pub bytes: Result<Vec<u8>, String>,
}

/// The columns of the bootstrapping transactions table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BootCol {
    Name,
    Size,
    Base64,
}

impl TableRow for BootTx {
    type Col = BootCol;
    type Ctx = ();

    fn cell(&self, col: BootCol, _width: u16, (): &(), theme: &Theme) -> Cell<'_> {
        match col {
            BootCol::Name => Cell::new(self.name.as_str(), theme.accent),
            BootCol::Size => {
                let size = match &self.bytes {
                    Ok(v) => bytes_label(v.len()),
                    Err(_) => "invalid".to_string(),
                };
                Cell::new(size, theme.json_number)
            }
            BootCol::Base64 => {
                let b64 = match &self.bytes {
                    // Valid base64 is ASCII; only a screenful of it is ever shown.
                    Ok(_) => Cow::Owned(format!(
                        "{} chars  {}",
                        crate::ui::format::group_thousands(self.base64.len()),
                        self.base64.get(..self.base64.len().min(512)).unwrap_or("")
                    )),
                    Err(e) => Cow::Borrowed(e.as_str()),
                };
                Cell::Text(b64, theme.muted)
            }
        }
    }

    fn sort_key(&self, col: BootCol) -> SortKey<'_> {
        match col {
            BootCol::Name => SortKey::Text(Cow::Borrowed(&self.name)),
            BootCol::Size => self
                .bytes
                .as_ref()
                .map_or(SortKey::Missing, |b| SortKey::Int(b.len() as i128)),
            BootCol::Base64 => SortKey::Int(self.base64.len() as i128),
        }
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.name)
    }
}

pub(super) fn boot_table() -> DataTable<BootCol> {
    DataTable::new(Columns::new(vec![
        Column::new(BootCol::Name, "Transaction", Width::Fixed(26)),
        Column::new(BootCol::Size, "Size", Width::Fixed(12)).descending_first(),
        Column::new(BootCol::Base64, "Base64", Width::fill(0)).descending_first(),
    ]))
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct BootResult {
    pub(super) prefix: String,
    pub(super) txs: Vec<BootTx>,
}

/// Base64 alphabets accepted for bootstrapping transactions.
pub(super) fn decode_base64(s: &str) -> Result<Vec<u8>, String> {
    let s = s.trim();
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .or_else(|_| base64::engine::general_purpose::URL_SAFE.decode(s))
        .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(s))
        .map_err(|e| format!("not valid base64: {e}"))
}

/// The transactions of a bootstrapping response, in the response's field order (the three
/// known ones first, then any other string field a newer server sends).
pub fn boot_txs(r: &BootstrappingTransactions) -> Vec<BootTx> {
    let mut out: Vec<BootTx> = [
        ("domain_parameters", &r.domain_parameters),
        ("sequencer_domain_state", &r.sequencer_domain_state),
        ("mediator_domain_state", &r.mediator_domain_state),
    ]
    .into_iter()
    .map(|(name, b64)| BootTx {
        name: name.to_string(),
        base64: b64.clone(),
        bytes: decode_base64(b64),
    })
    .collect();
    for (k, v) in &r.unknown {
        if let Some(s) = v.as_str() {
            out.push(BootTx {
                name: k.clone(),
                base64: s.to_string(),
                bytes: decode_base64(s),
            });
        }
    }
    out
}

/// `1536` → `1,536 B`.
pub(super) fn bytes_label(n: usize) -> String {
    format!("{} B", crate::ui::format::group_thousands(n))
}

impl NetworkPane {
    pub(super) fn query_boot(&mut self, prefix: String, sh: &mut Shared, out: &mut Out) {
        let id = out.fetch(
            sh,
            Request::api(crate::api::scan::bootstrapping_transactions(&prefix)),
        );
        self.boot_prefix = Some(prefix);
        self.boot = Load::Loading(id);
    }

    // -----------------------------------------------------------------------------------------
    // Save and copy
    // -----------------------------------------------------------------------------------------

    pub(super) fn selected_boot(&self) -> Option<(usize, &BootTx)> {
        let b = self.boot.done()?;
        let i = self.boot_table.selected()?;
        b.txs.get(i).map(|t| (i, t))
    }

    pub(super) fn open_save(&mut self, out: &mut Out) {
        let Some(prefix) = self.boot.done().map(|b| b.prefix.clone()) else {
            out.warn("nothing to save: query the bootstrapping transactions first (i)");
            return;
        };
        let Some((n, tx)) = self.selected_boot() else {
            return;
        };
        if let Err(e) = &tx.bytes {
            out.error(format!("cannot save {}: {e}", tx.name));
            return;
        }
        let path = format!("./bootstrap-{}-{}.bin", file_part(&prefix), n + 1);
        self.save_input = Some(
            TextInput::single_line()
                .with_placeholder("file path")
                .with_text(&path),
        );
    }

    pub(super) fn save_to(&mut self, path: &str, sh: &mut Shared, out: &mut Out) {
        let path = path.trim();
        if path.is_empty() {
            if let Some(input) = &mut self.save_input {
                input.set_validation(Some("enter a file path".into()));
            }
            return;
        }
        let Some((_, tx)) = self.selected_boot() else {
            self.save_input = None;
            return;
        };
        match &tx.bytes {
            Ok(bytes) => {
                let contents = bytes.clone();
                self.save_input = None;
                let id = out.next_id(sh);
                out.effects
                    .push(self.boot_file.write(id, PathBuf::from(path), contents));
                self.boot_saving = Some((id, path.to_owned()));
            }
            Err(e) => {
                let msg = format!("cannot save {}: {e}", tx.name);
                self.save_input = None;
                out.error(msg);
            }
        }
    }

    /// A bootstrapping save finished: when the file exists, asks again at its path (↵ replaces
    /// it); otherwise the app says where it went. Returns whether the write was this save's and
    /// was refused.
    pub(super) fn on_boot_written(
        &mut self,
        id: RequestId,
        result: &Result<usize, String>,
        out: &mut Out,
    ) -> bool {
        let Some((_, path)) = self.boot_saving.take_if(|(saving, _)| *saving == id) else {
            return false;
        };
        if !self
            .boot_file
            .refused(std::path::Path::new(&path), result, out)
        {
            return false;
        }
        let mut input = TextInput::single_line()
            .with_placeholder("file path")
            .with_text(&path);
        input.set_validation(Some(EXISTS_NOTE.into()));
        self.save_input = Some(input);
        true
    }

    pub(super) fn render_boot(&self, area: Rect, buf: &mut Buffer, cx: RenderCtx<'_>) {
        let RenderCtx { sh, theme, focused } = cx;
        let mut area = area;
        if let Some(input) = &self.save_input {
            let h = input.desired_height() + 1;
            if area.height > h {
                let bar = Rect::new(area.x, area.bottom() - h, area.width, h);
                area.height -= h;
                let label = "Save to ";
                buf.set_stringn(bar.x, bar.y, label, usize::from(bar.width), theme.accent);
                let x = bar.x + (label.len() as u16).min(bar.width);
                input.render(
                    Rect::new(x, bar.y, bar.right() - x, input.desired_height()),
                    buf,
                    theme,
                    true,
                );
                cell(
                    buf,
                    bar.x,
                    bar.bottom() - 1,
                    "↵ save the decoded bytes · Esc cancel",
                    bar.width,
                    theme.muted,
                );
            }
        }
        match &self.boot {
            Load::Idle => {
                let hint = match Self::suggested_prefix(sh) {
                    Some(p) => format!(
                        "Press i to enter a synchronizer id prefix (suggested: {p}, the synchronizer of the newest loaded update)."
                    ),
                    None => "Press i to enter a synchronizer id prefix (e.g. global-domain)."
                        .to_string(),
                };
                paragraph(area, buf, &hint, theme.muted);
            }
            Load::Loading(_) => {
                let p = self.boot_prefix.as_deref().unwrap_or("");
                paragraph(
                    area,
                    buf,
                    &format!("loading bootstrapping transactions of {p}…"),
                    theme.muted,
                );
            }
            Load::Failed(e) => {
                paragraph(area, buf, e, theme.status_err);
            }
            Load::Done(b) => {
                let total: usize = b
                    .txs
                    .iter()
                    .map(|t| t.bytes.as_ref().map_or(0, Vec::len))
                    .sum();
                let line = format!(
                    "Prefix {}: {} transactions, {} decoded",
                    b.prefix,
                    b.txs.len(),
                    bytes_label(total)
                );
                let table = heading(buf, area, &line, theme.muted);
                let draw = Draw::new(&(), theme, focused);
                self.boot_table.render(table, buf, &b.txs, &draw);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_variants_decode_and_bad_input_is_explained() {
        assert_eq!(decode_base64("aGVsbG8=").as_deref(), Ok(&b"hello"[..]));
        assert_eq!(decode_base64("aGVsbG8").as_deref(), Ok(&b"hello"[..]));
        assert!(decode_base64("!!!").unwrap_err().contains("base64"));
    }

    #[test]
    fn byte_sizes_group_digits() {
        assert_eq!(bytes_label(96), "96 B");
        assert_eq!(bytes_label(12_345), "12,345 B");
    }
}
