//! How a failed request reads to the user of the explorer, in one place: one line for the
//! status line or a section (`explain`, `explain_scan`, with the request's own words for a 404),
//! or a block of notes with the advice that goes with it (`explain_notes`: the ledger JWT, the
//! `JsCantonError` fields, 413 and 404 advice). Server text is sanitized here too, as everywhere
//! it is drawn. (The headless commands' one stderr line and exit code are `ApiError`'s own:
//! `headless::error_line` and `ApiError::exit_code`.)

use ratatui::style::Style;

use crate::api::ApiError;
use crate::ui::load::Failure;
use crate::ui::safe::{safe_line, sanitize};
use crate::ui::theme::Theme;

/// What to configure for the ledger JWT.
pub const TOKEN_HELP: &str = "The JSON Ledger API needs a JWT: configure --token-file FILE, the \
     CANTONSCOPE_TOKEN environment variable, or token_command = \"…\" in the profile.";

/// How a note is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Ok,
    Warn,
    Err,
    Muted,
    Accent,
}

impl Tone {
    pub fn style(self, theme: &Theme) -> Style {
        match self {
            Tone::Plain => Style::default(),
            Tone::Ok => theme.status_ok,
            Tone::Warn => theme.status_warn,
            Tone::Err => theme.status_err,
            Tone::Muted => theme.muted,
            Tone::Accent => theme.accent,
        }
    }
}

/// One line (wrapped when drawn) of a message block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub text: String,
    pub tone: Tone,
}

impl Note {
    pub fn new(tone: Tone, text: impl Into<String>) -> Self {
        Note {
            text: text.into(),
            tone,
        }
    }
}

/// One line explaining an API failure; `not_found` says what a 404 with the API's error body
/// means for this request.
pub fn explain(e: &ApiError, not_found: &str) -> String {
    match e {
        ApiError::NotFound { message, .. } => {
            format!("{not_found} (server: {message})")
        }
        ApiError::NotConfigured { what } => {
            format!("not configured: {what}; set it in the profile or on the command line")
        }
        ApiError::Connect { .. } | ApiError::Timeout { .. } => {
            format!("{e}; check the URL and that the node is up, then press r to retry")
        }
        _ => e.to_string(),
    }
}

/// One line explaining a failed scan query (server text sanitized): `not_served` words a 404
/// for the whole route (given the node's version when it says), `not_found` a 404 with the
/// API's error body (given its message); a 400 is the scan rejecting the query; anything else
/// reads as the error says.
pub fn explain_scan(
    e: &ApiError,
    not_served: impl FnOnce(Option<&str>) -> String,
    not_found: impl FnOnce(&str) -> String,
) -> String {
    match e {
        ApiError::EndpointNotServed { version, .. } => {
            let v = version.as_deref().map(|v| safe_line(v, 40).into_owned());
            not_served(v.as_deref())
        }
        ApiError::NotFound { message, .. } => not_found(&safe_line(message, 200)),
        ApiError::Scan {
            status: 400,
            message,
            ..
        } => format!(
            "the scan rejected the query (HTTP 400): {}",
            safe_line(message, 200)
        ),
        other => sanitize(&other.to_string()).into_owned(),
    }
}

/// Whether the error means the token is missing or refused.
pub fn is_auth_error(e: &ApiError) -> bool {
    match e {
        ApiError::Unauthorized { .. } | ApiError::Token { .. } => true,
        ApiError::NotConfigured { what } => what.contains("token"),
        _ => false,
    }
}

/// The notes explaining an error of a ledger call. `what` names the action ("deleting user
/// alice"); the 404 of a removed endpoint is explained by `removed_hint` when given.
pub fn explain_notes(e: &ApiError, removed_hint: Option<&str>) -> Vec<Note> {
    let mut notes = Vec::new();
    match e {
        ApiError::NotConfigured { what } => {
            notes.push(Note::new(Tone::Err, format!("not configured: {what}")));
            if what.contains("token") {
                notes.push(Note::new(Tone::Warn, TOKEN_HELP));
            }
        }
        ApiError::Token { detail } => {
            notes.push(Note::new(
                Tone::Err,
                format!("could not obtain the ledger token: {detail}"),
            ));
            notes.push(Note::new(Tone::Warn, TOKEN_HELP));
        }
        ApiError::Unauthorized {
            status, message, ..
        } => {
            if *status == 403 {
                notes.push(Note::new(
                    Tone::Err,
                    "HTTP 403 permission denied: the token lacks the rights for this call",
                ));
            } else {
                notes.push(Note::new(
                    Tone::Err,
                    format!(
                        "HTTP {status} unauthorized: the ledger refused the token (missing, \
                         invalid or expired)"
                    ),
                ));
            }
            if let Some(m) = message {
                notes.push(Note::new(Tone::Muted, format!("server: {m}")));
            }
            notes.push(Note::new(Tone::Warn, TOKEN_HELP));
        }
        ApiError::Ledger { status, error, .. } => {
            notes.push(Note::new(
                Tone::Err,
                format!("HTTP {status} {}: {}", error.code, error.cause),
            ));
            let mut facts = vec![format!("category {}", error.error_category)];
            if let Some(g) = error.grpc_code_value {
                facts.push(format!("gRPC code {g}"));
            }
            if let Some(d) = error.definite_answer {
                facts.push(format!("definite answer {d}"));
            }
            notes.push(Note::new(Tone::Muted, facts.join(" · ")));
            notes.push(Note::new(
                Tone::Muted,
                format!(
                    "correlation id {}",
                    error.correlation_id.as_deref().unwrap_or("-")
                ),
            ));
            if let Some(t) = &error.trace_id {
                notes.push(Note::new(Tone::Muted, format!("trace id {t}")));
            }
            if let Some(r) = &error.retry_info {
                notes.push(Note::new(Tone::Muted, format!("retry {r}")));
            }
            for (k, v) in &error.resources {
                notes.push(Note::new(Tone::Muted, format!("resource {k}: {v}")));
            }
        }
        ApiError::LedgerBadRequest { message, .. } => {
            notes.push(Note::new(
                Tone::Err,
                format!("HTTP 400 invalid value: {message}"),
            ));
        }
        ApiError::TooLarge { .. } => {
            notes.push(Note::new(
                Tone::Err,
                "HTTP 413: more results than the node's list limit (http-list-max-elements-limit)",
            ));
            notes.push(Note::new(
                Tone::Warn,
                "Narrow the range (raise begin, lower end) or set a limit, then try again.",
            ));
        }
        ApiError::EndpointNotServed { version, .. } => {
            let v = version
                .as_deref()
                .map(|v| format!(" (version {v})"))
                .unwrap_or_default();
            notes.push(Note::new(
                Tone::Err,
                format!("HTTP 404: this node does not serve the endpoint{v}"),
            ));
            if let Some(h) = removed_hint {
                notes.push(Note::new(Tone::Warn, h));
            }
        }
        other => notes.push(Note::new(Tone::Err, other.to_string())),
    }
    notes
}

/// The notes explaining a failed request: [`explain_notes`] for an API error, one line for an answer
/// of another kind.
pub fn explain_failure(f: &Failure<'_>, removed_hint: Option<&str>) -> Vec<Note> {
    match f {
        Failure::Api(e) => explain_notes(e, removed_hint),
        Failure::Unexpected(_) => vec![Note::new(Tone::Err, f.to_string())],
    }
}
