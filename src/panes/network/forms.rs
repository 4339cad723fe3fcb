//! The query forms of the bootstrapping, party hosting and reward weight sections.

use super::{NetSection, NetworkPane};
use crate::model::summary::{cat, format_time_micros, short_party};
use crate::model::when::parse_when;
use crate::panes::form::Form;
use crate::panes::{Out, Shared};

/// Which form is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FormKind {
    Bootstrapping,
    Participants,
    RewardWeight,
    /// Where the sweep starts (`S`).
    SweepFrom,
    /// Where the sweep's result is saved (`s`).
    SweepSave,
}

impl NetworkPane {
    // -----------------------------------------------------------------------------------------
    // Forms
    // -----------------------------------------------------------------------------------------

    /// The synchronizer of the newest loaded update, if any.
    pub(super) fn recent_synchronizer(sh: &Shared) -> Option<String> {
        let last = sh.history.last()?;
        let s = sh.history.summarizer.interner.resolve(last.synchronizer());
        (!s.is_empty()).then(|| s.to_string())
    }

    /// The synchronizer id prefix suggested for the bootstrapping query (`global-domain`).
    pub fn suggested_prefix(sh: &Shared) -> Option<String> {
        Self::recent_synchronizer(sh).map(|s| short_party(&s).to_string())
    }

    pub(super) fn open_form(&mut self, sh: &Shared) {
        let syncs = sh.history.symbols_of(cat::SYNCHRONIZER);
        let parties = sh.history.parties();
        let form = match self.section {
            NetSection::Scans | NetSection::Sequencers | NetSection::Findings => return,
            NetSection::Bootstrapping => {
                let text = self
                    .boot_prefix
                    .clone()
                    .or_else(|| Self::suggested_prefix(sh))
                    .unwrap_or_default();
                let prefixes: Vec<&str> = syncs.iter().map(|s| short_party(s)).collect();
                (
                    FormKind::Bootstrapping,
                    Form::new(vec![Form::with_candidates(
                        Form::field(
                            "Prefix",
                            &text,
                            "synchronizer id prefix, e.g. global-domain",
                        ),
                        prefixes.iter().copied().chain(syncs.iter().copied()),
                    )]),
                )
            }
            NetSection::Participants => {
                let (domain, party) = self.hosting_query.clone().unwrap_or_else(|| {
                    (
                        Self::recent_synchronizer(sh).unwrap_or_default(),
                        String::new(),
                    )
                });
                (
                    FormKind::Participants,
                    Form::new(vec![
                        Form::with_candidates(
                            Form::field("Synchronizer", &domain, "synchronizer (domain) id"),
                            syncs.iter().copied(),
                        ),
                        Form::with_candidates(
                            Form::field("Party", &party, "party id (Tab completes)"),
                            parties.iter().copied(),
                        ),
                    ]),
                )
            }
            NetSection::RewardWeight => {
                let (sv, before) = self.weight_query.clone().unwrap_or_default();
                (
                    FormKind::RewardWeight,
                    Form::new(vec![
                        Form::with_candidates(
                            Form::field("SV party", &sv, "SV party id (Tab completes)"),
                            parties.iter().copied(),
                        ),
                        Form::field(
                            "Effective before",
                            before.as_deref().unwrap_or(""),
                            "optional: RFC 3339, -2h or yesterday 14:00",
                        ),
                    ]),
                )
            }
        };
        let mut form = form;
        // Start on the first empty field.
        let first_empty = (0..form.1.len())
            .find(|&i| form.1.value(i).is_empty())
            .unwrap_or(0);
        form.1.set_active(first_empty);
        self.form = Some(form);
    }

    pub(super) fn submit_form(&mut self, sh: &mut Shared, out: &mut Out) {
        let Some((kind, form)) = &mut self.form else {
            return;
        };
        match kind {
            FormKind::SweepFrom => {
                match super::SweepFrom::parse(&form.value(0), sh.now, sh.local_time) {
                    Ok(from) => {
                        self.form = None;
                        self.start_sweep(from, sh, out);
                    }
                    Err(e) => form.set_error(0, e),
                }
            }
            FormKind::SweepSave => {
                let path = form.value(0);
                self.form = None;
                self.save_sweep(&path, sh, out);
            }
            FormKind::Bootstrapping => {
                let Some([prefix]) = form.required([(0, "enter a synchronizer id prefix")]) else {
                    return;
                };
                self.form = None;
                self.query_boot(prefix, sh, out);
            }
            FormKind::Participants => {
                let Some([domain, party]) =
                    form.required([(0, "enter the synchronizer id"), (1, "enter the party id")])
                else {
                    return;
                };
                self.form = None;
                self.query_hosting(domain, party, sh, out);
            }
            FormKind::RewardWeight => {
                let Some([sv]) = form.required([(0, "enter the SV party id")]) else {
                    return;
                };
                let before = form.value(1);
                let before = if before.is_empty() {
                    None
                } else if let Some(t) = parse_when(&before, sh.now, sh.local_time) {
                    Some(format_time_micros(t))
                } else {
                    form.set_error(1, "not a time: use RFC 3339, -2h or yesterday 14:00");
                    return;
                };
                self.form = None;
                self.query_weight(sv, before, sh, out);
            }
        }
    }
}
