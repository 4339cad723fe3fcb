//! `cantonscope governance …`: its commands, their flags and exit codes.

use std::time::Duration;

use clap::{Subcommand, ValueEnum};

use crate::config::parse_duration;

use super::parse_time;

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
        page_size: u16,
        /// At most this many results in all (default: every one). Earlier versions read
        /// --limit as the page size: that is --page-size now.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        limit: Option<u64>,
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
