//! The position fields of one update item (id, migration id, record time), read from its JSON
//! without decoding the rest.

use serde::Deserialize;
use serde_json::Value;

/// The position fields of one update item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemInfo {
    pub update_id: String,
    /// For a reassignment, the one inside `event`.
    pub migration_id: i64,
    /// As the server wrote it.
    pub record_time: String,
    /// A reassignment (an `event`), not a transaction.
    pub reassignment: bool,
}

#[derive(Deserialize)]
struct ItemHead {
    #[serde(default)]
    update_id: Option<String>,
    #[serde(default)]
    migration_id: Option<Value>,
    #[serde(default)]
    record_time: Option<String>,
    #[serde(default)]
    event: Option<EventHead>,
}

#[derive(Deserialize)]
struct EventHead {
    #[serde(default)]
    migration_id: Option<Value>,
}

/// Reads the update id, migration id and record time of one item's JSON.
pub fn item_info(item: &[u8]) -> Option<ItemInfo> {
    let head: ItemHead = serde_json::from_slice(item).ok()?;
    let reassignment = head.event.is_some();
    let migration = head
        .migration_id
        .or_else(|| head.event.and_then(|e| e.migration_id))?;
    let migration_id = match migration {
        Value::Number(n) => n.as_i64()?,
        Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    Some(ItemInfo {
        update_id: head.update_id.unwrap_or_default(),
        migration_id,
        record_time: head.record_time?,
        reassignment,
    })
}
