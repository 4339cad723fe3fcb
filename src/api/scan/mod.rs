//! Scan group (`{scan_url}/api/scan`): the typed models of every scan endpoint we use and the
//! [`Call`] constructors for them.
//!
//! The update history is the hot path and has its own files: `updates` (`/v2/updates` pages, an
//! update by id or by hash: items that keep their raw JSON, so one odd item becomes
//! [`UpdateItem::Malformed`] instead of failing the page), `updates_page` (the client's decoder
//! of a page, one pass over its text) and `tree` (a transaction's events and its tree walk). `dso` holds `/v0/dso` (the DSO rules and their SVs, the asked scan's own SV);
//! `governance` the vote requests, their results and the amulet price votes; `event_item` the
//! event history item (`/v0/events/{update_id}`); `party` the per-party queries (holdings
//! summary, validator faucets and licenses, ANS entries, SV reward weight); `nodes` the network's
//! nodes (status, version, scans, mining rounds, BFT sequencers, bootstrapping transactions,
//! hosting participants, backfilling, amulet rules, traffic); `rewards` the CIP-0104 reward
//! accounting (SV internal: a round's states, activity totals, root hash and batches). This
//! file holds the Daml value encoding the endpoints share.

mod dso;
mod event_item;
pub mod events_head;
mod governance;
mod nodes;
mod party;
pub mod rewards;
mod tree;
mod updates;
mod updates_page;

pub use dso::{DsoInfo, DsoSv, dso};
pub use event_item::*;
pub use events_head::{LatestEventRecordTime, latest_event_record_time};
pub use governance::*;
pub use nodes::*;
pub use party::*;
pub use rewards::{
    ActivityTotals, EarliestRewardRound, MintingAllowance, RewardBatch, RootHash, RoundAnswer,
    reward_activity_totals, reward_batch, reward_earliest_round, reward_root_hash,
};
pub use tree::*;
pub use updates::*;
pub use updates_page::updates;

use super::call::Call;
use super::json::string_enum;

string_enum! {
    /// How Daml values are encoded in responses (`contract_value_encoding` / `daml_value_encoding`).
    #[derive(Default)]
    pub enum ValueEncoding {
        /// Compact human-readable JSON (the default).
        #[default]
        CompactJson = "compact_json",
        /// Verbose JSON with type information.
        ProtobufJson = "protobuf_json",
    }
}

/// Asks for Daml values in `encoding`, under both parameter names the scan versions use.
fn with_encoding<T>(call: Call<T>, encoding: &ValueEncoding) -> Call<T> {
    call.query("contract_value_encoding", encoding.as_str())
        .query("daml_value_encoding", encoding.as_str())
}
