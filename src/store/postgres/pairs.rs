//! The counts of two hubs together and the hubs' bitmaps (see [`crate::store::hubs`]) in
//! PostgreSQL: a page's share, a term becoming a hub, prune, schema 2 → 3 and 4 → 5, and the
//! bitmaps' reads (a search reads the pair's count with its plan: `search::plan`). The term
//! ids written into SQL are integers read from the index itself.

use std::collections::{BTreeMap, HashSet};

use super::GenericClient;
use crate::store::hubs::{self, Block, HubBits, MADE_AT_KEY, THRESHOLD_KEY};

/// The hubs, and the threshold a term becomes one at (one statement: it runs at every page).
pub(super) fn load(c: &mut impl GenericClient) -> Result<(HashSet<i64>, i64), postgres::Error> {
    let row = c.query_one(
        "SELECT (SELECT array_agg(term) FROM hubs),
                (SELECT value FROM meta WHERE key = $1)",
        &[&THRESHOLD_KEY],
    )?;
    let hubs: Option<Vec<i64>> = row.get(0);
    let threshold: Option<String> = row.get(1);
    Ok((
        hubs.unwrap_or_default().into_iter().collect(),
        hubs::threshold(threshold.as_deref()),
    ))
}

/// A page's updates (their seq and term ids) raise the pairs of the hubs they have and set
/// their bits.
pub(super) fn add_page(
    c: &mut impl GenericClient,
    updates: &[(i64, Vec<i64>)],
    hubs: &HashSet<i64>,
) -> Result<(), postgres::Error> {
    let hubs::PageChanges { bits, pairs } = hubs::page_changes(updates, hubs);
    put_bits(c, bits, true)?;
    if pairs.is_empty() {
        return Ok(());
    }
    let a: Vec<i64> = pairs.iter().map(|p| p.0.0).collect();
    let b: Vec<i64> = pairs.iter().map(|p| p.0.1).collect();
    let n: Vec<i64> = pairs.iter().map(|p| p.1).collect();
    c.execute(
        "INSERT INTO pairs (a, b, n) SELECT * FROM UNNEST($1::int8[], $2::int8[], $3::int8[])
         ON CONFLICT (a, b) DO UPDATE SET n = pairs.n + excluded.n",
        &[&a, &b, &n],
    )?;
    Ok(())
}

/// `terms` become hubs (those not one yet): their bitmaps made from their keys, their pairs
/// counted with each other and with every hub, whose bitmap is read once
/// ([`hubs::Promotion`]).
pub(super) fn promote(
    c: &mut impl GenericClient,
    terms: &[i64],
    hubs: &mut HashSet<i64>,
) -> Result<(), postgres::Error> {
    let mut earlier: Vec<i64> = hubs.iter().copied().collect();
    earlier.sort_unstable();
    let mut new = Vec::new();
    for term in terms {
        if hubs.insert(*term) {
            new.push((*term, seqs_of(c, *term)?));
        }
    }
    if new.is_empty() {
        return Ok(());
    }
    let mut promotion = hubs::Promotion::new(new);
    with_earlier(c, &earlier, &mut promotion)?;
    let (mut a, mut b, mut n) = (Vec::new(), Vec::new(), Vec::new());
    for ((x, y), count) in promotion.pairs() {
        a.push(*x);
        b.push(*y);
        n.push(*count);
    }
    c.execute(
        "INSERT INTO pairs (a, b, n) SELECT * FROM UNNEST($1::int8[], $2::int8[], $3::int8[])
         ON CONFLICT (a, b) DO UPDATE SET n = excluded.n",
        &[&a, &b, &n],
    )?;
    let terms = promotion.terms();
    c.execute(
        "INSERT INTO hubs (term) SELECT * FROM UNNEST($1::int8[]) ON CONFLICT DO NOTHING",
        &[&terms],
    )?;
    c.execute("DELETE FROM hub_bits WHERE term = ANY($1)", &[&terms])?;
    put_bits(c, promotion.bits(), true)
}

/// The seqs of a term's updates (its keys).
fn seqs_of(c: &mut impl GenericClient, term: i64) -> Result<Vec<i64>, postgres::Error> {
    Ok(c.query("SELECT seq FROM keys WHERE term = $1", &[&term])?
        .iter()
        .map(|r| r.get(0))
        .collect())
}

/// At a writer's open: every term with at least the threshold's updates a hub, when the
/// index's hubs were made at a higher one ([`hubs::to_complete`]: an index of a build whose
/// default was 100,000). Returns the threshold and how many terms became hubs (`None`:
/// nothing to do).
pub(super) fn complete(
    c: &mut impl GenericClient,
) -> Result<Option<(i64, usize)>, postgres::Error> {
    let row = c.query_one(
        "SELECT (SELECT value FROM meta WHERE key = $1), (SELECT value FROM meta WHERE key = $2)",
        &[&THRESHOLD_KEY, &MADE_AT_KEY],
    )?;
    let (threshold, made_at): (Option<String>, Option<String>) = (row.get(0), row.get(1));
    let Some(threshold) = hubs::to_complete(threshold.as_deref(), made_at.as_deref()) else {
        return Ok(None);
    };
    let (mut hubs, _) = load(c)?;
    let frequent = frequent(c, threshold, &hubs)?;
    promote(c, &frequent, &mut hubs)?;
    c.execute(
        "INSERT INTO meta (key, value) VALUES ($1, $2)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        &[&MADE_AT_KEY, &threshold.to_string()],
    )?;
    Ok(Some((threshold, frequent.len())))
}

/// The terms with at least `threshold` updates that are not `hubs`, the most frequent first.
fn frequent(
    c: &mut impl GenericClient,
    threshold: i64,
    hubs: &HashSet<i64>,
) -> Result<Vec<i64>, postgres::Error> {
    Ok(c.query(
        "SELECT id FROM terms WHERE updates >= $1 ORDER BY updates DESC, id",
        &[&threshold],
    )?
    .iter()
    .map(|r| r.get(0))
    .filter(|t| !hubs.contains(t))
    .collect())
}

/// Sets (`on`) or clears the bits of the seqs given by (hub, block); a block left empty goes.
/// The blocks are read in one statement and written back in two.
fn put_bits(
    c: &mut impl GenericClient,
    changes: BTreeMap<(i64, i64), Vec<i64>>,
    on: bool,
) -> Result<(), postgres::Error> {
    if changes.is_empty() {
        return Ok(());
    }
    let (terms, blocks): (Vec<i64>, Vec<i64>) = changes.keys().copied().unzip();
    let stored: std::collections::HashMap<(i64, i64), Vec<u8>> = super::by_first_two(
        c,
        "SELECT b.term, b.block, b.bits FROM hub_bits b
         JOIN UNNEST($1::int8[], $2::int8[]) AS x (term, block)
           ON b.term = x.term AND b.block = x.block",
        &[&terms, &blocks],
    )?;
    let (mut kept, mut gone) = (
        (Vec::new(), Vec::new(), Vec::new()),
        (Vec::new(), Vec::new()),
    );
    for ((term, block), seqs) in changes {
        let mut bits = stored
            .get(&(term, block))
            .map(|b| Block::decode(b))
            .unwrap_or_default();
        for seq in seqs {
            bits.put(seq, on);
        }
        if let Some(bytes) = bits.encode() {
            kept.0.push(term);
            kept.1.push(block);
            kept.2.push(bytes);
        } else {
            gone.0.push(term);
            gone.1.push(block);
        }
    }
    if !kept.0.is_empty() {
        c.execute(
            "INSERT INTO hub_bits (term, block, bits)
             SELECT * FROM UNNEST($1::int8[], $2::int8[], $3::bytea[])
             ON CONFLICT (term, block) DO UPDATE SET bits = excluded.bits",
            &[&kept.0, &kept.1, &kept.2],
        )?;
    }
    if !gone.0.is_empty() {
        c.execute(
            "DELETE FROM hub_bits b USING UNNEST($1::int8[], $2::int8[]) AS x (term, block)
             WHERE b.term = x.term AND b.block = x.block",
            &[&gone.0, &gone.1],
        )?;
    }
    Ok(())
}

/// A hub's bitmap made from its keys (any earlier one replaced).
fn build_bits(c: &mut impl GenericClient, term: i64) -> Result<(), postgres::Error> {
    c.execute("DELETE FROM hub_bits WHERE term = $1", &[&term])?;
    let seqs = seqs_of(c, term)?;
    put_bits(c, hubs::term_blocks(term, seqs), true)
}

/// Schema 3 or 4 → 5: every hub's bitmap made from its keys. Returns how many hubs there are.
pub(super) fn migrate_4_to_5(c: &mut impl GenericClient) -> Result<usize, postgres::Error> {
    let (hubs, _) = load(c)?;
    hubs::build_every(hubs, |term| build_bits(c, term))
}

/// Counts the promotion's pairs with each of the hubs `earlier`, their bitmaps read by
/// [`each_bitmap`] (a hub a statement before). A hub without a block has no update to share.
fn with_earlier(
    c: &mut impl GenericClient,
    earlier: &[i64],
    promotion: &mut hubs::Promotion,
) -> Result<(), postgres::Error> {
    each_bitmap(c, earlier, |hub, bits| promotion.with_hub(hub, &bits))
}

/// Each bitmap of the hubs `terms` that has a block, read whole: one statement, streamed in
/// the key's order (the index gives it, no sort), so one hub's bitmap is in memory at a time
/// (48 hubs at 10 M updates, up to 1.25 MB each).
fn each_bitmap(
    c: &mut impl GenericClient,
    terms: &[i64],
    mut f: impl FnMut(i64, HubBits),
) -> Result<(), postgres::Error> {
    use postgres::fallible_iterator::FallibleIterator;
    if terms.is_empty() {
        return Ok(());
    }
    let mut rows = c.query_typed_raw(
        "SELECT term, block, bits FROM hub_bits WHERE term = ANY($1) ORDER BY term, block",
        [(&terms, postgres::types::Type::INT8_ARRAY)],
    )?;
    let mut current: Option<(i64, HubBits)> = None;
    while let Some(row) = rows.next()? {
        let term: i64 = row.get(0);
        if current.as_ref().is_none_or(|(hub, _)| *hub != term) {
            if let Some((hub, bits)) = current.take() {
                f(hub, bits);
            }
            current = Some((term, HubBits::whole()));
        }
        if let Some((_, bits)) = current.as_mut() {
            bits.insert(row.get(1), row.get(2));
        }
    }
    if let Some((hub, bits)) = current {
        f(hub, bits);
    }
    Ok(())
}

/// Prune's share, before the keys older than `before` go: each pair lowered by the removed
/// updates that have both, a pair no update has any more removed.
pub(super) fn prune(c: &mut impl GenericClient, before: i64) -> Result<(), postgres::Error> {
    let (hubs, _) = load(c)?;
    let mut hubs: Vec<i64> = hubs.into_iter().collect();
    hubs.sort_unstable();
    // The bits of the removed updates cleared.
    for term in &hubs {
        let seqs: Vec<i64> = c
            .query(
                "SELECT seq FROM keys WHERE term = $1 AND record_time < $2",
                &[term, &before],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect();
        put_bits(c, hubs::term_blocks(*term, seqs), false)?;
    }
    for (i, a) in hubs.iter().enumerate() {
        let later = &hubs[i + 1..];
        if later.is_empty() {
            break;
        }
        let list = hubs::id_list(later);
        // Each removed update of `a` probed for the later hubs by the keys' key (LATERAL: one
        // look-up per update, never a hash of every key of the hubs).
        c.execute(
            &format!(
                "WITH removed AS (
                     SELECT o.term AS b, count(*) AS n FROM keys x
                     CROSS JOIN LATERAL (SELECT y.term FROM keys y
                         WHERE y.term IN ({list}) AND y.migration_id = x.migration_id
                           AND y.record_time = x.record_time AND y.seq = x.seq) o
                     WHERE x.term = {a} AND x.record_time < $1 GROUP BY o.term)
                 UPDATE pairs p SET n = p.n - removed.n FROM removed
                 WHERE p.a = {a} AND p.b = removed.b"
            ),
            &[&before],
        )?;
    }
    c.execute("DELETE FROM pairs WHERE n <= 0", &[])?;
    Ok(())
}

/// Schema 2 → 3: the hubs, their bitmaps made from their keys and their pairs counted from
/// the bitmaps ([`promote`]). Returns how many hubs there are.
pub(super) fn migrate_2_to_3(c: &mut impl GenericClient) -> Result<usize, postgres::Error> {
    let (mut hubs, threshold) = load(c)?;
    let frequent = frequent(c, threshold, &hubs)?;
    // One term at a time: the seqs of one term in memory, not of every hub.
    for term in &frequent {
        promote(c, &[*term], &mut hubs)?;
    }
    c.execute(
        "UPDATE meta SET value = '3' WHERE key = 'schema_version'",
        &[],
    )?;
    Ok(frequent.len())
}

/// Makes `hub_bits`' primary key carry the bits when it does not (a database made before
/// they were), as SQLite's table is kept in its key's order: a hub's bitmap is then one range
/// of the key read without the table (an index-only scan). The table's rows are in the order
/// the pages wrote them, every hub's blocks between the others': the DSO party's 2,442 blocks
/// at 10 M updates were 2,026 table pages, 324 ms to read cold, 1.2 ms from the key. The
/// same key columns, so a build from before reads and writes it as it is.
pub(super) fn cover_bits(c: &mut impl GenericClient) -> Result<(), postgres::Error> {
    let key = c.query_opt(
        "SELECT c.conname, i.indnatts > i.indnkeyatts FROM pg_constraint c
         JOIN pg_index i ON i.indexrelid = c.conindid
         WHERE c.conrelid = 'hub_bits'::regclass AND c.contype = 'p'",
        &[],
    )?;
    let name = match key {
        Some(row) if row.get::<_, bool>(1) => return Ok(()),
        Some(row) => Some(row.get::<_, String>(0)),
        None => None,
    };
    let drop = name.map_or_else(String::new, |name| {
        format!("DROP CONSTRAINT \"{}\", ", name.replace('"', "\"\""))
    });
    c.batch_execute(&format!(
        "ALTER TABLE hub_bits {drop}ADD PRIMARY KEY (term, block) INCLUDE (bits)"
    ))
}

/// The bitmaps of the hubs `terms` (read `whole` by [`each_bitmap`]; else none read yet, for
/// [`read_blocks`]).
pub(super) fn bitmaps(
    c: &mut impl GenericClient,
    terms: &[i64],
    whole: bool,
) -> Result<Vec<(i64, HubBits)>, postgres::Error> {
    if !whole {
        return Ok(terms.iter().map(|t| (*t, HubBits::by_block())).collect());
    }
    let mut out: Vec<(i64, HubBits)> = terms.iter().map(|t| (*t, HubBits::whole())).collect();
    each_bitmap(c, terms, |hub, bits| {
        if let Some((_, slot)) = out.iter_mut().find(|(t, _)| *t == hub) {
            *slot = bits;
        }
    })?;
    Ok(out)
}

/// Reads the blocks of `term`'s bitmap that `seqs` need and are not read yet, in one
/// statement: a walk tests a batch of the driving term's updates at a time (a statement a
/// block was a round trip to the server each: a walk that found no row over 76,671 updates of
/// a template read 2,442 blocks, 213 ms warm at 10 M updates). Sent with its parameters' types,
/// so parsed, planned and run in one round trip.
pub(super) fn read_blocks(
    c: &mut impl GenericClient,
    term: i64,
    bits: &mut HubBits,
    seqs: &[i64],
) -> Result<(), postgres::Error> {
    let mut blocks: Vec<i64> = seqs.iter().filter_map(|seq| bits.unread(*seq)).collect();
    if blocks.is_empty() {
        return Ok(());
    }
    blocks.sort_unstable();
    blocks.dedup();
    // A block the hub has no row for is none of its updates'.
    for block in &blocks {
        bits.none_in(*block);
    }
    use postgres::types::Type;
    for row in c.query_typed(
        "SELECT block, bits FROM hub_bits WHERE term = $1 AND block = ANY($2)",
        &[(&term, Type::INT8), (&blocks, Type::INT8_ARRAY)],
    )? {
        bits.insert(row.get(0), row.get(1));
    }
    Ok(())
}
