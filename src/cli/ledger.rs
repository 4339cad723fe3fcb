//! `cantonscope ledger …`: its commands and their flags.

use std::path::PathBuf;

use clap::Subcommand;

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
