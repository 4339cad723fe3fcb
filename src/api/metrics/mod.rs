//! Reading the operator's own metrics over HTTP: a Prometheus endpoint's text exposition
//! (basic auth from the URL's user info, or a bearer token of its own), or the SV's Prometheus
//! server through `/api/v1/query` (an instant query, now or at a time before). Bodies are capped
//! as every answer is; errors never carry the URL's credentials.

use std::time::Duration;

use serde::Deserialize;

use super::auth::{Secret, TokenProvider, TokenSource};
use super::client::{ApiClient, redact_userinfo};
use super::error::ApiError;
pub mod exposition;

use exposition as parse;
pub use exposition::{Exposition, Limits, Sample};

/// Bodies larger than this are parsed on a blocking thread.
const BLOCKING_PARSE_BYTES: usize = 256 * 1024;
/// The endpoint name errors carry.
const ENDPOINT: &str = "metrics";

/// One endpoint's scrape at one time: its samples, or why there are none.
#[derive(Clone, Debug, PartialEq)]
pub struct Scrape {
    /// The endpoint's configured name (`participant`, `sv-app`, …).
    pub endpoint: String,
    /// When it was read, µs since the epoch.
    pub at_us: i64,
    /// The samples, or the error that prevented them (no credentials in it).
    pub result: Result<Vec<Sample>, String>,
}

/// One endpoint to scrape. `Debug` shows its URL without the password.
#[derive(Clone)]
pub struct MetricsTarget {
    /// Its name (rows and errors say it).
    pub name: String,
    /// The whole URL of its exposition.
    pub url: String,
    /// A bearer token for it.
    pub token: Option<TokenSource>,
}

impl std::fmt::Debug for MetricsTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsTarget")
            .field("name", &self.name)
            .field("url", &redact_userinfo(&self.url))
            .field("token", &self.token.as_ref().map(|_| "***"))
            .finish()
    }
}

impl ApiClient {
    /// GETs a whole `url` once (no retries: the next scrape is the retry) with `accept`, and
    /// the bearer `token` when given; the 2xx body, capped like every answer.
    async fn get_whole(
        &self,
        url: &str,
        accept: &str,
        token: Option<&Secret>,
        timeout: Duration,
    ) -> Result<Vec<u8>, ApiError> {
        let mut req = self
            .http()
            .get(url)
            .timeout(timeout)
            .header(reqwest::header::ACCEPT, accept);
        if let Some(token) = token {
            req = req.header(
                reqwest::header::AUTHORIZATION,
                super::client::bearer(token)?,
            );
        }
        let resp = req
            .send()
            .await
            .map_err(|e| super::client::transport_error(ENDPOINT, &e))?;
        let status = resp.status().as_u16();
        let body = self.read_body(resp, ENDPOINT, status).await?;
        if (200..=299).contains(&status) {
            return Ok(body);
        }
        let snippet: String = String::from_utf8_lossy(&body[..body.len().min(400)])
            .chars()
            .take(200)
            .collect();
        Err(match status {
            401 | 403 => ApiError::Unauthorized {
                endpoint: ENDPOINT,
                status,
                message: None,
            },
            _ => ApiError::Http {
                endpoint: ENDPOINT,
                status,
                body_snippet: snippet,
            },
        })
    }
}

/// Scrapes one endpoint at `at_us` (the caller's clock): its samples, or the error in words
/// (the endpoint's URL shown without credentials).
pub async fn scrape(client: &ApiClient, target: &MetricsTarget, at_us: i64) -> Scrape {
    let result = scrape_samples(client, target).await.map_err(|error| {
        format!(
            "{} ({}): {error}",
            target.name,
            redact_userinfo(&target.url)
        )
    });
    Scrape {
        endpoint: target.name.clone(),
        at_us,
        result,
    }
}

async fn scrape_samples(
    client: &ApiClient,
    target: &MetricsTarget,
) -> Result<Vec<Sample>, ApiError> {
    let token = match &target.token {
        Some(source) => Some(
            TokenProvider::new(source.clone(), Duration::from_secs(10))
                .token()
                .await?,
        ),
        None => None,
    };
    let body = client
        .get_whole(
            &target.url,
            "text/plain;version=0.0.4;q=0.9, */*;q=0.1",
            token.as_ref(),
            Duration::from_secs(10),
        )
        .await?;
    Ok(parse_body(body).await)
}

/// Parses an exposition body (on a blocking thread when large).
async fn parse_body(body: Vec<u8>) -> Vec<Sample> {
    let large = body.len() > BLOCKING_PARSE_BYTES;
    let run = move || parse::parse(&String::from_utf8_lossy(&body)).samples;
    if large {
        tokio::task::spawn_blocking(run).await.unwrap_or_default()
    } else {
        run()
    }
}

/// Where the node's metrics come from: its endpoints, or its Prometheus.
#[derive(Clone, Debug)]
pub struct MetricsSources {
    /// The endpoints scraped (when there is no Prometheus).
    pub targets: Vec<MetricsTarget>,
    /// The SV's Prometheus base URL.
    pub prometheus: Option<String>,
    /// The metric names asked of the Prometheus.
    pub names: Vec<&'static str>,
}

/// One reading of `sources` at `at_us`: a scrape per endpoint, or the Prometheus's samples
/// (one scrape per `job`; one failed scrape named `prometheus` when it did not answer).
pub async fn read_sources(client: &ApiClient, sources: &MetricsSources, at_us: i64) -> Vec<Scrape> {
    match &sources.prometheus {
        Some(base) => match prometheus_samples(client, base, &sources.names, None, at_us).await {
            Ok(scrapes) if !scrapes.is_empty() => scrapes,
            Ok(_) => vec![Scrape {
                endpoint: "prometheus".to_owned(),
                at_us,
                result: Ok(Vec::new()),
            }],
            Err(error) => vec![Scrape {
                endpoint: "prometheus".to_owned(),
                at_us,
                result: Err(error),
            }],
        },
        None => scrape_all(client, &sources.targets, at_us).await,
    }
}

/// Scrapes every target at once.
pub async fn scrape_all(client: &ApiClient, targets: &[MetricsTarget], at_us: i64) -> Vec<Scrape> {
    futures_util::future::join_all(targets.iter().map(|t| scrape(client, t, at_us))).await
}

#[derive(Deserialize)]
struct QueryAnswer {
    status: String,
    #[serde(default)]
    data: Option<QueryData>,
    #[serde(default)]
    error: Option<String>,
}

#[derive(Deserialize)]
struct QueryData {
    #[serde(rename = "resultType")]
    result_type: String,
    result: Vec<VectorItem>,
}

#[derive(Deserialize)]
struct VectorItem {
    metric: std::collections::BTreeMap<String, String>,
    value: (f64, String),
}

/// The samples of `names` as the Prometheus at `base` has them at `time_s` (now when `None`),
/// one [`Scrape`] per `job` label (so the participant's and the mediator's `daml_*` series stay
/// apart), stamped `at_us`.
pub async fn prometheus_samples(
    client: &ApiClient,
    base: &str,
    names: &[&str],
    time_s: Option<f64>,
    at_us: i64,
) -> Result<Vec<Scrape>, String> {
    let query = format!("{{__name__=~\"{}\"}}", names.join("|"));
    let mut url = reqwest::Url::parse(&format!("{}/api/v1/query", base.trim_end_matches('/')))
        .map_err(|e| format!("prometheus URL: {e}"))?;
    url.query_pairs_mut().append_pair("query", &query);
    if let Some(t) = time_s {
        url.query_pairs_mut()
            .append_pair("time", &format!("{t:.3}"));
    }
    let body = client
        .get_whole(
            url.as_str(),
            "application/json",
            None,
            Duration::from_secs(20),
        )
        .await
        .map_err(|e| format!("prometheus ({}): {e}", redact_userinfo(base)))?;
    let answer: QueryAnswer = serde_json::from_slice(&body)
        .map_err(|e| format!("prometheus: not a query answer: {e}"))?;
    if answer.status != "success" {
        return Err(format!(
            "prometheus: {}",
            answer.error.unwrap_or_else(|| answer.status.clone())
        ));
    }
    let data = answer.data.ok_or("prometheus: no data")?;
    if data.result_type != "vector" {
        return Err(format!(
            "prometheus: a {} answer, not a vector",
            data.result_type
        ));
    }
    let mut by_job: std::collections::BTreeMap<String, Vec<Sample>> =
        std::collections::BTreeMap::new();
    for item in data.result {
        let mut metric = item.metric;
        let Some(name) = metric.remove("__name__") else {
            continue;
        };
        let job = metric
            .get("job")
            .cloned()
            .unwrap_or_else(|| "prometheus".to_owned());
        let Some(value) = parse::parse_float(&item.value.1) else {
            continue;
        };
        by_job.entry(job).or_default().push(Sample {
            name,
            labels: metric.into_iter().collect(),
            value,
            timestamp_ms: Some((item.value.0 * 1000.0) as i64),
        });
    }
    Ok(by_job
        .into_iter()
        .map(|(job, samples)| Scrape {
            endpoint: job,
            at_us,
            result: Ok(samples),
        })
        .collect())
}
