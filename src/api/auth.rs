//! Ledger authentication: the [`Secret`] newtype (never printed), [`TokenSource`] (literal, file,
//! command) and the cache that runs a token command once and keeps its JWT until shortly before
//! its `exp`.

use super::error::ApiError;
use base64::Engine as _;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Refresh a cached command token this many seconds before its `exp`.
const REFRESH_MARGIN_SECS: i64 = 30;

/// A secret string (a bearer token). `Debug` and `Display` print `***`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value (surrounding whitespace is trimmed).
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into().trim().to_owned())
    }

    /// The secret value. Call only to put it on the wire.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl From<String> for Secret {
    fn from(s: String) -> Self {
        Secret::new(s)
    }
}

impl From<&str> for Secret {
    fn from(s: &str) -> Self {
        Secret::new(s)
    }
}

/// Where the ledger bearer token comes from.
#[derive(Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// A token given directly (e.g. `CANTONSCOPE_TOKEN`).
    Literal(Secret),
    /// A file holding the token (`--token-file`); read on every call, so rotation is picked up.
    File(PathBuf),
    /// A shell command printing the token (`token_command`); run once via `sh -c` and cached
    /// until 30 s before the JWT's `exp` (for ever if the token has no `exp`).
    Command(String),
}

impl fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenSource::Literal(_) => f.write_str("Literal(***)"),
            TokenSource::File(p) => f.debug_tuple("File").field(p).finish(),
            // The command line may embed credentials: do not print it.
            TokenSource::Command(_) => f.write_str("Command(***)"),
        }
    }
}

/// The `exp` claim of a JWT, read without verifying the signature.
pub fn jwt_exp(token: &str) -> Option<i64> {
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    match claims.get("exp")? {
        serde_json::Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f.floor() as i64)),
        _ => None,
    }
}

fn now_unix() -> i64 {
    chrono::Utc::now().timestamp()
}

#[derive(Clone)]
struct Cached {
    token: Secret,
    exp: Option<i64>,
}

/// Resolves a [`TokenSource`] to a token, caching command output.
pub(crate) struct TokenProvider {
    source: TokenSource,
    cache: tokio::sync::Mutex<Option<Cached>>,
    command_timeout: Duration,
}

impl TokenProvider {
    pub(crate) fn new(source: TokenSource, command_timeout: Duration) -> Self {
        TokenProvider {
            source,
            cache: tokio::sync::Mutex::new(None),
            command_timeout,
        }
    }

    /// The current token.
    pub(crate) async fn token(&self) -> Result<Secret, ApiError> {
        match &self.source {
            TokenSource::Literal(s) => {
                if s.is_empty() {
                    Err(ApiError::Token {
                        detail: "the configured token is empty".into(),
                    })
                } else {
                    Ok(s.clone())
                }
            }
            TokenSource::File(path) => {
                let text = tokio::fs::read_to_string(path)
                    .await
                    .map_err(|e| ApiError::Token {
                        detail: format!("cannot read token file {}: {e}", path.display()),
                    })?;
                let secret = Secret::new(text);
                if secret.is_empty() {
                    return Err(ApiError::Token {
                        detail: format!("token file {} is empty", path.display()),
                    });
                }
                Ok(secret)
            }
            TokenSource::Command(cmd) => {
                let mut guard = self.cache.lock().await;
                if let Some(c) = guard.as_ref() {
                    let fresh = c
                        .exp
                        .is_none_or(|exp| now_unix() < exp - REFRESH_MARGIN_SECS);
                    if fresh {
                        return Ok(c.token.clone());
                    }
                }
                let token = self.run_command(cmd).await?;
                let exp = jwt_exp(token.expose());
                *guard = Some(Cached {
                    token: token.clone(),
                    exp,
                });
                Ok(token)
            }
        }
    }

    async fn run_command(&self, cmd: &str) -> Result<Secret, ApiError> {
        let child = tokio::process::Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ApiError::Token {
                detail: format!("cannot start token command: {e}"),
            })?;
        let output = tokio::time::timeout(self.command_timeout, child.wait_with_output())
            .await
            .map_err(|_| ApiError::Token {
                detail: format!(
                    "token command did not finish within {} s",
                    self.command_timeout.as_secs()
                ),
            })?
            .map_err(|e| ApiError::Token {
                detail: format!("token command failed: {e}"),
            })?;
        if !output.status.success() {
            return Err(ApiError::Token {
                detail: format!("token command exited with {}", output.status),
            });
        }
        let text = String::from_utf8(output.stdout).map_err(|_| ApiError::Token {
            detail: "token command printed non-UTF-8 output".into(),
        })?;
        let secret = Secret::new(text);
        if secret.is_empty() {
            return Err(ApiError::Token {
                detail: "token command printed nothing".into(),
            });
        }
        Ok(secret)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jwt_with(payload: &str) -> String {
        let enc = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        format!(
            "{}.{}.sig",
            enc.encode(r#"{"alg":"HS256","typ":"JWT"}"#),
            enc.encode(payload)
        )
    }

    #[test]
    fn exp_is_read_from_payload() {
        assert_eq!(
            jwt_exp(&jwt_with(r#"{"sub":"u","exp":1700000000}"#)),
            Some(1_700_000_000)
        );
        assert_eq!(jwt_exp(&jwt_with(r#"{"sub":"u"}"#)), None);
        assert_eq!(jwt_exp("not-a-jwt"), None);
    }

    #[test]
    fn secret_never_prints() {
        let s = Secret::new("  eyJhbGciOi.secret.value \n");
        assert_eq!(format!("{s:?} {s}"), "*** ***");
        assert_eq!(s.expose(), "eyJhbGciOi.secret.value");
        let src = TokenSource::Literal(s);
        assert!(!format!("{src:?}").contains("secret"));
        let cmd = TokenSource::Command("echo hunter2".into());
        assert!(!format!("{cmd:?}").contains("hunter2"));
    }

    /// The token command runs again only when the token is near expiry: a token valid for an
    /// hour is fetched once for two calls; one expiring in 10 s (inside the 30 s refresh margin)
    /// is fetched again on every call.
    #[tokio::test]
    async fn command_reruns_only_when_token_near_expiry() {
        for (valid_for, runs_for_two_calls) in [(3600, 1), (10, 2)] {
            let dir = tempfile::tempdir().expect("tempdir");
            let counter = dir.path().join("count");
            let exp = now_unix() + valid_for;
            let token = jwt_with(&format!(r#"{{"exp":{exp}}}"#));
            let cmd = format!("echo x >> '{}'; echo '{token}'", counter.display());
            let p = TokenProvider::new(TokenSource::Command(cmd), Duration::from_secs(10));
            assert_eq!(p.token().await.expect("token").expose(), token);
            assert_eq!(p.token().await.expect("token").expose(), token);
            let runs = std::fs::read_to_string(&counter).expect("count file");
            assert_eq!(
                runs.lines().count(),
                runs_for_two_calls,
                "valid for {valid_for} s"
            );
        }
    }

    #[tokio::test]
    async fn failing_command_is_a_token_error_without_output() {
        let p = TokenProvider::new(
            TokenSource::Command("echo topsecret; exit 3".into()),
            Duration::from_secs(10),
        );
        let err = p.token().await.expect_err("fails");
        assert!(matches!(err, ApiError::Token { .. }));
        assert!(!err.to_string().contains("topsecret"));
        assert_eq!(err.exit_code(), 2);
    }
}
