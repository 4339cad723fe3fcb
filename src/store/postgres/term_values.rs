//! Schema 16: how a term's text is kept in the `terms` table's `value`, a `BYTEA`. A contract id
//! that is lowercase hexadecimal of an even length (every contract id a participant makes) is
//! kept as the bytes it spells after a [`PACKED`] byte: 70 bytes for the 138 characters of
//! today's ids. A contract id of another form is kept as its text after a [`TEXT`] byte, and
//! every other term (a party, a template, a choice) as its text. Bytes are ordered byte by
//! byte, so the contract ids of each form are a run of their own, and the terms whose text
//! starts with a prefix are a range in each run ([`prefix_ranges`]). Before schema 16 the
//! column was the text itself (as SQLite's schema 11, which keeps such ids as BLOBs).

use crate::model::index::KeyKind;

/// The first byte of a contract id kept as its text.
const TEXT: u8 = 0;
/// The first byte of a contract id kept as the bytes it spells.
const PACKED: u8 = 1;

/// The bytes a non-empty lowercase hex text of an even length spells (else `None`).
fn hex_bytes(text: &str) -> Option<Vec<u8>> {
    if text.is_empty() {
        return None;
    }
    let mut bytes = vec![0; text.len() / 2];
    crate::model::lower_hex::decode(text.as_bytes(), &mut bytes).then_some(bytes)
}

/// The stored form of the term (`kind`, `value`).
pub(super) fn stored(kind: i64, value: &str) -> Vec<u8> {
    if kind != KeyKind::Contract.code() {
        return value.as_bytes().to_vec();
    }
    let mut out = Vec::with_capacity(1 + value.len());
    if let Some(bytes) = hex_bytes(value) {
        out.push(PACKED);
        out.extend_from_slice(&bytes);
    } else {
        out.push(TEXT);
        out.extend_from_slice(value.as_bytes());
    }
    out
}

/// A stored term's text back ([`stored`]'s inverse).
pub(super) fn text(kind: i64, stored: &[u8]) -> String {
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    if kind != KeyKind::Contract.code() {
        return text(stored);
    }
    match stored.split_first() {
        Some((&PACKED, bytes)) => hex::encode(bytes),
        Some((&TEXT, rest)) => text(rest),
        _ => text(stored),
    }
}

/// [`text`] in SQL: the text of the stored `value` of the term of `kind`, each column named
/// after `table` (`"t."`, or `""` for a statement of one table). For a reader of the table of
/// its own (the tests and benchmarks compare it with SQLite's).
pub fn text_sql(table: &str) -> String {
    let contract = KeyKind::Contract.code();
    format!(
        "CASE WHEN {table}kind <> {contract} THEN convert_from({table}value, 'UTF8')
              WHEN get_byte({table}value, 0) = {PACKED} THEN encode(substring({table}value FROM 2), 'hex')
              ELSE convert_from(substring({table}value FROM 2), 'UTF8') END"
    )
}

/// The least byte string above every string that starts with `bytes` (none: no such string,
/// `bytes` being empty or all `0xff`).
fn above_all(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut end = bytes.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

/// Where the stored terms of `kind` whose text starts with `prefix` are: a range (from, below
/// the end when there is one) in each run. A contract id has two runs, its text's (from the
/// prefix itself) and its bytes' (when the prefix is lowercase hex: from the bytes of the
/// prefix, its odd last digit as the high half of a byte, `ab1` from `ab 10` below `ab 20`).
pub(super) fn prefix_ranges(kind: i64, prefix: &str) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
    let range = |from: Vec<u8>| {
        let end = above_all(&from);
        (from, end)
    };
    if kind != KeyKind::Contract.code() {
        return vec![range(prefix.as_bytes().to_vec())];
    }
    let mut ranges = vec![range([&[TEXT], prefix.as_bytes()].concat())];
    // Not lowercase hex: no contract id kept as bytes starts with it.
    let digits: Option<Vec<u8>> = prefix
        .bytes()
        .map(|digit| match digit {
            b'0'..=b'9' => Some(digit - b'0'),
            b'a'..=b'f' => Some(digit - b'a' + 10),
            _ => None,
        })
        .collect();
    let Some(digits) = digits else {
        return ranges;
    };
    let whole: Vec<u8> = digits
        .chunks_exact(2)
        .map(|pair| (pair[0] << 4) | pair[1])
        .collect();
    let packed = [&[PACKED], &whole[..]].concat();
    match digits.chunks_exact(2).remainder() {
        [high] => {
            let from = [&packed[..], &[high << 4]].concat();
            let end = if *high < 15 {
                Some([&packed[..], &[(high + 1) << 4]].concat())
            } else {
                above_all(&packed)
            };
            ranges.push((from, end));
        }
        _ => ranges.push(range(packed)),
    }
    ranges
}

/// Schema 15 → 16: the terms' values made bytes ([`stored`], in SQL), in a new table filled
/// in one pass (as 13 → 14: no dead row versions), every term keeping its id, its keys made
/// after it. No backslash in it: a server with `standard_conforming_strings` off reads it the
/// same (a `'\x00'` there is an escape, and a zero byte in a text is refused).
pub(super) fn migrate_15_to_16() -> String {
    let contract = KeyKind::Contract.code();
    format!(
        r"
SET LOCAL maintenance_work_mem = '256MB';
CREATE TABLE terms_16 (
    id BIGINT GENERATED ALWAYS AS IDENTITY,
    kind BIGINT NOT NULL,
    value BYTEA NOT NULL,
    updates BIGINT NOT NULL,
    last_migration BIGINT,
    last_time BIGINT,
    last_seq BIGINT
);
INSERT INTO terms_16 OVERRIDING SYSTEM VALUE
    SELECT id, kind, CASE
            WHEN kind <> {contract} THEN convert_to(value, 'UTF8')
            WHEN value ~ '^([0-9a-f][0-9a-f])+$' THEN decode('{PACKED:02x}', 'hex') || decode(value, 'hex')
            ELSE decode('{TEXT:02x}', 'hex') || convert_to(value, 'UTF8')
        END,
        updates, last_migration, last_time, last_seq
    FROM terms;
SELECT setval(pg_get_serial_sequence('terms_16', 'id'),
    nextval(pg_get_serial_sequence('terms', 'id')));
DROP TABLE terms;
ALTER TABLE terms_16 RENAME TO terms;
ALTER SEQUENCE terms_16_id_seq RENAME TO terms_id_seq;
ALTER TABLE terms ADD PRIMARY KEY (id), ADD CONSTRAINT terms_kind_value_key
    UNIQUE (kind, value) INCLUDE (id, updates, last_migration, last_time, last_seq);
"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONTRACT: i64 = 4;

    fn within(stored: &[u8], (from, end): &(Vec<u8>, Option<Vec<u8>>)) -> bool {
        stored >= from.as_slice() && end.as_ref().is_none_or(|end| stored < end.as_slice())
    }

    #[test]
    fn contract_ids_of_lowercase_even_hex_are_kept_as_their_bytes_and_read_back() {
        assert_eq!(KeyKind::Contract.code(), CONTRACT);
        let id = format!("00{}", "0123456789abcdef".repeat(8) + "ca11");
        let kept = stored(CONTRACT, &id);
        assert_eq!(kept.len(), 1 + id.len() / 2);
        assert_eq!(kept[0], PACKED);
        assert_eq!(text(CONTRACT, &kept), id);
        for odd in ["00AB12", "00ab1", "", "zz", "ab cd", "é"] {
            let kept = stored(CONTRACT, odd);
            assert_eq!(kept[0], TEXT, "{odd:?}");
            assert_eq!(text(CONTRACT, &kept), odd);
        }
        // Other kinds: the text, whatever it looks like.
        let party = KeyKind::Party.code();
        assert_eq!(stored(party, "00ab12"), b"00ab12");
        assert_eq!(text(party, b"00ab12"), "00ab12");
        // A packed id and a text one spelling the same bytes stay apart.
        assert_ne!(stored(CONTRACT, "6162"), stored(CONTRACT, "ab"));
    }

    #[test]
    fn a_prefix_range_holds_exactly_the_terms_starting_with_it() {
        let values = [
            "", "0", "00", "0f", "10", "ab", "abc", "abcd", "abcf", "abd0", "abf0", "abff",
            "abffff", "ac", "ac00", "ff", "ffff", "f", "fff", "ABCD", "abcx", "xyz", "00ab12",
            "ab0", "ab", "abf", "abf1",
        ];
        let prefixes = [
            "", "a", "ab", "abc", "abf", "abff", "f", "ff", "fff", "0", "00", "x", "AB", "abcx",
        ];
        for kind in [CONTRACT, KeyKind::Template.code()] {
            for prefix in prefixes {
                let ranges = prefix_ranges(kind, prefix);
                for value in values {
                    let kept = stored(kind, value);
                    let found = ranges.iter().filter(|r| within(&kept, r)).count();
                    assert_eq!(
                        found,
                        usize::from(value.starts_with(prefix)),
                        "kind {kind}, prefix {prefix:?}, value {value:?}: {ranges:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_migration_reads_the_same_whatever_the_servers_string_settings() {
        let sql = migrate_15_to_16();
        assert!(!sql.contains('\\'), "{sql}");
        assert!(sql.contains("decode('01', 'hex')") && sql.contains("decode('00', 'hex')"));
    }

    #[test]
    fn the_least_string_above_a_prefix_carries_over_its_last_bytes() {
        assert_eq!(above_all(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(above_all(&[1, 0xff, 0xff]), Some(vec![2]));
        assert_eq!(above_all(&[0xff]), None);
        assert_eq!(above_all(&[]), None);
    }
}
