//! The one form every server sends a time in, read without chrono
//! (`format::parse_time_micros` tries it first, and gives chrono what it leaves).

/// The form every server sends a time in, `2024-06-24T21:08:34.404896Z` (any number of the
/// second's digits, or none), read without chrono: each summary and each kept key parses one,
/// and chrono's RFC 3339 parser was 2–3% of a History page's ingest. `None` for anything else,
/// which `format::parse_time_micros` then gives to chrono (other zones, a leap second, lower case).
pub(super) fn parse_utc_micros(b: &[u8]) -> Option<i64> {
    fn digits(b: &[u8]) -> Option<i64> {
        b.iter().try_fold(0i64, |n, &d| {
            d.is_ascii_digit().then(|| n * 10 + i64::from(d - b'0'))
        })
    }
    let (date_time, rest) = b.split_at_checked(19)?;
    if rest.last() != Some(&b'Z')
        || date_time[4] != b'-'
        || date_time[7] != b'-'
        || date_time[10] != b'T'
        || date_time[13] != b':'
        || date_time[16] != b':'
    {
        return None;
    }
    let (year, month, day) = (
        digits(&date_time[0..4])?,
        digits(&date_time[5..7])?,
        digits(&date_time[8..10])?,
    );
    let (hour, minute, second) = (
        digits(&date_time[11..13])?,
        digits(&date_time[14..16])?,
        digits(&date_time[17..19])?,
    );
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return None,
    };
    if day < 1 || day > month_days || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let micros = match &rest[..rest.len() - 1] {
        [] => 0,
        [b'.', fraction @ ..] if !fraction.is_empty() => {
            let kept = &fraction[..fraction.len().min(6)];
            if !fraction[kept.len()..].iter().all(u8::is_ascii_digit) {
                return None;
            }
            digits(kept)? * [100_000, 10_000, 1_000, 100, 10, 1][kept.len() - 1]
        }
        _ => return None,
    };
    // Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    Some(((days * 24 + hour) * 60 + minute) * 60_000_000 + second * 1_000_000 + micros)
}

#[cfg(test)]
mod tests {
    use super::parse_utc_micros;
    use chrono::{DateTime, NaiveDateTime, Utc};

    /// What chrono reads of a time (the parse before the servers' own form was read apart).
    fn chrono_micros(s: &str) -> Option<i64> {
        DateTime::parse_from_rfc3339(s)
            .map(|t| t.with_timezone(&Utc).timestamp_micros())
            .ok()
            .or_else(|| {
                NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f")
                    .ok()
                    .map(|t| t.and_utc().timestamp_micros())
            })
    }

    #[test]
    fn the_servers_time_form_reads_as_chrono_reads_it() {
        // Times over ten thousand years, every number of the second's digits, and the dates
        // around month ends and leap days.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        let mut texts = Vec::new();
        for _ in 0..20_000 {
            let fraction = match next(11) {
                0 => String::new(),
                n => format!(".{:0width$}", next(10u64.pow(n as u32)), width = n as usize),
            };
            texts.push(format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{fraction}Z",
                next(10_000),
                next(14),
                next(33),
                next(25),
                next(61),
                next(61)
            ));
        }
        for year in [1900, 1970, 1999, 2000, 2023, 2024, 2100] {
            for (month, day) in [
                (2, 28),
                (2, 29),
                (2, 30),
                (4, 30),
                (4, 31),
                (12, 31),
                (1, 1),
            ] {
                texts.push(format!("{year}-{month:02}-{day:02}T23:59:59.999999Z"));
            }
        }
        let parsed = texts.iter().filter(|t| chrono_micros(t).is_some()).count();
        assert!(parsed > 5_000, "the sample has times that parse: {parsed}");
        for text in &texts {
            // Read without chrono, but for a leap second (left to chrono).
            let expected = if text.contains(":60") {
                None
            } else {
                chrono_micros(text)
            };
            assert_eq!(parse_utc_micros(text.as_bytes()), expected, "{text}");
        }
        // Other forms are left to chrono, or read as chrono reads them.
        for text in [
            "2024-06-24T21:08:34.404896+02:00",
            "2024-06-24t21:08:34Z",
            "2024-06-24T21:08:34",
            "2024-06-24T21:08:34.Z",
            "2024-06-24T21:08:34.12a4Z",
            "2016-12-31T23:59:60Z",
            "+2024-06-24T21:08:34Z",
            "2024-06-24T21:08:34.1234567891234Z",
            "",
        ] {
            let read = parse_utc_micros(text.as_bytes());
            assert!(read.is_none() || read == chrono_micros(text), "{text}");
        }
    }
}
