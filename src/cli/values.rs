//! The values of command-line flags: each parser turns a flag's text into its value or a
//! message that names what is accepted (clap prints it as a usage error).

use std::time::Duration;

use crate::config::{HistoryStart, parse_duration};
use crate::demo::{DemoTime, MAX_SCANS};

pub(super) fn parse_rate(text: &str) -> Result<f64, String> {
    let rate: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    if rate.is_finite() && rate >= 0.0 {
        Ok(rate)
    } else {
        Err(format!("{text:?} must be a non-negative number"))
    }
}

pub(super) fn parse_scans(text: &str) -> Result<usize, String> {
    let max = MAX_SCANS;
    match text.trim().parse::<usize>() {
        Ok(scans) if (1..=max).contains(&scans) => Ok(scans),
        _ => Err(format!(
            "{text:?} must be a whole number from 1 to {max} (one scan per SV)"
        )),
    }
}

pub(super) fn parse_scan_number(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(k) if (1..=MAX_SCANS).contains(&k) => Ok(k),
        _ => Err(format!(
            "{text:?} must be a scan number from 1 to {MAX_SCANS}"
        )),
    }
}

pub(super) fn parse_demo_time(text: &str) -> Result<DemoTime, String> {
    let trimmed = text.trim();
    if let Ok(time) = chrono::DateTime::parse_from_rfc3339(trimmed) {
        return Ok(DemoTime::At(time.timestamp_micros()));
    }
    parse_duration(trimmed)
        .map(DemoTime::BeforeHead)
        .map_err(|_| format!("{trimmed:?} is neither an RFC 3339 time nor a duration such as 1h"))
}

/// A `network --timeout`: a duration above zero.
pub(super) fn parse_timeout(text: &str) -> Result<Duration, String> {
    match parse_duration(text)? {
        Duration::ZERO => Err("--timeout must be longer than 0s (e.g. 10s, 500ms)".to_owned()),
        timeout => Ok(timeout),
    }
}

/// A `network sweep --pages`: a whole number, at least 1.
pub(super) fn parse_pages(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(0) => Err("--pages must be at least 1".to_owned()),
        Ok(pages) => Ok(pages),
        Err(_) => Err(format!(
            "--pages must be a whole number of pages, got {text:?}"
        )),
    }
}

/// A `network sweep --max-differences`: a whole number, at least 1.
pub(super) fn parse_max_differences(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(0) => Err("--max-differences must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "--max-differences must be a whole number of updates, got {text:?}"
        )),
    }
}

/// A `network sweep --from`: `begin`, or a time as `:time` reads it in UTC ([`parse_time`]),
/// not in the future.
pub(super) fn parse_sweep_from(text: &str) -> Result<HistoryStart, String> {
    const ACCEPTED: &str = "use begin, an RFC 3339 time (2026-01-31T12:00:00Z), a span back \
                            from now (-2h) or a UTC time of day (14:00, yesterday 14:00)";
    let trimmed = text.trim();
    if trimmed.eq_ignore_ascii_case("begin") {
        return Ok(HistoryStart::Begin);
    }
    let now = chrono::Utc::now();
    let at = chrono::DateTime::parse_from_rfc3339(trimmed)
        .map(|t| t.with_timezone(&chrono::Utc))
        .ok()
        .or_else(|| {
            crate::model::when::parse_when(trimmed, now.timestamp_micros(), false)
                .and_then(chrono::DateTime::<chrono::Utc>::from_timestamp_micros)
        })
        .ok_or_else(|| format!("{trimmed:?} is not a start: {ACCEPTED}"))?;
    if at > now {
        return Err(format!(
            "{trimmed:?} is in the future ({}): the sweep starts at a time the history has \
             reached; {ACCEPTED}",
            at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        ));
    }
    Ok(HistoryStart::At(at))
}

pub(super) fn parse_request_rate(text: &str) -> Result<f64, String> {
    let max = crate::config::MAX_SCAN_REQUEST_RATE;
    match text.trim().parse::<f64>() {
        Ok(rate) if rate.is_finite() && rate > 0.0 && rate <= max => Ok(rate),
        _ => Err(format!(
            "{text:?} must be requests per second above 0 and at most {max}"
        )),
    }
}

/// Check that a time is RFC 3339 (as the APIs expect) and keep the text as given.
/// `now` (any case) or an RFC 3339 time.
/// An index location (`--index`): see [`crate::config::values::index_location`].
pub fn index_location(text: &str) -> Result<String, String> {
    crate::config::values::index_location(text)
}

pub fn parse_time_or_now(text: &str) -> Result<String, String> {
    if text.trim().eq_ignore_ascii_case("now") {
        Ok("now".to_owned())
    } else {
        parse_time(text)
    }
}

/// `begin` (any case) or a time as [`parse_time`] reads it.
pub fn parse_from(text: &str) -> Result<String, String> {
    if text.trim().eq_ignore_ascii_case("begin") {
        Ok("begin".to_owned())
    } else {
        parse_time(text)
    }
}

/// A time as the explorer's `:time` reads it, in UTC: RFC 3339, a span back from now (`-2h`)
/// or a time of day (`14:00`, `yesterday 14:00`, `2026-01-31 14:00`). RFC 3339 is passed on as
/// typed, the others as RFC 3339 UTC.
pub fn parse_time(text: &str) -> Result<String, String> {
    let trimmed = text.trim();
    if chrono::DateTime::parse_from_rfc3339(trimmed).is_ok() {
        return Ok(trimmed.to_owned());
    }
    crate::model::when::parse_when(trimmed, chrono::Utc::now().timestamp_micros(), false)
        .map(crate::model::format::format_time_micros)
        .ok_or_else(|| {
            format!(
                "{trimmed:?} is not a time: use RFC 3339 (2026-01-31T12:00:00Z), a span back \
                 from now (-2h) or a UTC time of day (14:00, yesterday 14:00)"
            )
        })
}

/// A UTC day (days since 1970-01-01): `YYYY-MM-DD`, or any time [`parse_time`] reads (the
/// day it falls on).
pub fn parse_day(text: &str) -> Result<i64, String> {
    if let Some(day) = crate::model::index::stats::parse_day(text) {
        return Ok(day);
    }
    let time = parse_time(text)?;
    crate::model::index::stats::parse_day(&time)
        .ok_or_else(|| format!("{text:?} is not a day: use YYYY-MM-DD"))
}

pub fn parse_timestamp(text: &str) -> Result<String, String> {
    let trimmed = text.trim();
    chrono::DateTime::parse_from_rfc3339(trimmed)
        .map(|_| trimmed.to_owned())
        .map_err(|err| {
            format!("{trimmed:?} is not an RFC 3339 time such as 2026-01-31T12:00:00Z ({err})")
        })
}

/// A `--max-response-mib` value: an integer in [`crate::config::MAX_RESPONSE_MIB_RANGE`].
pub(super) fn parse_max_response_mib(text: &str) -> Result<u32, String> {
    let range = crate::config::MAX_RESPONSE_MIB_RANGE;
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|mib| range.contains(mib))
        .ok_or_else(|| {
            format!(
                "{text:?} is not a size in MiB between {} and {}",
                range.start(),
                range.end()
            )
        })
}
