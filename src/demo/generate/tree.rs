//! Building one transaction tree of a generated update.

use serde_json::{Value, json};

use crate::demo::ledger::{ExerciseNode, Node};
use crate::demo::topology::PartyIdx;

use super::Con;

/// Builds one transaction tree in pre-order (a node's subtree is added right after it).
pub(super) struct TreeB {
    nodes: Vec<Node>,
    roots: Vec<u32>,
}

impl TreeB {
    pub(super) fn new() -> TreeB {
        TreeB {
            nodes: Vec::new(),
            roots: Vec::new(),
        }
    }

    pub(super) fn add(&mut self, parent: Option<u32>, node: Node) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(node);
        match parent {
            None => self.roots.push(id),
            Some(p) => {
                if let Some(Node::Exercise(e)) = self.nodes.get_mut(p as usize) {
                    e.children.push(id);
                }
            }
        }
        id
    }

    /// Adds an exercise of `choice` on `con` by `actors`; a `consuming` one archives `con`.
    pub(super) fn exercise(
        &mut self,
        parent: Option<u32>,
        con: &Con,
        choice: &'static str,
        argument: Value,
        consuming: bool,
        actors: Vec<PartyIdx>,
    ) -> u32 {
        let node = Node::Exercise(ExerciseNode {
            contract_id: con.cid.clone(),
            tpl: con.tpl,
            choice,
            argument,
            result: json!({}),
            consuming,
            actors,
            signatories: con.sigs.clone(),
            observers: con.obs.clone(),
            children: Vec::new(),
            last_descendant: 0,
        });
        self.add(parent, node)
    }

    pub(super) fn archive(&mut self, parent: Option<u32>, con: &Con, actors: Vec<PartyIdx>) {
        self.exercise(parent, con, "Archive", json!({}), true, actors);
    }

    pub(super) fn set_result(&mut self, id: u32, result: Value) {
        if let Some(Node::Exercise(e)) = self.nodes.get_mut(id as usize) {
            e.result = result;
        }
    }

    pub(super) fn finish(mut self) -> (Vec<Node>, Vec<u32>) {
        let n = self.nodes.len();
        let mut last = vec![0u32; n];
        for i in (0..n).rev() {
            last[i] = match self.nodes[i].children().last() {
                Some(c) => last[*c as usize],
                None => i as u32,
            };
        }
        for (i, node) in self.nodes.iter_mut().enumerate() {
            if let Node::Exercise(e) = node {
                e.last_descendant = last[i];
            }
        }
        (self.nodes, self.roots)
    }
}
