//! My node, headless: [`node_alerts`] reads the profile's metrics endpoints (or its
//! Prometheus) once and judges them by the rules of `model::metrics`; `cantonscope node alerts`
//! prints that as JSON, keeping the samples a counter rule needs for the next run under the
//! data directory ([`kept_samples_path`]). The `check` command calls [`node_alerts`] too.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{EXIT_OK, EXIT_SERVER, EXIT_USAGE, api_config, client_or_exit};
use crate::api::ApiClient;
use crate::api::metrics::{MetricsTarget, prometheus_samples, scrape_all};
use crate::cli::{NodeArgs, NodeCommand};
use crate::config::{NodeSettings, Settings};
use crate::model::format::format_time_micros;
use crate::model::metrics::rules::names;
use crate::model::metrics::{RuleState, SampleSet, Scrape, Severity, evaluate};

/// Exit code: a warning fires.
pub const EXIT_WARNING: i32 = 5;
/// Exit code: a critical rule fires.
pub const EXIT_CRITICAL: i32 = 6;

/// One reading of the node: every rule's row, the endpoints that did not answer, and the
/// samples to keep for the next run.
#[derive(Clone, Debug, Serialize)]
pub struct NodeReport {
    /// When it was read, µs since the epoch.
    pub at_us: i64,
    /// Where the metrics came from: `endpoints` or `prometheus`.
    pub source: &'static str,
    /// Every rule's verdict, per subject.
    pub rules: Vec<RuleState>,
    /// `(endpoint, error)` of each endpoint that did not answer.
    pub unreachable: Vec<(String, String)>,
    /// What the next run compares with ([`keep_samples`] writes it).
    #[serde(skip)]
    pub keep: SampleSet,
}

impl NodeReport {
    /// The worst firing severity, if any rule fires.
    pub fn worst(&self) -> Option<Severity> {
        crate::model::metrics::worst_firing(&self.rules)
    }

    /// Whether nothing could be read at all.
    pub fn nothing_answered(&self, configured: usize) -> bool {
        configured > 0 && self.unreachable.len() >= configured
    }
}

/// Every metric name the rules read (what a Prometheus query asks for).
pub fn rule_metric_names() -> Vec<&'static str> {
    names::all()
}

/// The profile's metrics sources ([`NodeSettings::sources`]).
pub fn sources(node: &NodeSettings) -> crate::api::metrics::MetricsSources {
    node.sources()
}

/// The targets of the profile's `metrics`.
pub fn targets(node: &NodeSettings) -> Vec<MetricsTarget> {
    node.sources().targets
}

/// Reads the node once at `now_us` and judges it. With `prometheus` configured the metrics
/// come from its `/api/v1/query`, the windows from its own history (instant queries at each
/// window's edge stand for the previous runs, and `previous` is not needed); else every
/// endpoint of `metrics` is scraped and `previous` (the last run's [`NodeReport::keep`]) is
/// what counter and level rules compare with.
pub async fn node_alerts(
    client: &ApiClient,
    node: &NodeSettings,
    previous: Option<&SampleSet>,
    now_us: i64,
) -> NodeReport {
    if let Some(base) = &node.prometheus {
        return prometheus_alerts(client, node, base.as_str(), now_us).await;
    }
    let scrapes = scrape_all(client, &targets(node), now_us).await;
    report(node, &scrapes, previous, now_us, "endpoints")
}

fn report(
    node: &NodeSettings,
    scrapes: &[Scrape],
    previous: Option<&SampleSet>,
    now_us: i64,
    source: &'static str,
) -> NodeReport {
    let unreachable = crate::model::metrics::unreachable(scrapes);
    let (rules, keep) = evaluate(&node.rules, scrapes, previous, now_us);
    NodeReport {
        at_us: now_us,
        source,
        rules,
        unreachable,
        keep,
    }
}

async fn prometheus_alerts(
    client: &ApiClient,
    node: &NodeSettings,
    base: &str,
    now_us: i64,
) -> NodeReport {
    const SECOND: i64 = 1_000_000;
    let names = rule_metric_names();
    let r = &node.rules;
    let longest = r
        .disagreement_window_us
        .max(r.rounds_window_us)
        .max(r.missed_confirmations_window_us)
        .max(r.automation_failures_window_us);
    // The edges of the windows, oldest first: a level seen before the longest window, each
    // counter window's start just inside it, the ordering window's just before it.
    let mut edges = vec![
        now_us - longest - SECOND,
        now_us - r.disagreement_window_us + SECOND,
        now_us - r.rounds_window_us - SECOND,
        now_us - r.missed_confirmations_window_us + SECOND,
        now_us - r.automation_failures_window_us + SECOND,
        now_us - r.ordering_window_us - SECOND,
    ];
    edges.sort_unstable();
    edges.dedup();
    let mut previous: Option<SampleSet> = None;
    for at in edges {
        if let Ok(scrapes) =
            prometheus_samples(client, base, &names, Some(at as f64 / 1e6), at).await
        {
            let (_, keep) = evaluate(&node.rules, &scrapes, previous.as_ref(), at);
            previous = Some(keep);
        }
    }
    let scrapes =
        match prometheus_samples(client, base, &names, Some(now_us as f64 / 1e6), now_us).await {
            Ok(scrapes) if scrapes.is_empty() => vec![Scrape {
                endpoint: "prometheus".to_owned(),
                at_us: now_us,
                result: Ok(Vec::new()),
            }],
            Ok(scrapes) => scrapes,
            Err(error) => vec![Scrape {
                endpoint: "prometheus".to_owned(),
                at_us: now_us,
                result: Err(error),
            }],
        };
    let mut out = report(node, &scrapes, previous.as_ref(), now_us, "prometheus");
    // Prometheus keeps the history: nothing of it is worth keeping here.
    out.keep = SampleSet::default();
    out
}

/// Where the previous run's samples are kept: `<data dir>/node-alerts/<profile or default>.json`;
/// `None` without a data directory (the built-in demo, no home directory).
pub fn kept_samples_path(settings: &Settings) -> Option<PathBuf> {
    let dir = settings.data_path()?;
    let name = settings.profile.as_deref().unwrap_or("default");
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    Some(dir.join(SampleSet::FILE_NAME).join(format!("{safe}.json")))
}

/// The kept samples at `path`; `None` when there are none (or they do not read).
pub fn load_samples(path: &Path) -> Option<SampleSet> {
    let text = std::fs::read_to_string(path).ok()?;
    SampleSet::from_json(&text)
}

/// Keeps `samples` at `path` (written aside, then renamed over, so a reader never sees half).
pub fn keep_samples(path: &Path, samples: &SampleSet) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let aside = path.with_extension("json.tmp");
    std::fs::write(&aside, samples.to_json())?;
    std::fs::rename(&aside, path)
}

/// The JSON `node alerts` prints.
pub fn report_json(report: &NodeReport) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = report
        .rules
        .iter()
        .map(|r| {
            let mut value = serde_json::to_value(r).unwrap_or(serde_json::Value::Null);
            if let serde_json::Value::Object(map) = &mut value {
                map.insert(
                    "since".to_owned(),
                    r.since_us
                        .map_or(serde_json::Value::Null, |t| format_time_micros(t).into()),
                );
            }
            value
        })
        .collect();
    serde_json::json!({
        "at": format_time_micros(report.at_us),
        "source": report.source,
        "firing": report.rules.iter().filter(|r| r.state.is_firing()).count(),
        "worst": report.worst(),
        "rules": rows,
        "unreachable": report
            .unreachable
            .iter()
            .map(|(endpoint, error)| serde_json::json!({"endpoint": endpoint, "error": error}))
            .collect::<Vec<_>>(),
    })
}

fn say(err: &mut dyn Write, line: &str) {
    let _ = writeln!(
        err,
        "cantonscope: {}",
        crate::api::sanitize_line(line, 2_000)
    );
}

/// `cantonscope node …`
pub async fn run(
    args: &NodeArgs,
    settings: &Settings,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    match &args.command {
        NodeCommand::Alerts { no_keep } => alerts(*no_keep, settings, out, err).await,
    }
}

async fn alerts(
    no_keep: bool,
    settings: &Settings,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let node = &settings.node;
    if !node.is_configured() {
        say(
            err,
            "no metrics configured: give the profile metrics = [{ name = \"participant\", url = \
             \"http://host:port/metrics\" }, …] or prometheus = \"http://prometheus:9090\"",
        );
        return EXIT_USAGE;
    }
    let client = match client_or_exit(api_config(settings), err, say) {
        Ok(client) => client.with_max_response_mib(settings.max_response_mib),
        Err(code) => return code,
    };
    let path = (!no_keep && node.prometheus.is_none())
        .then(|| kept_samples_path(settings))
        .flatten();
    let previous = path.as_deref().and_then(load_samples);
    let now = chrono::Utc::now().timestamp_micros();
    let report = node_alerts(&client, node, previous.as_ref(), now).await;
    for (endpoint, error) in &report.unreachable {
        say(err, &format!("warning: {endpoint}: {error}"));
    }
    if let Some(path) = &path
        && let Err(error) = keep_samples(path, &report.keep)
    {
        say(
            err,
            &format!(
                "warning: cannot keep the samples in {}: {error}",
                path.display()
            ),
        );
    }
    let text = serde_json::to_string_pretty(&report_json(&report)).unwrap_or_default();
    if writeln!(out, "{text}").is_err() {
        return EXIT_SERVER;
    }
    let configured = if node.prometheus.is_some() {
        1
    } else {
        node.endpoints.len()
    };
    if report.nothing_answered(configured) {
        return EXIT_SERVER;
    }
    match report.worst() {
        Some(Severity::Critical) => EXIT_CRITICAL,
        Some(Severity::Warning) => EXIT_WARNING,
        None => EXIT_OK,
    }
}
