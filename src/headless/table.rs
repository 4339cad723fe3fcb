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
    /// A document read its own way instead (`index status`: a summary that fits a screen).
    pub custom: Option<fn(&Value) -> String>,
}

/// A document without a list of rows (`scan status`): every leaf as `path  value`.
pub const KEY_VALUE: View = View {
    summary: &[],
    rows: None,
    columns: &[],
    custom: None,
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
    custom: None,
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
    custom: None,
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
    custom: None,
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
    custom: None,
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
    custom: None,
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
    custom: None,
};

/// `scan validator-licenses`.
pub const LICENSES: View = View {
    summary: &[("next page", "/next_page_token")],
    rows: Some("/validator_licenses"),
    columns: &[
        ("VALIDATOR", "/payload/validator"),
        ("SPONSOR", "/payload/sponsor"),
        ("CREATED", "/created_at"),
        ("CONTRACT", "/contract_id"),
    ],
    custom: None,
};

/// `scan reward-round`.
pub const REWARD_ROUND: View = View {
    summary: &[
        ("round", "/round"),
        ("earliest available", "/earliest_available_round"),
        ("activity totals", "/activity_totals/state"),
        (
            "activity weight",
            "/activity_totals/total_app_activity_weight",
        ),
        ("active parties", "/activity_totals/active_parties_count"),
        (
            "activity records",
            "/activity_totals/activity_records_count",
        ),
        (
            "minting allowance",
            "/activity_totals/total_app_reward_minting_allowance",
        ),
        (
            "thresholded",
            "/activity_totals/total_app_reward_thresholded",
        ),
        ("unclaimed", "/activity_totals/total_app_reward_unclaimed"),
        (
            "rewarded providers",
            "/activity_totals/rewarded_app_provider_parties_count",
        ),
        ("root hash", "/root_hash/state"),
        ("root", "/root_hash/root_hash"),
        ("verdict", "/verdict"),
    ],
    rows: Some("/batches"),
    columns: &[
        ("DEPTH", "/depth"),
        ("HASH", "/hash"),
        ("TYPE", "/type"),
        ("ENTRIES", "/entries"),
        ("RESULT", "/result"),
    ],
    custom: None,
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
    custom: None,
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
    custom: None,
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
    custom: None,
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
    custom: None,
};

/// `index verify`'s report.
/// `index rounds` (and its `--output csv`, the same columns whole).
pub const INDEX_ROUNDS: View = View {
    summary: &[
        ("index", "/index"),
        ("party", "/party"),
        ("scans not asked", "/scans_not_asked_because"),
        ("f + 1", "/f_plus_one"),
        ("divergences", "/divergences"),
        ("differing scans", "/differing_scans"),
    ],
    rows: Some("/rounds"),
    columns: &[
        ("ROUND", "/round"),
        ("CHECK", "/check"),
        ("WEIGHT", "/weight"),
        ("RECORDS", "/records"),
        ("PARTIES", "/active_parties"),
        ("TRAFFIC COST", "/traffic_cost"),
        ("UPDATES", "/updates"),
        ("FIRST", "/first_time"),
        ("LAST", "/last_time"),
        ("TOP PROVIDER", "/top_provider"),
        ("ROOT HASH", "/root_hash"),
        ("DIFFERING", "/differing_scans"),
    ],
    custom: None,
};

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
        ("AFTER", "/after/record_time"),
        ("THROUGH", "/through/record_time"),
        ("UPDATES", "/updates_checked"),
        ("SCANS", "/scans"),
        ("MISMATCHES", "/mismatches"),
        ("MISSING", "/missing"),
        ("EXTRA", "/extra"),
        ("UNCHECKED", "/unchecked"),
        ("COMPLETE", "/complete"),
    ],
    custom: None,
};

/// `index status`: a summary that fits a screen however big the index is.
pub const INDEX_STATUS: View = View {
    summary: &[],
    rows: None,
    columns: &[],
    custom: Some(|doc| index_status(doc, false)),
};

/// `index status --divergences`: the summary, then every divergence.
pub const INDEX_STATUS_DIVERGENCES: View = View {
    summary: &[],
    rows: None,
    columns: &[],
    custom: Some(|doc| index_status(doc, true)),
};

/// Rows of each list `index status` shows as a table at most (the newest; the JSON has all).
const STATUS_ROWS: usize = 5;

/// `index status` as a person reads it: the index in a few `label  value` lines, the newest
/// migrations, chunks and verifications (at most [`STATUS_ROWS`] each), the divergences as
/// their count, first, last and scans (`all`: then one row each). Under 60 lines without
/// `all`, whatever the index holds.
fn index_status(doc: &Value, all: bool) -> String {
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

/// `index stats`: a row per day (with `--daily`), then the totals.
pub const INDEX_STATS: View = View {
    summary: &[],
    rows: None,
    columns: &[],
    custom: Some(|doc| {
        let columns = [
            ("DAY", "/day"),
            ("UPDATES", "/updates"),
            ("TRANSFERS", "/transfers"),
            ("VOLUME", "/volume"),
            ("PARTIES", "/active_parties"),
            ("VALIDATORS", "/validators"),
            ("VOTE REQ", "/vote_requests"),
            ("VOTE RES", "/vote_results"),
            ("TRAFFIC COST", "/traffic_cost"),
        ];
        grid(&columns, &stats_rows(doc))
    }),
};

/// `index stats --output csv`: the rows of [`INDEX_STATS`] as CSV
/// ([`crate::model::index::stats::CSV_HEADER`]).
pub const INDEX_STATS_CSV: View = View {
    summary: &[],
    rows: None,
    columns: &[],
    custom: Some(|doc| {
        let header = crate::model::index::stats::CSV_HEADER;
        let mut out = format!("{header}\n");
        for row in stats_rows(doc) {
            let fields: Vec<String> = header.split(',').map(|f| cell(&row[f])).collect();
            out.push_str(&fields.join(","));
            out.push('\n');
        }
        out
    }),
};

/// The days of an `index stats` answer, then its totals (their day `total`).
fn stats_rows(doc: &Value) -> Vec<Value> {
    let mut rows: Vec<Value> = doc["days"].as_array().cloned().unwrap_or_default();
    let mut totals = doc["totals"].clone();
    if let Some(map) = totals.as_object_mut() {
        map.insert("day".to_owned(), Value::from("total"));
    }
    rows.push(totals);
    rows
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
    custom: None,
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

    #[test]
    fn index_status_shows_each_ranges_events_share_and_none_for_a_range_without_updates() {
        use crate::store::EventsCoverage;
        let doc = serde_json::json!({
            "location": "i.sqlite", "schema_version": 8, "summary_version": 1,
            "updates": 300, "bodies": 300, "events": 187, "size_bytes": 1,
            "migrations": [{"migration_id": 4, "updates": 300,
                "events": EventsCoverage::of(300, 187)}],
            "chunks": [
                {"id": 1, "state": "done", "updates": 299, "events": EventsCoverage::of(299, 187)},
                {"id": 2, "state": "done", "updates": 1, "events": EventsCoverage::of(1, 0)},
                {"id": 3, "state": "open", "updates": 0, "events": EventsCoverage::of(0, 0)},
            ],
            "gaps": [], "divergences": [], "last_sync": null, "sync_running": null,
            "verifications": [],
        });
        let shown = index_status(&doc, false);
        let row = |section: &str, key: &str| {
            shown
                .lines()
                .skip_while(|l| !l.starts_with(section))
                .skip(2)
                .find(|l| l.split_whitespace().next() == Some(key))
                .map_or_else(|| panic!("{section} {key}: {shown}"), |l| format!("{l} "))
        };
        // Rounded down: 187 of 300 is 62.3 %, 187 of 299 is 62.5 %.
        assert!(row("migrations", "4").contains(" 62 % "), "{shown}");
        assert!(row("chunks", "1").contains(" 62 % "), "{shown}");
        assert!(row("chunks", "2").contains(" 0 % "), "{shown}");
        assert!(!row("chunks", "3").contains('%'), "{shown}");
        assert_eq!(EventsCoverage::of(3, 3).percent, Some(100));
        assert_eq!(EventsCoverage::of(1000, 999).percent, Some(99));
    }

    #[test]
    fn index_status_fits_a_screen_however_many_divergences_and_lists_them_when_asked() {
        let divergences: Vec<serde_json::Value> = (0..1_000)
            .map(|i| {
                serde_json::json!({
                    "update_id": format!("1220{i:060}"),
                    "migration_id": 1,
                    "record_time": format!("2026-01-01T00:{:02}:{:02}Z", i / 60 % 60, i % 60),
                    "found_at": "2026-01-02T00:00:00Z",
                    "resolved": i != 999,
                    "detail": if i == 999 {
                        serde_json::json!({"versions": [
                            {"digest": "aa", "scans": ["A", "C"]},
                            {"digest": "bb", "scans": ["B"]},
                        ]})
                    } else {
                        serde_json::json!({"odd_scans": ["B"], "kept_by": ["A", "C", "D"]})
                    },
                })
            })
            .collect();
        let chunks: Vec<serde_json::Value> = (0..40)
            .map(|i| serde_json::json!({"id": i, "state": "done", "scans": ["A", "C"]}))
            .collect();
        let doc = serde_json::json!({
            "location": "i.sqlite", "schema_version": 6, "summary_version": 1,
            "updates": 1_234_567, "bodies": 1_234_567, "size_bytes": 12_345_678,
            "migrations": [], "chunks": chunks, "gaps": [], "divergences": divergences,
            "last_sync": null, "sync_running": null, "verifications": [],
        });
        let shown = index_status(&doc, false);
        assert!(shown.lines().count() <= 80, "{shown}");
        let line = |label: &str| {
            shown
                .lines()
                .find(|l| l.starts_with(&format!("{label}  ")))
                .unwrap_or_else(|| panic!("{label}: {shown}"))
                .to_owned()
        };
        assert!(line("updates").contains("1,234,567"), "{shown}");
        assert!(line("size").ends_with("12.3 MB"), "{shown}");
        assert!(
            line("divergences").starts_with("divergences      1000: 999 resolved"),
            "{shown}"
        );
        assert!(
            line("first").contains("00:00:00Z update 1220000"),
            "{shown}"
        );
        assert!(line("last").contains("00:16:39Z"), "{shown}");
        assert!(
            line("diverging scans").ends_with("B (1000 updates)"),
            "{shown}"
        );
        assert!(
            shown.contains("… 35 older: --output json has them all"),
            "{shown}"
        );
        let all = index_status(&doc, true);
        let rows = all.lines().filter(|l| l.starts_with("2026-01-01T")).count();
        assert_eq!(rows, 1_000, "a row each: {all}");
    }
}
