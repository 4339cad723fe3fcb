//! [`ApiClient`]: one shared `reqwest` client (rustls, gzip, timeouts, user agent) that executes
//! [`Call`]s against the configured scan, validator and ledger nodes, adds the ledger bearer
//! token, retries idempotent GETs with backoff, and turns every failure into an [`ApiError`].
//!
//! Bodies are read chunk by chunk as reqwest hands them over (after gzip decoding) and never
//! beyond the client's cap ([`ApiClient::with_max_response_mib`], 64 MiB by default): a larger
//! answer is aborted mid-read and reported once as [`ApiError::ResponseTooLarge`] (never
//! retried), so neither a gzip bomb nor an endless body can take the process's memory.

use super::auth::{Secret, TokenProvider, TokenSource};
use super::call::{Call, Exchange, Group, Method, RawResponse, ResponseParts, find_header};
use super::error::{ApiError, JsCantonError};
use serde::Deserialize;
use std::sync::Arc;
use std::time::Duration;

/// Bodies larger than this are decoded on a blocking thread.
const BLOCKING_DECODE_BYTES: usize = 256 * 1024;
/// First retry delay; doubles per attempt, capped at [`MAX_BACKOFF`].
const BASE_BACKOFF: Duration = Duration::from_millis(200);
const MAX_BACKOFF: Duration = Duration::from_secs(3);
/// Longest server text kept in an error value.
const MAX_ERROR_TEXT: usize = 2_000;
/// Default cap of a response body after decoding, in MiB ([`ApiClient::with_max_response_mib`]).
pub const DEFAULT_MAX_RESPONSE_MIB: u32 = 64;
/// Most bytes of an error (non-2xx) body read; the rest is dropped unread.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// Client configuration. URLs are bases without the group prefix (`http://host:port`).
#[derive(Debug, Clone)]
pub struct ApiConfig {
    pub scan_url: Option<String>,
    pub validator_url: Option<String>,
    pub ledger_url: Option<String>,
    pub token: Option<TokenSource>,
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    /// Extra attempts for GETs after a transport error or a 5xx answer.
    pub retries: u32,
}

impl Default for ApiConfig {
    fn default() -> Self {
        ApiConfig {
            scan_url: None,
            validator_url: None,
            ledger_url: None,
            token: None,
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            retries: 2,
        }
    }
}

struct Shared {
    http: reqwest::Client,
    token: Option<TokenProvider>,
    retries: u32,
    /// The client's request timeout (the version probe never waits longer).
    request_timeout: Duration,
}

/// The API client. Cheap to clone (shared connection pool and token cache).
#[derive(Clone)]
pub struct ApiClient {
    shared: Arc<Shared>,
    scan_url: Option<Arc<str>>,
    validator_url: Option<Arc<str>>,
    ledger_url: Option<Arc<str>>,
    /// Largest response body accepted, in MiB after gzip decoding.
    max_response_mib: u32,
}

impl std::fmt::Debug for ApiClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiClient")
            .field("scan_url", &self.scan_url.as_deref().map(redact_userinfo))
            .field(
                "validator_url",
                &self.validator_url.as_deref().map(redact_userinfo),
            )
            .field(
                "ledger_url",
                &self.ledger_url.as_deref().map(redact_userinfo),
            )
            .field("token", &self.shared.token.as_ref().map(|_| "***"))
            .field("max_response_mib", &self.max_response_mib)
            .finish()
    }
}

/// A URL with user info cut in two around it: (`scheme://`, `@host/x`), the user info between.
fn around_userinfo(url: &str) -> Option<(&str, &str)> {
    let scheme_end = url.find("://")? + 3;
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let at = rest[..authority_end].rfind('@')?;
    Some((&url[..scheme_end], &rest[at..]))
}

/// `https://user:secret@host/x` → `https://***@host/x`; other URLs unchanged.
pub fn redact_userinfo(url: &str) -> String {
    around_userinfo(url).map_or_else(
        || url.to_owned(),
        |(scheme, at_host)| format!("{scheme}***{at_host}"),
    )
}

/// The URL without its user info: `http://user:pw@host/x` → `http://host/x`.
pub fn without_userinfo(url: &str) -> String {
    around_userinfo(url).map_or_else(
        || url.to_owned(),
        |(scheme, at_host)| format!("{scheme}{}", &at_host[1..]),
    )
}

fn check_url(what: &str, url: Option<String>) -> Result<Option<Arc<str>>, ApiError> {
    let Some(url) = url else { return Ok(None) };
    let trimmed = url.trim().trim_end_matches('/');
    match reqwest::Url::parse(trimmed) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {
            Ok(Some(Arc::from(trimmed)))
        }
        Ok(_) => Err(ApiError::NotConfigured {
            what: format!(
                "{what} must be an http:// or https:// URL, got {}",
                redact_userinfo(trimmed)
            ),
        }),
        Err(e) => Err(ApiError::NotConfigured {
            what: format!(
                "{what} is not a valid URL ({e}): {}",
                redact_userinfo(trimmed)
            ),
        }),
    }
}

/// Text of an error and its sources, joined by `: ` (without repeating identical parts).
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    push_sources(&mut parts, Some(e));
    parts.join(": ")
}

/// Pushes each cause's text once, without hyper's generic wrappers (`client error (Connect)`)
/// that say nothing their cause does not.
fn push_sources(parts: &mut Vec<String>, mut cur: Option<&(dyn std::error::Error + 'static)>) {
    while let Some(err) = cur {
        let s = err.to_string();
        if !s.starts_with("client error (") && !parts.iter().any(|p| p.contains(&s)) {
            parts.push(s);
        }
        cur = err.source();
    }
}

/// The headers of a response, names lowercased, values as text.
fn header_list(resp: &reqwest::Response) -> Vec<(String, String)> {
    resp.headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_ascii_lowercase(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect()
}

/// The `Authorization: Bearer …` header of `token`, marked sensitive (never logged).
pub(super) fn bearer(token: &Secret) -> Result<reqwest::header::HeaderValue, ApiError> {
    let mut value = reqwest::header::HeaderValue::from_str(&format!("Bearer {}", token.expose()))
        .map_err(|_| ApiError::Token {
        detail: "the token contains characters not allowed in a header".into(),
    })?;
    value.set_sensitive(true);
    Ok(value)
}

/// A transport failure: timeout, or connection / TLS / broken body. The detail names the cause
/// chain but not the URL (reqwest's own message repeats it).
pub(super) fn transport_error(endpoint: &'static str, e: &reqwest::Error) -> ApiError {
    if e.is_timeout() {
        return ApiError::Timeout { endpoint };
    }
    let head = if e.is_connect() {
        "cannot connect"
    } else if e.is_body() || e.is_decode() {
        "response body broken"
    } else {
        "request failed"
    };
    let mut parts = vec![head.to_owned()];
    push_sources(&mut parts, std::error::Error::source(e));
    let mut detail = parts.join(": ");
    if let Some(hint) = e.url().and_then(|url| plain_http_hint(url, &detail)) {
        detail.push_str(&hint);
    }
    ApiError::Connect { endpoint, detail }
}

/// A hint when TLS was spoken to a port that answers plain HTTP (rustls reads the HTTP answer
/// as a record of the wrong type): "is it plain http? try http://host:port".
fn plain_http_hint(url: &reqwest::Url, detail: &str) -> Option<String> {
    let plain = detail.contains("InvalidContentType") || detail.contains("corrupt message");
    if !(plain && url.scheme() == "https") {
        return None;
    }
    let host = url.host_str()?;
    let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
    Some(format!(" (is it plain http? try http://{host}{port})"))
}

fn truncate_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX_ERROR_TEXT * 4)]);
    text.chars().take(MAX_ERROR_TEXT).collect()
}

#[derive(Deserialize)]
struct ScanErrorBody {
    error: String,
}

#[derive(Deserialize)]
struct VersionBody {
    #[serde(default)]
    version: Option<String>,
}

impl ApiClient {
    /// Builds the client: validates URLs and sets up the shared HTTP client.
    pub fn new(cfg: ApiConfig) -> Result<ApiClient, ApiError> {
        let scan_url = check_url("scan URL", cfg.scan_url)?;
        let validator_url = check_url("validator URL", cfg.validator_url)?;
        let ledger_url = check_url("ledger URL", cfg.ledger_url)?;
        let http = reqwest::Client::builder()
            .user_agent(concat!("cantonscope/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(cfg.connect_timeout)
            .timeout(cfg.request_timeout)
            .gzip(true)
            .use_rustls_tls()
            .build()
            .map_err(|e| ApiError::Connect {
                endpoint: "client setup",
                detail: error_chain(&e),
            })?;
        let token = cfg
            .token
            .map(|src| TokenProvider::new(src, cfg.request_timeout.max(Duration::from_secs(10))));
        Ok(ApiClient {
            shared: Arc::new(Shared {
                http,
                token,
                retries: cfg.retries,
                request_timeout: cfg.request_timeout,
            }),
            max_response_mib: DEFAULT_MAX_RESPONSE_MIB,
            scan_url,
            validator_url,
            ledger_url,
        })
    }

    /// The same client (connection pool, token) pointed at another scan instance.
    pub fn with_scan_url(&self, url: &str) -> ApiClient {
        let trimmed = url.trim().trim_end_matches('/');
        ApiClient {
            shared: Arc::clone(&self.shared),
            scan_url: Some(Arc::from(trimmed)),
            validator_url: self.validator_url.clone(),
            ledger_url: self.ledger_url.clone(),
            max_response_mib: self.max_response_mib,
        }
    }

    /// The same client with another cap on response bodies: `mib` MiB (at least 1), counted
    /// after gzip decoding ([`DEFAULT_MAX_RESPONSE_MIB`] unless set).
    #[must_use]
    pub fn with_max_response_mib(mut self, mib: u32) -> ApiClient {
        self.max_response_mib = mib.max(1);
        self
    }

    /// The shared HTTP client (the metrics reads use it directly: whole URLs, no group).
    pub(super) fn http(&self) -> &reqwest::Client {
        &self.shared.http
    }

    /// The scan base URL, if configured.
    pub fn scan_url(&self) -> Option<&str> {
        self.scan_url.as_deref()
    }

    /// The validator base URL, if configured.
    pub fn validator_url(&self) -> Option<&str> {
        self.validator_url.as_deref()
    }

    /// The ledger base URL, if configured.
    pub fn ledger_url(&self) -> Option<&str> {
        self.ledger_url.as_deref()
    }

    /// True when a ledger token source is configured.
    pub fn has_token(&self) -> bool {
        self.shared.token.is_some()
    }

    fn base(&self, group: Group) -> Result<&str, ApiError> {
        let (url, what) = match group {
            Group::Scan => (
                &self.scan_url,
                "scan URL (--scan-url, CANTONSCOPE_SCAN_URL)",
            ),
            Group::Validator => (
                &self.validator_url,
                "validator URL (--validator-url, CANTONSCOPE_VALIDATOR_URL)",
            ),
            Group::Ledger => (
                &self.ledger_url,
                "ledger URL (--ledger-url, CANTONSCOPE_LEDGER_URL)",
            ),
        };
        url.as_deref().ok_or_else(|| ApiError::NotConfigured {
            what: format!("no {what}"),
        })
    }

    /// The full URL a call goes to (without the query string).
    pub fn url_of<T>(&self, call: &Call<T>) -> Result<String, ApiError> {
        Ok(format!(
            "{}{}{}",
            self.base(call.group)?,
            call.group.prefix(),
            call.path
        ))
    }

    /// Sends the call and returns the typed decode of the answer.
    pub async fn send<T: Send + 'static>(&self, call: &Call<T>) -> Result<T, ApiError> {
        self.send_raw(call).await.map(|r| r.typed)
    }

    /// Sends the call and returns the exact answer plus its typed decode. A decode failure is an
    /// error ([`ApiError::Decode`]), so a printed body always also decoded.
    /// When the endpoint is not served and the call names a successor, that is sent instead
    /// (when it is not served either, the first answer stands).
    pub async fn send_raw<T: Send + 'static>(
        &self,
        call: &Call<T>,
    ) -> Result<RawResponse<T>, ApiError> {
        match self.send_raw_once(call).await {
            Err(removed @ ApiError::EndpointNotServed { .. }) => match call.fallback() {
                Some(successor) => match self.send_raw_once(successor).await {
                    Err(ApiError::EndpointNotServed { .. }) => Err(removed),
                    other => other,
                },
                None => Err(removed),
            },
            other => other,
        }
    }

    async fn send_raw_once<T: Send + 'static>(
        &self,
        call: &Call<T>,
    ) -> Result<RawResponse<T>, ApiError> {
        let (status, headers, body) = self.execute(call).await?;
        let endpoint = call.endpoint;
        let decode = std::sync::Arc::clone(&call.decode);
        let decoded = if body.len() > BLOCKING_DECODE_BYTES {
            tokio::task::spawn_blocking(move || {
                let parts = ResponseParts {
                    endpoint,
                    status,
                    headers: &headers,
                    body: &body,
                };
                let typed = decode(&parts);
                (typed, headers, body)
            })
            .await
            .map_err(|e| ApiError::Decode {
                endpoint,
                path: ".".into(),
                detail: format!("decoder task failed: {e}"),
            })
            .map(|(typed, headers, body)| typed.map(|t| (t, headers, body)))?
        } else {
            let parts = ResponseParts {
                endpoint,
                status,
                headers: &headers,
                body: &body,
            };
            decode(&parts).map(|t| (t, headers, body))
        };
        let (typed, headers, body) = decoded?;
        Ok(RawResponse {
            status,
            headers,
            body,
            typed,
        })
    }

    /// Sends the call once (no retries) and returns whatever the server answered, 2xx or not
    /// ([`Exchange`]). Errors are only what prevents an answer: connection, TLS, timeout, a
    /// missing URL or token.
    pub async fn exchange<T>(&self, call: &Call<T>) -> Result<Exchange, ApiError> {
        let url = self.url_of(call)?;
        let token = self.token_for(call).await?;
        let req = self.request(call, &url, token.as_ref())?;
        let resp = req
            .send()
            .await
            .map_err(|e| transport_error(call.endpoint, &e))?;
        let status = resp.status().as_u16();
        let headers = header_list(&resp);
        // The same size cap as every other read (a scan of another SV is untrusted).
        let body = self.read_body(resp, call.endpoint, status).await?;
        Ok(Exchange {
            status,
            headers,
            body,
        })
    }

    /// The ledger token a call of the ledger group carries (`None` for the scan and the
    /// validator); an error when no token source is configured or it fails.
    async fn token_for<T>(&self, call: &Call<T>) -> Result<Option<Secret>, ApiError> {
        match call.group {
            Group::Ledger => match &self.shared.token {
                Some(p) => Ok(Some(p.token().await?)),
                None => Err(ApiError::NotConfigured {
                    what: "no ledger token (--token-file, CANTONSCOPE_TOKEN or token_command)"
                        .into(),
                }),
            },
            Group::Scan | Group::Validator => Ok(None),
        }
    }

    /// The request for `call` to `url`: method, query, timeout, JSON body, `Accept`, and the
    /// bearer `token` when there is one (marked sensitive, so it never shows in logs).
    fn request<T>(
        &self,
        call: &Call<T>,
        url: &str,
        token: Option<&Secret>,
    ) -> Result<reqwest::RequestBuilder, ApiError> {
        let mut req = match call.method {
            Method::Get => self.shared.http.get(url),
            Method::Post => self.shared.http.post(url),
            Method::Delete => self.shared.http.delete(url),
        };
        if !call.query.is_empty() {
            req = req.query(&call.query);
        }
        if let Some(t) = call.timeout {
            req = req.timeout(t);
        }
        if let Some(body) = &call.body {
            req = req
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.clone());
        }
        req = req.header(reqwest::header::ACCEPT, "application/json, */*;q=0.5");
        if let Some(token) = token {
            req = req.header(reqwest::header::AUTHORIZATION, bearer(token)?);
        }
        Ok(req)
    }

    /// Runs the HTTP exchange with retries; returns status, headers and body of a 2xx answer.
    async fn execute<T>(
        &self,
        call: &Call<T>,
    ) -> Result<(u16, Vec<(String, String)>, Vec<u8>), ApiError> {
        let url = self.url_of(call)?;
        let token = self.token_for(call).await?;
        let retries = if call.is_idempotent() {
            self.shared.retries
        } else {
            0
        };
        let mut attempt = 0u32;
        loop {
            let req = self.request(call, &url, token.as_ref())?;
            let outcome = match req.send().await {
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let headers = header_list(&resp);
                    self.read_body(resp, call.endpoint, status)
                        .await
                        .map(|body| (status, headers, body))
                }
                Err(e) => Err(transport_error(call.endpoint, &e)),
            };
            let retry = match &outcome {
                Ok((status, _, _)) => (500..=599).contains(status) && *status != 501,
                // Transport failures only: a body over the cap would be just as large again,
                // and a timeout has already waited the whole timeout (again would triple it).
                Err(e) => e.is_transient() && !matches!(e, ApiError::Timeout { .. }),
            };
            if retry && attempt < retries {
                let delay = BASE_BACKOFF
                    .saturating_mul(2u32.saturating_pow(attempt))
                    .min(MAX_BACKOFF);
                tracing::debug!(
                    endpoint = call.endpoint,
                    attempt,
                    "retrying after {delay:?}"
                );
                tokio::time::sleep(delay).await;
                attempt += 1;
                continue;
            }
            let (status, headers, body) = outcome?;
            if (200..=299).contains(&status) {
                return Ok((status, headers, body));
            }
            return Err(self.classify(call, status, &headers, &body).await);
        }
    }

    /// Reads the body of an answer with `status`, chunk by chunk as reqwest decodes it, holding
    /// at most the cap: a 2xx body beyond [`ApiClient::with_max_response_mib`] is aborted as
    /// [`ApiError::ResponseTooLarge`]; an error body is cut at [`MAX_ERROR_BODY`] (only its start
    /// is ever shown).
    pub(super) async fn read_body(
        &self,
        resp: reqwest::Response,
        endpoint: &'static str,
        status: u16,
    ) -> Result<Vec<u8>, ApiError> {
        let limit_mib = self.max_response_mib;
        let cap = usize::try_from(u64::from(limit_mib) * 1024 * 1024).unwrap_or(usize::MAX);
        let (max, cut) = if (200..=299).contains(&status) {
            (cap, false)
        } else {
            (cap.min(MAX_ERROR_BODY), true)
        };
        read_capped(resp, max, cut).await.map_err(|e| match e {
            ReadError::Transport(e) => transport_error(endpoint, &e),
            ReadError::TooLarge => ApiError::ResponseTooLarge {
                endpoint,
                limit_mib,
            },
        })
    }

    /// Turns a non-2xx answer into the matching error ([`classify_answer`]), asking the node
    /// for its version to explain a route it does not serve.
    async fn classify<T>(
        &self,
        call: &Call<T>,
        status: u16,
        headers: &[(String, String)],
        body: &[u8],
    ) -> ApiError {
        match classify_answer(call.endpoint, call.group, status, headers, body) {
            ApiError::EndpointNotServed { endpoint, .. } => ApiError::EndpointNotServed {
                endpoint,
                version: self.node_version(call.group).await,
            },
            error => error,
        }
    }

    /// Best effort: the version the node reports (`/version` of scan / validator, `/v2/version`
    /// of the ledger), to explain a missing endpoint.
    async fn node_version(&self, group: Group) -> Option<String> {
        let base = self.base(group).ok()?;
        let url = match group {
            Group::Scan | Group::Validator => format!("{base}{}/version", group.prefix()),
            Group::Ledger => format!("{base}/v2/version"),
        };
        let timeout = self.shared.request_timeout.min(Duration::from_secs(5));
        let mut req = self.shared.http.get(url).timeout(timeout);
        if group == Group::Ledger
            && let Some(p) = &self.shared.token
            && let Ok(token) = p.token().await
        {
            let mut value =
                reqwest::header::HeaderValue::from_str(&format!("Bearer {}", token.expose()))
                    .ok()?;
            value.set_sensitive(true);
            req = req.header(reqwest::header::AUTHORIZATION, value);
        }
        let resp = req.send().await.ok()?;
        if !resp.status().is_success() {
            return None;
        }
        let bytes = read_capped(resp, MAX_ERROR_BODY, true).await.ok()?;
        let v: VersionBody = serde_json::from_slice(&bytes).ok()?;
        v.version
            .map(|s| s.chars().take(60).collect::<String>())
            .filter(|s| !s.trim().is_empty())
    }
}

/// True when a body is a markup page (a proxy's or a load balancer's HTML error page): it starts
/// with `<`, which no JSON value and hardly any plain-text message does.
fn looks_like_markup(body: &[u8]) -> bool {
    body.iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'<')
}

/// The body of an error answer as a message worth showing: plain text or JSON, never a markup
/// page or another media type (`None` then, and for an empty body).
fn readable_text(media: &str, body: &[u8]) -> Option<String> {
    let readable =
        (media.is_empty() || media == "text/plain" || super::error::is_json_media(media))
            && !looks_like_markup(body);
    let text = truncate_text(body);
    (readable && !text.trim().is_empty()).then_some(text)
}

/// The error a non-2xx answer of `endpoint` (in `group`) stands for, from its status, headers and
/// body alone: the API's error body, a 401/403, a page that is not JSON (`expected JSON, got
/// text/html`), a route the node does not serve (without its version: see
/// [`ApiClient::send`], which asks for it). A markup body is never part of the text.
pub fn classify_answer(
    endpoint: &'static str,
    group: Group,
    status: u16,
    headers: &[(String, String)],
    body: &[u8],
) -> ApiError {
    let canton = || serde_json::from_slice::<JsCantonError>(body).ok();
    let scan_err = || serde_json::from_slice::<ScanErrorBody>(body).ok();
    let media = find_header(headers, "content-type")
        .map(super::error::media_type)
        .unwrap_or_default();
    let api_message = || match group {
        Group::Ledger => canton().map(|e| format!("{}: {}", e.code, e.cause)),
        Group::Scan | Group::Validator => scan_err().map(|e| e.error),
    };
    match status {
        401 | 403 => {
            return ApiError::Unauthorized {
                endpoint,
                status,
                message: api_message().or_else(|| readable_text(&media, body)),
            };
        }
        413 => return ApiError::TooLarge { endpoint },
        _ => {}
    }
    // An answer that is not JSON at all (a proxy's HTML page, say) says so. A 404 keeps its
    // meaning (this node does not serve the route); a plain-text error keeps its message; a
    // markup page without a content type is taken for HTML.
    let not_json = || serde_json::from_slice::<serde::de::IgnoredAny>(body).is_err();
    let other_media =
        !media.is_empty() && !super::error::is_json_media(&media) && media != "text/plain";
    if status != 404 && (other_media || looks_like_markup(body)) && not_json() {
        return ApiError::NotJson {
            endpoint,
            status,
            content_type: if media.is_empty() {
                "text/html".to_owned()
            } else {
                media
            },
        };
    }
    match group {
        Group::Scan | Group::Validator => match (status, scan_err()) {
            (404, Some(e)) => ApiError::NotFound {
                endpoint,
                message: truncate_text(e.error.as_bytes()),
            },
            (404, None) => ApiError::EndpointNotServed {
                endpoint,
                version: None,
            },
            (_, Some(e)) => ApiError::Scan {
                endpoint,
                status,
                message: truncate_text(e.error.as_bytes()),
            },
            (_, None) => ApiError::Http {
                endpoint,
                status,
                body_snippet: truncate_text(body),
            },
        },
        Group::Ledger => match canton() {
            Some(error) => ApiError::Ledger {
                endpoint,
                status,
                error: Box::new(error),
            },
            None if status == 404 => ApiError::EndpointNotServed {
                endpoint,
                version: None,
            },
            None if status == 400 => {
                let is_json =
                    find_header(headers, "content-type").is_some_and(|ct| ct.contains("json"));
                if is_json {
                    ApiError::Http {
                        endpoint,
                        status,
                        body_snippet: truncate_text(body),
                    }
                } else {
                    ApiError::LedgerBadRequest {
                        endpoint,
                        message: truncate_text(body),
                    }
                }
            }
            None => ApiError::Http {
                endpoint,
                status,
                body_snippet: truncate_text(body),
            },
        },
    }
}

/// Why [`read_capped`] stopped.
enum ReadError {
    /// The connection failed or timed out mid-body.
    Transport(reqwest::Error),
    /// The body grew beyond the cap (and the answer was not to be cut).
    TooLarge,
}

/// Reads a body chunk by chunk (after decoding), never holding more than `cap` bytes: beyond
/// it the read stops, with the first `cap` bytes when `cut`, else with [`ReadError::TooLarge`].
/// Dropping the response mid-body closes the connection.
async fn read_capped(
    mut resp: reqwest::Response,
    cap: usize,
    cut: bool,
) -> Result<Vec<u8>, ReadError> {
    // A declared length is exact for an unencoded body (reqwest drops it when it decodes gzip).
    let declared = resp.content_length().and_then(|n| usize::try_from(n).ok());
    if !cut && declared.is_some_and(|n| n > cap) {
        return Err(ReadError::TooLarge);
    }
    let mut body = Vec::with_capacity(declared.unwrap_or(0).min(cap));
    while let Some(chunk) = resp.chunk().await.map_err(ReadError::Transport)? {
        let room = cap - body.len();
        if chunk.len() > room {
            if cut {
                body.extend_from_slice(&chunk[..room]);
                break;
            }
            return Err(ReadError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
