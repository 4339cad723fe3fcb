//! `index verify`: re-checks the stored updates against the scans now, with the engine of
//! [`crate::indexer`]. Every range the index covers (bounded by `--from`/`--until`) is walked as
//! a sync walks it; each stored digest is compared with the one the scans agree on; updates the
//! scans have that the index lacks, and the reverse, are named too. What it found is recorded
//! per range (shown by `index status`); a stored update is never changed.

use super::sync::client;
use super::{
    EXIT_DEGRADED, EXIT_NO_QUORUM, EXIT_OK, EXIT_USAGE, Halt, Location, Plan, ProgressMode,
    Settings, Stderr, Value, Write, format_time_micros, json, now_micros, open_reader, open_writer,
    parse_time_micros, say, store_code, write_pretty,
};
use crate::every_scan::Cancel;
use crate::indexer::{Engine, Found, RangeCheck, Shared};
use crate::model::findings::{FindingOp, FoundBy};
use crate::store::{IndexReader, IndexWriter, Position, covered};

/// Runs `index verify`; returns the exit code.
#[allow(clippy::too_many_arguments)]
pub(super) async fn verify(
    location: Location,
    settings: &Settings,
    plan: &Plan,
    progress: ProgressMode,
    from: Option<i64>,
    out: &mut dyn Write,
    err: &mut dyn Write,
    cancel: &Cancel,
) -> i32 {
    if settings.scan_url.is_none() {
        say(
            err,
            &crate::headless::no_scan_configured("; its /v0/scans lists the scans to verify with"),
        );
        return EXIT_USAGE;
    }
    // An index that exists; opened for writing only to record the verification.
    let store = match open_reader(location.clone(), err).await {
        Ok(reader) => {
            drop(reader);
            open_writer(location, err).await
        }
        Err(e) => Err(e),
    };
    let store = match store {
        Ok(store) => store,
        Err(e) => {
            say(err, &e.to_string());
            return store_code(&e);
        }
    };
    let ranges = match store.call(IndexReader::chunks).await {
        Ok(chunks) => covered(&chunks)
            .into_iter()
            .filter(|(after, through)| {
                let start = after
                    .as_ref()
                    .and_then(|p| parse_time_micros(&p.record_time));
                let end = parse_time_micros(&through.record_time).unwrap_or(i64::MAX);
                from.is_none_or(|f| end >= f)
                    && plan.until.is_none_or(|u| start.is_none_or(|s| s < u))
            })
            .collect::<Vec<_>>(),
        Err(e) => {
            say(err, &e.to_string());
            return store_code(&e);
        }
    };
    let walked = walk(
        store.clone(),
        settings,
        plan,
        progress,
        ranges,
        from,
        err,
        cancel,
    )
    .await;
    let (checks, found, halt, findings, pages) = match walked {
        Ok(walked) => walked,
        Err((code, message)) => {
            say(err, &message);
            let report = json!({ "outcome": "failed", "exit_code": code, "error": message });
            if let Err(e) = write_pretty(out, &report) {
                say(err, &e);
            }
            return code;
        }
    };
    if progress == ProgressMode::Line {
        let _ = writeln!(err);
    }
    super::keep_findings(settings, &findings, err);
    // Recorded per range walked (a range never reached is not).
    let now = now_micros();
    let records: Vec<Value> = checks
        .iter()
        .filter(|c| c.updates > 0 || c.complete)
        .map(|c| {
            let mut record = c.to_json();
            if let Some(map) = record.as_object_mut() {
                map.insert("verified_at".to_owned(), json!(format_time_micros(now)));
                map.insert("verify".to_owned(), json!(plan.verify.label()));
            }
            record
        })
        .collect();
    if !records.is_empty()
        && let Err(e) = store.call(move |s| s.record_verification(&records)).await
    {
        say(
            err,
            &format!("warning: the verification is not recorded: {e}"),
        );
    }
    let differs =
        !(found.mismatches.is_empty() && found.missing.is_empty() && found.extra.is_empty());
    let (code, outcome) = match &halt {
        Some(halt) => {
            let (code, message) = halt_code(halt);
            say(err, &message);
            let outcome = match halt {
                Halt::Interrupted => "interrupted",
                Halt::Diverged(..) => "diverged",
                Halt::Failed(..) => "failed",
            };
            (code, outcome)
        }
        None if differs => {
            if let Some(first) = &found.first {
                say(err, first);
            }
            (EXIT_DEGRADED, "differs")
        }
        // `agree` only when every stored update of every range was compared.
        None if checks.iter().any(|c| !c.complete) => {
            let unchecked: u64 = checks.iter().map(|c| c.unchecked).sum();
            say(
                err,
                &format!(
                    "{unchecked} stored updates could not be checked: fewer than the {} scans needed serve them now (they lag behind the index); verify again later",
                    plan.verify.label()
                ),
            );
            (EXIT_NO_QUORUM, "unchecked")
        }
        None => (EXIT_OK, "agree"),
    };
    let updates: u64 = checks.iter().map(|c| c.updates).sum();
    let report = json!({
        "outcome": outcome,
        "exit_code": code,
        "pages": pages,
        "updates_checked": updates,
        "ranges": checks.iter().map(RangeCheck::to_json).collect::<Vec<_>>(),
        "mismatches": found.mismatches,
        "missing": found.missing,
        "extra": found.extra,
        "odd_scans": found.odd,
    });
    if let Err(e) = write_pretty(out, &report) {
        say(err, &e);
    }
    code
}

/// What walking `ranges` found, or the exit code and message of why the scans could not be
/// asked.
type Walked = (Vec<RangeCheck>, Found, Option<Halt>, Vec<FindingOp>, u64);

/// The engine connected and `ranges` verified from `from`.
#[allow(clippy::too_many_arguments)]
async fn walk(
    store: Shared<dyn IndexWriter>,
    settings: &Settings,
    plan: &Plan,
    progress: ProgressMode,
    ranges: Vec<(Option<Position>, Position)>,
    from: Option<i64>,
    err: &mut dyn Write,
    cancel: &Cancel,
) -> Result<Walked, (i32, String)> {
    let client = client(settings, plan).map_err(|e| (e.exit_code(), e.to_string()))?;
    let mut stderr = Stderr {
        err,
        mode: progress,
        waiting: std::sync::Arc::default(),
    };
    let engine = Engine::connect(store, &client, settings, plan, &mut stderr, cancel)
        .await
        .map_err(|halt| halt_code(&halt))?;
    let (checks, found, halt) = engine.verify(ranges, from).await;
    let findings = engine.take_findings(FoundBy::IndexVerify);
    let pages = engine.counters().pages;
    Ok((checks, found, halt, findings, pages))
}

/// The exit code and message of what stopped a verify.
fn halt_code(halt: &Halt) -> (i32, String) {
    match halt {
        Halt::Diverged(record, _) => (
            EXIT_DEGRADED,
            format!(
                "the scans disagree on update {} (migration {}, {}) and no version has the scans needed, so the index cannot be checked there (`cantonscope network check-update {}` shows each scan's answer); versions: {}",
                record.update_id,
                record.migration_id,
                record.record_time,
                record.update_id,
                record.detail["versions"]
            ),
        ),
        other => super::halt_code(other),
    }
}
