//! `index status`: the index's bookkeeping as JSON.

use super::{
    EXIT_OK, EXIT_USAGE, Location, Value, Write, now_micros, open, say, store_code, write_pretty,
};

pub(super) async fn status(location: Location, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let result = async {
        let store = open(location, false, err).await?;
        store.call(|s| s.status(now_micros())).await
    }
    .await;
    match result {
        Ok(status) => {
            let value = serde_json::to_value(&status).unwrap_or(Value::Null);
            match write_pretty(out, &value) {
                Ok(()) => EXIT_OK,
                Err(e) => {
                    say(err, &e);
                    EXIT_USAGE
                }
            }
        }
        Err(e) => {
            say(err, &e.to_string());
            store_code(&e)
        }
    }
}
