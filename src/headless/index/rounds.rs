//! `index rounds`: per mining round, the index's figures (its per-round summary, schema 8)
//! beside what each scan serves for the round on the reward accounting endpoints, judged by
//! [`crate::model::index::rounds::judge`]. The scans are asked round after round, all at
//! once for each (each within its request budget); none asked when none is configured or
//! reachable, or with `--no-scans`: the figures alone, and the JSON says why. A round counted
//! from updates `index prune` removed since says so (`records_pruned`): its figures are kept,
//! not re-checkable from the index's records.

use std::time::Duration;

use serde_json::{Value, json};

use super::{
    EXIT_OK, EXIT_USAGE, Location, Settings, Write, now_micros, open_reader, say, store_code,
    write_pretty,
};
use crate::api::{ApiClient, ApiConfig};
use crate::every_scan::discovery::{ListSource, discover};
use crate::every_scan::reward_tree::trees_of_round;
use crate::every_scan::rounds::ask_round;
use crate::every_scan::{Network, ScanBudget};
use crate::indexer::Shared;
use crate::model::consensus::quorum;
use crate::model::format::format_time_micros;
use crate::model::index::rounds::{RoundSummary, closed_and_whole, judge};
use crate::model::reward_tree::RoundTrees;
use crate::store::{IndexReader, StoreError};

use super::super::network::EXIT_DEGRADED;

/// What `index rounds` was asked.
pub(super) struct RoundsAsk<'a> {
    pub from: Option<i64>,
    pub until: Option<i64>,
    pub party: Option<&'a str>,
    pub no_scans: bool,
    /// `--tree`: walk each round's reward tree on every scan serving a root hash.
    pub tree: bool,
    pub rate: f64,
    pub timeout: Duration,
}

/// The index's side: the rounds asked for, the newest and oldest round it holds, whether it
/// starts at the ledger's beginning, whether its summary covers every kept event.
struct Local {
    rounds: Vec<RoundSummary>,
    first: Option<i64>,
    newest: Option<i64>,
    from_begin: bool,
    built: bool,
    /// Counted updates recorded before this time (µs) were pruned.
    pruned_before: Option<i64>,
    /// The open index (`--tree` reads the trees' providers from it).
    store: Shared<dyn IndexReader>,
}

async fn local(
    location: Location,
    ask: &RoundsAsk<'_>,
    err: &mut dyn Write,
) -> Result<Local, StoreError> {
    let store = open_reader(location, err).await?;
    let (from, until, party) = (ask.from, ask.until, ask.party.map(str::to_owned));
    let kept = store.clone();
    store
        .call(move |s| {
            let rounds = s.rounds(from, until, party.as_deref())?;
            // The index's whole reach (the summary is small).
            let ends = s.rounds(None, None, None)?;
            let from_begin = s
                .chunks()?
                .iter()
                .any(|c| c.start.is_none() && c.cursor.is_some());
            Ok(Local {
                rounds,
                first: ends.first().map(|r| r.round),
                newest: ends.last().map(|r| r.round),
                from_begin,
                built: s.rounds_built()?,
                pruned_before: crate::store::rounds::cut_of(
                    s.meta_get(crate::store::rounds::PRUNED_KEY)?,
                ),
                store: kept,
            })
        })
        .await
}

/// The scans to ask, with f + 1 of them; `Err`: why none is asked.
async fn scans(
    settings: &Settings,
    ask: &RoundsAsk<'_>,
    err: &mut dyn Write,
) -> Result<(Network, usize), String> {
    if ask.no_scans {
        return Err("--no-scans".to_owned());
    }
    if settings.scan_url.is_none() {
        return Err("no scan configured".to_owned());
    }
    let config = ApiConfig {
        request_timeout: ask.timeout,
        connect_timeout: ask.timeout.min(ApiConfig::default().connect_timeout),
        retries: 0,
        ..super::api_config(settings)
    };
    let client = ApiClient::new(config)
        .map_err(|e| e.to_string())?
        .with_max_response_mib(settings.max_response_mib);
    let found = discover(
        &client,
        settings,
        settings.data_path().as_deref(),
        now_micros(),
    )
    .await;
    for warning in &found.warnings {
        say(err, &format!("warning: {warning}"));
    }
    if let ListSource::Unavailable { errors } = &found.source {
        return Err(format!("no scan reachable ({})", errors.join("; ")));
    }
    let counted = found.entries.iter().filter(|e| e.counted).count();
    let budget = ScanBudget {
        rate: ask.rate,
        timeout: ask.timeout,
        ..ScanBudget::default()
    };
    Ok((
        Network::new(&client, found.entries, budget),
        quorum(counted),
    ))
}

fn time(micros: Option<i64>) -> Value {
    micros.map_or(Value::Null, |m| json!(format_time_micros(m)))
}

/// Runs `index rounds`; the exit code.
pub(super) async fn rounds(
    location: Location,
    settings: &Settings,
    ask: &RoundsAsk<'_>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let shown = location.describe();
    let local = match local(location, ask, err).await {
        Ok(l) => l,
        Err(e) => {
            say(err, &e.to_string());
            return store_code(&e);
        }
    };
    if !local.built {
        say(
            err,
            "the index keeps events not yet summed per round (it was migrated from schema 7): the next `cantonscope index sync` sums them; the figures below leave them out",
        );
    }
    let pruned = local.rounds.iter().filter(|r| r.records_pruned).count();
    if pruned > 0 {
        say(
            err,
            &format!(
                "{pruned} rounds were counted from updates since pruned (`index prune`, before {}): their figures are kept as counted but can no longer be re-checked from the index's records",
                local
                    .pruned_before
                    .map(format_time_micros)
                    .unwrap_or_default()
            ),
        );
    }
    let asked = if local.rounds.is_empty() {
        Err("no round in the index".to_owned())
    } else {
        scans(settings, ask, err).await
    };
    if let Err(why) = &asked {
        say(err, &format!("the scans were not asked: {why}"));
    }
    let (mut divergences, mut differing_scans) = (0, Vec::<String>::new());
    let mut differing_trees = Vec::<String>::new();
    let mut rows = Vec::with_capacity(local.rounds.len());
    for r in &local.rounds {
        let (closed, whole) =
            closed_and_whole(r.round, local.first, local.newest, local.from_begin);
        let mut row = serde_json::to_value(r).unwrap_or(Value::Null);
        row["first_time"] = time(r.sums.first_time);
        row["last_time"] = time(r.sums.last_time);
        row["closed"] = json!(closed);
        row["whole"] = json!(whole);
        row["top_provider"] = json!(r.top_providers.first().map(|p| p.party.clone()));
        let check = match &asked {
            Err(_) => "not asked".to_owned(),
            Ok((net, threshold)) => {
                let answers = ask_round(net, r.round).await;
                let c = judge(r, whole && ask.party.is_none(), &answers, *threshold);
                let mut tree_diverges = false;
                if ask.tree {
                    if c.scans.iter().any(|s| s.served_root_hash.is_some()) {
                        let compare = (whole && ask.party.is_none()).then_some(r.active_parties);
                        let t = round_trees(net, &local.store, r.round, compare).await;
                        let (said, diverges) = t.verdict();
                        tree_diverges = diverges;
                        for s in t.scans.iter().filter(|s| s.diverges()) {
                            if !differing_trees.contains(&s.scan) {
                                differing_trees.push(s.scan.clone());
                            }
                        }
                        row["tree"] = json!(t.per_scan());
                        row["tree_verdict"] = json!(said);
                        row["trees"] = t
                            .scans
                            .iter()
                            .map(|s| {
                                let mut v = serde_json::to_value(s).unwrap_or(Value::Null);
                                v["result"] = json!(s.said(&|h| h.to_owned()));
                                if let Some(l) = &s.leaves {
                                    v["leaves"]["said"] = json!(l.said());
                                }
                                v
                            })
                            .collect();
                    } else {
                        row["tree"] = json!("no scan serves a root hash");
                    }
                }
                let verdict = if c.root_divergence || !c.differing.is_empty() || tree_diverges {
                    divergences += 1;
                    "divergence"
                } else if c.root_hash.is_some() {
                    "agree"
                } else if !closed {
                    "open"
                } else {
                    "not served"
                };
                for s in &c.differing {
                    if !differing_scans.contains(s) {
                        differing_scans.push(s.clone());
                    }
                }
                row["differing_scans"] = json!(c.differing.join(", "));
                row["root_hash"] = json!(c.root_hash);
                row["root_divergence"] = json!(c.root_divergence);
                row["scans"] = serde_json::to_value(&c.scans).unwrap_or(Value::Null);
                verdict.to_owned()
            }
        };
        row["check"] = json!(check);
        rows.push(row);
    }
    let mut doc = json!({
        "index": shown,
        "party": ask.party,
        "rounds_held": {"first": local.first, "newest": local.newest},
        "summary_complete": local.built,
        "records_pruned_before": time(local.pruned_before),
        "scans_asked": asked.is_ok(),
        "scans_not_asked_because": asked.as_ref().err(),
        "f_plus_one": asked.as_ref().ok().map(|(_, t)| *t),
        "divergences": divergences,
        "differing_scans": differing_scans,
        "rounds": rows,
    });
    if ask.tree {
        doc["differing_trees"] = json!(differing_trees);
    }
    if let Err(e) = write_pretty(out, &doc) {
        say(err, &e);
        return EXIT_USAGE;
    }
    if divergences > 0 {
        let mut why = Vec::new();
        if !differing_scans.is_empty() {
            why.push(format!(
                "activity totals differ from the index's on {}",
                differing_scans.join(", ")
            ));
        }
        if !differing_trees.is_empty() {
            why.push(format!(
                "the reward tree differs (a batch's hash, or its leaves against the index) on {}",
                differing_trees.join(", ")
            ));
        }
        if why.is_empty() {
            why.push("no root hash is served by f + 1 scans".to_owned());
        }
        say(
            err,
            &format!("{divergences} rounds diverge: {}", why.join("; ")),
        );
        return EXIT_DEGRADED;
    }
    EXIT_OK
}

/// Round `round`'s reward tree on every scan of `net`, the providers of its leaves looked up
/// in the index and judged; `compare`: the index holds the whole round, with this many active
/// providers (else the leaves are checked against each scan's own totals only).
async fn round_trees(
    net: &Network,
    store: &Shared<dyn IndexReader>,
    round: i64,
    compare: Option<i64>,
) -> RoundTrees {
    let mut trees = RoundTrees {
        round,
        scans: trees_of_round(net, round).await,
        kept: None,
    };
    let parties = trees.providers();
    trees.kept = Some(
        store
            .call(move |s| crate::store::rounds::kept_records(s, round, &parties))
            .await
            .map_err(|e| e.to_string()),
    );
    trees.judge(compare);
    trees
}
