//! Export of the History pane's rows to JSON Lines or CSV: the formats, the per-row encoding
//! (with CSV quoting and formula neutralising), and [`ExportJob`], which encodes a snapshot of
//! the rows taken when the user asked for the export a chunk at a time, so a million loaded
//! updates never block the UI.
//!
//! Columns, in this order: `record_time` (RFC 3339, UTC, microseconds), `update_id`,
//! `migration_id`, `kind` (`transaction` / `assign` / `unassign`, `malformed` for items that
//! could not be decoded), `root_action` (the one-line summary the pane shows) and `parties`
//! (every party the update mentions, sorted; `;`-separated in CSV, an array in JSON Lines).
//!
//! CSV follows RFC 4180: CRLF line ends, a header row, and fields that contain `,` `"` CR or LF
//! are wrapped in `"` with inner `"` doubled. Text fields are also neutralised against formula
//! injection when the file is opened in a spreadsheet: a text field that starts with `=` `+`
//! `-` `@`, a tab, CR or LF gets a leading `'` (the OWASP recommendation), and every character
//! the TUI neutralises ([`crate::api::json::needs_replacing`]: controls, bidi controls, zero-width
//! and other invisible characters; tab, CR and LF excepted, as CSV quoting carries them) is
//! replaced with the TUI's visible mark U+FFFD, so a `cat` of the file cannot drive the terminal
//! and a spreadsheet cannot reorder or hide text. The numeric `migration_id` and the record
//! time are written by us and are never prefixed. JSON Lines is written with `serde_json`, with
//! the same characters written as `\uXXXX` escapes (lossless; see [`super::json_text`]).

use std::borrow::Cow;
use std::path::PathBuf;

use chrono::DateTime;
use serde::Serialize;

use crate::api::json::{INVISIBLE_MARK, needs_replacing};

use super::format::format_time_micros;
use super::history::{FilteredView, History};
use super::json_text::escape_unsafe_from;
use super::position::At;
use super::summary::{Summarizer, UpdateIdText, UpdateSummary, cat};

/// Rows encoded per [`ExportJob::step`] call (one call per tick).
pub const CHUNK_ROWS: usize = 20_000;

/// The CSV header row (without the line end).
pub const CSV_HEADER: &str = "record_time,update_id,migration_id,kind,root_action,parties";

/// The file format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// One JSON object per line (`.jsonl`).
    JsonLines,
    /// Comma-separated values with a header row (`.csv`).
    Csv,
}

impl ExportFormat {
    /// The format named by a path's extension: `.csv` → CSV, `.jsonl` / `.ndjson` / `.json` →
    /// JSON Lines (case-insensitive). `None` for other extensions.
    pub fn from_path(path: &str) -> Option<ExportFormat> {
        let ext = known_extension(path)?;
        Some(if ext.eq_ignore_ascii_case("csv") {
            ExportFormat::Csv
        } else {
            ExportFormat::JsonLines
        })
    }

    /// The usual extension (without the dot).
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::JsonLines => "jsonl",
            ExportFormat::Csv => "csv",
        }
    }

    /// The name shown in the dialog.
    pub fn label(self) -> &'static str {
        match self {
            ExportFormat::JsonLines => "JSON Lines",
            ExportFormat::Csv => "CSV",
        }
    }

    /// The other format.
    pub fn toggled(self) -> ExportFormat {
        match self {
            ExportFormat::JsonLines => ExportFormat::Csv,
            ExportFormat::Csv => ExportFormat::JsonLines,
        }
    }

    /// `path` with a known export extension (`.csv`, `.jsonl`, `.ndjson`, `.json`) replaced by
    /// this format's; other paths are returned unchanged.
    pub fn apply_to_path(self, path: &str) -> String {
        match known_extension(path) {
            Some(ext) => format!("{}{}", &path[..path.len() - ext.len()], self.extension()),
            None => path.to_string(),
        }
    }
}

/// The extension of `path` (after the last `.` of the file name) when it is one an export
/// understands.
fn known_extension(path: &str) -> Option<&str> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let (stem, ext) = name.rsplit_once('.')?;
    if stem.is_empty() {
        return None;
    }
    ["csv", "jsonl", "ndjson", "json"]
        .iter()
        .any(|k| ext.eq_ignore_ascii_case(k))
        .then_some(ext)
}

/// `cantonscope-export-20261122T104107Z.jsonl` for the time `now` (µs since the epoch, UTC).
pub fn default_file_name(now: i64, format: ExportFormat) -> String {
    let stamp = DateTime::from_timestamp_micros(now).map_or_else(
        || "now".to_string(),
        |t| t.format("%Y%m%dT%H%M%SZ").to_string(),
    );
    format!("cantonscope-export-{stamp}.{}", format.extension())
}

/// Why a path cannot be exported to (checked before anything is encoded; whether the folder
/// exists and is writable is only known when the file is written).
pub fn check_path(path: &str) -> Result<(), String> {
    let path = path.trim();
    if path.is_empty() {
        return Err("enter a file name".into());
    }
    if path.ends_with(['/', '\\']) || path == "." || path == ".." || path.ends_with("/.") {
        return Err("that names a folder: add a file name".into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Rows
// ---------------------------------------------------------------------------------------------

/// One exported row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExportRow<'a> {
    /// RFC 3339 UTC (empty when the server's time could not be read).
    pub record_time: String,
    pub update_id: Cow<'a, str>,
    pub migration_id: i64,
    pub kind: &'static str,
    pub root_action: String,
    /// Every party of the update, sorted and distinct.
    pub parties: Vec<&'a str>,
}

impl<'a> ExportRow<'a> {
    /// The row of one summary.
    pub fn of(s: &'a UpdateSummary, summarizer: &'a Summarizer) -> ExportRow<'a> {
        let interner = &summarizer.interner;
        let mut parties: Vec<&str> = s
            .syms()
            .filter(|sym| summarizer.category(*sym) & cat::PARTY != 0)
            .map(|sym| interner.resolve(sym))
            .filter(|p| !p.is_empty())
            .collect();
        parties.sort_unstable();
        parties.dedup();
        ExportRow {
            record_time: format_time_micros(s.record_time()),
            update_id: match s.update_id() {
                UpdateIdText::Raw(id) => Cow::Borrowed(id),
                hex @ UpdateIdText::Hex(_) => Cow::Owned(hex.as_str().to_owned()),
            },
            migration_id: s.migration_id(),
            kind: s.kind().label(),
            root_action: s.root_label(interner),
            parties,
        }
    }

    /// Appends the row (with its line end) in `format`.
    pub fn write(&self, format: ExportFormat, out: &mut Vec<u8>) {
        match format {
            ExportFormat::JsonLines => {
                // Writing plain strings and numbers into a Vec cannot fail; should it ever,
                // the row is written as an object holding the error instead of silently lost.
                let start = out.len();
                if let Err(e) = serde_json::to_writer(&mut *out, self) {
                    out.truncate(start);
                    let note = serde_json::json!({ "error": e.to_string() });
                    out.extend_from_slice(note.to_string().as_bytes());
                }
                escape_unsafe_from(out, start);
                out.push(b'\n');
            }
            ExportFormat::Csv => {
                push_csv(out, &self.record_time, false);
                out.push(b',');
                push_csv(out, &self.update_id, true);
                out.push(b',');
                out.extend_from_slice(self.migration_id.to_string().as_bytes());
                out.push(b',');
                push_csv(out, self.kind, true);
                out.push(b',');
                push_csv(out, &self.root_action, true);
                out.push(b',');
                push_csv(out, &self.parties.join(";"), true);
                out.extend_from_slice(b"\r\n");
            }
        }
    }
}

/// Appends what comes before the first row (the CSV header; nothing for JSON Lines).
pub fn write_header(format: ExportFormat, out: &mut Vec<u8>) {
    if format == ExportFormat::Csv {
        out.extend_from_slice(CSV_HEADER.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
}

/// One CSV field as written: neutralised (for text fields) and quoted when needed.
pub fn csv_field(s: &str) -> Cow<'_, str> {
    csv_field_impl(s, true)
}

fn csv_field_impl(s: &str, text: bool) -> Cow<'_, str> {
    let formula = text && s.starts_with(['=', '+', '-', '@', '\t', '\r', '\n']);
    let (controls, quote) = scan_field(s);
    if !formula && !controls && !quote {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 4);
    if quote {
        out.push('"');
    }
    if formula {
        out.push('\'');
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\"\""),
            '\t' | '\r' | '\n' => out.push(c),
            c if neutralised(c) => out.push(INVISIBLE_MARK),
            c => out.push(c),
        }
    }
    if quote {
        out.push('"');
    }
    Cow::Owned(out)
}

/// Whether `s` has characters a CSV field neutralises, and whether it needs quotes: one pass over
/// the bytes, the characters decoded only when the text is not ASCII.
fn scan_field(s: &str) -> (bool, bool) {
    let (mut controls, mut quote, mut ascii) = (false, false, true);
    for &b in s.as_bytes() {
        match b {
            b',' | b'"' | b'\r' | b'\n' => quote = true,
            b'\t' => {}
            0..=0x1f | 0x7f => controls = true,
            0x80.. => ascii = false,
            _ => {}
        }
    }
    if !ascii {
        controls = s.chars().any(neutralised);
    }
    (controls, quote)
}

/// Whether a CSV field shows `c` as the TUI's mark: everything the TUI replaces except the tab,
/// CR and LF that a quoted CSV field carries.
fn neutralised(c: char) -> bool {
    needs_replacing(c) && !matches!(c, '\t' | '\r' | '\n')
}

fn push_csv(out: &mut Vec<u8>, s: &str, text: bool) {
    out.extend_from_slice(csv_field_impl(s, text).as_bytes());
}

// ---------------------------------------------------------------------------------------------
// Snapshot and job
// ---------------------------------------------------------------------------------------------

/// Which history rows an export covers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Rows {
    /// History indices `0..n` (no filter).
    All(usize),
    /// These history indices, in order (a filter was active).
    Indices(Vec<usize>),
}

/// The rows the History pane showed when the export was asked for. Updates that arrive later
/// (appended, or prepended by "load earlier") are not part of it: indices are kept relative to
/// the oldest update loaded at that time, found again by its (unique) ledger position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportSnapshot {
    rows: Rows,
    /// `(migration id, record time)` of the oldest loaded update at the time.
    anchor: Option<At>,
    /// The filter text in force (for the dialog).
    pub filter: Option<String>,
}

impl ExportSnapshot {
    /// The rows `view` shows of `history` now.
    pub fn new(history: &History, view: &FilteredView) -> ExportSnapshot {
        let n = view.len(history);
        let rows = if view.filter.is_some() {
            Rows::Indices((0..n).filter_map(|r| view.index(r)).collect())
        } else {
            Rows::All(n)
        };
        ExportSnapshot {
            rows,
            anchor: history.first().map(UpdateSummary::at),
            filter: view.filter.as_ref().map(|f| f.input.clone()),
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        match &self.rows {
            Rows::All(n) => *n,
            Rows::Indices(v) => v.len(),
        }
    }

    /// Whether there is nothing to export.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// History index of row `row` at snapshot time.
    fn index(&self, row: usize) -> Option<usize> {
        match &self.rows {
            Rows::All(n) => (row < *n).then_some(row),
            Rows::Indices(v) => v.get(row).copied(),
        }
    }

    /// How many updates were prepended since the snapshot (`None`: the history was replaced).
    fn shift(&self, history: &History) -> Option<usize> {
        let Some(anchor) = self.anchor else {
            return Some(0);
        };
        let pos = |i: usize| history.get(i).map(UpdateSummary::at);
        if pos(0) == Some(anchor) {
            return Some(0);
        }
        // Positions are strictly increasing: binary search for the anchor.
        let (mut lo, mut hi) = (0usize, history.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match pos(mid) {
                Some(p) if p < anchor => lo = mid + 1,
                _ => hi = mid,
            }
        }
        (pos(lo) == Some(anchor)).then_some(lo)
    }
}

/// An export failed before the file was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// The loaded history was replaced (e.g. `:time` reloaded it) while exporting.
    #[error("the loaded history was reloaded during the export")]
    HistoryChanged,
}

/// A running export: encodes [`CHUNK_ROWS`] rows per [`ExportJob::step`].
#[derive(Debug, Clone)]
pub struct ExportJob {
    pub path: PathBuf,
    pub format: ExportFormat,
    snapshot: ExportSnapshot,
    done: usize,
    out: Vec<u8>,
    /// Bytes already taken by [`ExportJob::take_chunk`].
    handed_out: usize,
}

impl ExportJob {
    /// A job writing `snapshot` to `path` in `format`; nothing is encoded yet.
    pub fn new(snapshot: ExportSnapshot, path: PathBuf, format: ExportFormat) -> ExportJob {
        let mut out = Vec::new();
        write_header(format, &mut out);
        ExportJob {
            path,
            format,
            snapshot,
            done: 0,
            out,
            handed_out: 0,
        }
    }

    /// Rows encoded so far.
    pub fn done(&self) -> usize {
        self.done
    }

    /// Rows in the export.
    pub fn total(&self) -> usize {
        self.snapshot.len()
    }

    /// Whether every row is encoded.
    pub fn is_finished(&self) -> bool {
        self.done >= self.total()
    }

    /// Percent done (0–100).
    pub fn percent(&self) -> u8 {
        let total = self.total();
        if total == 0 {
            return 100;
        }
        u8::try_from(self.done.min(total) * 100 / total).unwrap_or(100)
    }

    /// Bytes encoded so far (handed out or not).
    pub fn bytes(&self) -> usize {
        self.handed_out + self.out.len()
    }

    /// Encodes up to `max_rows` more rows. Returns whether the job is finished. The encoded
    /// bytes wait in the job until [`ExportJob::take_chunk`].
    pub fn step(&mut self, history: &History, max_rows: usize) -> Result<bool, ExportError> {
        if self.is_finished() {
            return Ok(true);
        }
        let shift = self
            .snapshot
            .shift(history)
            .ok_or(ExportError::HistoryChanged)?;
        let end = self.done.saturating_add(max_rows.max(1)).min(self.total());
        for row in self.done..end {
            let summary = self
                .snapshot
                .index(row)
                .and_then(|i| history.get(i + shift))
                .ok_or(ExportError::HistoryChanged)?;
            ExportRow::of(summary, &history.summarizer).write(self.format, &mut self.out);
        }
        self.done = end;
        Ok(self.is_finished())
    }

    /// The bytes encoded since the last call (the header comes with the first chunk): the
    /// export streams to its file chunk by chunk, so memory stays at one chunk.
    pub fn take_chunk(&mut self) -> Vec<u8> {
        let chunk = std::mem::take(&mut self.out);
        self.handed_out += chunk.len();
        chunk
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_scan_finds_what_the_character_rules_name() {
        let samples = [
            "",
            "plain::1220ab",
            "a,b",
            "say \"hi\"",
            "tab\there",
            "cr\rlf\n",
            "bell\u{7}",
            "del\u{7f}",
            "c1\u{85}",
            "bidi\u{202e}x",
            "zero\u{200b}width",
            "é and ü, fine",
            "tag\u{e0041}",
            "\u{feff}bom",
        ];
        for s in samples {
            let by_chars = (
                s.chars().any(neutralised),
                s.contains([',', '"', '\r', '\n']),
            );
            assert_eq!(scan_field(s), by_chars, "{s:?}");
        }
    }

    #[test]
    fn formats_follow_the_extension() {
        assert_eq!(ExportFormat::from_path("a.csv"), Some(ExportFormat::Csv));
        assert_eq!(
            ExportFormat::from_path("dir/a.CSV"),
            Some(ExportFormat::Csv)
        );
        assert_eq!(
            ExportFormat::from_path("a.jsonl"),
            Some(ExportFormat::JsonLines)
        );
        assert_eq!(
            ExportFormat::from_path("a.json"),
            Some(ExportFormat::JsonLines)
        );
        assert_eq!(ExportFormat::from_path("a.txt"), None);
        assert_eq!(ExportFormat::from_path("csv"), None);
        assert_eq!(ExportFormat::from_path(".csv"), None);
        assert_eq!(ExportFormat::from_path("x.csv/out"), None);
        assert_eq!(ExportFormat::Csv.apply_to_path("out/a.jsonl"), "out/a.csv");
        assert_eq!(ExportFormat::JsonLines.apply_to_path("a.csv"), "a.jsonl");
        assert_eq!(ExportFormat::Csv.apply_to_path("a.txt"), "a.txt");
    }

    #[test]
    fn default_names_carry_the_utc_time() {
        let t = crate::model::format::parse_time_micros("2026-11-22T10:41:07.5Z").unwrap_or(0);
        assert_eq!(
            default_file_name(t, ExportFormat::JsonLines),
            "cantonscope-export-20261122T104107Z.jsonl"
        );
    }

    #[test]
    fn csv_fields_are_quoted_and_neutralised() {
        let cases = [
            ("plain", "plain"),
            ("a,b", "\"a,b\""),
            ("say \"hi\"", "\"say \"\"hi\"\"\""),
            ("two\nlines", "\"two\nlines\""),
            ("=1+2", "'=1+2"),
            ("+1", "'+1"),
            ("-1", "'-1"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "'\tx"),
            (
                "=HYPERLINK(\"http://x\",\"y\")",
                "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"",
            ),
            ("a\u{1b}[31mb", "a\u{FFFD}[31mb"),
            ("in-between=ok", "in-between=ok"),
        ];
        for (input, want) in cases {
            assert_eq!(csv_field(input), want, "{input:?}");
        }
    }

    #[test]
    fn paths_naming_folders_are_refused() {
        for folder in ["", "  ", "out/", "."] {
            assert!(check_path(folder).is_err(), "{folder:?}");
        }
        assert!(check_path("out/a.csv").is_ok());
    }
}
