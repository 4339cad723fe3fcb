//! Schema 11: how a term's text is kept in the SQLite `terms` table. A contract id that is
//! lowercase hexadecimal of an even length (every contract id a participant makes) is kept as
//! the bytes it spells (a BLOB of half its length: 69 bytes, not 138, for the contract ids of
//! today); every other term (parties, templates, choices, a contract id of another form) as
//! its text. SQLite orders every TEXT before every BLOB and BLOBs byte by byte, which for
//! lowercase hex is the order of the text: a prefix of a contract id is found in each of the
//! two runs of the kind ([`prefix_bounds`]). Schema 13 keeps the updates' ids the same way
//! ([`super::update_ids`], with [`packed`], [`text`] and [`hex_prefix_bounds`]).

use std::borrow::Cow;

use rusqlite::types::{ToSqlOutput, Value, ValueRef};

use crate::model::index::KeyKind;

/// Whether `value` is kept as bytes: non-empty lowercase hex of an even length (the SQL of
/// [`packed_sql`] decides the same).
fn packs(value: &str) -> bool {
    !value.is_empty()
        && value.len().is_multiple_of(2)
        && value
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The stored form of the term (`kind`, `value`).
pub(super) fn stored(kind: i64, value: &str) -> ToSqlOutput<'_> {
    if kind == KeyKind::Contract.code() {
        packed(value)
    } else {
        ToSqlOutput::Borrowed(ValueRef::Text(value.as_bytes()))
    }
}

/// `value` as bytes when [`packs`] says so, else as its text.
pub(super) fn packed(value: &str) -> ToSqlOutput<'_> {
    if let Some(bytes) = lower_hex_bytes(value) {
        ToSqlOutput::Owned(Value::Blob(bytes))
    } else {
        ToSqlOutput::Borrowed(ValueRef::Text(value.as_bytes()))
    }
}

/// The SQL expression of a column's value as [`packed`] keeps it (a value already bytes, or
/// not to be packed, left as it is): the migrations' packing.
macro_rules! packed_sql {
    ($column:literal) => {
        concat!(
            "CASE WHEN typeof(",
            $column,
            ") = 'text' AND length(",
            $column,
            ") > 0 AND length(",
            $column,
            ") % 2 = 0 AND ",
            $column,
            " NOT GLOB '*[^0-9a-f]*' THEN unhex(",
            $column,
            ") ELSE ",
            $column,
            " END"
        )
    };
}
pub(super) use packed_sql;

/// The key by which a body names the contract `value` (schema 16,
/// [`crate::model::index::pack::CONTRACT_KEYS`]): the start of its bytes when it is kept as
/// bytes, else its whole text.
pub(super) fn contract_key(value: &str) -> crate::model::index::pack::ContractKey {
    use crate::model::index::pack::{ContractKey, KEY_BYTES};
    match lower_hex_bytes(value) {
        Some(mut bytes) => {
            bytes.truncate(KEY_BYTES);
            ContractKey::Bytes(bytes)
        }
        None => ContractKey::Text(value.to_owned()),
    }
}

/// The bytes `value` spells when [`packs`] says it is kept as bytes, else `None`: read through
/// a table, a byte a pair (`packs` and then `hex::decode` were 2.5-4% of a sync's CPU, all in
/// the writer).
fn lower_hex_bytes(value: &str) -> Option<Vec<u8>> {
    let text = value.as_bytes();
    if text.is_empty() {
        return None;
    }
    let mut bytes = vec![0; text.len() / 2];
    crate::model::lower_hex::decode(text, &mut bytes).then_some(bytes)
}

/// A stored term's text back (a BLOB as the lowercase hex it was).
pub(super) fn text(value: ValueRef<'_>) -> rusqlite::types::FromSqlResult<Cow<'_, str>> {
    match value {
        ValueRef::Blob(bytes) => {
            // As `hex::encode`, into a buffer of its size (not a `char` at a time).
            let mut text = vec![0; bytes.len() * 2];
            hex::encode_to_slice(bytes, &mut text)
                .map_err(|e| rusqlite::types::FromSqlError::Other(Box::new(e)))?;
            String::from_utf8(text)
                .map(Cow::Owned)
                .map_err(|e| rusqlite::types::FromSqlError::Other(Box::new(e)))
        }
        other => other.as_str().map(Cow::Borrowed),
    }
}

/// Where the terms of `kind` whose text starts with `prefix` begin in each run of the table's
/// order: the TEXT run from `prefix` itself, the BLOB run (contract ids only; none when the
/// prefix is not lowercase hex) from the bytes of the prefix, its odd last digit as the high
/// half of a byte (`ab1` from `ab 10`).
pub(super) fn prefix_bounds(kind: i64, prefix: &str) -> (Value, Option<Value>) {
    if kind != KeyKind::Contract.code() {
        return (Value::Text(prefix.to_owned()), None);
    }
    hex_prefix_bounds(prefix)
}

/// [`prefix_bounds`] of a column every value of which may be packed (the updates' ids).
pub(super) fn hex_prefix_bounds(prefix: &str) -> (Value, Option<Value>) {
    let text = Value::Text(prefix.to_owned());
    let even = if prefix.len().is_multiple_of(2) {
        prefix.to_owned()
    } else {
        format!("{prefix}0")
    };
    let blob = if even.is_empty() {
        Some(Value::Blob(Vec::new()))
    } else if packs(&even) {
        hex::decode(&even).ok().map(Value::Blob)
    } else {
        None
    };
    (text, blob)
}

/// The terms table's columns and key, as schema 6 made them (the 10 → 11 migration rebuilds
/// the table with them: [`MIGRATE_10_TO_11`]).
macro_rules! terms_columns {
    () => {
        "(
    kind INTEGER NOT NULL,
    value TEXT NOT NULL,
    id INTEGER NOT NULL,
    n INTEGER NOT NULL,
    last_migration INTEGER,
    last_time INTEGER,
    last_seq INTEGER,
    PRIMARY KEY (kind, value)
) WITHOUT ROWID;
"
    };
}
pub(super) use terms_columns;

/// Schema 10 → 11: the `terms` table rebuilt with its contract ids kept as bytes (a value
/// already bytes is left as it is), in the table's new order (a process killed meanwhile leaves schema 10: one transaction).
pub(super) const MIGRATE_10_TO_11: &str = concat!(
    "CREATE TABLE terms_v11 ",
    terms_columns!(),
    "INSERT INTO terms_v11 (kind, value, id, n, last_migration, last_time, last_seq)
    SELECT kind, CASE WHEN kind = 4 THEN ",
    packed_sql!("value"),
    " ELSE value END AS packed,
           id, n, last_migration, last_time, last_seq
    FROM terms ORDER BY kind, packed;
DROP TABLE terms;
ALTER TABLE terms_v11 RENAME TO terms;
"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_even_lowercase_hex_contract_ids_are_packed() {
        let contract = KeyKind::Contract.code();
        let packed = |kind, v| matches!(stored(kind, v), ToSqlOutput::Owned(Value::Blob(_)));
        assert!(packed(contract, "00ab12"));
        assert!(!packed(contract, "00AB12"), "upper case kept as text");
        assert!(!packed(contract, "00ab1"), "odd length kept as text");
        assert!(!packed(contract, ""));
        assert!(!packed(contract, "zz"));
        assert!(
            !packed(KeyKind::Party.code(), "00ab12"),
            "only contract ids"
        );
        let conn = rusqlite::Connection::open_in_memory().expect("opens");
        let back: String = conn
            .query_row("SELECT ?1", [stored(contract, "00ab12")], |r| {
                text(r.get_ref(0)?).map(Cow::into_owned).map_err(Into::into)
            })
            .expect("reads");
        assert_eq!(back, "00ab12");
        // A contract id of today's length, both ways as the `hex` crate's own.
        let id = format!("00{}", "0123456789abcdef".repeat(8) + "ca11");
        let ToSqlOutput::Owned(Value::Blob(bytes)) = stored(contract, &id) else {
            panic!("packed");
        };
        assert_eq!(bytes, hex::decode(&id).expect("hex"));
        let back = text(ValueRef::Blob(&bytes)).expect("text");
        assert_eq!(back, id);
    }

    #[test]
    fn the_table_read_agrees_with_packs_and_the_hex_crate() {
        for value in [
            "",
            "0",
            "00",
            "ab",
            "AB",
            "aB",
            "0g",
            "g0",
            "ff00",
            "éé",
            "a\u{0}",
            "0123456789abcdef",
            "fedcba9876543210ff",
            "12 4",
            "x",
            "zz",
        ] {
            let expected = packs(value).then(|| hex::decode(value).expect("hex"));
            assert_eq!(lower_hex_bytes(value), expected, "{value:?}");
        }
        for b in 0..=255u8 {
            let value = format!("0{}", b as char);
            let expected = packs(&value).then(|| hex::decode(&value).expect("hex"));
            assert_eq!(lower_hex_bytes(&value), expected, "{value:?}");
        }
    }

    #[test]
    fn the_migration_packs_as_the_writer_does() {
        let conn = rusqlite::Connection::open_in_memory().expect("opens");
        conn.execute_batch(
            "CREATE TABLE terms (kind INTEGER NOT NULL, value TEXT NOT NULL, id INTEGER NOT NULL,
                 n INTEGER NOT NULL, last_migration INTEGER, last_time INTEGER, last_seq INTEGER,
                 PRIMARY KEY (kind, value)) WITHOUT ROWID;
             INSERT INTO terms (kind, value, id, n) VALUES
                 (4, '00ab12', 1, 1), (4, '00AB12', 2, 1), (4, 'abc', 3, 1), (1, '00ab12', 4, 1);",
        )
        .expect("schema 10 terms");
        conn.execute_batch(MIGRATE_10_TO_11).expect("migrates");
        for (kind, value, id) in [
            (4, "00ab12", 1),
            (4, "00AB12", 2),
            (4, "abc", 3),
            (1, "00ab12", 4),
        ] {
            let found: i64 = conn
                .query_row(
                    "SELECT id FROM terms WHERE kind = ?1 AND value = ?2",
                    rusqlite::params![kind, stored(kind, value)],
                    |r| r.get(0),
                )
                .expect("found by its stored form");
            assert_eq!(found, id, "{kind} {value}");
        }
    }

    #[test]
    fn a_prefix_starts_both_runs() {
        let contract = KeyKind::Contract.code();
        assert_eq!(
            prefix_bounds(contract, "ab1"),
            (
                Value::Text("ab1".to_owned()),
                Some(Value::Blob(vec![0xab, 0x10]))
            )
        );
        assert_eq!(prefix_bounds(contract, "xy").1, None);
        assert_eq!(prefix_bounds(contract, "").1, Some(Value::Blob(Vec::new())));
        assert_eq!(prefix_bounds(KeyKind::Party.code(), "ab").1, None);
    }
}
