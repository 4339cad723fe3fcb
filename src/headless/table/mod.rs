//! `--output table`: the JSON a headless command prints, read as a table for a person at a
//! terminal (the way `gh` and `kubectl` do), while scripts keep the JSON (`--output json`, the
//! default when stdout is not a terminal).
//!
//! Each command that reads well as a table names its [`View`]: the summary fields above the
//! table, where its rows are (an array of the JSON, or each line of JSON Lines) and its columns
//! (a header and a JSON pointer into a row). The JSON stays the one output the commands build;
//! the table is derived from it, so both always say the same. Every value is server text and is
//! sanitised (control characters and invisible characters become spaces) and cut to
//! [`MAX_CELL`] characters.

use serde_json::Value;
use unicode_width::UnicodeWidthStr;

use crate::api::json::sanitize_line;
use crate::cli::{Command, GovernanceCommand, IndexCommand, NetworkCommand, ScanCommand};

mod status;
mod views;

pub use views::*;

/// Characters of a cell at most (ids are cut with `…`; `--output json` has them whole).
pub const MAX_CELL: usize = 48;
/// Characters of a summary value at most (it has the line to itself).
pub const MAX_SUMMARY: usize = 200;

/// How a command's JSON reads as a table.
#[derive(Debug, Clone, Copy)]
pub struct View {
    /// `label: value` lines above the table (JSON pointers into the document).
    pub summary: &'static [(&'static str, &'static str)],
    /// The pointer to the array of rows; `None`: every line of JSON Lines is a row.
    pub rows: Option<&'static str>,
    /// `(header, pointer into a row)`.
    pub columns: &'static [(&'static str, &'static str)],
    /// A document read its own way instead (`index status`: a summary that fits a screen).
    pub custom: Option<fn(&Value) -> String>,
}

/// The table form of `command`'s output, when it has one (the others print JSON either way).
pub fn view_for(command: &Command) -> Option<View> {
    Some(match command {
        Command::Network(args) => match &args.command {
            NetworkCommand::Scans => NETWORK_SCANS,
            NetworkCommand::Health { .. } => NETWORK_HEALTH,
            NetworkCommand::CheckUpdate { .. } => NETWORK_CHECK,
            NetworkCommand::Sweep { .. } => NETWORK_SWEEP,
        },
        Command::Scan(scan) => match scan {
            ScanCommand::Status => KEY_VALUE,
            ScanCommand::Holdings { .. } => HOLDINGS,
            ScanCommand::ValidatorFaucets { .. } => FAUCETS,
            ScanCommand::ValidatorLicenses { .. } => LICENSES,
            ScanCommand::RewardRound { .. } => REWARD_ROUND,
            _ => return None,
        },
        Command::Governance(governance) => match governance {
            GovernanceCommand::Requests | GovernanceCommand::NeedsVote { .. } => {
                GOVERNANCE_REQUESTS
            }
            GovernanceCommand::Results { .. } => GOVERNANCE_RESULTS,
            GovernanceCommand::Weights => GOVERNANCE_WEIGHTS,
        },
        Command::Index(args) => match &args.command {
            IndexCommand::Status { divergences: false } => INDEX_STATUS,
            IndexCommand::Status { divergences: true } => INDEX_STATUS_DIVERGENCES,
            IndexCommand::Search { count: false, .. } => INDEX_SEARCH,
            IndexCommand::Verify { .. } => INDEX_VERIFY,
            IndexCommand::Show { .. } => super::index::SHOW_VIEW,
            IndexCommand::Stats { .. } => INDEX_STATS,
            IndexCommand::Rounds { .. } => INDEX_ROUNDS,
            IndexCommand::Validators { .. } => super::index::INDEX_VALIDATORS,
            _ => return None,
        },
        Command::Node(_) => NODE_ALERTS,
        _ => return None,
    })
}

/// The view of `command` for `--output csv` (`index stats` only).
pub fn csv_for(command: &Command) -> Option<View> {
    match command {
        Command::Index(args) if matches!(args.command, IndexCommand::Stats { .. }) => {
            Some(INDEX_STATS_CSV)
        }
        _ => None,
    }
}

/// [`render`] of the document `text` with `extra` top-level fields after its own: what the
/// table shows beside the command's JSON (`scan status`: the verdict ingestion lag, which the
/// scan's `/status` does not have). A field the document has keeps its value.
pub fn render_with(
    view: &View,
    text: &str,
    extra: serde_json::Map<String, Value>,
) -> Option<String> {
    if extra.is_empty() {
        return render(view, text);
    }
    let mut doc: Value = serde_json::from_str(text).ok()?;
    let map = doc.as_object_mut()?;
    for (key, value) in extra {
        map.entry(key).or_insert(value);
    }
    render(view, &doc.to_string())
}

/// `text` (one JSON document, or JSON Lines when the view says so) as a table; `None` when it
/// is not JSON of that shape (the caller prints it as it is).
pub fn render(view: &View, text: &str) -> Option<String> {
    if let Some(custom) = view.custom {
        let doc: Value = serde_json::from_str(text).ok()?;
        return Some(custom(&doc));
    }
    let mut out = String::new();
    let (rows, doc): (Vec<Value>, Option<Value>) = match view.rows {
        Some(pointer) => {
            let doc: Value = serde_json::from_str(text).ok()?;
            let rows = doc.pointer(pointer)?.as_array()?.clone();
            (rows, Some(doc))
        }
        None if view.columns.is_empty() => {
            let doc: Value = serde_json::from_str(text).ok()?;
            let mut leaves = Vec::new();
            flatten("", &doc, &mut leaves);
            let width = leaves.iter().map(|(k, _)| k.width()).max().unwrap_or(0);
            for (key, value) in leaves {
                out.push_str(&format!("{key:width$}  {value}\n"));
            }
            return Some(out);
        }
        None => {
            let rows = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(serde_json::from_str)
                .collect::<Result<Vec<Value>, _>>()
                .ok()?;
            (rows, None)
        }
    };
    if let Some(doc) = &doc {
        let width = view
            .summary
            .iter()
            .map(|(l, _)| l.width())
            .max()
            .unwrap_or(0);
        for (label, pointer) in view.summary {
            if let Some(value) = doc.pointer(pointer).filter(|v| !v.is_null()) {
                out.push_str(&format!(
                    "{label:width$}  {}\n",
                    cell_of(value, MAX_SUMMARY)
                ));
            }
        }
        if !view.summary.is_empty() {
            out.push('\n');
        }
    }
    out.push_str(&grid(view.columns, &rows));
    Some(out)
}

/// `text` (one JSON document with the view's rows) as CSV: a header, then a row per row of
/// the view, every value whole (server text sanitised; one that a spreadsheet would take for a
/// formula quoted with a leading `'`); `None` when it is not JSON of that shape.
pub fn render_csv(view: &View, text: &str) -> Option<String> {
    let doc: Value = serde_json::from_str(text).ok()?;
    let rows = doc.pointer(view.rows?)?.as_array()?;
    let field = |text: &str| {
        let text = match text.chars().next() {
            Some('=' | '+' | '-' | '@') if text.parse::<f64>().is_err() => format!("'{text}"),
            _ => text.to_owned(),
        };
        if text.contains([',', '"', '\n']) {
            format!("\"{}\"", text.replace('"', "\"\""))
        } else {
            text
        }
    };
    let mut out = view
        .columns
        .iter()
        .map(|(h, _)| field(&h.to_ascii_lowercase()))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for row in rows {
        let cells: Vec<String> = view
            .columns
            .iter()
            .map(|(_, p)| {
                field(
                    &row.pointer(p)
                        .map(|v| cell_of(v, 1 << 16))
                        .unwrap_or_default(),
                )
            })
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    Some(out)
}

/// `rows` as a table of `columns` (a header, then one line a row; `(none)` for no row).
fn grid(columns: &[(&str, &str)], rows: &[Value]) -> String {
    // A column no row fills (a field this server does not send) is left out.
    let kept: Vec<(&str, &str)> = columns
        .iter()
        .copied()
        .filter(|(_, pointer)| {
            rows.is_empty()
                || rows
                    .iter()
                    .any(|r| r.pointer(pointer).is_some_and(|v| !cell(v).is_empty()))
        })
        .collect();
    let columns = kept.as_slice();
    let mut out = String::new();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            columns
                .iter()
                .map(|(_, pointer)| row.pointer(pointer).map(cell).unwrap_or_default())
                .map(|text| grouped_decimal(&text).unwrap_or(text))
                .collect()
        })
        .collect();
    // Numbers (and amounts, which Daml sends as decimal text) align right; the rest left.
    let numeric: Vec<bool> = (0..columns.len())
        .map(|c| {
            rows.iter()
                .any(|r| r.pointer(columns[c].1).is_some_and(is_number))
                && rows.iter().all(|r| {
                    r.pointer(columns[c].1)
                        .is_none_or(|v| is_number(v) || v.is_null())
                })
        })
        .collect();
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(c, (header, _))| {
            cells
                .iter()
                .map(|r| r[c].width())
                .chain(std::iter::once(header.width()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |values: Vec<&str>| -> String {
        let mut text = values
            .iter()
            .enumerate()
            .map(|(c, v)| {
                let pad = " ".repeat(widths[c].saturating_sub(v.width()));
                if numeric[c] {
                    format!("{pad}{v}")
                } else {
                    format!("{v}{pad}")
                }
            })
            .collect::<Vec<_>>()
            .join("  ");
        text.truncate(text.trim_end().len());
        text.push('\n');
        text
    };
    out.push_str(&line(columns.iter().map(|(h, _)| *h).collect()));
    for row in &cells {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    if rows.is_empty() {
        out.push_str("(none)\n");
    }
    out
}

/// A decimal amount as Daml sends it (`1234567.5000000000`) with its thousands grouped
/// (`1,234,567.5000000000`); `None` for any other text.
fn grouped_decimal(text: &str) -> Option<String> {
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text),
    };
    let (int, frac) = digits.split_once('.')?;
    if int.is_empty()
        || frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    Some(format!(
        "{sign}{}.{frac}",
        crate::model::format::group_digits(int)
    ))
}

/// A number, or text that is one (`15178.9131348131`, `-2`).
fn is_number(value: &Value) -> bool {
    match value {
        Value::Number(_) => true,
        Value::String(s) => {
            let digits = s.strip_prefix('-').unwrap_or(s);
            let (int, frac) = digits.split_once('.').unwrap_or((digits, "0"));
            !int.is_empty()
                && !frac.is_empty()
                && int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        }
        _ => false,
    }
}

/// One value as a cell: text as sent (sanitised, cut), numbers and booleans as written (`yes`
/// for true, nothing for false), a list joined with `, `, nothing for null.
fn cell(value: &Value) -> String {
    cell_of(value, MAX_CELL)
}

/// [`cell`], cut to `max` characters.
fn cell_of(value: &Value, max: usize) -> String {
    let text = match value {
        Value::Null | Value::Bool(false) => String::new(),
        Value::Bool(true) => "yes".to_owned(),
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Array(items) => items
            .iter()
            .map(|v| cell_of(v, max))
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(", "),
        Value::Object(_) => value.to_string(),
    };
    sanitize_line(&text, max)
}

/// Every leaf of `value` with its path (`success.uptime`).
fn flatten(path: &str, value: &Value, out: &mut Vec<(String, String)>) {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, v) in map {
                flatten(&join(&sanitize_line(key, MAX_CELL)), v, out);
            }
        }
        Value::Array(items) if items.iter().any(|v| v.is_object() || v.is_array()) => {
            for (i, v) in items.iter().enumerate() {
                flatten(&join(&i.to_string()), v, out);
            }
        }
        _ => out.push((path.to_owned(), cell(value))),
    }
}

#[cfg(test)]
mod tests;
