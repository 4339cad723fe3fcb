//! What the panes show, derived from api types: compact update summaries and the loaded history
//! with its filter and its loader (a pure state machine owned by the app), the bounded cache of full bodies, and event trees (scan trees from
//! `child_event_ids`, ledger trees from node-id ranges, one [`forest::Forest`] shape for all); what the loaded history says about one
//! contract (its lifecycle) or one reassignment (its other half); exact decimal amounts
//! (`amount`); how numbers, times, durations, sizes and ids read (`format`, the one place for
//! them); a verdict's view tree; the JSON text the program writes (`json_text`: linear
//! re-indenting and `\uXXXX` escapes); the Status dashboard's node poller (`node_poll`) and
//! update-rate statistics (`history_stats`); the whole network: consensus across scans, scan
//! health, the history sweep; and governance (vote requests in words, tallies, my SV's vote,
//! outcomes, config diffs, price-vote statistics, reward weight histories).

pub mod amount;
pub mod cache;
pub mod consensus;
pub mod event_tree;
pub mod export;
pub mod export_range;
pub mod findings;
pub mod forest;
pub mod format;
pub mod governance;
pub mod history;
pub mod history_stats;
pub mod id_pattern;
pub mod index;
pub mod intern;
pub mod is_term;
pub mod json_text;
pub mod json_tokens;
pub mod ledger_tree;
pub mod lifecycle;
pub mod locator;
pub mod lower_hex;
pub mod metrics;
pub mod network;
pub mod page_walk;
pub mod position;
pub mod reassign;
pub mod reread;
pub mod reward_hash;
pub mod reward_tree;
pub mod scroll;
mod server_time_form;
pub mod summary;
mod summary_pack;
#[cfg(test)]
mod summary_pack_tests;
pub mod summary_telling;
pub mod sweep;
pub mod verdict;
pub mod when;

#[cfg(test)]
pub(crate) mod fixtures;

/// A node of an event tree: its index in the tree's node tables.
pub type NodeId = usize;
