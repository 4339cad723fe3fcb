//! The pace of the loader's requests: a scan is asked at most a few pages a second after a
//! burst; the local index (`--offline`) without a pace.

use super::tests::{Rig, SEC, T0, page, tx};
use super::*;

#[test]
fn discovery_never_bursts_beyond_a_few_requests_a_second() {
    // A server with ever newer migrations (each probe answers with migration k + 1).
    let mut rig = Rig::new(T0);
    rig.intent(LoaderIntent::Start(StartFrom::Recent { window_secs: 600 }));
    let mut sent = 1;
    let mut at_once = 1;
    for ms in 0..10_000 {
        rig.now = T0 + ms * 1_000;
        while let Some((_, r)) = rig.pending.first().cloned() {
            let PageFetch {
                purpose: UpdatesPurpose::Discover { migration },
                ..
            } = r
            else {
                panic!("still discovering: {r:?}");
            };
            let (_, out) = rig.answer(page(vec![tx(
                migration as u64,
                migration + 1,
                T0 + migration * SEC,
            )]));
            sent += out.fetches.len();
            if ms == 0 {
                at_once += out.fetches.len();
            }
        }
        sent += rig.tick(rig.now).fetches.len();
    }
    let allowed = usize::try_from(PACE_BURST + 10 * PACE_PER_SEC).expect("small");
    assert!(sent <= allowed + 1, "{sent} requests in 10 s");
    assert!(
        at_once <= usize::try_from(PACE_BURST).expect("small"),
        "{at_once} at once"
    );
    assert!(sent >= 40, "it keeps going at the pace: {sent}");
}

#[test]
fn offline_the_index_is_asked_without_the_scans_pace() {
    // A bench index of 200 migrations, read with --offline: found at once, not 4 a second.
    let mut rig = Rig::new(T0);
    rig.loader.set_unpaced(true);
    rig.intent(LoaderIntent::Start(StartFrom::Recent { window_secs: 600 }));
    let mut probes = 0;
    while let Some((_, r)) = rig.pending.first().cloned() {
        let PageFetch {
            purpose: UpdatesPurpose::Discover { migration },
            ..
        } = r
        else {
            break;
        };
        probes += 1;
        let next = if migration < 200 {
            vec![tx(migration as u64, migration + 1, T0 + migration * SEC)]
        } else {
            vec![]
        };
        rig.answer(page(next));
    }
    assert_eq!(
        probes, 201,
        "every migration probed with the clock standing still"
    );
    assert_eq!(rig.feed.migration, Some(200));
    assert_eq!(rig.feed.phase, Phase::Seek { secs: 600 });
}
