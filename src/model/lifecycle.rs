//! The lifecycle of a contract among the loaded updates: every loaded update that creates,
//! exercises, archives or reassigns it (found through the history's contract index), oldest
//! first, and which of them created it. The Update pane lists it (`c`).

use super::history::History;
use super::summary::{CONTRACT_ARCHIVED, CONTRACT_CREATED, SummaryKind, contract_key};

/// What an update did to the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Created,
    /// Exercised without archiving (a non-consuming choice, or a fetch).
    Exercised,
    Archived,
    /// Created and archived in the same update.
    CreatedArchived,
    Assigned,
    Unassigned,
}

impl Step {
    /// The word for it (`created`, `created+archived`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Step::Created => "created",
            Step::Exercised => "exercised",
            Step::Archived => "archived",
            Step::CreatedArchived => "created+archived",
            Step::Assigned => "assigned",
            Step::Unassigned => "unassigned",
        }
    }

    /// Whether the update created the contract.
    pub fn creates(self) -> bool {
        matches!(self, Step::Created | Step::CreatedArchived)
    }
}

/// One loaded update touching the contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LifeEntry {
    pub update_id: String,
    pub record_time: i64,
    /// The one-line summary of the update's root action.
    pub label: String,
    pub step: Step,
}

/// The loaded updates touching a contract, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lifecycle {
    pub contract_id: String,
    pub entries: Vec<LifeEntry>,
}

impl Lifecycle {
    /// The lifecycle of `contract_id` among the updates loaded in `history`.
    pub fn build(history: &History, contract_id: &str) -> Self {
        let key = contract_key(contract_id);
        let interner = &history.summarizer.interner;
        let mut entries = Vec::new();
        for i in history.contract_updates(contract_id) {
            let Some(s) = history.get(i) else { continue };
            let flags = s.contract_flags(key).unwrap_or(0);
            let step = match (
                s.kind(),
                flags & CONTRACT_CREATED != 0,
                flags & CONTRACT_ARCHIVED != 0,
            ) {
                (SummaryKind::Assign, _, _) => Step::Assigned,
                (SummaryKind::Unassign, _, _) => Step::Unassigned,
                (_, true, true) => Step::CreatedArchived,
                (_, true, false) => Step::Created,
                (_, false, true) => Step::Archived,
                (_, false, false) => Step::Exercised,
            };
            entries.push(LifeEntry {
                update_id: s.update_id().to_string(),
                record_time: s.record_time(),
                label: s.root_label(interner),
                step,
            });
        }
        Lifecycle {
            contract_id: contract_id.to_string(),
            entries,
        }
    }

    /// The loaded update creating the contract (None: created before the loaded history).
    pub fn creation(&self) -> Option<&LifeEntry> {
        self.entries.iter().find(|e| e.step.creates())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::{created, exercised, history, reassignment, transaction};

    const C: &str = "00a1a1a1a1a1a1a1a1ca101220bb";
    const OTHER: &str = "00b2b2b2b2b2b2b2b2ca101220cc";

    fn steps(l: &Lifecycle) -> Vec<(&str, &str)> {
        l.entries
            .iter()
            .map(|e| (e.update_id.as_str(), e.step.as_str()))
            .collect()
    }

    #[test]
    fn creation_exercises_archive_and_reassignments_in_order() {
        let h = history(&[
            transaction("t1", 1, vec![created("t1", 0, C)]),
            transaction("t2", 2, vec![exercised("t2", 0, C, "Amulet_Fetch", false)]),
            transaction("t3", 3, vec![created("t3", 0, OTHER)]),
            reassignment("u1", 30, false, "move-1", C),
            reassignment("a1", 31, true, "move-1", C),
            transaction("t4", 40, vec![exercised("t4", 0, C, "Archive", true)]),
        ]);
        let l = Lifecycle::build(&h, C);
        assert_eq!(l.contract_id, C);
        assert_eq!(
            steps(&l),
            [
                ("t1", "created"),
                ("t2", "exercised"),
                ("u1", "unassigned"),
                ("a1", "assigned"),
                ("t4", "archived"),
            ]
        );
        assert_eq!(l.creation().map(|e| e.update_id.as_str()), Some("t1"));
        assert!(l.entries[1].record_time > l.entries[0].record_time);
    }

    #[test]
    fn created_and_archived_at_once_or_before_the_history() {
        let h = history(&[transaction(
            "t1",
            1,
            vec![created("t1", 0, C), exercised("t1", 1, C, "Archive", true)],
        )]);
        let l = Lifecycle::build(&h, C);
        assert_eq!(steps(&l), [("t1", "created+archived")]);
        assert!(l.creation().is_some());

        let h = history(&[transaction(
            "t2",
            2,
            vec![exercised("t2", 0, C, "Archive", true)],
        )]);
        let l = Lifecycle::build(&h, C);
        assert_eq!(steps(&l), [("t2", "archived")]);
        assert_eq!(l.creation(), None, "created before the loaded history");
        assert!(Lifecycle::build(&h, OTHER).entries.is_empty());
    }
}
