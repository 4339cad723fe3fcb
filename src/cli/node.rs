//! `cantonscope node …`: the operator's own node, judged by its metrics.

use clap::{Args, Subcommand};

/// Exit codes of `node alerts` (shown in its help).
pub const NODE_EXIT_CODES: &str = "\
Exit codes:
  0  no rule fires (rules not exported or not determined are named, not findings)
  5  a warning fires
  6  a critical rule fires
  1  no metrics endpoint answered (nor the Prometheus)
  2  usage or configuration error (no metrics or prometheus in the profile)";

/// `cantonscope node …`
#[derive(Debug, Clone, Args)]
#[command(after_help = NODE_EXIT_CODES)]
pub struct NodeArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: NodeCommand,
}

/// `cantonscope node` commands.
#[derive(Debug, Clone, Subcommand)]
pub enum NodeCommand {
    /// Scrape the profile's metrics endpoints (or query its Prometheus) once and judge them by
    /// Digital Asset's alert rules: each rule's state, value, threshold, since when it fires
    /// and where its default comes from. Counter rules compare with the previous run's samples,
    /// kept under the data directory (node-alerts/<profile>.json).
    #[command(after_help = NODE_EXIT_CODES)]
    Alerts {
        /// Neither read nor keep the previous run's samples.
        #[arg(long)]
        no_keep: bool,
    },
}
