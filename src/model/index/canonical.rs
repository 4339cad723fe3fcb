//! The update digest without a `serde_json::Value`: the item's JSON is read once into a tree
//! that borrows its strings from the text (an owned string only where the text has escapes),
//! each object's members sorted as they are read, the update's local fields left out, and the
//! canonical text written into one buffer that is reused item after item. It writes exactly the
//! bytes `canonical_json` writes for the same JSON (the same sort by UTF-8 bytes, the last of
//! duplicate keys kept as `Value` keeps it, strings and numbers written by serde_json's own
//! serializer), so the digests equal those of [`super::digest_value`] byte for byte — the
//! digests kept in existing indexes stay valid. The `Value` path cost about half the sync's CPU
//! per update (an `IndexMap` with a SipHash per key, an allocation per string and per number
//! written).

use std::borrow::Cow;
use std::fmt;

use serde::Deserializer as _;
use serde::de::{self, Deserialize, MapAccess, SeqAccess, Visitor};
use serde_json::Number;
use sha2::{Digest as _, Sha256};

use super::Digest;
use crate::model::consensus::LocalFields;

/// One JSON value, its strings borrowed from the text where they have no escapes.
enum Node<'a> {
    Null,
    Bool(bool),
    Number(Number),
    Str(Cow<'a, str>),
    Array(Vec<Node<'a>>),
    /// Members sorted by key, one per key (the last of duplicates).
    Object(Vec<(Cow<'a, str>, Node<'a>)>),
}

/// A string read borrowed when it can be.
struct Text<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(s)))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> Deserialize<'de> for Node<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Node::Null)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Node::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Self::Value, E> {
        Ok(Node::Bool(b))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Self::Value, E> {
        Ok(Node::Number(n.into()))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Self::Value, E> {
        Ok(Node::Number(n.into()))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Self::Value, E> {
        // As `Value` reads it: a non-finite float (not JSON) is null.
        Ok(Number::from_f64(n).map_or(Node::Null, Node::Number))
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Node::Str(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Node::Str(Cow::Owned(s.to_owned())))
    }
    fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
        Ok(Node::Str(Cow::Owned(s)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members: Vec<(Cow<'de, str>, Node<'de>)> = Vec::new();
        while let Some(Text(key)) = map.next_key()? {
            members.push((key, map.next_value()?));
        }
        // Stable: of duplicate keys the last read comes last, and is the one kept.
        members.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let mut kept: Vec<(Cow<'de, str>, Node<'de>)> = Vec::with_capacity(members.len());
        for member in members {
            match kept.last_mut() {
                Some(last) if last.0 == member.0 => *last = member,
                _ => kept.push(member),
            }
        }
        Ok(Node::Object(kept))
    }
}

/// Removes `path` as `LocalFields::strip` removes it from a `Value`.
fn strip(node: &mut Node<'_>, path: &[&str]) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    match node {
        Node::Object(members) if rest.is_empty() => {
            members.retain(|(key, _)| key != first);
        }
        Node::Object(members) => {
            if let Some((_, inner)) = members.iter_mut().find(|(key, _)| key == first) {
                strip(inner, rest);
            }
        }
        Node::Array(items) if *first == "*" => {
            for item in items {
                strip(item, rest);
            }
        }
        _ => {}
    }
}

/// A string as serde_json writes it. One borrowed from the text had no escape there, so it
/// holds no quote, backslash or control character (serde_json refuses those unescaped) — none
/// of what serde_json escapes — and is written as it is, without the escaping pass.
#[allow(clippy::ptr_arg)] // whether it is borrowed is what tells
fn write_str(s: &Cow<'_, str>, out: &mut Vec<u8>) {
    match s {
        Cow::Borrowed(s) => {
            out.push(b'"');
            out.extend_from_slice(s.as_bytes());
            out.push(b'"');
        }
        Cow::Owned(s) => {
            let _ = serde_json::to_writer(&mut *out, s.as_str());
        }
    }
}

fn write(node: &Node<'_>, out: &mut Vec<u8>) {
    match node {
        Node::Null => out.extend_from_slice(b"null"),
        Node::Bool(true) => out.extend_from_slice(b"true"),
        Node::Bool(false) => out.extend_from_slice(b"false"),
        // serde_json's serializer, as `Value`'s text writes them (cannot fail into a Vec).
        Node::Number(n) => {
            let _ = serde_json::to_writer(&mut *out, n);
        }
        Node::Str(s) => write_str(s, out),
        Node::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(item, out);
            }
            out.push(b']');
        }
        Node::Object(members) => {
            out.push(b'{');
            for (i, (key, value)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(key, out);
                out.push(b':');
                write(value, out);
            }
            out.push(b'}');
        }
    }
}

/// The canonical text of the JSON `text` without the `local` fields, into `out` (cleared
/// first): read without serde when its strings have no escapes and its numbers are integers
/// ([`super::canonical_fast`]: the same bytes), else by [`serde_canonical_into`].
pub(super) fn canonical_into(
    text: &str,
    local: LocalFields,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    if super::canonical_fast::canonical_into(text, local, out) {
        return Ok(());
    }
    serde_canonical_into(text, local, out)
}

/// [`canonical_into`] through serde_json's reader: any JSON, its errors as serde_json says
/// them.
pub(super) fn serde_canonical_into(
    text: &str,
    local: LocalFields,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let mut de = serde_json::Deserializer::from_str(text);
    let mut node = (&mut de)
        .deserialize_any(NodeVisitor)
        .map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    for path in local.0 {
        strip(&mut node, path);
    }
    out.clear();
    write(&node, out);
    Ok(())
}

/// The digest of one update item's JSON text ([`super::digest_of`]) with `buf` as the
/// canonical text's buffer.
pub(super) fn digest_with(text: &str, buf: &mut Vec<u8>) -> Result<Digest, String> {
    canonical_into(text, LocalFields::UPDATE, buf)?;
    Ok(Sha256::digest(buf.as_slice()).into())
}

#[cfg(test)]
mod fast_tests {
    //! The fast path ([`super::super::canonical_fast`]) against the serde path.
    use super::*;

    /// The serde path's text, for comparison.
    fn serde_text(text: &str, local: LocalFields) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        serde_canonical_into(text, local, &mut out).map(|()| out)
    }

    fn fast_text(text: &str, local: LocalFields) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        super::super::canonical_fast::canonical_into(text, local, &mut out).then_some(out)
    }

    const EVENTS_PARTS: LocalFields = LocalFields(&[&["verdict", "finalization_time"]]);
    const NESTED: LocalFields = LocalFields(&[&["transactions", "*", "offset"], &["a", "b"]]);

    #[test]
    fn texts_of_its_form_give_the_serde_paths_text() {
        let texts = [
            r#"{"b":1,"a":null,"offset":"7","c":[true,false,{"z":1,"y":[]}],"é":"ü x"}"#,
            " { \"b\" : 1 ,\n\t\"a\" : [ 1 , 2 ] }\r\n",
            r#"{"a":1,"a":2,"b":{"x":1,"x":{"q":3}},"offset":1,"offset":2}"#,
            r#"{"verdict":{"finalization_time":"t","z":-5,"a":18446744073709551615},"traffic_summary":null}"#,
            r#"{"verdict":{"finalization_time":"t","finalization_time":"u"},"app_activity_records":{}}"#,
            r#"{"transactions":[{"offset":"1","k":2},{"offset":"2"},3],"a":{"b":1,"b":2,"c":0}}"#,
            r#"{"a":{"b":1},"a":{"b":2,"c":-9223372036854775808}}"#,
            r#"[1,"x",{}]"#,
            r#""just text""#,
            "0",
            "{}",
        ];
        for text in texts {
            for local in [LocalFields::NONE, LocalFields::UPDATE, EVENTS_PARTS, NESTED] {
                let fast = fast_text(text, local).unwrap_or_else(|| panic!("fast: {text}"));
                let serde = serde_text(text, local).expect("json");
                assert_eq!(
                    String::from_utf8_lossy(&fast),
                    String::from_utf8_lossy(&serde),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn other_texts_are_left_to_the_serde_path() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        for text in crate::model::json_tokens::NOT_PRINTED_FORM
            .into_iter()
            .chain([
                r#"{"a\u0062":1}"#,
                r#"{"a":1} x"#,
                r#"{"a":"#,
                r#"{"a":01}"#,
                "{\"a\":\"x\ty\"}",
                "",
                deep.as_str(),
            ])
        {
            assert!(fast_text(text, LocalFields::UPDATE).is_none(), "{text}");
        }
    }
}
