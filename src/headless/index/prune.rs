//! `index prune --before TIME`: drops the updates recorded before a time.

use super::{
    EXIT_OK, EXIT_USAGE, Location, Write, format_time_micros, host_name, json, now_micros,
    open_locked, parse_time_micros, say, store_code, write_pretty,
};

pub(super) async fn prune(
    location: Location,
    before: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let Some(micros) = parse_time_micros(before) else {
        say(err, &format!("--before is not a time: {before}"));
        return EXIT_USAGE;
    };
    let holder = format!(
        "pid {} on {} since {} (cantonscope index prune)",
        std::process::id(),
        host_name(),
        format_time_micros(now_micros())
    );
    let result = async {
        let (store, _lock) = open_locked(location, holder, true, err).await?;
        store.call(move |s| s.prune(micros)).await
    }
    .await;
    match result {
        Ok(removed) => {
            let value = json!({ "removed": removed, "before": format_time_micros(micros) });
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
