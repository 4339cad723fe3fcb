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

mod judge;
mod output;

use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};

use super::network::finding_json;
use super::{EXIT_OK, EXIT_USAGE, api_config_once, client_or_exit, say};
use crate::cli::CheckArgs;
use crate::config::Settings;
use crate::every_scan::discovery::discover;
use crate::every_scan::{Network, ScanBudget, findings, health};
use crate::model::findings::FindingOp;
use crate::model::network::HealthState;
use judge::{judge_index, judge_network, judge_node, judge_votes};
use output::{write_raw, write_value};

pub use output::{prometheus_text, report_json, table_text, write_textfile};

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

#[cfg(test)]
mod tests {
    use super::output::label;
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
