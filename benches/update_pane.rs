//! Update pane benchmark: drawing one frame at 200x60 of a transaction with 10,000 events
//! (target: at most 1 ms per frame), plus opening such a transaction (building its tree).
//!
//! The transaction: one root exercise with 99 exercised children, each with 100 created
//! children (1 + 99 + 9,900 = 10,000 events), every event with a small payload.

use std::hint::black_box;
use std::sync::Arc;

use cantonscope::api::scan::EventHistoryItem;
use cantonscope::msg::Command;
use cantonscope::panes::update::UpdatePane;
use cantonscope::panes::{AppContext, Out, Pane, RenderCtx, Shared};
use cantonscope::ui::theme::Theme;
use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use serde_json::{Value, json};

const UPDATE: &str = "1220c7d293ea23275dcc7bfef9d47fa10e76477d26c93db4074ee5dff5e2cd8a5680";
const TEMPLATE: &str =
    "3ca1343ab26b453d38c8adb70dca5f1ead8440c42b59b68f070786955cbf9ec1:Splice.Amulet:Amulet";
const PARTY: &str = "alice::12209b21d512c6a7e2f5d215266fe6568cb732caaef7ff04e308f990a652340d";

fn event_id(n: usize) -> String {
    format!("{UPDATE}:{n}")
}

fn big_body() -> Arc<EventHistoryItem> {
    let mut events = serde_json::Map::new();
    let mut next = 1;
    let mut root_children = Vec::new();
    for _ in 0..99 {
        let mid = next;
        next += 1;
        let mut leaves = Vec::new();
        for _ in 0..100 {
            let n = next;
            next += 1;
            leaves.push(event_id(n));
            events.insert(
                event_id(n),
                json!({
                    "event_type": "created_event", "event_id": event_id(n),
                    "contract_id": format!("00{n:062x}"), "template_id": TEMPLATE,
                    "package_name": "splice-amulet",
                    "create_arguments": {"owner": PARTY, "amount": {"initialAmount": format!("{n}.0")}},
                    "created_at": "2026-11-22T09:58:00Z", "signatories": [PARTY], "observers": []
                }),
            );
        }
        root_children.push(event_id(mid));
        events.insert(event_id(mid), exercise(mid, "Amulet_Split", &leaves));
    }
    events.insert(
        event_id(0),
        exercise(0, "AmuletRules_Transfer", &root_children),
    );
    assert_eq!(events.len(), 10_000);
    let body = json!({
        "update": {
            "update_id": UPDATE, "migration_id": 4, "workflow_id": "",
            "record_time": "2026-11-22T09:59:30.123456Z",
            "synchronizer_id": "global-domain::1220b1431ef2", "effective_at": "2026-11-22T09:59:30.123456Z",
            "root_event_ids": [event_id(0)], "events_by_id": events
        },
        "verdict": null
    });
    Arc::new(serde_json::from_str(&body.to_string()).expect("body decodes"))
}

fn exercise(n: usize, choice: &str, children: &[String]) -> Value {
    json!({
        "event_type": "exercised_event", "event_id": event_id(n),
        "contract_id": format!("00{n:062x}"), "template_id": TEMPLATE,
        "package_name": "splice-amulet", "choice": choice,
        "choice_argument": {"inputs": children.iter().take(5).collect::<Vec<_>>()},
        "child_event_ids": children, "exercise_result": {"ok": true},
        "consuming": true, "acting_parties": [PARTY], "interface_id": null
    })
}

fn opened(body: &Arc<EventHistoryItem>, area: Rect) -> (UpdatePane, Shared) {
    let mut sh = Shared::new(AppContext::default(), 1_795_341_600_000_000);
    sh.bodies.insert(UPDATE.to_string(), body.clone());
    let mut pane = UpdatePane::new();
    pane.set_area(area);
    let mut out = Out::default();
    pane.open(UPDATE, None, &mut sh, &mut out);
    assert!(out.effects.is_empty(), "served from the cache");
    (pane, sh)
}

fn frame(pane: &UpdatePane, sh: &Shared, buf: &mut Buffer, theme: &Theme) {
    buf.reset();
    pane.render(buf.area, buf, RenderCtx::new(sh, theme, true));
}

fn update_pane(c: &mut Criterion) {
    let body = big_body();
    let area = Rect::new(0, 0, 200, 60);
    let theme = Theme::default();
    let mut buf = Buffer::empty(area);
    let mut group = c.benchmark_group("update_pane_10k_events_200x60");

    let (pane, sh) = opened(&body, area);
    group.bench_function("draw frame (initial expansion)", |b| {
        b.iter(|| frame(black_box(&pane), &sh, &mut buf, &theme));
    });

    let (mut pane, mut sh) = opened(&body, area);
    let mut out = Out::default();
    pane.on_command(Command::ExpandAll, &mut sh, &mut out);
    for _ in 0..50 {
        pane.on_command(Command::PageDown, &mut sh, &mut out);
    }
    group.bench_function("draw frame (all expanded, cursor deep)", |b| {
        b.iter(|| frame(black_box(&pane), &sh, &mut buf, &theme));
    });

    pane.on_command(Command::Top, &mut sh, &mut out);
    pane.on_command(Command::Expand, &mut sh, &mut out);
    group.bench_function("draw frame (details focused)", |b| {
        b.iter(|| frame(black_box(&pane), &sh, &mut buf, &theme));
    });

    group.bench_function("page down/up and draw", |b| {
        let (mut pane, mut sh) = opened(&body, area);
        let mut out = Out::default();
        pane.on_command(Command::ExpandAll, &mut sh, &mut out);
        let mut i = 0u32;
        b.iter(|| {
            i = i.wrapping_add(1);
            let cmd = if i % 200 < 100 {
                Command::PageDown
            } else {
                Command::PageUp
            };
            pane.on_command(cmd, &mut sh, &mut out);
            out.effects.clear();
            out.events.clear();
            frame(&pane, &sh, &mut buf, &theme);
        });
    });

    group.bench_function("open (build tree and state)", |b| {
        b.iter(|| opened(black_box(&body), area));
    });
    group.finish();
}

criterion_group!(benches, update_pane);
criterion_main!(benches);
