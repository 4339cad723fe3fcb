//! `index show ID`: one kept update read from the index alone — its body as the scan served
//! it, each events part as the scans that agreed on it served it, and which scans confirmed
//! each — as JSON (each kept part's tokens as stored: `json_text::pretty` changes none).
//!
//! The id is whole, a unique prefix or as the screen shows it (`1220d17b…9f1e`): it is matched
//! among the index's updates and its events with a verdict and no update; several matches are
//! listed and none is an error (exit 2).

use serde::Serialize;
use serde_json::value::RawValue;

use super::{EXIT_USAGE, Location, Query, Write, open_reader, say, store_code};
use crate::model::format::parse_time_micros;
use crate::model::id_pattern::{IdPattern, matching};
use crate::model::index::SearchRow;
use crate::model::position::At;
use crate::store::{Chunk, IndexReader, KeptEvents, StoreError, VERDICT_ONLY_KIND};

/// Most candidates read from the index for one abbreviation.
const CANDIDATES: usize = 1000;
/// Most candidates listed when an abbreviation names several updates.
const LISTED: usize = 20;

/// An events part's state, as said in the JSON and the table.
pub(crate) const KEPT: &str = "kept";
/// The scans served the part as `null`.
pub(crate) const NONE_SERVED: &str = "none served";
/// The scans' items have no such part (an older scan).
pub(crate) const NOT_SERVED: &str = "not served";
/// The update's events are not in the index yet.
pub(crate) const NOT_SYNCED: &str = "not synced yet";

/// The JSON `index show` prints.
#[derive(Serialize)]
struct Shown {
    update_id: String,
    migration_id: i64,
    record_time: String,
    kind: String,
    root_action: String,
    update: UpdatePart,
    events: EventsPart,
}

#[derive(Serialize)]
struct UpdatePart {
    /// The scans that confirmed the range holding it (its chunk's).
    confirmed_by: Vec<String>,
    /// `--verify N` of the sync that kept it (1: unverified).
    verify: Option<i64>,
    /// The body as the scan served it (`null`: kept without bodies).
    as_served: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'static str>,
}

#[derive(Serialize)]
struct EventsPart {
    /// [`KEPT`] or [`NOT_SYNCED`].
    state: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    confirmed_by: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    digest: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<Part>,
    #[serde(skip_serializing_if = "Option::is_none")]
    traffic_summary: Option<Part>,
    #[serde(skip_serializing_if = "Option::is_none")]
    app_activity_records: Option<Part>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'static str>,
}

/// One events part.
#[derive(Serialize)]
struct Part {
    /// [`KEPT`], [`NONE_SERVED`] or [`NOT_SERVED`].
    state: &'static str,
    as_served: Option<Box<RawValue>>,
}

impl Part {
    fn of(served: bool, text: Option<String>) -> Result<Part, String> {
        Ok(match text {
            Some(text) => Part {
                state: KEPT,
                as_served: Some(raw(text)?),
            },
            None => Part {
                state: if served { NONE_SERVED } else { NOT_SERVED },
                as_served: None,
            },
        })
    }
}

fn raw(text: String) -> Result<Box<RawValue>, String> {
    RawValue::from_string(text).map_err(|e| format!("a kept part is not JSON: {e}"))
}

impl EventsPart {
    fn of(kept: Option<KeptEvents>) -> Result<EventsPart, String> {
        let Some(k) = kept else {
            return Ok(EventsPart {
                state: NOT_SYNCED,
                confirmed_by: Vec::new(),
                digest: None,
                verdict: None,
                traffic_summary: None,
                app_activity_records: None,
                note: Some(
                    "the update's events are not in the index yet: `index sync --events` keeps them",
                ),
            });
        };
        let verdict = Part::of(k.served & 1 != 0, k.verdict)?;
        let note = (verdict.state == KEPT).then_some(
            "verdict.finalization_time is left out: each scan's own time of finalization, not part of what the scans agree on",
        );
        Ok(EventsPart {
            state: KEPT,
            confirmed_by: k.scans,
            digest: Some(k.digest),
            verdict: Some(verdict),
            traffic_summary: Some(Part::of(k.served & 2 != 0, k.traffic_summary)?),
            app_activity_records: Some(Part::of(k.served & 4 != 0, k.app_activity_records)?),
            note,
        })
    }
}

/// The chunk whose walked range holds `at` (its start exclusive, its cursor inclusive).
fn chunk_of(chunks: &[Chunk], at: At) -> Option<&Chunk> {
    chunks.iter().find(|c| {
        c.start.as_ref().is_none_or(|s| s.order() < at)
            && c.cursor.as_ref().is_some_and(|end| at <= end.order())
    })
}

/// What an id names in the index: an update, or an event with a verdict and no update.
#[derive(Debug, PartialEq, Eq)]
enum Named {
    Update(String),
    VerdictOnly(String),
}

/// What `text` names in the index — among its updates and its events with a verdict and no
/// update alike — or why none (a usage error).
fn resolve(store: &mut dyn IndexReader, text: &str) -> Result<Named, String> {
    let pattern = IdPattern::parse(text)?;
    let query = Query::parse(&[pattern.search_term()])?;
    let rows = store
        .search(&query, None, None, CANDIDATES)
        .map_err(|e| e.to_string())?;
    let verdict_rows = store
        .search_verdict_events(&query, None, None, CANDIDATES)
        .map_err(|e| e.to_string())?;
    let updates = matching(&pattern, rows.iter().map(|r| r.update_id.as_str()));
    let verdict_only = matching(&pattern, verdict_rows.iter().map(|r| r.update_id.as_str()));
    let shown = crate::api::sanitize_line(text, 80);
    match (updates.as_slice(), verdict_only.as_slice()) {
        ([one], []) => Ok(Named::Update(one.clone())),
        ([], [one]) => Ok(Named::VerdictOnly(one.clone())),
        ([], []) => Err(format!("no update of the index matches {shown:?}")),
        _ => {
            let mut many: Vec<&SearchRow> = rows
                .iter()
                .filter(|r| updates.contains(&r.update_id))
                .chain(
                    verdict_rows
                        .iter()
                        .filter(|r| verdict_only.contains(&r.update_id)),
                )
                .collect();
            many.sort_unstable_by(|a, b| a.update_id.cmp(&b.update_id));
            many.dedup_by(|a, b| a.update_id == b.update_id);
            let found = updates.len() + verdict_only.len();
            let mut message = format!(
                "{shown:?} names {}{found} updates of the index; give more of the id:",
                if rows.len() >= CANDIDATES || verdict_rows.len() >= CANDIDATES {
                    "at least "
                } else {
                    ""
                },
            );
            for row in many.iter().take(LISTED) {
                let what = if row.kind == VERDICT_ONLY_KIND {
                    "  (verdict only)"
                } else {
                    ""
                };
                message.push_str(&format!("\n  {}  {}{what}", row.update_id, row.record_time));
            }
            if found > LISTED {
                message.push_str(&format!("\n  … and {} more", found - LISTED));
            }
            Err(message)
        }
    }
}

/// An event with a verdict and no update, by its whole id (a rejected request, a wholly
/// private transaction: no update was committed, so there is no body), at its verdict's place.
fn verdict_only(store: &mut dyn IndexReader, id: &str) -> Result<Option<Shown>, StoreError> {
    let Some(kept) = store.kept_events(id)? else {
        return Ok(None);
    };
    let verdict: serde_json::Value = kept
        .verdict
        .as_deref()
        .and_then(|v| serde_json::from_str(v).ok())
        .unwrap_or_default();
    let path = store.shown();
    let events = EventsPart::of(Some(kept.clone()))
        .map_err(|detail| StoreError::Corrupt { path, detail })?;
    Ok(Some(Shown {
        update_id: kept.update_id,
        migration_id: verdict["migration_id"].as_i64().unwrap_or_default(),
        record_time: verdict["record_time"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        kind: VERDICT_ONLY_KIND.to_owned(),
        root_action: kept.verdict_result.unwrap_or_default(),
        update: UpdatePart {
            confirmed_by: kept.scans,
            verify: None,
            as_served: None,
            note: Some(
                "an event with a verdict and no update: nothing was committed (a rejected request, or a transaction none of the scan's parties sees)",
            ),
        },
        events,
    }))
}

/// Reads what `index show` prints (`Err(Ok(message))`: a usage error).
fn read(store: &mut dyn IndexReader, text: &str) -> Result<Result<Shown, String>, StoreError> {
    let id = match resolve(store, text) {
        Ok(Named::Update(id)) => id,
        Ok(Named::VerdictOnly(id)) => {
            return Ok(verdict_only(store, &id)?
                .ok_or_else(|| format!("no update of the index matches {id:?}")));
        }
        Err(message) => return Ok(Err(message)),
    };
    let path = store.shown();
    let corrupt = |detail: String| StoreError::Corrupt {
        path: path.clone(),
        detail,
    };
    let query = Query::parse(&[format!("id:{id}")]).map_err(corrupt)?;
    let Some(row) = store
        .search(&query, None, None, 2)?
        .into_iter()
        .find(|r| r.update_id == id)
    else {
        return Ok(Err(format!("no update of the index matches {id:?}")));
    };
    let at = At::new(
        row.migration_id,
        parse_time_micros(&row.record_time).unwrap_or(i64::MIN),
    );
    let chunks = store.chunks()?;
    let chunk = chunk_of(&chunks, at);
    let body = store.body(&id)?.map(raw).transpose().map_err(corrupt)?;
    let note = body
        .is_none()
        .then_some("kept without its body (`index sync --no-bodies`)");
    let events = EventsPart::of(store.kept_events(&id)?).map_err(corrupt)?;
    Ok(Ok(Shown {
        update_id: row.update_id,
        migration_id: row.migration_id,
        record_time: row.record_time,
        kind: row.kind,
        root_action: row.root_action,
        update: UpdatePart {
            confirmed_by: chunk.map(|c| c.scans.clone()).unwrap_or_default(),
            verify: chunk.map(|c| c.verify),
            as_served: body,
            note,
        },
        events,
    }))
}

pub(super) async fn show(
    location: Location,
    text: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let store = match open_reader(location, err).await {
        Ok(store) => store,
        Err(e) => {
            say(err, &e.to_string());
            return store_code(&e);
        }
    };
    let text = text.to_owned();
    let shown = match store.call(move |s| read(s, &text)).await {
        Ok(Ok(shown)) => shown,
        Ok(Err(message)) => {
            say(err, &message);
            return EXIT_USAGE;
        }
        Err(e) => {
            say(err, &e.to_string());
            return store_code(&e);
        }
    };
    let written = serde_json::to_vec(&shown)
        .map_err(|e| e.to_string())
        .and_then(|bytes| {
            let pretty =
                crate::model::json_text::pretty_bytes(&bytes).map_err(|e| e.to_string())?;
            super::write_text(out, &pretty)
        });
    super::written(written, err)
}

/// `index show --output table`: the same document for reading — who confirmed what above each
/// part, the parts re-indented (every server string escaped as the JSON output escapes it).
pub const SHOW_VIEW: crate::headless::table::View = crate::headless::table::View {
    summary: &[],
    rows: None,
    columns: &[],
    custom: Some(readable),
};

fn readable(doc: &serde_json::Value) -> String {
    use crate::api::json::sanitize_line;
    use serde_json::Value;
    let line = |pointer: &str| {
        let text = match doc.pointer(pointer) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(v) => v.to_string(),
        };
        sanitize_line(&text, 200)
    };
    let scans = |pointer: &str| {
        let names: Vec<String> = doc
            .pointer(pointer)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(|s| sanitize_line(s, 80))
                    .collect()
            })
            .unwrap_or_default();
        if names.is_empty() {
            "no scan recorded".to_owned()
        } else {
            names.join(", ")
        }
    };
    let json = |value: &Value| {
        crate::model::json_text::pretty(&value.to_string()).unwrap_or_else(|e| e.to_string())
    };
    let mut out = String::new();
    out.push_str(&format!("update     {}\n", line("/update_id")));
    out.push_str(&format!(
        "recorded   {} (migration {})\n",
        line("/record_time"),
        line("/migration_id")
    ));
    out.push_str(&format!(
        "kind       {} {}\n",
        line("/kind"),
        line("/root_action")
    ));
    let verify = match doc.pointer("/update/verify").and_then(Value::as_i64) {
        Some(1) => " (unverified: --verify 1)".to_owned(),
        Some(n) => format!(" (--verify {n})"),
        None => String::new(),
    };
    out.push_str(&format!(
        "\nthe update, confirmed by {}{verify}:\n",
        scans("/update/confirmed_by")
    ));
    match doc.pointer("/update/as_served") {
        Some(body) if !body.is_null() => out.push_str(&json(body)),
        _ => out.push_str(&line("/update/note")),
    }
    out.push('\n');
    let state = line("/events/state");
    if state == KEPT {
        out.push_str(&format!(
            "\nits events, confirmed by {}:\n",
            scans("/events/confirmed_by")
        ));
        for (key, name) in [
            ("verdict", "verdict"),
            ("traffic_summary", "traffic summary"),
            ("app_activity_records", "app activity records"),
        ] {
            let part = &doc["events"][key];
            match part["state"].as_str() {
                Some(KEPT) => {
                    out.push_str(&format!("{name}, as served:\n"));
                    out.push_str(&json(&part["as_served"]));
                    out.push('\n');
                }
                Some(NOT_SERVED) => {
                    out.push_str(&format!(
                        "{name}: not served (no such part in the scans' answers)\n"
                    ));
                }
                _ => out.push_str(&format!("{name}: none served\n")),
            }
        }
        let note = line("/events/note");
        if !note.is_empty() {
            out.push_str(&format!("({note})\n"));
        }
    } else {
        out.push_str(&format!(
            "\nits events: {state} ({})\n",
            line("/events/note")
        ));
    }
    out
}
