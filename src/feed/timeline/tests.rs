//! The timeline's pure tests: the index's rows, the scan's rows of its gaps and the loaded
//! rows as one list.
use super::*;
use crate::model::index::read::Hole;

#[test]
fn the_scans_rows_take_their_places_among_the_index_rows_in_one_scroll() {
    let hole = |after: Option<(i64, i64)>, offset: u64| Hole {
        after,
        through: None,
        offset,
    };
    let mut r = Timeline::new(0, Some(1_000), Land::Loaded);
    r.list.scroll.set_len(10);
    r.fill = Some(ScanFill::with_gaps(vec![
        (hole(None, 0), 2),
        (hole(Some((0, 50)), 4), 3),
        (hole(Some((0, 90)), 10), 1),
    ]));
    r.sync(2, 1);
    // The scan's 2, index 0–3, the scan's 3, index 4–9, the scan's 1, the loaded 2.
    let want = [
        Place::Scan(0, 0),
        Place::Scan(0, 1),
        Place::Index(0),
        Place::Index(1),
        Place::Index(2),
        Place::Index(3),
        Place::Scan(1, 0),
        Place::Scan(1, 1),
        Place::Scan(1, 2),
        Place::Index(4),
        Place::Index(5),
        Place::Index(6),
        Place::Index(7),
        Place::Index(8),
        Place::Index(9),
        Place::Scan(2, 0),
        Place::Loaded(0),
        Place::Loaded(1),
    ];
    for (j, place) in want.iter().enumerate() {
        assert_eq!(r.place(j), *place, "row {j}");
        assert_eq!(r.joint_of(*place), j, "{place:?}");
    }
    assert_eq!(r.above(), 16);
    // The selection stayed on the loaded row selected; on a scan row it stays there as
    // the list is brought in step again.
    assert_eq!(r.cursor(), 17);
    assert!(!r.in_index());
    r.joint.select(7);
    r.settle();
    assert!(r.in_index());
    r.sync(2, 1);
    assert_eq!(r.cursor(), 7);
    assert_eq!(r.selected().map(|row| row.update_id.as_str()), Some("s1"));
    assert!(r.selected().is_some_and(|row| row.from_scan));
}
