//! This validator's sequencer traffic over real HTTP against the demo: the Ledger API's
//! participant id, the scan's member traffic status on the global synchronizer (the one the
//! mining rounds name), and the error shapes of both (bad member id 400, unknown member or
//! synchronizer 404, no token 401).

use cantonscope::api::scan::{self, MiningRoundsRequest, participant_member_id};
use cantonscope::api::{ApiClient, ApiConfig, ApiError, Secret, TokenSource, ledger};
use cantonscope::demo::DemoHandle;

use crate::common::http::{demo, get};

fn client(d: &DemoHandle, token: bool) -> ApiClient {
    ApiClient::new(ApiConfig {
        scan_url: Some(d.scan_url.clone()),
        ledger_url: Some(d.ledger_url.clone()),
        token: token.then(|| TokenSource::Literal(Secret::new(d.token.clone()))),
        ..ApiConfig::default()
    })
    .expect("client")
}

/// The global synchronizer, as the app learns it: from the mining rounds.
async fn global_synchronizer(c: &ApiClient) -> String {
    let rounds = c
        .send(&scan::open_and_issuing_mining_rounds(
            &MiningRoundsRequest::default(),
        ))
        .await
        .expect("rounds");
    rounds
        .open_mining_rounds
        .values()
        .find_map(|r| r.domain_id.clone())
        .expect("rounds name their synchronizer")
}

#[test]
fn member_ids_get_the_par_prefix_once() {
    assert_eq!(participant_member_id("v-1::1220ab"), "PAR::v-1::1220ab");
    assert_eq!(
        participant_member_id("PAR::v-1::1220ab"),
        "PAR::v-1::1220ab"
    );
}

#[tokio::test]
async fn participant_id_then_traffic_status() {
    let d = demo().await;
    let c = client(&d, true);
    let pid = c
        .send(&ledger::participant_id())
        .await
        .expect("participant id");
    assert!(
        !pid.participant_id.starts_with("PAR::") && pid.participant_id.contains("::1220"),
        "the Ledger API names its participant without the member prefix: {}",
        pid.participant_id
    );
    let member = participant_member_id(&pid.participant_id);
    let domain = global_synchronizer(&c).await;
    let t = c
        .send(&scan::member_traffic_status(&domain, &member))
        .await
        .expect("traffic status")
        .traffic_status;
    let (consumed, limit, purchased) = (
        t.actual.total_consumed,
        t.actual.total_limit,
        t.target.total_purchased,
    );
    assert!(
        consumed > 0,
        "the demo validator's parties submitted transactions"
    );
    assert!(purchased >= limit, "{purchased} >= {limit}");
    assert!(limit >= consumed, "{limit} >= {consumed}");
    // The top-up schedule: 2 MB, doubled at each top-up.
    for total in [limit, purchased] {
        assert_eq!(total % 2_000_000, 0, "{total}");
        assert!(
            (total / 2_000_000).cast_unsigned().is_power_of_two(),
            "{total}"
        );
    }
    // Asked again, it never goes down (consumed only grows).
    let again = c
        .send(&scan::member_traffic_status(&domain, &member))
        .await
        .expect("traffic status")
        .traffic_status;
    assert!(again.actual.total_consumed >= consumed);
    assert!(again.target.total_purchased >= purchased);
}

#[tokio::test]
async fn traffic_status_errors_are_the_scans() {
    let d = demo().await;
    let c = client(&d, true);
    let domain = global_synchronizer(&c).await;
    let pid = c
        .send(&ledger::participant_id())
        .await
        .expect("participant id");
    let member = participant_member_id(&pid.participant_id);

    // Not `code::id::fingerprint`: 400 with the scan's error body.
    for bad in [
        "nonsense",
        "PAR::only-one-part",
        "par::x::1220ab",
        "PAR::x::",
    ] {
        match c.send(&scan::member_traffic_status(&domain, bad)).await {
            Err(ApiError::Scan {
                status: 400,
                message,
                ..
            }) => assert!(message.contains("Invalid member ID"), "{message}"),
            other => panic!("{bad}: expected a 400, got {other:?}"),
        }
    }
    // A well-formed member the synchronizer does not know: 404.
    for unknown in ["PAR::nobody::1220ffff", "MED::mediator::1220ffff"] {
        match c.send(&scan::member_traffic_status(&domain, unknown)).await {
            Err(ApiError::NotFound { message, .. }) => {
                assert!(message.contains("No traffic state found"), "{message}");
            }
            other => panic!("{unknown}: expected a 404, got {other:?}"),
        }
    }
    // The wrong synchronizer: 404.
    match c
        .send(&scan::member_traffic_status(
            "other-domain::1220ab",
            &member,
        ))
        .await
    {
        Err(ApiError::NotFound { message, .. }) => {
            assert!(message.contains("other-domain::1220ab"), "{message}");
        }
        other => panic!("expected a 404, got {other:?}"),
    }

    // The participant id needs a token, like every ledger endpoint.
    let (status, _) = get(&format!("{}/v2/parties/participant-id", d.ledger_url)).await;
    assert_eq!(status.as_u16(), 401);
}

// ---------------------------------------------------------------------------------------------
// The Status pane's traffic card, driven headless

mod traffic_card {
    use cantonscope::api::ApiError;
    use cantonscope::api::scan::{
        MemberTrafficStatusResponse, NodeStatus, OpenAndIssuingMiningRounds,
    };
    use cantonscope::app::health;
    use cantonscope::feed::dashboard::{LagLevel, Level};
    use cantonscope::model::summary::{format_time_micros, parse_time_micros};
    use cantonscope::msg::{Command, Fetched, Request, RequestId, Response};
    use cantonscope::panes::status::StatusPane;
    use cantonscope::panes::{AppContext, Out, Pane, Shared};
    use cantonscope::ui::theme::Theme;
    use serde_json::json;

    use crate::common::pane::{draw, fetched, fetches};
    use crate::common::requests::{self as req, Asked, participant_id};
    use crate::common::{assert_snapshot, screen_text};

    const SEC: i64 = 1_000_000;
    const GLOBAL: &str = "global-domain::1220aa";
    const MEMBER: &str = "PAR::validator-1::1220beef";

    fn t0() -> i64 {
        parse_time_micros("2026-01-01T10:00:00Z").expect("time")
    }

    fn ctx(ledger: bool) -> AppContext {
        AppContext {
            profile: "test".into(),
            scan_urls: vec!["http://scan-0.example:5012".into()],
            validator_url: None,
            ledger_url: ledger.then(|| "http://ledger.example:7575".into()),
            has_token: true,
            refresh_ms: 2000,
            ..AppContext::default()
        }
    }

    fn rounds() -> Response {
        let r: OpenAndIssuingMiningRounds = serde_json::from_value(json!({
            "open_mining_rounds": {
                "00round7": {
                    "contract": {
                        "template_id": "pkg:Splice.Round:OpenMiningRound",
                        "contract_id": "00round7",
                        "payload": {"round": {"number": "7"}, "opensAt": format_time_micros(t0() - 60 * SEC)},
                        "created_event_blob": "",
                        "created_at": format_time_micros(t0() - 120 * SEC),
                    },
                    "domain_id": GLOBAL
                }
            },
            "issuing_mining_rounds": {}
        }))
        .expect("rounds decode");
        Response::from(r)
    }

    fn traffic(consumed: i64, limit: i64, purchased: i64) -> Response {
        let r: MemberTrafficStatusResponse = serde_json::from_value(json!({
            "traffic_status": {
                "actual": {"total_consumed": consumed, "total_limit": limit},
                "target": {"total_purchased": purchased}
            }
        }))
        .expect("traffic decodes");
        Response::from(r)
    }

    fn answer(
        pane: &mut StatusPane,
        sh: &mut Shared,
        id: RequestId,
        req: &Request,
        r: Result<Response, ApiError>,
    ) {
        let reply: Fetched = fetched(id, req, &r);
        // As the app routes it: the nodes' polls to its health, the rest to the pane.
        if sh.health.owns(id) {
            health::drive(sh, &mut Out::default(), Some(&reply));
        } else {
            pane.on_fetched(&reply, sh, &mut Out::default());
        }
    }

    /// The app's start for this pane: its health's first round, then the pane's own requests.
    fn start(pane: &mut StatusPane, sh: &mut Shared, out: &mut Out) {
        health::drive(sh, out, None);
        pane.start(sh, out);
    }

    /// Answers every fetch: nodes fine, the ledger names its participant without `PAR::`.
    fn answer_all(pane: &mut StatusPane, sh: &mut Shared, out: &Out, status: &Response) {
        for (id, req) in fetches(out) {
            let resp = match req::asked(&req) {
                Asked::Status(_) => {
                    Response::from(serde_json::from_value::<NodeStatus>(json!({
                        "success": {"id": "scan", "uptime": "PT1H", "ports": {}, "extra": null, "active": true}
                    })).expect("status"))
                }
                Asked::LedgerEnd => req::ledger_end_answer(Some(42)),
                Asked::MiningRounds => rounds(),
                Asked::LedgerParticipantId => participant_id("validator-1::1220beef"),
                Asked::TrafficStatus => status.clone(),
                // The network's measurement (a job over every scan), the DSO ("my SV") and
                // governance are not this test's.
                Asked::Other(
                    None | Some("scan GET /v0/dso" | "scan GET /v0/admin/sv/voterequests"),
                ) => continue,
                _ => panic!("unexpected {req:?}"),
            };
            answer(pane, sh, id, &req, Ok(resp));
        }
    }

    fn tick(pane: &mut StatusPane, sh: &mut Shared, now: i64) -> Out {
        sh.now = now;
        let mut out = Out::default();
        health::drive(sh, &mut out, None);
        pane.on_tick(sh, &mut out);
        out
    }

    fn traffic_requests(out: &Out) -> Vec<(RequestId, Request)> {
        fetches(out)
            .into_iter()
            .filter(|(_, r)| {
                matches!(
                    req::asked(r),
                    Asked::LedgerParticipantId | Asked::TrafficStatus
                )
            })
            .collect()
    }

    /// Ticks at `now` and answers the traffic status request it sends with `status`.
    fn next_status(pane: &mut StatusPane, sh: &mut Shared, now: i64, status: Response) {
        let out = tick(pane, sh, now);
        let (id, req) = traffic_requests(&out).remove(0);
        answer(pane, sh, id, &req, Ok(status));
    }

    /// The style of the first cell of `needle` on screen.
    fn style_of(
        t: &ratatui::Terminal<ratatui::backend::TestBackend>,
        needle: &str,
    ) -> ratatui::style::Style {
        let buf = t.backend().buffer();
        let text = screen_text(t);
        let (row, line) = text
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} on screen: {text}"));
        let col = line[..line.find(needle).expect("found")].chars().count();
        buf[(col as u16, row as u16)].style()
    }

    #[test]
    fn participant_once_status_every_interval_and_the_colours() {
        let mut sh = Shared::new(ctx(true), t0());
        let mut pane = StatusPane::new(&sh);
        let mut out = Out::default();
        start(&mut pane, &mut sh, &mut out);
        let first = traffic_requests(&out);
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].1, req::ledger_participant_id());
        answer_all(&mut pane, &mut sh, &out, &traffic(0, 0, 0));
        assert_eq!(
            pane.traffic().member_id().as_deref(),
            Some(MEMBER),
            "PAR:: added"
        );

        // The next tick asks the scan on the synchronizer the rounds named.
        let out = tick(&mut pane, &mut sh, t0() + SEC / 4);
        let reqs = traffic_requests(&out);
        assert_eq!(
            reqs.iter().map(|(_, r)| r.clone()).collect::<Vec<_>>(),
            [req::traffic_status(GLOBAL, MEMBER)]
        );
        // In flight: nothing more.
        assert!(traffic_requests(&tick(&mut pane, &mut sh, t0() + 3 * SEC)).is_empty());
        let (id, req) = reqs[0].clone();
        // 3.5 of 4 MB used: 12 % left, amber.
        answer(
            &mut pane,
            &mut sh,
            id,
            &req,
            Ok(traffic(3_500_000, 4_000_000, 8_000_000)),
        );
        assert_eq!(pane.traffic().level(), Some(LagLevel::Amber));
        let v = pane.verdict(&sh);
        assert_eq!(v.level, Level::Degraded, "{v:?}");
        assert_eq!(
            v.reasons,
            ["traffic 12% of the limit left (amber under 20%)"]
        );
        // Not again before the interval, then once; never the participant id again.
        assert!(traffic_requests(&tick(&mut pane, &mut sh, t0() + 4 * SEC)).is_empty());
        let out = tick(&mut pane, &mut sh, t0() + 5 * SEC);
        let reqs = traffic_requests(&out);
        assert_eq!(reqs.len(), 1);
        assert_eq!(req::asked(&reqs[0].1), Asked::TrafficStatus);

        let theme = Theme::default();
        pane.on_command(Command::Bottom, &mut sh, &mut Out::default());
        for (w, h) in [(120, 40), (80, 24)] {
            let t = draw(&mut pane, &sh, w, h);
            let text = screen_text(&t);
            assert!(
                text.contains("consumed 3.50 MB / limit 4.00 MB  88%"),
                "{text}"
            );
            assert!(
                text.contains("purchased 8.00 MB · 4.00 MB not yet in the limit"),
                "{text}"
            );
            // Consumed is rounded up and remaining down: 88 % and 12 % add up to 100 %.
            assert!(text.contains("remaining 500 kB (12%)"), "{text}");
            assert_eq!(style_of(&t, "500 kB (12%)").fg, theme.status_warn.fg);
            assert_snapshot!(format!("status_{w}x{h}"), t.backend());
        }

        // A failure keeps the numbers and says why.
        let (id, req) = reqs[0].clone();
        let err = ApiError::NotFound {
            endpoint: "scan GET /v0/domains/{domain_id}/members/{member_id}/traffic-status",
            message: "No traffic state found for member".into(),
        };
        answer(&mut pane, &mut sh, id, &req, Err(err));
        let text = screen_text(&draw(&mut pane, &sh, 120, 40));
        assert!(text.contains("error: scan GET"), "{text}");
        assert!(text.contains("remaining 500 kB"), "{text}");

        // 3.9 of 4 MB: red.
        next_status(
            &mut pane,
            &mut sh,
            t0() + 8 * SEC,
            traffic(3_900_000, 4_000_000, 4_000_000),
        );
        assert_eq!(pane.traffic().level(), Some(LagLevel::Red));
        let t = draw(&mut pane, &sh, 120, 40);
        assert_eq!(style_of(&t, "100 kB (2%)").fg, theme.status_err.fg);
        assert!(!screen_text(&t).contains("not yet in the limit"));
        // 1 of 4 MB: fine.
        next_status(
            &mut pane,
            &mut sh,
            t0() + 11 * SEC,
            traffic(1_000_000, 4_000_000, 4_000_000),
        );
        assert_eq!(pane.traffic().level(), Some(LagLevel::Fine));
        assert_eq!(pane.verdict(&sh).level, Level::Healthy);
    }

    #[test]
    fn participant_id_failure_is_shown_and_retried_after_the_interval() {
        let mut sh = Shared::new(ctx(true), t0());
        let mut pane = StatusPane::new(&sh);
        let mut out = Out::default();
        start(&mut pane, &mut sh, &mut out);
        let (id, req) = traffic_requests(&out).remove(0);
        let err = ApiError::Unauthorized {
            endpoint: "ledger GET /v2/parties/participant-id",
            status: 401,
            message: Some("expired token".into()),
        };
        answer(&mut pane, &mut sh, id, &req, Err(err));
        let text = screen_text(&draw(&mut pane, &sh, 120, 40));
        assert!(text.contains("participant id: ledger GET"), "{text}");
        assert!(traffic_requests(&tick(&mut pane, &mut sh, t0() + SEC)).is_empty());
        let out = tick(&mut pane, &mut sh, t0() + 2 * SEC);
        assert_eq!(
            traffic_requests(&out)
                .iter()
                .map(|(_, r)| r.clone())
                .collect::<Vec<_>>(),
            [req::ledger_participant_id()]
        );
    }

    #[test]
    fn without_a_ledger_url_the_card_says_what_it_needs() {
        let mut sh = Shared::new(ctx(false), t0());
        let mut pane = StatusPane::new(&sh);
        let mut out = Out::default();
        start(&mut pane, &mut sh, &mut out);
        answer_all(&mut pane, &mut sh, &out, &traffic(0, 0, 0));
        assert!(traffic_requests(&out).is_empty());
        assert!(traffic_requests(&tick(&mut pane, &mut sh, t0() + 10 * SEC)).is_empty());
        let text = screen_text(&draw(&mut pane, &sh, 120, 40));
        assert!(text.contains("traffic · this validator"), "{text}");
        assert!(
            text.contains("needs the Ledger API of this validator"),
            "{text}"
        );
        assert!(text.contains("ledger_url"), "{text}");
    }

    /// A Status pane for `c` after its first poll, the traffic status answered with `status`.
    fn polled(c: AppContext, status: &Response) -> (StatusPane, Shared) {
        let mut sh = Shared::new(c, t0());
        let mut pane = StatusPane::new(&sh);
        let mut out = Out::default();
        start(&mut pane, &mut sh, &mut out);
        answer_all(&mut pane, &mut sh, &out, &traffic(0, 0, 0));
        let out = tick(&mut pane, &mut sh, t0() + SEC / 4);
        answer_all(&mut pane, &mut sh, &out, status);
        (pane, sh)
    }

    #[test]
    fn the_chart_takes_the_empty_place_beside_the_last_card() {
        // Four scans and a ledger: nine cards, two a row at 120 columns, the governance card
        // alone in the last row; at 38 rows no room is left below the cards.
        let mut c = ctx(true);
        c.scan_urls = (0..4)
            .map(|i| format!("http://scan-{i}.example:5012"))
            .collect();
        let (mut pane, sh) = polled(c, &traffic(1_000_000, 4_000_000, 4_000_000));
        let text = screen_text(&draw(&mut pane, &sh, 120, 38));
        let row = text
            .lines()
            .find(|l| l.contains("governance · open vote requests"))
            .unwrap_or_else(|| panic!("governance card on screen: {text}"));
        assert!(row.contains("updates per minute"), "{text}");
        assert_eq!(text.matches("updates per minute").count(), 1, "{text}");
        // With room below (more rows), the chart spans the width under the cards instead.
        let text = screen_text(&draw(&mut pane, &sh, 120, 48));
        let row = text
            .lines()
            .find(|l| l.contains("updates per minute"))
            .unwrap_or_else(|| panic!("chart on screen: {text}"));
        assert!(!row.contains("governance"), "{text}");
    }

    #[test]
    fn the_profile_thresholds_judge_the_remaining_traffic() {
        let mut c = ctx(true);
        c.traffic = cantonscope::feed::dashboard::TrafficThresholds {
            warn: 50,
            error: 10,
        };
        // 25 % left: fine by the defaults (amber under 20 %), amber under 50 %.
        let (mut pane, sh) = polled(c, &traffic(3_000_000, 4_000_000, 4_000_000));
        assert_eq!(pane.traffic().level(), Some(LagLevel::Amber));
        assert_eq!(
            pane.verdict(&sh).reasons,
            ["traffic 25% of the limit left (amber under 50%)"]
        );
        let text = screen_text(&draw(&mut pane, &sh, 120, 40));
        assert!(text.contains("amber under 50%, red under 10%"), "{text}");
    }
}
