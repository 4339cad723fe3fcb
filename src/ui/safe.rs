//! Untrusted text made safe to draw.
//!
//! Every string that comes from a server (ids, party names, template names, JSON payloads, error
//! bodies) passes through this module before it reaches a [`ratatui::buffer::Buffer`]. The
//! sanitizer replaces everything a terminal could interpret, or that could hide or reorder what
//! the user sees, with a visible one-column placeholder:
//!
//! | input                                                             | shown as                |
//! |-------------------------------------------------------------------|-------------------------|
//! | C0 control U+0000–U+001F (tab, CR and, single-line, LF included)  | its control picture U+2400 + code: `␀` … `␟` (`␉`, `␍`, `␊`, `␛`) |
//! | DEL U+007F                                                        | `␡`                     |
//! | an escape sequence: ESC or an 8-bit C1 introducer (CSI U+009B, OSC U+009D, DCS U+0090, SOS U+0098, PM U+009E, APC U+009F) and the whole sequence it starts (CSI parameters and final byte, OSC/DCS/… string up to BEL or ST) | one `␛` |
//! | any other C1 control U+0080–U+009F                                | `�` (U+FFFD)            |
//! | bidi controls (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069) and invisible format characters (U+00AD, U+180E, U+200B–U+200D, U+2028/9, U+2060–U+206F, U+FEFF, U+FFF9–U+FFFB, tags U+E0000–U+E007F) | `�` (U+FFFD) |
//!
//! An unterminated string sequence (`ESC ]` with no BEL/ST after it) only loses its introducer:
//! the rest stays visible (sanitized), so a malformed payload can never hide the text after it.
//!
//! [`sanitize`] is the single-line form (LF becomes `␊`); [`sanitize_multiline`] keeps LF (and
//! drops the CR of a CRLF pair) for multi-line displays such as error bodies. [`truncate_width`]
//! cuts by display width (unicode-width) and marks the cut with `…`. [`safe_line`] does both in a
//! single pass that stops reading once the width budget is spent, so a 1 MB string costs as much
//! as the visible part. All functions return [`Cow::Borrowed`] when nothing had to change: no
//! allocation on the per-cell, per-frame hot path for clean text.

use std::borrow::Cow;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The marker appended where [`truncate_width`] / [`safe_line`] cut a string.
pub const ELLIPSIS: char = '…';
/// Placeholder for a whole escape sequence.
pub const ESCAPE_MARK: char = '␛';
pub use crate::api::json::{INVISIBLE_MARK, needs_replacing};
/// Placeholder for DEL.
pub const DEL_MARK: char = '␡';

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;

/// Replaces control characters, escape sequences and bidi/invisible characters with visible
/// placeholders (see the module docs). Newlines are replaced too: use this for anything drawn on
/// one line. Borrowed when `s` is already clean.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    sanitize_impl(s, false)
}

/// Like [`sanitize`] but keeps `\n` (a CR directly before an LF is dropped) so multi-line text
/// (JSON bodies, error details) keeps its shape. Borrowed when `s` is already clean.
pub fn sanitize_multiline(s: &str) -> Cow<'_, str> {
    sanitize_impl(s, true)
}

/// Whether `s` would be returned unchanged by [`sanitize`].
pub fn is_clean(s: &str) -> bool {
    first_unsafe(s, false).is_none()
}

/// Cuts `s` to at most `max_cols` display columns, ending with `…` when something was cut.
/// Borrowed when `s` already fits. Reads only as much of `s` as fits (plus one character).
/// Does not sanitize: see [`safe_line`].
pub fn truncate_width(s: &str, max_cols: usize) -> Cow<'_, str> {
    let mut used = 0usize;
    let mut end = 0usize; // end of the prefix that fits with room for the marker
    let mut fitting = true;
    for (i, c) in s.char_indices() {
        let w = c.width().unwrap_or(0);
        if fitting && used + w < max_cols {
            end = i + c.len_utf8();
        } else {
            fitting = false;
        }
        used += w;
        if used > max_cols {
            if max_cols == 0 {
                return Cow::Borrowed("");
            }
            let mut out = String::with_capacity(end + ELLIPSIS.len_utf8());
            out.push_str(&s[..end]);
            fit(&mut out, max_cols, true);
            return Cow::Owned(out);
        }
    }
    // Fits by character widths; the string width decides (emoji sequences can be wider).
    if s.width() <= max_cols {
        Cow::Borrowed(s)
    } else {
        let mut out = s.to_string();
        fit(&mut out, max_cols, false);
        Cow::Owned(out)
    }
}

/// Makes `out` (plus the `…` marker when `cut`) at most `max_cols` wide as the terminal will
/// measure it: string width can exceed the sum of character widths (`2` + U+FE0F is an emoji,
/// two columns wide), so characters are dropped from the end until it fits.
fn fit(out: &mut String, max_cols: usize, mut cut: bool) {
    while out.width() + usize::from(cut) > max_cols {
        if out.pop().is_none() {
            break;
        }
        cut = true;
    }
    if cut && max_cols > 0 {
        out.push(ELLIPSIS);
    }
}

/// [`sanitize`] then [`truncate_width`], in one pass that reads only as much of `s` as fits in
/// `max_cols` columns. This is the function to call for untrusted text in a table cell, a tree
/// label or a header field. Borrowed when `s` is clean and fits.
#[inline]
pub fn safe_line(s: &str, max_cols: usize) -> Cow<'_, str> {
    // Fastest paths, printable ASCII (one column a byte, nothing to replace), checked without a
    // width lookup a character: within the width (most table cells) it is itself; past it (an
    // id in a narrow column), as many columns as fit but one, then the marker, when the first
    // `max_cols + 1` bytes are (so its width passes `max_cols` whatever follows).
    if s.len() <= max_cols {
        if is_printable_ascii(s) {
            return Cow::Borrowed(s);
        }
    } else if max_cols > 0 && printable_ascii_bytes(&s.as_bytes()[..=max_cols]) {
        let mut out = String::with_capacity(max_cols - 1 + ELLIPSIS.len_utf8());
        out.push_str(&s[..max_cols - 1]);
        out.push(ELLIPSIS);
        return Cow::Owned(out);
    }
    safe_line_general(s, max_cols)
}

/// [`safe_line`] of any text: its fast paths kept out of line.
#[inline(never)]
fn safe_line_general(s: &str, max_cols: usize) -> Cow<'_, str> {
    // Fast path: clean and within the width, found without reading past the budget.
    let mut used = 0usize;
    let mut clean = true;
    for c in s.chars() {
        if needs_replacing(c) {
            clean = false;
            break;
        }
        used += c.width().unwrap_or(0);
        if used > max_cols {
            break;
        }
    }
    if clean && used <= max_cols {
        return truncate_width(s, max_cols);
    }
    if max_cols == 0 {
        return Cow::Borrowed("");
    }
    let mut out = String::new();
    let mut used = 0usize;
    let mut cut = false;
    let mut pos = 0usize;
    while let Some(c) = s[pos..].chars().next() {
        let (consumed, mark) = if needs_replacing(c) {
            let (n, piece) = special_at(&s[pos..], false);
            let mark = match piece {
                Piece::Mark(m) => m,
                // Single-line: never a kept newline; draw it as its picture anyway.
                Piece::Newline | Piece::Text(_) => '␊',
            };
            (n, mark)
        } else {
            (c.len_utf8(), c)
        };
        let w = if needs_replacing(c) {
            1
        } else {
            c.width().unwrap_or(0)
        };
        if used + w > max_cols {
            cut = true;
            break;
        }
        used += w;
        out.push(mark);
        pos += consumed;
    }
    fit(&mut out, max_cols, cut);
    Cow::Owned(out)
}

/// Whether `s` is printable ASCII only (U+0020–U+007E): one column a byte, nothing that
/// [`sanitize`] replaces.
#[inline]
pub fn is_printable_ascii(s: &str) -> bool {
    printable_ascii_bytes(s.as_bytes())
}

/// [`is_printable_ascii`] of bytes (a prefix of a string, which need not end on a character's
/// boundary).
#[inline]
fn printable_ascii_bytes(bytes: &[u8]) -> bool {
    bytes.iter().all(|b| (0x20..0x7f).contains(b))
}

/// Whether `c` is a character [`Buffer::set_stringn`](ratatui::buffer::Buffer::set_stringn)
/// writes into exactly one cell on its own, whatever comes before or after it in a string of
/// such characters: printable ASCII and the symbols the app itself writes (the ellipsis of a cut
/// value, arrows, dots, dashes, sort marks, box-drawing lines). None of them is a combining
/// mark, a joiner or wide, so a string of them is one grapheme a character, one column each.
#[inline]
pub fn is_one_cell(c: char) -> bool {
    matches!(c, ' '..='~')
        || matches!(
            c,
            '…' | '→' | '←' | '↑' | '↓' | '·' | '–' | '—' | '•' | '▲' | '▼' | '▸' | '▾' | '✓' | '✗'
        )
        // Box drawing (U+2500–U+257F): borders and tree lines.
        || ('\u{2500}'..='\u{257f}').contains(&c)
}

fn sanitize_impl(s: &str, keep_newlines: bool) -> Cow<'_, str> {
    let Some(first) = first_unsafe(s, keep_newlines) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str(&s[..first]);
    for piece in Pieces::at(s, first, keep_newlines) {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Mark(m) => out.push(m),
            Piece::Newline => out.push('\n'),
        }
    }
    Cow::Owned(out)
}

/// Byte offset of the first character that needs replacing, if any.
#[inline]
fn first_unsafe(s: &str, keep_newlines: bool) -> Option<usize> {
    let bytes = s.as_bytes();
    // ASCII fast path: printable ASCII is always clean.
    let ascii_clean = bytes
        .iter()
        .position(|&b| !(0x20..0x7f).contains(&b))
        .unwrap_or(bytes.len());
    if ascii_clean == bytes.len() {
        return None;
    }
    s[ascii_clean..]
        .char_indices()
        .find(|&(_, c)| needs_replacing(c) && !(keep_newlines && c == '\n'))
        .map(|(i, _)| ascii_clean + i)
}

/// A run of clean text or one placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    Mark(char),
    Newline,
}

/// Splits a string into clean runs and placeholders.
struct Pieces<'a> {
    s: &'a str,
    pos: usize,
    keep_newlines: bool,
}

impl<'a> Pieces<'a> {
    fn at(s: &'a str, pos: usize, keep_newlines: bool) -> Self {
        Self {
            s,
            pos,
            keep_newlines,
        }
    }
}

impl<'a> Iterator for Pieces<'a> {
    type Item = Piece<'a>;

    fn next(&mut self) -> Option<Piece<'a>> {
        let rest = self.s.get(self.pos..)?;
        let mut chars = rest.char_indices();
        let (_, c) = chars.next()?;
        if !needs_replacing(c) {
            let end = first_unsafe(rest, self.keep_newlines).unwrap_or(rest.len());
            let end = if end == 0 { c.len_utf8() } else { end };
            self.pos += end;
            return Some(Piece::Text(&rest[..end]));
        }
        let (consumed, piece) = special_at(rest, self.keep_newlines);
        self.pos += consumed;
        Some(piece)
    }
}

/// The replacement for the character at the start of `rest`, which needs replacing, and how
/// many bytes it covers (a whole escape sequence, or CRLF when keeping newlines).
fn special_at(rest: &str, keep_newlines: bool) -> (usize, Piece<'static>) {
    let bytes = rest.as_bytes();
    let Some(c) = rest.chars().next() else {
        return (0, Piece::Mark(INVISIBLE_MARK));
    };
    match c {
        '\n' if keep_newlines => (1, Piece::Newline),
        '\r' if keep_newlines && bytes.get(1) == Some(&b'\n') => (2, Piece::Newline),
        '\u{1b}' => (escape_len(bytes), Piece::Mark(ESCAPE_MARK)),
        '\u{9b}' => (csi_len(bytes, 2), Piece::Mark(ESCAPE_MARK)),
        '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => {
            (string_len(bytes, 2), Piece::Mark(ESCAPE_MARK))
        }
        '\u{7f}' => (1, Piece::Mark(DEL_MARK)),
        c if (c as u32) < 0x20 => (
            1,
            Piece::Mark(char::from_u32(0x2400 + c as u32).unwrap_or(INVISIBLE_MARK)),
        ),
        c => (c.len_utf8(), Piece::Mark(INVISIBLE_MARK)),
    }
}

/// Length in bytes of the escape sequence starting with ESC at `b[0]`.
fn escape_len(b: &[u8]) -> usize {
    match b.get(1) {
        Some(b'[') => csi_len(b, 2),
        Some(b']' | b'P' | b'X' | b'^' | b'_') => string_len(b, 2),
        // nF sequences: intermediates then one final byte (e.g. `ESC ( B`).
        Some(0x20..=0x2f) => {
            let mut i = 2;
            while matches!(b.get(i), Some(0x20..=0x2f)) {
                i += 1;
            }
            if matches!(b.get(i), Some(0x30..=0x7e)) {
                i + 1
            } else {
                i
            }
        }
        // Fp / Fe / Fs: two-byte sequences (`ESC 7`, `ESC M`, `ESC c`, …).
        Some(0x30..=0x7e) => 2,
        _ => 1,
    }
}

/// CSI: parameter and intermediate bytes then one final byte. Stops (without consuming) at any
/// byte that cannot belong to the sequence.
fn csi_len(b: &[u8], start: usize) -> usize {
    let mut i = start;
    while let Some(&x) = b.get(i) {
        match x {
            0x20..=0x3f => i += 1,
            0x40..=0x7e => return i + 1,
            _ => return i,
        }
    }
    i
}

/// OSC / DCS / SOS / PM / APC: a string up to BEL, ST (`ESC \` or U+009C), or the next ESC.
/// Unterminated: only the introducer is consumed, the rest stays visible.
fn string_len(b: &[u8], start: usize) -> usize {
    let mut i = start;
    while let Some(&x) = b.get(i) {
        match x {
            BEL => return i + 1,
            ESC if b.get(i + 1) == Some(&b'\\') => return i + 2,
            ESC => return i,
            0xc2 if b.get(i + 1) == Some(&0x9c) => return i + 2,
            _ => i += 1,
        }
    }
    start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_text_is_borrowed() {
        for s in [
            "",
            "hello",
            "AmuletRules_Transfer",
            "パーティー::1220abcd",
            "Grüße",
        ] {
            assert!(matches!(sanitize(s), Cow::Borrowed(_)), "{s}");
            assert!(matches!(safe_line(s, 100), Cow::Borrowed(_)), "{s}");
        }
        assert!(matches!(sanitize_multiline("a\nb"), Cow::Borrowed(_)));
    }

    #[test]
    fn the_ascii_fast_paths_answer_as_the_general_one() {
        let id = "00a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9";
        let texts = [
            id.to_owned(),
            format!("{}\u{301}", &id[..20]),
            format!("{}\u{301}\u{301}", &id[..21]),
            format!("{}\u{1b}[2J", &id[..20]),
            format!("{}界{}", &id[..19], &id[..10]),
            format!("{}\u{7f}", &id[..30]),
            "ab".to_owned(),
            String::new(),
        ];
        for text in &texts {
            for cols in 0..=text.len() + 2 {
                assert_eq!(
                    safe_line(text, cols),
                    safe_line_general(text, cols),
                    "safe_line({text:?}, {cols})"
                );
            }
        }
        // A long id in a narrow column: its first columns and the marker, one column short.
        assert_eq!(safe_line(id, 8), "00a1b2c…");
    }

    /// Checks `sanitize(input) == want` for every case, naming the failing input.
    fn assert_sanitized(cases: &[(&str, &str)]) {
        for (input, want) in cases {
            assert_eq!(sanitize(input), *want, "sanitize({input:?})");
        }
    }

    #[test]
    fn c0_controls_become_control_pictures() {
        assert_sanitized(&[
            ("a\tb\nc\rd\0e", "a␉b␊c␍d␀e"),
            ("\u{7}", "␇"),
            ("x\u{7f}y", "x␡y"),
        ]);
    }

    #[test]
    fn csi_sequences_are_consumed_whole() {
        assert_sanitized(&[
            ("\u{1b}[2Jhi", "␛hi"),
            ("\u{1b}[38;5;196mred\u{1b}[0m", "␛red␛"),
            ("\u{9b}31mred", "␛red"),
            // A CSI interrupted by a non-sequence byte stops there.
            ("\u{1b}[12é", "␛é"),
        ]);
    }

    #[test]
    fn osc_sequences_are_consumed_up_to_their_terminator() {
        assert_sanitized(&[
            ("\u{1b}]52;c;aGVsbG8=\u{7}after", "␛after"),
            (
                "\u{1b}]8;;http://evil.example\u{1b}\\click\u{1b}]8;;\u{1b}\\",
                "␛click␛",
            ),
            ("\u{9d}0;title\u{9c}x", "␛x"),
            ("\u{1b}P1$r\u{1b}\\z", "␛z"),
        ]);
    }

    #[test]
    fn unterminated_string_sequence_keeps_the_rest_visible() {
        assert_eq!(
            sanitize("\u{1b}]0;title without end"),
            "␛0;title without end"
        );
    }

    #[test]
    fn short_escapes() {
        assert_sanitized(&[
            ("\u{1b}(Bx", "␛x"),
            ("\u{1b}cx", "␛x"),
            ("x\u{1b}", "x␛"),
            ("\u{1b}\u{1b}", "␛␛"),
        ]);
    }

    #[test]
    fn bidi_and_invisibles_become_replacement_marks() {
        assert_sanitized(&[
            ("abc\u{202e}fed", "abc�fed"),
            ("a\u{2066}b\u{2069}", "a�b�"),
            ("al\u{200b}ice", "al�ice"),
            ("\u{85}\u{9c}", "��"),
            ("\u{e0041}", "�"),
        ]);
    }

    #[test]
    fn multiline_keeps_newlines_and_drops_cr_of_crlf() {
        for (input, want) in [("a\r\nb\nc\rd", "a\nb\nc␍d"), ("\u{1b}[1ma\nb", "␛a\nb")] {
            assert_eq!(sanitize_multiline(input), want, "{input:?}");
        }
    }

    /// Checks `cut(input, width) == want` for every case, naming the failing one (its first
    /// characters).
    fn assert_cut(cut: impl Fn(&str, usize) -> Cow<'_, str>, cases: &[(&str, usize, &str)]) {
        for &(input, width, want) in cases {
            let shown: String = input.chars().take(12).collect();
            assert_eq!(cut(input, width), want, "{shown:?} in {width}");
        }
    }

    #[test]
    fn truncate_by_display_width() {
        assert_cut(
            truncate_width,
            &[
                ("hello", 5, "hello"),
                ("hello!", 5, "hell…"),
                ("hello", 0, ""),
                ("hello", 1, "…"),
                // wide characters count two columns each
                ("日本語です", 5, "日本…"),
                ("日本語です", 4, "日…"),
                // keycap emoji: `2` + VS16 is two columns wide as a string
                ("a2\u{fe0f}b", 3, "a2…"),
            ],
        );
        assert!(truncate_width("日本語です", 4).width() <= 4);
        assert_cut(
            safe_line,
            &[
                ("\u{7}2\u{fe0f}b", 3, "␇2…"),
                ("\u{7}2\u{fe0f}", 3, "␇2\u{fe0f}"),
            ],
        );
    }

    #[test]
    fn safe_line_combines_and_respects_width() {
        let long = "\u{7}".repeat(1_000_000);
        assert_cut(
            safe_line,
            &[
                ("\u{1b}[2Jabcdef", 4, "␛ab…"),
                ("ab\ncd", 10, "ab␊cd"),
                ("ab\u{202e}", 3, "ab�"),
                ("ab\u{202e}c", 3, "ab…"),
                ("日本\u{1b}[0m語", 5, "日本…"),
                ("日本\u{1b}[0m", 5, "日本␛"),
                ("日本\u{1b}[0m語", 4, "日…"),
                ("\u{1b}", 0, ""),
                (long.as_str(), 3, "␇␇…"),
            ],
        );
    }

    #[test]
    fn is_clean_matches_sanitize() {
        for s in ["ok", "a\u{1b}", "\u{200f}", "ü", "\n"] {
            assert_eq!(
                is_clean(s),
                matches!(sanitize(s), Cow::Borrowed(_)),
                "{s:?}"
            );
        }
    }
}
