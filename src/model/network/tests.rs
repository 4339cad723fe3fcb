use super::*;
use crate::api::scan::{DomainScans, ScanInfo};
use crate::model::format::{format_time_micros, parse_time_micros};

fn info(name: &str, url: &str) -> ScanInfo {
    ScanInfo {
        public_url: url.to_owned(),
        sv_name: name.to_owned(),
        ..ScanInfo::default()
    }
}

#[test]
fn the_global_synchronizer_is_picked() {
    let response = DsoScans {
        scans: vec![
            DomainScans {
                domain_id: "app-synchronizer::1220aa".into(),
                scans: vec![info("A", "https://a")],
                ..DomainScans::default()
            },
            DomainScans {
                domain_id: "global-domain::1220bb".into(),
                scans: vec![
                    info("SV-1", "https://one/"),
                    info("SV-2", "https://two"),
                    info("dup", "https://ONE"),
                    info("no url", ""),
                ],
                ..DomainScans::default()
            },
        ],
        ..DsoScans::default()
    };
    let list = ScanList::from_response(&response).expect("a list");
    assert_eq!(list.domain_id, "global-domain::1220bb");
    let urls: Vec<&str> = list.scans.iter().map(|s| s.url.as_str()).collect();
    assert_eq!(urls, ["https://one", "https://two"]);
    // Without a global synchronizer: the first entry.
    let other = DsoScans {
        scans: response.scans[..1].to_vec(),
        ..DsoScans::default()
    };
    assert_eq!(
        ScanList::from_response(&other).map(|l| l.domain_id),
        Some("app-synchronizer::1220aa".to_owned())
    );
    assert_eq!(ScanList::from_response(&DsoScans::default()), None);
}

#[test]
fn selection_pins_and_the_own_scan() {
    let list = ScanList {
        domain_id: "global-domain::x".into(),
        scans: ["SV-1", "SV-2", "SV-3"]
            .iter()
            .enumerate()
            .map(|(i, n)| ListedScan {
                sv_name: (*n).to_owned(),
                url: format!("https://s{i}.example"),
            })
            .collect(),
    };
    let (all, warnings) = select_scans(Some(&list), &ScanSelection::All, &[], None);
    assert_eq!(all.len(), 3);
    assert!(warnings.is_empty());
    let names = ScanSelection::Names(vec!["sv-2".into(), "SV-9".into()]);
    let pins = vec![
        "https://S0.example/".to_owned(),
        "http://tunnel:5012".to_owned(),
    ];
    let (picked, warnings) =
        select_scans(Some(&list), &names, &pins, Some("http://localhost:5012"));
    let summary: Vec<(&str, bool, bool, bool, bool)> = picked
        .iter()
        .map(|e| (e.sv_name.as_str(), e.listed, e.pinned, e.own, e.counted))
        .collect();
    assert_eq!(
        summary,
        [
            ("SV-1", true, true, false, true),
            ("SV-2", true, false, false, true),
            ("tunnel:5012", false, true, false, true),
            ("localhost:5012", false, false, true, false),
        ]
    );
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(quorum_of(&picked), (3, 0, 1));
    // The own scan, when listed, is that entry.
    let (own, _) = select_scans(
        Some(&list),
        &ScanSelection::All,
        &[],
        Some("https://s1.example/"),
    );
    assert_eq!(own.len(), 3);
    assert!(own[1].own && own[1].counted);
}

#[test]
fn cache_files_and_round_trip() {
    let a = cache_file_name(Some("main net"), "https://Scan.example/");
    assert_eq!(a, cache_file_name(Some("main net"), "https://scan.example"));
    assert!(
        a.starts_with("scans-main_net-")
            && std::path::Path::new(&a)
                .extension()
                .is_some_and(|e| e == "json"),
        "{a}"
    );
    assert_ne!(
        a,
        cache_file_name(Some("main net"), "https://other.example")
    );
    // The same seed with credentials keeps the same file (its name never depends on them).
    assert_eq!(
        a,
        cache_file_name(Some("main net"), "https://ops:s3cret@scan.example")
    );
    let cached = CachedScanList {
        seed: "https://scan.example".into(),
        fetched_at: 1_000,
        list: ScanList {
            domain_id: "global-domain::x".into(),
            scans: vec![ListedScan {
                sv_name: "SV-1".into(),
                url: "https://s".into(),
            }],
        },
    };
    assert_eq!(
        CachedScanList::from_json(&cached.to_json()),
        Some(cached.clone())
    );
    assert!(!cached.is_stale(1_000 + 599 * MICROS));
    assert!(cached.is_stale(1_000 + 600 * MICROS));
    assert_eq!(CachedScanList::from_json("{}"), None);
}

fn observation(head_age_s: i64, round_age_s: i64, now: i64) -> ScanObservation {
    ScanObservation {
        reachable: true,
        status: Some(NodeState::Active),
        head: Some(Ok(Some(HistoryHead {
            migration_id: 1,
            record_time: now - head_age_s * MICROS,
            update_id: "u".into(),
        }))),
        newest_round: Some(Ok(Some(RoundSeen {
            number: 7,
            created_at: now - round_age_s * MICROS,
        }))),
        ..ScanObservation::default()
    }
}

#[test]
fn health_rules_and_the_verdict_line() {
    let now = 1_800_000_000 * MICROS;
    let mut obs: Vec<ScanObservation> = (0..13).map(|_| observation(2, 100, now)).collect();
    obs[3] = observation(44, 100, now); // lagging 42 s behind the newest head
    obs[5] = ScanObservation {
        reachable: false,
        down_reason: Some("connection refused".into()),
        ..ScanObservation::default()
    };
    let counted = vec![true; 13];
    let t = HealthThresholds::default();
    let health = assess(&obs, &counted, now, &t);
    assert_eq!(
        health.verdict,
        "13 scans · 11 healthy · 1 lagging 42 s · 1 down · quorum 5 healthy ✓"
    );
    assert_eq!(health.outcome, HealthOutcome::Degraded);
    assert!(health.scans[3].lagging);
    assert_eq!(health.scans[5].state, HealthState::Down);

    // The rules: round older than 900 s, update older than 300 s.
    let old_round = assess(&[observation(2, 901, now)], &[true], now, &t);
    assert_eq!(old_round.scans[0].state, HealthState::Unhealthy);
    assert!(
        old_round.scans[0].reasons[0].contains("round 7"),
        "{:?}",
        old_round.scans[0]
    );
    let old_update = assess(&[observation(301, 10, now)], &[true], now, &t);
    assert_eq!(old_update.scans[0].state, HealthState::Unhealthy);
    assert_eq!(old_update.outcome, HealthOutcome::NoHealthyQuorum);
    let fine = assess(&[observation(299, 899, now)], &[true], now, &t);
    assert_eq!(fine.outcome, HealthOutcome::AllHealthy);
    assert_eq!(fine.verdict, "1 scan · 1 healthy · quorum 1 healthy ✓");
    // A head or a round a second ahead of our clock (a clock skew) is 0 s old, not -1 s.
    let ahead = assess(&[observation(-1, -1, now)], &[true], now, &t);
    assert_eq!(
        (ahead.scans[0].update_age, ahead.scans[0].round_age),
        (Some(0), Some(0))
    );
    assert_eq!(ahead.outcome, HealthOutcome::AllHealthy);

    // An uncounted scan is judged but not counted.
    let health = assess(
        &[observation(2, 1, now), observation(999, 1, now)],
        &[true, false],
        now,
        &t,
    );
    assert_eq!((health.n, health.unhealthy), (1, 0));
    assert_eq!(health.scans[1].state, HealthState::Unhealthy);
    assert_eq!(health.outcome, HealthOutcome::AllHealthy);
}

/// A history of one update per second in migrations 0..=2, ending at `end` (µs).
fn history(end: i64) -> Vec<HeadItem> {
    let mut items = Vec::new();
    for m in 0..3i64 {
        for k in 0..5_000i64 {
            let t = end - (2 - m) * 10_000 * MICROS - (4_999 - k) * MICROS;
            items.push(HeadItem {
                migration_id: m,
                record_time: t,
                record_time_text: format_time_micros(t),
                update_id: format!("u{m}-{k}"),
            });
        }
    }
    items
}

fn answer(items: &[HeadItem], probe: &HeadProbe) -> Vec<HeadItem> {
    let after = parse_time_micros(&probe.record_time).expect("time");
    items
        .iter()
        .filter(|i| {
            i.migration_id > probe.migration_id
                || (i.migration_id == probe.migration_id && i.record_time > after)
        })
        .take(probe.page_size)
        .cloned()
        .collect()
}

fn run(items: &[HeadItem], now: i64, hint: Option<i64>) -> (Option<HistoryHead>, u32) {
    let mut search = HeadSearch::new(now, hint);
    let mut requests = 0;
    while let Some(probe) = search.probe() {
        requests += 1;
        search.on_page(&answer(items, &probe));
        assert!(requests < 300);
    }
    (
        search.result().cloned().expect("done").expect("ok"),
        requests,
    )
}

#[test]
fn the_head_search_finds_the_newest_update() {
    let now = 1_800_000_000 * MICROS;
    for lag_s in [0, 5, 42, 700, 90_000] {
        let items = history(now - lag_s * MICROS);
        let (head, requests) = run(&items, now, None);
        let head = head.expect("a head");
        assert_eq!(head.update_id, "u2-4999", "lag {lag_s}");
        assert!(requests < 40, "{requests} requests at lag {lag_s}");
        let (hinted, _) = run(&items, now, Some(2));
        assert_eq!(hinted, Some(head.clone()));
        // A hint beyond the scan's newest migration still finds it.
        let (too_far, _) = run(&items, now, Some(5));
        assert_eq!(too_far, Some(head));
    }
    assert_eq!(run(&[], now, None).0, None);
    // From a known head: one request when less than a page came since.
    let items = history(now);
    let known = HistoryHead {
        migration_id: 2,
        record_time: items[items.len() - 10].record_time,
        update_id: items[items.len() - 10].update_id.clone(),
    };
    let mut search = HeadSearch::after(now, &known);
    let mut requests = 0;
    while let Some(probe) = search.probe() {
        requests += 1;
        search.on_page(&answer(&items, &probe));
    }
    assert_eq!(requests, 1);
    let found = search.result().cloned().expect("done").expect("ok");
    assert_eq!(found.map(|h| h.update_id), Some("u2-4999".to_owned()));
}

#[test]
fn a_scan_is_shown_by_host_and_path_never_its_credentials() {
    assert_eq!(
        url_host("https://scan.sv-1.example.com"),
        "scan.sv-1.example.com"
    );
    assert_eq!(url_host("http://127.0.0.1:7575/sv4/"), "127.0.0.1:7575/sv4");
    assert_eq!(
        url_host("https://user:pw@scan.example.com:443/api?x=1"),
        "scan.example.com:443/api"
    );
}

#[test]
fn urls_are_matched_without_their_user_info() {
    assert_eq!(
        without_userinfo("http://alice:pw@127.0.0.1:5012/sv2"),
        "http://127.0.0.1:5012/sv2"
    );
    assert_eq!(without_userinfo("https://h/p@x"), "https://h/p@x");
    assert_eq!(without_userinfo("no scheme"), "no scheme");
    assert!(has_userinfo("http://a@h") && !has_userinfo("http://h/a@b"));
    assert!(same_url("http://alice:pw@Host:1/", "http://host:1"));
    assert!(same_url("http://***@host:1", "http://alice:pw@host:1"));
    assert!(!same_url("http://alice:pw@host:1", "http://host:2"));
    assert_eq!(
        normalize_url("HTTP://alice:PW@Host:1/Sv2/"),
        "http://host:1/Sv2"
    );
}

/// The profile's own scan or a pin with credentials is the listed scan it names (one entry,
/// counted once), asked with those credentials; a listed URL's own user info is kept.
#[test]
fn a_scan_named_with_credentials_is_the_listed_one() {
    let list = ScanList {
        domain_id: "global-domain::x".into(),
        scans: vec![
            ListedScan {
                sv_name: "SV-1".into(),
                url: "http://127.0.0.1:5012".into(),
            },
            ListedScan {
                sv_name: "SV-2".into(),
                url: "http://127.0.0.1:5012/sv2".into(),
            },
            ListedScan {
                sv_name: "SV-3".into(),
                url: "http://carol:x@127.0.0.1:5012/sv3".into(),
            },
        ],
    };
    let pins = vec![
        "http://bob:pw2@127.0.0.1:5012/sv2/".to_owned(),
        "http://dave:y@127.0.0.1:5012/sv3".to_owned(),
    ];
    let (entries, _) = select_scans(
        Some(&list),
        &ScanSelection::All,
        &pins,
        Some("http://alice:pw@127.0.0.1:5012/"),
    );
    let summary: Vec<(&str, &str, bool, bool, bool)> = entries
        .iter()
        .map(|e| {
            (
                e.sv_name.as_str(),
                e.url.as_str(),
                e.pinned,
                e.own,
                e.counted,
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("SV-1", "http://alice:pw@127.0.0.1:5012", false, true, true),
            (
                "SV-2",
                "http://bob:pw2@127.0.0.1:5012/sv2",
                true,
                false,
                true
            ),
            (
                "SV-3",
                "http://carol:x@127.0.0.1:5012/sv3",
                true,
                false,
                true
            ),
        ]
    );
    assert_eq!(quorum_of(&entries).0, 3);
}

/// Issue 21: a backfilling scan and a rate-limited one are states of their own: not healthy
/// (not in the quorum), not faults (the network is still "all healthy"); the counts add up to n.
#[test]
fn backfilling_and_rate_limited_are_states_of_their_own() {
    let now = 1_800_000_000 * MICROS;
    let mut obs: Vec<ScanObservation> = (0..13).map(|_| observation(2, 100, now)).collect();
    obs[3].backfilling = true;
    obs[4].rate_limited = true;
    obs[4].status = Some(NodeState::Unknown("429".into()));
    let health = assess(&obs, &[true; 13], now, &HealthThresholds::default());
    assert_eq!(health.scans[3].state, HealthState::Backfilling);
    assert_eq!(health.scans[4].state, HealthState::RateLimited);
    assert_eq!(
        (health.healthy, health.backfilling, health.rate_limited),
        (11, 1, 1)
    );
    assert_eq!(
        health.healthy + health.backfilling + health.rate_limited + health.unhealthy + health.down,
        health.n
    );
    assert_eq!(health.outcome, HealthOutcome::AllHealthy);
    assert!(
        health.verdict.contains("1 backfilling · 1 rate-limited"),
        "{}",
        health.verdict
    );
}

#[test]
fn verdict_ingestion_lag_is_the_updates_head_minus_the_events_head() {
    let now = 1_800_000_000 * MICROS;
    let mut with = observation(2, 100, now);
    with.verdict_head = Some(Ok(Some(now - 9 * MICROS)));
    let mut old = observation(2, 100, now);
    old.verdict_head = Some(Ok(None));
    let mut failed = observation(2, 100, now);
    failed.verdict_head = Some(Err("timed out".into()));
    let h = assess(
        &[with, old, failed],
        &[true, true, true],
        now,
        &HealthThresholds::default(),
    );
    assert_eq!(h.scans[0].verdict_head, Some(now - 9 * MICROS));
    assert_eq!(h.scans[0].verdict_lag, Some(7 * MICROS));
    assert_eq!(h.scans[1].verdict_lag, None);
    assert_eq!(h.scans[2].verdict_lag, None);
    // The verdicts' head is not the history's head: it does not change the health.
    assert!(h.scans.iter().all(|s| s.state == HealthState::Healthy));
}
