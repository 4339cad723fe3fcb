//! What the panes show, derived from api types: compact update summaries and the loaded history
//! with its filter, the bounded cache of full bodies, and event trees (scan trees from
//! `child_event_ids`, ledger trees from node-id ranges), and the whole network: consensus across
//! scans, scan health, the history sweep.

pub mod cache;
pub mod consensus;
pub mod event_tree;
pub mod export;
pub mod history;
pub mod intern;
pub mod ledger_tree;
pub mod network;
pub mod summary;
pub mod sweep;
