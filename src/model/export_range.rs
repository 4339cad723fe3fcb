//! Export of a time range straight from the server: the rows of each `/v2/updates` page
//! encoded as the History export writes them ([`super::export`]: same columns, JSON Lines or
//! CSV), and the sidecar file that makes the export resumable.
//!
//! The sidecar (`<file>.progress.json`) is rewritten after each page has landed in the file:
//! the range, the format, the bytes of the file that are whole rows, and the cursor after the
//! last written update. Running the export again with the same file reads it, cuts the file to
//! those bytes (dropping a row cut short by a crash) and continues after the cursor: no update
//! twice, none missing. When the export ends, the sidecar says `complete`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::api::scan::{UpdateItem, UpdatesAfter};

use super::export::{ExportFormat, ExportRow, write_header};
use super::summary::Summarizer;

/// What a sidecar says it is.
pub const SIDECAR_KIND: &str = "cantonscope export from the server";

/// The sidecar of an export file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RangeSidecar {
    pub kind: String,
    /// `jsonl` or `csv`.
    pub format: String,
    /// The range, RFC 3339 (inclusive at both ends).
    pub from: String,
    pub until: String,
    /// The cursor after the last written update.
    pub after_migration_id: i64,
    pub after_record_time: String,
    /// Bytes of the file that hold whole rows (and the CSV header).
    pub bytes: u64,
    pub updates: u64,
    pub pages: u64,
    pub complete: bool,
}

impl RangeSidecar {
    /// A new export of `from..=until` starting at `cursor`, with the header already written.
    pub fn new(
        format: ExportFormat,
        from: &str,
        until: &str,
        cursor: &UpdatesAfter,
        header: u64,
    ) -> RangeSidecar {
        RangeSidecar {
            kind: SIDECAR_KIND.to_owned(),
            format: format.extension().to_owned(),
            from: from.to_owned(),
            until: until.to_owned(),
            after_migration_id: cursor.after_migration_id,
            after_record_time: cursor.after_record_time.clone(),
            bytes: header,
            updates: 0,
            pages: 0,
            complete: false,
        }
    }

    /// Reads a sidecar; an error names what is wrong.
    pub fn parse(bytes: &[u8]) -> Result<RangeSidecar, String> {
        let s: RangeSidecar =
            serde_json::from_slice(bytes).map_err(|e| format!("not an export sidecar: {e}"))?;
        if s.kind != SIDECAR_KIND {
            return Err("not an export sidecar".to_owned());
        }
        Ok(s)
    }

    /// The format it names.
    pub fn format(&self) -> ExportFormat {
        if self.format == "csv" {
            ExportFormat::Csv
        } else {
            ExportFormat::JsonLines
        }
    }

    /// The cursor after the last written update.
    pub fn cursor(&self) -> UpdatesAfter {
        UpdatesAfter {
            after_migration_id: self.after_migration_id,
            after_record_time: self.after_record_time.clone(),
        }
    }

    /// As written to disk (pretty, one field a line).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = serde_json::to_vec_pretty(self).unwrap_or_default();
        out.push(b'\n');
        out
    }
}

/// `<file>.progress.json`.
pub fn sidecar_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".progress.json");
    PathBuf::from(s)
}

/// The file's first bytes: the CSV header (nothing for JSON Lines).
pub fn header(format: ExportFormat) -> Vec<u8> {
    let mut out = Vec::new();
    write_header(format, &mut out);
    out
}

/// The rows of `items`, as the History export writes them (a summarizer of its own per page,
/// so nothing grows with the length of the export).
pub fn encode_items(items: &[UpdateItem], format: ExportFormat) -> Vec<u8> {
    let mut summarizer = Summarizer::default();
    let mut out = Vec::with_capacity(items.len() * 200);
    for item in items {
        let s = summarizer.summarize(item);
        ExportRow::of(&s, &summarizer).write(format, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sidecar_round_trips_and_refuses_other_files() {
        let c = UpdatesAfter {
            after_migration_id: 3,
            after_record_time: "2026-11-22T10:00:00Z".into(),
        };
        let s = RangeSidecar::new(
            ExportFormat::Csv,
            "2026-11-22T09:00:00Z",
            "2026-11-22T10:00:00Z",
            &c,
            5,
        );
        let back = RangeSidecar::parse(&s.to_bytes()).expect("parses");
        assert_eq!(back, s);
        assert_eq!(back.format(), ExportFormat::Csv);
        assert_eq!(back.cursor(), c);
        assert!(RangeSidecar::parse(b"{\"kind\": \"x\"}").is_err());
        assert!(RangeSidecar::parse(b"garbage").is_err());
        assert_eq!(
            sidecar_path(Path::new("/tmp/out.csv")),
            PathBuf::from("/tmp/out.csv.progress.json")
        );
    }
}
