//! `cantonscope demo` and `cantonscope serve-demo`: their flags and the demo scans' faults.

use std::net::SocketAddr;
use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::config::parse_duration;
use crate::demo::{DemoFaults, DemoTime, DownMode, NodeFaults};

use super::TuiArgs;
use super::values::{parse_demo_time, parse_rate, parse_scan_number, parse_scans};

/// Default listen address of `serve-demo`.
pub const DEFAULT_SERVE_DEMO_LISTEN: &str = "127.0.0.1:7575";

/// `cantonscope demo`
#[derive(Debug, Clone, Args)]
pub struct DemoArgs {
    /// Seed of the generated ledger (the same seed gives the same network).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// New updates per second.
    #[arg(long, default_value_t = 1.0, value_parser = parse_rate)]
    pub rate: f64,
    /// Number of scan instances (one per SV, at most 13); the extra ones are served under
    /// /sv2, /sv3, …. Unless --lagging-scan or --lag says otherwise, the last one lags by 42 s;
    /// the others are at the head.
    #[arg(long, default_value_t = 4, value_parser = parse_scans)]
    pub scans: usize,
    /// Faults of individual scans.
    #[command(flatten)]
    pub faults: DemoFaultArgs,
    /// Explorer flags.
    #[command(flatten)]
    pub tui: TuiArgs,
}

/// `cantonscope serve-demo`
#[derive(Debug, Clone, Args)]
pub struct ServeDemoArgs {
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, default_value = DEFAULT_SERVE_DEMO_LISTEN, value_name = "ADDR")]
    pub listen: SocketAddr,
    /// Seed of the generated ledger (the same seed gives the same network).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// New updates per second (0 for a still network).
    #[arg(long, default_value_t = 1.0, value_parser = parse_rate)]
    pub rate: f64,
    /// Number of scan instances (one per SV, at most 13); the extra ones are served under /sv2,
    /// /sv3, …. Scans 5 to 13 bring their SVs into the DSO; the history stays the same.
    #[arg(long, default_value_t = 1, value_parser = parse_scans)]
    pub scans: usize,
    /// Require HTTP basic auth `USER:PASSWORD` on the scan and validator groups (as a scan behind
    /// an authenticating proxy does); clients pass it in the URL: `http://USER:PASSWORD@host`.
    #[arg(long, value_name = "USER:PASSWORD")]
    pub basic_auth: Option<String>,
    /// Every scan without a fault at the head (by default scan K trails the head by K − 1
    /// updates).
    #[arg(long)]
    pub no_stagger: bool,
    /// Faults of individual scans.
    #[command(flatten)]
    pub faults: DemoFaultArgs,
}

/// Faults of demo scans (`demo`, `serve-demo`). Scans are numbered from 1 (scan 1 is served at
/// the base URL, scan K under /svK).
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Demo scan faults")]
pub struct DemoFaultArgs {
    /// Scan K's history lags the newest update by --lag (its newest open round too).
    #[arg(long, value_name = "K", value_parser = parse_scan_number)]
    pub lagging_scan: Option<usize>,
    /// How far the lagging scan lags [default: 42s]; 0s: no lagging scan.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub lag: Option<Duration>,
    /// Scan K is down (see --down-mode).
    #[arg(long, value_name = "K", value_parser = parse_scan_number)]
    pub down_scan: Option<usize>,
    /// How the down scan is down: refused (its listed URL is a closed port) or 503.
    #[arg(long, value_enum, default_value = "refused")]
    pub down_mode: DownModeArg,
    /// Scan K returns a different workflow_id for every transaction from --diverge-from on.
    #[arg(long, value_name = "K", value_parser = parse_scan_number)]
    pub diverging_scan: Option<usize>,
    /// When the diverging scan starts to differ: an RFC 3339 time, or a duration before the
    /// newest update at start [default: 1h].
    #[arg(long, value_name = "TIME|DURATION", value_parser = parse_demo_time)]
    pub diverge_from: Option<DemoTime>,
    /// Scan K's reward accounting differs: another total activity weight, and a leaf batch
    /// whose first minting allowance is not what its hash says.
    #[arg(long, value_name = "K", value_parser = parse_scan_number)]
    pub diverging_rewards: Option<usize>,
    /// Scan K serves different mediator verdicts (another mediator_group) for about one
    /// update in three on /v0/events and /v0/events/{id}.
    #[arg(long, value_name = "K", value_parser = parse_scan_number)]
    pub diverging_verdicts: Option<usize>,
    /// Scan K has not backfilled its history before --backfilled-from: 404 for those updates
    /// ("don't know"), 503 for pages before it, /v0/backfilling/status incomplete.
    #[arg(long, value_name = "K", value_parser = parse_scan_number)]
    pub backfilling_scan: Option<usize>,
    /// Where the backfilling scan's history starts: an RFC 3339 time, or a duration before the
    /// newest update at start [default: 1d].
    #[arg(long, value_name = "TIME|DURATION", value_parser = parse_demo_time)]
    pub backfilled_from: Option<DemoTime>,
    /// Scan K answers 429 (Retry-After: 1) above --rate-limit requests per second per client.
    #[arg(long, value_name = "K", value_parser = parse_scan_number)]
    pub limited_scan: Option<usize>,
    /// The limited scan's limit, requests per second per client [default: 5].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub rate_limit: Option<u32>,
    /// The participant answers 404 for POST /v2/updates/trees, as Canton 3.5+ nodes do (POST
    /// /v2/updates still answers).
    #[arg(long)]
    pub no_update_trees: bool,
    /// Scan K ignores pageToken on POST /v0/admin/sv/voteresults: every page is the first one,
    /// with the same next_page_token (as an older scan may).
    #[arg(long, value_name = "K", value_parser = parse_scan_number)]
    pub ignores_page_token: Option<usize>,
    /// The first SV's metrics: the newest mining round opened this long ago and no round opens
    /// any more (e.g. 45m). Switch while running: POST /demo/faults.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub stalled_rounds: Option<Duration>,
    /// The first SV's metrics: the sequencer client's last sequencing time trails the clock by
    /// this much (e.g. 10m).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub sequencer_delay: Option<Duration>,
    /// The first SV's metrics: the SV app's automation keeps failing.
    #[arg(long)]
    pub automation_failures: bool,
}

/// Value of `--down-mode`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum DownModeArg {
    /// Connection refused.
    #[default]
    #[value(name = "refused")]
    Refused,
    /// HTTP 503 for every request.
    #[value(name = "503")]
    Unavailable,
}

/// Default lag of the lagging demo scan.
pub const DEFAULT_DEMO_LAG: Duration = Duration::from_secs(42);

impl DemoFaultArgs {
    /// The faults of a demo of `scans` scans (scan numbers from 1 become indexes from 0).
    /// Without --lagging-scan, the last scan lags when `lag_by_default` or --lag is given (and
    /// there are at least two scans).
    pub fn faults(&self, scans: usize, lag_by_default: bool) -> DemoFaults {
        let lag = self.lag.unwrap_or(DEFAULT_DEMO_LAG);
        let lagging_scan = self
            .lagging_scan
            .map(|k| k - 1)
            .or_else(|| (scans >= 2 && (lag_by_default || self.lag.is_some())).then(|| scans - 1));
        DemoFaults {
            lagging: lagging_scan.filter(|_| !lag.is_zero()).map(|k| (k, lag)),
            down: self.down_scan.map(|k| {
                (
                    k - 1,
                    match self.down_mode {
                        DownModeArg::Refused => DownMode::Refused,
                        DownModeArg::Unavailable => DownMode::Unavailable,
                    },
                )
            }),
            diverging: self.diverging_scan.map(|k| {
                (
                    k - 1,
                    self.diverge_from
                        .unwrap_or(DemoTime::BeforeHead(Duration::from_secs(3_600))),
                )
            }),
            diverging_rewards: self.diverging_rewards.map(|k| k - 1),
            diverging_verdicts: self.diverging_verdicts.map(|k| k - 1),
            backfilling: self.backfilling_scan.map(|k| {
                (
                    k - 1,
                    self.backfilled_from
                        .unwrap_or(DemoTime::BeforeHead(Duration::from_secs(86_400))),
                )
            }),
            rate_limit: self
                .limited_scan
                .map(|k| (k - 1, self.rate_limit.unwrap_or(5))),
            update_trees_removed: self.no_update_trees,
            page_token_ignored: self.ignores_page_token.map(|k| k - 1),
            node: NodeFaults {
                stalled_rounds: self.stalled_rounds.filter(|d| !d.is_zero()),
                sequencer_delay: self.sequencer_delay.filter(|d| !d.is_zero()),
                automation_failures: self.automation_failures,
            },
        }
    }
}
