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

/// The token itself when `token` is written as an `Authorization` value (`Bearer eyJ…`, the
/// scheme in any case): the client adds the scheme, so a kept one would be sent twice.
fn without_bearer(token: Secret) -> Secret {
    match token.expose().split_once(char::is_whitespace) {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("bearer") => Secret::new(rest),
        _ if token.expose().eq_ignore_ascii_case("bearer") => Secret::new(""),
        _ => token,
    }
}

/// Where the ledger bearer token comes from. Each source may give the token alone or as
/// `Bearer <token>` (an `Authorization` value): the scheme is dropped.
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
                let s = without_bearer(s.clone());
                if s.is_empty() {
                    Err(ApiError::Token {
                        detail: "the configured token is empty".into(),
                    })
                } else {
                    Ok(s)
                }
            }
            TokenSource::File(path) => {
                let text = tokio::fs::read_to_string(path)
                    .await
                    .map_err(|e| ApiError::Token {
                        detail: format!("cannot read token file {}: {e}", path.display()),
                    })?;
                let secret = without_bearer(Secret::new(text));
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

    /// Runs the token command in its own process group. When it does not finish in time, or
    /// the request waiting for it is cancelled, the whole group (the shell and whatever it
    /// started: pipes, background jobs) is killed, and the shell reaped; a command never
    /// outlives its turn, so at most one runs at a time (the cache lock is held meanwhile).
    async fn run_command(&self, cmd: &str) -> Result<Secret, ApiError> {
        use tokio::io::AsyncReadExt as _;
        let mut command = tokio::process::Command::new("sh");
        command
            .arg("-c")
            .arg(cmd)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true);
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn().map_err(|e| ApiError::Token {
            detail: format!("cannot start token command: {e}"),
        })?;
        let mut group = ProcessGroup(child.id());
        let stdout = child.stdout.take();
        let run = async {
            let mut text = Vec::new();
            if let Some(mut stdout) = stdout {
                stdout.read_to_end(&mut text).await?;
            }
            let status = child.wait().await?;
            Ok::<_, std::io::Error>((status, text))
        };
        let outcome = tokio::time::timeout(self.command_timeout, run).await;
        let (status, stdout) = match outcome {
            Ok(Ok(done)) => {
                // Finished: what it left running in the background is its own business.
                group.disarm();
                done
            }
            failed => {
                group.kill();
                let _ = child.start_kill();
                let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
                return Err(ApiError::Token {
                    detail: match failed {
                        Ok(Err(e)) => format!("token command failed: {e}"),
                        _ => format!(
                            "token command did not finish within {} s",
                            self.command_timeout.as_secs_f64()
                        ),
                    },
                });
            }
        };
        if !status.success() {
            return Err(ApiError::Token {
                detail: format!("token command exited with {status}"),
            });
        }
        let text = String::from_utf8(stdout).map_err(|_| ApiError::Token {
            detail: "token command printed non-UTF-8 output".into(),
        })?;
        let secret = without_bearer(Secret::new(text));
        if secret.is_empty() {
            return Err(ApiError::Token {
                detail: "token command printed nothing".into(),
            });
        }
        Ok(secret)
    }
}

/// The process group of a running token command (its shell's pid), killed when dropped unless
/// disarmed: a timed-out or cancelled command takes its children with it.
struct ProcessGroup(Option<u32>);

impl ProcessGroup {
    /// The command finished: nothing to kill.
    fn disarm(&mut self) {
        self.0 = None;
    }

    /// Sends SIGKILL to the whole group (once).
    fn kill(&mut self) {
        if let Some(pgid) = self.0.take() {
            kill_group(pgid);
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `kill -s KILL -- -PGID` through the shell's builtin (no unsafe `killpg` here): every process
/// of the group dies, including the children of a shell that is gone already.
#[cfg(unix)]
fn kill_group(pgid: u32) {
    let _ = std::process::Command::new("sh")
        .arg("-c")
        .arg("kill -s KILL -- \"-$1\" 2>/dev/null")
        .arg("sh")
        .arg(pgid.to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

/// Without process groups only the shell itself is killed (by `kill_on_drop`).
#[cfg(not(unix))]
fn kill_group(_pgid: u32) {}

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

    /// True while the process runs (a zombie waiting for its reaper counts as gone).
    #[cfg(target_os = "linux")]
    fn running(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            !stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
    }

    /// Waits up to 5 s for `path` to hold a line, and returns it.
    #[cfg(target_os = "linux")]
    async fn read_pid(path: &std::path::Path) -> String {
        for _ in 0..100 {
            if let Ok(text) = std::fs::read_to_string(path)
                && text.ends_with('\n')
            {
                return text.trim().to_owned();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("{} never written", path.display());
    }

    /// Waits up to 3 s for the process to be gone.
    #[cfg(target_os = "linux")]
    async fn gone(pid: &str) -> bool {
        for _ in 0..60 {
            if !running(pid) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    }

    /// A command that writes its shell's pid and a background child's pid, then waits for ever
    /// (as `sleep 1000`, or a pipe, would).
    #[cfg(target_os = "linux")]
    fn hanging_command(dir: &std::path::Path) -> (String, std::path::PathBuf, std::path::PathBuf) {
        let (shell, child) = (dir.join("shell.pid"), dir.join("child.pid"));
        let cmd = format!(
            "echo $$ > '{}'; sleep 1000 & echo $! > '{}'; wait",
            shell.display(),
            child.display()
        );
        (cmd, shell, child)
    }

    /// A token command that does not finish in time is killed with everything it started, and
    /// the shell is reaped: nothing is left running.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_timed_out_command_is_killed_with_its_children() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (cmd, shell, child) = hanging_command(dir.path());
        let p = TokenProvider::new(TokenSource::Command(cmd), Duration::from_millis(500));
        let err = p.token().await.expect_err("times out");
        assert!(
            err.to_string().contains("did not finish within 0.5 s"),
            "{err}"
        );
        let (shell, child) = (read_pid(&shell).await, read_pid(&child).await);
        assert!(gone(&child).await, "the command's child {child} still runs");
        assert!(gone(&shell).await, "the shell {shell} still runs");
        assert!(
            !std::path::Path::new(&format!("/proc/{shell}")).exists(),
            "the shell {shell} is not reaped"
        );
    }

    /// A request cancelled while its token command runs (the explorer drops requests that are
    /// no longer wanted) kills the command too; the next one starts only then.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_cancelled_request_kills_its_command() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (cmd, shell, child) = hanging_command(dir.path());
        let p = std::sync::Arc::new(TokenProvider::new(
            TokenSource::Command(cmd),
            Duration::from_secs(600),
        ));
        let task = tokio::spawn({
            let p = std::sync::Arc::clone(&p);
            async move { p.token().await.map(|_| ()) }
        });
        let (shell_pid, child_pid) = (read_pid(&shell).await, read_pid(&child).await);
        assert!(running(&child_pid), "the command runs");
        task.abort();
        let _ = task.await;
        assert!(gone(&child_pid).await, "the command's child still runs");
        assert!(gone(&shell_pid).await, "the shell still runs");
    }

    /// Two requests wanting a token at once run one command, not two side by side.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn one_command_runs_at_a_time() {
        let dir = tempfile::tempdir().expect("tempdir");
        let started = dir.path().join("started");
        let cmd = format!("echo $$ >> '{}'; exec sleep 1000", started.display());
        let p = std::sync::Arc::new(TokenProvider::new(
            TokenSource::Command(cmd),
            Duration::from_millis(800),
        ));
        let calls: Vec<_> = (0..2)
            .map(|_| {
                let p = std::sync::Arc::clone(&p);
                tokio::spawn(async move { p.token().await.map(|_| ()) })
            })
            .collect();
        let first = read_pid(&started).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let lines = std::fs::read_to_string(&started).expect("started");
        assert_eq!(lines.lines().count(), 1, "{lines}");
        for call in calls {
            assert!(call.await.expect("joins").is_err());
        }
        let lines = std::fs::read_to_string(&started).expect("started");
        assert_eq!(
            lines.lines().count(),
            2,
            "the second ran after the first: {lines}"
        );
        for pid in lines.lines() {
            assert!(gone(pid).await, "{pid} ({first} first) still runs");
        }
    }

    /// A token given as an `Authorization` value (`Bearer …`, any case) is the token after the
    /// scheme, from every source; the command's `exp` is read from the token itself.
    #[tokio::test]
    async fn a_leading_bearer_is_dropped() {
        let exp = now_unix() + 3600;
        let jwt = jwt_with(&format!(r#"{{"exp":{exp}}}"#));
        for given in [
            format!("Bearer {jwt}"),
            format!("bearer  {jwt}\n"),
            format!("BEARER\t{jwt}"),
            jwt.clone(),
        ] {
            let literal = TokenProvider::new(
                TokenSource::Literal(Secret::new(given.clone())),
                Duration::from_secs(10),
            );
            assert_eq!(literal.token().await.expect("token").expose(), jwt);
            let dir = tempfile::tempdir().expect("tempdir");
            let file = dir.path().join("jwt");
            std::fs::write(&file, &given).expect("write");
            let from_file = TokenProvider::new(TokenSource::File(file), Duration::from_secs(10));
            assert_eq!(from_file.token().await.expect("token").expose(), jwt);
            let command = TokenProvider::new(
                TokenSource::Command(format!("printf '%s' '{given}'")),
                Duration::from_secs(10),
            );
            assert_eq!(command.token().await.expect("token").expose(), jwt);
            let cached = command.cache.lock().await.as_ref().and_then(|c| c.exp);
            assert_eq!(cached, Some(exp));
        }
        // `Bearer` alone is no token.
        let empty = TokenProvider::new(
            TokenSource::Literal(Secret::new("Bearer ")),
            Duration::from_secs(10),
        );
        assert!(empty.token().await.is_err());
        // Not a scheme: kept as it is.
        assert_eq!(
            without_bearer(Secret::new("Bearerish.x.y")).expose(),
            "Bearerish.x.y"
        );
    }
}
