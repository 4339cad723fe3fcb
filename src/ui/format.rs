//! How numbers, durations, times and ids read on screen: everything of [`crate::model::format`]
//! (re-exported here, so the panes name one module), the ages the network's matrix and the
//! scans' cards show ([`age_label`]), and the amount columns, whose server text is sanitized
//! for the terminal. Plain string functions (no theme, no buffer): the panes style
//! and sanitize what they return.

pub use crate::model::format::{
    Integer, fit_id, format_gap, group_thousands, human_bytes, human_duration, human_interval_ms,
    human_secs, human_span, human_uptime, parse_iso8601_duration, server_time, short_event_id,
};

use crate::model::amount::{Amount, AmountCell, column_decimals, trim_decimal};
use crate::ui::safe::sanitize;

/// Seconds of a µs age, for the network's matrix and the scans' cards (`0 s`, `42 s`, `5m 3s`;
/// `—` for none).
pub fn age_label(us: Option<i64>) -> String {
    match us {
        None => "—".to_owned(),
        Some(us) => {
            let s = us.max(0) / 1_000_000;
            if s < 120 {
                format!("{s} s")
            } else {
                human_secs(s)
            }
        }
    }
}

/// The texts of one amount column (for a right-aligned column): every value with the same
/// number of decimals, the most any of them needs (`4,195.000`, `883.190`, `122.192`), so the
/// decimal points line up; a value that does not parse shows its server text (`raws[i]`,
/// without trailing zeros, sanitized).
pub fn amount_column(values: &[Option<Amount>], raws: &[&str]) -> Vec<String> {
    amount_column_at(values, raws, column_decimals(values))
}

/// The texts of a table's amount columns (`(values, raws)` each, as [`amount_column`] takes
/// them): one number of decimals for the whole table, the most any value needs, so amounts read
/// alike across columns (Locked beside Unlocked).
pub fn amount_table(columns: &[(Vec<Option<Amount>>, Vec<&str>)]) -> Vec<Vec<String>> {
    let decimals = columns
        .iter()
        .map(|(values, _)| column_decimals(values))
        .max()
        .unwrap_or(0);
    columns
        .iter()
        .map(|(values, raws)| amount_column_at(values, raws, decimals))
        .collect()
}

fn amount_column_at(values: &[Option<Amount>], raws: &[&str], decimals: usize) -> Vec<String> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Some(a) => a.fixed(decimals),
            None => sanitize(&trim_decimal(raws.get(i).copied().unwrap_or("?"))).into_owned(),
        })
        .collect()
}

/// An amount in a table column: the server's text, its exact value, and the text drawn (the
/// column's decimals, set by [`fill_amount_column`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnAmount {
    pub cell: AmountCell,
    pub text: String,
}

impl ColumnAmount {
    /// An amount from the server's text (drawn as is until its column is filled).
    pub fn new(raw: &str) -> Self {
        ColumnAmount {
            cell: AmountCell::new(raw),
            text: sanitize(raw).into_owned(),
        }
    }
}

/// Writes the amounts of one column with [`amount_column`]; returns the texts (to fit the
/// column's width to them).
pub fn fill_amount_column<'a>(
    amounts: impl IntoIterator<Item = &'a mut ColumnAmount>,
) -> Vec<String> {
    let mut amounts: Vec<&mut ColumnAmount> = amounts.into_iter().collect();
    let values: Vec<Option<Amount>> = amounts.iter().map(|a| a.cell.value).collect();
    let raws: Vec<&str> = amounts.iter().map(|a| a.cell.raw.as_str()).collect();
    let texts = amount_column(&values, &raws);
    for (a, t) in amounts.iter_mut().zip(&texts) {
        a.text.clone_from(t);
    }
    texts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amount_columns_have_fixed_decimals() {
        let raws = ["4195.0000000000", "883.19", "122.192", "x\u{1b}[31m"];
        let vals: Vec<Option<Amount>> = raws.iter().map(|s| Amount::parse(s)).collect();
        let out = amount_column(&vals, &raws);
        assert_eq!(out[..3], ["4,195.000", "883.190", "122.192"]);
        assert!(!out[3].contains('\u{1b}'));
    }
}
