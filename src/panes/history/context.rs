//! The context of a whole-history search hit (`N` on a result): the [`CONTEXT_N`] updates just
//! before and after it that touch the same party or contract, read from the local index by
//! the runtime ([`IndexRead::Context`]). Which party or contract: the search's own `party:` or
//! `contract:` term first (what was searched for), then each party of the hit (the DSO, a
//! party of nearly every update, last); `N` again moves to the next. Listed newest first as
//! the search is, the hit marked and selected; Enter opens one, Esc goes back to the results.
//!
//! ```text
//! ┌Context · party:alice::1220… · 10 before, 10 after the hit ─────────────────────────┐
//! │Time (UTC)              Update          Kind         Action                 Parties │
//! │…                                                                                   │
//! │2026-11-27 10:41:07.123 d17b…9f1e       transaction  AmuletRules_Transfer   alice +2│  ← the hit
//! │…                                                                                   │
//! │N next party or contract (2 of 4) · ↵ open · y copy id · Esc back to the results    │
//! └────────────────────────────────────────────────────────────────────────────────────┘
//! ```

use crate::model::format::parse_time_micros;
use crate::model::index::SearchRow;
use crate::model::index::query::Query;
use crate::model::index::read::{IndexAnswer, IndexRead};
use crate::model::scroll::ScrollState;
use crate::msg::{Fetched, Request, RequestId, Response};

use super::super::{Out, Shared};

/// Updates read on each side of a hit.
pub const CONTEXT_N: usize = 10;

/// What the DSO party's id starts with (it touches nearly every update: its context is the
/// history itself, so it comes last).
const DSO_HINT: &str = "DSO::";

/// A hit's context.
#[derive(Debug, Clone)]
pub struct HitContext {
    /// The hit.
    pub hit: SearchRow,
    /// The terms it can be read over (`party:…`, `contract:…`) and the one shown.
    pub terms: Vec<String>,
    pub which: usize,
    /// The read in flight.
    pending: Option<RequestId>,
    /// Newest first: the updates after the hit, the hit, the updates before it.
    pub rows: Vec<SearchRow>,
    /// The hit's row in `rows`.
    pub hit_row: usize,
    /// How many of `rows` are after and before the hit.
    pub after: usize,
    pub before: usize,
    pub error: Option<String>,
    pub scroll: ScrollState,
}

/// The terms a hit's context can be read over: the search's `party:` and `contract:` terms,
/// then the hit's parties (the DSO last), each once.
pub fn context_terms(search: &str, hit: &SearchRow) -> Vec<String> {
    let mut terms: Vec<String> = search
        .split_whitespace()
        .filter(|w| w.starts_with("party:") || w.starts_with("contract:"))
        .map(str::to_owned)
        .collect();
    let (dso, others): (Vec<&String>, Vec<&String>) =
        hit.parties.iter().partition(|p| p.starts_with(DSO_HINT));
    for party in others.into_iter().chain(dso) {
        let term = format!("party:{party}");
        if !terms.contains(&term) {
            terms.push(term);
        }
    }
    terms
}

impl HitContext {
    /// The context of `hit` found by the search `search` (its text), read over its first term;
    /// `None` when the hit names no party and the search no party or contract.
    pub fn open(search: &str, hit: &SearchRow, sh: &mut Shared, out: &mut Out) -> Option<Self> {
        let terms = context_terms(search, hit);
        if terms.is_empty() {
            out.info("this update names no party, and the search no party or contract: no context to read");
            return None;
        }
        let mut context = HitContext {
            hit: hit.clone(),
            terms,
            which: 0,
            pending: None,
            rows: vec![hit.clone()],
            hit_row: 0,
            after: 0,
            before: 0,
            error: None,
            scroll: ScrollState::new(1),
        };
        context.read(sh, out);
        Some(context)
    }

    /// The term shown.
    pub fn term(&self) -> &str {
        self.terms.get(self.which).map_or("", String::as_str)
    }

    /// Whether its read is in flight.
    pub fn is_loading(&self) -> bool {
        self.pending.is_some()
    }

    /// `N` again: the next term (round).
    pub fn next_term(&mut self, sh: &mut Shared, out: &mut Out) {
        self.which = (self.which + 1) % self.terms.len().max(1);
        self.read(sh, out);
    }

    fn read(&mut self, sh: &mut Shared, out: &mut Out) {
        let query = match Query::parse(&[self.term()]) {
            Ok(q) => q,
            Err(e) => {
                self.error = Some(e);
                return;
            }
        };
        self.error = None;
        self.pending = Some(out.fetch(
            sh,
            Request::Index(IndexRead::Context {
                query,
                at: parse_time_micros(&self.hit.record_time).unwrap_or(0),
                update_id: self.hit.update_id.clone(),
                n: CONTEXT_N,
            }),
        ));
    }

    /// The reply to its read; whether it was one.
    pub fn on_reply(&mut self, reply: &Fetched) -> bool {
        if self.pending != Some(reply.id) {
            return false;
        }
        self.pending = None;
        match &reply.result {
            Ok(Response::Index(answer)) => match answer.as_ref() {
                Ok(IndexAnswer::Context { before, after }) => {
                    self.after = after.len();
                    self.before = before.len();
                    self.rows = after
                        .iter()
                        .chain(std::iter::once(&self.hit))
                        .chain(before)
                        .cloned()
                        .collect();
                    self.hit_row = after.len();
                    let viewport = self.scroll.viewport();
                    self.scroll = ScrollState::new(self.rows.len());
                    self.scroll.set_viewport(viewport);
                    self.scroll.select(self.hit_row);
                }
                Ok(_) => self.error = Some("unexpected answer from the local index".to_owned()),
                Err(f) => self.error = Some(f.message.clone()),
            },
            Ok(_) => self.error = Some("unexpected answer from the local index".to_owned()),
            Err(e) => self.error = Some(e.to_string()),
        }
        true
    }

    /// The selected row.
    pub fn selected(&self) -> Option<&SearchRow> {
        self.rows.get(self.scroll.cursor())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(parties: &[&str]) -> SearchRow {
        SearchRow {
            record_time: "2026-01-01T00:00:00Z".into(),
            update_id: "1220ab".into(),
            migration_id: 0,
            kind: "transaction".into(),
            root_action: "AmuletRules_Transfer".into(),
            parties: parties.iter().map(|p| (*p).to_owned()).collect(),
        }
    }

    #[test]
    fn the_searched_party_or_contract_first_then_the_hits_parties_the_dso_last() {
        let hit = row(&["DSO::1220d", "alice::1220a", "bob::1220b"]);
        assert_eq!(
            context_terms("choice:X contract:00ab12 party:bob::1220b", &hit),
            [
                "contract:00ab12",
                "party:bob::1220b",
                "party:alice::1220a",
                "party:DSO::1220d"
            ]
        );
        assert!(context_terms("choice:X", &row(&[])).is_empty());
    }
}
