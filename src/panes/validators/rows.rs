//! The Validators table's rows and columns: a validator with its faucets' answer (and, over an
//! index, what the index kept of it), its liveness and bar, the columns and how each cell reads
//! and sorts.

use std::borrow::Cow;

use ratatui::style::Style;
use ratatui::text::Span;
use unicode_width::UnicodeWidthStr;

use crate::api::scan::ValidatorReceivedFaucets;
use crate::ui::table::{Cell, Column, Columns, SortKey, TableRow, Width};
use crate::ui::theme::Theme;

use super::kept::{self, KeptCol};

/// What an id the scan ignored is labelled.
pub const NOT_ONBOARDED: &str = "not an onboarded validator (ignored by the scan)";

/// Liveness at or above this share (with some missed rounds) is a warning, below it an error.
pub const LIVENESS_WARN: f64 = 0.9;

/// One row of the table: a validator, the faucets' answer for it (`None`: not answered yet)
/// and, over an index, what the index knows of it.
#[derive(Debug, Clone, PartialEq)]
pub struct PaneRow {
    pub faucets: Option<ValidatorRow>,
    pub kept: Option<crate::model::index::validators::ValidatorRow>,
    pub(super) id: String,
}

impl PaneRow {
    /// The validator party id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// A row of the faucets' answer alone.
    pub fn of(row: ValidatorRow) -> PaneRow {
        PaneRow {
            id: row.id().to_owned(),
            faucets: Some(row),
            kept: None,
        }
    }
}

/// The faucets' answer for one id: statistics, or an id the scan ignored.
#[derive(Debug, Clone, PartialEq)]
pub enum ValidatorRow {
    Stats(ValidatorReceivedFaucets),
    NotOnboarded(String),
}

impl ValidatorRow {
    /// The validator party id.
    pub fn id(&self) -> &str {
        match self {
            ValidatorRow::Stats(s) => &s.validator,
            ValidatorRow::NotOnboarded(id) => id,
        }
    }
}

/// `collected / (last − first + 1)`, in 0..=1; `None` when the round range is empty.
pub fn liveness(s: &ValidatorReceivedFaucets) -> Option<f64> {
    let span = s
        .last_collected_in_round
        .checked_sub(s.first_collected_in_round)?
        .checked_add(1)?;
    if span <= 0 {
        return None;
    }
    Some((s.num_rounds_collected as f64 / span as f64).clamp(0.0, 1.0))
}

/// A bar of `width` cells for a share in 0..=1 (`█` filled, `░` empty).
pub fn liveness_bar(share: f64, width: usize) -> String {
    let filled = ((share.clamp(0.0, 1.0) * width as f64).round() as usize).min(width);
    format!("{}{}", "█".repeat(filled), "░".repeat(width - filled))
}

/// A table column (also the sort key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValCol {
    Validator,
    /// Over an index: its first licence.
    Licensed,
    /// Over an index: whether the scan lists its licence now.
    Current,
    /// Over an index: its newest activity.
    Active,
    /// Over an index: that activity's round.
    Round,
    /// Over an index: the rounds since.
    Since,
    Collected,
    Missed,
    First,
    Last,
    #[default]
    Liveness,
}

impl ValCol {
    /// The header title.
    pub fn title(self) -> &'static str {
        match self {
            ValCol::Validator => "Validator",
            ValCol::Licensed => "Licensed",
            ValCol::Current => "Cur",
            ValCol::Active => "Last active",
            ValCol::Round => "Round",
            ValCol::Since => "Since",
            ValCol::Collected => "Collected",
            ValCol::Missed => "Missed",
            ValCol::First => "First",
            ValCol::Last => "Last",
            ValCol::Liveness => "Liveness",
        }
    }

    /// The kept history's column of this one.
    fn kept(self) -> Option<KeptCol> {
        Some(match self {
            ValCol::Licensed => KeptCol::Licensed,
            ValCol::Current => KeptCol::Current,
            ValCol::Active => KeptCol::Active,
            ValCol::Round => KeptCol::Round,
            ValCol::Since => KeptCol::Since,
            _ => return None,
        })
    }

    /// The table's columns: the first round goes first when space is short, then the
    /// collected and last rounds, while the bar narrows below 71 columns. Sorting starts worst
    /// first (fewest collected, most missed, lowest liveness), names ascending. Over an index
    /// (`kept`) the kept history's columns come after the validator (the first licence is
    /// dropped first, the rounds since last).
    pub(super) fn columns(kept: bool) -> Columns<ValCol> {
        let col = |id: ValCol, width| Column::new(id, id.title(), Width::Fixed(width)).right();
        let mut cols = vec![Column::new(ValCol::Validator, "Validator", Width::fill(16))];
        if kept {
            cols.extend([
                Column::new(ValCol::Licensed, "Licensed", Width::Fixed(17)).priority(2),
                Column::new(ValCol::Current, "Cur", Width::Fixed(4)).priority(3),
                Column::new(ValCol::Active, "Last active", Width::Fixed(17))
                    .priority(7)
                    .descending_first(),
                col(ValCol::Round, 7).priority(3).descending_first(),
                col(ValCol::Since, 6).priority(10).descending_first(),
            ]);
        }
        cols.extend([
            col(ValCol::Collected, 11).priority(5),
            col(ValCol::Missed, 8).priority(8).descending_first(),
            col(ValCol::First, 7).priority(4),
            col(ValCol::Last, 7).priority(6).descending_first(),
            Column::new(
                ValCol::Liveness,
                "Liveness",
                Width::Wide {
                    narrow: 10,
                    wide: 17,
                    from: 71,
                },
            )
            .priority(9),
        ]);
        Columns::new(cols).sorted_by(ValCol::Liveness, false)
    }
}

impl TableRow for PaneRow {
    type Col = ValCol;
    type Ctx = ();

    fn cell(&self, col: ValCol, width: u16, (): &(), theme: &Theme) -> Cell<'_> {
        if let Some(k) = col.kept() {
            return kept::cell(self.kept.as_ref(), k, theme);
        }
        let s = match (&self.faucets, col) {
            (faucets, ValCol::Validator) => {
                let style = if matches!(faucets, Some(ValidatorRow::NotOnboarded(_))) {
                    theme.muted
                } else {
                    theme.party
                };
                return Cell::new(self.id(), style);
            }
            (Some(ValidatorRow::NotOnboarded(_)), _) => {
                return Cell::Rest(NOT_ONBOARDED.into(), theme.status_warn);
            }
            (None, _) => return Cell::empty(),
            (Some(ValidatorRow::Stats(s)), _) => s,
        };
        let share = liveness(s);
        let bad = match share {
            _ if s.num_rounds_missed <= 0 => Style::default(),
            Some(v) if v >= LIVENESS_WARN => theme.status_warn,
            _ => theme.status_err,
        };
        match col {
            ValCol::Collected => Cell::new(s.num_rounds_collected.to_string(), Style::default()),
            ValCol::Missed => Cell::new(s.num_rounds_missed.to_string(), bad),
            ValCol::First => Cell::new(s.first_collected_in_round.to_string(), theme.muted),
            ValCol::Last => Cell::new(s.last_collected_in_round.to_string(), theme.muted),
            _ => {
                // A bar, then the percentage right-aligned in what is left.
                let pct = share.map_or_else(|| "-".to_string(), |v| format!("{:.1}%", v * 100.0));
                let (pct_style, bar_style) = if bad == Style::default() {
                    (theme.muted, theme.gauge)
                } else {
                    (bad, bad)
                };
                let w = usize::from(width);
                let bar_w = w.saturating_sub(7);
                let mut spans = Vec::with_capacity(3);
                let mut rest = w;
                if bar_w >= 4 {
                    spans.push(Span::styled(
                        liveness_bar(share.unwrap_or(0.0), bar_w),
                        bar_style,
                    ));
                    rest -= bar_w;
                }
                spans.push(Span::raw(" ".repeat(rest.saturating_sub(pct.width()))));
                spans.push(Span::styled(pct, pct_style));
                Cell::Spans(spans)
            }
        }
    }

    fn sort_key(&self, col: ValCol) -> SortKey<'_> {
        if let Some(k) = col.kept() {
            return kept::sort_key(self.kept.as_ref(), k);
        }
        let Some(ValidatorRow::Stats(s)) = &self.faucets else {
            return match col {
                ValCol::Validator => SortKey::Text(Cow::Borrowed(self.id())),
                _ => SortKey::Missing,
            };
        };
        match col {
            ValCol::Validator => SortKey::Text(Cow::Borrowed(&s.validator)),
            ValCol::Collected => SortKey::Int(s.num_rounds_collected.into()),
            ValCol::Missed => SortKey::Int(s.num_rounds_missed.into()),
            ValCol::First => SortKey::Int(s.first_collected_in_round.into()),
            ValCol::Last => SortKey::Int(s.last_collected_in_round.into()),
            ValCol::Liveness => SortKey::Float(liveness(s).unwrap_or(0.0)),
            ValCol::Licensed | ValCol::Current | ValCol::Active | ValCol::Round | ValCol::Since => {
                SortKey::Missing
            }
        }
    }

    /// Ids the scan ignored always come last.
    fn sort_group(&self) -> u8 {
        u8::from(matches!(self.faucets, Some(ValidatorRow::NotOnboarded(_))))
    }

    fn filter_text(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(first: i64, last: i64, collected: i64, missed: i64) -> ValidatorReceivedFaucets {
        ValidatorReceivedFaucets {
            validator: "v::1".into(),
            num_rounds_collected: collected,
            num_rounds_missed: missed,
            first_collected_in_round: first,
            last_collected_in_round: last,
            ..ValidatorReceivedFaucets::default()
        }
    }

    #[test]
    fn liveness_is_collected_over_the_round_range() {
        assert_eq!(liveness(&stats(10, 19, 10, 0)), Some(1.0));
        assert_eq!(liveness(&stats(10, 19, 5, 5)), Some(0.5));
        assert_eq!(liveness(&stats(7, 7, 1, 0)), Some(1.0));
        assert_eq!(liveness(&stats(9, 7, 1, 0)), None);
        assert_eq!(liveness(&stats(i64::MIN, i64::MAX, 1, 0)), None);
        assert_eq!(liveness_bar(0.5, 10), "█████░░░░░");
        assert_eq!(liveness_bar(2.0, 4), "████");
    }
}
