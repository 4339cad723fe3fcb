//! The app's side of History's timeline ([`crate::feed::timeline`]): the app owns it (in
//! [`Shared::timeline`]) and drives it as it drives the loader (`app/loader.rs`): the History pane
//! asks for things through [`AppEvent::Timeline`] (open, move, read again, close), the replies
//! to its reads come here ([`crate::msg::Owner::Timeline`]), and on the clock it follows the
//! loaded window and the index's reach. The pane only reads it.

use crate::feed::loader::{LoaderIntent, Note, RangeEvent};
use crate::feed::timeline::{Ctx, Timeline, TimelineIntent, TimelineOut};
use crate::msg::{Command, Effect, Fetched};
use crate::panes::history::HistoryPane;
use crate::panes::{AppEvent, Out, Shared};

/// What one step of the timeline takes besides the queued intents.
#[derive(Debug, Clone)]
pub enum Step<'a> {
    /// Only the intents the panes queued.
    Intents,
    /// A reply to one of its reads.
    Reply(&'a Fetched),
    /// What the loader read of the index's gaps for it.
    Range(Vec<RangeEvent>),
    /// The clock: in step with the loaded window and the index's reach.
    Tick,
}

/// One step: runs the intents queued in `out.events` (taking them out), then the reply or the
/// tick; turns what the timeline produced into effects and messages in `out`, and keeps the
/// History pane's loaded selection in step. Returns whether anything the screen shows changed.
pub fn drive(pane: &mut HistoryPane, sh: &mut Shared, out: &mut Out, step: Step<'_>) -> bool {
    let mut intents = Vec::new();
    out.events.retain(|e| match e {
        AppEvent::Timeline(i) => {
            intents.push(i.clone());
            false
        }
        _ => true,
    });
    if intents.is_empty() && sh.timeline.is_none() {
        return false;
    }
    let mut to = TimelineOut::default();
    let mut changed = !intents.is_empty();
    let kept = sh.index.reach.as_ref().map(|r| r.updates);
    let viewport = pane.timeline_viewport();
    // What the index lacks of the list comes from the scan; with `--offline` no node is asked.
    let scan = !sh.ctx.offline;
    let Shared {
        timeline,
        history,
        feed,
        ids,
        now,
        ..
    } = sh;
    let mut cx = Ctx {
        now: *now,
        history,
        feed,
        ids,
        out: &mut to,
    };
    for intent in intents {
        let loaded = pane.loaded_rows(cx.history);
        match intent {
            TimelineIntent::Open { since, land } => {
                if timeline.is_some() {
                    cx.out.loader.push(LoaderIntent::StopRange);
                }
                *timeline = Some(Timeline::open(
                    since, land, scan, viewport, loaded, kept, &mut cx,
                ));
            }
            TimelineIntent::Close => {
                if timeline.take().is_some() {
                    cx.out.loader.push(LoaderIntent::StopRange);
                }
            }
            TimelineIntent::Reread => {
                if let Some(t) = timeline {
                    t.reread(&mut cx);
                }
            }
            TimelineIntent::Move(cmd) => {
                let Some(t) = timeline else { continue };
                let moved = t.navigate(cmd, loaded, &mut cx);
                if let Some(l) = moved.loaded {
                    pane.select_loaded(l);
                }
                if matches!(cmd, Command::Down | Command::PageDown | Command::Bottom)
                    && moved.at_end
                    && !cx.feed.at_head
                {
                    out.events.push(AppEvent::Loader(LoaderIntent::More));
                }
            }
        }
    }
    if let Some(t) = timeline {
        t.set_viewport(viewport);
        let loaded = pane.loaded_rows(cx.history);
        match step {
            Step::Intents => {}
            Step::Reply(reply) => changed |= t.on_reply(reply, loaded, &mut cx),
            Step::Range(events) => changed |= t.on_range(events, loaded, &mut cx),
            Step::Tick => {
                // The pages the screen needs after a resize, and the index's rows in step with
                // the loaded window.
                let was_loading = t.is_loading();
                t.follow_loaded(loaded, kept, &mut cx);
                changed |= !was_loading && t.is_loading();
            }
        }
    }
    changed |= !to.fetches.is_empty() || !to.notes.is_empty();
    // The gaps' reads, for the loader (the app runs it right after).
    out.events
        .extend(to.loader.into_iter().map(AppEvent::Loader));
    out.effects.extend(
        to.fetches
            .into_iter()
            .map(|(id, request)| Effect::Fetch { id, request }),
    );
    for (level, text) in to.notes {
        match level {
            Note::Info => out.info(text),
            Note::Warn => out.warn(text),
            Note::Error => out.error(text),
        }
    }
    changed
}
