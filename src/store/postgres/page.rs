//! A sync's page written in its transaction: its new updates and their keys sent with binary
//! COPY ([`super::copy`]), their seqs taken from the table's identity first so that nothing
//! waits for a `RETURNING`, the page's terms added or their counts raised, and every one's id
//! read, in one statement.
//!
//! Statements a page (new updates in it): the stored digests of its ids, the seqs, the terms
//! and their counts, the updates' COPY, the keys' COPY, the posting blocks' marks moved back
//! (when the page has a term of at least 100 updates: [`super::key_blocks::lower`]), the hubs
//! (read, their bits and pairs), the chunk's cursor.

use super::pairs;
use super::{Chunk, Fail, HashMap, PageWrite, PageWritten};
use crate::store::newest::{BOTTOM, Pos};
use crate::store::write;

use super::copy::CopyRows;

/// The page's new updates take the next `$1` values of the updates' identity (the seqs an
/// INSERT would have taken; a rolled back page leaves a gap, as an INSERT's would).
const NEXT_SEQS: &str = "WITH s AS MATERIALIZED (
         SELECT pg_get_serial_sequence('updates', 'seq')::regclass AS id)
     SELECT nextval(s.id) FROM s, generate_series(1, $1::int8)";

/// The page's terms (`$1` kinds, `$2` values as kept (`super::term_values::stored`), `$3` their places in the page's list, `$4` how
/// many new updates have each, `$5`-`$7` the newest of them) added when new, a known one's
/// count raised and its newest key the later of its own and the page's (kept unknown when
/// unknown: its older keys may be later than the page's); each term's place, id and count.
const TERMS: &str = "WITH x (kind, value, at, n, m, t, s) AS (
         SELECT * FROM UNNEST($1::int8[], $2::bytea[], $3::int4[], $4::int8[], $5::int8[],
             $6::int8[], $7::int8[])),
     up AS (
         INSERT INTO terms AS o (kind, value, updates, last_migration, last_time, last_seq)
         SELECT kind, value, n, m, t, s FROM x
         ON CONFLICT (kind, value) DO UPDATE SET updates = o.updates + excluded.updates,
           last_migration = CASE WHEN newer THEN excluded.last_migration ELSE o.last_migration END,
           last_time = CASE WHEN newer THEN excluded.last_time ELSE o.last_time END,
           last_seq = CASE WHEN newer THEN excluded.last_seq ELSE o.last_seq END
         RETURNING kind, value, id, updates)
     SELECT x.at, up.id, up.updates FROM x
     JOIN up ON up.kind = x.kind AND up.value = x.value";

/// The page's key is newer than the term's newest known one.
const NEWER: &str =
    "(o.last_seq IS NOT NULL AND (excluded.last_migration, excluded.last_time, excluded.last_seq)
       > (o.last_migration, o.last_time, o.last_seq))";

const COPY_UPDATES: &str = "COPY updates (seq, update_id, migration_id, record_time, kind, root_action, parties, digest, body, chunk)
     FROM STDIN (FORMAT binary)";

const COPY_KEYS: &str =
    "COPY keys (term, migration_id, record_time, seq) FROM STDIN (FORMAT binary)";

/// Writes one page in `tx` (see [`crate::store::IndexWriter::write_page`]) but the chunk's
/// cursor.
pub(super) fn write_rows(
    tx: &mut postgres::Transaction<'_>,
    chunk: &Chunk,
    page: &PageWrite,
) -> Result<PageWritten, Fail> {
    let rows = page.rows();
    let in_chunk = write::in_chunk(chunk, page);
    let ids: Vec<&str> = in_chunk.iter().map(|(_, r)| r.update_id.as_str()).collect();
    let mut stored: HashMap<String, Vec<u8>> = tx
        .query(
            "SELECT update_id, digest FROM updates WHERE update_id = ANY($1)",
            &[&ids],
        )?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let decided =
        write::decide(chunk, &in_chunk, &mut stored).map_err(|r| Fail::Store(r.into()))?;
    let mut written = PageWritten {
        inserted: 0,
        known: decided.known,
    };
    let fresh = decided.fresh;
    if fresh.is_empty() {
        return Ok(written);
    }
    let mut seqs: Vec<i64> = tx
        .query(NEXT_SEQS, &[&(fresh.len() as i64)])?
        .iter()
        .map(|r| r.get(0))
        .collect();
    seqs.sort_unstable();
    if seqs.len() != fresh.len() {
        return Err(Fail::Send(format!(
            "the server gave {} seqs for {} updates",
            seqs.len(),
            fresh.len()
        )));
    }
    // Of the page's terms (grouped before the writer), how many of its new updates have each,
    // and the newest of them.
    let terms = &page.terms;
    let mut counts: Vec<(i64, Pos)> = vec![(0, BOTTOM); terms.len()];
    for (at, seq) in fresh.iter().zip(&seqs) {
        let row = &rows[*at];
        let position = (row.migration_id, row.record_time, *seq);
        for t in terms.of_row(*at) {
            let count = &mut counts[*t as usize];
            count.0 += 1;
            count.1 = count.1.max(position);
        }
    }
    let used: Vec<usize> = (0..terms.len()).filter(|t| counts[*t].0 > 0).collect();
    let mut term_ids: Vec<Option<i64>> = vec![None; terms.len()];
    // Each term's count once raised, for the hubs.
    let mut raised: Vec<(i64, i64)> = Vec::with_capacity(used.len());
    if !used.is_empty() {
        let (kinds, values): (Vec<i64>, Vec<Vec<u8>>) = used
            .iter()
            .map(|t| {
                let (kind, value) = terms.term(rows, *t);
                (kind, super::term_values::stored(kind, value))
            })
            .unzip();
        let places: Vec<i32> = (0..used.len() as i32).collect();
        let n: Vec<i64> = used.iter().map(|t| counts[*t].0).collect();
        let last: [Vec<i64>; 3] = [
            used.iter().map(|t| counts[*t].1.0).collect(),
            used.iter().map(|t| counts[*t].1.1).collect(),
            used.iter().map(|t| counts[*t].1.2).collect(),
        ];
        let sql = TERMS.replace("newer", NEWER);
        for r in tx.query(
            sql.as_str(),
            &[&kinds, &values, &places, &n, &last[0], &last[1], &last[2]],
        )? {
            let (at, id, updates): (i32, i64, i64) = (r.get(0), r.get(1), r.get(2));
            if let Some(t) = usize::try_from(at).ok().and_then(|at| used.get(at)) {
                term_ids[*t] = Some(id);
                raised.push((id, updates));
            }
        }
        // A term without an id would write keys of no term: the page is rolled back.
        if let Some(t) = used.iter().find(|t| term_ids[**t].is_none()) {
            let (kind, value) = terms.term(rows, *t);
            return Err(Fail::Send(format!(
                "the server returned no id for the term ({kind}, {value:?})"
            )));
        }
    }
    // The updates, in seq order.
    let bytes: usize = fresh
        .iter()
        .map(|at| {
            let r = &rows[*at];
            200 + r.update_id.len()
                + r.kind.len()
                + r.root_action.len()
                + r.body.as_ref().map_or(0, Vec::len)
                + r.parties.iter().map(|p| p.len() + 3).sum::<usize>()
        })
        .sum();
    let mut updates = CopyRows::new(10, bytes);
    for (at, seq) in fresh.iter().zip(&seqs) {
        let r = &rows[*at];
        let parties = serde_json::to_string(&r.parties).unwrap_or_else(|_| "[]".to_owned());
        updates.row();
        updates.int8(*seq);
        updates.bytes(r.update_id.as_bytes());
        updates.int8(r.migration_id);
        updates.int8(r.record_time);
        updates.bytes(r.kind.as_bytes());
        updates.bytes(r.root_action.as_bytes());
        updates.bytes(parties.as_bytes());
        updates.bytes(&r.digest);
        match &r.body {
            Some(body) => updates.bytes(body),
            None => updates.null(),
        }
        updates.int8(chunk.id);
    }
    let sent = updates.len();
    if updates.send(tx, COPY_UPDATES)? != sent {
        return Err(Fail::Send(format!(
            "the server kept fewer than {sent} updates"
        )));
    }
    // The keys, sorted as the table's key keeps them (by term, each term's newest first); and
    // each update's term ids for the hubs.
    let mut keys: Vec<[i64; 4]> = Vec::new();
    let mut row_terms: Vec<(i64, Vec<i64>)> = Vec::with_capacity(fresh.len());
    for (at, seq) in fresh.iter().zip(&seqs) {
        let row = &rows[*at];
        let of_row = terms.of_row(*at);
        let mut own = Vec::with_capacity(of_row.len());
        for t in of_row {
            let term = term_ids[*t as usize].unwrap_or_default();
            keys.push([term, row.migration_id, row.record_time, *seq]);
            own.push(term);
        }
        row_terms.push((*seq, own));
    }
    keys.sort_unstable_by(|a, b| a[0].cmp(&b[0]).then_with(|| b[1..].cmp(&a[1..])));
    keys.dedup();
    let mut copy = CopyRows::new(4, keys.len() * 50);
    for key in &keys {
        copy.row();
        for field in key {
            copy.int8(*field);
        }
    }
    copy.send(tx, COPY_KEYS)?;
    // A key at or before its term's mark (a sync filling a gap behind the blocks): the mark
    // moved before it. Only a term of at least `FROM` updates has one.
    let frequent: std::collections::HashSet<i64> = raised
        .iter()
        .filter(|(_, n)| *n >= super::key_blocks::FROM)
        .map(|(term, _)| *term)
        .collect();
    if !frequent.is_empty() {
        let (terms, oldest): (Vec<i64>, Vec<Pos>) = keys
            .chunk_by(|a, b| a[0] == b[0])
            .filter(|run| frequent.contains(&run[0][0]))
            .map(|run| {
                let k = run[run.len() - 1];
                (k[0], (k[1], k[2], k[3]))
            })
            .unzip();
        super::key_blocks::lower(tx, &terms, &oldest)?;
    }
    // The pairs and bits of the hubs the page's updates have; then the terms that reached the
    // threshold become hubs, their pairs and bits read from the keys (this page's included).
    let (mut hubs, threshold) = pairs::load(tx)?;
    pairs::add_page(tx, &row_terms, &hubs)?;
    let mut new_hubs: Vec<i64> = raised
        .iter()
        .filter(|(term, n)| *n >= threshold && !hubs.contains(term))
        .map(|(term, _)| *term)
        .collect();
    new_hubs.sort_unstable();
    pairs::promote(tx, &new_hubs, &mut hubs)?;
    written.inserted = fresh.len() as u64;
    Ok(written)
}
