//! The API client over real HTTP against small local axum servers: every error shape (scan error
//! body, 404 vs endpoint not served, ledger `JsCantonError`, ledger 400 text/plain, 401/403, 413,
//! timeout, connection and TLS failure, decode), retries, auth header handling, the encoding
//! selector and that the token never leaks into Debug / Display / errors.

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use cantonscope::api::ledger;
use cantonscope::api::scan::{self, UpdatesRequest, ValueEncoding};
use cantonscope::api::validator;
use cantonscope::api::{ApiClient, ApiConfig, ApiError, Secret, TokenSource};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// (request label, Authorization header seen).
type Seen = Arc<Mutex<Vec<(String, Option<String>)>>>;

const TOKEN: &str = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0In0.c2VjcmV0LXNpZ25hdHVyZS12YWx1ZQ";

async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        axum::serve(listener, app).await.expect("serve");
    });
    format!("http://{addr}")
}

fn client_for(url: &str, retries: u32) -> ApiClient {
    ApiClient::new(ApiConfig {
        scan_url: Some(url.to_owned()),
        validator_url: Some(url.to_owned()),
        ledger_url: Some(url.to_owned()),
        token: Some(TokenSource::Literal(Secret::new(TOKEN))),
        connect_timeout: Duration::from_secs(5),
        request_timeout: Duration::from_secs(10),
        retries,
    })
    .expect("client")
}

fn json(status: StatusCode, body: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_owned(),
    )
        .into_response()
}

fn canton_error(code: &str, cause: &str) -> String {
    format!(
        r#"{{"code":"{code}","cause":"{cause}","correlationId":"corr-1","traceId":null,
            "context":{{"participant":"p"}},"resources":[["USER","bob"]],"errorCategory":11,
            "grpcCodeValue":5,"retryInfo":null,"definiteAnswer":false}}"#
    )
}

fn assert_no_token(err: &ApiError) {
    let text = format!("{err} {err:?}");
    assert!(!text.contains(TOKEN), "token leaked: {text}");
    assert!(!text.contains("c2VjcmV0"), "token part leaked: {text}");
}

#[tokio::test]
async fn scan_error_bodies() {
    let app = Router::new()
        .route(
            "/api/scan/v2/updates",
            post(|| async {
                json(
                    StatusCode::BAD_REQUEST,
                    r#"{"error":"page_size must be between 1 and 1000\u001b[31m"}"#,
                )
            }),
        )
        .route(
            "/api/scan/v0/events/{id}",
            get(|| async { json(StatusCode::NOT_FOUND, r#"{"error":"Update not found"}"#) }),
        )
        .route(
            "/api/scan/version",
            get(|| async {
                json(
                    StatusCode::OK,
                    r#"{"version":"0.5.5","commit_ts":"2026-01-09T11:35:30Z"}"#,
                )
            }),
        )
        .route(
            "/api/scan/status",
            get(|| async {
                json(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    r#"{"error":"backfilling, try later"}"#,
                )
            }),
        );
    let url = serve(app).await;
    let c = client_for(&url, 0);

    let err = c
        .send(&scan::updates(&UpdatesRequest::from_begin(0)))
        .await
        .expect_err("400");
    match &err {
        ApiError::Scan {
            endpoint,
            status,
            message,
        } => {
            assert_eq!(*endpoint, "scan POST /v2/updates");
            assert_eq!(*status, 400);
            assert!(message.starts_with("page_size must be"));
        }
        other => panic!("{other:?}"),
    }
    let line = err.to_string();
    assert!(
        !line.contains('\u{1b}'),
        "control chars sanitised: {line:?}"
    );
    assert!(line.contains("HTTP 400") && line.contains("page_size"));
    assert_eq!(err.exit_code(), 1);
    assert_eq!(err.status(), Some(400));
    assert!(!err.is_transient());

    let err = c
        .send(&scan::event("1220ff", &ValueEncoding::CompactJson))
        .await
        .expect_err("404");
    assert!(
        matches!(&err, ApiError::NotFound { message, .. } if message == "Update not found"),
        "{err:?}"
    );
    assert_eq!(err.exit_code(), 1);

    // An unknown route (e.g. an old scan without /v1/holdings/summary) names the version.
    let err = c
        .send(&scan::holdings_summary(&scan::HoldingsSummaryRequest {
            migration_id: 0,
            record_time: "2026-01-01T00:00:00Z".into(),
            record_time_match: Some(scan::RecordTimeMatch::AtOrBefore),
            owner_party_ids: vec!["alice::1220".into()],
        }))
        .await
        .expect_err("route missing");
    assert_eq!(
        err,
        ApiError::EndpointNotServed {
            endpoint: "scan POST /v1/holdings/summary",
            version: Some("0.5.5".into())
        }
    );
    assert_eq!(
        err.to_string(),
        "scan POST /v1/holdings/summary: this node does not serve this endpoint (version 0.5.5)"
    );

    let err = c.send(&scan::status()).await.expect_err("500");
    assert!(matches!(err, ApiError::Scan { status: 500, .. }));
    assert!(err.is_transient());
}

/// An HTML page is never shown: a 403 with a proxy's page reads as the allowlist alone, a 502
/// page as `expected JSON, got text/html` even without a content type; a plain-text 403 keeps
/// its line. `reason()` is the same text without the endpoint (what the network views show).
#[tokio::test]
async fn markup_pages_are_described_never_shown() {
    const PAGE: &str = "<html><body><h1>Bad gateway</h1></body></html>";
    let page = |status: StatusCode, content_type: Option<&'static str>| {
        move || async move {
            let mut response = (status, PAGE).into_response();
            match content_type {
                Some(ct) => {
                    response
                        .headers_mut()
                        .insert(header::CONTENT_TYPE, ct.parse().expect("header"));
                }
                None => {
                    response.headers_mut().remove(header::CONTENT_TYPE);
                }
            }
            response
        }
    };
    let app = Router::new()
        .route(
            "/api/scan/status",
            get(page(
                StatusCode::FORBIDDEN,
                Some("text/html; charset=utf-8"),
            )),
        )
        .route(
            "/api/scan/version",
            get(page(StatusCode::BAD_GATEWAY, None)),
        )
        .route(
            "/api/scan/v0/sv-bft-sequencers",
            get(page(StatusCode::BAD_GATEWAY, Some("text/plain"))),
        )
        .route(
            "/api/scan/v0/scans",
            get(|| async { (StatusCode::FORBIDDEN, "Forbidden").into_response() }),
        );
    let url = serve(app).await;
    let c = client_for(&url, 0);
    let status = c.send(&scan::status()).await.expect_err("403");
    let version = c.send(&scan::version()).await.expect_err("502");
    let sequencers = c.send(&scan::bft_sequencers()).await.expect_err("502");
    let scans = c.send(&scan::scans()).await.expect_err("403");
    for (err, line, reason) in [
        (
            &status,
            "scan GET /status: this scan only answers allowlisted addresses (HTTP 403)",
            "this scan only answers allowlisted addresses (HTTP 403)",
        ),
        (
            &version,
            "scan GET /version: expected JSON, got text/html (HTTP 502)",
            "expected JSON, got text/html (HTTP 502)",
        ),
        (
            &sequencers,
            "scan GET /v0/sv-bft-sequencers: expected JSON, got text/plain (HTTP 502)",
            "expected JSON, got text/plain (HTTP 502)",
        ),
        (
            &scans,
            "scan GET /v0/scans: this scan only answers allowlisted addresses (HTTP 403): Forbidden",
            "this scan only answers allowlisted addresses (HTTP 403): Forbidden",
        ),
    ] {
        assert_eq!(err.to_string(), line, "{err:?}");
        assert_eq!(err.reason(), reason, "{err:?}");
    }
    assert_eq!(version.exit_code(), 1);
    let err = ApiError::Timeout {
        endpoint: "scan GET /status",
    };
    assert_eq!(err.reason(), "request timed out");
}

#[tokio::test]
async fn ledger_error_bodies_and_auth_header() {
    let seen_auth: Seen = Arc::default();
    let record = |path: &'static str, seen: Seen| {
        move |headers: HeaderMap| {
            let seen = Arc::clone(&seen);
            async move {
                let auth = headers
                    .get(header::AUTHORIZATION)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                seen.lock().expect("lock").push((path.to_owned(), auth));
            }
        }
    };
    let s1 = Arc::clone(&seen_auth);
    let s2 = Arc::clone(&seen_auth);
    let s3 = Arc::clone(&seen_auth);
    let app = Router::new()
        .route(
            "/v2/users/{id}",
            any(move |h: HeaderMap| {
                let f = record("delete", Arc::clone(&s1));
                async move {
                    f(h).await;
                    json(
                        StatusCode::NOT_FOUND,
                        &canton_error("USER_NOT_FOUND", "User not found: bob"),
                    )
                }
            }),
        )
        .route(
            "/v2/parties/{p}",
            get(|| async {
                (
                    StatusCode::BAD_REQUEST,
                    [(header::CONTENT_TYPE, "text/plain; charset=UTF-8")],
                    "Invalid value for: query parameter identity-provider-id",
                )
            }),
        )
        .route(
            "/v2/state/ledger-end",
            get(|| async {
                json(
                    StatusCode::UNAUTHORIZED,
                    &canton_error("UNAUTHENTICATED", "The command is missing a JWT token"),
                )
            }),
        )
        .route(
            "/v2/packages/{id}",
            get(|| async {
                json(
                    StatusCode::FORBIDDEN,
                    &canton_error("PERMISSION_DENIED", "no"),
                )
            }),
        )
        .route(
            "/v2/updates/trees",
            post(|| async { (StatusCode::PAYLOAD_TOO_LARGE, "too many elements") }),
        )
        .route(
            "/v2/version",
            get(|| async { json(StatusCode::OK, r#"{"version":"3.6.0","features":{}}"#) }),
        )
        .route(
            "/api/scan/status",
            get(move |h: HeaderMap| {
                let f = record("scan-status", Arc::clone(&s2));
                async move {
                    f(h).await;
                    json(StatusCode::OK, r#"{"not_initialized":{"active":false}}"#)
                }
            }),
        )
        .route(
            "/api/validator/v0/scan-proxy/amulet-rules",
            get(move |h: HeaderMap| {
                let f = record("validator", Arc::clone(&s3));
                async move {
                    f(h).await;
                    json(StatusCode::NOT_FOUND, r#"{"error":"no amulet rules"}"#)
                }
            }),
        );
    let url = serve(app).await;
    let c = client_for(&url, 0);

    let err = c.send(&ledger::delete_user("bob")).await.expect_err("404");
    match &err {
        ApiError::Ledger {
            endpoint,
            status,
            error,
        } => {
            assert_eq!(*endpoint, "ledger DELETE /v2/users/{user-id}");
            assert_eq!(*status, 404);
            assert_eq!(error.code, "USER_NOT_FOUND");
            assert_eq!(error.correlation_id.as_deref(), Some("corr-1"));
            assert_eq!(error.resources, vec![("USER".to_owned(), "bob".to_owned())]);
            assert_eq!(error.error_category, 11);
        }
        other => panic!("{other:?}"),
    }
    assert!(
        err.to_string()
            .contains("USER_NOT_FOUND: User not found: bob")
    );
    assert_no_token(&err);

    let err = c
        .send(&ledger::parties("alice::1220", &[], Some("bad idp")))
        .await
        .expect_err("400");
    assert_eq!(
        err,
        ApiError::LedgerBadRequest {
            endpoint: "ledger GET /v2/parties/{party}",
            message: "Invalid value for: query parameter identity-provider-id".into()
        }
    );
    assert_eq!(err.exit_code(), 1);

    let err = c.send(&ledger::ledger_end()).await.expect_err("401");
    assert!(
        matches!(&err, ApiError::Unauthorized { status: 401, message: Some(m), .. } if m.contains("UNAUTHENTICATED")),
        "{err:?}"
    );
    assert_no_token(&err);
    let err = c.send(&ledger::package("pkg")).await.expect_err("403");
    assert!(matches!(err, ApiError::Unauthorized { status: 403, .. }));
    assert!(err.to_string().contains("forbidden"));

    let err = c
        .send(&ledger::update_trees(
            &ledger::GetUpdatesRequest::for_parties(0, Some(10_000), &[]),
            None,
            None,
        ))
        .await
        .expect_err("413");
    assert_eq!(
        err,
        ApiError::TooLarge {
            endpoint: "ledger POST /v2/updates/trees"
        }
    );

    // A ledger route that is gone (plain 404, not a JsCantonError): endpoint not served.
    let err = c
        .send(&ledger::execute_and_wait(&ledger::ExecuteRequest {
            prepared_transaction: "AA==".into(),
            party_signatures: ledger::PartySignatures::default(),
            deduplication_period: None,
            submission_id: "s".into(),
            user_id: None,
            hashing_scheme_version: "HASHING_SCHEME_VERSION_V2".into(),
            min_ledger_time: None,
            transaction_format: None,
            unknown: serde_json::Map::new(),
        }))
        .await
        .expect_err("404 route");
    assert_eq!(
        err,
        ApiError::EndpointNotServed {
            endpoint: "ledger POST /v2/interactive-submission/executeAndWaitForTransaction",
            version: Some("3.6.0".into())
        }
    );

    let status = c.send(&scan::status()).await.expect("status");
    assert!(matches!(status, scan::NodeStatus::NotInitialized(ref n) if !n.active));
    let err = c
        .send(&validator::amulet_rules())
        .await
        .expect_err("validator 404");
    assert!(matches!(err, ApiError::NotFound { .. }));

    // The bearer token goes only to the ledger.
    let seen = seen_auth.lock().expect("lock").clone();
    let expected = format!("Bearer {TOKEN}");
    for (path, auth) in &seen {
        match path.as_str() {
            "delete" => assert_eq!(auth.as_deref(), Some(expected.as_str())),
            _ => assert_eq!(auth, &None, "{path} must not get the token"),
        }
    }
    assert_eq!(seen.len(), 3);
    let dbg = format!("{c:?}");
    assert!(!dbg.contains(TOKEN), "{dbg}");
}

#[tokio::test]
async fn gets_retry_on_5xx_but_posts_do_not() {
    let hits = Arc::new(AtomicUsize::new(0));
    let post_hits = Arc::new(AtomicUsize::new(0));
    let h = Arc::clone(&hits);
    let p = Arc::clone(&post_hits);
    let app = Router::new()
        .route(
            "/api/scan/v0/sv-bft-sequencers",
            get(move || {
                let n = h.fetch_add(1, Ordering::SeqCst);
                async move {
                    if n < 2 {
                        (StatusCode::BAD_GATEWAY, "upstream down").into_response()
                    } else {
                        json(
                            StatusCode::OK,
                            r#"{"bftSequencers":[{"serialId":1,"id":"SEQ::sv1::1220","p2pUrl":"https://sv1:5010"}]}"#,
                        )
                    }
                }
            }),
        )
        .route(
            "/api/scan/v0/admin/sv/previous-sv-reward-weight",
            post(move || {
                p.fetch_add(1, Ordering::SeqCst);
                async { json(StatusCode::SERVICE_UNAVAILABLE, r#"{"error":"later"}"#) }
            }),
        );
    let url = serve(app).await;
    let c = client_for(&url, 2);
    let seq = c.send(&scan::bft_sequencers()).await.expect("third try");
    assert_eq!(seq.bft_sequencers[0].p2p_url, "https://sv1:5010");
    assert_eq!(hits.load(Ordering::SeqCst), 3);

    let err = c
        .send(&scan::previous_sv_reward_weight(
            &scan::RewardWeightRequest {
                sv_party: "sv1::1220".into(),
                effective_before: None,
            },
        ))
        .await
        .expect_err("503");
    assert!(matches!(err, ApiError::Scan { status: 503, .. }));
    assert_eq!(post_hits.load(Ordering::SeqCst), 1, "POST is not retried");

    // Bounded: after retries the last answer is the error.
    hits.store(0, Ordering::SeqCst);
    let c1 = client_for(&url, 1);
    let err = c1.send(&scan::bft_sequencers()).await.expect_err("2 tries");
    assert!(
        matches!(err, ApiError::Http { status: 502, ref body_snippet, .. } if body_snippet == "upstream down")
    );
    assert_eq!(hits.load(Ordering::SeqCst), 2);
}

/// A GET that timed out has already waited the whole timeout: sending it again would make a
/// scan that never answers look alive for three timeouts (90 s by default) before it is down.
#[tokio::test]
async fn a_timed_out_get_is_not_sent_again() {
    let hits = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&hits);
    let app = Router::new().route(
        "/api/scan/status",
        get(move || {
            seen.fetch_add(1, Ordering::SeqCst);
            async {
                tokio::time::sleep(Duration::from_secs(30)).await;
                "late"
            }
        }),
    );
    let url = serve(app).await;
    let c = ApiClient::new(ApiConfig {
        scan_url: Some(url),
        request_timeout: Duration::from_millis(200),
        retries: 2,
        ..ApiConfig::default()
    })
    .expect("client");
    let err = c.send(&scan::status()).await.expect_err("timeout");
    assert!(matches!(err, ApiError::Timeout { .. }), "{err:?}");
    assert_eq!(hits.load(Ordering::SeqCst), 1, "sent once");
}

#[tokio::test]
async fn timeout_connect_and_tls_failures() {
    let app = Router::new().route(
        "/api/scan/status",
        get(|| async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            "late"
        }),
    );
    let url = serve(app).await;
    let c = ApiClient::new(ApiConfig {
        scan_url: Some(url.clone()),
        request_timeout: Duration::from_millis(200),
        retries: 0,
        ..ApiConfig::default()
    })
    .expect("client");
    let err = c.send(&scan::status()).await.expect_err("timeout");
    assert_eq!(
        err,
        ApiError::Timeout {
            endpoint: "scan GET /status"
        }
    );
    assert_eq!(err.exit_code(), 3);
    assert!(err.is_transient());

    // A closed port. Other tests bind ports concurrently, so a freed port can be taken again
    // before we connect: try a few.
    let mut err = None;
    for _ in 0..5 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        drop(listener);
        let c = client_for(&format!("http://127.0.0.1:{port}"), 0);
        if let Err(e) = c.send(&scan::status()).await
            && matches!(&e, ApiError::Connect { .. })
        {
            err = Some(e);
            break;
        }
    }
    let err = err.expect("a closed port refuses the connection");
    assert!(
        matches!(&err, ApiError::Connect { detail, .. } if detail.starts_with("cannot connect")),
        "{err:?}"
    );
    // The cause, without hyper's wrapper that says nothing more.
    let text = err.to_string();
    assert!(
        text.to_ascii_lowercase().contains("connection refused")
            && !text.contains("client error ("),
        "{text}"
    );
    assert_eq!(err.exit_code(), 3);

    // TLS to a plain-HTTP server fails the handshake.
    let https = url.replacen("http://", "https://", 1);
    let c = client_for(&https, 0);
    let err = c.send(&scan::status()).await.expect_err("tls");
    assert!(matches!(err, ApiError::Connect { .. }), "{err:?}");
    assert_eq!(err.exit_code(), 3);
}

#[tokio::test]
async fn decode_failure_over_http() {
    let app = Router::new().route(
        "/api/scan/v0/validators/validator-faucets",
        get(|| async {
            json(
                StatusCode::OK,
                r#"{"validatorsReceivedFaucets":[{"validator":"v::1","numRoundsCollected":"lots"}]}"#,
            )
        }),
    );
    let url = serve(app).await;
    let c = client_for(&url, 0);
    let err = c
        .send_raw(&scan::validator_faucets(&["v::1".into()]))
        .await
        .expect_err("decode");
    match &err {
        ApiError::Decode {
            endpoint,
            path,
            detail,
        } => {
            assert_eq!(*endpoint, "scan GET /v0/validators/validator-faucets");
            assert_eq!(path, "validatorsReceivedFaucets[0].numRoundsCollected");
            assert!(detail.contains("expected an integer"), "{detail}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(err.exit_code(), 4);
}

#[tokio::test]
async fn request_shape_user_agent_encoding_and_raw_body() {
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let s1 = Arc::clone(&seen);
    let s2 = Arc::clone(&seen);
    let app = Router::new()
        .route(
            "/api/scan/v2/updates",
            post(move |headers: HeaderMap, body: Bytes| {
                let seen = Arc::clone(&s1);
                async move {
                    let ua = headers
                        .get(header::USER_AGENT)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_owned();
                    seen.lock().expect("lock").push(format!("ua={ua}"));
                    seen.lock()
                        .expect("lock")
                        .push(String::from_utf8_lossy(&body).into_owned());
                    json(StatusCode::OK, r#"{"transactions":[],"next":"kept"}"#)
                }
            }),
        )
        .route(
            "/api/scan/v2/updates/hash/{hash}",
            get(move |uri: axum::http::Uri| {
                let seen = Arc::clone(&s2);
                async move {
                    seen.lock().expect("lock").push(uri.to_string());
                    json(StatusCode::NOT_FOUND, r#"{"error":"not indexed"}"#)
                }
            }),
        );
    let url = serve(app).await;
    let c = client_for(&url, 0);
    let resp = c
        .send_raw(&scan::updates(&UpdatesRequest::after(
            100,
            4,
            "2026-01-01T00:00:00Z",
        )))
        .await
        .expect("ok");
    assert_eq!(resp.status, 200);
    assert!(resp.typed.transactions.is_empty());
    assert_eq!(resp.body, br#"{"transactions":[],"next":"kept"}"#);
    assert!(
        resp.pretty_json()
            .expect("json")
            .contains("\"next\": \"kept\"")
    );
    assert_eq!(resp.header("content-type"), Some("application/json"));

    let _ = c
        .send(&scan::update_by_hash("ab/cd", &ValueEncoding::ProtobufJson))
        .await
        .expect_err("404");
    let seen = seen.lock().expect("lock").clone();
    assert_eq!(
        seen[0],
        format!("ua=cantonscope/{}", env!("CARGO_PKG_VERSION"))
    );
    let body: serde_json::Value = serde_json::from_str(&seen[1]).expect("json body");
    assert_eq!(body["page_size"], 100);
    assert_eq!(body["after"]["after_migration_id"], 4);
    assert_eq!(body["contract_value_encoding"], "compact_json");
    assert_eq!(body["daml_value_encoding"], "compact_json");
    assert_eq!(
        seen[2],
        "/api/scan/v2/updates/hash/ab%2Fcd?contract_value_encoding=protobuf_json&daml_value_encoding=protobuf_json"
    );
}

#[tokio::test]
async fn other_scans_share_the_client() {
    let first = serve(Router::new().route(
        "/api/scan/v2/updates/hash/{h}",
        get(|| async { json(StatusCode::NOT_FOUND, r#"{"error":"hash not indexed"}"#) }),
    ))
    .await;
    let second = serve(Router::new().route(
        "/sv2/api/scan/v2/updates/hash/{h}",
        get(|| async {
            json(
                StatusCode::OK,
                r#"{"update_id":"1220x","migration_id":1,"workflow_id":"","record_time":"t",
                   "synchronizer_id":"s","effective_at":"t","root_event_ids":[],"events_by_id":{},
                   "external_transaction_hash":"abc"}"#,
            )
        }),
    ))
    .await;
    let c = client_for(&first, 0);
    let err = c
        .send(&scan::update_by_hash("abc", &ValueEncoding::CompactJson))
        .await
        .expect_err("first scan lacks it");
    assert!(matches!(err, ApiError::NotFound { .. }));
    let other = c.with_scan_url(&format!("{second}/sv2/"));
    assert_eq!(other.scan_url(), Some(format!("{second}/sv2").as_str()));
    let item = other
        .send(&scan::update_by_hash("abc", &ValueEncoding::CompactJson))
        .await
        .expect("second scan has it");
    assert_eq!(
        item.as_transaction()
            .and_then(|t| t.external_transaction_hash.as_deref()),
        Some("abc")
    );
    assert_eq!(c.scan_url(), Some(first.as_str()), "original unchanged");
}

#[tokio::test]
async fn missing_configuration() {
    let c = ApiClient::new(ApiConfig::default()).expect("empty config is fine");
    let err = c.send(&scan::status()).await.expect_err("no url");
    assert!(matches!(err, ApiError::NotConfigured { .. }));
    assert_eq!(err.exit_code(), 2);

    let c = ApiClient::new(ApiConfig {
        ledger_url: Some("http://127.0.0.1:9".into()),
        ..ApiConfig::default()
    })
    .expect("client");
    assert!(!c.has_token());
    let err = c.send(&ledger::ledger_end()).await.expect_err("no token");
    assert!(matches!(&err, ApiError::NotConfigured { what } if what.contains("token")));

    let err = ApiClient::new(ApiConfig {
        scan_url: Some("ftp://example.org".into()),
        ..ApiConfig::default()
    })
    .expect_err("bad scheme");
    assert!(matches!(err, ApiError::NotConfigured { .. }));

    // Token sources fail with a Token error (exit 2) that never includes token text.
    let dir = tempfile::tempdir().expect("tmp");
    let c = ApiClient::new(ApiConfig {
        ledger_url: Some("http://127.0.0.1:9".into()),
        token: Some(TokenSource::File(dir.path().join("missing"))),
        ..ApiConfig::default()
    })
    .expect("client");
    let err = c.send(&ledger::ledger_end()).await.expect_err("no file");
    assert!(matches!(err, ApiError::Token { .. }));
    assert_eq!(err.exit_code(), 2);
}

#[tokio::test]
async fn token_file_and_command_reach_the_ledger() {
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let s = Arc::clone(&seen);
    let app = Router::new().route(
        "/v2/state/ledger-end",
        get(move |headers: HeaderMap| {
            let seen = Arc::clone(&s);
            async move {
                let auth = headers
                    .get(header::AUTHORIZATION)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                seen.lock().expect("lock").push(auth);
                json(StatusCode::OK, r#"{"offset":42}"#)
            }
        }),
    );
    let url = serve(app).await;
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("token");
    std::fs::write(&file, format!("{TOKEN}\n")).expect("write");
    for source in [
        TokenSource::File(file.clone()),
        TokenSource::Command(format!("cat '{}'", file.display())),
    ] {
        let dbg = format!("{source:?}");
        assert!(!dbg.contains(TOKEN));
        let c = ApiClient::new(ApiConfig {
            ledger_url: Some(url.clone()),
            token: Some(source),
            ..ApiConfig::default()
        })
        .expect("client");
        let end = c.send(&ledger::ledger_end()).await.expect("end");
        assert_eq!(end.offset, Some(42));
    }
    let seen = seen.lock().expect("lock").clone();
    assert_eq!(seen, vec![format!("Bearer {TOKEN}"); 2]);
}
