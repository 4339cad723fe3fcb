//! Unit tests of [`super`]: the bodies' packing and naming, and their damaged forms.
use super::*;

const ID: &str = "1220b7a19527e1483351f6404b46b521b8b325116cdd5a4b8fe31d51e2b4b9bb77ae";

/// An update id of its own for each `n`: 68 hex digits that look random, as real ones.
fn id(n: u64) -> String {
    let mut x = n.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut next = || {
        x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9).rotate_left(31) ^ n;
        x
    };
    format!(
        "1220{:016x}{:016x}{:016x}{:016x}",
        next(),
        next(),
        next(),
        next()
    )
}

/// An update as a scan serves it: its id first, then inside each of its events' ids.
fn body(events: usize) -> String {
    body_of(ID, events)
}

fn body_of(id: &str, events: usize) -> String {
    let events: Vec<String> = (0..events)
        .map(|n| {
            format!(
                r#""{id}:{n}":{{"event_id":"{id}:{n}","contract_id":"{}","template_id":"Splice.Amulet:Amulet"}}"#,
                contract(n)
            )
        })
        .collect();
    format!(
        r#"{{"update_id":"{id}","migration_id":0,"root_event_ids":["{id}:0"],"events_by_id":{{{}}}}}"#,
        events.join(",")
    )
}

#[test]
fn a_body_names_its_own_id_by_a_byte_and_reads_back_exactly() {
    let text = body(5);
    let named = name_own_id(&text, ID).expect("it has its id");
    assert_eq!(named.last(), Some(&OWN_ID));
    assert!(
        memchr::memmem::find(&named, ID.as_bytes()).is_none(),
        "no copy of the id is left"
    );
    // The id once, once in the roots, twice in each of the five events.
    let copies = 1 + 1 + 2 * 5;
    assert_eq!(named.len(), text.len() + 1 - copies * (ID.len() - 1));
    let back = own_id_back(String::from_utf8(named).expect("UTF-8"), ID);
    assert_eq!(back, text);
}

#[test]
fn a_body_without_its_id_or_with_the_byte_is_kept_as_it_is() {
    let text = body(2);
    assert_eq!(name_own_id(&text, "another id"), None);
    assert_eq!(name_own_id(&text, ""), None);
    // Not a JSON text a scan can serve, and kept exactly all the same.
    let odd = format!("{text}\u{1}");
    assert_eq!(name_own_id(&odd, ID), None);
    // A body packed before (as served) reads back as it is.
    assert_eq!(own_id_back(text.clone(), ID), text);
}

#[test]
fn a_packed_body_is_smaller_with_its_id_named_and_unpacks_to_the_served_text() {
    let text = body(5);
    let samples: Vec<String> = (0..300)
        .map(|i| body_sample(&body_of(&id(i), i as usize % 7 + 1), &id(i)))
        .collect();
    let dictionary = train_dictionary(samples.iter().map(String::as_str)).expect("trained");
    let packing = Packing::with_dictionary(&dictionary).expect("a dictionary");
    let mut packer = packing.packer().expect("zstd");
    let packed = pack_body(&text, ID, &mut packer).expect("packed");
    let as_served = packer.compress(text.as_bytes()).expect("packed");
    assert!(
        packed.len() + 10 < as_served.len(),
        "{} bytes named against {} as served",
        packed.len(),
        as_served.len()
    );
    let unpacked = zstd::bulk::Decompressor::with_dictionary(&dictionary)
        .expect("zstd")
        .decompress(&packed, 1 << 20)
        .expect("unpacked");
    let unpacked = own_id_back(String::from_utf8(unpacked).expect("UTF-8"), ID);
    assert_eq!(unpacked, text);
}

/// Contract id `n` as the test bodies have them ([`body_of`]): hex that looks random, as
/// real ones.
fn contract(n: usize) -> String {
    let n = n as u64;
    format!("00{}{}", &id(n + 1_000)[4..], &id(n + 2_000)[4..])
}

/// A test body of `n` contracts ([`body`]), its contract ids, and the body packed naming them
/// (before the writer completes it).
fn named_body(n: usize) -> (String, Vec<String>, Vec<u8>) {
    let text = body(n);
    let contracts: Vec<String> = (0..n).map(contract).collect();
    let named: Vec<&str> = contracts.iter().map(String::as_str).collect();
    let plain_packing = Packing::plain();
    let mut packer = plain_packing.packer().expect("zstd");
    let packed = pack_body_naming_contracts(&text, ID, &named, &mut packer).expect("packed");
    (text, contracts, packed)
}

/// A kept body (`kept`: what the writer keeps) unpacked as a reader does: the terms' ids
/// looked up in `terms` (id → contract id).
fn read_back(kept: &[u8], terms: &std::collections::HashMap<i64, String>) -> String {
    let (ids, frame) = contract_terms(kept).expect("read");
    let text = zstd::bulk::decompress(frame, 1 << 20).expect("unpacked");
    let text = String::from_utf8(text).expect("UTF-8");
    let contracts: Vec<String> = ids.iter().map(|id| terms[id].clone()).collect();
    own_id_back(contracts_back(text, &contracts).expect("put back"), ID)
}

#[test]
fn a_body_names_its_contracts_by_their_terms_and_reads_back_exactly() {
    let (text, contracts, packed) = named_body(5);
    let plain_packing = Packing::plain();
    let mut packer = plain_packing.packer().expect("zstd");
    assert_eq!(packed[0], CONTRACTS_PENDING, "the writer completes it");
    assert!(contract_terms(&packed).is_err(), "not readable before then");
    // The writer gives each contract its term's id, in the order the body names them.
    let ids: Vec<i64> = vec![7, 300, 70_000, 1 << 40, 12];
    let kept = with_contract_terms(&packed, &ids);
    assert_eq!(kept[0], CONTRACT_TERMS);
    let terms: std::collections::HashMap<i64, String> =
        ids.iter().copied().zip(contracts.iter().cloned()).collect();
    assert_eq!(read_back(&kept, &terms), text);
    // The named text holds no contract id, and is the smaller for it.
    let plain = pack_body(&text, ID, &mut packer).expect("packed");
    assert!(
        kept.len() + 100 < plain.len(),
        "{} against {}",
        kept.len(),
        plain.len()
    );
    // A body that names none is kept as pack_body keeps it, and reads back as it is.
    let none = pack_body_naming_contracts(&text, ID, &[], &mut packer).expect("packed");
    assert_eq!(none, plain);
    assert_eq!(with_contract_terms(&none, &[]), plain);
    assert_eq!(read_back(&none, &terms), text);
}

#[test]
fn a_contract_id_inside_a_longer_string_or_past_the_slots_stays_as_served() {
    let first = contract(0);
    // Only a whole JSON string is named: the id inside another string stays as it is.
    let text = format!(r#"{{"a":"{first}","b":"x{first}","c":["{first}"]}}"#);
    let named = name_contracts(text.as_bytes(), &[&first]).expect("named");
    let named = String::from_utf8(named).expect("UTF-8");
    assert_eq!(named.matches(first.as_str()).count(), 1);
    assert_eq!(
        contracts_back(named, std::slice::from_ref(&first)).expect("back"),
        text
    );
    // More contracts than slots: the first MOST_CONTRACTS are named, the rest kept.
    let many: Vec<String> = (0..MOST_CONTRACTS + 5).map(contract).collect();
    let text = format!(
        "[{}]",
        many.iter()
            .map(|c| format!("\"{c}\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    let refs: Vec<&str> = many.iter().map(String::as_str).collect();
    let named = name_contracts(text.as_bytes(), &refs).expect("named");
    let named = String::from_utf8(named).expect("UTF-8");
    assert_eq!(named.matches("\"00").count(), 5);
    assert_eq!(
        contracts_back(named, &many[..MOST_CONTRACTS]).expect("back"),
        text
    );
    // A text that has the byte already (not a JSON text) is kept as it is.
    assert_eq!(name_contracts(b"\x02\"00\"", &["00"]), None);
}

#[test]
fn each_copy_of_a_contract_is_named_by_the_slot_of_its_first_place() {
    let (a, b) = (contract(1), contract(2));
    // As a key and as values, side by side; an id given twice keeps its first slot (b: 0x21,
    // a: 0x22) and an empty id names nothing.
    let text = format!(r#"{{"{a}":["{b}","{a}"],"x":"{b}"}}"#);
    let named = name_contracts(text.as_bytes(), &["", &b, &a, &b]).expect("named");
    assert_eq!(named, b"{\x02\x22:[\x02\x21,\x02\x22],\"x\":\x02\x21}");
    let terms = ["", &b, &a].map(str::to_owned);
    let back = contracts_back(String::from_utf8(named).expect("UTF-8"), &terms);
    assert_eq!(back.expect("back"), text);
    // Ids that do not all start with `0` (no participant's): found among all the quotes.
    let named = name_contracts(br#"["k1","0x","k1x","k1"]"#, &["k1", "0x"]).expect("named");
    assert_eq!(named, b"[\x02\x20,\x02\x21,\"k1x\",\x02\x20]");
}

#[test]
fn a_damaged_body_is_an_error_never_a_panic() {
    let kept = with_contract_terms(&[CONTRACTS_PENDING, 0x28], &[1, 2]);
    // Cut in its ids.
    assert!(contract_terms(&kept[..2]).is_err());
    assert!(contract_terms(&[CONTRACT_TERMS]).is_err());
    assert!(contract_terms(&[CONTRACT_TERMS, 0xff, 0xff]).is_err());
    // More ids than a body names.
    assert!(contract_terms(&[CONTRACT_TERMS, 96]).is_err());
    // A slot without its contract, or cut after the byte.
    assert!(contracts_back("[\u{2}!]".to_owned(), &["x".to_owned()]).is_err());
    assert!(contracts_back("[\u{2}".to_owned(), &["x".to_owned()]).is_err());
    assert!(contracts_back("[\u{2}\u{e9}]".to_owned(), &["x".to_owned()]).is_err());
}

#[test]
fn a_body_names_its_contracts_by_their_terms_and_keys_and_reads_back_exactly() {
    let (text, contracts, packed) = named_body(3);
    let keys = vec![
        (7, ContractKey::Bytes(vec![0, 1, 2, 3, 4, 5, 6, 7])),
        (1 << 40, ContractKey::Bytes(vec![0xff, 0xfe])),
        (
            12,
            ContractKey::Text("a contract id kept as text".to_owned()),
        ),
    ];
    let kept = with_contract_keys(&packed, &keys);
    assert_eq!(kept[0], CONTRACT_KEYS);
    let (read, frame) = named_contracts(&kept).expect("read");
    // A key of bytes holds at most KEY_BYTES of them; a text key is whole.
    let expected: Vec<NamedContract> = vec![
        NamedContract {
            term: 7,
            key: Some(ContractKey::Bytes(vec![0, 1, 2, 3, 4, 5])),
        },
        NamedContract {
            term: 1 << 40,
            key: Some(ContractKey::Bytes(vec![0xff, 0xfe])),
        },
        NamedContract {
            term: 12,
            key: Some(ContractKey::Text("a contract id kept as text".to_owned())),
        },
    ];
    assert_eq!(read, expected);
    assert_eq!(contract_terms(&kept).expect("ids").0, vec![7, 1 << 40, 12]);
    let terms: std::collections::HashMap<i64, String> = [7, 1 << 40, 12]
        .into_iter()
        .zip(contracts.iter().cloned())
        .collect();
    assert_eq!(read_back(&kept, &terms), text);
    assert!(
        frame.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]),
        "the zstd frame"
    );
    // A schema-15 body reads as its terms without keys.
    let old = with_contract_terms(&packed, &[7, 1 << 40, 12]);
    let (read, _) = named_contracts(&old).expect("read");
    assert!(read.iter().all(|c| c.key.is_none()));
    // Damaged: cut in a key, a key longer than KEY_BYTES, a text key cut or not UTF-8.
    for cut in 2..kept.len().min(30) {
        let _ = named_contracts(&kept[..cut]);
    }
    assert!(named_contracts(&[CONTRACT_KEYS, 1, 7, 6, 0]).is_err());
    assert!(named_contracts(&[CONTRACT_KEYS, 1, 7, 7, 0, 0, 0, 0, 0, 0, 0]).is_err());
    assert!(named_contracts(&[CONTRACT_KEYS, 1, 7, KEY_TEXT, 3, b'a']).is_err());
    assert!(named_contracts(&[CONTRACT_KEYS, 1, 7, KEY_TEXT, 1, 0xff]).is_err());
    assert!(named_contracts(&[CONTRACT_KEYS, 96]).is_err());
}

#[test]
fn the_dictionaries_by_migration_read_back_and_a_damaged_pair_is_left_out() {
    let kept = std::collections::BTreeMap::from([(0, 1_630_250_053), (4, 7)]);
    let text = dictionaries_text(&kept);
    assert_eq!(text, "0:1630250053 4:7");
    assert_eq!(dictionaries_by_migration(Some(&text)), kept);
    assert!(dictionaries_by_migration(None).is_empty());
    let damaged = dictionaries_by_migration(Some("0:12 x:3 5: 6:-1 7:99999999999"));
    assert_eq!(damaged, std::collections::BTreeMap::from([(0, 12)]));
}
