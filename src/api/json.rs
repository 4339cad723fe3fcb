//! JSON plumbing shared by the API models: the lossless [`RawJson`] payload type, null-tolerant
//! field decoders, the `raw_backed!` and `one_key_enum!` macros that keep unknown fields without
//! `#[serde(flatten)]`, decode-error path handling and the sanitiser for server text shown in
//! errors.

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;
use std::fmt;

/// An arbitrary JSON value kept as the exact text the server sent (lossless, parsed lazily).
///
/// Used for Daml payloads (`create_arguments`, `choice_argument`, `exercise_result`, contract
/// `payload`, ledger `createArgument`, …) and for the raw JSON of whole records.
///
/// The text is kept as a `Box<str>` that is always one well-formed JSON value without
/// surrounding whitespace: every constructor either parses it or takes it from a parse that
/// just read it (see [`RawJson::parsed`]). A `serde_json::value::RawValue` holds the same, but
/// can only be made (without `unsafe`) by scanning the text once more, which a page's one-pass
/// decoding avoids.
#[derive(Clone)]
pub struct RawJson(Box<str>);

impl RawJson {
    /// The JSON `null`.
    pub fn null() -> Self {
        RawJson("null".into())
    }

    /// Wraps a raw value.
    pub fn new(raw: Box<RawValue>) -> Self {
        RawJson(raw.into())
    }

    /// Validates `json` and keeps it verbatim.
    pub fn from_string(json: String) -> Result<Self, serde_json::Error> {
        RawValue::from_string(json).map(Self::new)
    }

    /// The text of a value that serde_json has just parsed out of a larger text (its
    /// `byte_offset`s around it, whitespace excluded): valid JSON by that parse, so it is not
    /// scanned again. Only the page decoder that read it calls this.
    pub(crate) fn parsed(text: &str) -> Self {
        debug_assert!(serde_json::from_str::<&RawValue>(text).is_ok_and(|r| r.get() == text));
        RawJson(text.into())
    }

    /// Serialises `value` to a raw JSON value.
    pub fn from_value<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        serde_json::value::to_raw_value(value).map(Self::new)
    }

    /// The JSON text, exactly as received.
    pub fn get(&self) -> &str {
        &self.0
    }

    /// True for JSON `null`.
    pub fn is_null(&self) -> bool {
        self.0.trim() == "null"
    }

    /// If the value is a JSON string (e.g. an enum-like `exercise_result`), its content.
    pub fn as_str(&self) -> Option<String> {
        let text = self.0.trim_start();
        if text.starts_with('"') {
            serde_json::from_str::<String>(text).ok()
        } else {
            None
        }
    }

    /// Parses into a `serde_json::Value` (for display).
    pub fn to_value(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::from_str(&self.0)
    }

    /// Parses into any deserialisable type.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(&self.0)
    }
}

impl Default for RawJson {
    fn default() -> Self {
        RawJson::null()
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for RawJson {}

impl Serialize for RawJson {
    /// Written verbatim. serde_json writes a text verbatim only as a `RawValue`, which is
    /// borrowed from the text by a scan of it (output only: no decode path serialises).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let raw: &RawValue = serde_json::from_str(&self.0).map_err(serde::ser::Error::custom)?;
        raw.serialize(s)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(d).map(Self::new)
    }
}

/// Field decoder: an explicit `null` becomes the type's default (use with `#[serde(default)]`).
pub(crate) fn nd<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// Integer types [`int`] can produce.
pub(crate) trait LenientInt: Sized + Default {
    fn from_i128(v: i128) -> Option<Self>;
}

impl LenientInt for i64 {
    fn from_i128(v: i128) -> Option<Self> {
        i64::try_from(v).ok()
    }
}

impl LenientInt for i32 {
    fn from_i128(v: i128) -> Option<Self> {
        i32::try_from(v).ok()
    }
}

struct IntVisitor<T>(std::marker::PhantomData<T>);

impl<T: LenientInt> Visitor<'_> for IntVisitor<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer (number or decimal string) or null")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        T::from_i128(i128::from(v))
            .map(Some)
            .ok_or_else(|| E::custom(format!("integer {v} out of range")))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        T::from_i128(i128::from(v))
            .map(Some)
            .ok_or_else(|| E::custom(format!("integer {v} out of range")))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        if v.fract() == 0.0 && v.is_finite() && v.abs() < 9.0e18 {
            // Checked above: integral and well inside the i64 range.
            let i = v as i64;
            self.visit_i64(i)
        } else {
            Err(E::invalid_type(de::Unexpected::Float(v), &self))
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        v.trim()
            .parse::<i128>()
            .ok()
            .and_then(T::from_i128)
            .map(Some)
            .ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// Field decoder: an integer given as a number or a decimal string; `null` → 0.
pub(crate) fn int<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: LenientInt,
{
    Ok(
        d.deserialize_any(IntVisitor::<T>(std::marker::PhantomData))?
            .unwrap_or_default(),
    )
}

/// Field decoder: an optional integer given as a number or a decimal string.
pub(crate) fn opt_int<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: LenientInt,
{
    d.deserialize_any(IntVisitor::<T>(std::marker::PhantomData))
}

struct StrVisitor;

impl Visitor<'_> for StrVisitor {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string, a number or null")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// Field decoder: a string that some servers send as a number (e.g. scan reassignment `offset`).
pub(crate) fn lenient_string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(d.deserialize_any(StrVisitor)?.unwrap_or_default())
}

/// Marks a nested decode error's path inside an error message (see [`split_error`]).
const PATH_MARK: char = '\u{1f}';

/// Strips serde_json's " at line L column C" suffix (positions inside a nested raw value mean
/// nothing to a user; the JSON path says where the problem is).
pub(crate) fn strip_position(msg: &str) -> &str {
    if let Some(i) = msg.rfind(" at line ") {
        let tail = &msg[i + " at line ".len()..];
        let mut parts = tail.splitn(2, " column ");
        let line_ok = parts
            .next()
            .is_some_and(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()));
        let col_ok = parts
            .next()
            .is_some_and(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit()));
        if line_ok && col_ok {
            return &msg[..i];
        }
    }
    msg
}

/// Joins two serde_path_to_error paths (`.` is the root).
pub(crate) fn join_path(outer: &str, inner: &str) -> String {
    match (outer, inner) {
        ("." | "", i) => i.to_owned(),
        (o, "." | "") => o.to_owned(),
        (o, i) if i.starts_with('[') => format!("{o}{i}"),
        (o, i) => format!("{o}.{i}"),
    }
}

/// The JSON path and the detail of a decode error, merging the paths of nested raw-backed
/// decodes into one path.
pub(crate) fn split_error(e: &serde_path_to_error::Error<serde_json::Error>) -> (String, String) {
    let outer = e.path().to_string();
    let msg = e.inner().to_string();
    split_message(&outer, &msg)
}

/// See [`split_error`]; `msg` may carry a nested path marker.
pub(crate) fn split_message(outer: &str, msg: &str) -> (String, String) {
    let msg = strip_position(msg);
    if let Some(rest) = msg.strip_prefix(PATH_MARK)
        && let Some((inner, detail)) = rest.split_once(PATH_MARK)
    {
        return (join_path(outer, inner), strip_position(detail).to_owned());
    }
    (outer.to_owned(), msg.to_owned())
}

/// Decodes `text` as `T`, reporting errors as a message that carries the JSON path for
/// [`split_error`] to merge into the enclosing path. Decodes without path tracking first (fast);
/// only a failure is decoded again with tracking, to name the path.
pub(crate) fn parse_nested<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    if let Ok(v) = serde_json::from_str::<T>(text) {
        return Ok(v);
    }
    let mut de = serde_json::Deserializer::from_str(text);
    match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(v) => Ok(v),
        Err(e) => {
            let (path, detail) = split_error(&e);
            Err(format!("{PATH_MARK}{path}{PATH_MARK}{detail}"))
        }
    }
}

/// Decodes `text` as `T`: `Err((path, detail))` on failure. Like [`parse_nested`], the path is
/// only tracked when the fast decode fails.
pub(crate) fn decode_with_path<T: DeserializeOwned>(text: &[u8]) -> Result<T, (String, String)> {
    match serde_json::from_slice::<T>(text) {
        Ok(v) => Ok(v),
        Err(plain) => {
            let mut de = serde_json::Deserializer::from_slice(text);
            let value =
                serde_path_to_error::deserialize::<_, T>(&mut de).map_err(|e| split_error(&e))?;
            // Tracking decoded it after all: the plain error was trailing data after the value.
            de.end()
                .map_err(|e| (".".to_owned(), strip_position(&e.to_string()).to_owned()))?;
            drop(value);
            Err((
                ".".to_owned(),
                strip_position(&plain.to_string()).to_owned(),
            ))
        }
    }
}

/// A `{"value": T}` wrapper as the JSON Ledger API uses inside one-key variant objects.
#[derive(Deserialize, Serialize)]
pub(crate) struct Valued<T> {
    pub value: T,
}

/// Defines a struct that keeps the raw JSON it was decoded from (field `raw`), so unknown fields
/// survive re-serialisation (`Serialize` writes `raw` back), without `#[serde(flatten)]`.
/// Field attributes are serde attributes of the private decoding struct.
macro_rules! raw_backed {
    (
        $(#[$sm:meta])*
        pub struct $name:ident via $repr:ident {
            $( $(#[$fm:meta])* pub $f:ident : $t:ty ),* $(,)?
        }
    ) => {
        $(#[$sm])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            $( pub $f: $t, )*
            /// The JSON the server sent for this object, unknown fields included.
            pub raw: $crate::api::json::RawJson,
        }

        #[derive(serde::Deserialize)]
        struct $repr {
            $( $(#[$fm])* $f: $t, )*
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let raw = <$crate::api::json::RawJson as serde::Deserialize>::deserialize(d)?;
                let r: $repr = $crate::api::json::parse_nested(raw.get())
                    .map_err(<D::Error as serde::de::Error>::custom)?;
                Ok($name { $( $f: r.$f, )* raw })
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.raw.serialize(s)
            }
        }
    };
}
pub(crate) use raw_backed;

/// Implements `Deserialize`/`Serialize` for an enum encoded as a one-key object
/// (`{"Kind": payload}`), the JSON Ledger API's oneOf style. Each listed variant is either
/// `direct` (`{"Kind": T}`) or `valued` (`{"Kind": {"value": T}}`); unknown keys become
/// `Unknown { kind, raw }`. Decoding streams (no buffering), so `RawJson` inside works.
macro_rules! one_key_enum {
    ($name:ident, $expecting:literal, { $( $key:literal => $variant:ident : $mode:ident $t:ty ),* $(,)? }) => {
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        let Some(key) = map.next_key::<String>()? else {
                            return Err(<A::Error as serde::de::Error>::custom(concat!(
                                "empty object, expected ", $expecting
                            )));
                        };
                        let out = match key.as_str() {
                            $( $key => one_key_enum!(@read map, $name, $variant, $mode, $t), )*
                            _ => $name::Unknown {
                                raw: map.next_value::<$crate::api::json::RawJson>()?,
                                kind: key,
                            },
                        };
                        while map.next_key::<serde::de::IgnoredAny>()?.is_some() {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                        Ok(out)
                    }
                }
                d.deserialize_map(V)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(Some(1))?;
                match self {
                    $( $name::$variant(v) => one_key_enum!(@write m, $key, $mode, v), )*
                    $name::Unknown { kind, raw } => m.serialize_entry(kind, raw)?,
                }
                m.end()
            }
        }
    };
    (@read $map:ident, $name:ident, $variant:ident, direct, $t:ty) => {
        $name::$variant($map.next_value::<$t>()?)
    };
    (@read $map:ident, $name:ident, $variant:ident, valued, $t:ty) => {
        $name::$variant($map.next_value::<$crate::api::json::Valued<$t>>()?.value)
    };
    (@write $m:ident, $key:literal, direct, $v:ident) => {
        $m.serialize_entry($key, $v)?
    };
    (@write $m:ident, $key:literal, valued, $v:ident) => {
        $m.serialize_entry($key, &$crate::api::json::Valued { value: $v })?
    };
}
pub(crate) use one_key_enum;

/// Defines a string enum that keeps unknown values as `Other(String)`.
macro_rules! string_enum {
    (
        $(#[$m:meta])*
        pub enum $name:ident { $( $(#[$vm:meta])* $variant:ident = $text:literal ),* $(,)? }
    ) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vm])* $variant, )*
            /// A value this client does not know.
            Other(String),
        }

        impl $name {
            /// The wire value.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $text, )*
                    $name::Other(s) => s,
                }
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $( $text => $name::$variant, )*
                    other => $name::Other(other.to_owned()),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <Option<String> as serde::Deserialize>::deserialize(d)?.unwrap_or_default();
                Ok($name::from(s.as_str()))
            }
        }
    };
}
pub(crate) use string_enum;

/// What replaces an invisible or bidi character on screen and in CSV (U+FFFD).
pub const INVISIBLE_MARK: char = '\u{FFFD}';

/// Whether `c` must never be drawn as is: C0/C1 controls, DEL, bidi controls and invisible
/// format characters. Text inputs use it to refuse such characters.
#[inline]
pub fn needs_replacing(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{ad}'
            | '\u{61c}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{e0000}'..='\u{e007f}'
    )
}

/// Makes server text safe for a one-line message: control characters (C0, C1, DEL), bidi
/// controls and invisible characters (whatever [`crate::api::json::needs_replacing`] names) become
/// spaces, runs of whitespace collapse, and the result is cut to `max` chars with a `…` marker.
pub fn sanitize_line(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max + 4));
    let mut count = 0usize;
    let mut last_space = false;
    for c in s.chars() {
        let bad = c.is_control() || needs_replacing(c);
        let c = if bad || c.is_whitespace() { ' ' } else { c };
        if c == ' ' {
            if last_space || count == 0 {
                continue;
            }
            last_space = true;
        } else {
            last_space = false;
        }
        if count == max {
            while out.ends_with(' ') {
                out.pop();
            }
            out.push('…');
            return out;
        }
        out.push(c);
        count += 1;
    }
    while out.ends_with(' ') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_strips_controls_and_truncates() {
        assert_eq!(sanitize_line("a\u{1b}[31mb\nc", 200), "a [31mb c");
        assert_eq!(sanitize_line("\u{202e}evil", 200), "evil");
        let long = "x".repeat(300);
        let s = sanitize_line(&long, 200);
        assert_eq!(s.chars().count(), 201);
        assert!(s.ends_with('…'));
    }

    #[test]
    fn lenient_int_accepts_strings_and_null() {
        #[derive(Deserialize)]
        struct T {
            #[serde(default, deserialize_with = "int")]
            a: i64,
            #[serde(default, deserialize_with = "int")]
            b: i64,
            #[serde(default, deserialize_with = "int")]
            c: i32,
        }
        let t: T = serde_json::from_str(r#"{"a":"12","b":null,"c":7}"#).expect("decodes");
        assert_eq!((t.a, t.b, t.c), (12, 0, 7));
        assert!(serde_json::from_str::<T>(r#"{"a":"x"}"#).is_err());
    }

    #[test]
    fn paths_join() {
        assert_eq!(join_path(".", "a.b"), "a.b");
        assert_eq!(join_path("x", "[2].c"), "x[2].c");
        assert_eq!(join_path("x", "c"), "x.c");
        assert_eq!(join_path("x", "."), "x");
        assert_eq!(strip_position("bad at line 1 column 20"), "bad");
        assert_eq!(strip_position("bad at line x"), "bad at line x");
    }
}
