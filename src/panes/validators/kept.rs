//! The Validators pane over the local index (issue 37 §4): every validator ever licensed, read
//! by the runtime (`IndexRead::Validators`: the index's validators' table and, online, the
//! scan's current licences), its columns (first licensed, licence current, last activity and
//! its round, rounds since) before the faucet columns. Pure: the answer is turned into rows
//! here, drawing reads them.

use std::borrow::Cow;

use ratatui::style::Style;

use crate::model::format::format_time_micros;
use crate::model::index::read::IndexAnswer;
use crate::model::index::validators::{ValidatorRow as Kept, ValidatorSort, assemble};
use crate::msg::RequestId;
use crate::panes::{Out, Shared};
use crate::ui::table::DataTable;
use crate::ui::table::{Cell, SortKey};
use crate::ui::theme::Theme;

/// What the pane says when the index knows no validator.
pub const NO_KEPT_VALIDATORS: &str = "The local index knows no validator yet (no ValidatorLicense \
     in its kept history, and the scan lists none): sync more history, or press i to enter \
     validator party ids.";

/// Why the pane lists the validators of the loaded history although an index is configured
/// (a history rewritten under it, an index that cannot be read now); `None`: no index, or
/// one the pane reads.
pub fn not_used_because(index: &crate::feed::index::IndexFeed) -> Option<String> {
    if !index.configured() || index.usable() {
        return None;
    }
    Some(match (&index.rewritten, &index.failure) {
        (Some(_), _) => "the history was rewritten under the local index (see !)".to_owned(),
        (None, Some(why)) => format!("the local index cannot be read now: {why}"),
        (None, None) => "the local index cannot be read now".to_owned(),
    })
}

impl super::ValidatorsPane {
    /// The index cannot be used (`why`): the validators of the loaded history instead.
    pub(super) fn fall_back(&mut self, why: String, sh: &mut Shared, out: &mut Out) {
        out.warn(format!(
            "validators: {why}; the loaded history's validators instead"
        ));
        (self.kept, self.loaded) = (None, false);
        self.rows.clear();
        self.index_note = Some(why);
        self.table = DataTable::new(super::ValCol::columns(false));
        self.start_history(sh, out);
    }
}

/// The index's list as the pane holds it.
#[derive(Debug, Default)]
pub struct KeptList {
    /// The read in flight.
    pub pending: Option<RequestId>,
    /// The validators, in the index's order (newest activity first).
    pub rows: Vec<Kept>,
    /// Whether the index answered.
    pub loaded: bool,
    /// Why the scan's licences are unknown (offline, its error).
    pub scan_note: Option<String>,
    /// The index's failure.
    pub error: Option<String>,
}

impl KeptList {
    /// Takes the index's answer: the rows (or the failure).
    pub fn take(&mut self, answer: Result<IndexAnswer, String>) {
        self.loaded = true;
        match answer {
            Ok(IndexAnswer::Validators {
                kept,
                newest_round,
                scan,
            }) => {
                let newest = newest_round.max(scan.newest_round);
                self.rows = assemble(&kept, scan.licenses.as_deref(), newest, ValidatorSort::Last);
                self.scan_note = scan.not_asked;
                self.error = None;
            }
            Ok(_) => self.error = Some(crate::msg::UNEXPECTED_INDEX_ANSWER.to_owned()),
            Err(e) => self.error = Some(e),
        }
    }

    /// The parties, in the list's order.
    pub fn parties(&self) -> Vec<String> {
        self.rows.iter().map(|r| r.party.clone()).collect()
    }

    /// The row of `party`.
    pub fn of(&self, party: &str) -> Option<&Kept> {
        self.rows.iter().find(|r| r.party == party)
    }
}

/// A time as the table shows it (`YYYY-MM-DD HH:MM`, UTC).
fn short_time(micros: i64) -> String {
    let full = format_time_micros(micros);
    full.get(..16).unwrap_or(&full).replace('T', " ")
}

/// A column of the kept history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeptCol {
    Licensed,
    Current,
    Active,
    Round,
    Since,
}

/// The cell of `col` for a row (`None`: the index does not list it).
pub fn cell(kept: Option<&Kept>, col: KeptCol, theme: &Theme) -> Cell<'static> {
    let Some(k) = kept else {
        return Cell::empty();
    };
    match col {
        KeptCol::Licensed => Cell::new(
            k.first_licensed.map(short_time).unwrap_or_default(),
            theme.muted,
        ),
        KeptCol::Current => match k.license_current {
            Some(true) => Cell::new("yes", Style::default()),
            Some(false) => Cell::new("no", theme.status_warn),
            None => Cell::new("?", theme.muted),
        },
        KeptCol::Active => Cell::new(
            k.last_activity
                .map_or_else(|| "never".to_owned(), short_time),
            if k.last_activity.is_some() {
                Style::default()
            } else {
                theme.muted
            },
        ),
        KeptCol::Round => Cell::new(
            k.last_activity_round
                .map(|r| r.to_string())
                .unwrap_or_default(),
            theme.muted,
        ),
        KeptCol::Since => Cell::new(
            k.rounds_since.map(|r| r.to_string()).unwrap_or_default(),
            Style::default(),
        ),
    }
}

/// The sort key of `col` for a row.
pub fn sort_key(kept: Option<&Kept>, col: KeptCol) -> SortKey<'static> {
    let Some(k) = kept else {
        return SortKey::Missing;
    };
    let int = |v: Option<i64>| v.map_or(SortKey::Missing, |v| SortKey::Int(v.into()));
    match col {
        KeptCol::Licensed => int(k.first_licensed),
        KeptCol::Current => match k.license_current {
            Some(c) => SortKey::Text(Cow::Borrowed(if c { "yes" } else { "no" })),
            None => SortKey::Missing,
        },
        KeptCol::Active => int(k.last_activity),
        KeptCol::Round => int(k.last_activity_round),
        KeptCol::Since => int(k.rounds_since),
    }
}
