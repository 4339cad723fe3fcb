//! `index sync`: the engine of [`crate::indexer`] driven from the shell. The index opened with
//! the writer lock, a heartbeat beside the sync, its progress on stderr ([`super::progress`]),
//! the findings kept, and its outcome as JSON with the exit code.

use super::progress::counters_json;
use super::{
    EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, Halt, Location, Plan, ProgressMode, Settings, Stderr,
    Value, Write, api_config, halt_code, json, now_micros, open_locked, say, store_code,
    write_pretty,
};
use std::sync::Arc;
use std::sync::atomic::AtomicI64;

use crate::api::{ApiClient, ApiConfig, ApiError};
use crate::every_scan::Cancel;
use crate::indexer::{Counters, Engine, EventsCounts, EventsMode, Failure, Shared, beat_every};
use crate::model::findings::FoundBy;
use crate::store::lock::host_name;
use crate::store::{Heartbeat, IndexWriter};

/// How a sync ended.
enum Ended {
    Done(Counters, Option<EventsCounts>),
    Halted(Halt, Counters, Option<EventsCounts>),
    /// The client to the scans could not be made.
    Client(ApiError),
}

/// Runs `index sync`; returns the exit code. `stopped`: whether SIGTERM came (which ends a
/// `--follow` sync as planned).
#[allow(clippy::too_many_arguments)]
pub(super) async fn sync(
    location: Location,
    settings: &Settings,
    plan: &Plan,
    progress: ProgressMode,
    out: &mut dyn Write,
    err: &mut dyn Write,
    cancel: &Cancel,
    stopped: &dyn Fn() -> bool,
) -> i32 {
    if settings.scan_url.is_none() {
        say(
            err,
            &crate::headless::no_scan_configured(
                "; the index takes its bodies from it and its /v0/scans lists the verifiers",
            ),
        );
        return EXIT_USAGE;
    }
    let started_at = now_micros();
    let (store, _lock) = match open_locked(location, "index sync", started_at, false, err).await {
        Ok(opened) => opened,
        Err(e) => {
            say(err, &e.to_string());
            return store_code(&e);
        }
    };
    let heartbeat = Heartbeat {
        pid: i64::from(std::process::id()),
        host: host_name(),
        started_at,
        beat_at: started_at,
        command: "index sync".to_owned(),
    };
    let first = heartbeat.clone();
    if let Err(e) = store.call(move |s| s.beat(&first)).await {
        say(err, &e.to_string());
        return store_code(&e);
    }
    let waiting = Arc::new(AtomicI64::new(0));
    let beating = tokio::spawn(beat_every(store.clone(), heartbeat, Arc::clone(&waiting)));
    let mut stderr = Stderr {
        err: &mut *err,
        mode: progress,
        waiting,
    };
    let ended = run(store.clone(), settings, plan, &mut stderr, cancel).await;
    beating.abort();
    let events = match &ended {
        Ended::Done(_, events) | Ended::Halted(_, _, events) => {
            events.as_ref().map(EventsCounts::to_json)
        }
        Ended::Client(_) => None,
    };
    let (code, outcome, extra) = match &ended {
        Ended::Done(counters, _) => (
            EXIT_OK,
            "done",
            json!({ "counters": counters_json(counters) }),
        ),
        Ended::Halted(Halt::Interrupted, counters, _) => {
            // SIGTERM ends a --follow sync (a service, a tmux pane closing) as planned.
            let (code, outcome) = if stopped() && plan.follow {
                (EXIT_OK, "stopped")
            } else {
                (EXIT_INTERRUPTED, "interrupted")
            };
            (
                code,
                outcome,
                json!({ "counters": counters_json(counters) }),
            )
        }
        Ended::Halted(halt @ Halt::Diverged(record, _), counters, _) => {
            let (code, message) = halt_code(halt);
            say(err, &message);
            (
                code,
                "diverged",
                json!({
                    "counters": counters_json(counters),
                    "divergence": serde_json::to_value(record.as_ref()).unwrap_or(Value::Null),
                }),
            )
        }
        Ended::Halted(halt @ Halt::Failed(_), counters, _) => {
            failed(halt_code(halt), counters, err)
        }
        Ended::Client(e) => failed((e.exit_code(), e.to_string()), &Counters::default(), err),
    };
    let ended = now_micros();
    if let Err(e) = store
        .call(move |s| s.end_sync(started_at, ended, outcome))
        .await
    {
        say(err, &format!("warning: {e}"));
    }
    let mut result = json!({ "outcome": outcome, "exit_code": code });
    if let (Some(map), Value::Object(more)) = (result.as_object_mut(), extra) {
        map.extend(more);
        if let Some(events) = events {
            map.insert("events".to_owned(), events);
        }
    }
    if let Err(e) = write_pretty(out, &result) {
        say(err, &e);
    }
    code
}

/// The outcome of a sync that failed: its message said.
fn failed(
    (code, message): (i32, String),
    counters: &Counters,
    err: &mut dyn Write,
) -> (i32, &'static str, Value) {
    say(err, &message);
    (
        code,
        "failed",
        json!({ "counters": counters_json(counters), "error": message }),
    )
}

/// The client `index sync` and `index verify` ask the scans with: the walk's timeout, no
/// retries (a failing scan is skipped for another).
pub(super) fn client(settings: &Settings, plan: &Plan) -> Result<ApiClient, ApiError> {
    let config = ApiConfig {
        request_timeout: plan.timeout,
        connect_timeout: plan.timeout.min(ApiConfig::default().connect_timeout),
        retries: 0,
        ..api_config(settings)
    };
    Ok(ApiClient::new(config)?.with_max_response_mib(settings.max_response_mib))
}

/// The engine connected and run; the findings it made kept.
async fn run(
    store: Shared<dyn IndexWriter>,
    settings: &Settings,
    plan: &Plan,
    stderr: &mut Stderr<'_>,
    cancel: &Cancel,
) -> Ended {
    let client = match client(settings, plan) {
        Ok(client) => client,
        Err(e) => return Ended::Client(e),
    };
    let engine = match Engine::connect(store, &client, settings, plan, stderr, cancel).await {
        Ok(engine) => engine,
        Err(halt) => return Ended::Halted(halt, Counters::default(), None),
    };
    // The updates (unless --events), then the events of those kept without them (unless
    // --no-events; a --follow sync never ends its walk of the updates).
    let mut result = if plan.events == EventsMode::Only {
        Ok(())
    } else {
        engine.sync().await
    };
    let mut events = None;
    let mut warning = None;
    if result.is_ok() && plan.events != EventsMode::Skip {
        match engine.sync_events().await {
            Ok(counts) => events = Some(counts),
            // Beside the updates, events the scans cannot serve or verify (an older scan:
            // 404; fewer scans serving them than --verify asks) leave the updates synced: said,
            // not a failure (`--events` asks for them alone and fails).
            Err(Halt::Failed(Failure::NoQuorum(why) | Failure::Server(why)))
                if plan.events == EventsMode::Keep =>
            {
                warning = Some(format!(
                    "warning: the updates' events are not synced: {why}"
                ));
            }
            Err(halt) => result = Err(halt),
        }
    }
    let findings = engine.take_findings(FoundBy::IndexSync);
    let counters = engine.into_counters();
    super::keep_findings(settings, &findings, &mut *stderr.err);
    if let Some(warning) = warning {
        say(&mut *stderr.err, &warning);
    }
    match result {
        Ok(()) => Ended::Done(counters, events),
        Err(halt) => Ended::Halted(halt, counters, events),
    }
}
