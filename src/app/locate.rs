//! View locators in the app: the locator of what the focused pane shows (`W` copies it) and
//! the intents that go to one (`:open`, `cantonscope open`). The grammar is
//! [`crate::model::locator`]'s.

use crate::model::locator::{self, Locator};
use crate::msg::Tabs;
use crate::panes::{AppEvent, PaneId};

use super::state::App;

/// The locator word of a pane (`network`).
pub fn pane_word(p: PaneId) -> String {
    p.title().to_lowercase()
}

/// The pane a locator word names.
pub fn pane_of_word(word: &str) -> Option<PaneId> {
    PaneId::ALL.iter().copied().find(|p| pane_word(*p) == word)
}

/// The locator of the view shown now: the focused pane and what it has open or selected.
pub fn current(app: &App) -> Locator {
    let whole = |id: &str| locator::update_id(id).ok();
    match app.focus {
        PaneId::Update => match app.panes.update_pane.update_id().and_then(whole) {
            Some(update_id) => Locator::Update {
                update_id,
                verdict: false,
            },
            None => Locator::Pane(pane_word(PaneId::Update)),
        },
        PaneId::Verdict => match app
            .panes
            .verdict
            .update_id()
            .or(app.sh.current_update.as_deref())
            .and_then(whole)
        {
            Some(update_id) => Locator::Update {
                update_id,
                verdict: true,
            },
            None => Locator::Pane(pane_word(PaneId::Verdict)),
        },
        PaneId::Network => match app.panes.network.checked_update().and_then(whole) {
            Some(id) => Locator::NetworkCheck(id),
            None => Locator::Pane(pane_word(PaneId::Network)),
        },
        PaneId::History => {
            let history = &app.panes.history;
            let party = history.filter_text().and_then(|f| {
                let f = f.trim();
                locator::party_id(f.strip_prefix("party:").unwrap_or(f)).ok()
            });
            let at = if history.is_following() {
                None
            } else {
                history
                    .selected(&app.sh)
                    .map(crate::model::summary::UpdateSummary::record_time)
            };
            Locator::History { party, at }
        }
        PaneId::Holdings => match app
            .panes
            .holdings
            .selected_party()
            .or_else(|| {
                app.panes
                    .holdings
                    .query
                    .as_ref()
                    .and_then(|q| q.owners.first().map(String::as_str))
            })
            .and_then(|p| locator::party_id(p).ok())
        {
            Some(p) => Locator::Holdings(p),
            None => Locator::Pane(pane_word(PaneId::Holdings)),
        },
        PaneId::Governance => match app
            .panes
            .governance
            .chosen()
            .and_then(|r| locator::contract_id(&r.key).ok())
        {
            Some(cid) => Locator::GovernanceRequest(cid),
            None => Locator::Pane(pane_word(PaneId::Governance)),
        },
        other => Locator::Pane(pane_word(other)),
    }
}

/// The intents that show the view `loc` names, in order.
pub fn intents(loc: &Locator) -> Vec<AppEvent> {
    match loc {
        Locator::Pane(word) => vec![AppEvent::Focus(
            pane_of_word(word).unwrap_or(PaneId::History),
        )],
        Locator::Update { update_id, verdict } => {
            let mut v = vec![AppEvent::OpenUpdate {
                update_id: update_id.clone(),
                event_id: None,
            }];
            if *verdict {
                v.push(AppEvent::Focus(PaneId::Verdict));
            }
            v
        }
        Locator::History { party, at } => {
            let mut v = Vec::new();
            if let Some(t) = at {
                v.push(AppEvent::GoToTime(*t));
            }
            if let Some(p) = party {
                v.push(AppEvent::FilterHistory(format!("party:{p}")));
            }
            if v.is_empty() {
                v.push(AppEvent::Focus(PaneId::History));
            }
            v
        }
        Locator::NetworkCheck(id) => vec![AppEvent::CheckUpdate(id.clone())],
        Locator::Holdings(_) | Locator::GovernanceRequest(_) => vec![AppEvent::Open(loc.clone())],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_locator_pane_words_are_the_pane_titles() {
        let words: Vec<String> = PaneId::ALL.iter().map(|p| pane_word(*p)).collect();
        assert_eq!(words, locator::PANES.map(str::to_owned).to_vec());
    }
}
