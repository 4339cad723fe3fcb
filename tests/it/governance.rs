//! Governance: the typed calls over real HTTP against the demo network, which serves the vote
//! requests, their results and price votes consistently with its history (open requests keyed
//! by their tracking id, every outcome, filters and page tokens, 400 / 404 as the scans answer),
//! and what the model makes of them (tallies, my SV's vote, weight history).

use cantonscope::api::scan::{
    self, RewardWeightRequest, VoteOutcome, VoteResult, VoteResultsFilter, VoteResultsRequest,
};
use cantonscope::api::{ApiClient, ApiConfig, ApiError};
use cantonscope::demo::{self, DemoConfig, DemoFaults};
use cantonscope::model::governance::{MyVote, OpenRequest, Outcome, Tally, weight_history};
use std::time::Duration;

fn client(scan_url: &str) -> ApiClient {
    ApiClient::new(ApiConfig {
        scan_url: Some(scan_url.to_owned()),
        ..ApiConfig::default()
    })
    .expect("client")
}

/// Four scans; the fourth lags by 42 s and lacks the first day of vote history.
fn config() -> DemoConfig {
    DemoConfig {
        scans: 4,
        faults: DemoFaults {
            lagging: Some((3, Duration::from_secs(42))),
            ..DemoFaults::default()
        },
        ..DemoConfig::default()
    }
}

/// Every result of a scan, paging with its own tokens.
async fn all_results(c: &ApiClient, filter: &VoteResultsFilter, limit: i64) -> Vec<VoteResult> {
    let mut out = Vec::new();
    let mut token = None;
    for _ in 0..100 {
        let page = c
            .send(&scan::vote_results(&VoteResultsRequest {
                filter: filter.clone(),
                limit,
                page_token: token,
            }))
            .await
            .expect("results");
        out.extend(page.results);
        match page.next_page_token {
            Some(t) if Some(t) != token => token = Some(t),
            _ => return out,
        }
    }
    panic!("no last page");
}

#[tokio::test]
async fn open_requests_votes_and_my_sv() {
    let d = demo::start(config()).await.expect("demo");
    let c = client(&d.scan_url);
    let dso = c.send(&scan::dso()).await.expect("dso");
    let me = dso.own_sv().expect("the scan's SV").clone();
    let open = c.send(&scan::vote_requests()).await.expect("requests");
    assert!(open.requests.len() >= 2, "{}", open.requests.len());
    let rows: Vec<OpenRequest> = open
        .requests
        .iter()
        .map(|r| {
            OpenRequest::of(
                r,
                &dso.svs,
                dso.voting_threshold,
                Some((Some(&me.name), Some(&me.party))),
            )
        })
        .collect();
    // Re-created by votes: keyed on the tracking id, not the contract id.
    assert!(
        rows.iter()
            .any(|r| r.tracking_cid.as_deref() == Some(r.key.as_str()) && r.key != r.contract_id)
    );
    let mine: Vec<MyVote> = rows.iter().filter_map(|r| r.my_vote).collect();
    assert!(mine.contains(&MyVote::Needed), "{mine:?}");
    assert!(mine.contains(&MyVote::Accepted), "{mine:?}");
    // The config change carries its baseConfig and a targetEffectiveAt; one tag is unknown.
    let config = open
        .requests
        .iter()
        .find(|r| r.action.name == "SRARC_SetConfig")
        .expect("a config change");
    assert!(config.action.value["baseConfig"].is_object());
    assert!(config.target_effective_at.is_some());
    let unknown = rows
        .iter()
        .find(|r| r.action_name == "SRARC_DemoFutureAction")
        .expect("an unknown action");
    assert_eq!(unknown.action, "SRARC_DemoFutureAction (not known here)");
    assert!(unknown.action_json["value"]["dsoAction"]["value"]["note"].is_string());
    // Tallies count current SVs only and add up.
    for r in &rows {
        let t: Tally = r.tally;
        assert_eq!(t.accept + t.reject + t.not_yet, dso.svs.len());
        assert!(t.accept >= 1, "the requester accepts");
        assert_eq!(t.threshold, Some(3));
    }
    // Look-ups: by contract id, by tracking id, in a batch; unknown ids are 404 / left out.
    let first = &open.requests[0];
    let one = c
        .send(&scan::vote_request(&first.contract_id))
        .await
        .expect("lookup");
    assert_eq!(one.request.key(), first.key());
    let batch = c
        .send(&scan::vote_requests_by_cid(&[
            first.key().to_owned(),
            "00nope".to_owned(),
        ]))
        .await
        .expect("batch");
    assert_eq!(batch.requests.len(), 1);
    match c.send(&scan::vote_request("00nope")).await {
        Err(ApiError::NotFound { .. }) => {}
        other => panic!("expected 404, got {other:?}"),
    }
}

#[tokio::test]
async fn results_every_outcome_filters_pages_and_counts() {
    let d = demo::start(config()).await.expect("demo");
    let c = client(&d.scan_url);
    let all = all_results(&c, &VoteResultsFilter::default(), 4).await;
    let count = c
        .send(&scan::vote_results_count(&VoteResultsFilter::default()))
        .await
        .expect("count");
    assert_eq!(i64::try_from(all.len()).unwrap(), count.count);
    // Newest first, no page twice.
    let dates: Vec<&str> = all.iter().map(VoteResult::effective_date).collect();
    let mut sorted = dates.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(dates, sorted);
    let outcomes: Vec<Outcome> = all.iter().map(|r| Outcome::of(&r.outcome)).collect();
    for o in [
        Outcome::Accepted,
        Outcome::Rejected,
        Outcome::Expired,
        Outcome::AcceptedButFailed,
    ] {
        assert!(outcomes.contains(&o), "{o:?} in {outcomes:?}");
    }
    let failed = all
        .iter()
        .find(|r| matches!(r.outcome, VoteOutcome::AcceptedButActionFailed { .. }))
        .expect("failed");
    assert_eq!(failed.offboarded_voters, ["Retired-Node-7"]);
    assert!(failed.request.vote_of("Retired-Node-7").is_some());
    // Server-side filters: accepted, a substring of the action name, the effective date.
    let accepted = VoteResultsFilter {
        accepted: Some(true),
        ..VoteResultsFilter::default()
    };
    let acc = all_results(&c, &accepted, 100).await;
    assert_eq!(
        acc.len(),
        outcomes.iter().filter(|o| **o == Outcome::Accepted).count()
    );
    let config = VoteResultsFilter {
        action_name: Some("SetConfig".into()),
        ..VoteResultsFilter::default()
    };
    let conf = all_results(&c, &config, 100).await;
    assert!(!conf.is_empty());
    assert!(
        conf.iter()
            .all(|r| r.request.action.name.contains("SetConfig"))
    );
    let middle = dates[dates.len() / 2].to_owned();
    let since = VoteResultsFilter {
        effective_from: Some(middle.clone()),
        ..VoteResultsFilter::default()
    };
    let recent = c
        .send(&scan::vote_results_count(&since))
        .await
        .expect("count");
    assert_eq!(
        recent.count,
        i64::try_from(dates.iter().filter(|d| **d >= middle.as_str()).count()).unwrap()
    );
    // The weight history is the accepted weight changes, consistent with /v0/dso and with
    // previous-sv-reward-weight.
    let dso = c.send(&scan::dso()).await.expect("dso");
    let mut checked = 0;
    for sv in &dso.svs {
        let steps = weight_history(&all, &sv.party);
        let Some(last) = steps.last() else { continue };
        checked += 1;
        assert_eq!(sv.reward_weight, Some(last.weight), "{}", sv.name);
        let prev = c
            .send(&scan::previous_sv_reward_weight(&RewardWeightRequest {
                sv_party: sv.party.clone(),
                effective_before: None,
            }))
            .await
            .expect("previous");
        assert_eq!(prev.reward_weight, Some(last.weight.to_string()));
    }
    assert!(checked >= 2, "weight changes of {checked} SVs");
}

#[tokio::test]
async fn a_lagging_scan_misses_results_and_bad_bodies_are_400() {
    let d = demo::start(config()).await.expect("demo");
    let head = client(&d.scan_urls[0]);
    let lagging = client(&d.scan_urls[3]);
    let all = VoteResultsFilter::default();
    let here = head
        .send(&scan::vote_results_count(&all))
        .await
        .expect("count");
    let there = lagging
        .send(&scan::vote_results_count(&all))
        .await
        .expect("count");
    assert!(
        there.count < here.count,
        "{} vs {}",
        there.count,
        here.count
    );
    // Page tokens are each scan's own row numbers.
    let page = |c: &ApiClient| {
        let c = c.clone();
        async move {
            c.send(&scan::vote_results(&VoteResultsRequest {
                filter: VoteResultsFilter::default(),
                limit: 2,
                page_token: None,
            }))
            .await
            .expect("page")
        }
    };
    let (a, b) = (page(&head).await, page(&lagging).await);
    assert_ne!(a.next_page_token, b.next_page_token);
    let base = format!("{}/api/scan", d.scan_url);
    for body in [
        serde_json::json!({}),
        serde_json::json!({"limit": "ten"}),
        serde_json::json!({"limit": 0}),
        serde_json::json!({"limit": 5, "accepted": "yes"}),
        serde_json::json!({"limit": 5, "effectiveFrom": "yesterday"}),
        serde_json::json!({"limit": 5, "pageToken": "x"}),
    ] {
        let (status, reply) =
            crate::common::http::post(&format!("{base}/v0/admin/sv/voteresults"), &body).await;
        assert_eq!(status.as_u16(), 400, "{body}");
        assert!(reply["error"].is_string());
    }
    let (status, _) = crate::common::http::post(
        &format!("{base}/v0/voterequest"),
        &serde_json::json!({"vote_request_contract_ids": [1]}),
    )
    .await;
    assert_eq!(status.as_u16(), 400);
    let votes = head
        .send(&scan::amulet_price_votes())
        .await
        .expect("price votes");
    assert_eq!(votes.votes.len(), 4);
    assert!(votes.votes.iter().any(|v| v.amulet_price.is_none()));
}

// ---------------------------------------------------------------------------------------------
// The headless commands, run as the binary against a demo network.

mod cli {
    use std::process::Output;

    use serde_json::Value;

    use crate::common::bin::{bin, runtime};

    /// A demo network (one scan at the head) for the duration of `f`.
    fn with_demo(f: impl FnOnce(&str, &std::path::Path)) {
        let rt = runtime();
        let demo = rt
            .block_on(cantonscope::demo::start(
                cantonscope::demo::DemoConfig::default(),
            ))
            .expect("demo");
        let dir = tempfile::tempdir().expect("tempdir");
        f(&demo.scan_url, dir.path());
        drop(demo);
    }

    fn run(dir: &std::path::Path, scan_url: &str, args: &[&str]) -> Output {
        bin(dir)
            .arg("--scan-url")
            .arg(scan_url)
            .arg("governance")
            .args(args)
            .output()
            .expect("runs")
    }

    fn err(o: &Output) -> String {
        String::from_utf8_lossy(&o.stderr).into_owned()
    }

    fn json(o: &Output) -> Value {
        serde_json::from_slice(&o.stdout).expect("JSON on stdout")
    }

    #[test]
    fn requests_and_needs_vote() {
        with_demo(|url, dir| {
            let o = run(dir, url, &["requests"]);
            assert_eq!(o.status.code(), Some(0), "{}", err(&o));
            let v = json(&o);
            assert_eq!(v["my_sv"]["name"], "Aurora-Node-1");
            let reqs = v["requests"].as_array().expect("requests");
            assert!(reqs.len() >= 2);
            let deadlines: Vec<&str> = reqs
                .iter()
                .map(|r| r["vote_before"].as_str().expect("deadline"))
                .collect();
            let mut sorted = deadlines.clone();
            sorted.sort_unstable();
            assert_eq!(deadlines, sorted, "soonest deadline first");
            // The DsoRules config change: only what it changes, against its baseConfig.
            let config = reqs
                .iter()
                .find(|r| r["action_name"] == "SRARC_SetConfig")
                .expect("a config change");
            assert_eq!(config["config_diff"]["against"], "base_config");
            let paths: Vec<&str> = config["config_diff"]["changes"]
                .as_array()
                .expect("changes")
                .iter()
                .map(|c| c["path"].as_str().expect("path"))
                .collect();
            assert_eq!(
                paths,
                [
                    "numUnclaimedRewardsThreshold",
                    "voteRequestTimeout.microseconds"
                ]
            );
            for r in reqs {
                assert!(
                    ["needed", "accepted", "rejected"]
                        .contains(&r["my_vote"].as_str().expect("my_vote"))
                );
                assert!(
                    r["votes_words"]
                        .as_str()
                        .expect("words")
                        .contains("of 4 needed")
                );
            }
            // A request my SV has not voted on: exit 5 and the list.
            let o = run(dir, url, &["needs-vote"]);
            assert_eq!(o.status.code(), Some(5), "{}", err(&o));
            let v = json(&o);
            let needed = v["requests"].as_array().expect("list");
            assert!(!needed.is_empty());
            assert!(needed.iter().all(|r| r["my_vote"] == "needed"));
            assert_eq!(v["needs_vote"], needed.len());
            // None closing within a minute; one within a day.
            let o = run(dir, url, &["needs-vote", "--within", "1m"]);
            assert_eq!(o.status.code(), Some(0), "{}", err(&o));
            assert_eq!(json(&o)["needs_vote"], 0);
            let o = run(dir, url, &["needs-vote", "--within", "24h"]);
            assert_eq!(o.status.code(), Some(5), "{}", err(&o));
            // An sv key naming no SV: my SV is unknown, exit 2, said on stderr.
            let config = dir.join("config.toml");
            std::fs::write(
                &config,
                "default_profile = \"x\"\n[profiles.x]\nsv = \"Nobody-SV\"\n",
            )
            .expect("config");
            let o = bin(dir)
                .env("CANTONSCOPE_CONFIG", &config)
                .args(["--scan-url", url, "governance", "needs-vote"])
                .output()
                .expect("runs");
            assert_eq!(o.status.code(), Some(2), "{}", err(&o));
            assert!(err(&o).contains("my SV is unknown"), "{}", err(&o));
            assert!(o.stdout.is_empty());
        });
    }

    #[test]
    fn results_as_json_lines_with_client_side_outcomes() {
        with_demo(|url, dir| {
            let lines = |args: &[&str]| -> Vec<Value> {
                let o = run(dir, url, args);
                assert_eq!(o.status.code(), Some(0), "{args:?}: {}", err(&o));
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .map(|l| serde_json::from_str(l).expect("a JSON line"))
                    .collect()
            };
            // Pages of 3: the walk goes through every page.
            let all = lines(&["results", "--page-size", "3"]);
            assert!(all.len() >= 10, "{}", all.len());
            // --limit is the number of results, across pages; the same first ones.
            let four = lines(&["results", "--page-size", "3", "--limit", "4"]);
            assert_eq!(four, all[..4].to_vec(), "the first 4 results, over 2 pages");
            assert_eq!(lines(&["results", "--limit", "1"]), all[..1].to_vec());
            let outcomes: Vec<&str> = all
                .iter()
                .map(|r| r["outcome"].as_str().expect("outcome"))
                .collect();
            for o in ["accepted", "rejected", "expired", "accepted_but_failed"] {
                assert!(outcomes.contains(&o), "{o} in {outcomes:?}");
            }
            let expired = lines(&["results", "--outcome", "expired"]);
            assert_eq!(
                expired.len(),
                outcomes.iter().filter(|o| **o == "expired").count()
            );
            let failed = lines(&["results", "--outcome", "failed"]);
            assert_eq!(failed.len(), 1);
            assert!(failed[0]["failure"].is_string());
            assert_eq!(failed[0]["offboarded_voters"][0], "Retired-Node-7");
            let who = all[0]["requester"].as_str().expect("requester").to_owned();
            let by = lines(&["results", "--requester", &who]);
            assert!(!by.is_empty());
            assert!(by.iter().all(|r| r["requester"] == who.as_str()));
            assert_eq!(
                by.len(),
                all.iter()
                    .filter(|r| r["requester"] == who.as_str())
                    .count()
            );
            // A prefix of a name is no exact match.
            assert!(lines(&["results", "--requester", &who[..3]]).is_empty());
            let config = lines(&["results", "--action", "SetConfig"]);
            assert!(config.iter().all(|r| {
                r["action_name"]
                    .as_str()
                    .expect("name")
                    .contains("SetConfig")
            }));
            // The rejected AmuletRules change: the create fee, against its baseConfig.
            let amulet = config
                .iter()
                .find(|r| r["action_name"] == "CRARC_SetConfig")
                .expect("an AmuletRules config change");
            assert_eq!(
                amulet["config_diff"]["changes"][0]["path"],
                "transferConfig.createFee.fee"
            );
            assert_eq!(
                amulet["config_diff"]["changes"][0]["new"],
                "\"0.0200000000\""
            );
            let newest = all[0]["effective_at"].as_str().expect("date").to_owned();
            let since = lines(&["results", "--from", &newest]);
            assert_eq!(
                since.len(),
                all.iter()
                    .filter(|r| r["effective_at"].as_str() >= Some(newest.as_str()))
                    .count()
            );
        });
    }

    #[test]
    fn results_stop_when_a_scan_ignores_the_page_token() {
        // A scan that answers every page as the first one (as an older scan may): the first
        // page is written once, then the walk stops with the reason and the server error code.
        let rt = runtime();
        let demo = rt
            .block_on(cantonscope::demo::start(cantonscope::demo::DemoConfig {
                faults: cantonscope::demo::DemoFaults {
                    page_token_ignored: Some(0),
                    ..Default::default()
                },
                ..cantonscope::demo::DemoConfig::default()
            }))
            .expect("demo");
        let dir = tempfile::tempdir().expect("tempdir");
        let o = run(dir.path(), &demo.scan_url, &["results", "--page-size", "3"]);
        assert_eq!(o.status.code(), Some(1), "{}", err(&o));
        assert!(
            err(&o).contains("the scan sent the same page twice (it may ignore pageToken)"),
            "{}",
            err(&o)
        );
        let keys: Vec<String> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).expect("a JSON line");
                format!("{} {}", v["key"], v["completed_at"])
            })
            .collect();
        assert_eq!(keys.len(), 3, "the first page once: {keys:?}");
        let unique: std::collections::HashSet<&String> = keys.iter().collect();
        assert_eq!(unique.len(), 3, "no row twice: {keys:?}");
        drop(demo);
    }

    #[test]
    fn results_until_a_date_and_usage_errors() {
        with_demo(|url, dir| {
            let lines = |args: &[&str]| -> Vec<Value> {
                let o = run(dir, url, args);
                assert_eq!(o.status.code(), Some(0), "{args:?}: {}", err(&o));
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .map(|l| serde_json::from_str(l).expect("a JSON line"))
                    .collect()
            };
            let all = lines(&["results"]);
            let middle = all[all.len() / 2]["effective_at"]
                .as_str()
                .expect("date")
                .to_owned();
            let until = lines(&["results", "--until", &middle, "--page-size", "2"]);
            assert!(!until.is_empty());
            assert_eq!(
                until.len(),
                all.iter()
                    .filter(|r| r["effective_at"].as_str() <= Some(middle.as_str()))
                    .count()
            );
            // Both ends: the window between them, newest first.
            let oldest = all.last().expect("a result")["effective_at"]
                .as_str()
                .expect("date")
                .to_owned();
            let window = lines(&["results", "--from", &oldest, "--until", &middle]);
            assert_eq!(window.len(), until.len());
            // Accepted only: what the server filters by itself.
            let accepted = lines(&["results", "--outcome", "accepted"]);
            assert!(accepted.iter().all(|r| r["outcome"] == "accepted"));
            assert_eq!(
                accepted.len(),
                all.iter().filter(|r| r["outcome"] == "accepted").count()
            );
            // Usage errors exit 2 before asking the scan: a page size out of 1..=1000, a limit
            // of none, a time that is none, an outcome that is none.
            for args in [
                &["results", "--page-size", "0"][..],
                &["results", "--page-size", "1001"],
                &["results", "--limit", "0"],
                &["results", "--from", "next tuesday"],
                &["results", "--outcome", "pending"],
            ] {
                let o = run(dir, url, args);
                assert_eq!(o.status.code(), Some(2), "{args:?}: {}", err(&o));
                assert!(o.stdout.is_empty(), "{args:?}");
            }
        });
    }

    #[test]
    fn weights_with_history_and_errors() {
        with_demo(|url, dir| {
            let o = run(dir, url, &["weights"]);
            assert_eq!(o.status.code(), Some(0), "{}", err(&o));
            let v = json(&o);
            let svs = v["svs"].as_array().expect("svs");
            assert_eq!(svs.len(), 4);
            assert_eq!(svs.iter().filter(|s| s["my_sv"] == true).count(), 1);
            let with_history: Vec<&Value> = svs
                .iter()
                .filter(|s| !s["history"].as_array().expect("h").is_empty())
                .collect();
            assert!(with_history.len() >= 2);
            for s in &with_history {
                assert_eq!(s["history_agrees"], true, "{s}");
                let last =
                    s["history"].as_array().expect("h").last().expect("a step")["weight"].as_i64();
                assert_eq!(s["reward_weight"].as_i64(), last, "{s}");
            }
            for s in svs
                .iter()
                .filter(|s| s["history"].as_array().expect("h").is_empty())
            {
                assert!(s["known_since"].is_null());
            }
        });
        // No scan configured: 2; nothing listening: 3.
        let dir = tempfile::tempdir().expect("tempdir");
        let o = bin(dir.path())
            .args(["governance", "requests"])
            .output()
            .expect("runs");
        assert_eq!(o.status.code(), Some(2), "{}", err(&o));
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("port")
            .port();
        let o = run(
            dir.path(),
            &format!("http://127.0.0.1:{port}"),
            &["requests"],
        );
        assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    }
}

// ---------------------------------------------------------------------------------------------
// The Status dashboard's governance card, in the explorer on the demo network.

/// My SV (the scan's own, Aurora-Node-1) has not voted on one open request, which closes in
/// about 20 hours: the card counts it and draws the deadline amber.
#[test]
fn the_status_card_says_what_needs_my_vote() {
    use cantonscope::msg::PaneId;
    use crossterm::event::KeyCode;

    let mut h = crate::common::Harness::start();
    h.key(KeyCode::Char('4'));
    assert_eq!(h.app.focus, PaneId::Status);
    // Select the last card (the governance card) so it is on screen at any size.
    h.key(KeyCode::End);
    let buf = h.draw(120, 40);
    let text: Vec<String> = (0..buf.area.height)
        .map(|y| (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect())
        .collect();
    let screen = text.join("\n");
    assert!(
        screen.contains("governance · open vote requests"),
        "{screen}"
    );
    assert!(
        screen.contains("3 open requests · 1 needs my vote (Aurora-Node-1)"),
        "{screen}"
    );
    let (y, line) = text
        .iter()
        .enumerate()
        .find(|(_, l)| l.contains("my next vote closes in"))
        .expect("my next deadline");
    assert!(
        line.contains("my next vote closes in 19h 59m")
            || line.contains("my next vote closes in 20h"),
        "{line}"
    );
    let x = line
        .find("in 1")
        .or_else(|| line.find("in 2"))
        .expect("the time");
    let x = u16::try_from(line[..x].chars().count()).unwrap();
    let amber = h.app.theme.status_warn.fg;
    assert_eq!(
        buf[(x, u16::try_from(y).unwrap())].fg,
        amber.unwrap_or_default(),
        "amber under a day"
    );
}
