//! A reassignment in the Update pane: its details (kind, synchronizers, counter, the contract)
//! and the link to its other half, looked for again while the history grows.

use crate::api::scan::{Reassignment, ReassignmentEvent};
use crate::model::reassign::{LinkTarget, resolve_link};
use crate::model::summary::short_party;

use super::details::{Details, Field, FieldStyle, created_fields, field, json_section};
use super::{Content, Shared, UpdatePane};

/// A reassignment on screen.
#[derive(Debug, Clone)]
pub(super) struct ReassignView {
    pub(super) link: Option<LinkTarget>,
    /// History length when the link was last looked for.
    pub(super) link_checked: usize,
    pub(super) details: Details,
}

impl UpdatePane {
    /// A reassignment whose other half was not loaded yet: looks again when the history grew.
    /// Returns whether the link appeared.
    pub(super) fn refresh_link(&mut self, sh: &Shared) -> bool {
        let Some(Content::Reassign(view)) = &self.content else {
            return false;
        };
        if view.link.is_some() || view.link_checked == sh.history.len() {
            return false;
        }
        let Some(r) = self.reassignment() else {
            return false;
        };
        let link = resolve_link(&sh.history, r);
        let details = link.as_ref().map(|l| reassign_details(r, Some(l)));
        let Some(Content::Reassign(view)) = &mut self.content else {
            return false;
        };
        view.link_checked = sh.history.len();
        match (link, details) {
            (Some(link), Some(mut details)) => {
                details.scroll = view.details.scroll;
                view.link = Some(link);
                view.details = details;
                true
            }
            _ => false,
        }
    }
}

/// The details of a reassignment.
pub(super) fn reassign_details(r: &Reassignment, link: Option<&LinkTarget>) -> Details {
    let mut fields = Vec::new();
    let mut sections = Vec::new();
    let ev = &r.event;
    let (kind, other, style) = match ev {
        ReassignmentEvent::Assign(_) => ("assign", "unassign", FieldStyle::Created),
        ReassignmentEvent::Unassign(_) => ("unassign", "assign", FieldStyle::Archived),
    };
    let (source, target, submitter, counter) = match ev {
        ReassignmentEvent::Assign(a) => (
            &a.source_synchronizer,
            &a.target_synchronizer,
            &a.submitter,
            a.reassignment_counter,
        ),
        ReassignmentEvent::Unassign(u) => (
            &u.source_synchronizer,
            &u.target_synchronizer,
            &u.submitter,
            u.reassignment_counter,
        ),
    };
    fields.push(field("kind", kind, style));
    fields.push(field("source", source.clone(), FieldStyle::Party));
    fields.push(field("target", target.clone(), FieldStyle::Party));
    fields.push(field("counter", counter.to_string(), FieldStyle::Text));
    fields.push(field("submitter", submitter.clone(), FieldStyle::Party));
    fields.push(field(
        "unassign id",
        ev.unassign_id().to_string(),
        FieldStyle::Id,
    ));
    let link_name: &'static str = if other == "assign" {
        "→ assign"
    } else {
        "← unassign"
    };
    fields.push(match link {
        Some(l) => Field {
            open: Some(l.update_id.clone()),
            ..field(link_name, l.update_id.clone(), FieldStyle::Link)
        },
        None => field(
            link_name,
            format!("the matching {other} is not in the loaded history"),
            FieldStyle::Muted,
        ),
    });
    let title = match ev {
        ReassignmentEvent::Assign(a) => {
            let c = &a.created_event;
            created_fields(c, &mut fields);
            sections.push(json_section("create_arguments", &c.create_arguments));
            format!("assign {} → {}", short_party(source), short_party(target))
        }
        ReassignmentEvent::Unassign(u) => {
            fields.push(field("contract", u.contract_id.clone(), FieldStyle::Id));
            format!("unassign {} → {}", short_party(source), short_party(target))
        }
    };
    Details::new(title, fields, sections, None)
}
