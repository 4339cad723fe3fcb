//! The app's side of the local index's feed ([`crate::feed::index`]): the app owns it (in
//! [`Shared::index`]) and runs it on every tick and for its replies; the header and the panes
//! that read the index only read it.

use crate::feed::loader::Note;
use crate::model::position::At;
use crate::msg::{Effect, Fetched};
use crate::panes::{AppEvent, Out, Shared};

/// How many loaded updates the check against the index looks for.
const PROBES: usize = 8;

/// The loaded updates the check looks for in the index: a few spread over the loaded window,
/// its oldest and newest among them.
fn probes(sh: &Shared) -> Vec<(String, At)> {
    let n = sh.history.len();
    if n == 0 {
        return Vec::new();
    }
    let step = (n / PROBES).max(1);
    let mut picked: Vec<(String, At)> = sh
        .history
        .iter()
        .step_by(step)
        .chain(sh.history.iter().last())
        .map(|s| (s.update_id.to_string(), s.at()))
        .collect();
    picked.dedup();
    picked
}

/// One step: the reply (if any), else the reach read when due. Returns whether what the header
/// shows changed.
pub fn drive(sh: &mut Shared, out: &mut Out, reply: Option<&Fetched>) -> bool {
    if let Some(reply) = reply {
        let scan_dso = sh.health.dso.info.as_ref().map(|d| d.dso_party_id.clone());
        let (note, changed) = sh.index.on_reply(reply, sh.now, scan_dso.as_deref());
        let was_rewritten = sh.index.rewritten.is_some();
        let was_check = sh.index.checks(reply.id);
        if let Some((level, text)) = note {
            match level {
                Note::Info => out.info(text),
                Note::Warn => out.warn(text),
                Note::Error => out.error(text),
            }
        }
        if sh.index.rewritten.is_some() {
            if !was_rewritten {
                // History no longer lists the index's rows.
                out.events.push(AppEvent::Timeline(
                    crate::feed::timeline::TimelineIntent::Close,
                ));
            }
        } else if !was_check && sh.index.usable() && sh.timeline.is_none() {
            // After each reach: is the loaded history still the one the index kept?
            if let Some((id, request)) = sh.index.check(probes(sh), &mut sh.ids) {
                out.effects.push(Effect::Fetch { id, request });
            }
        }
        return changed;
    }
    if let Some((id, request)) = sh.index.tick(sh.now, &mut sh.ids) {
        out.effects.push(Effect::Fetch { id, request });
    }
    false
}
