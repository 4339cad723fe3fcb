//! The shape every event tree shares: roots, children and parent by node index. The scan tree
//! (`child_event_ids`), the ledger tree (node-id ranges) and the verdict's view tree
//! (`sub_views`) each build one [`Forest`] and reach it through `Deref`; what a node shows stays
//! with its tree, and the tree view (`ui::tree`) walks any of them the same way.

use super::NodeId;

/// Roots, children and parents of a tree of nodes numbered `0..len` in the order they were added.
#[derive(Debug, Clone, Default)]
pub struct Forest {
    roots: Vec<NodeId>,
    children: Vec<Vec<NodeId>>,
    parents: Vec<Option<NodeId>>,
}

impl Forest {
    /// An empty forest with room for `n` nodes.
    pub fn with_capacity(n: usize) -> Self {
        Forest {
            roots: Vec::new(),
            children: Vec::with_capacity(n),
            parents: Vec::with_capacity(n),
        }
    }

    /// Adds a node as the last child of `parent` (the last root when `None`) and returns its id.
    /// `parent` must be a node added before.
    pub fn push(&mut self, parent: Option<NodeId>) -> NodeId {
        let id = self.parents.len();
        self.children.push(Vec::new());
        self.parents.push(parent);
        match parent.and_then(|p| self.children.get_mut(p)) {
            Some(siblings) => siblings.push(id),
            None => self.roots.push(id),
        }
        id
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.parents.len()
    }

    /// Whether the forest has no nodes.
    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    /// The top-level nodes, in order.
    pub fn roots(&self) -> &[NodeId] {
        &self.roots
    }

    /// The children of `id`, in order (empty for leaves and unknown ids).
    pub fn children(&self, id: NodeId) -> &[NodeId] {
        self.children.get(id).map_or(&[], Vec::as_slice)
    }

    /// The parent of `id` (`None` for roots and unknown ids).
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.parents.get(id).copied().flatten()
    }

    /// Every node in pre-order (tree order): each root, then its subtree, children in order.
    pub fn preorder(&self) -> impl Iterator<Item = NodeId> + '_ {
        let mut stack: Vec<NodeId> = self.roots.iter().rev().copied().collect();
        std::iter::from_fn(move || {
            let n = stack.pop()?;
            stack.extend(self.children(n).iter().rev());
            Some(n)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_links_both_ways_and_preorder_follows_insertion() {
        let mut f = Forest::default();
        let a = f.push(None);
        let b = f.push(None);
        let a1 = f.push(Some(a));
        let b1 = f.push(Some(b));
        let a2 = f.push(Some(a));
        let a11 = f.push(Some(a1));
        assert_eq!(f.roots(), [a, b]);
        assert_eq!(f.children(a), [a1, a2]);
        assert_eq!(f.parent(a11), Some(a1));
        assert_eq!(f.parent(a), None);
        assert_eq!(f.len(), 6);
        assert_eq!(f.preorder().collect::<Vec<_>>(), [a, a1, a11, a2, b, b1]);
        assert!(f.children(99).is_empty() && f.parent(99).is_none());
    }
}
