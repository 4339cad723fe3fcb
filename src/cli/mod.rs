//! Command-line definitions (clap derive): the explorer (root command and `demo`), `serve-demo`,
//! and the headless `scan` / `validator` / `ledger` / `governance` commands, plus the conversion of the flags into
//! the config layer's [`Overrides`]. Parsing only: running the commands is `crate::headless`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config::{BaseUrl, HistoryStart, Overrides, parse_duration, parse_refresh};
use crate::demo::{DemoFaults, DemoTime, DownMode};

mod values;

use values::{
    parse_demo_time, parse_max_response_mib, parse_pages, parse_rate, parse_request_rate,
    parse_scan_number, parse_scans, parse_sweep_from, parse_timeout,
};
pub use values::{parse_from, parse_time, parse_time_or_now, parse_timestamp};

/// Default listen address of `serve-demo`.
pub const DEFAULT_SERVE_DEMO_LISTEN: &str = "127.0.0.1:7575";

/// cantonscope: a terminal explorer for the Canton Network (Scan API, validator scan-proxy, JSON
/// Ledger API v2).
///
/// Without a command it opens the explorer on the default profile. `cantonscope demo` opens it on
/// a built-in demo network. The `scan`, `validator` and `ledger` commands call one endpoint and print
/// the response as JSON.
#[derive(Debug, Clone, Parser)]
#[command(name = "cantonscope", version, propagate_version = true)]
pub struct Cli {
    /// Flags valid for every command.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Explorer flags (when no command is given).
    #[command(flatten)]
    pub tui: TuiArgs,
    /// What to do; without a command the explorer opens.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Flags valid before or after any command.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Use this profile of the config file.
    #[arg(long, global = true, value_name = "NAME")]
    pub profile: Option<String>,
    /// Read this config file (default: $CANTONSCOPE_CONFIG, then
    /// $XDG_CONFIG_HOME/cantonscope/config.toml, then the platform config dir).
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Scan base URL, e.g. https://scan.sv.example.com (overrides $CANTONSCOPE_SCAN_URL).
    #[arg(long, global = true, value_name = "URL")]
    pub scan_url: Option<BaseUrl>,
    /// Validator base URL (overrides $CANTONSCOPE_VALIDATOR_URL).
    #[arg(long, global = true, value_name = "URL")]
    pub validator_url: Option<BaseUrl>,
    /// Participant JSON Ledger API base URL (overrides $CANTONSCOPE_LEDGER_URL).
    #[arg(long, global = true, value_name = "URL")]
    pub ledger_url: Option<BaseUrl>,
    /// Read the ledger JWT from this file (overrides $CANTONSCOPE_TOKEN).
    #[arg(long, global = true, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Write logs to this file (logs never go to the terminal).
    #[arg(long, global = true, value_name = "FILE")]
    pub log_file: Option<PathBuf>,
    /// Largest response accepted from a node, in MiB after gzip decoding [default: 64]
    /// (overrides $CANTONSCOPE_MAX_RESPONSE_MIB).
    #[arg(long, global = true, value_name = "MIB", value_parser = parse_max_response_mib)]
    pub max_response_mib: Option<u32>,
    /// How the headless commands print: a table for a person, or JSON for scripts [default:
    /// table when stdout is a terminal and the command has a table form, else json].
    #[arg(long, global = true, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputFormat>,
}

/// Value of `--output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Columns and a summary, read from the JSON (ids cut to fit).
    Table,
    /// The JSON (JSON Lines for streams), whole.
    Json,
}

/// Flags of the explorer (root command and `demo`).
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Explorer options")]
pub struct TuiArgs {
    /// Where the history starts: begin, now, an RFC 3339 time or a span back from now (-2h)
    /// [default: 10 minutes before the newest update].
    #[arg(long, value_name = "begin|now|TIME", allow_hyphen_values = true)]
    pub from: Option<HistoryStart>,
    /// Polling interval, e.g. 2s, 500ms, 1m.
    #[arg(long, value_name = "DURATION", value_parser = parse_refresh)]
    pub refresh: Option<Duration>,
    /// Colour theme: dark, light, high-contrast, mono.
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
    /// Disable the actions that change the ledger: delete user and execute in the explorer, and
    /// the headless `ledger delete-user` and `ledger execute` (refused before any request, exit
    /// 2). Give it before the command: `cantonscope --read-only ledger …`.
    #[arg(long)]
    pub read_only: bool,
    /// The explorer on the local history index alone: no node is asked; History lists from the
    /// index (start one with `cantonscope index sync --from -30d --follow`).
    #[arg(long)]
    pub offline: bool,
    /// The local history index the explorer reads (a path; overrides $CANTONSCOPE_INDEX and the
    /// profile's `index`) [default: <data dir>/index/<profile>.sqlite when it exists].
    #[arg(long, value_name = "PATH")]
    pub index: Option<String>,
}

/// The commands.
#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Open the explorer on a demo network started in this process.
    Demo(DemoArgs),
    /// Open the explorer on the view a locator names (`W` in the explorer copies the current
    /// view's): cs1:update/<update id>[#verdict], cs1:history?party=<party id>&at=<time>,
    /// cs1:network/check/<update id>, cs1:holdings?party=<party id>,
    /// cs1:governance/request/<tracking cid>, cs1:<pane>. The nodes come from your profile and
    /// flags, never from the locator.
    Open(OpenArgs),
    /// Serve the demo network over HTTP until interrupted; prints its URLs and token as one JSON
    /// line.
    ServeDemo(ServeDemoArgs),
    /// Call a scan endpoint and print the response as JSON.
    #[command(subcommand)]
    Scan(ScanCommand),
    /// Call a validator scan-proxy endpoint and print the response as JSON.
    #[command(subcommand)]
    Validator(ValidatorCommand),
    /// Call a participant JSON Ledger API endpoint and print the response as JSON.
    #[command(subcommand)]
    Ledger(LedgerCommand),
    /// The whole network: every SV's scan side by side (scan list, health, one update across
    /// all scans, history sweep), as JSON.
    Network(NetworkArgs),
    /// The local history index: a verified copy of every update, searchable offline (sync,
    /// status, search).
    Index(IndexArgs),

    /// Governance of the DSO on the profile's scan: open vote requests, results, what still
    /// needs my SV's vote, SV reward weights, as JSON.
    #[command(subcommand, after_help = GOVERNANCE_EXIT_CODES)]
    Governance(GovernanceCommand),

    /// Print the shell completion script for SHELL to stdout, e.g.
    /// `cantonscope completions bash > ~/.local/share/bash-completion/completions/cantonscope`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to stdout, e.g.
    /// `cantonscope man > ~/.local/share/man/man1/cantonscope.1`.
    Man,
}

/// The completion script of `shell` for every command and flag (from clap, so it never
/// drifts from `--help`).
pub fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut command = <Cli as clap::CommandFactory>::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "cantonscope", &mut out);
    out
}

/// The man page: the root command, then a section per command with its own options
/// (from clap, as `--help` reads).
pub fn man_page() -> Vec<u8> {
    let command = <Cli as clap::CommandFactory>::command();
    let mut out = Vec::new();
    // Writing to memory does not fail.
    let _ = clap_mangen::Man::new(command.clone()).render(&mut out);
    for sub in command.get_subcommands() {
        let _ = clap_mangen::Man::new(sub.clone())
            .title(format!("cantonscope-{}", sub.get_name()))
            .render(&mut out);
    }
    out
}

/// Exit codes of the `governance` commands (shown in their help).
pub const GOVERNANCE_EXIT_CODES: &str = "\
Exit codes:
  0  success (needs-vote: my SV has voted on every open request, or on every one
     closing within --within)
  5  needs-vote: a request still needs my SV's vote (the list is printed)
  1  the scan answered an error (or repeated a page token)
  2  usage or configuration error; needs-vote: my SV is unknown (the scan is not an
     SV's scan and the profile has no sv key)
  3  connection, TLS or timeout
  4  the response could not be decoded";

/// Value of `governance results --outcome`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutcomeArg {
    /// Accepted (and its action executed).
    Accepted,
    /// Rejected by a super-majority.
    Rejected,
    /// Neither accepted nor rejected before the deadline.
    Expired,
    /// Accepted, but executing the action failed.
    Failed,
}

/// `cantonscope governance …`
#[derive(Debug, Clone, Subcommand)]
pub enum GovernanceCommand {
    /// The active vote requests (GET /v0/admin/sv/voterequests), soonest deadline first: the
    /// action in words, requester, reason, deadline, the votes against the threshold and my
    /// SV's vote.
    #[command(after_help = GOVERNANCE_EXIT_CODES)]
    Requests,
    /// Every vote result (POST /v0/admin/sv/voteresults, all pages), newest first, as JSON
    /// Lines.
    #[command(after_help = GOVERNANCE_EXIT_CODES)]
    Results {
        /// Only actions whose name contains this (SRARC_SetConfig, UpdateSvRewardWeight…).
        #[arg(long, value_name = "A")]
        action: Option<String>,
        /// Only this outcome (the server tells only accepted from not; the rest is told apart
        /// here).
        #[arg(long, value_enum)]
        outcome: Option<OutcomeArg>,
        /// Only requests by this SV (its exact name).
        #[arg(long, value_name = "P")]
        requester: Option<String>,
        /// Only results effective at or after this time (RFC 3339, -2h, 14:00…).
        #[arg(long, value_name = "TIME", value_parser = parse_time, allow_hyphen_values = true)]
        from: Option<String>,
        /// Only results effective at or before this time.
        #[arg(long, value_name = "TIME", value_parser = parse_time, allow_hyphen_values = true)]
        until: Option<String>,
        /// Results per page asked of the scan (1..=1000).
        #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u16).range(1..=1000))]
        limit: u16,
    },
    /// The open requests my SV has not voted on (exit 5 when there is one, 0 when none).
    #[command(after_help = GOVERNANCE_EXIT_CODES)]
    NeedsVote {
        /// Only requests whose voting closes within this time (24h, 90m…).
        #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
        within: Option<Duration>,
    },
    /// Every SV of the DSO with its reward weight and its history from accepted weight changes
    /// (unknown before the first).
    #[command(after_help = GOVERNANCE_EXIT_CODES)]
    Weights,
}

/// `cantonscope open LOCATOR`
#[derive(Debug, Clone, Args)]
pub struct OpenArgs {
    /// The view: a cs1: locator (whole ids; no URL, host or credential).
    #[arg(value_name = "LOCATOR", value_parser = parse_locator)]
    pub locator: crate::model::locator::Locator,
    #[command(flatten)]
    pub tui: TuiArgs,
}

fn parse_locator(s: &str) -> Result<crate::model::locator::Locator, String> {
    crate::model::locator::Locator::parse(s).map_err(|e| e.to_string())
}

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
        }
    }
}

/// Exit codes of the `network` commands (shown in their help).
pub const NETWORK_EXIT_CODES: &str = "\
Exit codes:
  0  health: every scan healthy (lagging ones included), backfilling or rate-limited
     check-update: a consensus on the update, this profile's scan agrees and no scan
     disagrees
     sweep: no difference up to the head or the page limit
  5  health: some scan unhealthy or down, but a quorum (f + 1) healthy
     check-update: a consensus, but some scan disagrees or this profile's scan does not agree
     sweep: the scans differ (the first differing update is reported)
  6  health: fewer than a quorum healthy
     check-update: no consensus (no group of f + 1 matching answers, or two)
     sweep: fewer than a quorum of scans answered a page (or no scan could say where
     --from is in the history)
  1  scans: the scan list could not be read (no scan answered /v0/scans and none was
     kept); the other commands then ask only the profile's own and pinned scans
     check-update: a consensus on an error answer: 404, no scan has the update
     (\"found\": false), or another HTTP error
  2  usage or configuration error
  130 interrupted by Ctrl-C (sweep: the result so far is printed)";

/// Exit codes of the `index` commands (shown in their help).
pub const INDEX_EXIT_CODES: &str = "\
Exit codes:
  0  done (sync: up to --until or the verified head; --follow: stopped by SIGTERM;
     verify: every stored update of the range is what the scans agree on)
  1  the profile's scan answered an error
  2  usage or configuration: a bad query, no index, an index that is damaged, of a newer
     schema or of another network, another sync writing the index, an index that cannot
     grow (a full disk, a file size limit)
  3  connection, TLS or timeout talking to the profile's scan
  4  a response could not be decoded
  5  sync: stopped at a divergence: the scans disagree on an update and no version has
     f + 1 (and --verify) scans; the update, the field and the scans are named, and the
     page holding it is not written. Also: the history was rewritten under the index.
     verify: a stored update differs from what --verify scans agree on (another digest,
     missing from the index, or kept where the scans have none; the first is named), or
     the scans disagree among themselves with no version held by enough of them
  6  sync, verify: not enough scans to verify with (fewer than --verify answered)
  130 interrupted (Ctrl-C); every page committed before stays";

/// `cantonscope index …`
#[derive(Debug, Clone, Args)]
#[command(after_help = INDEX_EXIT_CODES)]
pub struct IndexArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: IndexCommand,
    /// The index: an SQLite file, or a postgres:// URL (a team's index) [default:
    /// $CANTONSCOPE_INDEX, the profile's `index`, else <data dir>/index/<profile or
    /// "default">.sqlite].
    #[arg(long, global = true, value_name = "PATH|URL")]
    pub index: Option<String>,
}

/// How many scans must agree on a page before it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyArg {
    /// This many scans (1: unverified, recorded as such).
    Scans(usize),
    /// f + 1 of the network.
    Quorum,
}

fn parse_verify(text: &str) -> Result<VerifyArg, String> {
    if text.trim().eq_ignore_ascii_case("quorum") {
        return Ok(VerifyArg::Quorum);
    }
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=100).contains(&n) => Ok(VerifyArg::Scans(n)),
        _ => Err(format!(
            "expected a number of scans (1..=100) or quorum, got {text:?}"
        )),
    }
}

/// Value of `--progress`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProgressArg {
    /// One JSON object a line on stderr, after every page.
    Json,
}

/// `cantonscope index …` commands.
#[derive(Debug, Clone, Subcommand)]
pub enum IndexCommand {
    /// Walk POST /v2/updates into the index, each page verified by --verify scans; resumes
    /// where the last sync stopped.
    #[command(after_help = INDEX_EXIT_CODES)]
    Sync {
        /// Start at this record time (RFC 3339, a span back from now such as -30d, a time of
        /// day) or `begin` [default: after the newest update of the index, else begin].
        #[arg(long, value_name = "begin|TIME", allow_hyphen_values = true, value_parser = parse_from)]
        from: Option<String>,
        /// Stop after this record time (inclusive) [default: the head].
        #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_time)]
        until: Option<String>,
        /// At the head, keep following new updates (SIGTERM commits the page in hand, exit 0).
        #[arg(long, conflicts_with = "until")]
        follow: bool,
        /// How many scans must agree on every update of a page before it is written: a number,
        /// or quorum (f + 1 of the network). 1 writes unverified ranges.
        #[arg(long, value_name = "N|quorum", default_value = "2", value_parser = parse_verify)]
        verify: VerifyArg,
        /// Do not keep the updates' bodies (only their summaries, keys and digests).
        #[arg(long)]
        no_bodies: bool,
        /// Progress as JSON lines on stderr (default: a line on stderr when it is a terminal).
        #[arg(long, value_name = "FORMAT")]
        progress: Option<ProgressArg>,
        /// Updates per page (1..=1000).
        #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u16).range(1..=1000))]
        page_size: u16,
        /// Request budget per scan, requests per second [default: scan_request_rate of the
        /// profile, else 10].
        #[arg(long, value_name = "N", value_parser = parse_request_rate)]
        request_rate: Option<f64>,
        /// Timeout of each request.
        #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_timeout)]
        timeout: Duration,
        /// A --from TIME range of an hour or more is split into this many time chunks, walked
        /// side by side (each scan still within its request budget).
        #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
        chunks: u16,
    },
    /// Re-check the stored updates against the scans now: every page of the range the index
    /// covers is asked of --verify scans (verifiers in rotation, a disagreement put to every
    /// scan, as sync does) and each stored digest compared with the one they agree on. Prints
    /// a JSON report, records when each range was verified and by which scans (shown by
    /// `index status`); never changes a stored update.
    #[command(after_help = INDEX_EXIT_CODES)]
    Verify {
        /// Only updates recorded at or after this time [default: the start of the index].
        #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_time)]
        from: Option<String>,
        /// Only updates recorded at or before this time [default: the end of the index].
        #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_time)]
        until: Option<String>,
        /// How many scans must agree on an update for it to be the reference: a number, or
        /// quorum (f + 1 of the network).
        #[arg(long, value_name = "N|quorum", default_value = "2", value_parser = parse_verify)]
        verify: VerifyArg,
        /// Progress as JSON lines on stderr (default: a line on stderr when it is a terminal).
        #[arg(long, value_name = "FORMAT")]
        progress: Option<ProgressArg>,
        /// Updates per page (1..=1000).
        #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u16).range(1..=1000))]
        page_size: u16,
        /// Request budget per scan, requests per second [default: scan_request_rate of the
        /// profile, else 10].
        #[arg(long, value_name = "N", value_parser = parse_request_rate)]
        request_rate: Option<f64>,
        /// Timeout of each request.
        #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_timeout)]
        timeout: Duration,
    },
    /// Remove every update recorded before TIME (and its keys) from the index; takes the
    /// writer lock, so not while a sync runs.
    #[command(after_help = INDEX_EXIT_CODES)]
    Prune {
        /// Keep updates recorded at or after this time (RFC 3339, -90d, …).
        #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_time)]
        before: String,
    },
    /// The index as JSON: its range per migration, update count, size on disk, gaps, the
    /// scans that confirmed each range, divergences, the last sync, a sync running.
    #[command(after_help = INDEX_EXIT_CODES)]
    Status,
    /// The updates matching every term, newest first, as JSON Lines (the History export's row
    /// fields). Terms: party:P template:T choice:C (exact), contract:PREFIX id:PREFIX (with or
    /// without 1220).
    #[command(after_help = INDEX_EXIT_CODES)]
    Search {
        /// The terms (all must match).
        #[arg(required = true, value_name = "TERM")]
        query: Vec<String>,
        /// Only updates recorded at or after this time.
        #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_time)]
        from: Option<String>,
        /// Only updates recorded at or before this time.
        #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_parser = parse_time)]
        until: Option<String>,
        /// At most this many rows.
        #[arg(long, value_name = "N", default_value_t = 100)]
        limit: usize,
        /// Print only the number of matching updates.
        #[arg(long)]
        count: bool,
    },
}

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
        /// The whole update id (68 hex characters; the 64 after `1220` also do).
        #[arg(value_parser = crate::model::format::whole_update_id)]
        update_id: String,
        /// Compare GET /v0/events/{update_id} instead (without verdict.finalization_time and
        /// app_activity_records, which are local to each scan).
        #[arg(long)]
        events: bool,
    },
    /// Compare POST /v2/updates across every scan page by page until the scans differ, the
    /// head, or --pages; progress as JSON lines on stderr, the result as JSON on stdout.
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
        /// No progress lines on stderr.
        #[arg(long)]
        quiet: bool,
    },
}

/// Value of `--encoding`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EncodingArg {
    /// Compact human-readable JSON.
    #[value(name = "compact_json")]
    CompactJson,
    /// Verbose JSON with type information.
    #[value(name = "protobuf_json")]
    ProtobufJson,
}

/// Value of `--match`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MatchArg {
    /// The record time must be a snapshot time.
    #[value(name = "exact")]
    Exact,
    /// The latest snapshot at or before the record time.
    #[value(name = "at_or_before")]
    AtOrBefore,
}

/// `cantonscope scan …`
#[derive(Debug, Clone, Subcommand)]
pub enum ScanCommand {
    /// POST /v2/updates: a page of the update history, or with --all every page as JSON Lines.
    Updates {
        /// Maximum number of updates per page (servers accept 1..=1000) [default: 10, with
        /// --all 100].
        #[arg(long, value_name = "N")]
        page_size: Option<i32>,
        /// Start after this migration id (with --after-record-time).
        #[arg(long, value_name = "N", requires = "after_record_time")]
        after_migration_id: Option<i64>,
        /// Start after this record time (with --after-migration-id).
        #[arg(long, value_name = "TS", requires = "after_migration_id", value_parser = parse_timestamp)]
        after_record_time: Option<String>,
        /// Encoding of contract values.
        #[arg(long, value_enum, default_value = "compact_json")]
        encoding: EncodingArg,
        /// Walk every page and write one update per line (JSON Lines) as they come.
        #[arg(long)]
        all: bool,
        /// With --all: start at this record time (`begin`: the ledger begin, the default).
        #[arg(long, value_name = "TS|begin", requires = "all", conflicts_with = "after_record_time", value_parser = parse_from, allow_hyphen_values = true)]
        from: Option<String>,
        /// With --all: stop after this record time (inclusive; default: the current head).
        #[arg(long, value_name = "TS", requires = "all", value_parser = parse_time, allow_hyphen_values = true)]
        until: Option<String>,
        /// With --all: pages per second at most [default: scan_request_rate of the profile,
        /// else 10].
        #[arg(long, value_name = "N", requires = "all", value_parser = parse_request_rate)]
        request_rate: Option<f64>,
    },
    /// GET /v0/events/{update_id}: the update, verdict, traffic summary and app activity.
    Event {
        /// The whole update id (68 hex characters; the 64 after `1220` also do).
        #[arg(value_parser = crate::model::format::whole_update_id)]
        update_id: String,
    },
    /// GET /v2/updates/hash/{hash}: the update of a prepared transaction's hash.
    UpdateByHash {
        /// The hash of the prepared transaction.
        hash: String,
    },
    /// GET /status: the node's health.
    Status,
    /// GET /v0/sv-bft-sequencers: this SV's BFT sequencers.
    BftSequencers,
    /// GET /v0/dso: the DSO as this scan's SV sees it: its party (sv_party_id), the DSO rules
    /// and their SVs, the voting threshold, the newest open round, the amulet rules.
    Dso,
    /// POST /v1/holdings/summary: holdings of owner parties at a snapshot.
    Holdings {
        /// Migration id [default: the scan's current (newest) migration].
        #[arg(long, value_name = "N")]
        migration_id: Option<i64>,
        /// Record time of the snapshot (RFC 3339, -2h, yesterday 14:00 UTC), or `now` [default: now].
        #[arg(long, value_name = "TS|now", value_parser = parse_time_or_now, allow_hyphen_values = true)]
        record_time: Option<String>,
        /// How the record time is matched [default: at_or_before for `now`, else exact].
        #[arg(long = "match", value_enum)]
        record_time_match: Option<MatchArg>,
        /// Owner party ids (at least one).
        #[arg(long = "party", value_name = "P", required = true, num_args = 1..)]
        parties: Vec<String>,
    },
    /// GET /v0/validators/validator-faucets: liveness statistics of validators.
    ValidatorFaucets {
        /// Validator party ids (at least one).
        #[arg(long = "validator", value_name = "V", required = true, num_args = 1..)]
        validators: Vec<String>,
    },
    /// POST /v0/admin/sv/previous-sv-reward-weight: an SV's previous reward weight.
    RewardWeight {
        /// The SV party.
        #[arg(long, value_name = "P")]
        sv: String,
        /// Only weight changes that took effect strictly before this time.
        #[arg(long, value_name = "TS", value_parser = parse_time, allow_hyphen_values = true)]
        effective_before: Option<String>,
    },
    /// GET /v0/synchronizer-bootstrapping-transactions/{prefix}.
    Bootstrapping {
        /// A prefix of the synchronizer (domain) id.
        domain_id_prefix: String,
    },
    /// GET /v1/domains/{domain}/parties/{party}/participant-id: participants hosting a party.
    ParticipantId {
        /// The synchronizer (domain) id.
        #[arg(long, value_name = "D")]
        domain: String,
        /// The party id.
        #[arg(long, value_name = "P")]
        party: String,
    },
    /// GET /v0/domains/{domain}/members/{member}/traffic-status: a member's sequencer traffic.
    TrafficStatus {
        /// The member: `PAR::id::fingerprint`, `MED::…`, or a bare participant `id::fingerprint`.
        #[arg(long, value_name = "M")]
        member: String,
        /// The synchronizer (domain) id; default: the one the open mining rounds name (global).
        #[arg(long, value_name = "D")]
        domain: Option<String>,
    },
}

/// `cantonscope validator …`
#[derive(Debug, Clone, Subcommand)]
pub enum ValidatorCommand {
    /// Unclaimed development fund coupons.
    DevFundCoupons,
    /// The amulet rules contract.
    AmuletRules,
    /// Status of the transfer commands of a sender for a nonce.
    TransferStatus {
        /// The sender party.
        #[arg(long, value_name = "S")]
        sender: String,
        /// The nonce.
        #[arg(long, value_name = "N")]
        nonce: i64,
    },
}

/// `cantonscope ledger …` (needs a JWT: --token-file, $CANTONSCOPE_TOKEN or the config)
#[derive(Debug, Clone, Subcommand)]
pub enum LedgerCommand {
    /// GET /v2/parties/{party}: details of parties.
    Parties {
        /// The party id.
        party: String,
        /// Further parties.
        #[arg(long = "party", value_name = "P", num_args = 1..)]
        parties: Vec<String>,
        /// Identity provider id.
        #[arg(long, value_name = "ID")]
        identity_provider_id: Option<String>,
    },
    /// DELETE /v2/users/{user-id}: delete a user and all its rights (needs --yes).
    DeleteUser {
        /// The user id.
        user_id: String,
        /// Confirm the deletion.
        #[arg(long, required = true)]
        yes: bool,
    },
    /// GET /v2/packages/{package-id}: download a package to a file.
    Package {
        /// The package id.
        package_id: String,
        /// Where to write the package bytes (an existing file is not replaced without --force).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Replace FILE if it exists.
        #[arg(long)]
        force: bool,
    },
    /// GET /v2/state/ledger-end: the current ledger end offset.
    End,
    /// POST /v2/updates/trees (deprecated): transaction trees over an offset range.
    Trees {
        /// Exclusive lower bound offset (0 = ledger begin).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(0..))]
        begin_exclusive: i64,
        /// Inclusive upper bound offset.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(0..))]
        end_inclusive: Option<i64>,
        /// Only trees visible to these parties (default: any party).
        #[arg(long = "party", value_name = "P", num_args = 1..)]
        parties: Vec<String>,
        /// Maximum number of elements.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..))]
        limit: Option<i64>,
        /// Newest first (needs --end-inclusive).
        #[arg(long, requires = "end_inclusive")]
        descending: bool,
    },
    /// POST /v2/interactive-submission/executeAndWaitForTransaction: execute a signed prepared
    /// transaction.
    Execute {
        /// JSON file holding the request body.
        #[arg(long, value_name = "FILE")]
        body: PathBuf,
    },
}

impl Cli {
    /// The explorer flags in force (for `demo`, its own win over the ones given before it).
    pub fn tui_args(&self) -> TuiArgs {
        match &self.command {
            Some(Command::Demo(demo)) => merge_tui(&demo.tui, &self.tui),
            Some(Command::Open(open)) => merge_tui(&open.tui, &self.tui),
            _ => self.tui.clone(),
        }
    }

    /// The config-layer overrides of this command line. For `demo`, its explorer flags win over
    /// the ones given before the command.
    pub fn overrides(&self) -> Overrides {
        let tui = self.tui_args();
        Overrides {
            config: self.global.config.clone(),
            profile: self.global.profile.clone(),
            scan_url: self.global.scan_url.clone(),
            validator_url: self.global.validator_url.clone(),
            ledger_url: self.global.ledger_url.clone(),
            token_file: self.global.token_file.clone(),
            log_file: self.global.log_file.clone(),
            max_response_mib: self.global.max_response_mib,
            from: tui.from,
            refresh: tui.refresh,
            theme: tui.theme,
            read_only: tui.read_only,
        }
    }
}

fn merge_tui(first: &TuiArgs, second: &TuiArgs) -> TuiArgs {
    TuiArgs {
        from: first.from.or(second.from),
        refresh: first.refresh.or(second.refresh),
        theme: first.theme.clone().or_else(|| second.theme.clone()),
        read_only: first.read_only || second.read_only,
        offline: first.offline || second.offline,
        index: first.index.clone().or_else(|| second.index.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn definitions_are_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn global_flags_after_the_command() {
        let cli = Cli::try_parse_from([
            "cantonscope",
            "scan",
            "status",
            "--scan-url",
            "http://127.0.0.1:1/",
            "--profile",
            "x",
        ])
        .expect("parses");
        let overrides = cli.overrides();
        assert_eq!(
            overrides.scan_url.as_ref().map(BaseUrl::as_str),
            Some("http://127.0.0.1:1")
        );
        assert_eq!(overrides.profile.as_deref(), Some("x"));
    }

    #[test]
    fn delete_user_needs_yes() {
        let err = Cli::try_parse_from(["cantonscope", "ledger", "delete-user", "alice"])
            .expect_err("usage error");
        assert_eq!(err.exit_code(), 2);
        assert!(
            Cli::try_parse_from(["cantonscope", "ledger", "delete-user", "alice", "--yes"]).is_ok()
        );
    }

    #[test]
    fn after_flags_come_in_pairs() {
        assert!(
            Cli::try_parse_from([
                "cantonscope",
                "scan",
                "updates",
                "--after-migration-id",
                "1"
            ])
            .is_err()
        );
        assert!(
            Cli::try_parse_from([
                "cantonscope",
                "scan",
                "updates",
                "--after-migration-id",
                "1",
                "--after-record-time",
                "2026-01-01T00:00:00Z"
            ])
            .is_ok()
        );
    }

    #[test]
    fn demo_tui_flags_win() {
        let cli = Cli::try_parse_from([
            "cantonscope",
            "--theme",
            "light",
            "--refresh",
            "5s",
            "demo",
            "--theme",
            "mono",
        ])
        .expect("parses");
        let overrides = cli.overrides();
        assert_eq!(overrides.theme.as_deref(), Some("mono"));
        assert_eq!(overrides.refresh, Some(Duration::from_secs(5)));
    }
}
