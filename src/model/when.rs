//! Times the user types (`:time`): RFC 3339, a span back from now (`-2h`, `-30m`, `-1d`), or a
//! time of day (`14:00`, `yesterday 14:00`, `today 9:30`, `2026-11-22 14:00`) in the session's
//! zone (UTC or local).

use chrono::{DateTime, Duration, Local, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};

use super::format::parse_time_micros;

/// The time `text` names, in microseconds since the epoch; `now` is the session's clock and
/// `local` whether wall times are local (else UTC). `None` when it names no time.
pub fn parse_when(text: &str, now: i64, local: bool) -> Option<i64> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if let Some(t) = parse_time_micros(text) {
        return Some(t);
    }
    if let Some(span) = text.strip_prefix('-') {
        return parse_span(span).map(|us| now.saturating_sub(us));
    }
    let now_utc = DateTime::<Utc>::from_timestamp_micros(now)?;
    let today = if local {
        now_utc.with_timezone(&Local).date_naive()
    } else {
        now_utc.date_naive()
    };
    let lower = text.to_ascii_lowercase();
    let (date, rest) = if let Some(rest) = lower.strip_prefix("yesterday") {
        (today.pred_opt()?, rest.trim())
    } else if let Some(rest) = lower.strip_prefix("today") {
        (today, rest.trim())
    } else if let Some((d, rest)) = lower.split_once(' ')
        && let Ok(d) = NaiveDate::parse_from_str(d, "%Y-%m-%d")
    {
        (d, rest.trim())
    } else if let Ok(d) = NaiveDate::parse_from_str(&lower, "%Y-%m-%d") {
        (d, "")
    } else {
        (today, lower.as_str())
    };
    let time = if rest.is_empty() {
        NaiveTime::MIN
    } else {
        NaiveTime::parse_from_str(rest, "%H:%M:%S")
            .or_else(|_| NaiveTime::parse_from_str(rest, "%H:%M"))
            .ok()?
    };
    let wall = NaiveDateTime::new(date, time);
    let at = if local {
        Local
            .from_local_datetime(&wall)
            .earliest()?
            .with_timezone(&Utc)
    } else {
        wall.and_utc()
    };
    Some(at.timestamp_micros())
}

/// `2h`, `30m`, `90s`, `1d`, `1w` (also `1h30m`) in microseconds.
fn parse_span(text: &str) -> Option<i64> {
    let mut total = Duration::zero();
    let mut digits = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let n: i64 = digits.parse().ok()?;
        digits.clear();
        total += match c {
            's' => Duration::try_seconds(n)?,
            'm' => Duration::try_minutes(n)?,
            'h' => Duration::try_hours(n)?,
            'd' => Duration::try_days(n)?,
            'w' => Duration::try_weeks(n)?,
            _ => return None,
        };
    }
    if !digits.is_empty() || total.is_zero() {
        return None;
    }
    total.num_microseconds()
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 3_600_000_000;

    fn now() -> i64 {
        parse_time_micros("2026-11-22T10:41:07Z").expect("time")
    }

    #[test]
    fn reads_rfc3339_spans_and_times_of_day_in_utc() {
        let at = |s: &str| parse_when(s, now(), false);
        assert_eq!(
            at("2026-11-22T08:00:00Z"),
            parse_time_micros("2026-11-22T08:00:00Z")
        );
        assert_eq!(at("-2h"), Some(now() - 2 * H));
        assert_eq!(at("-1h30m"), Some(now() - 3 * H / 2));
        assert_eq!(at("-1d"), Some(now() - 24 * H));
        assert_eq!(at("14:00"), parse_time_micros("2026-11-22T14:00:00Z"));
        assert_eq!(
            at("yesterday 14:00"),
            parse_time_micros("2026-11-21T14:00:00Z")
        );
        assert_eq!(at("Yesterday"), parse_time_micros("2026-11-21T00:00:00Z"));
        assert_eq!(at("today 9:30"), parse_time_micros("2026-11-22T09:30:00Z"));
        assert_eq!(
            at("2026-11-20 23:59:30"),
            parse_time_micros("2026-11-20T23:59:30Z")
        );
        for bad in [
            "",
            "-",
            "-2x",
            "-h",
            "tomorrow",
            "25:00",
            "yesterday 14",
            "-0h",
        ] {
            assert_eq!(at(bad), None, "{bad:?}");
        }
    }
}
