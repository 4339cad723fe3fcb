//! Reaching the server: the URL (redacted in every message), TLS on rustls/ring, and what a
//! driver error says.

use super::{Arc, Client, Duration, FromStr, Host, NoTls, SqlState, SslMode, StoreError};

/// How long connecting may take.
pub(super) const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A PostgreSQL URL with its password replaced (in the user info and in a `password=`
/// parameter), for every message.
pub fn redact_url(url: &str) -> String {
    let redacted = crate::api::redact_userinfo(url);
    let Some((base, query)) = redacted.split_once('?') else {
        return redacted;
    };
    let params: Vec<String> = query
        .split('&')
        .map(|p| match p.split_once('=') {
            Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
            _ => p.to_owned(),
        })
        .collect();
    format!("{base}?{}", params.join("&"))
}

/// How to connect: the driver's configuration, the TLS decision and what to scrub.
#[derive(Clone)]
pub(super) struct Target {
    pub(super) config: postgres::Config,
    /// Reach the server with rustls (`false`: plain, a local server).
    pub(super) tls: bool,
    /// Extra roots (`sslrootcert`).
    pub(super) root_cert: Option<String>,
    /// The password as written and as decoded, scrubbed from every message.
    pub(super) secrets: Vec<String>,
    /// The URL as messages name it.
    pub(super) shown: String,
}

impl Target {
    pub(super) fn parse(url: &str) -> Result<Target, StoreError> {
        let shown = redact_url(url);
        let mut secrets = Vec::new();
        // The password as it is written in the URL (user info, or a parameter).
        if let Some(rest) = url.split_once("://").map(|(_, r)| r) {
            let authority = rest.split(['/', '?']).next().unwrap_or_default();
            if let Some((userinfo, _)) = authority.rsplit_once('@')
                && let Some((_, password)) = userinfo.split_once(':')
                && !password.is_empty()
            {
                secrets.push(password.to_owned());
            }
        }
        // `sslrootcert` (libpq's) is read here; `verify-ca` / `verify-full` are what rustls
        // always does, so they read as `require`.
        let mut root_cert = None;
        let mut kept = Vec::new();
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        for param in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = param.split_once('=').unwrap_or((param, ""));
            match key {
                "sslrootcert" => root_cert = Some(percent_decode(value)),
                "sslmode" if matches!(value, "verify-ca" | "verify-full") => {
                    kept.push("sslmode=require".to_owned());
                }
                "password" => {
                    secrets.push(value.to_owned());
                    kept.push(param.to_owned());
                }
                _ => kept.push(param.to_owned()),
            }
        }
        let cleaned = if kept.is_empty() {
            base.to_owned()
        } else {
            format!("{base}?{}", kept.join("&"))
        };
        let mut config = postgres::Config::from_str(&cleaned).map_err(|e| StoreError::Engine {
            path: shown.clone(),
            detail: format!(
                "not a PostgreSQL URL I can read: {}",
                scrub(&e.to_string(), &secrets)
            ),
        })?;
        if let Some(password) = config.get_password() {
            let decoded = String::from_utf8_lossy(password).into_owned();
            if !decoded.is_empty() {
                secrets.push(decoded);
            }
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        config.notice_callback(|_| {});
        let local = config.get_hosts().iter().all(|h| match h {
            Host::Unix(_) => true,
            Host::Tcp(name) => matches!(name.as_str(), "localhost" | "127.0.0.1" | "::1"),
        });
        let tls = match config.get_ssl_mode() {
            SslMode::Disable => false,
            SslMode::Require => true,
            _ => !local,
        };
        Ok(Target {
            config,
            tls,
            root_cert,
            secrets,
            shown,
        })
    }

    pub(super) fn connect(&self, application_name: &str) -> Result<Client, StoreError> {
        let mut config = self.config.clone();
        config.application_name(application_name);
        let connected = if self.tls {
            let tls = tokio_postgres_rustls::MakeRustlsConnect::new(self.tls_config()?);
            config.connect(tls)
        } else {
            config.connect(NoTls)
        };
        let mut client = connected.map_err(|e| self.error(&e))?;
        // The index's queries read a few pages each, but the planner's estimates of a large
        // index often pass `jit_above_cost`, and compiling a query took 80-135 ms more than
        // running it (10 M updates: a two-term first page 130-150 ms with JIT, 20 ms
        // without). Best effort: a server without the setting (before 11) is used as it is.
        let _ = client.batch_execute("SET jit = off");
        Ok(client)
    }

    /// Asks the server to cancel what the connection of `token` runs now (over TLS when the
    /// connection is): its statement fails with "canceling statement due to user request".
    pub(super) fn cancel(&self, token: &postgres::CancelToken) -> Result<(), StoreError> {
        let sent = if self.tls {
            token.cancel_query(tokio_postgres_rustls::MakeRustlsConnect::new(
                self.tls_config()?,
            ))
        } else {
            token.cancel_query(NoTls)
        };
        sent.map_err(|e| self.error(&e))
    }

    fn tls_config(&self) -> Result<rustls::ClientConfig, StoreError> {
        let mut roots = rustls::RootCertStore::empty();
        for cert in rustls_native_certs::load_native_certs().certs {
            let _ = roots.add(cert);
        }
        if let Some(path) = &self.root_cert {
            use rustls::pki_types::CertificateDer;
            use rustls::pki_types::pem::PemObject;
            let certs = CertificateDer::pem_file_iter(path).map_err(|e| StoreError::Engine {
                path: self.shown.clone(),
                detail: format!("cannot read sslrootcert {path}: {e}"),
            })?;
            for cert in certs {
                let cert = cert.map_err(|e| StoreError::Engine {
                    path: self.shown.clone(),
                    detail: format!("sslrootcert {path}: {e}"),
                })?;
                roots.add(cert).map_err(|e| StoreError::Engine {
                    path: self.shown.clone(),
                    detail: format!("sslrootcert {path}: {e}"),
                })?;
            }
        }
        rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map(|b| b.with_root_certificates(roots).with_no_client_auth())
        .map_err(|e| StoreError::Engine {
            path: self.shown.clone(),
            detail: format!("TLS: {e}"),
        })
    }

    /// A driver error as a store error: the server gone is [`StoreError::Unreachable`], its
    /// disk full [`StoreError::Full`].
    pub(super) fn error(&self, e: &postgres::Error) -> StoreError {
        let detail = scrub(&describe(e), &self.secrets);
        if is_connection(e) {
            StoreError::Unreachable {
                path: self.shown.clone(),
                detail,
            }
        } else if e.code() == Some(&SqlState::DISK_FULL) {
            // The server's disk (SQLSTATE 53100): what was committed is kept.
            StoreError::Full {
                path: self.shown.clone(),
                detail,
            }
        } else {
            StoreError::Engine {
                path: self.shown.clone(),
                detail,
            }
        }
    }
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `text` with every secret replaced.
pub(super) fn scrub(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_owned();
    for secret in secrets.iter().filter(|s| !s.is_empty()) {
        out = out.replace(secret.as_str(), "***");
    }
    out
}

/// The server's own words for a database error; the driver's (with its causes) otherwise.
fn describe(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        let mut text = format!("{}: {}", db.severity(), db.message());
        if let Some(detail) = db.detail() {
            text.push_str(&format!(" ({detail})"));
        }
        return text;
    }
    // The driver's words, then its causes ("error connecting to server: Connection refused").
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    text
}

/// Whether the error is the connection lost or refused (the server down or restarting).
fn is_connection(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    if let Some(code) = e.code() {
        return code.code().starts_with("08")
            || *code == SqlState::ADMIN_SHUTDOWN
            || *code == SqlState::CRASH_SHUTDOWN
            || *code == SqlState::CANNOT_CONNECT_NOW;
    }
    if e.as_db_error().is_some() {
        return false;
    }
    let text = e.to_string();
    [
        "error connecting",
        "error communicating",
        "connection closed",
        "timeout",
        "unexpected EOF",
    ]
    .iter()
    .any(|p| text.contains(p))
}

pub(super) fn closed(target: &Target) -> StoreError {
    StoreError::Unreachable {
        path: target.shown.clone(),
        detail: "the connection is closed".to_owned(),
    }
}

pub(super) fn truncate(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// Why a step failed: the driver, or the store's own verdict (a prefix too short, history
/// rewritten).
pub(super) enum Fail {
    Pg(postgres::Error),
    Store(StoreError),
    /// Rows not sent (a binary COPY's data), the reason.
    Send(String),
}

impl From<postgres::Error> for Fail {
    fn from(e: postgres::Error) -> Self {
        Fail::Pg(e)
    }
}

impl Target {
    pub(super) fn fail(&self, f: Fail) -> StoreError {
        match f {
            Fail::Pg(e) => self.error(&e),
            Fail::Store(e) => e,
            Fail::Send(detail) => StoreError::Engine {
                path: self.shown.clone(),
                detail: scrub(&detail, &self.secrets),
            },
        }
    }
}
