//! Exact decimal amounts: Daml numerics arrive as text (`"4195.0000000000"`); [`Amount`] parses
//! them without floats, sums them without rounding (a sum that does not fit fails instead) and
//! writes them grouped by thousands with a chosen number of decimals, so an amount column reads
//! with its decimal points aligned:
//!
//! ```text
//!     Amount
//!   4,195.00
//!     883.19
//!     122.19
//! ```
//!
//! Pure data: the table sort key and the column formatting live in `ui::table` / `ui::format`;
//! the grouping of digits is [`super::format::group_digits`].

use std::cmp::Ordering;

use super::format::group_digits;

/// Most fraction digits kept (Daml `Numeric 10` uses 10; some headroom for other servers).
pub const MAX_SCALE: u32 = 18;

/// An exact decimal number (`units / 10^scale`), for Daml decimals sent as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Amount {
    units: i128,
    scale: u32,
}

impl Amount {
    /// Zero.
    pub const ZERO: Amount = Amount { units: 0, scale: 0 };

    /// Parses `[-+]digits[.digits]` (surrounding spaces allowed). `None` for anything else,
    /// including exponents and more than 18 fraction digits.
    pub fn parse(s: &str) -> Option<Amount> {
        let s = s.trim();
        let (neg, body) = match s.as_bytes().first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        let (int, frac) = body.split_once('.').unwrap_or((body, ""));
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let scale = u32::try_from(frac.len()).ok().filter(|s| *s <= MAX_SCALE)?;
        let mut units: i128 = 0;
        for b in int.bytes().chain(frac.bytes()) {
            units = units.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
        }
        Some(Amount {
            units: if neg { -units } else { units },
            scale,
        })
    }

    /// `units / 10^scale` (a scale beyond [`MAX_SCALE`] is capped there, dividing the units).
    pub fn from_units(units: i128, scale: u32) -> Amount {
        let mut a = Amount { units, scale };
        while a.scale > MAX_SCALE {
            a.units /= 10;
            a.scale -= 1;
        }
        a
    }

    /// The value as `units / 10^scale`.
    pub fn units(self) -> i128 {
        self.units
    }

    /// The number of fraction digits of [`Amount::units`].
    pub fn scale(self) -> u32 {
        self.scale
    }

    fn rescaled(self, scale: u32) -> Option<i128> {
        let factor = 10i128.checked_pow(scale.checked_sub(self.scale)?)?;
        self.units.checked_mul(factor)
    }

    /// The exact sum, or `None` when it does not fit.
    pub fn checked_add(self, other: Amount) -> Option<Amount> {
        let scale = self.scale.max(other.scale);
        let units = self.rescaled(scale)?.checked_add(other.rescaled(scale)?)?;
        Some(Amount { units, scale })
    }

    /// Whether the number is below zero.
    pub fn is_negative(self) -> bool {
        self.units < 0
    }

    /// The integer part (digits grouped by thousands, with sign) and the fraction digits without
    /// trailing zeros.
    pub fn parts(self) -> (String, String) {
        let digits = self.units.unsigned_abs().to_string();
        let scale = self.scale as usize;
        let padded = if digits.len() <= scale {
            format!("{}{digits}", "0".repeat(scale + 1 - digits.len()))
        } else {
            digits
        };
        let (int, frac) = padded.split_at(padded.len() - scale);
        let frac = frac.trim_end_matches('0').to_string();
        let mut grouped = group_digits(int);
        if self.units < 0 {
            grouped.insert(0, '-');
        }
        (grouped, frac)
    }

    /// The fraction digits the value needs (trailing zeros do not count).
    pub fn fraction_digits(self) -> usize {
        self.parts().1.len()
    }

    /// Grouped by thousands with exactly `decimals` fraction digits (`4,195.00`), padded with
    /// zeros; never rounded: a value that needs more digits keeps them.
    pub fn fixed(self, decimals: usize) -> String {
        let (int, frac) = self.parts();
        let decimals = decimals.max(frac.len());
        if decimals == 0 {
            int
        } else {
            format!("{int}.{frac:0<decimals$}")
        }
    }

    /// The exact value as plain text (`-1234.5`): no grouping, no trailing zeros.
    pub fn plain(self) -> String {
        let (int, frac) = self.parts();
        let int = int.replace(',', "");
        if frac.is_empty() {
            int
        } else {
            format!("{int}.{frac}")
        }
    }
}

impl PartialOrd for Amount {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Amount {
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_decimal((self.units, self.scale), (other.units, other.scale))
    }
}

/// Compares two exact decimals `(units, scale)` (`units / 10^scale`).
pub fn cmp_decimal(a: (i128, u32), b: (i128, u32)) -> Ordering {
    let scale = a.1.max(b.1);
    let rescaled = |(units, s): (i128, u32)| {
        10i128
            .checked_pow(scale - s)
            .and_then(|f| units.checked_mul(f))
    };
    if let (Some(x), Some(y)) = (rescaled(a), rescaled(b)) {
        x.cmp(&y)
    } else {
        // Out of range when rescaled: the integer parts decide.
        let int = |(units, s): (i128, u32)| 10i128.checked_pow(s).map_or(0, |f| units / f);
        int(a).cmp(&int(b))
    }
}

/// Sums amounts exactly; `None` when one is missing or the sum does not fit.
pub fn sum_amounts<'a>(items: impl IntoIterator<Item = Option<&'a Amount>>) -> Option<Amount> {
    items
        .into_iter()
        .try_fold(Amount::ZERO, |acc, a| acc.checked_add(*a?))
}

/// The decimals an amount column shows: the most any of its values needs.
pub fn column_decimals(values: &[Option<Amount>]) -> usize {
    values
        .iter()
        .flatten()
        .map(|a| a.fraction_digits())
        .max()
        .unwrap_or(0)
}

/// A decimal's text without its trailing zeros (`4195.0000000000` → `4195.0`); other text as
/// is.
pub fn trim_decimal(s: &str) -> String {
    match s.split_once('.') {
        Some((int, frac))
            if !int.is_empty()
                && int
                    .trim_start_matches('-')
                    .chars()
                    .all(|c| c.is_ascii_digit())
                && frac.chars().all(|c| c.is_ascii_digit()) =>
        {
            let frac = frac.trim_end_matches('0');
            format!("{int}.{}", if frac.is_empty() { "0" } else { frac })
        }
        _ => s.to_string(),
    }
}

/// One amount cell: the server's text and its exact value when it parses.
#[derive(Debug, Clone, PartialEq)]
pub struct AmountCell {
    pub raw: String,
    pub value: Option<Amount>,
}

impl AmountCell {
    /// A cell from the server's text.
    pub fn new(raw: &str) -> Self {
        AmountCell {
            raw: raw.to_string(),
            value: Amount::parse(raw),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_parse_sum_and_format_exactly() {
        let a = Amount::parse("1234567.1234567891").expect("a");
        let b = Amount::parse("0.0000000009").expect("b");
        let s = a.checked_add(b).expect("sum");
        assert_eq!(s.plain(), "1234567.12345679");
        assert_eq!(s.parts(), ("1,234,567".into(), "12345679".into()));
        assert_eq!(
            Amount::parse("-0.5").expect("neg").parts(),
            ("-0".into(), "5".into())
        );
        assert_eq!(Amount::parse("10").expect("int").plain(), "10");
        assert_eq!(Amount::parse(".5").expect("frac").plain(), "0.5");
        for bad in ["", "1e5", "abc", "1.2.3", "-", "NaN", "1,000"] {
            assert_eq!(Amount::parse(bad), None, "{bad:?}");
        }
        // 0.1 + 0.2 is 0.3 exactly (no floats).
        let x = Amount::parse("0.1")
            .and_then(|x| x.checked_add(Amount::parse("0.2")?))
            .expect("sum");
        assert_eq!(x.plain(), "0.3");
        assert!(Amount::parse("2").expect("2") > Amount::parse("1.9999999999").expect("1.99"));
        let big = Amount::parse(&"9".repeat(38)).expect("big");
        assert_eq!(big.checked_add(big), None);
    }

    #[test]
    fn fixed_decimals_pad_and_never_round() {
        let a = |s: &str| Amount::parse(s).expect("amount");
        let cases = [
            ("4195.0000000000", 3, "4,195.000"),
            ("883.19", 3, "883.190"),
            ("122.192", 3, "122.192"),
            // never rounded
            ("1.23456", 2, "1.23456"),
            ("-1234", 0, "-1,234"),
        ];
        for (input, decimals, want) in cases {
            assert_eq!(a(input).fixed(decimals), want, "{input} to {decimals}");
        }
        let col: Vec<Option<Amount>> = ["4195.0", "883.19", "x", "122.192"]
            .iter()
            .map(|s| Amount::parse(s))
            .collect();
        assert_eq!(column_decimals(&col), 3);
        assert_eq!(column_decimals(&[]), 0);
    }

    #[test]
    fn decimals_lose_trailing_zeros_only() {
        let cases = [
            ("4195.0000000000", "4195.0"),
            ("111.3900000000", "111.39"),
            ("-0.5", "-0.5"),
            ("12", "12"),
            ("1.2e3", "1.2e3"),
            (".50", ".50"),
        ];
        for (input, want) in cases {
            assert_eq!(trim_decimal(input), want, "{input:?}");
        }
    }
}
