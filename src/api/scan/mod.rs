//! Scan group (`{scan_url}/api/scan`): the typed models of every scan endpoint we use and the
//! [`Call`](super::Call) constructors for them, one file per group of endpoints:
//!
//! - `updates`: the update history (`/v2/updates`, by id, by hash): pages of items that keep
//!   their raw JSON; `tree`: a transaction's events and its tree walk;
//! - `events`: `/v0/events/{update_id}` (update, verdict, traffic summary, app activity);
//! - `holdings`: per-party queries (holdings summary, validator faucets, SV reward weight);
//! - `network`: the network's nodes (status, version, scans, mining rounds, BFT sequencers,
//!   bootstrapping transactions, hosting participants, backfilling, amulet rules, traffic).
//!
//! The update history types are the hot path: items keep their raw JSON (lossless, unknown
//! fields included), payloads stay [`RawJson`](super::RawJson), and a page decodes item by item
//! so one odd item becomes [`UpdateItem::Malformed`] instead of failing the page.

mod events;
mod holdings;
mod network;
mod tree;
mod updates;

pub use events::*;
pub use holdings::*;
pub use network::*;
pub use tree::*;
pub use updates::*;

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
