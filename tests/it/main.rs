//! The integration tests, one binary (linking the library once instead of once per file): one
//! module per area, sharing the headless harness and helpers of [`common`]. Snapshots stay in
//! `tests/snapshots/<module>__<name>.snap` (see [`common::assert_snapshot`]).
//!
//! One area: `cargo test --test it pane_history::`; one test: `cargo test --test it
//! pane_history::snapshot_80x24 -- --exact`.

// Tests may unwrap: a panic is a failed test with its location.
#![allow(clippy::unwrap_used)]
// Test-only allows (the library follows these lints): canned answers are `Ok` by design
// (`unnecessary_wraps`), test structs are filled with `Default::default()`, a kept runtime is
// named `_runtime`, file names are compared as the code writes them, numbers compared
// exactly are those the code computed from the same inputs (`float_cmp`), and fixture builders
// take the JSON and replies they are handed by value (`needless_pass_by_value`).
#![allow(
    clippy::float_cmp,
    clippy::needless_pass_by_value,
    clippy::unnecessary_wraps,
    clippy::default_trait_access,
    clippy::used_underscore_binding,
    clippy::case_sensitive_file_extension_comparisons,
    clippy::unreadable_literal
)]

mod common;

mod api_demo;
mod api_errors;
mod app_flows;
mod app_snapshots;
mod bad_input;
mod book;
mod check;
mod cli;
mod config;
mod credentials;
mod decode_samples;
mod demo_consistency;
mod demo_server;
mod export;
mod fuzz;
mod governance;
mod history_reach;
mod history_verdict_only;
mod index;
mod index_compact;
mod index_context;
mod index_coverage;
mod index_events;
mod index_events_failover;
mod index_explorer;
mod index_pairs;
mod index_pg;
mod index_pg_blocks;
mod index_pg_flows;
mod index_prefix;
mod index_reports;
mod index_rounds;
mod index_rounds_tree;
mod index_schema10;
mod index_schema11;
mod index_schema12;
mod index_schema13;
mod index_schema14;
mod index_schema15;
mod index_schema16;
mod index_schema17;
mod index_schema18;
mod index_schema19;
mod index_search_verdict_only;
mod index_show;
mod index_stats;
mod index_validators;
mod index_verdicts;
mod index_verify;
mod is_terms;
mod layering;
mod locator;
mod network;
mod network_ui;
mod no_overwrite;
mod node_alerts;
mod pane_governance;
mod pane_history;
mod pane_holdings;
mod pane_ledger;
mod pane_network;
mod pane_proxy;
mod pane_status;
mod pane_update;
mod pane_validators;
mod pane_validators_index;
mod pane_verdict;
mod pasted_ids;
mod readme;
mod rewards;
mod rounds_scans_view;
mod rounds_view;
mod safety;
mod soak;
mod terminal;
mod traffic;
mod typed_keys;
mod ui_foundation;
mod verdict_offline;
mod whole_fields;
mod zoom;
