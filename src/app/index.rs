//! The app's side of the local index's feed ([`crate::feed::index`]): the app owns it (in
//! [`Shared::index`]) and runs it on every tick and for its replies; the header and the panes
//! that read the index only read it.

use crate::feed::loader::Note;
use crate::msg::{Effect, Fetched};
use crate::panes::{Out, Shared};

/// One step: the reply (if any), else the reach read when due. Returns whether what the header
/// shows changed.
pub fn drive(sh: &mut Shared, out: &mut Out, reply: Option<&Fetched>) -> bool {
    if let Some(reply) = reply {
        let scan_dso = sh.health.dso.info.as_ref().map(|d| d.dso_party_id.clone());
        let was_rewritten = sh.index.rewritten.is_some();
        let (note, changed) = sh.index.on_reply(reply, sh.now, scan_dso.as_deref());
        if sh.index.rewritten.is_some() && !was_rewritten && sh.timeline.is_some() {
            // History no longer lists the index's rows.
            out.events.push(crate::panes::AppEvent::Timeline(
                crate::feed::timeline::TimelineIntent::Close,
            ));
        }
        if let Some((level, text)) = note {
            match level {
                Note::Info => out.info(text),
                Note::Warn => out.warn(text),
                Note::Error => out.error(text),
            }
        }
        return changed;
    }
    if let Some((id, request)) = sh.index.tick(sh.now, &mut sh.ids) {
        out.effects.push(Effect::Fetch { id, request });
    }
    false
}
