//! `cantonscope network …`: its commands, their flags and exit codes.

use std::time::Duration;

use clap::{Args, Subcommand};

use crate::config::{HistoryStart, parse_duration};

use super::values::{
    parse_max_differences, parse_pages, parse_request_rate, parse_sweep_from, parse_timeout,
};

/// Exit codes of the `network` commands (shown in their help).
pub const NETWORK_EXIT_CODES: &str = "\
Exit codes:
  0  health: every scan healthy (lagging ones included), backfilling or rate-limited; none
     forked or diverged
     check-update: a consensus on the update, this profile's scan agrees and no scan
     disagrees
     sweep: no difference up to the head or the page limit
  5  health: some scan unhealthy, down, forked (it differs at the head now: the head
     check) or with a diverged history (b, a sweep, the index), but a quorum (f + 1) healthy
     check-update: a consensus, but some scan disagrees or this profile's scan does not agree
     sweep: some update differs between scans (every differing update is reported, in
     ranges, up to --max-differences)
  6  health: fewer than a quorum healthy
     check-update: no consensus (no group of f + 1 matching answers, or two)
     sweep: no difference found and fewer than a quorum of scans answered a page (or no
     scan could say where --from is in the history)
  1  scans: the scan list could not be read (no scan answered /v0/scans and none was
     kept); the other commands then ask only the profile's own and pinned scans
     check-update: a consensus on an error answer: 404, no scan has the update
     (\"found\": false), or another HTTP error
  2  usage or configuration error
  130 interrupted by Ctrl-C (sweep: the result so far is printed)";

/// `cantonscope network …`
#[derive(Debug, Clone, Args)]
#[command(after_help = NETWORK_EXIT_CODES)]
pub struct NetworkArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: NetworkCommand,
    /// Request budget per scan, requests per second [default: scan_request_rate of the
    /// profile, else 10].
    #[arg(long, global = true, value_name = "N", value_parser = parse_request_rate)]
    pub request_rate: Option<f64>,
    /// Timeout of each request, the scan list's (/v0/scans) included; each is sent once.
    #[arg(long, global = true, value_name = "DURATION", default_value = "10s", value_parser = parse_timeout)]
    pub timeout: Duration,
}

/// `cantonscope network …` commands.
#[derive(Debug, Clone, Subcommand)]
pub enum NetworkCommand {
    /// The scans of the network: GET /v0/scans on the profile's scan (the global synchronizer's
    /// list, kept on disk for when no scan answers), merged with the profile's scan_urls and
    /// network_scans.
    #[command(after_help = NETWORK_EXIT_CODES)]
    Scans,
    /// The health of every scan: /status, /version, latency, newest open mining round, newest
    /// update, lag; and the verdict line.
    #[command(after_help = NETWORK_EXIT_CODES)]
    Health {
        /// A newest open mining round older than this is unhealthy [default: max_round_age of
        /// the profile, else 900s].
        #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
        max_round_age: Option<Duration>,
        /// A newest update older than this is unhealthy [default: max_update_age, else 300s].
        #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
        max_update_age: Option<Duration>,
        /// A healthy scan this far behind the newest head is lagging [default: max_lag, else
        /// 30s].
        #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
        max_lag: Option<Duration>,
    },
    /// One update from every scan (GET /v2/updates/{update_id}), answers grouped: which scans
    /// agree, disagree (with the JSON paths that differ), don't know, fail.
    #[command(after_help = NETWORK_EXIT_CODES)]
    CheckUpdate {
        /// The whole update id (68 hex characters; the 64 after `1220` also do), or an
        /// abbreviation as the explorer shows it (`1220d17b…9f1e`, `9237fcb34d82…`) that names
        /// one update of the local index.
        #[arg(value_parser = crate::model::id_pattern::update_id_arg)]
        update_id: String,
        /// Compare GET /v0/events/{update_id} instead (without verdict.finalization_time and
        /// app_activity_records, which are local to each scan).
        #[arg(long)]
        events: bool,
    },
    /// Compare POST /v2/updates across every scan page by page up to the head (or --pages, or
    /// --max-differences differing updates), going on past differences: every differing update,
    /// grouped into ranges; progress as JSON lines on stderr, the result as JSON on stdout
    /// (schema cantonscope.sweep/1, as the explorer saves it).
    #[command(after_help = NETWORK_EXIT_CODES)]
    Sweep {
        /// Start at this record time, read as `:time` reads it in UTC (RFC 3339, a span back
        /// from now such as -2h, a time of day such as 14:00 or "yesterday 14:00"), or `begin`
        /// [default: begin]. A time in the future is refused.
        #[arg(long, value_name = "TIME|begin", allow_hyphen_values = true, value_parser = parse_sweep_from)]
        from: Option<HistoryStart>,
        /// Stop after this many pages (at least 1).
        #[arg(long, value_name = "N", value_parser = parse_pages)]
        pages: Option<u64>,
        /// Updates per page (1..=1000).
        #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u16).range(1..=1000))]
        page_size: u16,
        /// Stop once this many differing updates are found (at least 1); the result then says
        /// "truncated": true.
        #[arg(long, value_name = "N", default_value_t = crate::model::sweep::DEFAULT_MAX_DIFFERENCES, value_parser = parse_max_differences)]
        max_differences: u64,
        /// No progress lines on stderr.
        #[arg(long)]
        quiet: bool,
    },
}
