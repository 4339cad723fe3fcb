//! `index search`: fielded terms over the key tables, newest first, as JSON Lines.

use super::{
    EXIT_USAGE, Location, Query, Write, json_text, open_reader, parse_time_micros, say, store_code,
    write_text,
};

#[allow(clippy::too_many_arguments)]
pub(super) async fn search(
    location: Location,
    words: &[String],
    from: Option<&str>,
    until: Option<&str>,
    limit: usize,
    count: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let query = match Query::parse(words) {
        Ok(q) => q,
        Err(message) => {
            say(err, &message);
            return EXIT_USAGE;
        }
    };
    let from = from.and_then(parse_time_micros);
    let until = until.and_then(parse_time_micros);
    let store = match open_reader(location, err).await {
        Ok(store) => store,
        Err(e) => {
            say(err, &e.to_string());
            return store_code(&e);
        }
    };
    // The updates that match, and the events with a verdict and no update that do (a
    // rejected request, a wholly private transaction: records of their own), newest first.
    let written = if count {
        let counted = store
            .call(move |s| crate::store::search_all::count(s, &query, from, until))
            .await;
        match counted {
            Ok(n) => write_text(out, &n.to_string()),
            Err(e) => {
                say(err, &e.to_string());
                return store_code(&e);
            }
        }
    } else {
        match store
            .call(move |s| crate::store::search_all::search(s, &query, from, until, limit))
            .await
        {
            Ok(rows) => rows.iter().try_for_each(|row| {
                let line = serde_json::to_string(row).map_err(|e| e.to_string())?;
                write_text(out, &json_text::escape_unsafe(&line))
            }),
            Err(e) => {
                say(err, &e.to_string());
                return store_code(&e);
            }
        }
    };
    super::written(written, err)
}
