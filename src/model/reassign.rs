//! The two halves of a reassignment: an unassign and the assign that completes it carry the same
//! `unassign_id`. [`resolve_link`] finds, among the loaded updates, the half an open reassignment
//! links to (through the interned `unassign_id` of the history's summaries, no body needed).

use crate::api::scan::{Reassignment, ReassignmentEvent};

use super::history::History;
use super::summary::{RootAction, SummaryKind};

/// The update a reassignment links to (its matching assign / unassign).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkTarget {
    pub update_id: String,
    pub record_time: i64,
}

/// The loaded update holding the other half of `r` (same `unassign_id`): the unassign of an
/// assign, the assign of an unassign, the newest when several match. None while it is not loaded.
pub fn resolve_link(history: &History, r: &Reassignment) -> Option<LinkTarget> {
    let unassign_id = r.event.unassign_id();
    if unassign_id.is_empty() {
        return None;
    }
    // Not interned: no loaded summary carries it.
    let sym = history.summarizer.interner.get(unassign_id)?;
    let wanted = match r.event {
        ReassignmentEvent::Assign(_) => SummaryKind::Unassign,
        ReassignmentEvent::Unassign(_) => SummaryKind::Assign,
    };
    history
        .iter()
        .rev()
        .find(|s| {
            s.kind() == wanted
                && matches!(s.root(), RootAction::Reassign { link, .. } if link == sym)
                && !s.update_id_is(&r.update_id)
        })
        .map(|s| LinkTarget {
            update_id: s.update_id().to_string(),
            record_time: s.record_time(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::scan::UpdateItem;
    use crate::model::fixtures::{history, item, reassignment};

    const C: &str = "00a1a1a1a1a1a1a1a1ca101220bb";
    const OTHER: &str = "00b2b2b2b2b2b2b2b2ca101220cc";

    fn reassignment_of(update: &serde_json::Value) -> Reassignment {
        match item(update) {
            UpdateItem::Reassignment(r) => *r,
            other => panic!("not a reassignment: {other:?}"),
        }
    }

    #[test]
    fn each_half_links_to_the_other() {
        let unassign = reassignment("u1", 1, false, "move-1", C);
        let assign = reassignment("a1", 2, true, "move-1", C);
        let other = reassignment("a2", 3, true, "move-2", OTHER);
        let h = history(&[unassign.clone(), assign.clone(), other]);
        let link = resolve_link(&h, &reassignment_of(&unassign)).expect("assign loaded");
        assert_eq!(link.update_id, "a1");
        let link = resolve_link(&h, &reassignment_of(&assign)).expect("unassign loaded");
        assert_eq!(link.update_id, "u1");
    }

    #[test]
    fn no_link_while_the_other_half_is_not_loaded() {
        let unassign = reassignment("u1", 1, false, "move-1", C);
        let h = history(std::slice::from_ref(&unassign));
        assert_eq!(resolve_link(&h, &reassignment_of(&unassign)), None);
        let nameless = reassignment("u2", 2, false, "", C);
        assert_eq!(resolve_link(&h, &reassignment_of(&nameless)), None);
    }
}
