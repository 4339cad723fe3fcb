//! Where a vote request's updates are. Scan's contracts and results carry no update id, so
//! they are found by contract id: the update that created the request (`trackingCid ?? contract
//! id`), and for a closed request the update that closed it: the request is followed through
//! the votes that re-created it (each `DsoRules_CastVote` archives the request and creates it
//! again) to the update that archives it while exercising `DsoRules_CloseVoteRequest`.
//!
//! Two sources answer the same question: the loaded history ([`vote_updates_loaded`], from the
//! summaries' contract keys and choices) and update bodies, as the local index keeps them
//! ([`vote_updates_in`], over a reader of the updates touching a contract id).

use crate::api::scan::{TreeEvent, UpdateItem};
use crate::model::history::History;
use crate::model::summary::{CONTRACT_ARCHIVED, CONTRACT_CREATED, contract_key};

/// The choice that closes a vote request.
pub const CLOSE_CHOICE: &str = "DsoRules_CloseVoteRequest";
/// The choices of a vote, which re-create the request.
const VOTE_CHOICES: [&str; 2] = ["DsoRules_CastVote", "VoteRequest_CastVote"];
/// Most re-creations followed (a request is re-created once per vote).
const MAX_CHAIN: usize = 100;

/// The updates of a vote request that were found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VoteUpdates {
    /// The update creating the request.
    pub creation: Option<String>,
    /// The update closing it (asked for closed requests only).
    pub close: Option<String>,
}

/// The updates of the request first created as `contract_id` among the loaded updates (`close`:
/// the closing one too).
pub fn vote_updates_loaded(history: &History, contract_id: &str, close: bool) -> VoteUpdates {
    let mut found = VoteUpdates::default();
    if contract_id.is_empty() {
        return found;
    }
    let mut key = contract_key(contract_id);
    found.creation = with_flag(history, key, CONTRACT_CREATED).map(|s| s.update_id().to_string());
    if !close {
        return found;
    }
    let interner = &history.summarizer.interner;
    let sym = |name: &str| interner.get(name);
    let close_sym = sym(CLOSE_CHOICE);
    let vote_syms: Vec<_> = VOTE_CHOICES.iter().filter_map(|c| sym(c)).collect();
    for _ in 0..MAX_CHAIN {
        let Some(s) = with_flag(history, key, CONTRACT_ARCHIVED) else {
            break;
        };
        if close_sym.is_some_and(|c| s.has_sym(c)) {
            found.close = Some(s.update_id().to_string());
            break;
        }
        if !vote_syms.iter().any(|v| s.has_sym(*v)) {
            break;
        }
        // A vote: the one contract it creates is the request again.
        let mut created = s
            .contracts()
            .filter(|c| *c & CONTRACT_CREATED != 0)
            .map(contract_key_of)
            .filter(|k| *k != key);
        match (created.next(), created.next()) {
            (Some(next), None) => key = next,
            _ => break,
        }
    }
    found
}

/// The key of a summary's contract entry (its flag bits cleared).
fn contract_key_of(entry: u64) -> u64 {
    entry & !(CONTRACT_CREATED | CONTRACT_ARCHIVED)
}

/// The first loaded update touching the contract of `key` with `flag`.
fn with_flag(
    history: &History,
    key: u64,
    flag: u64,
) -> Option<&crate::model::summary::UpdateSummary> {
    history
        .iter()
        .find(|s| s.contract_flags(key).is_some_and(|f| f & flag != 0))
}

/// The updates of the request first created as `contract_id`, from update bodies: `touching`
/// reads the updates touching a contract id (the local index's `contract:` key); `close`: the
/// closing update too.
pub fn vote_updates_in<E>(
    mut touching: impl FnMut(&str) -> Result<Vec<UpdateItem>, E>,
    contract_id: &str,
    close: bool,
) -> Result<VoteUpdates, E> {
    let mut found = VoteUpdates::default();
    if contract_id.is_empty() {
        return Ok(found);
    }
    let mut current = contract_id.to_owned();
    for step in 0..MAX_CHAIN {
        let items = touching(&current)?;
        if step == 0 {
            found.creation = items
                .iter()
                .find(|i| events(i).any(|e| creates(e, &current)))
                .and_then(update_id);
        }
        if !close {
            break;
        }
        let Some(archiving) = items
            .iter()
            .find(|i| events(i).any(|e| archives(e, &current)))
        else {
            break;
        };
        if events(archiving).any(|e| exercises(e, CLOSE_CHOICE)) {
            found.close = update_id(archiving);
            break;
        }
        if !events(archiving).any(|e| VOTE_CHOICES.iter().any(|c| exercises(e, c))) {
            break;
        }
        let mut next = events(archiving).filter_map(|e| match e {
            TreeEvent::Created(c)
                if c.contract_id != current && c.template_id.ends_with(":VoteRequest") =>
            {
                Some(c.contract_id.clone())
            }
            _ => None,
        });
        match (next.next(), next.next()) {
            (Some(n), None) => current = n,
            _ => break,
        }
    }
    Ok(found)
}

fn events(item: &UpdateItem) -> impl Iterator<Item = &TreeEvent> {
    let tx = match item {
        UpdateItem::Transaction(t) => Some(t),
        _ => None,
    };
    tx.into_iter().flat_map(|t| t.events_by_id.values())
}

fn update_id(item: &UpdateItem) -> Option<String> {
    match item {
        UpdateItem::Transaction(t) => Some(t.update_id.clone()),
        _ => None,
    }
}

fn creates(e: &TreeEvent, cid: &str) -> bool {
    matches!(e, TreeEvent::Created(c) if c.contract_id == cid)
}

fn archives(e: &TreeEvent, cid: &str) -> bool {
    matches!(e, TreeEvent::Exercised(x) if x.consuming && x.contract_id == cid)
}

fn exercises(e: &TreeEvent, choice: &str) -> bool {
    matches!(e, TreeEvent::Exercised(x) if x.choice == choice)
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::model::fixtures::{created, exercised, history, item, transaction};

    const T: &str = "00aa000000000000000000000001";
    const C1: &str = "00bb000000000000000000000002";
    const C2: &str = "00cc000000000000000000000003";
    const RULES: &str = "00dd000000000000000000000004";

    fn request(update: &str, n: u32, cid: &str) -> Value {
        let mut e = created(update, n, cid);
        e["template_id"] = "pkg:Splice.DsoRules:VoteRequest".into();
        e
    }

    /// A vote re-creating the request `old` as `new`.
    fn vote(update: &str, second: u32, old: &str, new: &str) -> Value {
        transaction(
            update,
            second,
            vec![
                exercised(update, 0, RULES, "DsoRules_CastVote", false),
                exercised(update, 1, old, "VoteRequest_CastVote", true),
                request(update, 2, new),
            ],
        )
    }

    /// A request T, two votes re-creating it (C1, C2), then its close, among other updates.
    fn chain() -> Vec<Value> {
        vec![
            transaction(
                "u-request",
                1,
                vec![
                    exercised("u-request", 0, RULES, "DsoRules_RequestVote", false),
                    request("u-request", 1, T),
                ],
            ),
            transaction("u-other", 2, vec![created("u-other", 0, RULES)]),
            vote("u-vote1", 3, T, C1),
            vote("u-vote2", 4, C1, C2),
            transaction(
                "u-close",
                5,
                vec![
                    exercised("u-close", 0, RULES, CLOSE_CHOICE, false),
                    exercised("u-close", 1, C2, "Archive", true),
                ],
            ),
        ]
    }

    fn reader(updates: &[Value]) -> impl FnMut(&str) -> Result<Vec<UpdateItem>, ()> + '_ {
        move |cid| {
            Ok(updates
                .iter()
                .map(item)
                .filter(|i| events(i).any(|e| e.contract_id() == cid))
                .collect())
        }
    }

    #[test]
    fn the_close_is_found_through_the_votes_that_re_created_the_request() {
        let updates = chain();
        let want = VoteUpdates {
            creation: Some("u-request".into()),
            close: Some("u-close".into()),
        };
        assert_eq!(vote_updates_loaded(&history(&updates), T, true), want);
        assert_eq!(vote_updates_in(reader(&updates), T, true), Ok(want));
        // The creation alone, for an open request.
        let open = vote_updates_loaded(&history(&updates), C1, false);
        assert_eq!(open.creation.as_deref(), Some("u-vote1"));
        assert_eq!(open.close, None);
    }

    #[test]
    fn a_request_not_closed_or_not_there_finds_nothing_it_cannot_see() {
        let mut updates = chain();
        updates.pop();
        let found = vote_updates_loaded(&history(&updates), T, true);
        assert_eq!(found.creation.as_deref(), Some("u-request"));
        assert_eq!(found.close, None, "still open");
        assert_eq!(
            vote_updates_in(reader(&updates), T, true).map(|f| f.close),
            Ok(None)
        );
        // The creation outside the history: the close is still found.
        let later = chain().split_off(2);
        let found = vote_updates_in(reader(&later), T, true).expect("read");
        assert_eq!(found.creation, None);
        assert_eq!(found.close.as_deref(), Some("u-close"));
        assert_eq!(
            vote_updates_loaded(&history(&later), T, true)
                .close
                .as_deref(),
            Some("u-close")
        );
        assert_eq!(
            vote_updates_loaded(&history(&updates), "", true),
            VoteUpdates::default()
        );
    }
}
