//! cantonscope: a terminal UI explorer for the Canton Network.
//!
//! The library holds everything; `main.rs` only dispatches the command line. Tests build the app
//! headless through this crate.
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod api;
pub mod app;
pub mod cli;
pub mod config;
pub mod demo;
pub mod every_scan;
pub mod feed;
pub mod headless;
pub mod indexer;
pub mod model;
pub mod msg;
pub mod panes;
pub mod runtime;
pub mod store;
pub mod ui;
