//! The app's side of the history loader ([`crate::feed::loader`]): the app owns the loader, the
//! one writer of the loaded history; the History pane asks it for things through
//! [`AppEvent::Loader`] and every pane reads the result from [`Shared`].

use crate::feed::loader::{Ctx, HistoryChange, Loader, LoaderOut, Note, RangeEvent};
use crate::feed::timeline::Timeline;
use crate::msg::{Effect, Fetched};
use crate::panes::history::HistoryPane;
use crate::panes::{AppEvent, Out, Shared};

/// One step of the loader: runs the intents queued in `out.events` (taking them out), the reply
/// (if any) and the loader's pump; turns what it produced into effects and messages in `out`,
/// and keeps the History pane's view in step. Returns whether anything changed, and what the
/// range it reads for History's timeline brought (for the timeline).
pub fn drive(
    loader: &mut Loader,
    pane: &mut HistoryPane,
    sh: &mut Shared,
    out: &mut Out,
    reply: Option<&Fetched>,
) -> (bool, Vec<RangeEvent>) {
    let mut intents = Vec::new();
    out.events.retain(|e| match e {
        AppEvent::Loader(i) => {
            intents.push(*i);
            false
        }
        _ => true,
    });
    let mut lo = LoaderOut::default();
    {
        let mut cx = ctx(sh, &mut lo);
        for intent in &intents {
            loader.intent(*intent, &mut cx);
        }
        if let Some(reply) = reply {
            loader.on_reply(reply, &mut cx);
        }
    }
    pane.on_history(&lo.change, sh);
    let demand = pane.demand(sh);
    loader.pump(demand, &mut ctx(sh, &mut lo));
    pane.on_history(&HistoryChange::default(), sh);
    sh.history_at_head = sh.feed.at_head;

    let changed = !intents.is_empty()
        || reply.is_some()
        || !lo.fetches.is_empty()
        || !lo.notes.is_empty()
        || lo.change != HistoryChange::default()
        || lo.has_range();
    out.effects
        .extend(lo.cancels.into_iter().map(Effect::Cancel));
    out.effects
        .extend(lo.fetches.into_iter().map(|(id, page)| Effect::Fetch {
            id,
            request: page.request(),
        }));
    for (level, text) in lo.notes {
        match level {
            Note::Info => out.info(text),
            Note::Warn => out.warn(text),
            Note::Error => out.error(text),
        }
    }
    (changed, lo.range)
}

fn ctx<'a>(sh: &'a mut Shared, out: &'a mut LoaderOut) -> Ctx<'a> {
    Ctx {
        now: sh.now,
        history: &mut sh.history,
        feed: &mut sh.feed,
        ids: &mut sh.ids,
        held: sh.timeline.as_ref().map_or(0, Timeline::scan_bytes),
        out,
    }
}
