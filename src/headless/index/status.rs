//! `index status`: the index's bookkeeping as JSON.

use super::{Location, Value, Write, now_micros, open_reader};
use crate::store::StoreError;

pub(super) async fn status(location: Location, err: &mut dyn Write) -> Result<Value, StoreError> {
    let store = open_reader(location, err).await?;
    let status = store.call(|s| s.status(now_micros())).await?;
    Ok(serde_json::to_value(&status).unwrap_or(Value::Null))
}
