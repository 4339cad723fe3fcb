//! A `POST /v2/updates` page decoded in one pass over its text.
//!
//! [`UpdatesPage`]'s own decoding reads the page twice: once to cut each item's text out
//! (serde_json's `RawValue`, a scan of the whole item) and once to decode that text. Here each
//! item is decoded where it lies in the page, and its text is the span the decode read
//! (serde_json's `byte_offset`), so the page's text is scanned once. The split was a fifth of
//! a page's decode (`cargo bench --bench ingest`).
//!
//! The result is the same page: the same items, each keeping the same text, a malformed item
//! with the same path and detail. Anything this does not read as such a page (not UTF-8, not an
//! object, a `transactions` that is not an array, an item that is not JSON at all) gives `None`,
//! and [`UpdatesPage`]'s own decoding runs instead, to report it the way it always has.

use super::updates::{ItemRepr, UpdateItem, UpdatesPage, UpdatesRequest};
use crate::api::call::{Call, Group, Method, ResponseParts};
use crate::api::error::ApiError;
use crate::api::json::RawJson;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

/// `POST /v2/updates`: a page of the update history.
/// Its page is decoded in one pass.
pub fn updates(req: &UpdatesRequest) -> Call<UpdatesPage> {
    Call::new(
        "scan POST /v2/updates",
        Group::Scan,
        Method::Post,
        "/v2/updates".to_owned(),
        decode_updates_page,
    )
    .json_body(req)
    .named("updates")
}

/// The decoder of `POST /v2/updates`: one pass, or the page's own decoding when that declines.
pub(super) fn decode_updates_page(parts: &ResponseParts<'_>) -> Result<UpdatesPage, ApiError> {
    match one_pass(parts.body) {
        Some(transactions) => Ok(UpdatesPage { transactions }),
        None => crate::api::call::decode_json::<UpdatesPage>(parts),
    }
}

/// The items of a page's body, or `None` for a body left to [`UpdatesPage`]'s decoding.
fn one_pass(body: &[u8]) -> Option<Vec<UpdateItem>> {
    let text = std::str::from_utf8(body).ok()?;
    let mut at = Cursor { text, pos: 0 };
    at.expect(b'{')?;
    let mut items = None;
    if !at.eat(b'}') {
        loop {
            let key: String = at.value()?;
            at.expect(b':')?;
            if key == "transactions" {
                if items.is_some() {
                    return None; // a second `transactions`: the derive's "duplicate field"
                }
                items = Some(if at.eat_null() {
                    Vec::new()
                } else {
                    at.items()?
                });
            } else {
                at.value::<IgnoredAny>()?;
            }
            if at.eat(b'}') {
                break;
            }
            at.expect(b',')?;
        }
    }
    at.end()?;
    Some(items.unwrap_or_default())
}

/// A position in the page's text, always at a token's start after [`Cursor::ws`].
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn ws(&mut self) {
        let bytes = self.text.as_bytes();
        while matches!(bytes.get(self.pos), Some(b' ' | b'\n' | b'\t' | b'\r')) {
            self.pos += 1;
        }
    }

    /// Consumes `byte` (after whitespace) if it is next.
    fn eat(&mut self, byte: u8) -> bool {
        self.ws();
        let found = self.text.as_bytes().get(self.pos) == Some(&byte);
        if found {
            self.pos += 1;
        }
        found
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        self.eat(byte).then_some(())
    }

    fn eat_null(&mut self) -> bool {
        self.ws();
        let found = self.text[self.pos..].starts_with("null");
        if found {
            self.pos += 4;
        }
        found
    }

    /// Only whitespace is left.
    fn end(&mut self) -> Option<()> {
        self.ws();
        (self.pos == self.text.len()).then_some(())
    }

    /// Decodes the value at the cursor as a `T` and moves past it; with the span it was read
    /// from (whitespace excluded).
    fn spanned<T: serde::Deserialize<'a>>(&mut self) -> Option<(T, &'a str)> {
        self.ws();
        let rest = &self.text[self.pos..];
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<T>();
        let value = stream.next()?.ok()?;
        let span = &rest[..stream.byte_offset()];
        self.pos += span.len();
        Some((value, span))
    }

    fn value<T: serde::Deserialize<'a>>(&mut self) -> Option<T> {
        self.spanned().map(|(v, _)| v)
    }

    /// The `transactions` array's items, the cursor at its `[`.
    fn items(&mut self) -> Option<Vec<UpdateItem>> {
        self.expect(b'[')?;
        let mut out = Vec::with_capacity(1024);
        if self.eat(b']') {
            return Some(out);
        }
        loop {
            let index = out.len();
            let start = self.pos;
            let item = if let Some((repr, span)) = self.spanned::<ItemRepr>() {
                let path = || format!("transactions[{index}]");
                repr.into_item(RawJson::parsed(span), &path)
            } else {
                // Not an item's shape: its text alone decoded as the page's decoding does,
                // for the same `Malformed` (path and detail).
                self.pos = start;
                let (raw, _) = self.spanned::<&RawValue>()?;
                UpdateItem::from_raw_in_page(RawJson::new(raw.to_owned()), index)
            };
            out.push(item);
            if self.eat(b']') {
                return Some(out);
            }
            self.expect(b',')?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An item with unknown fields, a null, an event of an unknown kind and a result that is
    /// a string.
    const TX: &str = include_str!("../../../tests/fixtures/scan_update_odd.json");

    fn parts(body: &[u8]) -> ResponseParts<'_> {
        ResponseParts {
            endpoint: "scan POST /v2/updates",
            status: 200,
            headers: &[],
            body,
        }
    }

    /// The page's own decoding of `body`, as the client ran it before.
    fn own(body: &[u8]) -> Result<UpdatesPage, String> {
        crate::api::call::decode_json::<UpdatesPage>(&parts(body)).map_err(|e| e.to_string())
    }

    /// Asserts that `updates`' decoder answers what the page's own decoding does, and that the
    /// one pass, when it reads the body, reads the same page; true when it read it.
    fn same(body: &[u8]) -> bool {
        let got = decode_updates_page(&parts(body)).map_err(|e| e.to_string());
        let own = own(body);
        let shown = String::from_utf8_lossy(body);
        assert_eq!(got, own, "the decoder, on {shown}");
        match one_pass(body) {
            Some(items) => {
                assert_eq!(
                    Ok(UpdatesPage {
                        transactions: items
                    }),
                    own,
                    "{shown}"
                );
                true
            }
            None => false,
        }
    }

    #[test]
    fn a_page_read_in_one_pass_is_the_page_its_own_decoding_reads() {
        let other = TX.replace("\"1220aa\"", "\"1220ab\"").replace(
            "\"workflow_id\": null",
            r#""workflow_id": "a\"b\\ \u00e9 ü\n""#,
        );
        let bad_int = TX.replace(r#""migration_id": 3"#, r#""migration_id": "three""#);
        let bad_deep = TX.replace(r#""consuming": false"#, r#""consuming": "no""#);
        let reassign = r#"{"update_id": "1220u1", "offset": 123, "record_time": "t",
            "event": {"submitter": "a::1", "source_synchronizer": "s::1",
            "target_synchronizer": "s::2", "migration_id": 4, "unassign_id": "u",
            "reassignment_counter": 3, "contract_id": "00c9"}}"#;
        let taken = [
            format!(r#"{{"transactions":[{TX},{other}]}}"#),
            format!("\n {{ \"transactions\" :\n[ {TX} ,\t{other}\r\n ] \n}} \n"),
            format!(r#"{{"a":{{"b":[1,{{"c":"]}}"}}]}},"transactions":[{TX}],"z":null}}"#),
            format!(r#"{{"transac\u0074ions":[{reassign},{TX}]}}"#),
            format!(
                r#"{{"transactions":[{TX},{bad_int},{{"neither":true}},5,"s",[1,{{}}],null,{bad_deep},{other}]}}"#
            ),
            r#"{"transactions":[]}"#.to_owned(),
            r#"{"transactions":null}"#.to_owned(),
            r#"{"other":1}"#.to_owned(),
            "{}".to_owned(),
        ];
        for body in &taken {
            assert!(same(body.as_bytes()), "read in one pass: {body}");
        }
        let page = one_pass(taken[4].as_bytes()).expect("a page");
        let malformed: Vec<usize> = (0..page.len())
            .filter(|&i| matches!(page[i], UpdateItem::Malformed { .. }))
            .collect();
        assert_eq!(malformed, [1, 2, 3, 4, 5, 6, 7], "each odd item on its own");
        // Each item keeps exactly its own text.
        assert_eq!(page[0].raw().get(), TX.trim());
        assert_eq!(page[8].raw().get(), other.trim());
        assert_eq!(page[3].raw().get(), "5");
    }

    #[test]
    fn a_body_the_one_pass_does_not_read_gets_the_page_decodings_answer() {
        let declined: Vec<Vec<u8>> = [
            r#"{"transactions":5}"#.to_owned(),
            format!(r#"{{"transactions":[{TX},]}}"#),
            format!(r#"{{"transactions":[{TX}]}} x"#),
            format!(r#"{{"transactions":[{TX}],"transactions":[]}}"#),
            r#"{"transactions":[{"a":}]}"#.to_owned(),
            r#"{"transactions":nul}"#.to_owned(),
            format!(r#"{{"transactions":[{TX}"#),
            "[]".to_owned(),
            String::new(),
        ]
        .into_iter()
        .map(String::into_bytes)
        .chain([
            // Not UTF-8: inside an unknown field, and inside an item's string.
            b"{\"x\":\"\xff\",\"transactions\":[]}".to_vec(),
            format!(r#"{{"transactions":[{}]}}"#, TX.replace("00c3", "\u{1}"))
                .into_bytes()
                .into_iter()
                .map(|b| if b == 1 { 0xfe } else { b })
                .collect(),
        ])
        .collect();
        for body in &declined {
            assert!(!same(body), "{}", String::from_utf8_lossy(body));
        }
        // Two bodies the page's decoding reads: an unknown field's text is never read, and a
        // struct may come as an array of its fields (serde's derive). Both pages stand.
        assert_eq!(own(&declined[9]), Ok(UpdatesPage::default()));
        assert_eq!(own(&declined[7]), Ok(UpdatesPage::default()));
        let errors = declined.iter().filter(|b| own(b).is_err()).count();
        assert_eq!(errors, declined.len() - 2, "every other body is an error");
    }
}
