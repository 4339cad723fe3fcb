//! A query's plan: its terms resolved to term ids (prefixes matched in Rust, a batch at a
//! time), the rarest single-id term driving it, and what the walks need of the index read
//! with them.

use crate::model::index::query::{EventsValue, party_hinted, template_named};
use crate::store::hubs::{self, HubBits, id_list};
use crate::store::newest::{Head, Pos};

use super::super::{Fail, GenericClient, KeyKind, Query, StoreError, Term, key_blocks, pairs};

/// Most keys a prefix term may stand for (as on SQLite).
const MAX_PREFIX_MATCHES: usize = 100_000;
/// Rows read per step of a prefix walk (all of them match: the walk is bounded above; at most
/// 200 steps for the most a prefix may stand for).
const PREFIX_BATCH: i64 = 500;

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

pub(super) fn ids(heads: &[Head]) -> Vec<i64> {
    heads.iter().map(|h| h.id).collect()
}

/// The term ids standing for `term`, or an update-id prefix's seqs.
fn term_set(c: &mut impl GenericClient, shown: &str, term: &Term) -> Result<TermSet, Fail> {
    match term {
        Term::Exact(kind, value) => {
            // Sent with its parameters' types: parsed, planned and run in one round trip.
            use postgres::types::Type;
            let head = c
                .query_typed_opt(
                    &format!(
                        "SELECT id, value, {HEAD_COLUMNS} FROM terms WHERE kind = $1 AND value = $2"
                    ),
                    &[
                        (&kind.code(), Type::INT8),
                        (
                            &super::super::term_values::stored(kind.code(), value),
                            Type::BYTEA,
                        ),
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
    for range in super::super::term_values::prefix_ranges(code, prefix_keep.0) {
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
                let text = super::super::term_values::text(code, &value);
                (value, text)
            },
            out,
        )?;
    }
    Ok(())
}

/// Walks rows (id, value, …) in the order of the column `select.1` from `from` and below
/// `end` (a range in which every value's text starts with `prefix`: [`prefix_end`],
/// [`super::super::term_values::prefix_ranges`]), a batch at a time: `select.0` (ending in its WHERE
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

/// What a plan is for: its facts ([`Facts`]) are read for a count or a page of rows, and not
/// for a page of none (`--limit 0`), which only looks the terms up.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum For {
    Count,
    Rows,
    NoRows,
}

/// How a query runs. With a single-id term, the rarest such term drives it: its keys are
/// walked newest first through the key of `keys` (`k`, `keys_newest`), the other terms are probes of
/// the same key order. Otherwise the updates (`u`) are filtered.
pub(super) struct Plan {
    pub(super) drive: Option<i64>,
    /// How many updates the driving term has (its count kept at write time).
    pub(super) drive_n: Option<i64>,
    /// The driving term's newest key, when known (kept at write time: no key of the term is
    /// later).
    drive_last: Option<Pos>,
    /// The record-time range, over `k` when driven, else `u`.
    pub(super) range: Vec<String>,
    /// The other terms, over `u`.
    pub(super) others: Vec<String>,
    /// The single-id terms among the others, with the place of each in `others`.
    singles: Vec<(i64, usize)>,
    /// The other term of a query of two single-id terms.
    pub(super) pair: Option<i64>,
    /// The terms of a query of one prefix of several contracts over the whole index, whose
    /// pages merge the terms' keys from each one's newest ([`crate::store::newest::merge`]).
    pub(super) merge: Option<Vec<Head>>,
    /// What the walks need of the index beyond the terms ([`Facts`]), read with one statement
    /// when a term drives and another single-id term is to be tested.
    facts: Facts,
}

/// What a driven query's walks need of the index beyond its terms, read in one statement
/// ([`facts_sql`]) after them: which single-id terms are hubs, the count kept for the pair of
/// two, the driving term's mark. (A statement each took a parse, a plan and two round trips
/// on a server just started.)
#[derive(Default)]
struct Facts {
    /// The single-id terms (the driving one's too) that are hubs.
    hubs: Vec<i64>,
    /// The count kept for the pair's two terms (`None`: no row, so none when both are hubs).
    pair_n: Option<i64>,
    /// The driving term's mark, when read.
    mark: Marked,
}

/// Whether a plan's driving term's mark was read, and what it is (`None`: the term has no
/// blocks).
#[derive(Default, Clone, Copy)]
enum Marked {
    #[default]
    Unread,
    Read(Option<key_blocks::Mark>),
}

/// The statement of [`Facts`]: `$1` the single-id terms, `$2` and `$3` the pair (ordered, or
/// nulls); `with_mark`, also `$4`'s mark and `$5` the pruned time's key.
fn facts_sql(with_mark: bool) -> String {
    let hubs = "SELECT ARRAY(SELECT term FROM hubs WHERE term = ANY($1)),
                (SELECT n FROM pairs WHERE a = $2 AND b = $3)";
    if !with_mark {
        return hubs.to_owned();
    }
    format!(
        "{hubs}, (SELECT value FROM meta WHERE key = $5)::int8, {}
         FROM (VALUES (0)) AS one (x) LEFT JOIN key_marks m ON m.term = $4 {}",
        key_blocks::MARK_COLUMNS,
        key_blocks::MARK_JOIN
    )
}

impl Plan {
    /// The plan of a query (`None`: nothing can match) in the record-time range `from..=until`,
    /// for what `purpose` says.
    pub(super) fn of(
        c: &mut impl GenericClient,
        shown: &str,
        query: &Query,
        (from, until): (Option<i64>, Option<i64>),
        purpose: For,
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
        let drive_last = driver.and_then(|h| h.last);
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
        let mut plan = Plan {
            drive,
            drive_n,
            drive_last,
            range,
            others,
            singles: probes,
            pair,
            merge,
            facts: Facts::default(),
        };
        if let (Some(drive), false, true) =
            (plan.drive, plan.singles.is_empty(), purpose != For::NoRows)
        {
            plan.facts = plan.read_facts(c, drive, &singles, purpose == For::Count)?;
        }
        Ok(Some(plan))
    }

    /// The [`Facts`] of a plan driven by `drive` with the single-id terms `singles`, for a
    /// `count` or a search.
    fn read_facts(
        &self,
        c: &mut impl GenericClient,
        drive: i64,
        singles: &[i64],
        count: bool,
    ) -> Result<Facts, postgres::Error> {
        use postgres::types::Type;
        let (a, b) = self
            .pair
            .and_then(|other| crate::store::hubs::pair_of(drive, other))
            .unzip();
        // The mark is of use when every other term may be a hub (each tested in its bitmap),
        // but not to a count over the whole index of two hubs (the pair's count answers it):
        // not read with the others when the driving term is frequent enough to be one.
        let marked = self.others.len() == self.singles.len()
            && self.drive_n.is_some_and(|n| n >= key_blocks::FROM);
        let pair_answers = count
            && self.range.is_empty()
            && self.pair.is_some()
            && self.drive_n.is_some_and(|n| n >= hubs::DEFAULT_THRESHOLD);
        let with_mark = marked && !pair_answers;
        let mut params: Vec<(&(dyn postgres::types::ToSql + Sync), Type)> = vec![
            (&singles, Type::INT8_ARRAY),
            (&a, Type::INT8),
            (&b, Type::INT8),
        ];
        if with_mark {
            params.push((&drive, Type::INT8));
            params.push((&key_blocks::PRUNED_KEY, Type::TEXT));
        }
        let row = c.query_typed_one(&facts_sql(with_mark), &params)?;
        Ok(Facts {
            hubs: row.get(0),
            pair_n: row.get(1),
            mark: if with_mark {
                Marked::Read(key_blocks::mark_of(&row, 3, row.get(2)))
            } else {
                Marked::Unread
            },
        })
    }

    /// The count kept for the query's two single-id terms over the whole index, when both are
    /// hubs (`None`: they are not, or they are one term given twice).
    pub(super) fn pair_count(&self) -> Option<i64> {
        let (drive, other) = (self.drive?, self.pair?);
        hubs::pair_of(drive, other)?;
        let hub = |t| self.facts.hubs.contains(&t);
        (hub(drive) && hub(other)).then_some(self.facts.pair_n.unwrap_or(0))
    }

    /// Takes the other single-id terms that are hubs out of the plan (when a term drives it),
    /// with their bitmaps (read `whole`, all in one statement, or a block at a time as the
    /// walk needs them): the caller tests the driving term's updates in them.
    pub(super) fn take_hubs(
        &mut self,
        c: &mut impl GenericClient,
        whole: bool,
    ) -> Result<Vec<(i64, HubBits)>, Fail> {
        let mut hubs = Vec::new();
        if self.drive.is_none() {
            return Ok(Vec::new());
        }
        for (term, at) in std::mem::take(&mut self.singles).into_iter().rev() {
            if self.facts.hubs.contains(&term) {
                hubs.push(term);
                self.others.remove(at);
            }
        }
        // A term given twice is tested once.
        hubs.sort_unstable();
        hubs.dedup();
        Ok(pairs::bitmaps(c, &hubs, whole)?)
    }

    /// The driving term's mark, when its keys are walked with no other term to test (its
    /// posting blocks then read after the keys a sync added since: [`key_blocks`]).
    pub(super) fn mark(
        &mut self,
        c: &mut impl GenericClient,
    ) -> Result<Option<key_blocks::Mark>, postgres::Error> {
        let (Some(drive), true) = (self.drive, self.others.is_empty()) else {
            return Ok(None);
        };
        if self.drive_n.is_none_or(|n| n < key_blocks::FROM) {
            return Ok(None);
        }
        if let Marked::Read(mark) = self.facts.mark {
            return Ok(mark);
        }
        let mark = key_blocks::mark(c, drive)?;
        self.facts.mark = Marked::Read(mark);
        Ok(mark)
    }

    /// Whether the driving term may have keys after its mark in `keys` (a page wrote them
    /// since the blocks were made): not when its newest key, read with the term, is at or
    /// before the mark, so a walk reads no page of `keys` to find none (four pages cold at 10 M
    /// updates).
    pub(super) fn keys_after(&self, mark: &key_blocks::Mark) -> bool {
        self.drive_last.is_none_or(|last| last > mark.at)
    }

    /// The joins and conditions of a walk of the driving term's keys (`k`): `updates` (`u`)
    /// joined only when another term needs it.
    pub(super) fn walk(&self, term: i64) -> String {
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

    pub(super) fn conditions(&self) -> String {
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

#[cfg(test)]
mod tests {
    use super::prefix_end;

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
