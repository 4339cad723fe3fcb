//! Schema 14 (SQLite): a body's text with its update id and its contract ids as references.
//! A contract id is 138 hex characters that zstd cannot shrink much, and it comes back in the
//! body of every update that creates, exercises or archives the contract; the update id comes
//! back in every event id of its update (`<update id>:<n>`). The text before zstd has each
//! occurrence of the update id replaced by a token (the reader knows the id: it found the
//! body by it) and each occurrence of a contract id among the update's own keys by a token
//! naming its place in a list of the update's contract ids (the engine keeps, beside the
//! body, each one's term id: [`crate::store`]'s SQLite `body_refs`). Any other text stays as
//! it was, and the text comes back byte for byte ([`detokenize`]).
//!
//! The form: a first byte [`TOKENIZED`] (a JSON text never starts with it), then the text with
//! [`MARK`] (a control byte JSON never has unescaped) starting each token: `MARK MARK` is the
//! byte `MARK` itself, `MARK u` the update id, `MARK c <n>` the contract at place `n` of the
//! list (`n` as LEB128). A text without the first byte is the text itself (a body packed
//! without references).

/// The first byte of a text with references.
pub const TOKENIZED: u8 = 0x00;
/// The byte that starts a token.
pub const MARK: u8 = 0x01;
const UPDATE: u8 = b'u';
const CONTRACT: u8 = b'c';

/// The shortest id replaced: a shorter one (not an id a participant makes) stays as text.
pub const SHORTEST: usize = 16;

/// Whether `value` is an id the references name: lowercase hex of an even length, at least
/// [`SHORTEST`] characters (the contract ids the SQLite index keeps as bytes).
pub fn referable(value: &str) -> bool {
    value.len() >= SHORTEST
        && value.len().is_multiple_of(2)
        && value
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `text` with references: every occurrence of `update_id` (when [`referable`]) and of
/// `contracts[n]` (each one [`referable`]; the caller's list) replaced by its token, into
/// `out` (cleared first). Where two occurrences overlap, the one that starts first (then the
/// longer) is replaced.
pub fn tokenize(text: &[u8], update_id: &str, contracts: &[&str], out: &mut Vec<u8>) {
    // (start, length, what: -1 the update id, -2 the mark itself, n the contract n)
    let mut found: Vec<(usize, usize, i64)> = Vec::new();
    for at in memchr::memchr_iter(MARK, text) {
        found.push((at, 1, -2));
    }
    if referable(update_id) {
        for at in memchr::memmem::find_iter(text, update_id.as_bytes()) {
            found.push((at, update_id.len(), -1));
        }
    }
    for (n, contract) in contracts.iter().enumerate() {
        if !referable(contract) {
            continue;
        }
        for at in memchr::memmem::find_iter(text, contract.as_bytes()) {
            found.push((at, contract.len(), n as i64));
        }
    }
    found.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    out.clear();
    out.reserve(text.len() + 1);
    out.push(TOKENIZED);
    let mut copied = 0;
    for (at, len, what) in found {
        if at < copied {
            continue;
        }
        out.extend_from_slice(&text[copied..at]);
        out.push(MARK);
        match what {
            -2 => out.push(MARK),
            -1 => out.push(UPDATE),
            n => {
                out.push(CONTRACT);
                leb128(n as u64, out);
            }
        }
        copied = at + len;
    }
    out.extend_from_slice(&text[copied..]);
}

/// Appends `n` as LEB128.
pub fn leb128(mut n: u64, out: &mut Vec<u8>) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// The LEB128 number at the start of `bytes` and how many bytes it took (none: cut short or
/// longer than 64 bits).
pub fn read_leb128(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut n: u64 = 0;
    for (i, byte) in bytes.iter().enumerate().take(10) {
        n |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((n, i + 1));
        }
    }
    None
}

/// The text of `tokenized` (as [`tokenize`] made it; a text without its first byte is given
/// back as it is) into `out` (appended), `contract(n, out)` appending the contract at place
/// `n`. An error for a token cut short or unknown.
pub fn detokenize(
    tokenized: &[u8],
    update_id: &str,
    mut contract: impl FnMut(usize, &mut Vec<u8>) -> Result<(), String>,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let Some((&TOKENIZED, text)) = tokenized.split_first() else {
        out.extend_from_slice(tokenized);
        return Ok(());
    };
    out.reserve(text.len() + 256);
    let mut i = 0;
    while let Some(k) = memchr::memchr(MARK, &text[i..]) {
        out.extend_from_slice(&text[i..i + k]);
        i += k + 1;
        match text.get(i) {
            Some(&MARK) => {
                out.push(MARK);
                i += 1;
            }
            Some(&UPDATE) => {
                out.extend_from_slice(update_id.as_bytes());
                i += 1;
            }
            Some(&CONTRACT) => {
                let (n, len) = read_leb128(&text[i + 1..])
                    .ok_or("a contract reference cut short in a body")?;
                contract(
                    usize::try_from(n).map_err(|_| "a contract reference out of range")?,
                    out,
                )?;
                i += 1 + len;
            }
            Some(other) => return Err(format!("an unknown token {other:#04x} in a body")),
            None => return Err("a token cut short at the end of a body".to_owned()),
        }
    }
    out.extend_from_slice(&text[i..]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const UPDATE_ID: &str = "1220aaaabbbbccccddddeeeeffff000011112222333344445555666677778888";
    const C0: &str = "00aa11bb22cc33dd44ee55ff66aa77bb88cc99dd00ee11ff22aa33bb44cc55dd";
    const C1: &str = "00aa11bb22cc33dd44ee55ff66aa77bb88cc99dd00ee11ff22aa33bb44cc55de";

    fn round_trip(text: &[u8], contracts: &[&str]) -> Vec<u8> {
        let mut tokenized = Vec::new();
        tokenize(text, UPDATE_ID, contracts, &mut tokenized);
        let mut back = Vec::new();
        detokenize(
            &tokenized,
            UPDATE_ID,
            |n, out| {
                let c = contracts.get(n).ok_or("no such contract")?;
                out.extend_from_slice(c.as_bytes());
                Ok(())
            },
            &mut back,
        )
        .expect("detokenized");
        assert_eq!(back, text, "{:?}", String::from_utf8_lossy(text));
        tokenized
    }

    #[test]
    fn ids_become_short_tokens_and_come_back() {
        let text = format!(
            r#"{{"update_id":"{UPDATE_ID}","events_by_id":{{"{UPDATE_ID}:0":{{"contract_id":"{C0}","x":"{C1}","y":"{C0}"}}}}}}"#
        );
        let tokenized = round_trip(text.as_bytes(), &[C0, C1]);
        assert!(tokenized.len() < text.len() - 4 * 60, "{}", tokenized.len());
        assert!(
            memchr::memmem::find(&tokenized, C0.as_bytes()).is_none(),
            "every occurrence replaced"
        );
        // Many contracts: places past 127 take two bytes.
        let many: Vec<String> = (0..300).map(|i| format!("{C0}{i:04}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        let mut text = String::new();
        for c in many.iter().rev() {
            text.push('"');
            text.push_str(c);
            text.push_str("\",");
        }
        round_trip(text.as_bytes(), &refs);
    }

    #[test]
    fn hostile_bodies_come_back_byte_for_byte() {
        let mark = char::from(MARK);
        for text in [
            String::new(),
            "\u{0}".to_owned(),
            format!("{mark}"),
            format!("{mark}{mark}u{mark}c"),
            format!("\u{0}{mark}c\u{ff}{UPDATE_ID}"),
            format!("{C0}{mark}{C1}{mark}"),
            // Overlapping: the update id inside a contract id, a contract id inside another.
            format!("{C0}{UPDATE_ID}{C0}"),
            format!("x{}x", &C0[..40]),
        ] {
            round_trip(text.as_bytes(), &[C0, C1]);
            round_trip(text.as_bytes(), &[]);
        }
        // Ids not referable stay as text: odd length, upper case, short.
        for odd in [&C0[1..], "00AA11BB22CC33DD44EE55FF66AA77BB", "00aa"] {
            let text = format!("\"{odd}\"");
            let tokenized = round_trip(text.as_bytes(), &[odd]);
            assert_eq!(&tokenized[1..], text.as_bytes(), "{odd}");
        }
    }

    #[test]
    fn a_text_without_the_first_byte_is_itself_and_bad_tokens_are_errors() {
        let mut out = Vec::new();
        detokenize(b"{\"a\":1}", UPDATE_ID, |_, _| Ok(()), &mut out).expect("plain");
        assert_eq!(out, b"{\"a\":1}");
        for bad in [
            &[TOKENIZED, MARK][..],
            &[TOKENIZED, MARK, b'z'],
            &[TOKENIZED, MARK, b'c', 0x80],
        ] {
            let mut out = Vec::new();
            assert!(
                detokenize(bad, UPDATE_ID, |_, _| Ok(()), &mut out).is_err(),
                "{bad:?}"
            );
        }
        // A contract the resolver does not know: its error.
        let mut out = Vec::new();
        let err = detokenize(
            &[TOKENIZED, MARK, b'c', 5],
            UPDATE_ID,
            |n, _| Err(format!("no contract {n}")),
            &mut out,
        );
        assert_eq!(err, Err("no contract 5".to_owned()));
    }

    #[test]
    fn leb128_both_ways() {
        for n in [
            0,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut out = Vec::new();
            leb128(n, &mut out);
            assert_eq!(read_leb128(&out), Some((n, out.len())));
        }
        assert_eq!(read_leb128(&[0x80]), None);
    }
}
