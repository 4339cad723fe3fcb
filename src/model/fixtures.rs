//! Small updates for the model's unit tests (scan JSON shapes, decoded as the API client does).

use serde_json::{Value, json};

use crate::api::json::RawJson;
use crate::api::scan::UpdateItem;

use super::history::{History, Placement};

const TEMPLATE: &str = "pkg:Splice.Amulet:Amulet";

/// A created event `<update_id>:<n>` of contract `cid`.
pub fn created(update_id: &str, n: u32, cid: &str) -> Value {
    json!({
        "event_type": "created_event", "event_id": format!("{update_id}:{n}"),
        "contract_id": cid, "template_id": TEMPLATE, "package_name": "splice-amulet",
        "create_arguments": {}, "created_at": "2026-11-22T10:00:00.000000Z",
        "signatories": [], "observers": [],
    })
}

/// An exercised event `<update_id>:<n>` on contract `cid`, without children.
pub fn exercised(update_id: &str, n: u32, cid: &str, choice: &str, consuming: bool) -> Value {
    json!({
        "event_type": "exercised_event", "event_id": format!("{update_id}:{n}"),
        "contract_id": cid, "template_id": TEMPLATE, "package_name": "splice-amulet",
        "choice": choice, "choice_argument": {}, "child_event_ids": [], "exercise_result": {},
        "consuming": consuming, "acting_parties": [], "interface_id": null,
    })
}

/// A transaction of root events (each its own root), recorded at `10:00:<second>`.
pub fn transaction(update_id: &str, second: u32, events: Vec<Value>) -> Value {
    let roots: Vec<Value> = events.iter().map(|e| e["event_id"].clone()).collect();
    let by_id: serde_json::Map<String, Value> = events
        .into_iter()
        .map(|e| (e["event_id"].as_str().unwrap_or_default().to_string(), e))
        .collect();
    let time = format!("2026-11-22T10:00:{second:02}.000000Z");
    json!({
        "update_id": update_id, "migration_id": 4, "workflow_id": "", "command_id": "",
        "record_time": time, "effective_at": time, "synchronizer_id": "global-domain::1220bb",
        "offset": "000000000000000001", "root_event_ids": roots, "events_by_id": by_id,
    })
}

/// A reassignment recorded at `10:00:<second>`: an unassign of `cid`, or an assign (with the
/// created event of `cid`).
pub fn reassignment(
    update_id: &str,
    second: u32,
    assign: bool,
    unassign_id: &str,
    cid: &str,
) -> Value {
    let mut event = json!({
        "submitter": "alice::1220aa", "source_synchronizer": "global-domain::1220bb",
        "target_synchronizer": "other-domain::1220cc", "migration_id": 4,
        "unassign_id": unassign_id, "reassignment_counter": 1,
    });
    if assign {
        event["created_event"] = created(update_id, 0, cid);
    } else {
        event["contract_id"] = json!(cid);
    }
    json!({
        "update_id": update_id, "offset": "000000000000000001",
        "record_time": format!("2026-11-22T10:00:{second:02}.000000Z"), "event": event,
    })
}

/// The update item of `update` (asserting it decodes).
pub fn item(update: &Value) -> UpdateItem {
    let raw = RawJson::from_string(update.to_string()).expect("valid JSON");
    let item = UpdateItem::from_raw(raw, "");
    assert!(!matches!(item, UpdateItem::Malformed { .. }), "{item:?}");
    item
}

/// A history of `updates`, oldest first.
pub fn history(updates: &[Value]) -> History {
    let mut h = History::default();
    let items: Vec<UpdateItem> = updates.iter().map(item).collect();
    assert_eq!(h.add_page(&items, Placement::Append), items.len());
    h
}
