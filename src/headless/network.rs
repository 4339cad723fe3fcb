//! `cantonscope network …`: the whole network as JSON on stdout (diagnostics and sweep progress
//! on stderr), with the exit codes of [`crate::cli::NETWORK_EXIT_CODES`]:
//!
//! - `scans`: the discovered scan list.
//! - `health`: every scan's health and the verdict line; 0 all healthy, 5 degraded, 6 no
//!   healthy quorum.
//! - `check-update ID`: the answers of every scan grouped; 0 consensus and this profile's scan
//!   agrees, 5 consensus but some scan disagrees, 6 no consensus, 1 a consensus on an error
//!   answer (404: no scan has the update; `"found": false`).
//! - `sweep`: pages of `/v2/updates` compared up to the head (or `--pages`, or
//!   `--max-differences` differing updates), every differing update kept in ranges; the result
//!   is a [`SweepReport`], as the explorer saves it; 0 no difference, 5 some update differs, 6
//!   no quorum.
//!
//! Every request (discovery's `/v0/scans` included) is sent once within `--timeout`; Ctrl-C ends
//! any command at once with 130 (the sweep prints its result so far).
//!
//! Every server-provided text goes through [`json_text::pretty_bytes`], which escapes characters that
//! are unsafe on a terminal.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::{EXIT_OK, EXIT_SERVER, EXIT_USAGE, api_config_once, client_or_exit, say, write_text};
use crate::cli::{NetworkArgs, NetworkCommand};
use crate::config::{HistoryStart, Settings};
use crate::every_scan::check::{UpdateSource, check_update};
use crate::every_scan::discovery::{Discovered, ListSource, discover};
use crate::every_scan::{Cancel, Network, ScanBudget, health, sweep};
use crate::model::consensus::{Consensus, Difference, ScanClass};
use crate::model::findings::FindingKind;
use crate::model::format::format_time_micros;
use crate::model::json_text;
use crate::model::network::{
    HealthOutcome, HealthThresholds, NodeState, ScanEntry, quorum_of, url_host,
};
use crate::model::sweep::report::{EndKind, Outcome, ScanRef};
use crate::model::sweep::{SweepPlan, SweepProgress, SweepReport};

/// Exit code: degraded (health), some scan disagrees (check-update), differences (sweep).
pub const EXIT_DEGRADED: i32 = 5;
/// Exit code: no (healthy) quorum.
pub const EXIT_NO_QUORUM: i32 = 6;
/// Exit code: the sweep was interrupted.
pub const EXIT_INTERRUPTED: i32 = 130;

fn now_micros() -> i64 {
    chrono::Utc::now().timestamp_micros()
}

/// Microseconds as seconds, to the millisecond.
pub(crate) fn seconds(us: i64) -> f64 {
    (us as f64 / 1e3).round() / 1e3
}

fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

fn write_json(out: &mut dyn Write, value: &Value) -> Result<(), String> {
    let compact = serde_json::to_vec(value).map_err(|e| e.to_string())?;
    let pretty = json_text::pretty_bytes(&compact).map_err(|e| e.to_string())?;
    write_text(out, &pretty)
}

/// One JSON line (terminal-safe, like the pretty output).
fn write_json_line(err: &mut dyn Write, value: &Value) {
    let Ok(compact) = serde_json::to_string(value) else {
        return;
    };
    let _ = writeln!(err, "{}", json_text::escape_unsafe(&compact));
    let _ = err.flush();
}

/// Runs one `network` command; returns the exit code.
pub async fn run(
    args: &NetworkArgs,
    settings: &Settings,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let cancel = Arc::new(Cancel::new());
    let watcher = {
        let cancel = Arc::clone(&cancel);
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                cancel.cancel();
            }
        })
    };
    let code = run_with(args, settings, out, err, &cancel).await;
    watcher.abort();
    code
}

/// [`run`] with an explicit cancel signal (tests).
pub async fn run_with(
    args: &NetworkArgs,
    settings: &Settings,
    out: &mut dyn Write,
    err: &mut dyn Write,
    cancel: &Cancel,
) -> i32 {
    if settings.scan_url.is_none() && settings.extra_scan_urls.is_empty() {
        say(
            err,
            &crate::headless::no_scan_configured("; its /v0/scans lists the others"),
        );
        return EXIT_USAGE;
    }
    // Every request (the scan list's included) is sent once and bounded by --timeout.
    let config = api_config_once(settings, args.timeout);
    let client = match client_or_exit(config, err, say) {
        Ok(client) => client,
        Err(code) => return code,
    };
    let data_dir = settings.data_path();
    let discovering = discover(&client, settings, data_dir.as_deref(), now_micros());
    let Some(discovered) = until_cancelled(cancel, discovering).await else {
        say(err, "interrupted while reading the scan list");
        return EXIT_INTERRUPTED;
    };
    for warning in &discovered.warnings {
        say(err, &format!("warning: {warning}"));
    }
    let list_missing = matches!(discovered.source, ListSource::Unavailable { .. });
    if let ListSource::Unavailable { errors } = &discovered.source {
        for error in errors {
            say(err, &format!("cannot read the scan list: {error}"));
        }
        if !matches!(args.command, NetworkCommand::Scans) {
            say(
                err,
                "warning: no scan list: only the profile's own and pinned scans are asked",
            );
        }
    }
    let budget = ScanBudget {
        rate: args.request_rate.unwrap_or(settings.network.request_rate),
        timeout: args.timeout,
        ..ScanBudget::default()
    };
    let net = Network::new(&client, discovered.entries.clone(), budget);
    let result = match &args.command {
        NetworkCommand::Scans => {
            let code = if list_missing { EXIT_SERVER } else { EXIT_OK };
            write_json(out, &scans_json(&discovered)).map(|()| code)
        }
        _ if net.is_empty() => {
            say(err, "no scan to ask");
            return EXIT_SERVER;
        }
        NetworkCommand::Health {
            max_round_age,
            max_update_age,
            max_lag,
        } => {
            let configured = settings.network.thresholds;
            let thresholds = HealthThresholds {
                max_round_age: max_round_age.unwrap_or(configured.max_round_age),
                max_update_age: max_update_age.unwrap_or(configured.max_update_age),
                max_lag: max_lag.unwrap_or(configured.max_lag),
            };
            let findings =
                crate::every_scan::findings::settings_path(settings, data_dir.as_deref());
            let health = run_health(
                &net,
                &discovered,
                &thresholds,
                findings.as_deref(),
                (out, err),
            );
            match until_cancelled(cancel, health).await {
                Some(result) => result,
                None => return interrupted(err),
            }
        }
        NetworkCommand::CheckUpdate { update_id, events } => {
            let source = if *events {
                UpdateSource::Event
            } else {
                UpdateSource::Update
            };
            let findings =
                crate::every_scan::findings::settings_path(settings, data_dir.as_deref());
            let check = run_check(&net, update_id, source, findings.as_deref(), out, err);
            match until_cancelled(cancel, check).await {
                Some(result) => result,
                None => return interrupted(err),
            }
        }
        NetworkCommand::Sweep {
            from,
            pages,
            page_size,
            max_differences,
            quiet,
        } => {
            let plan = SweepRequest {
                from: *from,
                pages: *pages,
                page_size: usize::from(*page_size),
                max_differences: *max_differences,
                quiet: *quiet,
            };
            let findings =
                crate::every_scan::findings::settings_path(settings, data_dir.as_deref());
            run_sweep(&net, &plan, findings.as_deref(), out, err, cancel).await
        }
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            say(err, &message);
            EXIT_USAGE
        }
    }
}

/// `work`, or `None` when `cancel` fires first (Ctrl-C).
async fn until_cancelled<T>(cancel: &Cancel, work: impl Future<Output = T>) -> Option<T> {
    tokio::select! {
        done = work => Some(done),
        () = cancel.cancelled() => None,
    }
}

fn interrupted(err: &mut dyn Write) -> i32 {
    say(err, "interrupted");
    EXIT_INTERRUPTED
}

fn entry_json(entry: &ScanEntry) -> Value {
    json!({
        "sv_name": entry.sv_name,
        "url": crate::api::redact_userinfo(&entry.url),
        "host": url_host(&entry.url),
        "listed": entry.listed,
        "pinned": entry.pinned,
        "own": entry.own,
        "counted": entry.counted,
    })
}

fn scans_json(d: &Discovered) -> Value {
    let (n, f, quorum) = quorum_of(&d.entries);
    let (source, from, fetched_at, errors) = match &d.source {
        ListSource::Fetched { from } => ("fetched", Some(from.clone()), None, Vec::new()),
        ListSource::Cached { fetched_at, errors } => (
            "cached",
            None,
            Some(format_time_micros(*fetched_at)),
            errors.clone(),
        ),
        ListSource::Unavailable { errors } => ("unavailable", None, None, errors.clone()),
    };
    json!({
        "source": source,
        "from": from.map(|u| crate::api::redact_userinfo(&u)),
        "fetched_at": fetched_at,
        "domain_id": d.list.as_ref().map(|l| l.domain_id.clone()),
        "listed": d.list.as_ref().map_or(0, |l| l.scans.len()),
        "n": n,
        "f": f,
        "quorum": quorum,
        "scans": d.entries.iter().map(entry_json).collect::<Vec<_>>(),
        "warnings": d.warnings,
        "errors": errors,
        "cache_file": d.cache_file.as_ref().map(|p| p.display().to_string()),
    })
}

// ---------------------------------------------------------------------------------------------
// health

async fn run_health(
    net: &Network,
    discovered: &Discovered,
    thresholds: &HealthThresholds,
    findings_path: Option<&std::path::Path>,
    (out, err): (&mut dyn Write, &mut dyn Write),
) -> Result<i32, String> {
    let now = now_micros();
    let measured = health::measure_with_findings(net, now, thresholds, findings_path).await;
    if let Some(problem) = &measured.findings_error {
        say(err, &format!("warning: {problem}"));
    }
    let (observations, health) = (&measured.observations, &measured.health);
    let scans: Vec<Value> = net
        .entries()
        .zip(observations.iter().zip(&health.scans))
        .map(|(entry, (o, h))| {
            let mut v = entry_json(entry);
            let head = match &o.head {
                Some(Ok(Some(head))) => Some(head),
                _ => None,
            };
            let round = match &o.newest_round {
                Some(Ok(Some(round))) => Some(round),
                _ => None,
            };
            let (status, status_detail) = match &o.status {
                Some(NodeState::Active) => ("active", None),
                Some(NodeState::Inactive) => ("inactive", None),
                Some(NodeState::NotInitialized) => ("not_initialized", None),
                Some(NodeState::Failed(e)) => ("failed", Some(e.clone())),
                Some(NodeState::Unknown(e)) => ("unknown", Some(e.clone())),
                None => ("unknown", None),
            };
            let url = crate::api::redact_userinfo(&entry.url);
            let open_about = |kind: FindingKind| -> Vec<Value> {
                measured
                    .findings
                    .open_about(kind, &url)
                    .map(finding_json)
                    .collect()
            };
            let extra = json!({
                "state": h.state.name(),
                "forked": open_about(FindingKind::Forked).into_iter().next(),
                "diverged_history": open_about(FindingKind::DivergedHistory),
                "lagging": h.lagging,
                "reasons": h.reasons,
                "reachable": o.reachable,
                "status": if o.reachable { status } else { "unreachable" },
                "status_detail": status_detail,
                "version": o.version,
                "latency_ms": o.latency.map(millis),
                "migration_id": head.map(|h| h.migration_id),
                "head_record_time": head.map(|h| format_time_micros(h.record_time)),
                "head_update_id": head.map(|h| h.update_id.clone()),
                "lag_behind_newest_s": h.lag_behind_newest.map(seconds),
                "lag_behind_clock_s": h.update_age.map(seconds),
                "newest_update_age_s": h.update_age.map(seconds),
                "latest_event_record_time": h.verdict_head.map(format_time_micros),
                "verdict_ingestion_lag_s": h.verdict_lag.map(seconds),
                "newest_open_round": round.map(|r| json!({
                    "number": r.number,
                    "created_at": format_time_micros(r.created_at),
                    "age_s": seconds((now - r.created_at).max(0)),
                })),
            });
            if let (Value::Object(base), Value::Object(more)) = (&mut v, extra) {
                base.extend(more);
            }
            v
        })
        .collect();
    let outcome = match health.outcome {
        HealthOutcome::AllHealthy => "all_healthy",
        HealthOutcome::Degraded => "degraded",
        HealthOutcome::NoHealthyQuorum => "no_healthy_quorum",
    };
    let value = json!({
        "checked_at": format_time_micros(now),
        "verdict": health.verdict,
        "outcome": outcome,
        "n": health.n,
        "f": health.f,
        "quorum": health.quorum,
        // As the verdict line counts: healthy, lagging, unhealthy and down add up to `n`;
        // `quorum_healthy` is what the quorum is checked against (lagging ones included).
        "healthy": health.healthy - health.lagging,
        "lagging": health.lagging,
        "quorum_healthy": health.healthy,
        "unhealthy": health.unhealthy,
        "down": health.down,
        "forked": health.forked,
        "diverged_history": health.diverged,
        "backfilling": health.backfilling,
        "rate_limited": health.rate_limited,
        "newest_head": health.newest_head.map(format_time_micros),
        "thresholds": {
            "max_round_age_s": thresholds.max_round_age.as_secs_f64(),
            "max_update_age_s": thresholds.max_update_age.as_secs_f64(),
            "max_lag_s": thresholds.max_lag.as_secs_f64(),
        },
        "scan_list": discovered.source.name(),
        "head_check": measured.head_check.as_ref().map(|c| json!({
            "after": {
                "migration_id": c.after.migration_id,
                "record_time": c.after.record_time,
            },
            "page_size": crate::model::network::fork::HEAD_CHECK_PAGE,
        })),
        "findings": measured.findings.open().map(finding_json).collect::<Vec<_>>(),
        "scans": scans,
    });
    write_json(out, &value)?;
    Ok(match health.outcome {
        HealthOutcome::AllHealthy => EXIT_OK,
        HealthOutcome::Degraded => EXIT_DEGRADED,
        HealthOutcome::NoHealthyQuorum => EXIT_NO_QUORUM,
    })
}

/// One finding as JSON (times in RFC 3339).
pub(crate) fn finding_json(f: &crate::model::findings::Finding) -> Value {
    json!({
        "id": f.id(),
        "kind": f.kind.name(),
        "subject": f.subject,
        "name": f.name,
        "update_id": f.update_id,
        "record_time": f.record_time.map(format_time_micros),
        "path": f.path,
        "found_by": f.found_by.name(),
        "detail": f.detail,
        "first_seen": format_time_micros(f.first_seen),
        "last_seen": format_time_micros(f.last_seen),
        "cleared_at": f.cleared_at.map(format_time_micros),
        "acknowledged_until": f.acked_until.map(format_time_micros),
        "opened": f.opened,
    })
}

// ---------------------------------------------------------------------------------------------
// check-update

fn differences_json(differences: &[Difference]) -> Vec<Value> {
    differences
        .iter()
        .map(|d| json!({"path": d.path, "quorum": d.quorum, "this": d.this}))
        .collect()
}

fn sv_names(net: &Network, members: &[usize]) -> Vec<String> {
    members
        .iter()
        .filter_map(|m| net.entry(*m).map(|e| e.sv_name.clone()))
        .collect()
}

async fn run_check(
    net: &Network,
    update_id: &str,
    source: UpdateSource,
    findings_path: Option<&std::path::Path>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, String> {
    let checked = check_update(net, update_id, source).await;
    let check = &checked.check;
    // The update's own check (not its verdict) makes findings: a scan that serves it
    // differently has a diverged history there; one that agrees clears it.
    if let (UpdateSource::Update, Some(path)) = (source, findings_path) {
        let entries = super::redacted_entries(net);
        let ops = crate::model::network::fork::update_check_ops(&entries, update_id, check);
        super::keep_findings(path, &ops, now_micros(), err);
    }
    let scans: Vec<Value> = net
        .entries()
        .zip(checked.replies.iter().zip(&check.classes))
        .map(|(entry, (reply, class))| {
            let mut v = entry_json(entry);
            let status = reply.result.as_ref().ok().map(|e| e.status);
            let detail: Value = match class {
                ScanClass::Agree | ScanClass::Unconfirmed => json!({}),
                ScanClass::Disagree {
                    status,
                    differences,
                    truncated,
                } => json!({
                    "detail": if *status == 200 {
                        "a different body".to_owned()
                    } else {
                        format!("HTTP {status} although its history reaches the update")
                    },
                    "differences": differences_json(differences),
                    "truncated": truncated,
                }),
                ScanClass::DontKnow(reason) => json!({
                    "reason": reason.describe(),
                    "detail": reason.describe(),
                }),
                ScanClass::Error { message, .. } => {
                    json!({"detail": crate::api::sanitize_line(message, 200)})
                }
                ScanClass::Unreachable { detail } => json!({"detail": detail}),
                ScanClass::Timeout => json!({"detail": "timed out"}),
            };
            let extra = json!({
                "class": class.name(),
                "status": status,
                "latency_ms": millis(reply.latency),
                "throttled": reply.throttled,
            });
            if let (Value::Object(base), Value::Object(more), Value::Object(detail)) =
                (&mut v, extra, detail)
            {
                base.extend(more);
                base.extend(detail);
            }
            v
        })
        .collect();
    let grouping = &check.grouping;
    let agreed = grouping.consensus_group();
    let own_agrees = net
        .entries()
        .zip(&check.classes)
        .filter(|(e, _)| e.own)
        .all(|(_, c)| *c == ScanClass::Agree);
    // A consensus on an error answer (404: the update does not exist) is the scans answering an
    // error (1), unless some scan disagrees (5).
    let (consensus, outcome, code) = match (&grouping.consensus, agreed.map(|g| g.status)) {
        (Consensus::Reached { .. }, Some(200)) => {
            if own_agrees && !check.any_disagree() {
                ("reached", "verified", EXIT_OK)
            } else {
                ("reached", "disputed", EXIT_DEGRADED)
            }
        }
        (Consensus::Reached { .. }, status) => {
            let outcome = if status == Some(404) {
                "not_found"
            } else {
                "error"
            };
            let code = if check.any_disagree() {
                EXIT_DEGRADED
            } else {
                EXIT_SERVER
            };
            ("reached", outcome, code)
        }
        (Consensus::None, _) => ("none", "no_consensus", EXIT_NO_QUORUM),
        (Consensus::Conflicting { .. }, _) => ("conflicting", "conflicting", EXIT_NO_QUORUM),
    };
    if let Some(group) = agreed.filter(|g| g.status != 200) {
        let (size, n) = (group.members.len(), grouping.n);
        let disagree = check
            .classes
            .iter()
            .filter(|c| matches!(c, ScanClass::Disagree { .. }))
            .count();
        let mut line = if group.status == 404 {
            format!("no scan has update {update_id} (404 from {size} of {n})")
        } else {
            let problem = group
                .members
                .first()
                .and_then(|m| checked.replies.get(*m))
                .and_then(crate::every_scan::Reply::problem)
                .unwrap_or_else(|| format!("HTTP {}", group.status));
            format!("the scans agree on an error for update {update_id} ({size} of {n}): {problem}")
        };
        if disagree > 0 {
            let what = if group.status == 404 {
                "returned it"
            } else {
                "answered otherwise"
            };
            line.push_str(&format!(", but {disagree} {what}"));
        }
        say(err, &json_text::escape_unsafe(&line));
    }
    let own_class = net
        .entries()
        .zip(&check.classes)
        .find(|(e, _)| e.own)
        .map(|(_, c)| c.name());
    let groups: Vec<Value> = grouping
        .groups
        .iter()
        .map(|g| {
            json!({
                "status": g.status,
                "size": g.members.len(),
                "quorum": g.is_quorum,
                "members": sv_names(net, &g.members),
            })
        })
        .collect();
    let value = json!({
        "update_id": update_id,
        "endpoint": source.endpoint(),
        "n": grouping.n,
        "f": grouping.f,
        "quorum": grouping.quorum,
        "consensus": consensus,
        "outcome": outcome,
        "found": match agreed.map(|g| g.status) {
            Some(200) => Some(true),
            Some(404) => Some(false),
            _ => None,
        },
        "migration_id": check.position.map(|p| p.migration_id),
        "record_time": check.position.map(|p| format_time_micros(p.record_time)),
        "own_scan": own_class,
        "groups": groups,
        "scans": scans,
    });
    write_json(out, &value)?;
    Ok(code)
}

// ---------------------------------------------------------------------------------------------
// sweep

struct SweepRequest {
    from: Option<HistoryStart>,
    pages: Option<u64>,
    page_size: usize,
    max_differences: u64,
    quiet: bool,
}

fn progress_json(p: &SweepProgress) -> Value {
    json!({
        "pages": p.pages,
        "updates": p.updates,
        "differing_updates": p.differing_updates,
        "elapsed_s": (p.elapsed.as_secs_f64() * 1e3).round() / 1e3,
        "updates_per_s": (p.updates_per_s * 10.0).round() / 10.0,
        "pages_per_s": (p.pages_per_s * 100.0).round() / 100.0,
        "record_time": p.record_time,
        "eta_s": p.eta.map(|d| d.as_secs_f64().round()),
    })
}

async fn run_sweep(
    net: &Network,
    request: &SweepRequest,
    findings_path: Option<&std::path::Path>,
    out: &mut dyn Write,
    err: &mut dyn Write,
    cancel: &Cancel,
) -> Result<i32, String> {
    // Where the start time is in the history: from the profile's own scan, else the others.
    let mut references: Vec<usize> = (0..net.len()).collect();
    references.sort_by_key(|i| !net.entry(*i).is_some_and(|e| e.own));
    // Ctrl-C while the start is searched for: the sweep ends before its first page.
    let mut cancelled = false;
    let from = match request.from {
        None | Some(HistoryStart::Begin) => None,
        Some(HistoryStart::At(time)) => {
            let search = async {
                let mut found = Err(String::from("no scan"));
                for scan in references {
                    found = sweep::start_at(net, scan, time.timestamp_micros()).await;
                    if found.is_ok() {
                        break;
                    }
                }
                found
            };
            match until_cancelled(cancel, search).await {
                Some(Ok(cursor)) => Some(cursor),
                // No scan answered: not a usage error, the scans failed (as a page without a
                // quorum does).
                Some(Err(e)) => {
                    say(
                        err,
                        &format!(
                            "cannot find where {} is in the history: {e}",
                            time.to_rfc3339()
                        ),
                    );
                    return Ok(EXIT_NO_QUORUM);
                }
                None => {
                    cancelled = true;
                    None
                }
            }
        }
        // `--from` refuses these when it parses them.
        Some(HistoryStart::Now | HistoryStart::Recent) => {
            return Err("--from takes begin or a time, not now or recent".to_owned());
        }
    };
    let plan = SweepPlan {
        from: from.clone(),
        page_size: request.page_size,
        max_pages: request.pages,
        max_differences: request.max_differences,
    };
    let mut state = crate::model::sweep::Sweep::new(plan, net.counted());
    if cancelled {
        state.cancel();
    }
    let quiet = request.quiet;
    sweep::run(net, &mut state, cancel, now_micros, |progress| {
        if !quiet {
            write_json_line(err, &progress_json(progress));
        }
    })
    .await;
    let scans: Vec<ScanRef> = (0..net.len())
        .map(|i| {
            net.entry(i).map_or_else(ScanRef::default, |e| ScanRef {
                name: e.sv_name.clone(),
                url: e.url.clone(),
            })
        })
        .collect();
    let label = match request.from {
        Some(HistoryStart::At(time)) => format_time_micros(time.timestamp_micros()),
        _ => "the beginning of the history".to_owned(),
    };
    let report = SweepReport::of(&state, &scans, &label);
    // What it found (and re-checked) is kept with the network's findings.
    if let (Some(path), false) = (findings_path, report.end == EndKind::Cancelled) {
        let book = crate::every_scan::findings::read(path);
        let ops = report.findings(&book);
        super::keep_findings(path, &ops, now_micros(), err);
    }
    let code = match (report.end, report.outcome) {
        (EndKind::Cancelled, _) => EXIT_INTERRUPTED,
        (_, Outcome::Differ) => EXIT_DEGRADED,
        (EndKind::NoQuorum, _) => EXIT_NO_QUORUM,
        _ => EXIT_OK,
    };
    let value = serde_json::to_value(&report).map_err(|e| e.to_string())?;
    write_json(out, &value)?;
    Ok(code)
}
