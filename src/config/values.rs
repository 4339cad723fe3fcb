//! Typed config values shared by the config file, the environment and the command line: durations
//! (`"2s"`, `"500ms"`, `"1m30s"`), base URLs, the display time zone and the history start point.
//! Each parses from a string with a message fit for a usage or config error.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer};

/// Parse a humantime-like duration: one or more `<number><unit>` parts, units `ms`, `s`, `m`, `h`
/// (also `d`), optionally separated by spaces: `"2s"`, `"500ms"`, `"1m"`, `"1m30s"`, `"1.5s"`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("empty duration (expected e.g. \"2s\", \"500ms\", \"1m\")".to_owned());
    }
    let mut total = Duration::ZERO;
    let mut rest = trimmed;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number = &rest[..number_len];
        if number.is_empty() {
            return Err(format!(
                "invalid duration {trimmed:?}: expected a number before {:?}",
                rest.chars().next().unwrap_or(' ')
            ));
        }
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        rest = rest[unit_len..].trim_start();
        let unit_secs = match unit {
            "ms" | "msec" | "millis" => 0.001,
            "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
            "m" | "min" | "mins" | "minute" | "minutes" => 60.0,
            "h" | "hr" | "hour" | "hours" => 3600.0,
            "d" | "day" | "days" => 86_400.0,
            "" => {
                return Err(format!(
                    "invalid duration {trimmed:?}: {number} has no unit (use ms, s, m, h or d)"
                ));
            }
            other => {
                return Err(format!(
                    "invalid duration {trimmed:?}: unknown unit {other:?} (use ms, s, m, h or d)"
                ));
            }
        };
        let value: f64 = number
            .parse()
            .map_err(|_| format!("invalid duration {trimmed:?}: {number:?} is not a number"))?;
        let part = Duration::try_from_secs_f64(value * unit_secs)
            .map_err(|_| format!("invalid duration {trimmed:?}: out of range"))?;
        total = total
            .checked_add(part)
            .ok_or_else(|| format!("invalid duration {trimmed:?}: out of range"))?;
    }
    Ok(total)
}

/// Parse a polling interval: a [`parse_duration`] of at least [`super::MIN_REFRESH`].
pub fn parse_refresh(text: &str) -> Result<Duration, String> {
    let refresh = parse_duration(text)?;
    if refresh < super::MIN_REFRESH {
        return Err(format!(
            "refresh interval {} is too short (at least {})",
            format_duration(refresh),
            format_duration(super::MIN_REFRESH)
        ));
    }
    Ok(refresh)
}

/// Format a duration the way [`parse_duration`] reads it (`"2s"`, `"500ms"`, `"1m30s"`).
pub fn format_duration(duration: Duration) -> String {
    let mut millis = duration.as_millis();
    if millis == 0 {
        return "0s".to_owned();
    }
    let mut out = String::new();
    for (unit, size) in [("h", 3_600_000u128), ("m", 60_000), ("s", 1_000), ("ms", 1)] {
        if millis >= size {
            out.push_str(&format!("{}{unit}", millis / size));
            millis %= size;
        }
    }
    out
}

/// Deserialize a duration string (used for `refresh`).
pub(crate) fn deserialize_duration<'de, D>(deserializer: D) -> Result<Option<Duration>, D::Error>
where
    D: Deserializer<'de>,
{
    let text = String::deserialize(deserializer)?;
    parse_duration(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

/// A base URL of one API group: `http://` or `https://`, a host, an optional path prefix; stored
/// without a trailing slash (the client appends `/api/scan/...`, `/api/validator/...`, `/v2/...`).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct BaseUrl(String);

impl BaseUrl {
    /// The URL as text, without a trailing slash.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The URL as an owned string.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl FromStr for BaseUrl {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let trimmed = text.trim();
        // Named in errors without its user info (a basic-auth password).
        let shown = crate::api::redact_userinfo(trimmed);
        // The scheme is case-insensitive (RFC 3986); it is kept in lower case.
        let scheme = ["http://", "https://"].into_iter().find(|scheme| {
            trimmed
                .get(..scheme.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(scheme))
        });
        let Some(scheme) = scheme else {
            return Err(format!(
                "invalid URL {shown:?}: must start with http:// or https://"
            ));
        };
        let rest = &trimmed[scheme.len()..];
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        if host.is_empty() {
            return Err(format!("invalid URL {shown:?}: no host"));
        }
        if trimmed.contains(['?', '#']) {
            return Err(format!(
                "invalid URL {shown:?}: a base URL takes no query or fragment"
            ));
        }
        if trimmed.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!("invalid URL {shown:?}: contains whitespace"));
        }
        let base = format!("{scheme}{}", rest.trim_end_matches('/'));
        // The client appends `/api/scan/…` (`/api/validator/…`) itself.
        for api in ["/api/scan", "/api/validator"] {
            let lower = base.to_ascii_lowercase();
            if lower.ends_with(api) {
                return Err(format!(
                    "invalid URL {shown:?}: the base URL is expected, without {api} (cantonscope adds it): try {}",
                    crate::api::redact_userinfo(&base[..base.len() - api.len()])
                ));
            }
        }
        Ok(BaseUrl(base))
    }
}

impl fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for BaseUrl {
    /// The URL with its user info (a basic-auth password) as `***`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&crate::api::redact_userinfo(&self.0), f)
    }
}

impl<'de> Deserialize<'de> for BaseUrl {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

pub use crate::model::findings::NotifyMode;

/// How record times are shown: in UTC (the default) or in the local time zone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeZone {
    /// Show times in UTC.
    #[default]
    Utc,
    /// Show times in the machine's local time zone.
    Local,
}

impl FromStr for TimeZone {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "utc" => Ok(TimeZone::Utc),
            "local" => Ok(TimeZone::Local),
            other => Err(format!(
                "invalid time zone {other:?}: expected \"utc\" or \"local\""
            )),
        }
    }
}

/// Where the update history starts when the explorer opens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum HistoryStart {
    /// Ten minutes before the newest update (the default): recent activity at once.
    #[default]
    Recent,
    /// The beginning of the ledger history.
    Begin,
    /// The current head: only updates that arrive from now on.
    Now,
    /// A given record time.
    At(DateTime<Utc>),
}

impl FromStr for HistoryStart {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let trimmed = text.trim();
        match trimmed.to_ascii_lowercase().as_str() {
            "begin" => Ok(HistoryStart::Begin),
            "now" => Ok(HistoryStart::Now),
            "recent" => Ok(HistoryStart::Recent),
            // A span back from now (`-2h`, as `:time` takes it) is read now.
            _ if trimmed.starts_with('-') => {
                crate::model::when::parse_when(trimmed, Utc::now().timestamp_micros(), false)
                    .and_then(DateTime::<Utc>::from_timestamp_micros)
                    .map(HistoryStart::At)
                    .ok_or_else(|| {
                        format!(
                            "invalid start {trimmed:?}: a span back from now is -2h, -30m or -1d"
                        )
                    })
            }
            _ => {
                let at = crate::model::format::parse_time_micros(trimmed)
                    .and_then(DateTime::<Utc>::from_timestamp_micros)
                    .ok_or_else(|| {
                        format!(
                            "invalid start {trimmed:?}: expected begin, now, recent (the last 10 \
                             minutes), an RFC 3339 time such as 2026-01-31T12:00:00Z, or a span \
                             back from now such as -2h"
                        )
                    })?;
                // A start in the future would only wait, silently, for time to pass.
                let now = Utc::now();
                if at > now + chrono::Duration::minutes(1) {
                    return Err(format!(
                        "invalid start {trimmed:?}: it is in the future (it is {} now); use now \
                         for only new updates",
                        now.format("%Y-%m-%dT%H:%M:%SZ")
                    ));
                }
                Ok(HistoryStart::At(at))
            }
        }
    }
}

impl fmt::Display for HistoryStart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HistoryStart::Recent => f.write_str("recent"),
            HistoryStart::Begin => f.write_str("begin"),
            HistoryStart::Now => f.write_str("now"),
            HistoryStart::At(time) => f.write_str(&time.to_rfc3339()),
        }
    }
}

impl<'de> Deserialize<'de> for HistoryStart {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Check a `log_level` value: a level (`off`, `error`, `warn`, `info`, `debug`, `trace`) or a
/// `tracing` filter directive list such as `"info,cantonscope::api=debug"`.
pub fn validate_log_level(text: &str) -> Result<String, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("empty log level".to_owned());
    }
    // A bare word is a target name to EnvFilter ("loud" would mean "everything from target
    // loud"); a typo in a level must not pass, so bare words must be levels.
    const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];
    for directive in trimmed.split(',').map(str::trim) {
        let bare = !directive.contains(['=', '[']);
        if bare && !LEVELS.contains(&directive.to_ascii_lowercase().as_str()) {
            return Err(format!(
                "invalid log level {directive:?}: expected off, error, warn, info, debug, trace \
                 or target=level"
            ));
        }
    }
    tracing_subscriber::EnvFilter::builder()
        .parse(trimmed)
        .map(|_| trimmed.to_owned())
        .map_err(|err| format!("invalid log level {trimmed:?}: {err}"))
}

/// An index location (`--index`, `$CANTONSCOPE_INDEX`, the profile's `index`): a postgres://
/// URL, or the path of an SQLite file (a directory is refused, saying what is expected, before
/// SQLite reports a "disk I/O error").
pub fn index_location(text: &str) -> Result<String, String> {
    let postgres = text.starts_with("postgres://") || text.starts_with("postgresql://");
    if !postgres && std::path::Path::new(text).is_dir() {
        return Err(format!(
            "{text} is a directory: the index is an SQLite file path (such as {}) or a postgres:// URL",
            std::path::Path::new(text).join("index.sqlite").display()
        ));
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration(" 1m 30s "), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("2").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_duration("2 fortnights").is_err());
        assert!(parse_duration("").is_err());
        assert_eq!(format_duration(Duration::from_secs(90)), "1m30s");
        assert_eq!(format_duration(Duration::from_millis(500)), "500ms");
    }

    #[test]
    fn urls() {
        let url: BaseUrl = "http://127.0.0.1:5000/".parse().expect("valid");
        assert_eq!(url.as_str(), "http://127.0.0.1:5000");
        let url: BaseUrl = "https://scan.example.com/sv2".parse().expect("valid");
        assert_eq!(url.as_str(), "https://scan.example.com/sv2");
        assert!("scan.example.com".parse::<BaseUrl>().is_err());
        let err = "https://scan.example.com/sv2/api/scan/"
            .parse::<BaseUrl>()
            .unwrap_err();
        assert!(
            err.contains("the base URL is expected, without /api/scan")
                && err.ends_with("try https://scan.example.com/sv2"),
            "{err}"
        );
        assert_eq!(
            "HTTPS://Scan.example.com/"
                .parse::<BaseUrl>()
                .map(|u| u.to_string()),
            Ok("https://Scan.example.com".to_owned())
        );
        assert!("http://".parse::<BaseUrl>().is_err());
        assert!("http://a b".parse::<BaseUrl>().is_err());
        assert!("http://a/?x=1".parse::<BaseUrl>().is_err());
    }

    #[test]
    fn starts() {
        assert_eq!("begin".parse(), Ok(HistoryStart::Begin));
        assert_eq!("NOW".parse(), Ok(HistoryStart::Now));
        let at: HistoryStart = "2026-01-31T12:00:00+01:00".parse().expect("valid");
        assert_eq!(at.to_string(), "2026-01-31T11:00:00+00:00");
        assert!("yesterday".parse::<HistoryStart>().is_err());
        let future = "2999-01-01T00:00:00Z".parse::<HistoryStart>();
        assert!(
            future.as_ref().is_err_and(|e| e.contains("in the future")),
            "{future:?}"
        );
        // A span back from now, as `:time` takes it.
        let Ok(HistoryStart::At(t)) = "-2h".parse::<HistoryStart>() else {
            panic!("-2h is a start");
        };
        let back = Utc::now() - t;
        assert!(
            back.num_minutes() >= 119 && back.num_minutes() <= 121,
            "{back}"
        );
    }
}
