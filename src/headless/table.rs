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
}

/// A document without a list of rows (`scan status`): every leaf as `path  value`.
pub const KEY_VALUE: View = View {
    summary: &[],
    rows: None,
    columns: &[],
};

/// `network scans`.
pub const NETWORK_SCANS: View = View {
    summary: &[
        ("synchronizer", "/domain_id"),
        ("scans", "/n"),
        ("f", "/f"),
        ("quorum", "/quorum"),
        ("list", "/source"),
    ],
    rows: Some("/scans"),
    columns: &[
        ("SCAN", "/sv_name"),
        ("URL", "/url"),
        ("OWN", "/own"),
        ("COUNTED", "/counted"),
        ("LISTED", "/listed"),
        ("PINNED", "/pinned"),
    ],
};

/// `network health`.
pub const NETWORK_HEALTH: View = View {
    summary: &[
        ("verdict", "/verdict"),
        ("outcome", "/outcome"),
        ("newest head", "/newest_head"),
        ("checked at", "/checked_at"),
    ],
    rows: Some("/scans"),
    columns: &[
        ("SCAN", "/sv_name"),
        ("HOST", "/host"),
        ("STATE", "/state"),
        ("LAGGING", "/lagging"),
        ("STATUS", "/status"),
        ("VERSION", "/version"),
        ("MS", "/latency_ms"),
        ("MIGR", "/migration_id"),
        ("HEAD", "/head_record_time"),
        ("LAG S", "/lag_behind_newest_s"),
        ("ROUND", "/newest_open_round/number"),
        ("REASONS", "/reasons"),
    ],
};

/// `network check-update`.
pub const NETWORK_CHECK: View = View {
    summary: &[
        ("update", "/update_id"),
        ("outcome", "/outcome"),
        ("consensus", "/consensus"),
        ("own scan", "/own_scan"),
        ("record time", "/record_time"),
    ],
    rows: Some("/scans"),
    columns: &[
        ("SCAN", "/sv_name"),
        ("CLASS", "/class"),
        ("STATUS", "/status"),
        ("MS", "/latency_ms"),
        ("DETAIL", "/detail"),
        ("DIFFERS AT", "/differences/0/path"),
    ],
};

/// `network sweep`: a row per range of differing updates.
pub const NETWORK_SWEEP: View = View {
    summary: &[
        ("outcome", "/outcome"),
        ("end", "/end"),
        ("differing updates", "/differing_updates"),
        ("truncated", "/truncated"),
        ("pages", "/pages"),
        ("updates", "/updates"),
        ("from", "/from"),
        ("cursor", "/cursor/record_time"),
        ("no quorum on page", "/no_quorum/page"),
    ],
    rows: Some("/ranges"),
    columns: &[
        ("COUNT", "/count"),
        ("FIRST RECORD TIME", "/first_record_time"),
        ("LAST RECORD TIME", "/last_record_time"),
        ("DIFFERING SCANS", "/sides/1/scans"),
        ("AGAINST", "/sides/0/count"),
        ("EXAMPLE PATH", "/example_path"),
        ("FIRST UPDATE", "/first_update_id"),
        ("LAST UPDATE", "/last_update_id"),
    ],
};

/// `scan holdings`.
pub const HOLDINGS: View = View {
    summary: &[
        ("record time", "/record_time"),
        ("migration", "/migration_id"),
        ("as of round", "/computed_as_of_round"),
    ],
    rows: Some("/summaries"),
    columns: &[
        ("PARTY", "/party_id"),
        ("UNLOCKED", "/total_unlocked_coin"),
        ("LOCKED", "/total_locked_coin"),
        ("HOLDINGS", "/total_coin_holdings"),
        ("FEES", "/accumulated_holding_fees_total"),
    ],
};

/// `scan validator-faucets`.
pub const FAUCETS: View = View {
    summary: &[],
    rows: Some("/validatorsReceivedFaucets"),
    columns: &[
        ("VALIDATOR", "/validator"),
        ("COLLECTED", "/numRoundsCollected"),
        ("MISSED", "/numRoundsMissed"),
        ("FIRST", "/firstCollectedInRound"),
        ("LAST", "/lastCollectedInRound"),
    ],
};

/// `governance requests` and `governance needs-vote`.
pub const GOVERNANCE_REQUESTS: View = View {
    summary: &[
        ("my SV", "/my_sv/described"),
        ("needs my vote", "/needs_vote"),
    ],
    rows: Some("/requests"),
    columns: &[
        ("VOTE BEFORE", "/vote_before"),
        ("MY VOTE", "/my_vote"),
        ("REQUESTER", "/requester"),
        ("VOTES", "/votes_words"),
        ("ACTION", "/action"),
    ],
};

/// `governance results` (JSON Lines).
pub const GOVERNANCE_RESULTS: View = View {
    summary: &[],
    rows: None,
    columns: &[
        ("COMPLETED", "/completed_at"),
        ("OUTCOME", "/outcome"),
        ("REQUESTER", "/requester"),
        ("ACCEPT", "/accept"),
        ("REJECT", "/reject"),
        ("ACTION", "/action"),
    ],
};

/// `governance weights`.
pub const GOVERNANCE_WEIGHTS: View = View {
    summary: &[("my SV", "/my_sv/described"), ("note", "/note")],
    rows: Some("/svs"),
    columns: &[
        ("SV", "/name"),
        ("MINE", "/my_sv"),
        ("WEIGHT", "/reward_weight"),
        ("KNOWN SINCE", "/known_since"),
        ("CHECKED", "/history_agrees"),
    ],
};

/// `index search` (JSON Lines).
pub const INDEX_SEARCH: View = View {
    summary: &[],
    rows: None,
    columns: &[
        ("RECORD TIME", "/record_time"),
        ("MIG", "/migration_id"),
        ("KIND", "/kind"),
        ("UPDATE", "/update_id"),
        ("ACTION", "/root_action"),
        ("PARTIES", "/parties"),
    ],
};

/// `index verify`'s report.
pub const INDEX_VERIFY: View = View {
    summary: &[
        ("outcome", "/outcome"),
        ("exit code", "/exit_code"),
        ("pages", "/pages"),
        ("updates checked", "/updates_checked"),
        ("mismatches", "/mismatches"),
        ("missing", "/missing"),
        ("extra", "/extra"),
        ("odd scans", "/odd_scans"),
    ],
    rows: Some("/ranges"),
    columns: &[
        ("AFTER", "/after"),
        ("THROUGH", "/through"),
        ("UPDATES", "/updates_checked"),
        ("SCANS", "/scans"),
        ("MISMATCHES", "/mismatches"),
        ("MISSING", "/missing"),
        ("EXTRA", "/extra"),
        ("COMPLETE", "/complete"),
    ],
};

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
            IndexCommand::Status => KEY_VALUE,
            IndexCommand::Search { count: false, .. } => INDEX_SEARCH,
            IndexCommand::Verify { .. } => INDEX_VERIFY,
            _ => return None,
        },
        Command::Node(_) => NODE_ALERTS,
        _ => return None,
    })
}

/// `node alerts`.
pub const NODE_ALERTS: View = View {
    summary: &[
        ("at", "/at"),
        ("source", "/source"),
        ("firing", "/firing"),
        ("worst", "/worst"),
    ],
    rows: Some("/rules"),
    columns: &[
        ("SIGNAL", "/title"),
        ("SUBJECT", "/subject"),
        ("STATE", "/state"),
        ("SEVERITY", "/severity"),
        ("VALUE", "/value"),
        ("THRESHOLD", "/threshold"),
        ("SINCE", "/since"),
        ("DEFAULT FROM", "/source"),
    ],
};

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
    // A column no row fills (a field this server does not send) is left out.
    let kept: Vec<(&str, &str)> = view
        .columns
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
    Some(out)
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
mod tests {
    use super::*;

    #[test]
    fn rows_align_numbers_right_and_neutralise_server_text() {
        let doc = r#"{"validatorsReceivedFaucets":[
            {"validator":"harbor-validator-1::1220ab","numRoundsCollected":120,"numRoundsMissed":3,"firstCollectedInRound":10,"lastCollectedInRound":130},
            {"validator":"evil\u001b[2J","numRoundsCollected":7,"numRoundsMissed":0,"firstCollectedInRound":1,"lastCollectedInRound":null}
        ]}"#;
        let table = render(&FAUCETS, doc).expect("a table");
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(
            lines[0],
            "VALIDATOR                   COLLECTED  MISSED  FIRST  LAST"
        );
        assert_eq!(
            lines[1],
            "harbor-validator-1::1220ab        120       3     10   130"
        );
        assert_eq!(
            lines[2],
            "evil [2J                            7       0      1"
        );
        assert!(!table.contains('\u{1b}'));
    }

    #[test]
    fn an_empty_list_says_none_and_other_json_is_not_a_table() {
        let table = render(&FAUCETS, r#"{"validatorsReceivedFaucets":[]}"#).expect("a table");
        assert!(table.ends_with("(none)\n"), "{table}");
        assert_eq!(render(&FAUCETS, r#"{"other":1}"#), None);
        assert_eq!(render(&FAUCETS, "not json"), None);
    }

    #[test]
    fn json_lines_are_rows_and_a_document_without_rows_is_key_value() {
        let lines = "{\"completed_at\":\"t1\",\"outcome\":\"accepted\",\"accept\":4}\n\
                     {\"completed_at\":\"t2\",\"outcome\":\"expired\",\"accept\":1}\n";
        let table = render(&GOVERNANCE_RESULTS, lines).expect("a table");
        assert!(
            table
                .lines()
                .nth(2)
                .is_some_and(|l| l.starts_with("t2         expired")),
            "{table}"
        );
        let status = render(
            &KEY_VALUE,
            r#"{"success":{"id":"scan-app","uptime":"PT5S","ports":{"admin":5012},"active":true}}"#,
        )
        .expect("key value");
        assert!(status.contains("success.ports.admin  5012"), "{status}");
        assert!(status.contains("success.active       yes"), "{status}");
    }

    #[test]
    fn amounts_group_their_thousands_and_a_column_no_row_fills_is_left_out() {
        let json = r#"{"record_time":"2026-12-01T00:00:00Z","migration_id":0,
            "summaries":[
              {"party_id":"alice::1220","total_unlocked_coin":"1234567.5000000000",
               "total_locked_coin":"0.0000000000","total_coin_holdings":"1234567.5000000000"},
              {"party_id":"bob::1220","total_unlocked_coin":"-1000.25",
               "total_locked_coin":"12.0","total_coin_holdings":"987.75"}]}"#;
        let table = render(&HOLDINGS, json).expect("a table");
        assert!(!table.contains("FEES"), "{table}");
        assert!(table.contains("1,234,567.5000000000"), "{table}");
        assert!(table.contains("-1,000.25"), "{table}");
        let header = table
            .lines()
            .find(|l| l.starts_with("PARTY"))
            .expect("header");
        assert!(header.ends_with("HOLDINGS"), "{header}");
        // A value that is no decimal stays as sent.
        assert_eq!(grouped_decimal("1220abc.5"), None);
        assert_eq!(grouped_decimal("2026"), None);
    }
}
