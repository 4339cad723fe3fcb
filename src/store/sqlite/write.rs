//! The sync's writes: a page in one transaction with its chunk's cursor, and prune.

use super::hub_keys;
use super::pairs;
use super::{
    Chunk, HashMap, IndexRow, OptionalExtension, PageWrite, PageWritten, SqliteIndex, StoreError,
    Transaction, engine_error, params,
};
use crate::model::index::pack;
use crate::store::At;
use crate::store::newest::{BOTTOM, Pos};
use crate::store::write::{self, Pruned};
use std::collections::HashSet;

/// Rows per multi-row INSERT (a statement's fixed cost shared; SQLite takes up to 32,766
/// parameters a statement).
const UPDATES_PER_INSERT: usize = 50;
const KEYS_PER_INSERT: usize = 200;
const TERMS_PER_UPSERT: usize = 200;
const IDS_PER_SELECT: usize = 100;

const INSERT_UPDATE: &str = "INSERT INTO updates (seq, update_id, migration_id, record_time, action, party_set, digest, body, chunk) VALUES ";
/// The parameters of a row of [`INSERT_UPDATE`].
const UPDATE_COLUMNS: usize = 9;
const INSERT_TERM: &str =
    "INSERT INTO terms (kind, value, id, n, last_migration, last_time, last_seq) VALUES ";
/// A known term: its count raised, its newest key the later of its own and the page's (kept
/// unknown when unknown: its older keys may be later than the page's).
const UPSERT_TERM: &str = " ON CONFLICT (kind, value) DO UPDATE SET n = n + excluded.n,
    last_migration = CASE WHEN newer THEN excluded.last_migration ELSE terms.last_migration END,
    last_time = CASE WHEN newer THEN excluded.last_time ELSE terms.last_time END,
    last_seq = CASE WHEN newer THEN excluded.last_seq ELSE terms.last_seq END
    RETURNING kind, value, id, n";
const NEWER: &str = "(terms.last_seq IS NOT NULL AND (excluded.last_migration, excluded.last_time, excluded.last_seq) > (terms.last_migration, terms.last_time, terms.last_seq))";
const INSERT_KEY: &str = "INSERT INTO keys (term, migration_id, record_time, seq) VALUES ";

/// `head` and `rows` groups of `columns` parameters.
fn values_sql(head: &str, columns: usize, rows: usize) -> String {
    let group = format!("({})", vec!["?"; columns].join(","));
    format!("{head}{}", vec![group; rows].join(","))
}

/// A new update's row, its seq, the ids of its action and party set ([`super::row_sets`]), and
/// its body completed with its contracts' term ids when it names them
/// ([`crate::model::index::pack::with_contract_keys`]).
type NewRow<'r> = (&'r IndexRow, i64, (i64, i64), Option<Vec<u8>>);

/// Runs `statement` ([`INSERT_UPDATE`] of `rows.len()` rows) for `rows`.
fn insert_updates(
    statement: &mut rusqlite::CachedStatement<'_>,
    rows: &[NewRow<'_>],
    chunk: i64,
) -> rusqlite::Result<()> {
    for (i, (row, seq, (action, party_set), completed)) in rows.iter().enumerate() {
        let at = i * UPDATE_COLUMNS;
        statement.raw_bind_parameter(at + 1, seq)?;
        statement.raw_bind_parameter(at + 2, super::update_ids::stored(&row.update_id))?;
        statement.raw_bind_parameter(at + 3, row.migration_id)?;
        statement.raw_bind_parameter(at + 4, super::record_times::stored(row.record_time))?;
        statement.raw_bind_parameter(at + 5, action)?;
        statement.raw_bind_parameter(at + 6, party_set)?;
        statement.raw_bind_parameter(at + 7, row.digest.as_slice())?;
        match completed {
            Some(body) => statement.raw_bind_parameter(at + 8, body)?,
            None => statement.raw_bind_parameter(at + 8, &row.body)?,
        }
        statement.raw_bind_parameter(at + 9, chunk)?;
    }
    statement.raw_execute().map(|_| ())
}

/// Runs `statement` ([`INSERT_KEY`] of `keys.len()` rows) for `keys` (term, migration, record
/// time as kept, seq).
fn insert_keys(
    statement: &mut rusqlite::CachedStatement<'_>,
    keys: &[[i64; 4]],
) -> rusqlite::Result<()> {
    for (i, key) in keys.iter().enumerate() {
        for (j, value) in key.iter().enumerate() {
            statement.raw_bind_parameter(i * 4 + j + 1, value)?;
        }
    }
    statement.raw_execute().map(|_| ())
}

/// The update id and digest of each of `ids` ids bound that the index keeps, each found
/// through the heads' index ([`super::update_ids::is`]).
pub(super) fn stored_digests_sql(ids: usize) -> String {
    format!(
        "SELECT u.update_id, u.digest FROM (VALUES {}) AS v CROSS JOIN updates AS u ON {}",
        vec!["(?)"; ids].join(","),
        super::update_ids::is("u.update_id", "v.column1")
    )
}

/// The digests the index keeps of `rows`' update ids (those it has), looked up
/// [`IDS_PER_SELECT`] ids a statement: the last statement's list padded with its last id, so
/// one statement is prepared (a statement per update cost a step and a reset each).
fn stored_digests(
    tx: &Transaction<'_>,
    rows: &[&IndexRow],
) -> rusqlite::Result<HashMap<String, Vec<u8>, foldhash::fast::RandomState>> {
    let mut stored = HashMap::default();
    let mut select = tx.prepare_cached(&stored_digests_sql(IDS_PER_SELECT))?;
    for batch in rows.chunks(IDS_PER_SELECT) {
        for i in 0..IDS_PER_SELECT {
            let row = batch.get(i).or(batch.last()).copied();
            let id = row.map_or("", |r| r.update_id.as_str());
            select.raw_bind_parameter(i + 1, super::update_ids::stored(id))?;
        }
        let mut found = select.raw_query();
        while let Some(r) = found.next()? {
            stored.insert(super::update_ids::read(r, 0)?, r.get::<_, Vec<u8>>(1)?);
        }
    }
    Ok(stored)
}

/// Writes one page in `tx` (see [`IndexWriter::write_page`]): its new updates, the count of
/// each of their keys' terms (one statement per distinct key of the page), then their keys.
fn write_rows(
    tx: &Transaction<'_>,
    chunk: &Chunk,
    page: &PageWrite,
    rewritten: &mut Option<StoreError>,
) -> rusqlite::Result<PageWritten> {
    let rows = page.rows();
    let in_chunk = write::in_chunk(chunk, page);
    let in_chunk_rows: Vec<&IndexRow> = in_chunk.iter().map(|(_, row)| *row).collect();
    let mut stored = stored_digests(tx, &in_chunk_rows)?;
    let (fresh, mut written) = match write::decide(chunk, &in_chunk, &mut stored) {
        Ok(decided) => (
            decided.fresh,
            PageWritten {
                inserted: 0,
                known: decided.known,
            },
        ),
        Err(r) => {
            *rewritten = Some(r.into());
            return Ok(PageWritten::default());
        }
    };
    // The updates in statements of UPDATES_PER_INSERT rows (the rest one by one), their `seq`
    // given here: the next after the newest, as SQLite would have chosen.
    let first_seq: i64 =
        tx.query_row("SELECT coalesce(max(seq), 0) + 1 FROM updates", [], |r| {
            r.get(0)
        })?;
    // Of the page's terms (grouped before the writer, in the table's order), how many of its
    // new updates have each, and the newest of them (its record time as kept).
    let terms = &page.terms;
    let mut counts: Vec<(i64, Pos)> = vec![(0, BOTTOM); terms.len()];
    for (at, seq) in fresh.iter().zip(first_seq..) {
        let row = &rows[*at];
        let position = (
            row.migration_id,
            super::record_times::stored(row.record_time),
            seq,
        );
        for t in terms.of_row(*at) {
            let count = &mut counts[*t as usize];
            count.0 += 1;
            count.1 = count.1.max(position);
        }
    }
    // The terms the new updates have, in the table's order.
    let used: Vec<usize> = (0..terms.len()).filter(|t| counts[*t].0 > 0).collect();
    let mut ids: Vec<Option<i64>> = vec![None; terms.len()];
    if !used.is_empty() {
        let mut next: i64 = tx
            .query_row("SELECT value FROM meta WHERE key = 'next_term'", [], |r| {
                r.get::<_, String>(0)
            })
            .optional()?
            .and_then(|t| t.parse().ok())
            .unwrap_or(1);
        let first_new = next;
        // TERMS_PER_UPSERT a statement: a new term gets the id offered (its place in this
        // list after `first_new`), a known one its count raised and its own id returned (the
        // ids offered to known terms stay unused: gaps, never reused). Each term's id is found
        // by its (kind, value) in the sorted list as the upsert returns it (read in place);
        // a term without one would write keys of no term: an error, the page rolled back.
        let (mut hubs, threshold) = pairs::load(tx)?;
        let blocks_from = hub_keys::from(tx)?;
        let mut new_hubs: Vec<i64> = Vec::new();
        // The page's terms whose keys were in blocks before it ([`hub_keys::in_blocks`]), and
        // those whose keys move there with it.
        let mut in_blocks: HashSet<i64> = HashSet::new();
        let mut new_in_blocks: Vec<i64> = Vec::new();
        for (batch, first_id) in used
            .chunks(TERMS_PER_UPSERT)
            .zip((first_new..).step_by(TERMS_PER_UPSERT))
        {
            let mut upsert = tx.prepare_cached(&format!(
                "{}{}",
                values_sql(INSERT_TERM, 7, batch.len()),
                UPSERT_TERM.replace("newer", NEWER)
            ))?;
            for (i, t) in batch.iter().enumerate() {
                let (kind, value) = terms.term(rows, *t);
                let (n, last) = counts[*t];
                upsert.raw_bind_parameter(i * 7 + 1, kind)?;
                upsert.raw_bind_parameter(i * 7 + 2, super::term_values::stored(kind, value))?;
                upsert.raw_bind_parameter(i * 7 + 3, first_id + i as i64)?;
                upsert.raw_bind_parameter(i * 7 + 4, n)?;
                upsert.raw_bind_parameter(i * 7 + 5, last.0)?;
                upsert.raw_bind_parameter(i * 7 + 6, last.1)?;
                upsert.raw_bind_parameter(i * 7 + 7, last.2)?;
            }
            let mut returned = upsert.raw_query();
            let mut i = 0;
            while let Some(r) = returned.next()? {
                let kind = r.get::<_, i64>(0)?;
                let value = super::term_values::text(r.get_ref(1)?)?;
                let value = value.as_ref();
                let (id, n) = (r.get::<_, i64>(2)?, r.get::<_, i64>(3)?);
                let hub = hubs.contains(&id);
                if n >= threshold && !hub {
                    new_hubs.push(id);
                }
                // SQLite returns them in the order given (not a promise it makes: looked up
                // when not).
                let at = match batch.get(i) {
                    Some(t) if terms.term(rows, *t) == (kind, value) => Some(i),
                    _ => batch
                        .binary_search_by(|t| terms.term(rows, *t).cmp(&(kind, value)))
                        .ok(),
                };
                if let Some(at) = at {
                    ids[batch[at]] = Some(id);
                    let before = n - counts[batch[at]].0;
                    if hub_keys::in_blocks(before, hub, blocks_from) {
                        in_blocks.insert(id);
                    } else if hub_keys::in_blocks(n, n >= threshold, blocks_from) {
                        new_in_blocks.push(id);
                    }
                }
                i += 1;
                next = next.max(id + 1);
            }
        }
        if used.iter().any(|t| ids[*t].is_none()) {
            return Err(rusqlite::Error::QueryReturnedNoRows);
        }
        if next != first_new {
            tx.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('next_term', ?1)",
                [next.to_string()],
            )?;
        }
        // The keys sorted as the table keeps them (each term's run written in place), in
        // statements of KEYS_PER_INSERT rows.
        let mut keys: Vec<[i64; 4]> = Vec::new();
        let mut row_terms: Vec<(i64, Vec<i64>)> = Vec::with_capacity(fresh.len());
        for (at, seq) in fresh.iter().zip(first_seq..) {
            let row = &rows[*at];
            let of_row = terms.of_row(*at);
            let kept_time = super::record_times::stored(row.record_time);
            let mut own = Vec::with_capacity(of_row.len());
            for t in of_row {
                let term = ids[*t as usize].unwrap_or_default();
                keys.push([term, row.migration_id, kept_time, seq]);
                own.push(term);
            }
            row_terms.push((seq, own));
        }
        keys.sort_unstable();
        keys.dedup();
        // The keys of the terms kept in blocks into them ([`super::hub_keys`]), the others'
        // into `keys`.
        let (blocked, keys): (Vec<[i64; 4]>, Vec<[i64; 4]>) = keys
            .into_iter()
            .partition(|key| in_blocks.contains(&key[0]));
        for run in blocked.chunk_by(|a, b| a[0] == b[0] && a[1] == b[1]) {
            let at: Vec<Pos> = run.iter().map(|k| (k[1], k[2], k[3])).collect();
            hub_keys::add(tx, run[0][0], &at)?;
        }
        let full = keys.len() - keys.len() % KEYS_PER_INSERT;
        let mut many = tx.prepare_cached(&values_sql(INSERT_KEY, 4, KEYS_PER_INSERT))?;
        for batch in keys[..full].chunks(KEYS_PER_INSERT) {
            insert_keys(&mut many, batch)?;
        }
        let mut one = tx.prepare_cached(&values_sql(INSERT_KEY, 4, 1))?;
        for key in keys[full..].chunks(1) {
            insert_keys(&mut one, key)?;
        }
        // The terms that reached the count (or became hubs) have their keys moved into
        // blocks, this page's included.
        new_in_blocks.sort_unstable();
        new_in_blocks.dedup();
        for term in &new_in_blocks {
            hub_keys::take_in(tx, *term)?;
        }
        // The pairs and bits of the hubs the page's updates have; then the terms that reached
        // the threshold become hubs, their pairs and bits read from the keys (this page's
        // included).
        pairs::add_page(tx, &row_terms, &hubs)?;
        new_hubs.sort_unstable();
        new_hubs.dedup();
        pairs::promote(tx, &new_hubs, &mut hubs)?;
    }
    // The updates, after their terms: a body that names its contracts is given their ids and
    // keys, by which its readers find them in the terms' own order.
    let contract = crate::model::index::KeyKind::Contract.code();
    let mut sets = super::row_sets::RowSets::default();
    let new_rows = fresh
        .iter()
        .zip(first_seq..)
        .map(|(at, seq)| {
            let row = &rows[*at];
            let completed = match row.body.as_deref() {
                Some(body) if body.first() == Some(&pack::CONTRACTS_PENDING) => {
                    let contracts: Vec<(i64, pack::ContractKey)> = terms
                        .of_row(*at)
                        .iter()
                        .map(|t| (*t as usize, terms.term(rows, *t as usize)))
                        .filter(|(_, (kind, _))| *kind == contract)
                        .take(pack::MOST_CONTRACTS)
                        .map(|(t, (_, value))| {
                            (
                                ids[t].unwrap_or_default(),
                                super::term_values::contract_key(value),
                            )
                        })
                        .collect();
                    Some(pack::with_contract_keys(body, &contracts))
                }
                _ => None,
            };
            Ok((row, seq, sets.ids(tx, row)?, completed))
        })
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let full = new_rows.len() - new_rows.len() % UPDATES_PER_INSERT;
    let mut many = tx.prepare_cached(&values_sql(
        INSERT_UPDATE,
        UPDATE_COLUMNS,
        UPDATES_PER_INSERT,
    ))?;
    for batch in new_rows[..full].chunks(UPDATES_PER_INSERT) {
        insert_updates(&mut many, batch, chunk.id)?;
    }
    let mut one = tx.prepare_cached(&values_sql(INSERT_UPDATE, UPDATE_COLUMNS, 1))?;
    for row in new_rows[full..].chunks(1) {
        insert_updates(&mut one, row, chunk.id)?;
    }
    written.inserted = new_rows.len() as u64;
    tx.execute(
        "UPDATE chunks SET cursor_migration = ?2, cursor_time = ?3, page_start_migration = ?4,
                page_start_time = ?5, scans = ?6, updates = updates + ?7 WHERE id = ?1",
        params![
            chunk.id,
            page.cursor.migration_id,
            page.cursor.record_time,
            page.page_start.as_ref().map(|p| p.migration_id),
            page.page_start.as_ref().map(|p| p.record_time.clone()),
            write::merged_scans(chunk, page),
            written.inserted as i64,
        ],
    )?;
    Ok(written)
}

impl SqliteIndex {
    /// After a writing commit: the WAL copied into the file when it has grown
    /// ([`super::checkpoint`]).
    pub(super) fn after_commit(&self) -> Result<(), StoreError> {
        match &self.checkpointer {
            Some(c) => c.after_commit(&self.conn).map_err(|e| self.engine(&e)),
            None => Ok(()),
        }
    }

    pub(super) fn write_page_tx(
        &mut self,
        chunk: i64,
        page: &PageWrite,
    ) -> Result<PageWritten, StoreError> {
        let path = self.path.clone();
        let current = self
            .chunk_rows()?
            .into_iter()
            .find(|c| c.id == chunk)
            .ok_or_else(|| StoreError::Engine {
                path: path.display().to_string(),
                detail: format!("no chunk {chunk}"),
            })?;
        let tx = self
            .conn
            .transaction()
            .map_err(|e| engine_error(&path, &e))?;
        let mut rewritten = None;
        let written =
            write_rows(&tx, &current, page, &mut rewritten).map_err(|e| engine_error(&path, &e))?;
        if let Some(error) = rewritten {
            // Dropping the transaction rolls it back: nothing of the page is kept.
            drop(tx);
            return Err(error);
        }
        tx.commit().map_err(|e| engine_error(&path, &e))?;
        self.after_commit()?;
        Ok(written)
    }

    pub(super) fn prune_before(&mut self, before: i64) -> Result<u64, StoreError> {
        let path = self.path.clone();
        let chunks = self.chunk_rows()?;
        let tx = self
            .conn
            .transaction()
            .map_err(|e| engine_error(&path, &e))?;
        // The bound as the tables keep their times; the round and validator summaries and the
        // pairs take it as µs.
        let kept_before = super::record_times::stored(before);
        let run = || -> rusqlite::Result<u64> {
            // Nothing older: nothing to walk (the key tables are read whole below).
            let any: bool = tx.query_row(
                "SELECT EXISTS (SELECT 1 FROM updates WHERE record_time < ?1)",
                [kept_before],
                |r| r.get(0),
            )?;
            if !any {
                return Ok(0);
            }
            // Per chunk, the newest update removed: the chunk now starts after it.
            for chunk in &chunks {
                let newest: Option<(i64, i64)> = tx
                    .query_row(
                        "SELECT migration_id, record_time FROM updates
                         WHERE chunk = ?1 AND record_time < ?2
                         ORDER BY migration_id DESC, record_time DESC LIMIT 1",
                        params![chunk.id, kept_before],
                        |r| Ok((r.get(0)?, super::record_times::read(r, 1)?)),
                    )
                    .optional()?;
                let Some((migration, time)) = newest else {
                    continue;
                };
                match write::pruned_chunk(chunk, At::new(migration, time)) {
                    Pruned::Gone => {
                        tx.execute("DELETE FROM chunks WHERE id = ?1", [chunk.id])?;
                    }
                    Pruned::StartsAfter(migration, time) => {
                        tx.execute(
                            "UPDATE chunks SET start_migration = ?2, start_time = ?3 WHERE id = ?1",
                            params![chunk.id, migration, time],
                        )?;
                    }
                }
            }
            // Each term loses the keys of the updates removed; a term no update has goes. The
            // blocks are cut first, the hubs' pairs and bits lowered.
            let blocks_lost = pairs::prune(&tx, before)?;
            tx.execute_batch(
                "CREATE TEMP TABLE IF NOT EXISTS pruned (term INTEGER PRIMARY KEY, n INTEGER NOT NULL);
                 DELETE FROM pruned;",
            )?;
            tx.execute(
                "INSERT INTO pruned (term, n) SELECT term, count(*) FROM keys WHERE record_time < ?1 GROUP BY term",
                [kept_before],
            )?;
            let mut lost = tx.prepare_cached("INSERT INTO pruned (term, n) VALUES (?1, ?2)")?;
            for (term, n) in blocks_lost.iter().filter(|(_, n)| *n > 0) {
                lost.execute([term, n])?;
            }
            drop(lost);
            // The terms are found by their id only in a scan of the table (its index by id
            // went at schema 16): one scan takes each pruned term's key (kind and value), and
            // the statements below find them by it, not each with a scan of its own (a prune
            // of 1.4% of a 1 M index: 45.9 s with two scans a term with blocks, 6.7 s with
            // six scans in all).
            tx.execute_batch(
                "CREATE TEMP TABLE IF NOT EXISTS pruned_terms (id INTEGER PRIMARY KEY,
                    kind INTEGER NOT NULL, value NOT NULL, n INTEGER NOT NULL);
                 DELETE FROM pruned_terms;
                 INSERT INTO pruned_terms (id, kind, value, n)
                   SELECT t.id, t.kind, t.value, p.n FROM terms t JOIN pruned p ON p.term = t.id;",
            )?;
            tx.execute(
                "UPDATE terms SET n = terms.n - p.n FROM pruned_terms p
                   WHERE terms.kind = p.kind AND terms.value = p.value",
                [],
            )?;
            // A term that keeps updates keeps its newest key (read again: the removed ones may
            // have held it, and SQLite gives a removed seq to the next update written); a
            // term with blocks from them.
            tx.execute(
                "UPDATE terms SET (last_migration, last_time, last_seq) = (
                     SELECT k.migration_id, k.record_time, k.seq FROM keys k
                     WHERE k.term = terms.id AND k.record_time >= ?1
                     ORDER BY k.migration_id DESC, k.record_time DESC, k.seq DESC LIMIT 1)
                   FROM pruned_terms p
                   WHERE terms.kind = p.kind AND terms.value = p.value AND terms.n > 0",
                [kept_before],
            )?;
            // A term with blocks: its newest key from them, all written by one statement.
            let (hubs, _) = pairs::load(&tx)?;
            let blocks_from = hub_keys::from(&tx)?;
            tx.execute_batch(
                "CREATE TEMP TABLE IF NOT EXISTS pruned_newest (term INTEGER PRIMARY KEY,
                    migration_id INTEGER, record_time INTEGER, seq INTEGER);
                 DELETE FROM pruned_newest;",
            )?;
            let mut newest_of = tx.prepare_cached(
                "INSERT INTO pruned_newest (term, migration_id, record_time, seq)
                 VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (term, _) in blocks_lost.iter().filter(|(_, n)| *n > 0) {
                let top = (i64::MAX, i64::MAX, i64::MAX);
                let newest = hub_keys::below(&tx, *term, top, 1, hub_keys::Bounds::NONE)?;
                let newest = newest.first().copied();
                newest_of.execute(params![
                    term,
                    newest.map(|k| k.0),
                    newest.map(|k| k.1),
                    newest.map(|k| k.2)
                ])?;
            }
            drop(newest_of);
            tx.execute(
                "UPDATE terms SET (last_migration, last_time, last_seq) =
                     (q.migration_id, q.record_time, q.seq)
                   FROM pruned_newest q JOIN pruned_terms p ON p.id = q.term
                   WHERE terms.kind = p.kind AND terms.value = p.value AND terms.n > 0",
                [],
            )?;
            // Left under the count (and not a hub): its keys back to `keys`.
            let left: Vec<(i64, i64)> = tx
                .prepare(
                    "SELECT t.id, t.n FROM pruned_newest q JOIN pruned_terms p ON p.id = q.term
                     JOIN terms t ON t.kind = p.kind AND t.value = p.value WHERE t.n > 0",
                )?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?;
            for (term, n) in left {
                if !hub_keys::in_blocks(n, hubs.contains(&term), blocks_from) {
                    hub_keys::give_back(&tx, term)?;
                }
            }
            tx.execute_batch("DELETE FROM pruned_newest;")?;
            // The terms no update has any more (only a pruned one can have lost its last
            // update), each deleted by its key: not a scan of the whole table for them.
            let gone: Vec<(i64, i64, rusqlite::types::Value)> = tx
                .prepare(
                    "SELECT t.id, t.kind, t.value FROM pruned_terms p
                     JOIN terms t ON t.kind = p.kind AND t.value = p.value WHERE t.n <= 0",
                )?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<_>>()?;
            let mut delete =
                tx.prepare_cached("DELETE FROM terms WHERE kind = ?1 AND value = ?2")?;
            for (_, kind, value) in &gone {
                delete.execute(params![kind, value])?;
            }
            drop(delete);
            let gone: Vec<i64> = gone.into_iter().map(|(id, _, _)| id).collect();
            tx.execute_batch("DELETE FROM pruned; DELETE FROM pruned_terms;")?;
            // The round summary keeps its sums; the removed updates' marks go.
            super::rounds::prune(&tx, before)?;
            // The validators' table keeps its sums; the range is not counted again.
            super::validators::prune(&tx, before)?;
            pairs::forget_gone(&tx, &gone)?;
            tx.execute("DELETE FROM keys WHERE record_time < ?1", [kept_before])?;
            // The events go with their updates (a removed seq is given to the next update).
            tx.execute(
                "DELETE FROM events WHERE seq IN (SELECT seq FROM updates WHERE record_time < ?1)",
                [kept_before],
            )?;
            let removed =
                tx.execute("DELETE FROM updates WHERE record_time < ?1", [kept_before])?;
            super::validators::after_prune(&tx)?;
            Ok(removed as u64)
        };
        let removed = run().map_err(|e| engine_error(&path, &e))?;
        tx.commit().map_err(|e| engine_error(&path, &e))?;
        self.after_commit()?;
        Ok(removed)
    }
}
