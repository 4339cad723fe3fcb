//! `index validators`: every validator ever licensed, from the index's validators' table (the
//! kept history: its first licence, its newest activity) and, unless `--no-scan` or offline,
//! the scan's current licences (`/v0/admin/validator/licenses`, every page) and its newest
//! round (`/v0/open-and-issuing-mining-rounds`), sorted as `--sort` says.

use std::time::Duration;

use serde_json::{Value, json};

use super::{
    EXIT_OK, EXIT_USAGE, Location, Settings, Write, open_reader, say, store_code, write_pretty,
};
use crate::api::ApiClient;
use crate::api::scan;
use crate::headless::table::View;
use crate::model::index::validators::{ScanSide, ValidatorSort, assemble};

/// The table and csv of `index validators`.
pub const INDEX_VALIDATORS: View = View {
    summary: &[
        ("index", "/index"),
        ("newest round", "/newest_round"),
        ("scan not asked", "/scan_not_asked_because"),
    ],
    rows: Some("/validators"),
    columns: &[
        ("PARTY", "/party"),
        ("FIRST LICENSED", "/first_licensed"),
        ("CURRENT", "/license_current"),
        ("LAST ACTIVITY", "/last_activity"),
        ("ROUND", "/last_activity_round"),
        ("ROUNDS SINCE", "/rounds_since"),
        ("ACTIVITIES", "/activities"),
        ("APP RECORDS", "/app_activity_records"),
    ],
    custom: None,
};

/// Runs `index validators`; the exit code.
pub(super) async fn validators(
    location: Location,
    settings: &Settings,
    (sort, no_scan, timeout): (ValidatorSort, bool, Duration),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let shown = location.describe();
    let store = match open_reader(location, err).await {
        Ok(s) => s,
        Err(e) => {
            say(err, &e.to_string());
            return store_code(&e);
        }
    };
    let kept = match store.call(crate::store::validators::read).await {
        Ok(k) => k,
        Err(e) => {
            say(err, &e.to_string());
            return store_code(&e);
        }
    };
    let side = if no_scan {
        ScanSide::not_asked("--no-scan")
    } else if settings.scan_url.is_none() {
        ScanSide::not_asked("no scan configured")
    } else {
        match ApiClient::new(crate::headless::api_config_once(settings, timeout)) {
            Ok(client) => {
                let client = client.with_max_response_mib(settings.max_response_mib);
                let (licenses, rounds) = scan::licenses_and_rounds(&client).await;
                ScanSide::of(
                    licenses
                        .as_deref()
                        .map_err(|e| crate::api::sanitize_line(&e.to_string(), 300)),
                    rounds.as_ref(),
                )
            }
            Err(e) => ScanSide::not_asked(&e.to_string()),
        }
    };
    if let Some(why) = &side.not_asked {
        say(
            err,
            &format!("the scan's current licences are unknown: {why}"),
        );
    }
    let (map, index_round) = kept;
    let newest = index_round.max(side.newest_round);
    let rows = assemble(&map, side.licenses.as_deref(), newest, sort);
    let doc = json!({
        "index": shown,
        "newest_round": rows.iter().filter_map(|r| r.last_activity_round).max().max(newest),
        "licenses_from_scan": side.licenses.is_some(),
        "scan_not_asked_because": side.not_asked,
        "count": rows.len(),
        "validators": serde_json::to_value(&rows).unwrap_or(Value::Null),
    });
    if let Err(e) = write_pretty(out, &doc) {
        say(err, &e);
        return EXIT_USAGE;
    }
    EXIT_OK
}
