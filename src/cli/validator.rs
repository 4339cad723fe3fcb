//! `cantonscope validator …`: its commands and their flags.

use clap::Subcommand;

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
