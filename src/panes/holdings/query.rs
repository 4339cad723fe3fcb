//! The holdings query: what the form produces ([`HoldingsQuery`], [`TimeSpec`]) and the form
//! itself ([`HoldingsForm`]: owners, migration, record time, match mode) with its checks.

use crate::api::scan::{HoldingsSummaryRequest, RecordTimeMatch};
use crate::model::summary::{format_time_micros, parse_time_micros};
use crate::panes::Shared;
use crate::ui::form::{Completer, looks_like_party, split_ids};
use crate::ui::safe::safe_line;
use crate::ui::text_input::TextInput;

// ---------------------------------------------------------------------------------------------
// The query
// ---------------------------------------------------------------------------------------------

/// The record time of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeSpec {
    /// The time the query is sent (re-read on refresh).
    Now,
    /// A fixed RFC 3339 time.
    At(String),
}

/// A holdings query as the form produced it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldingsQuery {
    pub owners: Vec<String>,
    pub migration_id: i64,
    pub time: TimeSpec,
    pub exact: bool,
}

impl HoldingsQuery {
    /// The request body, with `now` read from the clock.
    pub fn request(&self, now: i64) -> HoldingsSummaryRequest {
        let record_time = match &self.time {
            TimeSpec::Now => format_time_micros(now),
            TimeSpec::At(t) => t.clone(),
        };
        HoldingsSummaryRequest {
            migration_id: self.migration_id,
            record_time,
            record_time_match: Some(if self.exact {
                RecordTimeMatch::Exact
            } else {
                RecordTimeMatch::AtOrBefore
            }),
            owner_party_ids: self.owners.clone(),
        }
    }
}

/// Reads a record time as typed: `now` (or nothing) or an RFC 3339 time, normalised to UTC.
pub fn parse_time_spec(text: &str) -> Result<TimeSpec, String> {
    let t = text.trim();
    if t.is_empty() || t.eq_ignore_ascii_case("now") {
        return Ok(TimeSpec::Now);
    }
    parse_time_micros(t)
        .map(|us| TimeSpec::At(format_time_micros(us)))
        .ok_or_else(|| {
            format!(
                "not an RFC 3339 time: {} (e.g. 2026-01-05T10:00:00Z, or now)",
                safe_line(t, 40)
            )
        })
}

/// The form's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Owners,
    Migration,
    Time,
    Match,
}

impl Field {
    pub(super) const ALL: [Field; 4] = [Field::Owners, Field::Migration, Field::Time, Field::Match];

    pub(super) fn label(self) -> &'static str {
        match self {
            Field::Owners => "Owners",
            Field::Migration => "Migration",
            Field::Time => "Time",
            Field::Match => "Match",
        }
    }

    pub(super) fn step(self, forward: bool) -> Field {
        let i = Field::ALL.iter().position(|f| *f == self).unwrap_or(0);
        let n = Field::ALL.len();
        Field::ALL[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }

    /// The field above or below, stopping at the first and last (↑/↓ do not wrap).
    pub(super) fn step_clamped(self, forward: bool) -> Field {
        let i = Field::ALL.iter().position(|f| *f == self).unwrap_or(0);
        let j = if forward {
            (i + 1).min(Field::ALL.len() - 1)
        } else {
            i.saturating_sub(1)
        };
        Field::ALL[j]
    }
}

/// The query form (kept between openings).
#[derive(Debug, Clone)]
pub struct HoldingsForm {
    pub owners: TextInput,
    pub migration: TextInput,
    pub time: TextInput,
    /// `record_time_match`: exact when true, at_or_before otherwise (the default).
    pub exact: bool,
    pub field: Field,
    pub completer: Completer,
    /// A note for the focused field (completion feedback).
    pub note: Option<String>,
    /// The migration text last filled in automatically (refreshed while unchanged).
    auto_migration: Option<String>,
}

impl Default for HoldingsForm {
    fn default() -> Self {
        HoldingsForm {
            owners: TextInput::single_line()
                .with_placeholder("owner party ids, separated by spaces (Tab completes)"),
            migration: TextInput::single_line().with_placeholder("migration id"),
            time: TextInput::single_line().with_text("now"),
            exact: false,
            field: Field::Owners,
            completer: Completer::default(),
            note: None,
            auto_migration: None,
        }
    }
}

impl HoldingsForm {
    pub(super) fn input_mut(&mut self, field: Field) -> Option<&mut TextInput> {
        match field {
            Field::Owners => Some(&mut self.owners),
            Field::Migration => Some(&mut self.migration),
            Field::Time => Some(&mut self.time),
            Field::Match => None,
        }
    }

    pub(super) fn input(&self, field: Field) -> Option<&TextInput> {
        match field {
            Field::Owners => Some(&self.owners),
            Field::Migration => Some(&self.migration),
            Field::Time => Some(&self.time),
            Field::Match => None,
        }
    }

    /// Fills the defaults that depend on the loaded history (the current migration).
    pub(super) fn prefill(&mut self, sh: &Shared) {
        let text = self.migration.text();
        let untouched = text.is_empty() || self.auto_migration.as_deref() == Some(text.as_str());
        if untouched {
            match sh.history.last() {
                Some(newest) => {
                    let m = newest.migration_id.to_string();
                    self.migration.set_text(&m);
                    self.auto_migration = Some(m);
                }
                None => self
                    .migration
                    .set_placeholder("migration id (no history loaded yet)"),
            }
        }
        if self.time.text().trim().is_empty() {
            self.time.set_text("now");
        }
    }

    /// Checks every field; on failure the first bad field gets focus and a message.
    pub(super) fn validate(&mut self) -> Option<HoldingsQuery> {
        let owners = split_ids(&self.owners.text());
        let owners_err = if owners.is_empty() {
            Some(
                "enter at least one owner party id (the scan needs at least one; Tab completes)"
                    .to_string(),
            )
        } else {
            owners.iter().find(|o| !looks_like_party(o)).map(|bad| {
                format!(
                    "not a party id: {} (expected hint::fingerprint)",
                    safe_line(bad, 40)
                )
            })
        };
        let mig_text = self.migration.text();
        let migration = mig_text.trim().parse::<i64>().ok().filter(|m| *m >= 0);
        let mig_err = migration
            .is_none()
            .then(|| "the migration id is a whole number ≥ 0".to_string());
        let time = parse_time_spec(&self.time.text());
        let mut first_bad = None;
        for (field, err) in [
            (Field::Owners, owners_err),
            (Field::Migration, mig_err),
            (Field::Time, time.as_ref().err().cloned()),
        ] {
            let bad = err.is_some();
            if let Some(input) = self.input_mut(field) {
                input.set_validation(err);
            }
            if bad && first_bad.is_none() {
                first_bad = Some(field);
            }
        }
        if let Some(f) = first_bad {
            self.field = f;
            return None;
        }
        Some(HoldingsQuery {
            owners,
            migration_id: migration?,
            time: time.ok()?,
            exact: self.exact,
        })
    }
}
