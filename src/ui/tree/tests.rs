use super::*;

/// children[i] lists the children of node i; roots given separately.
struct Vecs {
    roots: Vec<NodeId>,
    children: Vec<Vec<NodeId>>,
    parents: Vec<Option<NodeId>>,
}

impl Vecs {
    fn new(roots: Vec<NodeId>, children: Vec<Vec<NodeId>>) -> Self {
        let mut parents = vec![None; children.len()];
        for (p, cs) in children.iter().enumerate() {
            for &c in cs {
                parents[c] = Some(p);
            }
        }
        Vecs {
            roots,
            children,
            parents,
        }
    }
}

impl TreeSource for Vecs {
    fn roots(&self) -> &[NodeId] {
        &self.roots
    }
    fn children(&self, id: NodeId) -> &[NodeId] {
        self.children.get(id).map_or(&[], Vec::as_slice)
    }
    fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.parents.get(id).copied().flatten()
    }
    fn label(&self, id: NodeId, _theme: &Theme) -> Line<'_> {
        Line::from(format!("n{id}"))
    }
}

fn sample() -> Vecs {
    // 0 ─┬─ 1 ─── 3
    //    └─ 2
    // 4
    Vecs::new(
        vec![0, 4],
        vec![vec![1, 2], vec![3], vec![], vec![], vec![]],
    )
}

#[test]
fn commands_fold_a_node_and_hand_leaves_and_open_nodes_to_the_details() {
    let src = sample();
    let mut s = TreeState::new(&src);
    // → on closed 0 expands it; → again (open) asks for the details.
    assert_eq!(s.command(&src, Command::Right), TreeCommand::Done);
    assert!(s.is_expanded(0));
    assert_eq!(s.command(&src, Command::Right), TreeCommand::Details);
    // ↓ ↓ to leaf 2: Enter asks for the details, Backspace goes back to 0.
    s.command(&src, Command::Down);
    s.command(&src, Command::Down);
    assert_eq!(s.selected(), Some(2));
    assert_eq!(s.command(&src, Command::Select), TreeCommand::Details);
    assert_eq!(s.command(&src, Command::Parent), TreeCommand::Done);
    assert_eq!(s.selected(), Some(0));
    // Enter on an open node folds it.
    assert_eq!(s.command(&src, Command::Toggle), TreeCommand::Done);
    assert!(!s.is_expanded(0));
    assert_eq!(s.command(&src, Command::Copy), TreeCommand::Unused);
}

fn ids(s: &TreeState) -> Vec<NodeId> {
    s.visible_ids().collect()
}

#[test]
fn expand_collapse_incrementally_matches_rebuild() {
    let src = sample();
    let mut s = TreeState::new(&src);
    assert_eq!(ids(&s), [0, 4]);
    s.expand(&src);
    assert_eq!(ids(&s), [0, 1, 2, 4]);
    s.down(1);
    s.toggle(&src);
    assert_eq!(ids(&s), [0, 1, 3, 2, 4]);
    let mut fresh = s.clone();
    fresh.rebuild(&src);
    assert_eq!(fresh.rows, s.rows, "incremental rows equal a full rebuild");
    s.top();
    s.collapse();
    assert_eq!(ids(&s), [0, 4]);
    // expanding 0 again restores 1's expansion
    s.expand(&src);
    assert_eq!(ids(&s), [0, 1, 3, 2, 4]);
}

#[test]
fn expand_on_expanded_moves_to_child_and_collapse_on_leaf_moves_to_parent() {
    let src = sample();
    let mut s = TreeState::with_expanded_depth(&src, 5);
    assert_eq!(ids(&s), [0, 1, 3, 2, 4]);
    s.expand(&src);
    assert_eq!(s.selected(), Some(1));
    s.expand(&src);
    assert_eq!(s.selected(), Some(3));
    s.collapse();
    assert_eq!(s.selected(), Some(1));
    s.parent();
    assert_eq!(s.selected(), Some(0));
}

#[test]
fn expand_all_collapse_all_and_select_node() {
    let src = sample();
    let mut s = TreeState::new(&src);
    s.expand_all(&src);
    assert_eq!(ids(&s), [0, 1, 3, 2, 4]);
    s.bottom();
    s.up(2); // on 3
    assert_eq!(s.selected(), Some(3));
    s.collapse_all(&src);
    assert_eq!(ids(&s), [0, 4]);
    assert_eq!(s.selected(), Some(0));
    assert!(s.select_node(&src, 3));
    assert_eq!(s.selected(), Some(3));
    assert_eq!(ids(&s), [0, 1, 3, 2, 4]);
    assert!(!s.select_node(&src, 99));
}

#[test]
fn cycles_and_shared_children_do_not_hang() {
    // 0 → 1 → 0 (cycle), 1 → 1 (self loop)
    let src = Vecs {
        roots: vec![0],
        children: vec![vec![1], vec![0, 1]],
        parents: vec![Some(1), Some(0)],
    };
    let mut s = TreeState::new(&src);
    s.expand_all(&src);
    assert_eq!(ids(&s), [0, 1]);
    assert!(!s.select_node(&src, 1), "parent chain loops");
}

fn chain(n: usize) -> Vecs {
    let children: Vec<Vec<NodeId>> = (0..n)
        .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
        .collect();
    Vecs::new(vec![0], children)
}

fn row_text(buf: &Buffer, y: u16) -> String {
    (0..buf.area.width)
        .map(|x| buf[(x, y)].symbol())
        .collect::<String>()
        .trim_end()
        .to_string()
}

#[test]
fn the_row_where_expand_all_stops_says_so() {
    let src = chain(MAX_DEPTH + 40);
    let mut s = TreeState::new(&src);
    s.expand_all(&src);
    s.bottom();
    let theme = Theme::default();
    let mut buf = Buffer::empty(Rect::new(0, 0, 80, 3));
    s.set_viewport(3);
    s.render(&src, buf.area, &mut buf, &theme, true);
    let last = row_text(&buf, 2);
    assert!(
        last.contains("1 child not shown: depth limit 256"),
        "the cut row says so: {last:?}"
    );
    assert!(last.contains("⋯255 └─⋯ "), "{last:?}");
    assert!(last.ends_with(&format!("n{}", MAX_DEPTH - 1)), "{last:?}");
    // The row above is not cut: no note.
    assert!(!row_text(&buf, 1).contains("not shown"));
}

#[test]
fn deep_rows_keep_their_labels_on_screen() {
    let src = chain(200);
    let mut s = TreeState::new(&src);
    s.expand_all(&src);
    let theme = Theme::default();
    s.set_viewport(200);
    let mut buf = Buffer::empty(Rect::new(0, 0, 40, 200));
    s.render(&src, buf.area, &mut buf, &theme, true);
    for y in 0..200u16 {
        let text = row_text(&buf, y);
        assert!(
            text.ends_with(&format!("n{y}")),
            "row {y} shows its label within 40 columns: {text:?}"
        );
    }
    // Up to MAX_INDENT levels the guides indent; past it the depth is a number.
    assert_eq!(row_text(&buf, 2), "  └─▾ n2");
    assert!(
        row_text(&buf, 13).starts_with("⋯13 └─▾ "),
        "{}",
        row_text(&buf, 13)
    );
    assert!(row_text(&buf, 12).starts_with("                      └─▾ "));
}

#[test]
fn deep_chain_stops_at_max_depth() {
    let n = MAX_DEPTH * 2;
    let children: Vec<Vec<NodeId>> = (0..n)
        .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
        .collect();
    let src = Vecs::new(vec![0], children);
    let mut s = TreeState::new(&src);
    s.expand_all(&src);
    assert_eq!(s.visible_len(), MAX_DEPTH);
}
