//! The hash a kept set or name is found by (the party sets and actions since schema 13:
//! [`super::row_sets`]; the parties' names since schema 19: [`super::party_names`]), in a
//! column with an index of its own that allows duplicates, the text compared too.

/// The hash a set is found by: 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime
/// 0x100000001b3) of its text's bytes, parts separated by a byte 0xff (never in UTF-8), as
/// SQLite's signed integer. Fixed, so an index written by one build is read by every other.
pub(super) fn set_hash(parts: &[&str]) -> i64 {
    let mut hash = Fnv1a::default();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            hash.add(&[0xff]);
        }
        hash.add(part.as_bytes());
    }
    hash.0.cast_signed()
}

/// The [`set_hash`] of one part's bytes: a party's name, or a party set as schema 19 keeps it
/// (its parties' numbers: [`super::party_names`]).
pub(super) fn bytes_hash(bytes: &[u8]) -> i64 {
    let mut hash = Fnv1a::default();
    hash.add(bytes);
    hash.0.cast_signed()
}

/// 64-bit FNV-1a, fed in parts.
struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Fnv1a {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    fn add(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 ^= u64::from(*byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_hash_is_64_bit_fnv_1a() {
        // The published test vectors of FNV-1a 64.
        assert_eq!(set_hash(&[""]), 0xcbf2_9ce4_8422_2325_u64.cast_signed());
        assert_eq!(set_hash(&["a"]), 0xaf63_dc4c_8601_ec8c_u64.cast_signed());
        assert_eq!(
            set_hash(&["foobar"]),
            0x8594_4171_f739_67e8_u64.cast_signed()
        );
        assert_ne!(set_hash(&["ab", "c"]), set_hash(&["a", "bc"]));
    }
}
