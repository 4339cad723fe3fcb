//! The Prometheus text exposition format (a node's `/metrics`) (version 0.0.4), read line by line into flat samples,
//! the way PromQL sees them: a histogram is its `_bucket{le=…}`, `_sum` and `_count` samples.
//!
//! Written here rather than taken from a crate: `prometheus-parse` 0.2.5 splits labels on `,`
//! and `=` and matches them with `\{[^}]+\}`, so a label value holding an escaped quote, a comma
//! or a `}` loses the whole line without a word; `openmetrics-parser` 0.5 is LGPL-3.0 (this
//! crate is Apache-2.0) and refuses a whole exposition over one family's differing label sets.
//! This reader keeps every well-formed line and counts the others, never panics on any input
//! (proptest in `tests/it/fuzz.rs`), and holds at most [`Limits`] samples and labels, so a
//! hostile endpoint costs no more memory than its (already capped) body.
//!
//! Handled: `# HELP` / `# TYPE` and other comments (skipped), blank lines, label values with
//! `\\`, `\"` and `\n` escapes (and any other `\x` kept as written), a trailing comma in the
//! label set, `NaN`, `+Inf`, `-Inf` (any case), Go-style floats, an optional integer timestamp
//! in milliseconds, `\r\n` line ends, UTF-8 anywhere (invalid bytes replaced before).

/// One sample: a metric name, its labels (sorted by name, no duplicate names), its value and
/// its optional timestamp (ms since the epoch).
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The metric name (`daml_sequencer_client_handler_last_sequencing_time_micros`).
    pub name: String,
    /// `(name, value)` pairs, sorted by name.
    pub labels: Vec<(String, String)>,
    /// The value (may be `NaN` or infinite).
    pub value: f64,
    /// The sample's own timestamp, ms since the epoch, when the line gives one.
    pub timestamp_ms: Option<i64>,
}

impl Sample {
    /// The value of label `name`, if the sample has it.
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels
            .binary_search_by(|(key, _)| key.as_str().cmp(name))
            .ok()
            .map(|index| self.labels[index].1.as_str())
    }
}

/// How much one exposition may hold once parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most samples kept; the lines after are counted as dropped.
    pub max_samples: usize,
    /// Most labels of one sample; a line with more is skipped.
    pub max_labels: usize,
    /// Longest line read; a longer one is skipped.
    pub max_line: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_samples: 500_000,
            max_labels: 64,
            max_line: 64 * 1024,
        }
    }
}

/// A parsed exposition.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Exposition {
    /// The well-formed sample lines, in the order written.
    pub samples: Vec<Sample>,
    /// Lines that were not comments, not blank and not well-formed samples (or were over the
    /// limits).
    pub skipped: usize,
}

/// Parses an exposition with the default [`Limits`].
pub fn parse(text: &str) -> Exposition {
    parse_with(text, Limits::default())
}

/// Parses an exposition within `limits`.
pub fn parse_with(text: &str, limits: Limits) -> Exposition {
    let mut out = Exposition::default();
    for raw in text.split('\n') {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let trimmed = line.trim_start_matches([' ', '\t']);
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if out.samples.len() >= limits.max_samples || line.len() > limits.max_line {
            out.skipped += 1;
            continue;
        }
        match parse_line(trimmed, limits.max_labels) {
            Some(sample) => out.samples.push(sample),
            None => out.skipped += 1,
        }
    }
    out
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b':'
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b':'
}

/// One sample line (leading blanks removed); `None` when it is not well-formed.
fn parse_line(line: &str, max_labels: usize) -> Option<Sample> {
    let bytes = line.as_bytes();
    if !bytes.first().copied().is_some_and(is_name_start) {
        return None;
    }
    let name_end = bytes
        .iter()
        .position(|c| !is_name_char(*c))
        .unwrap_or(bytes.len());
    let name = &line[..name_end];
    let mut rest = line[name_end..].trim_start_matches([' ', '\t']);
    let mut labels = Vec::new();
    if let Some(after) = rest.strip_prefix('{') {
        let (parsed, tail) = parse_labels(after, max_labels)?;
        labels = parsed;
        rest = tail;
    }
    let mut parts = rest.split([' ', '\t']).filter(|part| !part.is_empty());
    let value = parse_float(parts.next()?)?;
    let timestamp_ms = match parts.next() {
        Some(text) => Some(text.parse::<i64>().ok()?),
        None => None,
    };
    if parts.next().is_some() {
        return None;
    }
    labels.sort_by(|a: &(String, String), b| a.0.cmp(&b.0));
    if labels.windows(2).any(|pair| pair[0].0 == pair[1].0) {
        return None;
    }
    Some(Sample {
        name: name.to_owned(),
        labels,
        value,
        timestamp_ms,
    })
}

/// The labels after `{` up to and including `}`; returns them and the text after `}`.
fn parse_labels(text: &str, max_labels: usize) -> Option<(Vec<(String, String)>, &str)> {
    let mut labels = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches([' ', '\t']);
        if let Some(after) = rest.strip_prefix('}') {
            return Some((labels, after));
        }
        if labels.len() >= max_labels {
            return None;
        }
        let bytes = rest.as_bytes();
        if !bytes.first().copied().is_some_and(is_name_start) {
            return None;
        }
        let end = bytes
            .iter()
            .position(|c| !is_name_char(*c))
            .unwrap_or(bytes.len());
        let key = &rest[..end];
        rest = rest[end..].trim_start_matches([' ', '\t']);
        rest = rest.strip_prefix('=')?.trim_start_matches([' ', '\t']);
        rest = rest.strip_prefix('"')?;
        let (value, after) = parse_quoted(rest)?;
        labels.push((key.to_owned(), value));
        rest = after.trim_start_matches([' ', '\t']);
        if let Some(after) = rest.strip_prefix(',') {
            rest = after;
        } else if !rest.starts_with('}') {
            return None;
        }
    }
}

/// A label value after its opening quote: the unescaped value and the text after the closing
/// quote.
fn parse_quoted(text: &str) -> Option<(String, &str)> {
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((index, c)) = chars.next() {
        match c {
            '"' => return Some((value, &text[index + 1..])),
            '\\' => match chars.next()?.1 {
                'n' => value.push('\n'),
                '\\' => value.push('\\'),
                '"' => value.push('"'),
                other => {
                    value.push('\\');
                    value.push(other);
                }
            },
            c => value.push(c),
        }
    }
    None
}

/// A sample value: a float as Go writes them, `NaN`, `+Inf`, `-Inf` (any case).
pub fn parse_float(text: &str) -> Option<f64> {
    let lower = text.to_ascii_lowercase();
    match lower.as_str() {
        "nan" => Some(f64::NAN),
        "+inf" | "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        _ if lower.contains("inf") || lower.contains("nan") => None,
        _ => lower.parse::<f64>().ok(),
    }
}

#[cfg(test)]
#[allow(clippy::float_cmp, clippy::format_collect)]
mod tests {
    use super::*;

    const UPSTREAM: &str = r#"# HELP http_requests_total The total number of HTTP requests.
# TYPE http_requests_total counter
http_requests_total{method="post",code="200"} 1027 1395066363000
http_requests_total{method="post",code="400"}    3 1395066363000

# Escaping in label values:
msdos_file_access_time_seconds{path="C:\\DIR\\FILE.TXT",error="Cannot find file:\n\"FILE.TXT\""} 1.458255915e9

# Minimalistic line:
metric_without_timestamp_and_labels 12.47

# A weird metric from before the epoch:
something_weird{problem="division by zero"} +Inf -3982045

# A histogram, which has a pretty complex representation in the text format:
# HELP http_request_duration_seconds A histogram of the request duration.
# TYPE http_request_duration_seconds histogram
http_request_duration_seconds_bucket{le="0.05"} 24054
http_request_duration_seconds_bucket{le="+Inf"} 144320
http_request_duration_seconds_sum 53423
http_request_duration_seconds_count 144320
"#;

    #[test]
    fn the_upstream_example() {
        let parsed = parse(UPSTREAM);
        assert_eq!(parsed.skipped, 0);
        assert_eq!(parsed.samples.len(), 9);
        let first = &parsed.samples[0];
        assert_eq!(first.name, "http_requests_total");
        assert_eq!(first.label("code"), Some("200"));
        assert_eq!(first.label("method"), Some("post"));
        assert_eq!(first.timestamp_ms, Some(1_395_066_363_000));
        let escaped = &parsed.samples[2];
        assert_eq!(escaped.label("path"), Some(r"C:\DIR\FILE.TXT"));
        assert_eq!(
            escaped.label("error"),
            Some("Cannot find file:\n\"FILE.TXT\"")
        );
        let weird = &parsed.samples[4];
        assert_eq!(weird.value, f64::INFINITY);
        assert_eq!(weird.timestamp_ms, Some(-3_982_045));
        assert_eq!(parsed.samples[6].label("le"), Some("+Inf"));
        assert_eq!(
            parsed.samples[8].name,
            "http_request_duration_seconds_count"
        );
    }

    #[test]
    fn label_values_with_commas_braces_and_equals() {
        let parsed = parse("m{a=\"x,y=z}\", b = \"\" ,} NaN\r\nn -inf\n");
        assert_eq!(parsed.skipped, 0);
        assert_eq!(parsed.samples[0].label("a"), Some("x,y=z}"));
        assert_eq!(parsed.samples[0].label("b"), Some(""));
        assert!(parsed.samples[0].value.is_nan());
        assert_eq!(parsed.samples[1].value, f64::NEG_INFINITY);
    }

    #[test]
    fn malformed_lines_are_counted_not_kept() {
        for line in [
            "1abc 2",
            "m{a=\"x\" 2",
            "m{a=x} 2",
            "m{a=\"x\"",
            "m",
            "m two",
            "m 1 2 3",
            "m 1 1.5",
            "m{a=\"1\",a=\"2\"} 1",
            "m infinity",
            "m{a=\"\\",
        ] {
            let parsed = parse(line);
            assert_eq!(parsed.samples, [], "{line}");
            assert_eq!(parsed.skipped, 1, "{line}");
        }
    }

    #[test]
    fn limits_hold() {
        let text = "a 1\nb 2\nc 3\n";
        let parsed = parse_with(
            text,
            Limits {
                max_samples: 2,
                ..Limits::default()
            },
        );
        assert_eq!(parsed.samples.len(), 2);
        assert_eq!(parsed.skipped, 1);
        let many: String = (0..70).map(|i| format!("l{i}=\"v\",")).collect();
        let parsed = parse(&format!("m{{{many}}} 1"));
        assert_eq!(parsed.skipped, 1);
    }
}
