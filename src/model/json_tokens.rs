//! Where a JSON token ends, for the readers that take text as it is when it is already in the
//! form `serde_json` prints (`index::canonical_fast`, the indexer's events rows): a literal, a
//! string without escapes, an integer as `serde_json` writes it back. Each gives the index
//! past the token, `None` where the text is not in that form (the caller then decodes it).

/// `word` (`true`, `false`, `null`) at `at`.
pub fn literal_end(bytes: &[u8], at: usize, word: &[u8]) -> Option<usize> {
    bytes[at..].starts_with(word).then_some(at + word.len())
}

/// A string at `at` (its opening quote) without escapes and, when `controls` is set, without a
/// byte below 0x20 (`serde_json` writes those escaped in its own way, which the text may not):
/// past its closing quote.
pub fn plain_string_end(bytes: &[u8], at: usize, controls: bool) -> Option<usize> {
    let rest = &bytes[at + 1..];
    let end = memchr::memchr2(b'"', b'\\', rest)?;
    if rest[end] != b'"' || (controls && rest[..end].iter().any(|b| *b < 0x20)) {
        return None;
    }
    Some(at + 1 + end + 1)
}

/// An integer at `at` as `serde_json` writes it back: no leading zero, no `-0`, within `u64`
/// or `i64` (beyond them it becomes a float); a fraction or an exponent is not taken.
pub fn integer_end(bytes: &[u8], at: usize) -> Option<usize> {
    let negative = bytes[at] == b'-';
    let digits_at = at + usize::from(negative);
    let len = bytes[digits_at..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let end = digits_at + len;
    let digits = &bytes[digits_at..end];
    if len == 0
        || (digits[0] == b'0' && (len > 1 || negative))
        || matches!(bytes.get(end), Some(b'.' | b'e' | b'E'))
    {
        return None;
    }
    if len >= 19 {
        // Near the limits: as serde_json decides between an integer and a float.
        let text = std::str::from_utf8(&bytes[at..end]).ok()?;
        let fits = if negative {
            text.parse::<i64>().is_ok()
        } else {
            text.parse::<u64>().is_ok()
        };
        if !fits {
            return None;
        }
    }
    Some(end)
}

/// Objects whose one value is not in the form `serde_json` prints (a fraction, an exponent, a
/// negative zero, an integer past 64 bits either way, an escaped quote): every reader of this
/// module's callers must leave them to the decoder. Their tests share the list.
#[cfg(test)]
pub const NOT_PRINTED_FORM: [&str; 6] = [
    r#"{"a":1.5}"#,
    r#"{"a":1e3}"#,
    r#"{"a":-0}"#,
    r#"{"a":18446744073709551616}"#,
    r#"{"a":-9223372036854775809}"#,
    r#"{"a":"q\"uote"}"#,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_taken_only_in_the_form_serde_json_writes_back() {
        let end = |t: &str| integer_end(t.as_bytes(), 0);
        assert_eq!(end("42,"), Some(2));
        assert_eq!(end("-7]"), Some(2));
        assert_eq!(end("0"), Some(1));
        assert_eq!(end("007"), None);
        assert_eq!(end("-0"), None);
        assert_eq!(end("1.5"), None);
        assert_eq!(end("1e3"), None);
        assert_eq!(end("-"), None);
        assert_eq!(end("18446744073709551615"), Some(20));
        assert_eq!(end("18446744073709551616"), None);
        assert_eq!(end("-9223372036854775808"), Some(20));
        assert_eq!(end("-9223372036854775809"), None);
    }

    #[test]
    fn strings_with_escapes_or_unchecked_controls_are_left_to_the_decoder() {
        assert_eq!(plain_string_end(br#""abc":1"#, 0, true), Some(5));
        assert_eq!(plain_string_end(br#""a\"b""#, 0, true), None);
        assert_eq!(plain_string_end(b"\"a\x01b\"", 0, true), None);
        assert_eq!(plain_string_end(b"\"a\x01b\"", 0, false), Some(5));
        assert_eq!(plain_string_end(b"\"open", 0, true), None);
        assert_eq!(literal_end(b"null,", 0, b"null"), Some(4));
        assert_eq!(literal_end(b"nul", 0, b"null"), None);
    }
}
