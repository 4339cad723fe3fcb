//! The JSON text cantonscope writes (headless output, saved update bodies, JSON Lines exports):
//! [`pretty`] re-indents a server's JSON without changing a token, in time and space linear in
//! the input, and [`escape_unsafe`] / [`escape_unsafe_from`] write the characters a terminal or
//! an editor could act on or hide as `\uXXXX` escapes.
//!
//! Which characters are escaped is decided by [`crate::api::json::needs_replacing`], the same
//! test the TUI uses to neutralise server text: DEL, the C1 controls, the bidi controls (U+061C,
//! U+200E/F, U+202A–U+202E, U+2066–U+2069), zero-width and other invisible format characters
//! (U+200B–U+200D, U+2060–U+206F, U+FEFF, …), U+2028/U+2029 and the tag characters. C0 controls
//! are escaped by every JSON encoder already. An escape is the same JSON value, so the output
//! stays lossless: a JSON reader gets back the exact string the server sent.
//!
//! Limits against hostile input: containers nested deeper than [`INDENT_LEVELS`] are written
//! compactly on one line (so no line is indented by more than `2 × INDENT_LEVELS` spaces), and a
//! document nested deeper than [`MAX_DEPTH`] levels is refused with [`JsonTextError::TooDeep`].

use std::borrow::Cow;

use serde::de::IgnoredAny;

use crate::api::json::needs_replacing;

/// Deepest nesting [`pretty`] accepts (the same limit as `jq`'s parser).
pub const MAX_DEPTH: usize = 10_000;
/// Nesting levels that get their own indentation; deeper containers are written compactly.
pub const INDENT_LEVELS: usize = 32;

/// Why a body cannot be re-indented.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JsonTextError {
    /// The bytes are not UTF-8.
    #[error("the body is not UTF-8")]
    NotUtf8,
    /// The text is not one JSON value.
    #[error("the body is not JSON: {0}")]
    NotJson(String),
    /// The value nests deeper than [`MAX_DEPTH`].
    #[error("the JSON nests deeper than {MAX_DEPTH} levels; not shown")]
    TooDeep,
}

/// Whether `c` is written as a `\uXXXX` escape in JSON output (see the module docs).
#[inline]
pub fn must_escape(c: char) -> bool {
    // C0 controls never occur raw inside valid JSON strings, and outside strings only as
    // whitespace (tab, CR, LF), which stays as it is.
    u32::from(c) >= 0x7f && needs_replacing(c)
}

/// The first byte of every [`must_escape`] character in UTF-8: DEL, and the lead bytes of
/// U+0080–U+00AD (C2), U+061C (D8), U+180E (E1), U+200B–U+206F (E2), U+FEFF–U+FFFB (EF) and
/// U+E0000–U+E007F (F3), checked for every character by a test. None of them is a continuation
/// byte, so each starts a character.
const ESCAPE_LEADS: [u8; 7] = [0x7f, 0xc2, 0xd8, 0xe1, 0xe2, 0xef, 0xf3];

/// [`ESCAPE_LEADS`] as a table by byte.
static IS_ESCAPE_LEAD: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < ESCAPE_LEADS.len() {
        table[ESCAPE_LEADS[i] as usize] = true;
        i += 1;
    }
    table
};

/// Where the first [`must_escape`] character of `s` starts.
fn first_escape(s: &str) -> Option<usize> {
    first_escape_in(s.as_bytes())
}

/// Where the first [`must_escape`] character of the UTF-8 text `bytes` starts: ASCII below
/// DEL (nearly all of a row or a line) is passed over eight bytes at a time, and a character
/// is decoded only where one of [`ESCAPE_LEADS`] starts it (a lead that starts no valid
/// character is passed over).
fn first_escape_in(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    while let Some(&lead) = bytes.get(at) {
        if let Some(word) = bytes
            .get(at..at + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map(u64::from_le_bytes)
            // A byte's high bit, or the high bit of it plus one: set from DEL up (a carry
            // into the next byte can only set a bit, so the bytes are then looked at one by one).
            && (word | word.wrapping_add(ONES)) & HIGHS == 0
        {
            at += 8;
            continue;
        }
        if IS_ESCAPE_LEAD[usize::from(lead)] {
            let width = match lead {
                0x00..=0x7f => 1,
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            if bytes
                .get(at..at + width)
                .and_then(|c| std::str::from_utf8(c).ok())
                .and_then(|c| c.chars().next())
                .is_some_and(must_escape)
            {
                return Some(at);
            }
        }
        at += 1;
    }
    None
}

/// Appends `c` as one `\uXXXX` escape (two, a surrogate pair, above U+FFFF).
fn push_escape(out: &mut String, c: char) {
    let mut units = [0u16; 2];
    for unit in c.encode_utf16(&mut units) {
        out.push_str(&format!("\\u{unit:04x}"));
    }
}

/// JSON text with every [`must_escape`] character written as a `\uXXXX` escape. `json` must be
/// JSON text (as any serializer writes it): such characters can only occur inside its strings,
/// where an escape is the same value. Borrowed when nothing had to change.
pub fn escape_unsafe(json: &str) -> Cow<'_, str> {
    match first_escape(json) {
        Some(first) => Cow::Owned(escaped_from(json, first)),
        None => Cow::Borrowed(json),
    }
}

/// `json` with every [`must_escape`] character from byte `first` on (the first of them) escaped.
fn escaped_from(json: &str, first: usize) -> String {
    let mut out = String::with_capacity(json.len() + 16);
    out.push_str(&json[..first]);
    for c in json[first..].chars() {
        if must_escape(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

/// [`escape_unsafe`] applied in place to the JSON text `out[start..]` (e.g. one JSON Lines row
/// just serialised into a buffer). Text that is not UTF-8 is left alone.
pub fn escape_unsafe_from(out: &mut Vec<u8>, start: usize) {
    let Some(tail) = out.get(start..) else { return };
    // One pass over the bytes; the text checked as UTF-8 only when it has one to escape.
    let Some(first) = first_escape_in(tail) else {
        return;
    };
    let Ok(text) = std::str::from_utf8(tail) else {
        return;
    };
    let escaped = escaped_from(text, first);
    out.truncate(start);
    out.extend_from_slice(escaped.as_bytes());
}

/// [`pretty`] over bytes that should be UTF-8 JSON (a response body).
pub fn pretty_bytes(bytes: &[u8]) -> Result<String, JsonTextError> {
    let text = std::str::from_utf8(bytes).map_err(|_| JsonTextError::NotUtf8)?;
    pretty(text)
}

/// Re-indents a JSON document as `serde_json::to_string_pretty` lays it out (2 spaces,
/// `"key": value`, empty containers as `{}` / `[]`) without changing any token: keys, strings
/// and numbers keep their exact text, so nothing is lost (not the digits of a large number, not
/// a duplicate key). [`must_escape`] characters inside strings are written as `\uXXXX` escapes.
///
/// Linear in the input: containers deeper than [`INDENT_LEVELS`] are written compactly, and a
/// document deeper than [`MAX_DEPTH`] is refused. The input is checked to be JSON first (with
/// serde_json's iterative validator, which has no recursion to overflow).
pub fn pretty(text: &str) -> Result<String, JsonTextError> {
    serde_json::from_str::<IgnoredAny>(text).map_err(|e| JsonTextError::NotJson(e.to_string()))?;
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    let mut depth = 0usize;
    let mut i = 0usize;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'"' => i = copy_string(text, i, &mut out),
            b'{' | b'[' => {
                let close = if b == b'{' { b'}' } else { b']' };
                let mut next = i + 1;
                while next < bytes.len() && bytes[next].is_ascii_whitespace() {
                    next += 1;
                }
                if depth == MAX_DEPTH {
                    return Err(JsonTextError::TooDeep);
                }
                out.push(char::from(b));
                if bytes.get(next) == Some(&close) {
                    out.push(char::from(close));
                    i = next + 1;
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                    i += 1;
                }
            }
            b'}' | b']' => {
                let inner = depth;
                depth = depth.saturating_sub(1);
                if inner <= INDENT_LEVELS {
                    newline(&mut out, depth);
                }
                out.push(char::from(b));
                i += 1;
            }
            b',' => {
                out.push(',');
                newline(&mut out, depth);
                i += 1;
            }
            b':' => {
                out.push_str(if depth <= INDENT_LEVELS { ": " } else { ":" });
                i += 1;
            }
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            _ => {
                // A number or a literal: ASCII up to the next delimiter.
                let end = bytes[i..]
                    .iter()
                    .position(|b| matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'))
                    .map_or(bytes.len(), |n| i + n);
                out.push_str(&text[i..end]);
                i = end;
            }
        }
    }
    Ok(out)
}

/// A line break and the indentation of `depth`; nothing inside compactly written containers.
fn newline(out: &mut String, depth: usize) {
    if depth <= INDENT_LEVELS {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    }
}

/// Copies the JSON string starting with the `"` at `start` (escapes kept as written, unsafe
/// characters escaped); returns the index after its closing quote.
fn copy_string(text: &str, start: usize, out: &mut String) -> usize {
    let bytes = text.as_bytes();
    let mut i = start + 1;
    let mut run = start;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => {
                out.push_str(&text[run..=i]);
                return i + 1;
            }
            b if b < 0x7f => i += 1,
            _ => {
                let c = text[i..].chars().next().unwrap_or('\u{fffd}');
                if must_escape(c) {
                    out.push_str(&text[run..i]);
                    push_escape(out, c);
                    run = i + c.len_utf8();
                }
                i += c.len_utf8();
            }
        }
    }
    // Unterminated (cannot happen after validation): keep what there is.
    out.push_str(&text[run.min(bytes.len())..]);
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn every_character_to_escape_starts_with_a_byte_the_quick_check_looks_for() {
        let mut escaped = 0;
        for c in (0..=0x10_ffff_u32).filter_map(char::from_u32) {
            if must_escape(c) {
                let mut buf = [0u8; 4];
                let first = c.encode_utf8(&mut buf).as_bytes()[0];
                assert!(ESCAPE_LEADS.contains(&first), "{:#x}", u32::from(c));
                escaped += 1;
            }
        }
        assert!(escaped > 100, "{escaped}");
        assert_eq!(
            escape_unsafe("caf\u{e9} \u{2014} \u{1f600}"),
            "caf\u{e9} \u{2014} \u{1f600}"
        );
        assert_eq!(first_escape("\u{2014}\u{fe0f}x\u{7f}"), Some(7));
        assert_eq!(escape_unsafe("\"a\u{202e}b\""), "\"a\\u202eb\"");
    }

    #[test]
    fn keeps_every_token_and_matches_serde_layout() {
        let body = r#"{"a":1,"big":123456789012345678901234567890,"f":1.10,"e":{},"l":[ ],"s":"x\"y,{","n":[1,{"b":null}]}"#;
        let out = pretty(body).expect("json");
        assert_eq!(
            out,
            "{\n  \"a\": 1,\n  \"big\": 123456789012345678901234567890,\n  \"f\": 1.10,\n  \
             \"e\": {},\n  \"l\": [],\n  \"s\": \"x\\\"y,{\",\n  \"n\": [\n    1,\n    {\n      \
             \"b\": null\n    }\n  ]\n}"
        );
        let plain = json!({"a": [1, {"b": null, "c": [[], {}]}], "s": "x,{y}:", "t": true});
        assert_eq!(
            pretty(&plain.to_string()).expect("json"),
            serde_json::to_string_pretty(&plain).expect("serialises")
        );
    }

    #[test]
    fn escapes_terminal_and_bidi_characters_losslessly() {
        let s = "a\u{9b}31mb\u{202e}c\u{7f}d\u{61c}e\u{200b}f\u{feff}g\u{2066}h\u{e0041}i é ü 日本";
        let body = serde_json::to_string(&json!({ "x": s })).expect("json");
        let out = pretty(&body).expect("json");
        assert!(!out.chars().any(must_escape), "{out}");
        assert!(
            out.contains("\\u202e") && out.contains("\\udb40\\udc41"),
            "{out}"
        );
        assert!(out.contains("é ü 日本"), "ordinary text is kept");
        let back: Value = serde_json::from_str(&out).expect("json");
        assert_eq!(back["x"], s);
        let escaped = escape_unsafe(&body);
        assert!(!escaped.chars().any(must_escape), "{escaped}");
        let back: Value = serde_json::from_str(&escaped).expect("json");
        assert_eq!(back["x"], s);
        assert!(matches!(escape_unsafe("{\"a\":\"é\"}"), Cow::Borrowed(_)));
    }

    #[test]
    fn rejects_non_json() {
        assert!(matches!(pretty("<html>"), Err(JsonTextError::NotJson(_))));
        assert!(matches!(pretty("{\"a\":"), Err(JsonTextError::NotJson(_))));
        assert_eq!(pretty_bytes(b"\xff"), Err(JsonTextError::NotUtf8));
    }

    #[test]
    fn a_character_to_escape_is_found_at_every_place_of_the_eight_byte_steps() {
        for c in [
            '\u{7f}',
            '\u{9b}',
            '\u{61c}',
            '\u{202e}',
            '\u{feff}',
            '\u{e0041}',
        ] {
            for (before, kept) in (0..20).flat_map(|n| [(n, ""), (n, "é\u{2192}")]) {
                // Plain ASCII, text to keep (a lead byte of the escaped ones among them) or
                // none, the character, plain ASCII.
                let text = format!("{}{kept}{c}tail of it", "a".repeat(before));
                let at = before + kept.len();
                assert_eq!(
                    first_escape(&text),
                    Some(at),
                    "{:#x} after {before}",
                    u32::from(c)
                );
                let mut out = b"x".to_vec();
                out.extend_from_slice(text.as_bytes());
                escape_unsafe_from(&mut out, 1);
                let done = std::str::from_utf8(&out[1..]).expect("utf-8");
                assert!(!done.chars().any(must_escape), "{done}");
                assert_eq!(done, escape_unsafe(&text));
            }
        }
        let kept = format!("{}\u{2192} é \u{1f600}{}", "b".repeat(13), "c".repeat(9));
        assert_eq!(first_escape(&kept), None);
        let mut out = kept.clone().into_bytes();
        escape_unsafe_from(&mut out, 0);
        assert_eq!(out, kept.as_bytes(), "nothing to escape: left as it was");
        let mut not_utf8 = b"abcdefghij\xe2\x80".to_vec();
        escape_unsafe_from(&mut not_utf8, 0);
        assert_eq!(not_utf8, b"abcdefghij\xe2\x80", "not UTF-8: left alone");
    }

    #[test]
    fn escape_in_place_only_touches_the_tail() {
        let mut out = b"\xc2\x9b".to_vec();
        let start = out.len();
        serde_json::to_writer(&mut out, &"a\u{9b}31mb\u{7f}c\u{1b}é\u{202e}").expect("json");
        escape_unsafe_from(&mut out, start);
        assert_eq!(&out[..start], b"\xc2\x9b");
        let tail = std::str::from_utf8(&out[start..]).expect("utf-8");
        assert_eq!(tail, r#""a\u009b31mb\u007fc\u001bé\u202e""#);
        let back: String = serde_json::from_str(tail).expect("still JSON");
        assert_eq!(back, "a\u{9b}31mb\u{7f}c\u{1b}é\u{202e}");
    }
}
