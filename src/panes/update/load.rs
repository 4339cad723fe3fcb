//! Loading an update into the Update pane: the request for its body (from the scan, or the
//! local index's copy), the index's reply, showing a loaded body, and moving between updates
//! (following a link, and back).

use std::sync::Arc;

use crate::api::scan::{EventHistoryItem, UpdateItem};
use crate::model::event_tree::ScanTree;
use crate::model::index::read::{KeptEventsOf, KeptOrigin};
use crate::model::reassign::resolve_link;
use crate::model::summary::short_id;
use crate::msg::{Effect, KeptBody, Request};
use crate::ui::safe::sanitize;
use crate::ui::tree::TreeState;

use super::details::tx_details;
use super::reassign::{ReassignView, reassign_details};
use super::{
    Content, EXPAND_ALL_MAX_EVENTS, Focus, INITIAL_DEPTH, Out, Shared, TxView, UpdatePane, Want,
};

/// The request for an update's body and verdict: the runtime reads it from the scan, or the
/// local index's copy (`--offline`, or the scan not answering).
fn event_request(update_id: &str) -> Request {
    Request::Body {
        update_id: update_id.to_owned(),
    }
}

/// The update of a body the index keeps (the item's JSON; `None`: an event with a verdict and
/// no update), as the pane shows bodies. With the events parts it keeps (when they do not
/// decode, the update alone).
fn body_of_kept(item_json: Option<&str>, events: &KeptEventsOf) -> Option<EventHistoryItem> {
    serde_json::from_str(&events.item_json(item_json))
        .ok()
        .or_else(|| {
            item_json.and_then(|item| {
                serde_json::from_str(&KeptEventsOf::NotSynced.item_json(Some(item))).ok()
            })
        })
}

impl UpdatePane {
    /// Follows a link to another update, remembering where we were (Esc comes back).
    pub(super) fn navigate(&mut self, update_id: &str, want: Want, sh: &mut Shared, out: &mut Out) {
        if let Some(current) = &self.update_id
            && current != update_id
        {
            let event = self.selected_event_id().map(str::to_string);
            self.back.push((current.clone(), event));
        }
        self.load(update_id, want, sh, out);
    }

    pub(super) fn load(&mut self, update_id: &str, want: Want, sh: &mut Shared, out: &mut Out) {
        self.lifecycle = None;
        self.whole_value = None;
        self.save = None;
        sh.current_update = Some(update_id.to_string());
        let same = self.update_id.as_deref() == Some(update_id);
        if same && self.content.is_some() && self.pending.is_none() {
            self.apply_want(&want);
            return;
        }
        if same && self.content.is_none() && self.pending.is_some() {
            // Already on its way: only the selection changes.
            self.want = want;
            return;
        }
        self.update_id = Some(update_id.to_string());
        self.error = None;
        self.from_index = false;
        self.body = None;
        self.content = None;
        self.focus = Focus::Tree;
        if let Some(old) = self.pending.take() {
            out.effects.push(Effect::Cancel(old));
        }
        if let Some(body) = sh.bodies.get(update_id) {
            self.show(body, &want, sh);
        } else {
            self.want = want;
            self.pending = Some(out.fetch(sh, event_request(update_id)));
        }
    }

    /// Refetches the open update, keeping what is shown until the reply arrives.
    pub(super) fn refresh(&mut self, sh: &mut Shared, out: &mut Out) {
        let Some(id) = self.update_id.clone() else {
            return;
        };
        if let Some(old) = self.pending.take() {
            out.effects.push(Effect::Cancel(old));
        }
        self.want = match self.selected_event_id() {
            Some(e) => Want::Event(e.to_string()),
            None => std::mem::take(&mut self.want),
        };
        self.error = None;
        self.pending = Some(out.fetch(sh, event_request(&id)));
    }

    /// The local index's copy of the open update, read in place of the scan's (`--offline`, or
    /// the scan did not answer: `kept.scan_failed`).
    pub(super) fn on_kept_body(
        &mut self,
        id: crate::msg::RequestId,
        update_id: &str,
        kept: &KeptBody,
        sh: &mut Shared,
        out: &mut Out,
    ) {
        if self.pending != Some(id) || self.update_id.as_deref() != Some(update_id) {
            return;
        }
        self.pending = None;
        let short = short_id(&sanitize(update_id), 16);
        if let Some(failure) = &kept.scan_failed {
            self.error = Some(failure.to_string());
            out.warn(format!(
                "update {short}: {failure}; showing the local index's copy"
            ));
        }
        let answer = kept.reply.clone().map_err(|f| f.message);
        match answer {
            Ok(crate::model::index::read::IndexAnswer::Body { body, events })
                if body.is_some()
                    || matches!(
                        events,
                        KeptEventsOf::Kept {
                            verdict_only: true,
                            ..
                        }
                    ) =>
            {
                // An event with a verdict and no update has no body: its item is the kept parts
                // with `update: null`, which the Verdict pane shows.
                let json = body.as_deref();
                match body_of_kept(json, &events) {
                    Some(body) => {
                        let body = Arc::new(body);
                        let synced = matches!(events, KeptEventsOf::Kept { .. });
                        if kept.scan_failed.is_none() || synced {
                            // No node to ask for the verdict (or none answered and the index
                            // keeps it): the Verdict pane shows the kept one, and says so.
                            sh.bodies.insert(update_id.to_owned(), body.clone());
                            let scans = match events {
                                KeptEventsOf::Kept { scans, .. } => scans,
                                KeptEventsOf::NotSynced => Vec::new(),
                            };
                            sh.kept_origins.insert(
                                update_id.to_owned(),
                                Arc::new(KeptOrigin {
                                    body: body.clone(),
                                    events_synced: synced,
                                    scans,
                                    scan_failed: kept.scan_failed.is_some(),
                                }),
                            );
                        }
                        let want = std::mem::take(&mut self.want);
                        self.error = None;
                        self.from_index = true;
                        self.show(body, &want, sh);
                    }
                    None => {
                        self.error =
                            Some("the local index keeps a body that does not decode".into());
                    }
                }
            }
            Ok(_) => {
                let why = if kept.scan_failed.is_none() {
                    "not in the local index (or kept without its body: --no-bodies); --offline asks no node"
                } else {
                    "the scan did not answer and the local index does not keep it"
                };
                self.error = Some(why.to_owned());
                out.warn(format!("update {short}: {why}"));
            }
            Err(e) => {
                self.error = Some(e.clone());
                out.error(format!("update {short}: {e}"));
            }
        }
    }

    /// Shows a loaded body.
    pub(super) fn show(&mut self, body: Arc<EventHistoryItem>, want: &Want, sh: &Shared) {
        let content = match &body.update {
            Some(UpdateItem::Transaction(_)) => match ScanTree::from_body(body.clone()) {
                Some(tree) => {
                    let state = if tree.len() <= EXPAND_ALL_MAX_EVENTS {
                        let mut s = TreeState::new(&tree);
                        s.expand_all(&tree);
                        s
                    } else {
                        TreeState::with_expanded_depth(&tree, INITIAL_DEPTH)
                    };
                    let details = tx_details(&tree, state.selected());
                    Content::Tx(Box::new(TxView {
                        tree,
                        state,
                        details,
                    }))
                }
                None => Content::NoUpdate,
            },
            Some(UpdateItem::Reassignment(r)) => {
                let link = resolve_link(&sh.history, r);
                Content::Reassign(Box::new(ReassignView {
                    details: reassign_details(r, link.as_ref()),
                    link,
                    link_checked: sh.history.len(),
                }))
            }
            _ => Content::NoUpdate,
        };
        self.focus = match content {
            Content::Tx(_) => Focus::Tree,
            _ => Focus::Details,
        };
        self.body = Some(body);
        self.content = Some(content);
        self.apply_want(want);
        self.apply_viewports();
    }

    /// Back: closes the innermost thing, or returns to the previous update.
    pub(super) fn back(&mut self, sh: &mut Shared, out: &mut Out) -> bool {
        if self.focus == Focus::Details && self.focus_tree() {
            return true;
        }
        if let Some((id, event)) = self.back.pop() {
            let want = event.map_or(Want::Nothing, Want::Event);
            self.load(&id, want, sh, out);
            return true;
        }
        false
    }
}
