//! An events item's row ([`EventsRow`]) straight from its parts' text as served, without a
//! `serde_json::Value` per item. The row keeps each part as `serde_json` prints its `Value`
//! (compact, members in the order served, the verdict's `finalization_time` taken out by
//! `Map::remove`, which moves the last member into its place); when a part's text is already
//! in that form — no whitespace between tokens, no escape in a string, no duplicate key, every
//! number an integer written as `serde_json` writes it — the text itself is that form and is
//! kept as it is. Anything else (a float, an escape, a space, a key twice) gives the row of
//! the decoded parts ([`EventsRow::of`]), so the same row comes out either way.

use std::ops::Range;

use super::events_read::Item;
use crate::model::json_tokens;
use crate::store::EventsRow;

/// Objects with more members than this are not checked for duplicate keys member by member:
/// the decoded row is made instead.
const MAX_MEMBERS: usize = 64;

impl Item {
    /// The row kept for this item, its parts confirmed (`digest`) by `scans`.
    pub(super) fn row(&self, digest: &[u8], scans: &[String]) -> EventsRow {
        fast_row(&self.id, self.part_texts(), digest, scans)
            .unwrap_or_else(|| EventsRow::of(&self.id, &self.parts(), digest, scans))
    }
}

/// [`EventsRow::of`]'s row from the parts' text (in `verdict`, `traffic_summary`,
/// `app_activity_records` order, `None` where not served), or `None` where a part is not in
/// the form `serde_json` prints.
fn fast_row(
    update_id: &str,
    [verdict, traffic, app]: [Option<&str>; 3],
    digest: &[u8],
    scans: &[String],
) -> Option<EventsRow> {
    let mut served = 0;
    let mut plain = |bit: i64, part: Option<&str>| -> Option<Option<String>> {
        let Some(text) = part else {
            return Some(None);
        };
        served |= bit;
        let end = Scan::new(text.as_bytes()).value(0, None)?;
        if end != text.len() {
            return None;
        }
        Some((text != "null").then(|| text.to_owned()))
    };
    let traffic_summary = plain(2, traffic)?;
    let app_activity_records = plain(4, app)?;
    let (verdict, fields) = match verdict {
        None => (None, None),
        Some(text) => {
            served |= 1;
            let bytes = text.as_bytes();
            let mut members = Vec::new();
            let end = Scan::new(bytes).value(0, Some(&mut members))?;
            if end != bytes.len() {
                return None;
            }
            if bytes[0] == b'{' {
                let kept = without_finalization_time(bytes, members);
                let fields = VerdictFields::of(bytes, &kept);
                let mut out = String::with_capacity(text.len());
                out.push('{');
                for (n, member) in kept.iter().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    out.push_str(&text[member.whole.clone()]);
                }
                out.push('}');
                (Some(out), Some(fields))
            } else {
                ((text != "null").then(|| text.to_owned()), None)
            }
        }
    };
    Some(EventsRow {
        update_id: update_id.to_owned(),
        served,
        verdict,
        traffic_summary,
        app_activity_records,
        round_number: fields.as_ref().and_then(|f| f.round_number),
        verdict_result: fields.as_ref().and_then(|f| f.verdict_result.clone()),
        mediator_group: fields.as_ref().map(|f| f.mediator_group.unwrap_or(0)),
        digest: digest.to_vec(),
        scans: scans.join(","),
    })
}

/// The verdict's members but `finalization_time`, as `serde_json`'s `Map::remove` leaves
/// them: the last member moved into its place.
fn without_finalization_time(bytes: &[u8], mut members: Vec<Member>) -> Vec<Member> {
    if let Some(i) = members
        .iter()
        .position(|m| &bytes[m.key.clone()] == b"finalization_time")
    {
        members.swap_remove(i);
    }
    members
}

/// The verdict's fields the row's search columns come from (as [`EventsRow::of`] reads them).
struct VerdictFields {
    round_number: Option<i64>,
    verdict_result: Option<String>,
    mediator_group: Option<i64>,
}

impl VerdictFields {
    fn of(bytes: &[u8], members: &[Member]) -> VerdictFields {
        let value = |key: &[u8]| {
            members
                .iter()
                .find(|m| &bytes[m.key.clone()] == key)
                .map(|m| &bytes[m.value.clone()])
        };
        // A string's text between its quotes (it has no escapes: checked by the scan).
        fn string(v: &[u8]) -> Option<&str> {
            (v.len() >= 2 && v[0] == b'"')
                .then(|| std::str::from_utf8(&v[1..v.len() - 1]).ok())
                .flatten()
        }
        // `Value::as_i64`, else a string's `parse` (as the decoded row does).
        let int = |v: &[u8]| match v.first() {
            Some(b'"') => string(v).and_then(|s| s.parse().ok()),
            Some(b'-' | b'0'..=b'9') => std::str::from_utf8(v).ok()?.parse().ok(),
            _ => None,
        };
        let verdict_result = value(b"verdict_result").and_then(string).map(|r| {
            match r {
                "VERDICT_RESULT_ACCEPTED" => "accepted",
                "VERDICT_RESULT_REJECTED" => "rejected",
                _ => "unspecified",
            }
            .to_owned()
        });
        VerdictFields {
            round_number: value(b"round_number").and_then(int),
            verdict_result,
            mediator_group: value(b"mediator_group").and_then(int),
        }
    }
}

/// A top-level member of an object: its key's text (between the quotes), its value's and the
/// whole `"key":value`.
struct Member {
    key: Range<usize>,
    value: Range<usize>,
    whole: Range<usize>,
}

/// A check that JSON text is in the form `serde_json` prints its `Value` in (see the module);
/// each method gives where the token it read ends, `None` where the text is not in that form.
struct Scan<'a> {
    bytes: &'a [u8],
}

impl<'a> Scan<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Scan { bytes }
    }

    /// The value at `at`; an object's members are listed into `members` when given.
    fn value(&self, at: usize, members: Option<&mut Vec<Member>>) -> Option<usize> {
        match *self.bytes.get(at)? {
            b'{' => self.object(at, members),
            b'[' => self.array(at),
            b'"' => self.string(at),
            b't' => self.literal(at, b"true"),
            b'f' => self.literal(at, b"false"),
            b'n' => self.literal(at, b"null"),
            b'-' | b'0'..=b'9' => self.integer(at),
            _ => None,
        }
    }

    fn literal(&self, at: usize, word: &[u8]) -> Option<usize> {
        json_tokens::literal_end(self.bytes, at, word)
    }

    /// A string without escapes or control characters (`serde_json` writes those escaped in
    /// its own way, which the text may not).
    fn string(&self, at: usize) -> Option<usize> {
        json_tokens::plain_string_end(self.bytes, at, true)
    }

    /// An integer as `serde_json` writes it back (see [`json_tokens::integer_end`]).
    fn integer(&self, at: usize) -> Option<usize> {
        json_tokens::integer_end(self.bytes, at)
    }

    fn array(&self, at: usize) -> Option<usize> {
        let mut i = at + 1;
        if self.bytes.get(i) == Some(&b']') {
            return Some(i + 1);
        }
        loop {
            i = self.value(i, None)?;
            match self.bytes.get(i)? {
                b',' => i += 1,
                b']' => return Some(i + 1),
                _ => return None,
            }
        }
    }

    fn object(&self, at: usize, members: Option<&mut Vec<Member>>) -> Option<usize> {
        let mut local = Vec::new();
        let members = members.unwrap_or(&mut local);
        let mut i = at + 1;
        if self.bytes.get(i) == Some(&b'}') {
            return Some(i + 1);
        }
        loop {
            if self.bytes.get(i) != Some(&b'"') {
                return None;
            }
            let key_end = self.string(i)?;
            let key = i + 1..key_end - 1;
            if members.len() >= MAX_MEMBERS
                || members
                    .iter()
                    .any(|m| self.bytes[m.key.clone()] == self.bytes[key.clone()])
            {
                return None;
            }
            if self.bytes.get(key_end) != Some(&b':') {
                return None;
            }
            let value_end = self.value(key_end + 1, None)?;
            members.push(Member {
                whole: i..value_end,
                key,
                value: key_end + 1..value_end,
            });
            i = value_end;
            match self.bytes.get(i)? {
                b',' => i += 1,
                b'}' => return Some(i + 1),
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, Value};

    /// The row of the decoded parts (what the walk kept before), from the same texts.
    fn decoded_row(parts: [Option<&str>; 3]) -> EventsRow {
        let mut map = Map::new();
        for (key, text) in ["verdict", "traffic_summary", "app_activity_records"]
            .iter()
            .zip(parts)
        {
            if let Some(text) = text {
                map.insert(
                    (*key).to_owned(),
                    serde_json::from_str::<Value>(text).expect("json"),
                );
            }
        }
        if let Some(Value::Object(verdict)) = map.get_mut("verdict") {
            verdict.remove("finalization_time");
        }
        EventsRow::of("u1", &map, &[7; 32], &["sv1".to_owned(), "sv2".to_owned()])
    }

    fn fast(parts: [Option<&str>; 3]) -> Option<EventsRow> {
        fast_row("u1", parts, &[7; 32], &["sv1".to_owned(), "sv2".to_owned()])
    }

    #[test]
    fn parts_in_serde_json_form_give_the_decoded_row_from_their_text() {
        let verdicts = [
            r#"{"update_id":"u1","finalization_time":"2026-01-02T03:04:06Z","verdict_result":"VERDICT_RESULT_ACCEPTED","round_number":7,"mediator_group":2,"z":"é q","a":{"b":[1,-2,true,false,null,{}],"c":[]}}"#,
            r#"{"verdict_result":"VERDICT_RESULT_REJECTED","round_number":"12","finalization_time":"t"}"#,
            r#"{"finalization_time":"t"}"#,
            r#"{"verdict_result":"other","round_number":18446744073709551615,"mediator_group":-9223372036854775808}"#,
            r#"{"round_number":0,"verdict_result":7,"mediator_group":"x"}"#,
            "{}",
            "null",
            r#""a verdict as text""#,
            "[1,2]",
        ];
        let others = [
            None,
            Some("null"),
            Some(r#"{"total_traffic_cost":12,"envelopes":[{"view_hashes":["a","b"]}]}"#),
            Some(r#"{"round_number":7,"records":[{"party":"p::1","weight":"3"}]}"#),
        ];
        let mut checked = 0;
        for verdict in verdicts.iter().map(|v| Some(*v)).chain([None]) {
            for traffic in others {
                for app in others {
                    let parts = [verdict, traffic, app];
                    let row = fast(parts).unwrap_or_else(|| panic!("fast: {parts:?}"));
                    assert_eq!(row, decoded_row(parts), "{parts:?}");
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 10 * 4 * 4);
    }

    #[test]
    fn parts_in_another_form_give_the_decoded_row_from_the_decoded_parts() {
        let odd = crate::model::json_tokens::NOT_PRINTED_FORM
            .into_iter()
            .chain([
                r#"{"a": 1}"#,
                r#"{"a":"\u00e9"}"#,
                r#"{"a":"x\/y"}"#,
                r#"{"a":1,"a":2,"finalization_time":"t","b":3}"#,
                "[1, 2]",
                " {}",
            ]);
        for text in odd {
            for parts in [
                [Some(text), None, None],
                [None, Some(text), None],
                [Some("{}"), None, Some(text)],
            ] {
                assert!(fast(parts).is_none(), "{parts:?}");
                let item_row = fast(parts).unwrap_or_else(|| decoded_row(parts));
                assert_eq!(item_row, decoded_row(parts));
            }
        }
        // Many members: decoded.
        let many = format!(
            "{{{}}}",
            (0..70)
                .map(|n| format!("\"k{n}\":{n}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert!(fast([Some(&many), None, None]).is_none());
    }
}
