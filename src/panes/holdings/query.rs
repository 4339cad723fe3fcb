//! The holdings query: what the form produces ([`HoldingsQuery`], [`TimeSpec`]) and the form
//! itself ([`HoldingsForm`] on the kit's [`Form`]: owners, migration, record time, match mode)
//! with its checks.

use crate::api::scan::{HoldingsSummaryRequest, RecordTimeMatch};
use crate::model::summary::format_time_micros;
use crate::model::when::parse_when;
use crate::panes::Shared;
use crate::ui::form::{Dialog, Field as FormField, Form, looks_like_party};
use crate::ui::safe::safe_line;

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

/// Reads a record time as typed: `now` (or nothing), or a time as `:time` reads it (RFC 3339,
/// `-2h`, `yesterday 14:00` in the session's zone), fixed now and normalised to UTC.
pub fn parse_time_spec(text: &str, now: i64, local: bool) -> Result<TimeSpec, String> {
    let t = text.trim();
    if t.is_empty() || t.eq_ignore_ascii_case("now") {
        return Ok(TimeSpec::Now);
    }
    parse_when(t, now, local)
        .map(|us| TimeSpec::At(format_time_micros(us)))
        .ok_or_else(|| {
            format!(
                "not a time: {} (RFC 3339, -2h, yesterday 14:00 or now)",
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
    const ALL: [Field; 4] = [Field::Owners, Field::Migration, Field::Time, Field::Match];

    fn index(self) -> usize {
        Field::ALL.iter().position(|f| *f == self).unwrap_or(0)
    }
}

/// The match modes, as the API names them (`at_or_before` first: the default).
const MATCH_MODES: &[&str] = &["at_or_before", "exact"];

/// The query form (kept between openings): owners (a list of party ids, Tab completes from the
/// parties of the loaded history), migration, record time and match mode.
#[derive(Debug, Clone)]
pub struct HoldingsForm {
    /// The form, kept between openings.
    pub dialog: Dialog,
    /// The migration text last filled in automatically (refreshed while unchanged).
    auto_migration: Option<String>,
}

impl Default for HoldingsForm {
    fn default() -> Self {
        HoldingsForm {
            dialog: Dialog::new(Form::new(vec![
                FormField::list(
                    "Owners",
                    &[],
                    "owner party ids, separated by spaces (Tab completes)",
                    ("owner", "owners"),
                    1,
                ),
                FormField::text("Migration", "", "migration id"),
                FormField::text("Time", "now", ""),
                FormField::choice("Match", MATCH_MODES, 0),
            ])),
            auto_migration: None,
        }
    }
}

impl HoldingsForm {
    /// The owners typed (ids separated by spaces).
    pub fn owners(&self) -> String {
        self.dialog.form.value(Field::Owners.index())
    }

    /// The migration text.
    pub fn migration(&self) -> String {
        self.dialog.form.value(Field::Migration.index())
    }

    /// The record time text.
    pub fn time(&self) -> String {
        self.dialog.form.value(Field::Time.index())
    }

    /// `record_time_match`: exact when true, at_or_before otherwise (the default).
    pub fn exact(&self) -> bool {
        self.dialog.form.choice(Field::Match.index()) == 1
    }

    /// The active field.
    pub fn field(&self) -> Field {
        Field::ALL
            .get(self.dialog.form.active())
            .copied()
            .unwrap_or(Field::Owners)
    }

    /// Replaces the owners.
    pub fn set_owners(&mut self, owners: &[String]) {
        self.dialog
            .form
            .set_text(Field::Owners.index(), &owners.join(" "));
    }

    /// Fills the defaults that depend on the loaded history (the current migration) and the
    /// parties Tab completes from.
    pub(super) fn prefill(&mut self, sh: &Shared) {
        self.dialog
            .form
            .set_candidates(Field::Owners.index(), sh.history.parties());
        let text = self.migration();
        let untouched = text.is_empty() || self.auto_migration.as_deref() == Some(text.as_str());
        let mig = Field::Migration.index();
        if untouched {
            match sh.history.last() {
                Some(newest) => {
                    let m = newest.migration_id().to_string();
                    self.dialog.form.set_text(mig, &m);
                    self.auto_migration = Some(m);
                }
                None => {
                    if let Some(f) = self.dialog.form.get_mut(mig) {
                        f.input
                            .set_placeholder("migration id (no history loaded yet)");
                    }
                }
            }
        }
        if self.time().is_empty() {
            self.dialog.form.set_text(Field::Time.index(), "now");
        }
    }

    /// What the help line says about the active field.
    pub(super) fn help(&self, sh: &Shared) -> String {
        match self.field() {
            Field::Owners => format!(
                "Tab completes from the {} parties of the loaded history",
                sh.history.parties().len()
            ),
            Field::Migration => match sh.history.last() {
                Some(s) => format!(
                    "the current migration (newest loaded update) is {}",
                    s.migration_id()
                ),
                None => "no history loaded: enter the migration id".to_string(),
            },
            Field::Time => {
                "RFC 3339, -2h, yesterday 14:00, or now (read when the query runs)".to_string()
            }
            Field::Match => "at_or_before: newest snapshot at or before the time; exact: a \
                             snapshot time (space toggles)"
                .to_string(),
        }
    }

    /// Checks every field; on failure the first bad field gets focus and a message.
    pub(super) fn validate(&mut self, sh: &Shared) -> Option<HoldingsQuery> {
        let owners = self.dialog.form.ids(Field::Owners.index());
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
        let migration = self.migration().parse::<i64>().ok().filter(|m| *m >= 0);
        let mig_err = migration
            .is_none()
            .then(|| "the migration id is a whole number ≥ 0".to_string());
        let time = parse_time_spec(&self.time(), sh.now, sh.local_time);
        self.dialog.form.clear_errors();
        let mut first_bad = None;
        for (field, err) in [
            (Field::Owners, owners_err),
            (Field::Migration, mig_err),
            (Field::Time, time.as_ref().err().cloned()),
        ] {
            if let Some(e) = err {
                if let Some(f) = self.dialog.form.get_mut(field.index()) {
                    f.input.set_validation(Some(e));
                }
                first_bad.get_or_insert(field);
            }
        }
        if let Some(f) = first_bad {
            self.dialog.form.set_active(f.index());
            return None;
        }
        Some(HoldingsQuery {
            owners,
            migration_id: migration?,
            time: time.ok()?,
            exact: self.exact(),
        })
    }
}
