//! `cantonscope check`: one run that says whether anything needs an on-call SV's attention,
//! for cron and for Prometheus; its flags and exit codes.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::config::parse_duration;

use super::values::{parse_request_rate, parse_timeout};

/// Exit codes of `check` (shown in its help).
pub const CHECK_EXIT_CODES: &str = "\
Exit codes:
  0  all well: nothing needs attention (a rule that could not be judged in one run,
     \"not determined\", counts as well; acknowledged findings do not count)
  5  something needs attention: a scan down, unhealthy, forked or with a diverged history,
     fewer than a quorum (f + 1) of scans healthy, a vote that needs my SV's vote and
     closes within --within, one of my node's alert rules firing, the local index behind
  3  a node of mine cannot be reached: the profile's own scan, or one of its metrics
     endpoints (3 wins over 5)
  2  usage or configuration error

Findings are kept per network under the data directory (the explorer, `network health`,
`network check-update`, the sweep and `index sync`/`index verify` add to them); --ack
quiets one for a while (--for), --log lists them all, cleared ones included.";

/// `cantonscope check …`
#[derive(Debug, Clone, Args)]
#[command(after_help = CHECK_EXIT_CODES)]
pub struct CheckArgs {
    /// Votes needing my SV's vote count when they close within this window.
    #[arg(long, value_name = "DURATION", default_value = "24h", value_parser = parse_duration)]
    pub within: Duration,
    /// Also write the result in the Prometheus text format to this file, atomically (for
    /// node_exporter's textfile collector: `--textfile
    /// /var/lib/node_exporter/textfile/cantonscope.prom`).
    #[arg(long, value_name = "PATH")]
    pub textfile: Option<PathBuf>,
    /// Acknowledge the finding with this id (as `check` and the explorer's findings log show
    /// it) for --for: it stays listed, stops ringing and stops counting; nothing else is
    /// checked.
    #[arg(long, value_name = "ID", conflicts_with = "log")]
    pub ack: Option<String>,
    /// How long --ack quiets the finding (0s takes an acknowledgement back).
    #[arg(long = "for", value_name = "DURATION", default_value = "4h", value_parser = parse_duration, requires = "ack")]
    pub ack_for: Duration,
    /// List every kept finding of the network, open and cleared (the log: what fired, when,
    /// when it cleared); nothing is checked.
    #[arg(long)]
    pub log: bool,
    /// Request budget per scan, requests per second [default: scan_request_rate of the
    /// profile, else 10].
    #[arg(long, value_name = "N", value_parser = parse_request_rate)]
    pub request_rate: Option<f64>,
    /// Timeout of each request.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_timeout)]
    pub timeout: Duration,
}
