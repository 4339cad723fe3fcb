//! Small helpers of the demo network: a deterministic PRNG (splitmix64), id and hex generation,
//! timestamp and Daml decimal formatting, and query-string parsing.

use std::fmt::Write as _;

/// Deterministic pseudo-random numbers (splitmix64). Not cryptographic; only for generating data.
#[derive(Clone, Debug)]
pub struct Rng(u64);

const HEX: &[u8; 16] = b"0123456789abcdef";

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x6a09_e667_f3bc_c908)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`; returns 0 for `n == 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = (hi - lo) as u64 + 1;
        lo + self.below(span) as i64
    }

    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.f64() < p
    }

    /// `n` lowercase hex characters.
    pub fn hex(&mut self, n: usize) -> String {
        let mut s = String::with_capacity(n);
        let mut word = 0u64;
        for i in 0..n {
            if i % 16 == 0 {
                word = self.next_u64();
            }
            s.push(HEX[(word & 0xf) as usize] as char);
            word >>= 4;
        }
        s
    }

    /// A fingerprint / hash in Canton's multihash form: `1220` + 64 hex characters.
    pub fn fingerprint(&mut self) -> String {
        let mut s = String::with_capacity(68);
        s.push_str("1220");
        s.push_str(&self.hex(64));
        s
    }

    /// A contract id shaped like real ones: `00` + 64 hex + `ca101220` + 64 hex (138 characters).
    pub fn contract_id(&mut self) -> String {
        let mut s = String::with_capacity(138);
        s.push_str("00");
        s.push_str(&self.hex(64));
        s.push_str("ca101220");
        s.push_str(&self.hex(64));
        s
    }
}

/// Lowercase hex of bytes.
pub fn to_hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 0xf) as usize] as char);
    }
    s
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    to_hex(&sha2::Sha256::digest(bytes))
}

pub fn is_hex(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit())
}

// ---------------------------------------------------------------------------------------------
// Time: microseconds since the Unix epoch (UTC).

pub const SECOND: i64 = 1_000_000;
pub const MINUTE: i64 = 60 * SECOND;
pub const HOUR: i64 = 60 * MINUTE;

pub fn now_micros() -> i64 {
    chrono::Utc::now().timestamp_micros()
}

/// Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn write_date_time(out: &mut String, micros: i64) -> i64 {
    let secs = micros.div_euclid(SECOND);
    let frac = micros.rem_euclid(SECOND);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let _ = write!(
        out,
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        sod / 3600,
        (sod / 60) % 60,
        sod % 60
    );
    frac
}

/// ISO 8601 in the style of Java's `Instant.toString` (what Canton and Splice send): the fraction
/// is omitted when zero and otherwise printed with 3 or 6 digits.
pub fn fmt_time(micros: i64) -> String {
    let mut s = String::with_capacity(27);
    let frac = write_date_time(&mut s, micros);
    if frac != 0 {
        if frac % 1000 == 0 {
            let _ = write!(s, ".{:03}", frac / 1000);
        } else {
            let _ = write!(s, ".{frac:06}");
        }
    }
    s.push('Z');
    s
}

/// ISO 8601 with exactly six fraction digits, as Daml timestamps inside payloads appear.
pub fn fmt_time6(micros: i64) -> String {
    let mut s = String::with_capacity(27);
    let frac = write_date_time(&mut s, micros);
    let _ = write!(s, ".{frac:06}Z");
    s
}

/// Parses an RFC 3339 / ISO 8601 timestamp with offset into microseconds.
pub fn parse_time(s: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(s.trim())
        .ok()
        .map(|t| t.timestamp_micros())
}

/// ISO 8601 duration like `PT85H26M0.595279S` (as the scan `/status` uptime).
pub fn fmt_duration(micros: i64) -> String {
    let micros = micros.max(0);
    let h = micros / HOUR;
    let m = (micros / MINUTE) % 60;
    let s = (micros % MINUTE) as f64 / SECOND as f64;
    let mut out = String::from("PT");
    if h > 0 {
        let _ = write!(out, "{h}H");
    }
    if h > 0 || m > 0 {
        let _ = write!(out, "{m}M");
    }
    let _ = write!(out, "{s}S");
    out
}

// ---------------------------------------------------------------------------------------------
// Daml decimals (Numeric 10): amounts are stored as integer units of 1e-10.

pub const UNIT: i64 = 10_000_000_000;

pub fn fmt_amount(units: i64) -> String {
    let sign = if units < 0 { "-" } else { "" };
    let a = units.unsigned_abs();
    let unit = UNIT as u64;
    format!("{sign}{}.{:010}", a / unit, a % unit)
}

/// Parses a Daml decimal string such as `1234.5678000000` into units of 1e-10.
pub fn parse_amount(s: &str) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty() || frac.len() > 10 {
        return None;
    }
    let int: i64 = int.parse().ok()?;
    let mut f: i64 = 0;
    for (i, c) in frac.bytes().enumerate() {
        if !c.is_ascii_digit() {
            return None;
        }
        f += i64::from(c - b'0') * 10i64.pow(9 - i as u32);
    }
    let v = int.checked_mul(UNIT)?.checked_add(f)?;
    Some(if neg { -v } else { v })
}

// ---------------------------------------------------------------------------------------------
// Query strings

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Percent-decodes a query component (`+` is a space).
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex_val(bytes[i + 1]), hex_val(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Splits a raw query string into decoded `(key, value)` pairs, keeping repeated keys.
pub fn parse_query(raw: Option<&str>) -> Vec<(String, String)> {
    let Some(raw) = raw else { return Vec::new() };
    raw.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

pub fn query_all<'a>(q: &'a [(String, String)], key: &str) -> Vec<&'a str> {
    q.iter()
        .filter(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .collect()
}

pub fn query_one<'a>(q: &'a [(String, String)], key: &str) -> Option<&'a str> {
    q.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_formats_like_java_instants() {
        let t = parse_time("2024-06-24T21:08:34.404896Z").unwrap();
        assert_eq!(fmt_time(t), "2024-06-24T21:08:34.404896Z");
        let t = parse_time("2026-01-30T06:00:00Z").unwrap();
        assert_eq!(fmt_time(t), "2026-01-30T06:00:00Z");
        assert_eq!(fmt_time6(t), "2026-01-30T06:00:00.000000Z");
        let t = parse_time("2026-01-30T06:00:00.120Z").unwrap();
        assert_eq!(fmt_time(t), "2026-01-30T06:00:00.120Z");
        let t = parse_time("1999-12-31T23:59:59.000001+00:00").unwrap();
        assert_eq!(fmt_time(t), "1999-12-31T23:59:59.000001Z");
    }

    #[test]
    fn amounts_round_trip() {
        assert_eq!(fmt_amount(12_345_678_000_000), "1234.5678000000");
        assert_eq!(parse_amount("1234.5678000000"), Some(12_345_678_000_000));
        assert_eq!(parse_amount("-0.5"), Some(-5_000_000_000));
        assert_eq!(fmt_amount(-5_000_000_000), "-0.5000000000");
        assert_eq!(parse_amount("abc"), None);
    }

    #[test]
    fn query_parsing_keeps_repeats_and_decodes() {
        let q = parse_query(Some("validator_ids=a%3A%3A1&validator_ids=b+c&x"));
        assert_eq!(query_all(&q, "validator_ids"), vec!["a::1", "b c"]);
        assert_eq!(query_one(&q, "x"), Some(""));
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
    }

    #[test]
    fn rng_is_deterministic_and_ids_have_real_shapes() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        assert_eq!(a.next_u64(), b.next_u64());
        assert_eq!(a.fingerprint().len(), 68);
        assert_eq!(a.contract_id().len(), 138);
        for _ in 0..1000 {
            assert!(a.below(10) < 10);
            let r = a.range(-3, 3);
            assert!((-3..=3).contains(&r));
        }
    }
}
