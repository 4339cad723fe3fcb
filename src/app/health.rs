//! The app's side of the health ([`crate::feed::health`]): the app owns it (in
//! [`Shared::health`]) and runs it on every tick and for its replies; the header, Status and
//! Network only read it.

use crate::feed::health::{HealthIntent, HealthOut};
use crate::feed::loader::Note;
use crate::model::findings::NotifyMode;
use crate::msg::{Effect, Fetched};
use crate::panes::{Out, Shared};
use crate::ui::format::human_duration;

/// One step of the health: the reply (if any) or what is due at `sh.now`, turned into effects
/// and messages in `out`. Returns whether anything a reader shows changed.
pub fn drive(sh: &mut Shared, out: &mut Out, reply: Option<&Fetched>) -> bool {
    let mut ho = HealthOut::default();
    if let Some(reply) = reply {
        sh.health.on_reply(reply, sh.now, &mut ho);
        // What the reply found (scans down) is kept at once.
        sh.health.send_findings(sh.now, &mut sh.ids, &mut ho);
    } else {
        let stale = sh.health.tick(sh.now, &mut sh.ids, &mut ho);
        for (i, waited) in stale {
            let name = sh
                .health
                .nodes
                .nodes()
                .get(i)
                .map(|n| n.kind.name())
                .unwrap_or_default();
            let text = format!("{name}: no answer after {}", human_duration(waited));
            sh.health.node_failed(i, text, sh.now, &mut ho);
        }
    }
    finish(ho, sh.ctx.notify, out)
}

/// Carries out `intent`.
pub fn intent(intent: HealthIntent, sh: &mut Shared, out: &mut Out) -> bool {
    let mut ho = HealthOut::default();
    match intent {
        HealthIntent::PollNodesNow => {
            if sh.health.poll_nodes_now(sh.now, &mut sh.ids, &mut ho) > 0 {
                ho.notes.push((Note::Info, "polling every node now".into()));
            }
        }
        HealthIntent::MeasureNetworkNow => sh.health.measure_network(sh.now, &mut sh.ids, &mut ho),
        HealthIntent::Record(ops) => sh.health.record(ops, sh.now, &mut sh.ids, &mut ho),
    }
    finish(ho, sh.ctx.notify, out)
}

fn finish(ho: HealthOut, mode: NotifyMode, out: &mut Out) -> bool {
    out.effects
        .extend(ho.cancels.into_iter().map(Effect::Cancel));
    out.effects.extend(
        ho.fetches
            .into_iter()
            .map(|(id, request)| Effect::Fetch { id, request }),
    );
    if !ho.announce.is_empty() && mode != NotifyMode::Off {
        out.effects.push(Effect::Notify {
            text: ho.announce.join(" · "),
            mode,
        });
    }
    for (level, text) in ho.notes {
        match level {
            Note::Info => out.info(text),
            Note::Warn => out.warn(text),
            Note::Error => out.error(text),
        }
    }
    ho.changed
}
