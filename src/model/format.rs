//! How numbers, times, durations, sizes and ids read, in one place below every layer that shows
//! them (`feed`, `config`, `ui`, the panes, `network`, the headless commands): digits grouped by
//! thousands, server times and their microseconds both ways, durations and time gaps in human
//! form, byte sizes, and ids shortened for display. Plain string functions with no theme and no
//! terminal: callers style and sanitize what they return (`ui::format` re-exports all of it, and
//! adds the amount columns, which sanitize).
//!
//! Not here: the config file's own duration syntax (`config::values::format_duration`, next to
//! its parser) and the demo server's wire formats (`demo::util`, which shares nothing with the
//! client on purpose).

use chrono::{DateTime, NaiveDateTime, SecondsFormat, Utc};

// ---------------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------------

/// An integer [`group_thousands`] can write: its sign and its magnitude.
pub trait Integer: Copy {
    /// Whether it is below zero, and its absolute value.
    fn sign_and_magnitude(self) -> (bool, u64);
}

macro_rules! signed_integer {
    ($($t:ty),*) => {$(
        impl Integer for $t {
            fn sign_and_magnitude(self) -> (bool, u64) {
                (self < 0, u64::try_from(self.unsigned_abs()).unwrap_or(u64::MAX))
            }
        }
    )*};
}

macro_rules! unsigned_integer {
    ($($t:ty),*) => {$(
        impl Integer for $t {
            fn sign_and_magnitude(self) -> (bool, u64) {
                (false, u64::try_from(self).unwrap_or(u64::MAX))
            }
        }
    )*};
}

signed_integer!(i32, i64);
unsigned_integer!(u16, u32, u64, usize);

/// `1234567` → `1,234,567`; negative numbers keep their sign (`-12,345`). Counts (`usize`) and
/// signed values (`i64`) alike.
pub fn group_thousands(n: impl Integer) -> String {
    let (negative, magnitude) = n.sign_and_magnitude();
    let grouped = group_digits(&magnitude.to_string());
    if negative {
        format!("-{grouped}")
    } else {
        grouped
    }
}

/// A count in at most five columns: `9,999`, `14k`, `1.2M`, `12M`.
#[allow(clippy::cast_precision_loss)]
pub fn compact_count(n: u64) -> String {
    match n {
        0..=9_999 => group_thousands(n),
        10_000..=999_999 => format!("{}k", n / 1000),
        _ if n < 10_000_000 => format!("{:.1}M", n as f64 / 1e6),
        _ => format!("{}M", n / 1_000_000),
    }
}

/// A run of decimal digits grouped by thousands: `1234567` → `1,234,567` (for magnitudes
/// [`group_thousands`] cannot hold, such as an amount's integer part).
pub fn group_digits(digits: &str) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes in decimal units with three significant digits: `950 B`, `12.3 kB`, `1.50 MB`, `2.00 GB`.
pub fn human_bytes(n: i64) -> String {
    let sign = if n < 0 { "-" } else { "" };
    let v = n.unsigned_abs();
    if v < 1000 {
        return format!("{sign}{v} B");
    }
    let mut x = v as f64;
    for unit in ["kB", "MB", "GB", "TB", "PB"] {
        x /= 1000.0;
        if x < 999.5 || unit == "PB" {
            return if x < 9.995 {
                format!("{sign}{x:.2} {unit}")
            } else if x < 99.95 {
                format!("{sign}{x:.1} {unit}")
            } else {
                format!("{sign}{x:.0} {unit}")
            };
        }
    }
    format!("{sign}{v} B")
}

// ---------------------------------------------------------------------------------------------
// Times
// ---------------------------------------------------------------------------------------------

/// Parses an ISO 8601 / RFC 3339 time to microseconds since the epoch.
pub fn parse_time_micros(s: &str) -> Option<i64> {
    if let Some(us) = super::server_time_form::parse_utc_micros(s.as_bytes()) {
        return Some(us);
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc).timestamp_micros());
    }
    // Some servers omit the zone; read such times as UTC.
    NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f")
        .ok()
        .map(|t| t.and_utc().timestamp_micros())
}

/// Formats microseconds since the epoch as the server does (`2024-06-24T21:08:34.404896Z`).
pub fn format_time_micros(us: i64) -> String {
    DateTime::<Utc>::from_timestamp_micros(us)
        .map(|t| t.to_rfc3339_opts(SecondsFormat::Micros, true))
        .unwrap_or_default()
}

/// A server time (RFC 3339 text) for display: `show` formats it once parsed (in the zone the
/// user chose); `blank` stands for an empty one; text that does not parse is returned as sent
/// (the caller sanitizes it).
pub fn server_time(raw: &str, blank: &str, show: impl FnOnce(i64) -> String) -> String {
    match parse_time_micros(raw) {
        Some(us) => show(us),
        None if raw.is_empty() => blank.to_string(),
        None => raw.to_string(),
    }
}

/// A time difference in human form: `850 µs`, `412 ms`, `3.2 s`, `2m 5s`, `1h 2m` (negative
/// gaps keep their sign).
pub fn format_gap(micros: i64) -> String {
    let sign = if micros < 0 { "-" } else { "" };
    let us = micros.unsigned_abs();
    if us < 1_000 {
        format!("{sign}{us} µs")
    } else if us < 1_000_000 {
        format!("{sign}{} ms", us / 1_000)
    } else if us < 60_000_000 {
        format!("{sign}{:.1} s", us as f64 / 1e6)
    } else {
        let s = us / 1_000_000;
        if s < 3_600 {
            format!("{sign}{}m {}s", s / 60, s % 60)
        } else {
            format!("{sign}{}h {}m", s / 3_600, (s / 60) % 60)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Durations
// ---------------------------------------------------------------------------------------------

/// A duration in human form, two units at most: `3d 13h 26m` for days (the uptime form),
/// `13h 26m`, `26m 5s`, `45s`.
pub fn human_duration(micros: i64) -> String {
    let s = micros.max(0) / 1_000_000;
    let (d, h, m, sec) = (s / 86_400, (s / 3_600) % 24, (s / 60) % 60, s % 60);
    if d > 0 {
        format!("{d}d {h}h {m}m")
    } else if h > 0 {
        format!("{h}h {m}m")
    } else if m > 0 {
        format!("{m}m {sec}s")
    } else {
        format!("{sec}s")
    }
}

/// Seconds in human form, always the two largest units: `42s`, `5m 3s`, `2h 4m`, `3d 1h`.
pub fn human_secs(s: i64) -> String {
    match s {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m {}s", s / 60, s % 60),
        s if s < 86_400 => format!("{}h {}m", s / 3600, (s % 3600) / 60),
        s => format!("{}d {}h", s / 86_400, (s % 86_400) / 3600),
    }
}

/// An age or a threshold as the dashboard's verdict words it: `45s`, `5m` (whole minutes),
/// `5m 3s`, `2h 4m` (hours at most; a negative age reads as `0s`).
pub fn human_age(micros: i64) -> String {
    let s = micros.max(0) / 1_000_000;
    if s >= 3600 {
        format!("{}h {}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 && s % 60 == 0 {
        format!("{}m", s / 60)
    } else if s >= 60 {
        format!("{}m {}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// A polling interval as configured: `500ms`, `1.5s`, `2s`, `1m 0s` (whole seconds and more as
/// [`human_duration`]).
pub fn human_interval_ms(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms}ms")
    } else if !ms.is_multiple_of(1000) && ms < 60_000 {
        format!("{}s", (ms as f64 / 1000.0 * 10.0).round() / 10.0)
    } else {
        human_duration(
            i64::try_from(ms)
                .unwrap_or(i64::MAX / 1000)
                .saturating_mul(1000),
        )
    }
}

/// A span of whole units, as typed in steps: `3600` → `1 h`, `600` → `10 min`, `86400` → `1 d`
/// (seconds when it is no whole number of a larger unit).
pub fn human_span(secs: i64) -> String {
    if secs >= 86_400 && secs % 86_400 == 0 {
        format!("{} d", secs / 86_400)
    } else if secs >= 3_600 && secs % 3_600 == 0 {
        format!("{} h", secs / 3_600)
    } else if secs >= 60 && secs % 60 == 0 {
        format!("{} min", secs / 60)
    } else {
        format!("{secs} s")
    }
}

/// Parses an ISO 8601 duration (`PT85H26M0.595279S`, `P1DT2H`, `PT0.5S`) to microseconds.
/// Years count 365 days and months 30 days. None for anything else (negative durations too).
pub fn parse_iso8601_duration(s: &str) -> Option<i64> {
    let rest = s.trim().strip_prefix('P')?;
    if rest.is_empty() {
        return None;
    }
    let mut total: f64 = 0.0;
    let mut in_time = false;
    let mut number = String::new();
    let mut any = false;
    for c in rest.chars() {
        match c {
            'T' if !in_time && number.is_empty() => in_time = true,
            '0'..='9' | '.' | ',' => number.push(if c == ',' { '.' } else { c }),
            _ => {
                let n: f64 = number.parse().ok()?;
                number.clear();
                let secs = match (in_time, c) {
                    (false, 'Y') => 365.0 * 86_400.0,
                    (false, 'M') => 30.0 * 86_400.0,
                    (false, 'W') => 7.0 * 86_400.0,
                    (false, 'D') => 86_400.0,
                    (true, 'H') => 3_600.0,
                    (true, 'M') => 60.0,
                    (true, 'S') => 1.0,
                    _ => return None,
                };
                total += n * secs;
                any = true;
            }
        }
    }
    if !number.is_empty() || !any || !total.is_finite() || total > 1e12 {
        return None;
    }
    Some((total * 1e6).round() as i64)
}

/// `PT85H26M0.595279S` → `3d 13h 26m`; unparsable input is returned as is (the caller
/// sanitizes it).
pub fn human_uptime(iso: &str) -> String {
    match parse_iso8601_duration(iso) {
        Some(us) => human_duration(us),
        None => iso.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// Ids
// ---------------------------------------------------------------------------------------------

/// The first `n` characters of an id followed by `…` when cut (ids are ASCII in practice; cuts
/// on a char boundary regardless).
pub fn short_id(id: &str, n: usize) -> String {
    match id.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &id[..i]),
        None => id.to_string(),
    }
}

/// `global-domain::1220abcd…` → `global-domain`.
pub fn short_party(id: &str) -> &str {
    id.split_once("::").map_or(id, |(name, _)| name)
}

/// `pkg:Module.Path:Entity` → `Module.Path:Entity` (the package id is noise in a list).
pub fn short_template(template_id: &str) -> &str {
    match template_id.split_once(':') {
        Some((_, rest)) if rest.contains(':') => rest,
        _ => template_id,
    }
}

/// `Module.Path:Entity` → `Entity`.
pub fn template_entity(template_id: &str) -> &str {
    template_id.rsplit(':').next().unwrap_or(template_id)
}

/// The multihash prefix every scan update id starts with (SHA-256, 32 bytes); the explorer's
/// lists leave it out.
pub const UPDATE_ID_PREFIX: &str = "1220";

/// Whether `text` names `id` as the screen shows it: a case-insensitive prefix of the id, with
/// or without its `1220` multihash prefix (`4dcc8de89d67` and `12204dcc8de8` both name
/// `12204dcc8de89d67…`). Empty text names nothing.
pub fn names_update_id(id: &str, text: &str) -> bool {
    let starts = |s: &str| {
        s.len() >= text.len()
            && s.is_char_boundary(text.len())
            && s[..text.len()].eq_ignore_ascii_case(text)
    };
    !text.is_empty() && (starts(id) || id.strip_prefix(UPDATE_ID_PREFIX).is_some_and(starts))
}

/// `text` as a whole update id for a scan, or why it is not one: 68 hex characters (`1220` and
/// the 64 of the hash), or the 64 without the prefix the lists leave out (the prefix is put
/// back). Scan has no look-up by prefix, so a shorter run of hex digits is refused rather
/// than asked for; text that is not hex is passed on as it is (the scan answers for it).
pub fn whole_update_id(text: &str) -> Result<String, String> {
    let text = text.trim();
    let hex = !text.is_empty() && text.bytes().all(|b| b.is_ascii_hexdigit());
    match text.len() {
        64 if hex => Ok(format!("{UPDATE_ID_PREFIX}{text}")),
        n if hex && n < 68 => Err(format!(
            "{text:?} is not a whole update id (68 hex characters; Scan cannot look an update up by a prefix of its id)"
        )),
        _ => Ok(text.to_owned()),
    }
}

/// `1220c7d293ea…:3` for `<68-character update id>:3` (ids without a node number unchanged).
pub fn short_event_id(id: &str) -> String {
    match id.rsplit_once(':') {
        Some((update, n)) if update.chars().count() > 16 && n.len() <= 12 => {
            format!("{}:{n}", short_id(update, 16))
        }
        _ => id.to_string(),
    }
}

/// Shortest run of hex digits [`fit_id`] shortens (shorter runs are names or numbers).
const ID_RUN_MIN: usize = 16;
/// Characters kept of a shortened run: `dac2…9f1e` (head and tail of four).
const ID_RUN_KEEP_MIN: usize = 8;

/// An id (or a text holding ids) fitted into `max_cols` columns by shortening its hashes in the
/// MIDDLE, never its names: `<64 hex>:Splice.Amulet:Amulet` → `dac2…9f1e:Splice.Amulet:Amulet`,
/// `alice::1220<64 hex>` → `alice::1220f8…4d86`, a contract id `007ab3…c2d9`, a list of parties
/// each shortened alike. Runs of at least 16 hex digits are the hashes; each keeps as many
/// characters as fit (the same number for every run, at least four each side); when even that is
/// too wide each hash is only `…` (`…:Splice.Amulet:Amulet`, `alice::…`), and only then is the
/// result wider than `max_cols` (the caller cuts it at the end, with `…`). Unchanged when it
/// fits. Plain text: the caller sanitizes.
pub fn fit_id(s: &str, max_cols: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    if s.width() <= max_cols {
        return s.to_string();
    }
    // Byte ranges of the hex runs.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
        match (c.is_ascii_hexdigit(), start) {
            (true, None) => start = Some(i),
            (false, Some(b)) => {
                if i - b >= ID_RUN_MIN {
                    runs.push((b, i));
                }
                start = None;
            }
            _ => {}
        }
    }
    if runs.is_empty() {
        return s.to_string();
    }
    let run_width: usize = runs.iter().map(|(b, e)| e - b).sum();
    let rest = s.width() - run_width;
    let longest = runs.iter().map(|(b, e)| e - b).max().unwrap_or(0);
    // The most characters every run may keep (plus one column for its `…` when cut).
    let shown = |keep: usize| -> usize {
        runs.iter()
            .map(|(b, e)| if e - b <= keep { e - b } else { keep + 1 })
            .sum()
    };
    // Too narrow even for the shortest form: each hash is only `…`.
    let mut keep = 0;
    for k in (ID_RUN_KEEP_MIN..longest).rev() {
        if rest + shown(k) <= max_cols {
            keep = k;
            break;
        }
    }
    let mut out = String::with_capacity(max_cols + 8);
    let mut at = 0;
    for &(b, e) in &runs {
        out.push_str(&s[at..b]);
        if e - b <= keep {
            out.push_str(&s[b..e]);
        } else {
            let head = keep.div_ceil(2);
            out.push_str(&s[b..b + head]);
            out.push('…');
            out.push_str(&s[e - (keep - head)..e]);
        }
        at = e;
    }
    out.push_str(&s[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_update_id_is_named_as_the_screen_shows_it() {
        let id = format!("12204dcc8de89d67{}", "a".repeat(52));
        for text in ["4dcc8de89d67", "12204dcc8de8", "4DCC8DE8", &id] {
            assert!(names_update_id(&id, text), "{text}");
        }
        for text in ["", "dcc8", "1220dcc8", "4dcc8de89d68", "é"] {
            assert!(!names_update_id(&id, text), "{text}");
        }
    }

    #[test]
    fn only_a_whole_update_id_goes_to_a_scan() {
        let hash = "ab".repeat(32);
        assert_eq!(
            whole_update_id(&format!("1220{hash}")),
            Ok(format!("1220{hash}"))
        );
        assert_eq!(whole_update_id(&hash), Ok(format!("1220{hash}")));
        let err = whole_update_id("12204dcc8de8").unwrap_err();
        assert!(
            err.contains("not a whole update id (68 hex characters"),
            "{err}"
        );
        assert!(whole_update_id(&hash[..63]).is_err());
        // Not hex: the scan answers for it (400 or 404).
        assert_eq!(
            whole_update_id("no-such-update"),
            Ok("no-such-update".into())
        );
    }

    /// Checks `f(input) == want` for every case, naming the failing input.
    fn check<T: Copy + std::fmt::Debug>(f: impl Fn(T) -> String, cases: &[(T, &str)]) {
        for &(input, want) in cases {
            assert_eq!(f(input), want, "{input:?}");
        }
    }

    #[test]
    fn polling_intervals_read_as_configured() {
        check(
            human_interval_ms,
            &[
                (500, "500ms"),
                (1500, "1.5s"),
                (2000, "2s"),
                (60_000, "1m 0s"),
            ],
        );
    }

    #[test]
    fn thousands_for_signed_and_unsigned_integers() {
        check(
            |n: i64| group_thousands(n),
            &[
                (0, "0"),
                (999, "999"),
                (1000, "1,000"),
                (1_234_567, "1,234,567"),
                (-12_345, "-12,345"),
                (-1000, "-1,000"),
                (i64::MIN, "-9,223,372,036,854,775,808"),
            ],
        );
        assert_eq!(group_thousands(0usize), "0");
        assert_eq!(group_thousands(1_234_567usize), "1,234,567");
        assert_eq!(group_thousands(12_345u32), "12,345");
        assert_eq!(group_thousands(u64::MAX), "18,446,744,073,709,551,615");
        assert_eq!(group_thousands(-7i32), "-7");
    }

    #[test]
    fn gaps_in_human_form() {
        check(
            format_gap,
            &[
                (0, "0 µs"),
                (850, "850 µs"),
                (412_345, "412 ms"),
                (3_200_000, "3.2 s"),
                (125_000_000, "2m 5s"),
                (3_720_000_000, "1h 2m"),
                (-412_000, "-412 ms"),
            ],
        );
    }

    #[test]
    fn durations_in_human_form() {
        let sec = 1_000_000;
        check(
            human_duration,
            &[
                (45 * sec, "45s"),
                (90 * sec, "1m 30s"),
                ((2 * 3600 + 4 * 60 + 5) * sec, "2h 4m"),
                ((86_400 + 3600) * sec, "1d 1h 0m"),
                // negative durations read as zero
                (-5 * sec, "0s"),
            ],
        );
        check(
            human_secs,
            &[
                (42, "42s"),
                (303, "5m 3s"),
                (2 * 3600 + 4 * 60 + 5, "2h 4m"),
                (3 * 86_400 + 3600 + 60, "3d 1h"),
            ],
        );
    }

    #[test]
    fn spans_in_whole_units() {
        check(
            human_span,
            &[
                (600, "10 min"),
                (3600, "1 h"),
                (7 * 86_400, "7 d"),
                (5400, "90 min"),
                (45, "45 s"),
            ],
        );
    }

    #[test]
    fn uptime_parses_and_reads_well() {
        assert_eq!(
            parse_iso8601_duration("PT85H26M0.595279S"),
            Some(307_560_595_279)
        );
        check(
            human_uptime,
            &[
                ("PT85H26M0.595279S", "3d 13h 26m"),
                ("PT45S", "45s"),
                ("PT5M3S", "5m 3s"),
                ("P1DT2H", "1d 2h 0m"),
            ],
        );
        assert_eq!(parse_iso8601_duration("PT0.5S"), Some(500_000));
        assert_eq!(parse_iso8601_duration("P2W"), Some(14 * 86_400_000_000));
        for bad in ["", "P", "PT", "85H", "PT5", "PTxS", "-PT5S", "P5H", "PT1D"] {
            assert_eq!(parse_iso8601_duration(bad), None, "{bad:?}");
        }
        assert_eq!(human_uptime("soon"), "soon");
    }

    #[test]
    fn server_times_parse_or_stay_as_sent() {
        let show = |us: i64| format!("at {us}");
        assert_eq!(
            server_time("1970-01-01T00:00:01.000002Z", "-", show),
            "at 1000002"
        );
        assert_eq!(server_time("", "-", show), "-");
        assert_eq!(server_time("", "", show), "");
        assert_eq!(server_time("yesterday", "-", show), "yesterday");
    }

    #[test]
    fn event_ids_keep_their_node_number() {
        let update = "1220c7d293ea2327aaaabbbbccccddddeeeeffff";
        assert_eq!(
            short_event_id(&format!("{update}:3")),
            "1220c7d293ea2327…:3"
        );
        assert_eq!(short_event_id("short:3"), "short:3");
        assert_eq!(short_event_id("no-node-number"), "no-node-number");
        assert_eq!(
            short_event_id(&format!("{update}:1234567890123")),
            format!("{update}:1234567890123"),
            "a suffix longer than a node number is no node number"
        );
    }

    #[test]
    fn digits_are_grouped() {
        check(
            |n: usize| group_thousands(n),
            &[
                (0, "0"),
                (999, "999"),
                (1000, "1,000"),
                (1_234_567, "1,234,567"),
            ],
        );
    }

    #[test]
    fn fit_id_shortens_hashes_in_the_middle_and_keeps_names() {
        let pkg = format!("dac2{}9f1e", "a".repeat(56));
        let template = format!("{pkg}:Splice.Amulet:Amulet");
        assert_eq!(fit_id(&template, 200), template, "fits: unchanged");
        assert_eq!(fit_id(&template, 30), "dac2…9f1e:Splice.Amulet:Amulet");
        // More room: more of the hash, the name whole.
        let wider = fit_id(&template, 40);
        assert_eq!(unicode_width::UnicodeWidthStr::width(wider.as_str()), 40);
        assert!(wider.starts_with("dac2aa") && wider.ends_with("a9f1e:Splice.Amulet:Amulet"));
        // Too narrow for that: the hash goes, the name stays (the caller cuts the end if need be).
        assert_eq!(fit_id(&template, 29), "…:Splice.Amulet:Amulet");
        assert_eq!(fit_id(&template, 10), "…:Splice.Amulet:Amulet");
        let party = format!("alice::1220{}", "b".repeat(60));
        let p = fit_id(&party, 24);
        assert!(p.starts_with("alice::1220b") && p.contains('…'), "{p}");
        assert_eq!(unicode_width::UnicodeWidthStr::width(p.as_str()), 24);
        // Each party of a list alike; short runs (node numbers, names) untouched.
        let list = format!("{party}, {party}");
        let l = fit_id(&list, 40);
        assert_eq!(l.matches("alice::").count(), 2, "{l}");
        assert!(
            unicode_width::UnicodeWidthStr::width(l.as_str()) <= 40,
            "{l}"
        );
        assert_eq!(
            fit_id("no hashes in here at all", 5),
            "no hashes in here at all"
        );
        assert_eq!(fit_id("#12 beef", 3), "#12 beef");
    }

    #[test]
    fn bytes_in_decimal_units() {
        check(
            human_bytes,
            &[
                (950, "950 B"),
                (12_345, "12.3 kB"),
                (1_500_000, "1.50 MB"),
                (250_000_000, "250 MB"),
                (2_000_000_000, "2.00 GB"),
                (-1_400_000, "-1.40 MB"),
            ],
        );
    }

    #[test]
    fn times_in_other_forms_are_still_read() {
        let utc = parse_time_micros("2024-06-24T19:08:34.404896Z").expect("the servers' form");
        assert_eq!(
            parse_time_micros("2024-06-24T21:08:34.404896+02:00"),
            Some(utc)
        );
        assert_eq!(parse_time_micros("2024-06-24t19:08:34.404896z"), Some(utc));
        assert_eq!(parse_time_micros("2024-06-24T19:08:34.404896"), Some(utc));
        let before_leap = parse_time_micros("2016-12-31T23:59:59Z").expect("parses");
        assert_eq!(
            parse_time_micros("2016-12-31T23:59:60Z"),
            Some(before_leap + 1_000_000)
        );
        assert_eq!(parse_time_micros("2024-06-24T21:08:34.Z"), None);
        assert_eq!(parse_time_micros(""), None);
    }

    #[test]
    fn time_round_trips_at_micro_resolution() {
        let s = "2024-06-24T21:08:34.404896Z";
        let us = parse_time_micros(s).expect("parses");
        assert_eq!(format_time_micros(us), s);
        assert_eq!(
            parse_time_micros("2024-06-24T21:08:34.4Z"),
            parse_time_micros("2024-06-24T21:08:34.400000Z")
        );
    }

    #[test]
    fn short_forms() {
        assert_eq!(
            short_template("abc:Splice.Amulet:Amulet"),
            "Splice.Amulet:Amulet"
        );
        assert_eq!(template_entity("abc:Splice.Amulet:Amulet"), "Amulet");
        assert_eq!(short_party("global-domain::1220ab"), "global-domain");
        assert_eq!(short_id("1220abcdef", 6), "1220ab…");
        assert_eq!(short_id("12", 6), "12");
    }
}
