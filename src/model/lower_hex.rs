//! Lower-case hex read back into bytes through one table: a summary's update id, a term's
//! contract id kept as bytes.

/// Each byte's value as a lower-case hex digit, or [`NOT_HEX`].
const VALUES: [u8; 256] = {
    let mut values = [NOT_HEX; 256];
    let mut i = 0;
    while i < 10 {
        values[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        values[b'a' as usize + i] = 10 + i as u8;
        i += 1;
    }
    values
};

const NOT_HEX: u8 = 0xff;

/// Writes the bytes `text` spells into `out`, a byte a pair of digits, in one pass; whether
/// `text` is exactly `out`'s bytes in lower-case hex (`out` holds garbage when not).
pub fn decode(text: &[u8], out: &mut [u8]) -> bool {
    if text.len() != out.len() * 2 {
        return false;
    }
    let mut bad = 0;
    for (byte, pair) in out.iter_mut().zip(text.chunks_exact(2)) {
        let (high, low) = (VALUES[usize::from(pair[0])], VALUES[usize::from(pair[1])]);
        bad |= high | low;
        *byte = (high << 4) | (low & 0x0f);
    }
    // A digit is below 16: any other byte's NOT_HEX shows in the high bits.
    bad < 16
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn only_lower_case_hex_of_the_right_length_decodes() {
        let mut out = [0u8; 3];
        assert!(decode(b"00a9ff", &mut out));
        assert_eq!(out, [0x00, 0xa9, 0xff]);
        for text in [
            &b"00A9ff"[..],
            b"00a9f",
            b"00a9fff0",
            b"00a9fg",
            b"0 a9ff",
            b"\xff0a9ff",
        ] {
            assert!(!decode(text, &mut out), "{text:?}");
        }
    }
}
