//! The check's rules: the scans' health and kept forks, votes that need my SV, my node's alert
//! rules and the local index's lag, each as rows and findings of the report.

use super::{CheckFinding, CheckReport, CheckRow, INDEX_LAG_US, check_locator};
use std::io::Write;

use crate::api::ApiClient;
use crate::config::Settings;
use crate::headless::{governance, node, say};
use crate::model::findings::{Finding, FindingKind, FindingOp, FindingsBook, FoundBy};
use crate::model::format::{format_time_micros, human_age};
use crate::model::network::{HealthState, NetworkHealth, ScanEntry};

/// The scans' health and the network's kept forks, as rows and findings.
pub(super) fn judge_network(
    report: &mut CheckReport,
    entries: &[ScanEntry],
    health: &NetworkHealth,
    book: &FindingsBook,
    head_check: Option<&crate::model::network::fork::HeadCheck>,
) {
    let now = report.checked_at;
    let quorum_ok = health.healthy >= health.quorum && health.n > 0;
    report.checks.push(CheckRow {
        check: "quorum".into(),
        subject: "network".into(),
        state: if quorum_ok { "ok" } else { "firing" }.into(),
        value: Some(format!("{} healthy of {}", health.healthy, health.n)),
        threshold: Some(format!("at least {} (f + 1)", health.quorum)),
        detail: health.verdict.clone(),
    });
    if !quorum_ok {
        report.findings.push(CheckFinding {
            kind: "no_healthy_quorum".into(),
            subject: "network".into(),
            value: Some(format!("{} healthy of {}", health.healthy, health.n)),
            threshold: Some(format!("at least {}", health.quorum)),
            since: None,
            open: Some("cs1:network".into()),
            detail: health.verdict.clone(),
            id: None,
        });
    }
    match head_check {
        Some(check) => {
            let compared = check
                .scans
                .iter()
                .filter(|v| !matches!(v, crate::model::network::fork::HeadVerdict::NotCompared(_)))
                .count();
            report.row(
                "head_check",
                "network",
                "ok",
                format!(
                    "{compared} of {} scans compared update by update after {}",
                    check.scans.len(),
                    check.after.record_time
                ),
            );
        }
        None => report.row(
            "head_check",
            "network",
            "not determined",
            "no scan's newest update is known",
        ),
    }
    for (entry, scan) in entries.iter().zip(&health.scans) {
        if !entry.counted {
            continue;
        }
        let name = entry.sv_name.as_str();
        let state = match scan.state {
            HealthState::Healthy if scan.lagging => "lagging",
            other => other.name(),
        };
        report.checks.push(CheckRow {
            check: "scan".into(),
            subject: name.to_owned(),
            state: state.to_owned(),
            value: scan
                .lag_behind_newest
                .filter(|_| scan.lagging)
                .map(|lag| format!("{} behind", human_age(lag))),
            threshold: None,
            detail: scan.reasons.join("; "),
        });
        let kind = match scan.state {
            HealthState::Down => FindingKind::ScanDown,
            HealthState::Forked => FindingKind::Forked,
            HealthState::DivergedHistory => FindingKind::DivergedHistory,
            HealthState::Unhealthy => {
                report.findings.push(CheckFinding {
                    kind: "unhealthy".into(),
                    subject: name.to_owned(),
                    value: scan.reasons.first().cloned(),
                    threshold: None,
                    since: None,
                    open: Some("cs1:network".into()),
                    detail: scan.reasons.join("; "),
                    id: None,
                });
                continue;
            }
            _ => continue,
        };
        // The kept finding behind the state (its first sighting, update, path, id).
        let kept: Vec<&Finding> = book.open_about(kind, &entry.url).collect();
        let acked = !kept.is_empty() && kept.iter().all(|f| f.is_acked(now));
        if acked {
            if let Some(row) = report.checks.last_mut() {
                row.state = format!("{state} (acknowledged)");
            }
            continue;
        }
        let first = kept.iter().min_by_key(|f| f.first_seen);
        report.findings.push(CheckFinding {
            kind: kind.name().to_owned(),
            subject: name.to_owned(),
            value: first.and_then(|f| f.update_id.clone()).or_else(|| {
                (kind == FindingKind::ScanDown)
                    .then(|| scan.reasons.first().cloned())
                    .flatten()
            }),
            threshold: None,
            since: first.map(|f| f.first_seen),
            open: match kind {
                FindingKind::Forked | FindingKind::DivergedHistory => {
                    check_locator(first.and_then(|f| f.update_id.as_deref()))
                        .or_else(|| Some("cs1:network".into()))
                }
                _ => Some("cs1:network".into()),
            },
            detail: first.map_or_else(
                || scan.reasons.join("; "),
                |f| {
                    let mut d = f.detail.clone();
                    if let Some(path) = &f.path {
                        d.push_str(&format!(" [{path}]"));
                    }
                    if kept.len() > 1 {
                        d.push_str(&format!(" (and {} more updates)", kept.len() - 1));
                    }
                    d
                },
            ),
            id: first.map(|f| f.id()),
        });
    }
}

/// Votes needing my SV's vote that close within `within`, as governance needs-vote judges
/// them; the findings to keep (opened, and cleared for requests that no longer need it).
pub(super) async fn judge_votes(
    report: &mut CheckReport,
    client: &ApiClient,
    settings: &Settings,
    within: std::time::Duration,
    now: i64,
    book: &FindingsBook,
) -> Vec<FindingOp> {
    let window = i64::try_from(within.as_micros()).unwrap_or(i64::MAX);
    let threshold = format!("closes within {}", human_age(window));
    let (me, rows) = match governance::open_requests_of(client, settings).await {
        Ok(found) => found,
        Err(problem) => {
            report.row("votes", "my SV", "not determined", problem);
            return Vec::new();
        }
    };
    let Some(me) = me.filter(|me| me.listed != Some(false)) else {
        report.row(
            "votes",
            "my SV",
            "not determined",
            "my SV is unknown: this scan's /v0/dso names no SV of the DSO, and no sv key of the profile names one",
        );
        return Vec::new();
    };
    let needed = crate::model::governance::needing_my_vote(&rows, now, Some(window));
    let my_name = me
        .name
        .clone()
        .or_else(|| me.party.clone())
        .unwrap_or_else(|| me.describe());
    let mut ops = Vec::new();
    let mut subjects = Vec::new();
    for request in &needed {
        let cid = request
            .tracking_cid
            .clone()
            .unwrap_or_else(|| request.contract_id.clone());
        subjects.push(cid.clone());
        let deadline = crate::model::format::parse_time_micros(&request.vote_before);
        let kept = book
            .open()
            .find(|f| f.kind == FindingKind::VoteNeeded && f.subject == cid);
        if kept.is_some_and(|f| f.is_acked(now)) {
            report.row(
                "votes",
                &request.action_name,
                "acknowledged",
                format!("closes {}", request.vote_before),
            );
            continue;
        }
        report.findings.push(CheckFinding {
            kind: "vote_needed".into(),
            subject: request.action_name.clone(),
            value: deadline.map(|d| format!("closes in {}", human_age(d - now))),
            threshold: Some(threshold.clone()),
            since: kept.map(|f| f.first_seen),
            open: crate::model::locator::Locator::parse(&format!("cs1:governance/request/{cid}"))
                .ok()
                .map(|l| l.to_string()),
            detail: format!(
                "{} needs {my_name}'s vote before {}",
                request.action, request.vote_before
            ),
            id: Some(
                crate::model::findings::FindingKey {
                    kind: FindingKind::VoteNeeded,
                    subject: cid.clone(),
                    update_id: None,
                }
                .id(),
            ),
        });
        ops.push(FindingOp::open(
            FindingKind::VoteNeeded,
            (&cid, &request.action_name),
            FoundBy::Governance,
            format!("needs my vote before {}", request.vote_before),
        ));
    }
    report.checks.push(CheckRow {
        check: "votes".into(),
        subject: my_name,
        state: if needed.is_empty() { "ok" } else { "firing" }.into(),
        value: Some(format!("{} need my vote", needed.len())),
        threshold: Some(threshold),
        detail: format!("{} open requests", rows.len()),
    });
    for f in book.open().filter(|f| f.kind == FindingKind::VoteNeeded) {
        if !subjects.contains(&f.subject) {
            ops.push(FindingOp::clear(
                FindingKind::VoteNeeded,
                &f.subject,
                "no longer needs my vote",
            ));
        }
    }
    ops
}

/// My node's alert rules over one scrape of the profile's metrics endpoints (or its
/// Prometheus), counter rules against the previous run's samples (kept under the data
/// directory); the findings to keep. Nothing when the profile configures no metrics.
pub(super) async fn judge_node(
    report: &mut CheckReport,
    client: &ApiClient,
    settings: &Settings,
    now: i64,
    book: &FindingsBook,
    err: &mut dyn Write,
) -> Vec<FindingOp> {
    use crate::model::metrics::AlertState;
    if !settings.node.is_configured() {
        report.row(
            "node_alerts",
            "my node",
            "not determined",
            "no metrics configured (profile keys metrics or prometheus)",
        );
        return Vec::new();
    }
    let kept = node::kept_samples_path(settings);
    let previous = kept.as_deref().and_then(node::load_samples);
    let node = node::node_alerts(client, &settings.node, previous.as_ref(), now).await;
    if let Some(path) = &kept
        && let Err(e) = node::keep_samples(path, &node.keep)
    {
        say(
            err,
            &format!(
                "warning: the samples could not be kept in {}: {e}",
                path.display()
            ),
        );
    }
    for (endpoint, problem) in &node.unreachable {
        report
            .unreachable
            .push(format!("my metrics endpoint {endpoint} ({problem})"));
    }
    let ops = crate::model::metrics::alert_ops(&node.rules, book);
    for row in &node.rules {
        let subject = match &row.subject {
            Some(s) => format!("{} · {s}", row.title),
            None => row.title.clone(),
        };
        let (state, firing) = match &row.state {
            AlertState::Firing { severity } => {
                (format!("firing ({severity:?})").to_lowercase(), true)
            }
            AlertState::Ok => ("ok".to_owned(), false),
            AlertState::Info => ("info".to_owned(), false),
            AlertState::NotExported => ("not exported".to_owned(), false),
            AlertState::NotDetermined { why } => {
                report.checks.push(CheckRow {
                    check: "node_alert".into(),
                    subject: subject.clone(),
                    state: "not determined".into(),
                    value: row.value.clone(),
                    threshold: Some(row.threshold.clone()),
                    detail: why.clone(),
                });
                continue;
            }
        };
        let key = format!("rule:{subject}");
        let acked = firing
            && book
                .open()
                .any(|f| f.kind == FindingKind::NodeAlert && f.subject == key && f.is_acked(now));
        report.checks.push(CheckRow {
            check: "node_alert".into(),
            subject: subject.clone(),
            state: if acked {
                format!("{state} (acknowledged)")
            } else {
                state
            },
            value: row.value.clone(),
            threshold: Some(row.threshold.clone()),
            detail: format!("{} · {}", row.source.as_str(), row.expression),
        });
        if firing && !acked {
            report.findings.push(CheckFinding {
                kind: "node_alert".into(),
                subject,
                value: row.value.clone(),
                threshold: Some(row.threshold.clone()),
                since: row.since_us,
                open: Some("cs1:status".into()),
                detail: format!("{} · {}", row.source.as_str(), row.expression),
                id: Some(
                    crate::model::findings::FindingKey {
                        kind: FindingKind::NodeAlert,
                        subject: key,
                        update_id: None,
                    }
                    .id(),
                ),
            });
        }
    }
    ops
}

/// The local index's lag, when an index is configured.
pub(super) async fn judge_index(report: &mut CheckReport, settings: &Settings, now: i64) {
    let Some(location) = settings.explorer_index() else {
        return;
    };
    let location = crate::store::Location::parse(&location);
    let described = location.describe();
    let reach = tokio::task::spawn_blocking(move || {
        crate::store::open_reader(&location).and_then(|mut store| store.reach(now))
    })
    .await;
    let reach = match reach {
        Ok(Ok(reach)) => reach,
        Ok(Err(e)) => {
            report.row("index_lag", &described, "not determined", e.to_string());
            return;
        }
        Err(e) => {
            report.row("index_lag", &described, "not determined", e.to_string());
            return;
        }
    };
    let Some(last) = reach.last else {
        report.row(
            "index_lag",
            &described,
            "not determined",
            "the index is empty",
        );
        return;
    };
    let lag = (now - last).max(0);
    let firing = lag > INDEX_LAG_US;
    let detail = match &reach.sync_running {
        Some(sync) => format!("a sync runs (pid {} on {})", sync.pid, sync.host),
        None => "no sync runs".to_owned(),
    };
    report.checks.push(CheckRow {
        check: "index_lag".into(),
        subject: described.clone(),
        state: if firing { "firing" } else { "ok" }.into(),
        value: Some(human_age(lag)),
        threshold: Some(human_age(INDEX_LAG_US)),
        detail: detail.clone(),
    });
    if firing {
        report.findings.push(CheckFinding {
            kind: "index_lag".into(),
            subject: described,
            value: Some(human_age(lag)),
            threshold: Some(human_age(INDEX_LAG_US)),
            since: Some(last),
            open: Some("cs1:history".into()),
            detail: format!(
                "the newest update kept is from {}; {detail}",
                format_time_micros(last)
            ),
            id: None,
        });
    }
}
