//! The check report's forms: JSON, a table, the Prometheus text format (and its textfile,
//! written atomically), and writing them out.

use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};

use super::{CheckReport, EXIT_OK, EXIT_UNREACHABLE};
use crate::headless::say;
use crate::model::format::format_time_micros;
use crate::model::json_text;

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
pub(super) fn label(value: &str) -> String {
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

pub(super) fn write_value(out: &mut dyn Write, err: &mut dyn Write, value: &Value) -> i32 {
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

pub(super) fn write_raw(out: &mut dyn Write, err: &mut dyn Write, text: &str) -> i32 {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            say(err, &e.to_string());
            1
        }
    }
}
