//! `cantonscope check`: is anything wrong? One run judges what one run can see — every scan's
//! health with the head check (`network::health::measure_with_findings`), the network's kept
//! findings (forks and diverged histories, found by any run), votes that need my SV's vote and
//! close within `--within` (as `governance needs-vote` judges them), and the local index's lag
//! when an index is configured — and prints:
//!
//! - JSON: `{"exit_code", "findings": [what needs attention: kind, subject, value, threshold,
//!   since, open (a cs1: locator)], "checks": [every rule with its state, "not determined"
//!   included]}`;
//! - a table (`--output table`);
//! - the Prometheus text format (`--output prometheus`, and `--textfile PATH` written
//!   atomically for node_exporter's textfile collector): `cantonscope_check_*` gauges.
//!
//! Exit codes: 0 all well, 5 something needs attention, 3 a node of mine is unreachable (wins
//! over 5), 2 usage. `--ack ID --for 4h` quiets one finding; `--log` lists every kept finding.

use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};

use super::network::finding_json;
use super::{EXIT_OK, EXIT_USAGE, api_config_once, client_or_exit, say};
use crate::api::ApiClient;
use crate::cli::CheckArgs;
use crate::config::Settings;
use crate::every_scan::discovery::discover;
use crate::every_scan::{Network, ScanBudget, findings, health};
use crate::model::findings::{Finding, FindingKind, FindingOp, FindingsBook, FoundBy};
use crate::model::format::{format_time_micros, human_age};
use crate::model::json_text;
use crate::model::network::{HealthState, NetworkHealth, ScanEntry};

/// Exit code: something needs attention.
pub const EXIT_ATTENTION: i32 = 5;
/// Exit code: a node of mine cannot be reached.
pub const EXIT_UNREACHABLE: i32 = 3;

/// The local index counts as behind past this lag (µs): an hour.
pub const INDEX_LAG_US: i64 = 3_600_000_000;

/// How `check` prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckOutput {
    Json,
    Table,
    Prometheus,
}

/// One rule's state in one run.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckRow {
    /// The rule (`scan`, `quorum`, `head_check`, `votes`, `index_lag`, …).
    pub check: String,
    /// What it is about (a scan's SV name, a vote request, the index).
    pub subject: String,
    /// `ok`, `firing`, `not determined`, `acknowledged`, or a scan's state (`down`, …).
    pub state: String,
    pub value: Option<String>,
    pub threshold: Option<String>,
    pub detail: String,
}

/// One thing that needs attention.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckFinding {
    pub kind: String,
    pub subject: String,
    pub value: Option<String>,
    pub threshold: Option<String>,
    /// Since when (µs), when known.
    pub since: Option<i64>,
    /// A locator of the view that explains it.
    pub open: Option<String>,
    pub detail: String,
    /// The kept finding's id (for `--ack`), when it is one.
    pub id: Option<String>,
}

/// Everything one run found.
#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    pub checked_at: i64,
    pub findings: Vec<CheckFinding>,
    pub checks: Vec<CheckRow>,
    /// Nodes of mine that could not be reached (the profile's own scan, metrics endpoints).
    pub unreachable: Vec<String>,
}

impl CheckReport {
    /// 3 when a node of mine is unreachable, else 5 with a finding, else 0.
    pub fn exit_code(&self) -> i32 {
        if !self.unreachable.is_empty() {
            EXIT_UNREACHABLE
        } else if !self.findings.is_empty() {
            EXIT_ATTENTION
        } else {
            EXIT_OK
        }
    }

    fn row(&mut self, check: &str, subject: &str, state: &str, detail: impl Into<String>) {
        self.checks.push(CheckRow {
            check: check.to_owned(),
            subject: subject.to_owned(),
            state: state.to_owned(),
            value: None,
            threshold: None,
            detail: detail.into(),
        });
    }
}

fn now_micros() -> i64 {
    chrono::Utc::now().timestamp_micros()
}

/// Runs `check`; returns the exit code.
pub async fn run(
    args: &CheckArgs,
    settings: &Settings,
    output: CheckOutput,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    if settings.scan_url.is_none() {
        say(
            err,
            &crate::headless::no_scan_configured("; check measures the network it belongs to"),
        );
        return EXIT_USAGE;
    }
    let data_dir = settings.data_path();
    let path = findings::settings_path(settings, data_dir.as_deref());
    let now = now_micros();
    if let Some(id) = &args.ack {
        return ack(path.as_deref(), id, args.ack_for, now, out, err);
    }
    if args.log {
        let book = path.as_deref().map(findings::read).unwrap_or_default();
        let value = json!({
            "findings": book.findings.iter().map(finding_json).collect::<Vec<_>>(),
        });
        return write_value(out, err, &value);
    }
    let config = api_config_once(settings, args.timeout);
    let client = match client_or_exit(config, err, say) {
        Ok(client) => client.with_max_response_mib(settings.max_response_mib),
        Err(code) => return code,
    };
    let discovered = discover(&client, settings, data_dir.as_deref(), now).await;
    for warning in &discovered.warnings {
        say(err, &format!("warning: {warning}"));
    }
    let budget = ScanBudget {
        rate: args.request_rate.unwrap_or(settings.network.request_rate),
        timeout: args.timeout,
        ..ScanBudget::default()
    };
    let net = Network::new(&client, discovered.entries.clone(), budget);
    let mut report = CheckReport {
        checked_at: now,
        ..CheckReport::default()
    };
    let thresholds = settings.network.thresholds;
    let measured = health::measure_with_findings(&net, now, &thresholds, path.as_deref()).await;
    if let Some(problem) = &measured.findings_error {
        say(err, &format!("warning: {problem}"));
    }
    let entries = super::redacted_entries(&net);
    judge_network(
        &mut report,
        &entries,
        &measured.health,
        &measured.findings,
        measured.head_check.as_ref(),
    );
    for (entry, scan) in entries.iter().zip(&measured.health.scans) {
        if entry.own && scan.state == HealthState::Down {
            report.unreachable.push(format!(
                "my scan {} ({})",
                entry.sv_name,
                scan.reasons.first().map_or("down", String::as_str)
            ));
        }
    }
    let mut book = measured.findings;
    let vote_ops = judge_votes(&mut report, &client, settings, args.within, now, &book).await;
    if !vote_ops.is_empty() {
        match path.as_deref() {
            Some(p) => {
                if let Some(kept) = super::keep_findings(p, &vote_ops, now, err) {
                    book = kept;
                }
            }
            None => {
                book.apply(&vote_ops, now);
            }
        }
    }
    let alert_ops = judge_node(&mut report, &client, settings, now, &book, err).await;
    if let (false, Some(p)) = (alert_ops.is_empty(), path.as_deref()) {
        super::keep_findings(p, &alert_ops, now, err);
    }
    judge_index(&mut report, settings, now).await;
    if let Some(file) = &args.textfile
        && let Err(e) = write_textfile(file, &prometheus_text(&report))
    {
        say(
            err,
            &format!("cannot write the textfile {}: {e}", file.display()),
        );
        return 1;
    }
    let code = report.exit_code();
    let written = match output {
        CheckOutput::Json => write_value(out, err, &report_json(&report)),
        CheckOutput::Table => write_raw(out, err, &table_text(&report)),
        CheckOutput::Prometheus => write_raw(out, err, &prometheus_text(&report)),
    };
    if written != EXIT_OK {
        return written;
    }
    code
}

/// `--ack ID --for D`: acknowledges the kept finding `id` until now + D (0: takes it back).
fn ack(
    path: Option<&Path>,
    id: &str,
    how_long: std::time::Duration,
    now: i64,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let Some(path) = path else {
        say(err, "no data directory: findings are not kept");
        return EXIT_USAGE;
    };
    let book = findings::read(path);
    if book.by_id(id).is_none() {
        say(
            err,
            &format!(
                "no finding {id:?} is kept for this network (`cantonscope check --log` lists them)"
            ),
        );
        return EXIT_USAGE;
    }
    let micros = i64::try_from(how_long.as_micros()).unwrap_or(i64::MAX);
    let until = (micros > 0).then(|| now.saturating_add(micros));
    match findings::update(
        path,
        &[FindingOp::Ack {
            id: id.to_owned(),
            until,
        }],
        now,
    ) {
        Ok((book, _)) => {
            let finding = book.by_id(id).map_or(Value::Null, finding_json);
            write_value(out, err, &json!({ "acknowledged": finding }))
        }
        Err(e) => {
            say(err, &format!("cannot keep the findings: {e}"));
            1
        }
    }
}

/// A locator of the view that explains a finding at an update (the consensus check of that
/// update), when the id is one a locator holds.
fn check_locator(update_id: Option<&str>) -> Option<String> {
    let id = update_id?;
    let locator = crate::model::locator::Locator::NetworkCheck(id.to_owned());
    crate::model::locator::Locator::parse(&locator.to_string())
        .ok()
        .map(|l| l.to_string())
}

/// The scans' health and the network's kept forks, as rows and findings.
fn judge_network(
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
async fn judge_votes(
    report: &mut CheckReport,
    client: &ApiClient,
    settings: &Settings,
    within: std::time::Duration,
    now: i64,
    book: &FindingsBook,
) -> Vec<FindingOp> {
    let window = i64::try_from(within.as_micros()).unwrap_or(i64::MAX);
    let threshold = format!("closes within {}", human_age(window));
    let (me, rows) = match super::governance::open_requests_of(client, settings).await {
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
async fn judge_node(
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
    let kept = super::node::kept_samples_path(settings);
    let previous = kept.as_deref().and_then(super::node::load_samples);
    let node = super::node::node_alerts(client, &settings.node, previous.as_ref(), now).await;
    if let Some(path) = &kept
        && let Err(e) = super::node::keep_samples(path, &node.keep)
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
async fn judge_index(report: &mut CheckReport, settings: &Settings, now: i64) {
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

/// The report as JSON (times RFC 3339).
pub fn report_json(report: &CheckReport) -> Value {
    json!({
        "checked_at": format_time_micros(report.checked_at),
        "exit_code": report.exit_code(),
        "unreachable": report.unreachable,
        "findings": report.findings.iter().map(|f| json!({
            "kind": f.kind,
            "subject": f.subject,
            "value": f.value,
            "threshold": f.threshold,
            "since": f.since.map(format_time_micros),
            "open": f.open,
            "detail": f.detail,
            "id": f.id,
        })).collect::<Vec<_>>(),
        "checks": report.checks.iter().map(|c| json!({
            "check": c.check,
            "subject": c.subject,
            "state": c.state,
            "value": c.value,
            "threshold": c.threshold,
            "detail": c.detail,
        })).collect::<Vec<_>>(),
    })
}

/// The report as a table: the verdict, the findings, then every check.
pub fn table_text(report: &CheckReport) -> String {
    let safe = |s: &str| crate::api::sanitize_line(s, 120);
    let mut out = String::new();
    let verdict = match report.exit_code() {
        EXIT_OK => "ALL WELL".to_owned(),
        EXIT_UNREACHABLE => format!("UNREACHABLE: {}", safe(&report.unreachable.join(", "))),
        _ => format!("ATTENTION: {} findings", report.findings.len()),
    };
    out.push_str(&format!(
        "{verdict} · checked {}\n",
        format_time_micros(report.checked_at)
    ));
    if !report.findings.is_empty() {
        out.push_str("\nFINDING            SUBJECT                 VALUE                   SINCE                 OPEN\n");
        for f in &report.findings {
            out.push_str(&format!(
                "{:<18} {:<23} {:<23} {:<21} {}\n",
                f.kind,
                cut(&safe(&f.subject), 23),
                cut(&safe(f.value.as_deref().unwrap_or("")), 23),
                f.since
                    .map(format_time_micros)
                    .map_or(String::new(), |s| cut(&s, 21)),
                f.open.as_deref().map_or(String::new(), |o| cut(o, 40)),
            ));
        }
    }
    out.push_str(
        "\nCHECK       SUBJECT                 STATE              VALUE                DETAIL\n",
    );
    for c in &report.checks {
        out.push_str(&format!(
            "{:<11} {:<23} {:<18} {:<20} {}\n",
            c.check,
            cut(&safe(&c.subject), 23),
            cut(&c.state, 18),
            cut(&safe(c.value.as_deref().unwrap_or("")), 20),
            cut(&safe(&c.detail), 80),
        ));
    }
    out
}

fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_owned()
    } else {
        let mut s: String = text.chars().take(width.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// A label value in the exposition format: `\`, `"` and newlines escaped; other control
/// characters dropped (a server's words may be in it).
fn label(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// The report in the Prometheus text exposition format.
pub fn prometheus_text(report: &CheckReport) -> String {
    let mut out = String::new();
    out.push_str("# HELP cantonscope_check_findings Findings that need attention.\n");
    out.push_str("# TYPE cantonscope_check_findings gauge\n");
    out.push_str(&format!(
        "cantonscope_check_findings {}\n",
        report.findings.len()
    ));
    out.push_str("# HELP cantonscope_check_exit_code The exit code of the last run (0 all well, 5 attention, 3 a node of mine unreachable).\n");
    out.push_str("# TYPE cantonscope_check_exit_code gauge\n");
    out.push_str(&format!(
        "cantonscope_check_exit_code {}\n",
        report.exit_code()
    ));
    out.push_str("# HELP cantonscope_check_finding One finding that needs attention (1), by kind and subject.\n");
    out.push_str("# TYPE cantonscope_check_finding gauge\n");
    for f in &report.findings {
        out.push_str(&format!(
            "cantonscope_check_finding{{kind=\"{}\",subject=\"{}\"}} 1\n",
            label(&f.kind),
            label(&f.subject)
        ));
    }
    out.push_str("# HELP cantonscope_check_state Every rule of the last run: 1 firing, 0 ok, -1 not determined, by check, subject and state.\n");
    out.push_str("# TYPE cantonscope_check_state gauge\n");
    for c in &report.checks {
        let value = match c.state.as_str() {
            "ok" | "healthy" | "lagging" | "backfilling" | "rate_limited" => 0,
            s if s.contains("acknowledged") => 0,
            "not determined" => -1,
            _ => 1,
        };
        out.push_str(&format!(
            "cantonscope_check_state{{check=\"{}\",subject=\"{}\",state=\"{}\"}} {value}\n",
            label(&c.check),
            label(&c.subject),
            label(&c.state)
        ));
    }
    out.push_str("# HELP cantonscope_check_last_run_timestamp_seconds When check last ran (alert on its age: a dead cron).\n");
    out.push_str("# TYPE cantonscope_check_last_run_timestamp_seconds gauge\n");
    out.push_str(&format!(
        "cantonscope_check_last_run_timestamp_seconds {:.3}\n",
        report.checked_at as f64 / 1e6
    ));
    out
}

/// Writes `text` to `path` atomically: a temporary file in the same directory, renamed over it
/// (node_exporter never reads half a file).
pub fn write_textfile(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let name = path.file_name().map_or_else(
        || "cantonscope.prom".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    let tmp = dir
        .unwrap_or_else(|| Path::new("."))
        .join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

fn write_value(out: &mut dyn Write, err: &mut dyn Write, value: &Value) -> i32 {
    let text = serde_json::to_vec(value)
        .map_err(|e| e.to_string())
        .and_then(|compact| json_text::pretty_bytes(&compact).map_err(|e| e.to_string()));
    match text {
        Ok(text) => write_raw(out, err, &text),
        Err(e) => {
            say(err, &e);
            1
        }
    }
}

fn write_raw(out: &mut dyn Write, err: &mut dyn Write, text: &str) -> i32 {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            say(err, &e.to_string());
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_escaped_and_control_characters_dropped() {
        assert_eq!(label("a\\b\"c\nd\u{1b}[31m"), "a\\\\b\\\"c\\nd[31m");
    }

    #[test]
    fn unreachable_wins_over_attention() {
        let mut report = CheckReport::default();
        assert_eq!(report.exit_code(), 0);
        report.findings.push(CheckFinding {
            kind: "forked".into(),
            subject: "SV".into(),
            value: None,
            threshold: None,
            since: None,
            open: None,
            detail: String::new(),
            id: None,
        });
        assert_eq!(report.exit_code(), 5);
        report.unreachable.push("my scan".into());
        assert_eq!(report.exit_code(), 3);
    }
}
