//! What the ledger holds: updates (transactions with their tree of create, exercise and fetch
//! nodes, and reassignments).

use serde_json::Value;

use crate::demo::topology::{PartyIdx, SyncIdx, Tpl};

#[derive(Clone, Debug)]
pub struct CreateNode {
    pub contract_id: String,
    pub tpl: Tpl,
    pub args: Value,
    pub signatories: Vec<PartyIdx>,
    pub observers: Vec<PartyIdx>,
}

impl CreateNode {
    pub fn stakeholders(&self) -> impl Iterator<Item = PartyIdx> + '_ {
        self.signatories
            .iter()
            .chain(self.observers.iter())
            .copied()
    }
}

#[derive(Clone, Debug)]
pub struct ExerciseNode {
    pub contract_id: String,
    pub tpl: Tpl,
    pub choice: &'static str,
    pub argument: Value,
    pub result: Value,
    pub consuming: bool,
    pub actors: Vec<PartyIdx>,
    /// Signatories and observers of the target contract.
    pub signatories: Vec<PartyIdx>,
    pub observers: Vec<PartyIdx>,
    pub children: Vec<u32>,
    pub last_descendant: u32,
}

#[derive(Clone, Debug)]
pub enum Node {
    Create(CreateNode),
    Exercise(ExerciseNode),
    /// A fetch: occupies a node id but is never shown (this is what makes node ids have gaps).
    Fetch {
        contract_id: String,
        tpl: Tpl,
    },
}

impl Node {
    /// Informees of the action: stakeholders of a create; actors plus signatories (plus observers
    /// when consuming) of an exercise.
    pub fn informees(&self) -> Vec<PartyIdx> {
        let mut v: Vec<PartyIdx> = match self {
            Node::Create(c) => c.stakeholders().collect(),
            Node::Exercise(e) => {
                let mut v: Vec<PartyIdx> = e.actors.iter().chain(&e.signatories).copied().collect();
                if e.consuming {
                    v.extend(&e.observers);
                }
                v
            }
            Node::Fetch { .. } => Vec::new(),
        };
        v.sort_unstable();
        v.dedup();
        v
    }

    pub fn is_fetch(&self) -> bool {
        matches!(self, Node::Fetch { .. })
    }

    pub fn children(&self) -> &[u32] {
        match self {
            Node::Exercise(e) => &e.children,
            _ => &[],
        }
    }
}

#[derive(Clone, Debug)]
pub struct Tx {
    pub workflow_id: String,
    pub command_id: String,
    pub sync: SyncIdx,
    pub effective_at: i64,
    /// Pre-order; the index is the node id.
    pub nodes: Vec<Node>,
    pub roots: Vec<u32>,
    pub external_hash: Option<String>,
    /// The mediator rejected this request (demo: only status reports and activity markers,
    /// which move no holdings): it is no update, only an event with a verdict
    /// ([`super::Ledger::verdicts_only`]).
    pub rejected: bool,
    pub round: u64,
    pub submitters: Vec<PartyIdx>,
    /// The app provider credited in the app activity record, if any.
    pub app_provider: Option<PartyIdx>,
    /// Finalization time minus record time.
    pub finalization_delay: i64,
}

impl Tx {
    /// Parent of each node (`u32::MAX` for roots).
    pub fn parents(&self) -> Vec<u32> {
        let mut parent = vec![u32::MAX; self.nodes.len()];
        for (i, n) in self.nodes.iter().enumerate() {
            for c in n.children() {
                if let Some(p) = parent.get_mut(*c as usize) {
                    *p = i as u32;
                }
            }
        }
        parent
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReassignKind {
    Unassign,
    Assign,
}

#[derive(Clone, Debug)]
pub struct Reassign {
    pub kind: ReassignKind,
    pub submitter: PartyIdx,
    pub source: SyncIdx,
    pub target: SyncIdx,
    pub unassign_id: String,
    pub counter: i64,
    /// The contract (for an assignment: its create event, with the original creation time).
    pub create: CreateNode,
    pub created_at: i64,
}

#[derive(Clone, Debug)]
pub enum Body {
    Tx(Tx),
    Reassign(Reassign),
}

#[derive(Clone, Debug)]
pub struct Update {
    pub update_id: String,
    pub migration_id: i64,
    pub record_time: i64,
    pub body: Body,
}

impl Update {
    /// The record time as the APIs render it.
    pub fn record_time_string(&self) -> String {
        crate::demo::util::fmt_time(self.record_time)
    }

    pub fn tx(&self) -> Option<&Tx> {
        match &self.body {
            Body::Tx(t) => Some(t),
            Body::Reassign(_) => None,
        }
    }

    pub fn sync(&self) -> SyncIdx {
        match &self.body {
            Body::Tx(t) => t.sync,
            Body::Reassign(r) => match r.kind {
                ReassignKind::Unassign => r.source,
                ReassignKind::Assign => r.target,
            },
        }
    }
}
