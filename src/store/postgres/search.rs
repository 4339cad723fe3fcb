//! Search and count: a query's terms resolved to term ids (prefixes matched in Rust, a batch
//! at a time), the rarest single-id term walking `keys` newest first.

use crate::model::index::query::{EventsValue, party_hinted, template_named};
use crate::store::hubs::{HubBits, id_list};
use crate::store::newest::{self, Head, Pos};

use super::{
    Client, Fail, GenericClient, HashMap, KeyKind, PgIndex, Query, SearchRow, StoreError, Term,
    closed, format_time_micros,
};

/// Most keys a prefix term may stand for (as on SQLite).
const MAX_PREFIX_MATCHES: usize = 100_000;
/// Rows read per step of a prefix walk (all of them match: the walk is bounded above; at most
/// 200 steps for the most a prefix may stand for).
const PREFIX_BATCH: i64 = 500;
/// Keys read by the first step of a walk tested in hubs' bitmaps (each step's blocks of the
/// bitmaps read in one statement); each next step as many as the rows found say the page
/// needs ([`next_batch`]), up to [`MAX_WALK_BATCH`], so a walk that finds few rows takes a
/// few round trips, not one a batch of 500.
const WALK_BATCH: i32 = 100;
/// Most keys a step of a walk reads.
const MAX_WALK_BATCH: i32 = 32_000;
/// Most keys (the driving term's count) a count tested in hubs' bitmaps reads as one array
/// (8 MB); a driver of more is read a row at a time.
const MAX_COUNT_ARRAY: i64 = 1_000_000;

/// What a query term stands for: terms (each with its count and newest key, read with it from
/// the terms' `(kind, value)` key), or (an update-id prefix) the updates' seqs.
enum TermSet {
    Terms(Vec<Head>),
    Seqs(Vec<i64>),
}

/// The columns of a term's head in `terms`, after its id and value.
const HEAD_COLUMNS: &str = "updates, last_migration, last_time, last_seq";

/// A term's head from a row of (id, value, [`HEAD_COLUMNS`]).
fn head_of(r: &postgres::Row) -> Head {
    let last: (Option<i64>, Option<i64>, Option<i64>) = (r.get(3), r.get(4), r.get(5));
    Head {
        id: r.get(0),
        n: r.get(2),
        last: match last {
            (Some(m), Some(t), Some(s)) => Some((m, t, s)),
            _ => None,
        },
    }
}

fn ids(heads: &[Head]) -> Vec<i64> {
    heads.iter().map(|h| h.id).collect()
}

/// The term ids standing for `term`, or an update-id prefix's seqs.
fn term_set(c: &mut impl GenericClient, shown: &str, term: &Term) -> Result<TermSet, Fail> {
    match term {
        Term::Exact(kind, value) => {
            let head = c
                .query_opt(
                    &format!(
                        "SELECT id, value, {HEAD_COLUMNS} FROM terms WHERE kind = $1 AND value = $2"
                    ),
                    &[
                        &kind.code(),
                        &super::term_values::stored(kind.code(), value),
                    ],
                )?
                .map(|r| head_of(&r));
            Ok(TermSet::Terms(head.into_iter().collect()))
        }
        Term::ContractPrefix(prefix) => {
            let mut ids = Vec::new();
            for head in &prefix.heads {
                let tail = |id: &str| prefix.tail_matches(head, id);
                walk_terms(c, shown, KeyKind::Contract, (head, &tail), &mut ids)?;
            }
            Ok(TermSet::Terms(ids))
        }
        // Every template id (a few hundred on a network, one per template and package
        // version), its name matched here.
        Term::TemplateName(name) => terms_walked(
            c,
            shown,
            KeyKind::Template,
            ("", &|id| template_named(id, name)),
        ),
        // The parties whose ids start with the hint, their hint matched here.
        Term::PartyHint(hint) => terms_walked(
            c,
            shown,
            KeyKind::Party,
            (hint, &|id| party_hinted(id, hint)),
        ),
        // Each choice by its whole name.
        Term::Choices(choices) => {
            let mut ids = Vec::new();
            for choice in choices {
                walk_terms(
                    c,
                    shown,
                    KeyKind::Choice,
                    (choice, &|value| value == choice),
                    &mut ids,
                )?;
            }
            Ok(TermSet::Terms(ids))
        }
        // The updates whose kept events have the column's value.
        Term::Events(term) => {
            let sql = crate::store::events_term_sql(term, '$');
            let (_, value) = term.column();
            let rows = match value {
                EventsValue::Text(v) => c.query(&sql, &[&v])?,
                EventsValue::Number(n) => c.query(&sql, &[&n])?,
            };
            Ok(TermSet::Seqs(rows.iter().map(|r| r.get(0)).collect()))
        }
        Term::UpdatePrefix(prefix) => {
            let mut seqs = Vec::new();
            for head in &prefix.heads {
                walk_prefix(
                    c,
                    shown,
                    (
                        "SELECT seq, update_id FROM updates WHERE $1::bigint IS NULL",
                        "update_id",
                    ),
                    None,
                    &|r| r.get(0),
                    (head, &|id| prefix.tail_matches(head, id)),
                    ((*head).clone(), prefix_end(head)),
                    &|r| {
                        let id: String = r.get(1);
                        (id.clone(), id)
                    },
                    &mut seqs,
                )?;
            }
            Ok(TermSet::Seqs(seqs))
        }
    }
}

/// The least string above every string starting with `prefix`, in byte order (the order of
/// a `COLLATE "C"` column): the prefix with its last character raised, those that cannot be
/// raised dropped; none when no character can be.
fn prefix_end(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let raised = (u32::from(last) + 1..=u32::from(char::MAX)).find_map(char::from_u32);
        if let Some(next) = raised {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// The ids of the terms of `kind` whose value starts with the prefix and passes `keep`.
/// The terms of `kind` [`walk_terms`] finds.
fn terms_walked(
    c: &mut impl GenericClient,
    shown: &str,
    kind: KeyKind,
    prefix_keep: (&str, &dyn Fn(&str) -> bool),
) -> Result<TermSet, Fail> {
    let mut heads = Vec::new();
    walk_terms(c, shown, kind, prefix_keep, &mut heads)?;
    Ok(TermSet::Terms(heads))
}

fn walk_terms(
    c: &mut impl GenericClient,
    shown: &str,
    kind: KeyKind,
    prefix_keep: (&str, &dyn Fn(&str) -> bool),
    out: &mut Vec<Head>,
) -> Result<(), Fail> {
    let code = kind.code();
    for range in super::term_values::prefix_ranges(code, prefix_keep.0) {
        walk_prefix(
            c,
            shown,
            (
                &format!("SELECT id, value, {HEAD_COLUMNS} FROM terms WHERE kind = $1"),
                "value",
            ),
            Some(code),
            &head_of,
            prefix_keep,
            range,
            &|r| {
                let value: Vec<u8> = r.get(1);
                let text = super::term_values::text(code, &value);
                (value, text)
            },
            out,
        )?;
    }
    Ok(())
}

/// Walks rows (id, value, …) in the order of the column `select.1` from `from` and below
/// `end` (a range in which every value's text starts with `prefix`: [`prefix_end`],
/// [`super::term_values::prefix_ranges`]), a batch at a time: `select.0` (ending in its WHERE
/// clause) bounded by the range, so a batch holds only matching rows (each row a heap read
/// when cold, unless the key includes the columns read: a batch of 1,000 rows read to find 70
/// took 150 ms at 1 M updates); of those, `make` of the rows whose text (`read`, with the
/// column's own value) `keep` passes.
#[allow(clippy::too_many_arguments)]
fn walk_prefix<T, B: postgres::types::ToSql + Sync>(
    c: &mut impl GenericClient,
    shown: &str,
    (select, column): (&str, &str),
    kind: Option<i64>,
    make: &dyn Fn(&postgres::Row) -> T,
    (prefix, keep): (&str, &dyn Fn(&str) -> bool),
    (from, end): (B, Option<B>),
    read: &dyn Fn(&postgres::Row) -> (B, String),
    out: &mut Vec<T>,
) -> Result<(), Fail> {
    let upper = if end.is_some() {
        format!(" AND {column} < $4")
    } else {
        String::new()
    };
    let first = format!("{select} AND {column} >= $2{upper} ORDER BY {column} LIMIT $3");
    let next = format!("{select} AND {column} > $2{upper} ORDER BY {column} LIMIT $3");
    let mut after: Option<B> = None;
    loop {
        let at = after.as_ref().unwrap_or(&from);
        let sql = if after.is_some() { &next } else { &first };
        let rows = match &end {
            Some(end) => c.query(sql.as_str(), &[&kind, at, &PREFIX_BATCH, end])?,
            None => c.query(sql.as_str(), &[&kind, at, &PREFIX_BATCH])?,
        };
        for row in &rows {
            let (value, text) = read(row);
            if !text.starts_with(prefix) {
                return Ok(());
            }
            if keep(&text) {
                out.push(make(row));
            }
            if out.len() > MAX_PREFIX_MATCHES {
                return Err(Fail::Store(StoreError::Engine {
                    path: shown.to_owned(),
                    detail: format!(
                        "the prefix {prefix:?} matches more than {MAX_PREFIX_MATCHES} ids: give a longer one"
                    ),
                }));
            }
            after = Some(value);
        }
        if (rows.len() as i64) < PREFIX_BATCH {
            return Ok(());
        }
    }
}

/// How a query runs. With a single-id term, the rarest such term drives it: its keys are
/// walked newest first through the key of `keys` (`k`, `keys_newest`), the other terms are probes of
/// the same key order. Otherwise the updates (`u`) are filtered.
struct Plan {
    drive: Option<i64>,
    /// How many updates the driving term has (its count kept at write time).
    drive_n: Option<i64>,
    /// The record-time range, over `k` when driven, else `u`.
    range: Vec<String>,
    /// The other terms, over `u`.
    others: Vec<String>,
    /// The single-id terms among the others, with the place of each in `others`.
    singles: Vec<(i64, usize)>,
    /// The other term of a query of two single-id terms.
    pair: Option<i64>,
    /// The terms of a query of one prefix of several contracts over the whole index, whose
    /// pages merge the terms' keys from each one's newest ([`newest::merge`]).
    merge: Option<Vec<Head>>,
}

impl Plan {
    /// The plan of a query (`None`: nothing can match).
    fn of(
        c: &mut impl GenericClient,
        shown: &str,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
    ) -> Result<Option<Plan>, Fail> {
        let mut sets = Vec::new();
        for term in &query.terms {
            let set = term_set(c, shown, term)?;
            match &set {
                TermSet::Terms(v) if v.is_empty() => return Ok(None),
                TermSet::Seqs(v) if v.is_empty() => return Ok(None),
                _ => sets.push(set),
            }
        }
        let heads: Vec<Head> = sets
            .iter()
            .filter_map(|s| match s {
                TermSet::Terms(heads) if heads.len() == 1 => Some(heads[0]),
                _ => None,
            })
            .collect();
        let singles = ids(&heads);
        // The rarest drives, by the counts read with the terms.
        let driver = heads.iter().min_by_key(|h| h.n);
        let (drive, drive_n) = (driver.map(|h| h.id), driver.map(|h| h.n));
        let at = if drive.is_some() { "k" } else { "u" };
        let mut range = Vec::new();
        if let Some(from) = from {
            range.push(format!("{at}.record_time >= {from}"));
        }
        if let Some(until) = until {
            range.push(format!("{at}.record_time <= {until}"));
        }
        // The ids are integers read from the index itself, written into the SQL as numbers.
        let mut others = Vec::new();
        let mut probes = Vec::new();
        let mut driven = false;
        for set in &sets {
            match set {
                TermSet::Terms(heads)
                    if !driven && heads.len() == 1 && Some(heads[0].id) == drive =>
                {
                    driven = true;
                }
                // Probed by the driving key's own columns (`k`), so the probe is one primary-key
                // look-up: by `u`'s, the planner hashes every key of the term instead.
                TermSet::Terms(heads) if heads.len() == 1 => {
                    probes.push((heads[0].id, others.len()));
                    others.push(format!(
                        "EXISTS (SELECT 1 FROM keys o WHERE o.term = {} AND o.migration_id = {at}.migration_id
                           AND o.record_time = {at}.record_time AND o.seq = {at}.seq)",
                        heads[0].id
                    ));
                }
                TermSet::Terms(heads) => others.push(format!(
                    "u.seq IN (SELECT o.seq FROM keys o WHERE o.term IN ({}))",
                    id_list(&ids(heads))
                )),
                TermSet::Seqs(seqs) => others.push(format!("u.seq IN ({})", id_list(seqs))),
            }
        }
        let merge = match (sets.as_slice(), range.is_empty()) {
            ([TermSet::Terms(heads)], true) if heads.len() > 1 => {
                let mut heads = heads.clone();
                heads.sort_unstable_by_key(|h| h.id);
                heads.dedup_by_key(|h| h.id);
                Some(heads)
            }
            _ => None,
        };
        let pair = match (sets.len(), singles.as_slice()) {
            (2, [x, y]) if Some(*x) == drive => Some(*y),
            (2, [x, _]) => Some(*x),
            _ => None,
        };
        Ok(Some(Plan {
            drive,
            drive_n,
            range,
            others,
            singles: probes,
            pair,
            merge,
        }))
    }

    /// Takes the other single-id terms that are hubs out of the plan (when a term drives it),
    /// with their bitmaps (read `whole`, or a block at a time): the caller tests the driving
    /// term's updates in them.
    fn take_hubs(
        &mut self,
        c: &mut impl GenericClient,
        whole: bool,
    ) -> Result<Vec<(i64, HubBits)>, Fail> {
        let mut hubs = Vec::new();
        if self.drive.is_none() {
            return Ok(hubs);
        }
        for (term, at) in std::mem::take(&mut self.singles).into_iter().rev() {
            if let Some(bits) = super::pairs::bits(c, term, whole)? {
                hubs.push((term, bits));
                self.others.remove(at);
            }
        }
        Ok(hubs)
    }

    /// The driving term's mark, when its keys are walked with no other term to test (its
    /// posting blocks then read after the keys a sync added since: [`super::key_blocks`]).
    fn mark(
        &self,
        c: &mut impl GenericClient,
        term: i64,
    ) -> Result<Option<super::key_blocks::Mark>, postgres::Error> {
        if self.others.is_empty() && self.drive_n.is_some_and(|n| n >= super::key_blocks::FROM) {
            super::key_blocks::mark(c, term)
        } else {
            Ok(None)
        }
    }

    /// The joins and conditions of a walk of the driving term's keys (`k`): `updates` (`u`)
    /// joined only when another term needs it.
    fn walk(&self, term: i64) -> String {
        let join = if self.others.is_empty() {
            ""
        } else {
            "JOIN updates u ON u.seq = k.seq"
        };
        format!(
            "keys k {join} WHERE k.term = {term} AND {}",
            self.conditions()
        )
    }

    fn conditions(&self) -> String {
        let all: Vec<&String> = self.range.iter().chain(&self.others).collect();
        if all.is_empty() {
            "TRUE".to_owned()
        } else {
            all.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" AND ")
        }
    }
}

pub(super) fn search_row(r: &postgres::Row) -> SearchRow {
    let parties: String = r.get(5);
    SearchRow {
        update_id: r.get(0),
        migration_id: r.get(1),
        record_time: format_time_micros(r.get(2)),
        kind: r.get(3),
        root_action: r.get(4),
        parties: serde_json::from_str(&parties).unwrap_or_default(),
    }
}

/// How many updates have any of `heads`' terms, each once: a term of one update with its
/// newest key known is that key; the others' keys are read, in one statement.
fn distinct_updates(c: &mut impl GenericClient, heads: &[Head]) -> Result<i64, postgres::Error> {
    let mut seqs = Vec::with_capacity(heads.len());
    let mut read = Vec::new();
    for head in heads {
        match head.last {
            Some((_, _, seq)) if head.n == 1 => seqs.push(seq),
            _ => read.push(head.id),
        }
    }
    if !read.is_empty() {
        for r in c.query("SELECT seq FROM keys WHERE term = ANY($1)", &[&read])? {
            seqs.push(r.get(0));
        }
    }
    seqs.sort_unstable();
    seqs.dedup();
    Ok(i64::try_from(seqs.len()).unwrap_or(i64::MAX))
}

/// The size of a walk's next batch, `wanted` rows still to find after `found` in the `read`
/// keys so far: as many keys as the rows found so far say hold the rows wanted, and half as
/// many again, at least [`WALK_BATCH`] and at most [`MAX_WALK_BATCH`] (a walk that found no
/// row reads the most: a template's 20,921 keys at 10 M updates took five batches growing
/// fourfold, a round trip and a read of the hubs' blocks each, 26 ms cold; two take 15).
fn next_batch(wanted: usize, found: usize, read: usize) -> i32 {
    let keys = match found {
        0 => usize::MAX,
        _ => (wanted.saturating_mul(read) / found).saturating_mul(3) / 2,
    };
    i32::try_from(keys)
        .unwrap_or(i32::MAX)
        .clamp(WALK_BATCH, MAX_WALK_BATCH)
}

/// The rows of the updates `seqs`, in that order.
fn rows_of(c: &mut impl GenericClient, seqs: &[i64]) -> Result<Vec<SearchRow>, postgres::Error> {
    let mut found: HashMap<i64, SearchRow> = c
        .query(
            "SELECT u.update_id, u.migration_id, u.record_time, u.kind, u.root_action, u.parties,
                    u.seq
             FROM updates u WHERE u.seq = ANY($1)",
            &[&seqs],
        )?
        .iter()
        .map(|r| (r.get(6), search_row(r)))
        .collect();
    Ok(seqs.iter().filter_map(|s| found.remove(s)).collect())
}

impl PgIndex {
    pub(super) fn search_rows(
        &mut self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
        limit: usize,
    ) -> Result<Vec<SearchRow>, StoreError> {
        let shown = self.target.shown.clone();
        let target = &self.target;
        let client = self.client.as_mut().ok_or_else(|| closed(target))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // One short read-only snapshot: the term look-ups and the rows see the same index.
        let run = |c: &mut Client| -> Result<Vec<SearchRow>, Fail> {
            let mut tx = super::snapshot(c)?;
            let Some(mut plan) = Plan::of(&mut tx, &shown, query, from, until)? else {
                return Ok(Vec::new());
            };
            if limit == 0 {
                return Ok(Vec::new());
            }
            let columns =
                "u.update_id, u.migration_id, u.record_time, u.kind, u.root_action, u.parties";
            // A prefix of several contracts over the whole index: their keys merged newest
            // first from each term's newest key, a term's keys read only when the page reaches
            // into them.
            if let Some(heads) = &plan.merge {
                let run = tx.prepare(
                    "SELECT migration_id, record_time, seq FROM keys
                     WHERE term = $1 AND (migration_id, record_time, seq) < ($2, $3, $4)
                     ORDER BY migration_id DESC, record_time DESC, seq DESC LIMIT $5",
                )?;
                let seqs = newest::merge(
                    heads,
                    usize::try_from(limit).unwrap_or(usize::MAX),
                    &mut |term, below: Pos, most| {
                        let most = i64::try_from(most).unwrap_or(i64::MAX);
                        Ok(tx
                            .query(&run, &[&term, &below.0, &below.1, &below.2, &most])?
                            .iter()
                            .map(|r| (r.get(0), r.get(1), r.get(2)))
                            .collect())
                    },
                    &mut |_| Ok::<bool, postgres::Error>(true),
                )?;
                let rows = rows_of(&mut tx, &seqs)?;
                tx.commit()?;
                return Ok(rows);
            }
            // Hubs among the other terms: the driving term's keys walked newest first, a batch
            // at a time, and tested in the hubs' bitmaps (the blocks a batch needs read with
            // it, in one statement) until the page is full.
            let mut bitmaps = plan.take_hubs(&mut tx, false)?;
            if let (Some(term), false) = (plan.drive, bitmaps.is_empty()) {
                // The walk portals, each batch the next rows of them: the term's keys after
                // its mark, then its posting blocks (no other term to test row by row).
                let mark = plan.mark(&mut tx, term)?;
                let mut walk = super::key_blocks::Walk::new(
                    &mut tx,
                    term,
                    &plan.walk(term),
                    mark,
                    (from, until),
                )?;
                let blocks = tx.prepare(super::pairs::READ_BLOCKS)?;
                let limit = usize::try_from(limit).unwrap_or(usize::MAX);
                let mut seqs: Vec<i64> = Vec::new();
                let (mut size, mut read) = (WALK_BATCH, 0usize);
                'walk: loop {
                    let batch = walk.next(&mut tx, size)?;
                    read += batch.len();
                    for (hub, bits) in &mut bitmaps {
                        super::pairs::read_blocks(&mut tx, &blocks, *hub, bits, &batch)?;
                    }
                    for seq in &batch {
                        if bitmaps.iter().all(|(_, bits)| bits.has(*seq)) {
                            seqs.push(*seq);
                            if seqs.len() >= limit {
                                break 'walk;
                            }
                        }
                    }
                    if batch.len() < size as usize {
                        break;
                    }
                    // Two frequent terms of which a first batch found no row: when no update
                    // has both (the count kept for the pair, over the whole index, is 0),
                    // none in any range, where the walk would read every update of the rarer
                    // one to find none. (Asked only then: a statement more, a round trip.)
                    if size == WALK_BATCH
                        && seqs.is_empty()
                        && let Some(other) = plan.pair
                        && super::pairs::count(&mut tx, term, other)? == Some(0)
                    {
                        break;
                    }
                    size = next_batch(limit - seqs.len(), seqs.len(), read);
                }
                let rows = rows_of(&mut tx, &seqs)?;
                tx.commit()?;
                return Ok(rows);
            }
            let sql = match plan.drive {
                Some(term) => format!(
                    "SELECT {columns} FROM keys k JOIN updates u ON u.seq = k.seq
                     WHERE k.term = {term} AND {}
                     ORDER BY k.migration_id DESC, k.record_time DESC, k.seq DESC LIMIT {limit}",
                    plan.conditions()
                ),
                None => format!(
                    "SELECT {columns} FROM updates u WHERE {}
                     ORDER BY u.migration_id DESC, u.record_time DESC, u.seq DESC LIMIT {limit}",
                    plan.conditions()
                ),
            };
            let rows = tx.query(&sql, &[])?.iter().map(search_row).collect();
            tx.commit()?;
            Ok(rows)
        };
        run(client).map_err(|f| target.fail(f))
    }

    pub(super) fn count_rows(
        &mut self,
        query: &Query,
        from: Option<i64>,
        until: Option<i64>,
    ) -> Result<u64, StoreError> {
        let shown = self.target.shown.clone();
        let target = &self.target;
        let client = self.client.as_mut().ok_or_else(|| closed(target))?;
        let run = |c: &mut Client| -> Result<i64, Fail> {
            let mut tx = super::snapshot(c)?;
            let Some(mut plan) = Plan::of(&mut tx, &shown, query, from, until)? else {
                return Ok(0);
            };
            // Two frequent terms: the count kept for the pair over the whole index; when no
            // update has both, none in any range either.
            if let (Some(term), Some(other)) = (plan.drive, plan.pair)
                && let Some(n) = super::pairs::count(&mut tx, term, other)?
                && (plan.range.is_empty() || n == 0)
            {
                tx.commit()?;
                return Ok(n);
            }
            // One term over the whole index: its count kept at write time, read with it.
            if let (None, Some(n), true) = (
                &plan.merge,
                plan.drive_n,
                plan.range.is_empty() && plan.others.is_empty(),
            ) {
                tx.commit()?;
                return Ok(n);
            }
            // A prefix of several contracts over the whole index: a term of one update is its
            // newest key, read with the term, so only the others' keys are read (one cold
            // read a term; a contract on a network is mostly in one or two updates).
            if let Some(heads) = &plan.merge
                && heads.iter().any(|h| h.n == 1 && h.last.is_some())
            {
                let n = distinct_updates(&mut tx, heads)?;
                tx.commit()?;
                return Ok(n);
            }
            // Hubs among the other terms: the driver's updates tested in their bitmaps, not
            // probed.
            let bitmaps = plan.take_hubs(&mut tx, true)?;
            if let (Some(term), false) = (plan.drive, bitmaps.is_empty()) {
                let has = |seq: i64| bitmaps.iter().all(|(_, b)| b.has(seq));
                let mut n: i64 = 0;
                if let Some(mark) = plan.mark(&mut tx, term)? {
                    // The keys after the term's mark, then its posting blocks.
                    n = super::key_blocks::count(
                        &mut tx,
                        term,
                        &plan.walk(term),
                        &mark,
                        (from, until),
                        &has,
                    )?;
                } else if plan.drive_n.is_some_and(|n| n <= MAX_COUNT_ARRAY) {
                    // The driver's seqs in one array: a row each cost the client more than
                    // the server's scan of them.
                    let sql = format!("SELECT array_agg(k.seq) FROM {}", plan.walk(term));
                    let seqs: Option<Vec<i64>> = tx.query_one(&sql, &[])?.get(0);
                    n = seqs
                        .unwrap_or_default()
                        .into_iter()
                        .map(|s| i64::from(has(s)))
                        .sum();
                } else {
                    // More than an array should hold (the server's arrays end at 1 GB): a row
                    // at a time.
                    use postgres::fallible_iterator::FallibleIterator;
                    let sql = format!("SELECT k.seq FROM {}", plan.walk(term));
                    let mut rows = tx.query_raw(&sql, std::iter::empty::<i64>())?;
                    while let Some(row) = rows.next()? {
                        n += i64::from(has(row.get(0)));
                    }
                }
                tx.commit()?;
                return Ok(n);
            }
            let sql = match (&plan.merge, plan.drive) {
                // A prefix of several contracts over the whole index: the distinct updates of
                // their keys, each term's read by the keys' key (testing every update
                // against them took 3-14 s at 10 M updates for 698 contracts: 0.1 s cold).
                (Some(heads), _) => format!(
                    "SELECT count(DISTINCT k.seq) FROM keys k WHERE k.term IN ({})",
                    id_list(&ids(heads))
                ),
                (None, Some(term)) if plan.others.is_empty() => format!(
                    "SELECT count(*) FROM keys k WHERE k.term = {term} AND {}",
                    plan.conditions()
                ),
                (None, Some(term)) => format!(
                    "SELECT count(*) FROM keys k JOIN updates u ON u.seq = k.seq
                     WHERE k.term = {term} AND {}",
                    plan.conditions()
                ),
                (None, None) => {
                    format!("SELECT count(*) FROM updates u WHERE {}", plan.conditions())
                }
            };
            let n: i64 = tx.query_one(&sql, &[])?.get(0);
            tx.commit()?;
            Ok(n)
        };
        run(client)
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(|f| target.fail(f))
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_WALK_BATCH, WALK_BATCH, next_batch, prefix_end};

    #[test]
    fn a_walk_reads_next_the_keys_its_rows_so_far_say_the_page_needs() {
        // No row in the first batch: the most a batch reads, not four times as many.
        assert_eq!(next_batch(100, 0, 100), MAX_WALK_BATCH);
        // One row in 100 and 99 wanted: about 9,900 keys, and half as many again.
        assert_eq!(next_batch(99, 1, 100), 14_850);
        // Dense rows: never fewer than the first batch.
        assert_eq!(next_batch(40, 60, 100), WALK_BATCH);
        assert_eq!(next_batch(1, 99, 100), WALK_BATCH);
        // Sparse over many keys read: at most the most.
        assert_eq!(next_batch(99, 1, 1_000_000), MAX_WALK_BATCH);
        // The most a page may ask for (`--limit`), one row found: no overflow.
        assert_eq!(next_batch(usize::MAX, 1, 100), MAX_WALK_BATCH);
    }

    #[test]
    fn a_prefix_ends_before_the_first_string_not_starting_with_it() {
        assert_eq!(prefix_end("00ab").as_deref(), Some("00ac"));
        assert_eq!(prefix_end("1220f").as_deref(), Some("1220g"));
        // A character that cannot be raised is dropped, the one before raised.
        assert_eq!(prefix_end("a\u{10FFFF}").as_deref(), Some("b"));
        // Past the surrogates, as byte order has them.
        assert_eq!(prefix_end("\u{D7FF}").as_deref(), Some("\u{E000}"));
        assert_eq!(prefix_end("\u{10FFFF}"), None);
        assert_eq!(prefix_end(""), None);
        for prefix in ["00ab", "1220f", "a\u{10FFFF}", "\u{D7FF}"] {
            let end = prefix_end(prefix).expect("an end");
            for text in [
                prefix.to_owned(),
                format!("{prefix}ff"),
                format!("{prefix}\u{10FFFF}"),
            ] {
                assert!(text.as_bytes() < end.as_bytes(), "{text:?} < {end:?}");
            }
            assert!(!end.starts_with(prefix));
        }
    }
}
