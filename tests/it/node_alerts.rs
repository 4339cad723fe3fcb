//! My node over real HTTP against the demo's `/metrics/{node}`: each alert fires and clears as
//! the demo's node faults are switched (`POST /demo/faults`, which also moves the metrics' clock
//! forward, so no test waits for a window); the binary's `node alerts` with its kept samples;
//! basic auth from the URL; an exposition of 10k lines parsed within bounds.

use std::time::Duration;

use cantonscope::api::{ApiClient, ApiConfig};
use cantonscope::config::{MetricsEndpoint, NodeSettings};
use cantonscope::demo::{self, DemoConfig, DemoFaults, DemoHandle, NodeFaults};
use cantonscope::headless::node::{NodeReport, node_alerts};
use cantonscope::model::metrics::{AlertState, RuleId, RuleState, SampleSet, Severity};
use serde_json::{Value, json};

fn node_settings(handle: &DemoHandle, userinfo: Option<&str>) -> NodeSettings {
    NodeSettings {
        endpoints: handle
            .metrics_urls
            .iter()
            .map(|(name, url)| {
                let url = match userinfo {
                    Some(user) => url.replacen("http://", &format!("http://{user}@"), 1),
                    None => url.clone(),
                };
                MetricsEndpoint {
                    name: name.clone(),
                    url: url.parse().unwrap(),
                    token: None,
                }
            })
            .collect(),
        ..NodeSettings::default()
    }
}

/// The demo and what the test knows of its metrics' clock.
struct Node {
    handle: DemoHandle,
    settings: NodeSettings,
    client: ApiClient,
    offset: i64,
    http: reqwest::Client,
}

impl Node {
    async fn start(faults: NodeFaults) -> Node {
        let handle = demo::start(DemoConfig {
            faults: DemoFaults {
                node: faults,
                ..DemoFaults::default()
            },
            ..DemoConfig::default()
        })
        .await
        .expect("demo");
        let settings = node_settings(&handle, None);
        Node {
            handle,
            settings,
            client: ApiClient::new(ApiConfig::default()).unwrap(),
            offset: 0,
            http: reqwest::Client::new(),
        }
    }

    /// Switches the faults (and moves the clock) with the demo's control request.
    async fn control(&mut self, body: Value) {
        let answer = self
            .http
            .post(&self.handle.faults_url)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(answer.status().is_success(), "{body}: {}", answer.status());
        if let Some(advance) = body.get("advance_clock").and_then(Value::as_str) {
            let d = cantonscope::config::parse_duration(advance).unwrap();
            self.offset += i64::try_from(d.as_micros()).unwrap();
        }
    }

    fn now(&self) -> i64 {
        chrono::Utc::now().timestamp_micros() + self.offset
    }

    async fn read(&self, previous: Option<&SampleSet>) -> NodeReport {
        let report = node_alerts(&self.client, &self.settings, previous, self.now()).await;
        assert_eq!(report.unreachable, [], "every demo node answers");
        report
    }
}

fn rows(report: &NodeReport, id: RuleId) -> Vec<&RuleState> {
    let rows: Vec<&RuleState> = report.rules.iter().filter(|r| r.id == id).collect();
    assert!(!rows.is_empty(), "{id:?}: no row");
    rows
}

fn firing(report: &NodeReport, id: RuleId) -> bool {
    rows(report, id).iter().any(|r| r.state.is_firing())
}

/// The rules an idle demo (`--rate 0`) fires: none. Every signal is exported by some node.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_demo_fires_nothing_and_exports_every_signal() {
    let node = Node::start(NodeFaults::default()).await;
    let first = node.read(None).await;
    let second = node.read(Some(&first.keep)).await;
    for report in [&first, &second] {
        for row in &report.rules {
            assert!(!row.state.is_firing(), "{row:?}");
            assert_ne!(row.state, AlertState::NotExported, "{row:?}");
        }
    }
    // The participant and the mediator both export the sequencing time, told apart.
    let subjects: Vec<_> = rows(&second, RuleId::SequencerClientDelay)
        .iter()
        .map(|r| r.subject.clone().unwrap_or_default())
        .collect();
    assert_eq!(subjects, ["participant", "mediator"]);
    // The counters are determined on the second read.
    for id in [
        RuleId::AutomationFailures,
        RuleId::MissedConfirmations,
        RuleId::ScanDisagreement,
    ] {
        for row in rows(&second, id) {
            assert!(matches!(row.state, AlertState::Ok), "{row:?}");
        }
    }
    node.handle.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sequencer_delay_fires_and_clears() {
    let mut node = Node::start(NodeFaults {
        sequencer_delay: Some(Duration::from_secs(600)),
        ..NodeFaults::default()
    })
    .await;
    let report = node.read(None).await;
    for row in rows(&report, RuleId::SequencerClientDelay) {
        assert_eq!(
            row.state,
            AlertState::Firing {
                severity: Severity::Critical
            },
            "{row:?}"
        );
        assert!(row.since_us.is_some());
        assert_eq!(row.threshold, "> 90s for 5m");
    }
    // Four minutes: past 90 s but not for 5 minutes.
    node.control(json!({"sequencer_delay": "4m"})).await;
    assert!(!firing(
        &node.read(None).await,
        RuleId::SequencerClientDelay
    ));
    node.control(json!({"sequencer_delay": "off"})).await;
    let report = node.read(None).await;
    assert!(!firing(&report, RuleId::SequencerClientDelay));
    node.handle.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_rounds_fire_and_clear() {
    let mut node = Node::start(NodeFaults {
        stalled_rounds: Some(Duration::from_secs(45 * 60)),
        ..NodeFaults::default()
    })
    .await;
    // One run alone cannot tell: named, not a finding.
    let first = node.read(None).await;
    for row in rows(&first, RuleId::RoundsNotAdvancing) {
        assert!(
            matches!(row.state, AlertState::NotDetermined { .. }),
            "{row:?}"
        );
    }
    // 31 minutes later, the same round: fires.
    node.control(json!({"advance_clock": "31m"})).await;
    let stalled = node.read(Some(&first.keep)).await;
    assert!(
        firing(&stalled, RuleId::RoundsNotAdvancing),
        "{:?}",
        stalled.rules
    );
    // Rounds open again: clears.
    node.control(json!({"stalled_rounds": "off"})).await;
    let cleared = node.read(Some(&stalled.keep)).await;
    assert!(
        !firing(&cleared, RuleId::RoundsNotAdvancing),
        "{:?}",
        cleared.rules
    );

    // Without the fault, 31 minutes bring new rounds.
    let mut healthy = Node::start(NodeFaults::default()).await;
    let first = healthy.read(None).await;
    healthy.control(json!({"advance_clock": "31m"})).await;
    let later = healthy.read(Some(&first.keep)).await;
    for row in rows(&later, RuleId::RoundsNotAdvancing) {
        assert_eq!(row.state, AlertState::Ok, "{row:?}");
    }
    node.handle.shutdown().await;
    healthy.handle.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn automation_failures_fire_and_clear() {
    let mut node = Node::start(NodeFaults::default()).await;
    let first = node.read(None).await;
    node.control(json!({"automation_failures": true, "advance_clock": "1m"}))
        .await;
    let failing = node.read(Some(&first.keep)).await;
    let sv_app: Vec<_> = rows(&failing, RuleId::AutomationFailures)
        .into_iter()
        .filter(|r| r.subject.as_deref() == Some("sv-app"))
        .collect();
    assert_eq!(
        sv_app[0].state,
        AlertState::Firing {
            severity: Severity::Warning
        },
        "{sv_app:?}"
    );
    // Switched off: still firing within the window, clear after it.
    node.control(json!({"automation_failures": false, "advance_clock": "9m"}))
        .await;
    let within = node.read(Some(&failing.keep)).await;
    assert!(firing(&within, RuleId::AutomationFailures));
    node.control(json!({"advance_clock": "2m"})).await;
    let after = node.read(Some(&within.keep)).await;
    assert!(
        !firing(&after, RuleId::AutomationFailures),
        "{:?}",
        after.rules
    );
    node.handle.shutdown().await;
}

/// Basic auth from the endpoint's URL reaches the demo; a wrong password is an error that
/// never shows the password.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn basic_auth_from_the_url_and_no_password_in_errors() {
    let handle = demo::start(DemoConfig {
        basic_auth: Some("ops:s3cret".into()),
        ..DemoConfig::default()
    })
    .await
    .expect("demo");
    let client = ApiClient::new(ApiConfig::default()).unwrap();
    let now = chrono::Utc::now().timestamp_micros();
    let good = node_settings(&handle, Some("ops:s3cret"));
    let report = node_alerts(&client, &good, None, now).await;
    assert_eq!(report.unreachable, []);
    let bad = node_settings(&handle, Some("ops:wrong-pw"));
    let report = node_alerts(&client, &bad, None, now).await;
    assert_eq!(report.unreachable.len(), 6);
    let shown = format!("{:?}", report.unreachable);
    assert!(
        shown.contains("401") || shown.contains("credentials"),
        "{shown}"
    );
    assert!(!shown.contains("wrong-pw"), "{shown}");
    // Nothing answered: every rule is not determined, never a zero.
    for row in &report.rules {
        assert!(
            matches!(row.state, AlertState::NotDetermined { .. }),
            "{row:?}"
        );
    }
    handle.shutdown().await;
}

/// `cantonscope node alerts` against the demo: exit 6 on a critical rule, the previous run's
/// samples kept under the data directory and read by the next run.
#[test]
fn the_binary_judges_the_demo_and_keeps_its_samples() {
    let runtime = crate::common::bin::runtime();
    let handle = runtime
        .block_on(demo::start(DemoConfig {
            faults: DemoFaults {
                node: NodeFaults {
                    sequencer_delay: Some(Duration::from_secs(600)),
                    ..NodeFaults::default()
                },
                ..DemoFaults::default()
            },
            ..DemoConfig::default()
        }))
        .expect("demo");
    let dir = tempfile::tempdir().unwrap();
    let mut config = String::from("[profiles.sv]\nmetrics = [\n");
    for (name, url) in &handle.metrics_urls {
        config.push_str(&format!("  {{ name = \"{name}\", url = \"{url}\" }},\n"));
    }
    config.push_str("]\n[profiles.sv.alerts]\nsequencer_client_delay_for = \"1m\"\n");
    let path = dir.path().join("config.toml");
    std::fs::write(&path, config).unwrap();
    let run = || {
        crate::common::bin::bin(dir.path())
            .arg("--config")
            .arg(&path)
            .args(["--profile", "sv", "node", "alerts", "--output", "json"])
            .output()
            .unwrap()
    };
    let out = run();
    assert_eq!(
        out.status.code(),
        Some(6),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["worst"], "critical");
    let delay = json["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "sequencer_client_delay")
        .unwrap();
    assert_eq!(delay["state"], "firing");
    assert_eq!(delay["threshold"], "> 90s for 1m");
    assert_eq!(delay["source"], "DA rule");
    assert!(delay["since"].as_str().is_some_and(|s| s.ends_with('Z')));
    let automation = json["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "automation_failures")
        .unwrap();
    assert_eq!(automation["state"], "not_determined", "{automation}");
    let kept = dir.path().join("data/node-alerts/sv.json");
    assert!(kept.exists());
    // The second run compares with the first.
    let out = run();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let automation = json["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "automation_failures")
        .unwrap();
    assert_eq!(automation["state"], "ok", "{automation}");
    runtime.block_on(handle.shutdown());
}

/// `prometheus = URL`: the rules run over `/api/v1/query` answers, the windows from
/// Prometheus's own history (its answers at each window's edge), no kept samples needed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prometheus_answers_with_its_own_windows() {
    use axum::extract::Query;
    use std::collections::HashMap;
    // A Prometheus whose automation failures grow a failure a minute, whose round never
    // changes and whose sequencer client is a second behind whatever time is asked.
    async fn query(Query(q): Query<HashMap<String, String>>) -> axum::Json<Value> {
        let t: f64 = q.get("time").and_then(|t| t.parse().ok()).unwrap_or(0.0);
        assert!(
            q.get("query")
                .is_some_and(|s| s.contains("splice_trigger_completed_total"))
        );
        let sample = |name: &str, job: &str, labels: Value, value: f64| {
            let mut metric = labels;
            metric["__name__"] = json!(name);
            metric["job"] = json!(job);
            json!({"metric": metric, "value": [t, value.to_string()]})
        };
        axum::Json(
            json!({"status": "success", "data": {"resultType": "vector", "result": [
                sample("splice_trigger_completed_total", "sv-app", json!({"outcome": "failure"}), (t / 60.0).floor()),
                sample("splice_sv_dso_store_latest_open_mining_round", "sv-app", json!({}), 77.0),
                sample("daml_sequencer_client_handler_last_sequencing_time_micros", "participant", json!({}), (t - 1.0) * 1e6),
            ]}}),
        )
    }
    let app = axum::Router::new().route("/api/v1/query", axum::routing::get(query));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let settings = NodeSettings {
        prometheus: Some(format!("http://{addr}").parse().unwrap()),
        ..NodeSettings::default()
    };
    let client = ApiClient::new(ApiConfig::default()).unwrap();
    let now = chrono::Utc::now().timestamp_micros();
    let report = node_alerts(&client, &settings, None, now).await;
    assert_eq!(report.source, "prometheus");
    assert_eq!(report.unreachable, []);
    assert!(
        firing(&report, RuleId::AutomationFailures),
        "{:?}",
        report.rules
    );
    assert!(
        firing(&report, RuleId::RoundsNotAdvancing),
        "{:?}",
        report.rules
    );
    let delay = rows(&report, RuleId::SequencerClientDelay);
    assert_eq!(delay[0].state, AlertState::Ok);
    assert_eq!(delay[0].subject.as_deref(), Some("participant"));
    assert_eq!(
        rows(&report, RuleId::MediatorAckLag)[0].state,
        AlertState::NotExported
    );
    server.abort();

    // A Prometheus that does not answer: named, every rule not determined.
    let report = node_alerts(&client, &settings, None, now).await;
    assert_eq!(report.unreachable.len(), 1);
    assert!(
        report.unreachable[0].1.contains("prometheus"),
        "{:?}",
        report.unreachable
    );
}

/// A metrics endpoint's password never shows in the sources' or the settings' `Debug`.
#[test]
fn metrics_passwords_never_print() {
    let node = NodeSettings {
        endpoints: vec![MetricsEndpoint {
            name: "participant".into(),
            url: "https://ops:hunter2@participant:10013/metrics"
                .parse()
                .unwrap(),
            token: Some(cantonscope::api::TokenSource::Literal(
                cantonscope::api::Secret::new("tok-secret"),
            )),
        }],
        ..NodeSettings::default()
    };
    let shown = format!("{node:?} {:?}", cantonscope::headless::node::sources(&node));
    assert!(!shown.contains("hunter2"), "{shown}");
    assert!(!shown.contains("tok-secret"), "{shown}");
    assert!(shown.contains("***@participant"), "{shown}");
}
