//! The local history index, pure parts: what the index keeps of one update ([`IndexRow`]: the
//! History export's row fields, the searchable keys of every event, nested ones too, a digest
//! stable across processes, the compact body), the query grammar of `index search`
//! ([`query`]), and how a page is judged verified across scans ([`verify`]). The storage itself
//! is `crate::store`; the sync that feeds it is `crate::indexer`.
//!
//! The digest is SHA-256 of the update's canonical JSON ([`canonical_json`]: sorted keys, no
//! whitespace) without the fields local to one scan ([`LocalFields::UPDATE`]: a reassignment's
//! `offset`), so two scans' copies of an update digest the same exactly when the consensus
//! check calls them equal, and a digest kept in the index compares with one computed later.

mod canonical;
mod canonical_fast;
pub mod pack;
pub mod query;
pub mod read;
pub mod rounds;
pub mod stats;
pub mod terms;
pub mod validators;
pub mod verify;
mod zdict;

use std::borrow::Cow;

use serde_json::Value;
use serde_json::value::RawValue;
use sha2::{Digest as _, Sha256};

use crate::api::RawJson;
use crate::api::scan::{ReassignmentEvent, TreeEvent, UpdateItem};

use super::consensus::{LocalFields, canonical_json};
use super::export::ExportRow;
use super::format::parse_time_micros;
use super::summary::Summarizer;
use pack::{Packing, pack_body};

/// The version of what the index derives from a body (the row fields and keys): an index whose
/// summaries are of another version is rebuilt from its bodies or refused, never misread.
pub const SUMMARY_VERSION: i64 = 1;

/// A SHA-256 digest.
pub type Digest = [u8; 32];

/// What kind of searchable key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeyKind {
    Party,
    Template,
    Choice,
    Contract,
}

impl KeyKind {
    /// The number the index stores.
    pub fn code(self) -> i64 {
        match self {
            KeyKind::Party => 1,
            KeyKind::Template => 2,
            KeyKind::Choice => 3,
            KeyKind::Contract => 4,
        }
    }

    /// The kind of a stored number ([`KeyKind::code`]).
    pub fn from_code(code: i64) -> Option<KeyKind> {
        [
            KeyKind::Party,
            KeyKind::Template,
            KeyKind::Choice,
            KeyKind::Contract,
        ]
        .into_iter()
        .find(|k| k.code() == code)
    }

    /// The query field naming it.
    pub fn field(self) -> &'static str {
        match self {
            KeyKind::Party => "party",
            KeyKind::Template => "template",
            KeyKind::Choice => "choice",
            KeyKind::Contract => "contract",
        }
    }
}

/// One update as the index keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexRow {
    pub update_id: String,
    pub migration_id: i64,
    /// µs since the epoch.
    pub record_time: i64,
    /// The History export's `kind` and `root_action`, and its parties (sorted, distinct).
    pub kind: String,
    pub root_action: String,
    pub parties: Vec<String>,
    /// Every party, template, choice and contract id of every event, sorted and distinct.
    pub keys: Vec<(KeyKind, String)>,
    pub digest: Digest,
    /// The item's JSON as the server sent it, without whitespace between tokens, compressed
    /// ([`pack::pack_body`]); `None` in an index kept without bodies.
    pub body: Option<Vec<u8>>,
}

/// The canonical digest of one update item's JSON text (local fields left out).
pub fn digest_of(item_json: &str) -> Result<Digest, String> {
    canonical::digest_with(item_json, &mut Vec::with_capacity(item_json.len()))
}

/// The canonical digest of a decoded update item (its local fields are removed): the same
/// digest as [`digest_of`] of its text.
pub fn digest_value(value: &mut Value) -> Digest {
    LocalFields::UPDATE.strip(value);
    Sha256::digest(canonical_json(value).as_bytes()).into()
}

/// The events parts of one `/v0/events` item (its `verdict`, `traffic_summary` and
/// `app_activity_records`, each as served: absent, `null` or a value), the verdict's
/// scan-local `finalization_time` left out, and the canonical digest of them together: what
/// the scans are compared on and what the index keeps.
pub fn events_parts(item: &Value) -> (serde_json::Map<String, Value>, Digest) {
    let mut parts = serde_json::Map::new();
    for key in ["verdict", "traffic_summary", "app_activity_records"] {
        if let Some(v) = item.get(key) {
            parts.insert(key.to_owned(), v.clone());
        }
    }
    if let Some(Value::Object(verdict)) = parts.get_mut("verdict") {
        verdict.remove("finalization_time");
    }
    let digest = Sha256::digest(canonical_json(&Value::Object(parts.clone())).as_bytes()).into();
    (parts, digest)
}

/// The digest [`events_parts`] gives, from the parts' JSON text (an object of some of
/// `verdict`, `traffic_summary` and `app_activity_records`, as served, the verdict's
/// `finalization_time` still in) without a `serde_json::Value`: the same bytes digested.
pub fn events_parts_digest(parts_text: &str) -> Result<Digest, String> {
    const EVENTS_PARTS: LocalFields = LocalFields(&[&["verdict", "finalization_time"]]);
    let mut buf = Vec::with_capacity(parts_text.len());
    canonical::canonical_into(parts_text, EVENTS_PARTS, &mut buf)?;
    Ok(Sha256::digest(buf.as_slice()).into())
}

/// The digest as lower-case hex.
pub fn digest_hex(digest: &Digest) -> String {
    hex::encode(digest)
}

/// The searchable keys of one item: every event's template, choice, contract id and parties
/// (signatories, observers, acting parties, a reassignment's submitter).
pub fn keys_of(item: &UpdateItem) -> Vec<(KeyKind, String)> {
    // Borrowed while sorted and deduplicated (the same party and template recur in most
    // events), owned once each.
    fn push<'i>(keys: &mut Vec<(KeyKind, &'i str)>, kind: KeyKind, s: &'i str) {
        if !s.is_empty() {
            keys.push((kind, s));
        }
    }
    fn created<'i>(keys: &mut Vec<(KeyKind, &'i str)>, c: &'i crate::api::scan::CreatedEvent) {
        push(keys, KeyKind::Template, &c.template_id);
        push(keys, KeyKind::Contract, &c.contract_id);
        for p in c.signatories.iter().chain(&c.observers) {
            push(keys, KeyKind::Party, p);
        }
    }
    let mut keys: Vec<(KeyKind, &str)> = Vec::new();
    match item {
        UpdateItem::Transaction(tx) => {
            for event in tx.events_by_id.values() {
                match event {
                    TreeEvent::Created(c) => created(&mut keys, c),
                    TreeEvent::Exercised(e) => {
                        push(&mut keys, KeyKind::Template, &e.template_id);
                        push(&mut keys, KeyKind::Choice, &e.choice);
                        push(&mut keys, KeyKind::Contract, &e.contract_id);
                        for p in &e.acting_parties {
                            push(&mut keys, KeyKind::Party, p);
                        }
                    }
                    TreeEvent::Unknown { .. } => {}
                }
            }
        }
        UpdateItem::Reassignment(r) => match &r.event {
            ReassignmentEvent::Assign(a) => {
                created(&mut keys, &a.created_event);
                push(&mut keys, KeyKind::Party, &a.submitter);
            }
            ReassignmentEvent::Unassign(u) => {
                push(&mut keys, KeyKind::Contract, &u.contract_id);
                push(&mut keys, KeyKind::Party, &u.submitter);
            }
        },
        UpdateItem::Malformed { .. } => {}
    }
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter().map(|(k, s)| (k, s.to_owned())).collect()
}

/// The contract ids among `keys` ([`keys_of`]), in their order: the slots of a body that names
/// its contracts ([`pack::pack_body_naming_contracts`]).
pub fn contract_keys(keys: &[(KeyKind, String)]) -> Vec<&str> {
    keys.iter()
        .filter(|(kind, _)| *kind == KeyKind::Contract)
        .map(|(_, value)| value.as_str())
        .take(pack::MOST_CONTRACTS)
        .collect()
}

/// The row of one decoded item with its body, its summary made by `summarizer` (callers use a
/// fresh one per page, so its interned strings do not grow with the history). An error for an
/// item without an update id, a migration or a readable record time: such an item cannot be
/// kept by its key.
pub fn row_of(item: &UpdateItem, summarizer: &mut Summarizer) -> Result<IndexRow, String> {
    let digest = digest_of(item.raw().get())?;
    row_with_digest(
        item,
        summarizer,
        digest,
        Some(&mut Packing::plain().packer()?),
        false,
    )
}

/// [`row_of`] with the item's digest already computed ([`digest_of`] of its JSON), its body
/// packed by `packer` (none: kept without a body), naming its contracts when
/// `names_contracts` ([`pack::pack_body_naming_contracts`]).
pub fn row_with_digest(
    item: &UpdateItem,
    summarizer: &mut Summarizer,
    digest: Digest,
    packer: Option<&mut zstd::bulk::Compressor<'_>>,
    names_contracts: bool,
) -> Result<IndexRow, String> {
    let raw = item.raw().get();
    let update_id = item
        .update_id()
        .filter(|id| !id.is_empty())
        .ok_or("an update without an update_id")?
        .to_owned();
    let record_time = item
        .record_time()
        .and_then(parse_time_micros)
        .ok_or_else(|| format!("update {update_id} has no readable record_time"))?;
    let migration_id = item
        .migration_id()
        .ok_or_else(|| format!("update {update_id} has no migration_id"))?;
    let summary = summarizer.summarize(item);
    let export = ExportRow::of(&summary, summarizer);
    let keys = keys_of(item);
    let body = match (packer, names_contracts) {
        (None, _) => None,
        (Some(p), false) => Some(pack_body(raw, &update_id, p)?),
        (Some(p), true) => {
            let contracts = contract_keys(&keys);
            Some(pack::pack_body_naming_contracts(
                raw, &update_id, &contracts, p,
            )?)
        }
    };
    let row = IndexRow {
        kind: export.kind.to_owned(),
        root_action: export.root_action.clone(),
        parties: export.parties.iter().map(|p| (*p).to_owned()).collect(),
        update_id,
        migration_id,
        record_time,
        keys,
        digest,
        body,
    };
    Ok(row)
}

/// How many parts [`par_chunks`] makes: the machine's cores, at most 8. Asked once: the
/// standard library reads the cgroup's files for it each time (0.3–0.5% of a sync's CPU when
/// asked three times a page).
fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(8)))
}

/// Parts per core of [`par_chunks`]: a part finished early takes another, so the page's cores
/// stay busy when one of them also runs the sync's writer (measured: the writer waited for
/// pages 10–20% less than with one part per core, 2–10% more updates a second).
const PARTS_PER_THREAD: usize = 4;

/// `f` over contiguous parts of `items`, [`PARTS_PER_THREAD`] per core on rayon's pool (one part, on this
/// thread, for fewer than 64 items), the results in the items' order. The CPU work of a sync
/// page (digests, rows, zstd) runs this way, so a page takes every core while one writer
/// commits. The pool's threads live as long as the process: threads started per page (as
/// before) each began with an empty allocator heap, whose fresh memory the kernel zeroed again
/// page after page (a tenth of the sync's CPU).
pub fn par_chunks<T: Sync, R: Send>(items: &[T], f: impl Fn(&[T]) -> Vec<R> + Sync) -> Vec<R> {
    use rayon::prelude::*;
    let threads = threads();
    if threads < 2 || items.len() < 64 {
        return f(items);
    }
    let size = items.len().div_ceil(threads * PARTS_PER_THREAD);
    let parts: Vec<Vec<R>> = items.par_chunks(size).map(&f).collect();
    parts.into_iter().flatten().collect()
}

/// Drops `value` on [`par_chunks`]' pool, not on this thread: a page's thousand decoded items
/// or rows take 3–4 ms to free, time the thread walking the chunks or the one writer would
/// otherwise spend on it while a core waits (three runs alternating in one sitting: 2–9% more
/// updates a second).
pub fn drop_aside<T: Send + 'static>(value: T) {
    rayon::spawn(move || drop(value));
}

/// The digests of a page's items ([`digest_of`] of each item's JSON), on every core.
pub fn digests_of(items: &[UpdateItem]) -> Result<Vec<Digest>, String> {
    digests_by(items, |item| item.raw().get())
}

/// The digests of a page's items from their texts ([`digest_of`] of each), on every core,
/// without decoding the items: all a verifier's page is asked for unless it disagrees.
pub fn digests_of_texts(texts: &[&RawValue]) -> Result<Vec<Digest>, String> {
    digests_by(texts, |text| text.get())
}

/// [`digest_of`] of each of `values`' JSON texts (`text` of each), on every core.
fn digests_by<T: Sync>(
    values: &[T],
    text: impl Fn(&T) -> &str + Sync,
) -> Result<Vec<Digest>, String> {
    par_chunks(values, |part| {
        let mut buf = Vec::new();
        part.iter()
            .map(|value| canonical::digest_with(text(value), &mut buf))
            .collect()
    })
    .into_iter()
    .collect()
}

/// A page's items decoded from their texts ([`UpdateItem::from_raw`], path
/// `transactions[i]`), on every core: [`items_and_digests`] without the digests.
pub fn items_of_texts(texts: &[&RawValue]) -> Vec<UpdateItem> {
    let numbered: Vec<(usize, &RawValue)> = texts.iter().copied().enumerate().collect();
    par_chunks(&numbered, |part| {
        part.iter()
            .map(|(i, text)| UpdateItem::from_raw_in_page(RawJson::new((*text).to_owned()), *i))
            .collect()
    })
}

/// A page's items decoded ([`UpdateItem::from_raw`], path `transactions[i]`) with their
/// digests, from their texts as [`crate::api::scan::page_item_texts`] splits the page: each
/// item is decoded and digested on the same core, the parts on every core (the page's decode
/// was one thread's before, its digests a second pass).
pub fn items_and_digests(texts: &[&RawValue]) -> Result<(Vec<UpdateItem>, Vec<Digest>), String> {
    let numbered: Vec<(usize, &RawValue)> = texts.iter().copied().enumerate().collect();
    let decoded = par_chunks(&numbered, |part| {
        let mut buf = Vec::new();
        part.iter()
            .map(|(i, text)| {
                let digest = canonical::digest_with(text.get(), &mut buf)?;
                let item = UpdateItem::from_raw_in_page(RawJson::new((*text).to_owned()), *i);
                Ok((item, digest))
            })
            .collect::<Vec<Result<_, String>>>()
    });
    let mut items = Vec::with_capacity(decoded.len());
    let mut digests = Vec::with_capacity(decoded.len());
    for result in decoded {
        let (item, digest) = result?;
        items.push(item);
        digests.push(digest);
    }
    Ok((items, digests))
}

/// The rows of a page's items with their digests ([`row_with_digest`]), their bodies packed
/// with `packing` (none: kept without bodies), on every core (a fresh summarizer and packer
/// per part). The bodies are packed
/// here, before the writer, so a sync's one writer thread only writes while the next page's
/// rows are made on the other cores (packing in the writer was a third of its time); an update
/// the index already has is packed for nothing, which only a sync over a range it holds does.
pub fn rows_of(
    items: &[UpdateItem],
    digests: &[Digest],
    packing: Option<&Packing>,
) -> Result<Vec<IndexRow>, String> {
    let pairs: Vec<(&UpdateItem, &Digest)> = items.iter().zip(digests).collect();
    par_chunks(&pairs, |part| {
        let mut summarizer = Summarizer::default();
        let mut packer = match packing.map(Packing::packer).transpose() {
            Ok(packer) => packer,
            Err(e) => return vec![Err(e)],
        };
        part.iter()
            .map(|(item, digest)| {
                row_with_digest(
                    item,
                    &mut summarizer,
                    **digest,
                    packer.as_mut(),
                    packing.is_some_and(Packing::names_contracts),
                )
            })
            .collect()
    })
    .into_iter()
    .collect()
}

/// The JSON text without the whitespace between tokens (strings untouched), borrowed when it
/// has none (a scan's compact JSON: nothing copied). Byte by byte, copying the runs between
/// whitespace, a string skipped to its closing quote with `memchr` (most of an update's bytes
/// are in strings): JSON's whitespace, quotes and backslashes are ASCII and never part of a
/// multi-byte character, so this is the same as walking the characters.
pub fn compact_json(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    // No whitespace byte anywhere (none in its strings either, as in most updates): compact
    // as it is, found by two vectorised scans instead of a `memchr` per string. A raw tab,
    // newline or carriage return cannot be inside a JSON string; a space can.
    if memchr::memchr3(b' ', b'\n', b'\t', bytes).is_none()
        && memchr::memchr(b'\r', bytes).is_none()
    {
        return Cow::Borrowed(text);
    }
    // Made at the first whitespace.
    let mut out: Option<Vec<u8>> = None;
    // The start of the run not yet copied.
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // To the closing quote, past escaped characters.
                i += 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &bytes[i..]) {
                        Some(k) if bytes[i + k] == b'\\' => i = (i + k + 2).min(bytes.len()),
                        Some(k) => {
                            i += k + 1;
                            break;
                        }
                        None => {
                            i = bytes.len();
                            break;
                        }
                    }
                }
            }
            b' ' | b'\t' | b'\n' | b'\r' => {
                out.get_or_insert_with(|| Vec::with_capacity(bytes.len()))
                    .extend_from_slice(&bytes[run..i]);
                i += 1;
                run = i;
            }
            _ => i += 1,
        }
    }
    let Some(mut out) = out else {
        return Cow::Borrowed(text);
    };
    out.extend_from_slice(&bytes[run..]);
    // Only ASCII bytes were left out, so the text is still UTF-8.
    Cow::Owned(
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

/// What an event with a verdict and no update is listed as (searches, History): a
/// confirmation request the mediator rejected, or a wholly private transaction.
pub const VERDICT_ONLY_KIND: &str = "verdict only";

/// History's summary of an event with a verdict and no update: the verdict's result marked
/// `(verdict only)`, then its round and mediator group when kept, e.g. `rejected (verdict
/// only) · round 12 · mediator group 0`.
pub fn verdict_only_summary(
    result: Option<&str>,
    round: Option<i64>,
    group: Option<i64>,
) -> String {
    let mut text = format!(
        "{} (verdict only)",
        result
            .filter(|r| !r.is_empty())
            .unwrap_or("no verdict served")
    );
    if let Some(round) = round {
        text.push_str(&format!(" · round {round}"));
    }
    if let Some(group) = group {
        text.push_str(&format!(" · mediator group {group}"));
    }
    text
}

/// One result row of a search: the History export's row fields.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SearchRow {
    pub record_time: String,
    pub update_id: String,
    pub migration_id: i64,
    pub kind: String,
    pub root_action: String,
    pub parties: Vec<String>,
}

impl SearchRow {
    /// Whether the row is an event with a verdict and no update ([`VERDICT_ONLY_KIND`]).
    pub fn is_verdict_only(&self) -> bool {
        self.kind == VERDICT_ONLY_KIND
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures;

    #[test]
    fn the_digest_ignores_key_order_whitespace_and_offset() {
        let a = r#"{"update_id":"u","offset":"7","event":{"b":1,"a":[1,2]}}"#;
        let b =
            "{ \"event\": {\"a\": [1, 2], \"b\": 1},\n \"offset\": \"9\", \"update_id\": \"u\" }";
        assert_eq!(digest_of(a), digest_of(b));
        let c = r#"{"update_id":"u","event":{"b":2,"a":[1,2]}}"#;
        assert_ne!(digest_of(a), digest_of(c));
        // A known value, so a change of the canonical form is seen (it would change every
        // digest kept in every index).
        assert_eq!(
            digest_hex(&digest_of(r#"{"b":1,"a":null}"#).expect("json")),
            hex::encode(Sha256::digest(br#"{"a":null,"b":1}"#))
        );
    }

    #[test]
    fn the_digest_equals_the_one_of_the_decoded_value() {
        // Escapes, non-ASCII, numbers of every kind, duplicate keys, an `offset` that is not
        // the update's own, nesting: the text path writes what `canonical_json` writes.
        let texts = [
            r#"{"offset":"3","z":{"offset":1,"y":[1.5,-0.0,1e300,12345678901234567890,-7]},"a":"\u00e9\n\"q\"\/é\u2028"}"#,
            r#"{"k":1,"k":2,"j":{"b":true,"a":false,"b":null}}"#,
            r#" [ {"b" : 1 , "a" : [ ] , "c" : { } } , "x" , 2.50 ] "#,
            r#"{"\u0062":1,"a\u0000":"\ud83d\ude00","ä":0,"Z":1e-7}"#,
            // Unescaped characters serde_json writes as they are (DEL, U+2028, astral).
            "{\"d\u{7f}\":\"x\u{7f}\u{2028}\u{1f600}y\",\"c\":\"\\u007f\"}",
        ];
        for text in texts {
            let mut value: Value = serde_json::from_str(text).expect("json");
            assert_eq!(digest_of(text), Ok(digest_value(&mut value)), "{text}");
        }
        assert!(digest_of("{\"a\":1} x").is_err());
        assert_eq!(
            compact_json("{ \"a b\" :\t[1, \"x\\\" y\" ,\n\"é ü\"] }\r\n"),
            r#"{"a b":[1,"x\" y","é ü"]}"#
        );
        assert!(digest_of("{\"a\":").is_err());
    }

    #[test]
    fn a_page_split_and_decoded_on_every_core_equals_its_ordinary_decoding() {
        let mut items: Vec<Value> = (0..200)
            .map(|i| {
                let id = format!("1220{i:04x}");
                fixtures::transaction(
                    &id,
                    i % 60,
                    vec![fixtures::exercised(&id, 0, "00c1", "Choice_X", false)],
                )
            })
            .collect();
        // An item that is no update: kept as malformed, its path inside the page.
        items.insert(150, serde_json::json!({"update_id": 7, "events_by_id": 3}));
        let body =
            serde_json::to_vec_pretty(&serde_json::json!({ "transactions": items })).expect("json");
        let page: crate::api::scan::UpdatesPage = serde_json::from_slice(&body).expect("page");
        let texts = crate::api::scan::page_item_texts(&body).expect("a page");
        let (decoded, digests) = items_and_digests(&texts).expect("decoded");
        assert_eq!(decoded, page.transactions);
        assert_eq!(digests, digests_of(&page.transactions).expect("digests"));
        match &decoded[150] {
            UpdateItem::Malformed { error, .. } => {
                assert!(error.path.starts_with("transactions[150]"), "{error}");
            }
            other => panic!("not malformed: {other:?}"),
        }
        assert!(crate::api::scan::page_item_texts(b"{\"transactions\": [1,").is_none());
        assert_eq!(
            crate::api::scan::page_item_texts(b"{\"transactions\": null}").map(|t| t.len()),
            Some(0)
        );
    }

    #[test]
    fn compact_json_leaves_out_the_whitespace_between_tokens_only() {
        // The characters walked one by one, as compact_json did before.
        fn walked(text: &str) -> String {
            let (mut out, mut in_string, mut escaped) = (String::new(), false, false);
            for c in text.chars() {
                if in_string {
                    out.push(c);
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == '"' {
                        in_string = false;
                    }
                } else if c == '"' {
                    in_string = true;
                    out.push(c);
                } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
                    out.push(c);
                }
            }
            out
        }
        let texts = [
            "{ \"a b\" :\t[1, \"x\\\" y\" ,\n\"é ü\"] }\r\n",
            r#"{"k":"\\","l":"\\\"","m" : "a\\\\\" b" }"#,
            "[\"\u{2028} \u{1f600}\", \"\\u0020 \" ,{}]",
            "\"unterminated \\",
            "  ",
            "",
            r#"{"a b":["c d",1],"e":"\" f"}"#,
        ];
        for text in texts {
            let compact = compact_json(text);
            assert_eq!(compact, walked(text), "{text:?}");
            // Text with nothing to leave out is not copied.
            assert_eq!(
                matches!(compact, Cow::Borrowed(_)),
                compact == text,
                "{text:?}"
            );
        }
    }

    #[test]
    fn keys_come_from_every_event_nested_ones_too() {
        let tx = fixtures::transaction(
            "1220aa",
            0,
            vec![
                fixtures::exercised("1220aa", 0, "00c1", "AmuletRules_Transfer", false),
                fixtures::exercised("1220aa", 1, "00c2", "Nested_Choice", true),
            ],
        );
        let item: UpdateItem = serde_json::from_value(tx).expect("item");
        let keys = keys_of(&item);
        assert!(keys.contains(&(KeyKind::Choice, "AmuletRules_Transfer".to_owned())));
        assert!(keys.contains(&(KeyKind::Choice, "Nested_Choice".to_owned())));
        assert!(keys.contains(&(KeyKind::Contract, "00c2".to_owned())));
        let row = row_of(&item, &mut Summarizer::default()).expect("row");
        assert_eq!(row.update_id, "1220aa");
        let body = zstd::stream::decode_all(row.body.as_deref().expect("a body")).expect("zstd");
        let body = String::from_utf8(body).expect("UTF-8");
        assert!(!body.contains('\n'));
        assert!(!body.contains("1220aa"), "its own id named by a byte");
        let body = pack::own_id_back(body, "1220aa");
        assert_eq!(
            serde_json::from_str::<Value>(&body).expect("JSON"),
            serde_json::from_str::<Value>(item.raw().get()).expect("JSON"),
            "the kept body is the item"
        );
    }

    #[test]
    fn a_page_made_on_every_core_equals_one_made_item_by_item() {
        let items: Vec<UpdateItem> = (0..300)
            .map(|i| {
                let id = format!("1220{i:04x}");
                let tx = fixtures::transaction(
                    &id,
                    i % 60,
                    vec![fixtures::exercised(
                        &id,
                        0,
                        &format!("00c{i}"),
                        "Choice_X",
                        false,
                    )],
                );
                serde_json::from_value(tx).expect("item")
            })
            .collect();
        let digests = digests_of(&items).expect("digests");
        let rows = rows_of(&items, &digests, Some(&Packing::plain())).expect("rows");
        let mut summarizer = Summarizer::default();
        let one_by_one: Vec<IndexRow> = items
            .iter()
            .map(|item| row_of(item, &mut summarizer).expect("row"))
            .collect();
        assert_eq!(rows, one_by_one);
    }
}
