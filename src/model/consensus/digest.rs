//! A fast canonical hash of JSON, for comparing whole `/v2/updates` pages across scans without
//! decoding them: one pass over the bytes, no allocation on the common path.
//!
//! The hash is canonical in the same sense as [`super::canonical_json`]: whitespace and object
//! key order never matter (an object hashes the wrapping sum of its members' hashes), string
//! escapes are decoded (`"\u0041"` hashes as `"A"`), `null` differs from an absent field, and
//! numbers hash by value and kind (integers by their integer value, others by their `f64`), as
//! serde_json compares them. Fields local to one SV are skipped ([`super::LocalFields`]).
//!
//! 64-bit hashes of a keyed multiply-mix: [`Digester::new`] takes a random key per process, so
//! a server cannot craft two different items with the same hash for a sweep it does not know
//! the key of. Equal hashes are treated as equal items (a false match has probability 2⁻⁶⁴).

use std::hash::{BuildHasher, Hasher as _};
use std::ops::Range;

use super::LocalFields;

const P0: u64 = 0xa076_1d64_78bd_642f;
const P1: u64 = 0xe703_7ed1_a0b4_28db;
const P2: u64 = 0x8ebc_6af0_9c88_c6e3;
const P3: u64 = 0x5899_65cc_7537_4cc3;
const TAG_STR: u64 = 0x1d8e_4e27_c47d_124f;
const TAG_KEY: u64 = 0x2f3b_9a71_0c55_e1a9;
const TAG_OBJ: u64 = 0x7c3f_0e61_9d2a_55b1;
const TAG_ARR: u64 = 0x4b1c_93d7_28e6_a10f;
const TAG_POS: u64 = 0x13a5_5e8f_6c29_d0b7;
const TAG_NEG: u64 = 0x6e27_c1b4_95f3_0a8d;
const TAG_FLOAT: u64 = 0x35d9_8a06_e1c7_4f23;
const TAG_TRUE: u64 = 0x58c2_7f1e_a39b_06d4;
const TAG_FALSE: u64 = 0x0f6d_b3a8_4c17_e952;
const TAG_NULL: u64 = 0x7a14_e6c9_2b85_f03d;
const MAX_DEPTH: usize = 256;
const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

#[inline]
fn mum(a: u64, b: u64) -> u64 {
    let r = u128::from(a) * u128::from(b);
    // Folding the 128-bit product: the truncations are the point.
    let (lo, hi) = (r as u64, (r >> 64) as u64);
    lo ^ hi
}

#[inline]
fn mix(a: u64, b: u64) -> u64 {
    mum(a ^ P0, b ^ P1)
}

/// Bytes of `w` equal to `byte` have their high bit set (exact for the lowest one).
#[inline]
fn find_byte(w: u64, byte: u8) -> u64 {
    let v = w ^ (ONES * u64::from(byte));
    v.wrapping_sub(ONES) & !v & HIGHS
}

/// Why a body could not be hashed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not valid JSON at byte {at}: {what}")]
pub struct DigestError {
    pub at: usize,
    pub what: &'static str,
}

/// One item of a page: its hash and where its text is in the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemDigest {
    pub hash: u64,
    pub span: Range<usize>,
}

/// The items of a `/v2/updates` page, hashed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PageDigest {
    pub items: Vec<ItemDigest>,
}

impl PageDigest {
    /// The item hashes in page order.
    pub fn hashes(&self) -> impl Iterator<Item = u64> + '_ {
        self.items.iter().map(|i| i.hash)
    }

    /// One hash of the whole page (ordered).
    pub fn page_hash(&self) -> u64 {
        let mut h = TAG_ARR;
        for item in &self.items {
            h = mum(h ^ item.hash, P1);
        }
        mum(h ^ self.items.len() as u64, P3)
    }
}

/// The canonical hasher, with its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Digester {
    key: u64,
}

impl Default for Digester {
    fn default() -> Self {
        Digester::new()
    }
}

impl Digester {
    /// A hasher with a random key (hashes are comparable only within one `Digester`).
    pub fn new() -> Digester {
        let mut hasher = std::hash::RandomState::new().build_hasher();
        hasher.write_u64(0x00c0_ffee);
        Digester {
            key: hasher.finish(),
        }
    }

    /// A hasher with a fixed key (tests, benchmarks).
    pub fn with_key(key: u64) -> Digester {
        Digester { key }
    }

    /// The canonical hash of one JSON document, skipping `local` fields.
    pub fn hash(&self, json: &[u8], local: LocalFields) -> Result<u64, DigestError> {
        let mut s = Scan::new(json, self.key, local);
        s.ws();
        let mask = s.all_paths();
        let h = s.value(0, mask)?;
        s.ws();
        if s.i != s.b.len() {
            return Err(s.err("trailing characters"));
        }
        Ok(h)
    }

    /// Hashes every item of a `/v2/updates` page (`{"transactions": [...]}`), skipping the
    /// `local` fields of each item (paths from the item's root, e.g. [`LocalFields::UPDATE`]).
    /// Other top-level fields are checked as JSON and ignored; no `transactions` (or `null`) is
    /// an empty page.
    pub fn page(&self, body: &[u8], local: LocalFields) -> Result<PageDigest, DigestError> {
        let mut s = Scan::new(body, self.key, local);
        let mut page = PageDigest::default();
        s.ws();
        s.expect(b'{')?;
        s.elements(b'}', "expected , or }", |s| {
            let key = s.raw_string()?;
            s.ws();
            s.expect(b':')?;
            s.ws();
            if key == b"transactions" && s.peek() == Some(b'[') {
                s.i += 1;
                page.items.reserve(1000);
                s.elements(b']', "expected , or ] in transactions", |s| {
                    let start = s.i;
                    let hash = s.value(0, s.all_paths())?;
                    page.items.push(ItemDigest {
                        hash,
                        span: start..s.i,
                    });
                    Ok(())
                })
            } else {
                s.value(1, 0).map(drop)
            }
        })?;
        s.ws();
        if s.i != s.b.len() {
            return Err(s.err("trailing characters"));
        }
        Ok(page)
    }
}

struct Scan<'a> {
    b: &'a [u8],
    i: usize,
    key: u64,
    local: LocalFields,
    scratch: Vec<u8>,
}

impl<'a> Scan<'a> {
    fn new(b: &'a [u8], key: u64, local: LocalFields) -> Scan<'a> {
        Scan {
            b,
            i: 0,
            key,
            local,
            scratch: Vec::new(),
        }
    }

    fn all_paths(&self) -> u64 {
        let n = self.local.0.len().min(64);
        if n == 64 { u64::MAX } else { (1u64 << n) - 1 }
    }

    fn err(&self, what: &'static str) -> DigestError {
        DigestError { at: self.i, what }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    #[inline]
    fn next(&mut self) -> Result<u8, DigestError> {
        let c = self.peek().ok_or_else(|| self.err("unexpected end"))?;
        self.i += 1;
        Ok(c)
    }

    #[inline]
    fn expect(&mut self, c: u8) -> Result<(), DigestError> {
        if self.next()? == c {
            Ok(())
        } else {
            self.i -= 1;
            Err(self.err("unexpected character"))
        }
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(c) = self.peek() {
            if matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    /// The hash of the value at the cursor. `mask` selects the local-field paths that are still
    /// matching at this `depth`.
    fn value(&mut self, depth: usize, mask: u64) -> Result<u64, DigestError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nested too deeply"));
        }
        match self.peek() {
            Some(b'"') => self.string(TAG_STR),
            Some(b'{') => self.object(depth, mask),
            Some(b'[') => self.array(depth, mask),
            Some(b't') => self.literal(b"true", TAG_TRUE),
            Some(b'f') => self.literal(b"false", TAG_FALSE),
            Some(b'n') => self.literal(b"null", TAG_NULL),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.err("unexpected character")),
            None => Err(self.err("unexpected end")),
        }
    }

    fn literal(&mut self, text: &[u8], tag: u64) -> Result<u64, DigestError> {
        if self.b[self.i..].starts_with(text) {
            self.i += text.len();
            Ok(mix(tag, self.key))
        } else {
            Err(self.err("invalid literal"))
        }
    }

    fn number(&mut self) -> Result<u64, DigestError> {
        let start = self.i;
        let mut float = false;
        while let Some(c) = self.peek() {
            match c {
                b'0'..=b'9' | b'-' | b'+' => {}
                b'.' | b'e' | b'E' => float = true,
                _ => break,
            }
            self.i += 1;
        }
        let text = std::str::from_utf8(&self.b[start..self.i]).map_err(|_| self.err("number"))?;
        if !float {
            if let Ok(v) = text.parse::<u64>() {
                return Ok(mix(TAG_POS ^ self.key, v));
            }
            if let Ok(v) = text.parse::<i64>() {
                // The bits of the negative value, under their own tag.
                return Ok(mix(TAG_NEG ^ self.key, v as u64));
            }
        }
        let v: f64 = text.parse().map_err(|_| self.err("invalid number"))?;
        let v = if v == 0.0 { 0.0 } else { v };
        Ok(mix(TAG_FLOAT ^ self.key, v.to_bits()))
    }

    fn array(&mut self, depth: usize, mask: u64) -> Result<u64, DigestError> {
        self.i += 1;
        // Paths that go through every element of this array.
        let child = self.mask_for(depth, mask, b"*").0;
        let mut h = TAG_ARR ^ self.key;
        let mut count = 0u64;
        self.elements(b']', "expected , or ]", |s| {
            let v = s.value(depth + 1, child)?;
            h = mum(h ^ v, P1);
            count += 1;
            Ok(())
        })?;
        Ok(mum(h ^ count, P3))
    }

    fn object(&mut self, depth: usize, mask: u64) -> Result<u64, DigestError> {
        self.i += 1;
        let mut sum = 0u64;
        let mut count = 0u64;
        self.elements(b'}', "expected , or }", |s| {
            let key_start = s.i;
            let kh = s.string(TAG_KEY)?;
            let (child, skip) = if mask == 0 {
                (0, false)
            } else {
                let raw = &s.b[key_start + 1..s.i - 1];
                s.mask_for(depth, mask, raw)
            };
            s.ws();
            s.expect(b':')?;
            s.ws();
            let vh = s.value(depth + 1, child)?;
            if !skip {
                sum = sum.wrapping_add(mix(kh, vh));
                count += 1;
            }
            Ok(())
        })?;
        Ok(mum(sum ^ TAG_OBJ ^ self.key, count ^ P2))
    }

    /// The elements of an array or the members of an object, the cursor just after the opening
    /// bracket: `each` reads one element (from its first byte), then a `,` or the `close`
    /// bracket follows (else the error `expected`).
    fn elements(
        &mut self,
        close: u8,
        expected: &'static str,
        mut each: impl FnMut(&mut Self) -> Result<(), DigestError>,
    ) -> Result<(), DigestError> {
        self.ws();
        if self.peek() == Some(close) {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.ws();
            each(self)?;
            self.ws();
            match self.next()? {
                b',' => {}
                c if c == close => return Ok(()),
                _ => return Err(self.err(expected)),
            }
        }
    }

    /// For key (or `*`) `name` at `depth`: the paths continuing below it, and whether a path
    /// ends at it (the field is local: skip it).
    fn mask_for(&self, depth: usize, mask: u64, name: &[u8]) -> (u64, bool) {
        if mask == 0 {
            return (0, false);
        }
        let mut child = 0;
        let mut skip = false;
        for (bit, path) in self.local.0.iter().enumerate().take(64) {
            if mask & (1 << bit) == 0 {
                continue;
            }
            if path.get(depth).is_some_and(|seg| seg.as_bytes() == name) {
                if path.len() == depth + 1 {
                    skip = true;
                } else {
                    child |= 1 << bit;
                }
            }
        }
        (child, skip)
    }

    /// The raw bytes of a string without escapes (object keys of a page).
    fn raw_string(&mut self) -> Result<&'a [u8], DigestError> {
        let start = self.i + 1;
        self.string(TAG_KEY)?;
        Ok(&self.b[start..self.i - 1])
    }

    /// Hashes the string at the cursor (content bytes after unescaping) under `tag`: the same
    /// value as [`hash_content`] of the content, computed while finding the closing quote.
    fn string(&mut self, tag: u64) -> Result<u64, DigestError> {
        self.expect(b'"')?;
        let start = self.i;
        let b = self.b;
        let key = self.key;
        let mut h = tag ^ key;
        let mut i = start;
        // Fast path: 16 bytes at a time while neither word holds a quote or a backslash.
        while i + 16 <= b.len() {
            let (w0, w1) = (word_at(b, i), word_at(b, i + 8));
            let s0 = find_byte(w0, b'"') | find_byte(w0, b'\\');
            let s1 = find_byte(w1, b'"') | find_byte(w1, b'\\');
            if s0 | s1 == 0 {
                h = block(h, w0, w1, key);
                i += 16;
                continue;
            }
            let k = if s0 == 0 {
                8 + (s1.trailing_zeros() / 8) as usize
            } else {
                (s0.trailing_zeros() / 8) as usize
            };
            if b[i + k] == b'\\' {
                return self.escaped_string(start, tag);
            }
            // The content ends at i + k: what is left of it (in the words already read) is
            // hashed as `finish` hashes hash_content's remainder.
            let low = |w: u64, n: usize| w & ((1u64 << (8 * n)) - 1);
            if k >= 8 {
                h = mum(h ^ w0, P1);
                if k > 8 {
                    h = mum(h ^ low(w1, k - 8), P1);
                }
            } else if k > 0 {
                h = mum(h ^ low(w0, k), P1);
            }
            self.i = i + k + 1;
            return Ok(mum(h ^ (i + k - start) as u64, P2));
        }
        // The last bytes of the body.
        match b[i..].iter().position(|&c| c == b'"' || c == b'\\') {
            Some(k) if b[i + k] == b'"' => {
                self.i = i + k + 1;
                Ok(finish(h, &b[i..i + k], i + k - start))
            }
            Some(_) => self.escaped_string(start, tag),
            None => {
                self.i = b.len();
                Err(self.err("unterminated string"))
            }
        }
    }

    /// The slow path of [`Scan::string`]: decode the escapes, then hash the content the same way.
    fn escaped_string(&mut self, start: usize, tag: u64) -> Result<u64, DigestError> {
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        let b = self.b;
        let mut i = start;
        loop {
            let Some(&c) = b.get(i) else {
                self.i = i;
                return Err(self.err("unterminated string"));
            };
            i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(&e) = b.get(i) else {
                        self.i = i;
                        return Err(self.err("unterminated escape"));
                    };
                    i += 1;
                    match e {
                        b'"' | b'\\' | b'/' => out.push(e),
                        b'b' => out.push(0x08),
                        b'f' => out.push(0x0c),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let (cp, next) = self.unicode_escape(i)?;
                            i = next;
                            let ch = char::from_u32(cp).unwrap_or('\u{fffd}');
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        _ => {
                            self.i = i;
                            return Err(self.err("invalid escape"));
                        }
                    }
                }
                c => out.push(c),
            }
        }
        self.i = i;
        let h = hash_content(&out, tag ^ self.key, self.key);
        self.scratch = out;
        Ok(h)
    }

    /// `XXXX` (and a following `\uXXXX` low surrogate) at `i`: the code point and the index
    /// after it.
    fn unicode_escape(&self, i: usize) -> Result<(u32, usize), DigestError> {
        let hex4 = |at: usize| -> Option<u32> {
            let digits = self.b.get(at..at + 4)?;
            u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
        };
        let bad = DigestError {
            at: i,
            what: "invalid \\u escape",
        };
        let hi = hex4(i).ok_or_else(|| bad.clone())?;
        if (0xd800..0xdc00).contains(&hi)
            && self.b.get(i + 4..i + 6) == Some(b"\\u")
            && let Some(lo) = hex4(i + 6)
            && (0xdc00..0xe000).contains(&lo)
        {
            return Ok((0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00), i + 10));
        }
        Ok((hi, i + 4))
    }
}

/// The string hash of already unescaped content (the same as the fast path computes): 16-byte
/// blocks (one multiply each), then the remainder.
fn hash_content(content: &[u8], seed: u64, key: u64) -> u64 {
    let mut h = seed;
    let mut blocks = content.chunks_exact(16);
    for chunk in &mut blocks {
        h = block(h, word_at(chunk, 0), word_at(chunk, 8), key);
    }
    finish(h, blocks.remainder(), content.len())
}

/// The little-endian word of the 8 bytes of `b` at `i` (which must be there).
#[inline]
fn word_at(b: &[u8], i: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(word)
}

/// One 16-byte block of a string into `h` (keyed, so no block can zero the product on purpose).
#[inline]
fn block(h: u64, w0: u64, w1: u64, key: u64) -> u64 {
    mum(h ^ w0, w1 ^ key ^ P1)
}

/// The last bytes of a string (fewer than 16) and its length into `h`.
#[inline]
fn finish(mut h: u64, rest: &[u8], len: usize) -> u64 {
    for part in rest.chunks(8) {
        let mut word = [0u8; 8];
        word[..part.len()].copy_from_slice(part);
        h = mum(h ^ u64::from_le_bytes(word), P1);
    }
    mum(h ^ len as u64, P2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(json: &str) -> u64 {
        Digester::with_key(7)
            .hash(json.as_bytes(), LocalFields::NONE)
            .expect("json")
    }

    #[test]
    fn key_order_whitespace_and_escapes_do_not_matter() {
        assert_eq!(
            h(r#"{"a":1,"b":[true,null]}"#),
            h(" { \"b\" : [ true , null ] ,\n\"a\": 1 } ")
        );
        assert_eq!(h(r#""A\u00e9\n""#), h("\"Aé\\n\""));
        assert_eq!(h(r#""\ud83d\ude00""#), h("\"😀\""));
        // Long strings take the word-at-a-time path; an escape late in one takes the slow path.
        let long = "x".repeat(37);
        assert_eq!(
            h(&format!("\"{long}\\u0041{long}\"")),
            h(&format!("\"{long}A{long}\""))
        );
    }

    #[test]
    fn the_block_path_and_the_escape_path_agree_at_every_length() {
        // Every content length across two 16-byte blocks, the string inside a body long enough
        // for the fast path and at the very end of one; an escape anywhere takes the slow path.
        for len in 0..40 {
            let plain: String = (0..len)
                .map(|i| char::from(b'a' + (i % 26) as u8))
                .collect();
            let padded = |s: &str| format!("[\"{s}\"{}]", " ".repeat(20));
            let bare = |s: &str| format!("\"{s}\"");
            for at in 0..len {
                let c = plain.as_bytes()[at];
                let escaped = format!("{}\\u{:04x}{}", &plain[..at], c, &plain[at + 1..]);
                assert_eq!(
                    h(&padded(&plain)),
                    h(&padded(&escaped)),
                    "len {len}, escape at {at}"
                );
                assert_eq!(
                    h(&bare(&plain)),
                    h(&bare(&escaped)),
                    "len {len}, escape at {at}"
                );
            }
            // One more byte is another string.
            assert_ne!(
                h(&bare(&plain)),
                h(&bare(&format!("{plain}a"))),
                "len {len}"
            );
        }
    }

    #[test]
    fn every_value_matters() {
        let base = h(r#"{"a":1,"b":"x"}"#);
        for other in [
            r#"{"a":2,"b":"x"}"#,
            r#"{"a":1,"b":"y"}"#,
            r#"{"a":1}"#,
            r#"{"a":1,"b":"x","c":null}"#,
            r#"{"a":1.0,"b":"x"}"#,
            r#"{"a":"1","b":"x"}"#,
            r#"{"b":1,"a":"x"}"#,
        ] {
            assert_ne!(base, h(other), "{other}");
        }
        assert_ne!(h("[1,2]"), h("[2,1]"));
        assert_ne!(h(r#"{"a":null}"#), h("{}"));
        assert_ne!(h("-1"), h("18446744073709551615"));
        assert_eq!(h("1.0"), h("1.00"));
        assert_eq!(h("-0.0"), h("0.0"));
        assert_ne!(h(r#""ab""#), h(r#""ab\u0000""#));
    }

    #[test]
    fn pages_hash_items_and_skip_local_fields() {
        let d = Digester::with_key(1);
        let a =
            br#"{"transactions":[{"update_id":"u1","offset":"0001","x":1},{"update_id":"u2"}]}"#;
        let b = br#"{ "transactions" : [ {"x":1,"offset":"0002","update_id":"u1"} , {"update_id":"u2"} ] }"#;
        let pa = d.page(a, LocalFields::UPDATE).expect("page");
        let pb = d.page(b, LocalFields::UPDATE).expect("page");
        assert_eq!(pa.items.len(), 2);
        assert_eq!(pa.page_hash(), pb.page_hash());
        assert_eq!(
            &a[pa.items[1].span.clone()],
            br#"{"update_id":"u2"}"#.as_slice()
        );
        let c =
            br#"{"transactions":[{"update_id":"u1","offset":"0001","x":2},{"update_id":"u2"}]}"#;
        let pc = d.page(c, LocalFields::UPDATE).expect("page");
        assert_ne!(pa.items[0].hash, pc.items[0].hash);
        assert_eq!(pa.items[1].hash, pc.items[1].hash);
        assert!(
            d.page(b"{}", LocalFields::UPDATE)
                .expect("empty")
                .items
                .is_empty()
        );
        assert!(
            d.page(br#"{"transactions":[]}"#, LocalFields::UPDATE)
                .expect("empty")
                .items
                .is_empty()
        );
    }

    #[test]
    fn broken_json_is_an_error_not_a_panic() {
        let d = Digester::with_key(1);
        for bad in [
            "",
            "{",
            r#"{"transactions":[{"a":1}"#,
            r#"{"transactions":[{"a":"unterminated"#,
            r#"{"a":tru}"#,
            r#""\u12"#,
            "[1,]x",
            &"[".repeat(1000),
        ] {
            assert!(
                d.page(bad.as_bytes(), LocalFields::UPDATE).is_err(),
                "{bad}"
            );
            assert!(d.hash(bad.as_bytes(), LocalFields::NONE).is_err(), "{bad}");
        }
    }
}
