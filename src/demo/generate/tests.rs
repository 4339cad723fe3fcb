use super::*;
use crate::demo::ledger::{Body, Node};
use crate::demo::topology::{MAX_SVS, NUM_SVS};

#[test]
fn history_is_ordered_and_large() {
    let now = 1_800_000_000 * SECOND;
    let (l, _) = generate_history(42, now, NUM_SVS);
    assert!(l.len() >= 10_000, "only {} updates", l.len());
    let ups = l.updates();
    for w in ups.windows(2) {
        assert!((w[0].migration_id, w[0].record_time) < (w[1].migration_id, w[1].record_time));
        assert!(w[0].record_time < w[1].record_time);
    }
    let last = ups.last().unwrap();
    assert!(now - last.record_time < 5 * SECOND);
    assert_eq!(l.current_migration_id(), 1);
    let max_events = ups
        .iter()
        .filter_map(|u| u.tx())
        .map(|t| t.nodes.iter().filter(|n| !n.is_fetch()).count())
        .max()
        .unwrap();
    assert!(max_events > 50, "largest tree has {max_events} events");
}

#[test]
fn same_seed_same_history() {
    let (a, _) = generate_history(7, 1_800_000_000 * SECOND, NUM_SVS);
    let (b, _) = generate_history(7, 1_800_000_000 * SECOND, NUM_SVS);
    assert_eq!(a.len(), b.len());
    assert_eq!(a.updates()[100].update_id, b.updates()[100].update_id);
    let (c, _) = generate_history(8, 1_800_000_000 * SECOND, NUM_SVS);
    assert_ne!(a.updates()[100].update_id, c.updates()[100].update_id);
}

/// A network of 13 SVs has the history of one of 4: the same updates, ids, times and
/// events, except that every `DsoRules` contract lists the 9 further SVs after the 4.
#[test]
fn more_svs_same_history_but_the_dso_rules() {
    let now = 1_800_000_000 * SECOND;
    let (small, _) = generate_history(42, now, NUM_SVS);
    let (big, _) = generate_history(42, now, MAX_SVS);
    assert_eq!(small.len(), big.len());
    let mut rules = 0;
    for (a, b) in small.updates().iter().zip(big.updates()) {
        let mut b = (**b).clone();
        if let Body::Tx(tx) = &mut b.body {
            for node in &mut tx.nodes {
                if let Node::Create(c) = node
                    && c.tpl == Tpl::DsoRules
                {
                    rules += 1;
                    let svs = c.args["svs"].as_array_mut().expect("svs");
                    assert_eq!(svs.len(), MAX_SVS);
                    let extra: Vec<&str> = svs[NUM_SVS..]
                        .iter()
                        .map(|sv| sv[1]["name"].as_str().expect("name"))
                        .collect();
                    let names: Vec<&str> = big.network().svs[NUM_SVS..]
                        .iter()
                        .map(|sv| sv.name.as_str())
                        .collect();
                    assert_eq!(extra, names);
                    svs.truncate(NUM_SVS);
                }
            }
        }
        assert_eq!(format!("{:?}", **a), format!("{b:?}"));
    }
    assert!(
        rules > 1,
        "the bootstrap's rules and those after accepted votes"
    );
}
