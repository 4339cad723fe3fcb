//! A page's search terms grouped once, before the one writer: each distinct (kind, value) of
//! the page's rows in the terms table's order, and which of them each row has. The sync makes
//! pages on every core while one writer commits them; grouping the page's keys by hashing
//! their text was 3–4 µs of the writer's 35–45 an update, spent while the other core waited.
//! The writer now counts a term's updates and finds its id by number.

use std::collections::HashMap;

use super::IndexRow;

/// The distinct search terms of a page's rows, sorted as the terms table keeps them (kind,
/// then value by bytes), and for each row the terms it has.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageTerms {
    /// (kind code, row, key): the term is `rows[row].keys[key]`, its first occurrence.
    terms: Vec<(i64, u32, u32)>,
    /// Row `i`'s terms are `of_rows[starts[i]..starts[i + 1]]`, indices in `terms`.
    starts: Vec<u32>,
    of_rows: Vec<u32>,
}

impl PageTerms {
    /// The terms of `rows` (a row's keys are distinct, as [`super::keys_of`] makes them).
    pub fn of(rows: &[IndexRow]) -> PageTerms {
        let mut first: HashMap<(i64, &str), u32, foldhash::fast::RandomState> = HashMap::default();
        let mut terms: Vec<(i64, u32, u32)> = Vec::new();
        let mut starts = Vec::with_capacity(rows.len() + 1);
        let mut of_rows = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            starts.push(of_rows.len() as u32);
            for (k, (kind, value)) in row.keys.iter().enumerate() {
                let next = terms.len() as u32;
                let at = *first.entry((kind.code(), value.as_str())).or_insert(next);
                if at == next {
                    terms.push((kind.code(), r as u32, k as u32));
                }
                of_rows.push(at);
            }
        }
        starts.push(of_rows.len() as u32);
        // In the table's order; each row's indices renumbered to match.
        let text =
            |&(kind, r, k): &(i64, u32, u32)| (kind, rows[r as usize].keys[k as usize].1.as_str());
        let mut order: Vec<u32> = (0..terms.len() as u32).collect();
        order.sort_unstable_by(|a, b| text(&terms[*a as usize]).cmp(&text(&terms[*b as usize])));
        let mut place = vec![0u32; terms.len()];
        for (to, from) in order.iter().enumerate() {
            place[*from as usize] = to as u32;
        }
        for t in &mut of_rows {
            *t = place[*t as usize];
        }
        let terms = order.iter().map(|i| terms[*i as usize]).collect();
        PageTerms {
            terms,
            starts,
            of_rows,
        }
    }

    /// How many distinct terms.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Term `i` (kind code, value), read from `rows`, the rows it was made of.
    pub fn term<'r>(&self, rows: &'r [IndexRow], i: usize) -> (i64, &'r str) {
        let (kind, r, k) = self.terms[i];
        (kind, rows[r as usize].keys[k as usize].1.as_str())
    }

    /// The indices of row `row`'s terms.
    pub fn of_row(&self, row: usize) -> &[u32] {
        let (from, to) = (self.starts[row], self.starts[row + 1]);
        &self.of_rows[from as usize..to as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::index::KeyKind;

    fn row(keys: &[(KeyKind, &str)]) -> IndexRow {
        let mut keys: Vec<(KeyKind, String)> =
            keys.iter().map(|(k, v)| (*k, (*v).to_owned())).collect();
        keys.sort();
        IndexRow {
            update_id: String::new(),
            migration_id: 0,
            record_time: 0,
            kind: String::new(),
            root_action: String::new(),
            parties: Vec::new(),
            keys,
            digest: [0; 32],
            body: None,
        }
    }

    #[test]
    fn a_pages_terms_are_distinct_in_the_tables_order_and_each_row_finds_its_own() {
        let rows = vec![
            row(&[
                (KeyKind::Party, "dso"),
                (KeyKind::Contract, "00bb"),
                (KeyKind::Template, "T"),
            ]),
            row(&[
                (KeyKind::Party, "dso"),
                (KeyKind::Contract, "00aa"),
                (KeyKind::Party, "alice"),
            ]),
            row(&[]),
            row(&[(KeyKind::Contract, "00bb"), (KeyKind::Party, "Dso")]),
        ];
        let terms = PageTerms::of(&rows);
        let all: Vec<(i64, &str)> = (0..terms.len()).map(|i| terms.term(&rows, i)).collect();
        // What the table's (kind, value) order is, byte order within a kind.
        let mut expected: Vec<(i64, &str)> = rows
            .iter()
            .flat_map(|r| r.keys.iter().map(|(k, v)| (k.code(), v.as_str())))
            .collect();
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(all, expected);
        for (i, row) in rows.iter().enumerate() {
            let found: Vec<(i64, &str)> = terms
                .of_row(i)
                .iter()
                .map(|t| terms.term(&rows, *t as usize))
                .collect();
            let own: Vec<(i64, &str)> = row
                .keys
                .iter()
                .map(|(k, v)| (k.code(), v.as_str()))
                .collect();
            assert_eq!(found, own, "row {i}");
        }
        assert!(terms.of_row(2).is_empty());
        assert!(PageTerms::of(&[]).is_empty());
    }
}
