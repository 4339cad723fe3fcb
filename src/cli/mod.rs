//! Command-line definitions (clap derive): the explorer (root command and `demo`), `serve-demo`,
//! and the headless `scan` / `validator` / `ledger` / `governance` commands, plus the conversion of the flags into
//! the config layer's [`Overrides`]. Parsing only: running the commands is `crate::headless`.
//! Each command's flags are in the submodule named after it (`demo` holds `serve-demo`'s too).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config::{BaseUrl, HistoryStart, Overrides, parse_refresh};

mod check;
mod demo;
mod governance;
mod index;
mod ledger;
mod network;
mod node;
mod scan;
mod validator;
mod values;

pub use check::{CHECK_EXIT_CODES, CheckArgs};
pub use demo::{
    DEFAULT_DEMO_LAG, DEFAULT_SERVE_DEMO_LISTEN, DemoArgs, DemoFaultArgs, DownModeArg,
    ServeDemoArgs,
};
pub use governance::{GOVERNANCE_EXIT_CODES, GovernanceCommand, OutcomeArg};
pub use index::{INDEX_EXIT_CODES, IndexArgs, IndexCommand, ProgressArg, VerifyArg, WalkArgs};
pub use ledger::LedgerCommand;
pub use network::{NETWORK_EXIT_CODES, NetworkArgs, NetworkCommand};
pub use node::{NODE_EXIT_CODES, NodeArgs, NodeCommand};
pub use scan::{EncodingArg, MatchArg, PageArgs, ScanCommand};
pub use validator::ValidatorCommand;
use values::parse_max_response_mib;
pub use values::{parse_from, parse_time, parse_time_or_now, parse_timestamp};

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
    /// How the headless commands print: a table for a person, or JSON for scripts (csv:
    /// `index rounds`) [default:
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
    /// The Prometheus text exposition format (`check` only).
    Prometheus,
    /// Comma-separated values with a header (`index stats`, `index rounds` and `index validators` only).
    Csv,
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
    #[arg(long, value_name = "PATH", value_parser = values::index_location)]
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
    /// My node: the operator's own metrics endpoints (metrics in the profile) or its
    /// Prometheus, judged by Digital Asset's alert rules, as JSON.
    Node(NodeArgs),

    /// Is anything wrong? One run for cron and Prometheus: the network's health with the head
    /// check, forks and diverged histories, votes that need my SV's vote soon, my node's
    /// alerts, the local index's lag; exit 0 all well, 5 something needs attention, 3 a node of
    /// mine is unreachable.
    Check(CheckArgs),

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

/// `cantonscope open LOCATOR`
#[derive(Debug, Clone, Args)]
pub struct OpenArgs {
    /// The view: a cs1: locator (no URL, host or credential; an update id may be abbreviated as
    /// the screen shows it, 1220d17b…9f1e, completed from the local index).
    #[arg(value_name = "LOCATOR", value_parser = parse_locator)]
    pub locator: crate::model::locator::Locator,
    #[command(flatten)]
    pub tui: TuiArgs,
}

fn parse_locator(s: &str) -> Result<crate::model::locator::Locator, String> {
    crate::model::locator::Locator::parse(s).map_err(|e| e.to_string())
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
