//! `index status` as a table: a summary that fits a screen however big the index is.

use serde_json::Value;
use unicode_width::UnicodeWidthStr;

use super::{INDEX_VERIFY, MAX_CELL, MAX_SUMMARY, cell, grid, sanitize_line};

/// Rows of each list `index status` shows as a table at most (the newest; the JSON has all).
const STATUS_ROWS: usize = 5;

/// `index status` as a person reads it: the index in a few `label  value` lines, the newest
/// migrations, chunks and verifications (at most [`STATUS_ROWS`] each), the divergences as
/// their count, first, last and scans (`all`: then one row each). Under 60 lines without
/// `all`, whatever the index holds.
pub(super) fn index_status(doc: &Value, all: bool) -> String {
    use crate::model::format::{group_thousands, human_bytes};
    let doc = &with_events_cells(doc);
    let text = |pointer: &str| doc.pointer(pointer).map(cell).unwrap_or_default();
    let count = |pointer: &str| doc.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
    let list = |pointer: &str| {
        doc.pointer(pointer)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let mut lines: Vec<(&str, String)> = vec![
        ("location", text("/location")),
        (
            "schema",
            format!(
                "{} (summaries {})",
                text("/schema_version"),
                text("/summary_version")
            ),
        ),
        ("network", text("/network/dso_party")),
        ("synchronizer", text("/network/synchronizer")),
        (
            "updates",
            format!(
                "{} ({} with bodies)",
                group_thousands(count("/updates")),
                group_thousands(count("/bodies"))
            ),
        ),
        (
            "events",
            doc.pointer("/events").map_or_else(String::new, |_| {
                let (events, updates) = (count("/events"), count("/updates"));
                format!(
                    "{} % ({} updates with their verdicts, traffic and app activity)",
                    events * 100 / updates.max(1),
                    group_thousands(events)
                )
            }),
        ),
        (
            "verdict only",
            doc.pointer("/verdict_events").map_or_else(String::new, |_| {
                format!(
                    "{} (events with a verdict and no update: rejected requests, wholly private transactions)",
                    group_thousands(count("/verdict_events"))
                )
            }),
        ),
        (
            "size",
            human_bytes(i64::try_from(count("/size_bytes")).unwrap_or(i64::MAX)),
        ),
    ];
    // A new index has no network yet.
    lines.retain(|(_, value)| !value.is_empty());
    if let Some(last) = doc.pointer("/last_sync").filter(|v| !v.is_null()) {
        let at = |key: &str| last.get(key).map(cell).unwrap_or_default();
        lines.push((
            "last sync",
            format!(
                "{}, {} to {}",
                at("outcome"),
                at("started_at"),
                at("ended_at")
            ),
        ));
    }
    lines.push((
        "sync running",
        match doc.pointer("/sync_running").filter(|v| !v.is_null()) {
            Some(beat) => {
                let at = |key: &str| beat.get(key).map(cell).unwrap_or_default();
                format!(
                    "pid {} on {} since {}, last beat {}",
                    at("pid"),
                    at("host"),
                    at("started_at"),
                    at("beat_at")
                )
            }
            None => "no".to_owned(),
        },
    ));
    let gaps = list("/gaps");
    lines.push((
        "gaps",
        match gaps.first() {
            None => "none".to_owned(),
            Some(gap) => format!(
                "{} (the first after {}, before {})",
                gaps.len(),
                gap.pointer("/after/record_time")
                    .map(cell)
                    .unwrap_or_default(),
                gap.pointer("/before/record_time")
                    .map(cell)
                    .unwrap_or_default()
            ),
        },
    ));
    let divergences = list("/divergences");
    lines.extend(divergence_lines(&divergences, all));
    let width = lines.iter().map(|(l, _)| l.width()).max().unwrap_or(0);
    let mut out = String::new();
    for (label, value) in &lines {
        out.push_str(&format!("{label:width$}  {value}\n"));
    }
    // The newest rows of each list, and how many are left out.
    let mut newest = |title: &str, pointer: &str, columns: &[(&str, &str)]| {
        let rows = list(pointer);
        let shown = &rows[rows.len().saturating_sub(STATUS_ROWS)..];
        out.push_str(&format!("\n{title} ({})\n", rows.len()));
        out.push_str(&grid(columns, shown));
        if rows.len() > shown.len() {
            out.push_str(&format!(
                "… {} older: --output json has them all\n",
                rows.len() - shown.len()
            ));
        }
    };
    newest(
        "migrations",
        "/migrations",
        &[
            ("MIGRATION", "/migration_id"),
            ("UPDATES", "/updates"),
            ("EVENTS", "/events_cell"),
            ("FIRST RECORD TIME", "/first_record_time"),
            ("LAST RECORD TIME", "/last_record_time"),
        ],
    );
    newest(
        "chunks",
        "/chunks",
        &[
            ("ID", "/id"),
            ("AFTER", "/start/record_time"),
            ("BEFORE", "/end_before"),
            ("REACHED", "/cursor/record_time"),
            ("STATE", "/state"),
            ("VERIFY", "/verify"),
            ("UPDATES", "/updates"),
            ("EVENTS", "/events_cell"),
            ("SCANS", "/scans"),
        ],
    );
    newest(
        "verifications",
        "/verifications",
        // A verification record is the range of `index verify`'s report, when and how.
        &[("VERIFIED AT", "/verified_at"), ("VERIFY", "/verify")]
            .into_iter()
            .chain(INDEX_VERIFY.columns.iter().copied())
            .collect::<Vec<_>>(),
    );
    if all {
        out.push_str(&format!("\ndivergences ({})\n", divergences.len()));
        out.push_str(&grid(
            &[
                ("RECORD TIME", "/record_time"),
                ("MIG", "/migration_id"),
                ("UPDATE", "/update_id"),
                ("RESOLVED", "/resolved"),
                ("ODD SCANS", "/detail/odd_scans"),
                ("KEPT BY", "/detail/kept_by"),
                ("FOUND AT", "/found_at"),
            ],
            &divergences,
        ));
    }
    out
}

/// `doc` with an `events_cell` (`62 %`: the share of its updates with their events kept) in
/// each migration and chunk that carries its events coverage (`events.percent`; none for a
/// range without updates).
fn with_events_cells(doc: &Value) -> Value {
    let mut doc = doc.clone();
    for list in ["migrations", "chunks"] {
        let Some(rows) = doc.get_mut(list).and_then(Value::as_array_mut) else {
            continue;
        };
        for row in rows {
            let Some(percent) = row.pointer("/events/percent").and_then(Value::as_i64) else {
                continue;
            };
            if let Some(row) = row.as_object_mut() {
                row.insert(
                    "events_cell".to_owned(),
                    Value::from(format!("{percent} %")),
                );
            }
        }
    }
    doc
}

/// The divergences in four lines: how many (resolved: a version kept; unresolved: a sync
/// stops there), the first and the last by record time, the scans on the other side and on
/// how many updates.
fn divergence_lines(divergences: &[Value], all: bool) -> Vec<(&'static str, String)> {
    use crate::model::format::parse_time_micros;
    let unresolved = divergences
        .iter()
        .filter(|d| d["resolved"] == Value::Bool(false))
        .count();
    let mut lines = vec![(
        "divergences",
        if divergences.is_empty() {
            "none".to_owned()
        } else {
            format!(
                "{}: {} resolved (f + 1 scans kept a version), {unresolved} unresolved (a sync stops there){}",
                divergences.len(),
                divergences.len() - unresolved,
                if all { "" } else { "; each: --divergences" }
            )
        },
    )];
    let at = |d: &&Value| {
        d["record_time"]
            .as_str()
            .and_then(parse_time_micros)
            .unwrap_or(i64::MIN)
    };
    let named = |d: &Value| {
        format!(
            "{} update {} (migration {})",
            cell(&d["record_time"]),
            cell(&d["update_id"]),
            cell(&d["migration_id"])
        )
    };
    if let (Some(first), Some(last)) = (
        divergences.iter().min_by_key(at),
        divergences.iter().max_by_key(at),
    ) {
        lines.push(("first", named(first)));
        lines.push(("last", named(last)));
    }
    // The scans on the other side: the odd scans of a resolved one, the scans outside the
    // largest version of an unresolved one.
    let mut sides: Vec<(String, usize)> = Vec::new();
    for d in divergences {
        let mut names: Vec<&str> = d["detail"]["odd_scans"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(versions) = d["detail"]["versions"].as_array() {
            names.extend(
                versions
                    .iter()
                    .skip(1)
                    .filter_map(|v| v["scans"].as_array())
                    .flatten()
                    .filter_map(Value::as_str),
            );
        }
        for name in names {
            match sides.iter_mut().find(|(n, _)| n == name) {
                Some((_, n)) => *n += 1,
                None => sides.push((name.to_owned(), 1)),
            }
        }
    }
    if !sides.is_empty() {
        sides.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let named: Vec<String> = sides
            .iter()
            .map(|(name, n)| format!("{} ({n} updates)", sanitize_line(name, MAX_CELL)))
            .collect();
        lines.push((
            "diverging scans",
            sanitize_line(&named.join(", "), MAX_SUMMARY),
        ));
    }
    lines
}
