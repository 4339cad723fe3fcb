//! Splice's `Splice.Amulet.CryptoHash` (CIP-0104 reward accounting): the hash every SV's scan
//! computes over a round's reward tree, so a client can recompute a batch's hash from its
//! served contents and check it against the hash it was asked for.
//!
//! The scheme, as in Splice's Daml module: a scalar is the SHA-256 (lower-case hex) of its
//! text; a list or record is `sha256(n|h1|…|hn)` over its element hashes with `n` their count;
//! a variant is `sha256(tag|n|h1|…|hn)`. An `Int` is hashed as its decimal text, a `Decimal`
//! as Daml's `show` of it ([`daml_decimal_show`]), which strips the trailing zeros a scan
//! serves (`"10.0000000000"` is shown as `"10.0"`). A minting allowance is the record
//! `{provider, amount}`; a batch is the variant `BatchOfMintingAllowances [allowances]` or
//! `BatchOfBatches [child hashes]`, each with the list as its single field.

use sha2::{Digest as _, Sha256};

/// The hash of a text: lower-case hex SHA-256 of its UTF-8 bytes.
pub fn hash_text(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// The hash of a list (and of a record: the list of its field hashes).
pub fn hash_list<S: AsRef<str>>(hashes: &[S]) -> String {
    let mut s = hashes.len().to_string();
    for h in hashes {
        s.push('|');
        s.push_str(h.as_ref());
    }
    hash_text(&s)
}

/// The hash of a record: the list of its field hashes.
pub fn hash_record<S: AsRef<str>>(field_hashes: &[S]) -> String {
    hash_list(field_hashes)
}

/// The hash of a variant constructor `tag` with its field hashes.
pub fn hash_variant<S: AsRef<str>>(tag: &str, field_hashes: &[S]) -> String {
    let mut s = format!("{tag}|{}", field_hashes.len());
    for h in field_hashes {
        s.push('|');
        s.push_str(h.as_ref());
    }
    hash_text(&s)
}

/// The hash of a Daml `Int`.
pub fn hash_int(n: i64) -> String {
    hash_text(&n.to_string())
}

/// Daml's `show` of a `Decimal` given as decimal text (as a scan serves amounts): the
/// fraction's trailing zeros stripped, at least one fraction digit (`"10.0000000000"` →
/// `"10.0"`, `"0"` → `"0.0"`, `"23759.7510000000"` → `"23759.751"`), a leading `+` and
/// redundant leading zeros dropped, `-0` read as `0`. `None` when `text` is not a decimal.
pub fn daml_decimal_show(text: &str) -> Option<String> {
    let t = text.trim();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let frac = frac.trim_end_matches('0');
    let frac = if frac.is_empty() { "0" } else { frac };
    let zero = int == "0" && frac == "0";
    let sign = if neg && !zero { "-" } else { "" };
    Some(format!("{sign}{int}.{frac}"))
}

/// The hash of a Daml `Decimal` given as decimal text: [`hash_text`] of its
/// [`daml_decimal_show`]. `None` when `text` is not a decimal.
pub fn hash_decimal(text: &str) -> Option<String> {
    daml_decimal_show(text).map(|s| hash_text(&s))
}

/// The hash of a minting allowance whose amount is already Daml-shown text (hashed as is).
pub fn hash_minting_allowance_shown(provider: &str, amount_shown: &str) -> String {
    hash_record(&[hash_text(provider), hash_text(amount_shown)])
}

/// The hash of a minting allowance as a scan serves it (`amount` is decimal text, hashed as
/// Daml shows it). `None` when the amount is not a decimal.
pub fn hash_minting_allowance(provider: &str, amount: &str) -> Option<String> {
    Some(hash_record(&[hash_text(provider), hash_decimal(amount)?]))
}

/// The hash of a leaf batch from its allowances' hashes.
pub fn hash_batch_of_minting_allowances<S: AsRef<str>>(allowance_hashes: &[S]) -> String {
    hash_variant("BatchOfMintingAllowances", &[hash_list(allowance_hashes)])
}

/// The hash of an inner batch from its children's hashes.
pub fn hash_batch_of_batches<S: AsRef<str>>(child_hashes: &[S]) -> String {
    hash_variant("BatchOfBatches", &[hash_list(child_hashes)])
}

#[cfg(test)]
mod tests {
    use super::*;

    // Splice's golden values (daml/splice-amulet-test/.../UnitTests/Amulet/CryptoHash.daml).
    #[test]
    fn splice_golden_record_encoding() {
        // RecV1 { a = 1, b = "x" }
        let h = hash_record(&[hash_int(1), hash_text("x")]);
        assert_eq!(
            h,
            "e2878cf11d8a10aa17f359e1f61f711756fdbbc256bf541baec14c21b6888f6e"
        );
    }

    #[test]
    fn splice_golden_variant_encoding() {
        // V1 with payload = Payload { x = 1, y = "x" }
        let h = hash_variant("V1", &[hash_int(1), hash_text("x")]);
        assert_eq!(
            h,
            "ca314e0bdf0fc327940a89334ff6df58f234b395d36328af1a0cce2339227e5c"
        );
    }

    // The primitive cases of Splice's DbCryptoHashFunctionsTest.scala (values computed
    // independently with `printf … | sha256sum`).
    #[test]
    fn splice_primitive_cases() {
        assert_eq!(
            hash_text("hello"),
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        );
        assert_eq!(
            hash_text(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let alice = hash_text("alice::provider");
        assert_eq!(
            hash_list(&[alice.clone(), hash_text("10.0")]),
            "4406ac0dd958601e77e8576e1b60bb67e161a52e08088475d04f04620ddb3268"
        );
        assert_eq!(
            hash_list::<String>(&[]),
            "5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9"
        );
        assert_eq!(
            hash_list(&[hash_text("only")]),
            "aa18607018fb9cf1bd5fadd377c29b63fbf8548bf2125299bbcd76c0a2466219"
        );
        assert_eq!(
            hash_variant("TestTag", &[alice]),
            "394ac0feff921999962903730d98b8209eeeecdbcc21e1bd981b1412236144dd"
        );
    }

    // The minting-allowance and batch cases of Splice's DbCryptoHashFunctionsTest.scala: the
    // amounts there are SQL text hashed as given.
    #[test]
    fn splice_minting_allowance_and_batch_cases() {
        let ma_alice = hash_minting_allowance_shown("alice::provider", "10.0000000000");
        let ma_bob = hash_minting_allowance_shown("bob::provider", "0");
        assert_eq!(
            ma_alice,
            "9aac5a97d00901568f378027dd0a644758a465340df4d8eba6965768bc634d39"
        );
        assert_eq!(
            ma_bob,
            "4adf379f5fb0a2692957185714466db373c1f340388ec841244684393e47fdd1"
        );
        assert_eq!(
            hash_batch_of_minting_allowances(&[ma_alice, ma_bob]),
            "d516153f4c200ee70a7b7cb5dc1527710cf739a3479cac3bf70abba20996a39e"
        );
        let leaf1 = hash_batch_of_minting_allowances(&[hash_minting_allowance_shown(
            "alice::provider",
            "5.0",
        )]);
        let leaf2 = hash_batch_of_minting_allowances(&[hash_minting_allowance_shown(
            "bob::provider",
            "3.0",
        )]);
        assert_eq!(
            hash_batch_of_batches(&[leaf1, leaf2]),
            "24e1722184b6fcc50259be3d7ad7aaeeebf7bec51a713a26216cd9ae88149143"
        );
    }

    // What Splice's daml_numeric_to_text documents for `show (d : Numeric 10)`.
    #[test]
    fn a_served_amount_is_hashed_as_daml_shows_it() {
        assert_eq!(daml_decimal_show("10.0000000000").as_deref(), Some("10.0"));
        assert_eq!(
            daml_decimal_show("23759.7510000000").as_deref(),
            Some("23759.751")
        );
        assert_eq!(daml_decimal_show("0.0000000000").as_deref(), Some("0.0"));
        assert_eq!(daml_decimal_show("0").as_deref(), Some("0.0"));
        assert_eq!(daml_decimal_show("10").as_deref(), Some("10.0"));
        assert_eq!(daml_decimal_show("-0.50").as_deref(), Some("-0.5"));
        assert_eq!(daml_decimal_show("-0.000").as_deref(), Some("0.0"));
        assert_eq!(daml_decimal_show("007.5").as_deref(), Some("7.5"));
        assert_eq!(daml_decimal_show("1e3"), None);
        assert_eq!(daml_decimal_show("."), None);
        assert_eq!(daml_decimal_show(""), None);
        // The served form and the shown form hash alike once shown.
        assert_eq!(
            hash_minting_allowance("alice::provider", "10.0000000000").as_deref(),
            Some(hash_minting_allowance_shown("alice::provider", "10.0").as_str())
        );
        assert_ne!(
            hash_minting_allowance_shown("alice::provider", "10.0000000000"),
            hash_minting_allowance_shown("alice::provider", "10.0")
        );
    }
}
