//! The packed summary block's round trips, through [`super::summary::UpdateSummary`].

use super::intern::Sym;
use super::summary::{SummaryKind, SummaryParts, UpdateSummary};
use super::summary_pack::*;
use super::summary_telling::{Telling, TellingKind};

const HEX: &str = "1220c7d293ea23275dcc7bfef9d47fa10e76477d26c93db4074ee5dff5e2cd8a5680";

fn roots() -> Vec<RootAction> {
    let tellings = TellingKind::ALL.into_iter().map(|kind| {
        RootAction::Telling(Telling {
            kind,
            party: Sym(1),
            other: Sym(2),
            units: 3,
            scale: 4,
            more_receivers: 5,
            more: 6,
        })
    });
    let mut roots = vec![
        RootAction::None,
        RootAction::Exercise {
            template: Sym(7),
            choice: Sym(300_000),
            more_roots: u16::MAX,
        },
        RootAction::Create {
            template: Sym(u32::MAX),
            more_roots: 0,
        },
        RootAction::Reassign {
            source: Sym(1),
            target: Sym(2),
            counter: i64::MIN,
            link: Sym(129),
        },
        RootAction::Telling(Telling {
            kind: TellingKind::Unlock,
            party: Sym(5),
            other: Sym::NONE,
            units: -1_234_567_890_123,
            scale: 10,
            more_receivers: u8::MAX,
            more: 600,
        }),
    ];
    roots.extend(tellings);
    roots
}

#[test]
fn the_summary_slot_stays_32_bytes() {
    assert_eq!(std::mem::size_of::<UpdateSummary>(), 32);
}

#[test]
fn hostile_and_non_hex_update_ids_are_kept_exactly() {
    let hostile = [
        "",
        "1220",
        &HEX.to_uppercase(),
        &HEX[..67],
        &format!("{HEX}0"),
        &HEX.replacen("1220", "1221", 1),
        &HEX.replacen('c', "g", 1),
        &HEX.replacen('c', "\u{202e}", 1),
        "\u{1b}[31mred\u{1b}[0m\n::1220ab",
        "update-1",
        "00",
    ];
    for id in hostile {
        let s = UpdateSummary::new(&SummaryParts {
            record_time: 1,
            migration_id: 2,
            update_id: id,
            synchronizer: Sym(3),
            event_count: 4,
            kind: SummaryKind::Transaction,
            root: RootAction::None,
            syms: &[Sym(9), Sym(1)],
            contracts: &[8, 4],
        });
        assert_eq!(s.update_id().as_str(), id);
        assert!(matches!(s.update_id(), UpdateIdText::Raw(_)), "{id:?}");
        assert!(s.update_id_is(id), "{id:?}");
        assert!(!s.update_id_is(HEX), "{id:?}");
        assert_eq!(s.syms().collect::<Vec<_>>(), [Sym(1), Sym(9)]);
        assert_eq!(s.contracts().collect::<Vec<_>>(), [4, 8]);
        assert_eq!(s.event_count(), 4);
    }
    // The usual form is kept as bytes, and spelt out again exactly.
    let s = UpdateSummary::new(&SummaryParts {
        record_time: 1,
        migration_id: 2,
        update_id: HEX,
        synchronizer: Sym(3),
        event_count: 4,
        kind: SummaryKind::Transaction,
        root: RootAction::None,
        syms: &[],
        contracts: &[],
    });
    assert!(matches!(s.update_id(), UpdateIdText::Hex(_)));
    assert_eq!(s.update_id().as_str(), HEX);
    assert!(s.update_id_is(HEX));
    assert!(!s.update_id_is(&HEX.to_uppercase()));
    assert!(!s.update_id_is(&HEX.replacen('c', "d", 1)));
}

#[test]
fn every_field_round_trips_through_the_packed_block() {
    let migrations = [0, 1, 4, 65_534, 65_535, 65_536, -1, i64::MAX, i64::MIN];
    let syms: Vec<Sym> = [0, 1, 127, 128, 16_383, 16_384, u32::MAX]
        .into_iter()
        .map(Sym)
        .collect();
    let contracts = [0, 3, 0x8000_0000_0000_0000, u64::MAX];
    for (i, root) in roots().into_iter().enumerate() {
        for &migration_id in &migrations {
            for event_count in [0, 1, 200, u32::MAX] {
                let s = UpdateSummary::new(&SummaryParts {
                    record_time: i64::MIN + i as i64,
                    migration_id,
                    update_id: if i % 2 == 0 { HEX } else { "x" },
                    synchronizer: Sym(42),
                    event_count,
                    kind: SummaryKind::Assign,
                    root,
                    syms: &syms,
                    contracts: &contracts,
                });
                assert_eq!(s.record_time(), i64::MIN + i as i64);
                assert_eq!(s.migration_id(), migration_id);
                assert_eq!(s.at().migration_id, migration_id);
                assert_eq!(s.synchronizer(), Sym(42));
                assert_eq!(s.event_count(), event_count);
                assert_eq!(s.kind(), SummaryKind::Assign);
                assert_eq!(s.root(), root);
                assert_eq!(s.syms().collect::<Vec<_>>(), syms);
                assert!(s.has_sym(Sym(16_384)) && !s.has_sym(Sym(2)));
                assert_eq!(s.contracts().collect::<Vec<_>>(), contracts);
                let moved = s.with_id_and_time("y", 5);
                assert_eq!((moved.update_id().as_str(), moved.record_time()), ("y", 5));
                assert_eq!(moved.root(), root);
                assert_eq!(moved.migration_id(), migration_id);
            }
        }
    }
}
